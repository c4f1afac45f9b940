"""Python operators, generated from the op declarations.

`x += y` is in place (PyTorch's semantics; Paddle rebinds the name): aliases see the change.
Reflected operators (`2 - x`) keep the Python number weak for type promotion.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import registry as R
from .registry import OPS, as_tensor, dispatch, dispatch_inplace, operand

_Number = (int, float, bool)


def _ok(other):
    return isinstance(other, (Tensor,) + _Number) or hasattr(other, "__array__") or isinstance(other, list)


def _gen(fname, op, mode, sym=None, reflected=False):
    """An operator with Note [Fast path] inlined, falling back to the generic dispatch."""
    env = {"Tensor": Tensor, "_op": op, "_attrs": tuple(d for _, d in op.attrs), "_ok": _ok,
           "_operand": operand, "_dispatch": dispatch, "_dispatch_inplace": dispatch_inplace,
           "_FLOATS": R._FLOATS, "_STATE": R._STATE, "_ndarray": np.ndarray,
           "_asarray": np.asarray, "_wrap": Tensor._wrap, "_fast": op.fast,
           "_take": R._storage.take, "_POOL_MIN": R._storage.POOL_MIN_BYTES,
           "_fast_failed": R._fast_failed}
    for a, d in op.attrs:
        env[f"_D_{a}"] = d
    lines = [f"def {fname}(self, other):"]
    # attrs are the defaults here: bind them as locals for the fast path's checks
    lines += [f"    {a} = _D_{a}" for a, _ in op.attrs]
    if op.fast is not None:
        lines += R.fast_prefix(op, mode, "self", "other", sym, reflected)
    if mode == "inplace":
        lines.append(f"    return _dispatch_inplace(_op, (self, _operand(other)), _attrs, {sym!r})")
    else:
        lines.append("    if not _ok(other): return NotImplemented")
        args = "(_operand(other), self)" if reflected else "(self, _operand(other))"
        lines.append(f"    return _dispatch(_op, {args}, _attrs)")
    ns = {}
    exec(compile("\n".join(lines) + "\n", f"<oar generated {fname}>", "exec"), env, ns)
    return ns[fname]


def _fwd(name):
    return _gen(f"__{name}__", OPS[name], "new")


def _rev(name):
    return _gen(f"__r{name}__", OPS[name], "new", reflected=True)


def _inp(name, sym):
    return _gen(f"__i{name}__", OPS[name], "inplace", sym)


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
