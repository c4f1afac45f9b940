"""The torch door's pooling, padding, convolution, embedding, dropout and indexing ops run
through PyTorch 2.13's own OpInfo samples (tests/reference/opinfo.py): every sample, in the
function / method / in-place spellings, must give torch's values and dtypes, and torch's
float64 gradients. Plus the corners the samples do not reach (NaN and -inf windows, double
backward through the index paddings, scatter_reduce ties), each against torch."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
opinfo = pytest.importorskip("tests.reference.opinfo")

import oar  # noqa: E402
import oar.torch as otorch  # noqa: E402

VARIANTS = ("function", "method", "inplace")

CLEAN = [
    "nn.functional.max_pool1d", "nn.functional.max_pool2d", "nn.functional.avg_pool1d",
    "nn.functional.avg_pool2d", "nn.functional.pad.constant", "nn.functional.pad.reflect",
    "nn.functional.pad.replicate", "nn.functional.pad.replicate_negative",
    "nn.functional.pad.circular", "nn.functional.conv1d", "nn.functional.conv2d",
    "nn.functional.linear", "mm", "masked_select", "nonzero", "take", "gather", "index_add",
    "scatter", "scatter_add", "scatter_reduce.sum", "scatter_reduce.prod",
    "scatter_reduce.mean", "scatter_reduce.amax", "scatter_reduce.amin", "index_select",
    "masked_fill",
]


def _assert_clean(findings):
    assert not findings, "\n".join(str(f)[:300] for f in findings[:20])


@pytest.mark.parametrize("name", CLEAN)
def test_opinfo_samples_match_torch(name):
    _assert_clean(opinfo.run_op(opinfo.OPS[name], variants=VARIANTS))


def test_embedding_opinfo_samples_match_torch(monkeypatch):
    # the OpInfo's op is `lambda weight, idx, **kw: F.embedding(idx, weight, **kw)`: oar's
    # function gets the same argument order
    orig = opinfo.oar_callable

    def callable_(op, variant):
        if variant == "function":
            return lambda w, i, **k: otorch.nn.functional.embedding(i, w, **k)
        return orig(op, variant)
    monkeypatch.setattr(opinfo, "oar_callable", callable_)
    _assert_clean(opinfo.run_op(opinfo.OPS["nn.functional.embedding"], variants=VARIANTS))


@pytest.mark.parametrize("name", ["nn.functional.dropout", "nn.functional.dropout2d"])
def test_dropout_opinfo_samples_match_torch(name, monkeypatch):
    # the OpInfo's op runs under wrapper_set_seed (torch.manual_seed(42) before the call):
    # oar.torch draws from the same seed
    orig = opinfo.oar_callable
    fname = name.split(".")[-1]

    def callable_(op, variant):
        if variant == "inplace":
            def fn(x, *a, **k):
                otorch.manual_seed(42)
                return getattr(otorch.nn.functional, fname)(x, *a, inplace=True, **k)
            return fn
        f = orig(op, variant)
        if f is None:
            return None

        def seeded(*a, **k):
            otorch.manual_seed(42)
            return f(*a, **k)
        return seeded
    monkeypatch.setattr(opinfo, "oar_callable", callable_)
    _assert_clean(opinfo.run_op(opinfo.OPS[name], variants=VARIANTS))


# ---------------------------------------------------------------- corners beyond the samples
def _pair(a, requires_grad=False):
    t = torch.tensor(a, requires_grad=requires_grad)
    o = otorch.tensor(np.array(a), requires_grad=requires_grad)
    return t, o


def _same(o, t):
    np.testing.assert_array_equal(np.asarray(o.detach().numpy()), t.detach().numpy())
    assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("kw", [
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=2, stride=1, padding=1, dilation=2),
    dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 1), ceil_mode=True),
])
def test_max_pool_nan_and_minus_inf_windows_as_torch(kw):
    # torch keeps the LAST NaN of a window and, in a window of -inf only, the first input
    # element (never a padding cell): both the indices and the gradient follow that choice
    a = np.random.default_rng(0).standard_normal((2, 2, 6, 7))
    a[0, 0, 1, 1] = a[0, 0, 1, 2] = np.nan
    a[0, 1, :3, :3] = -np.inf
    a[1, 0, 2, 2:5] = 1.5       # ties: the first in row-major order
    t, o = _pair(a, True)
    tv, ti = torch.nn.functional.max_pool2d(t, return_indices=True, **kw)
    ov, oi = otorch.nn.functional.max_pool2d(o, return_indices=True, **kw)
    _same(ov, tv)
    _same(oi, ti)
    g = np.random.default_rng(1).standard_normal(tuple(tv.shape))
    tv.backward(torch.tensor(g))
    ov.backward(otorch.tensor(g))
    # overlapping windows add in another order: equal to the last bits, zeros exactly
    np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-13, atol=0)


def test_integer_pooling_as_torch():
    a = np.array([[[[-5, 4, 7, -3, 2]]]], np.int64)
    t, o = _pair(a)
    for kw in (dict(kernel_size=(1, 2), ceil_mode=True),
               dict(kernel_size=(1, 2), ceil_mode=True, count_include_pad=False),
               dict(kernel_size=(1, 3), stride=(1, 2), padding=(0, 1), divisor_override=2)):
        _same(otorch.nn.functional.avg_pool2d(o, **kw), torch.nn.functional.avg_pool2d(t, **kw))
    _same(otorch.nn.functional.max_pool2d(o, (1, 2), ceil_mode=True),
          torch.nn.functional.max_pool2d(t, (1, 2), ceil_mode=True))


@pytest.mark.parametrize("mode,pad", [("reflect", (2, 1, 1, 2)), ("replicate", (3, -1, 0, 2)),
                                      ("circular", (-1, 2, 2, 1))])
def test_index_pad_double_backward_as_torch(mode, pad):
    # the backward is index_add in oar ops (Note [Index padding]): differentiable again
    a = np.random.default_rng(2).standard_normal((1, 2, 4, 5))
    t, o = _pair(a, True)
    ty = torch.nn.functional.pad(t, pad, mode=mode)
    oy = otorch.nn.functional.pad(o, pad, mode=mode)
    _same(oy, ty)
    w = np.random.default_rng(3).standard_normal(tuple(ty.shape))
    (tg,) = torch.autograd.grad((ty * ty * torch.tensor(w)).sum(), t, create_graph=True)
    (og,) = otorch.autograd.grad((oy * oy * otorch.tensor(w)).sum(), o, create_graph=True)
    np.testing.assert_allclose(og.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    (tgg,) = torch.autograd.grad(tg.sum(), t)
    (ogg,) = otorch.autograd.grad(og.sum(), o)
    np.testing.assert_allclose(ogg.numpy(), tgg.numpy(), rtol=1e-12)


@pytest.mark.parametrize("args,kw", [
    ((torch.ones(2, 3), (1, 1)), dict(mode="reflect", value=1.0)),       # value with a mode
    ((torch.ones(2, 3, 4, 5), (1, 1)), dict(mode="reflect")),            # 4-D, 1 dim padded
    ((torch.ones(1, 2, 3), (3, 0)), dict(mode="reflect")),               # pad >= size
    ((torch.ones(1, 2, 3), (4, 0)), dict(mode="circular")),              # wraps twice
])
def test_pad_mode_refusals_as_torch(args, kw):
    with pytest.raises(Exception) as te:
        torch.nn.functional.pad(*args, **kw)
    x = otorch.ones(*args[0].shape)
    with pytest.raises(type(te.value)):
        otorch.nn.functional.pad(x, args[1], **kw)


def test_grouped_conv_gradients_as_torch():
    rng = np.random.default_rng(4)
    x, w, b = (rng.standard_normal(s) for s in ((2, 6, 7, 7), (9, 2, 3, 2), (9,)))
    tx, ox = _pair(x, True)
    tw, ow = _pair(w, True)
    tb, ob = _pair(b, True)
    kw = dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=3)
    ty = torch.nn.functional.conv2d(tx, tw, tb, **kw)
    oy = otorch.nn.functional.conv2d(ox, ow, ob, **kw)
    np.testing.assert_allclose(oy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    g = rng.standard_normal(tuple(ty.shape))
    ty.backward(torch.tensor(g))
    oy.backward(otorch.tensor(g))
    for o, t in ((ox, tx), (ow, tw), (ob, tb)):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_embedding_max_norm_renormalises_weight_in_place_as_torch():
    rng = np.random.default_rng(5)
    w = rng.standard_normal((6, 4)) * 3
    idx = np.array([[0, 2, 2], [5, 0, 1]])
    tw, ow = _pair(w, True)
    ty = torch.nn.functional.embedding(torch.tensor(idx), tw, max_norm=1.5, norm_type=3.0,
                                       padding_idx=1, scale_grad_by_freq=True)
    oy = otorch.nn.functional.embedding(otorch.tensor(idx), ow, max_norm=1.5, norm_type=3.0,
                                        padding_idx=1, scale_grad_by_freq=True)
    np.testing.assert_allclose(ow.detach().numpy(), tw.detach().numpy(), rtol=1e-12)
    assert ow._version > 0
    g = rng.standard_normal(tuple(ty.shape))
    ty.backward(torch.tensor(g))
    oy.backward(otorch.tensor(g))
    np.testing.assert_allclose(ow.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_ties_and_zeros_gradients_as_torch(reduce, include_self):
    # ties (amax/amin share the gradient) and zeros (prod's single-zero rule): the cases
    # random samples miss (Note [scatter_reduce backward])
    s = np.array([[1.0, 0.0, 2.0], [3.0, 3.0, 0.0]])
    src = np.array([[3.0, 0.0, 2.0], [1.0, 3.0, 0.0], [0.0, 5.0, 2.0]])
    idx = np.array([[1, 0, 0], [1, 1, 1], [0, 0, 0]])
    ts, os_ = _pair(s, True)
    tsrc, osrc = _pair(src, True)
    ty = ts.scatter_reduce(0, torch.tensor(idx), tsrc, reduce, include_self=include_self)
    oy = os_.scatter_reduce(0, otorch.tensor(idx), osrc, reduce, include_self=include_self)
    np.testing.assert_allclose(oy.detach().numpy(), ty.detach().numpy())
    g = np.arange(6.0).reshape(2, 3) + 1
    ty.backward(torch.tensor(g))
    oy.backward(otorch.tensor(g))
    np.testing.assert_allclose(os_.grad.numpy(), ts.grad.numpy())
    np.testing.assert_allclose(osrc.grad.numpy(), tsrc.grad.numpy())


# ---------------------------------------------------------------- the Paddle door
def test_paddle_door_pooling_and_pad_as_paddle():
    paddle = pytest.importorskip("paddle")
    x = np.random.default_rng(6).standard_normal((1, 2, 5, 5)).astype(np.float32)
    pv, pm = paddle.nn.functional.max_pool2d(paddle.to_tensor(x), 3, stride=2, padding=1,
                                             return_mask=True, ceil_mode=True)
    ov, om = oar.nn.functional.max_pool2d(oar.to_tensor(x), 3, stride=2, padding=1,
                                          return_mask=True, ceil_mode=True)
    np.testing.assert_array_equal(ov.numpy(), pv.numpy())
    np.testing.assert_array_equal(om.numpy(), pm.numpy())
    assert om.numpy().dtype == pm.numpy().dtype == np.int32
    for mode in ("reflect", "replicate", "circular"):
        np.testing.assert_array_equal(
            oar.nn.functional.pad(oar.to_tensor(x), [1, 2, 2, 1], mode=mode).numpy(),
            paddle.nn.functional.pad(paddle.to_tensor(x), [1, 2, 2, 1], mode=mode).numpy())


# ---------------------------------------------------------------- layers over these ops
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [(1, 2), "same"])
def test_conv_layers_padding_mode_as_torch(mode, padding):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 6, 7)).astype(np.float32)
    for dims in (1, 2):
        tcls, ocls = ((torch.nn.Conv1d, otorch.nn.Conv1d) if dims == 1 else
                      (torch.nn.Conv2d, otorch.nn.Conv2d))
        pad = padding if isinstance(padding, str) else padding[:dims]
        torch.manual_seed(0)
        tl = tcls(4, 6, (3, 4)[:dims] if dims == 2 else 4, padding=pad, padding_mode=mode,
                  groups=2)
        ol = ocls(4, 6, (3, 4)[:dims] if dims == 2 else 4, padding=pad, padding_mode=mode,
                  groups=2)
        ol.load_state_dict({k: otorch.tensor(v.detach().numpy()) for k, v in
                            tl.state_dict().items()})
        xi = x[:, :, 0] if dims == 1 else x
        tx = torch.tensor(xi, requires_grad=True)
        ox = otorch.tensor(xi, requires_grad=True)
        ty, oy = tl(tx), ol(ox)
        np.testing.assert_allclose(oy.detach().numpy(), ty.detach().numpy(), rtol=1e-5,
                                   atol=1e-5)
        ty.sum().backward()
        oy.sum().backward()
        np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_max_pool_layer_return_indices_as_torch():
    x = np.random.default_rng(8).standard_normal((2, 3, 7, 6))
    tv, ti = torch.nn.MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True)(torch.tensor(x))
    ov, oi = otorch.nn.MaxPool2d(3, 2, 1, ceil_mode=True, return_indices=True)(otorch.tensor(x))
    _same(ov, tv)
    _same(oi, ti)
