"""oar.torch.optim, optim.lr_scheduler and utils.data against torch 2.13 (and the Paddle
door's Adadelta / Adagrad / RMSProp against paddle 3.3.1). Every expected value is computed
by the oracle inside the test."""
import copy
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch

torch = pytest.importorskip("torch")

OPTIMIZERS = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd_momentum_dampening_wd": ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1,
                                              weight_decay=0.01)),
    "sgd_nesterov_maximize": ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True,
                                          weight_decay=0.01, maximize=True)),
    "adam": ("Adam", dict(lr=0.01)),
    "adam_amsgrad_wd": ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    "adam_maximize_betas": ("Adam", dict(lr=0.01, betas=(0.8, 0.99), maximize=True)),
    "adam_decoupled": ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    "adamw": ("AdamW", dict(lr=0.01)),
    "adamw_amsgrad": ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.05)),
    "adadelta": ("Adadelta", dict()),
    "adadelta_wd_rho": ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1)),
    "adagrad": ("Adagrad", dict(lr=0.1)),
    "adagrad_decay_init": ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1,
                                           weight_decay=0.01, eps=1e-8)),
    "rmsprop": ("RMSprop", dict(lr=0.01)),
    "rmsprop_centered_momentum": ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True,
                                                  weight_decay=0.01, alpha=0.9)),
}


def _problem(dtype):
    rng = np.random.default_rng(0)
    return (rng.normal(size=(3, 4)).astype(dtype), rng.normal(size=3).astype(dtype),
            rng.normal(size=(8, 4)).astype(dtype), rng.normal(size=(8, 3)).astype(dtype))


def _trajectory(mod, cls, kw, dtype, steps=20):
    """20 steps of a small least-squares-plus-quartic problem; the weights after each."""
    W, b, X, Y = _problem(dtype)
    lin = mod.nn.Linear(4, 3).to(mod.float64 if dtype == np.float64 else mod.float32)
    with mod.no_grad():
        lin.weight.copy_(mod.tensor(W))
        lin.bias.copy_(mod.tensor(b))
    opt = getattr(mod.optim, cls)(lin.parameters(), **kw)
    x, y = mod.tensor(X), mod.tensor(Y)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((lin(x) - y) ** 2).mean() + (lin.weight ** 4).sum() * 0.01
        loss.backward()
        opt.step()
        out.append(np.concatenate([lin.weight.detach().numpy().ravel(),
                                   lin.bias.detach().numpy().ravel()]))
    return np.array(out), opt, lin


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trajectories_match_torch(name, dtype):
    cls, kw = OPTIMIZERS[name]
    ours, _, _ = _trajectory(otorch, cls, kw, dtype)
    theirs, _, _ = _trajectory(torch, cls, kw, dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_state_dict_has_torch_structure_and_values(name):
    cls, kw = OPTIMIZERS[name]
    _, ours, _ = _trajectory(otorch, cls, kw, np.float32, steps=3)
    _, theirs, _ = _trajectory(torch, cls, kw, np.float32, steps=3)
    so, st = ours.state_dict(), theirs.state_dict()
    assert so["param_groups"] == st["param_groups"]
    assert list(so["state"]) == list(st["state"])
    for i, entry in st["state"].items():
        assert list(so["state"][i]) == list(entry)
        for k, v in entry.items():
            o = so["state"][i][k]
            assert isinstance(o, otorch.Tensor) and str(o.dtype) == str(v.dtype)
            np.testing.assert_allclose(o.numpy(), v.numpy(), rtol=1e-5, atol=1e-7)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["sgd_momentum_dampening_wd", "adam_amsgrad_wd", "adadelta",
                                  "adagrad_decay_init", "rmsprop_centered_momentum"])
def test_load_torch_state_dict_then_continue_like_torch(name):
    """A state dict written by real torch (tensors made numpy, then oar tensors) loads into
    the oar optimizer and the next steps follow torch's; and the other way round."""
    cls, kw = OPTIMIZERS[name]
    W, b, X, Y = _problem(np.float32)

    def setup(mod, lr_scale=1.0):
        lin = mod.nn.Linear(4, 3)
        with mod.no_grad():
            lin.weight.copy_(mod.tensor(W))
            lin.bias.copy_(mod.tensor(b))
        opt = getattr(mod.optim, cls)(lin.parameters(), **dict(kw, lr=kw.get("lr", 1.0) * lr_scale))
        return lin, opt

    def steps(mod, lin, opt, n):
        x, y = mod.tensor(X), mod.tensor(Y)
        for _ in range(n):
            opt.zero_grad()
            (((lin(x) - y) ** 2).mean() + (lin.weight ** 4).sum() * 0.01).backward()
            opt.step()
        return lin.weight.detach().numpy().copy()

    tlin, topt = setup(torch)
    steps(torch, tlin, topt, 4)
    sd = topt.state_dict()
    conv = {"param_groups": copy.deepcopy(sd["param_groups"]),
            "state": {i: {k: otorch.tensor(v.numpy()) for k, v in st.items()}
                      for i, st in sd["state"].items()}}
    olin, oopt = setup(otorch, lr_scale=0.5)          # a different lr: the load restores it
    with otorch.no_grad():
        olin.weight.copy_(otorch.tensor(tlin.weight.detach().numpy()))
        olin.bias.copy_(otorch.tensor(tlin.bias.detach().numpy()))
    oopt.load_state_dict(conv)
    assert oopt.param_groups[0]["lr"] == topt.param_groups[0]["lr"]
    np.testing.assert_allclose(steps(otorch, olin, oopt, 5), steps(torch, tlin, topt, 5),
                               rtol=1e-6, atol=1e-6)
    # and back: oar's state dict loads into real torch
    sd = oopt.state_dict()
    back = {"param_groups": copy.deepcopy(sd["param_groups"]),
            "state": {i: {k: torch.tensor(v.numpy()) for k, v in st.items()}
                      for i, st in sd["state"].items()}}
    tlin2, topt2 = setup(torch, lr_scale=0.5)
    with torch.no_grad():
        tlin2.weight.copy_(torch.tensor(olin.weight.detach().numpy()))
        tlin2.bias.copy_(torch.tensor(olin.bias.detach().numpy()))
    topt2.load_state_dict(back)
    np.testing.assert_allclose(steps(otorch, olin, oopt, 3), steps(torch, tlin2, topt2, 3),
                               rtol=1e-6, atol=1e-6)


def test_load_state_dict_checks_before_writing():
    _, opt, _ = _trajectory(otorch, "Adam", dict(lr=0.01), np.float32, steps=2)
    before = {k: copy.deepcopy({n: (v.numpy().copy() if hasattr(v, "numpy") else v)
                                for n, v in st.items()}) for k, st in opt.state.items()}
    sd = opt.state_dict()
    bad = {"param_groups": sd["param_groups"],
           "state": {0: dict(sd["state"][0], exp_avg=otorch.zeros(7)), 1: sd["state"][1]}}
    with pytest.raises(ValueError, match="shape"):
        opt.load_state_dict(bad)
    with pytest.raises(ValueError, match="number of parameter groups"):
        opt.load_state_dict({"param_groups": sd["param_groups"] * 2, "state": {}})
    t = torch.optim.Adam([torch.zeros(2, requires_grad=True)])
    with pytest.raises(ValueError, match="size of optimizer's group"):
        t.load_state_dict({"param_groups": [dict(sd["param_groups"][0])], "state": {}})
    with pytest.raises(ValueError, match="size of optimizer's group"):
        opt.load_state_dict({"param_groups": [dict(sd["param_groups"][0], params=[0])],
                             "state": {}})
    for k, st in opt.state.items():
        for n, v in st.items():
            v = v.numpy() if hasattr(v, "numpy") else v
            assert np.array_equal(v, before[k][n]), n


def test_param_groups_add_param_group_zero_grad_and_state_by_param():
    a, b = otorch.nn.Parameter(otorch.ones(2)), otorch.nn.Parameter(otorch.ones(3))
    ta, tb = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))
    opt = otorch.optim.SGD([a], lr=0.1, momentum=0.9)
    topt = torch.optim.SGD([ta], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": [b], "lr": 0.01})
    topt.add_param_group({"params": [tb], "lr": 0.01})
    assert [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups] == \
        [{k: v for k, v in g.items() if k != "params"} for g in topt.param_groups]
    for o, t in ((opt, topt),):
        ((a * a).sum() + b.sum()).backward()
        ((ta * ta).sum() + tb.sum()).backward()
        o.step()
        t.step()
    np.testing.assert_allclose(opt.state[a]["momentum_buffer"].numpy(),
                               topt.state[ta]["momentum_buffer"].numpy())
    opt.zero_grad(set_to_none=False)
    topt.zero_grad(set_to_none=False)
    assert a.grad is not None and np.all(a.grad.numpy() == 0)
    opt.zero_grad()
    topt.zero_grad()
    assert (a.grad is None) == (ta.grad is None) is True
    with pytest.raises(ValueError):
        opt.add_param_group({"params": [a]})          # already optimised, as torch


def test_named_parameters_and_closure_like_torch():
    lin = otorch.nn.Linear(2, 1)
    tlin = torch.nn.Linear(2, 1)
    opt = otorch.optim.SGD(lin.named_parameters(), lr=0.1)
    topt = torch.optim.SGD(tlin.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == topt.param_groups[0]["param_names"]
    x = otorch.ones(3, 2)

    def closure():
        opt.zero_grad()
        loss = lin(x).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    assert isinstance(loss, otorch.Tensor)


@pytest.mark.parametrize("bad,kw", [("Adadelta", dict(rho=1.5)), ("Adadelta", dict(eps=-1)),
                                    ("Adagrad", dict(lr_decay=-1)),
                                    ("Adagrad", dict(initial_accumulator_value=-1)),
                                    ("RMSprop", dict(alpha=-1)), ("RMSprop", dict(momentum=-1)),
                                    ("Adam", dict(betas=(0.9, 1.0))), ("SGD", dict(momentum=-1)),
                                    ("SGD", dict(nesterov=True))])
def test_bad_hyper_parameters_raise_what_torch_raises(bad, kw):
    with pytest.raises(Exception) as te:
        getattr(torch.optim, bad)([torch.zeros(2, requires_grad=True)], **kw)
    with pytest.raises(te.type):
        getattr(otorch.optim, bad)([otorch.zeros(2, requires_grad=True)], **kw)


# ----------------------------------------------------------------------- Paddle door
paddle_cases = [
    ("Adadelta", dict(learning_rate=0.5, epsilon=1e-6, rho=0.9, weight_decay=0.1)),
    ("Adadelta", dict(learning_rate=0.01)),
    ("Adagrad", dict(learning_rate=0.1, epsilon=1e-3, initial_accumulator_value=0.1,
                     weight_decay=0.1)),
    ("RMSProp", dict(learning_rate=0.1, rho=0.9, epsilon=1e-3, momentum=0.5, centered=True,
                     weight_decay=0.1)),
    ("RMSProp", dict(learning_rate=0.01)),
]


@pytest.mark.parametrize("name,kw", paddle_cases)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_paddle_adaptive_optimizers_match_paddle(name, kw, dtype):
    paddle = pytest.importorskip("paddle")
    w0 = np.array([1.0, -2.0, 0.5], dtype)

    def run(mod, make_param):
        p = make_param()
        opt = getattr(mod.optimizer, name)(parameters=[p], **kw)
        out = []
        for _ in range(8):
            ((p ** 3).sum() + (p * p).sum()).backward()
            opt.step()
            opt.clear_grad()
            out.append(p.numpy().copy())
        return np.array(out)
    theirs = run(paddle, lambda: paddle.create_parameter(
        [3], dtype, default_initializer=paddle.nn.initializer.Assign(w0)))
    ours = run(oar, lambda: oar.nn.Parameter(w0))
    np.testing.assert_allclose(ours, theirs, rtol=1e-6 if dtype == "float32" else 1e-13,
                               atol=1e-7 if dtype == "float32" else 1e-14)


# ----------------------------------------------------------------------- lr_scheduler
def _sgd(mod, groups):
    return mod.optim.SGD(groups, lr=0.1, momentum=0.9)


def _adam(mod, groups):
    return mod.optim.Adam(groups, lr=0.1)


METRIC = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7, 0.8, 0.9] * 3
SCHEDULERS = {
    "StepLR": (_sgd, lambda S, o: S.StepLR(o, 7, gamma=0.3)),
    "MultiStepLR": (_sgd, lambda S, o: S.MultiStepLR(o, [3, 10, 10, 20], gamma=0.5)),
    "ExponentialLR": (_sgd, lambda S, o: S.ExponentialLR(o, 0.93)),
    "CosineAnnealingLR": (_sgd, lambda S, o: S.CosineAnnealingLR(o, 10, eta_min=0.001)),
    "LambdaLR": (_sgd, lambda S, o: S.LambdaLR(o, lambda e: 0.95 ** e)),
    "MultiplicativeLR": (_sgd, lambda S, o: S.MultiplicativeLR(o, lambda e: 0.95)),
    "OneCycleLR": (_sgd, lambda S, o: S.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=30)),
    "OneCycleLR_adam_three_phase": (_adam, lambda S, o: S.OneCycleLR(
        o, max_lr=1.0, total_steps=31, three_phase=True, anneal_strategy="linear")),
    "ReduceLROnPlateau": (_sgd, lambda S, o: S.ReduceLROnPlateau(o, patience=2, factor=0.5,
                                                                 cooldown=1)),
    "LinearLR": (_sgd, lambda S, o: S.LinearLR(o, start_factor=0.2, total_iters=8)),
    "ConstantLR": (_sgd, lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=4)),
    "PolynomialLR": (_sgd, lambda S, o: S.PolynomialLR(o, total_iters=10, power=2.0)),
    "CosineAnnealingWarmRestarts": (_sgd, lambda S, o: S.CosineAnnealingWarmRestarts(
        o, T_0=5, T_mult=2, eta_min=0.01)),
    "SequentialLR": (_sgd, lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, 0.1, total_iters=5), S.ExponentialLR(o, 0.9)], milestones=[5])),
    "ChainedScheduler": (_sgd, lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, 0.5, total_iters=4), S.ExponentialLR(o, 0.9)])),
}


def _rates(mod, name, steps=30):
    make_opt, make_sched = SCHEDULERS[name]
    p, q = mod.nn.Parameter(mod.zeros(2)), mod.nn.Parameter(mod.zeros(3))
    opt = make_opt(mod, [{"params": [p]}, {"params": [q], "lr": 0.05}])
    sched = make_sched(mod.optim.lr_scheduler, opt)
    out = []
    for i in range(steps):
        opt.step()
        sched.step(METRIC[i]) if name == "ReduceLROnPlateau" else sched.step()
        g = opt.param_groups[0]
        out.append([gg["lr"] for gg in opt.param_groups]
                   + [g["momentum"] if "momentum" in g else g["betas"][0]]
                   + list(sched.get_last_lr()))
    return out


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_schedulers_give_torch_rates_bit_for_bit(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _rates(otorch, name) == _rates(torch, name)


def test_lr_scheduler_is_a_module_with_state_dict():
    import importlib
    mod = importlib.import_module("oar.torch.optim.lr_scheduler")
    assert mod.StepLR is otorch.optim.lr_scheduler.StepLR
    from oar.torch.optim.lr_scheduler import LRScheduler, StepLR  # noqa: F401
    opt = otorch.optim.SGD([otorch.nn.Parameter(otorch.zeros(1))], lr=1.0)
    s = StepLR(opt, 2)
    for _ in range(3):
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3
    s2 = StepLR(otorch.optim.SGD([otorch.nn.Parameter(otorch.zeros(1))], lr=1.0), 2)
    s2.load_state_dict(sd)
    assert s2.last_epoch == 3 and s2.get_last_lr() == s.get_last_lr()
    with pytest.raises(TypeError, match="not an Optimizer"):
        StepLR(object(), 2)


# ----------------------------------------------------------------------- utils.data
def test_dataloader_batches_are_torch_door_tensors():
    from oar.torch.utils.data import DataLoader, TensorDataset
    x = otorch.arange(10).float().reshape(10, 1)
    y = otorch.arange(10)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, num_workers=2)
    batches = list(loader)
    assert len(loader) == 3 and [b[0].shape[0] for b in batches] == [4, 4, 2]
    assert all(isinstance(t, otorch.Tensor) for b in batches for t in b)
    assert batches[2][1].tolist() == [8, 9]
    assert len(DataLoader(TensorDataset(x, y), batch_size=4, drop_last=True)) == 2

    class Squares(otorch.utils.data.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return np.float32(i), {"sq": i * i}
    (xb, d), = list(DataLoader(Squares(), batch_size=5))
    txb, td = next(iter(torch.utils.data.DataLoader(
        type("S", (torch.utils.data.Dataset,), dict(__len__=lambda s: 5, __getitem__=lambda s, i:
                                                    (np.float32(i), {"sq": i * i})))(),
        batch_size=5)))
    assert isinstance(xb, otorch.Tensor) and isinstance(d["sq"], otorch.Tensor)
    assert str(xb.dtype) == str(txb.dtype) and str(d["sq"].dtype) == str(td["sq"].dtype)
    assert d["sq"].tolist() == td["sq"].tolist()
    out = list(DataLoader(TensorDataset(x, y), batch_size=3, collate_fn=lambda b: len(b)))
    assert out == [3, 3, 3, 1]


def _orders(mod, seed_call, **kw):
    x = mod.arange(12).float().reshape(12, 1)
    loader = mod.utils.data.DataLoader(mod.utils.data.TensorDataset(x), **kw)
    seed_call(mod)
    return [[b[0][:, 0].tolist() for b in loader] for _ in range(2)]


def test_shuffle_order_matches_torch():
    # the default generator, seeded by manual_seed: two epochs in torch's order
    same = _orders(otorch, lambda m: m.manual_seed(3), batch_size=5, shuffle=True)
    assert same == _orders(torch, lambda m: m.manual_seed(3), batch_size=5, shuffle=True)
    # an explicit generator
    og, tg = otorch.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    o = _orders(otorch, lambda m: None, batch_size=4, shuffle=True, generator=og)
    t = _orders(torch, lambda m: None, batch_size=4, shuffle=True, generator=tg)
    assert o == t


def test_random_split_subset_concat_and_samplers_like_torch():
    from oar.torch.utils.data import (ConcatDataset, RandomSampler, SequentialSampler, Subset,
                                      SubsetRandomSampler, random_split)
    ds, tds = list(range(10)), list(range(10))
    parts = random_split(ds, [3, 7], generator=otorch.Generator().manual_seed(1))
    tparts = torch.utils.data.random_split(tds, [3, 7], generator=torch.Generator().manual_seed(1))
    assert [list(p) for p in parts] == [list(p) for p in tparts]
    assert [p.indices for p in parts] == [p.indices for p in tparts]
    otorch.manual_seed(5)
    torch.manual_seed(5)
    assert [len(p) for p in random_split(ds, [0.3, 0.7])] == \
        [len(p) for p in torch.utils.data.random_split(tds, [0.3, 0.7])] == [3, 7]
    assert [p.indices for p in random_split(ds, [0.5, 0.5])] == \
        [p.indices for p in torch.utils.data.random_split(tds, [0.5, 0.5])]
    with pytest.raises(ValueError):
        random_split(ds, [3, 3])
    sub = Subset(ds, [4, 2])
    assert [sub[0], sub[1], len(sub)] == [4, 2, 2]
    cat = ConcatDataset([ds, [10, 11]])
    assert len(cat) == 12 and cat[10] == 10
    g, tg = otorch.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    assert list(RandomSampler(ds, generator=g)) == \
        list(torch.utils.data.RandomSampler(tds, generator=tg))
    assert list(RandomSampler(ds, replacement=True, num_samples=40, generator=g)) == \
        list(torch.utils.data.RandomSampler(tds, replacement=True, num_samples=40, generator=tg))
    assert list(SubsetRandomSampler([5, 6, 7], generator=g)) == \
        list(torch.utils.data.SubsetRandomSampler([5, 6, 7], generator=tg))
    assert list(SequentialSampler(ds)) == list(range(10))


def test_import_lines_of_the_data_and_optim_modules():
    from oar.torch.optim.lr_scheduler import OneCycleLR, ReduceLROnPlateau, StepLR  # noqa: F401
    from oar.torch.utils.data import DataLoader, Dataset, Subset, TensorDataset, random_split  # noqa: F401
    from oar.torch.utils.data.dataset import Dataset as D2
    from oar.torch.utils.data.sampler import BatchSampler  # noqa: F401
    import oar.torch.optim as optim
    assert D2 is Dataset and optim.lr_scheduler.StepLR is StepLR
