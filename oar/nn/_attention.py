"""Scaled dot-product attention and multi-head attention, composed of oar ops (matmul,
softmax, where, dropout) so that autograd, dtypes and result classes come for free; each
door binds its own signature, layout and mask meaning (Note [Attention masks per door])."""
# Note [Attention masks per door]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The core takes q [..., Hq, L, E], k [..., Hk, S, E], v [..., Hk, S, Ev] and a mask that is
# either boolean with True = "may attend" or floating = added to the scores. The doors
# translate their own meanings into that one:
# * torch's F.scaled_dot_product_attention: bool True = attend (as the core); a row with
#   nothing to attend gives zeros (torch 2.13's safe softmax), not NaN.
# * torch's nn.MultiheadAttention / multi_head_attention_forward: bool True = MASKED; the
#   door turns it into a float mask of -inf (torch's _canonical_mask) before the core.
# * Paddle's MultiHeadAttention and Transformer layers: bool/int masks become
#   (mask - 1) * 1e9 (so True/1 = attend, False/0 = a large negative score; never -inf).
# * Paddle's F.scaled_dot_product_attention: [batch, seq, heads, dim] layout, bool True =
#   attend; the door transposes to the core's layout and back.
from __future__ import annotations

import math

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops.registry import FUNCTIONS as _FN
from ..tensor import Tensor, wrap_as


def _shape(t):
    return list(t._data.shape)


def check_qkv(q, k, v, op, min_ndim=2):
    """Refuses non-tensors, mixed dtypes and shapes that cannot be attended (before any work)."""
    for name, t in (("query", q), ("key", k), ("value", v)):
        if not isinstance(t, Tensor):
            raise ArgTypeError(f"{op}(): argument '{name}' must be Tensor, not "
                               f"{type(t).__name__}")
        if t._data.ndim < min_ndim:
            raise ArgValueError(f"{op}: {name} must have at least {min_ndim} dims, got shape "
                                f"{_shape(t)}")
    if not (q._data.dtype == k._data.dtype == v._data.dtype):
        raise ArgTypeError(f"{op}: Expected query, key, and value to have the same dtype, but "
                           f"got query.dtype: {q.dtype.name} key.dtype: {k.dtype.name} and "
                           f"value.dtype: {v.dtype.name} instead.")
    if q._data.dtype.kind not in "fc":
        raise ArgTypeError(f"{op}: query, key and value must be floating, got "
                           f"{q.dtype.name}")
    if q._data.shape[-1] != k._data.shape[-1]:
        raise ArgValueError(f"{op}: query's last dim {q._data.shape[-1]} must equal key's "
                            f"{k._data.shape[-1]} (query {_shape(q)}, key {_shape(k)})")
    if k._data.shape[-2] != v._data.shape[-2]:
        raise ArgValueError(f"{op}: key and value must have the same sequence length, got "
                            f"key {_shape(k)} and value {_shape(v)}")


def repeat_heads(k, v, hq, op):
    """k, v with their heads dim (-3) repeated to hq heads (grouped-query attention)."""
    if k._data.ndim < 3 or v._data.ndim < 3:
        raise ArgValueError(f"{op}: enable_gqa needs a heads dim (-3) in key and value")
    hk = k._data.shape[-3]
    if hk == hq:
        return k, v
    if hk == 0 or hq % hk:
        raise ArgValueError(f"{op}: the number of query heads {hq} must be a multiple of the "
                            f"number of key/value heads {hk}")
    r = hq // hk

    def rep(t):
        # [..., Hk, S, D] -> [..., Hk, r, S, D] -> [..., Hk * r, S, D] (repeat_interleave)
        s = list(t._data.shape)
        t = t.unsqueeze(-3).expand(s[:-2] + [r] + s[-2:])
        return t.reshape(s[:-3] + [hq] + s[-2:])
    return rep(k), rep(v)


def check_mask(mask, scores_shape, dtype, op):
    """The mask must be a bool or floating tensor broadcastable to the scores' shape."""
    if mask is None:
        return
    if not isinstance(mask, Tensor):
        raise ArgTypeError(f"{op}(): argument 'attn_mask' must be Tensor, not "
                           f"{type(mask).__name__}")
    if mask._data.dtype != np.bool_ and mask._data.dtype.kind != "f":
        raise ArgTypeError(f"{op}: attn_mask must be bool or floating, got {mask.dtype.name}")
    if mask._data.dtype != np.bool_ and mask._data.dtype != dtype:
        raise ArgTypeError(f"{op}: Expected attn_mask dtype to be bool or to match query dtype, "
                           f"but got attn_mask.dtype: {mask.dtype.name} and query.dtype: "
                           f"{np.dtype(dtype).name} instead. Fix: attn_mask.to(query.dtype)")
    try:
        full = np.broadcast_shapes(tuple(mask._data.shape), tuple(scores_shape))
    except ValueError:
        full = None
    if full != tuple(scores_shape):
        raise ArgValueError(f"{op}: attn_mask of shape {_shape(mask)} cannot be broadcast to "
                            f"the attention scores' shape {list(scores_shape)}")


def attention(q, k, v, mask=None, *, scale=None, is_causal=False, dropout=None,
              safe_softmax=True, need_weights=False, op="scaled_dot_product_attention"):
    """softmax(q @ k^T * scale + mask) @ v over the last two dims (Note [Attention masks per
    door]). `dropout` (a callable or None) is applied to the attention weights; with
    `safe_softmax` a row with no score above -inf gives zero weights. Returns the output,
    or (output, weights) with need_weights."""
    e = q._data.shape[-1]
    scale = 1.0 / math.sqrt(e) if scale is None else float(scale)
    scores = _FN["matmul"](q, k.transpose(-2, -1)) * scale
    L, S = scores._data.shape[-2:]
    check_mask(mask, scores._data.shape, scores._data.dtype, op)
    if mask is not None:
        if mask._data.dtype == np.bool_:
            scores = _FN["where"](mask, scores, _neg_inf(scores))
        else:
            scores = scores + mask
    if is_causal:
        keep = wrap_as(q._result_class, np.tril(np.ones((L, S), np.bool_)))
        scores = _FN["where"](keep, scores, _neg_inf(scores))
    weights = _F().softmax(scores, -1)
    if safe_softmax and (mask is not None or is_causal):
        dead = np.isneginf(scores._data).all(-1, keepdims=True)
        if dead.any():
            weights = _FN["where"](wrap_as(q._result_class, ~dead), weights,
                                   wrap_as(q._result_class, np.zeros((), weights._data.dtype)))
    if dropout is not None:
        weights = dropout(weights)
    out = _FN["matmul"](weights, v)
    return (out, weights) if need_weights else out


def _neg_inf(t):
    return wrap_as(t._result_class, np.full((), -np.inf, t._data.dtype))


def _F():
    from . import functional     # call time: functional imports this module
    return functional


# Paddle's F.scaled_dot_product_attention (bound there under that name)
def paddle_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                training=True, backend=None, scale=None, enable_gqa=True, name=None):
    """Attention over [batch, seq, heads, dim] query/key/value; a bool attn_mask
    ([batch, heads, L, S] or broadcastable) says True = attend, a float one is added;
    is_causal masks the upper triangle; dropout_p applies only with training=True."""
    op = "scaled_dot_product_attention"
    check_qkv(query, key, value, op, min_ndim=4)
    if query._data.ndim != 4 or key._data.ndim != 4 or value._data.ndim != 4:
        raise ArgValueError(f"{op}: query, key and value must be 4-D [batch, seq, heads, dim], "
                            f"got {list(query.shape)}, {list(key.shape)}, {list(value.shape)}")
    q, k, v = (t.transpose([0, 2, 1, 3]) for t in (query, key, value))
    if enable_gqa:
        k, v = repeat_heads(k, v, q._data.shape[1], op)
    elif k._data.shape[1] != q._data.shape[1]:
        raise ArgValueError(f"{op}: query has {q.shape[1]} heads and key {k.shape[1]}; pass "
                            "enable_gqa=True for grouped-query attention")
    p = float(dropout_p)
    drop = (lambda w: _F().dropout(w, p, training=True)) if training and p > 0 else None
    out = attention(q, k, v, attn_mask, scale=scale, is_causal=bool(is_causal), dropout=drop,
                    op=op)
    return out.transpose([0, 2, 1, 3])
