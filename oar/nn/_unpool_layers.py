"""Paddle's MaxUnPool1D/2D/3D (oar/nn/_unpool.py) and AdaptiveAvgPool1D/3D
(oar/nn/_adaptive_avg.py) layers."""
from __future__ import annotations

from . import _adaptive_avg, _unpool
from .layers import Layer


class _MaxUnPool(Layer):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None,
                 output_size=None, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format = data_format or _unpool._FORMATS[self._nd][0]
        self.output_size = output_size

    def forward(self, x, indices, output_size=None):
        """x's values at indices' positions in a zero output (output_size: the layer's when
        None)."""
        fn = getattr(_unpool, f"max_unpool{self._nd}d")
        return fn(x, indices, self.ksize, self.stride, self.padding, self.data_format,
                  output_size if output_size is not None else self.output_size)

    def extra_repr(self):
        """output_size, as Paddle prints."""
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPool):
    """1-D max unpooling (NCL): the inverse placement of max_pool1d(return_mask=True)."""
    _nd = 1


class MaxUnPool2D(_MaxUnPool):
    """2-D max unpooling (NCHW): the inverse placement of max_pool2d(return_mask=True)."""
    _nd = 2


class MaxUnPool3D(_MaxUnPool):
    """3-D max unpooling (NCDHW): the inverse placement of max_pool3d(return_mask=True)."""
    _nd = 3


class _AdaptiveAvg(Layer):
    def __init__(self, output_size, data_format=None, name=None):
        super().__init__()
        self.output_size = output_size
        self.data_format = data_format

    def extra_repr(self):
        """output_size, as Paddle prints."""
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1D(_AdaptiveAvg):
    """1-D average pooling of (N, C, L) input to a fixed output size."""

    def forward(self, x):
        """x averaged to output_size."""
        return _adaptive_avg.paddle_adaptive_avg_pool1d(x, self.output_size)


class AdaptiveAvgPool3D(_AdaptiveAvg):
    """3-D average pooling of NCDHW (or NDHWC) input to a fixed output size."""

    def forward(self, x):
        """x averaged to output_size."""
        return _adaptive_avg.paddle_adaptive_avg_pool3d(x, self.output_size,
                                                        self.data_format or "NCDHW")
