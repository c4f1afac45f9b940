"""Datasets, samplers and batching (oar.io; PyTorch spelling oar.utils.data)."""
# Note [DataLoader keywords]
# Every keyword of PyTorch's DataLoader (and Paddle's) is either implemented or refused;
# none is silently ignored, since an ignored `sampler=` trains on other data. Unknown
# keywords are a TypeError. Loading always runs in the calling process: with num_workers > 0
# the batches are the same ones, in the same order, only not produced in parallel. Shuffling
# draws from oar's generator (oar.seed / oar.manual_seed) when no `generator` (or oar's
# `seed=`) is given, so `oar.seed(n)` fixes the order of every epoch. Paddle's spellings work
# too: `loader()` is `iter(loader)`, RandomSampler(generator=) takes Paddle's Python iterator
# of indices, and DistributedBatchSampler shuffles exactly as Paddle does (a NumPy
# RandomState seeded with the epoch), so paddle.Model.fit visits the same batches.

# Note [Two BatchSampler signatures]
# Paddle's BatchSampler is (dataset=None, sampler=None, shuffle=False, batch_size=1,
# drop_last=False), PyTorch's (sampler, batch_size, drop_last). One class takes both:
# keywords mean the same in both; positionally, a Dataset first is Paddle's form and anything
# else (a Sampler, a list of indices) with the batch size second is PyTorch's.

from __future__ import annotations

import bisect
import collections.abc as _abc
import math
import numbers
import warnings

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import random as _random
from ..place import as_place as _as_place
from ..tensor import Tensor


class Dataset:
    """A map-style dataset: subclasses define __getitem__(idx) and __len__()."""
    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(idx)")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__()")


class IterableDataset(Dataset):
    """A dataset that is iterated rather than indexed: subclasses define __iter__()."""
    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")

    def __getitem__(self, idx):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate it, it cannot "
                        "be indexed")

    def __len__(self):
        raise TypeError(f"{type(self).__name__} is an IterableDataset without __len__: its "
                        "length is unknown")


class _AssertValueError(ArgValueError, AssertionError):
    """A bad argument of a Paddle-only API (Paddle asserts: AssertionError; also ValueError)."""


class _NoLenError(TypeError, ValueError):
    """len() of something whose length is unknown (an IterableDataset's loader)."""


def _check(cond, msg):
    if not cond:
        raise _AssertValueError(msg)


class ComposeDataset(Dataset):
    """Samples of several same-length datasets side by side: item i is the tuple of every
    dataset's item i, flattened one level (Paddle's paddle.io.ComposeDataset)."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "ComposeDataset: input datasets should not be empty")
        for i, d in enumerate(self.datasets):
            _check(isinstance(d, Dataset) and not isinstance(d, IterableDataset),
                   f"ComposeDataset: each input dataset should be a (map-style) "
                   f"paddle.io.Dataset, dataset {i} is {type(d).__name__}")
            _check(i == 0 or len(d) == len(self.datasets[i - 1]),
                   f"ComposeDataset: lengths of datasets should be same, got "
                   f"{[len(x) for x in self.datasets]}")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for d in self.datasets:
            item = d[idx]
            sample.extend(item if isinstance(item, (list, tuple)) else [item])
        return tuple(sample)


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "ChainDataset: input datasets should not be empty")
        for i, d in enumerate(self.datasets):
            _check(isinstance(d, IterableDataset), f"ChainDataset only supports "
                   f"IterableDataset, dataset {i} is {type(d).__name__}")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class Subset(Dataset):
    """The items of dataset at the given indices, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return [self.dataset[self.indices[i]] for i in idx]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Datasets one after another: item i comes from the dataset that holds position i."""

    @staticmethod
    def cumsum(sequence):
        """The running totals of the lengths of sequence's datasets."""
        out, total = [], 0
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    def __init__(self, datasets):
        self.datasets = list(datasets)
        _check(len(self.datasets) > 0, "ConcatDataset: datasets should not be an empty iterable")
        for d in self.datasets:
            _check(not isinstance(d, IterableDataset),
                   "ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if isinstance(idx, bool) or not isinstance(idx, (int, np.integer)):
            raise ArgTypeError(f"ConcatDataset: index must be an integer, got "
                               f"{type(idx).__name__}")
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ArgValueError("ConcatDataset: absolute value of index should not exceed "
                                    f"dataset length ({idx} for {n} items)")
            idx += n
        if idx >= n:
            raise IndexError(f"ConcatDataset: index {idx} is out of range for {n} items")
        k = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[k][idx - (self.cumulative_sizes[k - 1] if k else 0)]


def split_lengths(n, lengths, prefix=""):
    """random_split's lengths as integers: fractions summing to 1 become sizes of n (the
    remainder dealt one by one from the first), as both frameworks do; else unchanged."""
    lengths = list(lengths)
    if not (math.isclose(sum(lengths), 1) and sum(lengths) <= 1):
        return lengths
    sizes = []
    for i, frac in enumerate(lengths):
        if frac < 0 or frac > 1:
            raise ArgValueError(f"{prefix}Fraction at index {i} is not between 0 and 1")
        sizes.append(int(math.floor(n * frac)))
    for i in range(n - sum(sizes)):
        sizes[i % len(sizes)] += 1
    for i, size in enumerate(sizes):
        if size == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                          "empty dataset.", stacklevel=3)
    return sizes


def random_split(dataset, lengths, generator=None):
    """Splits dataset into non-overlapping Subsets of the given lengths (or fractions summing
    to 1), in a random order drawn from `generator` (a numpy.random.Generator) or else oar's
    generator (oar.seed)."""
    n = len(dataset)
    lengths = split_lengths(n, lengths, "random_split: ")
    for v in lengths:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ArgValueError(f"random_split: lengths must be non-negative integers (or "
                                f"fractions summing to 1), got {lengths}")
    if sum(lengths) != n:
        raise ArgValueError(f"random_split: Sum of input lengths ({sum(lengths)}) does not equal "
                            f"the length of the input dataset ({n})!")
    rng = _generator(generator, "random_split")
    rng = rng if rng is not None else _random.generator()
    order = rng.permutation(n).tolist()
    out, start = [], 0
    for size in lengths:
        out.append(Subset(dataset, order[start:start + int(size)]))
        start += int(size)
    return out


def get_worker_info():
    """None: loading runs in the calling process (Note [DataLoader keywords])."""
    return None


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


def _generator(generator, op, iterator_ok=False):
    if generator is None or isinstance(generator, np.random.Generator):
        return generator
    if iterator_ok and isinstance(generator, _abc.Iterator):
        return generator             # Paddle's form: a Python iterator of indices
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
        self.generator = _generator(generator, "RandomSampler", iterator_ok=True)

    @property
    def num_samples(self):
        """The number of indices one iteration yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if isinstance(self.generator, _abc.Iterator):      # Paddle: take num_samples indices
            return iter([i for i, _ in zip(self.generator, range(self.num_samples))])
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
    BatchSampler(dataset, sampler=None, shuffle=False, batch_size=1, drop_last=False) builds
    the sampler itself (random when shuffle); PyTorch's form is BatchSampler(sampler,
    batch_size, drop_last) (Note [Two BatchSampler signatures])."""

    def __init__(self, *args, dataset=None, sampler=None, shuffle=False, batch_size=1,
                 drop_last=False):
        op = "BatchSampler"
        kw = {"dataset": dataset, "sampler": sampler, "shuffle": shuffle,
              "batch_size": batch_size, "drop_last": drop_last}
        if args:
            names = (("dataset", "sampler", "shuffle", "batch_size", "drop_last")
                     if isinstance(args[0], Dataset) else ("sampler", "batch_size", "drop_last"))
            if len(args) > len(names):
                raise ArgTypeError(f"{op}: takes at most {len(names)} positional arguments "
                                   f"({', '.join(names)}) here, got {len(args)}")
            defaults = {"dataset": None, "sampler": None, "shuffle": False, "batch_size": 1,
                        "drop_last": False}
            for k, v in zip(names, args):
                if kw[k] is not defaults[k]:
                    raise ArgTypeError(f"{op}: got multiple values for argument {k!r}")
                kw[k] = v
        dataset, sampler, shuffle = kw["dataset"], kw["sampler"], kw["shuffle"]
        batch_size, drop_last = kw["batch_size"], kw["drop_last"]
        shuffle = _boolean(shuffle, op, "shuffle", _AssertValueError)
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


class DistributedBatchSampler(BatchSampler):
    """Paddle's batch sampler for data-parallel training: this process (rank of num_replicas;
    default the parallel environment's rank and size, oar.distributed: rank 0 of 1 when it
    is not initialised) gets every num_replicas-th batch of the indices, padded
    to a multiple of num_replicas. With shuffle the indices are permuted by a NumPy
    RandomState seeded with the epoch (Paddle's order exactly); the epoch advances after each
    shuffled pass, or is set by set_epoch()."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        op = "DistributedBatchSampler"
        if not hasattr(dataset, "__len__"):
            raise ArgTypeError(f"{op}: dataset must have a length, got {type(dataset).__name__}")
        _check(isinstance(batch_size, int) and not isinstance(batch_size, bool)
               and batch_size > 0, f"{op}: batch_size should be a positive integer, got "
               f"{batch_size!r}")
        _check(isinstance(shuffle, bool), f"{op}: shuffle should be a boolean value, got "
               f"{shuffle!r}")
        _check(isinstance(drop_last, bool), f"{op}: drop_last should be a boolean number, got "
               f"{drop_last!r}")
        if num_replicas is not None:
            _check(isinstance(num_replicas, int) and not isinstance(num_replicas, bool)
                   and num_replicas > 0, f"{op}: num_replicas should be a positive integer, "
                   f"got {num_replicas!r}")
        if rank is not None:
            _check(isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0,
                   f"{op}: rank should be a non-negative integer, got {rank!r}")
        Sampler.__init__(self, None)
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        if num_replicas is None or rank is None:   # the parallel environment's, as Paddle's
            from .. import distributed as _dist
            num_replicas = _dist.get_world_size() if num_replicas is None else num_replicas
            rank = _dist.get_rank() if rank is None else rank
        self.nranks = num_replicas
        self.local_rank = rank
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks
        self.sampler = None

    def __iter__(self):
        n = len(self.dataset)
        indices = list(range(n))
        pad = self.total_size - n
        if n:
            indices += (indices * math.ceil(pad / n))[:pad]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            bs, k = self.batch_size, self.nranks
            last = self.total_size % (bs * k)
            mine = []
            for i in range(self.local_rank * bs, len(indices) - last, bs * k):
                mine.extend(indices[i:i + bs])
            tail = indices[len(indices) - last:]
            per = last // k
            mine.extend(tail[self.local_rank * per:(self.local_rank + 1) * per])
            indices = mine
        batch = []
        for i in indices:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def set_epoch(self, epoch):
        """Sets the epoch that seeds the next shuffle (call it before each epoch)."""
        self.epoch = epoch


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probability proportional to weights (with replacement
    unless replacement=False), from oar's generator."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        op = "WeightedRandomSampler"
        w = weights._data if isinstance(weights, Tensor) else np.asarray(weights)
        if w.ndim != 1 or w.dtype.kind not in "biuf" or w.size == 0:
            raise ArgValueError(f"{op}: weights should be a non-empty 1-D sequence of numbers, "
                                f"got shape {list(w.shape)} dtype {w.dtype}")
        if not np.all(np.isfinite(w)) or np.any(w < 0) or not np.any(w > 0):
            raise ArgValueError(f"{op}: weights should be finite, non-negative and not all zero")
        super().__init__(None)
        self.weights = w.astype(np.float64)
        self.num_samples = _positive_int(num_samples, op, "num_samples")
        self.replacement = _boolean(replacement, op, "replacement")
        if not self.replacement and np.count_nonzero(self.weights) < self.num_samples:
            raise ArgValueError(f"{op}: with replacement=False, num_samples "
                                f"({self.num_samples}) must not exceed the number of positive "
                                f"weights ({np.count_nonzero(self.weights)})")
        self.generator = _generator(generator, op)

    def __iter__(self):
        rng = self.generator if self.generator is not None else _random.generator()
        p = self.weights / self.weights.sum()
        return iter(rng.choice(len(p), self.num_samples, replace=self.replacement,
                               p=p).tolist())

    def __len__(self):
        return self.num_samples


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
                 use_buffer_reader=True, use_shared_memory=True, reader_buffer_size=2):
        op = "DataLoader"
        for place in (places if isinstance(places, (list, tuple)) else [places]):
            if place is not None:
                _as_place(place)         # a GPU place is refused (Note [Only the CPU])
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            if shuffle:
                raise ArgValueError(f"{op}: IterableDataset does not support shuffle, got "
                                    f"shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ArgValueError(f"{op}: an IterableDataset takes no sampler or "
                                    "batch_sampler (it decides its own order)")
        elif not hasattr(dataset, "__getitem__") or not hasattr(dataset, "__len__"):
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
        if iterable:
            pass                      # batches are cut from the dataset's own iteration
        elif sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle \
                else SequenceSampler(dataset)
        elif not hasattr(sampler, "__iter__"):
            raise ArgTypeError(f"{op}: sampler must be iterable (a Sampler or a list of "
                               f"indices), got {type(sampler).__name__}")
        if batch_sampler is None and batch_size is not None and not iterable:
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
        self._iterable = iterable
        self._auto_collate = batch_sampler is not None or (iterable and batch_size is not None)
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collate else default_convert)
        self._fast = isinstance(dataset, TensorDataset) and collate_fn is None

    def __len__(self):
        if self._iterable:
            try:
                n = len(self.dataset)
            except (TypeError, NotImplementedError):
                raise _NoLenError("DataLoader: the length of a loader over an IterableDataset "
                                  "without __len__ is unknown") from None
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)

    def __call__(self):
        """A fresh iterator over the batches (Paddle's `for batch in loader():`)."""
        return iter(self)

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
        if self._iterable:
            yield from self._iterate_dataset()
        elif self.batch_sampler is not None:
            for idx in self.batch_sampler:
                yield self._fetch(list(idx))
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[int(i)])

    def _iterate_dataset(self):
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)


__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset",
           "Subset", "ConcatDataset", "random_split", "get_worker_info", "DataLoader",
           "default_collate", "default_convert", "Sampler", "SequenceSampler",
           "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler", "DistributedBatchSampler"]
