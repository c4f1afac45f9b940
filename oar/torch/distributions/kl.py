"""kl_divergence(p, q) with a registry of closed forms keyed by the pair of classes."""
from __future__ import annotations

import math
import warnings
from functools import total_ordering

from ... import torch as _t
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .gamma import Gamma
from .independent import Independent, _sum_rightmost
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict = {}   # (type_p, type_q) -> function, as registered
_KL_MEMOIZE: dict = {}    # (type_p, type_q) -> function, as resolved for a pair of subclasses


def register_kl(type_p, type_q):
    """Decorator registering fn(p, q) as KL(p || q) for instances of type_p and type_q
    (subclasses included; the most specific registration wins)."""
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


@total_ordering
class _Match:
    __slots__ = ["types"]

    def __init__(self, *types):
        self.types = types

    def __eq__(self, other):
        return self.types == other.types

    def __le__(self, other):
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p, type_q):
    matches = [(super_p, super_q) for super_p, super_q in _KL_REGISTRY
               if issubclass(type_p, super_p) and issubclass(type_q, super_q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
                      f"register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning,
                      stacklevel=2)
    return left_fun


def kl_divergence(p, q):
    """KL(p || q), elementwise over the batch shape."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return _t.full_like(tensor, math.inf)


def _softplus(x):
    return _t.nn.functional.softplus(x)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    t1[q.probs == 0] = math.inf
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
    t2[q.probs == 1] = math.inf
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sp = p.concentration1 + p.concentration0
    sq = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sp.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sq.lgamma()
    t3 = (p.concentration1 - q.concentration1) * _t.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * _t.digamma(p.concentration0)
    t5 = (sq - sp) * _t.digamma(sp)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sp = p.concentration.sum(-1)
    sq = q.concentration.sum(-1)
    t1 = sp.lgamma() - sq.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sp.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * _t.log(p.rate / q.rate)
    t2 = _t.lgamma(q.concentration) - _t.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * _t.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event "
                         "shapes cannot be computed")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = (Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch = tuple(_t.broadcast_shapes(Lq.shape[:-2], Lp.shape[:-2]))
    n = p.event_shape[0]
    sol = _t.linalg.solve(Lq.tril().expand(batch + (n, n)), Lp.expand(batch + (n, n)))
    term2 = sol.reshape(batch + (n * n,)).pow(2).sum(-1)   # trace(X X^T)
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    common = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common).log()
    t2 = common.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Normal, Uniform)
@register_kl(Normal, Gamma)
@register_kl(Normal, Beta)
def _kl_normal_infinity(p, q):
    return _infinite_like(p.loc)


# --------------------------------------------------------- pairs of different families
# KL(p || q) = -H(p) - E_p[log q], with E_p of the sufficient statistics of q in closed form.
def _neg_log_normal_expectation(mean, var, q):
    """-E[log N(x; q.loc, q.scale)] for x of the given mean and variance."""
    return ((math.sqrt(2 * math.pi) * q.scale).log()
            + (var + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2)))


def _uniform_mean_log(low, high):
    """E[log x] for x uniform on [low, high] (low >= 0): (h log h - l log l) / (h - l) - 1."""
    return (_t.xlogy(high, high) - _t.xlogy(low, low)) / (high - low) - 1


def _where_inf(mask, result):
    return _t.where(mask, _t.ones_like(result) * math.inf, result)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    c1, c0 = p.concentration1, p.concentration0
    mean_log = _t.digamma(c1) - _t.digamma(c1 + c0)
    return (-p.entropy() - q.concentration * _t.log(q.rate) + _t.lgamma(q.concentration)
            - (q.concentration - 1) * mean_log + q.rate * p.mean)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    return -p.entropy() + _neg_log_normal_expectation(p.mean, p.variance, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _where_inf((q.low > 0) | (q.high < 1), result)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    return -p.entropy() + _neg_log_normal_expectation(p.mean, p.variance, q)


@register_kl(Gamma, Uniform)
@register_kl(Gamma, Beta)
def _kl_gamma_infinity(p, q):
    return _infinite_like(p.concentration)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    a, b = q.concentration1, q.concentration0
    log_beta = _t.lgamma(a) + _t.lgamma(b) - _t.lgamma(a + b)
    mean_log_x = _uniform_mean_log(p.low, p.high)
    mean_log_1mx = _uniform_mean_log(1 - p.high, 1 - p.low)
    result = (-(p.high - p.low).log() + log_beta - (a - 1) * mean_log_x
              - (b - 1) * mean_log_1mx)
    return _where_inf((p.low < 0) | (p.high > 1), result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    k, r = q.concentration, q.rate
    result = (-(p.high - p.low).log() - k * r.log() + _t.lgamma(k)
              - (k - 1) * _uniform_mean_log(p.low, p.high) + r * (p.high + p.low) / 2)
    return _where_inf(p.low < 0, result)
