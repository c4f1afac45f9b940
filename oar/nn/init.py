"""Initialisers: fill parameters in place under no_grad (the leaf rule allows it there)."""
from __future__ import annotations

import math

from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor


def _tensor(t, op):
    if not isinstance(t, Tensor):
        raise ArgTypeError(f"nn.init.{op}: expected a Tensor, got {type(t).__name__}")
    return t


def _fans(t, op="init"):
    _tensor(t, op)
    shape = list(t.shape)
    if len(shape) < 2:
        raise ArgValueError(f"nn.init.{op}: Fan in and fan out can not be computed for tensor "
                            f"with fewer than 2 dimensions (shape {shape})")
    if len(shape) == 2:        # oar's Linear weight is [in, out] (Paddle's layout)
        return shape[0], shape[1]
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def _gain(nonlinearity, a=None):
    """The recommended gain for a nonlinearity (PyTorch's calculate_gain)."""
    if nonlinearity in _LINEAR:
        return 1.0
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        a = 0.01 if a is None else a
        if isinstance(a, bool) or not isinstance(a, (int, float)):
            raise ArgValueError(f"nn.init.calculate_gain: negative_slope {a!r} not a valid number")
        return math.sqrt(2.0 / (1 + a * a))
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ArgValueError(f"nn.init.calculate_gain: Unsupported nonlinearity {nonlinearity!r}")


calculate_gain = _gain


def uniform_(t, a=0.0, b=1.0):
    """Fills t with samples uniform on [a, b), in place without recording; returns t."""
    _tensor(t, "uniform_")
    with grad_mode.no_grad():
        return t.uniform_(a, b)


def normal_(t, mean=0.0, std=1.0):
    """Fills t with samples from N(mean, std**2), in place without recording; returns t."""
    _tensor(t, "normal_")
    with grad_mode.no_grad():
        return t.normal_(mean, std)


def constant_(t, val):
    """Fills t with val, in place without recording; returns t."""
    _tensor(t, "constant_")
    with grad_mode.no_grad():
        return t.fill_(val)


def zeros_(t):
    """Fills t with 0, in place without recording; returns t."""
    return constant_(t, 0.0)


def ones_(t):
    """Fills t with 1, in place without recording; returns t."""
    return constant_(t, 1.0)


def xavier_uniform_(t, gain=1.0):
    """Fills t in place with Xavier/Glorot uniform samples; returns t."""
    fi, fo = _fans(t, "xavier_uniform_")
    bound = gain * math.sqrt(6.0 / (fi + fo))
    return uniform_(t, -bound, bound)


def xavier_normal_(t, gain=1.0):
    """Fills t in place with Xavier/Glorot normal samples; returns t."""
    fi, fo = _fans(t, "xavier_normal_")
    return normal_(t, 0.0, gain * math.sqrt(2.0 / (fi + fo)))


def kaiming_uniform_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """Fills t in place with Kaiming/He uniform samples; returns t."""
    fi, fo = _fans(t, "kaiming_uniform_")
    fan = _fan(fi, fo, mode)
    bound = _gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(t, -bound, bound)


def kaiming_normal_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    """Fills t in place with Kaiming/He normal samples; returns t."""
    fi, fo = _fans(t, "kaiming_normal_")
    fan = _fan(fi, fo, mode)
    return normal_(t, 0.0, _gain(nonlinearity, a) / math.sqrt(fan))


def _fan(fi, fo, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ArgValueError(f"nn.init: Mode {mode!r} not supported, please use one of "
                            "fan_in, fan_out")
    fan = fi if mode == "fan_in" else fo
    if fan == 0:
        raise ArgValueError("nn.init: cannot initialise a tensor with a zero-size fan")
    return fan
