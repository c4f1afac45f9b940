"""More ops real programs call, shared by both doors where both frameworks have them:
frexp, nextafter (+ in place), diag_embed, nanmedian, quantile / nanquantile, vander,
matrix_exp, select_scatter, slice_scatter (Paddle's lists), diagonal_scatter (one declaration
each where the op is new: nextafter, diag_embed, matrix_exp; compositions of core ops
elsewhere, so gradients are the core's exact ones).

The core spellings take Paddle 3.3.1's parameter names and meanings; the torch door binds
PyTorch 2.13's keywords and out= onto them (Note [Torch signatures]) and adds its own where
the meaning differs (frexp's int32 exponent, nanmedian's lower median with (values, indices),
float_power, linalg.vander): oar/torch/_ops3.py.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor, wrap_as
from . import args as _args
from . import registry
from .pointwise import _UNSAFE, _no_kernel, _torch_door, pointwise_op
from .reduce import _b_evenly, index_tensor, pick, sorted_indices
from .registry import OpDef

F = registry.FUNCTIONS


def _floating(x, op, what="input"):
    if x._data.dtype.kind not in "fc":
        raise ArgTypeError(f"{op}(): expected a floating point {what}, got {x.dtype.name}. "
                           "Fix: cast first, e.g. x.astype('float32').")


# ---------------------------------------------------------------- frexp
def frexp(x, name=None):
    """(mantissa, exponent) with x = mantissa * 2 ** exponent and 0.5 <= |mantissa| < 1
    (0 for 0); Paddle's exponent has x's dtype (NaN where x is NaN). The mantissa is x times
    the constant 2 ** -exponent (exact: a power of two), so its gradient is g / 2 ** exponent."""
    x = _args.input_tensor(x, "frexp")
    _floating(x, "frexp")
    if x._data.dtype.kind == "c":
        raise ArgTypeError("frexp(): complex tensors are not supported. Fix: split into "
                           "x.real() and x.imag() first.")
    _, e = np.frexp(x._data)
    scale = np.ldexp(np.ones_like(x._data), -e)
    mant = x * wrap_as(x._result_class, scale)
    exp = np.where(np.isnan(x._data), np.nan, e).astype(x._data.dtype)
    return mant, wrap_as(x._result_class, exp)


# ---------------------------------------------------------------- nextafter
def _k_nextafter(out, rdt, x, y):
    return np.nextafter(_xp.asarray(x, rdt), _xp.asarray(y, rdt), out=out, dtype=rdt,
                        casting=_UNSAFE)


def _nextafter_check(op_name, args, attrs, rdt):
    if rdt.kind != "f":
        _no_kernel(op_name, "nextafter_cpu", rdt, "use floating point operands.")


pointwise_op("nextafter", _k_nextafter, None, inputs=("x", "y"), check=_nextafter_check,
             doc="The next floating point value after x in the direction of y, elementwise, "
                 "with broadcasting (no derivative, as in both frameworks).")


# ---------------------------------------------------------------- diag_embed
def _k_diag_embed(x, offset, d1, d2):
    m = x.shape[-1] if x.ndim else 1
    n = m + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), x.dtype)
    i = np.arange(m)
    out[..., i + max(-offset, 0), i + max(offset, 0)] = x
    return _xp.ascontiguousarray(np.moveaxis(out, (-2, -1), (d1, d2)))


DIAG_EMBED = OpDef(
    "diag_embed", _k_diag_embed,
    lambda ctx, g: (F["diagonal"](g, ctx.attrs[0], ctx.attrs[1], ctx.attrs[2]),),
    attrs=(("offset", 0), ("dim1", -2), ("dim2", -1)),
    doc="A tensor whose diagonals (offset, in the plane of dim1 and dim2) are x's last dim.")
DIAG_EMBED.complex_grad = True   # the backward only moves elements
registry.OPS["diag_embed"] = DIAG_EMBED


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonal (offset, in the plane of dim1 and dim2 of the result) holds
    the last dim of input; every other element is 0."""
    x = _args.input_tensor(input, "diag_embed", "input")
    offset = _args.integer(offset, "diag_embed", "offset")
    if x.ndim < 1:
        raise ArgValueError("diag_embed(): input must be at least 1-dimensional, got a 0-d "
                            "tensor. Fix: x.reshape([1]).")
    d1 = _args.axis(dim1, x.ndim + 1, "diag_embed", "dim1")
    d2 = _args.axis(dim2, x.ndim + 1, "diag_embed", "dim2")
    if d1 == d2:
        raise ArgValueError(f"diag_embed(): diagonal dimensions cannot be identical {dim1}, "
                            f"{dim2}")
    return registry.dispatch(DIAG_EMBED, (x,), (offset, d1, d2))


# ---------------------------------------------------------------- nanmedian
def nan_median_indices(a, d):
    """(lower, upper) keepdims indices along d of the two middle non-NaN elements in stable
    sorted order (NaN sorts last); an all-NaN row gives its middle element."""
    order = sorted_indices(a, d, False)
    k = a.shape[d] - (np.isnan(a).sum(axis=d, keepdims=True) if a.dtype.kind == "f" else 0)
    k = np.where(k == 0, a.shape[d], k)   # all NaN: the middle of the row, as PyTorch
    lo = (k - 1) // 2
    hi = k // 2
    lo = np.broadcast_to(lo, a.shape[:d] + (1,) + a.shape[d + 1:])
    hi = np.broadcast_to(hi, lo.shape)
    return (np.take_along_axis(order, lo, axis=d), np.take_along_axis(order, hi, axis=d))


def _k_nanmedian_all(x):
    a = x.reshape(-1)
    return _xp.array(a[nan_median_indices(a, 0)[0][0]])


registry.OPS["nanmedian_all"] = OpDef(
    "nanmedian_all", _k_nanmedian_all, _b_evenly, needs={"x": ("x", "out")},
    node_name="NanmedianBackward0", method=False, function=False,
    doc="PyTorch's nanmedian() of all elements (Note [Evenly distributed gradient]).")


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """Paddle's median of the non-NaN elements of x over axis (all elements when None):
    mode='avg' averages the two middle values of an even count; mode='min' takes the lower
    one (with an axis: (values, indices)). NaN where every element is NaN. PyTorch's
    nanmedian (the lower value; (values, indices) with a dim) is oar.torch.nanmedian."""
    x = _args.input_tensor(x, "nanmedian")
    mode = _args.one_of(mode, ("avg", "min"), "nanmedian", "mode")
    if x._data.dtype.kind in "bc":
        raise ArgTypeError(f"nanmedian(): {x.dtype.name} tensors are not supported. Fix: "
                           "cast to a real dtype first.")
    flat = axis is None
    y = x.reshape([-1]) if flat else x
    a = y._data
    d = 0 if flat else _args.axis(axis, a.ndim, "nanmedian")
    if a.ndim and a.shape[d] == 0:
        raise ArgValueError(f"nanmedian(): axis {d} has size 0: there is no median")
    if a.ndim == 0:
        y = y.reshape([1])
        a = y._data
    lo, hi = nan_median_indices(a, d)
    kd = keepdim and not flat and x.ndim > 0
    if mode == "min":
        vals = pick(y, lo, d, kd, "NanmedianBackward1")
        if flat or x.ndim == 0:
            return vals.reshape([1] * x.ndim if keepdim else [])
        # Paddle's index of an all-NaN row is -1
        idx = np.where(np.isnan(a).all(axis=d, keepdims=True), -1, lo) if a.dtype.kind == "f" \
            else lo
        return vals, index_tensor(x, idx if kd else idx.squeeze(d))
    v = pick(y, lo, d, True)
    if (lo != hi).any():
        v = (v + pick(y, hi, d, True)) / 2
    if v._data.dtype.kind != "f":
        v = v.astype("float32")
    if flat or x.ndim == 0:
        return v.reshape([1] * x.ndim if keepdim else [])
    return v if keepdim else v.squeeze(d)


# ---------------------------------------------------------------- quantile, nanquantile
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_qs(q, x, op):
    """(list of Python floats, whether q was a scalar)."""
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise ArgValueError(f"{op}(): q must be a scalar or 1D tensor, got a {q.ndim}D "
                                "tensor")
        if q._data.dtype.kind != "f":
            raise ArgTypeError(f"{op}(): q must be a floating point tensor, got "
                               f"{q.dtype.name}")
        if _torch_door((x,)) and q._data.dtype != x._data.dtype:
            raise ArgTypeError(f"{op}(): quantile() q tensor must be same dtype as the input "
                               f"tensor, got {q.dtype.name} and {x.dtype.name}")
        scalar = q.ndim == 0
        vals = [float(v) for v in _xp.asarray(q._data).reshape(-1)]
    elif isinstance(q, (list, tuple)):
        scalar = False
        vals = [float(_args.number(v, op, "q")) for v in q]
    else:
        scalar = True
        vals = [float(_args.number(q, op, "q"))]
    for v in vals:
        if not 0.0 <= v <= 1.0:   # (NaN fails too)
            raise ArgValueError(f"{op}(): q values must be in the range [0, 1], got {v}")
    return vals, scalar


def _quantile(x, q, axis, keepdim, interpolation, ignore_nan, op):
    x = _args.input_tensor(x, op)
    if x._data.dtype.kind != "f":
        raise ArgTypeError(f"{op}(): input tensor must be either float or double dtype, got "
                           f"{x.dtype.name}. Fix: x.astype('float32').")
    qs, scalar = _quantile_qs(q, x, op)
    interpolation = _args.one_of(interpolation, _INTERPOLATIONS, op, "interpolation")
    if x.numel() == 0:
        raise ArgValueError(f"{op}(): input tensor must be non-empty")
    nd = x.ndim
    if nd == 0:   # one element: the dims a 0-d tensor accepts (0, -1) name it
        if axis is not None and not isinstance(axis, (list, tuple)):
            _args.axis(axis, 0, op)
        r = _quantile(x.reshape([1]), q, None, False, interpolation, ignore_nan, op)
        return r
    if axis is None:
        axes = list(range(nd))
    elif isinstance(axis, (list, tuple)):
        axes = sorted({_args.axis(a, nd, op) for a in axis})
    else:
        axes = [_args.axis(axis, nd, op)]
    keep = [i for i in range(nd) if i not in axes]
    # the reduced axes moved last and merged into one
    y = F["transpose"](x, keep + axes) if axes and keep + axes != list(range(nd)) else x
    y = y.reshape([y.shape[i] for i in range(len(keep))] + [-1])
    s = F["sort"](y, -1)          # NaN last; the values carry sort's gradient
    a = s._data
    n = a.shape[-1]
    nans = np.isnan(a).sum(-1, keepdims=True)
    # a q tensor gets the gradient of the linear weights, as in PyTorch (rank = q * (k - 1))
    qt = q.reshape([-1]).astype(s.dtype) if isinstance(q, Tensor) else None
    outs = []
    for i, qv in enumerate(qs):
        if ignore_nan:
            rank = qv * np.maximum(n - nans - 1, 0)
        else:   # a row holding NaN: the last position (a NaN)
            rank = np.where(nans > 0, n - 1, qv * (n - 1)).astype(np.float64)
        lo = np.floor(rank).astype(np.int64)
        hi = np.ceil(rank).astype(np.int64)
        if interpolation == "lower":
            r = F["take_along_axis"](s, wrap_as(x._result_class, lo), -1)
        elif interpolation == "higher":
            r = F["take_along_axis"](s, wrap_as(x._result_class, hi), -1)
        elif interpolation == "nearest":
            r = F["take_along_axis"](s, wrap_as(x._result_class,
                                                np.round(rank).astype(np.int64)), -1)
        else:
            below = F["take_along_axis"](s, wrap_as(x._result_class, lo), -1)
            above = F["take_along_axis"](s, wrap_as(x._result_class, hi), -1)
            if interpolation == "midpoint":
                w = 0.5
            elif qt is not None and qt.requires_grad:
                span = (np.maximum(n - nans - 1, 0) if ignore_nan
                        else np.full(nans.shape, n - 1)).astype(a.dtype)
                rank_t = qt[i] * wrap_as(x._result_class, span)
                if not ignore_nan and nans.any():
                    rank_t = F["where"](wrap_as(x._result_class, nans > 0),
                                        wrap_as(x._result_class, span), rank_t)
                w = rank_t - wrap_as(x._result_class, lo.astype(a.dtype))
            else:
                w = wrap_as(x._result_class, (rank - lo).astype(a.dtype))
            r = below + (above - below) * w
        outs.append(r.squeeze(-1))
    res = outs[0].unsqueeze(0) if len(outs) == 1 else F["stack"](outs, 0)
    if keepdim:
        shape = [1 if i in axes else x.shape[i] for i in range(nd)]
        res = res.reshape([len(qs)] + shape)
    if scalar:
        res = res.squeeze(0)
    return res


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-th quantiles of x over axis (all elements when None; a list of axes merged):
    interpolation 'linear', 'lower', 'higher', 'midpoint' or 'nearest' between the two
    sorted neighbours. A list or 1-D q puts the quantiles in a new leading dim. NaN where
    the reduced elements hold a NaN."""
    return _quantile(x, q, axis, keepdim, interpolation, False, "quantile")


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """quantile of the non-NaN elements (NaN where every element is NaN)."""
    return _quantile(x, q, axis, keepdim, interpolation, True, "nanquantile")


# ---------------------------------------------------------------- vander
def linalg_vander(x, N=None):
    """PyTorch's linalg.vander: the increasing powers x**0 ... x**(N-1) of x's last dim in
    a new last dim, as PyTorch builds it (ones, then a running product: exact gradients
    at 0)."""
    x = _args.tensor(x, "linalg.vander", "x")
    if x.ndim == 0:   # PyTorch treats a 0-d x as one element
        x = x.reshape([1])
    n = x.shape[-1] if N is None else _args.integer(N, "linalg.vander", "N")
    if n < 0:
        raise ArgValueError(f"linalg.vander(): N must be non-negative, got {n}")
    if x._data.dtype.kind == "b":
        x = x.astype("int64")
    ones = F["ones_like"](x).unsqueeze(-1)
    if n <= 1:
        return ones[..., :n]
    pw = F["cumprod"](x.unsqueeze(-1).expand(list(x.shape) + [n - 1]), -1)
    return F["concat"]([ones, pw], -1)


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of 1-D x: columns x**(n-1) ... x**0 (x**0 ... x**(n-1) when
    increasing); n defaults to x's length."""
    x = _args.input_tensor(x, "vander")
    if x.ndim != 1:
        raise ArgValueError(f"vander(): x must be a one-dimensional tensor, got {x.ndim} "
                            "dimensions")
    if n is not None and _args.integer(n, "vander", "n") < 0:
        raise ArgValueError(f"vander(): N must be non-negative, got {n}")
    if x._data.dtype.kind in "biu":
        x = x.astype("int64")
    v = linalg_vander(x, n)
    return v if increasing else F["flip"](v, [-1])


# ---------------------------------------------------------------- matrix_exp
# Note [Matrix exponential]
# The forward is scaling and squaring with the degree-13 Pade approximant (Higham 2005):
# A is scaled by 2**-s until its 1-norm is below theta_13, the approximant r(A) = (V - U)^-1
# (V + U) is formed, and squared s times; s is chosen per matrix of a batch. Float32 input is
# computed in float64 and rounded once. The backward uses the block-matrix identity: for
# M = [[A^H, G], [0, A^H]], exp(M)'s top-right block is the adjoint of exp's derivative at A
# applied to G (Mathias 1996), so the gradient is one more matrix_exp of a 2n x 2n matrix,
# built from core ops (double backward works).
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _k_matrix_exp(x):
    dt = x.dtype
    a = x.astype(np.complex128 if dt.kind == "c" else np.float64)
    if a.size == 0:
        return _xp.array_module(x).zeros(x.shape, dt)
    norm = np.abs(a).sum(-2).max(-1)
    with np.errstate(divide="ignore"):
        s = np.where(norm > _THETA13, np.ceil(np.log2(np.maximum(norm, 1e-300) / _THETA13)),
                     0).astype(np.int64)
    s = np.clip(s, 0, 1074)
    a = a / np.exp2(s)[..., None, None]
    b = _PADE13
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * eye
    with np.errstate(all="ignore"):
        try:
            r = np.linalg.solve(v - u, v + u)
        except np.linalg.LinAlgError:
            r = np.full(a.shape, np.nan, a.dtype)
        for i in range(int(s.max()) if s.size else 0):
            r = np.where((s > i)[..., None, None], r @ r, r)
    return r.astype(dt)


def _b_matrix_exp(ctx, g):
    a = ctx.input(0)
    n = a.shape[-1]
    ah = F["transpose"](a, list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])
    if a._data.dtype.kind == "c":
        ah = ah.conj()
    top = F["concat"]([ah, g], -1)
    bottom = F["concat"]([F["zeros_like"](ah), ah], -1)
    e = matrix_exp(F["concat"]([top, bottom], -2))
    return (e[..., :n, n:],)


MATRIX_EXP = OpDef("matrix_exp", _k_matrix_exp, _b_matrix_exp, needs={"x": ("x",)},
                   node_name="LinalgMatrixExpBackward0",
                   doc="The matrix exponential of each square matrix in x's last two dims.")
MATRIX_EXP.complex_grad = True
registry.OPS["matrix_exp"] = MATRIX_EXP


def matrix_exp(x, name=None):
    """The matrix exponential exp(A) = sum A**k / k! of each square matrix in x's last two
    dims (Note [Matrix exponential])."""
    x = _args.input_tensor(x, "matrix_exp")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ArgValueError(f"linalg.matrix_exp(): A must be batches of square matrices, but "
                            f"they are {list(x.shape[-2:]) if x.ndim >= 2 else list(x.shape)}"
                            " matrices")
    if x._data.dtype.kind not in "fc" or x._data.dtype == np.float16:
        raise ArgTypeError(f"linalg.matrix_exp(): expected a float32, float64 or complex "
                           f"tensor, got {x.dtype.name}. Fix: x.astype('float32').")
    return registry.dispatch(MATRIX_EXP, (x,), ())


registry.register_function("frexp", frexp)
registry.register_function("diag_embed", diag_embed)
registry.register_function("nanmedian", nanmedian)
registry.register_function("quantile", quantile)
registry.register_function("nanquantile", nanquantile)
registry.register_function("vander", vander, method=False)


# ---------------------------------------------------------------- select/slice/diagonal_scatter
# x with one view of it (a selected index, a slice, a diagonal) replaced by src: a copy of x
# whose view is then written through copy_, so the gradient is the core's exact one (x's
# gradient with the view's positions zeroed, src's the view of the gradient).
def _scatter_view(x, src, view, op, src_name):
    x = _args.input_tensor(x, op)
    src = _args.input_tensor(src, op, src_name)
    target = view(x)
    if list(src.shape) != list(target.shape):
        raise ArgValueError(f"{op}(): expected {src_name} to have a size equal to the slice of "
                            f"input: {src_name} size {list(src.shape)}, slice size "
                            f"{list(target.shape)}")
    out = x.clone()
    F["copy_"](view(out), src)
    return out


def select_scatter(x, values, axis, index, name=None):
    """x with the slice at `index` along axis replaced by values (x's shape without axis)."""
    x = _args.input_tensor(x, "select_scatter")
    d = _args.axis(axis, x.ndim, "select_scatter")
    i = _args.integer(index, "select_scatter", "index")
    if x.ndim == 0 or not -x.shape[d] <= i < x.shape[d]:
        raise ArgValueError(f"select_scatter(): index {i} out of range for tensor of size "
                            f"{list(x.shape)} at dimension {d}")
    key = (slice(None),) * d + (i,)
    return _scatter_view(x, values, lambda t: t[key], "select_scatter", "values")


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """x with its diagonal (offset, in the plane of axis1 and axis2) replaced by y."""
    x = _args.input_tensor(x, "diagonal_scatter")
    return _scatter_view(x, y, lambda t: F["diagonal"](t, offset, axis1, axis2),
                         "diagonal_scatter", "src")


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """Paddle's slice_scatter: x with the strided slice starts:ends:strides on each of axes
    replaced by value."""
    x = _args.input_tensor(x, "slice_scatter")
    lists = [list(v) if isinstance(v, (list, tuple)) else None
             for v in (axes, starts, ends, strides)]
    if any(v is None for v in lists) or len({len(v) for v in lists}) != 1:
        raise ArgValueError("slice_scatter(): axes, starts, ends and strides must be lists of "
                            "one length")
    key = [slice(None)] * x.ndim
    for a, s, e, st in zip(*lists):
        d = _args.axis(a, x.ndim, "slice_scatter", "axes")
        st = _args.integer(st, "slice_scatter", "strides")
        if st <= 0:
            raise ArgValueError(f"slice_scatter(): strides must be positive, got {st}")
        key[d] = slice(_args.integer(s, "slice_scatter", "starts"),
                       _args.integer(e, "slice_scatter", "ends"), st)
    key = tuple(key)
    return _scatter_view(x, value, lambda t: t[key], "slice_scatter", "value")


registry.register_function("select_scatter", select_scatter)
registry.register_function("diagonal_scatter", diagonal_scatter)
registry.register_function("slice_scatter", slice_scatter)
