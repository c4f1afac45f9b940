"""torch.utils.data: datasets, samplers and the DataLoader with PyTorch 2.13's API.

The datasets, the batching and the collation are the core's (oar.io, shared with the Paddle
door); this door adds what PyTorch means differently: every batch is made of PyTorch-door
tensors (Note [Result class]), and shuffling, random_split and the random samplers draw
from PyTorch's generator exactly as PyTorch does (RandomSampler seeds a fresh
torch.Generator from one int64 draw of the default generator at each epoch, then takes a
randperm), so a program seeded with torch.manual_seed visits its data in PyTorch's order.
`num_workers` is accepted: loading runs in the calling process, with the same batches.
"""
from __future__ import annotations

from itertools import accumulate

from .... import io as _io
from ....autograd.errors import ArgTypeError
from ....tensor import Tensor as _CoreTensor
from ..._tensor import Tensor as _DoorTensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split", "DataLoader", "Sampler",
           "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "default_collate", "default_convert",
           "get_worker_info"]

Dataset = _io.Dataset
IterableDataset = _io.IterableDataset
TensorDataset = _io.TensorDataset
ConcatDataset = _io.ConcatDataset
ChainDataset = _io.ChainDataset
Subset = _io.Subset
Sampler = _io.Sampler
SequentialSampler = _io.SequentialSampler
BatchSampler = _io.BatchSampler
get_worker_info = _io.get_worker_info


def _torch():
    from .... import torch as t      # the door package (imported lazily: no import cycle)
    return t


def _to_door(obj):
    """obj with every core tensor in it retagged as a PyTorch-door tensor (the same objects:
    no copy)."""
    if isinstance(obj, _CoreTensor):
        if obj.__class__ is _CoreTensor:
            obj.__class__ = _DoorTensor
        return obj
    if isinstance(obj, list):
        return [_to_door(v) for v in obj]
    if isinstance(obj, tuple):
        vals = [_to_door(v) for v in obj]
        return type(obj)(*vals) if hasattr(obj, "_fields") else type(obj)(vals)
    if isinstance(obj, dict):
        out = {k: _to_door(v) for k, v in obj.items()}
        try:
            return type(obj)(out)
        except TypeError:
            return out
    return obj


def default_collate(batch):
    """PyTorch's default_collate (tensors, arrays and numbers stacked into a tensor; dicts,
    tuples and lists collated per entry); the tensors are PyTorch-door tensors."""
    return _to_door(_io.default_collate(batch))


def default_convert(data):
    """Arrays and numbers of one sample as PyTorch-door tensors (batch_size=None)."""
    return _to_door(_io.default_convert(data))


class StackDataset(Dataset):
    """Samples assembled from several datasets of one length: StackDataset(a, b)[i] is
    (a[i], b[i]); StackDataset(x=a, y=b)[i] is {'x': a[i], 'y': b[i]}."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        sets = args or tuple(kwargs.values())
        if not sets:
            raise ValueError("At least one dataset should be passed")
        n = len(sets[0])
        if any(len(d) != n for d in sets):
            raise ValueError("Size mismatch between datasets")
        self._length, self.datasets = n, (args if args else dict(kwargs))

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


def _check_generator(generator, op):
    if generator is not None and not isinstance(generator, _torch().Generator):
        raise ArgTypeError(f"{op}: generator must be a torch.Generator, got "
                           f"{type(generator).__name__}")
    return generator


class RandomSampler(Sampler):
    """Samples indices in random order: each epoch a permutation (or num_samples draws with
    replacement), drawn as PyTorch draws them."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples = num_samples
        self.generator = _check_generator(generator, "RandomSampler")
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """The number of indices one epoch yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        torch = _torch()
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator()
            generator.manual_seed(seed)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from torch.randint(high=n, size=(32,), dtype=torch.int64,
                                         generator=generator).tolist()
            yield from torch.randint(high=n, size=(self.num_samples % 32,), dtype=torch.int64,
                                     generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from torch.randperm(n, generator=generator).tolist()
            yield from torch.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (a randperm each epoch)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = _check_generator(generator, "SubsetRandomSampler")

    def __iter__(self):
        for i in _torch().randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with the given (unnormalised) weights."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        torch = _torch()
        w = torch.as_tensor(weights, dtype=torch.double)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights, self.num_samples, self.replacement = w, num_samples, replacement
        self.generator = _check_generator(generator, "WeightedRandomSampler")

    def __iter__(self):
        r = _torch().multinomial(self.weights, self.num_samples, self.replacement,
                                 generator=self.generator)
        yield from r.tolist()

    def __len__(self):
        return self.num_samples


def random_split(dataset, lengths, generator=None):
    """Subsets of dataset of the given lengths (or fractions summing to 1), over a random
    permutation drawn from generator (default: PyTorch's default generator)."""
    torch = _torch()
    n = len(dataset)
    lengths = _io.split_lengths(n, lengths)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = torch.randperm(sum(lengths), generator=_check_generator(
        generator, "random_split") or torch.default_generator).tolist()
    return [Subset(dataset, perm[end - k:end]) for end, k in zip(accumulate(lengths), lengths)]


class DataLoader(_io.DataLoader):
    """Batches of a dataset, as PyTorch's DataLoader (batch_size, shuffle, sampler,
    batch_sampler, drop_last, collate_fn, generator; num_workers runs in-process). Batches
    are made of PyTorch-door tensors; shuffling draws PyTorch's order."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        _check_generator(generator, "DataLoader")
        if shuffle not in (None, False, True):
            raise TypeError(f"shuffle should be a boolean value, but got shuffle={shuffle}")
        if shuffle and sampler is not None:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if shuffle and batch_sampler is not None:
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
        if shuffle and not isinstance(dataset, IterableDataset):
            sampler = RandomSampler(dataset, generator=generator)
        elif shuffle:
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                             f"option, but got shuffle={shuffle}")
        super().__init__(dataset, batch_size, False, sampler, batch_sampler, num_workers,
                         collate_fn, pin_memory, drop_last, timeout, worker_init_fn,
                         multiprocessing_context, None, prefetch_factor=prefetch_factor,
                         persistent_workers=persistent_workers,
                         pin_memory_device=pin_memory_device, in_order=in_order)
        self.generator = generator

    def __iter__(self):
        return self._batches(self._base_seed())

    def _base_seed(self):
        """PyTorch draws one int64 from the loader's generator (the default one when None)
        as each iterator starts (its workers' base seed), before the sampler draws: drawn
        here too, so the shuffle order that follows is PyTorch's."""
        torch = _torch()
        kw = {} if self.generator is None else {"generator": self.generator}
        return int(torch.empty((), dtype=torch.int64).random_(**kw).item())

    def _batches(self, base_seed):
        for batch in _io.DataLoader.__iter__(self):
            yield _to_door(batch)


from .distributed import DistributedSampler  # noqa: F401,E402
__all__.append("DistributedSampler")
