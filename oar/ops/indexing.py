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

from .. import _xp
from ..place import CPU
from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError, AxisError
from ..autograd.inplace import (bump, check_inplace_autograd, check_overlap, check_writable,
                                metadata_inplace)
from ..tensor import FAST_CLASSES, Tensor, wrap_as
from . import args as A
from . import registry as R
from .registry import OpDef, declare, fmt_shape
from .views import _generic_view, generic_view_op

_SLICE = generic_view_op("slice")


# ---------------------------------------------------------------- index keys
def _array_index(it, op):
    """A list or ndarray used as an index."""
    try:
        a = _xp.asarray(it)
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
    z = R.FUNCTIONS["zeros"](list(c.input_meta[0][0]), dtype=g.dtype, device=g.place)
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
    if offset == 0 or arr.__class__ is not np.ndarray:   # a device array: NumPy's placement
        return arr
    from .views import _At
    it = dict(arr.__array_interface__)
    it["data"] = (src.__array_interface__["data"][0] + offset, it["data"][1])
    it["strides"] = arr.strides
    it.pop("descr", None)
    o = _At()
    o.__array_interface__, o.base = it, src
    return _xp.asarray(o)


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
INDEX_PUT_.expanded_write = (   # Note [Writes into expanded tensors]
    "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = tensor")
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
            arr = _xp.asarray(value)
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


def _fit_leading_ones(x, value, key):
    """A value with more dims than the region it fills loses leading 1-dims (a view), as
    NumPy, PyTorch and Paddle allow: `d[0, :] = c` with c of shape [1, 4]."""
    try:
        extra = value._data.ndim - len(_region_shape(x, key))
    except IndexError:
        return value        # the write's own check reports the index
    if extra <= 0:
        return value
    st = value._data.shape
    n = 0
    while n < extra and st[n] == 1:
        n += 1
    return R.FUNCTIONS["reshape"](value, list(st[n:])) if n else value


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
    if isinstance(value, Tensor) and value._data.ndim and value._data.shape[0] == 1:
        value = _fit_leading_ones(x, value, key)
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
    if self._data.ndim == 0 and len(index) == 1:
        exp = ()        # Note [0-d self in scatter ops]
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
    if out.ndim == 0:       # Note [0-d self in scatter ops]
        _k_index_add(out.reshape(1), np.reshape(src, 1), index, 0, alpha)
        return out
    np.add.at(out, _ia_key(out.ndim, axis, index), src if alpha == 1 else src * alpha)
    return out


def _b_index_add(c, g):
    axis, alpha = c.attrs
    gs = None
    if c.needs[1]:
        # Note [Saved indices]; the core function, never g's method (Note [Door-neutral core])
        gs = R.FUNCTIONS["index_select"](g, Tensor._wrap(c.input(2)), axis=axis)
        if gs._data.shape != c.input_meta[1][0]:     # a 0-d self and source
            gs = gs.reshape(list(c.input_meta[1][0]))
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
    if nd == 0:     # Note [0-d self in scatter ops]
        A.in_range(index, 1, op_name, dim=axis)
        return
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
    return np.asarray(src).astype(dtype)[()]   # a Python number: cast first, as PyTorch (a
    # NumPy scalar, which a device array takes)


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


# Note [0-d self in scatter ops]
# PyTorch treats a 0-d self (with a 0-d index and src) of scatter, scatter_add,
# scatter_reduce and index_add as one element along dim 0; the kernels and backwards run on
# 1-element views of the 0-d arrays, so the node is the op's own (ScatterBackward0 ...).
def _k_scatter_any(out, src, index, axis, mode="assign", include_self=True):
    if out.ndim == 0:
        _k_scatter_any(out.reshape(1), src if np.ndim(src) == 0 and not isinstance(
            src, np.ndarray) else np.reshape(src, 1), index.reshape(1), 0, mode, include_self)
        return out
    key = _full_index(index, axis)
    part = _src_part(src, index, out.dtype)
    if mode == "assign":
        out[key] = part
    elif mode == "mean":
        touched = _xp.array_module(out).zeros(out.shape, np.bool_)
        touched[key] = True
        total = out.astype(np.float64 if out.dtype.kind != "f" else out.dtype)
        cnt = _xp.array_module(out).ones(out.shape, np.int64) if include_self else _xp.array_module(out).zeros(out.shape, np.int64)
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
    if index.ndim == 0:         # Note [0-d self in scatter ops]: src is the one element
        return g
    gs = R.FUNCTIONS["take_along_axis"](g[tuple(slice(0, n) if d != axis else slice(None)
                                                for d, n in enumerate(index.shape))],
                                        Tensor._wrap(index), axis=axis)
    shape = c.input_meta[1][0]
    if tuple(gs.shape) != tuple(shape):
        z = R.FUNCTIONS["zeros"](list(shape), dtype=gs.dtype, device=gs.place)
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
def _b_scatter_no_derivative(c, g):
    """PyTorch: scatter_(..., reduce=) has no derivative and raises when the backward
    reaches it (not at the forward): the same error, never a silently wrong gradient."""
    _, mode, include_self = c.attrs
    raise RuntimeError(f"derivative for scatter_ with reduce='{mode}' (include_self="
                       f"{include_self}) is not implemented. Fix: use scatter_add_ / "
                       "scatter_reduce_ / assignment, or detach the operands.")


# Note [scatter_reduce backward]
# PyTorch's scatter_reduce_backward (FunctionsManual.cpp), term by term, on the old self s,
# the result r, the used block of src and the gradient g (gather = values at the index):
#   sum:  g; gather(g)
#   mean: N = (1 if include_self else 0) + the count of src at each position (0 -> 1);
#         g / N; gather(g / N)
#   prod: the product without each factor, computed without dividing by a zero: s's zeros
#         are read as 1 for the self gradient, and a src zero that is its position's only
#         zero gets the product of the others (r with it replaced by 1)
#   amax/amin: the gradient is shared evenly among the elements equal to the result (self
#         counted even when include_self=False: PyTorch's formula, kept)
# and with include_self=False the self gradient is 0 at the indexed positions.
def _b_scatter_reduce(c, g):
    if grad_mode.is_grad_enabled():
        raise NotImplementedError("create_graph=True through scatter_reduce is not supported "
                                  "yet")
    axis, mode, include_self = c.attrs
    index = c.input(2)
    sv = c.input(0)._data
    src = c.input(1)
    sa = src._data if isinstance(src, Tensor) else _xp.asarray(src, sv.dtype)
    ga = g._data
    r = c.out._data if mode in ("prod", "amax", "amin") else None
    if index.ndim == 0:         # Note [0-d self in scatter ops]
        index, sv, sa, ga = index.reshape(1), sv.reshape(1), sa.reshape(1), ga.reshape(1)
        r = None if r is None else r.reshape(1)
        axis = 0
    key = _full_index(index, axis)
    sp = np.broadcast_to(_src_part(sa, index, sv.dtype), index.shape)
    dt = ga.dtype

    def reduce_into(base, part):
        return _k_scatter_any(_xp.array(base, copy=True), part, index, axis, mode, include_self)

    def count_into(base, part):
        out = _xp.array(base, dt, copy=True)
        np.add.at(out, key, part)
        return out

    if mode == "sum":
        gself, gsrc = ga, ga[key]
    elif mode == "mean":
        xp = _xp.array_module(ga)
        n = count_into(xp.full(sv.shape, 1 if include_self else 0, dt), xp.ones(index.shape, dt))
        n[n == 0] = 1
        gself = ga / n
        gsrc = ga[key] / n[key]
    elif mode == "prod":
        masked_self = np.where(sv == 0, 1, sv).astype(dt)
        gself = ga * reduce_into(masked_self, sp) / masked_self
        zero = sp == 0
        nz = count_into(_xp.array_module(sv).zeros(sv.shape, dt), zero.astype(dt))[key]
        single = zero & (nz == 1)
        masked_r = reduce_into(sv, np.where(single, 1, sp).astype(dt))
        with np.errstate(divide="ignore", invalid="ignore"):
            gsrc = np.where(single, (ga * masked_r)[key],
                            (ga * r)[key] / np.where(zero, 1, sp).astype(dt))
    else:       # amax, amin
        self_is = (sv == r).astype(dt)
        src_is = (sp == r[key]).astype(dt)
        share = ga / count_into(self_is, src_is)
        gself = self_is * share
        gsrc = src_is * share[key]
    gx = None
    if c.needs[0]:
        gself = _xp.array(gself, dt, copy=True)
        if not include_self:
            gself[key] = 0
        gx = Tensor._wrap(gself.reshape(c.input_meta[0][0]))
    gs = None
    if c.needs[1]:
        shape = c.input_meta[1][0]
        full = _xp.array_module(ga).zeros(shape, dt)
        full.reshape(index.shape if not shape else shape)[
            tuple(slice(0, n) for n in index.shape)] = gsrc
        gs = Tensor._wrap(full)
    return gx, gs, None


SCATTER_REDUCE_ = OpDef("scatter_reduce_", _k_scatter_any, _b_scatter_reduce, kind="inplace",
                        inputs=("x", "src", "index"),
                        attrs=(("axis", 0), ("reduce", "sum"), ("include_self", True)),
                        needs={"x": ("x", "src", "index", "out"),
                               "src": ("x", "src", "index", "out")},
                        check=_check_scatter, node_name="ScatterReduceBackward",
                        doc="Reduces src into x at the index along axis (sum, prod, mean, amax, amin).")
# scatter_(dim, index, src, reduce='add' | 'multiply'): the same kernel, no derivative (PyTorch)
SCATTER_REDUCE_NO_GRAD_ = OpDef("scatter_reduce_", _k_scatter_any, _b_scatter_no_derivative,
                                kind="inplace", inputs=("x", "src", "index"),
                                attrs=(("axis", 0), ("reduce", "sum"), ("include_self", True)),
                                check=_check_scatter, node_name="ScatterReduceBackward",
                                doc="Reduces src into x at the index along axis (scatter_'s "
                                    "reduce=, without a derivative).")


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
    if mode == "sum" and include_self and differentiable and op != "scatter_reduce_":
        # (scatter_reduce keeps its own node, ScatterReduceBackward0, as PyTorch)
        return R.dispatch_inplace(SCATTER_ADD_, (x, src, idx), (ax,), op)
    return R.dispatch_inplace(SCATTER_REDUCE_ if differentiable else SCATTER_REDUCE_NO_GRAD_,
                              (x, src, idx), (ax, mode, bool(include_self)), op)


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
        # zero the indexed rows and add the updates out of place, then write x once: one
        # version bump for one in-place call, as Paddle (neither step saves x for backward)
        y = index_add_(index_put(x, (Tensor._wrap(rows),), zero_rows), 0, Tensor._wrap(idx), upd)
        return x.copy_(y)
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
    return put_along(arr, indices, values, axis, reduce, include_self, broadcast)


def put_along(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True,
              last_writer_grad=True):
    """put_along_axis_; last_writer_grad=False keeps the gradient that gathers at every index
    (max unpooling's, in both frameworks) instead of Paddle's put_along_axis's."""
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
    if (last_writer_grad and reduce == "assign" and isinstance(values, Tensor)
            and values.requires_grad):
        values = _last_writers_only(values, idx, ax, arr._data.shape)
    return _scatter_call(arr, ax, idx, values, _PUT_MODES[reduce], include_self, op)


def _last_writers_only(values, idx, ax, shape):
    """Paddle's gradient of put_along_axis(reduce='assign') where indices repeat: only the
    value written last (C order, as the kernel writes) receives one. values * mask writes
    the same result (an overwritten value is overwritten) and gives that gradient."""
    idx = _xp.to_place(idx, CPU)   # the mask is index bookkeeping: worked out on the host
    if (idx.size == 0 or values._data.shape != idx.shape or idx.min() < 0
            or idx.max() >= shape[ax]):
        return values   # (indices out of range: the scatter's own check names them)
    target = list(np.indices(idx.shape, sparse=True))
    target[ax] = idx
    dest = np.ravel_multi_index(tuple(np.broadcast_arrays(*target)), shape).ravel()
    if np.unique(dest).size == dest.size:
        return values
    _, last_rev = np.unique(dest[::-1], return_index=True)
    mask = np.zeros(dest.size, values._data.dtype)
    mask[dest.size - 1 - last_rev] = 1
    mask = _xp.on_place_of(mask.reshape(idx.shape), values._data)
    return values * wrap_as(values._result_class, mask)


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
    if isinstance(v, Tensor) and self._result_class is not Tensor:
        # torch's fill_(Tensor) refuses an expanded destination, fill_(number) does not
        check_writable(self, op_name)
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

# fill_'s value is a number or a one-element tensor: a list, tuple or string is refused with
# TypeError, as Paddle and PyTorch both refuse it (the generic spelling would read [1] as a
# tensor)
_fill_spelling = R.FUNCTIONS["fill_"]


def _fill_(x, value, name=None):
    """Sets every element of x to value. In place; value is a number or a one-element tensor;
    returns x."""
    if isinstance(value, (list, tuple, str, bytes)) or value is None:
        raise ArgTypeError(f"fill_(): The type of 'value' must be int or float (or a "
                           f"one-element tensor), but received {type(value)}. Fix: "
                           "x.fill_(v) with a number; copy_ writes a tensor of values")
    return _fill_spelling(x, value)


R.register_function("fill_", _fill_)


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


# ---------------------------------------------------------------- the PyTorch door's indexing
# Note [Torch indexing]
# The PyTorch door's `x[key]` and `x[key] = value` follow torch 2.13's
# python_variable_indexing.cpp + ATen/TensorIndexing.h step by step (the core's getitem
# above follows NumPy, which the Paddle door keeps); the two differ where users can see it:
# - The key (wrapTuple): a tuple is the list of items; a non-tuple sequence shorter than 32
#   that holds a tensor, a sequence, a slice, None or Ellipsis is one too (with torch's
#   deprecation warning), so `x[[[0, 1], [2, 0]]]` is `x[[0, 1], [2, 0]]`; any other list,
#   range or ndarray is one index tensor made as indexing_tensor_from_data makes it: bool stays
#   a mask, a uint8 ndarray is a byte mask, anything else int64 (floats truncated).
# - The basic items apply left to right at the dim reached so far (applySlicing), on the
#   geometry, exactly as torch: an int selects *now*, so `x[0, :, [0, 1]]` is
#   `x[0][:, [0, 1]]` (shape [4, 2]; NumPy gives [2, 4]); a bool or a 0-d bool/uint8 tensor
#   is an unsqueeze plus an index; each Ellipsis advances by ndim - specified dims; None takes
#   torch's unsqueeze stride; a full slice inside a tuple is skipped; a 0-d integer tensor or
#   ndarray is an int. The view is one node named after the last view op torch applies
#   (SelectBackward0, SliceBackward0, UnsqueezeBackward0; AliasBackward0 when none applies):
#   torch chains one node per op, oar keeps one with the same gradient (Note [View geometry]).
# - Index tensors are recorded at the dim reached (a mask spans its dims) and applied by one
#   INDEX on the view (IndexBackward0), after at::index's checks and with its messages.
# - setitem converts the value first (valueToTensor: a tensor, or a Python number checked
#   with c10's overflow rule; a list or ndarray is a TypeError), then `copy_to` on the basic
#   view (copy_ for the same shape, fill_ for a 0-d value, else leading 1-dims dropped,
#   expand and copy_), or index_put_ on it (value's leading 1-dims dropped). Each is an
#   ordinary in-place op on a view of x, so x's history becomes CopySlices and its version
#   bumps once, as in torch; `x[False] = v` writes nothing and bumps nothing.
# - Writes torch allows into an expanded tensor (select a row of it, index_put_, masked_fill_
#   with torch's deprecation warning): Note [Writes into expanded tensors].

import operator as _operator
import warnings as _warnings

_SEQ_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and "
                "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                "which will result either in an error or a different result")
_UINT8_WARNING = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                  "torch.bool instead.")
_INDEX_DTYPES = frozenset(np.dtype(d) for d in (np.int64, np.int32, np.uint8, np.bool_))


def _tp_name(o):
    """Python's tp_name of o's type, as torch's messages print it ('float', 'numpy.bool')."""
    t = type(o)
    if t.__module__ == "builtins" or t.__flags__ & (1 << 9):    # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _is_long(o):
    """THPUtils_checkLong: a Python int (not a bool) or a NumPy integer scalar."""
    c = o.__class__
    return c is int or (isinstance(o, (int, np.integer)) and c is not bool)


def _is_sequence(o):
    """PySequence_Check, for what can reach an index."""
    return isinstance(o, (list, tuple, range, str, bytes, np.ndarray, Tensor)) or (
        not isinstance(o, dict) and hasattr(type(o), "__getitem__")
        and hasattr(type(o), "__len__"))


def _torch_items(idx):
    """wrapTuple(index) -> the tuple of items."""
    if isinstance(idx, tuple):      # PyTuple_Check: torch.Size and named tuples too
        return tuple(idx)
    if isinstance(idx, (Tensor, np.ndarray)) or not _is_sequence(idx):
        return (idx,)
    try:
        n = len(idx)
    except TypeError:
        return (idx,)
    if n >= 32:
        return (idx,)
    for i in range(n):
        try:
            o = idx[i]
        except Exception:
            return (idx,)
        if o is None or o is Ellipsis or isinstance(o, slice) or _is_sequence(o):
            _warnings.warn(_SEQ_WARNING, UserWarning, stacklevel=3)
            return tuple(idx)
    return (idx,)


def _sequence_index(o):
    """sequenceToVariable: a list / range / ndarray as an index array (bool or uint8 masks
    stay, the rest becomes int64 as torch's indexing_tensor_from_data makes it)."""
    if isinstance(o, np.ndarray):
        a = o
    else:
        if isinstance(o, (str, bytes)):
            raise ArgTypeError(f"new(): invalid data type '{type(o).__name__}'")
        try:
            a = _xp.asarray([it._data if isinstance(it, Tensor) else it for it in o]
                           if isinstance(o, (list, tuple)) else list(o))
        except ValueError as e:
            raise ArgValueError(f"__getitem__(): could not make an index tensor of "
                                f"{type(o).__name__}: {e}") from None
    k = a.dtype.kind
    if k == "b" or a.dtype == np.uint8:
        return a.copy()
    if k in "iuf":
        return a.astype(np.int64)
    raise ArgTypeError(f"new(): invalid data type '{a.dtype.name if k != 'U' else 'str'}'")


class _Plan:
    """The geometry and steps applySlicing produces (Note [Torch indexing])."""
    __slots__ = ("shape", "strides", "offset", "steps", "last", "adv")

    def __init__(self, a):
        item = a.itemsize
        self.shape = list(a.shape)
        self.strides = [s // item for s in a.strides]
        self.offset = 0
        self.steps = []
        self.last = None
        self.adv = []       # (dim, ndarray) in the order recorded


def _select(p, dim, i, real_dim):
    nd = len(p.shape)
    if nd == 0 and dim == 0 and i == 0:
        raise A.IndexRangeError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    n = p.shape[dim] if dim < nd else 0
    if not (n >= -i and n > i):
        raise A.IndexRangeError(f"index {i} is out of bounds for dimension {real_dim} with size {n}")
    i %= n
    p.offset += i * p.strides[dim]
    del p.shape[dim], p.strides[dim]
    p.steps.append(("select", dim, i))
    p.last = "select"


def _dim_range_error(dim, nd):
    lo, hi = (-nd, nd - 1) if nd else (-1, 0)
    return A.IndexRangeError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                             f"but got {dim})")


def _slice(p, dim, s, optimize):
    step = 1 if s.step is None else _operator.index(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    start = None if s.start is None else _operator.index(s.start)
    stop = None if s.stop is None else _operator.index(s.stop)
    if step < 0:
        raise ValueError("step must be greater than zero")
    nd = len(p.shape)
    if dim >= nd:
        raise _dim_range_error(dim, nd)
    n = p.shape[dim]
    # applySlice skips a slice that keeps everything, judged on the raw bounds (start 0, stop
    # >= size): x[-3:] of a size-3 dim is still a SliceBackward0
    if optimize and step == 1 and not start and (stop is None or stop >= n):
        return
    b, e, _ = slice(start, stop, step).indices(n)
    size = max(0, (e - b + step - 1) // step)
    p.offset += b * p.strides[dim]
    p.shape[dim] = size
    p.strides[dim] *= step
    p.steps.append(("slice", dim, b, size, step))
    p.last = "slice"


def _unsqueeze(p, dim):
    nd = len(p.shape)
    if dim > nd:
        raise _dim_range_error(dim, nd + 1)
    st = 1 if dim >= nd else p.shape[dim] * p.strides[dim]
    p.shape.insert(dim, 1)
    p.strides.insert(dim, st)
    p.steps.append(("unsqueeze", dim, st))
    p.last = "unsqueeze"


def _specified_dims(items):
    """count_specified_dimensions: a mask tensor counts its dims, None / Ellipsis / bools 0."""
    n = 0
    for o in items:
        if isinstance(o, Tensor):
            n += o._data.ndim if o._data.dtype.kind == "b" or o._data.dtype == np.uint8 else 1
        elif not (o is None or o is Ellipsis or o is True or o is False):
            n += 1
    return n


def _torch_plan(x, items, optimize, check_count=True):
    """applySlicing over `items`: the geometry of the basic view and the recorded indices."""
    p = _Plan(x._data)
    ndim = x._data.ndim
    specified = _specified_dims(items)
    if check_count and specified > ndim:
        raise A.IndexRangeError(f"too many indices for tensor of dimension {ndim}")
    dim = 0
    for real_dim, o in enumerate(items):
        if _is_long(o):
            _select(p, dim, int(o), real_dim)
            continue
        if o.__class__ is slice:
            _slice(p, dim, o, optimize)
            dim += 1
            continue
        if o is Ellipsis:
            dim += ndim - specified
            continue
        if o is None:
            _unsqueeze(p, dim)
            dim += 1
            continue
        if o is True or o is False:
            _unsqueeze(p, dim)
            p.adv.append((dim, np.zeros(1 if o else 0, np.int64)))
            dim += 1
            continue
        if isinstance(o, Tensor):
            a = o._data
        elif _is_sequence(o):
            a = _sequence_index(o)
        else:
            try:
                i = _operator.index(o)
            except TypeError:
                raise A.IndexDtypeError(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                    f"Variables are valid indices (got {_tp_name(o)})") from None
            _select(p, dim, int(i), real_dim)
            continue
        k = a.dtype.kind
        if a.ndim == 0 and k in "iub":
            if k == "b" or a.dtype == np.uint8:
                _unsqueeze(p, dim)
                p.adv.append((dim, np.zeros(1 if a else 0, np.int64)))
                dim += 1
            else:
                _select(p, dim, int(a), real_dim)
            continue
        p.adv.append((dim, a))
        dim += a.ndim if (k == "b" or a.dtype == np.uint8) else 1
    return p


def _strided_at(src, shape, strides, offset):
    """An ndarray over src's memory with element strides and offset relative to src's first
    element (the geometry torch computes from src's: inside src by construction, and checked,
    Note [View extent])."""
    item = src.itemsize
    shape = tuple(shape)
    bstrides = tuple(s * item for s in strides)
    device = src.__class__ is not np.ndarray and src.__class__ in _xp._PLACES
    if not device and src.flags.c_contiguous and src.size:
        try:    # the cheap constructor (a buffer view of src); it checks the extent in C
            return np.ndarray(shape, src.dtype, src, offset * item, bstrides)
        except (TypeError, ValueError):
            pass
    from .views import _At, extent
    if 0 not in shape:
        lo = hi = offset * item
        for n, st in zip(shape, bstrides):
            if st >= 0:
                hi += st * (n - 1)
            else:
                lo += st * (n - 1)
        e = extent(src)
        p0 = _xp.data_ptr(src)
        if e is None or p0 + lo < e[0] or p0 + hi + item > e[1]:
            raise RuntimeError(f"internal error: an indexing view of size {list(shape)} would "
                               "leave its source's memory (Note [View extent])")
    if device:
        return _xp.strided_view(src, shape, bstrides, offset * item)
    it = dict(src.__array_interface__)
    it["data"] = (it["data"][0] + offset * item, it["data"][1])
    it["shape"], it["strides"] = shape, bstrides
    it.pop("descr", None)
    o = _At()
    o.__array_interface__, o.base = it, src
    return _xp.asarray(o)


def _replay(a, steps):
    """The basic view of `steps` applied to the array a (a dense stand-in: Note [View geometry])."""
    p = _Plan(a)
    for st in steps:
        if st[0] == "select":
            _, d, i = st
            p.offset += i * p.strides[d]
            del p.shape[d], p.strides[d]
        elif st[0] == "slice":
            _, d, b, size, step = st
            p.offset += b * p.strides[d]
            p.shape[d] = size
            p.strides[d] *= step
        else:
            _, d, s = st
            p.shape.insert(d, 1)
            p.strides.insert(d, s)
    return _strided_at(a, p.shape, p.strides, p.offset)


def _basic_view(x, p, alias):
    """The view of plan p over x (x itself when no step applies, unless `alias`)."""
    if not p.steps:
        if not alias:
            return x
        return _generic_view(x, "alias", lambda a: a[...], arrays=x._data[...])
    steps = p.steps
    arr = _strided_at(x._data, p.shape, p.strides, p.offset)
    return _generic_view(x, p.last, lambda a: _replay(a, steps), arrays=arr)


def _index_key(base, adv, op):
    """at::index's checks on the recorded indices -> a NumPy key of int arrays and slices."""
    out = []     # (dim, int64 array) after masks are expanded
    for dim, a in adv:
        if a.dtype not in _INDEX_DTYPES:
            raise A.IndexDtypeError("tensors used as indices must be long, int, byte or bool "
                                    "tensors")
        if a.dtype == np.uint8:
            _warnings.warn(_UINT8_WARNING, UserWarning, stacklevel=4)
            a = a.astype(np.bool_)
        if a.dtype == np.bool_:
            sh = base._data.shape
            for j in range(a.ndim):
                if dim + j >= len(sh) or a.shape[j] != sh[dim + j]:
                    raise A.IndexRangeError(
                        f"The shape of the mask {list(a.shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {list(sh)} at index {dim + j}")
            out.extend((dim + j, nz) for j, nz in enumerate(np.nonzero(a)))
        else:
            out.append((dim, a.astype(np.int64, copy=False)))
    nd = base._data.ndim
    n = out[-1][0] + 1
    if n > nd:
        raise A.IndexRangeError(f"too many indices for tensor of dimension {nd} (got {n})")
    try:
        bshape = np.broadcast_shapes(*(a.shape for _, a in out))
    except ValueError:
        raise A.IndexRangeError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(str(list(a.shape)) for _, a in out)) from None
    key = [slice(None)] * n
    empty = 0 in bshape     # torch checks the indices it visits: none when the result is empty
    for dim, a in out:
        size = base._data.shape[dim]
        if empty:
            a = _xp.array_module(a).zeros(a.shape, np.int64) if size else a
        elif a.size:
            bad = (a < -size) | (a >= size)
            if bad.any():
                raise A.IndexRangeError(f"index {int(a[bad].flat[0])} is out of bounds for "
                                        f"dimension {dim} with size {size}")
        key[dim] = a
    return tuple(key)


def torch_getitem(x, idx):
    """x[idx] as torch 2.13 (Note [Torch indexing])."""
    c = idx.__class__
    if c is int or c is slice:      # the common cases: select / slice, straight to NumPy
        if c is slice and x._data.ndim and (idx.step is None or idx.step.__class__ is int
                                            and idx.step > 0):
            # NumPy's slice is torch's for a positive step, except where an empty one starts
            arr = x._data[idx]
            if arr.size == 0:
                arr = _empty_at_torch_offset(x._data, (idx,), arr)
            if x._view is None and x._grad_fn is None and not x._requires_grad:
                return R.view_of(_SLICE, x, arr)    # Note [Fast basic index]
            return _generic_view(x, "slice", lambda a: a[idx], arrays=arr)
        if c is slice or x._data.ndim == 0:
            p = _Plan(x._data)
            if c is slice:
                _slice(p, 0, idx, False)     # get_item: a single slice is never skipped
            else:
                _select(p, 0, idx, 0)
            return _basic_view(x, p, True)
        n = x._data.shape[0]
        if not (n >= -idx and n > idx):
            raise A.IndexRangeError(f"index {idx} is out of bounds for dimension 0 with size {n}")
        arr = x._data[idx, ...]
        if x._view is None and x._grad_fn is None and not x._requires_grad:
            return R.view_of(_SELECT, x, arr)    # Note [Fast basic index]
        return _generic_view(x, "select", lambda a: a[idx, ...], arrays=arr)
    simple = (idx is None or idx is Ellipsis or c is bool or _is_long(idx))
    items = (idx,) if simple else _torch_items(idx)
    p = _torch_plan(x, items, optimize=False if c is slice else True, check_count=not simple)
    if not p.adv:
        return _basic_view(x, p, True)
    base = _basic_view(x, p, False)
    key = _index_key(base, p.adv, "__getitem__")
    return R.dispatch(INDEX, (base, key), ())


_SELECT = generic_view_op("select")

# c10's names of the C types in "value cannot be converted to type ... without overflow"
_C_NAMES = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
            "uint8": "uint8_t", "float16": "double", "float32": "float", "float64": "double",
            "bool": "bool"}


def _overflow(x):
    return ArgValueError(f"value cannot be converted to type {_C_NAMES.get(x._data.dtype.name, x._data.dtype.name)} "
                         "without overflow")


def _torch_scalar(x, v):
    """valueToTensor for a Python number: a 0-d tensor of x's dtype, with c10's overflow
    rule (an int wraps into an unsigned type down to -max; a float must lie in range)."""
    dt = x._data.dtype
    k = dt.kind
    if isinstance(v, complex):
        if v.imag != 0 and k != "b":
            raise _overflow(x)
        v = v.real
    if isinstance(v, (int, np.integer)) and not isinstance(v, float):
        v = int(v)
        if not -2 ** 63 <= v < 2 ** 63:
            raise ArgValueError("Overflow when unpacking long long")
        if k in "iu":
            info = np.iinfo(dt)
            if k == "u" and v < 0:
                if -v > info.max:
                    raise _overflow(x)
                v %= info.max + 1
            elif not info.min <= v <= info.max:
                raise _overflow(x)
    elif k in "iu":
        info = np.iinfo(dt)
        if not (math.isfinite(v) and info.min <= v <= info.max):
            raise _overflow(x)
        v = int(v)
    elif dt == np.float32 and math.isfinite(v) and abs(v) > np.finfo(np.float32).max:
        raise _overflow(x)
    with np.errstate(over="ignore"):
        return wrap_as(x._result_class, _xp.asarray(v).astype(dt))


def _torch_value(x, value):
    """valueToTensor: a tensor as is, a Python (or NumPy integer) number as a 0-d tensor of
    x's dtype; anything else is torch's TypeError."""
    if isinstance(value, Tensor):
        return value
    c = value.__class__
    if _is_long(value) or c is bool or isinstance(value, (float, complex)):
        return _torch_scalar(x, value)
    raise ArgTypeError(f"can't assign a {_tp_name(value)} to a {x.type()}")


def _strip_ones(shape):
    """slicePrefix1sSize: shape without its leading 1-dims."""
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


def _copy_to(dst, src):
    """at::indexing::copy_to."""
    ds, ss = dst._data.shape, src._data.shape
    if ds == ss:
        return copy_(dst, src)
    if src._data.ndim == 0:
        return R.dispatch_inplace(FILL_, (dst, src), (), "fill_")
    st = _strip_ones(ss)
    if st != ss:
        src = R.FUNCTIONS["view"](src, list(st))
    if st != ds:
        if len(st) > len(ds):
            raise ArgValueError(
                f"expand({src.type()}{{{list(st)}}}, size={list(ds)}): the number of sizes "
                f"provided ({len(ds)}) must be greater or equal to the number of dimensions in "
                f"the tensor ({len(st)})")
        for j in range(1, len(st) + 1):
            if st[-j] != 1 and st[-j] != ds[-j]:
                raise ArgValueError(
                    f"The expanded size of the tensor ({ds[-j]}) must match the existing size "
                    f"({st[-j]}) at non-singleton dimension {len(ds) - j}.  Target sizes: "
                    f"{list(ds)}.  Tensor sizes: {list(st)}")
        src = R.FUNCTIONS["expand"](src, list(ds))
    return copy_(dst, src)


def _torch_index_put(dst, adv, value):
    """dispatch_index_put_ of THPVariable_setitem: value's leading 1-dims dropped, then
    index_put_ with at::index's checks."""
    _autograd_first(dst, "index_put_")
    key = _index_key(dst, adv, "index_put_")
    vs = value._data.shape
    st = _strip_ones(vs)
    if st != vs:
        value = R.FUNCTIONS["view"](value, list(st))
    region = _region_shape(dst, key)
    try:
        ok = np.broadcast_shapes(region, st) == region
    except ValueError:
        ok = False
    if not ok:
        raise ArgValueError(f"shape mismatch: value tensor of shape {list(st)} cannot be "
                            f"broadcast to indexing result of shape {list(region)}")
    # canDispatchToMaskedFill: one mask and a one-element value: masked_fill_ with the
    # value's number, so any dtype (cast) and any memory (read before the write)
    masked = (len(adv) == 1 and adv[0][1].dtype in (np.bool_, np.uint8)
              and value._data.size == 1)
    if value._data.dtype != dst._data.dtype and not masked:
        raise ArgValueError(
            f"Index put requires the source and destination dtypes match, got "
            f"{_TORCH_NAMES.get(dst._data.dtype.name)} for the destination and "
            f"{_TORCH_NAMES.get(value._data.dtype.name)} for the source.")
    if value._storage is dst._storage and masked:
        value = value.clone()
    elif value._storage is dst._storage and value._data.size and dst._data.size and \
            _ranges_meet(dst._data, value._data):
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.")
    R.dispatch_inplace(INDEX_PUT_, (dst, value, key), (False,), "index_put_")


_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}


def _ranges_meet(a, b):
    """at::get_overlap_status's test: the memory ranges of a and b intersect."""
    from .views import extent
    ea, eb = extent(a), extent(b)
    return ea is not None and eb is not None and ea[0] < eb[1] and eb[0] < ea[1]


# Note [Setitem fast path]
# `x[i] = v`, `x[:, j] = v`, `x[a:b] = 2.0` on a plain root tensor is one NumPy assignment
# and one version bump. It is taken only where the general path (plan, basic view, copy_ or
# fill_ through dispatch_inplace) could neither raise nor record anything:
#   - x's class is in FAST_CLASSES (emptied under capture and allow_mutation_on_saved_tensors,
#     which must see every write), no memory timeline is recording;
#   - x is a root whose data is its storage's buffer (no view, no internal overlap), not an
#     inference tensor (today an inference tensor's or a view's data is never the buffer
#     itself, so the buffer test alone excludes both; the two explicit tests keep that
#     from being an unstated invariant); floating (scope: the dtypes measured);
#   - autograd has nothing to record: grad mode is off, or neither x nor a tensor v needs a
#     gradient;
#   - the key is an int (not a bool), a slice of ints or None with a positive step, or a tuple
#     of those no longer than x.ndim (NumPy and torch agree on every such key);
#   - v is a Python int/float, or a tensor on another storage (no overlap to resolve) of
#     x's dtype (scope: no cast, so no complex-to-real warning to reproduce).
# NumPy validates the key and v's broadcast before it writes, so an IndexError/ValueError
# leaves x untouched and the general path runs again to raise torch's error. Leading 1-dims of
# v are accepted by both (copy_to's slicePrefix1sSize). The bump names fill_ for a number or a
# 0-d v and copy_ otherwise, as the general path does.
_I64 = 2 ** 63
_FMAX = {np.dtype(t): float(np.finfo(t).max) for t in (np.float16, np.float32, np.float64)}


def _fast_setitem_key(idx, ndim):
    c = idx.__class__
    if c is int:
        return ndim > 0
    if c is slice:
        return _fast_slice(idx) and ndim > 0
    if c is tuple and len(idx) <= ndim:
        for k in idx:
            kc = k.__class__
            if not (kc is int or (kc is slice and _fast_slice(k))):
                return False
        return True
    return False


def _fast_slice(s):
    st = s.step
    return ((st is None or (st.__class__ is int and st > 0))
            and (s.start is None or s.start.__class__ is int)
            and (s.stop is None or s.stop.__class__ is int))


def _try_fast_setitem(x, idx, value):
    """Note [Setitem fast path]: True when it wrote."""
    if x.__class__ not in FAST_CLASSES or R._TIMELINE is not None or x._view is not None:
        return False
    xd = x._data
    st = x._storage
    if xd is not st.buffer or st.inference or xd.dtype not in R._FLOATS:
        return False
    grad = grad_mode.STATE.enabled
    if grad and (x._requires_grad or x._grad_fn is not None):
        return False
    vc = value.__class__
    if vc is float or vc is int:
        # torch unpacks an int as int64 and refuses a finite number beyond x's dtype's range
        # (overflow errors, raised by the general path); inf and nan are written as they are
        if vc is int and not -_I64 <= value < _I64 or (
                abs(value) > _FMAX[xd.dtype] and value - value == 0):
            return False
        v, name = value, "fill_"
    elif vc in FAST_CLASSES:
        v = value._data
        # a view shares its base's storage, so one identity test covers overlap with x
        if v.dtype is not xd.dtype or value._storage is st or grad and not R._plain(value):
            return False
        name = "fill_" if v.ndim == 0 else "copy_"
    else:
        return False
    if not _fast_setitem_key(idx, xd.ndim):
        return False
    try:
        xd[idx] = v
    except (IndexError, ValueError, OverflowError):   # nothing written: the general path
        return False                                     # raises torch's error
    bump(x, name)
    return True


def torch_setitem(x, idx, value):
    """x[idx] = value as torch 2.13 (Note [Torch indexing])."""
    if _try_fast_setitem(x, idx, value):   # Note [Setitem fast path]
        return
    v = _torch_value(x, value)
    if idx is False:
        return
    c = idx.__class__
    simple = idx is None or idx is Ellipsis or c is bool or c is slice or _is_long(idx)
    if idx is True:
        items = (None,)     # set_item: copy_to(self.unsqueeze(0), value)
    else:
        items = (idx,) if simple else _torch_items(idx)
    p = _torch_plan(x, items, optimize=True, check_count=not simple)
    dst = _basic_view(x, p, False)
    if not p.adv:
        _copy_to(dst, v)
    else:
        _torch_index_put(dst, p.adv, v)


def torch_delitem(x, idx):
    """del x[idx]: torch's TypeError."""
    raise ArgTypeError("Tensor does not support deleting items")
