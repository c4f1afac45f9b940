"""MobileNetV1 in Paddle's layout (conv1, conv2_1 .. conv6, fc)."""
from __future__ import annotations

from ... import nn
from ...ops.views import flatten
from ._utils import ConvNormActivation, refuse_pretrained

__all__ = ["MobileNetV1", "mobilenet_v1"]

# (name, in_channels, depthwise channels, pointwise channels, stride), unscaled.
_BLOCKS = ([("conv2_1", 32, 32, 64, 1), ("conv2_2", 64, 64, 128, 2),
            ("conv3_1", 128, 128, 128, 1), ("conv3_2", 128, 128, 256, 2),
            ("conv4_1", 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 2)]
           + [(f"conv5_{i}", 512, 512, 512, 1) for i in range(1, 6)]
           + [("conv5_6", 512, 512, 1024, 2), ("conv6", 1024, 1024, 1024, 1)])


class DepthwiseSeparable(nn.Layer):
    """A depthwise 3x3 conv/bn/relu followed by a pointwise 1x1 conv/bn/relu."""

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(
            in_channels, int(out_channels1 * scale), kernel_size=3, stride=stride, padding=1,
            groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(
            int(out_channels1 * scale), int(out_channels2 * scale), kernel_size=1, stride=1,
            padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


class MobileNetV1(nn.Layer):
    """MobileNetV1 with width multiplier scale; with_pool adds the global average pool and
    num_classes > 0 the final Linear."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2, padding=1)
        # Plain list for the forward order; the blocks are registered under Paddle's names.
        self.dwsl = []
        for name, cin, c1, c2, stride in _BLOCKS:
            block = DepthwiseSeparable(int(cin * scale), c1, c2, c1, stride, scale)
            self.dwsl.append(self.add_sublayer(name, block))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV1(scale=scale, **kwargs); pretrained=True is refused (no downloads)."""
    refuse_pretrained(f"mobilenetv1_{scale}", pretrained)
    return MobileNetV1(scale=scale, **kwargs)
