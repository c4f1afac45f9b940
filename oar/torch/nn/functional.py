"""torch.nn.functional: PyTorch 2.13's signatures (input, target, dim=, reduction=, the
legacy size_average/reduce) over the core's functional forms (oar.nn.functional).

Where PyTorch's meaning is the core's, the core function is called; what differs is handled
here: F.linear's weight is [out_features, in_features] (Note [Linear weight layout]),
one_hot returns int64, softmax's implicit dim, class-index losses on (N, C, d1, ...) input,
smooth_l1_loss's beta, and dropout drawing its mask with the door's bernoulli_ (PyTorch's
CPU kernel draws `empty_like(input).bernoulli_(1 - p)`).
"""
from __future__ import annotations

import warnings

import numpy as np

from ... import dtypes as _dtypes
from ...autograd import grad_mode as _grad_mode
from ...autograd.errors import ArgTypeError, ArgValueError
from ...nn import _activation_ops as _A
from ...nn import _kernels as _K
from ...nn import _spatial as _S
from ...nn import functional as _F
from ...ops import args as _args
from ...ops import norms as _norms
from ...ops import registry as _R
from ...ops.registry import FUNCTIONS as _FN
from ...tensor import Tensor as _CoreTensor
from ...tensor import wrap_as

__all__ = [
    "linear", "relu", "relu_", "relu6", "elu", "elu_", "leaky_relu", "leaky_relu_", "gelu",
    "silu", "mish", "hardtanh", "hardtanh_", "hardswish", "hardsigmoid", "logsigmoid",
    "softplus", "sigmoid", "tanh", "softmax", "log_softmax", "softmin", "normalize",
    "cosine_similarity", "dropout", "dropout1d", "dropout2d", "dropout3d", "conv1d", "conv2d",
    "conv_transpose1d", "conv_transpose2d",
    "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
    "conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d",
    "adaptive_avg_pool2d", "batch_norm", "layer_norm", "group_norm", "instance_norm",
    "embedding", "one_hot", "pad", "cross_entropy", "nll_loss", "mse_loss", "l1_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss",
    "huber_loss", "kl_div", "flatten", "prelu",
    # spatial (oar/nn/_spatial.py)
    "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
    "pixel_unshuffle", "unfold", "fold", "grid_sample", "affine_grid"]


def _t(x, fname, name="input"):
    if not isinstance(x, _CoreTensor):
        raise ArgTypeError(f"{fname}(): argument '{name}' (position 1) must be Tensor, not "
                           f"{type(x).__name__}")
    return x


def _legacy(size_average, reduce, reduction, emit_warning=True):
    """PyTorch's _Reduction.legacy_get_string: the deprecated size_average / reduce flags."""
    if size_average is None and reduce is None:
        return reduction
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      "reduction='{}' instead.", stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


# ------------------------------------------------------------------ linear and activations
def linear(input, weight, bias=None):
    """input @ weight.T + bias, weight of shape [out_features, in_features] (one node)."""
    return _F._linear(input, weight, bias, True)


def relu(input, inplace=False):
    """max(input, 0) elementwise (in place on input with inplace=True)."""
    return _F.relu(_t(input, "relu"), inplace=inplace)


def relu_(input):
    """max(input, 0) written into input, in place; returns input."""
    return _F.relu_(_t(input, "relu_"))


def relu6(input, inplace=False):
    """min(max(input, 0), 6) elementwise."""
    return _F.relu6(_t(input, "relu6"), inplace)


def elu(input, alpha=1.0, inplace=False):
    """input where input > 0, else alpha * (exp(input) - 1)."""
    return _F.elu(_t(input, "elu"), alpha, inplace)


def elu_(input, alpha=1.0):
    """elu written into input, in place; returns input."""
    return _F.elu(_t(input, "elu_"), alpha, True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """input where input > 0, else negative_slope * input."""
    if inplace:
        return _F._leaky_relu_result_(_t(input, "leaky_relu"), negative_slope)
    return _F.leaky_relu(_t(input, "leaky_relu"), negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """leaky_relu written into input, in place; returns input."""
    return _F._leaky_relu_result_(_t(input, "leaky_relu_"), negative_slope)


def gelu(input, approximate="none"):
    """Gaussian error linear unit (approximate='tanh': the tanh form)."""
    if approximate not in ("none", "tanh"):
        raise ArgValueError(f"approximate argument must be either none or tanh, got "
                            f"{approximate!r}")
    return _F.gelu(_t(input, "gelu"), approximate)


def silu(input, inplace=False):
    """input * sigmoid(input)."""
    return _F.silu(_t(input, "silu"), inplace)


def mish(input, inplace=False):
    """input * tanh(softplus(input)); one op, MishBackward0."""
    return _A.activation(_A.MISH, _t(input, "mish"), inplace=inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """input clamped into [min_val, max_val]."""
    return _F.hardtanh(_t(input, "hardtanh"), min_val, max_val, inplace)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """hardtanh written into input, in place; returns input."""
    return _F.hardtanh(_t(input, "hardtanh_"), min_val, max_val, True)


def hardsigmoid(input, inplace=False):
    """relu6(input + 3) / 6; one op, HardsigmoidBackward0."""
    return _A.activation(_A.HARDSIGMOID, _t(input, "hardsigmoid"), inplace=inplace)


def hardswish(input, inplace=False):
    """input * relu6(input + 3) / 6; one op, HardswishBackward0."""
    return _A.activation(_A.HARDSWISH, _t(input, "hardswish"), inplace=inplace)


def logsigmoid(input):
    """log(sigmoid(input)), computed stably."""
    return _F.log_sigmoid(_t(input, "logsigmoid"))


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * input)) / beta; input itself where beta * input > threshold."""
    return _F.softplus(_t(input, "softplus"), beta, threshold)


def sigmoid(input):
    """1 / (1 + exp(-input))."""
    return _t(input, "sigmoid").sigmoid()


def tanh(input):
    """Hyperbolic tangent."""
    return _t(input, "tanh").tanh()


def prelu(input, weight):
    """input where input > 0, else weight * input (weight per channel, dim 1)."""
    _t(input, "prelu")
    _t(weight, "prelu", "weight")
    w = weight
    if input.ndim != weight.ndim:   # as torch: weight viewed to input's rank, channels at dim 1
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = weight.numel()
        w = weight.reshape(shape)
    # one op, PyTorch's PreluKernelBackward0 (nn/_activation_ops.py)
    return _R.dispatch(_A.PRELU, (input, w), ())


def _softmax_dim(fname, ndim):
    warnings.warn(f"Implicit dimension choice for {fname} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(input) normalised to sum to 1 along dim."""
    _t(input, "softmax")
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    return _F.softmax(input, dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(input)) along dim, computed stably."""
    _t(input, "log_softmax")
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    return _F.log_softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input) along dim: PyTorch's (-input).softmax(dim, dtype=dtype)."""
    _t(input, "softmin")
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    return _F.softmax(-input, dim, dtype)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along dim: PyTorch's input / norm(input, p, dim,
    keepdim=True).clamp_min(eps).expand_as(input); any p (0: the count of nonzeros,
    negative p: (sum |x|^p)^(1/p))."""
    if out is not None:
        raise ArgTypeError("normalize(): out= is not supported by oar")
    _t(input, "normalize")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_A._TORCH_DTYPE_NAMES.get(input.dtype.name)}")
    p = _args.number(p, "normalize", "p", allow_bool=False)
    eps = _args.number(eps, "normalize", "eps", allow_bool=False)
    denom = _FN["norm"](input, p, axis=dim, keepdim=True)
    return input / denom.clip(min=eps).expand_as(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / max(||x1|| * ||x2||, eps) along dim."""
    _t(x1, "cosine_similarity", "x1")
    _t(x2, "cosine_similarity", "x2")
    # torch's composition, node for node: the operands expanded to one shape, each divided
    # by its norm over dim (a clone of linalg.vector_norm, clamped to eps under no_grad, so
    # the clamp has no node), the product summed over dim (SumBackward1 on top)
    if x1._data.dtype.kind != "f" or x2._data.dtype.kind != "f":
        dt = _dtypes.DEFAULT_FLOAT.np   # integer operands: in the default float dtype, as torch
        x1 = x1 if x1._data.dtype.kind == "f" else _FN["cast"](x1, dt)
        x2 = x2 if x2._data.dtype.kind == "f" else _FN["cast"](x2, dt)
    if tuple(x1.shape) != tuple(x2.shape):
        shape = list(_R.broadcast_shapes("cosine_similarity", [x1._data.shape, x2._data.shape]))
        x1 = x1 if list(x1.shape) == shape else x1.expand(shape)
        x2 = x2 if list(x2.shape) == shape else x2.expand(shape)
    n1 = _norms._vector_norm(x1, 2, dim, True, "cosine_similarity").clone()
    n2 = _norms._vector_norm(x2, 2, dim, True, "cosine_similarity").clone()
    with _grad_mode.no_grad():
        n1.clip_(min=eps)
        n2.clip_(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def flatten(input, start_dim=0, end_dim=-1):
    """input with dims start_dim .. end_dim merged."""
    return _t(input, "flatten").flatten(start_dim, end_dim)


# ------------------------------------------------------------------ dropout
def _check_p(p):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(input, p, training, inplace, noise_shape, fname):
    _check_p(p)
    _t(input, fname)
    if not training or p == 0 or input._data.size == 0:
        return input
    if input._data.dtype.kind != "f":
        raise ArgTypeError(f"{fname}(): expected a floating input, got {input.dtype.name}")
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    # torch draws into empty_like(input), which keeps a permuted input's layout, and
    # bernoulli_ fills in memory order: an element-wise mask must take input's layout too
    # (channel dropout's (N, C, 1, ...) noise is a fresh contiguous tensor in torch as well)
    if noise_shape == input._data.shape:
        from .._runtime import empty_like   # the door's: torch's layout rule
        noise = empty_like(input, requires_grad=False)
    else:
        noise = wrap_as(input._result_class, np.empty(noise_shape, input._data.dtype))
    noise.bernoulli_(1 - p)     # PyTorch's draw: the door's generator (Note [Result class])
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, zeroes each element with probability p and scales the rest by
    1 / (1 - p); input itself otherwise."""
    return _dropout(input, p, training, inplace, getattr(input, "_data", np.empty(0)).shape,
                    "dropout")


# Note [Feature dropout dims]
# dropout1d/2d/3d as torch 2.13's functional.py: dropout1d refuses anything but 2-D or 3-D
# input (RuntimeError); dropout2d and dropout3d only warn for other ranks (deprecated, never
# refused) and run. The noise is drawn with shape (N, C, 1, ...) from the first two
# dimensions (ATen's feature_dropout, which needs at least 2), after dropout1d/3d add a
# batch dimension to an unbatched input; dropout2d's 3-D input is taken as (N, C, L), with
# torch's second warning. So a 2-D input to dropout2d is element-wise dropout, as torch's.
def _feature_dropout(input, p, training, inplace, fname, unsqueeze):
    """Channel dropout: noise over input's first two dimensions (after a leading batch
    dimension for an unbatched input when `unsqueeze`), Note [Feature dropout dims]."""
    shape = input._data.shape
    if unsqueeze:
        shape = (1,) + shape
    if len(shape) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    noise = shape[:2] + (1,) * (len(shape) - 2)
    if unsqueeze:
        noise = noise[1:]
    return _dropout(input, p, training, inplace, noise, fname)


def _unbatched_feature_dropout(input, p, training, inplace, fname):
    """dropout1d / dropout3d of an unbatched input as torch's: input.unsqueeze(0), the channel
    dropout, then squeeze(0), so the result is a SqueezeBackward1 view even where nothing is
    dropped (in place: the noise broadcast over the unbatched input, as before)."""
    if inplace:
        return _feature_dropout(input, p, training, True, fname, True)
    return _feature_dropout(input.unsqueeze(0), p, training, False, fname, False).squeeze(0)


def _warn_rank(fname, nd, ranks, spatial):
    import warnings
    warnings.warn(
        f"{fname}: Received a {nd}-D input to {fname}, which is deprecated and will result "
        "in an error in a future release. To retain the behavior and silence this warning, "
        f"please use dropout instead. Note that {fname} exists to provide channel-wise "
        f"dropout on inputs with {spatial} spatial dimensions, a channel dimension, and an "
        f"optional batch dimension (i.e. {ranks[0]}D or {ranks[1]}D inputs).", stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) input with probability p in training."""
    _check_p(p)
    _t(input, "dropout1d")
    nd = input.ndim
    if nd not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    if nd == 2:
        return _unbatched_feature_dropout(input, p, training, inplace, "dropout1d")
    return _feature_dropout(input, p, training, inplace, "dropout1d", False)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) input with probability p in training; other
    ranks warn as torch's (Note [Feature dropout dims])."""
    _check_p(p)
    _t(input, "dropout2d")
    nd = input.ndim
    if nd not in (3, 4):
        _warn_rank("dropout2d", nd, (3, 4), 2)
    if nd == 3:
        import warnings
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _feature_dropout(input, p, training, inplace, "dropout2d", False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability p in
    training; other ranks warn as torch's (Note [Feature dropout dims])."""
    _check_p(p)
    _t(input, "dropout3d")
    nd = input.ndim
    if nd not in (4, 5):
        _warn_rank("dropout3d", nd, (4, 5), 3)
    if nd != 5:
        return _unbatched_feature_dropout(input, p, training, inplace, "dropout3d")
    return _feature_dropout(input, p, training, inplace, "dropout3d", False)


# ------------------------------------------------------------------ conv and pooling
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of (N, C, L) input with weight [out, in / groups, k]."""
    return _F.conv1d(input, weight, bias, stride, padding, dilation, groups, _rule="torch")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of (N, C, H, W) input with weight [out, in / groups, kh, kw]."""
    return _K.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """1-D transposed convolution of (N, C_in, L) input with weight [C_in, C_out / groups, k]."""
    return _K.conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, op="conv_transpose1d", nd=1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """2-D transposed convolution of (N, C_in, H, W) input with weight [C_in, C_out / groups,
    kh, kw] (Note [Transposed conv is conv's adjoint])."""
    return _K.conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, op="conv_transpose2d", nd=2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling of (N, C, H, W) input."""
    return _K.max_pool2d(input, kernel_size, stride, padding, dilation=dilation,
                         ceil_mode=ceil_mode, return_indices=return_indices)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling (padding counted in the divisor unless count_include_pad=False)."""
    return _K.avg_pool2d(input, kernel_size, stride, padding, ceil_mode,
                         count_include_pad=count_include_pad, divisor_override=divisor_override)


def adaptive_avg_pool2d(input, output_size):
    """2-D average pooling to output_size."""
    return _K.adaptive_avg_pool2d(input, output_size)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution of (N, C, D, H, W) input with weight [out, in / groups, kd, kh, kw]."""
    return _K.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """3-D transposed convolution of (N, C_in, D, H, W) input with weight [C_in, C_out /
    groups, kd, kh, kw] (Note [Transposed conv is conv's adjoint])."""
    return _K.conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, op="conv_transpose3d", nd=3)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling of (N, C, D, H, W) input; indices flat in each D*H*W volume."""
    return _K.max_pool3d(input, kernel_size, stride, padding, dilation=dilation,
                         ceil_mode=ceil_mode, return_indices=return_indices)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling (padding counted in the divisor unless count_include_pad=False)."""
    return _K.avg_pool3d(input, kernel_size, stride, padding, ceil_mode,
                         count_include_pad=count_include_pad, divisor_override=divisor_override)


def _one(v, fname, name):
    if isinstance(v, (list, tuple)):
        if len(v) != 1:
            raise ArgValueError(f"{fname}: {name} must be an int or a 1-element tuple, got "
                                f"{list(v)}")
        v = v[0]
    return _args.integer(v, fname, name)


def _pool1d(input, fname):
    _t(input, fname)
    if input.ndim not in (2, 3):
        raise ArgValueError(f"{fname}: Expected 2D or 3D (batch mode) tensor for input, got "
                            f"shape {list(input.shape)}")
    return input.unsqueeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-D max pooling of (N, C, L) input (2-D pooling over a height-1 image); with
    return_indices also the int64 position of each maximum along L."""
    x = _pool1d(input, "max_pool1d")
    k = _one(kernel_size, "max_pool1d", "kernel_size")
    s = k if stride is None or stride == [] else _one(stride, "max_pool1d", "stride")
    out = _K.max_pool2d(x, (1, k), (1, s), (0, _one(padding, "max_pool1d", "padding")),
                        dilation=(1, _one(dilation, "max_pool1d", "dilation")),
                        ceil_mode=ceil_mode, return_indices=return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling of (N, C, L) input."""
    x = _pool1d(input, "avg_pool1d")
    k = _one(kernel_size, "avg_pool1d", "kernel_size")
    s = k if stride is None or stride == [] else _one(stride, "avg_pool1d", "stride")
    out = _K.avg_pool2d(x, (1, k), (1, s), (0, _one(padding, "avg_pool1d", "padding")),
                        ceil_mode, count_include_pad=count_include_pad)
    return out.squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    """1-D average pooling of (N, C, L) input to output_size."""
    x = _pool1d(input, "adaptive_avg_pool1d")
    return _K.adaptive_avg_pool2d(x, (1, _one(output_size, "adaptive_avg_pool1d",
                                              "output_size"))).squeeze(-2)


# ------------------------------------------------------------------ normalisation, embedding
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    """Batch normalisation; in training the running statistics are updated with PyTorch's
    momentum: running = (1 - momentum) * running + momentum * batch."""
    _t(input, "batch_norm")
    if input.numel() == 0:
        # PyTorch (_batch_norm_impl_index) returns an empty input's clone, times weight[0]
        # plus bias[0] when given, before any shape check: a 1-D input and running
        # statistics of any size are accepted, nothing is updated (the Paddle door refuses)
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training=training,
                         epsilon=eps, torch_momentum=momentum)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """input normalised over its trailing normalized_shape dims, then * weight + bias."""
    return _F.layer_norm(_t(input, "layer_norm"), normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Group normalisation over num_groups channel groups."""
    return _F.group_norm(_t(input, "group_norm"), num_groups, eps, weight, bias)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """Each (sample, channel) normalised over its spatial dims."""
    _t(input, "instance_norm")
    if input.ndim < 3 or input._data.dtype.kind != "f":
        return _F.instance_norm(input, running_mean, running_var, weight, bias,
                                use_input_stats, eps=eps, torch_momentum=momentum)
    if use_input_stats and int(np.prod(input.shape[2:])) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{list(input.shape)}")
    # torch's composition, node for node: batch_norm of the input viewed as (1, N * C, ...)
    # with weight, bias and running statistics repeated N times, viewed back (ViewBackward0 <-
    # NativeBatchNormBackward0 <- ViewBackward0 / RepeatBackward0); the running statistics
    # then take the mean of their N updated copies
    b, c = input.shape[0], input.shape[1]

    def rep(t):
        return None if t is None else t.repeat(b)
    rm, rv = rep(running_mean), rep(running_var)
    out = batch_norm(input.reshape([1, b * c] + list(input.shape[2:])), rm, rv, rep(weight),
                     rep(bias), training=use_input_stats, momentum=momentum, eps=eps)
    with _grad_mode.no_grad():
        for run, copies in ((running_mean, rm), (running_var, rv)):
            if run is not None:
                run.copy_(copies.reshape([b, c]).mean(0))
    return out.reshape(list(input.shape))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """The rows of weight at the integer indices input (Note [Embedding op]): padding_idx's
    row is read as it is and gets no gradient; max_norm renormalises the rows read, in
    place on weight; scale_grad_by_freq divides each row's gradient by its count."""
    return _K.torch_embedding(input, weight, padding_idx, max_norm, norm_type,
                              scale_grad_by_freq, sparse)


def one_hot(tensor, num_classes=-1):
    """Integer labels as int64 one-hot vectors (a new last dim of num_classes)."""
    _t(tensor, "one_hot", "tensor")
    if tensor._data.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    out = _F.one_hot(tensor, num_classes)
    return wrap_as(tensor._result_class, out._data.astype(np.int64))


def pad(input, pad, mode="constant", value=None):
    """input padded by (before, after) pairs starting from the last dim."""
    return _K.pad(_t(input, "pad"), pad, mode, value)


# ------------------------------------------------------------------ losses
def _reduced(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _classes_last(input, target, fname, check_only=False):
    """(N, C, d1, ...) input and (N, d1, ...) target as (N * d1 * ..., C) and (M,); (C,)
    input with a 0-d target as one row. Returns (input2d, target1d, target shape); with
    check_only, only the checks run and (None, None, target shape) is returned."""
    _t(input, fname)
    if not isinstance(target, _CoreTensor):
        raise ArgTypeError(f"{fname}(): argument 'target' (position 2) must be Tensor, not "
                           f"{type(target).__name__}")
    nd = input.ndim
    if nd == 1:
        if target.ndim != 0:
            raise ArgValueError(f"{fname}: 1D input (unbatched) expects a 0D target, got "
                                f"shape {list(target.shape)}")
        if check_only:
            return None, None, ()
        return input.unsqueeze(0), target.reshape([1]), ()
    if nd == 2:
        return input, target, tuple(target.shape)
    if nd < 1:
        raise ArgValueError(f"{fname}: input must have at least 1 dimension")
    n, c = input.shape[0], input.shape[1]
    want = (n,) + tuple(input.shape[2:])
    if tuple(target.shape) != want:
        raise ArgValueError(f"{fname}: Expected target size {list(want)}, got "
                            f"{list(target.shape)}")
    if check_only:
        return None, None, want
    return input.movedim(1, -1).reshape([-1, c]), target.reshape([-1]), want


def _unflatten_loss(loss, shape, reduction):
    """A 'none' loss of the flattened rows in the target's shape (no view node when the
    shape is already that: the loss op's node stays the grad_fn, as in PyTorch)."""
    if reduction != "none" or tuple(loss.shape) == tuple(shape):
        return loss
    return loss.reshape(list(shape))


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of log-probabilities input at class indices target."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _nll_nd(input, target, weight, ignore_index, reduction, "nll_loss")


def _nll_nd(input, target, weight, ignore_index, reduction, fname):
    """PyTorch's nll_loss_nd, node for node: (C,) and (N, C) input are one nll_loss op
    (NllLossBackward0), (N, C, H, W) one nll_loss2d op (NllLoss2DBackward0), other ranks a
    view to (N, C, 1, -1) first and, for 'none', a view of the loss to the target's shape;
    no moved or flattened copy of the input (nn/functional.py NLL_LOSS reads that layout)."""
    _x, _y, want = _classes_last(input, target, fname, check_only=True)
    nd = input.ndim
    c = input.shape[0] if nd == 1 else input.shape[1]
    if not (_F._loss_op_ok(input, weight) and (weight is None or not weight.requires_grad)):
        x, y, shape = _classes_last(input, target, fname)   # mixed dtypes, a learnt weight
        return _unflatten_loss(_F.nll_loss(x, y, weight, ignore_index, reduction), shape,
                               reduction)
    x = input
    if nd == 3 or nd > 4:
        rest = 1
        for d in input.shape[2:]:
            rest *= d
        x = input.reshape([input.shape[0], c, 1, rest])
    n_rows = 1 if nd == 1 else len(target._data.reshape(-1))
    lab, _keep = _F._labels(wrap_as(_CoreTensor, target._data.reshape(-1)), n_rows, c,
                            ignore_index, fname)
    _F._class_weight(weight, c, fname)
    op = _F.NLL_LOSS_2D if x.ndim == 4 else _F.NLL_LOSS
    loss = _R.dispatch(op, (x,), (lab, _F._array_or_none(weight), ignore_index, reduction))
    if x is not input and reduction == "none":
        loss = loss.reshape(list(want))
    return loss


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross-entropy of logits input against class indices (or class probabilities of the
    input's shape) target, with weight, ignore_index and label_smoothing."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _t(input, "cross_entropy")
    if not isinstance(target, _CoreTensor):
        raise ArgTypeError(f"cross_entropy(): argument 'target' (position 2) must be Tensor, "
                           f"not {type(target).__name__}")
    if target._data.dtype.kind == "f":          # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise ArgValueError(f"cross_entropy: probability targets must have the input's "
                                f"shape {list(input.shape)}, got {list(target.shape)}")
        cdim = 0 if input.ndim == 1 else 1
        c = input.shape[cdim]
        ls = _args.number(label_smoothing, "cross_entropy", "label_smoothing", allow_bool=False)
        if ls:
            target = target * (1 - ls) + ls / c
        logp = _F.log_softmax(input, cdim)
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape([-1] + [1] * (input.ndim - cdim - 1))
        # torch's composition: -(sum over classes) for 'none', -(sum) for 'sum', and for
        # 'mean' that over numel / C rows by div.Scalar (DivBackward1)
        if reduction == "none":
            return -prod.sum(axis=cdim)
        total = -prod.sum()
        if reduction == "sum":
            return total
        if input.numel() == 0:
            return total * float("nan")
        return _R.dispatch(_F.DIV_SCALAR, (total,), (input.numel() / c,))
    ls = _args.number(label_smoothing, "cross_entropy", "label_smoothing", allow_bool=False)
    if (ls or input.ndim != 2 or weight is not None) and 0.0 <= ls <= 1.0:
        # torch's composition: nll_loss_nd of log_softmax over the classes (the unweighted
        # (N, C) case keeps the core's fused op, node NllLossBackward0 too)
        _classes_last(input, target, "cross_entropy", check_only=True)
        cdim = 0 if input.ndim == 1 else 1
        logp = _F.log_softmax(input, cdim)
        nll = _nll_nd(logp, target, weight, ignore_index, reduction, "cross_entropy")
        if not ls:
            return nll
        return _label_smoothing(nll, logp, target, weight, ignore_index, reduction, ls, cdim)
    x, y, shape = _classes_last(input, target, "cross_entropy")
    loss = _F.cross_entropy(x, y, weight, ignore_index, reduction, axis=1,
                            label_smoothing=label_smoothing)
    return _unflatten_loss(loss, shape, reduction)


def _label_smoothing(nll, logp, target, weight, ignore_index, reduction, ls, cdim):
    """torch's cross_entropy_loss_label_smoothing, node for node: (1 - ls) * nll +
    smooth * (ls / C) by mul.Scalar (MulBackward1), the smoothing term minus the (weighted)
    sum of log-probabilities over the classes, zeroed in place where the target is ignored
    (MaskedFillBackward0), over the kept targets' weight (or count) for 'mean'."""
    ignore = target == ignore_index
    if weight is not None:
        shape = [1] * logp.ndim
        shape[cdim] = weight.shape[0]
        smooth = -(logp * weight.reshape(shape)).sum(cdim)
    else:
        smooth = -logp.sum(cdim)
    smooth.masked_fill_(ignore, 0.0)
    if reduction == "mean":
        kept = ~ignore
        denom = (weight.gather(0, target.masked_select(kept).flatten()).sum()
                 if weight is not None else kept.sum())
        smooth = smooth.sum() / denom
    elif reduction == "sum":
        smooth = smooth.sum()
    c = logp.shape[cdim]
    return (_R.dispatch(_F.MUL_SCALAR, (nll,), (1 - ls,))
            + _R.dispatch(_F.MUL_SCALAR, (smooth,), (ls / c,)))


def _pair_loss(input, target, fname):
    _t(input, fname)
    if not isinstance(target, _CoreTensor):
        raise ArgTypeError(f"{fname}(): argument 'target' (position 2) must be Tensor, not "
                           f"{type(target).__name__}")
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({list(target.shape)}) that is different to the "
                      f"input size ({list(input.shape)}). This will likely lead to incorrect "
                      "results due to broadcasting. Please ensure they have the same size.",
                      stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target) ** 2, reduced."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _pair_loss(input, target, "mse_loss")
    if weight is None:
        return _F.mse_loss(input, target, reduction)
    d = input - target
    return _reduced(d * d * weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input - target|, reduced."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _pair_loss(input, target, "l1_loss")
    if weight is None:
        return _F.l1_loss(input, target, reduction)
    return _reduced((input - target).abs() * weight, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """Binary cross-entropy of probabilities input against target (logs clamped at -100)."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _t(input, "binary_cross_entropy")
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the "
                         "same size.")
    return _F.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """Binary cross-entropy of sigmoid(input) against target, computed stably."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _F.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target)."""
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    _pair_loss(input, target, "smooth_l1_loss")
    return _F._huber(input, target, beta, True, reduction, "smooth_l1_loss")


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d**2 where |d| < delta, else delta * (|d| - 0.5 delta) (d = input - target)."""
    _check_reduction(reduction)
    _pair_loss(input, target, "huber_loss")
    if weight is None:
        return _F._huber(input, target, delta, False, reduction, "huber_loss")
    return _reduced(_F._huber(input, target, delta, False, "none", "huber_loss") * weight,
                    reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence of target from exp(input) (input: log-probabilities); 'batchmean'
    divides the sum by the batch size ('mean' averages over every element, as PyTorch)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    return _F.kl_div(_t(input, "kl_div"), target, reduction, log_target)



def threshold(input, threshold, value, inplace=False):
    """value where input <= threshold, else input (ThresholdBackward0; keeps input's dtype);
    in place on input with inplace=True."""
    x = _t(input, "threshold")
    return _FN["threshold_"](x, threshold, value) if inplace else _FN["threshold"](x, threshold,
                                                                                   value)


def threshold_(input, threshold, value):
    """threshold written into input, in place; returns input."""
    return _FN["threshold_"](_t(input, "threshold_"), threshold, value)


__all__ += ["threshold", "threshold_"]


# attention (oar/torch/nn/_attention.py; Note [Attention masks per door])
from ._attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: E402
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]


# ------------------------------------------------------------------ spatial (oar/nn/_spatial.py)
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """input resampled to size (or by scale_factor) along its spatial dims (Note [Separable
    resampling]); antialias=True is not supported."""
    return _S.torch_interpolate(input, size, scale_factor, mode, align_corners,
                                recompute_scale_factor, antialias)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated spelling of interpolate (PyTorch warns)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: interpolate in mode 'nearest' (PyTorch warns)."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: interpolate in mode 'bilinear' with align_corners=True (PyTorch warns)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r), a new tensor (Note [Pixel shuffle])."""
    return _S.pixel_shuffle(_t(input, "pixel_shuffle"), upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W), a new tensor (Note [Pixel shuffle])."""
    return _S.pixel_unshuffle(_t(input, "pixel_unshuffle"), downscale_factor)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C, H, W) -> (N, C*kh*kw, L): the sliding windows as columns (Note [Unfold and
    fold])."""
    return _S.unfold(_t(input, "unfold"), kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C*kh*kw, L) -> (N, C, H, W): columns summed back into their windows."""
    return _S.fold(_t(input, "fold"), output_size, kernel_size, dilation, padding, stride)


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) read at grid (N, Ho, Wo, 2) (Note [Grid sampling]); align_corners
    None warns and means False, as PyTorch."""
    _t(input, "grid_sample")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return _S.grid_sample(input, grid, mode, padding_mode, align_corners)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine matrices theta for an output of `size`."""
    _t(theta, "affine_grid", "theta")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return _S.affine_grid(theta, size, align_corners)

# losses of the breadth pass (ctc_loss, margin / embedding / likelihood losses)
from ._losses_more import *  # noqa: F401,F403,E402
from . import _losses_more as _losses_more  # noqa: E402
__all__ += _losses_more.__all__


# activations of the breadth pass (celu, selu, glu, shrinks, softsign, tanhshrink, rrelu)
from ._more_functional import *  # noqa: F401,F403,E402
from . import _more_functional as _more_functional  # noqa: E402
__all__ += _more_functional.__all__

# adaptive max pooling (oar/torch/nn/_adaptive_max.py, Note [Adaptive max pooling])
from ._adaptive_max import (adaptive_max_pool1d, adaptive_max_pool2d,  # noqa: F401,E402
                            adaptive_max_pool3d)
__all__ += ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"]

# lp pooling (oar/torch/nn/_lp_pool.py, Note [LP pooling])
from ._lp_pool import lp_pool1d, lp_pool2d, lp_pool3d  # noqa: F401,E402
__all__ += ["lp_pool1d", "lp_pool2d", "lp_pool3d"]
from ._unpool import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: F401,E402
from ._unpool import adaptive_avg_pool3d  # noqa: F401,E402
from ._nn3 import bilinear, pdist  # noqa: F401,E402
__all__ += ["bilinear", "pdist"]
from ._nn3 import rms_norm  # noqa: F401,E402
__all__ += ["rms_norm"]
from ._nn3 import gumbel_softmax  # noqa: F401,E402
__all__ += ["gumbel_softmax"]
