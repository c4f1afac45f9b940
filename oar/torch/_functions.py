"""The PyTorch door's functions (and methods) where PyTorch 2.13 and Paddle 3.3.1 disagree.

`oar.torch` star-imports this module over the shared core spellings; the same functions are
installed as methods of `oar.torch.Tensor` (the `_METHODS` table at the end).

The meanings, the result class and the mixed case: Note [Door conflicts]; memory shared
with NumPy: Note [Shared memory with NumPy].
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.errors import ArgTypeError, ArgValueError, DtypeNotImplementedError
from ..ops import args as A
from ..ops.reduce import (cumulative_indices, dispatch_multi, index_tensor as _index,
                          median_indices, mode_indices, pick as _pick, selected,
                          sorted_indices as _sorted_indices)
from ..ops import registry as _R
from ..ops.registry import FUNCTIONS as _CORE
from ..ops.registry import OPS as _OPS
from ..ops.norms import _float_input, _vector_norm, nuclear_norm as _nuclear_norm
from ..ops.views import _pieces, chunk_sizes as _chunk_sizes, swap_dims as _swap_dims
from ..tensor import FIELD_CLASSES as _FIELDS, Tensor as _CoreTensor
from ..tensor import wrap_as
from ._tensor import DTYPES, Size, Tensor, dtype, return_types

# Note [Door conflicts]
# Where the two frameworks give one spelling two meanings, the core (`oar`, `oar.Tensor`) has
# Paddle 3.3.1's and this module PyTorch 2.13's; the door table in docs/doors.md is the table, and
# tests/test_doors_conflicts.py checks every row in both doors against both frameworks. Each
# function here takes only PyTorch's argument forms (Paddle 3.3 reads some PyTorch forms too,
# `gather(x, 1, index)`, `transpose(x, 0, 1)`; the core follows it) and is built from core
# ops, so gradients are the core's exact ones; max/min/median/mode/kthvalue with a dim, sort,
# topk and cummax/cummin return PyTorch's named tuples (torch.return_types) built as Note
# [Index-selecting reductions] says.
#
# The function decides the meaning, the first tensor operand the class of the result (Note
# [Result class]): `oar.torch.split(paddle_tensor, 1)` gives PyTorch's pieces of size 1, each a
# core (Paddle-door) tensor whose methods then mean what Paddle means; `oar.split(torch_tensor,
# 2)` gives Paddle's two pieces as `oar.torch.Tensor`s.

# Note [Shared memory with NumPy]
# As in PyTorch, the door's `Tensor.numpy()` returns an ndarray over the tensor's memory and
# `from_numpy(a)` a tensor over `a`'s memory: writes through either side show in the other.
# Such writes do not pass through oar, so they bypass the version counter (Note [Version
# counter]) exactly as they bypass PyTorch's: a tensor saved for backward and then changed
# through NumPy is not detected. The Paddle door copies both ways, as Paddle 3.3.1 does.

_int = builtins.int
_bool = builtins.bool


# --------------------------------------------------------------------------- argument helpers
def _tensor(value, fname, name="input"):
    """A Tensor argument, as PyTorch requires one (no lists)."""
    if isinstance(value, _CoreTensor):
        return value
    raise ArgTypeError(f"{fname}(): argument '{name}' must be Tensor, not "
                       f"{type(value).__name__}")


def _is_int(v):
    return isinstance(v, (_int, np.integer)) and not isinstance(v, (_bool, np.bool_))


def _int_arg(value, fname, name):
    """An int argument, as PyTorch's parser takes it (a list, a tensor or a bool is not one)."""
    if not _is_int(value):
        raise ArgTypeError(f"{fname}(): argument '{name}' must be int, not "
                           f"{type(value).__name__}")
    return _int(value)


def _dim(x, dim, fname, name="dim"):
    """A dim of x, wrapped into [0, ndim) (a 0-d tensor accepts 0 and -1)."""
    return A.axis(_int_arg(dim, fname, name), x._data.ndim, fname, name)


def _reduction_dim(x, dim, fname):
    d = _dim(x, dim, fname)
    if x._data.ndim and x._data.shape[d] == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    return d


def _with_values(rtype, x, idx, d, keepdim, node):
    """rtype((values, indices)); the values' node is PyTorch's `node` (Note [Selected values
    op])."""
    return rtype(selected(x, idx, d, keepdim, node))


def _named(name, fn, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "oar.torch"
    fn.__doc__ = doc
    return fn


# --------------------------------------------------------------------------- split family
# The pieces are views made by one node named as PyTorch names the op's (Note [Node names]):
# split with an int and chunk are SplitBackward0, split with a list and split_with_sizes
# SplitWithSizesBackward0, and the unsafe_ forms UnsafeSplitBackward0 /
# UnsafeSplitWithSizesBackward0 (`prefix` "unsafe_").
def _split_as(tensor, split_size_or_sections, dim, prefix):
    x = _tensor(tensor, "split", "tensor")
    if x._data.ndim == 0:
        raise ArgValueError("split(): split expects at least a 1-dimensional tensor")
    d = _dim(x, dim, "split")
    n = x._data.shape[d]
    s = split_size_or_sections
    if isinstance(s, (list, tuple)):
        return _split_with_sizes_as(x, s, d, prefix)
    k = A.integer(s, "split", "split_size")
    if k < 0:
        raise ArgValueError(f"split(): split expects split_size be non-negative, but got "
                            f"split_size={k}")
    if k == 0 and n:
        raise ArgValueError(f"split(): split_size can only be 0 if dimension size is 0, but "
                            f"got dimension size of {n}")
    sizes = [k] * (n // k) + ([n % k] if n % k else []) if n else [0]
    return tuple(_pieces(x, sizes, d, prefix + "split"))


def _split_with_sizes_as(input, split_sizes, dim, prefix):
    x = _tensor(input, "split_with_sizes")
    if x._data.ndim == 0:
        raise ArgValueError("split_with_sizes(): expects at least a 1-dimensional tensor")
    d = _dim(x, dim, "split_with_sizes")
    n = x._data.shape[d]
    sizes = [A.integer(v, "split_with_sizes", f"split_sizes[{i}]")
             for i, v in enumerate(split_sizes)]
    for i, v in enumerate(sizes):
        if v < 0:
            raise ArgValueError(f"split_with_sizes(): split_with_sizes expects split_sizes "
                                f"have only non-negative entries, but got split_sizes="
                                f"{sizes}")
    if sum(sizes) != n:
        raise ArgValueError(f"split_with_sizes(): split_with_sizes expects split_sizes to sum "
                            f"exactly to {n} (input tensor's size at dimension {d}), but got "
                            f"split_sizes={sizes}")
    return tuple(_pieces(x, sizes, d, prefix + "split_with_sizes"))


def _chunk_as(input, chunks, dim, prefix):
    x = _tensor(input, "chunk")
    if x._data.ndim == 0:
        raise ArgValueError("chunk(): chunk expects at least a 1-dimensional tensor")
    c = _int_arg(chunks, "chunk", "chunks")
    if c <= 0:
        raise ArgValueError(f"chunk(): chunk expects `chunks` to be greater than 0, got: {c}")
    d = _dim(x, dim, "chunk")
    return tuple(_pieces(x, _chunk_sizes(x._data.shape[d], c), d, prefix + "split"))


def _split(tensor, split_size_or_sections, dim=0):
    return _split_as(tensor, split_size_or_sections, dim, "")


def _split_with_sizes(input, split_sizes, dim=0):
    return _split_with_sizes_as(input, split_sizes, dim, "")


def _chunk(input, chunks, dim=0):
    return _chunk_as(input, chunks, dim, "")


def _unbind(input, dim=0):
    x = _tensor(input, "unbind")
    return tuple(_CORE["unbind"](x, _dim(x, dim, "unbind")))


def _tensor_split(input, indices_or_sections, dim=0):
    x = _tensor(input, "tensor_split")
    return tuple(_CORE["tensor_split"](x, indices_or_sections, _dim(x, dim, "tensor_split")))


# --------------------------------------------------------------------------- reductions
def _extreme(fname, argfn, elementwise, rtype):
    def fn(input, dim=None, keepdim=False, *, other=None, out=None):
        x = _tensor(input, fname)
        if isinstance(dim, _CoreTensor) or other is not None:   # max(input, other)
            y = dim if other is None else other
            if keepdim is not False:
                raise ArgTypeError(f"{fname}(): keepdim is not an argument of {fname}(input, "
                                   "other)")
            return _CORE[elementwise](x, y) if out is None else _CORE[elementwise](x, y, out=out)
        if out is not None:
            raise ArgTypeError(f"{fname}(): out= is not supported by oar for this form")
        if dim is None:
            if keepdim is not False:
                raise ArgTypeError(f"{fname}(): keepdim needs a dim (PyTorch: {fname}(input, "
                                   "dim, keepdim=False))")
            if x._data.size == 0:
                raise ArgValueError(f"{fname}(): Expected reduction dim to be specified for "
                                    "input.numel() == 0. Specify the reduction dim with the "
                                    "'dim' argument.")
            # all elements: ties share the gradient (Note [Evenly distributed gradient])
            return _R.dispatch(_OPS[fname + "_all"], (x,), ())
        d = _reduction_dim(x, dim, fname)
        a = x._data
        idx = np.zeros(a.shape, np.int64) if a.ndim == 0 else argfn(a, axis=d, keepdims=True)
        return _with_values(rtype, x, idx, d, keepdim, fname.title() + "Backward0")
    return fn


_max = _extreme("max", np.argmax, "maximum", return_types.max)
_min = _extreme("min", np.argmin, "minimum", return_types.min)


def _lower_median_index(a, d):
    """Index (keepdims) of PyTorch's median along d: the lower middle value in stable order
    (the first NaN when the row holds one)."""
    return median_indices(a, d)[0]


def _no_bool_kernel(x, fname, kernel):
    """PyTorch's NotImplementedError for an op with no bool kernel (Note [Dtype refusals])."""
    if x._data.dtype.kind == "b":
        raise DtypeNotImplementedError(f"{fname}(): \"{kernel}\" not implemented for 'Bool'. "
                                       "Fix: cast first, e.g. x.int().")


def _empty_median(dt):
    """median() of no elements: PyTorch's NaN converted to the dtype, which on x86 is the
    'integer indefinite' value (the minimum) for 32- and 64-bit ints, 0 after narrowing for
    smaller ones."""
    if dt.kind == "f":
        return np.asarray(np.nan, dt)
    return np.asarray(np.iinfo(dt).min if dt.itemsize >= 4 and dt.kind == "i" else 0, dt)


def _median(input, dim=None, keepdim=False):
    x = _tensor(input, "median")
    _no_bool_kernel(x, "median", "median_cpu" if dim is None else "median_out")
    if dim is None:
        if keepdim is not False:
            raise ArgTypeError("median(): keepdim needs a dim")
        a = x._data.reshape(-1)
        if a.size == 0:
            return wrap_as(x._result_class, _empty_median(a.dtype))
        # MedianBackward0 shares the gradient evenly among the elements equal to it
        # (Note [Evenly distributed gradient])
        return _R.dispatch(_OPS["median_all"], (x,), ())
    d = _reduction_dim(x, dim, "median")
    a = x._data
    idx = np.zeros(a.shape, np.int64) if a.ndim == 0 else _lower_median_index(a, d)
    return _with_values(return_types.median, x, idx, d, keepdim, "MedianBackward1")


def _kthvalue(input, k, dim=-1, keepdim=False):
    x = _tensor(input, "kthvalue")
    _no_bool_kernel(x, "kthvalue", "kthvalue_cpu")
    k = _int_arg(k, "kthvalue", "k")
    d = _dim(x, dim, "kthvalue")
    a = x._data
    n = a.shape[d] if a.ndim else 1
    if not 1 <= k <= n:
        raise ArgValueError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim == 0:
        idx = np.zeros((), np.int64)
    else:
        idx = np.take(_sorted_indices(a, d, False), [k - 1], axis=d)
    return _with_values(return_types.kthvalue, x, idx, d, keepdim, "KthvalueBackward0")


def _mode(input, dim=-1, keepdim=False):
    x = _tensor(input, "mode")
    d = _reduction_dim(x, dim, "mode")
    a = x._data
    idx = np.zeros((), np.int64) if a.ndim == 0 else mode_indices(a, d)
    return _with_values(return_types.mode, x, idx, d, keepdim, "ModeBackward0")


class _NotGiven:
    """sort's `stable` default: no caller passes it, so a call that names stable= (torch's
    overload sort.stable, whatever the value) is told from one that does not."""
    __slots__ = ()

    def __repr__(self):
        return "False"

    def __bool__(self):
        return False


_NO_STABLE = _NotGiven()


def _sort(input, dim=-1, descending=False, stable=_NO_STABLE):
    x = _tensor(input, "sort")
    d = _dim(x, dim, "sort")
    a = x._data
    idx = _sorted_indices(a, d, _bool(descending))
    # torch's overload sort.stable (stable= given, any value) is SortBackward1
    node = "SortBackward0" if stable is _NO_STABLE else "SortBackward1"
    return return_types.sort((_pick(x, idx, d, True, node), _index(x, idx)))


def _argsort(input, dim=-1, descending=False, stable=False):
    x = _tensor(input, "argsort")
    d = _dim(x, dim, "argsort")
    a = x._data
    return _index(x, _sorted_indices(a, d, _bool(descending)))


def _unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    # PyTorch's CPU kernel sorts whatever `sorted` says; NaNs stay distinct (NumPy would merge
    # them); like PyTorch's unique it has no gradient. Paddle's unique returns other extras in
    # another order (return_index), hence a door function.
    x = _tensor(input, "unique")
    a = x._data
    if dim is None:
        vals, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True,
                                   equal_nan=False)
        inv = inv.reshape(a.shape)
    else:
        d = _dim(x, dim, "unique")
        moved = np.moveaxis(a, d, 0)
        if moved.shape[0] == 0:
            vals, inv, cnt = moved, np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            u, inv, cnt = np.unique(moved.reshape(moved.shape[0], -1), axis=0,
                                    return_inverse=True, return_counts=True)
            vals = u.reshape((-1,) + moved.shape[1:])
            inv = inv.reshape(-1)
        vals = np.moveaxis(vals, 0, d)
    out = (wrap_as(x._result_class, np.array(vals, a.dtype)),)
    if return_inverse:
        out += (wrap_as(x._result_class, inv.astype(np.int64)),)
    if return_counts:
        out += (wrap_as(x._result_class, cnt.astype(np.int64)),)
    return out if len(out) > 1 else out[0]


def _msort(input):
    return _sort(input, 0).values


def _topk(input, k, dim=-1, largest=True, sorted=True):
    x = _tensor(input, "topk")
    if x._data.dtype.kind == "b":
        raise ArgTypeError("topk(): topk does not support bool dtypes on CPU. Fix: cast "
                           "first, e.g. x.int().")
    k = _int_arg(k, "topk", "k")
    d = _dim(x, dim, "topk")
    a = x._data
    n = a.shape[d] if a.ndim else 1
    if not 0 <= k <= n:
        raise ArgValueError(f"topk(): selected index k out of range (k={k}, dimension {d} has "
                            f"size {n})")
    if a.ndim == 0:
        idx = np.zeros((), np.int64)
    else:
        idx = np.take(_sorted_indices(a, d, _bool(largest)), np.arange(k), axis=d)
    return return_types.topk((_pick(x, idx, d, True, "TopkBackward0"), _index(x, idx)))


def _aminmax(input, *, dim=None, keepdim=False):
    x = _tensor(input, "aminmax")
    if dim is None and x._data.size == 0:
        raise ArgValueError("aminmax(): cannot compute aminmax over an empty dimension as "
                            "the operation has no identity.")
    axes = None
    if dim is not None:
        d = _reduction_dim(x, dim, "aminmax")
        axes = (d,) if x._data.ndim else None
    # one op, one node AminmaxBackward0 (Note [Multi-output ops])
    return return_types.aminmax(dispatch_multi(_OPS["aminmax"], (x,), (axes, _bool(keepdim))))


def _cumulative(fname, better, rtype):
    def fn(input, dim):
        x = _tensor(input, fname)
        d = _dim(x, dim, fname)
        a = x._data
        idx = np.zeros((), np.int64) if a.ndim == 0 else cumulative_indices(a, d, better)
        return rtype((_pick(x, idx, d, True, fname.title() + "Backward0"), _index(x, idx)))
    return fn


_cummax = _cumulative("cummax", np.greater_equal, return_types.cummax)
_cummin = _cumulative("cummin", np.less_equal, return_types.cummin)


def _cumsum(input, dim, *, dtype=None, out=None):
    x = _tensor(input, "cumsum")
    d = _dim(x, dim, "cumsum")
    if out is not None:
        return _CORE["cumsum"](x, d, dtype=dtype, out=out)
    return _CORE["cumsum"](x, d, dtype=dtype)


def _cumsum_(self, dim, *, dtype=None):
    # a method only, as in PyTorch (there is no torch.cumsum_); dim is required, as for cumsum
    x = _tensor(self, "cumsum_", "self")
    return _CORE["cumsum_"](x, _dim(x, dim, "cumsum_"), dtype=dtype)


Tensor.cumsum_ = _named("cumsum_", _cumsum_, "Cumulative sum along dim written into self, in "
                        "place; returns self (PyTorch requires dim; dtype, if given, must be "
                        "self's dtype).")


def _flatten(input, start_dim=0, end_dim=-1):
    # PyTorch returns input itself when there is nothing to merge (start_dim == end_dim, a
    # 1-D tensor included: `x.flatten() is x`); a 0-d tensor becomes 1-D. Paddle makes a new
    # tensor object every time (the core's flatten).
    x = _tensor(input, "flatten")
    if x._data.ndim and _dim(x, start_dim, "flatten", "start_dim") == _dim(
            x, end_dim, "flatten", "end_dim"):
        return x
    return _CORE["flatten"](x, start_dim, end_dim)


def _clamp_spelling(fname, inplace):
    """clamp/clip (and clamp_/clip_): tensor bounds are operands (Note [Clamp with tensor
    bounds]); numbers go to the core's clip, whose bounds are attributes."""
    def fn(input, min=None, max=None, *, out=None):
        x = _tensor(input, fname)
        if isinstance(min, _CoreTensor) or isinstance(max, _CoreTensor):
            if any(v is not None and not isinstance(v, _CoreTensor) for v in (min, max)):
                raise ArgTypeError(
                    f"{fname}() received an invalid combination of arguments: a Tensor and a "
                    f"number for min/max (min={type(min).__name__}, max={type(max).__name__}). "
                    "Fix: pass both bounds as tensors, or both as numbers.")
            op = _OPS["clamp_tensor"]
            if inplace:
                return _R.dispatch_inplace(op, (x, min, max), (), fname)
            if out is not None:
                return _R.dispatch_out(op, (x, min, max), (), out)
            return _R.dispatch(op, (x, min, max), ())
        if inplace:
            return _CORE["clip_"](x, min, max)
        return _CORE["clip"](x, min, max, out=out)
    return fn


_clamp = _clamp_spelling("clamp", False)
_clip = _clamp_spelling("clip", False)
_clamp_ = _clamp_spelling("clamp_", True)
_clip_ = _clamp_spelling("clip_", True)


# --------------------------------------------------------------------------- gathers and scatters
def _gather(input, dim, index, *, sparse_grad=False, out=None):
    x = _tensor(input, "gather")
    _int_arg(dim, "gather", "dim")
    _tensor(index, "gather", "index")
    if out is not None:
        raise ArgTypeError("gather(): out= is not supported by oar")
    return _CORE["gather"](x, dim, index)


def _index_select(input, dim, index, *, out=None):
    x = _tensor(input, "index_select")
    d = _int_arg(dim, "index_select", "dim")
    _tensor(index, "index_select", "index")
    if out is not None:
        return _CORE["index_select"](x, index, axis=d, out=out)
    return _CORE["index_select"](x, index, axis=d)


def _scatter_args(fname, input, dim, index, src, value):
    x = _tensor(input, fname, "self" if fname.endswith("_") else "input")
    _int_arg(dim, fname, "dim")
    _tensor(index, fname, "index")
    if src is None:
        src = value
    if src is None:
        raise ArgTypeError(f"{fname}(): expected a src tensor or a value, got None")
    return x, src


def _scatter(input, dim, index, src=None, value=None, *, reduce=None):
    x, src = _scatter_args("scatter", input, dim, index, src, value)
    return _CORE["scatter"](x, dim, index, src, reduce)


def _scatter_(input, dim, index, src=None, value=None, *, reduce=None):
    x, src = _scatter_args("scatter_", input, dim, index, src, value)
    return _CORE["scatter_"](x, dim, index, src, reduce)


def _scatter_add(input, dim, index, src):
    x, src = _scatter_args("scatter_add", input, dim, index, src, None)
    return _CORE["scatter_add"](x, dim, index, src)


def _scatter_add_(input, dim, index, src):
    x, src = _scatter_args("scatter_add_", input, dim, index, src, None)
    return _CORE["scatter_add_"](x, dim, index, src)


def _index_add(input, dim, index, source, *, alpha=1):
    x = _tensor(input, "index_add")
    _int_arg(dim, "index_add", "dim")
    _tensor(index, "index_add", "index")
    return _CORE["index_add"](x, dim, index, source, alpha)


def _index_add_(input, dim, index, source, *, alpha=1):
    x = _tensor(input, "index_add_", "self")
    _int_arg(dim, "index_add_", "dim")
    _tensor(index, "index_add_", "index")
    return _CORE["index_add_"](x, dim, index, source, alpha)


# --------------------------------------------------------------------------- views
def _transpose(input, dim0, dim1):
    # Note [Fast transpose]
    # A tensor of a field class (Note [Field classes]) and two exact ints in range are
    # what the checks below accept without a word; bools, NumPy ints and out-of-range dims
    # take the general path and its errors
    if input.__class__ in _FIELDS and dim0.__class__ is _int and dim1.__class__ is _int:
        n = input._data.ndim or 1
        if -n <= dim0 < n and -n <= dim1 < n:
            return _swap_dims(input, dim0 % n, dim1 % n)
    x = _tensor(input, "transpose")
    return _CORE["transpose"](x, _int_arg(dim0, "transpose", "dim0"),
                              _int_arg(dim1, "transpose", "dim1"))


def _transpose_(input, dim0, dim1):
    x = _tensor(input, "transpose_", "self")
    return _CORE["transpose_"](x, _int_arg(dim0, "transpose_", "dim0"),
                               _int_arg(dim1, "transpose_", "dim1"))


# --------------------------------------------------------------------------- comparisons
def _equal(input, other):
    x = _tensor(input, "equal")
    y = _tensor(other, "equal", "other")
    a, b = x._data, y._data
    if a.shape != b.shape:
        return False
    return _bool(np.array_equal(a, b))


def _allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    x = _tensor(input, "allclose")
    y = _tensor(other, "allclose", "other")
    if x._data.dtype != y._data.dtype:
        raise ArgTypeError(f"allclose(): Float did not match Double: expected both tensors to "
                           f"have the same dtype, got {DTYPES[x._data.dtype]} and "
                           f"{DTYPES[y._data.dtype]}")
    try:
        return _bool(np.allclose(x._data, y._data, rtol=rtol, atol=atol, equal_nan=equal_nan))
    except ValueError:
        raise ArgValueError(f"allclose(): The size of tensor a ({list(x._data.shape)}) must "
                            f"match the size of tensor b ({list(y._data.shape)})") from None


# --------------------------------------------------------------------------- sizes and NumPy
def _numel(input):
    return _tensor(input, "numel")._data.size


_TORCH_NP_KINDS = set(DTYPES)


def _from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise ArgTypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype not in _TORCH_NP_KINDS:
        raise ArgTypeError(f"can't convert np.ndarray of type {ndarray.dtype.type.__module__}."
                           f"{ndarray.dtype.type.__name__}. The only supported types are: "
                           + ", ".join(d.name for d in _dt.ALL) + ".")
    if any(s < 0 for s in ndarray.strides):
        raise ArgValueError("At least one stride in the given numpy array is negative, and "
                            "tensors with negative strides are not currently supported. (You "
                            "can probably work around this by making a copy of your array  "
                            "with array.copy().) ")
    if any(s % ndarray.itemsize for s in ndarray.strides):
        raise ArgValueError("given numpy array strides not a multiple of the element byte size. "
                            "Copy the numpy array to reallocate the memory.")
    if not ndarray.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support "
                      "non-writable tensors. This means writing to this tensor will result in "
                      "undefined behavior. You may want to copy the array to protect its data "
                      "or make it writable before converting it to a tensor. This type of "
                      "warning will be suppressed for the rest of this program.", UserWarning,
                      stacklevel=2)
    # Note [Shared memory with NumPy]: the storage's buffer is a view of the caller's array
    # (never pooled on free: it does not own its memory)
    return wrap_as(Tensor, ndarray.view())


def _norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    input = _tensor(input, "norm")
    core = _CORE["norm"]
    if p == "nuc":   # torch's node chain: SumBackward1 <- LinalgSvdBackward0 <- permute
        return _nuclear_norm(input, list(dim) if dim is not None else [0, 1], keepdim)
    if isinstance(p, str) and p != "fro":
        return core(input, p=p, axis=list(dim) if dim is not None else [0, 1], keepdim=keepdim)
    p = 2 if p == "fro" else p
    # PyTorch's norm with a number p is a vector norm over every dim given (Paddle's is the
    # matrix norm over two axes): the core's p-norm op over those dims, one node
    # LinalgVectorNormBackward0 as PyTorch's
    if dim is not None and not _is_int(dim):
        dim = [_dim(input, d, "norm") for d in dim]
    return _vector_norm(_float_input(input, "norm"), p, dim, keepdim, "norm")


# --------------------------------------------------------------------------- the table
_DOCS = {
    "split": "PyTorch's split: an int is the size of each piece (the last may be smaller), "
             "a list the sizes; a tuple of views.",
    "split_with_sizes": "The pieces of the given sizes along dim (a tuple of views).",
    "chunk": "PyTorch's chunk: pieces of ceil(size / chunks) along dim (the last may be "
             "smaller, fewer pieces when they run out); a tuple of views.",
    "unbind": "The views at each index along dim, that dim removed (a tuple).",
    "tensor_split": "Pieces by sections or indices along dim, as PyTorch (a tuple of views).",
    "max": "PyTorch's max: of all elements; with a dim the named tuple (values, indices); "
           "with a tensor the elementwise maximum.",
    "min": "PyTorch's min: of all elements; with a dim the named tuple (values, indices); "
           "with a tensor the elementwise minimum.",
    "median": "PyTorch's median: the lower of the two middle values (no averaging); with a "
              "dim the named tuple (values, indices).",
    "kthvalue": "The k-th smallest element along dim: named tuple (values, indices).",
    "mode": "The most frequent value along dim (the smallest among ties) and the index of "
            "its last occurrence: named tuple (values, indices).",
    "sort": "Sorted values and their indices along dim (stable; NaN last, or first when "
            "descending): named tuple (values, indices).",
    "argsort": "The indices that sort input along dim (stable).",
    "msort": "input sorted along dim 0 (the values).",
    "topk": "The k largest (or smallest) elements along dim: named tuple (values, indices).",
    "aminmax": "The minimum and the maximum (over dim when given): named tuple (min, max).",
    "cummax": "Running maximum along dim and the index where it was reached: named tuple "
              "(values, indices).",
    "cummin": "Running minimum along dim and the index where it was reached: named tuple "
              "(values, indices).",
    "cumsum": "Cumulative sum along dim (PyTorch requires dim).",
    "gather": "PyTorch's gather(input, dim, index): input's elements at index along dim "
              "(index has input's number of dims).",
    "index_select": "PyTorch's index_select(input, dim, index): the slices at the 1-D index "
                    "along dim.",
    "scatter": "PyTorch's scatter(input, dim, index, src|value, reduce=None): a copy of input "
               "with src written at index along dim.",
    "scatter_": "PyTorch's scatter_: writes src (or value) into self at index along dim, in "
                "place; returns self.",
    "scatter_add": "A copy of input with src added at index along dim.",
    "scatter_add_": "Adds src into self at index along dim, in place; returns self.",
    "index_add": "PyTorch's index_add(input, dim, index, source, alpha=1): a copy with "
                 "alpha * source added at index along dim.",
    "index_add_": "Adds alpha * source into self at index along dim, in place; returns self.",
    "transpose": "PyTorch's transpose(input, dim0, dim1): a view with the two dims swapped.",
    "transpose_": "Swaps dims dim0 and dim1 of self in place (self becomes that view).",
    "equal": "True when input and other have the same shape and elements (a Python bool).",
    "allclose": "Whether every element of input is close to other's (a Python bool).",
    "numel": "The number of elements of input, a Python int.",
    "norm": "PyTorch's norm: with a number p (or 'fro'), the vector p-norm over every dim "
            "given (all when None); 'nuc' is the nuclear norm of a matrix.",
    "flatten": "input with dims start_dim .. end_dim merged into one (a view when possible); "
               "input itself when there is nothing to merge.",
    "clamp": "input clamped elementwise into [min, max]; tensor bounds broadcast, promote and "
             "get gradients.",
    "clip": "Alias of clamp.",
    "clamp_": "clamp written into self, in place; returns self.",
    "clip_": "Alias of clamp_.",
    "unique": "The distinct elements of input (or slices along dim), sorted; with "
              "return_inverse each element's index into them, with return_counts how often "
              "each occurs.",
    "from_numpy": "A tensor over the ndarray's memory, no copy: writes through either side "
                  "are visible to the other and bypass the version counter, as in PyTorch "
                  "(Note [Shared memory with NumPy]).",
}
_PUBLIC = {
    "split": _split, "split_with_sizes": _split_with_sizes, "chunk": _chunk,
    "unbind": _unbind, "tensor_split": _tensor_split, "max": _max, "min": _min,
    "median": _median, "kthvalue": _kthvalue, "mode": _mode, "sort": _sort,
    "argsort": _argsort, "msort": _msort, "unique": _unique, "topk": _topk, "aminmax": _aminmax,
    "cummax": _cummax, "cummin": _cummin, "cumsum": _cumsum, "gather": _gather,
    "index_select": _index_select, "scatter": _scatter, "scatter_": _scatter_,
    "scatter_add": _scatter_add, "scatter_add_": _scatter_add_, "index_add": _index_add,
    "index_add_": _index_add_, "transpose": _transpose, "transpose_": _transpose_,
    "equal": _equal, "allclose": _allclose, "numel": _numel, "from_numpy": _from_numpy,
    "norm": _norm, "flatten": _flatten, "clamp": _clamp, "clip": _clip, "clamp_": _clamp_,
    "clip_": _clip_,
}
for _n, _f in _PUBLIC.items():
    _named(_n, _f, _DOCS[_n])
globals().update(_PUBLIC)

# dtypes that print as PyTorch's (`torch.float32`) and equal the core's
float16 = half = DTYPES[np.dtype(np.float16)]
float32 = float = DTYPES[np.dtype(np.float32)]  # noqa: A001
float64 = double = DTYPES[np.dtype(np.float64)]
int8, int16, int32, int64, uint8 = (DTYPES[np.dtype(t)] for t in
                                    (np.int8, np.int16, np.int32, np.int64, np.uint8))
short, int, long = int16, int32, int64  # noqa: A001
bool = DTYPES[np.dtype(np.bool_)]  # noqa: A001
complex64 = cfloat = DTYPES[np.dtype(np.complex64)]     # Note [Complex dtypes]
complex128 = cdouble = DTYPES[np.dtype(np.complex128)]
bfloat16 = DTYPES[_dt.BFLOAT16_NP]   # Note [bfloat16]

__all__ = sorted(_PUBLIC) + [
    "Size", "dtype", "return_types", "float16", "half", "float32", "float", "float64",
    "double", "int8", "int16", "int32", "int64", "uint8", "short", "int", "long", "bool",
    "complex64", "cfloat", "complex128", "cdouble", "bfloat16"]

# Methods of oar.torch.Tensor with PyTorch's meaning (self is the first argument); the
# class's own methods (size, numel, numpy, type, backward, repr) are in _tensor.py
_METHODS = ("split", "split_with_sizes", "chunk", "unbind", "tensor_split", "max", "min",
            "median", "kthvalue", "mode", "sort", "argsort", "msort", "unique", "topk",
            "aminmax", "cummax", "cummin", "cumsum", "gather", "index_select", "scatter", "scatter_",
            "scatter_add", "scatter_add_", "index_add", "index_add_", "transpose",
            "transpose_", "equal", "allclose", "norm", "flatten", "clamp", "clip", "clamp_",
            "clip_")
for _n in _METHODS:
    setattr(Tensor, _n, _PUBLIC[_n])
del _n, _f
# torch's Tensor.pow_ takes a tensor exponent too (the core's is Paddle's, numbers only)
from ..ops.pointwise import pow_any_ as _pow_any_  # noqa: E402
Tensor.pow_ = _pow_any_


# --------------------------------------------------------------------------- Tensor operands
# Note [Tensor-only operands]
# torch's parser refuses a Python number for a parameter that every ATen overload types as
# Tensor (`torch.atan2(x, 2.0)`: TypeError), where the core, like NumPy, broadcasts it. Which
# ops those are is data: tools/torch_schemas.py lists every binary op (two operands in every
# overload) whose second operand is always a Tensor ("tensor_binary" in _schemas.json); each
# gets the check here, as a function and/or method as torch has them, over whatever
# implementation the door has for the name (the door's own where the meanings differ, else
# the core's).
def _tensor_other(name, impl, second="other"):
    """PyTorch's `name(input, other)` whose other must be a Tensor."""

    def fn(input, other, *, out=None):
        x = _tensor(input, name, "self" if name.endswith("_") else "input")
        _tensor(other, name, second)
        return impl(x, other) if out is None else impl(x, other, out=out)
    return _named(name, fn, (impl.__doc__ or "").split("\n")[0] + " (other: a Tensor, as "
                  "PyTorch requires; a number is refused with PyTorch's TypeError).")


def _binary_tensor_only():
    """(name, has a torch function, has a torch method, the second operand's name) of each
    Tensor-only binary op."""
    import json
    import pathlib
    data = json.loads((pathlib.Path(__file__).parent / "_schemas.json").read_text())
    for name in data["tensor_binary"]:
        forms = data["ops"].get(name, {})
        fns, methods = forms.get("function", []), forms.get("method", [])
        if fns or methods:
            ov = (methods or fns)[0]["params"]
            yield name, builtins.bool(fns), builtins.bool(methods), ov[-1][0]


for _n, _fn, _meth, _second in _binary_tensor_only():
    _impl = globals().get(_n) or _CORE.get(_n)
    if _impl is None:
        continue                  # not in the door yet
    _wrapped = _tensor_other(_n, _impl, _second)
    if _fn:
        globals()[_n] = _wrapped
        if not _n.endswith("_") and _n not in __all__:
            __all__.append(_n)
    if _meth:
        setattr(Tensor, _n, _wrapped)
del _n, _fn, _meth, _second, _impl, _wrapped


# --------------------------------------------------------------------------- unsafe_split & co
def _unsafe(name, fn, int_only):
    """torch.unsafe_split / unsafe_chunk / unsafe_split_with_sizes: the pieces of the safe
    forms, which PyTorch does not track as views: they share the input's memory but have no
    base and a version counter of their own (a Storage aliasing the input's memory), so
    writing into one in place is allowed and is not seen by the other pieces' or the input's
    saved copies (the split's node still routes their gradients)."""
    from ..storage import alias_storage
    from ..tensor import wrap_as

    def own(p):
        t = wrap_as(p.__class__, p._data, alias_storage(p._storage, p._data))
        t._grad_fn = p._grad_fn
        t._out_nr = p._out_nr
        return t

    def unsafe(input, split_size_or_sections, dim=0):
        if int_only and not _is_int(split_size_or_sections):
            raise ArgTypeError(f"{name}(): argument 'split_size' (position 1) must be int, not "
                               f"{type(split_size_or_sections).__name__}")
        return tuple(own(p) for p in fn(input, split_size_or_sections, dim, "unsafe_"))
    return _named(name, unsafe, f"PyTorch's {name}: the pieces of "
                  f"{name.replace('unsafe_', '')} (a tuple).")


for _n, _f, _i in (("unsafe_split", _split_as, True), ("unsafe_chunk", _chunk_as, True),
                   ("unsafe_split_with_sizes", _split_with_sizes_as, False)):
    globals()[_n] = _unsafe(_n, _f, _i)
    setattr(Tensor, _n, globals()[_n])
    __all__.append(_n)
del _n, _f, _i

# views PyTorch has and the core lacks (conj/real/imag/adjoint of real tensors, ravel,
# atleast_nd, broadcast_tensors/shapes, *_copy): oar/torch/_views.py
from ._views import *  # noqa: F401,F403,E402
from ._views import __all__ as _views_all  # noqa: E402
__all__ += _views_all


# --------------------------------------------------------------------------- set_
def _set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Tensor.set_: self takes source's storage, shape, strides and offset (or, with
    storage_offset/size/stride, that window of source's storage; with no source, an empty
    storage). Both then share memory and one version counter (oar keeps the version per
    storage, so self's version becomes source's, plus the bump). oar has no Storage objects:
    the source is a tensor."""
    from ..autograd import grad_mode
    from ..autograd.errors import InplaceLeafError
    from ..autograd.inplace import bump
    x = _tensor(self, "set_", "self")
    if source is not None and not isinstance(source, _CoreTensor):
        raise ArgTypeError(f"set_(): argument 'source' must be a Tensor (oar has no Storage "
                           f"objects), not {type(source).__name__}")
    if source is not None and source._data.dtype != x._data.dtype:
        raise ArgTypeError(f"set_(): Could not set tensor of type {x.dtype} to a tensor of "
                           f"type {source.dtype}. Fix: source.to(self.dtype) first.")
    if grad_mode.is_grad_enabled() and x.requires_grad:
        raise InplaceLeafError("set_(): a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
    if source is not None and grad_mode.is_grad_enabled() and source.requires_grad:
        raise ArgValueError("set_(): a source that requires grad is not supported by oar (its "
                            "gradient is not defined). Fix: x.set_(source.detach()).")
    if source is None:
        src = Tensor._wrap(np.empty((0,), x._data.dtype))
    elif storage_offset is None and size is None and stride is None:
        src = source
    else:
        if size is None:
            raise ArgTypeError("set_(): size is required with storage_offset and stride")
        src = _CORE["as_strided"](source.detach(), list(size),
                                  list(stride) if stride is not None else None,
                                  _int(storage_offset or 0))
    x._storage = src._storage
    x._data = src._data.view()
    x._view = x._base = None
    bump(x, "set_")
    return x


_named("set_", _set_, _set_.__doc__)
Tensor.set_ = _set_


# --------------------------------------------------------------------------- rsub
def _rsub(input, other, alpha=1):
    """torch.rsub(input, other, alpha=1): other - alpha * input (sub with the operands
    swapped; its refusals are sub's)."""
    x = _tensor(input, "rsub")
    other = _R.operand(other, _OPS["sub"], "other", "rsub")
    if alpha.__class__ is not int and alpha.__class__ is not float:
        alpha = _R.number_attr(alpha, "rsub", "alpha")
    if isinstance(other, _CoreTensor):
        r = _R.dispatch(_OPS["rsub"], (x, other), (alpha,))
    else:   # a number stays a number (weak in promotion; RsubBackward1, Note [Node names])
        r = _R.dispatch(_OPS["sub"], (other, x), (alpha,))
    if r.__class__ is not x._result_class:   # Note [Result class]: input decides, not other
        r.__class__ = x._result_class
    return r


rsub = _named("rsub", _rsub, _rsub.__doc__)
__all__.append("rsub")


# --------------------------------------------------------------------------- round
def _round_spelling(name):
    """PyTorch's round / round_: decimals is keyword-only (Paddle's round takes it by
    position, so the core's spelling does)."""
    core = _CORE[name]

    def fn(input, *, decimals=None, out=None):
        x = _tensor(input, name, "self" if name.endswith("_") else "input")
        if out is not None:
            return core(x, decimals, out=out)
        return core(x) if decimals is None else core(x, decimals)
    return _named(name, fn, (core.__doc__ or "").split("\n")[0] + " decimals is keyword-only, "
                  "as in PyTorch.")


round = _round_spelling("round")  # noqa: A001
round_ = _round_spelling("round_")
Tensor.round, Tensor.round_ = round, round_
__all__ += ["round", "round_"]


# --------------------------------------------------------------------------- scans (ops/scans.py)
def _scan_spelling(name):
    """PyTorch's cumprod / cumprod_ / logcumsumexp: dim is required (Paddle's flattens when
    it is None, so the core's spelling does)."""
    core = _CORE[name]

    def fn(input, dim, *, dtype=None, out=None):
        x = _tensor(input, name, "self" if name.endswith("_") else "input")
        d = _dim(x, dim, name)
        kw = {} if dtype is None else {"dtype": dtype}
        if out is not None:
            kw["out"] = out
        return core(x, d, **kw)
    return _named(name, fn, (core.__doc__ or "").split("\n")[0] + " dim is required, as in "
                  "PyTorch.")


cumprod = _scan_spelling("cumprod")
Tensor.cumprod, Tensor.cumprod_ = cumprod, _scan_spelling("cumprod_")
_NO_DIM = object()


def _prod(input, dim=_NO_DIM, keepdim=False, *, dtype=None, out=None):
    # PyTorch's prod has one int dim or none (no None, no list: Paddle's core takes both)
    x = _tensor(input, "prod")
    kw = {} if dtype is None else {"dtype": dtype}
    if out is not None:
        kw["out"] = out
    if dim is _NO_DIM:
        return _CORE["prod"](x, **kw)
    return _CORE["prod"](x, _dim(x, dim, "prod"), _bool(keepdim), **kw)


prod = _named("prod", _prod, "The product of input's elements, or along one int dim (as "
              "PyTorch: no list of dims).")
Tensor.prod = prod


def _logcumsumexp(input, dim, *, out=None):
    x = _tensor(input, "logcumsumexp")
    d = _dim(x, dim, "logcumsumexp")
    return _CORE["logcumsumexp"](x, d) if out is None else _CORE["logcumsumexp"](x, d, out=out)


logcumsumexp = _named("logcumsumexp", _logcumsumexp, "log(cumsum(exp(input))) along dim, "
                      "computed stably; dim is required, as in PyTorch.")
Tensor.logcumsumexp = logcumsumexp
_MESHGRID_WARNED = [False]


def _meshgrid(*tensors, indexing=None):
    # PyTorch warns once per process (TORCH_WARN_ONCE) when indexing is not given, and then
    # uses 'ij'; Paddle has only 'ij' and never warns.
    if indexing is None:
        if not _MESHGRID_WARNED[0]:
            _MESHGRID_WARNED[0] = True
            warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass "
                          "the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    return tuple(_CORE["meshgrid"](*tensors, indexing=indexing))


meshgrid = _named("meshgrid", _meshgrid, "Coordinate grids from 1-D tensors ('ij' or 'xy' "
                  "indexing); without indexing=, PyTorch's one-time warning and 'ij'.")
__all__ += ["cumprod", "prod", "logcumsumexp", "meshgrid"]
