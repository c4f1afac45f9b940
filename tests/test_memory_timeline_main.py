"""The memory timeline as the main job shows it (python -m oar train --timeline/--plot): every
optimizer call is an entry (a warm Adam step allocates nothing and still has one), the
terminal and the plot print the same held-for-backward breakdown with the same labels in
every variant, and the peak's label is drawn above the peak and over the bands. Bytes are
oar's own accounting (exact); nothing here measures time."""
import argparse
import types

import numpy as np
import pytest

import oar
from oar import nn
from oar import train as T
from oar.nn import functional as F

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")


def _paddle_model():
    oar.seed(0)
    return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))


class _SGDBySuper(oar.optimizer.SGD):
    """A user's optimizer whose step calls the library's: still one entry per call."""

    def step(self):
        return super().step()


PADDLE = {"Adam": oar.optimizer.Adam, "SGD": oar.optimizer.SGD, "_SGDBySuper": _SGDBySuper}


@pytest.mark.parametrize("name", sorted(PADDLE))
def test_every_paddle_optimizer_call_is_one_entry(name):
    model = _paddle_model()
    opt = PADDLE[name](learning_rate=1e-3, parameters=model.parameters())
    x, y = oar.randn([4, 6]), oar.to_tensor([0, 1, 2, 0])
    with oar.device.memory_timeline() as tl:
        for _ in range(3):
            F.cross_entropy(model(x), y).backward()
            opt.step()
            opt.clear_grad(set_to_zero=False)
    steps = [e for e in tl if e.phase == "optimizer"]
    assert [e.name for e in steps] == [f"{name}.step", f"{name}.clear_grad"] * 3
    # a warm step updates its parameters (and Adam its state) in place: its entry rises
    # above nothing (exact bytes: its peak is where the entry before it ended)
    for e in steps[2::2]:
        assert e.peak == tl[e.index - 1].allocated >= e.allocated
    if name == "Adam":      # the first step creates exp_avg and exp_avg_sq
        first = steps[0]
        state = sum(2 * 4 * int(np.prod(p.shape)) for p in model.parameters())
        assert first.allocated - tl[first.index - 1].allocated >= state
    assert tl[-1].allocated == oar.device.memory_allocated()


@pytest.mark.parametrize("name", ["Adam", "SGD", "Rprop"])
def test_every_torch_optimizer_call_is_one_entry(name):
    torch = pytest.importorskip("oar.torch")
    torch.manual_seed(0)
    model = torch.nn.Linear(6, 3)
    opt = getattr(torch.optim, name)(model.parameters(), lr=1e-3)
    x = torch.randn(4, 6)
    with oar.device.memory_timeline() as tl:
        for _ in range(2):
            model(x).sum().backward()
            opt.step()
            opt.zero_grad()
    assert [e.name for e in tl if e.phase == "optimizer"] == \
        [f"{name}.step", f"{name}.zero_grad"] * 2


def _results(batch=8):
    """The main job's per-variant memory figures (cnn, the same weights in every variant),
    without the training: step_memory on a fixed batch."""
    rng = np.random.default_rng(0)
    xb = rng.random((batch, 64), dtype=np.float32) * 16
    yb = rng.integers(0, 10, batch)
    results, state = [], None
    for variant, label in T.VARIANTS["cnn"]:
        oar.seed(0)
        m = T.make_model("cnn", variant)
        if state is None:
            state = m.state_dict()
        m.set_state_dict(state)
        tp, ip, ttl, itl = T.step_memory(m, "cnn", xb, yb, timeline=True)
        results.append({"label": label, "train_peak": tp, "infer_peak": ip, "train_tl": ttl,
                        "infer_tl": itl, "saved": T._saved_at_boundary(ttl)})
    return results


@pytest.fixture(scope="module")
def results():
    return _results()


def test_the_measured_step_records_its_optimizer_step(results):
    # step_memory records the second (warm) step: Adam's state exists, the step is in place
    for r in results:
        steps = [e for e in r["train_tl"] if e.phase == "optimizer"]
        assert [e.name for e in steps] == ["Adam.step"], r["label"]
        assert steps[0].index > r["train_tl"].boundary()


def test_held_breakdown_names_every_part_with_one_label_per_kind(results):
    batch = 8
    for r in results:
        tl = r["train_tl"]
        parts = dict(T._held_by_layer(tl))
        # every byte held when the forward ends is in a named part (no 'other')
        assert sum(parts.values()) == r["saved"] == tl[tl.boundary() - 1].saved_created
        assert "other" not in parts
        # the loss: cross_entropy keeps its log-softmax (batch x 10 float32) in every variant
        assert parts["loss"] == batch * 10 * 4, (r["label"], parts)
        assert not [k for k in parts if k.endswith("Backward0")]


def _figure_texts(monkeypatch, results, tmp_path):
    """Draw the main job's plot; return its figure (kept from savefig)."""
    pytest.importorskip("matplotlib")
    import matplotlib.figure
    kept = []
    real = matplotlib.figure.Figure.savefig

    def savefig(fig, *a, **k):
        kept.append(fig)
        return real(fig, *a, **k)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    T.plot(str(tmp_path / "mem.png"), results, "test")
    return kept[0]


def test_terminal_and_plot_print_the_same_breakdown(results, monkeypatch, tmp_path, capsys):
    args = argparse.Namespace(batch_size=8, epochs=1, model="cnn")
    runs = [types.SimpleNamespace(label=r["label"], acc=0.5, times=[1.0]) for r in results]
    T.report(args, runs, results)
    out = capsys.readouterr().out
    fig = _figure_texts(monkeypatch, results, tmp_path)
    boxes = [t.get_text() for ax in fig.axes for t in ax.texts
             if t.get_text().startswith("held for backward")]
    assert len(boxes) == len(results)
    for r, box in zip(results, boxes):
        held = T._held_text(r["train_tl"])
        total = T._kib(r["saved"])
        line = [ln for ln in out.splitlines() if ln.startswith(f"  {r['label']} ")
                and ln.rstrip().endswith(held)]
        assert len(line) == 1 and f"{total} = {held}" in line[0], out
        first, rest = box.split("\n", 1)
        assert first == f"held for backward when the forward ends: {total}"
        assert rest.replace(" +\n", " + ") == held


def test_peak_label_sits_above_the_peak_and_over_the_bands(results, monkeypatch, tmp_path):
    fig = _figure_texts(monkeypatch, results, tmp_path)
    train_axes = [ax for ax in fig.axes if ax.get_title(loc="left").endswith("training step")]
    assert len(train_axes) == len(results)
    for ax in train_axes:
        labels = [t for t in ax.texts if t.get_text().startswith("peak ")]
        assert len(labels) == 1
        lab = labels[0]
        # above the marker: anchored by its bottom edge, offset upwards
        assert lab.get_va() == "bottom" and lab.xyann[1] > 0
        # over every band (recompute, optimizer) and every filled area, on an opaque box
        under = [p.get_zorder() for p in ax.patches] + [c.get_zorder() for c in ax.collections]
        assert lab.get_zorder() > max(under)
        box = lab.get_bbox_patch()
        assert box is not None and box.get_alpha() in (None, 1.0)
    assert any(e.phase == "recompute" for e in results[2]["train_tl"])   # it has bands
