"""torch.nn.functional / torch.nn losses of the breadth pass: ctc_loss and the margin,
embedding and likelihood losses, with PyTorch 2.13's signatures, defaults, legacy
size_average/reduce and errors over the core (Note [CTC loss op], Note [Composite losses])."""
from __future__ import annotations

import numpy as np

from ...autograd.errors import ArgTypeError, ArgValueError
from ...nn import _losses_more as _L
from ...ops.registry import FUNCTIONS as _FN
from ...tensor import Tensor as _CoreTensor
from .functional import _check_reduction, _legacy, _reduced
from .layers import _Loss, _WeightedLoss

__all__: list[str] = ["ctc_loss", "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "cosine_embedding_loss", "multilabel_soft_margin_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "multi_margin_loss", "multilabel_margin_loss"]
MODULES = ["CTCLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
           "CosineEmbeddingLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss",
           "GaussianNLLLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss"]


def _tensors(fname, **kw):
    for i, (k, v) in enumerate(kw.items()):
        if not isinstance(v, _CoreTensor):
            raise ArgTypeError(f"{fname}(): argument '{k}' (position {i + 1}) must be Tensor, "
                               f"not {type(v).__name__}")


def _red(size_average, reduce, reduction):
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction)
    return reduction


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The CTC loss of log-probabilities [T, N, C] (or unbatched [T, C]) against targets
    padded [N, S] or concatenated; 'mean' divides each loss by its target length (at least
    1) and averages (Note [CTC loss op])."""
    _tensors("ctc_loss", log_probs=log_probs, targets=targets)
    _check_reduction(reduction)
    if log_probs._data.dtype.kind == "f" and log_probs._data.dtype.itemsize < 4:
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{'Half' if log_probs._data.dtype == np.float16 else 'BFloat16'}'")
    batched = log_probs.ndim != 2
    if not batched:
        log_probs = _FN["unsqueeze"](log_probs, 1)
        targets = _CoreTensor._wrap(targets._data.reshape(1, -1))
        input_lengths = [int(np.asarray(getattr(input_lengths, "_data", input_lengths)).reshape(-1)[0])]
        target_lengths = [int(np.asarray(getattr(target_lengths, "_data", target_lengths)).reshape(-1)[0])]
    elif log_probs.ndim != 3:
        raise ArgValueError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional "
                            "tensor for argument #1 'log_probs' (while checking arguments for "
                            "ctc_loss)")
    if targets._data.dtype.kind == "f":       # torch reads floating targets as indices
        targets = _CoreTensor._wrap(targets._data.astype(np.int64))
    nll = _L.ctc_nll(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
    if not batched and reduction == "none":
        return nll.reshape([])
    if reduction == "mean":
        tl = (target_lengths._data if isinstance(target_lengths, _CoreTensor)
              else np.asarray(target_lengths))
        den = np.maximum(tl.reshape(-1), 1).astype(log_probs._data.dtype)
        return (nll / _CoreTensor._wrap(den)).mean()
    return _reduced(nll, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target (input1 - input2) + margin), reduced."""
    reduction = _red(size_average, reduce, reduction)
    _tensors("margin_ranking_loss", input1=input1, input2=input2, target=target)
    if not input1.ndim == input2.ndim == target.ndim:
        raise ArgValueError(f"margin_ranking_loss : All input tensors should have same "
                            f"dimension but got sizes: input1: {list(input1.shape)}, input2: "
                            f"{list(input2.shape)}, target: {list(target.shape)} ")
    _L._check_shapes("margin_ranking_loss", ArgValueError, input1, input2, target)
    return _reduced(_L.margin_ranking(input1, input2, target, margin), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1, reduced."""
    reduction = _red(size_average, reduce, reduction)
    _tensors("hinge_embedding_loss", input=input, target=target)
    _L._check_shapes("hinge_embedding_loss", ArgValueError, input, target)
    return _reduced(_L.hinge_embedding(input, target, margin), reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target input)), reduced."""
    reduction = _red(size_average, reduce, reduction)
    _tensors("soft_margin_loss", input=input, target=target)
    if target.requires_grad:      # a native op in torch, with no derivative for target
        raise ArgValueError("The function 'soft_margin_loss' is not differentiable with "
                            "respect to argument 'target'. This input cannot have "
                            "requires_grad True.")
    _L._check_shapes("soft_margin_loss", ArgValueError, input, target)
    out = _L.soft_margin_op(input, target, reduction)
    return _reduced(_L.soft_margin(input, target), reduction) if out is None else out


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    reduction = _red(size_average, reduce, reduction)
    _tensors("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    if input1.ndim != input2.ndim:
        raise ArgValueError(f"cosine_embedding_loss: input1 and input2 must have the same "
                            f"number of dimensions, got {input1.ndim}D and {input2.ndim}D")
    if input1.ndim not in (1, 2) or target.ndim != input1.ndim - 1:
        raise ArgValueError(f"{input1.ndim}D target tensor expects {input1.ndim - 1}D input "
                            f"tensors, but found inputs with sizes {list(input1.shape)} and "
                            f"{list(input2.shape)}.")
    _L._check_shapes("cosine_embedding_loss", ArgValueError, input1, input2)
    return _reduced(_L.cosine_embedding(input1, input2, target, margin, 1e-12), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """-(t log sigmoid(x) + (1 - t) log sigmoid(-x)) averaged over the classes, reduced."""
    reduction = _red(size_average, reduce, reduction)
    _tensors("multilabel_soft_margin_loss", input=input, target=target)
    _L._check_shapes("multilabel_soft_margin_loss", ArgValueError, input, target)
    return _reduced(_L.multilabel_soft_margin(input, target, weight), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log-likelihood of target given rate input (or log-rate)."""
    reduction = _red(size_average, reduce, reduction)
    _tensors("poisson_nll_loss", input=input, target=target)
    _L._check_shapes("poisson_nll_loss", ArgValueError, input, target)
    return _reduced(_L.poisson_nll(input, target, log_input, full, eps), reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log-likelihood of target with mean input and variance var."""
    _tensors("gaussian_nll_loss", input=input, target=target, var=var)
    var = _L.gaussian_var(input, var, "gaussian_nll_loss", ArgValueError)
    _check_reduction(reduction)
    _L._check_shapes("gaussian_nll_loss", ArgValueError, input, target, var)
    return _reduced(_L.gaussian_nll(input, target, var, full, eps), reduction)


def _triplet_dims(a, p, n):
    if not a.ndim == p.ndim == n.ndim:
        raise ArgValueError(f"The anchor, positive, and negative tensors are expected to have "
                            f"the same number of dimensions, but got: anchor {a.ndim}D, "
                            f"positive {p.ndim}D, and negative {n.ndim}D inputs")
    _L._check_shapes("triplet_margin_loss", ArgValueError, a, p, n)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance."""
    reduction = _red(size_average, reduce, reduction)
    _tensors("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    _triplet_dims(anchor, positive, negative)
    return _reduced(_L.triplet_margin(anchor, positive, negative, margin, swap,
                                      lambda a, b: _L.pairwise_distance(a, b, p, eps)),
                    reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """triplet_margin_loss with any distance function (pairwise_distance by default)."""
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater "
                         f"than 0, got {margin} instead")
    _tensors("triplet_margin_with_distance_loss", anchor=anchor, positive=positive,
             negative=negative)
    _triplet_dims(anchor, positive, negative)
    dist = distance_function or (lambda a, b: _L.pairwise_distance(a, b, 2.0, 1e-6))
    return _reduced(_L.triplet_margin(anchor, positive, negative, margin, swap, dist),
                    reduction)


def _class_rows(input, target, fname, per_row):
    """(N, C) input and its targets as an int64 array ((C,) input: one row)."""
    _tensors(fname, input=input, target=target)
    if target._data.dtype.kind not in "iu":
        raise ArgTypeError(f"{fname}: expected scalar type Long but found {target.dtype}")
    if input.ndim > 2 or input.numel() == 0:
        raise ArgValueError(f"{fname}: Expected non-empty vector or matrix with optional "
                            f"0-dim batch size, but got: {list(input.shape)}")
    x = input if input.ndim == 2 else input.reshape([1, -1])     # (C,) or 0-d: one row
    n, c = x.shape
    t = target._data.astype(np.int64)
    want = (n, c) if per_row == "matrix" else (n,)
    if (input.ndim == 2 and t.shape != want) or (input.ndim < 2 and t.size != np.prod(want)):
        raise ArgValueError(f"{fname}: inconsistent target size: {list(target.shape)} for "
                            f"input of size: {list(input.shape)}")
    t = t.reshape(want)
    lo = -1 if per_row == "matrix" else 0
    if t.size and ((t < lo).any() or (t >= c).any()):
        raise ArgValueError(f"{fname}: target out of range: {t.min()}..{t.max()} for {c} "
                            "classes")
    return x, t


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """sum over i != y of max(0, margin - x[y] + x[i]) ** p (times weight[y]) / C."""
    reduction = _red(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x, t = _class_rows(input, target, "multi_margin_loss", "vector")
    if weight is None or not weight.requires_grad:
        out = _L.margin_op(_L.MULTI_MARGIN_LOSS, input,
                           (t.reshape(-1), p, margin,
                            None if weight is None else weight._data, reduction))
        if out is not None:
            return out
    loss = _L.multi_margin(x, t, p, margin, weight)
    if input.ndim < 2:
        loss = loss.reshape([])
    return _reduced(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C."""
    reduction = _red(size_average, reduce, reduction)
    x, t = _class_rows(input, target, "multilabel_margin_loss", "matrix")
    out = _L.margin_op(_L.MULTILABEL_MARGIN_LOSS, input, (t, reduction))
    if out is not None:
        return out
    loss = _L.multilabel_margin(x, t)
    if input.ndim < 2:
        loss = loss.reshape([])
    return _reduced(loss, reduction)


# ------------------------------------------------------------------ modules
class CTCLoss(_Loss):
    """The connectionist temporal classification loss (ctc_loss)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        """ctc_loss with this module's blank, reduction and zero_infinity."""
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)


class MarginRankingLoss(_Loss):
    """max(0, -target (input1 - input2) + margin)."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        """margin_ranking_loss(input1, input2, target)."""
        return margin_ranking_loss(input1, input2, target, margin=self.margin,
                                   reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """input where target is 1, max(0, margin - input) where it is -1."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        """hinge_embedding_loss(input, target)."""
        return hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-target input))."""

    def forward(self, input, target):
        """soft_margin_loss(input, target)."""
        return soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """1 - cos where target is 1, max(0, cos - margin) where it is -1."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        """cosine_embedding_loss(input1, input2, target)."""
        return cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss."""

    def forward(self, input, target):
        """multilabel_soft_margin_loss(input, target)."""
        return multilabel_soft_margin_loss(input, target, weight=self.weight,
                                           reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        """poisson_nll_loss(log_input, target)."""
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        """gaussian_nll_loss(input, target, var)."""
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                 reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, margin + d(anchor, positive) - d(anchor, negative))."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                 reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        """triplet_margin_loss(anchor, positive, negative)."""
        return triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                   eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """triplet_margin_loss with any distance function."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = distance_function
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        """triplet_margin_with_distance_loss(anchor, positive, negative)."""
        return triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss."""

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        """multi_margin_loss(input, target)."""
        return multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                 weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss."""

    def forward(self, input, target):
        """multilabel_margin_loss(input, target)."""
        return multilabel_margin_loss(input, target, reduction=self.reduction)
