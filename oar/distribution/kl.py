"""paddle.distribution.kl_divergence and register_kl."""
from __future__ import annotations

import functools
import warnings

from .bernoulli import Bernoulli
from .categorical import Categorical
from .dirichlet import Beta, Dirichlet
from .distribution import Distribution
from .normal import Normal
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_REGISTER_TABLE: dict = {}


def kl_divergence(p, q):
    """KL(p || q) by the most specific registered pair of classes."""
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Decorator registering fn(p, q) as KL(p || q) for those classes (and subclasses)."""
    if not issubclass(cls_p, Distribution) or not issubclass(cls_q, Distribution):
        raise TypeError("cls_p and cls_q must be subclass of Distribution")

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f
    return decorator


@functools.total_ordering
class _Compare:
    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for x, y in zip(self.classes, other.classes):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch(cls_p, cls_q):
    matches = [(sp, sq) for sp, sq in _REGISTER_TABLE
               if issubclass(cls_p, sp) and issubclass(cls_q, sq)]
    if not matches:
        raise NotImplementedError(f"kl_divergence({cls_p.__name__}, {cls_q.__name__}) is not "
                                  "registered (register_kl)")
    left_p, left_q = min(_Compare(*m) for m in matches).classes
    right_p, right_q = min(_Compare(*reversed(m)) for m in matches).classes
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). Please "
                      f"register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning,
                      stacklevel=3)
    return _REGISTER_TABLE[left_p, left_q]


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    return p.kl_divergence(q)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    return (q.alpha.lgamma() + q.beta.lgamma() + (p.alpha + p.beta).lgamma()
            - (p.alpha.lgamma() + p.beta.lgamma() + (q.alpha + q.beta).lgamma())
            + (p.alpha - q.alpha) * p.alpha.digamma() + (p.beta - q.beta) * p.beta.digamma()
            + (q.alpha + q.beta - (p.alpha + p.beta)) * (p.alpha + p.beta).digamma())


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    return (p.concentration.sum(-1).lgamma() - q.concentration.sum(-1).lgamma()
            - (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
            + ((p.concentration - q.concentration)
               * (p.concentration.digamma()
                  - p.concentration.sum(-1).digamma().unsqueeze(-1))).sum(-1))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    return p.kl_divergence(q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    return p.kl_divergence(q)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    return p.kl_divergence(q)   # Paddle's Uniform defines none: NotImplementedError
