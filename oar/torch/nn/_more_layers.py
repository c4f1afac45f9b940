"""torch.nn modules added in the breadth pass: the activations of _more_functional (CELU, SELU,
GLU, Hardshrink, Softshrink, Softsign, Tanhshrink, Threshold, RReLU, Softmax2d), the padding
modules (ZeroPad / ConstantPad / ReflectionPad / ReplicationPad / CircularPad 1d-3d, over the
core pad in PyTorch's order), ChannelShuffle, PairwiseDistance, LocalResponseNorm, RMSNorm,
AlphaDropout / FeatureAlphaDropout, BatchNorm3d and InstanceNorm3d; PyTorch 2.13's
constructor arguments, defaults and reprs."""
from __future__ import annotations

from . import functional as F
from . import layers as _L
from .modules import Module

__all__ = ["CELU", "SELU", "GLU", "Hardshrink", "Softshrink", "Softsign", "Tanhshrink",
           "Threshold", "RReLU", "Softmax2d",
           "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d", "BatchNorm3d", "InstanceNorm3d"]


def _inplace(s, inplace):
    return s + (", inplace=True" if inplace else "")


class CELU(Module):
    """input where input > 0, else alpha * (exp(input / alpha) - 1)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        """celu(input)."""
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        """alpha (and inplace)."""
        return _inplace(f"alpha={self.alpha}", self.inplace)


class SELU(Module):
    """scale * elu(input, alpha), Klambauer's constants."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        """selu(input)."""
        return F.selu(input, self.inplace)

    def extra_repr(self):
        """inplace=True when set."""
        return "inplace=True" if self.inplace else ""


class GLU(Module):
    """a * sigmoid(b), a and b the halves of input along dim."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        """glu(input, dim)."""
        return F.glu(input, self.dim)

    def extra_repr(self):
        """dim."""
        return f"dim={self.dim}"


class Hardshrink(Module):
    """input where |input| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        """hardshrink(input, lambd)."""
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        """lambd."""
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """input shrunk toward 0 by lambd (0 inside [-lambd, lambd])."""

    def forward(self, input):
        """softshrink(input, lambd)."""
        return F.softshrink(input, self.lambd)


class Softsign(Module):
    """input / (|input| + 1)."""

    def forward(self, input):
        """softsign(input)."""
        return F.softsign(input)


class Tanhshrink(Module):
    """input - tanh(input)."""

    def forward(self, input):
        """tanhshrink(input)."""
        return F.tanhshrink(input)


class Threshold(Module):
    """value where input <= threshold, else input."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        """threshold(input, threshold, value)."""
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        """threshold, value (and inplace)."""
        return _inplace(f"threshold={self.threshold}, value={self.value}", self.inplace)


class RReLU(Module):
    """Randomized leaky ReLU: a slope drawn from U(lower, upper) per element in training,
    (lower + upper) / 2 in evaluation (Note [rrelu noise])."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        """rrelu(input, lower, upper, self.training)."""
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        """lower, upper (and inplace)."""
        return _inplace(f"lower={self.lower}, upper={self.upper}", self.inplace)


class Softmax2d(Module):
    """softmax over the channel dim of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        """softmax(input, -3)."""
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        return F.softmax(input, -3)


# ---------------------------------------------------------------------- padding
def _ntuple(padding, n, name):
    if isinstance(padding, bool):
        raise TypeError(f"{name}: padding must be an int or a tuple of {2 * n} ints, not bool")
    if isinstance(padding, int):
        return (padding,) * (2 * n)
    t = tuple(padding)
    if len(t) != 2 * n:
        raise ValueError(f"{name}: padding must be an int or a tuple of {2 * n} ints (got "
                         f"{len(t)} values: {t})")
    return t


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, self._n, type(self).__name__)

    def forward(self, input):
        """pad(input, padding, mode)."""
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        """The padding tuple."""
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        """pad(input, padding, 'constant', value)."""
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        """padding and value."""
        return f"padding={self.padding}, value={self.value}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        """pad(input, padding, 'circular'), after PyTorch's input-rank check."""
        n = self._n
        if input.ndim not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.ndim}D input)")
        return super().forward(input)


def _pad_class(name, base, n, mode=None, zero=False):
    body = {"_n": n, "__doc__": f"{name}: pads the last {n} dim(s) of the input"
            + (f" ({mode} mode)." if mode else " with a constant.")}
    if mode:
        body["_mode"] = mode
    if zero:
        def __init__(self, padding):
            _ConstantPadNd.__init__(self, padding, 0.0)

        def extra_repr(self):
            return f"{self.padding}"
        __init__.__doc__ = "padding: an int or a tuple of 2 * n ints."
        extra_repr.__doc__ = "The padding tuple."
        body["__init__"], body["extra_repr"] = __init__, extra_repr
    cls = type(name, (base,), body)
    cls.__module__ = __name__
    return cls


for _n in (1, 2, 3):
    _cp = _pad_class(f"ConstantPad{_n}d", _ConstantPadNd, _n)
    globals()[f"ConstantPad{_n}d"] = _cp
    globals()[f"ZeroPad{_n}d"] = _pad_class(f"ZeroPad{_n}d", _cp, _n, zero=True)
    globals()[f"ReflectionPad{_n}d"] = _pad_class(f"ReflectionPad{_n}d", _PadNd, _n, "reflect")
    globals()[f"ReplicationPad{_n}d"] = _pad_class(f"ReplicationPad{_n}d", _PadNd, _n,
                                                   "replicate")
    globals()[f"CircularPad{_n}d"] = _pad_class(f"CircularPad{_n}d", _CircularPadNd, _n)
del _n, _cp


# ---------------------------------------------------------------------- 3-d normalisations
class BatchNorm3d(_L._BatchNorm):
    """Batch normalisation over (N, C, D, H, W) input."""
    _ndims = (5,)


class InstanceNorm3d(_L._InstanceNorm):
    """Instance normalisation over (N, C, D, H, W) or (C, D, H, W) input."""
    _ndim = 5


class PairwiseDistance(Module):
    """||x1 - x2 + eps||_p over the last dim."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        """pairwise_distance(x1, x2)."""
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class ChannelShuffle(Module):
    """Regroups the channels of the input into `groups` interleaved groups."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        """channel_shuffle(input, groups)."""
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        """groups."""
        return f"groups={self.groups}"


class LocalResponseNorm(Module):
    """Normalises each channel by the mean square of its `size` neighbouring channels."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        """local_response_norm(input, size, alpha, beta, k)."""
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        """size, alpha, beta, k."""
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ += ["PairwiseDistance", "ChannelShuffle", "LocalResponseNorm"]
