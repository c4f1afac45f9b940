"""paddle.Model's printed output, paddle.summary and paddle.callbacks, compared with paddle 3.3.1
character for character (tests/test_paddle_hapi.py checks values, types and files; this file
checks the text).

Progress output: both frameworks run the same network (same weights), the same deterministic
data (shuffle=False) and a frozen clock, so every field, the "0s/step" timing, the ETA, the
backspaces and the padding of verbose=1 redraws included, must be identical; only verbose=3's
reader/batch costs, which need a ticking clock, are masked. Summary tables: each framework runs
the cases in a fresh interpreter (this file run as a script), so the "<Layer>-<n>" row numbers,
which count layers per process, are compared too.
"""
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
import oar  # noqa: E402
import tests.test_paddle_hapi as _hapi1  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# ----------------------------------------------------------------------------- data, nets
_dataset = _hapi1._dataset   # one toy dataset for both hapi files (labels=False: inputs only)


def _iterable(fw, n, batch_size=3):
    class IDS(fw.io.IterableDataset):
        def __iter__(self):
            r = np.random.RandomState(5)
            for i in range(n):
                yield r.rand(4).astype("float32"), np.array([i % 3], "int64")
    return fw.io.DataLoader(IDS(), batch_size=batch_size)


def _net(fw, seed=3):
    net = fw.nn.Sequential(fw.nn.Linear(4, 5), fw.nn.ReLU(), fw.nn.Linear(5, 3))
    w = np.random.RandomState(seed)
    net.set_state_dict({k: (w.randn(*v.shape) * 0.5).astype("float32")
                        for k, v in net.state_dict().items()})
    return net


def _model(fw, metrics=True, loss=True, sched=None):
    net = _net(fw)
    m = fw.Model(net)
    lr = sched(fw) if sched else 0.1
    m.prepare(fw.optimizer.SGD(learning_rate=lr, parameters=m.parameters()),
              fw.nn.CrossEntropyLoss() if loss else None,
              fw.metric.Accuracy(topk=(1, 2)) if metrics else None)
    return m


@contextlib.contextmanager
def _frozen(monkeypatch, tick=0.0):
    """stdout captured; time.time() frozen (tick=0) or advancing `tick` seconds a call."""
    buf = io.StringIO()
    t = [1000.0]

    def clock():
        t[0] += tick
        return t[0]
    monkeypatch.setattr(time, "time", clock)
    monkeypatch.setenv("COLUMNS", "80")
    with contextlib.redirect_stdout(buf):
        yield buf


# ----------------------------------------------------------------------------- progress
RUNS = {
    "fit_v2_log3": lambda fw, m: m.fit(_dataset(fw, 40), _dataset(fw, 23, 2), batch_size=2,
                                       epochs=2, verbose=2, log_freq=3, shuffle=False),
    "fit_v1_log3": lambda fw, m: m.fit(_dataset(fw, 40), _dataset(fw, 23, 2), batch_size=2,
                                       epochs=2, verbose=1, log_freq=3, shuffle=False),
    "fit_v1_log1": lambda fw, m: m.fit(_dataset(fw, 10), _dataset(fw, 5, 2), batch_size=4,
                                       verbose=1, log_freq=1, shuffle=False),
    "fit_v0": lambda fw, m: m.fit(_dataset(fw, 10), _dataset(fw, 5, 2), batch_size=4,
                                  verbose=0, shuffle=False),
    "fit_defaults": lambda fw, m: m.fit(_dataset(fw, 30), _dataset(fw, 30), shuffle=False),
    "fit_eval_freq": lambda fw, m: m.fit(_dataset(fw, 8), _dataset(fw, 4, 2), batch_size=4,
                                         epochs=3, eval_freq=2, verbose=2, shuffle=False),
    "fit_log_freq_past_end": lambda fw, m: m.fit(_dataset(fw, 12), _dataset(fw, 5),
                                                 batch_size=4, verbose=2, log_freq=100,
                                                 shuffle=False),
    "fit_num_iters_v2": lambda fw, m: m.fit(_dataset(fw, 12), batch_size=4, epochs=3,
                                            verbose=2, log_freq=1, num_iters=5,
                                            shuffle=False),
    "fit_num_iters_v1": lambda fw, m: m.fit(_dataset(fw, 12), batch_size=4, epochs=3,
                                            verbose=1, log_freq=1, num_iters=5,
                                            shuffle=False),
    "fit_unknown_length_v1": lambda fw, m: m.fit(_iterable(fw, 14), _iterable(fw, 7), epochs=2,
                                                 verbose=1, log_freq=2),
    "fit_unknown_length_v2": lambda fw, m: m.fit(_iterable(fw, 14), _iterable(fw, 7), epochs=2,
                                                 verbose=2, log_freq=2),
    "evaluate_v1": lambda fw, m: m.evaluate(_dataset(fw, 23, 3), batch_size=2, verbose=1,
                                            log_freq=4),
    "evaluate_v2": lambda fw, m: m.evaluate(_dataset(fw, 23, 3), batch_size=2, verbose=2,
                                            log_freq=4),
    "evaluate_defaults": lambda fw, m: m.evaluate(_dataset(fw, 30)),
    "evaluate_num_iters": lambda fw, m: m.evaluate(_dataset(fw, 12), batch_size=4, verbose=2,
                                                   log_freq=1, num_iters=2),
    "predict_v1": lambda fw, m: m.predict(_dataset(fw, 23, 4), batch_size=2, verbose=1),
    "predict_v2": lambda fw, m: m.predict(_dataset(fw, 23, 4), batch_size=2, verbose=2),
    "predict_v2_even": lambda fw, m: m.predict(_dataset(fw, 20, 4), batch_size=2, verbose=2),
    "predict_defaults": lambda fw, m: m.predict(_dataset(fw, 23, labels=False)),
    "predict_unknown_length": lambda fw, m: m.predict(_iterable(fw, 14), verbose=1),
    "predict_own_logger": lambda fw, m: m.predict(
        _dataset(fw, 9, labels=False), batch_size=2, verbose=2,
        callbacks=[fw.callbacks.ProgBarLogger(log_freq=2, verbose=2)]),
    "fit_own_logger": lambda fw, m: m.fit(
        _dataset(fw, 10), _dataset(fw, 5), batch_size=2, verbose=2, shuffle=False,
        callbacks=[fw.callbacks.ProgBarLogger(log_freq=2, verbose=1)]),
    "fit_batch_size_pair": lambda fw, m: m.fit(_dataset(fw, 10), _dataset(fw, 7),
                                               batch_size=[3, 2], verbose=2, log_freq=2,
                                               shuffle=False, drop_last=True),
    "fit_accumulate": lambda fw, m: m.fit(_dataset(fw, 10), batch_size=2, verbose=2,
                                          log_freq=2, shuffle=False,
                                          accumulate_grad_batches=2),
    "fit_dataloaders_v1": lambda fw, m: m.fit(
        fw.io.DataLoader(_dataset(fw, 10), batch_size=3),
        fw.io.DataLoader(_dataset(fw, 5), batch_size=2), epochs=2, verbose=1, log_freq=2),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_progress_text_is_paddles(monkeypatch, name):
    texts = []
    for fw in (paddle, oar):
        m = _model(fw)
        with _frozen(monkeypatch) as buf:
            RUNS[name](fw, m)
        texts.append(buf.getvalue())
    assert texts[1] == texts[0]
    assert texts[0] or name == "fit_v0"


@pytest.mark.parametrize("metrics,loss", [(True, False), (False, True)])
def test_progress_text_without_metrics_or_loss(monkeypatch, metrics, loss):
    texts = []
    for fw in (paddle, oar):
        m = _model(fw, metrics=metrics, loss=loss)
        with _frozen(monkeypatch) as buf:
            if loss:
                m.fit(_dataset(fw, 9), _dataset(fw, 5), batch_size=2, verbose=1, log_freq=2,
                      shuffle=False)
            m.evaluate(_dataset(fw, 9), batch_size=2, verbose=2, log_freq=2)
        texts.append(buf.getvalue())
    assert texts[1] == texts[0]


def test_progress_text_verbose_3(monkeypatch):
    """verbose=3 adds reader / batch costs and samples per second: the timing values are masked
    (a ticking clock, which each framework reads a different number of times)."""
    texts = []
    for fw in (paddle, oar):
        m = _model(fw)
        with _frozen(monkeypatch, tick=0.001) as buf:
            m.fit(_dataset(fw, 10), _dataset(fw, 5), batch_size=4, verbose=3, log_freq=1,
                  shuffle=False)
        text = re.sub(r"(avg_reader_cost|avg_batch_cost|ips): [\d.]+", r"\1: X",
                      buf.getvalue())
        texts.append(re.sub(r"\d+(?:ms|us|s)/step", "T/step", text))
    assert texts[1] == texts[0]
    assert "avg_reader_cost: X sec - avg_batch_cost: X sec - ips: X samples/sec" in texts[0]


@pytest.mark.parametrize("tick", [0.0004, 0.02, 7.0, 450.0])
def test_progress_bar_timing_and_eta_fields(monkeypatch, tick):
    """The bar alone reads the clock the same number of times in both, so the timing fields
    (us/ms/s per step, ETA in s, m:ss and h:mm:ss) are compared unmasked."""
    from oar.hapi.progressbar import ProgressBar as OBar
    from paddle.hapi.progressbar import ProgressBar as PBar
    texts = []
    for Bar in (PBar, OBar):
        with _frozen(monkeypatch, tick=tick) as buf:
            bar = Bar(num=40, verbose=1)
            for step in (1, 2, 5, 39, 40):
                bar.update(step, [("loss", [0.25])])
        texts.append(buf.getvalue())
    assert texts[1] == texts[0]
    assert "ETA" in texts[0]


def test_evaluate_and_predict_results_match(monkeypatch):
    out = []
    for fw in (paddle, oar):
        m = _model(fw)
        with _frozen(monkeypatch):
            ev = m.evaluate(_dataset(fw, 23, 3), batch_size=2, verbose=0)
            pr = m.predict(_dataset(fw, 7, 4), batch_size=2, verbose=0)
        out.append((ev, pr))
    (pev, ppr), (oev, opr) = out
    assert list(oev) == list(pev)
    np.testing.assert_allclose(oev["loss"], pev["loss"], rtol=1e-6)
    assert [oev[k] for k in list(oev)[1:]] == [pev[k] for k in list(pev)[1:]]
    for a, b in zip(opr[0], ppr[0]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


# ----------------------------------------------------------------------------- summary
def _summary_cases(fw):
    """name -> a call printing a summary (and returning its dict), built from fw's layers."""
    from tests.test_paddle_hapi import _lenet
    nn = fw.nn

    class NormDrop(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2D(8)
            self.drop = nn.Dropout2D(0.3)
            self.pool = nn.AdaptiveAvgPool2D(1)
            self.fc = nn.Linear(8, 4)
            self.bn1 = nn.BatchNorm1D(4)
            self.d = nn.Dropout(0.5)
            self.ln = nn.LayerNorm(4)

        def forward(self, x):
            x = self.pool(self.drop(nn.functional.relu(self.bn(self.conv(x)))))
            return self.ln(self.d(self.bn1(self.fc(fw.flatten(x, 1)))))

    class TwoInputs(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 6)
            self.fc = nn.Linear(6, 3)
            self.fc2 = nn.Linear(5, 3)

        def forward(self, ids, x):
            return self.fc(self.emb(ids).mean(1)) + self.fc2(x)

    class TwoOutputs(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(4, 3), nn.Linear(4, 2)

        def forward(self, x):
            return self.a(x), self.b(x)

    class Recurrent(nn.Layer):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(4, 6)
            self.fc = nn.Linear(6, 2)

        def forward(self, x):
            return self.fc(self.lstm(x)[0])

    def frozen_first():
        net = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
        for p in net[0].parameters():
            p.stop_gradient = True
        return fw.summary(net, (2, 3))

    spec = fw.static.InputSpec
    return {
        "lenet": lambda: fw.summary(_lenet(fw), (1, 1, 28, 28)),
        "lenet_none_batch": lambda: fw.summary(_lenet(fw), (None, 1, 28, 28)),
        "vision_lenet": lambda: fw.summary(fw.vision.models.LeNet(), (1, 1, 28, 28)),
        "mlp": lambda: fw.summary(nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.2),
                                                nn.Linear(16, 16), nn.Tanh(),
                                                nn.Linear(16, 2)), (4, 6)),
        "wide_mlp": lambda: fw.summary(nn.Sequential(nn.Linear(1000, 2000),
                                                     nn.Linear(2000, 1000)), (1, 1000)),
        "batchnorm_dropout": lambda: fw.summary(NormDrop(), (2, 3, 8, 8)),
        "two_inputs_dtypes": lambda: fw.summary(TwoInputs(), [(2, 7), (2, 5)],
                                                dtypes=["int64", "float32"]),
        "two_inputs_specs": lambda: fw.summary(
            TwoInputs(), [spec([None, 7], "int64"), spec([None, 5], "float32")],
            dtypes=["int64", "float32"]),
        "two_outputs": lambda: fw.summary(TwoOutputs(), (3, 4)),
        "lstm_inside": lambda: fw.summary(Recurrent(), (2, 5, 4)),
        "gru_alone": lambda: fw.summary(nn.GRU(4, 6, num_layers=2, direction="bidirect"),
                                        (2, 5, 4)),
        "simple_rnn_alone": lambda: fw.summary(nn.SimpleRNN(4, 6), (2, 5, 4)),
        "frozen_layer": frozen_first,
        "model_summary_specs": lambda: fw.Model(
            _lenet(fw), inputs=[spec([None, 1, 28, 28], "float32", "x")]).summary(),
        "model_summary_size": lambda: fw.Model(nn.Sequential(nn.Linear(3, 4))).summary((2, 3)),
        "model_summary_dtypes": lambda: fw.Model(TwoInputs()).summary(
            [(2, 7), (2, 5)], dtype=["int64", "float32"]),
    }


def _run_summaries(fw):
    out = {}
    for name, call in _summary_cases(fw).items():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            result = call()
        out[name] = {"text": buf.getvalue(), "result": repr(result),
                     "types": [type(v).__name__ for v in result.values()]}
    return out


@pytest.fixture(scope="module")
def summaries():
    """Each framework's summaries, printed by a fresh interpreter running this file."""
    got = {}
    for which in ("paddle", "oar"):
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "summaries", which],
                              capture_output=True, text=True, timeout=600, cwd=ROOT,
                              env={**os.environ, "COLUMNS": "80",   # this tree's oar
                                   "PYTHONPATH": os.pathsep.join(
                                       [ROOT, os.environ.get("PYTHONPATH", "")])})
        assert proc.returncode == 0, proc.stderr[-3000:]
        got[which] = json.loads(proc.stdout.rsplit("\n@@JSON@@\n", 1)[1])
    return got


@pytest.mark.parametrize("name", sorted(_summary_cases(oar)))
def test_summary_text_and_result_are_paddles(summaries, name):
    expected, actual = summaries["paddle"][name], summaries["oar"][name]
    assert actual["text"] == expected["text"]
    assert actual["result"] == expected["result"]
    assert actual["types"] == expected["types"]


if __name__ == "__main__" and sys.argv[1:2] == ["summaries"]:
    framework = paddle if sys.argv[2] == "paddle" else oar
    framework.seed(0)
    print("\n@@JSON@@\n" + json.dumps(_run_summaries(framework)))


# ----------------------------------------------------------------------------- callbacks
def _callback_run(monkeypatch, tmp_path, fw, run):
    """run(fw, save_dir) under a frozen clock: (printed text with the directory as <d>,
    files written under it, the returned value, the warnings' messages)."""
    d = tmp_path / fw.__name__
    d.mkdir()
    import warnings
    with _frozen(monkeypatch) as buf, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run(fw, str(d))
    files = sorted(os.path.relpath(os.path.join(a, x), d) for a, _, fs in os.walk(d)
                   for x in fs)
    messages = [str(w.message).replace(fw.__name__ + ".", "<fw>.") for w in caught
                if "clone()" not in str(w.message)]
    return buf.getvalue().replace(str(d), "<d>"), files, result, messages


def _early_stopping(fw, d, **kw):
    m = _model(fw)
    cb = fw.callbacks.EarlyStopping(**kw)
    m.fit(_dataset(fw, 8), _dataset(fw, 8, 7), batch_size=4, epochs=6, verbose=0, save_dir=d,
          callbacks=[cb], shuffle=False)
    return float(cb.best_value), cb.wait_epoch, cb.stopped_epoch, m.stop_training


def _checkpoints(fw, d, verbose=2, **fit):
    m = _model(fw)
    m.fit(_dataset(fw, 8), batch_size=4, verbose=verbose, shuffle=False, log_freq=100, **fit)


def _scheduled(fw, d, **kw):
    m = _model(fw, sched=lambda fw: fw.optimizer.lr.StepDecay(0.5, step_size=2, gamma=0.5))
    m.fit(_dataset(fw, 12), batch_size=4, epochs=2, verbose=0, shuffle=False,
          callbacks=[fw.callbacks.LRScheduler(**kw)] if kw else None)
    return m._optimizer.get_lr(), [p.numpy().tolist() for p in m.parameters()]


def _plateau(fw, d, sched=None, **kw):
    m = _model(fw, sched=sched)
    cb = fw.callbacks.ReduceLROnPlateau(**kw)
    m.fit(_dataset(fw, 8), _dataset(fw, 8, 7), batch_size=4, epochs=6, verbose=0,
          callbacks=[cb], shuffle=False)
    return m._optimizer.get_lr(), cb.wait, float(cb.best), cb.epoch


CALLBACK_RUNS = {
    "early_stopping_loss": lambda fw, d: _early_stopping(fw, d),
    "early_stopping_acc_max": lambda fw, d: _early_stopping(fw, d, monitor="acc_top1",
                                                            mode="max", patience=1),
    "early_stopping_auto_baseline": lambda fw, d: _early_stopping(
        fw, d, monitor="acc_top2", patience=2, baseline=0.9, min_delta=0.01),
    "early_stopping_unknown_monitor": lambda fw, d: _early_stopping(fw, d, monitor="nope"),
    "early_stopping_unknown_mode": lambda fw, d: _early_stopping(
        fw, d, mode="zzz", patience=1, save_best_model=False),
    "checkpoint_save_freq": lambda fw, d: _checkpoints(fw, d, epochs=5, save_dir=d,
                                                       save_freq=2),
    "checkpoint_callback": lambda fw, d: _checkpoints(
        fw, d, verbose=0, epochs=2,
        callbacks=[fw.callbacks.ModelCheckpoint(save_freq=1, save_dir=d + "/sub")]),
    "lr_scheduler_default": lambda fw, d: _scheduled(fw, d),
    "lr_scheduler_by_step": lambda fw, d: _scheduled(fw, d, by_step=True),
    "lr_scheduler_by_epoch": lambda fw, d: _scheduled(fw, d, by_step=False, by_epoch=True),
    "plateau_quiet": lambda fw, d: _plateau(fw, d, patience=1, factor=0.5, verbose=1),
    "plateau_reduces": lambda fw, d: _plateau(fw, d, monitor="acc_top1", patience=0,
                                              factor=0.2, cooldown=1, min_lr=0.01),
    "plateau_min_mode": lambda fw, d: _plateau(fw, d, mode="min", patience=0, factor=0.5,
                                               min_delta=0.5),
    "plateau_unknown_monitor": lambda fw, d: _plateau(fw, d, monitor="x"),
    "plateau_scheduler": lambda fw, d: _plateau(
        fw, d, sched=lambda fw: fw.optimizer.lr.StepDecay(0.5, step_size=2, gamma=0.5)),
}


@pytest.mark.parametrize("name", sorted(CALLBACK_RUNS))
def test_callbacks_behave_as_paddles(monkeypatch, tmp_path, name):
    """Printed text, files written under save_dir (names as Paddle's), the callback's state
    and the warnings agree with paddle's."""
    (pt, pf, pr, pw), (ot, of, orr, ow) = [
        _callback_run(monkeypatch, tmp_path, fw, CALLBACK_RUNS[name]) for fw in (paddle, oar)]
    assert ot == pt
    assert of == pf
    assert ow == pw
    np.testing.assert_allclose(np.hstack([np.ravel(x) for x in _flat(orr)]),
                               np.hstack([np.ravel(x) for x in _flat(pr)]), rtol=1e-6)


def _flat(value):
    if value is None:
        return [np.zeros(0)]
    if isinstance(value, (list, tuple)):
        return [y for x in value for y in _flat(x)]
    return [np.asarray(value, dtype=float)]


def test_checkpoint_files_and_early_stopping_text_are_paddles(monkeypatch, tmp_path):
    (pt, pf, _, _), (ot, of, _, _) = [
        _callback_run(monkeypatch, tmp_path, fw, CALLBACK_RUNS["early_stopping_loss"])
        for fw in (paddle, oar)]
    assert of == pf and "best_model.pdparams" in of and "final.pdparams" in of
    assert "Early stopping." in ot and "Best checkpoint has been saved at <d>/best_model" in ot
    (tmp_path / "b").mkdir()
    (pt, pf, _, _), (ot, of, _, _) = [
        _callback_run(monkeypatch, tmp_path / "b", fw, CALLBACK_RUNS["checkpoint_save_freq"])
        for fw in (paddle, oar)]
    assert of == pf == ["0.pdparams", "2.pdparams", "4.pdparams", "final.pdparams"]
    assert ot == pt and "save checkpoint at <d>/final" in ot


def test_callback_arguments_refused_as_paddle():
    for fw in (paddle, oar):
        with pytest.raises(ValueError, match="mutually exclusive"):
            fw.callbacks.LRScheduler(by_step=True, by_epoch=True)
        with pytest.raises(ValueError, match="factor >= 1.0"):
            fw.callbacks.ReduceLROnPlateau(factor=1.0)
    assert sorted(oar.callbacks.__all__) == sorted(paddle.callbacks.__all__)


@pytest.mark.skipif(__import__("importlib").util.find_spec("visualdl") is not None,
                    reason="visualdl is installed")
def test_visualdl_without_the_package_says_how_to_install(monkeypatch, tmp_path):
    for fw in (paddle, oar):
        m = _model(fw)
        cb = fw.callbacks.VisualDL(log_dir=str(tmp_path / fw.__name__))
        with _frozen(monkeypatch), pytest.raises(ImportError, match="pip install visualdl"):
            m.fit(_dataset(fw, 8), batch_size=4, verbose=0, callbacks=[cb])


@pytest.mark.skipif(__import__("importlib").util.find_spec("wandb") is not None,
                    reason="wandb is installed")
def test_wandb_without_the_package_says_how_to_install():
    for fw in (paddle, oar):
        with pytest.raises(ImportError, match="pip install wandb"):
            fw.callbacks.WandbCallback(project="x")
