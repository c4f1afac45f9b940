"""Transposed convolution (Note [Transposed conv is conv's adjoint]): F.conv_transpose1d/2d
and nn.ConvTranspose1d/2d in the torch door against torch 2.13 (values, gradients of input,
weight and bias, node name, init, repr, output_size), float64 gradcheck against finite
differences, and the Paddle door's conv1d/2d_transpose and Conv1D/2DTranspose against paddle
3.3.1."""
import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.torch.autograd import gradcheck

torch = pytest.importorskip("torch")

CASES = [   # (nd, input shape, weight shape, kwargs)
    (2, (2, 4, 5, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0),
                                         dilation=(1, 2))),
    (2, (2, 4, 4, 5), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
    (2, (1, 2, 3, 3), (2, 5, 2, 2), dict()),
    (2, (3, 4, 4), (3, 2, 3, 3), dict(stride=1, padding=2, output_padding=1, dilation=2)),  # unbatched; op < dilation
    (1, (2, 4, 7), (4, 3, 3), dict(stride=3, padding=1, output_padding=2, groups=2, dilation=2)),
    (1, (3, 6), (3, 2, 4), dict(stride=2)),
]
IDS = [f"{nd}d-{i}" for i, (nd, *_) in enumerate(CASES)]


def _noncontig(a):
    """The same values as a, laid out with a reversed last axis (a negative-stride view)."""
    return np.ascontiguousarray(a[..., ::-1])[..., ::-1]


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values_and_gradients_match_torch(case, dtype, tol):
    nd, xs, ws, kw = case
    rng = np.random.default_rng(1)
    cout = ws[1] * kw.get("groups", 1)
    x, w, b = (rng.standard_normal(s).astype(dtype) for s in (xs, ws, (cout,)))
    tf = getattr(torch.nn.functional, f"conv_transpose{nd}d")
    of = getattr(otorch.nn.functional, f"conv_transpose{nd}d")
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    expect = tf(tx, tw, tb, **kw)
    g = rng.standard_normal(tuple(expect.shape)).astype(dtype)
    expect.backward(torch.tensor(g))
    # non-contiguous operands: a transposed-back view of the input, a negative-stride weight
    ox = otorch.tensor(np.ascontiguousarray(np.swapaxes(x, 0, -1))).transpose(0, -1)
    ox = ox.detach().requires_grad_()
    ow = otorch.tensor(_noncontig(w)).requires_grad_()
    ob = otorch.tensor(b).requires_grad_()
    assert not ox.is_contiguous()
    got = of(ox, ow, ob, **kw)
    if len(xs) == nd + 2:   # (an unbatched input ends in a squeeze here; torch hides it)
        assert got.grad_fn.name() == expect.grad_fn.name() == "ConvolutionBackward0"
    assert got.dtype == otorch.float64 if dtype == np.float64 else got.dtype == otorch.float32
    np.testing.assert_allclose(got.detach().numpy(), expect.detach().numpy(), rtol=tol, atol=tol)
    got.backward(otorch.tensor(g))
    for o, t in ((ox, tx), (ow, tw), (ob, tb)):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck_float64(case):
    nd, xs, ws, kw = case
    rng = np.random.default_rng(2)
    cout = ws[1] * kw.get("groups", 1)
    args = [otorch.tensor(rng.standard_normal(s)).requires_grad_() for s in (xs, ws, (cout,))]
    of = getattr(otorch.nn.functional, f"conv_transpose{nd}d")
    assert gradcheck(lambda x, w, b: of(x, w, b, **kw), args)
    # without bias, and with only the weight needing a gradient
    args[0].requires_grad_(False)
    assert gradcheck(lambda x, w: of(x, w, None, **kw), args[:2])


def test_only_some_inputs_need_gradients():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 3, 4, 4)), rng.standard_normal((3, 2, 3, 3))
    ox, ow = otorch.tensor(x).requires_grad_(), otorch.tensor(w)
    tx = torch.tensor(x, requires_grad=True)
    otorch.nn.functional.conv_transpose2d(ox, ow, stride=2).sum().backward()
    torch.nn.functional.conv_transpose2d(tx, torch.tensor(w), stride=2).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    assert ow.grad is None


@pytest.mark.parametrize("nd,args,kw", [
    (2, (4, 6, 3), dict(stride=2)),
    (2, (4, 6, (3, 2)), dict(stride=(2, 1), padding=1, output_padding=(1, 0), groups=2,
                             bias=False, dilation=(1, 2))),
    (1, (4, 6, 3), dict(stride=2, padding=1)),
    (1, (2, 4, 5), dict(output_padding=1, stride=2, groups=2)),
])
def test_module_init_repr_and_forward_match_torch(nd, args, kw):
    cls = f"ConvTranspose{nd}d"
    torch.manual_seed(5)
    otorch.manual_seed(5)
    tm, om = getattr(torch.nn, cls)(*args, **kw), getattr(otorch.nn, cls)(*args, **kw)
    assert repr(om) == repr(tm)
    assert om.transposed is True and om.output_padding == tm.output_padding
    for name, p in tm.named_parameters():   # the same draws (kaiming a=sqrt(5), fan of dim 1)
        np.testing.assert_allclose(dict(om.named_parameters())[name].detach().numpy(),
                                   p.detach().numpy(), rtol=1e-6)
    x = np.random.default_rng(6).standard_normal((2, args[0]) + (5,) * nd).astype(np.float32)
    np.testing.assert_allclose(om(otorch.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    state = {k: otorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    om.load_state_dict(state)


def test_module_output_size():
    torch.manual_seed(0)
    tm = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    om = otorch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    om.load_state_dict({k: otorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4)).astype(np.float32)
    for size in ([8, 8], [1, 2, 7, 8], (8, 7)):
        want = tm(torch.tensor(x), output_size=size)
        got = om(otorch.tensor(x), output_size=size)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="valid sizes range from"):
        om(otorch.tensor(x), output_size=[9, 9])
    with pytest.raises(ValueError):
        tm(torch.tensor(x), output_size=[9, 9])


@pytest.mark.parametrize("call,match", [
    (lambda F, t: F.conv_transpose2d(t.ones(1, 3, 4, 4), t.ones(4, 2, 3, 3)), "channels"),
    (lambda F, t: F.conv_transpose2d(t.ones(1, 4, 4, 4), t.ones(4, 2, 3, 3), groups=3),
     "divisible"),
    (lambda F, t: F.conv_transpose2d(t.ones(1, 4, 4, 4), t.ones(4, 2, 3, 3), stride=2,
                                     output_padding=2), "output padding"),
    (lambda F, t: F.conv_transpose2d(t.ones(1, 4, 1, 1), t.ones(4, 2, 1, 1), padding=1),
     "too small"),
    (lambda F, t: F.conv_transpose1d(t.ones(1, 4, 4), t.ones(4, 2, 3, 3)), "3-D|weight"),
    (lambda F, t: F.conv_transpose2d(t.ones(1, 4, 4, 4), t.ones(4, 2, 3, 3), t.ones(3)),
     "bias"),
])
def test_bad_inputs_raise_like_torch(call, match):
    with pytest.raises(RuntimeError):
        call(torch.nn.functional, torch)
    with pytest.raises(RuntimeError, match=match):
        call(otorch.nn.functional, otorch)


# ------------------------------------------------------------------ the Paddle door
paddle = pytest.importorskip("paddle")


@pytest.mark.parametrize("nd,xs,ws,kw", [
    (2, (2, 4, 5, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0),
                                         dilation=(1, 2))),
    (2, (2, 4, 4, 5), (4, 3, 3, 3), dict(stride=2, padding=1, groups=2, output_size=[8, 10])),
    (1, (2, 4, 7), (4, 3, 3), dict(stride=3, padding=1, output_padding=2, groups=2)),
])
def test_paddle_functional_matches_paddle(nd, xs, ws, kw):
    rng = np.random.default_rng(4)
    cout = ws[1] * kw.get("groups", 1)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in (xs, ws, (cout,)))
    name = f"conv{nd}d_transpose"
    want = getattr(paddle.nn.functional, name)(*(paddle.to_tensor(a) for a in (x, w, b)), **kw)
    got = getattr(oar.nn.functional, name)(*(oar.to_tensor(a) for a in (x, w, b)), **kw)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("nd,args,kw", [
    (2, (4, 6, 3), dict(stride=2)),
    (2, (4, 6, 3), dict(padding=1, output_padding=1, stride=2, dilation=2, groups=2)),
    (1, (4, 6, 3), dict(stride=2, padding=1)),
])
def test_paddle_layer_matches_paddle(nd, args, kw):
    name = f"Conv{nd}DTranspose"
    pm, om = getattr(paddle.nn, name)(*args, **kw), getattr(oar.nn, name)(*args, **kw)
    assert repr(om) == repr(pm)
    assert list(om.weight.shape) == list(pm.weight.shape)
    om.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in pm.state_dict().items()})
    x = np.random.default_rng(7).standard_normal((2, args[0]) + (5,) * nd).astype(np.float32)
    np.testing.assert_allclose(om(oar.to_tensor(x)).numpy(), pm(paddle.to_tensor(x)).numpy(),
                               rtol=1e-5, atol=1e-5)
    size = [12] * nd if kw.get("stride") == 2 and "dilation" not in kw and "padding" not in kw \
        else None
    if size:
        np.testing.assert_allclose(om(oar.to_tensor(x), output_size=size).numpy(),
                                   pm(paddle.to_tensor(x), output_size=size).numpy(),
                                   rtol=1e-5, atol=1e-5)
