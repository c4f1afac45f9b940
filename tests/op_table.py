"""The op test table: one row per op; tests/test_op_table.py runs every row through every
spelling. A new op is a row here."""
from dataclasses import dataclass, field

import numpy as np


@dataclass
class OpRow:
    name: str
    ref: object                      # numpy reference: ref(*arrays, **kwargs)
    n_inputs: int = 1
    kwargs: dict = field(default_factory=dict)
    domain: tuple = (-2.0, 2.0)      # input value range
    inplace: bool = True
    grad: bool = True
    method: bool = True
    shapes: tuple = ((3, 4), (3, 4))  # one per input
    scalar_other: object = None       # also test with this Python number as 2nd operand
    operator: str = None              # e.g. "+" -> x + y, x += y
    dtypes: tuple = ("float32",)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


ROWS = [
    OpRow("exp", np.exp),
    OpRow("log", np.log, domain=(0.5, 3.0)),
    OpRow("log2", np.log2, domain=(0.5, 3.0)),
    OpRow("log10", np.log10, domain=(0.5, 3.0)),
    OpRow("log1p", np.log1p, domain=(0.1, 3.0)),
    OpRow("expm1", np.expm1),
    OpRow("sqrt", np.sqrt, domain=(0.5, 3.0)),
    OpRow("rsqrt", lambda x: 1 / np.sqrt(x), domain=(0.5, 3.0)),
    OpRow("sin", np.sin), OpRow("cos", np.cos), OpRow("tan", np.tan, domain=(-1.0, 1.0)),
    OpRow("asin", np.arcsin, domain=(-0.8, 0.8)), OpRow("acos", np.arccos, domain=(-0.8, 0.8)),
    OpRow("atan", np.arctan), OpRow("sinh", np.sinh), OpRow("cosh", np.cosh),
    OpRow("tanh", np.tanh), OpRow("sigmoid", _sigmoid),
    OpRow("relu", lambda x: np.maximum(x, 0)),
    OpRow("abs", np.abs), OpRow("neg", np.negative), OpRow("square", np.square),
    OpRow("reciprocal", lambda x: 1 / x, domain=(0.5, 2.0)),
    OpRow("floor", np.floor), OpRow("ceil", np.ceil), OpRow("round", np.rint),
    OpRow("trunc", np.trunc), OpRow("sign", np.sign),
    OpRow("scale", lambda x, scale, bias, bias_after_scale: x * scale + bias,
          kwargs=dict(scale=2.5, bias=0.5, bias_after_scale=True)),
    OpRow("clip", lambda x, min, max: np.clip(x, min, max), kwargs=dict(min=-0.5, max=0.7)),
    OpRow("add", np.add, 2, scalar_other=2.0, operator="+"),
    OpRow("sub", np.subtract, 2, scalar_other=1.5, operator="-"),
    OpRow("mul", np.multiply, 2, scalar_other=3.0, operator="*"),
    OpRow("div", np.divide, 2, domain=(0.5, 2.0), scalar_other=2.0, operator="/"),
    OpRow("pow", np.power, 2, domain=(0.5, 2.0), scalar_other=2.0, operator="**"),
    OpRow("remainder", np.remainder, 2, domain=(0.5, 3.0), grad=False, operator="%"),
    OpRow("floor_divide", np.floor_divide, 2, domain=(0.5, 3.0), grad=False, operator="//"),
    OpRow("maximum", np.maximum, 2, inplace=False),
    OpRow("minimum", np.minimum, 2, inplace=False),
    OpRow("fmax", np.fmax, 2, inplace=False),
    OpRow("fmin", np.fmin, 2, inplace=False),
    OpRow("add", np.add, 2, shapes=((3, 4), (4,)), scalar_other=None),   # broadcasting operand
    OpRow("mul", np.multiply, 2, shapes=((3, 4), (3, 1))),
    OpRow("matmul", np.matmul, 2, shapes=((3, 4), (4, 4)), operator="@"),
    OpRow("matmul", np.matmul, 2, shapes=((2, 3, 4), (4, 5)), inplace=False),
    OpRow("matmul", np.matmul, 2, shapes=((4,), (4, 3)), inplace=False),
    OpRow("matmul", np.matmul, 2, shapes=((3, 4), (4,)), inplace=False),
    OpRow("bmm", np.matmul, 2, shapes=((2, 3, 4), (2, 4, 5)), inplace=False),
]
