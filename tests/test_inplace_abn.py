"""InPlaceABN (issue 12): batch norm + an invertible activation in place, saving only the
output (Note [In-place activated batch norm]). Expected values come from PyTorch 2.13's
BatchNorm + LeakyReLU / ELU computed here, from finite differences, or from shapes."""
import gc

import numpy as np
import pytest

import oar
import oar.torch as ot
from oar.autograd import gradcheck
from oar.autograd.errors import InplaceLeafError, SavedTensorModifiedError
from oar.nn.abn import inplace_abn

torch = pytest.importorskip("torch")
TF = torch.nn.functional

ACTS = [("leaky_relu", 0.01), ("leaky_relu", 0.3), ("elu", 1.0), ("elu", 0.5),
        ("identity", 0.01)]
SHAPES = [(6, 3), (5, 3, 7), (4, 3, 5, 6)]


def _torch_act(act, param):
    return {"leaky_relu": lambda t: TF.leaky_relu(t, param),
            "elu": lambda t: TF.elu(t, param), "identity": lambda t: t}[act]


def _tol(dtype):
    return dict(rtol=1e-10, atol=1e-10) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-5)


def _pair(c, act, param, dtype, momentum=0.1, rng=None, ndim=4):
    """An oar.torch InPlaceABN and a torch BatchNorm with the same random gamma / beta."""
    rng = rng or np.random.default_rng(0)
    w = rng.uniform(0.5, 1.5, c)
    b = rng.uniform(-0.5, 0.5, c)
    m = ot.nn.InPlaceABN(c, momentum=momentum, activation=act, activation_param=param)
    bn = (torch.nn.BatchNorm2d if ndim == 4 else torch.nn.BatchNorm1d)(c, momentum=momentum)
    if dtype == np.float64:
        m, bn = m.double(), bn.double()
    with ot.no_grad():
        m.weight.copy_(ot.tensor(w))
        m.bias.copy_(ot.tensor(b))
    with torch.no_grad():
        bn.weight.copy_(torch.tensor(w))
        bn.bias.copy_(torch.tensor(b))
    return m, bn


def _step(m, bn, act, param, xn, gn):
    """One forward + backward of both; returns the four (oar, torch) pairs to compare."""
    leaf = ot.tensor(xn, requires_grad=True)
    h = leaf * 1                      # a non-leaf, as a conv output is
    z = m(h)
    assert z is h
    (z * ot.tensor(gn)).sum().backward()
    tx = torch.tensor(xn, requires_grad=True)
    ty = _torch_act(act, param)(bn(tx))
    (ty * torch.tensor(gn)).sum().backward()
    return [(z.detach().numpy(), ty.detach().numpy()), (leaf.grad.numpy(), tx.grad.numpy()),
            (m.weight.grad.numpy(), bn.weight.grad.numpy()),
            (m.bias.grad.numpy(), bn.bias.grad.numpy())]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("act,param", ACTS)
def test_matches_torch_batchnorm_plus_activation(act, param, shape, dtype):
    """Outputs, input / weight / bias gradients and running statistics after several steps
    equal torch's BatchNorm + the activation, in training and in eval mode."""
    rng = np.random.default_rng(1)
    m, bn = _pair(shape[1], act, param, dtype, rng=rng, ndim=len(shape))
    for step in range(3):
        xn = (rng.standard_normal(shape) * 2 + 0.7).astype(dtype)
        gn = rng.standard_normal(shape).astype(dtype)
        m.zero_grad()
        bn.zero_grad()
        for got, want in _step(m, bn, act, param, xn, gn):
            np.testing.assert_allclose(got, want, **_tol(dtype))
        np.testing.assert_allclose(m.running_mean.numpy(), bn.running_mean.numpy(), **_tol(dtype))
        np.testing.assert_allclose(m.running_var.numpy(), bn.running_var.numpy(), **_tol(dtype))
    assert int(m.num_batches_tracked) == int(bn.num_batches_tracked) == 3
    m.eval()
    bn.eval()
    m.zero_grad()
    bn.zero_grad()
    xn = rng.standard_normal(shape).astype(dtype)
    for got, want in _step(m, bn, act, param, xn, rng.standard_normal(shape).astype(dtype)):
        np.testing.assert_allclose(got, want, **_tol(dtype))


@pytest.mark.parametrize("act,param", ACTS)
@pytest.mark.parametrize("training", [True, False])
def test_gradcheck_float64(act, param, training):
    rng = np.random.default_rng(2)
    x = oar.to_tensor(rng.standard_normal((4, 3, 2, 3)), stop_gradient=False)
    w = oar.to_tensor(rng.uniform(0.5, 1.5, 3), stop_gradient=False)
    b = oar.to_tensor(rng.uniform(-0.5, 0.5, 3), stop_gradient=False)
    rm = oar.to_tensor(rng.standard_normal(3))
    rv = oar.to_tensor(rng.uniform(0.5, 2, 3))

    def fn(x, w, b):
        return inplace_abn(x * 1, w, b, None if training else rm, None if training else rv,
                           training, 0.1, 1e-5, act, param)
    assert gradcheck(fn, [x, w, b], atol=1e-6, rtol=1e-5)


# ------------------------------------------------------------------ in place, both doors
def test_result_is_the_input_and_version_bumps_once():
    m = ot.nn.InPlaceABN(3)
    leaf = ot.randn(4, 3, 5, requires_grad=True)
    h = leaf * 2
    ptr, v = h.data_ptr(), h._version
    z = m(h)
    assert z is h and z.data_ptr() == ptr and z._version == v + 1
    assert z.grad_fn.name() == "InPlaceABNBackward0"
    with ot.no_grad():
        x = ot.randn(4, 3, 5)
        v = x._version
        assert m(x) is x and x._version == v + 1
    m.eval()
    x = ot.randn(4, 3, 5)
    assert m(x) is x and x._version == 1


def test_paddle_door_momentum_and_spellings():
    """InPlaceABN2D keeps Paddle's momentum (running = m * running + (1 - m) * batch), the
    core InPlaceABN PyTorch's; act / act_alpha are Paddle's spellings."""
    rng = np.random.default_rng(3)
    xn = rng.standard_normal((4, 2, 3, 3)).astype(np.float32)
    for layer in (oar.nn.InPlaceABN2D(2, momentum=0.75, act="elu", act_alpha=0.5),
                  oar.nn.InPlaceABN(2, momentum=0.25, activation="elu", activation_param=0.5)):
        bn = torch.nn.BatchNorm2d(2, momentum=0.25)
        for _ in range(2):
            y = layer(oar.to_tensor(xn))
            ty = TF.elu(bn(torch.tensor(xn)), 0.5)
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(layer.running_mean.numpy(), bn.running_mean.numpy(), rtol=1e-6,
                                   atol=1e-7)
        np.testing.assert_allclose(layer.running_var.numpy(), bn.running_var.numpy(), rtol=1e-6)
    assert oar.nn.InPlaceABN2D(2, act="elu", act_alpha=0.5).activation == "elu"


def test_paddle_door_output_and_grads_match_torch():
    rng = np.random.default_rng(4)
    xn = (rng.standard_normal((4, 3, 3, 3)) * 3 - 1).astype(np.float32)
    gn = rng.standard_normal(xn.shape).astype(np.float32)
    layer = oar.nn.InPlaceABN2D(3, activation_param=0.1)
    leaf = oar.to_tensor(xn, stop_gradient=False)
    z = layer(leaf * 1)
    (z * oar.to_tensor(gn)).sum().backward()
    bn = torch.nn.BatchNorm2d(3)
    tx = torch.tensor(xn, requires_grad=True)
    ty = TF.leaky_relu(bn(tx), 0.1)
    (ty * torch.tensor(gn)).sum().backward()
    for got, want in [(z.numpy(), ty.detach().numpy()), (leaf.grad.numpy(), tx.grad.numpy()),
                      (layer.weight.grad.numpy(), bn.weight.grad.numpy()),
                      (layer.bias.grad.numpy(), bn.bias.grad.numpy())]:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_state_dict_keys_match_each_framework():
    assert list(ot.nn.InPlaceABN(4).state_dict()) == list(torch.nn.BatchNorm2d(4).state_dict())
    paddle = pytest.importorskip("paddle")
    assert (list(oar.nn.InPlaceABN2D(4).state_dict())
            == list(paddle.nn.BatchNorm2D(4).state_dict()))


def test_torch_door_cumulative_momentum_none():
    rng = np.random.default_rng(5)
    m = ot.nn.InPlaceABN(2, momentum=None, activation="identity")
    bn = torch.nn.BatchNorm1d(2, momentum=None)
    for _ in range(3):
        xn = rng.standard_normal((5, 2, 3))
        m(ot.tensor(xn).float())
        bn(torch.tensor(xn).float())
    np.testing.assert_allclose(m.running_mean.numpy(), bn.running_mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(m.running_var.numpy(), bn.running_var.numpy(), rtol=1e-6)


def test_view_of_a_non_leaf_rewrites_the_base_history():
    """In place on a channel slice: the base's gradient routes through CopySlices, as
    torch's out-of-place reference computes it."""
    rng = np.random.default_rng(6)
    bn_np = rng.standard_normal((4, 5, 3))
    gn = rng.standard_normal((4, 5, 3))
    m = ot.nn.InPlaceABN(2, activation_param=0.2).double()
    leaf = ot.tensor(bn_np, requires_grad=True)
    base = leaf * 1
    out = m(base[:, 1:3])
    assert out.data_ptr() == base[:, 1:3].data_ptr()
    (base * ot.tensor(gn)).sum().backward()
    tbn = torch.nn.BatchNorm1d(2).double()
    tl = torch.tensor(bn_np, requires_grad=True)
    tb = tl * 1
    tb2 = tb.clone()
    tb2[:, 1:3] = TF.leaky_relu(tbn(tb[:, 1:3]), 0.2)
    (tb2 * torch.tensor(gn)).sum().backward()
    np.testing.assert_allclose(base.detach().numpy(), tb2.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(leaf.grad.numpy(), tl.grad.numpy(), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ the Inplace rules
def test_leaf_input_is_refused_before_anything_changes():
    m = ot.nn.InPlaceABN(3)
    x = ot.randn(4, 3, requires_grad=True)
    before = x.detach().numpy().copy()
    stats = (m.running_mean.numpy().copy(), m.running_var.numpy().copy())
    with pytest.raises(InplaceLeafError, match="clone") as e:
        m(x)
    assert isinstance(e.value, RuntimeError) and isinstance(e.value, ValueError)
    assert "InPlaceABN" in str(e.value)
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x._version == 0 and int(m.num_batches_tracked) == 0
    np.testing.assert_array_equal(m.running_mean.numpy(), stats[0])
    np.testing.assert_array_equal(m.running_var.numpy(), stats[1])
    y = m(x.clone())                  # the fix the message gives
    y.sum().backward()
    assert x.grad is not None


def test_input_saved_by_another_node_is_caught_at_backward():
    m = ot.nn.InPlaceABN(3)
    leaf = ot.randn(4, 3, requires_grad=True)
    e = leaf.exp()                    # ExpBackward0 saves its output e
    z = m(e)
    with pytest.raises(SavedTensorModifiedError, match="inplace_abn_") as err:
        z.sum().backward()
    assert "clone" in str(err.value) and "ExpBackward0" in str(err.value)
    z = m(leaf.exp().clone())         # the fix: a tensor nobody saved
    z.sum().backward()


@pytest.mark.parametrize("act,param,msg", [
    ("relu", 0.0, "cannot be inverted"), ("leaky_relu", 0.0, "slope of 0 is ReLU"),
    ("leaky_relu", -0.1, "> 0"), ("elu", 0.0, "> 0"), ("gelu", 0.1, "cannot be inverted"),
    ("sigmoidish", 0.1, "unknown activation")])
def test_non_invertible_activations_are_refused(act, param, msg):
    for make in (lambda: ot.nn.InPlaceABN(3, activation=act, activation_param=param),
                 lambda: oar.nn.InPlaceABN2D(3, activation=act, activation_param=param)):
        with pytest.raises(ValueError, match=msg) as e:
            make()
        assert isinstance(e.value, RuntimeError)
    with pytest.raises(ValueError, match="leaky_relu"):
        ot.nn.InPlaceABN(3, activation="relu")


def test_bad_inputs_change_nothing():
    m = ot.nn.InPlaceABN(3)
    for x, exc in [(ot.randn(4, 2, 5), ValueError), (ot.ones(4, 3, dtype=ot.int64), TypeError),
                   (ot.randn(1, 3), ValueError)]:
        before = x.numpy().copy()
        with pytest.raises(exc):
            m(x)
        np.testing.assert_array_equal(x.numpy(), before)
        assert x._version == 0 and int(m.num_batches_tracked) == 0


def test_second_backward_and_create_graph():
    m = ot.nn.InPlaceABN(3)
    leaf = ot.randn(4, 3, requires_grad=True)
    z = m(leaf * 1)
    z.sum().backward(retain_graph=True)
    g1 = leaf.grad.clone()
    z.sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 2 * g1.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="second time"):
        z.sum().backward()
    z = m(leaf * 1)
    with pytest.raises(NotImplementedError, match="create_graph"):
        ot.autograd.grad(z.sum(), leaf, create_graph=True)


# ------------------------------------------------------------------ conditioning
@pytest.mark.parametrize("act,param", [("leaky_relu", 0.1), ("elu", 1.0), ("identity", 0.1)])
def test_zero_and_tiny_gamma_keep_a_copy_and_stay_exact(act, param):
    """Note [InPlaceABN conditioning]: gamma = 0, a tiny gamma under a large beta, and an
    elu channel deep in its flat tail keep that channel's x_hat (N*H*W*8 bytes each); the
    gradients equal torch's, gamma's included."""
    rng = np.random.default_rng(7)
    n, c, h, w = 4, 5, 3, 2
    xn = rng.standard_normal((n, c, h, w))
    gn = rng.standard_normal(xn.shape)
    gamma = np.array([0.0, 1e-7, 1.0, 0.8, 1.2])
    beta = np.array([0.3, 0.5, 0.0, -0.2, -30.0 if act == "elu" else 0.1])
    ill = 3 if act == "elu" else 2          # channels 0, 1 (and 4: elu's tail)
    m = ot.nn.InPlaceABN(c, activation=act, activation_param=param).double()
    with ot.no_grad():
        m.weight.copy_(ot.tensor(gamma))
        m.bias.copy_(ot.tensor(beta))
    leaf = ot.tensor(xn, requires_grad=True)
    h_ = leaf * 1
    gc.collect()
    before = oar.device.memory_allocated()
    z = m(h_)
    # invstd (c * 8) and the kept x_hat of the ill-conditioned channels are saved
    assert oar.device.memory_allocated() - before == c * 8 + ill * n * h * w * 8
    (z * ot.tensor(gn)).sum().backward()
    bn = torch.nn.BatchNorm2d(c).double()
    with torch.no_grad():
        bn.weight.copy_(torch.tensor(gamma))
        bn.bias.copy_(torch.tensor(beta))
    tx = torch.tensor(xn, requires_grad=True)
    ty = _torch_act(act, param)(bn(tx))
    (ty * torch.tensor(gn)).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(m.weight.grad.numpy(), bn.weight.grad.numpy(), rtol=1e-9,
                               atol=1e-10)
    np.testing.assert_allclose(m.bias.grad.numpy(), bn.bias.grad.numpy(), rtol=1e-9, atol=1e-10)


# ------------------------------------------------------------------ memory
def _alloc():
    return oar.device.memory_allocated()


def _conv_block(abn, n=8, cin=2, c=6, c2=4, hw=5):
    oar.seed(0)
    conv1 = oar.nn.Conv2D(cin, c, 3, padding=1)
    mid = ([oar.nn.InPlaceABN2D(c)] if abn
           else [oar.nn.BatchNorm2D(c), oar.nn.LeakyReLU(0.01)])
    conv2 = oar.nn.Conv2D(c, c2, 3, padding=1)
    net = oar.nn.Sequential(conv1, *mid, conv2)
    x = oar.randn([n, cin, hw, hw])
    gc.collect()
    before = _alloc()
    out = net(x)
    return _alloc() - before, out


def test_saved_bytes_conv_abn_conv_vs_conv_bn_act_conv():
    n, c, c2, hw = 8, 6, 4, 5
    act = n * c * hw * hw * 4          # one float32 activation of the middle layer
    out = n * c2 * hw * hw * 4         # conv2's output
    # InPlaceABN: conv1's output, overwritten with the result (saved by InPlaceABN as its
    # output and by conv2 as its input: one buffer), invstd (c floats), conv2's output.
    got, _ = _conv_block(True)
    assert got == act + c * 4 + out
    # BatchNorm + LeakyReLU (batch_norm is one op, Note [BatchNorm op]): conv1's output
    # (saved by BatchNorm as its input), the batch mean and invstd (c floats each), the
    # activation's output (saved by it and by conv2), conv2's output:
    # 2 * act + 2 * c * 4 + out.
    got, _ = _conv_block(False)
    assert got == 2 * act + 2 * c * 4 + out


def _digits_net(abn):
    def block(cin, cout):
        conv = oar.nn.Conv2D(cin, cout, 3, padding=1)
        if abn:
            return [conv, oar.nn.InPlaceABN2D(cout, activation_param=0.01)]
        return [conv, oar.nn.BatchNorm2D(cout), oar.nn.LeakyReLU(0.01)]
    return oar.nn.Sequential(*block(1, 16), oar.nn.MaxPool2D(2), *block(16, 32),
                             oar.nn.MaxPool2D(2), oar.nn.Flatten(), oar.nn.Linear(128, 64),
                             oar.nn.LeakyReLU(0.01), oar.nn.Linear(64, 10))


def test_training_step_peak_of_a_digits_network_is_below_0_6x():
    """The issue's target, by exact accounting: a Conv-BN-act network on 8x8 digits-sized
    input, one training step (forward + backward), peak bytes above the resting state."""
    rng = np.random.default_rng(8)
    x = oar.to_tensor(rng.standard_normal((64, 1, 8, 8)).astype(np.float32))
    y = oar.to_tensor(rng.integers(0, 10, 64))
    peaks = {}
    for abn in (False, True):
        oar.seed(0)
        net = _digits_net(abn)
        for _ in range(2):
            net.clear_gradients()
            gc.collect()
            base = _alloc()
            oar.device.reset_max_memory_allocated()
            oar.nn.functional.cross_entropy(net(x), y).backward()
            peaks[abn] = oar.device.max_memory_allocated() - base
    assert peaks[True] <= 0.6 * peaks[False], peaks


def test_elu_tail_in_float32_keeps_the_channel_instead_of_nan():
    """Where float32 elu saturates (z == -alpha exactly, y below about -17), log1p(z / alpha)
    is -inf: without the kept copy the gradients would be NaN (Note [InPlaceABN
    conditioning]). With it they equal torch's float32 BatchNorm + ELU."""
    rng = np.random.default_rng(9)
    xn = rng.standard_normal((8, 3, 4, 4)).astype(np.float32)
    gn = rng.standard_normal(xn.shape).astype(np.float32)
    gamma = np.array([8.0, 1.0, 1.0], np.float32)
    beta = np.array([-6.0, 0.0, -1.0], np.float32)
    m = ot.nn.InPlaceABN(3, activation="elu", activation_param=1.0)
    with ot.no_grad():
        m.weight.copy_(ot.tensor(gamma))
        m.bias.copy_(ot.tensor(beta))
    leaf = ot.tensor(xn, requires_grad=True)
    z = m(leaf * 1)
    assert (z.detach().numpy()[:, 0] == -1.0).any()      # saturated outputs exist
    (z * ot.tensor(gn)).sum().backward()
    bn = torch.nn.BatchNorm2d(3)
    with torch.no_grad():
        bn.weight.copy_(torch.tensor(gamma))
        bn.bias.copy_(torch.tensor(beta))
    tx = torch.tensor(xn, requires_grad=True)
    (TF.elu(bn(tx), 1.0) * torch.tensor(gn)).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=2e-5)
    np.testing.assert_allclose(m.weight.grad.numpy(), bn.weight.grad.numpy(), rtol=1e-5,
                               atol=1e-5)
