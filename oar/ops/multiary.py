"""Ops over a list or pair of whole tensors (Paddle's): add_n sums a list of same-shape
tensors, equal_all says whether two tensors are equal everywhere."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor, wrap_as
from . import args as _args
from . import registry


class _OperandDTypeError(_args.ArgTypeError, ValueError):
    """Operands of different dtypes (Paddle: ValueError; oar: TypeError too)."""


def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (no broadcasting): a
    new tensor, differentiable in each input."""
    op = "add_n"
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)):
        raise _args.ArgTypeError(f"{op}(): inputs must be a list of Tensors, got "
                                 f"{type(inputs).__name__}")
    if not inputs:
        raise _args.ArgValueError(f"{op}(): inputs must be a non-empty list of Tensors, got an "
                                  "empty list")
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise _args.ArgTypeError(f"{op}(): inputs[{i}] must be a Tensor, got "
                                     f"{type(t).__name__}")
    first = inputs[0]
    for i, t in enumerate(inputs[1:], 1):
        if t.shape != first.shape:
            raise _args.ArgValueError(f"{op}(): the input tensors must have the same shape, but "
                                      f"inputs[0] is {list(first.shape)} and inputs[{i}] is "
                                      f"{list(t.shape)}")
        if t.dtype != first.dtype:
            raise _OperandDTypeError(f"{op}(): the input tensors must have the same dtype, but "
                                     f"inputs[0] is {first.dtype.name} and inputs[{i}] is "
                                     f"{t.dtype.name}")
    if len(inputs) == 1:
        return first.clone()
    out = first + inputs[1]
    for t in inputs[2:]:
        out = out + t
    return out


def equal_all(x, y, name=None):
    """A 0-d bool tensor: whether x and y have the same shape and equal elements (nan is not
    equal to itself). x and y must have the same dtype."""
    op = "equal_all"
    x = _args.tensor(x, op, "x")
    y = _args.tensor(y, op, "y")
    if x.dtype != y.dtype:
        raise _OperandDTypeError(f"{op}(): x and y must have the same dtype, got "
                                 f"{x.dtype.name} and {y.dtype.name}")
    same = x._data.shape == y._data.shape and bool(np.array_equal(x._data, y._data))
    return wrap_as(x._result_class, np.asarray(same))


registry.register_function("add_n", add_n, method=False)
registry.register_function("equal_all", equal_all)
