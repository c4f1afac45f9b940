"""Scans and sets: cumprod, logcumsumexp, searchsorted, bucketize, bincount, histc, meshgrid,
unique_consecutive. The core spellings carry Paddle 3.3.1's signatures; where PyTorch 2.13
differs (meshgrid's indexing warning, histc) the torch door adds its own function."""
from __future__ import annotations

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError, DtypeNotImplementedError
from ..tensor import Tensor, wrap_as
from . import args as _args
from . import registry
from .registry import OpDef, declare
from .reduce import CUMSUM, _np_dtype


def _scan_axis(x, axis):
    """The kernel's view of x along axis: flattened when axis is None, a 0-d tensor as 1-D."""
    if axis is None:
        return x.reshape(-1), 0
    return (x.reshape(1), 0) if x.ndim == 0 else (x, axis)


def _check_cum_(self, args, attrs, op_name):
    """cumprod_: self keeps its shape and dtype (Note [In-place spelling of a
    general op])."""
    axis, dtype = attrs
    x = self._data
    if axis is None and x.ndim != 1:
        raise ArgValueError(
            f"{op_name}(): without an axis the scan is flattened to shape [{x.size}], which "
            f"differs from x's shape {list(x.shape)}; an in-place op must not change its "
            f"tensor's shape. Fix: pass axis (dim), or use `x = x.{op_name[:-1]}()`.")
    dt = _np_dtype(dtype)
    if dt is not None and dt != x.dtype:
        raise ArgTypeError(
            f"{op_name}(): Bad in-place call: input tensor dtype {x.dtype} and output tensor "
            f"dtype {dt} should match. Fix: drop dtype=.")


def _scan_operands(ctx, g):
    """A scan's backward operands as its kernel saw them (Note [cumprod with zeros] and
    logcumsumexp's): x and g flattened when axis is None, a 0-d one as [1]; the axis; and
    the input's shape for the gradient."""
    axis = ctx.attrs[0]
    x = ctx.input(0)
    xf = x.reshape([-1]) if axis is None else (x.reshape([1]) if x.ndim == 0 else x)
    gf = g.reshape([-1]) if axis is None else (g.reshape([1]) if g.ndim == 0 else g)
    return xf, gf, 0 if axis is None else axis, list(ctx.input_meta[0][0])


# ------------------------------------------------------------------------------------ cumprod
def _k_cumprod(x, axis, dtype):
    a, ax = _scan_axis(x, axis)
    dt = _np_dtype(dtype)
    if dt is None and a.dtype.kind in "biu":
        dt = np.dtype(np.int64)   # integer and bool products are int64, as PyTorch's
    r = a.cumprod(axis=ax, dtype=dt)   # the method: Note [Floating-point warnings]
    return r.reshape(()) if axis is not None and x.ndim == 0 else r


def _b_cumprod(ctx, g):
    # Note [cumprod with zeros]
    # d out_j / d x_k = prod_{i <= j, i != k} x_i (j >= k). Without zeros that is out_j / x_k,
    # so the gradient is a reversed cumsum of g * out divided by x (oar ops: differentiable
    # again). A zero makes that 0/0; then, as PyTorch's cumprod_backward, the exact product
    # of the other factors: grad_k = L_k * S_k with L_k = prod_{i<k} x_i (exclusive cumprod)
    # and S_k = g_k + x_{k+1} * S_{k+1}, a backward recurrence run in NumPy (that branch, like
    # prod's with zeros, is not differentiated again).
    # A complex x: every derivative conjugated (Note [Complex autograd]), so out and x enter
    # conjugated.
    xf, gf, ax, shape = _scan_operands(ctx, g)
    xa = xf._data
    cplx = xa.dtype.kind == "c"
    if not (xa == 0).any():
        cumsum = registry.FUNCTIONS["cumsum"]
        out = ctx.out.reshape(list(xf.shape))
        if cplx:
            out, xf = out.conj(), xf.conj()
        res = cumsum((gf * out).flip([ax]), ax).flip([ax]) / xf
    else:
        xm = np.moveaxis(np.conjugate(xa) if cplx else xa, ax, -1)
        gm = np.moveaxis(_xp.asarray(gf._data, dtype=np.result_type(xa, gf._data)), ax, -1)
        n = xm.shape[-1]
        left = np.concatenate([np.ones(xm.shape[:-1] + (1,), xm.dtype),
                               xm[..., :-1]], -1).cumprod(-1)   # Note [Floating-point warnings]
        s = np.zeros_like(gm)
        acc = np.zeros(gm.shape[:-1], gm.dtype)
        for k in range(n - 1, -1, -1):
            acc = gm[..., k] + (xm[..., k + 1] * acc if k + 1 < n else 0)
            s[..., k] = acc
        res = wrap_as(Tensor, np.moveaxis(left * s, -1, ax).astype(xa.dtype))
    return (res.reshape(shape),)


CUMPROD = OpDef("cumprod", _k_cumprod, _b_cumprod, needs={"x": ("x", "out")},
                attrs=(("axis", None), ("dtype", None)), inplace=True, check=_check_cum_,
                doc="Cumulative product of x along axis (flattened when None).")
declare(CUMPROD)


# Note [Paddle's flattening cumsum_ and cumprod_]
# Paddle 3.3.1's x.cumsum_() and x.cumprod_() without an axis flatten x in place: x itself
# becomes the 1-D scan (views of its memory see the new values; inplace_version + 1). The
# Paddle door does that as flatten_ (Note [Metadata in-place ops]: same storage, the shape
# change recorded in x's history, so gradients flow back in x's old shape) and then the
# scan in place along axis 0, after every check of both has passed, so a refused call
# changes nothing: the scan's own check (dtype=, bool) with axis 0, then flatten_'s
# (inference, leaf and view rules; a window that needs a copy is refused with ValueError,
# as Paddle refuses a non-contiguous x). The version is bumped once, by the scan (twice for
# a view, whose stale grad_fn the first bump marks). The torch door's cumsum_ needs dim.
def _flattening_inplace(op_name, op):
    spelling = registry.FUNCTIONS[op_name]

    def fn(x, *args, **kwargs):
        axis = args[0] if args else kwargs.get("axis", kwargs.get("dim"))
        if axis is not None or not isinstance(x, Tensor) or x._data.ndim == 1:
            return spelling(x, *args, **kwargs)
        from ..autograd.inplace import metadata_inplace
        dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
        op.check(x, (x,), (0, dtype), op_name)
        metadata_inplace(x, op_name, registry.FUNCTIONS["flatten"], (), {},
                         bump_version=False)
        rest = {k: v for k, v in kwargs.items() if k not in ("axis", "dim")}
        return spelling(x, 0, *args[1:], **rest)

    fn.__wrapped__ = spelling
    fn.__name__ = fn.__qualname__ = op_name
    fn.__doc__ = spelling.__doc__
    registry.register_function(op_name, fn)


_flattening_inplace("cumsum_", CUMSUM)
_flattening_inplace("cumprod_", CUMPROD)


# ------------------------------------------------------------------------------- logcumsumexp
def complex_logaddexp(x, y):
    """log(exp(x) + exp(y)) of complex arrays (NumPy's logaddexp has no complex loop):
    m + log1p(exp(n - m)) with m the operand of larger real part, so exp never overflows;
    the imaginary part is not wrapped into (-pi, pi] (as PyTorch 2.13's complex logaddexp
    and logcumsumexp). Both real parts -inf give -inf + i*imag(m) terms as that formula."""
    x, y = np.broadcast_arrays(_xp.asarray(x), _xp.asarray(y))
    first = x.real >= y.real
    m = np.where(first, x, y)
    n = np.where(first, y, x)
    with np.errstate(all="ignore"):
        r = m + np.log1p(np.exp(n - m))
        # both real parts -inf (exp of both is 0): log 0 = -inf, PyTorch's result too
        both = np.isneginf(m.real)
        if both.any():
            r = np.where(both, m, r)
    return r


def _k_logcumsumexp(x, axis, dtype):
    # the refusal lives here: a general op's check runs only for in-place spellings, and the
    # kernel runs before anything is written
    if x.dtype.kind not in "fc":
        raise DtypeNotImplementedError(
            f"logcumsumexp(): \"logcumsumexp_out_cpu\" not implemented for {x.dtype} tensors "
            "(floating point only). Fix: cast first, e.g. x.astype('float32') or x.double().")
    a, ax = _scan_axis(x, axis)
    dt = _np_dtype(dtype)
    if dt is not None:
        a = a.astype(dt)
    if a.dtype.kind == "c":
        r = np.moveaxis(a.copy(), ax, 0)
        for k in range(1, r.shape[0]):
            r[k] = complex_logaddexp(r[k - 1], r[k])
        r = np.moveaxis(r, 0, ax)
    else:
        r = np.logaddexp.accumulate(a, axis=ax) if a.size else a.copy()
    return r.reshape(()) if axis is not None and x.ndim == 0 else r


def _b_logcumsumexp(ctx, g):
    # grad_k = sum_{j >= k} g_j exp(x_k - out_j). exp(-out_j) alone can overflow, so, as
    # PyTorch does, the sum is taken in log space for the positive and negative parts of g:
    # exp(x_k + reversed logcumsumexp(log|g_j| - out_j)).
    xf, gf, ax, shape = _scan_operands(ctx, g)
    out = ctx.out.reshape(list(xf.shape))
    lcse = registry.FUNCTIONS["logcumsumexp"]
    where = registry.FUNCTIONS["where"]
    ninf = wrap_as(Tensor, _xp.array(-np.inf, xf._data.dtype))

    def part(mask, mag):
        logg = where(mask, mag.abs().clip(min=np.finfo(xf._data.dtype).tiny).log(), ninf)
        return (lcse((logg - out).flip([ax]), ax).flip([ax]) + xf).exp()

    res = part(gf > 0, gf) - part(gf < 0, gf)
    return (res.reshape(shape),)


LOGCUMSUMEXP = OpDef("logcumsumexp", _k_logcumsumexp, _b_logcumsumexp,
                     needs={"x": ("x", "out")}, attrs=(("axis", None), ("dtype", None)),
                     doc="log(cumsum(exp(x))) along axis (flattened when None), computed "
                         "stably.")
declare(LOGCUMSUMEXP)


# ---------------------------------------------------------------------- searchsorted, bucketize
def _search(seq, vals, right, sorter, op):
    """Insertion points of vals into the rows of seq (1-D seq: one row for every value)."""
    if seq.ndim == 1 or seq.ndim == 0:
        s = seq.reshape(-1)
        if sorter is not None:
            s = s[sorter.reshape(-1)]
        return np.searchsorted(s, vals, side="right" if right else "left")
    rows = int(np.prod(seq.shape[:-1]))   # explicit: reshape(-1, 0) of an empty row is ambiguous
    s2 = seq.reshape(rows, seq.shape[-1])
    v2 = vals.reshape(rows, vals.shape[-1] if vals.ndim else 1)
    out = _xp.array_module(v2).empty(v2.shape, np.int64)
    srt = None if sorter is None else sorter.reshape(rows, seq.shape[-1])
    for i in range(s2.shape[0]):
        row = s2[i] if srt is None else s2[i][srt[i]]
        out[i] = np.searchsorted(row, v2[i], side="right" if right else "left")
    return out.reshape(vals.shape)


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *,
                 side=None, sorter=None):
    """Indices at which values would be inserted into the innermost dim of sorted_sequence
    to keep it sorted (right: after equal elements)."""
    op = "searchsorted"
    seq = _args.tensor(sorted_sequence, op, "sorted_sequence")
    scalar = not isinstance(values, Tensor)
    v = _args.input_tensor(values, op, "values")
    sa, va = seq._data, v._data
    if side is not None:
        if side not in ("left", "right"):
            raise ArgValueError(f"{op}(): side can only be 'left' or 'right' but got {side!r}")
        if bool(right) and side == "left":
            raise ArgValueError(f"{op}(): side and right can't be set to opposites, got side "
                                "of left while right was True. Fix: pass only one of them.")
        right = side == "right"
    if sa.ndim > 1 and (va.ndim != sa.ndim or va.shape[:-1] != sa.shape[:-1]):
        raise ArgValueError(
            f"{op}(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries "
            f"tensor {list(sa.shape)} and input value tensor {list(va.shape)}")
    srt = None
    if sorter is not None:
        srt_t = _args.tensor(sorter, op, "sorter")
        srt = srt_t._data
        if srt.shape != sa.shape:
            raise ArgValueError(f"{op}(): boundary and sorter must have the same size, but "
                                f"got boundary tensor {list(sa.shape)} and got sorter tensor "
                                f"{list(srt.shape)}")
        if srt.dtype != np.int64:
            raise ArgTypeError(f"{op}(): sorter must be a tensor of long dtype but got "
                               f"{srt.dtype}. Fix: sorter.long().")
        if srt.size and (srt.min() < 0 or srt.max() >= sa.shape[-1]):
            raise ArgValueError(f"{op}(): sorter index out of range")
    if sa.ndim == 0:
        raise ArgValueError(f"{op}(): boundaries tensor should have positive dimension, but "
                            "got 0 dimension")
    r = _search(sa, va, bool(right), srt, op)
    r = _xp.asarray(r, np.int32 if out_int32 else np.int64)
    cls = seq._result_class if scalar else v._result_class
    return wrap_as(cls, r.reshape(va.shape))


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """The bucket of each element of x among the 1-D boundaries sorted_sequence (right:
    boundaries[i-1] <= x < boundaries[i], else boundaries[i-1] < x <= boundaries[i])."""
    op = "bucketize"
    b = _args.tensor(sorted_sequence, op, "boundaries")
    if b._data.ndim != 1:
        raise ArgValueError(f"{op}(): boundaries tensor must be 1 dimension but got dim("
                            f"{b._data.ndim}). Fix: flatten the boundaries, or use "
                            "searchsorted for per-row boundaries.")
    xt = _args.input_tensor(x, op)
    r = np.searchsorted(b._data, xt._data, side="right" if right else "left")
    return wrap_as(xt._result_class, _xp.asarray(r, np.int32 if out_int32 else np.int64))


# -------------------------------------------------------------------------- bincount, histc
def bincount(x, weights=None, minlength=0, name=None):
    """The number of occurrences of each value 0..max(x) in the 1-D non-negative integer x
    (the sum of weights at them when weights is given), at least minlength bins."""
    op = "bincount"
    xt = _args.input_tensor(x, op)
    a = xt._data
    minlength = _args.integer(minlength, op, "minlength")
    if a.ndim != 1 or a.dtype.kind not in "iu" or (a.size and a.min() < 0):
        raise ArgValueError(f"{op}(): bincount only supports 1-d non-negative integral "
                            f"inputs; got shape {list(a.shape)}, dtype {a.dtype}. Fix: "
                            "flatten and cast to int64, e.g. x.reshape([-1]).astype('int64').")
    if minlength < 0:
        raise ArgValueError(f"{op}(): minlength should be >= 0, got {minlength}")
    if weights is None:
        return wrap_as(xt._result_class, np.bincount(a, minlength=minlength).astype(np.int64))
    w = _args.input_tensor(weights, op, "weights")._data
    if w.shape != a.shape:
        raise ArgValueError(f"{op}(): weights should be 1-d and have the same length as "
                            f"input; got input {list(a.shape)} and weights {list(w.shape)}")
    # PyTorch: float32 weights give float32, any other dtype float64 (Paddle: the same)
    dt = np.float32 if w.dtype == np.float32 else np.float64
    return wrap_as(xt._result_class, np.bincount(a, w.astype(np.float64),
                                                 minlength=minlength).astype(dt))


def histc(input, bins=100, min=0, max=0, name=None):  # noqa: A002
    """A histogram of input's elements in `bins` equal bins over [min, max] (both 0: the
    data's range); elements outside are ignored. Same dtype as input."""
    op = "histc"
    xt = _args.input_tensor(input, op, "input")
    a = xt._data
    if a.dtype.kind != "f":
        raise DtypeNotImplementedError(f"{op}(): \"histogram_cpu\" not implemented for "
                                       f"{a.dtype} tensors. Fix: cast to a float dtype first.")
    bins = _args.integer(bins, op, "bins")
    if bins <= 0:
        raise ArgValueError(f"{op}(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise ArgValueError(f"{op}(): max must be larger than min (got min={lo}, max={hi})")
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ArgValueError(f"{op}(): range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(a.reshape(-1), bins=bins, range=(lo, hi))
    return wrap_as(xt._result_class, counts.astype(a.dtype))


# ------------------------------------------------------------------------------------ meshgrid
def meshgrid(*args, indexing="ij", name=None):
    """Coordinate grids from 1-D (or 0-d) tensors: result i varies along dim i ('ij'), with
    the first two dims swapped for 'xy'. Each result is an expanded view, differentiable."""
    op = "meshgrid"
    ts = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    ts = [_args.tensor(t, op, "tensors") for t in ts]
    if indexing not in ("ij", "xy"):
        raise ArgValueError(f"{op}(): indexing must be one of \"xy\" or \"ij\", but received: "
                            f"{indexing}")
    if not ts:
        raise ArgValueError(f"{op}(): expects a non-empty TensorList")
    for t in ts:
        if t._data.ndim > 1:
            raise ArgValueError(f"{op}(): Expected 0D or 1D tensor in the tensor list but "
                                f"got: shape {list(t._data.shape)}")
    if len({t._data.dtype for t in ts}) > 1:
        raise ArgValueError(f"{op}(): expects all tensors to have the same dtype; got "
                            f"{[str(t._data.dtype) for t in ts]}. Fix: cast them first.")
    sizes = [t._data.size for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    order = list(range(len(ts)))
    if swap:
        order[0], order[1] = 1, 0
    shape = [sizes[i] for i in order]
    outs = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[order.index(i)] = sizes[i]
        outs.append(t.reshape(view).expand(shape))
    return outs


# -------------------------------------------------------------------------- unique_consecutive
def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
                       dtype="int64", name=None, *, dim=None):
    """x with each run of equal consecutive elements (slices along axis) kept once; with
    return_inverse each element's run index, with return_counts each run's length."""
    op = "unique_consecutive"
    if dim is not None:   # PyTorch's name for axis
        axis = dim
    xt = _args.input_tensor(x, op)
    a = xt._data
    idt = _np_dtype(dtype) or np.dtype(np.int64)
    if axis is None:
        flat = a.reshape(-1)
        change = flat[1:] != flat[:-1]
        starts = np.concatenate([[True], change]) if flat.size else np.zeros(0, bool)
        vals = flat[starts]
        inv = (np.cumsum(starts) - 1).reshape(a.shape)
    else:
        ax = _args.axis(axis, a.ndim, op)
        if any(n == 0 for d, n in enumerate(a.shape) if d != ax):
            raise ArgValueError(f"{op}(): There are 0 sized dimensions, and they aren't "
                                f"selected, so unique cannot be applied (shape {list(a.shape)}, "
                                f"dim {ax})")
        m = np.moveaxis(a, ax, 0)
        rows = m.reshape(m.shape[0], int(np.prod(m.shape[1:])))   # explicit: 0 rows allowed
        change = (rows[1:] != rows[:-1]).any(axis=1)
        starts = np.concatenate([[True], change]) if m.shape[0] else np.zeros(0, bool)
        vals = np.moveaxis(m[starts], 0, ax)
        inv = np.cumsum(starts) - 1
    idx = np.flatnonzero(starts)
    n = a.size if axis is None else (a.shape[ax] if a.ndim else 1)
    counts = np.diff(np.append(idx, n))
    out = (wrap_as(xt._result_class, _xp.ascontiguousarray(vals)),)
    if return_inverse:
        out += (wrap_as(xt._result_class, inv.astype(idt)),)
    if return_counts:
        out += (wrap_as(xt._result_class, counts.astype(idt)),)
    return out if len(out) > 1 else out[0]


registry.register_function("searchsorted", searchsorted, method=False)
registry.register_function("bucketize", bucketize)
registry.register_function("bincount", bincount)
registry.register_function("histc", histc)
registry.register_function("meshgrid", meshgrid, method=False)
registry.register_function("unique_consecutive", unique_consecutive)
