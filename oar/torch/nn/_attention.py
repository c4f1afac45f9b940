"""torch.nn.functional's attention: scaled_dot_product_attention and
multi_head_attention_forward with PyTorch 2.13's signatures and mask meanings, over the core
in oar/nn/_attention.py (Note [Attention masks per door])."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...autograd.errors import ArgTypeError, ArgValueError
from ...nn import _attention as _A
from ...ops.registry import FUNCTIONS as _FN
from ...tensor import Tensor as _CoreTensor
from ...tensor import wrap_as

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _F():
    from . import functional      # call time: functional imports this module
    return functional


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value over the last two dims; a bool attn_mask
    says True = attend (a row with nothing to attend gives zeros), a float one is added;
    is_causal also masks the upper triangle; dropout_p drops attention weights (always, as
    torch: the caller passes 0 in eval)."""
    op = "scaled_dot_product_attention"
    _A.check_qkv(query, key, value, op)
    dropout_p = float(dropout_p)
    if not 0.0 <= dropout_p <= 1.0:
        raise ArgValueError(f"{op}: dropout probability has to be between 0 and 1, but got "
                            f"{dropout_p}")
    if is_causal and attn_mask is not None:
        # torch's math kernel (float64, dropout) refuses this; its CPU flash kernel (float32)
        # combines the two: oar follows the documented refusal
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if enable_gqa:
        key, value = _A.repeat_heads(key, value, query._data.shape[-3]
                                     if query._data.ndim >= 3 else 1, op)
    drop = None
    if dropout_p > 0:
        F = _F()
        drop = lambda w: F.dropout(w, dropout_p, True)   # noqa: E731  (torch's draw order)
    return _A.attention(query, key, value, attn_mask, scale=scale, is_causal=bool(is_causal),
                        dropout=drop, op=op)


def _canonical_mask(mask, name, other, other_name, target_dtype, check_other=True):
    """torch's F._canonical_mask: a bool mask (True = masked) becomes a float mask of -inf;
    a float mask is kept; other dtypes are refused."""
    if mask is None:
        return None
    if not isinstance(mask, _CoreTensor):
        raise ArgTypeError(f"multi_head_attention_forward(): {name} must be Tensor, not "
                           f"{type(mask).__name__}")
    kind = mask._data.dtype
    if kind != np.bool_ and kind.kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if check_other and other is not None and other._data.dtype != kind:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same "
                      "type for both instead.", UserWarning, stacklevel=4)
    if kind == np.bool_:
        arr = np.where(mask._data, -np.inf, 0.0).astype(target_dtype)
        return wrap_as(mask._result_class, arr)
    return mask


def _none_or_dtype(t):
    return None if t is None else t._data.dtype


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention over (L, N, E) query and (S, N, E) key/value (or unbatched
    (L, E)/(S, E)): in-projection, attention per head, out-projection. Bool masks mean
    True = masked. Returns (output, weights averaged over heads or per head, or None)."""
    op = "multi_head_attention_forward"
    F = _F()
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, _CoreTensor):
            raise ArgTypeError(f"{op}(): argument '{name}' must be Tensor, not "
                               f"{type(t).__name__}")
    batched = query.ndim == 3
    if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
            f"query tensor" if query.ndim not in (2, 3) else
            f"For {'batched' if batched else 'unbatched'} (3-D or 2-D) `query`, expected `key` "
            f"and `value` to be {query.ndim}-D but found {key.ndim}-D and {value.ndim}-D "
            "tensors respectively")
    if key_padding_mask is not None:
        want = 2 if batched else 1
        if key_padding_mask.ndim != want:
            raise AssertionError(f"For {'batched' if batched else 'unbatched'} "
                                 f"(3-D or 2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or {want}-D but found {key_padding_mask.ndim}-D tensor "
                                 "instead")
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise AssertionError(f"For {'batched' if batched else 'unbatched'} `query`, expected "
                             f"`attn_mask` to be `None`, 2-D or 3-D but found "
                             f"{attn_mask.ndim}-D tensor instead")
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query._data.shape
    src_len = key._data.shape[0]
    dt = query._data.dtype
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                       "attn_mask", dt)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # the sdpa causal path (the same numbers)
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", dt, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key._data.shape[:2] != value._data.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not "
                                 f"match value's {tuple(value.shape[:2])}")
    elif key._data.shape != value._data.shape:
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                             f"{tuple(value.shape)}")

    # in-projection
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    else:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight, "
                                 "k_proj_weight or v_proj_weight is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    q = F.linear(query, w_q, b_q)
    k = F.linear(key, w_k, b_k)
    v = F.linear(value, w_v, b_v)

    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, "
                                   f"but should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, "
                               f"but should be {(bsz * num_heads, tgt_len, src_len)}.")

    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key / value.")
        k = _FN["cat"]([k, bias_k.expand([1, bsz, embed_dim])], 0)
        v = _FN["cat"]([v, bias_v.expand([1, bsz, embed_dim])], 0)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    q = q.reshape([tgt_len, bsz * num_heads, head_dim]).transpose(0, 1)
    if static_k is None:
        k = k.reshape([k.shape[0], bsz * num_heads, head_dim]).transpose(0, 1)
    else:
        k = static_k
    if static_v is None:
        v = v.reshape([v.shape[0], bsz * num_heads, head_dim]).transpose(0, 1)
    else:
        v = static_v
    if add_zero_attn:
        z = wrap_as(q._result_class, np.zeros((bsz * num_heads, 1, head_dim), dt))
        k = _FN["cat"]([k, z], 1)
        v = _FN["cat"]([v, z], 1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k._data.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but "
                                 f"got {tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape([bsz, 1, 1, src_len]).expand(
            [bsz, num_heads, 1, src_len]).reshape([bsz * num_heads, 1, src_len])
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    drop = None
    if dropout_p > 0.0:
        drop = lambda w: F.dropout(w, dropout_p)   # noqa: E731
    if need_weights:
        out, w = _A.attention(q, k, v, attn_mask, scale=1.0 / math.sqrt(head_dim),
                              dropout=drop, safe_softmax=False, need_weights=True, op=op)
    else:
        out = _A.attention(q, k, v, attn_mask, scale=1.0 / math.sqrt(head_dim),
                           is_causal=bool(is_causal), dropout=drop, op=op)
        w = None
    out = out.transpose(0, 1).reshape([tgt_len * bsz, embed_dim])
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape([tgt_len, bsz, embed_dim])
    if w is not None:
        w = w.reshape([bsz, num_heads, tgt_len, src_len])
        if average_attn_weights:
            w = w.mean(1)
        if not batched:
            w = w.squeeze(0)
    if not batched:
        out = out.squeeze(1)
    return out, w
