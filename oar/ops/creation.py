"""Creation functions, in both spellings; shapes as a list or as arguments."""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as _dt
from ..place import as_place
from ..tensor import Tensor
from . import registry as R


def _shape(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    elif len(args) == 1 and isinstance(args[0], Tensor):
        args = args[0].tolist()
        args = args if isinstance(args, list) else [args]
    shape = tuple(int(s) for s in args)
    for s in shape:
        if s < 0:
            raise ValueError(f"negative dimension {s} in shape {list(shape)}")
    return shape


def _dtype(dtype, default=_dt.DEFAULT_FLOAT):
    return (_dt.as_dtype(dtype) if dtype is not None else default).np


def _finish(arr, requires_grad=False, stop_gradient=True):
    t = Tensor._wrap(arr)
    if requires_grad or not stop_gradient:
        t.requires_grad = True
    return t


def _infer_np(data):
    """Python data -> ndarray with oar's defaults (floats -> float32, ints -> int64)."""
    arr = np.asarray(data)
    if arr.dtype == np.float64 and not isinstance(data, np.ndarray) and not _has_np64(data):
        arr = arr.astype(np.float32)
    elif arr.dtype.kind == "i" and arr.dtype != np.int64 and not isinstance(data, np.ndarray):
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "O":
        raise TypeError(f"cannot make a tensor from {type(data).__name__} containing non-numbers")
    return arr


def _has_np64(data):
    if isinstance(data, np.floating):
        return data.dtype == np.float64
    if isinstance(data, (list, tuple)) and data:
        return _has_np64(data[0])
    return False


def to_tensor(data, dtype=None, place=None, stop_gradient=True, *, requires_grad=None,
              device=None):
    as_place(place)
    if isinstance(data, Tensor):
        arr = np.array(data._data, copy=True)
    elif isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in _flat(data)):
        arr = np.array([_unwrap(d) for d in data])
        if arr.dtype == np.float64 and not any(isinstance(d, Tensor) and d._data.dtype == np.float64 for d in _flat(data)):
            arr = arr.astype(np.float32)
    else:
        arr = np.array(_infer_np(data), copy=True)
    if dtype is not None:
        arr = arr.astype(_dt.as_dtype(dtype).np, copy=False)
    else:
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
    return to_tensor(data, dtype=dtype, stop_gradient=not requires_grad)


def from_numpy(arr):
    """Zero-copy is not offered: writes through `arr` would bypass the version counter."""
    return to_tensor(np.asarray(arr))


def zeros(*shape, dtype=None, name=None, requires_grad=False, device=None):
    return _finish(np.zeros(_shape(shape), _dtype(dtype)), requires_grad)


def ones(*shape, dtype=None, name=None, requires_grad=False, device=None):
    return _finish(np.ones(_shape(shape), _dtype(dtype)), requires_grad)


def empty(*shape, dtype=None, name=None, requires_grad=False, device=None):
    return _finish(np.empty(_shape(shape), _dtype(dtype)), requires_grad)


def full(shape, fill_value, dtype=None, name=None, requires_grad=False, device=None):
    if dtype is None:
        dtype = _dt.bool_ if isinstance(fill_value, bool) else (
            _dt.int64 if isinstance(fill_value, numbers.Integral) else _dt.DEFAULT_FLOAT)
    return _finish(np.full(_shape((shape,)), fill_value, _dtype(dtype)), requires_grad)


def _like(fn):
    def like(x, dtype=None, name=None, requires_grad=False, device=None):
        return fn(list(x.shape), dtype=dtype if dtype is not None else x.dtype,
                  requires_grad=requires_grad)
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)


def full_like(x, fill_value, dtype=None, name=None, requires_grad=False, device=None):
    return full(list(x.shape), fill_value, dtype=dtype if dtype is not None else x.dtype,
                requires_grad=requires_grad)


def arange(start=0, end=None, step=1, dtype=None, name=None, requires_grad=False, device=None):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = _dt.int64 if all(isinstance(v, numbers.Integral) for v in vals) else _dt.DEFAULT_FLOAT
    return _finish(np.arange(*vals, dtype=_dtype(dtype)), requires_grad)


def linspace(start, stop, num, dtype=None, name=None, requires_grad=False, device=None, *, steps=None):
    return _finish(np.linspace(start, stop, int(num if steps is None else steps), dtype=_dtype(dtype)),
                   requires_grad)


def eye(num_rows, num_columns=None, dtype=None, name=None, requires_grad=False, device=None):
    return _finish(np.eye(num_rows, num_columns, dtype=_dtype(dtype)), requires_grad)


for _n, _f in dict(to_tensor=to_tensor, tensor=tensor, from_numpy=from_numpy, zeros=zeros,
                   ones=ones, empty=empty, full=full, zeros_like=zeros_like,
                   ones_like=ones_like, empty_like=empty_like, full_like=full_like,
                   arange=arange, linspace=linspace, eye=eye).items():
    R.register_function(_n, _f, method=False)


def _new_like(fn):
    def method(x, *size, dtype=None, requires_grad=False, **kw):
        return fn(*size, dtype=dtype if dtype is not None else x.dtype, requires_grad=requires_grad)
    return method


for _n, _f in (("new_zeros", zeros), ("new_ones", ones), ("new_empty", empty)):
    R.register_function(_n, _new_like(_f), function=False)
R.register_function("new_full", lambda x, size, fill_value, dtype=None, requires_grad=False:
                    full(size, fill_value, dtype=dtype if dtype is not None else x.dtype,
                         requires_grad=requires_grad), function=False)
R.register_function("new_tensor", lambda x, data, dtype=None, requires_grad=False:
                    to_tensor(data, dtype=dtype if dtype is not None else x.dtype,
                              stop_gradient=not requires_grad), function=False)
