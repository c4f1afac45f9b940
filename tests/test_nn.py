"""Layers and functional forms against torch 2.13; gradients by gradcheck."""
import numpy as np
import pytest

import oar
from oar import nn
from oar.autograd import gradcheck
from oar.nn import functional as F

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

torch = pytest.importorskip("torch")
TF = torch.nn.functional

rng = np.random.default_rng(0)
X4 = rng.normal(size=(2, 3, 7, 6))
X2 = rng.normal(size=(5, 4))
LABELS = np.array([1, 0, 3, 3, 2])


def o(a, grad=False):
    return oar.to_tensor(a, stop_gradient=not grad)


def t(a):
    return torch.tensor(a)


FUNCTIONAL = {
    "conv2d": (lambda x, w: F.conv2d(x, w, None, stride=1, padding=1),
               lambda x, w: TF.conv2d(x, w, None, stride=1, padding=1), [X4, rng.normal(size=(4, 3, 3, 3))]),
    "conv2d_stride_dil": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=(1, 2), dilation=(2, 1)),
                          lambda x, w, b: TF.conv2d(x, w, b, stride=2, padding=(1, 2), dilation=(2, 1)),
                          [X4, rng.normal(size=(2, 3, 2, 3)), rng.normal(size=(2,))]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2), [X4]),
    "max_pool2d_pad": (lambda x: F.max_pool2d(x, 3, 2, 1), lambda x: TF.max_pool2d(x, 3, 2, 1), [X4]),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 2, 1), lambda x: TF.avg_pool2d(x, 2, 1), [X4]),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
                            lambda x: TF.adaptive_avg_pool2d(x, (3, 2)), [X4]),
    "adaptive_avg_pool2d_1": (lambda x: F.adaptive_avg_pool2d(x, 1), lambda x: TF.adaptive_avg_pool2d(x, 1), [X4]),
    "softmax": (lambda x: F.softmax(x, axis=1), lambda x: TF.softmax(x, dim=1), [X2]),
    "log_softmax": (lambda x: F.log_softmax(x), lambda x: TF.log_softmax(x, -1), [X2]),
    "cross_entropy": (lambda x: F.cross_entropy(x, o(LABELS)), lambda x: TF.cross_entropy(x, t(LABELS)), [X2]),
    "cross_entropy_ignore": (lambda x: F.cross_entropy(x, o(LABELS), ignore_index=3),
                             lambda x: TF.cross_entropy(x, t(LABELS), ignore_index=3), [X2]),
    "cross_entropy_smooth": (lambda x: F.cross_entropy(x, o(LABELS), label_smoothing=0.1),
                             lambda x: TF.cross_entropy(x, t(LABELS), label_smoothing=0.1), [X2]),
    "cross_entropy_sum": (lambda x: F.cross_entropy(x, o(LABELS), reduction="sum"),
                          lambda x: TF.cross_entropy(x, t(LABELS), reduction="sum"), [X2]),
    "nll_loss": (lambda x: F.nll_loss(F.log_softmax(x), o(LABELS)),
                 lambda x: TF.nll_loss(TF.log_softmax(x, -1), t(LABELS)), [X2]),
    "mse_loss": (lambda x, y: F.mse_loss(x, y), lambda x, y: TF.mse_loss(x, y), [X2, X2 * 0.5]),
    "l1_loss": (lambda x, y: F.l1_loss(x, y), lambda x, y: TF.l1_loss(x, y), [X2, X2 * 0.5 + 0.1]),
    "bce_logits": (lambda x, y: F.binary_cross_entropy_with_logits(x, y),
                   lambda x, y: TF.binary_cross_entropy_with_logits(x, y), [X2 * 5, (X2 > 0) * 1.0]),
    "bce_logits_pos_weight": (lambda x, y: F.binary_cross_entropy_with_logits(x, y, pos_weight=o(np.full(4, 2.0))),
                              lambda x, y: TF.binary_cross_entropy_with_logits(x, y, pos_weight=t(np.full(4, 2.0))),
                              [X2 * 5, (X2 > 0) * 1.0]),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), lambda x: TF.leaky_relu(x, 0.2), [X2 + 0.05]),
    "gelu": (lambda x: F.gelu(x), lambda x: TF.gelu(x), [X2]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda x: TF.gelu(x, approximate="tanh"), [X2]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, [4], w, b), lambda x, w, b: TF.layer_norm(x, [4], w, b),
                   [X2, rng.normal(size=4), rng.normal(size=4)]),
    "pad": (lambda x: F.pad(x, [1, 2, 0, 1], value=0.5), lambda x: TF.pad(x, [1, 2, 0, 1], value=0.5), [X4]),
    "linear": (lambda x, w, b: F.linear(x, w, b), lambda x, w, b: TF.linear(x, w.T, b),
               [X2, rng.normal(size=(4, 3)), rng.normal(size=3)]),
    "batch_norm_train": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
                         lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True),
                         [X4[:, :, :3, :3], rng.normal(size=3), rng.normal(size=3)]),
    "embedding": (lambda w: F.embedding(o(np.array([[0, 2], [2, 1]])), w),
                  lambda w: TF.embedding(t(np.array([[0, 2], [2, 1]])), w), [rng.normal(size=(3, 4))]),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_forward_and_grad_match_torch(name):
    fo, ft, arrs = FUNCTIONAL[name]
    oi = [o(a, True) for a in arrs]
    ti = [t(a).requires_grad_() for a in arrs]
    out_o, out_t = fo(*oi), ft(*ti)
    np.testing.assert_allclose(out_o.numpy(), out_t.detach().numpy(), rtol=1e-6, atol=1e-7)
    w = rng.normal(size=out_t.shape)
    (out_o * o(w)).sum().backward()
    (out_t * t(w)).sum().backward()
    for a, b in zip(oi, ti):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["conv2d_stride_dil", "max_pool2d_pad", "avg_pool2d", "cross_entropy_smooth",
                                  "cross_entropy", "cross_entropy_ignore", "cross_entropy_sum",
                                  "linear", "layer_norm", "gelu", "pad", "bce_logits", "batch_norm_train",
                                  "adaptive_avg_pool2d", "softmax", "nll_loss", "leaky_relu", "mse_loss",
                                  "l1_loss", "gelu_tanh", "embedding", "conv2d"])
def test_functional_gradcheck(name):
    fo, _, arrs = FUNCTIONAL[name]
    small = [a[:1, :2] if a.ndim == 4 else a for a in arrs]
    if name.startswith("conv"):
        small = [arrs[0][:1]] + list(arrs[1:])
    if name == "batch_norm_train":
        small = [arrs[0][:, :, :2, :2]] + list(arrs[1:])
    assert gradcheck(fo, [o(a, True) for a in small])


def test_inplace_activations_match_and_save_memory():
    x = o(X2 + 0.05, True)
    for inplace in (False, True):
        h = x * 1
        y = F.relu(h, inplace=inplace)
        assert (y is h) == inplace
        z = F.leaky_relu(x * 1, 0.1, inplace=inplace)
        np.testing.assert_allclose(z.numpy(), TF.leaky_relu(t(X2 + 0.05), 0.1).numpy())
    h = x * 1
    before = oar.device.memory_allocated()
    F.leaky_relu_(h, 0.1)
    # saves a bool mask of h > 0 (1 byte an element), not a float32 copy of the old value
    # (Note [Paddle leaky_relu_ keeps a mask])
    assert oar.device.memory_allocated() == before + h.numel()
    (h * h).sum().backward()
    ref = t(X2 + 0.05).requires_grad_()
    (TF.leaky_relu(ref, 0.1) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ref.grad.numpy(), rtol=1e-6)


def test_batchnorm_train_eval_and_running_stats():
    x = rng.normal(size=(8, 3, 4, 4)) * 2 + 1
    ob = nn.BatchNorm2D(3)
    tb = torch.nn.BatchNorm2d(3).double()
    y = ob(o(x))
    np.testing.assert_allclose(y.numpy(), tb(t(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ob.running_mean.numpy(), tb.running_mean.numpy(), rtol=1e-5)
    # Paddle 3.3.1 keeps the batch's biased variance (torch the unbiased one)
    np.testing.assert_allclose(ob.running_var.numpy(), 0.9 + 0.1 * x.var(axis=(0, 2, 3)),
                               rtol=1e-5)
    assert ob._mean.inplace_version > 0 and ob._mean.stop_gradient   # updated in place
    ob.eval()
    tb.eval()
    with torch.no_grad():           # evaluation from the same running statistics
        tb.running_var.copy_(torch.from_numpy(ob.running_var.numpy().astype(np.float64)))
    np.testing.assert_allclose(ob(o(x)).numpy(), tb(t(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert nn.BatchNorm2d(3, momentum=0.1).momentum == pytest.approx(0.9)   # PyTorch convention
    with pytest.raises(ValueError, match="channels"):
        ob(o(rng.normal(size=(2, 4, 3, 3))))


def test_layers_match_torch_with_same_weights():
    conv = nn.Conv2D(3, 4, 3, padding=1)
    tconv = torch.nn.Conv2d(3, 4, 3, padding=1).double()
    with torch.no_grad():
        tconv.weight.copy_(t(conv.weight.numpy()))
        tconv.bias.copy_(t(conv.bias.numpy()))
    np.testing.assert_allclose(conv(o(X4).astype("float32")).numpy(),
                               tconv(t(X4)).detach().numpy(), rtol=1e-4, atol=1e-5)
    lin = nn.Linear(4, 3)
    assert lin.weight.shape == [4, 3] and not lin.weight.stop_gradient and lin.weight.is_leaf
    emb = nn.Embedding(10, 3, padding_idx=0)
    out = emb(o(np.array([[0, 2], [5, 0]])))
    assert out.shape == [2, 2, 3] and out.numpy()[0, 0].tolist() == [0, 0, 0]
    d = nn.Dropout(0.5)
    d.eval()
    x = o(X2)
    assert d(x) is x
    d.train()
    y = d(o(np.ones((1000,))))
    assert set(np.unique(y.numpy())) <= {0.0, 2.0} and 0.4 < y.numpy().mean() / 2 < 0.6


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Linear(8, 2))
        self.norm = nn.BatchNorm1D(2)

    def forward(self, x):
        return self.norm(self.body(x))


def test_layer_api_and_state_dict_round_trip():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["body.0.weight", "body.0.bias", "body.2.weight", "body.2.bias",
                     "norm.weight", "norm.bias", "norm._mean", "norm._variance"]
    # as Paddle 3.3.1: a BatchNorm's statistics are non-trainable parameters (Note [Paddle
    # batch-norm statistics are parameters])
    sd = net.state_dict()
    assert "norm._mean" in sd and len(net.parameters()) == 8 and len(list(net.children())) == 2
    other = Net()
    other.set_state_dict(sd)
    x = o(X2.astype(np.float32))
    net.eval()
    other.eval()
    np.testing.assert_array_equal(net(x).numpy(), other(x).numpy())
    # as Paddle: missing keys and shape mismatches are skipped with a warning and reported
    with pytest.warns(UserWarning, match="body.0.bias is not found"):
        missing, unexpected = other.set_state_dict({"body.0.weight": sd["body.0.weight"],
                                                    "extra": oar.zeros([1])})
    assert missing == [k for k in sd if k != "body.0.weight"] and unexpected == ["extra"]
    before = other.body[0].bias.numpy().copy()
    with pytest.warns(UserWarning, match=r"receives a shape \[3\], but the expected shape is \[8\]"):
        missing, _ = other.load_state_dict({**sd, "body.0.bias": oar.zeros([3])})
    assert missing == ["body.0.bias"] and np.array_equal(other.body[0].bias.numpy(), before)
    assert "Linear(in_features=4, out_features=8, dtype=float32)" in repr(net) and "ReLU(inplace=True)" in repr(net)
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and net.training is False


def test_init_functions_fill_leaves_in_place():
    w = nn.Parameter(np.zeros((300, 200), np.float32))
    before = w.data_ptr()
    nn.init.xavier_uniform_(w)
    bound = np.sqrt(6 / 500)
    assert w.data_ptr() == before and w.is_leaf and w.inplace_version == 1
    assert 0.9 * bound < np.abs(w.numpy()).max() <= bound
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(w.numpy().std() - np.sqrt(2 / 300)) < 0.005
    nn.init.constant_(w, 0.5)
    assert (w.numpy() == 0.5).all()
    nn.init.zeros_(w)
    assert w.numpy().sum() == 0


def test_one_hot_and_embedding_grad():
    assert F.one_hot(o(np.array([0, 2])), 3).numpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    w = o(rng.normal(size=(5, 2)), True)
    F.embedding(o(np.array([1, 1, 3])), w).sum().backward()
    assert w.grad.numpy()[:, 0].tolist() == [0, 2, 0, 1, 0]


def test_second_order_through_fused_linear_and_cross_entropy():
    """create_graph through the fused ops matches torch (Hessian-vector product)."""
    x, w, b = X2, rng.normal(size=(4, 3)), rng.normal(size=3)
    v = rng.normal(size=(4, 3))
    ow, tw = o(w, True), t(w).requires_grad_()
    (gw,) = oar.grad(F.cross_entropy(F.linear(o(x), ow, o(b)), o(LABELS[:5] % 3)), ow, create_graph=True)
    (hv,) = oar.grad((gw * o(v)).sum(), ow)
    (tgw,) = torch.autograd.grad(TF.cross_entropy(TF.linear(t(x), tw.T, t(b)), t(LABELS[:5] % 3)), tw,
                                 create_graph=True)
    (thv,) = torch.autograd.grad((tgw * t(v)).sum(), tw)
    np.testing.assert_allclose(gw.numpy(), tgw.detach().numpy(), rtol=1e-8)
    np.testing.assert_allclose(hv.numpy(), thv.numpy(), rtol=1e-8, atol=1e-12)


def test_save_and_load_state_dict(tmp_path):
    net = Net()
    path = tmp_path / "net.pdparams"
    oar.save(net.state_dict(), str(path))
    other = Net()
    other.set_state_dict(oar.load(str(path)))
    for (n1, a), (n2, b) in zip(net.state_dict().items(), other.state_dict().items()):
        assert n1 == n2 and np.array_equal(a.numpy(), b.numpy())
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    oar.save(x, str(tmp_path / "x.pd"))
    y = oar.load(str(tmp_path / "x.pd"))
    assert y.numpy().tolist() == [1.0, 2.0] and not y.stop_gradient and y.is_leaf
    with pytest.raises(FileNotFoundError):
        oar.save(x, str(tmp_path / "missing" / "x.pd"))
