"""Issue 10's new core ops, in both doors, against torch 2.13 (and paddle 3.3.1 where they
differ): the new elementwise ops and their in-place forms, the in-place comparisons, roll,
unflatten, hsplit/vsplit/dsplit, split_with_sizes, type_as, new/new_*, resize_/resize_as_,
as_strided_, var_mean/std_mean, isclose/allclose, storage()/untyped_storage() and `.data`.
Expected values are computed by torch (or paddle, or NumPy) inside each test."""
import numpy as np
import pytest

import oar
import oar.torch as otorch

torch = pytest.importorskip("torch")

F32 = dict(rtol=2e-6, atol=1e-6)
F64 = dict(rtol=1e-12, atol=1e-12)


def both(arr, dtype=np.float32, grad=False):
    """The same values as an oar.torch tensor and a torch tensor."""
    a = np.asarray(arr, dtype)
    o = otorch.tensor(a, requires_grad=grad)
    t = torch.tensor(a, requires_grad=grad)
    return o, t


def close(o, t, **tol):
    t = t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else np.asarray(t)
    assert o.shape == tuple(t.shape)
    np.testing.assert_allclose(np.asarray(o.detach().numpy(), np.float64),
                               np.asarray(t, np.float64), equal_nan=True, **(tol or F32))


UNARY = {   # name -> domain
    "erf": (-4, 4), "erfc": (-4, 4), "erfinv": (-0.99, 0.99), "asinh": (-3, 3),
    "acosh": (1.05, 4), "atanh": (-0.95, 0.95), "exp2": (-3, 3), "frac": (-3, 3),
    "deg2rad": (-360, 360), "rad2deg": (-4, 4), "sinc": (-3, 3), "logit": (0.02, 0.98),
    "nan_to_num": (-3, 3), "absolute": (-3, 3), "arccos": (-0.9, 0.9), "arcsin": (-0.9, 0.9),
    "arctan": (-3, 3), "arcsinh": (-3, 3), "arccosh": (1.1, 3), "arctanh": (-0.9, 0.9),
    "fix": (-3, 3), "sgn": (-3, 3),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_values_gradients_and_inplace_against_torch(name, dtype):
    rng = np.random.default_rng(7)
    lo, hi = UNARY[name]
    a = rng.uniform(lo, hi, (4, 5)).astype(dtype)
    tol = F32 if dtype == np.float32 else dict(rtol=1e-9, atol=1e-12)
    o, t = both(a, dtype, grad=True)
    ro, rt = getattr(o, name)(), getattr(t, name)()
    close(ro, rt, **tol)
    assert str(ro.dtype) == str(rt.dtype)
    assert getattr(otorch, name)(o).shape == tuple(rt.shape)
    g = rng.uniform(-1, 1, (4, 5)).astype(dtype)
    if name not in ("frac", "fix", "sgn"):   # piecewise constant: torch gives zeros too
        (ro * otorch.tensor(g)).sum().backward()
        (rt * torch.tensor(g)).sum().backward()
        close(o.grad, t.grad, **(tol if dtype == np.float64 else dict(rtol=2e-5, atol=1e-5)))
    # the in-place form writes into x, returns it, bumps its version once, both doors
    for make in (otorch.tensor, oar.to_tensor):
        x = make(a)
        v = x._version
        r = getattr(x, name + "_")()
        assert r is x and x._version == v + 1
        close(x, rt, **tol)
    # and on a non-leaf under autograd: the gradient flows through the in-place op (torch
    # has no derivative for some in-place forms, asinh_: its out-of-place op's gradient)
    o2, t2 = both(a, dtype, grad=True)
    y = o2 * 1
    getattr(y, name + "_")()
    y.sum().backward()
    getattr(t2 * 1, name)().sum().backward()
    close(o2.grad, t2.grad, **(tol if dtype == np.float64 else dict(rtol=2e-5, atol=1e-5)))


def test_erf_family_special_values_match_torch():
    vals = [0.0, -0.0, 1e-30, -1e-300, 0.5, 0.84375, 1.25, 2.857, 5.9, 6.0, 27.0, 30.0,
            np.inf, -np.inf, np.nan]
    for dt in (np.float32, np.float64):
        o, t = both(vals, dt)
        for name in ("erf", "erfc"):
            close(getattr(o, name)(), getattr(t, name)(), rtol=1e-15 if dt == np.float64 else
                  1e-6, atol=0)
    # near +-1 erfinv is ill-conditioned (erf's slope is ~1e-5): both are within 1e-11
    o, t = both([-1.0, 1.0, 0.0, 0.999999, -1.5, np.nan], np.float64)
    close(o.erfinv(), t.erfinv(), rtol=1e-11, atol=0)


def test_logit_eps_nan_to_num_arguments_match_torch():
    o, t = both([0.0, 0.1, 0.5, 0.97, 1.0])
    close(o.logit(eps=0.05), t.logit(eps=0.05))
    close(otorch.logit(o, 0.2), torch.logit(t, 0.2))
    o, t = both([np.nan, np.inf, -np.inf, 1.5])
    close(o.nan_to_num(), t.nan_to_num())
    close(o.nan_to_num(nan=2.0, posinf=7.0, neginf=-7.0),
          t.nan_to_num(nan=2.0, posinf=7.0, neginf=-7.0))
    o, t = both([np.nan, np.inf, 0.3], grad=True)
    o.nan_to_num().sum().backward()
    t.nan_to_num().sum().backward()
    close(o.grad, t.grad)


def test_integer_inputs_follow_torch():
    o, t = otorch.tensor([180, 90]), torch.tensor([180, 90])
    for name in ("deg2rad", "erf", "asinh", "exp2", "sinc"):
        r = getattr(o, name)()
        assert str(r.dtype) == str(getattr(t, name)().dtype)
        close(r, getattr(t, name)())
    # an in-place form whose result is floating refuses an integer tensor, as torch
    for name in ("erf_", "asinh_", "exp2_"):
        x = otorch.tensor([1, 2])
        with pytest.raises(RuntimeError, match="can't be cast"):
            getattr(x, name)()
        with pytest.raises(RuntimeError):
            getattr(torch.tensor([1, 2]), name)()
        assert x.tolist() == [1, 2] and x._version == 0
    with pytest.raises(TypeError):
        otorch.tensor([1, 2]).frac()
    with pytest.raises(NotImplementedError):
        torch.tensor([1, 2]).frac()


def test_leaf_refuses_the_new_inplace_forms():
    w = otorch.tensor([0.5, 0.2], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad"):   # torch's words
        w.erf_()
    with pytest.raises(RuntimeError, match="leaf"):
        torch.tensor([0.5, 0.2], requires_grad=True).erf_()
    assert w.tolist() == np.float32([0.5, 0.2]).tolist() and w._version == 0


@pytest.mark.parametrize("spelling,name", [
    ("eq_", "eq"), ("ne_", "ne"), ("gt_", "gt"), ("ge_", "ge"), ("lt_", "lt"), ("le_", "le"),
    ("greater_", "gt"), ("less_", "lt"), ("equal_", "eq"), ("not_equal_", "ne"),
    ("greater_than_", "gt"), ("greater_equal_", "ge"), ("less_than_", "lt"),
    ("less_equal_", "le"), ("logical_and_", "logical_and_"), ("logical_or_", "logical_or_"),
    ("logical_xor_", "logical_xor_")])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_inplace_comparisons_keep_self_dtype_as_torch(spelling, name, dtype):
    a = np.array([[0, 1, 2], [3, 0, 5]], dtype)
    b = np.array([0, 2, 2], dtype)
    t = torch.tensor(a)
    tname = name if name.endswith("_") else name + "_"
    getattr(t, tname)(torch.tensor(b))
    for make in (otorch.tensor, oar.to_tensor):
        x = make(a)
        r = getattr(x, spelling)(make(b))
        assert r is x and x.dtype == oar.to_tensor(a).dtype and x._version == 1
        np.testing.assert_array_equal(x.numpy(), t.numpy())


def test_logical_not_inplace_and_explicit_calls():
    for dt in (np.float32, np.int64):
        x = otorch.tensor(np.array([0, 1, 3], dt))
        t = torch.tensor(np.array([0, 1, 3], dt))
        x.logical_not_()
        t.logical_not_()
        np.testing.assert_array_equal(x.numpy(), t.numpy())
    # the function spellings of the in-place comparisons
    x = oar.to_tensor([1.0, 2.0])
    assert oar.equal_(x, oar.to_tensor([1.0, 3.0])) is x and x.tolist() == [1.0, 0.0]
    x = oar.to_tensor([1.0, 2.0])
    oar.not_equal_(x, 1.0)
    oar.greater_than_(oar.to_tensor([1.0]), 0.0)
    oar.greater_equal_(oar.to_tensor([1.0]), 0.0)
    oar.less_than_(oar.to_tensor([1.0]), 0.0)
    oar.less_equal_(oar.to_tensor([1.0]), 0.0)
    oar.logical_and_(oar.to_tensor([1.0]), oar.to_tensor([0.0]))
    oar.logical_or_(oar.to_tensor([1.0]), oar.to_tensor([0.0]))
    oar.logical_xor_(oar.to_tensor([1.0]), oar.to_tensor([0.0]))
    assert x.tolist() == [0.0, 1.0]


# ---------------------------------------------------------------- roll
@pytest.mark.parametrize("args", [(1,), (-4,), (1, 0), (2, -1), ((1, 2), (0, 1)),
                                  ((-1, 1), (1, 0)), (7, 1)])
def test_roll_values_and_gradients_against_torch(args):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    o, t = both(a, grad=True)
    ro, rt = o.roll(*args), t.roll(*args)
    close(ro, rt)
    assert ro.grad_fn.name() == rt.grad_fn.name() == "RollBackward0"
    g = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    (ro * otorch.tensor(g)).sum().backward()
    (rt * torch.tensor(g)).sum().backward()
    close(o.grad, t.grad)
    assert ro._storage is not o._storage   # a copy


def test_roll_keywords_errors_and_paddle_spelling():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    close(otorch.roll(otorch.tensor(a), shifts=1, dims=1), torch.roll(torch.tensor(a), 1, 1))
    p = pytest.importorskip("paddle")
    np.testing.assert_array_equal(oar.roll(oar.to_tensor(a), 1, axis=0).numpy(),
                                  p.roll(p.to_tensor(a), 1, axis=0).numpy())
    x = oar.to_tensor(a)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        x.roll((1, 2))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        torch.roll(torch.tensor(a), (1, 2))
    with pytest.raises(IndexError):
        x.roll(1, 2)
    with pytest.raises(TypeError):
        x.roll(1.5)


# ---------------------------------------------------------------- views
def test_unflatten_is_a_view_matching_torch():
    a = np.arange(24, dtype=np.float32).reshape(2, 12)
    o, t = both(a, grad=True)
    for dim, sizes in ((1, (3, 4)), (-1, (2, -1, 3)), (0, (1, 2))):
        ro, rt = o.unflatten(dim, sizes), t.unflatten(dim, sizes)
        close(ro, rt)
        assert ro._storage is o._storage and ro.grad_fn.name() == rt.grad_fn.name()
    p = oar.to_tensor(a)
    assert oar.unflatten(p, 1, [3, 4]).shape == [2, 3, 4]
    (o.unflatten(1, (3, 4)) * 2).sum().backward()
    (t.unflatten(1, (3, 4)) * 2).sum().backward()
    close(o.grad, t.grad)
    for bad in ((1, (5, 3)), (1, (-1, -1)), (1, (5, -1))):
        with pytest.raises(RuntimeError):
            o.detach().unflatten(*bad)
        with pytest.raises(RuntimeError):
            t.detach().unflatten(*bad)


@pytest.mark.parametrize("fn,shape,arg", [
    ("hsplit", (6,), 3), ("hsplit", (2, 6), 2), ("hsplit", (2, 6, 2), [1, 4]),
    ("vsplit", (4, 3), 2), ("vsplit", (5, 3), [2, 3]), ("dsplit", (2, 2, 6), 3),
    ("dsplit", (1, 2, 5), [1, 9])])
def test_hsplit_vsplit_dsplit_match_torch(fn, shape, arg):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    o, t = both(a, grad=True)
    po, pt = getattr(o, fn)(arg), getattr(t, fn)(arg)
    assert isinstance(po, tuple) and len(po) == len(pt)
    for x, y in zip(po, pt):
        close(x, y)
        assert x._storage is o._storage
    sum(x.sum() * (i + 1) for i, x in enumerate(po)).backward()
    sum(y.sum() * (i + 1) for i, y in enumerate(pt)).backward()
    close(o.grad, t.grad)
    core = getattr(oar, fn)(oar.to_tensor(a), arg)   # the Paddle door: a list
    assert isinstance(core, list) and [c.shape for c in core] == [list(y.shape) for y in pt]


def test_split_spellings_explicitly():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = torch.tensor(a)
    for po, pt in ((oar.hsplit(oar.to_tensor(a), 3), torch.hsplit(t, 3)),
                   (oar.vsplit(oar.to_tensor(a), [1]), torch.vsplit(t, [1])),
                   (oar.dsplit(oar.to_tensor(a), 2), torch.dsplit(t, 2)),
                   (otorch.tensor(a).hsplit([1, 2]), t.hsplit([1, 2])),
                   (otorch.tensor(a).vsplit(2), t.vsplit(2)),
                   (otorch.tensor(a).dsplit([3]), t.dsplit([3]))):
        assert len(po) == len(pt)
        for x, y in zip(po, pt):
            np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_split_errors_match_torch():
    for fn, shape, arg in (("hsplit", (2, 5), 2), ("vsplit", (3,), 1), ("dsplit", (2, 2), 1),
                           ("hsplit", (), 1)):
        a = np.zeros(shape, np.float32)
        with pytest.raises(RuntimeError):
            getattr(torch.tensor(a), fn)(arg)
        with pytest.raises(RuntimeError):
            getattr(oar.to_tensor(a), fn)(arg)


def test_split_with_sizes_matches_torch():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    o, t = both(a, grad=True)
    po, pt = o.split_with_sizes([1, 3], dim=1), t.split_with_sizes([1, 3], dim=1)
    for x, y in zip(po, pt):
        close(x, y)
        assert x._storage is o._storage
    assert pt[0].grad_fn.name() == "SplitWithSizesBackward0"
    w = oar.to_tensor(a, stop_gradient=False)
    assert oar.split_with_sizes(w, [2, 1])[0].grad_fn.name() == "SplitWithSizesBackward0"
    core = oar.split_with_sizes(oar.to_tensor(a), [2, 1])
    assert [c.shape for c in core] == [[2, 4], [1, 4]]
    with pytest.raises(RuntimeError, match="split_sizes"):
        oar.to_tensor(a).split_with_sizes([1, 1])
    with pytest.raises(RuntimeError):
        t.detach().split_with_sizes([1, 1])


# ---------------------------------------------------------------- type_as, new
def test_type_as_and_new_family_match_torch():
    o = otorch.tensor(np.arange(6.0).reshape(2, 3))       # float64 (from a float64 ndarray)
    t = torch.tensor(np.arange(6.0).reshape(2, 3))
    assert str(o.dtype) == str(t.dtype) == "torch.float64"
    assert str(o.type_as(otorch.tensor([1])).dtype) == str(t.type_as(torch.tensor([1])).dtype)
    r = o.type_as(o)
    assert r is o
    for call in (lambda x: x.new(), lambda x: x.new(2, 3), lambda x: x.new([1, 2]),
                 lambda x: x.new((4, 5)), lambda x: x.new_zeros(2, 3), lambda x: x.new_zeros((2,)),
                 lambda x: x.new_ones([2]), lambda x: x.new_full((2,), 3),
                 lambda x: x.new_tensor([1, 2]), lambda x: x.new_empty(2, 1),
                 lambda x: x.new_zeros(2, dtype=torch.int64 if isinstance(x, torch.Tensor)
                                       else otorch.int64)):
        ro, rt = call(o), call(t)
        assert ro.shape == tuple(rt.shape) and str(ro.dtype) == str(rt.dtype)
        assert isinstance(ro, otorch.Tensor)
    close(o.new([1.5, 2]), t.new([1.5, 2]))
    close(o.new_full((2,), 3), t.new_full((2,), 3))
    same = otorch.tensor([1.0, 2.0]).double()
    assert o.new(same) is same
    with pytest.raises(TypeError):
        o.new(otorch.tensor([1, 2]))
    with pytest.raises(TypeError):
        t.new(torch.tensor([1, 2]))
    assert isinstance(oar.to_tensor([1.0]).new_zeros(2), oar.Tensor)
    assert not isinstance(oar.to_tensor([1.0]).new_zeros(2), otorch.Tensor)


# ---------------------------------------------------------------- resize_, as_strided_
def test_resize_matches_torch():
    o = otorch.arange(6.0)
    t = torch.arange(6.0)
    for sizes in ((2, 3), (2, 2), ((3, 2),), ([6],), (4, 4), (1,)):
        vo, vt = o._version, t._version
        assert o.resize_(*sizes) is o
        t.resize_(*sizes)
        assert o.shape == tuple(t.shape) and o.stride() == t.stride()
        assert o._version - vo == t._version - vt == 1
        n = min(o.numel(), 6)   # (t.numpy() would make t's storage unresizable)
        assert o.reshape(-1).tolist()[:n] == t.reshape(-1).tolist()[:n]
    # the same shape keeps the strides
    o2 = otorch.arange(12.0).reshape(3, 4).t()
    t2 = torch.arange(12.0).reshape(3, 4).t()
    o2.resize_(4, 3)
    t2.resize_(4, 3)
    assert o2.stride() == t2.stride()
    # resize_as_
    z, zt = otorch.ones(2), torch.ones(2)
    z.resize_as_(otorch.zeros(2, 3))
    zt.resize_as_(torch.zeros(2, 3))
    assert z.shape == tuple(zt.shape)
    # a view inside its storage: from its storage offset, as torch
    b, bt = otorch.arange(6.0), torch.arange(6.0)
    v, vt = b[2:4], bt[2:4]
    v.resize_(3)
    vt.resize_(3)
    close(v, vt)
    assert v.storage_offset() == vt.storage_offset() and v._storage is b._storage


def test_resize_refusals():
    w = otorch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        w.resize_(2)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        torch.ones(3, requires_grad=True).resize_(2)
    with otorch.no_grad():
        with pytest.raises(RuntimeError, match="require grad"):
            w.resize_(2)
    assert w.shape == (3,) and w._version == 0
    nonleaf = otorch.ones(3) * w
    with pytest.raises(RuntimeError, match="require grad"):
        nonleaf.resize_(2)
    # growing memory that a view shares is refused (oar cannot move the view)
    b = otorch.arange(6.0)
    v = b[2:4]
    with pytest.raises(RuntimeError, match="share"):
        v.resize_(20)
    assert v.shape == (2,) and v._version == 0
    with pytest.raises(RuntimeError):
        b.resize_(-1)
    with pytest.raises(TypeError):
        b.resize_(2.5)
    assert b.shape == (6,) and b._version == 0


def test_as_strided_inplace_matches_torch():
    o, t = otorch.arange(8.0), torch.arange(8.0)
    ro = o.as_strided_((2, 2), (3, 1), 1)
    t.as_strided_((2, 2), (3, 1), 1)
    assert ro is o and o.shape == tuple(t.shape) and o.stride() == t.stride()
    assert o.storage_offset() == t.storage_offset()
    close(o, t)
    assert o._version == t._version == 1
    core = oar.arange(8).astype("float32")
    oar.as_strided_(core, [4], [2])
    assert core.tolist() == [0.0, 2.0, 4.0, 6.0]
    with pytest.raises(RuntimeError):
        core.as_strided_([100], [1])


# ---------------------------------------------------------------- var_mean, std_mean
@pytest.mark.parametrize("kw", [{}, dict(dim=1), dict(dim=0, keepdim=True),
                                dict(dim=1, correction=0), dict(unbiased=False)])
def test_var_mean_std_mean_match_torch(kw):
    a = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    for fn in ("var_mean", "std_mean"):
        o, t = both(a, grad=True)
        (vo, mo), (vt, mt) = getattr(otorch, fn)(o, **kw), getattr(torch, fn)(t, **kw)
        close(vo, vt)
        close(mo, mt)
        (vo.sum() + 2 * mo.sum()).backward()
        (vt.sum() + 2 * mt.sum()).backward()
        close(o.grad, t.grad, rtol=1e-5, atol=1e-6)
    v, m = oar.var_mean(oar.to_tensor(a), 1, True)   # positional unbiased, as torch
    close(v, torch.var_mean(torch.tensor(a), 1, True)[0])
    s, m = oar.std_mean(oar.to_tensor(a))
    close(s, torch.std_mean(torch.tensor(a))[0])


# ---------------------------------------------------------------- isclose, allclose
def test_isclose_allclose_match_torch_and_paddle():
    a = np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 1e-9], np.float32)
    b = np.array([1.0 + 1e-6, 2.1, np.nan, np.inf, np.inf, 0.0], np.float32)
    (oa, ta), (ob, tb) = both(a), both(b)
    for kw in ({}, dict(equal_nan=True), dict(rtol=0.1, atol=0.0), dict(rtol=0, atol=0)):
        np.testing.assert_array_equal(oar.isclose(oa, oa, **kw).numpy(),
                                      torch.isclose(ta, ta, **kw).numpy())
        np.testing.assert_array_equal(otorch.isclose(oa, ob, **kw).numpy(),
                                      torch.isclose(ta, tb, **kw).numpy())
        assert otorch.allclose(oa, ob, **kw) == torch.allclose(ta, tb, **kw)
    # broadcasting, integers, dtype mismatch and negative tolerances, as torch
    np.testing.assert_array_equal(oar.isclose(oar.to_tensor([1, 2]), oar.to_tensor([1, 3])).numpy(),
                                  torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])).numpy())
    assert bool(oar.allclose(oar.to_tensor([[1.0, 2.0]] * 2), oar.to_tensor([1.0, 2.0])))
    with pytest.raises(RuntimeError, match="did not match"):
        oar.isclose(oar.to_tensor([1.0]), oar.to_tensor([1.0], dtype="float64"))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        oar.isclose(oar.to_tensor([1.0]), oar.to_tensor([1.0]), rtol=-1)
    with pytest.raises(RuntimeError):
        oar.allclose(oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 2.0, 3.0]))
    # Paddle: allclose is a 0-d bool tensor
    p = pytest.importorskip("paddle")
    r = oar.allclose(oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0, 2.0000001]))
    pr = p.allclose(p.to_tensor([1.0, 2.0]), p.to_tensor([1.0, 2.0000001]))
    assert isinstance(r, oar.Tensor) and r.shape == list(pr.shape) and r.dtype == oar.bool
    assert bool(r) == bool(pr)
    assert oar.to_tensor([1.0]).allclose(oar.to_tensor([3.0])).item() is False
    assert otorch.tensor([1.0]).allclose(otorch.tensor([1.0])) is True


# ---------------------------------------------------------------- storage, .data
def test_storage_and_untyped_storage_match_torch():
    o = otorch.arange(6.0).reshape(2, 3)
    t = torch.arange(6.0).reshape(2, 3)
    for f in (lambda x: x[1], lambda x: x.t(), lambda x: x.view(6)):
        assert (f(o).untyped_storage().data_ptr() == o.untyped_storage().data_ptr()) == (
            f(t).untyped_storage().data_ptr() == t.untyped_storage().data_ptr()) is True
    assert o.clone().untyped_storage().data_ptr() != o.untyped_storage().data_ptr()
    assert o.untyped_storage().nbytes() == t.untyped_storage().nbytes()
    assert o.untyped_storage().size() == t.untyped_storage().size()
    assert len(o.untyped_storage()) == len(t.untyped_storage())
    assert o[1].untyped_storage() == o.untyped_storage()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = t.storage()
    s = o.storage()
    assert s.size() == ts.size() and s.nbytes() == ts.nbytes() and s.tolist() == ts.tolist()
    assert s.data_ptr() == o.data_ptr() and s.element_size() == ts.element_size()
    assert s.untyped().nbytes() == 24 and s[4] == 4.0


def test_data_attribute_both_doors():
    for make, tref in ((otorch.tensor, torch.tensor),):
        w = make([1.0, 2.0], requires_grad=True)
        wt = tref([1.0, 2.0], requires_grad=True)
        d, dt = w.data, wt.data
        assert d.requires_grad == dt.requires_grad and d._storage is w._storage
        d.mul_(2)
        dt.mul_(2)
        close(w, wt)
        w.data = make([5.0, 6.0, 7.0])
        wt.data = tref([5.0, 6.0, 7.0])
        assert w.shape == tuple(wt.shape) and w.requires_grad and w.is_leaf
    p = pytest.importorskip("paddle")
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    px = p.to_tensor([1.0, 2.0], stop_gradient=False)
    assert x.data.stop_gradient == px.data.stop_gradient
    x.data = oar.to_tensor([3.0])
    px.data = p.to_tensor([3.0])
    assert x.tolist() == px.tolist() and x.stop_gradient == px.stop_gradient
    with pytest.raises(TypeError):
        x.data = [1.0]
