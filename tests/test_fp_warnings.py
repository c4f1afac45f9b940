"""Note [Floating-point warnings]: torch and paddle compute inf/nan silently; so does oar,
in both doors, forward and backward, while a user's own NumPy code keeps warning."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import oar
import oar.torch as ot

EDGE = [0.0, -0.0, -1.0, 1.0, np.inf, -np.inf, np.nan, 1e38, -1e38, 1e-45]

UNARY = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "exp", "exp2", "expm1", "reciprocal",
         "acos", "asin", "atanh", "acosh", "tan", "sinh", "cosh", "tanh", "sigmoid", "lgamma",
         "digamma", "erfinv", "logit", "sin", "cos", "abs", "sign", "ceil", "floor", "round",
         "square", "i0", "sinc", "frac", "trunc", "angle", "deg2rad", "nan_to_num"]
BINARY = ["div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "atan2", "xlogy",
          "hypot", "mul", "add", "sub", "maximum", "copysign", "logaddexp", "float_power",
          "nextafter", "ldexp"]


def _silent(fn):
    with warnings.catch_warnings(record=True) as rec:   # keeps the filters in force
        fn()
    return [f"{w.message} @ {w.filename}:{w.lineno}" for w in rec if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_on_edge_values_are_silent_forward_and_backward(name):
    def run():
        x = ot.tensor(EDGE, dtype=ot.float64, requires_grad=True)
        y = getattr(ot, name)(x)
        if y.requires_grad:
            y.sum().backward()
        getattr(oar, name, lambda t: t)(oar.to_tensor(EDGE))
    assert _silent(run) == []


@pytest.mark.parametrize("name", BINARY)
def test_binary_ops_on_edge_values_are_silent(name):
    a = np.repeat(EDGE, len(EDGE))
    b = np.tile(EDGE, len(EDGE))

    def run():
        x = ot.tensor(a, requires_grad=True)
        y = ot.tensor(b, requires_grad=True)
        if name == "ldexp":
            y = ot.tensor(np.tile([0, 1, -1, 2000, -2000], len(a) // 5 + 1)[:len(a)])
        r = getattr(ot, name)(x, y)
        if r.requires_grad:
            r.sum().backward()
        x32 = ot.tensor(a.astype(np.float32))
        getattr(ot, name)(x32, ot.tensor(0.0)) if name != "ldexp" else None
    assert _silent(run) == []


def test_reductions_and_softmax_on_edge_values_are_silent():
    def run():
        x = ot.tensor([[0.0, np.inf, -np.inf], [np.nan, 1e38, 1e38]], requires_grad=True)
        for f in (lambda t: t.softmax(1), lambda t: t.log_softmax(1), lambda t: t.sum(),
                  lambda t: t.mean(1), lambda t: t.var(1), lambda t: t.std(1),
                  lambda t: t.norm(), lambda t: t.logsumexp(1), lambda t: t.prod(1),
                  lambda t: t.cumsum(1), lambda t: t.cumprod(1)):
            f(x).sum().backward()
        ot.tensor([]).mean()
        ot.tensor([1.0]).var()
        oar.nn.functional.softmax(oar.to_tensor([[np.inf, 0.0]]))
    assert _silent(run) == []


def test_division_by_zero_prints_nothing_even_under_w_always():
    code = ("import oar.torch as torch, oar as paddle\n"
            "torch.tensor([1., 0.]) / 0; torch.tensor([-1.]).log(); torch.tensor([-1.]).sqrt()\n"
            "paddle.to_tensor([1., 0.]) / 0; paddle.log(paddle.to_tensor([-1.]))\n"
            "import numpy as np; np.log(np.array([-1.]))   # the user's own NumPy still warns\n")
    for opt in ("always", "error::RuntimeWarning:oar"):
        r = subprocess.run([sys.executable, "-W", opt, "-c", code], capture_output=True,
                           text=True, timeout=120)
        err = r.stderr
        assert "oar/" not in err and "oar\\" not in err, err
        if opt == "always":
            assert r.returncode == 0 and "invalid value encountered in log" in err, err
