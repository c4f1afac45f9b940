"""Recurrent layers in both doors against the real frameworks (same weights copied in):
Paddle 3.3.1's SimpleRNN / LSTM / GRU, cells, RNN / BiRNN (names, outputs, final states,
sequence_length, gradients of every parameter, optimizer steps, state dicts both ways), and
torch 2.13's torch.nn.utils.rnn packed sequences with RNN / LSTM / GRU over them."""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch

paddle = pytest.importorskip("paddle")
torch = pytest.importorskip("torch")

warnings.filterwarnings("ignore", message=".*sequence_mask.*")


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else t.numpy()


def _close(a, b, tol=2e-5):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _first(states):
    return states[0] if isinstance(states, (tuple, list)) else states


# --------------------------------------------------------------------------- Paddle door
def _copy_to_paddle(mo, mp):
    names_o = [n for n, _ in mo.named_parameters()]
    assert names_o == [n for n, _ in mp.named_parameters()]
    for (_, po), (_, pp) in zip(mo.named_parameters(), mp.named_parameters()):
        pp.set_value(po.numpy())


PADDLE_CASES = [
    ("SimpleRNN", {}),
    ("SimpleRNN", {"activation": "relu", "time_major": True}),
    ("LSTM", {"num_layers": 2}),
    ("LSTM", {"direction": "bidirect"}),
    ("GRU", {"direction": "bidirectional", "num_layers": 2}),
    ("GRU", {"time_major": True}),
    ("LSTM", {"proj_size": 3, "num_layers": 2}),
]


@pytest.mark.parametrize("cls,kw", PADDLE_CASES)
@pytest.mark.parametrize("lengths", [False, True])
def test_paddle_layer_matches_paddle(cls, kw, lengths):
    rng = np.random.default_rng(1)
    mo, mp = getattr(oar.nn, cls)(4, 5, **kw), getattr(paddle.nn, cls)(4, 5, **kw)
    _copy_to_paddle(mo, mp)
    assert repr(mo) == repr(mp)
    tm = kw.get("time_major", False)
    x = rng.standard_normal((6, 3, 4) if tm else (3, 6, 4)).astype(np.float32)
    seq = np.array([6, 2, 4], np.int64) if lengths else None
    dirs = 2 if "direction" in kw else 1
    k = kw.get("num_layers", 1) * dirs
    h0 = rng.standard_normal((k, 3, kw.get("proj_size") or 5)).astype(np.float32)
    c0 = rng.standard_normal((k, 3, 5)).astype(np.float32)
    init_o = (oar.to_tensor(h0), oar.to_tensor(c0)) if cls == "LSTM" else oar.to_tensor(h0)
    init_p = (paddle.to_tensor(h0), paddle.to_tensor(c0)) if cls == "LSTM" \
        else paddle.to_tensor(h0)
    if lengths and dirs == 2:
        # Paddle 3.3.1's CPU kernel differentiates the reverse direction wrongly when
        # sequences are cut and the initial state is not zero (its forward is right; torch
        # agrees with oar: test_paddle_bidirect_lengths_initial_states_grads_match_torch)
        init_o = init_p = None
    opt_o = oar.optimizer.Adam(learning_rate=0.01, parameters=mo.parameters())
    opt_p = paddle.optimizer.Adam(learning_rate=0.01, parameters=mp.parameters())
    for _ in range(3):
        xo, xp = oar.to_tensor(x), paddle.to_tensor(x)
        xo.stop_gradient = xp.stop_gradient = False
        yo, so = mo(xo, init_o, None if seq is None else oar.to_tensor(seq))
        yp, sp = mp(xp, init_p, None if seq is None else paddle.to_tensor(seq))
        _close(yo, yp)
        for a, b in zip(so if cls == "LSTM" else [so], sp if cls == "LSTM" else [sp]):
            _close(a, b)
        loss_o = (yo * yo).sum() + _first(so).sum()
        loss_p = (yp * yp).sum() + _first(sp).sum()
        loss_o.backward()
        loss_p.backward()
        _close(xo.grad, xp.grad, 1e-4)
        for (n, a), (_, b) in zip(mo.named_parameters(), mp.named_parameters()):
            assert (a.grad is None) == (b.grad is None), n
            if a.grad is not None:
                _close(a.grad, b.grad, 1e-4)
        opt_o.step()
        opt_p.step()
        opt_o.clear_grad()
        opt_p.clear_grad()
    for (_, a), (_, b) in zip(mo.named_parameters(), mp.named_parameters()):
        _close(a, b, 1e-4)


@pytest.mark.parametrize("cls,kw", PADDLE_CASES)
def test_paddle_state_dict_both_ways(cls, kw):
    mo, mp = getattr(oar.nn, cls)(4, 5, **kw), getattr(paddle.nn, cls)(4, 5, **kw)
    sd_o, sd_p = mo.state_dict(), mp.state_dict()
    assert list(sd_o) == list(sd_p)
    assert [list(v.shape) for v in sd_o.values()] == [list(v.shape) for v in sd_p.values()]
    mp.set_state_dict({k: v.numpy() for k, v in sd_o.items()})
    for k, v in mp.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd_o[k].numpy())
    fresh = getattr(paddle.nn, cls)(4, 5, **kw)
    mo.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in fresh.state_dict().items()})
    for k, v in fresh.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), mo.state_dict()[k].numpy())


def test_paddle_parameter_names_and_init():
    m = oar.nn.LSTM(4, 8, 2)
    assert [n for n, _ in m.named_parameters()] == \
        [n for n, _ in paddle.nn.LSTM(4, 8, 2).named_parameters()]
    assert m.weight_ih_l0 is m[0].cell.weight_ih
    bound = 1 / np.sqrt(8)
    for p in m.parameters():
        assert np.abs(p.numpy()).max() <= bound and p.numpy().std() > 0
    c = oar.nn.GRUCell(3, 4, bias_ih_attr=False)
    assert c.bias_ih.stop_gradient and not c.bias_ih.numpy().any()
    w = oar.ParamAttr(initializer=oar.nn.initializer.Constant(0.5))
    s = oar.nn.SimpleRNN(3, 4, weight_hh_attr=w)
    assert (s.weight_hh_l0.numpy() == 0.5).all()


@pytest.mark.parametrize("cell", ["SimpleRNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bi", [False, True])
def test_paddle_cells_and_wrappers(cell, bi):
    rng = np.random.default_rng(2)
    co = [getattr(oar.nn, cell)(3, 4) for _ in range(2)]
    cp = [getattr(paddle.nn, cell)(3, 4) for _ in range(2)]
    for a, b in zip(co, cp):
        _copy_to_paddle(a, b)
        assert repr(a) == repr(b) and a.state_shape == b.state_shape
    wo = oar.nn.BiRNN(*co) if bi else oar.nn.RNN(co[0], is_reverse=True)
    wp = paddle.nn.BiRNN(*cp) if bi else paddle.nn.RNN(cp[0], is_reverse=True)
    assert [n for n, _ in wo.named_parameters()] == [n for n, _ in wp.named_parameters()]
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    seq = np.array([3, 5], np.int64)
    xo, xp = oar.to_tensor(x), paddle.to_tensor(x)
    xo.stop_gradient = xp.stop_gradient = False
    yo, so = wo(xo, sequence_length=oar.to_tensor(seq))
    yp, sp = wp(xp, sequence_length=paddle.to_tensor(seq))
    _close(yo, yp)
    flat_o = oar.concat([t.reshape([-1]) for t in _flatten(so)])
    flat_p = paddle.concat([t.reshape([-1]) for t in _flatten(sp)])
    _close(flat_o, flat_p)
    ((yo * yo).sum() + flat_o.sum()).backward()
    ((yp * yp).sum() + flat_p.sum()).backward()
    _close(xo.grad, xp.grad, 1e-4)
    for a, b in zip(wo.parameters(), wp.parameters()):
        _close(a.grad, b.grad, 1e-4)
    # one step of a cell
    h = rng.standard_normal((2, 4)).astype(np.float32)
    st_o = (oar.to_tensor(h), oar.to_tensor(h)) if cell == "LSTMCell" else oar.to_tensor(h)
    st_p = (paddle.to_tensor(h), paddle.to_tensor(h)) if cell == "LSTMCell" \
        else paddle.to_tensor(h)
    _close(co[0](oar.to_tensor(x[:, 0]), st_o)[0], cp[0](paddle.to_tensor(x[:, 0]), st_p)[0])


def _flatten(s):
    if isinstance(s, (tuple, list)):
        return [t for part in s for t in _flatten(part)]
    return [s]


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_paddle_bidirect_lengths_initial_states_grads_match_torch(cls):
    rng = np.random.default_rng(6)
    mo = getattr(oar.nn, cls)(4, 5, direction="bidirect")
    mt = getattr(torch.nn, cls)(4, 5, bidirectional=True)
    _copy_to_torch(mo, mt)
    x = rng.standard_normal((3, 6, 4)).astype(np.float32)
    seq = np.array([6, 2, 4], np.int64)
    h0 = rng.standard_normal((2, 3, 5)).astype(np.float32)
    io = (oar.to_tensor(h0), oar.to_tensor(h0)) if cls == "LSTM" else oar.to_tensor(h0)
    it = (torch.tensor(h0), torch.tensor(h0)) if cls == "LSTM" else torch.tensor(h0)
    yo, so = mo(oar.to_tensor(x), io, oar.to_tensor(seq))
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), seq, batch_first=True,
                                                     enforce_sorted=False)
    yt, st = mt(packed, it)
    yt = torch.nn.utils.rnn.pad_packed_sequence(yt, batch_first=True)[0]
    _close(yo, yt)
    _close(_first(so), _first(st))
    ((yo * yo).sum() + _first(so).sum()).backward()
    ((yt * yt).sum() + _first(st).sum()).backward()
    for a, b in zip(mo.parameters(), mt.parameters()):
        _close(a.grad, b.grad, 1e-4)


def test_paddle_errors():
    with pytest.raises(ValueError, match="direction"):
        oar.nn.LSTM(3, 4, direction="backward")
    with pytest.raises(ValueError, match="hidden_size"):
        oar.nn.GRUCell(3, 0)
    m = oar.nn.GRU(3, 4)
    with pytest.raises(ValueError, match="initial_states"):
        m(oar.randn([2, 5, 3]), oar.zeros([2, 2, 4]))
    with pytest.raises(ValueError):
        m(oar.randn([2, 5, 3]), sequence_length=oar.to_tensor(np.array([6, 1])))


# ---------------------------------------------------------------------------- torch door
def _copy_to_torch(mo, mt):
    assert [n for n, _ in mo.named_parameters()] == [n for n, _ in mt.named_parameters()]
    with torch.no_grad():
        for (_, po), (_, pt) in zip(mo.named_parameters(), mt.named_parameters()):
            pt.copy_(torch.from_numpy(po.detach().numpy().copy()))


TORCH_CASES = [
    ("RNN", {"nonlinearity": "relu"}),
    ("LSTM", {"num_layers": 2}),
    ("GRU", {"bidirectional": True, "num_layers": 2}),
    ("LSTM", {"proj_size": 3, "bidirectional": True}),
]


@pytest.mark.parametrize("cls,kw", TORCH_CASES)
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_torch_packed_layer_matches_torch(cls, kw, enforce_sorted):
    rng = np.random.default_rng(3)
    mo, mt = getattr(otorch.nn, cls)(4, 5, **kw), getattr(torch.nn, cls)(4, 5, **kw)
    _copy_to_torch(mo, mt)
    assert repr(mo) == repr(mt)
    lengths = [6, 4, 2] if enforce_sorted else [2, 6, 4]
    x = rng.standard_normal((3, 6, 4)).astype(np.float32)[:, :, :]   # batch-first
    x_nc = np.ascontiguousarray(x.transpose(1, 0, 2))
    k = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    h0 = rng.standard_normal((k, 3, kw.get("proj_size") or 5)).astype(np.float32)
    c0 = rng.standard_normal((k, 3, 5)).astype(np.float32)
    xo = otorch.tensor(x_nc, requires_grad=True)
    xt = torch.tensor(x_nc, requires_grad=True)
    # a non-contiguous batch-first view of the time-major leaf
    po = otorch.nn.utils.rnn.pack_padded_sequence(xo.transpose(0, 1), lengths, True,
                                                  enforce_sorted)
    pt = torch.nn.utils.rnn.pack_padded_sequence(xt.transpose(0, 1), lengths, True,
                                                 enforce_sorted)
    _close(po.data, pt.data)
    assert po.batch_sizes.tolist() == pt.batch_sizes.tolist()
    for a, b in ((po.sorted_indices, pt.sorted_indices),
                 (po.unsorted_indices, pt.unsorted_indices)):
        assert (a is None) == (b is None) and (a is None or a.tolist() == b.tolist())
    hx_o = (otorch.tensor(h0), otorch.tensor(c0)) if cls == "LSTM" else otorch.tensor(h0)
    hx_t = (torch.tensor(h0), torch.tensor(c0)) if cls == "LSTM" else torch.tensor(h0)
    yo, so = mo(po, hx_o)
    yt, st = mt(pt, hx_t)
    assert isinstance(yo, otorch.nn.utils.rnn.PackedSequence)
    _close(yo.data, yt.data)
    for a, b in zip(so if cls == "LSTM" else [so], st if cls == "LSTM" else [st]):
        _close(a, b)
    pad_o, len_o = otorch.nn.utils.rnn.pad_packed_sequence(yo, batch_first=True,
                                                           padding_value=-2.0, total_length=8)
    pad_t, len_t = torch.nn.utils.rnn.pad_packed_sequence(yt, batch_first=True,
                                                          padding_value=-2.0, total_length=8)
    _close(pad_o, pad_t)
    assert len_o.tolist() == len_t.tolist() and len_o.dtype == otorch.int64
    ((pad_o * pad_o).sum() + _first(so).sum()).backward()
    ((pad_t * pad_t).sum() + _first(st).sum()).backward()
    _close(xo.grad, xt.grad, 1e-4)
    for a, b in zip(mo.parameters(), mt.parameters()):
        _close(a.grad, b.grad, 1e-4)


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_torch_pad_unpad_pack_sequence(side, batch_first):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((n, 2, 3)).astype(np.float32) for n in (3, 5, 1)]
    so = [otorch.tensor(a, requires_grad=True) for a in arrays]
    st = [torch.tensor(a, requires_grad=True) for a in arrays]
    po = otorch.nn.utils.rnn.pad_sequence(so, batch_first, -1.0, side)
    pt = torch.nn.utils.rnn.pad_sequence(st, batch_first, -1.0, side)
    _close(po, pt)
    (po * po).sum().backward()
    (pt * pt).sum().backward()
    for a, b in zip(so, st):
        _close(a.grad, b.grad)
    if side == "right":
        uo = otorch.nn.utils.rnn.unpad_sequence(po, otorch.tensor([3, 5, 1]), batch_first)
        for u, a in zip(uo, arrays):
            np.testing.assert_array_equal(u.detach().numpy(), a)
    pk_o = otorch.nn.utils.rnn.pack_sequence(so, enforce_sorted=False)
    pk_t = torch.nn.utils.rnn.pack_sequence(st, enforce_sorted=False)
    _close(pk_o.data, pk_t.data)
    for u, a in zip(otorch.nn.utils.rnn.unpack_sequence(pk_o), arrays):
        np.testing.assert_array_equal(u.detach().numpy(), a)


def test_torch_packing_gradcheck():
    rng = np.random.default_rng(5)
    x = otorch.tensor(rng.standard_normal((4, 3, 2)), requires_grad=True)

    def fn(x):
        p = otorch.nn.utils.rnn.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        return otorch.nn.utils.rnn.pad_packed_sequence(p, padding_value=0.5)[0]
    assert otorch.autograd.gradcheck(fn, (x,))


def test_torch_packing_errors():
    rnn = otorch.nn.utils.rnn
    x = otorch.randn(4, 3, 2)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        rnn.pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(RuntimeError, match="greater than 0"):
        rnn.pack_padded_sequence(x, [4, 2, 0])
    with pytest.raises(RuntimeError, match="batch_size"):
        rnn.pack_padded_sequence(x, [4, 2])
    p = rnn.pack_padded_sequence(x, [4, 2, 1])
    with pytest.raises(ValueError, match="total_length"):
        rnn.pad_packed_sequence(p, total_length=2)
    with pytest.raises(ValueError, match="padding_side"):
        rnn.pad_sequence([x[0]], padding_side="middle")
