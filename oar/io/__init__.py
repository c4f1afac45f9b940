"""Datasets, samplers and batching (oar.io; PyTorch spelling oar.utils.data)."""
# Note [DataLoader keywords]
# Every keyword of PyTorch's DataLoader (and Paddle's) is either implemented or refused;
# none is silently ignored, since an ignored `sampler=` trains on other data. Unknown
# keywords are a TypeError. Loading always runs in the calling process: with num_workers > 0
# the batches are the same ones, in the same order, only not produced in parallel. Shuffling
# draws from oar's generator (oar.seed / oar.manual_seed) when no `generator` (or oar's
# `seed=`) is given, so `oar.seed(n)` fixes the order of every epoch.

from __future__ import annotations

import collections.abc as _abc
import numbers

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import random as _random
from ..tensor import Tensor


class Dataset:
    """A map-style dataset: subclasses define __getitem__(idx) and __len__()."""
    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(idx)")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__()")


class IterableDataset(Dataset):
    """A dataset that is iterated rather than indexed (not supported by DataLoader yet)."""
    def __iter__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    """TensorDataset([x, y]) (Paddle) or TensorDataset(x, y) (PyTorch)."""

    def __init__(self, *tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        if not tensors:
            raise ArgValueError("TensorDataset: give at least one tensor")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor) or t.ndim == 0:
                raise ArgTypeError(f"TensorDataset: argument {i} must be a tensor with a first "
                                   f"(sample) dimension, got {type(t).__name__}")
        n = {t.shape[0] for t in tensors}
        if len(n) != 1:
            raise ArgValueError(f"TensorDataset: Size mismatch between tensors: first "
                                f"dimensions {[t.shape[0] for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, idx):
        return tuple(t[idx] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


# ---------------------------------------------------------------------- samplers
def _positive_int(value, op, name):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ArgValueError(f"{op}: {name} should be a positive integer value, but got "
                            f"{name}={value!r}")
    return int(value)


def _boolean(value, op, name, exc=ArgValueError):
    if not isinstance(value, (bool, np.bool_)):
        raise exc(f"{op}: {name} should be a boolean value, but got {name}={value!r}")
    return bool(value)


def _generator(generator, op):
    if generator is None or isinstance(generator, np.random.Generator):
        return generator
    raise ArgTypeError(f"{op}: generator must be a numpy.random.Generator (or None to use "
                       f"oar's generator, seeded by oar.seed), got {type(generator).__name__}")


class Sampler:
    """Base class of samplers: iterating yields dataset indices."""
    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        return len(self.data_source)


class SequenceSampler(Sampler):
    """Indices 0, 1, ..., len(data_source) - 1 (Paddle's name; PyTorch: SequentialSampler)."""

    def __iter__(self):
        return iter(range(len(self.data_source)))


SequentialSampler = SequenceSampler


class RandomSampler(Sampler):
    """A random permutation (or num_samples draws with replacement) of the indices, from
    `generator` or else oar's generator at the start of each iteration."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        self.replacement = _boolean(replacement, "RandomSampler", "replacement", ArgTypeError)
        if num_samples is not None:
            num_samples = _positive_int(num_samples, "RandomSampler", "num_samples")
        self._num_samples = num_samples
        self.generator = _generator(generator, "RandomSampler")

    @property
    def num_samples(self):
        """The number of indices one iteration yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        rng = self.generator if self.generator is not None else _random.generator()
        if self.replacement:
            return iter(rng.integers(0, n, size=self.num_samples).tolist())
        k = self.num_samples
        order = np.concatenate([rng.permutation(n) for _ in range(-(-k // n))]) if n else []
        return iter(np.asarray(order[:k], dtype=np.int64).tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each iteration."""
    def __init__(self, indices, generator=None):
        super().__init__(None)
        self.indices = list(indices)
        self.generator = _generator(generator, "SubsetRandomSampler")

    def __iter__(self):
        rng = self.generator if self.generator is not None else _random.generator()
        return iter([self.indices[i] for i in rng.permutation(len(self.indices))])

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of batch_size. Paddle's form
    BatchSampler(dataset=..., shuffle=..., batch_size=...) builds the sampler itself."""

    def __init__(self, sampler=None, batch_size=1, drop_last=False, *, dataset=None,
                 shuffle=False):
        op = "BatchSampler"
        if sampler is None:
            if dataset is None:
                raise ArgValueError(f"{op}: give a sampler (or Paddle's dataset=)")
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        elif dataset is not None or shuffle:
            raise ArgValueError(f"{op}: give either a sampler or dataset=/shuffle=, not both")
        super().__init__(None)
        self.sampler = sampler
        self.batch_size = _positive_int(batch_size, op, "batch_size")
        self.drop_last = _boolean(drop_last, op, "drop_last")

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


# ---------------------------------------------------------------------- collation
_COLLATE_TYPES = "tensors, numpy arrays, numbers, dicts or lists"


def default_collate(batch):
    """PyTorch's default_collate: tensors and arrays are stacked, numbers become a tensor
    (int64 / float64 / bool), dicts are collated per key, tuples and lists per position,
    strings are kept as a list."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        shapes = {tuple(t.shape) for t in batch}
        if len(shapes) != 1 or not all(isinstance(t, Tensor) for t in batch):
            got = [list(t.shape) if isinstance(t, Tensor) else type(t).__name__ for t in batch[:4]]
            raise ArgValueError(f"default_collate: stack expects each tensor to be equal size, "
                                f"but got {got}. Fix: a collate_fn that pads them")
        return Tensor._wrap(np.stack([t._data for t in batch]))
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSUV":
            raise ArgTypeError(f"default_collate: numpy arrays of dtype {elem.dtype} cannot be "
                               "collated")
        if len({a.shape for a in batch}) != 1:
            raise ArgValueError(f"default_collate: stack expects each array to be equal size, "
                                f"but got {[list(a.shape) for a in batch[:4]]}")
        return Tensor._wrap(np.stack(batch))
    if isinstance(elem, np.generic) and elem.dtype.kind in "biuf":
        return Tensor._wrap(np.asarray(batch))
    if isinstance(elem, (bool, np.bool_)):
        return Tensor._wrap(np.asarray(batch, dtype=np.bool_))
    if isinstance(elem, numbers.Integral):
        return Tensor._wrap(np.asarray(batch, dtype=np.int64))
    if isinstance(elem, numbers.Real):
        return Tensor._wrap(np.asarray(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, _abc.Mapping):
        keys = list(elem)
        for d in batch:
            if not isinstance(d, _abc.Mapping) or set(d) != set(keys):
                raise ArgValueError(f"default_collate: every sample must be a dict with the keys "
                                    f"{keys}, got {list(d) if isinstance(d, _abc.Mapping) else type(d).__name__}")
        out = {k: default_collate([d[k] for d in batch]) for k in keys}
        try:
            return type(elem)(out)
        except TypeError:
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):      # namedtuple
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, _abc.Sequence):
        n = len(elem)
        if any(not isinstance(s, _abc.Sequence) or len(s) != n for s in batch):
            raise ArgValueError("default_collate: each element in list of batch should be of "
                                "equal size")
        return [default_collate([s[i] for s in batch]) for i in range(n)]
    raise ArgTypeError(f"default_collate: batch must contain {_COLLATE_TYPES}; found "
                       f"{type(elem)}")


def default_convert(sample):
    """batch_size=None: each sample as is, NumPy arrays and numbers made tensors."""
    if isinstance(sample, np.ndarray) and sample.dtype.kind in "biuf":
        return Tensor._wrap(sample)
    if isinstance(sample, np.generic) and sample.dtype.kind in "biuf":
        return Tensor._wrap(np.asarray(sample))
    if isinstance(sample, _abc.Mapping):
        return {k: default_convert(v) for k, v in sample.items()}
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):
        return type(sample)(*(default_convert(v) for v in sample))
    if isinstance(sample, (list, tuple)):
        return [default_convert(v) for v in sample]
    return sample


# ---------------------------------------------------------------------- the loader
class DataLoader:
    """Batches a dataset. PyTorch's keywords (sampler, batch_sampler, shuffle, drop_last,
    collate_fn, generator, num_workers ...) and Paddle's (return_list, places ...) all have an
    effect or are refused; see Note [DataLoader keywords]. `seed=` (oar) gives the shuffle its
    own generator."""

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True, seed=None, feed_list=None, places=None, return_list=True,
                 use_buffer_reader=True, use_shared_memory=True):
        op = "DataLoader"
        if isinstance(dataset, IterableDataset):
            raise NotImplementedError(f"{op}: IterableDataset is not supported yet")
        if not hasattr(dataset, "__getitem__") or not hasattr(dataset, "__len__"):
            raise ArgTypeError(f"{op}: dataset must define __getitem__ and __len__, got "
                               f"{type(dataset).__name__}")
        if isinstance(num_workers, bool) or not isinstance(num_workers, (int, np.integer)) \
                or num_workers < 0:
            raise ArgValueError(f"{op}: num_workers option should be non-negative; use "
                                f"num_workers=0 to disable multiprocessing (got {num_workers!r})")
        if not isinstance(timeout, (int, float)) or timeout < 0:
            raise ArgValueError(f"{op}: timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ArgValueError(f"{op}: prefetch_factor option could only be specified in "
                                "multiprocessing. Let num_workers > 0 to enable "
                                "multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ArgValueError(f"{op}: persistent_workers option needs num_workers > 0")
        if not return_list:
            raise NotImplementedError(f"{op}: return_list=False (static-graph feeds) is not "
                                      "supported")
        if feed_list is not None:
            raise NotImplementedError(f"{op}: feed_list (static-graph feeds) is not supported")
        shuffle = _boolean(shuffle, op, "shuffle", ArgTypeError) if shuffle is not None else False
        drop_last = _boolean(drop_last, op, "drop_last")
        if collate_fn is not None and not callable(collate_fn):
            raise ArgTypeError(f"{op}: collate_fn must be callable, got {type(collate_fn).__name__}")
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise ArgTypeError(f"{op}: worker_init_fn must be callable")
        generator = _generator(generator, op)
        if seed is not None:
            if generator is not None:
                raise ArgValueError(f"{op}: give seed= or generator=, not both")
            generator = np.random.default_rng(seed)
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ArgValueError(f"{op}: batch_sampler option is mutually exclusive with "
                                    "batch_size, shuffle, sampler, and drop_last")
            batch_size = None
        elif batch_size is None:
            if drop_last:
                raise ArgValueError(f"{op}: batch_size=None option disables auto-batching and "
                                    "is mutually exclusive with drop_last")
        else:
            batch_size = _positive_int(batch_size, op, "batch_size")
        if sampler is not None and shuffle:
            raise ArgValueError(f"{op}: sampler option is mutually exclusive with shuffle")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle \
                else SequenceSampler(dataset)
        elif not hasattr(sampler, "__iter__"):
            raise ArgTypeError(f"{op}: sampler must be iterable (a Sampler or a list of "
                               f"indices), got {type(sampler).__name__}")
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        elif batch_sampler is not None and not hasattr(batch_sampler, "__iter__"):
            raise ArgTypeError(f"{op}: batch_sampler must be iterable, got "
                               f"{type(batch_sampler).__name__}")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = int(num_workers)
        self.generator = generator
        self.worker_init_fn = worker_init_fn
        self._auto_collate = batch_sampler is not None
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collate else default_convert)
        self._fast = isinstance(dataset, TensorDataset) and collate_fn is None

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)

    def _fetch(self, idx):
        if self._fast:                   # vectorised: one gather per tensor
            n = len(self.dataset)
            arr = np.asarray(idx, dtype=np.int64)
            if arr.size and (arr.min() < -n or arr.max() >= n):
                raise IndexError(f"DataLoader: sampler index {int(arr.max())} out of range "
                                 f"for a dataset of {n} samples")
            return [Tensor._wrap(t._data[arr]) for t in self.dataset.tensors]
        return self.collate_fn([self.dataset[int(j)] for j in idx])

    def __iter__(self):
        if self.worker_init_fn is not None and self.num_workers > 0:
            self.worker_init_fn(0)       # one in-process "worker"
        if self.batch_sampler is not None:
            for idx in self.batch_sampler:
                yield self._fetch(list(idx))
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[int(i)])


__all__ = ["Dataset", "IterableDataset", "TensorDataset", "DataLoader", "default_collate",
           "default_convert", "Sampler", "SequenceSampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "BatchSampler"]
