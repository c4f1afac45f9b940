"""paddle.vision for the Paddle door: image transforms (oar.vision.transforms)."""
from . import transforms  # noqa: F401
from . import models  # noqa: F401
