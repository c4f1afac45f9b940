"""View ops: results share storage and version counter; each has its own shape/strides.

Note [View geometry]
Geometry = (shape, strides, offset) in elements, relative to the start of the storage's
root buffer. The generic view backward scatters the gradient into a scratch buffer laid out
like the input (x's geometry), through the view's geometry, so every view kind (select,
narrow, diagonal, unfold, as_strided, ...) shares one exact backward, including views whose
elements overlap (np.add.at accumulates them).
"""
from __future__ import annotations

from math import prod as _prod

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

from ..autograd import grad_mode
from ..autograd.node import Node
from ..tensor import Tensor
from . import registry as R
from .registry import OpDef, dispatch_view, fmt_shape


# --------------------------------------------------------------------------- geometry
def geometry(t):
    a = t._data
    item = a.itemsize
    off = (a.__array_interface__["data"][0] - t._storage.data_ptr()) // item
    return (a.shape, tuple(s // item for s in a.strides), off)


def _span(geom):
    shape, strides, off = geom
    lo = hi = off
    if 0 in shape:
        return off, off
    for n, s in zip(shape, strides):
        if s >= 0:
            hi += s * (n - 1)
        else:
            lo += s * (n - 1)
    return lo, hi


def _window(buf, geom, lo):
    shape, strides, off = geom
    item = buf.itemsize
    return _np_as_strided(buf[off - lo:], shape=shape, strides=tuple(s * item for s in strides))


def strided(a, shape, strides):
    """A view of a's memory with these byte strides, starting at a's first element.

    np.ndarray(buffer=a) costs a quarter of numpy's as_strided; it needs a contiguous `a`
    whose memory covers the view, else as_strided is used."""
    if a.flags.c_contiguous:
        try:
            return np.ndarray(shape, a.dtype, buffer=a, offset=0, strides=strides)
        except (TypeError, ValueError):
            pass
    return _np_as_strided(a, shape=shape, strides=strides)


def _overlaps(shape, strides):
    a = np.lib.stride_tricks.as_strided(np.empty(1, np.int8), shape=shape, strides=strides)
    return R.has_internal_overlap(a)


def scatter_view_grad(g, x_geom, v_geom, dtype):
    """Gradient w.r.t. x (x's shape, C-contiguous) of the view v = x[v_geom]."""
    lo = min(_span(x_geom)[0], _span(v_geom)[0])
    hi = max(_span(x_geom)[1], _span(v_geom)[1])
    buf = np.zeros(hi - lo + 1, dtype)
    if _overlaps(v_geom[0], v_geom[1]):
        idx = _window(np.arange(lo, hi + 1), v_geom, lo) - lo
        np.add.at(buf, idx.ravel(), np.broadcast_to(g, v_geom[0]).ravel())
    else:
        _window(buf, v_geom, lo)[...] += g
    return np.array(_window(buf, x_geom, lo), order="C")


def gather_view(g2, x_geom, v_geom, dtype):
    """The view geometry applied to a tensor laid out like x (adjoint of scatter_view_grad)."""
    lo = min(_span(x_geom)[0], _span(v_geom)[0])
    hi = max(_span(x_geom)[1], _span(v_geom)[1])
    buf = np.zeros(hi - lo + 1, dtype)
    _window(buf, x_geom, lo)[...] = g2
    return np.array(_window(buf, v_geom, lo))


def _k_view_scatter(g, x_geom, v_geom):
    return scatter_view_grad(g, x_geom, v_geom, g.dtype)


def _b_view_scatter(ctx, g2):
    x_geom, v_geom = ctx.attrs
    return (R.dispatch(GATHER_OP, (g2,), (x_geom, v_geom)),)


def _k_gather(g2, x_geom, v_geom):
    return gather_view(g2, x_geom, v_geom, g2.dtype)


def _b_gather(ctx, g):
    x_geom, v_geom = ctx.attrs
    return (R.dispatch(SCATTER_OP, (g,), (x_geom, v_geom)),)


SCATTER_OP = OpDef("view_scatter", _k_view_scatter, _b_view_scatter, inputs=("g",),
                   attrs=(("x_geom", None), ("v_geom", None)), node_name="ViewScatterBackward")
GATHER_OP = OpDef("view_gather", _k_gather, _b_gather, inputs=("g",),
                  attrs=(("x_geom", None), ("v_geom", None)), node_name="ViewGatherBackward")


def _generic_view_backward(ctx, g):
    x_geom, v_geom = ctx.attrs[-2:]
    return (R.dispatch(SCATTER_OP, (g,), (x_geom, v_geom)),)


AS_STRIDED_NODE_OP = OpDef("as_strided_regen", None, _generic_view_backward,
                           attrs=(("x_geom", None), ("v_geom", None)),
                           node_name="AsStridedBackward")


def make_as_strided_node(base, view):
    """Regenerated grad_fn of a view whose base changed (Note [View grad_fn regeneration])."""
    from ..autograd.node import OpNode
    edge = base._edge()
    return OpNode(AS_STRIDED_NODE_OP, (geometry(base), geometry(view)), (edge,),
                  ((base._data.shape, base._data.dtype),))


class CopySlices(Node):
    """Backward of an in-place op applied to a view, installed as the base's grad_fn."""
    __slots__ = ("base_geom", "view_geom", "fn", "dtype")
    name = "CopySlices"

    def __init__(self, base, view, fn, base_edge):
        Node.__init__(self, (base_edge,) + tuple(fn.next_edges[1:]),
                      ((base._data.shape, base._data.dtype),) + tuple(fn.input_meta[1:]))
        self.base_geom = geometry(base)
        self.view_geom = geometry(view)
        self.fn = fn
        self.dtype = base._data.dtype

    def apply(self, grad):
        if grad_mode.is_grad_enabled():
            raise NotImplementedError(
                "create_graph=True through an in-place op on a view (CopySlices) is not "
                "supported yet; use out-of-place ops for higher-order gradients")
        bg, vg = self.base_geom, self.view_geom
        lo = min(_span(bg)[0], _span(vg)[0])
        hi = max(_span(bg)[1], _span(vg)[1])
        buf = np.zeros(hi - lo + 1, self.dtype)
        _window(buf, bg, lo)[...] = grad._data
        region = _window(buf, vg, lo)
        res = self.fn.apply(Tensor._wrap(np.array(region)))
        region[...] = 0 if res[0] is None else res[0]._data
        out0 = Tensor._wrap(np.array(_window(buf, bg, lo), order="C"))
        return (out0,) + tuple(res[1:])

    def release(self):
        self.fn.release()

    @property
    def released(self):
        return self.fn.released

    @released.setter
    def released(self, v):
        pass


# --------------------------------------------------------------------------- view ops
def _normalize_axis(axis, ndim, op):
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise IndexError(f"{op}: axis {axis} is out of range for a tensor with {ndim} "
                         f"dimensions (expected in [{-max(ndim, 1)}, {max(ndim, 1) - 1}])")
    return axis % max(ndim, 1)


def _shape_arg(shape, rest):
    if not rest and shape.__class__ in (list, tuple):
        t = tuple(shape)
        for s in t:
            if s.__class__ is not int:
                break
        else:
            return t
    if rest:
        return tuple(int(s) for s in (shape,) + tuple(rest))
    if isinstance(shape, Tensor):
        return tuple(int(s) for s in shape.tolist())
    if isinstance(shape, (list, tuple)):
        return tuple(int(s) if not isinstance(s, Tensor) else int(s.item()) for s in shape)
    return (int(shape),)


def infer_shape(shape, x_shape, numel, op):
    if -1 not in shape and 0 not in shape and _prod(shape) == numel and min(shape, default=1) > 0:
        return tuple(shape)
    shape = list(shape)
    if numel > 0 and 0 in shape and len(shape) <= len(x_shape):
        # Paddle: 0 copies the input's size at that position (a size-0 dim could not hold
        # `numel` > 0 elements, so there is no ambiguity with PyTorch's meaning).
        shape = [x_shape[i] if s == 0 else s for i, s in enumerate(shape)]
    if shape.count(-1) > 1:
        raise ValueError(f"{op}: only one dimension can be inferred (-1), got shape {shape}")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise ValueError(f"{op}: invalid shape dimension {s} in {shape}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise ValueError(f"{op}: shape '{shape}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise ValueError(f"{op}: shape '{shape}' is invalid for input of size {numel} "
                         f"(input shape {fmt_shape(x_shape)})")
    return tuple(shape)


def view_strides(oldshape, oldstride, newshape):
    """PyTorch's computeStride: element strides for viewing (oldshape, oldstride) as
    newshape, or None when no view exists (then reshape copies).

    Dims d-1 and d belong to one contiguous chunk iff oldstride[d-1] == oldshape[d] *
    oldstride[d]; the new shape must split into the same chunks."""
    numel = 1
    for n in oldshape:
        numel *= n
    if numel == 0:
        if tuple(oldshape) == tuple(newshape):
            return tuple(oldstride)
        return _contiguous_strides(newshape)
    if len(oldshape) == 0:
        return tuple(1 for _ in newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


def _contiguous_strides(shape):
    strides = []
    acc = 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def _b_reshape(ctx, g):
    return (g.reshape(list(ctx.input_meta[0][0])),)


def _k_view(a, shape):
    if 1 not in shape:
        # NumPy's no-copy reshape gives PyTorch's strides when no new dim has size 1
        # (strides of dims longer than 1 are fixed by the element order)
        return a.reshape(shape, copy=False)
    item = a.itemsize
    st = view_strides(a.shape, tuple(s // item for s in a.strides), shape)
    return strided(a, shape, tuple(s * item for s in st))


VIEW_OP = OpDef("view", _k_view, _b_reshape, kind="view", attrs=(("shape", None),),
                node_name="ViewBackward")
RESHAPE_OP = OpDef("reshape", _k_view, _b_reshape, kind="view", attrs=(("shape", None),),
                   node_name="ReshapeBackward")


def _k_reshape_copy(a, shape):
    return np.array(a.reshape(shape))


RESHAPE_COPY_OP = OpDef("reshape_copy", _k_reshape_copy, _b_reshape, attrs=(("shape", None),),
                        node_name="ReshapeBackward")


def view(x, shape_or_dtype=None, *rest, name=None, size=None):
    if size is not None:
        shape_or_dtype = size
    if isinstance(shape_or_dtype, str) or (not isinstance(shape_or_dtype, (list, tuple, int, Tensor))
                                           and shape_or_dtype is not None):
        raise NotImplementedError("view(dtype) is not supported; use astype()")
    shape = infer_shape(_shape_arg(shape_or_dtype, rest), x._data.shape, x._data.size, "view")
    if _strides_of(x, shape) is None:
        raise RuntimeError(
            f"view size is not compatible with input tensor's size and stride (input shape "
            f"{fmt_shape(x._data.shape)}, strides {list(x.stride())}, requested "
            f"{fmt_shape(shape)}): at least one dimension spans across two contiguous "
            "subspaces. Use .reshape(...) instead.") from None
    return dispatch_view(VIEW_OP, x, (shape,))


def reshape(x, shape=None, *rest, name=None):
    if not isinstance(x, Tensor):
        x = R.as_tensor(x)
    shape = infer_shape(_shape_arg(shape, rest), x._data.shape, x._data.size, "reshape")
    if shape == x._data.shape:
        return dispatch_view(RESHAPE_OP, x, (shape,))
    if 1 not in shape and x._data.size:
        try:
            arr = x._data.reshape(shape, copy=False)
        except ValueError:
            return R.dispatch(RESHAPE_COPY_OP, (x,), (shape,))
        return dispatch_view(RESHAPE_OP, x, (shape,), arrays=(arr,))
    if _strides_of(x, shape) is None:
        return R.dispatch(RESHAPE_COPY_OP, (x,), (shape,))
    return dispatch_view(RESHAPE_OP, x, (shape,))


def _strides_of(x, shape):
    a = x._data
    return view_strides(a.shape, tuple(s // a.itemsize for s in a.strides), shape)


def view_as(x, other, name=None):
    return view(x, list(other.shape))


def reshape_as(x, other, name=None):
    return reshape(x, list(other.shape))


def flatten(x, start_axis=0, stop_axis=-1, name=None, *, start_dim=None, end_dim=None):
    if start_dim is not None:
        start_axis = start_dim
    if end_dim is not None:
        stop_axis = end_dim
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, [1])
    s = _normalize_axis(start_axis, nd, "flatten")
    e = _normalize_axis(stop_axis, nd, "flatten")
    if s > e:
        raise ValueError(f"flatten: start_axis ({start_axis}) must not be after stop_axis ({stop_axis})")
    shp = x._data.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return reshape(x, list(shp[:s]) + [n] + list(shp[e + 1:]))


def _k_squeeze(a, axes):
    return np.squeeze(a, axis=axes)


SQUEEZE_OP = OpDef("squeeze", _k_squeeze, _b_reshape, kind="view", attrs=(("axes", None),))


def squeeze(x, axis=None, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    nd = x._data.ndim
    if axis is None:
        axes = tuple(i for i, n in enumerate(x._data.shape) if n == 1)
    else:
        axs = axis if isinstance(axis, (list, tuple)) else [axis]
        # like both references: squeezing a dim whose size is not 1 leaves it alone
        axes = tuple(sorted({_normalize_axis(int(a), nd, "squeeze") for a in axs
                             if nd and x._data.shape[_normalize_axis(int(a), nd, "squeeze")] == 1}))
    return dispatch_view(SQUEEZE_OP, x, (axes,))


def _k_unsqueeze(a, axes):
    """PyTorch's rule: the new dim's stride is size[d] * stride[d] of the dim it precedes
    (1 at the end)."""
    shape = list(a.shape)
    strides = list(a.strides)
    for d in sorted(axes):
        st = shape[d] * strides[d] if d < len(shape) else a.itemsize
        shape.insert(d, 1)
        strides.insert(d, st)
    return strided(a, tuple(shape), tuple(strides))


UNSQUEEZE_OP = OpDef("unsqueeze", _k_unsqueeze, _b_reshape, kind="view", attrs=(("axes", None),))


def unsqueeze(x, axis=None, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    axs = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    out_nd = x._data.ndim + len(axs)
    axes = []
    for a in axs:
        a = int(a)
        if not -out_nd <= a < out_nd:
            raise IndexError(f"unsqueeze: axis {a} out of range for result with {out_nd} dims")
        axes.append(a % out_nd)
    return dispatch_view(UNSQUEEZE_OP, x, (tuple(axes),))


def _k_permute(a, perm):
    return a.transpose(perm)


def _b_permute(ctx, g):
    perm = ctx.attrs[0]
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return (g.permute(inv),)


PERMUTE_OP = OpDef("permute", _k_permute, _b_permute, kind="view", attrs=(("perm", None),))
TRANSPOSE_OP = OpDef("transpose", _k_permute, _b_permute, kind="view", attrs=(("perm", None),))


def _check_perm(perm, nd, op):
    try:
        p = tuple([q + nd if q < 0 else q for q in perm])
    except TypeError:
        p = tuple(_normalize_axis(int(q), nd, op) for q in perm)
    if len(p) != nd or len(set(p)) != nd or (nd and (min(p) < 0 or max(p) >= nd)):
        raise ValueError(f"{op}: {list(perm)} is not a permutation of the {nd} dims")
    return p


def permute(x, *dims, name=None, perm=None):
    if perm is None:
        perm = dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims
    return dispatch_view(PERMUTE_OP, x, (_check_perm(perm, x._data.ndim, "permute"),))


def transpose(x, perm=None, dim1=None, name=None, *, dim0=None):
    """Paddle transpose(x, perm) and PyTorch transpose(x, dim0, dim1), told apart by arguments."""
    nd = x._data.ndim
    if dim0 is not None:
        perm, dim1 = dim0, dim1
    if isinstance(perm, (list, tuple)):
        p = _check_perm(perm, nd, "transpose")
    else:
        if dim1 is None:
            raise TypeError("transpose needs a permutation list (Paddle) or two dims (PyTorch)")
        a = _normalize_axis(int(perm), nd, "transpose")
        b = _normalize_axis(int(dim1), nd, "transpose")
        p = list(range(nd))
        p[a], p[b] = p[b], p[a]
        p = tuple(p)
    return dispatch_view(TRANSPOSE_OP, x, (p,))


def swapaxes(x, axis0, axis1, name=None):
    return transpose(x, axis0, axis1)


def t(x, name=None):
    if x._data.ndim > 2:
        raise ValueError(f"t() expects a tensor with <= 2 dimensions, got {x._data.ndim}")
    if x._data.ndim < 2:
        return dispatch_view(TRANSPOSE_OP, x, (tuple(range(x._data.ndim)),))
    return dispatch_view(TRANSPOSE_OP, x, ((1, 0),))


def T(x):
    return dispatch_view(TRANSPOSE_OP, x, (tuple(reversed(range(x._data.ndim))),))


def moveaxis(x, source, destination, name=None):
    nd = x._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_normalize_axis(s, nd, "moveaxis") for s in src]
    dst = [_normalize_axis(d, nd, "moveaxis") for d in dst]
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return dispatch_view(PERMUTE_OP, x, (tuple(order),))


def _k_expand(a, shape):
    # as_strided, not np.broadcast_to: the result must stay writable where the write is
    # legal (an expand that expands nothing); stride-0 writes are refused by the registry
    lead = len(shape) - a.ndim
    strides = [0] * lead + [0 if (n == 1 and s != 1) else st
                            for n, s, st in zip(a.shape, shape[lead:], a.strides)]
    return strided(a, tuple(shape), tuple(strides))


def _b_expand(ctx, g):
    return (g,)   # OpNode reduces the broadcast gradient to the input shape


EXPAND_OP = OpDef("expand", _k_expand, _b_expand, kind="view", attrs=(("shape", None),))


def expand(x, shape=None, *rest, name=None, size=None):
    if size is not None:
        shape = size
    shape = list(_shape_arg(shape, rest))
    xs = x._data.shape
    if len(shape) < len(xs):
        raise ValueError(f"expand: the number of sizes provided ({len(shape)}) must be greater or "
                         f"equal to the number of dimensions in the tensor ({len(xs)})")
    lead = len(shape) - len(xs)
    for i, n in enumerate(xs):
        s = shape[lead + i]
        if s == -1:
            shape[lead + i] = n
        elif n != 1 and s != n:
            raise ValueError(
                f"expand: the expanded size of the tensor ({s}) must match the existing size "
                f"({n}) at non-singleton dimension {lead + i}. Target sizes: {shape}. "
                f"Tensor sizes: {list(xs)}")
    return dispatch_view(EXPAND_OP, x, (tuple(shape),))


def broadcast_to(x, shape, name=None):
    return expand(x, shape)


def expand_as(x, other, name=None):
    return expand(x, list(other.shape))


# generic strided views: select, narrow, split pieces, diagonal, as_strided, unfold
def _generic_view(x, name, make, multi=False):
    """A view computed by `make(array) -> array (or list of arrays)`, with the generic
    backward of Note [View geometry]; geometry is computed only when a node is built."""
    arrs = make(x._data)
    op = _GENERIC.get(name)
    if op is None:
        op = _GENERIC[name] = OpDef(name, None, _generic_view_backward, kind="view",
                                    attrs=(("x_geom", None), ("v_geom", None)))
    if not multi:
        return dispatch_view(op, x, (), arrays=(arrs,),
                             out_attrs=lambda k: (geometry(x), _geom_of(x, arrs)))
    return list(dispatch_view(op, x, (), arrays=tuple(arrs), multi=True,
                              out_attrs=lambda k: (geometry(x), _geom_of(x, arrs[k]))))


def _geom_of(x, arr):
    item = arr.itemsize
    return (arr.shape, tuple(s // item for s in arr.strides),
            (arr.__array_interface__["data"][0] - x._storage.data_ptr()) // item)


_GENERIC: dict = {}


def select(x, dim=None, index=None, name=None, *, axis=None):
    d = _normalize_axis(dim if axis is None else axis, x._data.ndim, "select")
    n = x._data.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select: index {index} is out of bounds for dimension {d} with size {n}")
    key = (slice(None),) * d + (index, Ellipsis)   # Ellipsis: a 0-d view, never a scalar copy
    return _generic_view(x, "select", lambda a: a[key])


def narrow(x, dim, start, length, name=None):
    d = _normalize_axis(dim, x._data.ndim, "narrow")
    n = x._data.shape[d]
    start = int(start)
    if start < 0:
        start += n
    if start < 0 or length < 0 or start + length > n:
        raise IndexError(f"narrow: start ({start}) + length ({length}) exceeds dimension size ({n})")
    key = (slice(None),) * d + (slice(start, start + length),)
    return _generic_view(x, "narrow", lambda a: a[key])


def _pieces(x, sizes, d, name):
    key_pre = (slice(None),) * d
    bounds = []
    s = 0
    for n in sizes:
        bounds.append((s, s + n))
        s += n

    def make(a):
        return [a[key_pre + (slice(lo, hi),)] for lo, hi in bounds]
    return _generic_view(x, name, make, multi=True)


def split(x, num_or_sections, axis=0, name=None, *, dim=None, split_size_or_sections=None):
    """Paddle: an int is the number of pieces. PyTorch (`dim=` or `split_size_or_sections=`):
    an int is the size of each piece. A list gives the piece sizes in both (-1 infers one)."""
    torch_style = dim is not None or split_size_or_sections is not None
    if split_size_or_sections is not None:
        num_or_sections = split_size_or_sections
    if dim is not None:
        axis = dim
    d = _normalize_axis(axis, x._data.ndim, "split")
    n = x._data.shape[d]
    if isinstance(num_or_sections, int):
        k = num_or_sections
        if torch_style:
            sizes = [k] * (n // k) + ([n % k] if n % k else []) if k > 0 else []
        else:
            if k <= 0 or n % k:
                raise ValueError(f"split: the size of axis {d} ({n}) must be divisible by "
                                 f"num_or_sections ({k}); pass a list of sizes otherwise")
            sizes = [n // k] * k
    else:
        sizes = [int(s) for s in num_or_sections]
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n:
            raise ValueError(f"split: sections {list(num_or_sections)} don't add up to the "
                             f"size of axis {d} ({n})")
    return _pieces(x, sizes, d, "split")


def chunk(x, chunks, axis=0, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    d = _normalize_axis(axis, x._data.ndim, "chunk")
    n = x._data.shape[d]
    size = -(-n // chunks) if chunks > 0 else 0
    sizes = [size] * (n // size) + ([n % size] if size and n % size else []) if size else []
    return _pieces(x, sizes, d, "split")


def tensor_split(x, indices_or_sections, axis=0, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    d = _normalize_axis(axis, x._data.ndim, "tensor_split")
    n = x._data.shape[d]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
    else:
        idx = [min(max(int(i), 0), n) for i in indices_or_sections]
        bounds = [0] + idx + [n]
        sizes = [max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]
    # tensor_split is a composite of single-output slices in PyTorch: pieces may be modified
    key_pre = (slice(None),) * d
    out = []
    s = 0
    for sz in sizes:
        lo, hi = s, s + sz
        out.append(_generic_view(x, "tensor_split", lambda a, lo=lo, hi=hi: a[key_pre + (slice(lo, hi),)]))
        s += sz
    return out


def unbind(x, axis=0, name=None, *, dim=None):
    if dim is not None:
        axis = dim
    d = _normalize_axis(axis, x._data.ndim, "unbind")
    key_pre = (slice(None),) * d
    return _generic_view(x, "unbind",   # Ellipsis: 0-d views, never scalar copies
                         lambda a: [a[key_pre + (i, Ellipsis)] for i in range(a.shape[d])], multi=True)


def diagonal(x, offset=0, axis1=0, axis2=1, name=None, *, dim1=None, dim2=None):
    if dim1 is not None:
        axis1 = dim1
    if dim2 is not None:
        axis2 = dim2
    nd = x._data.ndim
    a1 = _normalize_axis(axis1, nd, "diagonal")
    a2 = _normalize_axis(axis2, nd, "diagonal")

    def make(a):
        shp, st = a.shape, a.strides
        n1, n2 = shp[a1], shp[a2]
        if offset >= 0:
            n = max(min(n1, n2 - offset), 0)
            start = a[(slice(None),) * a2 + (slice(min(offset, n2), None),)]
        else:
            n = max(min(n1 + offset, n2), 0)
            start = a[(slice(None),) * a1 + (slice(min(-offset, n1), None),)]
        rest = [i for i in range(nd) if i not in (a1, a2)]
        shape = tuple(shp[i] for i in rest) + (n,)
        strides = tuple(st[i] for i in rest) + (st[a1] + st[a2],)
        return _np_as_strided(start, shape=shape, strides=strides)
    return _generic_view(x, "diagonal", make)


def as_strided(x, shape, stride, offset=None, name=None, *, storage_offset=None):
    """Elements are addressed relative to the storage start (PyTorch's storage_offset)."""
    if storage_offset is not None:
        offset = storage_offset
    if offset is None:
        offset = x.storage_offset()
    shape = tuple(int(s) for s in shape)
    stride = tuple(int(s) for s in stride)
    buf = x._storage.buffer.reshape(-1)
    item = buf.itemsize
    lo, hi = _span((shape, stride, offset))
    if shape and 0 not in shape and (lo < 0 or hi >= buf.size):
        raise RuntimeError(f"as_strided: size {list(shape)}, stride {list(stride)}, offset "
                           f"{offset} reaches outside the storage of {buf.size} elements")

    def make(a):
        return _np_as_strided(buf[offset:], shape=shape, strides=tuple(s * item for s in stride))
    return _generic_view(x, "as_strided", make)


def unfold(x, axis, size, step, name=None, *, dimension=None):
    if dimension is not None:
        axis = dimension
    d = _normalize_axis(axis, x._data.ndim, "unfold")
    n = x._data.shape[d]
    if size > n:
        raise ValueError(f"unfold: size {size} exceeds dimension {d} of size {n}")
    if step <= 0:
        raise ValueError(f"unfold: step must be > 0, got {step}")

    def make(a):
        cnt = (n - size) // step + 1
        shape = a.shape[:d] + (cnt,) + a.shape[d + 1:] + (size,)
        strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1:] + (a.strides[d],)
        return _np_as_strided(a, shape=shape, strides=strides)
    return _generic_view(x, "unfold", make)


def detach(x, name=None):
    """Shares storage and version counter; not a differentiable view (no grad history)."""
    return Tensor._wrap(x._data, x._storage)


def detach_(x, name=None):
    if x._view is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    x._grad_fn = None
    x._requires_grad = False
    return x


def contiguous(x, name=None, memory_format=None):
    if x._data.flags.c_contiguous:
        return x
    return R.OPS["clone"].call(x)


for _name, _fn in dict(view=view, reshape=reshape, view_as=view_as, reshape_as=reshape_as,
                       flatten=flatten, squeeze=squeeze, unsqueeze=unsqueeze, permute=permute,
                       transpose=transpose, swapaxes=swapaxes, swapdims=swapaxes, t=t,
                       moveaxis=moveaxis, movedim=moveaxis, expand=expand,
                       broadcast_to=broadcast_to, expand_as=expand_as, select=select,
                       narrow=narrow, split=split, chunk=chunk, tensor_split=tensor_split,
                       unbind=unbind, diagonal=diagonal, as_strided=as_strided, unfold=unfold,
                       detach=detach, detach_=detach_, contiguous=contiguous).items():
    R.register_function(_name, _fn)
Tensor.T = property(T)
Tensor.mT = property(lambda x: transpose(x, -2, -1))
