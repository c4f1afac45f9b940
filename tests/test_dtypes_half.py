"""bfloat16 and float16 in both doors (Note [bfloat16], Note [bfloat16 opmath]) and
Tensor.view(dtype) (Note [View as another dtype]), against torch 2.13 and Paddle 3.3.1."""
import numpy as np
import pytest

import oar
import oar.torch as otorch

torch = pytest.importorskip("torch")

HALF = ("bfloat16", "float16")


def _data(shape=(4, 6), seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 3


def _pair(name, arr):
    """The same bfloat16/float16 tensor in torch and in oar's torch door."""
    t = torch.from_numpy(arr).to(getattr(torch, name))
    return t, otorch.tensor(arr).to(getattr(otorch, name))


def _bits(t):
    """The exact values, as float32 (every bfloat16 and float16 value is one)."""
    return t.float().numpy() if isinstance(t, torch.Tensor) else t.float().numpy()


# ------------------------------------------------------------------ dtype objects, creation
def test_dtype_objects_and_names():
    assert repr(otorch.bfloat16) == "torch.bfloat16" and repr(oar.bfloat16) == "paddle.bfloat16"
    assert otorch.bfloat16 == oar.bfloat16 == "bfloat16"
    assert otorch.bfloat16.is_floating_point and otorch.bfloat16.itemsize == 2
    assert otorch.ones(2, dtype="bfloat16").dtype == otorch.bfloat16


@pytest.mark.parametrize("name", HALF)
def test_creation_matches_torch(name):
    td, od = getattr(torch, name), getattr(otorch, name)
    vals = [1.1, -2.2, 3.3e-3, 65504.0, 1e-8]
    for t, o in ((torch.tensor(vals, dtype=td), otorch.tensor(vals, dtype=od)),
                 (torch.zeros(2, 3, dtype=td), otorch.zeros(2, 3, dtype=od)),
                 (torch.ones(3, dtype=td), otorch.ones(3, dtype=od)),
                 (torch.tensor(vals).to(td), otorch.tensor(vals).to(od)),
                 (getattr(torch.tensor(vals), "bfloat16" if name == "bfloat16" else "half")(),
                  getattr(otorch.tensor(vals), "bfloat16" if name == "bfloat16" else "half")())):
        assert o.dtype == od and tuple(o.shape) == tuple(t.shape)
        np.testing.assert_array_equal(_bits(o), _bits(t))
        assert repr(o) == repr(t)
        assert o.tolist() == t.tolist()
        assert o[0].item() == t[0].item() if o.ndim == 1 else True
    assert otorch.randn(3, 4, dtype=od).dtype == od


def test_repr_matches_torch_for_various_values():
    for name in HALF:
        for vals in ([1.0, 2.0], [1e-5, 3.5, 1000.0], [0.1234, -7.5], [[1.5, 2.25], [1e4, -3.0]],
                     list(np.linspace(-3, 3, 1200))):
            t = torch.tensor(vals, dtype=getattr(torch, name))
            o = otorch.tensor(vals, dtype=getattr(otorch, name))
            assert repr(o) == repr(t)
        assert repr(otorch.tensor(1.5, dtype=getattr(otorch, name))) == \
            repr(torch.tensor(1.5, dtype=getattr(torch, name)))


def test_numpy_of_bfloat16_is_refused_as_in_torch():
    with pytest.raises(TypeError):
        torch.ones(2, dtype=torch.bfloat16).numpy()
    with pytest.raises(TypeError, match="BFloat16"):
        otorch.ones(2, dtype=otorch.bfloat16).numpy()
    assert otorch.ones(2, dtype=otorch.float16).numpy().dtype == np.float16


# ------------------------------------------------------------------ promotion
_DTS = ("bfloat16", "float16", "float32", "float64", "int64", "int32", "uint8", "bool")


@pytest.mark.parametrize("a", ("bfloat16", "float16"))
@pytest.mark.parametrize("b", _DTS)
def test_promotion_matches_torch(a, b):
    ta = torch.ones(2, dtype=getattr(torch, a))
    oa = otorch.ones(2, dtype=getattr(otorch, a))
    for tb, ob in ((torch.ones(2, dtype=getattr(torch, b)), otorch.ones(2, dtype=getattr(otorch, b))),
                   (torch.tensor(1, dtype=getattr(torch, b)), otorch.tensor(1, dtype=getattr(otorch, b)))):
        assert str((oa + ob).dtype) == str((ta + tb).dtype)
        assert str((ob * oa).dtype) == str((tb * ta).dtype)
    for s in (2, 1.5, True):
        assert str((oa + s).dtype) == str((ta + s).dtype)


# ------------------------------------------------------------------ arithmetic, bit for bit
_UNARY = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "abs", "neg", "reciprocal",
          "rsqrt", "expm1", "log1p", "floor", "ceil", "relu", "erf", "square")
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow")
# Measured differences (torch 2.13 CPU), each in a few elements by one unit in the last place:
# float16 is oar's older NumPy float16 path (not the float32 opmath of Note [bfloat16 opmath]);
# torch's vectorized bfloat16 rsqrt is not the correctly rounded 1/sqrt.
KNOWN = {("sigmoid", "float16"): "float16 sigmoid: NumPy's float16 loop, not torch's float32 one",
         ("rsqrt", "bfloat16"): "torch's vectorized rsqrt differs from a rounded 1/sqrt",
         ("mul", "float16"): "float16 times a Python float: oar computes it through float64",
         ("div", "float16"): "float16 over a Python float: oar computes it through float64"}


def _known(op, name):
    if (op, name) in KNOWN:
        pytest.xfail(KNOWN[(op, name)])


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", _UNARY)
def test_unary_bit_for_bit(name, op):
    _known(op, name)
    arr = np.abs(_data((5, 8))) + 0.1 if op in ("log", "sqrt", "rsqrt", "log1p") else _data((5, 8))
    t, o = _pair(name, arr)
    t, o = t[:, ::2], o[:, ::2]   # non-contiguous
    rt, ro = getattr(t, op)(), getattr(o, op)()
    assert ro.dtype == getattr(otorch, name)
    np.testing.assert_array_equal(_bits(ro), _bits(rt))


@pytest.mark.parametrize("name", HALF)
@pytest.mark.parametrize("op", _BINARY)
def test_binary_bit_for_bit(name, op):
    _known(op, name)
    a, b = _data((4, 6), 1), _data((4, 6), 2)
    if op == "pow":
        a = np.abs(a) + 0.5
        b = b / 3
    (ta, oa), (tb, ob) = _pair(name, a), _pair(name, b)
    ta, oa = ta.t(), oa.t()
    tb, ob = tb.t(), ob.t()
    np.testing.assert_array_equal(_bits(getattr(torch, op)(ta, tb)), _bits(getattr(otorch, op)(oa, ob)))
    for s in (2, 0.3):
        if op in ("maximum", "minimum", "atan2"):
            continue
        np.testing.assert_array_equal(_bits(getattr(torch, op)(ta, s)),
                                      _bits(getattr(otorch, op)(oa, s)))


@pytest.mark.parametrize("name", HALF)
def test_inplace_keeps_dtype_and_matches(name):
    (t, o), (tb, ob) = _pair(name, _data()), _pair(name, _data(seed=5))
    o2 = o.mul_(ob).add_(1.7).div_(3)
    t.mul_(tb).add_(1.7).div_(3)
    assert o2 is o and o.dtype == getattr(otorch, name)
    np.testing.assert_array_equal(_bits(o), _bits(t))


# ------------------------------------------------------------------ reductions, matmul
@pytest.mark.parametrize("name", HALF)
def test_reductions_accumulate_in_float32(name):
    t, o = _pair(name, _data((64, 33)))
    for f in (lambda m, x: x.sum(), lambda m, x: x.mean(), lambda m, x: x.sum(1),
              lambda m, x: x.mean(0), lambda m, x: m.cumsum(x, 1), lambda m, x: x.amax(1),
              lambda m, x: m.cumprod(x[:, :6] / 3, 1),
              lambda m, x: m.softmax(x, 1), lambda m, x: m.log_softmax(x, 0)):
        rt, ro = f(torch, t), f(otorch, o)
        assert str(ro.dtype) == str(rt.dtype)
        # float32 accumulation in another order: at most one rounding step apart
        np.testing.assert_allclose(_bits(ro), _bits(rt), rtol=2 ** -7 if name == "bfloat16"
                                   else 2 ** -10, atol=1e-3)


@pytest.mark.parametrize("name", HALF)
def test_matmul_linear_bmm(name):
    (ta, oa), (tb, ob) = _pair(name, _data((5, 7))), _pair(name, _data((7, 3), 3))
    tol = dict(rtol=2 ** -7 if name == "bfloat16" else 2 ** -10, atol=1e-2)
    np.testing.assert_allclose(_bits(oa @ ob), _bits(ta @ tb), **tol)
    assert (oa @ ob).dtype == getattr(otorch, name)
    np.testing.assert_allclose(_bits(otorch.nn.functional.linear(oa, ob.t())),
                               _bits(torch.nn.functional.linear(ta, tb.t())), **tol)
    (tc, oc) = _pair(name, _data((2, 5, 7)))
    (td, od) = _pair(name, _data((2, 7, 4), 4))
    np.testing.assert_allclose(_bits(otorch.bmm(oc, od)), _bits(torch.bmm(tc, td)), **tol)


def test_sum_with_float32_dtype_keeps_float32():
    t, o = _pair("bfloat16", _data())
    assert o.sum(dtype=otorch.float32).dtype == otorch.float32
    np.testing.assert_allclose(o.sum(dtype=otorch.float32).item(),
                               t.sum(dtype=torch.float32).item(), rtol=1e-6)


# ------------------------------------------------------------------ autograd, optimizers, save
@pytest.mark.parametrize("name", HALF)
def test_autograd_through_half(name):
    a, b = _data((3, 4)), _data((3, 4), 9)
    (ta, oa), (tb, ob) = _pair(name, a), _pair(name, b)
    for x in (ta, oa, tb, ob):
        x.requires_grad_(True)
    ((ta * tb).sigmoid() * ta).sum().backward()
    ((oa * ob).sigmoid() * oa).sum().backward()
    assert oa.grad.dtype == getattr(otorch, name)
    np.testing.assert_allclose(_bits(oa.grad), _bits(ta.grad), rtol=2 ** -6, atol=1e-2)
    np.testing.assert_allclose(_bits(ob.grad), _bits(tb.grad), rtol=2 ** -6, atol=1e-2)


@pytest.mark.parametrize("opt", ("SGD", "Adam"))
def test_linear_and_optimizer_in_bfloat16(opt):
    torch.manual_seed(0)
    tm = torch.nn.Linear(6, 3).bfloat16()
    om = otorch.nn.Linear(6, 3).bfloat16()
    with otorch.no_grad():
        om.weight.copy_(otorch.tensor(tm.weight.detach().float().numpy()))
        om.bias.copy_(otorch.tensor(tm.bias.detach().float().numpy()))
    to = getattr(torch.optim, opt)(tm.parameters(), lr=0.05)
    oo = getattr(otorch.optim, opt)(om.parameters(), lr=0.05)
    x = _data((8, 6))
    for _ in range(3):
        for m, o, mod in ((tm, to, torch), (om, oo, otorch)):
            o.zero_grad()
            out = m(mod.tensor(x).bfloat16())
            (out * out).mean().backward()
            o.step()
    assert om.weight.dtype == otorch.bfloat16
    np.testing.assert_allclose(_bits(om.weight.detach()), _bits(tm.weight.detach()), rtol=2 ** -6,
                               atol=2e-2)


def test_state_dict_round_trip_keeps_bfloat16(tmp_path):
    om = otorch.nn.Linear(4, 2).bfloat16()
    p = tmp_path / "m.pt"
    otorch.save(om.state_dict(), str(p))
    sd = torch.load(str(p))   # the real torch reads it, dtype kept
    assert sd["weight"].dtype == torch.bfloat16
    np.testing.assert_array_equal(sd["weight"].float().numpy(), _bits(om.weight.detach()))
    tm = torch.nn.Linear(4, 2).bfloat16()
    tm.load_state_dict(sd)
    torch.save(tm.state_dict(), str(p))
    back = otorch.load(str(p))
    assert back["weight"].dtype == otorch.bfloat16
    np.testing.assert_array_equal(_bits(back["weight"]), _bits(om.weight.detach()))


# ------------------------------------------------------------------ view(dtype)
def test_view_dtype_shares_storage_and_version():
    for m in (torch, otorch):
        x = m.tensor([1.0, 2.0, -3.0, 0.5])
        y = x.view(m.int16)
        assert tuple(y.shape) == (8,) and y.dtype == m.int16
        z = x.view(m.bfloat16)
        assert tuple(z.shape) == (8,)
        y[1] = 0
        assert x[0].item() == 0.0
        assert x._version == y._version == 1
    o = otorch.tensor([1.0, 2.0]).view(otorch.bfloat16)
    t = torch.tensor([1.0, 2.0]).view(torch.bfloat16)
    assert repr(o) == repr(t)
    assert not otorch.ones(2, requires_grad=True).view(otorch.int32).requires_grad


def test_view_dtype_errors_match_torch():
    cases = (lambda m: m.tensor(1.0).view(m.int16),
             lambda m: m.ones(3, 4).t().view(m.int16),
             lambda m: m.ones(3, 3).view(m.float64),
             lambda m: m.ones(3, 4)[:, 1:3].view(m.float64))
    for f in cases:
        with pytest.raises(RuntimeError) as et:
            f(torch)
        with pytest.raises(RuntimeError) as eo:
            f(otorch)
        assert str(et.value).split(" to view")[0] in str(eo.value)


def test_paddle_view_dtype_as_paddle():
    paddle = pytest.importorskip("paddle")
    for dt in ("bfloat16", "int16", "int32", "int64"):
        for shape in ([2], [1, 4]):
            x = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)
            r = paddle.to_tensor(x).view(dt)
            o = oar.to_tensor(x).view(dt)
            assert o.shape == r.shape and str(o.dtype) == str(r.dtype)
            assert o.numpy().tolist() == r.numpy().tolist()
            assert paddle.view(paddle.to_tensor(x), dt).shape == oar.view(oar.to_tensor(x), dt).shape
    with pytest.raises(ValueError):
        paddle.to_tensor([1.0, 2.0, 3.0]).view("int64")
    with pytest.raises(ValueError):
        oar.to_tensor([1.0, 2.0, 3.0]).view("int64")


# ------------------------------------------------------------------ the Paddle door
def test_paddle_door_bfloat16():
    paddle = pytest.importorskip("paddle")
    vals = [1.1, 2.2, 3.3]
    r = paddle.to_tensor(vals, dtype="bfloat16")
    o = oar.to_tensor(vals, dtype="bfloat16")
    assert str(o) == str(r)
    assert o.numpy().dtype == r.numpy().dtype == np.uint16
    assert o.numpy().tolist() == r.numpy().tolist() and o.tolist() == r.tolist()
    assert o[0].item() == r[0].item()
    assert str(oar.zeros([2], dtype="bfloat16")) == str(paddle.zeros([2], dtype="bfloat16"))
    assert str(oar.ones([2], dtype=oar.bfloat16)) == str(paddle.ones([2], dtype=paddle.bfloat16))
    for other in (paddle.to_tensor([1.0], dtype="float16"), paddle.to_tensor([1.0]), 1, 1.5):
        oo = other if not isinstance(other, paddle.Tensor) else oar.to_tensor(
            other.numpy(), dtype=str(other.dtype).split(".")[-1])
        assert str((o + oo).dtype) == str((r + other).dtype)
    assert str(o.astype("float16")) == str(r.astype("float16"))
    assert str(o.sum()) == str(r.sum())
    assert str(o * o) == str(r * r)
    x = oar.to_tensor(vals, dtype="bfloat16", stop_gradient=False)
    (x * x).sum().backward()
    assert x.grad.dtype == oar.bfloat16


def test_paddle_save_load_bfloat16(tmp_path):
    paddle = pytest.importorskip("paddle")
    p = str(tmp_path / "w.pdparams")
    oar.save({"w": oar.to_tensor([1.5, -2.25], dtype="bfloat16")}, p)
    r = paddle.load(p)["w"]
    assert r.dtype == paddle.bfloat16 and r.tolist() == oar.load(p)["w"].tolist()


# ------------------------------------------------------------------ autocast (Note [Autocast])
def _autocast_program(m, x, w, b, ctx):
    with ctx:
        y = m.nn.functional.linear(x, w, b)
        out = {"linear": y, "mm": m.mm(x, w.t()), "matmul": x @ w.t(),
               "bmm": m.bmm(x[None], w.t()[None]),
               "baddbmm": m.baddbmm(b[None, None], x[None], w.t()[None]),
               "conv2d": m.nn.functional.conv2d(x.reshape(1, 1, 4, 6), w[:2, :4].reshape(2, 1, 2, 2)),
               "softmax": m.softmax(y, 1), "relu": m.relu(y), "add_f32": y + b,
               "mse_loss": m.nn.functional.mse_loss(y, m.zeros_like(y)),
               "mm_f64": m.mm(x.double(), w.t().double()), "sum": y.sum()}
    return out


@pytest.mark.parametrize("spelling", ("autocast", "amp", "cpu.amp", "float16"))
def test_autocast_dtypes_values_and_gradients(spelling):
    def ctx(m):
        if spelling == "autocast":
            return m.autocast("cpu", dtype=m.bfloat16)
        if spelling == "amp":
            return m.amp.autocast("cpu")
        if spelling == "float16":
            return m.autocast(device_type="cpu", dtype=m.float16)
        with pytest.warns(FutureWarning):
            return m.cpu.amp.autocast()
    res = {}
    for m in (torch, otorch):
        x = m.tensor(_data((4, 6)))
        w = m.tensor(_data((5, 6), 1), requires_grad=True)
        b = m.tensor(_data((5,), 2), requires_grad=True)
        out = _autocast_program(m, x, w, b, ctx(m))
        (out["linear"].float() * out["softmax"].float()).sum().backward()
        res[m] = out, w.grad, b.grad
        assert not m.is_autocast_enabled("cpu")
    (to, twg, tbg), (oo, owg, obg) = res[torch], res[otorch]
    for k in to:
        assert str(oo[k].dtype) == str(to[k].dtype), k
        np.testing.assert_allclose(_bits(oo[k].detach()), _bits(to[k].detach()),
                                   rtol=2 ** -7, atol=2e-2, err_msg=k)
    assert str(owg.dtype) == str(twg.dtype) == "torch.float32"
    np.testing.assert_allclose(owg.numpy(), twg.numpy(), rtol=2e-2, atol=5e-2)
    np.testing.assert_allclose(obg.numpy(), tbg.numpy(), rtol=2e-2, atol=5e-2)


def test_autocast_state_decorator_and_disabled():
    for m in (torch, otorch):
        x = m.ones(2, 3)

        @m.autocast("cpu")
        def f(a):
            assert m.is_autocast_enabled("cpu") and str(m.get_autocast_dtype("cpu")) == \
                "torch.bfloat16"
            return a @ a.t()
        assert str(f(x).dtype) == "torch.bfloat16"
        with m.autocast("cpu"):
            with m.autocast("cpu", enabled=False):
                assert str((x @ x.t()).dtype) == "torch.float32"
            assert str((x @ x.t()).dtype) == "torch.bfloat16"
        assert not m.is_autocast_enabled() and not m.is_autocast_enabled("cpu")
        with pytest.warns(UserWarning, match="not supported"):
            with m.autocast("cpu", dtype=m.float32):
                assert str((x @ x.t()).dtype) == "torch.float32"
        with pytest.raises(ValueError):   # the state is restored after an error
            with m.autocast("cpu"):
                raise ValueError
        assert not m.is_autocast_enabled("cpu")
