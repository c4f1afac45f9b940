"""Optimizers. Paddle spelling here (`learning_rate=`, `parameters=`, `clear_grad()`);
PyTorch spelling in oar.optim (`lr=`, positional params, `zero_grad(set_to_none=True)`).

Note [Optimizer steps do not allocate]
step() updates parameters in place with NumPy ufuncs writing into preallocated state
(moments and one or two scratch buffers per parameter, created at the first step), then
bumps each parameter's version once (Note [Version counter]) so a graph that saved the old
value still catches the change. After the first step a step allocates nothing
proportional to the parameters: tests/test_training.py checks it with the storage
accounting and with tracemalloc, which sees NumPy's own allocations.
"""
from __future__ import annotations

import math

import numpy as np

from ..ops.registry import bump
from ..tensor import Tensor
from . import lr  # noqa: F401


class Optimizer:
    _defaults: dict = {}

    def __init__(self, params, defaults):
        if params is None:
            raise ValueError(f"{type(self).__name__}: pass the parameters to optimise "
                             "(parameters=model.parameters() or params=model.parameters())")
        params = list(params)
        if not params:
            raise ValueError(f"{type(self).__name__} got an empty parameter list")
        if isinstance(params[0], dict):
            groups = [dict(defaults, **g) for g in params]
            for g in groups:
                g["params"] = list(g["params"])
        else:
            groups = [dict(defaults, params=params)]
        self.param_groups = groups
        self.state = {}
        self._scheduler = None
        for g in groups:
            if isinstance(g["lr"], lr.LRScheduler):
                self._scheduler = g["lr"]

    # learning rate --------------------------------------------------------------
    def _lr(self, group):
        v = group["lr"]
        return v.last_lr if isinstance(v, lr.LRScheduler) else float(v)

    def get_lr(self):
        return self._lr(self.param_groups[0])

    def set_lr(self, value):
        for g in self.param_groups:
            g["lr"] = float(value)

    # grads ----------------------------------------------------------------------
    def clear_grad(self, set_to_zero=True):
        for g in self.param_groups:
            for p in g["params"]:
                p.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def zero_grad(self, set_to_none=True):
        self.clear_grad(set_to_zero=not set_to_none)

    # state ----------------------------------------------------------------------
    def _buffers(self, p, names):
        st = self.state.get(id(p))
        if st is None:
            st = self.state[id(p)] = {"step": 0}
        for n in names:
            if n not in st:
                st[n] = Tensor._wrap(np.zeros_like(p._data))
        return st

    def state_dict(self):
        out = {"param_groups": [{k: v for k, v in g.items() if k not in ("params", "_flat")}
                                for g in self.param_groups]}
        for gi, g in enumerate(self.param_groups):
            for pi, p in enumerate(g["params"]):
                st = self.state.get(id(p))
                if st:
                    out[f"state.{gi}.{pi}"] = {k: (v.numpy() if isinstance(v, Tensor) else v)
                                               for k, v in st.items() if not k.startswith("_")}
        return out

    def set_state_dict(self, state):
        for gi, g in enumerate(self.param_groups):
            for k, v in state.get("param_groups", [{}])[gi].items():
                g[k] = v
            for pi, p in enumerate(g["params"]):
                st = state.get(f"state.{gi}.{pi}")
                if st:
                    own = self.state.get(id(p))
                    if own is None:
                        self.state[id(p)] = {k: (Tensor._wrap(np.array(v)) if isinstance(v, np.ndarray) else v)
                                             for k, v in st.items()}
                        g["_flat"] = False    # loaded state lives in separate buffers
                        continue
                    for k, v in st.items():   # copy into the existing (possibly flat) buffers
                        if isinstance(v, np.ndarray):
                            own[k]._data[...] = v
                        else:
                            own[k] = v

    load_state_dict = set_state_dict

    def step(self):
        for group in self.param_groups:
            rate = self._lr(group)
            for p in group["params"]:
                if p.grad is None or not p._requires_grad:
                    continue
                self._update(p, p.grad._data, rate, group)
                bump(p, f"{type(self).__name__}.step")

    def minimize(self, loss, *a, **k):
        loss.backward()
        self.step()
        return None, None

    def _update(self, p, g, rate, group):
        raise NotImplementedError


class SGD(Optimizer):
    """SGD with momentum, dampening, Nesterov and L2 weight decay (PyTorch's update rule)."""

    def __init__(self, learning_rate=None, parameters=None, weight_decay=0.0, grad_clip=None,
                 name=None, *, params=None, lr=None, momentum=0.0, dampening=0.0,
                 nesterov=False, use_nesterov=None):
        rate = _pick(learning_rate, lr, 0.001)
        if use_nesterov is not None:
            nesterov = use_nesterov
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(_pick(parameters, params, None), dict(
            lr=rate, momentum=momentum, dampening=dampening, nesterov=nesterov,
            weight_decay=_wd(weight_decay)))

    def _update(self, p, g, rate, group):
        m, wd, damp = group["momentum"], group["weight_decay"], group["dampening"]
        st = self._buffers(p, ["_scratch"])
        s = st["_scratch"]._data
        if wd:                                   # g <- g + wd * p
            np.multiply(p._data, wd, out=s)
            s += g
            g = s
        if m:
            first = "momentum_buffer" not in st
            buf = self._buffers(p, ["momentum_buffer"])["momentum_buffer"]._data
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
                    s2 = self._buffers(p, ["_scratch2"])["_scratch2"]._data
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
            beta1, beta2 = betas
        if eps is not None:
            epsilon = eps
        if amsgrad:
            raise NotImplementedError("amsgrad is not supported yet")
        default_wd = 0.01 if self.decoupled else 0.0
        super().__init__(_pick(parameters, params, None), dict(
            lr=_pick(learning_rate, lr, 0.001), beta1=beta1, beta2=beta2, eps=epsilon,
            weight_decay=_wd(weight_decay if weight_decay is not None else default_wd)))

    def _update(self, p, g, rate, group):
        b1, b2, eps, wd = group["beta1"], group["beta2"], group["eps"], group["weight_decay"]
        st = self._buffers(p, ["exp_avg", "exp_avg_sq", "_scratch"])
        st["step"] += 1
        t = st["step"]
        m, v, s = st["exp_avg"]._data, st["exp_avg_sq"]._data, st["_scratch"]._data
        x = p._data
        if wd and self.decoupled:
            x *= 1 - rate * wd
        elif wd:
            s2 = self._buffers(p, ["_scratch2"])["_scratch2"]._data
            np.multiply(x, wd, out=s2)
            s2 += g
            g = s2
        _adam_moments(m, v, s, g, t, rate, b1, b2, eps)
        x -= s


    # Note [Flat Adam]: the moments of a parameter group live in flat buffers and each
    # parameter's state tensors are views into them, so one step updates the whole group
    # with a dozen ufunc calls instead of a dozen per parameter; the per-parameter path
    # (used when some parameter has no gradient) updates the same memory.
    def step(self):
        for group in self.param_groups:
            params = group["params"]
            flat = group.get("_flat")
            if flat is None and all(id(p) not in self.state for p in params):
                flat = group["_flat"] = self._make_flat(params)
            if flat and all(p.grad is not None and p._requires_grad for p in params):
                self._flat_update(params, flat, self._lr(group), group)
                for p in params:
                    bump(p, f"{type(self).__name__}.step")
                continue
            for p in params:
                if p.grad is not None and p._requires_grad:
                    self._update(p, p.grad._data, self._lr(group), group)
                    bump(p, f"{type(self).__name__}.step")

    def _make_flat(self, params):
        dt = params[0]._data.dtype
        if any(p._data.dtype != dt for p in params):
            return False
        n = sum(p._data.size for p in params)
        bufs = {k: Tensor._wrap(np.zeros(n, dt)) for k in ("exp_avg", "exp_avg_sq", "_scratch", "_grads")}
        off = 0
        views = []
        for p in params:
            k = p._data.size
            st = self.state[id(p)] = {"step": 0}
            for name, t in bufs.items():
                st[name] = Tensor._wrap(t._data[off:off + k].reshape(p._data.shape), t._storage)
            views.append(st["_scratch"]._data)
            off += k
        return {"bufs": bufs, "views": views}

    def _flat_update(self, params, flat, rate, group):
        b1, b2, eps, wd = group["beta1"], group["beta2"], group["eps"], group["weight_decay"]
        bufs = flat["bufs"]
        m, v, s, g = (bufs[k]._data for k in ("exp_avg", "exp_avg_sq", "_scratch", "_grads"))
        np.concatenate([p.grad._data.reshape(-1) for p in params], out=g)
        steps = set()
        for p in params:
            st = self.state[id(p)]
            st["step"] += 1
            steps.add(st["step"])
        if len(steps) != 1:   # parameters stepped separately before: per-parameter math
            for p in params:
                self.state[id(p)]["step"] -= 1
                self._update(p, p.grad._data, rate, group)
            return
        t = steps.pop()
        if wd and self.decoupled:
            for p in params:
                p._data *= 1 - rate * wd
        elif wd:
            for p, view in zip(params, flat["views"]):   # g <- g + wd * p, per parameter
                np.multiply(p._data, wd, out=view)
            g += s
        _adam_moments(m, v, s, g, t, rate, b1, b2, eps)
        for p, view in zip(params, flat["views"]):
            p._data -= view


def _adam_moments(m, v, s, g, t, rate, b1, b2, eps):
    """Update the moments m, v with gradient g (step t) in place and leave in s the step to
    subtract from the parameters: rate * m_hat / (sqrt(v_hat) + eps). No allocation."""
    m *= b1
    np.multiply(g, 1 - b1, out=s)
    m += s
    v *= b2
    np.multiply(g, g, out=s)
    s *= 1 - b2
    v += s
    np.sqrt(v, out=s)
    s /= math.sqrt(1 - b2 ** t)
    s += eps
    np.divide(m, s, out=s)
    s *= rate / (1 - b1 ** t)


class AdamW(Adam):
    decoupled = True


def _pick(paddle_value, torch_value, default):
    if paddle_value is not None and not isinstance(paddle_value, (int, float, lr.LRScheduler)) \
            and torch_value is None and default is None:
        return paddle_value
    if paddle_value is not None:
        return paddle_value
    if torch_value is not None:
        return torch_value
    return default


def _wd(wd):
    if wd is None:
        return 0.0
    if hasattr(wd, "coeff"):       # paddle.regularizer.L2Decay
        return float(wd.coeff)
    return float(wd)


class L2Decay:
    def __init__(self, coeff=0.0):
        self.coeff = coeff
