"""torch.nn.functional activations added in the breadth pass: celu, selu, glu, hardshrink,
softshrink, softsign, tanhshrink, rrelu (PyTorch 2.13's signatures over the core ops of
oar/nn/_activation_ops.py, Note [ELU family ops])."""
from __future__ import annotations

import numpy as np

from ...autograd.errors import ArgTypeError, ArgValueError
from ...nn import _activation_ops as _A
from ...ops import registry as _R
from ...tensor import Tensor as _CoreTensor

__all__ = ["celu", "celu_", "selu", "selu_", "glu", "hardshrink", "softshrink", "softsign",
           "tanhshrink", "rrelu", "rrelu_"]


def _t(x, fname, name="input"):
    if not isinstance(x, _CoreTensor):
        raise ArgTypeError(f"{fname}(): argument '{name}' (position 1) must be Tensor, not "
                           f"{type(x).__name__}")
    return x


def _num(v, fname, name):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ArgTypeError(f"{fname}(): argument '{name}' must be Number, not "
                           f"{type(v).__name__}")
    return float(v)


def celu(input, alpha=1.0, inplace=False):
    """input where input > 0, else alpha * (exp(input / alpha) - 1) (CeluBackward0; in place
    CeluBackward1, which reads the result)."""
    _t(input, "celu")
    alpha = _num(alpha, "celu", "alpha")
    if alpha == 0:
        raise ArgValueError("ZeroDivisionError: celu(): alpha must not be 0 (it divides the "
                            "input). Fix: pass a non-zero alpha")
    op = _A.CELU_RESULT if inplace else _A.CELU
    # the backward's input scale is 1.0 / alpha.toFloat() in PyTorch (Note [ELU family ops])
    return _A.activation(op, input, (alpha, 1.0, 1.0 / alpha, 1.0 / float(np.float32(alpha))),
                         inplace=inplace)


def celu_(input, alpha=1.0):
    """celu written into input, in place; returns input."""
    return celu(input, alpha, True)


def selu(input, inplace=False):
    """scale * (input where input > 0, else alpha * (exp(input) - 1)), Klambauer's constants
    (PyTorch runs it through elu: EluBackward0, in place EluBackward1)."""
    _t(input, "selu")
    op = _A.SELU_RESULT if inplace else _A.SELU
    return _A.activation(op, input, (_A.SELU_ALPHA, _A.SELU_SCALE, 1.0, 1.0), inplace=inplace)


def selu_(input):
    """selu written into input, in place; returns input."""
    return selu(input, True)


def glu(input, dim=-1):
    """a * sigmoid(b), a and b the halves of input along dim (GluBackward0)."""
    _t(input, "glu")
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise ArgTypeError(f"glu(): argument 'dim' must be int, not {type(dim).__name__}")
    return _A.glu_op(input, int(dim))


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0 (HardshrinkBackward0)."""
    _t(input, "hardshrink")
    return _A.activation(_A.HARDSHRINK, input, (_num(lambd, "hardshrink", "lambd"),))


def softshrink(input, lambd=0.5):
    """input - lambd above lambd, input + lambd below -lambd, else 0 (SoftshrinkBackward0)."""
    _t(input, "softshrink")
    lambd = _num(lambd, "softshrink", "lambd")
    if not lambd >= 0:
        _A.floating_only(input, "softshrink")
        name = _A._TORCH_DTYPE_NAMES.get(input._data.dtype.name, input._data.dtype.name)
        raise ArgValueError(f"lambda must be in range [0, 3.40282e+38] for input dtype {name}, "
                            f"but found {lambd:g} (softshrink). Fix: pass lambd >= 0")
    return _A.activation(_A.SOFTSHRINK, input, (lambd,))


def softsign(input):
    """input / (|input| + 1), composed as PyTorch does (DivBackward0)."""
    _t(input, "softsign")
    return input / (input.abs() + 1)


def tanhshrink(input):
    """input - tanh(input), composed as PyTorch does (SubBackward0)."""
    _t(input, "tanhshrink")
    return input - input.tanh()


# Note [rrelu noise]
# PyTorch's CPU rrelu in training walks the input in memory order of its contiguous copy and,
# for each element <= 0, draws one double uniform in [lower, upper) from the generator (one
# random64: the low 53 bits times 2**-53, then u * (upper - lower) + lower, no fma, the bounds first
# rounded to the opmath type: float32 below float64), rounded to the opmath type; other elements get a noise of 1. Out of training the slope is
# (lower + upper) / 2 everywhere x <= 0. Either way the result is x * noise.
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """input where input >= 0, else input * a, a ~ U(lower, upper) per element in training,
    (lower + upper) / 2 otherwise (RreluWithNoiseBackward0, Note [rrelu noise])."""
    _t(input, "rrelu")
    lower, upper = _num(lower, "rrelu", "lower"), _num(upper, "rrelu", "upper")
    _A.floating_only(input, "rrelu_with_noise")
    if lower > upper:
        raise ArgValueError(f"Lower bound should be less than or equal to the upper bound "
                            f"(rrelu: lower={lower}, upper={upper})")
    xd = input._data
    dt = xd.dtype
    neg = np.asarray(xd <= 0)     # C (logical) order, that of the contiguous copy
    if training:
        from .. import _runtime
        src = _runtime.default_generator._oar_source
        k = int(np.count_nonzero(neg))
        # the bounds are first converted to the opmath type (float32 below float64)
        op_t = np.float64 if dt == np.float64 else np.float32
        lo, hi = float(op_t(lower)), float(op_t(upper))
        u = (src.random64(k) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
        r = u * (hi - lo) + lo     # not contracted into an fma here (measured)
        noise = np.ones(xd.shape, dtype=dt)
        noise[neg] = np.asarray(r).astype(dt)
    else:
        noise = np.where(neg, np.asarray((lower + upper) / 2, dtype=dt), np.ones((), dt))
        noise = noise.astype(dt, copy=False)
    nt = _CoreTensor._wrap(noise)
    if inplace:
        return _R.dispatch_inplace(_A.RRELU_INPLACE, (input, nt), ())
    return _R.dispatch(_A.RRELU, (input, nt), ())


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """rrelu written into input, in place; returns input."""
    return rrelu(input, lower, upper, training, True)


# ---------------------------------------------------------------------- distances, shuffles
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim (PyTorch's formula)."""
    from ...nn import _more_functional as _PM
    return _PM.distance_rows(_t(x1, "pairwise_distance", "x1"),
                             _t(x2, "pairwise_distance", "x2"), p, eps, keepdim)


def channel_shuffle(input, groups):
    """The channels (dim 1) regrouped into `groups` interleaved groups."""
    from ...nn import _more_functional as _PM
    return _PM.shuffle_channels(_t(input, "channel_shuffle"), groups, "channel_shuffle")


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of input^2 over `size` neighbouring channels)^beta."""
    from ...nn import _more_functional as _PM
    return _PM.response_norm(_t(input, "local_response_norm"), size, alpha, beta, k,
                             "local_response_norm")


__all__ += ["pairwise_distance", "channel_shuffle", "local_response_norm"]
