"""AlexNet in Paddle's layout (_conv1.._conv5, _fc6.._fc8)."""
from __future__ import annotations

from ... import nn
from ...nn import functional as F
from ...ops.views import flatten
from ._utils import refuse_pretrained

__all__ = ["AlexNet", "alexnet"]


class ConvPoolLayer(nn.Layer):
    """Conv2D, optional ReLU, then a 3x3 stride-2 max pool."""

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv=None,
                 groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride,
                               padding=padding, groups=groups)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet for 3x224x224 inputs. Its dropouts use Paddle's downscale_in_infer mode, so
    eval-mode outputs are scaled by 1 - p before fc6 and fc7. num_classes <= 0 drops the
    classifier."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, act="relu")
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1)
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, act="relu")
        if num_classes > 0:
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(256 * 6 * 6, 4096)
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096)
            self._fc8 = nn.Linear(4096, num_classes)

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv3(x))
        x = F.relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = flatten(x, 1, -1)
            x = F.relu(self._fc6(self._drop1(x)))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet(**kwargs); pretrained=True is refused (no downloads)."""
    refuse_pretrained("alexnet", pretrained)
    return AlexNet(**kwargs)
