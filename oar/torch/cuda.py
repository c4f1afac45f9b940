"""torch.cuda on oar: no CUDA device exists (Note [Only the CPU, PyTorch door]).

Queries answer honestly (is_available() is False, device_count() is 0); seeding and
synchronising have nothing to act on and do nothing, as on PyTorch's CPU build; the memory
counters report oar's own accounting of live tensors (storage.py); anything that would need a
device (current_device, set_device, get_device_name, Stream, ...) raises in one line.
"""
from __future__ import annotations

from .. import storage as _storage
from ..ops.args import DeviceUnavailableError

__all__ = ["is_available", "device_count", "is_initialized", "init", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "synchronize", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "reset_max_memory_allocated", "memory_stats",
           "is_bf16_supported", "is_tf32_supported", "get_arch_list", "get_rng_state_all",
           "set_rng_state_all", "current_device", "set_device", "get_device_name",
           "get_device_properties", "get_device_capability", "get_rng_state", "set_rng_state",
           "initial_seed", "mem_get_info", "current_stream", "default_stream", "Stream", "Event",
           "device", "OutOfMemoryError"]


def _no_cuda(what):
    return DeviceUnavailableError(f"Torch not compiled with CUDA enabled: torch.cuda.{what} needs "
                                  "a CUDA device, and oar runs on the CPU only.")


def is_available():
    """False: oar has no CUDA devices."""
    return False


def device_count():
    """0: oar has no CUDA devices."""
    return 0


def is_initialized():
    """False: there is no CUDA state to initialise."""
    return False


def init():
    """Refused: there is no CUDA to initialise."""
    raise _no_cuda("init()")


def manual_seed(seed):
    """Nothing to seed (no CUDA generator), as on PyTorch's CPU build."""
    int(seed)


def manual_seed_all(seed):
    """Nothing to seed (no CUDA generators), as on PyTorch's CPU build."""
    int(seed)


def seed():
    """Nothing to seed (no CUDA generator)."""


def seed_all():
    """Nothing to seed (no CUDA generators)."""


def synchronize(device=None):
    """Nothing to wait for: oar's kernels have finished when they return."""


def empty_cache():
    """Releases the buffers oar's caching allocator keeps (Note [Caching allocator])."""
    _storage.empty_cache()


def memory_allocated(device=None):
    """Bytes held by live tensors, by oar's own accounting (all on the CPU)."""
    return _storage.memory_allocated()


def max_memory_allocated(device=None):
    """Peak bytes held by live tensors since the last reset (oar's accounting)."""
    return _storage.max_memory_allocated()


def memory_reserved(device=None):
    """Bytes of live tensors plus the caching allocator's pool (oar's accounting)."""
    return _storage.memory_reserved()


max_memory_reserved = memory_reserved


def reset_peak_memory_stats(device=None):
    """Resets the peak of max_memory_allocated() to the bytes held now."""
    _storage.reset_max_memory_allocated()


reset_max_memory_allocated = reset_peak_memory_stats


def memory_stats(device=None):
    """oar's counters in PyTorch's key names."""
    return {"allocated_bytes.all.current": _storage.memory_allocated(),
            "allocated_bytes.all.peak": _storage.max_memory_allocated(),
            "reserved_bytes.all.current": _storage.memory_reserved()}


def is_bf16_supported(including_emulation=True):
    """False: no CUDA device (and oar has no bfloat16)."""
    return False


def is_tf32_supported():
    """False: no CUDA device."""
    return False


def get_arch_list():
    """[]: oar is built for no CUDA architecture."""
    return []


def get_rng_state_all():
    """[]: no CUDA generators."""
    return []


def set_rng_state_all(new_states):
    """Nothing to set (no CUDA generators)."""


def _refuse(name):
    def fn(*args, **kwargs):
        raise _no_cuda(f"{name}()")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Refused: {name} needs a CUDA device, and oar runs on the CPU only."
    return fn


current_device = _refuse("current_device")
set_device = _refuse("set_device")
get_device_name = _refuse("get_device_name")
get_device_properties = _refuse("get_device_properties")
get_device_capability = _refuse("get_device_capability")
get_rng_state = _refuse("get_rng_state")
set_rng_state = _refuse("set_rng_state")
initial_seed = _refuse("initial_seed")
mem_get_info = _refuse("mem_get_info")
current_stream = _refuse("current_stream")
default_stream = _refuse("default_stream")


class Stream:
    """Refused: CUDA streams need a CUDA device."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support (oar runs on the CPU only)")


class Event:
    """Refused: CUDA events need a CUDA device."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.cuda.Event requires CUDA support (oar runs on the CPU only)")


class device:   # noqa: N801  (torch.cuda.device, a context manager)
    """torch.cuda.device(i): selecting a CUDA device is refused on entry."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        raise _no_cuda(f"device({self.idx!r})")

    def __exit__(self, *exc):
        return False


class OutOfMemoryError(RuntimeError):
    """torch.cuda.OutOfMemoryError (never raised by oar: there is no CUDA memory)."""
