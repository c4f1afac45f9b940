"""PyTorch's legacy tensor-type constructors: torch.FloatTensor([..]), torch.LongTensor(2, 3),
and isinstance(t, torch.FloatTensor). Old tutorials still use them."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..autograd.errors import ArgTypeError
from ..tensor import Tensor as _CoreTensor
from ._tensor import _TYPE_NAMES, Tensor, as_door


class _LegacyType(type):
    """The metaclass of torch.FloatTensor & co.: calling one builds a tensor of its dtype;
    isinstance() is true for a PyTorch-door tensor of that dtype (as on torch's CPU)."""

    def __call__(cls, *args, device=None):
        from ._runtime import _device, empty, tensor
        _device(device, cls.__name__)
        if not args:
            return empty(0, dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], _CoreTensor):
            src = args[0]
            if src._data.dtype != cls.dtype.np:
                raise TypeError(f"torch.{cls.__name__}(tensor): expected a tensor of dtype "
                                f"{cls.dtype} (got {src.dtype}). Fix: src.to({cls.dtype})")
            return as_door(src.detach())   # an alias sharing memory, as in PyTorch
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) \
                and (len(args) > 1 or not isinstance(args[0], (list, tuple))):
            return empty(*args, dtype=cls.dtype).zero_()   # sizes (zeroed: deterministic)
        if len(args) == 1 and type(args[0]).__name__ == "Size":
            return empty(*args[0], dtype=cls.dtype).zero_()
        if len(args) == 1:
            return tensor(args[0], dtype=cls.dtype)
        raise ArgTypeError(f"torch.{cls.__name__}(): expected sizes (ints) or one sequence of "
                           f"data, got {tuple(type(a).__name__ for a in args)}")

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _legacy_types():
    out = {}
    for np_name, type_name in _TYPE_NAMES.items():
        out[type_name] = _LegacyType(type_name, (), {
            "dtype": _dt.as_dtype(np_name), "__module__": "torch",
            "__doc__": f"torch.{type_name}: a {np_name} tensor (legacy constructor)."})
    return out


globals().update(_legacy_types())
__all__ = list(_TYPE_NAMES.values())
