"""Paddle's AdaptiveMaxPool1D/2D/3D over oar/nn/_adaptive_max.py (Note [Adaptive max
pooling])."""
from __future__ import annotations

from ._adaptive_max import _paddle
from .layers import Layer


class _AdaptiveMaxPoolND:
    _nd = 2

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self.output_size, self.return_mask = output_size, return_mask

    def forward(self, x):
        """Adaptive max pooling of x to output_size (Note [Adaptive max pooling])."""
        return _paddle(self._nd)(x, self.output_size, self.return_mask)

    def extra_repr(self):
        """output_size, return_mask."""
        return f"output_size={self.output_size}, return_mask={self.return_mask}"


def _layer(nd):
    cls = type(f"AdaptiveMaxPool{nd}D", (_AdaptiveMaxPoolND, Layer),
               {"_nd": nd, "__doc__": f"Adaptive {nd}-D max pooling to output_size (Paddle)."})
    cls.__module__ = "oar.nn"
    return cls


AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D = (_layer(n) for n in (1, 2, 3))
LAYERS = ["AdaptiveMaxPool1D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D"]
