"""paddle.ParamAttr and paddle.create_parameter: a parameter's name, initializer and
trainability, and a free-standing parameter made from them."""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import dtypes as _dt
from .autograd.errors import ArgTypeError, ArgValueError

__all__ = ["ParamAttr", "create_parameter"]


class _ShapeError(ArgValueError, AssertionError):
    """A negative dimension (Paddle asserts: AssertionError)."""


class ParamAttr:
    """How to create a parameter: name, initializer (a callable that fills the parameter, such
    as a Paddle initializer object), learning_rate (a multiplier), regularizer, trainable,
    do_model_average and need_clip."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise ArgTypeError(f"ParamAttr: name must be a str or None, got {type(name).__name__}")
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
            raise ArgTypeError(f"ParamAttr: learning_rate must be a number, got "
                               f"{type(learning_rate).__name__}")
        if not isinstance(trainable, (bool, np.bool_)):
            raise ArgTypeError(f"ParamAttr: trainable must be a bool, got "
                               f"{type(trainable).__name__}")
        if initializer is not None and not callable(initializer):
            raise ArgTypeError(f"ParamAttr: initializer must be callable (it is called with the "
                               f"parameter), got {type(initializer).__name__}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = need_clip


def _fans(shape):
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A new trainable Parameter of shape and (floating) dtype, named like Paddle's
    ('create_parameter_0.w_0'). Its values come from attr.initializer, else
    default_initializer (a callable that fills the parameter), else Xavier-uniform for a
    weight and zeros for a bias (is_bias). attr=False gives None."""
    from .autograd import grad_mode
    from .nn import init
    from .nn.layers import Parameter, _unique_name
    op = "create_parameter"
    if attr is False:
        return None
    if attr is not None and not isinstance(attr, ParamAttr):
        if isinstance(attr, str):
            attr = ParamAttr(name=attr)
        else:
            raise ArgTypeError(f"{op}(): attr must be a ParamAttr, a name, False or None, got "
                               f"{type(attr).__name__}")
    if dtype is None:
        raise ArgTypeError(f"{op}(): dtype must be given (e.g. 'float32'), got None")
    try:
        dt = _dt.as_dtype(dtype)
    except Exception as e:
        raise ArgTypeError(f"{op}(): unknown dtype {dtype!r}") from e
    if dt.np.kind != "f":
        raise ArgTypeError(f"{op}(): parameters must be floating point (float16, float32, "
                           f"float64), got {dt.name}")
    if not isinstance(shape, (list, tuple)):
        raise ArgTypeError(f"{op}(): shape must be a list or tuple of ints, got "
                           f"{type(shape).__name__}")
    for i, n in enumerate(shape):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise _ShapeError(f"{op}(): Expected every dim's size to be larger than or equal "
                                f"to 0, but the size of the {i}-th dim is {n!r}")
    if default_initializer is not None and not callable(default_initializer):
        raise ArgTypeError(f"{op}(): default_initializer must be callable, got "
                           f"{type(default_initializer).__name__}")
    shape = [int(n) for n in shape]
    p = Parameter(np.zeros(shape, dtype=dt.np))
    initializer = attr.initializer if attr is not None and attr.initializer is not None \
        else default_initializer
    with grad_mode.no_grad():
        if initializer is not None:
            initializer(p)
        elif not is_bias and p.numel():
            fan_in, fan_out = _fans(shape)
            limit = math.sqrt(6.0 / (fan_in + fan_out)) if fan_in + fan_out else 0.0
            init.uniform_(p, -limit, limit)
    if attr is not None and attr.name is not None:
        p.name = attr.name
    elif name is not None:
        p.name = name
    else:
        p.name = _unique_name(None, "create_parameter") + (".b_0" if is_bias else ".w_0")
    if attr is not None and not attr.trainable:
        p.trainable = False
    if attr is not None and attr.need_clip is False:
        p.need_clip = False
    return p
