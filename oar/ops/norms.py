"""Norms: paddle.norm (vector and matrix norms) and paddle.dist (the p-norm of x - y).

Paddle's meaning (Paddle 3.3's tensor/linalg.py): p=None is 2 (Frobenius for a whole
tensor); an int axis (or None) takes a vector norm; a list of two axes takes a matrix norm,
where 2 / -2 are the largest / smallest singular value ('nuc' their sum), 1 / -1 the max /
min column sum and inf / -inf the max / min row sum of |x|. PyTorch's torch.norm reads
p=2 with two dims as the Frobenius norm instead (docs/doors.md, disagreement table).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from ..autograd import grad_mode
from ..tensor import Tensor, wrap_as
from . import args as _args
from .registry import FUNCTIONS
from . import registry
from .reduce import _axes, _keep_shape

_MATRIX_P = ("fro", "nuc", 1, -1, math.inf, -math.inf, 2, -2)


class _NormDTypeError(_args.ArgTypeError, ValueError):
    """Operands of different dtypes (Paddle: ValueError; oar: TypeError too)."""


class _CdistArgError(_args.ArgValueError, AssertionError):
    """A cdist argument out of its domain (PyTorch: RuntimeError; Paddle: AssertionError)."""


def _k_pnorm(x, p, axes, keepdim):
    a = np.abs(x)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if p == math.inf:
            r = np.max(a, axis=axes, keepdims=keepdim, initial=0)
        elif p == -math.inf:
            r = np.min(a, axis=axes, keepdims=keepdim, initial=np.inf)
        elif p == 0:
            r = np.sum(a != 0, axis=axes, keepdims=keepdim)
        elif p == 1:
            r = np.sum(a, axis=axes, keepdims=keepdim)
        elif p == 2:
            r = np.sqrt(np.sum(a * a, axis=axes, keepdims=keepdim))
        else:
            r = np.sum(a ** p, axis=axes, keepdims=keepdim) ** (1.0 / p)
    return _xp.asarray(r, dtype=_dt.to_real(x.dtype))   # a complex x: a real norm, as PyTorch


def _b_pnorm(ctx, g):
    p, axes, _ = ctx.attrs
    if p == 0 and _undefined_zero_grad(g):
        return (None,)
    return (_pnorm_grad(ctx.input(0), p, axes, g, ctx.out),)


def _undefined_zero_grad(g):
    """The p=0 norm's gradient: PyTorch's is undefined (.grad stays None), Paddle's zeros;
    the door is the gradient's class (Note [Result class]), as in _pnorm_grad."""
    return g._result_class is not Tensor


def _pnorm_grad(x, p, axes, g, n):
    """The gradient of the p-norm n of x over axes for the incoming gradient g."""
    ks = list(_keep_shape(x._data.shape, axes))
    g = g.reshape(ks)
    n = n.reshape(ks)
    if p == 0:
        return x * 0.0
    if p in (math.inf, -math.inf):
        mask = (x.abs() == n).astype(x.dtype)
        if g._result_class is Tensor:    # Paddle: every element at the extreme gets it all
            return g * x.sgn() * mask
        # PyTorch: elements tied at the extreme share the gradient evenly
        count = mask.sum(axis=list(axes) if axes is not None else None, keepdim=True)
        return x.sgn() * (g / count * mask)
    if p == 1:   # sgn: x / |x| for a complex x (Note [Complex autograd]), sign for a real one
        return g * x.sgn()
    safe = n + (n == 0).astype(n.dtype)  # a zero norm has a zero gradient (x is zero there)
    if p == 2:
        return g * x / safe
    a = x.abs()
    if g._result_class is Tensor:
        # Paddle's formula as it is: for p < 1 a zero element gives 0 * inf = nan
        return g * x.sgn() * a.pow(p - 1.0) / safe.pow(p - 1.0)
    # PyTorch's: a zero element has a zero gradient (for p < 1, |0|^(p-1) is inf), and so
    # has a zero norm (p < 0 with a zero element) everywhere
    a = a + (a == 0).astype(a.dtype)
    return g * x.sgn() * a.pow(p - 1.0) / safe.pow(p - 1.0) * (n != 0).astype(n.dtype)


# PyTorch's nodes: torch.norm / linalg.vector_norm are LinalgVectorNormBackward0, dist(x, y)
# one op DistBackward0 saving x, y and the result (no x - y kept), Note [Node names]
P_NORM = registry.OpDef(
    "p_norm", _k_pnorm, _b_pnorm, needs={"x": ("x", "out")},
    attrs=(("p", 2.0), ("axis", None), ("keepdim", False)), function=False, method=False,
    node_name="LinalgVectorNormBackward",
    doc="The vector p-norm of x over axis: (sum |x|^p)^(1/p); inf / -inf the max / min of "
        "|x|, 0 the count of nonzeros.")


def _b_dist(ctx, g):
    if ctx.attrs[0] == 0 and _undefined_zero_grad(g):
        return (None, None)
    d = ctx.input(0) - ctx.input(1)
    gd = _pnorm_grad(d, ctx.attrs[0], None, g, ctx.out)
    return (gd if ctx.needs[0] else None, -gd if ctx.needs[1] else None)


DIST = registry.OpDef(
    "dist", lambda x, y, p: _k_pnorm(x - y, p, None, False), _b_dist, inputs=("x", "y"),
    needs={"x": ("x", "y", "out"), "y": ("x", "y", "out")}, attrs=(("p", 2.0),),
    function=False, method=False, doc="The p-norm of x - y (broadcast) over every element.")


def _moved(x, axes):
    return np.moveaxis(x, axes, (-2, -1))


def _k_svnorm(x, kind, axes, keepdim):
    s = np.linalg.svd(_moved(x, axes), compute_uv=False)
    r = s.max(-1) if kind == 2 else s.min(-1) if kind == -2 else s.sum(-1)
    if keepdim:
        r = np.expand_dims(r, tuple(sorted(axes)))
    return _xp.asarray(r, dtype=x.dtype)


def _b_svnorm(ctx, g):
    if grad_mode.STATE.enabled:
        raise NotImplementedError("norm(): second derivatives of the spectral (p=2, -2) and "
                                  "nuclear ('nuc') matrix norms are not supported (the "
                                  "backward uses a NumPy SVD)")
    kind, axes, keepdim = ctx.attrs
    x = ctx.input(0)._data
    u, s, vh = np.linalg.svd(_moved(x, axes), full_matrices=False)
    if kind == "nuc":
        d = u @ vh
    else:
        i = np.argmax(s, -1) if kind == 2 else np.argmin(s, -1)
        ui = np.take_along_axis(u, i[..., None, None], -1)                  # [..., m, 1]
        vi = np.take_along_axis(vh, i[..., None, None], -2)                 # [..., 1, n]
        d = ui @ vi
    gd = g._data
    if keepdim:
        gd = np.squeeze(gd, tuple(sorted(axes)))
    grad = np.moveaxis(d * gd[..., None, None], (-2, -1), axes)
    return (wrap_as(g._result_class, _xp.ascontiguousarray(grad, dtype=x.dtype)),)


SV_NORM = registry.OpDef(
    "sv_norm", _k_svnorm, _b_svnorm, needs={"x": ("x",)},
    attrs=(("kind", "nuc"), ("axis", (0, 1)), ("keepdim", False)), function=False,
    method=False, doc="A matrix norm from the singular values of x over two axes.")


def _b_svdvals(ctx, g):
    if grad_mode.STATE.enabled:
        raise NotImplementedError("svdvals(): second derivatives are not supported (the "
                                  "backward uses a NumPy SVD)")
    u, _, vh = np.linalg.svd(ctx.input(0)._data, full_matrices=False)
    grad = (u * g._data[..., None, :]) @ vh     # U diag(g) Vh
    return (wrap_as(g._result_class, _xp.ascontiguousarray(grad)),)


# the singular values of the matrices in x's last two dims, largest first: PyTorch's
# linalg.svdvals (node LinalgSvdBackward0), which its nuclear norm sums
SVDVALS = registry.OpDef(
    "svdvals", lambda x: _xp.asarray(np.linalg.svd(x, compute_uv=False), dtype=x.dtype),
    _b_svdvals, needs={"x": ("x",)}, function=False, method=False,
    node_name="LinalgSvdBackward", doc="The singular values of x's last two dims.")


def nuclear_norm(x, dims, keepdim, op="norm"):
    """PyTorch's nuclear norm over two dims, node for node as its linalg.matrix_norm: the dims
    permuted last, svdvals, the sum over them (SumBackward1), and for keepdim an unsqueeze
    and the inverse permutation."""
    x = _float_input(x, op)
    d0, d1 = _args.axes(list(dims), x._data.ndim, op)
    if d0 == d1:
        raise _args.ArgValueError(f"{op}(): dims must be different. Got ({d0}, {d1})")
    perm = [d for d in range(x._data.ndim) if d not in (d0, d1)] + [d0, d1]
    r = FUNCTIONS["sum"](registry.dispatch(SVDVALS, (FUNCTIONS["permute"](x, perm),), ()),
                         axis=-1, keepdim=keepdim)
    if not keepdim:
        return r
    r = FUNCTIONS["unsqueeze"](r, -1)
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return FUNCTIONS["permute"](r, inv)


def _float_input(x, op):
    x = _args.input_tensor(x, op)
    if x._data.dtype.kind != "f":
        raise _args.ArgTypeError(f"{op}(): expected a floating point tensor (float32 or "
                                 f"float64), got {x.dtype.name}. Fix: cast it first, e.g. "
                                 "x.astype('float32')")
    return x


def _p_value(p, op):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise _args.ArgValueError(f"{op}(): p must be a number (or 'fro' / 'nuc' for a matrix "
                                  f"norm), got {p!r}")
    return float(p)


def _vector_norm(x, p, axis, keepdim, op):
    p = _p_value(p, op)
    if math.isnan(p):
        raise _args.ArgValueError(f"{op}(): p must not be nan")
    return registry.dispatch(P_NORM, (x,), (p, _axes(axis, x._data.ndim, op), bool(keepdim)))


def _matrix_norm(x, p, axis, keepdim, op):
    if not isinstance(axis, (list, tuple)) or len(axis) != 2:
        raise _args.ArgValueError(f"{op}(): except axis type int or list (length of list == 2), "
                                  f"found {len(axis) if isinstance(axis, (list, tuple)) else axis}")
    if isinstance(p, bool) or p not in _MATRIX_P:
        raise _args.ArgValueError(f"{op}(): just support p value 'fro','nuc',1,-1,inf,-inf,2,-2 "
                                  f"if axis is 2D, found {p}")
    ax = _args.axes(list(axis), x._data.ndim, op)
    if len(set(ax)) != 2:
        raise _args.ArgValueError(f"{op}(): the two axes of a matrix norm must differ, got {axis}")
    a0, a1 = ax
    if p == "fro":
        return registry.dispatch(P_NORM, (x,), (2.0, tuple(sorted(ax)), bool(keepdim)))
    if p in ("nuc", 2, -2):
        return registry.dispatch(SV_NORM, (x,), (p, (a0, a1), bool(keepdim)))
    # 1 / -1: max / min over columns of the column sums; inf / -inf: over rows of row sums
    inner, outer = (a0, a1) if p in (1, -1) else (a1, a0)
    s = x.abs().sum(axis=inner, keepdim=True)
    # Note [Door-neutral core]: the core functions, not the door's methods
    reduce = FUNCTIONS["amax"] if p in (1, math.inf) else FUNCTIONS["amin"]
    r = reduce(s, axis=outer, keepdim=True)
    return r if keepdim else r.squeeze(axis=sorted(ax))


def norm(x, p=None, axis=None, keepdim=False, out=None, dtype=None, name=None):
    """Paddle's norm of x: a vector p-norm over axis (an int, or None for every element;
    p=None is 2), or, over a list of two axes, the matrix norm p in 'fro', 'nuc', 1, -1, inf,
    -inf, 2, -2 (2 is the largest singular value)."""
    op = "norm"
    if out is not None:
        raise NotImplementedError("norm(): out= is not supported; use the returned tensor")
    x = _args.input_tensor(x, op)
    if dtype is not None:
        x = x.astype(dtype)
    x = _float_input(x, op)
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if isinstance(p, str):
        if p == "fro" and (axis is None or not isinstance(axis, list)):
            return _vector_norm(x, 2.0, axis, keepdim, op)
        if p not in ("fro", "nuc"):
            raise _args.ArgValueError(f"{op}(): just support p value 'fro','nuc',1,-1,inf,-inf,"
                                      f"2,-2 if axis is 2D, found {p}")
        return _matrix_norm(x, p, list(range(x._data.ndim)) if axis is None else axis,
                            keepdim, op)
    p = 2.0 if p is None else p
    if isinstance(axis, list) and len(axis) == 2:
        return _matrix_norm(x, p, axis, keepdim, op)
    return _vector_norm(x, p, axis, keepdim, op)


def dist(x, y, p=2, name=None):
    """The p-norm of x - y (broadcast) over every element: a 0-d tensor; p=0 counts the
    nonzero differences, inf / -inf take the max / min |x - y|."""
    op = "dist"
    x = _float_input(x, op)
    y = _float_input(_args.input_tensor(y, op, "y"), op)
    if x.dtype != y.dtype:
        raise _NormDTypeError(f"{op}(): x and y must have the same dtype, got {x.dtype.name} "
                              f"and {y.dtype.name}")
    p = _p_value(p, op)
    if math.isnan(p):
        raise _args.ArgValueError(f"{op}(): p must not be nan")
    registry.broadcast_shapes(op, [x._data.shape, y._data.shape])
    return registry.dispatch(DIST, (x, y), (p,))


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    """Paddle's linalg.vector_norm: the p-norm of x over axis (an int, a list of axes, or None
    for every element); p=0 counts nonzeros, inf / -inf take the max / min of |x|."""
    op = "vector_norm"
    if out is not None:
        raise NotImplementedError(f"{op}(): out= is not supported; use the returned tensor")
    x = _args.input_tensor(x, op)
    if dtype is not None:
        x = x.astype(dtype)
    x = _float_input(x, op)
    if isinstance(axis, tuple):
        axis = list(axis)
    return _vector_norm(x, p, axis, keepdim, op)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
    """Paddle's linalg.matrix_norm: the matrix norm p in 'fro', 'nuc', 1, -1, inf, -inf, 2, -2
    of the matrices over the two axes (the last two by default)."""
    op = "matrix_norm"
    x = _float_input(x, op)
    if x._data.ndim < 2:
        raise _args.ArgValueError(f"{op}(): the input must have at least 2 dims, got shape "
                                  f"{list(x._data.shape)}")
    return _matrix_norm(x, p, list(axis) if isinstance(axis, tuple) else axis, keepdim, op)


# ------------------------------------------------------------------------------------ cdist
def _k_cdist(x1, x2, p, compute_mode):
    # every pair's difference at once: [..., P, R, M] (the p-norm kernel over the last dim)
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    return _k_pnorm(diff, p, -1, False)


def _b_cdist(ctx, g):
    # the p-norm's gradient of each pair's difference, summed over the other set's rows
    # (PyTorch's CdistBackward0 formulas: 0 where the distance is 0, both signs of a tie in
    # the inf norm); written in oar ops, so differentiable again
    f = FUNCTIONS
    x1, x2 = ctx.input(0), ctx.input(1)
    diff = f["unsqueeze"](x1, -2) - f["unsqueeze"](x2, -3)
    gd = _pnorm_grad(diff, ctx.attrs[0], (diff._data.ndim - 1,), g, ctx.out)
    return (f["sum"](gd, axis=-2) if ctx.needs[0] else None,
            -f["sum"](gd, axis=-3) if ctx.needs[1] else None)


CDIST = registry.OpDef(
    "cdist", _k_cdist, _b_cdist, inputs=("x", "y"),
    needs={"x": ("x", "y", "out"), "y": ("x", "y", "out")},
    attrs=(("p", 2.0), ("compute_mode", "use_mm_for_euclid_dist_if_necessary")),
    function=False, method=False,
    doc="The p-norm distance between each row of x and each row of y (batched).")
_COMPUTE_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                  "donot_use_mm_for_euclid_dist")


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """The p-norm distance between each row vector of x [..., P, M] and of y [..., R, M]:
    [..., P, R], batch dims broadcast. p=0 counts the differing coordinates, inf takes the
    largest. compute_mode is accepted; the differences are always taken directly (exact for
    p=2 too, where PyTorch's matrix-product path may lose digits)."""
    op = "cdist"
    x = _args.input_tensor(x, op, "x1")
    y = _args.input_tensor(y, op, "x2")
    for t, nm in ((x, "X1"), (y, "X2")):
        if t._data.ndim < 2:
            raise _CdistArgError(f"{op}(): cdist only supports at least 2D tensors, {nm} "
                                      f"got: {t._data.ndim}D")
    for t, nm in ((x, "X1"), (y, "X2")):
        if t._data.dtype.kind != "f":
            raise _args.ArgTypeError(f"{op}(): cdist only supports floating-point dtypes, {nm} "
                                     f"got: {t.dtype.name}. Fix: cast it, e.g. x.double()")
    if x._data.dtype != y._data.dtype:
        raise _NormDTypeError(f"{op}(): expected both inputs of one dtype, got "
                              f"{x.dtype.name} and {y.dtype.name}. Fix: cast one of them.")
    if x._data.shape[-1] != y._data.shape[-1]:
        raise _CdistArgError(f"{op}(): X1 and X2 must have the same number of columns. "
                                  f"X1: {x._data.shape[-1]} X2: {y._data.shape[-1]}")
    p = _p_value(p, op)
    if math.isnan(p) or p < 0:
        raise _CdistArgError(f"{op}(): cdist only supports non-negative p values, got {p}")
    if compute_mode is None:
        compute_mode = _COMPUTE_MODES[0]
    if compute_mode not in _COMPUTE_MODES:
        raise _args.ArgValueError(f"{op}(): {compute_mode} is not a valid value for "
                                  f"compute_mode; one of {', '.join(_COMPUTE_MODES)}")
    registry.broadcast_shapes(op, [x._data.shape[:-2], y._data.shape[:-2]])
    return registry.dispatch(CDIST, (x, y), (p, compute_mode))


registry.register_function("norm", norm)
registry.register_function("dist", dist)
registry.register_function("cdist", cdist)
