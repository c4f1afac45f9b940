"""Python operators, generated from the op declarations.

`x += y` is in place (PyTorch's semantics; Paddle rebinds the name): aliases see the change.
Reflected operators (`2 - x`) keep the Python number weak for type promotion.
"""
from __future__ import annotations

from ..tensor import Tensor
from .registry import OPS, as_tensor, dispatch, dispatch_inplace, operand

_Number = (int, float, bool)


def _defaults(op):
    return tuple(d for _, d in op.attrs)


def _ok(other):
    return isinstance(other, (Tensor,) + _Number) or hasattr(other, "__array__") or isinstance(other, list)


def _fwd(name):
    op = OPS[name]
    attrs = _defaults(op)

    def f(self, other):
        if not _ok(other):
            return NotImplemented
        return dispatch(op, (self, operand(other)), attrs)
    return f


def _rev(name):
    op = OPS[name]
    attrs = _defaults(op)

    def f(self, other):
        if not _ok(other):
            return NotImplemented
        return dispatch(op, (operand(other), self), attrs)
    return f


def _inp(name, sym):
    op = OPS[name]
    attrs = _defaults(op)

    def f(self, other):
        return dispatch_inplace(op, (self, operand(other)), attrs, sym)
    return f


def _cmp(name):
    op = OPS[name]

    def f(self, other):
        if other is None or not _ok(other):
            return NotImplemented
        return dispatch(op, (self, operand(other)), ())
    return f


for dunder, name, sym in (("add", "add", "+="), ("sub", "sub", "-="), ("mul", "mul", "*="),
                          ("truediv", "div", "/="), ("floordiv", "floor_divide", "//="),
                          ("mod", "remainder", "%="), ("pow", "pow", "**="),
                          ("and", "bitwise_and", "&="), ("or", "bitwise_or", "|="),
                          ("xor", "bitwise_xor", "^=")):
    setattr(Tensor, f"__{dunder}__", _fwd(name))
    setattr(Tensor, f"__r{dunder}__", _rev(name))
    setattr(Tensor, f"__i{dunder}__", _inp(name, sym))

for dunder, name in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less_than"),
                     ("le", "less_equal"), ("gt", "greater_than"), ("ge", "greater_equal")):
    setattr(Tensor, f"__{dunder}__", _cmp(name))

_MATMUL = OPS["matmul"]
_MATMUL_ = OPS["matmul_"]
Tensor.__matmul__ = lambda self, other: dispatch(_MATMUL, (self, as_tensor(other)), (False, False))
Tensor.__rmatmul__ = lambda self, other: dispatch(_MATMUL, (as_tensor(other), self), (False, False))
Tensor.__imatmul__ = lambda self, other: dispatch_inplace(_MATMUL_, (self, as_tensor(other)),
                                                          (False, False), "@=")
Tensor.__neg__ = lambda self: dispatch(OPS["neg"], (self,), ())
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: dispatch(OPS["abs"], (self,), ())
Tensor.__invert__ = lambda self: dispatch(OPS["bitwise_not"], (self,), ())
Tensor.__hash__ = lambda self: id(self)
