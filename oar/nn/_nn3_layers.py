"""Paddle door layers of the third breadth pass over oar/nn/_nn3.py."""
from __future__ import annotations

from . import _checks as _c
from . import _nn3
from . import init
from .layers import Layer, _param


class Bilinear(Layer):
    """Paddle's Bilinear: weight [out_features, in1_features, in2_features] (Xavier uniform),
    bias [1, out_features] (zeros); y = x1^T W_k x2 + b_k."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        self._in1_features = _c.count(in1_features, "Bilinear", "in1_features")
        self._in2_features = _c.count(in2_features, "Bilinear", "in2_features")
        self._out_features = _c.count(out_features, "Bilinear", "out_features")
        self._name = name
        self.weight = _param([self._out_features, self._in1_features, self._in2_features])
        init.xavier_uniform_(self.weight)
        if bias_attr is False:
            self.bias = None
            self._parameters["bias"] = None
        else:
            self.bias = _param([1, self._out_features])

    def forward(self, x1, x2):
        """F.bilinear(x1, x2, weight, bias)."""
        return _nn3.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        """Paddle's: the feature counts and the dtype (and the name when given)."""
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self.weight.dtype.name}"
                + (f", name={self._name}" if self._name else ""))
