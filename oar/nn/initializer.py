"""paddle.nn.initializer: objects that fill a parameter in place when called with it, for
`ParamAttr(initializer=...)`, `create_parameter(default_initializer=...)` and direct calls.
Fans follow Paddle's layouts (a Linear weight is [in, out]; Note [Init fans per door])."""
from __future__ import annotations

import math


from ..autograd.grad_mode import no_grad
from . import init as _init


class Initializer:
    """Base class: `initializer(param)` fills param in place (outside autograd); returns it."""

    def __call__(self, param, block=None):
        _init._tensor(param, type(self).__name__)
        with no_grad():
            self._fill(param)
        return param

    def _fill(self, param):
        raise NotImplementedError


class Constant(Initializer):
    """Every element set to value."""

    def __init__(self, value=0.0):
        self.value = float(value)

    def _fill(self, p):
        p.fill_(self.value)


class Normal(Initializer):
    """Samples from N(mean, std**2)."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        self.mean, self.std = float(mean), float(std)

    def _fill(self, p):
        p.normal_(self.mean, self.std)


class TruncatedNormal(Initializer):
    """N(mean, std**2) truncated to [a, b] (Paddle's default: mean ± 2 std)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        self.mean, self.std, self.a, self.b = float(mean), float(std), float(a), float(b)

    def _fill(self, p):
        _init.trunc_normal_(p, self.mean, self.std, self.mean + self.a * self.std,
                            self.mean + self.b * self.std)


class Uniform(Initializer):
    """Samples from U(low, high)."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        self.low, self.high = float(low), float(high)

    def _fill(self, p):
        p.uniform_(self.low, self.high)


class Assign(Initializer):
    """The given values (an array, list or tensor of the parameter's shape)."""

    def __init__(self, value, name=None):
        self.value = value

    def _fill(self, p):
        p.set_value(self.value)


def _fans(p, fan_in, fan_out):
    fi, fo = _init._fans(p, "initializer") if p.ndim >= 2 else (p.shape[0], p.shape[0])
    return (fi if fan_in is None else fan_in), (fo if fan_out is None else fan_out)


class XavierUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, float(gain)

    def _fill(self, p):
        fi, fo = _fans(p, self.fan_in, self.fan_out)
        b = self.gain * math.sqrt(6.0 / (fi + fo))
        p.uniform_(-b, b)


class XavierNormal(Initializer):
    """N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, float(gain)

    def _fill(self, p):
        fi, fo = _fans(p, self.fan_in, self.fan_out)
        p.normal_(0.0, self.gain * math.sqrt(2.0 / (fi + fo)))


class KaimingUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(3 / fan_in), gain = sqrt(2 / (1 + slope**2))."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self.fan_in, self.slope = fan_in, float(negative_slope)

    def _fill(self, p):
        fi, _ = _fans(p, self.fan_in, None)
        gain = math.sqrt(2.0 / (1 + self.slope ** 2))
        b = gain * math.sqrt(3.0 / fi)
        p.uniform_(-b, b)


class KaimingNormal(Initializer):
    """N(0, std**2) with std = gain / sqrt(fan_in), gain = sqrt(2 / (1 + slope**2))."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu"):
        self.fan_in, self.slope = fan_in, float(negative_slope)

    def _fill(self, p):
        fi, _ = _fans(p, self.fan_in, None)
        p.normal_(0.0, math.sqrt(2.0 / (1 + self.slope ** 2)) / math.sqrt(fi))


__all__ = ["Initializer", "Constant", "Normal", "TruncatedNormal", "Uniform", "Assign",
           "XavierUniform", "XavierNormal", "KaimingUniform", "KaimingNormal"]
