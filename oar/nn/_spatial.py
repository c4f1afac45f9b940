"""Spatial resampling ops: interpolate (nearest, nearest-exact, linear, bilinear, bicubic,
trilinear, area) and pixel_shuffle / pixel_unshuffle, one declaration each in the core;
each door's argument rules (torch's F.interpolate, Paddle's interpolate) are functions
below that only decide the per-dim plan (Note [Separable resampling])."""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import args as _args
from ..ops import registry as R
from ..ops.pointwise import _no_kernel
from ..tensor import Tensor, wrap_as
from . import _checks as _c
from ._kernels import _first_order_only, _input


# Note [Separable resampling]
# Every interpolation mode is separable: along each spatial dim d, output position o reads a
# few input positions idx[o, k] with weights w[o, k] (nearest: 1 tap of weight 1; linear: 2;
# cubic: 4; area: the window, masked where a window is shorter than the longest). The
# forward applies one dim after another (np.take + weighted sum: a 0-weight tap still
# multiplies, as PyTorch's kernels do, so an inf next to a sampled point gives nan alike);
# the backward is the adjoint, each dim's (out, in) matrix transposed, applied in reverse
# order; it is an op too, whose own backward is the forward, so double backward works.
# What differs between modes and doors is only how (idx, w) are computed (`_taps`): the
# source coordinate of output o is computed in the input's dtype (float32 for float32, as
# PyTorch's opmath and Paddle's float kernels do), and nearest in float32 always.
# PyTorch: with align_corners the ratio is (in-1)/(out-1) and src = ratio*o; without, the
# ratio is 1/scale_factor when a scale was given (recompute_scale_factor falsy) else in/out,
# and src = ratio*(o+0.5)-0.5, clamped at 0 except for cubic. An output as long as the input
# is a copy (linear, nearest). Paddle's align_mode=1 (without align_corners) is src =
# ratio*o. Cubic uses Keys' kernel with A = -0.75 and clamps the taps into the input.
def _ratio(n_in, n_out, align_corners, scale, dt):
    if align_corners:
        return dt.type(n_in - 1) / dt.type(n_out - 1) if n_out > 1 else dt.type(0)
    if scale is not None and scale > 0:
        return dt.type(1.0 / scale)
    return dt.type(n_in) / dt.type(n_out)


def _cubic_coeffs(t):
    a = -0.75

    def c1(x):     # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def c2(x):     # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    one = t.dtype.type(1)
    return np.stack([c2(t + one), c1(t), c1(one - t), c2(one + one - t)], axis=1)


def _taps(kind, n_in, n_out, align_corners, scale, dt, asymmetric=False, torch_rules=True):
    """(idx (out, K) int64, w (out, K) of dtype dt or None, mask or None) for one dim
    (Note [Separable resampling])."""
    o = np.arange(n_out)
    if kind in ("nearest", "nearest-exact"):
        if torch_rules and kind == "nearest" and n_out == n_in:
            idx = o
        elif torch_rules and kind == "nearest" and n_out == 2 * n_in:
            idx = o >> 1
        else:
            s = np.float32(1.0 / scale) if scale is not None and scale > 0 \
                else np.float32(n_in) / np.float32(n_out)
            of = o.astype(np.float32)
            if kind == "nearest-exact":
                of = of + np.float32(0.5)
            idx = np.minimum(np.floor(of * s).astype(np.int64), n_in - 1)
        return idx[:, None], None, None
    if kind == "area":
        lo = (o * n_in) // n_out
        k = -(-((o + 1) * n_in) // n_out) - lo
        K = int(k.max())
        idx = np.minimum(lo[:, None] + np.arange(K), n_in - 1)
        mask = np.arange(K)[None, :] < k[:, None]
        w = np.where(mask, (1 / k.astype(dt))[:, None], dt.type(0)).astype(dt)
        return idx, w, (None if mask.all() else mask)
    if kind == "linear" and n_out == n_in and torch_rules:
        return np.stack([o, o], 1), np.tile(np.array([1, 0], dt), (n_out, 1)), None
    r = _ratio(n_in, n_out, align_corners, scale, dt)
    of = o.astype(dt)
    half = dt.type(0.5)
    if align_corners or asymmetric:
        src = r * of
    else:
        src = r * (of + half) - half
        if kind == "linear":
            src = np.maximum(src, dt.type(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    lam = np.clip(src - i0.astype(dt), dt.type(0), dt.type(1)).astype(dt)
    if kind == "linear":
        i1 = i0 + (i0 < n_in - 1)
        return np.stack([i0, i1], 1), np.stack([dt.type(1) - lam, lam], 1).astype(dt), None
    idx = np.clip(i0[:, None] + np.arange(-1, 3), 0, n_in - 1)
    return idx, _cubic_coeffs(lam).astype(dt), None


# Note [Antialiased resampling]
# interpolate(..., antialias=True) (bilinear and bicubic on 4-D input) is PyTorch's separable
# filter: with scale the `_ratio` of the dim (in/out, 1/scale_factor, or (in-1)/(out-1) with
# align_corners), output o is centred at scale*(o+0.5) (with align_corners too), the filter's
# support is (taps/2) * max(scale, 1) input pixels (taps: 2 bilinear, 4 bicubic), input j is
# weighted filter((j - centre + 0.5) / max(scale, 1)) over the inputs whose centres fall in
# the support (truncated at the edges, never clamped), and the weights of each output are
# normalised to sum to 1. The filters are the triangle (bilinear) and Keys' cubic with
# A = -0.5 (PIL's), not the -0.75 of plain bicubic, so an upsampling is only close to the
# plain mode, not equal. The result is a plan of `_taps`' form (taps past an output's window
# masked out), so RESAMPLE's forward, adjoint and double backward serve it unchanged.
def _aa_filter(kind, x):
    x = np.abs(x)
    if kind == "linear":
        return np.where(x < 1, 1 - x, 0).astype(x.dtype)
    a = -0.5
    c1 = ((a + 2) * x - (a + 3)) * x * x + 1
    c2 = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, c1, np.where(x < 2, c2, 0)).astype(x.dtype)


def _taps_aa(kind, n_in, n_out, align_corners, scale, dt):
    """(idx, w, mask) of the antialiased filter along one dim (Note [Antialiased
    resampling])."""
    r = _ratio(n_in, n_out, align_corners, scale, dt)
    half_taps = 1.0 if kind == "linear" else 2.0
    support = dt.type(half_taps * r if r >= 1 else half_taps)
    inv = dt.type(1 / r) if r >= 1 else dt.type(1)
    K = int(math.ceil(support)) * 2 + 1
    o = np.arange(n_out)
    centre = (r * (o + 0.5)).astype(dt)
    lo = np.maximum(np.trunc(centre - support + 0.5).astype(np.int64), 0)
    size = np.minimum(np.trunc(centre + support + 0.5).astype(np.int64), n_in) - lo
    j = np.arange(K)
    mask = j[None, :] < size[:, None]
    arg = ((j[None, :] + lo[:, None]) - centre[:, None] + 0.5) * inv
    w = np.where(mask, _aa_filter(kind, arg.astype(dt)), dt.type(0))
    total = w.sum(axis=1, keepdims=True)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w).astype(dt)
    idx = np.minimum(lo[:, None] + j[None, :], n_in - 1)
    return idx, w, mask


def _apply_dim(x, axis, idx, w, mask):
    if x.__class__ is not np.ndarray:   # the plan's tables to x's place
        xp = _xp.array_module(x)
        idx, w, mask = (None if a is None else xp.asarray(a) for a in (idx, w, mask))
    if w is None:
        return np.take(x, idx[:, 0], axis=axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    acc = None
    for k in range(idx.shape[1]):
        part = np.take(x, idx[:, k], axis=axis) * w[:, k].reshape(shape)
        if mask is not None:
            part = np.where(mask[:, k].reshape(shape), part, x.dtype.type(0))
        acc = part if acc is None else np.add(acc, part, out=acc)
    return acc


def _k_resample(x, plan):
    for axis, _n_in, idx, w, mask in plan:
        x = _apply_dim(x, axis, idx, w, mask)
    return _xp.ascontiguousarray(x) if x.base is not None else x


def _k_resample_adjoint(g, plan):
    xp = _xp.array_module(g)   # the plan's tables are CPU arrays: moved to g's place
    for axis, n_in, idx, w, mask in reversed(plan):
        n_out, K = idx.shape
        idx = xp.asarray(idx)
        m = xp.zeros((n_out, n_in), g.dtype)
        ww = xp.ones(idx.shape, g.dtype) if w is None else xp.asarray(w).astype(g.dtype)
        if mask is not None:
            ww = np.where(xp.asarray(mask), ww, g.dtype.type(0))
        rows = xp.repeat(xp.arange(n_out), K)
        np.add.at(m, (rows, idx.reshape(-1)), ww.reshape(-1))
        g = np.moveaxis(np.tensordot(g, m, axes=([axis], [0])), -1, axis)
    return _xp.ascontiguousarray(g)


def _b_resample(c, g):
    return (R.dispatch(RESAMPLE_ADJOINT, (g,), c.attrs),)


def _b_resample_adjoint(c, gg):
    return (R.dispatch(RESAMPLE, (gg,), c.attrs),)


# Note [uint8 bilinear]
# Both frameworks resample uint8 images bilinearly (4-D input, no antialias), each with its own
# arithmetic, and oar follows each door's:
# - PyTorch 2.13 filters the last dim first, then the one before, each pass with integer
#   weights round(w * 2**p) (p the largest precision keeping the biggest weight of that dim
#   below 2**15 once doubled, capped at 22) and rounding to nearest: (sum + 2**(p-1)) >> p,
#   clamped to [0, 255], so the intermediate image is uint8 too;
# - Paddle 3.3.1's uint8 result is its float32 result truncated (its static_cast to uint8);
#   oar truncates its own float32 result, so it can differ from paddle's by 1 where the two
#   float32 results straddle an integer (a few elements in a thousand).
# No gradient: integer tensors never require one.
def _fixed_point_pass(x, axis, idx, w):
    big = float(np.abs(w).max())
    p = 0
    while p < 22 and int(0.5 + big * (1 << (p + 1))) < (1 << 15):
        p += 1
    wi = np.where(w >= 0, np.floor(w * (1 << p) + 0.5), np.ceil(w * (1 << p) - 0.5))
    wi = wi.astype(np.int64)
    shape = [1] * x.ndim
    shape[axis] = -1
    acc = np.full(x.shape[:axis] + (idx.shape[0],) + x.shape[axis + 1:], 1 << (p - 1),
                  np.int64) if p else 0
    for k in range(idx.shape[1]):
        acc = acc + np.take(x, idx[:, k], axis=axis).astype(np.int64) * wi[:, k].reshape(shape)
    return np.clip(acc >> p, 0, 255).astype(np.uint8)


def _k_resample_uint8(x, plan, torch_rounding):
    if torch_rounding:
        for axis, _n_in, idx, w, _mask in reversed(plan):
            x = _fixed_point_pass(x, axis, idx, w)
        return _xp.ascontiguousarray(x)
    # Paddle's uint8 result is its float32 result truncated: the same float32 arithmetic as
    # a float32 input here (whose exactness against paddle is that path's), then the cast
    xf = _k_resample(x.astype(np.float32), plan)
    return np.clip(xf, 0, 255).astype(np.uint8)


RESAMPLE_UINT8 = R.OpDef(
    "upsample_bilinear2d_uint8", _k_resample_uint8, None,
    attrs=(("plan", None), ("torch_rounding", True)), node_name="UpsampleBilinear2DBackward0",
    doc="A uint8 image resampled bilinearly with its door's rounding (Note [uint8 bilinear]).")


def _resample_def(name, node):
    return R.OpDef(name, _k_resample, _b_resample, attrs=(("plan", None),), node_name=node,
                   doc="x resampled along its spatial dims (Note [Separable resampling]).")


RESAMPLE = _resample_def("resample", "ResampleBackward")
RESAMPLE_ADJOINT = R.OpDef(
    "resample_backward", _k_resample_adjoint, _b_resample_adjoint, attrs=(("plan", None),),
    node_name="ResampleBackwardBackward",
    doc="The gradient of a resampling with respect to its input (Note [Separable resampling]).")
# one declaration per PyTorch node name; the kernel and backward are RESAMPLE's
_NAMES = {"nearest": "UpsampleNearest{n}D", "nearest-exact": "UpsampleNearestExact{n}D",
          "linear": "UpsampleLinear1D", "bilinear": "UpsampleBilinear2D",
          "bicubic": "UpsampleBicubic2D", "trilinear": "UpsampleTrilinear3D",
          "area": "AdaptiveAvgPool{n}D"}
_RESAMPLE_OPS = {(mode, n): _resample_def(
    "upsample_" + mode.replace("-", "_") + f"{n}d", _NAMES[mode].format(n=n) + "Backward0")
    for mode in _NAMES for n in (1, 2, 3)}
_RESAMPLE_OPS.update({(mode + "-aa", 2): _resample_def(
    f"upsample_{mode}2d_aa", f"Upsample{mode.title()}2DAaBackward0")
    for mode in ("bilinear", "bicubic")})
_KIND = {"nearest": "nearest", "nearest-exact": "nearest-exact", "linear": "linear",
         "bilinear": "linear", "trilinear": "linear", "bicubic": "cubic", "area": "area"}


def resample(x, mode, out_sizes, axes, align_corners=False, scales=None, asymmetric=False,
             torch_rules=True, op="interpolate", antialias=False):
    """x resampled to out_sizes along axes with one op (Note [Separable resampling])."""
    xa = x._data
    dt = xa.dtype
    kind = _KIND[mode]
    if kind == "nearest" or kind == "nearest-exact":
        if dt.kind not in "fu" or dt == np.uint16:
            _no_kernel(op, f"upsample_{mode.replace('-', '_')}", dt,
                       "cast the input to a floating dtype (or uint8) first")
    elif dt.kind != "f" and not (dt == np.uint8 and mode == "bilinear" and not antialias):
        # Note [uint8 bilinear]: uint8 bilinear is computed, other integer resamplings refused
        _no_kernel(op, f"upsample_{mode}", dt, "cast the input to a floating dtype first")
    in_sizes = [xa.shape[a] for a in axes]
    if min(in_sizes) <= 0 or min(out_sizes) <= 0:
        raise ArgValueError(f"{op}: Input and output sizes should be greater than 0, but got "
                            f"input {tuple(in_sizes)} and output {tuple(out_sizes)} (mode "
                            f"{mode!r}, input {_c.shape_str(xa.shape)})")
    cdt = dt if dt.kind == "f" else np.dtype(np.float32)
    if dt == np.uint8 and kind == "linear" and torch_rules:
        cdt = np.dtype(np.float64)   # PyTorch's uint8 weights are made in double
    scales = scales or [None] * len(axes)
    plan = []
    for a, n_in, n_out, s in zip(axes, in_sizes, out_sizes, scales):
        if antialias:
            idx, w, mask = _taps_aa(kind, n_in, n_out, align_corners, s, cdt)
        else:
            idx, w, mask = _taps(kind, n_in, n_out, align_corners, s, cdt, asymmetric,
                                 torch_rules)
        plan.append((a, n_in, idx, w, mask))
    if dt == np.uint8 and kind == "linear":
        return R.dispatch(RESAMPLE_UINT8, (x,), (tuple(plan), bool(torch_rules)))
    if antialias:     # PyTorch filters the last dim first
        return R.dispatch(_RESAMPLE_OPS[mode + "-aa", len(axes)], (x,), (tuple(plan[::-1]),))
    return R.dispatch(_RESAMPLE_OPS[mode, len(axes)], (x,), (tuple(plan),))


_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _size_list(value, dim, what, x, op):
    if isinstance(value, (list, tuple)):
        if len(value) != dim:
            raise ArgValueError(
                f"Input and {'output' if what == 'size' else 'scale_factor'} must have the same "
                f"number of spatial dimensions, but got input with spatial dimensions of "
                f"{list(x.shape[2:])} and {'output size' if what == 'size' else 'scale_factor of shape'}"
                f" {value}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                f"{'output size in (o1, o2, ...,oK)' if what == 'size' else 'scale_factor in (s1, s2, ...,sK)'} format.")
        return list(value)
    return [value] * dim


def torch_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                      recompute_scale_factor=None, antialias=False):
    """PyTorch's F.interpolate rules (sizes, scale factors, modes) over `resample`."""
    op = "interpolate"
    if not isinstance(input, Tensor):
        raise ArgTypeError(f"interpolate(): argument 'input' must be Tensor, not "
                           f"{type(input).__name__}")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ArgValueError("align_corners option can only be set with the interpolating "
                                "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    nd = input.ndim
    dim = nd - 2
    if size is not None and scale_factor is not None:
        raise ArgValueError("only one of size or scale_factor should be defined")
    if size is not None:
        output_size = _size_list(size, dim, "size", input, op)
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for v in output_size):
            raise ArgTypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                               "or Tuple[int, int, int], but got size with types "
                               f"{[type(v) for v in output_size]}")
        output_size = [int(v) for v in output_size]
        scales = None
    elif scale_factor is not None:
        scales = [float(_args.number(v, op, "scale_factor"))
                  for v in _size_list(scale_factor, dim, "scale", input, op)]
        output_size = None
    else:
        raise ArgValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ArgValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scales[i]) for i in range(dim)]
        scales = None
    if antialias:
        if not (mode in ("bilinear", "bicubic") and nd == 4):
            raise ArgValueError("Anti-alias option is restricted to bilinear, bicubic, and "
                                "lanczos modes and requires a 4-D tensor as input")
    if mode not in _MODES:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})")
    if nd not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {mode})")
    need = _DIMS.get(mode)
    if need is not None and need != dim:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {need + 2}D input")
    if output_size is None:
        output_size = [math.floor(input.shape[i + 2] * scales[i]) for i in range(dim)]
    if mode == "area":
        return _area(input, output_size, op)
    return resample(input, mode, output_size, tuple(range(2, nd)), bool(align_corners), scales,
                    op=op, antialias=bool(antialias))


def _area(x, output_size, op, axes=None):
    """PyTorch's adaptive average pooling: 2-D is the pooling op itself (bit-identical, its
    node), 1-D its unsqueezed form, 3-D the separable resampling."""
    from ._kernels import adaptive_avg_pool2d
    nd = x.ndim
    if min(output_size) <= 0 or min(x.shape[2:]) <= 0:
        raise ArgValueError(f"{op}: Input and output sizes should be greater than 0, but got "
                            f"input {tuple(x.shape[2:])} and output {tuple(output_size)} (mode "
                            f"'area')")
    if x._data.dtype.kind != "f":
        _no_kernel(op, "adaptive_avg_pool", x._data.dtype, "cast the input to a floating dtype")
    if nd == 4:
        return adaptive_avg_pool2d(x, list(output_size))
    if nd == 3:
        return adaptive_avg_pool2d(x.unsqueeze(-2), [1, output_size[0]]).squeeze(-2)
    return resample(x, "area", output_size, tuple(range(2, nd)), op=op)


# ---------------------------------------------------------------- Paddle's interpolate
_PADDLE_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_PADDLE_MODES = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}


def paddle_interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                       align_mode=0, data_format=None, recompute_scale_factor=None,
                       antialias=False, name=None):
    """Paddle's interpolate rules (data_format, align_mode, scale in float32) over
    `resample`."""
    op = "interpolate"
    _input(x, op, "x")
    mode = mode.lower() if isinstance(mode, str) else mode
    if mode not in ("linear", "area", "nearest", "bilinear", "trilinear", "bicubic"):
        raise ArgValueError("The 'resample' of image_resize can only be 'area', 'linear', "
                            "'bilinear', 'trilinear', 'bicubic' or 'nearest' currently.")
    nd = x.ndim
    if nd not in (3, 4, 5):
        raise ArgValueError(f"{op}: the input must be 3-D, 4-D or 5-D, got {nd}-D")
    need = _PADDLE_MODES.get(mode)
    if need is not None and need != nd:
        raise ArgValueError(f"'{mode}' only support {need}-D tensor.")
    if mode == "nearest" and nd == 3:
        raise ArgValueError("'NEAREST' only support 4-D  or 5-D tensor.")
    if data_format is None:
        data_format = _PADDLE_FORMATS[nd][0]
    if data_format not in _PADDLE_FORMATS[nd]:
        raise ArgValueError(f"Got wrong value for param `data_format`: {data_format} received "
                            f"but only `{_PADDLE_FORMATS[nd][0]}` or `{_PADDLE_FORMATS[nd][1]}` "
                            f"supported for {nd}-D input.")
    if not isinstance(align_corners, bool):
        raise ArgTypeError("Attr align_corners should be a bool value")
    if align_mode not in (0, 1):
        raise ArgValueError("align_mode can only be 0 or 1")
    if align_corners and mode == "nearest":
        raise ArgValueError("align_corners option can only be set with the interpolating "
                            "modes: linear | bilinear | bicubic | trilinear")
    if not isinstance(antialias, bool):
        raise ArgTypeError("Attr antialias should be a bool value")
    if antialias and mode not in ("bilinear", "bicubic"):
        raise ArgValueError("Anti-alias option is only supported for bilinear and bicubic modes")
    dim = nd - 2
    channels_last = data_format in ("NWC", "NHWC", "NDHWC")
    axes = tuple(range(1, nd - 1)) if channels_last else tuple(range(2, nd))
    if isinstance(size, Tensor):
        size = size.tolist()
        size = size if isinstance(size, list) else [size]
    if isinstance(scale_factor, Tensor):
        scale_factor = scale_factor.tolist()
    if mode == "area":
        if size is None:
            raise ArgValueError("output size can not be None in AREA mode")
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * dim
        # Paddle's area is its adaptive average pooling, which reads NCHW whatever data_format
        return _area(x, [_args.integer(v, op, "size") for v in sizes], op)
    if size is not None and scale_factor is not None:
        raise ArgValueError("Only one of size or scale_factor should be defined.")
    scales = None
    if size is not None:
        if recompute_scale_factor:
            raise ArgValueError("recompute_scale_factor is not meaningful with an explicit "
                                "size.")
        if not isinstance(size, (list, tuple)):
            raise ArgTypeError(f"{op}: size should be a list or tuple or Tensor, got "
                               f"{type(size).__name__}")
        if len(size) != dim:
            raise ArgValueError(f"size length should be {dim} for input {nd}-D tensor.")
        out = [_args.integer(v, op, "size") for v in size]
        if min(out) <= 0:
            raise AssertionError("Each dimension size given in out_shape must be greater than 0.")
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ArgValueError(f"scale_shape length should be {dim} for input {nd}-D "
                                    "tensor.")
            sl = [float(_args.number(v, op, "scale_factor")) for v in scale_factor]
        else:
            sl = [float(_args.number(scale_factor, op, "scale_factor"))] * dim
        if recompute_scale_factor:
            # Paddle reads the sizes at dims 2.. whatever data_format (for NHWC input: W and
            # C, not H and W), and so do we
            out = [int(math.floor(float(x.shape[2 + i]) * s)) for i, s in enumerate(sl)]
        else:
            if min(sl) <= 0:
                raise ArgValueError("Attr(scale) should be greater than zero.")
            # the kernel's scale is a float32 attr: out = int(in * scale) in float32
            out = [int(np.float32(x.shape[a]) * np.float32(s)) for a, s in zip(axes, sl)]
            scales = [float(np.float32(s)) for s in sl]
    else:
        raise ArgValueError("One of size and scale_factor should be defined.")
    return resample(x, mode, out, axes, align_corners, scales,
                    asymmetric=(align_mode == 1 and not align_corners and mode != "bicubic"),
                    torch_rules=False, op=op, antialias=antialias)


# ---------------------------------------------------------------- pixel shuffle
# Note [Pixel shuffle]
# pixel_shuffle moves r*r channels into an r x r block of pixels: channel c*r*r + i*r + j
# becomes pixel (h*r + i, w*r + j) of channel c; pixel_unshuffle is its inverse. Both
# frameworks return a new tensor (a kernel, not a view), so both are ops here, each the
# other's backward. Paddle's NHWC layout splits the last dim as (C, r, r) the same way.
def _k_shuffle(x, r, channels_last):
    if channels_last:
        *lead, h, w, c = x.shape
        y = x.reshape(*lead, h, w, c // (r * r), r, r)
        nl = len(lead)
        y = y.transpose(*range(nl), nl, nl + 3, nl + 1, nl + 4, nl + 2)
        return y.reshape(*lead, h * r, w * r, c // (r * r)).copy()
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    nl = len(lead)
    y = y.transpose(*range(nl), nl, nl + 3, nl + 1, nl + 4, nl + 2)
    return y.reshape(*lead, c // (r * r), h * r, w * r).copy()


def _k_unshuffle(x, r, channels_last):
    if channels_last:
        *lead, h, w, c = x.shape
        nl = len(lead)
        y = x.reshape(*lead, h // r, r, w // r, r, c)
        y = y.transpose(*range(nl), nl, nl + 2, nl + 4, nl + 1, nl + 3)
        return y.reshape(*lead, h // r, w // r, c * r * r).copy()
    *lead, c, h, w = x.shape
    nl = len(lead)
    y = x.reshape(*lead, c, h // r, r, w // r, r)
    y = y.transpose(*range(nl), nl, nl + 2, nl + 4, nl + 1, nl + 3)
    return y.reshape(*lead, c * r * r, h // r, w // r).copy()


PIXEL_SHUFFLE = R.OpDef(
    "pixel_shuffle", _k_shuffle, lambda c, g: (R.dispatch(PIXEL_UNSHUFFLE, (g,), c.attrs),),
    attrs=(("upscale_factor", None), ("channels_last", False)),
    node_name="PixelShuffleBackward0",
    doc="Channels moved into r x r pixel blocks (Note [Pixel shuffle]).")
PIXEL_UNSHUFFLE: R.OpDef = R.OpDef(
    "pixel_unshuffle", _k_unshuffle, lambda c, g: (R.dispatch(PIXEL_SHUFFLE, (g,), c.attrs),),
    attrs=(("downscale_factor", None), ("channels_last", False)),
    node_name="PixelUnshuffleBackward0",
    doc="r x r pixel blocks moved into channels (Note [Pixel shuffle]).")


def _factor(value, op, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ArgTypeError(f"{op}(): argument '{name}' must be int, not "
                           f"{type(value).__name__}")
    return int(value)


def _shuffle_args(x, factor, data_format, paddle, op, torch_name, factor_name):
    """(factor, shape) after the checks pixel_shuffle and pixel_unshuffle share (each
    framework's words)."""
    _input(x, op)
    r = _factor(factor, op, factor_name)
    shape = tuple(x._data.shape)
    if paddle and len(shape) != 4:
        raise ArgValueError(f"{op}: Input should be a 4-D tensor of format [N, C, H, W] or "
                            f"[N, H, W, C], but got {_c.shape_str(shape)}")
    if data_format not in ("NCHW", "NHWC"):
        raise ArgValueError(f"{op}: Attr(data_format) should be 'NCHW' or 'NHWC'. But "
                            f"received Attr(data_format): {data_format}.")
    if len(shape) < 3:
        raise ArgValueError(f"{torch_name} expects input to have at least 3 dimensions, but "
                            f"got input with {len(shape)} dimension(s)")
    if r <= 0:
        raise ArgValueError(f"{torch_name} expects a positive {factor_name}, but got {r}")
    return r, shape


def pixel_shuffle(x, upscale_factor, data_format="NCHW", *, paddle=False, op="pixel_shuffle"):
    """x's channels moved into upscale_factor x upscale_factor pixel blocks."""
    r, shape = _shuffle_args(x, upscale_factor, data_format, paddle, op, "pixel_shuffle",
                             "upscale_factor")
    last = data_format == "NHWC"
    c = shape[-1] if last else shape[-3]
    if c % (r * r):
        raise ArgValueError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                            f"divisible by the square of upscale_factor, but input.size(-3)={c}"
                            f" is not divisible by {r * r}")
    return R.dispatch(PIXEL_SHUFFLE, (x,), (r, last))


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", *, paddle=False,
                    op="pixel_unshuffle"):
    """x's downscale_factor x downscale_factor pixel blocks moved into channels."""
    r, shape = _shuffle_args(x, downscale_factor, data_format, paddle, op, "pixel_unshuffle",
                             "downscale_factor")
    last = data_format == "NHWC"
    h, w = (shape[-3], shape[-2]) if last else (shape[-2], shape[-1])
    if h % r or w % r:
        raise ArgValueError(f"pixel_unshuffle expects height and width to be divisible by "
                            f"downscale_factor, but input.size(-2)={h} and input.size(-1)={w} "
                            f"are not divisible by {r}")
    return R.dispatch(PIXEL_UNSHUFFLE, (x,), (r, last))


# ---------------------------------------------------------------- unfold / fold
# Note [Unfold and fold]
# unfold (im2col) copies every kh x kw window of the zero-padded (N, C, H, W) input into a
# column: output (N, C*kh*kw, L), row c*kh*kw + i*kw + j, column l = the window's row-major
# position among the oh x ow windows. fold (col2im) is its adjoint: each column is added back
# into its window of a zero (N, C, H, W) canvas, overlapping windows summing. Each op is the
# other's backward, so gradients of any order work. Padding is (top, left, bottom, right):
# PyTorch pads both sides alike; Paddle's `paddings` may differ per side.
def _blocks(n, k, s, p0, p1, d):
    return (n + p0 + p1 - d * (k - 1) - 1) // s + 1


def _k_im2col(x, geo):
    (kh, kw), (sh, sw), (pt, pl, pb, pr), (dh, dw), (oh, ow) = geo
    n, c, h, w = x.shape
    xp = x
    if pt or pl or pb or pr:
        xp = np.zeros((n, c, h + pt + pb, w + pl + pr), x.dtype)
        xp[:, :, pt:pt + h, pl:pl + w] = x
    cols = np.empty((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                                  j * dw:j * dw + sw * (ow - 1) + 1:sw]
    return cols.reshape(n, c * kh * kw, oh * ow)


def _k_col2im(cols, geo, out_hw):
    (kh, kw), (sh, sw), (pt, pl, pb, pr), (dh, dw), (oh, ow) = geo
    h, w = out_hw
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    cols = cols.reshape(n, c, kh, kw, oh, ow)
    canvas = np.zeros((n, c, h + pt + pb, w + pl + pr), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            canvas[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                   j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, :, i, j]
    return _xp.ascontiguousarray(canvas[:, :, pt:pt + h, pl:pl + w])


IM2COL = R.OpDef(
    "im2col", _k_im2col,
    lambda c, g: (R.dispatch(COL2IM, (g,), (c.attrs[0], tuple(c.input_meta[0][0][2:]))),),
    attrs=(("geometry", None),), node_name="Im2ColBackward0",
    doc="The sliding windows of x as columns (Note [Unfold and fold]).")
COL2IM: R.OpDef = R.OpDef(
    "col2im", _k_col2im, lambda c, g: (R.dispatch(IM2COL, (g,), (c.attrs[0],)),),
    attrs=(("geometry", None), ("output_size", None)), node_name="Col2ImBackward0",
    doc="Columns added back into their windows (Note [Unfold and fold]).")


def _pads4(padding, op, name, paddle):
    """(top, left, bottom, right) from an int, a pair, or (Paddle) four ints."""
    from ._pool import _tuple
    if paddle and isinstance(padding, (list, tuple)) and len(padding) == 4:
        p = tuple(_args.integer(v, op, name) for v in padding)
        if min(p) < 0:
            raise ArgValueError(f"{op}: {name} must be non-negative, got {list(padding)}")
        return p
    ph, pw = _tuple(padding, op, name, 0)
    return (ph, pw, ph, pw)


def _geometry_args(kernel_size, stride, padding, dilation, op, paddle, names):
    from ._pool import _tuple
    k = _tuple(kernel_size, op, names[0], 1)
    s = _tuple(stride, op, names[1], 1)
    p = _pads4(padding, op, names[2], paddle)
    d = _tuple(dilation, op, names[3], 1)
    return k, s, p, d


class LayoutAssertionError(ArgValueError, AssertionError):
    """Paddle asserts the input layout of unfold and fold (AssertionError)."""


def _rank_error(shape, want, paddle, op):
    if paddle:
        raise LayoutAssertionError(f"{op}: input should be the format of "
                                   f"{'[N, C, H, W]' if want == 4 else '[N, C, L]'}, got "
                                   f"{_c.shape_str(shape)}")
    if len(shape) < want - 1:     # PyTorch indexes dim 2 first: an IndexError
        raise _c.AxisError(f"{op}: Dimension out of range (expected to be in range of "
                           f"[{-len(shape)}, {len(shape) - 1}], but got {want - 2}); input "
                           f"{_c.shape_str(shape)} needs {want - 1} or {want} dims")


def unfold(x, kernel_size, dilation=1, padding=0, stride=1, *, paddle=False, op="unfold"):
    """(N, C, H, W) (or, torch, (C, H, W)) -> (N, C*kh*kw, L) (Note [Unfold and fold])."""
    _input(x, op)
    names = (("kernel_sizes", "strides", "paddings", "dilations") if paddle
             else ("kernel_size", "stride", "padding", "dilation"))
    k, s, p, d = _geometry_args(kernel_size, stride, padding, dilation, op, paddle, names)
    shape = tuple(x._data.shape)
    ok = len(shape) == 4 or (len(shape) == 3 and not paddle)
    if not ok:
        _rank_error(shape, 4, paddle, op)
    if not ok or 0 in shape[-3:]:
        raise ArgValueError(f"{op}: Expected {'4D' if paddle else '3D or 4D'} (batch mode) tensor "
                            f"with optional 0 dim batch size for input, but got: "
                            f"{_c.shape_str(shape)}")
    h, w = shape[-2:]
    oh = _blocks(h, k[0], s[0], p[0], p[2], d[0])
    ow = _blocks(w, k[1], s[1], p[1], p[3], d[1])
    if oh < 1 or ow < 1:
        raise ArgValueError(f"{op}: Given input with spatial size ({h}, {w}), kernel_size={k}, "
                            f"dilation={d}, padding={p}, calculated shape of the array of "
                            f"sliding blocks as ({oh}, {ow}), but its components must be at "
                            "least one.")
    geo = (k, s, p, d, (oh, ow))
    if len(shape) == 3:
        return R.dispatch(IM2COL, (x.unsqueeze(0),), (geo,)).squeeze(0)
    return R.dispatch(IM2COL, (x,), (geo,))


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1, *, paddle=False,
         op="fold"):
    """(N, C*kh*kw, L) (or, torch, (C*kh*kw, L)) -> (N, C, H, W): the adjoint of unfold."""
    from ._pool import _tuple
    _input(x, op)
    names = (("kernel_sizes", "strides", "paddings", "dilations") if paddle
             else ("kernel_size", "stride", "padding", "dilation"))
    out_hw = _tuple(output_size, op, "output_sizes" if paddle else "output_size", 1)
    k, s, p, d = _geometry_args(kernel_size, stride, padding, dilation, op, paddle, names)
    shape = tuple(x._data.shape)
    ok = len(shape) == 3 or (len(shape) == 2 and not paddle)
    if not ok and paddle:
        _rank_error(shape, 3, paddle, op)
    if not ok or 0 in shape[-2:]:
        raise ArgValueError(f"{op}: Expected {'3D' if paddle else '2D or 3D'} (batch mode) tensor "
                            f"with optional 0 dim batch size for input, but got: "
                            f"{_c.shape_str(shape)}")
    if shape[-2] % (k[0] * k[1]):
        raise ArgValueError(f"{op}: Expected size of input's dimension {len(shape) - 2} to be "
                            f"divisible by the product of kernel_size, but got "
                            f"input.size({len(shape) - 2})={shape[-2]} and kernel_size={k}")
    oh = _blocks(out_hw[0], k[0], s[0], p[0], p[2], d[0])
    ow = _blocks(out_hw[1], k[1], s[1], p[1], p[3], d[1])
    if oh < 1 or ow < 1 or oh * ow != shape[-1]:
        raise ArgValueError(f"{op}: Given output_size={out_hw}, kernel_size={k}, dilation={d}, "
                            f"padding={p}, stride={s}, expected size of input's dimension "
                            f"{len(shape) - 1} to match the calculated number of sliding blocks "
                            f"{max(oh, 0)} * {max(ow, 0)} = {max(oh, 0) * max(ow, 0)}, but got "
                            f"input.size({len(shape) - 1})={shape[-1]}.")
    geo = (k, s, p, d, (oh, ow))
    if len(shape) == 2:
        return R.dispatch(COL2IM, (x.unsqueeze(0),), (geo, out_hw)).squeeze(0)
    return R.dispatch(COL2IM, (x,), (geo, out_hw))


# ---------------------------------------------------------------- affine_grid / grid_sample
# Note [Grid sampling]
# affine_grid maps each output pixel's normalised coordinate (x, y[, z], 1) through theta:
# the base coordinates along a dim of size n are linspace(-1, 1, n), scaled by (n-1)/n without
# align_corners; it is a matmul of a constant base grid by theta^T (composite oar ops, so any
# order of gradient works). grid_sample reads input (N, C, H, W) at grid (N, Ho, Wo, 2), or
# (N, C, D, H, W) at (N, Do, Ho, Wo, 3) (x indexes W, y indexes H, z indexes D): the
# coordinate is unnormalised to pixels ((g+1)/2*(n-1) with align_corners, ((g+1)*n-1)/2
# without). 'bilinear' (trilinear on 5-D input) and 'nearest' then apply the padding mode to
# that coordinate: 'border' clips it into [0, n-1], 'reflection' reflects it about the edges
# (the pixel centres with align_corners, the pixel borders without) and clips, 'zeros' leaves
# it and reads 0 outside; 'bilinear' weights the 2^k neighbours, 'nearest' rounds half to
# even. 'bicubic' (4-D only) leaves the coordinate unpadded, weights the 4x4 neighbours with
# Keys' kernel (A = -0.75) and applies the padding mode to each neighbour's integer index
# instead, as PyTorch does. The backward (NumPy, first order) scatters the gradient into the
# taps and differentiates the weights for the grid, times the chain of the unnormalisation
# and (not for bicubic) the padding mode (0 where clipped, -1 where reflected an odd number
# of times), as PyTorch's grid_sampler_2d/3d_backward do.
def _unnormalize(g, n, align):
    if align:
        return (g + 1) / 2 * (n - 1), (n - 1) / 2
    return ((g + 1) * n - 1) / 2, n / 2


def _clip(c, n):
    mult = np.where((c < 0) | (c > n - 1), 0.0, 1.0).astype(c.dtype)
    return np.clip(c, 0, n - 1), mult


def _reflect(c, twice_low, twice_high):
    if twice_low == twice_high:
        return np.zeros_like(c), np.zeros_like(c)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    sign = np.where(c < lo, -1.0, 1.0).astype(c.dtype)
    c = np.abs(c - lo)
    extra = np.fmod(c, span)
    flips = np.floor(c / span)
    odd = (flips % 2) == 1
    return (np.where(odd, span - extra + lo, extra + lo).astype(c.dtype),
            (sign * np.where(odd, -1.0, 1.0)).astype(c.dtype))


def _pad_coord(c, n, padding, align):
    """The padding mode applied to pixel coordinates c along a dim of size n, and its
    derivative."""
    mult = np.ones_like(c)
    if padding == "border":
        c, mult = _clip(c, n)
    elif padding == "reflection":
        c, m1 = _reflect(c, 0, 2 * (n - 1)) if align else _reflect(c, -1, 2 * n - 1)
        c, m2 = _clip(c, n)
        mult = m1 * m2
    return c, mult


def _coords(x, grid, mode, padding, align):
    """Per spatial dim of x (in the order D, H, W): the pixel coordinate and d coordinate /
    d grid (grid's last axis holds x, y[, z]: the reverse order)."""
    spatial = x.shape[2:]
    out = []
    for d, n in enumerate(spatial):
        c, scale = _unnormalize(grid[..., len(spatial) - 1 - d], n, align)
        if mode == "bicubic":
            out.append((c, np.full_like(c, scale)))
        else:
            c, m = _pad_coord(c, n, padding, align)
            out.append((c, m * scale))
    return out


def _cubic_grad(t):
    """d/dt of _cubic_coeffs(t), one column per tap."""
    a = -0.75

    def d1(u):     # c1'(u), |u| <= 1
        return (3 * (a + 2) * u - 2 * (a + 3)) * u

    def d2(u):     # c2'(u), 1 < |u| < 2
        return (3 * a * u - 10 * a) * u + 8 * a
    one = t.dtype.type(1)
    return np.stack([d2(t + one), d1(t), -d1(one - t), -d2(one + one - t)], axis=1)


def _grid_taps(x, grid, mode, padding, align):
    """The taps of every output point: a list of (indices per spatial dim (float arrays of
    the grid's point shape), weight, d weight / d coordinate per dim), and the coordinates'
    d coordinate / d grid per dim. Indices outside the input read 0."""
    cs = _coords(x, grid, mode, padding, align)
    k = len(cs)
    mults = [m for _, m in cs]
    if mode == "nearest":
        return [([np.rint(c) for c, _ in cs], np.ones_like(cs[0][0]), None)], mults
    if mode == "bicubic":
        spatial = x.shape[2:]
        per_dim = []
        for (c, _), n in zip(cs, spatial):
            f = np.floor(c)
            t = (c - f).reshape(-1)
            per_dim.append([(_pad_coord(f + (i - 1), n, padding, align)[0],
                             _cubic_coeffs(t)[:, i].reshape(c.shape),
                             _cubic_grad(t)[:, i].reshape(c.shape)) for i in range(4)])
    else:
        per_dim = []
        for c, _ in cs:
            f = np.floor(c)
            per_dim.append([(f, (f + 1) - c, -np.ones_like(c)), (f + 1, c - f, np.ones_like(c))])
    taps = []
    for combo in itertools.product(*per_dim):    # the last dim (x) varies fastest
        idx = [t[0] for t in combo]
        # products in x, y, z order, as PyTorch multiplies them
        w = combo[-1][1]
        for t in reversed(combo[:-1]):
            w = w * t[1]
        dws = []
        for d in range(k):
            dw = combo[d][2]
            for e in range(k - 1, -1, -1):
                if e != d:
                    dw = dw * combo[e][1]
            dws.append(dw)
        taps.append((idx, w, dws))
    return taps, mults


def _gather(x, idx):
    """x[n, :, i0, i1, ...] for integer-valued maps idx (each (N, *out)), 0 outside:
    (N, C, *out), and where the point is inside."""
    spatial = x.shape[2:]
    inside = np.ones(idx[0].shape, bool)
    for i, n in zip(idx, spatial):
        inside &= (i >= 0) & (i < n)
    ic = tuple(np.clip(np.where(inside, i, 0), 0, n - 1).astype(np.int64)
               for i, n in zip(idx, spatial))
    b = np.arange(x.shape[0]).reshape((-1,) + (1,) * (idx[0].ndim - 1))
    v = x[(b, slice(None)) + ic]                       # (N, *out, C)
    v = np.where(inside[..., None], v, x.dtype.type(0))
    return np.moveaxis(v, -1, 1), inside


def _k_grid_sample(x, grid, mode, padding, align):
    taps, _ = _grid_taps(x, grid, mode, padding, align)
    if mode == "nearest":
        return _gather(x, taps[0][0])[0]
    out = None
    for idx, wgt, _ in taps:
        v = _gather(x, idx)[0] * wgt[:, None].astype(x.dtype)
        out = v if out is None else out + v
    return out


def _b_grid_sample(c, g):
    _first_order_only("grid_sample")
    x, grid = c.input(0)._data, c.input(1)._data
    mode, padding, align = c.attrs
    ga = np.asarray(g._data, x.dtype)
    spatial = x.shape[2:]
    k = len(spatial)
    taps, mults = _grid_taps(x, grid, mode, padding, align)
    gx = np.zeros_like(x)
    ggrid = np.zeros_like(grid)
    b = np.broadcast_to(np.arange(x.shape[0]).reshape((-1,) + (1,) * k), grid.shape[:-1])
    for idx, wgt, dws in taps:
        inside = _xp.array_module(wgt).ones(wgt.shape, bool)
        for i, n in zip(idx, spatial):
            inside &= (i >= 0) & (i < n)
        ii = tuple(i[inside].astype(np.int64) for i in idx)
        contrib = np.moveaxis(ga * wgt[:, None].astype(x.dtype), 1, -1)[inside]  # (M, C)
        np.add.at(gx, (b[inside], slice(None)) + ii, contrib)
        if dws is None:
            continue
        gv = (_gather(x, idx)[0] * ga).sum(axis=1)     # (N, *out): dout / dweight
        for d in range(k):
            ggrid[..., k - 1 - d] += gv * dws[d]
    for d in range(k):
        ggrid[..., k - 1 - d] *= mults[d]
    return Tensor._wrap(gx), Tensor._wrap(ggrid.astype(grid.dtype))


def _grid_sample_def(name, node):
    return R.OpDef(
        name, _k_grid_sample, _b_grid_sample, inputs=("x", "grid"),
        needs={"x": ("x", "grid"), "grid": ("x", "grid")},
        attrs=(("mode", "bilinear"), ("padding_mode", "zeros"), ("align_corners", False)),
        node_name=node,
        doc="input read at the grid's normalised coordinates (Note [Grid sampling]).")


# one declaration per PyTorch node name; the kernel and backward are shared
GRID_SAMPLE = _grid_sample_def("grid_sample", "GridSampler2DBackward0")
GRID_SAMPLE_3D = _grid_sample_def("grid_sample_3d", "GridSampler3DBackward0")


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False,
                op="grid_sample", *, paddle=False):
    """(N, C, H, W) input sampled at (N, Ho, Wo, 2) grid -> (N, C, Ho, Wo), or (N, C, D, H, W)
    at (N, Do, Ho, Wo, 3) -> (N, C, Do, Ho, Wo) (Note [Grid sampling])."""
    _input(x, op)
    _input(grid, op, "grid")
    if paddle:    # Paddle has no bicubic mode
        if mode not in ("bilinear", "nearest"):
            raise ArgValueError(f"{op}: The mode of grid sample function should be in "
                                f"['bilinear', 'nearest'], but got: {mode}")
        if padding_mode not in ("zeros", "reflection", "border"):
            raise ArgValueError(f"{op}: The padding mode of grid sample function should be in "
                                f"['zeros', 'reflection', 'border'], but got: {padding_mode}")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ArgValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                            f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ArgValueError(f"nn.functional.grid_sample(): expected padding_mode to be "
                            f"'zeros', 'border', or 'reflection', but got: '{padding_mode}'")
    xs, gs = tuple(x._data.shape), tuple(grid._data.shape)
    if x._data.dtype != grid._data.dtype:
        raise ArgTypeError(f"{op}: expected input and grid to have same dtype, but input has "
                           f"{x.dtype.name} and grid has {grid.dtype.name}")
    if x._data.dtype.kind != "f":
        _no_kernel(op, "grid_sampler_2d_cpu", x._data.dtype, "cast input and grid to float")
    if len(xs) != len(gs) or len(xs) not in (4, 5):
        raise ArgValueError(f"grid_sampler(): expected 4D or 5D input and grid with same "
                            f"number of dimensions, but got input with sizes {list(xs)} and "
                            f"grid with sizes {list(gs)}")
    if xs[0] != gs[0]:
        raise ArgValueError(f"grid_sampler(): expected grid and input to have same batch size, "
                            f"but got input with sizes {list(xs)} and grid with sizes {list(gs)}")
    if gs[-1] != len(xs) - 2:
        raise ArgValueError(f"grid_sampler(): expected grid to have size {len(xs) - 2} in last "
                            f"dimension, but got grid with sizes {list(gs)}")
    if 0 in xs[2:]:
        raise ArgValueError(f"grid_sampler(): expected input to have non-empty spatial "
                            f"dimensions, but input has sizes {list(xs)}")
    if len(xs) == 5 and mode == "bicubic":
        raise ArgValueError("grid_sampler(): bicubic interpolation only supports 4D input")
    return R.dispatch(GRID_SAMPLE if len(xs) == 4 else GRID_SAMPLE_3D, (x, grid),
                      (mode, padding_mode, bool(align_corners)))


def _base_coords(n, align, dt):
    if n == 1:
        return np.zeros(1, dt)
    v = np.linspace(-1, 1, n, dtype=np.float64)
    return (v if align else v * (n - 1) / n).astype(dt)


def affine_grid(theta, size, align_corners=False, op="affine_grid"):
    """The (N, H, W, 2) (or (N, D, H, W, 3)) sampling grid of affine matrices theta."""
    _input(theta, op, "theta")
    size = [_args.integer(v, op, "size") for v in size]
    ts = tuple(theta._data.shape)
    if theta._data.dtype.kind != "f":
        raise ArgValueError(f"Expected theta to have floating point type, but got "
                            f"{theta.dtype.name}")
    if len(size) == 4:
        if len(ts) != 3 or ts[-2:] != (2, 3):
            raise ArgValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                                f"{size}. Got {list(ts)}.")
    elif len(size) == 5:
        if len(ts) != 3 or ts[-2:] != (3, 4):
            raise ArgValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                                f"{size}. Got {list(ts)}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if min(size) <= 0:
        raise ArgValueError(f"Expected non-zero, positive output size. Got {size}")
    if ts[0] != size[0]:
        raise ArgValueError(f"{op}: theta holds {ts[0]} matrices but size asks for a batch of "
                            f"{size[0]}")
    dt = theta._data.dtype
    spatial = size[2:]
    axes = [_base_coords(n, align_corners, dt) for n in spatial]        # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [m.reshape(-1) for m in reversed(mesh)]                    # x, y[, z]
    base = np.stack(coords + [np.ones_like(coords[0])], axis=-1)         # (P, k+1)
    base_t = wrap_as(theta._result_class, base)      # a constant of the caller's door
    grid = R.FUNCTIONS["matmul"](base_t, R.FUNCTIONS["swapaxes"](theta, 1, 2))
    return grid.reshape([size[0]] + spatial + [len(spatial)])
