"""The PyTorch door's spellings of oar/ops/more_ops3.py where PyTorch's meaning differs from
Paddle's (the core's): frexp (an int32 exponent, torch.return_types.frexp), nanmedian (the
lower middle value; (values, indices) with a dim), vander (torch's N), and PyTorch-only
names: float_power (+ in place), matrix_exp (top level and method; torch.linalg's too),
slice_scatter (torch's dim/start/end/step), index_copy (+ in place).
"""
from __future__ import annotations

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError, AxisError
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


# ---------------------------------------------------------------- slice_scatter, index_copy
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """torch.slice_scatter: input with input[start:end:step] along dim replaced by src."""
    x = _tensor(input, "slice_scatter")
    d = _m3._args.axis(dim, x.ndim, "slice_scatter", "dim")
    step = _m3._args.integer(step, "slice_scatter", "step")
    if step <= 0:
        raise ArgValueError(f"slice_scatter(): slice step must be positive, got {step}")
    key = (slice(None),) * d + (slice(start, end, step),)
    return _m3._scatter_view(x, src, lambda t: t[key], "slice_scatter", "src")


def _index_copy_key(x, dim, index, source, op):
    d = _m3._args.axis(dim, x.ndim, op, "dim")
    idx = _tensor(index, op, "index")
    src = _tensor(source, op, "source")
    if idx._data.dtype != np.int64 or idx.ndim > 1:
        raise ArgValueError(f"{op}(): index should be a 1-D int64 tensor, got "
                            f"{idx.dtype.name} of {idx.ndim} dims")
    n = idx.numel()
    want = list(x.shape)
    if x.ndim:
        want[d] = n
    if list(src.shape) != want and not (x.ndim == 0 and src.numel() == n):
        raise AxisError(f"{op}(): source {list(src.shape)} does not match self "
                            f"{list(x.shape)} with dim {d} of size {n} (the index's length)")
    if src._data.dtype != x._data.dtype:
        raise ArgTypeError(f"{op}(): self and source expected to have the same dtype, got "
                           f"{x.dtype.name} and {src.dtype.name}")
    size = x.shape[d] if x.ndim else 1
    if n and (idx._data.min() < -size or idx._data.max() >= size):
        raise AxisError(f"{op}(): index out of range for dim {d} of size {size}")
    if x.ndim == 0:
        return (), src.reshape([])
    return (slice(None),) * d + (idx.reshape([-1]),), src


def index_copy(input, dim, index, source):
    """torch.index_copy: input with the slices at `index` along dim replaced by source's, in
    order (a copy whose positions are written by indexing: the core's exact gradient)."""
    x = _tensor(input, "index_copy")
    key, src = _index_copy_key(x, dim, index, source, "index_copy")
    out = x.clone()
    out[key] = src
    return out


def index_copy_(self, dim, index, source):
    """Tensor.index_copy_: index_copy written into self (returns self)."""
    x = _tensor(self, "index_copy_", "self")
    key, src = _index_copy_key(x, dim, index, source, "index_copy_")
    x[key] = src
    return x


Tensor.index_copy = index_copy
Tensor.slice_scatter = slice_scatter
Tensor.index_copy_ = index_copy_
__all__ += ["slice_scatter", "index_copy"]
