"""Paddle's own tensor ops that PyTorch spells differently or lacks: gather_nd, scatter_nd,
scatter_nd_add, index_sample, strided_slice, unstack, reverse, multiplex, combinations,
crop, shard_index, logspace.

Each is a composition of core ops whose gradients are exact (indexing, index_put with
accumulate, take_along_axis, flip, stack), so none needs a declaration of its own: the nodes
are the core ops' nodes. Arguments are checked here, before anything is computed, with
Paddle 3.3.1's exception classes (Note [Check, then write])."""
from __future__ import annotations

import itertools

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from ..autograd.errors import ArgTypeError, ArgValueError, AxisError
from ..tensor import Tensor, wrap_as
from . import args as A
from . import registry as R

F = R.FUNCTIONS


def _int_index(index, op, name="index"):
    """An int32/int64 index tensor as an int64 array (Paddle refuses other dtypes with a
    ValueError: "Index holds the wrong type")."""
    if not isinstance(index, Tensor):
        raise ArgTypeError(f"{op}(): argument '{name}' must be a Tensor, got "
                           f"{A._describe(index)}. Fix: pass an int64 tensor.")
    a = index._data
    if a.dtype != np.int64 and a.dtype != np.int32:
        raise ArgValueError(f"{op}(): {name} holds the wrong type, {a.dtype}; expected int32 "
                            "or int64. Fix: cast it with .astype('int64').")
    return a.astype(np.int64, copy=True)


def _nd_key(x, idx, op):
    """The tuple of per-axis index tensors that the last dimension of `idx` names (k <= ndim
    leading axes of x), negative entries counted from the end, out of range refused."""
    if idx.ndim == 0:
        raise ArgValueError(f"{op}(): index must have at least one dimension, got a 0-d tensor")
    k = idx.shape[-1]
    if k > x._data.ndim:
        raise ArgValueError(f"{op}(): the last dimension of index ({k}) must not exceed the "
                            f"number of dimensions of x ({x._data.ndim}); index shape "
                            f"{list(idx.shape)}, x shape {list(x._data.shape)}")
    for j in range(k):
        A.in_range(idx[..., j], x._data.shape[j], op, allow_negative=True, dim=j)
    cls = x._result_class
    return tuple(wrap_as(cls, _xp.ascontiguousarray(idx[..., j])) for j in range(k))


def gather_nd(x, index, name=None):
    """Paddle gather_nd: out[i...] = x[index[i..., 0], ..., index[i..., k-1]] (the slices of x
    at the k-tuples in index's last dimension); shape index.shape[:-1] + x.shape[k:]."""
    op = "gather_nd"
    A.tensor(x, op)
    idx = _int_index(index, op)
    key = _nd_key(x, idx, op)
    if not key:     # k = 0: x itself at each position of index's leading shape
        return x.expand(list(idx.shape[:-1]) + list(x._data.shape)).clone()
    return x[key]


def scatter_nd_add(x, index, updates, name=None):
    """Paddle scatter_nd_add: a copy of x with updates added at the k-tuples of index's last
    dimension (repeated tuples accumulate); updates has shape index.shape[:-1] + x.shape[k:]."""
    op = "scatter_nd_add"
    A.tensor(x, op)
    A.tensor(updates, op, "updates")
    idx = _int_index(index, op)
    if idx.ndim == 0:
        raise ArgValueError(f"{op}(): index must have at least one dimension, got a 0-d tensor")
    k = idx.shape[-1]
    want = tuple(idx.shape[:-1]) + tuple(x._data.shape[k:]) if k <= x._data.ndim else None
    if want is not None and tuple(updates._data.shape) != want:
        raise ArgValueError(f"{op}(): updates has shape {list(updates._data.shape)}, expected "
                            f"{list(want)} (index.shape[:-1] + x.shape[{k}:]); index "
                            f"{list(idx.shape)}, x {list(x._data.shape)}")
    if updates._data.dtype != x._data.dtype:
        raise ArgTypeError(f"{op}(): updates ({updates.dtype.name}) must have the dtype of x "
                           f"({x.dtype.name}). Fix: cast updates with .astype(x.dtype).")
    key = _nd_key(x, idx, op)
    if not key:     # k = 0: every update is added to the whole of x
        lead = tuple(range(idx.ndim - 1))
        return x + (updates.sum(axis=list(lead)) if lead else updates)
    return F["index_put"](x, key, updates, accumulate=True)


def scatter_nd(index, updates, shape, name=None):
    """Paddle scatter_nd: scatter_nd_add into zeros of `shape` (the dtype of updates)."""
    op = "scatter_nd"
    A.tensor(updates, op, "updates")
    shp = A.shape(shape, op)
    if any(s < 0 for s in shp):
        raise ArgValueError(f"{op}(): shape must not have negative sizes, got {list(shp)}")
    _int_index(index, op)
    z = wrap_as(updates._result_class, np.zeros(shp, updates._data.dtype))
    return scatter_nd_add(z, index, updates)


def index_sample(x, index, name=None):
    """Paddle index_sample: for 2-D x [N, D] and index [N, K], out[i, j] = x[i, index[i, j]]."""
    op = "index_sample"
    A.tensor(x, op)
    idx = _int_index(index, op)
    if x._data.ndim != 2 or idx.ndim != 2:
        raise ArgValueError(f"{op}(): x and index must both be 2-D, got x "
                            f"{list(x._data.shape)} and index {list(idx.shape)}")
    if idx.shape[0] != x._data.shape[0]:
        raise ArgValueError(f"{op}(): dimension 0 of x ({x._data.shape[0]}) and of index "
                            f"({idx.shape[0]}) must be equal")
    A.in_range(idx, x._data.shape[1], op, dim=1)    # Paddle refuses negative indices here
    return F["take_along_axis"](x, wrap_as(x._result_class, idx), axis=1)


def _ints(values, op, name):
    """A list of ints from a list/tuple of ints or 0-d/1-element tensors, or a 1-D tensor."""
    if isinstance(values, Tensor):
        values = values._data.reshape(-1).tolist()
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        values = [values]
    if not isinstance(values, (list, tuple)):
        raise ArgTypeError(f"{op}(): argument '{name}' must be a list of ints, got "
                           f"{A._describe(values)}")
    out = []
    for v in values:
        if isinstance(v, Tensor):
            if v._data.size != 1 or v._data.dtype.kind not in "iu":
                raise ArgTypeError(f"{op}(): the tensors in '{name}' must hold one integer")
            v = v._data.reshape(-1)[0]
        out.append(A.integer(v, op, name))
    return out


def _strided_range(start, end, step, n):
    """Paddle's strided_slice bounds for one axis of n elements, as a Python slice: negative
    bounds count from the end, then clamp to [0, n] (step > 0) or [-1, n - 1] (step < 0)."""
    start = start + n if start < 0 else start
    end = end + n if end < 0 else end
    lo, hi = (0, n) if step > 0 else (-1, n - 1)
    r = range(min(max(start, lo), hi), min(max(end, lo), hi), step)
    if len(r) == 0:
        return slice(0, 0, 1)
    stop = r[-1] + (1 if step > 0 else -1)
    return slice(r[0], None if stop < 0 else stop, step)


def strided_slice(x, axes, starts, ends, strides, name=None):
    """Paddle strided_slice: x[start:end:stride] along each of axes (a copy); bounds past the
    ends are clamped, negative bounds count from the end, a negative stride walks backwards."""
    op = "strided_slice"
    A.tensor(x, op)
    axes = _ints(axes, op, "axes")
    starts, ends, strides = (_ints(starts, op, "starts"), _ints(ends, op, "ends"),
                             _ints(strides, op, "strides"))
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise ArgValueError(f"{op}(): axes, starts, ends and strides must have the same length, "
                            f"got {len(axes)}, {len(starts)}, {len(ends)}, {len(strides)}")
    key = [slice(None)] * x._data.ndim
    for a, s, e, st in zip(axes, starts, ends, strides):
        if a < 0:      # Paddle 3.3.1 refuses negative axes here
            raise ArgValueError(f"{op}(): axes must be non-negative, got {a}")
        d = A.axis(a, x._data.ndim, op, "axes")
        if st == 0:
            raise ArgValueError(f"{op}(): stride along axis {a} is 0. Fix: use a nonzero stride.")
        key[d] = _strided_range(s, e, st, x._data.shape[d])
    return x[tuple(key)].clone()


def unstack(x, axis=0, num=None, name=None):
    """Paddle unstack: the slices of x along axis, that axis removed (a list)."""
    op = "unstack"
    A.tensor(x, op)
    if x._data.ndim == 0:
        raise AxisError(f"{op}(): x must have at least one dimension, got a 0-d tensor")
    d = A.axis(axis, x._data.ndim, op)
    if num is not None and A.integer(num, op, "num") != x._data.shape[d]:
        raise ArgValueError(f"{op}(): num ({num}) must equal the size of axis {axis} "
                            f"({x._data.shape[d]})")
    return list(F["unbind"](x, d))


def reverse(x, axis, name=None):
    """Paddle reverse: x with the order of elements reversed along axis (an int or a list)."""
    A.tensor(x, "reverse")
    if axis is None:
        raise ArgTypeError("reverse(): argument 'axis' is required: an int or a list of ints")
    return F["flip"](x, axis)


def multiplex(inputs, index, name=None):
    """Paddle multiplex: row i of the result is row i of inputs[index[i, 0]]."""
    op = "multiplex"
    if not isinstance(inputs, (list, tuple)) or not inputs or not all(
            isinstance(t, Tensor) for t in inputs):
        raise ArgTypeError(f"{op}(): inputs must be a non-empty list of Tensors, got "
                           f"{A._describe(inputs)}")
    shp = inputs[0]._data.shape
    if any(t._data.shape != shp or t._data.dtype != inputs[0]._data.dtype for t in inputs):
        raise ArgValueError(f"{op}(): all inputs must have one shape and dtype, got "
                            f"{[(list(t._data.shape), t.dtype.name) for t in inputs]}")
    if len(shp) < 1:
        raise ArgValueError(f"{op}(): the inputs must have at least one dimension")
    idx = _int_index(index, op)
    if index._data.dtype != np.int32:     # Paddle's kernel reads the index as int32 only
        raise ArgValueError(f"{op}(): index must be int32, got {index._data.dtype}. Fix: "
                            "cast it with .astype('int32').")
    if idx.shape != (shp[0], 1):
        raise ArgValueError(f"{op}(): index must have shape [{shp[0]}, 1] (one candidate per "
                            f"row), got {list(idx.shape)}")
    A.in_range(idx, len(inputs), op)
    rows = wrap_as(inputs[0]._result_class, np.arange(shp[0], dtype=np.int64))
    return F["stack"](list(inputs), 0)[wrap_as(inputs[0]._result_class, idx.reshape(-1)), rows]


def combinations(x, r=2, with_replacement=False, name=None):
    """Paddle combinations: the r-element combinations of a 1-D x as rows of a [C, r] tensor
    (itertools.combinations order; with_replacement: combinations_with_replacement)."""
    op = "combinations"
    A.tensor(x, op)
    if x._data.ndim != 1:
        raise ArgTypeError(f"{op}(): expected a 1-D tensor, got shape {list(x._data.shape)}")
    r = A.integer(r, op, "r")
    if r < 0:
        raise ArgValueError(f"{op}(): r must be non-negative, got {r}")
    if r == 0:
        return x[:0].clone()
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(gen(range(x._data.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    # one gather per column, stacked: torch.combinations' own composition (its node is
    # StackBackward0; the OpInfo test compares node names)
    cols = [x[wrap_as(x._result_class, _xp.ascontiguousarray(idx[:, j]))] for j in range(r)]
    return F["stack"](cols, 1)


def crop(x, shape=None, offsets=None, name=None):
    """Paddle crop: the block of x of `shape` (-1: to the end) starting at `offsets` (zeros
    by default), a copy."""
    op = "crop"
    A.tensor(x, op)
    nd = x._data.ndim
    shp = list(x._data.shape) if shape is None else _ints(shape, op, "shape")
    off = [0] * nd if offsets is None else _ints(offsets, op, "offsets")
    if len(shp) != nd or len(off) != nd:
        raise ArgValueError(f"{op}(): shape ({len(shp)} values) and offsets ({len(off)}) must "
                            f"each have one value per dimension of x ({nd})")
    key = []
    for i, (n, s, o) in enumerate(zip(x._data.shape, shp, off)):
        if o < 0:
            raise ArgValueError(f"{op}(): offsets[{i}] = {o} must be non-negative")
        s = n - o if s == -1 else s
        if s <= 0 or o + s > n:
            raise ArgValueError(f"{op}(): offsets[{i}] ({o}) + shape[{i}] ({s}) must lie within "
                                f"dimension {i} of x ({n}), and shape[{i}] must be positive "
                                "or -1")
        key.append(slice(o, o + s))
    return x[tuple(key)].clone()


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """Paddle shard_index: integer labels in [0, index_num) split into nshards shards of
    ceil(index_num / nshards); a label in shard shard_id becomes its offset in the shard,
    every other label ignore_value."""
    op = "shard_index"
    A.tensor(input, op, "input")
    a = input._data
    if a.dtype != np.int64 and a.dtype != np.int32:
        raise ArgTypeError(f"{op}(): input must be int32 or int64, got {a.dtype}")
    index_num = A.integer(index_num, op, "index_num")
    nshards = A.integer(nshards, op, "nshards")
    shard_id = A.integer(shard_id, op, "shard_id")
    ignore_value = A.integer(ignore_value, op, "ignore_value")
    if nshards <= 0 or index_num <= 0:
        raise ArgValueError(f"{op}(): index_num ({index_num}) and nshards ({nshards}) must be "
                            "positive")
    if not 0 <= shard_id < nshards:
        raise ArgValueError(f"{op}(): shard_id ({shard_id}) must be in [0, {nshards})")
    if a.ndim < 1 or a.shape[-1] != 1:
        raise ArgValueError(f"{op}(): the last dimension of input must be 1, got shape "
                            f"{list(a.shape)}")
    if a.size and (a.min() < 0 or a.max() >= index_num):
        raise ArgValueError(f"{op}(): labels must be in [0, {index_num}), got values in "
                            f"[{a.min()}, {a.max()}]")
    size = (index_num + nshards - 1) // nshards
    out = np.where(a // size == shard_id, a % size, ignore_value).astype(a.dtype)
    return wrap_as(input._result_class, out)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """Paddle logspace: base ** linspace(start, stop, num), in dtype (the default float
    dtype when None)."""
    op = "logspace"
    vals = []
    for v, nm in ((start, "start"), (stop, "stop"), (num, "num"), (base, "base")):
        if isinstance(v, Tensor):
            if v._data.size != 1:
                raise ArgValueError(f"{op}(): {nm} must hold one value, got shape "
                                    f"{list(v._data.shape)}")
            v = v._data.reshape(-1)[0].item()
        vals.append(v)
    start, stop = A.number(vals[0], op, "start"), A.number(vals[1], op, "stop")
    n, base = A.integer(vals[2], op, "num"), A.number(vals[3], op, "base")
    if n <= 0:     # Paddle's kernel refuses an empty logspace
        raise ArgValueError(f"{op}(): num must be positive, got {n}")
    dt = _dt.DEFAULT_FLOAT.np if dtype is None else _dt.as_dtype(dtype).np
    if dt.kind in "iu":
        # Paddle's integer logspace: start, stop and base are cast to the dtype first, the
        # powers computed in floating point and truncated
        start, stop, base = int(start), int(stop), int(base)
    e = np.linspace(float(start), float(stop), n, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.power(float(base), e)
        if dt.kind in "iu":
            v = np.trunc(v)
        v = v.astype(dt)
    return F["to_tensor"](v)


# the method spellings Paddle 3.3.1 has (paddle.Tensor.gather_nd ...); crop and logspace
# are functions only, and so is multiplex (Paddle's Tensor.multiplex would take the tensor
# itself as the list of candidates)
for _f in (gather_nd, scatter_nd, scatter_nd_add, index_sample, strided_slice, unstack, reverse,
           combinations, shard_index):
    R.register_function(_f.__name__, _f)
for _f in (crop, logspace, multiplex):
    R.register_function(_f.__name__, _f, method=False)
del _f

# Paddle 3.3.1 also spells these existing functions as Tensor methods (x.atleast_2d(),
# y.trapezoid(dx=0.5)): the same function objects, installed as methods only
for _n in ("atleast_1d", "atleast_2d", "atleast_3d", "trapezoid", "cumulative_trapezoid"):
    R.register_function(_n, F[_n], function=False)
del _n
