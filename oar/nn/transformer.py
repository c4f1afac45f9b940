"""Paddle 3.3.1's attention layers: MultiHeadAttention (q_proj/k_proj/v_proj/out_proj Linear
layers, weights [in, out]), TransformerEncoderLayer/DecoderLayer/Encoder/Decoder and
Transformer (batch-major always), and F.scaled_dot_product_attention over
[batch, seq, heads, dim]; the math is the core's (oar/nn/_attention.py, Note [Attention
masks per door])."""
from __future__ import annotations

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import args as _args
from ..tensor import Tensor, wrap_as
from . import _attention as _A
from . import functional as F
from .layers import Dropout, Layer, LayerList, LayerNorm, Linear

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
           "TransformerEncoder", "TransformerDecoder", "Transformer"]


def _convert_attention_mask(mask, dtype):
    """Paddle's: a bool or integer mask m becomes (m - 1) * 1e9 in dtype (1/True = attend,
    0/False = a large negative score); a floating mask is added as it is."""
    if mask is None:
        return None
    if not isinstance(mask, Tensor):
        raise ArgTypeError(f"attn_mask must be a Tensor, got {type(mask).__name__}")
    if mask._data.dtype == np.bool_ or mask._data.dtype.kind in "iu":
        return (mask.astype(dtype) - 1.0) * 1e9
    if mask._data.dtype != np.dtype(dtype):
        return mask.astype(dtype)
    return mask


def _param_attrs(attr, n):
    """Paddle's _convert_param_attr_to_list: one attribute for all, or a list of n."""
    if isinstance(attr, (list, tuple)):
        if len(attr) == 1:
            return list(attr) * n
        if len(attr) != n:
            raise ArgValueError(f"the length of weight_attr/bias_attr should be 1 or {n}, got "
                                f"{len(attr)}")
        return list(attr)
    return [attr] * n


class MultiHeadAttention(Layer):
    """Multi-head attention over [batch, seq, embed_dim] inputs: q_proj, k_proj (kdim ->
    embed_dim), v_proj (vdim -> embed_dim) and out_proj Linear layers. Returns the output, and
    the attention weights [batch, heads, L, S] too with need_weights=True."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        # Paddle asserts these (AssertionError, as torch's MultiheadAttention)
        for n, v in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
                raise AssertionError(f"MultiHeadAttention: expected {n} to be an integer "
                                     f"greater than 0, but got {v!r}")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.need_weights = need_weights
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError(f"MultiHeadAttention: embed_dim must be divisible by "
                                 f"num_heads, got embed_dim={embed_dim}, num_heads={num_heads}")
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        b, s = x._data.shape[:2]
        return x.reshape([b, s, self.num_heads, self.head_dim]).transpose([0, 2, 1, 3])

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        """Attention of query over key/value (each defaults to query)."""
        if cache is not None:
            raise NotImplementedError("MultiHeadAttention: incremental decoding caches are not "
                                      "supported by oar yet")
        key = query if key is None else key
        value = query if value is None else value
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor) or t._data.ndim != 3:
                raise ArgValueError(f"MultiHeadAttention: {name} must be a 3-D Tensor "
                                    f"[batch, seq, dim], got "
                                    f"{list(t.shape) if isinstance(t, Tensor) else type(t)}")
        q = self._heads(self.q_proj(query))
        k = self._heads(self.k_proj(key))
        v = self._heads(self.v_proj(value))
        mask = _convert_attention_mask(attn_mask, q._data.dtype)
        drop = None
        if self.dropout:
            drop = lambda w: F.dropout(w, self.dropout, training=self.training)  # noqa: E731
        out, w = _A.attention(q, k, v, mask, scale=self.head_dim ** -0.5, dropout=drop,
                              safe_softmax=False, need_weights=True,
                              op="MultiHeadAttention")
        b, _, L, _ = out._data.shape
        out = self.out_proj(out.transpose([0, 2, 1, 3]).reshape([b, L, self.embed_dim]))
        return (out, w) if self.need_weights else out


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block, each with a residual connection and
    LayerNorm (before each block with normalize_before=True)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w, b = _param_attrs(weight_attr, 2), _param_attrs(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=w[0], bias_attr=b[0])
        self.linear1 = Linear(d_model, dim_feedforward, w[1], bias_attr=b[1])
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, w[1], bias_attr=b[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, src, src_mask=None, cache=None):
        """The layer applied to src [batch, seq, d_model]."""
        if cache is not None:
            raise NotImplementedError("TransformerEncoderLayer: caches are not supported by "
                                      "oar yet")
        src_mask = _convert_attention_mask(src_mask, src._data.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        src = residual + self.dropout1(self.self_attn(src, src, src, src_mask))
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src


def _activation(activation):
    fn = getattr(F, activation, None) if isinstance(activation, str) else None
    if fn is None:
        raise ArgValueError(f"activation must name a function of paddle.nn.functional "
                            f"('relu', 'gelu', ...), got {activation!r}")
    return fn


class TransformerDecoderLayer(Layer):
    """Self-attention, attention over the encoder's memory (cross_attn), then a feed-forward
    block, each with a residual connection and LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        w, b = _param_attrs(weight_attr, 3), _param_attrs(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=w[0], bias_attr=b[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                             weight_attr=w[1], bias_attr=b[1])
        self.linear1 = Linear(d_model, dim_feedforward, w[2], bias_attr=b[2])
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, w[2], bias_attr=b[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """The layer applied to tgt [batch, tgt_len, d_model], attending to memory."""
        if cache is not None:
            raise NotImplementedError("TransformerDecoderLayer: caches are not supported by "
                                      "oar yet")
        tgt_mask = _convert_attention_mask(tgt_mask, tgt._data.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory._data.dtype)
        nb = self.normalize_before
        residual = tgt
        if nb:
            tgt = self.norm1(tgt)
        tgt = residual + self.dropout1(self.self_attn(tgt, tgt, tgt, tgt_mask))
        if not nb:
            tgt = self.norm1(tgt)
        residual = tgt
        if nb:
            tgt = self.norm2(tgt)
        tgt = residual + self.dropout2(self.cross_attn(tgt, memory, memory, memory_mask))
        if not nb:
            tgt = self.norm2(tgt)
        residual = tgt
        if nb:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not nb:
            tgt = self.norm3(tgt)
        return tgt


def _stack(layer, n, kind):
    # Paddle's: the first layer is the one given; the others are new layers built from its
    # configuration (their own initial weights, not copies)
    if not isinstance(layer, kind):
        raise ArgTypeError(f"{kind.__name__[:-5]}: the layer to stack must be a "
                           f"{kind.__name__}, got {type(layer).__name__}")
    n = _args.integer(n, f"{kind.__name__[:-5]}", "num_layers")
    if n < 1:
        raise ArgValueError(f"{kind.__name__[:-5]}: num_layers must be at least 1, got {n}")
    return LayerList([layer if i == 0 else type(layer)(**layer._config) for i in range(n)])


class TransformerEncoder(Layer):
    """num_layers encoder layers (the first is encoder_layer, the rest built alike), then
    norm if given."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stack(encoder_layer, num_layers, TransformerEncoderLayer)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        """src through every layer, then norm."""
        if cache is not None:
            raise NotImplementedError("TransformerEncoder: caches are not supported by oar yet")
        src_mask = _convert_attention_mask(src_mask, src._data.dtype)
        out = src
        for mod in self.layers:
            out = mod(out, src_mask=src_mask)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Layer):
    """num_layers decoder layers (the first is decoder_layer, the rest built alike), then
    norm if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stack(decoder_layer, num_layers, TransformerDecoderLayer)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        """tgt through every layer, each attending to memory, then norm."""
        if cache is not None:
            raise NotImplementedError("TransformerDecoder: caches are not supported by oar yet")
        tgt_mask = _convert_attention_mask(tgt_mask, tgt._data.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory._data.dtype)
        out = tgt
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)
        return self.norm(out) if self.norm is not None else out


class Transformer(Layer):
    """Encoder-decoder Transformer with a LayerNorm after each stack."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        kw = dict(dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                  act_dropout=act_dropout, normalize_before=normalize_before)
        if isinstance(weight_attr, (list, tuple)) and len(weight_attr) not in (1, 2, 3):
            raise ArgValueError("weight_attr should be a list of length 1, 2 or 3")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward,
                                            weight_attr=_enc_attr(weight_attr),
                                            bias_attr=_enc_attr(bias_attr), **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward,
                                            weight_attr=_dec_attr(weight_attr),
                                            bias_attr=_dec_attr(bias_attr), **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        """decoder(tgt, encoder(src))."""
        src_mask = _convert_attention_mask(src_mask, src._data.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(tgt_mask, tgt._data.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory._data.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """A float32 [length, length] mask: -inf above the diagonal, 0 elsewhere."""
        if isinstance(length, Tensor):
            length = int(length.item())
        return wrap_as(Tensor, np.triu(np.full((length, length), -np.inf, np.float32), 1))


def _enc_attr(attr):
    # Paddle gives the encoder layers [attr[0], attr[-1]] of a 3-list (self-attention and
    # feed-forward), the decoder layers all three
    if isinstance(attr, (list, tuple)) and len(attr) == 3:
        return [attr[0], attr[2]]
    if isinstance(attr, (list, tuple)) and len(attr) == 2:
        return [attr[0], attr[1]]
    return attr


def _dec_attr(attr):
    if isinstance(attr, (list, tuple)) and len(attr) == 2:
        return [attr[0], attr[0], attr[1]]
    return attr


# Each layer hands its weight_attr/bias_attr (one, or a list with one per sublayer) to its
# Linear sublayers, which check and apply them (Note [Parameter attributes]); the layers
# themselves own no weight or bias, so the base class's per-layer wrapper is not theirs.
for _cls in (MultiHeadAttention, TransformerEncoderLayer, TransformerDecoderLayer, Transformer):
    _cls.__init__ = getattr(_cls.__init__, "__wrapped__", _cls.__init__)
del _cls
