"""Pieces shared by the model zoo (paddle.vision.models for the Paddle door)."""
from __future__ import annotations

from ... import nn
from ...autograd.errors import ArgValueError


class PretrainedWeightsError(ArgValueError, NotImplementedError):
    """pretrained=True asked for weights that oar would have to download."""


def refuse_pretrained(arch, pretrained):
    """Raise when pretrained weights are requested: oar never downloads anything. The message
    says how to load a local copy instead."""
    if pretrained:
        raise PretrainedWeightsError(
            f"{arch}: pretrained=True would download weights, and oar does not download; build "
            f"the model with pretrained=False and load a local state dict: "
            f"model.set_state_dict(paddle.load('/path/to/{arch}.pdparams'))")


def make_divisible(v, divisor=8, min_value=None):
    """Channel count v rounded to the nearest multiple of divisor, never below min_value and
    never more than 10% under v (the MobileNet channel rule)."""
    if min_value is None:
        min_value = divisor
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


class ConvNormActivation(nn.Sequential):
    """Conv2D, then an optional norm layer, then an optional activation, as one Sequential
    (sublayers "0", "1", "2", the names Paddle's state dicts use). padding None means "same"
    for odd kernels: (kernel_size - 1) // 2 * dilation; the conv has a bias only when there is
    no norm layer, unless bias says otherwise."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        parts = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                           dilation=dilation, groups=groups, bias_attr=None if bias else False)]
        if norm_layer is not None:
            parts.append(norm_layer(out_channels))
        if activation_layer is not None:
            parts.append(activation_layer())
        super().__init__(*parts)
