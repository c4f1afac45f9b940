"""ResNet, ResNeXt and wide ResNet in Paddle's layout (conv1/bn1, layer1..layer4, fc)."""
from __future__ import annotations

from ... import nn
from ...autograd.errors import ArgValueError
from ...ops.views import flatten
from ._utils import refuse_pretrained

__all__ = ["BasicBlock", "BottleneckBlock", "ResNet", "resnet18", "resnet34", "resnet50",
           "resnet101", "resnet152", "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d",
           "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2",
           "wide_resnet101_2"]

_DEPTHS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
           152: [3, 8, 36, 3]}


class BasicBlock(nn.Layer):
    """Two 3x3 conv/bn stages with a residual connection (ResNet-18/34)."""
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        if dilation > 1:
            raise NotImplementedError("BasicBlock: dilation > 1 is not supported")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3 (grouped for ResNeXt), 1x1 expand by 4, with a residual connection."""
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups,
                               dilation=dilation, bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class ResNet(nn.Layer):
    """ResNet of the given depth (18, 34, 50, 101, 152) built from block; width is the base
    width of each bottleneck group and groups the number of groups (ResNeXt). with_pool adds
    the global average pool, num_classes > 0 the final Linear."""

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1):
        super().__init__()
        if depth not in _DEPTHS:
            raise ArgValueError(f"ResNet: depth must be one of {sorted(_DEPTHS)}, got {depth!r}")
        layers = _DEPTHS[depth]
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3,
                               bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            # The shortcut needs a projection when the block changes resolution or width.
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride,
                          bias_attr=False),
                norm_layer(planes * block.expansion))
        stage = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                       previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        stage += [block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                        norm_layer=norm_layer) for _ in range(1, blocks)]
        return nn.Sequential(*stage)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def _resnet(arch, block, depth, pretrained, kwargs, **fixed):
    refuse_pretrained(arch, pretrained)
    kwargs.update(fixed)
    return ResNet(block, depth, **kwargs)


def resnet18(pretrained=False, **kwargs):
    """ResNet-18."""
    return _resnet("resnet18", BasicBlock, 18, pretrained, kwargs)


def resnet34(pretrained=False, **kwargs):
    """ResNet-34."""
    return _resnet("resnet34", BasicBlock, 34, pretrained, kwargs)


def resnet50(pretrained=False, **kwargs):
    """ResNet-50."""
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, kwargs)


def resnet101(pretrained=False, **kwargs):
    """ResNet-101."""
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, kwargs)


def resnet152(pretrained=False, **kwargs):
    """ResNet-152."""
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, kwargs)


def resnext50_32x4d(pretrained=False, **kwargs):
    """ResNeXt-50, 32 groups of width 4."""
    return _resnet("resnext50_32x4d", BottleneckBlock, 50, pretrained, kwargs, groups=32, width=4)


def resnext50_64x4d(pretrained=False, **kwargs):
    """ResNeXt-50, 64 groups of width 4."""
    return _resnet("resnext50_64x4d", BottleneckBlock, 50, pretrained, kwargs, groups=64, width=4)


def resnext101_32x4d(pretrained=False, **kwargs):
    """ResNeXt-101, 32 groups of width 4."""
    return _resnet("resnext101_32x4d", BottleneckBlock, 101, pretrained, kwargs, groups=32,
                   width=4)


def resnext101_64x4d(pretrained=False, **kwargs):
    """ResNeXt-101, 64 groups of width 4."""
    return _resnet("resnext101_64x4d", BottleneckBlock, 101, pretrained, kwargs, groups=64,
                   width=4)


def resnext152_32x4d(pretrained=False, **kwargs):
    """ResNeXt-152, 32 groups of width 4."""
    return _resnet("resnext152_32x4d", BottleneckBlock, 152, pretrained, kwargs, groups=32,
                   width=4)


def resnext152_64x4d(pretrained=False, **kwargs):
    """ResNeXt-152, 64 groups of width 4."""
    return _resnet("resnext152_64x4d", BottleneckBlock, 152, pretrained, kwargs, groups=64,
                   width=4)


def wide_resnet50_2(pretrained=False, **kwargs):
    """Wide ResNet-50-2 (bottlenecks twice as wide)."""
    return _resnet("wide_resnet50_2", BottleneckBlock, 50, pretrained, kwargs, width=128)


def wide_resnet101_2(pretrained=False, **kwargs):
    """Wide ResNet-101-2 (bottlenecks twice as wide)."""
    return _resnet("wide_resnet101_2", BottleneckBlock, 101, pretrained, kwargs, width=128)
