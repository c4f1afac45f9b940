"""Random numbers: one generator, seeded by oar.seed / oar.manual_seed."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor
from . import registry as R
from .creation import _dtype, _finish, _shape
from .registry import OpDef, declare

_GEN = [np.random.default_rng()]


def seed(s):
    _GEN[0] = np.random.default_rng(int(s))
    return _GEN[0]


manual_seed = seed


def generator():
    return _GEN[0]


def _floats(shape, dtype, draw):
    dt = _dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"random floats need a floating dtype, got {dt}")
    return draw(shape).astype(dt, copy=False)


def rand(*shape, dtype=None, name=None, requires_grad=False):
    return _finish(_floats(_shape(shape), dtype, _GEN[0].random), requires_grad)


def randn(*shape, dtype=None, name=None, requires_grad=False):
    return _finish(_floats(_shape(shape), dtype, _GEN[0].standard_normal), requires_grad)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None, *, size=None):
    if high is None:
        low, high = 0, low
    if size is not None:
        shape = size
    return _finish(_GEN[0].integers(low, high, size=_shape((shape,)),
                                    dtype=_dtype(dtype, _dt.int64)))


def normal(mean=0.0, std=1.0, shape=None, name=None, *, size=None):
    if size is not None:
        shape = size
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean._data if isinstance(mean, Tensor) else mean
        s = std._data if isinstance(std, Tensor) else std
        return _finish(_GEN[0].normal(m, s).astype(np.float32))
    return _finish(_GEN[0].normal(mean, std, size=_shape((shape,))).astype(np.float32))


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    return _finish(_GEN[0].uniform(min, max, size=_shape((shape,))).astype(_dtype(dtype)))


def randperm(n, dtype=None, name=None):
    return _finish(_GEN[0].permutation(n).astype(_dtype(dtype, _dt.int64)))


for _n, _f in dict(seed=seed, manual_seed=manual_seed, rand=rand, randn=randn, randint=randint,
                   normal=normal, uniform=uniform, randperm=randperm).items():
    R.register_function(_n, _f, method=False)


# in-place random fills: the old values are overwritten, so their gradient is zero
def _fill_grad(c, g):
    return (g * 0,)


def _check_float(self, args, attrs, op_name):
    if self._data.dtype.kind != "f":
        raise TypeError(f"{op_name} needs a floating point tensor, got {self.dtype.name}")


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
                  attrs=(("mean", 0.0), ("std", 1.0)), node_name="NormalBackward"),
            OpDef("uniform_", _k_uniform_, _fill_grad, kind="inplace", check=_check_float,
                  attrs=(("min", -1.0), ("max", 1.0)), node_name="UniformBackward"),
            OpDef("bernoulli_", _k_bernoulli_, _fill_grad, kind="inplace",
                  attrs=(("p", 0.5),), node_name="BernoulliBackward")):
    declare(_op)


def _k_exponential_(out, lam):
    out[...] = _GEN[0].exponential(1.0 / lam, size=out.shape)
    return out


declare(OpDef("exponential_", _k_exponential_, _fill_grad, kind="inplace", check=_check_float,
              attrs=(("lam", 1.0),), node_name="ExponentialBackward"))


def bernoulli(x, name=None):
    return _finish((_GEN[0].random(x._data.shape) < x._data).astype(x._data.dtype))


def multinomial(x, num_samples=1, replacement=False, name=None):
    p = x._data / x._data.sum(-1, keepdims=True)
    if p.ndim == 1:
        return _finish(_GEN[0].choice(p.shape[0], num_samples, replace=replacement, p=p).astype(np.int64))
    return _finish(np.stack([_GEN[0].choice(p.shape[1], num_samples, replace=replacement, p=r)
                             for r in p]).astype(np.int64))


R.register_function("bernoulli", bernoulli)
R.register_function("multinomial", multinomial)
