"""paddle.vision.transforms classes for the Paddle door (Note [Image kinds in vision transforms]).

# Note [Randomness of vision transforms]
Paddle's eager transforms draw their random parameters from Python's `random` module
(flips, crop positions, jitter factors, rotation angles, the order of ColorJitter) and
from NumPy's global generator (RandomResizedCrop's area and aspect ratio). oar draws the
same numbers from the same sources in the same order, so seeding `random` and
`numpy.random` gives the same images in both frameworks.
"""
from __future__ import annotations

from typing import Any

import math
import numbers
import random
from collections.abc import Iterable, Sequence

import numpy as np

from ...autograd.errors import ArgTypeError, ArgValueError
from . import functional as F

__all__ = [
    "BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop",
    "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "Normalize",
    "BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform",
    "ColorJitter", "RandomCrop", "Pad", "RandomRotation", "Grayscale", "ToTensor",
    "RandomAffine", "RandomErasing", "RandomPerspective",
]


def _image_size(img):
    """(width, height) of a PIL image, an HWC array or a CHW / NCHW Tensor."""
    if F._is_pil_image(img):
        return img.size
    if F._is_numpy_image(img):
        return img.shape[1], img.shape[0]
    if F._is_tensor_image(img):
        if img.ndim not in (3, 4):
            raise ArgValueError(f"a Tensor image must be 3-D (CHW) or 4-D (NCHW); got shape "
                                f"{list(img.shape)}")
        return img.shape[-1], img.shape[-2]
    raise ArgTypeError(f"expected a PIL Image, a NumPy array or an oar Tensor; got "
                       f"{type(img).__name__}")


def _factor_range(value, name, center=1.0, bound=(0, float("inf")), clip_first_on_zero=True):
    """[lo, hi] for a jitter amount (a number v gives [center - v, center + v]); None when
    the range is the single point `center` (the transform does nothing)."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ArgValueError(f"{name}: a single number must be non-negative; got {value}")
        rng = [center - value, center + value]
        if clip_first_on_zero:
            rng[0] = max(rng[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ArgValueError(f"{name}: values should be ordered and within {bound}; got {value}")
        rng = value
    else:
        raise ArgTypeError(f"{name} should be a single number or a list/tuple of length 2; "
                           f"got {value!r}")
    if rng[0] == rng[1] == center:
        return None
    return rng


class Compose:
    """Apply transforms in order."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class BaseTransform:
    """Base of the transforms: `keys` names what each element of a tuple input is
    ("image", "coords", "boxes", "mask"); each key's `_apply_<key>` transforms that element,
    after `_get_params(inputs)` has set `self.params` once for the whole tuple. Elements
    beyond the keys pass through."""

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, Sequence):
            raise ArgValueError(f"keys should be a sequence, but got keys={keys}")
        for k in keys:
            if getattr(self, f"_apply_{k}", None) is None:
                raise NotImplementedError(f"{k} is unsupported data structure")
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        return None

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = [getattr(self, f"_apply_{key}")(x) for key, x in zip(self.keys, inputs)]
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _apply_image(self, image):
        raise NotImplementedError

    def _apply_boxes(self, boxes):
        raise NotImplementedError

    def _apply_mask(self, mask):
        raise NotImplementedError

    def _apply_coords(self, coords):
        raise NotImplementedError


class ToTensor(BaseTransform):
    """PIL image / HWC array -> Tensor (uint8 scaled to [0, 1]), CHW or HWC."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not (isinstance(size, int) or (isinstance(size, Iterable) and len(size) == 2)):
            raise ArgTypeError(f"Resize: size should be an int or a (height, width) pair; got {size!r}")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class RandomResizedCrop(BaseTransform):
    """Crop a random area fraction in `scale` with a random aspect ratio in `ratio` (log
    uniform), then resize to `size`; after 10 misses, a central crop (Note [Randomness of
    vision transforms])."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3),
                 interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else size
        if scale[0] > scale[1]:
            raise ArgValueError(f"RandomResizedCrop: scale should be (min, max); got {scale}")
        if ratio[0] > ratio[1]:
            raise ArgValueError(f"RandomResizedCrop: ratio should be (min, max); got {ratio}")
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation

    def _crop_box(self, image, attempts=10):
        width, height = _image_size(image)
        area = height * width
        log_lo, log_hi = math.log(self.ratio[0]), math.log(self.ratio[1])
        for _ in range(attempts):
            target_area = np.random.uniform(*self.scale) * area
            aspect = math.exp(np.random.uniform(log_lo, log_hi))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        i, j, h, w = self._crop_box(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class CenterCrop(BaseTransform):
    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class _RandomFlip(BaseTransform):
    _flip: Any = None   # set by each subclass

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ArgValueError(f"{type(self).__name__}: probability must be between 0 and 1; "
                                f"got {prob}")
        self.prob = prob

    def _apply_image(self, img):
        if random.random() < self.prob:
            return type(self)._flip(img)
        return img


class RandomHorizontalFlip(_RandomFlip):
    _flip = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    _flip = staticmethod(F.vflip)


class Normalize(BaseTransform):
    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else mean
        self.std = [std] * 3 if isinstance(std, numbers.Number) else std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permute the axes (default HWC -> CHW); a PIL image becomes an array, an HW array
    gets a channel axis first."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        if F._is_tensor_image(img):
            return img.transpose(self.order)
        if F._is_pil_image(img):
            img = np.asarray(img)
        if img.ndim == 2:
            img = img[..., None]
        return img.transpose(self.order)


class _JitterTransform(BaseTransform):
    _name = ""
    _center, _clip = 1.0, True
    _bound: tuple[float, float] = (0, float("inf"))

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _factor_range(value, self._name, self._center, self._bound, self._clip)

    def _apply_image(self, img):
        if self.value is None:
            return img
        return self._adjust(img, random.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_JitterTransform):
    _name = "brightness"
    _adjust = staticmethod(F.adjust_brightness)


class ContrastTransform(_JitterTransform):
    _name = "contrast"
    _adjust = staticmethod(F.adjust_contrast)

    def __init__(self, value, keys=None):
        if isinstance(value, numbers.Number) and value < 0:
            raise ArgValueError(f"contrast value should be non-negative; got {value}")
        super().__init__(value, keys)


class SaturationTransform(_JitterTransform):
    _name = "saturation"
    _adjust = staticmethod(F.adjust_saturation)


class HueTransform(_JitterTransform):
    _name = "hue"
    _center, _bound, _clip = 0.0, (-0.5, 0.5), False
    _adjust = staticmethod(F.adjust_hue)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.hue = hue

    def _apply_image(self, img):
        parts = []
        for cls, value in ((BrightnessTransform, self.brightness),
                           (ContrastTransform, self.contrast),
                           (SaturationTransform, self.saturation),
                           (HueTransform, self.hue)):
            if value is not None:
                parts.append(cls(value, self.keys))
        random.shuffle(parts)
        return Compose(parts)(img)


class RandomCrop(BaseTransform):
    def __init__(self, size, padding=None, pad_if_needed=False, fill=0,
                 padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        th, tw = self.size
        w, h = _image_size(img)
        if self.pad_if_needed and w < tw:
            img = F.pad(img, (tw - w, 0), self.fill, self.padding_mode)
        w, h = _image_size(img)
        if self.pad_if_needed and h < th:
            img = F.pad(img, (0, th - h), self.fill, self.padding_mode)
        w, h = _image_size(img)
        if w == tw and h == th:
            return F.crop(img, 0, 0, h, w)
        if h < th or w < tw:
            raise ArgValueError(f"RandomCrop: crop size {(th, tw)} is larger than the image "
                                f"(height {h}, width {w}); pass pad_if_needed=True or padding")
        i = random.randint(0, h - th)
        j = random.randint(0, w - tw)
        return F.crop(img, i, j, th, tw)


class Pad(BaseTransform):
    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        if not isinstance(padding, (numbers.Number, list, tuple)):
            raise ArgTypeError(f"Pad: padding must be an int or a sequence; got {padding!r}")
        if not isinstance(fill, (numbers.Number, str, list, tuple)):
            raise ArgTypeError(f"Pad: fill must be a number, a string or a sequence; got {fill!r}")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ArgValueError(f"Pad: padding_mode should be constant, edge, reflect or "
                                f"symmetric; got {padding_mode!r}")
        padding = tuple(padding) if isinstance(padding, list) else padding
        fill = tuple(fill) if isinstance(fill, list) else fill
        if isinstance(padding, Sequence) and len(padding) not in (2, 4):
            raise ArgValueError("Padding must be an int or a 2, or 4 element tuple, not a "
                                f"{len(padding)} element tuple")
        super().__init__(keys)
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn uniformly from degrees (a number d means [-d, d])."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0,
                 keys=None):
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ArgValueError("If degrees is a single number, it must be positive.")
            self.degrees = (-degrees, degrees)
        else:
            if len(degrees) != 2:
                raise ArgValueError("If degrees is a sequence, it must be of len 2.")
            self.degrees = degrees
        super().__init__(keys)
        self.interpolation = interpolation
        self.expand = expand
        self.center = center
        self.fill = fill

    def _apply_image(self, img):
        angle = random.uniform(self.degrees[0], self.degrees[1])
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class Grayscale(BaseTransform):
    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


def _angle_range(x, name, sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ArgValueError(f"If {name} is a single number, it must be positive.")
        return [-float(x), float(x)]
    if not isinstance(x, Sequence) or len(x) not in sizes:
        raise ArgValueError(f"{name} should be a number or a sequence of length "
                            f"{' or '.join(map(str, sizes))}; got {x!r}")
    return [float(d) for d in x]


class RandomAffine(BaseTransform):
    """Random rotation, translation (fractions of the size), scale and shear
    (Note [Randomness of vision transforms])."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest",
                 fill=0, center=None, keys=None):
        self.degrees = _angle_range(degrees, "degrees")
        super().__init__(keys)
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise ArgValueError(f"RandomAffine: interpolation should be nearest, bilinear or "
                                f"bicubic; got {interpolation!r}")
        self.interpolation = interpolation
        if translate is not None and (len(translate) != 2
                                      or not all(0.0 <= t <= 1.0 for t in translate)):
            raise ArgValueError(f"translation values should be two numbers between 0 and 1; "
                                f"got {translate!r}")
        self.translate = translate
        if scale is not None and (len(scale) != 2 or not all(s > 0 for s in scale)):
            raise ArgValueError(f"scale values should be two positive numbers; got {scale!r}")
        self.scale = scale
        self.shear = None if shear is None else _angle_range(shear, "shear", (2, 4))
        self.fill = 0 if fill is None else fill
        self.center = center

    def _apply_image(self, img):
        w, h = _image_size(img)
        angle = random.uniform(self.degrees[0], self.degrees[1])
        if self.translate is not None:
            dx, dy = float(self.translate[0] * w), float(self.translate[1] * h)
            shift = (int(random.uniform(-dx, dx)), int(random.uniform(-dy, dy)))
        else:
            shift = (0, 0)
        scale = 1.0 if self.scale is None else random.uniform(self.scale[0], self.scale[1])
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = random.uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear[1] = random.uniform(self.shear[2], self.shear[3])
        return F.affine(img, angle, shift, scale, tuple(shear), interpolation=self.interpolation,
                        fill=self.fill, center=self.center)


class RandomErasing(BaseTransform):
    """With probability prob, set a random box (area fraction in scale, aspect ratio in
    ratio, log uniform) to value (a number, one value per channel, or 'random' for
    normal noise) (Note [Randomness of vision transforms])."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 keys=None):
        super().__init__(keys)
        if not (isinstance(scale, (tuple, list)) and 0 <= scale[0] <= scale[1] <= 1):
            raise ArgValueError(f"RandomErasing: scale should be (min, max) within [0, 1]; got {scale!r}")
        if not (isinstance(ratio, (tuple, list)) and 0 <= ratio[0] <= ratio[1]):
            raise ArgValueError(f"RandomErasing: ratio should be (min, max); got {ratio!r}")
        if not 0 <= prob <= 1:
            raise ArgValueError(f"RandomErasing: the probability should be in [0, 1]; got {prob}")
        if isinstance(value, str) and value != "random":
            raise ArgValueError("value must be 'random' when type is str")
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise ArgTypeError(f"RandomErasing: value should be a number, a sequence or "
                               f"'random'; got {value!r}")
        self.prob, self.scale, self.ratio, self.value, self.inplace = prob, scale, ratio, value, inplace

    def _box(self, img, value):
        if F._is_tensor_image(img):
            c, h, w = img.shape[-3:]
        else:
            h, w, c = np.asarray(img).shape[-3:]
        log_ratio = np.log(self.ratio)
        for _ in range(10):
            area = np.random.uniform(*self.scale) * h * w
            aspect = np.exp(np.random.uniform(*log_ratio))
            eh, ew = int(round(np.sqrt(area * aspect))), int(round(np.sqrt(area / aspect)))
            if eh >= h or ew >= w:
                continue
            if F._is_tensor_image(img):
                from ... import normal, to_tensor
                v = (normal(shape=[c, eh, ew]).astype(img.dtype) if value is None
                     else to_tensor(value, dtype=img.dtype)[:, None, None])
            elif value is None:
                v = np.random.normal(size=[eh, ew, c]) * 255
            else:
                v = np.array(value)[None, None, :]
            return np.random.randint(0, h - eh + 1), np.random.randint(0, w - ew + 1), eh, ew, v
        return 0, 0, h, w, img

    def _apply_image(self, img):
        if random.random() >= self.prob:
            return img
        value = ([self.value] if isinstance(self.value, numbers.Number)
                 else None if isinstance(self.value, str) else self.value)
        if value is not None and len(value) not in (1, 3):
            raise ArgValueError("Value should be a single number or a sequence with length "
                                "equals to image's channel.")
        i, j, h, w, v = self._box(img, value)
        return F.erase(img, i, j, h, w, v, self.inplace)


class RandomPerspective(BaseTransform):
    """With probability prob, move each corner inwards by up to distortion_scale of half
    the size and warp accordingly (Note [Randomness of vision transforms])."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ArgValueError(f"RandomPerspective: probability must be in [0, 1]; got {prob}")
        if not 0 <= distortion_scale <= 1:
            raise ArgValueError(f"RandomPerspective: distortion_scale must be in [0, 1]; got "
                                f"{distortion_scale}")
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise ArgValueError(f"RandomPerspective: interpolation should be nearest, bilinear "
                                f"or bicubic; got {interpolation!r}")
        self.prob, self.distortion_scale = prob, distortion_scale
        self.interpolation, self.fill = interpolation, fill

    def get_params(self, width, height, distortion_scale):
        """(startpoints, endpoints): the image corners and their random inward moves."""
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))
        near_x = lambda: int(random.uniform(0, dx + 1))  # noqa: E731
        far_x = lambda: int(random.uniform(width - dx - 1, width))  # noqa: E731
        near_y = lambda: int(random.uniform(0, dy + 1))  # noqa: E731
        far_y = lambda: int(random.uniform(height - dy - 1, height))  # noqa: E731
        # draw order: top-left, top-right, bottom-right, bottom-left; x before y
        tl = [near_x(), near_y()]
        tr = [far_x(), near_y()]
        br = [far_x(), far_y()]
        bl = [near_x(), far_y()]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return start, [tl, tr, br, bl]

    def _apply_image(self, img):
        width, height = _image_size(img)
        if random.random() < self.prob:
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, self.fill)
        return img
