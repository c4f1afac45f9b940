"""torch.optim: the PyTorch-spelling optimizers of oar.optim (PyTorch's arguments,
parameter-group keys and update rules) over torch's Optimizer base (oar.torch.optim.optimizer:
state, state_dict, hooks, Note [Torch optimizer state]); Rprop, ASGD, LBFGS and Adafactor
(._more) as sequences of torch-door tensor ops in torch's order; torch.optim.lr_scheduler as
a submodule."""
from __future__ import annotations

from ... import optim as _optim
from . import lr_scheduler  # noqa: F401
from ._more import ASGD, LBFGS, Adafactor, Rprop
from .optimizer import Optimizer

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "RMSprop", "Adamax",
           "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS", "Adafactor", "lr_scheduler"]

_COMMON = {"foreach": None, "maximize": False, "differentiable": False}


class SGD(Optimizer, _optim.SGD):
    """torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
    nesterov=False, *, maximize=False)."""
    __init__ = _optim.SGD.__init__
    _setstate_defaults = dict(nesterov=False, maximize=False, foreach=None,
                              differentiable=False, fused=False)
    _has_step = False


class Adam(Optimizer, _optim.Adam):
    """torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, *, maximize=False, decoupled_weight_decay=False)."""
    __init__ = _optim.Adam.__init__
    _setstate_defaults = dict(amsgrad=False, maximize=False, foreach=None, capturable=False,
                              differentiable=False, decoupled_weight_decay=False, fused=None)


class AdamW(Adam, _optim.AdamW):
    """torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    amsgrad=False, *, maximize=False)."""
    __init__ = _optim.AdamW.__init__


class Adadelta(Optimizer, _optim.Adadelta):
    """torch.optim.Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *,
    maximize=False)."""
    __init__ = _optim.Adadelta.__init__
    _setstate_defaults = dict(_COMMON, capturable=False)


class Adagrad(Optimizer, _optim.Adagrad):
    """torch.optim.Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0,
    initial_accumulator_value=0, eps=1e-10, *, maximize=False)."""
    __init__ = _optim.Adagrad.__init__
    _setstate_defaults = dict(_COMMON, fused=None)


class RMSprop(Optimizer, _optim.RMSprop):
    """torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, maximize=False)."""
    __init__ = _optim.RMSprop.__init__
    _setstate_defaults = dict(momentum=0, centered=False, capturable=False, **_COMMON)


class Adamax(Optimizer, _optim.Adamax):
    """torch.optim.Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    foreach=None, *, maximize=False, differentiable=False, capturable=False)."""
    __init__ = _optim.Adamax.__init__
    _setstate_defaults = dict(_COMMON, capturable=False)


class NAdam(Optimizer, _optim.NAdam):
    """torch.optim.NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False,
    capturable=False, differentiable=False)."""
    __init__ = _optim.NAdam.__init__
    _setstate_defaults = dict(maximize=False, foreach=None, capturable=False,
                              differentiable=False, decoupled_weight_decay=False)
    _scalar_tensors = ("mu_product",)


class RAdam(Optimizer, _optim.RAdam):
    """torch.optim.RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)."""
    __init__ = _optim.RAdam.__init__
    _setstate_defaults = dict(_COMMON, decoupled_weight_decay=False, capturable=False)


# as torch.optim: the module stays importable (torch.optim.optimizer.register_optimizer_...)
# but is no attribute of the package
del optimizer  # type: ignore[name-defined]  # noqa: F821  (bound by the import system)
