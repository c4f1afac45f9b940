"""Spatial resampling (oar/nn/_spatial.py): F.interpolate / Upsample* and pixel_shuffle /
pixel_unshuffle in both doors, against torch 2.13 and paddle 3.3.1; gradients against
finite differences (float64) and torch's."""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as ot
from oar.autograd.gradcheck import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
MODES = [("nearest", (2, 3, 5)), ("nearest", (2, 3, 5, 4)), ("nearest", (1, 2, 3, 4, 5)),
         ("nearest-exact", (2, 3, 5, 4)), ("nearest-exact", (1, 2, 3, 4, 5)),
         ("area", (2, 3, 5)), ("area", (2, 3, 5, 4)), ("area", (1, 2, 3, 4, 5)),
         ("linear", (2, 3, 5)), ("bilinear", (2, 3, 5, 4)), ("bicubic", (2, 3, 5, 4)),
         ("trilinear", (1, 2, 3, 4, 5))]
SIZES = [dict(size=7), dict(size=3), dict(scale_factor=1.7), dict(scale_factor=0.6),
         dict(scale_factor=2.0), dict(scale_factor=2.3, recompute_scale_factor=True)]


def _noncontig(a):
    """a as a non-contiguous view (every other element of a doubled last dim)."""
    big = np.repeat(a, 2, axis=-1)
    return big[..., ::2]


def _pair(a, dtype="float32"):
    a = a.astype(dtype)
    return torch.tensor(a), ot.tensor(a)


@pytest.mark.parametrize("mode,shape", MODES)
@pytest.mark.parametrize("kw", SIZES)
@pytest.mark.parametrize("align", [None, True])
def test_torch_interpolate_values_match_torch(mode, shape, kw, align):
    if align and mode in ("nearest", "nearest-exact", "area"):
        pytest.skip("align_corners only with the interpolating modes")
    a = RNG.standard_normal(shape).astype(np.float32)
    t, o = _pair(a)
    want = torch.nn.functional.interpolate(t, mode=mode, align_corners=align, **kw)
    got = ot.nn.functional.interpolate(o, mode=mode, align_corners=align, **kw)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    assert got.dtype == ot.float32
    # a non-contiguous input gives the same values
    oc = ot.tensor(np.zeros(1, np.float32))
    oc = ot.from_numpy(_noncontig(a))
    assert not oc.is_contiguous()
    np.testing.assert_allclose(ot.nn.functional.interpolate(oc, mode=mode, align_corners=align,
                                                            **kw).numpy(), want.numpy(),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode,shape", MODES)
def test_torch_interpolate_gradients(mode, shape):
    align = None if mode in ("nearest", "nearest-exact", "area") else False
    a = RNG.standard_normal(shape)
    t = torch.tensor(a, requires_grad=True)
    o = ot.tensor(a, requires_grad=True)
    kw = dict(scale_factor=1.7) if mode != "area" else dict(size=3)
    want = torch.nn.functional.interpolate(t, mode=mode, align_corners=align, **kw)
    got = ot.nn.functional.interpolate(o, mode=mode, align_corners=align, **kw)
    assert got.grad_fn.name() == want.grad_fn.name()
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(ot.tensor(g))
    np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)

    def fn(x):
        return ot.nn.functional.interpolate(x, mode=mode, align_corners=align, **kw)
    small = ot.tensor(RNG.standard_normal(shape), requires_grad=True)
    assert gradcheck(fn, (small,))
    if mode != "area" or len(shape) == 5:
        assert gradgradcheck(fn, (small,))


def test_torch_interpolate_errors_match_torch():
    F, TF = ot.nn.functional, torch.nn.functional
    cases = [
        dict(),                                            # neither size nor scale
        dict(size=4, scale_factor=2.0),                    # both
        dict(size=[4, 4, 4]),                              # wrong length
        dict(scale_factor=[2.0]),                          # wrong length
        dict(size=4, recompute_scale_factor=True),
        dict(size=4, mode="nearest", align_corners=True),
        dict(size=4, mode="linear"),                       # 4-D input, linear
        dict(size=4, mode="trilinear"),
        dict(scale_factor=0.0),                            # output size 0
        dict(size=0, mode="bilinear"),
        dict(size=4.5),
    ]
    a = np.ones((1, 2, 3, 3), np.float32)
    for kw in cases:
        t, o = _pair(a)
        with pytest.raises(Exception) as want:
            TF.interpolate(t, **kw)
        with pytest.raises(type(want.value)):
            F.interpolate(o, **kw)
    # an integer input has no bilinear kernel (both: RuntimeError / NotImplementedError)
    with pytest.raises(RuntimeError):
        F.interpolate(ot.ones(1, 1, 2, 2, dtype=ot.int64), scale_factor=2, mode="bilinear")
    # 2-D input: no spatial dims
    with pytest.raises(NotImplementedError):
        F.interpolate(ot.ones(2, 3), size=2)


def test_torch_upsample_spellings_and_modules():
    a = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    t, o = _pair(a)
    F, TF = ot.nn.functional, torch.nn.functional
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, kw in [("upsample_nearest", dict(scale_factor=2)),
                         ("upsample_bilinear", dict(size=(7, 3))),
                         ("upsample", dict(scale_factor=1.5, mode="bicubic"))]:
            np.testing.assert_allclose(getattr(F, name)(o, **kw).numpy(),
                                       getattr(TF, name)(t, **kw).numpy(), rtol=1e-5, atol=1e-5)
    with pytest.warns(UserWarning, match="deprecated"):
        F.upsample(o, scale_factor=2)
    for cls, args in [("Upsample", dict(scale_factor=2, mode="bilinear")),
                      ("Upsample", dict(size=(3, 9))),
                      ("UpsamplingNearest2d", dict(scale_factor=2)),
                      ("UpsamplingBilinear2d", dict(size=6))]:
        mo, mt = getattr(ot.nn, cls)(**args), getattr(torch.nn, cls)(**args)
        assert repr(mo) == repr(mt)
        assert mo.state_dict() == {} and len(mt.state_dict()) == 0
        np.testing.assert_allclose(mo(o).numpy(), mt(t).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 5), 2), ((9, 2, 4), 3), ((2, 1, 4, 3, 2), 2)])
def test_torch_pixel_shuffle_matches_torch(shape, r):
    a = RNG.standard_normal(shape)
    t = torch.tensor(a, requires_grad=True)
    o = ot.tensor(a, requires_grad=True)
    want = torch.nn.functional.pixel_shuffle(t, r)
    got = ot.nn.functional.pixel_shuffle(o, r)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    assert got.grad_fn.name() == want.grad_fn.name()
    assert got.data_ptr() != o.data_ptr()           # a new tensor, as torch's
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(ot.tensor(g))
    np.testing.assert_array_equal(o.grad.numpy(), t.grad.numpy())
    back = ot.nn.functional.pixel_unshuffle(got, r)
    np.testing.assert_array_equal(back.detach().numpy(),
                                  torch.nn.functional.pixel_unshuffle(want, r).detach().numpy())
    assert gradcheck(lambda x: ot.nn.functional.pixel_shuffle(x, r), (o.detach().requires_grad_(),))
    # modules
    assert repr(ot.nn.PixelShuffle(r)) == repr(torch.nn.PixelShuffle(r))
    assert repr(ot.nn.PixelUnshuffle(r)) == repr(torch.nn.PixelUnshuffle(r))
    # non-contiguous input
    nc = ot.from_numpy(_noncontig(a))
    np.testing.assert_array_equal(ot.nn.functional.pixel_shuffle(nc, r).numpy(),
                                  want.detach().numpy())


def test_torch_pixel_shuffle_errors():
    F = ot.nn.functional
    with pytest.raises(RuntimeError):
        F.pixel_shuffle(ot.ones(2, 6, 2, 2), 2)             # 6 not divisible by 4
    with pytest.raises(RuntimeError):
        F.pixel_unshuffle(ot.ones(2, 1, 3, 4), 2)           # 3 not divisible by 2
    with pytest.raises(RuntimeError):
        F.pixel_shuffle(ot.ones(4, 4), 2)                    # 2-D
    with pytest.raises(RuntimeError):
        F.pixel_shuffle(ot.ones(1, 4, 2, 2), 0)
    with pytest.raises(TypeError):
        F.pixel_shuffle(ot.ones(1, 4, 2, 2), 2.0)


# ---------------------------------------------------------------- the Paddle door
paddle = pytest.importorskip("paddle")

PADDLE_CASES = [
    ("nearest", (2, 3, 5, 4), dict(scale_factor=1.7)),
    ("nearest", (2, 3, 5, 4), dict(size=[3, 7])),
    ("nearest", (1, 2, 3, 4, 5), dict(scale_factor=0.6)),
    ("area", (2, 3, 5, 4), dict(size=[3, 2])),
    ("area", (2, 3, 5), dict(size=[3])),
    ("linear", (2, 3, 5), dict(size=[7])),
    ("linear", (2, 3, 5), dict(size=[7], align_mode=1)),
    ("bilinear", (2, 3, 5, 4), dict(scale_factor=1.7)),
    ("bilinear", (2, 3, 5, 4), dict(scale_factor=1.7, align_mode=1)),
    ("bilinear", (2, 3, 5, 4), dict(size=[7, 3], align_corners=True)),
    ("bilinear", (2, 3, 5, 4), dict(scale_factor=2.3, recompute_scale_factor=True)),
    ("bilinear", (2, 5, 4, 3), dict(scale_factor=1.5, data_format="NHWC")),
    ("nearest", (2, 5, 4, 3), dict(size=[3, 7], data_format="NHWC")),
    ("linear", (2, 5, 3), dict(size=[7], data_format="NWC")),
    ("bicubic", (2, 3, 5, 4), dict(scale_factor=1.7)),
    ("bicubic", (2, 3, 5, 4), dict(size=[3, 6], align_corners=True)),
    ("trilinear", (1, 2, 3, 4, 5), dict(scale_factor=0.6)),
    ("trilinear", (1, 2, 3, 4, 5), dict(size=[4, 5, 6], align_mode=1)),
]


@pytest.mark.parametrize("mode,shape,kw", PADDLE_CASES)
def test_paddle_interpolate_matches_paddle(mode, shape, kw):
    a = RNG.standard_normal(shape).astype(np.float32)
    want = paddle.nn.functional.interpolate(paddle.to_tensor(a), mode=mode, **kw)
    got = oar.nn.functional.interpolate(oar.to_tensor(a), mode=mode, **kw)
    assert list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    # gradients of a random cotangent
    g = RNG.standard_normal(list(want.shape)).astype(np.float32)
    px = paddle.to_tensor(a, stop_gradient=False)
    (paddle.nn.functional.interpolate(px, mode=mode, **kw) * paddle.to_tensor(g)).sum().backward()
    ox = oar.to_tensor(a, stop_gradient=False)
    (oar.nn.functional.interpolate(ox, mode=mode, **kw) * oar.to_tensor(g)).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_paddle_interpolate_errors_match_paddle():
    a = np.ones((1, 2, 3, 3), np.float32)
    cases = [dict(size=[4, 4], scale_factor=2.0), dict(size=[4, 4, 4]), dict(scale_factor=0),
             dict(scale_factor=[2.0]), dict(size=[4, 4], mode="nearest", align_corners=True),
             dict(size=[4], mode="linear"), dict(size=[4, 4], mode="cubic"),
             dict(size=[4, 4], align_mode=2, mode="bilinear"), dict(mode="area"),
             dict(size=[4, 4], data_format="NCDHW"), dict()]
    for kw in cases:
        with pytest.raises(Exception) as want:
            paddle.nn.functional.interpolate(paddle.to_tensor(a), **kw)
        with pytest.raises(type(want.value)):
            oar.nn.functional.interpolate(oar.to_tensor(a), **kw)
    with pytest.raises(ValueError):     # Paddle: nearest needs 4-D or 5-D input
        oar.nn.functional.interpolate(oar.ones([1, 2, 3]), size=[4])


def test_paddle_layers_match_paddle():
    a = RNG.standard_normal((2, 8, 3, 4)).astype(np.float32)
    for cls, kw in [("Upsample", dict(scale_factor=2, mode="bilinear")),
                    ("Upsample", dict(size=[5, 5])),
                    ("UpsamplingNearest2D", dict(scale_factor=2)),
                    ("UpsamplingBilinear2D", dict(size=[6, 7])),
                    ("PixelShuffle", dict(upscale_factor=2)),
                    ("PixelUnshuffle", dict(downscale_factor=1)),
                    ("PixelShuffle", dict(upscale_factor=2, data_format="NHWC"))]:
        lp, lo = getattr(paddle.nn, cls)(**kw), getattr(oar.nn, cls)(**kw)
        src = a if kw.get("data_format") != "NHWC" else a.reshape(2, 3, 4, 8)
        np.testing.assert_allclose(lo(oar.to_tensor(src)).numpy(), lp(paddle.to_tensor(src)).numpy(),
                                   rtol=1e-5, atol=1e-5)
        assert repr(lo).split("(", 1)[1] == repr(lp).split("(", 1)[1]


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_paddle_pixel_shuffle_matches_paddle(fmt):
    a = RNG.standard_normal((2, 8, 6, 12) if fmt == "NCHW" else (2, 6, 12, 8)).astype(np.float32)
    for fn, r in (("pixel_shuffle", 2), ("pixel_unshuffle", 2)):
        px = paddle.to_tensor(a, stop_gradient=False)
        ox = oar.to_tensor(a, stop_gradient=False)
        want = getattr(paddle.nn.functional, fn)(px, r, fmt)
        got = getattr(oar.nn.functional, fn)(ox, r, fmt)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        g = RNG.standard_normal(list(want.shape)).astype(np.float32)
        (want * paddle.to_tensor(g)).sum().backward()
        (got * oar.to_tensor(g)).sum().backward()
        np.testing.assert_array_equal(ox.grad.numpy(), px.grad.numpy())
    with pytest.raises(ValueError):
        oar.nn.functional.pixel_shuffle(oar.ones([8, 2, 2]), 2)     # Paddle: 4-D only
    with pytest.raises(ValueError):
        oar.nn.functional.pixel_shuffle(oar.ones([1, 8, 2, 2]), 2, "NCWH")


# ---------------------------------------------------------------- unfold / fold
UNFOLD_CASES = [dict(kernel_size=3), dict(kernel_size=(2, 3), dilation=(2, 1), padding=1,
                                          stride=(2, 1)),
                dict(kernel_size=2, stride=2), dict(kernel_size=(1, 4), padding=(2, 0))]


@pytest.mark.parametrize("kw", UNFOLD_CASES)
@pytest.mark.parametrize("batched", [True, False])
def test_torch_unfold_fold_match_torch(kw, batched):
    shape = (2, 3, 7, 6) if batched else (3, 7, 6)
    a = RNG.standard_normal(shape)
    t = torch.tensor(a, requires_grad=True)
    o = ot.tensor(a, requires_grad=True)
    want = torch.nn.functional.unfold(t, **kw)
    got = ot.nn.functional.unfold(o, **kw)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    if batched:
        assert got.grad_fn.name() == want.grad_fn.name()
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(ot.tensor(g))
    np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    # fold is the adjoint; its gradient is unfold
    c = RNG.standard_normal(tuple(want.shape))
    tc, oc = torch.tensor(c, requires_grad=True), ot.tensor(c, requires_grad=True)
    fw = torch.nn.functional.fold(tc, (7, 6), **kw)
    fo = ot.nn.functional.fold(oc, (7, 6), **kw)
    np.testing.assert_allclose(fo.detach().numpy(), fw.detach().numpy(), rtol=1e-12, atol=1e-12)
    if batched:
        assert fo.grad_fn.name() == fw.grad_fn.name()
    gf = RNG.standard_normal(tuple(fw.shape))
    fw.backward(torch.tensor(gf))
    fo.backward(ot.tensor(gf))
    np.testing.assert_allclose(oc.grad.numpy(), tc.grad.numpy(), rtol=1e-12, atol=1e-12)
    small = ot.tensor(RNG.standard_normal(shape), requires_grad=True)
    assert gradgradcheck(lambda x: ot.nn.functional.unfold(x, **kw) ** 2, (small,))
    # non-contiguous input
    nc = ot.from_numpy(_noncontig(a))
    np.testing.assert_array_equal(ot.nn.functional.unfold(nc, **kw).numpy(),
                                  want.detach().numpy())


def test_torch_unfold_fold_modules_and_errors():
    for mo, mt in [(ot.nn.Unfold(2, padding=1), torch.nn.Unfold(2, padding=1)),
                   (ot.nn.Fold((4, 5), 2), torch.nn.Fold((4, 5), 2))]:
        assert repr(mo) == repr(mt)
    F, TF = ot.nn.functional, torch.nn.functional
    bad = [(lambda m: m.unfold(m.ones(2, 3, 4, 4), 5)),            # no block fits
           (lambda m: m.unfold(m.ones(4, 4), 2)),                   # 2-D input
           (lambda m: m.unfold(m.ones(1, 1, 4, 4), 0)),             # kernel 0
           (lambda m: m.fold(m.ones(1, 6, 9), (4, 4), 2)),         # 6 not divisible by 4
           (lambda m: m.fold(m.ones(1, 4, 8), (4, 4), 2))]         # 8 blocks, 9 expected
    for call in bad:
        with pytest.raises(Exception) as want:
            call(TF if False else type("M", (), {"unfold": staticmethod(TF.unfold),
                                                  "fold": staticmethod(TF.fold),
                                                  "ones": staticmethod(torch.ones)}))
        with pytest.raises(type(want.value)):
            call(type("M", (), {"unfold": staticmethod(F.unfold), "fold": staticmethod(F.fold),
                                "ones": staticmethod(ot.ones)}))


@pytest.mark.parametrize("kw", [dict(kernel_sizes=3), dict(kernel_sizes=[2, 3], dilations=[2, 1],
                                                           paddings=[1, 0], strides=[2, 1]),
                                dict(kernel_sizes=2, paddings=[1, 2, 0, 1])])
def test_paddle_unfold_fold_match_paddle(kw):
    a = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    px, ox = paddle.to_tensor(a, stop_gradient=False), oar.to_tensor(a, stop_gradient=False)
    want = paddle.nn.functional.unfold(px, **kw)
    got = oar.nn.functional.unfold(ox, **kw)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    g = RNG.standard_normal(list(want.shape)).astype(np.float32)
    (want * paddle.to_tensor(g)).sum().backward()
    (got * oar.to_tensor(g)).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-6, atol=1e-6)
    if len(kw.get("paddings", [])) != 4:    # Paddle's fold refuses uneven 4-side paddings
        np.testing.assert_allclose(
            oar.nn.functional.fold(got, [7, 6], **kw).numpy(),
            paddle.nn.functional.fold(want, [7, 6], **kw).numpy(), rtol=1e-6, atol=1e-6)
    assert repr(oar.nn.Unfold(**kw)).split("(", 1)[1] == repr(paddle.nn.Unfold(**kw)).split("(", 1)[1]
    with pytest.raises(AssertionError):
        oar.nn.functional.unfold(oar.ones([3, 4, 4]), 2)        # Paddle: 4-D only


# ---------------------------------------------------------------- pad in both doors
TORCH_PADS = [((2, 5), (1, 2)), ((2, 3, 5), (2, 1)), ((1, 2, 3, 5), (1, 2, 2, 1)),
              ((1, 2, 3, 4, 5), (1, 0, 2, 1, 1, 1)), ((2, 3, 4, 5, 6), (1, 2, 0, 1, 2, 2)),
              ((3, 5), (-1, 2)), ((2, 3, 4), (1, 2, 1, 1, 0, 1))]


@pytest.mark.parametrize("shape,pad", TORCH_PADS)
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_torch_pad_matches_torch(shape, pad, mode):
    a = RNG.standard_normal(shape)
    t, o = torch.tensor(a, requires_grad=True), ot.tensor(a, requires_grad=True)
    try:
        want = torch.nn.functional.pad(t, pad, mode=mode)
    except Exception as e:   # noqa: BLE001  (torch refuses: oar must refuse alike)
        with pytest.raises(type(e)):
            ot.nn.functional.pad(o, pad, mode=mode)
        return
    got = ot.nn.functional.pad(o, pad, mode=mode)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    assert got.grad_fn.name() == want.grad_fn.name()
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(ot.tensor(g))
    np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    nc = ot.from_numpy(_noncontig(a))
    np.testing.assert_array_equal(ot.nn.functional.pad(nc, pad, mode=mode).numpy(),
                                  want.detach().numpy())


PADDLE_PADS = [((2, 3, 4, 5), [1, 2, 0, 1], dict(mode="constant", value=1.5)),
               ((2, 3, 4, 5), [1, 2, 0, 1], dict(mode="reflect")),
               ((2, 3, 4, 5), [1, 2, 0, 1], dict(mode="replicate", data_format="NHWC")),
               ((2, 3, 4, 5), [1, 2, 0, 1], dict(mode="circular")),
               ((2, 3, 4, 5), [1, 2, 0, 1], dict(mode="constant", data_format="NHWC")),
               ((2, 3, 4, 5), [1, 2, 0, 1, 1, 1, 0, 0], dict(mode="constant")),
               ((2, 3, 4, 5), [1, 2, 0, 1, 1, 1, 0, 0], dict(mode="constant",
                                                           pad_from_left_axis=False)),
               ((2, 3, 5), [1, 2], dict(mode="reflect", data_format="NCL")),
               ((2, 3, 5), [1, 2], dict(mode="replicate", data_format="NLC")),
               ((1, 2, 3, 4, 5), [1, 0, 2, 1, 1, 1], dict(mode="reflect", data_format="NCDHW")),
               ((1, 2, 3, 4, 5), [1, 0, 2, 1, 1, 1], dict(mode="replicate",
                                                          data_format="NDHWC")),
               ((3, 4), [1, 2], dict(mode="constant")),
               ((3, 4), [1, 2, 0, 1], dict(mode="constant")),
               ((2, 3, 4, 5), [1, 2], dict(mode="constant"))]


@pytest.mark.parametrize("shape,pad,kw", PADDLE_PADS)
def test_paddle_pad_matches_paddle(shape, pad, kw):
    a = RNG.standard_normal(shape).astype(np.float32)
    px, ox = paddle.to_tensor(a, stop_gradient=False), oar.to_tensor(a, stop_gradient=False)
    want = paddle.nn.functional.pad(px, pad, **kw)
    got = oar.nn.functional.pad(ox, pad, **kw)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    g = RNG.standard_normal(list(want.shape)).astype(np.float32)
    (want * paddle.to_tensor(g)).sum().backward()
    (got * oar.to_tensor(g)).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_paddle_pad_errors_match_paddle():
    a = np.ones((2, 3, 4, 5), np.float32)
    for pad, kw in [([1, 2], dict(mode="reflect")),
                    ([1, 2, 0, 1], dict(mode="reflect", data_format="NCL"))]:
        with pytest.raises(Exception) as want:
            paddle.nn.functional.pad(paddle.to_tensor(a), pad, **kw)
        with pytest.raises(type(want.value)):
            oar.nn.functional.pad(oar.to_tensor(a), pad, **kw)


# ---------------------------------------------------------------- grid_sample / affine_grid
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_torch_grid_sample_matches_torch(mode, padding_mode, align):
    x = RNG.standard_normal((2, 3, 5, 4))
    gr = RNG.uniform(-1.3, 1.3, (2, 6, 7, 2))
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(gr, requires_grad=True)
    ox, og = ot.tensor(x, requires_grad=True), ot.tensor(gr, requires_grad=True)
    want = torch.nn.functional.grid_sample(tx, tg, mode, padding_mode, align)
    got = ot.nn.functional.grid_sample(ox, og, mode, padding_mode, align)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    assert got.grad_fn.name() == want.grad_fn.name()
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(ot.tensor(g))
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(og.grad.numpy(), tg.grad.numpy(), rtol=1e-10, atol=1e-12)
    if mode == "bilinear":
        # grid points away from pixel borders, where the sampling is differentiable
        xs = ot.tensor(RNG.standard_normal((1, 2, 4, 3)), requires_grad=True)
        gs = ot.tensor(RNG.uniform(-0.9, 0.9, (1, 3, 2, 2)), requires_grad=True)
        assert gradcheck(lambda a, b: ot.nn.functional.grid_sample(a, b, mode, padding_mode,
                                                                   align), (xs, gs))
    # non-contiguous operands
    nx, ng = ot.from_numpy(_noncontig(x)), ot.from_numpy(_noncontig(gr))
    np.testing.assert_allclose(ot.nn.functional.grid_sample(nx, ng, mode, padding_mode,
                                                            align).numpy(),
                               want.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("size,align", [((2, 3, 5, 4), False), ((2, 3, 5, 4), True),
                                        ((1, 2, 3, 4, 5), False), ((2, 1, 1, 4), True)])
def test_torch_affine_grid_matches_torch(size, align):
    th = RNG.standard_normal((size[0],) + ((2, 3) if len(size) == 4 else (3, 4)))
    t, o = torch.tensor(th, requires_grad=True), ot.tensor(th, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.nn.functional.affine_grid(t, size, align_corners=align)
    got = ot.nn.functional.affine_grid(o, size, align_corners=align)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), atol=1e-12)
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(ot.tensor(g))
    np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), atol=1e-12)
    assert isinstance(got, ot.Tensor)


def test_torch_grid_sample_affine_grid_errors_match_torch():
    F, TF = ot.nn.functional, torch.nn.functional
    cases = [
        (lambda m, M: m.grid_sample(M.ones(2, 1, 3, 3), M.zeros(1, 2, 2, 2), align_corners=False)),
        (lambda m, M: m.grid_sample(M.ones(1, 1, 3, 3), M.zeros(1, 2, 2, 3), align_corners=False)),
        (lambda m, M: m.grid_sample(M.ones(1, 1, 3, 3), M.zeros(1, 2, 2, 2), mode="bogus",
                                    align_corners=False)),
        (lambda m, M: m.grid_sample(M.ones(1, 1, 3, 3), M.zeros(1, 2, 2, 2),
                                    padding_mode="bogus", align_corners=False)),
        (lambda m, M: m.grid_sample(M.ones(1, 1, 3, 3), M.zeros(1, 2, 2, 2, dtype=M.float64),
                                    align_corners=False)),
        (lambda m, M: m.affine_grid(M.zeros(1, 3, 3), [1, 1, 4, 4], align_corners=False)),
        (lambda m, M: m.affine_grid(M.zeros(1, 2, 3), [1, 1, 4], align_corners=False)),
        (lambda m, M: m.affine_grid(M.zeros(1, 2, 3, dtype=M.int64), [1, 1, 4, 4],
                                    align_corners=False)),
        (lambda m, M: m.affine_grid(M.zeros(1, 2, 3), [1, 1, 0, 4], align_corners=False)),
    ]
    for call in cases:
        with pytest.raises(Exception) as want:
            call(TF, torch)
        with pytest.raises(type(want.value)):
            call(F, ot)
    with pytest.warns(UserWarning, match="align_corners"):
        F.grid_sample(ot.ones(1, 1, 3, 3), ot.zeros(1, 2, 2, 2))


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_paddle_grid_sample_affine_grid_match_paddle(mode, padding_mode, align):
    x = RNG.standard_normal((2, 3, 5, 4)).astype(np.float32)
    gr = RNG.uniform(-1.3, 1.3, (2, 6, 7, 2)).astype(np.float32)
    px, pg = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(gr, stop_gradient=False)
    ox, og = oar.to_tensor(x, stop_gradient=False), oar.to_tensor(gr, stop_gradient=False)
    want = paddle.nn.functional.grid_sample(px, pg, mode=mode, padding_mode=padding_mode,
                                            align_corners=align)
    got = oar.nn.functional.grid_sample(ox, og, mode=mode, padding_mode=padding_mode,
                                        align_corners=align)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    g = RNG.standard_normal(list(want.shape)).astype(np.float32)
    (want * paddle.to_tensor(g)).sum().backward()
    (got * oar.to_tensor(g)).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-5, atol=1e-5)
    if pg.grad is not None:
        np.testing.assert_allclose(og.grad.numpy(), pg.grad.numpy(), rtol=1e-5, atol=1e-5)
    th = RNG.standard_normal((2, 2, 3)).astype(np.float32)
    np.testing.assert_allclose(
        oar.nn.functional.affine_grid(oar.to_tensor(th), [2, 3, 5, 4], align).numpy(),
        paddle.nn.functional.affine_grid(paddle.to_tensor(th), [2, 3, 5, 4], align).numpy(),
        rtol=1e-5, atol=1e-6)
    # Paddle's default is align_corners=True
    np.testing.assert_allclose(
        oar.nn.functional.affine_grid(oar.to_tensor(th), [2, 3, 5, 4]).numpy(),
        paddle.nn.functional.affine_grid(paddle.to_tensor(th), [2, 3, 5, 4]).numpy(),
        rtol=1e-5, atol=1e-6)
