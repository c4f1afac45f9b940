"""paddle.distribution.Distribution: the base class of the Paddle door's distributions, with
Paddle 3.3's argument conversion (numbers, lists and arrays become tensors; float32 unless an
array is float64) and its dtype alignment of `value` arguments."""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

import oar as _p

__all__ = ["Distribution", "ExponentialFamily"]


def _dtype_name(dtype):
    return getattr(dtype, "name", str(dtype))


class Distribution:
    """A distribution with a batch shape and an event shape (tuples, as in Paddle)."""

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = ()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def variance(self):
        raise NotImplementedError

    def sample(self, shape=()):
        raise NotImplementedError

    def rsample(self, shape=()):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def kl_divergence(self, other):
        raise NotImplementedError

    def prob(self, value):
        """exp(log_prob(value))."""
        return self.log_prob(value).exp()

    def log_prob(self, value):
        raise NotImplementedError

    def probs(self, value):
        raise NotImplementedError

    def _extend_shape(self, sample_shape):
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_args(self, *args):
        """Whether the arguments are tensors; a mix of tensors and numbers is refused."""
        is_tensor = is_number = False
        for arg in args:
            if isinstance(arg, _p.Tensor):
                is_tensor = True
            else:
                is_number = True
        if is_tensor and is_number:
            raise ValueError("if one argument is Tensor, all arguments should be Tensor")
        return is_tensor

    def _to_tensor(self, *args):
        """Numbers, lists and arrays as tensors broadcast together: float64 stays float64,
        anything else becomes float32 (with Paddle's warning for non-float types)."""
        arrays, tmp = [], 0.0
        for arg in args:
            if not isinstance(arg, (float, list, tuple, np.ndarray, _p.Tensor)):
                raise TypeError(f"Type of input args must be float, list, tuple, numpy.ndarray "
                                f"or Tensor, but received type {type(arg)}")
            a = np.array(arg.numpy() if isinstance(arg, _p.Tensor) else arg)
            if a.dtype != np.float32 and a.dtype != np.float64:
                warnings.warn("data type of argument only support float32 and float64, your "
                              "argument will be convert to float32.", stacklevel=3)
                a = a.astype("float32")
            tmp = tmp + a
            arrays.append(a)
        dtype = np.asarray(tmp).dtype
        return tuple(_p.to_tensor(np.broadcast_arrays(a, tmp)[0].astype(dtype)) for a in arrays)

    def _check_values_dtype_in_probs(self, param, value):
        """value cast to param's float dtype (with Paddle's warning) when they differ."""
        if param.is_complex():
            return value.astype(param.dtype)
        if value.dtype != param.dtype and _dtype_name(value.dtype) in ("float32", "float64"):
            warnings.warn("dtype of input 'value' needs to be the same as parameters of "
                          "distribution class. dtype of 'value' will be converted.",
                          stacklevel=3)
            return _p.cast(value, param.dtype)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        return _p.log(probs) - _p.log1p(-probs) if is_binary else _p.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        F = _p.nn.functional
        return F.sigmoid(logits) if is_binary else F.softmax(logits, axis=-1)


class ExponentialFamily(Distribution):
    """Distributions of the exponential family."""

    @property
    def _natural_parameters(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural):
        raise NotImplementedError
