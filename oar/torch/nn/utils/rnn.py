"""torch.nn.utils.rnn: packed batches of variable-length sequences (PackedSequence) and the
functions that pack, pad and unpad them. Packing and padding are gathers (index_select) of
the rows, so gradients flow back to the padded input or to the sequences.

A PackedSequence holds, time step after time step, the rows of the sequences still running
at that step (sequences sorted by decreasing length): data [sum(lengths), *], batch_sizes[t]
= how many sequences are longer than t (an int64 CPU tensor), and the permutation that sorted
the batch (sorted_indices) with its inverse (unsorted_indices), both None when the caller
promised sorted input (enforce_sorted=True)."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ....autograd.errors import ArgTypeError, ArgValueError
from ....ops.registry import FUNCTIONS as _FN
from ....tensor import Tensor as _CoreTensor
from ....tensor import wrap_as
from ..._tensor import Tensor as _DoorTensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


def _long(values):
    return wrap_as(_DoorTensor, np.asarray(values, np.int64))


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """(data, batch_sizes, sorted_indices, unsorted_indices) of a packed batch (see the module
    docstring). Build it with pack_padded_sequence / pack_sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise ArgValueError("PackedSequence: batch_sizes is required (build packed batches "
                                "with pack_padded_sequence or pack_sequence)")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _apply_data(self, fn):
        return type(self)(fn(self.data), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packed batch with data moved / cast by Tensor.to."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes,
                                                         self.sorted_indices,
                                                         self.unsorted_indices)

    def cpu(self):
        """The packed batch with its data on the CPU."""
        return self._apply_data(lambda d: d.cpu())

    def double(self):
        """The packed batch with float64 data."""
        return self._apply_data(lambda d: d.double())

    def float(self):
        """The packed batch with float32 data."""
        return self._apply_data(lambda d: d.float())

    def half(self):
        """The packed batch with float16 data."""
        return self._apply_data(lambda d: d.half())

    @property
    def is_cuda(self):
        """Whether the data lives on a GPU."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether the data is in pinned memory."""
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse of a permutation (an int64 tensor), or None for None."""
    if permutation is None:
        return None
    p = np.asarray(permutation._data)
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=p.dtype)
    return wrap_as(type(permutation), inv)


def _packed_rows(batch_sizes):
    """(time index, batch index) of each packed row, in packed order."""
    bs = np.asarray(batch_sizes._data if isinstance(batch_sizes, _CoreTensor) else batch_sizes)
    t = np.repeat(np.arange(bs.size), bs)
    b = np.concatenate([np.arange(n) for n in bs]) if bs.size else np.zeros(0, np.int64)
    return t, b


def _lengths_array(lengths, op):
    if isinstance(lengths, _CoreTensor):
        arr = np.asarray(lengths._data)
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise RuntimeError(f"{op}: 'lengths' argument should be a 1D CPU int64 tensor, but "
                               f"got {arr.ndim}D {lengths.dtype} tensor")
        return arr.astype(np.int64)
    try:
        arr = np.asarray(list(lengths))
    except TypeError:
        raise ArgTypeError(f"{op}: lengths must be a 1D int64 tensor or a list of ints, got "
                           f"{type(lengths).__name__}") from None
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise ArgTypeError(f"{op}: lengths must be a 1D int64 tensor or a list of ints, got "
                           f"{arr.tolist()!r}")
    return arr.astype(np.int64)


def _rows(x, t_idx, b_idx, batch):
    """x [T, B, *] (time-major) gathered at rows (t_idx, b_idx) -> [len, *]."""
    flat = _FN["reshape"](x, [x._data.shape[0] * x._data.shape[1]] + list(x._data.shape[2:]))
    return _FN["index_select"](flat, _long(t_idx * batch + b_idx), 0)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch input [T, B, *] ([B, T, *] with batch_first) of sequences of the
    given lengths; with enforce_sorted=False the batch is sorted by decreasing length first."""
    op = "pack_padded_sequence"
    if not isinstance(input, _CoreTensor):
        raise ArgTypeError(f"{op}(): argument 'input' must be Tensor, not "
                           f"{type(input).__name__}")
    lens = _lengths_array(lengths, op)
    if input._data.ndim < 2:
        raise ArgValueError(f"{op}: input must have at least 2 dims ([T, B, *]), got shape "
                            f"{list(input._data.shape)}")
    x = _FN["transpose"](input, [1, 0] + list(range(2, input._data.ndim))) if batch_first \
        else input
    steps, batch = x._data.shape[:2]
    if lens.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lens.size} (batch_size={batch})")
    if enforce_sorted:
        if lens.size > 1 and np.any(np.diff(lens) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
        sorted_indices = None
        order = np.arange(batch)
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_indices = _long(order)
    lens_sorted = lens[order]
    if lens.size and lens_sorted[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if lens.size and lens_sorted[0] > steps:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to "
                           f"{lens_sorted[0]} (the longest length), but got {steps}")
    batch_sizes = np.array([(lens_sorted > t).sum() for t in range(lens_sorted[0] if
                                                                    lens.size else 0)],
                           np.int64)
    t_idx, b_idx = _packed_rows(batch_sizes)
    data = _rows(x, t_idx, order[b_idx], batch)
    return PackedSequence(data, _long(batch_sizes), sorted_indices,
                          invert_permutation(sorted_indices))


def _pad_sorted(sequence, padding_value=0.0, total_length=None):
    """(padded [T, B, *] time-major in the packed (sorted) order, lengths array (sorted))."""
    data, bs = sequence.data, np.asarray(sequence.batch_sizes._data)
    batch = int(bs[0]) if bs.size else 0
    steps = bs.size if total_length is None else total_length
    lens = np.array([(bs > b).sum() for b in range(batch)], np.int64)
    t_idx, b_idx = _packed_rows(bs)
    # every padded slot reads a packed row, or the extra padding row appended at the end
    src = np.full((steps, batch), data._data.shape[0], np.int64)
    src[t_idx, b_idx] = np.arange(t_idx.size)
    pad_row = wrap_as(type(data), np.full((1,) + data._data.shape[1:], padding_value,
                                          data._data.dtype))
    rows = _FN["index_select"](_FN["concat"]([data, pad_row], 0), _long(src.reshape(-1)), 0)
    return _FN["reshape"](rows, [steps, batch] + list(data._data.shape[1:])), lens


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """(padded batch [T, B, *] ([B, T, *] with batch_first), lengths) of a PackedSequence, in
    the batch's original order; total_length pads to that many steps."""
    if not isinstance(sequence, PackedSequence):
        raise ArgTypeError(f"pad_packed_sequence: expected a PackedSequence, got "
                           f"{type(sequence).__name__}")
    max_len = int(np.asarray(sequence.batch_sizes._data).size)
    if total_length is not None and total_length < max_len:
        raise ValueError(f"Expected total_length to be at least the length of the longest "
                         f"sequence in input, but got total_length={total_length} and max "
                         f"sequence length being {max_len}")
    padded, lens = _pad_sorted(sequence, padding_value, total_length)
    if sequence.unsorted_indices is not None:
        padded = _FN["index_select"](padded, sequence.unsorted_indices, 1)
        lens = lens[np.asarray(sequence.unsorted_indices._data)]
    if batch_first:
        padded = _FN["transpose"](padded, [1, 0] + list(range(2, padded._data.ndim)))
    return padded, _long(lens)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences [L_i, *] into [max L, B, *] ([B, max L, *] with batch_first), padding
    each with padding_value on the right (or left)."""
    if isinstance(sequences, _CoreTensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for s in sequences:
        if not isinstance(s, _CoreTensor):
            raise ArgTypeError(f"pad_sequence(): expected a list of Tensors, got "
                               f"{type(s).__name__}")
        if s._data.ndim < 1 or s._data.shape[1:] != sequences[0]._data.shape[1:]:
            raise RuntimeError(f"pad_sequence: every sequence must be [L, *] with the same "
                               f"trailing shape, got {[list(t.shape) for t in sequences]}")
    lens = np.array([s._data.shape[0] for s in sequences], np.int64)
    steps, batch, total = int(lens.max()), len(sequences), int(lens.sum())
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
    src = np.full((steps, batch), total, np.int64)
    for b, (start, n) in enumerate(zip(starts, lens)):
        first = 0 if padding_side == "right" else steps - n
        src[first:first + n, b] = np.arange(start, start + n)
    first = sequences[0]
    pad_row = wrap_as(type(first), np.full((1,) + first._data.shape[1:], padding_value,
                                           first._data.dtype))
    rows = _FN["index_select"](_FN["concat"](sequences + [pad_row], 0),
                               _long(src.reshape(-1)), 0)
    out = _FN["reshape"](rows, [steps, batch] + list(first._data.shape[1:]))
    if batch_first:
        out = _FN["transpose"](out, [1, 0] + list(range(2, out._data.ndim)))
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences [L_i, *] cut from a padded batch."""
    x = padded_sequences
    if not batch_first:
        x = _FN["transpose"](x, [1, 0] + list(range(2, x._data.ndim)))
    lens = _lengths_array(lengths, "unpad_sequence")
    return [x[i][:int(n)] for i, n in enumerate(lens)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences [L_i, *] (sorted by decreasing length unless
    enforce_sorted=False)."""
    lengths = [s._data.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences [L_i, *] of a PackedSequence, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
