"""Pointwise ops. Kernel signature: kernel(out, rdt, *operands, *attrs) -> array.

`out` is None (allocate) or the array to write (in-place / out=); `rdt` is the promoted
result dtype (ops/registry.py pointwise_dtype). Backward formulas are written in oar ops so
that create_graph works; OpNode reduces broadcast gradients to input shapes.
"""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import is_grad_enabled as _grad_enabled
from ..tensor import Tensor
from .registry import OpDef, declare, float_result


# Note [Fast path] kernels: exact for same-dtype floating operands and default attrs
FAST_KERNELS = dict((("exp", np.exp), ("sqrt", np.sqrt), ("tanh", np.tanh), ("expm1", np.expm1),
                     ("log", np.log), ("log2", np.log2), ("log10", np.log10), ("log1p", np.log1p),
                     ("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("asin", np.arcsin),
                     ("acos", np.arccos), ("atan", np.arctan), ("sinh", np.sinh), ("cosh", np.cosh),
                     ("abs", np.abs), ("square", np.square), ("neg", (np.multiply, -1)),
                     ("floor", np.floor), ("ceil", np.ceil), ("round", np.rint), ("trunc", np.trunc),
                     ("sign", np.sign), ("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                     ("div", np.true_divide), ("pow", np.power), ("maximum", np.maximum),
                     ("minimum", np.minimum), ("remainder", np.remainder),
                     ("floor_divide", np.floor_divide),
                     ("relu", (np.maximum, 0)),   # a ufunc and a constant operand
                     ("equal", np.equal), ("not_equal", np.not_equal), ("greater_than", np.greater),
                     ("greater_equal", np.greater_equal), ("less_than", np.less),
                     ("less_equal", np.less_equal)))


def P(name, kernel, backward=None, save=None, save_out=(), inputs=("x",), attrs=(),
      inplace=True, result_dtype=None, aliases=(), method=True, fast=None):
    op = OpDef(name, kernel, backward, save=save, save_out=save_out, kind="pointwise",
               inputs=inputs, attrs=attrs, inplace=inplace, result_dtype=result_dtype,
               method=method, fast=fast or FAST_KERNELS.get(name))
    if isinstance(op.fast, tuple):
        op.fast, op.fast_const = op.fast[0], op.fast[1:]
    declare(op, aliases=aliases)
    return op


def u(uf):
    def k(out, rdt, x):
        return uf(x, out=out, dtype=rdt)
    k.__doc__ = f"Elementwise {uf.__name__}."
    return k


def b(uf):
    def k(out, rdt, x, y):
        return uf(x, y, out=out, dtype=rdt)
    k.__doc__ = f"Elementwise {uf.__name__}, with broadcasting."
    return k


def _bool_result(rdt):
    return np.dtype(np.bool_)


# ---------------------------------------------------------------- unary, backward needs result
P("exp", u(np.exp), lambda c, g: (g * c.out,), save_out=(0,), result_dtype=float_result)
P("sqrt", u(np.sqrt), lambda c, g: (g / (c.out * 2),), save_out=(0,), result_dtype=float_result)
P("rsqrt", lambda out, rdt, x: np.divide(1, np.sqrt(x, dtype=rdt), out=out, dtype=rdt),
  lambda c, g: (g * c.out ** 3 * -0.5,), save_out=(0,), result_dtype=float_result)
P("tanh", u(np.tanh), lambda c, g: (g * (1 - c.out * c.out),), save_out=(0,),
  result_dtype=float_result)


def _sigmoid(out, rdt, x):
    if out is None:          # several steps in place: never let a 0-d result become a scalar
        out = np.empty(np.shape(x), rdt)
    r = np.multiply(x, -1, out=out, dtype=rdt)   # not np.negative: Note [NumPy 2.4 negative]
    np.exp(r, out=r)
    r += 1
    return np.reciprocal(r, out=r)


P("sigmoid", _sigmoid, lambda c, g: (g * c.out * (1 - c.out),), save_out=(0,),
  result_dtype=float_result)
def _relu_back(c, g):
    if c.may_overwrite(g) and not _grad_enabled():
        gd = g._data      # in place into the gradient the engine owns: no new buffer
        np.multiply(gd, c.out._data > 0, out=gd)
        return (g,)
    return (g * (c.out > 0),)


P("relu", lambda out, rdt, x: np.maximum(x, 0, out=out, dtype=rdt), _relu_back, save_out=(0,))
P("reciprocal", lambda out, rdt, x: np.divide(1, x, out=out, dtype=rdt),
  lambda c, g: (-g * c.out * c.out,), save_out=(0,), result_dtype=float_result)
P("expm1", u(np.expm1), lambda c, g: (g * (c.out + 1),), save_out=(0,), result_dtype=float_result)

# ---------------------------------------------------------------- unary, backward needs input
P("log", u(np.log), lambda c, g: (g / c.input(0),), save={0: (0,)}, result_dtype=float_result)
P("log2", u(np.log2), lambda c, g: (g / (c.input(0) * float(np.log(2))),), save={0: (0,)},
  result_dtype=float_result)
P("log10", u(np.log10), lambda c, g: (g / (c.input(0) * float(np.log(10))),), save={0: (0,)},
  result_dtype=float_result)
P("log1p", u(np.log1p), lambda c, g: (g / (c.input(0) + 1),), save={0: (0,)},
  result_dtype=float_result)
P("sin", u(np.sin), lambda c, g: (g * c.input(0).cos(),), save={0: (0,)},
  result_dtype=float_result)
P("cos", u(np.cos), lambda c, g: (-g * c.input(0).sin(),), save={0: (0,)},
  result_dtype=float_result)
P("tan", u(np.tan), lambda c, g: (g / c.input(0).cos().square(),), save={0: (0,)},
  result_dtype=float_result)
P("asin", u(np.arcsin), lambda c, g: (g / (1 - c.input(0).square()).sqrt(),), save={0: (0,)},
  result_dtype=float_result)
P("acos", u(np.arccos), lambda c, g: (-g / (1 - c.input(0).square()).sqrt(),), save={0: (0,)},
  result_dtype=float_result)
P("atan", u(np.arctan), lambda c, g: (g / (1 + c.input(0).square()),), save={0: (0,)},
  result_dtype=float_result)
P("sinh", u(np.sinh), lambda c, g: (g * c.input(0).cosh(),), save={0: (0,)},
  result_dtype=float_result)
P("cosh", u(np.cosh), lambda c, g: (g * c.input(0).sinh(),), save={0: (0,)},
  result_dtype=float_result)
P("abs", u(np.abs), lambda c, g: (g * c.input(0).sign(),), save={0: (0,)})
P("square", u(np.square), lambda c, g: (g * c.input(0) * 2,), save={0: (0,)})

# ---------------------------------------------------------------- unary, gradient needs nothing
def _neg(out, rdt, x):
    # Note [NumPy 2.4 negative]: np.negative writing into a strided output reads the wrong
    # elements for some strides (float32 step 4, float64 step 8; found by the random
    # programs against torch). x * -1 is the same number in every case (-0.0, integer wrap).
    return np.multiply(x, -1, out=out, dtype=rdt)


P("neg", _neg, lambda c, g: (-g,), aliases=("negative",))
_zero_grad = lambda c, g: (g * 0,)  # noqa: E731  (piecewise-constant functions)
P("floor", u(np.floor), _zero_grad)
P("ceil", u(np.ceil), _zero_grad)
P("round", u(np.rint), _zero_grad)
P("trunc", u(np.trunc), _zero_grad)
P("sign", u(np.sign), _zero_grad)


def _scale(out, rdt, x, scale, bias, bias_after_scale):
    if out is None:
        out = np.empty(np.shape(x), rdt)
    if bias_after_scale:
        r = np.multiply(x, scale, out=out, dtype=rdt)
        if bias:
            np.add(r, bias, out=r)
        return r
    r = np.add(x, bias, out=out, dtype=rdt)
    return np.multiply(r, scale, out=r)


P("scale", _scale, lambda c, g: (g * c.attrs[0],),
  attrs=(("scale", 1.0), ("bias", 0.0), ("bias_after_scale", True)))


def _clip(out, rdt, x, lo, hi):
    if lo is None and hi is None:
        raise ValueError("clip: at least one of min and max must be given")
    return np.clip(x, lo, hi, out=out, dtype=rdt) if out is not None else np.clip(x, lo, hi).astype(rdt, copy=False)


def _clip_back(c, g):
    x = c.input(0)
    lo, hi = c.attrs
    mask = None
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        m2 = x <= hi
        mask = m2 if mask is None else mask & m2
    return (g * mask,)


P("clip", _clip, _clip_back, save={0: (0,)}, attrs=(("min", None), ("max", None)),
  aliases=("clamp",))

# ---------------------------------------------------------------- binary
P("add", lambda out, rdt, x, y, alpha: np.add(x, y if alpha == 1 else np.multiply(y, alpha), out=out, dtype=rdt),
  lambda c, g: (g, g if c.attrs[0] == 1 else g * c.attrs[0]),
  inputs=("x", "y"), attrs=(("alpha", 1),))
P("sub", lambda out, rdt, x, y, alpha: np.subtract(x, y if alpha == 1 else np.multiply(y, alpha), out=out, dtype=rdt),
  lambda c, g: (g, -g if c.attrs[0] == 1 else g * -c.attrs[0]),
  inputs=("x", "y"), attrs=(("alpha", 1),), aliases=("subtract",))
def _mul_back(c, g):
    if c.needs[0] and not c.needs[1]:
        y = c.input(1)
        yd = y._data if isinstance(y, Tensor) else y
        if (c.may_overwrite(g) and not _grad_enabled() and
                (not isinstance(y, Tensor) or yd.shape == g._data.shape or yd.ndim == 0)):
            np.multiply(g._data, yd, out=g._data, casting="same_kind")   # reuse the owned buffer
            return g, None
        return g * y, None
    return (g * c.input(1) if c.needs[0] else None, g * c.input(0) if c.needs[1] else None)


P("mul", b(np.multiply), _mul_back, save={0: (1,), 1: (0,)}, inputs=("x", "y"),
  aliases=("multiply",))


def _div_back(c, g):
    y = c.input(1)
    gx = g / y
    return (gx if c.needs[0] else None, -gx * c.input(0) / y if c.needs[1] else None)


P("div", b(np.true_divide), _div_back, save={0: (1,), 1: (0, 1)}, inputs=("x", "y"),
  result_dtype=float_result, aliases=("divide", "true_divide"))
P("floor_divide", b(np.floor_divide), lambda c, g: (g * 0, g * 0), inputs=("x", "y"))
P("remainder", b(np.remainder),
  lambda c, g: (g, -g * (c.input(0) / c.input(1)).floor() if c.needs[1] else None),
  save={1: (0, 1)}, inputs=("x", "y"), aliases=("mod", "floor_mod"))


def _pow_back(c, g):
    x = c.input(0)
    gx = gy = None
    if c.needs[0]:
        y = c.input(1)
        gx = g * y * x ** (y - 1)
    if c.needs[1]:
        gy = g * c.out * (x.log() if hasattr(x, "log") else float(np.log(x)))
    return gx, gy


P("pow", b(np.power), _pow_back, save={0: (0, 1), 1: (0,)}, save_out=(1,),
  inputs=("x", "y"))
P("maximum", b(np.maximum),
  lambda c, g: (g * (c.input(0) >= c.input(1)), g * (c.input(0) < c.input(1))),
  save={0: (0, 1), 1: (0, 1)}, inputs=("x", "y"), inplace=False, aliases=("fmax",))
P("minimum", b(np.minimum),
  lambda c, g: (g * (c.input(0) <= c.input(1)), g * (c.input(0) > c.input(1))),
  save={0: (0, 1), 1: (0, 1)}, inputs=("x", "y"), inplace=False, aliases=("fmin",))

# ---------------------------------------------------------------- comparisons / logic (no grad)
for _name, _uf, _al in (("equal", np.equal, ("eq",)), ("not_equal", np.not_equal, ("ne",)),
                        ("greater_than", np.greater, ("gt", "greater")),
                        ("greater_equal", np.greater_equal, ("ge",)),
                        ("less_than", np.less, ("lt", "less")),
                        ("less_equal", np.less_equal, ("le",)),
                        ("logical_and", np.logical_and, ()), ("logical_or", np.logical_or, ()),
                        ("logical_xor", np.logical_xor, ())):
    P(_name, (lambda uf: lambda out, rdt, x, y: uf(x, y, out=out))(_uf), None,
      inputs=("x", "y"), inplace=False, result_dtype=_bool_result, aliases=_al)
P("logical_not", lambda out, rdt, x: np.logical_not(x, out=out), None, inplace=False,
  result_dtype=_bool_result)
P("isnan", lambda out, rdt, x: np.isnan(x, out=out), None, inplace=False, result_dtype=_bool_result)
P("isinf", lambda out, rdt, x: np.isinf(x, out=out), None, inplace=False, result_dtype=_bool_result)
P("isfinite", lambda out, rdt, x: np.isfinite(x, out=out), None, inplace=False,
  result_dtype=_bool_result)
for _name, _uf in (("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                   ("bitwise_xor", np.bitwise_xor)):
    P(_name, b(_uf), None, inputs=("x", "y"))
P("bitwise_not", u(np.invert), None)

# ---------------------------------------------------------------- ternary and masked
def _where_k(out, rdt, x, cond, y):
    if out is None:
        return np.where(cond, x, y).astype(rdt, copy=False)
    np.copyto(out, y, where=~np.asarray(cond, dtype=bool), casting="same_kind")
    if out is not x:
        np.copyto(out, x, where=np.asarray(cond, dtype=bool), casting="same_kind")
    return out


WHERE = P("where_self", _where_k,
          lambda c, g: (g * c.input(1), None, g * ~c.input(1) if c.needs[2] else None),
          save={0: (1,), 2: (1,)}, inputs=("x", "condition", "y"), method=False)


def _masked_fill_k(out, rdt, x, mask, value):
    if out is None:
        out = np.array(x, dtype=rdt)
    np.copyto(out, value, where=np.asarray(mask, dtype=bool), casting="unsafe")
    return out


MASKED_FILL = P("masked_fill", _masked_fill_k,
                lambda c, g: (g * ~c.input(1), None,
                              (g * c.input(1)).sum() if c.needs[2] else None),
                save={0: (1,), 2: (1,)}, inputs=("x", "mask", "value"))

