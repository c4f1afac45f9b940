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

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

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


def test_training_step_peak_of_the_main_job_network_is_below_0_6x():
    """The target, by exact accounting, on the network it was set on (the main job's
    Conv-BN-LeakyReLU network, `python -m oar train`, bench/run.py): one training step of a
    64-image batch, peak bytes above the resting state, InPlaceABN against BatchNorm +
    LeakyReLU, both with their lean backwards (Note [Overwriting a dead saved output], Note
    [Backward into the incoming gradient]). On a smaller two-block network the MaxPool
    backward transients, the same in both, dominate both peaks and the ratio is about 0.65."""
    from oar.train import make_model, step_memory
    rng = np.random.default_rng(8)
    xb = rng.standard_normal((64, 64)).astype(np.float32)
    yb = rng.integers(0, 10, 64)
    peaks = {}
    for variant in ("bn", "abn"):
        oar.seed(0)
        gc.collect()
        peaks[variant] = step_memory(make_model("cnn", variant), "cnn", xb, yb)[0]
    assert peaks["abn"] <= 0.6 * peaks["bn"], peaks


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


# ------------------------------------------------------------------ backward in place
# Note [InPlaceABN backward in place] and Note [Overwriting a dead saved output]: the
# backward recovers x_hat over the saved output z only when z is dead, and writes dy / dx
# over the incoming gradient only when the engine owns it. Each test below keeps one
# condition from holding; overwriting anyway would change what the test reads afterwards.
def _abn_case(dtype=np.float64, act="leaky_relu", param=0.1, shape=(4, 3, 5, 6), seed=11):
    """An InPlaceABN (oar.torch door) and torch's BatchNorm2d + the activation with the same
    gamma / beta, an input and an upstream gradient."""
    rng = np.random.default_rng(seed)
    m, bn = _pair(shape[1], act, param, dtype, rng=rng)
    xn = (rng.standard_normal(shape) * 2 + 0.3).astype(dtype)
    gn = rng.standard_normal(shape).astype(dtype)
    tx = torch.tensor(xn, requires_grad=True)
    tz = _torch_act(act, param)(bn(tx))
    (tz * torch.tensor(gn)).sum().backward()
    want = {"z": tz.detach().numpy(), "x": tx.grad.numpy(), "w": bn.weight.grad.numpy(),
            "b": bn.bias.grad.numpy()}
    return m, xn, gn, want


def _check_grads(m, leaf, want, dtype=np.float64):
    np.testing.assert_allclose(leaf.grad.numpy(), want["x"], **_tol(dtype))
    np.testing.assert_allclose(m.weight.grad.numpy(), want["w"], **_tol(dtype))
    np.testing.assert_allclose(m.bias.grad.numpy(), want["b"], **_tol(dtype))


@pytest.mark.parametrize("act,param", [("leaky_relu", 0.1), ("elu", 1.0), ("identity", 0.0)])
def test_retain_graph_keeps_the_saved_output_for_a_second_backward(act, param):
    """Condition 1: with retain_graph=True the node keeps z; the second backward must read
    z's forward values (and the first must not have overwritten them)."""
    m, xn, gn, want = _abn_case(act=act, param=param)
    leaf = ot.tensor(xn, requires_grad=True)
    loss = (m(leaf * 1) * ot.tensor(gn)).sum()     # z is held by InPlaceABN's node only
    loss.backward(retain_graph=True)
    _check_grads(m, leaf, want)
    first = leaf.grad.numpy().copy()
    leaf.grad = None
    m.zero_grad()
    loss.backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), first)
    _check_grads(m, leaf, want)


def test_output_held_by_the_user_keeps_its_values():
    """Condition 3: the user holds z (the usual `z = layer(x)`); after backward it still
    reads act(batch_norm(x))."""
    m, xn, gn, want = _abn_case()
    leaf = ot.tensor(xn, requires_grad=True)
    z = m(leaf * 1)
    (z * ot.tensor(gn)).sum().backward()
    np.testing.assert_allclose(z.detach().numpy(), want["z"], **_tol(np.float64))
    _check_grads(m, leaf, want)


@pytest.mark.parametrize("keep", ["view", "detached", "numpy", "saved_result"])
def test_anything_sharing_the_output_keeps_its_values(keep):
    """Conditions 3 and 4: a view of z, a detached alias, a NumPy view (which holds z's
    buffer, not its Storage) or grad_fn._saved_result outlive z itself; after backward
    they still read z's values."""
    m, xn, gn, want = _abn_case()
    leaf = ot.tensor(xn, requires_grad=True)
    z = m(leaf * 1)
    kept, expect = {
        "view": lambda: (z[1:], want["z"][1:]),
        "detached": lambda: (z.detach(), want["z"]),
        "numpy": lambda: (z.detach().numpy(), want["z"]),
        "saved_result": lambda: (z.grad_fn._saved_result.detach(), want["z"]),
    }[keep]()
    loss = (z * ot.tensor(gn)).sum()
    del z
    loss.backward()
    got = kept if isinstance(kept, np.ndarray) else kept.detach().numpy()
    np.testing.assert_allclose(got, expect, **_tol(np.float64))
    _check_grads(m, leaf, want)


def test_a_second_consumer_outside_this_backward_reads_the_output():
    """Condition 3: `other = z * w` saved z (MulBackward0 keeps it for w's gradient) and is
    not part of this backward; the gradient of `other` taken afterwards is z's values."""
    m, xn, gn, want = _abn_case()
    leaf = ot.tensor(xn, requires_grad=True)
    w = ot.ones(xn.shape, dtype=ot.float64, requires_grad=True)
    z = m(leaf * 1)
    other = z * w
    loss = (z * ot.tensor(gn)).sum()
    del z
    loss.backward()
    _check_grads(m, leaf, want)
    (gw,) = ot.autograd.grad(other.sum(), [w])
    np.testing.assert_allclose(gw.numpy(), want["z"], **_tol(np.float64))


def test_a_saved_tensor_hook_that_keeps_the_output_still_reads_it():
    """Condition 2: a pack hook kept the output tensor itself (its Storage is referenced
    once however many references the hook holds); it still reads z after backward."""
    m, xn, gn, want = _abn_case()
    leaf = ot.tensor(xn, requires_grad=True)
    store = []

    def pack(t):
        store.append(t)
        return t

    with ot.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        z = m(leaf * 1)
        loss = (z * ot.tensor(gn)).sum()
    del z
    loss.backward()
    _check_grads(m, leaf, want)
    outs = [t for t in store if t.shape == xn.shape and
            np.allclose(t.detach().numpy(), want["z"], rtol=1e-10, atol=1e-10)]
    assert outs, "the hook's copy of the output was overwritten"


def test_a_post_hook_sees_the_incoming_gradient_and_the_saved_output():
    """Condition 5 and OpNode.may_overwrite: a node's post hook runs after the formula; its
    grad_outputs are the incoming gradient (not dx written over it) and _saved_result is
    still z, as in PyTorch."""
    m, xn, gn, want = _abn_case()
    leaf = ot.tensor(xn, requires_grad=True)
    z = m(leaf * 1)
    node = z.grad_fn
    seen = []
    node.register_hook(lambda gi, go: seen.append((go[0].detach().numpy().copy(),
                                                   node._saved_result.detach().numpy().copy())))
    loss = (z * ot.tensor(gn)).sum()
    del z
    loss.backward()
    np.testing.assert_array_equal(seen[0][0], gn)
    np.testing.assert_allclose(seen[0][1], want["z"], **_tol(np.float64))
    _check_grads(m, leaf, want)


@pytest.mark.parametrize("op", ["relu", "mul"])
def test_post_hook_grad_outputs_of_ops_that_write_into_the_gradient(op):
    """The same rule for every backward that writes into its incoming gradient (Note
    [Backward into the incoming gradient]): a post hook's grad_outputs is the gradient that
    came in, as in PyTorch."""
    got = {}
    for lib in (ot, torch):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = (x * 2).relu() if op == "relu" else (x * 2) * 3.0
        seen = []
        y.grad_fn.register_hook(lambda gi, go: seen.append(go[0].detach().clone()))
        (y * lib.tensor([5.0, 6.0, 7.0])).sum().backward()
        got[lib] = (seen[0].numpy(), x.grad.numpy())
    for a, b in zip(got[ot], got[torch]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("act,param", [("leaky_relu", 0.01), ("leaky_relu", 2.0), ("elu", 1.0),
                                       ("identity", 0.0)])
@pytest.mark.parametrize("training", [True, False])
def test_in_place_and_out_of_place_paths_give_the_same_bits(act, param, dtype, training):
    """The four paths (z dead or held, dz owned or not) compute the same operations, so the
    same bits; and they match torch. Shapes large enough for several blocks of both kinds
    (whole samples; channels of one sample)."""
    for shape in [(70, 4, 3, 3), (2, 3, 150, 120)]:
        rng = np.random.default_rng(5)
        xn = (rng.standard_normal(shape) * 2 + 0.3).astype(dtype)
        gn = rng.standard_normal(shape).astype(dtype)
        results = {}
        for mode in ("dead_owned", "held", "dead_not_owned", "held_not_owned"):
            m, bn = _pair(shape[1], act, param, dtype, rng=np.random.default_rng(6))
            if not training:
                with ot.no_grad():
                    m.running_mean.copy_(ot.tensor(np.linspace(-0.5, 0.5, shape[1])))
                    m.running_var.copy_(ot.tensor(np.linspace(0.5, 2.0, shape[1])))
                m.eval()
            leaf = ot.tensor(xn, requires_grad=True)
            z = m(leaf * 1)
            if mode.endswith("not_owned"):
                z.register_hook(lambda g: None)       # a hook has seen dz: not owned
            loss = (z * ot.tensor(gn)).sum()
            if mode.startswith("dead"):
                del z
            loss.backward()
            results[mode] = [leaf.grad.numpy(), m.weight.grad.numpy(), m.bias.grad.numpy()]
        for mode, arrays in results.items():
            for a, b in zip(arrays, results["held"]):
                assert a.tobytes() == b.tobytes(), mode
    tx = torch.tensor(xn, requires_grad=True)
    bn = bn.eval() if not training else bn
    if not training:
        with torch.no_grad():
            bn.running_mean.copy_(torch.tensor(np.linspace(-0.5, 0.5, shape[1])))
            bn.running_var.copy_(torch.tensor(np.linspace(0.5, 2.0, shape[1])))
    (_torch_act(act, param)(bn(tx)) * torch.tensor(gn)).sum().backward()
    tol = dict(rtol=1e-9, atol=1e-9) if dtype == np.float64 else dict(rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(results["held"][0], tx.grad.numpy(), **tol)


def test_backward_allocates_no_tensor_of_the_activation_size():
    """By exact accounting: in a training step of the digits network, each
    InPlaceABNBackward0 adds at most its gamma and beta gradients (2 * C floats) to the
    memory held when it starts: dx is the incoming gradient's memory."""
    rng = np.random.default_rng(8)
    x = oar.to_tensor(rng.standard_normal((64, 1, 8, 8)).astype(np.float32))
    y = oar.to_tensor(rng.integers(0, 10, 64))
    oar.seed(0)
    net = _digits_net(True)
    with oar.device.memory_timeline() as tl:
        oar.nn.functional.cross_entropy(net(x), y).backward()
    abn = [i for i, e in enumerate(tl) if e.name == "InPlaceABNBackward0"]
    assert len(abn) == 2
    for i, c in zip(abn, (32, 16)):
        assert tl[i].peak - tl[i - 1].allocated <= 2 * c * 4, tl.table(1)


def test_backward_numpy_scratch_is_below_one_activation():
    """No full-size temporary (Note [InPlaceABN backward in place]): the NumPy memory the
    backward allocates (tracemalloc: every array, scratch included) stays below 1.25
    activations: the one gradient of mul's backward plus blocks of scratch (the former
    backward's derivative and inverse took two more activations)."""
    import tracemalloc
    shape = (16, 16, 64, 64)
    act_bytes = int(np.prod(shape)) * 4
    rng = np.random.default_rng(3)
    m = ot.nn.InPlaceABN(16)
    leaf = ot.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    g = ot.tensor(rng.standard_normal(shape).astype(np.float32))
    leaf.grad = ot.zeros(shape)                        # .grad accumulates in place
    loss = (m(leaf * 1) * g).sum()
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        loss.backward()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 1.25 * act_bytes, (peak, act_bytes)
