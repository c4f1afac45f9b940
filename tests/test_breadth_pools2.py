"""Adaptive max pooling in both doors against torch 2.13 and paddle 3.3.1
(Note [Adaptive max pooling])."""
import numpy as np
import pytest

import oar
import oar.torch as otorch

torch = pytest.importorskip("torch")
paddle = pytest.importorskip("paddle")

CASES = [(1, (2, 3, 11), 4), (1, (3, 7), (3,)), (2, (2, 3, 7, 5), (3, 2)), (2, (3, 6, 9), (4, None)),
         (2, (1, 2, 5, 5), 1), (3, (2, 2, 5, 6, 7), (2, 3, 4)), (3, (2, 4, 3, 5), 2)]


def _data(shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape)


@pytest.mark.parametrize("nd,shape,size", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_door_values_indices_grad(nd, shape, size, dtype):
    x = _data(shape).astype(dtype)
    g = None
    ref = torch.tensor(x, requires_grad=True)
    rv, ri = getattr(torch.nn.functional, f"adaptive_max_pool{nd}d")(ref, size, True)
    g = _data(rv.shape, 1).astype(dtype)
    rv.backward(torch.tensor(g))
    ours = otorch.tensor(x, requires_grad=True)
    ov, oi = getattr(otorch.nn.functional, f"adaptive_max_pool{nd}d")(ours, size, True)
    ov.backward(otorch.tensor(g))
    np.testing.assert_array_equal(ov.detach().numpy(), rv.detach().numpy())
    np.testing.assert_array_equal(oi.numpy(), ri.numpy())
    assert oi.dtype == otorch.int64
    np.testing.assert_array_equal(ours.grad.numpy(), ref.grad.numpy())
    lay = getattr(otorch.nn, f"AdaptiveMaxPool{nd}d")(size)
    rlay = getattr(torch.nn, f"AdaptiveMaxPool{nd}d")(size)
    assert repr(lay) == repr(rlay)
    np.testing.assert_array_equal(lay(otorch.tensor(x)).numpy(), rlay(torch.tensor(x)).numpy())


def test_torch_door_ties_nan_and_noncontiguous():
    x = np.zeros((2, 3, 6, 4), np.float32)
    x[0, 0, 1, 1] = np.nan
    x[0, 0, 2, 0] = np.nan
    x[1, 1] = 1.0
    rt = torch.tensor(x).transpose(-1, -2)
    ot = otorch.tensor(x).transpose(-1, -2)
    assert not ot.is_contiguous()
    rv, ri = torch.nn.functional.adaptive_max_pool2d(rt, (3, 4), return_indices=True)
    ov, oi = otorch.nn.functional.adaptive_max_pool2d(ot, (3, 4), return_indices=True)
    np.testing.assert_array_equal(ov.numpy(), rv.numpy())
    np.testing.assert_array_equal(oi.numpy(), ri.numpy())


def test_torch_door_gradcheck_float64():
    x = otorch.tensor(_data((2, 2, 5, 7)), requires_grad=True)
    assert otorch.autograd.gradcheck(
        lambda t: otorch.nn.functional.adaptive_max_pool2d(t, (3, 4)), (x,))


@pytest.mark.parametrize("nd,shape,size", CASES)
def test_paddle_door_values_mask_grad(nd, shape, size):
    if None in np.atleast_1d(np.asarray(size, object)):
        pytest.skip("Paddle takes ints only")
    if len(shape) != nd + 2:
        with pytest.raises(ValueError):
            getattr(paddle.nn.functional, f"adaptive_max_pool{nd}d")(paddle.ones(shape), size)
        with pytest.raises(ValueError):
            getattr(oar.nn.functional, f"adaptive_max_pool{nd}d")(oar.ones(shape), size)
        return
    x = _data(shape).astype("float32")
    ref = paddle.to_tensor(x, stop_gradient=False)
    rv, rm = getattr(paddle.nn.functional, f"adaptive_max_pool{nd}d")(ref, size, True)
    g = _data(rv.shape, 1).astype("float32")
    rv.backward(paddle.to_tensor(g))
    ours = oar.to_tensor(x, stop_gradient=False)
    ov, om = getattr(oar.nn.functional, f"adaptive_max_pool{nd}d")(ours, size, True)
    ov.backward(oar.to_tensor(g))
    np.testing.assert_array_equal(ov.numpy(), rv.numpy())
    np.testing.assert_array_equal(om.numpy(), rm.numpy())
    assert str(om.dtype) == str(rm.dtype)
    np.testing.assert_array_equal(ours.grad.numpy(), ref.grad.numpy())
    lay = getattr(oar.nn, f"AdaptiveMaxPool{nd}D")(size)
    rlay = getattr(paddle.nn, f"AdaptiveMaxPool{nd}D")(size)
    assert repr(lay) == repr(rlay)
    np.testing.assert_array_equal(lay(oar.to_tensor(x)).numpy(), rlay(paddle.to_tensor(x)).numpy())


def test_bad_inputs_change_nothing():
    x = otorch.ones(2, 3, 4, 4)
    with pytest.raises(RuntimeError):
        otorch.nn.functional.adaptive_max_pool2d(otorch.ones(4, 4), 2)
    with pytest.raises(RuntimeError):
        otorch.nn.functional.adaptive_max_pool2d(otorch.ones(2, 3, 0, 4), 2)
    with pytest.raises(RuntimeError):
        otorch.nn.functional.adaptive_max_pool2d(x, (2, 2, 2))
    with pytest.raises(TypeError):
        otorch.nn.functional.adaptive_max_pool2d(x, 2.5)
    with pytest.raises(NotImplementedError):
        otorch.nn.functional.adaptive_max_pool2d(otorch.ones(1, 2, 3, 3, dtype=otorch.int64), 2)


LP = [(1, (2, 3, 11), 2.0, 3, None, False), (1, (3, 9), 3, 2, 2, True),
      (2, (2, 3, 7, 6), 2.0, (2, 3), None, False), (2, (2, 2, 7, 7), 1.5, 3, 2, True),
      (3, (1, 2, 5, 6, 4), 2.0, 2, 1, False), (2, (1, 2, 5, 5), float("inf"), 2, 1, False)]


@pytest.mark.parametrize("nd,shape,p,k,s,ceil", LP)
def test_torch_door_lp_pool(nd, shape, p, k, s, ceil):
    x = np.abs(_data(shape)) + 0.1
    ref = torch.tensor(x, requires_grad=True)
    rv = getattr(torch.nn.functional, f"lp_pool{nd}d")(ref, p, k, s, ceil)
    g = _data(rv.shape, 1)
    rv.backward(torch.tensor(g))
    ours = otorch.tensor(x, requires_grad=True)
    ov = getattr(otorch.nn.functional, f"lp_pool{nd}d")(ours, p, k, s, ceil)
    ov.backward(otorch.tensor(g))
    np.testing.assert_allclose(ov.detach().numpy(), rv.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.grad.numpy(), ref.grad.numpy(), rtol=1e-10, atol=1e-12)
    lay = getattr(otorch.nn, f"LPPool{nd}d")(p, k, s, ceil)
    rlay = getattr(torch.nn, f"LPPool{nd}d")(p, k, s, ceil)
    assert repr(lay) == repr(rlay)
    xt = np.ascontiguousarray(np.swapaxes(x, 0, 1)).astype("float32")
    np.testing.assert_allclose(lay(otorch.tensor(xt).transpose(0, 1)).numpy(),
                               rlay(torch.tensor(xt).transpose(0, 1)).numpy(), rtol=1e-6)
