"""Attention and Transformer layers in both doors, against torch 2.13 and paddle 3.3.1: the
same weights (or the same seed) give the same outputs and gradients; state dicts load in the
real framework; sdpa's gradient checked against finite differences in float64."""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.autograd.gradcheck import gradcheck

torch = pytest.importorskip("torch")
OF = otorch.nn.functional
TF = torch.nn.functional


def _o(t, grad=False):
    x = otorch.tensor(t.detach().numpy())
    return x.requires_grad_() if grad else x


def _close(a, b, tol=1e-5):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _close_scaled(a, b, tol=1e-3):
    """Gradients through several float32 LayerNorms: within tol of the largest entry (they
    agree to 1e-15 in float64)."""
    b = b.detach().numpy()
    _close(a, b, tol * max(1.0, float(np.abs(b).max())))


# ------------------------------------------------------------------ torch: sdpa
SDPA_CASES = [
    {}, {"mask": "bool"}, {"mask": "float"}, {"is_causal": True}, {"scale": 0.3},
    {"mask": "bool_dead"}, {"mask": "bool_bcast"},
]


@pytest.mark.parametrize("case", SDPA_CASES, ids=str)
def test_sdpa_matches_torch_forward_and_backward(case):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 3, 4, 8, generator=g).transpose(-1, -2).contiguous().transpose(-1, -2)
    k = torch.randn(2, 3, 8, 5, generator=g).transpose(-1, -2)       # non-contiguous
    v = torch.randn(2, 3, 5, 6, generator=g)
    kw = {}
    if case.get("mask") == "bool":
        kw["attn_mask"] = torch.rand(4, 5, generator=g) > 0.3
    if case.get("mask") == "bool_dead":
        m = torch.rand(2, 3, 4, 5, generator=g) > 0.3
        m[:, :, 1] = False                      # a row with nothing to attend: zeros
        kw["attn_mask"] = m
    if case.get("mask") == "bool_bcast":
        kw["attn_mask"] = torch.rand(2, 1, 1, 5, generator=g) > 0.3
    if case.get("mask") == "float":
        kw["attn_mask"] = torch.randn(3, 4, 5, generator=g)
    for key in ("is_causal", "scale"):
        if key in case:
            kw[key] = case[key]
    tq, tk, tv = (t.clone().requires_grad_() for t in (q, k, v))
    ref = TF.scaled_dot_product_attention(tq, tk, tv, **kw)
    oq, ok, ov = (_o(t, True) for t in (q, k, v))
    okw = {a: (_o(b) if isinstance(b, torch.Tensor) else b) for a, b in kw.items()}
    out = OF.scaled_dot_product_attention(oq, ok, ov, **okw)
    assert type(out) is otorch.Tensor
    _close(out, ref)
    gout = torch.randn(ref.shape, generator=g)
    ref.backward(gout)
    out.backward(_o(gout))
    for a, b in ((oq, tq), (ok, tk), (ov, tv)):
        _close(a.grad, b.grad)


def test_sdpa_gqa_and_unbatched_match_torch():
    g = torch.Generator().manual_seed(1)
    q = torch.randn(2, 4, 3, 8, generator=g)
    k = torch.randn(2, 2, 5, 8, generator=g)
    v = torch.randn(2, 2, 5, 8, generator=g)
    _close(OF.scaled_dot_product_attention(_o(q), _o(k), _o(v), enable_gqa=True),
           TF.scaled_dot_product_attention(q, k, v, enable_gqa=True))
    _close(OF.scaled_dot_product_attention(_o(q[0, 0]), _o(k[0, 0]), _o(v[0, 0])),
           TF.scaled_dot_product_attention(q[0, 0], k[0, 0], v[0, 0]))


def test_sdpa_dropout_draws_as_torch():
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 2, 4, 8, generator=g, dtype=torch.float64) for _ in range(3))
    torch.manual_seed(5)
    ref = TF.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
    otorch.manual_seed(5)
    out = OF.scaled_dot_product_attention(_o(q), _o(k), _o(v), dropout_p=0.4)
    _close(out, ref, 1e-10)


def test_sdpa_gradcheck_float64():
    rng = np.random.default_rng(0)
    q, k, v = (otorch.tensor(rng.standard_normal(s)).requires_grad_()
               for s in ((2, 3, 4), (2, 5, 4), (2, 5, 3)))
    mask = otorch.tensor(rng.standard_normal((3, 5)))
    assert gradcheck(lambda a, b, c: OF.scaled_dot_product_attention(a, b, c, attn_mask=mask),
                     (q, k, v))
    assert gradcheck(lambda a, b, c: OF.scaled_dot_product_attention(a, b, c, is_causal=True),
                     (q, k, v))


def test_sdpa_refusals_change_nothing():
    q = otorch.randn(2, 4, 8)
    before = q.numpy().copy(), q._version
    with pytest.raises(RuntimeError):
        OF.scaled_dot_product_attention(q, q, q.double())
    with pytest.raises(RuntimeError):
        OF.scaled_dot_product_attention(q, otorch.randn(2, 4, 5), q)
    with pytest.raises(RuntimeError):
        OF.scaled_dot_product_attention(q, q, q, attn_mask=otorch.ones(4, 4).bool(),
                                        is_causal=True)
    with pytest.raises(RuntimeError):
        OF.scaled_dot_product_attention(q, q, q, attn_mask=otorch.ones(3, 4).bool())
    with pytest.raises(TypeError):
        OF.scaled_dot_product_attention(q, q, [1.0])
    assert np.array_equal(q.numpy(), before[0]) and q._version == before[1]


# ------------------------------------------------------------------ torch: layers
def _copy_state(tm, om):
    sd = {k: otorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    om.load_state_dict(sd)


def _params_equal(tm, om):
    ts, os_ = tm.state_dict(), om.state_dict()
    assert list(ts) == list(os_)
    for k in ts:
        assert tuple(ts[k].shape) == tuple(os_[k].shape), k
        np.testing.assert_array_equal(ts[k].numpy(), os_[k].numpy(), err_msg=k)


@pytest.mark.parametrize("kw", [{}, {"add_bias_kv": True, "add_zero_attn": True},
                                {"kdim": 6, "vdim": 5}, {"bias": False},
                                {"batch_first": True}])
def test_multihead_attention_seeded_params_and_grads_match_torch(kw):
    torch.manual_seed(3)
    tm = torch.nn.MultiheadAttention(8, 2, **kw)
    otorch.manual_seed(3)
    om = otorch.nn.MultiheadAttention(8, 2, **kw)
    _params_equal(tm, om)
    g = torch.Generator().manual_seed(4)
    L, S, N = 4, 5, 3
    shp = (lambda s, e: (N, s, e)) if kw.get("batch_first") else (lambda s, e: (s, N, e))
    q = torch.randn(shp(L, 8), generator=g)
    k = torch.randn(shp(S, kw.get("kdim", 8)), generator=g)
    v = torch.randn(shp(S, kw.get("vdim", 8)), generator=g)
    kpm = torch.rand(N, S, generator=g) > 0.7
    kpm[:, 0] = False
    am = torch.randn(L, S, generator=g)
    for extra in ({}, {"key_padding_mask": kpm, "attn_mask": am},
                  {"attn_mask": torch.rand(L, S, generator=g) > 0.8, "need_weights": False},
                  {"average_attn_weights": False, "key_padding_mask": kpm}):
        tm.zero_grad()
        om.zero_grad()
        ref, rw = tm(q, k, v, **extra)
        okw = {a: (_o(b) if isinstance(b, torch.Tensor) else b) for a, b in extra.items()}
        out, w = om(_o(q), _o(k), _o(v), **okw)
        _close(out, ref)
        if rw is None:
            assert w is None
        else:
            _close(w, rw)
        ref.sum().backward()
        out.sum().backward()
        for (n, tp), (_, op) in zip(tm.named_parameters(), om.named_parameters()):
            _close(op.grad, tp.grad, 1e-4)


def test_multihead_attention_unbatched_and_dropout_train_mode():
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 4, dropout=0.3)
    om = otorch.nn.MultiheadAttention(8, 4, dropout=0.3)
    _copy_state(tm, om)
    x = torch.randn(5, 8)
    ref, rw = tm.eval()(x, x, x)
    out, w = om.eval()(_o(x), _o(x), _o(x))
    _close(out, ref)
    _close(w, rw)
    tm.train(), om.train()
    torch.manual_seed(9)
    ref, _ = tm(x, x, x)
    otorch.manual_seed(9)
    out, _ = om(_o(x), _o(x), _o(x))
    _close(out, ref)


ACTS = ["relu", "gelu"]


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("act", ACTS)
def test_transformer_seeded_same_params_outputs_grads_and_steps(norm_first, act):
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
              dim_feedforward=16, dropout=0.0, activation=act, norm_first=norm_first)
    torch.manual_seed(11)
    tm = torch.nn.Transformer(**kw)
    otorch.manual_seed(11)
    om = otorch.nn.Transformer(**kw)
    _params_equal(tm, om)
    g = torch.Generator().manual_seed(12)
    src, tgt = torch.randn(5, 2, 8, generator=g), torch.randn(4, 2, 8, generator=g)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    omask = otorch.nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(tmask.numpy(), omask.numpy())
    kpm = torch.tensor([[False] * 5, [False, False, False, True, True]])
    wsum = torch.randn(4, 2, 8, generator=g)
    topt = torch.optim.SGD(tm.parameters(), lr=0.05)
    oopt = otorch.optim.SGD(om.parameters(), lr=0.05)
    for _ in range(3):
        ref = tm(src, tgt, tgt_mask=tmask, src_key_padding_mask=kpm,
                 memory_key_padding_mask=kpm)
        out = om(_o(src), _o(tgt), tgt_mask=omask, src_key_padding_mask=_o(kpm),
                 memory_key_padding_mask=_o(kpm))
        _close_scaled(out, ref)
        topt.zero_grad()
        oopt.zero_grad()
        (ref * wsum).sum().backward()
        (out * _o(wsum)).sum().backward()
        for (n, tp), (_, op) in zip(tm.named_parameters(), om.named_parameters()):
            _close_scaled(op.grad, tp.grad)
        topt.step()
        oopt.step()


def test_encoder_decoder_layers_batch_first_callable_activation_and_state_dict_loads_in_torch():
    torch.manual_seed(0)
    tenc = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                            activation=TF.silu, layer_norm_eps=1e-6)
    tdec = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                            norm_first=True, bias=False)
    oenc = otorch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                             activation=OF.silu, layer_norm_eps=1e-6)
    odec = otorch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                             norm_first=True, bias=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tstack = torch.nn.TransformerEncoder(tenc, 2, norm=torch.nn.LayerNorm(8))
        ostack = otorch.nn.TransformerEncoder(oenc, 2, norm=otorch.nn.LayerNorm(8))
    tdstack = torch.nn.TransformerDecoder(tdec, 2)
    odstack = otorch.nn.TransformerDecoder(odec, 2)
    # oar's initial state loads into torch, and torch's outputs from it agree
    tstack.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ostack.state_dict().items()})
    tdstack.load_state_dict({k: torch.tensor(v.numpy())
                             for k, v in odstack.state_dict().items()})
    g = torch.Generator().manual_seed(1)
    src, tgt = torch.randn(2, 5, 8, generator=g), torch.randn(2, 3, 8, generator=g)
    mask = torch.rand(5, 5, generator=g) > 0.8
    mem = tstack(src, mask=mask)
    omem = ostack(_o(src), mask=_o(mask))
    _close(omem, mem)
    ref = tdstack(tgt, mem, memory_mask=torch.zeros(3, 5))
    out = odstack(_o(tgt), omem, memory_mask=otorch.zeros(3, 5))
    _close(out, ref)
    ref.sum().backward()
    out.sum().backward()
    for (n, tp), (_, op) in zip(list(tstack.named_parameters()) + list(tdstack.named_parameters()),
                                list(ostack.named_parameters()) + list(odstack.named_parameters())):
        _close_scaled(op.grad, tp.grad)


def test_transformer_errors_as_torch():
    m = otorch.nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="batch number"):
        m(otorch.randn(5, 2, 8), otorch.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="d_model"):
        m(otorch.randn(5, 2, 6), otorch.randn(4, 2, 6))
    with pytest.raises(AssertionError):
        otorch.nn.MultiheadAttention(8, 3)
    with pytest.raises(RuntimeError, match="relu/gelu"):
        otorch.nn.TransformerEncoderLayer(8, 2, activation="tanh")
    mha = otorch.nn.MultiheadAttention(8, 2)
    x = otorch.randn(4, 2, 8)
    with pytest.raises(RuntimeError, match="is_causal"):
        mha(x, x, x, is_causal=True)


# ------------------------------------------------------------------ Paddle door
paddle = pytest.importorskip("paddle")


def _p(a, grad=False):
    x = oar.to_tensor(np.asarray(a))
    if grad:
        x.stop_gradient = False
    return x


def _to_paddle_state(layer):
    return {k: paddle.to_tensor(v.numpy()) for k, v in layer.state_dict().items()}


@pytest.mark.parametrize("case", ["plain", "bool", "float", "causal", "scale", "gqa"])
def test_paddle_sdpa_matches_paddle(case):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((2, 4, 4, 8)).astype("float32")
    k = rng.standard_normal((2, 5, 4 if case != "gqa" else 2, 8)).astype("float32")
    v = rng.standard_normal((2, 5, 4 if case != "gqa" else 2, 8)).astype("float32")
    kw = {}
    if case == "bool":
        m = rng.random((2, 4, 4, 5)) > 0.3
        m[..., 0] = True
        kw["attn_mask"] = m
    if case == "float":
        kw["attn_mask"] = rng.standard_normal((4, 5)).astype("float32")
    if case == "causal":
        kw["is_causal"] = True
    if case == "scale":
        kw["scale"] = 0.3
    pq, pk, pv = (paddle.to_tensor(a, stop_gradient=False) for a in (q, k, v))
    pkw = {a: (paddle.to_tensor(b) if isinstance(b, np.ndarray) else b) for a, b in kw.items()}
    ref = paddle.nn.functional.scaled_dot_product_attention(pq, pk, pv, **pkw)
    oq, ok, ov = (_p(a, True) for a in (q, k, v))
    okw = {a: (_p(b) if isinstance(b, np.ndarray) else b) for a, b in kw.items()}
    out = oar.nn.functional.scaled_dot_product_attention(oq, ok, ov, **okw)
    _close(out.numpy(), ref.numpy())
    gout = rng.standard_normal(ref.shape).astype("float32")
    (ref * paddle.to_tensor(gout)).sum().backward()
    (out * _p(gout)).sum().backward()
    for a, b in ((oq, pq), (ok, pk), (ov, pv)):
        _close(a.grad.numpy(), b.grad.numpy())


@pytest.mark.parametrize("mask", [None, "bool", "int", "float"])
@pytest.mark.parametrize("kdim", [None, 6])
def test_paddle_multihead_attention_matches_paddle(mask, kdim):
    rng = np.random.default_rng(1)
    om = oar.nn.MultiHeadAttention(8, 2, kdim=kdim, vdim=kdim, need_weights=True)
    pm = paddle.nn.MultiHeadAttention(8, 2, kdim=kdim, vdim=kdim, need_weights=True)
    pm.set_state_dict(_to_paddle_state(om))       # oar's state dict loads into paddle
    x = rng.standard_normal((2, 4, 8)).astype("float32")
    mem = rng.standard_normal((2, 5, kdim or 8)).astype("float32")
    m = None
    if mask == "bool":
        m = rng.random((2, 2, 4, 5)) > 0.4
    elif mask == "int":
        m = (rng.random((4, 5)) > 0.4).astype("int64")
    elif mask == "float":
        m = rng.standard_normal((2, 1, 4, 5)).astype("float32")
    px = paddle.to_tensor(x, stop_gradient=False)
    ref, rw = pm(px, paddle.to_tensor(mem), paddle.to_tensor(mem),
                 None if m is None else paddle.to_tensor(m))
    ox = _p(x, True)
    out, w = om(ox, _p(mem), _p(mem), None if m is None else _p(m))
    _close(out.numpy(), ref.numpy())
    _close(w.numpy(), rw.numpy())
    ref.sum().backward()
    out.sum().backward()
    _close(ox.grad.numpy(), px.grad.numpy())
    for (n, op), (_, pp) in zip(om.named_parameters(), pm.named_parameters()):
        _close(op.grad.numpy(), pp.grad.numpy(), 1e-4)


@pytest.mark.parametrize("normalize_before", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_paddle_transformer_matches_paddle_with_steps(normalize_before, activation):
    rng = np.random.default_rng(2)
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
              dim_feedforward=16, dropout=0.0, activation=activation,
              normalize_before=normalize_before)
    om, pm = oar.nn.Transformer(**kw), paddle.nn.Transformer(**kw)
    assert list(om.state_dict()) == list(pm.state_dict())
    pm.set_state_dict(_to_paddle_state(om))
    src = rng.standard_normal((2, 5, 8)).astype("float32")
    tgt = rng.standard_normal((2, 4, 8)).astype("float32")
    tmask = om.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(tmask.numpy(), pm.generate_square_subsequent_mask(4).numpy())
    smask = rng.random((2, 1, 5, 5)) > 0.2
    wsum = rng.standard_normal((2, 4, 8)).astype("float32")
    oopt = oar.optimizer.SGD(0.05, parameters=om.parameters())
    popt = paddle.optimizer.SGD(0.05, parameters=pm.parameters())
    for _ in range(3):
        ref = pm(paddle.to_tensor(src), paddle.to_tensor(tgt), paddle.to_tensor(smask),
                 paddle.to_tensor(tmask.numpy()))
        out = om(_p(src), _p(tgt), _p(smask), tmask)
        _close(out.numpy(), ref.numpy(), 1e-4)
        (ref * paddle.to_tensor(wsum)).sum().backward()
        (out * _p(wsum)).sum().backward()
        for (n, op), (_, pp) in zip(om.named_parameters(), pm.named_parameters()):
            b = pp.grad.numpy()
            _close(op.grad.numpy(), b, 1e-3 * max(1.0, float(np.abs(b).max())))
        oopt.step()
        popt.step()
        oopt.clear_grad()
        popt.clear_grad()


def test_paddle_encoder_stack_builds_fresh_layers_and_attrs():
    layer = oar.nn.TransformerEncoderLayer(8, 2, 16, bias_attr=[None, False])
    enc = oar.nn.TransformerEncoder(layer, 2)
    assert enc.layers[0] is layer
    assert not np.array_equal(enc.layers[0].linear1.weight.numpy(),
                              enc.layers[1].linear1.weight.numpy())
    assert enc.layers[1].linear1.bias is None and enc.layers[1].self_attn.q_proj.bias is not None
    penc = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(8, 2, 16,
                                                                          bias_attr=[None, False]), 2)
    assert list(enc.state_dict()) == list(penc.state_dict())
    with pytest.raises(AssertionError):         # paddle asserts
        oar.nn.MultiHeadAttention(8, 3)
    with pytest.raises(AssertionError):
        paddle.nn.MultiHeadAttention(8, 3)
    with pytest.raises(TypeError):
        oar.nn.TransformerEncoder(oar.nn.Linear(2, 2), 2)


# ------------------------------------------------------------------ Embedding(max_norm=...)
@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_torch_embedding_max_norm_renormalises_rows_in_place_as_torch(norm_type):
    torch.manual_seed(0)
    te = torch.nn.Embedding(6, 4, max_norm=1.5, norm_type=norm_type, padding_idx=2,
                            scale_grad_by_freq=True)
    oe = otorch.nn.Embedding(6, 4, max_norm=1.5, norm_type=norm_type, padding_idx=2,
                             scale_grad_by_freq=True)
    _copy_state(te, oe)
    assert repr(oe) == repr(te)
    idx = torch.tensor([[1, 3, 3], [2, 5, 1]])
    ref = te(idx)
    out = oe(_o(idx))
    _close(out, ref)
    _close(oe.weight, te.weight)             # the rows read were renormalised in place
    ref.sum().backward()
    out.sum().backward()
    _close(oe.weight.grad, te.weight.grad)


def test_paddle_embedding_max_norm_and_scale_grad_by_freq_as_paddle():
    w = np.random.default_rng(0).standard_normal((5, 3)).astype("float32") * 2
    x = np.array([[1, 3], [3, 0]])
    for kw in ({"max_norm": 2.0}, {"max_norm": 1.0, "norm_type": 1.0},
               {"scale_grad_by_freq": True}, {"padding_idx": 0, "max_norm": 1.0}):
        pw = paddle.to_tensor(w, stop_gradient=False)
        ow = _p(w, True)
        ref = paddle.nn.functional.embedding(paddle.to_tensor(x), pw, **kw)
        out = oar.nn.functional.embedding(_p(x), ow, **kw)
        _close(out.numpy(), ref.numpy())
        _close(ow.numpy(), pw.numpy())
        ref.sum().backward()
        out.sum().backward()
        _close(ow.grad.numpy(), pw.grad.numpy())
    pe = paddle.nn.Embedding(5, 3, max_norm=1.0)
    oe = oar.nn.Embedding(5, 3, max_norm=1.0)
    oe.set_state_dict({"weight": _p(w)})
    pe.set_state_dict({"weight": paddle.to_tensor(w)})
    _close(oe(_p(x)).numpy(), pe(paddle.to_tensor(x)).numpy())
    _close(oe.weight.numpy(), pe.weight.numpy())
