"""oar.torch.Tensor: the core Tensor with PyTorch's meaning where the frameworks differ.

Note [Result class] (oar/tensor.py) says how a tensor made through this door stays one:
every op returns the result class of its first tensor operand.
"""
from __future__ import annotations

from ..tensor import FAST_CLASSES
from ..tensor import Tensor as _CoreTensor
from ..nn.layers import Parameter as _CoreParameter


class Tensor(_CoreTensor):
    """A tensor of the PyTorch door: methods mean what they mean in PyTorch 2.13."""
    __slots__ = ()


Tensor._result_class = Tensor
FAST_CLASSES.add(Tensor)


class Parameter(Tensor, _CoreParameter):
    """torch.nn.Parameter: a leaf tensor that requires grad, registered by Modules."""
    __slots__ = ()
    _result_class = Tensor


def as_door(t):
    """t as a tensor of this door (the same object, its class changed): for fresh results of
    core functions that take no tensor operand (creation functions)."""
    if isinstance(t, _CoreTensor) and t.__class__ is _CoreTensor:
        t.__class__ = Tensor
    return t
