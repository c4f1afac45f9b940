"""PyTorch's learning-rate schedulers (`torch.optim.lr_scheduler`), for any oar optimizer.

A scheduler writes each parameter group's "lr" on step(); the rates are PyTorch 2.13's,
computed with the same (chainable, recursive) float arithmetic, so a schedule run here and
in PyTorch agrees to the last bit. step(epoch) uses the closed forms, as PyTorch does.
"""
from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from contextlib import contextmanager
from functools import partial

from ..autograd.errors import ArgTypeError, ArgValueError
from ..optimizer import Optimizer as _Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR",
           "ConstantLR", "LinearLR", "ExponentialLR", "SequentialLR", "PolynomialLR",
           "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau",
           "CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR"]

_EPOCH_WARNING = ("The epoch parameter in `scheduler.step()` was not necessary and is being "
                  "deprecated where possible. Please use `scheduler.step()` to step the "
                  "scheduler.")


# Note [Scheduler state as PyTorch's]
# A scheduler's state_dict() is its __dict__ without the optimizer, as in PyTorch, so the
# attributes are PyTorch 2.13's, spelled alike and set at the same moments:
# `_get_lr_called_within_step` exists once a step has computed rates (True only inside
# that computation; get_lr() called from outside warns, as PyTorch's does), `_step_count`
# counts step() calls (CosineAnnealingWarmRestarts's own step() leaves it at 0, as
# PyTorch's does), and a step() before any optimizer.step() warns on the first step after
# construction (the optimizer's step() sets `_opt_called`, which PyTorch's wrapper sets).
_GET_LR_WARNING = ("To get the last learning rate computed by the scheduler, please use "
                   "`get_last_lr()`.")
_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
    "value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")


def _warn_get_lr(sched):
    if not sched._get_lr_called_within_step:
        warnings.warn(_GET_LR_WARNING, UserWarning, stacklevel=3)


@contextmanager
def _within_step(sched):
    sched._get_lr_called_within_step = True
    try:
        yield
    finally:
        sched._get_lr_called_within_step = False


def _check_optimizer(optimizer):
    if not isinstance(optimizer, _Optimizer):
        raise ArgTypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _lrs(optimizer, key="lr"):
    return [g[key] for g in optimizer.param_groups]


class LRScheduler:
    """Base class: sets every group's 'initial_lr' and applies the first rate at
    construction; step() advances one epoch (or batch) and writes the new rates."""
    _is_initial = False
    _get_lr_called_within_step = False      # Note [Scheduler state as PyTorch's]

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0.")
        self.base_lrs = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores what state_dict() returned."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The rates the last step() wrote, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        """The rates of the current epoch (each scheduler defines them)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advances to the next epoch (or to `epoch`, deprecated) and writes its rates."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        with _within_step(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


_LRScheduler = LRScheduler


def _lambdas(optimizer, lr_lambda, check_callable=False):
    n = len(optimizer.param_groups)
    if not isinstance(lr_lambda, (list, tuple)):
        fns = [lr_lambda] * n
    else:
        if len(lr_lambda) != n:
            raise ArgValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
        fns = list(lr_lambda)
    if check_callable:
        for f in fns:
            if not callable(f):
                raise ArgTypeError(f"lr_lambda should be a function, but got "
                                   f"{type(f).__name__}")
    return fns


class _LambdaState:
    def state_dict(self):
        """The scheduler's attributes; lambdas are saved only when they are callable
        objects (their __dict__), as in PyTorch."""
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else f.__dict__.copy()
                            for f in self.lr_lambdas]
        return sd

    def load_state_dict(self, state_dict):
        """Restores what state_dict() returned."""
        state_dict = dict(state_dict)
        fns = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for f, saved in zip(self.lr_lambdas, fns):
            if saved is not None:
                f.__dict__.update(saved)


class LambdaLR(_LambdaState, LRScheduler):
    """rate = initial rate * lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """base rate * lambda(epoch) for each group."""
        _warn_get_lr(self)
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaState, LRScheduler):
    """rate *= lr_lambda(epoch) at each step."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda, check_callable=True)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The current rates times lambda(epoch) (unchanged at construction)."""
        _warn_get_lr(self)
        if self._is_initial:
            return _lrs(self.optimizer)
        return [g["lr"] * f(self.last_epoch)
                for f, g in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Multiplies the rate by gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The rates of this epoch (times gamma at each multiple of step_size)."""
        _warn_get_lr(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the rate by gamma at each milestone epoch."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The rates of this epoch (times gamma ** count at a milestone)."""
        _warn_get_lr(self)
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        ms = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(ms, self.last_epoch) for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """The rate times factor until total_iters epochs, then the rate itself."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ArgValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The rates of this epoch."""
        _warn_get_lr(self)
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The rate's factor goes linearly from start_factor to end_factor over total_iters."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ArgValueError("Starting multiplicative factor expected to be greater than 0 "
                                "and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ArgValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The rates of this epoch."""
        _warn_get_lr(self)
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        d = self.end_factor - self.start_factor
        return [g["lr"] * (1.0 + d / (self.total_iters * self.start_factor
                                      + (self.last_epoch - 1) * d))
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (self.start_factor + (self.end_factor - self.start_factor)
                        * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiplies the rate by gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The rates of this epoch."""
        _warn_get_lr(self)
        if self._is_initial:
            return _lrs(self.optimizer)
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decays the rate polynomially (power) to 0 over total_iters epochs."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The rates of this epoch."""
        _warn_get_lr(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        f = ((1.0 - self.last_epoch / self.total_iters)
             / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [g["lr"] * f for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneals the rate to eta_min along a half cosine over T_max epochs (PyTorch's
    recursive form)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The rates of this epoch."""
        _warn_get_lr(self)
        if self._is_initial:
            return _lrs(self.optimizer)
        e, T, lo = self.last_epoch, self.T_max, self.eta_min
        if self._step_count == 1 and e > 0:
            return [lo + (base - lo) * (1 + math.cos(e * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (e - 1 - T) % (2 * T) == 0:
            return [g["lr"] + (base - lo) * (1 - math.cos(math.pi / T)) / 2
                    for base, g in zip(self.base_lrs, self.optimizer.param_groups)]
        return [(1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T))
                * (g["lr"] - lo) + lo for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs (T_i = T_0 * T_mult ** restarts)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ArgValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ArgValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The rates of this epoch."""
        _warn_get_lr(self)
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2 for base in self.base_lrs]

    def step(self, epoch=None):
        """Advances one epoch (or to a fractional `epoch`) and writes the rates."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ArgValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        with _within_step(self):
            values = self.get_lr()
        for g, lr in zip(self.optimizer.param_groups, values):
            g["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


class SequentialLR(LRScheduler):
    """Runs schedulers one after another, switching at the milestone epochs."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ArgValueError(f"{type(self).__name__} expects at least one scheduler, but "
                                "got no scheduler.")
        for i, s in enumerate(schedulers):
            if isinstance(s, ReduceLROnPlateau):
                raise ArgValueError(f"{type(self).__name__} does not support "
                                    f"`ReduceLROnPlateau` scheduler (index {i})")
            if getattr(s, "optimizer", None) is not optimizer:
                raise ArgValueError(f"{type(self).__name__} expects all schedulers to belong "
                                    f"to the same optimizer (scheduler {i} does not)")
        if len(milestones) != len(schedulers) - 1:
            raise ArgValueError("Sequential Schedulers expects number of schedulers provided "
                                "to be one more than the number of milestone points, but got "
                                f"number of schedulers {len(schedulers)} and the number of "
                                f"milestones to be equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for g in optimizer.param_groups:
            g["lr"] = g["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(milestones, 0)
        schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        """Undoes the initial step of every scheduler given, nested ones included."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        """Steps the scheduler whose phase this is (restarting it at a milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            s._update_lr(0)
        else:
            s.step()
        self._last_lr = s.get_last_lr()

    def state_dict(self):
        """The attributes and every scheduler's state."""
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict):
        """Restores what state_dict() returned."""
        state_dict = dict(state_dict)
        scheds = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for s, sd in zip(self._schedulers, scheds):
            s.load_state_dict(sd)


class ChainedScheduler(LRScheduler):
    """Steps every scheduler of the chain at each step (their factors multiply)."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ArgValueError(f"{type(self).__name__} expects at least one scheduler to be "
                                "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        for i, s in enumerate(schedulers):
            if getattr(s, "optimizer", None) is not optimizer:
                raise ArgValueError(f"{type(self).__name__} expects all schedulers to belong "
                                    f"to the same optimizer (scheduler {i} does not)")
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = _lrs(schedulers[-1].optimizer)

    def step(self):
        """Steps every scheduler of the chain."""
        for s in self._schedulers:
            s.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    state_dict = SequentialLR.state_dict
    load_state_dict = SequentialLR.load_state_dict


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the rate by factor when a metric has not improved for patience epochs."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ArgValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ArgValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * n
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Records this epoch's metric and lowers the rates after patience bad epochs."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError("The number of param groups in the `optimizer` differs "
                                   "from when `ReduceLROnPlateau` was initialized")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, g in enumerate(self.optimizer.param_groups):
            old = float(g["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                g["lr"] = new

    @property
    def in_cooldown(self):
        """Whether the scheduler is waiting out its cooldown."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ArgValueError("mode " + str(mode) + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ArgValueError("threshold mode " + str(threshold_mode) + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def load_state_dict(self, state_dict):
        """Restores what state_dict() returned."""
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


class CyclicLR(LRScheduler):
    """Cyclical learning rates: the rate cycles between base_lr and max_lr (triangular,
    triangular2, exp_range or a custom scale_fn); momentum (or beta1) cycles inversely."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, g in zip(base_lrs, optimizer.param_groups):
                g["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ArgValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ArgValueError("optimizer must support momentum or beta1 with "
                                    "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in self.optimizer.defaults
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for mm, bm, g in zip(self.max_momentums, self.base_momentums,
                                     optimizer.param_groups):
                    if self.use_beta1:
                        g["betas"] = (mm, *g["betas"][1:])
                    else:
                        g["momentum"] = mm
                    g["max_momentum"], g["base_momentum"] = mm, bm
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        """The scaling policy at x (cycle number or iteration)."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def get_lr(self):
        """The rates of this batch (and, with cycle_momentum, the momenta it writes)."""
        _warn_get_lr(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (top - base) * scale_factor * self.scale_fn(at)
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            moms = [top - (top - base) * scale_factor * self.scale_fn(at)
                    for base, top in zip(self.base_momentums, self.max_momentums)]
            for g, m in zip(self.optimizer.param_groups, moms):
                if self.use_beta1:
                    g["betas"] = (m, *g["betas"][1:])
                else:
                    g["momentum"] = m
        return lrs

    def state_dict(self):
        """The attributes but the optimizer and the built-in scale function; a custom
        scale_fn is saved only when it is a callable object (its __dict__), as in PyTorch."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        """Restores what state_dict() returned."""
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


def _format_param(name, optimizer, value):
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ArgValueError(f"{name} must have the same length as optimizer.param_groups. "
                                f"{name} has {len(value)} values, param_groups has {n}.")
        return list(value)
    return [value] * n


class OneCycleLR(LRScheduler):
    """The 1cycle policy: the rate rises from max_lr / div_factor to max_lr over pct_start
    of the steps, then anneals to initial_lr / final_div_factor; momentum (or beta1)
    cycles inversely."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ArgValueError(f"Expected positive integer total_steps, but got "
                                    f"{total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ArgValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ArgValueError(f"Expected positive integer steps_per_epoch, but got "
                                    f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ArgValueError("You must define either total_steps OR (epochs AND "
                                "steps_per_epoch)")
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                dict(end_step=up, start_lr="initial_lr", end_lr="max_lr",
                     start_momentum="max_momentum", end_momentum="base_momentum"),
                dict(end_step=float(2 * pct_start * self.total_steps) - 2, start_lr="max_lr",
                     end_lr="initial_lr", start_momentum="base_momentum",
                     end_momentum="max_momentum"),
                dict(end_step=self.total_steps - 1, start_lr="initial_lr", end_lr="min_lr",
                     start_momentum="max_momentum", end_momentum="max_momentum")]
        else:
            self._schedule_phases = [
                dict(end_step=up, start_lr="initial_lr", end_lr="max_lr",
                     start_momentum="max_momentum", end_momentum="base_momentum"),
                dict(end_step=self.total_steps - 1, start_lr="max_lr", end_lr="min_lr",
                     start_momentum="base_momentum", end_momentum="max_momentum")]
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ArgValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ArgValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead "
                                f"got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for m, g in zip(max_lrs, optimizer.param_groups):
                g["initial_lr"] = m / div_factor
                g["max_lr"] = m
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ArgValueError("optimizer must support momentum or beta1 with "
                                    "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            maxs = _format_param("max_momentum", optimizer, max_momentum)
            bases = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for mm, bm, g in zip(maxs, bases, optimizer.param_groups):
                    if self.use_beta1:
                        g["betas"] = (mm, *g["betas"][1:])
                    else:
                        g["momentum"] = mm
                    g["max_momentum"], g["base_momentum"] = mm, bm
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        """The rates of this step (and, with cycle_momentum, the momenta it writes)."""
        _warn_get_lr(self)
        step = self.last_epoch
        if step > self.total_steps:
            raise ArgValueError(f"Tried to step {step} times. The specified number of total "
                                f"steps is {self.total_steps}")
        lrs = []
        for g in self.optimizer.param_groups:
            start = 0.0
            for i, ph in enumerate(self._schedule_phases):
                end = ph["end_step"]
                if step <= end or i == len(self._schedule_phases) - 1:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(g[ph["start_lr"]], g[ph["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(g[ph["start_momentum"]], g[ph["end_momentum"]], pct)
                    break
                start = ph["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    g["betas"] = (mom, *g["betas"][1:])
                else:
                    g["momentum"] = mom
        return lrs
