"""View ops: results share storage and version counter; each has its own shape/strides."""
# Note [View geometry]
# Geometry = (shape, strides, offset) in elements, relative to the start of the storage's
# root buffer. The generic view backward scatters the gradient into a scratch buffer laid out
# like the input (x's geometry), through the view's geometry, so every view kind (select,
# narrow, diagonal, unfold, as_strided, ...) shares one exact backward, including views whose
# elements overlap (np.add.at accumulates them).
#
# When the *input* x overlaps itself (it was made by expand, unfold or as_strided, so several
# of its elements are one memory location), memory cannot tell its elements apart:
# - as_strided is defined on memory: its backward divides the gradient gathered at each
#   location by the number of x's elements that live there (PyTorch's as_strided_backward,
#   step 3), so `x.expand(5, 5).as_strided([5, 5], [0, 1], 0).sum()` gives x.grad == 5, not 25;
# - every other view (select, narrow, diagonal, unfold, slices ...) is defined on x's
#   elements: its geometry is recomputed on a dense stand-in of x's shape (`_grad_geoms`),
#   which overlaps nowhere, so the memory picture is exact again.

# Note [View extent]
# Every view's reachable extent (lowest to highest element address) lies inside its
# storage's root buffer, or the op raises before any view exists. Views NumPy makes itself
# (basic slicing, transpose, squeeze, reshape(copy=False)) cannot leave their source. Every
# view with hand-made strides goes through `strided()`, the one place that builds them, which
# refuses an extent outside its source array (for as_strided, the source is the whole storage,
# `_storage_flat`). tests/test_view_safety.py checks the rule for every view op with random,
# also bad, arguments.

from __future__ import annotations

import functools
from math import prod as _prod

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_numpy_as_strided

from .. import _xp


def _np_as_strided(a, shape=None, strides=None, **kwargs):
    """as_strided on any place: NumPy's for NumPy arrays, the array module's for device ones
    (NumPy's would make a CPU array of a fake-device one; Note [Array module per place])."""
    if a.__class__ is np.ndarray:
        return _np_numpy_as_strided(a, shape=shape, strides=strides, **kwargs)
    return _xp.array_module(a).lib.stride_tricks.as_strided(a, shape, strides)

from ..autograd.errors import ArgTypeError, ArgValueError, AxisError
from ..autograd.inplace import has_internal_overlap
from ..dtypes import DType, as_dtype
from ..tensor import FIELD_CLASSES as _FIELDS, Tensor, wrap_as
from . import args as A
from . import registry as R
from .registry import OpDef, dispatch_view, fmt_shape


class ViewExtentError(ArgValueError):
    """A view would reach memory outside its storage (PyTorch: RuntimeError)."""


# --------------------------------------------------------------------------- geometry
def geometry(t):
    a = t._data
    item = a.itemsize
    off = (_xp.data_ptr(a) - t._storage.data_ptr()) // item
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


def extent(a):
    """[lo, hi): the byte addresses array `a` reaches; None when it has no element."""
    if a.size == 0:
        return None
    lo = hi = _xp.data_ptr(a)
    for n, s in zip(a.shape, a.strides):
        if s >= 0:
            hi += s * (n - 1)
        else:
            lo += s * (n - 1)
    return lo, hi + a.itemsize


def storage_extent(storage):
    """[lo, hi): the byte addresses the storage's root buffer spans (any memory order)."""
    b = storage.buffer
    if b.flags.c_contiguous or b.flags.f_contiguous:
        p = _xp.data_ptr(b)
        return p, p + b.nbytes
    e = extent(b)
    if e is None:
        p = _xp.data_ptr(b)
        return p, p
    return e


def _fmt_bytes_as_elements(lo, hi, base, item):
    return f"[{(lo - base) // item}, {(hi - base) // item - 1}]"


def strided(a, shape, strides, op="view"):
    """A view of a's memory with these byte strides, starting at a's first element; every
    element it reaches must be inside a's extent (Note [View extent]), else ViewExtentError.

    np.ndarray(buffer=a) costs a quarter of numpy's as_strided and checks the bounds in C;
    it needs a C-contiguous `a`. Otherwise (or when it refuses) the bounds are checked here."""
    if a.__class__ is np.ndarray and a.flags.c_contiguous:
        try:
            return np.ndarray(shape, a.dtype, buffer=a, offset=0, strides=strides)
        except (TypeError, ValueError):
            pass
    shape = tuple(shape)
    strides = tuple(strides)
    if len(shape) != len(strides) or min(shape, default=0) < 0:
        raise ArgValueError(f"{op}(): size {list(shape)} and stride {list(strides)} do not "
                            "describe a tensor (lengths differ or a size is negative)")
    if 0 not in shape:
        src = extent(a)
        p = _xp.data_ptr(a)
        lo = hi = p
        for n, s in zip(shape, strides):
            if s >= 0:
                hi += s * (n - 1)
            else:
                lo += s * (n - 1)
        hi += a.itemsize
        if src is None or lo < src[0] or hi > src[1]:
            item = a.itemsize
            have = "no element" if src is None else \
                f"elements {_fmt_bytes_as_elements(src[0], src[1], p, item)}"
            raise ViewExtentError(
                f"{op}(): a view of size {list(shape)} and stride "
                f"{[s // item for s in strides]} would reach elements "
                f"{_fmt_bytes_as_elements(lo, hi, p, item)} relative to its first element, "
                f"outside the memory it may address ({have}). Fix: choose sizes, strides "
                "and offset that stay inside the tensor.")
    return _np_as_strided(a, shape=shape, strides=strides)


def _storage_flat(storage):
    """(flat, lo): a 1-D view of all the memory the storage's root buffer spans, in memory
    order, and the element offset of flat[0] relative to storage.data_ptr() (0 unless the
    buffer has negative strides). Never a copy: writes through it reach the storage (a
    column-major or otherwise non-C-contiguous root must not be flattened by reshape(-1),
    which would copy)."""
    b = storage.buffer
    if b.flags.c_contiguous:
        return b.reshape(-1), 0
    item = b.itemsize
    if b.size == 0:
        return b.reshape(-1), 0
    if any(s < 0 for s in b.strides):
        b2 = b[tuple(slice(None, None, -1) if s < 0 else slice(None) for s in b.strides)]
    else:
        b2 = b
    n = 1 + sum((m - 1) * s for m, s in zip(b2.shape, b2.strides)) // item
    lo = (_xp.data_ptr(b2) - _xp.data_ptr(b)) // item
    return _np_as_strided(b2, shape=(n,), strides=(item,)), lo


def _overlaps(shape, strides):
    a = np.lib.stride_tricks.as_strided(np.empty(1, np.int8), shape=shape, strides=strides)
    return has_internal_overlap(a)


def _multiplicity(geom, lo, size):
    """How many elements of the geometry live at each location of a [lo, lo + size) buffer."""
    idx = _window(np.arange(lo, lo + size), geom, lo) - lo
    return np.bincount(idx.ravel(), minlength=size)


def scatter_view_grad(g, x_geom, v_geom, dtype):
    """Gradient w.r.t. x (x's shape, C-contiguous) of the view v = x[v_geom].

    Where x's elements overlap, each location's gradient is shared out among the elements
    of x that live there (Note [View geometry]; PyTorch's as_strided_backward)."""
    lo = min(_span(x_geom)[0], _span(v_geom)[0])
    hi = max(_span(x_geom)[1], _span(v_geom)[1])
    xp = _xp.array_module(g)
    buf = xp.zeros(hi - lo + 1, dtype)
    if _overlaps(v_geom[0], v_geom[1]):
        idx = _window(xp.arange(lo, hi + 1), v_geom, lo) - lo
        np.add.at(buf, idx.ravel(), np.broadcast_to(g, v_geom[0]).ravel())
    else:
        _window(buf, v_geom, lo)[...] += g
    if _overlaps(x_geom[0], x_geom[1]):
        count = xp.asarray(_multiplicity(x_geom, lo, buf.size))
        np.divide(buf, count, out=buf, where=count > 0)
    return _xp.array(_window(buf, x_geom, lo), order="C")


def gather_view(g2, x_geom, v_geom, dtype):
    """The view geometry applied to a tensor laid out like x (adjoint of scatter_view_grad:
    where x's elements overlap, a location holds the mean of x's elements there)."""
    lo = min(_span(x_geom)[0], _span(v_geom)[0])
    hi = max(_span(x_geom)[1], _span(v_geom)[1])
    xp = _xp.array_module(g2)
    buf = xp.zeros(hi - lo + 1, dtype)
    if _overlaps(x_geom[0], x_geom[1]):
        idx = _window(xp.arange(lo, hi + 1), x_geom, lo) - lo
        np.add.at(buf, idx.ravel(), np.broadcast_to(g2, x_geom[0]).ravel())
        count = xp.asarray(_multiplicity(x_geom, lo, buf.size))
        np.divide(buf, count, out=buf, where=count > 0)
    else:
        _window(buf, x_geom, lo)[...] = g2
    return _xp.array(_window(buf, v_geom, lo))


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
                   attrs=(("x_geom", None), ("v_geom", None)), node_name="ViewScatterBackward",
                   doc="Internal: a view's gradient scattered into zeros of its base's geometry.")
GATHER_OP = OpDef("view_gather", _k_gather, _b_gather, inputs=("g",),
                  attrs=(("x_geom", None), ("v_geom", None)), node_name="ViewGatherBackward",
                  doc="Internal: a view's geometry gathered out of its base's gradient.")


def _generic_view_backward(ctx, g):
    x_geom, v_geom = ctx.attrs[-2:]
    if ctx.op.name in ("as_strided", "as_strided_regen") and not (_prod(x_geom[0]) and _prod(v_geom[0])):
        # PyTorch's as_strided_backward returns plain zeros when either side is empty, so
        # a higher-order gradient through it carries no history (requires_grad False).
        return (wrap_as(g._result_class, np.zeros(x_geom[0], g._data.dtype)),)
    return (R.dispatch(SCATTER_OP, (g,), (x_geom, v_geom)),)


AS_STRIDED_NODE_OP = OpDef("as_strided_regen", None, _generic_view_backward,
                           attrs=(("x_geom", None), ("v_geom", None)),
                           node_name="AsStridedBackward",
                           doc="Internal: a view's as_strided node, regenerated after an in-place op.")


def make_as_strided_node(base, view):
    """Regenerated grad_fn of a view whose base changed (Note [View grad_fn regeneration])."""
    from ..autograd.node import OpNode
    edge = base._edge()
    return OpNode(AS_STRIDED_NODE_OP, (geometry(base), geometry(view)), (edge,),
                  ((base._data.shape, base._data.dtype),))


# --------------------------------------------------------------------------- view ops
# Arguments go through the argument layer (Note [Argument layer], ops/args.py): axes with
# range checks, integers only. The common case (a list/tuple of Python ints) is checked
# inline, without a call, because reshape/view are on the hot path.
def _shape_arg(shape, rest, op):
    if not rest and shape.__class__ in (list, tuple):
        for s in shape:
            if s.__class__ is not int:
                break
        else:
            return tuple(shape)
    if rest:
        return A.shape((shape,) + tuple(rest), op, allow_infer=True)
    if shape is None:
        raise ArgTypeError(f"{op}(): missing the shape argument. Fix: pass a list of ints, "
                           f"e.g. x.{op}([2, 3])")
    return A.shape(shape, op, allow_infer=True)


def infer_shape(shape, x_shape, numel, op):
    if -1 not in shape and 0 not in shape and _prod(shape) == numel and min(shape, default=1) > 0:
        return tuple(shape)
    shape = list(shape)
    if numel > 0 and 0 in shape and len(shape) <= len(x_shape):
        # Paddle: 0 copies the input's size at that position (a size-0 dim could not hold
        # `numel` > 0 elements, so there is no ambiguity with PyTorch's meaning).
        shape = [x_shape[i] if s == 0 else s for i, s in enumerate(shape)]
    if shape.count(-1) > 1:
        raise ArgValueError(f"{op}(): only one dimension can be inferred (-1), got shape "
                            f"{shape}")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise ArgValueError(f"{op}(): invalid shape dimension {s} in {shape}; sizes "
                                    "must be >= 0 (or -1 to infer one)")
            known *= s
    if -1 in shape:
        if known == 0:   # PyTorch's words: any size would do
            raise ArgValueError(f"{op}(): shape '{shape}' is invalid for input of size "
                                f"{numel} because the unspecified dimension size -1 can be "
                                f"any value and is ambiguous (input shape {fmt_shape(x_shape)})")
        if numel % known:
            raise ArgValueError(f"{op}(): shape '{shape}' is invalid for input of size "
                                f"{numel} (input shape {fmt_shape(x_shape)})")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise ArgValueError(f"{op}(): shape '{shape}' is invalid for input of size {numel} "
                            f"(input shape {fmt_shape(x_shape)}); the sizes must multiply "
                            f"to {numel}")
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
    return strided(a, shape, tuple(s * item for s in st), "view")


VIEW_OP = OpDef("view", _k_view, _b_reshape, kind="view", attrs=(("shape", None),),
                node_name="ViewBackward",
                doc="x with a new shape, sharing x's storage (an error when that needs a copy).")
RESHAPE_OP = OpDef("reshape", _k_view, _b_reshape, kind="view", attrs=(("shape", None),),
                   node_name="ReshapeBackward",
                   doc="x with a new shape: a view when the strides allow it, else a copy.")


def _k_reshape_copy(a, shape):
    return _xp.array(a.reshape(shape))


RESHAPE_COPY_OP = OpDef("reshape_copy", _k_reshape_copy, _b_reshape, attrs=(("shape", None),),
                        node_name="ReshapeBackward",
                        doc="x with a new shape, in new memory (when no view is possible).")


def _is_dtype(value):
    if isinstance(value, (DType, np.dtype, type)):
        return True
    if isinstance(value, str):
        try:
            as_dtype(value)
            return True
        except TypeError:
            return False
    return False


# Note [View as another dtype]
# x.view(dtype) (both doors) reinterprets x's bytes: the result shares x's storage and
# version counter (a write through either shows in the other and bumps both), and carries no
# gradient (PyTorch's view.dtype is not differentiable). With the same element size, shape and
# strides stay. With another size, the last dim must be dense (stride 1) and scales by the
# size ratio; a larger element also needs the last size, the storage offset and every other
# stride divisible by the ratio, as PyTorch checks (in this order), so that the view has
# whole-element strides. Like detach(), the result is no autograd view of x. Paddle 3.3 follows the same rules (ValueError there).
def view_dtype(x, dt):
    """Note [View as another dtype]."""
    a = x._data
    size, vsize = a.itemsize, dt.itemsize
    if size != vsize:
        what = (f"to view {_torch_type_name(a.dtype)} as {_torch_type_name(dt.np)} "
                "(different element sizes)")
        if a.ndim == 0:
            raise ArgValueError(f"view(): self.dim() cannot be 0 {what}")
        st = x.stride()
        if st[-1] != 1:
            raise ArgValueError(f"view(): self.stride(-1) must be 1 {what}, but got {st[-1]}")
        if vsize > size:
            r = vsize // size
            if a.shape[-1] % r:
                raise ArgValueError(f"view(): self.size(-1) must be divisible by {r} {what}, "
                                    f"but got {a.shape[-1]}")
            off = x.storage_offset()
            if off % r:
                raise ArgValueError(f"view(): self.storage_offset() must be divisible by {r} "
                                    f"{what}, but got {off}")
            for i, s_ in enumerate(st[:-1]):
                if s_ % r:
                    raise ArgValueError(f"view(): self.stride({i}) must be divisible by {r} "
                                        f"{what}, but got {s_}")
    # like detach(): x's storage (so its version counter), no history
    return wrap_as(x._result_class, a.view(dt.np), x._storage)


def view(x, shape_or_dtype=None, *rest, name=None, size=None):
    """A view of x with a new shape (one -1 is inferred); an error where that needs a copy."""
    if size is not None:
        shape_or_dtype = size
    sizes = _fast_shape(x, shape_or_dtype, rest)
    if sizes is not None:   # Note [Fast reshape]
        return R.view_of(VIEW_OP, x, x._data.reshape(sizes), (sizes,))
    if shape_or_dtype.__class__ not in (list, tuple) and _is_dtype(shape_or_dtype):
        if rest:
            raise ArgTypeError(f"view(): a dtype is the only argument of view(dtype), got "
                               f"{shape_or_dtype!r} followed by {list(rest)}")
        return view_dtype(x, as_dtype(shape_or_dtype))
    shape = infer_shape(_shape_arg(shape_or_dtype, rest, "view"), x._data.shape,
                        x._data.size, "view")
    if _strides_of(x, shape) is None:
        raise ArgValueError(
            f"view size is not compatible with input tensor's size and stride (input shape "
            f"{fmt_shape(x._data.shape)}, strides {list(x.stride())}, requested "
            f"{fmt_shape(shape)}): at least one dimension spans across two contiguous "
            "subspaces. Use .reshape(...) instead.") from None
    return dispatch_view(VIEW_OP, x, (shape,))


# Note [Fast reshape]
# Sizes that are all ints >= 2 (nothing to infer; 0 and 1 are left to the general path,
# which knows PyTorch's strides for them: scope, tests/test_fast_paths_eager.py finds no
# case where NumPy's differ), as one list/tuple or as separate ints (torch's
# x.reshape(4, 16)), and a C-contiguous x of a field class (Note [Field classes]) with the
# same number of elements (else NumPy's own error would leak): then NumPy's reshape is a view with PyTorch's strides, exactly
# what the general path computes with reshape(copy=False). Autograd and the view's metadata
# are view_of's, as always. view() takes it too: a C-contiguous x can always be viewed so.
def _fast_shape(x, shape, rest):
    """The sizes as a tuple when Note [Fast reshape] applies, else None."""
    if x.__class__ not in _FIELDS:
        return None
    if rest:
        if shape.__class__ is not int:
            return None
        shape = (shape,) + rest
    elif shape.__class__ is not list and shape.__class__ is not tuple:
        return None
    n = 1
    for s in shape:
        if s.__class__ is not int or s < 2:
            return None
        n *= s
    a = x._data
    if n == a.size and a.flags.c_contiguous:
        return tuple(shape)
    return None


def reshape(x, shape=None, *rest, name=None):
    """x with a new shape (one -1 is inferred): a view when the strides allow, else a copy."""
    sizes = _fast_shape(x, shape, rest)
    if sizes is not None:   # Note [Fast reshape]
        return R.view_of(RESHAPE_OP, x, x._data.reshape(sizes), (sizes,))
    if not isinstance(x, Tensor):
        x = R.as_tensor(x)
    shape = infer_shape(_shape_arg(shape, rest, "reshape"), x._data.shape, x._data.size,
                        "reshape")
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


def _tensor_first(fn, op):
    """The function spelling of a view op: its first operand must be a tensor."""
    @functools.wraps(fn)
    def call(x, *args, **kwargs):
        if not isinstance(x, Tensor):
            raise ArgTypeError(f"{op}(): argument 'x' must be a Tensor, got "
                               f"{type(x).__name__}. Fix: convert it with oar.to_tensor(...)")
        return fn(x, *args, **kwargs)
    return call


def _other_shape(other, op):
    if not isinstance(other, Tensor):
        raise ArgTypeError(f"{op}(): argument 'other' must be a Tensor, got "
                           f"{type(other).__name__}. Fix: pass a tensor, or call "
                           f"{op.replace('_as', '')}(shape) with the shape")
    return list(other._data.shape)


def view_as(x, other, name=None):
    """A view of x with other's shape."""
    return view(x, _other_shape(other, "view_as"))


def reshape_as(x, other, name=None):
    """x reshaped to other's shape (a view when possible)."""
    return reshape(x, _other_shape(other, "reshape_as"))


def flatten(x, start_axis=0, stop_axis=-1, name=None, *, start_dim=None, end_dim=None):
    """x with axes start_axis .. stop_axis merged into one (a view when possible)."""
    if start_dim is not None:
        start_axis = start_dim
    if end_dim is not None:
        stop_axis = end_dim
    nd = x._data.ndim
    s = A.axis(start_axis, nd, "flatten", "start_axis")
    e = A.axis(stop_axis, nd, "flatten", "stop_axis")
    if nd == 0:
        return reshape(x, [1])
    if s > e:
        raise ArgValueError(f"flatten() has invalid args: start_dim cannot come after "
                            f"end_dim (start {start_axis}, end {stop_axis}, tensor of shape "
                            f"{fmt_shape(x._data.shape)})")
    shp = x._data.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return reshape(x, list(shp[:s]) + [n] + list(shp[e + 1:]))


def _k_squeeze(a, axes, overload=1):
    return np.squeeze(a, axis=axes)


# `overload` is PyTorch's overload the call spelled, which names the node (Note [Node names]):
# squeeze() SqueezeBackward0, squeeze(dim) SqueezeBackward1, squeeze(dims) SqueezeBackward2
SQUEEZE_OP = OpDef("squeeze", _k_squeeze, _b_reshape, kind="view",
                   attrs=(("axes", None), ("overload", 1)),
                   doc="A view of x without the given size-1 axes (all of them when None).")


def squeeze(x, axis=None, name=None, *, dim=None):
    """A view of x without the given size-1 axes (all size-1 axes when None)."""
    if dim is not None:
        axis = dim
    nd = x._data.ndim
    shp = x._data.shape
    if axis is None:
        axes = tuple(i for i, n in enumerate(shp) if n == 1)
    else:
        # like both references: squeezing a dim whose size is not 1 leaves it alone
        axes = tuple(sorted(a for a in A.axes(axis, nd, "squeeze") if nd and shp[a] == 1))
    overload = 0 if axis is None else 2 if isinstance(axis, (list, tuple)) else 1
    return dispatch_view(SQUEEZE_OP, x, (axes, overload))


def _k_unsqueeze(a, axes):
    """PyTorch's rule: the new dim's stride is size[d] * stride[d] of the dim it precedes
    (1 at the end)."""
    shape = list(a.shape)
    strides = list(a.strides)
    for d in sorted(axes):
        st = shape[d] * strides[d] if d < len(shape) else a.itemsize
        shape.insert(d, 1)
        strides.insert(d, st)
    return strided(a, tuple(shape), tuple(strides), "unsqueeze")


UNSQUEEZE_OP = OpDef("unsqueeze", _k_unsqueeze, _b_reshape, kind="view", attrs=(("axes", None),),
                     doc="A view of x with size-1 axes inserted at the given positions.")


def unsqueeze(x, axis=None, name=None, *, dim=None):
    """A view of x with a size-1 axis inserted at each given position."""
    if dim is not None:
        axis = dim
    if axis.__class__ is int:
        a = x._data
        sh = a.shape
        out_nd = len(sh) + 1
        if -out_nd <= axis < out_nd:
            d = axis + out_nd if axis < 0 else axis
            if 1 not in sh and 0 not in sh and a.flags.c_contiguous:
                # Note [Fast unsqueeze]
                # x C-contiguous with no dim of size 0 or 1 has exactly the contiguous
                # strides, so NumPy's reshape gives the new dim the stride of the contiguous
                # layout, size[d] * stride[d] (the item size at the end): PyTorch's rule,
                # which _k_unsqueeze computes for any x, here without building an ndarray by
                # hand. A size-1 dim may carry any stride (NumPy's contiguity ignores it,
                # PyTorch keeps it), so it is excluded.
                shape = (1,) + sh if d == 0 else sh[:d] + (1,) + sh[d:]
                return R.view_of(UNSQUEEZE_OP, x, a.reshape(shape), ((d,),))
            return dispatch_view(UNSQUEEZE_OP, x, ((d,),))
    axs = axis if isinstance(axis, (list, tuple)) else [axis]
    axes = A.axes(axs, x._data.ndim + len(axs), "unsqueeze")
    return dispatch_view(UNSQUEEZE_OP, x, (axes,))


def _k_permute(a, perm):
    return a.transpose(perm)


def _b_permute(ctx, g):
    perm = ctx.attrs[0]
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return (g.permute(inv),)


PERMUTE_OP = OpDef("permute", _k_permute, _b_permute, kind="view", attrs=(("perm", None),),
                   doc="A view of x with its axes reordered by perm.")
TRANSPOSE_OP = OpDef("transpose", _k_permute, _b_permute, kind="view", attrs=(("perm", None),),
                     doc="A view of x with its axes reordered (or two axes swapped).")
T_OP = OpDef("t", _k_permute, _b_permute, kind="view", attrs=(("perm", None),),
             node_name="TBackward", doc="A view of a tensor of at most 2 dims, transposed.")


_ALL_AXES = tuple(frozenset(range(n)) for n in range(65))   # NumPy's limit is 64 dims


def _check_perm(perm, nd, op):
    """The permutation as a tuple of dims in [0, nd), each once; else the argument layer's
    error."""
    for q in perm:
        if q.__class__ is not int:
            break
    else:
        # Note [Fast permutation check]
        # Python ints (not bools, whose hash and == match 0 and 1), nd of them, whose set is
        # exactly {0, ..., nd-1}: then each dim appears once and none is negative or out of
        # range, which is all the checks below establish. One set comparison instead of a
        # normalising list, a set, min and max.
        if len(perm) == nd and set(perm) == _ALL_AXES[nd]:
            return tuple(perm)
        p = tuple([q + nd if q < 0 else q for q in perm])
        if len(p) == nd and len(set(p)) == nd and (not nd or (min(p) >= 0 and max(p) < nd)):
            return p
    if len(perm) != nd:
        raise ArgValueError(f"{op}(): the number of dims in the permutation {list(perm)} "
                            f"({len(perm)}) does not match the tensor's {nd} dims. Fix: list each dim exactly "
                            "once")
    return A.axes(tuple(perm), nd, op, "dims")


def permute(x, *dims, name=None, perm=None):
    """A view of x with its axes reordered (x.permute(1, 0) or permute(x, [1, 0]))."""
    if perm is None:
        perm = dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims
    return dispatch_view(PERMUTE_OP, x, (_check_perm(perm, x._data.ndim, "permute"),))


def transpose(x, perm=None, dim1=None, name=None, *, dim0=None):
    """Paddle transpose(x, perm) and PyTorch transpose(x, dim0, dim1), told apart by arguments."""
    nd = x._data.ndim
    if dim0 is not None:
        perm, dim1 = dim0, dim1
    c = perm.__class__
    if c is list or c is tuple or isinstance(perm, (list, tuple)):
        p = _check_perm(perm, nd, "transpose")
    else:
        if dim1 is None:
            raise ArgTypeError("transpose(): needs a permutation list (Paddle) or two dims "
                               "(PyTorch)")
        return swap_dims(x, A.axis(perm, nd, "transpose", "dim0"),
                         A.axis(dim1, nd, "transpose", "dim1"))
    return R.view_of(TRANSPOSE_OP, x, x._data.transpose(p), (p,))


def swap_dims(x, a, b):
    """The view of x with dims a and b (normalised, in range) exchanged: transpose's body."""
    nd = x._data.ndim
    p = list(range(nd))
    if nd:
        p[a], p[b] = p[b], p[a]
    p = tuple(p)
    return R.view_of(TRANSPOSE_OP, x, x._data.transpose(p), (p,))


def swapaxes(x, axis0, axis1, name=None):
    """A view of x with axes axis0 and axis1 exchanged."""
    return transpose(x, axis0, axis1)


def t(x, name=None):
    """A view of a tensor of at most 2 dims with its two axes exchanged."""
    if x._data.ndim > 2:
        raise ArgValueError(f"t() expects a tensor with <= 2 dimensions, but self is "
                            f"{x._data.ndim}D (shape {fmt_shape(x._data.shape)}). Fix: use "
                            "transpose(dim0, dim1)")
    if x._data.ndim < 2:
        return dispatch_view(T_OP, x, (tuple(range(x._data.ndim)),))
    return dispatch_view(T_OP, x, ((1, 0),))


def T(x):
    """Tensor.T: a view of x with all its axes reversed (a permute, as PyTorch's)."""
    return dispatch_view(PERMUTE_OP, x, (tuple(reversed(range(x._data.ndim))),))


def moveaxis(x, source, destination, name=None):
    """A view of x with the source axes moved to the destination positions."""
    nd = x._data.ndim
    src = list(source) if isinstance(source, (list, tuple)) else [source]
    dst = list(destination) if isinstance(destination, (list, tuple)) else [destination]
    if len(src) != len(dst):
        raise ArgValueError(f"moveaxis(): source {src} and destination {dst} must have the "
                            "same number of dims")
    src = A.axes(src, nd, "moveaxis", "source")
    dst = A.axes(dst, nd, "moveaxis", "destination")
    if nd == 0:
        return dispatch_view(PERMUTE_OP, x, ((),))
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return dispatch_view(PERMUTE_OP, x, (tuple(order),))


def _k_expand(a, shape):
    # as_strided, not np.broadcast_to: the result must stay writable where the write is
    # legal (an expand that expands nothing); stride-0 writes are refused by the registry
    # strides as PyTorch's inferExpandGeometry: an expanded axis has stride 0; a new leading
    # axis of size 1 gets the stride a contiguous layout would give it (size * stride of the
    # axis after it), so x.expand(1, 1, n) has x.unsqueeze(0).unsqueeze(0)'s strides
    lead = len(shape) - a.ndim
    strides = [0] * len(shape)
    for i in range(len(shape) - 1, -1, -1):
        d = i - lead
        if d >= 0:
            n, st = a.shape[d], a.strides[d]
        else:
            n = 1
            st = shape[i + 1] * strides[i + 1] if i + 1 < len(shape) else a.itemsize
        strides[i] = 0 if n != shape[i] else st
    return strided(a, tuple(shape), tuple(strides), "expand")


def _b_expand(ctx, g):
    return (g,)   # OpNode reduces the broadcast gradient to the input shape


EXPAND_OP = OpDef("expand", _k_expand, _b_expand, kind="view", attrs=(("shape", None),),
                  doc="A view of x broadcast to a larger shape (stride 0 along expanded axes).")


def expand(x, shape=None, *rest, name=None, size=None):
    """A view of x broadcast to shape (-1 keeps a size), without copying (stride 0)."""
    if size is not None:
        shape = size
    shape = list(_shape_arg(shape, rest, "expand"))
    xs = x._data.shape
    if len(shape) < len(xs):
        raise ArgValueError(f"expand(): the number of sizes provided ({len(shape)}) must be "
                            f"greater or equal to the number of dimensions in the tensor "
                            f"({len(xs)}, shape {fmt_shape(xs)})")
    lead = len(shape) - len(xs)
    for i in range(lead):
        if shape[i] < 0:
            raise ArgValueError(f"expand(): the expanded size of the tensor ({shape[i]}) isn't "
                                f"allowed in a leading, non-existing dimension {i}. Target "
                                f"sizes: {shape}. Tensor sizes: {list(xs)}")
    for i, n in enumerate(xs):
        s = shape[lead + i]
        if s == -1:
            shape[lead + i] = n
        elif s != n and (n != 1 or s < 0):
            raise ArgValueError(
                f"expand(): The expanded size of the tensor ({s}) must match the existing "
                f"size ({n}) at non-singleton dimension {lead + i}. Target sizes: {shape}. "
                f"Tensor sizes: {list(xs)}")
    return dispatch_view(EXPAND_OP, x, (tuple(shape),))


def broadcast_to(x, shape, name=None):
    """A view of x broadcast to shape, without copying."""
    return expand(x, shape)


def expand_as(x, other, name=None):
    """A view of x broadcast to other's shape, without copying."""
    return expand(x, _other_shape(other, "expand_as"))


# generic strided views: select, narrow, split pieces, diagonal, as_strided, unfold
def _generic_view(x, name, make, multi=False, arrays=None):
    """A view computed by `make(array) -> array (or list of arrays)`, with the generic
    backward of Note [View geometry]; geometry is computed only when a node is built.

    `arrays`: the forward result when the caller already has it; `make` is then used only
    to redo the view on a dense stand-in when x overlaps itself (Note [View geometry])."""
    arrs = make(x._data) if arrays is None else arrays
    op = generic_view_op(name)
    if not multi:
        return dispatch_view(op, x, (), arrays=(arrs,),
                             out_attrs=lambda k: _grad_geoms(x, name, make, arrs, None))
    return list(dispatch_view(op, x, (), arrays=tuple(arrs), multi=True,
                              out_attrs=lambda k: _grad_geoms(x, name, make, arrs[k], k)))


def generic_view_op(name):
    """The OpDef of the strided view `name`, whose backward is Note [View geometry]'s."""
    op = _GENERIC.get(name)
    if op is None:
        op = _GENERIC[name] = OpDef(name, None, _generic_view_backward, kind="view",
                                    attrs=(("x_geom", None), ("v_geom", None)),
                                    doc=f"The {name} view of x (a window onto x's storage).")
    return op


def _grad_geoms(x, name, make, arr, k):
    """(x_geom, v_geom) for the backward of Note [View geometry]."""
    a = x._data
    if name != "as_strided" and has_internal_overlap(a):
        stand_in = _xp.array_module(a).empty(a.shape, np.dtype((np.void, a.itemsize)))
        res = make(stand_in)
        v = res if k is None else res[k]
        e, es = extent(v), extent(stand_in)
        if isinstance(v, np.ndarray) and (e is None or (es is not None and es[0] <= e[0]
                                                        and e[1] <= es[1])):
            item = a.itemsize
            base = stand_in.__array_interface__["data"][0]
            off = 0 if e is None else (v.__array_interface__["data"][0] - base) // item
            return ((a.shape, _contiguous_strides(a.shape), 0),
                    (v.shape, tuple(s // item for s in v.strides), off))
        # `make` ignored its argument (a precomputed view): memory is all we know
    return (geometry(x), _geom_of(x, arr))


def _geom_of(x, arr):
    item = arr.itemsize
    return (arr.shape, tuple(s // item for s in arr.strides),
            (arr.__array_interface__["data"][0] - x._storage.data_ptr()) // item)


_GENERIC: dict = {}


def _no_0d(x, op):
    if x._data.ndim == 0:
        raise AxisError(f"{op}() cannot be applied to a 0-dim tensor. Fix: reshape it to "
                          "[1] first")


def select(x, dim=None, index=None, name=None, *, axis=None):
    """A view of x at one index along dim, with that dim removed."""
    _no_0d(x, "select")
    d = A.axis(dim if axis is None else axis, x._data.ndim, "select", "dim")
    index = A.integer(index, "select", "index")
    n = x._data.shape[d]
    if not -n <= index < n:
        raise AxisError(f"select(): index {index} out of range for tensor of size "
                          f"{fmt_shape(x._data.shape)} at dimension {d} (valid range "
                          f"[{-n}, {n - 1}])")
    key = (slice(None),) * d + (index, Ellipsis)   # Ellipsis: a 0-d view, never a scalar copy
    return _generic_view(x, "select", lambda a: a[key])


def narrow(x, dim, start, length, name=None):
    """A view of x restricted to start .. start + length - 1 along dim."""
    _no_0d(x, "narrow")
    d = A.axis(dim, x._data.ndim, "narrow", "dim")
    n = x._data.shape[d]
    if isinstance(start, Tensor) and (start._data.ndim or start._data.dtype.kind not in "iu"):
        # PyTorch (and Paddle) take a tensor start only as a 0-d integer tensor
        raise ArgValueError(f"narrow(): start must be an 0-dim integral Tensor, got a "
                            f"{start.dtype.name} tensor of shape {fmt_shape(start._data.shape)}."
                            " Fix: pass int(start) or start.reshape([]).")
    start = A.integer(start, "narrow", "start")
    length = A.integer(length, "narrow", "length")
    if not -n <= start <= n:
        raise AxisError(f"narrow(): start out of range (expected to be in range of "
                          f"[{-n}, {n}], but got {start}) for dimension {d} of size {n}")
    if start < 0:
        start += n
    if length < 0:
        raise ArgValueError(f"narrow(): length must be non-negative, got {length}")
    if start + length > n:
        raise ArgValueError(f"narrow(): start ({start}) + length ({length}) exceeds dimension "
                            f"size ({n}) of dimension {d}")
    return _generic_view(x, "narrow", lambda a: _slice_dim(a, d, start, start + length))


def _paddle_bound(v, op, what):
    """A start/end of paddle.slice: an int or a one-element integer tensor."""
    if isinstance(v, Tensor):
        if v._data.size != 1 or v._data.dtype.kind not in "iu":
            raise ArgTypeError(f"{op}(): each of {what} must be an int or a one-element integer "
                               f"tensor, got a {v.dtype.name} tensor of shape "
                               f"{fmt_shape(v._data.shape)}")
        return int(v._data.reshape(-1)[0])
    return A.integer(v, op, what)


def slice_axes(input, axes, starts, ends):
    """paddle.slice: a view of input cut to [starts[i], ends[i]) along each axes[i]; negative
    bounds count from the end, bounds past the end are clamped (Python's slice rule)."""
    _no_0d(input, "slice")
    lists = []
    for what, v in (("axes", axes), ("starts", starts), ("ends", ends)):
        if isinstance(v, Tensor):
            v = v.tolist()
        if not isinstance(v, (list, tuple)):
            raise ArgTypeError(f"slice(): {what} must be a list or tuple, got "
                               f"{type(v).__name__}")
        lists.append(list(v))
    axes, starts, ends = lists
    if not len(axes) == len(starts) == len(ends):
        raise ArgValueError(f"slice(): axes, starts and ends must have the same length, got "
                            f"{len(axes)}, {len(starts)} and {len(ends)}")
    nd = input._data.ndim
    bounds = {}
    for ax, st, en in zip(axes, starts, ends):
        d = A.axis(ax, nd, "slice", "axes")
        n = input._data.shape[d]
        lo, hi, _ = builtins_slice(_paddle_bound(st, "slice", "starts"),
                                   _paddle_bound(en, "slice", "ends")).indices(n)
        bounds[d] = (lo, max(lo, hi))

    def cut(a):
        for d, (lo, hi) in bounds.items():
            a = _slice_dim(a, d, lo, hi)
        return a
    return _generic_view(input, "slice", cut)


builtins_slice = slice


class _At:
    """An object exposing an array interface; np.asarray of it is a view that keeps `base`."""
    __slots__ = ("__array_interface__", "base")


def _slice_dim(a, d, start, stop):
    """a[..., start:stop, ...] along dim d (0 <= start <= size), PyTorch's slice: an empty
    result still starts at `start` (NumPy would put every empty slice at offset 0; the
    offset is observable through storage_offset())."""
    if stop > start:
        return a[(slice(None),) * d + (slice(start, stop),)]
    shape = a.shape[:d] + (0,) + a.shape[d + 1:]
    if start == 0 or a.size == 0:
        return a[(slice(None),) * d + (slice(0, 0),)]
    it = dict(a.__array_interface__)
    it["data"] = (it["data"][0] + start * a.strides[d], it["data"][1])
    it["shape"], it["strides"] = shape, a.strides
    it.pop("descr", None)
    o = _At()
    o.__array_interface__, o.base = it, a
    return _xp.asarray(o)


def _pieces(x, sizes, d, name):
    bounds = []
    s = 0
    for n in sizes:
        bounds.append((s, s + n))
        s += n

    def make(a):
        return [_slice_dim(a, d, lo, hi) for lo, hi in bounds]
    return _generic_view(x, name, make, multi=True)


def split(x, num_or_sections, axis=0, name=None, **kwargs):
    """Paddle's split: an int is the number of pieces (the axis must divide evenly); a list
    gives the piece sizes (one -1 infers a size). Returns a list of views. PyTorch's split
    (an int is the size of each piece) is oar.torch.split (docs/doors.md); as in Paddle,
    its keywords `dim=` and `split_size_or_sections=` are refused here rather than read with
    the other meaning."""
    if kwargs:
        raise ArgTypeError(
            f"split() received unexpected keyword argument "
            f"{', '.join(repr(k) for k in kwargs)}. Paddle's split(x, num_or_sections, axis=0) "
            "reads an int as the number of pieces; for PyTorch's split(tensor, "
            "split_size_or_sections, dim=0) (an int is the size of each piece) use "
            "oar.torch.split.")
    _no_0d(x, "split")
    if isinstance(axis, Tensor):
        axis = int(A.index_array(axis, "split", "axis").reshape(-1)[0])
    d = A.axis(axis, x._data.ndim, "split")
    n = x._data.shape[d]
    if not isinstance(num_or_sections, (list, tuple)):
        k = A.integer(num_or_sections, "split", "num_or_sections")
        if k <= 0 or n % k:
            raise ArgValueError(f"split(): the size of axis {d} ({n}) must be divisible by "
                                f"num_or_sections ({k}) and num_or_sections must be > 0; "
                                "pass a list of sizes otherwise")
        sizes = [n // k] * k
    else:
        sizes = [A.integer(s, "split", f"sections[{i}]") for i, s in enumerate(num_or_sections)]
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if min(sizes, default=0) < 0:
            raise ArgValueError(f"split(): split sizes must be non-negative, got "
                                f"{list(num_or_sections)} for dimension {d} of size {n} "
                                "(one -1 may infer a size)")
        if sum(sizes) != n:
            raise ArgValueError(f"split(): sections {list(num_or_sections)} must sum exactly "
                                f"to {n} (the size of dimension {d})")
    return _pieces(x, sizes, d, "split")


def chunk_sizes(n, chunks):
    """PyTorch's chunk: pieces of ceil(n / chunks) (the last smaller; fewer pieces than
    `chunks` when they run out); an empty dim gives `chunks` empty pieces."""
    size = -(-n // chunks)
    if size == 0:
        return [0] * chunks
    return [size] * (n // size) + ([n % size] if n % size else [])


def chunk(x, chunks, axis=0, name=None, *, dim=None):
    """Paddle's chunk: x split into `chunks` equal views along axis (the axis must divide
    evenly, as Paddle). PyTorch's chunk (uneven pieces allowed) is oar.torch.chunk."""
    if dim is not None:
        axis = dim
    _no_0d(x, "chunk")
    chunks = A.integer(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise ArgValueError(f"chunk(): expects `chunks` to be greater than 0, got: {chunks}")
    d = A.axis(axis, x._data.ndim, "chunk")
    n = x._data.shape[d]
    if n % chunks:
        raise ArgValueError(f"chunk(): the size of axis {d} ({n}) must be divisible by chunks "
                            f"({chunks}), as in Paddle. Fix: pick a divisor, or use "
                            "oar.torch.chunk (PyTorch's uneven pieces)")
    return _pieces(x, [n // chunks] * chunks, d, "split")


def _torch_type_name(npdt):
    """PyTorch's scalar type name of a NumPy dtype (Float, Long, Bool ...)."""
    return {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char",
            "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte",
            "bool": "Bool", "bfloat16": "BFloat16"}.get(np.dtype(npdt).name, np.dtype(npdt).name)


def tensor_split(x, indices_or_sections, axis=0, name=None, *, dim=None):
    """Sections (an int: pieces whose sizes differ by at most one) or indices (piece k is
    x[i(k-1):i(k)] along the axis, with Python slice meaning: negative indices count from
    the end, an index before the previous one gives an empty piece), as PyTorch and NumPy."""
    if dim is not None:
        axis = dim
    if x._data.ndim == 0:   # PyTorch: a RuntimeError, in its words
        raise ArgValueError("tensor_split expected at least a 1-dimensional tensor, but got a "
                            "tensor with 0 dims. Fix: reshape it to [1] first")
    d = A.axis(axis, x._data.ndim, "tensor_split")
    n = x._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype != np.int64:
            raise ArgTypeError("tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {_torch_type_name(ios._data.dtype)}")
        arr = A.index_array(ios, "tensor_split", "indices_or_sections")
        if arr.ndim > 1:
            raise ArgValueError("tensor_split expected tensor_indices_or_sections to be a "
                                "zero-dimensional or one-dimensional tensor, but got a tensor "
                                f"with {arr.ndim} dims")
        ios = int(arr) if arr.ndim == 0 else [int(i) for i in arr]
    if not isinstance(ios, (list, tuple)):
        k = A.integer(ios, "tensor_split", "sections")
        if k <= 0:
            raise ArgValueError(f"tensor_split(): number of sections must be larger than 0, "
                                f"got {k}")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        slices = []
        s = 0
        for sz in sizes:
            slices.append(slice(s, s + sz))
            s += sz
    else:
        idx = [A.integer(i, "tensor_split", f"indices[{j}]") for j, i in enumerate(ios)]
        bounds = [None] + idx + [None]
        slices = [slice(*slice(a, b).indices(n)[:2]) for a, b in zip(bounds[:-1], bounds[1:])]
    # tensor_split is a composite of single-output slices in PyTorch: pieces may be modified
    return [_generic_view(x, "tensor_split",
                          lambda a, sl=sl: _slice_dim(a, d, sl.start, sl.stop))
            for sl in slices]


def unbind(x, axis=0, name=None, *, dim=None):
    """The views of x at each index along axis, with that axis removed (a list)."""
    if dim is not None:
        axis = dim
    if x._data.ndim == 0:
        raise AxisError("unbind(): Dimension specified as 0 but tensor has no dimensions")
    d = A.axis(axis, x._data.ndim, "unbind")
    key_pre = (slice(None),) * d
    return _generic_view(x, "unbind",   # Ellipsis: 0-d views, never scalar copies
                         lambda a: [a[key_pre + (i, Ellipsis)] for i in range(a.shape[d])], multi=True)


def diagonal(x, offset=0, axis1=0, axis2=1, name=None, *, dim1=None, dim2=None):
    """A view of the diagonal of x over axis1 and axis2, shifted by offset."""
    if dim1 is not None:
        axis1 = dim1
    if dim2 is not None:
        axis2 = dim2
    nd = x._data.ndim
    offset = A.integer(offset, "diagonal", "offset")
    a1 = A.axis(axis1, nd, "diagonal", "dim1")
    a2 = A.axis(axis2, nd, "diagonal", "dim2")
    if a1 == a2 or nd < 2:
        raise ArgValueError(f"diagonal(): diagonal dimensions cannot be identical {axis1}, "
                            f"{axis2} (tensor of shape {fmt_shape(x._data.shape)}). Fix: name "
                            "two different dims")

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
        return strided(start, shape, strides, "diagonal")
    return _generic_view(x, "diagonal", make)


def as_strided(x, shape, stride, offset=None, name=None, *, storage_offset=None):
    """Elements are addressed relative to the storage start (PyTorch's storage_offset); the
    view addresses the storage's real memory whatever its layout (never a copy)."""
    if storage_offset is not None:
        offset = storage_offset
    shape = A.shape(shape, "as_strided", name="size")
    if not isinstance(stride, (list, tuple, Tensor)):
        stride = (stride,)
    stride = tuple(A.integer(s, "as_strided", f"stride[{i}]") for i, s in enumerate(stride))
    offset = x.storage_offset() if offset is None else A.integer(offset, "as_strided",
                                                                 "storage_offset")
    if len(stride) != len(shape):
        raise ArgValueError(f"as_strided(): mismatch in length of strides and shape (size "
                            f"{list(shape)}, stride {list(stride)})")
    if min(stride, default=0) < 0:
        raise ArgValueError(f"as_strided(): negative strides are not supported, got strides: "
                            f"{list(stride)}")
    if offset < 0:
        raise ArgValueError(f"as_strided(): invalid storage offset {offset}; it must be >= 0")
    flat, lo = _storage_flat(x._storage)
    numel = _prod(shape)
    if numel:
        last = offset + sum((n - 1) * s for n, s in zip(shape, stride))
        if offset - lo >= flat.size or last - lo >= flat.size:
            raise ViewExtentError(
                f"as_strided(): size {list(shape)}, stride {list(stride)} and storage offset "
                f"{offset} reach elements [{offset}, {last}], out of bounds for a storage of "
                f"{flat.size} elements (valid offsets [{lo}, {lo + flat.size - 1}]). Fix: "
                "choose a size, stride and offset that stay inside the storage")
    item = flat.itemsize
    start = min(offset - lo, flat.size)

    def make(a):
        # an empty window at the very end keeps its offset (NumPy's flat[size:] would not)
        src = flat[start:] if start < flat.size else _slice_dim(flat, 0, start, start)
        return strided(src, shape, tuple(s * item for s in stride), "as_strided")
    return _generic_view(x, "as_strided", make)


def unfold(x, axis, size, step, name=None, *, dimension=None):
    """A view of all slices of size `size` of x along axis, every `step`, as a new last axis."""
    if dimension is not None:
        axis = dimension
    nd = x._data.ndim
    d = A.axis(axis, nd, "unfold", "dimension")
    size = A.integer(size, "unfold", "size")
    step = A.integer(step, "unfold", "step")
    n = x._data.shape[d] if nd else 1
    if size < 0:
        raise ArgValueError(f"unfold(): size is {size} but must be >= 0")
    if size > n:
        raise ArgValueError(f"unfold(): maximum size for tensor at dimension {d} is {n} but "
                            f"size is {size}")
    if step <= 0:
        raise ArgValueError(f"unfold(): step is {step} but must be > 0")

    def make(a):
        cnt = (n - size) // step + 1
        if a.ndim == 0:
            return strided(a, (size,), (a.itemsize,), "unfold")
        shape = a.shape[:d] + (cnt,) + a.shape[d + 1:] + (size,)
        strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1:] + (a.strides[d],)
        return strided(a, shape, strides, "unfold")
    return _generic_view(x, "unfold", make)


def detach(x, name=None):
    """Shares storage and version counter; not a differentiable view (no grad history)."""
    return wrap_as(x._result_class, x._data, x._storage)


def detach_(x, name=None):
    """Detaches x from the graph in place: no grad_fn, requires_grad False; returns x."""
    if x._view is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    x._grad_fn = None
    x._requires_grad = False
    return x


# Note [contiguous() layout]
# clone keeps the input's memory order (PyTorch's preserve_format: a transposed dense tensor
# clones to a transposed layout), so contiguous() cannot be a clone: it copies in C order,
# giving PyTorch's contiguous strides for the shape (a dim of size 1 or 0 counts as 1).
CONTIGUOUS_OP = OpDef("contiguous", lambda a: _xp.array(a, order="C", copy=True),
                      lambda c, g: (g,), node_name="CloneBackward",
                      doc="x in C-contiguous memory: x itself when it already is, else a copy.")


def contiguous(x, name=None, memory_format=None):
    """x in C-contiguous memory: x itself when it already is, else a copy."""
    if x._data.flags.c_contiguous:
        return x
    return R.dispatch(CONTIGUOUS_OP, (x,), ())


for _name, _fn in dict(view=view, reshape=reshape, view_as=view_as, reshape_as=reshape_as,
                       flatten=flatten, squeeze=squeeze, unsqueeze=unsqueeze, permute=permute,
                       transpose=transpose, swapaxes=swapaxes, swapdims=swapaxes, t=t,
                       moveaxis=moveaxis, movedim=moveaxis, expand=expand,
                       broadcast_to=broadcast_to, expand_as=expand_as, select=select,
                       narrow=narrow, split=split, chunk=chunk, tensor_split=tensor_split,
                       unbind=unbind, diagonal=diagonal, as_strided=as_strided, unfold=unfold,
                       detach=detach, detach_=detach_, contiguous=contiguous,
                       slice=slice_axes).items():
    # the method gets a Tensor by construction; the function spelling checks its operand
    R.register_function(_name, _fn, function=False)
    R.register_function(_name, _fn if _name == "reshape" else _tensor_first(_fn, _name),
                        method=False)
Tensor.T = property(T)


def _matrices(x, attr):
    """mT / mH: PyTorch's RuntimeError for a 1-d tensor (a 0-d one is its own transpose);
    Paddle's ValueError for both (Note [Door conflicts]: the core Tensor is Paddle's)."""
    if x._data.ndim == 1 or (x._data.ndim == 0 and x._result_class is Tensor):
        raise ArgValueError(f"tensor.{attr} is only supported on matrices or batches of "
                            f"matrices. Got {x._data.ndim}-D tensor.")
    if x._data.ndim == 0:   # PyTorch's deprecation warning, then the identity
        import warnings
        warnings.warn(f"Tensor.{attr} is deprecated on 0-D tensors. " + (
            "This function is the identity in these cases." if attr == "mT" else
            "Consider using x.conj()."), UserWarning, stacklevel=3)
        return transpose(x, 0, 0)
    return transpose(x, -2, -1)


def _mT(x):
    """Tensor.mT: a view of x with its last two axes exchanged (a batch of matrices transposed)."""
    return _matrices(x, "mT")


def _mH(x):
    """Tensor.mH: the conjugate transpose of a batch of matrices; oar has no complex dtypes,
    so it is mT."""
    return _matrices(x, "mH")


def _H(x):
    """Tensor.H: the conjugate transpose of a matrix (x.mT of a 2-D x; oar has no complex
    dtypes); a 0-d x is its own."""
    if x._data.ndim not in (0, 2):
        raise ArgValueError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                            f"{x._data.ndim}-D tensor." + (" For batches of matrices, consider "
                                                          "using tensor.mH" if x._data.ndim > 2
                                                          else ""))
    return _matrices(x, "H")


Tensor.mT = property(_mT)
Tensor.mH = property(_mH)
Tensor.H = property(_H)


def swapaxes_(x, axis0, axis1, name=None):
    """swapaxes in place: x itself takes the view's shape and strides (same object, same
    storage); returns x (PyTorch's alias of swapdims_, Note [Metadata in-place ops])."""
    from ..autograd.inplace import metadata_inplace
    A.tensor(x, "swapaxes_")
    return metadata_inplace(x, "swapaxes_", swapaxes, (axis0, axis1), {})


R.register_function("swapaxes_", swapaxes_)


# ---------------------------------------------------------------- issue 10: more views
def unflatten(x, axis=None, shape=None, name=None, *, dim=None, sizes=None):
    """A view of x with axis split into the dims of `shape` (one -1 infers a size):
    PyTorch's unflatten(dim, sizes) and Paddle's unflatten(x, axis, shape)."""
    if dim is not None:
        axis = dim
    if sizes is not None:
        shape = sizes
    if axis is None or shape is None:
        raise ArgTypeError("unflatten() missing required argument "
                           + ("'dim' (axis)" if axis is None else "'sizes' (shape)"))
    nd = x._data.ndim
    if nd == 0:
        raise AxisError("unflatten(): cannot unflatten a 0-dim tensor. Fix: reshape it to "
                        "[1] first")
    d = A.axis(axis, nd, "unflatten", "dim")
    if not isinstance(shape, (list, tuple, Tensor)):
        raise ArgTypeError(f"unflatten(): sizes must be a list or tuple of ints, got "
                           f"{type(shape).__name__}")
    sizes = list(A.shape(shape, "unflatten", allow_infer=True, name="sizes"))
    n = x._data.shape[d]
    if not sizes:
        raise ArgValueError("unflatten(): sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise ArgValueError(f"unflatten(): only one dimension can be inferred, got sizes "
                            f"{sizes}")
    known = _prod(s for s in sizes if s != -1)
    if -1 in sizes:
        if known == 0 or n % known:
            raise ArgValueError(f"unflatten(): provided sizes {sizes} don't multiply up to the "
                                f"size of dim {d} ({n}) in the input tensor")
        sizes[sizes.index(-1)] = n // known
    elif known != n:
        raise ArgValueError(f"unflatten(): provided sizes {sizes} don't multiply up to the "
                            f"size of dim {d} ({n}) in the input tensor")
    xs = x._data.shape
    return reshape(x, list(xs[:d]) + sizes + list(xs[d + 1:]))


def _split_at(x, num_or_indices, d, op):
    """hsplit/vsplit/dsplit: an int splits dim d into that many equal pieces (it must divide
    the size, as in PyTorch and Paddle), a list gives the split indices (tensor_split)."""
    if isinstance(num_or_indices, (list, tuple, Tensor)):
        return tensor_split(x, num_or_indices, d)
    k = A.integer(num_or_indices, op, "sections")
    n = x._data.shape[d]
    if k <= 0 or n % k:
        raise ArgValueError(f"{op}(): attempted to split along dimension {d}, but the size of "
                            f"the dimension {n} is not divisible by the split_size {k}! Fix: "
                            "pass a divisor, or a list of split indices")
    return tensor_split(x, k, d)


def hsplit(x, num_or_indices, name=None):
    """Splits x along its columns: dim 1 (dim 0 for a 1-D tensor), into num equal pieces or
    at the given indices (views)."""
    nd = x._data.ndim
    if nd < 1:
        raise ArgValueError(f"hsplit(): requires a tensor with at least 1 dimension, but got a "
                            f"tensor with {nd} dimensions!")
    return _split_at(x, num_or_indices, 0 if nd == 1 else 1, "hsplit")


def vsplit(x, num_or_indices, name=None):
    """Splits x along dim 0 (x needs at least 2 dims), into num equal pieces or at the given
    indices (views)."""
    nd = x._data.ndim
    if nd < 2:
        raise ArgValueError(f"vsplit(): requires a tensor with at least 2 dimension, but got a "
                            f"tensor with {nd} dimensions!")
    return _split_at(x, num_or_indices, 0, "vsplit")


def dsplit(x, num_or_indices, name=None):
    """Splits x along dim 2 (x needs at least 3 dims), into num equal pieces or at the given
    indices (views)."""
    nd = x._data.ndim
    if nd < 3:
        raise ArgValueError(f"dsplit(): requires a tensor with at least 3 dimension, but got a "
                            f"tensor with {nd} dimensions!")
    return _split_at(x, num_or_indices, 2, "dsplit")


def split_with_sizes(x, split_sizes, dim=0, name=None):
    """PyTorch's split_with_sizes: views of x along dim with exactly these sizes (they must
    sum to the dim's size)."""
    _no_0d(x, "split_with_sizes")
    d = A.axis(dim, x._data.ndim, "split_with_sizes", "dim")
    if not isinstance(split_sizes, (list, tuple, Tensor)):
        raise ArgTypeError(f"split_with_sizes(): argument 'split_sizes' must be a list of ints, "
                           f"got {type(split_sizes).__name__}")
    sizes = list(A.shape(split_sizes, "split_with_sizes", name="split_sizes"))
    n = x._data.shape[d]
    if sum(sizes) != n:
        raise ArgValueError(f"split_with_sizes(): expects split_sizes to sum exactly to {n} "
                            f"(input tensor's size at dimension {d}), but got "
                            f"split_sizes={sizes}")
    return _pieces(x, sizes, d, "split_with_sizes")


def as_strided_(x, size, stride, storage_offset=None, name=None):
    """as_strided in place: x itself takes the window (Note [Metadata in-place ops])."""
    from ..autograd.inplace import metadata_inplace
    A.tensor(x, "as_strided_")
    return metadata_inplace(x, "as_strided_", as_strided, (size, stride),
                            {"storage_offset": storage_offset})


# Note [resize_]
# PyTorch's resize_ gives the tensor a new shape with contiguous strides over its own
# storage, from its storage offset (the same shape keeps the strides): the elements it
# covers keep their bytes, whatever they meant before. It is refused for a tensor that
# requires grad ("cannot resize variables that require grad", also under no_grad), and it
# bumps the version once. A window that no longer fits needs a bigger storage: PyTorch grows
# the storage in place, so its views see the new memory. A NumPy buffer cannot grow, so oar
# gives the tensor a new, bigger storage (the old bytes copied, the rest zero, the version
# carried on) only when nothing else uses the old one; when a view or another tensor shares
# it, growing is refused with an error (never two tensors that silently stop sharing).
def resize_(x, *sizes, name=None):
    """Resizes x in place: x itself takes shape `sizes` (contiguous strides from its storage
    offset; Note [resize_]) and is returned."""
    from ..autograd.grad_mode import check_inference
    from ..autograd.inplace import bump
    A.tensor(x, "resize_")
    shape = A.shape_args(sizes, "resize_")
    if x.requires_grad and not x._storage.inference:   # Note [Inference tensors]: no autograd
        raise RuntimeError("cannot resize variables that require grad (resize_ of a tensor "
                           "that requires grad). Fix: resize a detached copy, "
                           "`y = x.detach().clone(); y.resize_(...)`, or make a new tensor.")
    check_inference(x, "resize_")
    _check_storage_size(shape, x._data.itemsize, x.storage_offset())
    resize_without_bump(x, shape)
    bump(x, "resize_")
    return x


def _check_storage_size(shape, itemsize, offset):
    """PyTorch's overflow checks of a new size, before anything changes: the element count,
    then the byte size (offset included), must fit in int64."""
    numel = 1
    for n in shape:
        numel *= n
        if numel >= 2**63:
            raise ArgValueError("numel: integer multiplication overflow")
    if (numel + offset) * itemsize >= 2**63:
        raise ArgValueError(f"Storage size calculation overflowed with sizes={list(shape)}")


def resize_without_bump(x, shape):
    """x takes `shape` as Note [resize_] says, without the version bump: for callers that
    write x next and bump once for both (the torch door's out=, Note [Torch signatures])."""
    import sys
    a = x._data
    if shape == a.shape:
        return
    numel = _prod(shape)
    st = x._storage
    flat, lo = _storage_flat(st)
    offset = x.storage_offset()
    need = offset - lo + numel
    if need > flat.size:
        if x._view is not None or sys.getrefcount(st) > 3:   # x's reference, `st`, the call's
            raise RuntimeError(
                f"resize_(): the new shape {list(shape)} needs {need} elements from storage "
                f"offset {offset}, but the storage holds {flat.size} and other tensors (views) "
                "share it; oar cannot grow memory that other tensors see (Note [resize_]). "
                "Fix: resize a tensor that owns its memory (`y = x.clone()`), or make a new "
                "tensor.")
        from ..storage import new_storage
        buf = np.zeros(need, a.dtype)
        buf[:flat.size] = flat
        new = new_storage(buf)
        new.version = st.version
        flat, lo = buf, 0
        x._storage = st = new
        del buf
    start = offset - lo
    x._data = flat[start:start + numel].reshape(shape)


def resize_as_(x, other, name=None):
    """Resizes x in place to other's shape (Note [resize_]); returns x."""
    return resize_(x, _other_shape(other, "resize_as_"))


for _name, _fn in dict(unflatten=unflatten, hsplit=hsplit, vsplit=vsplit, dsplit=dsplit,
                       split_with_sizes=split_with_sizes).items():
    R.register_function(_name, _fn, function=False)
    R.register_function(_name, _tensor_first(_fn, _name), method=False)
for _name, _fn in dict(as_strided_=as_strided_, resize_=resize_, resize_as_=resize_as_).items():
    R.register_function(_name, _fn)
