"""The Paddle door's defaults against paddle 3.3.1 (Note [Paddle default initialisers]):
initial parameter distributions, BatchNorm's running variance, clear_gradients, the
state_dict order and set_state_dict's skip-and-report rule."""
import warnings

import numpy as np
import pytest

import oar

paddle = pytest.importorskip("paddle")


def _arrays(layer):
    return {k: np.asarray(v.numpy(), np.float64) for k, v in layer.state_dict().items()}


# (layer, args): large enough that the sample statistics pin the distribution
LAYERS = [("Linear", (300, 200)), ("Embedding", (2000, 64)), ("Conv1D", (16, 32, 3)),
          ("Conv2D", (16, 32, 3)), ("Conv3D", (8, 16, 3)), ("Conv2D", (16, 32, 3, 1, 0, 1, 4)),
          ("Conv1DTranspose", (16, 32, 3)), ("Conv2DTranspose", (16, 32, 3)),
          ("Conv3DTranspose", (8, 16, 3)), ("MultiHeadAttention", (64, 4)),
          ("TransformerEncoderLayer", (64, 4, 128))]


@pytest.mark.parametrize("name,args", LAYERS, ids=[f"{n}{a}" for n, a in LAYERS])
def test_initial_parameters_are_distributed_as_paddle(name, args):
    paddle.seed(0)
    oar.seed(0)
    ours, theirs = _arrays(getattr(oar.nn, name)(*args)), _arrays(getattr(paddle.nn, name)(*args))
    assert list(ours) == list(theirs)
    for k, p in theirs.items():
        o = ours[k]
        assert o.shape == p.shape, k
        if p.std() == 0:                     # constants (zero biases, unit norms) exactly
            np.testing.assert_array_equal(o, p, err_msg=k)
            continue
        assert abs(o.std() / p.std() - 1) < 0.1, (k, o.std(), p.std())
        assert abs(o.mean() - p.mean()) < 0.1 * p.std(), k
        # uniform draws share the bound; normal ones the tail (kurtosis 3 against 1.8)
        kurt = lambda a: ((a - a.mean()) ** 4).mean() / a.var() ** 2
        assert abs(kurt(o) - kurt(p)) < 0.4, (k, kurt(o), kurt(p))


def test_embedding_padding_row_is_zero_as_paddle():
    ours, theirs = oar.nn.Embedding(6, 4, padding_idx=2), paddle.nn.Embedding(6, 4, padding_idx=2)
    assert (ours.weight.numpy()[2] == 0).all() and (theirs.weight.numpy()[2] == 0).all()
    assert np.abs(ours.weight.numpy()).max() <= np.sqrt(6 / 10)


def test_batchnorm_running_variance_is_biased_as_paddle():
    x = np.random.default_rng(1).normal(size=(4, 3, 5, 5)).astype(np.float32) * 2 + 1
    ours, theirs = oar.nn.BatchNorm2D(3), paddle.nn.BatchNorm2D(3)
    ours(oar.to_tensor(x))
    theirs(paddle.to_tensor(x))
    np.testing.assert_allclose(ours._variance.numpy(), theirs._variance.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours._mean.numpy(), theirs._mean.numpy(), rtol=1e-6)
    # the functional form too
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    om, ov = oar.to_tensor(rm), oar.to_tensor(rv)
    pm, pv = paddle.to_tensor(rm), paddle.to_tensor(rv)
    oar.nn.functional.batch_norm(oar.to_tensor(x), om, ov, training=True, momentum=0.8)
    paddle.nn.functional.batch_norm(paddle.to_tensor(x), pm, pv, training=True, momentum=0.8)
    np.testing.assert_allclose(ov.numpy(), pv.numpy(), rtol=1e-6)


def test_clear_gradients_leaves_zeros_as_paddle():
    for mod in (oar, paddle):
        lin = mod.nn.Linear(3, 2)
        lin(mod.ones([1, 3])).sum().backward()
        lin.clear_gradients()
        assert lin.weight.grad is not None and (lin.weight.grad.numpy() == 0).all(), mod
        lin.clear_gradients(set_to_zero=False)
        assert lin.weight.grad is None, mod


def _net(mod):
    class Net(mod.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = mod.nn.Conv2D(3, 4, 3)
            self.bn = mod.nn.BatchNorm2D(4)
            self.head = mod.nn.Sequential(mod.nn.Linear(4, 5), mod.nn.BatchNorm1D(5))
            self.register_buffer("step", mod.to_tensor([0]))
            self.register_buffer("scratch", mod.zeros([2]), persistable=False)
    return Net()


def test_state_dict_order_and_persistable_buffers_as_paddle():
    ours, theirs = _net(oar), _net(paddle)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "scratch" not in ours.state_dict()
    assert list(ours.state_dict(include_sublayers=False)) == \
        list(theirs.state_dict(include_sublayers=False))
    # a Paddle-saved dict loads by key into the same structure
    sd = {k: v.numpy() + 1 for k, v in theirs.state_dict().items()}
    missing, unexpected = ours.set_state_dict(sd)
    assert missing == [] and unexpected == []
    for k, v in ours.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd[k])


def test_set_state_dict_skips_and_reports_as_paddle():
    ours, theirs = _net(oar), _net(paddle)
    good = {k: v.numpy() for k, v in theirs.state_dict().items()}
    bad = dict(good)
    del bad["bn.weight"]
    bad["head.0.bias"] = np.zeros(7, np.float32)        # wrong shape
    bad["nope"] = np.zeros(1, np.float32)
    before = ours.head[0].bias.numpy().copy()
    with warnings.catch_warnings(record=True) as ow:
        warnings.simplefilter("always")
        got = ours.set_state_dict(bad)
    with warnings.catch_warnings(record=True) as pw:
        warnings.simplefilter("always")
        want = theirs.set_state_dict({k: paddle.to_tensor(v) for k, v in bad.items()})
    assert tuple(got) == tuple(want)
    skip = lambda ws: sorted(str(w.message) for w in ws if "Skip loading" in str(w.message))
    assert skip(ow) == skip(pw)
    np.testing.assert_array_equal(ours.head[0].bias.numpy(), before)
    np.testing.assert_array_equal(ours.conv.weight.numpy(), good["conv.weight"])
