"""oar.torch.nn (Module, containers, layers, functional, init, utils) and oar.torch.autograd
against torch 2.13: state dicts load both ways, outputs and gradients agree, reprs are
PyTorch's strings, initial values are PyTorch's draws. Expected values come from torch in
the test (or paddle 3.3.1 for the Paddle door's new layers)."""
import copy
import importlib
import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import oar
import oar.torch as otorch
import oar.torch.nn as onn
import oar.torch.nn.functional as OF

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional
rng = np.random.default_rng(0)


def o(a, grad=False):
    t = otorch.tensor(np.asarray(a))
    return t.requires_grad_() if grad else t


def t(a, grad=False):
    x = torch.tensor(np.asarray(a))
    return x.requires_grad_() if grad else x


def close(a, b, tol=1e-5):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ----------------------------------------------------------------------- import lines
def test_every_import_line_of_a_pytorch_program_maps():
    src = """
import oar.torch as torch
import oar.torch.nn as nn
import oar.torch.nn.functional as F
import oar.torch.nn.init
import oar.torch.optim as optim
import oar.torch.autograd.graph
from oar.torch import nn, optim
from oar.torch.nn import functional as F, init
from oar.torch.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector
from oar.torch.nn.parameter import Parameter
from oar.torch.optim.lr_scheduler import StepLR
from oar.torch.utils.data import DataLoader, TensorDataset, Dataset, random_split, Subset
from oar.torch.autograd import Function, grad, backward, gradcheck
from oar.torch.autograd import Variable
"""
    ns = {}
    exec(compile(src, "<imports>", "exec"), ns)     # the import statements of a program
    assert ns["nn"].Linear is onn.Linear and ns["F"] is OF
    assert otorch.autograd.graph.Node is importlib.import_module("oar.autograd.node").Node
    # the door's own grad (a tuple, as torch's) over the core's (a list, as Paddle's)
    assert otorch.autograd.grad.__module__ == "oar.torch.autograd"
    for name in ("gradgradcheck", "detect_anomaly"):
        core = getattr(importlib.import_module("oar.autograd.gradcheck"), name, None) or \
            getattr(importlib.import_module("oar.autograd.grad_mode"), name, None)
        if core is not None:
            assert getattr(otorch.autograd, name) is core


# ----------------------------------------------------------------------- a model both ways
def _model(nn, lib):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.pool = nn.MaxPool2d(2)
            self.conv2 = nn.Conv1d(4, 2, 3)
            self.drop = nn.Dropout(0.3)
            self.flat = nn.Flatten()
            self.head = nn.Sequential(OrderedDict(fc1=nn.Linear(8, 5), act=nn.GELU(),
                                                  ln=nn.LayerNorm(5), fc2=nn.Linear(5, 3)))
            self.gn = nn.GroupNorm(1, 3)
            self.emb = nn.Embedding(4, 3, padding_idx=0)
            self.register_buffer("scale", lib.ones(1) * 2)
            self.register_buffer("tmp", lib.zeros(1), persistent=False)

        def forward(self, x):
            x = self.pool(self.bn(self.conv1(x)).relu()).flatten(2)
            x = self.drop(self.conv2(x))[:, :, :4]
            return self.gn(self.head(self.flat(x))) * self.scale + self.emb.weight[1]
    return Net()


X = rng.normal(size=(2, 1, 8, 8)).astype(np.float32)


def test_torch_state_dict_loads_and_outputs_agree_both_ways():
    torch.manual_seed(0)
    tm, om = _model(tnn, torch), _model(onn, otorch)
    tsd = tm.state_dict()
    assert list(om.state_dict()) == list(tsd)              # PyTorch's keys, in its order
    for k, v in om.state_dict().items():
        assert tuple(v.shape) == tuple(tsd[k].shape) and str(v.dtype) == str(tsd[k].dtype), k
        assert isinstance(v, otorch.Tensor) and not isinstance(v, otorch.nn.Parameter)
    res = om.load_state_dict({k: otorch.tensor(v.numpy()) for k, v in tsd.items()})
    assert res.missing_keys == [] and res.unexpected_keys == [] and \
        repr(res) == "<All keys matched successfully>"
    for mode in ("eval", "train"):
        getattr(tm, mode)()
        getattr(om, mode)()
        tm.drop.p = om.drop.p = 0.0
        to, oo = tm(torch.tensor(X)), om(otorch.tensor(X))
        close(oo, to)
    to.sum().backward()
    oo.sum().backward()
    for (name, tp), op in zip(tm.named_parameters(), om.parameters()):
        close(op.grad, tp.grad, 1e-4)
    for (name, tb), ob in zip(tm.named_buffers(), om.buffers()):
        close(ob, tb)                       # running statistics and num_batches_tracked
    # and back: oar's state dict (trained buffers) into a fresh torch model
    tm2 = _model(tnn, torch)
    tm2.load_state_dict({k: torch.tensor(v.numpy()) for k, v in om.state_dict().items()})
    tm2.eval()
    om.eval()
    close(om(otorch.tensor(X)), tm2(torch.tensor(X)))


def test_seeded_initialisation_is_torch_bit_for_bit():
    makers = [lambda nn: nn.Linear(5, 3), lambda nn: nn.Linear(4, 2, bias=False),
              lambda nn: nn.Conv2d(2, 4, 3), lambda nn: nn.Conv1d(2, 4, 3),
              lambda nn: nn.Embedding(6, 3, padding_idx=1), lambda nn: nn.BatchNorm1d(3),
              lambda nn: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))]
    for make in makers:
        torch.manual_seed(0)
        otorch.manual_seed(0)
        tsd, osd = make(tnn).state_dict(), make(onn).state_dict()
        for k in tsd:
            assert np.array_equal(osd[k].numpy(), tsd[k].numpy()), k


def test_linear_weight_is_out_in_and_f_linear_is_x_at_w_transposed():
    lin = onn.Linear(3, 2)
    assert tuple(lin.weight.shape) == (2, 3) and tuple(lin.bias.shape) == (2,)
    assert type(lin.weight) is otorch.nn.Parameter and lin.weight.requires_grad
    assert tuple(oar.nn.Linear(3, 2).weight.shape) == (3, 2)     # the Paddle door keeps [in, out]
    w = rng.normal(size=(3, 3))                                  # square: layout matters
    x, b = rng.normal(size=(4, 3)), rng.normal(size=3)
    ox, ow, ob = o(x, True), o(w, True), o(b, True)
    tx, tw, tb = t(x, True), t(w, True), t(b, True)
    oy, ty = OF.linear(ox, ow, ob), TF.linear(tx, tw, tb)
    close(oy, ty, 1e-12)
    close(oy, x @ w.T + b, 1e-12)
    g = rng.normal(size=(4, 3))
    oy.backward(o(g))
    ty.backward(t(g))
    for a, c in ((ox, tx), (ow, tw), (ob, tb)):
        close(a.grad, c.grad, 1e-12)
    assert otorch.autograd.gradcheck(lambda a, c: OF.linear(a, c), (o(x[:2], True), o(w, True)))
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        TF.linear(t(x), t(rng.normal(size=(3, 5))))
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        OF.linear(o(x), o(rng.normal(size=(3, 5))))
    close(OF.linear(o(x[0]), ow), TF.linear(t(x[0]), tw), 1e-12)   # 1-D input


# ----------------------------------------------------------------------- load_state_dict
def test_load_state_dict_strict_errors_and_incompatible_keys():
    def pair():
        torch.manual_seed(0)
        return (tnn.Sequential(tnn.Linear(2, 3), tnn.BatchNorm1d(3)),
                onn.Sequential(onn.Linear(2, 3), onn.BatchNorm1d(3)))
    tm, om = pair()
    sd = {k: v.numpy() for k, v in tm.state_dict().items()}
    bad = dict(sd)
    del bad["0.bias"]
    bad["extra.weight"] = np.zeros(1, np.float32)
    with pytest.raises(RuntimeError) as te:
        tm.load_state_dict({k: torch.tensor(v) for k, v in bad.items()})
    before = [p.numpy().copy() for p in om.state_dict().values()]
    with pytest.raises(RuntimeError) as oe:
        om.load_state_dict({k: otorch.tensor(v) for k, v in bad.items()})
    assert str(oe.value) == str(te.value)
    assert all(np.array_equal(a, b.numpy()) for a, b in zip(before, om.state_dict().values()))
    tr = tm.load_state_dict({k: torch.tensor(v) for k, v in bad.items()}, strict=False)
    orr = om.load_state_dict({k: otorch.tensor(v) for k, v in bad.items()}, strict=False)
    assert (orr.missing_keys, orr.unexpected_keys) == (tr.missing_keys, tr.unexpected_keys)
    assert orr == tr and type(orr).__name__ == type(tr).__name__
    # a size mismatch refuses the whole dict, also with strict=False (nothing is copied)
    wrong = dict(sd, **{"0.weight": np.zeros((5, 2), np.float32), "0.bias": np.ones(3, np.float32)})
    with pytest.raises(RuntimeError) as te:
        tm.load_state_dict({k: torch.tensor(v) for k, v in wrong.items()}, strict=False)
    before = om[0].bias.detach().numpy().copy()
    with pytest.raises(RuntimeError) as oe:
        om.load_state_dict({k: otorch.tensor(v) for k, v in wrong.items()}, strict=False)
    assert str(oe.value) == str(te.value)
    assert np.array_equal(om[0].bias.detach().numpy(), before)
    # a plain dict without num_batches_tracked (an old checkpoint) still loads, as in torch
    old = {k: v for k, v in sd.items() if "num_batches" not in k}
    assert tm.load_state_dict({k: torch.tensor(v) for k, v in old.items()}).missing_keys == []
    assert om.load_state_dict({k: otorch.tensor(v) for k, v in old.items()}).missing_keys == []
    with pytest.raises(RuntimeError, match="expected torch.Tensor"):
        om.load_state_dict(sd)                           # numpy arrays: torch refuses them too
    # assign=True keeps the loaded tensors themselves
    new = {k: otorch.tensor(v) for k, v in sd.items()}
    om.load_state_dict(new, assign=True)
    assert om[0].weight.data_ptr() == new["0.weight"].data_ptr()
    assert isinstance(om[0].weight, otorch.nn.Parameter) and om[0].weight.requires_grad


def test_state_dict_shares_memory_keep_vars_and_metadata():
    m, tm = onn.Linear(2, 2), tnn.Linear(2, 2)
    sd, tsd = m.state_dict(), tm.state_dict()
    assert type(sd) is type(tsd) is OrderedDict and sd._metadata == tsd._metadata
    with otorch.no_grad():
        sd["weight"].add_(1.0)
    assert sd["weight"].data_ptr() == m.weight.data_ptr()
    assert not sd["weight"].requires_grad
    assert m.state_dict(keep_vars=True)["weight"] is m.weight
    assert list(m.state_dict(prefix="lin.")) == list(tm.state_dict(prefix="lin."))


# ----------------------------------------------------------------------- Module API
def _pair_model(nn):
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3), nn.Tanh()))
    m.add_module("bn", nn.BatchNorm1d(3))
    m.shared = m[0]                      # the same module twice: reported once
    return m


def test_named_members_children_modules_like_torch():
    tm, om = _pair_model(tnn), _pair_model(onn)
    for what in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        assert [k for k, _ in getattr(om, what)()] == [k for k, _ in getattr(tm, what)()], what
    assert [k for k, _ in om.named_parameters(prefix="x", recurse=False)] == \
        [k for k, _ in tm.named_parameters(prefix="x", recurse=False)]
    assert [k for k, _ in om.named_parameters(remove_duplicate=False)] == \
        [k for k, _ in tm.named_parameters(remove_duplicate=False)]
    assert not isinstance(om.parameters(), list)          # a generator, as in torch
    assert len(list(om.parameters())) == len(list(tm.parameters()))
    assert len(list(om.modules())) == len(list(tm.modules()))
    assert om.get_submodule("2.0") is om[2][0]
    with pytest.raises(AttributeError) as te:
        tm.get_submodule("2.9")
    with pytest.raises(AttributeError) as oe:
        om.get_submodule("2.9")
    assert str(oe.value) == str(te.value)
    assert om.get_parameter("2.0.bias") is om[2][0].bias
    assert om.get_buffer("bn.running_mean") is om.bn.running_mean


def test_modes_grads_apply_requires_grad_and_dtypes():
    om, tm = _pair_model(onn), _pair_model(tnn)
    assert om.training and om.eval() is om and not om[2][1].training
    om.train()
    assert om.bn.training

    class Frozen(onn.Module):
        def __init__(self):
            super().__init__()
            self.inner = onn.BatchNorm1d(2)

        def train(self, mode=True):
            super().train(mode)
            self.inner.eval()             # a user's override runs (train recurses via train)
            return self
    f = onn.Sequential(Frozen())
    f.train()
    assert f.training and not f[0].inner.training
    with pytest.raises(ValueError, match="boolean"):
        om.train(1)
    x = om[0](otorch.ones(4, 2))
    (om[2](x).sum() + om.bn(x).sum()).backward()
    om.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in om.parameters())
    om.zero_grad()
    assert all(p.grad is None for p in om.parameters())
    seen = []
    assert om.apply(lambda m: seen.append(type(m).__name__)) is om
    tseen = []
    tm.apply(lambda m: tseen.append(type(m).__name__))
    assert seen == tseen
    om.requires_grad_(False)
    assert not any(p.requires_grad for p in om.parameters())
    w = om[0].weight
    assert om.double() is om and om[0].weight is w and str(w.dtype) == "torch.float64"
    assert str(om.bn.num_batches_tracked.dtype) == "torch.int64"      # integers untouched
    assert om.to(otorch.float32) is om and str(w.dtype) == "torch.float32"
    assert om.to("cpu") is om and om.cpu() is om and om.float() is om
    with pytest.raises(Exception, match="CPU"):
        om.to("cuda")
    with pytest.raises(Exception, match="CPU"):
        om.cuda()


def test_registration_rules_and_errors_like_torch():
    def both(fn):
        with pytest.raises(Exception) as te:
            fn(tnn, torch)
        with pytest.raises(te.type) as oe:
            fn(onn, otorch)
        return str(te.value), str(oe.value)

    def assign_tensor_to_param(nn, lib):
        m = nn.Linear(2, 2)
        m.weight = lib.zeros(2, 2)
    assert both(assign_tensor_to_param)[0] == both(assign_tensor_to_param)[1]

    def buffer_dot(nn, lib):
        nn.Module().register_buffer("a.b", lib.zeros(1))
    both(buffer_dot)

    def buffer_exists(nn, lib):
        m = nn.Linear(1, 1)
        m.register_buffer("weight", lib.zeros(1))
    a, b = both(buffer_exists)
    assert a == b

    def buffer_not_tensor(nn, lib):
        nn.Module().register_buffer("x", 3)
    a, b = both(buffer_not_tensor)
    assert a == b

    def module_before_init(nn, lib):
        class Bad(nn.Module):
            def __init__(self):
                self.lin = nn.Linear(1, 1)
                super().__init__()
        Bad()
    a, b = both(module_before_init)
    assert a == b

    def add_not_module(nn, lib):
        nn.Module().add_module("x", 3)
    both(add_not_module)

    def missing_attr(nn, lib):
        return nn.Linear(1, 1).nope
    a, b = both(missing_attr)
    assert a == b

    m = onn.Module()
    m.plain = 3                             # a plain attribute is a plain attribute
    m.register_buffer("buf", otorch.zeros(2), persistent=False)
    m.p = onn.Parameter(otorch.ones(1))
    assert m.plain == 3 and list(m.state_dict()) == ["p"] and [k for k, _ in m.named_buffers()] == ["buf"]
    m.buf = otorch.ones(2)                  # assigning to a buffer name updates the buffer
    assert m._buffers["buf"].numpy().tolist() == [1.0, 1.0] and "buf" not in m.state_dict()
    m.buf2 = onn.Buffer(otorch.ones(1))
    assert "buf2" in m.state_dict()
    del m.p
    assert "p" not in m.state_dict()
    core_p = oar.nn.Parameter(np.ones(2, np.float32))
    m.q = core_p                            # a core Parameter becomes a PyTorch-door one
    assert type(m.q) is otorch.nn.Parameter
    x = (m.q * 2).split(1)
    assert len(x) == 2                      # PyTorch's split(1): pieces of size 1


def test_repr_is_torchs_string():
    def model(nn):
        return nn.Sequential(OrderedDict(
            conv=nn.Conv2d(1, 6, 5), bn=nn.BatchNorm2d(6), act=nn.ReLU(inplace=True),
            pool=nn.MaxPool2d(2), drop=nn.Dropout2d(0.25), flat=nn.Flatten(),
            blocks=nn.ModuleList([nn.Linear(4, 4) for _ in range(3)] + [nn.GELU("tanh")]),
            heads=nn.ModuleDict({"a": nn.Linear(4, 2, bias=False), "b": nn.Identity()}),
            norm=nn.LayerNorm([2, 3], elementwise_affine=False), sm=nn.Softmax(dim=1),
            lsm=nn.LogSoftmax(dim=-1), emb=nn.Embedding(10, 3, padding_idx=0),
            loss=nn.CrossEntropyLoss(label_smoothing=0.1), unf=nn.Unflatten(1, (2, 3)),
            avg=nn.AvgPool2d(2), aap=nn.AdaptiveAvgPool2d((1, 1)), leaky=nn.LeakyReLU(0.2),
            gn=nn.GroupNorm(2, 4), inorm=nn.InstanceNorm2d(3, affine=True),
            c2=nn.Conv2d(2, 4, (3, 2), stride=2, padding=1, bias=False),
            c1=nn.Conv1d(2, 4, 3, padding="same"), empty=nn.Sequential(),
            sp=nn.Softplus(), elu=nn.ELU(), silu=nn.SiLU(), tanh=nn.Tanh(), sig=nn.Sigmoid(),
            mp1=nn.MaxPool1d(3), ap1=nn.AvgPool1d(2), ht=nn.Hardtanh(), r6=nn.ReLU6()))
    assert repr(model(onn)) == repr(model(tnn))
    assert repr(onn.ParameterList([onn.Parameter(otorch.zeros(2)), otorch.zeros(2, 3)])) == \
        repr(tnn.ParameterList([tnn.Parameter(torch.zeros(2)), torch.zeros(2, 3)]))


def test_containers_like_torch():
    for nn in (onn, tnn):
        a, b, c = nn.Linear(1, 1), nn.ReLU(), nn.Tanh()
        s = nn.Sequential(OrderedDict(first=a, second=b))
        assert s[0] is a and s[-1] is b and len(s) == 2 and list(s) == [a, b]
        assert isinstance(s[0:1], nn.Sequential) and list(s[0:1]) == [a]
        s.append(c)
        assert [k for k, _ in s.named_children()] == ["first", "second", "2"]
        del s[0]
        assert [k for k, _ in s.named_children()] == ["0", "1"] and s[0] is b
        s.insert(0, a)
        assert list(s) == [a, b, c]
        ml = nn.ModuleList([a])
        ml.append(b)
        ml += [c]
        ml.insert(1, c)
        assert list(ml) == [a, c, b, c] and len(ml) == 4 and ml[-1] is c
        assert isinstance(ml[1:], nn.ModuleList)
        md = nn.ModuleDict({"x": a})
        md["y"] = b
        assert list(md.keys()) == ["x", "y"] and "y" in md and md.pop("x") is a and len(md) == 1
        pl = nn.ParameterList([nn.Parameter(torch.ones(1) if nn is tnn else otorch.ones(1))])
        pl.append(torch.zeros(2) if nn is tnn else otorch.zeros(2))
        assert len(pl) == 2 and isinstance(pl[1], nn.Parameter)
        assert [k for k, _ in pl.named_parameters()] == ["0", "1"]
        pd = nn.ParameterDict({"w": torch.ones(1) if nn is tnn else otorch.ones(1)})
        assert isinstance(pd["w"], nn.Parameter) and list(pd.keys()) == ["w"]
        x = torch.ones(2, 6) if nn is tnn else otorch.ones(2, 6)
        assert tuple(nn.Unflatten(1, (2, 3))(x).shape) == (2, 2, 3)
        assert tuple(nn.Flatten(0)(x).shape) == (12,) and nn.Identity(3, k=1)(x) is x


def test_forward_hooks_like_torch():
    for nn, lib in ((onn, otorch), (tnn, torch)):
        lin = nn.Linear(2, 2)
        calls = []
        h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
        h2 = lin.register_forward_hook(lambda m, args, out: calls.append("post") or out + 1)
        h3 = lin.register_forward_hook(lambda m, args, out: calls.append("first"), prepend=True)
        y = lin(lib.ones(1, 2))
        assert calls == ["first", "post"]
        np.testing.assert_allclose(y.detach().numpy(), lin.bias.detach().numpy()[None] + 1)
        for h in (h1, h2, h3):
            h.remove()
        y2 = lin(lib.ones(1, 2))
        assert calls == ["first", "post"]
        h4 = lin.register_forward_pre_hook(lambda m, a, k: ((a[0] * 2,), k), with_kwargs=True)
        w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
        np.testing.assert_allclose(lin(lib.ones(1, 2)).detach().numpy()[0], w.sum(1) * 2 + b,
                                   rtol=1e-6)
        h4.remove()


# ----------------------------------------------------------------------- functional
X2, X4 = rng.normal(size=(5, 4)), rng.normal(size=(2, 3, 6, 6))
LAB = np.array([1, 0, 3, 3, 2])
PROB = rng.dirichlet(np.ones(4), size=5)
FUNCTIONAL = {
    "relu": (lambda F, x: F.relu(x), [X2]),
    "relu6": (lambda F, x: F.relu6(x * 4), [X2]),
    "elu": (lambda F, x: F.elu(x, 0.7), [X2]),
    "leaky_relu": (lambda F, x: F.leaky_relu(x, 0.2), [X2]),
    "gelu": (lambda F, x: F.gelu(x, approximate="tanh"), [X2]),
    "silu": (lambda F, x: F.silu(x), [X2]),
    "mish": (lambda F, x: F.mish(x), [X2]),
    "hardtanh": (lambda F, x: F.hardtanh(x, -0.5, 0.5), [X2]),
    "hardswish": (lambda F, x: F.hardswish(x * 3), [X2]),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x * 3), [X2]),
    "logsigmoid": (lambda F, x: F.logsigmoid(x * 30), [X2]),
    "softplus": (lambda F, x: F.softplus(x * 10, beta=2, threshold=5), [X2]),
    "softmax": (lambda F, x: F.softmax(x, dim=0), [X2]),
    "log_softmax": (lambda F, x: F.log_softmax(x, dim=1), [X2]),
    "softmin": (lambda F, x: F.softmin(x, dim=1), [X2]),
    "normalize": (lambda F, x: F.normalize(x, dim=0), [X2]),
    "normalize_p1": (lambda F, x: F.normalize(x, p=1.0), [X2]),
    "cosine_similarity": (lambda F, x, y: F.cosine_similarity(x, y), [X2, X2[::-1].copy()]),
    "conv2d": (lambda F, x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
               [X4, rng.normal(size=(4, 3, 3, 3)), rng.normal(size=4)]),
    "conv1d": (lambda F, x, w: F.conv1d(x, w, padding=2, dilation=2),
               [X4[:, :, 0], rng.normal(size=(2, 3, 3))]),
    "max_pool2d": (lambda F, x: F.max_pool2d(x, 3, 2, 1), [X4]),
    "avg_pool2d": (lambda F, x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), [X4]),
    "max_pool1d": (lambda F, x: F.max_pool1d(x, 2), [X4[:, :, 0]]),
    "avg_pool1d": (lambda F, x: F.avg_pool1d(x, 3, 1, 1), [X4[:, :, 0]]),
    "adaptive_avg_pool2d": (lambda F, x: F.adaptive_avg_pool2d(x, (2, 3)), [X4]),
    "adaptive_avg_pool1d": (lambda F, x: F.adaptive_avg_pool1d(x, 2), [X4[:, :, 0]]),
    "batch_norm_train": (lambda F, x, w, b: F.batch_norm(x, None, None, w, b, True),
                         [X4, rng.normal(size=3), rng.normal(size=3)]),
    "layer_norm": (lambda F, x, w: F.layer_norm(x, (6, 6), w), [X4, rng.normal(size=(6, 6))]),
    "group_norm": (lambda F, x, w, b: F.group_norm(x, 3, w, b), [X4, rng.normal(size=3),
                                                                   rng.normal(size=3)]),
    "instance_norm": (lambda F, x: F.instance_norm(x), [X4]),
    "embedding": (lambda F, w: F.embedding(F.one_hot(o_or_t(F, [[0, 2], [2, 1]]), 3).argmax(-1),
                                           w, padding_idx=1), [rng.normal(size=(3, 4))]),
    "pad": (lambda F, x: F.pad(x, (1, 2, 0, 1), value=0.5), [X4]),
    "cross_entropy": (lambda F, x: F.cross_entropy(x, o_or_t(F, LAB)), [X2]),
    "cross_entropy_all": (lambda F, x, w: F.cross_entropy(x, o_or_t(F, LAB), weight=w,
                                                          ignore_index=3, label_smoothing=0.2),
                          [X2, rng.uniform(0.5, 2, size=4)], 1),
    "cross_entropy_probs": (lambda F, x, p: F.cross_entropy(x, p, label_smoothing=0.1),
                            [X2, PROB]),
    "cross_entropy_kdim": (lambda F, x: F.cross_entropy(
        x, o_or_t(F, rng_fixed().integers(0, 3, size=(2, 6, 6))), reduction="none"), [X4]),
    "cross_entropy_unbatched": (lambda F, x: F.cross_entropy(x, o_or_t(F, np.array(2))),
                                [X2[0]]),
    "nll_loss": (lambda F, x: F.nll_loss(F.log_softmax(x, 1), o_or_t(F, LAB), reduction="sum"),
                 [X2]),
    "nll_loss_kdim": (lambda F, x: F.nll_loss(F.log_softmax(x, 1), o_or_t(
        F, rng_fixed().integers(0, 3, size=(2, 6, 6)))), [X4]),
    "mse_loss": (lambda F, x, y: F.mse_loss(x, y, reduction="sum"), [X2, X2 * 0.5]),
    "l1_loss": (lambda F, x, y: F.l1_loss(x, y), [X2, X2 * 0.5 + 0.1]),
    "bce": (lambda F, x, y: F.binary_cross_entropy(x.sigmoid(), y), [X2, (X2 > 0) * 1.0]),
    "bce_logits": (lambda F, x, y, p: F.binary_cross_entropy_with_logits(x, y, pos_weight=p),
                   [X2 * 5, (X2 > 0) * 1.0, rng.uniform(0.5, 2, size=4)], 2),
    "smooth_l1": (lambda F, x, y: F.smooth_l1_loss(x, y, beta=0.5), [X2, X2[::-1].copy()]),
    "huber": (lambda F, x, y: F.huber_loss(x, y, delta=0.7), [X2, X2[::-1].copy()]),
    "kl_div": (lambda F, x, y: F.kl_div(F.log_softmax(x, 1), y, reduction="batchmean"),
               [X2, PROB]),
    "kl_div_log_target": (lambda F, x, y: F.kl_div(x, y.log(), reduction="sum",
                                                   log_target=True), [X2, PROB]),
    "legacy_size_average": (lambda F, x, y: F.mse_loss(x, y, size_average=False), [X2, X2 * 2]),
}


def rng_fixed():
    return np.random.default_rng(1)


def o_or_t(F, a):
    return o(a) if F is OF else t(a)


@pytest.mark.parametrize("name", sorted(FUNCTIONAL))
def test_functional_matches_torch_forward_and_backward(name):
    fn, arrs, *ngrad = FUNCTIONAL[name]     # ngrad: how many leading inputs torch differentiates
    n = ngrad[0] if ngrad else len(arrs)
    oi = [o(a, i < n) for i, a in enumerate(arrs)]
    ti = [t(a, i < n) for i, a in enumerate(arrs)]
    tol = 1e-7 if name.startswith("hard") else 1e-9  # torch's hardsigmoid uses float32(1/6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oy, ty = fn(OF, *oi), fn(TF, *ti)
    assert isinstance(oy, otorch.Tensor)
    close(oy, ty, 1e-10)
    g = rng_fixed().normal(size=ty.shape)
    oy.backward(o(g))
    ty.backward(t(g))
    for a, b in zip(oi, ti):
        if b.grad is not None:
            close(a.grad, b.grad, tol)


def test_functional_dropout_and_one_hot_like_torch():
    x = otorch.ones(1000)
    assert OF.dropout(x, 0.3, training=False) is x
    y = OF.dropout(x, 0.3)
    kept = y.numpy() != 0
    assert np.allclose(y.numpy()[kept], 1 / 0.7) and 0.6 < kept.mean() < 0.8
    otorch.manual_seed(0)
    torch.manual_seed(0)
    same = np.array_equal(OF.dropout(otorch.ones(40), 0.5).numpy(),
                          TF.dropout(torch.ones(40), 0.5).numpy())
    assert same, "the dropout mask should be PyTorch's draw"
    m = OF.dropout2d(otorch.ones(4, 8, 3, 3), 0.5).numpy()
    assert all(len(np.unique(m[n, c])) == 1 for n in range(4) for c in range(8))
    with pytest.raises(ValueError, match="between 0 and 1"):
        OF.dropout(x, 1.5)
    oh, toh = OF.one_hot(o(np.array([0, 2])), 4), TF.one_hot(t(np.array([0, 2])), 4)
    assert str(oh.dtype) == str(toh.dtype) == "torch.int64" and oh.tolist() == toh.tolist()


# ----------------------------------------------------------------------- layers in both modes
LAYERS = {
    "BatchNorm1d": (lambda nn: nn.BatchNorm1d(4), (6, 4)),
    "BatchNorm1d_3d_cumulative": (lambda nn: nn.BatchNorm1d(4, momentum=None), (6, 4, 3)),
    "BatchNorm2d_no_affine": (lambda nn: nn.BatchNorm2d(3, affine=False, momentum=0.3),
                              (2, 3, 4, 4)),
    "BatchNorm2d_no_stats": (lambda nn: nn.BatchNorm2d(3, track_running_stats=False),
                             (2, 3, 4, 4)),
    "LayerNorm": (lambda nn: nn.LayerNorm([4, 4], bias=False), (2, 3, 4, 4)),
    "GroupNorm": (lambda nn: nn.GroupNorm(2, 4), (2, 4, 3, 3)),
    "InstanceNorm2d": (lambda nn: nn.InstanceNorm2d(3), (2, 3, 4, 4)),
    "InstanceNorm2d_affine_stats": (lambda nn: nn.InstanceNorm2d(3, affine=True,
                                                                 track_running_stats=True),
                                    (2, 3, 4, 4)),
    "InstanceNorm1d_unbatched": (lambda nn: nn.InstanceNorm1d(3), (3, 5)),
    "Conv2d": (lambda nn: nn.Conv2d(3, 2, 3, stride=2, padding="valid"), (2, 3, 7, 7)),
    "Conv1d_same": (lambda nn: nn.Conv1d(3, 2, 4, padding="same"), (2, 3, 7)),
    "Linear_3d": (lambda nn: nn.Linear(4, 2), (2, 3, 4)),
    "Bilinear": (lambda nn: nn.Bilinear(4, 4, 2), (3, 4)),
    "PReLU": (lambda nn: nn.PReLU(3), (2, 3, 4)),
    "AvgPool2d": (lambda nn: nn.AvgPool2d(3, stride=1, padding=1), (2, 3, 5, 5)),
    "MaxPool2d": (lambda nn: nn.MaxPool2d(2), (2, 3, 5, 5)),
    "Softmax": (lambda nn: nn.Softmax(dim=-1), (2, 5)),
    "LogSoftmax": (lambda nn: nn.LogSoftmax(1), (2, 5)),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layers_match_torch_in_train_and_eval(name):
    make, shape = LAYERS[name]
    torch.manual_seed(0)
    tl = make(tnn)
    ol = make(onn)
    sd = tl.state_dict()
    if sd:
        ol.load_state_dict({k: otorch.tensor(v.numpy()) for k, v in sd.items()})
    x = rng_fixed().normal(size=shape).astype(np.float32)
    for mode in ("train", "train", "eval"):
        getattr(tl, mode)()
        getattr(ol, mode)()
        args = (x, x[::-1].copy()) if name == "Bilinear" else (x,)
        tx = [torch.tensor(a, requires_grad=True) for a in args]
        ox = [otorch.tensor(a, requires_grad=True) for a in args]
        ty, oy = tl(*tx), ol(*ox)
        close(oy, ty, 1e-5)
        ty.sum().backward()
        oy.sum().backward()
        for a, b in zip(ox, tx):
            close(a.grad, b.grad, 1e-4)
    for k, v in tl.state_dict().items():            # running statistics after two steps
        close(ol.state_dict()[k], v, 1e-5)
    assert repr(ol) == repr(tl)


RNNS = {
    "LSTM_2layer_bidirectional_batch_first": lambda nn: nn.LSTM(3, 4, 2, batch_first=True,
                                                                bidirectional=True),
    "GRU": lambda nn: nn.GRU(3, 4),
    "RNN_relu_nobias": lambda nn: nn.RNN(3, 4, 2, nonlinearity="relu", bias=False),
}


@pytest.mark.parametrize("name", sorted(RNNS))
def test_recurrent_layers_match_torch(name):
    torch.manual_seed(0)
    otorch.manual_seed(0)
    tl, ol = RNNS[name](tnn), RNNS[name](onn)
    tsd, osd = tl.state_dict(), ol.state_dict()
    assert list(osd) == list(tsd) and repr(ol) == repr(tl)
    for k in tsd:                                   # PyTorch's initial draws
        assert np.array_equal(osd[k].numpy(), tsd[k].numpy()), k
    x = rng_fixed().normal(size=(2, 5, 3)).astype(np.float32)
    tx, ox = torch.tensor(x, requires_grad=True), otorch.tensor(x, requires_grad=True)
    (ty, th), (oy, oh) = tl(tx), ol(ox)
    close(oy, ty)
    for a, b in zip(oh if isinstance(oh, tuple) else [oh], th if isinstance(th, tuple) else [th]):
        close(a, b)
    ty.sum().backward()
    oy.sum().backward()
    close(ox.grad, tx.grad)
    for a, b in zip(ol.parameters(), tl.parameters()):
        close(a.grad, b.grad, 1e-5)
    (ty1, _), (oy1, _) = tl(tx[0].detach()), ol(ox[0].detach())     # unbatched input
    close(oy1, ty1)


LOSSES = {
    "CrossEntropyLoss": (lambda nn, lib: nn.CrossEntropyLoss(
        weight=lib.tensor([1.0, 2.0, 0.5, 1.0]), label_smoothing=0.1), "cls"),
    "NLLLoss": (lambda nn, lib: nn.NLLLoss(ignore_index=0, reduction="sum"), "logp"),
    "MSELoss": (lambda nn, lib: nn.MSELoss(), "reg"),
    "L1Loss": (lambda nn, lib: nn.L1Loss(reduction="none"), "reg"),
    "BCELoss": (lambda nn, lib: nn.BCELoss(), "prob"),
    "BCEWithLogitsLoss": (lambda nn, lib: nn.BCEWithLogitsLoss(pos_weight=lib.ones(4) * 2),
                          "bin"),
    "SmoothL1Loss": (lambda nn, lib: nn.SmoothL1Loss(beta=0.5), "reg"),
    "HuberLoss": (lambda nn, lib: nn.HuberLoss(delta=0.5), "reg"),
    "KLDivLoss": (lambda nn, lib: nn.KLDivLoss(reduction="batchmean"), "kl"),
}


def F_(nn):
    return OF if nn is onn else TF


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_modules_match_torch(name):
    make, kind = LOSSES[name]
    x = X2.astype(np.float32)
    target = {"cls": LAB, "logp": LAB, "reg": x[::-1].copy(), "prob": (x > 0) * np.float32(1),
              "bin": (x > 0) * np.float32(1), "kl": PROB.astype(np.float32)}[kind]

    def run(nn, lib):
        loss = make(nn, lib)
        inp = lib.tensor(x, requires_grad=True)
        arg = {"logp": lambda: F_(nn).log_softmax(inp, 1), "prob": lambda: inp.sigmoid(),
               "kl": lambda: F_(nn).log_softmax(inp, 1)}.get(kind, lambda: inp)()
        out = loss(arg, lib.tensor(target))
        out.sum().backward()
        return out, inp.grad, loss
    oo, og, ol = run(onn, otorch)
    to, tg, tl = run(tnn, torch)
    close(oo, to, 1e-5)
    close(og, tg, 1e-5)
    assert list(ol.state_dict()) == list(tl.state_dict()) and repr(ol) == repr(tl)


def test_batchnorm_momentum_none_and_num_batches_tracked():
    tl, ol = tnn.BatchNorm1d(3, momentum=None), onn.BatchNorm1d(3, momentum=None)
    for i in range(4):
        x = rng_fixed().normal(size=(5, 3)).astype(np.float32) + i
        tl(torch.tensor(x))
        ol(otorch.tensor(x))
    close(ol.running_mean, tl.running_mean)
    close(ol.running_var, tl.running_var)
    assert int(ol.num_batches_tracked) == int(tl.num_batches_tracked) == 4
    ol.momentum = 0.5                        # the attribute is PyTorch's momentum
    tl.momentum = 0.5
    x = rng_fixed().normal(size=(5, 3)).astype(np.float32)
    tl(torch.tensor(x))
    ol(otorch.tensor(x))
    close(ol.running_mean, tl.running_mean)
    ol.reset_running_stats()
    assert int(ol.num_batches_tracked) == 0 and not ol.running_mean.numpy().any()
    with pytest.raises(ValueError, match="4D"):
        onn.BatchNorm2d(3)(otorch.ones(2, 3))


# ----------------------------------------------------------------------- nn.init
INITS = {
    "kaiming_uniform_": lambda I, w: I.kaiming_uniform_(w, a=math.sqrt(5)),
    "kaiming_uniform_fan_out_relu": lambda I, w: I.kaiming_uniform_(w, mode="fan_out",
                                                                    nonlinearity="relu"),
    "kaiming_normal_": lambda I, w: I.kaiming_normal_(w, nonlinearity="relu"),
    "xavier_uniform_": lambda I, w: I.xavier_uniform_(w, gain=I.calculate_gain("tanh")),
    "xavier_normal_": lambda I, w: I.xavier_normal_(w),
    "uniform_": lambda I, w: I.uniform_(w, -0.3, 0.7),
    "normal_": lambda I, w: I.normal_(w, 0.5, 2.0),
    "constant_": lambda I, w: I.constant_(w, 0.25),
    "zeros_": lambda I, w: I.zeros_(w),
    "ones_": lambda I, w: I.ones_(w),
}


@pytest.mark.parametrize("name", sorted(INITS))
@pytest.mark.parametrize("shape", [(5, 3), (4, 2, 3, 3), (6, 3, 2)])
def test_init_draws_torch_values_with_torch_fans(name, shape):
    torch.manual_seed(1)
    otorch.manual_seed(1)
    tw = tnn.Parameter(torch.empty(shape))
    ow = onn.Parameter(otorch.empty(shape))
    v = ow._version
    r = INITS[name](onn.init, ow)
    INITS[name](tnn.init, tw)
    assert r is ow and ow.is_leaf and ow.grad_fn is None and ow._version > v
    np.testing.assert_array_equal(ow.detach().numpy(), tw.detach().numpy())


def test_init_fans_gain_trunc_normal_orthogonal_eye():
    for shape in [(5, 3), (4, 2, 3, 3), (3, 7)]:
        assert onn.init._calculate_fan_in_and_fan_out(otorch.empty(shape)) == \
            tnn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    with pytest.raises(ValueError):
        onn.init.kaiming_uniform_(otorch.empty(3))
    for nl, p in [("relu", None), ("leaky_relu", 0.2), ("tanh", None), ("selu", None),
                  ("linear", None), ("conv2d", None), ("sigmoid", None)]:
        assert onn.init.calculate_gain(nl, p) == tnn.init.calculate_gain(nl, p)
    w = onn.init.trunc_normal_(otorch.empty(20000), mean=1.0, std=2.0, a=-1.0, b=2.0)
    tw = tnn.init.trunc_normal_(torch.empty(200000), mean=1.0, std=2.0, a=-1.0, b=2.0)
    assert w.min().item() >= -1.0 and w.max().item() <= 2.0
    assert abs(w.mean().item() - tw.mean().item()) < 0.03
    assert abs(w.std().item() - tw.std().item()) < 0.03
    otorch.manual_seed(2)
    torch.manual_seed(2)
    q = onn.init.orthogonal_(otorch.empty(3, 5), gain=2.0)
    tq = tnn.init.orthogonal_(torch.empty(3, 5), gain=2.0)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, 4 * np.eye(3), atol=1e-5)
    np.testing.assert_allclose(q.numpy(), tq.numpy(), atol=1e-5)
    assert onn.init.eye_(otorch.empty(2, 3)).tolist() == tnn.init.eye_(torch.empty(2, 3)).tolist()


# ----------------------------------------------------------------------- nn.utils
def test_clip_grad_norm_value_and_vector_conversion_like_torch():
    for norm_type in (2.0, 1.0, float("inf")):
        grads = [rng_fixed().normal(size=(3, 4)).astype(np.float32),
                 rng_fixed().normal(size=5).astype(np.float32) * 3]
        ops = [onn.Parameter(otorch.zeros(g.shape)) for g in grads]
        tps = [tnn.Parameter(torch.zeros(g.shape)) for g in grads]
        for p, q, g in zip(ops, tps, grads):
            p.grad, q.grad = otorch.tensor(g), torch.tensor(g)
        on = onn.utils.clip_grad_norm_(ops, 1.5, norm_type)
        tn = tnn.utils.clip_grad_norm_(tps, 1.5, norm_type)
        close(on, tn, 1e-6)
        assert isinstance(on, otorch.Tensor)
        for p, q in zip(ops, tps):
            close(p.grad, q.grad, 1e-6)
    onn.utils.clip_grad_value_(ops, 0.1)
    tnn.utils.clip_grad_value_(tps, 0.1)
    for p, q in zip(ops, tps):
        close(p.grad, q.grad)
    v, tv = onn.utils.parameters_to_vector(ops), tnn.utils.parameters_to_vector(tps)
    close(v, tv)
    onn.utils.vector_to_parameters(otorch.arange(17).float(), ops)
    tnn.utils.vector_to_parameters(torch.arange(17).float(), tps)
    for p, q in zip(ops, tps):
        close(p, q)


# ----------------------------------------------------------------------- the Paddle door
def test_paddle_door_new_layers_match_paddle():
    paddle = pytest.importorskip("paddle")
    x = rng_fixed().normal(size=(2, 4, 5, 5)).astype(np.float32)
    y = x[::-1].copy()
    pairs = [
        (lambda m: m.nn.GroupNorm(2, 4), x),
        (lambda m: m.nn.InstanceNorm2D(4), x),
        (lambda m: m.nn.SiLU(), x), (lambda m: m.nn.Softplus(2, 3), x),
        (lambda m: m.nn.ELU(0.5), x), (lambda m: m.nn.ReLU6(), x * 4),
        (lambda m: m.nn.Hardtanh(-0.5, 0.5), x), (lambda m: m.nn.LogSigmoid(), x),
        (lambda m: m.nn.LogSoftmax(1), x), (lambda m: m.nn.Identity(), x),
        (lambda m: m.nn.Unflatten(1, [2, 2]), x),
    ]
    for make, inp in pairs:
        close(make(oar)(oar.to_tensor(inp)).numpy(), make(paddle)(paddle.to_tensor(inp)).numpy())
    a, b = 1 / (1 + np.exp(-x)), 1 / (1 + np.exp(-y))
    losses = [(lambda m: m.nn.SmoothL1Loss(delta=0.5), a, b),
              (lambda m: m.nn.HuberLoss(delta=0.5), a, b),
              (lambda m: m.nn.BCELoss(), a, b),
              (lambda m: m.nn.KLDivLoss("batchmean"), np.log(a), b)]
    for make, inp, target in losses:
        close(make(oar)(oar.to_tensor(inp), oar.to_tensor(target)).numpy(),
              make(paddle)(paddle.to_tensor(inp), paddle.to_tensor(target)).numpy())
    conv = oar.nn.Conv1D(4, 2, 3, padding=1)
    pconv = paddle.nn.Conv1D(4, 2, 3, padding=1)
    pconv.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in conv.state_dict().items()})
    close(conv(oar.to_tensor(x[:, :, 0])).numpy(), pconv(paddle.to_tensor(x[:, :, 0])).numpy())
    assert list(oar.nn.InstanceNorm2D(4).state_dict()) == \
        list(paddle.nn.InstanceNorm2D(4).state_dict())


def test_paddle_door_forward_post_hook():
    lin = oar.nn.Linear(2, 2)
    h = lin.register_forward_post_hook(lambda layer, inp, out: out * 0)
    assert not lin(oar.ones([1, 2])).numpy().any()
    h.remove()
    assert lin(oar.ones([1, 2])).numpy().any()
    pre = lin.register_forward_pre_hook(lambda layer, inp: (inp[0] * 0,))
    np.testing.assert_allclose(lin(oar.ones([1, 2])).numpy()[0], lin.bias.numpy())
    pre.remove()


def test_module_deepcopy_and_pickle_keep_torch_classes():
    import pickle
    m = onn.Sequential(onn.Linear(2, 2), onn.BatchNorm1d(2))
    for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(c[0].weight) is otorch.nn.Parameter
        assert list(c.state_dict()) == list(m.state_dict())
        close(c[0].weight, m[0].weight)
