"""paddle.nn.utils: in-place gradient clipping of parameters (`clip_grad_norm_`,
`clip_grad_value_`), with Paddle 3.3.1's arithmetic. (The PyTorch door has its own,
oar.torch.nn.utils.)"""
from __future__ import annotations

import math

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..autograd.inplace import bump
from ..tensor import Tensor, wrap_as
from .clip import _num

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _params(parameters, op):
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        ps = list(parameters)
    except TypeError:
        raise ArgTypeError(f"{op}: parameters must be a Tensor or an iterable of Tensors, got "
                           f"{type(parameters).__name__}") from None
    for i, p in enumerate(ps):
        if not isinstance(p, Tensor):
            raise ArgTypeError(f"{op}: parameters must be Tensors, item {i} is "
                               f"{type(p).__name__}")
    return ps


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients of `parameters` in place so that their norm_type norm (all
    gradients taken as one vector) is at most max_norm: each gradient is multiplied by
    min(1, max_norm / (total_norm + 1e-6)). Returns the total norm (a 0-d tensor).
    norm_type is one of inf, 0, 1, 2 (Paddle's)."""
    op = "clip_grad_norm_"
    ps = _params(parameters, op)
    if norm_type not in (math.inf, 0, 1, 2) or isinstance(norm_type, bool):
        raise ArgValueError(f"{op}: norm_type only support [inf, 0, 1, 2], got {norm_type!r}")
    max_norm = _num(max_norm, op, "max_norm")
    norm_type = float(norm_type)
    grads = [p._grad for p in ps if p._grad is not None]
    if not grads:
        return wrap_as(Tensor, np.asarray(0.0, np.float32))
    dt = grads[0]._data.dtype
    if norm_type == math.inf:
        norms = [np.abs(g._data).max() if g._data.size else dt.type(0) for g in grads]
        total = np.max(np.stack(norms)).astype(dt)
    else:
        norms = np.stack([np.linalg.norm(g._data.reshape(-1), norm_type).astype(dt)
                          for g in grads])
        total = np.asarray(np.linalg.norm(norms, norm_type)).astype(dt)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"{op}: The total norm of {norm_type} order of the gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. In any case, "
                           "disable this error and scale the gradient by non-finite norm, set "
                           "`error_if_nonfinite=False`")
    coef = np.minimum(dt.type(max_norm) / (total + dt.type(1e-6)), dt.type(1.0))
    for g in grads:
        np.multiply(g._data, g._data.dtype.type(coef), out=g._data)
        bump(g, op)
    return wrap_as(Tensor, np.asarray(total))


def clip_grad_value_(parameters, clip_value):
    """Clips the gradients of `parameters` in place to [-clip_value, clip_value]."""
    op = "clip_grad_value_"
    ps = _params(parameters, op)
    v = _num(clip_value, op, "clip_value")
    if v < 0:
        raise ArgValueError(f"{op}: clip_value must be >= 0 (gradients are clipped to "
                            f"[-clip_value, clip_value]), got {v}")
    for p in ps:
        g = p._grad
        if g is not None:
            t = g._data.dtype.type
            np.clip(g._data, t(-v), t(v), out=g._data)
            bump(g, op)
