"""Optimizers. Paddle spelling here (`learning_rate=`, `parameters=`, `clear_grad()`);
PyTorch spelling in oar.optim (`lr=`, positional params, `zero_grad(set_to_none=True)`).
"""
# Note [Optimizer steps do not allocate]
# step() updates parameters in place with NumPy ufuncs writing into preallocated state
# (moments and one or two scratch buffers per parameter, created at the first step), then
# bumps each parameter's version (Note [Version counter]) so a graph that saved the old
# value still catches the change. After the first step a step allocates nothing
# proportional to the parameters: tests/test_training.py checks it with the storage
# accounting and with tracemalloc, which sees NumPy's own allocations.
#
# Note [Optimizer version bumps]
# A parameter's version counts the in-place writes a step makes to it, as PyTorch's
# _version counts its in-place ops: one per step (`param.add_`/`addcdiv_`), and two for
# PyTorch's decoupled weight decay (AdamW, Adam(decoupled_weight_decay=True)) with a
# nonzero decay, which first runs `param.mul_(1 - lr * weight_decay)`. Each class says
# how many with _writes_per_step(group); PyTorch 2.13 counts the same with foreach on or
# off, and never bumps the gradient. The Paddle-spelling classes keep one per step. The
# oar.jit replay of Adam's flat step (Note [Replay lowerings]) bumps the same number.

from __future__ import annotations

import copy
import functools
import inspect
import math

import numpy as np

from .. import _xp
from .. import device as _device
from ..autograd.errors import ArgTypeError, ArgValueError
from ..autograd.inplace import bump
from ..ops import args as _args
from ..ops import registry as _R
from ..autograd import saved as _saved
from ..tensor import Tensor, wrap_as
from . import lr  # noqa: F401


def _take_grad_clip(init):
    """Wraps a Paddle-style optimizer's __init__: its grad_clip (a ClipGradBase, Note
    [Gradient clipping]) is checked before anything is built and kept as self._grad_clip."""
    sig = inspect.signature(init)

    @functools.wraps(init)
    def init_with_clip(self, *args, **kwargs):
        clip = sig.bind_partial(self, *args, **kwargs).arguments.get("grad_clip")
        _check_grad_clip(clip, type(self).__name__)
        init(self, *args, **kwargs)
        self._grad_clip = clip
    return init_with_clip


def _check_grad_clip(clip, name):
    """grad_clip must be None or a clip of oar.nn.clip (Paddle raises TypeError too)."""
    from ..nn.clip import ClipGradBase
    if clip is not None and not isinstance(clip, ClipGradBase):
        raise ArgTypeError(
            f"{name}: 'grad_clip' should be an instance of ClipGradBase's derived class "
            "(paddle.nn.ClipGradByValue, ClipGradByNorm or ClipGradByGlobalNorm), got "
            f"{_what(clip)}. Fix: grad_clip=paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0).")


def _timeline_units(cls):
    """Each optimizer call a class defines is one entry of a memory timeline, even when it
    allocates nothing (Note [Memory timeline])."""
    for name in ("step", "clear_grad", "clear_gradients", "zero_grad"):
        fn = cls.__dict__.get(name)
        if callable(fn) and not getattr(fn, "timeline_unit", False):
            setattr(cls, name, _device.optimizer_call(fn))


class Optimizer:
    """Base class of optimizers: parameter groups, learning rate, state; step() updates in place."""
    _defaults: dict = {}
    _grad_clip = None          # Note [Gradient clipping]; set by the Paddle-style __init__

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and "grad_clip" in inspect.signature(init).parameters:
            cls.__init__ = _take_grad_clip(init)
        _timeline_units(cls)

    def __init__(self, params, defaults):
        name = type(self).__name__
        if params is None:
            raise ArgValueError(f"{name}: pass the parameters to optimise "
                                "(parameters=model.parameters() or params=model.parameters())")
        if isinstance(params, Tensor) or not _iterable(params):
            raise ArgTypeError(
                f"{name}: params argument given to the optimizer should be an iterable of "
                f"Tensors or dicts, but got {_what(params)}. Fix: pass model.parameters() or "
                "a list such as [weight, bias].")
        params = list(params)
        if not params:
            raise ArgValueError(f"{name}: optimizer got an empty parameter list")
        raw = params if isinstance(params[0], dict) else [{"params": params}]
        groups = []
        seen = set()
        for gi, g in enumerate(raw):       # check every group before keeping any
            group = self._make_group(g, defaults, gi, groups)
            ids = {id(p) for p in group["params"]}
            if ids & seen:
                raise ArgValueError(f"{name}: some parameters appear in more than one "
                                    "parameter group")
            seen |= ids
            groups.append(group)
        self.defaults = dict(defaults)
        self.param_groups = groups
        self._make_state()
        self._scheduler = None
        for g in groups:
            if isinstance(g.get("lr"), lr.LRScheduler):
                self._scheduler = g["lr"]

    # Note [Optimizer checks at construction]
    # As a layer does (Note [nn checks at construction]), an optimizer checks its
    # configuration once, where it was written: when it is made or a group is added. params
    # is an ordered iterable of tensors (a set is refused: its order changes between runs),
    # each a leaf (or a non-leaf that retains its gradient), none in two groups, and every
    # hyper-parameter is in range (`_check_hyper`). All groups are checked before any is
    # kept. step() then checks only the gradients, before it writes anything.
    def _make_group(self, g, defaults, gi=0, prior=()):
        """A checked parameter group (a new dict): params are leaf tensors, hyper-parameters
        are in range (Note [Optimizer checks at construction])."""
        name = type(self).__name__
        if not isinstance(g, dict):
            raise ArgTypeError(f"{name}: param group {gi} must be a dict (or every entry a "
                               f"Tensor), got {_what(g)}")
        if "params" not in g:
            raise _ParamsKeyError(f"{name}: param group {gi} has no 'params' entry")
        ps = g["params"]
        if isinstance(ps, Tensor):
            ps = [ps]
        elif isinstance(ps, (set, frozenset)):
            raise ArgTypeError(f"{name}: optimizer parameters need to be organized in ordered "
                               "collections, but the ordering of tensors in sets will change "
                               "between runs. Please use a list instead.")
        elif not _iterable(ps):
            raise ArgTypeError(f"{name}: 'params' of param group {gi} should be an iterable of "
                               f"Tensors, got {_what(ps)}")
        ps = list(ps)
        for i, p in enumerate(ps):
            if not isinstance(p, Tensor):
                raise ArgTypeError(f"{name}: optimizer can only optimize Tensors, but one of "
                                   f"the params is {type(p).__name__} (param {i} of group {gi})")
            if p.grad_fn is not None and not p._retains_grad:
                raise ArgValueError(
                    f"{name}: can't optimize a non-leaf Tensor (param {i} of group {gi}, "
                    f"shape {list(p.shape)}, the result of an op). Fix: "
                    "optimise the leaf it was computed from, or use "
                    "t.detach().requires_grad_() to make a new leaf.")
        # the group's own keys in their order, then the missing defaults (PyTorch's and
        # Paddle's add_param_group: param_group.setdefault(name, default))
        group = {k: (ps if k == "params" else v) for k, v in g.items()}
        for k, v in defaults.items():
            group.setdefault(k, v)
        self._check_hyper(group)
        if "grad_clip" in group:          # a group's own clip (Note [Gradient clipping])
            _check_grad_clip(group["grad_clip"], name)
        return group

    def _check_hyper(self, group):
        group["lr"] = _check_lr(group["lr"], type(self).__name__)
        if "weight_decay" in group:
            group["weight_decay"] = _nonneg(group["weight_decay"], "weight_decay", self)

    def add_param_group(self, param_group):
        """Adds a parameter group (a dict with 'params' and optional hyper-parameters)."""
        group = self._make_group(param_group, self.defaults, len(self.param_groups))
        have = {id(p) for g in self.param_groups for p in g["params"]}
        if have & {id(p) for p in group["params"]}:
            raise ArgValueError(f"{type(self).__name__}: some parameters appear in more than "
                                "one parameter group")
        self.param_groups.append(group)

    # learning rate --------------------------------------------------------------
    def _lr(self, group):
        v = group["lr"]
        return v.last_lr if isinstance(v, lr.LRScheduler) else float(v)

    def get_lr(self):
        """The current learning rate (of the first parameter group)."""
        return self._lr(self.param_groups[0])

    def set_lr(self, value):
        """Sets the learning rate of every parameter group (not while a scheduler drives it:
        Paddle refuses that too)."""
        name = type(self).__name__
        if isinstance(value, lr.LRScheduler):
            raise ArgTypeError(f"{name}.set_lr: the value must be a number, got a scheduler. "
                               "Fix: optimizer.set_lr_scheduler(scheduler)")
        if any(isinstance(g["lr"], lr.LRScheduler) for g in self.param_groups):
            raise ArgValueError(f"{name}.set_lr: optimizer's learning rate can't be "
                                "LRScheduler when invoke this API, because this will lead to "
                                "conflict. Fix: step the scheduler, or set_lr_scheduler()")
        value = _check_lr(value, name)
        for g in self.param_groups:
            g["lr"] = float(value)

    def set_lr_scheduler(self, scheduler):
        """Drives every parameter group's learning rate by `scheduler` (an LRScheduler)."""
        if not isinstance(scheduler, lr.LRScheduler):
            raise ArgTypeError(f"{type(self).__name__}.set_lr_scheduler: the scheduler must be "
                               f"an LRScheduler, got {_what(scheduler)}")
        for g in self.param_groups:
            g["lr"] = scheduler
        self._scheduler = scheduler

    # grads ----------------------------------------------------------------------
    def clear_grad(self, set_to_zero=True):
        """Clears the .grad of every parameter (zeroes it when set_to_zero)."""
        if _R._RECORDER is not None and not _R._RECORDER.unit:   # Note [Capture and replay]
            return _R._RECORDER.call_unit(Optimizer.clear_grad, self, set_to_zero)
        for g in self.param_groups:
            for p in g["params"]:
                p.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def zero_grad(self, set_to_none=True):
        """Clears the .grad of every parameter (to None unless set_to_none is False)."""
        self.clear_grad(set_to_zero=not set_to_none)

    # state ----------------------------------------------------------------------
    # Note [Optimizer state and scratch]
    # self.state holds what the framework shows, per parameter: the keys PyTorch's optimizer
    # keeps (step, exp_avg, momentum_buffer, ...) and nothing else. The core addresses it by
    # the parameter itself (`self.state.get(p)`, `self.state[p] = {}`), so one update code
    # runs on oar's _ParamState (keyed by id, the Paddle door and oar.optim) and on the torch
    # door's defaultdict(dict) keyed by the Parameter objects (oar.torch.optim). The step
    # count is made by _zero_step (an int here, a float32 0-d tensor in the torch door, as
    # PyTorch's) and advanced by _tick, in place when it is a tensor. Scratch arrays (Note
    # [Optimizer steps do not allocate]) live beside the state in self._scratches, keyed by
    # id(param), and are never copied or pickled (a copy makes its own at its first step);
    # the flat buffers of Note [Flat Adam] live in self._flats. A state entry the user
    # replaced or deleted is used as it is now: the flat path checks that every entry is
    # still the view it made, else the group steps parameter by parameter.
    def _make_state(self):
        self.state = _ParamState()

    def _zero_step(self):
        return 0

    @staticmethod
    def _step_value(st):
        t = st["step"]
        return float(t._data) if isinstance(t, Tensor) else t

    def _tick(self, st):
        """Advances st['step'] by one (in place when it is a tensor); the new count."""
        t = st["step"]
        if isinstance(t, Tensor):
            t._data += 1
            bump(t, "add_")
            return float(t._data)
        st["step"] = t + 1
        return t + 1

    def _state_of(self, p, step=True):
        """p's state dict (made empty when missing), with a step count when `step`."""
        st = self.state.get(p)
        if st is None:
            st = self.state[p] = {}
        if step and "step" not in st:
            st["step"] = self._zero_step()
        return st

    def _buffers(self, p, names, step=True):
        """p's state with zero-filled tensors like p under each missing name."""
        st = self._state_of(p, step)
        for n in names:
            if n not in st:
                st[n] = wrap_as(p._result_class, np.zeros_like(p._data))
        return st

    def _scratch(self, p, name="s"):
        """A scratch array like p (Note [Optimizer state and scratch])."""
        sc = self.__dict__.get("_scratches")
        if sc is None:
            sc = self._scratches = _Scratch()
        bufs = sc.get(id(p))
        if bufs is None:
            bufs = sc[id(p)] = {}
        t = bufs.get(name)
        if t is None or t._data.shape != p._data.shape or t._data.dtype != p._data.dtype:
            t = bufs[name] = Tensor._wrap(np.zeros_like(p._data))
        return t._data

    def _step_hooked(self):
        """Whether step() runs hooks around the update (the torch door's step hooks); an
        oar.jit replay then calls step() itself (Note [Replay lowerings])."""
        return False

    def state_dict(self):
        """The hyper-parameters and per-parameter state (as arrays), for saving."""
        # a learning-rate scheduler is saved as its state, under Paddle's "LR_Scheduler" key
        # (a checkpoint holds data, never objects: Note [Loading never runs code])
        out = {"param_groups": [{k: v for k, v in g.items()
                                 if k not in ("params", "grad_clip")
                                 and not (k == "lr" and isinstance(v, lr.LRScheduler))}
                                for g in self.param_groups]}
        sched = self.param_groups[0]["lr"]
        if isinstance(sched, lr.LRScheduler):
            out["LR_Scheduler"] = sched.state_dict()
        for gi, g in enumerate(self.param_groups):
            for pi, p in enumerate(g["params"]):
                st = self.state.get(p)
                if st:
                    out[f"state.{gi}.{pi}"] = {k: (v.numpy() if isinstance(v, Tensor) else v)
                                               for k, v in st.items() if not k.startswith("_")}
        return out

    def set_state_dict(self, state):
        """Load what state_dict() wrote. Every entry is checked (group count, hyper-parameters,
        state keys, buffer shapes) before anything is written, so a refused state leaves the
        optimizer as it was."""
        name = type(self).__name__
        if not isinstance(state, dict):
            raise ArgTypeError(f"{name}.set_state_dict: expected the dict that state_dict() "
                               f"returns, got {_what(state)}")
        groups = state.get("param_groups")
        if groups is None:
            groups = [{} for _ in self.param_groups]
        if not isinstance(groups, (list, tuple)) or len(groups) != len(self.param_groups):
            n = len(groups) if isinstance(groups, (list, tuple)) else _what(groups)
            raise ArgValueError(f"{name}.set_state_dict: the state has {n} parameter groups, "
                                f"the optimizer {len(self.param_groups)}")
        new_groups = []
        for gi, (g, sg) in enumerate(zip(self.param_groups, groups)):
            if not isinstance(sg, dict):
                raise ArgTypeError(f"{name}.set_state_dict: param_groups[{gi}] must be a dict, "
                                   f"got {_what(sg)}")
            if "params" in sg and len(sg["params"]) != len(g["params"]):
                raise ArgValueError(f"{name}.set_state_dict: param group {gi} of the state has "
                                    f"{len(sg['params'])} parameters, the optimizer "
                                    f"{len(g['params'])}")
            merged = dict(g)
            merged.update({k: v for k, v in sg.items() if k != "params"})
            self._check_hyper(merged)
            new_groups.append(merged)
        plan = []              # (group index, param, entry) once every entry is checked
        known = {"param_groups", "LR_Scheduler"}
        sched_state = state.get("LR_Scheduler")
        sched = self.param_groups[0]["lr"]
        if sched_state is not None and (not isinstance(sched_state, dict)
                                        or not isinstance(sched, lr.LRScheduler)):
            raise ArgValueError(f"{name}.set_state_dict: the state holds a learning-rate "
                                "scheduler's state ('LR_Scheduler'), but this optimizer's "
                                "learning rate is " + ("not a scheduler" if isinstance(
                                    sched_state, dict) else f"{_what(sched_state)}"))
        for gi, g in enumerate(self.param_groups):
            for pi, p in enumerate(g["params"]):
                key = f"state.{gi}.{pi}"
                known.add(key)
                st = state.get(key)
                if not st:
                    continue
                if not isinstance(st, dict):
                    raise ArgTypeError(f"{name}.set_state_dict: {key} must be a dict, got "
                                       f"{_what(st)}")
                own = self.state.get(p)
                entry = {}
                for k, v in st.items():
                    if isinstance(v, Tensor):
                        v = v._data
                    if isinstance(v, np.ndarray):
                        if v.dtype.kind not in "biuf":
                            raise ArgTypeError(f"{name}.set_state_dict: {key}[{k!r}] has dtype "
                                               f"{v.dtype}, expected a number array")
                        if k in self._scalar_state and v.shape != ():
                            raise ArgValueError(
                                f"{name}.set_state_dict: {key}[{k!r}] has shape {list(v.shape)}, "
                                "expected a scalar (shape [])")
                        want = self._state_shape(k, p, g)
                        if k != "step" and k not in self._scalar_state and v.shape != want:
                            raise ArgValueError(
                                f"{name}.set_state_dict: {key}[{k!r}] has shape {list(v.shape)}, "
                                f"expected {list(want)} (the parameter it belongs to has shape "
                                f"{list(p._data.shape)})")
                    elif k == "step":
                        if isinstance(v, bool) or not isinstance(v, (int, np.integer, float)):
                            raise ArgTypeError(f"{name}.set_state_dict: {key}['step'] must be "
                                               f"a number, got {_what(v)}")
                    entry[k] = v
                plan.append((gi, p, own, entry))
        extra = [k for k in state if k not in known]
        if extra:
            raise ArgValueError(f"{name}.set_state_dict: unexpected entries {extra[:5]} (the "
                                "state was saved from an optimizer with other parameters)")
        # ---- everything checked: write
        for g, merged in zip(self.param_groups, new_groups):
            g.update(merged)
        if sched_state is not None:
            sched.set_state_dict(sched_state)
        for gi, p, own, entry in plan:
            if own is None:
                self.state[p] = {k: (wrap_as(p._result_class, np.array(
                    v, dtype=self._scalar_state.get(k, p._data.dtype)))
                    if isinstance(v, np.ndarray) and k != "step" else v)
                    for k, v in entry.items()}
                # loaded state lives in separate buffers (Note [Flat Adam])
                self._set_group_flat(self.param_groups[gi], False)
                continue
            for k, v in entry.items():   # copy into the existing (possibly flat) buffers
                if isinstance(v, np.ndarray) and k in own and isinstance(own[k], Tensor):
                    np.copyto(own[k]._data, v, casting="unsafe")
                elif isinstance(v, np.ndarray) and k != "step":
                    own[k] = wrap_as(p._result_class, np.array(v, dtype=self._scalar_state.get(
                        k, p._data.dtype)))
                else:
                    own[k] = v

    load_state_dict = set_state_dict

    def _checked_grads(self, group):
        """The parameters of `group` that step() updates, after checking every gradient
        (Note [Check, then write]): a bad gradient on the last parameter must not leave the
        first ones updated."""
        out = []
        for p in group["params"]:
            g = p._grad
            if g is None or not p._requires_grad:
                continue
            if not isinstance(g, Tensor):
                raise ArgTypeError(f"{type(self).__name__}.step: the gradient of a parameter of "
                                   f"shape {list(p._data.shape)} is {_what(g)}, not a tensor; "
                                   "no parameter was updated")
            gd = g._data
            if gd.shape != p._data.shape or gd.dtype != p._data.dtype:
                raise ArgValueError(
                    f"{type(self).__name__}.step: the gradient of a parameter of shape "
                    f"{list(p._data.shape)} ({p.dtype.name}) has shape {list(gd.shape)} "
                    f"({g.dtype.name}); they must match. No parameter was updated. Fix: check "
                    "hooks or code that set .grad")
            out.append(p)
        return out

    def step(self, closure=None):
        """Updates every parameter that has a .grad, in place (bumping its version). A
        closure (PyTorch) is called first, with gradients enabled, and its loss returned."""
        if _R._RECORDER is not None and not _R._RECORDER.unit:   # Note [Capture and replay]
            return _R._RECORDER.call_unit(Optimizer.step, self, closure)
        self._opt_called = True    # Note [Scheduler state as PyTorch's]
        loss = _call_closure(closure)
        todo = [(group, self._checked_grads(group)) for group in self.param_groups]
        todo, grads = self._clip_grads(todo)
        for group, params in todo:
            rate = self._lr(group)
            for p in params:
                _saved.before_write(p)   # Note [Mutation of saved tensors allowed]
                self._update(p, grads.get(id(p), p._grad._data), rate, group)
                _bump_step(self, p, group)
        return loss

    def _state_shape(self, key, p, group):
        """The shape of p's state entry `key` (Paddle's ASGD keeps batch_num gradients)."""
        return p._data.shape

    def _writes_per_step(self, group):
        """How many times a step writes each parameter in place: its version goes up that
        often (Note [Optimizer version bumps])."""
        return 1

    # The flat buffers of Note [Flat Adam] live beside the parameter groups, not in them: a group
    # holds only the framework's own keys (what PyTorch's param_groups and state_dict show).
    # Pairs (group, flat), found by identity, so a deep copy or pickle keeps them matched.
    # flat is None before the group's first step, False once its state lives in separate
    # buffers (loaded from a state dict).
    _flats = ()
    # state entries that are 0-d tensors of a fixed dtype, not of the parameter's shape
    # (NAdam's float32 mu_product, as PyTorch keeps it)
    _scalar_state: dict = {}

    def _group_flat(self, group):
        """The flat buffers of `group` (Note [Flat Adam]), None or False."""
        for g, flat in self._flats:
            if g is group:
                return flat
        return None

    def _set_group_flat(self, group, flat):
        self._flats = _FlatPairs([(g, f) for g, f in self._flats if g is not group]
                                 + [(group, flat)])

    def _clip_grads(self, todo):
        """Note [Gradient clipping]: each group's checked parameters go through the group's
        clip. Returns the (group, parameters) pairs to update, where a clip may have dropped
        some, and {id(parameter): gradient array to apply} for the clipped ones."""
        grads = {}
        if self._grad_clip is None and not any("grad_clip" in g for g, _ in todo):
            return todo, grads
        out = []
        for group, params in todo:
            clip = group.get("grad_clip", self._grad_clip)
            if clip is None or not params:
                out.append((group, params))
                continue
            pairs = clip([(p, p._grad) for p in params])
            own = {id(p) for p in params}
            kept = []
            for pair in pairs:
                p, g = pair if isinstance(pair, tuple) and len(pair) == 2 else (None, None)
                if id(p) not in own or not isinstance(g, Tensor) or \
                        g._data.shape != p._data.shape or g._data.dtype != p._data.dtype:
                    raise ArgValueError(
                        f"{type(self).__name__}.step: the grad_clip {type(clip).__name__} must "
                        "return (parameter, gradient) pairs of the group's parameters, each "
                        f"gradient a tensor of its parameter's shape and dtype; got {pair!r}"[:300])
                grads[id(p)] = g._data
                kept.append(p)
            out.append((group, kept))
        return out, grads

    def minimize(self, loss, *a, **k):
        """loss.backward() then step() (Paddle's spelling)."""
        if not isinstance(loss, Tensor):
            raise ArgTypeError(f"{type(self).__name__}.minimize: loss must be a Tensor, got "
                               f"{type(loss).__name__}")
        loss.backward()
        self.step()
        return None, None

    def _update(self, p, g, rate, group):
        raise NotImplementedError


_timeline_units(Optimizer)     # subclasses: Optimizer.__init_subclass__


class SGD(Optimizer):
    """SGD with momentum, dampening, Nesterov and L2 weight decay (PyTorch's update rule)."""

    def __init__(self, learning_rate=None, parameters=None, weight_decay=0.0, grad_clip=None,
                 name=None, *, params=None, lr=None, momentum=0.0, dampening=0.0,
                 nesterov=False, use_nesterov=None):
        rate = _pick(learning_rate, lr, 0.001)
        if use_nesterov is not None:
            nesterov = use_nesterov
        super().__init__(_pick(parameters, params, None), dict(
            lr=rate, momentum=momentum, dampening=dampening, nesterov=nesterov,
            weight_decay=_wd(weight_decay)))

    def _check_hyper(self, group):
        super()._check_hyper(group)
        group["momentum"] = _nonneg(group["momentum"], "momentum", self)
        group["dampening"] = _args.number(group["dampening"], "SGD", "dampening", allow_bool=False)
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ArgValueError("SGD: Nesterov momentum requires a momentum and zero dampening "
                                f"(got momentum={group['momentum']}, "
                                f"dampening={group['dampening']})")

    def _update(self, p, g, rate, group):
        m, wd, damp = group["momentum"], group["weight_decay"], group["dampening"]
        s = self._scratch(p)
        if group.get("maximize"):                # PyTorch's maximize: ascend
            np.negative(g, out=s)
            g = s
        if wd:                                   # g <- g + wd * p
            if g is s:
                s2 = self._scratch(p, "s2")
                np.multiply(p._data, wd, out=s2)
                s += s2
            else:
                np.multiply(p._data, wd, out=s)
                s += g
            g = s
        if m:
            st = self._state_of(p, step=False)
            first = "momentum_buffer" not in st
            buf = self._buffers(p, ["momentum_buffer"], step=False)["momentum_buffer"]._data
            if first:
                np.copyto(buf, g)
            else:                                # buf <- m * buf + (1 - damp) * g
                buf *= m
                if damp:                         # (no Nesterov with dampening: g not needed after)
                    np.multiply(g, 1 - damp, out=s)
                    buf += s
                else:
                    buf += g
            if group["nesterov"]:                # g <- g + m * buf
                if g is s:
                    s2 = self._scratch(p, "s2")
                    np.multiply(buf, m, out=s2)
                    s += s2
                else:
                    np.multiply(buf, m, out=s)
                    s += g
                g = s
            else:
                g = buf
        np.multiply(g, rate, out=s)
        p._data -= s


class Momentum(SGD):
    """Paddle's Momentum(learning_rate, momentum, parameters, use_nesterov, weight_decay)."""

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=0.0, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, momentum=momentum,
                         nesterov=use_nesterov)


class Adam(Optimizer):
    """Adam (L2 weight decay added to the gradient); AdamW decouples it."""
    decoupled = False

    def __init__(self, learning_rate=None, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None, lazy_mode=False,
                 *, params=None, lr=None, betas=None, eps=None, amsgrad=False):
        if betas is not None:
            if not _iterable(betas) or len(list(betas)) != 2:
                raise ArgTypeError(f"{type(self).__name__}: betas must be a pair (beta1, beta2), "
                                   f"got {_what(betas)}")
            beta1, beta2 = betas
        if eps is not None:
            epsilon = eps
        default_wd = 0.01 if self.decoupled else 0.0
        super().__init__(_pick(parameters, params, None), dict(
            lr=_pick(learning_rate, lr, 0.001), beta1=beta1, beta2=beta2, eps=epsilon,
            weight_decay=_wd(weight_decay if weight_decay is not None else default_wd),
            amsgrad=bool(amsgrad)))

    def _check_hyper(self, group):
        name = type(self).__name__
        group["lr"] = _check_lr(group["lr"], name)
        group["eps"] = _nonneg(group["eps"], "epsilon", self)
        for i, k in enumerate(("beta1", "beta2")):
            group[k] = _beta(group[k], i, name)
        group["weight_decay"] = _nonneg(group["weight_decay"], "weight_decay", self)

    def _hyper(self, group):
        """(beta1, beta2, eps, weight_decay, decoupled, amsgrad, maximize) of a group."""
        return (group["beta1"], group["beta2"], group["eps"], group["weight_decay"],
                self.decoupled, group.get("amsgrad", False), group.get("maximize", False))

    def _update(self, p, g, rate, group):
        b1, b2, eps, wd, decoupled, ams, maximize = self._hyper(group)
        names = ["exp_avg", "exp_avg_sq"] + (["max_exp_avg_sq"] if ams else [])
        st = self._buffers(p, names)
        t = self._tick(st)
        m, v, s = st["exp_avg"]._data, st["exp_avg_sq"]._data, self._scratch(p)
        x = p._data
        if maximize or (wd and not decoupled):
            s2 = self._scratch(p, "s2")
            if maximize:
                np.negative(g, out=s2)
            if wd and not decoupled:
                if maximize:
                    np.multiply(x, wd, out=s)
                    s2 += s
                else:
                    np.multiply(x, wd, out=s2)
                    s2 += g
            g = s2
        if wd and decoupled:
            x *= 1 - rate * wd
        _adam_moments(m, v, s, g, t, rate, b1, b2, eps, st["max_exp_avg_sq"]._data if ams else None)
        x -= s

    # Note [Flat Adam]
    # The moments of a parameter group live in flat buffers and each parameter's state
    # tensors are views into them, so one step updates the whole group with a dozen ufunc
    # calls instead of a dozen per parameter; the per-parameter path (used when some
    # parameter has no gradient) updates the same memory.
    def step(self, closure=None):
        """One Adam update of every parameter that has a .grad, in place (a closure, as in
        PyTorch, is called first with gradients enabled and its loss returned)."""
        if _R._RECORDER is not None and not _R._RECORDER.unit:   # Note [Capture and replay]
            return _R._RECORDER.call_unit(Adam.step, self, closure)
        self._opt_called = True    # Note [Scheduler state as PyTorch's]
        loss = _call_closure(closure)
        todo = [(group, self._checked_grads(group)) for group in self.param_groups]
        todo, grads = self._clip_grads(todo)
        for group, ready in todo:
            params = group["params"]
            flat = self._group_flat(group)
            if flat is None and all(p not in self.state for p in params):
                flat = self._make_flat(params, group.get("amsgrad", False))
                self._set_group_flat(group, flat)
            if flat and len(ready) == len(params) and \
                    ("max_exp_avg_sq" in flat["bufs"]) == bool(group.get("amsgrad", False)):
                for p in params:   # Note [Mutation of saved tensors allowed]
                    _saved.before_write(p)
                self._flat_update(params, flat, self._lr(group), group, grads)
                for p in params:
                    _bump_step(self, p, group)
                continue
            for p in ready:
                _saved.before_write(p)   # Note [Mutation of saved tensors allowed]
                self._update(p, grads.get(id(p), p._grad._data), self._lr(group), group)
                _bump_step(self, p, group)
        return loss

    def _make_flat(self, params, amsgrad=False):
        dt = params[0]._data.dtype
        if any(p._data.dtype != dt or p._data.__class__ is not params[0]._data.__class__
               for p in params):
            return False   # dtypes or places differ: the per-parameter path
        n = sum(p._data.size for p in params)
        names = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ())
        xp = _xp.array_module(params[0]._data)   # the parameters' place
        bufs = {k: Tensor._wrap(xp.zeros(n, dt)) for k in names + ("_scratch", "_grads")}
        off = 0
        views, entries = [], []
        for p in params:
            k = p._data.size
            st = self._state_of(p)         # the step first, then the moments (PyTorch's order)
            ents = {}
            for name in names:
                t = bufs[name]
                st[name] = ents[name] = wrap_as(p._result_class, t._data[off:off + k].reshape(
                    p._data.shape), t._storage)
            entries.append((st, ents))
            views.append(bufs["_scratch"]._data[off:off + k].reshape(p._data.shape))
            off += k
        return {"bufs": bufs, "views": views, "entries": entries}

    def _flat_update(self, params, flat, rate, group, grads=None):
        b1, b2, eps, wd, decoupled, ams, maximize = self._hyper(group)
        bufs = flat["bufs"]
        m, v, s, g = (bufs[k]._data for k in ("exp_avg", "exp_avg_sq", "_scratch", "_grads"))
        grads = {} if grads is None else grads       # clipped ones (Note [Gradient clipping])
        state = self.state
        entries = flat["entries"]
        steps = set()
        for p, (st, ents) in zip(params, entries):
            # Note [Optimizer state and scratch]: state entries replaced by the user (or
            # loaded) end the flat path for this group
            if state.get(p) is not st or any(st.get(k) is not e for k, e in ents.items()) \
                    or "step" not in st:
                steps = None
                self._set_group_flat(group, False)
                break
            steps.add(self._step_value(st))
        if steps is None or len(steps) != 1:   # per-parameter math
            for p in params:
                self._update(p, grads.get(id(p), p._grad._data), rate, group)
            return
        np.concatenate([grads.get(id(p), p._grad._data).reshape(-1) for p in params], out=g)
        if maximize:
            np.negative(g, out=g)
        for st, _ in entries:
            t = self._tick(st)
        if wd and decoupled:
            for p in params:
                p._data *= 1 - rate * wd
        elif wd:
            for p, view in zip(params, flat["views"]):   # g <- g + wd * p, per parameter
                np.multiply(p._data, wd, out=view)
            g += s
        _adam_moments(m, v, s, g, t, rate, b1, b2, eps, bufs["max_exp_avg_sq"]._data if ams else None)
        for p, view in zip(params, flat["views"]):
            p._data -= view


def _adam_moments(m, v, s, g, t, rate, b1, b2, eps, vmax=None):
    """Update the moments m, v with gradient g (step t) in place and leave in s the step to
    subtract from the parameters: rate * m_hat / (sqrt(v_hat) + eps), PyTorch's arithmetic
    (v_hat uses the running maximum vmax with amsgrad). No allocation."""
    m *= b1
    np.multiply(g, 1 - b1, out=s)
    m += s
    v *= b2
    np.multiply(g, g, out=s)
    s *= 1 - b2
    v += s
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)
    np.sqrt(v if vmax is None else vmax, out=s)
    s /= (1 - b2 ** t) ** 0.5
    s += eps
    np.divide(m, s, out=s)
    s *= rate / (1 - b1 ** t)


def _bump_step(opt, p, group):
    """Note [Optimizer version bumps]: p's version goes up once per in-place write."""
    for _ in range(opt._writes_per_step(group)):
        bump(p, f"{type(opt).__name__}.step")


class AdamW(Adam):
    """Adam with decoupled weight decay (the decay is applied to the weights, not the gradient)."""
    decoupled = True


class _AdaptiveBase(Optimizer):
    """Shared by Adadelta, Adagrad and RMSProp: the gradient with weight decay and
    maximize folded in, into a scratch buffer (no allocation after the first step)."""
    # Note [Paddle float hyper-parameters]
    # Paddle passes an optimizer's float attributes (rho, epsilon, momentum) to its kernels
    # as 32-bit floats, also for float64 parameters, while the learning rate keeps the
    # parameter's dtype; the Paddle door rounds those attributes the same way (checked
    # against paddle 3.3.1 in float64, where the difference shows), the PyTorch door does not.
    _paddle = True
    _f32_keys = ()

    def _check_hyper(self, group):
        name = type(self).__name__
        group["lr"] = _check_lr(group["lr"], name)
        group["weight_decay"] = _nonneg(group.get("weight_decay", 0.0), "weight_decay", self)
        for k in ("eps", "momentum", "initial_accumulator_value", "lr_decay"):
            if k in group:
                what = "epsilon" if k == "eps" else k
                group[k] = _nonneg(group[k], what, self)
        for k in ("rho", "alpha"):
            if k in group:
                v = _args.number(group[k], name, k, allow_bool=False)
                if not 0.0 <= v <= 1.0:
                    raise ArgValueError(f"{name}: Invalid {k} value: {v} (it must be in [0, 1])")
                group[k] = v
        if self._paddle:
            for k in self._f32_keys:
                if k in group:
                    group[k] = float(np.float32(group[k]))

    def _grad(self, p, g, group, st):
        wd, maximize = group["weight_decay"], group.get("maximize", False)
        if not wd and not maximize:
            return g
        buf = self._scratch(p, "g")
        if wd:                                   # g <- g + wd * p  (or wd * p - g)
            np.multiply(p._data, wd, out=buf)
            if maximize:
                buf -= g
            else:
                buf += g
        else:
            np.negative(g, out=buf)
        return buf


class Adadelta(_AdaptiveBase):
    """Adadelta (Paddle's arguments): E[g^2] and E[dx^2] running averages of rate rho;
    dx = sqrt((E[dx^2] + eps) / (E[g^2] + eps)) * g; p -= learning_rate * dx."""
    _f32_keys = ("rho", "eps")

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        for what, v in (("learning_rate", learning_rate), ("epsilon", epsilon), ("rho", rho)):
            if v is None:
                raise ArgValueError(f"{type(self).__name__}: {what} is not set.")
        super().__init__(parameters, dict(lr=learning_rate, eps=epsilon, rho=rho,
                                          weight_decay=_wd(weight_decay)))

    def _update(self, p, g, rate, group):
        st = self._buffers(p, ["square_avg", "acc_delta"])
        self._tick(st)
        g = self._grad(p, g, group, st)
        rho, eps = group["rho"], group["eps"]
        sq, acc = st["square_avg"]._data, st["acc_delta"]._data
        s, s2 = self._scratch(p), self._scratch(p, "s2")
        sq *= rho                                # E[g^2] <- rho E[g^2] + (1 - rho) g^2
        np.multiply(g, g, out=s)
        s *= 1 - rho
        sq += s
        if self._paddle:                         # sqrt of the ratio, as Paddle's kernel
            np.add(acc, eps, out=s)
            np.add(sq, eps, out=s2)
            s /= s2
            np.sqrt(s, out=s)
        else:                                    # PyTorch: sqrt(acc + eps) / sqrt(sq + eps)
            np.add(sq, eps, out=s2)
            np.sqrt(s2, out=s2)
            np.add(acc, eps, out=s)
            np.sqrt(s, out=s)
            s /= s2
        s *= g                                   # dx
        acc *= rho                               # E[dx^2] <- rho E[dx^2] + (1 - rho) dx^2
        np.multiply(s, s, out=s2)
        s2 *= 1 - rho
        acc += s2
        s *= rate
        p._data -= s


class Adagrad(_AdaptiveBase):
    """Adagrad (Paddle's arguments): sum += g^2; p -= learning_rate * g / (sqrt(sum) + eps)."""
    _f32_keys = ("eps",)

    def __init__(self, learning_rate=None, epsilon=1.0e-6, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        if learning_rate is None:
            raise ArgValueError(f"{type(self).__name__}: learning_rate is not set.")
        super().__init__(parameters, dict(lr=learning_rate, eps=epsilon,
                                          weight_decay=_wd(weight_decay),
                                          initial_accumulator_value=initial_accumulator_value))

    def _init_sum(self, p, group):
        st = self._buffers(p, ["sum"])
        st["sum"]._data[...] = group["initial_accumulator_value"]
        return st

    def _update(self, p, g, rate, group):
        st = self.state.get(p)
        if st is None or "sum" not in st:
            st = self._init_sum(p, group)
        t = self._tick(st)
        g = self._grad(p, g, group, st)
        clr = rate / (1 + (t - 1) * group.get("lr_decay", 0))
        acc, s = st["sum"]._data, self._scratch(p)
        np.multiply(g, g, out=s)
        acc += s
        np.sqrt(acc, out=s)
        s += group["eps"]
        np.divide(g, s, out=s)
        s *= clr
        p._data -= s


class RMSProp(_AdaptiveBase):
    """RMSProp (Paddle's arguments): r = rho r + (1 - rho) g^2; v = momentum v +
    learning_rate * g / sqrt(r + eps) (centered: r - E[g]^2 under the root); p -= v."""
    _f32_keys = ("rho", "eps", "momentum")

    def __init__(self, learning_rate=None, rho=0.95, epsilon=1.0e-6, momentum=0.0,
                 centered=False, parameters=None, weight_decay=None, grad_clip=None, name=None):
        for what, v in (("learning_rate", learning_rate), ("rho", rho), ("epsilon", epsilon),
                        ("momentum", momentum)):
            if v is None:
                raise ArgValueError(f"{type(self).__name__}: {what} is not set.")
        super().__init__(parameters, dict(lr=learning_rate, rho=rho, eps=epsilon,
                                          momentum=momentum, centered=bool(centered),
                                          weight_decay=_wd(weight_decay)))

    def _decay(self, group):
        return group["rho"]

    def _update(self, p, g, rate, group):
        rho, eps, mom, centered = self._decay(group), group["eps"], group["momentum"], \
            group["centered"]
        names = ["square_avg"] + (["momentum_buffer"] if mom > 0 else []) + \
            (["grad_avg"] if centered else [])
        st = self._buffers(p, names)
        self._tick(st)
        g = self._grad(p, g, group, st)
        sq, s = st["square_avg"]._data, self._scratch(p)
        sq *= rho                                # r <- rho r + (1 - rho) g^2
        np.multiply(g, g, out=s)
        s *= 1 - rho
        sq += s
        if centered:
            ga = st["grad_avg"]._data
            if self._paddle:                     # E[g] <- rho E[g] + (1 - rho) g
                ga *= rho
                np.multiply(g, 1 - rho, out=s)
                ga += s
            else:                                # PyTorch: lerp(E[g], g, 1 - alpha)
                np.subtract(g, ga, out=s)
                s *= 1 - rho
                ga += s
            np.multiply(ga, ga, out=s)
            np.subtract(sq, s, out=s)
        else:
            np.copyto(s, sq)
        if self._paddle:                         # eps under the root
            s += eps
            np.sqrt(s, out=s)
        else:                                    # PyTorch: sqrt(.) + eps
            np.sqrt(s, out=s)
            s += eps
        np.divide(g, s, out=s)
        if mom > 0:
            buf = st["momentum_buffer"]._data
            buf *= mom
            if self._paddle:                     # v <- momentum v + lr g / denom; p -= v
                s *= rate
                buf += s
                p._data -= buf
            else:                                # buf <- momentum buf + g / avg; p -= lr buf
                buf += s
                np.multiply(buf, rate, out=s)
                p._data -= s
        else:
            s *= rate
            p._data -= s


def _beta(b, i, name):
    b = _args.number(b, name, f"beta{i + 1}", allow_bool=False)
    if not 0.0 <= b < 1.0:
        raise ArgValueError(f"{name}: Invalid beta parameter at index {i}: {b} "
                            "(betas must be in [0, 1))")
    return float(b)


def _call_closure(closure):
    """PyTorch's step(closure): the closure re-evaluates the model, gradients enabled."""
    if closure is None:
        return None
    from ..autograd import grad_mode
    with grad_mode.enable_grad():
        return closure()


class _FlatPairs(list):
    """The (group, flat buffers) pairs of Note [Flat Adam]. A copy (deepcopy, pickle) keeps
    the groups but not the flat buffers: the copied state tensors no longer share their
    memory, so the copy steps them one by one (flat False)."""

    def __reduce_ex__(self, protocol):
        return (_FlatPairs, ([(g, False) for g, _ in self],))


class _Scratch(dict):
    """id(param) -> {name: scratch tensor} (Note [Optimizer state and scratch]): a copy or
    pickle of an optimizer gets an empty one."""

    def __reduce_ex__(self, protocol):
        return (_Scratch, ())

    def __deepcopy__(self, memo):
        return _Scratch()


class _ParamState(dict):
    """Per-parameter optimizer state, keyed by id(param); indexing by the parameter itself
    works too (PyTorch's `optimizer.state[p]`)."""

    def __deepcopy__(self, memo):
        # copy.deepcopy(optimizer) copies param_groups first: the state of each copied
        # parameter goes under the copy's id, as PyTorch's state (keyed by tensors) does
        new = type(self)()
        memo[id(self)] = new
        for k, v in dict.items(self):
            twin = memo.get(k)
            dict.__setitem__(new, id(twin) if isinstance(twin, Tensor) else k,
                             copy.deepcopy(v, memo))
        return new

    def __getitem__(self, key):
        return dict.__getitem__(self, id(key) if isinstance(key, Tensor) else key)

    def __setitem__(self, key, value):
        dict.__setitem__(self, id(key) if isinstance(key, Tensor) else key, value)

    def __contains__(self, key):
        return dict.__contains__(self, id(key) if isinstance(key, Tensor) else key)

    def get(self, key, default=None):
        """The state of a parameter (or id), or default."""
        return dict.get(self, id(key) if isinstance(key, Tensor) else key, default)


def _pick(paddle_value, torch_value, default):
    if paddle_value is not None and not isinstance(paddle_value, (int, float, lr.LRScheduler)) \
            and torch_value is None and default is None:
        return paddle_value
    if paddle_value is not None:
        return paddle_value
    if torch_value is not None:
        return torch_value
    return default


class _ParamsKeyError(KeyError, ValueError):
    """A param group without 'params' (PyTorch KeyError, Paddle ValueError)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _iterable(x):
    try:
        iter(x)
    except TypeError:
        return False
    return not isinstance(x, (str, bytes))


def _what(x):
    if isinstance(x, Tensor):
        return f"a {x.dtype.name} Tensor of shape {list(x.shape)}"
    return f"{type(x).__name__} {x!r}"[:80]


def _check_lr(value, name):
    """A learning rate: a number >= 0 (not NaN) or an LRScheduler (PyTorch: ValueError
    'Invalid learning rate'). Paddle's schedulers are checked by their base rate."""
    if isinstance(value, lr.LRScheduler):
        _check_lr(value.base_lr, name)
        return value
    v = _args.number(value, name, "learning_rate (lr)", allow_bool=False)
    if not v >= 0.0:            # also refuses NaN
        raise ArgValueError(f"{name}: Invalid learning rate: {v} (it must be a number >= 0)")
    return v


def _nonneg(value, what, opt):
    name = type(opt).__name__
    v = _args.number(value, name, what, allow_bool=False)
    if not v >= 0.0:
        raise ArgValueError(f"{name}: Invalid {what} value: {v} (it must be >= 0)")
    return v


def _wd(wd):
    if wd is None:
        return 0.0
    if hasattr(wd, "coeff"):       # paddle.regularizer.L2Decay
        return float(wd.coeff)
    return float(wd)


class L2Decay:
    """L2 weight-decay regulariser of coefficient coeff (Paddle's weight_decay=L2Decay(c))."""
    def __init__(self, coeff=0.0):
        self.coeff = coeff


# Paddle's Adamax, NAdam, RAdam, ASGD, Rprop (Note [Paddle Adam relatives]) and LBFGS: imported
# last, as they build on oar.optim's classes, which build on the ones above
from ._more import ASGD, LBFGS, Adamax, NAdam, RAdam, Rprop  # noqa: E402,F401
