"""paddle.distribution.Bernoulli(probs): probs clipped to [eps, 1 - eps] of its dtype."""
from __future__ import annotations

import numpy as np

import oar as _p
from .distribution import ExponentialFamily, _dtype_name


def _bshape(a, b):
    return list(np.broadcast_shapes(tuple(a), tuple(b)))


__all__ = ["Bernoulli"]


def _clip_probs(probs, dtype):
    eps = float(_p.finfo(dtype).eps)
    return _p.clip(probs, min=eps, max=1 - eps).astype(dtype)


class Bernoulli(ExponentialFamily):
    """Bernoulli(probs, name=None); a number gives the default dtype."""

    def __init__(self, probs, name=None):
        self.name = name or "Bernoulli"
        if self._validate_args(probs):
            self.probs = probs
            self.dtype = _dtype_name(probs.dtype)
        else:
            [self.probs] = self._to_tensor(probs)
            self.dtype = _p.get_default_dtype()
        self.probs = _clip_probs(self.probs, self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=self.probs.shape, event_shape=())

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return _p.multiply(self.probs, 1 - self.probs)

    def sample(self, shape=()):
        shape = self._extend_shape(tuple(shape))
        with _p.no_grad():
            return _p.bernoulli(self.probs.expand(shape))

    def rsample(self, shape=(), temperature=1.0):
        """Paddle's relaxed draw: (logit(u) + logit(probs)) / temperature, u uniform."""
        shape = self._extend_shape(tuple(shape))
        temperature = _p.full(shape=[], fill_value=temperature, dtype=self.dtype)
        probs = self.probs.expand(shape)
        u = _p.rand(list(shape), dtype=self.dtype)
        return ((u.log() - (-u).log1p()) + (probs.log() - (-probs).log1p())) / temperature

    def cdf(self, value):
        value = self._check_values_dtype_in_probs(self.probs, value)
        shape = _bshape(self.probs.shape, value.shape)
        probs, value = self.probs.expand(shape), value.expand(shape)
        zeros, ones = _p.zeros_like(probs), _p.ones_like(probs)
        return _p.where(value < 0, zeros, _p.where(value < 1, ones - probs, ones))

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.probs, value)
        shape = _bshape(self.logits.shape, value.shape)
        return -_p.nn.functional.binary_cross_entropy_with_logits(
            self.logits.expand(shape), value.expand(shape), reduction="none")

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return _p.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                  reduction="none")

    def kl_divergence(self, other):
        F = _p.nn.functional
        a, b = self.logits, other.logits
        log_pa, log_pb = -F.softplus(-a), -F.softplus(-b)
        pa, one_minus_pa = F.sigmoid(a), F.sigmoid(-a)
        log_1pa, log_1pb = -F.softplus(a), -F.softplus(b)
        return (log_pa * pa - log_pb * pa) + (log_1pa * one_minus_pa - log_1pb * one_minus_pa)
