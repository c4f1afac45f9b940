"""Torch door against torch 2.13: tensor hooks on outputs left without a gradient (Note
[Hooks on an output without a gradient], oar/autograd/engine.py), gradient edges
(torch.autograd.graph.GradientEdge / get_gradient_edge, accepted by torch.autograd.grad),
and Python types as dtypes (`dtype=float` is float64, `int` int64, `bool` bool)."""
import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import oar  # noqa: E402
import oar.torch as oar_torch  # noqa: E402

DOORS = [real_torch, oar_torch]


class _Err:
    """An exception outcome: equal to another when one is an instance of the other's
    class (oar's errors derive from torch's class and may add a base) and the messages
    agree."""

    def __init__(self, e):
        self.e = e

    def __eq__(self, other):
        a, b = self.e, other.e
        return (isinstance(a, type(b)) or isinstance(b, type(a))) and str(a) == str(b)

    def __repr__(self):
        return f"{type(self.e).__name__}({str(self.e)!r})"


def _outcome(fn):
    """What a call gives, comparable across the frameworks: values, or the exception."""
    try:
        r = fn()
    except Exception as e:   # noqa: BLE001  (the class is compared)
        return ("raises", _Err(e))
    if isinstance(r, (list, tuple)):
        return tuple(_outcome(lambda v=v: v) for v in r)
    if hasattr(r, "tolist") and hasattr(r, "dtype"):
        return ("tensor", str(r.dtype), r.detach().tolist())
    return ("value", r)


def _same(scenario):
    want, got = scenario(real_torch), scenario(oar_torch)
    assert [k for k, _ in got] == [k for k, _ in want]
    for (k, w), (_, g) in zip(want, got):
        assert _outcome(g) == _outcome(w), k


# ----------------------------------------------------------------------------- hooks
def _two_outputs(t):
    class TwoOut(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3   # the missing gradient arrives as zeros
    return TwoOut


def test_hook_of_output_without_gradient_sees_none_as_torch():
    def scenario(t):
        x = t.tensor([1.0, 2.0, 4.0], requires_grad=True)
        seen = []

        def var_mean_case():
            var, mean = t.var_mean(x)
            mean.register_hook(lambda g: seen.append(("mean", g)))
            var.backward()
            return list(seen)

        def function_case():
            seen.clear()
            a, b = _two_outputs(t).apply(x)
            b.register_hook(lambda g: seen.append(("b1", g)))
            b.register_hook(lambda g: seen.append(("b2", g)))   # every hook, in order
            a.sum().backward()
            return list(seen)

        def used_output_case():
            seen.clear()
            a, b = _two_outputs(t).apply(x)
            b.register_hook(lambda g: seen.append(("b", g)))
            (a + b).sum().backward()
            return list(seen)

        def removed_hook_case():
            seen.clear()
            a, b = _two_outputs(t).apply(x)
            b.register_hook(lambda g: seen.append(("b", g))).remove()
            a.sum().backward()
            return list(seen)

        def replacing_none():
            a, b = _two_outputs(t).apply(x)
            b.register_hook(lambda g: t.ones(3))
            a.sum().backward()

        def retained_only():
            var, mean = t.var_mean(x)
            mean.retain_grad()
            var.backward()
            return mean.grad
        return [("var_mean", var_mean_case), ("function", function_case),
                ("used", used_output_case), ("removed", removed_hook_case),
                ("replace None", replacing_none), ("retain_grad", retained_only)]

    def run(t):
        return [(k, (lambda r=_outcome(f): r)) for k, f in scenario(t)]
    want, got = run(real_torch), run(oar_torch)
    for (k, w), (_, g) in zip(want, got):
        assert g() == w(), k


def test_paddle_door_hooks_keep_their_meaning():
    # the Paddle door's hooks are called only with a gradient (unchanged by the torch door's
    # Note [Hooks on an output without a gradient]); its gradients still flow
    x = oar.to_tensor([1.0, 2.0, 4.0], stop_gradient=False)
    var, mean = oar.var_mean(x) if hasattr(oar, "var_mean") else (None, None)
    seen = []
    mean.register_hook(lambda g: seen.append(g))
    var.backward()
    assert seen == []
    t = real_torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
    real_torch.var(t).backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)


# ----------------------------------------------------------------------------- edges
def test_gradient_edges_as_torch():
    def scenario(t):
        G = t.autograd.graph
        x = t.tensor([1.0, 2.0], requires_grad=True).clone()
        before = G.get_gradient_edge(x)
        x *= 2                                  # the edge keeps naming the old value
        leaf = t.tensor([1.0, 2.0], requires_grad=True)
        leaf_edge = G.get_gradient_edge(leaf)
        y = leaf * 2
        y_edge = G.get_gradient_edge(y)
        var, mean = t.var_mean(t.tensor([1.0, 2.0, 4.0], requires_grad=True))
        mean_edge = G.get_gradient_edge(mean)
        other = t.tensor([1.0], requires_grad=True)
        other_edge = G.get_gradient_edge(other)
        return [
            ("before and after in-place", lambda: t.autograd.grad(x.sum(), (before, x))),
            ("edge fields", lambda: (isinstance(before, tuple), before.output_nr,
                                     before.node is not x.grad_fn)),
            ("leaf edge", lambda: (type(leaf_edge.node).__name__, leaf_edge.output_nr,
                                   leaf_edge.node is leaf.grad_fn)),
            ("single edge input", lambda: t.autograd.grad((leaf * 3).sum(), leaf_edge)),
            ("non-leaf edge", lambda: (y_edge.node is y.grad_fn, y_edge.output_nr)),
            ("edge as output", lambda: t.autograd.grad(y_edge, leaf, grad_outputs=t.ones(2),
                                                       retain_graph=True)),
            ("mixed inputs", lambda: t.autograd.grad((y * y).sum(), [y_edge, leaf])),
            ("second output", lambda: (mean_edge.output_nr, mean_edge.node is mean.grad_fn)),
            ("second output grad", lambda: t.autograd.grad(var + 3 * mean, mean_edge)),
            ("unused edge", lambda: t.autograd.grad((leaf * 2).sum(), other_edge)),
            ("unused edge allowed", lambda: t.autograd.grad((leaf * 2).sum(), other_edge,
                                                            allow_unused=True)),
            ("materialize with edge", lambda: t.autograd.grad(
                (leaf * 2).sum(), other_edge, materialize_grads=True)),
            ("no grad", lambda: G.get_gradient_edge(t.ones(2))),
        ]
    _same(scenario)


# ----------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("py", [float, int, bool])
def test_python_types_as_dtypes_as_torch(py):
    def scenario(t):
        x = t.ones(2, 3)
        return [(name, f) for name, f in [
            ("zeros", lambda: t.zeros(2, dtype=py)),
            ("ones", lambda: t.ones(2, dtype=py)),
            ("empty", lambda: str(t.empty(2, dtype=py).dtype)),
            ("full", lambda: t.full((2,), 1, dtype=py)),
            ("arange", lambda: t.arange(3, dtype=py) if py is not bool else None),
            ("linspace", lambda: t.linspace(0, 1, 3, dtype=py) if py is float else None),
            ("tensor", lambda: t.tensor([1, 0], dtype=py)),
            ("as_tensor", lambda: t.as_tensor([1, 0], dtype=py)),
            ("zeros_like", lambda: t.zeros_like(x, dtype=py)),
            ("ones_like", lambda: t.ones_like(x, dtype=py)),
            ("full_like", lambda: t.full_like(x, 1, dtype=py)),
            ("eye", lambda: t.eye(2, dtype=py)),
            ("new_zeros", lambda: x.new_zeros(2, dtype=py)),
            ("new_tensor", lambda: x.new_tensor([1, 0], dtype=py)),
            ("to", lambda: x.to(py)),
            ("to dtype=", lambda: x.to(dtype=py)),
            ("type refused", lambda: x.type(py)),
            ("sum", lambda: x.sum(dtype=py)),
            ("torch.sum dim", lambda: t.sum(x, 1, dtype=py)),
            ("prod", lambda: x.prod(dtype=py)),
            ("cumsum", lambda: x.cumsum(1, dtype=py) if py is not bool else None),
            ("mean", lambda: x.mean(dtype=py) if py is float else None),
        ]]
    _same(scenario)


def test_float_dtype_ignores_the_default_dtype():
    # dtype=float is float64 even when the default dtype is float16/32; a plain float
    # literal still follows the default
    def scenario(t):
        prev = t.get_default_dtype()
        t.set_default_dtype(t.float16)
        try:
            r = (str(t.zeros(1, dtype=float).dtype), str(t.tensor([1.5]).dtype),
                 str(t.ones(1).to(float).dtype))
        finally:
            t.set_default_dtype(prev)
        return [("dtypes", lambda: r)]
    _same(scenario)


def test_mean_dtype_as_torch():
    def scenario(t):
        x = t.tensor([1.0, 2.0, 4.0], requires_grad=True)

        def grad_dtype():
            m = x.mean(dtype=t.float64)
            m.backward()
            return (str(m.dtype), m.grad_fn.name(), x.grad)
        return [
            ("float64", lambda: t.mean(t.ones(2, 3), 1, dtype=t.float64)),
            ("float16", lambda: t.ones(4).mean(dtype=t.float16)),
            ("int input", lambda: t.tensor([1, 2]).mean(dtype=t.float32)),
            ("int refused", lambda: t.ones(2).mean(dtype=t.int64)),
            ("bool refused", lambda: t.ones(2).mean(dtype=t.bool)),
            ("gradient", grad_dtype),
        ]
    _same(scenario)
