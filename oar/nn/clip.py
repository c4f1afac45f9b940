"""Gradient clipping for the optimizers (Paddle's `paddle.nn.ClipGradByValue`, `ClipGradByNorm`,
`ClipGradByGlobalNorm`), passed as `grad_clip=` to any optimizer of oar.optimizer.
(Note [Gradient clipping] below.)
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..autograd.inplace import bump
from ..tensor import Tensor, wrap_as

# Note [Gradient clipping]
# An optimizer's step() checks every gradient (Note [Check, then write]), then hands the
# (parameter, gradient) pairs of each parameter group to the group's clip (the group's
# 'grad_clip' entry, else the optimizer's grad_clip) and updates the parameters with the
# gradients it returns, as Paddle 3.3.1's Optimizer._apply_optimize does (clip first, then the
# L2 weight decay of the update rule). What the three clips do to p.grad follows Paddle:
# - ClipGradByValue and ClipGradByNorm return new gradients; p.grad is left unchanged.
# - ClipGradByGlobalNorm scales p.grad in place (Paddle's `g.multiply_(clip)`, one version
#   bump per gradient), except a 0-d gradient, which gets a new tensor (Paddle cannot
#   multiply a 0-d tensor in place); with auto_skip_clip=False it multiplies even when the
#   norm is under the bound (by exactly 1).
# A parameter whose `need_clip` attribute is False (set from ParamAttr(need_clip=False)) keeps
# its gradient and does not count in the global norm. The arithmetic is Paddle's: the norm of a
# float32 gradient is computed in float32 (sum of squares, square root), the global norm sums
# the float32 squared norms in float32 (float64 if some gradient is float64), and the scale
# is clip_norm / max(norm, clip_norm) (global) or clip_norm / norm when norm > clip_norm
# (per tensor). Unlike Paddle, ClipGradByNorm also takes float64 gradients (Paddle has no
# float64 kernel and raises), and a negative or NaN bound is refused (Paddle would flip or
# poison the gradients).

__all__ = ["ClipGradBase", "GradientClipBase", "ClipGradByValue", "ClipGradByNorm",
           "ClipGradByGlobalNorm"]


class _NotANumber(ArgTypeError, ValueError):
    """A bound that is not a number (Paddle's float() raises ValueError for strings and
    TypeError for None)."""


class _AssertError(ArgValueError, AssertionError):
    """A bad argument Paddle asserts on (AssertionError)."""


def _real(value, cls, name):
    """A clip argument as a float: a real number (not bool) or a one-element number tensor."""
    if isinstance(value, Tensor):
        if value._data.size != 1 or value._data.dtype.kind not in "iuf":
            raise _NotANumber(f"{cls}: {name} must be a number, got a {value.dtype.name} tensor "
                              f"of shape {list(value.shape)}")
        return float(value._data.reshape(()))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise _NotANumber(f"{cls}: {name} must be a number, got {type(value).__name__} "
                          f"{value!r}"[:120])
    return float(value)


def _bound(value, cls, name, allow_zero=False):
    """A clip bound as a float: a real number or a one-element tensor, finite or +inf,
    > 0 (>= 0 with allow_zero)."""
    v = _real(value, cls, name)
    if math.isnan(v) or v < 0 or (v == 0 and not allow_zero):
        need = ">= 0" if allow_zero else "> 0"
        raise ArgValueError(f"{cls}: {name} must be a number {need}, got {v} (a negative or NaN "
                            "bound would flip or poison the gradients)")
    return v


def _clips(p):
    """Paddle's rule: a parameter is clipped unless its need_clip attribute is False."""
    return getattr(p, "need_clip", True) is not False


def _new_grad(g, arr):
    return wrap_as(g._result_class, arr)


class ClipGradBase:
    """Base class of gradient clips: an optimizer calls clip(params_grads) with a list of
    (parameter, gradient) pairs and updates each parameter with the gradient returned
    (Note [Gradient clipping]). A subclass implements `_dygraph_clip(params_grads)`."""

    def __call__(self, params_grads):
        """The clipped list of (parameter, gradient) pairs for `params_grads`."""
        return self._dygraph_clip(params_grads)

    def _dygraph_clip(self, params_grads):
        raise NotImplementedError(f"{type(self).__name__}: a gradient clip must implement "
                                  "_dygraph_clip(params_grads)")

    def __str__(self):
        return type(self).__name__


GradientClipBase = ClipGradBase


class _PerTensorClip(ClipGradBase):
    """A clip that maps each gradient on its own (ByValue, ByNorm): `_clip_array(g)` gives the
    new gradient of a parameter that clips; need_clip=False keeps it; None gradients drop."""

    def _dygraph_clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            out.append((p, _new_grad(g, self._clip_array(g._data)) if _clips(p) else g))
        return out


class ClipGradByValue(_PerTensorClip):
    """Clips every gradient element to [min, max] (min defaults to -max, and then max must be
    > 0). The clipped gradients are new tensors: p.grad is unchanged (Note [Gradient
    clipping])."""

    def __init__(self, max, min=None):
        cls = "ClipGradByValue"
        if min is None:
            hi = _num(max, cls, "max")
            if not hi > 0.0:
                raise _AssertError(f"{cls}: max must be > 0 when min is not given (min "
                                   f"defaults to -max), got max={hi}")
            lo = -hi
        else:
            hi, lo = _num(max, cls, "max"), _num(min, cls, "min")
            if lo > hi:
                raise ArgValueError(f"{cls}: min ({lo}) must not be greater than max ({hi})")
        self.max = hi
        self.min = lo

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _clip_array(self, a):
        t = a.dtype.type
        return np.clip(a, t(self.min), t(self.max))


def _num(value, cls, name):
    """A bound that may be negative (ClipGradByValue's min and max): a real number, not NaN."""
    v = _real(value, cls, name)
    if math.isnan(v):
        raise ArgValueError(f"{cls}: {name} must be a number, got nan")
    return v


class ClipGradByNorm(_PerTensorClip):
    """Scales each gradient whose L2 norm exceeds clip_norm down to norm clip_norm (each tensor
    on its own). The clipped gradients are new tensors: p.grad is unchanged (Note [Gradient
    clipping])."""

    def __init__(self, clip_norm):
        self.clip_norm = _bound(clip_norm, "ClipGradByNorm", "clip_norm")

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _clip_array(self, a):
        t = a.dtype.type
        norm = np.sqrt(np.sum(np.square(a), dtype=a.dtype))   # in the gradient's dtype
        bound = t(self.clip_norm)
        if norm <= bound:
            return a * t(1)
        eps = t(1e-6) if norm <= t(1e-30) else t(0)   # Paddle's kernel: clip_norm / (norm + eps)
        return a * (bound / (norm + eps))


class ClipGradByGlobalNorm(ClipGradBase):
    """Scales all gradients by clip_norm / max(global_norm, clip_norm), where global_norm is the
    L2 norm of all clipped gradients together (parameters with need_clip=False neither count
    nor change). p.grad is scaled in place (Note [Gradient clipping]). auto_skip_clip=True
    leaves the gradients alone when the norm is within the bound."""

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        cls = "ClipGradByGlobalNorm"
        if not isinstance(auto_skip_clip, bool):
            raise _AssertError(f"{cls}: auto_skip_clip must be a bool, got "
                               f"{type(auto_skip_clip).__name__} {auto_skip_clip!r}"[:120])
        self.clip_norm = _bound(clip_norm, cls, "clip_norm")
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        squares = {}                   # dtype -> squared norms of the clipped gradients
        for p, g in params_grads:
            if g is None or not _clips(p):
                continue
            a = g._data
            squares.setdefault(a.dtype, []).append(np.sum(np.square(a), dtype=a.dtype))
        if not squares:
            return list(params_grads)
        sum_dt = np.dtype(np.float64) if np.dtype(np.float64) in squares else np.dtype(np.float32)
        parts = [np.sum(np.stack(v), dtype=dt).astype(sum_dt) for dt, v in squares.items()]
        total = np.sqrt(np.sum(np.stack(parts), dtype=sum_dt))
        bound = sum_dt.type(self.clip_norm)
        if not self.auto_skip_clip:
            scale = bound / np.maximum(total, bound)
        elif total > bound:
            scale = bound / total
        else:
            scale = None
        out = []
        for p, g in params_grads:
            if g is None:
                continue
            if scale is None or not _clips(p):
                out.append((p, g))
                continue
            a = g._data
            s = a.dtype.type(scale)
            if a.ndim:                 # Paddle: g.multiply_(clip), in place
                np.multiply(a, s, out=a)
                bump(g, "ClipGradByGlobalNorm")
                out.append((p, g))
            else:
                out.append((p, _new_grad(g, a * s)))
        return out
