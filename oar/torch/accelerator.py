"""torch.accelerator on oar: there is none (oar runs on the CPU only)."""
from __future__ import annotations

from .. import storage as _storage

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "current_device_idx", "set_device_index", "set_device_idx", "synchronize",
           "empty_cache", "memory_allocated", "max_memory_allocated",
           "reset_peak_memory_stats"]


def is_available():
    """False: oar has no accelerator."""
    return False


def current_accelerator(check_available=False):
    """None: oar has no accelerator."""
    return None


def device_count():
    """0: oar has no accelerator."""
    return 0


def _none_available(name):
    def fn(*args, **kwargs):
        raise RuntimeError(f"Cannot access accelerator device when none is available. "
                           f"(torch.accelerator.{name}(): oar runs on the CPU only.)")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Refused, as in PyTorch without an accelerator: {name} needs one."
    return fn


current_device_index = _none_available("current_device_index")
current_device_idx = _none_available("current_device_idx")
set_device_index = _none_available("set_device_index")
set_device_idx = _none_available("set_device_idx")
synchronize = _none_available("synchronize")


def empty_cache():
    """Releases the buffers oar's caching allocator keeps."""
    _storage.empty_cache()


def memory_allocated(device_index=None):
    """Bytes held by live tensors (oar's accounting, on the CPU)."""
    return _storage.memory_allocated()


def max_memory_allocated(device_index=None):
    """Peak bytes held by live tensors (oar's accounting)."""
    return _storage.max_memory_allocated()


def reset_peak_memory_stats(device_index=None):
    """Resets the peak to the bytes held now."""
    _storage.reset_max_memory_allocated()
