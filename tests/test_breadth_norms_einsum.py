"""einsum, cdist and the norms (oar/ops/contract.py, oar/ops/norms.py,
oar/torch/_linalg_norms.py) in both doors: values, gradients and node names against torch
2.13, the Paddle door against paddle 3.3.1, float64 gradcheck and gradgradcheck, non-contiguous
inputs, errors."""
import math

import numpy as np
import pytest

T = pytest.importorskip("torch")

import oar
import oar.torch as torch
from oar.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def pair(a, grad=True, noncontig=False):
    """The same float64 values as an oar.torch and a torch tensor (transposed views when
    noncontig: the data is laid out reversed, so neither is contiguous)."""
    if noncontig and a.ndim >= 2:
        base = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        o, t = torch.tensor(base), T.tensor(base)
        o, t = o.transpose(-1, -2), t.transpose(-1, -2)
        assert o.is_contiguous() == t.is_contiguous()
        if grad:
            o, t = o.detach().requires_grad_(), t.detach().requires_grad_()
        return o, t
    return torch.tensor(a, requires_grad=grad), T.tensor(a, requires_grad=grad)


def check(ofn, tfn, arrays, noncontig=False, rtol=1e-10, atol=1e-12, name=True):
    """Values, gradients of a random cotangent and the node name agree with torch."""
    ps = [pair(a, noncontig=noncontig) for a in arrays]
    o = ofn(*[p[0] for p in ps])
    t = tfn(*[p[1] for p in ps])
    assert tuple(o.shape) == tuple(t.shape)
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    if name:
        assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__
    g = RNG.standard_normal(tuple(t.shape))
    o.backward(torch.tensor(g))
    t.backward(T.tensor(g))
    for po, pt in ps:
        assert (po.grad is None) == (pt.grad is None)
        if pt.grad is not None:
            np.testing.assert_allclose(po.grad.numpy(), pt.grad.numpy(), rtol=1e-8, atol=1e-10)


def leaf(shape, seed=1):
    return oar.to_tensor(np.random.default_rng(seed).standard_normal(shape),
                         stop_gradient=False)


# ----------------------------------------------------------------------------- einsum
EQUATIONS = [
    ("i->", [(3,)]), ("i,j->ij", [(3,), (4,)]), ("ij->i", [(2, 3)]), ("ij->ji", [(2, 3)]),
    ("ij,kj->ik", [(2, 3), (1, 3)]), ("ij,Ab->ijAb", [(2, 3), (4, 4)]),
    ("aij,ajk->aik", [(2, 2, 3), (2, 3, 4)]), ("aij,jk->aik", [(1, 3, 4), (4, 4)]),
    ("ijk,ik->j", [(1, 2, 3), (1, 3)]), ("iji->j", [(2, 3, 2)]), ("i...->...", [(3, 3)]),
    ("...ik, ...j -> ij", [(1, 2, 3), (3,)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]),
    ("bij,bjk", [(2, 3, 4), (2, 4, 5)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]), ("", [()]), (",->", [(), ()]),
    ("iij->j", [(3, 3, 2)]), ("i,i,i->", [(4,), (4,), (4,)]),
]


@pytest.mark.parametrize("eq,shapes", EQUATIONS, ids=[e or "empty" for e, _ in EQUATIONS])
@pytest.mark.parametrize("noncontig", [False, True])
def test_einsum_matches_torch(eq, shapes, noncontig):
    arrays = [RNG.standard_normal(s) for s in shapes]
    check(lambda *a: torch.einsum(eq, *a), lambda *a: T.einsum(eq, *a), arrays, noncontig,
          name=False)


@pytest.mark.parametrize("eq,shapes", [("ij,jk->ik", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]),
                                       ("ij->j", [(2, 3)]), ("bij,bkj,k->bi", [(2, 2, 3),
                                                                               (2, 4, 3), (4,)]),
                                       ("iji->ij", [(2, 3, 2)])])
def test_einsum_gradcheck_and_double_backward_float64(eq, shapes):
    xs = [leaf(s, i) for i, s in enumerate(shapes)]
    assert gradcheck(lambda *a: oar.einsum(eq, *a), xs)
    assert gradgradcheck(lambda *a: oar.einsum(eq, *a), xs)


def test_einsum_forms_node_and_dtype():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
    oa, ob = torch.tensor(a), torch.tensor(b)
    ref = np.einsum("ij,jk->ik", a, b)
    np.testing.assert_allclose(torch.einsum("ij,jk", [oa, ob]).numpy(), ref)        # a list
    np.testing.assert_allclose(torch.einsum(oa, [0, 1], ob, [1, 2], [0, 2]).numpy(), ref)
    np.testing.assert_allclose(torch.einsum(oa, [0, Ellipsis], [Ellipsis]).numpy(),
                               T.einsum(T.tensor(a), [0, Ellipsis], [Ellipsis]).numpy())
    # mixed dtypes are refused, as torch and paddle do
    with pytest.raises(RuntimeError):
        T.einsum("i,i->", T.ones(3), T.ones(3, dtype=T.float64))
    with pytest.raises(RuntimeError):
        torch.einsum("i,i->", torch.ones(3), torch.ones(3, dtype=torch.float64))
    with pytest.raises(ValueError):
        oar.einsum("i,i->", oar.ones([3]), oar.ones([3], dtype="float64"))
    # a result never shares the operand's memory, and is contiguous
    o = torch.einsum("ij->ji", oa)
    assert o.is_contiguous() and o.data_ptr() != oa.data_ptr()
    w = torch.tensor(a, requires_grad=True)
    assert type(torch.einsum("ij->i", w).grad_fn).__name__ == "EinsumBackward0"
    assert torch.einsum("ij,jk", oa.float(), ob.float()).dtype == torch.float32


@pytest.mark.parametrize("call", [
    lambda m, x, v: m.einsum("ij,jk->ik", x),
    lambda m, x, v: m.einsum("ij,jk->ik", x, x, x),
    lambda m, x, v: m.einsum("ij,ij->i", x, v.reshape(2, 2)),
    lambda m, x, v: m.einsum("ij->ii", x),
    lambda m, x, v: m.einsum("ijk->i", x),
    lambda m, x, v: m.einsum("ij->k", x),
    lambda m, x, v: m.einsum("i.j->i", x),
    lambda m, x, v: m.einsum("ii->i", x),
    lambda m, x, v: m.einsum("i->", []),
])
def test_einsum_errors_as_torch(call):
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(Exception) as te:
        call(T, T.tensor(x), T.arange(4.0))
    with pytest.raises(type(te.value)) as oe:
        call(torch, torch.tensor(x), torch.arange(4.0))
    assert "einsum" in str(oe.value)


def test_einsum_paddle_door():
    paddle = pytest.importorskip("paddle")
    a, b = RNG.standard_normal((2, 3, 4)).astype("float32"), RNG.standard_normal(
        (2, 4, 5)).astype("float32")
    for eq in ("bij,bjk->bik", "bij,bjk", "...ij,...jk->...ik", "bij->j"):
        ops = (a, b) if "," in eq else (a,)
        o = oar.einsum(eq, *[oar.to_tensor(x) for x in ops])
        p = paddle.einsum(eq, *[paddle.to_tensor(x) for x in ops])
        assert o.shape == p.shape and o.dtype == oar.float32
        np.testing.assert_allclose(o.numpy(), p.numpy(), rtol=1e-5, atol=1e-5)
    x = oar.to_tensor(a, stop_gradient=False)
    oar.einsum("bij->j", x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones_like(a))


# ----------------------------------------------------------------------------- cdist
CDIST_SHAPES = [((3, 4), (5, 4)), ((2, 1, 3, 4), (5, 2, 4)), ((3, 4), (3, 4)), ((0, 4), (2, 4)),
                ((2, 0), (3, 0)), ((30, 3), (27, 3))]


@pytest.mark.parametrize("shapes", CDIST_SHAPES, ids=str)
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, math.inf])
def test_cdist_matches_torch(shapes, p):
    a, b = RNG.standard_normal(shapes[0]), RNG.standard_normal(shapes[1])
    if shapes[0] == shapes[1]:
        b[1] = a[1]          # a zero distance: the gradient there is 0, as torch's
        b[0, 0] = a[0, 0]    # a zero coordinate difference
    # torch's mm path (p=2, more than 25 rows) is a different node and loses digits
    mm = p == 2.0 and max(shapes[0][-2], shapes[1][-2]) > 25
    check(lambda x, y: torch.cdist(x, y, p), lambda x, y: T.cdist(x, y, p), [a, b],
          noncontig=True, rtol=1e-6 if mm else 1e-10, atol=1e-9 if mm else 1e-12, name=not mm)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.7, math.inf])
def test_cdist_gradcheck_float64(p):
    x, y = leaf((2, 3, 4), 1), leaf((2, 5, 4), 2)
    assert gradcheck(lambda a, b: oar.cdist(a, b, p), (x, y))
    if p != math.inf:
        assert gradgradcheck(lambda a, b: oar.cdist(a, b, p), (x, y))


def test_cdist_paddle_door():
    paddle = pytest.importorskip("paddle")
    a, b = RNG.standard_normal((2, 3, 4)).astype("float32"), RNG.standard_normal(
        (2, 5, 4)).astype("float32")
    for p in (0.0, 1.0, 2.0, 2.5, float("inf")):
        o = oar.cdist(oar.to_tensor(a), oar.to_tensor(b), p=p)
        r = paddle.cdist(paddle.to_tensor(a), paddle.to_tensor(b), p=p)
        np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(oar.to_tensor(a).cdist(oar.to_tensor(b), p=p).numpy(),
                                   r.numpy(), rtol=1e-5, atol=1e-5)
    for bad in (lambda m: m.cdist(m.ones([2, 3]), m.ones([3, 4])),
                lambda m: m.cdist(m.ones([3]), m.ones([3, 3])),
                lambda m: m.cdist(m.ones([2, 3]), m.ones([3, 3]), p=-1.0)):
        with pytest.raises(AssertionError):
            bad(paddle)
        with pytest.raises(AssertionError):
            bad(oar)


# ----------------------------------------------------------------------------- norms
@pytest.mark.parametrize("ord", [2, 1, 0, 0.5, 3, math.inf, -math.inf, -1.5])
@pytest.mark.parametrize("dim", [None, 1, (0, 2), -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_vector_norm_matches_torch(ord, dim, keepdim):
    a = RNG.standard_normal((2, 3, 4))
    a[0, 0, 0] = 0.0    # a zero element: torch's gradient there is 0 for every ord
    check(lambda x: torch.linalg.vector_norm(x, ord, dim, keepdim),
          lambda x: T.linalg.vector_norm(x, ord, dim, keepdim), [a], noncontig=True)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [(-2, -1), (0, 2), (2, 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_matches_torch(ord, dim, keepdim):
    a = RNG.standard_normal((2, 3, 4))
    check(lambda x: torch.linalg.matrix_norm(x, ord, dim, keepdim),
          lambda x: T.linalg.matrix_norm(x, ord, dim, keepdim), [a], noncontig=True)


@pytest.mark.parametrize("kw", [dict(), dict(ord="fro"), dict(ord="nuc"), dict(ord=1),
                                dict(ord=-2), dict(ord=math.inf), dict(dim=0),
                                dict(dim=(1, 0)), dict(ord=3, dim=1, keepdim=True)])
def test_linalg_norm_matches_torch(kw):
    a = RNG.standard_normal((3, 4))
    check(lambda x: torch.linalg.norm(x, **kw), lambda x: T.linalg.norm(x, **kw), [a])
    v = RNG.standard_normal(5)
    if "dim" not in kw and kw.get("ord") not in ("fro", "nuc"):
        check(lambda x: torch.linalg.norm(x, **kw), lambda x: T.linalg.norm(x, **kw), [v])


@pytest.mark.parametrize("p", ["fro", 2, 1, 0, 0.5, math.inf])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_torch_norm_and_method_match_torch(p, dim):
    a = RNG.standard_normal((3, 4))
    check(lambda x: torch.norm(x, p, dim), lambda x: T.norm(x, p, dim), [a], noncontig=True)
    check(lambda x: x.norm(p, dim, True), lambda x: x.norm(p, dim, True), [a])


def test_norm_subgradients_at_zero_as_torch():
    for ord in (2, 3, 0.5, 1, math.inf):
        check(lambda x: torch.linalg.vector_norm(x, ord), lambda x: T.linalg.vector_norm(x, ord),
              [np.zeros(4)])
    # p = 0: torch's gradient is undefined (.grad stays None), for dist too (torch's own
    # dist backward then fails); Paddle's is zeros
    check(lambda x: torch.linalg.vector_norm(x, 0), lambda x: T.linalg.vector_norm(x, 0),
          [RNG.standard_normal(4)])
    x, y = torch.ones(3, requires_grad=True), torch.zeros(3, requires_grad=True)
    torch.dist(x, y, 0).backward()
    assert x.grad is None and y.grad is None
    x = oar.ones([3])
    x.stop_gradient = False
    oar.dist(x, oar.zeros([3]), p=0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3))
    check(lambda x, y: torch.dist(x, y, 2), lambda x, y: T.dist(x, y, 2),
          [np.ones((2, 3)), np.ones(3)])


@pytest.mark.parametrize("fn", [
    lambda x: torch.linalg.vector_norm(x, 3, (0, 1)), lambda x: torch.linalg.norm(x, 0.5, 1),
    lambda x: torch.linalg.matrix_norm(x, 1), lambda x: torch.linalg.matrix_norm(x, "fro"),
    lambda x: torch.linalg.matrix_norm(x, -math.inf)])
def test_norms_gradcheck_float64(fn):
    x = leaf((3, 4))
    assert gradcheck(fn, (x,))


def test_norms_dtype_out_and_empty_as_torch():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    r = torch.linalg.vector_norm(torch.tensor(a), dtype=torch.float64)
    t = T.linalg.vector_norm(T.tensor(a), dtype=T.float64)
    assert r.dtype == torch.float64
    np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-12)
    for fn, tfn in ((torch.linalg.vector_norm, T.linalg.vector_norm),
                    (torch.linalg.matrix_norm, T.linalg.matrix_norm),
                    (torch.linalg.norm, T.linalg.norm)):
        o, to = torch.empty(0), T.empty(0)
        assert fn(torch.tensor(a), out=o) is o
        tfn(T.tensor(a), out=to)
        np.testing.assert_allclose(o.numpy(), to.numpy(), rtol=1e-6)
        with pytest.raises(RuntimeError):
            fn(torch.tensor(a, requires_grad=True), out=torch.empty(0))
    # an empty matrix: the positive orders are 0 (torch), the negative ones refused
    for ord in (1, 2, math.inf, "fro", "nuc"):
        for shape in ((0, 0), (5, 0), (0, 5)):
            np.testing.assert_allclose(
                torch.linalg.matrix_norm(torch.zeros(shape), ord).numpy(),
                T.linalg.matrix_norm(T.zeros(shape), ord).numpy())
    with pytest.raises(IndexError):
        T.linalg.matrix_norm(T.zeros(5, 0), -1)
    with pytest.raises(IndexError):
        torch.linalg.matrix_norm(torch.zeros(5, 0), -1)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.linalg.vector_norm(x), lambda m, x: m.linalg.vector_norm(x, p=1, axis=1),
    lambda m, x: m.linalg.vector_norm(x, p=math.inf, axis=[0, 1], keepdim=True),
    lambda m, x: m.linalg.vector_norm(x, p=0),
    lambda m, x: m.linalg.matrix_norm(x), lambda m, x: m.linalg.matrix_norm(x, p="nuc"),
    lambda m, x: m.linalg.matrix_norm(x, p=2), lambda m, x: m.linalg.matrix_norm(x, p=-1),
    lambda m, x: m.linalg.matrix_norm(x, p=math.inf, axis=[0, 1], keepdim=True),
    lambda m, x: m.linalg.norm(x), lambda m, x: m.linalg.norm(x, p=2, axis=[0, 1]),
    lambda m, x: m.linalg.norm(x, p="fro"), lambda m, x: m.linalg.norm(x, p=1, axis=0),
    lambda m, x: m.norm(x, p=3, axis=-1, keepdim=True),
    lambda m, x: m.dist(x, m.ones_like(x), p=3)])
def test_paddle_door_norms_match_paddle(fn):
    paddle = pytest.importorskip("paddle")
    a = RNG.standard_normal((3, 4)).astype("float32")
    o = fn(oar, oar.to_tensor(a))
    p = fn(paddle, paddle.to_tensor(a))
    assert o.shape == p.shape
    np.testing.assert_allclose(o.numpy(), p.numpy(), rtol=1e-5, atol=1e-6)
    # gradients as paddle's
    xo, xp = oar.to_tensor(a, stop_gradient=False), paddle.to_tensor(a, stop_gradient=False)
    go, gp = fn(oar, xo), fn(paddle, xp)
    if not gp.stop_gradient:
        go.sum().backward()
        gp.sum().backward()
        np.testing.assert_allclose(xo.grad.numpy(), xp.grad.numpy(), rtol=1e-4, atol=1e-5)
