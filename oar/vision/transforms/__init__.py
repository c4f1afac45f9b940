"""paddle.vision.transforms for the Paddle door (Note [Image kinds in vision transforms],
Note [Randomness of vision transforms])."""
from . import functional  # noqa: F401
from .functional import (  # noqa: F401
    adjust_brightness, adjust_contrast, affine, erase, perspective, adjust_hue, adjust_saturation, center_crop, crop,
    hflip, normalize, pad, resize, rotate, to_grayscale, to_tensor, vflip,
)
from .transforms import (  # noqa: F401
    BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose, ContrastTransform,
    Grayscale, HueTransform, Normalize, Pad, RandomCrop, RandomHorizontalFlip,
    RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize, SaturationTransform,
    ToTensor, Transpose, RandomAffine, RandomErasing,
    RandomPerspective,
)

__all__ = [
    "BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop",
    "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "Normalize",
    "BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform",
    "ColorJitter", "RandomCrop", "Pad", "RandomRotation", "Grayscale", "ToTensor",
    "to_tensor", "hflip", "vflip", "resize", "pad", "rotate", "to_grayscale", "crop",
    "center_crop", "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue",
    "normalize", "affine", "erase", "RandomAffine", "RandomErasing",
    "perspective", "RandomPerspective",
]
