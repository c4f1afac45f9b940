"""cumprod(_), logcumsumexp, searchsorted, bucketize, bincount, histc, meshgrid and
unique_consecutive (oar/ops/scans.py) against torch 2.13 and paddle 3.3.1: values, dtypes,
gradients (float64, zeros included), non-contiguous inputs and errors."""
import warnings

import numpy as np
import pytest
T = pytest.importorskip("torch")

import oar
import oar.torch as torch


def both(a):
    return torch.tensor(a), T.tensor(a)


def same(o, t):
    assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-6, atol=1e-9)


def noncontig(shape, seed=0, zeros=False):
    a = np.random.default_rng(seed).uniform(-2, 2, (shape[1], shape[0]))
    if zeros:
        a[1, 0] = a[2, 1] = a[3, 1] = 0.0
    o, t = both(a)
    return o.t(), t.t()   # transposed: non-contiguous in both


@pytest.mark.parametrize("zeros", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_values_and_grad_match_torch(zeros, dim):
    o, t = noncontig((3, 5), zeros=zeros)
    assert not o.is_contiguous()
    o.requires_grad_(True)
    t.requires_grad_(True)
    g = np.random.default_rng(1).normal(size=(3, 5))
    ro, rt = torch.cumprod(o, dim), T.cumprod(t, dim)
    same(ro.detach(), rt.detach())
    ro.backward(torch.tensor(g))
    rt.backward(T.tensor(g))
    same(o.grad, t.grad)


def test_cumprod_gradcheck_float64():
    x = T.tensor([[1.5, 0.0, 2.0, 0.0], [0.5, -1.0, 3.0, 2.0]], dtype=T.float64)
    assert oar.autograd.gradcheck(lambda a: torch.cumprod(a, 1),
                                  (torch.tensor(x.numpy()).requires_grad_(),)) \
        if hasattr(oar.autograd, "gradcheck") else True
    # finite differences by hand (zeros in the input: the exact branch)
    a = x.numpy()
    o = torch.tensor(a, requires_grad=True)
    torch.cumprod(o, 1).sum().backward()
    eps, num = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        p, m = a.copy(), a.copy()
        p[i] += eps
        m[i] -= eps
        num[i] = (np.cumprod(p, 1).sum() - np.cumprod(m, 1).sum()) / (2 * eps)
    np.testing.assert_allclose(o.grad.numpy(), num, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dt", [T.int32, T.int64, T.bool, T.uint8, T.float32])
def test_cumprod_dtypes(dt):
    t = T.tensor([1, 2, 0, 3]).to(dt)
    o = torch.tensor(t.numpy())
    same(torch.cumprod(o, 0), T.cumprod(t, 0))
    same(torch.cumprod(o, 0, dtype=torch.float64), T.cumprod(t, 0, dtype=T.float64))


def test_cumprod_inplace_and_paddle():
    o, t = both([[1.0, 2.0], [3.0, 4.0]])
    v = o._version
    assert o.cumprod_(1) is o and o._version == v + 1
    same(o, t.cumprod_(1))
    import paddle
    p = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(oar.cumprod(oar.to_tensor(p.numpy())).numpy(),
                               paddle.cumprod(p).numpy())
    np.testing.assert_allclose(oar.cumprod(oar.to_tensor(p.numpy()), dim=0).numpy(),
                               paddle.cumprod(p, dim=0).numpy())
    with pytest.raises(TypeError):
        torch.cumprod(o)
    with pytest.raises(IndexError):
        torch.cumprod(o, 2)
    with pytest.raises(TypeError):
        o.cumprod_(0, dtype=torch.float64)


@pytest.mark.parametrize("dim", [0, 1])
def test_logcumsumexp_values_and_grad(dim):
    o, t = noncontig((3, 5), seed=3)
    o = (o * 50).detach().requires_grad_(True)   # large values: the stable path matters
    t = (t * 50).detach().requires_grad_(True)
    ro, rt = torch.logcumsumexp(o, dim), T.logcumsumexp(t, dim)
    same(ro.detach(), rt.detach())
    g = np.random.default_rng(2).normal(size=(3, 5))
    ro.backward(torch.tensor(g))
    rt.backward(T.tensor(g))
    np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-10)
    import paddle
    a = np.random.default_rng(4).normal(size=(3, 4)).astype("float32")
    np.testing.assert_allclose(oar.logcumsumexp(oar.to_tensor(a), axis=1).numpy(),
                               paddle.logcumsumexp(paddle.to_tensor(a), axis=1).numpy(),
                               rtol=1e-6)
    with pytest.raises(NotImplementedError):
        torch.logcumsumexp(torch.tensor([1, 2]), 0)


def test_searchsorted_and_bucketize_match_torch():
    seq = [[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 8.0]]
    vals = [[3.0, 6.0, 9.0], [1.0, 4.0, 8.0]]
    so, st = both(seq)
    vo, vt = both(vals)
    for kw in ({}, dict(right=True), dict(side="right"), dict(out_int32=True)):
        same(torch.searchsorted(so, vo, **kw), T.searchsorted(st, vt, **kw))
        same(torch.searchsorted(so[0], vo.t(), **kw), T.searchsorted(st[0], vt.t(), **kw))
    srt = T.tensor([2, 0, 3, 1])
    us = T.tensor([5.0, 1.0, 7.0, 3.0])
    same(torch.searchsorted(torch.tensor(us.numpy()), torch.tensor(vals[0]),
                            sorter=torch.tensor(srt.numpy())),
         T.searchsorted(us, T.tensor(vals[0]), sorter=srt))
    for kw in ({}, dict(right=True), dict(out_int32=True)):
        same(torch.bucketize(vo.t(), so[0], **kw), T.bucketize(vt.t(), st[0], **kw))
    with pytest.raises(RuntimeError):
        torch.searchsorted(so, vo, right=True, side="left")
    with pytest.raises(RuntimeError):
        torch.searchsorted(so, torch.tensor([1.0]))
    with pytest.raises(RuntimeError):
        torch.bucketize(vo, so)
    import paddle
    np.testing.assert_array_equal(
        oar.searchsorted(oar.to_tensor(seq), oar.to_tensor(vals), right=True).numpy(),
        paddle.searchsorted(paddle.to_tensor(seq), paddle.to_tensor(vals), right=True).numpy())
    np.testing.assert_array_equal(
        oar.bucketize(oar.to_tensor(vals), oar.to_tensor(seq[0])).numpy(),
        paddle.bucketize(paddle.to_tensor(vals), paddle.to_tensor(seq[0])).numpy())


def test_bincount_and_histc_match_torch():
    x = [1, 1, 4, 0, 4, 4]
    xo, xt = both(x)
    same(torch.bincount(xo), T.bincount(xt))
    same(torch.bincount(xo, minlength=8), T.bincount(xt, minlength=8))
    for w in (T.arange(6.0), T.arange(6.0, dtype=T.float64), T.arange(6)):
        same(torch.bincount(xo, torch.tensor(w.numpy())), T.bincount(xt, w))
    same(xo[::2].bincount(), xt[::2].bincount())
    for bad in (torch.tensor([-1, 2]), torch.tensor([[1, 2]]), torch.tensor([1.0])):
        with pytest.raises(RuntimeError):
            torch.bincount(bad)
    import paddle
    np.testing.assert_array_equal(oar.bincount(oar.to_tensor(x), minlength=7).numpy(),
                                  paddle.bincount(paddle.to_tensor(x), minlength=7).numpy())
    a = np.random.default_rng(5).normal(size=(4, 6))
    ao, at = both(a)
    for kw in ({}, dict(bins=7), dict(bins=5, min=-1, max=1)):
        same(torch.histc(ao.t(), **kw), T.histc(at.t(), **kw))
        same(torch.histc(ao.float(), **kw), T.histc(at.float(), **kw))
    with pytest.raises(NotImplementedError):
        torch.histc(xo)
    with pytest.raises(RuntimeError):
        torch.histc(ao, min=2, max=1)
    with pytest.raises(RuntimeError):
        torch.histc(ao, bins=0)


def test_meshgrid_match_torch_and_paddle():
    a, b = [1.0, 2.0], [3.0, 4.0, 5.0]
    (ao, at), (bo, bt) = both(a), both(b)
    for ix in ("ij", "xy"):
        for o, t in zip(torch.meshgrid(ao, bo, indexing=ix), T.meshgrid(at, bt, indexing=ix)):
            same(o, t)
    ao.requires_grad_(True)
    gx, gy = torch.meshgrid(ao, bo, indexing="xy")
    (gx * gy).sum().backward()
    at.requires_grad_(True)
    tx, ty = T.meshgrid(at, bt, indexing="xy")
    (tx * ty).sum().backward()
    same(ao.grad, at.grad)
    import oar.torch._functions as F
    F._MESHGRID_WARNED[0] = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.meshgrid(ao, bo)
        torch.meshgrid([ao, bo])
    assert len([m for m in w if "indexing" in str(m.message)]) == 1   # once, as torch
    import paddle
    for o, p in zip(oar.meshgrid(oar.to_tensor(a), oar.to_tensor(b)),
                    paddle.meshgrid(paddle.to_tensor(a), paddle.to_tensor(b))):
        np.testing.assert_array_equal(o.numpy(), p.numpy())
    with pytest.raises(RuntimeError):
        torch.meshgrid(torch.ones(2, 2), bo, indexing="ij")
    with pytest.raises(RuntimeError):
        torch.meshgrid(ao, bo, indexing="ji")


def test_unique_consecutive_match_torch_and_paddle():
    x = [[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]]
    xo, xt = both(x)
    for kw in ({}, dict(return_inverse=True), dict(return_counts=True),
               dict(return_inverse=True, return_counts=True, dim=0),
               dict(return_counts=True, dim=1)):
        ro, rt = torch.unique_consecutive(xo, **kw), T.unique_consecutive(xt, **kw)
        ro, rt = (ro, rt) if isinstance(rt, tuple) else ((ro,), (rt,))
        for o, t in zip(ro, rt):
            same(o, t)
    ro = xo.t().unique_consecutive(return_counts=True, dim=0)
    rt = xt.t().unique_consecutive(return_counts=True, dim=0)
    for o, t in zip(ro, rt):
        same(o, t)
    import paddle
    po = oar.unique_consecutive(oar.to_tensor(x), True, True, axis=1, dtype="int32")
    pp = paddle.unique_consecutive(paddle.to_tensor(x), True, True, axis=1, dtype="int32")
    for o, p in zip(po, pp):
        np.testing.assert_array_equal(o.numpy(), p.numpy())
        assert str(o.dtype) == str(p.dtype)
    with pytest.raises(IndexError):
        torch.unique_consecutive(xo, dim=3)


def test_empty_rows_as_torch():
    """searchsorted over 0 rows and unique_consecutive along a size-0 dim: empty results, as
    torch (NumPy's reshape(-1, 0) would leak a ValueError); a size-0 dim that is not the one
    selected is refused as torch refuses it."""
    import oar.torch as ot
    torch = pytest.importorskip("torch")
    for m in (torch, ot):
        r = m.searchsorted(m.zeros(0, 0), m.zeros(0, 0))
        assert tuple(r.shape) == (0, 0) and str(r.dtype).endswith("int64")
        u, inv, cnt = m.unique_consecutive(m.zeros(5, 0, 5), return_inverse=True,
                                           return_counts=True, dim=1)
        assert tuple(u.shape) == (5, 0, 5) and tuple(inv.shape) == (0,) == tuple(cnt.shape)
        with pytest.raises(RuntimeError, match="0 sized dimensions"):
            m.unique_consecutive(m.zeros(5, 0, 5), dim=0)


def test_integer_add_products_truncate_beta_and_alpha_as_torch():
    import oar.torch as ot
    torch = pytest.importorskip("torch")
    out = []
    for m in (torch, ot):
        i, a, v = m.arange(5), m.ones(5, 10, dtype=m.int64) * 3, m.arange(10)
        out.append([m.addmv(i, a, v, beta=b, alpha=al).tolist()
                    for b, al in ((0.2, 0.6), (1.7, 2.6), (-1.7, 1))])
    assert out[0] == out[1]
