"""finfo / iinfo: the numeric limits of a dtype, in each door's spelling.

One table of facts (NumPy's, and ml_dtypes' for bfloat16); each door has its own class
because the frameworks accept different arguments, refuse with different errors and print
differently:

* Paddle (`paddle.finfo`, `paddle.iinfo`): a dtype object, a name ('float32') or a NumPy
  type; a dtype of the wrong kind is a ValueError; repr `paddle.finfo(min=..., ..., bits=32,
  dtype=float32)`.
* PyTorch (`torch.finfo`, `torch.iinfo`): a torch.dtype only (a string or a NumPy type is a
  TypeError); `torch.finfo()` is the default dtype's; the wrong kind is a TypeError; repr
  `finfo(resolution=..., ..., dtype=float32)`.

Fields as both frameworks: bits, eps, max, min, tiny, smallest_normal, resolution (floats,
as Python floats) and dtype (the name, a str); iinfo has bits, max, min (Python ints), dtype.
A complex dtype gives the limits of its real part (dtype: the real part's name), as torch.
"""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .autograd.errors import ArgTypeError, ArgValueError


def _np_finfo(npd):
    if npd == getattr(_dt, "BFLOAT16_NP", None):   # bfloat16 (where oar has it): ml_dtypes
        import ml_dtypes
        return ml_dtypes.finfo(npd)
    return np.finfo(npd)


class _Info:
    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()
    _PREFIX = ""
    _NUMBERS: tuple[type, ...] = (float,)   # printed with %g (torch prints iinfo's ints so too, Paddle not)

    def __repr__(self):
        parts = []
        for f in self._FIELDS:
            v = getattr(self, f)
            parts.append(f"{f}={v:g}" if isinstance(v, self._NUMBERS) else f"{f}={v}")
        return f"{self._PREFIX}({', '.join(parts)})"

    __str__ = __repr__


class _FInfo(_Info):
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def _fill(self, d):
        npd = d.np
        if npd.kind == "c":   # the real part's limits
            npd = np.dtype(np.float32 if npd.itemsize == 8 else np.float64)
        fi = _np_finfo(npd)
        self.bits = int(fi.bits)
        self.eps = float(fi.eps)
        self.max = float(fi.max)
        self.min = float(fi.min)
        self.tiny = self.smallest_normal = float(fi.smallest_normal)
        self.resolution = 10.0 ** -int(fi.precision)   # 1e-03, not float16(0.001) widened
        self.dtype = _dt.from_numpy_dtype(npd).name


class _IInfo(_Info):
    __slots__ = ("bits", "max", "min", "dtype")

    def _fill(self, d):
        ii = np.iinfo(d.np)
        self.bits = int(ii.bits)
        self.max = int(ii.max)
        self.min = int(ii.min)
        self.dtype = d.name


def _paddle_dtype(d, fname):
    try:
        return _dt.as_dtype(d)
    except TypeError:
        raise ArgTypeError(f"{fname}(): Cannot interpret {d!r} as a data type. Fix: pass a "
                           "dtype such as paddle.float32 or a name such as 'float32'.") from None


class finfo(_FInfo):   # noqa: N801  (paddle.finfo)
    """paddle.finfo(dtype): the limits of a floating (or complex) dtype: bits, eps, max, min,
    tiny, smallest_normal, resolution, dtype."""
    __slots__ = ()
    _FIELDS = ("min", "max", "eps", "resolution", "smallest_normal", "tiny", "bits", "dtype")
    _PREFIX = "paddle.finfo"

    def __init__(self, dtype):
        d = _paddle_dtype(dtype, "finfo")
        if not (d.is_floating_point or d.np.kind == "c"):
            raise ArgValueError(
                f"The argument of paddle.finfo can only be paddle.float32, paddle.float64, "
                f"paddle.float16, paddle.bfloat16, paddle.complex64 or paddle.complex128, got "
                f"{d.name}. Fix: use paddle.iinfo for integer dtypes.")
        self._fill(d)


class iinfo(_IInfo):   # noqa: N801  (paddle.iinfo)
    """paddle.iinfo(dtype): the limits of an integer dtype: bits, max, min, dtype."""
    __slots__ = ()
    _FIELDS = ("min", "max", "bits", "dtype")
    _PREFIX = "paddle.iinfo"

    def __init__(self, dtype):
        d = _paddle_dtype(dtype, "iinfo")
        if not d.is_integer:
            raise ArgValueError(
                f"the argument of paddle.iinfo can only be paddle.int8, paddle.int16, "
                f"paddle.int32, paddle.int64, or paddle.uint8, got {d.name}. Fix: use "
                "paddle.finfo for floating dtypes.")
        self._fill(d)


def _torch_dtype(d, fname):
    if not isinstance(d, _dt.DType) or isinstance(d, str):
        raise ArgTypeError(f"{fname}(): argument 'type' (position 1) must be torch.dtype, not "
                           f"{type(d).__name__}")
    return d


class torch_finfo(_FInfo):
    """torch.finfo(type=None): the limits of a floating (or complex) dtype (default: the
    default dtype): bits, eps, max, min, tiny, smallest_normal, resolution, dtype."""
    __slots__ = ()
    _FIELDS = ("resolution", "min", "max", "eps", "smallest_normal", "tiny", "dtype")
    _PREFIX = "finfo"

    def __init__(self, type=None):   # noqa: A002  (torch's name)
        d = _dt.get_default_dtype() if type is None else _torch_dtype(type, "finfo")
        if not (d.is_floating_point or d.np.kind == "c"):
            raise ArgTypeError(f"torch.finfo() requires a floating point input type. Use "
                               f"torch.iinfo to handle 'torch.finfo' (got torch.{d.name})")
        self._fill(d)


class torch_iinfo(_IInfo):
    """torch.iinfo(type): the limits of an integer dtype: bits, max, min, dtype."""
    __slots__ = ()
    _FIELDS = ("min", "max", "dtype")
    _PREFIX = "iinfo"
    _NUMBERS = (int, float)

    def __init__(self, type):   # noqa: A002  (torch's name)
        d = _torch_dtype(type, "iinfo")
        if d.np.kind == "b":
            raise ArgTypeError("torch.bool is not supported by torch.iinfo")
        if not d.is_integer:
            raise ArgTypeError(f"torch.iinfo() requires an integer input type. Use "
                               f"torch.finfo to handle 'torch.iinfo' (got torch.{d.name})")
        self._fill(d)


torch_finfo.__name__ = torch_finfo.__qualname__ = "finfo"
torch_iinfo.__name__ = torch_iinfo.__qualname__ = "iinfo"
torch_finfo.__module__ = torch_iinfo.__module__ = "oar.torch"
