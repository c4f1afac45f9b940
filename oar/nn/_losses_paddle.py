"""Paddle door losses of the breadth pass: ctc_loss and the margin, embedding and likelihood
losses, with Paddle 3.3.1's argument names, defaults and reductions over the core
(Note [CTC loss op], Note [Composite losses])."""
from __future__ import annotations

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from . import _checks as _c
from . import _losses_more as _L
from .layers import Layer

__all__ = ["ctc_loss", "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "cosine_embedding_loss", "multi_label_soft_margin_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "multi_margin_loss", "multi_label_margin_loss"]
LAYERS = ["CTCLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
          "CosineEmbeddingLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss",
          "GaussianNLLLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
          "MultiMarginLoss", "MultiLabelMarginLoss"]


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _tensors(op, **kw):
    for k, v in kw.items():
        if not isinstance(v, Tensor):
            raise ArgTypeError(f"{op}: {k} must be a Tensor, not {type(v).__name__}")


def _same(op, *ts):
    shapes = [tuple(t.shape) for t in ts]
    if len(set(shapes)) != 1:
        raise ArgValueError(f"{op}: the operands must have one shape, got "
                            f"{', '.join(str(list(s)) for s in shapes)}")


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False, zero_infinity=False):
    """Paddle's CTC loss: log_probs are unnormalised scores [T, N, C] (softmax applied inside,
    as warpctc), labels int32 [N, S], lengths int64; an impossible alignment costs 0 (warpctc);
    'mean' divides each loss by its label length and averages; norm_by_times scales each
    sample's gradient by 1 / its input length (Note [CTC loss op])."""
    from . import functional as F
    _c.reduction(reduction, "ctc_loss")
    _tensors("ctc_loss", log_probs=log_probs, labels=labels, input_lengths=input_lengths,
             label_lengths=label_lengths)
    if labels._data.dtype != np.int32:
        raise ArgValueError(f"ctc_loss: labels must be int32, got {labels.dtype}. Fix: "
                            "labels.astype('int32')")
    for k, v in (("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        if v._data.dtype != np.int64:
            raise ArgValueError(f"ctc_loss: {k} must be int64, got {v.dtype}. Fix: "
                                f"{k}.astype('int64')")
    if log_probs.ndim != 3:
        raise ArgValueError(f"ctc_loss: log_probs must be [max_logit_length, batch_size, "
                            f"num_classes + 1], got shape {list(log_probs.shape)}")
    if labels.ndim != 2:
        raise ArgValueError(f"ctc_loss: labels must be padded [batch_size, max_label_length], "
                            f"got shape {list(labels.shape)}")
    il = input_lengths._data.reshape(-1)
    scale = (1.0 / np.maximum(il, 1)) if norm_by_times else None
    nll = _L.ctc_nll(F.log_softmax(log_probs, -1), labels, input_lengths, label_lengths, blank,
                     True, grad_scale=scale)
    if reduction == "mean":
        den = label_lengths._data.reshape(-1).astype(log_probs._data.dtype)
        return (nll / Tensor._wrap(den)).mean()
    return _reduce(nll, reduction)


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """max(0, -label (input - other) + margin), reduced."""
    _c.reduction(reduction, "margin_ranking_loss")
    _tensors("margin_ranking_loss", input=input, other=other, label=label)
    _L._check_shapes("margin_ranking_loss", ArgValueError, input, other, label)
    return _reduce(_L.margin_ranking(input, other, label, margin), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label is 1, max(0, margin - input) where it is -1, reduced."""
    _c.reduction(reduction, "hinge_embedding_loss")
    _tensors("hinge_embedding_loss", input=input, label=label)
    _L._check_shapes("hinge_embedding_loss", ArgValueError, input, label)
    return _reduce(_L.hinge_embedding(input, label, margin), reduction)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label input)), reduced."""
    _c.reduction(reduction, "soft_margin_loss")
    _tensors("soft_margin_loss", input=input, label=label)
    _same("soft_margin_loss", input, label)
    return _reduce(_L.soft_margin(input, label), reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(input1, input2) where label is 1, max(0, cos - margin) where it is -1."""
    _c.reduction(reduction, "cosine_embedding_loss")
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, label=label)
    if tuple(input1.shape) != tuple(input2.shape):
        raise ArgValueError(f"cosine_embedding_loss: the shape of input1 "
                            f"{list(input1.shape)} and input2 {list(input2.shape)} should be "
                            "equal")
    if input1.ndim not in (1, 2) or label.ndim != input1.ndim - 1 or (
            input1.ndim == 2 and label.shape[0] != input1.shape[0]):
        raise ArgValueError(f"cosine_embedding_loss: label of shape {list(label.shape)} does "
                            f"not match inputs of shape {list(input1.shape)} (1-D label [N] "
                            "for [N, M] inputs, 0-D for [M])")
    return _reduce(_L.cosine_embedding(input1, input2, label, margin, 10e-12), reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)) averaged over the classes, reduced."""
    _c.reduction(reduction, "multi_label_soft_margin_loss")
    _tensors("multi_label_soft_margin_loss", input=input, label=label)
    _same("multi_label_soft_margin_loss", input, label)
    return _reduce(_L.multilabel_soft_margin(input, label, weight), reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean",
                     name=None):
    """Poisson negative log-likelihood of label given rate input (or log-rate)."""
    _c.reduction(reduction, "poisson_nll_loss")
    _tensors("poisson_nll_loss", input=input, label=label)
    if epsilon <= 0:
        raise ArgValueError(f"poisson_nll_loss: epsilon must be positive, got {epsilon}")
    _same("poisson_nll_loss", input, label)
    return _reduce(_L.poisson_nll(input, label, log_input, full, epsilon), reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean",
                      name=None):
    """Gaussian negative log-likelihood of label with mean input and variance; variance
    takes no gradient (Paddle clamps it under no_grad into a new tensor)."""
    _c.reduction(reduction, "gaussian_nll_loss")
    _tensors("gaussian_nll_loss", input=input, label=label, variance=variance)
    variance = _L.gaussian_var(input, variance, "gaussian_nll_loss", ArgValueError)
    _L._check_shapes("gaussian_nll_loss", ArgValueError, input, label, variance)
    return _reduce(_L.gaussian_nll(input, label, variance, full, epsilon,
                                     var_grad=False), reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False,
                        reduction="mean", name=None):
    """max(0, margin + d(input, positive) - d(input, negative)), d the p-norm distance."""
    _c.reduction(reduction, "triplet_margin_loss")
    _tensors("triplet_margin_loss", input=input, positive=positive, negative=negative)
    _same("triplet_margin_loss", input, positive, negative)
    return _reduce(_L.triplet_margin(input, positive, negative, margin, swap,
                                     lambda a, b: _L.pairwise_distance(a, b, p, epsilon)),
                   reduction)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean", name=None):
    """triplet_margin_loss with any distance function (the 2-norm distance by default)."""
    _c.reduction(reduction, "triplet_margin_with_distance_loss")
    _tensors("triplet_margin_with_distance_loss", input=input, positive=positive,
             negative=negative)
    _same("triplet_margin_with_distance_loss", input, positive, negative)
    dist = distance_function or (lambda a, b: _L.pairwise_distance(a, b, 2.0, 1e-6))
    return _reduce(_L.triplet_margin(input, positive, negative, margin, swap, dist),
                   reduction)


def _class_rows(input, label, op, matrix):
    if label._data.dtype.kind not in "iu":
        raise ArgTypeError(f"{op}: label must hold integer class indices, got {label.dtype}")
    if input.ndim != 2:
        raise ArgValueError(f"{op}: input must be [N, C], got shape {list(input.shape)}")
    n, c = input.shape
    t = label._data.astype(np.int64)
    want = (n, c) if matrix else (n,)
    if t.shape != want and not (not matrix and t.shape == (n, 1)):
        raise ArgValueError(f"{op}: label of shape {list(label.shape)} does not match input "
                            f"of shape {list(input.shape)} (expected {list(want)})")
    t = t.reshape(want)
    if t.size and ((t < (-1 if matrix else 0)).any() or (t >= c).any()):
        raise ArgValueError(f"{op}: label values must be in [0, {c}), got "
                            f"{int(t.min())}..{int(t.max())}")
    return t


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean",
                      name=None):
    """sum over i != y of max(0, margin - x[y] + x[i]) ** p (times weight[y]) / C."""
    _c.reduction(reduction, "multi_margin_loss")
    _tensors("multi_margin_loss", input=input, label=label)
    if p not in (1, 2):
        raise ArgValueError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    t = _class_rows(input, label, "multi_margin_loss", False)
    if weight is not None and tuple(weight.shape) != (input.shape[1],):
        raise ArgValueError(f"multi_margin_loss: weight of shape {list(weight.shape)} must "
                            f"be [{input.shape[1]}] (one entry per class)")
    return _reduce(_L.multi_margin(input, t, p, margin, weight), reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):
    """sum over label classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C."""
    _c.reduction(reduction, "multi_label_margin_loss")
    _tensors("multi_label_margin_loss", input=input, label=label)
    t = _class_rows(input, label, "multi_label_margin_loss", True)
    return _reduce(_L.multilabel_margin(input, t), reduction)


# ------------------------------------------------------------------ layers
class _Loss(Layer):
    def __init__(self, reduction="mean", **kw):
        super().__init__()
        self.reduction = _c.reduction(reduction, type(self).__name__)
        for k, v in kw.items():
            setattr(self, k, v)


class CTCLoss(_Loss):
    """Paddle's CTC loss layer (ctc_loss; norm_by_times is an argument of forward)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction, blank=blank, zero_infinity=zero_infinity)

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        """ctc_loss with this layer's blank and reduction."""
        return ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                        self.reduction, norm_by_times, self.zero_infinity)


class MarginRankingLoss(_Loss):
    """max(0, -label (input - other) + margin)."""

    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__(reduction, margin=margin)

    def forward(self, input, other, label):
        """margin_ranking_loss(input, other, label)."""
        return margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(_Loss):
    """input where label is 1, max(0, margin - input) where it is -1."""

    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__(reduction, margin=margin)

    def forward(self, input, label):
        """hinge_embedding_loss(input, label)."""
        return hinge_embedding_loss(input, label, self.margin, self.reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-label input))."""

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        """soft_margin_loss(input, label)."""
        return soft_margin_loss(input, label, self.reduction)


class CosineEmbeddingLoss(_Loss):
    """1 - cos where label is 1, max(0, cos - margin) where it is -1."""

    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__(reduction, margin=margin)

    def forward(self, input1, input2, label):
        """cosine_embedding_loss(input1, input2, label)."""
        return cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """Multi-label one-versus-all logistic loss."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction, weight=weight)

    def forward(self, input, label):
        """multi_label_soft_margin_loss(input, label)."""
        return multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood."""

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        super().__init__(reduction, log_input=log_input, full=full, epsilon=epsilon)

    def forward(self, input, label):
        """poisson_nll_loss(input, label)."""
        return poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon,
                                self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood."""

    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        super().__init__(reduction, full=full, epsilon=epsilon)

    def forward(self, input, label, variance):
        """gaussian_nll_loss(input, label, variance)."""
        return gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                 self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, margin + d(input, positive) - d(input, negative))."""

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean",
                 name=None):
        super().__init__(reduction, margin=margin, p=p, epsilon=epsilon, swap=swap)

    def forward(self, input, positive, negative):
        """triplet_margin_loss(input, positive, negative)."""
        return triplet_margin_loss(input, positive, negative, self.margin, self.p,
                                   self.epsilon, self.swap, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """triplet_margin_loss with any distance function."""

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean",
                 name=None):
        super().__init__(reduction, distance_function=distance_function, margin=margin,
                         swap=swap)

    def forward(self, input, positive, negative):
        """triplet_margin_with_distance_loss(input, positive, negative)."""
        return triplet_margin_with_distance_loss(input, positive, negative,
                                                 self.distance_function, self.margin,
                                                 self.swap, self.reduction)


class MultiMarginLoss(_Loss):
    """Multi-class hinge loss."""

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__(reduction, p=p, margin=margin, weight=weight)

    def forward(self, input, label):
        """multi_margin_loss(input, label)."""
        return multi_margin_loss(input, label, self.p, self.margin, self.weight,
                                 self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss."""

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        """multi_label_margin_loss(input, label)."""
        return multi_label_margin_loss(input, label, self.reduction)
