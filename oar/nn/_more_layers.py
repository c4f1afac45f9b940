"""Paddle 3.3.1 layers added in the breadth pass: the activations of _more_functional (CELU,
SELU, GLU, Hardshrink, Softshrink, Softsign, Tanhshrink, ThresholdedReLU, RReLU, Mish,
Hardswish, Hardsigmoid, Maxout, Swish, Silu, PReLU), Pad1D / Pad2D / Pad3D and ZeroPad1D /
2D / 3D (Paddle's padding order and data_format, over F.pad), CosineSimilarity,
InstanceNorm3D and BatchNorm3D; Paddle's constructor arguments, reprs and state_dict keys."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from . import _more_functional as MF
from . import functional as F
from . import layers as _L
from .layers import Layer

__all__ = ["CELU", "SELU", "GLU", "Hardshrink", "Softshrink", "Softsign", "Tanhshrink",
           "ThresholdedReLU", "RReLU", "Mish", "Hardswish", "Hardsigmoid", "Maxout", "Swish",
           "Silu", "PReLU", "Pad1D", "Pad2D", "Pad3D", "ZeroPad1D", "ZeroPad2D", "ZeroPad3D",
           "CosineSimilarity", "InstanceNorm3D", "BatchNorm3D", "BatchNorm"]


class CELU(Layer):
    """Elementwise x where x > 0, else alpha * (exp(x / alpha) - 1)."""
    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._alpha = alpha

    def forward(self, x):
        """celu(x, alpha)."""
        return MF.celu(x, self._alpha)

    def extra_repr(self):
        """alpha."""
        return f"alpha={self._alpha}"


class SELU(Layer):
    """Elementwise scale * (x where x > 0, else alpha * (exp(x) - 1))."""
    def __init__(self, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
        super().__init__()
        self._scale, self._alpha = scale, alpha

    def forward(self, x):
        """selu(x, scale, alpha)."""
        return MF.selu(x, self._scale, self._alpha)

    def extra_repr(self):
        """scale and alpha."""
        return f"scale={self._scale:.16f}, alpha={self._alpha:.16f}"


class GLU(Layer):
    """a * sigmoid(b), a and b the halves of x along axis."""
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        """glu(x, axis)."""
        return MF.glu(x, self._axis)

    def extra_repr(self):
        """axis."""
        return f"axis={self._axis}"


class Hardshrink(Layer):
    """Elementwise x where |x| > threshold, else 0."""
    _fn = staticmethod(MF.hardshrink)

    def __init__(self, threshold=0.5, name=None):
        super().__init__()
        self._threshold = threshold

    def forward(self, x):
        """The shrink of x by threshold."""
        return type(self)._fn(x, self._threshold)

    def extra_repr(self):
        """threshold."""
        return f"threshold={self._threshold}"


class Softshrink(Hardshrink):
    """Elementwise x shrunk toward 0 by threshold (0 inside [-threshold, threshold])."""
    _fn = staticmethod(MF.softshrink)


class _Plain(Layer):
    _fn: Any = None   # set by each subclass

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        """The activation of x."""
        return type(self)._fn(x)


class Softsign(_Plain):
    """Elementwise x / (1 + |x|)."""
    _fn = staticmethod(MF.softsign)


class Tanhshrink(_Plain):
    """Elementwise x - tanh(x)."""
    _fn = staticmethod(MF.tanhshrink)


class Mish(_Plain):
    """Elementwise x * tanh(softplus(x))."""
    _fn = staticmethod(MF.mish)


class Hardswish(_Plain):
    """Elementwise x * relu6(x + 3) / 6."""
    _fn = staticmethod(MF.hardswish)


class Hardsigmoid(_Plain):
    """Elementwise clip(0.1666667 * x + 0.5, 0, 1)."""
    _fn = staticmethod(MF.hardsigmoid)


class Swish(_Plain):
    """Elementwise x * sigmoid(x)."""
    _fn = staticmethod(MF.swish)


class Silu(Layer):
    """Elementwise x * sigmoid(x) (in place on x when inplace=True)."""
    def __init__(self, inplace=False, name=None):
        super().__init__()
        self._inplace = inplace

    def forward(self, x):
        """silu(x)."""
        return F.silu(x, self._inplace)

    def extra_repr(self):
        """inplace."""
        return f"inplace={self._inplace}"


class ThresholdedReLU(Layer):
    """Elementwise x where x > threshold, else value."""
    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__()
        self._threshold, self._value = threshold, value

    def forward(self, x):
        """thresholded_relu(x, threshold, value)."""
        return MF.thresholded_relu(x, self._threshold, self._value)

    def extra_repr(self):
        """threshold and value."""
        return f"threshold={self._threshold}, value={self._value}"


class RReLU(Layer):
    """Randomized leaky ReLU: slopes drawn from U(lower, upper) in training, their mean in
    evaluation."""
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, name=None):
        super().__init__()
        self._lower, self._upper = lower, upper

    def forward(self, x):
        """rrelu(x, lower, upper, self.training)."""
        return MF.rrelu(x, self._lower, self._upper, self.training)

    def extra_repr(self):
        """lower, upper, training and dtype (Paddle's repr)."""
        return (f"lower={self._lower}, upper={self._upper}, training={self.training}, "
                "dtype=float32")


class Maxout(Layer):
    """The maximum over each run of `groups` channels."""
    def __init__(self, groups, axis=1, name=None):
        super().__init__()
        self._groups, self._axis = groups, axis

    def forward(self, x):
        """maxout(x, groups, axis)."""
        return MF.maxout(x, self._groups, self._axis)

    def extra_repr(self):
        """groups and axis."""
        return f"groups={self._groups}, axis={self._axis}"


class PReLU(Layer):
    """x where x > 0, else weight * x; a learnable weight of num_parameters elements (1:
    shared; else one per channel), initialised to `init`; state_dict key `_weight`."""
    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None):
        super().__init__()
        if isinstance(num_parameters, bool) or not isinstance(num_parameters,
                                                              (int, np.integer)):
            raise ArgTypeError(f"PReLU: num_parameters must be an int, got "
                               f"{type(num_parameters).__name__}")
        if num_parameters < 1:
            raise ArgValueError(f"PReLU: num_parameters must be >= 1, got {num_parameters}")
        self._num_parameters, self._init = int(num_parameters), init
        self._data_format = data_format
        self._weight = self.create_parameter(
            [self._num_parameters], attr=weight_attr,
            default_initializer=lambda p: p.set_value(
                np.full(p.shape, init, dtype=p._data.dtype)))

    def forward(self, x):
        """prelu(x, weight, data_format)."""
        return MF.prelu(x, self._weight, self._data_format)

    def extra_repr(self):
        """Paddle's repr fields."""
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
                f"init={self._init}, dtype=float32")


# ---------------------------------------------------------------------- padding
_PAD_FMT = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


class _PadND(Layer):
    _n = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        n = self._n
        if data_format is None:
            data_format = _PAD_FMT[n][0]
        if isinstance(padding, (int, np.integer)) and not isinstance(padding, bool):
            padding = [int(padding)] * (2 * n)
        elif isinstance(padding, Tensor):
            padding = padding.tolist()
        elif isinstance(padding, (list, tuple)):
            padding = list(padding)
        else:
            raise ArgTypeError(f"{type(self).__name__}: padding must be an int, a list of "
                               f"{2 * n} ints or a Tensor, got {type(padding).__name__}")
        self.padding, self._mode, self.value = padding, mode, value
        self._data_format = data_format

    def forward(self, x):
        """F.pad(x, padding, mode, value, data_format)."""
        return F.pad(x, self.padding, self._mode, self.value, self._data_format)

    def extra_repr(self):
        """Paddle's repr fields."""
        return (f"padding={self.padding}, mode={self._mode}, value={self.value}, "
                f"data_format={self._data_format}")


class Pad1D(_PadND):
    """Pads the last dim of [N, C, L] (NCL) or [N, L, C] (NLC) input by [left, right]."""
    _n = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad2D(_PadND):
    """Pads H and W by [left, right, top, bottom] (NCHW or NHWC)."""
    _n = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad3D(_PadND):
    """Pads D, H and W by [left, right, top, bottom, front, back] (NCDHW or NDHWC)."""
    _n = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format)


class ZeroPad1D(Pad1D):
    """Pad1D with zeros."""
    def __init__(self, padding, data_format="NCL", name=None):
        super().__init__(padding, "constant", 0.0, data_format)


class ZeroPad2D(Pad2D):
    """Pad2D with zeros."""
    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format)


class ZeroPad3D(Pad3D):
    """Pad3D with zeros."""
    def __init__(self, padding, data_format="NCDHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format)


# ---------------------------------------------------------------------- others
class CosineSimilarity(Layer):
    """Cosine similarity of x1 and x2 along axis."""
    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        """cosine_similarity(x1, x2, axis, eps)."""
        return F.cosine_similarity(x1, x2, self._axis, self._eps)

    def extra_repr(self):
        """axis and eps."""
        return f"axis={self._axis}, eps={self._eps}"


class InstanceNorm3D(_L._InstanceNorm):
    """Instance normalisation over [N, C, D, H, W] input."""
    _ndims = (5,)

    def extra_repr(self):
        """num_features and epsilon (Paddle's repr)."""
        return f"num_features={self.num_features}, epsilon={self.epsilon}"


class BatchNorm3D(_L._BatchNorm):
    """Batch normalisation over [N, C, D, H, W] input (Paddle momentum, default 0.9)."""
    _ndims = (5,)
    _stats_as_params = True   # Note [Paddle batch-norm statistics are parameters]
    _paddle_format = "NCDHW"
    _formats = ("NCHW", "NCDHW", "NHWC", "NDHWC")


class BatchNorm(_L._BatchNorm):
    """Paddle's legacy batch norm (paddle.nn.BatchNorm): any input of rank 2 to 5 with the
    channels in dim 1 (NCHW) or last (NHWC), statistics as non-trainable parameters (Note
    [Paddle batch-norm statistics are parameters]), then an optional activation by name."""
    _stats_as_params = True
    # its dtype argument (only float32 here), not the default dtype, as Paddle's (Note
    # [Parameters take the default dtype])
    _param_dtype = "float32"
    _acts = {"relu": F.relu, "sigmoid": F.sigmoid, "tanh": F.tanh}

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        op = "BatchNorm"
        if act is not None and act not in self._acts:
            raise ArgValueError(f"{op}: act={act!r} is not supported; use one of "
                                f"{sorted(self._acts)} or None, or apply the activation after "
                                "the layer")
        if data_layout not in ("NCHW", "NHWC"):
            raise ArgValueError(f"{op}: data_layout must be 'NCHW' or 'NHWC', got "
                                f"{data_layout!r}")
        if str(dtype) not in ("float32", "paddle.float32"):
            raise NotImplementedError(f"{op}: dtype={dtype!r} is not supported yet (float32 "
                                      "only); cast the input to float32")
        if trainable_statistics:
            raise NotImplementedError(f"{op}: trainable_statistics=True (batch statistics in "
                                      "evaluation) is not supported")
        _L._check_param_attr(param_attr, op, "param_attr")
        _L._check_param_attr(bias_attr, op, "bias_attr")
        super().__init__(num_channels, momentum, epsilon,
                         weight_attr=False if param_attr is False else None,
                         bias_attr=False if bias_attr is False else None)
        for pname, attr in (("weight", param_attr), ("bias", bias_attr)):
            if self._parameters.get(pname) is not None:
                _L.apply_param_attr(self._parameters[pname], attr)
        for n, given in zip(self._stat_names, (moving_mean_name, moving_variance_name)):
            if given is not None:
                self._parameters[n].name = given
        self._act, self._is_test, self._layout = act, bool(is_test), data_layout
        self._use_global_stats = bool(use_global_stats)

    _ndims = (2, 3, 4, 5)

    def forward(self, input):
        """Batch-normalised input (running statistics when is_test, use_global_stats or in
        evaluation), then the activation."""
        x = input
        moved = False
        if self._layout == "NHWC" and isinstance(x, Tensor) and x.ndim > 2:
            x, moved = x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1))), True
        self._check_input(x)
        mean, var = self._stats()
        batch = self.training and not (self._is_test or self._use_global_stats)
        y = F.batch_norm(x, mean, var, self.weight, self.bias, training=batch,
                         momentum=self.momentum, epsilon=self.epsilon)
        if self._act is not None:
            y = self._acts[self._act](y)
        return F._channels_back(y, moved)

    def extra_repr(self):
        """Paddle's repr shows nothing inside the parentheses."""
        return ""


class PairwiseDistance(Layer):
    """||x - y + epsilon||_p over the last dim."""
    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim = p, epsilon, keepdim

    def forward(self, x, y):
        """pairwise_distance(x, y, p, epsilon, keepdim)."""
        return MF.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)

    def extra_repr(self):
        """p (Paddle's repr)."""
        return f"p={self.p}"


class ChannelShuffle(Layer):
    """Regroups the channels of a 4-D input into `groups` interleaved groups."""
    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._groups, self._data_format = groups, data_format

    def forward(self, x):
        """channel_shuffle(x, groups, data_format)."""
        return MF.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self):
        """groups."""
        return f"groups={self._groups}"


class LocalResponseNorm(Layer):
    """Normalises each channel by the mean square of its `size` neighbouring channels."""
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format = data_format

    def forward(self, x):
        """local_response_norm(x, ...)."""
        return MF.local_response_norm(x, self.size, self.alpha, self.beta, self.k,
                                      self.data_format)

    def extra_repr(self):
        """size, alpha, beta, k."""
        return f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ += ["PairwiseDistance", "ChannelShuffle", "LocalResponseNorm"]
