"""Datasets and batching (oar.io; PyTorch spelling oar.utils.data)."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor


class Dataset:
    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    """TensorDataset([x, y]) (Paddle) or TensorDataset(x, y) (PyTorch)."""

    def __init__(self, *tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        n = {t.shape[0] for t in tensors}
        if len(n) != 1:
            raise ValueError(f"TensorDataset: tensors have different lengths {sorted(n)}")
        self.tensors = tensors

    def __getitem__(self, idx):
        return tuple(t[idx] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def default_collate(items):
    first = items[0]
    if isinstance(first, Tensor):
        return Tensor._wrap(np.stack([t._data for t in items]))
    if isinstance(first, (tuple, list)):
        return [default_collate([it[i] for it in items]) for i in range(len(first))]
    if isinstance(first, np.ndarray):
        return Tensor._wrap(np.stack(items))
    if isinstance(first, (int, float, np.number)):
        return Tensor._wrap(np.asarray(items))
    return items


class DataLoader:
    """Batches a dataset; shuffle with a seed for reproducible orders."""

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None,
                 num_workers=0, seed=None, **kw):
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.collate_fn = collate_fn or default_collate
        self._rng = np.random.default_rng(seed)

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = len(self.dataset)
        order = self._rng.permutation(n) if self.shuffle else np.arange(n)
        for i in range(len(self)):
            idx = order[i * self.batch_size:(i + 1) * self.batch_size]
            if isinstance(self.dataset, TensorDataset):   # vectorised: one gather per tensor
                yield [Tensor._wrap(t._data[idx]) for t in self.dataset.tensors]
            else:
                yield self.collate_fn([self.dataset[int(j)] for j in idx])


__all__ = ["Dataset", "TensorDataset", "DataLoader", "default_collate"]
