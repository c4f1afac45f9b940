"""paddle.slice / Tensor.slice on the Paddle door against paddle 3.3.1: values, shapes, a view
sharing the version counter, gradients, and errors."""
import numpy as np
import pytest

import oar

CASES = [([1, 2], [-2, 1], [100, -1]), ([2], [3], [1]), ([0], [1], [2]), ([0, 1, 2], [0, 0, 0],
         [1, 2, 3]), ([-1], [-3], [-1]), ([1], [-100], [100])]


@pytest.mark.parametrize("axes,starts,ends", CASES)
def test_slice_matches_paddle(axes, starts, ends):
    paddle = pytest.importorskip("paddle")
    data = np.arange(24.0).reshape(2, 3, 4)
    px = paddle.to_tensor(data, stop_gradient=False)
    ox = oar.to_tensor(data, stop_gradient=False)
    pr, orr = paddle.slice(px, axes, starts, ends), oar.slice(ox, axes, starts, ends)
    np.testing.assert_array_equal(orr.numpy(), pr.numpy())
    cot = np.random.default_rng(0).standard_normal(pr.shape)
    (pr * paddle.to_tensor(cot)).sum().backward()
    (orr * oar.to_tensor(cot)).sum().backward()
    np.testing.assert_array_equal(ox.grad.numpy(), px.grad.numpy())


def test_slice_is_a_view_and_takes_tensor_bounds():
    x = oar.arange(12.0).reshape([3, 4])
    v = x.slice([0], [oar.to_tensor(1)], [3])
    assert v.shape == [2, 4]
    v.fill_(0.0) if hasattr(v, "fill_") else v.zero_()
    assert float(x.sum()) == float(np.arange(4.0).sum())
    assert x.inplace_version == v.inplace_version == 1


def test_slice_errors_change_nothing():
    x = oar.arange(6.0).reshape([2, 3])
    with pytest.raises(ValueError, match="same length"):
        oar.slice(x, [0, 1], [0], [1])
    with pytest.raises(IndexError):
        oar.slice(x, [5], [0], [1])
    with pytest.raises(TypeError):
        oar.slice(x, [0], [oar.to_tensor([0.5])], [1])
    assert x.inplace_version == 0 and x.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_slice_is_hidden_in_the_torch_door():
    """Note [Paddle-only spellings]: torch has no torch.slice / Tensor.slice."""
    torch = pytest.importorskip("torch")
    import oar.torch as otorch
    for lib in (torch, otorch):
        assert not hasattr(lib, "slice") and not hasattr(lib.Tensor, "slice")
        assert not hasattr(lib.ones(2), "slice")
