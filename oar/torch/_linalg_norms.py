"""torch.linalg's norms (vector_norm, matrix_norm, norm) with PyTorch 2.13's names, defaults
and node chains, over the core's p-norm and singular-value declarations (oar/ops/norms.py).
torch.linalg has no rows in _schemas.json, so out= is handled here the way the binding does
it for every other function (Note [Torch signatures])."""
from __future__ import annotations

import math
import numbers

from ..autograd import grad_mode
from ..ops import args as _args
from ..ops import norms as _norms
from ..ops import registry
from ..ops.registry import FUNCTIONS
from ..tensor import Tensor
from . import _binding


def _out(name, res, out, *inputs):
    """out=: refused when a gradient would be recorded, else written as torch writes it."""
    if out is None:
        return res
    if not isinstance(out, Tensor):
        raise _args.ArgTypeError(f"{name}(): argument 'out' must be Tensor, not "
                                 f"{type(out).__name__}")
    if grad_mode.STATE.enabled and (out.requires_grad or any(
            isinstance(t, Tensor) and t.requires_grad for t in inputs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    _binding.write_out(name, (out,), (res,))
    return out


def _floating(x, name, dtype):
    if not isinstance(x, Tensor):
        raise _args.ArgTypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                                 f"{type(x).__name__}")
    if x._data.dtype.kind not in "fc":
        raise _args.ArgTypeError(f"{name}: Expected a floating point or complex tensor as "
                                 f"input. Got {_binding._torch_name(x._data.dtype)}")
    if dtype is not None:
        x = x.astype(dtype)
    return x


def _dims(dim, nd, name):
    if dim is None:
        return None
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        return [_args.axis(dim, nd, name, "dim")]
    return _args.axes(list(dim), nd, name, "dim")


def _vector(x, ord, dim, keepdim, name):
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise _args.ArgTypeError(f"{name}(): argument 'ord' must be a number, not "
                                 f"{type(ord).__name__}")
    ord = float(ord)
    dims = _dims(dim, x._data.ndim, name)
    shape = x._data.shape
    reduced = range(len(shape)) if not dims else dims
    if (ord < 0 or ord == math.inf) and shape and any(shape[d] == 0 for d in reduced):
        raise _args.ArgValueError(
            f"{name} cannot compute the {ord:g} norm on an empty tensor because the operation "
            "does not have an identity")
    return _norms._vector_norm(x, ord, None if not dims else dims, keepdim, name)


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """PyTorch's linalg.vector_norm: the ord-norm of x over dim (every element when None);
    ord=0 counts nonzeros, inf / -inf take the max / min of |x|."""
    name = "linalg.vector_norm"
    x = _floating(input, name, dtype)
    return _out(name, _vector(x, ord, dim, keepdim, name), out, x)


def _sv_reduce(x, dims, keepdim, reduce):
    """PyTorch's node chain for the spectral and nuclear norms: the dims permuted last,
    svdvals, the reduction over them, and for keepdim an unsqueeze and the inverse
    permutation."""
    d0, d1 = dims
    perm = [d for d in range(x._data.ndim) if d not in (d0, d1)] + [d0, d1]
    s = registry.dispatch(_norms.SVDVALS, (FUNCTIONS["permute"](x, perm),), ())
    r = reduce(s, axis=-1, keepdim=keepdim)
    if not keepdim:
        return r
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return FUNCTIONS["permute"](FUNCTIONS["unsqueeze"](r, -1), inv)


def _matrix(x, ord, dim, keepdim, name):
    if x._data.ndim < 2:
        raise _args.ArgValueError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if isinstance(dim, numbers.Integral) or len(dim) != 2:
        raise _args.ArgValueError(f"{name}: dim must be a 2-tuple. Got {dim}")
    dims = _args.axes(list(dim), x._data.ndim, name, "dim")
    if dims[0] == dims[1]:
        raise _args.ArgValueError(f"{name}: dims must be different. Got ({dims[0]}, {dims[1]})")
    if ord == "fro":
        return _norms._vector_norm(x, 2.0, dims, keepdim, name)
    if ord == "nuc":
        return _sv_reduce(x, dims, keepdim, FUNCTIONS["sum"])
    if isinstance(ord, str) or isinstance(ord, bool) or not isinstance(ord, numbers.Real) \
            or ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise _args.ArgValueError(f"{name}: Order {ord} not supported.")
    d0, d1 = dims if abs(ord) == 1 else dims[::-1]   # columns sums for 1, row sums for inf
    shape = x._data.shape
    empty = min(shape[d0], shape[d1]) == 0 if abs(ord) == 2 else shape[d1] == 0
    if ord > 0 and empty:   # PyTorch: the largest of no values is 0 (amin refuses)
        return FUNCTIONS["sum"](x.abs(), axis=dims, keepdim=keepdim)
    reduce = FUNCTIONS["amax"] if ord > 0 else FUNCTIONS["amin"]
    if abs(ord) == 2:
        return _sv_reduce(x, dims, keepdim, reduce)
    if not keepdim and d0 < d1:
        d1 -= 1
    return reduce(FUNCTIONS["sum"](x.abs(), axis=d0, keepdim=keepdim), axis=d1, keepdim=keepdim)


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """PyTorch's linalg.matrix_norm over the two dims: 'fro', 'nuc', 1 / -1 (max / min column
    sum of |A|), inf / -inf (row sums), 2 / -2 (largest / smallest singular value)."""
    name = "linalg.matrix_norm"
    A = _floating(input, name, dtype)
    return _out(name, _matrix(A, ord, dim, keepdim, name), out, A)


def norm(input, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """PyTorch's linalg.norm: a vector norm over one dim (or every element when neither ord
    nor dim is given), a matrix norm over two dims (or of a 2-D input when ord is given)."""
    name = "linalg.norm"
    A = _floating(input, name, dtype)
    if dim is not None:
        d = [dim] if isinstance(dim, numbers.Integral) else list(dim)
        if len(d) == 1:
            if isinstance(ord, str):
                raise _args.ArgValueError(f"{name}: If dim is specified, it must be of length "
                                          f"2 when ord is a string. Got {dim}")
            res = _vector(A, 2 if ord is None else ord, d, keepdim, name)
        elif len(d) == 2:
            res = _matrix(A, "fro" if ord is None else ord, d, keepdim, name)
        else:
            raise _args.ArgValueError(f"{name}: If dim is specified, it mut be of length 1 or 2. "
                                      f"Got {dim}")
    elif ord is not None:
        nd = A._data.ndim
        if nd not in (1, 2):
            raise _args.ArgValueError(f"{name}: If dim is not specified but ord is, the input "
                                      f"must be 1D or 2D. Got {nd}D.")
        res = (_vector(A, ord, None, keepdim, name) if nd == 1 and not isinstance(ord, str)
               else _matrix(A, ord, (0, 1), keepdim, name))
    else:
        res = _vector(A, 2, None, keepdim, name)
    return _out(name, res, out, A)
