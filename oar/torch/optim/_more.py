"""Rprop, ASGD, Adafactor and LBFGS of the torch door.

Unlike the core optimizers, these have no kernel of their own: each update is a sequence of
torch-door tensor ops chosen to be the sequence torch 2.13 performs on the CPU with
foreach=None. The same ops in the same order round the same way, so parameters, state (its
keys, their order, the dtypes) and parameter versions come out as torch's. That is also why
they make their temporaries afresh each step instead of reusing buffers (Note [Optimizer steps
do not allocate] is for the core optimizers): fusing two ops would change the rounding.

Rprop, ASGD and Adafactor move each parameter on its own, so they share one step loop
(_PerParameterOptimizer.step) and each says only how its state starts and how one parameter
moves. LBFGS treats all parameters as one flat vector; its strong-Wolfe line search is at the
end of the file."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...autograd.errors import ArgValueError
from ...autograd.inplace import bump
from ...tensor import wrap_as
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Rprop", "ASGD", "LBFGS", "Adafactor"]


def _torch():
    # oar.torch is still being built while it imports this module: find it at call time
    from ... import torch
    return torch


# ------------------------------------------------------------------------ shared pieces
def _float32_scalar(value):
    """A 0-d float32 tensor: the type torch gives the counters it keeps in the state
    ("step", ASGD's "eta" and "mu"), whatever the parameters' dtype."""
    return wrap_as(Tensor, np.asarray(value, np.float32))


def _number(x):
    """A hyper-parameter as a Python number (lr may be a one-element tensor)."""
    return x.item() if isinstance(x, Tensor) else x


def _advance_step(state):
    """Adds one to the state's step counter (in place: the tensor object stays the one a
    program may hold) and returns the new count as a float."""
    state["step"] += 1
    return state["step"].item()


def _lerp_(t, end, weight):
    """t moves toward end by weight, in place. torch's CPU kernel picks its formula by the
    size of the weight; oar.optim._lerp is that kernel, so the rounding is torch's. One
    version bump, as one in-place op."""
    from ...optim import _lerp
    _lerp(t._data, end._data, weight, np.empty_like(t._data))
    bump(t, "lerp_")


def _inner(a, b):
    """The inner product of two flat tensors, as a 0-d tensor."""
    return a @ b


def _refuse_bad_lr(lr, message="Invalid learning rate: {}"):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ArgValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:            # written so that NaN is refused too
        raise ArgValueError(message.format(lr))


class _ChecksInConstructor(Optimizer):
    """An optimizer whose constructor checks its hyper-parameters with torch's messages.
    The core's per-group checks (oar.optimizer) would also rewrite values (lr to a float,
    ...), which these updates must see exactly as given, so they are switched off."""

    def _check_hyper(self, group):
        pass


class _PerParameterOptimizer(_ChecksInConstructor):
    """The step loop of an optimizer that moves every parameter from its own gradient and
    state: a subclass supplies _start_state (the state's entries, in torch's order) and
    _move (one parameter's update, given the gradient already negated for maximize)."""

    def step(self, closure=None):
        """One step for every parameter that has a gradient. closure, when given, is called
        first (with gradients enabled) to re-evaluate the model; its loss is returned."""
        torch = _torch()
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        self._start_state(state, p, group, torch)
                    grad = -p.grad if group["maximize"] else p.grad
                    self._move(p, grad, state, group, torch)
        return loss

    def _start_state(self, state, p, group, torch):
        raise NotImplementedError

    def _move(self, p, grad, state, group, torch):
        raise NotImplementedError


# ------------------------------------------------------------------------------- Rprop
def _rprop_factors(agreement, shrink, grow):
    """Per element of agreement (gradient times previous gradient): grow where it is
    positive (the same sign twice), shrink where negative (the sign flipped), 1 where either
    gradient is zero. Each mask is read after the previous write, which is safe only because
    grow and shrink are both positive: neither value is caught by a later mask."""
    factor = agreement.sign()
    factor[factor.gt(0)] = grow
    factor[factor.lt(0)] = shrink
    factor[factor.eq(0)] = 1
    return factor


class Rprop(_PerParameterOptimizer):
    """torch.optim.Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
    capturable=False, foreach=None, maximize=False, differentiable=False).

    Each element has its own step length (state "step_size", starting at lr): it grows by
    etas[1] while the gradient keeps its sign and shrinks by etas[0] when the sign flips,
    within step_sizes. Only the gradient's sign decides the direction."""
    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                          "capturable": False}

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _refuse_bad_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ArgValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable, "capturable": capturable})

    def _start_state(self, state, p, group, torch):
        state["step"] = _float32_scalar(0.0)
        state["prev"] = torch.zeros_like(p)
        state["step_size"] = torch.full_like(p.grad, _number(group["lr"]))

    def _move(self, p, grad, state, group, torch):
        shrink, grow = group["etas"]
        shortest, longest = group["step_sizes"]
        _advance_step(state)
        prev, step_size = state["prev"], state["step_size"]
        factor = _rprop_factors(grad.mul(prev), shrink, grow)
        step_size.mul_(factor).clamp_(shortest, longest)
        # where the sign flipped, the last move jumped over a minimum: this step leaves the
        # element where it is, and remembering a zero gradient there means the next step
        # neither grows nor shrinks its length
        grad = grad.clone()
        grad[factor.eq(shrink)] = 0
        # sign * length is exact, so subtracting it rounds as torch's
        # p.addcmul_(sign, length, value=-1) does
        p.sub_(grad.sign().mul(step_size))
        prev.copy_(grad)


# -------------------------------------------------------------------------------- ASGD
class ASGD(_PerParameterOptimizer):
    """torch.optim.ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
    foreach=None, maximize=False, differentiable=False, capturable=False).

    SGD with a decaying rate (state "eta") whose iterates are averaged from step t0 on
    (state "ax", the average; "mu", the weight of the newest iterate in it)."""
    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                          "capturable": False}
    _scalar_tensors = ("eta", "mu")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _refuse_bad_lr(lr)
        if not 0.0 <= weight_decay:
            raise ArgValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _start_state(self, state, p, group, torch):
        state["step"] = _float32_scalar(0.0)
        state["eta"] = _float32_scalar(_number(group["lr"]))
        state["mu"] = _float32_scalar(1.0)
        state["ax"] = torch.zeros_like(p)

    def _move(self, p, grad, state, group, torch):
        lr, lambd, weight_decay = _number(group["lr"]), group["lambd"], group["weight_decay"]
        eta, mu, average = state["eta"], state["mu"], state["ax"]
        step = _advance_step(state)
        if weight_decay != 0:
            grad = grad.add(p, alpha=weight_decay)
        rate = eta.item()
        p.mul_(1 - lambd * rate)        # the lambd term pulls the parameter toward zero
        p.add_(grad, alpha=-rate)
        if mu.item() != 1:
            average.add_(p.sub(average).mul_(mu))
        else:
            average.copy_(p)            # before t0 the "average" is the latest iterate
        # the next step's rate and averaging weight; each rounds to float32 once, on the copy
        eta.copy_(torch.as_tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])))
        mu.copy_(torch.as_tensor(1 / max(1, step - group["t0"])))


# --------------------------------------------------------------------------- Adafactor
def _with_unit_axis(shape, axis):
    shape = list(shape)
    shape[axis] = 1
    return shape


def _mean_square(grad, dim):
    """The mean of grad**2 along dim (kept), computed as torch does it here: the norm,
    squared, divided by the length. (grad * grad).mean() would round differently."""
    torch = _torch()
    return torch.norm(grad, dim=dim, keepdim=True).square_().div_(grad.size(dim))


def _factored_second_moment(grad, row_var, col_var, weight, eps1):
    """Moves the running row means and column means of grad**2 toward this step's (in
    place) and returns the full second-moment estimate they stand for: the outer product
    row_var @ col_var over the mean of row_var (kept at least eps1)."""
    _lerp_(row_var, _mean_square(grad, -1), weight)
    _lerp_(col_var, _mean_square(grad, -2), weight)
    estimate = row_var @ col_var
    estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
    return estimate


class Adafactor(_PerParameterOptimizer):
    """torch.optim.Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
    weight_decay=0.0, *, foreach=None, maximize=False).

    An Adam-like step without a first moment whose second moment, for a parameter of two or
    more dimensions, is kept factored (row and column means over the last two axes) to save
    memory. The step is relative to the parameter's root mean square and the update's root
    mean square is clipped to d."""
    _setstate_defaults = {"foreach": None}

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        _refuse_bad_lr(lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 >= beta2_decay:
            raise ArgValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ArgValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ArgValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ArgValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ArgValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize})

    def _start_state(self, state, p, group, torch):
        state["step"] = _float32_scalar(0.0)
        g = p.grad
        if g.dim() > 1:
            state["row_var"] = g.new_zeros(_with_unit_axis(g.shape, -1))
            state["col_var"] = g.new_zeros(_with_unit_axis(g.shape, -2))
        else:
            state["variance"] = torch.zeros_like(g)

    def _move(self, p, grad, state, group, torch):
        eps1, eps2 = group["eps"]
        if eps1 is None:                # the default floor: the dtype's machine epsilon
            eps1 = float(np.finfo(p._data.dtype).eps)
        lr, weight_decay = _number(group["lr"]), group["weight_decay"]
        step = _advance_step(state)
        new_weight = step ** group["beta2_decay"]       # 1 - beta2 at this step
        relative_lr = min(lr, 1 / (step ** 0.5))
        # the step length scales with the parameter's RMS (at least eps2), taken before
        # the weight decay below
        step_length = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * relative_lr
        if weight_decay != 0:
            p.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            estimate = _factored_second_moment(grad, state["row_var"], state["col_var"],
                                               new_weight, eps1)
        else:
            variance = state["variance"]
            _lerp_(variance, grad * grad, new_weight)
            estimate = variance.clone()
        update = estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        over_d = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
        p.add_(update, alpha=-step_length / over_d)


# ------------------------------------------------------------------------------- LBFGS
def _remember_curvature(y, s, dirs, stps, ro, H_diag, history_size):
    """Keeps the last step's pair (s: the step, y: the change of gradient) when its
    curvature y.s is safely positive (a pair without it would make the inverse-Hessian
    estimate indefinite), dropping the oldest pair when the history is full. Returns the
    initial inverse-Hessian scale, y.s / y.y of the newest kept pair."""
    ys = _inner(y, s)
    if ys > 1e-10:
        if len(dirs) == history_size:
            dirs.pop(0)
            stps.pop(0)
            ro.pop(0)
        dirs.append(y)
        stps.append(s)
        ro.append(1.0 / ys)
        H_diag = ys / _inner(y, y)
    return H_diag


def _two_loop_direction(grad, dirs, stps, ro, H_diag, al):
    """The quasi-Newton direction -H grad, H the inverse Hessian the stored pairs imply,
    by the two-loop recursion: newest pair to oldest, scale, oldest to newest. al is the
    per-pair coefficient list kept in the state (torch keeps it there too)."""
    q = grad.neg()
    for i in reversed(range(len(dirs))):
        al[i] = _inner(stps[i], q) * ro[i]
        q.add_(dirs[i], alpha=-al[i])
    r = _torch().mul(q, H_diag)
    for i in range(len(dirs)):
        be_i = _inner(dirs[i], r) * ro[i]
        r.add_(stps[i], alpha=al[i] - be_i)
    return r


class LBFGS(_ChecksInConstructor):
    """torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None); step(closure) needs the
    closure. One parameter group only; its state lives under the first parameter."""
    _has_step = False

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _refuse_bad_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad,
                                  "tolerance_change": tolerance_change,
                                  "history_size": history_size,
                                  "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ArgValueError("LBFGS doesn't support per-parameter options (parameter "
                                "groups)")
        self._params = self.param_groups[0]["params"]

    def __setstate__(self, state):
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]

    # the parameters as one flat vector ------------------------------------------
    def _flat_grad(self):
        """Every parameter's gradient flattened and joined, zeros for one without."""
        return _torch().cat([p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1)
                             for p in self._params], 0)

    def _move_by(self, t, direction):
        """Adds t * direction to the parameters, each taking its slice of the flat vector."""
        start = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[start:start + n].view_as(p), alpha=t)
            start += n

    def _loss_and_grad_at(self, evaluate, origin, t, direction):
        """The loss and flat gradient at origin + t * direction; the parameters (which are
        at origin) are put back afterwards."""
        self._move_by(t, direction)
        loss = float(evaluate())
        grad = self._flat_grad()
        for p, saved in zip(self._params, origin):
            p.copy_(saved)
        return loss, grad

    def step(self, closure):
        """Up to max_iter L-BFGS iterations, calling closure() (which must zero the
        gradients, compute the loss, call backward and return the loss) for every
        evaluation; returns the loss of the first."""
        torch = _torch()

        def evaluate():
            # the step runs under no_grad; the closure needs gradients
            with torch.enable_grad():
                return closure()

        with torch.no_grad():
            return self._iterate(evaluate)

    def _iterate(self, evaluate):
        group = self.param_groups[0]
        lr = _number(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = evaluate()
        loss = float(first_loss)
        evals = 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if grad.abs().max() <= tolerance_grad:        # already stationary
            return first_loss

        # where the previous call stopped (None before the first)
        d, t = state.get("d"), state.get("t")
        dirs, stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        small_grad = False
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:                  # the very first iteration: no history
                d = grad.neg()
                dirs, stps, ro = [], [], []
                H_diag = 1
            else:
                H_diag = _remember_curvature(grad.sub(prev_grad), d.mul(t), dirs, stps, ro,
                                             H_diag, group["history_size"])
                if "al" not in state:
                    state["al"] = [None] * group["history_size"]
                d = _two_loop_direction(grad, dirs, stps, ro, H_diag, state["al"])
            if prev_grad is None:
                prev_grad = grad.clone()
            else:
                prev_grad.copy_(grad)
            prev_loss = loss
            # with no curvature known yet, the first step moves at most lr (in the L1 norm)
            t = min(1.0, 1.0 / grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = _inner(grad, d)                     # the slope along d
            if gtd > -tolerance_change:               # d no longer descends
                break

            used = 0
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                origin = [p.clone() for p in self._params]

                def loss_and_grad_at(step_length):
                    return self._loss_and_grad_at(evaluate, origin, step_length, d)

                loss, grad, t, used = _strong_wolfe_search(
                    loss_and_grad_at, d, t, loss, grad, gtd, budget=max_eval - evals)
                self._move_by(t, d)
                small_grad = grad.abs().max() <= tolerance_grad
            else:
                self._move_by(t, d)
                if n_iter != max_iter:                # the last iteration's loss goes unused
                    loss = float(evaluate())
                    grad = self._flat_grad()
                    small_grad = grad.abs().max() <= tolerance_grad
                    used = 1
            evals += used
            state["func_evals"] += used

            if n_iter == max_iter or evals >= max_eval or small_grad:
                break
            if d.mul(t).abs().max() <= tolerance_change:    # the step no longer moves
                break
            if abs(loss - prev_loss) < tolerance_change:     # the loss no longer moves
                break

        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = dirs, stps, ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"], state["prev_loss"] = prev_grad, prev_loss
        return first_loss


# ----------------------------------------------------------- the strong-Wolfe line search
# One evaluated point along the search direction: the step length t, the loss f, the flat
# gradient g and the slope gtd = g.d. A point's gradient is a fresh tensor that nothing
# writes into, so points may be shared between the bracket's two ends.
_Point = namedtuple("_Point", "t f g gtd")

_SUFFICIENT_DECREASE = 1e-4     # c1: f(t) <= f(0) + c1 t f'(0)
_CURVATURE = 0.9                # c2: |f'(t)| <= c2 |f'(0)|
# the search's own tolerance: torch's LBFGS does not pass the group's tolerance_change to it
_INTERVAL_TOLERANCE = 1e-9


def _cubic_minimizer(a, b, bounds=None):
    """The minimizer of the cubic that matches the losses and slopes of points a and b,
    kept within bounds (by default the interval between them); the middle of the bounds
    when that cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((a.t, b.t) if a.t <= b.t else (b.t, a.t))
    d1 = a.gtd + b.gtd - 3 * (a.f - b.f) / (a.t - b.t)
    d2_square = d1 ** 2 - a.gtd * b.gtd
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        right, left = (b, a) if a.t <= b.t else (a, b)
        x = right.t - (right.t - left.t) * ((right.gtd + d2 - d1)
                                            / (right.gtd - left.gtd + 2 * d2))
        return min(max(x, lo), hi)
    return (lo + hi) / 2.0


def _safeguarded(t, lo, hi, was_close):
    """The zoom's guard against creeping: a trial within a tenth of the interval of one of
    its ends gains little. Once, strictly inside, that is allowed (and remembered); a second
    time in a row, or a trial on or beyond an end, is moved a tenth inside the nearer end.
    Returns the trial and whether it was allowed that once."""
    margin = 0.1 * (hi - lo)
    if min(hi - t, t - lo) < margin:
        if was_close or t >= hi or t <= lo:
            t = hi - margin if abs(t - hi) < abs(t - lo) else lo + margin
            return t, False
        return t, True
    return t, False


def _strong_wolfe_search(loss_and_grad_at, d, t, f, g, gtd, budget=25):
    """A step length along d that satisfies the strong Wolfe conditions (enough decrease,
    a slope flattened enough), starting from the trial t, from the point at 0 with loss f,
    gradient g and slope gtd, with at most budget trials after the first. First longer
    trials until an interval must hold such a step, then that interval shrinks ("zoom").
    Returns (loss, flat gradient, step length, evaluations)."""
    if budget < 0:
        # torch 2.13 fails here too, with this class (its search reads a bracket it never
        # set up)
        raise UnboundLocalError(
            f"LBFGS: the strong_wolfe line search was given a budget of {budget} "
            "evaluations (max_eval is below the evaluations this step already made); "
            "fix: make max_eval at least 1")
    d_norm = d.abs().max()
    evals = 0

    def at(step_length):
        nonlocal evals
        f_new, g_new = loss_and_grad_at(step_length)
        evals += 1
        return _Point(step_length, f_new, g_new, _inner(g_new, d))

    def too_little_decrease(p):
        # written as a ">" so that a NaN loss does not count as too little
        return p.f > f + _SUFFICIENT_DECREASE * p.t * gtd

    def flat_enough(p):
        return abs(p.gtd) <= -_CURVATURE * gtd

    start = _Point(0, f, g, gtd)
    prev, new = start, at(t)
    trials = 0
    ends = None
    while trials < budget:
        if too_little_decrease(new) or (trials > 1 and new.f >= prev.f):
            ends = [prev, new]                  # too far: a good step lies before new
            break
        if flat_enough(new):
            return new.f, new.g, new.t, evals
        if new.gtd >= 0:
            ends = [prev, new]                  # the slope turned: a minimum lies between
            break
        # still going down steeply: extrapolate, at least a little further, at most 10x
        step_length = _cubic_minimizer(prev, new,
                                       bounds=(new.t + 0.01 * (new.t - prev.t), new.t * 10))
        prev, new = new, at(step_length)
        trials += 1
    if ends is None:                            # out of trials: the better of 0 and new
        best = start if start.f <= new.f else new
        return best.f, best.g, best.t, evals

    # zoom: ends[low] is the better end (the lower loss), ends[high] the other
    low, high = (0, 1) if ends[0].f <= ends[1].f else (1, 0)
    was_close = False
    while trials < budget:
        if abs(ends[1].t - ends[0].t) * d_norm < _INTERVAL_TOLERANCE:
            break
        step_length = _cubic_minimizer(ends[0], ends[1])
        step_length, was_close = _safeguarded(step_length, min(ends[0].t, ends[1].t),
                                              max(ends[0].t, ends[1].t), was_close)
        new = at(step_length)
        trials += 1
        if too_little_decrease(new) or new.f >= ends[low].f:
            ends[high] = new                    # new is worse: it bounds the far side
            low, high = (0, 1) if ends[0].f <= ends[1].f else (1, 0)
            continue
        done = flat_enough(new)
        if not done and new.gtd * (ends[high].t - ends[low].t) >= 0:
            ends[high] = ends[low]              # the slope points away from high: flip
        ends[low] = new
        if done:
            break
    best = ends[low]
    return best.f, best.g, best.t, evals
