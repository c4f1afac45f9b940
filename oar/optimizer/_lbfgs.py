"""L-BFGS, one implementation for both doors: the iteration of torch.optim.LBFGS (which
paddle.optimizer.LBFGS ports) and its strong-Wolfe line search."""
# Note [One L-BFGS]
# The optimizer classes (oar.torch.optim.LBFGS, oar.optimizer.LBFGS) say only how the
# parameters look as one flat vector (_flat_grad, _move_by, _loss_and_grad_at) and where
# the state lives; iterate() runs the same tensor ops in the same order on that door's
# tensors, so each door rounds as its framework does. The real differences are
# parameters: the state's key names (PyTorch's "t", "old_dirs", "old_stps"; Paddle's
# "alpha", "old_yk", "old_sk"), the first inverse-Hessian scale (PyTorch the int 1, Paddle
# a 0-d tensor of 1) and the line search's budget (PyTorch max_eval minus the evaluations
# made so far, Paddle always 25). Paddle's inner product is (a * b).sum(-1), PyTorch's
# a @ b; both are a @ b here (Paddle's float32 sums round their own way either way).
from __future__ import annotations

from collections import namedtuple

from ..autograd.errors import ArgValueError
from ..tensor import Tensor

TORCH_KEYS = {"t": "t", "old_dirs": "old_dirs", "old_stps": "old_stps", "ro": "ro"}


def _number(x):
    """A hyper-parameter as a Python number (lr may be a one-element tensor)."""
    return x.item() if isinstance(x, Tensor) else x


def _inner(a, b):
    """The inner product of two flat tensors, as a 0-d tensor."""
    return a @ b


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
    r = q.mul(H_diag)
    for i in range(len(dirs)):
        be_i = _inner(dirs[i], r) * ro[i]
        r.add_(stps[i], alpha=al[i] - be_i)
    return r


def iterate(opt, evaluate, group, state, keys=None, budget=None,
            first_scale=None):
    """Up to max_iter L-BFGS iterations of `opt` (Note [One L-BFGS]); evaluate() runs the
    closure. Returns the loss of the first evaluation."""
    keys = TORCH_KEYS if keys is None else keys
    if budget is None:
        def budget(evals):
            return group["max_eval"] - evals
    if first_scale is None:
        def first_scale(grad):
            return 1
    if group["line_search_fn"] not in (None, "strong_wolfe"):
        # checked before the closure runs (torch and Paddle raise at the line search, after
        # an evaluation has written the gradients): a refused step changes nothing
        raise ArgValueError(f"LBFGS: only 'strong_wolfe' is supported as line_search_fn, got "
                            f"{group['line_search_fn']!r}")
    lr = _number(group["lr"])
    max_iter, max_eval = group["max_iter"], group["max_eval"]
    tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
    state.setdefault("func_evals", 0)
    state.setdefault("n_iter", 0)

    first_loss = evaluate()
    loss = float(first_loss)
    evals = 1
    state["func_evals"] += 1
    grad = opt._flat_grad()
    if grad.abs().max() <= tolerance_grad:        # already stationary
        return first_loss

    # where the previous call stopped (None before the first)
    d, t = state.get("d"), state.get(keys["t"])
    dirs, stps, ro = (state.get(keys[k]) for k in ("old_dirs", "old_stps", "ro"))
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
            H_diag = first_scale(grad)
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
            origin = [p.clone() for p in opt._params]

            def loss_and_grad_at(step_length):
                return opt._loss_and_grad_at(evaluate, origin, step_length, d)

            loss, grad, t, used = _strong_wolfe_search(
                loss_and_grad_at, d, t, loss, grad, gtd, budget=budget(evals))
            opt._move_by(t, d)
            small_grad = grad.abs().max() <= tolerance_grad
        else:
            opt._move_by(t, d)
            if n_iter != max_iter:                # the last iteration's loss goes unused
                loss = float(evaluate())
                grad = opt._flat_grad()
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

    state["d"], state[keys["t"]] = d, t
    state[keys["old_dirs"]], state[keys["old_stps"]], state["ro"] = dirs, stps, ro
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
