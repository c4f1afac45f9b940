"""torch.utils.data.dataloader."""
from . import DataLoader, default_collate, default_convert, get_worker_info  # noqa: F401
