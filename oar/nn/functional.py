"""oar.nn.functional: the functional forms of the layers (Paddle and PyTorch spellings)."""
from __future__ import annotations

import numpy as np

from ..autograd import grad_mode
from ..ops import registry as R
from ..tensor import Tensor
from ._kernels import (adaptive_avg_pool2d, avg_pool2d, conv2d, max_pool2d, pad)  # noqa: F401

_F = R.FUNCTIONS


def relu(x, inplace=False, name=None):
    return x.relu_() if inplace else x.relu()


def relu_(x, name=None):
    return x.relu_()


def leaky_relu(x, negative_slope=0.01, inplace=False, name=None):
    fn = _F["leaky_relu_"] if inplace else _F["leaky_relu"]
    return fn(x, negative_slope)


def leaky_relu_(x, negative_slope=0.01, name=None):
    return _F["leaky_relu_"](x, negative_slope)


def sigmoid(x, name=None):
    return x.sigmoid()


def tanh(x, name=None):
    return x.tanh()


def tanh_(x, name=None):
    return x.tanh_()


def gelu(x, approximate=False, name=None):
    if isinstance(approximate, str):
        approximate = approximate == "tanh"
    return _F["gelu"](x, bool(approximate))


def log_softmax(x, axis=-1, dtype=None, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    if dtype is not None:
        x = x.astype(dtype)
    return x - x.logsumexp(axis=axis, keepdim=True)


def softmax(x, axis=-1, dtype=None, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    if dtype is not None:
        x = x.astype(dtype)
    e = (x - x.amax(axis=axis, keepdim=True).detach()).exp()
    return e / e.sum(axis=axis, keepdim=True)


def _k_linear(x, w, b):
    y = np.matmul(x, w)
    if b is not None:
        y += b          # into the fresh matmul result: no second buffer
    return y


def _b_linear(c, g):
    x = c.input(0) if c.needs[1] else None
    w = c.input(1) if c.needs[0] else None
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        gx = g @ w.mT if w is not None else None
        gw = (x.reshape([-1, x.shape[-1]]).mT @ g.reshape([-1, g.shape[-1]])) if x is not None else None
        gb = g.reshape([-1, g.shape[-1]]).sum(axis=0) if c.needs[2] else None
        return gx, gw, gb
    gd = g._data
    gx = Tensor._wrap(np.asarray(gd @ w._data.T)) if w is not None else None
    gw = gb = None
    if x is not None:
        xd = x._data
        gw = Tensor._wrap(np.asarray(xd.reshape(-1, xd.shape[-1]).T @ gd.reshape(-1, gd.shape[-1])))
    if c.needs[2]:
        gb = Tensor._wrap(np.asarray(gd.reshape(-1, gd.shape[-1]).sum(axis=0)))
    return gx, gw, gb


LINEAR = R.OpDef("linear", _k_linear, _b_linear, save={0: (1,), 1: (0,)},
                 inputs=("x", "weight", "bias"))


def linear(x, weight, bias=None, name=None):
    """y = x @ weight + bias, weight of shape [in, out] (Paddle's layout); one node."""
    if weight.ndim != 2 or x.shape[-1] != weight.shape[0]:
        raise ValueError(f"linear: input {list(x.shape)} and weight {list(weight.shape)} "
                         "(shape [in_features, out_features]) do not match")
    return R.dispatch(LINEAR, (x, weight, bias), ())


def _reduce(loss, reduction, weight_sum=None):
    if reduction == "mean":
        return loss.mean() if weight_sum is None else loss.sum() / weight_sum
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def nll_loss(log_probs, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    label = R.as_tensor(label)
    lab = label._data.astype(np.int64).reshape(-1)
    if log_probs.ndim != 2:
        raise ValueError(f"nll_loss expects (N, C) log-probabilities, got {list(log_probs.shape)}")
    n, c = log_probs.shape
    if lab.shape[0] != n:
        raise ValueError(f"nll_loss: {n} rows of log-probabilities but {lab.shape[0]} labels")
    keep = lab != ignore_index
    safe = np.where(keep, lab, 0)
    if keep.any() and (safe.max() >= c or safe.min() < 0):
        raise IndexError(f"nll_loss: label out of range [0, {c}) (got {int(safe.max())})")
    picked = log_probs[Tensor._wrap(np.arange(n)), Tensor._wrap(safe)]
    w = np.where(keep, 1.0, 0.0).astype(log_probs._data.dtype)
    if weight is not None:
        w = w * weight._data[safe]
    loss = -picked * Tensor._wrap(w)
    return _reduce(loss, reduction, weight_sum=float(w.sum()) if reduction == "mean" else None)


def _k_ce(x, lab, ignore_index, reduction):
    m = x.max(axis=1, keepdims=True)
    logp = x - m
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    keep = lab != ignore_index
    picked = logp[np.arange(len(lab)), np.where(keep, lab, 0)] * keep
    if reduction == "sum":
        return np.asarray(-picked.sum())
    if reduction == "none":
        return -picked
    return np.asarray(-picked.sum() / max(int(keep.sum()), 1))


def _b_ce(c, g):
    x = c.input(0)
    lab, ignore_index, reduction = c.attrs[0], c.attrs[1], c.attrs[2]
    keep = lab != ignore_index
    n = x.shape[0]
    onehot = np.zeros(x._data.shape, x._data.dtype)
    onehot[np.arange(n)[keep], lab[keep]] = 1
    rows = keep.astype(x._data.dtype)
    if reduction == "mean":
        rows /= max(int(keep.sum()), 1)
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        probs = (x - x.logsumexp(axis=1, keepdim=True)).exp()
        scale = g.reshape([-1, 1]) if reduction == "none" else g
        return ((probs - Tensor._wrap(onehot)) * Tensor._wrap(rows[:, None]) * scale,)
    xd = x._data
    p = np.exp(xd - xd.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p -= onehot
    p *= rows[:, None]
    p *= g._data.reshape(-1, 1) if reduction == "none" else g._data
    return (Tensor._wrap(p),)


CROSS_ENTROPY = R.OpDef("cross_entropy", _k_ce, _b_ce, save={0: (0,)}, inputs=("input",),
                        attrs=(("label", None), ("ignore_index", -100), ("reduction", "mean")))


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, label_smoothing=0.0, name=None, *, target=None):
    """Class indices (or probabilities with soft_label=True); ignore_index; label smoothing."""
    if target is not None:
        label = target
    label = R.as_tensor(label)
    if (input.ndim == 2 and axis in (-1, 1) and weight is None and not label_smoothing
            and not soft_label and label._data.dtype.kind in "iu"
            and label._data.size == input.shape[0] and reduction in ("mean", "sum", "none")):
        lab = label._data.reshape(-1).astype(np.int64, copy=False)
        keep = lab != ignore_index
        if keep.any() and (lab[keep].max() >= input.shape[1] or lab[keep].min() < 0):
            raise IndexError(f"cross_entropy: label out of range [0, {input.shape[1]})")
        return R.dispatch(CROSS_ENTROPY, (input,), (lab, ignore_index, reduction))   # one node
    logp = log_softmax(input, axis=axis)
    if soft_label or (label._data.dtype.kind == "f" and label.shape == input.shape):
        return _reduce(-(logp * label).sum(axis=axis), reduction)
    lab = label._data.reshape(-1)
    loss_nll = nll_loss(logp, label.reshape([-1]), weight, ignore_index, "none")
    if label_smoothing:
        keep = Tensor._wrap((lab != ignore_index).astype(logp._data.dtype))
        smooth = -logp.mean(axis=axis) * keep
        loss = loss_nll * (1 - label_smoothing) + smooth * label_smoothing
    else:
        loss = loss_nll
    if reduction == "mean":
        w = (lab != ignore_index).astype(np.float64)
        if weight is not None:
            w = w * weight._data[np.where(lab != ignore_index, lab, 0)]
        return loss.sum() / max(float(w.sum()), 1e-12)
    return _reduce(loss, reduction)


def mse_loss(input, label, reduction="mean", name=None):
    d = input - label
    return _reduce(d * d, reduction)


def l1_loss(input, label, reduction="mean", name=None):
    return _reduce((input - label).abs(), reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    # log(1 + exp(-|x|)) + max(x, 0) - x * y, stable for large |x|
    x = logit
    loss = (-(x.abs())).exp().log1p() + x.relu() - x * label
    if pos_weight is not None:
        log_sig_neg = (-(x.abs())).exp().log1p() + (-x).relu()     # -log(sigmoid(x))
        loss = loss + (pos_weight - 1) * label * log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def dropout(x, p=0.5, training=True, inplace=False, axis=None, mode="upscale_in_train", name=None):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    if not training or p == 0:
        return x
    if p == 1:
        return x.zero_() if inplace else x * 0
    from ..ops.random import generator
    keep = (generator().random(x._data.shape) >= p).astype(x._data.dtype) / (1 - p)
    mask = Tensor._wrap(keep)
    return x.mul_(mask) if inplace else x * mask


def one_hot(x, num_classes=-1, name=None):
    a = R.as_tensor(x)._data.astype(np.int64)
    if num_classes < 0:
        num_classes = int(a.max()) + 1
    if a.size and (a.max() >= num_classes or a.min() < 0):
        raise ValueError(f"one_hot: class values must be in [0, {num_classes})")
    out = np.zeros(a.shape + (num_classes,), np.float32)
    np.put_along_axis(out, a[..., None], 1.0, axis=-1)
    return Tensor._wrap(out)


def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    idx = R.as_tensor(x)
    out = weight[idx]
    if padding_idx is not None:
        mask = Tensor._wrap((idx._data != padding_idx)[..., None].astype(weight._data.dtype))
        out = out * mask
    return out


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-5, name=None, *, eps=None):
    if eps is not None:
        epsilon = eps
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    axes = list(range(x.ndim - len(normalized_shape), x.ndim))
    mean = x.mean(axis=axes, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(axis=axes, keepdim=True)
    y = xc * (var + epsilon).rsqrt()
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-5, name=None, *, eps=None, torch_momentum=None):
    """Paddle's momentum convention: running = momentum * running + (1 - momentum) * batch.
    Running statistics are updated in place under no_grad."""
    if eps is not None:
        epsilon = eps
    axes = [0] + list(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    if training:
        mean = x.mean(axis=axes)
        xc = x - mean.reshape(shape)
        var = (xc * xc).mean(axis=axes)
        if running_mean is not None:
            n = x.numel() // x.shape[1]
            with grad_mode.no_grad():
                running_mean.mul_(momentum).add_(mean.detach() * (1 - momentum))
                running_var.mul_(momentum).add_(var.detach() * ((1 - momentum) * n / max(n - 1, 1)))
        y = xc * (var.reshape(shape) + epsilon).rsqrt()
    else:
        y = (x - running_mean.reshape(shape)) * (running_var.reshape(shape) + epsilon).rsqrt()
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    return x.flatten(start_axis, stop_axis)


__all__ = [n for n in list(globals()) if not n.startswith("_") and n not in ("np", "annotations", "R", "Tensor", "grad_mode")]
