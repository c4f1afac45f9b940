"""GoogLeNet in Paddle's layout (_conv, _ince3a .. _ince5b, _fc_out and the two auxiliary
heads). Like Paddle's, its convolutions have no activation of their own: each inception
module applies relu once to its concatenated output."""
from __future__ import annotations

from ... import nn
from ...nn import functional as F
from ...ops.general import concat
from ...ops.views import flatten, squeeze
from ._utils import refuse_pretrained

__all__ = ["GoogLeNet", "googlenet"]


class ConvLayer(nn.Layer):
    """A bias-free "same"-padded conv."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=(filter_size - 1) // 2, groups=groups, bias_attr=False)

    def forward(self, inputs):
        return self._conv(inputs)


class Inception(nn.Layer):
    """1x1, 1x1->3x3, 1x1->5x5 and maxpool->1x1 branches, concatenated, then relu."""

    def __init__(self, input_channels, output_channels, filter1, filter3R, filter3, filter5R,
                 filter5, proj):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, inputs):
        branches = [self._conv1(inputs), self._conv3(self._conv3r(inputs)),
                    self._conv5(self._conv5r(inputs)), self._convprj(self._pool(inputs))]
        return F.relu(concat(branches, axis=1))


# (in, out, 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection)
_INCEPTIONS = {
    "_ince3a": (192, 192, 64, 96, 128, 16, 32, 32),
    "_ince3b": (256, 256, 128, 128, 192, 32, 96, 64),
    "_ince4a": (480, 480, 192, 96, 208, 16, 48, 64),
    "_ince4b": (512, 512, 160, 112, 224, 24, 64, 64),
    "_ince4c": (512, 512, 128, 128, 256, 24, 64, 64),
    "_ince4d": (512, 512, 112, 144, 288, 32, 64, 64),
    "_ince4e": (528, 528, 256, 160, 320, 32, 128, 128),
    "_ince5a": (832, 832, 256, 160, 320, 32, 128, 128),
    "_ince5b": (832, 832, 384, 192, 384, 48, 128, 128),
}


class GoogLeNet(nn.Layer):
    """GoogLeNet; forward returns (main output, auxiliary output 1, auxiliary output 2). With
    num_classes > 0 the heads expect 3x224x224 inputs (the auxiliary heads flatten a 3x3 map);
    dropouts use downscale_in_infer."""

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        for name, args in _INCEPTIONS.items():
            setattr(self, name, Inception(*args))
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes)
            self._conv_o1 = ConvLayer(512, 128, 1)
            self._fc_o1 = nn.Linear(1152, 1024)
            self._drop_o1 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out1 = nn.Linear(1024, num_classes)
            self._conv_o2 = ConvLayer(528, 128, 1)
            self._fc_o2 = nn.Linear(1152, 1024)
            self._drop_o2 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out2 = nn.Linear(1024, num_classes)

    def forward(self, inputs):
        x = self._pool(self._conv(inputs))
        x = self._pool(self._conv_2(self._conv_1(x)))
        x = self._pool(self._ince3b(self._ince3a(x)))
        aux1 = self._ince4a(x)
        aux2 = self._ince4d(self._ince4c(self._ince4b(aux1)))
        out = self._ince5b(self._ince5a(self._pool(self._ince4e(aux2))))
        if self.with_pool:
            out, aux1, aux2 = self._pool_5(out), self._pool_o1(aux1), self._pool_o2(aux2)
        if self.num_classes > 0:
            out = self._fc_out(squeeze(self._drop(out), axis=[2, 3]))
            aux1 = F.relu(self._fc_o1(flatten(self._conv_o1(aux1), 1, -1)))
            aux1 = self._out1(self._drop_o1(aux1))
            # Paddle's second auxiliary head has no relu after its first Linear.
            aux2 = self._fc_o2(flatten(self._conv_o2(aux2), 1, -1))
            aux2 = self._out2(self._drop_o2(aux2))
        return out, aux1, aux2


def googlenet(pretrained=False, **kwargs):
    """GoogLeNet(**kwargs); pretrained=True is refused (no downloads)."""
    refuse_pretrained("googlenet", pretrained)
    return GoogLeNet(**kwargs)
