"""Creation functions, in both spellings; shapes as a list or as arguments."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtypes as _dt
from ..place import as_place
from ..tensor import Tensor
from . import args as _args
from . import registry
from ..autograd.errors import ArgTypeError, ArgValueError


def _shape(args, op="tensor creation"):
    """Note [Argument layer]: sizes as varargs or one sequence/tensor, integers >= 0 only."""
    return _args.shape_args(args, op)


def _dtype(dtype, default=_dt.DEFAULT_FLOAT):
    return (_dt.as_dtype(dtype) if dtype is not None else default).np


def _finish(arr, requires_grad=False, stop_gradient=True):
    t = Tensor._wrap(arr)
    if requires_grad or not stop_gradient:
        t.requires_grad = True
    return t


def _infer_np(data):
    """Python data -> ndarray with oar's defaults (floats -> float32, ints -> int64)."""
    arr = _checked_asarray(data)
    if arr.dtype == np.float64 and not isinstance(data, np.ndarray) and not _has_np64(data):
        arr = arr.astype(np.float32)
    elif arr.dtype.kind == "i" and arr.dtype != np.int64 and not isinstance(data, np.ndarray):
        arr = arr.astype(np.int64)
    return arr


def _checked_asarray(data):
    """np.asarray that refuses non-numbers (None, strings, ragged lists, huge ints) with a
    TypeError instead of an object or string array (`np.array([1, None], float)` is NaN)."""
    try:
        arr = np.asarray(data)
    except (ValueError, OverflowError) as e:
        raise ArgValueError(f"tensor(): could not make a tensor from {type(data).__name__}: "
                            f"{e}. Fix: pass a (nested) list of numbers with a regular "
                            "shape.") from e
    if arr.dtype.kind not in "biuf":
        raise ArgTypeError(f"tensor(): cannot make a tensor from {type(data).__name__} "
                           f"containing non-numbers (NumPy made a {arr.dtype} array from it). "
                           "Fix: pass numbers only (no None, strings or objects).")
    return arr


def _has_np64(data):
    if isinstance(data, np.floating):
        return data.dtype == np.float64
    if isinstance(data, (list, tuple)) and data:
        return _has_np64(data[0])
    return False


def to_tensor(data, dtype=None, place=None, stop_gradient=True, *, requires_grad=None,
              device=None):
    """A new tensor holding a copy of data (a list, number, ndarray or tensor).

    Floats default to float32, ints to int64; stop_gradient=False (or requires_grad=True)
    makes it a leaf that requires grad.
    """
    as_place(place)
    if isinstance(data, Tensor):
        arr = np.array(data._data, copy=True)
        if dtype is not None:
            arr = arr.astype(_dt.as_dtype(dtype).np, copy=False)
    elif isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in _flat(data)):
        arr = _checked_asarray([_unwrap(d) for d in data])
        if dtype is not None:
            arr = arr.astype(_dt.as_dtype(dtype).np, copy=False)
        elif arr.dtype == np.float64 and not any(isinstance(d, Tensor) and d._data.dtype == np.float64 for d in _flat(data)):
            arr = arr.astype(np.float32)
    elif dtype is not None:
        # the requested dtype applies to the original values: `[1.1, 1e40]` as float64 is
        # exactly those doubles, never a round trip through the default float32
        _checked_asarray(data)
        with np.errstate(over="ignore", invalid="ignore"):
            arr = np.array(data, dtype=_dt.as_dtype(dtype).np, copy=True)
    else:
        arr = np.array(_infer_np(data), copy=True)
    _dt.from_numpy_dtype(arr.dtype)   # refuse unsupported dtypes clearly
    if requires_grad is not None:
        stop_gradient = not requires_grad
    return _finish(np.array(arr, order="C", copy=False) if arr.flags.c_contiguous else np.array(arr, order="C"), stop_gradient=stop_gradient)


def _flat(data):
    for d in data:
        if isinstance(d, (list, tuple)):
            yield from _flat(d)
        else:
            yield d


def _unwrap(d):
    if isinstance(d, Tensor):
        return d._data
    if isinstance(d, (list, tuple)):
        return [_unwrap(x) for x in d]
    return d


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """PyTorch's spelling of to_tensor: a new tensor holding a copy of data."""
    return to_tensor(data, dtype=dtype, stop_gradient=not requires_grad)


def from_numpy(arr):
    """Zero-copy is not offered: writes through `arr` would bypass the version counter."""
    if not isinstance(arr, np.ndarray):
        raise _args.ArgTypeError(f"from_numpy(): expected np.ndarray (got {type(arr).__name__}). "
                                 "Fix: use oar.to_tensor for lists and numbers.")
    return to_tensor(np.asarray(arr))


def zeros(*shape, dtype=None, name=None, requires_grad=False, device=None):
    """A new tensor of the given shape filled with 0 (default dtype float32)."""
    return _finish(np.zeros(_shape(shape, "zeros"), _dtype(dtype)), requires_grad)


def ones(*shape, dtype=None, name=None, requires_grad=False, device=None):
    """A new tensor of the given shape filled with 1 (default dtype float32)."""
    return _finish(np.ones(_shape(shape, "ones"), _dtype(dtype)), requires_grad)


def empty(*shape, dtype=None, name=None, requires_grad=False, device=None):
    """A new tensor of the given shape with unspecified contents (default dtype float32)."""
    return _finish(np.empty(_shape(shape, "empty"), _dtype(dtype)), requires_grad)


def full(shape, fill_value, dtype=None, name=None, requires_grad=False, device=None):
    """A new tensor of the given shape filled with fill_value (dtype inferred from it)."""
    shp = _args.shape(shape, "full")
    fill_value = _args.number(fill_value, "full", "fill_value")
    if dtype is None:
        dtype = _dt.bool_ if isinstance(fill_value, bool) else (
            _dt.int64 if isinstance(fill_value, numbers.Integral) else _dt.DEFAULT_FLOAT)
    with np.errstate(over="ignore", invalid="ignore"):
        return _finish(np.full(shp, fill_value, _dtype(dtype)), requires_grad)


def _like(fn):
    def like(x, dtype=None, name=None, requires_grad=False, device=None):
        x = _args.tensor(x, fn.__name__ + "_like")
        return fn(list(x.shape), dtype=dtype if dtype is not None else x.dtype,
                  requires_grad=requires_grad)
    like.__doc__ = f"{fn.__name__}() with x's shape (and x's dtype unless dtype is given)."
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)


def full_like(x, fill_value, dtype=None, name=None, requires_grad=False, device=None):
    """A new tensor shaped like x filled with fill_value (x's dtype unless given)."""
    x = _args.tensor(x, "full_like")
    return full(list(x.shape), fill_value, dtype=dtype if dtype is not None else x.dtype,
                requires_grad=requires_grad)


def arange(start=0, end=None, step=1, dtype=None, name=None, requires_grad=False, device=None):
    """PyTorch's arange: the length is ceil((end - start) / step) computed in double, and
    element i is start + i * step computed in double (int64 for integer dtypes), then cast."""
    if end is None:
        start, end = 0, start
    start, end, step = (int(x) if x.__class__ is bool else x for x in (
        _args.number(v, "arange", n) for v, n in ((start, "start"), (end, "end"), (step, "step"))))
    if dtype is None:
        dtype = _dt.int64 if all(isinstance(v, int) for v in (start, end, step)) else _dt.DEFAULT_FLOAT
    dt = _dtype(dtype)
    if dt.kind == "b":
        raise ArgTypeError("arange(): not implemented for 'Bool'. Fix: make an integer range and "
                           "compare it, or pass dtype='int64'.")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise ArgValueError(f"arange(): unsupported range: {start} -> {end}. Fix: use finite bounds.")
    if step == 0:
        raise ArgValueError("arange(): step must be nonzero")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise ArgValueError(f"arange(): upper bound and lower bound inconsistent with step sign "
                            f"(start={start}, end={end}, step={step}). Fix: use a "
                            f"{'negative' if step > 0 else 'positive'} step, or swap start and end.")
    n = math.ceil((float(end) - float(start)) / float(step))
    if dt.kind == "f":
        vals = float(start) + np.arange(n, dtype=np.float64) * float(step)
    else:   # PyTorch computes integer ranges in int64, start and step truncated
        vals = int(start) + np.arange(n, dtype=np.int64) * int(step)
    with np.errstate(over="ignore", invalid="ignore"):
        return _finish(vals.astype(dt, copy=False), requires_grad)


def linspace(start, stop, num=None, dtype=None, name=None, requires_grad=False, device=None, *, steps=None):
    """A 1-D tensor of num evenly spaced values from start to stop, both included."""
    start = _args.number(start, "linspace", "start")
    stop = _args.number(stop, "linspace", "end")
    n = _args.integer(num if steps is None else steps, "linspace", "steps")
    if n < 0:
        raise ArgValueError(f"linspace(): number of steps must be non-negative, got {n}")
    return _finish(np.linspace(start, stop, n, dtype=_dtype(dtype)), requires_grad)


def eye(num_rows, num_columns=None, dtype=None, name=None, requires_grad=False, device=None):
    """A 2-D tensor with ones on the diagonal and zeros elsewhere."""
    n = _args.integer(num_rows, "eye", "n")
    m = n if num_columns is None else _args.integer(num_columns, "eye", "m")
    if n < 0 or m < 0:
        raise ArgValueError(f"eye(): n and m must be greater or equal to 0, got n={n}, m={m}")
    return _finish(np.eye(n, m, dtype=_dtype(dtype)), requires_grad)


for _n, _f in dict(to_tensor=to_tensor, tensor=tensor, from_numpy=from_numpy, zeros=zeros,
                   ones=ones, empty=empty, full=full, zeros_like=zeros_like,
                   ones_like=ones_like, empty_like=empty_like, full_like=full_like,
                   arange=arange, linspace=linspace, eye=eye).items():
    registry.register_function(_n, _f, method=False)


def _new_like(fn):
    def method(x, *size, dtype=None, requires_grad=False, **kw):
        return fn(*size, dtype=dtype if dtype is not None else x.dtype, requires_grad=requires_grad)
    method.__doc__ = f"{fn.__name__}() of the given size, with x's dtype unless dtype is given."
    return method


for _n, _f in (("new_zeros", zeros), ("new_ones", ones), ("new_empty", empty)):
    registry.register_function(_n, _new_like(_f), function=False)


def _new_full(x, size, fill_value, dtype=None, requires_grad=False):
    """A new tensor of the given size filled with fill_value, with x's dtype (unless given)."""
    return full(size, fill_value, dtype=dtype if dtype is not None else x.dtype,
                requires_grad=requires_grad)


def _new_tensor(x, data, dtype=None, requires_grad=False):
    """A new tensor holding a copy of data, with x's dtype (unless dtype is given)."""
    return to_tensor(data, dtype=dtype if dtype is not None else x.dtype,
                     stop_gradient=not requires_grad)


registry.register_function("new_full", _new_full, function=False)
registry.register_function("new_tensor", _new_tensor, function=False)
