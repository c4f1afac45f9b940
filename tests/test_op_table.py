"""Every op of the table, in every spelling, against NumPy."""
import operator as pyop

import numpy as np
import pytest

import oar
from oar.autograd import gradcheck
from tests.op_table import ROWS
from tests.conftest import noncontig

OPS = {"+": pyop.add, "-": pyop.sub, "*": pyop.mul, "/": pyop.truediv, "**": pyop.pow,
       "%": pyop.mod, "//": pyop.floordiv, "@": pyop.matmul}
IOPS = {"+": pyop.iadd, "-": pyop.isub, "*": pyop.imul, "/": pyop.itruediv, "**": pyop.ipow,
        "%": pyop.imod, "//": pyop.ifloordiv, "@": pyop.imatmul}


def _ids(rows):
    return [f"{r.name}-{'x'.join(map(str, r.shapes[0]))}-{r.n_inputs}" for r in rows]


def _inputs(row, rng, dtype="float32"):
    lo, hi = row.domain
    arrs = [rng.uniform(lo, hi, size=row.shapes[i]).astype(dtype) for i in range(row.n_inputs)]
    if row.name in ("floor", "ceil", "round", "trunc", "sign", "relu", "abs", "clip",
                    "maximum", "minimum"):
        # keep values away from kinks so finite differences are meaningful
        arrs = [np.where(np.abs(a - np.round(a)) < 0.1, a + 0.25, a).astype(dtype) for a in arrs]
        arrs = [np.where(np.abs(a) < 0.1, a + 0.3, a).astype(dtype) for a in arrs]
    if row.name in ("clip",):
        arrs = [np.where(np.abs(a + 0.5) < 0.05, a + 0.1, a) for a in arrs]
        arrs = [np.where(np.abs(a - 0.7) < 0.05, a + 0.1, a).astype(dtype) for a in arrs]
    if row.name in ("maximum", "minimum"):
        arrs[1] = (arrs[0] + np.where(rng.random(arrs[0].shape) < 0.5, 0.5, -0.5)).astype(dtype)
    return arrs


def _ref(row, arrs):
    return np.asarray(row.ref(*arrs, **row.kwargs))


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_function_method_and_noncontiguous(row):
    rng = np.random.default_rng(1)
    arrs = _inputs(row, rng)
    expect = _ref(row, arrs)
    fn = getattr(oar, row.name)
    for make in (oar.to_tensor, noncontig):
        ts = [make(a) for a in arrs]
        out = fn(*ts, **row.kwargs)
        np.testing.assert_allclose(out.numpy(), expect, **_tol("float32"))
        assert out.dtype == oar.float32 and list(out.shape) == list(expect.shape)
        if row.method:
            out2 = getattr(ts[0], row.name)(*ts[1:], **row.kwargs)
            np.testing.assert_allclose(out2.numpy(), expect, **_tol("float32"))
        for t, a in zip(ts, arrs):   # inputs untouched, versions unchanged
            np.testing.assert_array_equal(t.numpy(), a)
            assert t.inplace_version == 0
    if row.operator:
        out3 = OPS[row.operator](oar.to_tensor(arrs[0]), oar.to_tensor(arrs[1]))
        np.testing.assert_allclose(out3.numpy(), expect, **_tol("float32"))


@pytest.mark.parametrize("row", [r for r in ROWS if r.scalar_other is not None],
                         ids=_ids([r for r in ROWS if r.scalar_other is not None]))
def test_python_number_operand(row):
    rng = np.random.default_rng(2)
    (a, _) = _inputs(row, rng)
    s = row.scalar_other
    expect = row.ref(a, np.float32(s))
    x = oar.to_tensor(a)
    np.testing.assert_allclose(getattr(oar, row.name)(x, s).numpy(), expect, rtol=1e-6)
    assert getattr(oar, row.name)(x, s).dtype == oar.float32   # the number stays weak
    if row.operator:
        np.testing.assert_allclose(OPS[row.operator](x, s).numpy(), expect, rtol=1e-6)
        np.testing.assert_allclose(OPS[row.operator](s, x).numpy(),
                                   row.ref(np.float32(s), a), rtol=1e-6)
        y = oar.to_tensor(a)
        alias = y
        y = IOPS[row.operator](y, s)
        assert y is alias and y.inplace_version == 1
        np.testing.assert_allclose(alias.numpy(), expect, rtol=1e-6)
    y = oar.to_tensor(a)
    r = getattr(y, row.name + "_")(s)
    assert r is y and y.inplace_version == 1
    np.testing.assert_allclose(y.numpy(), expect, rtol=1e-6)


INPLACE_ROWS = [r for r in ROWS if r.inplace]


SPELLINGS = [(r, s) for r in INPLACE_ROWS for s in ("function", "method", "operator")
             if s != "operator" or r.operator]


@pytest.mark.parametrize("row,spelling", SPELLINGS,
                         ids=[f"{i}-{s}" for i, (r, s) in zip(_ids([r for r, _ in SPELLINGS]), SPELLINGS)])
@pytest.mark.parametrize("contiguous", [True, False])
def test_inplace_identity_storage_version(row, spelling, contiguous):
    rng = np.random.default_rng(3)
    arrs = _inputs(row, rng)
    expect = _ref(row, arrs)
    make = oar.to_tensor if contiguous else noncontig
    ts = [make(a) for a in arrs]
    x = ts[0]
    ptr, storage, shape, strides = x.data_ptr(), x._storage, x.shape, x.stride()
    base_version = x.inplace_version
    if spelling == "function":
        r = getattr(oar, row.name + "_")(*ts, **row.kwargs)
    elif spelling == "method":
        r = getattr(x, row.name + "_")(*ts[1:], **row.kwargs)
    else:
        alias = x
        x = IOPS[row.operator](x, ts[1])
        r = x
        assert x is alias
    assert r is ts[0]
    assert x.data_ptr() == ptr and x._storage is storage
    assert x.shape == shape and x.stride() == strides and x.dtype == oar.float32
    assert x.inplace_version == base_version + 1 and x._version == base_version + 1
    np.testing.assert_allclose(x.numpy(), expect, **_tol("float32"))
    if not contiguous:   # the write went through the view into the base
        assert x._base is not None
        np.testing.assert_allclose(x._base.numpy()[..., 0], expect, **_tol("float32"))


@pytest.mark.parametrize("row", INPLACE_ROWS, ids=_ids(INPLACE_ROWS))
def test_inplace_refusals_change_nothing(row):
    rng = np.random.default_rng(4)
    arrs = _inputs(row, rng)
    # 1. a leaf that requires grad
    x = oar.to_tensor(arrs[0], stop_gradient=False)
    before = x.numpy()
    with pytest.raises(ValueError, match="Leaf Var.*doesn't stop gradient can't use inplace strategy"):
        getattr(x, row.name + "_")(*[oar.to_tensor(a) for a in arrs[1:]], **row.kwargs)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.inplace_version == 0 and x.is_leaf
    # the same error is a RuntimeError for PyTorch users
    with pytest.raises(RuntimeError):
        getattr(x, row.name + "_")(*[oar.to_tensor(a) for a in arrs[1:]], **row.kwargs)
    # 2. allowed under no_grad
    with oar.no_grad():
        getattr(x, row.name + "_")(*[oar.to_tensor(a) for a in arrs[1:]], **row.kwargs)
    assert x.inplace_version == 1 and x.is_leaf and not x.stop_gradient
    # 3. an expanded destination
    if row.n_inputs == 1:
        e = oar.to_tensor(arrs[0][:1]).expand([3, 4])
        with pytest.raises(RuntimeError, match="single memory location"):
            getattr(e, row.name + "_")(**row.kwargs)
        assert e.inplace_version == 0


BINARY_INPLACE = [r for r in ROWS if r.inplace and r.n_inputs == 2 and r.name != "matmul"]


@pytest.mark.parametrize("row", BINARY_INPLACE, ids=_ids(BINARY_INPLACE))
def test_inplace_broadcast_and_dtype_refusals(row):
    rng = np.random.default_rng(5)
    x = oar.to_tensor(rng.uniform(0.5, 2, size=(4,)).astype("float32"))
    big = oar.to_tensor(rng.uniform(0.5, 2, size=(3, 4)).astype("float32"))
    before = x.numpy()
    with pytest.raises(ValueError, match=r"\[3, 4\].*\[4\]"):
        getattr(x, row.name + "_")(big)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.inplace_version == 0 and list(x.shape) == [4]
    xi = oar.to_tensor([1, 2, 3, 4])
    if row.name in ("div",) or row.name in ("add", "sub", "mul", "pow"):
        with pytest.raises(TypeError, match="can't be cast"):
            getattr(xi, row.name + "_")(oar.to_tensor([1.5, 2.5, 1.5, 2.5]))
        np.testing.assert_array_equal(xi.numpy(), [1, 2, 3, 4])
        assert xi.inplace_version == 0 and xi.dtype == oar.int64
    # partial overlap refused, full overlap fine
    z = oar.to_tensor(rng.uniform(0.5, 2, size=(5,)).astype("float32"))
    zb = z.numpy()
    with pytest.raises(RuntimeError, match="single memory location"):
        getattr(z[1:], row.name + "_")(z[:-1])
    np.testing.assert_array_equal(z.numpy(), zb)
    assert z.inplace_version == 0
    getattr(z, row.name + "_")(z)
    np.testing.assert_allclose(z.numpy(), row.ref(zb, zb), rtol=1e-6)


GRAD_ROWS = [r for r in ROWS if r.grad]


@pytest.mark.parametrize("row", GRAD_ROWS, ids=_ids(GRAD_ROWS))
def test_gradcheck_out_of_place(row):
    rng = np.random.default_rng(6)
    arrs = _inputs(row, rng, "float64")
    ts = [oar.to_tensor(a, stop_gradient=False) for a in arrs]
    fn = getattr(oar, row.name)
    assert gradcheck(lambda *xs: fn(*xs, **row.kwargs), ts)


@pytest.mark.parametrize("row", [r for r in GRAD_ROWS if r.inplace],
                         ids=_ids([r for r in GRAD_ROWS if r.inplace]))
@pytest.mark.parametrize("spelling", ["function", "method"])
def test_gradcheck_inplace_on_non_leaf(row, spelling):
    rng = np.random.default_rng(7)
    arrs = _inputs(row, rng, "float64")
    ts = [oar.to_tensor(a, stop_gradient=False) for a in arrs]

    def f(*xs):
        y = xs[0] * 1.0        # a non-leaf to modify
        if spelling == "function":
            r = getattr(oar, row.name + "_")(y, *xs[1:], **row.kwargs)
        else:
            r = getattr(y, row.name + "_")(*xs[1:], **row.kwargs)
        assert r is y
        return y
    assert gradcheck(f, ts)


@pytest.mark.parametrize("row", [r for r in GRAD_ROWS if r.inplace and r.n_inputs == 1],
                         ids=_ids([r for r in GRAD_ROWS if r.inplace and r.n_inputs == 1]))
def test_gradcheck_inplace_through_view(row):
    """In-place on a view of a non-leaf: the base's gradient includes the change."""
    rng = np.random.default_rng(8)
    (a,) = _inputs(row, rng, "float64")
    x = oar.to_tensor(a, stop_gradient=False)

    def f(x):
        y = x * 1.0
        v = y.t()[1:3]          # a non-contiguous view of y
        getattr(v, row.name + "_")(**row.kwargs)
        return y * oar.to_tensor(np.arange(12.0).reshape(3, 4))
    assert gradcheck(f, [x])


MULTI_GRAD = [r for r in GRAD_ROWS if r.n_inputs > 1]


ONE_GRAD = [(r, w, ip) for r in MULTI_GRAD for w in (0, 1) for ip in (False, True)
            if r.inplace or not ip]


@pytest.mark.parametrize("row,which,inplace", ONE_GRAD,
                         ids=[f"{r.name}-{'x'.join(map(str, r.shapes[0]))}-{w}-{'inplace' if ip else 'out'}"
                              for r, w, ip in ONE_GRAD])
def test_gradcheck_one_input_needing_grad(row, which, inplace):
    """Only the inputs whose gradients are needed are saved: each alone must still work."""
    rng = np.random.default_rng(9)
    arrs = _inputs(row, rng, "float64")
    ts = [oar.to_tensor(a, stop_gradient=(i != which)) for i, a in enumerate(arrs)]

    def f(*xs):
        if not inplace:
            return getattr(oar, row.name)(*xs, **row.kwargs)
        y = xs[0] * 1.0
        return getattr(y, row.name + "_")(*xs[1:], **row.kwargs)
    assert gradcheck(f, ts)


@pytest.mark.parametrize("dtype,step", [("float32", 4), ("float64", 8), ("float32", 3), ("float64", 2)])
@pytest.mark.parametrize("op", ["neg_", "sigmoid_", "neg", "exp_"])
def test_unary_ops_on_strided_views_read_the_right_elements(dtype, step, op):
    """Note [NumPy 2.4 negative]: NumPy's negative into a strided output misreads for these
    strides; every unary op must give NumPy's value of each element, in place or not."""
    base = np.linspace(-1, 1, 5 * step + 3).astype(dtype)
    x = oar.to_tensor(base)
    v = x[1::step]
    ref = base[1::step].astype(np.float64)
    expect = {"neg_": -ref, "neg": -ref, "sigmoid_": 1 / (1 + np.exp(-ref)), "exp_": np.exp(ref)}[op]
    out = getattr(v, op)()
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-3 if dtype == "float32" else 1e-12)
    if op.endswith("_"):
        np.testing.assert_allclose(x.numpy()[1::step], expect, rtol=1e-3 if dtype == "float32" else 1e-12)


ZERO_DIM_ROWS = [r for r in ROWS if r.name not in ("matmul", "bmm")]   # they need 1-D or 3-D operands


@pytest.mark.parametrize("row", ZERO_DIM_ROWS, ids=_ids(ZERO_DIM_ROWS))
def test_zero_dim_operands(row):
    """Every op on 0-d tensors, in function and in-place form."""
    rng = np.random.default_rng(10)
    arrs = [np.asarray(a.reshape(-1)[0]) for a in _inputs(row, rng, "float64")]
    expect = np.asarray(row.ref(*arrs, **row.kwargs))
    out = getattr(oar, row.name)(*[oar.to_tensor(a) for a in arrs], **row.kwargs)
    assert out.shape == [] and np.allclose(out.numpy(), expect)
    if row.inplace:
        x = oar.to_tensor(arrs[0])
        r = getattr(x, row.name + "_")(*[oar.to_tensor(a) for a in arrs[1:]], **row.kwargs)
        assert r is x and x.shape == [] and x.inplace_version == 1 and np.allclose(x.numpy(), expect)
