"""Adaptive max pooling over any number of trailing spatial dims, shared by both doors
(Note [Adaptive max pooling])."""
from __future__ import annotations

import numpy as np

from ..ops import registry as R
from ..ops.pointwise import _no_kernel
from ..tensor import Tensor, wrap_as
from . import _checks as _c
from ._kernels import _first_order_only, _input
from ._pool import _adaptive_windows

__all__ = ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"]


# Note [Adaptive max pooling]
# Output position i of a spatial dim of size n pooled to o covers the input window
# [floor(i*n/o), ceil((i+1)*n/o)) (Note [Adaptive average pooling]). The window's maximum is
# the one PyTorch's CPU kernel picks: it starts at -inf with the window's first element as
# index, scans the window row-major and takes `val > max || isnan(val)` (the last NaN).
# `_indices` reproduces that scan in NumPy (one whole-array step per window offset), giving
# each maximum's flat position in its input plane; the values are then a gather of the
# flattened input at those positions, so the gradient (gather's scatter-add) goes to each
# chosen element, as PyTorch's AdaptiveMaxPool backward does. Paddle picks the same
# elements and returns the positions as an int32 mask. The pooling is one op per rank
# (AdaptiveMaxPool2DBackward0 / 3D, as in PyTorch; 1-D is 2-D pooling of a height-1 image
# there), whose backward recomputes the choice from the saved input and adds each
# gradient into its chosen element.
def _indices(x, out_size):
    sp = x.shape[-len(out_size):]
    wins = [_adaptive_windows(n, o) for n, o in zip(sp, out_size)]
    nd = len(sp)
    lead = x.shape[:-nd]
    best = np.full(lead + tuple(out_size), -np.inf, x.dtype)
    first = 0
    for i, (lo, _) in enumerate(wins):
        first = np.multiply.outer(first * sp[i], np.ones(len(lo), np.int64)) if i else lo
        if i:
            first = first + lo.reshape((1,) * i + (-1,))
    idx = np.broadcast_to(np.asarray(first, np.int64), best.shape).copy()
    for off in np.ndindex(*[int(k.max(initial=0)) for _, k in wins]):
        pos = [np.minimum(lo + t, n - 1) for (lo, _), t, n in zip(wins, off, sp)]
        val = x[(Ellipsis,) + np.ix_(*pos)]
        valid = True
        flat = 0
        for i, ((_, k), t) in enumerate(zip(wins, off)):
            shape = [1] * nd
            shape[i] = -1
            valid = np.logical_and(valid, (t < k).reshape(shape))
            flat = flat * sp[i] + pos[i].reshape(shape)
        take = valid & ((val > best) | np.isnan(val))
        best = np.where(take, val, best)
        idx = np.where(take, flat, idx)
    return idx


def _k_adaptive_max(x, output_size):
    nd = len(output_size)
    idx = _indices(x, output_size)
    lead = x.shape[:-nd]
    flat = x.reshape(lead + (-1,))
    return np.take_along_axis(flat, idx.reshape(lead + (-1,)), -1).reshape(idx.shape)


def _b_adaptive_max(c, g):
    _first_order_only(c.op.name)
    x = c.input(0)._data
    nd = len(c.attrs[0])
    idx = _indices(x, c.attrs[0])
    lead = x.shape[:-nd]
    planes = int(np.prod(lead, dtype=np.int64))
    size = int(np.prod(x.shape[-nd:], dtype=np.int64))
    ga = np.asarray(g._data, x.dtype).reshape(planes, -1)
    pos = idx.reshape(planes, -1) + (np.arange(planes, dtype=np.int64) * size)[:, None]
    gi = np.zeros(planes * size, x.dtype)
    np.add.at(gi, pos.ravel(), ga.ravel())      # in output order, as PyTorch accumulates
    return (Tensor._wrap(gi.reshape(x.shape)),)


ADAPTIVE_MAX_POOL = {nd: R.OpDef(
    f"adaptive_max_pool{nd}d", _k_adaptive_max, _b_adaptive_max, needs={"x": ("x",)},
    attrs=(("output_size", None),), node_name=f"AdaptiveMaxPool{nd}DBackward",
    doc=f"Adaptive {nd}-D max pooling of x to output_size (Note [Adaptive max pooling]).")
    for nd in (2, 3)}


def adaptive_max_pool(x, output_size, nd, op, torch_door):
    """(values, int64 indices) of adaptive max pooling x's nd trailing dims."""
    _input(x, op)
    rank = x.ndim
    if rank not in (nd + 1, nd + 2):
        raise _c.ArgValueError(f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor for input, "
                               f"got shape {list(x.shape)}")
    sizes = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * nd
    if len(sizes) != nd:
        raise _c.ArgValueError(f"{op}(): output_size must be an int or {nd} ints, got "
                               f"{output_size!r}")
    sp = tuple(x.shape[-nd:])
    out = []
    for v, n in zip(sizes, sp):
        if v is None:
            out.append(n)
            continue
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise _c.ArgTypeError(f"{op}(): output_size must hold ints, got {output_size!r}")
        if v < 0:
            raise _c.ArgValueError(f"{op}(): elements of output_size must be greater than or "
                                   f"equal to 0 but got {output_size!r}")
        out.append(int(v))
    if any(n == 0 for n in x.shape[1 if rank == nd + 2 else 0:]):
        raise _c.ArgValueError(f"{op}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(x.shape)}")
    xa = x._data
    if xa.dtype.kind != "f":
        _no_kernel(op, op, xa.dtype, "cast the input to a floating dtype first")
    ind = wrap_as(x._result_class, _indices(xa, out))
    if nd == 1:      # PyTorch: 2-D pooling of a height-1 image, then squeeze
        vals = R.dispatch(ADAPTIVE_MAX_POOL[2], (x.unsqueeze(-2),), ((1, out[0]),))
        return vals.squeeze(-2), ind
    return R.dispatch(ADAPTIVE_MAX_POOL[nd], (x,), (tuple(out),)), ind


def _paddle(nd):
    def fn(x, output_size, return_mask=False, name=None):
        op = f"adaptive_max_pool{nd}d"
        _input(x, op)
        if x.ndim != nd + 2:     # Paddle takes batched input only
            raise _c.ArgValueError(f"{op}: expected a {nd + 2}-D input, got shape "
                                   f"{list(x.shape)}; add a batch dim with unsqueeze(0)")
        vals, ind = adaptive_max_pool(x, output_size, nd, op, False)
        return (vals, ind.astype("int32")) if return_mask else vals
    fn.__name__ = fn.__qualname__ = f"adaptive_max_pool{nd}d"
    fn.__doc__ = (f"Adaptive max pooling of x's {nd} trailing dims to output_size; with "
                  "return_mask also the int32 flat position of each maximum in its plane "
                  "(Note [Adaptive max pooling]).")
    return fn


adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d = (_paddle(n) for n in (1, 2, 3))

