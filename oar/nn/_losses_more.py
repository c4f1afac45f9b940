"""Losses beyond the basic ones of nn/functional.py: the CTC loss (one core op, both doors)
and the margin / embedding / likelihood losses both frameworks have, as compositions of core
ops (each door binds its own names, defaults and reductions in its functional face)."""
from __future__ import annotations

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import registry as R
from ..tensor import Tensor, wrap_as
from ._kernels import _first_order_only

_NEG_INF = -np.inf


# Note [CTC loss op]
# ctc_loss is one core op over log-probabilities [T, N, C] (already normalised: the torch
# door passes the user's log_probs, the Paddle door the log_softmax of its logits, since
# Paddle's warpctc normalises inside). Its attrs are the padded targets [N, S] (int64), the
# input and target lengths (int64 [N]), blank, zero_infinity and a per-sample gradient scale
# (1 / input_length for Paddle's norm_by_times, else None); its result is the per-sample
# negative log-likelihood [N], reduced by each door (torch: 'mean' divides by the target
# lengths clamped at 1 and averages; Paddle the same; zero_infinity then replaces an infinite
# loss by 0 with a where, as PyTorch). The forward is the alpha recursion in
# log space over the extended label sequence (blanks between and around the targets, 2S + 1
# states), vectorised over the batch, one NumPy step per time step. The backward recomputes
# alpha and the matching beta recursion and returns PyTorch's ctc_loss_backward formula,
#     grad[t, n, c] = exp(lp[t, n, c]) - exp(log(sum_{s: l'(s) = c} alpha beta) + nll - lp)
# for t < input_length (0 beyond), which is the gradient with respect to the logits under a
# log_softmax: it sums to 0 over c, so a log_softmax before the op passes it unchanged (the
# Paddle door's gradient is warpctc's, softmax - posterior), while a leaf log_probs receives
# exactly what torch gives it. The zero_infinity attr makes the backward give 0, not NaN, for
# an infinite loss. The
# backward is computed in NumPy even under create_graph (torch's is not differentiable twice).
def _extended(targets, tl, blank):
    """Extended label sequences [N, 2S + 1] (blank, l1, blank, l2, ..., blank) and whether a
    state may be entered from two states back (a label differing from the one before it)."""
    n, s = targets.shape
    ext = np.full((n, 2 * s + 1), blank, np.int64)
    ext[:, 1::2] = targets
    skip = np.zeros((n, 2 * s + 1), bool)
    if s > 1:
        skip[:, 3::2] = targets[:, 1:] != targets[:, :-1]
    # states past a sample's extended length never take part
    valid = np.arange(2 * s + 1)[None, :] < (2 * tl + 1)[:, None]
    return ext, skip, valid


def _lse(*xs):
    m = xs[0]
    for x in xs[1:]:
        m = np.maximum(m, x)
    safe = np.where(np.isfinite(m), m, 0.0)
    tot = sum(np.exp(x - safe) for x in xs)
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(m), np.log(tot) + safe, m)


def _shift(a, k):
    out = np.full_like(a, _NEG_INF)
    out[:, k:] = a[:, :a.shape[1] - k]
    return out


def _alpha(lp, ext, skip, valid, il, tl):
    t_max, n, _ = lp.shape
    rows = np.arange(n)[:, None]
    a = np.full((t_max, n, ext.shape[1]), _NEG_INF, lp.dtype)
    if t_max == 0:
        return a
    first = np.full((n, ext.shape[1]), _NEG_INF, lp.dtype)
    first[:, 0] = lp[0, np.arange(n), ext[:, 0]]
    has = tl > 0
    first[has, 1] = lp[0, np.arange(n)[has], ext[has, 1]]
    a[0] = np.where(valid, first, _NEG_INF)
    for t in range(1, t_max):
        prev = a[t - 1]
        cand = _lse(prev, _shift(prev, 1), np.where(skip, _shift(prev, 2), _NEG_INF))
        a[t] = np.where(valid, cand + lp[t][rows, ext], _NEG_INF)
    return a


def _nll(a, il, tl):
    n = a.shape[1]
    rows = np.arange(n)
    last = np.maximum(il - 1, 0)
    end = a[last, rows, 2 * tl]
    end1 = np.where(tl > 0, a[last, rows, np.maximum(2 * tl - 1, 0)], _NEG_INF)
    nll = -_lse(end, end1)
    # an empty input aligns only with an empty target
    return np.where(il == 0, np.where(tl == 0, 0.0, np.inf), nll).astype(a.dtype)


def _beta(lp, ext, skip, valid, il, tl):
    t_max, n, width = lp.shape[0], lp.shape[1], ext.shape[1]
    rows = np.arange(n)[:, None]
    b = np.full((t_max, n, width), _NEG_INF, lp.dtype)
    # skip into state s + 2 is allowed when state s + 2 may be entered from s
    skip_next = np.zeros_like(skip)
    skip_next[:, :-2] = skip[:, 2:]
    init = np.full((n, width), _NEG_INF, lp.dtype)
    idx = np.arange(n)
    for t in range(t_max - 1, -1, -1):
        emit = lp[t][rows, ext]
        if t < t_max - 1:
            nxt = b[t + 1]
            back = np.full_like(nxt, _NEG_INF)
            back1 = back.copy()
            back[:, :-1] = nxt[:, 1:]
            back1[:, :-2] = nxt[:, 2:]
            cand = _lse(nxt, back, np.where(skip_next, back1, _NEG_INF)) + emit
        else:
            cand = np.full((n, width), _NEG_INF, lp.dtype)
        start = il - 1 == t          # each sample's last time step
        init[:] = _NEG_INF
        init[idx, 2 * tl] = emit[idx, 2 * tl]
        has = tl > 0
        init[idx[has], 2 * tl[has] - 1] = emit[idx[has], 2 * tl[has] - 1]
        cand = np.where(start[:, None], init, cand)
        cand = np.where((t < il)[:, None] & valid, cand, _NEG_INF)
        b[t] = cand
    return b


def _k_ctc(lp, targets, il, tl, blank, zero_infinity, scale):
    ext, skip, valid = _extended(targets, tl, blank)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        nll = _nll(_alpha(lp, ext, skip, valid, il, tl), il, tl)
    return nll


def _b_ctc(c, g):
    # the alpha-beta gradient is NumPy arithmetic, not oar ops: a second derivative through it
    # would be silently zero, so create_graph is refused (torch refuses it too)
    _first_order_only("ctc_loss")
    targets, il, tl, blank, zero_infinity, scale = c.attrs
    lp = c.input(0)._data
    t_max, n, n_cls = lp.shape
    ext, skip, valid = _extended(targets, tl, blank)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = _alpha(lp, ext, skip, valid, il, tl)
        nll = _nll(a, il, tl)
        b = _beta(lp, ext, skip, valid, il, tl)
        ab = a + b                                   # [T, N, 2S + 1]
        m = np.max(ab, axis=2, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        acc = np.zeros((t_max, n, n_cls), lp.dtype)
        tt, nn_, ss = np.meshgrid(np.arange(t_max), np.arange(n), np.arange(ext.shape[1]),
                                  indexing="ij")
        np.add.at(acc, (tt, nn_, ext[nn_, ss]), np.exp(ab - m))
        lcab = np.log(acc) + m
        grad = np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)
    live = np.arange(t_max)[:, None] < il[None, :]
    if zero_infinity:
        live = live & ~np.isinf(nll)[None, :]
    grad = np.where(live[:, :, None], grad, 0.0).astype(lp.dtype)
    gs = _xp.asarray(g._data, lp.dtype)
    if scale is not None:
        gs = gs * scale.astype(lp.dtype)
    grad *= gs[None, :, None]
    return (Tensor._wrap(grad),)


CTC_LOSS = R.OpDef("ctc_loss", _k_ctc, _b_ctc, needs={"log_probs": ("log_probs",)},
                   inputs=("log_probs",),
                   attrs=(("targets", None), ("input_lengths", None),
                          ("target_lengths", None), ("blank", 0), ("zero_infinity", False),
                          ("grad_scale", None)),
                   method=False, function=False,
                   doc="Per-sample CTC negative log-likelihood of log-probabilities "
                       "[T, N, C] (Note [CTC loss op]).")


def _lengths(v, n, what, op, err):
    """Lengths as an int64 array of n entries (a tensor, list or tuple of integers)."""
    if isinstance(v, Tensor):
        arr = v._data
    elif isinstance(v, (list, tuple)):
        arr = _xp.asarray(v)
    else:
        raise ArgTypeError(f"{op}: {what} must be a Tensor, list or tuple of integers, not "
                           f"{type(v).__name__}")
    if arr.dtype.kind not in "iu":
        raise err(f"{op}: {what} must hold integers, got dtype {arr.dtype}")
    arr = arr.reshape(-1).astype(np.int64)
    if arr.shape[0] != n:
        raise err(f"{op}: {what} must have one entry per batch element ({n}), got "
                  f"{arr.shape[0]}")
    return arr


def ctc_nll(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity,
            op="ctc_loss", grad_scale=None, err=ArgValueError):
    """The per-sample CTC negative log-likelihood [N] of normalised log_probs [T, N, C]
    against targets (padded [N, S] or concatenated 1-D), checked (Note [CTC loss op])."""
    if not isinstance(log_probs, Tensor):
        raise ArgTypeError(f"{op}: log_probs must be a Tensor, not {type(log_probs).__name__}")
    if log_probs.ndim != 3:
        raise err(f"{op}: log_probs must be [T, N, C] (max time, batch, classes), got shape "
                  f"{list(log_probs.shape)}")
    if log_probs._data.dtype.kind != "f":
        raise ArgTypeError(f"{op}: log_probs must be floating, got {log_probs.dtype}")
    t_max, n, n_cls = log_probs.shape
    if not isinstance(targets, Tensor):
        raise ArgTypeError(f"{op}: targets must be a Tensor, not {type(targets).__name__}")
    if targets._data.dtype.kind not in "iu":
        raise ArgTypeError(f"{op}: targets must hold integer class indices, got "
                           f"{targets.dtype}")
    il = _lengths(input_lengths, n, "input_lengths", op, err)
    tl = _lengths(target_lengths, n, "target_lengths", op, err)
    if not isinstance(blank, (int, np.integer)) or isinstance(blank, bool):
        raise ArgTypeError(f"{op}: blank must be an int, not {type(blank).__name__}")
    if not 0 <= blank < n_cls:
        raise err(f"{op}: blank must be in label range [0, {n_cls}), got {blank}")
    if (il < 0).any() or (il > t_max).any():
        raise err(f"{op}: Expected input_lengths to have value at most {t_max}, but got "
                  f"value {int(il.max()) if (il > t_max).any() else int(il.min())}")
    if (tl < 0).any():
        raise err(f"{op}: target_lengths must be non-negative, got {int(tl.min())}")
    td = targets._data.astype(np.int64)
    if td.ndim == 1:                  # concatenated targets
        if td.shape[0] != int(tl.sum()):
            raise err(f"{op}: concatenated targets of length {td.shape[0]} do not match the "
                      f"sum of target_lengths {int(tl.sum())}")
        width = int(tl.max()) if n else 0
        padded = np.full((n, width), blank, np.int64)
        off = np.concatenate([[0], np.cumsum(tl)])
        for i in range(n):
            padded[i, :tl[i]] = td[off[i]:off[i + 1]]
    elif td.ndim == 2:
        if td.shape[0] != n:
            raise err(f"{op}: targets of shape {list(td.shape)} do not match batch size {n}")
        if (tl > td.shape[1]).any():
            raise err(f"{op}: Expected tensor to have size at least {int(tl.max())} at "
                      f"dimension 1, but got size {td.shape[1]} for targets")
        padded = td.copy()
        cols = np.arange(td.shape[1])[None, :]
        padded[cols >= tl[:, None]] = blank       # padding never read as a label
    else:
        raise err(f"{op}: targets must be [N, S] (padded) or 1-D (concatenated), got shape "
                  f"{list(td.shape)}")
    used = np.arange(padded.shape[1])[None, :] < tl[:, None]
    if used.any() and ((padded[used] < 0).any() or (padded[used] >= n_cls).any()):
        raise err(f"{op}: target labels must be in [0, {n_cls}), got "
                  f"{int(padded[used].min())}..{int(padded[used].max())}")
    nll = R.dispatch(CTC_LOSS, (log_probs,), (padded, il, tl, int(blank),
                                              bool(zero_infinity), grad_scale))
    if zero_infinity:      # PyTorch's where(loss == inf, 0, loss) after the op
        nll = _where(np.isinf(nll._data), _zeros_like(nll), nll)
    return nll


# Note [Composite losses]
# margin_ranking, hinge_embedding, soft_margin, cosine_embedding, multilabel_soft_margin,
# poisson_nll, gaussian_nll, triplet_margin(_with_distance), multi_margin and
# multilabel_margin are written once here as compositions of core ops, giving the unreduced
# loss; each door checks its own arguments (names, defaults, error classes) and reduces.
# Both frameworks compute the same formulas (measured against torch 2.13 and paddle 3.3.1 in
# tests/test_breadth_losses.py); PyTorch's own versions are compositions too, except
# soft_margin_loss, multi_margin_loss and multilabel_margin_loss, native ops there: the torch
# door calls the ops below for them (SOFT_MARGIN_LOSS, MULTI_MARGIN_LOSS,
# MULTILABEL_MARGIN_LOSS: PyTorch's nodes and backward formulas), the Paddle door (whose
# own versions are compositions) the compositions, which agree with the ops away from the
# kinks of max(0, .).
_FN = R.FUNCTIONS


def _zeros_like(t):
    """Zeros of t's shape and dtype, of t's class (Note [Result class]: a door's tensor)."""
    return wrap_as(t._result_class, np.zeros(t._data.shape, t._data.dtype))


def _where(cond, a, b):
    return _FN["where"](wrap_as(a._result_class, _xp.asarray(cond)), a, b)


def _check_shapes(op, err, *ts):
    try:
        return np.broadcast_shapes(*(t._data.shape for t in ts))
    except ValueError:
        raise err(f"{op}: operand shapes {', '.join(str(list(t.shape)) for t in ts)} do not "
                  "broadcast; pass tensors of one shape") from None


def margin_ranking(x1, x2, y, margin):
    """max(0, -y (x1 - x2) + margin)."""
    return _FN["clamp_min"](-y * (x1 - x2) + margin, 0.0)


def hinge_embedding(x, y, margin):
    """x where y == 1, max(0, margin - x) where y == -1 (PyTorch's where y != 1 / != -1)."""
    yd = y._data
    mc = _FN["clamp_min"](margin - x, 0.0)
    z = _zeros_like(mc)
    return _where(yd != 1, mc, z) + _where(yd != -1, x, _zeros_like(x))


def soft_margin(x, y):
    """log(1 + exp(-y x))."""
    return _FN["log"](_FN["exp"](-y * x) + 1.0)


def _k_soft_margin(x, y, reduction):
    from .functional import _np_reduce
    return _np_reduce(np.log1p(np.exp(-(y * x))), reduction)


def _b_soft_margin(c, g):
    """PyTorch's soft_margin_loss_backward: -y z / (1 + z), z = exp(-y x) (/ numel for
    'mean'); the target takes no gradient (PyTorch refuses one that requires it)."""
    from .functional import _grad_scale
    x, y = c.input(0), c.input(1)
    n = x._data.size
    if _grad_enabled():        # create_graph: in oar ops
        z = _FN["exp"](-(y * x))
        return _grad_scale(c, g, -y * z / (z + 1.0), n), None
    xd, yd = x._data, y._data
    z = np.exp(-(yd * xd))
    return _grad_scale(c, g, (-yd * z / (1 + z)).astype(xd.dtype), n), None


def _grad_enabled():
    from ..autograd import grad_mode
    return grad_mode.is_grad_enabled()


# PyTorch's soft_margin_loss is one native op (SoftMarginLossBackward0, the reduction inside);
# the torch door calls this op where input and target are one floating dtype and shape, the
# Paddle door (a composition in Paddle) the composition above (Note [Composite losses])
SOFT_MARGIN_LOSS = R.OpDef("soft_margin_loss", _k_soft_margin, _b_soft_margin,
                           needs={"input": ("input", "target")}, inputs=("input", "target"),
                           attrs=(("reduction", "mean"),), method=False, function=False,
                           doc="log(1 + exp(-target input)), reduced, as one op.")


def soft_margin_op(x, y, reduction):
    """The soft margin loss as one op (SoftMarginLossBackward0), or None where the operands
    are outside what it covers (mixed or integer dtypes, shapes that broadcast)."""
    from .functional import _loss_op_ok
    if not _loss_op_ok(x, y) or tuple(x.shape) != tuple(y.shape):
        return None
    return R.dispatch(SOFT_MARGIN_LOSS, (x, y), (reduction,))


def cosine_embedding(x1, x2, y, margin, eps):
    """1 - cos(x1, x2) where y == 1, max(0, cos - margin) where y == -1 (cosine over the last
    dim, squared norms offset by eps: PyTorch's EPSILON 1e-12, Paddle's 10e-12)."""
    d = x1.ndim - 1
    prod = _FN["sum"](x1 * x2, d)
    m1 = _FN["sum"](x1 * x1, d) + eps
    m2 = _FN["sum"](x2 * x2, d) + eps
    cos = prod / _FN["sqrt"](m1 * m2)
    yd = y._data
    z = _zeros_like(cos)
    return (_where(yd == 1, 1.0 - cos, z)
            + _where(yd == -1, _FN["clamp_min"](cos - margin, 0.0), z))


def multilabel_soft_margin(x, y, weight):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), weighted, averaged over the classes
    (the last dim)."""
    from . import functional as F
    loss = -(y * F.log_sigmoid(x) + (1.0 - y) * F.log_sigmoid(-x))
    if weight is not None:
        loss = loss * weight
    c = x.shape[-1]
    return _FN["sum"](loss, x.ndim - 1) / c


def poisson_nll(x, y, log_input, full, eps):
    """exp(x) - y x (log_input) or x - y log(x + eps), plus Stirling's term where y > 1 (full)."""
    if log_input:
        loss = _FN["exp"](x) - y * x
    else:
        loss = x - y * _FN["log"](x + eps)
    if full:      # Stirling's term in oar ops: the target takes its gradient too
        st = y * _FN["log"](y) - y + _FN["log"](y * (2 * np.pi)) * 0.5
        loss = loss + _where(y._data <= 1, _zeros_like(st), st)
    return loss


def gaussian_var(x, var, op, err):
    """var shaped against x as both frameworks do: equal shapes, x's without its last dim
    (a trailing 1 added) or a trailing 1 (broadcast); negative entries refused."""
    xs, vs = tuple(x.shape), tuple(var.shape)
    if vs != xs:
        if xs[:-1] == vs:
            var = _FN["unsqueeze"](var, -1)
        elif not (xs[:-1] == vs[:-1] and vs and vs[-1] == 1):
            raise err(f"{op}: variance of shape {list(vs)} is of incorrect size for input "
                      f"{list(xs)}")
    if (var._data < 0).any():
        raise err(f"{op}: variance has negative entry/entries")
    return var


def gaussian_nll(x, y, var, full, eps, var_grad=True):
    """0.5 (log(var) + (x - y)**2 / var) (+ 0.5 log(2 pi) when full), var clamped at eps.
    var_grad: the gradient passes through the clamp (PyTorch clamps a clone in place under
    no_grad); without it var takes no gradient (Paddle's clip under no_grad is a new,
    detached tensor)."""
    vd = var._data
    if var_grad:
        var = var + Tensor._wrap((np.maximum(vd, eps) - vd).astype(vd.dtype))
    else:
        var = wrap_as(var._result_class, np.maximum(vd, eps).astype(vd.dtype))
    d = x - y
    loss = (_FN["log"](var) + d * d / var) * 0.5
    if full:
        loss = loss + 0.5 * float(np.log(2 * np.pi))
    return loss


def pairwise_distance(x1, x2, p, eps):
    """||x1 - x2 + eps||_p over the last dim (PyTorch's pairwise_distance)."""
    nd = max(x1.ndim, x2.ndim)
    return _FN["norm"](x1 - x2 + eps, p, nd - 1 if nd else None)


def triplet_margin(a, pos, neg, margin, swap, dist):
    """max(0, margin + d(a, pos) - d(a, neg)), d(a, neg) replaced by min(d(a, neg),
    d(pos, neg)) when swap."""
    dp = dist(a, pos)
    dn = dist(a, neg)
    if swap:
        dn = _FN["minimum"](dn, dist(pos, neg))
    return _FN["clamp_min"](dp - dn + margin, 0.0)


def multi_margin(x, target, p, margin, weight):
    """sum over i != y of max(0, margin - x[y] + x[i]) ** p (times weight[y]) / C, per row;
    target is an int64 array of one class per row of the 2-D x."""
    n, c = x.shape
    idx = Tensor._wrap(target.reshape(n, 1))
    xy = _FN["take_along_axis"](x, idx, 1)
    z = _FN["clamp_min"](x - xy + margin, 0.0)
    if p == 2:
        z = z * z
    hit = np.zeros((n, c), bool)
    hit[np.arange(n), target] = True
    z = _where(hit, _zeros_like(z), z)
    if weight is not None:
        z = z * Tensor._wrap(weight._data[target].reshape(n, 1).astype(x._data.dtype))
    return _FN["sum"](z, 1) / c


def multilabel_margin(x, target):
    """sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C, per row;
    target [N, C] int64 lists each row's classes up to the first -1."""
    n, c = x.shape
    valid = np.cumprod(target >= 0, axis=1).astype(bool)        # before the first -1
    tgt = np.where(valid, target, 0)
    is_t = np.zeros((n, c), bool)
    rows = np.repeat(np.arange(n), c)
    is_t[rows[valid.reshape(-1)], tgt[valid]] = True
    xj = _FN["take_along_axis"](x, Tensor._wrap(tgt), 1)                 # [N, C]
    z = _FN["clamp_min"](_FN["unsqueeze"](x, 1) - _FN["unsqueeze"](xj, 2) + 1.0, 0.0)
    mask = valid[:, :, None] & ~is_t[:, None, :]
    z = _where(mask, z, _zeros_like(z))
    return _FN["sum"](z, [1, 2]) / c


# multi_margin_loss and multilabel_margin_loss as ops (Note [Composite losses])
# (MultiMarginLossBackward0, MultilabelMarginLossBackward0, the reduction inside): the torch
# door calls these ops (the Paddle door, whose own versions are compositions, the
# compositions above). Input of any rank up to 2 (a vector or 0-d is one row); targets are
# int64 arrays, attrs, as nll_loss's.
def _rows(x):
    n = x.shape[0] if x.ndim == 2 else 1
    c = x.shape[-1] if x.ndim else 1
    return n, c


def _unreduced_shape(x):
    return (x.shape[0],) if x.ndim == 2 else ()


def _margin_terms(x2, target, margin):
    n = x2.shape[0]
    rows = np.arange(n)
    z = x2 - x2[rows, target][:, None] + margin
    z[rows, target] = 0.0
    return np.maximum(z, 0.0)


def _k_multi_margin(x, target, p, margin, weight, reduction):
    from .functional import _np_reduce
    n, c = _rows(x)
    x2 = x.reshape(n, c)
    z = _margin_terms(x2, target, margin)
    h = z if p == 1 else z * z
    if weight is not None:
        h = h * weight[target][:, None]
    loss = (h.sum(1) / c).astype(x.dtype).reshape(_unreduced_shape(x))
    return _np_reduce(loss, reduction)


def _scale_rows(grad, g, reduction, n, shape, dt):
    """grad [N, C] times the incoming gradient g (per row for 'none', / N for 'mean'), in
    x's shape; NumPy arrays or, under create_graph, oar ops."""
    if isinstance(g, Tensor) and _grad_enabled():
        gt = wrap_as(g._result_class, grad.astype(dt))
        gg = _FN["reshape"](g, [n, 1]) if reduction == "none" else g
        out = gt * gg
        if reduction == "mean":
            out = out / n
        return _FN["reshape"](out, list(shape))
    gd = _xp.asarray(g._data, dt)
    grad = grad * (gd.reshape(n, 1) if reduction == "none" else gd)
    if reduction == "mean":
        grad = grad / n
    return Tensor._wrap(grad.astype(dt).reshape(shape))


def _b_multi_margin(c, g):
    """PyTorch's multi_margin_loss_backward: each positive margin term adds its derivative
    (1, or 2 z for p = 2, times weight[y], / C) at class i and takes it from class y."""
    target, p, margin, weight, reduction = c.attrs
    x = c.input(0)
    xd = x._data
    n, cc = _rows(xd)
    z = _margin_terms(xd.reshape(n, cc), target, margin)
    wy = weight[target][:, None] if weight is not None else 1.0
    rows = np.arange(n)
    if p == 2 and _grad_enabled():
        # create_graph: 2 z is linear in x, so the gradient is built from oar ops
        x2 = _FN["reshape"](x, [n, cc])
        idx = Tensor._wrap(target.reshape(n, 1))
        live = wrap_as(x._result_class, ((z > 0) * (2.0 * wy / cc)).astype(xd.dtype))
        gz = (x2 - _FN["take_along_axis"](x2, idx, 1) + margin) * live
        hit = wrap_as(x._result_class, np.eye(cc, dtype=xd.dtype)[target])
        gi = gz - hit * _FN["sum"](gz, 1, True)
        gg = _FN["reshape"](g, [n, 1]) if reduction == "none" else g
        out = gi * gg
        if reduction == "mean":
            out = out / n
        return (_FN["reshape"](out, list(xd.shape)),)
    gz = (z > 0) * (1.0 if p == 1 else 2.0 * z) * wy / cc
    gz[rows, target] = -gz.sum(1)
    return (_scale_rows(gz, g, reduction, n, xd.shape, xd.dtype),)


MULTI_MARGIN_LOSS = R.OpDef(
    "multi_margin_loss", _k_multi_margin, _b_multi_margin, needs={"input": ("input",)},
    inputs=("input",), attrs=(("target", None), ("p", 1), ("margin", 1.0), ("weight", None),
                              ("reduction", "mean")),
    method=False, function=False,
    doc="sum over i != y of max(0, margin - x[y] + x[i]) ** p (weight[y]) / C, reduced.")


def _multilabel_pairs(x2, target):
    """(valid [N, C], tgt [N, C], live [N, C, C]): live[n, j, i] when target slot j is in use,
    class i is not a target of row n and the hinge 1 - (x[tgt j] - x[i]) is positive."""
    n, c = x2.shape
    valid = np.cumprod(target >= 0, axis=1).astype(bool)
    tgt = np.where(valid, target, 0)
    is_t = np.zeros((n, c), bool)
    rows = np.repeat(np.arange(n), c).reshape(n, c)
    is_t[rows[valid], tgt[valid]] = True
    xj = np.take_along_axis(x2, tgt, 1)
    z = 1.0 - xj[:, :, None] + x2[:, None, :]
    live = valid[:, :, None] & ~is_t[:, None, :] & (z > 0)
    return tgt, z, live


def _k_multilabel_margin(x, target, reduction):
    from .functional import _np_reduce
    n, c = _rows(x)
    _, z, live = _multilabel_pairs(x.reshape(n, c), target)
    loss = (np.where(live, z, 0.0).sum((1, 2)) / c).astype(x.dtype)
    return _np_reduce(loss.reshape(_unreduced_shape(x)), reduction)


def _b_multilabel_margin(c, g):
    """PyTorch's multilabel_margin_loss_backward: each positive hinge adds 1 / C at the
    non-target class and takes 1 / C from the target class (piecewise constant in x)."""
    target, reduction = c.attrs
    xd = c.input(0)._data
    n, cc = _rows(xd)
    tgt, _, live = _multilabel_pairs(xd.reshape(n, cc), target)
    grad = live.sum(1).astype(xd.dtype) / cc
    rows = np.repeat(np.arange(n), cc).reshape(n, cc)
    np.add.at(grad, (rows, tgt), -live.sum(2).astype(xd.dtype) / cc)
    return (_scale_rows(grad, g, reduction, n, xd.shape, xd.dtype),)


MULTILABEL_MARGIN_LOSS = R.OpDef(
    "multilabel_margin_loss", _k_multilabel_margin, _b_multilabel_margin,
    needs={"input": ("input",)}, inputs=("input",),
    attrs=(("target", None), ("reduction", "mean")), method=False, function=False,
    doc="sum over targets j and other classes i of max(0, 1 - (x[j] - x[i])) / C, reduced.")


def margin_op(op, x, attrs):
    """The native-style margin op where x is floating (else None: the composition)."""
    if x._data.dtype.kind != "f":
        return None
    return R.dispatch(op, (x,), attrs)
