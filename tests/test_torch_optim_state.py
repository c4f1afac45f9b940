"""oar.torch.optim's optimizer.state, hooks, add_param_group, pickling, and the optimizers
Rprop/ASGD/LBFGS/Adafactor against torch 2.13 (Note [Torch optimizer state], Note [Torch
optimizer hooks]); the Paddle door's state keeps its own layout. Every expected value comes
from torch (or the Paddle door's own earlier contract) inside the test."""
import collections
import copy
import importlib
import io
import os
import pickle
import tempfile
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch

torch = pytest.importorskip("torch")

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01)),
    ("Adadelta", dict()),
    ("Adagrad", dict(lr_decay=0.1)),
    ("RMSprop", dict(momentum=0.9, centered=True)),
    ("Adamax", dict()),
    ("NAdam", dict()),
    ("RAdam", dict()),
    ("Rprop", dict()),
    ("ASGD", dict(t0=2)),
    ("Adafactor", dict()),
]
IDS = [f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for n, kw in CONFIGS]


from tests.test_torch_optim_fidelity import _grads, _params  # noqa: E402  (one pair of makers)


def _steps(mod, opt, ps, grads):
    for g in grads:
        for p, gg in zip(ps, g):
            p.grad = mod.tensor(gg)
        opt.step()


def _run(mod, name, kw, dtype=np.float32, n=3):
    ps = _params(mod, dtype)
    opt = getattr(mod.optim, name)(ps, **kw)
    _steps(mod, opt, ps, _grads(dtype, n))
    return ps, opt


def _close(a, b, dtype=np.float32):
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), **tol)


def _np(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v)


# ------------------------------------------------------------------ optimizer.state
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_state_is_torchs_defaultdict_keyed_by_parameters(name, kw, dtype):
    (pt, ot), (po, oo) = _run(torch, name, kw, dtype), _run(otorch, name, kw, dtype)
    assert type(oo.state) is collections.defaultdict and oo.state.default_factory is dict
    # the keys are the parameter objects, in torch's order; each entry torch's keys
    assert [[i for i, q in enumerate(po) if q is k] for k in oo.state] == \
        [[i for i, q in enumerate(pt) if q is k] for k in ot.state]
    for (kt, st), (ko, so) in zip(ot.state.items(), oo.state.items()):
        assert list(so) == list(st)
        for k, v in st.items():
            w = so[k]
            assert isinstance(w, otorch.Tensor), (k, type(w))
            assert str(w.dtype) == str(v.dtype) and tuple(w.shape) == tuple(v.shape), k
            _close(_np(w), _np(v), dtype)
        if "step" in st:
            assert so["step"].dtype == otorch.float32 and so["step"].dim() == 0
    for p in po:                                      # indexing by the parameter
        assert oo.state[p] is next(v for k, v in oo.state.items() if k is p) \
            or name == "SGD" and not kw.get("momentum")


@pytest.mark.parametrize("name,kw", [c for c in CONFIGS if c[0] in ("Adam", "AdamW")] +
                         [("SGD", dict(lr=0.1, momentum=0.9)), ("RMSprop", dict(momentum=0.5)),
                          ("NAdam", dict())])
def test_programs_read_and_write_state_as_in_torch(name, kw):
    out = []
    for mod in (torch, otorch):
        ps, opt = _run(mod, name, kw)
        first, second = ps
        st0, st1 = opt.state[first], opt.state[second]
        key = "momentum_buffer" if "momentum_buffer" in st0 else \
            ("exp_avg" if "exp_avg" in st0 else "square_avg")
        # a state tensor replaced, another written in place, a step count set, a state
        # deleted: the next step uses what is there now (torch reads the state each step)
        st0[key] = mod.zeros_like(first) + 0.25
        with mod.no_grad():
            st1[key].mul_(0.5)
        if "step" in st1:
            st1["step"] = mod.tensor(10.0)
        _steps(mod, opt, ps, _grads(seed=5, n=2))
        del opt.state[second]
        _steps(mod, opt, ps, _grads(seed=6, n=2))
        out.append(([_np(p).copy() for p in ps],
                    [{k: _np(v).copy() for k, v in st.items() if hasattr(v, "detach")}
                     for st in opt.state.values()]))
    (vt, st), (vo, so) = out
    for a, b in zip(vt, vo):
        _close(b, a)
    assert [list(s) for s in so] == [list(s) for s in st]
    for a, b in zip(st, so):
        for k in a:
            _close(b[k], a[k])


def test_state_dict_shares_the_state_as_torchs():
    for mod in (torch, otorch):
        ps, opt = _run(mod, "Adam", dict(lr=0.01))
        sd = opt.state_dict()
        assert sd["state"][0] is opt.state[ps[0]]        # the live dicts, as torch's
        ps2 = _params(mod)
        opt2 = mod.optim.Adam(ps2, lr=0.01)
        opt2.load_state_dict(sd)
        # same dtype: the loaded tensors are the saved ones; the dicts are new
        assert opt2.state[ps2[0]]["exp_avg"] is sd["state"][0]["exp_avg"]
        assert opt2.state[ps2[0]] is not sd["state"][0]
        assert type(opt2.state) is collections.defaultdict
        ps3 = _params(mod, np.float64)
        opt3 = mod.optim.Adam(ps3, lr=0.01)
        opt3.load_state_dict(sd)                         # cast to the parameter's dtype,
        st = opt3.state[ps3[0]]                          # the step kept as saved
        assert str(st["exp_avg"].dtype).endswith("float64")
        assert str(st["step"].dtype).endswith("float32") and st["step"] is sd["state"][0]["step"]


def _save_load(sd, save, load):
    buf = io.BytesIO()
    fd, f = tempfile.mkstemp(suffix=".pt")
    os.close(fd)
    try:
        save(sd, f)
        return load(f)
    finally:
        os.remove(f)
        buf.close()


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_state_dict_round_trips_through_torch_save(name, kw):
    (pt, ot), (po, oo) = _run(torch, name, kw), _run(otorch, name, kw)
    into_oar = _save_load(ot.state_dict(), torch.save, otorch.load)
    into_torch = _save_load(oo.state_dict(), otorch.save, lambda f: torch.load(f,
                                                                               weights_only=True))
    o2, t2 = getattr(otorch.optim, name)(po, **kw), getattr(torch.optim, name)(pt, **kw)
    o2.load_state_dict(into_oar)
    t2.load_state_dict(into_torch)
    assert [list(s) for s in o2.state.values()] == [list(s) for s in t2.state.values()]
    assert all(any(k is p for p in po) for k in o2.state)
    for so, st in zip(o2.state.values(), t2.state.values()):
        for k, v in st.items():
            _close(_np(so[k]), _np(v))


# ------------------------------------------------------------------ hooks
def _hook_log(mod):
    log = []
    ps = _params(mod)
    opt = mod.optim.Adam(ps, lr=0.01)
    hooks = importlib.import_module(mod.__name__ + ".optim.optimizer")
    g1 = hooks.register_optimizer_step_pre_hook(
        lambda o, a, k: log.append(("global pre", len(a), sorted(k))))
    g2 = hooks.register_optimizer_step_post_hook(
        lambda o, a, k: log.append(("global post", len(a))))
    try:
        h1 = opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", o is opt)))

        def replace_closure(o, a, k):
            log.append("replace")
            return a, {"closure": lambda: log.append("closure") or 1.5}
        h2 = opt.register_step_pre_hook(replace_closure)
        opt.register_step_post_hook(lambda o, a, k: log.append(("post", sorted(k))))
        opt.register_state_dict_pre_hook(lambda o: log.append("sd pre"))
        opt.register_state_dict_pre_hook(lambda o: log.append("sd pre first"), prepend=True)

        def post_sd(o, sd):
            log.append("sd post")
            sd = dict(sd)
            sd["extra"] = 1
            return sd
        opt.register_state_dict_post_hook(post_sd)

        def pre_load(o, sd):
            log.append(("load pre", "extra" in sd))
            sd.pop("extra")
            return sd
        opt.register_load_state_dict_pre_hook(pre_load)
        opt.register_load_state_dict_post_hook(lambda o: log.append("load post"))
        _steps(mod, opt, ps, _grads(n=1))
        log.append(("returned", opt.step()))
        h1.remove()
        h2.remove()
        h2.remove()
        log.append(("returned", opt.step()))
        sd = opt.state_dict()
        log.append(sorted(sd))
        opt.load_state_dict(sd)
        bad = opt.register_step_pre_hook(lambda o, a, k: 3)
        try:
            opt.step()
        except RuntimeError as e:
            log.append(("error", "must return None or a tuple" in str(e)))
        bad.remove()
    finally:
        g1.remove()
        g2.remove()
    opt.step()
    log.append("after removing the global hooks")
    return log


def test_hooks_run_as_torchs():
    assert _hook_log(otorch) == _hook_log(torch)


def test_hooks_wrap_a_user_written_optimizer_as_torchs():
    def run(mod):
        class Sign(mod.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, dict(lr=lr))

            @mod.no_grad()
            def step(self, closure=None):
                for g in self.param_groups:
                    for p in g["params"]:
                        st = self.state[p]
                        st["n"] = st.get("n", 0) + 1
                        p.sub_(p.grad.sign() * g["lr"])

        ps = _params(mod)
        opt = Sign(ps)
        log = []
        opt.register_step_post_hook(lambda o, a, k: log.append(len(o.state)))
        _steps(mod, opt, ps, _grads(n=2))
        sd = opt.state_dict()
        return [_np(p).copy() for p in ps], log, sd["state"], sd["param_groups"]
    (vt, lt, st, gt), (vo, lo, so, go) = run(torch), run(otorch)
    for a, b in zip(vt, vo):
        _close(b, a)
    assert lo == lt and so == st and go == gt


def test_jit_replay_runs_step_hooks():
    oar.seed(0)
    lin = otorch.nn.Linear(6, 3)
    opt = otorch.optim.Adam(lin.parameters(), lr=1e-2)

    def step(x):
        loss = (lin(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    jitted = oar.jit(step)
    for i in range(5):
        jitted(otorch.ones(8, 6) * i)
    seen = []
    h = opt.register_step_pre_hook(lambda o, a, k: seen.append(1))
    replays = jitted.stats["replays"]
    for i in range(3):
        jitted(otorch.ones(8, 6) * i)
    assert jitted.stats["replays"] > replays and len(seen) == 3
    h.remove()


# ------------------------------------------------------------------ groups, zero_grad
def _outcome(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as e:   # noqa: BLE001 - the class is what is compared
            return [c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins"][0], \
                [str(x.message)[:40] for x in w]
    return None, [str(x.message)[:40] for x in w]


def _bad_groups(mod):
    p, q = mod.nn.Parameter(mod.ones(2)), mod.nn.Parameter(mod.ones(3))
    nonleaf = mod.ones(2, requires_grad=True) * 2
    return [
        [1, 2],
        {"lr": 0.1},
        {"params": {q}},
        {"params": [q, 3]},
        {"params": [nonleaf]},
        {"params": [p]},                       # already in the first group
        {"params": [("q", q)]},                # names where the first group has none
        {"params": [q, q]},                    # duplicate: a warning
    ]


def test_add_param_group_checks_as_torchs():
    rows = []
    for mod in (torch, otorch):
        out = []
        for i in range(8):
            p = mod.nn.Parameter(mod.ones(2))
            opt = mod.optim.SGD([p], lr=0.1)
            bad = _bad_groups(mod)[i]
            if i == 5:
                bad = {"params": [p]}
            out.append(_outcome(lambda: opt.add_param_group(bad)))
        rows.append(out)
    assert rows[1] == rows[0]


def test_add_param_group_keeps_the_dict_given():
    for mod in (torch, otorch):
        p, q = mod.nn.Parameter(mod.ones(2)), mod.nn.Parameter(mod.ones(3))
        g0 = {"params": [p]}
        opt = mod.optim.SGD([g0], lr=0.1)
        g = {"params": q, "lr": 0.01}
        opt.add_param_group(g)
        assert opt.param_groups[0] is g0 and opt.param_groups[1] is g
        assert isinstance(g["params"], list) and g["momentum"] == 0


def test_zero_grad_sets_none_by_default():
    for mod in (torch, otorch):
        ps, opt = _run(mod, "SGD", dict(lr=0.1))
        _steps(mod, opt, ps, _grads(n=1))
        opt.zero_grad(set_to_none=False)
        assert all(p.grad is not None and not p.grad.any() for p in ps)
        opt.zero_grad()
        assert all(p.grad is None for p in ps)


# ------------------------------------------------------------------ copies
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@pytest.mark.parametrize("name,kw", [CONFIGS[1], CONFIGS[3], CONFIGS[9], CONFIGS[12]],
                         ids=[IDS[1], IDS[3], IDS[9], IDS[12]])
def test_pickle_and_deepcopy_with_state_as_torchs(name, kw, how):
    out = []
    for mod in (torch, otorch):
        ps, opt = _run(mod, name, kw, n=2)
        opt.register_step_pre_hook(lambda o, a, k: None)
        twin = pickle.loads(pickle.dumps(opt)) if how == "pickle" else copy.deepcopy(opt)
        tps = [p for g in twin.param_groups for p in g["params"]]
        assert all(any(k is p for p in tps) for k in twin.state)   # the copies' own params
        assert type(twin.state) is collections.defaultdict
        assert len(twin._optimizer_step_pre_hooks) == 0            # hooks are not copied
        _steps(mod, twin, tps, _grads(seed=3, n=2))
        out.append(([_np(p).copy() for p in tps + ps],
                    [{k: _np(v).copy() for k, v in s.items()} for s in twin.state.values()]))
    (vt, st), (vo, so) = out
    for a, b in zip(vt, vo):
        _close(b, a)
    for a, b in zip(st, so):
        assert list(b) == list(a)
        for k in a:
            _close(b[k], a[k])


# ------------------------------------------------------------------ LBFGS
def _lbfgs(mod, kw, dtype, steps):
    rng = np.random.default_rng(0)
    ps = [mod.nn.Parameter(mod.tensor(rng.standard_normal((3, 4)).astype(dtype))),
          mod.nn.Parameter(mod.tensor(rng.standard_normal(4).astype(dtype)))]
    target = [mod.tensor(rng.standard_normal((3, 4)).astype(dtype)),
              mod.tensor(rng.standard_normal(4).astype(dtype))]
    opt = mod.optim.LBFGS(ps, **kw)

    def closure():
        opt.zero_grad()
        loss = ((ps[0] - target[0]) ** 2).sum() + ((ps[1] - target[1]) ** 4).sum() + \
            (ps[0].sum() * ps[1].sum())
        loss.backward()
        return loss
    losses = [float(opt.step(closure)) for _ in range(steps)]
    return ps, opt, losses


@pytest.mark.parametrize("kw", [dict(), dict(lr=0.5, history_size=3, max_iter=7),
                                dict(line_search_fn="strong_wolfe"),
                                dict(line_search_fn="strong_wolfe", history_size=2)],
                         ids=["defaults", "short-history", "strong_wolfe", "strong_wolfe-h2"])
def test_lbfgs_float64_is_torchs(kw):
    (pt, ot, lt), (po, oo, lo) = (_lbfgs(torch, kw, np.float64, 3),
                                  _lbfgs(otorch, kw, np.float64, 3))
    np.testing.assert_allclose(lo, lt, rtol=1e-7)
    for a, b in zip(pt, po):
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-7, atol=1e-9)
    assert list(oo.state) == [po[0]] and list(ot.state) == [pt[0]]
    st, so = ot.state[pt[0]], oo.state[po[0]]
    assert list(so) == list(st)
    for k, v in st.items():
        w = so[k]
        if isinstance(v, torch.Tensor):
            assert isinstance(w, otorch.Tensor) and str(w.dtype) == str(v.dtype), k
            # differences of nearly equal gradients near the minimum (y, H_diag): the
            # losses' float64 rounding shows there, the parameters agree to 1e-7 above
            np.testing.assert_allclose(_np(w), _np(v), rtol=1e-4, atol=1e-7)
        elif isinstance(v, list):
            assert len(w) == len(v) and [type(x).__name__ for x in w] == \
                [type(x).__name__ for x in v], k
        else:
            assert type(w) is type(v) and w == pytest.approx(v, rel=1e-7), k
    # its state dict travels to torch and back
    sd = _save_load(oo.state_dict(), otorch.save, lambda f: torch.load(f, weights_only=True))
    twin = [torch.nn.Parameter(torch.tensor(_np(p))) for p in po]
    t2 = torch.optim.LBFGS(twin, **kw)
    t2.load_state_dict(sd)
    assert list(t2.state[twin[0]]) == list(st)


def test_lbfgs_float32_converges_as_torchs():
    for kw in (dict(), dict(line_search_fn="strong_wolfe")):
        (pt, ot, lt), (po, oo, lo) = (_lbfgs(torch, kw, np.float32, 4),
                                      _lbfgs(otorch, kw, np.float32, 4))
        np.testing.assert_allclose(lo[:1], lt[:1], rtol=1e-5)
        for a, b in zip(pt, po):
            np.testing.assert_allclose(_np(b), _np(a), rtol=2e-3, atol=2e-3)
        assert list(oo.state[po[0]]) == list(ot.state[pt[0]])


def test_lbfgs_refuses_as_torch():
    for mod in (torch, otorch):
        p, q = mod.nn.Parameter(mod.ones(2)), mod.nn.Parameter(mod.ones(2))
        with pytest.raises(ValueError, match="per-parameter options"):
            mod.optim.LBFGS([{"params": [p]}, {"params": [q]}])
        opt = mod.optim.LBFGS([p], line_search_fn="bogus")

        def closure():
            opt.zero_grad()
            loss = (p * p).sum()
            loss.backward()
            return loss
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)
        with pytest.raises(TypeError):
            opt.step()


@pytest.mark.parametrize("name,bad", [("Rprop", dict(etas=(1.5, 1.2))), ("Rprop", dict(lr=-1)),
                                      ("ASGD", dict(weight_decay=-1)),
                                      ("Adafactor", dict(d=0.5)),
                                      ("Adafactor", dict(beta2_decay=0.5)),
                                      ("Adafactor", dict(eps=(-1, 1e-3)))])
def test_new_optimizers_refuse_bad_hyper_parameters_as_torch(name, bad):
    with pytest.raises(ValueError) as et:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **bad)
    with pytest.raises(ValueError) as eo:
        getattr(otorch.optim, name)([otorch.nn.Parameter(otorch.ones(2))], **bad)
    assert str(eo.value) == str(et.value)


# ------------------------------------------------------------------ the Paddle door
def test_paddle_door_state_keeps_its_layout_without_scratch():
    p = oar.create_parameter([3], "float32")
    for opt in (oar.optimizer.Adam(parameters=[p], learning_rate=0.1),
                oar.optimizer.Momentum(parameters=[p], learning_rate=0.1),
                oar.optimizer.RMSProp(parameters=[p], learning_rate=0.1, centered=True)):
        for _ in range(2):
            p.grad = oar.ones([3])
            opt.step()
        st = opt.state[id(p)]                       # keyed by id, as before
        assert st is opt.state[p]
        assert not [k for k in st if k.startswith("_")]
        sd = opt.state_dict()
        assert all(not k.startswith("_") for k in sd.get("state.0.0", {}))
    assert isinstance(opt.state["step" if False else id(p)]["step"], int)
