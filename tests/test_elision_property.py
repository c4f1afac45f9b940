"""Note [Temporary elision] as a property: random programs of out-of-place ops (operators,
methods, functions), views, in-place ops, tensors saved for backward, hooks, retain_grad,
weak references and held references give bit-identical values, gradients, versions and
errors with elision on and off, in both doors, and match torch 2.13 (the same program run
by real torch, for the PyTorch door).

A program is an expression tree evaluated by `run`, which passes every intermediate result
straight into the next call, so intermediates are real temporaries (never bound to a name
unless the program holds them on purpose). The tensors are 256 x 256 float64 (512 KiB, above
elision's threshold)."""
from __future__ import annotations

import contextlib
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oar
import oar.torch as otorch
from oar.ops import elision as E

try:
    import torch as rtorch
except ImportError:   # the oracle is optional: on/off is still compared
    rtorch = None

SHAPE = (256, 256)
LEAVES = 3   # leaf 0 and 2 require grad, leaf 1 does not

UNARY = ("exp", "tanh", "relu", "sigmoid", "neg", "fexp", "ftanh", "t", "reshape", "slice",
         "add_", "mul_", "hold", "retain", "hook", "weak", "detach", "clone", "radd", "rmul",
         "scale", "fmul")
BINARY = ("add", "sub", "mul", "div", "fadd", "fsub", "add_t")


def leaves():
    return st.tuples(st.just("leaf"), st.integers(0, LEAVES - 1))


def extend(children):
    return st.one_of(st.tuples(st.sampled_from(UNARY), children),
                     st.tuples(st.sampled_from(BINARY), children, children))


programs = st.recursive(leaves(), extend, max_leaves=6)


class Env:
    def __init__(self, M, data):
        self.M = M
        self.leaves = [M.tensor(d, requires_grad=(i != 1)) for i, d in enumerate(data)]
        self.held = []     # tensors the program keeps (compared at the end)
        self.retained = []
        self.weak = []

    def run(self, n):
        M, k = self.M, n[0]
        if k == "leaf":
            return self.leaves[n[1]]
        if len(n) == 3:
            if k == "add":
                return self.run(n[1]) + self.run(n[2])
            if k == "sub":
                return self.run(n[1]) - self.run(n[2])
            if k == "mul":
                return self.run(n[1]) * self.run(n[2])
            if k == "div":
                return self.run(n[1]) / (self.run(n[2]).abs() + 1.0)
            if k == "fadd":
                return M.add(self.run(n[1]), self.run(n[2]))
            if k == "fsub":
                return M.sub(self.run(n[1]), self.run(n[2]))
            return self.run(n[1]).add(self.run(n[2]))               # add_t: the method
        if k == "exp":
            return (self.run(n[1]) * 0.1).exp()
        if k == "tanh":
            return self.run(n[1]).tanh()
        if k == "relu":
            return self.run(n[1]).relu()
        if k == "sigmoid":
            return self.run(n[1]).sigmoid()
        if k == "neg":
            return -self.run(n[1])
        if k == "fexp":
            return M.exp(M.mul(self.run(n[1]), 0.1))
        if k == "ftanh":
            return M.tanh(self.run(n[1]))
        if k == "t":
            return self.run(n[1]).t()
        if k == "reshape":
            return self.run(n[1]).reshape(128, 512)
        if k == "slice":
            return self.run(n[1])[:128]
        if k == "add_":
            return self.run(n[1]).add_(1.0)
        if k == "mul_":
            return self.run(n[1]).mul_(0.5)
        if k == "radd":
            return 2.0 + self.run(n[1])
        if k == "rmul":
            return 3.0 * self.run(n[1])
        if k == "scale":
            return self.run(n[1]) * 0.5
        if k == "fmul":
            return M.mul(self.run(n[1]), 0.25)
        if k == "detach":
            return self.run(n[1]).detach()
        if k == "clone":
            return self.run(n[1]).clone()
        t = self.run(n[1])
        if k == "hold":
            self.held.append(t)
        elif k == "retain":
            if t.requires_grad:
                t.retain_grad()
                self.retained.append(t)
            self.held.append(t)
        elif k == "hook":
            if t.requires_grad:
                t.register_hook(lambda g: g * 2)
        else:   # weak: a weak reference must see the tensor as it was
            self.weak.append((weakref.ref(t), t.detach().clone()))
        return t


class PaddleDoor:
    """The Paddle door under the names `Env.run` calls (the methods are the same)."""
    add, sub, mul, exp, tanh = oar.add, oar.subtract, oar.mul, oar.exp, oar.tanh
    no_grad, inference_mode = oar.no_grad, oar.inference_mode

    @staticmethod
    def tensor(data, requires_grad=False):
        return oar.to_tensor(data, stop_gradient=not requires_grad)


def _arr(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def outcome(M, data, prog, mode):
    """Everything observable about running `prog`: values, versions, gradients, errors."""
    env = Env(M, data)
    ctx = {"grad": contextlib.nullcontext, "no_grad": M.no_grad,
           "inference": M.inference_mode}[mode]
    out = {}
    try:
        with ctx():
            r = env.run(prog)
            out["value"] = _arr(r)
            out["version"] = r._version if mode != "inference" else None
            out["weak"] = [(w() is None or np.array_equal(_arr(w()), _arr(old)))
                           for w, old in env.weak]
        if mode == "grad" and r.requires_grad:
            r.sum().backward()
            out["grads"] = [_arr(x.grad) for x in env.leaves]
            out["retained_grads"] = [_arr(h.grad) for h in env.retained]
        out["held"] = [_arr(h) for h in env.held]
        out["held_versions"] = [h._version for h in env.held] if mode != "inference" else None
    except Exception as e:   # the same error, in the same place, on and off
        out["error"] = type(e).__name__
    return out


def _same_bits(a, b, path=""):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _same_bits(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _same_bits(x, y, f"{path}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64)), path
    else:
        assert a == b, (path, a, b)


def _close(a, b, path=""):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), (path, a.keys(), b.keys())
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=path)
    elif path.endswith("error"):
        assert (a is None) == (b is None), (path, a, b)
    else:
        assert a == b, (path, a, b)


def check(prog, mode, seed, door=otorch):
    rng = np.random.default_rng(seed)
    data = [rng.standard_normal(SHAPE) for _ in range(LEAVES)]
    old = E.ENABLED
    try:
        E.ENABLED = True
        on = outcome(door, data, prog, mode)
        E.ENABLED = False
        off = outcome(door, data, prog, mode)
    finally:
        E.ENABLED = old
    _same_bits(on, off)
    if rtorch is not None and door is otorch:
        _close(on, outcome(rtorch, data, prog, mode))
    return on


_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=40, **_SETTINGS)
@given(programs, st.sampled_from(["grad", "grad", "no_grad", "inference"]), st.integers(0, 3))
def test_elision_is_unobservable(prog, mode, seed):
    check(prog, mode, seed)


@settings(max_examples=20, **_SETTINGS)
@given(programs, st.sampled_from(["grad", "no_grad", "inference"]), st.integers(0, 3))
def test_elision_is_unobservable_in_the_paddle_door(prog, mode, seed):
    check(prog, mode, seed, PaddleDoor)


@pytest.mark.slow
@settings(max_examples=400, **_SETTINGS)
@given(programs, st.sampled_from(["grad", "no_grad", "inference"]), st.integers(0, 1000))
def test_elision_is_unobservable_long(prog, mode, seed):
    check(prog, mode, seed)


def test_the_property_sees_elision():
    # the programs do exercise the elision: a plain chain of temporaries reuses memory
    from oar import storage as S
    x = otorch.tensor(np.ones(SHAPE), requires_grad=True)
    S.start_trace()
    y = ((x * 2) + 1).tanh()
    trace = S.stop_trace()
    assert max(trace) - trace[0] == x.numel() * 8
    assert y.requires_grad
