"""Breadth: Paddle-door learning-rate schedulers (oar.optimizer.lr) and optimizers (Adamax,
NAdam, RAdam, ASGD, Rprop, LBFGS) against paddle 3.3.1, and the torch door's schedulers
against torch 2.13 (Note [Paddle schedulers])."""
from __future__ import annotations

import math

import numpy as np
import pytest

import oar
import oar.optimizer.lr as olr

paddle = pytest.importorskip("paddle")
plr = paddle.optimizer.lr

STEPS = 40


def _cos_after(e):
    return plr.CosineAnnealingDecay(0.5, T_max=7, eta_min=0.01)


# name -> (args, kwargs); the same call builds paddle's and oar's scheduler
SCHEDULES = {
    "NoamDecay": ((64, 10), dict(learning_rate=2.0)),
    "PiecewiseDecay": (([3, 9, 20], [0.1, 0.05, 0.01, 0.001]), {}),
    "NaturalExpDecay": ((0.5, 0.1), {}),
    "InverseTimeDecay": ((0.5, 0.3), {}),
    "PolynomialDecay": ((0.5, 12), dict(end_lr=0.01, power=1.5)),
    "PolynomialDecay-cycle": ((0.5, 12), dict(end_lr=0.01, power=2.0, cycle=True)),
    "LinearWarmup": ((0.5, 8, 0.0, 0.5), {}),
    "ExponentialDecay": ((0.5, 0.9), {}),
    "MultiStepDecay": ((0.5, [4, 10, 25]), dict(gamma=0.5)),
    "StepDecay": ((0.5, 6), dict(gamma=0.7)),
    "LambdaDecay": ((0.5, lambda e: 0.95 ** e), {}),
    "MultiplicativeDecay": ((0.5, lambda e: 0.97 if e % 2 else 0.99), {}),
    "CosineAnnealingDecay": ((0.5, 7), dict(eta_min=0.01)),
    "OneCycleLR": ((0.8, 50), {}),
    "OneCycleLR-3-linear": ((0.8, 50), dict(phase_pct=0.25, anneal_strategy="linear",
                                            three_phase=True, divide_factor=10)),
    "CyclicLR": ((0.1, 0.9, 5), {}),
    "CyclicLR-tri2": ((0.1, 0.9, 4), dict(step_size_down=6, mode="triangular2")),
    "CyclicLR-exp": ((0.1, 0.9, 4), dict(mode="exp_range", exp_gamma=0.95)),
    "CyclicLR-fn": ((0.1, 0.9, 3), dict(scale_fn=lambda x: 1 / (1 + x),
                                        scale_mode="iterations")),
    "LinearLR": ((0.5, 12), dict(start_factor=0.2, end_factor=0.9)),
    "CosineAnnealingWarmRestarts": ((0.5, 5), dict(eta_min=0.02)),
    "CosineAnnealingWarmRestarts-mult": ((0.5, 3), dict(T_mult=2, eta_min=0.0)),
}


def _make(mod, key):
    args, kwargs = SCHEDULES[key]
    return getattr(mod, key.split("-")[0])(*args, **kwargs)


@pytest.mark.parametrize("key", sorted(SCHEDULES))
def test_schedule_matches_paddle(key):
    ours, theirs = _make(olr, key), _make(plr, key)
    got, want = [ours()], [theirs()]
    for _ in range(STEPS):
        ours.step()
        theirs.step()
        got.append(ours())
        want.append(theirs())
        assert ours.last_epoch == theirs.last_epoch
        assert ours.get_lr() == theirs.get_lr() or key.startswith(("Cosine", "LinearLR"))
    assert got == want                          # the same float arithmetic: bit for bit
    assert ours.state_dict() == theirs.state_dict()
    # fresh schedulers restored from the state continue alike (paddle's state omits
    # CosineAnnealingWarmRestarts' position in its period: both restart it the same way)
    again, theirs_again = _make(olr, key), _make(plr, key)
    again.set_state_dict(theirs.state_dict())
    theirs_again.set_state_dict(theirs.state_dict())
    for _ in range(5):
        again.step()
        theirs_again.step()
        assert again() == theirs_again()


def test_linear_warmup_wrapping_a_scheduler_matches_paddle():
    def make(m):
        return m.LinearWarmup(m.CosineAnnealingDecay(0.5, T_max=10), warmup_steps=5,
                              start_lr=0.0, end_lr=0.5)
    ours, theirs = make(olr), make(plr)
    for _ in range(STEPS):
        assert ours() == theirs()
        ours.step()
        theirs.step()
    assert ours.state_dict() == theirs.state_dict()
    assert "LinearWarmup_LR" in ours.state_dict()
    again = make(olr)
    again.set_state_dict(theirs.state_dict())
    assert again.learning_rate.last_epoch == theirs.learning_rate.last_epoch
    again.step()
    theirs.step()
    assert again() == theirs()


def test_step_to_an_epoch_matches_paddle():
    for key in ("CosineAnnealingDecay", "StepDecay", "CosineAnnealingWarmRestarts-mult",
                "CosineAnnealingWarmRestarts", "PolynomialDecay-cycle"):
        ours, theirs = _make(olr, key), _make(plr, key)
        for e in (3, 17, 9, 30, 0, 25):
            ours.step(e)
            theirs.step(e)
            assert ours() == theirs() and ours.last_epoch == theirs.last_epoch, (key, e)


LOSSES = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.89, 0.9, 0.9, 0.9, 0.91, 0.92, 0.93, 0.5, 0.6,
          0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.61, 0.62, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4]


@pytest.mark.parametrize("kw", [dict(patience=2), dict(patience=1, cooldown=2, factor=0.5),
                                dict(mode="max", patience=2, threshold_mode="abs",
                                     threshold=0.01),
                                dict(patience=0, min_lr=0.02, factor=0.3)])
def test_reduce_on_plateau_matches_paddle(kw):
    ours, theirs = olr.ReduceOnPlateau(0.5, **kw), plr.ReduceOnPlateau(0.5, **kw)
    assert ours() == theirs() and ours.last_epoch == theirs.last_epoch
    for i, loss in enumerate(LOSSES):
        # a number, a one-element tensor: the same rates
        ours.step(oar.to_tensor(loss) if i % 3 == 0 else loss)
        theirs.step(paddle.to_tensor(loss) if i % 3 == 0 else loss)
        assert ours() == theirs(), i
        assert (ours.num_bad_epochs, ours.cooldown_counter, ours.last_epoch) == \
            (theirs.num_bad_epochs, theirs.cooldown_counter, theirs.last_epoch)
    s, t = ours.state_dict(), theirs.state_dict()
    assert s == pytest.approx(t)
    again = olr.ReduceOnPlateau(0.5, **kw)
    again.set_state_dict(s)
    assert again() == theirs() and again.best == pytest.approx(float(theirs.best))


def test_reduce_on_plateau_refuses_bad_metrics():
    s = olr.ReduceOnPlateau(0.5)
    with pytest.raises(TypeError):
        s.step("low")
    with pytest.raises(ValueError):
        s.step(oar.to_tensor([1.0, 2.0]))
    assert s.last_epoch == 0 and s.best is None


@pytest.mark.parametrize("make", [
    lambda m: m.StepDecay(0.5, 2.0),
    lambda m: m.StepDecay(0.5, 2, gamma=1.5),
    lambda m: m.MultiStepDecay(0.5, [5, 3]),
    lambda m: m.MultiStepDecay(0.5, 3),
    lambda m: m.PiecewiseDecay([], [0.1]),
    lambda m: m.PiecewiseDecay([3, 5], [0.1, 0.2]),
    lambda m: m.LambdaDecay(0.5, 3),
    lambda m: m.OneCycleLR(0.5, 10, phase_pct=1),
    lambda m: m.OneCycleLR(0.5, 10, phase_pct=0.6, three_phase=True),
    lambda m: m.OneCycleLR(0.5, 10, anneal_strategy="exp"),
    lambda m: m.CyclicLR(0.1, 0.5, 0),
    lambda m: m.CyclicLR(0.1, 0.5, 3, mode="sine"),
    lambda m: m.LinearLR(0.5, 10, start_factor=0),
    lambda m: m.CosineAnnealingWarmRestarts(0.5, 0),
    lambda m: m.CosineAnnealingDecay(0.5, 2.5),
    lambda m: m.ReduceOnPlateau(0.5, mode="mean"),
    lambda m: m.ReduceOnPlateau(0.5, factor=2.0),
    lambda m: m.NoamDecay(0, 10),
    lambda m: m.LRScheduler("0.1"),
    lambda m: m.StepDecay(-0.5, 2),
])
def test_bad_arguments_refused_like_paddle(make):
    with pytest.raises((TypeError, ValueError, AssertionError)) as theirs:
        make(plr)
    kind = TypeError if isinstance(theirs.value, TypeError) else ValueError
    with pytest.raises(kind):
        make(olr)


def test_set_state_dict_refuses_a_missing_key():
    s = olr.StepDecay(0.5, 2)
    s.step()
    with pytest.raises(ValueError, match="last_lr"):
        s.set_state_dict({"last_epoch": 3})
    assert s.last_epoch == 1


def test_verbose_prints_like_paddle(capsys):
    olr.StepDecay(0.5, 2, verbose=True).step()
    ours = capsys.readouterr().out
    plr.StepDecay(0.5, 2, verbose=True).step()
    assert ours == capsys.readouterr().out


def test_user_subclass_of_lrscheduler():
    class Halve(olr.LRScheduler):
        def get_lr(self):
            return self.base_lr * 0.5 ** self.last_epoch
    s = Halve(0.8)
    s.step()
    s.step()
    assert s() == 0.2 and s.last_epoch == 2


# ------------------------------------------------------------------ Paddle-door optimizers
OPTIMIZERS = [
    ("Adamax", dict(learning_rate=0.1)),
    ("Adamax", dict(learning_rate=0.05, beta1=0.8, beta2=0.99, epsilon=1e-6,
                    weight_decay=0.1)),
    ("NAdam", dict(learning_rate=0.1)),
    ("NAdam", dict(learning_rate=0.05, momentum_decay=0.01, weight_decay=0.1)),
    ("RAdam", dict(learning_rate=0.1)),
    ("RAdam", dict(learning_rate=0.1, beta2=0.5, weight_decay="L2")),   # rho_t > 5 early
    ("ASGD", dict(learning_rate=0.1)),
    ("ASGD", dict(learning_rate=0.1, batch_num=3, weight_decay=0.1)),
    ("Rprop", dict(learning_rate=0.01)),
    ("Rprop", dict(learning_rate=0.01, etas=(0.3, 1.5), learning_rate_range=(1e-3, 0.02))),
]


def _train(fw, name, kw, dtype, clip, steps=5, sched=False, save_at=None):
    """Five steps of fw.optimizer.<name> on a weight and a bias, from the same values and
    gradients (a transposed, non-contiguous gradient source for the weight)."""
    rng = np.random.default_rng(7)
    w0 = rng.standard_normal((3, 4)).astype(dtype)
    b0 = rng.standard_normal(4).astype(dtype)
    grads = [(rng.standard_normal((4, 3)).astype(dtype).T, rng.standard_normal(4).astype(dtype))
             for _ in range(steps)]
    if fw is paddle:
        w = paddle.create_parameter([3, 4], dtype, default_initializer=paddle.nn.initializer.Assign(w0))
        b = paddle.create_parameter([4], dtype, default_initializer=paddle.nn.initializer.Assign(b0))
    else:
        w, b = oar.to_tensor(w0, stop_gradient=False), oar.to_tensor(b0, stop_gradient=False)
    kw = dict(kw)
    if kw.get("weight_decay") == "L2":
        # (oar has no paddle.regularizer module yet: its L2Decay is oar.optimizer.L2Decay)
        kw["weight_decay"] = (paddle.regularizer if fw is paddle else oar.optimizer).L2Decay(0.05)
    if clip:
        kw["grad_clip"] = fw.nn.ClipGradByGlobalNorm(1.0)
    if sched:
        kw["learning_rate"] = fw.optimizer.lr.StepDecay(kw["learning_rate"], 2, gamma=0.5)
    opt = getattr(fw.optimizer, name)(parameters=[w, b], **kw)
    rates = []
    for i, (gw, gb) in enumerate(grads):
        if save_at == i:
            state = opt.state_dict()
            opt = getattr(fw.optimizer, name)(parameters=[w, b], **kw)
            opt.set_state_dict(state)
        loss = (w * fw.to_tensor(gw)).sum() + (b * fw.to_tensor(gb)).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        rates.append(opt.get_lr())
        if sched:
            kw["learning_rate"].step()
    return w.numpy(), b.numpy(), rates


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("clip", [False, True])
@pytest.mark.parametrize("name,kw", OPTIMIZERS, ids=lambda v: v if isinstance(v, str) else "")
def test_paddle_optimizer_matches_paddle(name, kw, dtype, clip):
    theirs = _train(paddle, name, kw, dtype, clip)
    ours = _train(oar, name, kw, dtype, clip)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-13, atol=1e-14)
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a, b, **tol)
    assert ours[0].dtype == theirs[0].dtype


@pytest.mark.parametrize("name,kw", [c for c in OPTIMIZERS if c[0] != "Rprop"],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_scheduler_drives_paddle_optimizer(name, kw):
    theirs = _train(paddle, name, kw, "float64", False, sched=True)
    ours = _train(oar, name, kw, "float64", False, sched=True)
    assert ours[2] == theirs[2]                      # opt.get_lr() step by step
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name,kw", OPTIMIZERS, ids=lambda v: v if isinstance(v, str) else "")
def test_state_dict_round_trip_continues_the_run(name, kw):
    whole = _train(oar, name, kw, "float64", False)
    resumed = _train(oar, name, kw, "float64", False, save_at=3)
    for a, b in zip(whole[:2], resumed[:2]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [
    lambda m, ps: m.optimizer.Adamax(beta1=1.0, parameters=ps),
    lambda m, ps: m.optimizer.NAdam(momentum_decay=-1.0, parameters=ps),
    lambda m, ps: m.optimizer.RAdam(epsilon=-1.0, parameters=ps),
    lambda m, ps: m.optimizer.RAdam(beta2=1.5, parameters=ps),
    lambda m, ps: m.optimizer.ASGD(batch_num=0, parameters=ps),
    lambda m, ps: m.optimizer.Rprop(learning_rate=100.0, parameters=ps),
    lambda m, ps: m.optimizer.Rprop(etas=(1.5, 1.2), parameters=ps),
    lambda m, ps: m.optimizer.Adamax(grad_clip=1.0, parameters=ps),
])
def test_bad_optimizer_arguments_refused_like_paddle(make):
    with pytest.raises((TypeError, ValueError)) as theirs:
        make(paddle, [paddle.create_parameter([2], "float32")])
    with pytest.raises(type(theirs.value) if theirs.type in (TypeError, ValueError)
                       else ValueError):
        make(oar, [oar.to_tensor([1.0, 2.0], stop_gradient=False)])


def test_paddle_optimizer_step_bumps_version_once():
    for name, kw in OPTIMIZERS:
        w = oar.to_tensor([1.0, -2.0, 3.0], stop_gradient=False)
        opt = getattr(oar.optimizer, name)(parameters=[w], **{k: v for k, v in kw.items()
                                                               if k != "weight_decay"})
        (w * w).sum().backward()
        v = w.inplace_version
        opt.step()
        assert w.inplace_version == v + 1, name


# --------------------------------------------------------------- torch-door schedulers
def _torch_schedule(T, kind):
    p = T.nn.Parameter(T.zeros(3))
    opt = (T.optim.Adam([p], lr=0.1) if kind.endswith("adam")
           else T.optim.SGD([p], lr=0.1, momentum=0.9))
    S = T.optim.lr_scheduler
    make = {
        "onecycle": lambda: S.OneCycleLR(opt, max_lr=1.0, total_steps=45),
        "onecycle3-adam": lambda: S.OneCycleLR(opt, max_lr=1.0, total_steps=45,
                                               anneal_strategy="linear", three_phase=True),
        "cyclic": lambda: S.CyclicLR(opt, 0.01, 0.5, step_size_up=4, step_size_down=7,
                                     mode="triangular2"),
        "cyclic-exp": lambda: S.CyclicLR(opt, 0.01, 0.5, step_size_up=3, mode="exp_range",
                                         gamma=0.9),
        "cyclic-adam": lambda: S.CyclicLR(opt, 0.01, 0.5, step_size_up=3,
                                          cycle_momentum=False),
        "warm-restarts": lambda: S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2,
                                                               eta_min=0.001),
        "polynomial": lambda: S.PolynomialLR(opt, total_iters=10, power=2.0),
        "lambda": lambda: S.LambdaLR(opt, lambda e: 0.9 ** e),
        "multiplicative": lambda: S.MultiplicativeLR(opt, lambda e: 0.95),
        "sequential": lambda: S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=5),
                                                   S.ExponentialLR(opt, 0.9)], milestones=[5]),
        "chained": lambda: S.ChainedScheduler([S.ConstantLR(opt, 0.5, total_iters=4),
                                               S.ExponentialLR(opt, 0.95)]),
        "plateau": lambda: S.ReduceLROnPlateau(opt, patience=1, cooldown=1, factor=0.5),
    }[kind]
    return opt, make, make()


def _torch_run(T, kind, steps, resume_at=None):
    opt, make, sched = _torch_schedule(T, kind)
    out = []
    for i in range(steps):
        if i == resume_at:                 # a fresh scheduler from the saved state
            state = sched.state_dict()
            sched = make()
            sched.load_state_dict(state)
        opt.step()
        sched.step(LOSSES[i % len(LOSSES)]) if kind == "plateau" else sched.step()
        g = opt.param_groups[0]
        out.append((sched.get_last_lr(), g["lr"], g.get("momentum"), g.get("betas")))
    return out, sched.state_dict()


@pytest.mark.parametrize("kind", ["onecycle", "onecycle3-adam", "cyclic", "cyclic-exp",
                                  "cyclic-adam", "warm-restarts", "polynomial", "lambda",
                                  "multiplicative", "sequential", "chained", "plateau"])
def test_torch_scheduler_matches_torch(kind):
    torch = pytest.importorskip("torch")
    import oar.torch as ot
    theirs, their_state = _torch_run(torch, kind, 40)
    ours, our_state = _torch_run(ot, kind, 40)
    assert ours == theirs                  # rates, momentum / betas cycling, get_last_lr()
    assert sorted(our_state) == sorted(their_state)
    # a scheduler rebuilt and loaded mid-run (its construction touches the optimizer's rates
    # as torch's does: compare with torch doing the same)
    assert _torch_run(ot, kind, 40, resume_at=17) == _torch_run(torch, kind, 40, resume_at=17)


def test_linear_warmup_drives_adamw_with_clip_like_paddle():
    """The transformer_lm program's optimizer: AdamW(LinearWarmup, weight_decay,
    ClipGradByGlobalNorm) on a Linear layer, 15 steps, the same weights and data."""
    def run(fw):
        rng = np.random.default_rng(3)
        layer = fw.nn.Linear(4, 3)
        layer.weight.set_value(rng.standard_normal((4, 3)).astype("float32"))
        layer.bias.set_value(rng.standard_normal(3).astype("float32"))
        warmup = fw.optimizer.lr.LinearWarmup(learning_rate=0.01, warmup_steps=10,
                                              start_lr=0.001, end_lr=0.01)
        opt = fw.optimizer.AdamW(learning_rate=warmup, parameters=layer.parameters(),
                                 weight_decay=0.01, grad_clip=fw.nn.ClipGradByGlobalNorm(1.0))
        rates = []
        for _ in range(15):
            x = fw.to_tensor(rng.standard_normal((5, 4)).astype("float32"))
            loss = (layer(x) ** 2).mean() * 10
            loss.backward()
            opt.step()
            opt.clear_grad()
            warmup.step()
            rates.append(opt.get_lr())
        return layer.weight.numpy(), layer.bias.numpy(), rates
    ours, theirs = run(oar), run(paddle)
    assert ours[2] == theirs[2]
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam"])
def test_parameter_group_hyper_parameters_like_paddle(name):
    """A Paddle parameter group may set its own beta1, beta2 and epsilon."""
    def run(fw):
        rng = np.random.default_rng(5)
        ws = [fw.to_tensor(rng.standard_normal(4).astype("float64"), stop_gradient=False)
              for _ in range(2)]
        if fw is paddle:
            ws = [paddle.create_parameter([4], "float64",
                                          default_initializer=paddle.nn.initializer.Assign(w))
                  for w in ws]
        opt = getattr(fw.optimizer, name)(learning_rate=0.1, parameters=[
            {"params": [ws[0]]}, {"params": [ws[1]], "beta1": 0.5, "beta2": 0.9,
                                  "epsilon": 1e-3}])
        for _ in range(4):
            g = fw.to_tensor(rng.standard_normal(4))
            ((ws[0] * g).sum() + (ws[1] * g * 2).sum()).backward()
            opt.step()
            opt.clear_grad()
        return [w.numpy() for w in ws]
    for a, b in zip(run(oar), run(paddle)):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-14)


def test_set_lr_and_set_lr_scheduler_like_paddle():
    def make(fw):
        w = (paddle.create_parameter([2], "float32") if fw is paddle
             else oar.to_tensor([1.0, 2.0], stop_gradient=False))
        return fw.optimizer.SGD(learning_rate=fw.optimizer.lr.StepDecay(0.1, 2),
                                parameters=[w])
    for fw in (paddle, oar):
        o = make(fw)
        with pytest.raises(RuntimeError):
            o.set_lr(0.5)
        assert o.get_lr() == 0.1
        o.set_lr_scheduler(fw.optimizer.lr.ExponentialDecay(0.2, 0.5))
        assert o.get_lr() == 0.2
        with pytest.raises(TypeError):
            o.set_lr_scheduler(0.3)


# ------------------------------------------------------------------------- Paddle LBFGS
def _lbfgs_run(fw, dtype, kw, calls=3, rosenbrock=False):
    rng = np.random.default_rng(11)
    A = rng.standard_normal((6, 3)).astype(dtype)
    y = rng.standard_normal(6).astype(dtype)
    w0 = (np.array([-1.2, 1.0, 0.5]) if rosenbrock else rng.standard_normal(3)).astype(dtype)
    b0 = np.array([0.5], dtype)
    if fw is paddle:
        w = paddle.create_parameter([3], dtype, default_initializer=paddle.nn.initializer.Assign(w0))
        b = paddle.create_parameter([1], dtype, default_initializer=paddle.nn.initializer.Assign(b0))
    else:
        w, b = oar.to_tensor(w0, stop_gradient=False), oar.to_tensor(b0, stop_gradient=False)
    At, yt = fw.to_tensor(A), fw.to_tensor(y)
    opt = fw.optimizer.LBFGS(parameters=[w, b], **kw)

    def closure():
        opt.clear_grad()
        if rosenbrock:
            loss = ((1 - w[:2]) ** 2).sum() + 100 * ((w[1:] - w[:2] ** 2) ** 2).sum() \
                + (b * b).sum()
        else:
            r = fw.matmul(At, w) + b - yt
            loss = (r * r).sum() + (w ** 4).sum() * 0.1
        loss.backward()
        return loss
    losses = [float(opt.step(closure)) for _ in range(calls)]
    st = opt.state_dict()["state"]
    return w.numpy(), b.numpy(), losses, (st["func_evals"], st["n_iter"])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [{}, dict(line_search_fn="strong_wolfe"),
                                dict(max_iter=5, history_size=2, learning_rate=0.5),
                                dict(max_iter=7, history_size=3, line_search_fn="strong_wolfe")])
@pytest.mark.parametrize("rosenbrock", [False, True])
def test_lbfgs_matches_paddle(dtype, kw, rosenbrock):
    if rosenbrock and dtype == "float32":
        # in Rosenbrock's ill-conditioned valley float32 rounding differences (paddle sums
        # its inner products its own way) send the line search down another path: only
        # float64, where the two agree to 1e-10, is compared there
        pytest.skip("float32 paths diverge chaotically on Rosenbrock; float64 compared")
    if rosenbrock and "line_search_fn" not in kw:
        kw = dict(kw, learning_rate=0.01)
    ours = _lbfgs_run(oar, dtype, kw, rosenbrock=rosenbrock)
    theirs = _lbfgs_run(paddle, dtype, kw, rosenbrock=rosenbrock)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, **tol)
    if dtype == "float64":           # float32 may stop one iteration apart near a tolerance
        assert ours[3] == theirs[3]


def test_lbfgs_state_keys_and_minimize_like_paddle():
    w = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    opt = oar.optimizer.LBFGS(parameters=[w], max_iter=3)

    def closure():
        opt.clear_grad()
        loss = ((w - 3.0) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    opt.step(closure)
    pw = paddle.create_parameter([2], "float32",
                                 default_initializer=paddle.nn.initializer.Assign(
                                     np.array([1.0, 2.0], "float32")))
    popt = paddle.optimizer.LBFGS(parameters=[pw], max_iter=3)

    def pclosure():
        popt.clear_grad()
        loss = ((pw - 3.0) ** 2).sum()
        loss.backward()
        return loss
    popt.step(pclosure)
    popt.step(pclosure)
    assert sorted(opt.state_dict()["state"]) == sorted(popt.state_dict()["state"])
    with pytest.raises(NotImplementedError):
        opt.minimize(closure())


@pytest.mark.parametrize("key", sorted(SCHEDULES) + ["ReduceOnPlateau"])
def test_every_scheduler_drives_an_optimizer_like_paddle(key):
    """Each scheduler as learning_rate= of an optimizer: opt.get_lr() and the parameters
    follow paddle's step by step (ReduceOnPlateau fed the loss)."""
    def run(fw):
        sched = (fw.optimizer.lr.ReduceOnPlateau(0.5, patience=1) if key == "ReduceOnPlateau"
                 else _make(fw.optimizer.lr, key))
        w0 = np.array([1.0, -2.0, 0.5])
        w = (paddle.create_parameter([3], "float64",
                                     default_initializer=paddle.nn.initializer.Assign(w0))
             if fw is paddle else oar.to_tensor(w0, stop_gradient=False))
        opt = fw.optimizer.Momentum(learning_rate=sched, momentum=0.5, parameters=[w])
        rates = []
        for i in range(12):
            loss = (w * w).sum()
            loss.backward()
            opt.step()
            opt.clear_grad()
            sched.step(LOSSES[i]) if key == "ReduceOnPlateau" else sched.step()
            rates.append(opt.get_lr())
        return rates, w.numpy()
    ours, theirs = run(oar), run(paddle)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-13, atol=1e-15)
