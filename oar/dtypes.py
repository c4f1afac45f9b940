"""dtype objects and type promotion.

oar dtypes wrap NumPy dtypes. Promotion is PyTorch's result_type (Note [Type promotion]),
not NumPy's: a floating tensor with an integer tensor keeps the floating dtype, 0-d tensors
and Python scalars only decide the result when they are of a higher category.
"""
from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

# Note [bfloat16]
# bfloat16 arrays are ml_dtypes' NumPy dtype: two bytes, float32's exponent, 8 bits of
# mantissa. NumPy sees it as kind 'V' (a user dtype), so code that asks "is this floating?"
# must use `is_float(npdtype)` (or DType.is_floating_point), never `dtype.kind == "f"`.
# ml_dtypes' ufuncs compute each element in float32 and round once, which is what PyTorch's
# CPU kernels do for bfloat16 pointwise ops; reductions and matmul accumulate in float32
# and round once (ops that need it cast through `opmath(npdtype)`).
BFLOAT16_NP = np.dtype(ml_dtypes.bfloat16)


def is_float(npd) -> bool:
    """Whether a NumPy dtype is floating (bfloat16 included; Note [bfloat16])."""
    return npd.kind == "f" or npd == BFLOAT16_NP


def opmath(npd):
    """The dtype PyTorch computes a float16/bfloat16 op in (float32); others unchanged."""
    return np.dtype(np.float32) if (npd == BFLOAT16_NP or npd == np.float16) else npd


class DType:
    """An element type (oar.float32, oar.int64, ...): a name and its NumPy dtype."""
    __slots__ = ("name", "np", "is_floating_point", "is_integer", "itemsize", "is_complex")

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = is_float(self.np)
        self.is_integer = self.np.kind in "iu"
        self.itemsize = self.np.itemsize
        self.is_complex = self.np.kind == "c"   # Note [Complex dtypes]

    def __repr__(self):
        return f"paddle.{self.name}"   # the Paddle door prints as Paddle (oar.torch: torch.float32)

    def __str__(self):
        return f"paddle.{self.name}"

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other
        try:
            return self is as_dtype(other)
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = DType("float16", np.float16)
bfloat16 = DType("bfloat16", BFLOAT16_NP)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool_ = DType("bool", np.bool_)

# Note [Complex dtypes]
# complex64 / complex128 hold a (real, imag) pair of float32 / float64, as NumPy's. They are
# neither floating (is_floating_point is False, as in both frameworks) nor integer; in
# promotion they form a fourth category above floating (Note [Type promotion]); a complex
# result cannot be written into a real tensor (can_cast). A Python complex number becomes
# the complex dtype matching the default float (complex64 while it is float32). Autograd
# follows PyTorch's convention (the gradient is the conjugate Wirtinger derivative times 2):
# ops whose complex backward has been checked against torch say so (OpDef.complex_grad);
# every other op refuses a complex input that requires grad (Note [Complex autograd]).
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
COMPLEX = (complex64, complex128)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_, complex64, complex128,
       bfloat16)
FLOATING = (float16, float32, float64, bfloat16)
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({"half": float16, "float": float32, "double": float64, "long": int64,
                 "int": int32, "short": int16, "bool_": bool_,
                 "cfloat": complex64, "cdouble": complex128})

# Note [Default dtype]
# DEFAULT_FLOAT is the dtype Python floats become (to_tensor([1.5]), zeros(...), a float
# scalar in promotion). set_default_dtype rebinds it, so every reader looks it up as
# `dtypes.DEFAULT_FLOAT` at call time (never `from .dtypes import DEFAULT_FLOAT`), and clears
# the promotion cache, whose results depend on it. Both doors share it: Paddle's
# set_default_dtype("float64") and PyTorch's set_default_dtype(torch.float64) set the same
# value, as both frameworks keep one process-wide default.
DEFAULT_FLOAT = float32


def set_default_dtype(d):
    """Sets the default floating dtype (float16, float32 or float64): the dtype Python floats
    and floating creation functions give from now on (Note [Default dtype]). Anything else is
    refused with a TypeError, as in PyTorch and Paddle."""
    global DEFAULT_FLOAT
    try:
        dt = as_dtype(d)
    except TypeError:
        dt = None
    if dt is None or not dt.is_floating_point or (d is float) or (isinstance(d, str) and d == "float"):
        raise TypeError(f"set_default_dtype only supports [float16, float32, float64] (only "
                        f"floating-point types are supported as the default type), but "
                        f"received {d!r}")
    DEFAULT_FLOAT = _BY_NP[dt.np]
    promote.cache_clear()


def get_default_dtype() -> DType:
    """The default floating dtype (Note [Default dtype])."""
    return DEFAULT_FLOAT


def as_dtype(d) -> DType:
    """Accept an oar dtype, a name ('float32'), a NumPy dtype/type, or a Python type."""
    if isinstance(d, DType):
        return d
    if isinstance(d, str):
        key = d.split(".")[-1]
        if key in _BY_NAME:
            return _BY_NAME[key]
        raise TypeError(f"unknown dtype {d!r}; expected one of {sorted(n.name for n in ALL)}")
    if d is float:   # a Python float is a C double: float64 in PyTorch, Paddle and NumPy,
        return float64   # whatever the default dtype (zeros(2, dtype=float), x.to(float))
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:   # a Python complex is a pair of C doubles (Note [Complex dtypes])
        return complex128
    try:
        return _BY_NP[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"unsupported dtype {d!r}; oar supports {[n.name for n in ALL]}") from None


def from_numpy_dtype(npd) -> DType:
    try:
        return _BY_NP[npd]
    except KeyError:
        raise TypeError(f"NumPy dtype {npd} has no oar equivalent; supported: "
                        f"{[n.name for n in ALL]}") from None


# Note [Type promotion]
# PyTorch's result_type, exactly (c10/core/ScalarType.h promoteTypes and
# aten/src/ATen/native/TypeProperties.cpp). Operands fall into three priority classes:
# dimensioned tensors, 0-d tensors and Python scalars ("wrapped numbers": bool -> bool,
# int -> int64, float -> the default float dtype). Each class is promoted on its own; then a
# lower class only counts when its category (bool < integer < floating) is higher than the
# result so far. So a floating tensor with an integer tensor keeps the floating dtype
# (never NumPy's int64 + float16 -> float64 or int + float32 -> float64 widening), and
# `float16 tensor * float64 0-d tensor` stays float16.
_B, _I, _F, _C = 0, 1, 2, 3   # bool < integer < floating < complex (Note [Complex dtypes])


def _category(d):
    k = d.kind
    if k == "V" and d == BFLOAT16_NP:   # Note [bfloat16]
        return _F
    return _F if k == "f" else (_B if k == "b" else (_C if k == "c" else _I))


def to_complex(d):
    """The complex dtype whose parts are real dtype d (float64 -> complex128; float16 and
    float32 -> complex64: oar has no complex32); a complex d is returned as is."""
    d = np.dtype(d)
    if d.kind == "c":
        return d
    return np.dtype(np.complex128) if d.itemsize >= 8 else np.dtype(np.complex64)


def to_real(d):
    """The real dtype of complex d's parts (complex64 -> float32); a real d as is."""
    d = np.dtype(d)
    return np.dtype(np.float64 if d == np.complex128 else np.float32) if d.kind == "c" else d


@functools.lru_cache(maxsize=256)
def promote_types(a, b):
    """PyTorch's promoteTypes for two NumPy dtypes (c10 promoteTypes)."""
    a, b = np.dtype(a), np.dtype(b)
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca == _C or cb == _C:   # complex meets anything: a complex as wide as the widest float
        c, o = (a, b) if ca == _C else (b, a)
        if _category(o) == _C:
            return a if a.itemsize >= b.itemsize else b
        if _category(o) == _F and o.itemsize >= 8:
            return np.dtype(np.complex128)
        return c
    if ca == _F or cb == _F:
        if ca != cb:      # floating meets integer or bool: the floating dtype wins as is
            return a if ca == _F else b
        if a.itemsize == b.itemsize:   # float16 with bfloat16: neither holds the other
            return np.dtype(np.float32)
        return a if a.itemsize >= b.itemsize else b
    if ca == _B:
        return b
    if cb == _B:
        return a
    return np.result_type(a, b)   # integers: NumPy agrees (uint8 + int8 -> int16)


def _promote_all(dts):
    r = None
    for d in dts:
        r = d if r is None else promote_types(r, d)
    return r


def _combine(higher, lower):
    """c10 combine_categories: `lower` only matters when its category is higher."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if _category(higher) == _C:
        return higher
    if _category(lower) == _C:   # a complex scalar keeps a floating tensor's precision
        return to_complex(higher) if _category(higher) == _F else lower
    if _category(higher) == _F:
        return higher
    if _category(higher) == _B or _category(lower) == _F:
        return promote_types(higher, lower)
    return higher


_SCALAR_DTYPE = {bool: np.dtype(np.bool_), int: np.dtype(np.int64)}


def default_complex():
    """The dtype a Python complex number becomes: complex64 while the default float is
    float32 (or float16), complex128 while it is float64 (Note [Complex dtypes])."""
    return to_complex(DEFAULT_FLOAT.np)


@functools.lru_cache(maxsize=1024)
def promote(dim_dtypes: tuple, zero_dtypes: tuple = (), scalar_kinds: tuple = ()) -> np.dtype:
    """Result dtype of a pointwise op, as torch.result_type (Note [Type promotion]).

    dim_dtypes: NumPy dtypes of the tensor operands with at least one dimension;
    zero_dtypes: those of 0-d tensor operands; scalar_kinds: bool, int or float for each
    Python scalar operand.
    """
    scalars = tuple(_SCALAR_DTYPE[k] if k in _SCALAR_DTYPE else
                    default_complex() if k is complex else DEFAULT_FLOAT.np for k in scalar_kinds)
    r = _combine(_promote_all(dim_dtypes), _combine(_promote_all(zero_dtypes), _promote_all(scalars)))
    if r is None:
        raise TypeError("promote: no operands")
    return r


def result_type(*operands) -> np.dtype:
    """torch.result_type over tensors (oar.Tensor or anything with a NumPy `dtype` and
    `ndim`) and Python numbers."""
    dims: list = []
    zeros: list = []
    kinds: list = []
    for a in operands:
        d = getattr(a, "_data", a)
        if isinstance(d, np.ndarray):
            (dims if d.ndim else zeros).append(d.dtype)
        else:
            kinds.append(scalar_kind(a))
    return promote(tuple(dims), tuple(zeros), tuple(kinds))


def can_cast(from_dtype, to_dtype) -> bool:
    """PyTorch's canCast for writing a result into an existing tensor (in-place, out=):
    complex -> real, floating -> integer or bool and non-bool -> bool are refused (Note
    [Complex dtypes]); everything else (also
    narrowing within a category, e.g. float64 -> float32, int64 -> uint8) is allowed."""
    cf, ct = _category(np.dtype(from_dtype)), _category(np.dtype(to_dtype))
    return cf <= ct


def scalar_kind(value):
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, complex):
        return complex
    if isinstance(value, np.generic):
        return {"b": bool, "i": int, "u": int, "f": float, "c": complex}.get(value.dtype.kind, float)
    raise TypeError(f"expected a Tensor or a Python number, got {type(value).__name__}")
