"""DLPack: zero-copy exchange of tensors with NumPy, PyTorch and any other DLPack library.

`paddle.utils.dlpack` spellings: `to_dlpack(x)` gives a capsule, `from_dlpack(obj)` a tensor
over the memory of `obj` (anything with `__dlpack__`: an ndarray, a torch tensor, an oar
tensor) or of a capsule. `oar.Tensor.__dlpack__` / `__dlpack_device__` are the protocol's
producer side (they call `export` below), so `np.from_dlpack(t)` and `torch.from_dlpack(t)`
read an oar tensor without a copy. The PyTorch door's spellings are in
oar/torch/utils/dlpack.py; they differ only in the class of the tensors they make.
The rules: Note [Memory shared outside oar] below.
"""
from __future__ import annotations

import ctypes
import enum

import numpy as np
from numpy.lib.array_utils import byte_bounds as _byte_bounds

from .. import dtypes as _dt
from ..autograd.errors import ArgTypeError
from ..tensor import Tensor, wrap_as

__all__ = ["to_dlpack", "from_dlpack", "DLDeviceType"]

# Note [Memory shared outside oar]
# DLPack shares memory the way the PyTorch door's numpy() / from_numpy() do (Note [Shared memory
# with NumPy] in oar/torch/_functions.py): writes by the other library land in the tensor's
# storage without passing through oar, so they bypass the version counter (Note [Version
# counter]) exactly as they bypass PyTorch's. A tensor saved for backward and then changed
# through the other library is not detected. The rules of the exchange, each checked before any
# capsule or tensor is made:
# - export (`__dlpack__`, `to_dlpack`): a tensor that requires grad is refused by `__dlpack__`
#   with PyTorch's and Paddle's BufferError (use `t.detach()`); the legacy `to_dlpack(t)`
#   exports it, as both frameworks do. A tensor with a negative stride (oar's `x[::-1]`) is
#   exported as a contiguous copy when the consumer allows a copy (`copy=None`, the default,
#   or True) and refused with a BufferError for `copy=False`: PyTorch 2.13's from_dlpack
#   aborts the process on negative strides (pytorch issue 188023), and the producer cannot
#   know its consumer. `copy=True` exports a copy; a device other than the CPU is refused.
# - import (`from_dlpack`): the result shares memory with the producer (it is never pooled by
#   the caching allocator: Note [Caching allocator], it does not own its memory). An oar tensor
#   is imported as a detached tensor over the same storage (one version counter, as
#   `detach()`). A read-only producer (a NumPy array with writeable=False, a versioned capsule
#   flagged read-only) is copied on import, because every oar tensor must accept in-place ops;
#   with `copy=False` it is refused. PyTorch 2.13 instead shares read-only memory as writable.
#   Negative strides are imported sharing memory (NumPy and oar both handle them). A capsule
#   can be consumed once; a second use is refused with PyTorch's / Paddle's message. A legacy
#   ("dltensor") capsule, which cannot say "read-only", is imported writable as PyTorch and
#   Paddle import it (NumPy alone marks it read-only).


class DLDeviceType(enum.IntEnum):
    """DLPack's device codes (the ones `__dlpack_device__` may report)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14


CPU_DEVICE = (DLDeviceType.kDLCPU, 0)


class DLPackStreamError(AssertionError, BufferError):
    """A stream passed for a CPU tensor (PyTorch and Paddle raise AssertionError)."""


class DLPackDeviceError(NotImplementedError, BufferError):
    """A device other than the CPU asked for (PyTorch and Paddle: NotImplementedError; the
    array API: BufferError)."""


class DLPackCapsuleError(RuntimeError, ValueError):
    """Not a capsule, or a capsule already consumed (PyTorch RuntimeError, Paddle ValueError)."""


_SUPPORTED = {d.np for d in _dt.ALL}

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]
_CapsuleType = type(np.empty(0).__dlpack__())


# --------------------------------------------------------------------------- export
def _check_export(t, stream, dl_device, copy, fname, allow_grad=False):
    """Everything that refuses an export, before any capsule is made."""
    if not allow_grad and t.requires_grad:
        raise BufferError(f"{fname}: Can't export tensors that require gradient, use "
                          "tensor.detach() (memory shared through DLPack is invisible to "
                          "autograd: Note [Memory shared outside oar])")
    if stream is not None and stream != -1:
        raise DLPackStreamError(f"{fname}: stream should be None on cpu (got stream={stream!r}); "
                                "oar tensors live on the CPU, where DLPack has no streams")
    if dl_device is not None and tuple(dl_device)[:1] != (DLDeviceType.kDLCPU,):
        raise DLPackDeviceError(f"{fname}: dl_device={tuple(dl_device)!r} asks for a device other "
                                "than the CPU (kDLCPU = 1); oar runs on the CPU only. Fix: "
                                "leave dl_device out or pass (1, 0)")
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise ArgTypeError(f"{fname}: copy must be True, False or None, got "
                           f"{type(copy).__name__}")


def _export_array(t, copy):
    """The ndarray whose capsule is exported: the tensor's window, or a contiguous copy when
    it has a negative stride (Note [Memory shared outside oar])."""
    a = t._data
    if a.size and any(s < 0 and n > 1 for s, n in zip(a.strides, a.shape)):
        if copy is False:
            raise BufferError(
                f"__dlpack__: the tensor (shape {list(a.shape)}, strides {list(t.stride())}) has "
                "a negative stride, which DLPack consumers such as PyTorch 2.13 cannot read "
                "(pytorch issue 188023), and copy=False forbids exporting a copy. Fix: pass "
                "copy=None / True, or export t.contiguous()")
        return np.ascontiguousarray(a)
    if not a.size:
        return np.empty(a.shape, a.dtype)   # no element to share; no odd strides to export
    return a


def export(t, stream=None, max_version=None, dl_device=None, copy=None):
    """Tensor.__dlpack__: a DLPack capsule over t's memory (Note [Memory shared outside oar])."""
    if t._data.__class__ is not np.ndarray and t.is_cuda:
        raise BufferError("__dlpack__: exporting a GPU tensor is not supported yet (oar on a "
                          "GPU is new: docs/gpu.md). Fix: export t.cpu()")
    _check_export(t, stream, dl_device, copy, "__dlpack__")
    a = _export_array(t, copy)
    if a is not t._data and copy is None:
        copy = True
    kwargs = {} if max_version is None else {"max_version": tuple(max_version)}
    if copy is not None:
        kwargs["copy"] = bool(copy)
    return a.__dlpack__(**kwargs)


def to_dlpack(x):
    """A legacy ("dltensor") DLPack capsule over x's memory, to be consumed once by any
    from_dlpack (NumPy, PyTorch, Paddle, oar). As in Paddle and PyTorch it exports a tensor
    that requires grad too (its autograd does not see writes: Note [Memory shared outside
    oar]); a tensor with a negative stride is exported as a contiguous copy."""
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"The type of 'x' in to_dlpack must be Tensor, but received "
                           f"{type(x)}.")
    a = _export_array(x, None)
    if not a.flags.writeable:   # legacy capsules cannot say "read-only"
        a = np.array(a)
    return a.__dlpack__()


# --------------------------------------------------------------------------- import
class _FromCapsule:
    """A capsule dressed as a DLPack producer, so np.from_dlpack consumes it."""
    __slots__ = ("capsule",)

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return CPU_DEVICE


def _writable_alias(arr):
    """A writable ndarray over the memory of `arr`, a NumPy import of a legacy ("dltensor")
    capsule. Legacy DLPack cannot say "read-only", so NumPy marks such imports read-only, while
    every producer of legacy capsules (PyTorch's and Paddle's to_dlpack, oar's) shares
    writable memory and their from_dlpack write through it: oar follows the frameworks. The
    alias keeps `arr` (and so the capsule's deleter) alive."""
    lo, hi = _byte_bounds(arr)
    buf = (ctypes.c_char * (hi - lo)).from_address(lo)
    buf._keep = arr
    return np.ndarray(arr.shape, arr.dtype, buffer=buf, strides=arr.strides,
                      offset=arr.__array_interface__["data"][0] - lo)


def _is_cpu(device):
    if device is None:
        return True
    kind = getattr(device, "type", None) or getattr(device, "kind", None) or device
    return isinstance(kind, str) and kind.strip().lower() == "cpu"


def import_(obj, device=None, copy=None, cls=Tensor, fname="from_dlpack"):
    """A `cls` tensor over the memory of obj (Note [Memory shared outside oar])."""
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise ArgTypeError(f"{fname}(): copy must be True, False or None, got "
                           f"{type(copy).__name__}")
    if not _is_cpu(device):
        from ..place import _no_device
        raise _no_device(f"{fname}(device={device!r})", "device='cpu' or leave device out")
    if isinstance(obj, Tensor):
        _check_export(obj, None, None, copy, fname)
        if copy:
            return wrap_as(cls, np.array(obj._data, copy=True))
        return wrap_as(cls, obj._data.view(), obj._storage)   # as detach(): one counter
    if isinstance(obj, _CapsuleType):
        name = _capsule_name(obj)
        if name not in (b"dltensor", b"dltensor_versioned"):
            raise DLPackCapsuleError(
                f"{fname}() received an invalid capsule (named {name.decode()!r}). Note that "
                "DLTensor capsules can be consumed only once, so you might have already "
                "constructed a tensor from it once. Fix: export a new capsule "
                "(to_dlpack(t) / t.__dlpack__()) for each from_dlpack")
        producer = _FromCapsule(obj)
        legacy = name == b"dltensor"
    elif hasattr(obj, "__dlpack__"):
        producer, legacy = obj, False
    else:
        raise DLPackCapsuleError(
            f"{fname}() received an invalid capsule: expected an object with __dlpack__ (an "
            f"oar / PyTorch tensor, a NumPy array) or a DLPack capsule, got "
            f"{type(obj).__name__}. Fix: for lists and numbers use to_tensor / tensor")
    try:
        arr = np.from_dlpack(producer, copy=bool(copy) if copy else None)
    except BufferError as e:
        raise BufferError(f"{fname}(): the producer ({type(obj).__name__}) refused to export: "
                          f"{e}") from e
    except (TypeError, ValueError, RuntimeError) as e:   # e.g. bfloat16: NumPy has none
        raise ArgTypeError(f"{fname}(): cannot read this DLPack tensor of "
                           f"{type(obj).__name__}: {e}. Fix: convert it in the producing library "
                           "to a dtype oar supports (float16/32/64, int8/16/32/64, uint8, bool)"
                           ) from e
    if arr.dtype not in _SUPPORTED:
        raise ArgTypeError(f"{fname}(): dtype {arr.dtype} is not supported by oar (supported: "
                           + ", ".join(d.name for d in _dt.ALL) + "). Fix: convert it in the "
                           "producing library first, e.g. t.to(torch.float32)")
    if legacy and not arr.flags.writeable and arr.size:
        arr = _writable_alias(arr)
    if not arr.flags.writeable:
        if copy is False:
            raise BufferError(
                f"{fname}(): the {type(obj).__name__} is read-only, and an oar tensor must "
                "accept in-place ops, so it can only be imported as a copy, which copy=False "
                "forbids. Fix: pass copy=None / True, or make the producer writable")
        arr = np.array(arr, copy=True)
    return wrap_as(cls, arr)


def from_dlpack(dlpack, *, device=None, copy=None):
    """A tensor over the memory of `dlpack`: an object with `__dlpack__` (a NumPy array, a
    PyTorch or oar tensor) or a DLPack capsule (consumed: use it once). Writes through either
    side are visible to the other and bypass the version counter (Note [Memory shared outside
    oar]). copy=True copies; copy=False never copies (a read-only producer is then refused);
    the default shares and copies only a read-only producer. device: the CPU only."""
    return import_(dlpack, device, copy, Tensor, "from_dlpack")
