"""dtype objects and type promotion.

oar dtypes wrap NumPy dtypes. Promotion between tensors is NumPy's; Python scalars are
"weak" (NEP 50) except that a Python float meeting an integer or bool tensor gives the
default float dtype (float32), as in PyTorch and Paddle.
"""
from __future__ import annotations

import functools

import numpy as np


class DType:
    __slots__ = ("name", "np", "is_floating_point", "is_integer", "itemsize")

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_integer = self.np.kind in "iu"
        self.itemsize = self.np.itemsize

    def __repr__(self):
        return f"oar.{self.name}"

    def __str__(self):
        return f"oar.{self.name}"

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
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool_ = DType("bool", np.bool_)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
FLOATING = (float16, float32, float64)
_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({"half": float16, "float": float32, "double": float64, "long": int64,
                 "int": int32, "short": int16, "bool_": bool_})

DEFAULT_FLOAT = float32


def as_dtype(d) -> DType:
    """Accept an oar dtype, a name ('float32'), a NumPy dtype/type, or a Python type."""
    if isinstance(d, DType):
        return d
    if isinstance(d, str):
        key = d.split(".")[-1]
        if key in _BY_NAME:
            return _BY_NAME[key]
        raise TypeError(f"unknown dtype {d!r}; expected one of {sorted(n.name for n in ALL)}")
    if d is float:
        return DEFAULT_FLOAT
    if d is int:
        return int64
    if d is bool:
        return bool_
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


@functools.lru_cache(maxsize=1024)
def promote(np_dtypes: tuple, scalar_kinds: tuple) -> np.dtype:
    """Result dtype of a pointwise op.

    np_dtypes: NumPy dtypes of the tensor operands; scalar_kinds: type(python scalar) of
    the scalar operands (bool, int, float).
    """
    if np_dtypes:
        result = np.result_type(*np_dtypes)
    else:
        result = np.dtype(np.float32) if float in scalar_kinds else np.dtype(np.int64)
    for kind in scalar_kinds:
        if kind is float and result.kind in "biu":
            result = DEFAULT_FLOAT.np
        elif kind is int and result.kind == "b":
            result = np.dtype(np.int64)
    return result


def scalar_kind(value):
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, float):
        return float
    if isinstance(value, np.generic):
        return {"b": bool, "i": int, "u": int, "f": float}.get(value.dtype.kind, float)
    raise TypeError(f"expected a Tensor or a Python number, got {type(value).__name__}")
