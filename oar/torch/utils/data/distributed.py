"""torch.utils.data.distributed.DistributedSampler: PyTorch 2.13's algorithm and order."""
from __future__ import annotations

import math

from . import Sampler, _torch

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """This process's share of the dataset's indices: a permutation (shuffle=True: drawn with
    a torch.Generator seeded with seed + epoch, so every process draws the same one, bit for
    bit PyTorch's) padded to a multiple of num_replicas (or cut, drop_last=True), then every
    num_replicas-th index from `rank`. The shares are disjoint; call set_epoch(epoch) before
    each epoch to reshuffle. num_replicas and rank default to the process group's."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ...distributed import get_rank, get_world_size, is_available
            if not is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = get_world_size()
            if rank is None:
                rank = get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas)
                                         / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            torch = _torch()
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = torch.randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        indices = indices[self.rank:self.total_size:self.num_replicas]
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch: the next shuffle is seeded with seed + epoch, on every process."""
        self.epoch = epoch
