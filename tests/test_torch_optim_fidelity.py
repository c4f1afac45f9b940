"""oar.torch.optim and optim.lr_scheduler against torch 2.13, field by field: the keys,
order and values of param_groups and defaults, state_dict() layouts (loaded into torch and
back through torch.save/torch.load), parameter versions after steps (Note [Optimizer version
bumps]), values after 5 steps, and every scheduler's rates and state_dict() (Note [Scheduler
state as PyTorch's]). Every expected value comes from torch inside the test."""
import copy
import math
import os
import tempfile
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch

torch = pytest.importorskip("torch")

# LBFGS needs a closure: tests/test_torch_optim_state.py compares it with torch
OPTIMIZER_CLASSES = [n for n in otorch.optim.__all__
                     if n not in ("Optimizer", "lr_scheduler", "LBFGS")]

# every optimizer class with its common options
CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5, foreach=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True, betas=[0.8, 0.99])),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, foreach=True)),
    ("AdamW", dict()),
    ("AdamW", dict(lr=0.01, weight_decay=0)),
    ("AdamW", dict(lr=0.01, amsgrad=True, maximize=True, weight_decay=0.5)),
    ("AdamW", dict(lr=0.01, foreach=False)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.2,
                     maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(momentum=0.9, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(momentum=0.5, maximize=True, alpha=0.9)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True, betas=[0.8, 0.9])),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, maximize=True, betas=(0.5, 0.6))),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, t0=2, lambd=0.01, weight_decay=0.1, maximize=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(lr=0.05, weight_decay=0.1, d=2.0, beta2_decay=-0.5, eps=(1e-3, 1e-3),
                       maximize=True)),
]
CONFIG_IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}"
              for n, kw in CONFIGS]


def test_every_optimizer_class_is_configured_here():
    assert sorted({n for n, _ in CONFIGS}) == sorted(OPTIMIZER_CLASSES)


def _params(mod, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [mod.nn.Parameter(mod.tensor(rng.standard_normal((3, 4)).astype(dtype))),
            mod.nn.Parameter(mod.tensor(rng.standard_normal(4).astype(dtype)))]


def _grads(dtype=np.float32, n=5, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((3, 4)).astype(dtype), rng.standard_normal(4).astype(dtype))
            for _ in range(n)]


def _make(mod, name, kw, params):
    """Two groups (the second with its own lr), as PyTorch users write them."""
    return getattr(mod.optim, name)([{"params": [params[0]]},
                                     {"params": [params[1]], "lr": 0.05}], **kw)


def _run(mod, name, kw, dtype=np.float32, steps=5):
    ps = _params(mod, dtype)
    opt = _make(mod, name, kw, ps)
    before = [p._version for p in ps]
    grad_versions = []
    for g in _grads(dtype, steps):
        for p, gg in zip(ps, g):
            p.grad = mod.tensor(gg)
        gv = [p.grad._version for p in ps]
        opt.step()
        grad_versions.append([p.grad._version - v for p, v in zip(ps, gv)])
    return ps, opt, [p._version - v for p, v in zip(ps, before)], grad_versions


def _same_value(a, b):
    """torch's value and oar's: equal, with the same Python type."""
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same_value, a, b))
    return type(a) is type(b) and a == b


def _group_fields(g):
    return [(k, v) for k, v in g.items() if k != "params"]


# ------------------------------------------------------------------ param_groups and defaults
@pytest.mark.parametrize("name,kw", CONFIGS, ids=CONFIG_IDS)
def test_param_groups_and_defaults_are_torchs(name, kw):
    (pt, ot, _, _), (po, oo, _, _) = _run(torch, name, kw), _run(otorch, name, kw)
    assert list(oo.defaults) == list(ot.defaults)
    for k, v in ot.defaults.items():
        assert _same_value(v, oo.defaults[k]), (k, v, oo.defaults[k])
    assert len(oo.param_groups) == len(ot.param_groups)
    for gt, go in zip(ot.param_groups, oo.param_groups):
        # after steps too: no internal keys (the flat Adam buffers live elsewhere)
        assert list(go) == list(gt)
        for k, v in _group_fields(gt):
            assert _same_value(v, go[k]), (k, v, go[k])


@pytest.mark.parametrize("name", OPTIMIZER_CLASSES)
def test_default_param_group_is_torchs(name):
    kw = {"lr": 0.1} if name == "SGD" else {}
    gt = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **kw).param_groups[0]
    go = getattr(otorch.optim, name)([otorch.nn.Parameter(otorch.ones(2))],
                                     **kw).param_groups[0]
    assert list(go) == list(gt)
    for k, v in _group_fields(gt):
        assert _same_value(v, go[k]), (k, v, go[k])


def test_group_keys_keep_the_users_order_then_defaults():
    for mod in (torch, otorch):
        p = mod.nn.Parameter(mod.ones(2))
        opt = mod.optim.SGD([{"lr": 0.3, "params": [p], "note": "x"}], lr=0.1)
        if mod is torch:
            want = list(opt.param_groups[0])
        else:
            assert list(opt.param_groups[0]) == want


def test_betas_must_be_floats_like_torch():
    for betas in [(0, 0.9), (0.9, 0)]:
        with pytest.raises(ValueError, match="both floats"):
            torch.optim.Adam([torch.nn.Parameter(torch.ones(2))], betas=betas)
        p = otorch.nn.Parameter(otorch.ones(2))
        with pytest.raises(ValueError, match="both floats"):
            otorch.optim.Adam([p], betas=betas)


# ------------------------------------------------------------------ values and versions
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=CONFIG_IDS)
def test_values_after_five_steps_are_torchs(name, kw, dtype):
    (pt, _, _, _), (po, _, _, _) = _run(torch, name, kw, dtype), _run(otorch, name, kw, dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    for a, b in zip(pt, po):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam"])
def test_adam_relatives_over_twelve_steps_are_torchs(name, dtype):
    # beta2 = 0.9 takes RAdam past rho_t > 5 at step 6 (both of its branches); NAdam's
    # float32 mu_product keeps float64 runs equal to rounding
    kw = dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.01)
    (pt, ot, _, _), (po, oo, _, _) = (_run(torch, name, kw, dtype, steps=12),
                                      _run(otorch, name, kw, dtype, steps=12))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    for a, b in zip(pt, po):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **tol)
    for i, entry in ot.state_dict()["state"].items():
        for k, v in entry.items():
            np.testing.assert_allclose(oo.state_dict()["state"][i][k].numpy(), v.numpy(), **tol)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=CONFIG_IDS)
def test_versions_after_steps_are_torchs(name, kw):
    # PyTorch's _version counts the in-place writes of a step: AdamW's decoupled decay is a
    # mul_ before the addcdiv_ (two per step); the gradient is never written
    (_, _, vt, gt), (_, _, vo, go) = _run(torch, name, kw), _run(otorch, name, kw)
    assert vo == vt
    assert go == gt


def test_paddle_adamw_still_bumps_once_per_step():
    # the Paddle door keeps its own counting (one in-place optimizer op per step)
    p = oar.create_parameter([3], "float32")
    opt = oar.optimizer.AdamW(parameters=[p], learning_rate=0.1, weight_decay=0.1)
    v = p.inplace_version
    for _ in range(3):
        p.grad = oar.ones([3])
        opt.step()
    assert p.inplace_version - v == 3


def test_jit_replay_bumps_adamw_versions_as_eager_and_torch():
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((8, 6)).astype(np.float32) for _ in range(6)]

    def make():
        oar.seed(0)
        lin = otorch.nn.Linear(6, 3)
        opt = otorch.optim.AdamW(lin.parameters(), lr=1e-2)

        def step(x):
            loss = (lin(x) ** 2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss
        return lin, opt, step
    l1, o1, eager = make()
    l2, o2, step2 = make()
    with otorch.no_grad():
        for p, q in zip(l1.parameters(), l2.parameters()):
            q.copy_(p)
    jitted = oar.jit(step2)
    v1 = [p._version for p in l1.parameters()]
    v2 = [q._version for q in l2.parameters()]
    for x in xs:
        eager(otorch.tensor(x))
        jitted(otorch.tensor(x))
        for p, q, a, b in zip(l1.parameters(), l2.parameters(), v1, v2):
            assert p.detach().numpy().tobytes() == q.detach().numpy().tobytes()
            assert p._version - a == q._version - b
    assert jitted.stats["replays"] >= 1
    tl = torch.nn.Linear(6, 3)
    topt = torch.optim.AdamW(tl.parameters(), lr=1e-2)
    v0 = tl.weight._version
    for x in xs:
        (tl(torch.tensor(x)) ** 2).mean().backward()
        topt.step()
        topt.zero_grad()
    assert tl.weight._version - v0 == 2 * len(xs)
    assert next(iter(l1.parameters()))._version - v1[0] == 2 * len(xs)


# ------------------------------------------------------------------ state_dict
def _torch_roundtrip(sd):
    """oar.torch.save -> torch.load (weights_only): what a PyTorch user would read."""
    fd, f = tempfile.mkstemp(suffix=".pt")
    os.close(fd)
    try:
        otorch.save(sd, f)
        return torch.load(f, weights_only=True)
    finally:
        os.remove(f)


def _oar_roundtrip(sd):
    fd, f = tempfile.mkstemp(suffix=".pt")
    os.close(fd)
    try:
        torch.save(sd, f)
        return otorch.load(f)
    finally:
        os.remove(f)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=CONFIG_IDS)
def test_state_dict_is_torchs_and_loads_both_ways(name, kw):
    (pt, ot, _, _), (po, oo, _, _) = _run(torch, name, kw), _run(otorch, name, kw)
    st, so = ot.state_dict(), oo.state_dict()
    assert list(so) == list(st) == ["state", "param_groups"]
    assert list(so["state"]) == list(st["state"])
    for i, entry in st["state"].items():
        assert list(so["state"][i]) == list(entry)
        for k, v in entry.items():
            w = so["state"][i][k]
            assert isinstance(w, otorch.Tensor)
            assert str(w.dtype) == str(v.dtype) and tuple(w.shape) == tuple(v.shape), k
            np.testing.assert_allclose(w.numpy(), v.numpy(), rtol=1e-5, atol=1e-6)
    assert len(so["param_groups"]) == len(st["param_groups"])
    for gt, go in zip(st["param_groups"], so["param_groups"]):
        assert list(go) == list(gt)
        assert go["params"] == gt["params"]
        for k, v in _group_fields(gt):
            assert _same_value(v, go[k]), (k, v, go[k])

    # oar's state dict, saved and read by torch, loads into torch's optimizer; continuing
    # there equals continuing in torch itself
    twin = _params(torch)
    t2 = _make(torch, name, kw, twin)
    t2.load_state_dict(_torch_roundtrip(so))
    with torch.no_grad():
        for a, b in zip(twin, po):
            a.copy_(torch.tensor(b.detach().numpy()))
    # and torch's, read by oar, loads into oar's
    mine = _params(otorch)
    o2 = _make(otorch, name, kw, mine)
    o2.load_state_dict(_oar_roundtrip(st))
    with otorch.no_grad():
        for a, b in zip(mine, pt):
            a.copy_(otorch.tensor(b.detach().numpy()))
    for g in _grads(seed=7, n=3):
        for opt, ps, mod in ((ot, pt, torch), (t2, twin, torch), (o2, mine, otorch)):
            for p, gg in zip(ps, g):
                p.grad = mod.tensor(gg)
            opt.step()
    for a, b, c in zip(pt, twin, mine):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(c.detach().numpy(), a.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert list(o2.param_groups[0]) == list(t2.param_groups[0])


@pytest.mark.parametrize("name,kw", CONFIGS, ids=CONFIG_IDS)
def test_deepcopy_of_an_optimizer_steps_like_torchs(name, kw):
    # the copy's state belongs to the copied parameters (torch keys state by tensor)
    out = []
    for mod in (torch, otorch):
        ps, opt, _, _ = _run(mod, name, kw, steps=2)
        twin = copy.deepcopy(opt)
        tps = [p for g in twin.param_groups for p in g["params"]]
        for g in _grads(seed=3, n=3):
            for p, gg in zip(tps, g):
                p.grad = mod.tensor(gg)
            twin.step()
        for p in ps:                                 # the original is untouched
            p.grad = mod.ones(p.shape)
        opt.step()
        out.append(([p.detach().numpy().copy() for p in tps + ps],
                    {i: {k: v.numpy().copy() for k, v in e.items()}
                     for i, e in twin.state_dict()["state"].items()}))
    (vt, st), (vo, so) = out
    for a, b in zip(vt, vo):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert list(so) == list(st)
    for i in st:
        for k in st[i]:
            np.testing.assert_allclose(so[i][k], st[i][k], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ schedulers
def _sched_opt(mod, opt="SGD"):
    p, q = mod.nn.Parameter(mod.ones(2)), mod.nn.Parameter(mod.ones(2))
    kw = dict(momentum=0.9) if opt == "SGD" else {}
    return getattr(mod.optim, opt)([{"params": [p]}, {"params": [q], "lr": 0.05}], lr=0.1, **kw)


class _Halve:
    """A callable object: its __dict__ is saved in the state dict (PyTorch's rule)."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** x


SCHEDULERS = {
    "StepLR": lambda m, o: m.optim.lr_scheduler.StepLR(o, 3, 0.5),
    "MultiStepLR": lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, [2, 5, 5, 9], 0.5),
    "ExponentialLR": lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, 0.9),
    "CosineAnnealingLR": lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, 7, 0.001),
    "LambdaLR": lambda m, o: m.optim.lr_scheduler.LambdaLR(o, lambda e: 0.95 ** e),
    "MultiplicativeLR": lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.95),
    "ConstantLR": lambda m, o: m.optim.lr_scheduler.ConstantLR(o, 0.5, 4),
    "LinearLR": lambda m, o: m.optim.lr_scheduler.LinearLR(o, 0.2, 0.9, 6),
    "PolynomialLR": lambda m, o: m.optim.lr_scheduler.PolynomialLR(o, 8, 2.0),
    "OneCycleLR": lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, [1.0, 0.5], total_steps=25),
    "OneCycleLR-three-phase-linear": lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, 1.0, total_steps=25, three_phase=True, anneal_strategy="linear"),
    "CosineAnnealingWarmRestarts": lambda m, o:
        m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 3, 2, 0.001),
    "SequentialLR": lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.ConstantLR(o, 0.5, 3),
            m.optim.lr_scheduler.ExponentialLR(o, 0.9)], [4]),
    "SequentialLR-of-a-chain": lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.ChainedScheduler([
                m.optim.lr_scheduler.StepLR(o, 2, 0.5),
                m.optim.lr_scheduler.ExponentialLR(o, 0.9)]),
            m.optim.lr_scheduler.LinearLR(o, 0.5, 1.0, 3)], [5]),
    "ChainedScheduler": lambda m, o: m.optim.lr_scheduler.ChainedScheduler(
        [m.optim.lr_scheduler.ConstantLR(o, 0.5, 3), m.optim.lr_scheduler.ExponentialLR(o, 0.9)]),
    "ReduceLROnPlateau": lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(o, patience=2,
                                                                             cooldown=1),
    "CyclicLR": lambda m, o: m.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=4),
    "CyclicLR-triangular2-adam": lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, [0.01, 0.02], 0.1, step_size_up=3, step_size_down=5, mode="triangular2"),
    "CyclicLR-exp_range": lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9),
    "CyclicLR-scale_fn-object": lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, 0.01, 0.1, step_size_up=3, scale_fn=_Halve(), cycle_momentum=False),
}


def test_every_scheduler_of_torch_is_here():
    mine = set(otorch.optim.lr_scheduler.__all__)
    theirs = {n for n in dir(torch.optim.lr_scheduler)
              if isinstance(getattr(torch.optim.lr_scheduler, n), type)
              and issubclass(getattr(torch.optim.lr_scheduler, n),
                             torch.optim.lr_scheduler.LRScheduler) and not n.startswith("_")}
    assert theirs - {"LRScheduler"} <= mine
    assert {n.split("-")[0] for n in SCHEDULERS} == theirs - {"LRScheduler"}


def _sched(mod, name):
    return SCHEDULERS[name](mod, _sched_opt(mod, "Adam" if "adam" in name else "SGD"))


def _advance(s, i, name):
    s.optimizer.step()
    if name == "ReduceLROnPlateau":
        s.step(1.0 if i % 5 else 0.5)
    else:
        s.step()
    return list(s.get_last_lr())


def _plain(x):
    """A state dict's value, comparable across frameworks (callables by type)."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if callable(x):
        return "callable"
    return x


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_rates_and_state_dict_are_torchs(name):
    st, so = _sched(torch, name), _sched(otorch, name)
    assert list(so.get_last_lr()) == list(st.get_last_lr())
    lt = [_advance(st, i, name) for i in range(20)]
    lo = [_advance(so, i, name) for i in range(20)]
    assert lo == lt                                   # bit for bit, 20 steps
    dt, do = st.state_dict(), so.state_dict()
    assert sorted(do) == sorted(dt)
    assert _plain(do) == _plain(dt)
    for gt, go in zip(st.optimizer.param_groups, so.optimizer.param_groups):
        assert list(go) == list(gt)
        for k, v in _group_fields(gt):
            assert _same_value(v, go[k]), (name, k, v, go[k])


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_load_state_dict_round_trips(name):
    # a torch scheduler's state dict after 7 steps, loaded into a fresh oar one (and oar's
    # into a fresh one of its own): both then go on exactly as torch goes on
    st, so = _sched(torch, name), _sched(otorch, name)
    for i in range(7):
        _advance(st, i, name)
        _advance(so, i, name)
    saved_t, saved_o = st.state_dict(), so.state_dict()
    keys_o = sorted(saved_o)
    lrs_t = [dict(g) for g in st.optimizer.param_groups]
    fresh = [_sched(otorch, name), _sched(otorch, name)]
    for f, saved in zip(fresh, (saved_t, saved_o)):
        f.load_state_dict(saved)
        for g, gt in zip(f.optimizer.param_groups, lrs_t):  # the optimizer's own state
            for k in ("lr", "momentum", "betas"):
                if k in gt:
                    g[k] = gt[k]
    assert sorted(saved_o) == keys_o                  # loading leaves the dict as it was
    want = [_advance(st, i, name) for i in range(7, 20)]
    for f in fresh:
        assert [_advance(f, i, name) for i in range(7, 20)] == want
    if "scale_fn-object" in name:
        assert saved_o["_scale_fn_custom"] == {"base": 0.5}


def _warned(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return sorted(str(x.message) for x in w if issubclass(x.category, UserWarning))


def test_get_lr_outside_step_warns_like_torch():
    for name in ["StepLR", "CosineAnnealingLR", "OneCycleLR", "CyclicLR",
                 "CosineAnnealingWarmRestarts"]:
        st, so = _sched(torch, name), _sched(otorch, name)
        assert _warned(st.get_lr) == _warned(so.get_lr) != []
        assert _warned(lambda: _advance(st, 0, name)) == _warned(lambda: _advance(so, 0, name))
        assert so.state_dict()["_get_lr_called_within_step"] is False


def test_scheduler_step_before_optimizer_step_warns_like_torch():
    for first_opt in (False, True):
        got = []
        for mod in (torch, otorch):
            s = mod.optim.lr_scheduler.StepLR(_sched_opt(mod), 2)

            def run():
                if first_opt:
                    s.optimizer.step()
                s.step()
                s.step()
            got.append(_warned(run))
        assert got[0] == got[1]
        assert (got[1] != []) is (not first_opt)


def test_warm_restarts_step_count_is_torchs():
    st, so = _sched(torch, "CosineAnnealingWarmRestarts"), _sched(otorch,
                                                                   "CosineAnnealingWarmRestarts")
    for i, e in enumerate([0.5, 1.7, 4, 9.25]):
        st.step(e)
        so.step(e)
        assert so._step_count == st._step_count
        assert so.get_last_lr() == st.get_last_lr()
        assert math.isclose(so.T_cur, st.T_cur) and so.T_i == st.T_i
