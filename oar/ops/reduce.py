"""Reductions. axis/dim, keepdim; gradients broadcast back to the input shape."""
from __future__ import annotations

import numpy as np

from ..autograd import grad_mode
from ..tensor import Tensor
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
        out = np.empty(in_shape, g._data.dtype)
        out[...] = g._data.reshape(_keep_shape(in_shape, axes))
        return Tensor._wrap(out)
    return g.reshape(list(_keep_shape(in_shape, axes))).expand(list(in_shape))


def _np_dtype(dtype):
    if dtype is None or isinstance(dtype, bool):
        return None
    from ..dtypes import as_dtype
    return as_dtype(dtype).np


def _k_sum(x, axes, keepdim, dtype):
    dt = _np_dtype(dtype)
    if dt is None and x.dtype.kind in "bu" or (dt is None and x.dtype.kind == "i"):
        dt = np.int64
    return np.sum(x, axis=axes, keepdims=keepdim, dtype=dt)


def _k_mean(x, axes, keepdim, dtype):
    if x.dtype.kind != "f":
        raise _args.ArgTypeError(f"mean(): expected a floating point tensor, got {x.dtype} "
                        "(cast it first, e.g. x.astype('float32'))")
    return np.mean(x, axis=axes, keepdims=keepdim)


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
        x = _args.input_tensor(x, op.name)
        if dim is not None:
            axis = dim
        if keepdims is not None:
            keepdim = keepdims
        if isinstance(keepdim, str) or (keepdim is not False and keepdim is not True and keepdim is not None
                                        and not isinstance(keepdim, (bool, np.bool_))):
            keepdim, dtype = False, keepdim   # Paddle order: sum(x, axis, dtype, keepdim)
        if isinstance(dtype, bool):
            keepdim, dtype = dtype, None      # PyTorch order: sum(x, dim, keepdim)
        return registry.dispatch(op, (x,), (_axes(axis, x._data.ndim, op.name), bool(keepdim), dtype))
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


class ReturnTypes(tuple):
    """(values, indices) of PyTorch's max/min/sort with a dim."""

    @property
    def values(self):
        """The values (first element)."""
        return self[0]

    @property
    def indices(self):
        """The indices (second element)."""
        return self[1]


def _extreme(op, argop, fname):
    def fn(x, *args, axis=None, keepdim=False, name=None, dim=None):
        """Paddle spelling `max(x, axis=...)` returns values; PyTorch spelling with a dim
        (`max(x, 1)`, `max(x, dim=1)`) returns (values, indices). `max(x, y)` with a tensor
        is the elementwise maximum."""
        x = _args.input_tensor(x, fname)
        if args and isinstance(args[0], Tensor) and args[0]._data.ndim > 0 or isinstance(dim, Tensor):
            other = args[0] if args else dim
            return registry.FUNCTIONS["maximum" if op is AMAX else "minimum"](x, other)
        torch_style = dim is not None or bool(args)
        if args:
            dim = args[0]
            if len(args) > 1:
                keepdim = args[1]
        if dim is not None:
            axis = dim
        axes = _axes(axis, x._data.ndim, fname)
        _nonempty(x, axes, fname)
        values = registry.dispatch(op, (x,), (axes, bool(keepdim)))
        if not torch_style:
            return values
        idx = argop(x, axis=axis, keepdim=keepdim)
        return ReturnTypes((values, idx))
    fn.__name__ = fname
    return fn


def _arg(npfn, fname):
    def fn(x, axis=None, keepdim=False, dtype="int64", name=None, *, dim=None):
        if dim is not None:
            axis = dim
        x = _args.input_tensor(x, fname)
        a = x._data
        if axis is None:
            _nonempty(x, None, fname)
            r = npfn(a.reshape(-1))
            r = np.asarray(r, dtype=np.int64)
            if keepdim:
                r = r.reshape((1,) * a.ndim)
        else:
            ax = _args.axis(axis, a.ndim, fname)
            if a.ndim:
                _nonempty(x, (ax,), fname)
            r = npfn(a, axis=ax, keepdims=bool(keepdim)).astype(np.int64)
        return Tensor._wrap(np.asarray(r))
    fn.__name__ = fname
    fn.__doc__ = (f"Index (int64) of the {'largest' if npfn is np.argmax else 'smallest'} "
                  "element of x along axis (of the flattened x when None).")
    return fn


argmax = _arg(np.argmax, "argmax")
argmin = _arg(np.argmin, "argmin")
registry.register_function("argmax", argmax)
registry.register_function("argmin", argmin)
registry.register_function("max", _extreme(AMAX, argmax, "max"))
registry.register_function("min", _extreme(AMIN, argmin, "min"))


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
    return np.prod(x, axis=axes, keepdims=keepdim, dtype=_np_dtype(dtype))


def _b_prod(ctx, g):
    x = ctx.input(0)
    axes = ctx.attrs[0]
    ks = list(_keep_shape(ctx.input_meta[0][0], axes))
    xa = x._data
    if not (xa == 0).any():
        return (g.reshape(ks) * ctx.out.reshape(ks) / x,)
    # exact product of the other elements when zeros are present
    ax = tuple(range(xa.ndim)) if axes is None else axes
    moved = np.moveaxis(xa, ax, tuple(range(xa.ndim - len(ax), xa.ndim)))
    flat = moved.reshape(moved.shape[:xa.ndim - len(ax)] + (-1,))
    left = np.cumprod(np.concatenate([np.ones(flat.shape[:-1] + (1,), xa.dtype), flat[..., :-1]], -1), -1)
    right = np.flip(np.cumprod(np.flip(np.concatenate([flat[..., 1:], np.ones(flat.shape[:-1] + (1,), xa.dtype)], -1), -1), -1), -1)
    others = (left * right).reshape(moved.shape)
    others = np.moveaxis(others, tuple(range(xa.ndim - len(ax), xa.ndim)), ax)
    return (g.reshape(ks) * Tensor._wrap(np.array(others, order="C")),)


PROD = OpDef("prod", _k_prod, _b_prod, needs={"x": ("x", "out")},
             attrs=(("axis", None), ("keepdim", False), ("dtype", None)),
             doc="Product of x's elements over axis (all axes when None).")
registry.OPS["prod"] = PROD
registry.register_function("prod", _reduction(PROD))


def _k_var(x, axes, keepdim, ddof):
    return np.var(x, axis=axes, keepdims=keepdim, ddof=ddof)


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
STD = OpDef("std", lambda x, a, k, d: np.std(x, axis=a, keepdims=k, ddof=d),
            lambda ctx, g: (_b_var(ctx, g)[0] / (ctx.out.reshape(list(_keep_shape(ctx.input_meta[0][0], ctx.attrs[0]))) * 2),),
            needs={"x": ("x", "out")}, attrs=(("axis", None), ("keepdim", False), ("ddof", 1)),
            doc="Standard deviation of x over axis, dividing by n - ddof (default 1).")


def _stat(op):
    def fn(x, axis=None, unbiased=True, keepdim=False, name=None, *, dim=None, correction=None):
        x = _args.input_tensor(x, op.name)
        if x._data.dtype.kind != "f":
            raise _args.ArgTypeError(
                f"{op.name}(): std and var only support floating point dtypes, got "
                f"{x.dtype.name}. Fix: cast it first, e.g. x.astype('float32').")
        if dim is not None:
            axis = dim
        if correction is not None:
            ddof = _args.number(correction, op.name, "correction")
        else:
            ddof = 1 if unbiased else 0
        return registry.dispatch(op, (x,), (_axes(axis, x._data.ndim, op.name), bool(keepdim), ddof))
    fn.__name__ = op.name
    fn.__doc__ = op.doc
    return fn


registry.register_function("var", _stat(VAR))
registry.register_function("std", _stat(STD))


def _k_lse(x, axes, keepdim):
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
        return Tensor._wrap(np.asarray(npfn(x._data, axis=_axes(axis, x._data.ndim, fname), keepdims=bool(keepdim))))
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
    return Tensor._wrap(np.asarray(np.count_nonzero(x._data, axis=axes, keepdims=bool(keepdim)),
                                   dtype=np.int64))


registry.register_function("count_nonzero", count_nonzero)


def _k_cumsum(x, axis, dtype):
    if axis is None:
        return np.cumsum(x.reshape(-1), dtype=_np_dtype(dtype))
    return np.cumsum(x, axis=axis, dtype=_np_dtype(dtype))


def _b_cumsum(ctx, g):
    axis = ctx.attrs[0]
    if axis is None:
        return (g.flip([0]).cumsum(0).flip([0]).reshape(list(ctx.input_meta[0][0])),)
    return (g.flip([axis]).cumsum(axis).flip([axis]),)


CUMSUM = OpDef("cumsum", _k_cumsum, _b_cumsum, attrs=(("axis", None), ("dtype", None)),
               doc="Cumulative sum of x along axis (flattened when None).")
declare(CUMSUM)
