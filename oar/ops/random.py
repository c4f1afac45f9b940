"""Random numbers: one generator, seeded by oar.seed / oar.manual_seed."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from ..autograd.errors import ArgTypeError, ArgValueError
from . import args as _args
from . import registry
from .creation import _dtype, _finish, _shape
from .registry import OpDef, declare

_GEN = [np.random.default_rng()]


def seed(s):
    """Seeds oar's random generator (oar.seed and oar.manual_seed); returns the generator."""
    _GEN[0] = np.random.default_rng(int(s))
    return _GEN[0]


manual_seed = seed


def generator():
    """oar's random generator (a numpy.random.Generator)."""
    return _GEN[0]


def _floats(shape, dtype, draw):
    dt = _dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"random floats need a floating dtype, got {dt}")
    return draw(shape).astype(dt, copy=False)


def rand(*shape, dtype=None, name=None, requires_grad=False):
    """A new tensor of the given shape with samples uniform on [0, 1)."""
    return _finish(_floats(_shape(shape, "rand"), dtype, _GEN[0].random), requires_grad)


def randn(*shape, dtype=None, name=None, requires_grad=False):
    """A new tensor of the given shape with samples from the standard normal N(0, 1)."""
    return _finish(_floats(_shape(shape, "randn"), dtype, _GEN[0].standard_normal), requires_grad)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None, *, size=None):
    """A new int64 tensor of the given shape with integers uniform on [low, high)."""
    if high is None:
        low, high = 0, low
    if size is not None:
        shape = size
    low = _args.integer(low, "randint", "low")
    high = _args.integer(high, "randint", "high")
    if low >= high:
        raise ArgValueError(f"randint(): random_ expects 'from' to be less than 'to', but got "
                            f"from={low} >= to={high}. Fix: pass high > low.")
    return _finish(_GEN[0].integers(low, high, size=_args.shape(shape, "randint"),
                                    dtype=_dtype(dtype, _dt.int64)))


def _std(std, op):
    if not std >= 0:
        raise ArgValueError(f"{op}(): normal expects std >= 0.0, but found std {std}")
    return std


def normal(mean=0.0, std=1.0, shape=None, name=None, *, size=None):
    """Samples from N(mean, std**2): of the given shape, or elementwise for tensor mean/std."""
    if size is not None:
        shape = size
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else _args.number(mean, "normal", "mean")
        s = std._data if isinstance(std, Tensor) else _args.number(std, "normal", "std")
        if np.any(~(np.asarray(s) >= 0)):
            raise ArgValueError("normal(): normal expects all elements of std >= 0.0")
        return _finish(np.asarray(_GEN[0].normal(m, s), dtype=np.float32))   # 0-d: a float
    mean = _args.number(mean, "normal", "mean")
    std = _std(_args.number(std, "normal", "std"), "normal")
    return _finish(_GEN[0].normal(mean, std, size=_args.shape(shape, "normal")).astype(np.float32))


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    """A new tensor of the given shape with samples uniform on [min, max)."""
    lo, hi = _args.number(min, "uniform", "min"), _args.number(max, "uniform", "max")
    if not lo <= hi:
        raise ArgValueError(f"uniform(): expects a [min, max) range, but found min={lo} > max={hi}")
    dt = _dtype(dtype)
    if dt.kind != "f":
        raise ArgTypeError(f"uniform(): random floats need a floating dtype, got {dt}")
    return _finish(_GEN[0].uniform(lo, hi, size=_args.shape(shape, "uniform")).astype(dt))


def randperm(n, dtype=None, name=None):
    """A random permutation of the integers 0 .. n-1 (int64 by default)."""
    n = _args.shape(n, "randperm", name="n")
    if len(n) != 1:
        raise ArgTypeError(f"randperm(): argument 'n' must be an integer, got {list(n)}")
    return _finish(_GEN[0].permutation(n[0]).astype(_dtype(dtype, _dt.int64)))


for _n, _f in dict(seed=seed, manual_seed=manual_seed, rand=rand, randn=randn, randint=randint,
                   normal=normal, uniform=uniform, randperm=randperm).items():
    registry.register_function(_n, _f, method=False)


# in-place random fills: the old values are overwritten, so their gradient is zero
def _fill_grad(ctx, g):
    return (registry.zero_grad(g),)


def _check_float(self, args, attrs, op_name):
    if self._data.dtype.kind != "f":
        raise ArgTypeError(f"{op_name} needs a floating point tensor, got {self.dtype.name}")
    # Note [Check, then write]: the parameters are checked before anything is drawn
    if op_name.startswith("normal"):
        _std(attrs[1], op_name)
    elif op_name.startswith("uniform"):
        if not attrs[0] <= attrs[1]:
            raise ArgValueError(f"{op_name}(): uniform_ expects to return a [from, to) range, "
                                f"but found from={attrs[0]} > to={attrs[1]}")
    elif op_name.startswith("exponential"):
        if not attrs[0] > 0:
            raise ArgValueError(f"{op_name}(): exponential_ expects lambda > 0.0, but found "
                                f"lambda={attrs[0]}. Fix: pass a positive rate.")


def _check_bernoulli(self, args, attrs, op_name):
    p = attrs[0]
    pd = p._data if isinstance(p, Tensor) else p
    if not np.all((np.asarray(pd) >= 0) & (np.asarray(pd) <= 1)):
        raise ArgValueError(f"{op_name}(): bernoulli_ expects p to be in [0, 1], but got "
                            f"p={p if not isinstance(p, Tensor) else 'a tensor with values outside'}")
    if isinstance(p, Tensor) and p._data.shape != self._data.shape:
        try:
            ok = np.broadcast_shapes(p._data.shape, self._data.shape) == self._data.shape
        except ValueError:
            ok = False
        if not ok:
            raise ArgValueError(f"{op_name}(): p of shape {list(p._data.shape)} does not "
                                f"broadcast to self's shape {list(self._data.shape)}")


def _k_normal_(out, mean, std):
    out[...] = _GEN[0].normal(mean, std, size=out.shape)
    return out


def _k_uniform_(out, low, high):
    out[...] = _GEN[0].uniform(low, high, size=out.shape)
    return out


def _k_bernoulli_(out, p):
    pr = p._data if isinstance(p, Tensor) else p
    out[...] = _GEN[0].random(out.shape) < pr
    return out


for _op in (OpDef("normal_", _k_normal_, _fill_grad, kind="inplace", check=_check_float,
                  attrs=(("mean", 0.0), ("std", 1.0)), node_name="NormalBackward",
                  doc="Fills x with samples from the normal distribution N(mean, std**2)."),
            OpDef("uniform_", _k_uniform_, _fill_grad, kind="inplace", check=_check_float,
                  attrs=(("min", -1.0), ("max", 1.0)), node_name="UniformBackward",
                  doc="Fills x with samples from the uniform distribution on [min, max)."),
            OpDef("bernoulli_", _k_bernoulli_, _fill_grad, kind="inplace",
                  check=_check_bernoulli, attrs=(("p", 0.5),), node_name="BernoulliBackward",
                  doc="Fills x with 0/1 samples that are 1 with probability p.")):
    declare(_op)


def _k_exponential_(out, lam):
    out[...] = _GEN[0].exponential(1.0 / lam, size=out.shape)
    return out


declare(OpDef("exponential_", _k_exponential_, _fill_grad, kind="inplace", check=_check_float,
              attrs=(("lam", 1.0),), node_name="ExponentialBackward",
              doc="Fills x with samples from the exponential distribution of rate lam."))


def bernoulli(x, name=None):
    """Draws 1 with probability x (elementwise). x must be a floating tensor with every value in
    [0, 1] (PyTorch: RuntimeError otherwise; NaN is refused too)."""
    x = _args.input_tensor(x, "bernoulli")
    p = x._data
    if p.dtype.kind != "f":
        raise ArgTypeError(f"bernoulli(): expected a floating point tensor of probabilities, got "
                           f"{x.dtype.name}. Fix: cast it first, e.g. x.astype('float32').")
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise ArgValueError("bernoulli(): Expected 0 <= p <= 1 for every element of x, got values "
                            f"in [{np.nanmin(p) if not np.isnan(p).all() else 'nan'}, "
                            f"{np.nanmax(p) if not np.isnan(p).all() else 'nan'}]"
                            f"{' and NaN' if np.isnan(p).any() else ''}.")
    return _finish((_GEN[0].random(p.shape) < p).astype(p.dtype))


def multinomial(x, num_samples=1, replacement=False, name=None):
    """Category indices drawn from each row of x (1-D or 2-D, non-negative finite weights with
    a positive sum), checked as PyTorch checks them (RuntimeError-compatible errors)."""
    x = _args.input_tensor(x, "multinomial")
    n = _args.integer(num_samples, "multinomial", "num_samples")
    if not isinstance(replacement, (bool, np.bool_)):
        raise ArgTypeError(f"multinomial(): argument 'replacement' must be a bool, got "
                           f"{type(replacement).__name__} {replacement!r:.40}")
    w = x._data
    if w.dtype.kind != "f":
        raise ArgTypeError(f"multinomial(): only floating point probabilities are supported, got "
                           f"{x.dtype.name}. Fix: cast it first, e.g. x.astype('float32').")
    if w.ndim not in (1, 2):
        raise ArgValueError(f"multinomial(): prob_dist must be 1 or 2 dim, got shape "
                            f"{list(w.shape)}.")
    if n <= 0:
        raise ArgValueError(f"multinomial(): cannot sample n_sample <= 0 samples "
                            f"(num_samples={n}).")
    k = w.shape[-1]
    if not replacement and n > k:
        raise ArgValueError(f"multinomial(): cannot sample n_sample > prob_dist.size(-1) samples "
                            f"without replacement (num_samples={n}, {k} categories).")
    rows = w.reshape(-1, k).astype(np.float64)
    if rows.size and not (np.isfinite(rows).all() and (rows >= 0).all()):
        raise ArgValueError("multinomial(): probability tensor contains either `inf`, `nan` or "
                            "element < 0.")
    sums = rows.sum(-1)
    if (sums <= 0).any():
        raise ArgValueError("multinomial(): invalid multinomial distribution (sum of "
                            "probabilities <= 0).")
    if not replacement and ((rows > 0).sum(-1) < n).any():
        raise ArgValueError("multinomial(): invalid multinomial distribution (with "
                            "replacement=False, not enough non-negative category to sample).")
    out = np.empty((rows.shape[0], n), np.int64)
    for i, r in enumerate(rows):
        out[i] = _GEN[0].choice(k, n, replace=bool(replacement), p=r / r.sum())
    return _finish(out.reshape(w.shape[:-1] + (n,)))


registry.register_function("bernoulli", bernoulli)
registry.register_function("multinomial", multinomial)
