"""torch.utils.dlpack: DLPack exchange for the PyTorch door (tensors made here are
`oar.torch.Tensor`s). The rules, shared with the Paddle door's oar.utils.dlpack: Note [Memory
shared outside oar] (oar/utils/dlpack.py)."""
from __future__ import annotations

from ...utils.dlpack import DLDeviceType, import_, to_dlpack as _to_dlpack
from .._tensor import Tensor

__all__ = ["to_dlpack", "from_dlpack", "DLDeviceType"]


def to_dlpack(tensor):
    """A legacy ("dltensor") DLPack capsule over the tensor's memory, to be consumed once by
    any from_dlpack. As in PyTorch it exports a tensor that requires grad (writes through the
    consumer bypass autograd and the version counter: Note [Memory shared outside oar])."""
    return _to_dlpack(tensor)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """torch.from_dlpack: an `oar.torch.Tensor` over the memory of ext_tensor (anything with
    `__dlpack__`: a NumPy array, a PyTorch or oar tensor) or of a DLPack capsule (consumed:
    use it once). Writes through either side are visible to the other (Note [Memory shared
    outside oar]). copy=True copies, copy=False never copies; a read-only producer is copied
    (refused with copy=False); device: the CPU only."""
    return import_(ext_tensor, device, copy, Tensor, "from_dlpack")
