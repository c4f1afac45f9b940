"""Python operators, built from the op declarations with the templates of ops/spellings.py.

`x += y` is in place (PyTorch's semantics; Paddle rebinds the name): aliases see the change.
Reflected operators (`2 - x`) keep the Python number weak for type promotion.
An operator returns NotImplemented for an operand it cannot use, so Python tries the other
side; `x += y` has no other side and refuses such an operand with the argument layer's error.
"""
from __future__ import annotations

import inspect

from ..tensor import Tensor
from . import spellings as S
from .registry import OPS, as_tensor, dispatch, dispatch_inplace, operand

_PK = inspect.Parameter.POSITIONAL_OR_KEYWORD
_BINARY = inspect.Signature([inspect.Parameter("self", _PK), inspect.Parameter("other", _PK)])


def _operator(fn, dunder, doc, signature=_BINARY):
    return S.describe(fn, dunder, signature, S.paragraphs(doc), qualname=f"Tensor.{dunder}",
                      module=Tensor.__module__)


# The arithmetic operators are spellings.py's (x, y) templates in operator mode (Note
# [Spelling templates]): the same inline fast path as `oar.mul`, then NotImplemented for an
# operand they cannot use, and the op's default attrs (`x + y` is add with alpha=1).
def forward(op, dunder, sym):
    """`x + y`: a new tensor."""
    return _operator(S.new_binary(op, dunder, operator=True), dunder,
                     f"self {sym} other: {op.name}(self, other), a new tensor.")


def reflected(op, dunder, sym):
    """`2 + x`: the number is on the left, so it is the op's first operand."""
    return _operator(S.new_reflected(op), dunder,
                     f"other {sym} self, for a left operand that is not a Tensor: "
                     f"{op.name}(other, self), a new tensor.")


def augmented(op, dunder, sym):
    """`x += y`: in place; the mutation log names it `+=`."""
    spelling_name = sym + "="
    return _operator(S.inplace_binary(op, spelling_name, operator=True), dunder,
                     f"self {spelling_name} other: in place, {op.name}_(self, other). Writes into "
                     "self and returns that same tensor, so the name still refers to it (aliases "
                     "and views see the change).")


def comparison(op, dunder, sym):
    """`x < y`: a bool tensor; any operand the op cannot use gives NotImplemented (so `x == None`
    is False, as for any Python object)."""
    def compare(self, other):
        if other is None or not S.usable_operand(other):
            return NotImplemented
        return dispatch(op, (self, operand(other)), ())
    return _operator(compare, dunder, f"self {sym} other: {op.name}(self, other), a bool tensor.")


for dunder, name, sym in (("add", "add", "+"), ("sub", "sub", "-"), ("mul", "mul", "*"),
                          ("truediv", "div", "/"), ("floordiv", "floor_divide", "//"),
                          ("mod", "remainder", "%"), ("pow", "pow", "**"),
                          ("and", "bitwise_and", "&"), ("or", "bitwise_or", "|"),
                          ("xor", "bitwise_xor", "^"), ("lshift", "bitwise_left_shift", "<<"),
                          ("rshift", "bitwise_right_shift", ">>")):
    setattr(Tensor, f"__{dunder}__", forward(OPS[name], f"__{dunder}__", sym))
    setattr(Tensor, f"__r{dunder}__", reflected(OPS[name], f"__r{dunder}__", sym))
    setattr(Tensor, f"__i{dunder}__", augmented(OPS[name], f"__i{dunder}__", sym))

for dunder, name, sym in (("eq", "equal", "=="), ("ne", "not_equal", "!="),
                          ("lt", "less_than", "<"), ("le", "less_equal", "<="),
                          ("gt", "greater_than", ">"), ("ge", "greater_equal", ">=")):
    setattr(Tensor, f"__{dunder}__", comparison(OPS[name], f"__{dunder}__", sym))

_MATMUL = OPS["matmul"]
_MATMUL_ = OPS["matmul_"]


def __matmul__(self, other):
    """self @ other: matmul(self, other), a new tensor."""
    return dispatch(_MATMUL, (self, as_tensor(other)), (False, False))


def __rmatmul__(self, other):
    """other @ self, for a left operand that is not a Tensor."""
    return dispatch(_MATMUL, (as_tensor(other), self), (False, False))


def __imatmul__(self, other):
    """self @= other: in place, matmul_(self, other); the product must have self's shape."""
    return dispatch_inplace(_MATMUL_, (self, as_tensor(other)), (False, False), "@=")


def __neg__(self):
    """-self: neg(self), a new tensor."""
    return dispatch(OPS["neg"], (self,), ())


def __pos__(self):
    """+self: self itself."""
    return self


def __abs__(self):
    """abs(self): a new tensor."""
    return dispatch(OPS["abs"], (self,), ())


def __invert__(self):
    """~self: bitwise_not(self), a new tensor (logical not for bool)."""
    return dispatch(OPS["bitwise_not"], (self,), ())


def __hash__(self):
    """Tensors hash by identity (== is elementwise)."""
    return id(self)


for _fn in (__matmul__, __rmatmul__, __imatmul__, __neg__, __pos__, __abs__, __invert__, __hash__):
    _fn.__qualname__ = f"Tensor.{_fn.__name__}"
    _fn.__module__ = Tensor.__module__
    setattr(Tensor, _fn.__name__, _fn)
