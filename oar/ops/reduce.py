"""Reductions. axis/dim, keepdim; gradients broadcast back to the input shape."""
from __future__ import annotations

import collections
import math
import warnings

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError, DtypeNotImplementedError
from ..tensor import FIELD_CLASSES as _FIELDS, Tensor, wrap_as
from . import args as _args
from . import registry
from .registry import OpDef, declare


class EmptyReductionError(_args.AxisError, RuntimeError):
    """max/min/amax/amin/argmax/argmin over no elements: there is no identity to return.
    PyTorch raises IndexError (a named dim of size 0) or RuntimeError (no dim, numel() == 0);
    Paddle raises ValueError. This class is all three."""


def _nonempty(x, axes, op):
    """Refuse a max/min-like reduction over a size-0 extent (axes already normalised; None
    means all axes), before anything is computed."""
    shape = x._data.shape
    if axes is None:
        if x._data.size == 0:
            raise EmptyReductionError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0 "
                f"(input shape {list(shape)}). Fix: specify the reduction dim with the "
                "'axis'/'dim' argument.")
        return
    for a in axes:
        if shape[a] == 0:
            raise EmptyReductionError(
                f"{op}(): Expected reduction dim {a} to have non-zero size (input shape "
                f"{list(shape)}).")


def _axes(axis, ndim, op="reduction"):
    """Note [Argument layer]: the reduced axes, range-checked (IndexError-compatible) and
    free of repeats (RuntimeError-compatible), sorted; None (or []) means all axes."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        return None
    out = _args.axes(axis, ndim, op)
    return tuple(sorted(out)) if ndim else None


def _keep_shape(in_shape, axes):
    if axes is None:
        return tuple(1 for _ in in_shape)
    return tuple(1 if i in axes else n for i, n in enumerate(in_shape))


def _expand_back(ctx, g):
    in_shape = ctx.input_meta[0][0]
    axes = ctx.attrs[0]
    if not grad_mode.STATE.enabled:
        # plain backward: broadcast into a fresh buffer (cheaper than two strided views)
        out = _xp.array_module(g._data).empty(in_shape, g._data.dtype)
        out[...] = g._data.reshape(_keep_shape(in_shape, axes))
        return wrap_as(g._result_class, out)   # Note [Result class]
    return g.reshape(list(_keep_shape(in_shape, axes))).expand(list(in_shape))


def _quiet(fn, x, axes, min_count, **kw):
    """NumPy's mean/var/std without their RuntimeWarnings (Note [Floating-point warnings]):
    their ufuncs run inside NumPy's own modules, where the module filter cannot see them, so
    they run under np.errstate; "Mean of empty slice" / "Degrees of freedom <= 0" are
    warnings.warn calls, silenced only when the reduced count is that small."""
    n = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    with np.errstate(all="ignore"):
        if n > min_count:
            return fn(x, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(x, **kw)


def _np_dtype(dtype):
    if dtype is None or isinstance(dtype, bool):
        return None
    from ..dtypes import as_dtype
    return as_dtype(dtype).np


def _torch_scalar_name(dt):
    return {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char",
            "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte",
            "bool": "Bool"}.get(np.dtype(dt).name, np.dtype(dt).name)


def _k_sum(x, axes, keepdim, dtype):
    dt = _np_dtype(dtype)
    if dt is None and x.dtype.kind in "bu" or (dt is None and x.dtype.kind == "i"):
        dt = np.int64
    # np.add.reduce is np.sum without its Python wrapper (same dtypes and values), which is
    # faster and lets Note [Floating-point warnings]' filter see its warnings
    return np.add.reduce(x, axis=axes, keepdims=keepdim, dtype=dt)


def _k_mean(x, axes, keepdim, dtype):
    dt = _np_dtype(dtype)   # PyTorch's mean(dtype=): computed and returned in that dtype
    if dt is not None:
        if dt.kind not in "fc":
            raise _args.ArgTypeError(
                "mean(): could not infer output dtype. Optional dtype must be either a "
                f"floating point or complex dtype. Got: {_torch_scalar_name(dt)}")
        return _quiet(np.mean, x, axes, 0, axis=axes, keepdims=keepdim, dtype=dt)
    if x.dtype.kind not in "fc":   # complex too (Note [Complex dtypes])
        raise _args.ArgTypeError(f"mean(): expected a floating point tensor, got {x.dtype} "
                        "(cast it first, e.g. x.astype('float32'))")
    return _quiet(np.mean, x, axes, 0, axis=axes, keepdims=keepdim)


def _b_mean(ctx, g):
    in_shape = ctx.input_meta[0][0]
    axes = ctx.attrs[0]
    n = int(np.prod([in_shape[a] for a in axes])) if axes is not None else int(np.prod(in_shape))
    return (_expand_back(ctx, g) / max(n, 1),)


SUM = OpDef("sum", _k_sum, lambda ctx, g: (_expand_back(ctx, g),),
            attrs=(("axis", None), ("keepdim", False), ("dtype", None)),
            doc="Sum of x's elements over axis (all axes when None).")
MEAN = OpDef("mean", _k_mean, _b_mean, attrs=(("axis", None), ("keepdim", False), ("dtype", None)),
             doc="Mean of x's elements over axis (all axes when None).")


def _reduction(op):
    def fn(x, axis=None, keepdim=False, dtype=None, name=None, *, dim=None, keepdims=None):
        # Note [Fast reduction]
        # x.sum(), x.sum(1), x.mean(-1, True) on a tensor of a field class (Note [Field
        # classes]) with an int or no axis in range, a bool keepdim, no dtype and no
        # aliases: the checks below all pass, so the attrs are built at once, the same
        # (a normalised one-axis tuple, or None) as the general path builds them
        if (x.__class__ in _FIELDS and dim is None and keepdims is None and dtype is None
                and (keepdim is False or keepdim is True)):
            if axis is None and keepdim is False:
                return registry.dispatch(op, (x,), (None, False, None))
            if axis.__class__ is int:
                nd = x._data.ndim
                if nd and -nd <= axis < nd:
                    return registry.dispatch(op, (x,), ((axis % nd,), keepdim, None))
        x = _args.input_tensor(x, op.name)
        if dim is not None:
            axis = dim
        if keepdims is not None:
            keepdim = keepdims
        if isinstance(keepdim, str) or (keepdim is not False and keepdim is not True and keepdim is not None
                                        and not isinstance(keepdim, (bool, np.bool_))):
            # Paddle order: sum(x, axis, dtype, keepdim) (keepdim arrived in dtype's place)
            keepdim, dtype = (dtype if isinstance(dtype, (bool, np.bool_)) else False), keepdim
        if isinstance(dtype, bool):
            keepdim, dtype = dtype, None      # PyTorch order: sum(x, dim, keepdim)
        axes = _axes(axis, x._data.ndim, op.name)
        if axes is None and (axis is not None or keepdim is True):
            # dims given ([] or a dim of a 0-d tensor): all of them, spelled out, so the node
            # is PyTorch's of the dim overload (SumBackward1, Note [Node names])
            axes = tuple(range(x._data.ndim))
        return registry.dispatch(op, (x,), (axes, bool(keepdim), dtype))
    fn.__name__ = op.name
    fn.__doc__ = op.doc
    return fn


registry.OPS["sum"] = SUM
registry.OPS["mean"] = MEAN
registry.register_function("sum", _reduction(SUM))
registry.register_function("mean", _reduction(MEAN))


def _b_extreme(ctx, g):
    x = ctx.input(0)
    out = ctx.out
    axes = ctx.attrs[0]   # ties share the gradient evenly, as amax/amin do in PyTorch
    ks = list(_keep_shape(ctx.input_meta[0][0], axes))
    out_k = out.reshape(ks)
    mask = (x == out_k)
    count = mask.sum(axis=list(axes) if axes is not None else None, keepdim=True)
    return (g.reshape(ks) * mask / count,)


def _k_max(x, axes, keepdim):
    return np.max(x, axis=axes, keepdims=keepdim)


def _k_min(x, axes, keepdim):
    return np.min(x, axis=axes, keepdims=keepdim)


AMAX = OpDef("amax", _k_max, _b_extreme, needs={"x": ("x", "out")},
             attrs=(("axis", None), ("keepdim", False)),
             doc="Largest element of x over axis (all axes when None); ties share the gradient.")
AMIN = OpDef("amin", _k_min, _b_extreme, needs={"x": ("x", "out")},
             attrs=(("axis", None), ("keepdim", False)),
             doc="Smallest element of x over axis (all axes when None); ties share the gradient.")
registry.OPS["amax"] = AMAX
registry.OPS["amin"] = AMIN


def _extreme(op, fname):
    def fn(x, axis=None, keepdim=False, name=None, **kwargs):
        """Paddle's max/min: the values over axis (all axes when None), never indices. axis
        may be an int, a list of ints or an integer tensor (as Paddle). PyTorch's
        `max(input, dim)` -> (values, indices) and `max(input, other)` are oar.torch.max
        (docs/doors.md); the elementwise form here is oar.maximum / oar.minimum."""
        if kwargs:
            raise _args.ArgTypeError(
                f"{fname}() received unexpected keyword argument "
                f"{', '.join(repr(k) for k in kwargs)}. Paddle's {fname}(x, axis=None, "
                f"keepdim=False) returns the values only; for PyTorch's {fname}(input, dim) -> "
                f"(values, indices) use oar.torch.{fname}.")
        x = _args.input_tensor(x, fname)
        if isinstance(axis, Tensor):
            if axis._data.dtype.kind not in "iu":
                raise _args.ArgTypeError(
                    f"{fname}(): axis must be an int, a list of ints or an integer tensor, got "
                    f"a {axis.dtype.name} tensor. Fix: for the elementwise "
                    f"{'maximum' if op is AMAX else 'minimum'} of two tensors use "
                    f"oar.{'maximum' if op is AMAX else 'minimum'}(x, y).")
            axis = axis._data.tolist()
        axes = _axes(axis, x._data.ndim, fname)
        _nonempty(x, axes, fname)
        return registry.dispatch(op, (x,), (axes, bool(keepdim)))
    fn.__name__ = fname
    return fn


def _arg(npfn, fname):
    def fn(x, axis=None, keepdim=False, dtype="int64", name=None, *, dim=None):
        if dim is not None:
            axis = dim
        x = _args.input_tensor(x, fname)
        a = x._data
        if a.dtype.kind == "b":   # PyTorch and Paddle (no bool kernel): a RuntimeError
            raise _args.ArgTypeError(f"{fname}(): does not support bool input. Fix: cast "
                                     "first, e.g. x.int().")
        if axis is None:
            _nonempty(x, None, fname)
            r = npfn(a.reshape(-1))
            r = _xp.asarray(r, dtype=np.int64)
            if keepdim:
                r = r.reshape((1,) * a.ndim)
        else:
            ax = _args.axis(axis, a.ndim, fname)
            if a.ndim:
                _nonempty(x, (ax,), fname)
            r = npfn(a, axis=ax, keepdims=bool(keepdim)).astype(np.int64)
        return wrap_as(x._result_class, _xp.asarray(r))   # Note [Result class]
    fn.__name__ = fname
    fn.__doc__ = (f"Index (int64) of the {'largest' if npfn is np.argmax else 'smallest'} "
                  "element of x along axis (of the flattened x when None).")
    return fn


argmax = _arg(np.argmax, "argmax")
argmin = _arg(np.argmin, "argmin")
registry.register_function("argmax", argmax)
registry.register_function("argmin", argmin)
registry.register_function("max", _extreme(AMAX, "max"))
registry.register_function("min", _extreme(AMIN, "min"))


def _amax_like(op):
    def fn(x, axis=None, keepdim=False, name=None, *, dim=None):
        x = _args.input_tensor(x, op.name)
        axes = _axes(axis if dim is None else dim, x._data.ndim, op.name)
        _nonempty(x, axes, op.name)
        return registry.dispatch(op, (x,), (axes, bool(keepdim)))
    fn.__name__ = op.name
    fn.__doc__ = op.doc
    return fn


registry.register_function("amax", _amax_like(AMAX))
registry.register_function("amin", _amax_like(AMIN))


def _k_prod(x, axes, keepdim, dtype):
    return np.multiply.reduce(x, axis=axes, keepdims=keepdim, dtype=_np_dtype(dtype))


def _b_prod(ctx, g):
    x = ctx.input(0)
    axes = ctx.attrs[0]
    ks = list(_keep_shape(ctx.input_meta[0][0], axes))
    xa = x._data
    cplx = xa.dtype.kind == "c"   # the derivative conjugated: Note [Complex autograd]
    if cplx:
        xa = np.conjugate(xa)
    if not (xa == 0).any():
        if cplx:
            return (g.reshape(ks) * (ctx.out.reshape(ks) / x).conj(),)
        return (g.reshape(ks) * ctx.out.reshape(ks) / x,)
    # exact product of the other elements when zeros are present
    ax = tuple(range(xa.ndim)) if axes is None else axes
    moved = np.moveaxis(xa, ax, tuple(range(xa.ndim - len(ax), xa.ndim)))
    flat = moved.reshape(moved.shape[:xa.ndim - len(ax)] + (-1,))
    # ndarray.cumprod, not np.cumprod: Note [Floating-point warnings]
    left = np.concatenate([np.ones(flat.shape[:-1] + (1,), xa.dtype), flat[..., :-1]], -1).cumprod(-1)
    right = np.flip(np.flip(np.concatenate([flat[..., 1:], np.ones(flat.shape[:-1] + (1,), xa.dtype)], -1), -1).cumprod(-1), -1)
    others = (left * right).reshape(moved.shape)
    others = np.moveaxis(others, tuple(range(xa.ndim - len(ax), xa.ndim)), ax)
    return (g.reshape(ks) * Tensor._wrap(_xp.array(others, order="C")),)


PROD = OpDef("prod", _k_prod, _b_prod, needs={"x": ("x", "out")},
             attrs=(("axis", None), ("keepdim", False), ("dtype", None)),
             doc="Product of x's elements over axis (all axes when None).")
registry.OPS["prod"] = PROD
registry.register_function("prod", _reduction(PROD))


def _k_var(x, axes, keepdim, ddof):
    return _quiet(np.var, x, axes, ddof, axis=axes, keepdims=keepdim, ddof=ddof)


def _b_var(ctx, g):
    x = ctx.input(0)
    axes, keepdim, ddof = ctx.attrs
    in_shape = ctx.input_meta[0][0]
    n = int(np.prod([in_shape[a] for a in axes])) if axes is not None else int(np.prod(in_shape))
    ks = list(_keep_shape(in_shape, axes))
    mean = x.mean(axis=list(axes) if axes is not None else None, keepdim=True)
    return (g.reshape(ks) * (x - mean) * (2.0 / max(n - ddof, 1)),)


VAR = OpDef("var", _k_var, _b_var, needs={"x": ("x",)}, attrs=(("axis", None), ("keepdim", False), ("ddof", 1)),
            doc="Variance of x over axis, dividing by n - ddof (default 1: unbiased).")


def _b_std(ctx, g):
    return (_b_var(ctx, g)[0] / (ctx.out.reshape(list(_keep_shape(ctx.input_meta[0][0],
                                                                    ctx.attrs[0]))) * 2),)


STD = OpDef("std", lambda x, a, k, d: _quiet(np.std, x, a, d, axis=a, keepdims=k, ddof=d), _b_std,
            needs={"x": ("x", "out")}, attrs=(("axis", None), ("keepdim", False), ("ddof", 1)),
            doc="Standard deviation of x over axis, dividing by n - ddof (default 1).")


def _unbiased_overload(x, axis, unbiased):
    """PyTorch's `std(input, unbiased: bool)` overload (also var, std_mean, var_mean): in the
    PyTorch door a bool where the dim goes is `unbiased`, over all elements. Paddle reads it
    as an axis and refuses it (Note [Door conflicts])."""
    if isinstance(axis, (bool, np.bool_)) and x._result_class is not Tensor:
        return None, bool(axis)
    return axis, unbiased


def _stat_attrs(op, x, axis, unbiased, keepdim, dim, correction):
    """(axes, keepdim, ddof) of a var/std/var_mean/std_mean call, checked."""
    axis, unbiased = _unbiased_overload(x, axis, unbiased)
    # a complex x: PyTorch's variance of |x - mean| (a real result); Paddle has no kernel
    if x._data.dtype.kind != "f" and not (x._data.dtype.kind == "c"
                                          and x._result_class is not Tensor):
        raise _args.ArgTypeError(
            f"{op.name}(): std and var only support floating point dtypes, got "
            f"{x.dtype.name}. Fix: cast it first, e.g. x.astype('float32').")
    if dim is not None:
        axis = dim
    if correction is not None:
        ddof = _args.number(correction, op.name, "correction")
    else:
        ddof = 1 if unbiased else 0
    return (_axes(axis, x._data.ndim, op.name), bool(keepdim), ddof)


def _stat(op, multi=False):
    def fn(x, axis=None, unbiased=True, keepdim=False, name=None, *, dim=None, correction=None):
        x = _args.input_tensor(x, op.name)
        attrs = _stat_attrs(op, x, axis, unbiased, keepdim, dim, correction)
        if multi:
            return tuple(dispatch_multi(op, (x,), attrs))
        return registry.dispatch(op, (x,), attrs)
    fn.__name__ = op.name
    fn.__doc__ = op.doc
    return fn


registry.register_function("var", _stat(VAR))
registry.register_function("std", _stat(STD))


def _k_lse(x, axes, keepdim):
    if x.dtype.kind in "biu":   # integers and bools: in the default float dtype, as both frameworks
        x = x.astype(_dt.DEFAULT_FLOAT.np)
    m = np.max(x, axis=axes, keepdims=True, initial=-np.inf) if x.size == 0 else \
        np.max(x, axis=axes, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):   # log(0) = -inf is the answer for an empty row
        r = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
    return r if keepdim else np.squeeze(r, axis=axes) if axes is not None else r.reshape(())


LSE = OpDef("logsumexp", _k_lse,
            lambda ctx, g: (g.reshape(list(_keep_shape(ctx.input_meta[0][0], ctx.attrs[0])))
                          * (ctx.input(0) - ctx.out.reshape(list(_keep_shape(ctx.input_meta[0][0], ctx.attrs[0])))).exp(),),
            needs={"x": ("x", "out")}, attrs=(("axis", None), ("keepdim", False)),
            doc="log(sum(exp(x))) over axis, computed stably.")


def logsumexp(x, axis=None, keepdim=False, name=None, *, dim=None):
    """log(sum(exp(x))) over axis (all axes when None), computed stably."""
    x = _args.input_tensor(x, "logsumexp")
    return registry.dispatch(LSE, (x,), (_axes(axis if dim is None else dim, x._data.ndim, "logsumexp"),
                                  bool(keepdim)))


registry.register_function("logsumexp", logsumexp)


def _bool_red(npfn, fname):
    def fn(x, axis=None, keepdim=False, name=None, *, dim=None):
        x = _args.input_tensor(x, fname)
        if dim is not None:
            axis = dim
        r = _xp.asarray(npfn(x._data, axis=_axes(axis, x._data.ndim, fname), keepdims=bool(keepdim)))
        if x._data.dtype == np.uint8 and x._result_class is not Tensor:
            r = r.astype(np.uint8)   # PyTorch: any/all of uint8 are uint8 (Paddle has no uint8 kernel)
        return wrap_as(x._result_class, r)
    fn.__name__ = fname
    fn.__doc__ = (f"Boolean: whether {fname} elements of x are nonzero, over axis "
                  "(all axes when None).")
    return fn


registry.register_function("all", _bool_red(np.all, "all"))
registry.register_function("any", _bool_red(np.any, "any"))


def count_nonzero(x, axis=None, keepdim=False, name=None, *, dim=None):
    """The number (int64) of nonzero elements of x over axis (all axes when None)."""
    x = _args.input_tensor(x, "count_nonzero")
    axes = _axes(axis if dim is None else dim, x._data.ndim, "count_nonzero")
    return wrap_as(x._result_class, _xp.asarray(np.count_nonzero(x._data, axis=axes,
                                                                keepdims=bool(keepdim)),
                                               dtype=np.int64))


registry.register_function("count_nonzero", count_nonzero)


def _k_cumsum(x, axis, dtype):
    # ndarray.cumsum, not np.cumsum (its Python wrapper): Note [Floating-point warnings]
    if axis is None:
        return x.reshape(-1).cumsum(dtype=_np_dtype(dtype))
    if x.ndim == 0:   # along dim 0 of a 0-d tensor: 0-d, as PyTorch and Paddle (NumPy: 1-D)
        return x.reshape(1).cumsum(dtype=_np_dtype(dtype)).reshape(())
    return x.cumsum(axis=axis, dtype=_np_dtype(dtype))


def _b_cumsum(ctx, g):
    axis = ctx.attrs[0]
    cumsum = registry.FUNCTIONS["cumsum"]   # not g's method: Note [Door-neutral core]
    if axis is None:
        return (cumsum(g.flip([0]), 0).flip([0]).reshape(list(ctx.input_meta[0][0])),)
    return (cumsum(g.flip([axis]), axis).flip([axis]),)


def _check_cumsum_(self, args, attrs, op_name):
    """cumsum_ (torch's Tensor.cumsum_, Paddle's cumsum_): x keeps its shape and dtype
    (Note [In-place spelling of a general op]); Paddle's cumsum_ would flatten and retype."""
    axis, dtype = attrs
    x = self._data
    if axis is None and x.ndim != 1:
        raise ArgValueError(
            f"{op_name}(): without an axis the cumulative sum is flattened to shape "
            f"[{x.size}], which differs from x's shape {list(x.shape)}; an in-place op must not "
            "change its tensor's shape. Fix: pass axis (dim), or use `x = x.cumsum()`.")
    if x.dtype == np.bool_:   # the sum of bools is int64: no bool kernel (PyTorch's error)
        raise DtypeNotImplementedError(
            f"{op_name}(): \"cumsum_out_cpu\" not implemented for 'Bool' (bool tensors). "
            "Fix: cast to an integer dtype first, or use the out-of-place cumsum (int64).")
    dt = _np_dtype(dtype)
    if dt is not None and dt != x.dtype:
        raise ArgTypeError(
            f"{op_name}(): Bad in-place call: input tensor dtype {x.dtype} and output tensor "
            f"dtype {dt} should match. Fix: drop dtype=, or use `x = x.cumsum(..., dtype=...)`.")


CUMSUM = OpDef("cumsum", _k_cumsum, _b_cumsum, attrs=(("axis", None), ("dtype", None)),
               inplace=True, check=_check_cumsum_,
               doc="Cumulative sum of x along axis (flattened when None).")
declare(CUMSUM)


# ---------------------------------------------------------------- issue 10: var_mean, std_mean
# Note [Multi-output ops]
# var_mean, std_mean and aminmax are one op with two results and one node, as PyTorch's
# (VarMeanBackward0, StdMeanBackward0, AminmaxBackward0): the kernel returns both, the node
# is the grad_fn of each (output k has _out_nr k, so the engine hands the backward a dict
# out_nr -> gradient when output 1 receives one, else output 0's gradient alone), and the
# backward adds the two formulas. It saves only the input (std_mean also its result 0).
def _two_grads(g):
    return (g.get(0), g.get(1)) if isinstance(g, dict) else (g, None)


def dispatch_multi(op, args, attrs):
    """registry.dispatch of an op with several results sharing one node (Note [Multi-output
    ops])."""
    outs = registry.dispatch(op, args, attrs)
    node = outs[0]._grad_fn
    if node is not None:
        for k, o in enumerate(outs[1:], 1):
            o._grad_fn = node
            o._out_nr = k
    return outs


def _b_stat_mean(ctx, g):
    gs, gm = _two_grads(g)
    res = None
    if gs is not None:
        res = (_b_var if ctx.op.name == "var_mean" else _b_std)(ctx, gs)[0]
    if gm is not None:
        part = _b_mean(ctx, gm)[0]
        res = part if res is None else res + part
    return (res,)


def _k_stat_mean(np_stat):
    def kernel(x, axes, keepdim, ddof):
        return (np_stat(x, axis=axes, keepdims=keepdim, ddof=ddof),
                np.mean(x, axis=axes, keepdims=keepdim))
    return kernel


VAR_MEAN = OpDef("var_mean", _k_stat_mean(np.var), _b_stat_mean, needs={"x": ("x",)},
                 attrs=(("axis", None), ("keepdim", False), ("ddof", 1)),
                 method=False, function=False, doc="(var, mean) of x over axis, one node.")
STD_MEAN = OpDef("std_mean", _k_stat_mean(np.std), _b_stat_mean, needs={"x": ("x", "out")},
                 attrs=(("axis", None), ("keepdim", False), ("ddof", 1)),
                 method=False, function=False, doc="(std, mean) of x over axis, one node.")


def _b_aminmax(ctx, g):
    x = ctx.input(0)
    axes = ctx.attrs[0]
    ks = list(_keep_shape(ctx.input_meta[0][0], axes))
    res = None
    for gk, np_fn in zip(_two_grads(g), (np.min, np.max)):
        if gk is None:
            continue
        # amin's / amax's backward: ties share the gradient
        mask = x == wrap_as(Tensor, np_fn(x._data, axis=axes, keepdims=True))
        count = mask.sum(axis=list(axes) if axes is not None else None, keepdim=True)
        part = gk.reshape(ks) * mask / count
        res = part if res is None else res + part
    return (res,)


AMINMAX = OpDef("aminmax", lambda x, axes, keepdim: (np.min(x, axis=axes, keepdims=keepdim),
                                                      np.max(x, axis=axes, keepdims=keepdim)),
                _b_aminmax, needs={"x": ("x",)}, attrs=(("axis", None), ("keepdim", False)),
                method=False, function=False,
                doc="(amin, amax) of x over axis, one node (Note [Multi-output ops]).")
registry.OPS["aminmax"] = AMINMAX


for _op in (VAR_MEAN, STD_MEAN):
    _f = _stat(_op, multi=True)
    _s = _op.name.split("_")[0]
    _f.__doc__ = (f"({_s}, mean) of x over axis (all elements by default), as PyTorch's "
                  f"{_op.name}: the same arguments as {_s}.")
    registry.register_function(_op.name, _f)
del _op, _f, _s


# ---------------------------------------------------------------- issue 10: sort family
# Note [Index-selecting reductions]
# sort, topk, kthvalue, mode, median with an axis, cummax/cummin (and PyTorch's max/min with a
# dim) pick elements: their indices are computed here with NumPy (stable sort order; NaN
# counts as the largest value, as in both frameworks) and the values are taken by advanced
# indexing (`pick`), whose backward scatters the gradient to exactly the picked elements,
# as PyTorch's value_selecting_reduction_backward. The core keeps Paddle 3.3.1's meanings
# (sort returns values, argsort indices, median averages the two middle values); the
# PyTorch door's are in oar/torch/_functions.py (Note [Door conflicts]). The order of tied
# indices is unspecified in both frameworks (topk, kthvalue): oar's is the stable one.
#
# Note [Selected values op]
# The values are one op, SELECT_VALUES, whose node is named as PyTorch names the node of the
# op that picked them (its `node` attr: SortBackward0, TopkBackward0, MaxBackward0, ...,
# Note [Node names]): one kernel (take_along_axis), one node that saves only the indices (an
# attr, so a second backward is refused as PyTorch refuses it, Note [Second backward]). Its
# backward adds the gradient into zeros at the indices (scatter_add), which is PyTorch's
# value_selecting_reduction_backward where the indices along dim are distinct (sort, topk,
# max/min/median/kthvalue/mode with a dim) and its cummaxmin_backward where they repeat
# (cummax, cummin). It is differentiable again (create_graph).
def _k_select_values(x, idx, d, keepdim, node):
    if x.ndim == 0:
        return _xp.array(x, copy=True)
    v = np.take_along_axis(x, idx, axis=d)
    return v if keepdim else np.squeeze(v, d)


def _b_select_values(ctx, g):
    idx, d, keepdim, _ = ctx.attrs
    shape = ctx.input_meta[0][0]
    if not shape:
        return (g,)
    f = registry.FUNCTIONS   # not g's methods: Note [Door-neutral core]
    if not keepdim:
        g = f["unsqueeze"](g, d)
    z = f["zeros"](list(shape), dtype=g.dtype)
    return (f["scatter_add"](z, d, wrap_as(Tensor, idx), g),)


SELECT_VALUES = OpDef("select_values", _k_select_values, _b_select_values,
                      attrs=(("index", None), ("dim", 0), ("keepdim", True),
                             ("node", "SortBackward0")),
                      method=False, function=False,
                      doc="x's elements at integer indices along dim (one node named `node`).")
registry.OPS["select_values"] = SELECT_VALUES


# Note [Evenly distributed gradient]
# PyTorch's max(), min() and median() of all elements (MaxBackward1, MinBackward1,
# MedianBackward0) share the gradient evenly among the elements equal to the result, or
# among the NaNs when the result is NaN (evenly_distribute_backward): one node saving the
# input and the result. amax/amin (which divide by the count of x == result, none for NaN)
# keep their own nodes.
def _b_evenly(ctx, g):
    xa = ctx.input(0)._data
    r = ctx.out._data
    mask = np.isnan(xa) if r.dtype.kind == "f" and np.isnan(r) else (xa == r)
    return (g * wrap_as(Tensor, mask.astype(g._data.dtype)) / int(mask.sum()),)


def _k_median_all(x):
    a = x.reshape(-1)
    return _xp.array(a[median_indices(a, 0)[0][0]])


for _n, _k, _node in (("max_all", np.max, "MaxBackward1"), ("min_all", np.min, "MinBackward1"),
                      ("median_all", _k_median_all, "MedianBackward0")):
    registry.OPS[_n] = OpDef(_n, _k, _b_evenly, needs={"x": ("x", "out")}, node_name=_node,
                             method=False, function=False,
                             doc=f"PyTorch's {_n[:-4]}() of all elements "
                                 "(Note [Evenly distributed gradient]).")
del _n, _k, _node


def pick(x, idx, d, keepdim, node="IndexBackward0"):
    """x's elements at positions `idx` (int64 ndarray with x's number of dims, equal to x's
    shape off dim d) along dim d (Note [Index-selecting reductions]), as one op whose node is
    `node` (Note [Selected values op]). keepdim=False drops dim d (idx.shape[d] is 1 then)."""
    return registry.dispatch(SELECT_VALUES, (x,),
                             (_xp.ascontiguousarray(idx, dtype=np.int64), d, bool(keepdim), node))


def index_tensor(x, arr):
    """An int64 index tensor of x's result class (Note [Result class])."""
    return wrap_as(x._result_class, _xp.array(arr, dtype=np.int64, order="C"))


def sorted_indices(a, d, descending):
    """Stable sort order of ndarray `a` along d (NaN the largest): ascending, or descending
    with ties kept in their original order."""
    if a.ndim == 0:
        return np.zeros((), np.int64)
    if not descending:
        return np.argsort(a, axis=d, kind="stable")
    rev = np.argsort(np.flip(a, d), axis=d, kind="stable")
    return (a.shape[d] - 1) - np.flip(rev, d)


def median_indices(a, d):
    """(lower, upper) keepdims indices of the two middle elements along d in stable sorted
    order (equal for an odd count); both the first NaN's when the row holds a NaN."""
    n = a.shape[d]
    order = sorted_indices(a, d, False)
    kshape = a.shape[:d] + (1,) + a.shape[d + 1:]
    lo = np.full(kshape, (n - 1) // 2)
    hi = np.full(kshape, n // 2)
    if a.dtype.kind == "f":
        nans = np.isnan(a).sum(axis=d, keepdims=True)
        lo = np.where(nans > 0, n - nans, lo)
        hi = np.where(nans > 0, n - nans, hi)
    return (np.take_along_axis(order, lo, axis=d), np.take_along_axis(order, hi, axis=d))


def mode_indices(a, d):
    """Keepdims index along d of the most frequent value (the smallest among ties), at its
    last occurrence, as both frameworks return it."""
    moved = np.moveaxis(a, d, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = np.zeros(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        if row.size:
            vals, counts = np.unique(row, return_counts=True)
            hits = np.flatnonzero(row == vals[np.argmax(counts)])
            out[r] = hits[-1] if hits.size else 0
    return np.moveaxis(out.reshape(moved.shape[:-1] + (1,)), -1, d)


def cumulative_indices(a, d, better):
    """Indices along d of the running max (better=np.greater_equal) or min (np.less_equal):
    a NaN always takes over, else a tie moves the index forward (both frameworks)."""
    moved = np.moveaxis(a, d, 0)
    idx = _xp.array_module(moved).zeros(moved.shape, np.int64)
    if moved.shape[0]:
        best = moved[0].copy()
        cur = np.zeros(moved.shape[1:], np.int64)
        isnan = np.isnan if a.dtype.kind == "f" else (lambda v: _xp.array_module(v).zeros(v.shape, np.bool_))
        for i in range(moved.shape[0]):
            v = moved[i]
            take = isnan(v) | (~isnan(best) & better(v, best))
            best = np.where(take, v, best)
            cur = np.where(take, i, cur)
            idx[i] = cur
    return np.moveaxis(idx, 0, d)


def _sort_axis(x, axis, op):
    return _args.axis(-1 if axis is None else axis, x._data.ndim, op)


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """Paddle's sort: the values of x sorted along axis (stable; NaN last, or first when
    descending). The indices are argsort's; PyTorch's sort returning (values, indices) is
    oar.torch.sort."""
    x = _args.input_tensor(x, "sort")
    d = _sort_axis(x, axis, "sort")
    return pick(x, sorted_indices(x._data, d, bool(descending)), d, True, "SortBackward0")


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """The int64 indices that sort x along axis (stable; NaN last, or first when
    descending)."""
    x = _args.input_tensor(x, "argsort")
    return index_tensor(x, sorted_indices(x._data, _sort_axis(x, axis, "argsort"),
                                          bool(descending)))


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """(values, indices) of the k largest (or smallest) elements of x along axis (the last
    when None), largest first."""
    x = _args.input_tensor(x, "topk")
    k = _args.integer(k, "topk", "k")
    d = _sort_axis(x, axis, "topk")
    a = x._data
    n = a.shape[d] if a.ndim else 1
    if not 0 <= k <= n:
        raise _args.ArgValueError(f"topk(): k={k} is out of range for axis {d} of size {n} "
                                  "(0 <= k <= size)")
    idx = sorted_indices(a, d, bool(largest))
    if a.ndim:
        idx = np.take(idx, np.arange(k), axis=d)
    return TopKRetType(pick(x, idx, d, True, "TopkBackward0"), index_tensor(x, idx))


TopKRetType = collections.namedtuple("TopKRetType", ["values", "indices"])
TopKRetType.__doc__ = "topk's (values, indices), as Paddle's TopKRetType."


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """(values, indices) of the k-th smallest element of x along axis (the last when None)."""
    x = _args.input_tensor(x, "kthvalue")
    k = _args.integer(k, "kthvalue", "k")
    d = _sort_axis(x, axis, "kthvalue")
    a = x._data
    n = a.shape[d] if a.ndim else 1
    if not 1 <= k <= n:
        raise _args.ArgValueError(f"kthvalue(): selected number k={k} out of range for axis "
                                  f"{d} of size {n} (1 <= k <= size)")
    idx = sorted_indices(a, d, False)
    if a.ndim:
        idx = np.take(idx, [k - 1], axis=d)
    return selected(x, idx, d, keepdim, "KthvalueBackward0")


def selected(x, idx, d, keepdim, node="IndexBackward0"):
    """(values, indices) of keepdims indices idx along d (index-selecting reductions); the
    values' node is `node` (Note [Selected values op])."""
    values = pick(x, idx, d, keepdim, node)
    if not keepdim and x._data.ndim:
        idx = np.squeeze(idx, d)
    return values, index_tensor(x, idx)


def mode(x, axis=-1, keepdim=False, name=None):
    """(values, indices): the most frequent value of x along axis (the smallest among ties)
    and the index of its last occurrence."""
    x = _args.input_tensor(x, "mode")
    d = _sort_axis(x, axis, "mode")
    a = x._data
    if a.ndim and a.shape[d] == 0:
        raise EmptyReductionError(f"mode(): axis {d} has size 0: there is no mode")
    return selected(x, mode_indices(a, d) if a.ndim else np.zeros((), np.int64), d, keepdim,
                    "ModeBackward0")


def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """Paddle's median of x over axis (all elements when None): with mode='avg' (the
    default) the mean of the two middle values for an even count, a floating result; with
    mode='min' the lower one (with an axis: (values, indices)). NaN when a NaN is present.
    PyTorch's median (the lower value, (values, indices) with a dim) is oar.torch.median."""
    x = _args.input_tensor(x, "median")
    mode = _args.one_of(mode, ("avg", "min"), "median", "mode")
    flat = axis is None
    y = x.reshape([-1]) if flat else x
    a = y._data
    d = 0 if flat else _args.axis(axis, a.ndim, "median")
    if a.ndim and a.shape[d] == 0:
        raise EmptyReductionError(f"median(): axis {d} has size 0: there is no median")
    if a.ndim == 0:
        return y.clone() if mode == "min" or a.dtype.kind == "f" else y.astype("float32")
    lo, hi = median_indices(a, d)
    if mode == "min":
        vals, idx = selected(y, lo, d, keepdim and not flat, "MedianBackward1")
        if flat:
            return vals.reshape([1] * x._data.ndim) if keepdim else vals
        return vals, idx
    v = pick(y, lo, d, True)
    same = np.take_along_axis(a, lo, d) == np.take_along_axis(a, hi, d)
    if not same.all():   # an even count with two different middle values: their mean
        v = (v + pick(y, hi, d, True)) / 2
    if same.any():
        # one middle value: Paddle shares the gradient evenly among the elements equal to
        # it; amax over exactly those elements (the others masked to -inf) does that
        eq = wrap_as(x._result_class, same & (a == np.take_along_axis(a, lo, d)))
        shared = registry.FUNCTIONS["amax"](registry.FUNCTIONS["where"](eq, y, -np.inf), d,
                                            True)
        v = shared if same.all() else registry.FUNCTIONS["where"](
            wrap_as(x._result_class, same), shared, v)
    if v._data.dtype.kind != "f":
        v = v.astype("float32")
    if flat:
        return v.reshape([1] * x._data.ndim if keepdim else [])
    return v if keepdim else v.squeeze(d)


def _cum_extreme(better, fname):
    def fn(x, axis=None, dtype="int64", name=None):
        x = _args.input_tensor(x, fname)
        y = x.reshape([-1]) if axis is None else x
        d = 0 if axis is None else _args.axis(axis, y._data.ndim, fname)
        if y._data.ndim == 0:
            return y.clone(), index_tensor(y, np.zeros((), np.int64))
        idx = cumulative_indices(y._data, d, better)
        return (pick(y, idx, d, True, f"{fname.title()}Backward0"),
                index_tensor(y, idx).astype(dtype))
    fn.__name__ = fname
    fn.__doc__ = (f"(values, indices): the running {fname[3:]}imum of x along axis (of the "
                  "flattened x when None) and where it was reached.")
    return fn


for _n, _f in (("sort", sort), ("argsort", argsort), ("topk", topk), ("kthvalue", kthvalue),
               ("mode", mode), ("median", median),
               ("cummax", _cum_extreme(np.greater_equal, "cummax")),
               ("cummin", _cum_extreme(np.less_equal, "cummin"))):
    registry.register_function(_n, _f)
