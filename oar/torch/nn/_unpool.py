"""torch.nn.functional.max_unpool1d/2d/3d and nn.MaxUnpool1d/2d/3d over the core max_unpool
(oar/nn/_unpool.py), and adaptive_avg_pool3d / AdaptiveAvgPool3d over oar/nn/_adaptive_avg.py."""
from __future__ import annotations

from ...nn import _unpool
from .modules import Module


def _torch_unpool(nd):
    fname = f"max_unpool{nd}d"

    def fn(input, indices, kernel_size, stride=None, padding=0, output_size=None):
        return _unpool.max_unpool(input, indices, kernel_size, stride, padding, output_size,
                                  nd, fname)
    fn.__name__ = fn.__qualname__ = fname
    fn.__module__ = "oar.torch.nn.functional"
    fn.__doc__ = (f"torch.nn.functional.{fname}: the values of a {nd}-D max pooling put back at "
                  "the positions its indices name, zeros elsewhere.")
    return fn


max_unpool1d, max_unpool2d, max_unpool3d = (_torch_unpool(n) for n in (1, 2, 3))


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        nd, name = self._nd, type(self).__name__
        self.kernel_size = _unpool._tuple(kernel_size, nd, "kernel_size", name)
        self.stride = (self.kernel_size if stride is None
                       else _unpool._tuple(stride, nd, "stride", name))
        self.padding = _unpool._tuple(padding, nd, "padding", name)

    def forward(self, input, indices, output_size=None):
        """input's values at indices' positions in a zero output."""
        return _unpool.max_unpool(input, indices, self.kernel_size, self.stride, self.padding,
                                  output_size, self._nd, f"max_unpool{self._nd}d")

    def extra_repr(self):
        """kernel_size, stride and padding, as torch prints them."""
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}")


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse placement of MaxPool1d(return_indices=True)."""
    _nd = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse placement of MaxPool2d(return_indices=True)."""
    _nd = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse placement of MaxPool3d(return_indices=True)."""
    _nd = 3


# ------------------------------------------------------------------ adaptive average pooling
def adaptive_avg_pool3d(input, output_size):
    """torch.nn.functional.adaptive_avg_pool3d: (N, C, D, H, W) averaged to output_size."""
    from ...nn._adaptive_avg import adaptive_avg_pool3d as core
    return core(input, output_size)


adaptive_avg_pool3d.__module__ = "oar.torch.nn.functional"


class AdaptiveAvgPool3d(Module):
    """3-D average pooling to a fixed output size."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        """input averaged to output_size."""
        return adaptive_avg_pool3d(input, self.output_size)

    def extra_repr(self):
        """output_size, as torch prints it."""
        return f"output_size={self.output_size}"
