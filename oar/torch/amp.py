"""torch.amp: autocast on the CPU (Note [Autocast] in oar/ops/registry.py).

`torch.autocast("cpu", dtype=torch.bfloat16)` (also `torch.amp.autocast`, and the deprecated
`torch.cpu.amp.autocast`) is a context manager and a decorator: while it is active, the ops
PyTorch's CPU autocast lists run in the lower-precision dtype (or in float32), the rest on
their operands as they are. oar runs on the CPU only: another device type is disabled with
PyTorch's warning.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.errors import ArgTypeError
from ..ops import registry as _R

__all__ = ["autocast", "is_autocast_available"]

_LOWER = (np.dtype(np.float16), _dt.BFLOAT16_NP)


def is_autocast_available(device_type):
    """Whether autocast works on device_type: only 'cpu' in oar."""
    return device_type == "cpu"


class autocast:  # noqa: N801  (torch.autocast)
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None): runs
    PyTorch's CPU autocast ops in `dtype` (bfloat16 by default) inside the block."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ArgTypeError(f"Expected `device_type` of type `str`, got: "
                               f"`{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = _dt.bfloat16 if dtype is None else _dt.as_dtype(dtype)
        self._enabled = bool(enabled)
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        if device_type != "cpu":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast."
                          if device_type == "cuda" else
                          f"User specified an unsupported autocast device_type "
                          f"'{device_type}'. Disabling autocast.", UserWarning, stacklevel=2)
            self._enabled = False
        elif self._enabled and self.fast_dtype.np not in _LOWER:
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling "
                          "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                          "torch.float16 currently.", UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self):
        st = _R.AUTOCAST
        self._prev = (st.dtype, st.policy)
        if self._enabled:
            st.dtype, st.policy = self.fast_dtype.np, _R.AUTOCAST_POLICY
        elif self.device == "cpu":
            st.dtype, st.policy = None, {}
        return self

    def __exit__(self, exc_type, exc, tb):
        _R.AUTOCAST.dtype, _R.AUTOCAST.policy = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with autocast(self.device, dtype=self.fast_dtype, enabled=self._enabled,
                          cache_enabled=self._cache_enabled):
                return func(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for device_type; with no argument PyTorch asks about CUDA
    (always False in oar)."""
    return device_type == "cpu" and _R.AUTOCAST.dtype is not None


def get_autocast_dtype(device_type):
    """The dtype autocast uses on device_type (bfloat16 on the CPU unless set)."""
    from ._tensor import DTYPES
    d = _R.AUTOCAST.dtype
    return DTYPES[d if d is not None and device_type == "cpu" else _dt.BFLOAT16_NP]


class _CpuAmp:
    """torch.cpu.amp: the deprecated spelling of torch.amp.autocast('cpu', ...)."""

    @staticmethod
    def autocast(enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        return autocast("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class _Cpu:
    """torch.cpu: the CPU device module (its amp.autocast)."""
    amp = _CpuAmp()

    @staticmethod
    def is_available():
        """True: the CPU is always there."""
        return True


cpu = _Cpu()
