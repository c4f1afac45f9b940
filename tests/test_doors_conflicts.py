"""The conflict table (docs/doors.md): every row in both doors, against both frameworks.

The Paddle door (`oar`, core tensors) is compared with paddle 3.3.1, the PyTorch door
(`oar.torch`, its tensors) with torch 2.13; each oracle is imported inside the test that needs
it, so a missing one skips only its half. Expected values come from the oracles (or NumPy),
never from oar. Note [Door conflicts] (oar/torch/_functions.py).
"""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.torch._tensor import as_door

A = np.array([[1.0, 7.0, 3.0, 0.5], [2.0, -4.0, 6.0, 5.0], [9.0, 8.0, -1.0, 4.0]], "float32")
TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 1.0, 2.0], [4.0, 1.0, 2.0, 3.0]])


def torch_():
    return pytest.importorskip("torch")


def paddle_():
    pytest.importorskip("paddle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle
    return paddle


def T(a, requires_grad=False):
    """A PyTorch-door tensor (its own copy of a)."""
    t = as_door(oar.to_tensor(np.array(a)))
    return t.requires_grad_() if requires_grad else t


def P(a, requires_grad=False):
    """A Paddle-door (core) tensor (its own copy of a)."""
    return oar.to_tensor(np.array(a), stop_gradient=not requires_grad)


def tt(a, requires_grad=False):
    return torch_().tensor(np.array(a), requires_grad=requires_grad)


def pp(a, requires_grad=False):
    return paddle_().to_tensor(np.array(a), stop_gradient=not requires_grad)


def val(t):
    """An oar, torch or paddle tensor's values as an ndarray."""
    if hasattr(t, "detach") and not isinstance(t, oar.Tensor):
        t = t.detach()
    return np.asarray(t.numpy() if not isinstance(t, oar.Tensor) else t._data)


def same(ours, theirs, dtype=True):
    a, b = val(ours), val(theirs)
    assert a.shape == b.shape, (a.shape, b.shape)
    if dtype:
        assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, equal_nan=True)


def raises_like(ours, theirs):
    """Both calls raise; oar's error is an instance of the oracle's error class."""
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(type(want.value)):
        ours()


def is_torch_door(t):
    return type(t) is otorch.Tensor


# ============================================================================ 1. split
def test_split_int_paddle_door_is_number_of_pieces():
    paddle = paddle_()
    for ours, theirs in ((oar.split(P(A), 2, 1), paddle.split(pp(A), 2, 1)),
                         (P(A).split(2, axis=1), pp(A).split(2, axis=1)),
                         (oar.split(P(A), [1, -1, 2], 1), paddle.split(pp(A), [1, -1, 2], 1)),
                         (P(A).chunk(2, 1), pp(A).chunk(2, 1)),
                         (P(A).unbind(1), paddle.unbind(pp(A), 1))):
        assert type(ours) is list and type(theirs) is list and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            same(o, t)
    x = P(A)
    assert all(p._storage is x._storage for p in x.split(2, 1))      # views
    raises_like(lambda: oar.split(P(A), 3, 1), lambda: paddle.split(pp(A), 3, 1))
    raises_like(lambda: P(A).chunk(3, 1), lambda: pp(A).chunk(3, 1))
    # PyTorch's keywords are refused, not read with Paddle's meaning (Paddle: TypeError)
    raises_like(lambda: oar.split(P(A), 2, dim=1), lambda: paddle.split(pp(A), 2, dim=1))


def test_split_int_torch_door_is_size_of_each_piece():
    torch = torch_()
    x = T(A)
    for ours, theirs in ((otorch.split(x, 1, 1), torch.split(tt(A), 1, 1)),
                         (x.split(3, dim=1), tt(A).split(3, dim=1)),
                         (x.split(2), tt(A).split(2)),
                         (x.split([1, 3], 1), tt(A).split([1, 3], 1)),
                         (otorch.split_with_sizes(x, [3, 1], 1), tt(A).split_with_sizes([3, 1], 1)),
                         (x.chunk(3, 1), tt(A).chunk(3, 1)),
                         (x.unbind(1), tt(A).unbind(1)),
                         (x.tensor_split(3, 1), tt(A).tensor_split(3, 1))):
        assert type(ours) is tuple and type(theirs) is tuple and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert is_torch_door(o) and o._storage is x._storage
            same(o, t)
    assert [list(p.shape) for p in otorch.split(T(np.zeros((0, 2), "float32")), 2)] == \
        [list(p.shape) for p in torch.split(torch.zeros(0, 2), 2)]
    raises_like(lambda: x.split(0), lambda: tt(A).split(0))
    raises_like(lambda: x.split([-1, 5], 1), lambda: tt(A).split([-1, 5], 1))
    raises_like(lambda: x.split([1, 1], 1), lambda: tt(A).split([1, 1], 1))


def test_split_gradients_match_torch():
    torch = torch_()
    x, y = T(A, True), tt(A, True)
    w = np.arange(12.0, dtype="float32").reshape(3, 4)
    (x.split(3, 1)[1] * T(w[:, 3:])).sum().backward()
    (y.split(3, 1)[1] * torch.tensor(w[:, 3:])).sum().backward()
    same(x.grad, y.grad)


# ============================================================================ 2. max/min & co
TORCH_REDUCTIONS = [
    ("max", (1,)), ("max", (0, True)), ("min", (1,)), ("min", (-1, True)),
    ("median", (1,)), ("median", (0, True)), ("kthvalue", (2, 1)), ("kthvalue", (1, 0, True)),
    ("mode", (1,)), ("sort", (1,)), ("sort", (0, True)), ("topk", (2,)), ("topk", (2, 0, False)),
    ("cummax", (1,)), ("cummin", (0,)),
]


@pytest.mark.parametrize("name,args", TORCH_REDUCTIONS, ids=lambda v: str(v))
def test_torch_door_reductions_return_named_tuples(name, args):
    torch = torch_()
    x, y = T(A, True), tt(A, True)
    r, e = getattr(x, name)(*args), getattr(y, name)(*args)
    assert type(r).__name__ == type(e).__name__ == name
    assert isinstance(r, tuple) and len(r) == 2 and type(r).__module__ == "torch.return_types"
    values, indices = r                                           # unpackable
    assert values is r.values is r[0] and indices is r.indices is r[1]
    assert is_torch_door(values) and is_torch_door(indices)
    same(values, e.values)
    same(indices, e.indices)                                      # A has no ties
    same(getattr(otorch, name)(x, *args).values, e.values)       # the function form
    # repr as torch prints it (grad_fn names aside: Note [Torch repr])
    r2, e2 = getattr(x.detach(), name)(*args), getattr(y.detach(), name)(*args)
    assert repr(r2) == repr(e2)
    # gradients flow to exactly the selected elements
    w = np.linspace(0.5, 2.0, values.numel(), dtype="float32").reshape(list(values.shape))
    (values * T(w)).sum().backward()
    (e.values * torch.tensor(w)).sum().backward()
    same(x.grad, y.grad)


def test_torch_door_max_other_forms():
    torch = torch_()
    x, y = T(A), tt(A)
    B = A[::-1].copy()
    same(x.max(T(B)), tt(A).max(torch.tensor(B)))
    same(otorch.min(x, T(B)), torch.min(y, torch.tensor(B)))
    same(otorch.max(x, other=T(B)), torch.max(y, other=torch.tensor(B)))
    same(x.max(), y.max())
    same(x.argsort(1, descending=True), y.argsort(1, descending=True))
    same(otorch.msort(x), torch.msort(y))
    mn, mx = otorch.aminmax(x, dim=1, keepdim=True)
    e = torch.aminmax(y, dim=1, keepdim=True)
    same(mn, e.min)
    same(mx, e.max)
    assert repr(otorch.aminmax(x)) == repr(torch.aminmax(y))
    # 0-d and bool inputs
    for a in (np.float32(2.5), np.array([True, False, True])):
        r, e = T(a).max(0), tt(a).max(0)
        same(r.values, e.values)
        same(r.indices, e.indices)
    raises_like(lambda: T(np.zeros((2, 0), "float32")).max(1), lambda: torch.zeros(2, 0).max(1))


def test_torch_door_ties_nan_and_shared_gradients():
    torch = torch_()
    for name, args in (("max", (1,)), ("min", (0,)), ("median", (1,)), ("mode", (1,)),
                       ("sort", (1,)), ("sort", (1, True)), ("cummax", (1,)), ("cummin", (1,))):
        r, e = getattr(T(TIES), name)(*args), getattr(tt(TIES), name)(*args)
        same(r.values, e.values)
        same(r.indices, e.indices)
    NAN = np.array([[1.0, np.nan, 3.0, np.nan], [2.0, 0.0, 1.0, 5.0]])
    for name, args in (("max", (1,)), ("median", (1,)), ("sort", (1,)), ("sort", (1, True)),
                       ("cummax", (1,)), ("topk", (2,))):
        r, e = getattr(T(NAN), name)(*args), getattr(tt(NAN), name)(*args)
        same(r.values, e.values)
        same(r.indices, e.indices)
    same(T(NAN).median(), tt(NAN).median())
    # median() and max() of all elements share the gradient among the tied elements
    for name in ("median", "max", "min"):
        x, y = T(TIES, True), tt(TIES, True)
        getattr(x, name)().backward()
        getattr(y, name)().backward()
        same(x.grad, y.grad)


def test_paddle_door_reductions_return_values():
    paddle = paddle_()
    for ours, theirs in ((oar.max(P(A), 1), paddle.max(pp(A), 1)),
                         (P(A).max(1, True), pp(A).max(1, True)),
                         (P(A).min([0, 1]), pp(A).min([0, 1])),
                         (oar.max(P(A), P(np.array(1))), paddle.max(pp(A), pp(np.array(1)))),
                         (oar.sort(P(A), 1), paddle.sort(pp(A), 1)),
                         (P(A).sort(0, descending=True), pp(A).sort(0, descending=True)),
                         (oar.argsort(P(A), 1), paddle.argsort(pp(A), 1)),
                         (oar.median(P(A), 1), paddle.median(pp(A), 1)),
                         (oar.median(P(TIES)), paddle.median(pp(TIES))),
                         (oar.median(P([3, 1, 2, 4])), paddle.median(pp([3, 1, 2, 4]))),
                         (oar.median(P(A), 1, keepdim=True), paddle.median(pp(A), 1, keepdim=True))):
        assert isinstance(ours, oar.Tensor)
        same(ours, theirs)
    for ours, theirs in ((oar.topk(P(A), 2), paddle.topk(pp(A), 2)),
                         (oar.topk(P(A), 1, axis=0, largest=False),
                          paddle.topk(pp(A), 1, axis=0, largest=False)),
                         (oar.kthvalue(P(A), 2, 1), paddle.kthvalue(pp(A), 2, 1)),
                         (oar.mode(P(TIES), 1), paddle.mode(pp(TIES), 1)),
                         (oar.median(P(A), 1, mode="min"), paddle.median(pp(A), 1, mode="min")),
                         (oar.cummax(P(A), 1), paddle.cummax(pp(A), 1)),
                         (oar.cummin(P(A)), paddle.cummin(pp(A)))):
        assert isinstance(ours, tuple) and len(ours) == 2
        same(ours[0], theirs[0])
        same(ours[1], theirs[1])
    r = oar.topk(P(A), 1)
    assert r.values is r[0] and r.indices is r[1]
    assert type(oar.topk(P(A), 1)).__name__ == type(paddle.topk(pp(A), 1)).__name__
    # PyTorch's spellings are refused in the Paddle door, as in Paddle
    raises_like(lambda: oar.max(P(A), dim=1), lambda: paddle.max(pp(A), dim=1))
    raises_like(lambda: oar.sort(P(A), dim=1), lambda: paddle.sort(pp(A), dim=1))
    with pytest.raises(TypeError, match="oar.maximum"):
        oar.max(P(A), P(A))    # Paddle reads a tensor as an axis (and fails on a float one)


PADDLE_GRADS = {
    "max": lambda m, x: m.max(x, 1), "sort": lambda m, x: m.sort(x, 1),
    "topk": lambda m, x: m.topk(x, 2)[0], "median_axis": lambda m, x: m.median(x, 1),
    "median_all": lambda m, x: m.median(x), "kthvalue": lambda m, x: m.kthvalue(x, 2, 1)[0],
}


@pytest.mark.parametrize("name", sorted(PADDLE_GRADS))
def test_paddle_door_reduction_gradients(name):
    paddle = paddle_()
    f = PADDLE_GRADS[name]
    # with ties, which tied element gets the gradient is unspecified, except where Paddle
    # shares it among all of them: median with one middle value (TIES' medians are 2, 2, 2.5
    # and 2 overall)
    for data in (A.astype("float64"),) + ((TIES[1:],) if name.startswith("median") else ()):
        x, y = P(data, True), pp(data, True)
        r, e = f(oar, x), f(paddle, y)
        same(r, e)
        w = np.linspace(0.5, 2.0, max(r.size, 1)).reshape(list(r.shape))
        (r * oar.to_tensor(w)).sum().backward()
        (e * paddle.to_tensor(w)).sum().backward()
        same(x.grad, y.grad)


# ============================================================================ 3. gather/scatter
IDX2 = np.array([[0, 3], [1, 1], [2, 0]])


def test_gather_both_doors():
    torch, paddle = torch_(), paddle_()
    i = np.array([2, 0, 2])
    same(oar.gather(P(A), P(i)), paddle.gather(pp(A), pp(i)))
    same(P(A).gather(P(np.array([3, 1])), 1), pp(A).gather(pp(np.array([3, 1])), 1))
    same(oar.gather(P(A), P(np.array(1))), paddle.gather(pp(A), pp(np.array(1))))
    same(oar.gather(P(A), 1, P(IDX2)), paddle.gather(pp(A), 1, pp(IDX2)))   # Paddle 3.3 too
    same(otorch.gather(T(A), 1, T(IDX2)), torch.gather(tt(A), 1, tt(IDX2)))
    same(T(A).gather(0, T(IDX2[:2, :2] % 3)), tt(A).gather(0, tt(IDX2[:2, :2] % 3)))
    raises_like(lambda: otorch.gather(T(A), T(i)), lambda: torch.gather(tt(A), tt(i)))
    # exact gradients, both doors
    G = np.arange(1.0, 10.0).reshape(3, 3).astype("float32")
    x, y = P(A, True), pp(A, True)
    (oar.gather(x, P(i)) * P(np.tile(G[:, :1], (1, 4)))).sum().backward()
    (paddle.gather(y, pp(i)) * pp(np.tile(G[:, :1], (1, 4)))).sum().backward()
    same(x.grad, y.grad)
    x, y = T(A, True), tt(A, True)
    (otorch.gather(x, 1, T(IDX2)) * T(G[:, :2])).sum().backward()
    (torch.gather(y, 1, tt(IDX2)) * torch.tensor(G[:, :2])).sum().backward()
    same(x.grad, y.grad)


def test_scatter_both_doors():
    torch, paddle = torch_(), paddle_()
    U = np.array([[10.0, 11.0, 12.0, 13.0], [20.0, 21.0, 22.0, 23.0]], "float32")
    for idx, overwrite in (([2, 0], True), ([1, 1], False)):
        same(oar.scatter(P(A), P(np.array(idx)), P(U), overwrite=overwrite),
             paddle.scatter(pp(A), pp(np.array(idx)), pp(U), overwrite=overwrite))
        x, u, y, v = P(A, True), P(U, True), pp(A, True), pp(U, True)
        (oar.scatter(x * 1, P(np.array(idx)), u, overwrite) * P(A)).sum().backward()
        (paddle.scatter(y * 1, pp(np.array(idx)), v, overwrite) * pp(A)).sum().backward()
        same(x.grad, y.grad)
        same(u.grad, v.grad)
    si = np.array([[1, 0, 2, 0]])
    same(otorch.scatter(T(A), 0, T(si), T(U[:1])), torch.scatter(tt(A), 0, tt(si), tt(U[:1])))
    same(otorch.scatter(T(A), 0, T(si), value=1.5), torch.scatter(tt(A), 0, tt(si), value=1.5))
    same(T(A).scatter(1, T(IDX2[:, :1]), T(U[:, :1].repeat(2, 0)[:3]), reduce="add"),
         tt(A).scatter(1, tt(IDX2[:, :1]), tt(U[:, :1].repeat(2, 0)[:3]), reduce="add"))
    x = T(A)
    assert x.scatter_(0, T(si), T(U[:1])) is x
    same(x, tt(A).scatter_(0, tt(si), tt(U[:1])))
    same(otorch.scatter_add(T(A), 0, T(si), T(U[:1])), torch.scatter_add(tt(A), 0, tt(si), tt(U[:1])))
    same(otorch.index_add(T(A), 1, T(np.array([0, 0])), T(A[:, :2])),
         torch.index_add(tt(A), 1, tt(np.array([0, 0])), tt(A[:, :2])))
    raises_like(lambda: otorch.scatter(T(A), T(si), T(U[:1])),
                lambda: torch.scatter(tt(A), tt(si), tt(U[:1])))
    x, y = T(A, True), tt(A, True)
    (otorch.scatter(x * 1, 0, T(si), T(U[:1])) * T(A)).sum().backward()
    (torch.scatter(y * 1, 0, tt(si), tt(U[:1])) * tt(A)).sum().backward()
    same(x.grad, y.grad)


def test_index_select_both_doors():
    torch, paddle = torch_(), paddle_()
    i = np.array([3, 0, 3])
    same(oar.index_select(P(A), P(i), 1), paddle.index_select(pp(A), pp(i), 1))
    same(P(A).index_select(P(i), axis=1), pp(A).index_select(pp(i), axis=1))
    same(oar.index_select(P(A), 1, P(i)), paddle.index_select(pp(A), 1, pp(i)))   # Paddle 3.3
    same(otorch.index_select(T(A), 1, T(i)), torch.index_select(tt(A), 1, tt(i)))
    same(T(A).index_select(1, T(i)), tt(A).index_select(1, tt(i)))
    raises_like(lambda: T(A).index_select(T(i), 1), lambda: tt(A).index_select(tt(i), 1))


# ============================================================================ 4. transpose
def test_transpose_both_doors():
    torch, paddle = torch_(), paddle_()
    B = np.arange(24.0).reshape(2, 3, 4)
    same(oar.transpose(P(B), [2, 0, 1]), paddle.transpose(pp(B), [2, 0, 1]))
    same(P(B).transpose([1, 0, 2]), pp(B).transpose([1, 0, 2]))
    same(P(B).transpose(0, 2), pp(B).transpose(0, 2))                       # Paddle 3.3 too
    same(otorch.transpose(T(B), 0, 2), torch.transpose(tt(B), 0, 2))
    same(T(B).transpose(-1, 1), tt(B).transpose(-1, 1))
    same(T(B).permute(2, 0, 1), tt(B).permute(2, 0, 1))
    same(P(B).permute([2, 0, 1]), pp(B).permute([2, 0, 1]))
    raises_like(lambda: T(B).transpose([1, 0, 2]), lambda: tt(B).transpose([1, 0, 2]))
    x = T(B)
    assert x.transpose_(0, 1) is x and list(x.shape) == [3, 2, 4]


# ============================================================================ 5. size, numel
def test_size_and_numel_both_doors():
    torch, paddle = torch_(), paddle_()
    x, p = P(A), pp(A)
    assert x.size == p.size == 12 and isinstance(x.size, int)
    assert list(x.size()) == list(p.size()) and x.size(1) == p.size(1) == 4
    n, m = x.numel(), p.numel()
    assert isinstance(n, oar.Tensor) and n.ndim == m.ndim == 0
    same(n, m)
    same(oar.numel(x), paddle.numel(p))
    t, y = T(A), tt(A)
    assert repr(t.size()) == repr(y.size()) == "torch.Size([3, 4])"
    assert repr(t.shape) == repr(y.shape)
    assert t.size(1) == y.size(1) and t.size(-2) == y.size(-2)
    assert t.numel() == y.numel() == otorch.numel(t) == torch.numel(y) == 12
    assert type(t.numel()) is int
    raises_like(lambda: t.size(2), lambda: y.size(2))
    assert repr(t.size()[1:]) == repr(y.size()[1:]) and repr(t.size() + (5,)) == repr(y.size() + (5,))


# ============================================================================ 6. numpy sharing
def test_torch_door_numpy_and_from_numpy_share_memory():
    torch = torch_()
    for make, lib in ((T, "oar"), (tt, "torch")):
        t = make(A)
        n = t.numpy()
        n[0, 0] = 100.0                         # through NumPy: the tensor sees it
        t.add_(1)                               # through the tensor: the array sees it
        assert n[0, 0] == 101.0 and float(t[0, 0]) == 101.0, lib
        v0 = t._version
        n[1, 1] = -7.0
        assert t._version == v0, lib            # Note [Shared memory with NumPy]: no bump
    a, b = np.arange(3.0), np.arange(3.0)
    ta, tb = otorch.from_numpy(a), torch.from_numpy(b)
    assert is_torch_door(ta) and str(ta.dtype) == str(tb.dtype) == "torch.float64"
    a[0] = b[0] = 9.0
    ta.mul_(2)
    tb.mul_(2)
    np.testing.assert_array_equal(a, b)
    same(ta, tb)
    nc = np.arange(6.0).reshape(2, 3).T
    same(otorch.from_numpy(nc), torch.from_numpy(nc.copy()))
    assert otorch.from_numpy(nc).data_ptr() == nc.__array_interface__["data"][0]
    for bad in (np.arange(3.0)[::-1], [1, 2], np.array(["a"])):
        raises_like(lambda: otorch.from_numpy(bad), lambda: torch.from_numpy(bad))
    g, h = T(A, True), tt(A, True)
    with pytest.raises(RuntimeError) as want:
        h.numpy()
    with pytest.raises(RuntimeError) as got:
        g.numpy()
    assert str(got.value) == str(want.value)
    np.testing.assert_array_equal(g.numpy(force=True), h.numpy(force=True))


def test_paddle_door_numpy_and_from_numpy_copy():
    paddle = paddle_()
    for make in (P, pp):
        t = make(A)
        n = t.numpy()
        n[0, 0] = 100.0
        assert float(t[0, 0]) == 1.0
    for conv in (oar.from_numpy, paddle.from_numpy):
        a = np.arange(3.0)
        t = conv(a)
        a[0] = 9.0
        assert float(t[0]) == 0.0


# ============================================================================ 7. repr, format
REPR_CASES = [
    np.float32(3.5), np.array([1.0, 2.0], "float32"), np.arange(6.0).reshape(2, 3).astype("float32"),
    np.array([1, 2]), np.array([True, False]), np.array([1.5, 2.25], "float32"),
    np.array([1e10, 1.0], "float32"), np.array([-1.5, 2.0, np.nan, np.inf], "float32"),
    np.zeros((0, 3), "float32"), np.zeros((0,), "float32"), np.array([0.0001, 123456.0], "float32"),
    np.arange(2000.0).astype("float32"), np.arange(24).reshape(2, 3, 4), np.float32(-0.0),
    np.array(7), np.array(True), np.array([1e-5, 1.0], "float32"), np.array([123.456789], "float32"),
    np.linspace(-1, 1, 30).astype("float32"), np.arange(1500).reshape(30, 50).astype("float32"),
    np.array([1.0, 2.0]), np.float64(2.5), np.array([1, 2], "int32"), np.zeros((0,), "int64"),
    np.zeros((2, 0), "int32"), np.zeros((2, 0, 3), "float32"), np.zeros((1, 0)),
    np.array([1.0, 2.0], "float16"), np.array([3], "uint8"),
    np.array([np.nan, np.nan], "float32"), np.array([0.0, 0.0], "float32"),
    np.random.default_rng(0).standard_normal((4, 5)).astype("float32"),
    np.arange(100).reshape(10, 10) * 123456789, np.array(1e20, "float32"),
]


@pytest.mark.parametrize("k", range(len(REPR_CASES)))
def test_repr_both_doors(k):
    a = REPR_CASES[k]
    assert repr(T(a)) == repr(torch_().from_numpy(np.array(a)))
    assert str(T(a)) == str(torch_().from_numpy(np.array(a)))
    assert repr(P(a)) == repr(paddle_().to_tensor(np.array(a)))


def test_torch_door_repr_suffixes_and_parameter():
    torch = torch_()
    x, y = T([1.0, 2.0], True), tt([1.0, 2.0], True)
    assert repr(x) == repr(y)                                    # requires_grad=True
    assert repr(T(np.arange(200.0, dtype="float32"), True)) == \
        repr(torch.arange(200.0, requires_grad=True))
    assert repr(T(np.arange(200.0), True)) == \
        repr(torch.arange(200.0, dtype=torch.float64, requires_grad=True))   # dtype= wraps
    for ours, theirs in ((x * 2, y * 2), ((x * 2).sum(), (y * 2).sum())):
        want = repr(theirs).replace(theirs.grad_fn.name(), ours.grad_fn.name())
        assert repr(ours) == want
    assert repr(otorch.Parameter(T(np.ones(2, "float32")))) == repr(torch.nn.Parameter(torch.ones(2)))


def test_format_both_doors():
    torch, paddle = torch_(), paddle_()
    for a in (np.float32(3.5), np.array(3), np.array(True), np.float64(-0.125)):
        for spec in ("", ".2f", ">8", "e") if a.dtype.kind == "f" else ("", ">4"):
            assert format(T(a), spec) == format(torch.tensor(a), spec)
            assert format(P(a), spec) == format(paddle.to_tensor(a), spec)
        assert "{}".format(T(a)) == "{}".format(torch.tensor(a))
        assert f"{P(a)}" == f"{paddle.to_tensor(a)}"
    assert "{}".format(T(A)) == str(tt(A))
    assert "{}".format(P(A)) == str(pp(A))
    raises_like(lambda: format(T(A), ".2f"), lambda: format(tt(A), ".2f"))
    raises_like(lambda: format(P(A), ".2f"), lambda: format(pp(A), ".2f"))


# ============================================================================ 8. backward
def test_backward_of_a_non_scalar():
    torch, paddle = torch_(), paddle_()
    x, y = P(A, True), pp(A, True)
    (x * 3).backward()                                            # Paddle: implicit ones
    (y * 3).backward()
    same(x.grad, y.grad)
    t, u = T(A, True), tt(A, True)
    with pytest.raises(RuntimeError) as want:
        (u * 3).backward()
    with pytest.raises(RuntimeError) as got:
        (t * 3).backward()
    assert str(got.value) == str(want.value)
    assert t.grad is None
    (t[:1, :1] * 3).backward()                                    # one element: fine
    (u[:1, :1] * 3).backward()
    same(t.grad, u.grad)
    (t * 3).backward(T(np.ones_like(A)))
    (u * 3).backward(torch.ones(3, 4))
    same(t.grad, u.grad)
    assert is_torch_door(t.grad)


# ============================================================================ 9. promotion
PROMOTION = [
    ("int * 0.5", lambda m, x: x * 0.5), ("int / int", lambda m, x: x / x),
    ("int / 2", lambda m, x: x / 2), ("int // 2", lambda m, x: x // 2),
    ("int + True", lambda m, x: x + True), ("1.5 - int", lambda m, x: 1.5 - x),
    ("int ** 0.5", lambda m, x: x ** 0.5), ("int % 1.5", lambda m, x: x % 1.5),
    ("clip(int, 0.5)", lambda m, x: m.clip(x, 0.5)),
    ("clip(int, 0.5, 2.5)", lambda m, x: m.clip(x, 0.5, 2.5)),
    ("clip(int, 1, 2)", lambda m, x: m.clip(x, 1, 2)), ("sqrt(int)", lambda m, x: m.sqrt(x)),
    ("sum(int32)", lambda m, x: m.sum(x.astype("int32") if hasattr(x, "astype") else x.int())),
]


@pytest.mark.parametrize("name", [n for n, _ in PROMOTION])
def test_python_scalar_promotion_both_doors(name):
    torch, paddle = torch_(), paddle_()
    f = dict(PROMOTION)[name]
    I = np.array([1, 2, 3])
    same(f(otorch, T(I)), f(torch, tt(I)))
    same(f(oar, P(I)), f(paddle, pp(I)))
    if "clip" in name:
        assert str(f(otorch, T(I)).dtype) == str(f(torch, tt(I)).dtype)


def test_scale_of_an_int_tensor_paddle_door():
    paddle = paddle_()
    same(oar.scale(P([1, 2, 3]), 0.5), paddle.scale(pp([1, 2, 3]), 0.5))


# ============================================================================ 10. dtypes
def test_torch_door_dtypes_print_like_torch_and_equal_the_core():
    torch = torch_()
    for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                 "bool"):
        d, e = getattr(otorch, name), getattr(torch, name)
        assert repr(d) == repr(e) and str(d) == str(e)
        core = getattr(oar, name)
        assert d == core and core == d and hash(d) == hash(core) and {core: 1}[d] == 1
        assert d == name and d.is_floating_point == e.is_floating_point
        assert d.itemsize == e.itemsize and d.is_signed == e.is_signed
    for a in (A, np.array([1, 2]), np.array([True])):
        assert str(T(a).dtype) == str(tt(a).dtype)
        assert T(a).dtype == oar.to_tensor(a).dtype
        assert T(a).type() == tt(a).type()
    assert otorch.float == otorch.float32 and otorch.long == otorch.int64
    assert oar.zeros([2], dtype=otorch.float64).dtype == oar.float64
    assert T(A).type(otorch.float64).dtype == oar.float64
    assert str(T(A).type("torch.LongTensor").dtype) == str(tt(A).type("torch.LongTensor").dtype)
    assert T(A).to(otorch.int32).dtype == otorch.int32


# ============================================================================ 11. others
def test_cumsum_default_axis():
    torch, paddle = torch_(), paddle_()
    same(P(A).cumsum(), pp(A).cumsum())                           # Paddle: flattened
    same(T(A).cumsum(1), tt(A).cumsum(1))
    raises_like(lambda: T(A).cumsum(), lambda: tt(A).cumsum())    # PyTorch: dim required


def test_equal_and_allclose():
    torch, paddle = torch_(), paddle_()
    B = A.copy()
    B[0, 0] = 2.0
    same(oar.equal(P(A), P(B)), paddle.equal(pp(A), pp(B)))      # Paddle: elementwise
    same(oar.allclose(P(A), P(A)), paddle.allclose(pp(A), pp(A)))  # Paddle: a 0-d tensor
    for a, b in ((A, B), (A, A), (A, A[:1])):
        assert otorch.equal(T(a), T(b)) is torch.equal(tt(a), tt(b))
        assert T(a).equal(T(b)) is tt(a).equal(tt(b))
    assert otorch.allclose(T(A), T(A + 1e-9)) is torch.allclose(tt(A), tt(A + 1e-9))
    assert T(A).allclose(T(B)) is tt(A).allclose(tt(B))
    raises_like(lambda: otorch.allclose(T(A), T(A.astype("float64"))),
                lambda: torch.allclose(tt(A), tt(A.astype("float64"))))


def test_chunk_uneven():
    torch, paddle = torch_(), paddle_()
    v = np.arange(6.0)
    assert [list(p.shape) for p in T(v).chunk(4)] == [list(p.shape) for p in tt(v).chunk(4)]
    assert [list(p.shape) for p in P(v).chunk(3)] == [list(p.shape) for p in pp(v).chunk(3)]
    raises_like(lambda: P(v).chunk(4), lambda: pp(v).chunk(4))


def test_shape_type_and_repr():
    torch = torch_()
    assert isinstance(T(A).shape, tuple) and repr(T(A).shape) == repr(tt(A).shape)
    assert P(A).shape == [3, 4] and P(A).shape == (3, 4)           # Paddle compares to lists


# ============================================================================ mixed case
def test_mixed_doors_function_decides_meaning_operand_decides_class():
    torch, paddle = torch_(), paddle_()
    pieces = otorch.split(P(A), 1, 1)                 # PyTorch's meaning on a Paddle tensor
    assert len(pieces) == 4 and all(type(p) is oar.Tensor for p in pieces)
    pieces = oar.split(T(A), 2, 1)                    # Paddle's meaning on a PyTorch tensor
    assert len(pieces) == 2 and all(is_torch_door(p) for p in pieces)
    r = otorch.max(P(A), 1)
    assert type(r).__name__ == "max" and type(r.values) is oar.Tensor
    same(r.values, torch.max(tt(A), 1).values)
    v = oar.max(T(A), 1)
    assert is_torch_door(v)
    same(v, paddle.max(pp(A), 1))
    assert is_torch_door(T(A) + P(A)) and type(P(A) + T(A)) is oar.Tensor   # first operand


def test_documented_deviations_from_paddle():
    """Rows of docs/doors.md where the Paddle door keeps PyTorch's behaviour on purpose:
    checked against both oracles, so the table cannot go stale."""
    torch, paddle = torch_(), paddle_()
    I = np.array([1, 2, 3])
    with pytest.raises(TypeError):
        pp(I.astype("int32")) * pp(I)                            # Paddle: no int promotion
    with pytest.raises(TypeError, match="Type promotion only support"):
        P(I.astype("int32")) * P(I)                              # the Paddle door: the same
    same(T(I.astype("int32")) * T(I), tt(I.astype("int32")) * tt(I))   # PyTorch's promotion
    assert str(paddle.mean(pp(I)).dtype).endswith("int64")       # Paddle truncates
    raises_like(lambda: P(I).mean(), lambda: tt(I).mean())        # oar refuses, as PyTorch
    assert type(pp(A).stride()) is list and type(tt(A).stride()) is tuple
    assert type(P(A).stride()) is tuple
    assert T(A).shape == [3, 4] and tt(A).shape != [3, 4]         # shared code compares lists
