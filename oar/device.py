"""paddle.device: the current device (always the CPU) and memory accounting
(`oar.device.memory_allocated()` etc., counted by oar's own storages)."""
# Note [Only the CPU]
# oar runs on the CPU only. Where a program asks for another device (set_device("gpu"),
# CUDAPlace(0), t.cuda(), device="cuda") the call raises a ValueError that says so in one
# line -- never a tensor that silently stays on the CPU. Queries answer honestly:
# is_compiled_with_cuda() is False, cuda.device_count() is 0, get_device() is 'cpu'.
import re as _re

from .place import CPU as _CPU
from .place import Place as _Place
from .place import _no_device
from .storage import max_memory_allocated, memory_allocated, reset_max_memory_allocated  # noqa: F401
from .storage import empty_cache, memory_reserved, reset_peak_memory_stats  # noqa: F401

_DEVICE_FORMS = "'cpu', 'gpu', 'gpu:x', 'dcu', 'dcu:x', 'xpu', 'xpu:x', 'npu', 'npu:x'"
_ACCELERATORS = {"gpu": "CUDA", "dcu": "CUDA", "xpu": "XPU", "npu": "NPU"}


def get_device():
    """The current device: always 'cpu' (Note [Only the CPU])."""
    return "cpu"


def set_device(device):
    """Selects the device and returns its place: only 'cpu' exists in this build, so
    set_device('cpu') returns CPUPlace() and 'gpu', 'gpu:0', 'xpu'... raise a ValueError
    (Paddle's CPU build raises the same; Note [Only the CPU])."""
    from .autograd.errors import ArgValueError
    if isinstance(device, _Place):
        if device.kind == "cpu":
            return _CPU
        raise _no_device(f"set_device({device!r})")
    if not isinstance(device, str):
        raise ArgValueError(f"set_device(): The device must be a string which is like "
                            f"{_DEVICE_FORMS}, got {type(device).__name__} {device!r:.40}")
    name = device.strip().lower()
    if name == "cpu":
        return _CPU
    m = _re.fullmatch(r"(gpu|dcu|xpu|npu)(:\d+)?", name)
    if m is None:
        raise ArgValueError(f"set_device(): The device must be a string which is like "
                            f"{_DEVICE_FORMS}, got {device!r}")
    raise _no_device(f"set_device({device!r}): The device should not be {device!r}, since oar "
                     f"is not compiled with {_ACCELERATORS[m.group(1)]}", "set_device('cpu')")


def is_compiled_with_cuda():
    """False: this build runs on the CPU only."""
    return False


def is_compiled_with_xpu():
    """False: this build runs on the CPU only."""
    return False


def is_compiled_with_rocm():
    """False: this build runs on the CPU only."""
    return False


def get_all_device_type():
    """The custom device types available: none (Paddle's CPU build returns [] too)."""
    return []


class cuda:  # noqa: N801  (namespace like paddle.device.cuda)
    """paddle.device.cuda-style namespace: memory counters; no CUDA devices in this build."""
    memory_allocated = staticmethod(memory_allocated)
    max_memory_allocated = staticmethod(max_memory_allocated)

    @staticmethod
    def device_count():
        """The number of CUDA devices: 0."""
        return 0

    @staticmethod
    def empty_cache():
        """Nothing to release: there is no CUDA memory."""
        return None
