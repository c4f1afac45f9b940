"""torch.nn.parallel: DistributedDataParallel (over MPI; the Paddle door's DataParallel is
the same implementation, oar/distributed/parallel.py)."""
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DistributedDataParallel"]
