"""The conv2d and max_pool2d kernels' fast paths (Note [Conv layouts], Note [Max-pool
backward]) against PyTorch: each layout on every geometry, and for each condition of the
max-pool write a case that is wrong without it."""
import numpy as np
import pytest

import oar
from oar.nn import _kernels as K
from oar.nn import functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# (x shape, weight shape, stride, padding, dilation)
CONV_CASES = [
    ((4, 1, 8, 8), (16, 1, 3, 3), (1, 1), (1, 1), (1, 1)),      # the main job's first conv
    ((4, 16, 4, 4), (32, 16, 3, 3), (1, 1), (1, 1), (1, 1)),    # ... and its second
    ((3, 4, 11, 9), (5, 4, 3, 2), (2, 3), (1, 2), (2, 1)),
    ((2, 8, 5, 6), (3, 8, 2, 3), (1, 2), (0, 1), (1, 2)),
    ((2, 1, 9, 9), (2, 1, 3, 3), (2, 2), (2, 0), (1, 1)),
    ((2, 3, 7, 7), (4, 3, 1, 1), (1, 1), (0, 0), (1, 1)),
    ((1, 5, 6, 4), (2, 5, 4, 4), (3, 1), (1, 1), (1, 1)),
]


def _tensor(a, grad=True):
    t = oar.to_tensor(a)
    t.stop_gradient = not grad
    return t


def _conv_both(monkeypatch, case, layout, dtype, bias=True, x_grad=True):
    xs, ws, st, pd, dl = case
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(dtype) for s in (xs, ws, (ws[0],)))
    monkeypatch.setattr(K, "_channels_last", lambda *a: layout == "nhwc")
    ox, ow_, ob = _tensor(x, x_grad), _tensor(w), _tensor(b)
    out = F.conv2d(ox, ow_, ob if bias else None, stride=st, padding=pd, dilation=dl)
    g = rng.standard_normal(out.shape).astype(dtype)
    out.backward(oar.to_tensor(g))
    tx, tw, tb = (torch.from_numpy(a.astype(np.float64)).requires_grad_() for a in (x, w, b))
    tout = TF.conv2d(tx, tw, tb if bias else None, st, pd, dl)
    tout.backward(torch.from_numpy(g.astype(np.float64)))
    pairs = [(out, tout), (ow_.grad, tw.grad)]
    if x_grad:
        pairs.append((ox.grad, tx.grad))
    else:
        assert ox.grad is None
    if bias:
        pairs.append((ob.grad, tb.grad))
    else:
        assert ob.grad is None
    return pairs


@pytest.mark.parametrize("case", CONV_CASES, ids=str)
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_conv_layouts_match_torch(monkeypatch, case, layout):
    # Note [Conv layouts]: either layout is right for every geometry (the choice is speed)
    for mine, ref in _conv_both(monkeypatch, case, layout, np.float64):
        assert mine.numpy().dtype == np.float64 and mine.numpy().flags.c_contiguous
        np.testing.assert_allclose(mine.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("bias,x_grad", [(False, True), (True, False)])
def test_conv_layouts_float32_and_partial_grads(monkeypatch, layout, bias, x_grad):
    for case in CONV_CASES[:3]:
        for mine, ref in _conv_both(monkeypatch, case, layout, np.float32, bias, x_grad):
            assert mine.numpy().dtype == np.float32      # never silently float64
            np.testing.assert_allclose(mine.numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-4)


def test_conv_layout_choice():
    # the main job's two convs take one layout each (so both are exercised by training)
    assert not K._channels_last(1, 3, 1, 8)       # 1 channel: rows of OW are longer
    assert K._channels_last(16, 3, 1, 4)          # 16 channels: runs of kw*C are longer
    assert not K._channels_last(4, 3, 2, 8)       # dilated along W: runs of C only
    assert not K._channels_last(16, 3, 1, 32)     # runs of 48 vs rows of 32: not twice
    assert K._channels_last(16, 3, 1, 16)         # runs of 48 vs rows of 16


def _nan_empty(monkeypatch):
    """np.empty that returns NaN-filled memory: a kernel that leaves any element unwritten
    is caught deterministically."""
    real = np.empty

    def empty(shape, dtype=float, *a, **k):
        out = real(shape, dtype, *a, **k)
        if np.dtype(out.dtype).kind == "f":
            out.fill(np.nan)
        return out
    monkeypatch.setattr(np, "empty", empty)


def _pool_vs_torch(x, k, s=None, p=0, exact=True):
    ox = _tensor(x)
    out = F.max_pool2d(ox, k, s, p)
    g = np.random.default_rng(1).standard_normal(out.shape).astype(x.dtype)
    out.backward(oar.to_tensor(g))
    tx = torch.from_numpy(x.copy()).requires_grad_()
    tout = TF.max_pool2d(tx, k, s, p)
    tout.backward(torch.from_numpy(g))
    assert out.numpy().flags.c_contiguous and ox.grad.numpy().dtype == x.dtype
    np.testing.assert_array_equal(out.numpy(), tout.detach().numpy())
    if exact:      # disjoint windows: each gradient element is one ga value, bit for bit
        np.testing.assert_array_equal(ox.grad.numpy(), tx.grad.numpy())
    else:          # overlapping windows sum in another order
        np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)
    return ox.grad.numpy()


def _ties(shape, seed=0):
    """ReLU-like input: many windows of equal maxima (zeros), some repeated positives."""
    rng = np.random.default_rng(seed)
    x = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
    x[..., ::3, :] = np.round(x[..., ::3, :])
    return x


def test_max_pool_tiling_path_first_maximum(monkeypatch):
    # stride == kernel, sizes divisible: every element written once, into np.empty
    _nan_empty(monkeypatch)
    x = _ties((3, 4, 8, 6))
    gx = _pool_vs_torch(x, 2)
    assert np.isfinite(gx).all()
    _pool_vs_torch(np.zeros((1, 1, 4, 4), np.float32), 2)        # all ties: the first
    _pool_vs_torch(_ties((2, 3, 6, 6), 1), (3, 2))
    # padding that the windows still tile exactly (the padded size is divisible)
    _pool_vs_torch(_ties((2, 2, 6, 6), 2), 2, 2, 1)


def test_max_pool_remainder_rows_are_zero(monkeypatch):
    # stride == kernel but the size is not divisible: the last row/column is in no window,
    # so it must be zero (fails if np.empty were used without the size condition)
    _nan_empty(monkeypatch)
    gx = _pool_vs_torch(_ties((2, 3, 7, 9)), 2)
    assert (gx[:, :, 6, :] == 0).all() and (gx[:, :, :, 8] == 0).all()
    _pool_vs_torch(_ties((2, 3, 7, 7), 3), 2, 2, 1)              # padded size 9, odd


def test_max_pool_gaps_are_zero(monkeypatch):
    # stride > kernel: disjoint windows with gaps between them (needs zeros, not empty)
    _nan_empty(monkeypatch)
    gx = _pool_vs_torch(_ties((2, 2, 8, 8)), 2, 3)
    assert (gx[:, :, 2, :] == 0).all()
    _pool_vs_torch(_ties((2, 2, 9, 8)), (2, 2), (3, 2))


def test_max_pool_overlapping_windows_accumulate(monkeypatch):
    # stride < kernel: an element that is the maximum of several windows gets the sum of
    # their gradients (an assignment would keep one of them)
    _nan_empty(monkeypatch)
    x = np.zeros((1, 1, 5, 5), np.float32)
    x[0, 0, 2, 2] = 7.0                          # in all four 3x3 windows at stride 2
    gx = _pool_vs_torch(x, 3, 2, exact=False)
    assert gx[0, 0, 2, 2] != 0 and np.count_nonzero(gx) == 1
    _pool_vs_torch(_ties((2, 3, 9, 8)), 3, 2, 1, exact=False)
    _pool_vs_torch(_ties((2, 3, 9, 8), 4), (3, 2), (2, 2), exact=False)   # overlap along H only
    _pool_vs_torch(_ties((2, 3, 8, 9), 5), (2, 3), (2, 2), exact=False)   # ... along W only
    # 2 windows of 3 at stride 2 span 5 of 6 rows: 2 * 3 == 6, yet they do not tile
    gx = _pool_vs_torch(_ties((2, 3, 6, 6), 6), 3, 2, exact=False)
    assert (gx[:, :, 5, :] == 0).all()


@pytest.mark.parametrize("k,s", [(2, 2), (3, 2)])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_max_pool_gradient_selects_bits(k, s, dtype):
    # the write selects g's bits (Note [Max-pool backward]): inf and nan stay at the window's
    # maximum only, the other elements are +0.0 (a 0/1 float mask times g would give nan
    # and -0.0 there), as PyTorch's scatter does
    x = _ties((2, 2, 6, 6)).astype(dtype)
    ox = _tensor(x)
    out = F.max_pool2d(ox, k, s)
    g = np.random.default_rng(2).standard_normal(out.shape).astype(dtype)
    g.reshape(-1)[:5] = [np.inf, -np.inf, np.nan, -0.0, -3.0]
    out.backward(oar.to_tensor(g))
    tx = torch.from_numpy(x.copy()).requires_grad_()
    TF.max_pool2d(tx, k, s).backward(torch.from_numpy(g))
    mine, ref = ox.grad.numpy(), tx.grad.numpy()
    assert mine.dtype == dtype
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(ref))
    np.testing.assert_array_equal(np.signbit(mine), np.signbit(ref))
    np.testing.assert_allclose(mine, ref, rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
@pytest.mark.parametrize("padding", [0, 1])
def test_conv_strided_input_and_empty_batch(monkeypatch, layout, padding):
    # a non-contiguous input (the window view falls back to as_strided when unpadded) and
    # an empty batch
    monkeypatch.setattr(K, "_channels_last", lambda *a: layout == "nhwc")
    rng = np.random.default_rng(3)
    base = rng.standard_normal((2, 3, 9, 10))
    w = rng.standard_normal((4, 3, 3, 3))
    ox = _tensor(base)[:, :, ::2, 1:]
    ow_ = _tensor(w)
    out = F.conv2d(ox, ow_, padding=padding)
    out.sum().backward()
    tb = torch.from_numpy(base).requires_grad_()
    tw = torch.from_numpy(w).requires_grad_()
    tout = TF.conv2d(tb[:, :, ::2, 1:], tw, padding=padding)
    tout.sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ow_.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-10)
    empty = _tensor(np.zeros((0, 3, 5, 5)))
    e = F.conv2d(empty, ow_, padding=padding)
    assert e.shape == [0, 4, 5 - 2 + 2 * padding, 5 - 2 + 2 * padding]
    e.sum().backward()
    assert empty.grad.shape == [0, 3, 5, 5]


# Note [Conv in chunks]: the channels-last forward and weight gradient build their columns a
# few images at a time; these cases force several chunks, one of them short.
@pytest.mark.parametrize("case", [CONV_CASES[1], CONV_CASES[2], CONV_CASES[3]], ids=str)
@pytest.mark.parametrize("chunk_images", [1, 2, 3])
@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_conv_chunks_match_torch(monkeypatch, case, chunk_images, layout):
    xs, ws, st, pd, dl = case
    xs = (5,) + xs[1:]                       # 5 images: chunks of 2 leave one of 1
    x = _tensor(np.zeros(xs))
    geom = K._conv_geom(x.numpy(), np.zeros(ws), st, pd, dl)
    per_image = geom[8] * geom[9] * ws[1] * ws[2] * ws[3] * 8
    monkeypatch.setattr(K, "_CHUNK_BYTES", per_image * chunk_images)
    chunks = K._image_chunks(5, per_image)
    assert [s.stop - s.start for s in chunks][:-1] == [chunk_images] * (len(chunks) - 1)
    assert sum(s.stop - s.start for s in chunks) == 5
    for mine, ref in _conv_both(monkeypatch, (xs, ws, st, pd, dl), layout, np.float64):
        assert mine.numpy().flags.c_contiguous
        np.testing.assert_allclose(mine.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-10)


def test_conv_chunks_of_empty_batch():
    assert K._image_chunks(0, 100) == [slice(0, 0)]       # one empty chunk, not none
    assert K._image_chunks(3, 0) == [slice(0, 3)]


@pytest.mark.parametrize("c,hw,layout", [(32, 16, "nhwc"), (16, 32, "nchw")])
def test_conv_columns_scratch_is_one_chunk(c, hw, layout):
    # the NumPy scratch (tracemalloc: every array) of the forward and of the weight gradient
    # stays near one chunk of columns plus the padded input and two outputs' worth; the
    # whole column matrix (9x the input) would not
    import tracemalloc
    rng = np.random.default_rng(4)
    x = rng.standard_normal((16, c, hw, hw)).astype(np.float32)
    w = rng.standard_normal((32, c, 3, 3)).astype(np.float32)
    assert K._channels_last(c, 3, 1, hw) == (layout == "nhwc")
    whole_cols = 9 * x.nbytes
    g = np.ones((16, 32, hw, hw), np.float32)
    for run in (lambda: K._k_conv(x, w, None, (1, 1), (1, 1), (1, 1)),
                lambda: K._conv_backward(x, w, g, (False, True, False), x.shape, x.dtype,
                                         w.shape, (1, 1), (1, 1), (1, 1), 1)):
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            run()
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        padded = 16 * c * (hw + 2) ** 2 * 4
        assert peak <= K._CHUNK_BYTES + padded + 2 * g.nbytes, (peak, whole_cols)
        assert peak < whole_cols


def test_conv3d_chunks_match_torch(monkeypatch):
    # the N-d forward and weight gradient take the same chunks (Note [N-d convolution])
    monkeypatch.setattr(K, "_CHUNK_BYTES", 1)        # one image per chunk
    rng = np.random.default_rng(5)
    x, w, b = (rng.standard_normal(s) for s in ((3, 2, 5, 4, 6), (4, 2, 2, 3, 2), (4,)))
    ox, ow_, ob = _tensor(x), _tensor(w), _tensor(b)
    out = F.conv3d(ox, ow_, ob, stride=(1, 2, 1), padding=(1, 0, 1), dilation=(2, 1, 1))
    g = rng.standard_normal(out.shape)
    out.backward(oar.to_tensor(g))
    tx, tw, tb = (torch.from_numpy(a).requires_grad_() for a in (x, w, b))
    tout = TF.conv3d(tx, tw, tb, (1, 2, 1), (1, 0, 1), (2, 1, 1))
    tout.backward(torch.from_numpy(g))
    for mine, ref in ((out, tout), (ox.grad, tx.grad), (ow_.grad, tw.grad), (ob.grad, tb.grad)):
        np.testing.assert_allclose(mine.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_conv_chunks_gradcheck_float64(monkeypatch, layout):
    # finite differences, one image per chunk in either layout (Note [Conv in chunks])
    import oar.torch as ot
    from oar.torch.autograd import gradcheck
    monkeypatch.setattr(K, "_channels_last", lambda *a: layout == "nhwc")
    monkeypatch.setattr(K, "_CHUNK_BYTES", 1)
    rng = np.random.default_rng(6)
    args = [ot.tensor(rng.standard_normal(s)).requires_grad_()
            for s in ((3, 2, 5, 4), (3, 2, 3, 2), (3,))]
    assert gradcheck(lambda x, w, b: ot.nn.functional.conv2d(x, w, b, 1, (1, 0), (1, 2)),
                     args)
