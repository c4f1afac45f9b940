"""Initialisers: fill parameters in place under no_grad (the leaf rule allows it there)."""
from __future__ import annotations

import math

from ..autograd import grad_mode


def _fans(t):
    shape = list(t.shape)
    if len(shape) < 2:
        return shape[0] if shape else 1, shape[0] if shape else 1
    if len(shape) == 2:        # oar's Linear weight is [in, out] (Paddle's layout)
        return shape[0], shape[1]
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _gain(nonlinearity, a=0.0):
    if nonlinearity in ("relu",):
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + a * a))
    if nonlinearity == "tanh":
        return 5.0 / 3
    return 1.0


calculate_gain = _gain


def uniform_(t, a=0.0, b=1.0):
    with grad_mode.no_grad():
        return t.uniform_(a, b)


def normal_(t, mean=0.0, std=1.0):
    with grad_mode.no_grad():
        return t.normal_(mean, std)


def constant_(t, val):
    with grad_mode.no_grad():
        return t.fill_(val)


def zeros_(t):
    return constant_(t, 0.0)


def ones_(t):
    return constant_(t, 1.0)


def xavier_uniform_(t, gain=1.0):
    fi, fo = _fans(t)
    bound = gain * math.sqrt(6.0 / (fi + fo))
    return uniform_(t, -bound, bound)


def xavier_normal_(t, gain=1.0):
    fi, fo = _fans(t)
    return normal_(t, 0.0, gain * math.sqrt(2.0 / (fi + fo)))


def kaiming_uniform_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    fi, fo = _fans(t)
    fan = fi if mode == "fan_in" else fo
    bound = _gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(t, -bound, bound)


def kaiming_normal_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu"):
    fi, fo = _fans(t)
    fan = fi if mode == "fan_in" else fo
    return normal_(t, 0.0, _gain(nonlinearity, a) / math.sqrt(fan))
