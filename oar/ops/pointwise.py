"""Pointwise ops. Kernel signature: kernel(out, rdt, *operands, *attrs) -> array.

`out` is None (allocate) or the array to write (in-place / out=); `rdt` is the promoted
result dtype (ops/registry.py pointwise_dtype). Backward formulas are written in oar ops so
that create_graph works; OpNode reduces broadcast gradients to input shapes.
"""
from __future__ import annotations

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from .registry import OpDef, declare, float_result, zero_grad

# Kernels run after the dtype checks (autograd/inplace.py check_pointwise_inplace, Note
# [In-place shape and dtype]; dispatch_out) that use PyTorch's canCast: `uint8 += int64` and
# `float32 += float64` are legal, float into int is not. So they cast their result unsafely
# into `out`, as TensorIterator does.
_UNSAFE = "unsafe"


# Note [Fast path] kernels: exact for same-dtype floating operands and default attrs
FAST_KERNELS = dict((("exp", np.exp), ("sqrt", np.sqrt), ("tanh", np.tanh), ("expm1", np.expm1),
                     ("log", np.log), ("log2", np.log2), ("log10", np.log10), ("log1p", np.log1p),
                     ("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("asin", np.arcsin),
                     ("acos", np.arccos), ("atan", np.arctan), ("sinh", np.sinh), ("cosh", np.cosh),
                     ("abs", np.abs), ("square", np.square), ("neg", (np.multiply, -1)),
                     ("floor", np.floor), ("ceil", np.ceil), ("round", np.rint), ("trunc", np.trunc),
                     ("sign", np.sign), ("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                     ("div", np.true_divide), ("maximum", np.maximum),
                     ("minimum", np.minimum), ("remainder", np.remainder),
                     ("floor_divide", np.floor_divide),
                     ("relu", (np.maximum, 0)),   # a ufunc and a constant operand
                     ("equal", np.equal), ("not_equal", np.not_equal), ("greater_than", np.greater),
                     ("greater_equal", np.greater_equal), ("less_than", np.less),
                     ("less_equal", np.less_equal)))


def pointwise_op(name, kernel, backward=None, needs=None, inputs=("x",), attrs=(),
                 backward_inplace=None, inplace=True, result_dtype=None, aliases=(), method=True, fast=None, check=None,
                 number_attrs=None, promote=None, doc=None):
    """Declare a pointwise op. `check(op_name, args, attrs, rdt)` (optional) runs before any
    allocation or write on the generic path (Note [Check, then write]); the fast path never
    needs it (floating operands, default attrs). `promote`: indices of the operands whose
    dtypes decide the result (default: all; where: not the condition). `needs`: what each
    input's gradient needs, by name (OpDef)."""
    op = OpDef(name, kernel, backward, needs=needs, kind="pointwise",
               backward_inplace=backward_inplace,
               inputs=inputs, attrs=attrs, inplace=inplace, result_dtype=result_dtype,
               method=method, fast=fast or FAST_KERNELS.get(name), check=check,
               number_attrs=number_attrs, promote=promote, doc=doc)
    if isinstance(op.fast, tuple):
        op.fast, op.fast_const = op.fast[0], op.fast[1:]
    declare(op, aliases=aliases)
    return op


def unary_kernel(uf):
    def k(out, rdt, x):
        return uf(x, out=out, dtype=rdt, casting=_UNSAFE)
    k.__doc__ = f"Elementwise {uf.__name__}."
    return k


def binary_kernel(uf):
    def k(out, rdt, x, y):
        return uf(x, y, out=out, dtype=rdt, casting=_UNSAFE)
    k.__doc__ = f"Elementwise {uf.__name__}, with broadcasting."
    return k


def _bool_result(rdt):
    return np.dtype(np.bool_)


# ---------------------------------------------------------------- unary, backward needs result
pointwise_op("exp", unary_kernel(np.exp), lambda ctx, g: (g * ctx.out,), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise e**x.")
pointwise_op("sqrt", unary_kernel(np.sqrt), lambda ctx, g: (g / (ctx.out * 2),), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise square root of x.")
pointwise_op("rsqrt", lambda out, rdt, x: np.divide(1, np.sqrt(x, dtype=rdt, casting=_UNSAFE), out=out, dtype=rdt, casting=_UNSAFE),
  lambda ctx, g: (g * ctx.out ** 3 * -0.5,), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise reciprocal square root, 1 / sqrt(x).")
pointwise_op("tanh", unary_kernel(np.tanh), lambda ctx, g: (g * (1 - ctx.out * ctx.out),), needs={"x": ("out",)},
  result_dtype=float_result, doc="Elementwise hyperbolic tangent of x.")


def _sigmoid(out, rdt, x):
    if out is None:          # several steps in place: never let a 0-d result become a scalar
        out = np.empty(np.shape(x), rdt)
    r = np.multiply(x, -1, out=out, dtype=rdt, casting=_UNSAFE)   # not np.negative: Note [NumPy 2.4 negative]
    np.exp(r, out=r)
    r += 1
    return np.reciprocal(r, out=r)


pointwise_op("sigmoid", _sigmoid, lambda ctx, g: (g * ctx.out * (1 - ctx.out),), needs={"x": ("out",)},
  result_dtype=float_result, doc="Elementwise logistic sigmoid, 1 / (1 + e**-x).")
# Note [Masked gradients select]
# Where an op's gradient is "g here, 0 elsewhere" (relu, clip), it selects instead of
# multiplying by a 0/1 mask, as PyTorch's threshold_backward and clamp_backward do: an inf
# or nan in g stays out of the masked-off elements (inf * 0 would be nan there).
def _relu_back_into(ctx, g):
    # in place into the gradient the engine owns (Note [Backward into the incoming gradient])
    # a bitwise select (AND with an all-ones or all-zeros mask) is about 2x faster than
    # copyto(where=); the masked elements become +0.0, as with copyto
    gd = g._data
    bits = np.dtype(f"i{gd.dtype.itemsize}")
    keep = np.subtract((ctx.out._data <= 0).view(np.int8), 1, dtype=bits)
    np.bitwise_and(gd.view(bits), keep, out=gd.view(bits))
    return (g,)


pointwise_op("relu", lambda out, rdt, x: np.maximum(x, 0, out=out, dtype=rdt, casting=_UNSAFE),
             lambda ctx, g: (_where(ctx.out > 0, g, 0.0),), needs={"x": ("out",)},
             backward_inplace=_relu_back_into, doc="Elementwise max(x, 0).")
pointwise_op("reciprocal", lambda out, rdt, x: np.divide(1, x, out=out, dtype=rdt, casting=_UNSAFE),
  lambda ctx, g: (-g * ctx.out * ctx.out,), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise 1 / x.")
pointwise_op("expm1", unary_kernel(np.expm1), lambda ctx, g: (g * (ctx.out + 1),), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise e**x - 1, accurate near 0.")

# ---------------------------------------------------------------- unary, backward needs input
pointwise_op("log", unary_kernel(np.log), lambda ctx, g: (g / ctx.input(0),), needs={"x": ("x",)}, result_dtype=float_result,
  doc="Elementwise natural logarithm of x.")
pointwise_op("log2", unary_kernel(np.log2), lambda ctx, g: (g / (ctx.input(0) * float(np.log(2))),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise base-2 logarithm of x.")
pointwise_op("log10", unary_kernel(np.log10), lambda ctx, g: (g / (ctx.input(0) * float(np.log(10))),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise base-10 logarithm of x.")
pointwise_op("log1p", unary_kernel(np.log1p), lambda ctx, g: (g / (ctx.input(0) + 1),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise log(1 + x), accurate near 0.")
pointwise_op("sin", unary_kernel(np.sin), lambda ctx, g: (g * ctx.input(0).cos(),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise sine of x (radians).")
pointwise_op("cos", unary_kernel(np.cos), lambda ctx, g: (-g * ctx.input(0).sin(),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise cosine of x (radians).")
pointwise_op("tan", unary_kernel(np.tan), lambda ctx, g: (g / ctx.input(0).cos().square(),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise tangent of x (radians).")
pointwise_op("asin", unary_kernel(np.arcsin), lambda ctx, g: (g / (1 - ctx.input(0).square()).sqrt(),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise arcsine of x.")
pointwise_op("acos", unary_kernel(np.arccos), lambda ctx, g: (-g / (1 - ctx.input(0).square()).sqrt(),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise arccosine of x.")
pointwise_op("atan", unary_kernel(np.arctan), lambda ctx, g: (g / (1 + ctx.input(0).square()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise arctangent of x.")
pointwise_op("sinh", unary_kernel(np.sinh), lambda ctx, g: (g * ctx.input(0).cosh(),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise hyperbolic sine of x.")
pointwise_op("cosh", unary_kernel(np.cosh), lambda ctx, g: (g * ctx.input(0).sinh(),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise hyperbolic cosine of x.")
pointwise_op("abs", unary_kernel(np.abs), lambda ctx, g: (g * ctx.input(0).sign(),), needs={"x": ("x",)},
  doc="Elementwise absolute value |x|.")
pointwise_op("square", unary_kernel(np.square), lambda ctx, g: (g * ctx.input(0) * 2,), needs={"x": ("x",)},
  result_dtype=lambda r: np.dtype(np.int64) if r.kind == "b" else r,   # PyTorch: bool -> int64
  doc="Elementwise x * x.")

# ---------------------------------------------------------------- unary, gradient needs nothing
def _check_neg(op_name, args, attrs, rdt):
    if rdt.kind == "b":
        raise ArgTypeError(f"{op_name}(): Negation, the `-` operator, on a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")


def _neg(out, rdt, x):
    # Note [NumPy 2.4 negative]
    # np.negative writing into a strided output reads the wrong elements for some strides
    # (float32 step 4, float64 step 8; found by the random programs against torch). x * -1
    # is the same number in every case (-0.0, integer wrap).
    if rdt.kind in "iu":   # integers: 0 - x wraps like PyTorch (uint8: -1 -> 255)
        return np.subtract(0, x, out=out, dtype=rdt, casting=_UNSAFE)
    return np.multiply(x, -1, out=out, dtype=rdt, casting=_UNSAFE)


pointwise_op("neg", _neg, lambda ctx, g: (-g,), aliases=("negative",), check=_check_neg, doc="Elementwise -x.")
_zero_grad = lambda ctx, g: (zero_grad(g),)  # noqa: E731  (piecewise-constant functions)
def _exact_for_ints(uf):
    """Rounding (and sign of a bool) is the identity on integer and bool tensors, as in
    PyTorch; NumPy has no integer loops for some of them."""
    k = unary_kernel(uf)

    def kernel(out, rdt, x):
        if rdt.kind in "biu" and (uf is not np.sign or rdt.kind == "b"):
            if out is None:
                return np.array(x, dtype=rdt)
            np.copyto(out, x, casting=_UNSAFE)
            return out
        return k(out, rdt, x)
    kernel.__doc__ = k.__doc__
    return kernel


pointwise_op("floor", _exact_for_ints(np.floor), _zero_grad, doc="Elementwise largest integer <= x.")
pointwise_op("ceil", _exact_for_ints(np.ceil), _zero_grad, doc="Elementwise smallest integer >= x.")
pointwise_op("round", _exact_for_ints(np.rint), _zero_grad,
  doc="Elementwise rounding to the nearest integer (halves to even).")
pointwise_op("trunc", _exact_for_ints(np.trunc), _zero_grad, doc="Elementwise rounding toward zero.")
pointwise_op("sign", _exact_for_ints(np.sign), _zero_grad, doc="Elementwise sign of x: -1, 0 or 1.")


def _scale(out, rdt, x, scale, bias, bias_after_scale):
    if out is None:
        out = np.empty(np.shape(x), rdt)
    if bias_after_scale:
        r = np.multiply(x, scale, out=out, dtype=rdt, casting=_UNSAFE)
        if bias:
            np.add(r, bias, out=r)
        return r
    r = np.add(x, bias, out=out, dtype=rdt, casting=_UNSAFE)
    return np.multiply(r, scale, out=r)


def _no_float_into_int(op_name, rdt, attrs, names, integral_ok=False):
    """An in-place op (name ending in '_') on an integer/bool tensor refuses a floating
    scalar or tensor attribute: PyTorch's "result type Float can't be cast to the desired
    output type Long" (RuntimeError), never a silent truncation. integral_ok: a float with an
    integral value passes (Paddle's scale/bias are float attributes, 1.0 and 0.0 by default)."""
    if not op_name.endswith("_") or rdt.kind not in "biu":
        return
    for v, n in zip(attrs, names):
        if isinstance(v, Tensor):
            bad, what = v._data.dtype.kind in "fc", f"a {v.dtype.name} tensor"
        else:
            bad = isinstance(v, (float, np.floating)) and not (integral_ok and float(v).is_integer())
            what = repr(v)
        if bad:
            raise ArgTypeError(f"{op_name}(): result type Float can't be cast to the desired "
                               f"output type {rdt} ({n}={what}). Fix: pass an integer "
                               f"{n}, or cast the tensor to a floating dtype first.")


def _check_scale(op_name, args, attrs, rdt):
    _no_float_into_int(op_name, rdt, attrs[:2], ("scale", "bias"), integral_ok=True)


pointwise_op("scale", _scale, lambda ctx, g: (g * ctx.attrs[0],),
  attrs=(("scale", 1.0), ("bias", 0.0), ("bias_after_scale", True)), check=_check_scale,
  doc="scale * x + bias (or scale * (x + bias) when bias_after_scale is False).")


def _check_clip(op_name, args, attrs, rdt):
    if attrs[0] is None and attrs[1] is None:
        raise ArgValueError(f"{op_name}(): At least one of 'min' or 'max' must not be None. "
                            "Fix: pass min=, max= or both.")
    _no_float_into_int(op_name, rdt, attrs, ("min", "max"))


def _clip(out, rdt, x, lo, hi):
    return np.clip(x, lo, hi, out=out, dtype=rdt, casting=_UNSAFE) if out is not None else np.clip(x, lo, hi).astype(rdt, copy=False)


def _clip_back(ctx, g):
    x = ctx.input(0)
    lo, hi = ctx.attrs
    mask = None
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        m2 = x <= hi
        mask = m2 if mask is None else mask & m2
    return (_where(mask, g, 0.0),)   # Note [Masked gradients select]


pointwise_op("clip", _clip, _clip_back, needs={"x": ("x",)}, attrs=(("min", None), ("max", None)),
  aliases=("clamp",), check=_check_clip, number_attrs=("min", "max"),
  doc="x clamped elementwise into [min, max] (either bound may be None).")

# ---------------------------------------------------------------- binary
def _check_alpha(op_name, args, attrs, rdt):
    """PyTorch's alpha rules for add/sub (and bool subtraction)."""
    alpha = attrs[0]
    if rdt.kind in "biu" and isinstance(alpha, float):
        raise ArgTypeError(f"{op_name}(): For integral input tensors, argument alpha must not "
                           f"be a floating point number (alpha={alpha!r}, result dtype {rdt}). "
                           "Fix: cast the tensors to a floating dtype first.")
    if rdt.kind != "b" and isinstance(alpha, bool):
        raise ArgTypeError(f"{op_name}(): Boolean alpha only supported for Boolean results "
                           f"(result dtype {rdt}).")
    if op_name.startswith(("sub", "-")) and rdt.kind == "b":
        raise ArgTypeError(f"{op_name}(): Subtraction, the `-` operator, with two bool tensors "
                           "is not supported. If you are trying to invert a mask, use the `~` "
                           "or `logical_not()` operator instead.")


pointwise_op("add", lambda out, rdt, x, y, alpha: np.add(x, y if alpha == 1 else np.multiply(y, alpha), out=out, dtype=rdt, casting=_UNSAFE),
  lambda ctx, g: (g, g if ctx.attrs[0] == 1 else g * ctx.attrs[0]),
  inputs=("x", "y"), attrs=(("alpha", 1),), check=_check_alpha,
  doc="x + alpha * y, with broadcasting.")
pointwise_op("sub", lambda out, rdt, x, y, alpha: np.subtract(x, y if alpha == 1 else np.multiply(y, alpha), out=out, dtype=rdt, casting=_UNSAFE),
  lambda ctx, g: (g, -g if ctx.attrs[0] == 1 else g * -ctx.attrs[0]),
  inputs=("x", "y"), attrs=(("alpha", 1),), aliases=("subtract",), check=_check_alpha,
  doc="x - alpha * y, with broadcasting.")
def _mul_back(ctx, g):
    return (g * ctx.input(1) if ctx.needs[0] else None, g * ctx.input(0) if ctx.needs[1] else None)


def _mul_back_into(ctx, g):
    """x's gradient written into g, when only x needs one and y does not broadcast g up
    (Note [Backward into the incoming gradient])."""
    if not ctx.needs[0] or ctx.needs[1]:
        return None
    y = ctx.input(1)
    yd = y._data if isinstance(y, Tensor) else y
    if isinstance(y, Tensor) and yd.shape != g._data.shape and yd.ndim != 0:
        return None
    np.multiply(g._data, yd, out=g._data, casting="same_kind")
    return g, None


pointwise_op("mul", binary_kernel(np.multiply), _mul_back, needs={"x": ("y",), "y": ("x",)}, inputs=("x", "y"),
             backward_inplace=_mul_back_into,
  aliases=("multiply",), doc="x * y, with broadcasting.")


def _div_back(ctx, g):
    y = ctx.input(1)
    gx = g / y
    return (gx if ctx.needs[0] else None, -gx * ctx.input(0) / y if ctx.needs[1] else None)


pointwise_op("div", binary_kernel(np.true_divide), _div_back, needs={"x": ("y",), "y": ("x", "y")}, inputs=("x", "y"),
  result_dtype=float_result, aliases=("divide", "true_divide"),
  doc="x / y (true division), with broadcasting.")
def _check_int_div(op_name, args, attrs, rdt):
    """Integer division by zero is an error in PyTorch (RuntimeError "ZeroDivisionError"),
    not NumPy's warning and a garbage 0; bool tensors have no floor division."""
    if rdt.kind == "b":
        raise ArgTypeError(f"{op_name}(): not implemented for 'Bool' tensors. Fix: cast to an "
                           "integer or floating dtype first.")
    if rdt.kind in "iu":
        y = args[1]
        zero = (y._data == 0).any() if isinstance(y, Tensor) else y == 0
        if zero:
            raise ArgValueError(f"ZeroDivisionError: {op_name}() of an integer tensor (result "
                                f"dtype {rdt}) by zero. Fix: make the divisor nonzero, or "
                                "divide floating tensors (which give inf/nan).")


pointwise_op("floor_divide", binary_kernel(np.floor_divide), lambda ctx, g: (zero_grad(g), zero_grad(g)), inputs=("x", "y"),
  check=_check_int_div, doc="floor(x / y), with broadcasting.")
pointwise_op("remainder", binary_kernel(np.remainder),
  lambda ctx, g: (g, -g * (ctx.input(0) / ctx.input(1)).floor() if ctx.needs[1] else None),
  needs={"y": ("x", "y")}, inputs=("x", "y"), aliases=("mod", "floor_mod"), check=_check_int_div,
  doc="x mod y with the sign of y (Python's %), with broadcasting.")


def _where(cond, x, y):
    """where() as an op (create_graph works); x or y may be a Python number."""
    from .registry import FUNCTIONS
    return FUNCTIONS["where"](cond, x, y)


def _log_of_number(v):
    with np.errstate(all="ignore"):
        return float(np.log(np.float64(v)))


def _pow_back(ctx, g):
    """PyTorch's pow_backward_self / pow_backward_exponent (FunctionsManual.cpp): a zero
    exponent has gradient 0 for the base (also at base 0, where y * x**(y-1) is 0 * inf),
    and a zero base with a non-negative exponent has gradient 0 for the exponent."""
    x, y = ctx.input(0), ctx.input(1)
    gx = gy = None
    if ctx.needs[0]:
        if isinstance(y, Tensor):
            gx = _where(y == 0, 0.0, g * (y * x ** (y - 1)))
        elif y == 0:
            gx = _zeros_like(x, g)
        else:
            gx = g * (y * x ** (y - 1))
    if ctx.needs[1]:
        out = ctx.out
        if isinstance(x, Tensor):
            # the log in the result dtype (PyTorch promotes self first): a float32 base with
            # a float64 exponent must not lose the gradient's precision to a float32 log
            xl = x if x.dtype == out.dtype else x.astype(out.dtype)
            gy = g * _where((x == 0) & (y >= 0), 0.0, out * xl.log())
        elif x == 0:
            gy = g * _where(y >= 0, 0.0, out * _log_of_number(x))
        else:
            gy = g * (out * _log_of_number(x))
    return gx, gy


def _zeros_like(x, g):
    from .registry import FUNCTIONS
    return FUNCTIONS["zeros_like"](x, dtype=g.dtype)


def _check_pow(op_name, args, attrs, rdt):
    if rdt.kind == "b":
        raise ArgTypeError(f"{op_name}(): \"pow\" not implemented for 'Bool'. Fix: cast to an "
                           "integer or floating dtype first.")
    if rdt.kind in "iu":
        y = args[1]
        if not isinstance(y, Tensor) and y < 0:   # a tensor exponent is computed (_pow_k)
            raise ArgValueError(f"{op_name}(): Integers to negative integer powers are not "
                                f"allowed (result dtype {rdt}). Fix: cast to a floating dtype.")


def _pow_k(out, rdt, x, y):
    """np.power, except integer tensors raised to negative integer tensor exponents, which
    NumPy refuses and PyTorch computes: 1 -> 1, -1 -> +-1 by parity, anything else -> 0."""
    if rdt.kind in "iu" and isinstance(y, np.ndarray) and (y < 0).any():
        neg = y < 0
        r = np.power(x, np.where(neg, 0, y), dtype=rdt, casting=_UNSAFE)
        xb = np.asarray(x).astype(rdt, copy=False)
        special = np.where(xb == 1, 1, np.where(xb == -1, np.where(y % 2 == 0, 1, -1), 0))
        r = np.where(neg, special, r).astype(rdt, copy=False)
        if out is None:
            return r
        np.copyto(out, r, casting=_UNSAFE)
        return out
    if rdt.kind == "f" and y.__class__ in (int, float) and y in _TORCH_POW:
        return _TORCH_POW[y](x, out, rdt)
    return np.power(x, y, out=out, dtype=rdt, casting=_UNSAFE)


# Note [pow special exponents]
# PyTorch computes these scalar exponents with other ops (PowKernel.cpp), and the results
# differ from pow's: rsqrt(-0.0) is -inf where pow(-0.0, -0.5) is +inf, and x*x*x may differ
# from pow(x, 3) in the last bit. Same here, on both the generic and the fast path.
def _special_pow(kernel):
    def k(x, out, rdt):
        if out is None:     # never let a 0-d result become a NumPy scalar (out= below)
            out = np.empty(np.shape(x), rdt)
        return kernel(x, out, rdt)
    return k


def _square_into(x, out, rdt):
    return np.multiply(x, x, out=out, dtype=rdt, casting=_UNSAFE)


_TORCH_POW = {
    0.5: _special_pow(lambda x, out, rdt: np.sqrt(x, out=out, dtype=rdt, casting=_UNSAFE)),
    2: _special_pow(_square_into),
    3: _special_pow(lambda x, out, rdt: np.multiply(   # x*x first: out may be x itself
        np.multiply(x, x, dtype=rdt, casting=_UNSAFE), x, out=out, dtype=rdt, casting=_UNSAFE)),
    -0.5: _special_pow(lambda x, out, rdt: np.divide(
        1, np.sqrt(x, out=out, dtype=rdt, casting=_UNSAFE), out=out)),
    -1: _special_pow(lambda x, out, rdt: np.divide(1, x, out=out, dtype=rdt, casting=_UNSAFE)),
    -2: _special_pow(lambda x, out, rdt: np.divide(1, _square_into(x, out, rdt), out=out)),
}


def _fast_pow(x, y, out=None):
    """Note [Fast path] kernel of pow (same-dtype floating operands)."""
    if y.__class__ in (int, float) and y in _TORCH_POW:
        return _TORCH_POW[y](x, out, x.dtype)
    return np.power(x, y, out=out)


pointwise_op("pow", _pow_k, _pow_back, needs={"x": ("x", "y"), "y": ("x", "y", "out")},
  inputs=("x", "y"), check=_check_pow, fast=_fast_pow,
  doc="x ** y, with broadcasting.")   # Note [pow special exponents]


def _max_back(ctx, g):
    """PyTorch's maximum/minimum derivative: ties split the gradient evenly (0.5 / 0.5,
    as Paddle); a NaN on either side sends the whole gradient to both."""
    x, y = ctx.input(0), ctx.input(1)
    half = _where(x == y, g * 0.5, g)
    x_loses, y_loses = (x < y, x > y) if ctx.op.name == "maximum" else (x > y, x < y)
    return (_where(x_loses, 0.0, half) if ctx.needs[0] else None,
            _where(y_loses, 0.0, half) if ctx.needs[1] else None)


def _fmax_back(ctx, g):
    """PyTorch's fmax/fmin derivative: the gradient goes to x where x wins or y is NaN
    (ties: to x), else to y."""
    x, y = ctx.input(0), ctx.input(1)
    to_x = ((x >= y) if ctx.op.name == "fmax" else (x <= y)) | (y != y)
    return (_where(to_x, g, 0.0) if ctx.needs[0] else None,
            _where(to_x, 0.0, g) if ctx.needs[1] else None)


pointwise_op("maximum", binary_kernel(np.maximum), _max_back, needs={"x": ("x", "y"), "y": ("x", "y")}, inputs=("x", "y"),
  inplace=False, doc="Elementwise larger of x and y (NaN propagates), with broadcasting.")
pointwise_op("minimum", binary_kernel(np.minimum), _max_back, needs={"x": ("x", "y"), "y": ("x", "y")}, inputs=("x", "y"),
  inplace=False, doc="Elementwise smaller of x and y (NaN propagates), with broadcasting.")
pointwise_op("fmax", binary_kernel(np.fmax), _fmax_back, needs={"x": ("x", "y"), "y": ("x", "y")}, inputs=("x", "y"),
  inplace=False,
  doc="Elementwise larger of x and y, ignoring a NaN on one side, with broadcasting.")
pointwise_op("fmin", binary_kernel(np.fmin), _fmax_back, needs={"x": ("x", "y"), "y": ("x", "y")}, inputs=("x", "y"),
  inplace=False,
  doc="Elementwise smaller of x and y, ignoring a NaN on one side, with broadcasting.")

# ---------------------------------------------------------------- comparisons / logic (no grad)
_LOGIC_DOCS = {"equal": "Boolean x == y, with broadcasting.",
               "not_equal": "Boolean x != y, with broadcasting.",
               "greater_than": "Boolean x > y, with broadcasting.",
               "greater_equal": "Boolean x >= y, with broadcasting.",
               "less_than": "Boolean x < y, with broadcasting.",
               "less_equal": "Boolean x <= y, with broadcasting.",
               "logical_and": "Boolean x and y (nonzero is true), with broadcasting.",
               "logical_or": "Boolean x or y (nonzero is true), with broadcasting.",
               "logical_xor": "Boolean x xor y (nonzero is true), with broadcasting."}
for _name, _uf, _al in (("equal", np.equal, ("eq",)), ("not_equal", np.not_equal, ("ne",)),
                        ("greater_than", np.greater, ("gt", "greater")),
                        ("greater_equal", np.greater_equal, ("ge",)),
                        ("less_than", np.less, ("lt", "less")),
                        ("less_equal", np.less_equal, ("le",)),
                        ("logical_and", np.logical_and, ()), ("logical_or", np.logical_or, ()),
                        ("logical_xor", np.logical_xor, ())):
    pointwise_op(_name, (lambda uf: lambda out, rdt, x, y: uf(x, y, out=out))(_uf), None,
      inputs=("x", "y"), inplace=False, result_dtype=_bool_result, aliases=_al,
      doc=_LOGIC_DOCS[_name])
pointwise_op("logical_not", lambda out, rdt, x: np.logical_not(x, out=out), None, inplace=False,
  result_dtype=_bool_result, doc="Boolean not x (nonzero is true).")
pointwise_op("isnan", lambda out, rdt, x: np.isnan(x, out=out), None, inplace=False, result_dtype=_bool_result,
  doc="Boolean: where x is NaN.")
pointwise_op("isinf", lambda out, rdt, x: np.isinf(x, out=out), None, inplace=False, result_dtype=_bool_result,
  doc="Boolean: where x is +inf or -inf.")
pointwise_op("isfinite", lambda out, rdt, x: np.isfinite(x, out=out), None, inplace=False,
  result_dtype=_bool_result, doc="Boolean: where x is neither inf nor NaN.")
def _check_bitwise(op_name, args, attrs, rdt):
    if rdt.kind == "f":
        raise ArgTypeError(f"{op_name}(): not implemented for floating tensors (result dtype "
                           f"{rdt}); bitwise ops take integer or bool tensors.")


for _name, _uf, _sym in (("bitwise_and", np.bitwise_and, "&"), ("bitwise_or", np.bitwise_or, "|"),
                         ("bitwise_xor", np.bitwise_xor, "^")):
    pointwise_op(_name, binary_kernel(_uf), None, inputs=("x", "y"), check=_check_bitwise,
      doc=f"Bitwise x {_sym} y of integer or bool tensors, with broadcasting.")
pointwise_op("bitwise_not", unary_kernel(np.invert), None, check=_check_bitwise,
  doc="Bitwise ~x of an integer or bool tensor.")

# ---------------------------------------------------------------- ternary and masked
def _check_mask(op_name, args, attrs, rdt):
    """where / masked_fill take a bool condition (PyTorch refuses others: a float mask is
    almost always a mistake); masked_fill's value is a number or a 0-d tensor."""
    m = args[1]
    if not isinstance(m, Tensor) or m._data.dtype.kind != "b":
        got = m.dtype.name if isinstance(m, Tensor) else type(m).__name__
        what = "condition" if op_name.startswith("where") else "mask"
        raise ArgTypeError(f"{op_name}(): expected {what} to be a boolean tensor, but got "
                           f"{got}. Fix: compare to get a mask (e.g. `x > 0`) or cast with "
                           ".astype('bool').")
    if op_name.startswith("masked_fill"):
        v = args[2]
        if isinstance(v, Tensor) and v._data.ndim != 0:
            raise ArgValueError(f"{op_name}(): masked_fill_ only supports a 0-dimensional value "
                                f"tensor, but got tensor with {v._data.ndim} dimension(s). Fix: "
                                "use where(mask, value, x) for a tensor of values.")


def _where_k(out, rdt, x, cond, y):
    if out is None:
        return np.where(cond, x, y).astype(rdt, copy=False)
    np.copyto(out, y, where=~cond, casting=_UNSAFE)
    if out is not x:
        np.copyto(out, x, where=cond, casting=_UNSAFE)
    return out


def _where_back(ctx, g):
    cond = ctx.input(1)
    return (_where(cond, g, 0.0) if ctx.needs[0] else None, None,
            _where(cond, 0.0, g) if ctx.needs[2] else None)


pointwise_op("where_self", _where_k, _where_back, needs={"x": ("condition",), "y": ("condition",)},
          inputs=("x", "condition", "y"), method=False, check=_check_mask, promote=(0, 2),
          doc="x where condition is True, else y, with broadcasting.")


def _masked_fill_k(out, rdt, x, mask, value):
    if out is None:
        out = np.array(x, dtype=rdt)
    elif out is not x:   # the out= spelling: the unmasked elements are x's
        np.copyto(out, x, casting=_UNSAFE)
    np.copyto(out, value, where=mask, casting=_UNSAFE)
    return out


def _masked_fill_back(ctx, g):
    mask = ctx.input(1)
    return (_where(mask, 0.0, g) if ctx.needs[0] else None, None,
            _where(mask, g, 0.0).sum() if ctx.needs[2] else None)


# the result keeps x's dtype (PyTorch and Paddle): `int_tensor.masked_fill(m, 0.5)` is int
pointwise_op("masked_fill", _masked_fill_k, _masked_fill_back, needs={"x": ("mask",), "value": ("mask",)},
                inputs=("x", "mask", "value"), check=_check_mask, promote=(0,),
                doc="x with the elements where mask is True set to value (keeps x's dtype).")
