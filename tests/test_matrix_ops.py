"""diag, diagflat, trace, outer, kron, cross, addmv, addbmm, baddbmm (oar/ops/linalg.py):
values against torch 2.13 (both doors), float64 gradients against finite differences,
non-contiguous inputs, the in-place add-products, and Paddle's own spellings."""
import numpy as np
import pytest
torch = pytest.importorskip("torch")

import oar
import oar.torch as ot
from oar.autograd import gradcheck

R = np.random.default_rng(21)





def _noncontig(a, grad):
    """An oar.torch tensor with a's values whose own layout is strided (a view of a wider one)."""
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],)) if a.ndim else None
    if wide is None:
        return ot.tensor(a, requires_grad=grad)
    wide[..., ::2] = a
    t = ot.tensor(wide)[..., ::2]
    return t.detach().requires_grad_(grad) if grad else t


CASES = [
    ("diag", lambda t, a: t.diag(a[0]), [(4,)]),
    ("diag", lambda t, a: t.diag(a[0], 2), [(4,)]),
    ("diag", lambda t, a: t.diag(a[0], -1), [(3, 5)]),
    ("diag", lambda t, a: t.diag(a[0], diagonal=1), [(5, 3)]),
    ("diagflat", lambda t, a: t.diagflat(a[0], 1), [(2, 3)]),
    ("trace", lambda t, a: t.trace(a[0]), [(3, 5)]),
    ("outer", lambda t, a: t.outer(a[0], a[1]), [(4,), (3,)]),
    ("kron", lambda t, a: t.kron(a[0], a[1]), [(2, 3), (3,)]),
    ("cross", lambda t, a: t.cross(a[0], a[1], dim=1), [(4, 3), (4, 3)]),
    ("cross", lambda t, a: t.cross(a[0], a[1], dim=0), [(3, 2), (3, 2)]),
    ("addmv", lambda t, a: t.addmv(a[0], a[1], a[2], beta=0.5, alpha=2), [(3,), (3, 4), (4,)]),
    ("addmv", lambda t, a: t.addmv(a[0], a[1], a[2]), [(1,), (3, 4), (4,)]),
    ("addbmm", lambda t, a: t.addbmm(a[0], a[1], a[2], beta=2, alpha=-1), [(3, 5), (2, 3, 4), (2, 4, 5)]),
    ("baddbmm", lambda t, a: t.baddbmm(a[0], a[1], a[2], beta=0.5, alpha=3), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("baddbmm", lambda t, a: t.baddbmm(a[0], a[1], a[2]), [(5,), (2, 3, 4), (2, 4, 5)]),
]


@pytest.mark.parametrize("name,f,shapes", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_and_gradients_match_torch(name, f, shapes):
    arrays = [R.standard_normal(s) for s in shapes]
    ours = [_noncontig(a, True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = f(ot, ours), f(torch, theirs)
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    w = R.standard_normal(tuple(ref.shape))
    (out * ot.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda *xs: f(ot, xs), [_noncontig(a, True) for a in arrays])


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_dtypes_match_torch(dtype):
    a = ot.tensor(np.arange(12).reshape(3, 4)).to(getattr(ot, dtype))
    b = torch.arange(12).reshape(3, 4).to(getattr(torch, dtype))
    for fn in (lambda t, x: t.trace(x), lambda t, x: t.diag(x, 1), lambda t, x: t.kron(x, x),
               lambda t, x: t.outer(x[0], x[1]), lambda t, x: t.diagflat(x)):
        o, r = fn(ot, a), fn(torch, b)
        assert str(o.dtype) == str(r.dtype)
        np.testing.assert_array_equal(o.numpy(), r.numpy())


@pytest.mark.parametrize("name,shapes", [("addmv", [(3,), (3, 4), (4,)]),
                                         ("addbmm", [(3, 5), (2, 3, 4), (2, 4, 5)]),
                                         ("baddbmm", [(2, 3, 5), (2, 3, 4), (2, 4, 5)])])
def test_beta_zero_ignores_nan_and_inplace(name, shapes):
    arrays = [R.standard_normal(s) for s in shapes]
    arrays[0][...] = np.nan
    ref = getattr(torch, name)(*map(torch.tensor, arrays), beta=0, alpha=2)
    out = getattr(ot, name)(*map(ot.tensor, arrays), beta=0, alpha=2)
    assert not np.isnan(out.numpy()).any()
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    # in place: function and method, same object and storage, one version bump
    for spell in ("function", "method"):
        x = ot.tensor(arrays[0].copy())
        v, ptr = x._version, x.data_ptr()
        y = getattr(ot, name + "_")(x, *map(ot.tensor, arrays[1:]), beta=0, alpha=2) \
            if spell == "function" else getattr(x, name + "_")(*map(ot.tensor, arrays[1:]), beta=0, alpha=2)
        assert y is x and x._version == v + 1 and x.data_ptr() == ptr
        np.testing.assert_allclose(x.numpy(), ref.numpy(), rtol=1e-12)


def test_inplace_on_non_leaf_gradient():
    i, m, v = (R.standard_normal(s) for s in [(3,), (3, 4), (4,)])
    ti, tm, tv = (torch.tensor(a, requires_grad=True) for a in (i, m, v))
    oi, om, ov = (ot.tensor(a, requires_grad=True) for a in (i, m, v))
    (ti * 2).addmv_(tm, tv, beta=3).sum().backward()
    (oi * 2).addmv_(om, ov, beta=3).sum().backward()
    for o, t in ((oi, ti), (om, tm), (ov, tv)):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_bad_inplace_changes_nothing():
    x = ot.zeros(3, 5)
    v = x._version
    with pytest.raises(RuntimeError):
        x.addbmm_(ot.ones(2, 3, 4), ot.ones(2, 5, 4))
    with pytest.raises(RuntimeError):
        ot.zeros(1, 5).addbmm_(ot.ones(2, 3, 4), ot.ones(2, 4, 5))   # oar refuses; torch resizes self
    assert x._version == v and not x.numpy().any()


def test_paddle_spellings():
    a = R.standard_normal((4, 3))
    b = R.standard_normal((4, 3))
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    np.testing.assert_allclose(oar.cross(x, y).numpy(), np.cross(a, b))   # axis=9: first dim of size 3
    np.testing.assert_allclose(oar.cross(x, y, axis=1).numpy(), np.cross(a, b))
    np.testing.assert_allclose(x.diag(offset=1).numpy(), np.diagonal(a, 1))
    d = oar.diag(oar.to_tensor(a[:, 0]), offset=1, padding_value=7).numpy()
    ref = np.full((5, 5), 7.0)
    ref[np.arange(4), np.arange(1, 5)] = a[:, 0]
    np.testing.assert_allclose(d, ref)
    t3 = R.standard_normal((2, 3, 4))
    np.testing.assert_allclose(oar.trace(oar.to_tensor(t3), offset=1, axis1=1, axis2=2).numpy(),
                               np.trace(t3, 1, 1, 2))
    xg = oar.to_tensor(t3, stop_gradient=False)
    assert gradcheck(lambda t: oar.trace(t, offset=-1, axis1=2, axis2=0), [xg])
    np.testing.assert_allclose(oar.outer(oar.to_tensor(a[:, 0]), oar.to_tensor(b[0])).numpy(),
                               np.outer(a[:, 0], b[0]))
    np.testing.assert_allclose(oar.kron(x, y).numpy(), np.kron(a, b))
    i, b1, b2 = R.standard_normal((3, 5)), R.standard_normal((2, 3, 4)), R.standard_normal((2, 4, 5))
    np.testing.assert_allclose(
        oar.baddbmm(oar.to_tensor(i), oar.to_tensor(b1), oar.to_tensor(b2), beta=2.0, alpha=0.5).numpy(),
        2 * i + 0.5 * b1 @ b2)


@pytest.mark.parametrize("call", [
    lambda t: t.diag(t.ones(2, 2, 2)),
    lambda t: t.trace(t.ones(3)),
    lambda t: t.outer(t.ones(2, 2), t.ones(2)),
    lambda t: t.cross(t.ones(4, 3), t.ones(4, 2), dim=1),
    lambda t: t.addmv(t.ones(3), t.ones(3, 4), t.ones(5)),
    lambda t: t.addmv(t.ones(3, dtype=t.float64), t.ones(3, 4), t.ones(4)),
    lambda t: t.baddbmm(t.ones(2, 3, 5), t.ones(3, 4), t.ones(2, 4, 5)),
    lambda t: t.addbmm(t.ones(4, 5), t.ones(2, 3, 4), t.ones(2, 4, 5)),
])
def test_bad_inputs_raise_as_torch(call):
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError):
        call(ot)


def test_inplace_on_leaf_that_requires_grad_is_refused():
    for shape, f in (((3,), lambda x: x.addmv_(ot.ones(3, 4), ot.ones(4))),
                     ((3,), lambda x: ot.addmv_(x, ot.ones(3, 4), ot.ones(4))),
                     ((3, 3), lambda x: x.addbmm_(ot.ones(2, 3, 4), ot.ones(2, 4, 3))),
                     ((3, 3), lambda x: oar.addbmm_(x, ot.ones(2, 3, 4), ot.ones(2, 4, 3)))):
        x = ot.ones(*shape)
        x.requires_grad_()
        with pytest.raises(RuntimeError):
            f(x)
        assert x._version == 0 and (x.detach().numpy() == 1).all()
    x = ot.ones(2, 3, 3, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.baddbmm_(ot.ones(2, 3, 4), ot.ones(2, 4, 3))
    with pytest.raises(RuntimeError):
        torch.ones(2, 3, 3, requires_grad=True).baddbmm_(torch.ones(2, 3, 4), torch.ones(2, 4, 3))
