"""complex64 / complex128 in both doors (Note [Complex dtypes], Note [Complex autograd]):
creation, promotion, printing, the views (view_as_real / view_as_complex / real / imag and
Paddle's as_real / as_complex), conj, angle, abs, complex, polar, gradients and in-place
rules, each compared with torch 2.13 or paddle 3.3.1."""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as ot
from oar.autograd.errors import DtypeNotImplementedError

torch = pytest.importorskip("torch")

Z = [1 + 2j, 3 - 4j, -0.5 + 0.25j]
W = [0.5 - 1j, 2 + 1j, -1 - 1j]


def _both(fn):
    """fn(module) run in torch and in oar.torch; the two results as NumPy arrays."""
    a, b = fn(torch), fn(ot)
    return (a.detach().resolve_conj().numpy() if hasattr(a, "detach") else a,
            b.detach().numpy() if hasattr(b, "detach") else b)


# ------------------------------------------------------------------ dtypes, creation, promotion
def test_dtype_names_both_doors():
    assert ot.complex64 is ot.cfloat and ot.complex128 is ot.cdouble
    assert repr(ot.complex64) == repr(torch.complex64) == "torch.complex64"
    assert repr(oar.complex128) == "paddle.complex128"
    assert ot.complex64.is_complex and not ot.float32.is_complex
    assert ot.complex64.is_floating_point == torch.complex64.is_floating_point
    assert ot.complex64.is_signed == torch.complex64.is_signed
    assert oar.to_tensor([1.0], dtype="complex64").dtype == oar.complex64
    assert ot.zeros(2, dtype=ot.cdouble).dtype == ot.complex128


def test_creation_from_python_and_numpy_as_torch():
    for data in ([1 + 2j], 1 + 2j, [[1, 2j], [3.5, 4]]):
        assert str(ot.tensor(data).dtype) == str(torch.tensor(data).dtype)
    arr = np.array([1 + 2j, 3j])
    assert str(ot.from_numpy(arr).dtype) == str(torch.from_numpy(arr).dtype)
    arr64 = arr.astype(np.complex64)
    assert str(ot.tensor(arr64).dtype) == str(torch.tensor(arr64).dtype)
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        ot.set_default_dtype(ot.float64)
        assert str(ot.tensor([1j]).dtype) == str(torch.tensor([1j]).dtype) == "torch.complex128"
        assert str((ot.ones(2, dtype=ot.int64) + 1j).dtype) == str(
            (torch.ones(2, dtype=torch.int64) + 1j).dtype)
    finally:
        torch.set_default_dtype(old)
        ot.set_default_dtype(old and ot.float32)


def test_is_complex_numpy_item_tolist():
    a, b = torch.tensor(Z), ot.tensor(Z)
    assert b.is_complex() and ot.is_complex(b) and not ot.ones(1).is_complex()
    assert b.numpy().dtype == a.numpy().dtype
    assert b[1].item() == a[1].item() and b.tolist() == a.tolist()
    assert b.numpy().dtype == np.complex64


PROMO = ["float32", "float64", "float16", "int64", "uint8", "bool", "complex64", "complex128"]


@pytest.mark.parametrize("da", PROMO)
@pytest.mark.parametrize("db", ["complex64", "complex128"])
def test_promotion_as_torch(da, db):
    def run(m, a_0d=False, b_0d=False):
        a = m.ones(() if a_0d else (2,), dtype=getattr(m, da))
        b = m.ones(() if b_0d else (2,), dtype=getattr(m, db))
        return str((a + b).dtype), str((b + a).dtype)
    for a0, b0 in ((False, False), (True, False), (False, True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # torch's "ComplexHalf support is experimental"
            want = run(torch, a0, b0)
        # oar has no complex32: float16 with a 0-d complex gives complex64
        want = tuple(w.replace("complex32", "complex64") for w in want)
        assert run(ot, a0, b0) == want, (da, db, a0, b0)


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "bool"])
def test_python_complex_scalar_promotion(dt):
    assert str((ot.ones(2, dtype=getattr(ot, dt)) * 1j).dtype) == str(
        (torch.ones(2, dtype=getattr(torch, dt)) * 1j).dtype)


# ------------------------------------------------------------------ printing
REPRS = ["[1+2j, 3-4j]", "[1.5+0j, 2e-5j, 1000.25]", "[[1+2j, 3j], [4, 5.5-1j]]", "1+2j",
         "[1e10+1j, -3j]", "[[0.1+0.2j] * 5] * 3", "[0j] * 1200"]


@pytest.mark.parametrize("src", REPRS)
@pytest.mark.parametrize("dt", [None, "complex128"])
def test_torch_repr(src, dt):
    data = eval(src)
    a = torch.tensor(data, dtype=getattr(torch, dt) if dt else None)
    b = ot.tensor(data, dtype=getattr(ot, dt) if dt else None)
    assert repr(b) == repr(a) and str(b) == str(a)


def test_paddle_repr():
    paddle = pytest.importorskip("paddle")
    for data in ([1 + 2j, 3 - 4j], [[55 - 7j, 3 + 4j]]):
        assert str(oar.to_tensor(data)) == str(paddle.to_tensor(data))
        assert str(oar.to_tensor(data).dtype) == str(paddle.to_tensor(data).dtype)


# ------------------------------------------------------------------ views
def test_view_as_real_shares_storage_and_version():
    for m in (torch, ot):
        x = m.tensor(Z)
        r = m.view_as_real(x)
        assert r.dtype == m.float32 and tuple(r.shape) == (3, 2)
        assert r.stride() == (2, 1) and r._base is x
        v = x._version
        r[0, 1] = 10.0
        assert x._version == v + 1 and complex(x[0].item()) == 1 + 10j
    xs = [m.tensor([Z, W])[:, 1:] for m in (torch, ot)]   # non-contiguous, offset 1
    a, b = (m.view_as_real(x) for m, x in zip((torch, ot), xs))
    assert a.stride() == b.stride() and a.storage_offset() == b.storage_offset()
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_view_as_complex_shares_and_checks_as_torch():
    for m in (torch, ot):
        r = m.arange(8.0).reshape(2, 2, 2)
        c = m.view_as_complex(r)
        assert tuple(c.shape) == (2, 2) and c.dtype == m.complex64
        c.mul_(2)
        assert r[1, 1, 1].item() == 14.0 and r._version == 1
    for make in (lambda m: m.ones(3, 3), lambda m: m.ones(4, 2).t(),
                 lambda m: m.ones(6)[1:].reshape(5, 1).expand(5, 2),
                 lambda m: m.ones(2, 2, dtype=m.int64), lambda m: m.ones(3, 4)[:, 1:3],
                 lambda m: m.ones(3, 3)[:, :2], lambda m: m.tensor(1.0)):
        with pytest.raises(RuntimeError) as et:
            torch.view_as_complex(make(torch))
        with pytest.raises(RuntimeError) as eo:
            ot.view_as_complex(make(ot))
        assert str(eo.value).split(" (")[0].split(",")[0] in str(et.value), (et.value, eo.value)
    np.testing.assert_array_equal(*_both(lambda m: m.view_as_complex(m.ones(3, 2)[::2])))


def test_real_imag_views_writable():
    for m in (torch, ot):
        x = m.tensor(Z)
        v = x._version
        x.real.add_(1)
        x.imag.mul_(-1)
        assert x._version == v + 2
        np.testing.assert_allclose(x.numpy(), np.conj(np.array(Z, np.complex64)) + 1)
        assert m.real(x)._base is x and m.imag(x).dtype == m.float32
        y = m.ones(2)
        assert m.real(y) is y and y.real is y
        with pytest.raises(RuntimeError, match="imag is not implemented"):
            y.imag


def test_paddle_as_real_as_complex_real_share_memory_as_paddle():
    paddle = pytest.importorskip("paddle")
    for m in (paddle, oar):
        x = m.to_tensor([1 + 2j, 3 - 4j], dtype="complex64")
        r = m.as_real(x)
        r[0, 0] = 100.0
        assert complex(x.numpy()[0]) == 100 + 2j
        c = m.as_complex(r)
        c[0] = 7 + 7j
        assert r.numpy()[0].tolist() == [7.0, 7.0]
        re = m.real(x)
        re[1] = 55.0
        assert complex(x.numpy()[1]) == 55 - 4j
        assert str(m.imag(x).dtype).endswith("float32")
        assert x.is_complex() and m.is_complex(x)
        assert str(m.abs(x).dtype).endswith("float32")
        assert str(m.angle(x).dtype).endswith("float32")
        assert str(m.complex(m.to_tensor([1.0]), m.to_tensor([2.0])).dtype).endswith("complex64")


def test_conj_family():
    x = ot.tensor(Z)
    assert not x.conj().is_conj() and not ot.is_conj(x)
    assert x.resolve_conj() is x
    y = ot.ones(2)
    assert ot.conj(y) is y and y.conj() is y and ot.conj_physical(y) is y
    for name in ("conj", "conj_physical"):
        np.testing.assert_array_equal(*_both(lambda m: getattr(m, name)(m.tensor(Z))))
    np.testing.assert_array_equal(oar.conj(oar.to_tensor(Z)).numpy(), np.conj(np.array(Z, np.complex64)))
    for m in (torch, ot):
        z = m.tensor(Z)
        v = z._version
        assert z.conj_physical_() is z and z._version == v + 1
        np.testing.assert_array_equal(z.numpy(), np.conj(np.array(Z, np.complex64)))


def test_values_angle_abs_complex_polar():
    cases = [lambda m: m.angle(m.tensor(Z)), lambda m: m.tensor(Z).abs(),
             lambda m: m.angle(m.tensor([-1.0, 0.0, 2.0])),
             lambda m: m.complex(m.tensor([1.0, 2.0]), m.tensor([[0.5], [-1.0]])),
             lambda m: m.polar(m.tensor([2.0, 1.0], dtype=m.float64), m.tensor([0.5, -3.0], dtype=m.float64)),
             lambda m: m.tensor(Z) * m.tensor(W) / (m.tensor(W) + 1.5),
             lambda m: m.tensor(Z).exp(), lambda m: m.tensor(Z).reciprocal(),
             lambda m: m.tensor([Z, W]) @ m.tensor([[1j], [2], [0.5 - 1j]]),
             lambda m: m.tensor(Z).sum(), lambda m: m.tensor(Z).mean(),
             lambda m: m.tensor(Z) + m.ones(3, dtype=m.float64)]
    for case in cases:
        a, b = _both(case)
        assert a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


def test_complex_polar_errors_as_torch():
    for bad in (lambda m: m.complex(m.ones(1), m.ones(1, dtype=m.float64)),
                lambda m: m.complex(m.ones(1, dtype=m.int64), m.ones(1, dtype=m.int64)),
                lambda m: m.polar(m.ones(1, dtype=m.int64), m.ones(1, dtype=m.int64)),
                lambda m: m.view_as_real(m.ones(2))):
        with pytest.raises(RuntimeError):
            bad(torch)
        with pytest.raises(RuntimeError):
            bad(ot)


# ------------------------------------------------------------------ autograd (torch's convention)
def _grads(m, fn, *vals, dtype=None):
    ts = [m.tensor(v, requires_grad=True, dtype=getattr(m, dtype) if dtype else None)
          for v in vals]
    fn(m, *ts).backward()
    return [t.grad.resolve_conj().numpy() for t in ts]


GRAD_CASES = {
    "mul": (lambda m, z, w: (z * w).abs().sum(), Z, W),
    "div": (lambda m, z, w: (z / w).abs().sum(), Z, W),
    "exp": (lambda m, z: (z.exp() * 0.3).abs().sum(), Z),
    "reciprocal": (lambda m, z: z.reciprocal().abs().square().sum(), Z),
    "view_as_real": (lambda m, z: m.view_as_real(z * (1 + 1j)).pow(3).sum(), Z),
    "view_as_complex": (lambda m, r: (m.view_as_complex(r) * (2 - 1j)).abs().sum(),
                        [[1.0, 2.0], [3.0, -4.0]]),
    "real_imag": (lambda m, z: (z.real * 3 + z.imag.square()).sum(), Z),
    "matmul": (lambda m, a, b: (a @ b).abs().sum(), [[1 + 1j, 2 - 1j], [0.5j, 3]],
               [[2 - 1j, 1j], [1 + 1j, -1 + 0.5j]]),
    "matvec": (lambda m, a, v: (a @ v).abs().sum(), [[1 + 1j, 2 - 1j], [0.5j, 3]], [1 - 1j, 2 + 2j]),
    "matmul_noncontig": (lambda m, a, b: (a.mT @ b[:, ::2]).abs().sum(),
                         [[1 + 1j, 2 - 1j], [0.5j, 3]], [[2 - 1j, 1j, 3], [1 + 1j, -1 + 0.5j, 1j]]),
    "sum": (lambda m, z: (z.sum() * (1 - 1j)).abs(), Z),
    "mean": (lambda m, z: (z.mean() * (1 - 1j)).abs(), Z),
    "conj": (lambda m, z: (z.conj() * (2 + 1j)).imag.sum(), Z),
    "angle": (lambda m, z: m.angle(z).sum(), Z),
    "complex": (lambda m, re, im: (m.complex(re, im) * m.complex(re, im)).abs().sum(),
                [1.0, 2.0], [0.5, -1.0]),
    "polar": (lambda m, ab, an: (m.polar(ab, an) * (1 + 2j)).real.sum(), [1.0, 2.0], [0.5, -1.0]),
    "real_times_complex": (lambda m, x: (x * (1 + 2j)).abs().sum(), [1.0, 2.0]),
    "cast_real_to_complex": (lambda m, x: (x.to(m.complex64) * (1 + 2j)).abs().sum(), [1.0, 2.0]),
    "add_sub_neg": (lambda m, z: (z - 2 * z + (-z) + 1j).abs().sum(), Z),
    "mul_inplace": (lambda m, z: (z * 1).mul_(m.tensor([2 - 1j, 1j, 3])).abs().sum(), Z),
    "broadcast": (lambda m, z, w: (z[:, None] * w).abs().sum(), Z, W),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_torch(name):
    fn, *vals = GRAD_CASES[name]
    for a, b in zip(_grads(torch, fn, *vals), _grads(ot, fn, *vals)):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_gradients_complex128_match_torch():
    fn, *vals = GRAD_CASES["div"]
    for a, b in zip(_grads(torch, fn, *vals, dtype="complex128"),
                    _grads(ot, fn, *vals, dtype="complex128")):
        assert b.dtype == np.complex128
        np.testing.assert_allclose(b, a, rtol=1e-12)


# Note [Complex autograd]: every op whose complex backward is unchecked refuses
@pytest.mark.parametrize("call", [lambda z: ot.xlogy(z, z), lambda z: z.logsumexp(0),
                                  lambda z: z.nan_to_num()])
def test_unchecked_ops_refuse_complex_grad(call):
    z = ot.tensor(Z, requires_grad=True)
    with pytest.raises(DtypeNotImplementedError, match="complex"):
        call(z)
    with ot.no_grad():
        call(z)    # without a gradient the value is computed
    call(ot.tensor(Z))


def test_refusal_registry_flag_class():
    """Every declared op has the flag; only the listed ones (and views) have it set."""
    from oar.ops.registry import OPS
    checked = {n for n, op in OPS.items() if op.complex_grad}
    assert {"mul", "div", "matmul", "sum", "mean", "exp", "abs", "conj", "complex"} <= checked
    assert "xlogy" not in checked and "logsumexp" not in checked


def test_inplace_on_complex_under_autograd_and_refusals():
    # a real tensor cannot take a complex result in place (torch's error), unchanged after
    for m in (torch, ot):
        y = m.ones(2)
        v = y._version
        with pytest.raises(RuntimeError, match="can't be cast"):
            y.add_(m.tensor([1j, 2j]))
        with pytest.raises(RuntimeError):
            y.mul_(1j)
        assert y._version == v and y.tolist() == [1.0, 1.0]
    # a cross-dtype view of a tensor with history cannot be updated in place (oar's refusal)
    z = ot.tensor(Z, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="across dtypes"):
        z.real.mul_(2)
    # in-place abs of a complex tensor: torch refuses
    with pytest.raises(RuntimeError):
        torch.tensor(Z).abs_()
    z = ot.tensor(Z)
    with pytest.raises(RuntimeError):
        z.abs_()
    assert z.tolist() == ot.tensor(Z).tolist()


def test_complex_to_real_cast_warns_as_torch():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = ot.tensor(Z).to(ot.float32)
    assert r.tolist() == torch.tensor(Z).real.tolist()
    assert any("discards the imaginary part" in str(x.message) for x in w)


# ordering, rounding and clamping have no complex kernels in torch: refused, nothing written
@pytest.mark.parametrize("call", [lambda m, z: z < z, lambda m, z: m.maximum(z, z),
                                  lambda m, z: m.minimum(z, z), lambda m, z: z.floor(),
                                  lambda m, z: z.clamp(0, 1), lambda m, z: z.sign(),
                                  lambda m, z: m.relu(z), lambda m, z: z.round(),
                                  lambda m, z: z.remainder(2), lambda m, z: m.ones(3) < 1j,
                                  lambda m, z: z.clamp_(0, 1)])
def test_no_complex_kernel_refused_as_torch(call):
    with pytest.raises((NotImplementedError, RuntimeError)):
        call(torch, torch.tensor(Z))
    z = ot.tensor(Z)
    with pytest.raises(DtypeNotImplementedError):
        call(ot, z)
    assert z._version == 0 and z.tolist() == ot.tensor(Z).tolist()
    # the real dtypes are untouched by the refusal
    call(ot, ot.tensor([1.5, -2.0, 0.25])) if call.__code__.co_consts[-1:] != (1j,) else None
