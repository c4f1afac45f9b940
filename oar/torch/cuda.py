"""torch.cuda on oar. Without a device backend (CuPy and a CUDA device; Note [Array module
per place]) no CUDA device exists (Note [Only the CPU, PyTorch door]): queries answer honestly
(is_available() is False, device_count() is 0); seeding and synchronising have nothing to act
on and do nothing, as on PyTorch's CPU build; the memory counters report oar's own accounting
of live CPU tensors (storage.py); anything that would need a device (current_device,
set_device, get_device_name, Stream, ...) raises in one line. With a backend, the queries,
synchronize, events and the memory counters speak of the GPU (its own counters).
"""
from __future__ import annotations

import time as _time

from .. import _xp
from .. import storage as _storage
from ..ops import random as _random
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
    """Whether a CUDA device can be used (CuPy and a device, or the test-only fake device)."""
    return _xp.backend() is not None


def device_count():
    """The number of CUDA devices (0 without a device backend)."""
    b = _xp.backend()
    return 0 if b is None else b.count


def is_initialized():
    """Whether a CUDA device backend is in use."""
    return _xp.backend() is not None


def init():
    """Refused: there is no CUDA to initialise."""
    raise _no_cuda("init()")


def _stream():
    """The current CUDA device's default random stream (Note [Random streams per place]),
    or None without a device backend."""
    b = _xp.backend()
    return None if b is None else _random.device_stream(b.place)


def manual_seed(seed):
    """Seeds the current CUDA device's default stream (the CPU's is left as it is); without
    a device, nothing to seed, as on PyTorch's CPU build."""
    s = int(seed)
    st = _stream()
    if st is not None:
        st.manual_seed(s)


def manual_seed_all(seed):
    """Seeds every CUDA device's default stream (nothing without a device)."""
    s = int(seed)
    if _xp.backend() is not None:
        _random.seed_devices(s)


def seed():
    """Seeds the current CUDA device's stream non-deterministically (nothing without one)."""
    st = _stream()
    if st is not None:
        st.seed()


def seed_all():
    """Seeds every CUDA device's stream non-deterministically (nothing without one)."""
    st = _stream()
    if st is not None:
        _random.seed_devices(st.seed())


def _initial_seed():
    """The seed of the current CUDA device's default stream."""
    return _stream().initial


def _device_stream(device, op):
    from ..ops.args import device as parse
    p = parse(device if not isinstance(device, int) else f"cuda:{device}", op)
    if p.kind == "cpu" or p != _xp.backend().place:
        raise RuntimeError(f"torch.cuda.{op}({device!r}): oar uses CUDA device 0 only")
    return _random.device_stream(p)


def _get_rng_state(device="cuda"):
    """The state of a CUDA device's default stream, a uint8 CPU tensor (oar's own layout,
    Note [Random streams per place])."""
    from ._tensor import as_door
    from ..tensor import Tensor
    return as_door(Tensor._wrap(_device_stream(device, "get_rng_state").get_state()))


def _set_rng_state(new_state, device="cuda"):
    """Restores a CUDA device's default stream from get_rng_state()."""
    import numpy as np
    from ..tensor import Tensor
    if not isinstance(new_state, Tensor):
        from ..autograd.errors import ArgTypeError
        raise ArgTypeError(f"set_rng_state(): expected a torch.ByteTensor, got "
                           f"{type(new_state).__name__}")
    _device_stream(device, "set_rng_state").set_state(
        np.ascontiguousarray(_xp.to_place(new_state._data, _xp.CPU)))


def synchronize(device=None):
    """Waits for the GPU's queued kernels (nothing to wait for without one: oar's CPU
    kernels have finished when they return)."""
    b = _xp.backend()
    if b is not None and b.name == "cupy":
        b.xp.cuda.Device().synchronize()


def _gpu(device):
    """The GPU Place the memory counters speak of: None without a backend (then the CPU
    counters, as before)."""
    b = _xp.backend()
    if b is None:
        return None
    if device is None:
        return b.place
    from ..ops.args import device as parse
    return parse(device if not isinstance(device, int) else f"cuda:{device}", "torch.cuda")


def empty_cache():
    """Releases the buffers oar's caching allocator keeps (Note [Caching allocator]), and
    CuPy's memory pool's free blocks on a GPU."""
    _storage.empty_cache()
    b = _xp.backend()
    if b is not None and b.name == "cupy":
        b.xp.get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    """Bytes held by live tensors on the GPU, by oar's own accounting (without a GPU: live
    CPU tensors)."""
    return _storage.memory_allocated(_gpu(device))


def max_memory_allocated(device=None):
    """Peak bytes held by live tensors since the last reset (oar's accounting)."""
    return _storage.max_memory_allocated(_gpu(device))


def memory_reserved(device=None):
    """Bytes of live tensors plus what the allocator keeps cached (oar's accounting; on a
    GPU, CuPy's pool)."""
    return _storage.memory_reserved(_gpu(device))


max_memory_reserved = memory_reserved


def reset_peak_memory_stats(device=None):
    """Resets the peak of max_memory_allocated() to the bytes held now."""
    _storage.reset_max_memory_allocated(_gpu(device))


reset_max_memory_allocated = reset_peak_memory_stats


def memory_stats(device=None):
    """oar's counters in PyTorch's key names."""
    return {"allocated_bytes.all.current": memory_allocated(device),
            "allocated_bytes.all.peak": max_memory_allocated(device),
            "reserved_bytes.all.current": memory_reserved(device)}


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
    """The state of every CUDA device's default stream ([] without a device)."""
    if _xp.backend() is None:
        return []
    return [_get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states):
    """Restores every CUDA device's stream from get_rng_state_all() (nothing without one)."""
    states = list(new_states)   # not a sequence: PyTorch's TypeError, device or none
    if _xp.backend() is None:
        return
    for i, st in enumerate(states):
        _set_rng_state(st, i)


def _refuse(name):
    def fn(*args, **kwargs):
        raise _no_cuda(f"{name}()")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Refused: {name} needs a CUDA device, and oar runs on the CPU only."
    return fn


def _with_backend(name, fn):
    """fn where a device backend exists, else the refusal of oar's CPU-only build."""
    refused = _refuse(name)

    def call(*args, **kwargs):
        if _xp.backend() is None:
            return refused(*args, **kwargs)
        return fn(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = fn.__doc__
    return call


def _current_device():
    """The index of the current CUDA device (oar uses device 0)."""
    return _xp.backend().place.index


def _set_device(device):
    """Selects the current CUDA device: only device 0 in this version."""
    from ..ops.args import device as parse
    p = parse(device if not isinstance(device, int) else f"cuda:{device}", "set_device")
    if p.index != 0:
        raise RuntimeError(f"torch.cuda.set_device({device!r}): oar uses CUDA device 0 only")


def _get_device_name(device=None):
    """The CUDA device's name."""
    b = _xp.backend()
    if b.name != "cupy":
        return "oar fake device (tests only)"
    name = b.xp.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else name


current_device = _with_backend("current_device", _current_device)
set_device = _with_backend("set_device", _set_device)
get_device_name = _with_backend("get_device_name", _get_device_name)
get_device_properties = _refuse("get_device_properties")
get_device_capability = _refuse("get_device_capability")
get_rng_state = _with_backend("get_rng_state", _get_rng_state)
set_rng_state = _with_backend("set_rng_state", _set_rng_state)
initial_seed = _with_backend("initial_seed", _initial_seed)
mem_get_info = _refuse("mem_get_info")
current_stream = _refuse("current_stream")
default_stream = _refuse("default_stream")


class Stream:
    """Refused: CUDA streams need a CUDA device."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support (oar runs on the CPU only)")


class Event:
    """torch.cuda.Event for timing GPU work: record(), synchronize(), elapsed_time(end) in
    milliseconds (a CuPy event; the fake device times with the host clock). Refused without
    a device backend."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        b = _xp.backend()
        if b is None:
            raise RuntimeError("torch.cuda.Event requires CUDA support (oar runs on the CPU "
                               "only)")
        self._ev = b.xp.cuda.Event() if b.name == "cupy" else None
        self._t = None

    def record(self, stream=None):
        """Marks this point of the GPU's work."""
        if self._ev is not None:
            self._ev.record()
        else:
            self._t = _time.perf_counter()

    def synchronize(self):
        """Waits until the work before record() has finished."""
        if self._ev is not None:
            self._ev.synchronize()

    def query(self):
        """Whether the work before record() has finished."""
        return self._ev.done if self._ev is not None else True

    def elapsed_time(self, end_event):
        """Milliseconds between this event's record() and end_event's."""
        if self._ev is not None:
            import cupy
            return cupy.cuda.get_elapsed_time(self._ev, end_event._ev)
        return (end_event._t - self._t) * 1000.0


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
