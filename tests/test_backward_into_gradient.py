"""Note [Backward into the incoming gradient]: relu's and mul's buffer-reusing backward runs
only when no graph is recorded, the engine owns the gradient and nobody else sees it, and
(mul) only x needs a gradient and y does not broadcast it up. One test per condition."""
import numpy as np
import pytest

import oar

torch = pytest.importorskip("torch")


def test_a_gradient_a_hook_kept_is_not_overwritten():
    x = oar.to_tensor(np.array([-1.0, 2.0, 3.0]), stop_gradient=False)
    h = x * 1.0
    seen = []
    h.register_hook(lambda g: seen.append(g))
    h2 = h.relu()
    kept = []
    h2.register_hook(lambda g: kept.append(g))
    (h2 * 3.0).sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), [3.0, 3.0, 3.0])   # not masked in place
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 3.0, 3.0])


def _second_order(L):
    x = L.tensor(np.array([-1.0, 2.0, 3.0]), dtype=L.float64, requires_grad=True)
    y = ((x * x).relu() * 2.0).sum()
    g, = L.autograd.grad(y, [x], create_graph=True)
    gg, = L.autograd.grad(g.sum(), [x])
    return g.detach().numpy(), gg.numpy()


def test_create_graph_uses_the_formula():
    for mine, ref in zip(_second_order(oar), _second_order(torch)):
        np.testing.assert_allclose(mine, ref)


@pytest.mark.parametrize("y_shape", [(3,), (1,), (2, 3)])
def test_mul_by_a_broadcasting_constant(y_shape):
    def run(L):
        x = L.tensor(np.array([1.0, 2.0, 3.0]), dtype=L.float64, requires_grad=True)
        y = L.tensor(np.arange(1.0, 1.0 + np.prod(y_shape)).reshape(y_shape), dtype=L.float64)
        ((x * 1.0) * y).sum().backward()
        return x.grad.numpy()
    np.testing.assert_allclose(run(oar), run(torch))


def test_mul_when_both_need_gradients():
    def run(L):
        x = L.tensor(np.array([1.0, 2.0]), dtype=L.float64, requires_grad=True)
        y = L.tensor(np.array([3.0, 5.0]), dtype=L.float64, requires_grad=True)
        ((x * 1.0) * y).sum().backward()
        return x.grad.numpy(), y.grad.numpy()
    for mine, ref in zip(run(oar), run(torch)):
        np.testing.assert_allclose(mine, ref)
