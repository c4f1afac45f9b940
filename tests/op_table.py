"""The op test table: one row per op; tests/test_op_table.py runs every row through every
spelling. A new op is a row here.

Coverage is derived from the registry: every public function in `oar.ops.registry.FUNCTIONS`
(and every declaration in `OPS`) must be spelled by a row, be an alias of a spelling that is
(the same function object), or have an entry in EXEMPT naming the test files where it IS
tested -- test_op_table.py fails otherwise, and also when a named file never calls the op.

Everything a driver needs to know about an op is a field of its row (no `if row.name == ...`
in the drivers): input dtypes, the input an in-place spelling writes into, the values to keep
away from (kinks, ties), whether it has a method or an in-place spelling, and so on.
References are NumPy (or the standard library); gradients are checked against finite
differences."""
import math
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class In:
    """In OpRow.layout: the i-th input."""
    i: int


@dataclass
class OpRow:
    name: str
    ref: object                      # NumPy reference: ref(*arrays, **kwargs)
    n_inputs: int = 1
    kwargs: dict = field(default_factory=dict)
    domain: tuple = (-2.0, 2.0)      # input value range (integers: [lo, hi) of the ints)
    inplace: bool = True             # has the in-place spellings name_ (function; method if `method`)
    outplace: bool = True            # has the out-of-place spellings (False: fill_, zero_)
    grad: bool = True                # gradcheck the float inputs
    method: bool = True              # x.name(...) (and x.name_(...)) exist
    shapes: tuple = ((3, 4), (3, 4))  # one per input
    scalar_other: object = None       # also test with this Python number as the last operand
    operator: str = None              # e.g. "+" -> x + y, x += y; unary rows: "-", "~", "abs"
    in_dtypes: tuple = None           # per input: "float" (the test's float dtype), "int64", "bool"
    out_dtype: str = None             # result dtype; None: the float dtype of the inputs
    target: int = 0                   # the input the method is called on / in-place writes into
    prepare: tuple = ()               # (arrays, rng) -> arrays, applied in order: keep values
                                      # away from kinks, ties, or plant special values
    zero_dim: bool = True             # also run on 0-d operands
    pointwise: bool = True            # broadcasts elementwise (in-place broadcast refusal applies)
    float_into_int_error: str = "can't be cast"  # x_int.name_(float operand) raises TypeError
                                                 # (and RuntimeError) matching this, as PyTorch
                                                 # refuses it; None: allowed, values truncated
    expanded_destination: str = "refused"   # in place into an expanded tensor: "refused", or
                                            # "written" (fill_/zero_ write one value: docs/doors.md)
    xfail: dict = field(default_factory=dict)   # driver -> reason: strict xfail (a known bug)
    layout: tuple = None              # the function's positional arguments: In(i) for input i,
                                      # constants, tuples of these (None: the inputs in order);
                                      # the method drops In(target)
    domains: tuple = None             # per input (lo, hi) overriding `domain` (None: domain)

    def __post_init__(self):
        if self.in_dtypes is None:
            self.in_dtypes = ("float",) * self.n_inputs
        self.shapes = tuple(self.shapes[:self.n_inputs]) if len(self.shapes) >= self.n_inputs \
            else tuple(self.shapes) + (self.shapes[-1],) * (self.n_inputs - len(self.shapes))

    @property
    def id(self):
        s = f"{self.name}{'' if self.outplace else '_'}-" + "-".join(
            "x".join(map(str, sh)) or "0d" for sh in self.shapes)
        if self.kwargs:
            s += "-" + ",".join(f"{k}={v}" for k, v in self.kwargs.items())
        if self.in_dtypes != ("float",) * self.n_inputs:
            s += "-" + ",".join(self.in_dtypes)
        if self.scalar_other is not None:
            s += f"-number={self.scalar_other}"
        if specials in self.prepare:
            s += "-nan_inf"
        return s

    def spellings(self):
        """The public names this row tests."""
        out = set()
        if self.outplace:
            out.add(self.name)
        if self.inplace:
            out.add(self.name + "_")
        return out


# ---------------------------------------------------------------- input preparation
def _floats(arrs):
    return [i for i, a in enumerate(arrs) if a.dtype.kind == "f"]


def avoid_integers(arrs, rng):
    """Keep float values away from integers and from 0 (kinks of floor, sign, relu, ...), so
    finite differences are meaningful."""
    arrs = list(arrs)
    for i in _floats(arrs):
        a = arrs[i]
        a = np.where(np.abs(a - np.round(a)) < 0.1, a + 0.25, a)
        arrs[i] = np.where(np.abs(a) < 0.1, a + 0.3, a).astype(arrs[i].dtype)
    return arrs


def avoid(*points):
    def prep(arrs, rng):
        arrs = list(arrs)
        for i in _floats(arrs):
            a = arrs[i]
            for p in points:
                a = np.where(np.abs(a - p) < 0.05, a + 0.1, a)
            arrs[i] = a.astype(arrs[i].dtype)
        return arrs
    prep.__name__ = f"avoid{points}"
    return prep


def separated(arrs, rng):
    """maximum/minimum: the second operand is the first +-0.5 (no ties, no near-ties)."""
    arrs = list(arrs)
    arrs[1] = (arrs[0] + np.where(rng.random(arrs[0].shape) < 0.5, 0.5, -0.5)).astype(arrs[0].dtype)
    return arrs


def some_equal(arrs, rng):
    """Comparisons: every other element of the second operand equals the first's."""
    arrs = list(arrs)
    a, b = arrs[0], arrs[1].copy()
    if b.ndim == 0 or a.ndim == 0:
        return [a, np.asarray(a).copy()] if rng.random() < 0.5 else arrs
    n = min(a.size, b.size)
    b.reshape(-1)[:n:2] = a.reshape(-1)[:n:2]
    arrs[1] = b
    return arrs


def some_zeros(arrs, rng):
    """Logical ops / count_nonzero: about a third of the float values are 0."""
    arrs = list(arrs)
    for i in _floats(arrs):
        arrs[i] = np.where(rng.random(arrs[i].shape) < 0.35, 0, arrs[i]).astype(arrs[i].dtype)
    return arrs


def specials(arrs, rng):
    """isnan/isinf/isfinite, fmax/fmin: plant nan, inf and -inf."""
    arrs = list(arrs)
    for k, i in enumerate(_floats(arrs)):
        a = arrs[i].copy()
        flat = a.reshape(-1)
        vals = [np.nan, np.inf, -np.inf, np.nan]
        for j in range(min(flat.size, 4)):
            flat[(j * 5 + k * 3) % flat.size] = vals[j]
        arrs[i] = a
    return arrs


def away_from_quotient_jumps(arrs, rng):
    """remainder/floor_divide: x / y at least 0.1 away from an integer (their jumps)."""
    x, y = arrs[0], arrs[1]
    if x.shape != y.shape:
        return arrs
    q = x / y
    bad = np.abs(q - np.round(q)) < 0.1
    return [np.where(bad, x + 0.3 * y, x).astype(x.dtype), y]


# ---------------------------------------------------------------- references
def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _gelu(x, approximate):
    x64 = np.asarray(x, np.float64)
    if approximate:
        r = 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)))
    else:
        r = 0.5 * x64 * (1 + _erf(x64 / math.sqrt(2)))
    return r.astype(np.asarray(x).dtype)


def _ax(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _reduce(f, **fixed):
    def ref(x, axis=None, keepdim=False, **kw):
        return f(x, axis=_ax(axis), keepdims=keepdim, **fixed, **kw)
    return ref


def _logsumexp(x, axis=None, keepdim=False):
    x64 = np.asarray(x, np.float64)
    return np.log(np.sum(np.exp(x64), axis=_ax(axis), keepdims=keepdim)).astype(np.asarray(x).dtype)


def _std(x, axis=None, unbiased=True, keepdim=False):
    return np.std(x, axis=_ax(axis), ddof=1 if unbiased else 0, keepdims=keepdim)


def _var(x, axis=None, unbiased=True, keepdim=False):
    return np.var(x, axis=_ax(axis), ddof=1 if unbiased else 0, keepdims=keepdim)


def _arg(f):
    def ref(x, axis=None, keepdim=False):
        r = f(x, axis=axis)
        if keepdim:
            r = np.expand_dims(r, axis) if axis is not None else np.reshape(r, (1,) * x.ndim)
        return r.astype(np.int64)
    return ref


def _count_nonzero(x, axis=None, keepdim=False):
    return np.asarray(np.count_nonzero(x, axis=_ax(axis), keepdims=keepdim), dtype=np.int64)


def _matmul_t(x, y, transpose_x=False, transpose_y=False):
    return np.matmul(np.swapaxes(x, -1, -2) if transpose_x else x,
                     np.swapaxes(y, -1, -2) if transpose_y else y)


def _fill(x, v):
    return np.broadcast_to(np.asarray(v, dtype=x.dtype), x.shape).copy()


def unique_index(i, n):
    """Input i (integer, shape (k, ...), k <= n) gets distinct values in [0, n) along axis 0
    (assignments through it are then well defined)."""
    def prep(arrs, rng):
        arrs = list(arrs)
        a = arrs[i]
        cols = a.reshape(a.shape[0], -1)
        cols = np.stack([rng.permutation(n)[:a.shape[0]] for _ in range(cols.shape[1])], -1)
        arrs[i] = cols.reshape(a.shape).astype(a.dtype)
        return arrs
    prep.__name__ = f"unique_index({i}, {n})"
    return prep


def _put(x, idx, src, axis=0):
    out = x.copy()
    np.put_along_axis(out, idx, src, axis)
    return out


def _scatter_add(x, idx, src, axis=0):
    out = x.copy()
    for pos in np.ndindex(*idx.shape):
        dst = list(pos)
        dst[axis] = idx[pos]
        out[tuple(dst)] += src[pos]
    return out


def _scatter_reduce(x, idx, src, reduce, include_self=True):
    """torch.scatter_reduce along dim 0, by its definition."""
    out = x.copy().astype(np.float64)
    groups = {}
    for pos in np.ndindex(*idx.shape):
        groups.setdefault((int(idx[pos]),) + pos[1:], []).append(float(src[pos]))
    for dst, vals in groups.items():
        vals = ([float(x[dst])] if include_self else []) + vals
        out[dst] = {"sum": np.sum, "prod": np.prod, "amax": np.max, "amin": np.min,
                    "mean": np.mean}[reduce](vals)
    return out.astype(x.dtype)


def _index_add(x, idx, src, alpha=1):
    out = x.copy()
    np.add.at(out, idx, alpha * src)
    return out


def _index_put(x, *rest, accumulate=False):
    *idx, v = rest
    out = x.copy()
    if accumulate:
        np.add.at(out, tuple(idx), v)
    else:
        out[tuple(idx)] = v
    return out


# Known oar bugs the table found; rows mark the drivers they break xfail(strict=True) with
# these reasons (a fix makes the xfail pass, which fails the test: then drop the mark).
BUGS: dict = {}   # none open (masked_fill out= and matmul_ transpose flags: fixed)

KINKS = (avoid_integers,)
B = ("bool",)
I2 = ("int64", "int64")

ROWS = [
    # unary pointwise
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
    OpRow("relu", lambda x: np.maximum(x, 0), prepare=KINKS),
    OpRow("abs", np.abs, prepare=KINKS, operator="abs"),
    OpRow("neg", np.negative, operator="-"),
    OpRow("square", np.square),
    OpRow("reciprocal", lambda x: 1 / x, domain=(0.5, 2.0)),
    OpRow("floor", np.floor, prepare=KINKS), OpRow("ceil", np.ceil, prepare=KINKS),
    OpRow("round", np.rint, prepare=KINKS), OpRow("trunc", np.trunc, prepare=KINKS),
    OpRow("sign", np.sign, prepare=KINKS),
    OpRow("scale", lambda x, scale, bias, bias_after_scale: x * scale + bias,
          kwargs=dict(scale=2.5, bias=0.5, bias_after_scale=True)),
    OpRow("scale", lambda x, scale, bias, bias_after_scale: (x + bias) * scale,
          kwargs=dict(scale=-1.5, bias=0.25, bias_after_scale=False)),
    OpRow("clip", lambda x, min, max: np.clip(x, min, max), kwargs=dict(min=-0.5, max=0.7),
          prepare=KINKS + (avoid(-0.5, 0.7),)),
    OpRow("clip", lambda x, min: np.maximum(x, min), kwargs=dict(min=-0.5),
          prepare=(avoid(-0.5),)),
    OpRow("clip", lambda x, max: np.minimum(x, max), kwargs=dict(max=0.7),
          prepare=(avoid(0.7),)),
    OpRow("leaky_relu", lambda x, negative_slope: np.where(x > 0, x, negative_slope * x),
          kwargs=dict(negative_slope=0.1), method=False, prepare=KINKS),
    OpRow("gelu", _gelu, kwargs=dict(approximate=False), method=False, inplace=False),
    OpRow("gelu", _gelu, kwargs=dict(approximate=True), method=False, inplace=False),
    # binary pointwise
    OpRow("add", np.add, 2, scalar_other=2.0, operator="+"),
    OpRow("add", lambda x, y, alpha: x + alpha * y, 2, kwargs=dict(alpha=2.5), scalar_other=2.0),
    OpRow("sub", np.subtract, 2, scalar_other=1.5, operator="-"),
    OpRow("sub", lambda x, y, alpha: x - alpha * y, 2, kwargs=dict(alpha=-0.5), scalar_other=1.5),
    OpRow("mul", np.multiply, 2, scalar_other=3.0, operator="*"),
    OpRow("div", np.divide, 2, domain=(0.5, 2.0), scalar_other=2.0, operator="/"),
    OpRow("pow", np.power, 2, domain=(0.5, 2.0), scalar_other=2.0, operator="**"),
    OpRow("pow", np.power, 2, domain=(0.5, 2.0), scalar_other=0.5),
    OpRow("pow", np.power, 2, domain=(0.5, 2.0), scalar_other=-1.0),
    OpRow("remainder", np.remainder, 2, domain=(0.5, 3.0), operator="%", scalar_other=0.75,
          prepare=(away_from_quotient_jumps,)),
    OpRow("floor_divide", np.floor_divide, 2, domain=(0.5, 3.0), operator="//", scalar_other=0.75,
          prepare=(away_from_quotient_jumps,)),
    OpRow("remainder", np.remainder, 2, domain=(-9, 9), in_dtypes=I2, grad=False, operator="%",
          prepare=(lambda arrs, rng: [arrs[0], np.where(arrs[1] == 0, 3, arrs[1])],)),
    OpRow("floor_divide", np.floor_divide, 2, domain=(-9, 9), in_dtypes=I2, grad=False,
          operator="//",
          prepare=(lambda arrs, rng: [arrs[0], np.where(arrs[1] == 0, 3, arrs[1])],)),
    OpRow("fmod", np.fmod, 2, domain=(-3.0, 3.0), scalar_other=0.75,
          prepare=(away_from_quotient_jumps,)),
    OpRow("fmod", np.fmod, 2, domain=(-9, 9), in_dtypes=I2, grad=False,
          prepare=(lambda arrs, rng: [arrs[0], np.where(arrs[1] == 0, 3, arrs[1])],)),
    OpRow("maximum", np.maximum, 2, inplace=False, prepare=KINKS + (separated,)),
    OpRow("minimum", np.minimum, 2, inplace=False, prepare=KINKS + (separated,)),
    OpRow("maximum", np.maximum, 2, inplace=False, grad=False, prepare=(specials,)),
    OpRow("minimum", np.minimum, 2, inplace=False, grad=False, prepare=(specials,)),
    OpRow("fmax", np.fmax, 2, inplace=False),
    OpRow("fmin", np.fmin, 2, inplace=False),
    OpRow("fmax", np.fmax, 2, inplace=False, grad=False, prepare=(specials,)),
    OpRow("fmin", np.fmin, 2, inplace=False, grad=False, prepare=(specials,)),
    OpRow("add", np.add, 2, shapes=((3, 4), (4,))),   # broadcasting operand
    OpRow("mul", np.multiply, 2, shapes=((3, 4), (3, 1))),
    # bitwise (integer and bool operands)
    OpRow("bitwise_and", np.bitwise_and, 2, domain=(-8, 8), in_dtypes=I2, out_dtype="int64",
          grad=False, operator="&", scalar_other=6),
    OpRow("bitwise_or", np.bitwise_or, 2, domain=(-8, 8), in_dtypes=I2, out_dtype="int64",
          grad=False, operator="|", scalar_other=6),
    OpRow("bitwise_xor", np.bitwise_xor, 2, domain=(-8, 8), in_dtypes=I2, out_dtype="int64",
          grad=False, operator="^", scalar_other=6),
    OpRow("bitwise_not", np.bitwise_not, domain=(-8, 8), in_dtypes=("int64",),
          out_dtype="int64", grad=False, operator="~"),
    OpRow("bitwise_and", np.bitwise_and, 2, in_dtypes=B * 2, out_dtype="bool", grad=False,
          operator="&"),
    OpRow("bitwise_or", np.bitwise_or, 2, in_dtypes=B * 2, out_dtype="bool", grad=False,
          operator="|"),
    OpRow("bitwise_xor", np.bitwise_xor, 2, in_dtypes=B * 2, out_dtype="bool", grad=False,
          operator="^"),
    OpRow("bitwise_not", np.logical_not, in_dtypes=B, out_dtype="bool", grad=False, operator="~"),
    # comparisons and predicates: bool results
    *[OpRow(n, f, 2, out_dtype="bool", grad=False, inplace=False, operator=o, scalar_other=0.5,
            prepare=(some_equal,))
      for n, f, o in (("equal", np.equal, "=="), ("not_equal", np.not_equal, "!="),
                      ("greater_equal", np.greater_equal, ">="),
                      ("greater_than", np.greater, ">"), ("less_equal", np.less_equal, "<="),
                      ("less_than", np.less, "<"))],
    OpRow("less_than", np.less, 2, shapes=((3, 4), (4,)), out_dtype="bool", grad=False,
          inplace=False, prepare=(some_equal,)),
    OpRow("isnan", np.isnan, out_dtype="bool", grad=False, inplace=False, prepare=(specials,)),
    OpRow("isinf", np.isinf, out_dtype="bool", grad=False, inplace=False, prepare=(specials,)),
    OpRow("isfinite", np.isfinite, out_dtype="bool", grad=False, inplace=False,
          prepare=(specials,)),
    *[OpRow(n, f, 2, out_dtype="bool", grad=False, inplace=False, prepare=(some_zeros,))
      for n, f in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                   ("logical_xor", np.logical_xor))],
    OpRow("logical_and", np.logical_and, 2, in_dtypes=B * 2, out_dtype="bool", grad=False,
          inplace=False),
    OpRow("logical_not", np.logical_not, out_dtype="bool", grad=False, inplace=False,
          prepare=(some_zeros,)),
    OpRow("logical_not", np.logical_not, in_dtypes=B, out_dtype="bool", grad=False,
          inplace=False),
    # selection
    OpRow("masked_fill", lambda x, m, v: np.where(m, v, x).astype(x.dtype), 3,
          shapes=((3, 4), (3, 4), ()), in_dtypes=("float", "bool", "float"), scalar_other=0.5,
          float_into_int_error=None),
    OpRow("masked_fill", lambda x, m, v: np.where(m, v, x).astype(x.dtype), 3,
          shapes=((3, 4), (4,), ()), in_dtypes=("float", "bool", "float"),
          float_into_int_error=None),
    OpRow("where_self", lambda x, c, y: np.where(c, x, y), 3, method=False,
          shapes=((3, 4), (3, 4), (3, 4)), in_dtypes=("float", "bool", "float"), scalar_other=0.5),
    OpRow("where", lambda c, x, y: np.where(c, x, y), 3, target=1,
          shapes=((3, 4), (3, 4), (3, 4)), in_dtypes=("bool", "float", "float"), scalar_other=0.5),
    OpRow("where", lambda c, x, y: np.where(c, x, y), 3, target=1,
          shapes=((4,), (3, 4), (3, 1)), in_dtypes=("bool", "float", "float")),
    # indexing (integer / bool index operands)
    OpRow("index_select", lambda x, i, axis: np.take(x, i, axis), 2, shapes=((3, 4), (5,)),
          in_dtypes=("float", "int64"), domains=(None, (0, 3)), kwargs=dict(axis=0),
          inplace=False, pointwise=False, zero_dim=False),
    OpRow("index_select", lambda x, i, axis: np.take(x, i, axis), 2, shapes=((3, 4), (5,)),
          in_dtypes=("float", "int64"), domains=(None, (0, 4)), kwargs=dict(axis=1),
          inplace=False, pointwise=False, zero_dim=False),
    OpRow("take_along_axis", lambda x, i, axis: np.take_along_axis(x, i, axis), 2,
          shapes=((3, 4), (2, 4)), in_dtypes=("float", "int64"), domains=(None, (0, 3)),
          kwargs=dict(axis=0), inplace=False, pointwise=False, zero_dim=False),
    OpRow("gather", lambda x, i: np.take_along_axis(x, i, 1), 2, layout=(In(0), 1, In(1)),
          shapes=((3, 4), (3, 6)), in_dtypes=("float", "int64"), domains=(None, (0, 4)),
          inplace=False, pointwise=False, zero_dim=False),            # torch: gather(x, dim, index)
    OpRow("gather", lambda x, i: x[i], 2, shapes=((3, 4), (5,)), in_dtypes=("float", "int64"),
          domains=(None, (0, 3)), inplace=False, pointwise=False, zero_dim=False),  # Paddle
    OpRow("take", lambda x, i: np.take(x, i), 2, shapes=((3, 4), (2, 3)),
          in_dtypes=("float", "int64"), domains=(None, (0, 12)), inplace=False, pointwise=False,
          zero_dim=False),
    OpRow("masked_select", lambda x, m: x[m], 2, in_dtypes=("float", "bool"), inplace=False,
          pointwise=False, zero_dim=False),
    OpRow("masked_select", lambda x, m: x[np.broadcast_to(m, x.shape)], 2,
          shapes=((3, 4), (4,)), in_dtypes=("float", "bool"), inplace=False, pointwise=False,
          zero_dim=False),
    OpRow("nonzero", lambda x: np.argwhere(x).astype(np.int64), out_dtype="int64", grad=False,
          inplace=False, pointwise=False, zero_dim=False, prepare=(some_zeros,)),
    OpRow("scatter", _put, 3, layout=(In(0), 0, In(1), In(2)), shapes=((3, 4), (2, 4), (2, 4)),
          in_dtypes=("float", "int64", "float"), domains=(None, (0, 3), None),
          prepare=(unique_index(1, 3),), pointwise=False, zero_dim=False,
          float_into_int_error="self.dtype to be equal to src.dtype"),
    OpRow("scatter_add", _scatter_add, 3, layout=(In(0), 0, In(1), In(2)),
          shapes=((3, 4), (5, 4), (5, 4)), in_dtypes=("float", "int64", "float"),
          domains=(None, (0, 3), None), pointwise=False, zero_dim=False,
          float_into_int_error="self.dtype to be equal to src.dtype"),
    *[OpRow("scatter_reduce", _scatter_reduce, 3, layout=(In(0), 0, In(1), In(2)),
            kwargs=dict(reduce=red, include_self=inc), shapes=((3, 4), (5, 4), (5, 4)),
            in_dtypes=("float", "int64", "float"), domains=(None, (0, 3), None),
            domain=(0.5, 1.5) if red == "prod" else (-2.0, 2.0), grad=red == "sum",
            pointwise=False, zero_dim=False, float_into_int_error="self.dtype to be equal to src.dtype")
      # derivatives of prod/amax/amin/mean are refused (RuntimeError naming the alternatives)
      for red, inc in (("sum", True), ("prod", True), ("amax", True), ("amin", False),
                       ("mean", False))],
    OpRow("index_add", _index_add, 3, layout=(In(0), 0, In(1), In(2)), kwargs=dict(alpha=0.5),
          shapes=((3, 4), (5,), (5, 4)), in_dtypes=("float", "int64", "float"),
          domains=(None, (0, 3), None), pointwise=False, zero_dim=False,
          float_into_int_error="self.dtype to be equal to source.dtype"),
    OpRow("put_along_axis", _put, 3, kwargs=dict(axis=0), shapes=((3, 4), (2, 4), (2, 4)),
          in_dtypes=("float", "int64", "float"), domains=(None, (0, 3), None),
          prepare=(unique_index(1, 3),), pointwise=False, zero_dim=False,
          float_into_int_error="self.dtype to be equal to src.dtype"),
    OpRow("put_along_axis", lambda x, i, v, axis, reduce: _scatter_add(x, i, v, axis), 3,
          kwargs=dict(axis=0, reduce="add"), shapes=((3, 4), (5, 4), (5, 4)),
          in_dtypes=("float", "int64", "float"), domains=(None, (0, 3), None), pointwise=False,
          zero_dim=False, float_into_int_error="self.dtype to be equal to src.dtype"),
    OpRow("index_put", _index_put, 3, layout=(In(0), (In(1),), In(2)),
          shapes=((3, 4), (3,), (3, 4)), in_dtypes=("float", "int64", "float"),
          domains=(None, (0, 3), None), prepare=(unique_index(1, 3),), pointwise=False,
          zero_dim=False, float_into_int_error="dtypes match"),
    OpRow("index_put", _index_put, 4, layout=(In(0), (In(1), In(2)), In(3)),
          kwargs=dict(accumulate=True), shapes=((3, 4), (5,), (5,), (5,)),
          in_dtypes=("float", "int64", "int64", "float"), domains=(None, (0, 3), (0, 4), None),
          pointwise=False, zero_dim=False, float_into_int_error="dtypes match"),
    # joins (a sequence of tensors)
    OpRow("concat", lambda x, y, axis: np.concatenate([x, y], axis), 2, layout=((In(0), In(1)),),
          kwargs=dict(axis=1), shapes=((3, 4), (3, 2)), method=False, inplace=False,
          pointwise=False, zero_dim=False),
    OpRow("stack", lambda x, y, axis: np.stack([x, y], axis), 2, layout=((In(0), In(1)),),
          kwargs=dict(axis=-1), method=False, inplace=False, pointwise=False, zero_dim=False),
    # in place only
    OpRow("copy", lambda x, s: np.broadcast_to(s, x.shape).astype(x.dtype), 2, outplace=False,
          float_into_int_error=None),
    OpRow("copy", lambda x, s: np.broadcast_to(s, x.shape).astype(x.dtype), 2,
          shapes=((3, 4), (4,)), outplace=False, float_into_int_error=None),
    OpRow("fill", _fill, 2, shapes=((3, 4), ()), outplace=False, scalar_other=2.5,
          float_into_int_error=None, pointwise=False, expanded_destination="written"),
    OpRow("zero", np.zeros_like, outplace=False, expanded_destination="written"),
    # copies and casts
    OpRow("clone", np.copy, inplace=False),
    OpRow("cast", lambda x, dtype: x.astype(dtype), kwargs=dict(dtype="float64"),
          out_dtype="float64", inplace=False),
    OpRow("cast", lambda x, dtype: x.astype(dtype), kwargs=dict(dtype="int64"),
          out_dtype="int64", inplace=False, grad=False),
    OpRow("astype", lambda x, dtype: x.astype(dtype), kwargs=dict(dtype="float64"),
          out_dtype="float64", inplace=False),
    OpRow("flip", lambda x, axis: np.flip(x, _ax(axis)), kwargs=dict(axis=[0, 1]),
          inplace=False, zero_dim=False),
    OpRow("tile", lambda x, repeat_times: np.tile(x, repeat_times),
          kwargs=dict(repeat_times=[2, 1]), inplace=False),
    # reductions and scans
    OpRow("sum", _reduce(np.sum), inplace=False),
    OpRow("sum", _reduce(np.sum), kwargs=dict(axis=1, keepdim=True), inplace=False,
          zero_dim=False),
    OpRow("sum", _reduce(np.sum), kwargs=dict(axis=[0, 1]), inplace=False, zero_dim=False),
    OpRow("mean", _reduce(np.mean), inplace=False),
    OpRow("mean", _reduce(np.mean), kwargs=dict(axis=0), inplace=False, zero_dim=False),
    OpRow("prod", _reduce(np.prod), domain=(0.5, 1.5), inplace=False),
    OpRow("prod", _reduce(np.prod), kwargs=dict(axis=1, keepdim=True), domain=(0.5, 1.5),
          inplace=False, zero_dim=False),
    OpRow("amax", _reduce(np.max), inplace=False),
    OpRow("amax", _reduce(np.max), kwargs=dict(axis=1), inplace=False, zero_dim=False),
    OpRow("amin", _reduce(np.min), kwargs=dict(axis=[0], keepdim=True), inplace=False,
          zero_dim=False),
    OpRow("max", _reduce(np.max), inplace=False),
    OpRow("max", _reduce(np.max), kwargs=dict(axis=1), inplace=False, zero_dim=False),
    OpRow("min", _reduce(np.min), kwargs=dict(axis=0, keepdim=True), inplace=False,
          zero_dim=False),
    OpRow("logsumexp", _logsumexp, inplace=False),
    OpRow("logsumexp", _logsumexp, kwargs=dict(axis=1, keepdim=True), inplace=False,
          zero_dim=False),
    OpRow("std", _std, kwargs=dict(axis=1), inplace=False, zero_dim=False),
    OpRow("std", _std, kwargs=dict(unbiased=False), inplace=False),
    OpRow("var", _var, kwargs=dict(axis=0, keepdim=True), inplace=False, zero_dim=False),
    OpRow("var", _var, kwargs=dict(unbiased=False), inplace=False),
    OpRow("cumsum", lambda x, axis: np.cumsum(x, axis), kwargs=dict(axis=1), inplace=True,
          zero_dim=False),
    OpRow("cumsum", lambda x: np.cumsum(x), inplace=False),
    OpRow("argmax", _arg(np.argmax), out_dtype="int64", grad=False, inplace=False),
    OpRow("argmax", _arg(np.argmax), kwargs=dict(axis=1, keepdim=True), out_dtype="int64",
          grad=False, inplace=False, zero_dim=False),
    OpRow("argmin", _arg(np.argmin), kwargs=dict(axis=0), out_dtype="int64", grad=False,
          inplace=False, zero_dim=False),
    OpRow("all", _reduce(np.all), in_dtypes=B, out_dtype="bool", grad=False, inplace=False),
    OpRow("all", _reduce(np.all), kwargs=dict(axis=1), out_dtype="bool", grad=False,
          inplace=False, zero_dim=False, prepare=(some_zeros,)),
    OpRow("any", _reduce(np.any), kwargs=dict(axis=0, keepdim=True), in_dtypes=B,
          out_dtype="bool", grad=False, inplace=False, zero_dim=False),
    OpRow("any", _reduce(np.any), out_dtype="bool", grad=False, inplace=False,
          prepare=(some_zeros,)),
    OpRow("count_nonzero", _count_nonzero, out_dtype="int64", grad=False, inplace=False,
          prepare=(some_zeros,)),
    OpRow("count_nonzero", _count_nonzero, kwargs=dict(axis=1), out_dtype="int64", grad=False,
          inplace=False, zero_dim=False, prepare=(some_zeros,)),
    # matrix products
    OpRow("matmul", np.matmul, 2, shapes=((3, 4), (4, 4)), operator="@", pointwise=False,
          zero_dim=False, float_into_int_error="same dtype"),   # matmul does not promote
    OpRow("matmul", np.matmul, 2, shapes=((2, 3, 4), (4, 5)), inplace=False, pointwise=False,
          zero_dim=False),
    OpRow("matmul", np.matmul, 2, shapes=((4,), (4, 3)), inplace=False, pointwise=False,
          zero_dim=False),
    OpRow("matmul", np.matmul, 2, shapes=((3, 4), (4,)), inplace=False, pointwise=False,
          zero_dim=False),
    OpRow("matmul", _matmul_t, 2, shapes=((3, 4), (3, 4)), kwargs=dict(transpose_y=True),
          inplace=False, pointwise=False, zero_dim=False),
    OpRow("matmul", _matmul_t, 2, shapes=((4, 4), (4, 4)), kwargs=dict(transpose_x=True),
          pointwise=False, zero_dim=False, float_into_int_error="same dtype"),
    OpRow("bmm", np.matmul, 2, shapes=((2, 3, 4), (2, 4, 5)), inplace=False, pointwise=False,
          zero_dim=False),
]


# ---------------------------------------------------------------- random in-place fills
@dataclass
class RandomRow:
    """An in-place random fill: checked against its distribution's moments and support."""
    name: str
    kwargs: dict
    mean: float
    var: float
    support: tuple          # (lo, hi), inclusive
    values: tuple = None    # a discrete distribution's only values


RANDOM_ROWS = [
    RandomRow("uniform_", dict(min=-1.0, max=3.0), 1.0, 16 / 12, (-1.0, 3.0)),
    RandomRow("normal_", dict(mean=2.0, std=0.5), 2.0, 0.25, (-np.inf, np.inf)),
    RandomRow("exponential_", dict(lam=2.0), 0.5, 0.25, (0.0, np.inf)),
    RandomRow("bernoulli_", dict(p=0.25), 0.25, 0.25 * 0.75, (0.0, 1.0), values=(0.0, 1.0)),
]


@dataclass
class SamplerRow:
    """A random sampling function: `draw(oar, n)` gives n samples (any shape), checked against
    the distribution's moments and support; `exact(sample)` a property that must hold."""
    name: str
    draw: object
    dtype: str
    mean: float
    var: float
    support: tuple
    values: tuple = None
    exact: object = None


SAMPLERS = [
    SamplerRow("rand", lambda L, n: L.rand(n), "float32", 0.5, 1 / 12, (0.0, 1.0)),
    SamplerRow("randn", lambda L, n: L.randn(n), "float32", 0.0, 1.0, (-np.inf, np.inf)),
    SamplerRow("randint", lambda L, n: L.randint(2, 7, [n]), "int64", 4.0, 2.0, (2, 6),
               values=(2, 3, 4, 5, 6)),
    SamplerRow("normal", lambda L, n: L.normal(1.0, 2.0, [n]), "float32", 1.0, 4.0,
               (-np.inf, np.inf)),
    SamplerRow("uniform", lambda L, n: L.uniform([n], min=-1.0, max=3.0), "float32", 1.0, 16 / 12,
               (-1.0, 3.0)),
    SamplerRow("bernoulli", lambda L, n: L.bernoulli(L.full([n], 0.3)), "float32", 0.3, 0.21,
               (0.0, 1.0), values=(0.0, 1.0)),
    SamplerRow("multinomial", lambda L, n: L.multinomial(L.to_tensor([1.0, 2.0, 5.0]), n,
                                                         replacement=True),
               "int64", 1.5, 0.5, (0, 2), values=(0, 1, 2)),
    SamplerRow("randperm", lambda L, n: L.randperm(n), "int64", None, None, (0, np.inf),
               exact=lambda s: np.array_equal(np.sort(s), np.arange(s.size))),
]


# ---------------------------------------------------------------- alias spellings
# alias -> the name its rows use (alias_ -> name_ where both exist). test_op_table runs the
# first row of `name` through each alias spelling, so an alias is tested even when it is a
# separate function object.
ALIASES = {
    "negative": "neg", "clamp": "clip", "subtract": "sub", "multiply": "mul", "divide": "div",
    "true_divide": "div", "mod": "remainder", "floor_mod": "remainder", "eq": "equal",
    "ne": "not_equal", "gt": "greater_than", "greater": "greater_than", "ge": "greater_equal",
    "lt": "less_than", "less": "less_than", "le": "less_equal", "mm": "matmul", "cat": "concat",
}


# ---------------------------------------------------------------- exemptions
@dataclass
class Exempt:
    reason: str
    files: tuple    # test files (relative to the repository root) that call every name below
    names: tuple


EXEMPT = [
    Exempt("Paddle-door ops (issue 10): values, shapes, dtypes, gradients and errors against "
           "paddle 3.3.1", ("tests/test_paddle_door.py",),
           ("add_n", "equal_all", "norm", "dist")),
    Exempt("index-selecting reductions (issue 10): Paddle's meanings in both doors' tests, "
           "PyTorch's through oar.torch; values, indices, gradients against both frameworks",
           ("tests/test_doors_conflicts.py",),
           ("sort", "argsort", "topk", "kthvalue", "mode", "median", "cummax", "cummin")),
    Exempt("view op (shares storage with its input): values, strides, offsets and write-through "
           "against torch",
           ("tests/reference/test_views_vs_torch.py",),
           ("reshape", "view", "flatten", "transpose", "permute", "t", "squeeze", "unsqueeze",
            "expand", "select", "narrow", "diagonal", "as_strided", "unfold", "movedim",
            "split", "chunk", "unbind", "tensor_split", "contiguous", "detach", "broadcast_to",
            "expand_as", "view_as", "reshape_as", "swapaxes", "swapdims", "moveaxis")),
    Exempt("Paddle-only view op: values, shapes, gradients, view semantics and errors "
           "against paddle 3.3.1", ("tests/test_paddle_slice.py",), ("slice",)),
    Exempt("metadata in-place op (the tensor becomes a view of itself): shape, strides, "
           "offset, version and gradients against torch",
           ("tests/reference/test_views_vs_torch.py",),
           ("t_", "transpose_", "swapdims_", "squeeze_", "unsqueeze_")),
    Exempt("metadata in-place op, Paddle only (no torch spelling): shape, version, views",
           ("tests/test_general_ops.py",),
           ("reshape_", "flatten_")),
    Exempt("detach_ (autograd metadata, no values)",
           ("tests/reference/scenarios.py", "tests/test_autograd_fixes.py"),
           ("detach_",)),
    Exempt("creation function (no tensor input): shape, dtype, strides, requires_grad and "
           "values against torch",
           ("tests/reference/test_creation_vs_torch.py",),
           ("zeros", "ones", "full", "arange", "linspace", "eye", "tensor", "zeros_like",
            "ones_like", "full_like", "empty", "empty_like", "from_numpy")),
    Exempt("creation function, Paddle spelling (no tensor input)",
           ("tests/test_general_ops.py", "tests/test_tensor_basics.py"),
           ("to_tensor",)),
    Exempt("Paddle's assign(x, output): a copy, or an in-place write into output "
           "(version, shape, refusals) against paddle 3.3.1",
           ("tests/test_paddle_clip.py",),
           ("assign",)),
    Exempt("random seed (no tensor result): draws repeat after re-seeding (also in "
           "test_op_table.py's sampler test)",
           ("tests/test_general_ops.py",),
           ("manual_seed", "seed")),
]


@dataclass
class Internal:
    """An OpDef with no spelling of its own (no function, no method): one op that a public
    spelling dispatches to (torch.max() of all elements is `max_all`). Tested through that
    spelling, in the files named, against torch."""
    op: str
    spelling: str
    files: tuple


INTERNAL = [
    Internal("clamp_tensor", "clamp", ("tests/test_torch_silent_diffs.py",)),
    Internal("aminmax", "aminmax", ("tests/test_torch_grad_fn_names.py",)),
    Internal("max_all", "max", ("tests/test_torch_grad_fn_names.py",)),
    Internal("min_all", "min", ("tests/test_torch_grad_fn_names.py",)),
    Internal("median_all", "median", ("tests/test_torch_grad_fn_names.py",)),
    Internal("select_values", "sort", ("tests/test_torch_grad_fn_names.py",)),
]


# ---------------------------------------------------------------- issue 10: new ops (rows appended)
def _erfinv_ref(y):
    from statistics import NormalDist
    nd = NormalDist()
    f = np.vectorize(lambda v: nd.inv_cdf((v + 1) / 2) / math.sqrt(2), otypes=[np.float64])
    return f(np.asarray(y, np.float64)).astype(np.asarray(y).dtype)


def _erfc_ref(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(x).astype(np.asarray(x).dtype)


def _sinc_ref(x):
    x64 = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        r = np.where(x64 == 0, 1.0, np.sin(np.pi * x64) / (np.pi * x64))
    return r.astype(np.asarray(x).dtype)


def _logit_ref(x, eps=None):
    x64 = np.asarray(x, np.float64)
    if eps is not None:
        x64 = np.clip(x64, eps, 1 - eps)
    return np.log(x64 / (1 - x64)).astype(np.asarray(x).dtype)


ROWS += [
    OpRow("erf", lambda x: _erf(x).astype(np.asarray(x).dtype)),
    OpRow("erfc", _erfc_ref),
    OpRow("erfinv", _erfinv_ref, domain=(-0.8, 0.8)),
    OpRow("asinh", np.arcsinh),
    OpRow("acosh", np.arccosh, domain=(1.2, 3.0)),
    OpRow("atanh", np.arctanh, domain=(-0.8, 0.8)),
    OpRow("exp2", np.exp2),
    OpRow("frac", lambda x: x - np.trunc(x), prepare=KINKS),
    OpRow("deg2rad", np.deg2rad, domain=(-200.0, 200.0)),
    OpRow("rad2deg", np.rad2deg),
    OpRow("sinc", _sinc_ref, prepare=(avoid(0.0),)),
    OpRow("logit", _logit_ref, domain=(0.1, 0.9)),
    OpRow("logit", _logit_ref, kwargs=dict(eps=0.25), domain=(0.05, 0.95),
          prepare=(avoid(0.25, 0.75),)),
    OpRow("nan_to_num", np.nan_to_num),
    OpRow("nan_to_num", lambda x, nan, posinf, neginf: np.nan_to_num(x, nan=nan, posinf=posinf,
                                                                      neginf=neginf),
          kwargs=dict(nan=1.5, posinf=9.0, neginf=-9.0), grad=False, prepare=(specials,)),
    OpRow("roll", lambda x, shifts, axis: np.roll(x, shifts, axis), kwargs=dict(shifts=1, axis=1),
          inplace=False, pointwise=False, zero_dim=False),
    OpRow("roll", lambda x, shifts: np.roll(x, shifts), kwargs=dict(shifts=-5), inplace=False,
          pointwise=False),
    OpRow("roll", lambda x, shifts, axis: np.roll(x, shifts, tuple(axis)),
          kwargs=dict(shifts=[1, -2], axis=[0, 1]), inplace=False, pointwise=False,
          zero_dim=False),
    OpRow("tril", lambda x: np.tril(x), pointwise=False, zero_dim=False),
    OpRow("tril", lambda x, diagonal: np.tril(x, diagonal), kwargs=dict(diagonal=-1),
          pointwise=False, zero_dim=False, shapes=((2, 3, 4),)),
    OpRow("triu", lambda x: np.triu(x), pointwise=False, zero_dim=False),
    OpRow("triu", lambda x, diagonal: np.triu(x, diagonal), kwargs=dict(diagonal=2),
          pointwise=False, zero_dim=False, shapes=((2, 3, 4),)),
    OpRow("isclose", lambda x, y: np.isclose(x, y), 2, out_dtype="bool", grad=False,
          inplace=False, prepare=(some_equal,)),
    OpRow("allclose", lambda x, y: np.asarray(np.allclose(x, y)), 2, out_dtype="bool",
          grad=False, inplace=False, pointwise=False),
]

# comparisons and logic ops in place (PyTorch's x.eq_(y) keeps x's dtype): bool tensors, whose
# in-place result is the out-of-place one (float targets: tests/test_new_ops.py against torch)
ROWS += [OpRow(n, f, 2, in_dtypes=B * 2, out_dtype="bool", grad=False, shapes=((3, 4), (4,)),
               prepare=(some_equal,), float_into_int_error=None)
         for n, f in (("equal", np.equal), ("not_equal", np.not_equal),
                      ("greater_than", np.greater), ("greater_equal", np.greater_equal),
                      ("less_than", np.less), ("less_equal", np.less_equal),
                      ("logical_and", np.logical_and), ("logical_or", np.logical_or),
                      ("logical_xor", np.logical_xor))]
ROWS.append(OpRow("logical_not", np.logical_not, in_dtypes=B, out_dtype="bool", grad=False,
                  shapes=((2, 5),), float_into_int_error=None))

SAMPLERS += [
    SamplerRow("rand_like", lambda L, n: L.rand_like(L.zeros([n])), "float32", 0.5, 1 / 12,
               (0.0, 1.0)),
    SamplerRow("randn_like", lambda L, n: L.randn_like(L.zeros([n])), "float32", 0.0, 1.0,
               (-np.inf, np.inf)),
    SamplerRow("randint_like", lambda L, n: L.randint_like(L.zeros([n], dtype="int64"), 2, 7),
               "int64", 4.0, 2.0, (2, 6), values=(2, 3, 4, 5, 6)),
    SamplerRow("standard_normal", lambda L, n: L.standard_normal([n]), "float32", 0.0, 1.0,
               (-np.inf, np.inf)),
]

RANDOM_ROWS += [
    RandomRow("random_", dict(low=0, high=5), 2.0, 2.0, (0.0, 4.0), values=(0, 1, 2, 3, 4)),
]

ALIASES.update({"absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan",
                "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "fix": "trunc",
                "sgn": "sign"})

EXEMPT += [
    Exempt("view op (issue 10): values, shapes, storage sharing and gradients against torch",
           ("tests/test_new_ops.py",),
           ("unflatten", "hsplit", "vsplit", "dsplit", "split_with_sizes")),
    Exempt("metadata in-place op (issue 10): shape, strides, storage, version and refusals "
           "against torch",
           ("tests/test_new_ops.py",),
           ("as_strided_", "resize_", "resize_as_")),
    Exempt("reductions returning a pair (var, mean) / (std, mean): values and gradients "
           "against torch",
           ("tests/test_new_ops.py",),
           ("var_mean", "std_mean")),
    Exempt("global state (no tensor result): the default dtype in both doors against torch "
           "and paddle",
           ("tests/test_torch_runtime.py",),
           ("set_default_dtype",)),
]

EXEMPT += [
    Exempt("integer-only ops (shifts), bool/NaN thresholds, a metadata in-place alias, "
           "div's rounding_mode ops and torch.rsub's tensor form: values, dtypes, overflow edges, refusals and "
           "gradients against torch 2.13 (Note [Dtype refusals])",
           ("tests/test_torch_errors_overloads.py",),
           ("bitwise_left_shift", "bitwise_left_shift_", "bitwise_right_shift",
            "bitwise_right_shift_", "div_trunc", "div_floor", "swapaxes_", "threshold",
            "threshold_", "rsub")),
]

# scans and sets (oar/ops/scans.py)
ROWS += [
    OpRow("cumprod", lambda x, axis: np.cumprod(x, axis), kwargs=dict(axis=1), inplace=True,
          zero_dim=False),
    OpRow("cumprod", lambda x: np.cumprod(x), inplace=False),
    OpRow("logcumsumexp", lambda x, axis: np.logaddexp.accumulate(x, axis), kwargs=dict(axis=1),
          inplace=False, zero_dim=False),
]
EXEMPT += [
    Exempt("scans and sets with integer or tuple results (no gradient, or views from "
           "expand): values, dtypes, non-contiguous inputs and errors against torch 2.13 and "
           "paddle 3.3.1",
           ("tests/test_scan_set_ops.py",),
           ("searchsorted", "bucketize", "bincount", "histc", "meshgrid", "unique_consecutive")),
]

EXEMPT += [
    Exempt("matrix ops (oar/ops/linalg.py): values, dtypes, gradients (float64 gradcheck), "
           "non-contiguous inputs, beta=0 with NaN input, in-place spellings and Paddle's "
           "spellings against torch 2.13 and NumPy",
           ("tests/test_matrix_ops.py",),
           ("diag", "diagflat", "trace", "outer", "kron", "cross", "addmv", "addmv_",
            "addbmm", "addbmm_", "baddbmm", "baddbmm_")),
]

EXEMPT += [
    Exempt("decompositions and solvers (oar/ops/decomp.py; paddle.linalg / torch.linalg): "
           "values against torch 2.13 and paddle 3.3.1, float64 gradcheck, errors",
           ("tests/test_breadth_linalg.py",), ("inverse", "cholesky", "eigvalsh")),
]

# norms, einsum, cdist (oar/ops/norms.py, oar/ops/contract.py)
ROWS += [
    OpRow("cdist", lambda x, y: np.sqrt(((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)),
          n_inputs=2, shapes=((3, 4), (5, 4)), inplace=False, pointwise=False, zero_dim=False),
    OpRow("einsum", lambda x, y: np.einsum("ij,kj->ik", x, y), n_inputs=2,
          shapes=((3, 4), (5, 4)), inplace=False, pointwise=False, zero_dim=False, method=False,
          layout=("ij,kj->ik", In(0), In(1))),
]
EXEMPT += [
    Exempt("complex dtypes (Note [Complex dtypes]): values, dtypes, views (storage, version, "
           "strides), errors, printing and gradients of complex inputs against torch 2.13 and "
           "paddle 3.3.1", ("tests/test_dtypes_complex.py",),
           ("angle", "as_complex", "as_real", "complex", "conj", "imag", "is_complex", "polar",
            "real", "view_as_complex", "view_as_real")),
]

# ---------------------------------------------------------------- oar/ops/pointwise_more.py
def _apart(arrs, rng):
    """clamp_min/clamp_max: the bound is kept 0.2 away from x (no ties), keeping its shape
    when x broadcasts to it."""
    arrs = list(arrs)
    a, b = arrs[0], arrs[1]
    if np.broadcast_shapes(a.shape, b.shape) == b.shape:
        arrs[1] = np.where(np.abs(b - a) < 0.2, b + 0.5, b).astype(b.dtype)
    return arrs


def _xlogy_ref(x, y):
    with np.errstate(all="ignore"):
        return np.where(x == 0, 0.0, x * np.log(y)).astype(np.result_type(x, y))


ROWS += [
    OpRow("hypot", np.hypot, 2, shapes=((3, 4), (4,)), prepare=(avoid_integers,)),
    OpRow("ldexp", lambda x, y: (x * np.exp2(y)).astype(x.dtype), 2),
    OpRow("copysign", np.copysign, 2, prepare=(avoid_integers,), scalar_other=-1.5),
    OpRow("gcd", np.gcd, 2, domain=(-9, 9), in_dtypes=I2, out_dtype="int64", grad=False,
          float_into_int_error="not implemented"),
    OpRow("lcm", np.lcm, 2, domain=(-9, 9), in_dtypes=I2, out_dtype="int64", grad=False,
          float_into_int_error="not implemented"),
    OpRow("xlogy", _xlogy_ref, 2, domains=((-2.0, 2.0), (0.5, 2.0)), scalar_other=1.5),
    OpRow("lerp", lambda x, y, w: (x + w * (y - x)).astype(x.dtype), 3,
          domains=((-2.0, 2.0), (-2.0, 2.0), (0.0, 1.0)), shapes=((3, 4), (3, 4), (4,))),
    OpRow("lerp", lambda x, y, w: (x + w * (y - x)).astype(x.dtype), 3, scalar_other=0.75),
    OpRow("addcmul", lambda x, a, b, value: (x + value * a * b).astype(x.dtype), 3,
          kwargs=dict(value=0.5), shapes=((3, 4), (3, 1), (4,))),
    OpRow("addcdiv", lambda x, a, b, value: (x + value * a / b).astype(x.dtype), 3,
          kwargs=dict(value=-2.0), domains=((-2.0, 2.0), (-2.0, 2.0), (0.5, 2.0))),
    OpRow("clamp_min", np.maximum, 2, prepare=KINKS + (_apart,), scalar_other=0.25),
    OpRow("clamp_max", np.minimum, 2, prepare=KINKS + (_apart,), scalar_other=0.25),
]
EXEMPT += [
    Exempt("composites of oar ops (oar/ops/pointwise_more.py): values, dtypes, gradients "
           "(float64 gradcheck, non-contiguous), in-place spellings, errors and Paddle's "
           "spellings against torch 2.13 and paddle 3.3.1",
           ("tests/test_breadth_pointwise.py",),
           ("addmm", "addmm_", "renorm", "renorm_", "index_fill", "index_fill_",
            "masked_scatter", "masked_scatter_", "cast_")),
]

# ---------------------------------------------------------------- oar/ops/special.py
def _sp(name, *consts):
    """A scipy.special reference (SciPy is a test oracle only, never a runtime dependency)."""
    def ref(*arrs, **kw):
        from scipy import special
        r = getattr(special, name)(*consts, *[np.asarray(a, np.float64) for a in arrs],
                                   *kw.values())
        return np.asarray(r).astype(np.result_type(*arrs))
    return ref


def _multigammaln_ref(x, p):
    return np.vectorize(lambda v: sum(math.lgamma(v - j / 2) for j in range(p))
                        + p * (p - 1) / 4 * math.log(math.pi), otypes=[np.float64])(x).astype(x.dtype)


ROWS += [
    OpRow("lgamma", _sp("gammaln"), domain=(0.1, 6.0)),
    OpRow("digamma", _sp("psi"), domain=(0.1, 6.0)),
    OpRow("polygamma", lambda x, n: _sp("polygamma", n)(x), kwargs=dict(n=1), domain=(0.2, 5.0)),
    OpRow("polygamma", lambda x, n: _sp("polygamma", n)(x), kwargs=dict(n=3), domain=(0.5, 5.0)),
    OpRow("multigammaln", _multigammaln_ref, kwargs=dict(p=3), domain=(1.5, 5.0)),
    OpRow("i0", _sp("i0")),
    OpRow("i0e", _sp("i0e"), inplace=False),
    OpRow("i1", _sp("i1"), inplace=False),
    OpRow("i1e", _sp("i1e"), inplace=False),
    OpRow("gammainc", _sp("gammainc"), 2, domains=((0.5, 4.0), (0.1, 5.0)), grad=False),
    OpRow("gammaincc", _sp("gammaincc"), 2, domains=((0.5, 4.0), (0.1, 5.0)), grad=False),
]
ALIASES.update({"gammaln": "lgamma", "mvlgamma": "multigammaln", "igamma": "gammainc",
                "igammac": "gammaincc"})
EXEMPT += [
    Exempt("torch.special only (Note [torch.special only ops]): values against torch 2.13 and "
           "SciPy, float64 gradcheck, non-contiguous, out= and keywords",
           ("tests/test_breadth_special.py",),
           ("ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "xlog1py", "zeta")),
]

# ---------------------------------------------------------------- oar/ops/more_ops.py
ROWS += [
    OpRow("atan2", np.arctan2, 2, shapes=((3, 4), (4,)), domain=(0.3, 2.0)),
    OpRow("logaddexp", np.logaddexp, 2, inplace=False, shapes=((3, 4), (4,)),
          float_into_int_error=None),
    OpRow("logaddexp2", np.logaddexp2, 2, inplace=False, float_into_int_error=None),
]
ALIASES.update({"arctan2": "atan2"})
EXEMPT += [
    Exempt("everyday ops of oar/ops/more_ops.py: values, dtypes, node names and float64 "
           "gradients against torch 2.13 and paddle 3.3.1, gradcheck on non-contiguous "
           "inputs, errors", ("tests/test_breadth_ops2.py",),
           ("dot", "mv", "rot90", "fliplr", "flipud", "nansum", "nanmean", "diff",
            "repeat_interleave", "take_along_dim", "tensordot", "matrix_power", "isin",
            "broadcast_shape", "broadcast_shapes", "broadcast_tensors", "atleast_1d",
            "atleast_2d", "atleast_3d",
            "signbit", "isneginf", "isposinf", "isreal", "heaviside", "heaviside_",
            "positive", "inner",
            "vdot", "argwhere", "trapezoid", "trapz", "cumulative_trapezoid", "block_diag",
            "cartesian_prod", "cov", "corrcoef")),
]

# ---------------------------------------------------------------- oar/ops/more_ops3.py
EXEMPT += [
    Exempt("more ops of oar/ops/more_ops3.py: values, dtypes and float64 gradients against "
           "torch 2.13 and paddle 3.3.1, gradcheck on non-contiguous inputs, errors",
           ("tests/test_breadth_ops3.py",),
           ("frexp", "nextafter", "nextafter_", "diag_embed", "nanmedian", "quantile",
            "nanquantile", "vander", "matrix_exp", "select_scatter", "slice_scatter",
            "diagonal_scatter")),
]
INTERNAL += [Internal("nanmedian_all", "nanmedian", ("tests/test_breadth_ops3.py",))]

# ---------------------------------------------------------------- oar/ops/paddle_ops.py
EXEMPT += [
    Exempt("Paddle's own ops, compositions of core ops: values, dtypes and float64 gradients "
           "against paddle 3.3.1 (function and method spellings), non-contiguous inputs, "
           "gradcheck, errors with Paddle's classes", ("tests/test_breadth_paddle_ops.py",),
           ("gather_nd", "scatter_nd", "scatter_nd_add", "index_sample", "strided_slice",
            "unstack", "reverse", "multiplex", "combinations", "crop", "shard_index",
            "logspace")),
]

# Paddle's dtype predicates beside is_complex (oar/ops/complex.py)
EXEMPT += [
    Exempt("dtype predicates: every dtype in both spellings (function, method) and the "
           "non-tensor refusal against paddle 3.3.1", ("tests/test_paddle_exact2.py",),
           ("is_floating_point", "is_integer")),
]
