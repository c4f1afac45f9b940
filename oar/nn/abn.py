"""In-Place Activated BatchNorm (Rota Bulo, Porzi, Kontschieder, CVPR 2018): batch norm
fused with an invertible activation, computed in place, whose backward recomputes what it
needs from its output (Note [In-place activated batch norm]).

Layers: `InPlaceABN` (PyTorch's momentum, the `inplace_abn` library's signature, any
[N, C, *] input), `InPlaceABN1D` / `InPlaceABN2D` (Paddle's momentum and spellings). The
PyTorch door's `torch.nn.InPlaceABN` (oar/torch/nn/abn.py) is a torch Module over the same
op. The functional form is `inplace_abn` (PyTorch's momentum, as the library's)."""
from __future__ import annotations

import math

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError, InplaceLeafError
from ..autograd.inplace import records_grad
from ..ops import args as _args
from ..ops import registry as R
from ..ops.registry import OpDef
from ..tensor import Tensor
from . import _checks as _c
from . import layers as _core
from ._kernels import _first_order_only

# Note [In-place activated batch norm]
# InPlaceABN computes z = act(y), y = x_hat * gamma + beta, x_hat = (x - mean) * invstd, and
# writes z into x's own memory: the result is x (same object, same storage, version bumped
# once; a view of a non-leaf rewrites its base's history, Note [CopySlices]). It is one op
# (INPLACE_ABN below, run through registry.dispatch_inplace, so Note [Check, then write],
# Note [Leaf and view rules] and Note [Rebase history] hold as for every in-place op) that
# saves only its output z plus per-channel data: invstd (C values) and references to gamma
# and beta (the parameters, no copy). Nothing of the input is kept: where BatchNorm + an
# activation keep x - mean, x_hat and the activation's output (three tensors of x's size),
# InPlaceABN keeps one, which the next layer saves anyway as its input.
# The backward inverts both steps on the saved output: y = act^-1(z) (leaky_relu: z / slope
# where z <= 0; elu: log1p(z / alpha) where z <= 0; identity), x_hat = (y - beta) / gamma;
# act'(y) is read from z (leaky_relu: slope where z <= 0; elu: z + alpha), and then the
# standard batch-norm backward:
#   dbeta = sum(dy), dgamma = sum(dy * x_hat),
#   dx = gamma * invstd * (dy - mean(dy) - x_hat * mean(dy * x_hat))   (training)
#   dx = gamma * invstd * dy                                           (running statistics)
# the same function and gradients as BatchNorm followed by the activation (tested against
# PyTorch 2.13 and finite differences), computed over the incoming gradient and the saved
# output themselves where that is provably safe (Note [InPlaceABN backward in place]). Only invertible activations qualify: ReLU maps all
# negatives to 0, so x_hat cannot be recovered there, and is refused with that explanation.
# Conditioning (Note [InPlaceABN conditioning]) decides, per channel, whether inverting is
# accurate; where it is not, that channel's x_hat is copied at forward time, so the
# gradient stays exact (gamma == 0 included) and only such channels cost memory.
# The mapillary/inplace_abn library instead scales by |gamma| + eps so the affine step is
# always invertible; that changes the function (a different layer than BatchNorm) and is
# not what oar does.
# If another node saved x before (x = a.exp(): ExpBackward0 saved its output x), the write
# changes x's version and that node's backward raises the usual error (Note [Saved tensors
# are versioned]), naming `inplace_abn_` and the line that called it; the fix is to give
# InPlaceABN a tensor nobody saves (the output of a conv or linear layer) or a .clone().
# Running statistics are updated in place under no_grad after the write (an op that
# raised changed nothing), with the unbiased variance, as BatchNorm does.

_ACTIVATIONS = ("leaky_relu", "elu", "identity")
_NOT_INVERTIBLE = {
    "relu": "it maps every negative input to 0",
    "relu6": "it maps every negative input to 0 and every input above 6 to 6",
    "hardtanh": "it maps every input outside [-1, 1] to -1 or 1",
    "gelu": "it is not monotonic (two inputs give the same output)",
    "silu": "it is not monotonic (two inputs give the same output)",
    "swish": "it is not monotonic (two inputs give the same output)",
    "mish": "it is not monotonic (two inputs give the same output)",
}

# Note [InPlaceABN conditioning]
# Recovering x_hat = (act^-1(z) - beta) / gamma from the rounded output amplifies the
# rounding error u of z: relative to |x_hat| ~ 1 the error is about
#   u * A,  A = 1 + (|beta| + e) / |gamma|,   e = exp(-y_min) - 1 for elu where y_min < 0
# (log1p is ill-conditioned near -1: elu's flat tail), e = 0 otherwise; y_min is the
# channel's smallest pre-activation value. A channel with A > _MAX_AMPLIFICATION (at most
# two decimal digits lost), or with gamma == 0 (A infinite: nothing to invert), |gamma|
# below sqrt(the dtype's tiny) (y may underflow), or a non-finite gamma/beta, keeps a copy
# of its x_hat, taken at forward time before the write, only when a gradient is recorded.
# Its backward uses that copy instead of the inversion, so the gradients stay those of
# BatchNorm for every gamma; the cost is those channels' share of x's bytes (zero in
# ordinary training, where |gamma| ~ 1 and |beta| ~ 1).
_MAX_AMPLIFICATION = 100.0


def activation_config(activation, activation_param, op="InPlaceABN"):
    """The (name, parameter) of an InPlaceABN activation, checked: leaky_relu (slope > 0),
    elu (alpha > 0) or identity; a non-invertible activation (relu) is refused with the
    reason and the fix."""
    if not isinstance(activation, str):
        raise ArgTypeError(f"{op}: activation must be a string (one of "
                           f"{', '.join(_ACTIVATIONS)}), got {type(activation).__name__}")
    name = activation.lower()
    if name in ("none", "linear"):
        name = "identity"
    if name in _NOT_INVERTIBLE:
        raise ArgValueError(
            f"{op}: activation {activation!r} cannot be used in place: {_NOT_INVERTIBLE[name]}, "
            "so it cannot be inverted, and InPlaceABN's backward recovers its input from the "
            "saved output only (Note [In-place activated batch norm]). Fix: "
            "activation='leaky_relu' with a small slope (activation_param=0.01, the paper's "
            "choice) or 'elu'; or use BatchNorm followed by the activation (which keeps "
            "more memory).")
    if name not in _ACTIVATIONS:
        raise ArgValueError(f"{op}: unknown activation {activation!r}; InPlaceABN supports "
                            f"{', '.join(_ACTIVATIONS)} (invertible activations only)")
    param = _args.number(activation_param, op, "activation_param", allow_bool=False)
    param = float(param)
    if name != "identity" and not (param > 0 and math.isfinite(param)):
        what = "negative slope" if name == "leaky_relu" else "alpha"
        extra = (" (a slope of 0 is ReLU, which cannot be inverted; a negative slope "
                 "makes the sign of the output ambiguous)") if name == "leaky_relu" else ""
        raise ArgValueError(f"{op}: activation_param ({what} of {name}) must be a finite "
                            f"number > 0, got {activation_param!r}{extra}. Fix: e.g. "
                            f"activation_param={0.01 if name == 'leaky_relu' else 1.0}")
    return name, param


# --------------------------------------------------------------------------- the op
def _bshape(nd):
    return (1, -1) + (1,) * (nd - 2)


def _csum(a):
    """Per-channel sums of an [N, C, *] array as two BLAS products with ones (a strided
    np.sum over axes (0, 2, ...) is 4x slower)."""
    n, c = a.shape[:2]
    a2 = a.reshape(n, -1)
    s = a2.shape[1] // max(c, 1)
    xp = _xp.array_module(a)
    return (xp.ones(n, a.dtype) @ a2).reshape(c, s) @ xp.ones(s, a.dtype)


def _cdot(a, b):
    """Per-channel sums of a * b for two [N, C, *] arrays."""
    n, c = a.shape[:2]
    return np.einsum("ncs,ncs->c", a.reshape(n, c, -1), b.reshape(n, c, -1))


def bn_backward(dy, xh, invstd, wa, training, needs, into_dy=False):
    """The batch-norm backward in NumPy, shared by BatchNorm's op (Note [BatchNorm op]) and
    InPlaceABN's (Note [In-place activated batch norm]): (dx, dgamma, dbeta) from dy (the
    gradient of y = x_hat * gamma + beta), x_hat (overwritten), invstd (C values), gamma as
    an array or None, training (batch statistics: dx also flows through the mean and
    variance) and needs[0:3] (truthy where x, gamma, beta need a gradient; the others are
    None):
        dbeta = sum(dy), dgamma = sum(dy * x_hat),
        dx = gamma * invstd * (dy - mean(dy) - x_hat * mean(dy * x_hat))   (training)
        dx = gamma * invstd * dy                                           (running stats)
    sums and means per channel (over every axis but 1). dx is computed in x_hat's memory,
    or with into_dy in dy's (the caller owns dy: InPlaceABN's dy is the incoming gradient's
    buffer, Note [In-place activated batch norm]); the same operations either way, so the
    same bits."""
    shape = _bshape(dy.ndim)
    gx = gw = None
    gb = _csum(dy) if needs[2] is not None else None
    if needs[1] is not None or (needs[0] is not None and training):
        sum_dyx = _cdot(dy, xh)
        if needs[1] is not None:
            gw = sum_dyx
    if needs[0] is not None:
        k = invstd if wa is None else wa * invstd
        if training:
            n = dy.size // dy.shape[1]
            sum_dy = gb if gb is not None else _csum(dy)
            np.multiply(xh, (sum_dyx / n).reshape(shape), out=xh)
            gx = dy if into_dy else xh
            np.subtract(dy, xh, out=gx)
            gx -= (sum_dy / n).reshape(shape)
            gx *= k.reshape(shape)
        else:
            gx = np.multiply(dy, k.reshape(shape), out=dy if into_dy else None)
    return gx, gw, gb


# Note [InPlaceABN selections without masks]
# The activation, its derivative and its inverse select between two branches per element;
# NumPy's masked forms (where=, np.where, copyto) are 5-25x slower than plain ufuncs on
# random masks, so each selection is written as exact arithmetic instead:
#   leaky_relu(y) = max(y, s*y) (s <= 1; min for s > 1); its inverse min(z, z/s) (max);
#   elu(y) = max(y, 0) + alpha * expm1(min(y, 0)) (one term is exactly 0); its inverse
#   max(z, 0) + log1p(min(z, 0) / alpha);
#   a derivative f = slope_or_elu_term * (1 - p) + p with p = (z > 0) as 0.0/1.0, which is
#   exactly 1 where z > 0 and exactly the other term elsewhere.
# Each equals PyTorch's `x > 0 ? x : ...` bit for bit on finite values.
def _activate(z, act, param):
    """act applied in place to z, which holds y (Note [InPlaceABN selections without
    masks])."""
    dt = z.dtype.type
    if act == "leaky_relu":
        (np.maximum if param <= 1 else np.minimum)(z, z * dt(param), out=z)
    elif act == "elu":
        t = np.minimum(z, dt(0))
        np.expm1(t, out=t)
        t *= dt(param)
        np.maximum(z, dt(0), out=z)
        z += t


def _k_abn(out, weight, bias, mean, invstd, kept, training, act, param, kept_ch):
    """z = act(x * scale + shift) written into x (scale = gamma * invstd, shift = beta -
    mean * scale: ATen's CPU form); every check ran before (Note [Check, then write])."""
    shape = _bshape(out.ndim)
    dt = out.dtype                         # parameters of another float dtype compute in x's
    scale = invstd if weight is None else invstd * weight.astype(dt, copy=False)
    shift = -mean * scale if bias is None else bias.astype(dt, copy=False) - mean * scale
    np.multiply(out, scale.reshape(shape), out=out)
    np.add(out, shift.reshape(shape), out=out)
    _activate(out, act, param)
    return out


# Note [InPlaceABN backward in place]
# The backward needs, besides the per-channel sums, two arrays of the output's size: dy
# and x_hat. As in the paper (and the inplace_abn library's first CUDA version, which
# inverts the activation over z and writes dy over dz), neither gets memory of its own
# when it need not:
#   - dy = act'(y) * dz is written over the incoming gradient dz when the engine owns it
#     (OpNode.may_overwrite, Note [Gradient ownership]), and dx is then computed in the
#     same memory (bn_backward into_dy) and returned as that very tensor: no new storage;
#   - x_hat = (act^-1(z) - beta) / gamma is written over the saved output z when z is
#     dead (OpNode.may_overwrite_out, Note [Overwriting a dead saved output]: no
#     retain_graph, no saved-tensor hooks or post hooks, nobody else holding z's storage
#     or array), and z's version is bumped after the write.
# Where either is not allowed (the user holds z, retain_graph=True, a hook sees dz...),
# that array gets a buffer of its own, as before. The elementwise passes (dy from dz and z,
# then x_hat from z) run block by block (_blocks: whole samples, or channels of one
# sample, about _BLOCK elements), so their scratch (the derivative, z / slope) is one
# block, never a full-size temporary; the per-channel sums run on the whole arrays as
# before. Every value is computed by the same NumPy operations on the same operands as
# when each array had its own buffer (Note [InPlaceABN selections without masks]), so
# the gradients are bit for bit those of the out-of-place computation.
_BLOCK = 1 << 15


def _blocks(n, c, s):
    """Index pairs (samples, channels) covering an [n, c, s] array in blocks of about
    _BLOCK elements: runs of whole samples, or runs of channels within one sample (so a
    per-channel parameter of shape (1, c, 1) broadcasts over every block)."""
    if c * s <= _BLOCK:
        k = max(1, _BLOCK // max(c * s, 1))
        return [(slice(i, i + k), slice(None)) for i in range(0, n, k)]
    k = max(1, _BLOCK // max(s, 1))
    return [(slice(i, i + 1), slice(j, j + k)) for i in range(n) for j in range(0, c, k)]


def _dy_and_xhat(z, dz, dy, xh, act, param, wa, ba):
    """dy = act'(y) * dz into dy, and, unless xh is None, x_hat = (act^-1(z) - beta) /
    gamma into xh, block by block (Note [InPlaceABN backward in place]); dy may be dz's
    memory and xh z's. act' and act^-1 as in Note [InPlaceABN selections without masks]."""
    n, c = z.shape[:2]
    shp = (n, c, -1)
    z3, g3, d3 = z.reshape(shp), dz.reshape(shp), dy.reshape(shp)
    x3 = None if xh is None else xh.reshape(shp)
    dt = z.dtype.type
    p_ = dt(param)
    b3 = None if ba is None else ba.reshape(1, c, 1)
    w3 = None if wa is None else wa.reshape(1, c, 1)
    simple = act == "leaky_relu" and 0 <= param <= 1
    copy_dz, copy_z = dy is not dz, xh is not z
    pick = np.minimum if param <= 1 else np.maximum
    for ix in _blocks(n, c, z3.shape[2]):
        zb, gb, db = z3[ix], g3[ix], d3[ix]
        # dy: exactly dz where z > 0, exactly dz * (the other branch's derivative) elsewhere
        if act == "identity":
            if copy_dz:
                np.copyto(db, gb)
        elif simple:                          # leaky_relu, slope <= 1: max(p, slope)
            f = (zb > 0).astype(z.dtype)
            np.maximum(f, p_, out=f)
            np.multiply(gb, f, out=db)
        else:                                 # f = (1 - p) * slope_or_elu_term + p
            p = (zb > 0).astype(z.dtype)
            f = np.subtract(dt(1), p)
            if act == "leaky_relu":
                f *= p_
            else:
                f *= zb + p_
            f += p
            np.multiply(gb, f, out=db)
        if x3 is None:
            continue
        xb = x3[ix]                           # y = act^-1(z), then x_hat = (y - beta) / gamma
        if act == "leaky_relu":
            t = np.divide(zb, p_)
            pick(zb, t, out=xb)
        elif act == "elu":                    # log1p(min(z, 0) / alpha) + max(z, 0)
            t = np.minimum(zb, dt(0))
            t /= p_
            np.log1p(t, out=t)
            np.maximum(zb, dt(0), out=xb)
            xb += t
        elif copy_z:
            np.copyto(xb, zb)
        if b3 is not None:
            xb -= b3[:, ix[1]]
        if w3 is not None:
            xb /= w3[:, ix[1]]


def _b_abn(c, g):
    """Note [In-place activated batch norm]: the batch-norm backward from the saved output,
    in place where allowed (Note [InPlaceABN backward in place])."""
    _first_order_only("inplace_abn")
    training, act, param, kept_ch = c.attrs
    needs = c.needs
    zt = c.out                            # the saved output, version-checked
    z_dead = c.may_overwrite_out(zt)      # before anything here holds its array
    z = zt._data
    ga = g._data
    if ga.dtype == z.dtype and ga.flags.c_contiguous:
        own_g = c.may_overwrite(g)
    else:
        ga = _xp.ascontiguousarray(ga, z.dtype)    # a copy of our own
        own_g = True
    dy = ga if own_g else np.empty_like(z)
    need_xh = needs[0] is not None or needs[1] is not None
    xh = wa = None
    if need_xh:
        xh = z if z_dead else np.empty_like(z)
        w, b = c.input(1), c.input(2)
        wa = None if w is None else w._data.astype(z.dtype, copy=False)
        ba = None if b is None else b._data.astype(z.dtype, copy=False)
    else:
        ba = None
    with np.errstate(all="ignore"):
        _dy_and_xhat(z, ga, dy, xh, act, param, wa, ba)
    if z_dead and need_xh:
        zt._storage.version += 1          # Note [Overwriting a dead saved output]
    del zt, z
    gx = gw = gb = None
    if not need_xh:
        if needs[2] is not None:
            gb = _csum(dy)
    else:
        if kept_ch:                       # Note [InPlaceABN conditioning]
            xh[:, list(kept_ch)] = c.input(5)._data
        gx, gw, gb = bn_backward(dy, xh, c.input(4)._data, wa, training, needs, into_dy=True)
    if gx is not None and gx is g._data:
        gx = g                            # dx in the incoming gradient's memory: g itself
    else:
        gx = None if gx is None else Tensor._wrap(gx)
    return (gx,) + tuple(None if a is None else Tensor._wrap(_xp.ascontiguousarray(a, dy.dtype))
                         for a in (gw, gb)) + (None, None, None)


INPLACE_ABN = OpDef(
    "inplace_abn", _k_abn, _b_abn,
    needs={"x": ("out", "weight", "bias", "invstd", "kept"),
           "weight": ("out", "weight", "bias", "kept"), "bias": ("out",)},
    inputs=("x", "weight", "bias", "mean", "invstd", "kept"),
    attrs=(("training", True), ("activation", "leaky_relu"), ("activation_param", 0.01),
           ("kept_channels", ())),
    optional=("weight", "bias", "kept"), node_name="InPlaceABNBackward",
    doc="Batch norm and an invertible activation computed in place, saving only the output.")


# --------------------------------------------------------------------------- checks
def _check(x, weight, bias, running_mean, running_var, training, op):
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"{op}: input must be a Tensor, got {type(x).__name__}")
    xa = x._data
    if xa.ndim < 2:
        raise ArgValueError(f"{op}: expected input of at least 2 dimensions [N, C, ...], got "
                            f"{_c.shape_str(xa.shape)}")
    if xa.dtype.kind != "f":
        raise ArgTypeError(f"{op}: expected a floating input, got {x.dtype.name}. Fix: "
                           "cast it with .astype('float32')")
    c = xa.shape[1]
    for what, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        if t is None:
            continue
        if not isinstance(t, Tensor):
            raise ArgTypeError(f"{op}: {what} must be a Tensor or None, got {type(t).__name__}")
        _c.per_channel(t, c, op, what, xa.shape)
        if t._data.dtype.kind != "f":
            raise ArgTypeError(f"{op}: {what} must be floating, got {t.dtype.name}")
    if training and xa.size // max(c, 1) <= 1:
        raise ArgValueError(f"{op}: Expected more than 1 value per channel when training, "
                            f"got input size {_c.shape_str(xa.shape)}. Fix: a batch of at "
                            "least 2, or model.eval()")
    if not training and (running_mean is None or running_var is None):
        raise ArgValueError(f"{op}: running_mean and running_var are needed when not training")


def _check_leaf(x, op):
    """Note [Leaf and view rules], in InPlaceABN's words (before anything is computed)."""
    if x._view is None and x._requires_grad and x._grad_fn is None:
        raise InplaceLeafError(
            f"(InvalidArgument) Leaf Var ({x._name_if_read}) that doesn't stop gradient "
            f"can't use inplace strategy: {op} overwrites its input with its output (that is how it "
            f"saves memory), and its input, of shape {_c.shape_str(x._data.shape)}, is a leaf "
            "tensor that requires grad (a leaf Variable that requires grad is being used in an "
            "in-place operation), whose gradient would be lost. Fix: put InPlaceABN after a "
            "layer that makes a new tensor (a convolution or a linear layer), or pass a copy: "
            "`layer(x.clone())`.")


def _ill_conditioned(xa, mean, invstd, w, b, act, axes):
    """The channels whose x_hat cannot be recovered accurately from the output (Note
    [InPlaceABN conditioning])."""
    c = xa.shape[1]
    if xa.size == 0:
        return ()
    gam = np.ones(c) if w is None else np.abs(w.astype(np.float64))
    bet = np.zeros(c) if b is None else np.abs(b.astype(np.float64))
    with np.errstate(all="ignore"):
        extra = 0.0
        if act == "elu":
            lo = (xa.min(axis=axes) - mean) * invstd
            hi = (xa.max(axis=axes) - mean) * invstd
            wg = 1.0 if w is None else w.astype(np.float64)
            bb = 0.0 if b is None else b.astype(np.float64)
            ymin = np.minimum(lo * wg, hi * wg) + bb
            extra = np.where(ymin < 0, np.expm1(-np.minimum(ymin, 0)), 0.0)
        amp = 1.0 + (bet + extra) / gam
    bad = ~(amp <= _MAX_AMPLIFICATION) | (gam < math.sqrt(np.finfo(xa.dtype).tiny))
    return tuple(int(i) for i in np.flatnonzero(bad))


# --------------------------------------------------------------------------- the call
def run_inplace_abn(x, weight, bias, running_mean, running_var, training, keep, eps, act,
                    param, op="inplace_abn"):
    """InPlaceABN on x (returned, written in place). `keep` is the fraction of the running
    statistics kept per update (Paddle's momentum; PyTorch's is 1 - keep); `act`, `param`
    come from activation_config. The shared body of every InPlaceABN spelling."""
    _check(x, weight, bias, running_mean, running_var, training, op)
    xa = x._data
    nd = xa.ndim
    axes = (0,) + tuple(range(2, nd))
    shape = _bshape(nd)
    need_grad = records_grad(x, (x, weight, bias))
    if need_grad:
        _check_leaf(x, op)
    dt = xa.dtype
    with np.errstate(all="ignore"):
        if training:
            n = np.float64(xa.size // xa.shape[1])
            mean = (_csum(xa) / n).astype(dt)
            xc = np.subtract(xa, mean.reshape(shape))
            var = (_cdot(xc, xc) / n).astype(dt)
            del xc
        else:
            mean = running_mean._data.astype(dt)
            var = running_var._data.astype(dt)
        invstd = (1 / np.sqrt(var + dt.type(eps))).astype(dt, copy=False)
    wa = None if weight is None else weight._data.astype(dt, copy=False)
    ba = None if bias is None else bias._data.astype(dt, copy=False)
    kept_ch = _ill_conditioned(xa, mean, invstd, wa, ba, act, axes) if need_grad else ()
    kept = None
    if kept_ch:
        idx = list(kept_ch)
        kept = Tensor._wrap(_xp.ascontiguousarray(
            (np.take(xa, idx, axis=1) - mean[idx].reshape(shape)) * invstd[idx].reshape(shape),
            dt))
    args = (x, weight, bias, Tensor._wrap(mean), Tensor._wrap(invstd), kept)
    R.dispatch_inplace(INPLACE_ABN, args, (bool(training), act, param, kept_ch),
                       op_name="inplace_abn_")
    if training and running_mean is not None:
        from .functional import _update_running
        _update_running(running_mean, running_var, Tensor._wrap(mean), Tensor._wrap(var),
                       xa.size // xa.shape[1], keep)
    return x


def inplace_abn(x, weight, bias, running_mean, running_var, training=True, momentum=0.1,
                eps=1e-5, activation="leaky_relu", activation_param=0.01):
    """In-place activated batch norm of x ([N, C, *]): x is overwritten with
    act(batch_norm(x)) and returned; only the result is saved for backward (Note [In-place
    activated batch norm]). PyTorch's momentum, as the inplace_abn library's: running =
    (1 - momentum) * running + momentum * batch. activation: leaky_relu (activation_param is
    the slope), elu (alpha) or identity."""
    act, param = activation_config(activation, activation_param, "inplace_abn")
    m = _momentum(momentum, "inplace_abn")
    return run_inplace_abn(x, weight, bias, running_mean, running_var, bool(training), 1 - m,
                           _eps(eps, "inplace_abn"), act, param)


def _momentum(m, op):
    m = _args.number(m, op, "momentum", allow_bool=False)
    if not 0.0 <= m <= 1.0:
        raise ArgValueError(f"{op}: momentum must be in [0, 1], got {m}")
    return float(m)


def _eps(e, op):
    e = _args.number(e, op, "eps", allow_bool=False)
    if not e >= 0:
        raise ArgValueError(f"{op}: eps must be >= 0, got {e}")
    return float(e)


# --------------------------------------------------------------------------- layers
class _ABN:
    """What every InPlaceABN layer adds to its batch-norm base: the activation and a
    forward through run_inplace_abn."""

    def _set_activation(self, activation, activation_param):
        act, param = activation_config(activation, activation_param, type(self).__name__)
        self.activation, self.activation_param = act, param

    def forward(self, x):
        """x overwritten with act(batch_norm(x)) and returned (batch statistics in
        training, running ones in evaluation)."""
        self._check_input(x)
        mean, var = self._stats()
        return run_inplace_abn(x, self.weight, self.bias, mean, var,
                               self.training or mean is None, self.momentum, self.epsilon,
                               self.activation, self.activation_param, type(self).__name__)

    def _act_repr(self):
        if self.activation == "identity":
            return "activation=identity"
        return f"activation={self.activation}[{self.activation_param}]"


class InPlaceABN(_ABN, _core._BatchNorm):
    """In-place activated batch norm over [N, C, *] input (Note [In-place activated batch
    norm]), with the inplace_abn library's signature and PyTorch's momentum (running =
    0.9 * running + 0.1 * batch by default). The input is overwritten with the result and
    returned; backward recomputes what it needs from the result. activation: leaky_relu
    (activation_param = slope), elu (alpha) or identity."""
    torch_momentum = True

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, activation="leaky_relu", activation_param=0.01):
        op = type(self).__name__
        if momentum is None:
            raise NotImplementedError(
                f"{op}: momentum=None (a cumulative average over num_batches_tracked) is "
                "oar.torch.nn.InPlaceABN's; this layer needs a number. Fix: momentum=0.1, or "
                "use the PyTorch door")
        _core._BatchNorm.__init__(self, num_features, _momentum(momentum, op), eps=_eps(eps, op),
                                  affine=affine, track_running_stats=track_running_stats)
        self._set_activation(activation, activation_param)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        return (f"{self.num_features}, eps={self.epsilon}, momentum={1 - self.momentum:g}, "
                f"affine={self.affine}, {self._act_repr()}")


class _PaddleABN(_ABN, _core._BatchNorm):
    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format=None, name=None, *, activation="leaky_relu",
                 activation_param=0.01, act=None, act_alpha=None):
        op = type(self).__name__
        if data_format not in (None, "NC", "NCL", "NCHW"):
            raise NotImplementedError(f"{op}: data_format {data_format!r} is not supported "
                                      "(channels first only: NC, NCL, NCHW)")
        if act is not None:                      # Paddle's inplace_abn spelling
            activation = act
        if act_alpha is not None:
            activation_param = act_alpha
        _core._BatchNorm.__init__(self, num_features, _momentum(momentum, op),
                                  _eps(epsilon, op), weight_attr, bias_attr)
        self._set_activation(activation, activation_param)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        return (f"num_features={self.num_features}, momentum={self.momentum}, "
                f"epsilon={self.epsilon}, {self._act_repr()}")


class InPlaceABN1D(_PaddleABN):
    """In-place activated batch norm over [N, C] or [N, C, L] input (Paddle's momentum,
    default 0.9: running = 0.9 * running + 0.1 * batch; act / act_alpha are accepted for
    activation / activation_param). Note [In-place activated batch norm]."""
    _ndims = (2, 3)


class InPlaceABN2D(_PaddleABN):
    """In-place activated batch norm over [N, C, H, W] input (Paddle's momentum, default
    0.9: running = 0.9 * running + 0.1 * batch; act / act_alpha are accepted for
    activation / activation_param). Note [In-place activated batch norm]."""
    _ndims = (4,)
