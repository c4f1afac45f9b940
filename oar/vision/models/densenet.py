"""DenseNet 121/161/169/201/264 in Paddle's layout (conv1_func, db_conv_*, tr_conv*_blk,
batch_norm, out)."""
from __future__ import annotations

from ... import nn
from ...autograd.errors import ArgValueError
from ...nn import functional as F
from ...ops.general import concat
from ...ops.views import flatten
from ._utils import refuse_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201",
           "densenet264"]

# layers -> (initial features, growth rate, dense layers per block)
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
          169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32]),
          264: (64, 32, [6, 12, 64, 48])}


class _BatchNormReLU(nn.BatchNorm2D):
    """Paddle's DenseNet uses the legacy nn.BatchNorm(act="relu"); its parameters and buffers
    are those of BatchNorm2D (weight, bias, _mean, _variance), so this is BatchNorm2D followed
    by relu."""

    def forward(self, x):
        return F.relu(super().forward(x))


class BNACConvLayer(nn.Layer):
    """Batch norm + relu, then a bias-free conv."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._batch_norm = _BatchNormReLU(num_channels)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    """1x1 bottleneck and 3x3 conv (both pre-activated); the result is concatenated to the
    input on channels."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        y = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            y = self.dropout_func(y)
        return concat([input, y], axis=1)


class DenseBlock(nn.Layer):
    """num_layers dense layers, registered as {name}_1, {name}_2, ..."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        channels = num_channels
        for i in range(num_layers):
            layer = DenseLayer(channels, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))
            channels += growth_rate

    def forward(self, input):
        for layer in self.dense_layer_func:
            input = layer(input)
        return input


class TransitionLayer(nn.Layer):
    """Pre-activated 1x1 conv, then a 2x2 average pool."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """Bias-free conv, then batch norm + relu."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)
        self._batch_norm = _BatchNormReLU(num_filters)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseNet(nn.Layer):
    """DenseNet with `layers` of 121, 161, 169, 201 or 264; bn_size is the bottleneck width
    factor, dropout the rate inside each dense layer (downscale_in_infer)."""

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        if layers not in _SPECS:
            raise ArgValueError(f"DenseNet: supported layers are {sorted(_SPECS)} but input "
                                f"layer is {layers!r}")
        self.num_classes = num_classes
        self.with_pool = with_pool
        num_init_features, growth_rate, block_config = _SPECS[layers]
        self.conv1_func = ConvBNLayer(3, num_init_features, 7, stride=2, pad=3)
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list = []
        self.transition_func_list = []
        features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(features, num_layers, bn_size, growth_rate, dropout,
                               name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            features += num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = TransitionLayer(features, features // 2)
                self.transition_func_list.append(self.add_sublayer(f"tr_conv{i + 2}_blk", trans))
                features //= 2
        self.batch_norm = _BatchNormReLU(features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.out = nn.Linear(features, num_classes)

    def forward(self, input):
        y = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            y = block(y)
            if i < len(self.transition_func_list):
                y = self.transition_func_list[i](y)
        y = self.batch_norm(y)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = self.out(flatten(y, 1, -1))
        return y


def _densenet(arch, layers, pretrained, kwargs):
    refuse_pretrained(arch, pretrained)
    return DenseNet(layers=layers, **kwargs)


def densenet121(pretrained=False, **kwargs):
    """DenseNet-121."""
    return _densenet("densenet121", 121, pretrained, kwargs)


def densenet161(pretrained=False, **kwargs):
    """DenseNet-161."""
    return _densenet("densenet161", 161, pretrained, kwargs)


def densenet169(pretrained=False, **kwargs):
    """DenseNet-169."""
    return _densenet("densenet169", 169, pretrained, kwargs)


def densenet201(pretrained=False, **kwargs):
    """DenseNet-201."""
    return _densenet("densenet201", 201, pretrained, kwargs)


def densenet264(pretrained=False, **kwargs):
    """DenseNet-264."""
    return _densenet("densenet264", 264, pretrained, kwargs)
