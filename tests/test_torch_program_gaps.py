"""Gaps that real PyTorch programs (tests/programs/torch/) hit on oar.torch, each compared with
torch 2.13: `import torch.backends.cudnn` (DCGAN), nn.LSTMCell / GRUCell / RNNCell
(time_sequence_prediction), RNN flatten_parameters and `import torch.onnx`
(word_language_model), torch.tril / triu (minGPT's and makemore's causal mask), torch.unique
(minGPT's demo dataset)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import oar.torch as ot

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy()


def test_backends_submodules_import_as_modules():
    for sub in ("cudnn", "mps", "cuda", "mkldnn", "mkl", "openmp", "cpu"):
        mod = importlib.import_module(f"oar.torch.backends.{sub}")
        assert mod is getattr(ot.backends, sub)
        importlib.import_module(f"torch.backends.{sub}")   # the same names exist in torch
    import oar.torch.backends.cudnn as cudnn
    cudnn.benchmark = True
    assert ot.backends.cudnn.benchmark is True
    cudnn.benchmark = False


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(cls, batched):
    torch.manual_seed(3)
    ot.manual_seed(3)
    kw = dict(nonlinearity="relu") if cls == "RNNCell" else {}
    t_cell = getattr(torch.nn, cls)(3, 5, **kw).double()
    o_cell = getattr(ot.nn, cls)(3, 5, **kw).double()
    assert repr(o_cell) == repr(t_cell)
    assert [n for n, _ in o_cell.named_parameters()] == [n for n, _ in t_cell.named_parameters()]
    for (_, pt), (_, po) in zip(t_cell.named_parameters(), o_cell.named_parameters()):
        np.testing.assert_array_equal(_np(po), _np(pt))   # same init stream
    rng = np.random.default_rng(0)
    shape = (4, 3) if batched else (3,)
    hshape = (4, 5) if batched else (5,)
    x = rng.standard_normal(shape)
    hs = [rng.standard_normal(hshape) for _ in range(2 if cls == "LSTMCell" else 1)]
    xt, xo = torch.tensor(x, requires_grad=True), ot.tensor(x, requires_grad=True)
    ht = tuple(torch.tensor(h) for h in hs)
    ho = tuple(ot.tensor(h) for h in hs)
    for hx_t, hx_o in ((None, None), (ht if cls == "LSTMCell" else ht[0],
                                      ho if cls == "LSTMCell" else ho[0])):
        out_t, out_o = t_cell(xt, hx_t), o_cell(xo, hx_o)
        outs_t = out_t if isinstance(out_t, tuple) else (out_t,)
        outs_o = out_o if isinstance(out_o, tuple) else (out_o,)
        assert len(outs_o) == len(outs_t)
        for a, b in zip(outs_o, outs_t):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-12)
        sum(o.sum() for o in outs_t).backward()
        sum(o.sum() for o in outs_o).backward()
    np.testing.assert_allclose(_np(xo.grad), _np(xt.grad), rtol=1e-12, atol=1e-12)
    for (_, pt), (_, po) in zip(t_cell.named_parameters(), o_cell.named_parameters()):
        np.testing.assert_allclose(_np(po.grad), _np(pt.grad), rtol=1e-12, atol=1e-12)


def test_cell_refusals_as_torch():
    for T in (torch, ot):
        cell = T.nn.LSTMCell(3, 4, bias=False)
        assert cell.bias_ih is None and repr(cell) == "LSTMCell(3, 4, bias=False)"
        with pytest.raises(ValueError, match="Expected input to be 1D or 2D, got 3D"):
            cell(T.zeros(2, 2, 3))
        with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 2 "
                                               "expected 3"):
            cell(T.zeros(2, 2))
        gelu = T.nn.RNNCell(3, 4, nonlinearity="gelu")   # accepted, refused when run
        assert repr(gelu) == "RNNCell(3, 4, nonlinearity=gelu)"
        with pytest.raises(RuntimeError, match="Unknown nonlinearity: gelu"):
            gelu(T.zeros(2, 3))


def test_rnn_flatten_parameters_is_a_noop():
    for T in (torch, ot):
        lstm = T.nn.LSTM(2, 3)
        before = [_np(p).copy() for p in lstm.parameters()]
        assert lstm.flatten_parameters() is None
        for a, p in zip(before, lstm.parameters()):
            np.testing.assert_array_equal(a, _np(p))


def test_onnx_imports_and_export_refuses():
    import oar.torch.onnx as onnx
    assert onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="ONNX"):
        onnx.export(ot.nn.Linear(2, 2), (ot.zeros(1, 2),), "m.onnx")


@pytest.mark.parametrize("fn", ["tril", "triu"])
@pytest.mark.parametrize("diagonal", [0, 1, -1, 5, -5])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (0, 3), (1, 1)])
def test_tril_triu_match_torch(fn, diagonal, shape):
    x = np.random.default_rng(1).standard_normal(shape)
    xt, xo = torch.tensor(x, requires_grad=True), ot.tensor(x, requires_grad=True)
    yt, yo = getattr(torch, fn)(xt, diagonal), getattr(ot, fn)(xo, diagonal)
    np.testing.assert_array_equal(_np(yo), _np(yt))
    np.testing.assert_array_equal(_np(getattr(xo, fn)(diagonal=diagonal)), _np(yt))
    assert type(yo.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = np.random.default_rng(2).standard_normal(shape)
    yt.backward(torch.tensor(g))
    yo.backward(ot.tensor(g))
    np.testing.assert_array_equal(_np(xo.grad), _np(xt.grad))
    # the in-place spelling: same values, same node, x itself, one version bump
    xt2, xo2 = torch.tensor(x) * 1, ot.tensor(x) * 1
    rt, ro = getattr(xt2, fn + "_")(diagonal), getattr(xo2, fn + "_")(diagonal)
    assert rt is xt2 and ro is xo2 and xo2._version == xt2._version == 1
    np.testing.assert_array_equal(_np(xo2), _np(xt2))
    # integer and bool tensors keep their dtype
    for dt in ("int64", "bool"):
        a = np.arange(12).reshape(3, 4).astype(dt)
        np.testing.assert_array_equal(_np(getattr(ot, fn)(ot.tensor(a), diagonal)),
                                      _np(getattr(torch, fn)(torch.tensor(a), diagonal)))


def test_tril_of_1d_refused_as_torch():
    x = ot.ones(3)
    for T, v in ((torch, torch.ones(3)), (ot, x)):
        with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 "
                                               "dimensions"):
            T.tril(v)
        with pytest.raises(RuntimeError, match="triu: input tensor must have at least 2 "
                                               "dimensions"):
            v.triu_()
    np.testing.assert_array_equal(_np(x), np.ones(3))
    assert x._version == 0


@pytest.mark.parametrize("case", [
    dict(data=[3, 1, 2, 1, 5, 3, 0]),
    dict(data=[3, 1, 2, 1, 5, 3, 0], sorted=False, return_inverse=True, return_counts=True),
    dict(data=[[3, 1], [1, 1]], return_inverse=True),
    dict(data=[[1, 2], [1, 2], [0, 1]], dim=0, return_inverse=True, return_counts=True),
    dict(data=[[1, 2, 1], [0, 2, 0]], dim=1, return_counts=True),
    dict(data=[2.0, float("nan"), float("nan"), 1.0, 2.0], return_counts=True),
    dict(data=[True, False, True]),
    dict(data=5),
])
def test_unique_matches_torch(case):
    case = dict(case)
    data = case.pop("data")
    rt = torch.unique(torch.tensor(data), **case)
    ro = ot.unique(ot.tensor(data), **case)
    ro_m = ot.tensor(data).unique(**case)
    rt = rt if isinstance(rt, tuple) else (rt,)
    for got in (ro, ro_m):
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(rt)
        for a, b in zip(got, rt):
            assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(_np(a), _np(b))


_FLOAT_WARN_SCRIPT = """
import warnings, sys
sys.path.insert(0, {root!r})
import {mod} as T
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    x = T.ones(3, requires_grad=True)
    float(T.ones(()))                 # no grad: no warning
    x.sum().item(); int(x.sum())      # item() and int() never warn
    first = len(w)
    float(x.sum()); float(x[0] * 2)   # warns once per process
print(first, len(w), [str(m.message).split(" (Triggered")[0] for m in w],
      [m.category.__name__ for m in w])
"""


def test_float_of_a_grad_tensor_warns_once_as_torch():
    import subprocess
    import sys
    from pathlib import Path
    root = str(Path(__file__).resolve().parents[1])
    outs = [subprocess.run([sys.executable, "-c", _FLOAT_WARN_SCRIPT.format(root=root, mod=m)],
                           capture_output=True, text=True, check=True).stdout
            for m in ("torch", "oar.torch")]
    assert outs[0] == outs[1]
    assert outs[0].startswith("0 1 ")
