"""VGG 11/13/16/19 (optionally with batch norm) in Paddle's layout."""
from __future__ import annotations

from ... import nn
from ...ops.views import flatten
from ._utils import refuse_pretrained

__all__ = ["VGG", "make_layers", "vgg11", "vgg13", "vgg16", "vgg19"]

# Conv widths per stage; "M" is a 2x2 max pool.
_CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
          512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
          512, 512, 512, 512, "M"],
}


class VGG(nn.Layer):
    """features (a Sequential), then a 7x7 adaptive average pool (with_pool) and the
    three-linear classifier (num_classes > 0)."""

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def make_layers(cfg, batch_norm=False):
    """The conv stack for one config list: 3x3 convs (+ BatchNorm2D) + ReLU, "M" max pools."""
    layers, in_channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


def _vgg(arch, cfg, batch_norm, pretrained, kwargs):
    refuse_pretrained(arch + ("_bn" if batch_norm else ""), pretrained)
    return VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    """VGG-11 (config A)."""
    return _vgg("vgg11", "A", batch_norm, pretrained, kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    """VGG-13 (config B)."""
    return _vgg("vgg13", "B", batch_norm, pretrained, kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    """VGG-16 (config D)."""
    return _vgg("vgg16", "D", batch_norm, pretrained, kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    """VGG-19 (config E)."""
    return _vgg("vgg19", "E", batch_norm, pretrained, kwargs)
