"""paddle.metric: accuracy() and the Metric classes paddle.Model reports (Accuracy,
Precision, Recall, Auc).

A Metric turns a batch's network outputs and labels into statistics in two steps, as in
Paddle: compute(pred, label) runs on tensors (here: which of the top-k predictions are the
label), update(...) takes its result as NumPy arrays, adds it to the running totals and returns
the batch's value; accumulate() gives the value over every batch since reset(). The values are
NumPy/Python numbers of the same types Paddle returns (np.float64 for an accuracy).
"""
from __future__ import annotations

import abc

import numpy as np

from .autograd import grad_mode
from .autograd.errors import ArgTypeError, ArgValueError
from .tensor import Tensor

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


class _MetricArgError(ArgTypeError, ValueError):
    """A metric given something that is not a tensor / array (Paddle: ValueError)."""


def _array(value, op, name):
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    raise _MetricArgError(f"{op}: The '{name}' must be a numpy ndarray or Tensor, got "
                          f"{type(value).__name__}")


def _top_indices(scores, k):
    """Indices of the k largest entries along the last axis, largest first; among equal
    scores the lower index first (Paddle's topk / descending argsort)."""
    order = np.argsort(-scores, axis=-1, kind="stable")
    return order[..., :k]


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """The fraction (a 0-d float32 tensor) of the rows of input ([N, C] scores) whose top-k
    entries include the row's label ([N, 1] integers). `correct` / `total`, when given, are
    tensors that receive the counts."""
    op = "accuracy"
    if not isinstance(input, Tensor):
        raise _MetricArgError(f"{op}(): input must be a Tensor of scores [N, C], got "
                              f"{type(input).__name__}")
    if not isinstance(label, Tensor):
        raise _MetricArgError(f"{op}(): label must be a Tensor of class indices [N, 1], got "
                              f"{type(label).__name__}")
    if input.dtype.name not in ("float16", "float32", "float64"):
        raise ArgTypeError(f"{op}(): input must be floating point scores, got {input.dtype.name}")
    if label.dtype.name not in ("int32", "int64"):
        raise _MetricArgError(f"{op}(): label must be int32 or int64 class indices, got "
                              f"{label.dtype.name}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ArgValueError(f"{op}(): k must be a positive integer, got {k!r}")
    x, lab = input._data, label._data
    if x.ndim != 2:
        raise ArgValueError(f"{op}(): input must have rank 2, [sample_number, class_dim], got "
                            f"shape {list(x.shape)}")
    if lab.ndim != 2 or lab.shape[1] != 1:
        raise ArgValueError(f"{op}(): label's shape must be [N, 1], got {list(lab.shape)}. "
                            "Fix: label.reshape([-1, 1])")
    if lab.shape[0] != x.shape[0]:
        raise ArgValueError(f"{op}(): input has {x.shape[0]} rows but label has "
                            f"{lab.shape[0]} (shapes {list(x.shape)} and {list(lab.shape)})")
    if k > x.shape[1]:
        raise ArgValueError(f"{op}(): k ({k}) must not exceed the number of classes "
                            f"({x.shape[1]}) of input {list(x.shape)}")
    for t, what in ((correct, "correct"), (total, "total")):
        if t is not None and (not isinstance(t, Tensor) or t.numel() != 1):
            raise ArgTypeError(f"{op}(): {what} must be a one-element tensor that receives the "
                               f"count, got {type(t).__name__}")
    hits = int(np.sum(np.any(_top_indices(x, int(k)) == lab, axis=1)))
    n = x.shape[0]
    with grad_mode.no_grad():
        if correct is not None:
            correct.fill_(hits)
        if total is not None:
            total.fill_(n)
    value = np.float32(hits) / np.float32(n) if n else np.float32(0.0)
    return Tensor._wrap(np.asarray(value, dtype=np.float32))


class Metric(metaclass=abc.ABCMeta):
    """Base class of metrics: subclasses define reset, update, accumulate and name, and may
    define compute (which runs on the tensors before update; by default it passes its
    arguments through)."""

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        """Clears the running statistics."""
        raise NotImplementedError(f"function 'reset' not implemented in "
                                  f"{type(self).__name__}.")

    @abc.abstractmethod
    def update(self, *args):
        """Adds one batch (the outputs of compute, as NumPy arrays) to the statistics."""
        raise NotImplementedError(f"function 'update' not implemented in "
                                  f"{type(self).__name__}.")

    @abc.abstractmethod
    def accumulate(self):
        """The metric over every batch since reset()."""
        raise NotImplementedError(f"function 'accumulate' not implemented in "
                                  f"{type(self).__name__}.")

    @abc.abstractmethod
    def name(self):
        """The metric's name (a string or a list of strings)."""
        raise NotImplementedError(f"function 'name' not implemented in "
                                  f"{type(self).__name__}.")

    def compute(self, *args):
        """Pre-processes the network outputs and labels (tensors) for update()."""
        return args


class Accuracy(Metric):
    """Top-k classification accuracy for each k in topk (names 'acc', or 'acc_top1',
    'acc_top5', ... for several k)."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        topk = tuple(topk) if isinstance(topk, (list, tuple)) else (topk,)
        if not topk or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1
                           for k in topk):
            raise ArgValueError(f"Accuracy: topk must be positive integers, got {topk!r}")
        self.topk = topk
        self.maxk = max(topk)
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in topk] if self.maxk != 1 else [name]
        self.reset()

    def compute(self, pred, label, *args):
        """[N, maxk] float32: 1 where the i-th highest score of a row is at the label's class
        (label [N] or [N, 1] class indices, or one-hot [N, C])."""
        if not isinstance(pred, Tensor) or not isinstance(label, Tensor):
            raise _MetricArgError(f"Accuracy.compute: pred and label must be Tensors, got "
                                  f"{type(pred).__name__} and {type(label).__name__}")
        p, lab = pred._data, label._data
        if p.ndim == 0 or self.maxk > p.shape[-1]:
            raise ArgValueError(f"Accuracy.compute: pred of shape {list(p.shape)} has fewer "
                                f"than topk={self.maxk} classes on its last axis")
        top = _top_indices(p, self.maxk)
        if lab.ndim == 1 or (lab.ndim == 2 and lab.shape[-1] == 1):
            lab = lab.reshape(-1, 1)
        else:                                   # one-hot labels
            lab = np.argmax(lab, axis=-1)[..., None]
        try:
            hit = top == lab.astype(top.dtype)
        except ValueError:
            raise ArgValueError(f"Accuracy.compute: pred {list(p.shape)} and label "
                                f"{list(label.shape)} do not match (one label per row)") from None
        return Tensor._wrap(hit.astype(np.float32))

    def update(self, correct, *args):
        """Adds a batch of compute()'s result; returns its accuracy (a float, or one per k)."""
        correct = _array(correct, "Accuracy.update", "correct")
        num_samples = np.prod(np.array(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = correct[..., :k].sum()
            accs.append(float(num_corrects) / num_samples)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        """Clears the counts."""
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        """The accuracy over every batch since reset() (0.0 before any)."""
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        """The list of names, one per k."""
        return self._name


class Precision(Metric):
    """Binary precision tp / (tp + fp); predictions are probabilities rounded at 0.5."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels):
        """Adds a batch of predicted probabilities [N] or [N, 1] and 0/1 labels."""
        preds = _array(preds, "Precision.update", "preds")
        labels = _array(labels, "Precision.update", "labels")
        preds = np.floor(preds + 0.5).astype("int32").reshape(len(preds), -1)[:, 0]
        labels = labels.reshape(len(labels), -1)[:, 0]
        for pred, label in zip(preds, labels):
            if pred == 1:
                if pred == label:
                    self.tp += 1
                else:
                    self.fp += 1

    def reset(self):
        """Clears the counts."""
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        """The precision since reset() (0.0 when nothing was predicted positive)."""
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0

    def name(self):
        """The metric's name."""
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn); predictions are probabilities rounded to 0 or 1."""

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels):
        """Adds a batch of predicted probabilities [N] or [N, 1] and 0/1 labels."""
        preds = _array(preds, "Recall.update", "preds")
        labels = _array(labels, "Recall.update", "labels")
        preds = np.rint(preds).astype("int32").reshape(len(preds), -1)[:, 0]
        labels = labels.reshape(len(labels), -1)[:, 0]
        for pred, label in zip(preds, labels):
            if label == 1:
                if pred == label:
                    self.tp += 1
                else:
                    self.fn += 1

    def reset(self):
        """Clears the counts."""
        self.tp = 0
        self.fn = 0

    def accumulate(self):
        """The recall since reset() (0.0 when there was no positive label)."""
        total = self.tp + self.fn
        return float(self.tp) / total if total != 0 else 0.0

    def name(self):
        """The metric's name."""
        return self._name


class Auc(Metric):
    """Area under the ROC curve of binary predictions ([N, 2] class probabilities; column 1 is
    the positive class), from histograms of num_thresholds buckets."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        if curve != "ROC":
            raise NotImplementedError(f"Auc: curve={curve!r} is not supported (only 'ROC')")
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) \
                or num_thresholds < 1:
            raise ArgValueError(f"Auc: num_thresholds must be a positive integer, got "
                                f"{num_thresholds!r}")
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._name = name
        self.reset()

    def update(self, preds, labels):
        """Adds a batch of [N, 2] probabilities and N labels (0 or 1)."""
        labels = _array(labels, "Auc.update", "labels")
        preds = _array(preds, "Auc.update", "preds")
        if preds.ndim != 2 or preds.shape[1] < 2 or len(preds) != len(labels):
            raise ArgValueError(f"Auc.update: preds must be [N, 2] probabilities with one "
                                f"label per row, got {list(preds.shape)} and {list(labels.shape)}")
        for i, lbl in enumerate(labels.reshape(len(labels), -1)[:, 0]):
            value = preds[i, 1]
            if not 0.0 <= value <= 1.0:
                raise ArgValueError(f"Auc.update: probabilities must lie in [0, 1], got {value}")
            bin_idx = int(value * self._num_thresholds)
            if lbl:
                self._stat_pos[bin_idx] += 1.0
            else:
                self._stat_neg[bin_idx] += 1.0

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        """The area of the trapezoid between x1 and x2 under heights y1, y2."""
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        """The area under the ROC curve since reset() (0.0 without both classes)."""
        tot_pos = tot_neg = auc = 0.0
        for idx in range(self._num_thresholds, -1, -1):
            prev_pos, prev_neg = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += self.trapezoid_area(tot_neg, prev_neg, tot_pos, prev_pos)
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def reset(self):
        """Clears the histograms."""
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        """The metric's name."""
        return self._name
