"""PyTorch spelling of the optimizers: oar.optim.SGD(params, lr=...), zero_grad(set_to_none)."""
from __future__ import annotations

import math
import types

from . import optimizer as _opt


def _torch_style(cls):
    class Wrapped(cls):
        def __init__(self, params, lr=None, **kw):
            super().__init__(params=params, lr=lr if lr is not None else 0.001, **kw)
    Wrapped.__name__ = cls.__name__
    Wrapped.__qualname__ = cls.__name__
    Wrapped.__doc__ = (f"oar.optimizer.{cls.__name__} with PyTorch's arguments: "
                       "(params, lr=..., **options).")
    return Wrapped


SGD = _torch_style(_opt.SGD)
Adam = _torch_style(_opt.Adam)
AdamW = _torch_style(_opt.AdamW)
Optimizer = _opt.Optimizer


class _TorchScheduler:
    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        self.base_lrs = [float(g["lr"]) for g in optimizer.param_groups]
        self.last_epoch = last_epoch + 1
        self._apply()

    def _apply(self):
        for g, base in zip(self.optimizer.param_groups, self.base_lrs):
            g["lr"] = self._lr(base)

    def step(self):
        """Advances one epoch and sets the new rate on every parameter group."""
        self.last_epoch += 1
        self._apply()

    def get_last_lr(self):
        """The current rate of every parameter group (a list)."""
        return [g["lr"] for g in self.optimizer.param_groups]


class StepLR(_TorchScheduler):
    """Multiplies each group's rate by gamma every step_size epochs (PyTorch's StepLR)."""
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def _lr(self, base):
        return base * self.gamma ** (self.last_epoch // self.step_size)


class CosineAnnealingLR(_TorchScheduler):
    """Anneals each group's rate to eta_min along a half cosine over T_max epochs."""
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def _lr(self, base):
        return self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


lr_scheduler = types.SimpleNamespace(StepLR=StepLR, CosineAnnealingLR=CosineAnnealingLR)
