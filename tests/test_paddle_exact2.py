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


def torch_():
    return pytest.importorskip("torch")


def paddle_():
    pytest.importorskip("paddle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle
    return paddle


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
