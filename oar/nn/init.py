"""Initialisers: fill parameters in place under no_grad (the leaf rule allows it there)."""
# Note [Init fans per door]
# The initialisers compute PyTorch's formulas with PyTorch's float arithmetic (std first, then
# bound = sqrt(3) * std), so a door whose generator draws PyTorch's stream gives PyTorch's
# values bit for bit. Only the fans differ between the doors, for a 2-D weight: Paddle's
# Linear weight is [in, out] (fan_in = shape[0]), PyTorch's is [out, in] (fan_in = shape[1]);
# for conv weights [out, in, *k] both agree. `Initializers(torch_layout)` builds the set of
# functions of one door from the same code; this module's public names are the Paddle door's,
# oar.torch.nn.init's are `Initializers(True)`'s.
from __future__ import annotations

import math

import numpy as np

from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError
from ..autograd.inplace import bump
from ..tensor import Tensor, wrap_as


def _tensor(t, op):
    if not isinstance(t, Tensor):
        raise ArgTypeError(f"nn.init.{op}: expected a Tensor, got {type(t).__name__}")
    return t


def _fans(t, op="init", torch_layout=False):
    """(fan_in, fan_out) of t (Note [Init fans per door])."""
    _tensor(t, op)
    shape = list(t.shape)
    if len(shape) < 2:
        raise ArgValueError(f"nn.init.{op}: Fan in and fan out can not be computed for tensor "
                            f"with fewer than 2 dimensions (shape {shape})")
    if len(shape) == 2 and not torch_layout:        # Paddle's Linear weight is [in, out]
        return shape[0], shape[1]
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's calculate_gain)."""
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ArgValueError(f"nn.init.calculate_gain: negative_slope {param} not a valid "
                                "number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ArgValueError(f"nn.init.calculate_gain: Unsupported nonlinearity {nonlinearity}")


_gain = calculate_gain


def _draw(t, method, a, b, generator):
    with grad_mode.no_grad():
        if generator is None:
            return getattr(t, method)(a, b)
        return getattr(t, method)(a, b, generator=generator)


def uniform_(t, a=0.0, b=1.0, generator=None):
    """Fills t with samples uniform on [a, b), in place without recording; returns t."""
    _tensor(t, "uniform_")
    return _draw(t, "uniform_", a, b, generator)


def normal_(t, mean=0.0, std=1.0, generator=None):
    """Fills t with samples from N(mean, std**2), in place without recording; returns t."""
    _tensor(t, "normal_")
    return _draw(t, "normal_", mean, std, generator)


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


def eye_(t):
    """Fills the 2-D tensor t with the identity matrix, in place; returns t."""
    _tensor(t, "eye_")
    if t.ndim != 2:
        raise ArgValueError(f"nn.init.eye_: Only tensors with 2 dimensions are supported, got "
                            f"shape {list(t.shape)}")
    with grad_mode.no_grad():
        np.copyto(t._data, np.eye(*t._data.shape), casting="unsafe")
        bump(t, "eye_")
    return t


def _fan(fi, fo, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ArgValueError(f"nn.init: Mode {mode} not supported, please use one of fan_in, "
                            "fan_out")
    fan = fi if mode == "fan_in" else fo
    if fan == 0:
        raise ArgValueError("nn.init: cannot initialise a tensor with a zero-size fan")
    return fan


def _empty(t):
    return 0 in tuple(t.shape)


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _erfinv(y):
    """Inverse error function of a float64 array in (-1, 1) (Giles' approximation refined by
    two Newton steps on math.erf: exact to float64 rounding for the values trunc_normal_
    draws)."""
    from ._kernels import _erf
    w = -np.log((1.0 - y) * (1.0 + y))
    small = w < 5.0
    ws, wl = w - 2.5, np.sqrt(np.maximum(w, 5.0)) - 3.0
    ps = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        ps = c + ps * ws
    pl = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        pl = c + pl * wl
    x = np.where(small, ps, pl) * y
    for _ in range(2):
        x = x - (_erf(x) - y) / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


class Initializers:
    """The fan-dependent initialisers of one door (Note [Init fans per door])."""

    def __init__(self, torch_layout):
        self.torch_layout = torch_layout

    def fans(self, t, op="init"):
        """(fan_in, fan_out) of t in this door's layout."""
        return _fans(t, op, self.torch_layout)

    def xavier_uniform_(self, t, gain=1.0, generator=None):
        """Fills t in place with Xavier/Glorot uniform samples; returns t."""
        fi, fo = self.fans(t, "xavier_uniform_")
        std = gain * math.sqrt(2.0 / float(fi + fo))
        a = math.sqrt(3.0) * std
        return uniform_(t, -a, a, generator)

    def xavier_normal_(self, t, gain=1.0, generator=None):
        """Fills t in place with Xavier/Glorot normal samples; returns t."""
        fi, fo = self.fans(t, "xavier_normal_")
        std = gain * math.sqrt(2.0 / float(fi + fo))
        return normal_(t, 0.0, std, generator)

    def kaiming_uniform_(self, t, a=0, mode="fan_in", nonlinearity="leaky_relu",
                         generator=None):
        """Fills t in place with Kaiming/He uniform samples; returns t."""
        _tensor(t, "kaiming_uniform_")
        if _empty(t):
            return t
        fan = _fan(*self.fans(t, "kaiming_uniform_"), mode)
        std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
        bound = math.sqrt(3.0) * std
        return uniform_(t, -bound, bound, generator)

    def kaiming_normal_(self, t, a=0, mode="fan_in", nonlinearity="leaky_relu",
                        generator=None):
        """Fills t in place with Kaiming/He normal samples; returns t."""
        _tensor(t, "kaiming_normal_")
        if _empty(t):
            return t
        fan = _fan(*self.fans(t, "kaiming_normal_"), mode)
        std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
        return normal_(t, 0.0, std, generator)


_PADDLE = Initializers(False)
xavier_uniform_ = _PADDLE.xavier_uniform_
xavier_normal_ = _PADDLE.xavier_normal_
kaiming_uniform_ = _PADDLE.kaiming_uniform_
kaiming_normal_ = _PADDLE.kaiming_normal_


def trunc_normal_(t, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills t in place with N(mean, std**2) samples truncated to [a, b] (inverse-CDF
    sampling, as PyTorch); returns t."""
    _tensor(t, "trunc_normal_")
    if t._data.dtype.kind != "f":
        raise ArgTypeError(f"nn.init.trunc_normal_: expected a floating tensor, got "
                           f"{t.dtype.name}")
    lo, hi = _norm_cdf((a - mean) / std), _norm_cdf((b - mean) / std)
    uniform_(t, 2 * lo - 1, 2 * hi - 1, generator)
    with grad_mode.no_grad():
        v = _erfinv(t._data.astype(np.float64)) * (std * math.sqrt(2.0)) + mean
        np.copyto(t._data, np.clip(v, a, b), casting="unsafe")
        bump(t, "trunc_normal_")
    return t


def orthogonal_(t, gain=1, generator=None):
    """Fills t (at least 2-D) in place with a (semi-)orthogonal matrix times gain; returns t."""
    _tensor(t, "orthogonal_")
    if t.ndim < 2:
        raise ArgValueError("nn.init.orthogonal_: Only tensors with 2 or more dimensions are "
                            f"supported, got shape {list(t.shape)}")
    if t._data.size == 0:
        return t
    rows = t.shape[0]
    cols = t._data.size // rows
    flat = wrap_as(t._result_class, np.empty((rows, cols), t._data.dtype))   # t's door draws
    normal_(flat, 0.0, 1.0, generator)
    m = flat._data.T if rows < cols else flat._data
    q, r = np.linalg.qr(m)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    with grad_mode.no_grad():
        np.copyto(t._data, (q * gain).reshape(t._data.shape), casting="unsafe")
        bump(t, "orthogonal_")
    return t
