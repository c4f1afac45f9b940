"""paddle.distribution.Categorical.

Paddle reads `logits` two ways, and so do we: sample, entropy and kl_divergence use
softmax(logits), while probs/log_prob use logits / logits.sum(-1) (non-negative weights)."""
from __future__ import annotations

import numpy as np

import oar as _p
from .distribution import Distribution, _dtype_name

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Categorical(logits, name=None) over the last dim of logits."""

    def __init__(self, logits, name=None):
        self.name = name if name is not None else "Categorical"
        self.dtype = "float32"
        if self._validate_args(logits):
            self.logits = logits
            self.dtype = _dtype_name(logits.dtype)
        else:
            if isinstance(logits, np.ndarray) and str(logits.dtype) in ("float32", "float64"):
                self.dtype = str(logits.dtype)
            self.logits = self._to_tensor(logits)[0]
            if self.dtype != _dtype_name(self.logits.dtype):
                self.logits = _p.cast(self.logits, self.dtype)
        self._prob = self.logits / _p.sum(self.logits, axis=-1, keepdim=True)
        # Paddle never sets the shapes here (batch_shape raises AttributeError there); we give
        # the meaningful ones
        super().__init__(tuple(self.logits.shape[:-1]))

    def sample(self, shape=()):
        """Indices of shape `shape + logits.shape[:-1]`, drawn from softmax(logits)."""
        shape = list(shape)
        num_samples = int(np.prod(np.array(shape)))
        logits_shape = list(self.logits.shape)
        if len(logits_shape) > 1:
            sample_shape = shape + logits_shape[:-1]
            logits = _p.reshape(self.logits, [int(np.prod(logits_shape[:-1])), logits_shape[-1]])
        else:
            sample_shape = shape
            logits = self.logits
        with _p.no_grad():
            idx = _p.multinomial(self._logits_to_probs(logits), num_samples, True)
        perm = list(range(idx.dim()))
        perm.insert(0, perm.pop(-1))
        return _p.reshape(idx.transpose(perm), sample_shape)

    def _normalised(self, logits):
        logits = logits - _p.max(logits, axis=-1, keepdim=True)
        e = _p.exp(logits)
        z = _p.sum(e, axis=-1, keepdim=True)
        return logits, e / z, z

    def kl_divergence(self, other):
        logits, prob, z = self._normalised(self.logits)
        other_logits, _, other_z = self._normalised(other.logits)
        return _p.sum(prob * (logits - _p.log(z) - other_logits + _p.log(other_z)), axis=-1,
                      keepdim=True)

    def entropy(self):
        logits, prob, z = self._normalised(self.logits)
        return -_p.sum(prob * (logits - _p.log(z)), axis=-1)

    def probs(self, value):
        if len(self._prob.shape) == 1:
            return _p.gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if len(value.shape) == 1:
            return _p.take_along_axis(
                self._prob, _p.reshape(value, (len(self._prob.shape) - 1) * [1] + [-1]), axis=-1)
        return _p.take_along_axis(self._prob, value, axis=-1)

    def log_prob(self, value):
        return _p.log(self.probs(value))
