"""paddle.distribution.Dirichlet(concentration) and Beta(alpha, beta)."""
from __future__ import annotations

import math
import numbers

import numpy as np

import oar as _p
from .distribution import ExponentialFamily


def _bshape(a, b):
    return list(np.broadcast_shapes(tuple(a), tuple(b)))


__all__ = ["Beta", "Dirichlet"]


def _dirichlet_draw(concentration):
    """Dirichlet draws (no gradient, as Paddle's dirichlet op): gamma draws from oar's
    generator, normalised over the last dim."""
    from ..ops.random import source
    a = concentration.numpy().astype(np.float64)
    g = source(None).rng.standard_gamma(a)
    r = (g / g.sum(-1, keepdims=True)).astype(concentration.numpy().dtype)
    return _p.to_tensor(r)


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration) over the last dim (a tensor of at least one dim)."""

    def __init__(self, concentration):
        if concentration.dim() < 1 or math.prod(concentration.shape) == 0:
            raise ValueError("`concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:])

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        c0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def sample(self, shape=()):
        return _dirichlet_draw(self.concentration.expand(self._extend_shape(tuple(shape))))

    def prob(self, value):
        return _p.exp(self.log_prob(value))

    def log_prob(self, value):
        return ((_p.log(value) * (self.concentration - 1.0)).sum(-1)
                + _p.lgamma(self.concentration.sum(-1)) - _p.lgamma(self.concentration).sum(-1))

    def entropy(self):
        c0 = self.concentration.sum(-1)
        k = self.concentration.shape[-1]
        return (_p.lgamma(self.concentration).sum(-1) - _p.lgamma(c0)
                - (k - c0) * _p.digamma(c0)
                - ((self.concentration - 1.0) * _p.digamma(self.concentration)).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - _p.lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    """Beta(alpha, beta): numbers become 0-d tensors of the default dtype."""

    def __init__(self, alpha, beta):
        if isinstance(alpha, numbers.Real):
            alpha = _p.full(shape=[], fill_value=alpha)
        if isinstance(beta, numbers.Real):
            beta = _p.full(shape=[], fill_value=beta)
        shape = _bshape(alpha.shape, beta.shape)
        self.alpha, self.beta = alpha.expand(shape), beta.expand(shape)
        self._dirichlet = Dirichlet(_p.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        s = self.alpha + self.beta
        return self.alpha * self.beta / (s.pow(2) * (s + 1))

    def prob(self, value):
        return _p.exp(self.log_prob(value))

    def log_prob(self, value):
        return self._dirichlet.log_prob(_p.stack([value, 1.0 - value], -1))

    def sample(self, shape=()):
        return _p.squeeze(self._dirichlet.sample(tuple(shape))[..., 0], axis=-1)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return _p.lgamma(x) + _p.lgamma(y) - _p.lgamma(x + y)
