"""paddle.vision.transforms.functional for the Paddle door.

# Note [Image kinds in vision transforms]
Each function takes one of three image kinds and returns the kind Paddle 3.3.1 returns:
* a PIL image (HWC, uint8 modes): the work is done by Pillow, which is an optional
  dependency (the "vision" extra) imported only when a PIL image is met or made;
* a NumPy array, HW or HWC: Paddle hands these to OpenCV, which oar does not use; the
  geometric functions are exact NumPy, resizing is half-pixel interpolation (OpenCV's
  rule; OpenCV's fixed-point uint8 arithmetic may differ from it by 1), and the colour
  functions follow Paddle's OpenCV formulas (including their channel order);
* an oar Tensor, CHW (or NCHW where Paddle allows it): oar ops, so gradients flow.
ToTensor, normalize and to_tensor return Tensors / arrays as Paddle does (see each).
"""
from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterable, Sequence

import numpy as np

from ...tensor import Tensor
from ...autograd.errors import ArgTypeError, ArgValueError

__all__ = [
    "to_tensor", "hflip", "vflip", "resize", "pad", "rotate", "to_grayscale", "crop",
    "center_crop", "adjust_brightness", "adjust_contrast", "adjust_saturation",
    "adjust_hue", "normalize", "affine", "erase", "perspective",
]

_PIL_RESAMPLE = ("nearest", "bilinear", "bicubic", "box", "lanczos", "hamming")
_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def _pil():
    """Pillow's Image module, imported on first use (Pillow is the optional "vision" extra)."""
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - Pillow is installed in the dev env
        raise ImportError("oar.vision.transforms: this needs Pillow for PIL images; install "
                          "it with `pip install oar[vision]` (or `pip install pillow`)") from e
    return Image


def _is_pil_image(img) -> bool:
    # A PIL image can only exist once PIL is imported, so no import is needed to ask.
    mod = sys.modules.get("PIL.Image")
    return mod is not None and isinstance(img, mod.Image)


def _is_numpy_image(img) -> bool:
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _is_tensor_image(img) -> bool:
    return isinstance(img, Tensor)


def _kind(img, op: str) -> str:
    if _is_pil_image(img):
        return "pil"
    if _is_tensor_image(img):
        return "tensor"
    if _is_numpy_image(img):
        return "numpy"
    raise ArgTypeError(f"{op}: img should be a PIL Image, an oar Tensor (CHW) or a NumPy array "
                       f"with 2 or 3 dimensions (HW or HWC); got {type(img).__name__}"
                       + (f" with shape {img.shape}" if isinstance(img, np.ndarray) else ""))


def _check_tensor(img, op: str, data_format: str = "CHW") -> None:
    if img.ndim not in (3, 4) or data_format.upper() not in ("CHW", "HWC"):
        raise ArgValueError(f"{op}: a Tensor image must be 3-D (CHW) or 4-D (NCHW) with "
                            f"data_format 'CHW' or 'HWC'; got shape {list(img.shape)} and "
                            f"data_format {data_format!r}")


def _hw_axes(data_format: str):
    return (-2, -1) if data_format.upper() == "CHW" else (-3, -2)


def _size_wh(img, kind: str):
    """(width, height) of an image of any kind."""
    if kind == "pil":
        return img.size
    if kind == "numpy":
        return img.shape[1], img.shape[0]
    return img.shape[-1], img.shape[-2]


def _floating(t: Tensor) -> bool:
    return t.dtype.is_floating_point


def _pil_resample(interpolation: str, op: str):
    if interpolation not in _PIL_RESAMPLE:
        raise ArgValueError(f"{op}: interpolation for a PIL image must be one of "
                            f"{list(_PIL_RESAMPLE)}; got {interpolation!r}")
    Image = _pil()
    return getattr(Image.Resampling, interpolation.upper())


# --------------------------------------------------------------------------- to_tensor

def to_tensor(pic, data_format: str = "CHW"):
    """A PIL image or HW/HWC array as a Tensor: uint8 data become float32 in [0, 1]; other
    dtypes keep their values. A Tensor is returned as is (CHW) or transposed to HWC."""
    kind = _kind(pic, "to_tensor")
    if kind == "tensor":
        return pic if data_format.lower() == "chw" else pic.transpose((1, 2, 0))
    if data_format not in ("CHW", "HWC"):
        raise ArgValueError(f"to_tensor: data_format should be 'CHW' or 'HWC'; got {data_format!r}")
    from ... import to_tensor as _to_tensor
    if kind == "pil":
        mode = pic.mode
        if mode in ("I", "I;16"):
            arr = np.asarray(pic, np.int32)
        elif mode == "F":
            arr = np.asarray(pic, np.float32)
        elif mode == "1":
            arr = np.asarray(pic, np.uint8) * np.uint8(255)
        else:
            arr = np.asarray(pic)
        channels = 3 if mode == "YCbCr" else 1 if mode == "I;16" else len(mode)
        arr = arr.reshape(pic.size[1], pic.size[0], channels)
    else:
        arr = pic[:, :, None] if pic.ndim == 2 else pic
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        return _to_tensor(arr.astype(np.float32) / np.float32(255.0))
    return _to_tensor(np.ascontiguousarray(arr))


# --------------------------------------------------------------------------- geometry

def crop(img, top: int, left: int, height: int, width: int):
    """The box of height x width whose top-left corner is (top, left)."""
    kind = _kind(img, "crop")
    if kind == "pil":
        return img.crop((left, top, left + width, top + height))
    if kind == "numpy":
        return img[top:top + height, left:left + width, ...]
    _check_tensor(img, "crop")
    return img[..., top:top + height, left:left + width]


def center_crop(img, output_size):
    """The centred box of output_size (int, or (height, width))."""
    kind = _kind(img, "center_crop")
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    w, h = _size_wh(img, kind)
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    """Mirror left to right."""
    kind = _kind(img, "hflip")
    if kind == "pil":
        return img.transpose(_pil().Transpose.FLIP_LEFT_RIGHT)
    if kind == "numpy":
        return np.ascontiguousarray(img[:, ::-1, ...])
    _check_tensor(img, "hflip")
    return img.flip(axis=[-1])


def vflip(img):
    """Mirror top to bottom."""
    kind = _kind(img, "vflip")
    if kind == "pil":
        return img.transpose(_pil().Transpose.FLIP_TOP_BOTTOM)
    if kind == "numpy":
        return np.ascontiguousarray(img[::-1, ...])
    _check_tensor(img, "vflip")
    return img.flip(axis=[-2])


def _resize_target(size, w: int, h: int, op: str):
    """(out_h, out_w), or None when an int size already equals the shorter side."""
    if isinstance(size, int) and not isinstance(size, bool):
        if (w <= h and w == size) or (h <= w and h == size):
            return None
        if w < h:
            return int(size * h / w), size
        return size, int(size * w / h)
    if isinstance(size, Iterable) and not isinstance(size, str) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise ArgTypeError(f"{op}: size should be an int (the shorter side) or a (height, width) "
                       f"pair; got {size!r}")


def resize(img, size, interpolation: str = "bilinear"):
    """Resize to (height, width), or so that the shorter side is `size` (aspect kept,
    the longer side truncated to int)."""
    kind = _kind(img, "resize")
    w, h = _size_wh(img, kind)
    if kind == "tensor":
        _check_tensor(img, "resize")
        if w <= 0 or h <= 0:
            raise ArgValueError(f"resize: image of width {w} and height {h} cannot be resized")
    target = _resize_target(size, w, h, "resize")
    if target is None:
        return img
    oh, ow = target
    if kind == "pil":
        return img.resize((ow, oh), _pil_resample(interpolation, "resize"))
    from ...nn import functional as F
    if kind == "tensor":
        batched = img.ndim == 4
        x = img if batched else img.unsqueeze(0)
        out = F.interpolate(x, size=(oh, ow), mode=interpolation.lower(), data_format="NCHW")
        return out if batched else out.squeeze(0)
    # NumPy: half-pixel interpolation in float64, rounded back for integer images.
    if interpolation not in ("nearest", "bilinear", "bicubic"):
        raise ArgValueError(f"resize: interpolation for a NumPy image must be 'nearest', "
                            f"'bilinear' or 'bicubic' in oar (Paddle uses OpenCV here); got "
                            f"{interpolation!r}")
    from ... import to_tensor as _to_tensor
    arr = img[:, :, None] if img.ndim == 2 else img
    x = _to_tensor(np.ascontiguousarray(arr.transpose(2, 0, 1)[None]).astype(np.float64))
    out = F.interpolate(x, size=(oh, ow), mode=interpolation, data_format="NCHW")
    out = out.numpy()[0].transpose(1, 2, 0)
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    out = out.astype(img.dtype)
    return out[:, :, 0] if img.ndim == 2 else out


def _pad_amounts(padding, op: str):
    """(left, top, right, bottom) from an int, a (lr, tb) pair or a 4-sequence."""
    if isinstance(padding, numbers.Number) and not isinstance(padding, bool):
        p = int(padding)
        return p, p, p, p
    if isinstance(padding, (list, tuple)):
        if len(padding) == 2:
            return padding[0], padding[1], padding[0], padding[1]
        if len(padding) == 4:
            return tuple(padding)
        raise ArgValueError(f"{op}: padding must be an int or a 2 or 4 element sequence; got "
                            f"a {len(padding)} element sequence")
    raise ArgTypeError(f"{op}: padding must be an int or a 2 or 4 element sequence; got "
                       f"{type(padding).__name__}")


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """Pad the borders: padding is an int, (left/right, top/bottom) or (left, top, right,
    bottom); padding_mode 'constant' (with fill), 'edge', 'reflect' or 'symmetric'."""
    kind = _kind(img, "pad")
    left, top, right, bottom = _pad_amounts(padding, "pad")
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise ArgTypeError(f"pad: fill must be a number or a sequence; got {type(fill).__name__}")
    if padding_mode not in _PAD_MODES:
        raise ArgValueError(f"pad: padding_mode should be one of {list(_PAD_MODES)}; got "
                            f"{padding_mode!r}")
    if kind == "tensor":
        _check_tensor(img, "pad")
        if padding_mode == "symmetric":
            raise ArgValueError("pad: padding_mode 'symmetric' is not supported for Tensor "
                                "images (as in Paddle); use 'reflect' or 'edge'")
        from ...nn import functional as F
        mode = "replicate" if padding_mode == "edge" else padding_mode
        batched = img.ndim == 4
        x = img if batched else img.unsqueeze(0)
        out = F.pad(x, pad=[left, right, top, bottom], mode=mode, value=float(fill),
                    data_format="NCHW")
        return out if batched else out.squeeze(0)
    if kind == "pil" and padding_mode == "constant":
        from PIL import ImageOps
        palette = img.getpalette() if img.mode == "P" else None
        out = ImageOps.expand(img, border=(left, top, right, bottom), fill=fill)
        if palette is not None:
            out.putpalette(palette)
        return out
    arr = np.asarray(img)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    if padding_mode == "constant":
        if isinstance(fill, (list, tuple)) and arr.ndim == 3:
            out = np.stack([np.pad(arr[..., c], widths[:2], mode="constant",
                                   constant_values=fill[c % len(fill)])
                            for c in range(arr.shape[2])], axis=-1)
        else:
            out = np.pad(arr, widths, mode="constant", constant_values=fill)
    else:
        out = np.pad(arr, widths, mode=padding_mode)
    if kind == "pil":
        Image = _pil()
        palette = img.getpalette() if img.mode == "P" else None
        out = Image.fromarray(out)
        if palette is not None:
            out.putpalette(palette)
    return out


def rotate(img, angle, interpolation: str = "nearest", expand: bool = False, center=None,
           fill=0):
    """Rotate counter-clockwise by angle degrees about center (default: the image centre);
    expand=True grows the output to hold the whole rotated image. PIL images and Tensors
    (NumPy arrays: Paddle uses OpenCV's warpAffine, which oar does not have)."""
    kind = _kind(img, "rotate")
    if isinstance(center, list):
        center = tuple(center)
    if isinstance(fill, list):
        fill = tuple(fill)
    if kind == "tensor":
        return _rotate_tensor(img, angle, interpolation, expand, center, fill)
    if kind != "pil":
        raise ArgTypeError("rotate: oar rotates PIL images and Tensors, not NumPy arrays; "
                           "convert with PIL.Image.fromarray or oar.to_tensor first")
    if isinstance(fill, int):
        fill = (fill,) * 3
    return img.rotate(angle, _pil_resample(interpolation, "rotate"), expand, center,
                      fillcolor=fill)


def _pixel_centres(ow, oh, offset):
    """(oh * ow, 3) rows (x, y, 1) of output pixel centres, x and y shifted by offset."""
    xs = np.linspace(offset[0] + 0.5, offset[0] + ow - 0.5, ow, dtype=np.float32)
    ys = np.linspace(offset[1] + 0.5, offset[1] + oh - 0.5, oh, dtype=np.float32)
    base = np.stack([np.broadcast_to(xs, (oh, ow)), np.broadcast_to(ys[:, None], (oh, ow)),
                     np.ones((oh, ow), np.float32)], axis=-1)
    return base.reshape(-1, 3)


def _warp(x, m, ow, oh, interpolation, fill, grid=None):
    """Sample NCHW x at the inverse map m (2 x 3, float32, pixel units about the centre)
    of each output pixel centre of an oh x ow image, or at `grid` (normalized, (oh * ow, 2))
    when given (Note [Image kinds in vision transforms]: Tensor rotate, affine and
    perspective share it)."""
    from ... import concat, ones, to_tensor as _to_tensor
    from ...nn import functional as NF
    h, w = x.shape[-2], x.shape[-1]
    if grid is None:
        grid = (_pixel_centres(ow, oh, (-ow * 0.5, -oh * 0.5))
                @ (m.T / np.array([0.5 * w, 0.5 * h], np.float32)))
    grid = np.broadcast_to(grid.reshape(1, oh, ow, 2), (x.shape[0], oh, ow, 2))
    grid = _to_tensor(np.ascontiguousarray(grid)).astype(x.dtype)
    if fill is None:
        out = NF.grid_sample(x, grid, mode=interpolation, padding_mode="zeros",
                             align_corners=False)
    else:
        marked = concat([x, ones([x.shape[0], 1, h, w], dtype=x.dtype)], axis=1)
        out = NF.grid_sample(marked, grid, mode=interpolation, padding_mode="zeros",
                             align_corners=False)
        mask = out[:, -1:, :, :].tile([1, x.shape[1], 1, 1])
        out = out[:, :-1, :, :]
        nfill = len(fill) if isinstance(fill, (tuple, list)) else 1
        fill_img = _to_tensor(fill).reshape((1, nfill, 1, 1)).astype(x.dtype).expand_as(out)
        if interpolation == "nearest":
            outside = (mask < 0.5).astype(x.dtype)
            out = out * (1.0 - outside) + outside * fill_img
        else:
            out = out * mask + (1.0 - mask) * fill_img
    return out


def _rotate_tensor(img, angle, interpolation, expand, center, fill):
    """Tensor rotation as Paddle does it: an inverse-mapping grid in pixel units about the
    image centre (float32), sampled by grid_sample (align_corners=False, zero padding);
    a channel of ones sampled alongside marks the pixels that came from inside the image,
    and the rest get `fill` (nearest: where that mask < 0.5; otherwise blended by it)."""
    _check_tensor(img, "rotate")
    if interpolation not in ("nearest", "bilinear"):
        raise ArgValueError(f"rotate: interpolation for a Tensor must be 'nearest' or "
                            f"'bilinear'; got {interpolation!r}")
    batched = img.ndim == 4
    x = img if batched else img.unsqueeze(0)
    h, w = x.shape[-2], x.shape[-1]
    rad = math.radians(-angle % 360)
    c, s = math.cos(rad), math.sin(rad)
    cx, cy = (0.0, 0.0) if center is None else (center[0] - 0.5 * w, center[1] - 0.5 * h)
    m = np.array([[c, s, 0.0], [-s, c, 0.0]], dtype=np.float32)
    m[0, 2] = np.float32(m[0, 0] * -cx + m[0, 1] * -cy + cx)
    m[1, 2] = np.float32(m[1, 0] * -cx + m[1, 1] * -cy + cy)
    if expand:
        corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                            [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]], np.float32)
        pos = corners @ m.T
        size = np.ceil(pos.max(axis=0)) - np.floor(pos.min(axis=0))
        ow, oh = int(size[0]), int(size[1])
    else:
        ow, oh = w, h
    out = _warp(x, m, ow, oh, interpolation, fill)
    return out if batched else out.squeeze(0)


def _inverse_affine(center, angle, translate, scale, shear):
    """The 2 x 3 inverse of: move to `center`, shear (degrees, x then y), rotate by angle
    (degrees), scale, move back and translate -- the map from output pixels to input
    pixels, as Paddle builds it."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    # forward linear part [[a, b], [c, d]] of rotation * shear
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    # its inverse (determinant 1) divided by scale
    inv = [d / scale, -b / scale, -c / scale, a / scale]
    cx, cy = center
    tx, ty = translate
    return [inv[0], inv[1], inv[0] * (-cx - tx) + inv[1] * (-cy - ty) + cx,
            inv[2], inv[3], inv[2] * (-cx - tx) + inv[3] * (-cy - ty) + cy]


def affine(img, angle, translate, scale, shear, interpolation: str = "nearest", fill=0,
           center=None):
    """Rotate by angle, translate by (tx, ty) pixels, scale and shear (a number: x shear;
    (sx, sy)) about center (default: the image centre), keeping the image size. PIL
    images and Tensors (NumPy arrays: Paddle uses OpenCV, which oar does not have)."""
    kind = _kind(img, "affine")
    if not isinstance(angle, (int, float)):
        raise ArgTypeError(f"affine: angle should be an int or a float; got {type(angle).__name__}")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ArgValueError(f"affine: translate should be a sequence of length 2; got {translate!r}")
    if scale <= 0.0:
        raise ArgValueError(f"affine: scale should be positive; got {scale}")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    if not isinstance(shear, (list, tuple)) or len(shear) not in (1, 2):
        raise ArgValueError(f"affine: shear should be a number or a sequence of two values; "
                            f"got {shear!r}")
    shear = [shear[0], shear[0]] if len(shear) == 1 else list(shear)
    if center is not None and not isinstance(center, (list, tuple)):
        raise ArgTypeError(f"affine: center should be a sequence; got {center!r}")
    if kind == "pil":
        w, h = img.size
        center = [w * 0.5, h * 0.5] if center is None else center
        m = _inverse_affine(center, float(angle), translate, scale, shear)
        if isinstance(fill, int):
            fill = (fill,) * 3
        # Paddle hands fill to Pillow's `fill` argument (a mesh option), not `fillcolor`:
        # the area outside a PIL image stays black whatever fill is; kept for exactness.
        return img.transform(img.size, _pil().Transform.AFFINE, m,
                             _pil_resample(interpolation, "affine"), fill)
    if kind != "tensor":
        raise ArgTypeError("affine: oar transforms PIL images and Tensors, not NumPy arrays; "
                           "convert with PIL.Image.fromarray or oar.to_tensor first")
    _check_tensor(img, "affine")
    if interpolation not in ("nearest", "bilinear"):
        raise ArgValueError(f"affine: interpolation for a Tensor must be 'nearest' or "
                            f"'bilinear'; got {interpolation!r}")
    cf = [0.0, 0.0]
    if center is not None:
        # Paddle measures a Tensor's centre offset against (shape[-2], shape[-1]) as (x, y)
        cf = [float(center[0]) - img.shape[-2] * 0.5, float(center[1]) - img.shape[-1] * 0.5]
    m = np.array(_inverse_affine(cf, float(angle), [float(t) for t in translate], scale, shear),
                 dtype=np.float32).reshape(2, 3)
    if isinstance(fill, int):
        fill = (fill,) * 3
    batched = img.ndim == 4
    x = img if batched else img.unsqueeze(0)
    out = _warp(x, m, x.shape[-1], x.shape[-2], interpolation, fill)
    return out if batched else out.squeeze(0)


def _perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients (a, b, c, d, e, f, g, h) of the map from an end point (x, y) back
    to its start point: ((a x + b y + c) / (g x + h y + 1), (d x + e y + f) / (g x + h y + 1)),
    fitted by least squares over the point pairs."""
    rows, rhs = [], []
    for (x, y), (u, v) in zip(endpoints, startpoints):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        rhs.extend([u, v])
    return list(np.linalg.lstsq(np.array(rows, np.float64), np.array(rhs, np.float64),
                                rcond=None)[0])


def perspective(img, startpoints, endpoints, interpolation: str = "nearest", fill=0):
    """Warp so that the four startpoints (corners [x, y]) land on the four endpoints. PIL
    images and Tensors (NumPy arrays: Paddle uses OpenCV, which oar does not have)."""
    kind = _kind(img, "perspective")
    coeffs = _perspective_coeffs(startpoints, endpoints)
    if kind == "pil":
        if isinstance(fill, int):
            fill = (fill,) * 3
        # as in affine, Paddle's fill reaches Pillow's `fill` argument, not `fillcolor`
        return img.transform(img.size, _pil().Transform.PERSPECTIVE, coeffs,
                             _pil_resample(interpolation, "perspective"), fill)
    if kind != "tensor":
        raise ArgTypeError("perspective: oar warps PIL images and Tensors, not NumPy arrays; "
                           "convert with PIL.Image.fromarray or oar.to_tensor first")
    _check_tensor(img, "perspective")
    if interpolation not in ("nearest", "bilinear"):
        raise ArgValueError(f"perspective: interpolation for a Tensor must be 'nearest' or "
                            f"'bilinear'; got {interpolation!r}")
    batched = img.ndim == 4
    x = img if batched else img.unsqueeze(0)
    oh, ow = x.shape[-2], x.shape[-1]
    c = np.asarray(coeffs, np.float32)
    base = _pixel_centres(ow, oh, (0.0, 0.0))
    num = base @ (c[:6].reshape(2, 3).T / np.array([0.5 * ow, 0.5 * oh], np.float32))
    den = base @ np.array([[c[6], c[6]], [c[7], c[7]], [1.0, 1.0]], np.float32)
    out = _warp(x, None, ow, oh, interpolation, fill, grid=num / den - 1.0)
    return out if batched else out.squeeze(0)


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    """Set the h x w box at (i, j) to v (a Tensor or array broadcast into the box); a copy
    unless inplace."""
    kind = _kind(img, "erase")
    if kind == "tensor":
        _check_tensor(img, "erase")
        out = img if inplace else img.clone()
        out[..., i:i + h, j:j + w] = v
        return out
    if kind == "pil":
        arr = np.array(img, dtype=np.uint8)
        arr[i:i + h, j:j + w, ...] = v
        return _pil().fromarray(arr, "RGB")
    out = img if inplace else img.copy()
    out[i:i + h, j:j + w, ...] = v
    return out


# --------------------------------------------------------------------------- colour

def to_grayscale(img, num_output_channels: int = 1):
    """Luma (ITU-R 601: 0.299 R + 0.587 G + 0.114 B), with 1 or 3 equal channels."""
    kind = _kind(img, "to_grayscale")
    if num_output_channels not in (1, 3):
        raise ArgValueError(f"to_grayscale: num_output_channels should be 1 or 3; got "
                            f"{num_output_channels!r}")
    if kind == "pil":
        gray = img.convert("L")
        if num_output_channels == 1:
            return gray
        g = np.asarray(gray, dtype=np.uint8)
        return _pil().fromarray(np.dstack([g, g, g]), "RGB")
    if kind == "tensor":
        _check_tensor(img, "to_grayscale")
        from ... import to_tensor as _to_tensor
        weights = _to_tensor([0.2989, 0.587, 0.114]).astype(img.dtype).reshape((-1, 1, 1))
        gray = (img * weights).sum(axis=-3, keepdim=True)
        shape = list(gray.shape)
        shape[-3] = num_output_channels
        return gray.expand(shape)
    # NumPy (OpenCV's RGB2GRAY: rounded for uint8)
    arr = img.astype(np.float64)
    gray = arr[..., 0] * 0.299 + arr[..., 1] * 0.587 + arr[..., 2] * 0.114
    if img.dtype == np.uint8:
        gray = np.clip(np.rint(gray), 0, 255)
    gray = gray.astype(img.dtype)[:, :, None]
    return gray if num_output_channels == 1 else np.broadcast_to(gray, img.shape)


def _blend(img: Tensor, other: Tensor, ratio: float) -> Tensor:
    """ratio * img + (1 - ratio) * other, clipped to the image range, in img's dtype."""
    from ... import lerp
    top = 1.0 if _floating(img) else 255.0
    dtype = img.dtype
    if not _floating(img):
        img, other = img.astype("float32"), other.astype("float32")
    return lerp(other, img, float(ratio)).clip(0, top).astype(dtype)


def _check_factor(value, op: str, name: str) -> None:
    if not isinstance(value, numbers.Number) or value < 0:
        raise ArgValueError(f"{op}: {name} should be a non-negative number; got {value!r}")


def _tensor_channels(img, op: str) -> int:
    _check_tensor(img, op)
    c = img.shape[-3]
    if c not in (1, 3):
        raise ArgValueError(f"{op}: a Tensor image needs 1 or 3 channels (CHW); got shape "
                            f"{list(img.shape)}")
    return c


def _lut(img: np.ndarray, table: np.ndarray) -> np.ndarray:
    return table[img.astype(np.uint8)]


def adjust_brightness(img, brightness_factor: float):
    """Scale intensities by brightness_factor (0 gives black)."""
    kind = _kind(img, "adjust_brightness")
    _check_factor(brightness_factor, "adjust_brightness", "brightness_factor")
    if kind == "pil":
        from PIL import ImageEnhance
        return ImageEnhance.Brightness(img).enhance(brightness_factor)
    if kind == "numpy":
        table = np.clip(np.arange(256) * brightness_factor, 0, 255).astype(np.uint8)
        return _lut(img, table)
    _tensor_channels(img, "adjust_brightness")
    from ... import zeros_like
    return _blend(img, zeros_like(img), brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    """Blend with the mean grey level (0 gives a flat grey image)."""
    kind = _kind(img, "adjust_contrast")
    _check_factor(contrast_factor, "adjust_contrast", "contrast_factor")
    if kind == "pil":
        from PIL import ImageEnhance
        return ImageEnhance.Contrast(img).enhance(contrast_factor)
    if kind == "numpy":
        # Paddle's OpenCV path blends with the fixed grey level 74, not the image mean.
        table = np.clip((np.arange(256) - 74) * contrast_factor + 74, 0, 255).astype(np.uint8)
        return _lut(img, table)
    c = _tensor_channels(img, "adjust_contrast")
    x = img if _floating(img) else img.astype("float32")
    ref = x if c == 1 else to_grayscale(x)
    return _blend(img, ref.mean(axis=(-3, -2, -1), keepdim=True), contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    """Blend with the greyscale image (0 gives grey, 1 the original)."""
    kind = _kind(img, "adjust_saturation")
    _check_factor(saturation_factor, "adjust_saturation", "saturation_factor")
    if kind == "pil":
        from PIL import ImageEnhance
        return ImageEnhance.Color(img).enhance(saturation_factor)
    if kind == "numpy":
        # Paddle's OpenCV path draws the blend weight from NumPy's global generator in
        # [max(0, 1 - f), 1 + f] and reads the channels as BGR; kept for exactness.
        dtype = img.dtype
        x = img.astype(np.float32)
        alpha = np.random.uniform(max(0, 1 - saturation_factor), 1 + saturation_factor)
        gray = (x[..., 2] * 0.299 + x[..., 1] * 0.587 + x[..., 0] * 0.114)[..., None]
        return np.clip(x * alpha + gray * (1 - alpha), 0, 255).astype(dtype)
    if _tensor_channels(img, "adjust_saturation") == 1:
        return img
    return _blend(img, to_grayscale(img), saturation_factor)


def _rgb_to_hsv(x: Tensor) -> Tensor:
    from ... import stack, where, ones_like
    r, g, b = x.unbind(axis=-3)
    hi = x.max(axis=-3)
    lo = x.min(axis=-3)
    span = hi - lo
    flat = hi == lo
    s = span / where(flat, ones_like(hi), hi)
    d = where(flat, ones_like(span), span)
    # hue sextant by which channel holds the maximum (red wins ties, then green)
    is_r = (hi == r).astype(x.dtype)
    is_g = ((hi == g) & (hi != r)).astype(x.dtype)
    is_b = ((hi != r) & (hi != g)).astype(x.dtype)
    h = (is_r * (g - b) / d + is_g * (2.0 + (b - r) / d) + is_b * (4.0 + (r - g) / d)) / 6.0
    h = h - h.floor()
    return stack([h, s, hi], axis=-3)


def _hsv_to_rgb(x: Tensor) -> Tensor:
    from ... import stack
    h, s, v = x.unbind(axis=-3)
    h6 = h * 6.0
    sector = h6.floor()
    f = h6 - sector
    sector = sector.astype("int64") % 6
    p = (v * (1.0 - s)).clip(0.0, 1.0)
    q = (v * (1.0 - s * f)).clip(0.0, 1.0)
    t = (v * (1.0 - s * (1.0 - f))).clip(0.0, 1.0)
    # (r, g, b) for sectors 0..5
    table = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    chans = []
    for ch in range(3):
        acc = None
        for k in range(6):
            term = (sector == k).astype(x.dtype) * table[k][ch]
            acc = term if acc is None else acc + term
        chans.append(acc)
    return stack(chans, axis=-3)


def adjust_hue(img, hue_factor: float):
    """Rotate the hue channel by hue_factor turns, hue_factor in [-0.5, 0.5]."""
    kind = _kind(img, "adjust_hue")
    if not isinstance(hue_factor, numbers.Number) or not -0.5 <= hue_factor <= 0.5:
        raise ArgValueError(f"adjust_hue: hue_factor should be in [-0.5, 0.5]; got {hue_factor!r}")
    if kind == "pil":
        Image = _pil()
        if img.mode in ("L", "1", "I", "F"):
            return img
        mode = img.mode
        h, s, v = img.convert("HSV").split()
        hh = ((np.asarray(h, np.int16) + int(hue_factor * 255)) % 256).astype(np.uint8)
        return Image.merge("HSV", (Image.fromarray(hh, "L"), s, v)).convert(mode)
    if kind == "numpy":
        # Paddle's OpenCV path reads the array as BGR and shifts the 0..255 hue by
        # int(hue_factor * 255); oar does the same through Pillow's HSV (uint8 rounding
        # may differ from OpenCV's by 1).
        Image = _pil()
        dtype = img.dtype
        rgb = Image.fromarray(np.ascontiguousarray(img.astype(np.uint8)[..., ::-1]), "RGB")
        out = np.asarray(adjust_hue(rgb, hue_factor))[..., ::-1]
        return np.ascontiguousarray(out).astype(dtype)
    if _tensor_channels(img, "adjust_hue") == 1:
        return img
    dtype = img.dtype
    x = img.astype("float32") / 255.0 if str(dtype).endswith("uint8") else img
    hsv = _rgb_to_hsv(x)
    h, s, v = hsv.unbind(axis=-3)
    h = h + hue_factor
    h = h - h.floor()
    from ... import stack
    out = _hsv_to_rgb(stack([h, s, v], axis=-3))
    if str(dtype).endswith("uint8"):
        out = (out * 255.0).astype(dtype)
    return out


def normalize(img, mean, std, data_format: str = "CHW", to_rgb: bool = False):
    """(img - mean) / std per channel. A Tensor gives a Tensor; a PIL image or an array
    gives a float32 array (to_rgb reverses the channel order of those first, BGR -> RGB)."""
    if _is_tensor_image(img):
        _check_tensor(img, "normalize", data_format)
        from ... import to_tensor as _to_tensor
        shape = (-1, 1, 1) if data_format.upper() == "CHW" else (-1,)
        m = _to_tensor(mean).reshape(shape)
        s = _to_tensor(std).reshape(shape)
        return (img - m) / s
    if _is_pil_image(img):
        img = np.array(img).astype(np.float32)
    if not isinstance(img, np.ndarray):
        raise ArgTypeError(f"normalize: img should be a PIL Image, an oar Tensor or a NumPy "
                           f"array; got {type(img).__name__}")
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    m = np.float32(np.array(mean).reshape(shape))
    s = np.float32(np.array(std).reshape(shape))
    if to_rgb:
        img = img[..., ::-1]
    return (img - m) / s
