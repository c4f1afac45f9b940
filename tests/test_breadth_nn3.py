"""The third breadth pass of nn pieces, both doors (oar/nn/_nn3.py): bilinear (torch
F.bilinear / nn.Bilinear, Paddle F.bilinear / nn.Bilinear). Values and float64 gradients
against torch 2.13 and paddle 3.3.1 (non-contiguous inputs); layers with the same weights in
the real framework: forward, backward, two optimizer steps, state_dict loading, repr."""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as ot

torch = pytest.importorskip("torch")
paddle = pytest.importorskip("paddle")
warnings.filterwarnings("ignore", category=UserWarning)

RNG = np.random.default_rng(7)


def _data(shape, dt="float64"):
    return RNG.standard_normal(shape).astype(dt)


def _close(o, t, tol):
    np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=tol, atol=tol)


def _nc(make, a):
    """A non-contiguous view holding a (the last two dims of a transposed leaf), and the leaf."""
    base = make(np.ascontiguousarray(np.swapaxes(a, -1, -2)))
    return base, base.transpose(-1, -2) if make is _ot_leaf else base.transpose(
        list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])


def _ot_leaf(a):
    return ot.tensor(a, requires_grad=True)


def _pd_leaf(a):
    t = oar.to_tensor(a)
    t.stop_gradient = False
    return t


def _steps_torch(om, tm, inputs_o, inputs_t, tol=1e-5):
    """forward + backward + two SGD-momentum steps agree; returns nothing."""
    oo = ot.optim.SGD(om.parameters(), lr=0.1, momentum=0.9)
    to = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    for _ in range(2):
        oo.zero_grad()
        to.zero_grad()
        yo, yt = om(*inputs_o), tm(*inputs_t)
        _close(yo.detach().numpy(), yt.detach().numpy(), tol)
        (yo * yo).sum().backward()
        (yt * yt).sum().backward()
        for (n, p), q in zip(om.named_parameters(), tm.parameters()):
            _close(p.grad.numpy(), q.grad.numpy(), tol * 10)
        oo.step()
        to.step()
    for p, q in zip(om.parameters(), tm.parameters()):
        _close(p.detach().numpy(), q.detach().numpy(), tol * 10)


def _steps_paddle(om, pm, inputs_o, inputs_p, tol=1e-5):
    oo = oar.optimizer.Momentum(0.1, 0.9, parameters=om.parameters())
    po = paddle.optimizer.Momentum(0.1, 0.9, parameters=pm.parameters())
    for _ in range(2):
        yo, yp = om(*inputs_o), pm(*inputs_p)
        _close(yo.numpy(), yp.numpy(), tol)
        (yo * yo).sum().backward()
        (yp * yp).sum().backward()
        for p, q in zip(om.parameters(), pm.parameters()):
            _close(p.grad.numpy(), q.grad.numpy(), tol * 10)
        oo.step()
        po.step()
        oo.clear_grad()
        po.clear_grad()
    for p, q in zip(om.parameters(), pm.parameters()):
        _close(p.numpy(), q.numpy(), tol * 10)


# ================================================================================ bilinear
@pytest.mark.parametrize("lead,bias", [((4,), True), ((2, 3), True), ((5,), False)])
def test_torch_bilinear_functional_float64(lead, bias):
    a1, a2 = _data(lead + (3,)), _data(lead + (4,))
    w, b = _data((5, 3, 4)), _data((5,))
    t1, t2 = (torch.tensor(a, requires_grad=True) for a in (a1, a2))
    tw, tb = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    o1, o2 = ot.tensor(a1, requires_grad=True), ot.tensor(a2, requires_grad=True)
    ow, ob = ot.tensor(w, requires_grad=True), ot.tensor(b, requires_grad=True)
    # weight as a non-contiguous view
    owb = ot.tensor(np.ascontiguousarray(w.transpose(0, 2, 1)), requires_grad=True)
    ownc = owb.transpose(1, 2)
    assert not ownc.is_contiguous()
    g = _data(lead + (5,))
    ty = torch.nn.functional.bilinear(t1, t2, tw, tb if bias else None)
    oy = ot.nn.functional.bilinear(o1, o2, ownc, ob if bias else None)
    ty.backward(torch.tensor(g))
    oy.backward(ot.tensor(g))
    _close(oy.detach().numpy(), ty.detach().numpy(), 1e-12)
    _close(o1.grad.numpy(), t1.grad.numpy(), 1e-12)
    _close(o2.grad.numpy(), t2.grad.numpy(), 1e-12)
    _close(owb.grad.numpy().transpose(0, 2, 1), tw.grad.numpy(), 1e-12)
    if bias:
        _close(ob.grad.numpy(), tb.grad.numpy(), 1e-12)
    del ow


def test_torch_bilinear_gradcheck():
    from oar.autograd.gradcheck import gradcheck
    ins = [ot.tensor(_data(s), requires_grad=True) for s in ((3, 2), (3, 4), (2, 2, 4), (2,))]
    assert gradcheck(lambda *t: ot.nn.functional.bilinear(*t), ins)


def test_torch_bilinear_layer_steps_state_dict_repr():
    torch.manual_seed(0)
    tm = torch.nn.Bilinear(3, 4, 5)
    om = ot.nn.Bilinear(3, 4, 5)
    om.load_state_dict({k: ot.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    assert repr(om) == repr(tm)
    a1, a2 = _data((6, 3), "float32"), _data((6, 4), "float32")
    _steps_torch(om, tm, (ot.tensor(a1), ot.tensor(a2)), (torch.tensor(a1), torch.tensor(a2)))
    t2 = torch.nn.Bilinear(3, 4, 5)
    t2.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in om.state_dict().items()})
    _close(t2.weight.detach().numpy(), om.weight.detach().numpy(), 0)
    assert repr(ot.nn.Bilinear(2, 3, 4, bias=False)) == repr(torch.nn.Bilinear(2, 3, 4, False))


@pytest.mark.parametrize("bias", [True, False])
def test_paddle_bilinear_functional_float64(bias):
    a1, a2 = _data((4, 3)), _data((4, 2))
    w, b = _data((5, 3, 2)), _data((1, 5))
    p1, p2, pw, pb = (paddle.to_tensor(a, stop_gradient=False) for a in (a1, a2, w, b))
    o2base = _pd_leaf(np.ascontiguousarray(a2.T))
    o2 = o2base.transpose([1, 0])
    o1, ow, ob = _pd_leaf(a1), _pd_leaf(w), _pd_leaf(b)
    g = _data((4, 5))
    py = paddle.nn.functional.bilinear(p1, p2, pw, pb if bias else None)
    oy = oar.nn.functional.bilinear(o1, o2, ow, ob if bias else None)
    (py * paddle.to_tensor(g)).sum().backward()
    (oy * oar.to_tensor(g)).sum().backward()
    _close(oy.numpy(), py.numpy(), 1e-12)
    _close(o1.grad.numpy(), p1.grad.numpy(), 1e-12)
    _close(o2base.grad.numpy().T, p2.grad.numpy(), 1e-12)
    _close(ow.grad.numpy(), pw.grad.numpy(), 1e-12)
    if bias:
        _close(ob.grad.numpy(), pb.grad.numpy(), 1e-12)


def test_paddle_bilinear_layer_steps_state_dict_repr():
    pm = paddle.nn.Bilinear(3, 4, 5)
    om = oar.nn.Bilinear(3, 4, 5)
    assert repr(om) == repr(pm)
    assert [(k, list(v.shape)) for k, v in om.state_dict().items()] == \
        [(k, list(v.shape)) for k, v in pm.state_dict().items()]
    om.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in pm.state_dict().items()})
    a1, a2 = _data((6, 3), "float32"), _data((6, 4), "float32")
    _steps_paddle(om, pm, (oar.to_tensor(a1), oar.to_tensor(a2)),
                  (paddle.to_tensor(a1), paddle.to_tensor(a2)))
    p2 = paddle.nn.Bilinear(3, 4, 5)
    p2.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in om.state_dict().items()})
    _close(p2.bias.numpy(), om.bias.numpy(), 0)
    # the default initialisation has Paddle's spread: Xavier-uniform weight, zero bias
    big = oar.nn.Bilinear(40, 50, 30)
    limit = np.sqrt(6.0 / (40 * 50 + 30 * 50))
    w = big.weight.numpy()
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.9 * limit
    assert not big.bias.numpy().any()
    assert repr(oar.nn.Bilinear(2, 3, 4, name="bl")) == repr(paddle.nn.Bilinear(2, 3, 4,
                                                                              name="bl"))


def test_bilinear_errors_match_the_frameworks():
    with pytest.raises(RuntimeError):
        torch.nn.functional.bilinear(torch.ones(2, 3), torch.ones(2, 5), torch.ones(5, 3, 4))
    with pytest.raises(RuntimeError):
        ot.nn.functional.bilinear(ot.ones(2, 3), ot.ones(2, 5), ot.ones(5, 3, 4))
    with pytest.raises(ValueError):
        oar.nn.functional.bilinear(oar.ones([2, 3, 3]), oar.ones([2, 3, 4]), oar.ones([5, 3, 4]))
    with pytest.raises(ValueError):
        paddle.nn.functional.bilinear(paddle.ones([2, 3, 3]), paddle.ones([2, 3, 4]),
                                      paddle.ones([5, 3, 4]))


# =================================================================================== pdist
PS = [2.0, 1.0, 0.5, 1.5, 3.0, 0.0, float("inf")]


@pytest.mark.parametrize("p", PS)
def test_torch_pdist_float64_with_repeated_rows(p):
    a = _data((5, 4))
    a[3] = a[1]                 # a zero distance (Note [pdist at zero])
    a[4, 2] = a[0, 2]           # one zero difference
    base, ox = _nc(_ot_leaf, a)
    assert not ox.is_contiguous()
    tx = torch.tensor(a, requires_grad=True)
    ty = torch.nn.functional.pdist(tx, p)
    oy = ot.nn.functional.pdist(ox, p)
    assert isinstance(oy, ot.Tensor) and oy.shape == ty.shape
    g = _data(tuple(ty.shape))
    ty.backward(torch.tensor(g))
    oy.backward(ot.tensor(g))
    _close(oy.detach().numpy(), ty.detach().numpy(), 1e-12)
    _close(base.grad.numpy().T, tx.grad.numpy(), 1e-10)


@pytest.mark.parametrize("p", [2.0, 0.5, 3.0])
def test_pdist_gradcheck(p):
    from oar.autograd.gradcheck import gradcheck
    x = ot.tensor(_data((4, 3)), requires_grad=True)
    assert gradcheck(lambda t: ot.nn.functional.pdist(t, p), [x])


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf")])
def test_paddle_pdist_float64(p):
    a = _data((5, 3))
    px = paddle.to_tensor(a, stop_gradient=False)
    base, ox = _nc(_pd_leaf, a)
    g = _data((10,))
    py = paddle.pdist(px, p)
    oy = oar.pdist(ox, p)
    assert oar.nn.functional.pdist is oar.pdist
    (py * paddle.to_tensor(g)).sum().backward()
    (oy * oar.to_tensor(g)).sum().backward()
    # paddle's float64 p-norm for p other than 1, 2, inf agrees with torch's to ~1e-8 only
    # (ours agrees with torch's to 1e-12 above)
    tol = 1e-12 if p in (1.0, 2.0, float("inf")) else 1e-7
    _close(oy.numpy(), py.numpy(), tol)
    _close(base.grad.numpy().T, px.grad.numpy(), max(tol, 1e-10))


def test_pdist_errors_and_empty():
    for t in (torch, ot):
        with pytest.raises(RuntimeError):
            t.nn.functional.pdist(t.ones(2, 3, 4))
        with pytest.raises(RuntimeError):
            t.nn.functional.pdist(t.ones(2, 3), -1.0)
        assert tuple(t.nn.functional.pdist(t.ones(1, 3)).shape) == (0,)
    with pytest.raises(AssertionError):
        paddle.pdist(paddle.ones([2, 3, 4]))
    with pytest.raises(ValueError):
        oar.pdist(oar.ones([2, 3, 4]))


# ================================================================================ rms_norm
# (torch door only: paddle 3.3.1's F.rms_norm has no CPU kernel, "The kernel `rms_norm` is
# not registered", so there is nothing on the Paddle side to match)
@pytest.mark.parametrize("ns,eps,w", [([4], None, True), ((3, 4), 1e-3, True), ([4], None, False)])
def test_torch_rms_norm_float64(ns, eps, w):
    a = _data((2, 3, 4))
    wa = _data((3, 4) if isinstance(ns, tuple) else (4,))
    base, ox = _nc(_ot_leaf, a)
    tx = torch.tensor(a, requires_grad=True)
    tw, ow = torch.tensor(wa, requires_grad=True), ot.tensor(wa, requires_grad=True)
    ty = torch.nn.functional.rms_norm(tx, ns, tw if w else None, eps)
    oy = ot.nn.functional.rms_norm(ox, ns, ow if w else None, eps)
    g = _data((2, 3, 4))
    ty.backward(torch.tensor(g))
    oy.backward(ot.tensor(g))
    _close(oy.detach().numpy(), ty.detach().numpy(), 1e-12)
    _close(base.grad.numpy().swapaxes(-1, -2), tx.grad.numpy(), 1e-12)
    if w:
        _close(ow.grad.numpy(), tw.grad.numpy(), 1e-12)


def test_torch_rms_norm_gradcheck_and_errors():
    from oar.autograd.gradcheck import gradcheck
    ins = [ot.tensor(_data(s), requires_grad=True) for s in ((3, 4), (4,))]
    assert gradcheck(lambda x, w: ot.nn.functional.rms_norm(x, [4], w, 1e-6), ins)
    for t in (torch, ot):
        with pytest.raises(RuntimeError):
            t.nn.functional.rms_norm(t.ones(2, 3), [4])
        with pytest.raises(RuntimeError):
            t.nn.functional.rms_norm(t.ones(2, 4), [4], t.ones(3))
        with pytest.raises(TypeError):
            t.nn.functional.rms_norm(t.ones(2, 4), 4)


def test_torch_rms_norm_layer_steps_state_dict_repr():
    tm, om = torch.nn.RMSNorm([5]), ot.nn.RMSNorm([5])
    assert repr(om) == repr(tm)
    tm.weight.data.uniform_(0.5, 1.5)
    om.load_state_dict({k: ot.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    a = _data((4, 5), "float32")
    _steps_torch(om, tm, (ot.tensor(a),), (torch.tensor(a),))
    t2 = torch.nn.RMSNorm(5)
    t2.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in om.state_dict().items()})
    for kw in ({"eps": 1e-3, "elementwise_affine": False}, {}):
        assert repr(ot.nn.RMSNorm((2, 5), **kw)) == repr(torch.nn.RMSNorm((2, 5), **kw))
    assert list(ot.nn.RMSNorm(3, elementwise_affine=False).state_dict()) == []


# ========================================================================== gumbel_softmax
@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("tau,dim", [(1.0, -1), (0.5, 0)])
def test_torch_gumbel_softmax_draws_torchs_sample(hard, tau, dim):
    """Same seed, same sample (the torch door's stream is torch's); hard=True passes the soft
    sample's gradient straight through, as torch does."""
    a = _data((4, 6))
    base, ox = _nc(_ot_leaf, a)
    tx = torch.tensor(a, requires_grad=True)
    ot.manual_seed(9)
    torch.manual_seed(9)
    oy = ot.nn.functional.gumbel_softmax(ox, tau, hard, dim=dim)
    ty = torch.nn.functional.gumbel_softmax(tx, tau, hard, dim=dim)
    g = _data((4, 6))
    oy.backward(ot.tensor(g))
    ty.backward(torch.tensor(g))
    _close(oy.detach().numpy(), ty.detach().numpy(), 1e-12)
    _close(base.grad.numpy().T, tx.grad.numpy(), 1e-12)
    if hard:
        assert set(np.unique(oy.detach().numpy())) <= {0.0, 1.0}
        assert (oy.detach().numpy().sum(dim) == 1).all()


def _paddle_freqs(mod, x, n, **kw):
    y = mod.nn.functional.gumbel_softmax(mod.to_tensor(np.tile(x, (n, 1))), hard=True, **kw)
    return y.numpy().mean(0)


def test_paddle_gumbel_softmax_statistics_match_paddle():
    """The hard sample is argmax-of-Gumbel: class frequencies are softmax(x) (the Gumbel-max
    trick), in oar as in paddle; the soft sample's mean agrees with paddle's."""
    x = np.array([1.0, 2.0, 0.5, -1.0])
    p = np.exp(x) / np.exp(x).sum()
    n = 40000
    oar.seed(1)
    paddle.seed(1)
    fo, fp = _paddle_freqs(oar, x, n), _paddle_freqs(paddle, x, n)
    sigma = np.sqrt(p * (1 - p) / n)
    assert (np.abs(fo - p) < 5 * sigma).all(), (fo, p)
    assert (np.abs(fp - p) < 5 * sigma).all(), (fp, p)
    for t in (0.5, 2.0):
        mo = oar.nn.functional.gumbel_softmax(oar.to_tensor(np.tile(x, (n, 1))), t).numpy()
        mp = paddle.nn.functional.gumbel_softmax(paddle.to_tensor(np.tile(x, (n, 1))),
                                                 t).numpy()
        np.testing.assert_allclose(mo.mean(0), mp.mean(0), atol=0.01)
        np.testing.assert_allclose(mo.sum(1), 1.0, rtol=1e-12)


def test_paddle_gumbel_softmax_gradients_have_paddles_structure():
    x = _data((3, 5))
    w = _data((3, 5))
    for mod in (oar, paddle):
        t = mod.to_tensor(x, stop_gradient=False)
        y = mod.nn.functional.gumbel_softmax(t, 0.7, axis=1)
        (y * mod.to_tensor(w)).sum().backward()
        ys = y.numpy()
        # softmax's backward at the sample; paddle leaves out the chain rule's 1 / temperature
        # (Note [Gumbel softmax per door]), and so does the Paddle door
        expect = ys * (w - (ys * w).sum(1, keepdims=True))
        _close(t.grad.numpy(), expect, 1e-10)
        # hard: a one-hot value whose gradient is zero (paddle's backward is softmax's
        # backward at the one-hot output), still part of the graph
        t = mod.to_tensor(x, stop_gradient=False)
        y = mod.nn.functional.gumbel_softmax(t, 0.7, hard=True)
        assert not y.stop_gradient
        (y * mod.to_tensor(w)).sum().backward()
        assert (y.numpy().sum(-1) == 1).all()
        _close(t.grad.numpy(), np.zeros_like(x), 0)


def test_gumbel_softmax_errors():
    for mod in (oar, paddle):
        with pytest.raises(ValueError):
            mod.nn.functional.gumbel_softmax(mod.to_tensor([1.0, 2.0]), temperature=0)
        with pytest.raises(RuntimeError):
            mod.nn.functional.gumbel_softmax(mod.to_tensor([1, 2]))
    with pytest.raises(IndexError):
        torch.nn.functional.gumbel_softmax(torch.ones(2, 3), dim=2)
    with pytest.raises(IndexError):
        ot.nn.functional.gumbel_softmax(ot.ones(2, 3), dim=2)


# ============================================================ label_smooth, sequence_mask
@pytest.mark.parametrize("prior,eps", [(False, 0.1), (True, 0.25), (False, 0.0), (True, 1.0)])
def test_paddle_label_smooth_float64(prior, eps):
    lab = np.eye(4)[RNG.integers(0, 4, (2, 3))].astype("float64")   # [2, 3, 4] one-hot
    pr = RNG.random((1, 4))
    pr /= pr.sum()
    pl = paddle.to_tensor(lab, stop_gradient=False)
    pp = paddle.to_tensor(pr, stop_gradient=False)
    base, ol = _nc(_pd_leaf, lab)
    op_ = _pd_leaf(pr)
    g = _data((2, 3, 4))
    py = paddle.nn.functional.label_smooth(pl, pp if prior else None, eps)
    oy = oar.nn.functional.label_smooth(ol, op_ if prior else None, eps)
    (py * paddle.to_tensor(g)).sum().backward()
    (oy * oar.to_tensor(g)).sum().backward()
    _close(oy.numpy(), py.numpy(), 1e-12)
    _close(base.grad.numpy().swapaxes(-1, -2), pl.grad.numpy(), 1e-12)
    if prior:   # paddle's backward gives prior_dist no gradient
        assert op_.grad is None and pp.grad is None


def test_label_smooth_errors():
    for mod in (oar, paddle):
        with pytest.raises(ValueError):
            mod.nn.functional.label_smooth(mod.to_tensor([[0.0, 1.0]]), epsilon=1.5)
        with pytest.raises(RuntimeError):
            mod.nn.functional.label_smooth(mod.to_tensor([[0, 1]]))
        with pytest.raises(RuntimeError):
            mod.nn.functional.sequence_mask(mod.to_tensor([1, 2]), "a")


@pytest.mark.parametrize("x,maxlen,dtype", [
    ([2, 0, 3], 4, "int64"), ([[2], [1]], None, "float32"), ([2, 1], 1, "bool"),
    ([2.0, 1.0], None, "int32"), ([2, -1], None, "int64"), ([[3, 1], [0, 2]], "t", "float64"),
    ([1, 2], -1, "int64"), ([1, 3], 2.5, "int64")])
def test_paddle_sequence_mask_matches_paddle(x, maxlen, dtype):
    kw = {"dtype": dtype}
    ml = (lambda m: m.to_tensor(3)) if maxlen == "t" else (lambda m: maxlen)
    py = paddle.nn.functional.sequence_mask(paddle.to_tensor(x), ml(paddle), **kw)
    oy = oar.nn.functional.sequence_mask(oar.to_tensor(x), ml(oar), **kw)
    assert oy.dtype.name == str(py.dtype).replace("paddle.", "")
    assert oy.stop_gradient and py.stop_gradient
    np.testing.assert_array_equal(oy.numpy(), py.numpy())


# ====================================================================== sigmoid_focal_loss
@pytest.mark.parametrize("reduction,norm,alpha,gamma", [
    ("sum", False, 0.25, 2.0), ("mean", True, 0.5, 0.0), ("none", True, 0.1, 1.5),
    ("none", False, 0.25, 3.0)])
def test_paddle_sigmoid_focal_loss_float64(reduction, norm, alpha, gamma):
    x = _data((3, 4)) * 2
    lab = RNG.integers(0, 2, (3, 4)).astype("float64")
    nv = np.array([2.5])
    px = paddle.to_tensor(x, stop_gradient=False)
    pn = paddle.to_tensor(nv, stop_gradient=False)
    base, ox = _nc(_pd_leaf, x)
    on = _pd_leaf(nv)
    kw = {"alpha": alpha, "gamma": gamma, "reduction": reduction}
    py = paddle.nn.functional.sigmoid_focal_loss(px, paddle.to_tensor(lab),
                                                 pn if norm else None, **kw)
    oy = oar.nn.functional.sigmoid_focal_loss(ox, oar.to_tensor(lab), on if norm else None, **kw)
    g = _data(tuple(py.shape))
    (py * paddle.to_tensor(g)).sum().backward()
    (oy * oar.to_tensor(g)).sum().backward()
    assert list(oy.shape) == list(py.shape)
    _close(oy.numpy(), py.numpy(), 1e-12)
    _close(base.grad.numpy().T, px.grad.numpy(), 1e-12)
    if norm:
        _close(on.grad.numpy(), pn.grad.numpy(), 1e-12)


def test_sigmoid_focal_loss_errors():
    for mod in (oar, paddle):
        x = mod.to_tensor([[0.5, -1.0]])
        with pytest.raises(ValueError):
            mod.nn.functional.sigmoid_focal_loss(x, x, reduction="max")
        with pytest.raises(ValueError):
            mod.nn.functional.sigmoid_focal_loss(x, x, mod.to_tensor([[1.0]]))


# ============================================== Paddle LayerDict, ParameterList, ParameterDict
def _container_model(mod):
    class M(mod.nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = mod.nn.LayerDict({"inp": mod.nn.Linear(3, 4), "act": mod.nn.Tanh()})
            self.blocks.update([("out", mod.nn.Linear(4, 2))])
            self.scales = mod.nn.ParameterList(
                [mod.create_parameter([4], "float32") for _ in range(2)])
            self.extra = mod.nn.ParameterDict({"shift": mod.create_parameter([2], "float32")})

        def forward(self, x):
            h = self.blocks["act"](self.blocks["inp"](x))
            for s in self.scales:
                h = h * s
            return self.blocks["out"](h) + self.extra["shift"]
    return M()


def test_paddle_containers_train_like_paddle_and_state_dicts_load():
    pm, om = _container_model(paddle), _container_model(oar)
    assert list(om.state_dict()) == list(pm.state_dict())
    for k, v in pm.state_dict().items():     # nonzero values everywhere
        pm.state_dict()[k].set_value(_data(v.shape, "float32"))
    om.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in pm.state_dict().items()})
    a = _data((5, 3), "float32")
    _steps_paddle(om, pm, (oar.to_tensor(a),), (paddle.to_tensor(a),))
    p2 = _container_model(paddle)
    p2.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in om.state_dict().items()})
    for (k, v), (k2, v2) in zip(p2.state_dict().items(), om.state_dict().items()):
        assert k == k2
        _close(v.numpy(), v2.numpy(), 0)
    assert repr(om.blocks) == repr(pm.blocks)
    assert repr(om.scales) == repr(pm.scales) and repr(om.extra) == repr(pm.extra)


def test_paddle_layer_dict_and_parameter_containers_behave_like_paddle():
    for mod in (oar, paddle):
        d = mod.nn.LayerDict([("a", mod.nn.ReLU()), ("b", mod.nn.Tanh())])
        d["c"] = mod.nn.Sigmoid()
        assert list(d) == list(d.keys()) == ["a", "b", "c"] and len(d) == 3 and "b" in d
        assert isinstance(d.pop("b"), mod.nn.Tanh) and list(d.keys()) == ["a", "c"]
        del d["a"]
        assert [type(v).__name__ for v in d.values()] == ["Sigmoid"]
        d.clear()
        assert len(d) == 0
        pl = mod.nn.ParameterList()
        pl.append(mod.create_parameter([1], "float32")).append(
            mod.create_parameter([2], "float32"))
        assert len(pl) == 2 and list(pl[1].shape) == [2] and len(list(pl.parameters())) == 2
        pl[0] = mod.create_parameter([3], "float32")
        assert list(pl[0].shape) == [3]
        pd = mod.nn.ParameterDict()
        pd.update({"x": mod.create_parameter([1], "float32")})
        pd["y"] = mod.create_parameter([2], "float32")
        assert list(pd) == ["x", "y"] and len(pd) == 2 and list(pd["y"].shape) == [2]


# ============================================================ hsigmoid_loss (default tree)
@pytest.mark.parametrize("c,bias", [(6, True), (2, True), (9, False)])
def test_paddle_hsigmoid_loss_float64(c, bias):
    n, d = 5, 3
    x, w, b = _data((n, d)), _data((c - 1, d)), _data((c - 1, 1))
    lab = RNG.integers(0, c, (n,))
    lab[0], lab[1] = 0, c - 1
    px, pw, pb = (paddle.to_tensor(a, stop_gradient=False) for a in (x, w, b))
    base, ox = _nc(_pd_leaf, x)
    ow, ob = _pd_leaf(w), _pd_leaf(b)
    py = paddle.nn.functional.hsigmoid_loss(px, paddle.to_tensor(lab), c, pw,
                                            pb if bias else None)
    oy = oar.nn.functional.hsigmoid_loss(ox, oar.to_tensor(lab), c, ow, ob if bias else None)
    assert list(oy.shape) == list(py.shape) == [n, 1]
    g = _data((n, 1))
    (py * paddle.to_tensor(g)).sum().backward()
    (oy * oar.to_tensor(g)).sum().backward()
    _close(oy.numpy(), py.numpy(), 1e-12)
    _close(base.grad.numpy().T, px.grad.numpy(), 1e-12)
    _close(ow.grad.numpy(), pw.grad.numpy(), 1e-12)
    if bias:
        _close(ob.grad.numpy(), pb.grad.numpy(), 1e-12)


def test_paddle_hsigmoid_loss_layer_steps_state_dict_repr():
    pm, om = paddle.nn.HSigmoidLoss(4, 7), oar.nn.HSigmoidLoss(4, 7)
    assert repr(om) == repr(pm)
    assert [(k, list(v.shape)) for k, v in om.state_dict().items()] == \
        [(k, list(v.shape)) for k, v in pm.state_dict().items()]
    pm.set_state_dict({"weight": pm.weight, "bias": paddle.to_tensor(_data((6, 1), "float32"))})
    om.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in pm.state_dict().items()})
    x, lab = _data((5, 4), "float32"), RNG.integers(0, 7, (5,))
    # (paddle 3.3.1's backward fails, "Required tensor shall not be nullptr", when the input
    # needs no gradient: its input is made to need one)
    _steps_paddle(om, pm, (oar.to_tensor(x), oar.to_tensor(lab)),
                  (paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(lab)))
    p2 = paddle.nn.HSigmoidLoss(4, 7)
    p2.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in om.state_dict().items()})
    _close(p2.weight.numpy(), om.weight.numpy(), 0)
    with pytest.raises(NotImplementedError):
        oar.nn.HSigmoidLoss(4, 7, is_custom=True)
