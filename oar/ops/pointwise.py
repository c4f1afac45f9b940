"""Pointwise ops. Kernel signature: kernel(out, rdt, *operands, *attrs) -> array.

`out` is None (allocate) or the array to write (in-place / out=); `rdt` is the promoted
result dtype (ops/registry.py pointwise_dtype). Backward formulas are written in oar ops so
that create_graph works; OpNode reduces broadcast gradients to input shapes.
"""
from __future__ import annotations

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError, DtypeNotImplementedError
from ..tensor import Tensor
from .. import dtypes as _dt
from .registry import (FUNCTIONS, OpDef, declare, float_result, install, int_scalars,
                       result_class, zero_grad)

# Kernels run after the dtype checks (autograd/inplace.py check_pointwise_inplace, Note
# [In-place shape and dtype]; dispatch_out) that use PyTorch's canCast: `uint8 += int64` and
# `float32 += float64` are legal, float into int is not. So they cast their result unsafely
# into `out`, as TensorIterator does.
_UNSAFE = "unsafe"


def _rounded_into(out, rdt, r):
    """A kernel's wide result r rounded once into the result dtype: into `out` when given
    (the in-place spelling), else a new array."""
    if out is None:
        return _xp.asarray(r).astype(rdt, copy=False)
    np.copyto(out, r, casting=_UNSAFE)
    return out



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


# Note [Ops without a complex kernel]
# NumPy has no complex loop for many ufuncs (arctan2, copysign, fmod, the bitwise ones,
# logaddexp2) and a float64 kernel (_f64_kernel: erf, lgamma, the Bessel functions) would cast
# a complex operand to real, dropping its imaginary part with only a ComplexWarning. PyTorch
# 2.13 has no complex kernel for these either and raises NotImplementedError naming its kernel
# (`"atan2_cpu" not implemented for 'ComplexFloat'`); Paddle 3.3.1 a RuntimeError. So every
# pointwise op named below, or whose kernel carries `no_complex` (each _f64_kernel's does),
# refuses a complex operand in its check, before anything is allocated or written, with
# DtypeNotImplementedError (both classes). A new real-only kernel joins by setting
# `no_complex` to PyTorch's kernel name; ordering ops refuse complex operands in ops/complex.py.
_NO_COMPLEX_KERNELS = {
    "atan2": "atan2_cpu", "bitwise_and": "bitwise_and_cpu", "bitwise_or": "bitwise_or_cpu",
    "bitwise_xor": "bitwise_xor_cpu", "bitwise_not": "bitwise_not_cpu",
    "bitwise_left_shift": "lshift_cpu", "bitwise_right_shift": "rshift_cpu",
    "copysign": "copysign_cpu", "fmod": "fmod_cpu", "logaddexp2": "logaddexp2_cpu",
    "logit": "logit_cpu", "erf": "erf_vml_cpu", "erfc": "erfc_vml_cpu",
    "erfinv": "erfinv_vml_cpu", "lgamma": "lgamma_vml_cpu", "digamma": "digamma",
    "i0": "i0_vml_cpu"}


def _refusing_complex(kernel, inner):
    def check(op_name, args, attrs, rdt):
        for a in args:
            if isinstance(a, Tensor) and a._data.dtype.kind == "c":
                _no_kernel(op_name, kernel, a._data.dtype, "this function has no complex "
                           "kernel (in PyTorch or Paddle either); apply it to the real or "
                           "imaginary part or the magnitude (x.real, x.imag, x.abs()).")
        if isinstance(rdt, np.dtype) and rdt.kind == "c":
            _no_kernel(op_name, kernel, rdt, "this function has no complex kernel; apply it "
                       "to real operands (a complex number promoted the result to complex).")
        if inner is not None:
            return inner(op_name, args, attrs, rdt)
    return check


def pointwise_op(name, kernel, backward=None, needs=None, inputs=("x",), attrs=(),
                 backward_inplace=None, inplace=True, result_dtype=None, aliases=(), method=True, fast=None, check=None,
                 number_attrs=None, promote=None, doc=None, function=True, node_name=None):
    """Declare a pointwise op. `check(op_name, args, attrs, rdt)` (optional) runs before any
    allocation or write on the generic path (Note [Check, then write]); the fast path never
    needs it (floating operands, default attrs). `promote`: indices of the operands whose
    dtypes decide the result (default: all; where: not the condition). `needs`: what each
    input's gradient needs, by name (OpDef)."""
    kname = _NO_COMPLEX_KERNELS.get(name) or getattr(kernel, "no_complex", None)
    if kname:
        check = _refusing_complex(kname, check)
    op = OpDef(name, kernel, backward, needs=needs, kind="pointwise",
               backward_inplace=backward_inplace,
               inputs=inputs, attrs=attrs, inplace=inplace, result_dtype=result_dtype,
               method=method, fast=fast or FAST_KERNELS.get(name), check=check,
               number_attrs=number_attrs, promote=promote, doc=doc, function=function,
               node_name=node_name)
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


# Note [Dtype refusals]
# PyTorch has no kernel for some (op, dtype) pairs and raises NotImplementedError naming the
# kernel and its type name (`"floor_vml_cpu" not implemented for 'Bool'`); Paddle, a
# RuntimeError for the missing kernel. The checks below raise DtypeNotImplementedError (both,
# and the TypeError oar raised before), before anything is allocated or written. Where only
# PyTorch refuses (a bool scalar in a subtraction, `bool_tensor ** True` allowed), the check
# asks which door the call came through: the result class of its first tensor operand (Note
# [Result class]) is the core's Tensor for the Paddle door.
_TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                     "int32": "Int", "int64": "Long", "float16": "Half", "float32": "Float",
                     "float64": "Double", "complex64": "ComplexFloat",
                     "complex128": "ComplexDouble"}


def _no_kernel(op_name, kernel, dt, fix):
    """Note [Dtype refusals]: PyTorch's NotImplementedError for a dtype the op has no kernel for."""
    dt = np.dtype(dt)
    raise DtypeNotImplementedError(
        f"{op_name}(): \"{kernel}\" not implemented for '{_TORCH_TYPE_NAMES.get(dt.name, dt.name)}'"
        f" ({dt.name} tensors). Fix: {fix}")


def _torch_door(args):
    """Whether the call came through the PyTorch door (Note [Dtype refusals])."""
    return result_class(args) is not Tensor


def _no_bool(kernel):
    """check= of a unary op PyTorch (and Paddle) has no bool kernel for (Note [Dtype refusals])."""
    def check(op_name, args, attrs, rdt):
        if rdt.kind == "b":
            _no_kernel(op_name, kernel, rdt, "cast the bool tensor to an integer or floating "
                       "dtype first, e.g. x.int().")
    return check


# ---------------------------------------------------------------- unary, backward needs result
pointwise_op("exp", unary_kernel(np.exp), lambda ctx, g: (g * _cj(ctx.out),), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise e**x.")
pointwise_op("sqrt", unary_kernel(np.sqrt), lambda ctx, g: (g / _cj(ctx.out * 2),), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise square root of x.")
pointwise_op("rsqrt", lambda out, rdt, x: np.divide(1, np.sqrt(x, dtype=rdt, casting=_UNSAFE), out=out, dtype=rdt, casting=_UNSAFE),
  lambda ctx, g: (g * _cj(ctx.out ** 3 * -0.5),), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise reciprocal square root, 1 / sqrt(x).")
pointwise_op("tanh", unary_kernel(np.tanh), lambda ctx, g: (g * _cj(1 - ctx.out * ctx.out),), needs={"x": ("out",)},
  result_dtype=float_result, doc="Elementwise hyperbolic tangent of x.")


def _sigmoid(out, rdt, x):
    if out is None:          # several steps in place: never let a 0-d result become a scalar
        out = _xp.array_module(x).empty(np.shape(x), rdt)
    r = np.multiply(x, -1, out=out, dtype=rdt, casting=_UNSAFE)   # not np.negative: Note [NumPy 2.4 negative]
    np.exp(r, out=r)
    r += 1
    return np.reciprocal(r, out=r)


pointwise_op("sigmoid", _sigmoid, lambda ctx, g: (g * _cj(ctx.out) * _cj(1 - ctx.out),), needs={"x": ("out",)},
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
  lambda ctx, g: (-g * _cj(ctx.out * ctx.out),), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise 1 / x.")
pointwise_op("expm1", unary_kernel(np.expm1), lambda ctx, g: (g * _cj(ctx.out + 1),), needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise e**x - 1, accurate near 0.")

# ---------------------------------------------------------------- unary, backward needs input
pointwise_op("log", unary_kernel(np.log), lambda ctx, g: (g / _cj(ctx.input(0)),), needs={"x": ("x",)}, result_dtype=float_result,
  doc="Elementwise natural logarithm of x.")
pointwise_op("log2", unary_kernel(np.log2), lambda ctx, g: (g / _cj(ctx.input(0) * float(np.log(2))),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise base-2 logarithm of x.")
pointwise_op("log10", unary_kernel(np.log10), lambda ctx, g: (g / _cj(ctx.input(0) * float(np.log(10))),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise base-10 logarithm of x.")
pointwise_op("log1p", unary_kernel(np.log1p), lambda ctx, g: (g / _cj(ctx.input(0) + 1),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise log(1 + x), accurate near 0.")
pointwise_op("sin", unary_kernel(np.sin), lambda ctx, g: (g * _cj(ctx.input(0).cos()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise sine of x (radians).")
pointwise_op("cos", unary_kernel(np.cos), lambda ctx, g: (-g * _cj(ctx.input(0).sin()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise cosine of x (radians).")
pointwise_op("tan", unary_kernel(np.tan), lambda ctx, g: (g / _cj(ctx.input(0).cos().square()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise tangent of x (radians).")
pointwise_op("asin", unary_kernel(np.arcsin), lambda ctx, g: (g / _cj((1 - ctx.input(0).square()).sqrt()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise arcsine of x.")
pointwise_op("acos", unary_kernel(np.arccos), lambda ctx, g: (-g / _cj((1 - ctx.input(0).square()).sqrt()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise arccosine of x.")
pointwise_op("atan", unary_kernel(np.arctan), lambda ctx, g: (g / _cj(1 + ctx.input(0).square()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise arctangent of x.")
pointwise_op("sinh", unary_kernel(np.sinh), lambda ctx, g: (g * _cj(ctx.input(0).cosh()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise hyperbolic sine of x.")
pointwise_op("cosh", unary_kernel(np.cosh), lambda ctx, g: (g * _cj(ctx.input(0).sinh()),), needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise hyperbolic cosine of x.")
def _check_abs(op_name, args, attrs, rdt):
    _no_bool("abs_cpu")(op_name, args, attrs, rdt)
    if op_name.endswith("_") and args[0]._data.dtype.kind == "c":
        raise ArgTypeError(f"{op_name}(): In-place abs is not supported for complex tensors "
                           "(|z| is real). Fix: use the out-of-place abs.")


# a complex x: |x| is real and its gradient is g * sgn(x) = g * x / |x| (NumPy 2's sign)
pointwise_op("abs", unary_kernel(np.abs), lambda ctx, g: (g * ctx.input(0).sgn(),), needs={"x": ("x",)},
  check=_check_abs, result_dtype=_dt.to_real, doc="Elementwise absolute value |x|.")
pointwise_op("square", unary_kernel(np.square), lambda ctx, g: (g * _cj(ctx.input(0) * 2),), needs={"x": ("x",)},
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
                return _xp.array(x, dtype=rdt)
            np.copyto(out, x, casting=_UNSAFE)
            return out
        return k(out, rdt, x)
    kernel.__doc__ = k.__doc__
    return kernel


pointwise_op("floor", _exact_for_ints(np.floor), _zero_grad, check=_no_bool("floor_vml_cpu"),
  doc="Elementwise largest integer <= x.")
pointwise_op("ceil", _exact_for_ints(np.ceil), _zero_grad, check=_no_bool("ceil_vml_cpu"),
  doc="Elementwise smallest integer >= x.")
_round_ints = _exact_for_ints(np.rint)


def _round_k(out, rdt, x, decimals):
    """rint, or with decimals PyTorch's round_decimals_kernel: rint(x * 10**d) / 10**d (for
    d < 0: rint(x / 10**-d) * 10**-d), in the dtype's opmath type (float32 for float16)."""
    if decimals is None or rdt.kind in "biu":   # integers: Paddle's identity (PyTorch refuses)
        return _round_ints(out, rdt, x)
    ct = np.dtype(np.float32) if rdt == np.float16 else rdt
    p = ct.type(10.0 ** abs(decimals))
    with np.errstate(over="ignore", invalid="ignore"):
        xa = _xp.asarray(x, ct)
        r = np.rint(xa / p) * p if decimals < 0 else np.rint(xa * p) / p
    return _rounded_into(out, rdt, r)


def _check_round(op_name, args, attrs, rdt):
    decimals = attrs[0]
    if decimals is not None and (isinstance(decimals, (bool, np.bool_))
                                 or not isinstance(decimals, (int, np.integer))):
        raise ArgTypeError(f"{op_name}(): argument 'decimals' must be int, not "
                           f"{type(decimals).__name__}")
    kernel = "round_vml_cpu" if decimals is None else "round_cpu"
    if rdt.kind == "b" or (decimals is not None and rdt.kind in "iu" and _torch_door(args)):
        _no_kernel(op_name, kernel, rdt, "cast to a floating dtype first, e.g. x.float().")


pointwise_op("round", _round_k, _zero_grad, attrs=(("decimals", None),), check=_check_round,
  doc="Elementwise rounding to the nearest integer (halves to even); with decimals, to that "
      "many decimal places (negative: to tens, hundreds, ...).")
pointwise_op("trunc", _exact_for_ints(np.trunc), _zero_grad, check=_no_bool("trunc_vml_cpu"),
  doc="Elementwise rounding toward zero.")
pointwise_op("sign", _exact_for_ints(np.sign), _zero_grad, doc="Elementwise sign of x: -1, 0 or 1.")
def _sgn_back(ctx, g):
    """A real x: sign is piecewise constant. A complex z: s = z / |z| moves only with z's
    angle, so the gradient is g's component along i*s divided by |z| (g - s Re(g conj(s)))
    / |z|, and 0 at z = 0 (PyTorch's sgn_backward; Note [Complex autograd])."""
    z = ctx.input(0)
    if z._data.dtype.kind != "c":
        return (zero_grad(g),)
    s, a = z.sgn(), z.abs()
    t = g - s * (g * s.conj()).real
    return (_where(a == 0, 0.0, t / _where(a == 0, 1.0, a)),)


# sgn is sign for real tensors (z / |z| for complex ones: NumPy 2's sign), but its own op in
# PyTorch, with its own node (SgnBackward0), so its own declaration here rather than an alias
pointwise_op("sgn", _exact_for_ints(np.sign), _sgn_back, needs={"x": ("x",)}, fast=np.sign,
             doc="Elementwise sign of x: -1, 0 or 1 for a real tensor, x / |x| (0 at 0) for "
                 "a complex one.")


def _scale(out, rdt, x, scale, bias, bias_after_scale):
    if out is None:
        out = _xp.array_module(x).empty(np.shape(x), rdt)
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
    if rdt.kind in "iu":
        for v, n in zip(attrs, ("min", "max")):
            _scalar_fits(op_name, v, rdt, n)


def _clip(out, rdt, x, lo, hi):
    lo = lo._data if isinstance(lo, Tensor) else lo   # tensor bounds: NumPy takes arrays
    hi = hi._data if isinstance(hi, Tensor) else hi
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
_clip_spelling = FUNCTIONS["clip"]


def clip(x, min=None, max=None, name=None, out=None):
    # the bounds take part in type promotion, as in PyTorch and Paddle: an integer x with a
    # floating bound gives a floating result (clip(int_tensor, 0.5) is float32)
    if isinstance(x, Tensor) and x._data.dtype.kind in "biu" and out is None:
        bounds = [v for v in (min, max) if isinstance(v, (Tensor, float, np.floating))]
        if bounds:
            rdt = _dt.result_type(x, *bounds)
            if rdt.kind == "f":
                x = x.astype(_dt.from_numpy_dtype(rdt))
    return _clip_spelling(x, min, max, name=name, out=out)


clip.__doc__ = (_clip_spelling.__doc__ + "\n\nA floating bound makes an integer x's result "
                "floating, as in PyTorch and Paddle.")
clip.__signature__ = _clip_spelling.__signature__
install("clip", clip)
install("clamp", clip)


# Note [Clamp with tensor bounds]
# PyTorch's clamp.Tensor overload (the torch door's clamp/clip with a tensor min or max, in
# oar/torch/_functions.py) takes its bounds as operands, not attributes: they take part in
# type promotion (a uint8 tensor clamped by an int8 tensor computes in int16, so
# `u.clamp_(min=int8_t)` compares -3 as -3, not as 253) and they get gradients
# (clamp_backward_min_max: min's where x < min and min < max, max's where x > max or
# max < min). The Paddle door keeps clip's bounds as attributes: Paddle 3.3 gives them none.
def _clamp_t(out, rdt, x, lo, hi):
    """np.clip computed in the common dtype rdt of x and the bounds, cast into out."""
    if out is None:
        return _xp.asarray(np.clip(x, lo, hi, dtype=rdt, casting=_UNSAFE))
    return np.clip(x, lo, hi, out=out, dtype=rdt, casting=_UNSAFE)


def _clamp_t_back(ctx, g):
    x, lo, hi = ctx.input(0), ctx.input(1), ctx.input(2)
    needs = ctx.needs
    gx = glo = ghi = None
    if needs[0]:
        m = None if lo is None else x >= lo
        if hi is not None:
            m = x <= hi if m is None else m & (x <= hi)
        gx = _where(m, g, 0.0)   # Note [Masked gradients select]
    if lo is not None and hi is not None:
        if needs[1]:
            glo = _where((x < lo) & (lo < hi), g, 0.0)
        if needs[2]:
            ghi = _where((x > hi) | (hi < lo), g, 0.0)
    elif lo is not None and needs[1]:
        glo = _where(x < lo, g, 0.0)
    elif hi is not None and needs[2]:
        ghi = _where(x > hi, g, 0.0)
    return gx, glo, ghi


def _check_clamp_t(op_name, args, attrs, rdt):
    if args[1] is None and args[2] is None:
        raise ArgValueError(f"{op_name}(): At least one of 'min' or 'max' must not be None. "
                            "Fix: pass min=, max= or both.")


CLAMP_TENSOR = OpDef("clamp_tensor", _clamp_t, _clamp_t_back, kind="pointwise",
                     inputs=("x", "min", "max"), optional=("min", "max"),
                     needs={"x": ("x", "min", "max"), "min": ("x", "min", "max"),
                            "max": ("x", "min", "max")},
                     check=_check_clamp_t, method=False, function=False, node_name="ClampBackward",
                     doc="x clamped elementwise into [min, max], tensor bounds "
                         "(Note [Clamp with tensor bounds]).")
declare(CLAMP_TENSOR)

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
    if op_name.startswith(("sub", "-", "rsub")):
        _check_bool_sub(op_name, args, rdt)


def _is_bool(v):
    return v._data.dtype.kind == "b" if isinstance(v, Tensor) else isinstance(v, (bool, np.bool_))


def _check_bool_sub(op_name, args, rdt):
    """PyTorch refuses a subtraction with any bool operand, tensor or scalar (RuntimeError);
    Paddle two bool tensors (RuntimeError) or a bool and another tensor (TypeError), but
    runs a bool tensor minus a number (Note [Dtype refusals])."""
    if not any(_is_bool(a) for a in args):
        return
    if not _torch_door(args) and not (rdt.kind == "b" or all(isinstance(a, Tensor)
                                                             for a in args)):
        return
    what = "two bool tensors" if rdt.kind == "b" else "a bool tensor"
    raise ArgTypeError(f"{op_name}(): Subtraction, the `-` operator, with {what} is not "
                       f"supported (operands {_operand_names(args)}). If you are trying to "
                       "invert a mask, use the `~` or `logical_not()` operator instead.")


def _operand_names(args):
    return ", ".join(a.dtype.name if isinstance(a, Tensor) else type(a).__name__ for a in args)


# Note [Fused multiply-add]
# PyTorch's CPU kernels compute add/sub with an alpha as one fused multiply-add: alpha is
# first cast to the result dtype, then x + alpha * y is rounded once. NumPy's two ufuncs round
# twice, which differs in the last bit for 10-20 % of float32 elements (so every SGD step,
# p.add_(grad, alpha=-lr), would drift from PyTorch's). A float32 or float16 result is
# computed in float64, where alpha * y is exact and the sum is rounded once more before the
# final rounding: equal to the fused result (tests/test_torch_silent_diffs.py checks it
# against torch bit for bit). A float64 result is computed in long double where it has a
# wider mantissa (x86's 64 bits): the product keeps 11 more bits, so a difference from the
# fused result becomes rare instead of common (under 0.1 %); float16 differs in about 0.01 %
# (PyTorch's vector and scalar loops round float16 differently). Integer and bool results are
# exact either way.
_FMA_WIDE = {np.dtype(np.float16): np.dtype(np.float64), np.dtype(np.float32): np.dtype(np.float64)}
if np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant:
    _FMA_WIDE[np.dtype(np.float64)] = np.dtype(np.longdouble)


def _in_dtype(v, rdt):
    """An operand as PyTorch's kernel reads it: in the result dtype."""
    if v.__class__ is np.ndarray:
        return v if v.dtype == rdt else v.astype(rdt)
    with np.errstate(over="ignore"):
        return _xp.asarray(v, rdt)


def _fused(ufunc, out, rdt, x, y, alpha):
    """ufunc(x, alpha * y) as PyTorch computes it (Note [Fused multiply-add])."""
    wide = _FMA_WIDE.get(rdt) if alpha != 1 else None
    if wide is None:
        return ufunc(x, y if alpha == 1 else np.multiply(y, alpha), out=out, dtype=rdt,
                     casting=_UNSAFE)
    a = wide.type(rdt.type(alpha))          # alpha rounded to the result dtype, then widened
    xr = _in_dtype(x, rdt)
    t = np.multiply(_in_dtype(y, rdt), a, dtype=wide)
    # the sum into t's memory when it has the result's shape (x broadcasts no larger)
    r = ufunc(xr, t, out=t if t.__class__ is np.ndarray and t.shape == xr.shape else None,
              dtype=wide)
    if out is None:
        return r.astype(rdt)
    np.copyto(out, r, casting=_UNSAFE)
    return out


pointwise_op("add", lambda out, rdt, x, y, alpha: _fused(np.add, out, rdt, x, y, alpha),
  lambda ctx, g: (g, g if ctx.attrs[0] == 1 else g * ctx.attrs[0]),
  inputs=("x", "y"), attrs=(("alpha", 1),), check=_check_alpha,
  doc="x + alpha * y, with broadcasting.")
pointwise_op("sub", lambda out, rdt, x, y, alpha: _fused(np.subtract, out, rdt, x, y, alpha),
  lambda ctx, g: (g, -g if ctx.attrs[0] == 1 else g * -ctx.attrs[0]),
  inputs=("x", "y"), attrs=(("alpha", 1),), aliases=("subtract",), check=_check_alpha,
  doc="x - alpha * y, with broadcasting.")
# torch.rsub(input, other, alpha) with a tensor other: other - alpha * input, its own node
# (RsubBackward0); a number other goes through sub with the number first (RsubBackward1)
pointwise_op("rsub", lambda out, rdt, x, y, alpha: _fused(np.subtract, out, rdt, y, x, alpha),
  lambda ctx, g: (-g if ctx.attrs[0] == 1 else g * -ctx.attrs[0], g),
  inputs=("x", "y"), attrs=(("alpha", 1),), check=_check_alpha, inplace=False, method=False,
  function=False, node_name="RsubBackward0", doc="y - alpha * x, with broadcasting.")


def _cj(t):
    """Note [Complex autograd]: the conjugate of a complex operand in a backward formula
    (a real one as is)."""
    c = t.__class__
    if c is float or c is int or c is bool or (
            (c is Tensor or isinstance(t, Tensor)) and t._data.dtype.kind != "c"):
        return t   # (no import on this path: it runs once per backward of mul)
    from .complex import conj_if_complex
    return conj_if_complex(t)


def _mul_back(ctx, g):
    return (g * _cj(ctx.input(1)) if ctx.needs[0] else None,
            g * _cj(ctx.input(0)) if ctx.needs[1] else None)


def _mul_back_into(ctx, g):
    """x's gradient written into g, when only x needs one and y does not broadcast g up
    (Note [Backward into the incoming gradient])."""
    if not ctx.needs[0] or ctx.needs[1]:
        return None
    y = ctx.input(1)
    yd = y._data if isinstance(y, Tensor) else y
    if isinstance(y, Tensor) and yd.shape != g._data.shape and yd.ndim != 0:
        return None
    if _xp.asarray(yd).dtype.kind == "c" or isinstance(yd, complex):
        return None   # the formula conjugates it (Note [Complex autograd])
    np.multiply(g._data, yd, out=g._data, casting="same_kind")
    return g, None


pointwise_op("mul", binary_kernel(np.multiply), _mul_back, needs={"x": ("y",), "y": ("x",)}, inputs=("x", "y"),
             backward_inplace=_mul_back_into,
  aliases=("multiply",), doc="x * y, with broadcasting.")


def _div_back(ctx, g):
    y = _cj(ctx.input(1))
    gx = g / y
    return (gx if ctx.needs[0] else None, -gx * _cj(ctx.input(0)) / y if ctx.needs[1] else None)


pointwise_op("div", binary_kernel(np.true_divide), _div_back, needs={"x": ("y",), "y": ("x", "y")}, inputs=("x", "y"),
  result_dtype=float_result, aliases=("divide", "true_divide"),
  doc="x / y (true division), with broadcasting.")
_DIV_KERNELS = {"floor_divide": "div_floor_cpu", "remainder": "remainder_cpu",
                "div_trunc": "div_trunc_cpu", "div_floor": "div_floor_cpu"}


def _check_int_div(op_name, args, attrs, rdt):
    """Integer division by zero is an error in PyTorch (RuntimeError "ZeroDivisionError"),
    not NumPy's warning and a garbage 0; bool tensors have no floor division."""
    if rdt.kind == "b":
        _no_kernel(op_name, _DIV_KERNELS.get(op_name.rstrip("_"), op_name + "_cpu"), rdt,
                   "cast to an integer or floating dtype first.")
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


def _fmod_k(out, rdt, x, y):
    with np.errstate(invalid="ignore", divide="ignore"):   # x fmod 0.0 is nan, silently
        return np.fmod(x, y, out=out, dtype=rdt, casting=_UNSAFE)


pointwise_op("fmod", _fmod_k,
  lambda ctx, g: (g, -g * (ctx.input(0) / ctx.input(1)).trunc() if ctx.needs[1] else None),
  needs={"y": ("x", "y")}, inputs=("x", "y"), check=_check_int_div,
  doc="x mod y with the sign of x (C's fmod: x - trunc(x / y) * y), with broadcasting.")


def _div_trunc_k(out, rdt, x, y):
    """x / y rounded toward zero: trunc of the true quotient for floats (PyTorch's
    div_trunc), floor division corrected where the signs differ for integers (exact)."""
    if out is None:   # never let a 0-d result become a NumPy scalar (out= below)
        out = _xp.array_module(x, y).empty(np.broadcast_shapes(np.shape(x), np.shape(y)), rdt)
    if rdt.kind in "iu":
        q = np.floor_divide(x, y, dtype=rdt, casting=_UNSAFE)
        r = np.remainder(x, y, dtype=rdt, casting=_UNSAFE)
        fix = (r != 0) & ((_xp.asarray(x) < 0) != (_xp.asarray(y) < 0))
        return np.add(q, fix, out=out, dtype=rdt, casting=_UNSAFE)
    r = np.true_divide(x, y, out=out, dtype=rdt, casting=_UNSAFE)
    return np.trunc(r, out=r)


# div(x, y, rounding_mode='trunc' | 'floor'): ops of their own, reached only through div's
# rounding_mode (no spelling of their names), with PyTorch's node DivBackward2 and zero
# gradients (floor_divide computes the same values as 'floor')
_DIV_ROUNDING = {
    mode: pointwise_op(f"div_{mode}", kernel, lambda ctx, g: (zero_grad(g), zero_grad(g)),
                       inputs=("x", "y"), check=_check_int_div, inplace=False, method=False,
                       function=False, node_name="DivBackward2",
                       doc=f"x / y rounded {where}, with broadcasting.")
    for mode, kernel, where in (("trunc", _div_trunc_k, "toward zero"),
                                ("floor", binary_kernel(np.floor_divide), "toward -inf"))}


def _div_spelling(suffix, plain, modes):
    def div(x, y, name=None, *, rounding_mode=None, out=None):
        if rounding_mode is None:
            fn = plain
        else:
            fn = modes.get(rounding_mode) if isinstance(rounding_mode, str) else None
            if fn is None:
                raise ArgValueError(f"div{suffix}(): div expected rounding_mode to be one of "
                                    f"None, 'trunc', or 'floor' but found {rounding_mode!r}")
        return fn(x, y) if out is None else fn(x, y, out=out)
    div.__name__ = div.__qualname__ = "div" + suffix
    div.__doc__ = (plain.__doc__ + "\n\nrounding_mode: None (true division), 'trunc' (toward "
                   "zero) or 'floor' (toward -inf, floor_divide); with a rounding mode the "
                   "result keeps the promoted dtype (integers stay integers) and the gradient "
                   "is zero.")
    return div


def _div_forms():
    """div / divide with PyTorch's and Paddle's keyword-only rounding_mode (None, 'trunc',
    'floor'), and div_ / divide_ with it; true_divide keeps the plain spelling."""
    from .spellings import inplace_spelling
    modes = {"": {}, "_": {}}
    for mode, op in _DIV_ROUNDING.items():
        op.inplace_ok = True
        modes[""][mode] = op.call
        modes["_"][mode] = inplace_spelling(op, "div_")
    for suffix in ("", "_"):
        div = _div_spelling(suffix, FUNCTIONS["div" + suffix], modes[suffix])
        for n in ("div" + suffix, "divide" + suffix):
            install(n, div)


_div_forms()


def _where(cond, x, y):
    """where() as an op (create_graph works); x or y may be a Python number."""
    from .registry import FUNCTIONS
    return FUNCTIONS["where"](cond, x, y)


def _log_of_number(v, complex_result=False):
    """log of a Python number; a complex one (or any, when the result is complex: PyTorch
    promotes a real base to complex first) takes the principal complex log."""
    with np.errstate(all="ignore"):
        if complex_result or isinstance(v, complex):
            return complex(np.log(np.complex128(v)))
        return float(np.log(np.float64(v)))


def _nonneg_real(y):
    """y >= 0 for a real exponent; for a complex one, a real non-negative value (PyTorch's
    condition for the zero base's exponent gradient)."""
    if isinstance(y, Tensor):
        if y._data.dtype.kind == "c":
            return (y.imag == 0) & (y.real >= 0)
        return y >= 0
    return y.imag == 0 and y.real >= 0 if isinstance(y, complex) else y >= 0


def _pow_back(ctx, g):
    """PyTorch's pow_backward_self / pow_backward_exponent (FunctionsManual.cpp): a zero
    exponent has gradient 0 for the base (also at base 0, where y * x**(y-1) is 0 * inf),
    and a zero base with a non-negative exponent has gradient 0 for the exponent. Complex
    operands: both derivatives conjugated (Note [Complex autograd])."""
    x, y = ctx.input(0), ctx.input(1)
    gx = gy = None
    if ctx.needs[0]:
        if isinstance(y, Tensor):
            gx = _where(y == 0, 0.0, g * _cj(y * x ** (y - 1)))
        elif y == 0:
            gx = _zeros_like(x, g)
        else:
            gx = g * _cj(y * x ** (y - 1))
    if ctx.needs[1]:
        out = ctx.out
        if isinstance(x, Tensor):
            # the log in the result dtype (PyTorch promotes self first): a float32 base with
            # a float64 exponent must not lose the gradient's precision to a float32 log
            xl = x if x.dtype == out.dtype else x.astype(out.dtype)
            gy = g * _where((x == 0) & _nonneg_real(y), 0.0, _cj(out * xl.log()))
        else:
            lx = _log_of_number(x, out._data.dtype.kind == "c")
            if x == 0:
                gy = g * _where(_nonneg_real(y), 0.0, _cj(out * lx))
            else:
                gy = g * _cj(out * lx)
    return gx, gy


def _zeros_like(x, g):
    from .registry import FUNCTIONS
    return FUNCTIONS["zeros_like"](x, dtype=g.dtype)


def _check_pow(op_name, args, attrs, rdt):
    y = args[1]
    if rdt.kind == "b":
        # PyTorch computes a scalar exponent of 0 or 1 as fill(1) / copy, for any dtype
        if not (isinstance(y, (bool, np.bool_)) and isinstance(args[0], Tensor)
                and _torch_door(args)):
            _no_kernel(op_name, "pow", rdt, "cast to an integer or floating dtype first.")
    if rdt.kind in "iu" and not isinstance(y, Tensor):   # a tensor exponent is computed (_pow_k)
        if y < 0:
            raise ArgValueError(f"{op_name}(): Integers to negative integer powers are not "
                                f"allowed (result dtype {rdt}). Fix: cast to a floating dtype.")
        _scalar_fits(op_name, y, rdt, "exponent")


def _scalar_fits(op_name, v, rdt, name):
    """PyTorch converts some integer scalars to the result dtype with a range check (pow's
    exponent, clamp's bounds): "value cannot be converted to type int8_t without overflow",
    where arithmetic ops (add, mul) wrap instead (registry.int_scalars)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        info = np.iinfo(rdt)
        if not info.min <= int(v) <= info.max:
            raise ArgValueError(f"{op_name}(): value cannot be converted to type {rdt.name}_t "
                                f"without overflow ({name}={v}, result dtype {rdt}). Fix: pass "
                                f"a value in [{info.min}, {info.max}], or cast the tensor to a "
                                "wider dtype first.")


def _pow_k(out, rdt, x, y):
    """np.power, except integer tensors raised to negative integer tensor exponents, which
    NumPy refuses and PyTorch computes: 1 -> 1, -1 -> +-1 by parity, anything else -> 0;
    and a bool tensor to a bool scalar (x or all True, as PyTorch's copy / fill(1))."""
    if rdt.kind == "b":
        r = _xp.array_module(x).ones(np.shape(x), rdt) if not y else x
        if out is None:
            return _xp.array(r, dtype=rdt)
        np.copyto(out, r, casting=_UNSAFE)
        return out
    if rdt.kind in "iu" and isinstance(y, np.ndarray) and (y < 0).any():
        neg = y < 0
        r = np.power(x, np.where(neg, 0, y), dtype=rdt, casting=_UNSAFE)
        xb = _xp.asarray(x).astype(rdt, copy=False)
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
            out = _xp.array_module(x).empty(np.shape(x), rdt)
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

# Paddle's pow_ refuses a list, tuple, string or None exponent with its TypeError (the core
# would read a list as a tensor); a tensor exponent, which Paddle 3.3.1 also refuses, is
# taken as the declared op does. The PyTorch door's Tensor.pow_ keeps the declared spelling.
pow_any_ = FUNCTIONS["pow_"]


def _paddle_pow_(x, y, name=None):
    """x ** y written into x, in place; returns x (y: a number or a tensor)."""
    if not isinstance(y, (int, float, np.integer, np.floating, Tensor)):
        raise ArgTypeError(f"y must be scalar type, but received: {type(y)} (pow_ takes a "
                           "Python number or a tensor)")
    return pow_any_(x, y)


install("pow_", _paddle_pow_, True, True)


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
# Note [Comparisons in the common dtype]
# PyTorch compares in the operands' common dtype (TensorIterator's, Note [Type promotion]),
# converting each operand to it first: an integer scalar wraps into an unsigned tensor's type
# (`uint8_t < -3` compares with 253, `uint8_t == -3` is true at 253), a 0-d tensor is cast
# to the dim tensor's type (`float16_t == float64_0d(0.1)` compares two float16 0.1s). NumPy
# would compare the mathematical values; the kernel converts as PyTorch does.
_COMPARISONS = (np.equal, np.not_equal, np.greater, np.greater_equal, np.less, np.less_equal)


def _compare_kernel(uf):
    def k(out, rdt, x, y):
        dims, zeros, skinds = [], [], []
        for a in (x, y):
            if isinstance(a, np.ndarray):
                (dims if a.ndim else zeros).append(a.dtype)
            else:
                skinds.append(_dt.scalar_kind(a))
        ct = _dt.promote(tuple(dims), tuple(zeros), tuple(skinds))
        x, y = (a.astype(ct, copy=False) if isinstance(a, np.ndarray) else a for a in (x, y))
        x, y = int_scalars((x, y), ct)
        return uf(x, y, out=out)
    k.__doc__ = (f"Elementwise {uf.__name__} in the operands' common dtype "
                 "(Note [Comparisons in the common dtype]).")
    return k


for _name, _uf, _al in (("equal", np.equal, ("eq",)), ("not_equal", np.not_equal, ("ne",)),
                        ("greater_than", np.greater, ("gt", "greater")),
                        ("greater_equal", np.greater_equal, ("ge",)),
                        ("less_than", np.less, ("lt", "less")),
                        ("less_equal", np.less_equal, ("le",)),
                        ("logical_and", np.logical_and, ()), ("logical_or", np.logical_or, ()),
                        ("logical_xor", np.logical_xor, ())):
    pointwise_op(_name, (_compare_kernel(_uf) if _uf in _COMPARISONS else
                         (lambda uf: lambda out, rdt, x, y: uf(x, y, out=out))(_uf)), None,
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
        _no_kernel(op_name, op_name.rstrip("_") + "_cpu", rdt,
                   "bitwise ops take integer or bool tensors; compare first, or cast to an "
                   "integer dtype.")


for _name, _uf, _sym in (("bitwise_and", np.bitwise_and, "&"), ("bitwise_or", np.bitwise_or, "|"),
                         ("bitwise_xor", np.bitwise_xor, "^")):
    pointwise_op(_name, binary_kernel(_uf), None, inputs=("x", "y"), check=_check_bitwise,
      doc=f"Bitwise x {_sym} y of integer or bool tensors, with broadcasting.")
pointwise_op("bitwise_not", unary_kernel(np.invert), None, check=_check_bitwise,
  doc="Bitwise ~x of an integer or bool tensor.")


def _check_shift(op_name, args, attrs, rdt):
    if rdt.kind in "bf":
        _no_kernel(op_name, ("lshift_cpu" if "left" in op_name or "<<" in op_name
                             else "rshift_cpu"), rdt,
                   "shifts take integer tensors; cast to an integer dtype first.")


# NumPy's shifts are PyTorch's at the edges too (npy_lshift / npy_rshift): a shift by a
# negative amount or by the bit width or more gives 0 (left) or the sign fill (right); a
# left shift wraps in the result dtype (int8 100 << 2 is -112)
pointwise_op("bitwise_left_shift", binary_kernel(np.left_shift), None, inputs=("x", "y"),
  check=_check_shift, doc="x shifted left by y bits (x * 2**y, wrapping in the result dtype; "
  "0 for a shift below 0 or of the bit width or more), with broadcasting.")
pointwise_op("bitwise_right_shift", binary_kernel(np.right_shift), None, inputs=("x", "y"),
  check=_check_shift, doc="x shifted right by y bits (arithmetic: the sign fills in; a shift "
  "below 0 or of the bit width or more leaves only the sign), with broadcasting.")

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


def _threshold_k(out, rdt, x, threshold, value):
    """PyTorch's threshold: value where x <= threshold, else x (a NaN x stays NaN)."""
    if out is None:
        out = _xp.array(x, dtype=rdt)
    elif out is not x:
        np.copyto(out, x, casting=_UNSAFE)
    np.copyto(out, value, where=_xp.asarray(x) <= threshold, casting=_UNSAFE)
    return out


def _check_threshold(op_name, args, attrs, rdt):
    if rdt.kind == "b":
        _no_kernel(op_name, "threshold_cpu", rdt, "cast to an integer or floating dtype first.")
    for v, n in zip(attrs, ("threshold", "value")):
        if isinstance(v, Tensor) or v is None:
            raise ArgTypeError(f"{op_name}(): argument '{n}' must be a number, not "
                               f"{type(v).__name__}")


# torch.threshold / torch.nn.functional.threshold (ThresholdBackward0): the result keeps x's
# dtype (value is cast into it); the gradient passes where x > threshold (or x is NaN)
pointwise_op("threshold", _threshold_k,
  lambda ctx, g: (_where(ctx.input(0) <= ctx.attrs[0], 0.0, g),), needs={"x": ("x",)},
  attrs=(("threshold", None), ("value", None)), number_attrs=("threshold", "value"),
  check=_check_threshold, promote=(0,), method=False,
  doc="value where x <= threshold, else x (keeps x's dtype).")


def _masked_fill_k(out, rdt, x, mask, value):
    if out is None:     # the out-of-place result has the broadcast shape of x, mask, value
        shape = np.broadcast_shapes(np.shape(x), np.shape(mask), np.shape(value))
        out = _xp.array(np.broadcast_to(x, shape), dtype=rdt)
    elif out is not x:   # the out= spelling: the unmasked elements are x's
        np.copyto(out, x, casting=_UNSAFE)
    np.copyto(out, value, where=mask, casting=_UNSAFE)
    return out


def _masked_fill_back(ctx, g):
    mask = ctx.input(1)
    return (_where(mask, 0.0, g) if ctx.needs[0] else None, None,
            _where(mask, g, 0.0).sum() if ctx.needs[2] else None)


# the result keeps x's dtype (PyTorch and Paddle): `int_tensor.masked_fill(m, 0.5)` is int
_masked_fill = pointwise_op("masked_fill", _masked_fill_k, _masked_fill_back, needs={"x": ("mask",), "value": ("mask",)},
                inputs=("x", "mask", "value"), check=_check_mask, promote=(0,),
                doc="x with the elements where mask is True set to value (keeps x's dtype).")
_masked_fill.expanded_write = (   # Note [Writes into expanded tensors]
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar")


# ---------------------------------------------------------------- issue 10: more unary ops
# Note [Error function kernels]
# NumPy has no erf. erf and erfc follow fdlibm's s_erf.c (Sun, 1993) branch for branch, in
# float64, vectorised: a rational approximation on |x| < 0.84375, one around 1 on
# [0.84375, 1.25), and exp(-z*z - 0.5625) * exp((z - x)(z + x) + R/S) / x beyond, z being x
# with its low 32 bits cleared (so z*z is exact). erfinv is PyTorch's own calc_erfinv
# (aten/src/ATen/native/Math.h): a rational first guess, then two Newton steps on erf. Each
# is computed in float64 and rounded to the result dtype once.
_ERX, _EFX = 8.45062911510467529297e-01, 1.28379167095512586316e-01
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
       -5.77027029648944159157e-03, -2.37630166566501626084e-05)
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
       1.32494738004321644526e-04, -3.96022827877536812320e-06)
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
       3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
       1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
       -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
       -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
       6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
       6.57024977031928170135e+00, -6.04244152148580987438e-02)
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
       -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
       -4.83519191608651397019e+02)
_SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
       3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
       -2.24409524465858183362e+01)


def _poly(coef, z):
    r = np.full_like(z, coef[-1])
    for c in coef[-2::-1]:
        r = r * z + c
    return r


def _erf_parts(x):
    """(ax, tail) for fdlibm's |x| >= 1.25 branch: tail = exp(-z*z - 0.5625 + ...) / |x|
    (erfc(|x|) there), computed where 1.25 <= |x| < 28 (other elements: 0)."""
    ax = np.abs(x)
    tail = np.zeros_like(ax)
    m = (ax >= 1.25) & (ax < 28)
    if m.any():
        a = ax[m]
        s = 1.0 / (a * a)
        small = a < 1 / 0.35
        R = np.where(small, _poly(_RA, s), _poly(_RB, s))
        S = np.where(small, _poly(_SA, s), _poly(_SB, s))
        z = (a.view(np.uint64) & np.uint64(0xFFFFFFFF00000000)).view(np.float64)
        with np.errstate(under="ignore"):
            tail[m] = np.exp(-z * z - 0.5625) * np.exp((z - a) * (z + a) + R / S) / a
    return ax, tail


def erf_f64(x):
    """erf of a float64 array (Note [Error function kernels])."""
    x = _xp.asarray(x, np.float64)
    ax, tail = _erf_parts(x)
    with np.errstate(all="ignore"):   # the branches not taken may overflow (inf, nan)
        z = x * x
        small = x + x * (_poly(_PP, z) / _poly(_QQ, z))
        s = ax - 1
        mid = np.copysign(_ERX + _poly(_PA, s) / _poly(_QA, s), x)
        big = np.copysign(1.0 - tail, x)
    r = np.where(ax < 0.84375, small, np.where(ax < 1.25, mid, big))
    return np.where(np.isnan(x), x, r)


def erfc_f64(x):
    """erfc of a float64 array (Note [Error function kernels])."""
    x = _xp.asarray(x, np.float64)
    ax, tail = _erf_parts(x)
    with np.errstate(all="ignore"):   # the branches not taken may overflow (inf, nan)
        z = x * x
        y = _poly(_PP, z) / _poly(_QQ, z)
        small = np.where(x < 0.25, 1.0 - (x + x * y), 0.5 - (x * y + (x - 0.5)))
        s = ax - 1
        pq = _poly(_PA, s) / _poly(_QA, s)
        mid = np.where(x >= 0, 1.0 - _ERX - pq, 1.0 + (_ERX + pq))
    big = np.where(x > 0, tail, 2.0 - tail)
    r = np.where(ax < 0.84375, small, np.where(ax < 1.25, mid, big))
    r = np.where(ax >= 28, np.where(x > 0, 0.0, 2.0), r)
    return np.where(np.isnan(x), x, r)


_EI_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_EI_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_EI_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_EI_D = (3.543889200, 1.637067800)


def erfinv_f64(y):
    """erfinv of a float64 array, as PyTorch's calc_erfinv (Note [Error function kernels])."""
    y = _xp.asarray(y, np.float64)
    ay = np.abs(y)
    with np.errstate(all="ignore"):
        z = y * y
        num = ((_EI_A[3] * z + _EI_A[2]) * z + _EI_A[1]) * z + _EI_A[0]
        dem = (((_EI_B[3] * z + _EI_B[2]) * z + _EI_B[1]) * z + _EI_B[0]) * z + 1.0
        central = y * num / dem
        w = np.sqrt(-np.log((1.0 - ay) / 2.0))
        num = ((_EI_C[3] * w + _EI_C[2]) * w + _EI_C[1]) * w + _EI_C[0]
        dem = (_EI_D[1] * w + _EI_D[0]) * w + 1.0
        tail = np.copysign(num, y) / dem
        x = np.where(ay <= 0.7, central, tail)
        k = 2.0 / np.sqrt(np.pi)
        for _ in range(2):
            x = x - (erf_f64(x) - y) / (k * np.exp(-x * x))
        x = np.where(ay == 1, np.copysign(np.inf, y), x)
        return np.where(ay > 1, np.nan, x)


def _f64_kernel(fn, name):
    """A kernel computing fn in float64 and rounding once into the result dtype."""
    def k(out, rdt, x):
        with np.errstate(all="ignore"):
            r = fn(_xp.asarray(x, np.float64))
        return _rounded_into(out, rdt, r)
    k.__doc__ = f"Elementwise {name}, computed in float64."
    k.no_complex = name + "_cpu"   # Note [Ops without a complex kernel]
    return k


_TWO_OVER_SQRT_PI = 2.0 / float(np.sqrt(np.pi))


def _floating_input(op_name, args, attrs, rdt):
    """Ops PyTorch implements for floating tensors only (frac): an integer or bool tensor is
    refused, not silently turned into zeros. Paddle's frac of int32/int64 is zeros (its
    door keeps that; bool and uint8/int8/int16 it refuses too)."""
    x = args[0]
    if isinstance(x, Tensor) and x._data.dtype.kind != "f":
        if x._data.dtype in (np.int32, np.int64) and not _torch_door(args):
            return
        _no_kernel(op_name, op_name.rstrip("_") + "_cpu", x._data.dtype,
                   "cast to a floating dtype first.")


pointwise_op("erf", _f64_kernel(erf_f64, "erf"),
  lambda ctx, g: (g * ((ctx.input(0).square() * -1).exp() * _TWO_OVER_SQRT_PI),),
  needs={"x": ("x",)}, result_dtype=float_result, doc="Elementwise error function erf(x).")
pointwise_op("erfc", _f64_kernel(erfc_f64, "erfc"),
  lambda ctx, g: (g * ((ctx.input(0).square() * -1).exp() * -_TWO_OVER_SQRT_PI),),
  needs={"x": ("x",)}, result_dtype=float_result,
  doc="Elementwise complementary error function 1 - erf(x), accurate for large x.")
pointwise_op("erfinv", _f64_kernel(erfinv_f64, "erfinv"),
  lambda ctx, g: (g * (ctx.out.square().exp() * (float(np.sqrt(np.pi)) / 2)),),
  needs={"x": ("out",)}, result_dtype=float_result,
  doc="Elementwise inverse error function (erfinv(erf(x)) == x); nan outside [-1, 1].")
pointwise_op("asinh", unary_kernel(np.arcsinh),
  lambda ctx, g: (g / _cj((ctx.input(0).square() + 1).sqrt()),), needs={"x": ("x",)},
  result_dtype=float_result, fast=np.arcsinh, doc="Elementwise inverse hyperbolic sine of x.")
def _acosh_back(ctx, g):
    x = ctx.input(0)
    if x._data.dtype.kind == "c":
        # sqrt(z - 1) * sqrt(z + 1), not sqrt(z*z - 1): the two differ in sign for Re z < 0
        # (the branch of PyTorch's formula and of arccosh's own derivative)
        return (g / ((x - 1).sqrt() * (x + 1).sqrt()).conj(),)
    return (g / (x.square() - 1).sqrt(),)


pointwise_op("acosh", unary_kernel(np.arccosh), _acosh_back, needs={"x": ("x",)},
  result_dtype=float_result, fast=np.arccosh,
  doc="Elementwise inverse hyperbolic cosine of x (nan below 1).")
pointwise_op("atanh", unary_kernel(np.arctanh),
  lambda ctx, g: (g / _cj(1 - ctx.input(0).square()),), needs={"x": ("x",)},
  result_dtype=float_result, fast=np.arctanh,
  doc="Elementwise inverse hyperbolic tangent of x (inf at +-1, nan beyond).")
pointwise_op("exp2", unary_kernel(np.exp2),
  lambda ctx, g: (g * _cj(ctx.out) * float(np.log(2)),), needs={"x": ("out",)},
  result_dtype=float_result, fast=np.exp2, doc="Elementwise 2**x.")
pointwise_op("frac", lambda out, rdt, x: np.subtract(x, np.trunc(x), out=out, dtype=rdt, casting=_UNSAFE),
  lambda ctx, g: (g,), check=_floating_input,
  doc="Elementwise fractional part x - trunc(x) (keeps the sign of x).")


def _times_const(c):
    """x * c with c rounded to the result dtype first, as PyTorch multiplies by a Scalar."""
    def k(out, rdt, x):
        return np.multiply(x, rdt.type(c), out=out, dtype=rdt, casting=_UNSAFE)
    k.__doc__ = f"Elementwise x * {c!r}."
    return k


_DEG = float(np.pi) / 180.0
pointwise_op("deg2rad", _times_const(_DEG), lambda ctx, g: (g * _DEG,), result_dtype=float_result,
  doc="Elementwise conversion of angles from degrees to radians, x * pi / 180.")
pointwise_op("rad2deg", _times_const(1 / _DEG), lambda ctx, g: (g * (1 / _DEG),),
  result_dtype=float_result,
  doc="Elementwise conversion of angles from radians to degrees, x * 180 / pi.")


def _sinc(x):
    px = np.pi * x
    with np.errstate(all="ignore"):
        return np.where(x == 0, 1.0, np.sin(px) / px)


_sinc_real = _f64_kernel(_sinc, "sinc")


def _sinc_k(out, rdt, x):
    # sinc has a complex kernel in both frameworks (sin(pi z) / (pi z), 1 at 0): complex
    # operands are computed in complex128 and rounded once
    if rdt.kind != "c":
        return _sinc_real(out, rdt, x)
    with np.errstate(all="ignore"):
        r = _sinc(_xp.asarray(x, np.complex128))
    return _rounded_into(out, rdt, r)


def _sinc_back(ctx, g):
    x = ctx.input(0)
    px = x * float(np.pi)
    d = (px * px.cos() - px.sin()) / (px * x)
    return (_where(x == 0, 0.0, g * _cj(d)),)   # Note [Complex autograd]: g * conj(f'(z))


SINC = pointwise_op("sinc", _sinc_k, _sinc_back, needs={"x": ("x",)},
  result_dtype=float_result, doc="Elementwise normalised sinc, sin(pi x) / (pi x) (1 at 0).")
SINC.complex_grad = True   # Note [Complex autograd]: checked in tests/test_paddle_exact2.py


def _k_logit(out, rdt, x, eps):
    xf = _xp.asarray(x, np.float64)
    if eps is not None:
        xf = np.clip(xf, eps, 1 - eps)
    with np.errstate(all="ignore"):
        r = np.log(xf / (1 - xf))
    return _rounded_into(out, rdt, r)


def _logit_back(ctx, g):
    x = ctx.input(0)
    eps = ctx.attrs[0]
    d = g / (x * (1 - x))
    if eps is None:
        return (d,)
    return (_where((x < eps) | (x > 1 - eps), 0.0, d),)


pointwise_op("logit", _k_logit, _logit_back, needs={"x": ("x",)}, attrs=(("eps", None),),
  result_dtype=float_result, number_attrs=("eps",),
  doc="Elementwise log(x / (1 - x)); with eps, x is clamped into [eps, 1 - eps] first.")


def _k_nan_to_num(out, rdt, x, nan, posinf, neginf):
    if rdt.kind == "f":
        r = np.nan_to_num(_xp.asarray(x), nan=nan, posinf=posinf, neginf=neginf)
    else:
        r = _xp.asarray(x)
    if out is None:
        return _xp.array(r, dtype=rdt)
    np.copyto(out, r, casting=_UNSAFE)
    return out


pointwise_op("nan_to_num", _k_nan_to_num,
  lambda ctx, g: (_where(ctx.input(0).isfinite(), g, 0.0),), needs={"x": ("x",)},
  attrs=(("nan", 0.0), ("posinf", None), ("neginf", None)),
  number_attrs=("nan", "posinf", "neginf"),
  doc="x with NaN replaced by nan, +inf by posinf and -inf by neginf (default: the dtype's "
      "largest and smallest finite values).")


def _alias(new, old):
    """`new` names the same spellings as `old` (function, method and in-place forms)."""
    from .registry import FUNCTIONS, install
    for suffix in ("", "_"):
        fn = FUNCTIONS.get(old + suffix)
        if fn is None:
            fn = getattr(Tensor, old + suffix, None)
            if fn is None:
                continue
            install(new + suffix, fn, function=False, method=True)
        else:
            install(new + suffix, fn, function=True, method=hasattr(Tensor, old + suffix))


for _new, _old in (("absolute", "abs"), ("arccos", "acos"), ("arcsin", "asin"),
                   ("arctan", "atan"), ("arcsinh", "asinh"), ("arccosh", "acosh"),
                   ("arctanh", "atanh"), ("fix", "trunc")):
    _alias(_new, _old)


# Note [In-place forms of every elementwise op]
# PyTorch gives every elementwise op an in-place form that keeps self's dtype (`x.eq_(y)`
# writes 1/0 into x; `m.logical_not_()` into an int tensor). Declarations above that predate
# this (comparisons and logic ops, declared with inplace=False) get theirs here, built by the
# registry from the same declaration (ops/spellings.py), so they follow Note [Check, then
# write] like every other in-place op. Ops whose in-place form would differ in meaning stay
# out-of-place only (maximum/minimum/fmax/fmin: PyTorch has none).
def _add_inplace_forms():
    from .registry import OPS
    from .spellings import inplace_spelling, install
    aliases = {"equal": ("eq",), "not_equal": ("ne",), "greater_than": ("gt", "greater"),
               "greater_equal": ("ge",), "less_than": ("lt", "less"), "less_equal": ("le",)}
    for name in ("equal", "not_equal", "greater_than", "greater_equal", "less_than",
                 "less_equal", "logical_and", "logical_or", "logical_xor", "logical_not"):
        op = OPS[name]
        if op.inplace_ok or hasattr(Tensor, name + "_"):
            continue
        op.inplace_ok = True
        fn = inplace_spelling(op, name + "_")
        install(name + "_", fn)
        for a in aliases.get(name, ()):
            install(a + "_", fn)


_add_inplace_forms()
