"""The everyday nn pieces of the breadth pass, both doors: the activations celu, selu, glu,
hardshrink, softshrink, softsign, tanhshrink, rrelu (torch; Paddle also thresholded_relu,
mish, hardswish, hardsigmoid, swish, prelu, logsigmoid, maxout, stanh), the padding layers,
3-D batch/instance norm, Paddle's CosineSimilarity layer. Values and gradients against torch
2.13 and paddle 3.3.1 (float64 and float32, non-contiguous inputs), grad_fn names, the
torch-exact rrelu stream, gradcheck of the new core ops, reprs, state_dict keys and a few
optimizer steps (Note [ELU family ops], Note [rrelu noise])."""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as ot
from oar.autograd.gradcheck import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional
OF = ot.nn.functional

RNG = np.random.default_rng(11)


def _data(shape, dt="float64"):
    a = RNG.standard_normal(shape) * 2
    a[np.abs(a) < 1e-3] = 0.5        # away from the kinks at 0
    return a.astype(dt)


def _nc_torch(a, grad=True):
    """A non-contiguous oar.torch leaf view holding a (its last two dims transposed)."""
    base = ot.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), requires_grad=grad)
    return base, base.transpose(-1, -2)


def _close(o, t, tol):
    np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=tol, atol=tol)


# ============================================================== torch door: activations
TORCH_ACTS = [
    ("celu", (), {}), ("celu", (0.7,), {}), ("selu", (), {}), ("glu", (), {"dim": 1}),
    ("glu", (), {}), ("hardshrink", (), {}), ("hardshrink", (0.3,), {}),
    ("softshrink", (), {}), ("softshrink", (1.2,), {}), ("softsign", (), {}),
    ("tanhshrink", (), {}), ("rrelu", (), {}), ("rrelu", (0.2, 0.6), {}),
    ("threshold", (0.3, -2.0), {}),
]
GRAD_FN = {"celu": "CeluBackward0", "selu": "EluBackward0", "glu": "GluBackward0",
           "hardshrink": "HardshrinkBackward0", "softshrink": "SoftshrinkBackward0",
           "softsign": "DivBackward0", "tanhshrink": "SubBackward0",
           "rrelu": "RreluWithNoiseBackward0", "threshold": "ThresholdBackward0"}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name,args,kw", TORCH_ACTS,
                         ids=[f"{n}{a}{k}" for n, a, k in TORCH_ACTS])
def test_torch_activation_matches_torch(name, args, kw, dt):
    a = _data((3, 4, 6), dt)
    g = _data((3, 4, 3) if name == "glu" and kw else (3, 4, 6), dt)
    if name == "glu" and kw:
        g = _data((3, 2, 6), dt)
    tx = torch.tensor(a, requires_grad=True)
    base, ox = _nc_torch(a)
    assert not ox.is_contiguous()
    ty = getattr(TF, name)(tx, *args, **kw)
    oy = getattr(OF, name)(ox, *args, **kw)
    if name == "glu" and not kw:
        g = _data(tuple(ty.shape), dt)
    ty.backward(torch.tensor(g))
    oy.backward(ot.tensor(g))
    tol = 1e-12 if dt == "float64" else 1e-6
    _close(oy.detach().numpy(), ty.detach().numpy(), tol)
    _close(base.grad.numpy().swapaxes(-1, -2), tx.grad.numpy(), tol)
    assert type(oy.grad_fn).__name__ == type(ty.grad_fn).__name__ == GRAD_FN[name]
    assert oy.dtype == ot.float64 if dt == "float64" else oy.dtype == ot.float32


@pytest.mark.parametrize("name,args,node", [
    ("celu_", (0.6,), "CeluBackward1"), ("selu_", (), "EluBackward1"),
    ("rrelu_", (), "RreluWithNoiseBackward1"), ("threshold_", (0.1, 3.0), None)])
def test_torch_inplace_forms(name, args, node):
    a = _data((4, 5))
    tx = torch.tensor(a, requires_grad=True)
    ox = ot.tensor(a, requires_grad=True)
    ty = getattr(TF, name)(tx * 1, *args)
    oy = getattr(OF, name)(ox * 1, *args)
    (ty * ty).sum().backward()
    (oy * oy).sum().backward()
    _close(oy.detach().numpy(), ty.detach().numpy(), 1e-12)
    _close(ox.grad.numpy(), tx.grad.numpy(), 1e-12)
    if node:    # (threshold_ is the existing core op: ThresholdBackward0, torch's ...1)
        assert type(oy.grad_fn).__name__ == type(ty.grad_fn).__name__ == node
    # inplace=True keyword on the out-of-place spelling
    if name in ("celu_", "selu_"):
        y = getattr(OF, name[:-1])(ox * 1, *args, inplace=True)
        assert type(y.grad_fn).__name__ == node


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(5, 7), (40,), ()])
def test_torch_rrelu_training_draws_torchs_stream(dt, shape):
    torch.manual_seed(3)
    t = torch.randn(shape, dtype=dt)
    a = t.numpy()
    for mod in (False, True):
        torch.manual_seed(21)
        ot.manual_seed(21)
        if mod:
            tm, om = torch.nn.RReLU(0.1, 0.4), ot.nn.RReLU(0.1, 0.4)
            ty, oy = tm(t), om(ot.tensor(a))
        else:
            ty, oy = TF.rrelu(t, training=True), OF.rrelu(ot.tensor(a), training=True)
        np.testing.assert_array_equal(oy.numpy(), ty.numpy())
        # both generators are at the same place afterwards
        np.testing.assert_array_equal(ot.rand(3).numpy(), torch.rand(3).numpy())
    # eval: the mean slope, no draw
    tm, om = torch.nn.RReLU().eval(), ot.nn.RReLU().eval()
    np.testing.assert_array_equal(om(ot.tensor(a)).numpy(), tm(t).numpy())


def test_torch_rrelu_training_gradient_is_the_noise():
    a = _data((6, 5))
    torch.manual_seed(4)
    ot.manual_seed(4)
    tx, ox = torch.tensor(a, requires_grad=True), ot.tensor(a, requires_grad=True)
    TF.rrelu(tx, training=True).sum().backward()
    OF.rrelu(ox, training=True).sum().backward()
    np.testing.assert_array_equal(ox.grad.numpy(), tx.grad.numpy())


def test_torch_softmax2d():
    a = _data((2, 3, 4, 5))
    tx, ox = torch.tensor(a, requires_grad=True), ot.tensor(a, requires_grad=True)
    ty, oy = torch.nn.Softmax2d()(tx), ot.nn.Softmax2d()(ox)
    g = _data((2, 3, 4, 5))
    ty.backward(torch.tensor(g))
    oy.backward(ot.tensor(g))
    _close(oy.detach().numpy(), ty.detach().numpy(), 1e-12)
    _close(ox.grad.numpy(), tx.grad.numpy(), 1e-12)
    with pytest.raises(ValueError):
        ot.nn.Softmax2d()(ot.ones(2, 3))


TORCH_ERRORS = [
    (lambda F, x: F.softshrink(x, -1.0), RuntimeError),
    (lambda F, x: F.glu(x[:, :3], 1), RuntimeError),
    (lambda F, x: F.celu(x.long()), NotImplementedError),
    (lambda F, x: F.hardshrink(x.long()), NotImplementedError),
    (lambda F, x: F.selu("x"), TypeError),
    (lambda F, x: F.glu(x, 5), IndexError),
    (lambda F, x: F.rrelu(x, 0.5, 0.1, True), RuntimeError),
]


@pytest.mark.parametrize("k", range(len(TORCH_ERRORS)))
def test_torch_errors_match_torch(k):
    call, exc = TORCH_ERRORS[k]
    a = _data((2, 4))
    tx, ox = torch.tensor(a), ot.tensor(a)
    with pytest.raises(exc):
        call(TF, tx)
    before = ox.numpy().copy()
    with pytest.raises(exc):
        call(OF, ox)
    np.testing.assert_array_equal(ox.numpy(), before)


# ============================================================== core ops: gradcheck
@pytest.mark.parametrize("fn", [
    lambda x: OF.celu(x, 0.7), lambda x: OF.selu(x), lambda x: OF.hardshrink(x, 0.3),
    lambda x: OF.softshrink(x, 0.3), lambda x: oar.nn.functional.softsign(x),
    lambda x: oar.nn.functional.tanhshrink(x), lambda x: OF.glu(x, 0),
    lambda x: oar.stanh(x), lambda x: OF.rrelu(x, 0.1, 0.3),
    lambda x: oar.nn.functional.celu(x, 1.5), lambda x: oar.nn.functional.selu(x, 1.3, 0.4)],
    ids=["celu", "selu", "hardshrink", "softshrink", "softsign", "tanhshrink", "glu", "stanh",
         "rrelu", "paddle_celu", "paddle_selu"])
def test_gradcheck_core_ops(fn):
    a = _data((4, 3))
    x = ot.tensor(a, requires_grad=True)
    assert gradcheck(fn, (x,))
    # second order through create_graph (the oar-op form of each backward)
    y = fn(x)
    (gx,) = ot.autograd.grad(y.sum(), x, create_graph=True)
    assert gradcheck(lambda v: ot.autograd.grad(fn(v).sum(), v, create_graph=True)[0], (x,)) \
        or gx is None


# ============================================================== torch door: modules
def test_torch_module_reprs():
    pairs = [
        ("CELU", ()), ("CELU", (0.5, True)), ("SELU", ()), ("SELU", (True,)), ("GLU", ()),
        ("GLU", (1,)), ("Hardshrink", ()), ("Softshrink", (0.2,)), ("Softsign", ()),
        ("Tanhshrink", ()), ("Threshold", (0.1, 20)), ("Threshold", (0.1, 2.0, True)),
        ("RReLU", ()), ("RReLU", (0.1, 0.3, True)), ("Softmax2d", ()),
        ("ZeroPad1d", (2,)), ("ZeroPad2d", ((1, 2, 3, 4),)), ("ZeroPad3d", (1,)),
        ("ConstantPad1d", (1, 2.5)), ("ConstantPad2d", ((1, 0, 2, 0), -1.0)),
        ("ConstantPad3d", (1, 0.0)), ("ReflectionPad1d", (2,)), ("ReflectionPad2d", (1,)),
        ("ReflectionPad3d", (1,)), ("ReplicationPad1d", ((1, 2),)), ("ReplicationPad2d", (1,)),
        ("ReplicationPad3d", (1,)), ("CircularPad1d", (1,)), ("CircularPad2d", (1,)),
        ("CircularPad3d", (1,)), ("BatchNorm3d", (4,)), ("InstanceNorm3d", (4,)),
        ("InstanceNorm3d", (4,), )]
    for name, args in pairs:
        assert repr(getattr(ot.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args)), name
        assert getattr(ot.nn, name)(*args).state_dict().keys() == \
            getattr(torch.nn, name)(*args).state_dict().keys(), name


PAD_CASES = [
    ("ZeroPad1d", (2,), (2, 3, 5)), ("ZeroPad2d", ((1, 2, 0, 3),), (2, 3, 4, 5)),
    ("ZeroPad3d", (1,), (1, 2, 3, 4, 5)), ("ConstantPad1d", ((1, 0), 2.5), (3, 5)),
    ("ConstantPad2d", (2, -1.0), (2, 3, 4, 5)), ("ConstantPad3d", ((1, 0, 2, 0, 0, 1), 3.0),
                                                  (2, 2, 3, 4, 5)),
    ("ReflectionPad1d", (2,), (2, 3, 5)), ("ReflectionPad2d", ((1, 2, 3, 0),), (2, 3, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 4, 5)), ("ReplicationPad1d", ((3, 1),), (2, 3, 5)),
    ("ReplicationPad2d", (2,), (3, 4, 5)), ("ReplicationPad3d", ((1, 2, 0, 1, 2, 0),),
                                             (1, 2, 3, 4, 5)),
    ("CircularPad1d", (2,), (2, 3, 5)), ("CircularPad2d", ((1, 2, 2, 1),), (2, 3, 4, 5)),
    ("CircularPad3d", (1,), (2, 3, 4, 5)),
    ("ZeroPad2d", ((-1, 2, 1, -2),), (2, 3, 4, 5)),
]


@pytest.mark.parametrize("name,args,shape", PAD_CASES, ids=[c[0] + str(c[1]) for c in PAD_CASES])
def test_torch_padding_modules(name, args, shape):
    a = _data(shape)
    tx = torch.tensor(a, requires_grad=True)
    base, ox = _nc_torch(a)
    ty = getattr(torch.nn, name)(*args)(tx)
    oy = getattr(ot.nn, name)(*args)(ox)
    g = _data(tuple(ty.shape))
    ty.backward(torch.tensor(g))
    oy.backward(ot.tensor(g))
    _close(oy.detach().numpy(), ty.detach().numpy(), 1e-12)
    _close(base.grad.numpy().swapaxes(-1, -2), tx.grad.numpy(), 1e-12)


def test_torch_circular_pad_rank_check():
    with pytest.raises(ValueError):
        torch.nn.CircularPad2d(1)(torch.ones(2, 3))
    with pytest.raises(ValueError):
        ot.nn.CircularPad2d(1)(ot.ones(2, 3))


@pytest.mark.parametrize("name", ["BatchNorm3d", "InstanceNorm3d"])
def test_torch_3d_norms_train_like_torch(name):
    kw = {"affine": True, "track_running_stats": True} if name == "InstanceNorm3d" else {}
    tm, om = getattr(torch.nn, name)(3, **kw), getattr(ot.nn, name)(3, **kw)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(_data(3)))
        tm.bias.copy_(torch.tensor(_data(3)))
    om.load_state_dict({k: ot.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    tm.double()
    om.double()
    topt = torch.optim.SGD(tm.parameters(), lr=0.1)
    oopt = ot.optim.SGD(om.parameters(), lr=0.1)
    for step in range(3):
        a = _data((2, 3, 2, 3, 4))
        ty, oy = tm(torch.tensor(a)), om(ot.tensor(a))
        _close(oy.detach().numpy(), ty.detach().numpy(), 1e-10)
        (ty * ty).sum().backward()
        (oy * oy).sum().backward()
        topt.step()
        oopt.step()
        topt.zero_grad()
        oopt.zero_grad()
    for k, v in tm.state_dict().items():
        _close(om.state_dict()[k].numpy(), v.numpy(), 1e-10)
    tm.eval()
    om.eval()
    a = _data((2, 3, 2, 3, 4))
    _close(om(ot.tensor(a)).detach().numpy(), tm(torch.tensor(a)).detach().numpy(), 1e-10)
    # the state dict loads into torch
    fresh = getattr(torch.nn, name)(3, **kw).double()
    fresh.load_state_dict({k: torch.tensor(v.numpy()) for k, v in om.state_dict().items()})
    with pytest.raises(ValueError):
        om(ot.ones(2, 3, 4, 5))


# ============================================================== Paddle door
@pytest.fixture(scope="module")
def paddle():
    p = pytest.importorskip("paddle")
    warnings.filterwarnings("ignore")
    return p


PADDLE_ACTS = [
    ("celu", (0.7,)), ("celu", ()), ("selu", ()), ("selu", (1.2, 0.5)), ("glu", (1,)),
    ("glu", ()), ("hardshrink", (0.3,)), ("softshrink", (0.3,)), ("softsign", ()),
    ("tanhshrink", ()), ("thresholded_relu", (0.2, 3.0)), ("thresholded_relu", ()),
    ("mish", ()), ("hardswish", ()), ("hardsigmoid", ()), ("hardsigmoid", (0.3, 0.2)),
    ("swish", ()), ("logsigmoid", ()), ("maxout", (2,)), ("maxout", (2, -1)),
    ("zeropad2d", ([1, 2, 0, 1],)), ("rrelu", (0.1, 0.3, False)),
    ("cosine_similarity", ()),
]


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name,args", PADDLE_ACTS, ids=[f"{n}{a}" for n, a in PADDLE_ACTS])
def test_paddle_activation_matches_paddle(paddle, name, args, dt):
    PF = paddle.nn.functional
    a = _data((2, 4, 3, 6), dt)
    two = name == "cosine_similarity"
    b = _data((2, 4, 3, 6), dt)
    px = paddle.to_tensor(a, stop_gradient=False)
    ox = oar.to_tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), stop_gradient=False)
    oxv = ox.transpose([0, 1, 3, 2])          # a non-contiguous view
    if two:
        py = PF.cosine_similarity(px, paddle.to_tensor(b))
        oy = oar.nn.functional.cosine_similarity(oxv, oar.to_tensor(b))
    else:
        py = getattr(PF, name)(px, *args)
        oy = getattr(oar.nn.functional, name)(oxv, *args)
    g = _data(tuple(py.shape), dt)
    py.backward(paddle.to_tensor(g))
    oy.backward(oar.to_tensor(g))
    tol = 1e-12 if dt == "float64" else 2e-6
    # Paddle's selu backward reads the result and float32(scale * alpha)
    gtol = 1e-7 if name == "selu" and not args and dt == "float64" else tol
    _close(oy.numpy(), py.numpy(), tol)
    _close(ox.grad.numpy().swapaxes(-1, -2), px.grad.numpy(), gtol)
    assert oy.dtype == getattr(oar, dt)


def test_paddle_stanh_and_inplace_thresholded_relu(paddle):
    a = _data((3, 4))
    _close(oar.stanh(oar.to_tensor(a)).numpy(), paddle.stanh(paddle.to_tensor(a)).numpy(),
           1e-12)
    _close(oar.stanh(oar.to_tensor(a), 0.5, 2.0).numpy(),
           paddle.stanh(paddle.to_tensor(a), 0.5, 2.0).numpy(), 1e-12)
    px, ox = paddle.to_tensor(a), oar.to_tensor(a)
    r = oar.nn.functional.thresholded_relu_(ox, 0.5, 1.0)
    paddle.nn.functional.thresholded_relu_(px, 0.5, 1.0)
    assert r is ox
    _close(ox.numpy(), px.numpy(), 0)


@pytest.mark.parametrize("fmt,nw", [("NCHW", 4), ("NCHW", 1), ("NHWC", 4), ("NHWC", 1)])
def test_paddle_prelu(paddle, fmt, nw):
    a = _data((2, 4, 3, 4) if fmt == "NCHW" else (2, 3, 4, 4))
    w = _data(nw)
    px, pw = paddle.to_tensor(a, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    ox, ow = oar.to_tensor(a, stop_gradient=False), oar.to_tensor(w, stop_gradient=False)
    py = paddle.nn.functional.prelu(px, pw, fmt)
    oy = oar.nn.functional.prelu(ox, ow, fmt)
    (py * py).sum().backward()
    (oy * oy).sum().backward()
    _close(oy.numpy(), py.numpy(), 1e-12)
    _close(ox.grad.numpy(), px.grad.numpy(), 1e-12)
    _close(ow.grad.numpy(), pw.grad.numpy(), 1e-10)


def test_paddle_prelu_layer_trains_like_paddle(paddle):
    pm = paddle.nn.PReLU(4, init=0.3)
    om = oar.nn.PReLU(4, init=0.3)
    assert list(om.state_dict()) == list(pm.state_dict()) == ["_weight"]
    assert repr(om) == repr(pm)
    popt = paddle.optimizer.SGD(0.1, parameters=pm.parameters())
    oopt = oar.optimizer.SGD(0.1, parameters=om.parameters())
    for _ in range(3):
        # the input requires grad: paddle 3.3.1's own prelu_grad kernel crashes (SIGSEGV)
        # when only the weight does
        a = _data((2, 4, 3), "float32")
        py = pm(paddle.to_tensor(a, stop_gradient=False))
        oy = om(oar.to_tensor(a, stop_gradient=False))
        _close(oy.numpy(), py.numpy(), 1e-6)
        (py * py).sum().backward()
        (oy * oy).sum().backward()
        popt.step()
        oopt.step()
        popt.clear_grad()
        oopt.clear_grad()
    _close(om._weight.numpy(), pm._weight.numpy(), 1e-6)
    pm.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in om.state_dict().items()})


def test_paddle_layer_reprs(paddle):
    specs = [("CELU", ()), ("CELU", (0.5,)), ("SELU", ()), ("SELU", (1.2, 0.5)), ("GLU", ()),
             ("Hardshrink", ()), ("Softshrink", (0.3,)), ("Softsign", ()), ("Tanhshrink", ()),
             ("ThresholdedReLU", ()), ("ThresholdedReLU", (0.5, 2.0)), ("RReLU", ()),
             ("Mish", ()), ("Hardswish", ()), ("Hardsigmoid", ()), ("Maxout", (2,)),
             ("Swish", ()), ("Silu", ()), ("PReLU", ()), ("PReLU", (3, 0.1)),
             ("Pad1D", (1,)), ("Pad2D", ([1, 2, 3, 4], "reflect")),
             ("Pad3D", (1, "constant", 2.0)), ("ZeroPad1D", (1,)), ("ZeroPad2D", (1,)),
             ("ZeroPad3D", ([1, 0, 1, 0, 2, 0],)), ("CosineSimilarity", ()),
             ("InstanceNorm3D", (3,)), ("BatchNorm3D", (3,))]
    for name, args in specs:
        pm, om = getattr(paddle.nn, name)(*args), getattr(oar.nn, name)(*args)
        assert repr(om) == repr(pm), name
        assert list(om.state_dict()) == list(pm.state_dict()), name


PADDLE_PADS = [
    ("Pad1D", (2,), (2, 3, 5)), ("Pad1D", ([1, 2], "reflect"), (2, 3, 5)),
    ("Pad1D", ([1, 2], "replicate", 0.0, "NLC"), (2, 5, 3)),
    ("Pad2D", ([1, 2, 3, 0],), (2, 3, 4, 5)), ("Pad2D", (1, "circular"), (2, 3, 4, 5)),
    ("Pad2D", ([1, 0, 2, 1], "constant", 1.5, "NHWC"), (2, 4, 5, 3)),
    ("Pad3D", (1, "replicate"), (1, 2, 3, 4, 5)), ("Pad3D", ([1, 0, 0, 1, 2, 0],), (1, 2, 3, 4, 5)),
    ("ZeroPad1D", ([2, 1],), (2, 3, 5)), ("ZeroPad2D", ([1, 2, 0, 1],), (2, 3, 4, 5)),
    ("ZeroPad3D", (1,), (1, 2, 3, 4, 5)),
]


@pytest.mark.parametrize("name,args,shape", PADDLE_PADS,
                         ids=[f"{c[0]}{c[1]}" for c in PADDLE_PADS])
def test_paddle_padding_layers(paddle, name, args, shape):
    a = _data(shape)
    px, ox = paddle.to_tensor(a, stop_gradient=False), oar.to_tensor(a, stop_gradient=False)
    py = getattr(paddle.nn, name)(*args)(px)
    oy = getattr(oar.nn, name)(*args)(ox)
    g = _data(tuple(py.shape))
    py.backward(paddle.to_tensor(g))
    oy.backward(oar.to_tensor(g))
    _close(oy.numpy(), py.numpy(), 1e-12)
    _close(ox.grad.numpy(), px.grad.numpy(), 1e-12)


def test_paddle_batchnorm3d_trains_like_paddle(paddle):
    pm, om = paddle.nn.BatchNorm3D(3), oar.nn.BatchNorm3D(3)
    om.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in pm.state_dict().items()})
    for _ in range(2):
        a = _data((2, 3, 2, 3, 4), "float32")
        py, oy = pm(paddle.to_tensor(a)), om(oar.to_tensor(a))
        _close(oy.numpy(), py.numpy(), 1e-5)
    _close(om._mean.numpy(), pm._mean.numpy(), 1e-6)
    pm.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in om.state_dict().items()})
    pm.eval()
    om.eval()
    a = _data((2, 3, 2, 3, 4), "float32")
    _close(om(oar.to_tensor(a)).numpy(), pm(paddle.to_tensor(a)).numpy(), 1e-5)


def test_paddle_batchnorm3d_running_variance(paddle):
    pm, om = paddle.nn.BatchNorm3D(3), oar.nn.BatchNorm3D(3)
    a = _data((2, 3, 2, 3, 4), "float32")
    pm(paddle.to_tensor(a))
    om(oar.to_tensor(a))
    _close(om._variance.numpy(), pm._variance.numpy(), 1e-5)


def test_paddle_instancenorm3d_matches_paddle(paddle):
    pm, om = paddle.nn.InstanceNorm3D(3), oar.nn.InstanceNorm3D(3)
    a = _data((2, 3, 2, 3, 4), "float32")
    _close(om(oar.to_tensor(a)).numpy(), pm(paddle.to_tensor(a)).numpy(), 1e-5)


def test_paddle_rrelu_training(paddle):
    a = _data((50,))
    y = oar.nn.functional.rrelu(oar.to_tensor(a), 0.1, 0.3, True).numpy()
    neg = a < 0
    np.testing.assert_array_equal(y[~neg], a[~neg])
    slope = y[neg] / a[neg]
    assert np.all((slope >= 0.1 - 1e-7) & (slope <= 0.3 + 1e-7))
    m = oar.nn.RReLU(0.1, 0.3)
    m.eval()
    _close(m(oar.to_tensor(a)).numpy(),
           paddle.nn.functional.rrelu(paddle.to_tensor(a), 0.1, 0.3, False).numpy(), 1e-12)


PADDLE_ERRORS = [
    (lambda F, x: F.softshrink(x, -1.0), ValueError),
    (lambda F, x: F.selu(x, 0.5), ValueError),
    (lambda F, x: F.selu(x, 1.5, -1.0), ValueError),
    (lambda F, x: F.rrelu(x, 0.5, 0.2), ValueError),
    (lambda F, x: F.rrelu(x, -0.5, 0.2), ValueError),
    (lambda F, x: F.glu(x[:, :3]), ValueError),
    (lambda F, x: F.maxout(x, 2), ValueError),
]


@pytest.mark.parametrize("k", range(len(PADDLE_ERRORS)))
def test_paddle_errors_match_paddle(paddle, k):
    call, exc = PADDLE_ERRORS[k]
    a = _data((2, 4))
    with pytest.raises(exc):
        call(paddle.nn.functional, paddle.to_tensor(a))
    ox = oar.to_tensor(a)
    with pytest.raises(exc):
        call(oar.nn.functional, ox)
    np.testing.assert_array_equal(ox.numpy(), a)


# ============================================================== distances, shuffles, LRN
TORCH_MISC = [
    ("pairwise_distance", lambda F, a, b: F.pairwise_distance(a, b)),
    ("pairwise_distance_p1_keepdim", lambda F, a, b: F.pairwise_distance(a, b, 1.0, 1e-3, True)),
    ("pairwise_distance_pinf", lambda F, a, b: F.pairwise_distance(a, b, float("inf"))),
    ("channel_shuffle", lambda F, a, b: F.channel_shuffle(a, 2)),
    ("local_response_norm", lambda F, a, b: F.local_response_norm(a, 3)),
    ("local_response_norm_even", lambda F, a, b: F.local_response_norm(a, 2, 0.3, 0.6, 2.0)),
    ("local_response_norm_3d", lambda F, a, b: F.local_response_norm(a[..., 0], 3, 0.2)),
]


@pytest.mark.parametrize("name,call", TORCH_MISC, ids=[c[0] for c in TORCH_MISC])
def test_torch_distances_shuffle_lrn(name, call):
    a, b = _data((2, 4, 3, 5)), _data((2, 4, 3, 5))
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    base, ox = _nc_torch(a)
    oy = ot.tensor(b, requires_grad=True)
    tr, orr = call(TF, tx, ty), call(OF, ox, oy)
    g = _data(tuple(tr.shape))
    tr.backward(torch.tensor(g))
    orr.backward(ot.tensor(g))
    tol = 1e-8 if "local" in name else 1e-10    # a sum of slices vs torch's avg_pool window
    _close(orr.detach().numpy(), tr.detach().numpy(), tol)
    _close(base.grad.numpy().swapaxes(-1, -2), tx.grad.numpy(), tol)
    if name.startswith("pairwise"):
        _close(oy.grad.numpy(), ty.grad.numpy(), 1e-10)


def test_torch_distance_shuffle_lrn_modules():
    for name, args in [("PairwiseDistance", ()), ("PairwiseDistance", (1.0, 1e-3, True)),
                       ("ChannelShuffle", (2,)), ("LocalResponseNorm", (2,)),
                       ("LocalResponseNorm", (3, 0.2, 0.5, 2.0))]:
        tm, om = getattr(torch.nn, name)(*args), getattr(ot.nn, name)(*args)
        assert repr(om) == repr(tm)
        a, b = _data((2, 4, 3)), _data((2, 4, 3))
        if name == "PairwiseDistance":
            _close(om(ot.tensor(a), ot.tensor(b)).numpy(),
                   tm(torch.tensor(a), torch.tensor(b)).numpy(), 1e-10)
        else:
            _close(om(ot.tensor(a)).numpy(), tm(torch.tensor(a)).numpy(), 1e-10)
    with pytest.raises(RuntimeError):
        OF.channel_shuffle(ot.ones(2, 3, 4), 2)
    with pytest.raises(RuntimeError):
        TF.channel_shuffle(torch.ones(2, 3, 4), 2)


PADDLE_MISC = [
    ("pairwise_distance", lambda F, a, b: F.pairwise_distance(a, b)),
    ("pairwise_distance_p1", lambda F, a, b: F.pairwise_distance(a, b, 1.0, 1e-3, True)),
    ("channel_shuffle", lambda F, a, b: F.channel_shuffle(a, 2)),
    ("channel_shuffle_nhwc", lambda F, a, b: F.channel_shuffle(a, 5, "NHWC")),
    ("local_response_norm", lambda F, a, b: F.local_response_norm(a, 3)),
    ("local_response_norm_nhwc", lambda F, a, b: F.local_response_norm(a, 2, 0.3, 0.6, 2.0,
                                                                       "NHWC")),
]


@pytest.mark.parametrize("name,call", PADDLE_MISC, ids=[c[0] for c in PADDLE_MISC])
def test_paddle_distances_shuffle_lrn(paddle, name, call):
    a, b = _data((2, 4, 3, 10)), _data((2, 4, 3, 10))
    px, py = paddle.to_tensor(a, stop_gradient=False), paddle.to_tensor(b, stop_gradient=False)
    ox, oy = oar.to_tensor(a, stop_gradient=False), oar.to_tensor(b, stop_gradient=False)
    pr, orr = call(paddle.nn.functional, px, py), call(oar.nn.functional, ox, oy)
    g = _data(tuple(pr.shape))
    pr.backward(paddle.to_tensor(g))
    orr.backward(oar.to_tensor(g))
    # local_response_norm: the window mean is a sum of shifted slices here, an avg_pool in
    # Paddle, and Paddle's float32 attributes differ in the last float32 bits
    tol = 1e-7 if "local" in name else 1e-10
    _close(orr.numpy(), pr.numpy(), tol)
    _close(ox.grad.numpy(), px.grad.numpy(), tol)
    if name.startswith("pairwise"):
        _close(oy.grad.numpy(), py.grad.numpy(), 1e-10)


def test_paddle_distance_shuffle_lrn_layers(paddle):
    for name, args in [("PairwiseDistance", ()), ("ChannelShuffle", (2,)),
                       ("LocalResponseNorm", (3,)), ("LocalResponseNorm", (2, 0.3, 0.5, 2.0))]:
        pm, om = getattr(paddle.nn, name)(*args), getattr(oar.nn, name)(*args)
        assert repr(om) == repr(pm)
        assert list(om.state_dict()) == list(pm.state_dict()) == []
