"""Ops of oar/ops/more_ops3.py and oar/torch/_ops3.py in both doors: float_power (+ in place),
frexp, nextafter (+ in place), diag_embed, nanmedian, quantile / nanquantile, vander (and
torch.linalg.vander), matrix_exp (torch top level, method and linalg; paddle.linalg).

Values, dtypes and float64 gradients against torch 2.13 (the torch door) and paddle 3.3.1 (the
Paddle door); finite differences (gradcheck) on non-contiguous inputs; errors."""
import numpy as np
import pytest

import oar
import oar.torch as T
from oar.autograd import gradcheck
from tests.test_breadth_ops2 import close, nc, ot, tt  # noqa: F401  (shared helpers)

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)


def arr(*shape, dtype=np.float64, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def same_as_torch(fn_o, fn_t, arrays, grad=True, tol=1e-10, node=True):
    """fn over oar.torch tensors (non-contiguous) and over torch tensors: values, dtype, node
    name, and the gradient of a random cotangent for every float input."""
    xs_o = [nc(a) for a in arrays]
    for x, a in zip(xs_o, arrays):
        if grad and a.dtype.kind == "f":
            x.requires_grad_(True)
    xs_t = [tt(a, grad and a.dtype.kind == "f") for a in arrays]
    ro, rt = fn_o(*xs_o), fn_t(*xs_t)
    if isinstance(rt, tuple):
        assert type(ro).__name__ == type(rt).__name__
        for a, b in zip(ro, rt):
            close(a, b, tol)
        ro, rt = ro[0], rt[0]
    close(ro, rt, tol)
    if grad and rt.requires_grad:
        if node:
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


def pd_close(o, p, tol=1e-6):
    o = o.numpy()
    p = p.numpy()
    assert o.shape == p.shape, (o.shape, p.shape)
    assert o.dtype == p.dtype, (o.dtype, p.dtype)
    np.testing.assert_allclose(o, p, rtol=tol, atol=tol)


# ------------------------------------------------------------------ float_power
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_float_power_against_torch(dtype):
    x = arr(3, 4, lo=0.5, hi=2.0).astype(dtype) if dtype != np.int64 else \
        RNG.integers(1, 5, (3, 4))
    y = arr(4, lo=-1.5, hi=1.5)
    same_as_torch(lambda a: T.float_power(a, 2), lambda a: torch.float_power(a, 2), [x],
                  grad=dtype == np.float64)
    same_as_torch(lambda a, b: T.float_power(a, b), lambda a, b: torch.float_power(a, b),
                  [x, y], grad=dtype == np.float64)
    same_as_torch(lambda a: a.float_power(1.5), lambda a: a.float_power(1.5), [x],
                  grad=dtype == np.float64)
    close(T.float_power(2, ot(y)), torch.float_power(2, tt(y)))
    gc(lambda a, b: T.float_power(a, b), arr(3, 4, lo=0.5, hi=2.0), y)


def test_float_power_inplace():
    x = arr(3, 4, lo=0.5, hi=2.0)
    o, t = nc(x), tt(x).clone()
    v = o._version
    assert o.float_power_(1.5) is o and o._version == v + 1
    t.float_power_(1.5)
    close(o, t)
    f32 = T.tensor(x.astype(np.float32))
    with pytest.raises(RuntimeError, match="float_power_"):
        f32.float_power_(2)
    with pytest.raises(RuntimeError):
        torch.tensor(x.astype(np.float32)).float_power_(2)
    np.testing.assert_array_equal(f32.numpy(), x.astype(np.float32))


# ------------------------------------------------------------------ frexp
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_frexp_against_torch(dtype):
    x = arr(3, 5, lo=-50, hi=50).astype(dtype)
    x[0, :4] = [0.0, np.inf, -np.inf, np.nan]
    o, t = T.frexp(nc(x)), torch.frexp(tt(x))
    assert type(o).__name__ == "frexp" and o._fields == ("mantissa", "exponent")
    close(o.mantissa, t.mantissa, 0)
    close(o.exponent, t.exponent, 0)
    close(nc(x).frexp()[1], tt(x).frexp()[1], 0)
    xg = arr(3, 5, lo=-50, hi=50)
    same_as_torch(lambda a: T.frexp(a).mantissa, lambda a: torch.frexp(a).mantissa, [xg],
                  node=False)
    with pytest.raises(TypeError):
        T.frexp(T.tensor([1, 2]))


def test_frexp_against_paddle():
    paddle = pytest.importorskip("paddle")
    x = arr(3, 5, lo=-50, hi=50, dtype=np.float32)
    x[0, :2] = [0.0, np.nan]
    for a, b in zip(oar.frexp(oar.to_tensor(x)), paddle.frexp(paddle.to_tensor(x))):
        pd_close(a, b, 0)


# ------------------------------------------------------------------ nextafter
def test_nextafter_against_torch_and_paddle():
    for dt in (np.float32, np.float64):
        x, y = arr(3, 4).astype(dt), arr(4).astype(dt)
        y[0] = x[0, 0]
        close(T.nextafter(nc(x), ot(y)), torch.nextafter(tt(x), tt(y)), 0)
        close(nc(x).nextafter(ot(y)), tt(x).nextafter(tt(y)), 0)
        o, t = nc(x), tt(x).clone()
        assert o.nextafter_(ot(y)) is o
        t.nextafter_(tt(y))
        close(o, t, 0)
    with pytest.raises(NotImplementedError):
        T.nextafter(T.tensor([1, 2]), T.tensor([3, 4]))
    paddle = pytest.importorskip("paddle")
    x, y = arr(3, 4, dtype=np.float32), arr(3, 4, dtype=np.float32)
    pd_close(oar.nextafter(oar.to_tensor(x), oar.to_tensor(y)),
             paddle.nextafter(paddle.to_tensor(x), paddle.to_tensor(y)), 0)


# ------------------------------------------------------------------ diag_embed
@pytest.mark.parametrize("offset,d1,d2", [(0, -2, -1), (1, 0, 2), (-2, 2, 0), (1, -1, 1)])
def test_diag_embed_against_torch_and_paddle(offset, d1, d2):
    x = arr(2, 3)
    same_as_torch(lambda a: T.diag_embed(a, offset, d1, d2),
                  lambda a: torch.diag_embed(a, offset, d1, d2), [x])
    same_as_torch(lambda a: a.diag_embed(offset=offset, dim1=d1, dim2=d2),
                  lambda a: a.diag_embed(offset=offset, dim1=d1, dim2=d2), [x])
    gc(lambda a: T.diag_embed(a, offset, d1, d2), x)
    paddle = pytest.importorskip("paddle")
    xf = x.astype(np.float32)
    pd_close(oar.diag_embed(oar.to_tensor(xf), offset, d1, d2),
             paddle.diag_embed(paddle.to_tensor(xf), offset, d1, d2), 0)
    with pytest.raises(RuntimeError, match="identical"):
        T.diag_embed(ot(x), 0, 1, 1)


# ------------------------------------------------------------------ nanmedian
def _with_nans(*shape):
    x = arr(*shape)
    x.reshape(-1)[::4] = np.nan
    return x


def test_nanmedian_against_torch():
    x = _with_nans(4, 5)
    x[3] = np.nan     # an all-NaN row
    same_as_torch(T.nanmedian, torch.nanmedian, [_with_nans(4, 5)])
    for d, kd in ((0, False), (1, True), (-1, False)):
        same_as_torch(lambda a: T.nanmedian(a, d, kd), lambda a: torch.nanmedian(a, d, kd), [x])
        same_as_torch(lambda a: a.nanmedian(dim=d, keepdim=kd),
                      lambda a: a.nanmedian(dim=d, keepdim=kd), [x])
    close(T.nanmedian(ot(x)), torch.nanmedian(tt(x)))
    xi = RNG.integers(0, 9, (3, 6))
    same_as_torch(lambda a: T.nanmedian(a, 1), lambda a: torch.nanmedian(a, 1), [xi])
    gc(lambda a: T.nanmedian(a, 1).values, arr(3, 5))


def test_nanmedian_against_paddle():
    paddle = pytest.importorskip("paddle")
    x = _with_nans(4, 6).astype(np.float32)
    x[3] = np.nan
    for kw in ({}, {"axis": 1}, {"axis": 0, "keepdim": True}, {"axis": 1, "mode": "min"}):
        o = oar.nanmedian(oar.to_tensor(x), **kw)
        p = paddle.nanmedian(paddle.to_tensor(x), **kw)
        for a, b in zip(o if isinstance(o, tuple) else [o], p if isinstance(p, tuple) else [p]):
            pd_close(a, b)
    # gradients of distinct values
    x = arr(3, 6).astype(np.float32)
    xo, xp = oar.to_tensor(x, stop_gradient=False), paddle.to_tensor(x, stop_gradient=False)
    oar.nanmedian(xo, axis=1).sum().backward()
    paddle.nanmedian(xp, axis=1).sum().backward()
    pd_close(xo.grad, xp.grad)


# ------------------------------------------------------------------ quantile, nanquantile
@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_against_torch(name, interp):
    ft, fo = getattr(torch, name), getattr(T, name)
    x = arr(4, 9)
    xn = _with_nans(4, 9)
    xn[2] = np.nan
    for a in (x, xn):
        # which NaN of a row the gradient of a NaN quantile reaches is torch's unstable sort's
        # choice: gradients are compared where the result is a number
        grad = name == "nanquantile" or a is x
        for q in (0.3, 0.625, 0.0, 1.0):
            same_as_torch(lambda v: fo(v, q, 1, interpolation=interp),
                          lambda v: ft(v, q, 1, interpolation=interp), [a], node=False,
                          grad=grad)
        qs = np.array([0.25, 0.5, 0.875])
        same_as_torch(lambda v: fo(v, T.tensor(qs), -1, True, interpolation=interp),
                      lambda v: ft(v, torch.tensor(qs), -1, True, interpolation=interp), [a],
                      node=False, grad=grad)
        same_as_torch(lambda v: fo(v, T.tensor(qs), keepdim=True, interpolation=interp),
                      lambda v: ft(v, torch.tensor(qs), keepdim=True, interpolation=interp),
                      [a], node=False, grad=grad)
        same_as_torch(lambda v: getattr(v, name)(0.4, dim=0, interpolation=interp),
                      lambda v: getattr(v, name)(0.4, dim=0, interpolation=interp), [a],
                      node=False, grad=grad)
    gc(lambda v: fo(v, T.tensor([0.3, 0.7], dtype=T.float64), 1, interpolation=interp), x)


def test_quantile_errors():
    x = ot(arr(3, 4))
    for bad, cls in ((1.5, RuntimeError), (T.tensor([0.5], dtype=T.float32), RuntimeError)):
        with pytest.raises(cls):
            T.quantile(x, bad)
        with pytest.raises(cls):
            torch.quantile(tt(arr(3, 4)), bad if not isinstance(bad, T.Tensor)
                           else torch.tensor([0.5]))
    with pytest.raises(TypeError):
        T.quantile(T.tensor([1, 2, 3]), 0.5)
    with pytest.raises(ValueError):
        T.quantile(x, 0.5, interpolation="cubic")
    with pytest.raises(RuntimeError, match="non-empty"):
        T.nanquantile(T.tensor([], dtype=T.float64), 0.5)
    with pytest.raises(RuntimeError):
        torch.nanquantile(torch.tensor([], dtype=torch.float64), 0.5)


@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_against_paddle(interp):
    paddle = pytest.importorskip("paddle")
    x = arr(4, 6, 3).astype(np.float32)
    xn = x.copy()
    xn[0, 1, 2] = np.nan
    for name, a in (("quantile", x), ("nanquantile", xn)):
        for q, kw in ((0.3, {}), ([0.2, 0.5], {"axis": 1}), (0.75, {"axis": [0, 2]}),
                      (0.5, {"axis": -1, "keepdim": True})):
            o = getattr(oar, name)(oar.to_tensor(a), q, interpolation=interp, **kw)
            p = getattr(paddle, name)(paddle.to_tensor(a), q, interpolation=interp, **kw)
            pd_close(o, p, 1e-5)
    xo = oar.to_tensor(x, stop_gradient=False)
    xp = paddle.to_tensor(x, stop_gradient=False)
    oar.quantile(xo, [0.3, 0.6], axis=1, interpolation=interp).sum().backward()
    paddle.quantile(xp, [0.3, 0.6], axis=1, interpolation=interp).sum().backward()
    pd_close(xo.grad, xp.grad, 1e-5)


# ------------------------------------------------------------------ vander
def test_vander_against_torch_and_paddle():
    x = arr(4)
    for n, inc in ((None, False), (3, True), (6, False), (1, True), (0, False)):
        same_as_torch(lambda a: T.vander(a, n, inc), lambda a: torch.vander(a, n, inc), [x],
                      grad=False)
        # torch 2.13's own backward of torch.vander fails (an in-place cumprod_ into a saved
        # tensor): gradients against torch.linalg.vander, flipped as torch.vander flips it
        if n not in (0, 1):
            same_as_torch(lambda a: T.vander(a, n, inc),
                          lambda a: (lambda v: v if inc else v.flip(-1))(
                              torch.linalg.vander(a, N=n)), [x])
    xi = RNG.integers(-3, 4, 5)
    close(T.vander(ot(xi), 3), torch.vander(tt(xi), 3), 0)
    close(T.vander(ot(xi.astype(np.int32))), torch.vander(tt(xi.astype(np.int32))), 0)
    x0 = np.array([0.0, 1.5, -2.0])
    same_as_torch(lambda a: T.vander(a, 4), lambda a: torch.linalg.vander(a, N=4).flip(-1), [x0])
    same_as_torch(lambda a: T.linalg.vander(a, N=4), lambda a: torch.linalg.vander(a, N=4),
                  [arr(2, 3)])
    same_as_torch(T.linalg.vander, torch.linalg.vander, [arr(3)])
    gc(lambda a: T.vander(a, 5, True), x0)
    with pytest.raises(RuntimeError):
        T.vander(ot(arr(2, 2)))
    paddle = pytest.importorskip("paddle")
    xf = x.astype(np.float32)
    for n, inc in ((None, False), (3, True), (5, False)):
        pd_close(oar.vander(oar.to_tensor(xf), n, inc),
                 paddle.vander(paddle.to_tensor(xf), n, inc))


# ------------------------------------------------------------------ matrix_exp
@pytest.mark.parametrize("shape,scale", [((3, 3), 0.5), ((2, 4, 4), 3.0), ((1, 1), 1.0),
                                         ((5, 5), 40.0)])
def test_matrix_exp_against_torch(shape, scale):
    a = arr(*shape) * scale
    tol = 1e-10 * max(1.0, float(np.abs(torch.linalg.matrix_exp(tt(a)).numpy()).max()))
    same_as_torch(T.linalg.matrix_exp, torch.linalg.matrix_exp, [a], tol=tol)
    same_as_torch(T.matrix_exp, torch.matrix_exp, [a], tol=tol)
    same_as_torch(lambda v: v.matrix_exp(), lambda v: v.matrix_exp(), [a], tol=tol)
    f = arr(*shape).astype(np.float32)
    close(T.matrix_exp(ot(f)), torch.matrix_exp(tt(f)), 1e-5)


def test_matrix_exp_gradients_and_complex():
    gc(T.linalg.matrix_exp, arr(2, 3, 3))
    a = arr(3, 3) + 1j * arr(3, 3)
    same_as_torch(T.linalg.matrix_exp, torch.linalg.matrix_exp, [a])   # complex gradient too
    with pytest.raises(RuntimeError, match="square"):
        T.linalg.matrix_exp(ot(arr(2, 3)))
    with pytest.raises(TypeError):
        T.linalg.matrix_exp(T.tensor([[1, 2], [3, 4]]))
    paddle = pytest.importorskip("paddle")
    m = arr(2, 4, 4).astype(np.float32)
    pd_close(oar.linalg.matrix_exp(oar.to_tensor(m)),
             paddle.linalg.matrix_exp(paddle.to_tensor(m)), 1e-5)


def test_quantile_q_tensor_gradient_and_zero_dim():
    """PyTorch differentiates the linear weights with respect to a q tensor."""
    x, q = arr(3, 7), np.array([0.15, 0.4, 0.9])   # ranks away from integers (kinks)
    for name in ("quantile", "nanquantile"):
        same_as_torch(lambda a, b: getattr(T, name)(a, b, 1),
                      lambda a, b: getattr(torch, name)(a, b, 1), [x, q], node=False)
    gc(lambda a, b: T.quantile(a, b, 0), x, q)
    same_as_torch(lambda a: T.quantile(a, 0.3, 0), lambda a: torch.quantile(a, 0.3, 0),
                  [np.array(1.5)], node=False)
    close(T.linalg.vander(ot(np.array(2.0)), N=3), torch.linalg.vander(tt(np.array(2.0)), N=3))


# ------------------------------------------------------------------ scatter into a view, index_copy
def test_select_slice_diagonal_scatter_against_torch():
    x = arr(3, 4, 5)
    same_as_torch(lambda a, b: T.select_scatter(a, b, 1, -2),
                  lambda a, b: torch.select_scatter(a, b, 1, -2), [x, arr(3, 5)], node=False)
    same_as_torch(lambda a, b: T.slice_scatter(a, b, 1, 0, 4, 2),
                  lambda a, b: torch.slice_scatter(a, b, 1, 0, 4, 2), [x, arr(3, 2, 5)],
                  node=False)
    same_as_torch(lambda a, b: a.slice_scatter(b, dim=2, start=1),
                  lambda a, b: a.slice_scatter(b, dim=2, start=1), [x, arr(3, 4, 4)],
                  node=False)
    same_as_torch(lambda a, b: T.diagonal_scatter(a, b, 1, 0, 1),
                  lambda a, b: torch.diagonal_scatter(a, b, 1, 0, 1), [x, arr(5, 3)],
                  node=False)
    same_as_torch(lambda a, b: a.diagonal_scatter(b, dim1=2, dim2=1),
                  lambda a, b: a.diagonal_scatter(b, dim1=2, dim2=1), [x, arr(3, 4)],
                  node=False)
    gc(lambda a, b: T.select_scatter(a, b, 0, 1), x, arr(4, 5))
    gc(lambda a, b: T.diagonal_scatter(a, b, -1, 1, 2), x, arr(3, 3))
    with pytest.raises(RuntimeError, match="size"):
        T.select_scatter(ot(x), ot(arr(3, 4)), 1, 0)
    with pytest.raises(RuntimeError):
        torch.select_scatter(tt(x), tt(arr(3, 4)), 1, 0)


def test_scatters_against_paddle():
    paddle = pytest.importorskip("paddle")
    x = arr(3, 4, 5, dtype=np.float32)
    v, s, dg = arr(3, 5, dtype=np.float32), arr(3, 2, 2, dtype=np.float32), arr(5, 3,
                                                                               dtype=np.float32)
    pd_close(oar.select_scatter(oar.to_tensor(x), oar.to_tensor(v), 1, 2),
             paddle.select_scatter(paddle.to_tensor(x), paddle.to_tensor(v), 1, 2), 0)
    pd_close(oar.slice_scatter(oar.to_tensor(x), oar.to_tensor(s), [1, 2], [0, 1], [4, 5],
                               [2, 2]),
             paddle.slice_scatter(paddle.to_tensor(x), paddle.to_tensor(s), [1, 2], [0, 1],
                                  [4, 5], [2, 2]), 0)
    pd_close(oar.diagonal_scatter(oar.to_tensor(x), oar.to_tensor(dg), 1, 0, 1),
             paddle.diagonal_scatter(paddle.to_tensor(x), paddle.to_tensor(dg), 1, 0, 1), 0)


def test_index_copy_against_torch():
    x, src, idx = arr(3, 4, 5), arr(3, 2, 5), np.array([3, 0])
    same_as_torch(lambda a, b: T.index_copy(a, 1, T.tensor(idx), b),
                  lambda a, b: torch.index_copy(a, 1, torch.tensor(idx), b), [x, src],
                  node=False)
    same_as_torch(lambda a, b: a.index_copy(1, T.tensor(idx), b),
                  lambda a, b: a.index_copy(1, torch.tensor(idx), b), [x, src], node=False)
    o, t = nc(x), tt(x)
    v = o._version
    assert o.index_copy_(1, T.tensor(idx), ot(src)) is o and o._version == v + 1
    t.index_copy_(1, torch.tensor(idx), tt(src))
    close(o, t)
    gc(lambda a, b: T.index_copy(a, 1, T.tensor(idx), b), x, src)
    before = x.copy()
    o = ot(x)
    with pytest.raises(IndexError):
        o.index_copy_(1, T.tensor(idx), ot(arr(3, 3, 5)))
    with pytest.raises(IndexError):
        tt(x).index_copy_(1, torch.tensor(idx), tt(arr(3, 3, 5)))
    with pytest.raises(IndexError):
        o.index_copy_(1, T.tensor([7, 0]), ot(src))
    np.testing.assert_array_equal(o.numpy(), before)
