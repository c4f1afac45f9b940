"""Issue 8 fixes in pointwise ops, promotion, creation, random and reductions.

Expected values come from torch 2.13 run here (skipped cleanly when absent), NumPy, or
finite differences: never from oar's own output."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import oar
from oar import storage as _storage

try:
    import torch
except ImportError:   # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch 2.13 is the oracle")

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _snapshot(*ts):
    return [(t.numpy().copy(), tuple(t.shape), t.dtype, tuple(t.stride()), t._version)
            for t in ts]


def _assert_unchanged(before, *ts):
    for (data, shape, dtype, strides, version), t in zip(before, ts):
        assert tuple(t.shape) == shape and t.dtype == dtype
        assert tuple(t.stride()) == strides and t._version == version
        np.testing.assert_array_equal(t.numpy(), data)


def _refuses(fn, exc, *operands):
    """fn() raises exc (never a NumPy-internal type) and leaves every operand unchanged."""
    before = _snapshot(*operands)
    with pytest.raises(exc) as info:
        fn()
    assert type(info.value).__module__.split(".")[0] == "oar", type(info.value)
    _assert_unchanged(before, *operands)
    return info.value


# ----------------------------------------------------------------------------- 1. creation
def test_float64_from_python_floats_keeps_every_digit():
    t = oar.to_tensor([1.1, 1e40], dtype="float64")
    assert t.numpy().tolist() == [1.1, 1e40]
    assert oar.tensor([[0.1, 0.2]], dtype="float64").numpy().tolist() == [[0.1, 0.2]]
    # the default dtype is still float32 (rounded once from the Python double)
    assert oar.to_tensor([1.1]).numpy()[0] == np.float32(1.1)


@needs_torch
def test_creation_from_python_values_matches_torch():
    for data, dt in (([1.1, 1e40], "float64"), ([1e40, -1e40], "float32"), ([1.7, -2.5], "int64"),
                     ([True, 0.5], "float64"), ([3, 2 ** 40], "float64"), ([0.1], "float16")):
        ref = torch.tensor(data, dtype=getattr(torch, dt)).numpy()
        np.testing.assert_array_equal(oar.to_tensor(data, dtype=dt).numpy(), ref)


def test_creation_refuses_non_numbers():
    for data in ([1, None], ["1"], [1, "a"]):
        with pytest.raises(TypeError):
            oar.to_tensor(data, dtype="float64")
        with pytest.raises(TypeError):
            oar.to_tensor(data)


# ----------------------------------------------------------------------------- 2. promotion
def _torch_dtype(name):
    return getattr(torch, name)


def _operand(name, zero_d, lib):
    if lib == "torch":
        return torch.zeros((), dtype=_torch_dtype(name)) if zero_d else torch.zeros(2, dtype=_torch_dtype(name))
    return oar.zeros([] if zero_d else [2], dtype=name)


@needs_torch
def test_promote_equals_torch_result_type_over_all_pairs():
    kinds = [(d, z) for d in DTYPES for z in (False, True)]
    scalars = [True, 2, 2.5]
    checked = 0
    for (a, za), (b, zb) in itertools.product(kinds, kinds):
        ref = torch.result_type(_operand(a, za, "torch"), _operand(b, zb, "torch"))
        got = oar.dtypes.result_type(_operand(a, za, "oar"), _operand(b, zb, "oar"))
        assert str(got) == str(ref).replace("torch.", ""), (a, za, b, zb)
        checked += 1
    for (a, za), s in itertools.product(kinds, scalars):
        ref = torch.result_type(_operand(a, za, "torch"), s)
        assert str(oar.dtypes.result_type(_operand(a, za, "oar"), s)) == str(ref).replace("torch.", "")
        checked += 1
    assert checked == 18 * 18 + 18 * 3


@needs_torch
def test_pointwise_result_dtypes_match_torch():
    """The ops use the promotion: add/mul/where over mixed dtypes, and 3 operands (a 0-d
    tensor promotes like a number in both doors; two 1-d tensors of different kinds are the
    PyTorch door's, Note [Paddle type promotion])."""
    import oar.torch as ot
    for a, b in itertools.product(DTYPES, DTYPES):
        if "bool" in (a, b):
            continue
        ta, tb = torch.ones(2, dtype=_torch_dtype(a)), torch.ones((), dtype=_torch_dtype(b))
        oa, ob = oar.ones([2], dtype=a), oar.ones([], dtype=b)
        assert (oa * ob).dtype.name == str((ta * tb).dtype).replace("torch.", "")
        assert (ob + oa).dtype.name == str((tb + ta).dtype).replace("torch.", "")
    r = ot.ones(2) * ot.tensor([1, 2])
    assert r.dtype.name == "float32"
    np.testing.assert_array_equal(r.numpy(), torch.ones(2) * torch.tensor([1, 2]))
    cond = ot.tensor([True, False])
    assert ot.where(cond, 1.0, ot.tensor([1, 2])).dtype.name == str(
        torch.where(torch.tensor([True, False]), 1.0, torch.tensor([1, 2])).dtype).replace("torch.", "")


@needs_torch
def test_inplace_casting_follows_torch_can_cast():
    import oar.torch as ot
    x = ot.tensor([1, 2], dtype=ot.uint8)        # mixed integer tensors: the PyTorch door
    x += ot.tensor([300, 1])
    tx = torch.tensor([1, 2], dtype=torch.uint8)
    tx += torch.tensor([300, 1])
    np.testing.assert_array_equal(x.numpy(), tx.numpy())
    f = oar.ones([2])
    f += oar.ones([2], dtype="float64") / 3
    np.testing.assert_array_equal(f.numpy(), (torch.ones(2) + torch.ones(2, dtype=torch.float64) / 3).float().numpy())
    i = oar.to_tensor([1, 2])
    _refuses(lambda: i.add_(oar.ones([2])), TypeError, i)
    _refuses(lambda: i.add_(0.5), RuntimeError, i)
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).add_(torch.ones(2))
    b = oar.to_tensor([True, False])
    _refuses(lambda: b.add_(oar.to_tensor([1, 2])), TypeError, b)
    u = oar.to_tensor([1, 2], dtype="uint8")     # the Paddle door: Paddle's TypeError
    _refuses(lambda: u.add_(oar.to_tensor([300, 1])), TypeError, u)


# ----------------------------------------------------------------------------- 3. fast path
@pytest.mark.parametrize("spelling", ["operator", "function", "method"])
def test_fast_path_broadcasting_operand_with_pooled_buffer(spelling):
    """Both conditions of Note [Fast path]/[Caching allocator]: a pooled buffer of x's
    shape exists, and the other operand broadcasts to a bigger result."""
    n = 1 << 18
    x, y = oar.ones([n]), oar.ones([2, n]) * 3.0
    t = oar.ones([n]) * 2.0       # large enough to be pooled when freed
    del t
    r = {"operator": lambda: x * y, "function": lambda: oar.multiply(x, y),
         "method": lambda: x.multiply(y)}[spelling]()
    assert tuple(r.shape) == (2, n)
    np.testing.assert_array_equal(r.numpy(), np.full((2, n), 3.0, np.float32))
    # and the other way round: x small, y big, result bigger than x
    t = oar.ones([n]) * 2.0
    del t
    r = x + y
    assert tuple(r.shape) == (2, n)


def test_fast_path_comparison_with_pooled_buffer_stays_bool():
    n = 1 << 18
    x, y = oar.ones([n]), oar.ones([n])
    t = oar.ones([n]) * 2.0
    del t
    r = oar.equal(x, y)
    assert r.dtype.name == "bool" and bool(r.numpy().all())
    t = oar.ones([n]) * 2.0
    del t
    assert x.greater_than(y).dtype.name == "bool"


def test_fast_path_same_shape_still_pools():
    n = 1 << 18
    x, y = oar.ones([n]), oar.ones([n])
    _storage.empty_cache()
    t = oar.ones([n]) * 2.0
    addr = t._data.__array_interface__["data"][0]
    del t
    r = x * y
    # the pooled buffer was reused: the fast path still pools same-shape results
    assert r._data.__array_interface__["data"][0] == addr
    np.testing.assert_array_equal(r.numpy(), np.ones(n, np.float32))


def test_an_f_ordered_buffer_is_never_pooled():
    """Note [Caching allocator]: the clone of a transposed tensor owns an F-ordered buffer;
    pooled, it would give the next result of that shape F strides (torch: row-major)."""
    import oar.torch as ot   # the torch door: its clone keeps the F order (Paddle's writes C)
    _storage.empty_cache()
    for _ in range(2):
        t = ot.ones(512, 1024).t().clone()
        assert not t._data.flags.c_contiguous
        del t
    r = ot.ones(1024, 512).exp()
    assert r.is_contiguous() and r._data.strides == (2048, 4)


# ----------------------------------------------------------------------------- 4. gradients
def _grads_oar(f, *vals):
    xs = [oar.to_tensor(v, dtype="float64", stop_gradient=False) for v in vals]
    f(*xs).sum().backward()
    return [x.grad.numpy() for x in xs]


def _grads_torch(f, *vals):
    xs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in vals]
    f(*xs).sum().backward()
    return [x.grad.numpy() for x in xs]


@needs_torch
@pytest.mark.parametrize("case", [
    ("x ** 0.0", lambda x: x ** 0.0, [[0.0, 1.0, -2.0]]),
    ("x ** 2.0", lambda x: x ** 2.0, [[0.0, 1.0, -2.0]]),
    ("x ** 0.5", lambda x: x ** 0.5, [[0.0, 4.0]]),
    ("pow tensors", lambda x, y: x ** y, [[0.0, 0.0, 2.0, 0.0, -1.0, 3.0], [0.0, 1.0, 0.0, -1.0, 0.0, 2.0]]),
    ("0 ** y", lambda y: 0.0 ** y, [[0.0, 1.0, -1.0, 2.0]]),
    ("2 ** y", lambda y: 2.0 ** y, [[0.0, 1.0, -1.0]]),
    ("maximum", lambda x, y: x.maximum(y) if hasattr(x, "maximum") else None,
     [[1.0, 2.0, 3.0, np.nan], [1.0, 1.0, 4.0, 1.0]]),
    ("minimum", lambda x, y: x.minimum(y), [[1.0, 2.0, 3.0, 2.0], [1.0, 1.0, 4.0, np.nan]]),
    ("fmax", lambda x, y: x.fmax(y), [[1.0, np.nan, 3.0, 2.0], [1.0, 1.0, np.nan, 5.0]]),
    ("fmin", lambda x, y: x.fmin(y), [[1.0, np.nan, 3.0, 2.0], [1.0, 1.0, np.nan, 5.0]]),
])
def test_gradients_at_special_values_match_torch(case):
    _, f, vals = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = _grads_oar(f, *vals)
    ref = _grads_torch(f, *vals)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-12, equal_nan=True)


@needs_torch
def test_fmax_forward_ignores_nan_like_torch():
    a, b = [1.0, np.nan, 3.0], [1.0, 1.0, np.nan]
    np.testing.assert_array_equal(oar.fmax(oar.to_tensor(a), oar.to_tensor(b)).numpy(),
                                  torch.fmax(torch.tensor(a), torch.tensor(b)).numpy())
    np.testing.assert_array_equal(oar.maximum(oar.to_tensor(a), oar.to_tensor(b)).numpy(),
                                  torch.maximum(torch.tensor(a), torch.tensor(b)).numpy())


def test_pow_gradient_finite_differences_away_from_zero():
    x0, y0 = np.array([0.7, 1.3, 2.0]), np.array([0.5, 2.0, -1.5])
    gx, gy = _grads_oar(lambda x, y: x ** y, x0, y0)
    eps = 1e-6
    np.testing.assert_allclose(gx, ((x0 + eps) ** y0 - (x0 - eps) ** y0) / (2 * eps), rtol=1e-6)
    np.testing.assert_allclose(gy, (x0 ** (y0 + eps) - x0 ** (y0 - eps)) / (2 * eps), rtol=1e-6)


# ----------------------------------------------------------------------------- 5. None/NaN
def test_none_and_strings_are_refused_without_change():
    x = oar.ones([3])
    y = oar.ones([3])
    _refuses(lambda: x.fill_(None), TypeError, x)
    _refuses(lambda: x.add_(None), TypeError, x)
    _refuses(lambda: x.add_(y, alpha="x"), TypeError, x, y)
    _refuses(lambda: x.add(y, alpha=None), TypeError, x, y)
    _refuses(lambda: x.mul_("2"), TypeError, x)
    _refuses(lambda: oar.add(x, None), TypeError, x)
    _refuses(lambda: x.clip("a"), TypeError, x)
    _refuses(lambda: x.clip_(), RuntimeError, x)
    with pytest.raises(TypeError):
        oar.full([2], None)
    with pytest.raises(TypeError):
        oar.full([2], "1")
    with pytest.raises(TypeError):
        x += None
    _assert_unchanged(_snapshot(oar.ones([3])), x)


@needs_torch
def test_refusals_have_torch_exception_types():
    for call, tcall in ((lambda: oar.ones([3]).fill_(None), lambda: torch.ones(3).fill_(None)),
                        (lambda: oar.full([2], None), lambda: torch.full([2], None)),
                        (lambda: oar.ones([3]).add_(None), lambda: torch.ones(3).add_(None)),
                        (lambda: oar.ones([3]).add_(oar.ones([3]), alpha="x"),
                         lambda: torch.ones(3).add_(torch.ones(3), alpha="x"))):
        with pytest.raises(Exception) as t_err:
            tcall()
        with pytest.raises(type(t_err.value)):
            call()


def test_masked_fill_and_where_masks():
    x = oar.to_tensor([1.0, 2.0])
    _refuses(lambda: x.masked_fill_(oar.to_tensor([1.0, 0.0]), 0.5), TypeError, x)
    _refuses(lambda: x.masked_fill_(oar.to_tensor([True, False]), oar.ones([2])), RuntimeError, x)
    with pytest.raises(TypeError):
        oar.where(oar.to_tensor([1.0, 0.0]), x, x)
    i = oar.to_tensor([1, 2]).masked_fill(oar.to_tensor([True, False]), 0.5)
    assert i.dtype.name == "int64" and i.numpy().tolist() == [0, 2]   # torch: tensor([0, 2])


# ----------------------------------------------------------------------------- 6. shapes
@needs_torch
@pytest.mark.parametrize("name,args", [
    ("zeros", ([2.5],)), ("zeros", ("3",)), ("ones", (2.5,)), ("empty", ([-1],)),
    ("rand", (2.5,)), ("randn", (-2,)), ("randn", ([2, -2],)), ("zeros", ([2, None],)),
])
def test_bad_shapes_match_torch_exception(name, args):
    with pytest.raises(Exception) as t_err:
        getattr(torch, name)(*args)
    with pytest.raises(type(t_err.value)) as o_err:
        getattr(oar, name)(*args)
    assert name in str(o_err.value)


@needs_torch
def test_full_with_float_shape():
    with pytest.raises(TypeError):
        torch.full([2.0], 1)
    with pytest.raises(TypeError):
        oar.full([2.0], 1)
    assert oar.zeros([2, 3]).shape == [2, 3] and oar.ones(2, 3).shape == [2, 3]
    assert oar.zeros(oar.to_tensor([2, 3])).shape == [2, 3]
    assert oar.zeros(np.int64(2)).shape == [2]


# ----------------------------------------------------------------------------- 7. arange etc.
@needs_torch
@pytest.mark.parametrize("args,kw", [
    ((0, 5, 0), {}), ((0, 5, -1), {}), ((5, 0, 1), {}), ((0, float("nan")), {}),
    ((0, float("inf")), {}), ((float("-inf"), 0), {}), ((None,), {}), (("3",), {}),
])
def test_arange_refusals_match_torch(args, kw):
    with pytest.raises(Exception) as t_err:
        torch.arange(*args, **kw)
    with pytest.raises(type(t_err.value)):
        oar.arange(*args, **kw)


@needs_torch
@pytest.mark.parametrize("args,kw", [
    ((5,), {}), ((5, 5), {}), ((0, 1, 0.1), {}), ((1, 2.5), {}), ((0.0, 1.0, 0.1), {"dtype": "float64"}),
    ((-3, 3, 0.7), {"dtype": "int32"}), ((10,), {"dtype": "float16"}), ((5, -5, -1.5), {}),
    ((0, 1, 0.3), {"dtype": "float64"}),
])
def test_arange_values_match_torch(args, kw):
    tkw = {"dtype": getattr(torch, kw["dtype"])} if kw else {}
    ref = torch.arange(*args, **tkw)
    got = oar.arange(*args, **kw)
    assert got.dtype.name == str(ref.dtype).replace("torch.", "")
    np.testing.assert_array_equal(got.numpy(), ref.numpy())


@needs_torch
@pytest.mark.parametrize("method,args", [
    ("exponential_", (0,)), ("exponential_", (-1,)), ("exponential_", (float("nan"),)),
    ("normal_", (0, -1)), ("uniform_", (2, 1)), ("bernoulli_", (2,)),
])
def test_random_fill_refusals(method, args):
    with pytest.raises(Exception) as t_err:
        getattr(torch.ones(3), method)(*args)
    x = oar.ones([3])
    _refuses(lambda: getattr(x, method)(*args), type(t_err.value), x)


@needs_torch
def test_randint_randperm_refusals():
    for tcall, ocall in ((lambda: torch.randint(5, 5, (2,)), lambda: oar.randint(5, 5, [2])),
                         (lambda: torch.randperm(-1), lambda: oar.randperm(-1))):
        with pytest.raises(Exception) as t_err:
            tcall()
        with pytest.raises(type(t_err.value)):
            ocall()


@needs_torch
@pytest.mark.parametrize("op", ["floor_divide", "remainder"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integer_division_by_zero_is_an_error(op, dtype):
    tx = torch.tensor([1, 2], dtype=getattr(torch, dtype))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(torch, op)(tx, 0)
    x = oar.to_tensor([1, 2], dtype=dtype)
    z = oar.to_tensor([0, 1], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # never NumPy's warning and a garbage result
        for call in (lambda: getattr(oar, op)(x, 0), lambda: getattr(x, op)(z),
                     lambda: getattr(x, op + "_")(z), lambda: getattr(x, op + "_")(0),
                     lambda: x // 0 if op == "floor_divide" else x % 0):
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                call()
            _assert_unchanged(_snapshot(oar.to_tensor([1, 2], dtype=dtype)), x)

        def inplace_op():
            y = x
            if op == "floor_divide":
                y //= z
            else:
                y %= z
        _refuses(inplace_op, RuntimeError, x, z)
    # nonzero divisors agree with torch, negative operands included
    a, b = [7, -7, 7, -7], [2, 2, -2, -2]
    ref = getattr(torch, op)(torch.tensor(a), torch.tensor(b)).numpy()
    np.testing.assert_array_equal(getattr(oar, op)(oar.to_tensor(a), oar.to_tensor(b)).numpy(), ref)


@needs_torch
def test_float_division_by_zero_matches_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = (oar.to_tensor([1.0, -1.0, 0.0]) // 0).numpy()
    np.testing.assert_array_equal(got, (torch.tensor([1.0, -1.0, 0.0]) // 0).numpy())


def test_bool_arithmetic_refusals():
    b = oar.to_tensor([True, False])
    _refuses(lambda: b - b, TypeError, b)
    _refuses(lambda: -b, TypeError, b)
    _refuses(lambda: b // b, TypeError, b)
    _refuses(lambda: oar.to_tensor([1, 2]).add(oar.to_tensor([1, 2]), alpha=0.5), RuntimeError)


# ----------------------------------------------------------------------------- 8. reductions
@needs_torch
@pytest.mark.parametrize("call", [
    lambda m, x: m.sum(x, 5), lambda m, x: m.mean(x, dim=[0, 0]), lambda m, x: m.amax(x, 3),
    lambda m, x: m.argmax(x, 3), lambda m, x: m.var(x, 3), lambda m, x: m.logsumexp(x, 3),
    lambda m, x: m.all(x, 3), lambda m, x: m.cumsum(x, 3), lambda m, x: m.prod(x, -3),
    lambda m, x: m.sum(x, [0, -2]), lambda m, x: m.max(x, 3),
])
def test_reduction_axes_match_torch(call):
    with pytest.raises(Exception) as t_err:
        call(torch, torch.ones(2, 3))
    x = oar.ones([2, 3])
    _refuses(lambda: call(oar, x), type(t_err.value), x)


@needs_torch
def test_reduction_axes_on_0d_match_torch():
    t, o = torch.tensor(2.0), oar.to_tensor(2.0)
    assert float(o.sum(0)) == float(t.sum(0)) and float(o.sum(-1)) == float(t.sum(-1))
    with pytest.raises(RuntimeError):
        t.sum([0, -1])
    with pytest.raises(RuntimeError):
        o.sum([0, -1])
    with pytest.raises(IndexError):
        o.sum(1)


def test_paddle_max_axis_out_of_range():
    x = oar.ones([2, 3])
    with pytest.raises(ValueError):      # Paddle code catches ValueError
        oar.max(x, axis=3)
    with pytest.raises(IndexError):      # PyTorch code catches IndexError
        oar.max(x, axis=3)


# ----------------------------------------------------------------------------- registry layer
def test_declared_ops_check_axis_attrs():
    x = oar.ones([2, 3])
    _refuses(lambda: x.cumsum(2), IndexError, x)
    _refuses(lambda: oar.index_select(x, oar.to_tensor([0]), axis=5), IndexError, x)
    assert oar.cumsum(x, -1).numpy().tolist() == np.cumsum(np.ones((2, 3)), -1).tolist()


def test_no_numpy_exception_leaks_from_bad_operands():
    x = oar.ones([3])
    for bad in (None, "a", object(), {1: 2}):   # (a complex number is an operand now)
        for call in (lambda: x + bad if bad is not None else x.add(bad), lambda: x.mul_(bad),
                     lambda: oar.maximum(x, bad), lambda: x.pow(bad)):
            with pytest.raises(TypeError) as info:
                call()
            assert not type(info.value).__module__.startswith("numpy")


# ----------------------------------------------------------------------------- dtype corners
@needs_torch
@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy warns on float16 overflow; torch not
@pytest.mark.parametrize("call", [
    lambda m, t: t([5], dtype="int8") * 1000, lambda m, t: t([1], dtype="uint8") - 2,
    lambda m, t: -t([1, 2], dtype="uint8"), lambda m, t: m.round(t([1, -2])),
    lambda m, t: m.floor(t([1, -2])), lambda m, t: m.trunc(t([1, 2], dtype="uint8")),
    lambda m, t: m.sign(t([True, False])), lambda m, t: m.square(t([True, False])),
    lambda m, t: m.sign(t([0, 3], dtype="uint8")), lambda m, t: t([2.5, 1.0], dtype="float16") + 100000,
    lambda m, t: m.pow(t([2, 2, 1, -1, -1, 3]), t([1, -1, -3, -1, -2, 0])),
    lambda m, t: m.pow(t([[2], [-1]]), t([-1, -2, 3])),
])
def test_integer_and_bool_corners_match_torch(call):
    def tt(v, dtype=None):
        return torch.tensor(v, dtype=getattr(torch, dtype) if dtype else None)

    def ot(v, dtype=None):
        return oar.to_tensor(v, dtype=dtype)
    ref = call(torch, tt)
    got = call(oar, ot)
    assert got.dtype.name == str(ref.dtype).replace("torch.", "")
    np.testing.assert_array_equal(got.numpy(), ref.numpy())


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m, t: m.pow(t([True]), t([True])), lambda m, t: m.bitwise_and(t([1.0]), t([1.0])),
    lambda m, t: m.bitwise_not(t([1.0])), lambda m, t: m.pow(t([2]), -1),
    lambda m, t: t([1]) + 2 ** 70,
])
def test_integer_and_bool_refusals_match_torch(call):
    def tt(v, dtype=None):
        return torch.tensor(v)

    def ot(v, dtype=None):
        return oar.to_tensor(v)
    with pytest.raises(Exception) as t_err:
        call(torch, tt)
    expected = RuntimeError if isinstance(t_err.value, RuntimeError) else type(t_err.value)
    with pytest.raises(expected):
        call(oar, ot)


# ---------------------------------------------------------------- broadcast mismatches
# Every spelling of a pointwise op on operands that cannot broadcast raises PyTorch's
# RuntimeError in PyTorch's words (ArgValueError: also a ValueError, for Paddle code), never
# NumPy's bare ValueError; in-place and out= leave every tensor unchanged.
# (name, call(L, a, b) where a, b are the two mismatched tensors, shape of a, shape of b)
BROADCAST_CALLS = {
    "maximum_fn": (lambda L, a, b: L.maximum(a, b), [16], [4, 4]),
    "add_op": (lambda L, a, b: a + b, [4], [3]),
    "sub_method": (lambda L, a, b: a.sub(b), [2, 4], [3]),
    "mul_fn_rank3": (lambda L, a, b: L.mul(a, b), [4, 1], [2, 5, 3]),
    "div_op": (lambda L, a, b: a / b, [4], [3]),
    "pow_op": (lambda L, a, b: a ** b, [4], [3]),
    "eq_op": (lambda L, a, b: a == b, [4], [3]),
    "lt_op": (lambda L, a, b: a < b, [4], [3]),
    "minimum_method": (lambda L, a, b: a.minimum(b), [4], [3]),
    "add_int_float": (lambda L, a, b: a.long() + b, [4], [3]),
    "add_requires_grad": (lambda L, a, b: a.requires_grad_() + b, [4], [3]),
    "mul_float64": (lambda L, a, b: a.double() * b.double(), [4], [3]),
    "clamp_tensor_min": (lambda L, a, b: L.clamp(a, b, None), [4], [3]),
}
BROADCAST_INPLACE = {
    "add_": (lambda L, a, b: a.add_(b), [4], [3]),
    "iadd": (lambda L, a, b: a.__iadd__(b), [4], [3]),
    "mul_rank2": (lambda L, a, b: a.mul_(b), [2, 4], [3]),
    "maximum_out": (lambda L, a, b: L.maximum(a, b, out=a), [4], [3]),
    "add_out": (lambda L, a, b: L.add(a, b, out=a), [4], [3]),
    "clamp_": (lambda L, a, b: a.clamp_(b, None), [4], [3]),
    "add_view": (lambda L, a, b: a[:, 1:3].add_(b), [2, 4], [3]),
    "add_grad": (lambda L, a, b: (a.requires_grad_() * 1.0).add_(b), [4], [3]),
}


def _ones(L, shape):
    return L.ones(shape) if L is oar else torch.ones(shape)


@needs_torch
@pytest.mark.parametrize("name", sorted(BROADCAST_CALLS) + sorted(BROADCAST_INPLACE))
def test_broadcast_mismatch_raises_torchs_error(name):
    call, sa, sb = {**BROADCAST_CALLS, **BROADCAST_INPLACE}[name]
    with pytest.raises(RuntimeError) as et:
        call(torch, _ones(torch, sa), _ones(torch, sb))
    a, b = _ones(oar, sa), _ones(oar, sb)
    before = _snapshot(a, b)
    with pytest.raises(RuntimeError) as eo:
        call(oar, a, b)
    assert isinstance(eo.value, ValueError), type(eo.value)
    assert isinstance(eo.value, oar.autograd.errors.ArgValueError)
    # torch's sentence, then both shapes and the op name
    assert str(et.value).split(" at non-singleton")[0] in str(eo.value)
    msg = str(eo.value)
    if name != "add_view":
        assert str(sa).replace(" ", "") in msg.replace(" ", "")
    assert str(sb).replace(" ", "") in msg.replace(" ", "")
    assert "`" in msg
    _assert_unchanged(before, a, b)


@needs_torch
def test_broadcast_mismatch_names_torchs_dimension():
    for sa, sb in [([16], [4, 4]), ([4, 1], [2, 5, 3]), ([2, 4], [3]), ([3, 1, 2], [4, 3])]:
        with pytest.raises(RuntimeError) as et:
            torch.ones(sa) + torch.ones(sb)
        with pytest.raises(RuntimeError) as eo:
            oar.ones(sa) + oar.ones(sb)
        assert str(eo.value).startswith(str(et.value)), (str(eo.value), str(et.value))


def test_broadcast_mismatch_on_pooled_large_tensors():
    # the generated fast path with a pooled result buffer (Note [Caching allocator])
    n = 1 << 18
    t = oar.ones([n]) * 2.0
    del t
    with pytest.raises(RuntimeError, match="must match the size"):
        oar.ones([n]) * oar.ones([n - 1])
    assert (oar.ones([n]) * oar.ones([2, n])).shape == [2, n]


@needs_torch
def test_inplace_into_smaller_output_matches_torch():
    with pytest.raises(RuntimeError) as et:
        torch.ones(4).add_(torch.ones(3, 4))
    a, b = oar.ones([4]), oar.ones([3, 4])
    before = _snapshot(a, b)
    with pytest.raises(RuntimeError) as eo:
        a.add_(b)
    assert isinstance(eo.value, ValueError)
    assert "output with shape [4] doesn't match the broadcast shape [3, 4]" in str(et.value)
    assert "output with shape [4] doesn't match the broadcast shape [3, 4]" in str(eo.value)
    _assert_unchanged(before, a, b)


@needs_torch
def test_pow_exponent_grad_of_float32_base_in_result_dtype():
    # PyTorch's pow_backward_exponent promotes the base to the result dtype before the log:
    # a float32 base with a float64 exponent keeps float64 precision in the gradient
    base = np.array([0.5, 1.5, 1.0, 0.0, 2.0], dtype=np.float32)
    e = np.array([0.3, 1.7, 2.0, 1.0, -0.4])
    eo = oar.tensor(e, dtype=oar.float64, requires_grad=True)
    et = torch.tensor(e, dtype=torch.float64, requires_grad=True)
    oar.pow(oar.tensor(base), eo).sum().backward()
    torch.pow(torch.tensor(base), et).sum().backward()
    assert eo.grad.dtype == oar.float64
    np.testing.assert_allclose(eo.grad.numpy(), et.grad.numpy(), rtol=1e-14, atol=0)
