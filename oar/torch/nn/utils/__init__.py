"""torch.nn.utils: gradient clipping and parameter/vector conversion."""
from __future__ import annotations

import math

import numpy as np

from ....autograd import grad_mode
from ....autograd.inplace import bump
from ....tensor import Tensor as _CoreTensor
from ....tensor import wrap_as
from ..._tensor import Tensor as _DoorTensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters"]


def _params(parameters):
    if isinstance(parameters, _CoreTensor):
        return [parameters]
    return list(parameters)


def _norm(arrays, norm_type):
    """The norm_type norm of the concatenation of arrays, in their dtype (a NumPy scalar)."""
    if norm_type == math.inf:
        return max(np.abs(a).max() if a.size else a.dtype.type(0) for a in arrays)
    if norm_type == -math.inf:
        return min(np.abs(a).min() if a.size else a.dtype.type(np.inf) for a in arrays)
    norms = np.array([np.linalg.norm(a.reshape(-1), norm_type) for a in arrays],
                     dtype=arrays[0].dtype)
    return np.linalg.norm(norms, norm_type).astype(arrays[0].dtype)


def _scalar(like, value):
    return wrap_as(like._result_class, np.asarray(value, like._data.dtype))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm_type norm of the norms of tensors (as if they were concatenated)."""
    ts = [t for t in _params(tensors) if t is not None]
    if not ts:
        return wrap_as(_DoorTensor, np.asarray(0.0, np.float32))
    total = _norm([t._data for t in ts], float(norm_type))
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {float(norm_type)} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return _scalar(ts[0], total)


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients in place by min(1, max_norm / (total_norm + 1e-6))."""
    grads = [p._grad for p in _params(parameters) if p._grad is not None]
    if not grads:
        return
    tn = total_norm._data if isinstance(total_norm, _CoreTensor) else total_norm
    coef = np.minimum(np.asarray(float(max_norm) / (np.asarray(tn) + 1e-6), grads[0]._data.dtype),
                      1.0)
    with grad_mode.no_grad():
        for g in grads:
            g._data *= coef
            bump(g, "clip_grad_norm_")


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scales the parameters' gradients in place so that their total norm is at most
    max_norm; returns the total norm before clipping (a 0-d tensor)."""
    params = _params(parameters)
    grads = [p._grad for p in params if p._grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """Deprecated spelling of clip_grad_norm_."""
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient in place into [-clip_value, clip_value]."""
    v = float(clip_value)
    with grad_mode.no_grad():
        for p in _params(parameters):
            if p._grad is not None:
                np.clip(p._grad._data, -v, v, out=p._grad._data)
                bump(p._grad, "clip_grad_value_")


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one 1-D tensor."""
    params = _params(parameters)
    from ....ops.registry import FUNCTIONS
    return FUNCTIONS["concat"]([p.reshape([-1]) for p in params])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of the 1-D tensor vec into the parameters."""
    if not isinstance(vec, _CoreTensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    params = _params(parameters)
    n = sum(p._data.size for p in params)
    if vec._data.shape != (n,):
        raise RuntimeError(f"vector_to_parameters: vec has shape {list(vec._data.shape)}, the "
                           f"parameters hold {n} elements")
    off = 0
    with grad_mode.no_grad():
        for p in params:
            k = p._data.size
            np.copyto(p._data, vec._data[off:off + k].reshape(p._data.shape), casting="unsafe")
            bump(p, "vector_to_parameters")
            off += k

from . import rnn  # noqa: E402,F401  (torch.nn.utils.rnn: packed sequences)
