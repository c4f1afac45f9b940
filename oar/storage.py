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
    __slots__ = ("buffer", "nbytes", "version", "owner", "__dict__", "__weakref__")
    # Mutations are logged as (version after, op name, user's file:line) only once a
    # SavedTensor has watched this storage: the log exists for error messages.
    watched = False
    mutations = None

    def __init__(self, buffer: np.ndarray):
        global _allocated, _peak
        self.buffer = buffer
        self.nbytes = buffer.nbytes
        self.version = 0
        self.owner = None   # the backward run that owns this gradient buffer, if any
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
_PKG_DIR = _PKG + "/"
_CORE = tuple(_PKG + p for p in ("/ops/", "/autograd/", "/tensor.py", "/storage.py"))


class Where:
    """Where a mutation was made (Note [Mutation provenance]): the user's file:line and, when
    the user's line called into oar (an optimizer's step, an nn layer, nn.init), the oar
    function that made the change. Formatted only when an error message needs it."""
    __slots__ = ("file", "line", "module", "qualname")

    def __init__(self, file, line, module=None, qualname=None):
        self.file = file
        self.line = line
        self.module = module
        self.qualname = qualname

    def __str__(self):
        return f"{self.file}:{self.line}"

    def inside(self):
        """'oar.nn.ReLU.forward': the public spelling of the oar function, or None."""
        if self.qualname is None:
            return None
        module, qual = self.module or "oar", self.qualname
        head = qual.split(".", 1)[0]
        obj = getattr(sys.modules.get(module), head, None)
        parts = module.split(".")
        for k in range(1, len(parts)):   # the shortest package that exports it
            parent = ".".join(parts[:k])
            if obj is not None and getattr(sys.modules.get(parent), head, None) is obj:
                module = parent
                break
        return f"{module}.{qual}"

    def describe(self):
        inside = self.inside()
        return (f" (inside {inside})" if inside else "") + f" at {self}"

    def __repr__(self):
        return f"Where({self.describe().strip()!r})"


def user_frame():
    """Note [Mutation provenance]: the first frame outside the whole oar package is the
    user's line that called into oar; the oar function named is the innermost method of an
    oar layer above the core (e.g. ReLU.forward, Optimizer.step), else the innermost oar
    function above the core (e.g. nn.functional.dropout). Called only for watched storages
    (Storage.log_mutation), so unwatched mutations pay nothing."""
    f = sys._getframe(1)
    inner = None
    method = None
    while f is not None:
        code = f.f_code
        fn = code.co_filename
        if fn.startswith(_CORE) or fn.startswith("<oar generated"):
            pass
        elif fn.startswith(_PKG_DIR):
            if inner is None:
                inner = f
            if method is None:
                q = code.co_qualname
                if "." in q and "<" not in q:
                    method = f
        elif fn.startswith("<frozen"):   # python -m oar: no user frame above oar's own main
            break
        else:
            named = method or inner
            if named is None:
                return Where(fn, f.f_lineno)
            return Where(fn, f.f_lineno, named.f_globals.get("__name__"),
                         named.f_code.co_qualname)
        f = f.f_back
    if inner is not None:
        return Where(inner.f_code.co_filename, inner.f_lineno)
    return "<unknown>"
