"""Optimizers against torch 2.13, allocation-free steps, data loading, the main job."""
import os
import re
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import oar
from oar import nn

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
W0 = rng.normal(size=(4, 3))
B0 = rng.normal(size=(3,))
XS = [rng.normal(size=(6, 4)) for _ in range(5)]


def _run_oar(make_opt):
    w = nn.Parameter(W0.copy())    # float64 for a tight comparison
    b = nn.Parameter(B0.copy())
    assert w.dtype == oar.float64
    opt = make_opt([w, b])
    for x in XS:
        loss = ((oar.to_tensor(x) @ w + b).tanh() ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
    return w.numpy(), b.numpy()


def _run_torch(make_opt):
    w = torch.tensor(W0.copy(), requires_grad=True)
    b = torch.tensor(B0.copy(), requires_grad=True)
    opt = make_opt([w, b])
    for x in XS:
        loss = ((torch.tensor(x) @ w + b).tanh() ** 2).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    return w.detach().numpy(), b.detach().numpy()


CASES = {
    "sgd": (lambda p: oar.optimizer.SGD(learning_rate=0.1, parameters=p),
            lambda p: torch.optim.SGD(p, lr=0.1)),
    "sgd_momentum_wd": (lambda p: oar.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01),
                        lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=0.01)),
    "sgd_nesterov": (lambda p: oar.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1),
                     lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    "sgd_dampening": (lambda p: oar.optim.SGD(p, lr=0.05, momentum=0.8, dampening=0.3),
                      lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.8, dampening=0.3)),
    "paddle_momentum": (lambda p: oar.optimizer.Momentum(0.05, 0.9, parameters=p),
                        lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)),
    "adam": (lambda p: oar.optimizer.Adam(learning_rate=0.01, parameters=p),
             lambda p: torch.optim.Adam(p, lr=0.01)),
    "adam_wd": (lambda p: oar.optim.Adam(p, lr=0.01, betas=(0.8, 0.99), weight_decay=0.1),
                lambda p: torch.optim.Adam(p, lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    "adamw": (lambda p: oar.optim.AdamW(p, lr=0.01, weight_decay=0.1),
              lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_optimizer_steps_match_torch(name):
    mo, mt = CASES[name]
    for a, b in zip(_run_oar(mo), _run_torch(mt)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["sgd_momentum_wd", "sgd_nesterov", "adam_wd", "adamw"])
def test_step_allocates_nothing_after_the_first(name):
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = CASES[name][0](model.parameters())
    x = oar.randn([8, 64])

    def backward():
        opt.clear_grad(set_to_zero=True)
        model(x).sum().backward()
    backward()
    opt.step()                       # the first step creates the state buffers
    backward()
    before = oar.device.memory_allocated()
    oar.device.reset_max_memory_allocated()
    tracemalloc.start()
    opt.step()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert oar.device.memory_allocated() == before
    assert oar.device.max_memory_allocated() == before
    params_bytes = sum(p.numel() * 4 for p in model.parameters())
    assert peak < params_bytes / 20     # bookkeeping only, nothing proportional to the parameters
    assert all(p.inplace_version >= 2 and p.is_leaf for p in model.parameters())


def test_optimizer_state_dict_and_schedulers():
    p = nn.Parameter(np.ones(3, np.float32))
    opt = oar.optimizer.Adam(learning_rate=0.1, parameters=[p])
    (p * p).sum().backward()
    opt.step()
    sd = opt.state_dict()
    p2 = nn.Parameter(np.ones(3, np.float32))
    opt2 = oar.optimizer.Adam(learning_rate=0.5, parameters=[p2])
    opt2.set_state_dict(sd)
    assert opt2.get_lr() == 0.1 and opt2.state[id(p2)]["step"] == 1
    sched = oar.optimizer.lr.StepDecay(1.0, step_size=2, gamma=0.5)
    opt3 = oar.optimizer.SGD(learning_rate=sched, parameters=[p])
    lrs = []
    for _ in range(5):
        lrs.append(opt3.get_lr())
        sched.step()
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25]
    topt = oar.optim.SGD([p], lr=1.0)
    cos = oar.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=4)
    tref = torch.optim.lr_scheduler.CosineAnnealingLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0), T_max=4)
    for _ in range(4):
        cos.step()
        tref.optimizer.step()
        tref.step()
        assert cos.get_last_lr()[0] == pytest.approx(tref.get_last_lr()[0])
    with pytest.raises(ValueError, match="parameters"):
        oar.optimizer.SGD(learning_rate=0.1)


def test_dataloader_batches_shuffle_seed_drop_last():
    x = oar.arange(10).astype("float32").reshape([10, 1])
    y = oar.arange(10)
    ds = oar.io.TensorDataset([x, y])
    assert len(ds) == 10 and ds[3][1].item() == 3
    batches = list(oar.io.DataLoader(ds, batch_size=4))
    assert [b[0].shape[0] for b in batches] == [4, 4, 2]
    assert len(oar.io.DataLoader(ds, batch_size=4, drop_last=True)) == 2
    a = [b[1].tolist() for b in oar.io.DataLoader(ds, batch_size=3, shuffle=True, seed=7)]
    b = [b[1].tolist() for b in oar.utils.data.DataLoader(oar.utils.data.TensorDataset(x, y), batch_size=3, shuffle=True, seed=7)]
    assert a == b and sorted(sum(a, [])) == list(range(10)) and a != [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]

    class Squares(oar.io.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return oar.to_tensor([float(i)]), i * i
    xb, yb = next(iter(oar.io.DataLoader(Squares(), batch_size=5)))
    assert xb.shape == [5, 1] and yb.tolist() == [0, 1, 4, 9, 16]


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "oar", *args], capture_output=True, text=True,
                          timeout=600, env=None if env is None else {**os.environ, **env})


@pytest.mark.parametrize("args,needle", [
    (["train", "--model", "rnn"], "invalid choice"),
    (["train", "--epochs", "0"], "--epochs"),
    (["train", "--lr", "-1"], "--lr"),
    (["train", "--plot", "/nonexistent-dir/x.png"], "cannot write the plot"),
    (["fly"], "unknown command"),
])
def test_cli_errors_are_one_line(args, needle):
    r = _cli(*args)
    assert r.returncode == 2 and needle in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_cli_missing_optional_dependency(monkeypatch, capsys):
    from oar import train
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    assert train.main(["--epochs", "1"]) == 2
    err = capsys.readouterr().err
    assert "scikit-learn" in err and "Traceback" not in err


_ROW = re.compile(r"^(\S.*?)\s+(\d\.\d{4})\s+([\d.]+) s\s+([\d.]+) KiB\s+([\d.]+) KiB$")


def _rows(stdout):
    """The main job's table: label -> (test accuracy, s per epoch, KiB training step, KiB
    inference)."""
    rows = {}
    for line in stdout.splitlines():
        m = _ROW.match(line)
        if m:
            rows[m.group(1)] = tuple(float(v) for v in m.groups()[1:])
    return rows


def test_main_job_trains_the_conv_bn_network_and_meets_the_memory_target(tmp_path):
    """The default main job trains Conv-BN-LeakyReLU, InPlaceABN and checkpointing variants
    from the same weights to >= 97% test accuracy, and InPlaceABN's training-step peak is at
    most 0.6x the standard model's (issue 12's target; bytes, not time)."""
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    png = tmp_path / "mem.png"
    r = _cli("train", "--plot", str(png))
    assert r.returncode == 0, r.stderr
    rows = _rows(r.stdout)
    assert list(rows) == ["BatchNorm + LeakyReLU", "InPlaceABN", "checkpointing"], r.stdout
    assert all(acc >= 0.97 for acc, *_ in rows.values()), r.stdout
    bn, abn, ck = (rows[k][2] for k in rows)
    assert abn <= 0.6 * bn and ck < bn, r.stdout
    assert rows["InPlaceABN"][3] < rows["BatchNorm + LeakyReLU"][3]   # inference too
    assert "InPlaceABN / BatchNorm + LeakyReLU: training step" in r.stdout
    assert "held for backward when the forward ends" in r.stdout
    assert png.stat().st_size > 10_000


def test_relu_models_keep_the_honest_in_place_lesson():
    """--model relu-cnn: an in-place ReLU does not lower the training-step peak (its input
    is saved by nobody), only the inference peak -- and with temporary elision on (Note
    [Donated activations]) the out-of-place model reaches that inference peak by itself."""
    pytest.importorskip("sklearn")
    r = _cli("train", "--model", "relu-cnn", "--epochs", "1", "--quiet", env={"OAR_ELISION": "0"})
    assert r.returncode == 0, r.stderr
    rows = _rows(r.stdout)
    assert list(rows) == ["out-of-place ReLU", "in-place ReLU"], r.stdout
    assert rows["in-place ReLU"][2] == rows["out-of-place ReLU"][2]
    assert rows["in-place ReLU"][3] < rows["out-of-place ReLU"][3]
    assert "in-place ReLU / out-of-place ReLU: training step 1.000" in r.stdout
    on = _cli("train", "--model", "relu-cnn", "--epochs", "1", "--quiet")
    assert on.returncode == 0, on.stderr
    on_rows = _rows(on.stdout)
    assert on_rows["out-of-place ReLU"][3] == rows["in-place ReLU"][3]    # elided
    assert on_rows["out-of-place ReLU"][2] == rows["out-of-place ReLU"][2]
    assert "temporary elision (on) / off, out-of-place ReLU: training step 1.000" in on.stdout
    assert "saved by nobody" in r.stdout
    r = _cli("train", "--model", "relu-cnn", "--epochs", "1", "--quiet", "--no-inplace")
    assert r.returncode == 0 and list(_rows(r.stdout)) == ["out-of-place ReLU"], r.stdout


def test_mlp_trains_quickly():
    pytest.importorskip("sklearn")
    r = _cli("train", "--model", "mlp", "--epochs", "8", "--quiet")
    assert r.returncode == 0, r.stderr
    rows = _rows(r.stdout)
    assert set(rows) == {"out-of-place ReLU", "in-place ReLU"}, r.stdout
    assert all(acc >= 0.95 for acc, *_ in rows.values())


def test_jit_main_job_reports_replay_and_trains_the_same():
    pytest.importorskip("sklearn")
    eager = _cli("train", "--model", "mlp", "--epochs", "3", "--quiet")
    jit = _cli("train", "--model", "mlp", "--epochs", "3", "--quiet", "--jit")
    assert jit.returncode == 0, jit.stderr
    m = re.search(r"oar\.jit \(out-of-place ReLU\): one epoch [\d.]+ s eager, [\d.]+ s replayed "
                  r"\([\d.]+x; (\d+) replays", jit.stdout)
    assert m and int(m.group(1)) > 0, jit.stdout
    # replay is bit-identical to eager: the same accuracies and memory figures
    strip_time = lambda rows: {k: (v[0], *v[2:]) for k, v in rows.items()}  # noqa: E731
    assert strip_time(_rows(jit.stdout)) == strip_time(_rows(eager.stdout))


def test_tour_runs():
    r = _cli("tour")
    assert r.returncode == 0 and "Leaf Var" in r.stdout and "It was modified by `add_`" in r.stdout


@pytest.mark.parametrize("name", ["adam", "adam_wd", "adamw"])
def test_adam_with_a_parameter_missing_its_gradient_matches_torch(name):
    mo, mt = CASES[name]
    results = []
    for lib, make in (("oar", mo), ("torch", mt)):
        w = nn.Parameter(W0.copy()) if lib == "oar" else torch.tensor(W0.copy(), requires_grad=True)
        b = nn.Parameter(B0.copy()) if lib == "oar" else torch.tensor(B0.copy(), requires_grad=True)
        opt = make([w, b])
        for i, x in enumerate(XS):
            xt = oar.to_tensor(x) if lib == "oar" else torch.tensor(x)
            out = (xt @ w).tanh() if i == 1 else (xt @ w + b).tanh()   # step 2: b gets no gradient
            (out ** 2).sum().backward()
            opt.step()
            if lib == "oar":
                opt.clear_grad(set_to_zero=False)
            else:
                opt.zero_grad(set_to_none=True)
        results.append([np.asarray(t.detach().numpy() if lib == "torch" else t.numpy()) for t in (w, b)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
