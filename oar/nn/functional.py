"""oar.nn.functional: the functional forms of the layers (Paddle and PyTorch spellings)."""
from __future__ import annotations

import numpy as np

from .. import _xp
from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError, AxisError
from ..ops import args as _args
from ..ops import elision as _elision
from ..ops import registry as R
from ..tensor import Tensor
from . import _activation_ops as _A
from . import _checks as _c
from ._kernels import (adaptive_avg_pool2d, avg_pool2d, max_pool2d, pad)  # noqa: F401
from . import _kernels as _K

_F = R.FUNCTIONS


def _tensor_in(x, op, floating=False):
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"{op}(): argument 'input' must be a Tensor, not {type(x).__name__}")
    if floating and not R._dt.is_float(x._data.dtype):
        raise ArgTypeError(f"{op}(): expected a floating input, got {x.dtype.name}. Fix: "
                           "x.astype('float32')")
    return x


def relu(x, inplace=False, name=None):
    """Elementwise max(x, 0); in place on x (returning x) when inplace=True."""
    _tensor_in(x, "relu")
    return x.relu_() if inplace else x.relu()


def relu_(x, name=None):
    """Elementwise max(x, 0) written into x, in place; returns x."""
    _tensor_in(x, "relu_")
    return x.relu_()


def leaky_relu(x, negative_slope=0.01, inplace=False, name=None):
    """Elementwise x where x > 0, else negative_slope * x (in place when inplace=True)."""
    if inplace:
        return leaky_relu_(x, negative_slope)
    if isinstance(negative_slope, (int, float)) and negative_slope >= 0:
        from ._kernels import LEAKY_OUT     # Note [Activation and normalization ops]
        _tensor_in(x, "leaky_relu")
        return R.dispatch(LEAKY_OUT, (x,), (negative_slope,),
                          (0,) if _elision.donated(x) else ())   # Note [Donated activations]
    return _F["leaky_relu"](x, negative_slope)


def leaky_relu_(x, negative_slope=0.01, name=None):
    """Elementwise leaky_relu written into x, in place; returns x. Paddle's gradient stays
    exact whatever later changes x (a chain of leaky_relu_, a scale_ after it): the backward
    reads a mask of x > 0 saved before the write (Note [Paddle leaky_relu_ keeps a mask]);
    the PyTorch door's form reads the result instead (_leaky_relu_result_)."""
    from ._kernels import LEAKY_MASK
    _tensor_in(x, "leaky_relu_")
    slope = _args.number(negative_slope, "leaky_relu_", "negative_slope", allow_bool=False)
    mask = Tensor._wrap(x._data > 0) if x.requires_grad and grad_mode.is_grad_enabled() \
        else None
    return _save_mask(R.dispatch_inplace(LEAKY_MASK, (x,), (slope,), "leaky_relu_"),
                      LEAKY_MASK, mask)


def _save_mask(y, op, mask):
    """y, after setting mask as the saved tensor of op's node (Note [Paddle leaky_relu_ keeps
    a mask]); mask None: nothing recorded."""
    from ..autograd.saved import SavedTensor
    if mask is not None:
        # the op's node: y's own, or, after a write through a view, the fn of the base's
        # CopySlices node
        heads = [y._grad_fn, y._base._grad_fn if y._base is not None else None]
        for node in heads + [getattr(h, "fn", None) for h in heads]:
            if getattr(node, "op", None) is op:
                node.saved = [SavedTensor(mask)]
                break
    return y


def _leaky_relu_result_(x, negative_slope=0.01):
    """PyTorch's leaky_relu_: LeakyReluBackward1, whose backward reads the result (Note
    [Activation and normalization ops]), so a later in-place change of it is caught at
    backward, and a negative slope raises there, as PyTorch's."""
    from ._kernels import LEAKY_RESULT
    _tensor_in(x, "leaky_relu_")
    slope = _args.number(negative_slope, "leaky_relu_", "negative_slope", allow_bool=False)
    return R.dispatch_inplace(LEAKY_RESULT, (x,), (slope,), "leaky_relu_")


def sigmoid(x, name=None):
    """Elementwise logistic sigmoid, 1 / (1 + e**-x)."""
    return _tensor_in(x, "sigmoid").sigmoid()


def tanh(x, name=None):
    """Elementwise hyperbolic tangent."""
    return _tensor_in(x, "tanh").tanh()


def tanh_(x, name=None):
    """Elementwise hyperbolic tangent written into x, in place; returns x."""
    return x.tanh_()


def gelu(x, approximate=False, name=None):
    """Elementwise Gaussian error linear unit (approximate=True or 'tanh': tanh form)."""
    if isinstance(approximate, str):
        if approximate not in ("none", "tanh"):
            raise ArgValueError(f"gelu: approximate argument must be either 'none' or 'tanh', "
                                f"got {approximate!r}")
        approximate = approximate == "tanh"
    _tensor_in(x, "gelu")
    _A.floating_only(x, "gelu")
    return _F["gelu"](x, bool(approximate))


def _softmax(x, axis, dtype, log):
    """softmax / log_softmax as one op (Note [Activation and normalization ops]): x cast to
    dtype first when given; a 0-d x takes axis 0 or -1."""
    op = "log_softmax" if log else "softmax"
    _tensor_in(x, op)
    ax = _args.axis(axis, max(x._data.ndim, 1), op, "dim")
    if dtype is not None:
        x = x.astype(dtype)
    return _A.softmax_op(x, ax if x._data.ndim else None, log)


def log_softmax(x, axis=-1, dtype=None, name=None, *, dim=None):
    """log(softmax(x)) along axis, computed stably; one op saving its result."""
    return _softmax(x, axis if dim is None else dim, dtype, True)


def softmax(x, axis=-1, dtype=None, name=None, *, dim=None):
    """exp(x) normalised to sum to 1 along axis; one op saving its result."""
    return _softmax(x, axis if dim is None else dim, dtype, False)


# Note [Linear weight layout]
# Paddle stores a Linear weight as [in_features, out_features] (y = x @ W + b), PyTorch as
# [out_features, in_features] (y = x @ W.T + b). One op computes both: its `out_in` attr says
# which layout the weight has, so the PyTorch door's F.linear is this kernel (no transposed
# view, no second node) and each door's state dicts load into the real framework.
def _k_linear(x, w, b, out_in):
    y = np.matmul(x, w.T if out_in else w)
    if b is not None:
        y += b          # into the fresh matmul result: no second buffer
    return y


def _b_linear(c, g):
    x = c.input(0) if c.needs[1] else None
    w = c.input(1) if c.needs[0] else None
    out_in = c.attrs[0]
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        gx = (g @ w if out_in else g @ w.mT) if w is not None else None
        gw = None
        if x is not None:
            x2, g2 = x.reshape([-1, x.shape[-1]]), g.reshape([-1, g.shape[-1]])
            gw = g2.mT @ x2 if out_in else x2.mT @ g2
        gb = g.reshape([-1, g.shape[-1]]).sum(axis=0) if c.needs[2] else None
        return gx, gw, gb
    gd = g._data
    gx = None
    if w is not None:
        gx = Tensor._wrap(_xp.result_array(gd @ (w._data if out_in else w._data.T)))
    gw = gb = None
    if x is not None:
        xd = x._data
        x2, g2 = xd.reshape(-1, xd.shape[-1]), gd.reshape(-1, gd.shape[-1])
        gw = Tensor._wrap(_xp.result_array(g2.T @ x2 if out_in else x2.T @ g2))
    if c.needs[2]:
        gb = Tensor._wrap(_xp.result_array(gd.reshape(-1, gd.shape[-1]).sum(axis=0)))
    return gx, gw, gb


LINEAR = R.OpDef("linear", _k_linear, _b_linear, needs={"x": ("weight",), "weight": ("x",)},
                 inputs=("x", "weight", "bias"), attrs=(("out_in", False),),
                 doc="x @ weight + bias (Note [Linear weight layout]).")


# Note [Addmm input order]
# PyTorch's F.linear of a 2-D input with a bias is addmm(bias, input, weight.t()): its node's
# next_functions are (bias, input, weight), and programs walk them (the blitz tutorial prints
# loss.grad_fn.next_functions[0][0].next_functions[0][0]: the bias's AccumulateGrad). The
# PyTorch door's linear in that case is ADDMM: LINEAR's kernel and backward with the inputs in
# that order (PyTorch's third edge is a TBackward0 over the weight; here the weight's own).
class _LinearOrder:
    """A node of ADDMM seen by _b_linear with LINEAR's input order (x, weight, bias)."""
    __slots__ = ("c",)

    def __init__(self, c):
        self.c = c

    def input(self, i):
        return self.c.input((1, 2, 0)[i])

    @property
    def needs(self):
        n = self.c.needs
        return (n[1], n[2], n[0])

    @property
    def attrs(self):
        return self.c.attrs


def _k_addmm(b, x, w, out_in):
    return _k_linear(x, w, b, out_in)


def _b_addmm(c, g):
    gx, gw, gb = _b_linear(_LinearOrder(c), g)
    return gb, gx, gw


ADDMM = R.OpDef("addmm", _k_addmm, _b_addmm, needs={"x": ("weight",), "weight": ("x",)},
                inputs=("bias", "x", "weight"), attrs=(("out_in", True),),
                doc="bias + x @ weight.T, PyTorch's linear (Note [Addmm input order]).")


def linear(x, weight, bias=None, name=None):
    """y = x @ weight + bias, weight of shape [in, out] (Paddle's layout); one node."""
    return _linear(x, weight, bias, False)


def _linear(x, weight, bias, out_in):
    """Checked LINEAR (Note [Linear weight layout]); out_in: weight is [out, in] (PyTorch)."""
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"linear(): argument 'input' must be a Tensor, got {type(x).__name__}")
    if not isinstance(weight, Tensor):
        raise ArgTypeError(f"linear(): argument 'weight' must be a Tensor, got "
                           f"{type(weight).__name__}")
    if bias is not None and not isinstance(bias, Tensor):
        raise ArgTypeError(f"linear(): argument 'bias' must be a Tensor or None, got "
                           f"{type(bias).__name__}")
    xs, ws = x._data.shape, weight._data.shape
    n_in, n_out = (1, 0) if out_in else (0, 1)
    if len(ws) != 2 or len(xs) < 1 or xs[-1] != ws[n_in]:
        if len(xs) < 1 or len(ws) != 2:
            raise ArgValueError("linear: both arguments to linear need to be at least 1D and "
                                f"the weight 2D, got input {_c.shape_str(xs)} and weight "
                                f"{_c.shape_str(ws)}")
        rows = int(np.prod(xs[:-1])) if len(xs) > 1 else 1
        mat2 = ws[::-1] if out_in else ws
        layout = "[out_features, in_features]" if out_in else "[in_features, out_features]"
        raise ArgValueError(
            f"linear: mat1 and mat2 shapes cannot be multiplied ({rows}x{xs[-1]} and "
            f"{'x'.join(str(d) for d in mat2)}): input {_c.shape_str(xs)} has {xs[-1]} "
            f"features, the weight {_c.shape_str(ws)} (shape {layout}) expects {ws[n_in]}")
    if x._data.dtype != weight._data.dtype:
        _c.floating_like(x, weight, "linear")
    if bias is not None:
        if bias._data.dtype != weight._data.dtype:
            _c.floating_like(x, bias, "linear", "bias")
        if bias._data.shape not in ((ws[n_out],), ()):
            raise ArgValueError(f"linear: bias of shape {_c.shape_str(bias._data.shape)} does "
                                f"not match {ws[n_out]} out_features")
    if (out_in and bias is not None and len(xs) == 2      # Note [Addmm input order]
            and bias._result_class is x._result_class):       # (Note [Result class]: x's)
        return R.dispatch(ADDMM, (bias, x, weight), (True,))
    return R.dispatch(LINEAR, (x, weight, bias), (bool(out_in),))


def _reduce(loss, reduction, weight_sum=None):
    if reduction == "mean":
        return loss.mean() if weight_sum is None else loss.sum() / weight_sum
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    _c.reduction(reduction, "loss")


def _labels(label, n, c, ignore_index, op):
    """Class-index labels as an int64 array of n entries, checked (PyTorch: float targets
    refused, targets out of [0, C) an IndexError)."""
    label = R.as_tensor(label)
    ld = label._data
    if ld.dtype.kind not in "iu":
        raise ArgTypeError(f"{op}: expected target dtype to be int64 (class indices), but got "
                           f"{label.dtype.name}; pass probabilities with the input's shape (or "
                           "soft_label=True) for soft targets. Fix: label.astype('int64')")
    if ld.ndim > 1 and not (ld.ndim == 2 and ld.shape[1] == 1):     # Paddle's [N, 1]
        raise ArgValueError(f"{op}: 0D or 1D target tensor expected (or Paddle's [N, 1]), got "
                            f"shape {_c.shape_str(ld.shape)}")
    lab = ld.reshape(-1).astype(np.int64, copy=False)
    if lab.shape[0] != n:
        raise ArgValueError(f"{op}: Expected input batch_size ({n}) to match target "
                            f"batch_size ({lab.shape[0]}).")
    keep = lab != ignore_index
    if lab.size and keep.any():
        kept = lab[keep]
        lo, hi = int(kept.min()), int(kept.max())
        if lo < 0 or hi >= c:
            raise AxisError(f"{op}: Target {lo if lo < 0 else hi} is out of bounds (classes "
                            f"are [0, {c}); ignore_index={ignore_index}).")
    return lab, keep


def _nll_rows(lab, weight, ignore_index, dt):
    """(the picked class of each row, its weight: 0 where ignored)."""
    keep = lab != ignore_index
    safe = np.where(keep, lab, 0)
    w = np.where(keep, 1.0, 0.0).astype(dt)
    if weight is not None:
        w = w * weight[safe]
    return safe, w


# The input is in PyTorch's layout: (N, C) rows, one unbatched row (C,), or (N, C, d1, ...)
# with the classes at dim 1 (the torch door's nll_loss on 4-D input, NLL_LOSS_2D); the
# labels are the flattened targets, one per row of the (rows, C) matrix below, and a 'none'
# loss has the target's shape (N, d1, ...), () for one unbatched row.
def _nll_rows2d(x):
    """The (rows, C) matrix of x in that layout (a view where NumPy can make one)."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    if x.ndim == 2:
        return x
    return np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])


def _k_nll(x, lab, weight, ignore_index, reduction):
    safe, w = _nll_rows(lab, weight, ignore_index, x.dtype)
    x2 = _nll_rows2d(x)
    loss = (x2[np.arange(x2.shape[0]), safe] * -1) * w
    if reduction == "mean":
        ws = float(w.sum())
        if not ws:                   # PyTorch: the mean over no targets is nan
            return _xp.asarray(np.nan, x.dtype)
        return _xp.asarray(np.sum(loss) / ws)
    if reduction == "none":
        return loss.reshape(x.shape[:1] + x.shape[2:] if x.ndim > 1 else ())
    return _np_reduce(loss, reduction)


def _b_nll(c, g):
    """PyTorch's nll_loss_backward: -weight (/ the total weight for 'mean') at each row's
    target class, 0 elsewhere and on ignored rows."""
    lab, weight, ignore_index, reduction = c.attrs
    shape, dt = c.input_meta[0]
    safe, w = _nll_rows(lab, weight, ignore_index, dt)
    xp = _xp.array_module(lab)
    rows = xp.arange(len(lab))
    c_ = shape[0] if len(shape) == 1 else shape[1]
    scale = xp.zeros((len(lab), c_), dt)
    scale[rows, safe] = w * -1
    if reduction == "mean":
        with np.errstate(divide="ignore", invalid="ignore"):
            scale[rows, safe] /= w.sum()
        scale[rows[lab == ignore_index], safe[lab == ignore_index]] = 0
    if len(shape) == 1:
        scale = scale.reshape(shape)
    elif len(shape) > 2:    # back to (N, C, d1, ...)
        scale = _xp.ascontiguousarray(np.moveaxis(
            scale.reshape((shape[0],) + tuple(shape[2:]) + (c_,)), -1, 1))
    # a 'none' gradient has the target's shape: it spreads over dim 1, the classes
    spread = reduction == "none" and len(shape) > 1
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        return (Tensor._wrap(scale) * (R.FUNCTIONS["unsqueeze"](g, 1) if spread else g),)
    scale *= np.expand_dims(g._data, 1) if spread else g._data
    return (Tensor._wrap(scale),)


NLL_LOSS = R.OpDef("nll_loss", _k_nll, _b_nll, inputs=("input",),
                   attrs=(("label", None), ("weight", None), ("ignore_index", -100),
                          ("reduction", "mean")),
                   doc="Negative log-likelihood at integer labels (Note [Loss ops]).")
# x / s and x * s for a Python number s, PyTorch's div.Scalar (DivBackward1) and mul.Scalar
# (MulBackward1), the overloads its own compositions call (cross_entropy's mean over
# probability targets, its label smoothing)
DIV_SCALAR = R.OpDef("div_scalar", lambda x, s: _xp.asarray(x / s, dtype=x.dtype),
                     lambda c, g: (g / c.attrs[0],), attrs=(("other", 1.0),), method=False,
                     function=False, node_name="DivBackward1",
                     doc="x divided by a Python number (PyTorch's div.Scalar).")
MUL_SCALAR = R.OpDef("mul_scalar", lambda x, s: _xp.asarray(x * s, dtype=x.dtype),
                     lambda c, g: (g * c.attrs[0],), attrs=(("other", 1.0),), method=False,
                     function=False, node_name="MulBackward1",
                     doc="x times a Python number (PyTorch's mul.Scalar).")
NLL_LOSS_2D = R.OpDef("nll_loss2d", _k_nll, _b_nll, inputs=("input",),
                      attrs=(("label", None), ("weight", None), ("ignore_index", -100),
                             ("reduction", "mean")), node_name="NllLoss2DBackward",
                      doc="nll_loss of (N, C, H, W) input, PyTorch's NllLoss2DBackward0.")


def nll_loss(log_probs, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log-likelihood: minus log_probs at the class labels, reduced."""
    _c.reduction(reduction, "nll_loss")
    if log_probs.ndim != 2:
        raise ArgValueError(f"nll_loss expects (N, C) log-probabilities, got "
                            f"{list(log_probs.shape)}")
    n, c = log_probs.shape
    lab, keep = _labels(label, n, c, ignore_index, "nll_loss")
    _class_weight(weight, c, "nll_loss")
    if _weights_ok(log_probs, None, weight):
        return R.dispatch(NLL_LOSS, (log_probs,), (lab, _array_or_none(weight), ignore_index,
                                                   reduction))      # Note [Loss ops]
    safe = np.where(keep, lab, 0)
    picked = log_probs[Tensor._wrap(np.arange(n)), Tensor._wrap(safe)]
    w = np.where(keep, 1.0, 0.0).astype(log_probs._data.dtype)
    if weight is not None:
        w = w * weight._data[safe]
    loss = -picked * Tensor._wrap(w)
    if reduction == "mean" and not w.sum():
        return loss.sum() * float("nan")      # PyTorch: the mean over no targets is nan
    return _reduce(loss, reduction, weight_sum=float(w.sum()) if reduction == "mean" else None)


def _class_weight(weight, c, op):
    if weight is None:
        return
    if not isinstance(weight, Tensor):
        raise ArgTypeError(f"{op}: weight must be a Tensor, got {type(weight).__name__}")
    if weight._data.shape != (c,):
        raise ArgValueError(f"{op}: weight tensor should be defined either for all {c} classes "
                            f"or no classes but got weight tensor of shape: "
                            f"{_c.shape_str(weight._data.shape)}")


def _k_ce(x, lab, ignore_index, reduction):
    xp = _xp.array_module(x)
    m = x.max(axis=1, keepdims=True)
    logp = x - m
    logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
    keep = lab != ignore_index
    picked = logp[xp.arange(len(lab)), np.where(keep, lab, 0)] * keep
    if reduction == "sum":
        return xp.asarray(0.0 - picked.sum(), x.dtype)      # +0.0 for an empty sum, as PyTorch
    if reduction == "none":
        return -picked
    kept = int(keep.sum())
    if not kept:                     # PyTorch: the mean over no targets is nan
        return xp.asarray(np.nan, x.dtype)
    return xp.asarray((0.0 - picked.sum()) / kept, x.dtype)


def _b_ce(c, g):
    x = c.input(0)
    lab, ignore_index, reduction = c.attrs[0], c.attrs[1], c.attrs[2]
    keep = lab != ignore_index
    n = x.shape[0]
    xp = _xp.array_module(x._data)
    onehot = xp.zeros(x._data.shape, x._data.dtype)
    onehot[xp.arange(n)[keep], lab[keep]] = 1
    rows = keep.astype(x._data.dtype)
    if reduction == "mean":
        rows /= max(int(keep.sum()), 1)
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        probs = (x - x.logsumexp(axis=1, keepdim=True)).exp()
        scale = g.reshape([-1, 1]) if reduction == "none" else g
        return ((probs - Tensor._wrap(onehot)) * Tensor._wrap(rows[:, None]) * scale,)
    xd = x._data
    p = np.exp(xd - xd.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p -= onehot
    p *= rows[:, None]
    p *= g._data.reshape(-1, 1) if reduction == "none" else g._data
    return (Tensor._wrap(p),)


CROSS_ENTROPY = R.OpDef("cross_entropy", _k_ce, _b_ce, needs={"input": ("input",)}, inputs=("input",),
                        attrs=(("label", None), ("ignore_index", -100), ("reduction", "mean")),
                        doc="Cross-entropy loss of logits against integer labels.")


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, label_smoothing=0.0, name=None, *, target=None):
    """Class indices (or probabilities with soft_label=True); ignore_index; label smoothing."""
    if target is not None:
        label = target
    op = "cross_entropy"
    _c.reduction(reduction, op)
    if not isinstance(input, Tensor):
        raise ArgTypeError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    if input._data.dtype.kind != "f":
        raise ArgTypeError(f"{op}: input must be floating (logits), got {input.dtype.name}")
    ls = _args.number(label_smoothing, op, "label_smoothing", allow_bool=False)
    if not 0.0 <= ls <= 1.0:
        raise ArgValueError(f"{op}: label_smoothing must be between 0.0 and 1.0. Got: {ls}")
    label = R.as_tensor(label)
    soft = soft_label or (label._data.dtype.kind == "f" and label.shape == input.shape)
    if soft:
        if label.shape != input.shape:
            raise ArgValueError(f"{op}: soft labels must have the input's shape "
                                f"{list(input.shape)}, got {list(label.shape)}")
    elif input.ndim >= 1:
        ax = _args.axis(axis, input.ndim, op)
        if input.ndim == 2 and ax == 1:
            lab, keep = _labels(label, input.shape[0], input.shape[1], ignore_index, op)
            _class_weight(weight, input.shape[1], op)
    if (input.ndim == 2 and axis in (-1, 1) and weight is None and not label_smoothing
            and not soft and reduction in ("mean", "sum", "none")):
        return R.dispatch(CROSS_ENTROPY, (input,), (lab, ignore_index, reduction))   # one node
    logp = log_softmax(input, axis=axis)
    if soft_label or (label._data.dtype.kind == "f" and label.shape == input.shape):
        return _reduce(-(logp * label).sum(axis=axis), reduction)
    lab = label._data.reshape(-1)
    loss_nll = nll_loss(logp, label.reshape([-1]), weight, ignore_index, "none")
    if label_smoothing:
        keep = Tensor._wrap((lab != ignore_index).astype(logp._data.dtype))
        # PyTorch: the smoothing term is weighted by the class weights too
        weighted = logp if weight is None else logp * weight
        smooth = -weighted.mean(axis=axis) * keep
        loss = loss_nll * (1 - label_smoothing) + smooth * label_smoothing
    else:
        loss = loss_nll
    if reduction == "mean":
        w = (lab != ignore_index).astype(np.float64)
        if weight is not None:
            w = w * weight._data[np.where(lab != ignore_index, lab, 0)]
        if not w.sum():
            return loss.sum() * float("nan")      # PyTorch: the mean over no targets is nan
        return loss.sum() / float(w.sum())
    return _reduce(loss, reduction)


def _same_shape(input, label, op, strict=False):
    if not isinstance(input, Tensor) or not isinstance(label, Tensor):
        raise ArgTypeError(f"{op}: input and label must be Tensors, got "
                           f"{type(input).__name__} and {type(label).__name__}")
    a, b = input._data.shape, label._data.shape
    if a == b:
        return
    if strict:
        raise ArgValueError(f"{op}: Target size ({list(b)}) must be the same as input size "
                            f"({list(a)})")
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        raise ArgValueError(f"{op}: input {_c.shape_str(a)} and label {_c.shape_str(b)} have "
                            "different shapes that do not broadcast") from None


# Note [Loss ops]
# mse_loss, binary_cross_entropy(_with_logits), smooth_l1_loss, huber_loss and nll_loss are
# single ops with their own backward, as in PyTorch: `loss.grad_fn` is MseLossBackward0 (...)
# and its next_functions are the (input, label) edges (nll_loss: the input's only, its integer
# labels an attr, as cross_entropy's), so programs that print or walk the graph see PyTorch's.
# l1_loss stays a composition: PyTorch's is one too (MeanBackward0 <- AbsBackward0 <-
# SubBackward0), as is smooth_l1_loss with beta=0. Each op saves its inputs only (references,
# no new buffer); the reduction ('mean' over every element of the broadcast loss, 'sum',
# 'none') and a class weight or pos_weight (arrays that take no gradient, as in PyTorch) are
# attrs. The forward kernels compute what the compositions they replace computed (the same
# NumPy steps); the gradients are PyTorch's formulas (NumPy in a plain backward, oar ops under
# create_graph). Where an argument is outside what the op covers (integer or mixed dtypes, a
# weight that requires grad or widens the result), the function falls back to the
# composition, whose checks and results are unchanged.
def _loss_op_ok(*ts):
    """True when the tensors ts (None skipped) are floating with one dtype."""
    dt = None
    for t in ts:
        if t is None:
            continue
        d = t._data.dtype
        if not R._dt.is_float(d) or (dt is not None and d != dt):
            return False
        dt = d
    return True


def _np_reduce(loss, reduction):
    if reduction == "mean":
        return _xp.asarray(np.mean(loss))
    if reduction == "sum":
        return _xp.asarray(np.sum(loss))
    return loss


def _grad_scale(c, g, grad, n_elem):
    """grad * g (/ the element count for 'mean'), in NumPy or, under create_graph, oar ops;
    `grad` is an ndarray or a Tensor matching g's kind."""
    reduction = c.attrs[-1]
    if isinstance(grad, Tensor):
        out = grad * g
        return out / max(n_elem, 1) if reduction == "mean" else out
    grad *= g._data
    if reduction == "mean":
        grad /= max(n_elem, 1)
    return Tensor._wrap(grad)


def _k_mse(x, y, reduction):
    d = x - y
    return _np_reduce(d * d, reduction)


def _b_mse(c, g):
    x, y = c.input(0), c.input(1)
    n = int(np.prod(np.broadcast_shapes(x._data.shape, y._data.shape)))
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        gi = _grad_scale(c, g, (x - y) * 2.0, n)
    else:
        gi = _grad_scale(c, g, (x._data - y._data) * 2.0, n)
    return (gi if c.needs[0] else None), (-gi if c.needs[1] else None)


MSE_LOSS = R.OpDef("mse_loss", _k_mse, _b_mse, needs={"input": ("input", "label"),
                                                     "label": ("input", "label")},
                   inputs=("input", "label"), attrs=(("reduction", "mean"),),
                   doc="Squared error (input - label) ** 2, reduced (Note [Loss ops]).")


def mse_loss(input, label, reduction="mean", name=None):
    """Mean squared error (input - label) ** 2, reduced ('mean', 'sum' or 'none')."""
    _c.reduction(reduction, "mse_loss")
    _same_shape(input, label, "mse_loss")
    if _loss_op_ok(input, label):
        return R.dispatch(MSE_LOSS, (input, label), (reduction,))    # Note [Loss ops]
    d = input - label
    return _reduce(d * d, reduction)


def l1_loss(input, label, reduction="mean", name=None):
    """Mean absolute error |input - label|, reduced ('mean', 'sum' or 'none')."""
    _c.reduction(reduction, "l1_loss")
    _same_shape(input, label, "l1_loss")
    return _reduce((input - label).abs(), reduction)


def _weights_ok(x, y, *weights):
    """Note [Loss ops]: one floating dtype, and weights that are tensors taking no gradient
    and broadcasting into x's shape (x and y have one shape)."""
    if not _loss_op_ok(x, y, *[w if isinstance(w, Tensor) else None for w in weights]):
        return False
    for w in weights:
        if w is None:
            continue
        if not isinstance(w, Tensor) or w.requires_grad:
            return False
        try:
            if np.broadcast_shapes(x._data.shape, w._data.shape) != x._data.shape:
                return False
        except ValueError:
            return False
    return True


def _array_or_none(w):
    return None if w is None else w._data


def _np_log_sigmoid(x):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), as oar's log_sigmoid."""
    return np.minimum(x, 0) - np.log1p(np.exp(np.abs(x) * -1))


def _k_bce_logits(x, y, weight, pos_weight, reduction):
    # log(1 + exp(-|x|)) + max(x, 0) - x * y, stable for large |x| (the composition's steps)
    a = np.log1p(np.exp(np.abs(x) * -1))
    loss = a + np.maximum(x, 0) - x * y
    if pos_weight is not None:
        loss = loss + (pos_weight - 1) * y * (a + np.maximum(x * -1, 0))   # -log(sigmoid(x))
    if weight is not None:
        loss = loss * weight
    return _np_reduce(loss, reduction)


def _b_bce_logits(c, g):
    """PyTorch's binary_cross_entropy_with_logits_backward and _target_backward."""
    x, y = c.input(0), c.input(1)
    weight, pos_weight = c.attrs[0], c.attrs[1]
    n = x._data.size
    gi = gt = None
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        w = None if weight is None else Tensor._wrap(weight)
        pw = None if pos_weight is None else Tensor._wrap(pos_weight)
        if c.needs[0]:
            if pw is None:
                gi = x.sigmoid() - y
            else:
                t = pw * y
                gi = (t + 1 - y) * x.sigmoid() - t
            gi = _grad_scale(c, g, gi if w is None else gi * w, n)
        if c.needs[1]:
            gt = -x if pw is None else log_sigmoid(-x) - log_sigmoid(x) * pw
            gt = _grad_scale(c, g, gt if w is None else gt * w, n)
        return gi, gt
    xd, yd = x._data, y._data
    if c.needs[0]:
        s = np.reciprocal(np.exp(xd * -1) + 1)         # sigmoid(x), as oar's sigmoid
        if pos_weight is None:
            gi = s - yd
        else:
            t = pos_weight * yd
            gi = (t + 1 - yd) * s - t
        if weight is not None:
            gi = gi * weight
        gi = _grad_scale(c, g, _xp.array(gi, copy=True), n)
    if c.needs[1]:
        if pos_weight is None:
            gt = xd * -1
        else:
            gt = _np_log_sigmoid(xd * -1) - _np_log_sigmoid(xd) * pos_weight
        if weight is not None:
            gt = gt * weight
        gt = _grad_scale(c, g, _xp.array(gt, copy=True), n)
    return gi, gt


BCE_WITH_LOGITS = R.OpDef(
    "binary_cross_entropy_with_logits", _k_bce_logits, _b_bce_logits,
    needs={"input": ("input", "label"), "label": ("input", "label")}, inputs=("input", "label"),
    attrs=(("weight", None), ("pos_weight", None), ("reduction", "mean")),
    doc="Binary cross-entropy of sigmoid(input) against label (Note [Loss ops]).")


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """Binary cross-entropy of sigmoid(logit) against label, computed stably."""
    # log(1 + exp(-|x|)) + max(x, 0) - x * y, stable for large |x|
    _c.reduction(reduction, "binary_cross_entropy_with_logits")
    _same_shape(logit, label, "binary_cross_entropy_with_logits", strict=True)
    if _weights_ok(logit, label, weight, pos_weight):     # Note [Loss ops]
        return R.dispatch(BCE_WITH_LOGITS, (logit, label),
                          (_array_or_none(weight), _array_or_none(pos_weight), reduction))
    x = logit
    loss = (-(x.abs())).exp().log1p() + x.relu() - x * label
    if pos_weight is not None:
        log_sig_neg = (-(x.abs())).exp().log1p() + (-x).relu()     # -log(sigmoid(x))
        loss = loss + (pos_weight - 1) * label * log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def dropout(x, p=0.5, training=True, inplace=False, axis=None, mode="upscale_in_train", name=None):
    """In training, zeroes elements with probability p and scales the rest by 1 / (1 - p)."""
    p = _c.probability(p, "dropout")
    if axis is not None:
        raise NotImplementedError("dropout: axis is not supported yet")
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ArgValueError(f"dropout: mode must be 'upscale_in_train' or "
                            f"'downscale_in_infer', got {mode!r}")
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"dropout: input must be a Tensor, got {type(x).__name__}")
    if x._data.dtype.kind != "f":
        raise ArgTypeError(f"dropout: input must be floating, got {x.dtype.name}")
    # downscale_in_infer (Paddle's older convention, used by AlexNet / SqueezeNet): training
    # keeps survivors unscaled and inference multiplies everything by 1 - p instead.
    down = mode == "downscale_in_infer"
    if not training:
        if not down or p == 0:
            return x
        return x.mul_(1 - p) if inplace else x * (1 - p)
    if p == 0:
        return x
    if p == 1:
        return x.zero_() if inplace else x * 0
    from ..ops.random import generator
    keep = (generator(_xp.place_of(x._data)).random(x._data.shape) >= p).astype(x._data.dtype)
    if not down:
        keep = keep / (1 - p)   # a new array: oar.jit records ufuncs on a draw, not out= ones
    # drawn on the host from the tensor's place's stream (Note [Random streams per place])
    mask = Tensor._wrap(_xp.on_place_of(keep, x._data))
    return x.mul_(mask) if inplace else x * mask


def one_hot(x, num_classes=-1, name=None):
    """Integer labels x as one-hot vectors of length num_classes (a new last axis)."""
    a = _args.index_array(x, "one_hot", "x").astype(np.int64, copy=False)
    num_classes = _args.integer(num_classes, "one_hot", "num_classes")
    if a.size and a.min() < 0:
        raise ArgValueError(f"one_hot: Class values must be non-negative, got {int(a.min())}")
    if num_classes < 0:
        if num_classes != -1:
            raise ArgValueError(f"one_hot: num_classes must be >= 0 (or -1), got {num_classes}")
        num_classes = int(a.max()) + 1 if a.size else 0
    if a.size and a.max() >= num_classes:
        raise ArgValueError(f"one_hot: Class values must be smaller than num_classes "
                            f"({num_classes}), got {int(a.max())}")
    out = np.zeros(a.shape + (num_classes,), np.float32)
    np.put_along_axis(out, a[..., None], 1.0, axis=-1)
    return Tensor._wrap(out)


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """The rows of weight at the integer indices x (the padding_idx rows read as zeros);
    max_norm first renormalises the rows read to that norm, in place on weight;
    scale_grad_by_freq divides each row's gradient by its count in x."""
    arr = _args.index_array(x, "embedding", "indices")
    n = weight._data.shape[0]
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        bad = int(arr.min()) if arr.min() < 0 else int(arr.max())
        raise AxisError(f"embedding: index out of range in self: index {bad} with "
                        f"num_embeddings={n} (valid indices are [0, {n - 1}])")
    padding_idx = _c.padding_idx(padding_idx, n, "embedding")
    idx = x if isinstance(x, Tensor) else Tensor._wrap(arr)
    if max_norm is not None:
        from ._kernels import embedding_renorm_
        embedding_renorm_(weight, arr, float(max_norm), float(norm_type))
    if scale_grad_by_freq:
        from ._kernels import torch_embedding
        out = torch_embedding(Tensor._wrap(arr.astype(np.int64, copy=False)), weight,
                              scale_grad_by_freq=True)
    else:
        out = weight[idx]
    if padding_idx is not None:
        mask = Tensor._wrap((idx._data != padding_idx)[..., None].astype(weight._data.dtype))
        out = out * mask
    return out


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-5, name=None, *, eps=None):
    """x normalised over its trailing normalized_shape dims, then * weight + bias."""
    if eps is not None:
        epsilon = eps
    _tensor_in(x, "layer_norm")
    normalized_shape = list(_args.shape(normalized_shape, "layer_norm", name="normalized_shape"))
    k = len(normalized_shape)
    if k == 0 or x.ndim < k or list(x._data.shape[x.ndim - k:]) != normalized_shape:
        raise ArgValueError(f"layer_norm: Given normalized_shape={normalized_shape}, expected "
                            f"input with shape [*, {', '.join(map(str, normalized_shape))}], but "
                            f"got input of size {_c.shape_str(x._data.shape)}")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t._data.shape) != normalized_shape:
            raise ArgValueError(f"layer_norm: Expected {what} to be of same shape as "
                                f"normalized_shape, but got {what} of shape "
                                f"{_c.shape_str(t._data.shape)} and normalized_shape = "
                                f"{normalized_shape}")
    _A.floating_only(x, "layer_norm")
    if _loss_op_ok(x, weight, bias):       # Note [Activation and normalization ops]
        return _A.layer_norm_op(x, weight, bias, k, epsilon)
    axes = list(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(axis=axes, keepdim=True)
    y = xc * (var + epsilon).rsqrt()
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y


def _update_running(running_mean, running_var, mean, var, n, keep, unbiased=True):
    """BatchNorm's running statistics, in place under no_grad: running = keep * running +
    (1 - keep) * batch. mean and var are tensors (the batch's biased statistics); shared by
    BatchNorm and InPlaceABN. PyTorch makes the variance unbiased (n / (n - 1), n values per
    channel); Paddle 3.3.1 keeps the biased one (unbiased=False: the Paddle door's
    batch_norm)."""
    new = 1 - keep
    scale = new * n / max(n - 1, 1) if unbiased else new
    with grad_mode.no_grad():
        running_mean.mul_(keep).add_(mean * new)
        running_var.mul_(keep).add_(var * scale)


# Note [BatchNorm op]
# batch_norm is one op, BATCH_NORM, as PyTorch's native_batch_norm: its node is
# NativeBatchNormBackward0 (in training and in evaluation, as torch 2.13 names both) and its
# next_functions are the (input, weight, bias) edges. The kernel returns (y, mean, invstd,
# var): y = (x - mean) * (invstd * gamma) + beta, with the batch's biased statistics in
# training (var = mean((x - mean)^2), invstd = 1 / sqrt(var + eps)) or the running ones in
# evaluation (attrs); only y takes part in autograd. When x or gamma needs a gradient, the
# node's saved tensors are set right after dispatch (_batch_norm_op): x, gamma (a
# reference), and the mean and invstd results (C values each), each saved once and
# versioned like any saved tensor: nothing else of x's size, where the composition it
# replaces kept x - mean and x_hat (beta's gradient alone needs nothing saved). The backward recomputes x_hat = (x - mean) * invstd and runs abn.bn_backward (the
# formula InPlaceABN's backward uses); under create_graph it is written in oar ops, with the
# statistics recomputed from x in training so that second derivatives see their dependence
# on x. var is returned for the running-statistics update (_update_running, unchanged).
# Inputs outside what the op covers (a non-floating input, mixed dtypes, running statistics
# that require grad in evaluation) go through the composition, whose results, dtypes and
# checks are unchanged.
def _k_bn(x, w, b, running_mean, running_var, training, eps):
    from .abn import _bshape, _cdot, _csum
    dt = x.dtype
    shape = _bshape(x.ndim)
    with np.errstate(all="ignore"):
        if training:
            n = x.size // x.shape[1]
            mean = (_csum(x) / n).astype(dt, copy=False)
            y = np.subtract(x, mean.reshape(shape))
            var = (_cdot(y, y) / n).astype(dt, copy=False)
        else:
            mean = running_mean.astype(dt, copy=True)
            var = running_var.astype(dt, copy=True)
            y = np.subtract(x, mean.reshape(shape))
        invstd = (1 / np.sqrt(var + dt.type(eps))).astype(dt, copy=False)
    y *= (invstd if w is None else invstd * w).reshape(shape)
    if b is not None:
        y += b.reshape(shape)
    return y, mean, invstd, var


def _b_bn(c, g):
    """Note [BatchNorm op]: PyTorch's batch-norm backward."""
    training, eps = c.attrs[2], c.attrs[3]
    needs = c.needs
    nd = g.ndim
    axes = [0] + list(range(2, nd))
    shape = [1, -1] + [1] * (nd - 2)
    if needs[0] is None and needs[1] is None:     # beta's gradient only: nothing was saved
        if grad_mode.is_grad_enabled():
            return None, None, g.sum(axis=axes)
        from .abn import _csum
        return None, None, Tensor._wrap(_xp.ascontiguousarray(_csum(g._data)))
    x, w = c.input(0), c.input(1)
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        if training:
            xc = x - x.mean(axis=axes).reshape(shape)
            invstd = ((xc * xc).mean(axis=axes).reshape(shape) + eps).rsqrt()
        else:
            xc = x - c.input(3).reshape(shape)
            invstd = c.input(4).reshape(shape)
        xh = xc * invstd
        gx = gw = gb = None
        if needs[2] is not None:
            gb = g.sum(axis=axes)
        if needs[1] is not None:
            gw = (g * xh).sum(axis=axes)
        if needs[0] is not None:
            k = invstd if w is None else invstd * w.reshape(shape)
            if training:
                gx = (g - g.mean(axis=axes).reshape(shape)
                      - xh * (g * xh).mean(axis=axes).reshape(shape)) * k
            else:
                gx = g * k
        return gx, gw, gb
    from .abn import bn_backward
    xd = x._data
    dt = xd.dtype
    dy = _xp.ascontiguousarray(g._data, dt)
    mean, invstd = c.input(3)._data, c.input(4)._data
    xh = np.subtract(xd, mean.reshape(shape))
    xh *= invstd.reshape(shape)
    gx, gw, gb = bn_backward(dy, xh, invstd, None if w is None else w._data, training, needs)
    return tuple(None if a is None else Tensor._wrap(_xp.ascontiguousarray(a, dt))
                 for a in (gx, gw, gb))


BATCH_NORM = R.OpDef(
    "batch_norm", _k_bn, _b_bn, inputs=("input", "weight", "bias"),     # saved: _batch_norm_op
    attrs=(("running_mean", None), ("running_var", None), ("training", False), ("eps", 1e-5)),
    optional=("weight", "bias"), node_name="NativeBatchNormBackward",
    doc="Batch normalisation over axis 1, saving input, mean, invstd (Note [BatchNorm op]).")


def _bn_op_ok(x, running_mean, running_var, weight, bias, training):
    """Note [BatchNorm op]: one floating dtype throughout, and no gradient wanted for
    running statistics used in evaluation."""
    if not _loss_op_ok(x, running_mean, running_var, weight, bias):
        return False
    return training or not (running_mean.requires_grad or running_var.requires_grad)


_BN_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-5, data_format="NCHW", use_global_stats=None,
               name=None, *, eps=None, torch_momentum=None, _unbiased=None):
    """Paddle's momentum convention: running = momentum * running + (1 - momentum) * batch
    (torch_momentum=m gives PyTorch's: running = (1 - m) * running + m * batch). Running
    statistics are updated in place under no_grad; the variance with PyTorch's unbiased
    estimate when torch_momentum is given, with Paddle's biased one otherwise.
    data_format: Paddle's; only whether the channels are dim 1 ('NC...') or last matters.
    use_global_stats: None follows training; True normalises with the running statistics
    (not updated) even in training, as Paddle 3.3.1 does."""
    if eps is not None:
        epsilon = eps
    if data_format not in _BN_FORMATS:
        raise ArgValueError("batch_norm: data_format must be one of 'NC', 'NCL', 'NCHW', "
                            f"'NCDHW', 'NLC', 'NHWC', 'NDHWC' but receive {data_format}")
    if use_global_stats is False and not training:
        # Paddle 3.3.1 then normalises with the batch's statistics and updates the running
        # ones, but its gradient is evaluation's taken with the just-updated running variance
        # (measured), matching neither forward: refused rather than half-matched
        raise NotImplementedError("batch_norm: use_global_stats=False with training=False "
                                  "is not supported; pass training=True")
    if use_global_stats is not None:
        training = not use_global_stats
    if data_format[1] != "C" and isinstance(x, Tensor) and x.ndim > 2:
        # channels last: normalise the channels-first view, then move them back
        x = x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1)))
        return _channels_back(batch_norm(x, running_mean, running_var, weight, bias, training,
                                         momentum, epsilon, eps=eps,
                                         torch_momentum=torch_momentum, _unbiased=_unbiased),
                              True)
    if x.ndim < 2:
        raise ArgValueError(f"batch_norm: expected input of at least 2 dimensions [N, C, ...], "
                            f"got {_c.shape_str(x._data.shape)}")
    c = x._data.shape[1]
    for what, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        _c.per_channel(t, c, "batch_norm", what, x._data.shape)
    if training and x._data.size // max(c, 1) <= 1:
        raise ArgValueError(f"batch_norm: Expected more than 1 value per channel when "
                            f"training, got input size {_c.shape_str(x._data.shape)}. Fix: a "
                            "batch of at least 2, or model.eval()")
    if not training and (running_mean is None or running_var is None):
        raise ArgValueError("batch_norm: running_mean and running_var are needed when not "
                            "training")
    keep = momentum if torch_momentum is None else 1 - torch_momentum
    unbiased = torch_momentum is not None if _unbiased is None else _unbiased
    if torch_momentum is None and not _unbiased and eps is None:
        # Paddle's kernels hold momentum and epsilon as float32 attributes: a float64 layer's
        # running statistics and outputs use 0.9f and 1e-5f (measured against paddle 3.3.1)
        keep, epsilon = float(np.float32(keep)), float(np.float32(epsilon))
    if _bn_op_ok(x, running_mean, running_var, weight, bias, training):   # Note [BatchNorm op]
        return _batch_norm_op(x, running_mean, running_var, weight, bias, training, epsilon,
                              keep, unbiased)
    axes = [0] + list(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    if training:
        mean = x.mean(axis=axes)
        xc = x - mean.reshape(shape)
        var = (xc * xc).mean(axis=axes)
        if running_mean is not None:
            _update_running(running_mean, running_var, mean.detach(), var.detach(),
                           x._data.size // x._data.shape[1], keep, unbiased)
        y = xc * (var.reshape(shape) + epsilon).rsqrt()
    else:
        y = (x - running_mean.reshape(shape)) * (running_var.reshape(shape) + epsilon).rsqrt()
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _batch_norm_op(x, running_mean, running_var, weight, bias, training, eps, keep,
                   unbiased):
    """batch_norm through BATCH_NORM (Note [BatchNorm op]); arguments already checked."""
    from ..autograd.saved import SavedTensor
    attrs = (None, None, True, float(eps)) if training else (
        running_mean._data, running_var._data, False, float(eps))
    y, mean, invstd, var = R.dispatch(BATCH_NORM, (x, weight, bias), attrs)
    node = y._grad_fn
    if node is not None and (node.next_edges[0] is not None or node.next_edges[1] is not None):
        # x or gamma needs a gradient: each saved tensor once (a pack hook sees each once)
        node.saved = [SavedTensor(x), None if weight is None else SavedTensor(weight), None,
                      SavedTensor(mean), SavedTensor(invstd)]
    if training and running_mean is not None:
        _update_running(running_mean, running_var, mean, var, x._data.size // x._data.shape[1],
                        keep, unbiased)
    return y


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """x with axes start_axis .. stop_axis merged into one."""
    return x.flatten(start_axis, stop_axis)



# ----------------------------------------------------------------- more activations
def silu(x, inplace=False, name=None):
    """x * sigmoid(x) (also called swish); in place on x when inplace=True. One op
    (Note [Activation and normalization ops])."""
    return _A.activation(_A.SILU, x, inplace=inplace)


def softplus(x, beta=1, threshold=20, name=None):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold; one op."""
    beta = _args.number(beta, "softplus", "beta", allow_bool=False)
    threshold = _args.number(threshold, "softplus", "threshold", allow_bool=False)
    return _A.activation(_A.SOFTPLUS, x, (beta, threshold))


def elu(x, alpha=1.0, inplace=False, name=None):
    """x where x > 0, else alpha * (exp(x) - 1); one op (in place: EluBackward1, which reads
    the result; its backward refuses alpha < 0, as PyTorch's)."""
    alpha = _args.number(alpha, "elu", "alpha", allow_bool=False)
    return _A.activation(_A.ELU_RESULT if inplace else _A.ELU, x, (alpha,), inplace=inplace)


# Paddle's in-place activation spellings: the normal op's in-place form (its own node), or,
# for softmax_, the result written into x through copy_ (Note [Check, then write])
def elu_(x, alpha=1.0, name=None):
    """elu written into x, in place; returns x (EluBackward1: its backward reads the result)."""
    return elu(x, alpha, inplace=True)


def hardtanh_(x, min=-1.0, max=1.0, name=None):
    """hardtanh written into x, in place; returns x. As Paddle's, the gradient stays exact
    whatever later changes x: the backward reads a mask of min < x < max saved before the
    write (Note [Paddle leaky_relu_ keeps a mask]); the PyTorch door's hardtanh_ reads the
    result (HardtanhBackward0)."""
    min, max = _hardtanh_bounds(x, min, max)
    mask = Tensor._wrap((x._data > min) & (x._data < max)) \
        if x.requires_grad and grad_mode.is_grad_enabled() else None
    return _save_mask(R.dispatch_inplace(_A.HARDTANH_MASK, (x,), (min, max), "hardtanh_"),
                      _A.HARDTANH_MASK, mask)


def softmax_(x, axis=-1, dtype=None, name=None):
    """softmax along axis written into x, in place; returns x (dtype, when given, must be
    x's: an in-place op never changes its tensor's dtype)."""
    _tensor_in(x, "softmax_")
    if dtype is not None and R._dt.as_dtype(dtype).np != x._data.dtype:
        raise ArgTypeError(f"softmax_(): dtype {R._dt.as_dtype(dtype).name} differs from x's "
                           f"dtype {x.dtype.name}; an in-place op keeps x's dtype. Fix: "
                           "y = F.softmax(x, axis, dtype=dtype).")
    return x.copy_(softmax(x, axis))


def relu6(x, inplace=False, name=None):
    """min(max(x, 0), 6), elementwise."""
    return hardtanh(x, 0.0, 6.0, inplace=inplace)


def hardtanh(x, min=-1.0, max=1.0, inplace=False, name=None):
    """x clamped into [min, max], elementwise; one op (HardtanhBackward0, gradient 0 at the
    bounds)."""
    min, max = _hardtanh_bounds(x, min, max)
    op = _A.HARDTANH_RESULT if inplace else _A.HARDTANH
    return _A.activation(op, x, (min, max), inplace=inplace)


def _hardtanh_bounds(x, min, max):
    _tensor_in(x, "hardtanh")
    min = _args.number(min, "hardtanh", "min_val", allow_bool=False)
    max = _args.number(max, "hardtanh", "max_val", allow_bool=False)
    if not min <= max:
        raise ArgValueError(f"hardtanh: min_val cannot be greater than max_val (got min={min}, "
                            f"max={max})")
    return min, max


def log_sigmoid(x, name=None):
    """log(sigmoid(x)), computed stably as min(x, 0) - log1p(exp(-|x|)); one op."""
    return _A.activation(_A.LOG_SIGMOID, x)


# ----------------------------------------------------------------- more losses
def _k_bce(x, y, weight, reduction):
    with np.errstate(divide="ignore"):      # log(0) = -inf, clamped at -100 as PyTorch
        lx = np.maximum(np.log(x), -100)
        l1x = np.maximum(np.log(1 - x), -100)
    loss = (y * lx + (1 - y) * l1x) * -1
    if weight is not None:
        loss = loss * weight
    return _np_reduce(loss, reduction)


_BCE_EPS = 1e-12     # PyTorch's EPSILON in binary_cross_entropy_backward


def _b_bce(c, g):
    """PyTorch's binary_cross_entropy_backward and _target_backward (-logit(input))."""
    x, y = c.input(0), c.input(1)
    weight = c.attrs[0]
    n = x._data.size
    gi = gt = None
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        w = None if weight is None else Tensor._wrap(weight)
        if c.needs[0]:
            gi = (x - y) / ((1 - x) * x).clip(min=_BCE_EPS)
            gi = _grad_scale(c, g, gi if w is None else gi * w, n)
        if c.needs[1]:
            gt = (1 - x).log() - x.log()
            gt = _grad_scale(c, g, gt if w is None else gt * w, n)
        return gi, gt
    xd, yd = x._data, y._data
    if c.needs[0]:
        gi = (xd - yd) / np.maximum((1 - xd) * xd, _BCE_EPS)
        if weight is not None:
            gi = gi * weight
        gi = _grad_scale(c, g, _xp.array(gi, copy=True), n)
    if c.needs[1]:
        with np.errstate(divide="ignore"):
            gt = np.log(1 - xd) - np.log(xd)
        if weight is not None:
            gt = gt * weight
        gt = _grad_scale(c, g, _xp.array(gt, copy=True), n)
    return gi, gt


BCE = R.OpDef("binary_cross_entropy", _k_bce, _b_bce,
              needs={"input": ("input", "label"), "label": ("input", "label")},
              inputs=("input", "label"), attrs=(("weight", None), ("reduction", "mean")),
              doc="Binary cross-entropy of probabilities input against label (Note [Loss ops]).")


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-(label * log(input) + (1 - label) * log(1 - input)), each log clamped at -100 as
    PyTorch does; input holds probabilities in [0, 1]."""
    op = "binary_cross_entropy"
    _c.reduction(reduction, op)
    _same_shape(input, label, op, strict=True)
    d = input._data
    if d.size and not ((d >= 0) & (d <= 1)).all():
        raise ArgValueError(f"{op}: all elements of input should be between 0 and 1 (got "
                            f"values in [{np.nanmin(d)}, {np.nanmax(d)}]). Fix: apply sigmoid, "
                            "or use binary_cross_entropy_with_logits on the logits")
    if _weights_ok(input, label, weight):      # Note [Loss ops]
        return R.dispatch(BCE, (input, label), (_array_or_none(weight), reduction))
    loss = -(label * input.log().clip(min=-100) + (1 - label) * (1 - input).log().clip(min=-100))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _huber_kernel(smooth):
    def kernel(x, y, delta, reduction):
        d = x - y
        a = np.abs(d)
        quad = d * d * 0.5
        if smooth:
            quad = quad / delta
            lin = a - 0.5 * delta
        else:
            lin = (a - 0.5 * delta) * delta
        return _np_reduce(np.where(a < delta, quad, lin), reduction)
    return kernel


def _huber_backward(smooth):
    def backward(c, g):
        """PyTorch's smooth_l1_loss_backward / huber_loss_backward: d / beta (d) inside the
        threshold, sign(d) (delta * sign(d)) outside."""
        x, y = c.input(0), c.input(1)
        delta = c.attrs[0]
        n = int(np.prod(np.broadcast_shapes(x._data.shape, y._data.shape)))
        slope = 1.0 if smooth else delta
        if grad_mode.is_grad_enabled():       # create_graph: in oar ops
            d = x - y
            inner = d / delta if smooth else d
            gi = _F["where"](d < -delta, _F["full_like"](d, -slope),
                             _F["where"](d > delta, _F["full_like"](d, slope), inner))
            gi = _grad_scale(c, g, gi, n)
        else:
            d = x._data - y._data
            gi = d / delta if smooth else d
            gi = np.where(d < -delta, -slope, np.where(d > delta, slope, gi)).astype(d.dtype)
            gi = _grad_scale(c, g, gi, n)
        return (gi if c.needs[0] else None), (-gi if c.needs[1] else None)
    return backward


SMOOTH_L1_LOSS = R.OpDef(
    "smooth_l1_loss", _huber_kernel(True), _huber_backward(True),
    needs={"input": ("input", "label"), "label": ("input", "label")},
    inputs=("input", "label"), attrs=(("beta", 1.0), ("reduction", "mean")),
    doc="PyTorch's smooth L1 loss of threshold beta, reduced (Note [Loss ops]).")
HUBER_LOSS = R.OpDef(
    "huber_loss", _huber_kernel(False), _huber_backward(False),
    needs={"input": ("input", "label"), "label": ("input", "label")},
    inputs=("input", "label"), attrs=(("delta", 1.0), ("reduction", "mean")),
    doc="The Huber loss of slope delta, reduced (Note [Loss ops]).")


def _huber(input, label, delta, smooth, reduction, op):
    """|d| < delta: 0.5 d**2 (/ delta when smooth), else |d| - 0.5 delta (* delta unless
    smooth): PyTorch's smooth_l1_loss (beta, smooth) and huber_loss (delta)."""
    _c.reduction(reduction, op)
    _same_shape(input, label, op)
    delta = _args.number(delta, op, "delta", allow_bool=False)
    if delta < 0 or (delta == 0 and not smooth):
        raise ArgValueError(f"{op}: {'beta' if smooth else 'delta'} must be "
                            f"{'non-negative' if smooth else 'positive'}, got {delta}")
    if not (smooth and delta == 0) and _loss_op_ok(input, label):     # Note [Loss ops]
        return R.dispatch(SMOOTH_L1_LOSS if smooth else HUBER_LOSS, (input, label),
                          (float(delta), reduction))
    d = input - label
    a = d.abs()
    if smooth and delta == 0:
        return _reduce(a, reduction)
    quad = d * d * 0.5
    if smooth:
        quad = quad / delta
        lin = a - 0.5 * delta
    else:
        lin = (a - 0.5 * delta) * delta
    return _reduce(_F["where"](a < delta, quad, lin), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Paddle's smooth_l1_loss: the Huber loss of slope delta (is_huber=True), or PyTorch's
    smooth L1 of threshold delta (is_huber=False)."""
    return _huber(input, label, delta, not is_huber, reduction, "smooth_l1_loss")


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """Kullback-Leibler divergence of label from exp(input) (input holds log-probabilities):
    label * (log(label) - input), 0 where label is 0; 'batchmean' divides the sum by N."""
    op = "kl_div"
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ArgValueError(f"{op}: {reduction!r} is not a valid value for reduction; use one "
                            "of ['mean', 'batchmean', 'sum', 'none']")
    _same_shape(input, label, op)
    if log_target:
        loss = label.exp() * (label - input)
    else:       # xlogy(label, label) - label * input: 0 * log(0) counts as 0
        safe = _F["where"](label > 0, label, _F["ones_like"](label))
        loss = label * safe.log() - label * input
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction)


# ----------------------------------------------------------------- conv1d, norms, dropout2d
def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None, *, _rule="paddle"):
    """1-D convolution of NCL (or NLC) x with weight [out_channels, in_channels / groups, k]
    (_rule: whose padding='same', Note [Two rules for padding='same'])."""
    if data_format != "NCL":        # Note [Channels-last convolutions]
        x, moved = _conv_channels_first(x, data_format, "conv1d", 1)
        return _channels_back(conv1d(x, weight, bias, stride, padding, dilation, groups,
                                     _rule=_rule), moved)
    if not isinstance(x, Tensor) or not isinstance(weight, Tensor):
        raise ArgTypeError(f"conv1d: input and weight must be Tensors, got {type(x).__name__} "
                           f"and {type(weight).__name__}")
    if weight._data.ndim != 3:
        raise ArgValueError(f"conv1d: weight must be 3-D [out_channels, in_channels, k], got "
                            f"{_c.shape_str(weight._data.shape)}")
    if x._data.ndim not in (2, 3):
        raise ArgValueError(f"conv1d: Expected 2D (unbatched) or 3D (batched) input, but got "
                            f"input of size: {_c.shape_str(x._data.shape)}")
    one = lambda v, name: (_single(v, "conv1d", name) if not isinstance(v, str) else v)  # noqa: E731
    s, d = one(stride, "stride"), one(dilation, "dilation")
    p = one(padding, "padding")
    p2 = p if isinstance(p, str) else (0, p)
    # one op (PyTorch's ConvolutionBackward0), computed as a height-1 conv2d
    return _K.conv2d(x, weight, bias, stride=(1, s), padding=p2, dilation=(1, d),
                     groups=groups, _one_d=True, _rule=_rule)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW",
           name=None, *, _parsed=None):
    """2-D convolution of NCHW (or NHWC) x with weight [out_channels, in_channels / groups,
    kh, kw], plus bias."""
    if data_format != "NCHW":       # Note [Channels-last convolutions]
        x, moved = _conv_channels_first(x, data_format, "conv2d", 2)
        return _channels_back(_K.conv2d(x, weight, bias, stride, padding, dilation, groups,
                                         _parsed=_parsed, _rule="paddle"), moved)
    return _K.conv2d(x, weight, bias, stride, padding, dilation, groups, _parsed=_parsed,
                     _rule="paddle")


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    """2-D transposed convolution of NCHW x with weight [in_channels, out_channels / groups,
    kh, kw] (Note [Transposed conv is conv's adjoint]); output_size picks output_padding."""
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                           output_size, data_format, 2)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    """1-D transposed convolution of NCL x with weight [in_channels, out_channels / groups, k]."""
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                           output_size, data_format, 1)


def _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                    output_size, data_format, nd):
    op = f"conv{nd}d_transpose"
    layout = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]
    if data_format != layout:       # Note [Channels-last convolutions]
        x, moved = _conv_channels_first(x, data_format, op, nd)
        return _channels_back(_conv_transpose(x, weight, bias, stride, padding, output_padding,
                                              groups, dilation, output_size, layout, nd), moved)
    extra = None
    if isinstance(padding, str):
        padding, dilation, extra = _transpose_string_padding(x, weight, stride, padding,
                                                             dilation, op, nd)
    if output_size is not None and output_padding not in (0, [0] * nd, (0,) * nd):
        # Paddle's rule: the two name the same thing
        raise ArgValueError(f"{op}: output_padding option is mutually exclusive with "
                            "output_size")
    out = _K.conv_transpose(x, weight, bias, stride, padding, output_padding, groups,
                            dilation, output_size, op=op, nd=nd)
    if extra and any(extra):   # the odd padding row at the end: cropped from the result
        keep = tuple(slice(0, n - e) for n, e in zip(out._data.shape[-nd:], extra))
        out = out[(Ellipsis,) + keep].contiguous()
    return out


def _transpose_string_padding(x, weight, stride, padding, dilation, op, nd):
    """Paddle's padding='valid' / 'same' for a transposed convolution: (symmetric padding,
    dilation, extra end crop). 'same' is the SAME rule of the forward convolution on this
    input's sizes, dilation dropped (Note [Two rules for padding='same']); an odd total
    crops one more row at the end, as Paddle's asymmetric padding does."""
    mode = padding.lower()
    if mode == "valid":
        return 0, dilation, None
    if mode != "same":
        raise ArgValueError(f"{op}: Invalid padding string {padding!r}, should be one of "
                            "{'valid', 'same'} (or an int / a sequence of ints)")
    st = _K._ntuple(stride, op, "stride", 1, nd)
    if not isinstance(x, Tensor) or not isinstance(weight, Tensor) or \
            x._data.ndim != nd + 2 or weight._data.ndim != nd + 2:
        return 0, 1, None   # conv_transpose refuses these inputs with its own message
    pd, extra = _K._same_pads(x._data.shape[2:], weight._data.shape[2:], st)
    return pd, 1, extra


def _single(v, op, name):
    if isinstance(v, (list, tuple)):
        if len(v) != 1:
            raise ArgValueError(f"{op}: {name} must be an int or a 1-element sequence, got "
                                f"{list(v)}")
        v = v[0]
    return _args.integer(v, op, name)


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
               name=None, *, eps=None):
    """x normalised over each group of num_groups channel groups (and all spatial dims),
    then * weight + bias per channel."""
    op = "group_norm"
    if eps is not None:
        epsilon = eps
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ArgValueError(f"{op}: unsupported data layout:{data_format}")
    if data_format[1] != "C" and isinstance(x, Tensor) and x.ndim > 2:
        x = x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1)))
        return _channels_back(group_norm(x, num_groups, epsilon, weight, bias), True)
    _tensor_in(x, op)
    _A.floating_only(x, op)
    if x.ndim < 2:
        raise ArgValueError(f"{op}: expected input of at least 2 dimensions [N, C, ...], got "
                            f"{_c.shape_str(x._data.shape)}")
    g = _c.count(num_groups, op, "num_groups", 1)
    n, c = x._data.shape[:2]
    if c % g:
        raise ArgValueError(f"{op}: Expected number of channels in input to be divisible by "
                            f"num_groups, but got input of shape {_c.shape_str(x._data.shape)} "
                            f"and num_groups={g}")
    for what, t in (("weight", weight), ("bias", bias)):
        _c.per_channel(t, c, op, what, x._data.shape)
    if _loss_op_ok(x, weight, bias):       # Note [Activation and normalization ops]
        return _A.group_norm_op(x, weight, bias, g, epsilon)
    xg = x.reshape([n, g, -1])
    mean = xg.mean(axis=-1, keepdim=True)
    xc = xg - mean
    var = (xc * xc).mean(axis=-1, keepdim=True)
    y = (xc * (var + epsilon).rsqrt()).reshape(list(x._data.shape))
    shape = [1, -1] + [1] * (x.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW", name=None,
                  *, torch_momentum=None):
    """Each (sample, channel) normalised over its spatial dims, then * weight + bias. With
    running statistics and use_input_stats, they are updated (Paddle's momentum convention:
    running = momentum * running + (1 - momentum) * batch; torch_momentum gives PyTorch's)."""
    op = "instance_norm"
    _tensor_in(x, op, floating=True)
    if x.ndim < 3:
        raise ArgValueError(f"{op}: expected input of at least 3 dimensions [N, C, ...], got "
                            f"{_c.shape_str(x._data.shape)}")
    c = x._data.shape[1]
    for what, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        _c.per_channel(t, c, op, what, x._data.shape)
    axes = list(range(2, x.ndim))
    shape = [1, -1] + [1] * (x.ndim - 2)
    if use_input_stats or running_mean is None:
        mean = x.mean(axis=axes, keepdim=True)
        xc = x - mean
        var = (xc * xc).mean(axis=axes, keepdim=True)
        if use_input_stats and running_mean is not None and running_var is not None:
            k = int(np.prod(x._data.shape[2:]))
            new = (1 - momentum) if torch_momentum is None else torch_momentum
            with grad_mode.no_grad():
                bm = mean.detach().reshape([x._data.shape[0], c]).mean(axis=0)
                bv = var.detach().reshape([x._data.shape[0], c]).mean(axis=0) * (k / max(k - 1, 1))
                running_mean.mul_(1 - new).add_(bm * new)
                running_var.mul_(1 - new).add_(bv * new)
        y = xc * (var + eps).rsqrt()
    else:
        y = (x - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None, *, inplace=False):
    """In training, zeroes whole channels (x[n, c]) with probability p and scales the rest by
    1 / (1 - p)."""
    p = _c.probability(p, "dropout2d")
    _tensor_in(x, "dropout2d", floating=True)
    if x.ndim not in (3, 4):
        raise ArgValueError(f"dropout2d: expected a 3D or 4D input, got "
                            f"{_c.shape_str(x._data.shape)}")
    if not training or p == 0:
        return x
    from ..ops.random import generator
    mshape = x._data.shape[:2] + (1,) * (x.ndim - 2)
    keep = (generator(_xp.place_of(x._data)).random(mshape) >= p).astype(x._data.dtype)
    if p < 1:
        keep /= (1 - p)
    # drawn on the host from the tensor's place's stream (Note [Random streams per place])
    mask = Tensor._wrap(_xp.on_place_of(keep, x._data))
    return x.mul_(mask) if inplace else x * mask


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None, *, dim=None, eps=None):
    """x / max(||x||_p, epsilon) along axis."""
    if dim is not None:
        axis = dim
    if eps is not None:
        epsilon = eps
    _tensor_in(x, "normalize", floating=True)
    p = _args.number(p, "normalize", "p", allow_bool=False)
    if p <= 0:
        raise ArgValueError(f"normalize: p must be positive, got {p}")
    if p == 2:
        s = (x * x).sum(axis=axis, keepdim=True)
        denom = s.clip(min=epsilon * epsilon).sqrt()
    else:
        s = (x.abs() ** p).sum(axis=axis, keepdim=True)
        denom = s.clip(min=epsilon ** p) ** (1.0 / p)
    return x / denom


# ----------------------------------------------------------------- Paddle's pooling and 3-D conv
# Paddle's average pools divide by the number of real elements by default (exclusive=True);
# the core pools count padding unless told otherwise (PyTorch's default), so these pass it.
def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None, *, count_include_pad=None,
               _parsed=None):
    """2-D average pooling of NCHW x; exclusive=True (Paddle's default) leaves the padding
    out of each window's divisor (count_include_pad, PyTorch's spelling, decides instead
    when given)."""
    if _parsed is not None:
        return _K.avg_pool2d(x, kernel_size, _parsed=_parsed)
    if count_include_pad is not None:
        exclusive = None
    return _K.avg_pool2d(x, kernel_size, stride, padding, ceil_mode, exclusive=exclusive,
                         count_include_pad=count_include_pad,
                         divisor_override=divisor_override, data_format=data_format)


def _channels_first(x, data_format, op, nd, last):
    """x moved from channels-last (data_format == last) to channels-first, or as it is."""
    first = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]
    if data_format not in (first, last):
        raise ArgValueError(f"{op}: data_format must be {first!r} or {last!r}, got "
                            f"{data_format!r}")
    if data_format == last and isinstance(x, Tensor):
        return x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1))), True
    return x, False


# Note [Channels-last convolutions]
# Paddle's convolutions and transposed convolutions take channels-last input (NLC, NHWC,
# NDHWC): oar moves the channels to dim 1 (a view, recorded in autograd), runs the one
# channels-first op, and moves them back, so values and gradients are the channels-first op's.
# Channels-last input must be batched (Paddle: "Input x should be 4D tensor" for conv2d), as a
# 3-D NHWC tensor would otherwise be read with its width as the channels.
def _conv_channels_first(x, data_format, op, nd):
    last = {1: "NLC", 2: "NHWC", 3: "NDHWC"}[nd]
    first = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]
    if data_format not in (first, last):
        raise ArgValueError(f"{op}: Attr(data_format) should be {first!r} or {last!r}. "
                            f"Received Attr(data_format): {data_format!r}")
    if data_format == last and isinstance(x, Tensor) and x.ndim != nd + 2:
        raise ArgValueError(f"{op}: Input x should be {nd + 2}D tensor in {last} layout, but "
                            f"received x with the shape of {list(x.shape)}")
    return _channels_first(x, data_format, op, nd, last)


def _channels_back(out, moved):
    if not moved:
        return out
    if isinstance(out, tuple):
        return tuple(_channels_back(o, True) for o in out)
    return out.transpose([0] + list(range(2, out.ndim)) + [1])


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """3-D average pooling of NCDHW (or NDHWC) x; exclusive=True by default."""
    x, moved = _channels_first(x, data_format, "avg_pool3d", 3, "NDHWC")
    return _channels_back(_K.avg_pool3d(x, kernel_size, stride, padding, ceil_mode,
                                        exclusive=exclusive, divisor_override=divisor_override),
                          moved)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    """3-D max pooling of NCDHW (or NDHWC) x; with return_mask also the int32 flat position
    of each maximum in its D*H*W volume."""
    x, moved = _channels_first(x, data_format, "max_pool3d", 3, "NDHWC")
    return _channels_back(_K.max_pool3d(x, kernel_size, stride, padding, ceil_mode=ceil_mode,
                                        return_mask=return_mask), moved)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """3-D convolution of NCDHW (or NDHWC) x with weight [out_channels, in_channels / groups,
    kd, kh, kw] (Note [N-d convolution])."""
    x, moved = _conv_channels_first(x, data_format, "conv3d", 3)
    return _channels_back(_K.conv3d(x, weight, bias, stride, padding, dilation, groups,
                                    _rule="paddle"), moved)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """3-D transposed convolution of NCDHW (or NDHWC) x with weight [in_channels,
    out_channels / groups, kd, kh, kw]; output_size picks output_padding."""
    x, moved = _conv_channels_first(x, data_format, "conv3d_transpose", 3)
    return _channels_back(_conv_transpose(x, weight, bias, stride, padding, output_padding,
                                          groups, dilation, output_size, "NCDHW", 3), moved)

__all__ = [n for n in list(globals()) if not n.startswith("_") and n not in ("np", "annotations", "R", "Tensor", "grad_mode")]


# ---------------------------------------------------------------- spatial (oar/nn/_spatial.py)
def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """x resampled to size (or by scale_factor) along its spatial dims with Paddle's rules
    (data_format, align_mode; Note [Separable resampling])."""
    from . import _spatial
    return _spatial.paddle_interpolate(x, size, scale_factor, mode, align_corners, align_mode,
                                       data_format, recompute_scale_factor, antialias, name)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format=None, name=None):
    """interpolate's other name."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format,
                       name=name)


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r] (Note [Pixel shuffle])."""
    from . import _spatial
    return _spatial.pixel_shuffle(x, upscale_factor, data_format, paddle=True)


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W] (Note [Pixel shuffle])."""
    from . import _spatial
    return _spatial.pixel_unshuffle(x, downscale_factor, data_format, paddle=True)
def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """[N, C, H, W] -> [N, C*kh*kw, L]; paddings: an int, 2 ints or 4 ints (top, left,
    bottom, right) (Note [Unfold and fold])."""
    from . import _spatial
    return _spatial.unfold(x, kernel_sizes, dilations, paddings, strides, paddle=True)


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """[N, C*kh*kw, L] -> [N, C, H, W]: columns summed back into their windows."""
    from . import _spatial
    return _spatial.fold(x, output_sizes, kernel_sizes, dilations, paddings, strides,
                         paddle=True)


# Note [Paddle pad order]
# Paddle's pad reads its list two ways. In constant mode with a list that is not one pair per
# spatial dim, the list covers the trailing dims from the last (PyTorch's order), except a
# full list of 2 * ndim pairs, which starts at axis 0 when pad_from_left_axis (Paddle's
# default); data_format is then ignored. Otherwise the input is 3-, 4- or 5-D and the list
# holds one pair per spatial dim from the last ([left, right, top, bottom, front, back]);
# with a channels-last data_format the spatial dims are 1 .. ndim-2. The core pad
# (_kernels.pad) takes PyTorch's order; this function only translates.
_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", pad_from_left_axis=True,
        name=None):
    """x padded with Paddle's reading of `pad` (Note [Paddle pad order]); negative entries
    crop (constant mode)."""
    from . import _spatial
    _K._input(x, "pad", "x")
    nd = x._data.ndim
    if isinstance(pad, Tensor):
        pad = pad.tolist()
    if isinstance(pad, (list, tuple)):
        pad = list(pad)
    if mode not in ("constant", "reflect", "replicate", "circular"):
        return _K.pad(x, pad, mode, value)      # the core's refusal (PyTorch's class)
    if mode == "constant" and isinstance(pad, list) and len(pad) != 2 * (nd - 2):
        if len(pad) == 2 * nd and pad_from_left_axis:
            pad = [v for i in range(nd - 1, -1, -1) for v in pad[2 * i:2 * i + 2]]
        return _K.pad(x, pad, mode, value)
    if nd not in _PAD_FORMATS:
        raise _spatial.LayoutAssertionError(f"pad: input tensor dimension must be in [3, 4, 5] "
                                            f"but got {nd}")
    fmt = (data_format or _PAD_FORMATS[nd][0]).upper()
    if fmt not in _PAD_FORMATS[nd]:
        raise _spatial.LayoutAssertionError(
            f"pad: input tensor dimension is {nd}, it's data format should be in "
            f"{list(_PAD_FORMATS[nd])} but got {data_format}")
    if isinstance(pad, list) and len(pad) != 2 * (nd - 2):
        raise ArgValueError(f"pad: Size of paddings should be equal to {2 * (nd - 2)}, but "
                            f"received {len(pad)} (one (before, after) pair per spatial dim of "
                            f"the {fmt} input {list(x._data.shape)})")
    value = value if mode == "constant" else None    # Paddle ignores it in the other modes
    if fmt in ("NCL", "NCHW", "NCDHW"):
        return _K.pad(x, pad, mode, value)
    to_first = [0, nd - 1] + list(range(1, nd - 1))
    back = [0] + list(range(2, nd)) + [1]
    return _K.pad(x.transpose(to_first), pad, mode, value).transpose(back).contiguous()


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True,
                name=None):
    """x [N, C, H, W] read at grid [N, Ho, Wo, 2] (Note [Grid sampling]); Paddle's
    align_corners defaults to True."""
    from . import _spatial
    return _spatial.grid_sample(x, grid, mode, padding_mode, align_corners, paddle=True)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid of the affine matrices theta for an output of out_shape (a list or
    a Tensor); Paddle's align_corners defaults to True."""
    from . import _spatial
    if isinstance(out_shape, Tensor):
        out_shape = out_shape.tolist()
    return _spatial.affine_grid(theta, out_shape, align_corners)


__all__ += ["interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold", "grid_sample", "affine_grid"]


# attention (oar/nn/_attention.py; Note [Attention masks per door])
from ._attention import paddle_sdpa as scaled_dot_product_attention  # noqa: E402
scaled_dot_product_attention.__name__ = scaled_dot_product_attention.__qualname__ = \
    "scaled_dot_product_attention"
__all__ += ["scaled_dot_product_attention"]

# losses of the breadth pass (oar/nn/_losses_paddle.py: ctc_loss, margin / embedding losses)
from ._losses_paddle import *  # noqa: F401,F403,E402
from . import _losses_paddle as _losses_paddle  # noqa: E402
__all__ += _losses_paddle.__all__


# activations and helpers of the breadth pass (oar/nn/_more_functional.py)
from ._more_functional import *  # noqa: F401,F403,E402
from . import _more_functional as _more_functional  # noqa: E402
__all__ += _more_functional.__all__

# adaptive max pooling (oar/nn/_adaptive_max.py, Note [Adaptive max pooling])
from ._adaptive_max import (adaptive_max_pool1d, adaptive_max_pool2d,  # noqa: F401,E402
                            adaptive_max_pool3d)
__all__ += ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"]
from ._unpool import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: F401,E402
from ._adaptive_avg import (paddle_adaptive_avg_pool1d as adaptive_avg_pool1d,  # noqa: F401,E402
                            paddle_adaptive_avg_pool3d as adaptive_avg_pool3d)
from ._nn3 import bilinear  # noqa: F401,E402
__all__ += ["bilinear"]
# Paddle's pools with its positional order, padding forms and geometry (Note [Paddle pooling])
from ._paddle_pool import (avg_pool1d, avg_pool2d, avg_pool3d, lp_pool1d,  # noqa: F401,E402,F811
                           lp_pool2d, max_pool1d, max_pool2d, max_pool3d)
__all__ += ["avg_pool1d", "lp_pool1d", "lp_pool2d", "max_pool1d"]
from ._nn3 import pdist  # noqa: F401,E402
__all__ += ["pdist"]
from ._nn3 import gumbel_softmax  # noqa: F401,E402
__all__ += ["gumbel_softmax"]
from ._nn3 import label_smooth, sequence_mask  # noqa: F401,E402
__all__ += ["label_smooth", "sequence_mask"]
from ._nn3 import sigmoid_focal_loss  # noqa: F401,E402
__all__ += ["sigmoid_focal_loss"]
from ._nn3 import hsigmoid_loss  # noqa: F401,E402
__all__ += ["hsigmoid_loss"]
