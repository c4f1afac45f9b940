"""torch.optim.optimizer: the PyTorch door's Optimizer base (state, state_dict, hooks,
add_param_group as torch 2.13's) and the global step hooks."""
# Note [Torch optimizer state]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# In the PyTorch door `optimizer.state` is what torch 2.13's is: a
# collections.defaultdict(dict) keyed by the Parameter objects, each entry holding only
# torch's keys in torch's order ("step" a float32 0-d tensor, then the moments), the same
# tensor objects the update writes (programs read and write opt.state[p]["exp_avg"]). The
# core update code addresses the state by parameter (Note [Optimizer state and scratch]);
# this class only picks the container and the step's type. state_dict() packs it as torch
# does (the live per-parameter dicts under indices numbered across the groups, in the
# state's insertion order) and load_state_dict() unpacks it as torch does (new group dicts,
# the saved tensors themselves where the dtype already matches, "step" kept as saved), after
# checking the group sizes and the shape of every parameter-shaped entry, so a refused state
# dict changes nothing. Pickling and copy.deepcopy keep defaults, state and param_groups
# only (torch's __getstate__): hooks, scratch and flat buffers are not copied.
#
# Note [Torch optimizer hooks]
# Every subclass's step() is wrapped once, when the class is made (torch wraps it at the
# first instance): global then per-optimizer pre-hooks hook(opt, args, kwargs) may replace
# (args, kwargs); per-optimizer then global post-hooks run after. While oar.jit records, the
# wrapped step is the recorded unit, so a replay runs the hooks too; Adam's replay lowering
# is taken only while no hook is registered (Optimizer._step_hooked).
from __future__ import annotations

import collections
import functools
import inspect
import warnings
from itertools import chain

import numpy as np

from ... import optimizer as _opt
from ...autograd.errors import ArgTypeError, ArgValueError
from ...nn.layers import _HookRemoveHelper
from ...ops import registry as _R
from ...tensor import Tensor as _CoreTensor
from ...tensor import wrap_as
from .._tensor import Tensor

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook",
           "required"]

_global_optimizer_pre_hooks: dict = collections.OrderedDict()
_global_optimizer_post_hooks: dict = collections.OrderedDict()


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _add(hooks, hook, prepend=False):
    handle = _HookRemoveHelper(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    """Registers hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), run before
    every optimizer's step(); returns a handle whose remove() unregisters it."""
    return _add(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Registers hook(optimizer, args, kwargs), run after every optimizer's step()."""
    return _add(_global_optimizer_post_hooks, hook)


_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
               "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
               "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")

# the entries PyTorch's optimizers keep with the parameter's shape (checked on load)
_PARAM_SHAPED = {"exp_avg", "exp_avg_sq", "max_exp_avg_sq", "momentum_buffer", "square_avg",
                 "acc_delta", "sum", "grad_avg", "exp_inf", "prev", "step_size", "ax",
                 "variance"}


def _hooked(func):
    """func with torch's step hooks around it (Note [Torch optimizer hooks])."""
    @functools.wraps(func)
    def step(self, *args, **kwargs):
        rec = _R._RECORDER
        if rec is not None and not rec.unit:   # Note [Capture and replay]
            bound = inspect.signature(func).bind(self, *args, **kwargs)
            bound.apply_defaults()
            return rec.call_unit(step, self, *bound.args[1:])
        d = self.__dict__
        pres = list(chain(_global_optimizer_pre_hooks.values(),
                          d.get("_optimizer_step_pre_hooks", {}).values()))
        posts = list(chain(d.get("_optimizer_step_post_hooks", {}).values(),
                           _global_optimizer_post_hooks.values()))
        if not pres and not posts:
            return func(self, *args, **kwargs)
        args = (self,) + args
        for pre in pres:
            result = pre(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        out = func(*args, **kwargs)
        for post in posts:
            post(self, args, kwargs)
        return out
    step.hooked = True
    return step


def _typename(o):
    t = type(o)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class Optimizer(_opt.Optimizer):
    """Base class of optimizers, as torch.optim.Optimizer: Optimizer(params, defaults);
    subclasses define step() reading self.param_groups and self.state[p] (a
    defaultdict(dict) keyed by the parameters, Note [Torch optimizer state])."""
    # entries of a group filled in by __setstate__ (and so by load_state_dict) when a saved
    # group lacks them, as each torch class's __setstate__
    _setstate_defaults: dict = {}
    # 0-d float32 state entries besides "step" that torch's __setstate__ makes tensors
    _scalar_tensors: tuple = ()
    _has_step = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked(cls.step)

    def __init__(self, params, defaults):
        if isinstance(params, _CoreTensor):
            raise ArgTypeError("params argument given to the optimizer should be an iterable "
                               f"of Tensors or dicts, but got {_typename(params)}")
        _opt.Optimizer.__init__(self, params, defaults)

    # state -----------------------------------------------------------------------
    def _make_state(self):
        self.state = collections.defaultdict(dict)
        for name in _HOOK_DICTS:
            setattr(self, name, collections.OrderedDict())

    def _zero_step(self):
        return wrap_as(Tensor, np.zeros((), np.float32))

    def _step_hooked(self):
        return bool(_global_optimizer_pre_hooks or _global_optimizer_post_hooks
                    or self.__dict__.get("_optimizer_step_pre_hooks")
                    or self.__dict__.get("_optimizer_step_post_hooks"))

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, collections.OrderedDict())
        self.__dict__.setdefault("_scheduler", None)
        self._flats = _opt._FlatPairs()          # the state no longer shares flat buffers
        self._scratches = _opt._Scratch()
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for k, v in self._setstate_defaults.items():
                group.setdefault(k, v)
            for p in group["params"]:
                st = self.state.get(p, {})
                if not st:
                    continue
                for k in (("step",) if self._has_step else ()) + self._scalar_tensors:
                    if k in st and not isinstance(st[k], _CoreTensor):
                        st[k] = wrap_as(Tensor, np.asarray(float(st[k]), np.float32))

    # groups ----------------------------------------------------------------------
    def _make_group(self, param_group, defaults, gi=0, prior=()):
        """torch's add_param_group checks, in its order; the group is the dict given
        (completed in place with the defaults), as torch's."""
        if not isinstance(param_group, dict):
            raise ArgTypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, _CoreTensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise ArgTypeError("optimizer parameters need to be organized in ordered "
                               "collections, but the ordering of tensors in sets will change "
                               "between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ArgValueError("all optimizer params should be with/without names. Some "
                                    "param names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, _CoreTensor):
                raise ArgTypeError("optimizer can only optimize Tensors, but one of the params "
                                   "is " + _typename(p))
            if not defaults.get("differentiable", None) and p.grad_fn is not None and \
                    not p._retains_grad:
                raise ArgValueError("can't optimize a non-leaf Tensor")
        for name, default in defaults.items():
            if default is required and name not in param_group:
                raise ArgValueError("parameter group didn't specify a value of required "
                                    f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len({id(p) for p in tensors}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        for g in prior:
            if ("param_names" in param_group) != ("param_names" in g):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ArgValueError("all optimizer param groups should be with/without names. "
                                    f"cannot add param group {txt} to the optimizer")
        if type(self)._check_hyper is not _opt.Optimizer._check_hyper:
            self._check_hyper(param_group)   # a class of oar's; torch's base checks nothing
        return param_group

    def add_param_group(self, param_group):
        """Adds a parameter group (the dict itself, completed with the defaults), with
        torch's checks."""
        group = self._make_group(param_group, self.defaults, len(self.param_groups),
                                 self.param_groups)
        have = {id(p) for g in self.param_groups for p in g["params"]}
        if have & {id(p) for p in group["params"]}:
            raise ArgValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    # hooks -----------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before step()."""
        return _add(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs), after step()."""
        return _add(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer), before state_dict()."""
        return _add(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or a new state_dict, after state_dict()."""
        return _add(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) -> None or the state_dict to load."""
        return _add(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer), after load_state_dict()."""
        return _add(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # state dicts -----------------------------------------------------------------
    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}, as
        torch packs it (Note [Torch optimizer state])."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mappings, start, groups = {}, 0, []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            for i, p in enumerate(g["params"], start):
                mappings.setdefault(id(p), i)
            packed["params"] = [mappings[id(p)] for p in g["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mappings[id(k)] if isinstance(k, _CoreTensor) else k): v
                 for k, v in self.state.items()}
        sd = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, sd)
            if result is not None:
                sd = result
        return sd

    def load_state_dict(self, state_dict):
        """Loads what state_dict() (or torch's) wrote, as torch does; the group sizes and
        every parameter-shaped entry are checked before anything is written."""
        import copy
        if not isinstance(state_dict, dict):
            raise ArgTypeError(f"{type(self).__name__}.load_state_dict: expected the dict "
                               f"that state_dict() returns, got {_typename(state_dict)}")
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ArgValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ArgValueError("loaded state dict contains a parameter group that doesn't "
                                "match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        saved = state_dict["state"]
        for k, v in saved.items():            # check, then write
            p = id_map.get(k)
            if p is None or not isinstance(v, dict):
                continue
            for name, t in v.items():
                if name in _PARAM_SHAPED and isinstance(t, _CoreTensor) and \
                        t._data.shape != p._data.shape:
                    raise ArgValueError(
                        f"{type(self).__name__}.load_state_dict: state[{k!r}][{name!r}] has "
                        f"shape {list(t._data.shape)}, the parameter it belongs to has shape "
                        f"{list(p._data.shape)}; nothing was loaded")

        def cast(p, value, key=None):
            if isinstance(value, _CoreTensor):
                if key == "step" or value._data.dtype == p._data.dtype or \
                        p._data.dtype.kind not in "fc" or value._data.dtype.kind not in "fc":
                    return value
                return wrap_as(p._result_class, value._data.astype(p._data.dtype))
            if isinstance(value, dict):
                return {k: cast(p, v, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(p, v) for v in value)
            return value

        state = collections.defaultdict(dict)
        for k, v in saved.items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v
        for g, new in zip(groups, saved_groups):
            new["params"] = g["params"]
            if "param_names" in g and "param_names" not in new:
                new["param_names"] = g["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, g in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for k in sorted(g):
                if k != "params":
                    s += f"    {k}: {g[k]}\n"
        return s + ")"
