"""grid_sample on 5-D input (trilinear, nearest) and in bicubic mode, affine_grid for 5-D sizes,
and interpolate(..., antialias=True) (oar/nn/_spatial.py, Note [Grid sampling] and Note
[Antialiased resampling]): values, float64 gradients and node names against torch 2.13,
gradients against finite differences, and the Paddle door against paddle 3.3.1 (its
defaults: align_corners=True)."""
import itertools
import warnings

import numpy as np
import pytest

import oar
import oar.torch as ot
from oar.autograd.gradcheck import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
PADS = ["zeros", "border", "reflection"]


def _noncontig(a):
    """a as a non-contiguous view (every other element of a doubled last dim)."""
    return np.repeat(a, 2, axis=-1)[..., ::2]


def _close(got, want, tol):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


# ---------------------------------------------------------------- grid_sample, torch door
GRID_CASES = ([(4, m, p, a) for m, p, a in itertools.product(["bicubic"], PADS, [False, True])]
              + [(5, m, p, a) for m, p, a in itertools.product(["bilinear", "nearest"], PADS,
                                                                [False, True])])


def _grid_operands(nd):
    if nd == 4:
        return RNG.standard_normal((2, 3, 5, 4)), RNG.uniform(-1.3, 1.3, (2, 6, 7, 2))
    return RNG.standard_normal((2, 2, 4, 5, 3)), RNG.uniform(-1.3, 1.3, (2, 3, 4, 2, 3))


@pytest.mark.parametrize("nd,mode,padding_mode,align", GRID_CASES)
def test_torch_grid_sample_matches_torch(nd, mode, padding_mode, align):
    x, gr = _grid_operands(nd)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(gr, requires_grad=True)
    ox, og = ot.tensor(x, requires_grad=True), ot.tensor(gr, requires_grad=True)
    want = torch.nn.functional.grid_sample(tx, tg, mode, padding_mode, align)
    got = ot.nn.functional.grid_sample(ox, og, mode, padding_mode, align)
    _close(got.detach().numpy(), want.detach().numpy(), 1e-12)
    assert got.grad_fn.name() == want.grad_fn.name()
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(ot.tensor(g))
    _close(ox.grad.numpy(), tx.grad.numpy(), 1e-10)
    _close(og.grad.numpy(), tg.grad.numpy(), 1e-10)
    # non-contiguous operands
    nx, ng = ot.from_numpy(_noncontig(x)), ot.from_numpy(_noncontig(gr))
    assert not nx.is_contiguous() and not ng.is_contiguous()
    _close(ot.nn.functional.grid_sample(nx, ng, mode, padding_mode, align).numpy(),
           want.detach().numpy(), 1e-12)
    # float32 agrees with torch's float32 kernel
    t32 = torch.nn.functional.grid_sample(torch.tensor(x, dtype=torch.float32),
                                          torch.tensor(gr, dtype=torch.float32), mode,
                                          padding_mode, align)
    o32 = ot.nn.functional.grid_sample(ot.tensor(x, dtype=ot.float32),
                                       ot.tensor(gr, dtype=ot.float32), mode, padding_mode, align)
    assert o32.dtype == ot.float32
    _close(o32.numpy(), t32.numpy(), 1e-5)


@pytest.mark.parametrize("nd,mode,padding_mode,align",
                         [c for c in GRID_CASES if c[1] != "nearest"])
def test_grid_sample_gradcheck(nd, mode, padding_mode, align):
    # grid points away from pixel borders and the reflection / clipping edges, where the
    # sampling is differentiable
    shape = (1, 2, 4, 3) if nd == 4 else (1, 2, 3, 4, 3)
    gshape = (1, 3, 2, nd - 2) if nd == 4 else (1, 2, 2, 2, 3)
    xs = ot.tensor(RNG.standard_normal(shape), requires_grad=True)
    gs = ot.tensor(RNG.uniform(-0.8, 0.8, gshape), requires_grad=True)
    assert gradcheck(lambda a, b: ot.nn.functional.grid_sample(a, b, mode, padding_mode, align),
                     (xs, gs))


def test_grid_sample_create_graph_is_refused_cleanly():
    # a known limitation: oar's grid_sample backward is first order only (torch 2.13 builds a
    # graph through it); the refusal is NotImplementedError, never a wrong second derivative
    x = ot.tensor(RNG.standard_normal((1, 1, 3, 3, 3)), requires_grad=True)
    gr = ot.tensor(RNG.uniform(-1, 1, (1, 2, 2, 2, 3)), requires_grad=True)
    y = ot.nn.functional.grid_sample(x, gr, align_corners=False)
    with pytest.raises(NotImplementedError, match="grid_sample"):
        ot.autograd.grad(y.sum(), (x, gr), create_graph=True)


def test_torch_grid_sample_errors_match_torch():
    F, TF = ot.nn.functional, torch.nn.functional
    cases = [
        lambda m, M: m.grid_sample(M.ones(1, 1, 2, 2, 2), M.zeros(1, 1, 1, 1, 3),
                                   mode="bicubic", align_corners=False),
        lambda m, M: m.grid_sample(M.ones(1, 1, 2, 2, 2), M.zeros(1, 1, 1, 1, 2),
                                   align_corners=False),
        lambda m, M: m.grid_sample(M.ones(1, 1, 2, 2, 2), M.zeros(1, 1, 1, 2),
                                   align_corners=False),
        lambda m, M: m.grid_sample(M.ones(2, 1, 2, 2, 2), M.zeros(1, 1, 1, 1, 3),
                                   align_corners=False),
        lambda m, M: m.affine_grid(M.zeros(1, 2, 3), [1, 1, 2, 3, 4], align_corners=False),
    ]
    for call in cases:
        with pytest.raises(Exception) as want:
            call(TF, torch)
        with pytest.raises(type(want.value)):
            call(F, ot)


@pytest.mark.parametrize("align", [False, True])
def test_torch_affine_grid_5d_feeds_grid_sample_5d(align):
    size = (2, 3, 4, 5, 3)
    th = RNG.standard_normal((2, 3, 4)) * 0.5
    x = RNG.standard_normal(size)
    t, o = torch.tensor(th, requires_grad=True), ot.tensor(th, requires_grad=True)
    tx, ox = torch.tensor(x, requires_grad=True), ot.tensor(x, requires_grad=True)
    tw = torch.nn.functional.grid_sample(
        tx, torch.nn.functional.affine_grid(t, size, align_corners=align), "bilinear",
        "border", align)
    ow = ot.nn.functional.grid_sample(
        ox, ot.nn.functional.affine_grid(o, size, align_corners=align), "bilinear", "border",
        align)
    _close(ow.detach().numpy(), tw.detach().numpy(), 1e-12)
    g = RNG.standard_normal(tuple(tw.shape))
    tw.backward(torch.tensor(g))
    ow.backward(ot.tensor(g))
    _close(o.grad.numpy(), t.grad.numpy(), 1e-10)
    _close(ox.grad.numpy(), tx.grad.numpy(), 1e-10)


# ---------------------------------------------------------------- grid_sample, Paddle door
paddle_cases = list(itertools.product([4, 5], ["bilinear", "nearest"], PADS, [False, True]))


@pytest.mark.parametrize("nd,mode,padding_mode,align", paddle_cases)
def test_paddle_grid_sample_matches_paddle(nd, mode, padding_mode, align):
    paddle = pytest.importorskip("paddle")
    x, gr = (a.astype(np.float32) for a in _grid_operands(nd))
    px, pg = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(gr, stop_gradient=False)
    ox, og = oar.to_tensor(x, stop_gradient=False), oar.to_tensor(gr, stop_gradient=False)
    want = paddle.nn.functional.grid_sample(px, pg, mode=mode, padding_mode=padding_mode,
                                            align_corners=align)
    got = oar.nn.functional.grid_sample(ox, og, mode=mode, padding_mode=padding_mode,
                                        align_corners=align)
    _close(got.numpy(), want.numpy(), 1e-5)
    g = RNG.standard_normal(list(want.shape)).astype(np.float32)
    (want * paddle.to_tensor(g)).sum().backward()
    (got * oar.to_tensor(g)).sum().backward()
    _close(ox.grad.numpy(), px.grad.numpy(), 1e-5)
    _close(og.grad.numpy(), pg.grad.numpy(), 1e-5)


def test_paddle_grid_sample_affine_grid_defaults_and_errors_match_paddle():
    paddle = pytest.importorskip("paddle")
    x = RNG.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    th = (RNG.standard_normal((1, 3, 4)) * 0.5).astype(np.float32)
    # defaults: align_corners=True in both functions
    pgrid = paddle.nn.functional.affine_grid(paddle.to_tensor(th), [1, 2, 3, 4, 5])
    ogrid = oar.nn.functional.affine_grid(oar.to_tensor(th), [1, 2, 3, 4, 5])
    _close(ogrid.numpy(), pgrid.numpy(), 1e-5)
    _close(oar.nn.functional.affine_grid(oar.to_tensor(th), [1, 2, 3, 4, 5], False).numpy(),
           paddle.nn.functional.affine_grid(paddle.to_tensor(th), [1, 2, 3, 4, 5],
                                            False).numpy(), 1e-5)
    _close(oar.nn.functional.grid_sample(oar.to_tensor(x), ogrid).numpy(),
           paddle.nn.functional.grid_sample(paddle.to_tensor(x), pgrid).numpy(), 1e-5)
    cases = [
        lambda m: m.nn.functional.grid_sample(m.ones([1, 1, 3, 3]), m.zeros([1, 2, 2, 2]),
                                              mode="bicubic"),
        lambda m: m.nn.functional.grid_sample(m.ones([1, 1, 3, 3, 3]), m.zeros([1, 2, 2, 2, 3]),
                                              mode="bicubic"),
        lambda m: m.nn.functional.grid_sample(m.ones([1, 1, 3, 3]), m.zeros([1, 2, 2, 2]),
                                              mode="bogus", padding_mode="bogus"),
    ]
    for call in cases:
        with pytest.raises(Exception) as want:
            call(paddle)
        with pytest.raises(type(want.value)) as got:
            call(oar)
        # the same message (Paddle checks the mode before the padding mode)
        assert str(got.value).split(": ", 1)[1].split(",")[0] in str(want.value)


# ---------------------------------------------------------------- interpolate(antialias=True)
AA_SIZES = [dict(scale_factor=0.5), dict(scale_factor=1 / 3), dict(scale_factor=1 / 1.7),
            dict(size=(5, 4)), dict(size=(3, 7)), dict(scale_factor=2.0), dict(size=(17, 11)),
            dict(scale_factor=0.4, recompute_scale_factor=True), dict(size=(1, 1))]


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kw", AA_SIZES)
@pytest.mark.parametrize("align", [False, True])
def test_torch_antialias_matches_torch(mode, kw, align):
    x = RNG.standard_normal((2, 3, 12, 9))
    tx, ox = torch.tensor(x, requires_grad=True), ot.tensor(x, requires_grad=True)
    want = torch.nn.functional.interpolate(tx, mode=mode, align_corners=align, antialias=True,
                                           **kw)
    got = ot.nn.functional.interpolate(ox, mode=mode, align_corners=align, antialias=True, **kw)
    assert tuple(got.shape) == tuple(want.shape)
    _close(got.detach().numpy(), want.detach().numpy(), 1e-12)
    assert got.grad_fn.name() == want.grad_fn.name()
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(ot.tensor(g))
    _close(ox.grad.numpy(), tx.grad.numpy(), 1e-12)
    # non-contiguous input, and float32 against torch's float32 kernel
    nx = ot.from_numpy(_noncontig(x))
    assert not nx.is_contiguous()
    _close(ot.nn.functional.interpolate(nx, mode=mode, align_corners=align, antialias=True,
                                        **kw).numpy(), want.detach().numpy(), 1e-12)
    x32 = x.astype(np.float32)
    t32 = torch.nn.functional.interpolate(torch.tensor(x32), mode=mode, align_corners=align,
                                          antialias=True, **kw)
    o32 = ot.nn.functional.interpolate(ot.tensor(x32), mode=mode, align_corners=align,
                                       antialias=True, **kw)
    assert o32.dtype == ot.float32
    _close(o32.numpy(), t32.numpy(), 1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kw", [dict(scale_factor=1 / 1.7), dict(size=(7, 3))])
def test_antialias_gradcheck_and_gradgradcheck(mode, kw):
    x = ot.tensor(RNG.standard_normal((1, 2, 6, 5)), requires_grad=True)

    def f(a):
        return ot.nn.functional.interpolate(a, mode=mode, antialias=True, **kw)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_upsampling_is_close_to_the_plain_mode(mode):
    # bilinear: the same triangle filter (equal inside, edges renormalised instead of
    # clamped); bicubic: Keys' A = -0.5 instead of -0.75, so only close
    x = RNG.standard_normal((1, 2, 6, 5))
    tx = torch.tensor(x)
    aa = ot.nn.functional.interpolate(ot.tensor(x), size=(13, 11), mode=mode, antialias=True)
    plain = torch.nn.functional.interpolate(tx, size=(13, 11), mode=mode, align_corners=False)
    want = torch.nn.functional.interpolate(tx, size=(13, 11), mode=mode, antialias=True)
    _close(aa.numpy(), want.numpy(), 1e-12)
    if mode == "bilinear":
        _close(aa.numpy(), plain.numpy(), 1e-12)
    else:
        assert np.abs(aa.numpy() - plain.numpy()).max() < 0.5


def test_torch_antialias_errors_match_torch():
    F, TF = ot.nn.functional, torch.nn.functional
    cases = [
        lambda m, M: m.interpolate(M.ones(1, 1, 4), size=2, mode="linear", antialias=True),
        lambda m, M: m.interpolate(M.ones(1, 1, 4, 4, 4), size=2, mode="trilinear",
                                   antialias=True),
        lambda m, M: m.interpolate(M.ones(1, 1, 4, 4), size=2, mode="nearest", antialias=True),
        lambda m, M: m.interpolate(M.ones(1, 1, 4, 4), size=2, mode="area", antialias=True),
    ]
    for call in cases:
        with pytest.raises(Exception) as want:
            call(TF, torch)
        with pytest.raises(type(want.value)):
            call(F, ot)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("kw", [dict(scale_factor=0.5), dict(scale_factor=1 / 1.7),
                                dict(scale_factor=1 / 3), dict(size=[5, 4]),
                                dict(scale_factor=2.0),
                                dict(scale_factor=0.6, recompute_scale_factor=True)])
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_paddle_antialias_matches_paddle(mode, kw, align, fmt):
    paddle = pytest.importorskip("paddle")
    shape = (2, 12, 9, 3) if fmt == "NHWC" else (2, 3, 12, 9)
    x = RNG.standard_normal(shape).astype(np.float32)
    px, ox = paddle.to_tensor(x, stop_gradient=False), oar.to_tensor(x, stop_gradient=False)
    want = paddle.nn.functional.interpolate(px, mode=mode, align_corners=align, antialias=True,
                                            data_format=fmt, **kw)
    got = oar.nn.functional.interpolate(ox, mode=mode, align_corners=align, antialias=True,
                                        data_format=fmt, **kw)
    assert list(got.shape) == list(want.shape)
    _close(got.numpy(), want.numpy(), 1e-5)
    g = RNG.standard_normal(list(want.shape)).astype(np.float32)
    (want * paddle.to_tensor(g)).sum().backward()
    (got * oar.to_tensor(g)).sum().backward()
    _close(ox.grad.numpy(), px.grad.numpy(), 1e-5)


def test_paddle_antialias_errors_match_paddle():
    paddle = pytest.importorskip("paddle")
    cases = [
        lambda m: m.nn.functional.interpolate(m.ones([1, 1, 4, 4]), size=[2, 2], mode="nearest",
                                              antialias=True),
        lambda m: m.nn.functional.interpolate(m.ones([1, 1, 4, 4]), size=[2, 2],
                                              mode="bilinear", antialias=1),
    ]
    for call in cases:
        with pytest.raises(Exception) as want:
            call(paddle)
        with pytest.raises(type(want.value)):
            call(oar)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # NHWC with recompute_scale_factor: Paddle scales dims 2.. (W and C) -- a Paddle quirk
        # the door keeps
        x = np.zeros((2, 12, 9, 3), np.float32)
        want = paddle.nn.functional.interpolate(paddle.to_tensor(x), scale_factor=0.6,
                                                recompute_scale_factor=True, mode="bilinear",
                                                data_format="NHWC")
        got = oar.nn.functional.interpolate(oar.to_tensor(x), scale_factor=0.6,
                                            recompute_scale_factor=True, mode="bilinear",
                                            data_format="NHWC")
        assert list(got.shape) == list(want.shape)
