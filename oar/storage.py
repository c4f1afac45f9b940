"""Storage: one root buffer, one version counter, a mutation log, byte accounting."""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from . import _xp
from .autograd.grad_mode import INFERENCE as _IN_INFERENCE, _INFERENCE
from .autograd.saved import user_frame

# Note [Version counter]
# Every tensor that sees the same memory (views, detach(), the tensor itself after in-place
# metadata changes) holds the same Storage, so `storage.version` is the one counter they
# share. Every mutation bumps it exactly once per call (autograd/inplace.py `bump`, Note
# [Version bump]). Saved tensors (autograd/saved.py `SavedTensor`, Note [Saved tensors are
# versioned]) record it when saved and compare it at backward.

_allocated = 0
_peak = 0
_ndarray = np.ndarray
# None, or a recorder told of every allocation and free: _trace.alloc(storage) after
# new_storage counted it, _trace.free(storage) after Storage.__del__ uncounted it
# (start_trace's _BytesTrace; device.memory_timeline, Note [Memory timeline])
_trace = None


class Storage:
    __slots__ = ("buffer", "nbytes", "version", "owner", "__dict__", "__weakref__")
    buffer: Any   # the root ndarray (NumPy, or CuPy on a GPU)
    nbytes: int
    version: int
    owner: Any
    # Mutations are logged as (version after, op name, where) only while SavedTensors watch
    # this storage (their count): the log exists for error messages (Note [Mutation
    # provenance]).
    watched = 0
    mutations: list | None = None
    inference = False   # made under inference_mode (Note [Inference tensors])

    # No __init__: storages are made by new_storage(buffer) (a Python __init__ call costs
    # more on the hot path); it sets buffer, nbytes, version 0 and owner None.

    def __del__(self):
        global _allocated
        try:
            c = self.buffer.__class__
            if c is not _ndarray and c in _xp._PLACES and self.nbytes:   # Note [Array module per place]
                _device_free(self)
                if _trace is not None:
                    _trace.free(self)
                return
            _allocated -= self.nbytes
        except (TypeError, AttributeError):   # interpreter shutdown: module globals are None
            return
        if _trace is not None:
            _trace.free(self)
        if self.nbytes >= POOL_MIN_BYTES:
            _give_back(self.buffer)

    def log_mutation(self, op_name: str) -> None:
        log = self.mutations
        if log is None:
            log = self.mutations = []
        elif len(log) >= 32:
            del log[:16]
        log.append((self.version, op_name, user_frame()))

    def data_ptr(self) -> int:
        return _xp.data_ptr(self.buffer)

    @property
    def place(self):
        """Where the buffer lives, read from its class (Note [Array module per place])."""
        return _xp.place_of(self.buffer)


# Note [Caching allocator]
# Large buffers of dead storages are kept in a pool keyed by (shape, dtype) and handed to
# the next out-of-place op that produces that shape (ops/registry.py fast path), as PyTorch
# does on the GPU: reused pages are already mapped, so the op runs at memory bandwidth
# instead of paying page faults on fresh memory. A buffer is pooled only when it is
# C-ordered (the taker's result gets row-major strides) and nothing but
# the dying storage references it (a NumPy view the user kept would otherwise see it
# change). memory_allocated() counts live tensors; memory_reserved() adds the pool.
POOL_MIN_BYTES = 1 << 20
POOL_MAX_BYTES = 1 << 30
_pool: dict = {}
_pooled = 0


def _give_back(buf):
    global _pooled
    try:
        # references: the storage's attribute, this argument, getrefcount's argument
        # only C-ordered buffers: a taker writes a result of that shape into it and expects
        # row-major strides (a clone of a transposed tensor owns an F-ordered buffer)
        if (sys.getrefcount(buf) > 3 or buf.__class__ is not _ndarray or not buf.flags.owndata or not buf.flags.c_contiguous
                or _pooled + buf.nbytes > POOL_MAX_BYTES):
            return
        key = (buf.shape, buf.dtype)
        lst = _pool.setdefault(key, [])
        if len(lst) < 4:
            lst.append(buf)
            _pooled += buf.nbytes
    except Exception:   # interpreter shutdown: module globals may be gone
        pass


def take(shape, dtype):
    """A pooled buffer of this shape and dtype, or None."""
    global _pooled
    lst = _pool.get((shape, dtype))
    if not lst:
        return None
    try:
        buf = lst.pop()   # another thread may have emptied the list since the test above
    except IndexError:
        return None
    _pooled -= buf.nbytes
    return buf


def memory_reserved(device=None) -> int:
    """Bytes of live storages plus bytes kept in the caching allocator's pool (on a device:
    its live storages plus what its array module's pool keeps)."""
    if device is not None and getattr(device, "kind", "cpu") != "cpu":
        return _counters(device)[0] + _xp.pool_extra(device)
    return _allocated + _pooled


def empty_cache() -> None:
    """Release the pooled buffers to the system."""
    global _pooled
    _pool.clear()
    _pooled = 0


def new_storage(buffer):
    """Storage(buffer) without the cost of a Python __init__ call (hot path)."""
    global _allocated, _peak
    s = _new(Storage)
    s.buffer = buffer
    n = s.nbytes = buffer.nbytes
    s.version = 0
    s.owner = None
    if _INFERENCE.count and _IN_INFERENCE.enabled:   # Note [Inference tensors]
        s.inference = True
        s.buffer = buffer.view()    # not `is` the tensor's array: no unchecked fast path
    if buffer.__class__ is not _ndarray and buffer.__class__ in _xp._PLACES:
        # told to _trace too: oar.jit records a step on a device (Note [Replay on a device]);
        # start_trace's list counts the CPU only
        _device_alloc(s)
        if _trace is not None:
            _trace.alloc(s)
        return s
    _allocated += n
    if _allocated > _peak:
        _peak = _allocated
    if _trace is not None:
        _trace.alloc(s)
    return s


# Per-device accounting (Note [Array module per place]): a device buffer is counted in its
# place's counters, [allocated, peak], never in the CPU's; it is never pooled here (CuPy has
# its own pool, read by memory_reserved).
_DEVICE: dict = {}


def _device_alloc(s):
    c = _DEVICE.setdefault(s.place, [0, 0])
    c[0] += s.nbytes
    if c[0] > c[1]:
        c[1] = c[0]


def _device_free(s):
    try:
        c = _DEVICE[_xp.place_of(s.buffer)]
    except (KeyError, TypeError, AttributeError):   # backend gone, or interpreter shutdown
        return
    c[0] -= s.nbytes


def _counters(device):
    """The [allocated, peak] counters of a device place (created at zero)."""
    return _DEVICE.setdefault(device, [0, 0])


def reuse_storage(old, buffer):
    """A new Storage over `buffer`, the root ndarray of the dead storage `old`, that takes
    over old's bytes (Note [Temporary elision] in ops/elision.py): version 0, nothing newly
    counted as allocated, and `old` keeps no bytes, so it subtracts none when it goes and
    its buffer is never pooled from it."""
    s = _new(Storage)
    s.buffer = buffer
    s.nbytes = old.nbytes
    old.nbytes = 0
    s.version = 0
    s.owner = None
    if _INFERENCE.count and _IN_INFERENCE.enabled:   # Note [Inference tensors]
        s.inference = True
        s.buffer = buffer.view()
    if _trace is not None:
        _trace.elide(s)
    return s


def alias_storage(storage, array):
    """A Storage of its own over `array`, a window of `storage`'s memory: its own version
    counter, nothing counted as allocated, its buffer never pooled, and `storage` kept alive
    (so that one's buffer is not pooled either while the alias lives). For PyTorch's tensors
    that share memory without being views (torch.unsafe_split's pieces)."""
    s = _new(Storage)
    s.buffer = array
    s.nbytes = 0
    s.version = 0
    s.owner = None
    s.source = storage
    if storage.inference:
        s.inference = True
    if _trace is not None:
        _trace.alloc(s)
    return s


_new = object.__new__


def memory_allocated(device=None) -> int:
    """Bytes held by live storages (views count 0) on `device` (a Place; None: the CPU)."""
    if device is not None and getattr(device, "kind", "cpu") != "cpu":
        return _counters(device)[0]
    return _allocated


def max_memory_allocated(device=None) -> int:
    """Peak bytes held by live storages since the last reset, on `device` (None: the CPU)."""
    if device is not None and getattr(device, "kind", "cpu") != "cpu":
        return _counters(device)[1]
    return _peak


def reset_max_memory_allocated(device=None) -> None:
    """Resets the peak of max_memory_allocated() to the bytes held now."""
    global _peak
    if device is not None and getattr(device, "kind", "cpu") != "cpu":
        c = _counters(device)
        c[1] = c[0]
        return
    _peak = _allocated


reset_peak_memory_stats = reset_max_memory_allocated


class _BytesTrace(list):
    """start_trace()'s recorder: memory_allocated() after every allocation and free."""
    __slots__ = ()

    def alloc(self, storage):
        c = storage.buffer.__class__
        if c is _ndarray or c not in _xp._PLACES:   # the CPU's bytes only
            self.append(_allocated)

    free = elide = alloc   # an elided allocation (reuse_storage) changes no byte


def start_trace():
    """Record memory_allocated() after every allocation and free until stop_trace()."""
    global _trace
    if _trace is not None:
        raise RuntimeError("start_trace(): a trace or memory timeline is already recording")
    _trace = _BytesTrace([_allocated])


def stop_trace():
    """The list start_trace() recorded: memory_allocated() at the start and after every
    allocation and free since."""
    global _trace
    out, _trace = _trace, None
    return list(out) if out is not None else None



# --------------------------------------------------------------------------- storage views
class UntypedStorage:
    """PyTorch's `t.untyped_storage()`: the bytes of the memory a tensor is a window onto
    (shared by its views). data_ptr() is the start of that memory (not the tensor's first
    element), nbytes() and size() its length in bytes; two tensors share memory exactly when
    their storages' data_ptr() are equal. It holds the storage alive, like PyTorch's."""
    __slots__ = ("_storage",)

    def __init__(self, storage):
        self._storage = storage

    def data_ptr(self) -> int:
        """The address of the first byte of the storage."""
        return self._storage.data_ptr()

    def nbytes(self) -> int:
        """The storage's length in bytes."""
        return self._storage.nbytes

    def size(self) -> int:
        """The storage's length in bytes (an untyped storage counts bytes)."""
        return self._storage.nbytes

    def element_size(self) -> int:
        """1: an untyped storage's elements are bytes."""
        return 1

    def __len__(self):
        return self._storage.nbytes

    def _bytes(self):
        return self._storage.buffer.reshape(-1).view(np.uint8)

    def tolist(self):
        """The bytes, as a list of ints."""
        return self._bytes().tolist()

    def __getitem__(self, i):
        return self._bytes()[i].tolist()

    @property
    def device(self):
        """Where the memory lives: the CPU."""
        return "cpu"

    def is_shared(self) -> bool:
        """False: oar's memory is not in shared memory between processes."""
        return False

    def cpu(self):
        """self: the memory is on the CPU."""
        return self

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and other._storage is self._storage

    def __hash__(self):
        return id(self._storage)

    def __repr__(self):
        return (f"{type(self).__name__}(nbytes={self.nbytes()}, data_ptr={hex(self.data_ptr())}, "
                "device=cpu)")


class TypedStorage(UntypedStorage):
    """PyTorch's (deprecated) `t.storage()`: the storage counted in elements of the tensor's
    dtype. size() and len() are element counts, nbytes() bytes; untyped() gives the bytes."""
    __slots__ = ("dtype",)

    def __init__(self, storage, dtype):
        UntypedStorage.__init__(self, storage)
        self.dtype = dtype

    def size(self) -> int:
        """The number of elements of the storage's dtype it holds."""
        return self._storage.nbytes // self.dtype.itemsize

    def element_size(self) -> int:
        """The size of one element in bytes."""
        return self.dtype.itemsize

    def __len__(self):
        return self.size()

    def _elements(self):
        return self._storage.buffer.reshape(-1).view(np.uint8).view(self.dtype.np)

    def tolist(self):
        """The elements, as a list of Python numbers."""
        return self._elements().tolist()

    def __getitem__(self, i):
        return self._elements()[i].tolist()

    def untyped(self):
        """The same memory as an UntypedStorage."""
        return UntypedStorage(self._storage)

    def __eq__(self, other):
        return (isinstance(other, TypedStorage) and other._storage is self._storage
                and other.dtype == self.dtype)

    __hash__ = UntypedStorage.__hash__

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist()[:20])
        more = "\n ..." if self.size() > 20 else ""
        return f"{body}{more}\n[{type(self).__name__}(dtype={self.dtype.name}, size={self.size()})]"
