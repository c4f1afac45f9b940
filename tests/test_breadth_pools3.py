"""Paddle-door pooling as Paddle 3.3.1 (oar/nn/_paddle_pool.py, Note [Paddle pooling]): max,
average and lp pooling in 1-D / 2-D / 3-D with Paddle's positional order, padding forms
('SAME' / 'VALID' in any case, per-dim pairs, nd+2 pairs) and output geometry; values,
masks and float64 gradients against real paddle, on non-contiguous input too."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F

paddle = pytest.importorskip("paddle")
PF = paddle.nn.functional


def _pair(shape, seed=0, noncontig=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    xo = oar.to_tensor(a, stop_gradient=False)
    if noncontig:       # the same values through a transposed (non-contiguous) view
        xo = oar.to_tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)),
                           stop_gradient=False)
        leaf = xo
        xo = xo.transpose(list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])
        return a, leaf, xo, True
    return a, xo, xo, False


def _check(name, shape, args, kw=None, noncontig=False, rtol=1e-7):
    # Paddle computes float64 average-pool divisors in float32 (gradients agree to ~1e-8)
    kw = kw or {}
    a, leaf, xo, swapped = _pair(shape, noncontig=noncontig)
    xp = paddle.to_tensor(a, stop_gradient=False)
    try:
        rp = getattr(PF, name)(xp, *args, **kw)
    except ValueError:      # e.g. return_mask with unequal padding: refused by both
        with pytest.raises(ValueError):
            getattr(F, name)(xo, *args, **kw)
        return
    ro = getattr(F, name)(xo, *args, **kw)
    if isinstance(rp, (tuple, list)):
        assert ro[1].dtype == oar.int32
        np.testing.assert_array_equal(ro[1].numpy(), rp[1].numpy())
        rp, ro = rp[0], ro[0]
    assert list(ro.shape) == list(rp.shape)
    np.testing.assert_allclose(ro.numpy(), rp.numpy(), rtol=rtol, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(list(rp.shape))
    (rp * paddle.to_tensor(w)).sum().backward()
    (ro * oar.to_tensor(w)).sum().backward()
    g = leaf.grad.numpy()
    if swapped:
        g = np.swapaxes(g, -1, -2)
    np.testing.assert_allclose(g, xp.grad.numpy(), rtol=rtol, atol=1e-7)


PADS2 = [0, 1, (1, 0), [0, 1, 1, 2], [[0, 0], [0, 0], [0, 1], [1, 2]], "SAME", "same",
         "Valid", 2]


@pytest.mark.parametrize("padding", PADS2)
@pytest.mark.parametrize("ceil", [False, True])
@pytest.mark.parametrize("stride", [None, 2, (2, 1)])
def test_max_avg_pool2d_paddle(padding, ceil, stride):
    if ceil and isinstance(padding, str) and padding.upper() == "VALID":
        return
    if padding == 2 and stride is None:
        return          # windows in the padding only: Paddle's uninitialised divisors
    if ceil and (padding == 2 or (stride is None and padding not in (0, (1, 0))
                                  and not isinstance(padding, str))):
        return          # a window in the padding only: Paddle's max-pool backward corrupts
        #                 its heap there (malloc abort), so no reference
    _check("max_pool2d", (2, 3, 7, 8), (3, stride, padding), dict(ceil_mode=ceil))
    _check("max_pool2d", (2, 3, 7, 8), (3, stride, padding, True, ceil))
    _check("avg_pool2d", (2, 3, 7, 8), (3, stride, padding, ceil))
    _check("avg_pool2d", (2, 3, 7, 8), (3, stride, padding, ceil, False))
    _check("avg_pool2d", (2, 3, 7, 8), (3, stride, padding, ceil, True, 2))
    _check("avg_pool2d", (2, 3, 7, 8), (3, stride, padding, ceil, False, 5))


@pytest.mark.parametrize("padding", [0, 1, [1, 2], [[0, 0], [0, 0], [2, 0]], "SAME", "VALID"])
@pytest.mark.parametrize("ceil", [False, True])
def test_pool1d_paddle(padding, ceil):
    if ceil and (padding == "VALID" or padding == [1, 2]):
        return          # [1, 2]: the last window in the padding only (see above)
    _check("max_pool1d", (2, 3, 9), (3, 2, padding), dict(ceil_mode=ceil))
    _check("max_pool1d", (2, 3, 9), (3, 2, padding, True, ceil))
    _check("avg_pool1d", (2, 3, 9), (3, 2, padding, True, ceil))
    _check("avg_pool1d", (2, 3, 9), (3, 2, padding, False, ceil))
    _check("lp_pool1d", (2, 3, 9), (2.0, 3, 2, padding, ceil), rtol=1e-6)


@pytest.mark.parametrize("padding", [0, 1, [0, 1, 1, 0, 1, 2], "SAME", "valid"])
def test_pool3d_paddle(padding):
    _check("max_pool3d", (1, 2, 5, 6, 7), (3, 2, padding, True))
    _check("avg_pool3d", (1, 2, 5, 6, 7), (3, 2, padding), dict(exclusive=False))
    _check("avg_pool3d", (1, 2, 5, 6, 7), (3, 2, padding))


@pytest.mark.parametrize("p", [1.0, 2.0, 3, 0.5, float("inf")])
@pytest.mark.parametrize("padding", [0, 1, [0, 1, 1, 2], "SAME"])
def test_lp_pool2d_paddle(p, padding):
    a = np.abs(np.random.default_rng(3).standard_normal((2, 3, 7, 8))) + 0.1
    xp = paddle.to_tensor(a, stop_gradient=False)
    xo = oar.to_tensor(a, stop_gradient=False)
    rp, ro = PF.lp_pool2d(xp, p, 3, 2, padding), F.lp_pool2d(xo, p, 3, 2, padding)
    np.testing.assert_allclose(ro.numpy(), rp.numpy(), rtol=1e-6)
    rp.sum().backward()
    ro.sum().backward()
    np.testing.assert_allclose(xo.grad.numpy(), xp.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_lp_pool_signed_sum_and_layers():
    x = np.array([[[[-1.0, 2, -3, 4, 5, -6]]]])
    for p in (1.0, 3.0):
        np.testing.assert_allclose(F.lp_pool2d(oar.to_tensor(x), p, [1, 2]).numpy(),
                                   PF.lp_pool2d(paddle.to_tensor(x), p, [1, 2]).numpy())
    for args in [(2, 3), (2, 3, 2, 1, True), (3.0, [1, 2], None, "SAME")]:
        assert repr(oar.nn.LPPool2D(*args)) == repr(paddle.nn.LPPool2D(*args))
    assert repr(oar.nn.LPPool1D(2, 3)) == repr(paddle.nn.LPPool1D(2, 3))
    a = np.random.default_rng(0).standard_normal((2, 7, 3))     # NLC
    np.testing.assert_allclose(
        oar.nn.LPPool1D(2, 3, 2, 1, data_format="NLC")(oar.to_tensor(a)).numpy(),
        paddle.nn.LPPool1D(2, 3, 2, 1, data_format="NLC")(paddle.to_tensor(a)).numpy(),
        rtol=1e-6)


def test_noncontiguous_and_channels_last():
    _check("max_pool2d", (2, 3, 7, 8), (3, 2, [0, 1, 1, 2], True), noncontig=True)
    _check("avg_pool2d", (2, 3, 7, 8), (3, 2, "SAME"), noncontig=True)
    _check("max_pool1d", (2, 3, 9), (3, 2, 1, True), noncontig=True)
    a = np.random.default_rng(0).standard_normal((2, 7, 8, 3))
    for name, kw in [("max_pool2d", {}), ("avg_pool2d", {"exclusive": False})]:
        for pad in (1, [[0, 0], [1, 0], [0, 2], [0, 0]], "SAME"):
            np.testing.assert_allclose(
                getattr(F, name)(oar.to_tensor(a), 3, 2, pad, data_format="NHWC", **kw).numpy(),
                getattr(PF, name)(paddle.to_tensor(a), 3, 2, pad, data_format="NHWC",
                                  **kw).numpy())


LAYER_ARGS = [("MaxPool1D", (3,), {}), ("MaxPool1D", (3, 2, "SAME", True), {}),
              ("AvgPool1D", (3, 2, 1, False, True), {}), ("MaxPool2D", (3, 2, "SAME", True), {}),
              ("MaxPool2D", (2,), {}), ("AvgPool2D", (3, 2, [0, 1, 1, 2], True, False, 2), {}),
              ("AvgPool2D", (3,), {}), ("MaxPool3D", (2,), {}), ("AvgPool3D", (2, 1, 1), {})]


@pytest.mark.parametrize("cls,args,kw", LAYER_ARGS)
def test_pool_layers_paddle(cls, args, kw):
    lo, lp = getattr(oar.nn, cls)(*args, **kw), getattr(paddle.nn, cls)(*args, **kw)
    assert repr(lo) == repr(lp)
    nd = int(cls[-2])
    a = np.random.default_rng(0).standard_normal((2, 3) + (6, 7, 5)[:nd])
    ro, rp = lo(oar.to_tensor(a)), lp(paddle.to_tensor(a))
    if isinstance(rp, (tuple, list)):
        np.testing.assert_array_equal(ro[1].numpy(), rp[1].numpy())
        ro, rp = ro[0], rp[0]
    np.testing.assert_allclose(ro.numpy(), rp.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["avg_pool1d", "avg_pool2d", "avg_pool3d"])
def test_avg_pools_refuse_count_include_pad(name):
    nd = int(name[-2])
    x = oar.ones([1, 1] + [4] * nd)
    with pytest.raises(TypeError):
        getattr(PF, name)(paddle.ones([1, 1] + [4] * nd), 2, count_include_pad=True)
    with pytest.raises(TypeError):
        getattr(F, name)(x, 2, count_include_pad=True)


def test_bad_padding_refused_as_paddle():
    x = oar.ones([1, 1, 4, 4])
    for pad, kw in [("FOO", {}), ([1, 2, 3], {}), ("VALID", {"ceil_mode": True}),
                    ([[0, 1], [0, 0], [0, 0], [0, 0]], {})]:
        with pytest.raises(ValueError):
            PF.max_pool2d(paddle.ones([1, 1, 4, 4]), 2, 2, pad, **kw)
        with pytest.raises(ValueError):
            F.max_pool2d(x, 2, 2, pad, **kw)
