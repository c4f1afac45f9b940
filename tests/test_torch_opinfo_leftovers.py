"""The OpInfo leftovers (tests/reference/test_opinfo_vs_torch.py KNOWN) fixed, each against
torch 2.13: cumsum_, conj_physical_, sgn's node, the *_copy ops' nodes, adaptive pooling as
one op, batch_norm of an empty 1-D input, normal with a non-contiguous mean."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import oar  # noqa: E402
import oar.torch as ot  # noqa: E402


def _pair(a, requires_grad=False):
    a = np.asarray(a)
    t = torch.tensor(a, requires_grad=requires_grad)
    o = ot.tensor(a, requires_grad=requires_grad)
    return t, o


def _same(o, t):
    assert tuple(o.shape) == tuple(t.shape)
    assert str(o.dtype) == str(t.dtype)
    np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy())


def _raises_like(fo, ft):
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(Exception) as eo:
        fo()
    assert isinstance(eo.value, type(et.value)), (type(eo.value), type(et.value))


# ------------------------------------------------------------------------------ cumsum_
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_inplace_matches_torch(dtype, dim):
    a = np.arange(12).reshape(3, 4).astype(dtype)
    t, o = _pair(a)
    tv, ov = t.t(), o.t()            # non-contiguous
    rt, ro = tv.cumsum_(dim), ov.cumsum_(dim)
    assert ro is ov and rt is tv
    _same(o, t)
    assert o._version == t._version == 1


def test_cumsum_inplace_zero_dim_and_dtype_equal():
    t, o = _pair(np.float32(3.0))
    _same(o.cumsum_(0), t.cumsum_(0))
    _same(o.cumsum_(-1, dtype=ot.float32), t.cumsum_(-1, dtype=torch.float32))


@pytest.mark.parametrize("case", ["no_dim", "bad_dim", "dtype", "bool", "leaf", "expanded"])
def test_cumsum_inplace_refusals_change_nothing(case):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t, o = _pair(a if case != "bool" else a > 2, requires_grad=(case == "leaf"))
    if case == "expanded":
        t, o = torch.ones(3).expand(2, 3), ot.ones(3).expand(2, 3)
    calls = {"no_dim": lambda x: x.cumsum_(), "bad_dim": lambda x: x.cumsum_(2),
             "dtype": lambda x: x.cumsum_(1, dtype=(torch.float64 if isinstance(x, torch.Tensor)
                                                    else ot.float64)),
             "bool": lambda x: x.cumsum_(0), "leaf": lambda x: x.cumsum_(0),
             "expanded": lambda x: x.cumsum_(1)}
    before = o.detach().numpy().copy()
    _raises_like(lambda: calls[case](o), lambda: calls[case](t))
    np.testing.assert_array_equal(o.detach().numpy(), before)
    assert o._version == 0


def test_cumsum_inplace_gradient_on_non_leaf():
    a = np.random.default_rng(0).standard_normal((3, 4))
    t, o = _pair(a, requires_grad=True)
    g = np.random.default_rng(1).standard_normal((3, 4))
    bt, bo = t * 2, o * 2
    bt.cumsum_(1)
    bo.cumsum_(1)
    assert bo.grad_fn.name() == bt.grad_fn.name() == "CumsumBackward0"
    bt.backward(torch.tensor(g))
    bo.backward(ot.tensor(g))
    np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_cumsum_inplace_has_no_torch_function_and_paddle_keeps_shape():
    assert not hasattr(torch, "cumsum_")
    # the Paddle door's cumsum_ (Paddle 3.3 has one) keeps x's dtype; without an axis it
    # flattens x in place as Paddle does (Note [Paddle's flattening cumsum_ and cumprod_],
    # tested against paddle in tests/test_paddle_exact2.py)
    w = oar.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert oar.cumsum_(w) is w and w.shape == [6] and w.inplace_version == 1
    x = oar.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = oar.cumsum_(x, axis=1)
    assert y is x
    np.testing.assert_array_equal(x.numpy(), np.cumsum(np.arange(6.).reshape(2, 3), 1))
    z = oar.to_tensor(np.arange(4, dtype=np.int64))
    np.testing.assert_array_equal(z.cumsum_().numpy(), np.cumsum(np.arange(4)))


# ------------------------------------------------------------------------------ conj_physical_
def test_conj_physical_inplace_matches_torch():
    for mod in (torch, ot):
        a = mod.ones(3, requires_grad=True)
        b = a * 2
        v = b._version
        assert b.conj_physical_() is b
        assert b._version == v + 1
        assert b.grad_fn.name() == "ConjPhysicalBackward1"
        b.sum().backward()
        np.testing.assert_array_equal(np.asarray(a.grad.tolist()), [2.0, 2.0, 2.0])
        # a view of a non-leaf: the base's history is rewritten
        b = a * 2
        b[1:].conj_physical_()
        assert b.grad_fn.name().endswith("CopySlices")
        # the function form, and an expanded tensor (nothing is written)
        x = mod.ones(2).expand(3, 2)
        assert mod.conj_physical_(x) is x and x._version == 1


def test_conj_physical_inplace_refusals():
    for fo, ft in ((lambda: ot.ones(3, requires_grad=True).conj_physical_(),
                    lambda: torch.ones(3, requires_grad=True).conj_physical_()),
                   (lambda: ot.conj_physical_([1.0]), lambda: torch.conj_physical_([1.0]))):
        _raises_like(fo, ft)
    a, at = ot.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    with ot.no_grad():
        u = a[1:]
    with torch.no_grad():
        ut = at[1:]
    _raises_like(lambda: u.conj_physical_(), lambda: ut.conj_physical_())
    assert u._version == 0


# ------------------------------------------------------------------------------ sgn
def test_sgn_is_its_own_op():
    a = np.array([-2.0, 0.0, 3.0])
    for name in ("sgn", "sign"):
        t, o = _pair(a, requires_grad=True)
        rt, ro = getattr(torch, name)(t), getattr(ot, name)(o)
        _same(ro, rt)
        assert ro.grad_fn.name() == rt.grad_fn.name()
        bt, bo = t * 1, o * 1
        getattr(bt, name + "_")()
        getattr(bo, name + "_")()
        assert bo.grad_fn.name() == bt.grad_fn.name()
    for dt in (np.int64, np.bool_):
        t, o = _pair(np.array([-2, 0, 3]).astype(dt))
        _same(ot.sgn(o), torch.sgn(t))


# ------------------------------------------------------------------------------ *_copy ops
_COPIES = [("view_copy", lambda m, x: m.view_copy(x, [2, 10])),
           ("view_copy", lambda m, x: m.view_copy(x, [-1])),
           ("diagonal_copy", lambda m, x: m.diagonal_copy(x)),
           ("diagonal_copy", lambda m, x: m.diagonal_copy(x, -1, 1, 0)),
           ("split_copy", lambda m, x: m.split_copy(x, 2)[1]),
           ("split_copy", lambda m, x: m.split_copy(x, 3, 1)[0])]


@pytest.mark.parametrize("k", range(len(_COPIES)))
def test_copy_ops_are_one_node_named_as_torch(k):
    _, f = _COPIES[k]
    a = np.random.default_rng(k).standard_normal((4, 5))
    t, o = _pair(a, requires_grad=True)
    rt, ro = f(torch, t), f(ot, o)
    _same(ro, rt)
    assert ro.grad_fn.name() == rt.grad_fn.name()
    assert rt.grad_fn.name().endswith("Backward0_copy")
    assert [type(n).__name__ for n, _ in ro.grad_fn.next_functions] == ["AccumulateGrad"]
    assert ro._base is None and ro.data_ptr() != o.data_ptr()
    g = np.random.default_rng(9).standard_normal(tuple(rt.shape))
    rt.backward(torch.tensor(g))
    ro.backward(ot.tensor(g))
    np.testing.assert_array_equal(o.grad.numpy(), t.grad.numpy())
    # writing the copy leaves the input alone
    with ot.no_grad():
        ro.fill_(7.0)
    np.testing.assert_array_equal(o.detach().numpy(), a)


# ------------------------------------------------------------------------------ adaptive pooling
@pytest.mark.parametrize("shape,size", [((2, 3, 8, 8), (5, 7)), ((3, 10, 9), (4, 3)),
                                        ((1, 2, 7, 5), (7, 5)), ((2, 3, 4, 3), (5, 6)),
                                        ((2, 2, 40, 37), (9, 11)), ((1, 1, 5, 5), (1, 3)),
                                        ((2, 3, 6, 6), (None, 4))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adaptive_avg_pool2d_one_op_exact(shape, size, dtype):
    """Values, gradient and double backward bit-identical to torch, one node as torch's
    (a 1x1 output is torch's mean: MeanBackward1, not this op)."""
    rng = np.random.default_rng(len(shape) + shape[-1])
    a = rng.standard_normal(shape).astype(dtype)
    t, o = _pair(a, requires_grad=True)
    rt = torch.nn.functional.adaptive_avg_pool2d(t, size)
    ro = ot.nn.functional.adaptive_avg_pool2d(o, size)
    _same(ro, rt)
    assert ro.grad_fn.name() == rt.grad_fn.name()
    assert [type(n).__name__ for n, _ in ro.grad_fn.next_functions] == ["AccumulateGrad"]
    g = rng.standard_normal(tuple(rt.shape)).astype(dtype)
    gt_in, go_in = torch.tensor(g, requires_grad=True), ot.tensor(g, requires_grad=True)
    (gt,) = torch.autograd.grad(rt, t, gt_in, create_graph=True)
    (go,) = ot.autograd.grad(ro, o, go_in, create_graph=True)
    _same(go, gt)
    assert go.grad_fn.name() == gt.grad_fn.name()
    h = rng.standard_normal(shape).astype(dtype)
    (ggt,) = torch.autograd.grad(gt, gt_in, torch.tensor(h))
    (ggo,) = ot.autograd.grad(go, go_in, ot.tensor(h))
    _same(ggo, ggt)


def test_adaptive_avg_pool_1d_and_int_refusal():
    a = np.random.default_rng(3).standard_normal((2, 3, 11))
    t, o = _pair(a, requires_grad=True)
    rt = torch.nn.functional.adaptive_avg_pool1d(t, 4)
    ro = ot.nn.functional.adaptive_avg_pool1d(o, 4)
    _same(ro, rt)
    rt.sum().backward()
    ro.sum().backward()
    _same(o.grad, t.grad)
    ti, oi = _pair(np.ones((1, 2, 4, 4), np.int64))
    _raises_like(lambda: ot.nn.functional.adaptive_avg_pool2d(oi, 3),
                 lambda: torch.nn.functional.adaptive_avg_pool2d(ti, 3))


# ------------------------------------------------------------------------------ batch_norm
@pytest.mark.parametrize("shape,stats,affine,training", [
    ((0,), 0, False, True), ((0,), 0, False, False), ((0,), 4, False, True),
    ((0, 3), 3, True, True), ((0, 3), 5, True, False), ((0, 3, 2), None, True, False)])
def test_batch_norm_of_an_empty_input(shape, stats, affine, training):
    """torch returns the empty input's clone (times weight[0], plus bias[0]) whatever its
    dims and the statistics' sizes; nothing is updated."""
    res = {}
    for m in (torch, ot):
        x = m.zeros(*shape, requires_grad=True)
        rm = None if stats is None else m.zeros(stats)
        rv = None if stats is None else m.ones(stats)
        w = m.ones(3, requires_grad=True) if affine else None
        b = m.zeros(3, requires_grad=True) if affine else None
        y = m.nn.functional.batch_norm(x, rm, rv, w, b, training=training)
        y.sum().backward()
        res[m] = (tuple(y.shape), y.grad_fn.name(), y._base is None,
                  tuple(x.grad.shape), None if rm is None else (rm.tolist(), rv.tolist()),
                  None if w is None else (w.grad.tolist(), b.grad.tolist()))
    assert res[ot] == res[torch]
