"""Triangular and matrix ops: diag, diagflat, trace, outer, kron, cross, addmv, addbmm, baddbmm.

diag and trace are declarations (their own kernel and backward); the others are composites of
declared ops (matmul, mul, add, stack), so their gradients, promotion and argument checks come
from those. The in-place spellings of the add-products compute the result first and then copy
it into `input` (Note [Check, then write]: a call that raises has written nothing).
"""
from __future__ import annotations

import inspect

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from . import registry
from .general import _matmul_dtypes
from .registry import OpDef, declare

F = registry.FUNCTIONS


def _tensor(t, op, name):
    if not isinstance(t, Tensor):
        raise ArgTypeError(f"{op}(): argument '{name}' must be a Tensor, got {type(t).__name__}")
    return t


# ---------------------------------------------------------------- diag
def _k_diag(x, offset, padding_value):
    if x.ndim not in (1, 2):
        raise ArgValueError(f"diag(): supports 1-D or 2-D tensors, got shape {list(x.shape)}. "
                            "Fix: use diagonal() / diag_embed() for batches.")
    if x.ndim == 2:
        return np.diagonal(x, offset).copy()
    res = np.diag(x, offset)
    if padding_value:
        # Paddle's padding_value fills every entry off the chosen diagonal
        mask = np.diag(np.ones(x.shape[0], bool), offset)
        res[~mask] = padding_value
    return res


def _fit(t, m, n):
    """t (2-D, zeros outside its diagonal) cut or zero-padded to shape (m, n)."""
    t = t[:m, :n]
    r, c = t.shape
    if r < m:
        t = F["concat"]([t, F["zeros"]([m - r, c], dtype=t.dtype)], 0)
    if c < n:
        t = F["concat"]([t, F["zeros"]([m, n - c], dtype=t.dtype)], 1)
    return t


def _b_diag(ctx, g):
    offset, _ = ctx.attrs
    shape = ctx.input_meta[0][0]
    if len(shape) == 1:    # vector -> matrix: the gradient is the matrix's diagonal
        return (F["diag"](g, offset),)
    return (_fit(F["diag"](g, offset), shape[0], shape[1]),)


DIAG = OpDef("diag", _k_diag, _b_diag, attrs=(("offset", 0), ("padding_value", 0)),
             doc="A 1-D x as the offset-th diagonal of a square matrix, or the offset-th "
                 "diagonal of a 2-D x as a vector.")
DIAG.complex_grad = True   # linear (Note [Complex autograd]; tests/test_complex_autograd2.py)
declare(DIAG)


def diagflat(x, offset=0, name=None):
    """x flattened, placed on the offset-th diagonal of a square matrix."""
    return F["diag"](_tensor(x, "diagflat", "x").reshape([-1]), offset)


registry.register_function("diagflat", diagflat)


# ---------------------------------------------------------------- trace
def _k_trace(x, offset, axis1, axis2):
    if x.ndim < 2:
        raise ArgValueError(f"trace(): expected a matrix (at least 2-D), got shape {list(x.shape)}")
    a1, a2 = axis1 % x.ndim if -x.ndim <= axis1 < x.ndim else None, \
        axis2 % x.ndim if -x.ndim <= axis2 < x.ndim else None
    if a1 is None or a2 is None or a1 == a2:
        raise ArgValueError(f"trace(): axis1={axis1} and axis2={axis2} must be two different "
                            f"dims of a {x.ndim}-D tensor")
    res = np.trace(x, offset, a1, a2)
    if x.dtype.kind in "bui":   # torch and Paddle sum integers (and bool) in int64
        res = res.astype(np.int64)
    return np.asarray(res)


def _b_trace(ctx, g):
    offset, axis1, axis2 = ctx.attrs
    shape = ctx.input_meta[0][0]
    nd = len(shape)
    a1, a2 = sorted((axis1 % nd, axis2 % nd))
    # the gradient is g, broadcast over a constant 0/1 mask of the diagonal entries
    eye = np.eye(shape[axis1 % nd], shape[axis2 % nd], offset, dtype=g._data.dtype)
    if axis1 % nd > axis2 % nd:
        eye = eye.T
    mshape = [1] * nd
    mshape[a1], mshape[a2] = shape[a1], shape[a2]
    mask = F["to_tensor"](eye.reshape(mshape))
    return (g.unsqueeze(a1).unsqueeze(a2) * mask,)


TRACE = OpDef("trace", _k_trace, _b_trace, attrs=(("offset", 0), ("axis1", 0), ("axis2", 1)),
              doc="The sum of the offset-th diagonal of x over the dims axis1 and axis2.")
TRACE.complex_grad = True   # linear (Note [Complex autograd]; tests/test_complex_autograd2.py)
declare(TRACE, dim_alias=False)


# ---------------------------------------------------------------- outer, kron, cross
def outer(x, y, name=None):
    """Outer product of two vectors: out[i, j] = x[i] * y[j]."""
    for n, t in (("x", x), ("y", y)):
        _tensor(t, "outer", n)
        if t.ndim != 1:
            raise ArgValueError(f"outer(): expected 1-D argument '{n}', got shape {list(t.shape)}. "
                                "Fix: flatten it with .reshape([-1]).")
    return x.reshape([-1, 1]) * y.reshape([1, -1])


registry.register_function("outer", outer)


def kron(x, y, name=None):
    """Kronecker product: blocks x[i, j] * y (the shorter shape is padded with leading 1s)."""
    _tensor(x, "kron", "x")
    _tensor(y, "kron", "y")
    nd = max(x.ndim, y.ndim)
    sx = [1] * (nd - x.ndim) + list(x.shape)
    sy = [1] * (nd - y.ndim) + list(y.shape)
    xi = x.reshape([d for a in sx for d in (a, 1)])
    yi = y.reshape([d for b in sy for d in (1, b)])
    return (xi * yi).reshape([a * b for a, b in zip(sx, sy)])


registry.register_function("kron", kron)


def cross(x, y, axis=None, name=None, *, dim=None):
    """Cross product of 3-vectors along `axis` (None, or Paddle's 9: the first dim of size 3)."""
    _tensor(x, "cross", "x")
    _tensor(y, "cross", "y")
    if dim is not None:
        axis = dim
    if x.ndim != y.ndim:
        raise ArgValueError(f"cross(): inputs must have the same number of dimensions, got "
                            f"shapes {list(x.shape)} and {list(y.shape)}")
    shape = registry.broadcast_shapes("cross", [tuple(x.shape), tuple(y.shape)])
    if axis is None or axis == 9:
        axis = next((i for i, d in enumerate(shape) if d == 3), None)
        if axis is None:
            raise ArgValueError(f"cross(): no dimension of size 3 in shapes {list(x.shape)} and "
                                f"{list(y.shape)}")
    else:
        axis = registry.axis_attr(axis, x, "cross")
    if shape[axis] != 3 or x.shape[axis] != 3 or y.shape[axis] != 3:
        raise ArgValueError(f"cross(): dimension {axis} must have size 3, got shapes "
                            f"{list(x.shape)} and {list(y.shape)}")
    x, y = x.expand(list(shape)), y.expand(list(shape))
    pre = (slice(None),) * axis
    a = [x[pre + (i,)] for i in range(3)]
    b = [y[pre + (i,)] for i in range(3)]
    return F["stack"]([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                       a[0] * b[1] - a[1] * b[0]], axis)


registry.register_function("cross", cross)


# ---------------------------------------------------------------- addmv, addbmm, baddbmm
def _add_product(op, input, prod, beta, alpha):
    """beta * input + alpha * prod; beta == 0 ignores input's values (NaN included), as torch
    does, while input still gets a (zero) gradient."""
    for n, v in (("beta", beta), ("alpha", alpha)):
        registry.number_attr(v, op, n)
    input, prod = registry.autocast_args(op, (input, prod))   # Note [Autocast]
    shape = registry.broadcast_shapes(op, [tuple(input.shape), tuple(prod.shape)])
    if shape != tuple(prod.shape):
        raise ArgValueError(f"{op}(): input of shape {list(input.shape)} cannot be broadcast to "
                            f"the product's shape {list(prod.shape)}")
    if prod._data.dtype.kind in "iu":
        # an integer product keeps its dtype: torch casts beta and alpha to it (truncating)
        beta, alpha = int(beta), int(alpha)
    res = prod if alpha == 1 else prod * alpha
    if beta == 0:
        zero = F["zeros"](list(input.shape), dtype="bool")
        return res + F["where"](zero, input, F["zeros_like"](input))
    return res + (input if beta == 1 else input * beta)


def _operands(op, names, ts, ndims):
    for n, t, d in zip(names, ts, ndims):
        _tensor(t, op, n)
        if d is not None and t.ndim != d:
            raise ArgValueError(f"{op}(): '{n}' must be a {d}-D tensor, got shape {list(t.shape)}")
    for t in ts[1:]:
        _matmul_dtypes(ts[0]._data, t._data, op)


def addmv(input, mat, vec, beta=1, alpha=1, name=None):
    """beta * input + alpha * (mat @ vec)."""
    _operands("addmv", ("input", "mat", "vec"), (input, mat, vec), (None, 2, 1))
    if mat.shape[1] != vec.shape[0]:
        raise ArgValueError(f"addmv(): size mismatch, mat {list(mat.shape)} @ vec {list(vec.shape)}")
    return _add_product("addmv", input, mat @ vec, beta, alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1, name=None):
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    _operands("baddbmm", ("input", "batch1", "batch2"), (input, batch1, batch2), (None, 3, 3))
    return _add_product("baddbmm", input, F["bmm"](batch1, batch2), beta, alpha)


def addbmm(input, batch1, batch2, beta=1, alpha=1, name=None):
    """beta * input + alpha * sum over b of batch1[b] @ batch2[b]."""
    _operands("addbmm", ("input", "batch1", "batch2"), (input, batch1, batch2), (None, 3, 3))
    return _add_product("addbmm", input, F["bmm"](batch1, batch2).sum(0), beta, alpha)


def _inplace(fn):
    name = fn.__name__ + "_"

    def inplace(input, *args, **kwargs):
        from ..autograd import grad_mode
        src = input
        if isinstance(input, Tensor) and input.requires_grad and grad_mode.is_grad_enabled():
            # the composite's graph may save its input (renorm's x * factor does): computed
            # from a copy, the copy_ below cannot invalidate it -- the copy of the old value an
            # in-place op keeps when a gradient is needed (Note [Check, then write])
            src = input.clone()
        res = fn(src, *args, **kwargs)   # every check (and the product) before any write
        if tuple(res.shape) != tuple(input.shape):
            raise ArgValueError(f"{name}(): the result has shape {list(res.shape)}, which differs "
                                f"from input's shape {list(input.shape)}. Fix: use {fn.__name__}().")
        return input.copy_(res)
    inplace.__name__ = inplace.__qualname__ = name
    inplace.__doc__ = fn.__doc__.rstrip(".") + ", written into input in place (returns input)."
    inplace.__signature__ = inspect.signature(fn)
    return inplace


for _f in (addmv, baddbmm, addbmm):
    registry.register_function(_f.__name__, _f)
    registry.register_function(_f.__name__ + "_", _inplace(_f))
