"""3-D convolution, transposed convolution and pooling in both doors, and Paddle's exclusive
average pooling: values, gradients (float64), shapes and errors against torch 2.13 and
paddle 3.3.1 (Note [N-d convolution], Note [Pooling geometry])."""
import numpy as np
import pytest

import oar
import oar.torch as ot

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(7)


def _pair(a, grad=True):
    """The same float64 array as a torch leaf and an oar.torch leaf."""
    t = torch.tensor(a, requires_grad=grad)
    o = ot.tensor(a, requires_grad=grad)
    return t, o


def _close(o, t, tol=1e-10):
    np.testing.assert_allclose(np.asarray(o.detach().numpy()), t.detach().numpy(), rtol=tol,
                               atol=tol)


def _noncontig(a):
    """a as a non-contiguous array of the same values (its last two axes swapped twice)."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2)


# ---------------------------------------------------------------- torch door: conv3d
CONV3D_CASES = [
    dict(),
    dict(stride=2, padding=1),
    dict(stride=(1, 2, 3), padding=(2, 0, 1), dilation=(2, 1, 1)),
    dict(groups=2, dilation=2, padding=2),
    dict(padding="same", dilation=(1, 2, 1)),      # even kernel dims: the odd pad at the end
    dict(padding="valid", stride=1),
]


@pytest.mark.parametrize("kw", CONV3D_CASES, ids=str)
@pytest.mark.parametrize("bias", [True, False])
def test_conv3d_matches_torch(kw, bias):
    x = _noncontig(RNG.standard_normal((2, 4, 6, 7, 8)))
    w = RNG.standard_normal((6, 4 // kw.get("groups", 1), 3, 2, 3))
    b = RNG.standard_normal(6) if bias else None
    xt, xo = _pair(x)
    wt, wo = _pair(w)
    bt, bo = _pair(b) if bias else (None, None)
    r = TF.conv3d(xt, wt, bt, **kw)
    o = ot.nn.functional.conv3d(xo, wo, bo, **kw)
    assert list(o.shape) == list(r.shape)
    _close(o, r)
    g = RNG.standard_normal(r.shape)
    r.backward(torch.tensor(g))
    o.backward(ot.tensor(g))
    _close(xo.grad, xt.grad)
    _close(wo.grad, wt.grad)
    if bias:
        _close(bo.grad, bt.grad)
    assert type(o.grad_fn).__name__ == type(r.grad_fn).__name__ == "ConvolutionBackward0"


def test_conv3d_unbatched_and_float32():
    x = RNG.standard_normal((3, 5, 5, 5)).astype(np.float32)
    w = RNG.standard_normal((2, 3, 3, 3, 3)).astype(np.float32)
    r = TF.conv3d(torch.tensor(x), torch.tensor(w), padding=1)
    o = ot.nn.functional.conv3d(ot.tensor(x), ot.tensor(w), padding=1)
    assert o.dtype == ot.float32 and list(o.shape) == list(r.shape)
    np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("xs, ws, kw", [
    ((1, 2, 3, 3, 3), (2, 2, 4, 1, 1), {}),                  # kernel larger than the input
    ((1, 2, 4, 4, 4), (2, 3, 3, 3, 3), {}),                  # channels differ
    ((1, 2, 4, 4, 4), (2, 2, 3, 3, 3), dict(stride=0)),
    ((1, 2, 4, 4, 4), (2, 2, 3, 3, 3), dict(padding="same", stride=2)),
    ((1, 2, 4, 4, 4), (2, 2, 3, 3), {}),                     # 4-D weight
    ((3, 4, 4, 4), (2, 2, 3, 3, 3), {}),                     # unbatched, channels differ
])
def test_conv3d_errors_as_torch(xs, ws, kw):
    with pytest.raises((RuntimeError, ValueError)) as te:
        TF.conv3d(torch.ones(xs), torch.ones(ws), **kw)
    with pytest.raises(te.type):
        ot.nn.functional.conv3d(ot.ones(xs), ot.ones(ws), **kw)


# ---------------------------------------------------------------- torch door: conv_transpose3d
CONV_T3D_CASES = [
    dict(),
    dict(stride=2, padding=1, output_padding=1),
    dict(stride=(2, 1, 3), padding=(1, 0, 1), output_padding=(0, 0, 2), dilation=(1, 2, 1)),
    dict(groups=2, stride=2, dilation=2, output_padding=1),
]


@pytest.mark.parametrize("kw", CONV_T3D_CASES, ids=str)
def test_conv_transpose3d_matches_torch(kw):
    x = _noncontig(RNG.standard_normal((2, 4, 3, 4, 3)))
    w = RNG.standard_normal((4, 3, 3, 2, 3))
    b = RNG.standard_normal(3 * kw.get("groups", 1))
    (xt, xo), (wt, wo), (bt, bo) = _pair(x), _pair(w), _pair(b)
    r = TF.conv_transpose3d(xt, wt, bt, **kw)
    o = ot.nn.functional.conv_transpose3d(xo, wo, bo, **kw)
    assert list(o.shape) == list(r.shape)
    _close(o, r)
    g = RNG.standard_normal(r.shape)
    r.backward(torch.tensor(g))
    o.backward(ot.tensor(g))
    for a, b_ in ((xo, xt), (wo, wt), (bo, bt)):
        _close(a.grad, b_.grad)


def test_conv_transpose3d_output_size_and_errors():
    x = RNG.standard_normal((1, 2, 3, 3, 3))
    w = RNG.standard_normal((2, 3, 3, 3, 3))
    tm = torch.nn.ConvTranspose3d(2, 3, 3, stride=2)
    om = ot.nn.ConvTranspose3d(2, 3, 3, stride=2).double()
    om.load_state_dict({k: ot.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tm = tm.double()
    r = tm(torch.tensor(x), output_size=[8, 7, 8])
    o = om(ot.tensor(x), output_size=[8, 7, 8])
    assert list(o.shape) == list(r.shape) == [1, 3, 8, 7, 8]
    _close(o, r)
    for kw in (dict(stride=1, output_padding=1), dict(padding=5)):
        with pytest.raises(RuntimeError):
            TF.conv_transpose3d(torch.tensor(x), torch.tensor(w), **kw)
        with pytest.raises(RuntimeError):
            ot.nn.functional.conv_transpose3d(ot.tensor(x), ot.tensor(w), **kw)


# ---------------------------------------------------------------- torch door: conv layers
def _train_like_torch(tm, om, x, steps=3, tol=1e-4):
    """Same weights; forward, backward and SGD steps agree; oar's state_dict loads in torch."""
    om.load_state_dict({k: ot.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    topt = torch.optim.SGD(tm.parameters(), lr=0.1)
    oopt = ot.optim.SGD(om.parameters(), lr=0.1)
    for _ in range(steps):
        r = tm(torch.tensor(x))
        o = om(ot.tensor(x))
        np.testing.assert_allclose(o.detach().numpy(), r.detach().numpy(), rtol=tol, atol=tol)
        topt.zero_grad()
        oopt.zero_grad()
        (r * r).mean().backward()
        (o * o).mean().backward()
        topt.step()
        oopt.step()
    for (n, p), (_, q) in zip(tm.named_parameters(), om.named_parameters()):
        np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), rtol=tol, atol=tol,
                                   err_msg=n)
    tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in om.state_dict().items()})


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, "same"])
def test_conv_layers_padding_modes_train_like_torch(nd, mode, padding):
    kw = dict(in_channels=4, out_channels=4, kernel_size=(3, 2, 3)[:nd] if nd > 1 else 2,
              padding=padding, padding_mode=mode, groups=2, dilation=1)
    torch.manual_seed(0)
    tm = getattr(torch.nn, f"Conv{nd}d")(**kw)
    om = getattr(ot.nn, f"Conv{nd}d")(**kw)
    x = RNG.standard_normal((2, 4) + (5, 6, 4)[:nd]).astype(np.float32)
    _train_like_torch(tm, om, x)
    assert repr(om) == repr(tm)


@pytest.mark.parametrize("kw", [dict(stride=2, output_padding=1), dict(groups=2, dilation=2)],
                         ids=str)
def test_conv_transpose3d_layer_trains_like_torch(kw):
    torch.manual_seed(0)
    tm = torch.nn.ConvTranspose3d(4, 2, 3, **kw)
    om = ot.nn.ConvTranspose3d(4, 2, 3, **kw)
    assert repr(om) == repr(tm)
    _train_like_torch(tm, om, RNG.standard_normal((2, 4, 3, 4, 3)).astype(np.float32))


# ---------------------------------------------------------------- torch door: 3-D pools
POOL3D_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(3, 2, 3), stride=(2, 1, 2), padding=(1, 0, 1), ceil_mode=True),
    dict(kernel_size=2, stride=3, ceil_mode=True),          # the last window starts past the end
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
]


@pytest.mark.parametrize("kw", POOL3D_CASES + [dict(kernel_size=2, dilation=(2, 1, 2),
                                                    padding=1, ceil_mode=True)], ids=str)
def test_max_pool3d_matches_torch(kw):
    x = _noncontig(RNG.standard_normal((2, 3, 7, 6, 5)))
    x[0, 0, :2, :2, :2] = 1.0                           # ties: the first in row-major order
    xt, xo = _pair(x)
    r, ri = TF.max_pool3d(xt, return_indices=True, **kw)
    o, oi = ot.nn.functional.max_pool3d(xo, return_indices=True, **kw)
    assert list(o.shape) == list(r.shape)
    _close(o, r)
    assert oi.dtype == ot.int64 and (oi.numpy() == ri.numpy()).all()
    g = RNG.standard_normal(r.shape)
    r.backward(torch.tensor(g))
    o.backward(ot.tensor(g))
    _close(xo.grad, xt.grad)
    mo = ot.nn.MaxPool3d(**kw)
    assert repr(mo) == repr(torch.nn.MaxPool3d(**kw))
    _close(mo(ot.tensor(x)), r)


@pytest.mark.parametrize("kw", POOL3D_CASES, ids=str)
@pytest.mark.parametrize("extra", [dict(), dict(count_include_pad=False),
                                   dict(divisor_override=5)], ids=str)
def test_avg_pool3d_matches_torch(kw, extra):
    x = _noncontig(RNG.standard_normal((2, 3, 7, 6, 5)))
    xt, xo = _pair(x)
    r = TF.avg_pool3d(xt, **kw, **extra)
    o = ot.nn.functional.avg_pool3d(xo, **kw, **extra)
    assert list(o.shape) == list(r.shape)
    _close(o, r)
    g = RNG.standard_normal(r.shape)
    r.backward(torch.tensor(g))
    o.backward(ot.tensor(g))
    _close(xo.grad, xt.grad)
    _close(ot.nn.AvgPool3d(**kw, **extra)(ot.tensor(x)), r)
    assert type(o.grad_fn).__name__ == type(r.grad_fn).__name__


@pytest.mark.parametrize("fn, args", [
    ("max_pool3d", (4,)),                  # kernel larger than the input
    ("avg_pool3d", (4,)),
    ("max_pool3d", (2, 1, 2)),             # padding more than half the kernel
    ("avg_pool3d", (2, 1, 2)),
    ("max_pool3d", (0,)),
    ("avg_pool3d", ((2, 2),)),             # two sizes for three dims
])
def test_pool3d_errors_as_torch(fn, args):
    with pytest.raises((RuntimeError, ValueError, TypeError)) as te:
        getattr(TF, fn)(torch.ones(1, 2, 3, 3, 3), *args)
    with pytest.raises(te.type):
        getattr(ot.nn.functional, fn)(ot.ones(1, 2, 3, 3, 3), *args)


def test_pool3d_unbatched_input():
    # torch pools a 4-D tensor as an unbatched (C, D, H, W) volume
    x = RNG.standard_normal((3, 4, 4, 4))
    _close(ot.nn.functional.max_pool3d(ot.tensor(x), 2), TF.max_pool3d(torch.tensor(x), 2))
    with pytest.raises(RuntimeError):
        TF.max_pool3d(torch.ones(4, 4, 4), 2)
    with pytest.raises(RuntimeError):
        ot.nn.functional.max_pool3d(ot.ones(4, 4, 4), 2)


# ---------------------------------------------------------------- Paddle door
paddle = pytest.importorskip("paddle")
PF = paddle.nn.functional


def _pd(a, grad=True):
    t = paddle.to_tensor(a)
    t.stop_gradient = not grad
    o = oar.to_tensor(a)
    o.stop_gradient = not grad
    return t, o


@pytest.mark.parametrize("kw", [dict(), dict(padding=1), dict(exclusive=False, padding=1),
                                dict(stride=2, padding=1, ceil_mode=True),
                                dict(divisor_override=3, padding=1)], ids=str)
def test_paddle_avg_pool2d_exclusive_by_default(kw):
    x = RNG.standard_normal((2, 3, 7, 6))
    pt, po = _pd(x)
    r = PF.avg_pool2d(pt, 3, **kw)
    o = oar.nn.functional.avg_pool2d(po, 3, **kw)
    np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-10, atol=1e-10)
    g = RNG.standard_normal(r.shape)
    r.backward(paddle.to_tensor(g))
    o.backward(oar.to_tensor(g))
    # paddle's float64 average-pool gradient divides by a float32 divisor (1e-8 relative)
    np.testing.assert_allclose(po.grad.numpy(), pt.grad.numpy(), rtol=1e-6, atol=1e-7)
    lk = {k: v for k, v in kw.items() if k != "padding"}
    np.testing.assert_allclose(
        oar.nn.AvgPool2D(3, padding=kw.get("padding", 0), **lk)(oar.to_tensor(x)).numpy(),
        paddle.nn.AvgPool2D(3, padding=kw.get("padding", 0), **lk)(paddle.to_tensor(x)).numpy(),
        rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("fmt", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)],
                         ids=str)
def test_paddle_pool3d(fmt, kw):
    x = RNG.standard_normal((2, 3, 5, 6, 4))
    if fmt == "NDHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 4, 1))
    for excl in (True, False):
        pt, po = _pd(x)
        r = PF.avg_pool3d(pt, exclusive=excl, data_format=fmt, **kw)
        o = oar.nn.functional.avg_pool3d(po, exclusive=excl, data_format=fmt, **kw)
        np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-10, atol=1e-10)
        r.sum().backward()
        o.sum().backward()
        np.testing.assert_allclose(po.grad.numpy(), pt.grad.numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(
            oar.nn.AvgPool3D(exclusive=excl, data_format=fmt, **kw)(oar.to_tensor(x)).numpy(),
            r.numpy(), rtol=1e-10, atol=1e-10)
    pt, po = _pd(x)
    r = PF.max_pool3d(pt, data_format=fmt, **kw)
    o = oar.nn.functional.max_pool3d(po, data_format=fmt, **kw)
    np.testing.assert_allclose(o.numpy(), r.numpy())
    (r * r).sum().backward()
    (o * o).sum().backward()
    np.testing.assert_allclose(po.grad.numpy(), pt.grad.numpy(), rtol=1e-10, atol=1e-10)
    if fmt == "NCDHW":
        r, rm = PF.max_pool3d(pt, return_mask=True, **kw)
        o, om = oar.nn.MaxPool3D(return_mask=True, **kw)(po)
        assert str(om.dtype).endswith("int32") and (om.numpy() == rm.numpy()).all()


@pytest.mark.parametrize("fmt", ["NCDHW", "NDHWC"])
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, dilation=(1, 2, 1)),
                                dict(groups=2, padding="same")], ids=str)
def test_paddle_conv3d(fmt, kw):
    x = RNG.standard_normal((2, 4, 5, 6, 5))
    if fmt == "NDHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 4, 1))
    w = RNG.standard_normal((6, 4 // kw.get("groups", 1), 3, 2, 3))
    b = RNG.standard_normal(6)
    (xp, xo), (wp, wo), (bp, bo) = _pd(x), _pd(w), _pd(b)
    r = PF.conv3d(xp, wp, bp, data_format=fmt, **kw)
    o = oar.nn.functional.conv3d(xo, wo, bo, data_format=fmt, **kw)
    assert o.shape == r.shape
    np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-9, atol=1e-9)
    (r * r).sum().backward()
    (o * o).sum().backward()
    for a, b_ in ((xo, xp), (wo, wp), (bo, bp)):
        np.testing.assert_allclose(a.grad.numpy(), b_.grad.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, output_padding=1),
                                dict(groups=2, dilation=2, stride=2)], ids=str)
def test_paddle_conv3d_transpose(kw):
    x = RNG.standard_normal((2, 4, 3, 4, 3))
    w = RNG.standard_normal((4, 3, 3, 2, 3))
    b = RNG.standard_normal(3 * kw.get("groups", 1))
    (xp, xo), (wp, wo), (bp, bo) = _pd(x), _pd(w), _pd(b)
    r = PF.conv3d_transpose(xp, wp, bp, **kw)
    o = oar.nn.functional.conv3d_transpose(xo, wo, bo, **kw)
    assert o.shape == r.shape
    np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-9, atol=1e-9)
    (r * r).sum().backward()
    (o * o).sum().backward()
    for a, b_ in ((xo, xp), (wo, wp), (bo, bp)):
        np.testing.assert_allclose(a.grad.numpy(), b_.grad.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("cls, args, kw", [
    ("Conv3D", (4, 6, 3), dict(stride=2, padding=1)),
    ("Conv3D", (4, 6, (3, 2, 3)), dict(padding=1, padding_mode="reflect", groups=2)),
    ("Conv3D", (4, 6, 3), dict(padding=1, data_format="NDHWC")),
    ("Conv3DTranspose", (4, 6, 3), dict(stride=2, padding=1, output_padding=1)),
])
def test_paddle_conv3d_layers_train_like_paddle(cls, args, kw):
    pm = getattr(paddle.nn, cls)(*args, **kw)
    om = getattr(oar.nn, cls)(*args, **kw)
    om.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in pm.state_dict().items()})
    shape = (2, 4, 4, 5, 4) if kw.get("data_format") != "NDHWC" else (2, 4, 5, 4, 4)
    x = RNG.standard_normal(shape).astype(np.float32)
    popt = paddle.optimizer.SGD(0.05, parameters=pm.parameters())
    oopt = oar.optimizer.SGD(0.05, parameters=om.parameters())
    for _ in range(3):
        r = pm(paddle.to_tensor(x))
        o = om(oar.to_tensor(x))
        np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-4, atol=1e-4)
        (r * r).mean().backward()
        (o * o).mean().backward()
        popt.step()
        oopt.step()
        popt.clear_grad()
        oopt.clear_grad()
    for k, v in pm.state_dict().items():
        np.testing.assert_allclose(om.state_dict()[k].numpy(), v.numpy(), rtol=1e-4, atol=1e-4)
    pm.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in om.state_dict().items()})
