"""paddle.vision for the Paddle door: image transforms, models, datasets and the image backend."""
from . import transforms  # noqa: F401
from . import models  # noqa: F401
from . import datasets  # noqa: F401
from .image import get_image_backend, image_load, set_image_backend  # noqa: F401
