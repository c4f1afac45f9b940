"""Everyday tensor ops both frameworks have: atan2/arctan2, logaddexp, logaddexp2 (pointwise
declarations: function, method, out=; atan2 also in place); dot, mv, rot90, nansum (one op each, with
PyTorch's node); and compositions of core ops where PyTorch's own op is a composition too:
diff, nanmean, repeat_interleave, take_along_dim, fliplr, flipud, tensordot, matrix_power,
isin (no gradient), and Paddle's broadcast_tensors / broadcast_shape / atleast_*d.

The core spellings take Paddle 3.3.1's parameter names; the torch door binds PyTorch 2.13's
keywords and out= onto them (Note [Torch signatures]) and, where the meaning differs (dot of
2-D operands, repeat_interleave(repeats)), adds its own function in oar/torch/_functions.py.
"""
from __future__ import annotations

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError, DtypeNotImplementedError
from ..tensor import Tensor, wrap_as
from . import args as _args
from . import registry
from .pointwise import _UNSAFE, _cj, _no_kernel, _torch_door, float_result, pointwise_op
from .reduce import _expand_back, _reduction
from .scans import complex_logaddexp
from .registry import OpDef

F = registry.FUNCTIONS
_LN2 = float(np.log(2.0))


def _in_float(rdt, *arrays):
    return [_xp.asarray(a, dtype=rdt) for a in arrays]


def _float_only(kernel):
    """check= for ops PyTorch has no integer kernel for (logaddexp of Long is refused);
    Paddle computes them in float32, which the core's float_result gives."""
    def check(op_name, args, attrs, rdt):
        if _torch_door(args) and all(not isinstance(a, Tensor) or a._data.dtype.kind in "biu"
                                     for a in args):
            dt = next(a._data.dtype for a in args if isinstance(a, Tensor))
            _no_kernel(op_name, kernel, dt, "cast to a floating dtype first, e.g. x.float().")
    return check


# ---------------------------------------------------------------- atan2, logaddexp(2)
def _atan2_k(out, rdt, x, y):
    if rdt == np.float64 and all(_xp.asarray(a).dtype.kind in "biu" for a in (x, y)):
        # the Paddle door's integer atan2 (_atan2_dtype): paddle 3.3.1 returns float64 holding
        # float32-precision values (within 1 ulp of float32 of the exact angle, not always
        # the nearest); oar gives the exact angle rounded to float32, widened to float64
        r = np.arctan2(*_in_float(np.dtype(np.float64), x, y)).astype(np.float32)
        r = r.astype(np.float64)
        if out is None:
            return r
        np.copyto(out, r, casting=_UNSAFE)
        return out
    x, y = _in_float(rdt, x, y)
    return np.arctan2(x, y, out=out, dtype=rdt, casting=_UNSAFE)


def _atan2_back(ctx, g):
    x, y = ctx.input(0), ctx.input(1)
    r = x * x + y * y
    return (g * y / r if ctx.needs[0] else None, g * -x / r if ctx.needs[1] else None)


def _atan2_dtype(rdt, operands):
    # Paddle 3.3.1 computes atan2 of int32/int64 tensors in float64, PyTorch in its default
    # float32 (Note [Door conflicts]); floating and complex operands keep their dtype in both
    if rdt.kind in "biu" and not _torch_door(operands):
        return np.dtype(np.float64)
    return float_result(rdt)


_atan2_dtype.door_aware = True
pointwise_op("atan2", _atan2_k, _atan2_back, needs={"x": ("x", "y"), "y": ("x", "y")},
  inputs=("x", "y"), result_dtype=_atan2_dtype, aliases=("arctan2",),
  doc="Elementwise arctangent of x / y, in the quadrant of (y, x), with broadcasting.")


def _logaddexp_k(base):
    def k(out, rdt, x, y):
        x, y = _in_float(rdt, x, y)
        if rdt.kind == "c":   # logaddexp only: logaddexp2 refuses complex operands
            r = complex_logaddexp(x, y)
            if out is None:
                return r.astype(rdt, copy=False)
            np.copyto(out, r, casting=_UNSAFE)
            return out
        uf = np.logaddexp if base == "e" else np.logaddexp2
        with np.errstate(invalid="ignore"):
            return uf(x, y, out=out, dtype=rdt, casting=_UNSAFE)
    return k


def _logaddexp_back(two):
    # d/dx log(e^x + e^y) = 1 / (1 + e^(y - x)): the sigmoid of x - y (finite for any x, y)
    def back(ctx, g):
        x, y = ctx.input(0), ctx.input(1)
        d = (x - y) * _LN2 if two else x - y
        # Note [Complex autograd]: g * conj(f'(z)) (conj is the identity for real d)
        return (g * _cj(F["sigmoid"](d)) if ctx.needs[0] else None,
                g * _cj(F["sigmoid"](-d)) if ctx.needs[1] else None)
    return back


def _logaddexp_check(op_name, args, attrs, rdt):
    # PyTorch 2.13 computes logaddexp of complex tensors; Paddle 3.3.1 has no complex kernel
    # (its maximum is not registered for complex64), so its door refuses them
    if rdt.kind == "c" and not _torch_door(args):
        _no_kernel(op_name, "maximum", rdt, "Paddle has no complex logaddexp; compute "
                   "log(exp(x) + exp(y)) with complex exp and log.")
    return _float_only("logaddexp_cpu")(op_name, args, attrs, rdt)


LOGADDEXP = pointwise_op("logaddexp", _logaddexp_k("e"), _logaddexp_back(False),
  needs={"x": ("x", "y"), "y": ("x", "y")}, inputs=("x", "y"), result_dtype=float_result,
  check=_logaddexp_check, inplace=False,
  doc="Elementwise log(exp(x) + exp(y)), without overflow, with broadcasting.")
# Note [Complex autograd]: checked against torch in tests/test_paddle_exact2.py
LOGADDEXP.complex_grad = True
pointwise_op("logaddexp2", _logaddexp_k("2"), _logaddexp_back(True),
  needs={"x": ("x", "y"), "y": ("x", "y")}, inputs=("x", "y"), result_dtype=float_result,
  check=_float_only("logaddexp2_cpu"), inplace=False,
  doc="Elementwise log2(2**x + 2**y), without overflow, with broadcasting.")


# ---------------------------------------------------------------- dot, mv
def _same_dtype(op, a, b, what):
    if a._data.dtype != b._data.dtype:
        raise ArgTypeError(f"{op} : expected both {what} to have same dtype, but found "
                           f"{a.dtype.name} and {b.dtype.name}. Fix: cast one operand, e.g. "
                           f"y.astype(x.dtype).")


def _k_dot(x, y):
    if x.dtype.kind == "b":
        return np.logical_and(x, y).any(-1)
    return np.einsum("...i,...i->...", x, y)


def _b_dot(ctx, g):
    x, y = (_cj(ctx.input(1)), _cj(ctx.input(0)))   # conjugated: Note [Complex autograd]
    gu = g.unsqueeze(-1)
    return (gu * x if ctx.needs[0] else None, gu * y if ctx.needs[1] else None)


DOT = OpDef("dot", _k_dot, _b_dot, needs={"x": ("y",), "y": ("x",)}, inputs=("x", "y"),
            doc="Inner product of 1-D x and y (Paddle: of each row of 2-D x and y).")
registry.OPS["dot"] = DOT
DOT.complex_grad = True   # Note [Complex autograd]; tests/test_complex_autograd2.py


def dot(x, y, name=None):
    """The inner product of 1-D x and y; for 2-D x and y (Paddle), of each pair of rows."""
    _args.tensor(x, "dot", "x")
    _args.tensor(y, "dot", "y")
    if _torch_door((x, y)) and (x.ndim != 1 or y.ndim != 1):   # PyTorch: vectors only
        raise ArgValueError(f"dot(): 1D tensors expected, but got {x.ndim}D and {y.ndim}D "
                            "tensors. Fix: use matmul, or (x * y).sum(-1) for rows.")
    if x.ndim not in (1, 2) or x.ndim != y.ndim:
        raise ArgValueError(f"dot(): x and y must be both 1-D or both 2-D, got shapes "
                            f"{list(x.shape)} and {list(y.shape)}")
    if x.shape != y.shape:
        raise ArgValueError(f"dot(): inconsistent tensor size, expected tensor x of shape "
                            f"{list(x.shape)} to match y's {list(y.shape)}")
    _same_dtype("dot", x, y, "vectors")
    return registry.dispatch(DOT, (x, y), ())


def _k_mv(x, v):
    return np.matmul(x, v)


def _b_mv(ctx, g):
    x, v = _cj(ctx.input(0)), _cj(ctx.input(1))   # conjugated: Note [Complex autograd]
    return (g.unsqueeze(1) * v.unsqueeze(0) if ctx.needs[0] else None,
            F["matmul"](x.t(), g) if ctx.needs[1] else None)


MV = OpDef("mv", _k_mv, _b_mv, needs={"x": ("vec",), "vec": ("x",)}, inputs=("x", "vec"),
           doc="The product of matrix x and vector vec.")
registry.OPS["mv"] = MV
MV.complex_grad = True   # Note [Complex autograd]; tests/test_complex_autograd2.py


def mv(x, vec, name=None):
    """The product of a 2-D x and a 1-D vec (a 1-D result)."""
    _args.tensor(x, "mv", "x")
    _args.tensor(vec, "mv", "vec")
    if x.ndim != 2 or vec.ndim != 1:
        raise ArgValueError(f"mv(): vector + matrix @ vector expected, got {x.ndim}, "
                            f"{vec.ndim} dims (shapes {list(x.shape)} and {list(vec.shape)})")
    if x.shape[1] != vec.shape[0]:
        raise ArgValueError(f"mv(): size mismatch, got input ({x.shape[0]}x{x.shape[1]}), "
                            f"vec ({vec.shape[0]})")
    _same_dtype("mv", x, vec, "operands")
    return registry.dispatch(MV, (x, vec), ())


# ---------------------------------------------------------------- rot90, fliplr, flipud
def _k_rot90(x, k, axes):
    return _xp.ascontiguousarray(np.rot90(x, k, axes))


ROT90 = OpDef("rot90", _k_rot90,
              lambda ctx, g: (F["rot90"](g, -ctx.attrs[0], list(ctx.attrs[1])),),
              attrs=(("k", 1), ("axes", (0, 1))),
              doc="x rotated by 90 degrees k times in the plane of axes (from the first "
                  "towards the second).")
registry.OPS["rot90"] = ROT90


def rot90(x, k=1, axes=(0, 1), name=None):
    """x rotated by 90 degrees k times in the plane of the two axes."""
    _args.tensor(x, "rot90", "x")
    k = _args.integer(k, "rot90", "k")
    if not isinstance(axes, (list, tuple)) or len(axes) != 2:
        raise ArgValueError(f"rot90(): expected total rotation dims == 2, but got dims = "
                            f"{len(axes) if isinstance(axes, (list, tuple)) else axes}")
    if x.ndim < 2:
        raise ArgValueError(f"rot90(): expected total dims >= 2, but got total dims = {x.ndim}")
    a0, a1 = (_args.axis(a, x.ndim, "rot90", "axes") for a in axes)
    if a0 == a1:
        raise ArgValueError(f"rot90(): expected rotation dims to be different, but got "
                            f"dim0 = {a0} and dim1 = {a1}")
    return registry.dispatch(ROT90, (x,), (k % 4, (a0, a1)))


def fliplr(x, name=None):
    """x reversed along dim 1 (left and right), x at least 2-D."""
    _args.tensor(x, "fliplr", "input")
    if x.ndim < 2:
        raise ArgValueError("fliplr(): Input must be >= 2-d.")
    return F["flip"](x, [1])


def flipud(x, name=None):
    """x reversed along dim 0 (up and down), x at least 1-D."""
    _args.tensor(x, "flipud", "input")
    if x.ndim < 1:
        raise ArgValueError("flipud(): Input must be >= 1-d.")
    return F["flip"](x, [0])


# ---------------------------------------------------------------- nansum, nanmean
def _k_nansum(x, axes, keepdim, dtype):
    from .reduce import _np_dtype
    dt = _np_dtype(dtype)
    if x.dtype.kind in "biu":
        if dt is None:
            dt = np.int64
        return np.sum(x, axis=axes, keepdims=keepdim, dtype=dt)
    return np.nansum(x, axis=axes, keepdims=keepdim, dtype=dt)


def _b_nansum(ctx, g):
    # PyTorch's formula: g * ~isnan(x), so an infinite g (nanmean of an all-NaN slice)
    # gives NaN at the NaN positions, as in PyTorch
    x = ctx.input(0)
    return (_expand_back(ctx, g) * F["logical_not"](F["isnan"](x)).astype(g.dtype),)


NANSUM = OpDef("nansum", _k_nansum, _b_nansum, needs={"x": ("x",)},
               attrs=(("axis", None), ("keepdim", False), ("dtype", None)),
               doc="Sum of x's elements over axis (all axes when None), NaN counted as zero.")
registry.OPS["nansum"] = NANSUM
_nansum = _reduction(NANSUM)


def nanmean(x, axis=None, keepdim=False, name=None, *, dtype=None):
    """Mean of x's non-NaN elements over axis (all axes when None); NaN where all are NaN."""
    x = _args.input_tensor(x, "nanmean")
    if dtype is not None:
        x = x.astype(dtype)
    if x._data.dtype.kind not in "fc":
        raise ArgTypeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {x.dtype.name}. Fix: cast it first, e.g. x.float().")
    total = _nansum(x, axis, keepdim)
    count = _nansum(F["logical_not"](F["isnan"](x)).astype(x.dtype), axis, keepdim)
    return total / count


# ---------------------------------------------------------------- diff
def _diff_once(x, ax):
    pre = (slice(None),) * ax
    hi, lo = x[pre + (slice(1, None),)], x[pre + (slice(None, -1),)]
    if x._data.dtype.kind == "b":
        return F["logical_xor"](hi, lo)
    return hi - lo


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The n-th forward difference of x along axis, after prepend and append are
    concatenated to it there (x[i + 1] - x[i]; for bool, x[i + 1] != x[i])."""
    _args.tensor(x, "diff", "x")
    n = _args.integer(n, "diff", "n")
    if x.ndim == 0:
        raise ArgValueError("diff(): diff expects input to be at least one-dimensional")
    if n < 0:
        raise ArgValueError(f"diff(): order must be non-negative but got {n}")
    ax = _args.axis(axis, x.ndim, "diff", "axis")
    if n == 0:   # PyTorch: a copy of x (prepend and append unused), CopyBackwards
        return F["zeros_like"](x).copy_(x)
    parts = []
    for t, nm in ((prepend, "prepend"), (None, None), (append, "append")):
        if nm is None:
            parts.append(x)
            continue
        if t is None:
            continue
        _args.tensor(t, "diff", nm)
        if t.ndim != x.ndim:
            raise ArgValueError(f"diff(): expected {nm} to have the same number of dimensions "
                                f"as input ({x.ndim}), got shape {list(t.shape)}")
        parts.append(t)
    if len(parts) > 1:
        for t in parts:
            for d in range(x.ndim):
                if d != ax and t.shape[d] != x.shape[d]:
                    raise ArgValueError(f"diff(): Sizes of tensors must match except in "
                                        f"dimension {ax}: {list(t.shape)} and {list(x.shape)}")
        x = F["concat"](parts, ax)
    for _ in range(min(n, x.shape[ax])):
        x = _diff_once(x, ax)
    return x


# ---------------------------------------------------------------- repeat_interleave
def repeat_interleave(x, repeats=None, axis=None, name=None, *, output_size=None):
    """Each element (or slice along axis) of x repeated `repeats` times, consecutively;
    repeats an int or a 1-D integer tensor (one count per slice); x flattened when axis is
    None. Without repeats (PyTorch's repeat_interleave(repeats)): index i repeated x[i]
    times."""
    _args.tensor(x, "repeat_interleave", "x")
    if repeats is None:
        if x.ndim > 1:
            raise ArgValueError("repeat_interleave(): repeats must be 0-dim or 1-dim tensor, "
                                f"got shape {list(x.shape)}")
        idx = wrap_as(x._result_class, np.arange(x.numel(), dtype=np.int64))
        return repeat_interleave(idx, x, 0, output_size=output_size)
    if axis is None:
        x = x.reshape([-1])
        ax = 0
    else:
        ax = _args.axis(axis, x.ndim, "repeat_interleave", "axis")
        if x.ndim == 0:
            x = x.reshape([1])
    n = x.shape[ax]
    if isinstance(repeats, Tensor):
        r = repeats._data
        if r.dtype.kind not in "iu":
            raise ArgTypeError(f"repeat_interleave(): repeats has to be Long or Int tensor, got "
                               f"{repeats.dtype.name}")
        if r.ndim > 1:
            raise ArgValueError("repeat_interleave(): repeats must be 0-dim or 1-dim tensor, "
                                f"got shape {list(r.shape)}")
        r = r.reshape(-1)
        if r.size == 1 and n != 1:
            r = np.repeat(r, n)
        if r.size != n:
            raise ArgValueError(f"repeat_interleave(): repeats must have the same size as input "
                                f"along dim, but got repeats.size(0) = {r.size} and "
                                f"input.size({ax}) = {n}")
        if (r < 0).any():
            raise ArgValueError("repeat_interleave(): repeats can not be negative")
    else:
        k = _args.integer(repeats, "repeat_interleave", "repeats")
        if k < 0:
            raise ArgValueError(f"repeat_interleave(): repeats can not be negative, got {k}")
        r = np.full(n, k, dtype=np.int64)
    total = int(r.sum())
    if output_size is not None and _args.integer(output_size, "repeat_interleave",
                                                 "output_size") != total:
        raise ArgValueError(f"repeat_interleave(): allocated size does not match required "
                            f"size (output_size={output_size}, required {total})")
    if not isinstance(repeats, Tensor):   # PyTorch: x expanded along a new dim, then merged
        shape = list(x.shape)
        big = shape[:ax + 1] + [int(r[0]) if n else 0] + shape[ax + 1:]
        merged = shape[:ax] + [total] + shape[ax + 1:]
        return x.unsqueeze(ax + 1).expand(big).contiguous().reshape(merged)
    idx = np.repeat(np.arange(n, dtype=np.int64), r)
    return F["index_select"](x, wrap_as(Tensor, idx), ax)


# ---------------------------------------------------------------- take_along_dim
def take_along_dim(x, indices, axis=None, broadcast=True, name=None):
    """x's elements at `indices` along axis (x and indices broadcast over the other dims
    unless broadcast is False); over the flattened x when axis is None."""
    _args.tensor(x, "take_along_dim", "input")
    _args.tensor(indices, "take_along_dim", "indices")
    if indices._data.dtype.kind not in "iu":
        raise ArgTypeError(f"take_along_dim(): dtype of indices should be int64 but got "
                           f"{indices.dtype.name}")
    if axis is None:
        return F["take_along_axis"](x.reshape([-1]), indices.reshape([-1]), 0)
    ax = _args.axis(axis, x.ndim, "take_along_dim", "dim")
    if not broadcast:   # Paddle's broadcast=False: the shapes must agree outside axis
        if x.ndim != indices.ndim or any(a != b for d, (a, b) in
                                         enumerate(zip(x.shape, indices.shape)) if d != ax):
            raise ArgValueError(f"take_along_dim(): with broadcast=False indices (shape "
                                f"{list(indices.shape)}) must have x's shape {list(x.shape)} "
                                f"outside axis {ax}")
        return F["take_along_axis"](x, indices, ax)
    if x.ndim != indices.ndim:
        raise ArgValueError(f"take_along_dim(): input and indices should have the same number "
                            f"of dimensions, but got {x.ndim} dimensions for input, and "
                            f"{indices.ndim} dimensions for indices")
    xs, ix = list(x.shape), list(indices.shape)
    xs[ax] = ix[ax] = 1
    common = list(registry.broadcast_shapes("take_along_dim", [tuple(xs), tuple(ix)]))
    xb, ib = list(common), list(common)
    xb[ax], ib[ax] = x.shape[ax], indices.shape[ax]
    xe = x if list(x.shape) == xb else x.expand(xb)
    ie = indices if list(indices.shape) == ib else indices.expand(ib)
    return F["take_along_axis"](xe, ie, ax)


# ---------------------------------------------------------------- tensordot
def _tensordot_axes(axes, nx, ny):
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        k = int(axes)
        if k < 0:
            raise ArgValueError(f"tensordot(): expects dims >= 0, but got dims={k}")
        if k > min(nx, ny):
            raise ArgValueError(f"tensordot(): contracted dimensions {k} exceed the dims of "
                                f"x ({nx}) or y ({ny})")
        return list(range(nx - k, nx)), list(range(k))
    if isinstance(axes, (list, tuple)):
        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):   # Paddle: one list for both
            axes = (axes[0], axes[0])
        if len(axes) == 2:
            a, b = axes
            a = [a] if isinstance(a, (int, np.integer)) else list(a)
            b = [b] if isinstance(b, (int, np.integer)) else list(b)
            if len(a) != len(b):
                raise ArgValueError(f"tensordot(): both dimension lists should have same "
                                    f"length, got {a} and {b}")
            return a, b
    raise ArgTypeError(f"tensordot(): dims must be an int or a pair of lists of dims, got "
                       f"{axes!r}")


def tensordot(x, y, axes=2, name=None):
    """Sum over the products of x's dims axes[0] with y's dims axes[1] (an int k: x's last k
    dims with y's first k)."""
    _args.tensor(x, "tensordot", "x")
    _args.tensor(y, "tensordot", "y")
    a, b = _tensordot_axes(axes, x.ndim, y.ndim)
    a = [_args.axis(d, x.ndim, "tensordot", "dims") for d in a]
    b = [_args.axis(d, y.ndim, "tensordot", "dims") for d in b]
    for i, j in zip(a, b):
        # a contracted dim of size 1 broadcasts against the other side's (PyTorch): the
        # other side is summed over it first
        if x.shape[i] == 1 and y.shape[j] != 1:
            y = y.sum(j, keepdim=True)
        elif y.shape[j] == 1 and x.shape[i] != 1:
            x = x.sum(i, keepdim=True)
        elif x.shape[i] != y.shape[j]:
            raise ArgValueError(f"tensordot(): contracted dimensions need to match, but first "
                                f"has size {x.shape[i]} in dim {i} and second has size "
                                f"{y.shape[j]} in dim {j}")
    if x._data.dtype != y._data.dtype:
        raise ArgTypeError(f"tensordot(): expected both operands to have the same dtype, got "
                           f"{x.dtype.name} and {y.dtype.name}")
    fa = [d for d in range(x.ndim) if d not in a]
    fb = [d for d in range(y.ndim) if d not in b]
    m = int(np.prod([x.shape[d] for d in fa]))
    k = int(np.prod([x.shape[d] for d in a]))
    nn_ = int(np.prod([y.shape[d] for d in fb]))
    xm = F["transpose"](x, fa + a).reshape([m, k])
    ym = F["transpose"](y, b + fb).reshape([k, nn_])
    return F["matmul"](xm, ym).reshape([x.shape[d] for d in fa] + [y.shape[d] for d in fb])


# ---------------------------------------------------------------- matrix_power
def matrix_power(x, n, name=None):
    """x multiplied by itself n times (batched over leading dims); n = 0 the identity, n < 0
    the power of the inverse."""
    _args.tensor(x, "matrix_power", "x")
    n = _args.integer(n, "matrix_power", "n")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ArgValueError(f"matrix_power(): A must be batches of square matrices, but they "
                            f"are {x.shape[-2] if x.ndim >= 2 else '?'} by "
                            f"{x.shape[-1] if x.ndim else '?'} matrices (shape {list(x.shape)})")
    if n == 0:   # PyTorch: the identity copied into a clone of x (CopyBackwards, zero gradient)
        eye = np.broadcast_to(np.eye(x.shape[-1], dtype=x._data.dtype), x._data.shape)
        return x.clone().copy_(wrap_as(x._result_class, _xp.array(eye)))
    if n < 0:
        if x._data.dtype.kind not in "fc":
            raise ArgTypeError(f"matrix_power(): negative powers need a floating input, got "
                               f"{x.dtype.name}")
        x = F["inverse"](x)
        if n == -1:
            return x
        n = -n
    if n == 1:
        return x.clone()
    # binary powering, as PyTorch's: fewest products
    result = None
    z = x
    while n:
        if n & 1:
            result = z if result is None else F["matmul"](result, z)
        n >>= 1
        if n:
            z = F["matmul"](z, z)
    return result


def multi_dot(x, name=None):
    """The matrix product of the tensors of the list x, left to right (the first may be 1-D,
    a row; the last 1-D, a column)."""
    if not isinstance(x, (list, tuple)):
        raise ArgTypeError(f"multi_dot(): expected a list of Tensors, got {type(x).__name__}")
    if len(x) < 2:
        raise ArgValueError(f"multi_dot(): expected at least 2 tensors but got {len(x)}")
    for i, t in enumerate(x):
        _args.tensor(t, "multi_dot", f"tensors[{i}]")
        lo = 1 if i in (0, len(x) - 1) else 2
        if not lo <= t.ndim <= 2:
            raise ArgValueError(f"multi_dot(): tensor {i} must be "
                                f"{'1D or 2D' if lo == 1 else '2D'} but got {t.ndim}D")
        if t._data.dtype != x[0]._data.dtype:
            raise ArgTypeError(f"multi_dot(): all tensors must have the same dtype, got "
                               f"{x[0].dtype.name} and {t.dtype.name}")
    first, last = x[0], x[-1]
    mats = list(x)
    if first.ndim == 1:
        mats[0] = first.unsqueeze(0)
    if last.ndim == 1:
        mats[-1] = last.unsqueeze(1)
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise ArgValueError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                                f"{list(x[i].shape)} and {list(x[i + 1].shape)} cannot be "
                                "multiplied")
    out = mats[0]
    for m in mats[1:]:
        out = F["matmul"](out, m)
    shape = ([] if first.ndim == 1 else [out.shape[0]]) + ([] if last.ndim == 1 else
                                                            [out.shape[1]])
    return out.reshape(shape)   # PyTorch's last node: a view to the result's shape


# ---------------------------------------------------------------- isin
def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """Whether each element of x occurs in test_x (a bool tensor of x's shape; with invert,
    whether it does not)."""
    if not isinstance(x, Tensor) and not isinstance(test_x, Tensor):
        raise ArgTypeError("isin(): at least one of elements and test_elements must be a Tensor")
    xa = x._data if isinstance(x, Tensor) else _xp.asarray(_args.number(x, "isin", "elements"))
    ta = test_x._data if isinstance(test_x, Tensor) else _xp.asarray(
        _args.number(test_x, "isin", "test_elements"))
    for a, nm in ((xa, "elements"), (ta, "test_elements")):
        if a.dtype.kind == "c":
            raise ArgTypeError(f"isin(): complex {nm} are not supported")
    r = np.isin(xa, ta, assume_unique=bool(assume_unique), invert=bool(invert))
    cls = x._result_class if isinstance(x, Tensor) else test_x._result_class
    return wrap_as(cls, _xp.asarray(r))


# ---------------------------------------------------------------- Paddle's broadcast helpers
def broadcast_shape(x_shape, y_shape):
    """Paddle's broadcast_shape: the shape (a list) x_shape and y_shape broadcast to."""
    s = [tuple(_args.shape(v, "broadcast_shape")) for v in (x_shape, y_shape)]
    return list(registry.broadcast_shapes("broadcast_shape", s))


def broadcast_shapes(*shapes):
    """The shape (a list) the given shapes broadcast to."""
    s = [tuple(_args.shape(v, "broadcast_shapes")) for v in shapes]
    return list(registry.broadcast_shapes("broadcast_shapes", s)) if s else []


def broadcast_tensors(input, name=None):
    """Paddle's broadcast_tensors: the tensors of the list `input`, each expanded (a view) to
    their common shape (a list)."""
    if not isinstance(input, (list, tuple)) or not input:
        raise ArgTypeError(f"broadcast_tensors(): input must be a non-empty list of Tensors, "
                           f"got {type(input).__name__}")
    for t in input:
        _args.tensor(t, "broadcast_tensors", "input")
    shape = registry.broadcast_shapes("broadcast_tensors", [tuple(t.shape) for t in input])
    return [t if tuple(t.shape) == tuple(shape) else t.expand(list(shape)) for t in input]


def _atleast(k, inputs):
    out = []
    for t in inputs:
        if not isinstance(t, Tensor):
            t = _args.input_tensor(t, f"atleast_{k}d", "inputs")
        shape = list(t.shape)
        if t.ndim >= k:
            out.append(t)
            continue
        if k == 3 and t.ndim:   # [n] -> [1, n, 1], [m, n] -> [m, n, 1]
            shape = ([1] + shape if t.ndim == 1 else shape) + [1]
        else:
            shape = [1] * (k - t.ndim) + shape
        out.append(t.reshape(shape))
    return out[0] if len(out) == 1 else out


def atleast_1d(*inputs, name=None):
    """Each input with at least 1 dim (a view); one tensor, or a list for several."""
    return _atleast(1, inputs)


def atleast_2d(*inputs, name=None):
    """Each input with at least 2 dims (a view; 1-D x becomes [1, n]); one tensor or a list."""
    return _atleast(2, inputs)


def atleast_3d(*inputs, name=None):
    """Each input with at least 3 dims (a view; [n] becomes [1, n, 1], [m, n] becomes
    [m, n, 1]); one tensor or a list."""
    return _atleast(3, inputs)


# ---------------------------------------------------------------- predicates: signbit, isneginf, ...
def _bool_kernel(fn):
    def k(out, rdt, x):
        r = fn(_xp.asarray(x))
        if out is None:
            return r
        np.copyto(out, r)
        return out
    k.__doc__ = fn.__doc__
    return k


def _signbit(x):
    """Whether the sign bit is set (-0.0 included); integers: x < 0."""
    return np.signbit(x) if x.dtype.kind == "f" else (x < 0) if x.dtype.kind != "b" else \
        _xp.array_module(x).zeros(x.shape, bool)


def _no_complex(op_name, args, attrs, rdt):
    for a in args:
        if isinstance(a, Tensor) and a._data.dtype.kind == "c":
            raise DtypeNotImplementedError(
                f"{op_name}(): is not implemented for complex tensors. Fix: apply it to "
                "x.real() and x.imag().")


def _bool_result(rdt):
    return np.dtype(np.bool_)


for _name, _fn, _doc in (
        ("signbit", _signbit, "Elementwise whether x's sign bit is set (True for -0.0)."),
        ("isneginf", lambda x: np.isneginf(x) if x.dtype.kind == "f" else
         _xp.array_module(x).zeros(x.shape, bool), "Elementwise whether x is negative infinity."),
        ("isposinf", lambda x: np.isposinf(x) if x.dtype.kind == "f" else
         _xp.array_module(x).zeros(x.shape, bool), "Elementwise whether x is positive infinity.")):
    pointwise_op(_name, _bool_kernel(_fn), inplace=False, result_dtype=_bool_result,
                 check=_no_complex, doc=_doc)
pointwise_op("isreal", _bool_kernel(lambda x: np.imag(x) == 0 if x.dtype.kind == "c" else
                                    _xp.array_module(x).ones(x.shape, bool)),
             inplace=False, result_dtype=_bool_result,
             doc="Elementwise whether x is real (a complex element: its imaginary part is 0).")


def _check_heaviside(op_name, args, attrs, rdt):
    _no_complex(op_name, args, attrs, rdt)
    x, v = args
    if (isinstance(v, Tensor) and _torch_door(args)
            and x._data.dtype != v._data.dtype):
        raise ArgTypeError(f"{op_name}(): heaviside is not yet implemented for tensors with "
                           f"different dtypes ({x.dtype.name} and {v.dtype.name}). Fix: cast "
                           "values to x's dtype.")


def _heaviside_k(out, rdt, x, v):
    r = np.where(_xp.asarray(x) == 0, v, _xp.asarray(x) > 0).astype(rdt)
    if out is None:
        return r
    np.copyto(out, r, casting=_UNSAFE)
    return out


# no backward: PyTorch has no derivative for heaviside (a step function)
pointwise_op("heaviside", _heaviside_k, inputs=("x", "y"), check=_check_heaviside,
             doc="Elementwise step function: 0 where x < 0, y where x == 0, 1 where x > 0.")


def positive(x, name=None):
    """x itself (PyTorch's unary plus returns the same tensor); bool is refused."""
    _args.tensor(x, "positive", "input")
    if x._data.dtype.kind == "b":
        raise ArgTypeError("positive(): The `+` operator, on a bool tensor is not supported. "
                           "Fix: cast it first, e.g. x.int().")
    return x


# ---------------------------------------------------------------- inner, vdot
def inner(x, y, name=None):
    """The inner product over the last dim of x and y (0-d operands: their product)."""
    _args.tensor(x, "inner", "x")
    _args.tensor(y, "inner", "y")
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.shape[-1] != y.shape[-1]:
        raise ArgValueError(f"inner(): inner() the last dimension must match on both input "
                            f"tensors but got shapes {list(x.shape)} and {list(y.shape)}")
    return tensordot(x, y, [[x.ndim - 1], [y.ndim - 1]])


def _k_vdot(x, y):
    return _xp.asarray(np.vdot(x, y))


# x enters conjugated: its gradient is conj(g) * y (Note [Complex autograd]), y's is g * x
VDOT = OpDef("vdot", _k_vdot, lambda ctx, g: (_cj(g) * ctx.input(1) if ctx.needs[0] else None,
                                              g * ctx.input(0) if ctx.needs[1] else None),
             needs={"x": ("y",), "y": ("x",)}, inputs=("x", "y"),
             doc="The inner product of 1-D x and y, x conjugated first.")
registry.OPS["vdot"] = VDOT
VDOT.complex_grad = True   # Note [Complex autograd]; tests/test_complex_autograd2.py


def vdot(x, y, name=None):
    """The inner product of 1-D x and y, x conjugated first (real tensors: dot)."""
    _args.tensor(x, "vdot", "input")
    _args.tensor(y, "vdot", "other")
    if x.ndim != 1 or y.ndim != 1:
        raise ArgValueError(f"vdot(): 1D tensors expected, but got {x.ndim}D and {y.ndim}D "
                            "tensors")
    if x.shape != y.shape:
        raise ArgValueError(f"vdot(): inconsistent tensor size, expected tensor [{x.shape[0]}] "
                            f"and src [{y.shape[0]}] to have the same number of elements")
    _same_dtype("vdot", x, y, "vectors")
    return registry.dispatch(VDOT, (x, y), ())


# ---------------------------------------------------------------- trapezoid, cumulative_trapezoid
def _trapezoid_args(y, x, dx, axis, op):
    _args.tensor(y, op, "y")
    if x is not None and dx is not None:
        raise ArgValueError(f"{op}(): pass either x or dx, not both")
    ax = _args.axis(axis, y.ndim, op, "dim")
    if y.ndim == 0:
        raise ArgValueError(f"{op}(): y must have at least one dimension")
    n = y.shape[ax]
    pre = (slice(None),) * ax
    hi, lo = y[pre + (slice(1, None),)], y[pre + (slice(None, -1),)]
    if x is not None:
        _args.tensor(x, op, "x")
        if x.ndim == 1:
            if x.shape[0] != n:
                raise ArgValueError(f"{op}(): There must be one `x` value for each sample "
                                    f"point (x has {x.shape[0]}, y has {n} along dim {ax})")
            d = diff(x)
            d = d.reshape([n - 1] + [1] * (y.ndim - 1 - ax)) if n else d
        else:
            d = diff(x, 1, ax if x.ndim == y.ndim else -1)
        return hi, lo, d, ax, n
    if dx is not None:
        dx = _args.number(dx, op, "dx")
    return hi, lo, (1 if dx is None else dx), ax, n


def trapezoid(y, x=None, dx=None, axis=-1, name=None, *, dim=None):
    """The integral of y along axis by the trapezoidal rule, at sample points x (a tensor) or
    spaced dx apart (default 1)."""
    hi, lo, d, ax, n = _trapezoid_args(y, x, dx, axis if dim is None else dim, "trapezoid")
    if isinstance(d, Tensor):
        return (d * (hi + lo)).sum(ax) / 2
    if n == 0:
        return y.sum(ax) * 0
    # PyTorch's formula for even spacing: (sum(y) - (y_first + y_last) / 2) * dx
    first = y[(slice(None),) * ax + (0,)]
    last = y[(slice(None),) * ax + (n - 1,)]
    return (y.sum(ax) - (first + last) * 0.5) * d


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None, *, dim=None):
    """The running trapezoidal integral of y along axis (one element fewer than y there)."""
    hi, lo, d, ax, n = _trapezoid_args(y, x, dx, axis if dim is None else dim,
                                       "cumulative_trapezoid")
    if isinstance(d, Tensor):
        return F["cumsum"](d * (hi + lo), ax) / 2
    return F["cumsum"]((hi + lo) * (d / 2), ax)


# ---------------------------------------------------------------- block_diag, cartesian_prod
def _tensor_list(args, op, paddle_name):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for i, t in enumerate(args):
        _args.tensor(t, op, f"{paddle_name}[{i}]")
    return args


def block_diag(*tensors, name=None):
    """A 2-D tensor with the given tensors (0-, 1- or 2-D) on its diagonal, zeros elsewhere
    (Paddle passes one list)."""
    ts = _tensor_list(tensors, "block_diag", "inputs")
    mats = []
    for i, t in enumerate(ts):
        if t.ndim > 2:
            raise ArgValueError(f"block_diag(): Input tensors must have 2 or fewer dimensions. "
                                f"Input {i} has {t.ndim} dimensions")
        mats.append(t.reshape([1, 1]) if t.ndim == 0 else t.reshape([1, -1]) if t.ndim == 1
                    else t)
    if not mats:
        return wrap_as(Tensor, np.zeros((1, 0), np.float32))
    from .. import dtypes as _dt
    dt = _dt.promote(tuple(m._data.dtype for m in mats), (), ())
    cols = sum(m.shape[1] for m in mats)
    rows, c = [], 0
    for m in mats:
        m = m.astype(_dt.from_numpy_dtype(dt)) if m._data.dtype != dt else m
        r, w = m.shape
        parts = ([F["zeros"]([r, c], dtype=m.dtype)] if c else []) + [m] + \
            ([F["zeros"]([r, cols - c - w], dtype=m.dtype)] if cols - c - w else [])
        rows.append(F["concat"](parts, 1) if len(parts) > 1 else m)
        c += w
    return F["concat"](rows, 0) if len(rows) > 1 else rows[0]


def cartesian_prod(*tensors, name=None):
    """Every combination of one element from each 1-D tensor, one row each (one tensor: that
    tensor itself; Paddle passes one list)."""
    ts = _tensor_list(tensors, "cartesian_prod", "x")
    if not ts:
        raise ArgValueError("cartesian_prod(): expects at least one tensor")
    for i, t in enumerate(ts):
        if t.ndim != 1:
            raise ArgValueError(f"cartesian_prod(): Expect a 1D vector, but got shape "
                                f"{list(t.shape)} for input {i}")
    if len(ts) == 1:
        return ts[0]
    grids = F["meshgrid"](*ts, indexing="ij")
    return F["stack"]([g.reshape([-1]) for g in grids], 1)


registry.install("ger", F["outer"])   # torch.ger / paddle.ger: outer under its old name


def argwhere(x, name=None):
    """The indices of x's nonzero elements, one row each ([count, ndim], int64)."""
    return F["nonzero"](_args.tensor(x, "argwhere", "input"))
registry.register_function("dot", dot)
registry.register_function("mv", mv)
registry.register_function("rot90", rot90)
registry.register_function("fliplr", fliplr)
registry.register_function("flipud", flipud)
registry.register_function("nansum", _nansum)
registry.register_function("nanmean", nanmean)
registry.register_function("diff", diff)
registry.register_function("repeat_interleave", repeat_interleave)
registry.register_function("take_along_dim", take_along_dim)
registry.register_function("tensordot", tensordot)
registry.register_function("matrix_power", matrix_power)
registry.register_function("isin", isin)
for _f in (broadcast_shape, broadcast_shapes, broadcast_tensors, atleast_1d, atleast_2d,
           atleast_3d):
    registry.register_function(_f.__name__, _f, method=False)
del _f
registry.register_function("positive", positive)
registry.register_function("inner", inner)
registry.register_function("vdot", vdot)
registry.register_function("argwhere", argwhere)
registry.register_function("trapezoid", trapezoid, method=False)
registry.register_function("trapz", trapezoid, method=False)
registry.register_function("cumulative_trapezoid", cumulative_trapezoid, method=False)
registry.register_function("block_diag", block_diag, method=False)
registry.register_function("cartesian_prod", cartesian_prod, method=False)


# ---------------------------------------------------------------- cov, corrcoef
def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None, *,
        correction=None):
    """The covariance matrix of the variables in x's rows (columns when rowvar is False),
    with integer frequency weights and real observation weights; `correction` (PyTorch) or
    `ddof` (Paddle: True means 1) is subtracted from the sample count."""
    _args.tensor(x, "cov", "input")
    if x.ndim > 2:
        raise ArgValueError(f"cov(): expected input to have two or fewer dimensions but got an "
                            f"input with {x.ndim} dimensions")
    corr = int(ddof) if correction is None else _args.integer(correction, "cov", "correction")
    if x._data.dtype.kind in "biu":
        x = x.astype("float32")
    obs = x.reshape([1, -1]) if x.ndim < 2 else (x if rowvar else x.t())
    n = obs.shape[1]
    w = None
    for t, nm in ((fweights, "fweights"), (aweights, "aweights")):
        if t is None:
            continue
        _args.tensor(t, "cov", nm)
        if t.ndim > 1 or t.numel() != n:
            raise ArgValueError(f"cov(): expected {nm} to have one dimension and {n} elements "
                                f"(one per observation), got shape {list(t.shape)}")
        if nm == "fweights" and t._data.dtype.kind not in "iu":
            raise ArgTypeError(f"cov(): expected fweights to have integral dtype, got "
                               f"{t.dtype.name}")
        if nm == "aweights" and t._data.dtype.kind != "f":
            raise ArgTypeError(f"cov(): expected aweights to have floating point dtype, got "
                               f"{t.dtype.name}")
        if t.numel() and float(t._data.min()) < 0:
            raise ArgValueError(f"cov(): {nm} cannot be negative")
        w = t.reshape([-1]) if w is None else w * t.reshape([-1])
    if w is None:
        avg = obs.mean(1)
        norm = n - corr
    else:
        w = w.astype(obs.dtype)
        w_sum = w.sum()
        avg = (obs * w).sum(1) / w_sum
        if aweights is None:
            norm = w_sum - corr
        else:
            norm = w_sum - corr * (w * aweights.astype(obs.dtype)).sum() / w_sum
    if not isinstance(norm, Tensor):
        norm = max(norm, 0)
    else:
        norm = F["clip"](norm, min=0.0)
    xm = obs - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    # PyTorch's order (xm @ (xm * w)^T, then the division and a squeeze): the same rounding
    return (F["matmul"](xm, xw.t()) / norm).squeeze()


def corrcoef(x, rowvar=True, name=None):
    """The Pearson correlation coefficients of the variables in x's rows (columns when rowvar
    is False), clipped to [-1, 1]."""
    c = cov(x, rowvar)
    if c.ndim == 0:
        return c / c
    d = F["diagonal"](c)
    std = d.sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return F["clip"](c, -1.0, 1.0)


registry.register_function("cov", cov)
registry.register_function("corrcoef", corrcoef)
