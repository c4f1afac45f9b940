"""Small exactness items of both doors against torch 2.13 and paddle 3.3.1: ops without a
complex kernel refuse complex operands (Note [Ops without a complex kernel]) while logaddexp,
logcumsumexp and sinc compute them as torch does; Paddle's dtype predicates; atan2 of
integers (float64 in Paddle, float32 in PyTorch, Note [Door conflicts]).

Expected values come from the oracles or NumPy, never from oar.
"""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.autograd.errors import DtypeNotImplementedError


from tests.test_doors_conflicts import paddle_, torch_  # noqa: E402  (the shared oracles)


RNG = np.random.default_rng(7)
ZA = RNG.normal(size=(3, 5)) * 3 + 1j * RNG.normal(size=(3, 5)) * 4
ZB = RNG.normal(size=(3, 5)) * 3 + 1j * RNG.normal(size=(3, 5)) * 4


def _tol(dt):
    return dict(rtol=2e-6, atol=2e-6) if dt == np.complex64 else dict(rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- complex operands, computed
@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
@pytest.mark.parametrize("strided", [False, True])
def test_complex_logaddexp_sinc_logcumsumexp_values(dt, strided):
    torch = torch_()
    a, b = ZA.astype(dt), ZB.astype(dt)
    if strided:   # non-contiguous operands (transposed views)
        oa, ob = otorch.tensor(a.T.copy()).t(), otorch.tensor(b.T.copy()).t()
        assert not oa.is_contiguous()
    else:
        oa, ob = otorch.tensor(a), otorch.tensor(b)
    ta, tb = torch.tensor(a), torch.tensor(b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no ComplexWarning: the imaginary part is kept
        got = [otorch.logaddexp(oa, ob), otorch.sinc(oa), oa.logcumsumexp(1),
               otorch.logcumsumexp(oa, 0), oar.sinc(oar.to_tensor(a))]
    want = [torch.logaddexp(ta, tb), torch.sinc(ta), ta.logcumsumexp(1),
            torch.logcumsumexp(ta, 0), torch.sinc(ta)]
    for g, w in zip(got, want):
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        scale = max(1.0, float(np.abs(w.numpy()).max()))
        np.testing.assert_allclose(g.numpy() / scale, w.numpy() / scale, **_tol(dt))
    assert otorch.sinc(otorch.tensor(np.zeros(2, dt))).numpy().tolist() == [1, 1]


def test_complex_logaddexp_large_real_parts():
    torch = torch_()
    a = np.array([800 + 1j, -800 + 2j, 5 + 3j, 1 - 40j])
    b = np.array([799 - 1j, -801 + 0.5j, 5 + 3j, -900 + 7j])
    np.testing.assert_allclose(otorch.logaddexp(otorch.tensor(a), otorch.tensor(b)).numpy(),
                               torch.logaddexp(torch.tensor(a), torch.tensor(b)).numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("op", ["logaddexp", "sinc"])
def test_complex_gradients_against_torch(op):
    torch = torch_()

    def run(m, a, b):
        x = m.tensor(a, requires_grad=True)
        y = m.tensor(b, requires_grad=True)
        r = m.logaddexp(x, y) if op == "logaddexp" else m.sinc(x) * y
        # a non-holomorphic loss, then a second one through real and imaginary parts
        ((r.abs() ** 2).sum() + (r.real * 2 - r.imag).sum()).backward()
        return x.grad.numpy(), y.grad.numpy()

    for g, w in zip(run(otorch, ZA, ZB), run(torch, ZA, ZB)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-10)


def test_logcumsumexp_complex_gradient_is_refused():
    x = otorch.tensor(ZA, requires_grad=True)
    with pytest.raises(DtypeNotImplementedError, match="logcumsumexp"):
        x.logcumsumexp(0)


def test_paddle_door_refuses_complex_logaddexp_and_computes_sinc():
    paddle = paddle_()
    a = ZA.astype(np.complex64)
    with pytest.raises(RuntimeError):
        paddle.logaddexp(paddle.to_tensor(a), paddle.to_tensor(a))
    with pytest.raises(RuntimeError, match="logaddexp"):
        oar.logaddexp(oar.to_tensor(a), oar.to_tensor(a))
    np.testing.assert_allclose(oar.sinc(oar.to_tensor(a)).numpy(),
                               paddle.sinc(paddle.to_tensor(a)).numpy(), rtol=2e-5, atol=2e-5)


# ---------------------------------------------------------------- complex operands, refused
_REFUSED = [("atan2", 2), ("bitwise_and", 2), ("bitwise_or", 2), ("bitwise_xor", 2),
            ("bitwise_not", 1), ("bitwise_left_shift", 2), ("bitwise_right_shift", 2),
            ("copysign", 2), ("fmod", 2), ("logaddexp2", 2), ("logit", 1), ("erf", 1),
            ("erfc", 1), ("erfinv", 1), ("lgamma", 1), ("digamma", 1), ("i0", 1),
            ("special.i0e", 1), ("special.i1", 1), ("special.i1e", 1)]


def _get(mod, name):
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod


@pytest.mark.parametrize("name,n", _REFUSED)
def test_ops_without_complex_kernel_refuse_as_torch(name, n):
    torch = torch_()
    a = ZA.astype(np.complex64)
    with pytest.raises(NotImplementedError) as want:
        _get(torch, name)(*[torch.tensor(a)] * n)
    x = otorch.tensor(a)
    before = x.numpy().copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(NotImplementedError) as got:
            _get(otorch, name)(*[x] * n)
    kernel = str(want.value).split('"')[1]
    assert f'"{kernel}" not implemented for \'ComplexFloat\'' in str(got.value)
    assert isinstance(got.value, RuntimeError)   # Paddle's class for a missing kernel
    np.testing.assert_array_equal(x.numpy(), before)


def test_refusal_before_any_write_out_and_inplace():
    x = otorch.tensor(ZA)
    out = otorch.zeros(3, 5, dtype=otorch.complex128)
    v = out._version
    with pytest.raises(NotImplementedError):
        otorch.atan2(x, x, out=out)
    assert out._version == v and not out.numpy().any()
    with pytest.raises(NotImplementedError):
        x.fmod_(x)
    np.testing.assert_array_equal(x.numpy(), ZA)


# ---------------------------------------------------------------- dtype predicates (Paddle)
@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_paddle_dtype_predicates(dt):
    paddle = paddle_()
    p = paddle.zeros([2]).astype(dt)
    o = oar.zeros([2]).astype(dt)
    for name in ("is_floating_point", "is_integer", "is_complex"):
        assert getattr(oar, name)(o) == getattr(paddle, name)(p), name
    assert o.is_floating_point() == p.is_floating_point()
    assert o.is_integer() == p.is_integer()
    assert o.is_complex() == p.is_complex()


def test_paddle_dtype_predicates_refuse_non_tensors():
    paddle = paddle_()
    for name in ("is_floating_point", "is_integer", "is_complex"):
        with pytest.raises(TypeError):
            getattr(paddle, name)(np.zeros(2))
        with pytest.raises(TypeError, match=name):
            getattr(oar, name)(np.zeros(2))


# ---------------------------------------------------------------- atan2 of integers
@pytest.mark.parametrize("dt", ["int32", "int64"])
def test_atan2_integer_dtype_per_door(dt):
    paddle, torch = paddle_(), torch_()
    a = np.array([[1, -2, 0], [3, 4, -5]], dt)
    b = np.array([[2, 2, -1], [0, -3, 5]], dt)
    want = paddle.atan2(paddle.to_tensor(a), paddle.to_tensor(b))
    got = oar.atan2(oar.to_tensor(a), oar.to_tensor(b))
    assert str(got.dtype) == str(want.dtype) == "paddle.float64"
    # paddle's float64 result holds float32-precision values (1 ulp of float32 apart from
    # the correctly rounded angle oar gives)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=2.5e-7)
    np.testing.assert_array_equal(got.numpy(), got.numpy().astype(np.float32))
    np.testing.assert_allclose(oar.to_tensor(a).atan2(oar.to_tensor(b)).numpy(), want.numpy(),
                               rtol=0, atol=2.5e-7)
    tw = torch.atan2(torch.tensor(a), torch.tensor(b))
    for tg in (otorch.atan2(otorch.tensor(a), otorch.tensor(b)),
               otorch.tensor(a).atan2(otorch.tensor(b)), otorch.arctan2(otorch.tensor(a),
                                                                         otorch.tensor(b))):
        assert str(tg.dtype) == str(tw.dtype) == "torch.float32"
        np.testing.assert_allclose(tg.numpy(), tw.numpy(), rtol=1e-6)


def test_atan2_floating_keeps_dtype_in_paddle_door():
    paddle = paddle_()
    a = np.array([1.0, -2.0], "float32")
    assert str(oar.atan2(oar.to_tensor(a), oar.to_tensor(a)).dtype) == str(
        paddle.atan2(paddle.to_tensor(a), paddle.to_tensor(a)).dtype)


# ---------------------------------------------------------------- uint8 bilinear (Note [uint8 bilinear])
_U8_CASES = [((2, 3, 7, 9), dict(size=(5, 13))), ((1, 2, 16, 16), dict(size=(7, 30))),
             ((1, 1, 5, 40), dict(size=(11, 17))), ((2, 2, 33, 31), dict(size=(8, 9))),
             ((1, 1, 6, 6), dict(size=(6, 6))), ((1, 2, 4, 5), dict(scale_factor=1.7)),
             ((2, 2, 9, 11), dict(scale_factor=0.6))]


@pytest.mark.parametrize("shape,kw", _U8_CASES)
@pytest.mark.parametrize("ac", [False, True])
def test_uint8_bilinear_torch_door_exact(shape, kw, ac):
    torch = torch_()
    x = np.random.default_rng(3).integers(0, 256, size=shape).astype(np.uint8)
    want = torch.nn.functional.interpolate(torch.tensor(x), mode="bilinear", align_corners=ac,
                                           **kw)
    ox = otorch.tensor(x)
    if shape[0] == 2:   # a non-contiguous input (transposed copy transposed back)
        ox = otorch.tensor(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)
        assert not ox.is_contiguous()
    got = otorch.nn.functional.interpolate(ox, mode="bilinear", align_corners=ac, **kw)
    assert got.dtype == otorch.uint8 and want.dtype == torch.uint8
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("shape,kw", _U8_CASES)
@pytest.mark.parametrize("ac", [False, True])
def test_uint8_bilinear_paddle_door_truncates(shape, kw, ac):
    paddle = paddle_()
    x = np.random.default_rng(3).integers(0, 256, size=shape).astype(np.uint8)
    want = paddle.nn.functional.interpolate(paddle.to_tensor(x), mode="bilinear",
                                            align_corners=ac, **kw).numpy()
    # paddle's uint8 result is its float32 result truncated
    pf = paddle.nn.functional.interpolate(paddle.to_tensor(x.astype("float32")), mode="bilinear",
                                          align_corners=ac, **kw).numpy()
    np.testing.assert_array_equal(want, np.trunc(pf))
    got = oar.nn.functional.interpolate(oar.to_tensor(x), mode="bilinear", align_corners=ac,
                                        **kw)
    assert str(got.dtype) == "paddle.uint8" and got.shape == list(want.shape)
    of = oar.nn.functional.interpolate(oar.to_tensor(x.astype("float32")), mode="bilinear",
                                       align_corners=ac, **kw).numpy()
    np.testing.assert_array_equal(got.numpy(), np.trunc(of))
    # oar's float32 result is within float32 rounding of paddle's, so the truncations differ
    # by at most 1, at a few elements that straddle an integer
    diff = np.abs(got.numpy().astype(int) - want.astype(int))
    assert diff.max() <= 1 and (diff != 0).mean() < 0.01


def test_uint8_other_resamplings_still_refused():
    torch = torch_()
    x = np.zeros((1, 1, 4, 4), np.uint8)
    with pytest.raises(NotImplementedError):
        torch.nn.functional.interpolate(torch.tensor(x), size=(3, 3), mode="area")
    with pytest.raises(NotImplementedError, match="Byte"):
        otorch.nn.functional.interpolate(otorch.tensor(x), size=(3, 3), mode="area")
    with pytest.raises(NotImplementedError, match="Byte"):
        otorch.nn.functional.interpolate(otorch.tensor(x[:, :, 0]), size=3, mode="linear")


# ---------------------------------------------------------------- Paddle's flattening cumsum_ / cumprod_
# Note [Paddle's flattening cumsum_ and cumprod_]
@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("shape", [(2, 3), (2, 1, 3), ()])
def test_paddle_inplace_scan_without_axis_flattens(op, shape):
    paddle = paddle_()
    a = np.random.default_rng(5).uniform(0.5, 1.5, size=shape).astype("float32")
    p = paddle.to_tensor(a)
    pv = p.reshape([-1])    # a view of p's memory in both frameworks
    r = getattr(p, op)()
    o = oar.to_tensor(a)
    ov = o.reshape([-1])
    got = getattr(o, op)()
    assert got is o and r is p
    assert o.shape == p.shape and str(o.dtype) == str(p.dtype)
    np.testing.assert_allclose(o.numpy(), p.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ov.numpy(), pv.numpy(), rtol=1e-6)
    # one bump per call; paddle's cumprod_ bumps twice (once per internal kernel, as its
    # other composite in-place ops: the ratchet note in tests/test_paddle_own_inplace.py)
    assert o.inplace_version == 1 and p.inplace_version == (1 if op == "cumsum_" else 2)
    # the function spelling too
    o2, p2 = oar.to_tensor(a), paddle.to_tensor(a)
    getattr(oar, op)(o2)
    getattr(paddle, op)(p2)
    assert o2.shape == p2.shape
    np.testing.assert_allclose(o2.numpy(), p2.numpy(), rtol=1e-6)


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
def test_paddle_flattening_scan_gradient(op):
    paddle = paddle_()
    a = np.random.default_rng(6).uniform(0.5, 1.5, size=(2, 3))
    w = np.arange(6.0)

    def run(m, t):
        x = t(a)
        x.stop_gradient = False
        b = x * 2
        getattr(b, op)()
        (b * t(w)).sum().backward()
        return b.shape, x.grad.numpy()

    (os_, og), (ps, pg) = run(oar, oar.to_tensor), run(paddle, paddle.to_tensor)
    assert list(os_) == list(ps) == [6]
    np.testing.assert_allclose(og, pg, rtol=1e-12)


def test_flattening_scan_on_a_view_gradient():
    # a view's in-place scan: the base sees the flat scan, gradients as the chain rule says
    # (paddle 3.3.1 drops in-place ops on a view from the gradient, so NumPy is the oracle)
    w = np.arange(8.0).reshape(1, 2, 2, 2)
    a = oar.to_tensor(np.ones((1, 2, 2, 2)), stop_gradient=False)
    y = a * 1
    z = y[0]
    z.cumsum_()
    assert z.shape == [8] and y.shape == [1, 2, 2, 2]
    np.testing.assert_array_equal(y.numpy().ravel(), np.arange(1.0, 9.0))
    (y * oar.to_tensor(w)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy().ravel(), np.cumsum(w.ravel()[::-1])[::-1])


def test_flattening_scan_refusals_change_nothing():
    paddle = paddle_()
    a = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    # a window that needs a copy (transposed): paddle refuses with ValueError too
    with pytest.raises(ValueError):
        paddle.to_tensor(a).t().cumsum_()
    o = oar.to_tensor(a).t()
    with pytest.raises(ValueError, match="cumsum_"):
        o.cumsum_()
    assert o.shape == [2, 2] and o.inplace_version == 0
    np.testing.assert_array_equal(o.numpy(), a.T)
    # a leaf that requires grad
    leaf = oar.to_tensor(a, stop_gradient=False)
    with pytest.raises(RuntimeError):
        leaf.cumsum_()
    assert leaf.shape == [2, 2] and leaf.inplace_version == 0
    # dtype= other than x's (paddle changes x's dtype; oar refuses, before the flatten)
    x = oar.to_tensor(a)
    with pytest.raises(TypeError):
        x.cumsum_(dtype="float64")
    assert x.shape == [2, 2] and x.inplace_version == 0
    # the torch door keeps torch's cumsum_(dim)
    t = otorch.tensor(a)
    with pytest.raises(TypeError):
        t.cumsum_()
    assert list(t.shape) == [2, 2]
