"""Adamax, NAdam, RAdam, ASGD and Rprop with Paddle 3.3.1's arguments and update rules."""
# Note [Paddle Adam relatives]
# Paddle's Adamax, NAdam and RAdam kernels compute what PyTorch's do except where noted
# here, so the Paddle classes are the core classes of oar.optim with `_paddle = True` (one
# implementation, a switch for each real difference): the first moment is Paddle's
# beta1 m + (1 - beta1) g (PyTorch lerps), Adamax adds epsilon to the decayed norm
# (max(|g|, beta2 u + eps); PyTorch: max(beta2 u, |g| + eps)), NAdam keeps mu_product in
# the parameter's dtype (PyTorch: float32), the float hyper-parameters are rounded to
# float32 as Paddle passes them to its kernels (Note [Paddle float hyper-parameters]),
# weight_decay (a float or L2Decay) is L2 added to the clipped gradient, and each step
# writes a parameter once (Note [Optimizer version bumps]). Paddle's ASGD is not
# PyTorch's (it averages the last batch_num gradients: stochastic average gradient) and
# its Rprop takes its own arguments (learning_rate_range, no weight decay), so those two
# are their own classes here; Rprop's update (rprop_move) is the torch door's too.
from __future__ import annotations

import numpy as np

from .. import optim as _optim
from ..autograd.errors import ArgTypeError, ArgValueError
from ..autograd import saved as _saved
from ..autograd.inplace import bump
from ..tensor import wrap_as
from . import Optimizer, _AdaptiveBase, _iterable, _wd, lr

__all__ = ["Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS"]


def _f32(x):
    return float(np.float32(x))


def _need_set(name, **values):
    for what, v in values.items():
        if v is None:
            raise ArgValueError(f"{name}: {what} is not set.")


class _PaddleAdamRelative:
    """The Paddle switches of Note [Paddle Adam relatives], mixed into oar.optim's classes."""
    _paddle = True
    _scalar_state: dict = {}
    _round = True              # Adamax rounds in its update (its beta1^t uses the raw beta1)

    def _check_hyper(self, group):
        # a Paddle parameter group names its own beta1 / beta2 / epsilon
        b1, b2 = group["betas"]
        group["betas"] = (group.pop("beta1", b1), group.pop("beta2", b2))
        if "epsilon" in group:
            group["eps"] = group.pop("epsilon")
        super()._check_hyper(group)
        if not self._round:
            return
        group["betas"] = tuple(_f32(b) for b in group["betas"])
        for k in ("eps", "momentum_decay"):
            if k in group:
                group[k] = _f32(group[k])

    def _writes_per_step(self, group):
        return 1

    def _state_shape(self, key, p, group):
        # NAdam's mu_product: a 0-d tensor of the parameter's dtype
        return () if key == "mu_product" else p._data.shape


def _paddle_groups(self, parameters, **defaults):
    Optimizer.__init__(self, parameters, dict(defaults, maximize=False))


class Adamax(_PaddleAdamRelative, _optim.Adamax):
    """Adamax (Paddle's arguments): m = beta1 m + (1 - beta1) g, u = max(|g|, beta2 u +
    epsilon), p -= learning_rate / (1 - beta1^t) * m / u."""
    _round = False

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        _need_set("Adamax", learning_rate=learning_rate, beta1=beta1, beta2=beta2,
                  epsilon=epsilon)
        _paddle_groups(self, parameters, lr=learning_rate, betas=(beta1, beta2), eps=epsilon,
                       weight_decay=_wd(weight_decay))


class NAdam(_PaddleAdamRelative, _optim.NAdam):
    """NAdam (Paddle's arguments): Adam with Nesterov momentum whose factor follows
    mu_t = beta1 (1 - 0.5 * 0.96^(t momentum_decay))."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        _paddle_groups(self, parameters, lr=learning_rate, betas=(beta1, beta2), eps=epsilon,
                       momentum_decay=momentum_decay, weight_decay=_wd(weight_decay))


class RAdam(_PaddleAdamRelative, _optim.RAdam):
    """RAdam (Paddle's arguments): Adam whose adaptive term is rectified by the variance of
    its estimate; momentum SGD with bias correction while rho_t <= 5."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        _paddle_groups(self, parameters, lr=learning_rate, betas=(beta1, beta2), eps=epsilon,
                       weight_decay=_wd(weight_decay))


class ASGD(_AdaptiveBase):
    """ASGD (Paddle's): stochastic average gradient. Each parameter keeps its last batch_num
    gradients (y) and their sum (d); a step replaces the oldest with the new gradient and
    moves p -= learning_rate / min(t, batch_num) * d."""

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        _need_set("ASGD", learning_rate=learning_rate, batch_num=batch_num)
        if isinstance(batch_num, bool) or not isinstance(batch_num, (int, np.integer)):
            raise ArgTypeError(f"ASGD: batch_num must be an int, got {type(batch_num).__name__}")
        if not batch_num > 0:
            raise ArgValueError(f"ASGD: batch_num should be greater than 0, got {batch_num}")
        super().__init__(parameters, dict(lr=learning_rate, batch_num=int(batch_num),
                                          weight_decay=_wd(weight_decay)))

    def _state_shape(self, key, p, group):
        return (group["batch_num"],) + p._data.shape if key == "y" else p._data.shape

    def _update(self, p, g, rate, group):
        n = group["batch_num"]
        st = self._state_of(p)
        if "d" not in st:
            st["d"] = wrap_as(p._result_class, np.zeros_like(p._data))
            st["y"] = wrap_as(p._result_class, np.zeros((n,) + p._data.shape, p._data.dtype))
        slot = self._step_value(st) % n          # the oldest remembered gradient
        t = self._tick(st)
        g = self._grad(p, g, group, st)
        d, y = st["d"]._data, st["y"]._data[slot]
        d -= y                                   # d <- d - y_old + g; y_old <- g
        d += g
        np.copyto(y, g)
        s = self._scratch(p)
        np.multiply(d, p._data.dtype.type(rate) / p._data.dtype.type(min(t, n)), out=s)
        p._data -= s


class Rprop(_AdaptiveBase):
    """Rprop (Paddle's): each element has its own rate (starting at learning_rate) that
    grows by etas[1] while its gradient keeps its sign and shrinks by etas[0] when the sign
    flips, within learning_rate_range; p -= sign(g) * rate, and after a flip the element
    stays put and forgets its gradient."""

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-05, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision=False, name=None):
        _need_set("Rprop", learning_rate=learning_rate)
        for what, pair in (("learning_rate_range", learning_rate_range), ("etas", etas)):
            if not _iterable(pair) or len(tuple(pair)) != 2:
                raise ArgTypeError(f"Rprop: {what} must be a pair of numbers, got {pair!r}")
        lo, hi = learning_rate_range
        if isinstance(learning_rate, lr.LRScheduler) or not 0.0 < lo <= learning_rate <= hi:
            raise ArgValueError("Rprop: '0.0 < learning_rate_range[0] <= learning_rate <= "
                                "learning_rate_range[1]' must be true, got learning_rate="
                                f"{learning_rate!r}, learning_rate_range={learning_rate_range}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ArgValueError(f"Rprop: '0.0 < etas[0] < 1.0 < etas[1]' must be true, got "
                                f"etas={etas}")
        super().__init__(parameters, dict(lr=learning_rate, weight_decay=0.0,
                                          learning_rate_range=tuple(learning_rate_range),
                                          etas=tuple(etas)))

    def _update(self, p, g, rate, group):
        st = self._state_of(p)
        if "prev" not in st:                     # the rates start at the initial rate
            st["prev"] = wrap_as(p._result_class, np.zeros_like(p._data))
            st["learning_rates"] = wrap_as(p._result_class,
                                           np.full_like(p._data, p._data.dtype.type(rate)))
        self._tick(st)
        rprop_move(p._data, g, st["prev"]._data, st["learning_rates"]._data,
                   group["etas"], group["learning_rate_range"],
                   (self._scratch(p), self._scratch(p, "f")))


def rprop_move(x, g, prev, rates, etas, bounds, scratch):
    """One Rprop update, in place, of the arrays x (the parameter), prev (the last
    gradient) and rates (the per-element step lengths) from the gradient g: both doors'
    Rprop (PyTorch's Rprop and Paddle's compute the same, each op rounding once, so both
    agree with their framework bit for bit). Each rate grows by etas[1] where g keeps
    prev's sign, shrinks by etas[0] where it flips, stays where either is zero, then is
    kept within bounds; where the sign flipped the element stays put and prev forgets
    the gradient (so the next step neither grows nor shrinks it); elsewhere
    x -= sign(g) * rate. scratch: two arrays like x."""
    dt = x.dtype.type
    shrink, grow = dt(etas[0]), dt(etas[1])
    agree, factor = scratch
    np.multiply(g, prev, out=agree)
    np.sign(agree, out=factor)          # mapped in this order, as torch does: a NaN stays
    factor[factor > 0] = grow           # (grow and shrink are positive: no mask catches
    factor[factor < 0] = shrink         # a value written by an earlier one)
    factor[factor == 0] = 1
    rates *= factor
    np.clip(rates, dt(bounds[0]), dt(bounds[1]), out=rates)
    np.copyto(prev, g)
    prev[factor == shrink] = 0
    np.sign(prev, out=agree)
    agree *= rates
    x -= agree



_PADDLE_LBFGS_KEYS = {"t": "alpha", "old_dirs": "old_yk", "old_stps": "old_sk", "ro": "ro"}


class LBFGS(Optimizer):
    """L-BFGS (Paddle's arguments); step(closure) needs the closure (which clears the
    gradients, computes the loss, calls backward and returns the loss). Up to max_iter
    quasi-Newton iterations per step, with line_search_fn='strong_wolfe' or fixed steps of
    learning_rate. The iteration is the core's (Note [One L-BFGS]); the state is one dict,
    as Paddle's, and state_dict() returns {'state': it}."""

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-07,
                 tolerance_change=1e-09, history_size=100, line_search_fn=None,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(parameters, dict(
            lr=learning_rate, max_iter=max_iter, max_eval=max_eval,
            tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
            history_size=history_size, line_search_fn=line_search_fn))
        self.learning_rate, self.max_iter, self.max_eval = learning_rate, max_iter, max_eval
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size, self.line_search_fn = history_size, line_search_fn
        self.state = {}
        self._params = self.param_groups[-1]["params"]   # Paddle: the last group's

    # the parameters as one flat vector (Note [One L-BFGS]) ------------------------
    def _flat_grad(self):
        ps = self._params
        return wrap_as(ps[0]._result_class, np.concatenate([
            np.zeros(p._data.size, p._data.dtype) if p._grad is None
            else p._grad._data.reshape(-1) for p in ps]))

    def _write(self, p, value):
        _saved.before_write(p)        # Note [Mutation of saved tensors allowed]
        np.copyto(p._data, value)
        bump(p, "LBFGS.step")

    def _move_by(self, t, direction):
        start = 0
        for p in self._params:
            n = p._data.size
            self._write(p, (p + direction[start:start + n].reshape(p.shape) * t)._data)
            start += n

    def _loss_and_grad_at(self, evaluate, origin, t, direction):
        self._move_by(t, direction)
        loss = float(evaluate())
        grad = self._flat_grad()
        for p, saved in zip(self._params, origin):
            self._write(p, saved._data)
        return loss, grad

    def step(self, closure):
        """Runs the L-BFGS iterations, calling closure() for every evaluation; returns the
        first loss."""
        from ..autograd import grad_mode
        from . import _lbfgs

        def evaluate():
            with grad_mode.enable_grad():
                return closure()

        def first_scale(grad):        # Paddle starts H_diag as a 0-d tensor of 1
            return wrap_as(grad._result_class, np.ones((), grad._data.dtype))

        with grad_mode.no_grad():
            return _lbfgs.iterate(self, evaluate, self.param_groups[-1], self.state,
                                  keys=_PADDLE_LBFGS_KEYS, budget=lambda evals: 25,
                                  first_scale=first_scale)

    def state_dict(self):
        """{'state': the iteration's state} (Paddle's layout)."""
        return {"state": dict(self.state)}

    def set_state_dict(self, state_dict):
        """Restores what state_dict() returned."""
        if not isinstance(state_dict, dict) or not isinstance(state_dict.get("state"), dict):
            raise ArgTypeError("LBFGS.set_state_dict: expected {'state': {...}} as "
                               "state_dict() returns")
        self.state = dict(state_dict["state"])

    load_state_dict = set_state_dict

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Not available: L-BFGS needs step(closure)."""
        raise NotImplementedError("LBFGS optimizer does not use this way to minimize loss. "
                                  "Use opt.step(closure) (the closure computes the loss and "
                                  "calls backward).")
