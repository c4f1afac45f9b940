"""Adaptive average pooling in 1-D and 3-D (separable over the 2-D op, oar/nn/_adaptive_avg.py)
against torch 2.13 and paddle 3.3.1: values, float64 gradients, layers, errors."""
import numpy as np
import pytest

import oar
import oar.torch as otorch

RNG = np.random.default_rng(0)
CASES3 = [((2, 3, 7, 5, 9), (3, 2, 4)), ((1, 2, 4, 4, 4), 2), ((3, 5, 6, 7), (None, 3, 2)),
          ((1, 1, 5, 3, 3), (5, 1, 3))]


@pytest.mark.parametrize("shape,size", CASES3)
def test_adaptive_avg_pool3d_matches_torch(shape, size):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal(shape)
    tx = torch.tensor(x, requires_grad=True)
    ox = otorch.tensor(x).transpose(0, -1).contiguous().transpose(0, -1)   # non-contiguous
    ox.requires_grad_(True)
    want = torch.nn.functional.adaptive_avg_pool3d(tx, size)
    got = otorch.nn.functional.adaptive_avg_pool3d(ox, size)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(otorch.tensor(g))
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)
    assert repr(otorch.nn.AdaptiveAvgPool3d(size)) == repr(torch.nn.AdaptiveAvgPool3d(size))


@pytest.mark.parametrize("fmt", ["NCDHW", "NDHWC"])
def test_paddle_adaptive_avg_pool3d_and_1d(fmt):
    paddle = pytest.importorskip("paddle")
    x = RNG.standard_normal((2, 3, 6, 5, 4)).astype(np.float32)
    px = paddle.to_tensor(x, stop_gradient=False)
    ox = oar.to_tensor(x, stop_gradient=False)
    want = paddle.nn.functional.adaptive_avg_pool3d(px, [3, 2, 3], data_format=fmt)
    got = oar.nn.functional.adaptive_avg_pool3d(ox, [3, 2, 3], data_format=fmt)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-5, atol=1e-7)
    y = RNG.standard_normal((2, 3, 11)).astype(np.float32)
    np.testing.assert_allclose(oar.nn.AdaptiveAvgPool1D(4)(oar.to_tensor(y)).numpy(),
                               paddle.nn.AdaptiveAvgPool1D(4)(paddle.to_tensor(y)).numpy(),
                               rtol=1e-5, atol=1e-6)
    assert repr(oar.nn.AdaptiveAvgPool3D(2)) == repr(paddle.nn.AdaptiveAvgPool3D(2))


def test_adaptive_avg_pool3d_errors():
    F = otorch.nn.functional
    x = otorch.ones(1, 2, 3, 3, 3)
    with pytest.raises(ValueError):
        F.adaptive_avg_pool3d(x, (2, 2))
    with pytest.raises(ValueError):
        F.adaptive_avg_pool3d(otorch.ones(2, 3, 3), 2)
    assert x._version == 0
