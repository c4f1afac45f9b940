"""Pooling (max, average) and the non-constant paddings (reflect, replicate, circular) as
single ops with NumPy kernels and backward formulas (Note [Pooling geometry])."""
from __future__ import annotations

import numpy as np

from .. import _xp
from .._xp import array_module as _m

from ..ops import registry as R
from ..tensor import Tensor, wrap_as
from . import _checks as _c
from ._kernels import _first_order_only, _input


# ---------------------------------------------------------------- geometry
# Note [Pooling geometry]
# Every pooling op works on (N, C, *S) or (C, *S) arrays with 2 or 3 spatial dims S (1-D
# pooling is 2-D pooling of a height-1 image; one code for every rank) and takes, per
# spatial dim, a kernel k, stride s, padding p, dilation d
# and ceil_mode. The output size is PyTorch's pooling_output_shape: floor((n + 2p - d(k-1)
# - 1 [+ s-1 with ceil_mode]) / s) + 1, less one when ceil_mode would start the last window
# past the input and its left padding. Windows may then reach past the right padding; the
# kernels pad the input far enough on the right for every window to be a strided slice,
# and each op says what the extra cells are:
#   max: the lowest value of the dtype (-inf; iinfo.min), never chosen over a real element
#        (Note [Max-pool choice]);
#   avg: zeros, and the divisor counts what PyTorch counts: the window clipped to the
#        padded input (count_include_pad), or to the input itself, or divisor_override.
# A window that holds no input element (an average pool window in the padding only) gives 0.
# Paddle's geometry (the Paddle door's pools) is told apart by its padding: a (before, after)
# pair per dim, possibly unequal (Paddle's [top, bottom, left, right] and 'SAME'), and then
# the output size is Paddle's: (n + before + after - d(k-1) - 1 [+ s-1]) / s + 1 truncated
# toward zero as C does, with no ceil_mode correction and no bound on the padding, so windows
# may lie in the padding only; such a window gives Paddle's values: -FLT_MAX (max, its
# initial value) or nan (exclusive average, 0 / 0).
def _lo(p):
    return p[0] if isinstance(p, tuple) else p


def _out_len(n, k, s, p, d, ceil):
    """PyTorch's pooling_output_shape for one dim, or Paddle's when p is a pair (Note
    [Pooling geometry])."""
    if isinstance(p, tuple):
        num = n + p[0] + p[1] - d * (k - 1) - 1 + (s - 1 if ceil else 0)
        return int(num / s) + 1
    num = n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    o = num // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def _paddle_geometry(g):
    return bool(g[2]) and isinstance(g[2][0], tuple)


def _real_counts(sp, g, padded=False):
    """The number of input elements in each window (an (*O) int64 array), or of elements of
    the padded input (Paddle geometry)."""
    k, s, p, d, o = g
    div = None
    for i in range(len(k)):
        lo = _starts(o[i], s[i], _lo(p[i]))
        a, b = (-p[i][0], sp[i] + p[i][0]) if padded else (0, sp[i])
        r = np.maximum(np.minimum(lo + (k[i] - 1) * d[i] + 1, b) - np.maximum(lo, a), 0)
        div = r if div is None else np.multiply.outer(div, r)
    return div


def _tuple(value, op, name, minimum, n=2):
    """An int, or a list of 1 or n ints (PyTorch's _pair accepts a 1-element list), each
    >= minimum."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = value[0]
        elif len(value) != n:
            raise _c.ArgValueError(f"{op}: {name} must be an int or a tuple of {n} ints, got "
                                   f"{list(value)}")
    if isinstance(value, (list, tuple)):
        v = tuple(_c._args.integer(x, op, name) for x in value)
    else:
        v = (_c._args.integer(value, op, name),) * n
    if min(v) < minimum:
        raise _c.ArgValueError(f"{op}: {name} must be "
                               f"{'greater than zero' if minimum else 'non-negative'}, got "
                               f"{value!r}")
    return v


def pool_args(kernel_size, stride, padding, op, dilation=1, ceil_mode=False,
              data_format="NCHW", kind="max", nd=2):
    """Parse a pooling configuration once: (kernel, stride, padding, dilation, ceil_mode),
    each an nd-tuple (one entry per spatial dim). PyTorch's bounds: padding at most half the
    (effective) kernel."""
    k = _tuple(kernel_size, op, "kernel_size", 1, nd)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else _tuple(stride, op, "stride", 1, nd)
    p = _tuple(padding, op, "padding", 0, nd)
    d = _tuple(dilation, op, "dilation", 1, nd)
    if data_format not in ("NCHW", "NCL", "NCDHW"):
        raise NotImplementedError(f"{op}: data_format {data_format!r} is not supported "
                                  "(channels first only)")
    for i in range(nd):
        half = ((k[i] - 1) * d[i] + 1) // 2 if kind == "max" else k[i] // 2
        if p[i] > half:
            raise _c.ArgValueError(
                f"{op}: pad should be at most half of {'effective ' if kind == 'max' else ''}"
                f"kernel size, but got pad={p[i]}, kernel_size={k[i]}"
                + (f" and dilation={d[i]}" if kind == "max" else ""))
    return k, s, p, d, bool(ceil_mode)


def _geometry(shape, conf, op):
    """(k, s, p, d, o) of a (N, C, *S) or (C, *S) shape (nd = len(k) spatial dims), checked
    as PyTorch does; o the output sizes."""
    k, s, p, d, ceil = conf
    nd = len(k)
    c, sp = shape[-nd - 1], shape[-nd:]
    o = tuple(_out_len(sp[i], k[i], s[i], p[i], d[i], ceil) for i in range(nd))
    if min(o) < 1:
        x = "x".join
        raise _c.ArgValueError(
            f"{op}: Given input size: ({c}x{x(map(str, sp))}). Calculated output size: "
            f"({c}x{x(str(max(v, 0)) for v in o)}). Output size is too small "
            f"(kernel_size={list(k)}, stride={list(s)}, padding={list(p)}, "
            f"dilation={list(d)}, ceil_mode={ceil})")
    return k, s, p, d, o


def _padded(x, g, fill):
    """x padded by p on the left of each spatial dim and far enough on the right for every
    window."""
    k, s, p, d, o = g
    nd = len(k)
    sp = x.shape[-nd:]
    p = [_lo(v) for v in p]
    r = [max((o[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 - sp[i] - p[i], 0) for i in range(nd)]
    if not (any(p) or any(r)):
        return x
    xp = _m(x).full(x.shape[:-nd] + tuple(p[i] + sp[i] + r[i] for i in range(nd)), fill, x.dtype)
    xp[(Ellipsis,) + tuple(slice(p[i], p[i] + sp[i]) for i in range(nd))] = x
    return xp


def _offsets(xp, g):
    """The prod(k) strided slices of xp, one per kernel offset (row-major), each of shape
    (..., *o): (offset tuple, view)."""
    k, s, _, d, o = g
    for off in np.ndindex(*k):
        yield off, xp[(Ellipsis,) + tuple(slice(off[i] * d[i], off[i] * d[i] + s[i] * (o[i] - 1)
                                                + 1, s[i]) for i in range(len(k)))]


def _starts(o, s, p):
    return np.arange(o) * s - _lo(p)


def _pool_input(x, op, nd=2):
    """(N, C, *S) (or (C, *S), pooled as it is: PyTorch's node is the pooling op's) input of
    a real dtype, non-empty apart from the batch (PyTorch)."""
    _input(x, op)
    dims = x._data.ndim
    shape = x._data.shape
    if dims not in (nd + 1, nd + 2) or 0 in shape[dims - nd - 1:]:
        raise _c.ArgValueError(f"{op}: Expected {nd + 1}D or {nd + 2}D (batch mode) tensor "
                               f"with optional 0 dim batch size for input, but got: "
                               f"{_c.shape_str(shape)}")
    if x._data.dtype.kind not in "fiu":
        raise _c.ArgTypeError(f"{op}: expected a real (floating or integer) input, got "
                              f"{x.dtype.name}")
    return x


# ---------------------------------------------------------------- max pooling
def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _pname(kind, k):
    return f"{kind}_pool{len(k)}d"


def _k_maxpool(x, k, s, p, d, ceil):
    g = _geometry(x.shape, (k, s, p, d, ceil), _pname("max", k))
    # whole-array maxima over the kernel offsets (a strided 6-D reduction is far slower);
    # np.maximum propagates NaN, as PyTorch's max pooling does
    parts = [part for _, part in _offsets(_padded(x, g, _lowest(x.dtype)), g)]
    out = parts[0].copy()
    for part in parts[1:]:
        np.maximum(out, part, out=out)
    if _paddle_geometry(g) and x.dtype.kind == "f":
        empty = _real_counts(x.shape[-len(k):], g) == 0
        if empty.any():
            out[..., empty] = np.finfo(np.float32).max * -1.0
    return out


# Note [Max-pool choice]
# Which element of a window is its maximum decides both the indices (return_indices) and
# where the gradient goes; PyTorch's CPU kernel scans the window's input elements in
# row-major order and keeps the first strictly greater value, or the LAST NaN (its test is
# `val > max || isnan(val)`); cells outside the input are never candidates. `_choice`
# reproduces that as a one-hot (prod(k), N, C, *O) mask: one comparison per kernel offset
# against the output, restricted to real cells, then first-hit bookkeeping on the
# contiguous mask (NaN windows: last-hit over isnan). Any number of spatial dims.
def _choice(xp, out, g, sp):
    k, s, p, d, o = g
    nd = len(k)
    K = int(np.prod(k))
    hit = _m(out).empty((K,) + out.shape, bool)
    edge = xp.shape[-nd:] != tuple(sp)
    if edge:
        real = [[(0 <= r) & (r < sp[i]) for r in (_starts(o[i], s[i], p[i]) + j * d[i]
                                                   for j in range(k[i]))] for i in range(nd)]
    for t, (off, part) in enumerate(_offsets(xp, g)):
        np.equal(part, out, out=hit[t])
        if edge:
            m = True
            for i in range(nd):
                m = np.logical_and.outer(m, real[i][off[i]]) if i else real[i][off[i]]
            hit[t] &= _m(out).asarray(m)
    if K > 1:
        taken = hit[0].copy()
        for t in range(1, K):
            np.greater(hit[t], taken, out=hit[t])        # a maximum, and none before it
            if t < K - 1:
                taken |= hit[t]
    if out.dtype.kind == "f":
        nan_w = np.isnan(out)
        if nan_w.any():
            parts = [part for _, part in _offsets(xp, g)]
            taken = _m(out).zeros(out.shape, bool)
            for t in range(K - 1, -1, -1):                # the last NaN
                last = np.isnan(parts[t]) & ~taken
                taken |= last
                hit[t] = np.where(nan_w, last, hit[t])
    return hit


def _indices(hit, g, sp):
    """PyTorch's indices: the chosen element's flat position in its input plane (prod(S))."""
    k, s, p, d, o = g
    nd = len(k)
    offs = np.unravel_index(hit.argmax(axis=0), k)
    flat = 0
    for i in range(nd):
        shape = [1] * nd
        shape[i] = o[i]
        pos = _m(hit).asarray(_starts(o[i], s[i], p[i])).reshape(shape) + offs[i] * d[i]
        flat = flat * sp[i] + pos
    return _m(hit).asarray(flat, np.int64)


# Note [Max-pool backward]
# Each window's gradient goes to its chosen element (Note [Max-pool choice]). NumPy pays per
# element on strided views, so they are touched twice only: the choice reads the input into
# a contiguous one-hot mask, and one write per offset puts the window's gradient back. The
# write selects by bits: the mask as integers 0 / -1 (all bits set) ANDed with the
# gradient's bits is exactly where(hit, g, +0.0), an inf or nan in g included (a 0/1 float
# mask times g would make inf * 0 = nan, and -0.0 for negative g); g + 0.0 first turns a
# -0.0 gradient into +0.0, as adding it into zeros does (PyTorch). When windows cannot
# overlap (stride >= effective kernel) each input element belongs to at most one window, so
# the write is an assignment, not an accumulation; into np.empty when, in addition, the
# windows tile the padded input exactly (no dilation, stride == kernel and padded size ==
# output size * kernel), since every element is then written once. Otherwise they
# accumulate into zeros.
def _b_maxpool(c, g):
    _first_order_only(c.op.name)
    x = c.input(0)._data
    out = c.out._data
    geo = _geometry(x.shape, c.attrs, c.op.name)
    k, s, p, d, o = geo
    nd = len(k)
    sp = x.shape[-nd:]
    xp = _padded(x, geo, _lowest(x.dtype))
    hit = _choice(xp, out, geo, sp)
    bits = np.dtype(f"i{x.dtype.itemsize}")
    mask = np.negative(hit.view(np.int8), dtype=bits)    # 0 or all bits set
    ga = _m(x).asarray(g._data, x.dtype)
    gbits = np.add(ga, ga.dtype.type(0)).view(bits)     # -0.0 -> +0.0, all else unchanged
    tiles = all(d[i] == 1 and s[i] == k[i] and xp.shape[-nd + i] == o[i] * k[i]
                for i in range(nd))
    dxp = (_m(x).empty if tiles else _m(x).zeros)(xp.shape, x.dtype)
    disjoint = all(s[i] >= (k[i] - 1) * d[i] + 1 for i in range(nd))
    for t, (_, part) in enumerate(_offsets(dxp.view(bits), geo)):
        if disjoint:
            np.bitwise_and(mask[t], gbits, out=part)
        else:
            fpart = part.view(x.dtype)
            fpart += np.bitwise_and(mask[t], gbits).view(x.dtype)
    if xp.shape[-nd:] != sp:
        dxp = _xp.ascontiguousarray(dxp[(Ellipsis,) + tuple(slice(_lo(p[i]), _lo(p[i]) + sp[i])
                                                           for i in range(nd))])
    return (Tensor._wrap(dxp),)


MAXPOOL = R.OpDef(
    "max_pool2d", _k_maxpool, _b_maxpool, needs={"x": ("x", "out")},
    attrs=(("kernel_size", None), ("stride", None), ("padding", (0, 0)),
           ("dilation", (1, 1)), ("ceil_mode", False)),
    doc="2-D max pooling over an NCHW input (Note [Pooling geometry]).")
MAXPOOL3D = R.OpDef(
    "max_pool3d", _k_maxpool, _b_maxpool, needs={"x": ("x", "out")},
    attrs=(("kernel_size", None), ("stride", None), ("padding", (0, 0, 0)),
           ("dilation", (1, 1, 1)), ("ceil_mode", False)),
    node_name="MaxPool3DWithIndicesBackward0",
    doc="3-D max pooling over an NCDHW input (Note [Pooling geometry]).")


def max_pool_indices(x, conf):
    """The int64 indices of max pooling x (Note [Max-pool choice]); x is (N, C, *S)."""
    xa = x._data
    nd = len(conf[0])
    geo = _geometry(xa.shape, conf, _pname("max", conf[0]))
    out = _k_maxpool(xa, *conf)
    hit = _choice(_padded(xa, geo, _lowest(xa.dtype)), out, geo, xa.shape[-nd:])
    idx = _indices(hit, geo, xa.shape[-nd:])
    if _paddle_geometry(geo):       # Paddle's mask of a window in the padding only
        idx = np.where(_real_counts(xa.shape[-nd:], geo) == 0, -1, idx)
    return wrap_as(x._result_class, idx)


def max_pool2d(x, kernel_size, stride=None, padding=0, *, dilation=1, ceil_mode=False,
               return_mask=False, return_indices=False, data_format="NCHW", name=None,
               _parsed=None, nd=2):
    """Max pooling of (N, C, *S) x over its nd trailing dims; with return_indices (int64,
    PyTorch) or return_mask (int32, Paddle) also the flat position of each maximum in its
    plane (prod(S))."""
    op = f"max_pool{nd}d"
    conf = _parsed or pool_args(kernel_size, stride, padding, op, dilation, ceil_mode,
                                data_format, nd=nd)
    x = _pool_input(x, op, nd)
    _geometry(x._data.shape, conf, op)
    out = R.dispatch(MAXPOOL if nd == 2 else MAXPOOL3D, (x,), conf)
    if return_mask or return_indices:
        idx = max_pool_indices(x, conf)
        if return_mask and not return_indices:      # Paddle's mask is int32
            idx = idx.astype("int32")
        return out, idx
    return out


def max_pool3d(x, kernel_size, stride=None, padding=0, **kw):
    """3-D max pooling of (N, C, D, H, W) x (max_pool2d's code, Note [Pooling geometry])."""
    return max_pool2d(x, kernel_size, stride, padding, nd=3, **kw)


# ---------------------------------------------------------------- average pooling
def _avg_divisor(sp, g, mode):
    """Each window's divisor (Note [Pooling geometry]): an int, or an (*O) int64 array."""
    if isinstance(mode, int) and not isinstance(mode, bool):
        return mode
    k, s, p, _, o = g
    if isinstance(mode, tuple):     # Paddle's divisor_override: its divisor scaled by
        # divisor / prod(kernel) (avg_divisor_mode; the Paddle door names the divisor)
        return _avg_divisor(sp, g, mode[2] if len(mode) > 2 else "exclude") * (
            mode[1] / np.prod(k))
    if _paddle_geometry(g):
        # Paddle divides by the window clipped to the padded input, or (exclusive) by its
        # input elements: 0 for a window in the padding only, whose 0 / 0 is nan as Paddle's
        div = _real_counts(sp, g, mode == "include")
        return int(np.prod(k)) if (div == np.prod(k)).all() else div

    def one(n, o, k, s, p):
        lo = _starts(o, s, p)
        hi = np.minimum(lo + k, n + p)
        if mode == "include":
            return hi - lo
        return np.maximum(np.minimum(hi, n) - np.maximum(lo, 0), 0)

    rs = [one(sp[i], o[i], k[i], s[i], p[i]) for i in range(len(k))]
    if all((r == ki).all() for r, ki in zip(rs, k)):
        return int(np.prod(k))
    div = rs[0]
    for r in rs[1:]:
        div = np.multiply.outer(div, r)
    return np.where(div == 0, 1, div)       # a window of padding only: its sum 0 stays 0


def _k_avgpool(x, k, s, p, d, ceil, mode):
    g = _geometry(x.shape, (k, s, p, d, ceil), _pname("avg", k))
    out = None
    for _, part in _offsets(_padded(x, g, 0), g):
        out = part.astype(x.dtype, copy=True) if out is None else np.add(out, part, out=out)
    div = _m(x).asarray(_avg_divisor(x.shape[-len(k):], g, mode))   # to x's place
    if x.dtype.kind == "f":
        with np.errstate(divide="ignore", invalid="ignore"):   # Paddle's empty windows: nan
            out /= _xp.asarray(div, x.dtype)
        return out
    # integers: C's division, truncating toward zero (PyTorch)
    q, r = np.divmod(out, div)
    return q + ((r != 0) & ((out < 0) != (_xp.asarray(div) < 0)))


def _b_avgpool(c, g):
    _first_order_only(c.op.name)
    shape = c.input_meta[0][0]
    k, s, p, d, ceil, mode = c.attrs
    nd = len(k)
    geo = _geometry(shape, (k, s, p, d, ceil), c.op.name)
    ga = g._data
    div = _m(ga).asarray(_avg_divisor(shape[-nd:], geo, mode), ga.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):   # empty windows reach no input
        part = ga / div
    dxp = _padded(_m(ga).zeros(shape, ga.dtype), geo, 0)
    for _, view in _offsets(dxp, geo):
        view += part
    return (Tensor._wrap(_xp.ascontiguousarray(dxp[(Ellipsis,) + tuple(
        slice(_lo(p[i]), _lo(p[i]) + shape[-nd + i]) for i in range(nd))])),)


AVGPOOL = R.OpDef("avg_pool2d", _k_avgpool, _b_avgpool,
                  attrs=(("kernel_size", None), ("stride", None), ("padding", (0, 0)),
                         ("dilation", (1, 1)), ("ceil_mode", False), ("divisor", "include")),
                  doc="2-D average pooling over an NCHW input (Note [Pooling geometry]).")
AVGPOOL3D = R.OpDef("avg_pool3d", _k_avgpool, _b_avgpool,
                    attrs=(("kernel_size", None), ("stride", None), ("padding", (0, 0, 0)),
                           ("dilation", (1, 1, 1)), ("ceil_mode", False),
                           ("divisor", "include")),
                    node_name="AvgPool3DBackward0",
                    doc="3-D average pooling over an NCDHW input (Note [Pooling geometry]).")


def avg_divisor_mode(count_include_pad, exclusive, divisor_override, op="avg_pool2d"):
    """PyTorch's count_include_pad (default True) and Paddle's exclusive (its opposite) name
    the same choice; giving both with conflicting meanings is refused. divisor_override (a
    nonzero int) replaces the divisor."""
    if divisor_override is not None:
        v = _c._args.integer(divisor_override, op, "divisor_override")
        if v == 0:
            raise _c.ArgValueError(f"{op}: divisor must be not zero")
        # Paddle with exclusive=True scales the exclusive mean by prod(kernel) / divisor, so
        # a window clipped by the padding is divided by count * divisor / prod(kernel)
        return ("scaled", v) if exclusive else v
    if exclusive is not None and count_include_pad is not None \
            and bool(exclusive) == bool(count_include_pad):
        raise _c.ArgValueError(f"{op}: exclusive={exclusive} contradicts "
                               f"count_include_pad={count_include_pad}; give one of them")
    if exclusive is not None:
        return "exclude" if exclusive else "include"
    return "include" if count_include_pad in (None, True) else "exclude"


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, *,
               count_include_pad=None, exclusive=None, divisor_override=None,
               data_format="NCHW", name=None, _parsed=None, nd=2):
    """Average pooling over the nd trailing dims. Padding counts in the divisor by default
    (PyTorch's count_include_pad=True); exclusive=True (the Paddle door's functions pass
    their default, True) or count_include_pad=False divides by the number of real
    elements."""
    op = f"avg_pool{nd}d"
    if _parsed is None:
        conf = pool_args(kernel_size, stride, padding, op, 1, ceil_mode, data_format, "avg", nd)
        mode = avg_divisor_mode(count_include_pad, exclusive, divisor_override, op)
    else:
        *conf, mode = _parsed
        conf = tuple(conf)
    x = _pool_input(x, op, nd)
    _geometry(x._data.shape, conf, op)
    return R.dispatch(AVGPOOL if nd == 2 else AVGPOOL3D, (x,), (*conf, mode))


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, **kw):
    """3-D average pooling of (N, C, D, H, W) x (Note [Pooling geometry])."""
    return avg_pool2d(x, kernel_size, stride, padding, ceil_mode, nd=3, **kw)


# ---------------------------------------------------------------- reflect / replicate / circular
# Note [Index padding]
# reflect and replicate padding read, along each padded dim, input position map[o] for
# output position o (o counts from -before; negative paddings crop): the reflection about
# the edge element, or the nearest edge element. The forward is one np.take per padded dim;
# the backward adds each output gradient into the position it was read from (index_add
# along each dim, in oar ops, so it is differentiable again), which is PyTorch's
# reflection/replication pad backward; one op per number of padded dims carries PyTorch's
# node name. circular is PyTorch's composite _pad_circular (copies into a new tensor:
# CopySlices), with negative paddings cropping first and positive ones wrapping the rest.
def _index_map(n, lo, hi, mode):
    pos = np.arange(-lo, n + hi)
    if mode == "reflect":
        period = 2 * (n - 1)
        pos = np.abs(pos) if n > 1 else np.zeros_like(pos)
        if n > 1:
            pos = pos % period
            pos = np.where(pos >= n, period - pos, pos)
        return pos
    return np.clip(pos, 0, n - 1)       # replicate


def _k_index_pad(x, maps):
    for axis, m in maps:
        x = np.take(x, m, axis=axis)
    return x


def _b_index_pad(c, g):
    maps = c.attrs[0]
    shape, dt = c.input_meta[0]
    for axis, m in reversed(maps):
        target = list(g.shape)
        target[axis] = shape[axis]
        z = R.FUNCTIONS["zeros"](target, dtype=g.dtype, device=g.place)
        g = R.FUNCTIONS["index_add"](z, axis, Tensor._wrap(m), g)
    return (g,)


# one op per mode and number of padded dims: PyTorch's node names (ReflectionPad2DBackward0)
_PAD_OPS = {(mode, k): R.OpDef(f"{name.lower()}_pad{k}d", _k_index_pad, _b_index_pad,
                               attrs=(("maps", None),), node_name=f"{name}Pad{k}DBackward0",
                               doc=f"x padded in {mode!r} mode (Note [Index padding]).")
            for mode, name in (("reflect", "Reflection"), ("replicate", "Replication"))
            for k in (1, 2, 3)}


def index_pad(x, widths, mode, op="pad", k=None):
    """x padded in reflect / replicate / circular mode; widths[d] = (before, after) for each
    dim d, k the number of padded trailing dims (PyTorch's checks: reflect needs each
    padding below the dim's size, circular at most the size; replicate and reflect need the
    padded dims non-empty)."""
    shape = x._data.shape
    maps = []
    for d, (lo, hi) in enumerate(widths):
        if not (lo or hi):
            continue
        n = shape[d]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise _c.ArgValueError(
                f"{op}: Padding size should be less than the corresponding input dimension, but "
                f"got: padding ({lo}, {hi}) at dimension {d} of input {_c.shape_str(shape)}")
        if mode == "circular" and (lo > n or hi > n):
            raise _c.ArgValueError(f"{op}: Padding value causes wrapping around more than once "
                                   f"(padding ({lo}, {hi}) at dimension {d} of input "
                                   f"{_c.shape_str(shape)})")
        if n == 0 or n + lo + hi < (1 if mode != "circular" else 0):
            raise _c.ArgValueError(f"{op}: input {_c.shape_str(shape)} is too small for "
                                   f"padding ({lo}, {hi}) at dimension {d} in {mode!r} mode")
        if mode != "circular":
            maps.append((d, _index_map(n, lo, hi, mode)))
    if mode == "circular":
        return _circular_pad(x, widths)
    k = k or max(1, sum(1 for w in widths if w != (0, 0)))
    return R.dispatch(_PAD_OPS[mode, k], (x,), (tuple(maps),))


def _circular_pad(x, widths):
    """PyTorch's _pad_circular, step by step (its result's node is CopySlices): the kept
    part of x is copied into the middle of a new tensor, then, dim by dim from the last,
    the left and right wraps are copied from the tensor itself."""
    shape = x._data.shape
    out_shape = [n + lo + hi for n, (lo, hi) in zip(shape, widths)]
    out = wrap_as(x._result_class, np.zeros(out_shape, x._data.dtype))
    mid = tuple(slice(max(lo, 0), m - max(hi, 0)) for m, (lo, hi) in zip(out_shape, widths))
    src = tuple(slice(max(-lo, 0), n - max(-hi, 0)) for n, (lo, hi) in zip(shape, widths))
    out[mid] = x[src]
    for d in range(len(shape) - 1, -1, -1):
        lo, hi = widths[d]
        m = out_shape[d]

        def at(a, b, d=d):
            return (slice(None),) * d + (slice(a, b),)
        if lo > 0:
            out[at(0, lo)] = out[at(m - lo - max(hi, 0), m - max(hi, 0))]
        if hi > 0:
            out[at(m - hi, m)] = out[at(max(lo, 0), max(lo, 0) + hi)]
    return out


# ---------------------------------------------------------------- adaptive average pooling
# Note [Adaptive average pooling]
# PyTorch's adaptive_avg_pool2d to an output other than 1x1 is one op (its CPU kernel,
# AdaptiveAvgPool2DBackward0): output (i, j) is the average of the window rows
# [floor(i*H/oh), ceil((i+1)*H/oh)) x columns [floor(j*W/ow), ceil((j+1)*W/ow)), summed
# element by element in row-major order from 0 in the input's dtype, then divided by the
# window's height, then by its width. The kernel below adds in that order (vectorised over
# the output positions: a window shorter than the longest adds zeros, which changes no sum),
# so values are bit-identical to torch's. The backward adds grad / kh / kw into each
# window, output positions in row-major order (torch's order, so overlapping windows sum
# alike); it is an op too (AdaptiveAvgPool2DBackwardBackward0), whose own backward is the
# forward pool, so double backward works. A 1x1 output is x.mean over the last two dims in
# PyTorch (MeanBackward1): the caller does that.
def _adaptive_windows(n, o):
    i = np.arange(o)
    lo = (i * n) // o
    return lo, -(-((i + 1) * n) // o) - lo


def _k_adaptive_avg(x, output_size):
    (oh, ow), (h, w) = output_size, x.shape[-2:]
    h0, kh = _adaptive_windows(h, oh)
    w0, kw = _adaptive_windows(w, ow)
    xp = _m(x)   # the window tables are small CPU arrays: moved to x's place where used
    acc = xp.zeros(x.shape[:-2] + (oh, ow), x.dtype)
    for dh in range(int(kh.max(initial=0))):
        rows = x[..., xp.asarray(np.minimum(h0 + dh, h - 1)), :]
        mh = (dh < kh)[:, None]
        for dw in range(int(kw.max(initial=0))):
            part = rows[..., xp.asarray(np.minimum(w0 + dw, w - 1))]
            acc += np.where(xp.asarray(mh & (dw < kw)[None, :]), part, x.dtype.type(0))
    acc /= xp.asarray(kh[:, None].astype(x.dtype))
    acc /= xp.asarray(kw[None, :].astype(x.dtype))
    return acc


def _b_adaptive_avg(c, g):
    return (R.dispatch(ADAPTIVE_AVG_POOL2D_BACKWARD, (g,), (tuple(c.input_meta[0][0]),)),)


def _k_adaptive_avg_backward(g, input_shape):
    (oh, ow), (h, w) = g.shape[-2:], input_shape[-2:]
    h0, kh = _adaptive_windows(h, oh)
    w0, kw = _adaptive_windows(w, ow)
    xp = _m(g)
    delta = g / xp.asarray(kh[:, None].astype(g.dtype))
    delta /= xp.asarray(kw[None, :].astype(g.dtype))
    gi = xp.zeros(input_shape, g.dtype)
    for i in range(oh):
        for j in range(ow):
            gi[..., h0[i]:h0[i] + kh[i], w0[j]:w0[j] + kw[j]] += delta[..., i, j, None, None]
    return gi


def _b_adaptive_avg_backward(c, gg):
    oh, ow = c.input_meta[0][0][-2:]
    return (R.dispatch(ADAPTIVE_AVG_POOL2D, (gg,), ((oh, ow),)),)


ADAPTIVE_AVG_POOL2D = R.OpDef(
    "adaptive_avg_pool2d", _k_adaptive_avg, _b_adaptive_avg, attrs=(("output_size", None),),
    node_name="AdaptiveAvgPool2DBackward",
    doc="Adaptive 2-D average pooling of (..., H, W) x to output_size "
        "(Note [Adaptive average pooling]).")
ADAPTIVE_AVG_POOL2D_BACKWARD = R.OpDef(
    "adaptive_avg_pool2d_backward", _k_adaptive_avg_backward, _b_adaptive_avg_backward,
    attrs=(("input_shape", None),), node_name="AdaptiveAvgPool2DBackwardBackward",
    doc="The gradient of adaptive_avg_pool2d with respect to its input.")
