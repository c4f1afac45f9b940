"""Indexing: getitem (basic -> view, advanced -> copy), setitem and the indexed in-place ops,
fills, copy_, and Paddle's metadata-changing in-place ops.
"""
# Note [Index arguments]
# Every index goes through ops/args.py (Note [Argument layer]): subscripts through
# `args.tensor_index` (integer tensors, bool masks; uint8 is a mask as in PyTorch; floats are
# refused, never truncated), dims through `args.axis`, index tensors of gather/scatter/index_add
# through `args.index_dtype` + `args.in_range` (PyTorch refuses negative indices there; NumPy
# would wrap them), scale factors through `args.alpha`. All checks run before the write (Note
# [Check, then write]).

# Note [Saved indices]
# The index arrays an indexed op's backward needs are passed as a non-tensor *input* of the
# OpDef (not an attr) and declared in its `save` spec, so the node keeps them in `saved`
# exactly when a gradient that uses them is needed, and `release()` after a backward without
# retain_graph drops them and marks the node released: a second backward raises as in PyTorch
# (which saves the indices as tensors). Integer index arrays are copies, so a later in-place
# change to the index tensor cannot change what the backward scatters.

from __future__ import annotations

import math

import numpy as np

from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError, AxisError
from ..autograd.inplace import check_inplace_autograd, check_overlap, metadata_inplace
from ..tensor import Tensor
from . import args as A
from . import registry as R
from .registry import OpDef, declare, fmt_shape
from .views import _generic_view, generic_view_op

_SLICE = generic_view_op("slice")


# ---------------------------------------------------------------- index keys
def _array_index(it, op):
    """A list or ndarray used as an index."""
    try:
        a = np.asarray(it)
    except (TypeError, ValueError) as e:
        raise A.IndexDtypeError(f"{op}(): could not use {type(it).__name__} as an index: {e}") from None
    if a.size == 0 and a.dtype.kind == "f":      # x[[]]: an empty integer index
        return a.astype(np.int64)
    if a.dtype.kind == "b":
        return a.copy()
    if a.dtype == np.uint8:
        return a.astype(np.bool_)
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    raise A.IndexDtypeError(f"{op}(): index arrays must be integers or booleans, got {a.dtype} "
                            f"({A._describe(it) if isinstance(it, Tensor) else type(it).__name__}). "
                            "Fix: cast the index to int64.")


def _key(idx, op="__getitem__"):
    """-> (numpy key, is_advanced)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    out = []
    advanced = False
    for it in items:
        c = it.__class__
        if c is int or c is slice or it is None or it is Ellipsis:
            out.append(it)
        elif isinstance(it, Tensor):
            a = it._data
            if a.ndim == 0 and a.dtype.kind in "iu" and a.dtype != np.uint8:
                out.append(int(a))
                continue
            out.append(A.tensor_index(it, op))
            advanced = True
        elif c is bool or c is np.bool_:
            out.append(bool(it))
            advanced = True
        elif isinstance(it, (int, np.integer)):
            out.append(int(it))
        elif isinstance(it, (list, np.ndarray)):
            out.append(_array_index(it, op))
            advanced = True
        else:
            raise A.IndexDtypeError(
                f"{op}(): only integers, slices (`:`), ellipsis (`...`), None and integer or "
                f"bool tensors are valid indices (got {type(it).__name__} {it!r:.40})")
    key = tuple(out)
    if not advanced and Ellipsis not in key:
        key = key + (Ellipsis,)   # numpy then returns a 0-d view instead of a scalar copy
    return key, advanced


def _autograd_first(x, op):
    """PyTorch applies the in-place autograd rules (leaf, view of a leaf) before it looks at
    the arguments; so do the indexed in-place ops (the same check runs again in
    dispatch_inplace, cheaply)."""
    if not isinstance(x, Tensor):
        A.tensor(x, op)
    if x._requires_grad or x._view is not None or x._grad_fn is not None:
        if grad_mode.is_grad_enabled() and x.requires_grad:
            check_inplace_autograd(x, op)


def _range_error(op, x, e):
    return A.IndexRangeError(f"{op}(): {e} (tensor of shape {fmt_shape(x._data.shape)})")


def _k_index(x, key):
    return x[key]


def _b_index(c, g):
    key = c.input(1)    # Note [Saved indices]
    z = R.FUNCTIONS["zeros"](list(c.input_meta[0][0]), dtype=g.dtype)
    return (R.dispatch_inplace(INDEX_PUT_, (z, g, key), (True,), "index_put_"), None)


INDEX = OpDef("index", _k_index, _b_index, inputs=("x", "key"), needs={"x": ("key",)},
              node_name="IndexBackward",
              doc="x[key]: basic and advanced indexing (a copy for advanced keys).")


def getitem(x, idx):
    """x[idx]: basic indexing gives a view, advanced indexing (tensors, lists, masks) a copy."""
    c = idx.__class__
    if c is slice or c is int:          # the common cases, straight to NumPy
        try:
            arr = x._data[idx] if c is slice else x._data[idx, ...]
        except IndexError as e:
            raise _range_error("__getitem__", x, e) from None
        if arr.size == 0:
            arr = _empty_at_torch_offset(x._data, (idx,), arr)
        if x._view is None and x._grad_fn is None and not x._requires_grad:
            # Note [Fast basic index]
            # A root tensor with no history that does not require grad gives a view that
            # records no node, whatever the grad mode; so the geometry closures the node's
            # attrs would need are not built. A view is excluded: its base may require grad
            # (set after the view was taken).
            return R.view_of(_SLICE, x, arr)
        # `make` redoes the slice on a dense stand-in when x overlaps itself (Note [View
        # geometry]); the forward result is `arr`
        make = (lambda a: a[idx]) if c is slice else (lambda a: a[idx, ...])
        return _generic_view(x, "slice", make, arrays=arr)
    key, advanced = _key(idx)
    if advanced:
        try:
            return R.dispatch(INDEX, (x, key), ())
        except A.IndexRangeError:
            raise
        except IndexError as e:     # NumPy's bounds / mask-shape / too-many-indices errors
            raise _range_error("__getitem__", x, e) from None
    try:
        arr = x._data[key]
    except IndexError as e:
        raise _range_error("__getitem__", x, e) from None
    if None in key:
        arr = _torch_unit_strides(arr)
    if arr.size == 0:
        arr = _empty_at_torch_offset(x._data, key, arr)
    return _generic_view(x, "slice", lambda a: a[key], arrays=arr)


def _empty_at_torch_offset(src, key, arr):
    """An empty basic-indexing result placed where PyTorch places it: at the clamped start
    of each slice (NumPy puts every empty result at the source's first element; the offset
    is observable through storage_offset() and as_strided). `key` holds ints, slices, None
    and at most one Ellipsis, already checked against src's shape."""
    if src.size == 0:
        return arr
    n_dims = sum(1 for k in key if k is not None and k is not Ellipsis)
    offset = 0
    d = 0
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            d += src.ndim - n_dims
            continue
        n, st = src.shape[d], src.strides[d]
        if k.__class__ is slice:
            offset += k.indices(n)[0] * st
        else:
            offset += (k % n) * st
        d += 1
    if offset == 0:
        return arr
    from .views import _At
    it = dict(arr.__array_interface__)
    it["data"] = (src.__array_interface__["data"][0] + offset, it["data"][1])
    it["strides"] = arr.strides
    it.pop("descr", None)
    o = _At()
    o.__array_interface__, o.base = it, src
    return np.asarray(o)
    from .views import _slice_dim
    flat = src.reshape(-1) if src.flags.c_contiguous else None
    if flat is not None and 0 <= offset // src.itemsize < flat.size:
        return _slice_dim(flat, 0, offset // src.itemsize, 0).reshape(arr.shape) \
            if arr.ndim != 1 else _slice_dim(flat, 0, offset // src.itemsize, 0)
    return arr


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
    """Shape of x[key] without touching x's data; raises NumPy's IndexError when out of range."""
    return np.broadcast_to(np.empty((), np.int8), x._data.shape)[key].shape


def _check_put(self, args, attrs, op_name):
    value, key = args[1], args[2]
    try:
        region = _region_shape(self, key)
    except IndexError as e:
        raise _range_error(op_name, self, e) from None
    if isinstance(value, Tensor):
        try:
            b = np.broadcast_shapes(region, value._data.shape)
        except ValueError:
            b = None
        if b != region:
            raise ArgValueError(
                f"{op_name}(): shape mismatch: value tensor of shape "
                f"{fmt_shape(value._data.shape)} cannot be broadcast to the indexed region of "
                f"shape {fmt_shape(region)} (tensor shape {fmt_shape(self._data.shape)})")
        if value._storage is self._storage:
            target = self._data[key] if not _is_adv(key) else self._data
            tv = Tensor._wrap(target, self._storage)
            if _is_adv(key):
                if np.shares_memory(self._data, value._data):
                    raise RuntimeError(
                        f"unsupported operation: {op_name} writes into a tensor from a value "
                        "that shares its memory. Fix: clone() the value first.")
            else:
                check_overlap(tv, value, op_name)
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
    accumulate = c.attrs[0]
    key = c.input(2)    # Note [Saved indices]
    gx = g
    if not accumulate:
        gx = g.clone()
        R.dispatch_inplace(INDEX_PUT_, (gx, 0.0, key), (False,), "index_put_")
    gv = None
    if c.needs[1]:
        gv = R.dispatch(INDEX, (g, key), ())
    return gx, gv, None


INDEX_PUT_ = OpDef("index_put_", _k_put, _b_put, kind="inplace", inputs=("x", "value", "key"),
                   attrs=(("accumulate", False),), check=_check_put, needs={"x": ("key",), "value": ("key",)},
                   node_name="IndexPutBackward", own_overlap_check=True,
                   doc="x[key] = value (or += with accumulate=True).")
R.OPS["index_put_"] = INDEX_PUT_


def _scalar_into(x, v, op, name="value"):
    """A Python number written into x: floats are truncated into integer tensors as PyTorch
    does, but a NaN/inf or an integer outside the dtype's range is refused (NumPy would raise
    its own ValueError/OverflowError, or wrap)."""
    k = x._data.dtype.kind
    if k in "iu":
        if isinstance(v, float) and not math.isfinite(v):
            raise ArgValueError(f"{op}(): {name} {v} cannot be converted to {x.dtype.name} "
                                "without overflow. Fix: use a finite value or a floating tensor.")
        info = np.iinfo(x._data.dtype)
        iv = int(v) if not isinstance(v, bool) else int(v)
        if not info.min <= iv <= info.max:
            raise ArgValueError(f"{op}(): {name} {v} cannot be converted to {x.dtype.name} "
                                f"without overflow (range [{info.min}, {info.max}]).")
    return v


def _mask_fill_ok(key, value):
    """PyTorch writes a one-element tensor through a single bool mask with masked_fill
    (any dtype, cast); every other advanced write needs the value's dtype to match."""
    arrays = [k for k in key if isinstance(k, np.ndarray)]
    return len(arrays) == 1 and arrays[0].dtype == np.bool_ and value._data.size == 1


def _put_value(x, value, key, advanced, op, accumulate=False):
    """Note [Argument layer] for the value of setitem / index_put_."""
    c = value.__class__
    if c is float or c is int or c is bool:
        return _scalar_into(x, value, op)
    if isinstance(value, Tensor):
        if advanced and value._data.dtype != x._data.dtype and not (
                not accumulate and _mask_fill_ok(key, value)):
            raise ArgTypeError(
                f"{op}(): Index put requires the source and destination dtypes match, got "
                f"{x.dtype.name} for the destination and {value.dtype.name} for the source. "
                f"Fix: cast the value with .astype('{x.dtype.name}').")
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError) as e:
            raise ArgTypeError(f"{op}(): can't assign a {type(value).__name__}: {e}") from None
        if arr.dtype.kind not in "biuf":
            raise ArgTypeError(f"{op}(): can't assign a {type(value).__name__} of {arr.dtype} "
                               f"to a {x.dtype.name} tensor. Fix: pass numbers or a tensor.")
        if not np.can_cast(arr.dtype, x._data.dtype, "same_kind"):
            raise ArgTypeError(f"{op}(): can't assign {arr.dtype} values to a {x.dtype.name} "
                               "tensor without truncating them. Fix: pass a tensor of dtype "
                               f"{x.dtype.name}.")
        return Tensor._wrap(arr.astype(x._data.dtype))
    v = R.operand(value, op_name=op, name="value")     # refuses None, strings, objects
    return _scalar_into(x, v, op) if not isinstance(v, Tensor) else v


def setitem(x, idx, value):
    """x[idx] = value, in place (bumps x's version)."""
    try:
        key, advanced = _key(idx, "__setitem__")
    except Exception:
        _autograd_first(x, "__setitem__")   # a bad index tensor: the leaf rule first, as torch
        raise
    if not advanced and isinstance(x, Tensor):
        # basic indexing selects the window first, as PyTorch's x[i] does before its copy_
        # checks the autograd rules: an index out of range is an IndexError even on a leaf
        try:
            x._data[key]
        except IndexError as e:
            raise _range_error("__setitem__", x, e) from None
    _autograd_first(x, "__setitem__")
    value = _put_value(x, value, key, advanced, "__setitem__")
    if isinstance(value, Tensor) and value._storage is x._storage and advanced:
        value = value.clone()
    R.dispatch_inplace(INDEX_PUT_, (x, value, key), (False,), "__setitem__")


def index_put_(x, indices, value, accumulate=False, name=None):
    """x[indices] = value (or += with accumulate=True), in place; returns x."""
    _autograd_first(x, "index_put_")
    if not isinstance(indices, (tuple, list)):
        raise ArgTypeError(f"index_put_(): argument 'indices' must be a tuple of Tensors, got "
                           f"{A._describe(indices)}. Fix: pass (index,) for one index.")
    for i, it in enumerate(indices):
        if not isinstance(it, (Tensor, list, np.ndarray)):
            raise ArgTypeError(f"index_put_(): expected Tensor as element {i} in argument "
                               f"'indices', but got {type(it).__name__}")
    if accumulate.__class__ not in (bool, np.bool_) and accumulate not in (0, 1):
        raise ArgTypeError(f"index_put_(): argument 'accumulate' must be a bool, got "
                           f"{A._describe(accumulate)}")
    key, advanced = _key(tuple(indices), "index_put_")
    v = _put_value(x, value, key, True, "index_put_", bool(accumulate))
    return R.dispatch_inplace(INDEX_PUT_, (x, v, key), (bool(accumulate),), "index_put_")


def index_put(x, indices, value, accumulate=False, name=None):
    """A copy of x with x[indices] = value (or += with accumulate=True)."""
    return index_put_(A.tensor(x, "index_put").clone(), indices, value, accumulate)


Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
R.register_function("index_put_", index_put_)
R.register_function("index_put", index_put)


# ---------------------------------------------------------------- index_add_
def _ia_key(ndim, axis, index):
    return (slice(None),) * axis + (index,)


def _check_index_add(self, args, attrs, op_name):
    src, index = args[1], args[2]
    axis = attrs[0]
    exp = self._data.shape[:axis] + (len(index),) + self._data.shape[axis + 1:]
    if src._data.shape != exp:
        raise ArgValueError(
            f"{op_name}(): source shape {fmt_shape(src._data.shape)} must be {fmt_shape(exp)} "
            f"(self {fmt_shape(self._data.shape)} with dim {axis} replaced by the number of "
            f"indices, {len(index)})")
    A.in_range(index, self._data.shape[axis] if self._data.ndim else 1, op_name, dim=axis)
    if np.shares_memory(self._data, src._data):
        raise ArgValueError(f"{op_name}(): unsupported operation: the source and self share "
                            "memory (some elements of the input refer to the written-to tensor). "
                            "Fix: pass source.clone().")


def _k_index_add(out, src, index, axis, alpha):
    np.add.at(out, _ia_key(out.ndim, axis, index), src if alpha == 1 else src * alpha)
    return out


def _b_index_add(c, g):
    axis, alpha = c.attrs
    gs = None
    if c.needs[1]:
        # Note [Saved indices]; the core function, never g's method (Note [Door-neutral core])
        gs = R.FUNCTIONS["index_select"](g, Tensor._wrap(c.input(2)), axis=axis)
        if alpha != 1:
            gs = gs * alpha
    return g, gs, None


INDEX_ADD_ = OpDef("index_add_", _k_index_add, _b_index_add, kind="inplace",
                   inputs=("x", "source", "index"), attrs=(("axis", 0), ("alpha", 1)),
                   needs={"source": ("index",)}, check=_check_index_add, node_name="IndexAddBackward",
                   doc="Adds alpha * source into x at the index along axis.")


def index_add_(x, axis=None, index=None, source=None, alpha=1, name=None, *, dim=None, value=None):
    """Adds alpha * source into x at index along axis, in place; returns x."""
    if dim is not None:
        axis = dim
    if value is not None:   # Paddle: index_add_(x, index, axis, value)
        source = value
    if isinstance(axis, Tensor) and not isinstance(index, Tensor):   # Paddle positional order
        axis, index = index, axis
    _autograd_first(x, "index_add_")
    if axis is None:
        raise ArgTypeError("index_add_(): argument 'dim' (axis) is required")
    op = "index_add_"
    ax = A.axis(axis, x._data.ndim, op, "dim")
    idx = A.index_dtype(index, op)
    if idx.ndim > 1:
        raise AxisError(f"{op}(): Index is supposed to be a vector, but got dim: {idx.ndim} with "
                        f"size {fmt_shape(idx.shape)}. Fix: flatten it with .reshape([-1]).")
    if source is None:
        raise ArgTypeError(f"{op}(): argument 'source' must be a Tensor, got None")
    src = source if isinstance(source, Tensor) else R.operand(source, op_name=op, name="source")
    if not isinstance(src, Tensor):
        raise ArgTypeError(f"{op}(): argument 'source' must be a Tensor, got "
                           f"{A._describe(source)}")
    A.same_dtype(x, src, op, "source")
    a = A.number(alpha, op, "alpha")
    if x._data.dtype.kind in "biu" and isinstance(a, float):
        # PyTorch 2.13's index_add_ casts alpha to self's dtype (truncation toward zero:
        # 0.5 -> 0, -1.7 -> -1), unlike torch.add, which refuses; matched here
        if not math.isfinite(a):
            raise ArgValueError(f"{op}(): alpha {a} cannot be converted to {x.dtype.name}")
        a = int(a)
    return R.dispatch_inplace(INDEX_ADD_, (x, src, idx.reshape(-1)), (ax, a), op)


def index_add(x, axis=None, index=None, source=None, alpha=1, name=None, *, dim=None, value=None):
    """A copy of x with alpha * source added at index along axis."""
    return index_add_(A.tensor(x, "index_add").clone(), axis, index, source, alpha, dim=dim, value=value)


R.register_function("index_add_", index_add_)
R.register_function("index_add", index_add)


# ---------------------------------------------------------------- scatter (PyTorch dim form)
def _full_index(index, axis):
    idx = list(np.indices(index.shape, sparse=True))
    idx[axis] = index
    return tuple(idx)


def _check_scatter(self, args, attrs, op_name):
    src, index = args[1], args[2]
    axis = attrs[0]
    nd = self._data.ndim
    if index.ndim != nd:
        raise ArgValueError(f"{op_name}(): Index tensor must have the same number of dimensions "
                            f"as self tensor (index {fmt_shape(index.shape)}, self "
                            f"{fmt_shape(self._data.shape)})")
    if nd == 0:
        raise ArgValueError(f"{op_name}(): self is 0-d. Fix: reshape it to [1] first.")
    ish, ssh = index.shape, self._data.shape
    bad = any(ish[d] > ssh[d] for d in range(nd) if d != axis)
    if isinstance(src, Tensor):
        if src._data.ndim != nd:
            raise ArgValueError(f"{op_name}(): src must have as many dimensions as index "
                                f"({nd}), got shape {fmt_shape(src._data.shape)}")
        if bad or any(a > b for a, b in zip(ish, src._data.shape)):
            raise ArgValueError(f"{op_name}(): Expected index {fmt_shape(ish)} to be no larger "
                                f"than self {fmt_shape(ssh)} apart from dimension {axis} and to "
                                f"be no larger size than src {fmt_shape(src._data.shape)}")
    elif bad:
        raise ArgValueError(f"{op_name}(): Expected index {fmt_shape(ish)} to be no larger than "
                            f"self {fmt_shape(ssh)} apart from dimension {axis}")
    A.in_range(index, ssh[axis], op_name, dim=axis)


def _src_part(src, index, dtype):
    if isinstance(src, np.ndarray):
        if src.shape != index.shape:
            src = src[tuple(slice(0, n) for n in index.shape)]
        return src
    return np.asarray(src).astype(dtype)    # a Python number: cast first, as PyTorch


_UFUNC = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _identity(mode, dtype):
    if mode == "sum":
        return 0
    if mode == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if mode == "amax" else np.inf
    if dtype.kind == "b":
        return mode == "amin"
    info = np.iinfo(dtype)
    return info.min if mode == "amax" else info.max


def _k_scatter_any(out, src, index, axis, mode="assign", include_self=True):
    key = _full_index(index, axis)
    part = _src_part(src, index, out.dtype)
    if mode == "assign":
        out[key] = part
    elif mode == "mean":
        touched = np.zeros(out.shape, np.bool_)
        touched[key] = True
        total = out.astype(np.float64 if out.dtype.kind != "f" else out.dtype)
        cnt = np.ones(out.shape, np.int64) if include_self else np.zeros(out.shape, np.int64)
        if not include_self:
            total[touched] = 0
        np.add.at(total, key, part)
        np.add.at(cnt, key, 1)
        if out.dtype.kind == "f":
            out[touched] = total[touched] / cnt[touched]
        else:
            out[touched] = np.floor_divide(total[touched], cnt[touched])
    else:
        if not include_self:
            out[key] = _identity(mode, out.dtype)
        _UFUNC[mode].at(out, key, part)
    return out


def _b_scatter(c, g):
    """assign: the overwritten positions get no gradient; src gets g gathered at index."""
    axis = c.attrs[0]
    index = c.input(2)   # Note [Saved indices]
    gx = g.clone()
    R.dispatch_inplace(SCATTER_, (gx, 0.0, index), (axis,), "scatter_")
    return gx, _b_src(c, g, index, axis), None


def _b_src(c, g, index, axis):
    if not c.needs[1]:
        return None
    gs = R.FUNCTIONS["take_along_axis"](g[tuple(slice(0, n) if d != axis else slice(None)
                                                for d, n in enumerate(index.shape))],
                                        Tensor._wrap(index), axis=axis)
    shape = c.input_meta[1][0]
    if tuple(gs.shape) != tuple(shape):
        z = R.FUNCTIONS["zeros"](list(shape), dtype=gs.dtype)
        z[tuple(slice(0, n) for n in index.shape)] = gs
        gs = z
    return gs


def _b_scatter_add(c, g):
    axis = c.attrs[0]
    return g, (_b_src(c, g, c.input(2), axis) if c.needs[1] else None), None


SCATTER_ = OpDef("scatter_", lambda out, src, index, axis: _k_scatter_any(out, src, index, axis),
                 _b_scatter, kind="inplace", inputs=("x", "src", "index"), attrs=(("axis", 0),),
                 needs={"x": ("index",), "src": ("index",)}, check=_check_scatter, node_name="ScatterBackward",
                 doc="Writes src into x at the index along axis.")
SCATTER_ADD_ = OpDef("scatter_add_",
                     lambda out, src, index, axis: _k_scatter_any(out, src, index, axis, "sum"),
                     _b_scatter_add, kind="inplace", inputs=("x", "src", "index"),
                     attrs=(("axis", 0),), needs={"src": ("index",)}, check=_check_scatter,
                     node_name="ScatterAddBackward",
                     doc="Adds src into x at the index along axis (repeated indices accumulate).")
def _b_scatter_reduce(c, g):
    """PyTorch: scatter_(..., reduce=) has no derivative and raises when the backward reaches
    it (not at the forward); oar also lacks the derivative of scatter_reduce's prod / mean /
    amax / amin and of put_along_axis's mul / mean / amin / amax: the same error, never a
    silently wrong gradient."""
    _, mode, include_self = c.attrs
    raise RuntimeError(f"derivative for scatter_ with reduce='{mode}' (include_self="
                       f"{include_self}) is not implemented. Fix: use scatter_add_ / "
                       "put_along_axis(reduce='add') / assignment, or detach the operands.")


SCATTER_REDUCE_ = OpDef("scatter_reduce_", _k_scatter_any, _b_scatter_reduce, kind="inplace",
                        inputs=("x", "src", "index"),
                        attrs=(("axis", 0), ("reduce", "sum"), ("include_self", True)),
                        check=_check_scatter, node_name="ScatterReduceBackward",
                        doc="Reduces src into x at the index along axis (sum, prod, mean, amax, amin).")


def _scatter_call(x, dim, index, src, mode, include_self, op, src_tensor_only=False,
                  differentiable=True):
    """The one path of scatter_, scatter_add_, scatter_reduce_ and put_along_axis_."""
    _autograd_first(x, op)
    ax = A.axis(dim, x._data.ndim, op, "dim")
    idx = A.index_dtype(index, op)
    if src is None:
        raise ArgTypeError(f"{op}(): expected a src tensor or a value, got None. Fix: pass "
                           "src=<tensor> or value=<number>.")
    if not isinstance(src, Tensor):
        src = R.operand(src, op_name=op, name="src")
        if src_tensor_only and not isinstance(src, Tensor):
            raise ArgTypeError(f"{op}(): argument 'src' must be a Tensor, got "
                               f"{type(src).__name__}")
    if isinstance(src, Tensor):
        A.same_dtype(x, src, op)
    else:
        _scalar_into(x, src, op, "value")
    if mode == "assign":
        return R.dispatch_inplace(SCATTER_, (x, src, idx), (ax,), op)
    if mode == "sum" and include_self and differentiable:
        return R.dispatch_inplace(SCATTER_ADD_, (x, src, idx), (ax,), op)
    return R.dispatch_inplace(SCATTER_REDUCE_, (x, src, idx), (ax, mode, bool(include_self)), op)


_TORCH_SCATTER_REDUCE = {"add": "sum", "multiply": "prod"}


def scatter_(x, dim, index=None, src=None, reduce=None, name=None, *, value=None,
             overwrite=True, updates=None):
    """Writes src (or reduces it) into x at index along dim, in place; returns x.

    PyTorch scatter_(dim, index, src, reduce=None|'add'|'multiply'); Paddle
    scatter_(index, updates, overwrite) (rows of axis 0). Told apart by the type of the
    second argument."""
    _autograd_first(x, "scatter_")
    if isinstance(dim, Tensor):   # Paddle form
        op = "scatter_"
        idx = A.index_dtype(dim, op)
        if idx.ndim > 1:
            raise ArgValueError(f"{op}(): index must be 1-D or 0-D, got shape {fmt_shape(idx.shape)}")
        idx = idx.reshape(-1)
        if x._data.ndim == 0:
            raise ArgValueError(f"{op}(): x must have at least one dimension")
        A.in_range(idx, x._data.shape[0], op, dim=0)
        upd = index if updates is None else updates
        if upd is None:
            raise ArgTypeError(f"{op}(): argument 'updates' must be a Tensor, got None")
        upd = R.operand(upd, op_name=op, name="updates")
        if not isinstance(upd, Tensor):
            raise ArgTypeError(f"{op}(): argument 'updates' must be a Tensor, got "
                               f"{type(upd).__name__}")
        A.same_dtype(x, upd, op, "updates")
        if overwrite:
            return index_put_(x, (Tensor._wrap(idx),), upd)
        exp = (len(idx),) + x._data.shape[1:]
        if upd._data.shape != exp:
            raise ArgValueError(f"{op}(): updates shape {fmt_shape(upd._data.shape)} must be "
                                f"{fmt_shape(exp)}")
        rows = np.unique(idx)
        zero_rows = Tensor._wrap(np.zeros((len(rows),) + x._data.shape[1:], x._data.dtype))
        index_put_(x, (Tensor._wrap(rows),), zero_rows)
        return index_add_(x, 0, Tensor._wrap(idx), upd)
    if src is None:
        src = value
    if reduce is None:
        return _scatter_call(x, dim, index, src, "assign", True, "scatter_")
    reduce = A.one_of(reduce, tuple(_TORCH_SCATTER_REDUCE), "scatter_", "reduce")
    # PyTorch has no derivative for scatter_ with reduce= (even 'add'; scatter_add_ has one):
    # refused when a gradient is needed, as there
    return _scatter_call(x, dim, index, src, _TORCH_SCATTER_REDUCE[reduce], True, "scatter_",
                         differentiable=False)


def scatter(x, dim, index=None, src=None, reduce=None, name=None, **kw):
    """A copy of x with src written (or reduced) at index along dim (see scatter_)."""
    return scatter_(A.tensor(x, "scatter").clone(), dim, index, src, reduce, **kw)


def scatter_add_(x, dim, index, src, name=None):
    """Adds src into x at index along dim, in place (repeats accumulate); returns x."""
    return _scatter_call(x, dim, index, src, "sum", True, "scatter_add_", src_tensor_only=True)


def scatter_add(x, dim, index, src, name=None):
    """A copy of x with src added at index along dim (repeats accumulate)."""
    return scatter_add_(A.tensor(x, "scatter_add").clone(), dim, index, src)


_SCATTER_REDUCE_MODES = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce_(x, dim, index, src, reduce, *, include_self=True, name=None):
    """Reduces src into x at index along dim, in place (sum, prod, mean, amax, amin)."""
    reduce = A.one_of(reduce, _SCATTER_REDUCE_MODES, "scatter_reduce_", "reduce")
    return _scatter_call(x, dim, index, src, reduce, include_self, "scatter_reduce_",
                         src_tensor_only=True)


def scatter_reduce(x, dim, index, src, reduce, *, include_self=True, name=None):
    """A copy of x with src reduced at index along dim (sum, prod, mean, amax, amin)."""
    return scatter_reduce_(A.tensor(x, "scatter_reduce").clone(), dim, index, src, reduce, include_self=include_self)


for _n, _f in dict(scatter_=scatter_, scatter=scatter, scatter_add_=scatter_add_,
                   scatter_add=scatter_add, scatter_reduce_=scatter_reduce_,
                   scatter_reduce=scatter_reduce).items():
    R.register_function(_n, _f)


_PUT_MODES = {"assign": "assign", "add": "sum", "mul": "prod", "multiply": "prod",
              "mean": "mean", "amin": "amin", "amax": "amax"}


def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True,
                    broadcast=True, name=None):
    """Puts values (or reduces them) into arr at indices along axis, in place; returns arr.

    Paddle put_along_axis_: with broadcast (the default) indices broadcast against arr
    outside `axis`, and values against the indices."""
    op = "put_along_axis_"
    _autograd_first(arr, op)
    reduce = A.one_of(reduce, tuple(_PUT_MODES), op, "reduce")
    ax = A.axis(axis, arr._data.ndim, op)
    idx = A.index_dtype(indices, op, "indices")
    if idx.ndim != arr._data.ndim:
        raise ArgValueError(f"{op}(): indices must have as many dimensions as arr "
                            f"({arr._data.ndim}), got shape {fmt_shape(idx.shape)}")
    if values is None:
        raise ArgTypeError(f"{op}(): argument 'values' must be a Tensor or a number, got None")
    if broadcast:
        target = list(arr._data.shape)
        target[ax] = idx.shape[ax]
        try:
            idx = np.broadcast_to(idx, target).copy()
        except ValueError:
            raise ArgValueError(f"{op}(): indices of shape {fmt_shape(idx.shape)} cannot be "
                                f"broadcast against arr of shape {fmt_shape(arr._data.shape)} "
                                f"outside axis {ax}") from None
        if isinstance(values, Tensor) and values._data.shape != idx.shape:
            try:
                b = np.broadcast_shapes(values._data.shape, idx.shape)
            except ValueError:
                b = None
            if b != idx.shape:
                raise ArgValueError(f"{op}(): values of shape {fmt_shape(values._data.shape)} "
                                    f"cannot be broadcast to the indices' shape "
                                    f"{fmt_shape(idx.shape)}")
            values = values.expand(list(idx.shape))
    return _scatter_call(arr, ax, idx, values, _PUT_MODES[reduce], include_self, op)


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True, name=None):
    """A copy of arr with values put (or reduced) at indices along axis."""
    return put_along_axis_(A.tensor(arr, "put_along_axis", "arr").clone(), indices, values, axis, reduce, include_self, broadcast)


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
        raise ArgValueError(f"{op_name}(): source of shape {fmt_shape(src._data.shape)} cannot "
                            f"be broadcast to the destination shape {fmt_shape(self._data.shape)}")


def _k_copy(out, src):
    np.copyto(out, src, casting="unsafe")
    return out


COPY_ = OpDef("copy_", _k_copy, lambda c, g: (R.zero_grad(g), g), kind="inplace", inputs=("x", "src"),
              check=_check_copy, node_name="CopyBackward",
              doc="Copies src (broadcast, cast to x's dtype) into x.")


def copy_(x, src, non_blocking=False, name=None):
    """Copies src (broadcast, cast to x's dtype) into x, in place; returns x."""
    if not isinstance(src, Tensor):
        src = R.operand(src, op_name="copy_", name="src")    # None / strings refused
        src = R.as_tensor(src)
    return R.dispatch_inplace(COPY_, (x, src), (), "copy_")


R.register_function("copy_", copy_)


def _k_fill(out, value):
    out[...] = value
    return out


def _b_fill(c, g):
    return (R.zero_grad(g), g.sum() if c.needs[1] else None)


def _check_fill(self, args, attrs, op_name):
    v = args[1]
    if isinstance(v, Tensor) and v._data.size != 1:
        raise ArgValueError(f"{op_name}(): fill_ only supports a 0-dimension value tensor (a "
                            f"number or a one-element tensor), got shape "
                            f"{fmt_shape(v._data.shape)}. Fix: use copy_ for a tensor of values.")


FILL_ = OpDef("fill_", _k_fill, _b_fill, kind="inplace", inputs=("x", "value"),
              check=_check_fill, fill_like=True, node_name="FillBackward",
              doc="Sets every element of x to value.")
ZERO_ = OpDef("zero_", lambda out: _k_fill(out, 0), lambda c, g: (R.zero_grad(g),), kind="inplace",
              fill_like=True, node_name="ZeroBackward", doc="Sets every element of x to zero.")
declare(FILL_)
declare(ZERO_)


# ---------------------------------------------------------------- metadata in-place (Paddle)
def _meta_inplace(name, out_of_place):
    def fn(x, *args, **kwargs):
        A.tensor(x, name)
        return metadata_inplace(x, name, out_of_place, args, kwargs)   # Note [Metadata in-place ops]
    fn.__name__ = name
    fn.__doc__ = (f"{name[:-1]}(x, ...) in place: x itself takes the new shape and strides "
                  "(same object, same storage); returns x.")
    return fn


for _n in ("reshape", "squeeze", "unsqueeze", "flatten", "transpose", "t"):
    R.register_function(_n + "_", _meta_inplace(_n + "_", R.FUNCTIONS[_n]))
R.register_function("swapdims_", _meta_inplace("swapdims_", R.FUNCTIONS["swapdims"]))
