"""torch.optim.lr_scheduler: PyTorch's learning-rate schedulers (oar.optim.lr_scheduler)."""
from ...optim.lr_scheduler import *  # noqa: F401,F403
from ...optim.lr_scheduler import __all__, _LRScheduler  # noqa: F401
