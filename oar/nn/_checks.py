"""Argument checks of the nn layers and functionals (Note [Argument layer] in ops/args.py)."""
# Note [nn checks at construction]
# A layer parses its configuration (kernel sizes, strides, paddings, feature counts, dropout
# probability, reduction) once, in __init__, so a bad value is refused where it was written
# and the training step pays nothing for it. Per call, only what depends on the input is
# checked: its ndim, channel count, dtype and whether the output would be empty. Errors derive
# from PyTorch's and Paddle's exception for the same mistake (autograd/errors.py).

from __future__ import annotations

from ..autograd.errors import ArgTypeError, ArgValueError, AxisError  # noqa: F401
from ..autograd.errors import OperandDtypeError
from ..ops import args as _args


def count(value, op, name, minimum=0):
    """A feature/channel count: an integer >= minimum."""
    v = _args.integer(value, op, name)
    if v < minimum:
        raise ArgValueError(f"{op}: {name} must be an integer >= {minimum}, got {v}")
    return v


def pair(value, op, name, minimum):
    """An int or a pair of ints (kernel size, stride, padding, dilation), each >= minimum."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ArgValueError(f"{op}: {name} must be an int or a pair of ints, got "
                                f"{list(value)}")
        v = tuple(_args.integer(s, op, name) for s in value)
    else:
        v = (_args.integer(value, op, name),) * 2
    if min(v) < minimum:
        what = "positive" if minimum == 1 else "non-negative"
        raise ArgValueError(f"{op}: {name} must be {what}, got {value!r}"
                            + (" (a stride of 0 would divide by zero)" if name == "stride" else ""))
    return v


def probability(p, op):
    v = _args.number(p, op, "p", allow_bool=False)
    if not 0.0 <= v <= 1.0:
        raise ArgValueError(f"{op}: dropout probability has to be between 0 and 1, but got {v}")
    return v


REDUCTIONS = ("mean", "sum", "none")


def reduction(value, op):
    if value not in REDUCTIONS:
        raise ArgValueError(f"{op}: {value!r} is not a valid value for reduction; use one of "
                            f"{list(REDUCTIONS)}")
    return value


def shape_str(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def per_channel(t, c, op, what, shape):
    """A normalisation's per-channel tensor (weight, bias, running stats) must hold c values,
    for an input of `shape` (channels on dim 1)."""
    if t is not None and t._data.shape != (c,):
        raise ArgValueError(f"{op}: {what} should contain {c} elements not {t._data.size} "
                            f"(input {shape_str(shape)})")


def floating_like(x, w, op, what="weight"):
    """Input and parameter dtypes must match (PyTorch: 'mat1 and mat2 must have the same
    dtype'); an integer or float64 input to a float32 layer is refused, not widened."""
    if x._data.dtype != w._data.dtype:
        raise OperandDtypeError(f"{op}: input dtype {x.dtype.name} and {what} dtype "
                                f"{w.dtype.name} must be the same (mat1 and mat2 must have the "
                                f"same dtype). Fix: x.astype('{w.dtype.name}')")


def padding_idx(value, num_embeddings, op):
    """Embedding's padding_idx: None, or an index in [-n, n) made non-negative."""
    if value is None:
        return None
    value = _args.integer(value, op, "padding_idx")
    if not -num_embeddings <= value < num_embeddings:
        raise ArgValueError(f"{op}: Padding_idx must be within num_embeddings "
                            f"({num_embeddings}), got {value}")
    return value + num_embeddings if value < 0 else value
