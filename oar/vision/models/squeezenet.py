"""SqueezeNet 1.0 / 1.1 in Paddle's layout (_conv, _conv1.._conv9)."""
from __future__ import annotations

from ... import nn
from ...autograd.errors import ArgValueError
from ...nn import functional as F
from ...ops.general import concat
from ...ops.views import squeeze
from ._utils import refuse_pretrained

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


class MakeFireConv(nn.Layer):
    """Conv2D followed by ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """Fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated on channels."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


# Fire modules (in, squeeze, expand 1x1, expand 3x3); both versions use the same eight.
_FIRES = [(None, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128),
          (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256), (512, 64, 256, 256)]
# After which fire modules (1-based) the shared max pool runs, per version.
_POOL_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}


class SqueezeNet(nn.Layer):
    """SqueezeNet of version "1.0" or "1.1". The classifier is dropout (downscale_in_infer,
    so eval scales by 0.5) and a 1x1 conv to num_classes; with_pool adds relu, the global
    average pool and squeezes the spatial axes."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in _POOL_AFTER:
            raise ArgValueError(f"SqueezeNet: supported versions are {sorted(_POOL_AFTER)} but "
                                f"input version is {version!r}")
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        first_in = self._conv.weight.shape[0]
        for i, (cin, sq, e1, e3) in enumerate(_FIRES, 1):
            setattr(self, f"_conv{i}", MakeFire(cin or first_in, sq, e1, e3))
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        pools = _POOL_AFTER[self.version]
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pools:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet("1.0", **kwargs); pretrained=True is refused (no downloads)."""
    refuse_pretrained("squeezenet1_0", pretrained)
    return SqueezeNet("1.0", **kwargs)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet("1.1", **kwargs); pretrained=True is refused (no downloads)."""
    refuse_pretrained("squeezenet1_1", pretrained)
    return SqueezeNet("1.1", **kwargs)
