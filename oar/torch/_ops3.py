"""The PyTorch door's spellings of oar/ops/more_ops3.py where PyTorch's meaning differs from
Paddle's (the core's): frexp (an int32 exponent, torch.return_types.frexp), nanmedian (the
lower middle value; (values, indices) with a dim), vander (torch's N), and PyTorch-only
names: float_power (+ in place), matrix_exp (top level and method; torch.linalg's too).
"""
from __future__ import annotations

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import more_ops3 as _m3
from ..ops import registry as _R
from ..ops.pointwise import _TORCH_TYPE_NAMES
from ..ops.reduce import selected
from ..tensor import Tensor as _CoreTensor, wrap_as
from ._functions import _no_bool_kernel, _reduction_dim, _tensor
from ._tensor import Tensor, _return_type

__all__ = ["float_power", "frexp", "matrix_exp", "nanmedian", "vander"]

_frexp_type = _return_type("frexp", ("mantissa", "exponent"))


def float_power(input, exponent):
    """input ** exponent computed in double precision (complex128 when either is complex):
    PyTorch's own composition, a cast then pow (PowBackward0 / PowBackward1)."""
    F = _R.FUNCTIONS
    if not isinstance(input, _CoreTensor) and not isinstance(exponent, _CoreTensor):
        raise ArgTypeError("float_power(): expected at least one Tensor argument")
    cplx = any((isinstance(v, _CoreTensor) and v._data.dtype.kind == "c")
               or isinstance(v, complex) for v in (input, exponent))
    dt = "complex128" if cplx else "float64"
    if isinstance(input, _CoreTensor):
        base = input.astype(dt)
    else:
        base = _R.as_tensor(input, like=exponent).astype(dt)
        base._wrapped_number = True
    e = exponent.astype(dt) if isinstance(exponent, _CoreTensor) else (
        complex(exponent) if cplx else float(_m3._args.number(exponent, "float_power",
                                                                 "exponent")))
    return F["pow"](base, e)


def float_power_(self, exponent):
    """Tensor.float_power_: self ** exponent in double precision, written into self, which
    must already be float64 (complex128 for complex operands)."""
    x = _tensor(self, "float_power_", "self")
    cplx = x._data.dtype.kind == "c" or isinstance(exponent, complex) or (
        isinstance(exponent, _CoreTensor) and exponent._data.dtype.kind == "c")
    want = np.complex128 if cplx else np.float64
    if x._data.dtype != want:
        raise ArgTypeError(
            f"float_power_(): the base given to float_power_ has dtype "
            f"{_TORCH_TYPE_NAMES.get(x.dtype.name, x.dtype.name)} but the operation's result "
            f"requires dtype {_TORCH_TYPE_NAMES.get(np.dtype(want).name, 'ComplexDouble')}. Fix: "
            "x = x.double() first, or use torch.float_power.")
    e = exponent.astype(np.dtype(want).name) if isinstance(exponent, _CoreTensor) else exponent
    return _R.FUNCTIONS["pow_"](x, e)


def frexp(input):
    """torch.frexp: (mantissa, exponent) with an int32 exponent (0 for 0, inf and NaN)."""
    x = _tensor(input, "frexp")
    if x._data.dtype.kind != "f":
        raise ArgTypeError(f"frexp(): torch.frexp() only supports floating-point dtypes, got "
                           f"{x.dtype.name}")
    mant, e = _m3.frexp(x)
    ei = np.nan_to_num(e._data, nan=0.0).astype(np.int32)
    return _frexp_type((mant, wrap_as(x._result_class, ei)))


def nanmedian(input, dim=None, keepdim=False):
    """torch.nanmedian: the lower middle non-NaN value (NaN when all are NaN); with a dim,
    (values, indices)."""
    x = _tensor(input, "nanmedian")
    _no_bool_kernel(x, "nanmedian", "nanmedian_cpu" if dim is None else "median_out")
    if dim is None:
        if keepdim is not False:
            raise ArgTypeError("nanmedian(): keepdim needs a dim")
        if x.numel() == 0:
            return wrap_as(x._result_class, np.asarray(np.nan, x._data.dtype)
                           if x._data.dtype.kind == "f" else np.zeros((), x._data.dtype))
        return _R.dispatch(_R.OPS["nanmedian_all"], (x,), ())
    d = _reduction_dim(x, dim, "nanmedian")
    a = x._data
    if a.ndim == 0:
        return _return_types_nanmedian()(selected(x.reshape([1]), np.zeros(1, np.int64), 0,
                                                  False, "NanmedianBackward1"))
    lo, _ = _m3.nan_median_indices(a, d)
    return _return_types_nanmedian()(selected(x, lo, d, keepdim, "NanmedianBackward1"))


def _return_types_nanmedian():
    from ._tensor import return_types
    return return_types.nanmedian


def vander(x, N=None, increasing=False):
    """torch.vander: columns x**(N-1) ... x**0 of 1-D x (increasing: x**0 ... x**(N-1));
    integer and bool input give int64."""
    return _m3.vander(_tensor(x, "vander", "x"), N, increasing)


def matrix_exp(input):
    """torch.matrix_exp / torch.linalg.matrix_exp (Note [Matrix exponential])."""
    return _m3.matrix_exp(_tensor(input, "matrix_exp"))


def linalg_vander(x, *, N=None):
    """torch.linalg.vander: increasing powers of x's last dim in a new last dim."""
    return _m3.linalg_vander(x, N)


Tensor.float_power = float_power
Tensor.float_power_ = float_power_
Tensor.frexp = frexp
Tensor.nanmedian = nanmedian
Tensor.matrix_exp = matrix_exp
