"""paddle.distribution.Normal (real parameters)."""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

import oar as _p
from .distribution import Distribution, _dtype_name

__all__ = ["Normal"]


class Normal(Distribution):
    """Normal(loc, scale, name=None): numbers and lists give float32 parameters, float64
    arrays float64; tensors are used as given (no broadcasting; batch_shape is loc's)."""

    def __init__(self, loc, scale, name=None):
        self.all_arg_is_float = False
        self.name = name if name is not None else "Normal"
        self.dtype = "float32"
        self._complex_gaussian = False
        if isinstance(loc, int):
            loc = float(loc)
        if isinstance(scale, int):
            scale = float(scale)
        if isinstance(loc, (tuple, list)):
            loc = np.array(loc)
            if loc.dtype == np.float64:
                loc = loc.astype("float32")
        if isinstance(scale, (tuple, list)):
            scale = np.array(scale, dtype=np.float32)
        if isinstance(loc, complex) or (isinstance(loc, np.ndarray) and loc.dtype.kind == "c") \
                or (self._validate_args(loc) and loc.is_complex()):
            raise NotImplementedError("oar: Normal with a complex loc (Paddle's complex "
                                      "gaussian) is not supported yet")
        if self._validate_args(loc, scale):
            self.loc, self.scale = loc, scale
            self.dtype = _dtype_name(loc.dtype)
        else:
            if isinstance(loc, float) and isinstance(scale, float):
                self.all_arg_is_float = True
            if isinstance(loc, np.ndarray) and str(loc.dtype) in ("float32", "float64"):
                self.dtype = str(loc.dtype)
            elif isinstance(scale, np.ndarray) and str(scale.dtype) in ("float32", "float64"):
                self.dtype = str(scale.dtype)
            self.loc, self.scale = self._to_tensor(loc, scale)
            if self.dtype != _dtype_name(self.loc.dtype):
                self.loc = _p.cast(self.loc, self.dtype)
                self.scale = _p.cast(self.scale, self.dtype)
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale.pow(2)

    def sample(self, shape=(), seed=0):
        """Draws of shape `shape + batch_shape` (no gradient: Paddle's gaussian op)."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        shape = list(shape)
        output_shape = shape + list((self.loc + self.scale).shape)
        with _p.no_grad():
            eps = _p.normal(0.0, 1.0, output_shape).astype(self.dtype)
            output = eps * (_p.zeros(output_shape, dtype=self.dtype) + self.scale) + self.loc
        if self.all_arg_is_float:
            return _p.reshape(output, shape)
        return output

    def rsample(self, shape=()):
        """loc + eps * scale, differentiable in loc and scale."""
        if not isinstance(shape, Iterable):
            raise TypeError("sample shape must be Iterable object.")
        shape = self._extend_shape(tuple(shape))
        eps = _p.normal(mean=0.0, shape=list(shape))
        return self.loc + eps * self.scale

    def entropy(self):
        zero = _p.full(list((self.loc + self.scale).shape), 0.0, self.dtype)
        return 0.5 + zero + (0.5 * math.log(2 * math.pi) + _p.log(self.scale + zero))

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        return (-1.0 * ((value - self.loc) * (value - self.loc)) / (2.0 * var)
                - (_p.log(self.scale) + math.log(math.sqrt(2.0 * math.pi))))

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        return (_p.exp(-1.0 * ((value - self.loc) * (value - self.loc)) / (2.0 * var))
                / (math.sqrt(2 * math.pi) * self.scale))

    def kl_divergence(self, other):
        var_ratio = self.scale / other.scale
        var_ratio = var_ratio * var_ratio
        t1 = (self.loc - other.loc) / other.scale
        t1 = t1 * t1
        return 0.5 * var_ratio + 0.5 * (t1 - 1.0 - _p.log(var_ratio))
