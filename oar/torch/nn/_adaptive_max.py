"""torch.nn.functional.adaptive_max_pool1d/2d/3d and AdaptiveMaxPool1d/2d/3d over the core of
oar/nn/_adaptive_max.py (Note [Adaptive max pooling])."""
from __future__ import annotations

from ...nn import _adaptive_max as _A
from .modules import Module

__all__ = ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"]
LAYERS = ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"]


def _fn(nd):
    def fn(input, output_size, return_indices=False):
        vals, ind = _A.adaptive_max_pool(input, output_size, nd, f"adaptive_max_pool{nd}d",
                                         True)
        return (vals, ind) if return_indices else vals
    fn.__name__ = fn.__qualname__ = f"adaptive_max_pool{nd}d"
    fn.__doc__ = (f"Adaptive max pooling of input's {nd} trailing dims to output_size; with "
                  "return_indices also the int64 flat position of each maximum in its plane.")
    return fn


adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d = (_fn(n) for n in (1, 2, 3))


class _AdaptiveMaxPoolNd(Module):
    _nd = 2

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        """adaptive_max_poolNd(input)."""
        return _fn(self._nd)(input, self.output_size, self.return_indices)

    def extra_repr(self):
        """output_size."""
        return f"output_size={self.output_size}"


AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (
    type(f"AdaptiveMaxPool{n}d", (_AdaptiveMaxPoolNd,),
         {"_nd": n, "__doc__": f"Adaptive {n}-D max pooling to output_size."})
    for n in (1, 2, 3))
