"""torch.distributions in the torch door, against torch 2.13: seeded draws equal torch's, values
(log_prob, entropy, cdf, moments, kl_divergence) to float32 tolerance, reparameterised gradients
equal torch's on the same draws, log_prob gradients by gradcheck in float64, and torch's
validation errors."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import oar.torch as ot  # noqa: E402
import oar.torch.distributions as OD  # noqa: E402
from oar.torch.distributions import _gamma  # noqa: E402

TD = torch.distributions


def O(a, dtype=None, requires_grad=False):   # noqa: N802
    """An oar.torch tensor from an array-like (a real torch tensor included)."""
    if isinstance(a, torch.Tensor):
        a = a.detach().numpy()
    t = ot.tensor(np.asarray(a), dtype=dtype)
    return t.requires_grad_() if requires_grad else t


def T(a, requires_grad=False):   # noqa: N802
    """A real torch tensor from an oar tensor or array-like."""
    if isinstance(a, ot.Tensor):
        a = a.detach().numpy()
    t = torch.tensor(np.asarray(a))
    return t.requires_grad_() if requires_grad else t


def close(a, b, rtol=1e-5, atol=1e-6):
    a = a.detach().numpy() if isinstance(a, ot.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def same(a, b):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


def noncontig(a):
    """a (n, m) array as the transpose of an (m, n) C array: a non-contiguous view."""
    return np.ascontiguousarray(np.asarray(a).T).T


rs = np.random.RandomState(0)
LOC = rs.randn(3, 4).astype(np.float32)
SCALE = (rs.rand(3, 4) + 0.5).astype(np.float32)
PROBS = rs.rand(3, 4).astype(np.float32)
LOGITS = rs.randn(3, 5).astype(np.float32)
CONC = (rs.rand(3, 4) * 3 + 0.2).astype(np.float32)
RATE = (rs.rand(3, 4) + 0.5).astype(np.float32)
A = rs.randn(2, 3, 3)
COV = (A @ A.transpose(0, 2, 1) + 3 * np.eye(3)).astype(np.float32)


def _pair(name, arrays, **kw):
    """The same distribution built in oar and in torch."""
    return (getattr(OD, name)(*[O(a) for a in arrays], **kw),
            getattr(TD, name)(*[T(a) for a in arrays], **kw))


# ------------------------------------------------------------------------------ draws
@pytest.mark.parametrize("shape", [(), (2,), (5, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_draws_equal_torch(shape, dtype):
    loc, scale = LOC.astype(dtype), SCALE.astype(dtype)
    o, t = _pair("Normal", (loc, scale))
    for method in ("sample", "rsample"):
        ot.manual_seed(3)
        torch.manual_seed(3)
        same(getattr(o, method)(shape), getattr(t, method)(shape))


def test_scalar_and_uniform_bernoulli_draws_equal_torch():
    for seed in (0, 11):
        ot.manual_seed(seed)
        torch.manual_seed(seed)
        same(OD.Normal(0.5, 2.0).sample((7,)), TD.Normal(0.5, 2.0).sample((7,)))
        o, t = _pair("Uniform", (LOC, LOC + SCALE))
        same(o.rsample((4,)), t.rsample((4,)))
        same(o.sample(), t.sample())
        o, t = OD.Bernoulli(probs=O(PROBS)), TD.Bernoulli(probs=T(PROBS))
        same(o.sample((6,)), t.sample((6,)))
        o, t = OD.Bernoulli(logits=O(LOC.astype(np.float64))), \
            TD.Bernoulli(logits=T(LOC.astype(np.float64)))
        same(o.sample((2,)), t.sample((2,)))


@pytest.mark.parametrize("sample_shape", [(), (1,), (4,), (2, 3)])
def test_categorical_draws_equal_torch(sample_shape):
    for kind in ("probs", "logits"):
        p = np.exp(LOGITS) if kind == "probs" else LOGITS
        o, t = OD.Categorical(**{kind: O(p)}), TD.Categorical(**{kind: T(p)})
        ot.manual_seed(5)
        torch.manual_seed(5)
        r, e = o.sample(sample_shape), t.sample(sample_shape)
        same(r, e)
        assert r.dtype == ot.int64
    o, t = OD.Categorical(O(np.exp(LOGITS[0]))), TD.Categorical(T(np.exp(LOGITS[0])))
    ot.manual_seed(1)
    torch.manual_seed(1)
    same(o.sample((3, 2)), t.sample((3, 2)))


def test_multivariate_normal_draws_equal_torch():
    loc = LOC[:2, :3]
    for kw in ("covariance_matrix", "scale_tril", "precision_matrix"):
        m = {"covariance_matrix": COV, "scale_tril": np.linalg.cholesky(COV),
             "precision_matrix": np.linalg.inv(COV)}[kw]
        o = OD.MultivariateNormal(O(loc), **{kw: O(m)})
        t = TD.MultivariateNormal(T(loc), **{kw: T(m)})
        ot.manual_seed(2)
        torch.manual_seed(2)
        close(o.rsample((4,)), t.rsample((4,)), rtol=1e-5, atol=1e-5)
        close(o.scale_tril, t.scale_tril, rtol=1e-4, atol=1e-5)
        close(o.covariance_matrix, t.covariance_matrix, rtol=1e-4, atol=1e-4)
        close(o.precision_matrix, t.precision_matrix, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gamma_beta_dirichlet_draws_equal_torch(dtype):
    conc = np.array([[0.05, 0.3, 0.9, 1.0], [1.5, 4.0, 12.0, 250.0]], dtype)
    rate = np.array([0.5, 1.0, 2.0, 3.0], dtype)
    cases = [("Gamma", (conc, rate)), ("Dirichlet", (conc,)), ("Beta", (conc, conc[::-1].copy()))]
    for name, arrays in cases:
        o, t = _pair(name, arrays)
        for seed in (0, 7):
            ot.manual_seed(seed)
            torch.manual_seed(seed)
            same(o.sample((3,)), t.sample((3,)))
            same(o.rsample(), t.rsample())
        # the generator is left where torch leaves it
        same(ot.rand(3), torch.rand(3))


def test_gamma_draw_statistics():
    # mean and variance of many draws (a check of the sampler independent of torch)
    ot.manual_seed(0)
    for a in (0.3, 2.5):
        x = OD.Gamma(ot.tensor(a), ot.tensor(2.0)).sample((20000,)).numpy().astype(np.float64)
        assert abs(x.mean() - a / 2) < 0.03 * a
        assert abs(x.var() - a / 4) < 0.08 * a


# ------------------------------------------------------------------------------ values
def _value_cases():
    return [
        ("Normal", (LOC, SCALE), {}, LOC + 0.3),
        ("Normal", (noncontig(LOC), noncontig(SCALE)), {}, noncontig(LOC) - 0.2),
        ("Uniform", (LOC, LOC + SCALE), {}, LOC + 0.4 * SCALE),
        ("Bernoulli", (PROBS,), {}, (PROBS > 0.5).astype(np.float32)),
        ("Gamma", (CONC, RATE), {}, RATE + 0.1),
        ("Beta", (CONC, RATE), {}, PROBS * 0.9 + 0.05),
        ("Dirichlet", (CONC,), {}, PROBS / PROBS.sum(-1, keepdims=True)),
    ]


@pytest.mark.parametrize("case", range(7))
def test_values_match_torch(case):
    name, arrays, kw, value = _value_cases()[case]
    o, t = _pair(name, arrays, **kw)
    close(o.log_prob(O(value)), t.log_prob(T(value)), rtol=2e-5, atol=2e-5)
    close(o.entropy(), t.entropy(), rtol=2e-5, atol=2e-5)
    for prop in ("mean", "variance", "stddev", "mode"):
        close(getattr(o, prop), getattr(t, prop), rtol=2e-5, atol=2e-6)
    assert o.batch_shape == t.batch_shape and o.event_shape == t.event_shape
    if name in ("Normal", "Uniform", "Gamma"):
        close(o.cdf(O(value)), t.cdf(T(value)), rtol=2e-5, atol=1e-6)
        if name != "Gamma":
            close(o.icdf(O(PROBS)), t.icdf(T(PROBS)), rtol=2e-5, atol=2e-5)
    e = o.expand((2,) + tuple(o.batch_shape))
    assert e.batch_shape == t.expand((2,) + tuple(t.batch_shape)).batch_shape
    close(e.log_prob(O(value)), t.log_prob(T(value)).expand((2,) + tuple(t.batch_shape)),
          rtol=2e-5, atol=2e-5)


def test_categorical_and_mvn_values_match_torch():
    for kind, p in (("probs", np.exp(LOGITS)), ("logits", LOGITS)):
        o, t = OD.Categorical(**{kind: O(p)}), TD.Categorical(**{kind: T(p)})
        v = np.array([[0, 4, 2], [1, 1, 3]])
        close(o.log_prob(O(v)), t.log_prob(T(v)), rtol=1e-5)
        close(o.entropy(), t.entropy(), rtol=1e-5)
        close(o.probs, t.probs, rtol=1e-5)
        close(o.logits, t.logits, rtol=1e-5, atol=1e-5)
        same(o.mode, t.mode)
        same(o.enumerate_support(), t.enumerate_support())
    loc = LOC[:2, :3]
    v = LOC[:, :3][:, None] + 0.5
    for kw, m in (("covariance_matrix", COV), ("scale_tril", np.linalg.cholesky(COV)),
                  ("precision_matrix", np.linalg.inv(COV))):
        o = OD.MultivariateNormal(O(loc), **{kw: O(m)})
        t = TD.MultivariateNormal(T(loc), **{kw: T(m)})
        close(o.log_prob(O(v)), t.log_prob(T(v)), rtol=1e-5, atol=1e-5)
        close(o.entropy(), t.entropy(), rtol=1e-5)
        close(o.variance, t.variance, rtol=1e-4)
    o = OD.Independent(OD.Normal(O(LOC), O(SCALE)), 1)
    t = TD.Independent(TD.Normal(T(LOC), T(SCALE)), 1)
    assert (o.batch_shape, o.event_shape) == (t.batch_shape, t.event_shape)
    close(o.log_prob(O(LOC)), t.log_prob(T(LOC)), rtol=1e-5)
    close(o.entropy(), t.entropy(), rtol=1e-5)
    assert repr(o.support) == repr(t.support)


def _kl_pairs():
    lo, hi = LOC - 1, LOC + SCALE
    return [
        ("Normal", "Normal", (LOC, SCALE), (LOC[::-1].copy(), RATE)),
        ("Bernoulli", "Bernoulli", (PROBS,), (PROBS[::-1].copy(),)),
        ("Uniform", "Uniform", (LOC, LOC + SCALE), (lo, hi)),
        ("Uniform", "Uniform", (lo, hi), (LOC, LOC + SCALE)),
        ("Uniform", "Normal", (LOC, LOC + SCALE), (LOC, RATE)),
        ("Gamma", "Gamma", (CONC, RATE), (RATE, CONC)),
        ("Beta", "Beta", (CONC, RATE), (RATE, CONC)),
        ("Dirichlet", "Dirichlet", (CONC,), (CONC[::-1].copy(),)),
        ("Normal", "Gamma", (LOC, SCALE), (CONC, RATE)),
        ("Beta", "Gamma", (CONC, RATE), (RATE, CONC)),
        ("Beta", "Normal", (CONC, RATE), (LOC, SCALE)),
        ("Beta", "Uniform", (CONC, RATE), (np.minimum(LOC, 0), np.maximum(LOC, 0) + 1)),
        ("Gamma", "Normal", (CONC, RATE), (LOC, SCALE)),
        ("Gamma", "Uniform", (CONC, RATE), (LOC, LOC + 1)),
        ("Uniform", "Beta", (PROBS * 0.5, PROBS * 0.5 + SCALE * 0.3), (CONC, RATE)),
        ("Uniform", "Beta", (LOC, LOC + SCALE), (CONC, RATE)),
        ("Uniform", "Gamma", (PROBS, PROBS + SCALE), (CONC, RATE)),
        ("Uniform", "Gamma", (LOC, LOC + SCALE), (CONC, RATE)),
    ]


@pytest.mark.parametrize("case", range(18))
def test_kl_divergence_matches_torch(case):
    p_name, q_name, pa, qa = _kl_pairs()[case]
    op, tp = _pair(p_name, pa)
    oq, tq = _pair(q_name, qa)
    close(OD.kl_divergence(op, oq), TD.kl_divergence(tp, tq), rtol=1e-4, atol=2e-5)


def test_kl_divergence_categorical_mvn_independent_and_registry():
    p0, p1 = np.exp(LOGITS), np.exp(LOGITS[::-1].copy())
    p1[0, 2] = 0
    close(OD.kl_divergence(OD.Categorical(O(p0)), OD.Categorical(O(p1))),
          TD.kl_divergence(TD.Categorical(T(p0)), TD.Categorical(T(p1))), rtol=1e-5)
    loc = LOC[:2, :3]
    L2 = np.linalg.cholesky(COV[::-1].copy())
    close(OD.kl_divergence(OD.MultivariateNormal(O(loc), O(COV)),
                           OD.MultivariateNormal(O(loc[::-1].copy()), scale_tril=O(L2))),
          TD.kl_divergence(TD.MultivariateNormal(T(loc), T(COV)),
                           TD.MultivariateNormal(T(loc[::-1].copy()), scale_tril=T(L2))),
          rtol=1e-4, atol=1e-5)
    close(OD.kl_divergence(OD.Independent(OD.Normal(O(LOC), O(SCALE)), 1),
                           OD.Independent(OD.Normal(O(CONC), O(RATE)), 1)),
          TD.kl_divergence(TD.Independent(TD.Normal(T(LOC), T(SCALE)), 1),
                           TD.Independent(TD.Normal(T(CONC), T(RATE)), 1)), rtol=1e-5)

    class MyNormal(OD.Normal):
        pass

    @OD.register_kl(MyNormal, OD.Normal)
    def _kl(p, q):
        return ot.zeros(p.batch_shape)

    assert (OD.kl_divergence(MyNormal(0.0, 1.0), OD.Normal(1.0, 1.0)) == 0).all()
    assert float(OD.kl_divergence(OD.Normal(0.0, 1.0), MyNormal(1.0, 1.0))) == 0.5
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p "
                       "type Categorical and q type Normal"):
        OD.kl_divergence(OD.Categorical(O(p0)), OD.Normal(0.0, 1.0))


# --------------------------------------------------------------------------- gradients
def test_rsample_gradients_match_torch():
    cases = [("Normal", (LOC, SCALE)), ("Uniform", (LOC, LOC + SCALE)),
             ("Gamma", (CONC, RATE)), ("Beta", (CONC, RATE)), ("Dirichlet", (CONC,))]
    for name, arrays in cases:
        oa = [O(a, requires_grad=True) for a in arrays]
        ta = [T(a, requires_grad=True) for a in arrays]
        ot.manual_seed(4)
        torch.manual_seed(4)
        xo = getattr(OD, name)(*oa).rsample((2,))
        xt = getattr(TD, name)(*ta).rsample((2,))
        same(xo, xt)
        (xo * xo).sum().backward()
        (xt * xt).sum().backward()
        for a, b in zip(oa, ta):
            close(a.grad, b.grad, rtol=1e-4, atol=1e-5)
    loc, L = O(LOC[:2, :3], requires_grad=True), O(np.linalg.cholesky(COV), requires_grad=True)
    tl, tL = T(LOC[:2, :3], requires_grad=True), T(np.linalg.cholesky(COV), requires_grad=True)
    ot.manual_seed(4)
    torch.manual_seed(4)
    xo = OD.MultivariateNormal(loc, scale_tril=L).rsample((3,))
    xt = TD.MultivariateNormal(tl, scale_tril=tL).rsample((3,))
    (xo ** 2).sum().backward()
    (xt ** 2).sum().backward()
    close(loc.grad, tl.grad, rtol=1e-4, atol=1e-4)
    close(L.grad, tL.grad, rtol=1e-4, atol=1e-4)


def test_standard_gamma_and_dirichlet_grads_on_given_samples():
    # every branch of torch's approximations: small x, large alpha near/away from the mode,
    # the rational fit; and the Beta branches (x near 0, near 1, both concentrations large)
    alpha = np.array([0.1, 0.5, 2.0, 3.0, 7.0, 9.0, 9.0, 30.0, 30.0, 100.0, 4.0, 1.5])
    x = np.array([0.01, 0.5, 0.3, 2.5, 9.0, 9.3, 3.0, 29.0, 45.0, 80.0, 0.9, 5.0])
    for dt in (np.float64, np.float32):
        got = _gamma.standard_gamma_grad_np(alpha.astype(dt), x.astype(dt))
        want = torch._standard_gamma_grad(torch.tensor(alpha.astype(dt)),
                                          torch.tensor(x.astype(dt))).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5 if dt == np.float32 else 1e-10)
    xs = np.array([0.01, 0.2, 0.5, 0.7, 0.99, 0.45, 0.5, 0.3, 0.6])
    al = np.array([0.5, 2.0, 1.0, 3.0, 2.0, 8.0, 10.0, 2.0, 3.0])
    tot = np.array([1.0, 3.0, 2.5, 4.0, 2.5, 17.0, 20.0, 9.0, 4.5])
    got = _gamma.dirichlet_grad_np(xs, al, tot)
    want = torch._dirichlet_grad(torch.tensor(xs), torch.tensor(al), torch.tensor(tot)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_log_prob_gradcheck_float64():
    def check(fn, *arrays):
        args = [O(a.astype(np.float64), requires_grad=True) for a in arrays]
        assert ot.autograd.gradcheck(fn, args)

    v = LOC.astype(np.float64) + 0.3
    check(lambda m, s: OD.Normal(m, s).log_prob(ot.tensor(v)), LOC, SCALE)
    check(lambda c, r: OD.Gamma(c, r).log_prob(ot.tensor(RATE.astype(np.float64))), CONC, RATE)
    check(lambda a, b: OD.Beta(a, b).log_prob(ot.tensor(PROBS.astype(np.float64))), CONC, RATE)
    check(lambda c: OD.Dirichlet(c).log_prob(ot.tensor(
        (PROBS / PROBS.sum(-1, keepdims=True)).astype(np.float64))), CONC)
    check(lambda lg: OD.Categorical(logits=lg).log_prob(ot.tensor([1, 0, 4])), LOGITS)
    check(lambda p: OD.Bernoulli(probs=p).log_prob(ot.tensor(
        (PROBS > 0.5).astype(np.float64))), PROBS * 0.8 + 0.1)
    # scale_tril: finite differences of a covariance entry break its symmetry
    check(lambda m, L: OD.MultivariateNormal(m, scale_tril=L, validate_args=False).log_prob(
        ot.tensor(LOC[:2, :3] * 0.5)), LOC[:2, :3], np.linalg.cholesky(COV))


# -------------------------------------------------------------------------- validation
def _first_line_error(fn):
    with pytest.raises(ValueError) as e:
        fn()
    return str(e.value).split("\n")[0]


def test_validation_errors_match_torch():
    pairs = [
        (lambda: OD.Normal(O(LOC), O(-SCALE)), lambda: TD.Normal(T(LOC), T(-SCALE))),
        (lambda: OD.Gamma(O(CONC), O(-RATE)), lambda: TD.Gamma(T(CONC), T(-RATE))),
        (lambda: OD.Bernoulli(O(PROBS + 1)), lambda: TD.Bernoulli(T(PROBS + 1))),
        (lambda: OD.Bernoulli(O(PROBS), O(PROBS)), lambda: TD.Bernoulli(T(PROBS), T(PROBS))),
        (lambda: OD.Categorical(ot.tensor(1.0)), lambda: TD.Categorical(torch.tensor(1.0))),
        (lambda: OD.Uniform(O(LOC), O(LOC - 1)), lambda: TD.Uniform(T(LOC), T(LOC - 1))),
        (lambda: OD.MultivariateNormal(O(LOC)), lambda: TD.MultivariateNormal(T(LOC))),
        (lambda: OD.Normal(O(LOC), O(SCALE)).log_prob(O(np.ones((2, 4)))),
         lambda: TD.Normal(T(LOC), T(SCALE)).log_prob(T(np.ones((2, 4))))),
        (lambda: OD.Dirichlet(O(CONC)).log_prob(O(np.ones(3))),
         lambda: TD.Dirichlet(T(CONC)).log_prob(T(np.ones(3)))),
        (lambda: OD.Gamma(O(CONC), O(RATE)).log_prob(O(-RATE)),
         lambda: TD.Gamma(T(CONC), T(RATE)).log_prob(T(-RATE))),
        (lambda: OD.Normal(O(LOC), O(SCALE)).log_prob(1.0),
         lambda: TD.Normal(T(LOC), T(SCALE)).log_prob(1.0)),
        (lambda: OD.Categorical(O(PROBS)).log_prob(O(np.array([7, 0, 1]))),
         lambda: TD.Categorical(T(PROBS)).log_prob(T(np.array([7, 0, 1])))),
    ]
    for fo, ft in pairs:
        assert _first_line_error(fo) == _first_line_error(ft)
    # validate_args=False lets the value through, as in torch
    OD.Normal(O(LOC), O(-SCALE), validate_args=False)


def test_shapes_and_repr_match_torch():
    for name, arrays in [("Normal", (LOC, SCALE)), ("Gamma", (CONC[0], RATE[0]))]:
        o, t = _pair(name, arrays)
        assert repr(o) == repr(t)
        assert o._extended_shape((2,)) == t._extended_shape((2,))
    assert repr(OD.Normal(0.0, 1.0)) == repr(TD.Normal(0.0, 1.0))
    for c in ("real", "positive", "simplex", "unit_interval", "boolean", "lower_cholesky"):
        assert repr(getattr(OD.constraints, c)) == repr(getattr(TD.constraints, c))
    assert repr(OD.Uniform(O(LOC), O(LOC + 1)).support).startswith("Interval(lower_bound=")
    assert ot.distributions is OD


# ------------------------------------------------------------------ the Paddle door
def _paddle():
    return pytest.importorskip("paddle")


def _pd_close(a, b, rtol=2e-5, atol=2e-6):
    a, b = a.numpy(), b.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _both(make):
    """make(module, to_tensor) in oar's Paddle door and in paddle."""
    import oar
    import oar.distribution as OPD
    paddle = _paddle()
    return make(OPD, oar.to_tensor), make(paddle.distribution, paddle.to_tensor)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", range(4))
def test_paddle_normal_matches_paddle(case):
    makers = [lambda M, t: M.Normal(t(LOC), t(SCALE)),
              lambda M, t: M.Normal(0.5, 2.0),
              lambda M, t: M.Normal([0.1, 0.2, 0.3, 0.4], [1.0, 2.0, 1.0, 0.5]),
              lambda M, t: M.Normal(LOC.astype(np.float64), SCALE.astype(np.float64))]
    o, p = _both(makers[case])
    import oar
    paddle = _paddle()
    v = LOC[::-1].copy() + 0.25
    _pd_close(o.entropy(), p.entropy())
    _pd_close(o.log_prob(oar.to_tensor(v)), p.log_prob(paddle.to_tensor(v)))
    _pd_close(o.probs(oar.to_tensor(v)), p.probs(paddle.to_tensor(v)))
    _pd_close(o.mean, p.mean)
    _pd_close(o.variance, p.variance)
    q_o, q_p = _both(lambda M, t: M.Normal(t(RATE), t(CONC)))
    if case in (0, 2, 3):
        _pd_close(o.kl_divergence(q_o), p.kl_divergence(q_p), rtol=1e-4)
        import oar.distribution as OPD
        _pd_close(OPD.kl_divergence(o, q_o), paddle.distribution.kl_divergence(p, q_p), rtol=1e-4)
    assert tuple(o.batch_shape) == tuple(p.batch_shape)
    for method in ("sample", "rsample"):
        a, b = getattr(o, method)([2]), getattr(p, method)([2])
        assert a.shape == list(b.shape) and a.numpy().dtype == b.numpy().dtype


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_paddle_uniform_categorical_bernoulli_match_paddle():
    import oar
    paddle = _paddle()
    o, p = _both(lambda M, t: M.Uniform(t(LOC), t(LOC + SCALE)))
    for v in (LOC + 0.3 * SCALE, LOC - 1):
        _pd_close(o.log_prob(oar.to_tensor(v)), p.log_prob(paddle.to_tensor(v)))
        _pd_close(o.probs(oar.to_tensor(v)), p.probs(paddle.to_tensor(v)))
    _pd_close(o.entropy(), p.entropy())
    x = o.sample([500]).numpy()
    assert x.shape == (500, 3, 4) and (x >= LOC).all() and (x < LOC + SCALE).all()

    w = PROBS[:, :4] + 0.1
    o, p = _both(lambda M, t: M.Categorical(t(w)))
    o2, p2 = _both(lambda M, t: M.Categorical(t(w[::-1].copy())))
    for v in (np.array([1, 0, 3]), np.array([[1], [0], [3]])):
        _pd_close(o.probs(oar.to_tensor(v)), p.probs(paddle.to_tensor(v)))
        _pd_close(o.log_prob(oar.to_tensor(v)), p.log_prob(paddle.to_tensor(v)))
    _pd_close(o.entropy(), p.entropy())
    _pd_close(o.kl_divergence(o2), p.kl_divergence(p2))
    s, ps = o.sample([2000]), p.sample([2000])
    assert s.shape == list(ps.shape) and s.numpy().dtype == ps.numpy().dtype
    # sample draws from softmax(logits) (Paddle's reading), not logits / sum
    freq = (s.numpy()[:, 0][:, None] == np.arange(4)).mean(0)
    np.testing.assert_allclose(freq, np.exp(w[0]) / np.exp(w[0]).sum(), atol=0.04)

    o, p = _both(lambda M, t: M.Bernoulli(t(PROBS)))
    v = (PROBS > 0.5).astype(np.float32)
    for m in ("log_prob", "prob", "cdf"):
        _pd_close(getattr(o, m)(oar.to_tensor(v)), getattr(p, m)(paddle.to_tensor(v)))
    _pd_close(o.entropy(), p.entropy())
    _pd_close(o.mean, p.mean)
    _pd_close(o.variance, p.variance)
    ob, pb = _both(lambda M, t: M.Bernoulli(0.3))
    _pd_close(o.kl_divergence(ob), p.kl_divergence(pb))
    for m in ("sample", "rsample"):
        assert getattr(o, m)([2]).shape == list(getattr(p, m)([2]).shape)


def test_paddle_beta_dirichlet_match_paddle():
    import oar
    import oar.distribution as OPD
    paddle = _paddle()
    PDD = paddle.distribution
    simplex = PROBS / PROBS.sum(-1, keepdims=True)
    o, p = _both(lambda M, t: M.Dirichlet(t(CONC)))
    o2, p2 = _both(lambda M, t: M.Dirichlet(t(CONC[::-1].copy())))
    _pd_close(o.log_prob(oar.to_tensor(simplex)), p.log_prob(paddle.to_tensor(simplex)))
    _pd_close(o.entropy(), p.entropy())
    _pd_close(o.mean, p.mean)
    _pd_close(o.variance, p.variance)
    _pd_close(OPD.kl_divergence(o, o2), PDD.kl_divergence(p, p2), rtol=1e-4)
    assert (tuple(o.batch_shape), tuple(o.event_shape)) == (tuple(p.batch_shape),
                                                            tuple(p.event_shape))
    oar.seed(0)
    x = o.sample([4000]).numpy()
    assert x.shape == (4000, 3, 4)
    np.testing.assert_allclose(x.mean(0), o.mean.numpy(), atol=0.02)
    with pytest.raises(ValueError, match="at least one dimensional"):
        OPD.Dirichlet(oar.to_tensor(1.0))

    o, p = _both(lambda M, t: M.Beta(t(CONC), t(RATE)))
    o2, p2 = _both(lambda M, t: M.Beta(t(RATE), t(CONC)))
    _pd_close(o.log_prob(oar.to_tensor(PROBS)), p.log_prob(paddle.to_tensor(PROBS)))
    _pd_close(o.prob(oar.to_tensor(PROBS)), p.prob(paddle.to_tensor(PROBS)))
    _pd_close(o.entropy(), p.entropy())
    _pd_close(o.mean, p.mean)
    _pd_close(o.variance, p.variance)
    _pd_close(OPD.kl_divergence(o, o2), PDD.kl_divergence(p, p2), rtol=1e-4)
    assert o.sample([2]).shape == list(p.sample([2]).shape)
    assert OPD.Beta(0.5, 0.5).sample([3]).shape == list(PDD.Beta(0.5, 0.5).sample([3]).shape)
    with pytest.raises(NotImplementedError):
        OPD.kl_divergence(OPD.Uniform(0.0, 1.0), OPD.Uniform(0.0, 2.0))
    with pytest.raises(NotImplementedError):
        OPD.kl_divergence(OPD.Uniform(0.0, 1.0), OPD.Normal(0.0, 2.0))


def test_paddle_rsample_gradient_and_mixed_arguments():
    import oar
    import oar.distribution as OPD
    loc = oar.to_tensor(LOC, stop_gradient=False)
    scale = oar.to_tensor(SCALE, stop_gradient=False)
    oar.seed(1)
    x = OPD.Normal(loc, scale).rsample([3])
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), np.full(LOC.shape, 3.0))
    eps = (x.detach().numpy() - LOC) / SCALE
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="if one argument is Tensor, all arguments should be "
                                         "Tensor"):
        OPD.Normal(loc, 1.0)
    assert oar.distribution is OPD


# ------------------------------------------------------------------------ transforms
def test_lognormal_and_transformed_distribution_match_torch():
    o, t = _pair("LogNormal", (LOC, SCALE))
    ot.manual_seed(8)
    torch.manual_seed(8)
    # the normal draws are torch's; exp itself may differ from torch's vectorised exp by an ulp
    close(o.sample((3,)), t.sample((3,)), rtol=3e-7, atol=0)
    v = np.exp(LOC[::-1].copy())
    close(o.log_prob(O(v)), t.log_prob(T(v)), rtol=2e-5, atol=2e-5)
    close(o.cdf(O(v)), t.cdf(T(v)), rtol=2e-5, atol=1e-6)
    close(o.icdf(O(PROBS)), t.icdf(T(PROBS)), rtol=2e-5, atol=1e-6)
    for prop in ("mean", "variance", "mode"):
        close(getattr(o, prop), getattr(t, prop), rtol=2e-5, atol=1e-6)
    close(o.entropy(), t.entropy(), rtol=2e-5, atol=1e-6)
    o2, t2 = _pair("LogNormal", (RATE, CONC))
    close(OD.kl_divergence(o, o2), TD.kl_divergence(t, t2), rtol=1e-5)

    OT, TT = OD.transforms, TD.transforms

    def build(M, tr, t):
        return M.TransformedDistribution(
            M.Normal(t(LOC), t(SCALE)),
            [tr.AffineTransform(t(RATE), t(-CONC)), tr.SigmoidTransform()])

    o, t = build(OD, OT, O), build(TD, TT, T)
    assert (o.batch_shape, o.event_shape) == (t.batch_shape, t.event_shape)
    ot.manual_seed(9)
    torch.manual_seed(9)
    x, y = o.rsample((2,)), t.rsample((2,))
    close(x, y, rtol=1e-6, atol=1e-7)
    close(o.log_prob(x), t.log_prob(y), rtol=1e-4, atol=1e-4)
    close(o.cdf(O(PROBS)), t.cdf(T(PROBS)), rtol=1e-5, atol=1e-6)
    assert repr(o.support) == repr(t.support)
    ct_o = OT.ComposeTransform([OT.ExpTransform(), OT.AffineTransform(1.0, 2.0)])
    ct_t = TT.ComposeTransform([TT.ExpTransform(), TT.AffineTransform(1.0, 2.0)])
    assert repr(ct_o) == repr(ct_t)
    xv = O(LOC)
    close(ct_o.inv(ct_o(xv)), LOC, rtol=1e-5)
    close(ct_o.log_abs_det_jacobian(xv, ct_o(xv)),
          ct_t.log_abs_det_jacobian(T(LOC), ct_t(T(LOC))), rtol=1e-6)
    close(ct_o.inv.log_abs_det_jacobian(ct_o(xv), xv),
          ct_t.inv.log_abs_det_jacobian(ct_t(T(LOC)), T(LOC)), rtol=1e-6)
    cached = OT.ExpTransform(cache_size=1)
    y = cached(xv)
    assert cached.inv(y) is xv
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        OT.ExpTransform(cache_size=2)
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        OD.TransformedDistribution(OD.Normal(0.0, 1.0), "exp")
