"""PyTorch spelling: oar.utils.data.DataLoader etc."""
from ..io import DataLoader, Dataset, TensorDataset, default_collate  # noqa: F401
