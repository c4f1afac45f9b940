"""Storage: one root buffer, one version counter, byte accounting.

Note [Version counter]
Every tensor that sees the same memory (views, detach(), the tensor itself after in-place
metadata changes) holds the same Storage, so `storage.version` is the one counter they
share. Every mutation bumps it exactly once per call (ops/registry.py `_bump`). Saved
tensors (autograd/node.py `SavedTensor`) record it when saved and compare it at backward.
"""
from __future__ import annotations

import sys

import numpy as np

_allocated = 0
_peak = 0
_trace = None   # a list while tracing: memory_allocated() after every allocation and free


class Storage:
    __slots__ = ("buffer", "nbytes", "version", "__dict__", "__weakref__")
    # Mutations are logged as (version after, op name, user's file:line) only once a
    # SavedTensor has watched this storage: the log exists for error messages.
    watched = False
    mutations = None

    def __init__(self, buffer: np.ndarray):
        global _allocated, _peak
        self.buffer = buffer
        self.nbytes = buffer.nbytes
        self.version = 0
        _allocated += self.nbytes
        if _allocated > _peak:
            _peak = _allocated
        if _trace is not None:
            _trace.append(_allocated)

    def __del__(self):
        global _allocated
        _allocated -= self.nbytes
        if _trace is not None:
            _trace.append(_allocated)

    def log_mutation(self, op_name: str) -> None:
        log = self.mutations
        if log is None:
            log = self.mutations = []
        elif len(log) >= 32:
            del log[:16]
        log.append((self.version, op_name, user_frame()))

    def data_ptr(self) -> int:
        return self.buffer.__array_interface__["data"][0]


def new_storage(buffer):
    """Storage(buffer) without the cost of a Python __init__ call (hot path)."""
    global _allocated, _peak
    s = _new(Storage)
    s.buffer = buffer
    n = s.nbytes = buffer.nbytes
    s.version = 0
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
    return _peak


def reset_max_memory_allocated(device=None) -> None:
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


_PKG = __file__.rsplit("/", 1)[0]
_CORE = tuple(_PKG + p for p in ("/ops/", "/autograd/", "/tensor.py", "/storage.py"))


def user_frame() -> str:
    """file:line of the first frame outside oar's core (ops, autograd, tensor): the user's
    call, or the oar layer (nn, optimizer) that made it."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_CORE) and not fn.startswith("<oar generated"):
            return f"{fn}:{f.f_lineno}"
        f = f.f_back
    return "<unknown>"
