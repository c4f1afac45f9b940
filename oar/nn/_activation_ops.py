"""Activations and normalizations as single ops with PyTorch's nodes (Note [Activation and
normalization ops]): softmax, log_softmax, layer_norm, group_norm, silu, elu, hardswish,
hardsigmoid, hardtanh (relu6), softplus, log_sigmoid, mish; celu and selu
(Note [ELU family ops]), hardshrink, softshrink, softsign, tanhshrink, stanh,
rrelu_with_noise, glu."""
from __future__ import annotations

import math

import numpy as np

from .. import _xp
from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError, DtypeNotImplementedError
from ..autograd.saved import SavedTensor
from ..ops import registry as R
from ..tensor import Tensor

# Note [Activation and normalization ops]
# The functional forms below are single ops, as in PyTorch, so `y.grad_fn` is PyTorch's node
# (SoftmaxBackward0, LogSoftmaxBackward0, NativeLayerNormBackward0, NativeGroupNormBackward0,
# SiluBackward0, EluBackward0, HardswishBackward0, HardsigmoidBackward0, HardtanhBackward0,
# SoftplusBackward0, LogSigmoidBackward0, MishBackward0; gelu and leaky_relu live in
# _kernels.py) and its next_functions are the input edges (layer_norm and group_norm: input,
# weight, bias, None where absent). Each node saves what PyTorch's derivatives.yaml saves:
# softmax and log_softmax their result; layer_norm its input, weight, bias and the per-row
# mean and rstd; group_norm its input, weight and the per-(sample, group) mean and rstd (set
# right after dispatch, as Note [BatchNorm op] does); an activation its input. The in-place
# forms whose backward reads the result are PyTorch's result-saving overloads: elu_
# (EluBackward1) and leaky_relu_ (LeakyReluBackward1), so they need no copy of the old value
# (their backward refuses a negative alpha / slope, as PyTorch's); hardtanh_ saves its result
# too (x is strictly inside (min, max) exactly where the result is), under PyTorch's name
# HardtanhBackward0, and so does F.leaky_relu with a slope >= 0 (LeakyReluBackward0; x > 0
# exactly where the result is > 0), which keeps BatchNorm -> LeakyReLU at one saved
# activation (a negative slope saves the input, as PyTorch). The other in-place
# forms (silu_, hardswish_, hardsigmoid_, mish_) read the input, whose old value the registry
# keeps (Note [Saving the old value]).
# The gradients are PyTorch's formulas: NumPy in a plain backward (one buffer per result, no
# intermediate tensors), oar ops under create_graph, where the normalizations recompute
# their statistics from x so that second derivatives see their dependence on x. Integer
# inputs raise DtypeNotImplementedError (NotImplementedError, as PyTorch's "... not implemented for
# 'Long'"); a normalization whose input, weight and bias do not share one floating dtype
# goes through the composition it replaced (its checks and results unchanged).


# a dtype the kernel does not implement: the one error class for it (autograd/errors.py)
KernelDtypeError = DtypeNotImplementedError


_TORCH_DTYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                      "uint8": "Byte", "bool": "Bool", "float16": "Half", "float32": "Float",
                      "float64": "Double", "uint16": "UInt16", "uint32": "UInt32",
                      "uint64": "UInt64"}


def floating_only(x, op):
    """Note [Activation and normalization ops]: the kernels are defined on floating tensors."""
    dt = x._data.dtype
    if not R._dt.is_float(dt):   # Note [bfloat16]
        name = _TORCH_DTYPE_NAMES.get(dt.name, dt.name)
        raise KernelDtypeError(f"{op}(): \"{op}\" not implemented for '{name}' (got a {dt.name} "
                               f"tensor of shape {list(x._data.shape)}); it needs a floating "
                               "tensor. Fix: cast it first, e.g. x.astype('float32') (PyTorch: "
                               "x.float(), or dtype= for softmax)")


def _check(op_name, args, attrs, rdt):
    floating_only(args[0], op_name.rstrip("_"))


def _wrap(a, dt):
    return Tensor._wrap(_xp.asarray(a, dtype=dt))


_F = R.FUNCTIONS


def _where(cond, a, b):
    return _F["where"](cond, a, b)


# ------------------------------------------------------------------ softmax, log_softmax
_STAT_DTYPES: dict = {}


def _stat_dtype(dt):
    """Accumulate float16 sums in float32, as PyTorch's CPU kernels do."""
    r = _STAT_DTYPES.get(dt)
    if r is None:
        r = _STAT_DTYPES[dt] = np.promote_types(dt, np.float32)
    return r


def _k_softmax(x, axis):
    if x.ndim == 0:     # NumPy gives 0-d results as scalars: compute on one element
        return _k_softmax(x.reshape(1), 0).reshape(())
    if x.size == 0:
        return np.empty_like(x)
    # the ufuncs' own methods (np.max, np.sum without their wrappers), no np.errstate
    # (Note [Floating-point warnings])
    y = np.subtract(x, np.maximum.reduce(x, axis=axis, keepdims=True))
    np.exp(y, out=y)
    s = np.add.reduce(y, axis=axis, keepdims=True, dtype=_stat_dtype(x.dtype))
    np.divide(y, s, out=y, casting="unsafe")
    return y


def _b_softmax(c, g):
    """PyTorch's _softmax_backward_data: y * (g - sum(g * y))."""
    axis = c.attrs[0]
    y = c.out
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        return (y * (g - (g * y).sum(axis=axis, keepdim=True)),)
    yd, gd = y._data, g._data
    s = np.add.reduce(gd * yd, axis=axis, keepdims=True)
    r = np.subtract(gd, s)
    r *= yd
    return (_wrap(r, yd.dtype),)


def _k_log_softmax(x, axis):
    if x.ndim == 0:     # NumPy gives 0-d results as scalars: compute on one element
        return _k_log_softmax(x.reshape(1), 0).reshape(())
    if x.size == 0:
        return np.empty_like(x)
    y = np.subtract(x, np.maximum.reduce(x, axis=axis, keepdims=True))   # as _k_softmax
    lse = np.log(np.add.reduce(np.exp(y), axis=axis, keepdims=True, dtype=_stat_dtype(x.dtype)))
    np.subtract(y, lse, out=y, casting="unsafe")
    return y


def _b_log_softmax(c, g):
    """PyTorch's _log_softmax_backward_data: g - exp(y) * sum(g)."""
    axis = c.attrs[0]
    y = c.out
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops
        return (g - y.exp() * g.sum(axis=axis, keepdim=True),)
    yd, gd = y._data, g._data
    r = _xp.asarray(np.exp(yd))      # an array also for a 0-d y
    r *= np.add.reduce(gd, axis=axis, keepdims=True)
    np.subtract(gd, r, out=r)
    return (_wrap(r, yd.dtype),)


SOFTMAX = R.OpDef("softmax", _k_softmax, _b_softmax, needs={"x": ("out",)},
                  attrs=(("axis", -1),), method=False, function=False,
                  doc="exp(x) normalised to sum to 1 along axis "
                      "(Note [Activation and normalization ops]).")
LOG_SOFTMAX = R.OpDef("log_softmax", _k_log_softmax, _b_log_softmax, needs={"x": ("out",)},
                      attrs=(("axis", -1),), method=False, function=False,
                      doc="log(softmax(x)) along axis, computed stably "
                          "(Note [Activation and normalization ops]).")


def softmax_op(x, axis, log=False):
    """softmax (log_softmax) of floating x along the normalised axis (None for a 0-d x)."""
    op = "log_softmax" if log else "softmax"
    floating_only(x, op)
    return R.dispatch(LOG_SOFTMAX if log else SOFTMAX, (x,), (axis,))


# ------------------------------------------------------------------ layer_norm, group_norm
def _moments(x2, eps):
    """(mean, rstd) of each row of the 2-D x2 (biased variance), in x2's dtype."""
    dt = x2.dtype
    n = max(x2.shape[1], 1)
    acc = x2.astype(_stat_dtype(dt), copy=False)
    with np.errstate(all="ignore"):
        mean = acc.sum(axis=1, keepdims=True) / n
        xc = acc - mean
        var = np.einsum("ij,ij->i", xc, xc)[:, None] / n
        rstd = 1 / np.sqrt(var + eps)
    return mean.astype(dt, copy=False), rstd.astype(dt, copy=False)


# layer_norm and group_norm are one computation on a (rows, m) view of the input: each row
# (a sample's trailing dims; a sample's channel group) is normalised by its own mean and
# rstd. They differ only in how the rows are cut and in how weight and bias broadcast, so the
# row-wise pieces of their kernels and backwards are shared here.
def _normalize_rows(x2, mean, rstd):
    """(x2 - mean) * rstd for the 2-D x2 and its per-row (rows, 1) statistics."""
    with np.errstate(all="ignore"):
        xh = np.subtract(x2, mean)
        xh *= rstd
    return xh


def _rows_input_grad(gg, xh, rstd):
    """PyTorch's gradient through the row normalisation, from gg (rows, m), the gradient
    with respect to the normalised rows xh: rstd * (gg - mean(gg) - xh * mean(gg * xh)),
    the means over each row (an empty row gives an empty gradient)."""
    m = gg.shape[1]
    with np.errstate(all="ignore"):
        dx = gg - gg.mean(axis=1, keepdims=True) if m else gg.copy()
        if m:
            dx -= xh * (np.einsum("ij,ij->i", gg, xh)[:, None] / m)
        dx *= rstd
    return dx


def _graph_moments(x, axis, eps):
    """x - mean and rstd over axis in oar ops (create_graph): recomputed from x, so that
    second derivatives see how the statistics depend on x."""
    xc = x - x.mean(axis=axis, keepdim=True)
    return xc, ((xc * xc).mean(axis=axis, keepdim=True) + eps).rsqrt()


def _graph_input_grad(gg, xh, rstd, axis):
    """_rows_input_grad in oar ops (create_graph), the means over axis."""
    return (gg - gg.mean(axis=axis, keepdim=True)
            - xh * (gg * xh).mean(axis=axis, keepdim=True)) * rstd


def _k_layer_norm(x, w, b, k, eps):
    dt = x.dtype
    lead = x.shape[:x.ndim - k]
    rows, n = math.prod(lead), math.prod(x.shape[x.ndim - k:])
    x2 = x.reshape(rows, n)
    mean, rstd = _moments(x2, eps)
    y = _normalize_rows(x2, mean, rstd).reshape(x.shape)
    if w is not None:
        y *= w
    if b is not None:
        y += b
    stat = lead + (1,) * k
    return y, mean.reshape(stat), rstd.reshape(stat)


def _b_layer_norm(c, g):
    """PyTorch's native_layer_norm_backward."""
    k, eps = c.attrs
    x, w = c.input(0), c.input(1)
    nd = len(c.input_meta[0][0])
    axes = list(range(nd - k, nd))
    lead = list(range(nd - k))
    needs = c.needs
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops, statistics from x
        xc, rstd = _graph_moments(x, axes, eps)
        xh = xc * rstd
        gx = gw = gb = None
        if needs[2] is not None:
            gb = g.sum(axis=lead) if lead else g
        if needs[1] is not None:
            gw = (g * xh).sum(axis=lead) if lead else g * xh
        if needs[0] is not None:
            gx = _graph_input_grad(g if w is None else g * w, xh, rstd, axes)
        return gx, gw, gb
    xd = x._data
    dt = xd.dtype
    shape = xd.shape
    rows, n = math.prod(shape[:nd - k]), math.prod(shape[nd - k:])
    gd = _xp.asarray(g._data, dt).reshape(rows, n)
    mean, rstd = c.input(3)._data.reshape(rows, 1), c.input(4)._data.reshape(rows, 1)
    xh = _normalize_rows(xd.reshape(rows, n), mean, rstd)
    gx = gw = gb = None
    with np.errstate(all="ignore"):
        if needs[2] is not None:
            gb = _wrap(gd.sum(axis=0).reshape(shape[nd - k:]), dt)
        if needs[1] is not None:
            gw = _wrap(np.einsum("ij,ij->j", gd, xh).reshape(shape[nd - k:]), dt)
        if needs[0] is not None:
            gg = gd if w is None else gd * w._data.reshape(1, n)
            gx = _wrap(_rows_input_grad(gg, xh, rstd).reshape(shape), dt)
    return gx, gw, gb


LAYER_NORM = R.OpDef(
    "layer_norm", _k_layer_norm, _b_layer_norm, inputs=("input", "weight", "bias"),
    attrs=(("normalized_ndim", 1), ("eps", 1e-5)), optional=("weight", "bias"),
    node_name="NativeLayerNormBackward", method=False, function=False,
    doc="Layer normalisation over the trailing dims, saving input, weight, bias, mean, rstd "
        "(Note [Activation and normalization ops]).")


def layer_norm_op(x, weight, bias, k, eps):
    """layer_norm through LAYER_NORM; arguments already checked (one floating dtype)."""
    y, mean, rstd = R.dispatch(LAYER_NORM, (x, weight, bias), (int(k), float(eps)))
    node = y._grad_fn
    if node is not None:        # what PyTorch saves, each once
        node.saved = [SavedTensor(x), None if weight is None else SavedTensor(weight),
                      None if bias is None else SavedTensor(bias), SavedTensor(mean),
                      SavedTensor(rstd)]
    return y


def _k_group_norm(x, w, b, groups, eps):
    n, c = x.shape[:2]
    hw = math.prod(x.shape[2:])
    x3 = x.reshape(n * groups, (c // groups) * hw)
    mean, rstd = _moments(x3, eps)
    y = _normalize_rows(x3, mean, rstd).reshape(n, c, hw)
    if w is not None:
        y *= w.reshape(c, 1)
    if b is not None:
        y += b.reshape(c, 1)
    return y.reshape(x.shape), mean.reshape(n, groups), rstd.reshape(n, groups)


def _b_group_norm(c, g):
    """PyTorch's native_group_norm_backward."""
    groups, eps = c.attrs
    x, w = c.input(0), c.input(1)
    shape = c.input_meta[0][0]
    n, ch = shape[0], shape[1]
    hw = math.prod(shape[2:])
    needs = c.needs
    if grad_mode.is_grad_enabled():       # create_graph: in oar ops, statistics from x
        xc, rstd = _graph_moments(x.reshape([n, groups, (ch // groups) * hw]), -1, eps)
        xh = (xc * rstd).reshape([n, ch, hw])
        g3 = g.reshape([n, ch, hw])
        gx = gw = gb = None
        if needs[2] is not None:
            gb = g3.sum(axis=[0, 2])
        if needs[1] is not None:
            gw = (g3 * xh).sum(axis=[0, 2])
        if needs[0] is not None:
            gg = (g3 if w is None else g3 * w.reshape([ch, 1])).reshape(
                [n, groups, (ch // groups) * hw])
            xh3 = xh.reshape([n, groups, (ch // groups) * hw])
            gx = _graph_input_grad(gg, xh3, rstd, -1).reshape(list(shape))
        return gx, gw, gb
    xd = x._data
    dt = xd.dtype
    rows, m = n * groups, (ch // groups) * hw
    mean, rstd = c.input(3)._data.reshape(rows, 1), c.input(4)._data.reshape(rows, 1)
    gd = _xp.asarray(g._data, dt).reshape(n, ch, hw)
    xh = _normalize_rows(xd.reshape(rows, m), mean, rstd)
    gx = gw = gb = None
    with np.errstate(all="ignore"):
        if needs[2] is not None:
            gb = _wrap(gd.sum(axis=(0, 2)), dt)
        if needs[1] is not None:
            gw = _wrap(np.einsum("nch,nch->c", gd, xh.reshape(n, ch, hw)), dt)
        if needs[0] is not None:
            gg = (gd if w is None else gd * w._data.reshape(ch, 1)).reshape(rows, m)
            gx = _wrap(_rows_input_grad(gg, xh, rstd).reshape(shape), dt)
    return gx, gw, gb


GROUP_NORM = R.OpDef(
    "group_norm", _k_group_norm, _b_group_norm, inputs=("input", "weight", "bias"),
    attrs=(("num_groups", 1), ("eps", 1e-5)), optional=("weight", "bias"),
    node_name="NativeGroupNormBackward", method=False, function=False,
    doc="Group normalisation over channel groups, saving input, weight, mean, rstd (Note "
        "[Activation and normalization ops]).")


def group_norm_op(x, weight, bias, groups, eps):
    """group_norm through GROUP_NORM; arguments already checked (one floating dtype)."""
    y, mean, rstd = R.dispatch(GROUP_NORM, (x, weight, bias), (int(groups), float(eps)))
    node = y._grad_fn
    if node is not None:        # what PyTorch saves, each once
        node.saved = [SavedTensor(x), None if weight is None else SavedTensor(weight), None,
                      SavedTensor(mean), SavedTensor(rstd)]
    return y


# ------------------------------------------------------------------ pointwise activations
def _pointwise(name, kernel, backward, attrs=(), save="x", node_name=None, floating=True,
               doc=None):
    """A pointwise activation op, not declared as a public spelling (the functional forms
    call it through R.dispatch / R.dispatch_inplace)."""
    return R.OpDef(name, kernel, backward, needs={"x": (save,)}, kind="pointwise",
                   attrs=attrs, check=_check if floating else None, method=False,
                   function=False, inplace=True,
                   node_name=node_name, doc=doc)


def _into(out, rdt, r):
    r = _xp.asarray(r)
    if out is None:
        return r.astype(rdt, copy=False)
    np.copyto(out, r, casting="unsafe")
    return out


def _np_sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _grad(c, g, d):
    """g * d, d an ndarray of x's dtype (a plain backward)."""
    d = _xp.asarray(d)
    d *= g._data
    return (_wrap(d, c.input_meta[0][1]),)


def _select(c, g, keep, d=None):
    """g (* d) where keep, else 0 (Note [Masked gradients select]), in NumPy."""
    gd = g._data if d is None else g._data * d
    return (_wrap(np.where(keep, gd, 0), c.input_meta[0][1]),)


# silu: x * sigmoid(x)
def _k_silu(out, rdt, x):
    with np.errstate(over="ignore"):
        return _into(out, rdt, x / (1 + np.exp(-x)))


def _b_silu(c, g):
    x = c.input(0)
    if grad_mode.is_grad_enabled():
        s = x.sigmoid()
        return (g * (s * (1 + x * (1 - s))),)
    xd = x._data
    s = _np_sigmoid(xd)
    return _grad(c, g, s * (1 + xd * (1 - s)))


SILU = _pointwise("silu", _k_silu, _b_silu, doc="Elementwise x * sigmoid(x) (SiLU, swish).")


# elu: x where x > 0, else alpha * (exp(x) - 1)
def _k_elu(out, rdt, x, alpha):
    with np.errstate(over="ignore"):
        return _into(out, rdt, np.where(x > 0, x, np.expm1(np.minimum(x, 0)) * alpha))


def _b_elu(c, g):
    """EluBackward0: alpha * exp(x) where x <= 0."""
    x, alpha = c.input(0), c.attrs[0]
    if grad_mode.is_grad_enabled():
        return (_where(x > 0, g, g * (x.exp() * alpha)),)
    xd = x._data
    with np.errstate(over="ignore"):
        return _grad(c, g, np.where(xd > 0, 1, np.exp(np.minimum(xd, 0)) * alpha).astype(xd.dtype))


def _b_elu_result(c, g):
    """EluBackward1 (elu_): from the result y, y + alpha where y <= 0."""
    y, alpha = c.out, c.attrs[0]
    if alpha < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative "
                           f"slope (alpha={alpha}) which is not supported. This is caused by "
                           "calling in-place forward function with a negative slope, please "
                           "call out-of-place version instead.")
    if grad_mode.is_grad_enabled():
        return (_where(y > 0, g, g * (y + alpha)),)
    yd = y._data
    return _grad(c, g, np.where(yd > 0, 1, yd + alpha).astype(yd.dtype))


ELU = _pointwise("elu", _k_elu, _b_elu, attrs=(("alpha", 1.0),),
                 doc="Elementwise x where x > 0, else alpha * (exp(x) - 1).")
ELU_RESULT = _pointwise("elu", _k_elu, _b_elu_result, attrs=(("alpha", 1.0),), save="out",
                        node_name="EluBackward1",
                        doc="elu written in place, its backward read from the result.")


# hardswish: x * relu6(x + 3) / 6; hardsigmoid: relu6(x + 3) / 6
def _k_hardswish(out, rdt, x):
    return _into(out, rdt, x * np.minimum(np.maximum(x + 3, 0), 6) / 6)


def _b_hardswish(c, g):
    """0 below -3, x / 3 + 0.5 up to 3, 1 above (PyTorch's hardswish_backward)."""
    x = c.input(0)
    if grad_mode.is_grad_enabled():
        return (_where(x < -3, g * 0.0, _where(x <= 3, g * (x / 3 + 0.5), g)),)
    xd = x._data
    d = np.where(xd <= 3, xd / 3 + 0.5, 1).astype(xd.dtype)
    return _select(c, g, ~(xd < -3), d)


def _k_hardsigmoid(out, rdt, x):
    return _into(out, rdt, np.minimum(np.maximum(x + 3, 0), 6) / 6)


def _b_hardsigmoid(c, g):
    """g / 6 strictly inside (-3, 3), else 0."""
    x = c.input(0)
    inside = (x._data > -3) & (x._data < 3)
    if grad_mode.is_grad_enabled():
        return (_where(Tensor._wrap(inside), g * float(np.float32(1) / np.float32(6)),
                       g * 0.0),)
    # PyTorch's one_sixth is the float 1.0f / 6.0f in every dtype
    return _select(c, g, inside, _xp.asarray(np.float32(1) / np.float32(6), x._data.dtype))


HARDSWISH = _pointwise("hardswish", _k_hardswish, _b_hardswish,
                       doc="Elementwise x * relu6(x + 3) / 6.")
HARDSIGMOID = _pointwise("hardsigmoid", _k_hardsigmoid, _b_hardsigmoid,
                         doc="Elementwise relu6(x + 3) / 6.")


# hardtanh: x clamped into [min, max]; its gradient is 0 at the bounds (PyTorch's)
def _k_hardtanh(out, rdt, x, lo, hi):
    return _into(out, rdt, np.minimum(np.maximum(x, lo), hi))


def _b_hardtanh(c, g, v=None):
    lo, hi = c.attrs
    v = c.input(0) if v is None else v
    return _b_hardtanh_inside(c, g, (v._data > lo) & (v._data < hi))


def _b_hardtanh_inside(c, g, inside):
    """g where inside (a bool array: lo < x < hi), else 0."""
    if grad_mode.is_grad_enabled():
        return (_where(Tensor._wrap(inside), g, g * 0.0),)
    return _select(c, g, inside)


HARDTANH = _pointwise("hardtanh", _k_hardtanh, _b_hardtanh,
                      attrs=(("min_val", -1.0), ("max_val", 1.0)), floating=False,
                      doc="Elementwise x clamped into [min_val, max_val].")
HARDTANH_RESULT = _pointwise("hardtanh", _k_hardtanh, lambda c, g: _b_hardtanh(c, g, c.out),
                             attrs=(("min_val", -1.0), ("max_val", 1.0)), save="out",
                             node_name="HardtanhBackward", floating=False,
                             doc="hardtanh written in place, its backward read from the result.")
# the Paddle door's hardtanh_: its backward reads a bool mask of min < x < max made before the
# write (Note [Paddle leaky_relu_ keeps a mask] in oar/nn/_kernels.py), so a chain of in-place
# ops after it differentiates exactly, as Paddle's
HARDTANH_MASK = R.OpDef("hardtanh", _k_hardtanh,
                        lambda c, g: _b_hardtanh_inside(c, g, c.input(0)._data),
                        needs={"x": ()}, kind="pointwise",
                        attrs=(("min_val", -1.0), ("max_val", 1.0)), method=False,
                        function=False, inplace=True,
                        doc="Paddle's hardtanh_, its backward read from a saved mask.")


# softplus: log1p(exp(beta * x)) / beta, x itself where beta * x > threshold
def _k_softplus(out, rdt, x, beta, threshold):
    bx = x * beta
    with np.errstate(over="ignore"):
        return _into(out, rdt, np.where(bx > threshold, x, np.log1p(np.exp(bx)) / beta))


def _b_softplus(c, g):
    """sigmoid(beta * x), 1 where beta * x > threshold (PyTorch's softplus_backward)."""
    x = c.input(0)
    beta, threshold = c.attrs
    if grad_mode.is_grad_enabled():
        bx = x * beta
        z = bx.exp()
        return (_where(bx > threshold, g, g * z / (z + 1)),)
    bx = x._data * beta
    with np.errstate(over="ignore", invalid="ignore"):
        z = np.exp(bx)
        d = np.where(bx > threshold, 1, z / (z + 1)).astype(x._data.dtype)
    return _grad(c, g, d)


SOFTPLUS = _pointwise("softplus", _k_softplus, _b_softplus,
                      attrs=(("beta", 1.0), ("threshold", 20.0)),
                      doc="Elementwise log(1 + exp(beta * x)) / beta (x where beta * x > "
                          "threshold).")


# log_sigmoid: min(x, 0) - log1p(exp(-|x|))
def _k_log_sigmoid(out, rdt, x):
    return _into(out, rdt, np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))))


def _b_log_sigmoid(c, g):
    """PyTorch's log_sigmoid_backward: (x < 0) - sign * z / (1 + z), z = exp(-|x|)."""
    x = c.input(0)
    if grad_mode.is_grad_enabled():
        return (g * (-x).sigmoid(),)
    xd = x._data
    z = np.exp(-np.abs(xd))
    neg = xd < 0
    d = np.where(neg, 1, 0) - np.where(neg, 1, -1) * (z / (1 + z))
    return _grad(c, g, d.astype(xd.dtype))


LOG_SIGMOID = _pointwise("log_sigmoid", _k_log_sigmoid, _b_log_sigmoid,
                         doc="Elementwise log(sigmoid(x)), computed stably.")


# mish: x * tanh(softplus(x))
def _k_mish(out, rdt, x):
    with np.errstate(over="ignore"):
        return _into(out, rdt, x * np.tanh(np.log1p(np.exp(x))))


def _b_mish(c, g):
    """tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)^2), sp = log1p(exp(x))."""
    x = c.input(0)
    if grad_mode.is_grad_enabled():
        t = x.exp().log1p().tanh()
        return (g * (t + x * x.sigmoid() * (1 - t * t)),)
    xd = x._data
    with np.errstate(over="ignore"):
        t = np.tanh(np.log1p(np.exp(xd)))
    return _grad(c, g, t + xd * _np_sigmoid(xd) * (1 - t * t))


MISH = _pointwise("mish", _k_mish, _b_mish, doc="Elementwise x * tanh(softplus(x)).")


# prelu: PyTorch's _prelu_kernel (PreluKernelBackward0), x where x > 0 else weight * x, the
# weight already shaped to broadcast over x; the node saves x and the weight
def _k_prelu(out, rdt, x, w):
    return _into(out, rdt, np.where(x > 0, x, w * x))


def _b_prelu(c, g):
    x = c.input(0)
    pos = x._data > 0
    gx = gw = None
    if grad_mode.is_grad_enabled():
        keep = Tensor._wrap(pos)
        if c.needs[0]:
            gx = _where(keep, g, c.input(1) * g)
        if c.needs[1]:
            gw = _where(keep, 0.0, x * g)
        return gx, gw
    gd = g._data
    if c.needs[0]:
        gx = _wrap(np.where(pos, gd, c.input(1)._data * gd), c.input_meta[0][1])
    if c.needs[1]:
        gw = _wrap(np.where(pos, 0, x._data * gd), c.input_meta[1][1])
    return gx, gw


PRELU = R.OpDef("prelu", _k_prelu, _b_prelu, inputs=("x", "weight"), kind="pointwise",
                needs={"x": ("x", "weight"), "weight": ("x",)}, check=_check, method=False,
                function=False, node_name="PreluKernelBackward",
                doc="x where x > 0, else weight * x (weight broadcast over x).")


def activation(op, x, attrs=(), inplace=False):
    """op applied to x (in place, returning x, when inplace); x must be a floating tensor."""
    if not isinstance(x, Tensor):
        raise ArgTypeError(f"{op.name}(): argument 'input' must be Tensor, not "
                           f"{type(x).__name__}")
    if inplace:
        return R.dispatch_inplace(op, (x,), tuple(attrs))
    if op.check is not None:
        floating_only(x, op.name)
    return R.dispatch(op, (x,), tuple(attrs))


# ------------------------------------------------------------------ more activations
# Note [ELU family ops]
# celu and selu are PyTorch's elu with other constants: scale * x where x > 0, else
# scale * alpha * (exp(input_scale * x) - 1) (celu: input_scale = 1 / alpha; selu: Klambauer's
# alpha and scale; Paddle's selu takes both as arguments). One kernel and two backwards
# serve them: from the input (CeluBackward0 / selu's EluBackward0, as PyTorch, which runs
# selu through elu), and from the result for the in-place forms (CeluBackward1 /
# EluBackward1): where y <= 0 the slope is input_scale * (y + scale * alpha). The backward's
# input scale is its own attr (grad_input_scale): PyTorch's celu backward takes 1 / alpha
# rounded to float32 while its forward uses the double; Paddle's uses the same value in both
# (the Paddle door rounds alpha and scale to float32 first, as its float attributes are).
def _k_elu3(out, rdt, x, alpha, scale, input_scale, grad_input_scale):
    with np.errstate(over="ignore"):
        neg = np.expm1(np.minimum(x, 0) * input_scale) * (alpha * scale)
        return _into(out, rdt, np.where(x > 0, x * scale, neg))


def _celu_attrs(c):
    """alpha, scale and the input scale the backward uses: PyTorch's celu backward takes it
    as 1.0 / alpha.toFloat() (float32-rounded) while its forward uses the double 1 / alpha,
    so the two are separate attrs."""
    alpha, scale, _, grad_input_scale = c.attrs
    return alpha, scale, grad_input_scale


def _b_elu3(c, g):
    x = c.input(0)
    alpha, scale, input_scale = _celu_attrs(c)
    if grad_mode.is_grad_enabled():
        return (_where(x > 0, g * scale, g * ((x * input_scale).exp() * (alpha * scale
                                                                          * input_scale))),)
    xd = x._data
    with np.errstate(over="ignore"):
        d = np.where(xd > 0, scale,
                     np.exp(np.minimum(xd, 0) * input_scale) * (alpha * scale * input_scale))
    return _grad(c, g, d.astype(xd.dtype))


def _b_elu3_result(c, g):
    y = c.out
    alpha, scale, input_scale = _celu_attrs(c)
    if alpha < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative "
                           f"slope (alpha={alpha}) which is not supported. This is caused by "
                           "calling in-place forward function with a negative slope, please "
                           "call out-of-place version instead.")
    if grad_mode.is_grad_enabled():
        return (_where(y > 0, g * scale, g * ((y + alpha * scale) * input_scale)),)
    yd = y._data
    d = np.where(yd > 0, scale, (yd + alpha * scale) * input_scale)
    return _grad(c, g, d.astype(yd.dtype))


_ELU3_ATTRS = (("alpha", 1.0), ("scale", 1.0), ("input_scale", 1.0), ("grad_input_scale", 1.0))
CELU = _pointwise("celu", _k_elu3, _b_elu3, attrs=_ELU3_ATTRS,
                  doc="Elementwise x where x > 0, else alpha * (exp(x / alpha) - 1) "
                      "(Note [ELU family ops]).")
CELU_RESULT = _pointwise("celu", _k_elu3, _b_elu3_result, attrs=_ELU3_ATTRS, save="out",
                         node_name="CeluBackward1",
                         doc="celu written in place, its backward read from the result.")
SELU = _pointwise("selu", _k_elu3, _b_elu3, attrs=_ELU3_ATTRS, node_name="EluBackward",
                  doc="Elementwise scale * (x where x > 0, else alpha * (exp(x) - 1)) "
                      "(Note [ELU family ops]).")
SELU_RESULT = _pointwise("selu", _k_elu3, _b_elu3_result, attrs=_ELU3_ATTRS, save="out",
                         node_name="EluBackward1",
                         doc="selu written in place, its backward read from the result.")
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


# hardshrink: x where |x| > lambd, else 0; softshrink: x -+ lambd outside [-lambd, lambd]
def _k_hardshrink(out, rdt, x, lambd):
    return _into(out, rdt, np.where((x > lambd) | (x < -lambd), x, 0))


def _b_hardshrink(c, g):
    """HardshrinkBackward0: g where x outside [-lambd, lambd], else 0."""
    lambd = c.attrs[0]
    xd = c.input(0)._data
    keep = (xd > lambd) | (xd < -lambd)
    if grad_mode.is_grad_enabled():
        return (_where(Tensor._wrap(keep), g, g * 0.0),)
    return _select(c, g, keep)


def _k_softshrink(out, rdt, x, lambd):
    return _into(out, rdt, np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)))


HARDSHRINK = _pointwise("hardshrink", _k_hardshrink, _b_hardshrink, attrs=(("lambd", 0.5),),
                        doc="Elementwise x where |x| > lambd, else 0.")
SOFTSHRINK = _pointwise("softshrink", _k_softshrink, _b_hardshrink, attrs=(("lambd", 0.5),),
                        doc="Elementwise x - lambd above lambd, x + lambd below -lambd, else 0.")


# softsign: x / (1 + |x|); tanhshrink: x - tanh(x). (PyTorch composes both from other ops;
# the Paddle door's are one op each.)
def _k_softsign(out, rdt, x):
    return _into(out, rdt, x / (1 + np.abs(x)))


def _b_softsign(c, g):
    """1 / (1 + |x|)^2."""
    x = c.input(0)
    if grad_mode.is_grad_enabled():
        d = x.abs() + 1
        return (g / (d * d),)
    d = 1 + np.abs(x._data)
    return _grad(c, g, (1 / (d * d)).astype(x._data.dtype))


def _k_tanhshrink(out, rdt, x):
    return _into(out, rdt, x - np.tanh(x))


def _b_tanhshrink(c, g):
    """tanh(x)^2."""
    x = c.input(0)
    if grad_mode.is_grad_enabled():
        t = x.tanh()
        return (g * (t * t),)
    t = np.tanh(x._data)
    return _grad(c, g, t * t)


SOFTSIGN = _pointwise("softsign", _k_softsign, _b_softsign, doc="Elementwise x / (1 + |x|).")
TANHSHRINK = _pointwise("tanhshrink", _k_tanhshrink, _b_tanhshrink,
                        doc="Elementwise x - tanh(x).")


# stanh (Paddle): scale_b * tanh(scale_a * x)
def _k_stanh(out, rdt, x, scale_a, scale_b):
    return _into(out, rdt, np.tanh(x * scale_a) * scale_b)


def _b_stanh(c, g):
    """scale_a * scale_b * (1 - tanh(scale_a * x)^2)."""
    x = c.input(0)
    a, b = c.attrs
    if grad_mode.is_grad_enabled():
        t = (x * a).tanh()
        return (g * ((1 - t * t) * (a * b)),)
    t = np.tanh(x._data * a)
    return _grad(c, g, (1 - t * t) * (a * b))


STANH = _pointwise("stanh", _k_stanh, _b_stanh,
                   attrs=(("scale_a", 0.67), ("scale_b", 1.7159)),
                   doc="Elementwise scale_b * tanh(scale_a * x).")


# rrelu: x * noise, the noise 1 where x > 0 and the negative slope elsewhere (drawn from
# U(lower, upper) per element in training, (lower + upper) / 2 in eval). The node saves the
# noise, as PyTorch's RreluWithNoiseBackward0 (its gradient is g * noise either way).
def _k_rrelu(out, rdt, x, noise):
    return _into(out, rdt, x * noise)


def _b_rrelu(c, g):
    noise = c.input(1)
    if grad_mode.is_grad_enabled():
        return (g * noise, None)
    return (_wrap(g._data * noise._data, c.input_meta[0][1]), None)


RRELU = R.OpDef("rrelu_with_noise", _k_rrelu, _b_rrelu, inputs=("x", "noise"),
                kind="pointwise", needs={"x": ("noise",)}, check=_check, method=False,
                function=False, inplace=True,
                doc="x * noise, noise the per-element negative slope (1 where x > 0).")


# glu: a * sigmoid(b), a and b the two halves of x along dim (GluBackward0, saving x)
def _k_glu(x, dim):
    a, b = np.split(x, 2, axis=dim)
    with np.errstate(over="ignore"):
        return a / (1 + np.exp(-b))


def _b_glu(c, g):
    x = c.input(0)
    dim = c.attrs[0]
    if grad_mode.is_grad_enabled():
        h = x.shape[dim] // 2
        lo, hi = [slice(None)] * x.ndim, [slice(None)] * x.ndim
        lo[dim], hi[dim] = slice(0, h), slice(h, None)
        a, b = x[tuple(lo)], x[tuple(hi)]
        s = b.sigmoid()
        return (_F["concat"]([g * s, g * a * s * (1 - s)], dim),)
    a, b = np.split(x._data, 2, axis=dim)
    s = _np_sigmoid(b)
    gd = g._data
    return (_wrap(np.concatenate([gd * s, gd * a * s * (1 - s)], axis=dim),
                  c.input_meta[0][1]),)


GLU = R.OpDef("glu", _k_glu, _b_glu, needs={"x": ("x",)}, attrs=(("dim", -1),), method=False,
              function=False, doc="a * sigmoid(b), a and b the halves of x along dim.")


def glu_op(x, dim, op="glu"):
    """glu of floating x along dim, whose size must be even (PyTorch's message)."""
    floating_only(x, op)
    nd = x.ndim
    if nd == 0:
        raise ArgValueError(f"{op}(): glu does not support scalars because halving size must "
                            "be even (got a 0-d tensor). Fix: give a tensor with an even-sized "
                            "dim")
    if not -nd <= dim < nd:
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of "
                         f"[{-nd}, {nd - 1}], but got {dim})")
    dim %= nd
    if x.shape[dim] % 2:
        raise ArgValueError(f"Halving dimension must be even, but dimension {dim} is size "
                            f"{x.shape[dim]} ({op}() of a tensor of shape {list(x.shape)})")
    return R.dispatch(GLU, (x,), (dim,))
RRELU_INPLACE = R.OpDef("rrelu_with_noise", _k_rrelu, _b_rrelu, inputs=("x", "noise"),
                        kind="pointwise", needs={"x": ("noise",)}, check=_check, method=False,
                        function=False, inplace=True, node_name="RreluWithNoiseBackward1",
                        doc="rrelu written in place (its backward reads only the noise).")
