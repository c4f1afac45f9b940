"""Indexing: getitem (basic -> view, advanced -> copy), setitem and the indexed in-place ops,
fills, copy_, and Paddle's metadata-changing in-place ops."""
from __future__ import annotations

import numpy as np

from ..autograd import grad_mode
from ..tensor import Tensor
from . import registry as R
from .registry import OpDef, check_inplace_autograd, declare, fmt_shape
from .views import _generic_view


# ---------------------------------------------------------------- index keys
def _key(idx):
    """-> (numpy key, is_advanced)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    out = []
    advanced = False
    for it in items:
        if isinstance(it, Tensor):
            a = it._data
            if a.ndim == 0 and a.dtype.kind in "iu":
                out.append(int(a))
                continue
            out.append(a if a.dtype.kind == "b" else a.astype(np.int64, copy=False))
            advanced = True
        elif isinstance(it, (list, np.ndarray)):
            a = np.asarray(it)
            if a.dtype.kind not in "iub":
                raise IndexError(f"index arrays must be integers or booleans, got {a.dtype}")
            out.append(a)
            advanced = True
        elif isinstance(it, bool) or it is None or it is Ellipsis or isinstance(it, slice):
            if isinstance(it, bool):
                advanced = True
            out.append(it)
        elif isinstance(it, (int, np.integer)):
            out.append(int(it))
        else:
            raise IndexError(f"unsupported index {it!r} of type {type(it).__name__}")
    key = tuple(out)
    if not advanced and Ellipsis not in key:
        key = key + (Ellipsis,)   # numpy then returns a 0-d view instead of a scalar copy
    return key, advanced


def _check_bounds(x, key):
    try:
        x._data[key]
    except IndexError as e:
        raise IndexError(f"index {key} is out of bounds for tensor of shape "
                         f"{fmt_shape(x._data.shape)}: {e}") from None


def _k_index(x, key):
    return x[key]


def _b_index(c, g):
    key = c.attrs[0]
    z = R.FUNCTIONS["zeros"](list(c.input_meta[0][0]), dtype=g.dtype)
    return (R.dispatch_inplace(INDEX_PUT_, (z, g), (key, True), "index_put_"),)


INDEX = OpDef("index", _k_index, _b_index, attrs=(("key", None),), node_name="IndexBackward")


def getitem(x, idx):
    c = idx.__class__
    if c is slice or c is int:          # the common cases, straight to NumPy
        try:
            arr = x._data[idx] if c is slice else x._data[idx, ...]
        except IndexError as e:
            raise IndexError(f"index {idx!r} is out of bounds for tensor of shape "
                             f"{fmt_shape(x._data.shape)}: {e}") from None
        return _generic_view(x, "slice", lambda a: arr)
    key, advanced = _key(idx)
    if advanced:
        _check_bounds(x, key)
        return R.dispatch(INDEX, (x,), (key,))
    try:
        arr = x._data[key]
    except IndexError as e:
        raise IndexError(f"index {idx!r} is out of bounds for tensor of shape "
                         f"{fmt_shape(x._data.shape)}: {e}") from None
    if None in key:
        arr = _torch_unit_strides(arr)
    return _generic_view(x, "slice", lambda a: arr)


def _torch_unit_strides(a):
    """NumPy gives new (None) axes stride 0; PyTorch gives size[d+1]*stride[d+1] (or 1 at
    the end). Same memory, but strides are observable."""
    strides = list(a.strides)
    changed = False
    for d in range(a.ndim - 1, -1, -1):
        if a.shape[d] == 1 and strides[d] == 0:
            strides[d] = strides[d + 1] * a.shape[d + 1] if d + 1 < a.ndim else a.itemsize
            changed = True
    if not changed:
        return a
    return np.lib.stride_tricks.as_strided(a, a.shape, strides)


# ---------------------------------------------------------------- index_put_ / setitem
def _region_shape(x, key):
    return np.empty(x._data.shape, np.bool_)[key].shape if x._data.size else \
        np.broadcast_to(np.empty((), np.int8), x._data.shape)[key].shape


def _check_put(self, args, attrs, op_name):
    key = attrs[0]
    value = args[1]
    _check_bounds(self, key)
    region = _region_shape(self, key)
    if isinstance(value, Tensor):
        try:
            b = np.broadcast_shapes(region, value._data.shape)
        except ValueError:
            b = None
        if b != region:
            raise ValueError(
                f"{op_name}: value of shape {fmt_shape(value._data.shape)} cannot be broadcast "
                f"to the indexed region of shape {fmt_shape(region)} (tensor shape "
                f"{fmt_shape(self._data.shape)})")
        if value._storage is self._storage:
            target = self._data[key] if not _is_adv(key) else self._data
            tv = Tensor._wrap(target, self._storage)
            if _is_adv(key):
                if np.shares_memory(self._data, value._data):
                    raise RuntimeError(
                        f"unsupported operation: {op_name} writes into a tensor from a value "
                        "that shares its memory. Fix: clone() the value first.")
            else:
                R.check_overlap(tv, value, op_name)
    return None


def _is_adv(key):
    return any(isinstance(k, np.ndarray) or isinstance(k, bool) for k in key)


def _k_put(out, value, key, accumulate):
    if accumulate:
        np.add.at(out, key, value)
    else:
        out[key] = value
    return out


def _b_put(c, g):
    key, accumulate = c.attrs
    gx = g
    if not accumulate:
        gx = g.clone()
        R.dispatch_inplace(INDEX_PUT_, (gx, 0.0), (key, False), "index_put_")
    gv = None
    if c.needs[1]:
        gv = R.dispatch(INDEX, (g,), (key,))
    return gx, gv


INDEX_PUT_ = OpDef("index_put_", _k_put, _b_put, kind="inplace", inputs=("x", "value"),
                   attrs=(("key", None), ("accumulate", False)), check=_check_put,
                   node_name="IndexPutBackward", own_overlap_check=True)
R.OPS["index_put_"] = INDEX_PUT_


def setitem(x, idx, value):
    key, _ = _key(idx)
    value = R.operand(value)
    if isinstance(value, Tensor) and value._storage is x._storage and _is_adv(key):
        value = value.clone()
    R.dispatch_inplace(INDEX_PUT_, (x, value), (key, False), "__setitem__")


def index_put_(x, indices, value, accumulate=False, name=None):
    key, _ = _key(tuple(indices))
    return R.dispatch_inplace(INDEX_PUT_, (x, R.operand(value)), (key, bool(accumulate)),
                              "index_put_")


def index_put(x, indices, value, accumulate=False, name=None):
    return index_put_(x.clone(), indices, value, accumulate)


Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
R.register_function("index_put_", index_put_)
R.register_function("index_put", index_put)


# ---------------------------------------------------------------- index_add_
def _ia_key(ndim, axis, index):
    return (slice(None),) * axis + (index,)


def _check_index_add(self, args, attrs, op_name):
    axis, index, alpha = attrs
    src = args[1]
    exp = self._data.shape[:axis] + (len(index),) + self._data.shape[axis + 1:]
    if src._data.shape != exp:
        raise ValueError(f"{op_name}: source shape {fmt_shape(src._data.shape)} must be "
                         f"{fmt_shape(exp)} (self {fmt_shape(self._data.shape)}, axis {axis}, "
                         f"{len(index)} indices)")
    if index.size and (index.max() >= self._data.shape[axis] or index.min() < -self._data.shape[axis]):
        raise IndexError(f"{op_name}: index out of range for axis {axis} of size "
                         f"{self._data.shape[axis]}")
    rdt = np.result_type(self._data.dtype, src._data.dtype)
    if not np.can_cast(rdt, self._data.dtype, "same_kind"):
        raise TypeError(f"{op_name}: result type {rdt} can't be cast to {self._data.dtype}")


def _k_index_add(out, src, axis, index, alpha):
    np.add.at(out, _ia_key(out.ndim, axis, index), src if alpha == 1 else src * alpha)
    return out


INDEX_ADD_ = OpDef("index_add_", _k_index_add,
                   lambda c, g: (g, g.index_select(Tensor._wrap(c.attrs[1]), axis=c.attrs[0]) * c.attrs[2]),
                   kind="inplace", inputs=("x", "source"),
                   attrs=(("axis", 0), ("index", None), ("alpha", 1)), check=_check_index_add,
                   node_name="IndexAddBackward")


def index_add_(x, axis=None, index=None, source=None, alpha=1, name=None, *, dim=None, value=None):
    if dim is not None:
        axis = dim
    if value is not None:   # Paddle: index_add_(x, index, axis, value)
        source = value
    if isinstance(axis, Tensor):   # Paddle positional order (x, index, axis, value)
        axis, index = index, axis
    ax = int(axis) % max(x._data.ndim, 1)
    idx = R.as_tensor(index)._data.astype(np.int64).reshape(-1)
    return R.dispatch_inplace(INDEX_ADD_, (x, R.as_tensor(source)), (ax, idx, alpha), "index_add_")


def index_add(x, axis=None, index=None, source=None, alpha=1, name=None, *, dim=None, value=None):
    return index_add_(x.clone(), axis, index, source, alpha, dim=dim, value=value)


R.register_function("index_add_", index_add_)
R.register_function("index_add", index_add)


# ---------------------------------------------------------------- scatter (PyTorch dim form)
def _full_index(index, axis):
    idx = list(np.indices(index.shape, sparse=True))
    idx[axis] = index
    return tuple(idx)


def _check_scatter(self, args, attrs, op_name):
    axis, index, _ = attrs
    if index.ndim != self._data.ndim:
        raise ValueError(f"{op_name}: index must have as many dims as self "
                         f"({self._data.ndim}), got {index.ndim}")
    n = self._data.shape[axis]
    if index.size and (index.max() >= n or index.min() < -n):
        raise IndexError(f"{op_name}: index out of range for axis {axis} of size {n}")
    src = args[1]
    if isinstance(src, Tensor) and any(a > b for a, b in zip(index.shape, src._data.shape)):
        raise ValueError(f"{op_name}: index shape {fmt_shape(index.shape)} exceeds src shape "
                         f"{fmt_shape(src._data.shape)}")


def _src_part(src, index):
    if isinstance(src, np.ndarray):
        return src[tuple(slice(0, n) for n in index.shape)]
    return src


def _k_scatter(out, src, axis, index, reduce):
    key = _full_index(index, axis)
    if reduce == "add":
        np.add.at(out, key, _src_part(src, index))
    else:
        out[key] = _src_part(src, index)
    return out


def _b_scatter(c, g):
    axis, index, reduce = c.attrs
    gx = g
    idx_t = Tensor._wrap(index)
    if reduce != "add":
        gx = g.clone()
        R.dispatch_inplace(SCATTER_, (gx, 0.0), (axis, index, None), "scatter_")
    gs = None
    if c.needs[1]:
        gs = R.FUNCTIONS["take_along_axis"](g, idx_t, axis=axis)
        shape = c.input_meta[1][0]
        if tuple(gs.shape) != tuple(shape):
            z = R.FUNCTIONS["zeros"](list(shape), dtype=gs.dtype)
            z[tuple(slice(0, n) for n in index.shape)] = gs
            gs = z
    return gx, gs


SCATTER_ = OpDef("scatter_", _k_scatter, _b_scatter, kind="inplace", inputs=("x", "src"),
                 attrs=(("axis", 0), ("index", None), ("reduce", None)), check=_check_scatter,
                 node_name="ScatterBackward")


def scatter_(x, dim, index=None, src=None, reduce=None, name=None, *, value=None,
             overwrite=True, updates=None):
    """PyTorch scatter_(dim, index, src); Paddle scatter_(index, updates, overwrite) (rows of
    axis 0). Told apart by the type of the second argument."""
    if isinstance(dim, Tensor):   # Paddle form
        idx = dim._data.astype(np.int64).reshape(-1)
        upd = index if updates is None else updates
        if overwrite:
            return index_put_(x, (Tensor._wrap(idx),), R.as_tensor(upd))
        zero_rows = Tensor._wrap(np.zeros((len(np.unique(idx)),) + x._data.shape[1:], x._data.dtype))
        index_put_(x, (Tensor._wrap(np.unique(idx)),), zero_rows)
        return index_add_(x, 0, Tensor._wrap(idx), R.as_tensor(upd))
    if value is not None:
        src = value
    ax = int(dim) % max(x._data.ndim, 1)
    return R.dispatch_inplace(SCATTER_, (x, R.operand(src)),
                              (ax, R.as_tensor(index)._data.astype(np.int64), reduce), "scatter_")


def scatter(x, dim, index=None, src=None, reduce=None, name=None, **kw):
    return scatter_(x.clone(), dim, index, src, reduce, **kw)


def scatter_add_(x, dim, index, src, name=None):
    return scatter_(x, dim, index, src, reduce="add")


def scatter_add(x, dim, index, src, name=None):
    return scatter_(x.clone(), dim, index, src, reduce="add")


for _n, _f in dict(scatter_=scatter_, scatter=scatter, scatter_add_=scatter_add_,
                   scatter_add=scatter_add).items():
    R.register_function(_n, _f)


def put_along_axis_(arr, indices, values, axis, reduce="assign", name=None):
    return scatter_(arr, axis, indices, values, reduce=None if reduce == "assign" else reduce)


def put_along_axis(arr, indices, values, axis, reduce="assign", name=None):
    return put_along_axis_(arr.clone(), indices, values, axis, reduce)


R.register_function("put_along_axis_", put_along_axis_)
R.register_function("put_along_axis", put_along_axis)


# ---------------------------------------------------------------- copy_, fill_, zero_
def _check_copy(self, args, attrs, op_name):
    src = args[1]
    try:
        b = np.broadcast_shapes(self._data.shape, src._data.shape)
    except ValueError:
        b = None
    if b != self._data.shape:
        raise ValueError(f"{op_name}: source of shape {fmt_shape(src._data.shape)} cannot be "
                         f"broadcast to the destination shape {fmt_shape(self._data.shape)}")


def _k_copy(out, src):
    np.copyto(out, src, casting="unsafe")
    return out


COPY_ = OpDef("copy_", _k_copy, lambda c, g: (g * 0, g), kind="inplace", inputs=("x", "src"),
              check=_check_copy, node_name="CopyBackward")


def copy_(x, src, non_blocking=False, name=None):
    return R.dispatch_inplace(COPY_, (x, R.as_tensor(src)), (), "copy_")


R.register_function("copy_", copy_)


def _k_fill(out, value):
    out[...] = value
    return out


def _b_fill(c, g):
    return (g * 0, g.sum() if c.needs[1] else None)


def _check_fill(self, args, attrs, op_name):
    v = args[1]
    if isinstance(v, Tensor) and v._data.size != 1:
        raise ValueError(f"{op_name}: expected a number or a one-element tensor, got shape "
                         f"{fmt_shape(v._data.shape)}")


FILL_ = OpDef("fill_", _k_fill, _b_fill, kind="inplace", inputs=("x", "value"),
              check=_check_fill, fill_like=True, node_name="FillBackward")
ZERO_ = OpDef("zero_", lambda out: _k_fill(out, 0), lambda c, g: (g * 0,), kind="inplace",
              fill_like=True, node_name="ZeroBackward")
declare(FILL_)
declare(ZERO_)


# ---------------------------------------------------------------- metadata in-place (Paddle)
def _meta_inplace(name, out_of_place):
    def fn(x, *args, **kwargs):
        need_grad = grad_mode.is_grad_enabled() and x.requires_grad
        if need_grad:
            check_inplace_autograd(x, name)
        # a non-leaf keeps a history whose shapes match it, even under no_grad
        track = need_grad or (x._view is None and x._grad_fn is not None)
        with grad_mode.set_grad_enabled(track):
            y = out_of_place(x, *args, **kwargs)
        if y._storage is not x._storage:
            raise ValueError(
                f"{name}: the new shape {fmt_shape(y._data.shape)} cannot be a view of this "
                f"tensor (shape {fmt_shape(x._data.shape)}, strides {list(x.stride())}), so it "
                "cannot change in place without a copy. Fix: `x = x.reshape(...)` or "
                "`x = x.contiguous()` first.")
        x._data = y._data
        R.bump(x, name)
        if x._view is None:
            x._grad_fn = y._grad_fn if track else x._grad_fn
            x._out_nr = 0
        return x
    fn.__name__ = name
    return fn


for _n in ("reshape", "squeeze", "unsqueeze", "flatten", "transpose", "t"):
    R.register_function(_n + "_", _meta_inplace(_n + "_", R.FUNCTIONS[_n]))
R.register_function("swapdims_", _meta_inplace("swapdims_", R.FUNCTIONS["swapdims"]))
