"""The one argument-checking layer every public op goes through.

Errors derive from both the PyTorch and the Paddle exception for the same mistake
(errors.py), so `except RuntimeError` (PyTorch code) and `except ValueError` / `except
TypeError` (Paddle code) both catch them.
"""
# Note [Argument layer]
# Public ops parse their arguments with these helpers before anything is computed or written
# (Note [Check, then write] in autograd/inplace.py): axes are normalised with range checks (never
# `axis % ndim`), shapes must be integers, index tensors must be integer (or bool where a mask
# is meant), numbers must be real numbers (`None` never becomes NaN). A new op that uses them
# gets every check for free, and the bad-input table (tests/test_bad_inputs.py) runs each
# public function through them.

from __future__ import annotations

import numbers
import operator

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError, AxisError
from .. import _xp
from ..place import CPU, Place
from ..tensor import Tensor

_INT_KINDS = "iu"


def _shape_str(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def integer(value, op, name):
    """A Python int from an int, a NumPy integer or a one-element integer tensor.

    bool is refused (True as a size or index is almost always a mistake)."""
    if value.__class__ is int:
        return value
    if isinstance(value, Tensor):
        if value._data.dtype.kind in _INT_KINDS and value._data.size == 1:
            return int(value._data.reshape(()))
    elif not isinstance(value, (bool, np.bool_)):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise ArgTypeError(f"{op}(): argument '{name}' must be an integer, got "
                       f"{_describe(value)}")


def axis(value, ndim, op, name="axis"):
    """Normalise one axis into [0, ndim); a 0-d tensor accepts axis 0 and -1."""
    a = integer(value, op, name)
    n = max(ndim, 1)
    if not -n <= a < n:
        raise AxisError(f"{op}(): Dimension out of range (expected to be in range of "
                        f"[{-n}, {n - 1}], but got {a}) for a tensor with {ndim} "
                        f"dimension{'s' if ndim != 1 else ''} ({name}={a}).")
    return a + n if a < 0 else a


def axes(values, ndim, op, name="axis"):
    """Normalise a list of axes (or one axis); repeated axes are refused."""
    if not isinstance(values, (list, tuple)):
        values = (values,)
    out = tuple(axis(v, ndim, op, name) for v in values)
    if len(set(out)) != len(out):
        raise ArgValueError(f"{op}(): dim {list(values)} appears multiple times in the list "
                            f"of dims (normalised {list(out)}).")
    return out


def shape(value, op, allow_infer=False, name="shape"):
    """A tuple of non-negative ints from an int, a list/tuple of ints or int tensors, or a
    1-D integer tensor. With allow_infer, one -1 (reshape) is allowed."""
    if isinstance(value, Tensor):
        if value._data.dtype.kind not in _INT_KINDS or value._data.ndim > 1:
            raise ArgTypeError(f"{op}(): {name} must be integers, got a {value.dtype.name} "
                               f"tensor of shape {_shape_str(value._data.shape)}")
        dims = tuple(int(s) for s in value._data.reshape(-1))
    elif isinstance(value, (list, tuple)):
        dims = tuple(integer(s, op, f"{name}[{i}]") for i, s in enumerate(value))
    else:
        dims = (integer(value, op, name),)
    for s in dims:
        if s < 0 and not (allow_infer and s == -1):
            raise ArgValueError(f"{op}(): negative dimension {s} in {name} {list(dims)}; "
                                "sizes must be >= 0" + (" (or -1 to infer one)" if allow_infer else ""))
    return dims


def shape_args(args, op, allow_infer=False):
    """Shapes given as varargs (`zeros(2, 3)`) or as one sequence (`zeros([2, 3])`)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple, Tensor)):
        return shape(args[0], op, allow_infer)
    return shape(tuple(args), op, allow_infer)


def number(value, op, name="value", allow_bool=True):
    """A real Python number (int, float or bool); None, strings and tensors with more than
    one element are refused. A one-element tensor gives its value."""
    if value.__class__ in (int, float) or (allow_bool and value.__class__ is bool):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    if isinstance(value, Tensor) and value._data.size == 1:
        return value._data.reshape(()).item()
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    raise ArgTypeError(f"{op}(): argument '{name}' must be a number, got {_describe(value)}")


def index_array(index, op, name="index", allow_bool=False):
    """An index tensor's array; its dtype must be an integer (or bool when allowed)."""
    if not isinstance(index, Tensor):
        from .registry import as_tensor
        try:
            index = as_tensor(index)
        except (TypeError, ValueError) as e:
            raise ArgTypeError(f"{op}(): argument '{name}' must be an integer tensor, got "
                               f"{_describe(index)}") from e
    kind = index._data.dtype.kind
    if kind in _INT_KINDS or (allow_bool and kind == "b"):
        return index._data
    allowed = "int32 or int64" + (" (or bool)" if allow_bool else "")
    raise ArgTypeError(f"{op}(): Expected dtype {allowed} for {name}, got "
                       f"{index.dtype.name}. Fix: cast it with .astype('int64').")


def same_dtype(a, b, op, what="src"):
    """Tensors written into another tensor keep its dtype (PyTorch's rule for scatter,
    index_put, index_add): a float source into an integer tensor is refused."""
    if a._data.dtype != b._data.dtype:
        raise ArgTypeError(f"{op}(): Expected self.dtype to be equal to {what}.dtype "
                           f"(self is {a.dtype.name}, {what} is {b.dtype.name}). Fix: cast "
                           f"{what} with .astype('{a.dtype.name}').")


def one_of(value, choices, op, name):
    if value not in choices:
        raise ArgValueError(f"{op}(): {name} must be one of {list(choices)}, got {value!r}")
    return value


def _describe(value):
    if isinstance(value, Tensor):
        return f"a {value.dtype.name} tensor of shape {_shape_str(value._data.shape)}"
    return f"{type(value).__name__} {value!r}"


# ---------------------------------------------------------------- indices, devices, alpha
# Appended for indexing/general ops (Note [Argument layer]); the classes sit here because
# errors.py belongs to autograd.
class IndexDtypeError(IndexError, TypeError):
    """A tensor index of the wrong dtype, or an object that is no index at all (PyTorch
    IndexError for float tensors, TypeError for other objects; Paddle TypeError)."""


class IndexRangeError(AxisError, RuntimeError):
    """An index value out of range (PyTorch IndexError for getitem/index_put/index_select/take,
    RuntimeError for gather/scatter/index_add; Paddle ValueError/IndexError): one class
    catches as all of them."""


class DeviceUnavailableError(AssertionError, RuntimeError, ValueError):
    """A device that this build cannot reach (PyTorch on a CPU build: AssertionError "Torch
    not compiled with CUDA enabled"; Paddle ValueError)."""


class DevicesDiffer(RuntimeError, ValueError):
    """Tensors on two places in one op (PyTorch: RuntimeError "Expected all tensors to be on
    the same device"; Paddle: ValueError, InvalidArgument). Note [Array module per place]."""


_INDEX_MSG = "tensors used as indices must be long, int, byte or bool tensors"


def tensor_index(t, op, copy=True):
    """The array of a tensor used inside a subscript (getitem, setitem, index_put_).

    Integer tensors give int64 indices (a copy by default, so a later in-place change to the
    index tensor cannot change what the backward scatters into); bool and uint8 tensors are
    masks (uint8 as a mask, as PyTorch does); any other dtype is refused (never truncated)."""
    a = t._data
    k = a.dtype.kind
    if k == "b":
        return a.copy() if copy else a
    if a.dtype == np.uint8:
        return a.astype(np.bool_)
    if k in _INT_KINDS:
        return a.astype(np.int64, copy=copy)
    raise IndexDtypeError(f"{op}(): {_INDEX_MSG}, got a {t.dtype.name} tensor of shape "
                          f"{_shape_str(a.shape)}. Fix: cast it with .astype('int64') (or "
                          "compare to get a bool mask).")


def index_dtype(arr, op, name="index"):
    """An index array given to gather/scatter/index_select/index_add: int32 or int64 only
    (PyTorch); floats, bools, other integer widths and non-arrays are refused. Returns an int64 copy (the backward keeps it; a later in-place change
    to the index tensor cannot alter it)."""
    if isinstance(arr, Tensor):
        arr = arr._data
    if not isinstance(arr, np.ndarray):
        raise ArgTypeError(f"{op}(): argument '{name}' must be an integer Tensor, got "
                           f"{_describe(arr)}. Fix: pass an int64 tensor.")
    if arr.dtype != np.int64 and arr.dtype != np.int32:
        raise ArgTypeError(f"{op}(): Expected dtype int32/int64 for {name}, got "
                           f"{arr.dtype}. Fix: cast it with .astype('int64').")
    return arr.astype(np.int64, copy=True)


def in_range(arr, size, op, name="index", allow_negative=False, dim=None):
    """Check integer indices against a dimension of `size` elements, raising IndexRangeError (an IndexError and a RuntimeError, as
    PyTorch uses either depending on the op), with PyTorch's wording."""
    if arr.size == 0:
        return arr
    lo = -size if allow_negative else 0
    mn, mx = int(arr.min()), int(arr.max())
    if mn < lo or mx >= size:
        bad = mn if mn < lo else mx
        where = f" for dimension {dim}" if dim is not None else ""
        hint = " (negative indices are not accepted here)" if bad < 0 and not allow_negative else ""
        raise IndexRangeError(f"{op}(): {name} {bad} is out of bounds{where} with size {size}"
                              f"{hint}; valid range [{lo}, {size - 1}].")
    return arr


def alpha(value, dtype, op, name="alpha"):
    """A scale factor for an op writing into a tensor of NumPy dtype `dtype`: a number, and
    for integer or bool tensors an integer (PyTorch: "For integral input tensors, argument
    alpha must not be a floating point number"), never silently truncated."""
    v = number(value, op, name)
    if np.dtype(dtype).kind in "biu" and isinstance(v, float):
        raise ArgTypeError(f"{op}(): For integral input tensors, argument {name} must not be "
                           f"a floating point number (self is {np.dtype(dtype)}, {name}={v!r}). "
                           "Fix: pass an integer, or cast self to a floating dtype first.")
    return v


_DEVICE_TYPES = ("cpu", "cuda", "gpu", "xpu", "mps", "meta", "hip", "npu", "ipu", "xla")


def _gpu_place(index):
    """Place(gpu:index) when a device backend has that GPU (None: the current one), else None."""
    b = _xp.backend()
    if b is None:
        return None
    i = b.place.index if index is None else index
    return Place("gpu", i) if 0 <= i < b.count else None


def device(value, op):
    """Parse a device into a Place: 'cpu', 'cpu:N', a Place, or None -> CPU; 'cuda', 'gpu:N', a
    GPU ordinal -> Place(gpu:N) when a GPU backend exists (Note [Array module per place]).
    A device this build has no access to raises DeviceUnavailableError; a malformed string
    ('cuda:x', 'bogus') raises ArgValueError. Never a silent CPU fallback."""
    if value is None:
        return CPU
    kind = getattr(value, "kind", None) or getattr(value, "type", None)
    if kind is not None and not isinstance(value, str):
        value = str(kind) if getattr(value, "index", None) is None else f"{kind}:{value.index}"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if _gpu_place(int(value)) is not None:   # an ordinal names a GPU, as in PyTorch
            return _gpu_place(int(value))
        raise DeviceUnavailableError(
            f"{op}(): device ordinal {int(value)} names an accelerator, and this build of oar "
            "runs on the CPU only. Fix: use 'cpu'.")
    if not isinstance(value, str):
        raise ArgTypeError(f"{op}(): expected a device string such as 'cpu', got "
                           f"{_describe(value)}")
    s = value.strip().lower()
    typ, sep, idx = s.partition(":")
    if typ not in _DEVICE_TYPES or (sep and not (idx.isdigit())):
        raise ArgValueError(f"{op}(): Invalid device string: {value!r}. Expected 'cpu' (the "
                            "only device of this build), optionally 'cpu:N'.")
    if typ in ("cuda", "gpu"):
        place = _gpu_place(int(idx) if sep else None)   # Note [Array module per place]
        if place is not None:
            return place
    if typ != "cpu":
        raise DeviceUnavailableError(
            f"{op}(): device {value!r} is not available: oar is not compiled with CUDA (or any "
            "accelerator) enabled and runs on the CPU only. Fix: use 'cpu' or drop the "
            ".to(device) call.")
    return CPU


def tensor(value, op, name="x"):
    """The tensor an op works on (self of an in-place op, the input of a composite): never
    None or a list silently turned into something else."""
    if isinstance(value, Tensor):
        return value
    raise ArgTypeError(f"{op}(): argument '{name}' must be a Tensor, got {_describe(value)}")


def input_tensor(value, op, name="x"):
    """The tensor input of a hand-written public function (a reduction, a sampler): a Tensor
    passes; a number or an array-like of numbers becomes a tensor as the registry's
    `as_tensor` makes one (as registered ops accept them); None, strings, dicts and anything
    else are refused with ArgTypeError (a TypeError and a RuntimeError), never left to fail
    later as an AttributeError. Use `tensor` where only a Tensor is valid (PyTorch's
    zeros_like([1, 2]) is a TypeError)."""
    if isinstance(value, Tensor):
        return value
    if (value is None or isinstance(value, (str, bytes, dict, set)) or not (
            isinstance(value, (list, tuple, np.ndarray, np.generic, numbers.Number))
            or hasattr(value, "__array__"))):
        raise ArgTypeError(f"{op}(): argument '{name}' must be a Tensor, got "
                           f"{_describe(value)}")
    from .registry import as_tensor
    try:
        out = as_tensor(value)
    except (TypeError, ValueError) as e:
        raise ArgTypeError(f"{op}(): argument '{name}' must be a Tensor (or an array-like of "
                           f"numbers), got {_describe(value)}: {e}") from e
    if not isinstance(out, Tensor):
        raise ArgTypeError(f"{op}(): argument '{name}' must be a Tensor, got "
                           f"{_describe(value)}")
    return out
