"""Helpers shared by the distributions (torch.distributions.utils)."""
from __future__ import annotations

import numbers

from ... import torch as _t

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
           "euler_constant"]

euler_constant = 0.57721566490153286060


def broadcast_all(*values):
    """Broadcasts tensors and numbers to one shape; numbers become tensors of the default
    dtype (or of the first tensor's dtype), as torch does."""
    if not all(isinstance(v, (_t.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, _t.Tensor) for v in values):
        dtype = _t.get_default_dtype()
        for v in values:
            if isinstance(v, _t.Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, _t.Tensor) else _t.tensor(v, dtype=dtype) for v in values]
    return _t.broadcast_tensors(*values)


def clamp_probs(probs):
    """Clamps probabilities into the open interval (eps, 1 - eps) of their dtype."""
    eps = _t.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: sigmoid for binary, softmax over the last dim otherwise."""
    if is_binary:
        return _t.sigmoid(logits)
    return _t.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped away from 0 and 1 first)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return _t.log(ps_clamped) - _t.log1p(-ps_clamped)
    return _t.log(ps_clamped)


class lazy_property:  # noqa: N801  (torch's name)
    """A property computed once per instance on first access (torch evaluates it with grad
    enabled and caches it in the instance's __dict__)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with _t.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
