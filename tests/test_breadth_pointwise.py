"""hypot, ldexp, copysign, gcd, lcm, xlogy, lerp, addcmul, addcdiv, clamp_min, clamp_max, addmm,
renorm, index_fill, masked_scatter (oar/ops/pointwise_more.py) in both doors, against torch
2.13 and paddle 3.3.1: values, result dtypes (int and mixed operands), broadcasting,
non-contiguous operands, float64 gradients against torch's autograd and finite differences,
in-place spellings, and errors."""
import numpy as np
import pytest

import oar
import oar.torch as ot

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def _nc(a):
    """A non-contiguous array with a's values (every other column of a wider one)."""
    a = np.asarray(a)
    if a.ndim == 0:
        return a
    wide = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
    wide[..., ::2] = a
    return wide[..., ::2]


def _ot(a, grad=False):
    t = ot.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else a
    if grad:
        t.requires_grad_(True)
    return t


def _oar_nc(a, grad=False):
    """An oar.torch tensor that is a non-contiguous view (a strided slice of a wider one)."""
    a = np.asarray(a)
    wide = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
    wide[..., ::2] = a
    base = ot.tensor(wide)
    t = base[..., ::2]
    if grad:
        t = t.detach().requires_grad_(True)
    return t


def _t(a, grad=False):
    t = torch.tensor(np.array(a))
    return t.requires_grad_(True) if grad else t


def _close(o, t, atol=1e-6, rtol=1e-5):
    o_np = o.detach().numpy() if hasattr(o, "detach") else np.asarray(o)
    t_np = t.detach().numpy()
    assert o_np.dtype == t_np.dtype, (o_np.dtype, t_np.dtype)
    assert o_np.shape == t_np.shape, (o_np.shape, t_np.shape)
    np.testing.assert_allclose(o_np, t_np, atol=atol, rtol=rtol, equal_nan=True)


# ---------------------------------------------------------------- values and dtypes vs torch
F32 = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
F32b = RNG.uniform(-2, 2, (4,)).astype(np.float32)
POS = RNG.uniform(0.5, 2, (4,)).astype(np.float32)
I64 = RNG.integers(-9, 9, (3, 4))
I64b = RNG.integers(-9, 9, (4,))
F64 = F32b.astype(np.float64)

BINARY = [
    ("hypot", F32, F32b), ("hypot", F32, I64b), ("hypot", I64, F64),
    ("ldexp", F32, I64b), ("ldexp", I64, I64b), ("ldexp", F32, F64),
    ("copysign", F32, F32b), ("copysign", I64, I64b), ("copysign", F32, F64),
    ("gcd", I64, I64b), ("lcm", I64, I64b),
    ("gcd", I64.astype(np.uint8) % 50, I64b.astype(np.int16)),
    ("xlogy", F32, POS), ("xlogy", I64, I64b), ("xlogy", np.zeros((3, 4), np.float32), F32b),
    ("clamp_min", F32, F32b), ("clamp_min", I64, F32b), ("clamp_min", I64, I64b),
    ("clamp_max", F32, F32b), ("clamp_max", F64, F32b),
]


@pytest.mark.parametrize("name,a,b", BINARY, ids=[f"{n}-{a.dtype}-{b.dtype}" for n, a, b in BINARY])
@pytest.mark.parametrize("contiguous", [True, False])
def test_binary_matches_torch(name, a, b, contiguous):
    with np.errstate(all="ignore"):
        want = getattr(torch, name)(_t(a), _t(b))
    mk = (lambda x: _ot(x)) if contiguous else _oar_nc
    got = getattr(ot, name)(mk(a), mk(b))
    assert isinstance(got, ot.Tensor)
    _close(got, want)
    _close(getattr(mk(a), name)(mk(b)), want)   # the method


@pytest.mark.parametrize("name,number", [("copysign", -1.5), ("xlogy", 2.0), ("clamp_min", 0.25),
                                         ("clamp_max", 0.25), ("clamp_min", 2.5)])
def test_number_operand_matches_torch(name, number):
    for a in (F32, I64):
        _close(getattr(ot, name)(_ot(a), number), getattr(torch, name)(_t(a), number))
    if name == "xlogy":   # a number first
        _close(ot.xlogy(3, _ot(POS)), torch.xlogy(3, _t(POS)))


def test_hypot_of_integers_refused_in_torch_door_floats_in_paddle_door():
    with pytest.raises(NotImplementedError, match="hypot"):
        torch.hypot(_t(I64), _t(I64b))
    with pytest.raises(NotImplementedError, match="hypot"):
        ot.hypot(_ot(I64), _ot(I64b))
    paddle = pytest.importorskip("paddle")
    want = paddle.hypot(paddle.to_tensor(I64), paddle.to_tensor(I64b))
    got = oar.hypot(oar.to_tensor(I64), oar.to_tensor(I64b))
    assert str(got.dtype) == str(want.dtype) == "paddle.float32"
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_gcd_lcm_refuse_floats_and_bools():
    for fn in ("gcd", "lcm"):
        for a in (F32, F32 > 0):
            with pytest.raises(NotImplementedError) as want:
                getattr(torch, fn)(_t(a), _t(a))
            with pytest.raises(NotImplementedError) as got:
                getattr(ot, fn)(_ot(a), _ot(a))
            assert str(want.value).split(" ")[0] in str(got.value)


TERNARY = [
    ("lerp", (F32, F32b, 0.3), {}), ("lerp", (F32, F32b, RNG.uniform(0, 1, (3, 1)).astype(np.float32)), {}),
    ("lerp", (F32, F32b, 0.9), {}),
    ("addcmul", (F32, F32b, F32), {"value": 0.5}), ("addcmul", (I64, I64b, I64), {"value": 3}),
    ("addcmul", (I64, F32b, I64), {}), ("addcmul", (F32, F64, F32), {"value": -2}),
    ("addcdiv", (F32, F32b, POS), {"value": 0.5}), ("addcdiv", (I64, F32b, POS), {}),
]


@pytest.mark.parametrize("name,args,kw", TERNARY, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(TERNARY)])
def test_ternary_matches_torch(name, args, kw):
    want = getattr(torch, name)(*[_t(a) if isinstance(a, np.ndarray) else a for a in args], **kw)
    got = getattr(ot, name)(*[_ot(a) if isinstance(a, np.ndarray) else a for a in args], **kw)
    _close(got, want)
    got = getattr(ot, name)(*[_oar_nc(a) if isinstance(a, np.ndarray) else a for a in args], **kw)
    _close(got, want)


def test_lerp_dtype_rules_match_torch():
    for args in ((F32, F64, 0.5), (F32, F32b, F64), (I64, I64b, 1)):
        with pytest.raises((RuntimeError, NotImplementedError)) as want:
            torch.lerp(*[_t(a) if isinstance(a, np.ndarray) else a for a in args])
        with pytest.raises(type(want.value)):
            ot.lerp(*[_ot(a) if isinstance(a, np.ndarray) else a for a in args])


def test_addcdiv_integer_division_refused():
    with pytest.raises(RuntimeError, match="Integer division"):
        torch.addcdiv(_t(I64), _t(I64), _t(I64))
    with pytest.raises(RuntimeError, match="Integer division"):
        ot.addcdiv(_ot(I64), _ot(I64), _ot(I64))


# ---------------------------------------------------------------- gradients vs torch (float64)
def _grads(lib, fn, arrays, consts, mk):
    ins = [mk(a, True) for a in arrays]
    out = fn(lib)(*ins, *consts)
    g = np.linspace(-1, 1, int(np.prod(out.shape))).reshape(tuple(out.shape))
    out.backward(lib.tensor(g) if lib is torch else ot.tensor(g))
    return out, [t.grad for t in ins]


GRAD_CASES = [
    ("hypot", lambda L: L.hypot, (F32, F32b), ()),
    ("ldexp", lambda L: L.ldexp, (F32, F32b), ()),
    ("copysign", lambda L: L.copysign, (F32, F32b), ()),
    ("xlogy", lambda L: L.xlogy, (F32, POS), ()),
    ("lerp_t", lambda L: L.lerp, (F32, F32b, RNG.uniform(0, 1, (3, 1))), ()),
    ("lerp_s", lambda L: L.lerp, (F32, F32b), (0.7,)),
    ("addcmul", lambda L: (lambda x, a, b: L.addcmul(x, a, b, value=0.5)), (F32, F32b, F32), ()),
    ("addcdiv", lambda L: (lambda x, a, b: L.addcdiv(x, a, b, value=-2)), (F32, F32b, POS), ()),
    ("clamp_min", lambda L: L.clamp_min, (F32, F32b + 0.05), ()),
    ("clamp_max", lambda L: L.clamp_max, (F32, F32b + 0.05), ()),
    ("clamp_min_s", lambda L: L.clamp_min, (F32,), (0.33,)),
    ("addmm", lambda L: (lambda i, a, b: L.addmm(i, a, b, beta=0.5, alpha=2.0)),
     (F32b, RNG.standard_normal((3, 2)), RNG.standard_normal((2, 4))), ()),
    ("renorm", lambda L: (lambda x: L.renorm(x, 2, 0, 1.5)), (F32 * 2,), ()),
    ("renorm_p1", lambda L: (lambda x: L.renorm(x, 1, 1, 1.0)), (F32,), ()),
    ("index_fill", lambda L: (lambda x, v: L.index_fill(x, 1, L.tensor([0, 2]), v)),
     (F32, np.float64(1.5)), ()),
    ("masked_scatter", lambda L: (lambda x, s: L.masked_scatter(x, L.tensor(F32 > 0), s)),
     (F32, RNG.standard_normal((4, 4))), ()),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
@pytest.mark.parametrize("contiguous", [True, False])
def test_float64_gradients_match_torch(case, contiguous):
    _, fn, arrays, consts = case
    arrays = [np.asarray(a, np.float64) for a in arrays]
    mk = (lambda a, g: _ot(a.copy(), g)) if contiguous or np.ndim(arrays[0]) == 0 else (
        lambda a, g: _oar_nc(a, g) if np.ndim(a) else _ot(a.copy(), g))
    want, wgrads = _grads(torch, fn, arrays, consts, _t)
    got, ggrads = _grads(ot, fn, arrays, consts, mk)
    _close(got, want, atol=1e-12)
    for g, w in zip(ggrads, wgrads):
        _close(g, w, atol=1e-10)


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_finite_differences(case):
    _, fn, arrays, consts = case
    ins = [_oar_nc(np.asarray(a, np.float64), True) if np.ndim(a) else
           ot.tensor(np.float64(a), requires_grad=True) for a in arrays]
    assert ot.autograd.gradcheck(lambda *xs: fn(ot)(*xs, *consts), tuple(ins))


# ---------------------------------------------------------------- in-place spellings
INPLACE = [("hypot_", (F32b,)), ("ldexp_", (F32b,)), ("copysign_", (F32b,)),
           ("xlogy_", (POS,)), ("lerp_", (F32b, 0.25)), ("addcmul_", (F32b, F32)),
           ("addcdiv_", (F32b, POS)), ("clamp_min_", (0.1,)), ("clamp_max_", (F32b,)),
           ("renorm_", (2, 1, 1.0)), ("index_fill_", (0, torch.tensor([1]), -3.0)),
           ("masked_scatter_", (F32 > 0, F32 * 10))]


@pytest.mark.parametrize("name,rest", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_method_returns_self_bumps_once_and_matches_torch(name, rest):
    tx = _t(F32)
    want = getattr(tx, name)(*[_t(a) if isinstance(a, np.ndarray) else a for a in rest])
    x = _ot(F32.copy())
    v0 = x._version
    conv = [ot.tensor(a.numpy()) if isinstance(a, torch.Tensor) else
            _ot(a) if isinstance(a, np.ndarray) else a for a in rest]
    got = getattr(x, name)(*conv)
    assert got is x and x._version == v0 + 1
    _close(x, want)


def test_gcd_lcm_inplace_and_addmm_inplace():
    for name in ("gcd_", "lcm_"):
        want = getattr(_t(I64), name)(_t(I64b))
        x = _ot(I64.copy())
        assert getattr(x, name)(_ot(I64b)) is x
        _close(x, want)
    m1, m2 = RNG.standard_normal((3, 2)).astype(np.float32), RNG.standard_normal((2, 4)).astype(np.float32)
    want = _t(F32).addmm_(_t(m1), _t(m2), beta=0.5, alpha=2)
    x = _ot(F32.copy())
    assert x.addmm_(_ot(m1), _ot(m2), beta=0.5, alpha=2) is x
    _close(x, want, atol=1e-5)


def test_inplace_refusals_change_nothing():
    x = _ot(I64.copy())
    before = x.numpy().copy()
    for call in (lambda: x.xlogy_(_ot(F32)), lambda: x.clamp_min_(2.5), lambda: x.hypot_(_ot(F32)),
                 lambda: x.copysign_(_ot(I64b)), lambda: x.addcmul_(_ot(I64), _ot(I64), value=0.5)):
        with pytest.raises(RuntimeError):
            call()
        np.testing.assert_array_equal(x.numpy(), before)
        assert x._version == 0
    y = _ot(F32b.copy())   # a result that would not fit
    for call in (lambda: y.hypot_(_ot(F32)), lambda: y.lerp_(_ot(F32), 0.5),
                 lambda: y.masked_scatter_(_ot(F32 > 0), _ot(F32))):
        with pytest.raises(RuntimeError):
            call()
        assert y._version == 0 and list(y.shape) == [4]


# ---------------------------------------------------------------- composites: errors vs torch
ERRORS = [
    lambda L, T: L.addmm(T(F32), T(F32), T(F32)),
    lambda L, T: L.addmm(T(F32), T(I64[:, :2]), T(F32[:2])),
    lambda L, T: L.renorm(T(F32b), 2, 0, 1.0),
    lambda L, T: L.renorm(T(F32), -1, 0, 1.0),
    lambda L, T: L.renorm(T(F32), 2, 0, -1.0),
    lambda L, T: L.index_fill(T(F32), 0, T(np.array([0.0])), 1.0),
    lambda L, T: L.index_fill(T(F32), 0, T(np.array([0])), T(F32b)),
    lambda L, T: L.masked_scatter(T(F32), T(F32), T(F32)),
    lambda L, T: L.masked_scatter(T(F32), T(F32 > 0), T(F64)),
    lambda L, T: L.masked_scatter(T(F32), T(F32 > 0), T(F32b[:1])),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_composite_errors_match_torch_class(i):
    with pytest.raises(Exception) as want:
        ERRORS[i](torch, _t)
    with pytest.raises(Exception) as got:
        ERRORS[i](ot, _ot)
    assert isinstance(got.value, (type(want.value), RuntimeError)), (got.value, want.value)
    assert isinstance(got.value, type(want.value)) or type(want.value) is IndexError


def test_index_fill_torch_and_paddle_argument_orders():
    idx = np.array([0, 2])
    want = torch.index_fill(_t(F32), 1, torch.tensor(idx), -1.0)
    _close(ot.index_fill(_ot(F32), 1, ot.tensor(idx), -1.0), want)
    _close(_ot(F32).index_fill(1, ot.tensor(idx), -1.0), want)
    _close(ot.index_fill(input=_ot(F32), dim=1, index=ot.tensor(idx), value=-1.0), want)
    _close(oar.index_fill(oar.to_tensor(F32), oar.to_tensor(idx), 1, -1.0), want)


# ---------------------------------------------------------------- the Paddle door vs paddle
def _paddle():
    return pytest.importorskip("paddle")


A = RNG.standard_normal((3, 4)).astype(np.float32)
M1 = RNG.standard_normal((3, 2)).astype(np.float32)
M2 = RNG.standard_normal((2, 4)).astype(np.float32)
IDX = np.array([0, 2])
PADDLE_CASES = [
    ("hypot", lambda L, T: L.hypot(T(A), T(F32b))),
    ("hypot_ints", lambda L, T: L.hypot(T(I64), T(I64b))),
    ("ldexp", lambda L, T: L.ldexp(T(A), T(I64b))),
    ("ldexp_kw", lambda L, T: L.ldexp(x=T(I64), y=T(I64b))),
    ("copysign", lambda L, T: L.copysign(T(A), T(F32b))),
    ("copysign_number", lambda L, T: L.copysign(T(A), -1.0)),
    ("gcd", lambda L, T: L.gcd(T(I64), T(I64b))),
    ("lcm", lambda L, T: L.lcm(x=T(I64), y=T(I64b))),
    ("lerp", lambda L, T: L.lerp(T(A), T(F32b), 0.3)),
    ("lerp_tensor", lambda L, T: L.lerp(x=T(A), y=T(F32b), weight=T(POS / 2))),
    ("addmm", lambda L, T: L.addmm(T(F32b), T(M1), T(M2), 0.5, 2.0)),
    ("addmm_kw", lambda L, T: L.addmm(input=T(A), x=T(M1), y=T(M2), beta=0.5, alpha=2.0)),
    ("renorm", lambda L, T: L.renorm(T(A), 2.0, 1, 1.0)),
    ("renorm_kw", lambda L, T: L.renorm(x=T(A), p=1.0, axis=0, max_norm=1.0)),
    ("index_fill", lambda L, T: L.index_fill(T(A), T(IDX), 1, -1.0)),
    ("index_fill_kw", lambda L, T: L.index_fill(x=T(A), index=T(IDX), axis=0, value=2.5)),
    ("masked_scatter", lambda L, T: L.masked_scatter(T(A), T(A > 0), T(A * 10))),
    ("masked_scatter_bc", lambda L, T: L.masked_scatter(x=T(A), mask=T(F32b > 0), value=T(A * 10))),
    ("hypot_", lambda L, T: T(A).hypot_(T(F32b))),
    ("copysign_", lambda L, T: T(A).copysign_(T(F32b))),
    ("ldexp_", lambda L, T: L.ldexp_(T(A), T(I64b))),
    ("gcd_", lambda L, T: T(I64).gcd_(T(I64b))),
    ("lcm_", lambda L, T: L.lcm_(T(I64), T(I64b))),
    ("lerp_", lambda L, T: T(A).lerp_(T(F32b), 0.3)),
    ("addmm_", lambda L, T: T(A).addmm_(T(M1), T(M2))),
    ("renorm_", lambda L, T: T(A).renorm_(2.0, 1, 1.0)),
    ("index_fill_", lambda L, T: T(A).index_fill_(T(IDX), 1, 2.0)),
    ("masked_scatter_", lambda L, T: T(A).masked_scatter_(T(A > 0), T(A * 10))),
    ("bitwise_invert", lambda L, T: L.bitwise_invert(T(I64))),
    ("bitwise_invert_", lambda L, T: T(I64).bitwise_invert_()),
]


@pytest.mark.parametrize("name,fn", PADDLE_CASES, ids=[n for n, _ in PADDLE_CASES])
def test_paddle_door_matches_paddle(name, fn):
    paddle = _paddle()
    want = fn(paddle, paddle.to_tensor)
    got = fn(oar, oar.to_tensor)
    assert type(got) is oar.Tensor
    assert str(got.dtype) == str(want.dtype), (got.dtype, want.dtype)
    assert list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,fn", [c for c in PADDLE_CASES if c[0] in (
    "hypot", "copysign", "lerp_tensor", "addmm", "renorm", "index_fill", "masked_scatter")])
def test_paddle_door_gradients_match_paddle(name, fn):
    paddle = _paddle()

    def run(L, T):
        made = []

        def mk(a):
            t = T(a)
            if np.asarray(a).dtype.kind == "f":
                t.stop_gradient = False
                made.append(t)
            return t
        out = fn(L, mk)
        out.sum().backward()
        return [t.grad.numpy() if t.grad is not None else None for t in made]
    for g, w in zip(run(oar, oar.to_tensor), run(paddle, paddle.to_tensor)):
        if w is None:
            continue
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------- finfo / iinfo
FLOATS = ("float16", "float32", "float64") + (("bfloat16",) if hasattr(ot, "bfloat16") else ())
INTS = ("int8", "int16", "int32", "int64", "uint8")
FFIELDS = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_both_frameworks(name):
    paddle = _paddle()
    for arg in (name, getattr(oar, name)):
        got, want = oar.finfo(arg), paddle.finfo(name)
        assert repr(got) == repr(want)
        for f in FFIELDS:
            assert getattr(got, f) == getattr(want, f), f
    got, want = ot.finfo(getattr(ot, name)), torch.finfo(getattr(torch, name))
    assert repr(got) == repr(want)
    for f in FFIELDS:
        assert getattr(got, f) == getattr(want, f), f


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_both_frameworks(name):
    paddle = _paddle()
    got, want = oar.iinfo(getattr(oar, name)), paddle.iinfo(getattr(paddle, name))
    assert repr(got) == repr(want)
    got, want = ot.iinfo(getattr(ot, name)), torch.iinfo(getattr(torch, name))
    assert repr(got) == repr(want)
    for f in ("bits", "max", "min", "dtype"):
        assert getattr(got, f) == getattr(want, f)
        assert getattr(oar.iinfo(name), f) == getattr(paddle.iinfo(name), f)


def test_typeinfo_arguments_and_refusals_as_each_framework():
    paddle = _paddle()
    assert repr(oar.finfo(np.float32)) == repr(paddle.finfo(np.float32))
    assert repr(ot.finfo()) == repr(torch.finfo())   # the default dtype
    for lib, bad in ((paddle, "int32"), (oar, "int32")):
        with pytest.raises(ValueError):
            lib.finfo(bad)
    for lib in (paddle, oar):
        with pytest.raises(ValueError):
            lib.iinfo(lib.float32)
        with pytest.raises(ValueError):
            lib.iinfo(lib.bool)
    for L in (torch, ot):
        for call in (lambda: L.finfo("float32"), lambda: L.finfo(np.float32),
                     lambda: L.finfo(L.int32), lambda: L.iinfo(L.float32),
                     lambda: L.iinfo(L.bool), lambda: L.iinfo("int32")):
            with pytest.raises(TypeError):
                call()


# ---------------------------------------------------------------- cast_, apply, apply_
def test_cast_inplace_as_paddle():
    paddle = _paddle()
    for L in (paddle, oar):
        x = L.to_tensor([1.5, -2.5, 3.0])
        v = x.inplace_version
        assert L.cast_(x, "int64") is x
        assert str(x.dtype).endswith("int64") and x.inplace_version == v + 1
        np.testing.assert_array_equal(x.numpy(), [1, -2, 3])
        y = L.to_tensor([1.5, 2.5])
        assert y.cast_(L.float64) is y and str(y.dtype).endswith("float64")
        # a leaf that requires grad is refused; a non-leaf passes its gradient back
        w = L.to_tensor([1.5, 2.5], stop_gradient=False)
        with pytest.raises(ValueError):
            w.cast_("float64")
        z = w * 2
        z.cast_("float64")
        (z * z).sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), [12.0, 20.0])
        if L is oar:   # Paddle 3.3.1 hands the float32 leaf a float64 gradient
            assert str(w.grad.dtype).endswith("float32")


def test_cast_inplace_refuses_a_view_and_keeps_saved_values():
    b = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="view"):
        b[0].cast_("int32")
    np.testing.assert_array_equal(b.numpy(), [[1, 2], [3, 4]])
    assert b.inplace_version == 0
    w = oar.to_tensor([1.5, 2.5], stop_gradient=False)
    z = w * 1.0
    y = z * z           # saves z's old value
    z.cast_("float64")  # new memory: the saved float32 buffer is untouched
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 5.0])


def test_apply_and_apply_inplace_as_paddle():
    paddle = _paddle()
    for L in (paddle, oar):
        x = L.to_tensor([1.0, 2.0])
        r = x.apply(lambda t: t * 3 + 2)
        assert r is not x
        np.testing.assert_allclose(r.numpy(), [5.0, 8.0])
        np.testing.assert_allclose(x.numpy(), [1.0, 2.0])
        assert x.apply_(lambda t: t * 2) is x
        np.testing.assert_allclose(x.numpy(), [2.0, 4.0])
        x.apply_(lambda t: t.astype("float64"))    # Paddle: the dtype follows func
        assert str(x.dtype).endswith("float64")
        g = L.to_tensor([1.0], stop_gradient=False)
        for m in ("apply", "apply_"):
            with pytest.raises(RuntimeError, match="required gradient"):
                getattr(g, m)(lambda t: t)
    x = oar.to_tensor([1.0, 2.0])
    x.apply_(lambda t: t + 1)
    assert x.inplace_version == 1   # oar always counts a write (Paddle 3.3.1 does not here)


# ---------------------------------------------------------------- Paddle's in-place activations
ACTS = [("elu_", (0.5,)), ("elu_", ()), ("hardtanh_", (-0.5, 0.25)), ("softmax_", (0,)),
        ("softmax_", ())]


@pytest.mark.parametrize("name,args", ACTS)
def test_paddle_inplace_activations_match_paddle(name, args):
    paddle = _paddle()
    import oar.nn.functional as OF
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    g = RNG.standard_normal((3, 4)).astype(np.float32)
    res = []
    for L, F in ((paddle, paddle.nn.functional), (oar, OF)):
        x = L.to_tensor(a)
        assert getattr(F, name)(x, *args) is x and x.inplace_version == 1
        w = L.to_tensor(a, stop_gradient=False)
        z = w * 1.0
        getattr(F, name)(z, *args)
        (z * L.to_tensor(g)).sum().backward()
        res.append((x.numpy(), w.grad.numpy()))
        with pytest.raises((ValueError, RuntimeError)):
            getattr(F, name)(L.to_tensor(a, stop_gradient=False), *args)
    for o, p in zip(res[1], res[0]):
        np.testing.assert_allclose(o, p, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda L, x, i: L.hypot(x, 2.0), lambda L, x, i: x.hypot(2.0), lambda L, x, i: x.hypot_(2.0),
    lambda L, x, i: L.hypot(2.0, x), lambda L, x, i: L.ldexp(x, 2), lambda L, x, i: x.ldexp_(2),
    lambda L, x, i: L.gcd(i, 2), lambda L, x, i: i.gcd_(2), lambda L, x, i: i.lcm(2)])
def test_torch_door_refuses_a_number_where_torch_takes_only_a_tensor(call):
    for L in (torch, ot):
        x, i = L.tensor([1.0, 2.0]), L.tensor([4, 6])
        with pytest.raises(TypeError, match="must be Tensor"):
            call(L, x, i)
        assert x.tolist() == [1.0, 2.0] and i.tolist() == [4, 6]
