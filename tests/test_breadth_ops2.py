"""Everyday ops of oar/ops/more_ops.py in both doors: atan2/arctan2, logaddexp, logaddexp2,
dot, mv, rot90, fliplr, flipud, nansum, nanmean, diff, repeat_interleave, take_along_dim,
tensordot, matrix_power (top level and linalg), multi_dot, isin, broadcast_tensors,
broadcast_shape(s), atleast_1d/2d/3d.

Values, dtypes, node names and float64 gradients against torch 2.13 (the torch door) and
paddle 3.3.1 (the Paddle door); finite differences (gradcheck) on non-contiguous inputs;
errors with each framework's class."""
import numpy as np
import pytest

import oar
import oar.torch as T
from oar.autograd import gradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def arr(*shape, dtype=np.float64, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def nc(a, door=T):
    """The values of `a` as a door tensor whose memory is not contiguous."""
    a = np.asarray(a)
    t = (door.tensor if door is T else oar.to_tensor)(np.stack([a, np.zeros_like(a)], -1))[..., 0]
    assert a.ndim == 0 or a.size <= 1 or not t.is_contiguous()
    return t


def tt(a, grad=False):
    return torch.tensor(np.asarray(a), requires_grad=grad)


def ot(a, grad=False):
    return T.tensor(np.asarray(a), requires_grad=grad)


def close(o, t, tol=1e-10):
    o = o.detach().numpy() if hasattr(o, "detach") else np.asarray(o)
    t = t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)
    assert o.shape == t.shape, (o.shape, t.shape)
    assert o.dtype == t.dtype, (o.dtype, t.dtype)
    np.testing.assert_allclose(o, t, rtol=tol, atol=tol)


def same_as_torch(fn_o, fn_t, arrays, grad=True, tol=1e-10, node=True):
    """fn over oar.torch tensors and over torch tensors: values, dtype, node name, and the
    gradient of a random cotangent for every float input."""
    xs_o = [ot(a, grad and a.dtype.kind == "f") for a in arrays]
    xs_t = [tt(a, grad and a.dtype.kind == "f") for a in arrays]
    ro, rt = fn_o(*xs_o), fn_t(*xs_t)
    close(ro, rt, tol)
    if grad and rt.requires_grad:
        if node:   # (a scalar overload's number, DivBackward1, is KNOWN in the OpInfo test)
            assert ro.grad_fn.name() == rt.grad_fn.name()
        g = arr(*rt.shape) if rt.dim() else np.array(RNG.uniform(-1, 1))
        ro.backward(T.tensor(g))
        rt.backward(torch.tensor(g))
        for a, b in zip(xs_o, xs_t):
            if b.requires_grad:
                assert (a.grad is None) == (b.grad is None)
                if b.grad is not None:
                    close(a.grad, b.grad, tol)
    return ro


def gc(fn, *arrays):
    """Finite differences (float64) on non-contiguous inputs."""
    xs = [nc(a) for a in arrays]
    for x in xs:
        x.requires_grad_(True)
    assert gradcheck(fn, xs)


# ------------------------------------------------------------------ pointwise: atan2, logaddexp
@pytest.mark.parametrize("name", ["atan2", "arctan2", "logaddexp", "logaddexp2"])
def test_pointwise_against_torch(name):
    a, b = arr(3, 4), arr(4)
    same_as_torch(getattr(T, name), getattr(torch, name), [a, b])
    same_as_torch(lambda x, y: getattr(x, name)(y), lambda x, y: getattr(x, name)(y), [a, b])
    gc(getattr(T, name), arr(3, 4), arr(3, 4))
    # in place, out=, float32, non-contiguous
    x, y = arr(3, 4, dtype=np.float32), arr(3, 4, dtype=np.float32)
    o, t = ot(x), tt(x)
    assert hasattr(T.Tensor, name + "_") == hasattr(torch.Tensor, name + "_")
    if hasattr(torch.Tensor, name + "_"):   # atan2_ / arctan2_ (torch has no logaddexp_)
        r = getattr(o, name + "_")(nc(y))
        assert r is o and o._version == 1
        close(o, getattr(t, name + "_")(tt(y)), 1e-6)
    out = T.empty(3, 4)
    getattr(T, name)(ot(x), ot(y), out=out)
    close(out, getattr(torch, name)(tt(x), tt(y)), 1e-6)


def test_pointwise_dtypes_per_door():
    i = np.array([1, 2, 3])
    close(T.atan2(ot(i), ot(i)), torch.atan2(tt(i), tt(i)), 1e-6)   # float32, as torch
    with pytest.raises(NotImplementedError, match="logaddexp"):
        T.logaddexp(ot(i), ot(i))
    with pytest.raises(NotImplementedError):
        torch.logaddexp(tt(i), tt(i))
    paddle = pytest.importorskip("paddle")
    p = paddle.logaddexp(paddle.to_tensor(i), paddle.to_tensor(i))
    o = oar.logaddexp(oar.to_tensor(i), oar.to_tensor(i))
    assert o.dtype == oar.float32 and str(p.dtype) == "paddle.float32"
    np.testing.assert_allclose(o.numpy(), p.numpy(), rtol=1e-6)
    # extreme arguments stay finite, gradients too
    x = ot(np.array([1000.0, -1000.0]), True)
    y = ot(np.array([-1000.0, 1000.0]))
    r = T.logaddexp(x, y)
    r.sum().backward()
    np.testing.assert_allclose(r.detach().numpy(), [1000.0, 1000.0])
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 0.0])


def test_pointwise_paddle_door():
    paddle = pytest.importorskip("paddle")
    a, b = arr(3, 4, dtype=np.float32), arr(3, 4, dtype=np.float32)
    for name in ("atan2", "logaddexp"):
        o = getattr(oar, name)(oar.to_tensor(a), oar.to_tensor(b))
        p = getattr(paddle, name)(paddle.to_tensor(a), paddle.to_tensor(b))
        np.testing.assert_allclose(o.numpy(), p.numpy(), rtol=1e-6)
        xo, xp = oar.to_tensor(a, stop_gradient=False), paddle.to_tensor(a, stop_gradient=False)
        getattr(oar, name)(xo, oar.to_tensor(b)).sum().backward()
        getattr(paddle, name)(xp, paddle.to_tensor(b)).sum().backward()
        np.testing.assert_allclose(xo.grad.numpy(), xp.grad.numpy(), rtol=1e-5)


# ------------------------------------------------------------------ dot, mv
def test_dot_mv_against_torch():
    same_as_torch(T.dot, torch.dot, [arr(5), arr(5)])
    same_as_torch(lambda x, y: x.dot(y), lambda x, y: x.dot(y), [arr(5), arr(5)])
    same_as_torch(T.mv, torch.mv, [arr(3, 4), arr(4)])
    same_as_torch(lambda x, y: x.mv(y), lambda x, y: x.mv(y), [arr(3, 4), arr(4)])
    i = np.arange(4)
    close(T.dot(ot(i), ot(i)), torch.dot(tt(i), tt(i)))
    gc(T.dot, arr(5), arr(5))
    gc(T.mv, arr(3, 4), arr(4))
    out = T.empty(3, dtype=T.float64)
    T.mv(ot(arr(3, 4)), ot(arr(4)), out=out)
    assert out.shape == (3,)
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        T.dot(ot(arr(2, 2)), ot(arr(2, 2)))
    with pytest.raises(RuntimeError, match="same dtype"):
        T.dot(ot(i), ot(arr(4)))
    with pytest.raises(RuntimeError):
        torch.dot(tt(i), tt(arr(4)))
    with pytest.raises(RuntimeError, match="size mismatch"):
        T.mv(ot(arr(3, 4)), ot(arr(3)))


def test_dot_mv_paddle_door():
    paddle = pytest.importorskip("paddle")
    a, b = arr(3, 4, dtype=np.float32), arr(3, 4, dtype=np.float32)
    # Paddle's dot of 2-D operands: one inner product per row
    np.testing.assert_allclose(oar.dot(oar.to_tensor(a), oar.to_tensor(b)).numpy(),
                               paddle.dot(paddle.to_tensor(a), paddle.to_tensor(b)).numpy(),
                               rtol=1e-6)
    xo = oar.to_tensor(a, stop_gradient=False)
    xp = paddle.to_tensor(a, stop_gradient=False)
    oar.dot(xo, oar.to_tensor(b)).sum().backward()
    paddle.dot(xp, paddle.to_tensor(b)).sum().backward()
    np.testing.assert_allclose(xo.grad.numpy(), xp.grad.numpy(), rtol=1e-6)
    v = arr(4, dtype=np.float32)
    np.testing.assert_allclose(oar.mv(oar.to_tensor(a), oar.to_tensor(v)).numpy(),
                               paddle.mv(paddle.to_tensor(a), paddle.to_tensor(v)).numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(oar.to_tensor(a).mv(oar.to_tensor(v)).numpy(), a @ v, rtol=1e-5)


# ------------------------------------------------------------------ rot90, fliplr, flipud
@pytest.mark.parametrize("k,dims", [(1, [0, 1]), (2, [0, 1]), (3, [1, 2]), (-1, [2, 0]),
                                    (5, [-1, -2])])
def test_rot90_against_torch(k, dims):
    same_as_torch(lambda x: T.rot90(x, k, dims), lambda x: torch.rot90(x, k, dims), [arr(2, 3, 4)])
    same_as_torch(lambda x: x.rot90(k=k, dims=dims), lambda x: x.rot90(k=k, dims=dims),
                  [arr(2, 3, 4)])
    gc(lambda x: T.rot90(x, k, dims), arr(2, 3, 4))


def test_flips_against_torch():
    same_as_torch(T.fliplr, torch.fliplr, [arr(3, 4)])
    same_as_torch(T.flipud, torch.flipud, [arr(3, 4, 2)])
    same_as_torch(lambda x: x.fliplr(), lambda x: x.fliplr(), [arr(3, 4)])
    same_as_torch(lambda x: x.flipud(), lambda x: x.flipud(), [arr(3)])
    with pytest.raises(RuntimeError, match=">= 2-d"):
        T.fliplr(ot(arr(3)))
    with pytest.raises(RuntimeError):
        torch.fliplr(tt(arr(3)))
    with pytest.raises(RuntimeError, match=">= 1-d"):
        T.flipud(ot(np.array(1.0)))
    for bad in ([0], [0, 0]):
        with pytest.raises(RuntimeError):
            T.rot90(ot(arr(2, 3)), 1, bad)
        with pytest.raises(RuntimeError):
            torch.rot90(tt(arr(2, 3)), 1, bad)


def test_rot90_paddle_door():
    paddle = pytest.importorskip("paddle")
    a = arr(2, 3, 4, dtype=np.float32)
    for k, axes in ((1, [0, 1]), (3, [1, 2]), (-2, [2, 0])):
        np.testing.assert_array_equal(
            oar.rot90(oar.to_tensor(a), k, axes).numpy(),
            paddle.rot90(paddle.to_tensor(a), k, axes).numpy())
        np.testing.assert_array_equal(oar.to_tensor(a).rot90(k=k, axes=axes).numpy(),
                                      np.rot90(a, k, axes))


# ------------------------------------------------------------------ nansum, nanmean
def _with_nans(*shape):
    a = arr(*shape)
    a[RNG.random(shape) < 0.3] = np.nan
    return a


@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": (0, 2), "keepdim": True},
                                {"dim": -1, "keepdim": False}])
def test_nansum_nanmean_against_torch(kw):
    a = _with_nans(3, 4, 2)
    for name in ("nansum", "nanmean"):
        same_as_torch(lambda x: getattr(T, name)(x, **kw), lambda x: getattr(torch, name)(x, **kw),
                      [a])
        same_as_torch(lambda x: getattr(x, name)(**kw), lambda x: getattr(x, name)(**kw), [a])
    gc(lambda x: T.nansum(x, 1), _with_nans(3, 4))
    b = arr(3, 4)   # nanmean's gradient is defined where there is no NaN
    gc(lambda x: T.nanmean(x, 0), b)


def test_nansum_nanmean_dtypes():
    i = np.array([[1, 2], [3, 4]])
    close(T.nansum(ot(i)), torch.nansum(tt(i)))
    close(T.nansum(ot(i), 0, True), torch.nansum(tt(i), 0, True))
    w = _with_nans(3)
    close(T.nansum(ot(w), dtype=T.float32), torch.nansum(tt(w), dtype=torch.float32), 1e-6)
    with pytest.raises(RuntimeError, match="floating point"):
        T.nanmean(ot(i))
    with pytest.raises(RuntimeError):
        torch.nanmean(tt(i))
    # all-NaN slice: nanmean is NaN, nansum 0
    a = np.array([[np.nan, np.nan], [1.0, np.nan]])
    close(T.nanmean(ot(a), 1), torch.nanmean(tt(a), 1))
    close(T.nansum(ot(a), 1), torch.nansum(tt(a), 1))


def test_nansum_nanmean_paddle_door():
    paddle = pytest.importorskip("paddle")
    a = _with_nans(3, 4).astype(np.float32)
    for args in ((), (1,), (0, "float64", True)):
        o = oar.nansum(oar.to_tensor(a), *args)
        p = paddle.nansum(paddle.to_tensor(a), *args)
        assert str(o.dtype).split(".")[-1] == str(p.dtype).split(".")[-1]
        np.testing.assert_allclose(o.numpy(), p.numpy(), rtol=1e-6)
    for args in ((), (1,), ([0, 1], True)):
        np.testing.assert_allclose(oar.nanmean(oar.to_tensor(a), *args).numpy(),
                                   paddle.nanmean(paddle.to_tensor(a), *args).numpy(), rtol=1e-6)
    xo = oar.to_tensor(a, stop_gradient=False)
    xp = paddle.to_tensor(a, stop_gradient=False)
    oar.nansum(xo).backward()
    paddle.nansum(xp).backward()
    np.testing.assert_array_equal(xo.grad.numpy(), xp.grad.numpy())


# ------------------------------------------------------------------ diff
@pytest.mark.parametrize("n,dim,pre,app", [(1, -1, None, None), (2, 0, None, None),
                                           (1, 1, (3, 1), (3, 2)), (3, 0, (2, 4), None),
                                           (0, 0, (1, 4), None), (7, 1, None, None)])
def test_diff_against_torch(n, dim, pre, app):
    arrays = [arr(3, 4)] + [arr(*s) for s in (pre, app) if s is not None]

    def call(lib):
        def f(x, *rest):
            rest = list(rest)
            kw = {}
            if pre is not None:
                kw["prepend"] = rest.pop(0)
            if app is not None:
                kw["append"] = rest.pop(0)
            return lib.diff(x, n=n, dim=dim, **kw)
        return f
    same_as_torch(call(T), call(torch), arrays)


def test_diff_more():
    b = np.array([True, False, False, True])
    close(T.diff(ot(b)), torch.diff(tt(b)))
    i = np.array([[1, 5, 2], [0, 0, 9]])
    close(T.diff(ot(i), dim=0), torch.diff(tt(i), dim=0))
    close(ot(i).diff(), tt(i).diff())
    gc(lambda x: T.diff(x, 2, 0), arr(5, 3))
    with pytest.raises(RuntimeError, match="one-dimensional"):
        T.diff(ot(np.array(1.0)))
    with pytest.raises(RuntimeError):
        torch.diff(tt(np.array(1.0)))
    with pytest.raises(RuntimeError, match="order must be non-negative"):
        T.diff(ot(arr(3)), -1)
    paddle = pytest.importorskip("paddle")
    a, p = arr(3, 4, dtype=np.float32), arr(3, 1, dtype=np.float32)
    np.testing.assert_allclose(
        oar.diff(oar.to_tensor(a), 1, 1, oar.to_tensor(p), oar.to_tensor(p)).numpy(),
        paddle.diff(paddle.to_tensor(a), 1, 1, paddle.to_tensor(p), paddle.to_tensor(p)).numpy(),
        rtol=1e-6)
    np.testing.assert_array_equal(oar.diff(oar.to_tensor(b)).numpy(),
                                  paddle.diff(paddle.to_tensor(b)).numpy())


# ------------------------------------------------------------------ repeat_interleave
def test_repeat_interleave_against_torch():
    a = arr(2, 3)
    same_as_torch(lambda x: T.repeat_interleave(x, 2), lambda x: torch.repeat_interleave(x, 2), [a])
    same_as_torch(lambda x: x.repeat_interleave(3, dim=1), lambda x: x.repeat_interleave(3, dim=1),
                  [a])
    r = np.array([1, 0, 2])
    same_as_torch(lambda x: T.repeat_interleave(x, T.tensor(r), dim=1),
                  lambda x: torch.repeat_interleave(x, torch.tensor(r), dim=1), [a])
    same_as_torch(lambda x: T.repeat_interleave(x, T.tensor(r), 1, output_size=3),
                  lambda x: torch.repeat_interleave(x, torch.tensor(r), 1, output_size=3), [a])
    close(T.repeat_interleave(T.tensor(r)), torch.repeat_interleave(torch.tensor(r)))
    close(T.repeat_interleave(T.tensor(np.array(2.0)), 3),
          torch.repeat_interleave(torch.tensor(np.array(2.0)), 3))
    gc(lambda x: T.repeat_interleave(x, T.tensor(r), 1), arr(2, 3))
    gc(lambda x: T.repeat_interleave(x, 2, 0), arr(2, 3))
    for bad in (T.tensor(np.array([1, 2])), T.tensor(np.array([1, -1, 1])),
                T.tensor(np.array([1.0, 1.0, 1.0]))):
        with pytest.raises(RuntimeError):
            T.repeat_interleave(T.tensor(a), bad, 1)
        with pytest.raises(RuntimeError):
            torch.repeat_interleave(torch.tensor(a), torch.tensor(bad.numpy()), 1)
    with pytest.raises(RuntimeError):
        T.repeat_interleave(T.tensor(a), T.tensor(r), 1, output_size=4)


def test_repeat_interleave_paddle_door():
    paddle = pytest.importorskip("paddle")
    a = arr(2, 3, dtype=np.float32)
    for args in ((2,), (2, 0), (paddle.to_tensor([1, 0, 2]), 1)):
        oargs = tuple(oar.to_tensor(v.numpy()) if isinstance(v, paddle.Tensor) else v
                      for v in args)
        np.testing.assert_array_equal(
            oar.repeat_interleave(oar.to_tensor(a), *oargs).numpy(),
            paddle.repeat_interleave(paddle.to_tensor(a), *args).numpy())


# ------------------------------------------------------------------ take_along_dim
def test_take_along_dim_against_torch():
    a = arr(3, 4)
    idx = RNG.integers(-4, 4, size=(3, 2))
    same_as_torch(lambda x: T.take_along_dim(x, T.tensor(idx), dim=1),
                  lambda x: torch.take_along_dim(x, torch.tensor(idx), dim=1), [a])
    # broadcasting of input and indices outside dim
    same_as_torch(lambda x: T.take_along_dim(x, T.tensor(idx[:1]), 1),
                  lambda x: torch.take_along_dim(x, torch.tensor(idx[:1]), 1), [a])
    same_as_torch(lambda x: x.take_along_dim(T.tensor(idx[:, :1] % 3), 0),
                  lambda x: x.take_along_dim(torch.tensor(idx[:, :1] % 3), 0), [arr(3, 1)])
    flat = RNG.integers(0, 12, size=(5,))
    same_as_torch(lambda x: T.take_along_dim(x, T.tensor(flat)),
                  lambda x: torch.take_along_dim(x, torch.tensor(flat)), [a])
    gc(lambda x: T.take_along_dim(x, T.tensor(idx), 1), a)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        T.take_along_dim(T.tensor(a), T.tensor(flat), 1)
    with pytest.raises(RuntimeError):
        torch.take_along_dim(torch.tensor(a), torch.tensor(flat), 1)
    with pytest.raises(TypeError):
        T.take_along_dim(T.tensor(a), T.tensor(a), 1)
    paddle = pytest.importorskip("paddle")
    a32 = a.astype(np.float32)
    np.testing.assert_array_equal(
        oar.take_along_dim(oar.to_tensor(a32), oar.to_tensor(idx[:1]), 1).numpy(),
        paddle.take_along_dim(paddle.to_tensor(a32), paddle.to_tensor(idx[:1]), 1).numpy())


# ------------------------------------------------------------------ tensordot, matrix_power, multi_dot
@pytest.mark.parametrize("shapes,dims", [(((3, 4, 5), (4, 5, 2)), 2), (((3, 4), (4, 2)), 1),
                                         (((3, 4), (2, 5)), 0),
                                         (((3, 4, 5), (5, 3, 2)), ([0, 2], [1, 0])),
                                         (((1, 1, 1), (2, 1, 2)), ([0, 1], [2, 0]))])
def test_tensordot_against_torch(shapes, dims):
    arrays = [arr(*s) for s in shapes]
    same_as_torch(lambda x, y: T.tensordot(x, y, dims), lambda x, y: torch.tensordot(x, y, dims),
                  arrays)
    gc(lambda x, y: T.tensordot(x, y, dims), *arrays)


def test_tensordot_errors_and_paddle():
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        T.tensordot(ot(arr(3, 4)), ot(arr(3, 4)), 1)
    with pytest.raises(RuntimeError):
        torch.tensordot(tt(arr(3, 4)), tt(arr(3, 4)), 1)
    with pytest.raises(RuntimeError):
        T.tensordot(ot(arr(3, 4)), ot(arr(3, 4)), -1)
    paddle = pytest.importorskip("paddle")
    x, y = arr(3, 4, 5, dtype=np.float32), arr(4, 5, 2, dtype=np.float32)
    for axes in (2, [[1, 2], [0, 1]]):
        np.testing.assert_allclose(
            oar.tensordot(oar.to_tensor(x), oar.to_tensor(y), axes).numpy(),
            paddle.tensordot(paddle.to_tensor(x), paddle.to_tensor(y), axes).numpy(), rtol=1e-5)
    sq = arr(3, 3, 3, dtype=np.float32)   # Paddle: one list for both operands
    np.testing.assert_allclose(
        oar.tensordot(oar.to_tensor(sq), oar.to_tensor(sq), [[0, 1]]).numpy(),
        paddle.tensordot(paddle.to_tensor(sq), paddle.to_tensor(sq), [[0, 1]]).numpy(),
        rtol=1e-5)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, -1, -3])
def test_matrix_power_against_torch(n):
    a = arr(2, 3, 3) + 3 * np.eye(3)   # well conditioned for the negative powers
    same_as_torch(lambda x: T.matrix_power(x, n), lambda x: torch.matrix_power(x, n), [a], tol=1e-8)
    same_as_torch(lambda x: T.linalg.matrix_power(x, n), lambda x: torch.linalg.matrix_power(x, n),
                  [a], tol=1e-8)
    same_as_torch(lambda x: x.matrix_power(n), lambda x: x.matrix_power(n), [a], tol=1e-8)
    if n:
        gc(lambda x: T.matrix_power(x, n), a)


def test_matrix_power_int_errors_paddle():
    i = np.array([[1, 2], [3, 4]])
    close(T.matrix_power(ot(i), 3), torch.matrix_power(tt(i), 3))
    with pytest.raises(RuntimeError, match="square"):
        T.linalg.matrix_power(ot(arr(2, 3)), 2)
    with pytest.raises(RuntimeError):
        torch.linalg.matrix_power(tt(arr(2, 3)), 2)
    paddle = pytest.importorskip("paddle")
    a = (arr(3, 3) + 3 * np.eye(3)).astype(np.float32)
    for n in (0, 2, 5, -2):
        np.testing.assert_allclose(oar.linalg.matrix_power(oar.to_tensor(a), n).numpy(),
                                   paddle.linalg.matrix_power(paddle.to_tensor(a), n).numpy(),
                                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3, 4), (4, 2)),
                                    ((2, 3), (3, 4), (4,)), ((3,), (3, 4), (4,)),
                                    ((2, 3), (3, 4), (4, 5), (5, 2))])
def test_multi_dot_against_torch(shapes):
    arrays = [arr(*s) for s in shapes]
    same_as_torch(lambda *xs: T.linalg.multi_dot(list(xs)),
                  lambda *xs: torch.linalg.multi_dot(list(xs)), arrays)
    gc(lambda *xs: T.linalg.multi_dot(list(xs)), *arrays)
    paddle = pytest.importorskip("paddle")
    f = [a.astype(np.float32) for a in arrays]
    np.testing.assert_allclose(oar.linalg.multi_dot([oar.to_tensor(a) for a in f]).numpy(),
                               paddle.linalg.multi_dot([paddle.to_tensor(a) for a in f]).numpy(),
                               rtol=1e-5)


def test_multi_dot_errors():
    with pytest.raises(RuntimeError, match="at least 2"):
        T.linalg.multi_dot([ot(arr(2, 2))])
    with pytest.raises(RuntimeError):
        torch.linalg.multi_dot([tt(arr(2, 2))])
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        T.linalg.multi_dot([ot(arr(2, 3)), ot(arr(2, 3))])
    with pytest.raises(RuntimeError, match="must be 2D"):
        T.linalg.multi_dot([ot(arr(2, 3)), ot(arr(3)), ot(arr(3, 2))])


# ------------------------------------------------------------------ isin
def test_isin_both_doors():
    x, s = np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 5, 9])
    for kw in ({}, {"invert": True}, {"assume_unique": True}):
        close(T.isin(ot(x), ot(s), **kw), torch.isin(tt(x), tt(s), **kw))
    close(T.isin(ot(x), 3), torch.isin(tt(x), 3))
    close(T.isin(2, ot(s)), torch.isin(2, tt(s)))
    close(T.isin(nc(x.astype(np.float64)), ot(s.astype(np.float64))),
          torch.isin(tt(x.astype(np.float64)), tt(s.astype(np.float64))))
    paddle = pytest.importorskip("paddle")
    np.testing.assert_array_equal(
        oar.isin(oar.to_tensor(x), oar.to_tensor(s), invert=True).numpy(),
        paddle.isin(paddle.to_tensor(x), paddle.to_tensor(s), invert=True).numpy())
    np.testing.assert_array_equal(oar.to_tensor(x).isin(oar.to_tensor(s)).numpy(),
                                  np.isin(x, s))


# ------------------------------------------------------------------ Paddle's broadcast helpers, atleast_*d
def test_paddle_broadcast_and_atleast():
    paddle = pytest.importorskip("paddle")
    assert oar.broadcast_shape([3, 1], [4]) == paddle.broadcast_shape([3, 1], [4])
    assert oar.broadcast_shapes([3, 1], [4], [2, 1, 1]) == \
        paddle.broadcast_shapes([3, 1], [4], [2, 1, 1])
    with pytest.raises(ValueError):
        oar.broadcast_shape([3], [4])
    a, b = oar.to_tensor(arr(3, 1)), oar.to_tensor(arr(4))
    outs = oar.broadcast_tensors([a, b])
    pouts = paddle.broadcast_tensors([paddle.to_tensor(a.numpy()), paddle.to_tensor(b.numpy())])
    assert isinstance(outs, list) and len(outs) == 2
    for o, p in zip(outs, pouts):
        np.testing.assert_array_equal(o.numpy(), p.numpy())
    with pytest.raises(ValueError):
        oar.broadcast_tensors([oar.to_tensor(arr(3)), oar.to_tensor(arr(4))])
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for shape in ((), (2,), (2, 3), (2, 3, 4)):
            a = arr(*shape).astype(np.float32)
            o = getattr(oar, name)(oar.to_tensor(a))
            p = getattr(paddle, name)(paddle.to_tensor(a))
            assert list(o.shape) == list(p.shape), (name, shape)
        several = getattr(oar, name)(oar.to_tensor(1.0), oar.to_tensor(arr(2)))
        assert isinstance(several, list) and len(several) == 2
    assert oar.atleast_2d(oar.to_tensor(arr(3))).shape == [1, 3]
    assert oar.atleast_3d(oar.to_tensor(arr(2, 3))).shape == [2, 3, 1]
    # the torch door keeps torch's own (tuples)
    assert isinstance(T.broadcast_tensors(ot(arr(3, 1)), ot(arr(4))), tuple)
    assert isinstance(T.atleast_1d(ot(arr(2)), ot(arr(3))), tuple)


def test_paddle_reduction_order_keeps_keepdim():
    """sum/nansum(x, axis, dtype, keepdim) in Paddle's positional order keep keepdim (the
    shared reduction wrapper once dropped it when dtype came third)."""
    paddle = pytest.importorskip("paddle")
    a = arr(2, 3).astype(np.float32)
    for name in ("sum", "nansum"):
        o = getattr(oar, name)(oar.to_tensor(a), 0, "float64", True)
        p = getattr(paddle, name)(paddle.to_tensor(a), 0, "float64", True)
        assert list(o.shape) == list(p.shape) == [1, 3]
        assert o.dtype == oar.float64


# ------------------------------------------------------------------ predicates, heaviside, positive
def test_predicates_both_doors():
    x = np.array([-0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, np.nan])
    i = np.array([-3, 0, 4])
    for name in ("signbit", "isneginf", "isposinf", "isreal"):
        for a in (x, i, x.astype(np.float32)):
            close(getattr(T, name)(ot(a)), getattr(torch, name)(tt(a)))
        close(getattr(ot(x), name)(), getattr(tt(x), name)())
    close(T.isreal(ot(np.array([1 + 0j, 1j]))), torch.isreal(tt(np.array([1 + 0j, 1j]))))
    close(T.isneginf(nc(x)), torch.isneginf(tt(x)))
    close(T.isposinf(nc(x)), torch.isposinf(tt(x)))
    out = T.empty(7, dtype=T.bool)
    T.signbit(ot(x), out=out)
    close(out, torch.signbit(tt(x)))
    with pytest.raises(NotImplementedError):
        T.signbit(ot(np.array([1j])))
    paddle = pytest.importorskip("paddle")
    x32 = x.astype(np.float32)
    for name in ("signbit", "isneginf", "isposinf", "isreal"):
        np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(x32)).numpy(),
                                      getattr(paddle, name)(paddle.to_tensor(x32)).numpy())


def test_heaviside_positive():
    x, v = np.array([-1.5, 0.0, 2.0, 0.0]), np.array([0.25, 0.5, 0.75, 1.0])
    close(T.heaviside(ot(x), ot(v)), torch.heaviside(tt(x), tt(v)))
    close(ot(x).heaviside(ot(np.array(0.5))), tt(x).heaviside(tt(np.array(0.5))))
    o, t = ot(x), tt(x)
    assert o.heaviside_(ot(v)) is o and o._version == 1
    close(o, t.heaviside_(tt(v)))
    i = np.array([-2, 0, 3])
    close(T.heaviside(ot(i), ot(np.array([7, 7, 7]))), torch.heaviside(tt(i), tt(np.array([7, 7, 7]))))
    with pytest.raises(RuntimeError, match="different dtypes"):
        T.heaviside(ot(x), ot(np.array(0.5, np.float32)))
    with pytest.raises(RuntimeError):
        torch.heaviside(tt(x), tt(np.array(0.5, np.float32)))
    a = ot(x)
    assert T.positive(a) is a and torch.positive(tt(x)) is not None
    with pytest.raises(RuntimeError, match="bool"):
        T.positive(ot(np.array([True])))
    paddle = pytest.importorskip("paddle")
    x32, v32 = x.astype(np.float32), v.astype(np.float32)
    np.testing.assert_array_equal(
        oar.heaviside(oar.to_tensor(x32), oar.to_tensor(v32)).numpy(),
        paddle.heaviside(paddle.to_tensor(x32), paddle.to_tensor(v32)).numpy())
    np.testing.assert_array_equal(oar.positive(oar.to_tensor(x32)).numpy(),
                                  paddle.positive(paddle.to_tensor(x32)).numpy())


# ------------------------------------------------------------------ inner, vdot, ger, argwhere
def test_inner_vdot_ger_argwhere():
    same_as_torch(T.inner, torch.inner, [arr(4), arr(4)])
    same_as_torch(T.inner, torch.inner, [arr(2, 3, 4), arr(5, 4)])
    same_as_torch(T.inner, torch.inner, [np.array(1.5), arr(2, 3)])
    same_as_torch(T.vdot, torch.vdot, [arr(4), arr(4)])
    same_as_torch(lambda x, y: x.vdot(y), lambda x, y: x.vdot(y), [arr(4), arr(4)])
    same_as_torch(T.ger, torch.ger, [arr(3), arr(4)])
    gc(T.inner, arr(2, 4), arr(3, 4))
    gc(T.vdot, arr(4), arr(4))
    with pytest.raises(RuntimeError, match="last dimension must match"):
        T.inner(ot(arr(2, 3)), ot(arr(2, 4)))
    with pytest.raises(RuntimeError):
        torch.inner(tt(arr(2, 3)), tt(arr(2, 4)))
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        T.vdot(ot(arr(2, 2)), ot(arr(2, 2)))
    b = np.array([[0, 1, 0], [2, 0, 3]])
    close(T.argwhere(ot(b)), torch.argwhere(tt(b)))
    close(ot(b).argwhere(), tt(b).argwhere())
    paddle = pytest.importorskip("paddle")
    x, y = arr(2, 4, dtype=np.float32), arr(3, 4, dtype=np.float32)
    np.testing.assert_allclose(oar.inner(oar.to_tensor(x), oar.to_tensor(y)).numpy(),
                               paddle.inner(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(oar.ger(oar.to_tensor(x[0]), oar.to_tensor(y[0])).numpy(),
                               paddle.ger(paddle.to_tensor(x[0]), paddle.to_tensor(y[0])).numpy(),
                               rtol=1e-6)
    np.testing.assert_array_equal(oar.argwhere(oar.to_tensor(b)).numpy(),
                                  paddle.argwhere(paddle.to_tensor(b)).numpy())


# ------------------------------------------------------------------ trapezoid, cumulative_trapezoid
@pytest.mark.parametrize("kind", ["plain", "dx", "x1d", "xnd", "dim0", "int"])
def test_trapezoid_against_torch(kind):
    y = arr(3, 4)
    xs = np.sort(arr(4))
    def same(*args):
        return same_as_torch(*args, node=False)
    for tname in ("trapezoid", "trapz", "cumulative_trapezoid"):
        fo, ft = getattr(T, tname), getattr(torch, tname)
        if kind == "plain":
            same(fo, ft, [y])
        elif kind == "dx":
            same(lambda a: fo(a, dx=0.5), lambda a: ft(a, dx=0.5), [y])
        elif kind == "x1d":
            same(lambda a, b: fo(a, b), lambda a, b: ft(a, b), [y, xs])
        elif kind == "xnd":
            xn = np.sort(arr(3, 4), axis=1)
            same(lambda a, b: fo(a, b), lambda a, b: ft(a, b), [y, xn])
        elif kind == "dim0":
            same(lambda a: fo(a, dim=0), lambda a: ft(a, dim=0), [y])
        else:
            i = np.array([[1, 2, 4], [0, 3, 9]])
            close(fo(ot(i)), ft(tt(i)), 1e-6)
    gc(lambda a, b: T.trapezoid(a, b), y, xs)
    close(T.trapz(ot(y), ot(xs)), torch.trapz(tt(y), tt(xs)))
    gc(lambda a: T.cumulative_trapezoid(a, dx=2.0, dim=0), y)


def test_trapezoid_paddle_door():
    paddle = pytest.importorskip("paddle")
    y, x = arr(3, 4, dtype=np.float32), np.sort(arr(4)).astype(np.float32)
    for name in ("trapezoid", "cumulative_trapezoid"):
        for kw in ({}, {"dx": 0.5}, {"axis": 0}):
            np.testing.assert_allclose(
                getattr(oar, name)(oar.to_tensor(y), **kw).numpy(),
                getattr(paddle, name)(paddle.to_tensor(y), **kw).numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(
            getattr(oar, name)(oar.to_tensor(y), oar.to_tensor(x)).numpy(),
            getattr(paddle, name)(paddle.to_tensor(y), paddle.to_tensor(x)).numpy(), rtol=1e-5,
            atol=1e-6)
    with pytest.raises(ValueError):
        oar.trapezoid(oar.to_tensor(y), oar.to_tensor(x), dx=1.0)


# ------------------------------------------------------------------ block_diag, cartesian_prod
def test_block_diag_cartesian_prod():
    same_as_torch(lambda a, b, c: T.block_diag(a, b, c), lambda a, b, c: torch.block_diag(a, b, c),
                  [arr(2, 3), np.array(1.5), arr(2)], node=False)   # KNOWN: CatBackward0
    one = arr(1, 1)
    close(T.block_diag(ot(np.array([[1, 2]])), ot(one)),
          torch.block_diag(tt(np.array([[1, 2]])), tt(one)))
    gc(lambda a, b: T.block_diag(a, b), arr(2, 3), arr(1, 2))
    with pytest.raises(RuntimeError, match="2 or fewer"):
        T.block_diag(ot(arr(1, 1, 1)))
    same_as_torch(lambda a, b: T.cartesian_prod(a, b), lambda a, b: torch.cartesian_prod(a, b),
                  [arr(3), arr(2)])
    i, j = np.array([1, 2]), np.array([3, 4, 5])
    close(T.cartesian_prod(ot(i), ot(j), ot(i)), torch.cartesian_prod(tt(i), tt(j), tt(i)))
    one = ot(i)
    assert T.cartesian_prod(one) is one
    with pytest.raises(RuntimeError, match="1D vector"):
        T.cartesian_prod(ot(arr(2, 2)), ot(arr(2)))
    paddle = pytest.importorskip("paddle")
    a, b = arr(2, 3, dtype=np.float32), arr(2, dtype=np.float32)
    np.testing.assert_array_equal(
        oar.block_diag([oar.to_tensor(a), oar.to_tensor(b)]).numpy(),
        paddle.block_diag([paddle.to_tensor(a), paddle.to_tensor(b)]).numpy())
    np.testing.assert_array_equal(
        oar.cartesian_prod([oar.to_tensor(i), oar.to_tensor(j)]).numpy(),
        paddle.cartesian_prod([paddle.to_tensor(i), paddle.to_tensor(j)]).numpy())


# ------------------------------------------------------------------ cov, corrcoef
@pytest.mark.parametrize("shape", [(3, 5), (5,), (1, 4)])
def test_cov_corrcoef_against_torch(shape):
    m = arr(*shape)
    same_as_torch(T.cov, torch.cov, [m])
    same_as_torch(lambda a: a.cov(correction=0), lambda a: a.cov(correction=0), [m])
    same_as_torch(T.corrcoef, torch.corrcoef, [m], node=False)
    n = shape[-1]
    fw, aw = RNG.integers(1, 4, size=n), RNG.uniform(0.5, 1.5, size=n)
    same_as_torch(lambda a: T.cov(a, fweights=T.tensor(fw), aweights=T.tensor(aw)),
                  lambda a: torch.cov(a, fweights=torch.tensor(fw), aweights=torch.tensor(aw)),
                  [m])
    gc(lambda a: T.cov(a, aweights=T.tensor(aw)), m)
    gc(T.corrcoef, arr(3, 5))


def test_cov_corrcoef_errors_and_paddle():
    with pytest.raises(RuntimeError, match="two or fewer"):
        T.cov(ot(arr(2, 2, 2)))
    with pytest.raises(RuntimeError):
        torch.cov(tt(arr(2, 2, 2)))
    with pytest.raises(TypeError, match="integral"):
        T.cov(ot(arr(2, 3)), fweights=ot(arr(3)))
    paddle = pytest.importorskip("paddle")
    m = arr(3, 5, dtype=np.float32)
    for kw in ({}, {"rowvar": False}, {"ddof": False}):
        np.testing.assert_allclose(oar.linalg.cov(oar.to_tensor(m), **kw).numpy(),
                                   paddle.linalg.cov(paddle.to_tensor(m), **kw).numpy(),
                                   rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(oar.linalg.corrcoef(oar.to_tensor(m), rowvar=False).numpy(),
                               paddle.linalg.corrcoef(paddle.to_tensor(m), rowvar=False).numpy(),
                               rtol=1e-5, atol=1e-6)
