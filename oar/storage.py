"""Storage: one root buffer, one version counter, a mutation log, byte accounting."""
from __future__ import annotations

import sys

import numpy as np

from .autograd.saved import user_frame

# Note [Version counter]
# Every tensor that sees the same memory (views, detach(), the tensor itself after in-place
# metadata changes) holds the same Storage, so `storage.version` is the one counter they
# share. Every mutation bumps it exactly once per call (autograd/inplace.py `bump`, Note
# [Version bump]). Saved tensors (autograd/saved.py `SavedTensor`, Note [Saved tensors are
# versioned]) record it when saved and compare it at backward.

_allocated = 0
_peak = 0
_trace = None   # a list while tracing: memory_allocated() after every allocation and free


class Storage:
    __slots__ = ("buffer", "nbytes", "version", "owner", "__dict__", "__weakref__")
    # Mutations are logged as (version after, op name, where) only once a SavedTensor has
    # watched this storage: the log exists for error messages (Note [Mutation provenance]).
    watched = False
    mutations = None

    # No __init__: storages are made by new_storage(buffer) (a Python __init__ call costs
    # more on the hot path); it sets buffer, nbytes, version 0 and owner None.

    def __del__(self):
        global _allocated
        _allocated -= self.nbytes
        if _trace is not None:
            _trace.append(_allocated)
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
        return self.buffer.__array_interface__["data"][0]


# Note [Caching allocator]
# Large buffers of dead storages are kept in a pool keyed by (shape, dtype) and handed to
# the next out-of-place op that produces that shape (ops/registry.py fast path), as PyTorch
# does on the GPU: reused pages are already mapped, so the op runs at memory bandwidth
# instead of paying page faults on fresh memory. A buffer is pooled only when nothing but
# the dying storage references it (a NumPy view the user kept would otherwise see it
# change). memory_allocated() counts live tensors; memory_reserved() adds the pool.
POOL_MIN_BYTES = 1 << 20
POOL_MAX_BYTES = 1 << 30
_pool = {}
_pooled = 0


def _give_back(buf):
    global _pooled
    try:
        # references: the storage's attribute, this argument, getrefcount's argument
        if sys.getrefcount(buf) > 3 or not buf.flags.owndata or _pooled + buf.nbytes > POOL_MAX_BYTES:
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
    """Bytes of live storages plus bytes kept in the caching allocator's pool."""
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
    _allocated += n
    if _allocated > _peak:
        _peak = _allocated
    if _trace is not None:
        _trace.append(_allocated)
    return s


_new = object.__new__


def memory_allocated(device=None) -> int:
    """Bytes held by live storages (views count 0)."""
    return _allocated


def max_memory_allocated(device=None) -> int:
    """Peak bytes held by live storages since the last reset."""
    return _peak


def reset_max_memory_allocated(device=None) -> None:
    """Resets the peak of max_memory_allocated() to the bytes held now."""
    global _peak
    _peak = _allocated


reset_peak_memory_stats = reset_max_memory_allocated


def start_trace():
    """Record memory_allocated() after every allocation and free until stop_trace()."""
    global _trace
    _trace = [_allocated]


def stop_trace():
    global _trace
    out, _trace = _trace, None
    return out

