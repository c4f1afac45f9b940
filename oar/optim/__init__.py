"""The PyTorch spelling of the optimizers, in both doors: `oar.optim.SGD(params, lr=...)`.

The classes take PyTorch 2.13's arguments, keep PyTorch's parameter-group keys (`betas`,
`alpha`, `maximize`, ...) and follow its update rules; the update arithmetic is the core's
(oar.optimizer), shared with the Paddle-spelling optimizers. `state_dict()` here is oar's
own layout; oar.torch.optim's classes (subclasses of these) write and read PyTorch's.
"""
from __future__ import annotations

import numpy as np

from .. import optimizer as _opt
from ..autograd.errors import ArgValueError
from ..tensor import Tensor, wrap_as
from . import lr_scheduler  # noqa: F401

Optimizer = _opt.Optimizer


def _named(params):
    """PyTorch 2.13 also takes (name, parameter) pairs (`model.named_parameters()`): they
    become a group with 'param_names'."""
    if isinstance(params, Tensor) or params is None:
        return params
    try:
        items = list(params)
    except TypeError:
        return params
    if items and all(isinstance(i, tuple) and len(i) == 2 and isinstance(i[0], str)
                     and isinstance(i[1], Tensor) for i in items):
        return [{"params": [p for _, p in items], "param_names": [n for n, _ in items]}]
    return items


class SGD(_opt.SGD):
    """Stochastic gradient descent with momentum, dampening, Nesterov momentum, L2 weight
    decay and maximize (PyTorch's SGD)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _opt.Optimizer.__init__(self, _named(params), dict(
            lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
            nesterov=nesterov, maximize=maximize, foreach=foreach,
            differentiable=differentiable, fused=fused))


class Adam(_opt.Adam):
    """Adam (PyTorch's): betas, eps, L2 weight decay (decoupled with
    decoupled_weight_decay=True, which is AdamW), amsgrad and maximize."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(betas, list):        # PyTorch keeps the default betas as a tuple
            betas = tuple(betas)
        _opt.Optimizer.__init__(self, _named(params), dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
            maximize=maximize, foreach=foreach, capturable=capturable,
            differentiable=differentiable, fused=fused,
            decoupled_weight_decay=decoupled_weight_decay))
        kinds = {isinstance(b, float) and not isinstance(b, bool) or
                 (isinstance(b, Tensor) and "tensor") for b in betas}
        if len(kinds) != 1 or kinds == {False}:
            raise ArgValueError(f"{type(self).__name__}: betas must be either both floats or "
                                f"both Tensors, got {betas!r}. Fix: betas=(0.9, 0.999).")

    def _writes_per_step(self, group):
        # decoupled decay writes the parameter twice (Note [Optimizer version bumps])
        return 2 if group.get("decoupled_weight_decay") and group["weight_decay"] else 1

    def _check_hyper(self, group):
        name = type(self).__name__
        group["lr"] = _opt._check_lr(group["lr"], name)
        group["eps"] = _opt._nonneg(group["eps"], "epsilon", self)
        betas = group["betas"]
        if not _opt._iterable(betas) or len(tuple(betas)) != 2:
            raise ArgValueError(f"{name}: betas must be a pair (beta1, beta2), got "
                                f"{_opt._what(betas)}")
        b1, b2 = tuple(betas)
        _opt._beta(b1, 0, name)
        _opt._beta(b2, 1, name)
        group["weight_decay"] = _opt._nonneg(group["weight_decay"], "weight_decay", self)

    def _hyper(self, group):
        b1, b2 = group["betas"]
        return (float(b1), float(b2), group["eps"], group["weight_decay"],
                bool(group.get("decoupled_weight_decay", False)), bool(group["amsgrad"]),
                bool(group["maximize"]))


class AdamW(Adam):
    """AdamW (PyTorch's): Adam with decoupled weight decay (default 1e-2)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class Adadelta(_opt.Adadelta):
    """Adadelta (PyTorch's): lr=1.0, rho=0.9, eps=1e-6; p -= lr * sqrt(acc + eps) /
    sqrt(E[g^2] + eps) * g."""
    _paddle = False

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _opt.Optimizer.__init__(self, _named(params), dict(
            lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
            capturable=capturable, foreach=foreach, differentiable=differentiable))


class Adagrad(_opt.Adagrad):
    """Adagrad (PyTorch's): lr=1e-2, lr_decay, initial_accumulator_value, eps=1e-10; the
    accumulators exist from construction, as in PyTorch."""
    _paddle = False

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        _opt.Optimizer.__init__(self, _named(params), dict(
            lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value, foreach=foreach,
            maximize=maximize, differentiable=differentiable, fused=fused))
        for group in self.param_groups:
            for p in group["params"]:
                self._init_sum(p, group)


class RMSprop(_opt.RMSProp):
    """RMSprop (PyTorch's): alpha=0.99, eps=1e-8 added after the square root, momentum
    buffer of g / avg, centered variant."""
    _paddle = False

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _opt.Optimizer.__init__(self, _named(params), dict(
            lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
            weight_decay=weight_decay, capturable=capturable, foreach=foreach,
            maximize=maximize, differentiable=differentiable))

    def _decay(self, group):
        return group["alpha"]


# Note [Adam relatives]
# Adamax, NAdam and RAdam follow PyTorch 2.13's single-tensor update (what foreach=None
# runs on the CPU) operation by operation, in preallocated buffers (Note [Optimizer steps
# do not allocate]): exp_avg.lerp_(g, 1 - beta1) with PyTorch's two lerp branches, the same
# scalar coefficients computed in the same order, and NAdam's mu_product kept as PyTorch
# keeps it, a float32 scalar (also for float64 parameters), so float64 runs agree with
# PyTorch's to rounding. Each in-place write of a parameter bumps its version (Note
# [Optimizer version bumps]): NAdam writes twice per step, decoupled decay once more.
# The Paddle door's classes are these with `_paddle = True` (Note [Paddle Adam relatives]).


def _lerp(m, g, w, s):
    """m.lerp_(g, w) as PyTorch's CPU kernel (m + w (g - m) for w < 0.5, else
    g - (g - m)(1 - w)); s is scratch."""
    np.subtract(g, m, out=s)
    if abs(w) < 0.5:
        s *= w
        m += s
    else:
        s *= 1 - w
        np.subtract(g, s, out=m)


class _AdamRelative(_opt._AdaptiveBase):
    """Shared by Adamax, NAdam and RAdam: Adam's hyper-parameter checks, the gradient with
    maximize and L2 (or decoupled) weight decay, step counting."""
    _paddle: bool = False
    _moments = ("exp_avg", "exp_avg_sq")

    def _check_hyper(self, group):
        Adam._check_hyper(self, group)
        if "momentum_decay" in group:
            group["momentum_decay"] = _opt._nonneg(group["momentum_decay"], "momentum_decay",
                                                   self)

    def _writes_per_step(self, group):
        return (1 + bool(group.get("decoupled_weight_decay") and group["weight_decay"]))

    def _begin(self, p, g, rate, group):
        """(state, gradient) after the step count and the weight decay."""
        fresh = not self.state.get(p)
        st = self._state_of(p)                  # step, then mu_product, then the moments
        if fresh:
            self._init_state(st, p)
        st = self._buffers(p, self._moments)
        self._tick(st)
        wd = group["weight_decay"]
        if wd and group.get("decoupled_weight_decay"):
            p._data *= 1 - rate * wd
            g = self._grad(p, g, dict(group, weight_decay=0), st)
        else:
            g = self._grad(p, g, group, st)
        return st, g

    def _init_state(self, st, p):
        pass

    def _first_moment(self, m, g, b1, s):
        """m <- beta1 m + (1 - beta1) g: PyTorch's lerp_, Paddle's multiply-add (their
        kernels round differently). s is scratch."""
        if self._paddle:
            m *= b1
            np.multiply(g, 1 - b1, out=s)
            m += s
        else:
            _lerp(m, g, 1 - b1, s)


class Adamax(_AdamRelative):
    """Adamax (PyTorch's): the infinity-norm Adam; p -= lr / (1 - beta1^t) * m / u with
    u = max(beta2 u, |g| + eps)."""
    _moments = ("exp_avg", "exp_inf")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _opt.Optimizer.__init__(self, _named(params), dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
            maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _update(self, p, g, rate, group):
        st, g = self._begin(p, g, rate, group)
        b1, b2 = group["betas"]
        m, u = st["exp_avg"]._data, st["exp_inf"]._data
        s = self._scratch(p)
        clr = rate / (1 - b1 ** self._step_value(st))
        if self._paddle:                         # Paddle: u <- max(|g|, beta2 u + eps)
            # its kernel takes the betas and eps as float32; its beta1^t is made from
            # the number as given (Note [Paddle float hyper-parameters])
            b1, b2, eps = (float(np.float32(x)) for x in (b1, b2, group["eps"]))
            self._first_moment(m, g, b1, s)
            u *= b2
            u += eps
            np.abs(g, out=s)
            np.maximum(u, s, out=u)
            np.divide(m, u, out=s)               # p -= lr / (1 - beta1^t) * (m / u)
            s *= clr
            p._data -= s
            return
        self._first_moment(m, g, b1, s)
        u *= b2                                  # u <- max(beta2 u, |g| + eps)
        np.abs(g, out=s)
        s += group["eps"]
        np.maximum(u, s, out=u)
        np.multiply(m, -clr, out=s)              # p.addcdiv_(m, u, value=-clr): (v m) / u
        s /= u
        p._data += s


class NAdam(_AdamRelative):
    """NAdam (PyTorch's): Adam with Nesterov momentum and the momentum_decay schedule
    mu_t = beta1 (1 - 0.5 * 0.96^(t momentum_decay))."""
    _scalar_state: dict = {"mu_product": np.float32}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _opt.Optimizer.__init__(self, _named(params), dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
            momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize, foreach=foreach, capturable=capturable,
            differentiable=differentiable))

    def _init_state(self, st, p):
        # PyTorch keeps mu_product in float32, Paddle in the parameter's dtype
        dt = self._scalar_state.get("mu_product") or p._data.dtype
        st["mu_product"] = wrap_as(p._result_class, np.ones((), dt))

    def _writes_per_step(self, group):
        return 1 + super()._writes_per_step(group)   # two addcdiv_ per step

    def _update(self, p, g, rate, group):
        st, g = self._begin(p, g, rate, group)
        b1, b2 = group["betas"]
        t, md, eps = self._step_value(st), group["momentum_decay"], group["eps"]
        m, v = st["exp_avg"]._data, st["exp_avg_sq"]._data
        s, s2 = self._scratch(p), self._scratch(p, "s2")
        bias_correction2 = 1 - b2 ** t
        mu = b1 * (1.0 - 0.5 * (0.96 ** (t * md)))
        mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * md)))
        mp = st["mu_product"]._data              # a float32 scalar, as PyTorch's
        np.multiply(mp, mp.dtype.type(mu), out=mp)
        self._first_moment(m, g, b1, s)
        v *= b2                                  # v.mul_(b2).addcmul_(g, g, 1 - b2)
        np.multiply(g, g, out=s)
        s *= 1 - b2
        v += s
        np.divide(v, bias_correction2, out=s2)   # denom = sqrt(v / bc2) + eps
        np.sqrt(s2, out=s2)
        s2 += eps
        product = float(mp)
        np.multiply(g, -rate * (1.0 - mu) / (1.0 - product), out=s)     # addcdiv_
        s /= s2
        p._data += s
        np.multiply(m, (-rate * mu_next) / (1.0 - product * mu_next), out=s)
        s /= s2
        p._data += s


class RAdam(_AdamRelative):
    """RAdam (PyTorch's): Adam whose adaptive term is rectified by the variance of its
    estimate; plain momentum SGD while rho_t <= 5."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _opt.Optimizer.__init__(self, _named(params), dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
            foreach=foreach, capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay, differentiable=differentiable))

    def _update(self, p, g, rate, group):
        st, g = self._begin(p, g, rate, group)
        b1, b2 = group["betas"]
        t, eps = self._step_value(st), group["eps"]
        m, v = st["exp_avg"]._data, st["exp_avg_sq"]._data
        s, s2 = self._scratch(p), self._scratch(p, "s2")
        self._first_moment(m, g, b1, s)
        v *= b2
        np.multiply(g, g, out=s)
        s *= 1 - b2
        v += s
        bias_correction1 = 1 - b1 ** t
        bias_correction2 = 1 - b2 ** t
        np.divide(m, bias_correction1, out=s)    # bias-corrected exp_avg
        s *= rate
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * (b2 ** t) / bias_correction2
        if rho_t > 5.0:
            np.sqrt(v, out=s2)                   # adaptive lr: sqrt(bc2) / (sqrt(v) + eps)
            s2 += eps
            np.divide(bias_correction2 ** 0.5, s2, out=s2)
            s *= s2
            s *= ((rho_t - 4) * (rho_t - 2) * rho_inf
                  / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        p._data -= s


__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "RMSprop", "Adamax",
           "NAdam", "RAdam", "lr_scheduler"]
