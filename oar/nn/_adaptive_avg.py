"""Adaptive average pooling in 1-D and 3-D over the core 2-D op (_kernels.adaptive_avg_pool2d).

Averaging over a box of per-dimension windows is separable: the mean over (D, H, W) windows is
the mean over the D window of the (H, W) means, each (H, W) window being the same for every
depth. So 3-D pools (H, W) with depth folded into channels, then pools depth against an
identity window (n -> n gives windows [i, i + 1)); 1-D is a height-1 image."""
from __future__ import annotations

from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from . import _kernels as _K


def _sizes(output_size, spatial, fname):
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size,) * len(spatial)
    if not isinstance(output_size, (list, tuple)) or len(output_size) != len(spatial):
        raise ArgValueError(f"{fname}(): output_size must be an int or {len(spatial)} ints "
                            f"(None keeps the input's size), got {output_size!r}")
    out = []
    for o, n in zip(output_size, spatial):
        if o is None:
            o = n
        if not isinstance(o, int) or isinstance(o, bool) or o < 0:
            raise ArgValueError(f"{fname}(): output_size entries must be non-negative ints, got "
                                f"{output_size!r}")
        out.append(o)
    return out


def adaptive_avg_pool3d(x, output_size, fname="adaptive_avg_pool3d"):
    """(N, C, D, H, W) or (C, D, H, W) input averaged to output_size (od, oh, ow)."""
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"{fname}(): input must be a Tensor, got {type(x).__name__}")
    if x._data.ndim not in (4, 5):
        raise ArgValueError(f"{fname}(): expected a 4-D or 5-D input, got shape "
                            f"{list(x._data.shape)}")
    unbatched = x._data.ndim == 4
    if unbatched:
        x = x.unsqueeze(0)
    n, c, d, h, w = x._data.shape
    if 0 in (d, h, w):
        raise ArgValueError(f"{fname}(): input {list(x._data.shape)} has an empty spatial "
                            "dimension; pooling needs at least one element")
    od, oh, ow = _sizes(output_size, (d, h, w), fname)
    y = _K.adaptive_avg_pool2d(x.reshape([n, c * d, h, w]), (oh, ow))
    y = _K.adaptive_avg_pool2d(y.reshape([n, c, d, oh * ow]), (od, oh * ow))
    y = y.reshape([n, c, od, oh, ow])
    return y.squeeze(0) if unbatched else y


# ------------------------------------------------------------------ the Paddle door's spellings
def paddle_adaptive_avg_pool1d(x, output_size, name=None):
    """paddle.nn.functional.adaptive_avg_pool1d: (N, C, L) averaged to output_size."""
    if not isinstance(x, Tensor) or x._data.ndim != 3:
        raise ArgValueError("adaptive_avg_pool1d(): expected a 3-D (N, C, L) tensor, got "
                            f"{list(x._data.shape) if isinstance(x, Tensor) else type(x).__name__}")
    (o,) = _sizes(output_size if not isinstance(output_size, int) else [output_size],
                  x._data.shape[-1:], "adaptive_avg_pool1d")
    return _K.adaptive_avg_pool2d(x.unsqueeze(2), (1, o)).squeeze(2)


def paddle_adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """paddle.nn.functional.adaptive_avg_pool3d: NCDHW (or NDHWC) averaged to output_size."""
    if data_format not in ("NCDHW", "NDHWC"):
        raise ArgValueError(f"adaptive_avg_pool3d(): data_format must be 'NCDHW' or 'NDHWC', "
                            f"got {data_format!r}")
    if not isinstance(x, Tensor) or x._data.ndim != 5:
        raise ArgValueError("adaptive_avg_pool3d(): expected a 5-D tensor")
    if data_format == "NDHWC":
        return adaptive_avg_pool3d(x.transpose([0, 4, 1, 2, 3]), output_size).transpose(
            [0, 2, 3, 4, 1])
    return adaptive_avg_pool3d(x, output_size)


paddle_adaptive_avg_pool1d.__name__ = paddle_adaptive_avg_pool1d.__qualname__ = "adaptive_avg_pool1d"
paddle_adaptive_avg_pool3d.__name__ = paddle_adaptive_avg_pool3d.__qualname__ = "adaptive_avg_pool3d"
