"""paddle.vision's image backend (Paddle door): which kind of image the datasets and
image_load produce -- 'pil' (a PIL.Image, the default) or 'cv2' (a NumPy HWC array)."""
from __future__ import annotations

from ..autograd.errors import ArgValueError

_BACKENDS = ("pil", "cv2", "tensor")
_image_backend = "pil"


def _check_backend(backend, op):
    if backend not in _BACKENDS:
        raise ArgValueError(f"{op}: expected backend to be one of {list(_BACKENDS)}, "
                            f"but got {backend!r}")


def set_image_backend(backend):
    """Set the backend that datasets and image_load use when given none: 'pil', 'cv2' or
    'tensor' (Paddle accepts 'tensor' here although its datasets only read 'pil' and 'cv2')."""
    global _image_backend
    _check_backend(backend, "set_image_backend")
    _image_backend = backend


def get_image_backend():
    """The current image backend ('pil' unless set_image_backend changed it)."""
    return _image_backend


def _pil():
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - Pillow is installed in the dev env
        raise ImportError("oar.vision: reading images needs Pillow; install it with "
                          "`pip install oar[vision]` (or `pip install pillow`)") from e
    return Image


def _cv2():
    try:
        import cv2
    except ImportError as e:
        raise ImportError("oar.vision: the 'cv2' image backend needs OpenCV; install it with "
                          "`pip install opencv-python`, or use the 'pil' backend "
                          "(oar.vision.set_image_backend('pil'))") from e
    return cv2


def image_load(path, backend=None):
    """Open the image at `path`: a PIL.Image (backend 'pil', unloaded as PIL opens it) or a
    BGR NumPy array (backend 'cv2', as cv2.imread reads it). backend None uses the current
    backend; 'tensor' loads nothing and returns None, as in Paddle 3.3.1."""
    if backend is None:
        backend = _image_backend
    _check_backend(backend, "image_load")
    if backend == "pil":
        return _pil().open(path)
    if backend == "cv2":
        return _cv2().imread(path)
    return None
