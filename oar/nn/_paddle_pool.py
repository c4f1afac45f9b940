"""Paddle's pooling front: paddle.nn.functional.max_pool1d/2d/3d, avg_pool1d/2d/3d,
lp_pool1d/2d and the layers MaxPool1D/2D/3D, AvgPool1D/2D/3D, LPPool1D/2D, with Paddle's
positional order, its padding forms ('SAME' / 'VALID', per-dim pairs) and its geometry
(Note [Paddle pooling]), over the core pools of oar/nn/_pool.py."""
from __future__ import annotations

import math

from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from . import _pool as _P
from .layers import Layer

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "lp_pool1d", "lp_pool2d"]
LAYERS = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
          "LPPool1D", "LPPool2D"]

_FIRST = {1: "NCL", 2: "NCHW", 3: "NCDHW"}
_LAST = {1: "NLC", 2: "NHWC", 3: "NDHWC"}


# Note [Paddle pooling]
# Paddle's padding is an int, nd ints (symmetric per dim), 2*nd ints ([before, after] per
# dim: [top, bottom, left, right] in 2-D), nd+2 pairs with zero pairs at the batch and
# channel dims (where data_format puts them), or 'SAME' / 'VALID' in any case. 'SAME' pads
# each dim by max((ceil(n / s) - 1) * s + k - n, 0), the smaller half before, and its output
# is ceil(n / s) whatever ceil_mode says; 'VALID' is no padding and refuses ceil_mode. Every
# form becomes a (before, after) pair per dim, which selects Paddle's geometry in the core
# (Note [Pooling geometry]): its output size, no bound on the padding, and its values for
# windows in the padding only. Its average pools divide by the window's input elements
# (exclusive=True) or by the window clipped to the input and its padding BEFORE (Paddle's
# kernel clips the end of a window at n + before), times divisor_override / prod(kernel)
# when that is given; lp pooling is (sum over the window of x ** p,
# padding counted as zeros) ** (1 / p), composed here of the average pool, so its gradient
# follows from the ops.
def _ints(value, op, name, nd, minimum):
    if isinstance(value, (list, tuple)):
        if len(value) != nd:
            raise ArgValueError(f"{op}: {name} must be an int or a list of {nd} ints, got "
                                f"{list(value)}")
        v = tuple(_P._c._args.integer(x, op, name) for x in value)
    else:
        v = (_P._c._args.integer(value, op, name),) * nd
    if min(v) < minimum:
        raise ArgValueError(f"{op}: {name} must be {'positive' if minimum else 'non-negative'}"
                            f", got {value!r}")
    return v


def _pairs(padding, nd, op, channel_last):
    """padding in one of Paddle's list forms as nd (before, after) pairs."""
    p = list(padding)
    if p and all(isinstance(v, (list, tuple)) for v in p):
        if len(p) != nd + 2 or any(len(v) != 2 for v in p):
            raise ArgValueError(f"{op}: padding as pairs needs {nd + 2} pairs of 2 ints, got {p}")
        spatial = p[1:-1] if channel_last else p[2:]
        batch_channel = [p[0], p[-1]] if channel_last else p[:2]
        if any(_ints(list(v), op, "padding", 2, 0) != (0, 0) for v in batch_channel):
            raise ArgValueError(f"{op}: non-zero padding {p} in the batch or channel "
                                "dimensions is not supported")
        return tuple(_ints(list(v), op, "padding", 2, 0) for v in spatial)
    if len(p) == 2 * nd:
        v = _ints(p, op, "padding", 2 * nd, 0)
        return tuple((v[2 * i], v[2 * i + 1]) for i in range(nd))
    if len(p) == nd:
        return tuple((v, v) for v in _ints(p, op, "padding", nd, 0))
    raise ArgValueError(f"{op}: invalid padding {p}: give an int, {nd} ints, {2 * nd} ints "
                        f"(before and after each dim), {nd + 2} pairs, 'SAME' or 'VALID'")


def _conf(x, kernel_size, stride, padding, ceil_mode, op, nd, channel_last):
    """The core's pooling configuration (k, s, pairs, d, ceil) of Paddle's arguments for
    channels-first x (Note [Paddle pooling])."""
    k = _ints(kernel_size, op, "kernel_size", nd, 1)
    s = k if stride is None else _ints(stride, op, "stride", nd, 1)
    ceil = bool(ceil_mode)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode not in ("SAME", "VALID"):
            raise ArgValueError(f"{op}: unknown padding {padding!r}; it can only be 'SAME' or "
                                "'VALID'")
        if mode == "VALID":
            if ceil:
                raise ArgValueError(f"{op}: with padding 'VALID', ceil_mode must be False")
            pairs = ((0, 0),) * nd
        else:
            sp = x._data.shape[-nd:] if isinstance(x, Tensor) else (1,) * nd
            pairs = []
            for i in range(nd):
                total = max((-(-sp[i] // s[i]) - 1) * s[i] + k[i] - sp[i], 0)
                pairs.append((total // 2, total - total // 2))
            pairs, ceil = tuple(pairs), False
    elif isinstance(padding, (list, tuple)):
        pairs = _pairs(padding, nd, op, channel_last)
    else:
        pairs = ((_P._c._args.integer(padding, op, "padding"),) * 2,) * nd
        if pairs[0][0] < 0:
            raise ArgValueError(f"{op}: padding must be non-negative, got {padding!r}")
    return k, s, pairs, (1,) * nd, ceil


def _first(x, data_format, op, nd):
    """x moved to channels-first when data_format is channels-last: (x, moved)."""
    if data_format not in (_FIRST[nd], _LAST[nd]):
        raise ArgValueError(f"{op}: data_format must be {_FIRST[nd]!r} or {_LAST[nd]!r}, got "
                            f"{data_format!r}")
    if data_format == _LAST[nd] and isinstance(x, Tensor):
        return x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1))), True
    return x, False


def _back(out, moved):
    if not moved:
        return out
    if isinstance(out, tuple):
        return tuple(_back(o, True) for o in out)
    return out.transpose([0] + list(range(2, out.ndim)) + [1])


def _input_rank(x, op, nd):
    """A Tensor of rank nd + 2 (Paddle's pools take batched input only)."""
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"{op}: x must be a Tensor, got {type(x).__name__}")
    if x.ndim != nd + 2:
        raise ArgValueError(f"{op}: expected a {nd + 2}-D input ({_FIRST[nd]} or {_LAST[nd]}), "
                            f"got shape {list(x.shape)}")


def _as_2d(conf):
    """A 1-D configuration as the 2-D one of a height-1 image."""
    k, s, p, d, ceil = conf
    return (1,) + k, (1,) + s, ((0, 0),) + p, (1,) + d, ceil


def _max(nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format, op):
    _input_rank(x, op, nd)
    x, moved = _first(x, data_format, op, nd)
    if return_mask and isinstance(padding, str):
        padding = 0     # Paddle's pools with a mask read 'SAME' / 'VALID' as no padding
    conf = _conf(x, kernel_size, stride, padding, ceil_mode, op, nd, moved)
    if return_mask and any(a != b for a, b in conf[2]):
        raise ArgValueError(f"{op}: with return_mask, the padding must be the same before and "
                            f"after each dim (Paddle), got {padding!r}")
    if nd == 1:     # the core pools 1-D as a height-1 image (Note [Pooling geometry])
        out = _P.max_pool2d(x.unsqueeze(2), None, _parsed=_as_2d(conf), return_mask=return_mask)
        return _back(tuple(o.squeeze(2) for o in out) if return_mask else out.squeeze(2), moved)
    return _back(_P.max_pool2d(x, None, _parsed=conf, return_mask=return_mask, nd=nd), moved)


def _avg(nd, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
         data_format, op, mode=None):
    _input_rank(x, op, nd)
    x, moved = _first(x, data_format, op, nd)
    conf = _conf(x, kernel_size, stride, padding, ceil_mode, op, nd, moved)
    mode = mode or ("exclude" if exclusive else "include")
    if divisor_override is not None:    # Paddle scales its divisor (Note [Paddle pooling])
        v = _P._c._args.number(divisor_override, op, "divisor_override", allow_bool=False)
        if v == 0:
            raise ArgValueError(f"{op}: divisor_override must be nonzero")
        mode = ("scaled", v, mode)
    if nd == 1:
        return _back(_P.avg_pool2d(x.unsqueeze(2), None,
                                   _parsed=_as_2d(conf) + (mode,)).squeeze(2), moved)
    return _back(_P.avg_pool2d(x, None, _parsed=conf + (mode,), nd=nd), moved)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """1-D max pooling of NCL x; with return_mask also each maximum's int32 position in L."""
    return _max(1, x, kernel_size, stride, padding, return_mask, ceil_mode, "NCL",
                "max_pool1d")


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    """2-D max pooling of NCHW (or NHWC) x; with return_mask also each maximum's int32 flat
    position in its H*W plane."""
    return _max(2, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format,
                "max_pool2d")


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    """3-D max pooling of NCDHW (or NDHWC) x; with return_mask also each maximum's int32 flat
    position in its D*H*W volume."""
    return _max(3, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format,
                "max_pool3d")


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """1-D average pooling of NCL x; exclusive=True leaves the padding out of the divisor."""
    return _avg(1, x, kernel_size, stride, padding, ceil_mode, exclusive, None, "NCL",
                "avg_pool1d")


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """2-D average pooling of NCHW (or NHWC) x; exclusive=True leaves the padding out of the
    divisor."""
    return _avg(2, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                data_format, "avg_pool2d")


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """3-D average pooling of NCDHW (or NDHWC) x; exclusive=True leaves the padding out of the
    divisor."""
    return _avg(3, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                data_format, "avg_pool3d")


def _lp(nd, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format, op):
    p = _P._c._args.number(norm_type, op, "norm_type", allow_bool=False)
    if p == 0:
        raise ArgValueError(f"{op}: norm_type must be nonzero, got {norm_type!r}")
    if math.isinf(p):           # the max of |x| (p = +inf), or its min (p = -inf)
        a = x.abs() if isinstance(x, Tensor) else x
        if p > 0:
            return _max(nd, a, kernel_size, stride, padding, False, ceil_mode, data_format, op)
        return -_max(nd, -a, kernel_size, stride, padding, False, ceil_mode, data_format, op)
    powered = x.pow(p) if isinstance(x, Tensor) else x
    # the window sums: an average pool with divisor 1 (Note [Pooling geometry])
    total = _avg(nd, powered, kernel_size, stride, padding, ceil_mode, False, None,
                 data_format, op, mode=1)
    return total.pow(1.0 / p)


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCL", name=None):
    """1-D power-average pooling: (sum over each window of x ** norm_type) ** (1 / norm_type)
    (Note [Paddle pooling])."""
    return _lp(1, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format,
               "lp_pool1d")


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    """2-D power-average pooling: (sum over each window of x ** norm_type) ** (1 / norm_type)
    (Note [Paddle pooling])."""
    return _lp(2, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format,
               "lp_pool2d")


# ---------------------------------------------------------------- layers
class _PoolLayer(Layer):
    _nd = 2
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, name=None):
        super().__init__()
        self.ksize, self.stride, self.padding, self.ceil_mode = (kernel_size, stride, padding,
                                                                 ceil_mode)

    def extra_repr(self):
        """kernel_size, stride, padding, as Paddle prints them."""
        return f"kernel_size={self.ksize}, stride={self.stride}, padding={self.padding}"


class _MaxLayer(_PoolLayer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.return_mask = return_mask
        self.data_format = data_format or _FIRST[self._nd]
        _first(None, self.data_format, type(self).__name__, self._nd)

    def forward(self, x):
        """Max pooling of x (and the positions of the maxima with return_mask)."""
        return _max(self._nd, x, self.ksize, self.stride, self.padding, self.return_mask,
                    self.ceil_mode, self.data_format, type(self).__name__)


class _AvgLayer(_PoolLayer):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format=None, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.exclusive, self.divisor = exclusive, divisor_override
        self.data_format = data_format or _FIRST[self._nd]
        _first(None, self.data_format, type(self).__name__, self._nd)

    def forward(self, x):
        """Average pooling of x."""
        return _avg(self._nd, x, self.ksize, self.stride, self.padding, self.ceil_mode,
                    self.exclusive, self.divisor, self.data_format, type(self).__name__)


class MaxPool1D(_MaxLayer):
    """1-D max pooling layer over NCL input."""
    _nd = 1

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode)


class MaxPool2D(_MaxLayer):
    """2-D max pooling layer over NCHW (or NHWC) input."""
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)


class MaxPool3D(_MaxLayer):
    """3-D max pooling layer over NCDHW (or NDHWC) input."""
    _nd = 3

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)


class AvgPool1D(_AvgLayer):
    """1-D average pooling layer over NCL input; exclusive=True by default."""
    _nd = 1

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive)


class AvgPool2D(_AvgLayer):
    """2-D average pooling layer over NCHW (or NHWC) input; exclusive=True by default."""
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format)


class AvgPool3D(_AvgLayer):
    """3-D average pooling layer over NCDHW (or NDHWC) input; exclusive=True by default."""
    _nd = 3

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format)


class _LPLayer(_PoolLayer):
    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.norm_type = float(norm_type)
        self.data_format = data_format or _FIRST[self._nd]
        _first(None, self.data_format, type(self).__name__, self._nd)

    def forward(self, x):
        """lp pooling of x."""
        return _lp(self._nd, x, self.norm_type, self.ksize, self.stride, self.padding,
                   self.ceil_mode, self.data_format, type(self).__name__)

    def extra_repr(self):
        """norm_type, kernel_size, stride, padding, as Paddle prints them."""
        return f"norm_type={self.norm_type}, " + super().extra_repr()


class LPPool1D(_LPLayer):
    """1-D power-average pooling layer over NCL (or NLC) input."""
    _nd = 1

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format="NCL", name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format)


class LPPool2D(_LPLayer):
    """2-D power-average pooling layer over NCHW (or NHWC) input."""
    _nd = 2

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format="NCHW", name=None):
        # Paddle's LPPool2D (not LPPool1D) keeps the kernel size as its default stride
        super().__init__(norm_type, kernel_size, kernel_size if stride is None else stride,
                         padding, ceil_mode, data_format)
