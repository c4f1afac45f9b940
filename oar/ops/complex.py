"""Complex tensors (Note [Complex dtypes], oar/dtypes.py): the ops that make, take apart and
look at them (complex, polar, real, imag, view_as_real / as_real, view_as_complex /
as_complex, conj, angle, is_complex), and the list of ops whose backward is checked for
complex operands (Note [Complex autograd], ops/registry.py).

real, imag, view_as_real and view_as_complex are views: they share the tensor's storage and
version counter (so `x.real.add_(1)` changes x and bumps x's version), in both doors
(paddle 3.3.1's as_real / as_complex / real share memory too). conj is PyTorch's conj
materialised: oar keeps no lazy conjugate bit, so is_conj() is always False and
resolve_conj() is the tensor itself.
"""
from __future__ import annotations

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from ..autograd.errors import ArgTypeError, ArgValueError, DtypeNotImplementedError
from ..tensor import Tensor
from . import args as A
from . import views as _V
from .registry import OPS, OpDef, dispatch, dispatch_view, register_function
from .pointwise import _where, pointwise_op


def is_complex(x, name=None):
    """Whether x's dtype is complex64 or complex128."""
    return A.tensor(x, "is_complex", "x")._data.dtype.kind == "c"


register_function("is_complex", is_complex)


# Paddle's dtype predicates beside is_complex (paddle.is_floating_point / is_integer, also
# Tensor methods): float16, bfloat16, float32, float64 are floating; the signed and unsigned
# integer dtypes are integer; bool is neither (as in both frameworks).
def is_floating_point(x, name=None):
    """Whether x's dtype is a floating dtype (float16, bfloat16, float32 or float64)."""
    return _dt.is_float(A.tensor(x, "is_floating_point", "x")._data.dtype)


def is_integer(x, name=None):
    """Whether x's dtype is an integer dtype (uint8, int8, int16, int32 or int64; not bool)."""
    return A.tensor(x, "is_integer", "x")._data.dtype.kind in "iu"


register_function("is_floating_point", is_floating_point)
register_function("is_integer", is_integer)


def _complex_only(op):
    def check(x):
        if x._data.dtype.kind != "c":
            raise ArgValueError(f"{op} is only supported for complex tensors (got a "
                                f"{x._data.dtype} tensor). Fix: make one with complex(real, "
                                "imag) or view_as_complex.")
    return check


# ---------------------------------------------------------------- real / imag (views)
def _b_imag(ctx, g):
    return (g * 1j,)   # d(imag z) = dy: the gradient is i*g (Note [Complex autograd])


# real's backward is g itself: OpNode casts it to the complex input dtype (g + 0j)
REAL_OP = OpDef("real", lambda a: a.real, lambda ctx, g: (g,), kind="view",
                node_name="RealBackward0", doc="The real part of a complex tensor (a view).")
IMAG_OP = OpDef("imag", lambda a: a.imag, _b_imag, kind="view", node_name="ImagBackward0",
                doc="The imaginary part of a complex tensor (a view).")


def real(x, name=None):
    """The real part of x: a view sharing x's memory (writes show in x); a real x is
    returned itself."""
    x = A.tensor(x, "real", "x")
    if x._data.dtype.kind != "c":
        return x
    return dispatch_view(REAL_OP, x, ())


def imag(x, name=None):
    """The imaginary part of complex x: a view sharing x's memory (writes show in x)."""
    x = A.tensor(x, "imag", "x")
    if x._data.dtype.kind != "c":
        raise ArgValueError("imag is not implemented for tensors with non-complex dtypes.")
    return dispatch_view(IMAG_OP, x, ())


register_function("real", real)
register_function("imag", imag)


# ---------------------------------------------------------------- view_as_real / view_as_complex
def _k_view_as_real(a):
    r = a.real   # the real parts: a float view with a's byte strides
    return np.lib.stride_tricks.as_strided(r, a.shape + (2,), r.strides + (r.itemsize,))


def _b_view_as_real(ctx, g):
    return (view_as_complex(g.contiguous()),)


def _k_view_as_complex(a):
    return a.view(_dt.to_complex(a.dtype))[..., 0]


def _b_view_as_complex(ctx, g):
    return (view_as_real(g),)


VIEW_AS_REAL_OP = OpDef("view_as_real", _k_view_as_real, _b_view_as_real, kind="view",
                        node_name="ViewAsRealBackward0",
                        doc="A complex tensor viewed as real pairs (a trailing axis of 2).")
VIEW_AS_COMPLEX_OP = OpDef("view_as_complex", _k_view_as_complex, _b_view_as_complex,
                           kind="view", node_name="ViewAsComplexBackward0",
                           doc="A real tensor of (re, im) pairs viewed as complex.")


def view_as_real(x, name=None):
    """The complex tensor x viewed as a real tensor of shape x.shape + [2] (real and
    imaginary parts), sharing x's memory and version counter."""
    x = A.tensor(x, "view_as_real", "x")
    if x._data.dtype.kind != "c":
        raise ArgValueError("view_as_real is only supported for complex tensors (got a "
                            f"{x._data.dtype} tensor).")
    return dispatch_view(VIEW_AS_REAL_OP, x, ())


def view_as_complex(x, name=None):
    """A float32/float64 tensor whose last dimension holds (real, imaginary) pairs, viewed
    as a complex tensor of the leading shape, sharing x's memory and version counter. As
    PyTorch: the last dimension must have size 2 and stride 1, every other stride and the
    storage offset must be even."""
    x = A.tensor(x, "view_as_complex", "x")
    d = x._data
    if d.dtype not in (np.float32, np.float64):
        names = {"float16": "Half", "int64": "Long", "int32": "Int", "bool": "Bool",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
        raise ArgValueError("view_as_complex is only supported for half, float and double "
                            "tensors, but got a tensor of scalar type: "
                            f"{names.get(d.dtype.name, d.dtype.name)} (oar has no complex32, "
                            "so half is refused too). Fix: cast to float32 first.")
    if d.ndim == 0:
        raise ArgValueError("Input tensor must have one or more dimensions")
    if d.shape[-1] != 2:
        raise ArgValueError(f"Tensor must have a last dimension of size 2 (view_as_complex "
                            f"got shape {list(d.shape)})")
    _, strides, off = _V.geometry(x)
    if strides[-1] != 1:
        raise ArgValueError("Tensor must have a last dimension with stride 1 (view_as_complex "
                            f"got strides {list(strides)}). Fix: call .contiguous() first.")
    if any(s % 2 for s in strides[:-1]):
        raise ArgValueError("Tensor must have a stride divisible by 2 for all but last "
                            f"dimension (view_as_complex got strides {list(strides)})")
    if off % 2:
        raise ArgValueError("Tensor must have a storage_offset divisible by 2 (view_as_complex "
                            f"got storage offset {off})")
    return dispatch_view(VIEW_AS_COMPLEX_OP, x, ())


register_function("view_as_real", view_as_real, method=False)
register_function("view_as_complex", view_as_complex, method=False)


def as_real(x, name=None):
    """Paddle's as_real: view_as_real (a view in paddle 3.3.1 too)."""
    return view_as_real(x)


def as_complex(x, name=None):
    """Paddle's as_complex: view_as_complex (a view in paddle 3.3.1 too)."""
    return view_as_complex(x)


register_function("as_real", as_real)
register_function("as_complex", as_complex)


# ---------------------------------------------------------------- conj
def _k_conj(out, rdt, x):
    return np.conjugate(x, out=out, dtype=rdt, casting="unsafe")


CONJ = pointwise_op("conj", _k_conj, lambda ctx, g: (g.conj(),), inplace=False,
                    node_name="ConjBackward0",
                    doc="Elementwise complex conjugate (a real tensor: its values).")


def conj_if_complex(t):
    """t's complex conjugate, t itself when real (the conj() of Note [Complex autograd]'s
    formulas; a Python number too)."""
    if isinstance(t, Tensor):
        return dispatch(CONJ, (t,), ()) if t._data.dtype.kind == "c" else t
    return t.conjugate() if isinstance(t, complex) else t


# ---------------------------------------------------------------- complex / polar / angle
_TORCH_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _check_parts(op_name, a, b, names=("real", "imag")):
    for n, t in zip(names, (a, b)):
        if not isinstance(t, Tensor):
            raise ArgTypeError(f"{op_name}(): argument '{n}' must be Tensor, not "
                               f"{type(t).__name__}")
    da, db = a._data.dtype, b._data.dtype
    if op_name == "polar" and da == db == np.float16:
        # torch accepts Half parts for polar but has no Half kernel for it
        raise NotImplementedError('"polar_cpu" not implemented for \'Half\' (polar(): cast '
                                  'abs and angle to float32 first)')
    if da not in (np.float32, np.float64) or db not in (np.float32, np.float64):
        raise ArgTypeError(f"{op_name}(): Expected both inputs to be Float or Double tensors "
                           f"(oar has no complex32) but got {_TORCH_NAMES.get(da.name, da.name)}"
                           f" and {_TORCH_NAMES.get(db.name, db.name)}")
    if da != db:
        raise ArgTypeError(f"{op_name}(): Expected object of scalar type "
                           f"{_TORCH_NAMES[da.name]} but got scalar type {_TORCH_NAMES[db.name]}"
                           " for second argument. Fix: cast both parts to one dtype.")


def _k_complex(out, rdt, x, y):
    if out is None:
        out = _xp.array_module(x, y).empty(np.broadcast_shapes(np.shape(x), np.shape(y)), rdt)
    out.real[...] = x
    out.imag[...] = y
    return out


COMPLEX = pointwise_op(
    "complex", _k_complex, lambda ctx, g: (real(g), imag(g)), inputs=("x", "y"),
    inplace=False, method=False, result_dtype=_dt.to_complex, node_name="ComplexBackward0",
    check=lambda op_name, args, attrs, rdt: _check_parts(op_name, *args),
    doc="The complex tensor x + i*y of two float32 (or float64) tensors, with broadcasting.")


def polar(abs, angle, name=None):  # noqa: A002  (torch's and Paddle's argument names)
    """The complex tensor abs * (cos(angle) + i*sin(angle)) of two float32 (or float64)
    tensors, with broadcasting; differentiable in both."""
    _check_parts("polar", abs, angle, ("abs", "angle"))
    return dispatch(COMPLEX, (abs * angle.cos(), abs * angle.sin()), ())


register_function("polar", polar, method=False)


def _k_angle(out, rdt, x):
    if np.asarray(x).dtype.kind == "c":
        r = np.angle(x)
    else:   # a real number's angle: pi for negatives, 0 otherwise, nan stays nan
        r = np.where(np.asarray(x) < 0, np.pi, np.where(np.isnan(x), np.nan, 0.0))
    if out is None:
        return np.asarray(r, dtype=rdt)
    np.copyto(out, r, casting="unsafe")
    return out


def _b_angle(ctx, g):
    z = ctx.input(0)
    if z._data.dtype.kind != "c":
        return (g * 0.0,)
    # angle = atan2(y, x): dL/dx + i dL/dy = g * (-y + ix) / |z|^2 = g * i z / |z|^2; 0 at 0
    a2 = z.abs().square()
    return (g * z * 1j / _where(a2 == 0, 1.0, a2),)


def _angle_dtype(rdt):
    return _dt.to_real(rdt) if rdt.kind == "c" else (rdt if _dt.is_float(rdt)
                                                       else _dt.DEFAULT_FLOAT.np)


ANGLE = pointwise_op("angle", _k_angle, _b_angle, needs={"x": ("x",)}, inplace=False,
                     result_dtype=_angle_dtype, node_name="AngleBackward0",
                     doc="Elementwise argument of x in radians (complex: atan2(imag, real); "
                         "real: pi for negatives, else 0).")


# ---------------------------------------------------------------- ops without complex kernels
# Ordering, rounding and clamping have no meaning for complex numbers: PyTorch refuses them
# (NotImplementedError, RuntimeError for maximum/minimum), where NumPy would order complex
# numbers lexicographically or raise its own TypeError. Each op's check (run before anything
# is allocated or written, Note [Check, then write]) refuses a complex operand first.
_NO_COMPLEX = ("maximum", "minimum", "fmax", "fmin", "less_than", "less_equal", "greater_than",
               "greater_equal", "clip", "floor", "ceil", "trunc", "round", "remainder",
               "floor_divide", "sign", "relu")


def _refusing_complex(op):
    inner = op.check

    def check(op_name, args, attrs, rdt):
        for a in args:
            if (isinstance(a, Tensor) and a._data.dtype.kind == "c") or isinstance(a, complex):
                raise DtypeNotImplementedError(
                    f"{op_name}(): not implemented for complex tensors (\"{op.name}\" has no "
                    "complex kernel in PyTorch either). Fix: apply it to the real part, the "
                    "imaginary part or the magnitude (x.real, x.imag, x.abs()); for sign use "
                    "sgn.")
        if inner is not None:
            return inner(op_name, args, attrs, rdt)
    return check


for _n in _NO_COMPLEX:
    OPS[_n].check = _refusing_complex(OPS[_n])


# ---------------------------------------------------------------- Note [Complex autograd]
# The ops whose backward is checked against torch 2.13 for complex operands
# (tests/test_dtypes_complex.py); every other op refuses a complex input needing a gradient.
_CHECKED = ("add", "sub", "neg", "mul", "div", "matmul", "sum", "mean", "exp", "abs",
            "reciprocal", "clone", "cast", "contiguous", "conj", "complex", "angle",
            # tests/test_complex_autograd2.py: holomorphic pointwise ops (g * conj(f'(z))),
            # pow in either operand, sgn, products, contractions and linear shape ops
            "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh", "cosh",
            "tanh", "asin", "acos", "atan", "sigmoid", "square", "pow", "sgn", "exp2", "log2",
            "log10", "atanh", "asinh", "acosh",
            "prod", "cumsum", "cumprod", "tril", "triu", "roll", "index_select",
            "take_along_axis", "masked_fill", "where_self")
for _n in _CHECKED:
    if _n in OPS:
        OPS[_n].complex_grad = True
# declarations that are not in OPS under their own name; those of modules imported after this
# one are marked where they are declared (einsum, pad, dot, vdot, mv, diag, trace)
from .general import BMM, CONCAT, FLIP, STACK   # noqa: E402
from .norms import P_NORM   # noqa: E402
from .reduce import STD, STD_MEAN, VAR, VAR_MEAN   # noqa: E402
for _op in (COMPLEX, ANGLE, CONJ, _V.CONTIGUOUS_OP, BMM, CONCAT, FLIP, STACK, P_NORM, VAR, STD,
            VAR_MEAN, STD_MEAN):
    _op.complex_grad = True
del _n, _op
