"""nn ops that need their own kernels: conv2d (im2col through strided views plus one
matmul), pooling, pad, leaky_relu, gelu. Their backward formulas are NumPy code, so they
refuse create_graph instead of returning a silently wrong second derivative."""
from __future__ import annotations

import math

import numpy as np

from .. import _xp
from numpy.lib.stride_tricks import as_strided

from .._xp import array_module as _m

from ..autograd import grad_mode
from ..ops import args as _args
from ..ops import registry as R
from ..ops.pointwise import _no_kernel, pointwise_op
from ..ops.registry import OpDef
from ..tensor import Tensor
from . import _checks as _c


def _check_conv_operands(x, xs, weight, ws, bias, g, op):
    """PyTorch's checks of a convolution's groups, channels, dtypes and bias (every rank)."""
    if ws[0] % g:
        raise _c.ArgValueError(
            f"{op}: Given groups={g}, expected weight to be divisible by {g} at dimension 0, "
            f"but got weight of size {_c.shape_str(ws)} instead")
    if xs[1] != ws[1] * g:
        raise _c.ArgValueError(
            f"{op}: Given groups={g}, weight of size {_c.shape_str(ws)}, expected input"
            f"{_c.shape_str(xs)} to have {ws[1] * g} channels, but got {xs[1]} channels instead")
    _c.floating_like(x, weight, op)
    if bias is not None:
        _input(bias, op, "bias")
        _c.floating_like(x, bias, op, "bias")
        if bias._data.shape != (ws[0],):
            raise _c.ArgValueError(f"{op}: bias must have shape [{ws[0]}], got "
                                   f"{_c.shape_str(bias._data.shape)}")


def _first_order_only(name):
    if grad_mode.is_grad_enabled():
        raise NotImplementedError(f"create_graph=True through {name} is not supported yet")


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _out_size(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _window_view(xp, shape, strides):
    """A read-only strided view of xp (im2col windows): no copy, no loop. np.ndarray over a
    contiguous buffer is ten times cheaper than as_strided and checks the extent in C."""
    if xp.__class__ is not np.ndarray:   # a device array (Note [Array module per place])
        return _m(xp).lib.stride_tricks.as_strided(xp, shape, strides)
    if xp.flags.c_contiguous:
        v = np.ndarray(shape, xp.dtype, xp, 0, strides)
        v.flags.writeable = False
        return v
    return as_strided(xp, shape, strides, writeable=False)


# ---------------------------------------------------------------- conv2d
def _conv_geom(x, w, stride, padding, dilation):
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    kh, kw = w.shape[2:]
    oh = _out_size(x.shape[2], kh, sh, ph, dh)
    ow = _out_size(x.shape[3], kw, sw, pw, dw)
    return kh, kw, sh, sw, ph, pw, dh, dw, oh, ow


# Note [Conv layouts]
# conv2d is im2col plus one matmul; its cost outside the matmul is NumPy's strided copies
# and adds, which pay per inner loop, so the column matrix is laid out to make the innermost
# copied run long. Two layouts compute the same sums for every stride, padding and dilation
# (the choice is speed only, _channels_last):
#   "nchw": cols is (C*kh*kw, N*OH*OW); its innermost run is one output row (OW elements),
#     and the (N, C) <-> (C, N) transposes move whole H*W planes. Best for few channels.
#   "nhwc": the input is moved to channels-last once; cols is (N*OH*OW, kh*kw*C) with runs
#     of kw*C elements (C when dilated along W). Best for many channels (the deeper layers).
# _channels_last takes "nhwc" when its runs are more than twice as long as the rows. Measured
# on 3x3 convs (forward + backward, one thread): 16->32 channels on 32x32 images (runs of 48,
# 1.5 rows) ran 10% faster in "nchw"; 16->32 on 16x16 (3 rows) 20% faster in "nhwc", and the
# main job's 16->32 on 4x4 2.5x faster; at 24 and 32 channels on 32x32 the two were within 4%.
# The backward recomputes cols (nothing but the inputs is saved, so memory is unchanged),
# and scatters the column gradient back with one strided add per kernel offset (never per
# position); in "nhwc" one batched matmul makes each offset's slice of it contiguous.
def _channels_last(c, kw, dw, ow):
    return c * (kw if dw == 1 else 1) > 2 * ow


# Note [N-d convolution]
# The "nchw" layout (Note [Conv layouts]) does not depend on the number of spatial dims:
# cols is (C*prod(k), N*prod(out)), one strided window view of the zero-padded input, and the
# backward scatters the column gradient back with one strided add per kernel offset. conv3d
# (and conv_transpose3d, its adjoint) run this one code for any rank; conv2d also takes it
# whenever the channels-last layout is not faster, and conv1d is conv2d of a height-1 image.
def _cols_nd(x, k, s, p, d, o):
    """(C*prod(k), N*prod(o)) columns of x (N, C, *spatial), padded with zeros."""
    n, c = x.shape[:2]
    sp = x.shape[2:]
    if any(p):
        xp = _m(x).zeros((n, c) + tuple(m + 2 * q for m, q in zip(sp, p)), x.dtype)
        xp[(slice(None), slice(None)) + tuple(slice(q, q + m) for m, q in zip(sp, p))] = x
    else:
        xp = x
    st = xp.strides
    nd = len(sp)
    cols = _m(x).empty((c,) + tuple(k) + (n,) + tuple(o), x.dtype)
    np.copyto(cols, _window_view(xp, cols.shape,
                                 (st[1],) + tuple(st[2 + i] * d[i] for i in range(nd)) + (st[0],)
                                 + tuple(st[2 + i] * s[i] for i in range(nd))))
    return cols.reshape(c * math.prod(k), n * math.prod(o))


def _conv_grads_nd(xa, wa, ga, needs, xshape, xdt, wshape, k, s, p, d):
    """(gx, gw, gb) of one ungrouped convolution of any rank, "nchw" layout (Note [N-d
    convolution])."""
    n, ch = xshape[:2]
    sp = tuple(xshape[2:])
    nd = len(sp)
    o = wshape[0]
    osz = tuple(ga.shape[2:])
    gx = gw = gb = None
    perm = (1, 0) + tuple(range(2, nd + 2))
    gt = _xp.ascontiguousarray(ga.transpose(perm)).reshape(o, -1)       # (O, M)
    if needs[1]:
        q = math.prod(osz)        # Note [Conv in chunks]
        gw = _sum_chunks(n, q * ch * math.prod(k) * xa.itemsize, lambda c: (
            gt[:, c.start * q:c.stop * q], _cols_nd(xa[c], k, s, p, d, osz).T))
        gw = gw.reshape((o, ch) + tuple(k))
    if needs[2]:
        gb = gt @ _m(gt).ones(gt.shape[1], gt.dtype)
    if needs[0]:
        dcols = (wa.reshape(o, -1).T @ gt).reshape((ch,) + tuple(k) + (n,) + osz)
        dxp = _m(ga).zeros((ch, n) + tuple(m + 2 * q for m, q in zip(sp, p)), xdt)
        for off in np.ndindex(*k):      # a loop over kernel offsets, not over positions
            dxp[(slice(None), slice(None)) + tuple(
                slice(off[i] * d[i], off[i] * d[i] + s[i] * (osz[i] - 1) + 1, s[i])
                for i in range(nd))] += dcols[(slice(None),) + off]
        gx = dxp[(slice(None), slice(None)) + tuple(slice(q, q + m) for m, q in zip(sp, p))
                 ].transpose(perm)
    return gx, gw, gb


def _cols_nhwc(x, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow):
    """(N*OH*OW, kh*kw*C) columns of NCHW x moved to channels-last and padded with zeros."""
    n, c, h, wd = x.shape
    xp = _m(x).zeros((n, h + 2 * ph, wd + 2 * pw, c), x.dtype)
    xp[:, ph:ph + h, pw:pw + wd] = x.transpose(0, 2, 3, 1)
    s = xp.strides
    cols = _m(x).empty((n, oh, ow, kh, kw, c), x.dtype)
    np.copyto(cols, _window_view(xp, cols.shape, (s[0], s[1] * sh, s[2] * sw, s[1] * dh,
                                                  s[2] * dw, s[3])))
    return cols.reshape(n * oh * ow, kh * kw * c)


# Note [Conv in chunks]
# The column matrix (either layout, any rank) is prod(kernel) times the input (9x for 3x3):
# built whole, it leaves the caches before the matmul reads it back. The forward and the
# weight gradient therefore build it a few images at a time (_image_chunks: at most
# _CHUNK_BYTES of columns, at least one image), so each chunk is read back from cache, and
# the scratch is one chunk instead of the whole matrix. Forward results land in their slice
# of one result ((M, O) rows, or (O, M) columns, by matmul out=); weight-gradient chunks are
# summed into one (O, K) array (_sum_chunks). Small images make one chunk, which is the
# unchunked computation.
_CHUNK_BYTES = 1 << 20


def _image_chunks(n, per_image):
    """Slices of the batch, each with at most _CHUNK_BYTES of columns (at least one image);
    an empty batch is one empty slice, so the callers still make their (empty) results."""
    step = max(1, _CHUNK_BYTES // max(per_image, 1))
    return [slice(s, min(s + step, n)) for s in range(0, max(n, 1), step)]


def _sum_chunks(n, per_image, factors):
    """The sum over chunks of images c of a @ b, (a, b) = factors(c): a weight gradient
    (Note [Conv in chunks])."""
    acc = part = None
    for c in _image_chunks(n, per_image):
        part = np.matmul(*factors(c), out=part)
        acc = part.copy() if acc is None else np.add(acc, part, out=acc)
    return acc


def _gemm_cols(x, wm, k, s, p, d, osz):
    """wm (O, C*prod(k)) @ the "nchw" columns of x (Note [N-d convolution]), built per chunk
    of images (Note [Conv in chunks]): (O, N*prod(osz))."""
    n, o, q = x.shape[0], wm.shape[0], math.prod(osz)
    out = _m(x).empty((o, n * q), x.dtype)
    for c in _image_chunks(n, q * wm.shape[1] * x.itemsize):
        np.matmul(wm, _cols_nd(x[c], k, s, p, d, osz), out=out[:, c.start * q:c.stop * q])
    return out


def _k_conv(x, w, b, stride, padding, dilation, groups=1):
    if groups == 1:
        return _conv_one(x, w, b, stride, padding, dilation)
    # Note [Grouped conv]: one im2col + matmul per group, channel slices of x and weight
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    return np.concatenate([_conv_one(x[:, i * cg:(i + 1) * cg], w[i * og:(i + 1) * og],
                                     None if b is None else b[i * og:(i + 1) * og],
                                     stride, padding, dilation) for i in range(groups)], axis=1)


def _conv_one(x, w, b, stride, padding, dilation):
    if x.ndim != 4 and x.ndim == w.ndim and x.shape[1] == w.shape[1]:
        return _conv_one_nd(x, w, b, stride, padding, dilation)
    if x.ndim != 4 or w.ndim != 4 or x.shape[1] != w.shape[1]:
        raise ValueError(f"conv2d: input {list(x.shape)} (N, C, H, W) and weight "
                         f"{list(w.shape)} (O, C, kh, kw) do not match")
    kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom = _conv_geom(x, w, stride, padding, dilation)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"conv2d: input {list(x.shape)} is too small for kernel {kh}x{kw}")
    n, c = x.shape[:2]
    o = w.shape[0]
    if _channels_last(c, kw, dw, ow):      # Note [Conv layouts]
        wm, p = w.transpose(2, 3, 1, 0).reshape(-1, o), oh * ow
        out = _m(x).empty((n * p, o), x.dtype)                                    # (M, O)
        for s in _image_chunks(n, p * kh * kw * c * x.itemsize):   # Note [Conv in chunks]
            np.matmul(_cols_nhwc(x[s], *geom), wm, out=out[s.start * p:s.stop * p])
        out = out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2)
    else:
        out = _gemm_cols(x, w.reshape(o, -1), (kh, kw), stride, padding, dilation, (oh, ow))
        out = out.reshape(o, n, oh, ow).transpose(1, 0, 2, 3)
    if b is None:
        return _xp.ascontiguousarray(out)
    # the bias rides on the copy into NCHW order (one pass, not two)
    return np.add(out, b[:, None, None], out=_m(out).empty(out.shape, out.dtype))


def _conv_one_nd(x, w, b, stride, padding, dilation):
    """One ungrouped convolution of any rank (Note [N-d convolution])."""
    k = w.shape[2:]
    osz = tuple(_out_size(x.shape[2 + i], k[i], stride[i], padding[i], dilation[i])
                for i in range(len(k)))
    if min(osz) <= 0:
        raise ValueError(f"conv: input {list(x.shape)} is too small for kernel {list(k)}")
    n, o = x.shape[0], w.shape[0]
    out = _gemm_cols(x, w.reshape(o, -1), k, stride, padding, dilation, osz).reshape(
        (o, n) + osz).transpose((1, 0) + tuple(range(2, len(k) + 2)))
    if b is None:
        return _xp.ascontiguousarray(out)
    return np.add(out, b.reshape((-1,) + (1,) * len(k)), out=_m(out).empty(out.shape, out.dtype))


# Note [Grouped conv]
# groups=G splits the input channels and the output channels (the weight's dim 0) into G
# equal, consecutive slices; output slice i is the convolution of input slice i with weight
# slice i (PyTorch's grouped convolution). The kernel and the backward run the ungrouped
# code once per group and concatenate: gradients of x along dim 1, of weight and bias along
# dim 0.
def _b_conv(c, g):
    _first_order_only(c.op.name)
    stride, padding, dilation, groups = c.attrs
    wa = c.input(1)._data if c.needs[0] else None
    xa = c.input(0)._data if c.needs[1] else None
    res = _conv_backward(xa, wa, g._data, c.needs, *c.input_meta[0], c.input_meta[1][0], stride,
                         padding, dilation, groups)
    return tuple(None if a is None else Tensor._wrap(_xp.ascontiguousarray(a)) for a in res)


def _conv_backward(xa, wa, ga, needs, xshape, xdt, wshape, stride, padding, dilation, groups):
    """(gx, gw, gb) arrays of a grouped convolution (Note [Grouped conv])."""
    n, ch = xshape[:2]
    if groups == 1:
        return _conv_grads(xa, wa, ga, needs, xshape, xdt, wshape, stride, padding, dilation)
    cg, og = ch // groups, wshape[0] // groups
    parts = [_conv_grads(None if xa is None else xa[:, i * cg:(i + 1) * cg],
                         None if wa is None else wa[i * og:(i + 1) * og],
                         ga[:, i * og:(i + 1) * og], needs, (n, cg) + tuple(xshape[2:]), xdt,
                         (og,) + tuple(wshape[1:]), stride, padding, dilation)
             for i in range(groups)]
    return tuple(None if parts[0][k] is None else
                 np.concatenate([p[k] for p in parts], axis=1 if k == 0 else 0)
                 for k in range(3))


def _conv_grads(xa, wa, ga, needs, xshape, xdt, wshape, stride, padding, dilation):
    """(gx, gw, gb) arrays of one (ungrouped) convolution (Note [Conv layouts])."""
    if len(xshape) != 4:
        return _conv_grads_nd(xa, wa, ga, needs, xshape, xdt, wshape, wshape[2:], stride,
                              padding, dilation)
    n, ch, h, wd = xshape
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    o, _, kh, kw = wshape
    oh, ow = ga.shape[2:]
    geom = (kh, kw, sh, sw, ph, pw, dh, dw, oh, ow)
    gx = gw = gb = None
    if _channels_last(ch, kw, dw, ow):      # Note [Conv layouts]
        gt = _xp.ascontiguousarray(ga.transpose(0, 2, 3, 1)).reshape(-1, o)       # (M, O)
        if needs[1]:
            p = oh * ow       # Note [Conv in chunks]
            gw = _sum_chunks(n, p * kh * kw * ch * xa.itemsize, lambda c: (
                gt[c.start * p:c.stop * p].T, _cols_nhwc(xa[c], *geom)))
            gw = gw.reshape(o, kh, kw, ch).transpose(0, 3, 1, 2)
        if needs[2]:
            gb = _m(gt).ones(gt.shape[0], gt.dtype) @ gt     # a BLAS sum: 5x np.sum over axis 0
        if needs[0]:
            # (kh*kw, M, C): the column gradient of each kernel offset is contiguous
            dcols = np.matmul(gt, wa.transpose(2, 3, 0, 1).reshape(kh * kw, o, ch))
            dxp = _m(ga).zeros((n, h + 2 * ph, wd + 2 * pw, ch), xdt)
            for i in range(kh):          # a loop over kernel offsets, not over positions
                for j in range(kw):
                    dxp[:, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                        j * dw:j * dw + sw * (ow - 1) + 1:sw] += dcols[i * kw + j].reshape(n, oh, ow, ch)
            gx = dxp[:, ph:ph + h, pw:pw + wd].transpose(0, 3, 1, 2)
        return gx, gw, gb
    # "nchw": the layout of every rank (Note [N-d convolution])
    return _conv_grads_nd(xa, wa, ga, needs, xshape, xdt, wshape, (kh, kw), stride, padding,
                          dilation)


CONV2D = OpDef("conv2d", _k_conv, _b_conv, needs={"x": ("weight",), "weight": ("x",)}, inputs=("x", "weight", "bias"),
               attrs=(("stride", (1, 1)), ("padding", (0, 0)), ("dilation", (1, 1)),
                      ("groups", 1)),
               doc="2-D (grouped, Note [Grouped conv]) convolution (cross-correlation) of an NCHW input with a weight, plus bias.")


# PyTorch's conv1d is its own convolution (ConvolutionBackward0), not a view of a 2-D one:
# the op runs CONV2D's kernel and backward on height-1 views of its arrays.
def _k_conv1d(x, w, b, stride, padding, dilation, groups=1):
    return _xp.ascontiguousarray(_k_conv(x[:, :, None], w[:, :, None], b, (1, stride),
                                        (0, padding), (1, dilation), groups)[:, :, 0])


def _b_conv1d(c, g):
    _first_order_only("conv1d")
    stride, padding, dilation, groups = c.attrs
    (n, ch, length), xdt = c.input_meta[0]
    o, ci, k = c.input_meta[1][0]
    wa = c.input(1)._data[:, :, None] if c.needs[0] else None
    xa = c.input(0)._data[:, :, None] if c.needs[1] else None
    gx, gw, gb = _conv_backward(xa, wa, g._data[:, :, None], c.needs, (n, ch, 1, length), xdt,
                                (o, ci, 1, k), (1, stride), (0, padding), (1, dilation), groups)
    return tuple(None if a is None else Tensor._wrap(_xp.ascontiguousarray(a))
                 for a in (None if gx is None else gx[:, :, 0],
                           None if gw is None else gw[:, :, 0], gb))


CONV1D = OpDef("conv1d", _k_conv1d, _b_conv1d, needs={"x": ("weight",), "weight": ("x",)},
               inputs=("x", "weight", "bias"),
               attrs=(("stride", 1), ("padding", 0), ("dilation", 1), ("groups", 1)),
               node_name="ConvolutionBackward0",
               doc="1-D (grouped) convolution (cross-correlation) of an NCL input, plus bias.")


def _input(x, op, name="input"):
    if not isinstance(x, Tensor):
        raise _c.ArgTypeError(f"{op}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _batched(x, op):
    """NCHW input, or CHW (unbatched, as PyTorch): returns (4-D x, was_unbatched)."""
    nd = x._data.ndim
    if nd == 4:
        return x, False
    if nd == 3:
        return x.unsqueeze(0), True
    raise _c.ArgValueError(f"{op}: Expected 3D (unbatched) or 4D (batched) input, but got "
                           f"input of size: {_c.shape_str(x._data.shape)}. Fix: reshape it to "
                           "[N, C, H, W]")


# Note [Two rules for padding='same']
# The doors disagree on padding='same'. PyTorch pads by dilation * (kernel - 1) in total (the
# odd one at the end) and refuses a stride > 1. Paddle 3.3.1 follows TensorFlow's SAME: the
# output has ceil(in / stride) positions, the input is padded by
# max((out - 1) * stride + kernel - in, 0) in total, half of it (rounded down) at the start,
# and the dilation is dropped (measured: SAME with dilation 2 gives the same numbers as with
# dilation 1). With a stride the padding depends on the input's size, so the parsers
# (conv_args, conv_args_nd) return the padding "same" and extra None, and conv2d / conv3d
# work it out from the input (_same_pads). rule="torch" is the default of the kernels (the
# PyTorch door calls them as they are); the Paddle door's functional entry points pass
# rule="paddle", and the core layers pass their class's _same_rule, which the PyTorch door's
# conv layers set to "torch".

def _same_pads(sizes, kernel, stride):
    """Paddle's SAME for input sizes: (start padding, extra end padding) per spatial dim
    (Note [Two rules for padding='same'])."""
    pd, extra = [], []
    for n, k, s in zip(sizes, kernel, stride):
        out = -(-n // s)
        tot = max((out - 1) * s + k - n, 0)
        pd.append(tot // 2)
        extra.append(tot - 2 * (tot // 2))
    return tuple(pd), tuple(extra)


def conv_args(weight_shape, stride, padding, dilation, groups, op="conv2d", rule="torch"):
    """Parse conv2d's configuration once: ((sh, sw), (lh, lw), (eh, ew), (dh, dw), groups)
    where l is the symmetric padding and e an extra bottom/right padding ('same' with an
    even kernel); under Paddle's rule with a stride, l is "same" and e None (Note [Two rules
    for padding='same'])."""
    g = _c.count(groups, op, "groups", 1)
    st = _c.pair(stride, op, "stride", 1)
    dil = _c.pair(dilation, op, "dilation", 1)
    extra = (0, 0)
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            pd = (0, 0)
        elif mode == "same" and rule == "paddle":
            dil = (1, 1)
            if st != (1, 1):
                return st, "same", None, dil, g
            kh, kw = weight_shape[2:]
            pd = ((kh - 1) // 2, (kw - 1) // 2)
            extra = (kh - 1 - 2 * pd[0], kw - 1 - 2 * pd[1])
        elif mode == "same":
            if st != (1, 1):
                raise _c.ArgValueError(f"{op}: padding='same' is not supported for strided "
                                       f"convolutions (stride={list(st)})")
            kh, kw = weight_shape[2:]
            th, tw = dil[0] * (kh - 1), dil[1] * (kw - 1)
            pd = (th // 2, tw // 2)
            extra = (th - 2 * pd[0], tw - 2 * pd[1])   # PyTorch puts the odd one at the end
        else:
            raise _c.ArgValueError(f"{op}: Invalid padding string {padding!r}, should be one "
                                   "of {'valid', 'same'} (or an int / a pair of ints)")
    else:
        pd = _c.pair(padding, op, "padding", 0)
    return st, pd, extra, dil, g


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW",
           name=None, *, _parsed=None, _one_d=False, _rule="torch"):
    """2-D convolution (cross-correlation) of NCHW x with weight, plus bias. (_one_d: x is
    NCL, weight [O, C, k] and the configuration that of a height-1 image: conv1d's op.)"""
    op = "conv1d" if _one_d else "conv2d"
    if data_format != "NCHW":
        raise NotImplementedError(f"{op}: data_format {data_format!r} is not supported (NCHW only)")
    _input(x, op)
    _input(weight, op, "weight")
    if weight._data.ndim != 4 - _one_d:
        raise _c.ArgValueError(f"{op}: weight must be 4-D [out_channels, in_channels, kh, kw], "
                               f"got {_c.shape_str(weight._data.shape)}")
    # the 2-D shapes (a height-1 image for conv1d)
    h1 = (lambda sh: sh[:-1] + (1,) + sh[-1:]) if _one_d else (lambda sh: sh)
    ws = h1(weight._data.shape)
    st, pd, extra, dil, g = _parsed or conv_args(ws, stride, padding, dilation, groups,
                                                 rule=_rule)
    if _one_d:
        unbatched = x._data.ndim == 2
        x = x.unsqueeze(0) if unbatched else x
    else:
        x, unbatched = _batched(x, op)
    xs = h1(x._data.shape)
    _check_conv_operands(x, xs, weight, ws, bias, g, op)
    if extra is None:       # Note [Two rules for padding='same']
        pd, extra = _same_pads(xs[2:], ws[2:], st)
    if extra != (0, 0):
        x = pad(x, [0, extra[1]] if _one_d else [0, extra[1], 0, extra[0]])
        xs = h1(x._data.shape)
    hh, ww = xs[2] + 2 * pd[0], xs[3] + 2 * pd[1]
    kh, kw = dil[0] * (ws[2] - 1) + 1, dil[1] * (ws[3] - 1) + 1
    if hh < kh or ww < kw:
        raise _c.ArgValueError(
            f"{op}: Calculated padded input size per channel: ({hh} x {ww}). Kernel size: "
            f"({kh} x {kw}). Kernel size can't be greater than actual input size")
    if _one_d:
        out = R.dispatch(CONV1D, (x, weight, bias), (st[1], pd[1], dil[1], g))
    else:
        out = R.dispatch(CONV2D, (x, weight, bias), (st, pd, dil, g))
    return out.squeeze(0) if unbatched else out


def _ntuple(value, op, name, minimum, nd):
    """An int or nd ints (a 1-element list repeats), each >= minimum."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = value[0]
        elif len(value) != nd:
            raise _c.ArgValueError(f"{op}: {name} must be an int or a tuple of {nd} ints, got "
                                   f"{list(value)}")
    v = tuple(_args.integer(a, op, name) for a in value) if isinstance(value, (list, tuple)) \
        else (_args.integer(value, op, name),) * nd
    if min(v) < minimum:
        what = "positive" if minimum == 1 else "non-negative"
        raise _c.ArgValueError(f"{op}: {name} must be {what}, got {value!r}")
    return v


def conv_args_nd(weight_shape, stride, padding, dilation, groups, op, nd, rule="torch"):
    """conv_args for nd spatial dims: (stride, padding, extra end padding, dilation, groups),
    the first four nd-tuples (padding "same" and extra None: Note [Two rules for
    padding='same'])."""
    g = _c.count(groups, op, "groups", 1)
    st = _ntuple(stride, op, "stride", 1, nd)
    dil = _ntuple(dilation, op, "dilation", 1, nd)
    extra = (0,) * nd
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            pd = (0,) * nd
        elif mode == "same" and rule == "paddle":
            dil = (1,) * nd
            if st != (1,) * nd:
                return st, "same", None, dil, g
            pd, extra = _same_pads((1,) * nd, weight_shape[2:], st)
        elif mode == "same":
            if st != (1,) * nd:
                raise _c.ArgValueError(f"{op}: padding='same' is not supported for strided "
                                       f"convolutions (stride={list(st)})")
            tot = tuple(dil[i] * (weight_shape[2 + i] - 1) for i in range(nd))
            pd = tuple(t // 2 for t in tot)
            extra = tuple(t - 2 * q for t, q in zip(tot, pd))   # the odd one at the end
        else:
            raise _c.ArgValueError(f"{op}: Invalid padding string {padding!r}, should be one "
                                   "of {'valid', 'same'} (or an int / a tuple of ints)")
    else:
        pd = _ntuple(padding, op, "padding", 0, nd)
    return st, pd, extra, dil, g


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, _parsed=None,
           op="conv3d", _rule="torch"):
    """3-D convolution (cross-correlation) of NCDHW (or unbatched CDHW) x with weight
    [O, C / groups, kd, kh, kw], plus bias (Note [N-d convolution])."""
    nd = 3
    _input(x, op)
    _input(weight, op, "weight")
    if weight._data.ndim != nd + 2:
        raise _c.ArgValueError(f"{op}: weight must be 5-D [out_channels, in_channels / groups, "
                               f"kd, kh, kw], got {_c.shape_str(weight._data.shape)}")
    if x._data.ndim not in (nd + 1, nd + 2):
        raise _c.ArgValueError(f"{op}: Expected 4D (unbatched) or 5D (batched) input to "
                               f"{op}, but got input of size: {_c.shape_str(x._data.shape)}")
    ws = weight._data.shape
    st, pd, extra, dil, g = _parsed or conv_args_nd(ws, stride, padding, dilation, groups, op,
                                                    nd, _rule)
    unbatched = x._data.ndim == nd + 1
    x = x.unsqueeze(0) if unbatched else x
    xs = x._data.shape
    _check_conv_operands(x, xs, weight, ws, bias, g, op)
    if extra is None:       # Note [Two rules for padding='same']
        pd, extra = _same_pads(xs[2:], ws[2:], st)
    if any(extra):
        x = pad(x, [v for e in reversed(extra) for v in (0, e)])
        xs = x._data.shape
    padded = [xs[2 + i] + 2 * pd[i] for i in range(nd)]
    eff = [dil[i] * (ws[2 + i] - 1) + 1 for i in range(nd)]
    if any(a < b for a, b in zip(padded, eff)):
        raise _c.ArgValueError(
            f"{op}: Calculated padded input size per channel: ({' x '.join(map(str, padded))})."
            f" Kernel size: ({' x '.join(map(str, eff))}). Kernel size can't be greater than "
            "actual input size")
    out = R.dispatch(CONV3D, (x, weight, bias), (st, pd, dil, g))
    return out.squeeze(0) if unbatched else out


# ---------------------------------------------------------------- pooling
# max_pool2d, avg_pool2d and their configuration parsers live in _pool.py (imported at the
# end of this module, which _pool imports its helpers from).

def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """2-D average pooling of NCHW x to output_size."""
    op = "adaptive_avg_pool2d"
    _input(x, op)
    given = x
    x, unbatched = _batched(x, op)
    h, w = x._data.shape[2:]
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * 2
    if len(sizes) != 2:
        raise _c.ArgValueError(f"{op}: output_size must be an int or a pair, got {output_size!r}")
    oh, ow = (d if v is None else _args.integer(v, op, "output_size")
              for v, d in zip(sizes, (h, w)))
    if oh < 0 or ow < 0:
        raise _c.ArgValueError(f"{op}: elements of output_size must be greater than or equal "
                               f"to 0 but received {output_size!r}")
    if (h == 0 or w == 0) and (oh or ow):
        raise _c.ArgValueError(f"{op}: input of size {_c.shape_str(x._data.shape)} has an "
                               "empty spatial dimension")
    if oh == 0 or ow == 0:
        out = x[:, :, :oh, :ow] * 1.0
    elif (oh, ow) == (1, 1):   # PyTorch's mean (MeanBackward1), Note [Adaptive average pooling]
        out = x.mean(axis=[2, 3], keepdim=True)
    else:
        if x._data.dtype.kind != "f":   # PyTorch has floating kernels only
            _no_kernel(op, op, x._data.dtype, "cast the input to a floating dtype first")
        # one op on the input as given (3-D too): Note [Adaptive average pooling]
        return R.dispatch(ADAPTIVE_AVG_POOL2D, (given,), ((oh, ow),))
    return out.squeeze(0) if unbatched else out


# ---------------------------------------------------------------- pad
# PyTorch's constant_pad_nd: a negative width crops the input first (narrow), then the
# positive widths pad; one op (ConstantPadNdBackward0) whose backward crops the gradient
# back and pads it with zeros where the input was cropped.
def _k_pad(x, widths, value):
    x = x[tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(x.shape, widths))]
    return np.pad(x, tuple((max(lo, 0), max(hi, 0)) for lo, hi in widths),
                  constant_values=value)


def _b_pad(c, g):
    widths = c.attrs[0]
    g = g[tuple(slice(max(lo, 0), n - max(hi, 0)) for n, (lo, hi) in zip(g.shape, widths))]
    cropped = tuple((max(-lo, 0), max(-hi, 0)) for lo, hi in widths)
    if any(lo or hi for lo, hi in cropped):
        g = R.dispatch(PAD, (g,), (cropped, 0.0))
    return (g,)


PAD = OpDef("pad", _k_pad, _b_pad, attrs=(("widths", None), ("value", 0.0)),
            doc="x padded with a constant value.")
PAD.complex_grad = True   # linear: Note [Complex autograd], tests/test_complex_autograd2.py


class PadModeError(_c.ArgValueError, NotImplementedError):
    """PyTorch raises NotImplementedError for a padding it has no kernel for."""


def pad(x, pad, mode="constant", value=0.0, data_format=None, name=None):
    """`pad` lists (before, after) pairs starting from the LAST dim, as in PyTorch (for NCHW
    input Paddle's [left, right, top, bottom] is the same list). Negative entries crop.
    mode 'reflect', 'replicate' and 'circular' pad 1, 2 or 3 trailing dims of a batched or
    unbatched input (len(pad) // 2 dims of an input of that many + 1 or + 2 dims, PyTorch's
    rule; Note [Index padding]); value=None means 0."""
    op = "pad"
    _input(x, op)
    modes = ("constant", "reflect", "replicate", "circular")
    if mode not in modes:
        raise NotImplementedError(f"{op}: Unrecognised padding mode {mode}; use one of "
                                  f"{list(modes)}")     # PyTorch's class and words
    if isinstance(pad, Tensor):
        pad = pad.tolist()
    if not isinstance(pad, (list, tuple)):
        raise _c.ArgTypeError(f"{op}: pad must be a list of ints, got {type(pad).__name__}")
    pad = [_args.integer(v, op, "pad") for v in pad]
    nd = x._data.ndim
    if len(pad) % 2:
        raise _c.ArgValueError(f"{op}: Padding length must be divisible by 2, got {len(pad)}")
    if len(pad) // 2 > nd:
        raise _c.ArgValueError(f"{op}: Padding length should be less than or equal to two "
                               f"times the input dimension ({nd}), got {len(pad)}")
    widths = [(0, 0)] * nd
    for i in range(len(pad) // 2):
        widths[nd - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if mode != "constant":
        if value is not None and value != 0:
            raise _c.ArgValueError(f'{op}: Padding mode "{mode}" doesn\'t take in value '
                                   f"argument (got value={value!r})")
        k = len(pad) // 2
        if not (1 <= k <= 3 and nd in (k + 1, k + 2)):
            raise PadModeError(
                f"{op}: Padding size {len(pad)} is not supported for {nd}D input tensor: mode "
                f"{mode!r} pads len(pad) // 2 = {k} trailing dims (1 to 3) of an input with "
                f"{k + 1} or {k + 2} dims, got input {_c.shape_str(x._data.shape)}")
        return index_pad(x, widths, mode, op, k)
    value = _args.number(0.0 if value is None else value, op, "value")
    for d, (lo, hi) in enumerate(widths):
        if x._data.shape[d] - max(-lo, 0) - max(-hi, 0) < 0:
            raise _c.ArgValueError(f"{op}: the negative padding in {list(pad)} crops more than "
                                   f"the {x._data.shape[d]} elements of dimension {d} of input "
                                   f"{_c.shape_str(x._data.shape)}")
    return R.dispatch(PAD, (x,), (tuple(widths), value))


# ---------------------------------------------------------------- embedding (PyTorch's)
# Note [Embedding op]
# PyTorch's embedding is weight.index_select(0, indices) with its own backward
# (embedding_dense_backward): each index's gradient row is added into the weight's gradient,
# rows of padding_idx get none (the forward still reads that row as it is: Paddle's
# embedding zeroes it instead), and with scale_grad_by_freq each row is divided by how often
# its index occurs in this batch. The indices are an attr (never differentiable); the
# backward is oar ops (index_select / index_add), so it is differentiable again. max_norm
# renormalises the referenced rows of the weight in place before the lookup, under no_grad,
# as torch.embedding_renorm_ does (each unique row whose norm exceeds max_norm is scaled by
# max_norm / (norm + 1e-7)).
def _k_embedding(w, idx, padding_idx, scale_grad_by_freq):
    return w[idx]


def _b_embedding(c, g):
    idx, padding_idx, scale = c.attrs
    (n, dim), _ = c.input_meta[0]
    flat = idx.reshape(-1)
    g2 = g.reshape([-1, dim])
    if scale:
        counts = np.bincount(flat, minlength=n)
        g2 = g2 * Tensor._wrap((1.0 / counts[flat]).astype(g._data.dtype)[:, None])
    if padding_idx is not None and (flat == padding_idx).any():
        keep = np.nonzero(flat != padding_idx)[0]
        flat = flat[keep]
        g2 = R.FUNCTIONS["index_select"](g2, Tensor._wrap(keep), axis=0)
    z = R.FUNCTIONS["zeros"]([n, dim], dtype=g.dtype, device=g.place)
    return (R.FUNCTIONS["index_add"](z, 0, Tensor._wrap(flat), g2),)


EMBEDDING = OpDef("embedding", _k_embedding, _b_embedding,
                  inputs=("weight",), attrs=(("indices", None), ("padding_idx", None),
                                             ("scale_grad_by_freq", False)),
                  doc="The rows of weight at integer indices (Note [Embedding op]).")


def embedding_renorm_(weight, idx, max_norm, norm_type):
    """torch.embedding_renorm_: each referenced row with a norm above max_norm scaled to it,
    in place on weight (under no_grad); returns weight."""
    w = weight._data
    rows = np.unique(idx.reshape(-1))
    if not rows.size:
        return weight
    norms = _xp.array([np.linalg.norm(w[r], ord=norm_type) for r in rows], np.float64)
    big = norms > max_norm
    if big.any():
        rows = rows[big]
        scale = (max_norm / (norms[big] + 1e-7))[:, None]
        new = (w[rows] * scale).astype(w.dtype)
        with grad_mode.no_grad():
            R.FUNCTIONS["index_put_"](weight, (Tensor._wrap(rows),), Tensor._wrap(new))
    return weight


def torch_embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
                    scale_grad_by_freq=False, sparse=False):
    """PyTorch's F.embedding (Note [Embedding op]); sparse=True gives a dense gradient."""
    op = "embedding"
    _input(input, op)
    _input(weight, op, "weight")
    if weight._data.ndim != 2:
        raise _c.ArgValueError(f"{op}: 'weight' must be 2-D, got "
                               f"{_c.shape_str(weight._data.shape)}")
    idx = input._data
    if idx.dtype not in (np.int32, np.int64):
        raise _c.ArgTypeError(
            f"{op}: Expected tensor for argument #1 'indices' to have one of the following "
            f"scalar types: Long, Int; but got {input.dtype.name} instead. Fix: "
            "indices.long()")
    n = weight._data.shape[0]
    if padding_idx is not None:
        padding_idx = _args.integer(padding_idx, op, "padding_idx")
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= n
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = int(idx.min()) if idx.min() < 0 else int(idx.max())
        raise _c.AxisError(f"{op}: index out of range in self (index {bad}, num_embeddings "
                           f"{n})")
    if max_norm is not None:
        embedding_renorm_(weight, idx, float(max_norm), float(norm_type))
    return R.dispatch(EMBEDDING, (weight,), (idx.astype(np.int64, copy=False), padding_idx,
                                             bool(scale_grad_by_freq)))


# ---------------------------------------------------------------- activations
_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


# Note [Leaky ReLU as a maximum]
# For 0 < slope <= 1, leaky_relu(x) = max(x, slope * x) element for element, bit for bit:
# x > 0 gives x (slope * x <= x), x < 0 gives slope * x (>= x), -0.0 and 0.0 give
# themselves, nan stays nan, +-inf stay +-inf (slope * inf is inf for slope > 0; slope 0
# would make it nan, hence the strict bound). Two passes over memory instead of np.where's
# boolean mask, product and select (30x faster on the main job's activations). The out=
# form (dispatch's out, or an input donated by elision, where out is x) takes it as well,
# through one temporary for slope * x, since writing out first could overwrite x.
def _k_leaky(out, rdt, x, slope):
    if x.dtype == _F16:   # float32 opmath and one rounding, as PyTorch's CPU kernel for half
        r = _k_leaky(None, _F32, x.astype(_F32), slope).astype(rdt)
        if out is None:
            return r
        out[...] = r
        return out
    if 0 < slope <= 1 and x.dtype == rdt and x.ndim:   # Note [Leaky ReLU as a maximum]
        r = np.multiply(x, slope)     # a temporary even with out=: out may be x (elision)
        return np.maximum(x, r, out=r if out is None else out)
    if out is None:
        return np.where(x > 0, x, x * slope).astype(rdt, copy=False)
    np.multiply(x, np.where(x > 0, 1, slope).astype(rdt), out=out, dtype=rdt)
    return out


def _floating_only(op_name, args, attrs, rdt):
    """Activations defined on real numbers refuse integer input, as PyTorch does."""
    from ._activation_ops import floating_only      # PyTorch's NotImplementedError
    floating_only(args[0], op_name.rstrip("_"))


def _b_leaky(c, g, v):
    """g where v > 0, else g * slope; v is the input (LeakyReluBackward0) or, for a slope
    >= 0, the result (LeakyReluBackward1: v > 0 exactly where x > 0)."""
    slope = c.attrs[0]
    if c.op is LEAKY_RESULT and slope < 0:
        raise RuntimeError(
            "In-place leakyReLu backward calculation is triggered with a negative slope which "
            f"is not supported (negative_slope={slope}). This is caused by calling in-place "
            "forward function with a negative slope, please call out-of-place version instead.")
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        return (R.FUNCTIONS["where"](v > 0, g, g * slope),)
    gd = g._data
    return (Tensor._wrap(_m(gd).asarray(np.where(v._data > 0, gd, gd * slope), gd.dtype)),)


# PyTorch's LeakyReluBackward0 reads the input (a negative slope is legal there)
LEAKY = pointwise_op("leaky_relu", _k_leaky, lambda c, g: _b_leaky(c, g, c.input(0)),
          needs={"x": ("x",)}, attrs=(("negative_slope", 0.01),), method=False,
          check=_floating_only, doc="Elementwise x where x > 0, else negative_slope * x.")
# F.leaky_relu with a slope >= 0 (nn.LeakyReLU): the same node, LeakyReluBackward0, reading
# the result instead (v > 0 exactly where x > 0), so that BatchNorm -> LeakyReLU keeps one
# activation, not two: the one conv2 saves anyway (Note [In-place activated batch norm])
_LEAKY_BLOCK = 1 << 15


def _b_leaky_into(c, g):
    """Note [Backward into the incoming gradient] for leaky_relu from its result: g scaled by
    1 where v > 0 and by the slope elsewhere, in g's own buffer, the factor made per block
    ((1 - p) * slope + p with p = (v > 0) is exactly 1 or exactly the slope), so no
    full-size temporary; the same values as _b_leaky bit for bit. None (the formula) when
    the layouts differ or the backward must refuse."""
    slope = c.attrs[0]
    if c.op is LEAKY_RESULT and slope < 0:
        return None
    gd, vd = g._data, c.out._data
    if gd.shape != vd.shape or gd.dtype != vd.dtype or not (
            gd.flags.c_contiguous and vd.flags.c_contiguous):
        return None
    fg, fv = gd.reshape(-1), vd.reshape(-1)
    f = _m(gd).empty(min(_LEAKY_BLOCK, fg.size), gd.dtype)
    s = gd.dtype.type(slope)
    for i in range(0, fg.size, _LEAKY_BLOCK):
        j = min(i + _LEAKY_BLOCK, fg.size)
        p = f[:j - i]
        np.greater(fv[i:j], 0, out=p, casting="unsafe")
        q = np.subtract(1, p, dtype=gd.dtype)
        q *= s
        q += p
        np.multiply(fg[i:j], q, out=fg[i:j])
    return (g,)


# inplace=True: its kernel is LEAKY_RESULT's, which F.leaky_relu_ runs in place, so dispatch
# may write it into a dead input (Note [Temporary elision], condition 8); never declared, so
# it gains no spelling
LEAKY_OUT = OpDef("leaky_relu", _k_leaky, lambda c, g: _b_leaky(c, g, c.out),
                  backward_inplace=_b_leaky_into,
                  needs={"x": ("out",)}, kind="pointwise", attrs=(("negative_slope", 0.01),),
                  check=_floating_only, method=False, function=False, inplace=True,
                  doc="leaky_relu with a slope >= 0, its backward read from the result.")
# F.leaky_relu_: LeakyReluBackward1, from the result, so no copy of the old value (Note
# [Activation and normalization ops]); its backward refuses a negative slope, as PyTorch's
LEAKY_RESULT = OpDef("leaky_relu", _k_leaky, lambda c, g: _b_leaky(c, g, c.out),
                     backward_inplace=_b_leaky_into, needs={"x": ("out",)}, kind="pointwise", attrs=(("negative_slope", 0.01),),
                     check=_floating_only, method=False, function=False, inplace=True,
                     node_name="LeakyReluBackward1",
                     doc="leaky_relu written in place, its backward read from the result.")


# Note [Paddle leaky_relu_ keeps a mask]
# The Paddle door's leaky_relu_ saves neither its input (a copy of the old value, 4 bytes an
# element in float32) nor its result (which a later in-place op may change: Paddle runs a
# chain of leaky_relu_, or a scale_ after one, and differentiates it exactly). Its backward
# reads one thing, where the input was positive, so it saves that: a bool mask made before
# the write (1 byte an element), set as the node's saved tensor right after dispatch (as
# Note [BatchNorm op] does). Nothing saved can then be modified, whatever follows. The Paddle
# door's hardtanh_ does the same with a mask of min < x < max (HARDTANH_MASK in
# oar/nn/_activation_ops.py; the attaching is functional._save_mask).
LEAKY_MASK = OpDef("leaky_relu", _k_leaky, lambda c, g: _b_leaky(c, g, c.input(0)),
                   needs={"x": ()}, kind="pointwise", attrs=(("negative_slope", 0.01),),
                   check=_floating_only, method=False, function=False, inplace=True,
                   doc="Paddle's leaky_relu_, its backward read from a saved sign mask.")


def _erf(x):
    from ..ops.pointwise import erf_f64       # float64-accurate, as the erf op
    return erf_f64(_xp.asarray(x, np.float64))


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
    if grad_mode.is_grad_enabled():       # create_graph: erf as an oar op
        cdf = ((x * (1 / math.sqrt(2))).erf() + 1) * 0.5
    else:
        cdf = Tensor._wrap((0.5 * (1 + _erf(x._data / math.sqrt(2)))).astype(x._data.dtype))
    pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
    return (g * (cdf + x * pdf),)


GELU = pointwise_op("gelu", _k_gelu, _b_gelu, needs={"x": ("x",)}, attrs=(("approximate", False),), method=False,
         inplace=False, check=_floating_only,
         doc="Elementwise GELU, x * Phi(x) (tanh approximation when approximate).")


from ._pool import (ADAPTIVE_AVG_POOL2D, AVGPOOL, MAXPOOL, avg_divisor_mode, avg_pool2d, index_pad,  # noqa: E402,F401
                    max_pool2d, pool_args)
from ._pool import AVGPOOL3D, MAXPOOL3D, avg_pool3d, max_pool3d  # noqa: E402,F401


# ---------------------------------------------------------------- transposed convolution
# Note [Transposed conv is conv's adjoint]
# conv_transpose2d(x, w) with w [C_in, C_out/G, kh, kw] is the gradient, with respect to its
# input, of conv2d(y, w) where y is [N, C_out, OH, OW] and w is read as conv2d's
# [O=C_in, C=C_out/G, kh, kw]. So its kernel is conv2d's input-gradient code (a col2im
# scatter-add, _conv_backward with needs=(x only)), and its own backward is conv2d again:
#   d input  = conv2d(g, w)                      (the forward of the conv it is the adjoint of)
#   d weight = conv2d's weight gradient with conv2d's input := g and its output grad := x
#   d bias   = g summed over N, H, W.
# output_padding only enlarges OH/OW (rows and columns no input position reaches, left at
# zero plus bias); the window views of g never read past (H-1)*s + d*(k-1), so they fit.
def _k_conv_t(x, w, b, stride, padding, output_padding, groups, dilation):
    k = w.shape[2:]
    osz = tuple((x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k[i] - 1)
                + output_padding[i] + 1 for i in range(len(k)))
    out, _, _ = _conv_backward(None, w, x, (True, False, False),
                               (x.shape[0], w.shape[1] * groups) + osz, x.dtype, w.shape,
                               stride, padding, dilation, groups)
    if b is None:
        return _xp.ascontiguousarray(out)
    return np.add(out, b.reshape((-1,) + (1,) * len(k)), out=_m(out).empty(out.shape, out.dtype))


def _conv_t_grads(c, g, xa, wa):
    """(gx, gw, gb) arrays of a transposed convolution of any rank (Note [Transposed conv is
    conv's adjoint]); xa / wa are None where not saved."""
    stride, padding, _, groups, dilation = c.attrs
    xshape, xdt = c.input_meta[0]
    gx = gw = gb = None
    if c.needs[0]:
        # output_padding >= stride (allowed when < dilation) makes conv's output longer
        gx = _k_conv(g, wa, None, stride, padding, dilation, groups)[
            (slice(None), slice(None)) + tuple(slice(0, m) for m in xshape[2:])]
    if c.needs[1]:
        gw = _conv_backward(g, None, xa, (False, True, False), g.shape, xdt, c.input_meta[1][0],
                            stride, padding, dilation, groups)[1]
    if c.needs[2]:
        gb = g.sum(axis=(0,) + tuple(range(2, g.ndim)))
    return gx, gw, gb


def _b_conv_t(c, g):
    _first_order_only(c.op.name)
    wa = c.input(1)._data if c.needs[0] else None
    xa = c.input(0)._data if c.needs[1] else None
    return tuple(None if a is None else Tensor._wrap(_xp.ascontiguousarray(a))
                 for a in _conv_t_grads(c, g._data, xa, wa))


CONV_T2D = OpDef("conv_transpose2d", _k_conv_t, _b_conv_t,
                 needs={"x": ("weight",), "weight": ("x",)}, inputs=("x", "weight", "bias"),
                 attrs=(("stride", (1, 1)), ("padding", (0, 0)), ("output_padding", (0, 0)),
                        ("groups", 1), ("dilation", (1, 1))),
                 node_name="ConvolutionBackward0",
                 doc="2-D transposed convolution (the adjoint of conv2d) of an NCHW input "
                     "with a [C_in, C_out/groups, kh, kw] weight, plus bias.")


# conv3d / conv_transpose3d: the rank-generic kernels (Note [N-d convolution]), their own
# ops with PyTorch's node name
CONV3D = OpDef("conv3d", _k_conv, _b_conv, needs={"x": ("weight",), "weight": ("x",)},
               inputs=("x", "weight", "bias"),
               attrs=(("stride", (1, 1, 1)), ("padding", (0, 0, 0)), ("dilation", (1, 1, 1)),
                      ("groups", 1)),
               node_name="ConvolutionBackward0",
               doc="3-D (grouped) convolution (cross-correlation) of an NCDHW input, plus bias.")
CONV_T3D = OpDef("conv_transpose3d", _k_conv_t, _b_conv_t,
                 needs={"x": ("weight",), "weight": ("x",)}, inputs=("x", "weight", "bias"),
                 attrs=(("stride", (1, 1, 1)), ("padding", (0, 0, 0)),
                        ("output_padding", (0, 0, 0)), ("groups", 1), ("dilation", (1, 1, 1))),
                 node_name="ConvolutionBackward0",
                 doc="3-D transposed convolution of an NCDHW input with a [C_in, C_out/groups, "
                     "kd, kh, kw] weight, plus bias.")


# conv_transpose1d: CONV_T2D's kernel and backward on height-1 views, its own op as in PyTorch
def _k_conv_t1d(x, w, b, stride, padding, output_padding, groups, dilation):
    return _xp.ascontiguousarray(_k_conv_t(x[:, :, None], w[:, :, None], b, (1, stride),
                                          (0, padding), (0, output_padding), groups,
                                          (1, dilation))[:, :, 0])


class _Ctx1d:
    """The backward context of a 1-D op seen as its height-1 2-D op."""
    def __init__(self, c):
        s, p, op_, g, d = c.attrs
        self.attrs = ((1, s), (0, p), (0, op_), g, (1, d))
        self.needs = c.needs
        (n, ch, length), xdt = c.input_meta[0]
        (a, b, k), wdt = c.input_meta[1]
        self.input_meta = (((n, ch, 1, length), xdt), ((a, b, 1, k), wdt))


def _b_conv_t1d(c, g):
    _first_order_only("conv_transpose1d")
    wa = c.input(1)._data[:, :, None] if c.needs[0] else None
    xa = c.input(0)._data[:, :, None] if c.needs[1] else None
    gx, gw, gb = _conv_t_grads(_Ctx1d(c), g._data[:, :, None], xa, wa)
    return tuple(None if a is None else Tensor._wrap(_xp.ascontiguousarray(a))
                 for a in (None if gx is None else gx[:, :, 0],
                           None if gw is None else gw[:, :, 0], gb))


CONV_T1D = OpDef("conv_transpose1d", _k_conv_t1d, _b_conv_t1d,
                 needs={"x": ("weight",), "weight": ("x",)}, inputs=("x", "weight", "bias"),
                 attrs=(("stride", 1), ("padding", 0), ("output_padding", 0), ("groups", 1),
                        ("dilation", 1)),
                 node_name="ConvolutionBackward0",
                 doc="1-D transposed convolution of an NCL input with a [C_in, C_out/groups, k] "
                     "weight, plus bias.")


def conv_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                   dilation=1, output_size=None, *, op="conv_transpose2d", nd=2):
    """The transposed convolution both doors call (nd spatial dims: input (N, C_in, *S),
    weight [C_in, C_out/G, *k]); an unbatched input (one dim fewer) as PyTorch. output_size
    (spatial, or with the leading dims) picks output_padding."""
    _input(x, op)
    _input(weight, op, "weight")
    if weight._data.ndim != nd + 2:
        names = {1: "k", 2: "kh, kw", 3: "kd, kh, kw"}[nd]
        raise _c.ArgValueError(f"{op}: weight must be {nd + 2}-D [in_channels, out_channels / "
                               f"groups, {names}], got {_c.shape_str(weight._data.shape)}")
    if x._data.ndim not in (nd + 1, nd + 2):
        raise _c.ArgValueError(f"{op}: Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) "
                               f"input, but got input of size: {_c.shape_str(x._data.shape)}")

    def conf(v, name, minimum):
        if nd == 1:
            v = v[0] if isinstance(v, (list, tuple)) and len(v) == 1 else v
            if isinstance(v, (list, tuple)):
                raise _c.ArgValueError(f"{op}: {name} must be an int or a 1-element sequence, "
                                       f"got {list(v)}")
        return _ntuple(v, op, name, minimum, nd) if nd != 2 else _c.pair(v, op, name, minimum)
    st, pd = conf(stride, "stride", 1), conf(padding, "padding", 0)
    opd, dil = conf(output_padding, "output_padding", 0), conf(dilation, "dilation", 1)
    g = _c.count(groups, op, "groups", 1)
    unbatched = x._data.ndim == nd + 1
    xs, ws = x._data.shape[-(nd + 1):], weight._data.shape
    if ws[0] % g:
        raise _c.ArgValueError(
            f"{op}: Given groups={g}, expected weight to be divisible by {g} at dimension 0, "
            f"but got weight of size {_c.shape_str(ws)} instead")
    if xs[0] != ws[0]:
        raise _c.ArgValueError(
            f"{op}: Given transposed=1, weight of size {_c.shape_str(ws)}, expected input"
            f"{_c.shape_str(x._data.shape)} to have {ws[0]} channels, but got {xs[0]} channels "
            "instead")
    _c.floating_like(x, weight, op)
    cout = ws[1] * g
    if bias is not None:
        _input(bias, op, "bias")
        _c.floating_like(x, bias, op, "bias")
        if bias._data.shape != (cout,):
            raise _c.ArgValueError(f"{op}: bias must have shape [{cout}], got "
                                   f"{_c.shape_str(bias._data.shape)}")
    sizes, ks = tuple(xs[1:]), tuple(ws[2:])
    base = [(sizes[i] - 1) * st[i] - 2 * pd[i] + dil[i] * (ks[i] - 1) + 1 for i in range(nd)]
    if output_size is not None:
        want = [_args.integer(v, op, "output_size") for v in
                ([output_size] if isinstance(output_size, int) else list(output_size))]
        if len(want) == nd + 1 + (not unbatched):
            want = want[-nd:]
        if len(want) != nd:
            raise _c.ArgValueError(f"{op}: output_size must have {nd} elements (or with the "
                                   f"batch and channel dims), got {want}")
        lo, hi = base, [base[i] + st[i] - 1 for i in range(nd)]
        if any(w < lo[i] or w > hi[i] for i, w in enumerate(want)):
            raise _c.ArgValueError(f"{op}: requested an output size of {want}, but "
                                   f"valid sizes range from {lo} to {hi} (for an input of "
                                   f"{list(xs[1:])})")
        opd = tuple(w - b for w, b in zip(want, base))
    for i in range(nd):
        if opd[i] >= st[i] and opd[i] >= dil[i]:
            raise _c.ArgValueError(
                f"{op}: output padding must be smaller than either stride or dilation, but got "
                f"output_padding={list(opd)}, stride={list(st)}, dilation={list(dil)}")
    out_sz = [base[i] + opd[i] for i in range(nd)]
    if min(out_sz) < 1:
        raise _c.ArgValueError(
            f"{op}: Given input size per channel: {list(xs[1:])}. Calculated output size per "
            f"channel: {out_sz}. Output size is too small (reduce padding or grow the input)")
    x = x.unsqueeze(0) if unbatched else x
    if nd == 1:
        out = R.dispatch(CONV_T1D, (x, weight, bias), (st[0], pd[0], opd[0], g, dil[0]))
    else:
        out = R.dispatch(CONV_T2D if nd == 2 else CONV_T3D, (x, weight, bias),
                         (st, pd, opd, g, dil))
    return out.squeeze(0) if unbatched else out
