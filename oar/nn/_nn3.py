"""nn functionals of the third breadth pass, one core each, both doors' spellings over it:
bilinear (torch F.bilinear, Paddle F.bilinear; weight [out, in1, in2] in both) and its
layers, pdist. Compositions of core ops, so every gradient is the core ops' gradient."""
from __future__ import annotations

from .. import _xp

import math

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops.registry import FUNCTIONS as _FN
from ..tensor import Tensor
from . import _checks as _c


def _tensor(v, op, name, none=False):
    if none and v is None:
        return
    if not isinstance(v, Tensor):
        raise ArgTypeError(f"{op}(): argument '{name}' must be a Tensor"
                           + (" or None" if none else "") + f", not {type(v).__name__}")


# ------------------------------------------------------------------------------- bilinear
def bilinear_core(x1, x2, weight, bias, op, names=("input1", "input2")):
    """y[..., k] = sum_ij x1[..., i] weight[k, i, j] x2[..., j] + bias: one matmul of x1 with
    weight laid out [in1, out * in2], then a product with x2 summed over in2."""
    _tensor(x1, op, names[0])
    _tensor(x2, op, names[1])
    _tensor(weight, op, "weight")
    _tensor(bias, op, "bias", none=True)
    s1, s2, ws = tuple(x1.shape), tuple(x2.shape), tuple(weight.shape)
    if len(ws) != 3:
        raise ArgValueError(f"{op}(): weight must be 3-D [out_features, in1_features, "
                            f"in2_features], got {_c.shape_str(ws)}")
    if not s1 or not s2 or s1[:-1] != s2[:-1]:
        raise ArgValueError(f"{op}(): {names[0]} {_c.shape_str(s1)} and {names[1]} "
                            f"{_c.shape_str(s2)} must have the same leading dimensions (all "
                            "but the last)")
    out, in1, in2 = ws
    if s1[-1] != in1 or s2[-1] != in2:
        raise ArgValueError(f"{op}(): {names[0]} {_c.shape_str(s1)} and {names[1]} "
                            f"{_c.shape_str(s2)} do not match weight {_c.shape_str(ws)}: their "
                            f"last sizes must be in1_features={in1} and in2_features={in2}")
    if bias is not None and (math.prod(bias.shape) != out or len(bias.shape) > 2):
        raise ArgValueError(f"{op}(): bias {_c.shape_str(tuple(bias.shape))} must hold "
                            f"out_features={out} values")
    if x1.dtype != weight.dtype or x2.dtype != weight.dtype:
        raise ArgTypeError(f"{op}(): expected {names[0]}, {names[1]} and weight of one dtype, "
                           f"got {x1.dtype.name}, {x2.dtype.name} and {weight.dtype.name}")
    a = _FN["reshape"](x1, [-1, in1])
    b = _FN["reshape"](x2, [-1, in2])
    w = _FN["reshape"](_FN["permute"](weight, perm=[1, 0, 2]), [in1, out * in2])
    t = _FN["reshape"](_FN["matmul"](a, w), [-1, out, in2])
    y = _FN["sum"](t * _FN["unsqueeze"](b, 1), axis=-1)
    y = _FN["reshape"](y, list(s1[:-1]) + [out])
    if bias is not None:
        y = y + _FN["reshape"](bias, [out])
    return y


def bilinear(x1, x2, weight, bias=None, name=None):
    """Paddle's F.bilinear: x1 [N, in1], x2 [N, in2], weight [out, in1, in2], bias [1, out]."""
    for v, n in ((x1, "x1"), (x2, "x2")):
        if isinstance(v, Tensor) and len(v.shape) != 2:
            raise ArgValueError(f"bilinear(): {n} must be a 2-D Tensor [batch, features], got "
                                f"{_c.shape_str(tuple(v.shape))}")
    return bilinear_core(x1, x2, weight, bias, "bilinear", ("x1", "x2"))


def bilinear_init(weight, bias, in1):
    """PyTorch's Bilinear.reset_parameters: weight and bias uniform on +-1/sqrt(in1)."""
    from . import init
    bound = 1 / math.sqrt(in1) if in1 else 0.0
    init.uniform_(weight, -bound, bound)
    if bias is not None:
        init.uniform_(bias, -bound, bound)


# ---------------------------------------------------------------------------------- pdist
# Note [pdist at zero]
# pdist(x, p)[k] is the p-norm of x[i] - x[j] over the pairs i < j in row-major order.
# PyTorch's backward gives 0 where a distance is 0 and, for p < 1, where one difference is 0
# (|d| ** (p - 1) is infinite there); the plain composition norm(x[i] - x[j]) would give NaN.
# So for finite p > 0 the sum of |d| ** p and its root are taken through `where`, whose
# untaken branch carries no gradient; p = 0 counts (a zero gradient), p = inf is the norm.
def pdist_core(x, p, op, paddle_door=False):
    """The distances between the rows of a 2-D x, pairs i < j in row-major order."""
    import numpy as np
    from ..ops import args as _args
    _tensor(x, op, "x" if paddle_door else "input")
    p = _args.number(p, op, "p", allow_bool=False)
    if len(x.shape) != 2:
        raise ArgValueError(f"{op}(): pdist only supports 2D tensors, got: {len(x.shape)}D "
                            f"{_c.shape_str(tuple(x.shape))}")
    if not x.dtype.is_floating_point:
        raise ArgTypeError(f"{op}(): pdist only supports floating-point dtypes, got "
                           f"{x.dtype.name}")
    if p < 0 or p != p:
        raise ArgValueError(f"{op}(): pdist only supports non-negative p values, got {p}")
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    from ..ops.creation import to_tensor
    d = (_FN["index_select"](x, to_tensor(i.astype(np.int64)))
         - _FN["index_select"](x, to_tensor(j.astype(np.int64))))
    zero = d == 0
    if p == 0:      # a count of the nonzero differences, with a zero gradient (not none)
        return _FN["sum"](_FN["where"](zero, d * 0, d * 0 + 1), axis=1)
    if p == float("inf"):
        return _FN["norm"](d, p=p, axis=1)
    a = _FN["abs"](_FN["where"](zero, _FN["ones_like"](d), d))
    s = _FN["sum"](_FN["where"](zero, _FN["zeros_like"](d), a ** p), axis=1)
    szero = s == 0
    root = _FN["where"](szero, _FN["ones_like"](s), s) ** (1.0 / p)
    return _FN["where"](szero, _FN["zeros_like"](s), root)


def pdist(x, p=2.0, name=None):
    """paddle.pdist: the p-norm distances between the rows of x [N, M], N(N-1)/2 values
    (Note [pdist at zero])."""
    return pdist_core(x, p, "pdist", paddle_door=True)


# ------------------------------------------------------------------------------- rms_norm
def rms_norm_core(x, normalized_shape, weight, eps, op):
    """x / sqrt(mean(x ** 2 over the trailing normalized_shape dims) + eps) * weight; eps None:
    the machine epsilon of x's dtype (PyTorch's default)."""
    from ..ops import args as _args
    _tensor(x, op, "input")
    _tensor(weight, op, "weight", none=True)
    ns = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    ns = [_args.integer(n, op, "normalized_shape") for n in ns]
    k, shape = len(ns), list(x.shape)
    if not ns or len(shape) < k or shape[len(shape) - k:] != ns:
        raise ArgValueError(f"{op}(): Given normalized_shape={ns}, expected input with shape "
                            f"[*, {', '.join(map(str, ns))}], but got input of size "
                            f"{_c.shape_str(tuple(shape))}")
    if weight is not None and list(weight.shape) != ns:
        raise ArgValueError(f"{op}(): Expected weight to be of same shape as normalized_shape, "
                            f"but got weight of shape {_c.shape_str(tuple(weight.shape))} and "
                            f"normalized_shape = {ns}")
    if not x.dtype.is_floating_point:
        raise ArgTypeError(f"{op}(): expected a floating point input, got {x.dtype.name}")
    if eps is None:
        import numpy as np
        eps = float(np.finfo(x._data.dtype).eps)
    else:
        eps = _args.number(eps, op, "eps", allow_bool=False)
    axes = list(range(len(shape) - k, len(shape)))
    y = x * _FN["rsqrt"](_FN["mean"](x * x, axis=axes, keepdim=True) + eps)
    return y * weight if weight is not None else y


# ------------------------------------------------------------------------- gumbel_softmax
# Note [Gumbel softmax per door]
# Both doors sample softmax((x + g) / tau) with g = -log(E), E ~ Exp(1) drawn through the
# tensor's own generator in x's logical order (the torch door's stream is torch's, so a seeded
# torch program gets torch's sample). With hard=True the value is the one-hot of the argmax;
# the gradients differ by framework, and each door keeps its own: PyTorch passes the soft
# sample's gradient straight through (y_hard - y_soft.detach() + y_soft); Paddle's backward is
# softmax's backward evaluated at its output, without the 1 / temperature factor of the chain
# rule (the Paddle door reproduces that: x enters the softmax with slope 1), and for a one-hot
# output it is exactly zero, so the Paddle door's hard sample carries a zero gradient (and
# still a graph, as Paddle's does).
def gumbel_softmax_core(x, tau, hard, axis, op, straight_through):
    from ..ops import args as _args
    from . import functional as F
    _tensor(x, op, "x" if not straight_through else "logits")
    tau = _args.number(tau, op, "temperature" if not straight_through else "tau",
                       allow_bool=False)
    if not straight_through and not tau > 0:
        raise ArgValueError(f"{op}(): The temperature must be greater than 0, got {tau}")
    if not x.dtype.is_floating_point:
        raise ArgTypeError(f"{op}(): expected a floating point input, got {x.dtype.name}")
    if not isinstance(hard, bool):
        raise ArgTypeError(f"{op}(): hard must be a bool, got {type(hard).__name__}")
    axis = _args.axis(axis, max(len(x.shape), 1), op, "axis" if not straight_through else "dim")
    shape = list(x.shape)
    e = _FN["zeros_like"](_FN["reshape"](x, [-1])).detach()
    e.exponential_()
    g = -_FN["log"](_FN["reshape"](e, shape))
    if straight_through:
        y_soft = F.softmax((x + g) / tau, axis=axis)
    else:   # Paddle's gradient omits the 1 / temperature factor: x enters with slope 1
        y_soft = F.softmax(x + (x / tau - x).detach() + g / tau, axis=axis)
    if not hard:
        return y_soft
    index = _FN["argmax"](y_soft, axis=axis, keepdim=True)
    y_hard = _FN["put_along_axis"](_FN["zeros_like"](y_soft).detach(), index, 1.0, axis)
    if straight_through:
        return y_hard - y_soft.detach() + y_soft
    return y_hard + y_soft * 0


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """Paddle's F.gumbel_softmax: a sample of softmax((x + Gumbel noise) / temperature) along
    axis; hard: its one-hot, whose gradient is zero as in Paddle (Note [Gumbel softmax per
    door])."""
    return gumbel_softmax_core(x, temperature, hard, axis, "gumbel_softmax", False)


# ------------------------------------------------------------------- Paddle's label helpers
def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """Paddle's F.label_smooth: (1 - epsilon) * label + epsilon * prior_dist, prior_dist the
    uniform 1 / num_classes (label's last size) when None; the gradient reaches label only."""
    from ..ops import args as _args
    _tensor(label, "label_smooth", "label")
    _tensor(prior_dist, "label_smooth", "prior_dist", none=True)
    epsilon = _args.number(epsilon, "label_smooth", "epsilon", allow_bool=False)
    if not 0.0 <= epsilon <= 1.0:
        raise ArgValueError("The value of epsilon must be between 0 and 1 (label_smooth got "
                            f"epsilon={epsilon})")
    if not label.dtype.is_floating_point:
        raise ArgTypeError(f"label_smooth(): label must be a floating point tensor (one-hot "
                           f"probabilities), got {label.dtype.name}. Fix: "
                           "label.astype('float32')")
    if not label.shape:
        raise ArgValueError("label_smooth(): label must have a class dimension, got a 0-d tensor")
    import numpy as np
    # Paddle keeps epsilon as a float32 attribute and forms 1 - epsilon in float32
    keep = float(np.float32(1.0) - np.float32(epsilon))
    epsilon = float(np.float32(epsilon))
    if prior_dist is None:
        return label * keep + epsilon / label.shape[-1]
    # Paddle's backward gives prior_dist no gradient (its kernel has none), so neither do we
    return label * keep + prior_dist.detach() * epsilon


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """Paddle's F.sequence_mask: mask[..., j] = j < x[...] for j < maxlen (default: the largest
    length), of dtype; shape x.shape + [maxlen]. No gradient."""
    import numpy as np
    from .. import dtypes as _dt
    from ..ops import args as _args
    from ..tensor import wrap_as
    _tensor(x, "sequence_mask", "x")
    if isinstance(maxlen, Tensor):
        if maxlen.size != 1:
            raise ArgValueError(f"sequence_mask(): maxlen must hold one value, got shape "
                                f"{_c.shape_str(tuple(maxlen.shape))}")
        maxlen = int(maxlen._data.reshape(()))
    dt = _dt.as_dtype(dtype)
    a = x._data
    if isinstance(maxlen, float) and maxlen == maxlen and abs(maxlen) != float("inf"):
        maxlen = int(maxlen)                 # Paddle truncates a float maxlen
    if maxlen is not None:
        maxlen = _args.integer(maxlen, "sequence_mask", "maxlen")
    if maxlen is None or maxlen < 0:         # Paddle: a negative maxlen means the default
        maxlen = max(int(a.max()), 0) if a.size else 0
    mask = np.arange(maxlen) < np.asarray(a)[..., None]
    return wrap_as(type(x), _xp.ascontiguousarray(mask.astype(dt.np)))


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum",
                       name=None):
    """Paddle's F.sigmoid_focal_loss: alpha_t * (1 - p_t) ** gamma * BCE-with-logits, divided
    by normalizer when given, then reduced ('sum' by default), in Paddle's order of operations."""
    from ..ops import args as _args
    from . import functional as F
    op = "sigmoid_focal_loss"
    _tensor(logit, op, "logit")
    _tensor(label, op, "label")
    _tensor(normalizer, op, "normalizer", none=True)
    if reduction not in ("sum", "mean", "none"):
        raise ArgValueError("The value of 'reduction' in sigmoid_focal_loss should be 'sum', "
                            f"'mean' or 'none', but received {reduction}, which is not allowed.")
    for t, n in ((logit, "logit"), (label, "label")) + (
            ((normalizer, "normalizer"),) if normalizer is not None else ()):
        if t.dtype.name not in ("float32", "float64"):
            raise ArgTypeError(f"{op}(): {n} must be float32 or float64, got {t.dtype.name}")
    if normalizer is not None and len(normalizer.shape) > 1:
        raise ArgValueError("Expected zero or one dimension of normalizer in sigmoid_focal_loss "
                            f"but got {len(normalizer.shape)}.")
    if tuple(logit.shape) != tuple(label.shape):
        raise ArgValueError(f"{op}(): logit {_c.shape_str(tuple(logit.shape))} and label "
                            f"{_c.shape_str(tuple(label.shape))} must have one shape")
    alpha = _args.number(alpha, op, "alpha", allow_bool=False)
    gamma = _args.number(gamma, op, "gamma", allow_bool=False)
    loss = F.binary_cross_entropy_with_logits(logit, label, reduction="none")
    pred = F.sigmoid(logit)
    p_t = pred * label + (1 - pred) * (1 - label)
    alpha_t = label * alpha + (1 - label) * (1 - alpha)
    loss = alpha_t * loss
    loss = _FN["pow"](1 - p_t, gamma) * loss
    if normalizer is not None:
        loss = loss / normalizer
    if reduction == "sum":
        return _FN["sum"](loss)
    if reduction == "mean":
        return _FN["mean"](loss)
    return loss


# --------------------------------------------------------------------------- hsigmoid_loss
# Note [Hierarchical sigmoid default tree]
# Paddle's default tree is a heap over num_classes leaves: class c has code c + num_classes;
# its path visits the inner nodes (code >> (j + 1)) - 1 with branch bits (code >> j) & 1 for
# j below the code's bit length minus one. Paddle lays every path into a row as long as the
# longest one, bit_length(num_classes - 1), and the unused slots keep a pre-activation of 0,
# so each contributes softplus(0) = log 2 to the loss (kept here: the values are Paddle's).
def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None,
                  path_code=None, is_sparse=False, name=None):
    """Paddle's F.hsigmoid_loss with the default tree (Note [Hierarchical sigmoid default
    tree]): per sample the sum over its path of softplus(z) - bit * z, z = x . w[node] + b[node]
    clipped to [-40, 40]; result [N, 1]. A custom tree (path_table/path_code) is not supported."""
    import numpy as np
    from ..ops import args as _args
    from ..ops.creation import to_tensor
    from . import functional as F
    op = "hsigmoid_loss"
    _tensor(input, op, "input")
    _tensor(label, op, "label")
    _tensor(weight, op, "weight")
    _tensor(bias, op, "bias", none=True)
    if path_table is not None or path_code is not None:
        raise NotImplementedError("hsigmoid_loss: a custom tree (path_table, path_code) is not "
                                  "supported by oar; only the default tree")
    c = _args.integer(num_classes, op, "num_classes")
    if c < 2:
        raise ArgValueError(f"{op}(): num_classes must be at least 2, got {c}")
    if len(input.shape) != 2:
        raise ArgValueError(f"{op}(): input must be 2-D [N, feature_size], got "
                            f"{_c.shape_str(tuple(input.shape))}")
    n, d = input.shape
    if list(weight.shape) != [c - 1, d]:
        raise ArgValueError(f"{op}(): weight must be [num_classes - 1, feature_size] = "
                            f"[{c - 1}, {d}], got {_c.shape_str(tuple(weight.shape))}")
    if bias is not None and math.prod(bias.shape) != c - 1:
        raise ArgValueError(f"{op}(): bias must hold num_classes - 1 = {c - 1} values, got "
                            f"{_c.shape_str(tuple(bias.shape))}")
    lab = np.asarray(label._data).reshape(-1)
    if lab.dtype.kind not in "iu" or lab.size != n:
        raise ArgValueError(f"{op}(): label must hold N={n} integer classes, got "
                            f"{label.dtype.name} {_c.shape_str(tuple(label.shape))}")
    if lab.size and (lab.min() < 0 or lab.max() >= c):
        raise ArgValueError(f"{op}(): label values must lie in [0, {c}), got "
                            f"[{lab.min()}, {lab.max()}]")
    width = int(c - 1).bit_length()
    code = lab.astype(np.int64) + c
    length = np.array([int(v).bit_length() - 1 for v in code], dtype=np.int64)
    j = np.arange(width)
    valid = j[None, :] < length[:, None]                                  # [N, width]
    node = np.where(valid, (code[:, None] >> (j[None, :] + 1)) - 1, 0)
    bit = np.where(valid, (code[:, None] >> j[None, :]) & 1, 0).astype(input._data.dtype)
    w = _FN["reshape"](_FN["index_select"](weight, to_tensor(node.reshape(-1))), [n, width, d])
    z = _FN["sum"](w * _FN["unsqueeze"](input, 1), axis=-1)
    if bias is not None:
        bsel = _FN["index_select"](_FN["reshape"](bias, [c - 1]), to_tensor(node.reshape(-1)))
        z = z + _FN["reshape"](bsel, [n, width])
    z = _FN["where"](to_tensor(valid), z, _FN["zeros_like"](z).detach())
    z = _FN["clip"](z, -40.0, 40.0)
    loss = F.softplus(z) - z * to_tensor(bit)
    return _FN["sum"](loss, axis=1, keepdim=True)
