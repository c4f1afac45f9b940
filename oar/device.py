"""Memory accounting (`oar.device.memory_allocated()` etc.), counted by oar's own storages."""
from .storage import max_memory_allocated, memory_allocated, reset_max_memory_allocated  # noqa: F401
from .storage import empty_cache, memory_reserved, reset_peak_memory_stats  # noqa: F401


def get_device():
    """The current device: always 'cpu'."""
    return "cpu"


def set_device(device):
    """Selects the device; only 'cpu' is available in this build."""
    if str(device) != "cpu":
        raise ValueError(f"device {device!r} is not available: this build of oar runs on the CPU only")
    return "cpu"


def is_compiled_with_cuda():
    """False: this build runs on the CPU only."""
    return False


class cuda:  # noqa: N801  (namespace like paddle.device.cuda)
    """paddle.device.cuda-style namespace: memory counters; no CUDA devices in this build."""
    memory_allocated = staticmethod(memory_allocated)
    max_memory_allocated = staticmethod(max_memory_allocated)

    @staticmethod
    def device_count():
        """The number of CUDA devices: 0."""
        return 0
