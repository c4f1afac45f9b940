"""Paddle 3.3.1's functional activations and helpers added in the breadth pass (celu, selu,
glu, hardshrink, softshrink, softsign, tanhshrink, thresholded_relu(_), rrelu, mish,
hardswish, hardsigmoid, swish, prelu, logsigmoid, maxout, zeropad2d, stanh), over the core
ops of _activation_ops.py (Note [ELU family ops])."""
from __future__ import annotations

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import args as _args
from ..ops import registry as R
from ..tensor import Tensor
from . import _activation_ops as _A

__all__ = ["celu", "selu", "glu", "hardshrink", "softshrink", "softsign", "tanhshrink",
           "thresholded_relu", "thresholded_relu_", "rrelu", "mish", "hardswish",
           "hardsigmoid", "swish", "prelu", "logsigmoid", "maxout", "zeropad2d"]
# stanh is paddle.stanh (oar/__init__.py), not a paddle.nn.functional name


def _x(x, op):
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"{op}(): argument 'x' must be a Tensor, not {type(x).__name__}")
    return x


def _num(v, op, name):
    return float(_args.number(v, op, name, allow_bool=False))


def _attr(v):
    """Paddle's kernels take these numbers as float attributes: rounded to float32 (so a
    float64 input sees the float32 value, as in Paddle)."""
    return float(np.float32(v))


def celu(x, alpha=1.0, name=None):
    """x where x > 0, else alpha * (exp(x / alpha) - 1); one op (CeluBackward0)."""
    _x(x, "celu")
    alpha = _num(alpha, "celu", "alpha")
    if alpha == 0:
        # Paddle raises ZeroDivisionError here; the house error class for a bad value
        raise ArgValueError("celu(): alpha cannot be 0 for celu (it divides x). Fix: pass a "
                            "non-zero alpha")
    alpha = _attr(alpha)
    return _A.activation(_A.CELU, x, (alpha, 1.0, 1.0 / alpha, 1.0 / alpha))


def selu(x, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
    """scale * (x where x > 0, else alpha * (exp(x) - 1)); one op."""
    _x(x, "selu")
    scale, alpha = _num(scale, "selu", "scale"), _num(alpha, "selu", "alpha")
    if not scale > 1.0:
        raise ArgValueError(f"The scale must be greater than 1.0. Received: {scale}.")
    if not alpha >= 0:
        raise ArgValueError(f"The alpha must be no less than zero. Received: {alpha}.")
    return _A.activation(_A.SELU, x, (_attr(alpha), _attr(scale), 1.0, 1.0))


def glu(x, axis=-1, name=None):
    """a * sigmoid(b), a and b the halves of x along axis (whose size must be even)."""
    _x(x, "glu")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise ArgTypeError(f"glu(): axis must be an int, got {type(axis).__name__}")
    return _A.glu_op(x, int(axis))


def hardshrink(x, threshold=0.5, name=None):
    """x where |x| > threshold, else 0; one op."""
    _x(x, "hardshrink")
    return _A.activation(_A.HARDSHRINK, x, (_attr(_num(threshold, "hardshrink", "threshold")),))


def softshrink(x, threshold=0.5, name=None):
    """x - threshold above threshold, x + threshold below -threshold, else 0; one op."""
    _x(x, "softshrink")
    threshold = _num(threshold, "softshrink", "threshold")
    if not threshold >= 0:
        raise ArgValueError(f"The threshold must be no less than zero. Received: {threshold}.")
    return _A.activation(_A.SOFTSHRINK, x, (_attr(threshold),))


def softsign(x, name=None):
    """x / (1 + |x|); one op."""
    return _A.activation(_A.SOFTSIGN, _x(x, "softsign"))


def tanhshrink(x, name=None):
    """x - tanh(x); one op."""
    return _A.activation(_A.TANHSHRINK, _x(x, "tanhshrink"))


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """x where x > threshold, else value (the core threshold op, ThresholdBackward0)."""
    _x(x, "thresholded_relu")
    return R.FUNCTIONS["threshold"](x, _attr(_num(threshold, "thresholded_relu", "threshold")),
                                    _attr(_num(value, "thresholded_relu", "value")))


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None):
    """thresholded_relu written into x, in place; returns x."""
    _x(x, "thresholded_relu_")
    return R.FUNCTIONS["threshold_"](x, _attr(_num(threshold, "thresholded_relu_", "threshold")),
                                     _attr(_num(value, "thresholded_relu_", "value")))


def rrelu(x, lower=1.0 / 8, upper=1.0 / 3, training=True, name=None):
    """x where x >= 0, else a * x: a ~ U(lower, upper) per element in training (drawn from
    oar's generator), (lower + upper) / 2 otherwise; one op (x * noise, saving the noise)."""
    _x(x, "rrelu")
    lower, upper = _num(lower, "rrelu", "lower"), _num(upper, "rrelu", "upper")
    if not 0 <= lower <= 1:
        raise ArgValueError("The lower value must be no less than zero or greater than one. "
                            f"Received: {lower}.")
    if not 0 <= upper <= 1:
        raise ArgValueError("The upper value must be no less than zero or greater than one. "
                            f"Received: {upper}.")
    if upper < lower:
        raise ArgValueError("The upper value must be greater than lower value. Received: "
                            f"lower {lower}, upper {upper}.")
    _A.floating_only(x, "rrelu")
    lower, upper = _attr(lower), _attr(upper)
    xd = x._data
    neg = np.asarray(xd < 0)
    if training:
        from ..ops import random as _random
        a = _random.uniform(list(xd.shape), dtype=x.dtype, min=lower, max=upper)._data
        noise = np.where(neg, a, np.ones((), xd.dtype)).astype(xd.dtype, copy=False)
    else:
        noise = np.where(neg, np.asarray(_attr((lower + upper) / 2), xd.dtype),
                         np.ones((), xd.dtype)).astype(xd.dtype, copy=False)
    return R.dispatch(_A.RRELU, (x, Tensor._wrap(noise)), ())


def mish(x, name=None):
    """x * tanh(softplus(x)); one op (MishBackward0)."""
    return _A.activation(_A.MISH, _x(x, "mish"))


def hardswish(x, name=None):
    """x * relu6(x + 3) / 6; one op."""
    return _A.activation(_A.HARDSWISH, _x(x, "hardswish"))


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """clip(slope * x + offset, 0, 1) (Paddle's slope is the literal 0.1666667, not 1/6)."""
    _x(x, "hardsigmoid")
    _A.floating_only(x, "hardsigmoid")
    slope = _num(slope, "hardsigmoid", "slope")
    offset = _num(offset, "hardsigmoid", "offset")
    return _A.activation(_A.HARDTANH, x * _attr(slope) + _attr(offset), (0.0, 1.0))


def swish(x, name=None):
    """x * sigmoid(x) (silu); one op."""
    return _A.activation(_A.SILU, _x(x, "swish"))


def logsigmoid(x, name=None):
    """log(sigmoid(x)), computed stably; one op."""
    return _A.activation(_A.LOG_SIGMOID, _x(x, "logsigmoid"))


def prelu(x, weight, data_format="NCHW", name=None):
    """x where x > 0, else weight * x; weight of shape [1] (shared) or [C], C the channel dim
    (dim 1, or the last for a channels-last data_format)."""
    _x(x, "prelu")
    if not isinstance(weight, Tensor):
        raise ArgTypeError(f"prelu(): weight must be a Tensor, not {type(weight).__name__}")
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ArgValueError("data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', "
                            f"'NHWC', 'NDHWC' but receive {data_format}")
    if weight.ndim != 1:
        raise ArgValueError(f"The dim count of weight shape should be 1 in prelu(), got "
                            f"shape {list(weight.shape)}.")
    nd = x.ndim
    last = data_format[-1] == "C" and data_format != "NC"
    if weight.shape[0] != 1:
        if nd < 2:
            raise ArgValueError(f"prelu(): x of shape {list(x.shape)} has no channel dim for "
                                f"a weight of {weight.shape[0]} elements")
        c = x.shape[-1 if last else 1]
        if weight.shape[0] != c:
            raise ArgValueError(f"The weight size should be equal to x input channel in "
                                f"prelu() when weight shape is not [1]; got {weight.shape[0]} "
                                f"and {c} channels (x of shape {list(x.shape)}, {data_format})")
        shape = [1] * nd
        shape[-1 if last else 1] = c
        w = weight.reshape(shape)
    else:
        w = weight.reshape([1] * nd) if nd else weight.reshape([])
    _A.floating_only(x, "prelu")
    return R.dispatch(_A.PRELU, (x, w), ())


def maxout(x, groups, axis=1, name=None):
    """The maximum over each run of `groups` channels of a 4-D x (axis 1, or -1 / 3 for
    channels last): C channels become C / groups."""
    _x(x, "maxout")
    if x.ndim != 4:
        raise ArgValueError(f"maxout: x's dims should be 4, but received x's dims is: {x.ndim} "
                            f"(shape {list(x.shape)})")
    if axis not in (1, -1, 3):
        raise ArgValueError(f"Attr(axis) should be 1 when data format is NCHW, -1 or 3 when "
                            f"data format is NHWC. Received Attr(axis): {axis}.")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups <= 0:
        raise ArgValueError(f"maxout: groups must be a positive int, got {groups!r}")
    n, c = x.shape[0], x.shape[1 if axis == 1 else 3]
    if c % groups:
        raise ArgValueError(f"maxout: the number of channels ({c}) must be divisible by "
                            f"groups ({groups}) (x of shape {list(x.shape)})")
    s = list(x.shape)
    if axis == 1:
        return x.reshape([n, c // groups, groups, s[2], s[3]]).max(axis=2)
    return x.reshape([n, s[1], s[2], c // groups, groups]).max(axis=4)


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """x padded with zeros by [left, right, top, bottom] (a 4-D x)."""
    from .functional import pad
    _x(x, "zeropad2d")
    if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
        padding = [int(padding)] * 4
    return pad(x, padding, "constant", 0.0, data_format)


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """scale_b * tanh(scale_a * x); one op."""
    _x(x, "stanh")
    return _A.activation(_A.STANH, x, (_attr(_num(scale_a, "stanh", "scale_a")),
                                       _attr(_num(scale_b, "stanh", "scale_b"))))


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) along axis (Paddle's
    formula)."""
    _x(x1, "cosine_similarity")
    _x(x2, "cosine_similarity")
    w12 = (x1 * x2).sum(axis=axis)
    w1 = (x1 * x1).sum(axis=axis)
    w2 = (x2 * x2).sum(axis=axis)
    n12 = (w1 * w2).clip(min=eps * eps).sqrt()
    return w12 / n12


__all__ += ["cosine_similarity"]


# ---------------------------------------------------------------------- distances, shuffles
# Both doors' pairwise_distance, channel_shuffle and local_response_norm are these
# compositions (the same formula in PyTorch 2.13 and Paddle 3.3.1), channels first.
def distance_rows(x, y, p, eps, keepdim):
    """||x - y + eps||_p over the last dim of the broadcast operands."""
    nd = max(x.ndim, y.ndim)
    d = x - y + eps
    if nd == 0:
        return d.abs()
    return R.FUNCTIONS["norm"](d, p, nd - 1, keepdim)


def shuffle_channels(x, groups, op):
    """dim 1 of x regrouped: channel g * (C / groups) + i moves to i * groups + g."""
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)):
        raise ArgTypeError(f"{op}(): groups must be an int, got {type(groups).__name__}")
    if groups <= 0:
        raise ArgValueError(f"Number of groups to divide channels in must be positive. Value "
                            f"of groups:{groups} ({op})")
    if x.ndim < 3:
        raise ArgValueError(f"{op} expects input to have at least 3 dimensions, but got input "
                            f"with sizes {list(x.shape)}")
    s = list(x.shape)
    if s[1] % groups:
        raise ArgValueError(f"Number of channels must be divisible by groups. Got {s[1]} "
                            f"channels and {groups} groups ({op}).")
    y = x.reshape([s[0], groups, s[1] // groups] + s[2:])
    return R.FUNCTIONS["transpose"](y, [0, 2, 1] + list(range(3, len(s) + 1))).reshape(s)


def response_norm(x, size, alpha, beta, k, op):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta, the window
    zero-padded by size // 2 before and (size - 1) // 2 after."""
    if x.ndim < 3:
        raise ArgValueError(f"Expected 3D or higher dimensionality input (got {x.ndim} "
                            f"dimensions) ({op})")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
        raise ArgValueError(f"{op}: size must be a positive int, got {size!r}")
    if x._data.size == 0:
        return x
    from . import _kernels as _K
    c = x.shape[1]
    sp = _K.pad(x * x, [0, 0] * (x.ndim - 2) + [size // 2, (size - 1) // 2], "constant", 0.0)
    acc = sp[:, 0:c]
    for j in range(1, size):
        acc = acc + sp[:, j:j + c]
    # an integer input's window mean is an integer average pool (truncating), as PyTorch's
    mean = acc // size if x._data.dtype.kind in "iu" else acc / size
    return x / (mean * alpha + k) ** beta


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """||x - y + epsilon||_p over the last dim."""
    _x(x, "pairwise_distance")
    _x(y, "pairwise_distance")
    return distance_rows(x, y, p, epsilon, keepdim)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """The channels of a 4-D x regrouped into `groups` interleaved groups."""
    _x(x, "channel_shuffle")
    if data_format not in ("NCHW", "NHWC"):
        raise ArgValueError(f"channel_shuffle: data_format must be 'NCHW' or 'NHWC', got "
                            f"{data_format!r}")
    if x.ndim != 4:
        raise ArgValueError(f"Input x should be 4D tensor, but received x with the shape of "
                            f"{list(x.shape)}")
    if data_format == "NHWC":
        return shuffle_channels(x.transpose([0, 3, 1, 2]), groups,
                                "channel_shuffle").transpose([0, 2, 3, 1])
    return shuffle_channels(x, groups, "channel_shuffle")


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW",
                        name=None):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta."""
    _x(x, "local_response_norm")
    if data_format not in ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"):
        raise ArgValueError("data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, "
                            f"NDHWC], but got {data_format}")
    # Paddle's alpha, beta and k are float attributes (float32)
    alpha, beta, k = (_attr(_num(v, "local_response_norm", n))
                      for v, n in ((alpha, "alpha"), (beta, "beta"), (k, "k")))
    if data_format[1] != "C":
        nd = x.ndim
        y = response_norm(x.transpose([0, nd - 1] + list(range(1, nd - 1))), size, alpha,
                          beta, k, "local_response_norm")
        return y.transpose([0] + list(range(2, nd)) + [1])
    return response_norm(x, size, alpha, beta, k, "local_response_norm")


__all__ += ["pairwise_distance", "channel_shuffle", "local_response_norm"]
