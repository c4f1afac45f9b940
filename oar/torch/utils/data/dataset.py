"""torch.utils.data.dataset."""
from . import (ChainDataset, ConcatDataset, Dataset, IterableDataset,  # noqa: F401
               StackDataset, Subset, TensorDataset, random_split)
