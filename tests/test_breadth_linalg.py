"""Decompositions and solvers (oar/ops/decomp.py) in both doors: torch.linalg.* and the
top-level torch spellings against torch 2.13, paddle.linalg.* against paddle 3.3.1, gradients
by float64 gradcheck on the inputs torch's own OpInfo samples use (symmetric / positive-
definite / well-conditioned), errors and their classes, non-contiguous and batched inputs."""
import numpy as np
import pytest

import oar
import oar.torch as T
from oar.autograd.gradcheck import gradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def well(*shape):
    """Well-conditioned square matrices: random plus a dominant diagonal."""
    a = RNG.standard_normal(shape)
    return a + shape[-1] * np.eye(shape[-1])


def spd(*shape):
    a = RNG.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def noncontig(a):
    """A non-contiguous tensor of a's values (a transposed view of the transpose)."""
    return T.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)


def both(a, rg=False):
    x = T.tensor(a, requires_grad=rg)
    y = torch.tensor(a, requires_grad=rg)
    return x, y


def close(a, b, tol=1e-10):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ------------------------------------------------------------------ values against torch
VALUE_CASES = [
    ("inv", lambda: [well(3, 4, 4)], {}),
    ("det", lambda: [well(2, 3, 3)], {}),
    ("slogdet", lambda: [well(2, 3, 3) * np.array([1, -1, 1])], {}),
    ("solve", lambda: [well(2, 3, 3), RNG.standard_normal((2, 3, 2))], {}),
    ("solve", lambda: [well(2, 3, 3), RNG.standard_normal((2, 3))], {}),   # batch of vectors
    ("solve", lambda: [well(2, 3, 3), RNG.standard_normal(3)], {}),        # one vector
    ("solve", lambda: [well(3, 3), RNG.standard_normal((4, 3, 2))], {}),   # broadcast A
    ("solve", lambda: [well(2, 3, 3), RNG.standard_normal((2, 4, 3))], {"left": False}),
    ("cholesky", lambda: [spd(2, 4, 4)], {}),
    ("cholesky", lambda: [spd(4, 4)], {"upper": True}),
    ("qr", lambda: [RNG.standard_normal((2, 5, 3))], {}),
    ("qr", lambda: [RNG.standard_normal((3, 5))], {"mode": "complete"}),
    ("qr", lambda: [RNG.standard_normal((5, 3))], {"mode": "r"}),
    ("svdvals", lambda: [RNG.standard_normal((2, 4, 3))], {}),
    ("eigvalsh", lambda: [spd(2, 4, 4)], {}),
    ("eigvalsh", lambda: [RNG.standard_normal((4, 4))], {"UPLO": "U"}),
    ("pinv", lambda: [RNG.standard_normal((2, 5, 3))], {}),
    ("pinv", lambda: [spd(4, 4)], {"hermitian": True}),
    ("pinv", lambda: [np.diag([3.0, 1e-3, 0.0])], {"atol": 1e-2}),
    ("matrix_rank", lambda: [np.diag([3.0, 1e-3, 0.0])], {}),
    ("matrix_rank", lambda: [np.diag([3.0, 1e-3, 0.0])], {"rtol": 1e-2}),
    ("matrix_rank", lambda: [RNG.standard_normal((2, 4, 3))], {"atol": 0.5}),
]


@pytest.mark.parametrize("name,make,kw", VALUE_CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_linalg_values_match_torch(name, make, kw):
    arrays = make()
    ours = getattr(T.linalg, name)(*[noncontig(a) if a.ndim >= 2 else T.tensor(a) for a in arrays], **kw)
    theirs = getattr(torch.linalg, name)(*[torch.tensor(a) for a in arrays], **kw)
    if isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__
        assert ours._fields == tuple(theirs._fields) if hasattr(theirs, "_fields") else True
        for o, t in zip(ours, theirs):
            close(o, t)
    else:
        close(ours, theirs)
        assert ours.dtype.name == str(theirs.dtype).split(".")[1].replace("int64", "int64")


def test_svd_eigh_gauge_invariant_values():
    a = RNG.standard_normal((2, 5, 3))
    for fm in (True, False):
        u, s, vh = T.linalg.svd(T.tensor(a), full_matrices=fm)
        tu, ts, tvh = torch.linalg.svd(torch.tensor(a), full_matrices=fm)
        assert tuple(u.shape) == tuple(tu.shape) and tuple(vh.shape) == tuple(tvh.shape)
        close(s, ts)
        k = 3
        close((u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :], a)
    w, v = T.linalg.eigh(T.tensor(spd(3, 3)))
    close(v @ T.diag_embed(w) @ v.mT if hasattr(T, "diag_embed") else v.numpy() @ np.diag(w.numpy())
          @ v.numpy().T, v.numpy() @ np.diag(w.numpy()) @ v.numpy().T)


def test_lstsq_matches_torch_per_driver():
    for shape_a, shape_b in (((5, 3), (5, 2)), ((2, 5, 3), (2, 5, 2)), ((3, 5), (3, 2))):
        a, b = RNG.standard_normal(shape_a), RNG.standard_normal(shape_b)
        for driver in ("gels", "gelsy", "gelsd", "gelss"):
            ours = T.linalg.lstsq(T.tensor(a), T.tensor(b), driver=driver)
            theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
            assert ours._fields == ("solution", "residuals", "rank", "singular_values")
            for o, t in zip(ours, theirs):
                close(o, t, 1e-8)


def test_top_level_torch_spellings():
    a = well(2, 3, 3)
    m = RNG.standard_normal((5, 3))
    x, y = both(a)
    close(T.inverse(x), torch.inverse(y))
    close(x.inverse(), y.inverse())
    close(T.det(x), torch.det(y))
    close(x.det(), y.det())
    close(T.logdet(x), torch.logdet(y))
    neg = a * np.array([-1.0, 1.0, 1.0])
    close(T.logdet(T.tensor(neg)), torch.logdet(torch.tensor(neg)))   # nan for det < 0
    s, l = T.slogdet(x)
    ts, tl = torch.slogdet(y)
    close(s, ts)
    close(l, tl)
    assert type(T.slogdet(x)).__name__ == "slogdet"
    p = spd(3, 3)
    close(T.cholesky(T.tensor(p)), torch.cholesky(torch.tensor(p)))
    close(T.cholesky(T.tensor(p), upper=True), torch.cholesky(torch.tensor(p), upper=True))
    close(T.pinverse(T.tensor(m)), torch.pinverse(torch.tensor(m)))
    for some in (True, False):
        U, S, V = T.svd(T.tensor(m), some=some)
        tU, tS, tV = torch.svd(torch.tensor(m), some=some)
        assert tuple(U.shape) == tuple(tU.shape) and tuple(V.shape) == tuple(tV.shape)
        close(S, tS)
        close((U[:, :3] * S) @ V[:, :3].T, m)   # V, not Vh
        Q, R = T.qr(T.tensor(m), some=some)
        tQ, tR = torch.qr(torch.tensor(m), some=some)
        close(Q, tQ)
        close(R, tR)
    U, S, V = T.svd(T.tensor(m), compute_uv=False)
    tU, tS, tV = torch.svd(torch.tensor(m), compute_uv=False)
    for o, t in zip((U, S, V), (tU, tS, tV)):
        close(o, t)


def test_inv_ex():
    a = np.stack([well(3, 3), np.ones((3, 3))])
    inv, info = T.linalg.inv_ex(T.tensor(a))
    tinv, tinfo = torch.linalg.inv_ex(torch.tensor(a))
    close(inv[0], tinv[0])
    assert info.dtype.name == "int32" and info[0].item() == 0 and info[1].item() > 0
    assert tinfo[1].item() > 0
    with pytest.raises(T.linalg.LinAlgError):
        T.linalg.inv_ex(T.tensor(a), check_errors=True)


def test_out_keyword():
    a = well(3, 3)
    out = T.empty(3, 3, dtype=T.float64)
    r = T.linalg.inv(T.tensor(a), out=out)
    assert r is out
    close(out, np.linalg.inv(a))


# ------------------------------------------------------------------ gradients (gradcheck)
def _sym(f):
    """torch's gradcheck_wrapper_hermitian_input: the op sees A + A^T."""
    return lambda a, *r: f(a + a.mT, *r)


GRAD_CASES = [
    ("inv", lambda a: T.linalg.inv(a), lambda: [well(2, 3, 3)]),
    ("det", lambda a: T.linalg.det(a), lambda: [well(2, 3, 3)]),
    ("det singular", lambda a: T.linalg.det(a), lambda: [np.array([[1.0, 2.0], [2.0, 4.0]])]),
    ("slogdet", lambda a: T.linalg.slogdet(a).logabsdet, lambda: [well(2, 3, 3)]),
    ("solve", lambda a, b: T.linalg.solve(a, b), lambda: [well(2, 3, 3), RNG.standard_normal((2, 3, 2))]),
    ("solve vec", lambda a, b: T.linalg.solve(a, b), lambda: [well(2, 3, 3), RNG.standard_normal((2, 3))]),
    ("solve bcast", lambda a, b: T.linalg.solve(a, b), lambda: [well(3, 3), RNG.standard_normal((2, 3, 2))]),
    ("solve right", lambda a, b: T.linalg.solve(a, b, left=False),
     lambda: [well(3, 3), RNG.standard_normal((2, 3))]),
    ("cholesky", _sym(lambda a: T.linalg.cholesky(a)), lambda: [spd(2, 3, 3) / 2]),
    ("cholesky upper", _sym(lambda a: T.linalg.cholesky(a, upper=True)), lambda: [spd(3, 3) / 2]),
    ("qr tall", lambda a: tuple(T.linalg.qr(a)), lambda: [RNG.standard_normal((2, 4, 3))]),
    ("qr wide", lambda a: tuple(T.linalg.qr(a)), lambda: [RNG.standard_normal((3, 4))]),
    ("qr square complete", lambda a: tuple(T.linalg.qr(a, mode="complete")),
     lambda: [RNG.standard_normal((3, 3))]),
    ("svd gauge-invariant", lambda a: (lambda u, s, vh: (u @ vh, s))(*T.linalg.svd(a, full_matrices=False)),
     lambda: [RNG.standard_normal((2, 4, 3))]),
    ("svd wide |U|", lambda a: (lambda u, s, vh: (u.abs(), vh.abs(), s))(*T.linalg.svd(a, full_matrices=False)),
     lambda: [RNG.standard_normal((3, 5))]),
    ("svdvals", lambda a: T.linalg.svdvals(a), lambda: [RNG.standard_normal((3, 4))]),
    ("eigh", _sym(lambda a: (lambda w, v: (w, v.abs()))(*T.linalg.eigh(a))), lambda: [spd(2, 3, 3)]),
    ("eigvalsh", _sym(lambda a: T.linalg.eigvalsh(a)), lambda: [spd(3, 3)]),
    ("pinv", lambda a: T.linalg.pinv(a), lambda: [RNG.standard_normal((2, 4, 3))]),
    ("pinv wide", lambda a: T.linalg.pinv(a), lambda: [RNG.standard_normal((3, 5))]),
    ("pinverse", lambda a: T.pinverse(a), lambda: [RNG.standard_normal((4, 3))]),
    ("lstsq", lambda a, b: T.linalg.lstsq(a, b).solution,
     lambda: [RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))]),
    ("logdet", lambda a: T.logdet(a), lambda: [spd(3, 3)]),
    ("torch.svd V", lambda a: (lambda u, s, v: (u @ v.mT, s))(*T.svd(a)), lambda: [RNG.standard_normal((4, 3))]),
]


@pytest.mark.parametrize("name,fn,make", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_float64(name, fn, make):
    inputs = [T.tensor(a, requires_grad=True) for a in make()]
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "qr", "svd", "eigh", "pinv"])
def test_gradients_match_torch(name):
    if name in ("cholesky", "eigh"):
        a = spd(2, 3, 3)
    elif name in ("qr", "svd", "pinv"):
        a = RNG.standard_normal((2, 4, 3))
    else:
        a = well(2, 3, 3)
    w = RNG.standard_normal(a.shape)

    def loss(mod, x):
        f = mod.linalg
        if name == "slogdet":
            return f.slogdet(x)[1].sum()
        if name == "qr":
            q, r = f.qr(x)
            return (q.sum(-1) ** 2).sum() + (r * r).sum()
        if name == "svd":
            u, s, vh = f.svd(x, full_matrices=False)
            return ((u @ vh) ** 2 * mod.tensor(w[..., :4, :3])).sum() + s.sum()
        if name == "eigh":
            w_, v = f.eigh(x)
            return (w_ ** 2).sum() + (v * v * v).abs().sum()
        if name == "pinv":
            return (f.pinv(x) ** 2).sum()
        return (getattr(f, name)(x) * (mod.tensor(w) if name in ("inv", "cholesky") else 1)).sum()

    x, y = both(a, True)
    loss(T, x).backward()
    loss(torch, y).backward()
    close(x.grad, y.grad.numpy(), 1e-7)


def test_grad_fn_names():
    x = T.tensor(well(3, 3), requires_grad=True)
    assert T.linalg.inv(x).grad_fn.name() == "LinalgInvExBackward0"
    assert T.linalg.det(x).grad_fn.name() == "LinalgDetBackward0"
    assert T.linalg.svdvals(x).grad_fn.name() == "LinalgSvdBackward0"
    assert T.linalg.eigh(x)[1].grad_fn.name() == "LinalgEighBackward0"


def test_double_backward_of_inv_and_det():
    x = T.tensor(well(3, 3), requires_grad=True)
    from oar.autograd.gradcheck import gradgradcheck
    assert gradgradcheck(lambda a: T.linalg.inv(a), [x])
    assert gradgradcheck(lambda a: T.linalg.det(a), [x])


# ------------------------------------------------------------------ errors
def _raises_like_torch(fn_ours, fn_torch, cls):
    with pytest.raises(cls) as ours:
        fn_ours()
    with pytest.raises(cls):
        fn_torch()
    return str(ours.value)


def test_singular_and_not_pd_errors():
    sing = np.ones((2, 3, 3))
    msg = _raises_like_torch(lambda: T.linalg.inv(T.tensor(sing)),
                             lambda: torch.linalg.inv(torch.tensor(sing)), torch.linalg.LinAlgError
                             if False else RuntimeError)
    assert "singular" in msg
    assert issubclass(T.linalg.LinAlgError, RuntimeError)
    with pytest.raises(T.linalg.LinAlgError):
        T.linalg.inv(T.tensor(sing))
    with pytest.raises(T.linalg.LinAlgError):
        T.linalg.solve(T.tensor(sing), T.tensor(np.ones((2, 3))))
    with pytest.raises(T.linalg.LinAlgError, match="positive-definite"):
        T.linalg.cholesky(T.tensor(-np.eye(3)))
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.cholesky(torch.tensor(-np.eye(3)))


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh"])
def test_non_square_and_integer_refused(name):
    with pytest.raises(RuntimeError, match="square"):
        getattr(T.linalg, name)(T.ones(2, 3, dtype=T.float64))
    with pytest.raises(RuntimeError):
        getattr(torch.linalg, name)(torch.ones(2, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="floating point"):
        getattr(T.linalg, name)(T.ones(3, 3, dtype=T.int64))
    with pytest.raises(RuntimeError):
        getattr(torch.linalg, name)(torch.ones(3, 3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        getattr(T.linalg, name)(T.ones(3, dtype=T.float64))


def test_solve_shape_errors_change_nothing():
    a = T.tensor(well(2, 3, 3))
    b = T.tensor(RNG.standard_normal((3, 4, 2)))
    before = (a.numpy().copy(), b.numpy().copy(), a._version, b._version)
    with pytest.raises(RuntimeError):
        T.linalg.solve(a, b)
    with pytest.raises(RuntimeError):
        torch.linalg.solve(torch.tensor(well(2, 3, 3)), torch.tensor(RNG.standard_normal((3, 4, 2))))
    with pytest.raises(RuntimeError):   # batch dims that cannot broadcast
        T.linalg.solve(a, T.tensor(RNG.standard_normal((3, 3, 2))))
    np.testing.assert_array_equal(a.numpy(), before[0])
    np.testing.assert_array_equal(b.numpy(), before[1])
    assert (a._version, b._version) == before[2:]
    with pytest.raises(RuntimeError, match="same dtype"):
        T.linalg.solve(T.tensor(well(3, 3)), T.tensor(np.ones(3, np.float32)))


def test_qr_mode_and_uplo_errors():
    with pytest.raises(RuntimeError, match="mode"):
        T.linalg.qr(T.ones(3, 3, dtype=T.float64), mode="full")
    with pytest.raises(RuntimeError, match="UPLO"):
        T.linalg.eigh(T.eye(3, dtype=T.float64), UPLO="X")
    x = T.tensor(RNG.standard_normal((3, 3)), requires_grad=True)
    with pytest.raises(RuntimeError, match="mode='r'"):
        T.linalg.qr(x, mode="r")[1].sum().backward()


def test_result_class_follows_the_input():
    """Note [Result class]: a Paddle-door function given a torch-door tensor returns torch-door
    tensors (every result of the multi-output ops), and the reverse."""
    calls = [lambda m, x: m.linalg.qr(x), lambda m, x: m.linalg.svd(x),
             lambda m, x: m.linalg.eigh(x @ x.T), lambda m, x: m.linalg.slogdet(x[:3]),
             lambda m, x: m.linalg.lstsq(x, x[:, :1]), lambda m, x: m.linalg.pinv(x),
             lambda m, x: m.linalg.inv(x[:3]), lambda m, x: m.linalg.cholesky(x @ x.T + 4)]
    a = RNG.standard_normal((4, 3)) + np.eye(4, 3) * 3
    for door, other in ((oar, T), (T, oar)):
        x = other.tensor(a) if other is T else oar.to_tensor(a)
        for call in calls:
            res = call(door, x)
            for r in (res if isinstance(res, tuple) else (res,)):
                assert type(r) is type(x), (door.__name__, type(r))


# ------------------------------------------------------------------ the Paddle door
paddle = pytest.importorskip("paddle")


def _pd(a):
    return paddle.to_tensor(a)


@pytest.mark.parametrize("name,make,kw", [
    ("inv", lambda: [well(2, 3, 3)], {}),
    ("det", lambda: [well(2, 3, 3)], {}),
    ("slogdet", lambda: [well(2, 3, 3) * np.array([1, -1, 1])], {}),
    ("slogdet", lambda: [well(3, 3)], {}),
    ("solve", lambda: [well(2, 3, 3), RNG.standard_normal((2, 3, 2))], {}),
    ("solve", lambda: [well(3, 3), RNG.standard_normal(3)], {}),
    ("cholesky", lambda: [spd(2, 3, 3)], {}),
    ("cholesky", lambda: [spd(3, 3)], {"upper": True}),
    ("qr", lambda: [RNG.standard_normal((4, 3))], {}),
    ("qr", lambda: [RNG.standard_normal((4, 3))], {"mode": "r"}),
    ("svdvals", lambda: [RNG.standard_normal((4, 3))], {}),
    ("eigvalsh", lambda: [spd(3, 3)], {}),
    ("pinv", lambda: [RNG.standard_normal((4, 3))], {}),
    ("matrix_rank", lambda: [np.diag([3.0, 1e-3, 0.0])], {}),
    ("matrix_rank", lambda: [np.diag([3.0, 1e-3, 0.0])], {"tol": 1e-2}),
    ("lstsq", lambda: [RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))], {}),
    ("lstsq", lambda: [RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))], {"driver": "gelsd"}),
], ids=lambda v: v if isinstance(v, str) else "")
def test_paddle_linalg_matches_paddle(name, make, kw):
    arrays = make()
    ours = getattr(oar.linalg, name)(*[oar.to_tensor(a) for a in arrays], **kw)
    theirs = getattr(paddle.linalg, name)(*[_pd(a) for a in arrays], **kw)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, (tuple, list)) else (theirs,)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o.numpy().shape == tuple(t.shape)
        assert str(o.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-8, atol=1e-8)


def test_paddle_inverse_and_errors():
    a = well(3, 3)
    np.testing.assert_allclose(oar.inverse(oar.to_tensor(a)).numpy(),
                               paddle.inverse(_pd(a)).numpy(), rtol=1e-10)
    with pytest.raises(ValueError):
        oar.linalg.inv(oar.to_tensor(np.zeros((2, 2))))
    with pytest.raises(ValueError):
        paddle.linalg.inv(_pd(np.zeros((2, 2))))
    with pytest.raises(ValueError):
        oar.linalg.cholesky(oar.to_tensor(-np.eye(2)))


def test_paddle_door_gradient():
    a = well(3, 3)
    x = oar.to_tensor(a, stop_gradient=False)
    oar.linalg.det(x).backward()
    y = _pd(a)
    y.stop_gradient = False
    paddle.linalg.det(y).backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-10)


def test_paddle_top_level_and_tensor_methods():
    a = spd(3, 3)
    b = RNG.standard_normal((3, 2))
    x, y = oar.to_tensor(a), _pd(a)
    for name in ("cholesky", "eigvalsh", "inverse"):
        np.testing.assert_allclose(getattr(oar, name)(x).numpy(), getattr(paddle, name)(y).numpy(),
                                   rtol=1e-10, atol=1e-12)
    for name, args in (("cholesky", ()), ("slogdet", ()), ("qr", ()), ("eigvalsh", ()),
                       ("pinv", ()), ("solve", (b,)), ("lstsq", (b,)), ("inverse", ())):
        ours = getattr(x, name)(*[oar.to_tensor(v) for v in args])
        theirs = getattr(y, name)(*[_pd(v) for v in args])
        ours = ours if isinstance(ours, tuple) else (ours,)
        theirs = theirs if isinstance(theirs, (tuple, list)) else (theirs,)
        for o, t in zip(ours, theirs):
            assert o.numpy().shape == tuple(t.shape), name
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-8, atol=1e-10)

