"""Learning-rate schedulers, Paddle spelling (passed as `learning_rate=` to an optimizer)."""
# Note [Paddle schedulers]
# Each scheduler is a small state machine over Python floats: step() advances last_epoch
# and recomputes last_lr, and the optimizer reads last_lr (scheduler() or opt.get_lr()).
# Several of Paddle 3.3.1's schedulers are recursive (CosineAnnealingDecay and LinearLR
# build the new rate from last_lr, ReduceOnPlateau from its history),
# so the formulas here keep Paddle's order of operations: the same float arithmetic gives
# the same rates to the last bit (tests/test_breadth_optim.py compares 30+ steps with
# paddle). step(epoch) jumps: a scheduler with a closed form (_closed_form) uses it, the
# others evaluate get_lr() at the new epoch, as Paddle does. state_dict() holds the keys
# _state_keys names (plain numbers), and set_state_dict() refuses a state missing one.
# Where Paddle checks an argument with `assert`, the check here raises ArgValueError.
from __future__ import annotations

import math
import warnings

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError

__all__ = ["LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay",
           "PolynomialDecay", "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay",
           "LambdaDecay", "ReduceOnPlateau", "CosineAnnealingDecay", "MultiplicativeDecay",
           "OneCycleLR", "CyclicLR", "LinearLR", "CosineAnnealingWarmRestarts"]


def _is_number(x):
    return isinstance(x, (int, float, np.integer, np.floating))


def _need(ok, name, message):
    if not ok:
        raise ArgValueError(f"{name}: {message}")


def _need_int(x, name, what, positive=True):
    if not isinstance(x, (int, np.integer)) or isinstance(x, bool):
        raise ArgTypeError(f"{name}: '{what}' must be an int, got {type(x).__name__} {x!r}")
    if positive and x <= 0:
        raise ArgValueError(f"{name}: '{what}' must be a positive integer, got {x}")


class LRScheduler:
    """Base learning-rate scheduler: call step() once per epoch (or batch); calling the
    scheduler gives the current rate. Subclasses define get_lr()."""
    _state_keys: tuple[str, ...] = ("last_epoch", "last_lr")

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        name = type(self).__name__
        if not _is_number(learning_rate) or isinstance(learning_rate, bool):
            raise ArgTypeError(f"{name}: the type of learning rate must be float, but received "
                               f"{type(learning_rate).__name__}")
        if not learning_rate >= 0:
            raise ArgValueError(f"{name}: Invalid learning rate: {learning_rate} (it must be a "
                                "number >= 0)")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self.step()

    def __call__(self):
        return self.last_lr

    def get_lr(self):
        """The learning rate for the current epoch (subclasses define it)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advances to the next epoch (or jumps to `epoch`) and recomputes the rate."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_closed_form", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        self._say()

    def _say(self):
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def state_dict(self):
        """The scheduler's state (epoch, rate and what the schedule keeps), for saving."""
        out = {}
        for k in self._state_keys:
            if k in self.__dict__:
                v = self.__dict__[k]
                out[k] = float(v) if isinstance(v, np.generic) else v
        return out

    def set_state_dict(self, state_dict):
        """Restores what state_dict() returned (every key must be there)."""
        name = type(self).__name__
        if not isinstance(state_dict, dict):
            raise ArgTypeError(f"{name}.set_state_dict: expected the dict that state_dict() "
                               f"returns, got {type(state_dict).__name__}")
        missing = [k for k in self._state_keys if k not in state_dict]
        if missing:
            raise ArgValueError(f"{name}.set_state_dict: the state has no {missing[0]!r} (it "
                                f"must hold {list(self._state_keys)}); was it saved from "
                                "another scheduler?")
        for k in self._state_keys:
            self.__dict__[k] = state_dict[k]
        if len([k for k in state_dict if k not in self._extra_keys]) > len(self._state_keys):
            warnings.warn(f"{name}.set_state_dict: the state has entries this scheduler does "
                          "not use; was it saved from another scheduler?")

    _extra_keys: tuple[str, ...] = ()
    set_dict = set_state_dict


class NoamDecay(LRScheduler):
    """The Transformer's schedule: learning_rate * d_model^-0.5 * min(epoch^-0.5,
    epoch * warmup_steps^-1.5)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        _need(d_model > 0, "NoamDecay", f"d_model should be greater than 0, got {d_model}")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """The Noam rate at last_epoch (epoch 0 counts as a factor 1 on the first term)."""
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * self.d_model ** -0.5 * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; the last value after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(boundaries) == 0:
            raise ArgValueError("PiecewiseDecay: The boundaries cannot be empty.")
        if len(values) <= len(boundaries):
            raise ArgValueError(
                "PiecewiseDecay: The values have one more element than boundaries, but "
                f"received len(values) [{len(values)}] < len(boundaries) + 1 "
                f"[{len(boundaries) + 1}].")
        self.boundaries, self.values = boundaries, values
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        """The value of the piece last_epoch falls in."""
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[len(self.values) - 1]


class NaturalExpDecay(LRScheduler):
    """learning_rate * exp(-gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        _need(gamma > 0.0, "NaturalExpDecay", "'gamma' must be a positive number so that the "
              f"learning rate will decay, got {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """base_lr * exp(-gamma * last_epoch)."""
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """learning_rate / (1 + gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """base_lr / (1 + gamma * last_epoch)."""
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """(learning_rate - end_lr) * (1 - epoch / decay_steps)^power + end_lr; with cycle the
    decay restarts, decay_steps growing to the next multiple past the epoch."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        _need(isinstance(decay_steps, int) and decay_steps > 0, "PolynomialDecay",
              f"'decay_steps' must be a positive integer, got {decay_steps!r}")
        _need(power > 0.0, "PolynomialDecay", "'power' must be greater than 0.0 so that the "
              f"learning rate will decay, got {power}")
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, end_lr, power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """The polynomial rate at last_epoch."""
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            cycles = 1 if epoch == 0 else math.ceil(float(epoch) / float(steps))
            steps = steps * cycles
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - float(epoch) / float(steps)) ** self.power \
            + self.end_lr


class LinearWarmup(LRScheduler):
    """Rises linearly from start_lr to end_lr over warmup_steps, then follows learning_rate:
    a float, or another scheduler (stepped to epoch - warmup_steps)."""
    _extra_keys = ("LinearWarmup_LR",)

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        if not (_is_number(learning_rate) or isinstance(learning_rate, LRScheduler)):
            raise ArgTypeError("LinearWarmup: the type of learning_rate should be [int, float "
                               f"or LRScheduler], got {type(learning_rate).__name__}")
        self.learning_rate = learning_rate
        _need(isinstance(warmup_steps, int) and warmup_steps > 0, "LinearWarmup",
              f"'warmup_steps' must be a positive integer, got {warmup_steps!r}")
        self.warmup_steps, self.start_lr, self.end_lr = warmup_steps, start_lr, end_lr
        _need(end_lr > start_lr, "LinearWarmup",
              f"end_lr {end_lr} must be greater than start_lr {start_lr}")
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        """The warm-up's state, with the wrapped scheduler's under 'LinearWarmup_LR'."""
        out = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            out["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        """Restores the warm-up's state and the wrapped scheduler's."""
        inner = isinstance(self.learning_rate, LRScheduler)
        if inner and isinstance(state_dict, dict) and "LinearWarmup_LR" not in state_dict:
            raise ArgValueError("LinearWarmup.set_state_dict: the state has no "
                                "'LinearWarmup_LR' (the wrapped scheduler's state)")
        super().set_state_dict(state_dict)
        if inner:
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])

    set_dict = set_state_dict

    def get_lr(self):
        """The warm-up rate, or the wrapped rate once warmup_steps have passed."""
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(
                self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    """learning_rate * gamma^epoch."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        _need(0.0 < gamma < 1.0, "ExponentialDecay", "'gamma' must be in interval (0.0, 1.0) "
              f"so that the learning rate will decay, got {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """base_lr * gamma ** last_epoch."""
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """Multiplies the rate by gamma at each milestone epoch."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (tuple, list)):
            raise ArgTypeError("MultiStepDecay: The type of 'milestones' must be 'tuple, list', "
                               f"but received {type(milestones).__name__}.")
        if not all(a < b for a, b in zip(milestones, milestones[1:])):
            raise ArgValueError("MultiStepDecay: The elements of milestones must be incremented"
                                f", got {list(milestones)}")
        if gamma >= 1.0:
            raise ArgValueError(f"MultiStepDecay: gamma should be < 1.0, got {gamma}")
        self.milestones, self.gamma = milestones, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """base_lr * gamma ** (milestones passed)."""
        for i, m in enumerate(self.milestones):
            if self.last_epoch < m:
                return self.base_lr * self.gamma ** i
        return self.base_lr * self.gamma ** len(self.milestones)


class StepDecay(LRScheduler):
    """Multiplies the rate by gamma every step_size epochs."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        _need_int(step_size, "StepDecay", "step_size")
        if gamma >= 1.0:
            raise ArgValueError(f"StepDecay: gamma should be < 1.0, got {gamma}")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """base_lr * gamma ** (epoch // step_size)."""
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    """learning_rate * lr_lambda(epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise ArgTypeError("LambdaDecay: 'lr_lambda' must be a function, but received "
                               f"{type(lr_lambda).__name__}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """base_lr * lr_lambda(last_epoch)."""
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """The rate multiplied by lr_lambda(epoch) at every epoch (a running product)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise ArgTypeError("MultiplicativeDecay: 'lr_lambda' must be a function, but "
                               f"received {type(lr_lambda).__name__}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """base_lr times lr_lambda(e) for every epoch e from 1 to last_epoch."""
        rate = self.base_lr
        for e in range(1, self.last_epoch + 1):
            rate = rate * self.lr_lambda(e)
        return rate


class ReduceOnPlateau(LRScheduler):
    """Multiplies the rate by factor when the metric passed to step(metrics) has not improved
    (by threshold, relative or absolute) for more than patience epochs; then waits cooldown
    epochs. The rate never goes below min_lr, nor changes by less than epsilon."""
    _state_keys = ("cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr")

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode = str(mode).lower()
        if mode not in ("min", "max"):
            raise ArgValueError(f"ReduceOnPlateau: mode: {mode} is unknown! (use 'min' or "
                                "'max')")
        if factor >= 1.0:
            raise ArgValueError("ReduceOnPlateau: new_lr = origin_lr * factor and factor should "
                                f"be < 1.0, got {factor}")
        threshold_mode = str(threshold_mode).lower()
        if threshold_mode not in ("rel", "abs"):
            raise ArgValueError(f"ReduceOnPlateau: threshold mode: {threshold_mode} is unknown! "
                                "(use 'rel' or 'abs')")
        if not _is_number(learning_rate) or isinstance(learning_rate, bool):
            raise ArgTypeError("ReduceOnPlateau: The type of 'learning_rate' must be 'float', "
                               f"but received {type(learning_rate).__name__}.")
        self.mode, self.factor, self.threshold_mode = mode, factor, threshold_mode
        self.patience, self.threshold, self.cooldown = patience, threshold, cooldown
        self.min_lr, self.epsilon = min_lr, epsilon
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch = 0          # no step at construction: step() needs a metric
        self.verbose = verbose

    def step(self, metrics, epoch=None):
        """Records this epoch's metric (a number, or a one-element tensor or array) and
        reduces the rate when it has stalled."""
        from ..tensor import Tensor
        if isinstance(metrics, (Tensor, np.ndarray)):
            if metrics.size != 1:
                raise ArgValueError(
                    "ReduceOnPlateau.step: the size of metrics must be 1, but the current "
                    f"metrics.size is {metrics.size}. Fix: reduce it first (paddle.mean).")
            metrics = (metrics.numpy() if isinstance(metrics, Tensor) else metrics).reshape(())[()]
        elif not isinstance(metrics, (int, float, np.float32, np.float64)):
            raise ArgTypeError("ReduceOnPlateau.step: metrics must be 'int', 'float', "
                               "'np.float64', 'numpy.ndarray' or 'paddle.Tensor', but receive "
                               f"{type(metrics).__name__}")
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best, self.num_bad_epochs = metrics, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                self._say()

    def _is_better(self, current, best):
        rel = self.threshold_mode == "rel"
        if self.mode == "min":
            return current < (best - best * self.threshold if rel else best - self.threshold)
        return current > (best + best * self.threshold if rel else best + self.threshold)

    def get_lr(self):
        """The current rate (ReduceOnPlateau changes it only in step(metrics))."""
        return self.last_lr


class CosineAnnealingDecay(LRScheduler):
    """Anneals the rate from learning_rate to eta_min along a half cosine over T_max epochs
    (and back up, periodically), computed recursively from the last rate as Paddle does."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        _need_int(T_max, "CosineAnnealingDecay", "T_max")
        if not _is_number(eta_min) or isinstance(eta_min, bool):
            raise ArgTypeError("CosineAnnealingDecay: The type of 'eta_min' must be 'float, "
                               f"int', but received {type(eta_min).__name__}.")
        self.T_max, self.eta_min = T_max, float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """The next rate from last_lr (Paddle's recursive form)."""
        e, T = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - T) % (2 * T) == 0:      # the bottom of a period: climb back up
            return self.last_lr + (self.base_lr - self.eta_min) * (
                1 - math.cos(math.pi / T)) / 2
        return (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) * (
            self.last_lr - self.eta_min) + self.eta_min

    def _closed_form(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class OneCycleLR(LRScheduler):
    """The one-cycle policy: from max_learning_rate / divide_factor up to max_learning_rate
    over phase_pct of total_steps, then down to end_learning_rate (three_phase: back to the
    initial rate first), by cosine or linear annealing."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0,
                 end_learning_rate=0.0001, phase_pct=0.3, anneal_strategy="cos",
                 three_phase=False, last_epoch=-1, verbose=False):
        n = "OneCycleLR"
        for what, v in (("max_learning_rate", max_learning_rate),
                        ("end_learning_rate", end_learning_rate)):
            if not _is_number(v):
                raise ArgTypeError(f"{n}: '{what}' must be 'float' or 'int', but received "
                                   f"{type(v).__name__}")
            if v < 0:
                raise ArgValueError(f"{n}: '{what}' must be >= 0, got {v}")
        _need_int(total_steps, n, "total_steps")
        self.total_steps = total_steps
        if not isinstance(phase_pct, float):
            raise ArgTypeError(f"{n}: 'phase_pct' must be 'float', but received "
                               f"{type(phase_pct).__name__}")
        if not 0 <= phase_pct <= 1:
            raise ArgValueError(f"{n}: 'phase_pct' must be between 0 and 1, but received "
                                f"{phase_pct}")
        if not _is_number(divide_factor):
            raise ArgTypeError(f"{n}: 'divide_factor' must be 'float' or 'int', but received "
                               f"{type(divide_factor).__name__}")
        initial = max_learning_rate / float(divide_factor)
        last = self.total_steps - 1
        if three_phase:
            if phase_pct >= 0.5:
                raise ArgValueError(f"{n}: When three_phase is True, 'phase_pct' must be less "
                                    f"than 0.5, got {phase_pct}")
            ends = [0, phase_pct * total_steps - 1, 2 * phase_pct * total_steps - 2, last, last]
            self._lr_config = [initial, max_learning_rate, initial, float(end_learning_rate)]
        else:
            ends = [0, phase_pct * total_steps - 1, last, last]
            self._lr_config = [initial, max_learning_rate, float(end_learning_rate)]
        self._step_config = ends
        # the last phase repeats the length of the one before (Paddle's table)
        sizes = [b - a for a, b in zip(ends[:-2], ends[1:-1])]
        self._steps_size = sizes + [sizes[-1]]
        if anneal_strategy == "cos":
            self.anneal_func = self._cos_annealing
        elif anneal_strategy == "linear":
            self.anneal_func = self._linear_annealing
        else:
            raise ArgValueError(f"{n}: 'anneal_strategy' must be one of 'cos' or 'linear', "
                                f"but received {anneal_strategy!r}")
        super().__init__(initial, last_epoch, verbose)

    @staticmethod
    def _cos_annealing(start_lr, end_lr, pct):
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear_annealing(start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        """The rate of the phase last_epoch falls in."""
        step = self.last_epoch
        if step > self.total_steps:
            raise ArgValueError(f"OneCycleLR: Tried to step {step} times. However the number of "
                                f"total steps is {self.total_steps}")
        final = len(self._lr_config) - 2
        for i, (end, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if step <= end or i == final:
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1],
                                        (step - self._step_config[i]) / size)


class CyclicLR(LRScheduler):
    """Cycles the rate between base_learning_rate and max_learning_rate (step_size_up epochs
    up, step_size_down down), the amplitude scaled by mode ('triangular', 'triangular2',
    'exp_range' with exp_gamma) or by scale_fn of the cycle or iteration (scale_mode)."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode="triangular", exp_gamma=1.0, scale_fn=None, scale_mode="cycle",
                 last_epoch=-1, verbose=False):
        n = "CyclicLR"
        if not _is_number(max_learning_rate):
            raise ArgTypeError(f"{n}: 'max_learning_rate' must be 'float' or 'int', but "
                               f"received {type(max_learning_rate).__name__}")
        if max_learning_rate < 0:
            raise ArgValueError(f"{n}: 'max_learning_rate' must be >= 0, but received "
                                f"{max_learning_rate}")
        _need_int(step_size_up, n, "step_size_up")
        if step_size_down is not None:
            _need_int(step_size_down, n, "step_size_down")
        if not isinstance(exp_gamma, float):
            raise ArgTypeError(f"{n}: The type of 'exp_gamma' must be float, but received "
                               f"{type(exp_gamma).__name__}")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ArgValueError(f"{n}: 'mode' is invalid and 'scale_fn' is not specified, make "
                                "sure one of 'mode' or 'scale_fn' is valid")
        if scale_mode not in ("cycle", "iterations"):
            raise ArgValueError(f"{n}: 'scale_mode' must be one of 'cycle' or 'iterations'")
        self.mode, self.gamma = mode, exp_gamma
        if scale_fn is None:
            self.scale_fn = {"triangular": self._triangular_scale_fn,
                             "triangular2": self._triangular2_scale_fn,
                             "exp_range": self._exp_range_scale_fn}[mode]
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        else:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(base_learning_rate, last_epoch, verbose)

    def _triangular_scale_fn(self, x):
        return 1.0

    def _triangular2_scale_fn(self, x):
        return 1 / 2.0 ** (x - 1)

    def _exp_range_scale_fn(self, x):
        return self.gamma ** x

    def get_lr(self):
        """The cyclic rate at last_epoch."""
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale = pct / self.step_up_pct
        else:
            scale = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else iterations
        return self.base_lr + self.amplitude * scale * self.scale_fn(x)


class LinearLR(LRScheduler):
    """Scales the rate linearly from start_factor to end_factor over total_steps epochs
    (recursively from the last rate, as Paddle does)."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0,
                 last_epoch=-1, verbose=False):
        if start_factor > 1.0 or start_factor <= 0:
            raise ArgValueError("LinearLR: `start_factor` must be greater than 0 and less or "
                                f"equal to 1, but got {start_factor}")
        if end_factor > 1.0 or end_factor < 0:
            raise ArgValueError("LinearLR: `end_factor` must be greater than 0 and less than "
                                f"1, but got {end_factor}")
        if total_steps <= 0:
            raise ArgValueError(f"LinearLR: `total_steps` must be greater than 0, but got "
                                f"{total_steps}")
        self.start_factor, self.end_factor, self.total_steps = \
            start_factor, end_factor, total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """The next rate from last_lr."""
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        span = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + span / (self.total_steps * self.start_factor
                                             + (self.last_epoch - 1) * span))


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from learning_rate to eta_min over T_0 epochs, restarting each time,
    every period T_mult times longer than the one before (SGDR)."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ArgValueError(f"CosineAnnealingWarmRestarts: Expected positive integer T_0, "
                                f"but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ArgValueError("CosineAnnealingWarmRestarts: Expected integer T_mult >= 1, "
                                f"but got {T_mult}")
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        """The rate at T_cur epochs into the current period of T_i."""
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        """Advances one epoch (restarting at the end of a period), or jumps to `epoch`."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ArgValueError(f"CosineAnnealingWarmRestarts: Expected non-negative epoch, but "
                                f"got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:               # which period the epoch falls in, from the geometric sum
                k = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** k - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** k
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        self._say()

