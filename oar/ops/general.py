"""Normal ops beyond pointwise and reductions: matmul, joins, gathers, casts, clone."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import is_grad_enabled as _grad_enabled
from ..tensor import Tensor
from . import registry as R
from .registry import OpDef, declare


def _dtype_np(d):
    return _dt.as_dtype(d).np


# ---------------------------------------------------------------- clone / cast
CLONE = OpDef("clone", lambda x: np.array(x, copy=True), lambda c, g: (g,))
declare(CLONE)


def _k_cast(x, dtype):
    return x.astype(_dtype_np(dtype), copy=True)


def _b_cast(c, g):
    return (g,)   # OpNode casts the gradient back to the input dtype


CAST = OpDef("cast", _k_cast, _b_cast, attrs=(("dtype", None),))
_cast = declare(CAST)


def _differentiable_cast(x, dtype):
    out = R.dispatch(CAST, (x,), (dtype,))
    if out._data.dtype.kind != "f":   # integer results carry no gradient
        out._grad_fn = None
    return out


def astype(x, dtype, name=None):
    if x._data.dtype == _dtype_np(dtype):
        return x
    return _differentiable_cast(x, dtype)


def to(x, *args, dtype=None, device=None, copy=False, **kwargs):
    for a in args:
        try:
            dtype = _dt.as_dtype(a)
        except TypeError:
            pass
    if dtype is None or x._data.dtype == _dtype_np(dtype):
        return x.clone() if copy else x
    return _differentiable_cast(x, dtype)


for _n, _f in (("astype", astype), ("cast", lambda x, dtype, name=None: astype(x, dtype)),
               ("type", lambda x, dtype=None: astype(x, dtype) if dtype is not None else x.dtype),
               ("to", to), ("float", lambda x: astype(x, "float32")),
               ("double", lambda x: astype(x, "float64")), ("half", lambda x: astype(x, "float16")),
               ("long", lambda x: astype(x, "int64")), ("int", lambda x: astype(x, "int32")),
               ("bool", lambda x: astype(x, "bool"))):
    R.register_function(_n, _f, function=_n in ("astype", "cast"))
R.register_function("cpu", lambda x: x, function=False)


# ---------------------------------------------------------------- matmul
def _k_matmul(a, b, transpose_x=False, transpose_y=False):
    if transpose_x and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if transpose_y and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: both arguments must be at least 1-D, got shapes "
                         f"{list(a.shape)} and {list(b.shape)}")
    try:
        return np.matmul(a, b)
    except ValueError:
        raise ValueError(f"matmul: shapes {list(a.shape)} and {list(b.shape)} cannot be "
                         "multiplied (inner dimensions differ)") from None


def _b_matmul(c, g):
    """Reads only the saved inputs the needed gradients use (Note [Check, then write] saves
    just those)."""
    tx, ty = c.attrs
    nda, ndb = len(c.input_meta[0][0]), len(c.input_meta[1][0])

    def a():
        x = c.input(0)
        return x.mT if tx and nda >= 2 else x

    def b():
        y = c.input(1)
        return y.mT if ty and ndb >= 2 else y
    ga = gb = None
    if nda >= 2 and ndb >= 2 and not (tx or ty) and not _grad_enabled():
        # plain backward: NumPy directly, no view objects
        gd = g._data
        if c.needs[0]:
            ga = Tensor._wrap(np.asarray(gd @ np.swapaxes(c.input(1)._data, -1, -2)))
        if c.needs[1]:
            gb = Tensor._wrap(np.asarray(np.swapaxes(c.input(0)._data, -1, -2) @ gd))
        return ga, gb
    if nda == 1 and ndb == 1:
        ga = g * b() if c.needs[0] else None
        gb = g * a() if c.needs[1] else None
    elif nda == 1:
        ga = (g.unsqueeze(-2) @ b().mT).squeeze(-2) if c.needs[0] else None
        gb = a().unsqueeze(-1) @ g.unsqueeze(-2) if c.needs[1] else None
    elif ndb == 1:
        ga = g.unsqueeze(-1) @ b().unsqueeze(-2) if c.needs[0] else None
        gb = (a().mT @ g.unsqueeze(-1)).squeeze(-1) if c.needs[1] else None
    else:
        ga = g @ b().mT if c.needs[0] else None
        gb = a().mT @ g if c.needs[1] else None
    if tx and ga is not None and ga.ndim >= 2:
        ga = ga.mT
    if ty and gb is not None and gb.ndim >= 2:
        gb = gb.mT
    return ga, gb


MATMUL = OpDef("matmul", _k_matmul, _b_matmul, save={0: (1,), 1: (0,)}, inputs=("x", "y"),
               attrs=(("transpose_x", False), ("transpose_y", False)))
declare(MATMUL, aliases=("mm", "bmm"))


def _matmul_shape(a, b):
    """Result shape of a @ b, or None when they cannot be multiplied (no computation)."""
    def zeros(shape):
        return np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), shape, [0] * len(shape))
    try:
        return np.matmul(zeros(a), zeros(b)).shape
    except ValueError:
        return None


def _check_matmul_(self, args, attrs, op_name):
    other = args[1]
    if not isinstance(other, Tensor):
        raise TypeError(f"{op_name}: expected a Tensor operand, got {type(other).__name__}")
    res_shape = _matmul_shape(self._data.shape, other._data.shape)
    if res_shape != self._data.shape:
        raise ValueError(
            f"{op_name}: the product of shapes {list(self._data.shape)} and "
            f"{list(other._data.shape)} has shape {list(res_shape) if res_shape is not None else '(invalid)'}, "
            f"which differs from self's shape {list(self._data.shape)}; an in-place matmul "
            "must not change its tensor's shape. Fix: use `x = x @ y`.")
    rdt = np.result_type(self._data.dtype, other._data.dtype)
    if not np.can_cast(rdt, self._data.dtype, "same_kind"):
        raise TypeError(f"{op_name}: result type {rdt} can't be cast to the desired output "
                        f"type {self._data.dtype}")
    return None


def _k_matmul_(out, other, tx, ty):
    res = np.matmul(out, other)   # a temporary: the output overlaps the input
    np.copyto(out, res, casting="same_kind")
    return out


MATMUL_ = OpDef("matmul_", _k_matmul_, _b_matmul, save={0: (1,), 1: (0,)}, kind="inplace",
                inputs=("x", "y"), attrs=(("transpose_x", False), ("transpose_y", False)),
                check=_check_matmul_, node_name="MatmulBackward")
declare(MATMUL_)


# ---------------------------------------------------------------- joins
def _k_concat(*arrays_and_axis):
    *arrays, axis = arrays_and_axis
    return np.concatenate(arrays, axis=axis)


def _b_concat(c, g):
    axis = c.attrs[0]
    sizes = [m[0][axis] for m in c.input_meta]
    out = []
    start = 0
    for s in sizes:
        out.append(g.narrow(axis, start, s))
        start += s
    return tuple(out)


def _b_stack(c, g):
    axis = c.attrs[0]
    return tuple(g.select(axis, i) for i in range(len(c.input_meta)))


CONCAT = OpDef("concat", _k_concat, _b_concat, attrs=(("axis", 0),))
STACK = OpDef("stack", lambda *a: np.stack(a[:-1], axis=a[-1]), _b_stack, attrs=(("axis", 0),))


def concat(x, axis=0, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    tensors = [R.as_tensor(t) for t in x]
    if not tensors:
        raise ValueError("concat: expected a non-empty list of tensors")
    nd = tensors[0]._data.ndim
    axis = int(axis) % max(nd, 1)
    dts = {t._data.dtype for t in tensors}
    if len(dts) > 1:
        rdt = np.result_type(*dts)
        tensors = [t.astype(_dt.from_numpy_dtype(rdt)) for t in tensors]
    for t in tensors[1:]:
        if t._data.ndim != nd or any(a != b for i, (a, b) in enumerate(zip(t._data.shape, tensors[0]._data.shape)) if i != axis):
            raise ValueError(f"concat: shapes {[list(t._data.shape) for t in tensors]} differ "
                             f"outside axis {axis}")
    return R.dispatch(CONCAT, tuple(tensors), (axis,))


def stack(x, axis=0, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    tensors = [R.as_tensor(t) for t in x]
    shapes = {t._data.shape for t in tensors}
    if len(shapes) != 1:
        raise ValueError(f"stack expects each tensor to be equal size, got {[list(s) for s in shapes]}")
    nd = tensors[0]._data.ndim + 1
    axis = int(axis) % nd
    return R.dispatch(STACK, tuple(tensors), (axis,))


R.register_function("concat", concat, method=False)
R.register_function("cat", concat, method=False)
R.register_function("stack", stack, method=False)


# ---------------------------------------------------------------- gathers
def _k_index_select(x, index, axis):
    return np.take(x, index.astype(np.int64), axis=axis)


def _b_index_select(c, g):
    index = c.input(1)
    axis = c.attrs[0]
    z = R.FUNCTIONS["zeros"](list(c.input_meta[0][0]), dtype=g.dtype)
    return (z.index_add(axis, index, g), None)


INDEX_SELECT = OpDef("index_select", _k_index_select, _b_index_select, save={0: (1,)},
                     inputs=("x", "index"), attrs=(("axis", 0),))
_index_select = declare(INDEX_SELECT, dim_alias=True)


def _k_take_along(x, indices, axis):
    return np.take_along_axis(x, indices.astype(np.int64), axis=axis)


def _b_take_along(c, g):
    idx = c.input(1)
    axis = c.attrs[0]
    z = R.FUNCTIONS["zeros"](list(c.input_meta[0][0]), dtype=g.dtype)
    return (R.FUNCTIONS["scatter_add"](z, axis, idx, g), None)


TAKE_ALONG = OpDef("take_along_axis", _k_take_along, _b_take_along, save={0: (1,)},
                   inputs=("arr", "indices"), attrs=(("axis", 0),))
declare(TAKE_ALONG)


def gather(x, dim=None, index=None, name=None, *, axis=None, sparse_grad=False):
    """PyTorch gather(x, dim, index) (= take_along_axis); Paddle gather(x, index, axis)
    (= index_select). Told apart by the argument kinds."""
    if isinstance(dim, Tensor) or isinstance(dim, (list, np.ndarray)):
        idx = R.as_tensor(dim)
        ax = axis if axis is not None else (index if isinstance(index, int) else 0)
        if idx._data.ndim == 0:
            return x.index_select(ax, idx.reshape([1])).squeeze(ax)
        return R.FUNCTIONS["index_select"](x, idx, axis=ax)
    d = dim if dim is not None else axis
    return R.FUNCTIONS["take_along_axis"](x, R.as_tensor(index), axis=d)


R.register_function("gather", gather)


def _k_flip(x, axis):
    return np.flip(x, axis=axis).copy()


FLIP = OpDef("flip", _k_flip, lambda c, g: (g.flip(list(c.attrs[0])),), attrs=(("axis", None),))


def flip(x, axis=None, name=None, *, dims=None, dim=None):
    axis = dims if dims is not None else (dim if dim is not None else axis)
    axs = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    return R.dispatch(FLIP, (x,), (tuple(int(a) % x._data.ndim for a in axs),))


R.register_function("flip", flip)


def where(condition, x=None, y=None, name=None):
    """where(cond, x, y) picks x where cond else y; where(cond) gives the indices."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    cond = R.as_tensor(condition)
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = R.as_tensor(x)
    if not isinstance(x, Tensor):
        x = R.as_tensor(x, like=y)
    return R.dispatch(R.OPS["where_self"], (x, cond, R.operand(y)), ())


def where_(condition, x, y, name=None):
    """Writes the result into x and returns x."""
    return R.dispatch_inplace(R.OPS["where_self"], (x, R.as_tensor(condition), R.operand(y)), (),
                              "where_")


def _where_method(x, condition, y=None):
    return where(condition, x, y)


def _where_method_(x, condition, y=None):
    return where_(condition, x, y)


R.register_function("where", where, method=False)
R.register_function("where_", where_, method=False)
R.register_function("where", _where_method, function=False)
R.register_function("where_", _where_method_, function=False)


def nonzero(x, as_tuple=False, name=None):
    nz = np.nonzero(x._data)
    if as_tuple:
        return tuple(Tensor._wrap(np.asarray(i, dtype=np.int64)) for i in nz)
    return Tensor._wrap(np.stack(nz, axis=1).astype(np.int64) if nz else np.zeros((0, 0), np.int64))


R.register_function("nonzero", nonzero)


def masked_select(x, mask, name=None):
    return x[R.as_tensor(mask)]


R.register_function("masked_select", masked_select)


def tile(x, repeat_times, name=None):
    reps = tuple(repeat_times)
    nd = max(len(reps), x._data.ndim)
    xs = (1,) * (nd - x._data.ndim) + x._data.shape
    reps = (1,) * (nd - len(reps)) + reps
    y = x.reshape(list(xs))
    # tile = expand of an interleaved view, then a copy
    inter = []
    shape = []
    for r, n in zip(reps, xs):
        inter += [1, n]
        shape += [r, n]
    return y.reshape(inter).expand(shape).reshape([r * n for r, n in zip(reps, xs)])


R.register_function("tile", tile)
R.register_function("repeat", lambda x, *sizes: tile(x, sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)) else list(sizes)),
                    function=False)
