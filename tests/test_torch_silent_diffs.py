"""Silent differences of the PyTorch door: results that differed from torch 2.13 without an
error (a view where torch copies, a Paddle-door class, a missing gradient, a wrapped scalar, a
dtype, shape, stride or random draw). Every expectation is torch 2.13's own result."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import oar  # noqa: E402
import oar.torch as ot  # noqa: E402

_CMP = ("lt", "le", "gt", "ge", "eq", "ne")


def _same(o, t):
    """oar tensor o equals torch tensor t: values, dtype, shape and strides."""
    assert str(o.dtype) == str(t.dtype)
    assert tuple(o.shape) == tuple(t.shape)
    assert tuple(o.stride()) == tuple(t.stride())
    np.testing.assert_array_equal(o.numpy(), t.numpy())


# --------------------------------------------------------------------------- tile / repeat copy
@pytest.mark.parametrize("reps", [(1,), (1, 1), (2,)])
def test_tile_and_repeat_copy(reps):
    for make in (lambda m: m.tensor([1.0, 2.0]), ):
        x, tx = make(ot), make(torch)
        for name in ("tile", "repeat"):
            y, ty = getattr(x, name)(reps), getattr(tx, name)(reps)
            y[0] = 5.0
            ty[0] = 5.0
            np.testing.assert_array_equal(x.numpy(), tx.numpy())
    p = oar.to_tensor([1.0, 2.0])
    q = oar.tile(p, [1])
    q[0] = 5.0
    assert p.numpy().tolist() == [1.0, 2.0]   # Paddle copies too


# --------------------------------------------------------------------------- Note [Wrapped numbers]
_SCALAR_FIRST = [
    lambda m, t: m.pow(2, t), lambda m, t: m.remainder(5, t), lambda m, t: m.add(2, t),
    lambda m, t: m.sub(2, t), lambda m, t: m.mul(2, t), lambda m, t: m.div(2, t),
    lambda m, t: m.true_divide(2, t), lambda m, t: m.floor_divide(7, t),
    lambda m, t: m.where(t > 1, 1.0, 0), lambda m, t: m.where(t > 1, 1.0, t),
    lambda m, t: m.where(t > 1, t, 0), lambda m, t: 2 ** t, lambda m, t: 2 - t,
]


@pytest.mark.parametrize("i", range(len(_SCALAR_FIRST)))
def test_scalar_first_operand_keeps_the_door(i):
    f = _SCALAR_FIRST[i]
    r, tr = f(ot, ot.tensor([1.0, 2.0, 3.0])), f(torch, torch.tensor([1.0, 2.0, 3.0]))
    assert type(r) is ot.Tensor
    np.testing.assert_allclose(r.numpy(), tr.numpy())
    assert str(r.dtype) == str(tr.dtype)
    # methods mean PyTorch's: split(1) gives pieces of size 1
    assert len(r.split(1)) == len(tr.split(1)) == 3


def test_scalar_first_integer_and_bool_operands():
    for f in (lambda m, t: m.pow(2, t), lambda m, t: m.bitwise_and(6, t),
              lambda m, t: m.where(t > 1, 1, 0), lambda m, t: m.add(2.5, t)):
        for vals, dt in (([1, 2, 3], "int64"), ([1, 2, 3], "uint8"), ([True, False, True], "bool")):
            try:
                tr = f(torch, torch.tensor(vals, dtype=getattr(torch, dt)))
            except RuntimeError:
                continue
            r = f(ot, ot.tensor(vals, dtype=getattr(ot, dt)))
            assert type(r) is ot.Tensor
            assert str(r.dtype) == str(tr.dtype)
            np.testing.assert_array_equal(r.numpy(), tr.numpy())


def test_paddle_door_scalar_first_stays_paddle():
    r = oar.pow(2, oar.to_tensor([1.0, 2.0]))
    assert type(r) is oar.Tensor


# --------------------------------------------------------------------------- clamp tensor bounds
@pytest.mark.parametrize("which", ["min", "max", "both", "both_crossed"])
def test_clamp_tensor_bounds_get_gradients(which):
    xs = [1.0, 2.0, 3.0, -1.0]
    los = [1.5, 0.0, 4.0, -2.0] if which != "both_crossed" else [2.5, 2.5, 2.5, 2.5]
    his = [2.5, 1.0, 5.0, 0.0] if which != "both_crossed" else [1.0, 1.0, 1.0, 1.0]
    grads = []
    for m in (torch, ot):
        x = m.tensor(xs, dtype=m.float64, requires_grad=True)
        lo = m.tensor(los, dtype=m.float64, requires_grad=True)
        hi = m.tensor(his, dtype=m.float64, requires_grad=True)
        kw = {"min": lo} if which == "min" else {"max": hi} if which == "max" else \
            {"min": lo, "max": hi}
        y = m.clamp(x, **kw)
        (y * m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64)).sum().backward()
        grads.append((y.detach().numpy(), x.grad.numpy(),
                      None if lo.grad is None else lo.grad.numpy(),
                      None if hi.grad is None else hi.grad.numpy()))
    for a, b in zip(*grads):
        if a is None or b is None:
            assert a is None and b is None
        else:
            np.testing.assert_array_equal(a, b)


def test_clamp_broadcast_bound_gradient_and_method():
    out = []
    for m in (torch, ot):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        lo = m.tensor(2.5, requires_grad=True)
        x.clamp(min=lo).sum().backward()
        out.append((x.grad.numpy(), lo.grad.numpy()))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_clamp_tensor_bounds_promote():
    for m_vals, lo_vals, lo_dt in (([1, 200, 253], [-3, 5, 6], "int8"),
                                   ([1, 2, 3], [1.5, 0.0, 0.0], "float32"),
                                   ([1, 200, 253], -3, "int8")):
        t = torch.clamp(torch.tensor(m_vals, dtype=torch.uint8),
                        min=torch.tensor(lo_vals, dtype=getattr(torch, lo_dt)))
        o = ot.clamp(ot.tensor(m_vals, dtype=ot.uint8),
                     min=ot.tensor(lo_vals, dtype=getattr(ot, lo_dt)))
        _same(o, t)


def test_uint8_clamp_inplace_int8_tensor_bound():
    t = torch.tensor([1, 200], dtype=torch.uint8)
    o = ot.tensor([1, 200], dtype=ot.uint8)
    assert o.clamp_(min=ot.tensor([-3, 5], dtype=ot.int8)) is o
    t.clamp_(min=torch.tensor([-3, 5], dtype=torch.int8))
    _same(o, t)


# --------------------------------------------------------------------------- Note [Comparisons in the common dtype]
@pytest.mark.parametrize("dt", ["uint8", "int8", "int16", "int32", "int64", "bool", "float16",
                                "float32"])
@pytest.mark.parametrize("op", _CMP)
def test_comparison_with_int_scalars(dt, op):
    vals = {"uint8": [0, 1, 3, 200, 253, 255], "bool": [0, 1]}.get(dt, [-3, 0, 1, 3, 100])
    tt, oo = torch.tensor(vals, dtype=getattr(torch, dt)), ot.tensor(vals, dtype=getattr(ot, dt))
    for s in (-3, -1, 0, 3, 200, 253, 300, -129, 2.5, -0.5, True):
        try:
            want = getattr(torch, op)(tt, s)
        except RuntimeError:
            continue
        _same(getattr(ot, op)(oo, s), want)
        _same(getattr(oo, op)(s), getattr(tt, op)(s))


def test_comparison_operators_reflected_and_inplace():
    u, tu = ot.tensor([1, 200, 253], dtype=ot.uint8), torch.tensor([1, 200, 253], dtype=torch.uint8)
    for f in (lambda a: a < -3, lambda a: a == -3, lambda a: -3 < a, lambda a: -3 == a,
              lambda a: a >= -3, lambda a: a != 253):
        _same(f(u), f(tu))
    o, t = u.clone(), tu.clone()
    o.lt_(-3)
    t.lt_(-3)
    _same(o, t)


def test_comparison_with_0d_tensor_of_other_dtype():
    cases = [(([1, 200, 253], "uint8"), (-3, "int64")),
             (([0.1, 0.2], "float16"), (0.1, "float64")),
             (([1, 2], "int8"), (1000, "int64"))]
    for (xv, xd), (yv, yd) in cases:
        for op in _CMP:
            t = getattr(torch, op)(torch.tensor(xv, dtype=getattr(torch, xd)),
                                   torch.tensor(yv, dtype=getattr(torch, yd)))
            o = getattr(ot, op)(ot.tensor(xv, dtype=getattr(ot, xd)),
                                ot.tensor(yv, dtype=getattr(ot, yd)))
            _same(o, t)


# --------------------------------------------------------------------------- dtypes, shapes, strides
@pytest.mark.parametrize("name", ["any", "all"])
def test_any_all_of_uint8_is_uint8(name):
    for vals in ([1, 0], [3, 7], [0, 0]):
        t, o = torch.tensor(vals, dtype=torch.uint8), ot.tensor(vals, dtype=ot.uint8)
        _same(getattr(o, name)(), getattr(t, name)())
        _same(getattr(ot, name)(o, 0), getattr(torch, name)(t, 0))
        _same(getattr(ot, name)(ot.tensor(vals, dtype=ot.int8)),
              getattr(torch, name)(torch.tensor(vals, dtype=torch.int8)))


def test_logsumexp_of_integers_is_default_float():
    for vals, dt in (([1, 2, 3], "int64"), ([True, False], "bool"), ([1, 2], "uint8")):
        t = torch.logsumexp(torch.tensor(vals, dtype=getattr(torch, dt)), 0)
        o = ot.logsumexp(ot.tensor(vals, dtype=getattr(ot, dt)), 0)
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-6)


def test_cumsum_of_0d_is_0d_with_gradient():
    for vals, dt in ((3.0, "float32"), (3, "int64"), (True, "bool")):
        _same(ot.cumsum(ot.tensor(vals, dtype=getattr(ot, dt)), 0),
              torch.cumsum(torch.tensor(vals, dtype=getattr(torch, dt)), 0))
    grads = []
    for m in (torch, ot):
        x = m.tensor(3.0, requires_grad=True)
        y = m.cumsum(x, 0)
        y.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_random_0d_shapes_and_draws():
    for make in (lambda m: m.randn(()), lambda m: m.rand(()), lambda m: m.randn([]),
                 lambda m: m.randint(0, 5, ()), lambda m: m.normal(m.tensor(0.0), 1.0),
                 lambda m: m.bernoulli(m.tensor(0.5)), lambda m: m.bernoulli(m.tensor([0.3, 0.7]))):
        torch.manual_seed(7)
        ot.manual_seed(7)
        _same(make(ot), make(torch))
    assert tuple(oar.randn([]).shape) == ()   # Paddle: shape [] too


_LAYOUTS = [lambda m: m.zeros(4, 3).t(), lambda m: m.zeros(2, 3, 4).permute(2, 0, 1),
            lambda m: m.zeros(4, 6)[:, ::2], lambda m: m.zeros(6, 4).t()[:, ::2],
            lambda m: m.zeros(3, 1).expand(3, 4), lambda m: m.zeros(1, 4).t(),
            lambda m: m.zeros(2, 3, 4).transpose(0, 2)[::2]]


@pytest.mark.parametrize("i", range(len(_LAYOUTS)))
def test_like_functions_preserve_layout(i):
    mk = _LAYOUTS[i]
    for f in (lambda m, x: m.zeros_like(x), lambda m, x: m.ones_like(x),
              lambda m, x: m.full_like(x, 2), lambda m, x: m.empty_like(x).zero_(),
              lambda m, x: m.rand_like(x), lambda m, x: m.randn_like(x),
              lambda m, x: m.randint_like(x, 9), lambda m, x: m.zeros_like(x, dtype=m.int32)):
        torch.manual_seed(3)
        t = f(torch, mk(torch))
        ot.manual_seed(3)
        o = f(ot, mk(ot))
        _same(o, t)


def test_paddle_like_stays_c_order():
    x = oar.zeros([4, 3]).t()
    assert oar.zeros_like(x).strides == [4, 1]


# --------------------------------------------------------------------------- identity, containers, streams
def test_flatten_returns_self_when_nothing_merges():
    for make, args in ((lambda m: m.tensor([1.0, 2.0], requires_grad=True), ()),
                       (lambda m: m.zeros(2, 3), (1, 1)), (lambda m: m.zeros(2, 3), (0, 0)),
                       (lambda m: m.zeros(2, 3), ()), (lambda m: m.tensor(1.0), ())):
        x, tx = make(ot), make(torch)
        assert (x.flatten(*args) is x) == (tx.flatten(*args) is tx)
        assert (ot.flatten(x, *args) is x) == (torch.flatten(tx, *args) is tx)
        assert tuple(x.flatten(*args).shape) == tuple(tx.flatten(*args).shape)
    p = oar.to_tensor([1.0, 2.0])
    assert p.flatten() is not p   # Paddle: a new tensor object


def test_autograd_grad_returns_a_tuple_of_the_door():
    for kw in ({}, {"create_graph": True}):
        a, ta = ot.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True)
        g, tg = ot.autograd.grad((a * a).sum(), a, **kw), torch.autograd.grad((ta * ta).sum(), ta, **kw)
        assert type(g) is type(tg) is tuple
        assert type(g[0]) is ot.Tensor
        np.testing.assert_array_equal(g[0].detach().numpy(), tg[0].detach().numpy())
    p = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    assert isinstance(oar.grad((p * p).sum(), p), list)   # Paddle returns a list


@pytest.mark.parametrize("shape,replacement,n", [((5,), False, 3), ((5,), False, 5),
                                                 ((3, 7), False, 4), ((3, 7), True, 1),
                                                 ((6,), False, 1)])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_multinomial_draws_as_torch(shape, replacement, n, dt):
    for seed in (0, 3, 11):
        res = []
        for m in (torch, ot):
            m.manual_seed(seed)
            p = m.rand(*shape, dtype=getattr(m, dt)) + 0.01
            r = m.multinomial(p, n, replacement=replacement)
            res.append((r.tolist(), m.rand(3).tolist()))   # the stream after matches too
        assert res[0] == res[1]


@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
def test_exponential_draws_as_torch(dt):
    out = []
    for m in (torch, ot):
        m.manual_seed(5)
        a = m.empty(3, 4, dtype=getattr(m, dt)).exponential_(2.5)
        b = m.empty(4, 3, dtype=getattr(m, dt)).t().exponential_()
        out.append((a.numpy().copy(), b.numpy().copy(), m.rand(2).numpy()))
    for x, y in zip(*out):
        np.testing.assert_array_equal(x, y)


# --------------------------------------------------------------------------- integer ranges
@pytest.mark.parametrize("args", [(0.0, -8.000001, -4.0), (1.0, 5.000001, 2.0), (-0.9, 2.1, 2.0),
                                  (0, 10, 3), (10, 0, -3), (0.5, 7.9, 1.5)])
@pytest.mark.parametrize("dt", ["int64", "int32", "int16"])
def test_integer_arange_length_as_torch(args, dt):
    _same(ot.arange(*args, dtype=getattr(ot, dt)), torch.arange(*args, dtype=getattr(torch, dt)))


@pytest.mark.parametrize("args", [(-2.0, -3, 50), (-2.0, 1, 50), (0, 10, 7), (3, -5, 33),
                                  (-2.5, 3.5, 20), (2, 9, 2)])
@pytest.mark.parametrize("dt", ["int64", "int32", "int16"])
def test_integer_linspace_as_torch(args, dt):
    _same(ot.linspace(*args, dtype=getattr(ot, dt)), torch.linspace(*args, dtype=getattr(torch, dt)))


@pytest.mark.parametrize("args", [(0, 1.2, 2), (0, 1.2, 2, 5.0), (0, 1.2, 4), (-1.5, 2.7, 7, 3.0),
                                  (2, -3, 6, 2.0), (0.3, 0.3, 1), (1, 2, 0)])
@pytest.mark.parametrize("dt", ["int64", "int32", "float32", "float64"])
def test_logspace_as_torch(args, dt):
    """ATen's logspace: ends cast to the dtype first (1.2 -> 1 for ints), the exponent in
    double from either end, then cast."""
    o = ot.logspace(*args, dtype=getattr(ot, dt))
    t = torch.logspace(*args, dtype=getattr(torch, dt))
    assert str(o.dtype) == str(t.dtype) and tuple(o.shape) == tuple(t.shape)
    if dt.startswith("int"):
        np.testing.assert_array_equal(o.numpy(), t.numpy())
    else:   # floats: to the last ulp of the platform's pow
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=4e-16 if dt == "float64" else 1e-7)


@pytest.mark.parametrize("n", [3, 17, 1000, 100003])
@pytest.mark.parametrize("alpha", [-0.1, 0.37, 2.0, -3])
@pytest.mark.parametrize("op", ["add", "sub", "add_", "sub_"])
def test_alpha_is_one_fused_rounding_as_torch(op, alpha, n):
    """Note [Fused multiply-add]: float32 x + alpha * y (SGD's p.add_(g, alpha=-lr)) is
    rounded once, as PyTorch's CPU kernel: bit for bit."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    t = getattr(torch.from_numpy(a.copy()), op)(torch.from_numpy(b), alpha=alpha).numpy()
    o = getattr(ot.tensor(a), op)(ot.tensor(b), alpha=alpha).numpy()
    np.testing.assert_array_equal(o, t)


def test_alpha_with_a_scalar_and_mixed_dtypes_as_torch():
    for make in (lambda m: m.add(m.arange(5.), 2.5, alpha=0.1),
                 lambda m: m.sub(m.arange(5, dtype=m.int64) * 7919, m.ones(5), alpha=0.3),
                 lambda m: m.add(m.ones(3, dtype=m.float64), m.arange(3.), alpha=0.1)):
        o, t = make(ot), make(torch)
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("args", [(-3, 3, 0.7), (0.0, -8.000001, -4.0), (0.5, 7.9, 1.5),
                                  (1, 5.000001, 2.0), (0, 3, 0.5)])
@pytest.mark.parametrize("dt", ["int64", "int32", "int16", "uint8"])
def test_integer_arange_with_fractional_steps_as_torch(args, dt):
    """int64 truncates the bounds and step first (a step of 0.5 is refused); the narrower
    integer dtypes take the length in double and the values from the truncated step."""
    def run(m):
        try:
            return m.arange(*args, dtype=getattr(m, dt)).tolist()
        except ValueError as e:   # torch raises a ValueError here (TORCH_CHECK_VALUE)
            return ("raised", "step must be nonzero" in str(e))
    assert run(ot) == run(torch)


@pytest.mark.parametrize("cast", ["half", "float"])
def test_a_gradient_of_another_dtype_is_cast_to_the_output_dtype_as_torch(cast):
    """torch's validate_outputs: a float64 gradient for a float16 output is rounded to
    float16 before the backward runs."""
    c = np.random.default_rng(0).standard_normal(5)
    res = []
    for m in (torch, ot):
        x = m.tensor(np.linspace(0, 1, 5), requires_grad=True)
        y = getattr(x, cast)()
        g, = m.autograd.grad([y], [x], [m.tensor(c)])
        res.append((str(g.dtype), g.numpy().tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("name", ["short", "char", "byte", "half", "int", "long", "double"])
def test_cast_methods_as_torch(name):
    """x.short(), x.char(), x.byte() and the other cast methods."""
    o = getattr(ot.tensor([1.7, -2.2, 300.0]), name)()
    t = getattr(torch.tensor([1.7, -2.2, 300.0]), name)()
    assert str(o.dtype) == str(t.dtype)
    np.testing.assert_array_equal(o.numpy(), t.numpy())


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_random_methods_draw_the_doors_stream_as_torch(dt):
    """x.multinomial(...) and x.bernoulli(...) draw what torch draws after manual_seed, and
    leave the stream where torch leaves it (they used oar's own source before)."""
    res = []
    for m in (torch, ot):
        m.manual_seed(42)
        t = m.tensor([0.2, 0.3, 0.5], dtype=getattr(m, dt))
        res.append((t.multinomial(3).tolist(), t.multinomial(5, replacement=True).tolist(),
                    t.bernoulli().tolist(), t.bernoulli(0.3).tolist(), m.rand(2).tolist()))
    assert res[0] == res[1]


def test_conj_physical_of_a_real_tensor_is_the_tensor_itself_as_torch():
    for m in (torch, ot):
        x = m.ones(3, requires_grad=True)
        y = m.conj_physical(x)
        assert y is x and y.grad_fn is None
        z = m.ones(3, 2).t()
        assert z.conj_physical() is z


@pytest.mark.parametrize("make", [
    lambda m: m.add(m.tensor(1.5), 2.5, alpha=0.1),
    lambda m: m.sub(m.tensor([1.5]), 2.5, alpha=0.1),
    lambda m: m.add(m.ones(2, 3), m.ones(3), alpha=0.3),
    lambda m: m.add(m.ones(3), m.ones(2, 3), alpha=0.3),
    lambda m: m.tensor(2.).add_(3., alpha=0.7),
])
def test_alpha_with_0d_and_broadcast_operands_as_torch(make):
    o, t = make(ot), make(torch)
    assert str(o.dtype) == str(t.dtype) and tuple(o.shape) == tuple(t.shape)
    np.testing.assert_array_equal(o.numpy(), t.numpy())
