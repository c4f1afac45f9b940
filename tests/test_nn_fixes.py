"""Issue 8 in nn / optimizers / data loading / serialization: bad input refused (with the
exception type PyTorch 2.13 raises, read from torch in the test), check-then-write for
state dicts and optimizer steps, Parameters surviving deepcopy and pickle, and the
DataLoader's keywords, samplers, seeding and collation."""
from __future__ import annotations

import copy
import io as _io
import math
import pickle

import numpy as np
import pytest

import oar
import oar.torch  # noqa: F401  (the torch door's pools keep PyTorch's checks)
from oar import nn
from oar.nn import functional as F

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional


def _torch_error(fn):
    """The exception type torch 2.13 raises for fn(), or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e)
    return None


def _same_error(tfn, ofn):
    """oar refuses where torch refuses, with an exception catchable as torch's type."""
    et = _torch_error(tfn)
    assert et is not None, "torch accepted it: the case is wrong"
    with pytest.raises(et):
        ofn()


def _P(*shape):
    return nn.Parameter(np.ones(shape or (2,), np.float32))


def _T(*shape):
    return torch.ones(shape or (2,), requires_grad=True)


# ------------------------------------------------------------------ optimizers: construction
HYPER = [
    ("SGD", dict(lr=-1.0)),
    ("SGD", dict(lr=1.0, momentum=-0.5)),
    ("SGD", dict(lr=1.0, weight_decay=-1.0)),
    ("SGD", dict(lr=1.0, nesterov=True)),
    ("SGD", dict(lr=1.0, momentum=0.9, dampening=0.5, nesterov=True)),
    ("Adam", dict(lr=-1e-3)),
    ("Adam", dict(lr=float("nan"))),
    ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, -0.1))),
    ("Adam", dict(betas=(0.9, 1.5))),
    ("Adam", dict(eps=-1.0)),
    ("Adam", dict(weight_decay=-1.0)),
    ("AdamW", dict(weight_decay=-0.1)),
    ("AdamW", dict(lr="a")),
]


@pytest.mark.parametrize("name,kw", HYPER)
def test_optimizer_hyper_parameters_refused_as_torch(name, kw):
    _same_error(lambda: getattr(torch.optim, name)([_T()], **kw),
                lambda: getattr(oar.optim, name)([_P()], **kw))


def test_optimizer_nan_lr_refused_also_for_sgd():
    # torch's SGD lets lr=nan through (its Adam refuses it): oar refuses it everywhere,
    # with the exception type Adam uses
    assert _torch_error(lambda: torch.optim.Adam([_T()], lr=float("nan"))) is ValueError
    with pytest.raises(ValueError, match="learning rate"):
        oar.optim.SGD([_P()], lr=float("nan"))
    with pytest.raises(ValueError, match="learning rate"):
        oar.optimizer.SGD(learning_rate=-0.1, parameters=[_P()])
    with pytest.raises(ValueError, match="beta"):
        oar.optimizer.Adam(parameters=[_P()], beta1=1.0)
    opt = oar.optim.SGD([_P()], lr=0.1)
    with pytest.raises(ValueError):
        opt.set_lr(-1)
    assert opt.get_lr() == 0.1


def test_optimizer_params_argument_checked_as_torch():
    _same_error(lambda: torch.optim.SGD(_T(), lr=1), lambda: oar.optim.SGD(_P(), lr=1))
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        oar.optim.SGD(_P(), lr=1)
    _same_error(lambda: torch.optim.SGD([1, 2], lr=1), lambda: oar.optim.SGD([1, 2], lr=1))
    _same_error(lambda: torch.optim.SGD([_T() * 2], lr=1), lambda: oar.optim.SGD([_P() * 2], lr=1))
    with pytest.raises(ValueError, match="non-leaf"):
        oar.optim.SGD([_P() * 2], lr=1)
    _same_error(lambda: torch.optim.SGD([], lr=1), lambda: oar.optim.SGD([], lr=1))
    _same_error(lambda: torch.optim.SGD(3, lr=1), lambda: oar.optim.SGD(3, lr=1))
    _same_error(lambda: torch.optim.SGD([{"lr": 1}], lr=1), lambda: oar.optim.SGD([{"lr": 1}], lr=1))
    t, o = _T(), _P()
    _same_error(lambda: torch.optim.SGD([{"params": [t]}, {"params": [t]}], lr=1),
                lambda: oar.optim.SGD([{"params": [o]}, {"params": [o]}], lr=1))
    _same_error(lambda: torch.optim.SGD([{"params": {t}}], lr=1),
                lambda: oar.optim.SGD([{"params": {o}}], lr=1))
    # torch accepts a generator, a group with its own lr and a frozen parameter
    frozen = nn.Parameter(np.ones(2, np.float32), requires_grad=False)
    opt = oar.optim.SGD(iter([o, frozen]), lr=0.5)
    assert len(opt.param_groups[0]["params"]) == 2
    opt = oar.optim.SGD([{"params": [o], "lr": 0.25}, {"params": [_P()]}], lr=0.5, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.25, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.9
    with pytest.raises(ValueError):
        opt.add_param_group({"params": [o]})          # already optimised
    opt.add_param_group({"params": [_P()], "lr": 2.0})
    assert len(opt.param_groups) == 3


def test_param_groups_step_like_torch():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=3).astype(np.float32), rng.normal(size=2).astype(np.float32)
    oa, ob = nn.Parameter(a), nn.Parameter(b)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    oopt = oar.optim.SGD([{"params": [oa], "lr": 0.1}, {"params": [ob]}], lr=0.01, momentum=0.9)
    topt = torch.optim.SGD([{"params": [ta], "lr": 0.1}, {"params": [tb]}], lr=0.01, momentum=0.9)
    for _ in range(3):
        ((oa * oa).sum() + (ob * ob * ob).sum()).backward()
        ((ta * ta).sum() + (tb * tb * tb).sum()).backward()
        oopt.step()
        topt.step()
        oopt.zero_grad()
        topt.zero_grad()
    np.testing.assert_allclose(oa.numpy(), ta.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(ob.numpy(), tb.detach().numpy(), rtol=1e-6)


# ------------------------------------------------------------------ optimizers: check, then write
def _two_params_with_grads():
    w, b = _P(3), _P(2)
    (w.sum() + b.sum()).backward()
    return w, b


@pytest.mark.parametrize("make", [lambda ps: oar.optim.SGD(ps, lr=0.1, momentum=0.9),
                                  lambda ps: oar.optim.Adam(ps, lr=0.1),
                                  lambda ps: oar.optimizer.AdamW(parameters=ps)])
@pytest.mark.parametrize("bad", ["shape", "dtype", "object"])
def test_step_with_a_bad_gradient_changes_nothing(make, bad):
    w, b = _two_params_with_grads()
    opt = make([w, b])
    opt.step()                       # a good first step: state exists
    before = [w.numpy().copy(), b.numpy().copy()]
    versions = [w.inplace_version, b.inplace_version]
    state = copy.deepcopy({k: {n: (v.numpy().copy() if isinstance(v, oar.Tensor) else v)
                               for n, v in st.items()} for k, st in opt.state.items()})
    if bad == "shape":
        b._grad = oar.ones([3])
    elif bad == "dtype":
        b._grad = oar.ones([2], dtype="float64")
    else:
        b._grad = 0.5
    with pytest.raises((ValueError, TypeError)):
        opt.step()
    assert np.array_equal(w.numpy(), before[0]) and np.array_equal(b.numpy(), before[1])
    assert [w.inplace_version, b.inplace_version] == versions
    for k, st in opt.state.items():
        for n, v in st.items():
            v = v.numpy() if isinstance(v, oar.Tensor) else v
            assert np.array_equal(v, state[k][n]), n


def test_optimizer_set_state_dict_checks_everything_first():
    w, b = _two_params_with_grads()
    opt = oar.optim.Adam([w, b], lr=0.1)
    opt.step()
    sd = opt.state_dict()
    w2, b2 = _two_params_with_grads()
    opt2 = oar.optim.Adam([w2, b2], lr=0.5)
    opt2.step()
    opt2.step()
    snap = {k: {n: (v.numpy().copy() if isinstance(v, oar.Tensor) else v) for n, v in st.items()}
            for k, st in opt2.state.items()}
    bad = dict(sd)
    bad["state.0.1"] = dict(sd["state.0.1"], exp_avg=np.zeros(7, np.float32))   # wrong shape, last
    with pytest.raises(ValueError, match="shape"):
        opt2.set_state_dict(bad)
    bad = dict(sd, param_groups=[dict(sd["param_groups"][0], lr=-1.0)])
    with pytest.raises(ValueError, match="learning rate"):
        opt2.set_state_dict(bad)
    with pytest.raises(ValueError):
        opt2.set_state_dict(dict(sd, param_groups=sd["param_groups"] * 2))
    with pytest.raises(TypeError):
        opt2.set_state_dict([1, 2])
    assert opt2.get_lr() == 0.5
    for k, st in opt2.state.items():
        for n, v in st.items():
            v = v.numpy() if isinstance(v, oar.Tensor) else v
            assert np.array_equal(v, snap[k][n]), n
    opt2.set_state_dict(sd)                 # the good one still loads
    assert opt2.get_lr() == 0.1 and opt2.state[id(w2)]["step"] == 1


# ------------------------------------------------------------------ Layer.set_state_dict
def test_layer_set_state_dict_checks_every_key_before_writing():
    net = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1D(2))
    before = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    versions = {k: v.inplace_version for k, v in net.state_dict().items()}
    good = {k: np.full(v.shape, 7, np.float32) for k, v in net.state_dict().items()}
    for key, value, err in [("1.bias", "abc", TypeError),                          # late key
                            ("1.bias", None, TypeError),
                            ("1.bias", np.array([1 + 2j, 3j], np.complex64), TypeError)]:
        with pytest.raises(err):
            net.set_state_dict(dict(good, **{key: value}))
        for k, v in net.state_dict().items():
            assert np.array_equal(v.numpy(), before[k]) and v.inplace_version == versions[k], k
    # a shape mismatch is skipped with a warning and the other keys load (Paddle's rule)
    with pytest.warns(UserWarning, match="1.bias receives a shape"):
        missing, unexpected = net.set_state_dict(dict(good, **{"1.bias": np.zeros(3, np.float32)}))
    assert missing == ["1.bias"] and unexpected == ["1.bias"]
    assert (net.state_dict()["0.weight"].numpy() == 7).all()
    assert np.array_equal(net.state_dict()["1.bias"].numpy(), before["1.bias"])
    net.set_state_dict({k: v.astype(np.float64) for k, v in good.items()})      # cast like copy_
    assert all((v.numpy() == 7).all() and v.dtype == oar.float32 for v in net.state_dict().values())


# ------------------------------------------------------------------ Parameter copies
def test_deepcopy_and_pickle_keep_parameters():
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    net[2].weight.stop_gradient = True
    for other in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        ps, qs = net.parameters(), other.parameters()
        assert len(qs) == 4 and all(type(q) is nn.Parameter for q in qs)
        assert [q.requires_grad for q in qs] == [p.requires_grad for p in ps] == [True, True, False, True]
        for p, q in zip(ps, qs):
            assert np.array_equal(p.numpy(), q.numpy()) and q.is_leaf
            assert not q._is_shared_buffer_with(p)
    other = copy.deepcopy(net)
    with oar.no_grad():
        other[0].weight.fill_(0.0)
    assert not (net[0].weight.numpy() == 0).all()
    # tied weights stay tied, as in torch
    tied = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    tied[1].weight = tied[0].weight
    c = copy.deepcopy(tied)
    assert c[1].weight is c[0].weight and len(c.parameters()) == 3
    tp = tnn.Parameter(torch.ones(2))
    assert type(copy.deepcopy(tp)) is tnn.Parameter      # the behaviour matched
    # an optimizer on the copy trains the copy only
    x = oar.ones([1, 3])
    opt = oar.optim.SGD(other.parameters(), lr=0.1)
    other(x).sum().backward()
    w0 = net[0].weight.numpy().copy()
    opt.step()
    assert np.array_equal(net[0].weight.numpy(), w0)


# ------------------------------------------------------------------ nn: bad inputs vs torch
X = np.random.default_rng(1).normal(size=(2, 3, 4, 4)).astype(np.float32)


def _tx():
    return torch.tensor(X)


def _ox():
    return oar.to_tensor(X)


NN_CASES = [
    # (Paddle's pools clip a kernel a little larger than the input and take any padding,
    # Note [Paddle pooling]: the torch door's layer keeps PyTorch's checks)
    ("MaxPool2D kernel > input", lambda: tnn.MaxPool2d(9, 1)(_tx()),
     lambda: nn.MaxPool2D(9, 1)(_ox())),
    ("MaxPool2D(0)", lambda: tnn.MaxPool2d(0)(_tx()), lambda: nn.MaxPool2D(0)(_ox())),
    ("MaxPool2D stride 0", lambda: tnn.MaxPool2d(2, 0)(_tx()), lambda: nn.MaxPool2D(2, 0)(_ox())),
    ("MaxPool2D pad > k/2", lambda: tnn.MaxPool2d(2, padding=2)(_tx()),
     lambda: oar.torch.nn.MaxPool2d(2, padding=2)(_ox())),
    ("MaxPool2D pad < 0", lambda: tnn.MaxPool2d(2, padding=-1)(_tx()),
     lambda: nn.MaxPool2D(2, padding=-1)(_ox())),
    ("max_pool2d 2-D input", lambda: TF.max_pool2d(_tx()[0, 0], 2), lambda: F.max_pool2d(_ox()[0, 0], 2)),
    ("AvgPool2D kernel > input", lambda: tnn.AvgPool2d(9, 1)(_tx()),
     lambda: nn.AvgPool2D(9, 1)(_ox())),
    ("AvgPool2D(0)", lambda: tnn.AvgPool2d(0)(_tx()), lambda: nn.AvgPool2d(0)(_ox())),
    ("Conv2D stride 0", lambda: tnn.Conv2d(3, 4, 3, stride=0)(_tx()),
     lambda: nn.Conv2D(3, 4, 3, stride=0)(_ox())),
    ("Conv2D kernel 0", lambda: tnn.Conv2d(3, 4, 0)(_tx()), lambda: nn.Conv2D(3, 4, 0)(_ox())),
    ("Conv2D padding < 0", lambda: tnn.Conv2d(3, 4, 3, padding=-1)(_tx()),
     lambda: nn.Conv2D(3, 4, 3, padding=-1)(_ox())),
    ("Conv2D dilation 0", lambda: tnn.Conv2d(3, 4, 3, dilation=0)(_tx()),
     lambda: nn.Conv2D(3, 4, 3, dilation=0)(_ox())),
    ("Conv2D wrong channels", lambda: tnn.Conv2d(5, 4, 3)(_tx()), lambda: nn.Conv2D(5, 4, 3)(_ox())),
    ("Conv2D 2-D input", lambda: tnn.Conv2d(3, 4, 3)(_tx()[0, 0]),
     lambda: nn.Conv2D(3, 4, 3)(_ox()[0, 0])),
    ("Conv2D 5-D input", lambda: tnn.Conv2d(3, 4, 3)(_tx()[None]),
     lambda: nn.Conv2D(3, 4, 3)(_ox()[None])),
    ("Conv2D kernel > input", lambda: tnn.Conv2d(3, 4, 5)(_tx()), lambda: nn.Conv2D(3, 4, 5)(_ox())),
    ("Conv2D int input", lambda: tnn.Conv2d(3, 4, 3)(_tx().long()),
     lambda: nn.Conv2D(3, 4, 3)(_ox().astype("int64"))),
    ("Conv2D float64 input", lambda: tnn.Conv2d(3, 4, 3)(_tx().double()),
     lambda: nn.Conv2D(3, 4, 3)(_ox().astype("float64"))),
    ("Conv2D negative channels", lambda: tnn.Conv2d(-3, 4, 3), lambda: nn.Conv2D(-3, 4, 3)),
    ("Conv2D bad padding string", lambda: tnn.Conv2d(3, 4, 3, padding="bogus"),
     lambda: nn.Conv2D(3, 4, 3, padding="bogus")),
    # the PyTorch door's rule (Paddle's door takes it: tests/test_paddle_conv_same_stride.py)
    ("Conv2d same + stride", lambda: tnn.Conv2d(3, 4, 3, padding="same", stride=2),
     lambda: oar.torch.nn.Conv2d(3, 4, 3, padding="same", stride=2)),
    ("Conv2D groups", lambda: tnn.Conv2d(3, 4, 3, groups=2), lambda: nn.Conv2D(3, 4, 3, groups=2)),
    ("BatchNorm1d batch of one", lambda: tnn.BatchNorm1d(3)(torch.ones(1, 3)),
     lambda: nn.BatchNorm1D(3)(oar.ones([1, 3]))),
    ("BatchNorm2d one value per channel", lambda: tnn.BatchNorm2d(3)(torch.ones(1, 3, 1, 1)),
     lambda: nn.BatchNorm2d(3)(oar.ones([1, 3, 1, 1]))),
    ("BatchNorm wrong channels", lambda: tnn.BatchNorm1d(3)(torch.ones(2, 4)),
     lambda: nn.BatchNorm1d(3)(oar.ones([2, 4]))),
    ("BatchNorm2d 3-D input", lambda: tnn.BatchNorm2d(3)(torch.ones(2, 3, 4)),
     lambda: nn.BatchNorm2D(3)(oar.ones([2, 3, 4]))),
    ("BatchNorm1d 4-D input", lambda: tnn.BatchNorm1d(3)(torch.ones(2, 3, 4, 4)),
     lambda: nn.BatchNorm1d(3)(oar.ones([2, 3, 4, 4]))),
    ("cross_entropy label out of range", lambda: TF.cross_entropy(torch.zeros(2, 3), torch.tensor([3, 0])),
     lambda: F.cross_entropy(oar.zeros([2, 3]), oar.to_tensor([3, 0]))),
    ("cross_entropy negative label", lambda: TF.cross_entropy(torch.zeros(2, 3), torch.tensor([-1, 0])),
     lambda: F.cross_entropy(oar.zeros([2, 3]), oar.to_tensor([-1, 0]))),
    ("cross_entropy float class label", lambda: TF.cross_entropy(torch.zeros(2, 3), torch.tensor([1.0, 0.0])),
     lambda: F.cross_entropy(oar.zeros([2, 3]), oar.to_tensor([1.0, 0.0]))),
    ("cross_entropy bad reduction", lambda: TF.cross_entropy(torch.zeros(2, 3), torch.tensor([1, 0]), reduction="x"),
     lambda: F.cross_entropy(oar.zeros([2, 3]), oar.to_tensor([1, 0]), reduction="x")),
    ("cross_entropy batch mismatch", lambda: TF.cross_entropy(torch.zeros(2, 3), torch.tensor([1, 0, 1])),
     lambda: F.cross_entropy(oar.zeros([2, 3]), oar.to_tensor([1, 0, 1]))),
    ("cross_entropy label_smoothing 1.5",
     lambda: TF.cross_entropy(torch.zeros(2, 3), torch.tensor([1, 0]), label_smoothing=1.5),
     lambda: F.cross_entropy(oar.zeros([2, 3]), oar.to_tensor([1, 0]), label_smoothing=1.5)),
    ("cross_entropy weight size", lambda: TF.cross_entropy(torch.zeros(2, 3), torch.tensor([1, 0]), weight=torch.ones(4)),
     lambda: F.cross_entropy(oar.zeros([2, 3]), oar.to_tensor([1, 0]), weight=oar.ones([4]))),
    ("nll_loss out of range", lambda: TF.nll_loss(torch.zeros(2, 3), torch.tensor([3, 0])),
     lambda: F.nll_loss(oar.zeros([2, 3]), oar.to_tensor([3, 0]))),
    ("Embedding negative index", lambda: tnn.Embedding(5, 2)(torch.tensor([-1])),
     lambda: nn.Embedding(5, 2)(oar.to_tensor([-1]))),
    ("Embedding index out of range", lambda: tnn.Embedding(5, 2)(torch.tensor([5])),
     lambda: nn.Embedding(5, 2)(oar.to_tensor([5]))),
    ("Embedding float index", lambda: tnn.Embedding(5, 2)(torch.tensor([1.0])),
     lambda: nn.Embedding(5, 2)(oar.to_tensor([1.0]))),
    ("Linear int input", lambda: tnn.Linear(3, 2)(torch.ones(2, 3, dtype=torch.long)),
     lambda: nn.Linear(3, 2)(oar.ones([2, 3], dtype="int64"))),
    ("Linear float64 input", lambda: tnn.Linear(3, 2)(torch.ones(2, 3, dtype=torch.float64)),
     lambda: nn.Linear(3, 2)(oar.ones([2, 3], dtype="float64"))),
    ("Linear wrong features", lambda: tnn.Linear(3, 2)(torch.ones(2, 4)),
     lambda: nn.Linear(3, 2)(oar.ones([2, 4]))),
    ("Linear 0-d input", lambda: tnn.Linear(3, 2)(torch.tensor(1.0)),
     lambda: nn.Linear(3, 2)(oar.to_tensor(1.0))),
    ("Linear negative size", lambda: tnn.Linear(-1, 2), lambda: nn.Linear(-1, 2)),
    ("F.linear int input", lambda: TF.linear(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3)),
     lambda: F.linear(oar.ones([2, 3], dtype="int64"), oar.ones([3, 2]))),
    ("dropout p=1.5", lambda: TF.dropout(torch.ones(2), p=1.5), lambda: F.dropout(oar.ones([2]), p=1.5)),
    ("Dropout(-0.1)", lambda: tnn.Dropout(-0.1), lambda: nn.Dropout(-0.1)),
    ("dropout int input", lambda: TF.dropout(torch.ones(2, dtype=torch.long), 0.5),
     lambda: F.dropout(oar.ones([2], dtype="int64"), 0.5)),
    ("relu inplace on a leaf", lambda: TF.relu(torch.ones(2, requires_grad=True), inplace=True),
     lambda: F.relu(oar.ones([2]).requires_grad_(), inplace=True)),
    ("leaky_relu inplace on a leaf", lambda: TF.leaky_relu(torch.ones(2, requires_grad=True), inplace=True),
     lambda: F.leaky_relu(oar.ones([2]).requires_grad_(), inplace=True)),
    ("dropout inplace on a leaf", lambda: TF.dropout(torch.ones(2, requires_grad=True), inplace=True),
     lambda: F.dropout(oar.ones([2]).requires_grad_(), inplace=True)),
    ("softmax dim out of range", lambda: TF.softmax(torch.ones(2, 3), dim=5),
     lambda: F.softmax(oar.ones([2, 3]), dim=5)),
    ("LayerNorm wrong shape", lambda: tnn.LayerNorm(4)(torch.ones(2, 3)),
     lambda: nn.LayerNorm(4)(oar.ones([2, 3]))),
    ("mse_loss shapes", lambda: TF.mse_loss(torch.ones(2, 3), torch.ones(3, 2)),
     lambda: F.mse_loss(oar.ones([2, 3]), oar.ones([3, 2]))),
    ("MSELoss bad reduction", lambda: tnn.MSELoss(reduction="bogus")(torch.ones(2), torch.ones(2)),
     lambda: nn.MSELoss(reduction="bogus")(oar.ones([2]), oar.ones([2]))),
    ("one_hot negative", lambda: TF.one_hot(torch.tensor([-1]), 3), lambda: F.one_hot(oar.to_tensor([-1]), 3)),
    ("one_hot out of range", lambda: TF.one_hot(torch.tensor([3]), 3), lambda: F.one_hot(oar.to_tensor([3]), 3)),
    ("one_hot float", lambda: TF.one_hot(torch.tensor([1.0]), 3), lambda: F.one_hot(oar.to_tensor([1.0]), 3)),
    ("Flatten dim out of range", lambda: tnn.Flatten(5)(torch.ones(2, 3)), lambda: nn.Flatten(5)(oar.ones([2, 3]))),
    ("adaptive_avg_pool2d negative", lambda: tnn.AdaptiveAvgPool2d(-1)(_tx()),
     lambda: nn.AdaptiveAvgPool2D(-1)(_ox())),
    ("bce_with_logits shapes", lambda: TF.binary_cross_entropy_with_logits(torch.ones(2, 3), torch.ones(3, 2)),
     lambda: F.binary_cross_entropy_with_logits(oar.ones([2, 3]), oar.ones([3, 2]))),
    ("gelu approximate", lambda: TF.gelu(torch.ones(2), approximate="bogus"),
     lambda: F.gelu(oar.ones([2]), approximate="bogus")),
    ("pad odd length", lambda: TF.pad(torch.ones(2, 3), (1,)), lambda: F.pad(oar.ones([2, 3]), [1])),
    ("pad mode", lambda: TF.pad(torch.ones(2, 3), (1, 1), mode="bogus"),
     lambda: F.pad(oar.ones([2, 3]), [1, 1], mode="bogus")),
]


@pytest.mark.parametrize("name,tfn,ofn", NN_CASES, ids=[c[0] for c in NN_CASES])
def test_nn_bad_inputs_refused_as_torch(name, tfn, ofn):
    _same_error(tfn, ofn)


def test_nn_bad_input_leaves_running_stats_unchanged():
    bn = nn.BatchNorm1D(3)
    before = bn._mean.numpy().copy(), bn._variance.numpy().copy(), bn._mean.inplace_version
    with pytest.raises(ValueError):
        bn(oar.ones([1, 3]))
    assert np.array_equal(bn._mean.numpy(), before[0]) and bn._mean.inplace_version == before[2]
    bn.eval()
    assert bn(oar.ones([1, 3])).shape == [1, 3]          # eval on one sample is fine (torch too)


def test_nn_legal_corners_match_torch():
    rng = np.random.default_rng(3)
    # empty batch and all-ignored mean: nan, as torch
    for logits, labels in [(np.zeros((0, 3), np.float32), np.zeros(0, np.int64)),
                           (np.zeros((2, 3), np.float32), np.array([-100, -100]))]:
        for red in ("mean", "sum"):
            tv = TF.cross_entropy(torch.tensor(logits), torch.tensor(labels), reduction=red).item()
            ov = F.cross_entropy(oar.to_tensor(logits), oar.to_tensor(labels), reduction=red).item()
            assert (math.isnan(tv) and math.isnan(ov)) or (tv == ov and math.copysign(1, tv) == math.copysign(1, ov)), (red, tv, ov)
            tv = TF.nll_loss(torch.tensor(logits), torch.tensor(labels), reduction=red).item()
            ov = F.nll_loss(oar.to_tensor(logits), oar.to_tensor(labels), reduction=red).item()
            assert (math.isnan(tv) and math.isnan(ov)) or tv == ov, (red, tv, ov)
    # unbatched conv / pool input, padding='same' with an even kernel, negative pad crops
    x = rng.normal(size=(3, 6, 5)).astype(np.float32)
    conv = nn.Conv2D(3, 2, 4, padding="same")
    tconv = tnn.Conv2d(3, 2, 4, padding="same")
    with torch.no_grad():
        tconv.weight.copy_(torch.tensor(conv.weight.numpy()))
        tconv.bias.copy_(torch.tensor(conv.bias.numpy()))
    np.testing.assert_allclose(conv(oar.to_tensor(x)).numpy(), tconv(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)
    # unbatched pooling is PyTorch's (Paddle's pools take 4-D input only)
    np.testing.assert_allclose(oar.torch.nn.functional.max_pool2d(oar.to_tensor(x), 2).numpy(),
                               TF.max_pool2d(torch.tensor(x), 2).numpy())
    np.testing.assert_allclose(F.pad(oar.to_tensor(x), [-1, 2, 1, -2]).numpy(),
                               TF.pad(torch.tensor(x), (-1, 2, 1, -2)).numpy())
    # avg pooling with padding: torch's count_include_pad both ways, Paddle's exclusive default
    x4 = rng.normal(size=(1, 2, 5, 5)).astype(np.float32)
    for cip in (True, False):
        want = TF.avg_pool2d(torch.tensor(x4), 3, 2, 1, count_include_pad=cip).numpy()
        np.testing.assert_allclose(nn.AvgPool2d(3, 2, 1, count_include_pad=cip)(oar.to_tensor(x4)).numpy(),
                                   want, rtol=1e-6)
    want = TF.avg_pool2d(torch.tensor(x4), 3, 2, 1, count_include_pad=False).numpy()
    np.testing.assert_allclose(nn.AvgPool2D(3, 2, 1)(oar.to_tensor(x4)).numpy(), want, rtol=1e-6)
    ox = oar.to_tensor(x4).requires_grad_()
    tx = torch.tensor(x4, requires_grad=True)
    oar.torch.nn.functional.avg_pool2d(ox, 3, 2, 1, count_include_pad=False).sum().backward()
    TF.avg_pool2d(tx, 3, 2, 1, count_include_pad=False).sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    assert nn.AdaptiveAvgPool2D(0)(oar.to_tensor(x4)).shape == list(tnn.AdaptiveAvgPool2d(0)(torch.tensor(x4)).shape)
    assert nn.Embedding(5, 2, padding_idx=-1).padding_idx == tnn.Embedding(5, 2, padding_idx=-1).padding_idx


# ------------------------------------------------------------------ serialization entry points
def test_save_load_argument_errors(tmp_path, capsys):
    t = oar.ones([2])
    for bad in (1, None, 2.5, ["a"]):
        with pytest.raises(TypeError):
            oar.load(bad)
        with pytest.raises(TypeError):
            oar.save(t, bad)
    print("stdout still open")
    assert "stdout still open" in capsys.readouterr().out
    with pytest.raises(FileNotFoundError):
        oar.load(str(tmp_path / "nope.pdparams"))
    with pytest.raises((IsADirectoryError, PermissionError, OSError)):
        oar.save(t, str(tmp_path))
    with pytest.raises(OSError):
        oar.load(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        oar.load("")
    # file objects and path-likes work
    buf = _io.BytesIO()
    oar.save({"t": t}, buf)
    buf.seek(0)
    assert oar.load(buf)["t"].numpy().tolist() == [1.0, 1.0]
    oar.save(t, tmp_path / "t.pd")
    assert oar.load(tmp_path / "t.pd").numpy().tolist() == [1.0, 1.0]


# ------------------------------------------------------------------ DataLoader
tdata = pytest.importorskip("torch.utils.data")
DL = [
    ("unknown keyword", dict(bogus=1)),
    ("batch_size 0", dict(batch_size=0)),
    ("batch_size -1", dict(batch_size=-1)),
    ("batch_size 2.5", dict(batch_size=2.5)),
    ("sampler and shuffle", dict(shuffle=True, sampler=[0, 1])),
    ("batch_sampler and batch_size", dict(batch_sampler=[[0]], batch_size=2)),
    ("batch_sampler and drop_last", dict(batch_sampler=[[0]], drop_last=True)),
    ("num_workers -1", dict(num_workers=-1)),
    ("timeout -1", dict(timeout=-1)),
    ("persistent_workers without workers", dict(persistent_workers=True)),
    ("prefetch_factor without workers", dict(prefetch_factor=2)),
    ("batch_size None and drop_last", dict(batch_size=None, drop_last=True)),
]


@pytest.mark.parametrize("name,kw", DL, ids=[d[0] for d in DL])
def test_dataloader_bad_keywords_refused_as_torch(name, kw):
    _same_error(lambda: tdata.DataLoader([1, 2, 3], **kw), lambda: oar.io.DataLoader([1, 2, 3], **kw))


def test_samplers_bad_arguments_refused_as_torch():
    _same_error(lambda: tdata.BatchSampler([0, 1], 0, False), lambda: oar.io.BatchSampler([0, 1], 0, False))
    _same_error(lambda: tdata.BatchSampler([0, 1], 2, "x"), lambda: oar.io.BatchSampler([0, 1], 2, "x"))
    _same_error(lambda: tdata.RandomSampler([1, 2], num_samples=0),
                lambda: oar.io.RandomSampler([1, 2], num_samples=0))
    _same_error(lambda: tdata.RandomSampler([1, 2], replacement="x"),
                lambda: oar.io.RandomSampler([1, 2], replacement="x"))
    _same_error(lambda: tdata.default_collate([[1, 2], [3]]), lambda: oar.io.default_collate([[1, 2], [3]]))
    _same_error(lambda: tdata.default_collate([object(), object()]),
                lambda: oar.io.default_collate([object(), object()]))
    _same_error(lambda: tdata.default_collate([torch.ones(2), torch.ones(3)]),
                lambda: oar.io.default_collate([oar.ones([2]), oar.ones([3])]))


def _as_lists(batches):
    out = []
    for b in batches:
        if isinstance(b, dict):
            out.append({k: _as_lists([v])[0] for k, v in b.items()})
        elif isinstance(b, (list, tuple)):
            out.append([_as_lists([v])[0] for v in b])
        else:
            out.append(b.numpy().tolist() if hasattr(b, "numpy") else b)
    return out


def test_dataloader_sampler_batch_sampler_and_collate_like_torch():
    data = [{"x": np.full(2, i, np.float32), "y": i, "w": float(i) / 2, "name": f"s{i}"}
            for i in range(7)]
    for kw in [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(sampler=[6, 0, 3, 3]),
               dict(sampler=[6, 0, 3], batch_size=2), dict(batch_sampler=[[5, 1], [2], [0, 0, 4]]),
               dict(batch_size=None, sampler=[2, 4])]:
        t = list(tdata.DataLoader(data, **kw))
        o = list(oar.io.DataLoader(data, **kw))
        assert len(o) == len(t) == len(oar.io.DataLoader(data, **kw)) == len(tdata.DataLoader(data, **kw)), kw
        assert _as_lists(o) == _as_lists(t), kw
        for ob, tb in zip(o, t):
            if isinstance(tb, dict) and isinstance(tb["y"], torch.Tensor):
                assert ob["y"].dtype == oar.int64 and tb["y"].dtype == torch.int64
                assert ob["w"].dtype == oar.float64 and tb["w"].dtype == torch.float64
    # the sampler decides the data (a sampler that was ignored would train on other rows)
    x = oar.to_tensor(np.arange(10, dtype=np.float32))
    ds = oar.io.TensorDataset([x])
    got = [b[0].numpy().tolist() for b in oar.io.DataLoader(ds, sampler=[9, 8, 1], batch_size=2)]
    assert got == [[9.0, 8.0], [1.0]]
    got = [b[0].numpy().tolist() for b in oar.io.DataLoader(ds, batch_sampler=oar.io.BatchSampler(
        oar.io.SequentialSampler(ds), 4, drop_last=True))]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7]]
    # num_workers > 0: the same batches (loading stays in this process)
    assert _as_lists(oar.io.DataLoader(data, batch_size=2, num_workers=2)) == \
        _as_lists(oar.io.DataLoader(data, batch_size=2))
    assert oar.utils.data.RandomSampler is oar.io.RandomSampler


def test_dataloader_shuffle_is_reproducible_after_oar_seed():
    ds = oar.io.TensorDataset([oar.to_tensor(np.arange(20, dtype=np.float32))])

    def epochs(**kw):
        loader = oar.io.DataLoader(ds, batch_size=5, shuffle=True, **kw)
        return [[b[0].numpy().tolist() for b in loader] for _ in range(2)]

    oar.seed(3)
    a = epochs()
    oar.seed(3)
    b = epochs()
    oar.seed(4)
    c = epochs()
    assert a == b and a != c and a[0] != a[1]
    assert sorted(v for batch in a[0] for v in batch) == list(range(20))
    gen = np.random.default_rng(11)
    d = epochs(generator=gen)
    assert d == epochs(generator=np.random.default_rng(11))
    with pytest.raises(TypeError):
        oar.io.DataLoader(ds, shuffle=True, generator=3)
    oar.seed(5)
    s1 = list(oar.io.RandomSampler(range(6)))
    oar.seed(5)
    assert list(oar.io.RandomSampler(range(6))) == s1 and sorted(s1) == list(range(6))
    assert len(list(oar.io.RandomSampler(range(3), replacement=True, num_samples=8))) == 8
