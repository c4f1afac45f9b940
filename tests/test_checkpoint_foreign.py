"""Foreign checkpoint formats (issue 11): PyTorch's zip (.pt/.pth) and Paddle's pickle
(.pdparams/.pdopt) read through the restricted unpickler (Note [Loading never runs code]) and
written so that torch.load(weights_only=True) / paddle.load read them. Expected values come
from torch 2.13 / paddle 3.3.1 computed inside each test."""
import copyreg
import io
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.serialization import paddle_pickle, torch_zip
from oar.serialization._errors import CheckpointError, ForbiddenGlobalError
from oar.torch import serialization as tser


# ---------------------------------------------------------------------- malicious files
class _System:
    """Unpickling this runs os.system(cmd) with plain pickle."""

    def __init__(self, cmd):
        self.cmd = cmd

    def __reduce__(self):
        return (os.system, (self.cmd,))


class _Eval:
    def __init__(self, cmd):
        self.cmd = cmd

    def __reduce__(self):
        return (eval, (f"__import__('os').system({self.cmd!r})",))


class _EvilDict(dict):
    """A dict subclass whose unpickling (via its class) would run code."""

    def __setstate__(self, state):
        os.system(state["cmd"])

    def __reduce__(self):
        return (_EvilDict, (), {"cmd": self.cmd})


class _EvilArray(np.ndarray):
    cmd = "true"

    def __setstate__(self, state):
        os.system(type(self).cmd)


def _payloads(marker):
    cmd = f"touch {marker}"
    d = _EvilDict()
    d.cmd = cmd
    _EvilArray.cmd = cmd
    arr = np.ones(2).view(_EvilArray)
    return {
        "os.system": (_System(cmd), f"{os.system.__module__}.system"),
        "builtins.eval": (_Eval(cmd), "builtins.eval"),
        "subclass": (d, f"{__name__}._EvilDict"),
        "ndarray subclass": (arr, f"{__name__}._EvilArray"),
    }


def _sanity_plain_pickle_runs_it(tmp_path, payload):
    # the payload really runs code under plain pickle (else the test could not fail)
    marker = tmp_path / "sanity"
    obj, _ = _payloads(marker)[payload]
    try:
        pickle.loads(pickle.dumps(obj, protocol=4))
    except Exception:
        pass
    return marker.exists()


@pytest.mark.parametrize("payload", ["os.system", "builtins.eval", "subclass",
                                     "ndarray subclass"])
@pytest.mark.parametrize("protocol", [2, 4])
def test_malicious_paddle_pickle_is_refused_without_running_code(tmp_path, payload, protocol):
    assert _sanity_plain_pickle_runs_it(tmp_path, payload)
    marker = tmp_path / "marker"
    obj, glob = _payloads(marker)[payload]
    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps({"w": np.ones(2, np.float32), "x": obj}, protocol=protocol))
    with pytest.raises(ForbiddenGlobalError) as ei:
        with open(path, "rb") as f:
            paddle_pickle.read(f, str(path), "paddle")
    assert glob in str(ei.value) and str(path) in str(ei.value)
    assert isinstance(ei.value, pickle.UnpicklingError)
    assert not marker.exists()
    with pytest.raises(ForbiddenGlobalError):       # through the public entry point
        oar.load(str(path))
    assert not marker.exists()


def test_pickle_opcodes_that_reach_globals_otherwise_are_refused(tmp_path):
    marker = tmp_path / "marker"
    cmd = f"touch {marker}"
    # INST (protocol 0) names and calls a global without GLOBAL/REDUCE
    inst = f"(S'{cmd}'\nios\nsystem\n.".encode()
    # EXT1 fetches a global through copyreg's extension registry
    copyreg.add_extension(os.system.__module__, "system", 0xF1)
    try:
        ext = pickle.dumps(_System(cmd), protocol=2)
    finally:
        copyreg.remove_extension(os.system.__module__, "system", 0xF1)
    assert pickle.EXT1 in ext
    for data in (inst, ext):
        with pytest.raises(ForbiddenGlobalError):
            paddle_pickle.read(io.BytesIO(data), "evil.pdparams", "paddle")
    assert not marker.exists()


def _torch_zip_with_pickle(data_pkl):
    """A PyTorch zip checkpoint (oar's writer, checked by torch below) with data.pkl
    replaced."""
    good = io.BytesIO()
    torch_zip.write({"w": oar.ones([2])}, good)
    out = io.BytesIO()
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = data_pkl if info.filename.endswith("/data.pkl") else zin.read(info)
            zout.writestr(info.filename, data)
    return out.getvalue()


@pytest.mark.parametrize("payload", ["os.system", "builtins.eval", "subclass"])
@pytest.mark.parametrize("weights_only", [True, False])
def test_malicious_torch_zip_is_refused_without_running_code(tmp_path, payload, weights_only):
    marker = tmp_path / "marker"
    obj, glob = _payloads(marker)[payload]
    path = tmp_path / "evil.pt"
    path.write_bytes(_torch_zip_with_pickle(pickle.dumps({"x": obj}, protocol=2)))
    with pytest.raises(ForbiddenGlobalError) as ei:
        tser.load(str(path), weights_only=weights_only)
    msg = str(ei.value)
    assert glob in msg and "evil.pt" in msg
    if not weights_only:
        assert "never runs code" in msg
    assert not marker.exists()
    torch = pytest.importorskip("torch")
    with pytest.raises(pickle.UnpicklingError):      # torch refuses the same file
        torch.load(str(path), weights_only=True)
    assert not marker.exists()


# ---------------------------------------------------------------------- PyTorch <-> oar
def _torch_model(torch):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                               torch.nn.Linear(3 * 4 * 4, 5))


def _oar_torch_model():
    nn = otorch.nn
    return nn.Sequential(nn.Conv2d(2, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 5))


def _train(lib, model, x, y, steps=3):
    opt = lib.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    return opt


def test_torch_trained_model_loads_into_oar(tmp_path):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    xn = rng.normal(size=(4, 2, 6, 6)).astype(np.float32)
    yn = rng.normal(size=(4, 5)).astype(np.float32)
    tm = _torch_model(torch)
    opt = _train(torch, tm, torch.tensor(xn), torch.tensor(yn))
    path = tmp_path / "model.pt"
    torch.save(tm.state_dict(), path)
    om = _oar_torch_model()
    sd = tser.load(str(path))
    assert type(sd) is OrderedDict and list(sd) == list(tm.state_dict())
    assert all(type(v) is otorch.Tensor for v in sd.values())
    om.load_state_dict(sd)
    with torch.no_grad():
        want = tm(torch.tensor(xn)).numpy()
    got = om(otorch.tensor(xn)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # the optimizer's state dict: ints as keys, tensors, floats, tuples, None, bools
    torch.save(opt.state_dict(), tmp_path / "opt.pt")
    osd = tser.load(str(tmp_path / "opt.pt"))
    tsd = opt.state_dict()
    assert osd["param_groups"] == tsd["param_groups"]
    assert sorted(osd["state"]) == sorted(tsd["state"])
    for k, st in tsd["state"].items():
        for name, v in st.items():
            np.testing.assert_array_equal(osd["state"][k][name].numpy(), v.numpy())


def test_oar_trained_model_loads_into_torch(tmp_path):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    xn = rng.normal(size=(4, 2, 6, 6)).astype(np.float32)
    yn = rng.normal(size=(4, 5)).astype(np.float32)
    otorch.manual_seed(0)
    om = _oar_torch_model()
    oopt = _train(otorch, om, otorch.tensor(xn), otorch.tensor(yn))
    path = tmp_path / "model.pt"
    tser.save(om.state_dict(), str(path))
    tm = _torch_model(torch)
    sd = torch.load(path, weights_only=True)
    assert list(sd) == list(om.state_dict())
    tm.load_state_dict(sd)
    with torch.no_grad():
        got = tm(torch.tensor(xn)).numpy()
    want = om(otorch.tensor(xn)).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # the optimizer's state dict round trips into torch's Adam: one more step agrees
    tser.save(oopt.state_dict(), str(tmp_path / "opt.pt"))
    topt = torch.optim.Adam(tm.parameters(), lr=0.05)
    topt.load_state_dict(torch.load(tmp_path / "opt.pt", weights_only=True))
    for lib, model, opt in ((torch, tm, topt), (otorch, om, oopt)):
        opt.zero_grad()
        ((model(lib.tensor(xn)) - lib.tensor(yn)) ** 2).mean().backward()
        opt.step()
    for p, q in zip(tm.parameters(), om.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_torch_zip_round_trip_keeps_dtypes_classes_and_layout(tmp_path):
    torch = pytest.importorskip("torch")
    x = torch.arange(12.0).reshape(3, 4)
    obj = {"f32": torch.randn(2, 3), "f64": torch.randn(3, dtype=torch.float64),
           "f16": torch.randn(3).half(), "i64": torch.tensor([1, -2]), "i32": torch.arange(3,
           dtype=torch.int32), "i16": torch.arange(2, dtype=torch.int16),
           "i8": torch.tensor([-3], dtype=torch.int8), "u8": torch.tensor([200],
           dtype=torch.uint8), "bool": torch.tensor([True, False]), "zero_d": torch.tensor(3.5),
           "empty": torch.zeros(0, 3), "row": x[1], "t": x.t(), "expand": x[0].expand(2, 4),
           "param": torch.nn.Parameter(torch.ones(2)), "frozen": torch.nn.Parameter(
               torch.ones(1), requires_grad=False), "leaf": torch.ones(2, requires_grad=True),
           "meta": [1, 2.5, None, "s", (True, b"b", b""), {3, 4}, 1 + 2j]}
    obj["again"] = obj["row"]
    path = tmp_path / "all.pt"
    torch.save(obj, path)

    def check(a, b):   # a: torch, b: oar (either door)
        if isinstance(a, torch.Tensor):
            assert isinstance(b, oar.Tensor)
            assert isinstance(b, oar.nn.Parameter) == isinstance(a, torch.nn.Parameter)
            assert b._data.dtype == a.numpy(force=True).dtype
            assert tuple(b.shape) == tuple(a.shape) and b.requires_grad == a.requires_grad
            np.testing.assert_array_equal(b._data, a.detach().numpy())
        elif isinstance(a, (list, tuple)):
            assert type(a) is type(b) and len(a) == len(b)
            for u, v in zip(a, b):
                check(u, v)
        else:
            assert a == b and type(a) is type(b)

    for door in ("torch", "paddle"):
        with open(path, "rb") as f:
            got = torch_zip.read(f, str(path), door)
        cls = otorch.Tensor if door == "torch" else oar.Tensor
        assert type(got["row"]) is cls
        assert isinstance(got["param"], otorch.nn.Parameter if door == "torch"
                          else oar.nn.Parameter)
        for k in obj:
            check(obj[k], got[k])
        assert got["again"] is got["row"]
        # views of one storage share one oar storage: a write through one shows in others
        assert got["row"]._storage is got["t"]._storage is got["expand"]._storage
        if door == "torch":
            assert got["t"].stride() == obj["t"].stride()
            assert got["expand"].stride() == obj["expand"].stride()
        # and back: torch reads oar's file as the same object, views still shared
        out = tmp_path / f"back_{door}.pt"
        tser.save(got, str(out))
        back = torch.load(out, weights_only=True)
        for k in obj:
            check(obj[k], got[k])
            if isinstance(obj[k], torch.Tensor):
                assert type(back[k]) is type(obj[k]) and back[k].dtype == obj[k].dtype
                assert back[k].stride() == obj[k].stride()
                assert torch.equal(back[k], obj[k])
                assert back[k].requires_grad == obj[k].requires_grad
        assert back["again"] is back["row"]
        assert back["row"].untyped_storage().data_ptr() == back["t"].untyped_storage() \
            .data_ptr()
        assert torch.load(out, weights_only=True, mmap=True)["t"].stride() == (1, 4)
    got["row"].add_(1.0)
    assert float(got["t"][0, 1]) == 5.0


def test_oar_views_share_storage_after_torch_format_round_trip():
    base = otorch.arange(12.0).reshape(3, 4)
    obj = {"base": base, "col": base[:, 1], "t": base.t()}
    buf = io.BytesIO()
    torch_zip.write(obj, buf)
    buf.seek(0)
    got = torch_zip.read(buf, "buf", "torch")
    assert got["base"]._storage is got["col"]._storage is got["t"]._storage
    np.testing.assert_array_equal(got["col"].numpy(), [1.0, 5.0, 9.0])
    got["col"].mul_(10)
    np.testing.assert_array_equal(got["base"].numpy()[:, 1], [10.0, 50.0, 90.0])
    np.testing.assert_array_equal(got["t"].numpy()[1], [10.0, 50.0, 90.0])
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        assert sum("/data/" in n for n in z.namelist()) == 1   # one storage written once


def test_torch_bfloat16_loads_as_bfloat16(tmp_path):
    # Note [bfloat16]: a BFloat16Storage is read as oar's bfloat16, bits unchanged
    torch = pytest.importorskip("torch")
    path = tmp_path / "bf16.pt"
    w = torch.tensor([1.1, -2.5, 3e-3], dtype=torch.bfloat16)
    torch.save({"enc": {"w": w}}, path)
    got = tser.load(str(path))["enc"]["w"]
    assert got.dtype == otorch.bfloat16
    assert got.float().numpy().tolist() == w.float().tolist()


def test_torch_format_refuses_what_weights_only_would(tmp_path):
    path = tmp_path / "keep.pt"
    tser.save({"w": otorch.ones(2)}, str(path))
    before = path.read_bytes()
    for bad in ({"a": np.ones(2)}, {"m": otorch.nn.Linear(2, 2)}, {"f": print}):
        with pytest.raises(CheckpointError, match="PyTorch format"):
            tser.save(bad, str(path))
        assert path.read_bytes() == before


# ---------------------------------------------------------------------- Paddle <-> oar
def _paddle_model(paddle):
    paddle.seed(0)
    return paddle.nn.Sequential(paddle.nn.Conv2D(2, 3, 3), paddle.nn.ReLU(),
                                paddle.nn.Flatten(), paddle.nn.Linear(3 * 4 * 4, 5))


def _oar_model():
    nn = oar.nn
    return nn.Sequential(nn.Conv2D(2, 3, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3 * 4 * 4, 5))


def test_paddle_trained_model_loads_into_oar(tmp_path):
    paddle = pytest.importorskip("paddle")
    rng = np.random.default_rng(2)
    xn = rng.normal(size=(4, 2, 6, 6)).astype(np.float32)
    yn = rng.normal(size=(4, 5)).astype(np.float32)
    pm = _paddle_model(paddle)
    popt = paddle.optimizer.Adam(learning_rate=0.05, parameters=pm.parameters())
    for _ in range(3):
        loss = ((pm(paddle.to_tensor(xn)) - paddle.to_tensor(yn)) ** 2).mean()
        loss.backward()
        popt.step()
        popt.clear_grad()
    path = tmp_path / "model.pdparams"
    paddle.save(pm.state_dict(), str(path))
    paddle.save(popt.state_dict(), str(tmp_path / "model.pdopt"))
    om = _oar_model()
    sd = oar.load(str(path))
    ref = paddle.load(str(path))
    assert list(sd) == list(ref)                      # name table dropped, as paddle.load
    assert all(type(v) is oar.Tensor and v.stop_gradient for v in sd.values())
    om.set_state_dict(sd)
    want = pm(paddle.to_tensor(xn)).numpy()
    got = om(oar.to_tensor(xn)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # a plain pickle.load keeps the name table: set_state_dict ignores it as Paddle does
    with open(path, "rb") as f:
        raw = pickle.load(f)
    assert "StructuredToParameterName@@" in raw
    om2 = _oar_model()
    missing, unexpected = om2.set_state_dict(raw)
    assert missing == [] and unexpected == ["StructuredToParameterName@@"]
    np.testing.assert_allclose(om2(oar.to_tensor(xn)).numpy(), want, rtol=1e-6, atol=1e-6)
    # .pdopt: the optimizer's accumulators and LR scheduler state, as paddle.load gives them
    osd = oar.load(str(tmp_path / "model.pdopt"))
    psd = paddle.load(str(tmp_path / "model.pdopt"))
    assert sorted(osd) == sorted(psd)
    for k, v in psd.items():
        if isinstance(v, paddle.Tensor):
            np.testing.assert_array_equal(osd[k].numpy(), v.numpy())
        else:
            assert osd[k] == v


def test_oar_trained_model_loads_into_paddle(tmp_path):
    paddle = pytest.importorskip("paddle")
    rng = np.random.default_rng(3)
    xn = rng.normal(size=(4, 2, 6, 6)).astype(np.float32)
    yn = rng.normal(size=(4, 5)).astype(np.float32)
    oar.seed(0)
    om = _oar_model()
    opt = oar.optimizer.Adam(learning_rate=0.05, parameters=om.parameters())
    for _ in range(3):
        loss = ((om(oar.to_tensor(xn)) - oar.to_tensor(yn)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    path = tmp_path / "model.pdparams"
    with open(path, "wb") as f:
        paddle_pickle.write(om.state_dict(), f)
    pm = _paddle_model(paddle)
    loaded = paddle.load(str(path))
    assert list(loaded) == list(om.state_dict())
    assert pm.set_state_dict(loaded) == ([], [])
    want = om(oar.to_tensor(xn)).numpy()
    got = pm(paddle.to_tensor(xn)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    with open(path, "rb") as f:
        assert "StructuredToParameterName@@" in pickle.load(f)


def test_paddle_format_round_trip_of_nested_objects(tmp_path):
    paddle = pytest.importorskip("paddle")
    x = oar.arange(12, dtype="float32").reshape([3, 4])
    obj = {"epoch": 3, "tensors": [x, (x.t(), 2.5)], "lr": {"last_epoch": 2, "last_lr": 0.1},
           "flags": oar.to_tensor([True, False]), "half": oar.ones([2], dtype="float16"),
           "ids": oar.to_tensor([1, 2], dtype="int64"), "arr": np.arange(3.0)}
    path = tmp_path / "misc.pdparams"
    with open(path, "wb") as f:
        paddle_pickle.write(obj, f)
    ref = paddle.load(str(path))        # what Paddle makes of oar's file
    with open(path, "rb") as f:
        got = paddle_pickle.read(f, str(path), "paddle")

    def check(r, g):
        if isinstance(r, paddle.Tensor):
            assert isinstance(g, oar.Tensor) and g.stop_gradient
            assert g._data.dtype == r.numpy().dtype
            np.testing.assert_array_equal(g.numpy(), r.numpy())
        elif isinstance(r, dict):
            assert sorted(r) == sorted(g)
            for k in r:
                check(r[k], g[k])
        elif isinstance(r, (list, tuple)):
            assert type(r) is type(g) and len(r) == len(g)
            for u, v in zip(r, g):
                check(u, v)
        elif isinstance(r, np.ndarray):
            np.testing.assert_array_equal(r, g)
        else:
            assert r == g
    check(ref, got)
    np.testing.assert_array_equal(got["tensors"][1][0].numpy(), x.numpy().T)
    # what Paddle writes for the same kind of object reads the same way in oar
    pobj = {"epoch": 3, "tensors": [paddle.to_tensor(x.numpy()), (2.5,)],
            "half": paddle.ones([2], dtype="float16")}
    ppath = tmp_path / "p.pdparams"
    paddle.save(pobj, str(ppath))
    with open(ppath, "rb") as f:
        pgot = paddle_pickle.read(f, str(ppath), "torch")
    check(paddle.load(str(ppath)), pgot)
    assert type(pgot["half"]) is otorch.Tensor


def test_paddle_bfloat16_loads_as_bfloat16(tmp_path):
    # Paddle pickles a bfloat16 tensor as a uint16 array of its bits; it loads as bfloat16
    paddle = pytest.importorskip("paddle")
    path = tmp_path / "bf.pdparams"
    paddle.save({"w": paddle.to_tensor([1.1, -2.5], dtype="bfloat16")}, str(path))
    got = oar.load(str(path))["w"]
    assert got.dtype == oar.bfloat16
    assert got.tolist() == paddle.to_tensor([1.1, -2.5], dtype="bfloat16").tolist()


# ---------------------------------------------------------------------- corrupt files
def _good_torch_bytes():
    buf = io.BytesIO()
    torch_zip.write({"w": oar.arange(64, dtype="float32"), "b": oar.ones([3])}, buf)
    return buf.getvalue()


def _good_paddle_bytes():
    buf = io.BytesIO()
    paddle_pickle.write({"w": oar.arange(64, dtype="float32"), "b": oar.ones([3])}, buf)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["torch", "paddle"])
def test_truncated_and_corrupt_files_raise_checkpoint_error_naming_the_file(fmt):
    good = _good_torch_bytes() if fmt == "torch" else _good_paddle_bytes()
    reader = torch_zip.read if fmt == "torch" else paddle_pickle.read
    assert isinstance(reader(io.BytesIO(good), "ok.ckpt", "paddle")["w"], oar.Tensor)
    cases = [b"", good[:1], good[: len(good) // 3], good[: len(good) // 2], good[:-1],
             good[:-30], os.urandom(200)]
    flipped = bytearray(good)
    i = good.find(np.arange(64, dtype=np.float32).tobytes()[40:48])
    assert i > 0
    flipped[i] ^= 0xFF               # a corrupted tensor byte: zip's CRC catches it
    if fmt == "torch":
        cases.append(bytes(flipped))
    for data in cases:
        with pytest.raises(CheckpointError) as ei:
            reader(io.BytesIO(data), "bad.ckpt", "paddle")
        assert "bad.ckpt" in str(ei.value)


@pytest.mark.parametrize("fmt", ["torch", "paddle"])
def test_mutated_files_raise_only_checkpoint_errors(fmt):
    # random byte flips and cuts: a file either loads or raises CheckpointError, never a
    # bare NumPy / zipfile / pickle exception (and never allocates what the file lacks)
    import random
    good = _good_torch_bytes() if fmt == "torch" else _good_paddle_bytes()
    reader = torch_zip.read if fmt == "torch" else paddle_pickle.read
    rng = random.Random(11)
    for _ in range(300):
        d = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            d[rng.randrange(len(d))] = rng.randrange(256)
        if rng.random() < 0.2:
            d = d[:rng.randrange(len(d))]
        try:
            reader(io.BytesIO(bytes(d)), "m.ckpt", "torch")
        except CheckpointError as e:
            assert "m.ckpt" in str(e)


def test_torch_tensor_attributes_load_and_internals_are_protected():
    torch = pytest.importorskip("torch")
    t = torch.ones(2)
    t.note = "kept"
    buf = io.BytesIO()
    torch.save({"t": t, "b": torch.nn.Buffer(torch.zeros(1))}, buf)
    got = torch_zip.read(io.BytesIO(buf.getvalue()), "attrs.pt", "torch")
    assert got["t"].note == "kept" and got["b"].persistent is True
    bad = torch.ones(2)
    bad.__dict__["_data"] = 0           # would replace oar's array if applied
    buf = io.BytesIO()
    torch.save({"t": bad}, buf)
    with pytest.raises(CheckpointError, match="_data"):
        torch_zip.read(io.BytesIO(buf.getvalue()), "attrs.pt", "torch")


def test_legacy_and_torchscript_files_get_a_clear_error():
    torch = pytest.importorskip("torch")
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
    for reader in (torch_zip.read, paddle_pickle.read):
        with pytest.raises(CheckpointError, match="legacy format"):
            reader(io.BytesIO(buf.getvalue()), "old.pt", "torch")
    script = io.BytesIO()
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), script)
    with pytest.raises(CheckpointError, match="TorchScript"):
        torch_zip.read(io.BytesIO(script.getvalue()), "s.pt", "torch")


def test_torch_door_exposes_save_and_load():
    assert otorch.save is tser.save and otorch.load is tser.load, \
        "oar/torch/__init__.py must import save, load from .serialization"
