"""nn ops that need their own kernels: conv2d (im2col through strided views plus one
matmul), pooling, pad, leaky_relu, gelu. Their backward formulas are NumPy code, so they
refuse create_graph instead of returning a silently wrong second derivative."""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..autograd import grad_mode
from ..ops import registry as R
from ..ops.pointwise import P
from ..ops.registry import OpDef
from ..tensor import Tensor


def _first_order_only(name):
    if grad_mode.is_grad_enabled():
        raise NotImplementedError(f"create_graph=True through {name} is not supported yet")


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _out_size(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _windows(xp, kh, kw, sh, sw, dh, dw, oh, ow):
    """(N, C, kh, kw, OH, OW) view of the padded input: no copy, no loop."""
    n, c = xp.shape[:2]
    s = xp.strides
    return as_strided(xp, (n, c, kh, kw, oh, ow),
                      (s[0], s[1], s[2] * dh, s[3] * dw, s[2] * sh, s[3] * sw), writeable=False)


def _pad_hw(x, ph, pw, value=0.0):
    if ph == 0 and pw == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


# ---------------------------------------------------------------- conv2d
def _conv_geom(x, w, stride, padding, dilation):
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    kh, kw = w.shape[2:]
    oh = _out_size(x.shape[2], kh, sh, ph, dh)
    ow = _out_size(x.shape[3], kw, sw, pw, dw)
    return kh, kw, sh, sw, ph, pw, dh, dw, oh, ow


def _k_conv(x, w, b, stride, padding, dilation):
    if x.ndim != 4 or w.ndim != 4 or x.shape[1] != w.shape[1]:
        raise ValueError(f"conv2d: input {list(x.shape)} (N, C, H, W) and weight "
                         f"{list(w.shape)} (O, C, kh, kw) do not match")
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = _conv_geom(x, w, stride, padding, dilation)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"conv2d: input {list(x.shape)} is too small for kernel {kh}x{kw}")
    cols = _windows(_pad_hw(x, ph, pw), kh, kw, sh, sw, dh, dw, oh, ow)
    n, c = x.shape[:2]
    # one matmul: (N*OH*OW, C*kh*kw) @ (C*kh*kw, O)
    mat = cols.transpose(0, 4, 5, 1, 2, 3).reshape(n * oh * ow, c * kh * kw)
    out = mat @ w.reshape(w.shape[0], -1).T
    if b is not None:
        out += b
    return np.ascontiguousarray(out.reshape(n, oh, ow, -1).transpose(0, 3, 1, 2))


def _b_conv(c, g):
    _first_order_only("conv2d")
    stride, padding, dilation = c.attrs
    (n, ch, h, wd), xdt = c.input_meta[0]
    wshape = c.input_meta[1][0]
    ga = g._data
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    kh, kw = wshape[2:]
    oh, ow = ga.shape[2:]
    gx = gw = gb = None
    if c.needs[1]:
        xa = c.input(0)._data
        cols = _windows(_pad_hw(xa, ph, pw), kh, kw, sh, sw, dh, dw, oh, ow)
        gw = Tensor._wrap(np.tensordot(ga, cols, axes=([0, 2, 3], [0, 4, 5])))
    if c.needs[2]:
        gb = Tensor._wrap(ga.sum(axis=(0, 2, 3)))
    if c.needs[0]:
        dcols = np.tensordot(c.input(1)._data, ga, axes=([0], [1]))   # (C, kh, kw, N, OH, OW)
        dxp = np.zeros((n, ch, h + 2 * ph, wd + 2 * pw), xdt)
        for i in range(kh):          # a loop over kernel offsets, not over positions
            for j in range(kw):
                dxp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                    j * dw:j * dw + sw * (ow - 1) + 1:sw] += dcols[:, i, j].transpose(1, 0, 2, 3)
        gx = Tensor._wrap(np.ascontiguousarray(dxp[:, :, ph:ph + h, pw:pw + wd]))
    return gx, gw, gb


CONV2D = OpDef("conv2d", _k_conv, _b_conv, save={0: (1,), 1: (0,)}, inputs=("x", "weight", "bias"),
               attrs=(("stride", (1, 1)), ("padding", (0, 0)), ("dilation", (1, 1))))


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW", name=None):
    if groups != 1:
        raise NotImplementedError("conv2d: groups != 1 is not supported yet")
    if isinstance(padding, str):
        if padding.upper() == "SAME":
            kh, kw = weight.shape[2:]
            padding = ((kh - 1) // 2, (kw - 1) // 2)
        else:
            padding = 0
    return R.dispatch(CONV2D, (x, weight, bias), (_pair(stride), _pair(padding), _pair(dilation)))


# ---------------------------------------------------------------- pooling
def _offsets(xp, kh, kw, sh, sw, oh, ow):
    """The kh*kw strided slices of xp, one per kernel offset, each of shape (N, C, OH, OW)."""
    for i in range(kh):
        for j in range(kw):
            yield i, j, xp[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]


def _k_maxpool(x, k, s, p):
    kh, kw = k
    sh, sw = s
    ph, pw = p
    oh = _out_size(x.shape[2], kh, sh, ph, 1)
    ow = _out_size(x.shape[3], kw, sw, pw, 1)
    out = None
    # whole-array maxima over the kernel offsets (a strided 6-D reduction is far slower)
    for _, _, part in _offsets(_pad_hw(x, ph, pw, -np.inf), kh, kw, sh, sw, oh, ow):
        out = part.copy() if out is None else np.maximum(out, part, out=out)
    return out


def _b_maxpool(c, g):
    _first_order_only("max_pool2d")
    x = c.input(0)._data
    out = c.out._data
    (kh, kw), (sh, sw), (ph, pw) = c.attrs
    oh, ow = out.shape[2:]
    xp = _pad_hw(x, ph, pw, -np.inf)
    dxp = np.zeros(xp.shape, x.dtype)
    ga = g._data
    taken = np.zeros(out.shape, bool)
    for i, j, part in _offsets(xp, kh, kw, sh, sw, oh, ow):
        # the gradient goes to the first maximum of each window, as in PyTorch
        hit = (part == out) & ~taken
        taken |= hit
        dxp[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw] += np.where(hit, ga, 0)
    return (Tensor._wrap(np.ascontiguousarray(dxp[:, :, ph:ph + x.shape[2], pw:pw + x.shape[3]])),)


MAXPOOL = OpDef("max_pool2d", _k_maxpool, _b_maxpool, save={0: (0,)}, save_out=(0,),
                attrs=(("kernel_size", None), ("stride", None), ("padding", (0, 0))))


def max_pool2d(x, kernel_size, stride=None, padding=0, name=None, **kw):
    k = _pair(kernel_size)
    return R.dispatch(MAXPOOL, (x,), (k, _pair(stride) if stride is not None else k, _pair(padding)))


def _k_avgpool(x, k, s, p):
    oh = _out_size(x.shape[2], k[0], s[0], p[0], 1)
    ow = _out_size(x.shape[3], k[1], s[1], p[1], 1)
    out = None
    for _, _, part in _offsets(_pad_hw(x, *p), k[0], k[1], s[0], s[1], oh, ow):
        out = part.astype(x.dtype, copy=True) if out is None else np.add(out, part, out=out)
    out /= k[0] * k[1]
    return out


def _b_avgpool(c, g):
    _first_order_only("avg_pool2d")
    (kh, kw), (sh, sw), (ph, pw) = c.attrs
    shape = c.input_meta[0][0]
    oh, ow = g._data.shape[2:]
    dxp = np.zeros((shape[0], shape[1], shape[2] + 2 * ph, shape[3] + 2 * pw), g._data.dtype)
    part = g._data / (kh * kw)
    for i in range(kh):
        for j in range(kw):
            dxp[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw] += part
    return (Tensor._wrap(np.ascontiguousarray(dxp[:, :, ph:ph + shape[2], pw:pw + shape[3]])),)


AVGPOOL = OpDef("avg_pool2d", _k_avgpool, _b_avgpool,
                attrs=(("kernel_size", None), ("stride", None), ("padding", (0, 0))))


def avg_pool2d(x, kernel_size, stride=None, padding=0, name=None, **kw):
    k = _pair(kernel_size)
    return R.dispatch(AVGPOOL, (x,), (k, _pair(stride) if stride is not None else k, _pair(padding)))


def adaptive_avg_pool2d(x, output_size, name=None):
    oh, ow = _pair(output_size)
    h, w = x.shape[2:]
    if (oh, ow) == (1, 1):
        return x.mean(axis=[2, 3], keepdim=True)
    rows = []
    for i in range(oh):
        h0, h1 = (i * h) // oh, -(-((i + 1) * h) // oh)
        cols = []
        for j in range(ow):
            w0, w1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            cols.append(x[:, :, h0:h1, w0:w1].mean(axis=[2, 3]))
        rows.append(R.FUNCTIONS["stack"](cols, axis=-1))
    return R.FUNCTIONS["stack"](rows, axis=-2)


# ---------------------------------------------------------------- pad
def _k_pad(x, widths, value):
    return np.pad(x, widths, constant_values=value)


def _b_pad(c, g):
    widths = c.attrs[0]
    key = tuple(slice(lo, g.shape[i] - hi) for i, (lo, hi) in enumerate(widths))
    return (g[key],)


PAD = OpDef("pad", _k_pad, _b_pad, attrs=(("widths", None), ("value", 0.0)))


def pad(x, pad, mode="constant", value=0.0, data_format=None, name=None):
    """`pad` lists (before, after) pairs starting from the LAST dim, as in PyTorch; a pad of
    2*ndim entries in Paddle's full form (first dim first) is accepted too."""
    if mode != "constant":
        raise NotImplementedError(f"pad: mode {mode!r} is not supported yet (constant only)")
    pad = list(pad)
    nd = x.ndim
    widths = [(0, 0)] * nd
    for i in range(len(pad) // 2):
        widths[nd - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return R.dispatch(PAD, (x,), (tuple(widths), value))


# ---------------------------------------------------------------- activations
def _k_leaky(out, rdt, x, slope):
    if out is None:
        return np.where(x > 0, x, x * slope).astype(rdt, copy=False)
    np.multiply(x, np.where(x > 0, 1, slope).astype(rdt), out=out, dtype=rdt)
    return out


# backward from the result: out > 0 exactly where x > 0 (slope > 0), so leaky_relu_ is legal
LEAKY = P("leaky_relu", _k_leaky,
          lambda c, g: (g * R.FUNCTIONS["where"](c.out > 0, 1.0, c.attrs[0]),), save_out=(0,),
          attrs=(("negative_slope", 0.01),), method=False)


def _erf(x):
    # Abramowitz & Stegun 7.1.26 is not accurate enough for float64 gradchecks: use math.erf
    return np.vectorize(math.erf, otypes=[np.float64])(x) if x.size < 4096 else _erf_fast(x)


def _erf_fast(x):
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
             + 0.254829592) * t * np.exp(-x * x)
    return np.sign(x) * y


def _k_gelu(out, rdt, x, approximate):
    if approximate:
        r = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    else:
        r = 0.5 * x * (1 + _erf(x / math.sqrt(2)))
    r = r.astype(rdt, copy=False)
    if out is None:
        return r
    out[...] = r
    return out


def _b_gelu(c, g):
    x = c.input(0)
    if c.attrs[0]:
        k = math.sqrt(2 / math.pi)
        inner = (x + x * x * x * 0.044715) * k
        t = inner.tanh()
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + x * x * 3 * 0.044715)
        return (g * d,)
    _first_order_only("gelu (exact)")
    cdf = Tensor._wrap((0.5 * (1 + _erf(x._data / math.sqrt(2)))).astype(x._data.dtype))
    pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
    return (g * (cdf + x * pdf),)


GELU = P("gelu", _k_gelu, _b_gelu, save={0: (0,)}, attrs=(("approximate", False),), method=False,
         inplace=False)
