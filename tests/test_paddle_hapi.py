"""paddle.Model, paddle.summary, the progress bar and paddle.callbacks on oar's Paddle door,
compared with paddle 3.3.1 in the same test (skipped when paddle is not installed): twin
networks start from the same weights, so losses, metrics, predictions, updated weights and
the printed progress lines must agree (timings aside: the clock is faked, and the
"Nms/step" figures are masked since the frameworks call the clock a different number of times).
"""
import contextlib
import io
import os
import re
import time

import numpy as np
import pytest

import oar
from tests.programs.harness import compare_outputs

paddle = pytest.importorskip("paddle")


def _dataset(fw, n, seed=1, c=3, labels=True):
    class DS(fw.io.Dataset):
        def __init__(self):
            r = np.random.RandomState(seed)
            self.x = r.rand(n, 4).astype("float32")
            self.y = (np.arange(n) % c).reshape(-1, 1).astype("int64")

        def __getitem__(self, i):
            return (self.x[i], self.y[i]) if labels else (self.x[i],)

        def __len__(self):
            return n
    return DS()


def _net(fw, seed=3):
    net = fw.nn.Sequential(fw.nn.Linear(4, 5), fw.nn.ReLU(), fw.nn.Linear(5, 3))
    w = np.random.RandomState(seed)
    net.set_state_dict({k: (w.randn(*v.shape) * 0.5).astype("float32")
                        for k, v in net.state_dict().items()})
    return net


def _weights(net):
    return [p.numpy() for p in net.parameters()]


@contextlib.contextmanager
def _captured(monkeypatch):
    """stdout captured, and a clock that advances 1 ms per call."""
    buf = io.StringIO()
    t = [1000.0]

    def clock():
        t[0] += 0.001
        return t[0]
    monkeypatch.setattr(time, "time", clock)
    monkeypatch.setenv("COLUMNS", "80")
    with contextlib.redirect_stdout(buf):
        yield buf


def _untimed(text):
    return re.sub(r"\d+(?:ms|us|s)/step", "T/step", text)


def _same_text(expected, actual):
    problems = compare_outputs(_untimed(expected), _untimed(actual), rtol=1e-4, atol=1e-5)
    assert not problems, "\n".join(problems)
    # the layout too: the same lines with the same words, numbers aside
    strip = lambda s: re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "N", _untimed(s))  # noqa: E731
    assert strip(actual) == strip(expected)


# ----------------------------------------------------------------------------- progress bar
@pytest.mark.parametrize("verbose", [1, 2, 3])
@pytest.mark.parametrize("num", [None, 5, 12])
def test_progress_bar_prints_like_paddle(monkeypatch, verbose, num):
    from paddle.hapi.progressbar import ProgressBar as PBar
    from oar.hapi.progressbar import ProgressBar as OBar
    values = [[("loss", [0.5]), ("acc", np.float64(0.25))],
              [("loss", [1e-5]), ("acc", np.float32(0.0)), ("n", 3)],
              [("loss", [np.array(2.5, "float32")]), ("lr", "x")]]
    outs = []
    for Bar in (PBar, OBar):
        with _captured(monkeypatch) as buf:
            bar = Bar(num=num, verbose=verbose)
            for step in range(1, (num or 4) + 1):
                bar.update(step, values[step % 3])
        outs.append(buf.getvalue())
    assert outs[1] == outs[0]
    with pytest.raises(TypeError):
        OBar(num=0)


# ----------------------------------------------------------------------------- summary
def _lenet(fw):
    nn = fw.nn

    class LeNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(),
                                          nn.MaxPool2D(2, 2), nn.Conv2D(6, 16, 5), nn.ReLU(),
                                          nn.MaxPool2D(2, 2))
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

        def forward(self, x):
            return self.fc(fw.flatten(self.features(x), 1))
    return LeNet()


def _rows_unnumbered(text):
    """The table with each row's "-<n>" layer number removed (n counts layers of that class in
    the process, which differs between the two frameworks here) and spaces collapsed."""
    return [re.sub(r"^(\w+)-\d+", r"\1", " ".join(line.split())) for line in text.splitlines()]


@pytest.mark.parametrize("make,size", [
    (_lenet, (1, 1, 28, 28)),
    (_lenet, (None, 1, 28, 28)),
    (lambda fw: fw.nn.Sequential(fw.nn.Linear(6, 4), fw.nn.ReLU(), fw.nn.Dropout(0.2),
                                 fw.nn.Linear(4, 2)), (2, 6)),
    (lambda fw: fw.nn.Linear(3, 2), [(5, 3)]),
    (lambda fw: fw.nn.Sequential(fw.nn.Flatten(), fw.nn.Linear(12, 3, bias_attr=False)),
     (-1, 3, 4)),
])
def test_summary_table_and_counts_match_paddle(monkeypatch, make, size):
    outs, infos = [], []
    for fw in (paddle, oar):
        fw.seed(0)
        net = make(fw)
        with _captured(monkeypatch) as buf:
            infos.append(fw.summary(net, size))
        outs.append(buf.getvalue())
        assert net.training
    assert _rows_unnumbered(outs[1]) == _rows_unnumbered(outs[0])
    assert infos[1] == infos[0]
    assert [type(v) for v in infos[1].values()] == [type(v) for v in infos[0].values()]
    widths = [len(line) for line in outs[1].splitlines()]
    assert widths[0] == len(outs[0].splitlines()[0])


def test_summary_row_numbers_follow_layer_names(monkeypatch):
    for fw in (paddle, oar):
        first = fw.nn.Linear(2, 2)
        n = int(first.full_name().rsplit("_", 1)[1])
        net = fw.nn.Sequential(fw.nn.Linear(2, 3), fw.nn.Linear(3, 1))
        with _captured(monkeypatch) as buf:
            fw.summary(net, (1, 2))
        keys = re.findall(r"Linear-\d+", buf.getvalue())
        assert keys == [f"Linear-{n + 2}", f"Linear-{n + 3}"], fw.__name__


def test_summary_inputs_dtypes_and_errors(monkeypatch):
    class Two(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = oar.nn.Linear(3, 2), oar.nn.Linear(4, 2)

        def forward(self, x, y):
            return self.a(x) + self.b(y)

    class PTwo(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = paddle.nn.Linear(3, 2), paddle.nn.Linear(4, 2)

        def forward(self, x, y):
            return self.a(x) + self.b(y)

    outs = []
    for fw, cls in ((paddle, PTwo), (oar, Two)):
        net = cls()
        with _captured(monkeypatch) as buf:
            r1 = fw.summary(net, [(1, 3), (1, 4)], dtypes=["float32", "float32"])
            spec = fw.static.InputSpec([None, 3])
            r2 = fw.summary(fw.nn.Linear(3, 2), spec)
            r3 = fw.summary(fw.nn.Linear(3, 2), input=fw.ones([2, 3]))
        outs.append((_rows_unnumbered(buf.getvalue()), r1, r2, r3))
    assert outs[1] == outs[0]
    for args in [dict(), dict(input_size=(None, None, 3))]:
        with pytest.raises(Exception) as pe:
            paddle.summary(paddle.nn.Linear(3, 2), **args)
        with pytest.raises(type(pe.value)):
            oar.summary(oar.nn.Linear(3, 2), **args)
    net = oar.nn.Linear(3, 2)
    with _captured(monkeypatch):
        oar.summary(net, (1, 3))
    assert not net._forward_hooks        # the summary's hooks are gone


# ----------------------------------------------------------------------------- Model
def _prepared(fw, metrics=True, opt="SGD", seed=3):
    net = _net(fw, seed)
    m = fw.Model(net)
    optimizer = getattr(fw.optimizer, opt)(learning_rate=0.1, parameters=m.parameters())
    m.prepare(optimizer, fw.nn.CrossEntropyLoss(),
              fw.metric.Accuracy(topk=(1, 2)) if metrics else None)
    return m, net


def test_fit_evaluate_predict_match_paddle(monkeypatch):
    results = []
    for fw in (paddle, oar):
        m, net = _prepared(fw)
        with _captured(monkeypatch) as buf:
            m.fit(_dataset(fw, 10), _dataset(fw, 5, 2), batch_size=4, epochs=2, verbose=2,
                  log_freq=1)
            ev = m.evaluate(_dataset(fw, 7, 3), batch_size=3, verbose=1)
            pr = m.predict(_dataset(fw, 5, 4), batch_size=2, verbose=2)
            st = m.predict(_dataset(fw, 5, 4), batch_size=2, stack_outputs=True, verbose=0)
        results.append((buf.getvalue(), ev, pr, st, _weights(net)))
    (pt, pev, ppr, pst, pw), (ot, oev, opr, ost, ow) = results
    _same_text(pt, ot)
    assert list(oev) == list(pev) == ["loss", "acc_top1", "acc_top2"]
    assert type(oev["loss"]) is list and type(oev["loss"][0]) is float
    assert type(oev["acc_top1"]) is type(pev["acc_top1"])
    np.testing.assert_allclose(oev["loss"], pev["loss"], rtol=1e-5)
    assert oev["acc_top1"] == pev["acc_top1"] and oev["acc_top2"] == pev["acc_top2"]
    assert type(opr) is list and len(opr) == len(ppr) == 1 and type(opr[0]) is type(ppr[0])
    for a, b in zip(opr[0], ppr[0]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert len(ost) == 1 and ost[0].shape == pst[0].shape == (5, 3)
    for a, b in zip(ow, pw):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_fit_progress_bar_and_quiet_modes(monkeypatch):
    texts = []
    for fw in (paddle, oar):
        m, _ = _prepared(fw, metrics=False)
        with _captured(monkeypatch) as buf:
            m.fit(_dataset(fw, 9), batch_size=4, epochs=1, verbose=1, log_freq=1)
            m.fit(_dataset(fw, 9), batch_size=4, epochs=1, verbose=0)
            print(m.evaluate(_dataset(fw, 9), batch_size=4, verbose=0))
        texts.append(buf.getvalue())
    _same_text(texts[0], texts[1])


def test_fit_shuffles_like_paddle_and_accumulates_gradients(monkeypatch):
    weights = []
    for fw in (paddle, oar):
        m, net = _prepared(fw, metrics=False, opt="Adam")
        with _captured(monkeypatch):
            m.fit(_dataset(fw, 13), batch_size=[3, 5], epochs=3, shuffle=True, verbose=0,
                  accumulate_grad_batches=2, drop_last=True)
        weights.append(_weights(net))
    for a, b in zip(*weights):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)   # Adam: eps placement


def test_fit_with_a_dataloader_and_num_iters(monkeypatch):
    texts = []
    for fw in (paddle, oar):
        m, net = _prepared(fw)
        loader = fw.io.DataLoader(_dataset(fw, 12), batch_size=4)
        with _captured(monkeypatch) as buf:
            m.fit(loader, epochs=3, verbose=2, log_freq=1, num_iters=5)
        texts.append((buf.getvalue(), _weights(net)))
    _same_text(texts[0][0], texts[1][0])
    for a, b in zip(texts[0][1], texts[1][1]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_batch_methods_match_paddle():
    x = np.random.RandomState(5).rand(3, 4).astype("float32")
    y = np.array([[0], [2], [1]], "int64")
    out = []
    for fw in (paddle, oar):
        m, net = _prepared(fw)
        tb = m.train_batch([x], [y])
        eb = m.eval_batch([x], [y])
        pb = m.predict_batch([x])
        pb2 = m.predict_batch(x)
        out.append((tb, eb, pb, pb2, _weights(net), [s.shape for s in m._inputs]))
    for (ptb, peb, ppb, ppb2, pw, pin), (otb, oeb, opb, opb2, ow, oin) in [out]:
        for p_res, o_res in ((ptb, otb), (peb, oeb)):
            assert type(o_res) is type(p_res) is tuple
            (pl, pm), (ol, om) = p_res, o_res
            assert [type(v) for v in ol] == [type(v) for v in pl]
            assert [v.shape for v in ol] == [v.shape for v in pl] == [()]
            np.testing.assert_allclose(ol, pl, rtol=1e-5)
            assert [[type(v) for v in row] for row in om] == [[type(v) for v in row] for row in pm]
            assert om == pm
        for p_res, o_res in ((ppb, opb), (ppb2, opb2)):
            assert type(o_res) is list and len(o_res) == len(p_res) == 1
            np.testing.assert_allclose(o_res[0], p_res[0], rtol=1e-5, atol=1e-6)
        for a, b in zip(pw, ow):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
        assert oin == pin == [(3, 4)]


def test_eval_without_metrics_or_loss():
    x = np.random.RandomState(6).rand(2, 4).astype("float32")
    y = np.array([[1], [0]], "int64")
    res = []
    for fw in (paddle, oar):
        m = fw.Model(_net(fw))
        m.prepare(loss=fw.nn.CrossEntropyLoss())
        a = m.eval_batch([x], [y])
        m2 = fw.Model(_net(fw))
        m2.prepare(metrics=fw.metric.Accuracy())
        b = m2.eval_batch([x], [y])
        c = m2.evaluate(_dataset(fw, 5), batch_size=2, verbose=0)
        res.append((a, b, c))
    (pa, pb, pc), (oa, ob, oc) = res
    assert type(oa) is list and len(oa) == len(pa) == 1
    np.testing.assert_allclose(oa[0], pa[0], rtol=1e-5)
    assert ob == pb and type(ob[0]) is type(pb[0])
    assert oc == pc


def test_model_errors_match_paddle():
    x = np.ones((2, 4), "float32")
    for fw in (paddle, oar):
        m = fw.Model(_net(fw))
        with pytest.raises(AssertionError):
            m.train_batch([x], [np.zeros((2, 1), "int64")])
        with pytest.raises(AssertionError):
            m.prepare(metrics=[object()])
        with pytest.raises(TypeError):
            m.prepare(loss=3)
        with pytest.raises(AssertionError):
            m.fit(None)
        with pytest.raises(ValueError):
            fw.Model(_net(fw), inputs=[fw.static.InputSpec([None, 4])])
        with pytest.raises(AssertionError):
            m.load("no/such/checkpoint")


def test_model_with_input_specs(monkeypatch):
    texts = []
    for fw in (paddle, oar):
        spec_in = fw.static.InputSpec([None, 4], "float32", "x")
        spec_lab = fw.static.InputSpec([None, 1], "int64", "label")
        net = _net(fw)
        m = fw.Model(net, inputs=spec_in, labels=spec_lab)
        m.prepare(fw.optimizer.SGD(learning_rate=0.1, parameters=m.parameters()),
                  fw.nn.CrossEntropyLoss(), fw.metric.Accuracy())
        with _captured(monkeypatch) as buf:
            m.fit(_dataset(fw, 8), batch_size=4, epochs=1, verbose=2, log_freq=1)
            print(m.summary())
        texts.append((buf.getvalue(), _weights(net), [s.shape for s in m._inputs]))
    assert texts[1][2] == texts[0][2] == [(-1, 4)]
    _same_text("\n".join(_rows_unnumbered(texts[0][0])), "\n".join(_rows_unnumbered(texts[1][0])))


def test_save_and_load_files_like_paddle(tmp_path, monkeypatch):
    listing = []
    for fw in (paddle, oar):
        d = tmp_path / fw.__name__
        for opt in ("SGD", "Adam"):
            m, net = _prepared(fw, opt=opt)
            with _captured(monkeypatch):
                m.fit(_dataset(fw, 8), batch_size=4, verbose=0)
            m.save(str(d / "ckpt" / opt))
            saved = _weights(net)
            m2, net2 = _prepared(fw, opt=opt, seed=9)
            m2.load(str(d / "ckpt" / opt))
            for a, b in zip(saved, _weights(net2)):
                np.testing.assert_array_equal(a, b)
            m2.load(str(d / "ckpt" / opt) + ".pdparams", reset_optimizer=True)
        listing.append(sorted(os.listdir(d / "ckpt")))
    assert listing[1] == listing[0] == ["Adam.pdopt", "Adam.pdparams", "SGD.pdparams"]
    bigger = oar.Model(oar.nn.Sequential(oar.nn.Linear(4, 6), oar.nn.ReLU(), oar.nn.Linear(6, 3)))
    with pytest.raises(ValueError):
        bigger.load(str(tmp_path / "oar" / "ckpt" / "SGD"))
    with pytest.warns(UserWarning):
        bigger.load(str(tmp_path / "oar" / "ckpt" / "SGD"), skip_mismatch=True)
    with pytest.raises(NotImplementedError, match="static graph"):
        bigger.save(str(tmp_path / "inference"), training=False)


def test_save_dir_checkpoints_and_callbacks(tmp_path, monkeypatch):
    results = []
    for fw in (paddle, oar):
        calls = []

        class Recorder(fw.callbacks.Callback):
            def __getattribute__(self, name):
                if name.startswith("on_"):
                    calls.append(name)
                return object.__getattribute__(self, name)

        m, _ = _prepared(fw)
        d = tmp_path / fw.__name__
        with _captured(monkeypatch) as buf:
            m.fit(_dataset(fw, 6), _dataset(fw, 4), batch_size=4, epochs=2, verbose=0,
                  save_dir=str(d), callbacks=[Recorder()])
            m.evaluate(_dataset(fw, 4), batch_size=4, verbose=0, callbacks=Recorder())
            m.predict(_dataset(fw, 4), batch_size=4, verbose=0, callbacks=[Recorder()])
        text = buf.getvalue().replace(str(d), "<dir>")
        results.append((calls, sorted(os.listdir(d)), text))
    assert results[1] == results[0]


def test_early_stopping_and_lr_scheduler_callbacks(monkeypatch):
    out = []
    for fw in (paddle, oar):
        m, net = _prepared(fw, metrics=True)
        stop = fw.callbacks.EarlyStopping(monitor="acc_top1", mode="max", patience=0,
                                          save_best_model=False)
        with _captured(monkeypatch) as buf:
            m.fit(_dataset(fw, 8), _dataset(fw, 8, 7), batch_size=4, epochs=6, verbose=0,
                  callbacks=[stop])
        sched = fw.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.5)
        net2 = _net(fw)
        m2 = fw.Model(net2)
        m2.prepare(fw.optimizer.SGD(learning_rate=sched, parameters=m2.parameters()),
                   fw.nn.CrossEntropyLoss())
        with _captured(monkeypatch):
            m2.fit(_dataset(fw, 12), batch_size=4, epochs=1, verbose=0, shuffle=False)
        out.append((buf.getvalue(), _weights(net), sched.last_epoch, _weights(net2)))
    assert out[1][0] == out[0][0] and "Early stopping" in out[0][0]
    assert out[1][2] == out[0][2] == 3
    for a, b in zip(out[0][1] + out[0][3], out[1][1] + out[1][3]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
