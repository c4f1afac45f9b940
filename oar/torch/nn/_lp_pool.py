"""torch.nn.functional.lp_pool1d/2d/3d and LPPool1d/2d/3d: PyTorch's composition of the
average pool (Note [LP pooling])."""
from __future__ import annotations

import math

from . import functional as F
from .modules import Module

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d"]


# Note [LP pooling]
# PyTorch computes lp pooling from its other ops, and so do we, in its order: f =
# avg_pool(x ** p) without padding, then sign(f) * relu(|f|) * prod(kernel), then ** (1/p)
# (the gradient, PowBackward0 at the root, follows from those ops); p = +inf / -inf is the
# max pool of |x| / minus the max pool of -|x|.
def _lp(nd):
    def fn(input, norm_type, kernel_size, stride=None, ceil_mode=False):
        name = f"lp_pool{nd}d"
        ks = list(kernel_size) if isinstance(kernel_size, (list, tuple)) else [kernel_size] * nd
        maxp = getattr(F, f"max_pool{nd}d")
        avgp = getattr(F, f"avg_pool{nd}d")
        if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
            if norm_type > 0:
                return maxp(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
            return -maxp(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if stride is not None:
            out = avgp(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
        else:
            out = avgp(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
        numel = math.prod(ks) if len(ks) == nd else None
        if numel is None:
            raise ValueError(f"{name}(): kernel_size must be an int or {nd} ints, got "
                             f"{kernel_size!r}")
        return (out.sign() * F.relu(out.abs())).mul(numel).pow(1.0 / norm_type)
    fn.__name__ = fn.__qualname__ = f"lp_pool{nd}d"
    fn.__doc__ = (f"{nd}-D power-average pooling: (sum over each window of x ** norm_type) "
                  "** (1 / norm_type) (Note [LP pooling]).")
    return fn


lp_pool1d, lp_pool2d, lp_pool3d = (_lp(n) for n in (1, 2, 3))


class _LPPoolNd(Module):
    _nd = 2

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        """lp_poolNd(input)."""
        return _lp(self._nd)(input, float(self.norm_type), self.kernel_size, self.stride,
                             self.ceil_mode)

    def extra_repr(self):
        """norm_type, kernel_size, stride, ceil_mode."""
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


LPPool1d, LPPool2d, LPPool3d = (
    type(f"LPPool{n}d", (_LPPoolNd,), {"_nd": n, "__doc__": f"{n}-D power-average pooling."})
    for n in (1, 2, 3))
