"""PyTorch spelling: oar.utils.data.DataLoader etc."""
from ..io import (BatchSampler, DataLoader, Dataset, IterableDataset, RandomSampler,  # noqa: F401
                  Sampler, SequentialSampler, SubsetRandomSampler, TensorDataset,
                  default_collate, default_convert)
