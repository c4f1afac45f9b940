"""One array module per place: which module computes on an array, and where an array lives.

`array_module(*arrays)` is NumPy for NumPy arrays and CuPy for CuPy arrays (Chainer's
get_array_module is the anchor); `place_of(array)` is the Place of an array, read from its
class. A kernel takes its module from its operands and never makes device data with `np.`.
The test-only fake device (`enable_fake_device()`) stands in for a GPU on a machine without
one. Note [Array module per place] and Note [Fake device].
"""
from __future__ import annotations

import types

import numpy as np

from .place import CPU, Place

# Note [Array module per place]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A Storage's place is not a field: it is read from its buffer's class (`place_of`), so a
# buffer and its place can never disagree. NumPy arrays are on the CPU; every other array
# class is registered here by the backend that makes it (CuPy's ndarray, the fake device's
# FakeArray) with its Place and its module (`xp`). The CPU-only hot paths pay nothing:
#   * the fast paths (registry.dispatch, dispatch_inplace, the spellings) run their kernels on
#     whatever arrays they get; a device kernel given a CPU array (or a pooled CPU buffer as
#     out=) raises TypeError, as CuPy does, and only then do they fall back to the general
#     path -- a try block costs nothing until it catches;
#   * their results are re-wrapped by `result_array` only when they are not a NumPy array
#     (a test that is already there), which keeps a device array as it is;
#   * the general paths (dispatch, dispatch_inplace, dispatch_out) call `same_place` only
#     while ACTIVE is true, which it becomes when the first device array is made;
#   * storage.new_storage counts a device buffer in its place's counters (one class test).
# Mixing places in one op is refused before anything is written, with each door's message.

ACTIVE = False          # True once a device array has been made (a backend was enabled)
_ndarray = np.ndarray
_MODULES: dict = {}     # array class -> its array module
_PLACES: dict = {}      # array class -> the Place of its arrays (one device per class)
_BACKEND = [None]       # the enabled device backend, or None (CPU only)
# where creation functions put a new tensor when not told: Paddle's set_device and PyTorch's
# set_default_device set it (one process, one current place)
DEFAULT = [CPU]


class Backend:
    """A device: its array class, Place, array module and host<->device copies."""

    def __init__(self, name, array_class, place, xp, to_device, to_host, count=1, strided=None):
        self.name = name              # 'cupy' or 'fake'
        self.array_class = array_class
        self.place = place            # Place('gpu', 0)
        self.xp = xp
        self.to_device = to_device    # ndarray -> device array (a copy)
        self.to_host = to_host        # device array -> ndarray (a copy)
        self.count = count            # number of devices
        self.strided = strided        # (src, shape, byte strides, byte offset) -> a view
        self.view = None              # (buf, shape, dtype, byte offset, byte strides) -> a view


_MODULES_BACKEND: dict = {}   # array class -> its Backend


def _register(backend):
    global ACTIVE
    _MODULES_BACKEND[backend.array_class] = backend
    _MODULES[backend.array_class] = backend.xp
    _PLACES[backend.array_class] = backend.place
    _BACKEND[0] = backend
    ACTIVE = True


def _unregister():
    # the class maps stay: an array made while a backend was on keeps its place (and its
    # storage is uncounted from that place's counters when it dies)
    global ACTIVE
    _BACKEND[0] = None
    DEFAULT[0] = CPU
    ACTIVE = False


class default_place:
    """`with default_place(place):` creation functions make their tensors on `place`."""

    def __init__(self, place):
        self.place = place

    def __enter__(self):
        self.prev = DEFAULT[0]
        DEFAULT[0] = self.place

    def __exit__(self, *exc):
        DEFAULT[0] = self.prev
        return False


def backend():
    """The enabled device backend, or None. CuPy is looked for on the first call (never at
    import): it is used when it imports and sees a CUDA device."""
    b = _BACKEND[0]
    if b is None and not _CUPY_TRIED[0]:
        _CUPY_TRIED[0] = True
        b = _cupy_backend()
        if b is not None:
            _register(b)
    return b


_CUPY_TRIED = [False]


def _cupy_backend():
    try:
        import cupy
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception:   # not installed, no driver, no device: the CPU-only build it is
        return None
    if n < 1:
        return None
    def strided(src, shape, bstrides, boff):
        return cupy.ndarray(shape, src.dtype, src.data + boff, bstrides)

    def view(buf, shape, dtype, boff, bstrides):
        return cupy.ndarray(shape, dtype, buf.data + boff, bstrides)
    b = Backend("cupy", cupy.ndarray, Place("gpu", 0), cupy, cupy.asarray,
                lambda a: a.get(), n, strided)
    b.view = view
    return b


def array_module(*arrays):
    """The array module of the arrays' place: numpy, cupy, or the fake device's module.
    Numbers and None are skipped; with no device array, numpy."""
    for a in arrays:
        m = _MODULES.get(a.__class__)
        if m is not None:
            return m
    return np


def place_of(array):
    """The Place of an array: CPU for NumPy arrays (and anything not a device array)."""
    c = array.__class__
    if c is _ndarray:
        return CPU
    return _PLACES.get(c, CPU)


def is_device_array(a):
    return a.__class__ in _PLACES


def is_array(a):
    """An array of any place (not a number)."""
    return a.__class__ is _ndarray or a.__class__ in _PLACES


def result_array(r):
    """An op result as an array of its place: device arrays as they are, NumPy scalars and
    sequences as NumPy arrays (the fast paths call it only when r is not an ndarray)."""
    if r.__class__ in _PLACES:
        return r
    return np.asarray(r)


def asarray(a, dtype=None, order=None):
    """np.asarray on any place: a device array stays on its device (NumPy's own would make
    it a CPU array, or refuse it); anything else is NumPy's."""
    m = _MODULES.get(a.__class__)
    if m is None:
        return np.asarray(a, dtype, order)
    return m.asarray(a, dtype)


def array(a, dtype=None, *, copy=True, order="K", ndmin=0):
    """np.array on any place (see asarray)."""
    m = _MODULES.get(a.__class__)
    if m is None:
        return np.array(a, dtype, copy=copy, order=order, ndmin=ndmin)
    return m.array(a, dtype, copy=copy, order=order, ndmin=ndmin)


def ascontiguousarray(a, dtype=None):
    """np.ascontiguousarray on any place (NumPy's own would turn a device array into a CPU
    one, or refuse it: it is not dispatched by __array_function__)."""
    if a.__class__ is _ndarray or a.__class__ not in _MODULES:
        return np.ascontiguousarray(a, dtype)
    return _MODULES[a.__class__].ascontiguousarray(a, dtype)


def to_place(array, place):
    """A copy of array on `place` (the same array when it is already there)."""
    src = place_of(array)
    if src == place:
        return array
    b = backend()
    if place.kind == "cpu":
        return b.to_host(array)
    if b is None or place != b.place:
        raise DeviceMismatch(f"no such device: {place!r}")
    host = array if src.kind == "cpu" else b.to_host(array)
    return b.to_device(np.ascontiguousarray(host) if host.ndim else host)


def on_place_of(array, like):
    """array copied to the place of `like` (array itself when they share one). Random draws
    come from the CPU streams and are moved (the same numbers on every place, for now)."""
    if like.__class__ is _ndarray:
        return array
    return to_place(array, place_of(like))


def strided_view(src, shape, bstrides, boff):
    """A view of a device array's memory: these byte strides, starting boff bytes after its
    first element (the caller has checked the extent)."""
    return _MODULES_BACKEND[src.__class__].strided(src, shape, bstrides, boff)


def buffer_view(buf, shape, dtype, boff, bstrides):
    """A view of a C-contiguous device array `buf`'s memory as `dtype`: shape, byte strides,
    starting boff bytes after buf's first element (what np.ndarray(shape, dtype, buf, boff,
    strides) is for NumPy; oar.jit's replay views its planned buffers so)."""
    return _MODULES_BACKEND[buf.__class__].view(buf, shape, dtype, boff, bstrides)


def data_ptr(array):
    """The address of an array's first element, on any place."""
    if array.__class__ is _ndarray or isinstance(array, _ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr   # CuPy


def pool_extra(place):
    """Bytes a device's array module keeps cached beyond live arrays (CuPy's memory pool)."""
    b = _BACKEND[0]
    if b is None or b.name != "cupy":
        return 0
    pool = b.xp.get_default_memory_pool()
    return pool.total_bytes() - pool.used_bytes()


class DeviceMismatch(RuntimeError):
    pass


# --------------------------------------------------------------------------- mixing places
def torch_name(place):
    """A Place as PyTorch prints a device: 'cpu', 'cuda:0'."""
    return "cpu" if place.kind == "cpu" else f"cuda:{place.index}"


def same_place(op_name, tensors):
    """The common place of the tensors among `tensors` (others are skipped); two places raise
    DevicesDiffer before anything is written (Note [Array module per place]). A 0-d CPU
    tensor goes with any place, as in PyTorch (a number held in a tensor; the caller moves
    it: placed_args)."""
    first = None
    scalar = False
    for t in tensors:
        d = getattr(t, "_data", None)
        if d is None:
            continue
        p = place_of(d)
        if p.kind == "cpu" and d.ndim == 0:
            scalar = True
            continue
        if first is None:
            first = p
        elif p != first:
            raise devices_differ(op_name, first, p, tensors)
    return first or CPU, scalar


def placed_args(op_name, args):
    """(place, args) with every 0-d CPU tensor operand moved to the common place when that
    is a device (same_place)."""
    place, scalar = same_place(op_name, args)
    if scalar and place.kind != "cpu":
        from .ops.general import move
        args = tuple(move(a, place) if getattr(a, "_data", None) is not None
                     and a._data.ndim == 0 and a._data.__class__ is _ndarray else a
                     for a in args)
    return place, args


def dispatch_placed(general, op, args, attrs):
    """registry.dispatch's general path while a device is in use: the operands' places are
    checked first, and the results' after (a kernel that made a CPU array from device
    operands names itself here, instead of the next op failing)."""
    place, args = placed_args(op.name, args)
    same_place(op.name, (*args, *attrs))   # tensor attrs (clip's bounds) as well
    out = general(op, args, attrs)
    if op.name in CROSSES:   # to_place (Note [Moving between places])
        return out
    for t in (out if isinstance(out, tuple) else (out,)):
        got = place_of(t._data)
        if got != place:
            raise KernelPlaceError(f"{op.name}: its kernel returned an array on {got!r} from "
                                   f"operands on {place!r} (a kernel must make device data "
                                   "with xp = array_module(x), never np.<creation>)")
    return out


CROSSES = {"to_place"}   # ops whose result is meant to be on another place


class KernelPlaceError(AssertionError):
    """A kernel made its result on another place than its operands' (a bug of oar)."""


def devices_differ(op_name, first, other, tensors=()):
    from .ops.args import DevicesDiffer
    import sys
    door = sys.modules.get("oar.torch")
    torch_door = door is not None and any(isinstance(t, door.Tensor) for t in tensors)
    if torch_door:
        return DevicesDiffer(f"Expected all tensors to be on the same device, but found at "
                             f"least two devices, {torch_name(first)} and "
                             f"{torch_name(other)}! ({op_name}; fix: move them with "
                             ".to(device) first)")
    return DevicesDiffer(f"(InvalidArgument) {op_name}(): the tensors are on different places: "
                         f"expected place is {first!r}, but actual place is {other!r}. Fix: "
                         "move them with .cuda() / .cpu() / .to(place) first.")


# --------------------------------------------------------------------------- the fake device
# Note [Fake device]
# ~~~~~~~~~~~~~~~~~~
# A test-only second place that behaves like a GPU on a machine without one. Its arrays are
# FakeArray, an ndarray subclass that, like a CuPy array, keeps its class through ufuncs
# (NEP 13) and array functions (NEP 18), returns 0-d arrays where NumPy returns scalars,
# and refuses plain NumPy arrays mixed into one call (CuPy raises TypeError there). Its
# module `FAKE_XP` makes FakeArrays (zeros, empty, arange, ...) and is numpy for the rest.
# A kernel that makes device data with `np.zeros(...)` instead of `xp.zeros(...)` produces
# a plain ndarray: the next op refuses it or the fake-device tests see the class change --
# exactly the bug CuPy would show as a TypeError. What the fake cannot catch:
# `np.asarray(fake)` silently gives a CPU array (a subclass cannot refuse it; CuPy does).
# Enabled only by tests (enable_fake_device()), it stands in for 'cuda:0' / 'gpu:0', with
# its own memory counters (storage.py).
class FakeArray(np.ndarray):
    """An array on the fake device (Note [Fake device])."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        args = tuple(_unwrap(x, ufunc.__name__) for x in inputs)
        if out is not None:
            kwargs["out"] = tuple(_unwrap(o, ufunc.__name__) for o in out)
        r = getattr(ufunc, method)(*args, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _rewrap(r)

    def __array_function__(self, func, types_, args, kwargs):
        if _ndarray in types_:
            raise TypeError(f"{func.__name__}(): a fake-device array mixed with a NumPy array "
                            "(CuPy refuses NumPy arrays: move one with .cuda() / .cpu())")
        a = _unwrap_tree(args)
        k = _unwrap_tree(kwargs)
        return _rewrap(func(*a, **k))

    def __getitem__(self, key):
        return _rewrap(np.ndarray.__getitem__(self.view(_ndarray), _unwrap_tree(key)))

    def __setitem__(self, key, value):
        if value.__class__ is _ndarray:
            raise TypeError("setitem: a NumPy array written into a fake-device array (CuPy "
                            "refuses NumPy arrays)")
        np.ndarray.__setitem__(self.view(_ndarray), _unwrap_tree(key), _unwrap(value, "setitem"))

    def __repr__(self):
        return "fake" + repr(self.view(_ndarray))


def _unwrap(x, what):
    c = x.__class__
    if c is FakeArray:
        return x.view(_ndarray)
    if c is _ndarray:   # any NumPy array, 0-d too (CuPy takes NumPy scalars, not arrays)
        raise TypeError(f"{what}(): a fake-device array mixed with a NumPy array of shape "
                        f"{x.shape} (CuPy refuses NumPy arrays: move it with .cuda() first)")
    return x


def _unwrap_tree(x):
    c = x.__class__
    if c is FakeArray:
        return x.view(_ndarray)
    if c is tuple or c is list:
        return c(_unwrap_tree(v) for v in x)
    if c is dict:
        return {k: _unwrap_tree(v) for k, v in x.items()}
    return x


def _rewrap(r):
    c = r.__class__
    if c is _ndarray:
        return r.view(FakeArray)
    if isinstance(r, np.generic):    # CuPy gives 0-d arrays where NumPy gives scalars
        return np.asarray(r).view(FakeArray)
    if c is tuple or c is list:
        return c(_rewrap(v) for v in r)
    return r


class _Iface:
    __slots__ = ("__array_interface__", "base")


def _fake_strided(src, shape, bstrides, boff):
    # a view over src's device root (the deepest FakeArray under it), so that its base
    # chain leads back to it as CuPy's views keep theirs (oar.jit finds roots by .base)
    root = None
    a = src
    while isinstance(a, _ndarray):
        if a.__class__ is FakeArray:
            root = a
        a = a.base
    if root is not None and root.flags.c_contiguous:
        off = src.__array_interface__["data"][0] + boff - root.__array_interface__["data"][0]
        return np.ndarray(shape, src.dtype, root.view(_ndarray), off, bstrides).view(FakeArray)
    base = src.view(_ndarray)
    it = dict(base.__array_interface__)
    it["data"] = (it["data"][0] + boff, it["data"][1])
    it["shape"], it["strides"] = tuple(shape), tuple(bstrides)
    it.pop("descr", None)
    o = _Iface()
    o.__array_interface__, o.base = it, base
    return np.asarray(o).view(FakeArray)


def _fake_view(buf, shape, dtype, boff, bstrides):
    # np.ndarray over buf's memory: its base chain leads back to buf (oar.jit's roots)
    return np.ndarray(shape, dtype, buf.view(_ndarray), boff, bstrides).view(FakeArray)


def _host(a):
    return np.array(a.view(_ndarray) if a.__class__ is FakeArray else a, copy=True)


def _to_fake(a):
    if a.__class__ is FakeArray:
        return a.copy()
    return np.array(a, copy=True).view(FakeArray)


def _fake_module():
    """The fake device's array module: numpy, with creation functions making FakeArrays."""
    m = types.ModuleType("oar_fake_xp")
    m.__dict__.update({k: getattr(np, k) for k in dir(np) if not k.startswith("__")})

    def maker(fn):
        def make(*args, **kwargs):
            return fn(*args, **kwargs).view(FakeArray)
        make.__name__ = fn.__name__
        return make
    for name in ("empty", "zeros", "ones", "full", "arange", "eye", "identity", "linspace",
                 "tri", "indices", "ascontiguousarray"):
        setattr(m, name, maker(getattr(np, name)))

    def asarray(a, dtype=None, order=None):
        if a.__class__ is FakeArray:
            return a if dtype is None or a.dtype == dtype else a.astype(dtype)
        return np.asarray(a, dtype=dtype, order=order).view(FakeArray)

    def array(a, dtype=None, copy=True, order="K", ndmin=0):
        return np.array(_unwrap_tree(a), dtype=dtype, copy=copy, order=order,
                        ndmin=ndmin).view(FakeArray)
    def as_strided(a, shape=None, strides=None, **kwargs):
        return np.lib.stride_tricks.as_strided(_unwrap_tree(a), shape, strides,
                                               **kwargs).view(FakeArray)
    m.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=as_strided))
    m.asarray = asarray
    m.array = array
    m.ndarray = FakeArray
    return m


FAKE_XP = _fake_module()
_SAVED = [None]


def enable_fake_device():
    """Test only: a fake GPU (Place(gpu:0), torch 'cuda:0') backed by FakeArray. Returns the
    backend; disable_fake_device() restores the previous state."""
    _SAVED[0] = (_BACKEND[0], _CUPY_TRIED[0])
    _unregister()
    _CUPY_TRIED[0] = True
    b = Backend("fake", FakeArray, Place("gpu", 0), FAKE_XP, _to_fake, _host, 1, _fake_strided)
    b.view = _fake_view
    _register(b)
    return b


def disable_fake_device():
    """Ends enable_fake_device(): the CPU-only state (or the real backend) is back."""
    _unregister()
    prev, tried = _SAVED[0] or (None, False)
    _CUPY_TRIED[0] = tried
    if prev is not None:
        _register(prev)
