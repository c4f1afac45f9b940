"""Max unpooling in both doors: max pooling's values put back at the positions its indices
name (flat positions in each output plane), zeros elsewhere; the gradient gathers from the
same positions (put_along_axis's backward)."""
from __future__ import annotations

import math

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops.indexing import put_along as _put_along
from ..tensor import Tensor, wrap_as


def _tuple(v, nd, what, fname):
    if isinstance(v, (list, tuple)):
        if len(v) != nd or not all(isinstance(e, int) and not isinstance(e, bool) for e in v):
            raise ArgValueError(f"{fname}(): {what} must be an int or {nd} ints, got {v!r}")
        return tuple(v)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ArgTypeError(f"{fname}(): {what} must be an int or a tuple of {nd} ints, got "
                           f"{type(v).__name__}")
    return (v,) * nd


def unpool_output_size(in_spatial, kernel, stride, padding, output_size, fname):
    """The output's spatial size: (in - 1) * stride - 2 * padding + kernel, or output_size,
    which must lie strictly within one stride of that (PyTorch's rule)."""
    nd = len(kernel)
    default = [(i - 1) * s - 2 * p + k for i, s, p, k in zip(in_spatial, stride, padding, kernel)]
    if output_size is None:
        return default
    size = list(output_size.tolist() if isinstance(output_size, Tensor) else output_size)
    if len(size) == nd + 2:
        size = size[2:]
    elif len(size) == nd + 1:
        size = size[1:]
    if len(size) != nd:
        raise ArgValueError(f"{fname}(): output_size must have {nd} or {nd + 2} elements "
                            f"(got {len(size)})")
    for d in range(nd):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < size[d] < hi:
            raise ArgValueError(f"{fname}(): invalid output_size {size} (dim {d} must be "
                                f"between {lo} and {hi}, exclusive)")
    return size


def max_unpool(x, indices, kernel_size, stride, padding, output_size, nd, fname):
    """Every value of x placed at its index's flat position within its output plane."""
    for what, t in (("input", x), ("indices", indices)):
        if not isinstance(t, Tensor):
            raise ArgTypeError(f"{fname}(): {what} must be a Tensor, got {type(t).__name__}")
    if indices._data.dtype.kind not in "iu":
        raise ArgTypeError(f"{fname}(): indices must be an integer tensor (the indices max "
                           f"pooling returned), got {indices.dtype.name}")
    if x._data.ndim not in (nd + 1, nd + 2):
        raise ArgValueError(f"{fname}(): expected a {nd + 1}-D or {nd + 2}-D input, got shape "
                            f"{list(x._data.shape)}")
    if tuple(indices._data.shape) != tuple(x._data.shape):
        raise ArgValueError(f"{fname}(): indices must have input's shape {list(x._data.shape)}, "
                            f"got {list(indices._data.shape)}")
    kernel = _tuple(kernel_size, nd, "kernel_size", fname)
    stride = kernel if stride is None else _tuple(stride, nd, "stride", fname)
    padding = _tuple(padding, nd, "padding", fname)
    lead, in_spatial = x._data.shape[:-nd], x._data.shape[-nd:]
    out_spatial = unpool_output_size(in_spatial, kernel, stride, padding, output_size, fname)
    plane = math.prod(out_spatial)
    idx = indices._data
    if idx.size and (idx.min() < 0 or idx.max() >= plane):
        raise ArgValueError(f"{fname}(): Found an invalid max index {int(idx.max())} (output "
                            f"plane of {plane} elements, output size {list(out_spatial)})")
    flat = tuple(lead) + (math.prod(in_spatial),)
    zeros = wrap_as(x._result_class, np.zeros(tuple(lead) + (plane,), x._data.dtype))
    # the gradient gathers at every index, overlapping windows included (as both frameworks'
    # unpooling), not Paddle put_along_axis's last-writer rule
    out = _put_along(zeros, indices.reshape(flat).astype("int64"), x.reshape(flat), -1,
                     last_writer_grad=False)
    return out.reshape(tuple(lead) + tuple(out_spatial))


# ------------------------------------------------------------------ the Paddle door's spellings
_FORMATS = {1: ("NCL",), 2: ("NCHW",), 3: ("NCDHW",)}


def _paddle_unpool(nd):
    fname = f"max_unpool{nd}d"

    def fn(x, indices, kernel_size, stride=None, padding=0, data_format=_FORMATS[nd][0],
           output_size=None, name=None):
        if data_format not in _FORMATS[nd]:
            raise ArgValueError(f"{fname}(): data_format must be {_FORMATS[nd][0]!r}, got "
                                f"{data_format!r}")
        return max_unpool(x, indices, kernel_size, stride, padding, output_size, nd, fname)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = (f"paddle.nn.functional.{fname}: the values of a {nd}-D max pooling put back "
                  "at the positions its mask names, zeros elsewhere.")
    return fn


max_unpool1d, max_unpool2d, max_unpool3d = (_paddle_unpool(n) for n in (1, 2, 3))
