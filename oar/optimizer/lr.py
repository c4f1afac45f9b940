"""Learning-rate schedulers, Paddle spelling (passed as `learning_rate=` to an optimizer)."""
from __future__ import annotations

import math


class LRScheduler:
    """Base learning-rate scheduler: call step() once per epoch; calling it gives the rate."""
    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        self.base_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.last_lr = self.base_lr
        self.step()

    def get_lr(self):
        """The learning rate for the current epoch (subclasses define it)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advances to the next epoch (or to epoch) and recomputes the rate."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        self.last_lr = self.get_lr()

    def __call__(self):
        return self.last_lr

    def state_dict(self):
        """The scheduler's state (epoch and rate), for saving."""
        return {"last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, s):
        """Restores what state_dict() returned."""
        self.last_epoch, self.last_lr = s["last_epoch"], s["last_lr"]


class StepDecay(LRScheduler):
    """Multiplies the rate by gamma every step_size epochs."""
    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        """base_lr * gamma ** (epoch // step_size)."""
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class CosineAnnealingDecay(LRScheduler):
    """Anneals the rate from learning_rate to eta_min along a half cosine over T_max epochs."""
    def __init__(self, learning_rate, T_max, eta_min=0.0, last_epoch=-1, verbose=False):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(learning_rate, last_epoch)

    def get_lr(self):
        """The cosine-annealed rate for the current epoch."""
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
