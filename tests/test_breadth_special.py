"""Special functions (oar/ops/special.py) in both doors, against torch 2.13, paddle 3.3.1 and
SciPy (an oracle only: Note [Special function kernels]).

Values over wide ranges (negatives, poles, 0, large, nan/inf), float32 and float64; every
spelling (function, method, in-place, out=, torch.special, keywords); float64 gradients by
finite differences and against torch's; non-contiguous inputs; the dtype rules and errors.
"""
import numpy as np
import pytest

import oar
import oar.torch as ot

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
WIDE = np.concatenate([RNG.uniform(-30, 30, 400), RNG.uniform(0, 3, 200),
                       np.logspace(-30, 30, 61), -np.logspace(-5, 2, 40) + 0.37,
                       np.arange(-5.0, 6.0), [0.5, 1.4616321449683622, -0.0, 1e-310, 1e300,
                                              np.inf, -np.inf, np.nan]])
BESSEL = np.concatenate([RNG.uniform(-50, 50, 400), np.logspace(-30, 2.8, 60),
                         -np.logspace(-5, 2.8, 60), [0.0, 30.0, -30.0, 700.0, 710.0, np.inf,
                                                     -np.inf, np.nan]])


def _close(ours, ref, dtype, rtol64=1e-12):
    """float32: torch's own float32 rounding apart; float64: ~1e-12 relative. Values below
    1e-200 in size compare absolutely (torch flushes some to 0)."""
    ours = np.asarray(ours, np.float64)
    ref = np.asarray(ref, np.float64)
    if dtype == "float32":
        np.testing.assert_allclose(ours, ref, rtol=2e-6, atol=1e-30, equal_nan=True)
    else:
        np.testing.assert_allclose(ours, ref, rtol=rtol64, atol=1e-200, equal_nan=True)


def _torch_values(fn, x, dtype):
    return fn(torch.tensor(x, dtype=getattr(torch, dtype))).numpy()


def _ours(fn, x, dtype):
    return fn(ot.tensor(x, dtype=getattr(ot, dtype))).numpy()


UNARY = {   # name -> (torch function, oar.torch function, inputs, float64 rtol)
    "lgamma": (torch.lgamma, ot.lgamma, WIDE, 1e-12),
    "digamma": (torch.digamma, ot.digamma, WIDE, 1e-12),
    "trigamma": (lambda t: torch.polygamma(1, t), lambda t: ot.polygamma(1, t), WIDE, 1e-8),
    "polygamma2": (lambda t: torch.polygamma(2, t), lambda t: ot.polygamma(2, t), WIDE, 1e-10),
    "polygamma5": (lambda t: torch.polygamma(5, t), lambda t: ot.polygamma(5, t), WIDE, 1e-10),
    "i0": (torch.i0, ot.i0, BESSEL, 1e-12),
    "i0e": (torch.special.i0e, ot.special.i0e, BESSEL, 1e-12),
    "i1": (torch.special.i1, ot.special.i1, BESSEL, 1e-12),
    "i1e": (torch.special.i1e, ot.special.i1e, BESSEL, 1e-12),
}


ERF_LIKE = np.concatenate([np.linspace(-40, 40, 801), [0.0, -0.0, 1e-300, 1.2499, 1.25, 27.9, 28.0,
                                                      28.1, 1e10, -1e10, np.inf, -np.inf,
                                                      np.nan]])
UNARY.update({
    "ndtr": (torch.special.ndtr, ot.special.ndtr, ERF_LIKE, 1e-12),
    "log_ndtr": (torch.special.log_ndtr, ot.special.log_ndtr, ERF_LIKE, 1e-12),
    "erfcx": (torch.special.erfcx, ot.special.erfcx, ERF_LIKE, 1e-12),
    "entr": (torch.special.entr, ot.special.entr, np.concatenate([WIDE, BESSEL]), 1e-12),
    "ndtri": (torch.special.ndtri, ot.special.ndtri,
              np.concatenate([np.linspace(0, 1, 1001), np.logspace(-300, -1, 300),
                              1 - np.logspace(-16, -1, 100), [-0.1, 1.1, np.nan]]), 1e-12),
})


def _fix_lgamma_zeros(name, x, ours, ref, dtype):
    # log|Gamma| crosses zero at two negative points in every unit interval: there neither
    # kernel has relative accuracy, so those few compare absolutely
    if name == "lgamma":
        near = np.abs(ref) < 1e-3
        np.testing.assert_allclose(ours[near], ref[near], atol=1e-14)
        return ours[~near], ref[~near]
    if name == "digamma":   # digamma's positive zero 1.4616...: the same
        near = np.abs(ref) < 1e-6
        np.testing.assert_allclose(ours[near], ref[near],
                                   atol=1e-15 if dtype == "float64" else 1e-6)
        return ours[~near], ref[~near]
    return ours, ref


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_torch(name, dtype):
    tfn, ofn, x, rtol = UNARY[name]
    ref = _torch_values(tfn, x, dtype)
    ours = _ours(ofn, x, dtype)
    assert ours.dtype == ref.dtype
    finite = np.isfinite(ref)
    # the same infinities and nans where torch has them
    np.testing.assert_array_equal(ours[~finite], ref[~finite])
    o, r = _fix_lgamma_zeros(name, x[finite], ours[finite], ref[finite], dtype)
    if name == "ndtr":
        # torch's lower tail is accurate only absolutely (its values there are multiples of
        # the dtype's eps/2); oar's is relatively accurate (SciPy agrees, the test below)
        np.testing.assert_allclose(o, r, rtol=1e-12 if dtype == "float64" else 2e-6,
                                   atol=np.finfo(dtype).eps)
    elif dtype == "float32" and name in ("log_ndtr", "erfcx"):
        np.testing.assert_allclose(o, r, rtol=2e-5, atol=1e-30)   # torch's float32 arithmetic
    elif dtype == "float32" and name in ("digamma", "trigamma", "polygamma2", "polygamma5",
                                         "lgamma"):
        # torch computes these in float32 arithmetic: relative agreement to float32's
        # conditioning of the function (large near poles and zeros)
        np.testing.assert_allclose(o, r, rtol=2e-4, atol=1e-5)
    else:
        _close(o, r, dtype, rtol)


def test_float64_accuracy_against_scipy():
    """Where torch's float64 kernels truncate early (trigamma, igamma: ~1e-9), oar is the
    accurate one: SciPy agrees to ~1e-12."""
    special = pytest.importorskip("scipy.special")
    x = RNG.uniform(0.05, 40, 500)
    np.testing.assert_allclose(ot.polygamma(1, ot.tensor(x)).numpy(), special.polygamma(1, x),
                               rtol=1e-12)
    np.testing.assert_allclose(ot.polygamma(3, ot.tensor(x)).numpy(), special.polygamma(3, x),
                               rtol=1e-12)
    np.testing.assert_allclose(ot.lgamma(ot.tensor(x)).numpy(), special.gammaln(x), rtol=1e-13)
    a, y = RNG.uniform(0.01, 50, 2000), RNG.uniform(0.0, 70, 2000)
    np.testing.assert_allclose(ot.igamma(ot.tensor(a), ot.tensor(y)).numpy(),
                               special.gammainc(a, y), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(ot.igammac(ot.tensor(a), ot.tensor(y)).numpy(),
                               special.gammaincc(a, y), rtol=1e-11, atol=1e-300)
    z = RNG.uniform(-35, 35, 500)
    for n in ("ndtr", "log_ndtr", "erfcx", "entr"):
        w = np.abs(z) if n == "entr" else z
        np.testing.assert_allclose(getattr(ot.special, n)(ot.tensor(w)).numpy(),
                                   getattr(special, n)(w), rtol=1e-13, atol=1e-300)
    p = np.concatenate([RNG.uniform(0, 1, 500), np.logspace(-300, -2, 100)])
    np.testing.assert_allclose(ot.special.ndtri(ot.tensor(p)).numpy(), special.ndtri(p),
                               rtol=1e-13)
    q = RNG.uniform(0.1, 20, 200)
    np.testing.assert_allclose(ot.special.zeta(ot.tensor(q + 1.5), ot.tensor(q)).numpy(),
                               special.zeta(q + 1.5, q), rtol=1e-13)
    for n in ("i0", "i0e", "i1", "i1e"):
        z = RNG.uniform(-100, 100, 500)
        np.testing.assert_allclose(getattr(ot.special, n)(ot.tensor(z)).numpy(),
                                   getattr(special, n)(z), rtol=1e-13)


def _inc(ours, ref, dtype):
    """torch's float64 igamma is ~1e-9 off in places (test_float64_accuracy_against_scipy);
    its float32 one computes in float32, so tiny tails agree absolutely."""
    if dtype == "float32":
        np.testing.assert_allclose(ours, ref, rtol=2e-5, atol=1e-7, equal_nan=True)
    else:
        _close(ours, ref, dtype, rtol64=1e-8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gammainc_values_match_torch(dtype):
    a = np.concatenate([RNG.uniform(0, 50, 600), RNG.uniform(0, 2, 200),
                        [0, 0, 1, -1, 1, np.inf, 2, np.nan, 1e3, 1e3, 3, 0]])
    y = np.concatenate([RNG.uniform(0, 60, 600), RNG.uniform(0, 3, 200),
                        [0, 1, 0, 1, np.inf, np.inf, -1, 1, 1e3, 1100, np.nan, np.inf]])
    ta, ty = torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(y, dtype=getattr(torch, dtype))
    oa, oy = ot.tensor(a, dtype=getattr(ot, dtype)), ot.tensor(y, dtype=getattr(ot, dtype))
    for tf, of in ((torch.igamma, ot.igamma), (torch.igammac, ot.igammac),
                   (torch.special.gammainc, ot.special.gammainc),
                   (torch.special.gammaincc, ot.special.gammaincc)):
        _inc(of(oa, oy).numpy(), tf(ta, ty).numpy(), dtype)
    # the method, in place (torch: method only) and broadcasting with a 0-d tensor
    _inc(oa.igamma(ot.tensor(2.0, dtype=oa.dtype)).numpy(),
         ta.igamma(torch.tensor(2.0, dtype=ta.dtype)).numpy(), dtype)
    with pytest.raises(TypeError, match="must be Tensor"):   # as torch: no number overload
        oa.igamma(2.0)
    oc, tc = oa.clone(), ta.clone()
    v = oc._version
    assert oc.igammac_(oy) is oc and oc._version == v + 1
    _inc(oc.numpy(), tc.igammac_(ty).numpy(), dtype)


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_mvlgamma_matches_torch(p):
    x = RNG.uniform((p - 1) / 2 + 0.01, 20, 300)
    for dtype in ("float32", "float64"):
        ref = torch.mvlgamma(torch.tensor(x, dtype=getattr(torch, dtype)), p).numpy()
        _close(ot.mvlgamma(ot.tensor(x, dtype=getattr(ot, dtype)), p).numpy(), ref, dtype,
               1e-12)
        _close(ot.special.multigammaln(ot.tensor(x, dtype=getattr(ot, dtype)), p=p).numpy(),
               ref, dtype, 1e-12)


# ------------------------------------------------------------------------------ gradients
def _nc(values):
    """A non-contiguous float64 leaf (every other column of a wider tensor)."""
    base = ot.tensor(np.repeat(np.asarray(values, np.float64)[:, None], 2, 1))
    return base[:, 0].detach().requires_grad_()


GRAD = {
    "lgamma": (torch.lgamma, ot.lgamma, [0.3, 1.7, 4.5, -2.5, -0.4]),
    "digamma": (torch.digamma, ot.digamma, [0.3, 1.7, 4.5, -2.5, -0.4]),
    "polygamma1": (lambda t: torch.polygamma(1, t), lambda t: ot.polygamma(1, t),
                   [0.3, 1.7, 4.5, -2.5, -0.4]),
    "polygamma3": (lambda t: t.polygamma(3), lambda t: t.polygamma(3), [0.3, 1.7, 4.5, 12.0]),
    "mvlgamma": (lambda t: torch.mvlgamma(t, 3), lambda t: ot.mvlgamma(t, 3), [1.3, 2.7, 6.0]),
    "i0": (torch.i0, ot.i0, [-3.0, -0.5, 0.0, 0.7, 31.0]),
    "i0e": (torch.special.i0e, ot.special.i0e, [-3.0, -0.5, 0.7, 31.0, -40.0]),
    "i1": (torch.special.i1, ot.special.i1, [-3.0, -0.5, 0.0, 0.7, 31.0]),
    "i1e": (torch.special.i1e, ot.special.i1e, [-3.0, -0.5, 0.0, 0.7, 31.0]),
    "igamma": (lambda t: torch.igamma(torch.tensor([0.5, 2.0, 3.5, 7.0, 1.0], dtype=t.dtype), t),
               lambda t: ot.igamma(ot.tensor([0.5, 2.0, 3.5, 7.0, 1.0], dtype=t.dtype), t),
               [0.3, 1.7, 4.5, 6.0, 12.0]),
    "igammac": (lambda t: torch.igammac(torch.tensor([0.5, 2.0, 3.5, 7.0, 1.0], dtype=t.dtype), t),
                lambda t: ot.special.gammaincc(ot.tensor([0.5, 2.0, 3.5, 7.0, 1.0], dtype=t.dtype), t),
                [0.3, 1.7, 4.5, 6.0, 12.0]),
    "ndtr": (torch.special.ndtr, ot.special.ndtr, [-3.0, -0.5, 0.0, 0.7, 6.0]),
    "log_ndtr": (torch.special.log_ndtr, ot.special.log_ndtr, [-30.0, -3.0, -0.5, 0.7, 6.0]),
    "erfcx": (torch.special.erfcx, ot.special.erfcx, [-3.0, -0.5, 0.0, 1.3, 6.0, 40.0]),
    "entr": (torch.special.entr, ot.special.entr, [0.1, 0.5, 1.0, 3.0]),
    "ndtri": (torch.special.ndtri, ot.special.ndtri, [1e-3, 0.1, 0.5, 0.8, 0.999]),
    "xlog1py": (lambda t: torch.special.xlog1py(t, torch.tensor([0.5, 2.0, 0.0, 7.0],
                                                                dtype=t.dtype)),
                lambda t: ot.special.xlog1py(t, ot.tensor([0.5, 2.0, 0.0, 7.0], dtype=t.dtype)),
                [0.1, 0.5, -0.2, 3.0]),
    "xlog1py_other": (lambda t: torch.special.xlog1py(torch.tensor([0.5, 2.0, 0.0, 1.0],
                                                                   dtype=t.dtype), t),
                      lambda t: ot.special.xlog1py(ot.tensor([0.5, 2.0, 0.0, 1.0],
                                                             dtype=t.dtype), t),
                      [0.1, 0.5, -0.2, 3.0]),
    "zeta": (lambda t: torch.special.zeta(torch.tensor([2.0, 3.5, 1.5, 4.0], dtype=t.dtype), t),
             lambda t: ot.special.zeta(ot.tensor([2.0, 3.5, 1.5, 4.0], dtype=t.dtype), t),
             [0.3, 1.7, 4.5, 12.0]),
}


@pytest.mark.parametrize("name", sorted(GRAD))
def test_gradients_gradcheck_and_match_torch(name):
    tfn, ofn, values = GRAD[name]
    x = _nc(values)
    assert not x.is_contiguous()
    assert ot.autograd.gradcheck(ofn, (x,))
    assert ot.autograd.gradgradcheck(ofn, (x,)) if name in ("lgamma", "digamma", "i0") else True
    out = ofn(x)
    g = np.linspace(0.5, 1.5, len(values))
    (ox,) = ot.autograd.grad(out, x, ot.tensor(g))
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    tout = tfn(tx)
    (tgx,) = torch.autograd.grad(tout, tx, torch.tensor(g))
    rtol = 1e-8 if name in ("igamma", "igammac", "digamma", "lgamma") else 1e-10
    np.testing.assert_allclose(ox.numpy(), tgx.numpy(), rtol=rtol, atol=1e-300)
    if name != "ndtr":   # torch's ndtr is differentiated as its composite (MulBackward1)
        assert type(out.grad_fn).__name__ == tout.grad_fn.name()


def test_igamma_first_argument_has_no_gradient():
    a = ot.tensor([1.0, 2.0], dtype=ot.float64, requires_grad=True)
    y = ot.tensor([1.0, 2.0], dtype=ot.float64)
    out = ot.igamma(a, y).sum()
    ta = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(NotImplementedError) as theirs:
        torch.igamma(ta, torch.tensor([1.0, 2.0], dtype=torch.float64)).sum().backward()
    with pytest.raises(NotImplementedError, match="igamma: input"):
        out.backward()
    assert "igamma: input" in str(theirs.value)
    # Paddle: no gradient for x, the one for y as torch's
    paddle = pytest.importorskip("paddle")
    pa = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    py = paddle.to_tensor([1.0, 3.0], stop_gradient=False)
    paddle.gammainc(pa, py).sum().backward()
    oa = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    oy = oar.to_tensor([1.0, 3.0], stop_gradient=False)
    oar.gammainc(oa, oy).sum().backward()
    assert pa.grad is None and oa.grad is None
    np.testing.assert_allclose(oy.grad.numpy(), py.grad.numpy(), rtol=1e-6)


def test_zeta_exponent_has_no_gradient_and_scalar_forms():
    x = ot.tensor([2.0, 3.0], dtype=ot.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="special_zeta"):
        ot.special.zeta(x, ot.tensor([1.0, 2.0], dtype=ot.float64)).sum().backward()
    with pytest.raises(NotImplementedError):
        torch.special.zeta(torch.tensor([2.0, 3.0], requires_grad=True),
                           torch.tensor([1.0, 2.0])).sum().backward()
    q = [0.5, 2.0, -1.5]
    for args, targs in (((2.0, ot.tensor(q)), (2.0, torch.tensor(q))),
                        ((ot.tensor([2.0, 3.0, 4.0]), 1.5), (torch.tensor([2.0, 3.0, 4.0]), 1.5))):
        np.testing.assert_allclose(ot.special.zeta(*args).numpy(),
                                   torch.special.zeta(*targs).numpy(), rtol=1e-6)
    np.testing.assert_allclose(ot.special.xlog1py(2, ot.tensor([1, 2])).numpy(),
                               torch.special.xlog1py(2, torch.tensor([1, 2])).numpy(), rtol=1e-6)
    got = ot.special.xlog1py(input=ot.tensor([0.0, 1.0]), other=ot.tensor([float("nan"), 1.0]))
    np.testing.assert_allclose(got.numpy(), torch.special.xlog1py(
        torch.tensor([0.0, 1.0]), torch.tensor([float("nan"), 1.0])).numpy())
    out = ot.empty(2)
    assert ot.special.entr(ot.tensor([0.5, 0.0]), out=out) is out
    assert ot.special.ndtr(ot.tensor([1, 2])).dtype == ot.float32
    with pytest.raises(TypeError):
        ot.special.zeta(ot.tensor([1.0]), ot.tensor([1.0]), ot.tensor([1.0]))
    assert not hasattr(oar, "ndtr") and not hasattr(oar.Tensor, "erfcx")   # torch.special only
    # far tails, where erfc and ndtr underflow: torch's values
    np.testing.assert_allclose(ot.special.log_ndtr(ot.tensor([-50.0, -1e3])).numpy(),
                               torch.special.log_ndtr(torch.tensor([-50.0, -1e3])).numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(ot.special.erfcx(ot.tensor([30.0, 1e5])).numpy(),
                               torch.special.erfcx(torch.tensor([30.0, 1e5])).numpy(), rtol=1e-6)


# --------------------------------------------------------------------- spellings and dtypes
def test_torch_special_module():
    for name in ot.special.__all__:
        assert hasattr(torch.special, name), name
        assert callable(getattr(ot.special, name))
    assert ot.special.gammaln is ot.lgamma and ot.special.psi is ot.digamma
    assert ot.special.gammainc is ot.igamma and ot.special.multigammaln is ot.mvlgamma
    assert ot.special.expit is ot.sigmoid
    x = ot.tensor([0.5, 2.0, -1.5])
    out = ot.empty(3)
    assert ot.special.i1e(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), torch.special.i1e(torch.tensor([0.5, 2.0, -1.5])),
                               rtol=1e-6)
    np.testing.assert_allclose(ot.special.i0e(input=x).numpy(),
                               torch.special.i0e(input=torch.tensor([0.5, 2.0, -1.5])), rtol=1e-6)
    out = ot.empty(3)
    assert ot.special.gammaln(x, out=out) is out
    w = ot.tensor([0.5, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="out="):
        ot.special.i0e(w, out=ot.empty(2))


def test_torch_polygamma_signature_and_spellings():
    x = ot.tensor([0.5, 2.0, 3.5])
    tx = torch.tensor([0.5, 2.0, 3.5])
    ref = torch.polygamma(2, tx).numpy()
    for got in (ot.polygamma(2, x), ot.polygamma(n=2, input=x), x.polygamma(2),
                x.polygamma(n=2), ot.special.polygamma(2, x)):
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6)
    out = ot.empty(3)
    assert ot.polygamma(2, x, out=out) is out
    y = x.clone()
    assert y.polygamma_(2) is y
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6)
    with pytest.raises(RuntimeError, match="negative n"):
        ot.polygamma(-1, x)
    with pytest.raises(TypeError):
        ot.polygamma(1.5, x)
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        ot.mvlgamma(x, 0)


def test_integer_inputs_promote_or_refuse():
    n = ot.tensor([1, 2, 3])
    for name in ("lgamma", "digamma", "i0"):
        assert getattr(ot, name)(n).dtype == ot.float32
        np.testing.assert_allclose(getattr(ot, name)(n).numpy(),
                                   getattr(torch, name)(torch.tensor([1, 2, 3])).numpy(), rtol=1e-6)
    assert ot.polygamma(1, n).dtype == ot.float32 and ot.mvlgamma(n, 2).dtype == ot.float32
    assert ot.special.i1e(n).dtype == ot.float32
    with pytest.raises(NotImplementedError, match="igamma"):
        ot.igamma(n, n)
    v = n._version
    with pytest.raises(RuntimeError):
        n.lgamma_()
    assert n._version == v and n.tolist() == [1, 2, 3]


# ----------------------------------------------------------------------------- Paddle door
PADDLE = ["lgamma", "gammaln", "digamma", "i0", "i0e", "i1", "i1e"]


@pytest.mark.parametrize("name", PADDLE)
def test_paddle_unary_matches_paddle(name):
    paddle = pytest.importorskip("paddle")
    x = np.concatenate([RNG.uniform(-8, 8, 200), [0.5, 1.0, 2.0, 25.0]]).astype(np.float32)
    x = x[np.abs(x - np.round(x)) > 1e-3] if name in ("lgamma", "gammaln", "digamma") else x
    ref = getattr(paddle, name)(paddle.to_tensor(x)).numpy()
    ours = getattr(oar, name)(oar.to_tensor(x))
    assert ours.dtype == oar.float32
    np.testing.assert_allclose(ours.numpy(), ref, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(getattr(oar.to_tensor(x), name)().numpy(), ref, rtol=2e-5,
                               atol=2e-5)


def test_paddle_spellings_match_paddle():
    paddle = pytest.importorskip("paddle")
    x = RNG.uniform(0.3, 6, 24).astype(np.float32).reshape(4, 6)
    y = RNG.uniform(0.1, 8, 24).astype(np.float32).reshape(4, 6)
    px, py = paddle.to_tensor(x), paddle.to_tensor(y)
    cases = [(lambda m, a, b: m.polygamma(a, 2), 1e-5),
             (lambda m, a, b: a.polygamma(1), 1e-5),
             (lambda m, a, b: m.multigammaln(a + 1, 3), 1e-5),
             (lambda m, a, b: a.multigammaln(1), 1e-5),
             (lambda m, a, b: m.gammainc(a, b), 1e-5),
             (lambda m, a, b: m.gammaincc(a, b), 1e-5),
             (lambda m, a, b: a.gammaincc(b), 1e-5)]
    for fn, tol in cases:
        np.testing.assert_allclose(fn(oar, oar.to_tensor(x), oar.to_tensor(y)).numpy(),
                                   fn(paddle, px, py).numpy(), rtol=tol, atol=tol)
    # in place: paddle's lgamma_, digamma_, polygamma_, i0_, multigammaln_, gammainc(c)_
    for name, args in (("lgamma_", ()), ("digamma_", ()), ("polygamma_", (1,)), ("i0_", ()),
                       ("multigammaln_", (2,)), ("gammainc_", ("y",)), ("gammaincc_", ("y",))):
        o = oar.to_tensor(x + 1)
        v = o.inplace_version
        oargs = [oar.to_tensor(y) if a == "y" else a for a in args]
        pargs = [paddle.to_tensor(y) if a == "y" else a for a in args]
        assert getattr(o, name)(*oargs) is o and o.inplace_version == v + 1
        ref = getattr(paddle.to_tensor(x + 1), name)(*pargs).numpy()
        np.testing.assert_allclose(o.numpy(), ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        oar.gammainc(oar.to_tensor(x - 10), oar.to_tensor(y))
    with pytest.raises(ValueError):
        oar.polygamma(oar.to_tensor(x), -1)


def test_paddle_gradients_match_paddle():
    paddle = pytest.importorskip("paddle")
    x = np.array([0.4, 1.3, 2.6, 7.0], np.float32)
    for name, args in (("lgamma", ()), ("digamma", ()), ("polygamma", (2,)), ("i0", ()),
                       ("i0e", ()), ("i1", ()), ("i1e", ()), ("multigammaln", (1,))):
        px = paddle.to_tensor(x + 0.5, stop_gradient=False)
        getattr(paddle, name)(px, *args).sum().backward()
        ox = oar.to_tensor(x + 0.5, stop_gradient=False)
        getattr(oar, name)(ox, *args).sum().backward()
        np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-4, err_msg=name)
