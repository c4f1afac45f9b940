"""ShuffleNetV2 in Paddle's layout (_conv1, 2_1 .. 4_4, _last_conv, _fc)."""
from __future__ import annotations

from ... import nn
from ...autograd.errors import ArgValueError
from ...ops.general import concat
from ...ops.views import flatten, reshape, split, transpose
from ._utils import ConvNormActivation, refuse_pretrained

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5",
           "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
           "shufflenet_v2_swish"]

# scale -> channels after the stem and after each of the three stages, then the last conv
_CHANNELS = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512],
             0.5: [24, 48, 96, 192, 1024], 1.0: [24, 116, 232, 464, 1024],
             1.5: [24, 176, 352, 704, 1024], 2.0: [24, 224, 488, 976, 2048]}
_REPEATS = [4, 8, 4]


class _ScaleError(ArgValueError, NotImplementedError):
    """A ShuffleNetV2 scale without a channel table."""


def create_activation_layer(act):
    """The activation class for "relu", "swish" or None."""
    layers = {"relu": nn.ReLU, "swish": nn.Swish, None: None}
    if act not in layers:
        raise ArgValueError(f"ShuffleNetV2: act must be 'relu', 'swish' or None, got {act!r}")
    return layers[act]


def channel_shuffle(x, groups):
    """Interleave the channels of `groups` equal channel groups."""
    n, c, h, w = x.shape[0:4]
    x = reshape(x, [n, groups, c // groups, h, w])
    return reshape(transpose(x, [0, 2, 1, 3, 4]), [n, c, h, w])


class InvertedResidual(nn.Layer):
    """Stride-1 unit: half the channels pass through, the other half go through
    pointwise / depthwise / pointwise convs; then concat and channel shuffle."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = ConvNormActivation(in_channels // 2, half, 1, 1, 0,
                                           activation_layer=activation_layer)
        self._conv_dw = ConvNormActivation(half, half, 3, stride, 1, groups=half,
                                           activation_layer=None)
        self._conv_linear = ConvNormActivation(half, half, 1, 1, 0,
                                               activation_layer=activation_layer)

    def forward(self, inputs):
        half = inputs.shape[1] // 2
        x1, x2 = split(inputs, [half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """Downsampling unit: two strided branches over the whole input, concat, shuffle."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = ConvNormActivation(in_channels, in_channels, 3, stride, 1,
                                             groups=in_channels, activation_layer=None)
        self._conv_linear_1 = ConvNormActivation(in_channels, half, 1, 1, 0,
                                                 activation_layer=activation_layer)
        self._conv_pw_2 = ConvNormActivation(in_channels, half, 1, 1, 0,
                                             activation_layer=activation_layer)
        self._conv_dw_2 = ConvNormActivation(half, half, 3, stride, 1, groups=half,
                                             activation_layer=None)
        self._conv_linear_2 = ConvNormActivation(half, half, 1, 1, 0,
                                                 activation_layer=activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 with scale in (0.25, 0.33, 0.5, 1.0, 1.5, 2.0) and act "relu" or
    "swish"."""

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        if scale not in _CHANNELS:
            # NotImplementedError as well, the class Paddle raises for an unknown scale
            raise _ScaleError(f"ShuffleNetV2: scale must be one of {sorted(_CHANNELS)}, got "
                                f"{scale!r}")
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        channels = _CHANNELS[scale]
        activation_layer = create_activation_layer(act)
        self._conv1 = ConvNormActivation(3, channels[0], 3, 2, 1,
                                         activation_layer=activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        # Plain list for the forward order; blocks are registered as "<stage>_<index>".
        self._block_list = []
        for stage, repeats in enumerate(_REPEATS):
            cin, cout = channels[stage], channels[stage + 1]
            for i in range(repeats):
                if i == 0:
                    block = InvertedResidualDS(cin, cout, 2, activation_layer=activation_layer)
                else:
                    block = InvertedResidual(cout, cout, 1, activation_layer=activation_layer)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = ConvNormActivation(channels[-2], channels[-1], 1, 1, 0,
                                             activation_layer=activation_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, 1, -1))
        return x


def _shufflenet(arch, scale, pretrained, kwargs, act="relu"):
    refuse_pretrained(arch, pretrained)
    return ShuffleNetV2(scale=scale, act=act, **kwargs)


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    """ShuffleNetV2, scale 0.25."""
    return _shufflenet("shufflenet_v2_x0_25", 0.25, pretrained, kwargs)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    """ShuffleNetV2, scale 0.33."""
    return _shufflenet("shufflenet_v2_x0_33", 0.33, pretrained, kwargs)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    """ShuffleNetV2, scale 0.5."""
    return _shufflenet("shufflenet_v2_x0_5", 0.5, pretrained, kwargs)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    """ShuffleNetV2, scale 1.0."""
    return _shufflenet("shufflenet_v2_x1_0", 1.0, pretrained, kwargs)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    """ShuffleNetV2, scale 1.5."""
    return _shufflenet("shufflenet_v2_x1_5", 1.5, pretrained, kwargs)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    """ShuffleNetV2, scale 2.0."""
    return _shufflenet("shufflenet_v2_x2_0", 2.0, pretrained, kwargs)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    """ShuffleNetV2, scale 1.0, swish activations."""
    return _shufflenet("shufflenet_v2_swish", 1.0, pretrained, kwargs, act="swish")
