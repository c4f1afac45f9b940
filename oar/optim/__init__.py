"""The PyTorch spelling of the optimizers, in both doors: `oar.optim.SGD(params, lr=...)`.

The classes take PyTorch 2.13's arguments, keep PyTorch's parameter-group keys (`betas`,
`alpha`, `maximize`, ...) and follow its update rules; the update arithmetic is the core's
(oar.optimizer), shared with the Paddle-spelling optimizers. `state_dict()` here is oar's
own layout; oar.torch.optim's classes (subclasses of these) write and read PyTorch's.
"""
from __future__ import annotations

from .. import optimizer as _opt
from ..autograd.errors import ArgValueError
from ..tensor import Tensor
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


__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "RMSprop",
           "lr_scheduler"]
