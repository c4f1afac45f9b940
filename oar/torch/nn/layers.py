"""The layers of torch.nn: PyTorch's constructors, attributes, state-dict keys, initial
values and reprs. Where a layer means what the core layer means, it is the core class
with Module mixed in (Note [Torch modules over core layers]); Linear has its own class
because its weight is [out_features, in_features] (Note [Linear weight layout])."""
from __future__ import annotations

from typing import Any

import math

import numpy as np

from ... import dtypes as _dt
from ...autograd import grad_mode
from ...nn import _checks as _c
from ...nn import _kernels as _K
from ...nn import _recurrent as _R
from ...nn import layers as _core
from ...ops import args as _args
from ...ops.registry import FUNCTIONS as _FN
from ...tensor import wrap_as
from .._tensor import Parameter, Tensor
from . import functional as F
from . import init
from .modules import Module, _check_device

__all__ = [
    "Identity", "Linear", "Bilinear", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "BatchNorm1d", "BatchNorm2d",
    "LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "Dropout", "Dropout1d",
    "Dropout2d", "Dropout3d", "ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "GELU", "SiLU", "Mish", "Tanh",
    "Sigmoid", "Hardtanh", "Hardswish", "Hardsigmoid", "LogSigmoid", "Softplus", "Softmax",
    "LogSoftmax", "Softmin", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "Embedding", "Flatten", "Unflatten",
    "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
    "SmoothL1Loss", "HuberLoss", "KLDivLoss", "CosineSimilarity", "RNN", "LSTM", "GRU",
    "RNNCell", "LSTMCell", "GRUCell"]


def _np_dtype(dtype):
    # None: torch.get_default_dtype() now (Note [Parameters take the default dtype])
    return (_dt.get_default_dtype() if dtype is None else _dt.as_dtype(dtype)).np


def _factory(device, dtype):
    if device is not None:
        _check_device(device, "nn")
    return _np_dtype(dtype)


def _param(shape, dtype=None):
    return Parameter(np.zeros(shape, _np_dtype(dtype)))


def _tuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class Identity(Module):
    """Returns its input (arguments to the constructor are ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        """input itself."""
        return input


class Linear(Module):
    """y = x @ weight.T + bias, weight of shape [out_features, in_features], weight and bias
    drawn uniform on +-1/sqrt(in_features) (kaiming_uniform_ with a=sqrt(5))."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        dt = _factory(device, dtype)
        self.in_features = _c.count(in_features, "Linear", "in_features")
        self.out_features = _c.count(out_features, "Linear", "out_features")
        self.weight = _param((self.out_features, self.in_features), dt)
        if bias:
            self.bias = _param((self.out_features,), dt)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's initialisation (the same draws, in the same order)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        """input @ weight.T + bias."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        """in_features, out_features and whether there is a bias."""
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T A x2 + b, weight [out_features, in1_features, in2_features]."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        dt = _factory(device, dtype)
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = _param((out_features, in1_features, in2_features), dt)
        if bias:
            self.bias = _param((out_features,), dt)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """weight and bias uniform on +-1/sqrt(in1_features)."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        """sum_ij input1_i weight_kij input2_j + bias_k."""
        from ._nn3 import bilinear
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        """The feature counts and whether there is a bias."""
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


# ---------------------------------------------------------------------- convolutions
class _ConvRepr:
    _same_rule = "torch"        # Note [Two rules for padding='same']

    def extra_repr(self):
        """PyTorch's: channels, kernel_size, stride, then what differs from the defaults."""
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def reset_parameters(self):
        """PyTorch's initialisation: kaiming-uniform weight (a=sqrt(5)), bias uniform on
        +-1/sqrt(fan_in) (the core layers draw Paddle's; Note [Paddle default initialisers])."""
        fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
        if fan_in:
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None and fan_in:
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def _torch_attrs(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                     groups, padding_mode, n, dtype):
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation, self.groups = _tuple(dilation, n), groups
        self.padding_mode, self.transposed, self.output_padding = padding_mode, False, (0,) * n
        if dtype is not None:
            self.to(dtype)


class Conv1d(_ConvRepr, _core.Conv1D, Module):
    """1-D convolution over (N, C, L) input; weight [out_channels, in_channels/groups, k]."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        _factory(device, None)
        _core.Conv1D.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                              dilation, groups, padding_mode, bias=bias)
        self._torch_attrs(in_channels, out_channels, kernel_size, stride, padding, dilation,
                          groups, padding_mode, 1, dtype)

    def forward(self, input):
        """The convolution of input with weight, plus bias."""
        if self.padding_mode != "zeros":    # the core layer pads in that mode first
            return _core.Conv1D.forward(self, input)
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv2d(_ConvRepr, _core.Conv2D, Module):
    """2-D convolution over (N, C, H, W) input; weight [out_channels, in_channels/groups,
    kh, kw]."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        _factory(device, None)
        _core.Conv2D.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                              dilation, groups, padding_mode, bias=bias)
        self._torch_attrs(in_channels, out_channels, kernel_size, stride, padding, dilation,
                          groups, padding_mode, 2, dtype)


class _ConvTransposeNd(_ConvRepr, Module):
    """PyTorch's transposed convolution: weight [in_channels, out_channels/groups, *k],
    forward(input, output_size=None)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        _factory(device, None)
        n = self._nd
        if padding_mode != "zeros":
            raise _c.ArgValueError(f"Only \"zeros\" padding mode is supported for "
                                   f"{type(self).__name__}")
        _core._ConvTransposeNd.__init__(self, in_channels, out_channels, kernel_size, stride,
                                        padding, output_padding, dilation, groups, None, None,
                                        {1: "NCL", 2: "NCHW", 3: "NCDHW"}[n], bias=bias)
        self._torch_attrs(in_channels, out_channels, kernel_size, stride, padding, dilation,
                          groups, padding_mode, n, None)
        self.transposed, self.output_padding = True, _tuple(output_padding, n)
        if dtype is not None:
            self.to(dtype)

    def forward(self, input, output_size=None):
        """The transposed convolution of input with weight, plus bias; output_size (spatial,
        or with the batch and channel dims) picks output_padding."""
        n = self._nd
        fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[n]
        if output_size is None:
            return fn(input, self.weight, self.bias, self.stride, self.padding,
                      self.output_padding, self.groups, self.dilation)
        return _K.conv_transpose(input, self.weight, self.bias, self.stride, self.padding,
                                 0, self.groups, self.dilation, list(output_size),
                                 op=f"ConvTranspose{n}d", nd=n)


class ConvTranspose1d(_ConvTransposeNd, _core.Conv1DTranspose):
    """1-D transposed convolution over (N, C_in, L) input."""
    extra_repr = _ConvRepr.extra_repr


class ConvTranspose2d(_ConvTransposeNd, _core.Conv2DTranspose):
    """2-D transposed convolution over (N, C_in, H, W) input."""
    extra_repr = _ConvRepr.extra_repr


# ---------------------------------------------------------------------- normalisation
class _BatchNorm(_core._BatchNorm, Module):
    """PyTorch's batch norm: running_mean / running_var / num_batches_tracked buffers,
    momentum=0.1 (None: the cumulative average)."""
    _stat_names = ("running_mean", "running_var")
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        _factory(device, None)
        _core._BatchNorm.__init__(self, num_features, None, eps, affine=affine,
                                  bias_attr=None if bias else False,
                                  track_running_stats=track_running_stats)
        self.eps, self.momentum = eps, momentum
        self.register_buffer("num_batches_tracked",
                             Tensor._wrap(np.array(0, np.int64)) if track_running_stats
                             else None)
        if dtype is not None:
            self.to(dtype)

    def reset_running_stats(self):
        """Running mean 0, running variance 1, num_batches_tracked 0."""
        super().reset_running_stats()
        n = self._buffers.get("num_batches_tracked")
        if n is not None:
            with grad_mode.no_grad():
                n.zero_()

    def forward(self, input):
        """Batch statistics in training (updating the running ones), running statistics in
        evaluation."""
        self._check_input(input)
        factor = 0.0 if self.momentum is None else self.momentum
        nbt = self._buffers.get("num_batches_tracked")
        if self.training and self.track_running_stats and nbt is not None:
            with grad_mode.no_grad():
                nbt.add_(1)
            factor = 1.0 / float(nbt._data) if self.momentum is None else self.momentum
        mean, var = self._stats()
        training = self.training or (mean is None and var is None)
        use = not self.training or self.track_running_stats
        return F.batch_norm(input, mean if use else None, var if use else None, self.weight,
                            self.bias, training, factor, self.eps)

    def _plan_load(self, state_dict, prefix, local_metadata, strict, missing_keys,
                   unexpected_keys, error_msgs, plan):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"      # checkpoints from before the buffer
            if key not in state_dict:
                nbt = self._buffers.get("num_batches_tracked")
                state_dict[key] = nbt if nbt is not None else Tensor._wrap(np.array(0, np.int64))
        super()._plan_load(state_dict, prefix, local_metadata, strict, missing_keys,
                           unexpected_keys, error_msgs, plan)

    def extra_repr(self):
        """PyTorch's: features, eps, momentum, affine, bias, track_running_stats."""
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) input."""
    _ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) input."""
    _ndims = (4,)


class LayerNorm(_core.LayerNorm, Module):
    """Layer normalisation over the trailing normalized_shape dims (weight 1, bias 0)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        _factory(device, None)
        _core.LayerNorm.__init__(self, normalized_shape, eps,
                                 elementwise_affine=elementwise_affine, bias=bias)
        self.normalized_shape = tuple(self.normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if dtype is not None:
            self.to(dtype)

    def forward(self, input):
        """layer_norm(input)."""
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        """PyTorch's: shape, eps, elementwise_affine, bias."""
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine="
                f"{self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(_core.GroupNorm, Module):
    """Group normalisation: num_channels split into num_groups groups."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        _factory(device, None)
        _core.GroupNorm.__init__(self, num_groups, num_channels, eps,
                                 bias_attr=None if bias else False, affine=affine)
        self.eps = eps
        if dtype is not None:
            self.to(dtype)

    def forward(self, input):
        """group_norm(input)."""
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        """PyTorch's: groups, channels, eps, affine, bias."""
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _InstanceNorm(Module):
    _ndim: Any = None   # set by each subclass
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__()
        dt = _factory(device, dtype)
        self.num_features = _c.count(num_features, type(self).__name__, "num_features")
        self.eps, self.momentum = eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(np.ones(num_features, dt))
            if bias:
                self.bias = Parameter(np.zeros(num_features, dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor._wrap(np.zeros(num_features, dt)))
            self.register_buffer("running_var", Tensor._wrap(np.ones(num_features, dt)))
            self.register_buffer("num_batches_tracked", Tensor._wrap(np.array(0, np.int64)))
        else:
            for n in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(n, None)

    def forward(self, input):
        """Each (sample, channel) normalised over its spatial dims."""
        nd = input.ndim
        if nd not in (self._ndim - 1, self._ndim):
            raise ValueError(f"expected {self._ndim - 1}D or {self._ndim}D input (got {nd}D "
                             "input)")
        unbatched = nd == self._ndim - 1
        x = input.unsqueeze(0) if unbatched else input
        use_stats = self.training or not self.track_running_stats
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              use_stats, self.momentum if self.momentum is not None else 0.1,
                              self.eps)
        return out.squeeze(0) if unbatched else out

    def extra_repr(self):
        """PyTorch's: features, eps, momentum, affine, bias, track_running_stats."""
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation over (N, C, L) or (C, L) input."""
    _ndim = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation over (N, C, H, W) or (C, H, W) input."""
    _ndim = 4


# ---------------------------------------------------------------------- dropout
class _DropoutNd(Module):
    _fn: Any = None   # set by each subclass

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        """Dropout of input in training; input itself in evaluation."""
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        """p and inplace."""
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zeroes elements with probability p in training; the rest are scaled by 1/(1-p)."""
    _fn = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) input with probability p in training."""
    _fn = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) input with probability p in training; other
    ranks warn and run, as torch's (Note [Feature dropout dims])."""
    _fn = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p in
    training; other ranks warn and run, as torch's (Note [Feature dropout dims])."""
    _fn = staticmethod(F.dropout3d)


# ---------------------------------------------------------------------- activations
class _Inplace(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        """'inplace=True' when in place."""
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    """max(input, 0) elementwise."""

    def forward(self, input):
        """relu(input)."""
        return F.relu(input, inplace=self.inplace)


class ReLU6(_Inplace):
    """min(max(input, 0), 6) elementwise."""

    def forward(self, input):
        """relu6(input)."""
        return F.relu6(input, self.inplace)


class SiLU(_Inplace):
    """input * sigmoid(input)."""

    def forward(self, input):
        """silu(input)."""
        return F.silu(input, self.inplace)


class Mish(_Inplace):
    """input * tanh(softplus(input))."""

    def forward(self, input):
        """mish(input)."""
        return F.mish(input, self.inplace)


class Hardswish(_Inplace):
    """input * relu6(input + 3) / 6."""

    def forward(self, input):
        """hardswish(input)."""
        return F.hardswish(input, self.inplace)


class Hardsigmoid(_Inplace):
    """relu6(input + 3) / 6."""

    def forward(self, input):
        """hardsigmoid(input)."""
        return F.hardsigmoid(input, self.inplace)


class LeakyReLU(Module):
    """input where input > 0, else negative_slope * input."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        """leaky_relu(input)."""
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        """negative_slope (and inplace)."""
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class PReLU(Module):
    """input where input > 0, else weight * input; weight (num_parameters) learned."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(np.full(num_parameters, init, _factory(device, dtype)))

    def forward(self, input):
        """prelu(input, weight)."""
        return F.prelu(input, self.weight)

    def extra_repr(self):
        """num_parameters."""
        return f"num_parameters={self.num_parameters}"


class ELU(Module):
    """input where input > 0, else alpha * (exp(input) - 1)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        """elu(input)."""
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        """alpha (and inplace)."""
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """Gaussian error linear unit (approximate='tanh': the tanh form)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        """gelu(input)."""
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        """approximate."""
        return f"approximate={self.approximate!r}"


class Hardtanh(Module):
    """input clamped into [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise AssertionError("max_val must be greater than min_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        """hardtanh(input)."""
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        """min_val, max_val (and inplace)."""
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                + (", inplace=True" if self.inplace else ""))


class _Plain(Module):
    _fn: Any = None   # set by each subclass

    def forward(self, input):
        """The activation of input."""
        return type(self)._fn(input)


class Tanh(_Plain):
    """Hyperbolic tangent."""
    _fn = staticmethod(F.tanh)


class Sigmoid(_Plain):
    """1 / (1 + exp(-input))."""
    _fn = staticmethod(F.sigmoid)


# Note [Donated activations]: the exact classes whose forward reads its input in one op
_core._DONATABLE.update((ReLU, LeakyReLU, Sigmoid, Tanh))


class LogSigmoid(_Plain):
    """log(sigmoid(input))."""
    _fn = staticmethod(F.logsigmoid)


class Softplus(Module):
    """log(1 + exp(beta * input)) / beta (input itself above threshold)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        """softplus(input)."""
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        """beta and threshold."""
        return f"beta={self.beta}, threshold={self.threshold}"


class _DimModule(Module):
    _fn: Any = None   # set by each subclass

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        """The function of input along dim."""
        return type(self)._fn(input, self.dim)

    def extra_repr(self):
        """dim."""
        return f"dim={self.dim}"


class Softmax(_DimModule):
    """exp(input) normalised to sum to 1 along dim."""
    _fn = staticmethod(F.softmax)


class LogSoftmax(_DimModule):
    """log(softmax(input)) along dim."""
    _fn = staticmethod(F.log_softmax)


class Softmin(_DimModule):
    """softmax(-input) along dim."""
    _fn = staticmethod(F.softmin)


class CosineSimilarity(Module):
    """Cosine similarity of two inputs along dim."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        """cosine_similarity(x1, x2)."""
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


# ---------------------------------------------------------------------- pooling
class MaxPool2d(_core.MaxPool2D, Module):
    """2-D max pooling over (N, C, H, W) input."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        _core.MaxPool2D.__init__(self, kernel_size, stride, padding, dilation, return_indices,
                                 ceil_mode)
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self):
        """PyTorch's: kernel_size, stride, padding, dilation, ceil_mode."""
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(Module):
    """1-D max pooling over (N, C, L) input."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        """max_pool1d(input)."""
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    extra_repr = MaxPool2d.extra_repr


class AvgPool2d(_core.AvgPool2d, Module):
    """2-D average pooling over (N, C, H, W) input (padding counted by default)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        _core.AvgPool2d.__init__(self, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad, divisor_override)
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self):
        """kernel_size, stride, padding."""
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(Module):
    """1-D average pooling over (N, C, L) input."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 1)
        self.stride = _tuple(stride if stride is not None else kernel_size, 1)
        self.padding = _tuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        """avg_pool1d(input)."""
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    extra_repr = AvgPool2d.extra_repr


class AdaptiveAvgPool2d(Module):
    """2-D average pooling to output_size."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        """adaptive_avg_pool2d(input)."""
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        """output_size."""
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """1-D average pooling to output_size."""

    def forward(self, input):
        """adaptive_avg_pool1d(input)."""
        return F.adaptive_avg_pool1d(input, self.output_size)


# ---------------------------------------------------------------------- embedding, shapes
class Embedding(_core.Embedding, Module):
    """A lookup table of num_embeddings vectors of size embedding_dim, drawn from N(0, 1)
    (the padding_idx row zero)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        Module.__init__(self)
        dt = _factory(device, dtype)
        self.num_embeddings = _c.count(num_embeddings, "Embedding", "num_embeddings")
        self.embedding_dim = _c.count(embedding_dim, "Embedding", "embedding_dim")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = padding_idx + num_embeddings if padding_idx < 0 else padding_idx
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = _param((num_embeddings, embedding_dim), dt)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        """PyTorch's initialisation: the table from N(0, 1), the padding_idx row zero."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with grad_mode.no_grad():
                self.weight[self.padding_idx] = 0.0

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An Embedding whose table is embeddings (2-D); frozen unless freeze=False."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def forward(self, input):
        """The rows of weight at the indices input; with max_norm, the rows read are first
        renormalised in place on weight (as torch)."""
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        """num_embeddings, embedding_dim and the options that differ from the defaults."""
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        if self.sparse:
            s += ", sparse=True"
        return s


class Flatten(Module):
    """Merges dims start_dim .. end_dim (default: all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        """input flattened from start_dim to end_dim."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        """start_dim and end_dim."""
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim into unflattened_size."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input):
        """input with dim split into unflattened_size."""
        d = _args.axis(self.dim, input.ndim, "Unflatten")
        shape = list(input.shape)
        return input.reshape(shape[:d] + list(self.unflattened_size) + shape[d + 1:])

    def extra_repr(self):
        """dim and unflattened_size."""
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


# ---------------------------------------------------------------------- losses
class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = F._legacy(size_average, reduce, reduction) \
            if size_average is not None or reduce is not None else reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """|input - target|, reduced."""

    def forward(self, input, target):
        """l1_loss(input, target)."""
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """(input - target) ** 2, reduced."""

    def forward(self, input, target):
        """mse_loss(input, target)."""
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of logits against class indices or class probabilities."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        """cross_entropy(input, target)."""
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities at class indices."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        """nll_loss(input, target)."""
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities against targets."""

    def forward(self, input, target):
        """binary_cross_entropy(input, target)."""
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of sigmoid(logits) against targets, computed stably."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        """binary_cross_entropy_with_logits(input, target)."""
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        """smooth_l1_loss(input, target)."""
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 d**2 where |d| < delta, else delta * (|d| - 0.5 delta)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        """huber_loss(input, target)."""
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """KL divergence of targets from exp(input) (input: log-probabilities)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        """kl_div(input, target)."""
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


# ---------------------------------------------------------------------- recurrent layers
class _RNNBase(Module):
    """RNN / LSTM / GRU: PyTorch's parameters (weight_ih_l{k}[_reverse], weight_hh_l{k}...,
    bias_ih_l{k}..., bias_hh_l{k}...), initial values (uniform on +-1/sqrt(hidden_size), in
    parameter order) and gate layouts; the recurrence is written in oar ops, so autograd
    differentiates it step by step."""
    _gates = 1
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        dt = _factory(device, dtype)
        name = type(self).__name__
        self.input_size = _c.count(input_size, name, "input_size")
        self.hidden_size = _c.count(hidden_size, name, "hidden_size", 1)
        self.num_layers = _c.count(num_layers, name, "num_layers", 1)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        proj_size = _c.count(proj_size, name, "proj_size")
        if proj_size and self._gates != 4:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.bias, self.batch_first = bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        dirs = 2 if bidirectional else 1
        gh = self._gates * hidden_size
        h_out = proj_size or hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            n_in = input_size if layer == 0 else h_out * dirs
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                shapes = [("weight_ih" + sfx, (gh, n_in)), ("weight_hh" + sfx, (gh, h_out))]
                if bias:
                    shapes += [("bias_ih" + sfx, (gh,)), ("bias_hh" + sfx, (gh,))]
                if proj_size:
                    shapes.append(("weight_hr" + sfx, (proj_size, hidden_size)))
                for pname, shape in shapes:
                    setattr(self, pname, _param(shape, dt))
                    self._flat_weights_names.append(pname)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias uniform on +-1/sqrt(hidden_size)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _mode_name(self):
        if self._mode == "RNN_TANH" and getattr(self, "nonlinearity", "tanh") == "relu":
            return "RNN_RELU"
        return self._mode

    def flatten_parameters(self):
        """Nothing to do: torch packs the weights into one cuDNN buffer; oar's recurrence reads
        each weight as it is (as torch does on the CPU, where this is also a no-op)."""

    def _zeros(self, like, shape):
        return wrap_as(like._result_class, np.zeros(shape, like._data.dtype))

    def forward(self, input, hx=None):
        """(output, h_n) — for LSTM (output, (h_n, c_n)) — of the recurrence over input, a
        Tensor or a PackedSequence (then output is a PackedSequence too; Note [Recurrent layers
        per door])."""
        from .utils import rnn as _rnn
        lstm = self._gates == 4
        name = type(self).__name__
        packed = isinstance(input, _rnn.PackedSequence)
        mask, sorted_idx = None, None
        if packed:
            sorted_idx = input.sorted_indices
            x, lengths = _rnn._pad_sorted(input)      # time-major, in the sorted order
            mask = _R.length_mask(lengths, x.shape[0], x.shape[1], name)
            unbatched = False
        else:
            if input.ndim not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D "
                                 "instead")
            unbatched = input.ndim == 2
            x = input.unsqueeze(1) if unbatched else (input.transpose(0, 1) if self.batch_first
                                                        else input)
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {x.shape[-1]}")
        dirs = 2 if self.bidirectional else 1
        n = x.shape[1]
        shape = (self.num_layers * dirs, n, self.proj_size or self.hidden_size)
        c_shape = (self.num_layers * dirs, n, self.hidden_size)
        if hx is None:
            h0 = self._zeros(x, shape)
            c0 = self._zeros(x, c_shape) if lstm else None
        else:
            h0, c0 = hx if lstm else (hx, None)
            if unbatched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if lstm else None
            if tuple(h0.shape) != shape:
                raise RuntimeError(f"Expected hidden size {shape}, got {tuple(h0.shape)}")
            if lstm and tuple(c0.shape) != c_shape:
                raise RuntimeError(f"Expected hidden size {c_shape}, got {tuple(c0.shape)}")
            if sorted_idx is not None:       # torch permutes hx into the packed (sorted) order
                h0 = h0.index_select(1, sorted_idx)
                c0 = c0.index_select(1, sorted_idx) if lstm else None
        weights = []
        for layer in range(self.num_layers):
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                weights.append(tuple(
                    getattr(self, p + sfx) if (self.bias or p.startswith("weight"))
                    and (self.proj_size or p != "weight_hr") else None
                    for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")))
        drop = (lambda t: F.dropout(t, self.dropout, True)) \
            if self.dropout and self.training else None
        out, hn, cn = _R.run(self._mode_name(), x, h0, c0, weights, self.num_layers,
                             self.bidirectional, mask, drop)
        if packed:
            if input.unsorted_indices is not None:
                hn = hn.index_select(1, input.unsorted_indices)
                cn = cn.index_select(1, input.unsorted_indices) if lstm else None
            t_idx, b_idx = _rnn._packed_rows(input.batch_sizes)
            out = _rnn.PackedSequence(_rnn._rows(out, t_idx, b_idx, n), input.batch_sizes,
                                      input.sorted_indices, input.unsorted_indices)
        elif unbatched:
            out, hn = out.squeeze(1), hn.squeeze(1)
            cn = cn.squeeze(1) if lstm else None
        elif self.batch_first:
            out = out.transpose(0, 1)
        return (out, (hn, cn)) if lstm else (out, hn)

    def extra_repr(self):
        """input_size, hidden_size and the options that differ from the defaults."""
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(_RNNBase):
    """Elman RNN: h' = tanh (or relu)(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if len(args) > 3 and isinstance(args[3], str):     # RNN(in, hidden, layers, 'relu')
            nonlinearity, args = args[3], args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(*args, **kwargs)


class LSTM(_RNNBase):
    """Long short-term memory: gates i, f, g, o (in that order in the weights)."""
    _gates = 4
    _mode = "LSTM"


class GRU(_RNNBase):
    """Gated recurrent unit: gates r, z, n (in that order in the weights)."""
    _gates = 3
    _mode = "GRU"


class _RNNCellBase(Module):
    """RNNCell / LSTMCell / GRUCell: one step of the matching recurrent layer, with torch's
    parameters (weight_ih, weight_hh, bias_ih, bias_hh), initial values (uniform on
    +-1/sqrt(hidden_size), in parameter order) and gate layouts. The step is the core's
    cell_step (oar/nn/_recurrent.py), as the layers', so a cell and a one-step layer compute
    the same thing."""
    _layer: Any = None  # the recurrent layer class whose step this cell runs

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        dt = _factory(device, dtype)
        name = type(self).__name__
        self.input_size = _c.count(input_size, name, "input_size")
        self.hidden_size = _c.count(hidden_size, name, "hidden_size")
        self.bias = bias
        gh = self._layer._gates * hidden_size
        self.weight_ih = _param((gh, input_size), dt)
        self.weight_hh = _param((gh, hidden_size), dt)
        if bias:
            self.bias_ih = _param((gh,), dt)
            self.bias_hh = _param((gh,), dt)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = _RNNBase.reset_parameters

    def forward(self, input, hx=None):
        """The next hidden state — for LSTMCell (h', c') — from input and hx (zeros if None)."""
        name = type(self).__name__
        lstm = self._layer._gates == 4
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        if x.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {x.shape[1]} expected "
                               f"{self.input_size}")
        if getattr(self, "nonlinearity", "tanh") not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        shape = (x.shape[0], self.hidden_size)
        if hx is None:
            zeros = _RNNBase._zeros(self, x, shape)
            state = (zeros, _RNNBase._zeros(self, x, shape)) if lstm else zeros
        else:
            state = tuple(hx) if lstm else hx
            if unbatched:
                state = tuple(h.unsqueeze(0) for h in state) if lstm else state.unsqueeze(0)
            for h in (state if lstm else (state,)):
                if tuple(h.shape) != shape:
                    raise RuntimeError(f"{name}: Expected hidden size {shape}, got "
                                       f"{tuple(h.shape)}")
        mode = self._layer._mode
        if mode == "RNN_TANH" and self.nonlinearity == "relu":
            mode = "RNN_RELU"
        out = _R.cell_step(mode, x, state, self.weight_ih, self.weight_hh, self.bias_ih,
                           self.bias_hh)
        if unbatched:
            out = tuple(h.squeeze(0) for h in out) if lstm else out.squeeze(0)
        return out

    def extra_repr(self):
        """input_size, hidden_size, and bias / nonlinearity where not the default."""
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(_RNNCellBase):
    """One Elman RNN step: h' = tanh (or relu)(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    _layer = RNN

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        self.nonlinearity = nonlinearity   # torch refuses an unknown one in forward, as here
        super().__init__(input_size, hidden_size, bias, device, dtype)


class LSTMCell(_RNNCellBase):
    """One LSTM step: gates i, f, g, o (in that order in the weights); returns (h', c')."""
    _layer = LSTM


class GRUCell(_RNNCellBase):
    """One GRU step: gates r, z, n (in that order in the weights)."""
    _layer = GRU

# ------------------------------------------------------------------ spatial (oar/nn/_spatial.py)
def _float_scale(scale_factor):
    """PyTorch's Upsample keeps scale_factor as a float (or a tuple of floats)."""
    if scale_factor is None:
        return None
    if isinstance(scale_factor, tuple):
        return tuple(float(f) for f in scale_factor)
    return float(scale_factor)


class Upsample(Module):
    """F.interpolate as a module (size or scale_factor, mode, align_corners)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = _float_scale(scale_factor)
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        """input resampled."""
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        """PyTorch's: scale_factor (or size) and mode."""
        info = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                else f"size={self.size!r}")
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """2-D nearest-neighbour upsampling."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """2-D bilinear upsampling with align_corners=True."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r) (Note [Pixel shuffle])."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        """input's channels moved into pixel blocks."""
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        """upscale_factor."""
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W) (Note [Pixel shuffle])."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        """input's pixel blocks moved into channels."""
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        """downscale_factor."""
        return f"downscale_factor={self.downscale_factor}"


class Unfold(Module):
    """F.unfold as a module (Note [Unfold and fold])."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        """input's sliding windows as columns."""
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        """PyTorch's: kernel_size, dilation, padding, stride."""
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """F.fold as a module (Note [Unfold and fold])."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size, self.dilation = output_size, kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        """input's columns summed back into their windows."""
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        """PyTorch's: output_size, kernel_size, dilation, padding, stride."""
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


__all__ += ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
            "PixelUnshuffle", "Unfold", "Fold"]


# ---------------------------------------------------------------------- 3-D conv and pooling
class Conv3d(_ConvRepr, _core.Conv3D, Module):
    """3-D convolution over (N, C, D, H, W) input; weight [out_channels, in_channels/groups,
    kd, kh, kw] (Note [N-d convolution])."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        _factory(device, None)
        _core.Conv3D.__init__(self, in_channels, out_channels, kernel_size, stride, padding,
                              dilation, groups, padding_mode, bias=bias)
        self._torch_attrs(in_channels, out_channels, kernel_size, stride, padding, dilation,
                          groups, padding_mode, 3, dtype)

    def forward(self, input):
        """The convolution of input with weight, plus bias."""
        if self.padding_mode != "zeros":    # the core layer pads in that mode first
            return _core.Conv3D.forward(self, input)
        return F.conv3d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class ConvTranspose3d(_ConvTransposeNd, _core.Conv3DTranspose):
    """3-D transposed convolution over (N, C_in, D, H, W) input."""
    extra_repr = _ConvRepr.extra_repr


class MaxPool3d(Module):
    """3-D max pooling over (N, C, D, H, W) input."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        """max_pool3d(input)."""
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    extra_repr = MaxPool2d.extra_repr


class AvgPool3d(Module):
    """3-D average pooling over (N, C, D, H, W) input (padding counted by default)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        """avg_pool3d(input)."""
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    extra_repr = AvgPool2d.extra_repr


__all__ += ["Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d"]
