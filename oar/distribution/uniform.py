"""paddle.distribution.Uniform: on (low, high) for log_prob/probs (both ends excluded, as in
Paddle)."""
from __future__ import annotations

import numpy as np

import oar as _p
from .distribution import Distribution, _dtype_name

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform(low, high, name=None); Paddle defines no mean, variance, rsample or KL."""

    def __init__(self, low, high, name=None):
        self.all_arg_is_float = False
        self.batch_size_unknown = False
        self.name = name if name is not None else "Uniform"
        self.dtype = "float32"
        if isinstance(low, int):
            low = float(low)
        if isinstance(high, int):
            high = float(high)
        if self._validate_args(low, high):
            self.low, self.high = low, high
            self.dtype = _dtype_name(low.dtype)
        else:
            if isinstance(low, float) and isinstance(high, float):
                self.all_arg_is_float = True
            if isinstance(low, np.ndarray) and str(low.dtype) in ("float32", "float64"):
                self.dtype = str(low.dtype)
            elif isinstance(high, np.ndarray) and str(high.dtype) in ("float32", "float64"):
                self.dtype = str(high.dtype)
            self.low, self.high = self._to_tensor(low, high)
            if self.dtype != _dtype_name(self.low.dtype):
                self.low = _p.cast(self.low, self.dtype)
                self.high = _p.cast(self.high, self.dtype)
        super().__init__(self.low.shape)

    def sample(self, shape=(), seed=0):
        shape = list(shape)
        output_shape = shape + list((self.low + self.high).shape)
        with _p.no_grad():
            u = _p.uniform(output_shape, dtype=self.dtype, min=0.0, max=1.0)
            output = u * (_p.zeros(output_shape, dtype=self.dtype) + (self.high - self.low))
            output = output + self.low
        if self.all_arg_is_float:
            return _p.reshape(output, shape)
        return output

    def _inside(self, value):
        lb = _p.cast(self.low < value, value.dtype)
        ub = _p.cast(value < self.high, value.dtype)
        return lb * ub

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return _p.log(self._inside(value)) - _p.log(self.high - self.low)

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return self._inside(value) / (self.high - self.low)

    def entropy(self):
        return _p.log(self.high - self.low)
