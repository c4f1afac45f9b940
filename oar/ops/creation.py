"""Creation functions, in both spellings; shapes as a list or as arguments."""
from __future__ import annotations

import math

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from ..place import CPU as _CPU, as_place
from ..tensor import Tensor
from . import args as _args
from . import registry
from .._fpwarn import ensure as _fpwarn_ensure
from ..autograd.errors import ArgTypeError, ArgValueError


def _shape(args, op="tensor creation"):
    """Note [Argument layer]: sizes as varargs or one sequence/tensor, integers >= 0 only."""
    return _args.shape_args(args, op)


def _is_dtype_like(v):
    """A dtype given by position (Paddle's `zeros([2], "int64")`): a name, an oar dtype or a
    NumPy dtype/type. Never an int (a size) or a Python type (torch's `zeros(2, float)` is a
    TypeError there too)."""
    return isinstance(v, (str, _dt.DType, np.dtype)) or (isinstance(v, type)
                                                         and issubclass(v, np.generic))


def shape_keyword(args, kwargs, op):
    """The shape given by keyword, Paddle's `shape=` or PyTorch's `size=`, as the positional
    sizes (taken out of kwargs); args unchanged when neither is given."""
    for key in ("shape", "size"):
        if key in kwargs:
            if args:
                raise TypeError(f"{op}() got multiple values for argument '{key}'")
            return (kwargs.pop(key),)
    return args


def _shape_and_dtype(args, dtype, op):
    """Sizes as varargs or one sequence (PyTorch), or Paddle's (shape, dtype) by position:
    `oar.zeros([2, 3], "int64")`, `oar.randn([2, 3], "float32")`."""
    if (len(args) == 2 and isinstance(args[0], (list, tuple, Tensor))
            and _is_dtype_like(args[1])):
        if dtype is not None:
            raise TypeError(f"{op}() got multiple values for argument 'dtype'")
        return _shape(args[:1], op), args[1]
    return _shape(args, op), dtype


def _dtype(dtype, default=None):
    """The NumPy dtype to create: dtype, else `default`, else the default floating dtype
    (read at call time: Note [Default dtype])."""
    if dtype is not None:
        return _dt.as_dtype(dtype).np
    return (default if default is not None else _dt.DEFAULT_FLOAT).np


def _device(device, op):
    """Note [Argument layer] for `device=`: the CPU passes; an accelerator ('cuda', 'gpu:0',
    an ordinal, torch.device('cuda')) raises DeviceUnavailableError, never a silent CPU
    tensor."""
    if device is not None:
        return _args.device(device, op)
    return _xp.DEFAULT[0]


def _finish(arr, requires_grad=False, stop_gradient=True, cls=Tensor, place=None):
    """The new tensor over `arr`, made on `place` (None: the current default place, CPU
    unless set_device / set_default_device chose a GPU; Note [Array module per place])."""
    _fpwarn_ensure()   # Note [Floating-point warnings]
    if place is None:
        place = _xp.DEFAULT[0]
    if place.kind != "cpu":
        arr = _xp.to_place(arr, place)
    t = cls._wrap(arr)
    if requires_grad:
        t.requires_grad = True
    elif not stop_gradient:
        t.stop_gradient = False     # Paddle's flag (an integer tensor records it)
    return t


def _infer_np(data):
    """Python data -> ndarray with oar's defaults (floats -> float32, ints -> int64)."""
    arr = _checked_asarray(data)
    if arr.dtype == np.float64 and not isinstance(data, np.ndarray) and not _has_np64(data):
        arr = arr.astype(_dt.DEFAULT_FLOAT.np)   # Note [Default dtype]
    elif arr.dtype.kind == "i" and arr.dtype != np.int64 and not isinstance(data, np.ndarray):
        arr = arr.astype(np.int64)
    elif arr.dtype == np.complex128 and not isinstance(data, np.ndarray):
        arr = arr.astype(_dt.default_complex())   # Note [Complex dtypes]
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
    if arr.dtype.kind not in "biufc":
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
    where = as_place(place) if place is not None else _device(device, "to_tensor")
    if isinstance(data, Tensor):
        arr = np.array(_xp.to_place(data._data, _CPU), copy=True)
        if dtype is not None:
            arr = arr.astype(_dt.as_dtype(dtype).np, copy=False)
    elif isinstance(data, (list, tuple)) and any(isinstance(d, Tensor) for d in _flat(data)):
        arr = _checked_asarray([_unwrap(d) for d in data])
        if dtype is not None:
            arr = arr.astype(_dt.as_dtype(dtype).np, copy=False)
        elif arr.dtype == np.float64 and not any(isinstance(d, Tensor) and d._data.dtype == np.float64 for d in _flat(data)):
            arr = arr.astype(_dt.DEFAULT_FLOAT.np)
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
    t = _finish(np.array(arr, order="C", copy=False) if arr.flags.c_contiguous else np.array(arr, order="C"), stop_gradient=stop_gradient, place=where)
    t.__dict__["_made_by_to_tensor"] = True     # Note [Tensor names]
    return t


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
    return to_tensor(data, dtype=dtype, stop_gradient=not requires_grad, device=device)


def from_numpy(arr):
    """Zero-copy is not offered: writes through `arr` would bypass the version counter."""
    if not isinstance(arr, np.ndarray):
        raise _args.ArgTypeError(f"from_numpy(): expected np.ndarray (got {type(arr).__name__}). "
                                 "Fix: use oar.to_tensor for lists and numbers.")
    return to_tensor(np.asarray(arr))


def zeros(*shape, dtype=None, name=None, requires_grad=False, device=None, **kwargs):
    """A new tensor of the given shape filled with 0 (default: the default floating dtype).
    The shape as arguments or one sequence; Paddle's dtype by position works too
    (`zeros([2], "int64")`)."""
    return _filled(np.zeros, shape, dtype, requires_grad, device, kwargs, "zeros")


def ones(*shape, dtype=None, name=None, requires_grad=False, device=None, **kwargs):
    """A new tensor of the given shape filled with 1 (default: the default floating dtype).
    The shape as arguments or one sequence; Paddle's dtype by position works too."""
    return _filled(np.ones, shape, dtype, requires_grad, device, kwargs, "ones")


def empty(*shape, dtype=None, name=None, requires_grad=False, device=None, **kwargs):
    """A new tensor of the given shape with unspecified contents (default: the default
    floating dtype). The shape as arguments or one sequence; Paddle's dtype by position too."""
    return _filled(np.empty, shape, dtype, requires_grad, device, kwargs, "empty")


# keywords PyTorch's and Paddle's creation functions accept that change nothing on oar
_IGNORED = frozenset({"pin_memory", "layout", "memory_format", "out"})


def _no_other_keywords(kwargs, op):
    bad = sorted(k for k in kwargs if k not in _IGNORED)
    if bad:
        raise TypeError(f"{op}() got an unexpected keyword argument '{bad[0]}'")
    if kwargs.get("out") is not None:
        raise ArgValueError(f"{op}(): out= is not supported by oar's creation functions. Fix: "
                            f"assign the result, or copy it in: `t.copy_({op}(...))`.")


def _filled(make, shape, dtype, requires_grad, device, kwargs, op):
    shape = shape_keyword(shape, kwargs, op)
    _no_other_keywords(kwargs, op)
    shp, dtype = _shape_and_dtype(shape, dtype, op)
    place = _device(device, op)
    return _finish(make(shp, _dtype(dtype)), requires_grad, place=place)


def full(shape, fill_value, dtype=None, name=None, requires_grad=False, device=None):
    """A new tensor of the given shape filled with fill_value; without a dtype, bool for a
    bool fill and the default float dtype for any other number, as Paddle's (the PyTorch
    door's full infers int64 for an integer itself)."""
    place = _device(device, "full")
    shp = _args.shape(shape, "full")
    fill_value = _args.number(fill_value, "full", "fill_value")
    if dtype is None:
        dtype = _dt.bool_ if isinstance(fill_value, bool) else _dt.DEFAULT_FLOAT
    with np.errstate(over="ignore", invalid="ignore"):
        return _finish(np.full(shp, fill_value, _dtype(dtype)), requires_grad, place=place)


# Note [Layout of *_like]
# PyTorch's *_like functions (empty_like, zeros_like, ones_like, full_like, rand_like,
# randn_like, randint_like) default to memory_format=preserve_format: a result of x's shape
# laid out like x. A non-overlapping, dense x (a transpose, a permute) gives exactly x's
# strides (`empty_like(zeros(4, 3).t()).stride() == (1, 3)`); any other x (a slice with
# gaps, an expand) gives dense strides in x's stride order (ATen's infer_dense_strides: dims
# sorted by stride, stably, a zero stride keeping its place, equal strides putting the
# smaller size first). A random *_like fills the result in memory order (Note [Random
# sources]), so its draws land where PyTorch's do. Paddle's *_like are contiguous: the
# Paddle door keeps C order.
def like_layout(x, dtype):
    """An uninitialised array of x's shape and `dtype` laid out as Note [Layout of *_like]
    says for x's door, or None where that is C order (the Paddle door, a contiguous x)."""
    a = x._data
    if a.ndim < 2 or a.size == 0 or x._result_class is Tensor:
        return None
    sizes = a.shape
    strides = [s // a.itemsize for s in a.strides]
    if min(strides) < 0:
        return None
    if not _dense(sizes, strides):
        strides = _infer_dense_strides(sizes, strides)
    if strides == _contiguous_strides(sizes):   # (NumPy's c_contiguous ignores size-1 dims)
        return None
    dt = np.dtype(dtype)
    buf = np.empty(a.size, dt)
    return np.lib.stride_tricks.as_strided(buf, sizes, [s * dt.itemsize for s in strides])


def _contiguous_strides(sizes):
    out, acc = [], 1
    for n in reversed(sizes):
        out.append(acc)
        acc *= max(n, 1)
    return out[::-1]


def _dense(sizes, strides):
    """ATen's is_non_overlapping_and_dense."""
    perm = sorted(range(len(sizes)), key=lambda d: (sizes[d] < 2, strides[d] if sizes[d] >= 2 else 0))
    need = 1
    for d in perm:
        if sizes[d] < 2:
            return True
        if strides[d] != need:
            return False
        need *= sizes[d]
    return True


def _infer_dense_strides(sizes, strides):
    """ATen's infer_dense_strides: dense strides keeping the stride order of `strides`."""
    nd = len(sizes)
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0, d1):
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if sizes[d0] > sizes[d1] else 0

    for i in range(1, nd):   # insertion sort, as ATen (stable; zero strides stay)
        d1 = i
        for j in range(1, i + 1):
            d0 = i - j
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * nd
    cur = 1
    for d in perm:
        out[d] = cur
        if sizes[d] > 1:
            cur *= sizes[d]
    return out


def relayout_like(t, x):
    """t (a fresh C-ordered tensor of x's shape, made for x) laid out like x (Note [Layout of
    *_like]); its values, taken in C order, fill the new layout in memory order."""
    if t._data.__class__ is not np.ndarray:   # a device tensor stays C-ordered (not yet laid out)
        return t
    arr = like_layout(x, t._data.dtype)
    if arr is None:
        return t
    from .random import _write
    _write(arr, t._data)
    return _finish(arr, t.requires_grad, cls=x._result_class)   # x's door (Note [Result class])


def _like(fn):
    def like(x, dtype=None, name=None, requires_grad=False, device=None, **kwargs):
        x = _args.tensor(x, fn.__name__ + "_like")
        _no_other_keywords(kwargs, fn.__name__ + "_like")
        place = x.place if device is None else _device(device, fn.__name__ + "_like")
        return _as_class(relayout_like(fn(list(x.shape), dtype=dtype if dtype is not None
                                          else x.dtype, requires_grad=requires_grad,
                                          device=place), x), x)
    like.__doc__ = (f"{fn.__name__}() with x's shape (and x's dtype unless dtype is given); "
                    "the result is of x's door (Note [Result class]).")
    return like


def _as_class(t, like):
    """Note [Result class]: a fresh tensor made "like" x belongs to x's door."""
    cls = like._result_class
    if t.__class__ is not cls:
        t.__class__ = cls
    return t


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)


def full_like(x, fill_value, dtype=None, name=None, requires_grad=False, device=None):
    """A new tensor shaped like x filled with fill_value (x's dtype unless given)."""
    x = _args.tensor(x, "full_like")
    place = x.place if device is None else _device(device, "full_like")
    return _as_class(relayout_like(full(list(x.shape), fill_value, dtype=dtype if dtype is not
                                        None else x.dtype, requires_grad=requires_grad,
                                        device=place), x), x)


def arange(start=0, end=None, step=1, dtype=None, name=None, requires_grad=False, device=None):
    """PyTorch's arange: the length is ceil((end - start) / step) computed in double, and
    element i is start + i * step computed in double (int64 for integer dtypes), then cast."""
    place = _device(device, "arange")
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
    if dt == np.int64:   # ATen converts int64's bounds to int64 first (truncating): checks
        xs, xe, xst = int(start), int(end), int(step)   # and the length use them (the other
        # integer dtypes take the length in double, like floats: arange(0, 3, 0.5, int32) is
        # six zeros in PyTorch 2.13, while int64 refuses its step of 0)
        if xst == 0:
            raise ArgValueError("arange(): step must be nonzero (after conversion to an integer "
                                f"dtype, step={step} is 0)")
        if not ((xst > 0 and xe >= xs) or (xst < 0 and xe <= xs)):
            raise ArgValueError(f"arange(): upper bound and lower bound inconsistent with step "
                                f"sign (start={xs}, end={xe}, step={xst} as integers)")
    if dt == np.int64:   # int64: ceil((end - start + step - sign(step)) / step) in C integers
        num = xe - xs + xst - ((xst > 0) - (xst < 0))
        n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
    if dt.kind == "f":
        vals = float(start) + np.arange(n, dtype=np.float64) * float(step)
    else:   # PyTorch computes integer ranges in int64, start and step truncated
        vals = int(start) + np.arange(n, dtype=np.int64) * int(step)
    with np.errstate(over="ignore", invalid="ignore"):
        return _finish(vals.astype(dt, copy=False), requires_grad, place=place)


def linspace(start, stop, num=None, dtype=None, name=None, requires_grad=False, device=None, *, steps=None):
    """A 1-D tensor of num evenly spaced values from start to stop, both included."""
    place = _device(device, "linspace")
    start = _args.number(start, "linspace", "start")
    stop = _args.number(stop, "linspace", "end")
    n = _args.integer(num if steps is None else steps, "linspace", "steps")
    if n < 0:
        raise ArgValueError(f"linspace(): number of steps must be non-negative, got {n}")
    dt = _dtype(dtype)
    if dt.kind in "iu" and n > 1:
        # ATen's integer linspace: the bounds converted to the dtype, a double step, the first
        # half counted from start and the second from end, each value truncated
        lo = int(np.array(int(start)).astype(dt))
        hi = int(np.array(int(stop)).astype(dt))
        step = (float(hi) - float(lo)) / (n - 1)
        i = np.arange(n, dtype=np.float64)
        vals = np.where(i < n // 2, lo + step * i, hi - step * (n - i - 1))
        return _finish(np.trunc(vals).astype(np.int64).astype(dt), requires_grad, place=place)
    return _finish(np.linspace(start, stop, n, dtype=dt), requires_grad, place=place)


def eye(num_rows, num_columns=None, dtype=None, name=None, requires_grad=False, device=None):
    """A 2-D tensor with ones on the diagonal and zeros elsewhere."""
    place = _device(device, "eye")
    n = _args.integer(num_rows, "eye", "n")
    m = n if num_columns is None else _args.integer(num_columns, "eye", "m")
    if n < 0 or m < 0:
        raise ArgValueError(f"eye(): n and m must be greater or equal to 0, got n={n}, m={m}")
    return _finish(np.eye(n, m, dtype=_dtype(dtype)), requires_grad, place=place)


for _n, _f in dict(to_tensor=to_tensor, tensor=tensor, from_numpy=from_numpy, zeros=zeros,
                   ones=ones, empty=empty, full=full, zeros_like=zeros_like,
                   ones_like=ones_like, empty_like=empty_like, full_like=full_like,
                   arange=arange, linspace=linspace, eye=eye).items():
    registry.register_function(_n, _f, method=False)


def _new_like(fn):
    def method(x, *size, dtype=None, requires_grad=False, device=None, **kw):
        _no_other_keywords(kw, "new_" + fn.__name__)
        place = x.place if device is None else _device(device, "new_" + fn.__name__)
        return _as_class(fn(*size, dtype=dtype if dtype is not None else x.dtype,
                            requires_grad=requires_grad, device=place), x)
    method.__doc__ = (f"{fn.__name__}() of the given size, with x's dtype unless dtype is "
                      "given, of x's door (Note [Result class]).")
    return method


for _n, _f in (("new_zeros", zeros), ("new_ones", ones), ("new_empty", empty)):
    registry.register_function(_n, _new_like(_f), function=False)


def _new_full(x, size, fill_value, dtype=None, requires_grad=False, device=None, **kw):
    """A new tensor of the given size filled with fill_value, with x's dtype (unless given)."""
    _no_other_keywords(kw, "new_full")
    place = x.place if device is None else _device(device, "new_full")
    return _as_class(full(size, fill_value, dtype=dtype if dtype is not None else x.dtype,
                          requires_grad=requires_grad, device=place), x)


def _new_tensor(x, data, dtype=None, requires_grad=False, device=None, **kw):
    """A new tensor holding a copy of data, with x's dtype (unless dtype is given)."""
    _no_other_keywords(kw, "new_tensor")
    place = x.place if device is None else _device(device, "new_tensor")
    return _as_class(to_tensor(data, dtype=dtype if dtype is not None else x.dtype,
                               stop_gradient=not requires_grad, place=place), x)


def _new(x, *args, device=None):
    """PyTorch's legacy Tensor.new: `x.new()` an empty 1-D tensor, `x.new(2, 3)` or
    `x.new(torch.Size([2, 3]))` an uninitialised tensor of that shape, `x.new([1, 2])` (a list
    or tuple) a tensor of that data, `x.new(t)` t itself when it has x's dtype; always of x's
    dtype and door."""
    _device(device, "new")
    dt = x._data.dtype
    if not args:
        return _as_class(_finish(np.empty((0,), dt)), x)
    if len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0]
        if t._data.dtype != dt:
            raise ArgTypeError(f"new(): expected a tensor of dtype {x.dtype.name} (x's), got "
                               f"{t.dtype.name}. Fix: t.to(x.dtype), or x.new_tensor(t) for a "
                               "copy.")
        return t
    from ..tensor import Size
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(args[0], Size)):
        return _as_class(_finish(np.empty(_shape(args, "new"), dt)), x)
    if len(args) == 1:
        return _as_class(to_tensor(args[0], dtype=x.dtype), x)
    raise ArgTypeError(f"new(): expected sizes (ints), a torch.Size, data (a list) or a tensor, "
                       f"got {len(args)} arguments of types "
                       f"{[type(a).__name__ for a in args]}")


def _type_as(x, other):
    """x converted to other's dtype (x itself when it already has it), as PyTorch's type_as."""
    other = _args.tensor(other, "type_as", "other")
    return x.astype(other.dtype)


registry.register_function("new_full", _new_full, function=False)
registry.register_function("new_tensor", _new_tensor, function=False)
registry.register_function("new", _new, function=False)
registry.register_function("type_as", _type_as, function=False)


# ---------------------------------------------------------------- storage, inference, default dtype
def _untyped_storage(x):
    """The memory x is a window onto, as bytes (PyTorch's untyped_storage()): shared by all
    of x's views; data_ptr(), nbytes(), size()."""
    from ..storage import UntypedStorage
    return UntypedStorage(x._storage)


def _typed_storage(x):
    """The memory x is a window onto, counted in elements of x's dtype (PyTorch's storage()):
    data_ptr(), nbytes(), size(), tolist()."""
    from ..storage import TypedStorage
    return TypedStorage(x._storage, _dt.from_numpy_dtype(x._data.dtype))


def _is_inference(x):
    """Whether x is an inference tensor: made under inference_mode (Note [Inference
    tensors])."""
    from ..autograd.grad_mode import is_inference
    return is_inference(x)


registry.register_function("untyped_storage", _untyped_storage, function=False)
registry.register_function("storage", _typed_storage, function=False)
registry.register_function("is_inference", _is_inference, function=False)
registry.register_function("set_default_dtype", _dt.set_default_dtype, method=False)


def _get_data(x):
    """x.data (PyTorch and Paddle): a tensor over x's memory with no gradient history
    (x.detach()). Unlike PyTorch's, it shares x's version counter too (oar keeps one per
    storage, Note [Version counter]), so a write through it is seen by autograd's checks."""
    return x.detach()


def _set_data(x, value):
    """`x.data = t`: x keeps its identity (and requires_grad) and becomes a window onto t's
    memory, with t's shape and dtype, as in PyTorch and Paddle."""
    if not isinstance(value, Tensor):
        raise ArgTypeError(f"data: expected a Tensor to assign to .data, got "
                           f"{type(value).__name__}")
    if x._requires_grad and value._data.dtype.kind != "f":
        raise ArgTypeError(f"data set to a tensor that requires gradients must be floating "
                           f"point or complex dtype (got {value.dtype.name}; only floating "
                           "dtypes can require grad)")   # PyTorch's words first
    x._data = value._data
    x._storage = value._storage
    x._base = None
    x._view = None


Tensor.data = property(_get_data, _set_data, doc=_get_data.__doc__)


# Note [Not-initialized tensors]
# Paddle's Layer.create_tensor gives a tensor with no memory yet, printed
# "Tensor(Not initialized)", that paddle.assign(x, output=t) later fills. oar's is an
# UninitializedTensor (a Tensor subclass of the same layout) over an empty array of shape [0];
# assign gives it x's shape and dtype and turns it into a plain tensor of its door.
class UninitializedTensor(Tensor):
    """A tensor with no values yet (Paddle's Layer.create_tensor); fill it with
    `paddle.assign(x, output=t)` (Note [Not-initialized tensors])."""
    __slots__ = ()
    _result_class = Tensor  # type: ignore[assignment]  # (Tensor's default None)

    def __repr__(self):
        return "Tensor(Not initialized)"

    __str__ = __repr__

    def __format__(self, spec):
        return format(repr(self), spec)

    def _is_initialized(self):
        """False until paddle.assign fills it."""
        return False


def uninitialized(dtype="float32"):
    """A new UninitializedTensor of dtype (Note [Not-initialized tensors])."""
    dt = _dt.as_dtype(dtype)
    return UninitializedTensor._wrap(np.empty((0,), dt.np))


def assign(x, output=None):
    """Paddle's assign: a copy of x (a tensor, NumPy array, list/tuple or number; gradients
    flow back to a tensor x). With output, the copy is written into output in place (its
    version bumped; a leaf that requires grad is refused, as for every in-place op) and
    output is returned. An output of another shape, or a not-initialized one
    (Layer.create_tensor), takes x's shape (and, when not initialized, its dtype), as in
    Paddle; a view cannot change shape and an initialized output keeps its dtype."""
    from ..autograd import grad_mode
    from ..autograd.errors import InplaceLeafError
    op = "assign"
    if isinstance(x, Tensor):
        src = x
    else:
        if x is None or isinstance(x, (str, bytes)):
            raise ArgTypeError(f"{op}(): x must be a Tensor, a NumPy array, a list/tuple of "
                               f"numbers or a number, got {type(x).__name__}")
        try:
            arr = np.array(x)
        except Exception as e:
            raise ArgTypeError(f"{op}(): cannot make a tensor from {type(x).__name__}: {e}") from None
        if arr.dtype.kind not in "biuf":
            raise ArgTypeError(f"{op}(): x must hold numbers, got {type(x).__name__} "
                               f"(NumPy made a {arr.dtype} array of it)")
        if arr.ndim == 0 and not isinstance(x, np.ndarray):
            arr = arr.reshape(1)           # Paddle: a number becomes shape [1]
        src = Tensor._wrap(arr)
    if output is None:
        return src.clone() if src is x else src
    if not isinstance(output, Tensor):
        raise ArgTypeError(f"{op}(): argument 'output' must be a Tensor, got "
                           f"{type(output).__name__}")
    fresh = isinstance(output, UninitializedTensor)
    if output._requires_grad and output._grad_fn is None and grad_mode.is_grad_enabled():
        raise InplaceLeafError(
            f"{op}(): (InvalidArgument) Leaf Var ({output._name_if_read}) that doesn't stop "
            "gradient can't use inplace strategy. Fix: write under paddle.no_grad(), or assign into a "
            "tensor that stops gradient.")
    shape, dtype = src._data.shape, src._data.dtype
    if fresh or output._data.shape != shape:
        if output._base is not None or output._view is not None:
            raise ArgValueError(
                f"{op}(): output is a view of shape {list(output._data.shape)}; it cannot take "
                f"x's shape {list(shape)}. Fix: assign into a tensor of shape {list(shape)} "
                "or one that owns its memory.")
        if output._requires_grad:
            raise ArgValueError(
                f"{op}(): output (shape {list(output._data.shape)}) has gradient history; it "
                f"cannot take x's shape {list(shape)}. Fix: assign into a new tensor.")
        if not fresh and output._data.dtype != dtype:
            raise ArgTypeError(
                f"{op}(): output is {output.dtype.name} of shape {list(output._data.shape)}, x "
                f"is {src.dtype.name} of shape {list(shape)}; an in-place write never changes "
                "dtype. Fix: assign x.astype(output.dtype), or use a new tensor.")
        version = output._storage.version
        _set_data(output, Tensor._wrap(np.zeros(shape, dtype)))
        output._storage.version = version
        if fresh:
            output.__class__ = output._result_class
    return output.copy_(src)


registry.register_function("assign", assign, method=False)
