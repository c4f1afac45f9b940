"""Tensors <-> (storage, offset, shape, strides): the one place checkpoint formats take a tensor
apart and put it back together, so views of one storage stay one storage after a round trip
(Note [Storage layout in checkpoints])."""
# Note [Storage layout in checkpoints]
# A checkpoint stores each Storage's bytes once and every tensor as a window on it (offset,
# shape, strides in elements), as PyTorch's zip format does. Loading makes one oar Storage per
# stored storage and wraps every window on it, so tensors that shared memory when saved share it
# (and its version counter, Note [Version counter]) after loading. A window whose strides are not
# a whole number of elements, or whose dtype differs from its storage's (a dtype-reinterpreting
# view), is saved as its own contiguous storage instead.
from __future__ import annotations

import numpy as np

from ..storage import new_storage
from ..tensor import Tensor, wrap_as


def storage_key(t):
    """A hashable identity of t's Storage (tensors with equal keys share memory)."""
    return id(t._storage)


def storage_array(t):
    """t's whole storage as a flat C-contiguous array of t's dtype (a view, no copy) and
    t's (offset, shape, strides) on it in elements; None when t cannot be expressed as a
    window on a storage of its own dtype (then save np.ascontiguousarray(t._data) instead)."""
    root = t._storage.buffer
    a = t._data
    item = a.itemsize
    if root.dtype != a.dtype or not root.flags.c_contiguous or root.nbytes % item:
        return None
    if any(s % item for s in a.strides):
        return None
    flat = root.reshape(-1)
    off_bytes = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if off_bytes % item:
        return None
    strides = tuple(s // item for s in a.strides) if a.size else t.stride()
    return flat, off_bytes // item, tuple(a.shape), strides


def window(flat, offset, shape, strides):
    """The array view of `flat` at (offset, shape, strides in elements); raises ValueError when
    the window reaches outside `flat` (a corrupt file must not read foreign memory)."""
    shape = tuple(int(n) for n in shape)
    strides = tuple(int(s) for s in strides)
    if len(shape) != len(strides) or any(n < 0 for n in shape) or offset < 0:
        raise ValueError(f"bad window: offset {offset}, shape {list(shape)}, strides "
                         f"{list(strides)}")
    if 0 in shape:
        return np.empty(shape, dtype=flat.dtype)
    lo = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    if lo < 0 or hi >= flat.size:
        raise ValueError(f"window offset {offset}, shape {list(shape)}, strides {list(strides)}"
                         f" reaches outside a storage of {flat.size} elements")
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset:], shape=shape,
                                           strides=tuple(s * item for s in strides))


def tensor_on(flat, storage_of, offset, shape, strides, cls=Tensor, requires_grad=False):
    """A `cls` tensor viewing `flat` at the window; `storage_of` is a dict shared by one load
    (id(flat) -> Storage) so every window on one stored storage shares one oar Storage."""
    arr = window(flat, offset, shape, strides)
    if arr.size == 0:
        t = wrap_as(cls, arr)
    else:
        st = storage_of.get(id(flat))
        if st is None:   # the storage is the whole stored buffer, not this window
            st = storage_of[id(flat)] = new_storage(flat)
        t = wrap_as(cls, arr, st)
    t._requires_grad = bool(requires_grad)
    return t
