"""Reductions, joins, gathers, indexing and view ops: values against NumPy (contiguous and
non-contiguous inputs) and gradients against finite differences (float64)."""
import numpy as np
import pytest

import oar
import oar.torch
from oar.autograd import gradcheck
from tests.conftest import noncontig

rng = np.random.default_rng(0)
A = rng.uniform(-2, 2, size=(3, 4, 5))
POS = rng.uniform(0.5, 2, size=(3, 4))

# name -> (oar fn, numpy reference, input, differentiable)
CASES = {
    "sum_all": (lambda x: x.sum(), lambda a: a.sum(), A, True),
    "sum_axis_keepdim": (lambda x: x.sum(axis=1, keepdim=True), lambda a: a.sum(1, keepdims=True), A, True),
    "sum_dim_list": (lambda x: oar.sum(x, dim=[0, 2]), lambda a: a.sum((0, 2)), A, True),
    "mean": (lambda x: x.mean(axis=-1), lambda a: a.mean(-1), A, True),
    "amax_axis": (lambda x: x.max(axis=2), lambda a: a.max(2), A, True),
    # PyTorch's max(dim) -> (values, indices): the PyTorch door's function (docs/doors.md)
    "max_torch_dim_values": (lambda x: oar.torch.max(x, dim=1)[0], lambda a: a.max(1), A, True),
    "max_torch_dim_indices": (lambda x: oar.torch.max(x, 1).indices, lambda a: a.argmax(1), A,
                              False),
    "max_paddle_axis": (lambda x: oar.max(x, 1), lambda a: a.max(1), A, True),
    "min_all": (lambda x: x.min(), lambda a: a.min(), A, True),
    "prod": (lambda x: x.prod(axis=0), lambda a: a.prod(0), POS, True),
    "prod_with_zero": (lambda x: x.prod(axis=1), lambda a: a.prod(1),
                       np.array([[1.5, 0.0, 2.0], [0.5, 3.0, 0.0], [1.0, 2.0, 3.0]]), True),
    "var": (lambda x: x.var(axis=1), lambda a: a.var(1, ddof=1), A, True),
    "var_biased": (lambda x: x.var(axis=1, unbiased=False), lambda a: a.var(1), A, True),
    "std": (lambda x: x.std(), lambda a: a.std(ddof=1), A, True),
    "logsumexp": (lambda x: x.logsumexp(axis=1), lambda a: np.log(np.exp(a).sum(1)), A, True),
    "argmax": (lambda x: x.argmax(axis=1), lambda a: a.argmax(1), A, False),
    "argmin_all": (lambda x: x.argmin(), lambda a: a.argmin(), A, False),
    "all": (lambda x: (x > -1).all(axis=0), lambda a: (a > -1).all(0), A, False),
    "any": (lambda x: (x > 1.9).any(), lambda a: (a > 1.9).any(), A, False),
    "cumsum": (lambda x: x.cumsum(axis=1), lambda a: a.cumsum(1), A, True),
    "concat": (lambda x: oar.concat([x, x * 2], axis=1), lambda a: np.concatenate([a, a * 2], 1), A, True),
    "cat_torch": (lambda x: oar.cat((x[0], x[1]), dim=0), lambda a: np.concatenate([a[0], a[1]]), A, True),
    "stack": (lambda x: oar.stack([x, x + 1], axis=1), lambda a: np.stack([a, a + 1], 1), A, True),
    "index_select": (lambda x: x.index_select(oar.to_tensor([2, 0, 2]), axis=1),
                     lambda a: a[:, [2, 0, 2]], A, True),
    "gather_torch": (lambda x: x.gather(1, oar.to_tensor([[[0, 1, 0, 2, 3]] * 2] * 3)),
                     lambda a: np.take_along_axis(a, np.array([[[0, 1, 0, 2, 3]] * 2] * 3), 1), A, True),
    "gather_paddle": (lambda x: oar.gather(x, oar.to_tensor([1, 1, 0])),
                      lambda a: a[[1, 1, 0]], A, True),
    "take_along_axis": (lambda x: oar.take_along_axis(x, oar.to_tensor(np.zeros((3, 1, 5), np.int64)), axis=1),
                        lambda a: a[:, :1], A, True),
    "adv_index": (lambda x: x[oar.to_tensor([0, 2, 0]), 1:3], lambda a: a[[0, 2, 0], 1:3], A, True),
    "bool_index": (lambda x: x[x > 0.5], lambda a: a[a > 0.5], A, True),
    "where": (lambda x: oar.where(x > 0, x, x * -3), lambda a: np.where(a > 0, a, -3 * a), A, True),
    "where_scalar": (lambda x: oar.where(x > 0, x, 0.0), lambda a: np.where(a > 0, a, 0.0), A, True),
    "flip": (lambda x: x.flip([0, 2]), lambda a: a[::-1, :, ::-1], A, True),
    "tile": (lambda x: x[0].tile([2, 1]), lambda a: np.tile(a[0], (2, 1)), A, True),
    "masked_fill": (lambda x: x.masked_fill(x > 1, 0.5), lambda a: np.where(a > 1, 0.5, a), A, True),
    "cast": (lambda x: x.astype("float32"), lambda a: a.astype(np.float32), A, False),
    "clone": (lambda x: x.clone(), lambda a: a.copy(), A, True),
    "reshape_copy": (lambda x: x.transpose([2, 0, 1]).reshape([5, 12]),
                     lambda a: a.transpose(2, 0, 1).reshape(5, 12), A, True),
    "view_chain": (lambda x: x.reshape([12, 5]).t()[1:4], lambda a: a.reshape(12, 5).T[1:4], A, True),
    "select": (lambda x: x.select(1, 2), lambda a: a[:, 2], A, True),
    "narrow": (lambda x: x.narrow(2, 1, 3), lambda a: a[:, :, 1:4], A, True),
    "diagonal": (lambda x: x.diagonal(offset=1, axis1=1, axis2=2), lambda a: np.diagonal(a, 1, 1, 2), A, True),
    "unfold": (lambda x: x.unfold(2, 3, 1), lambda a: np.lib.stride_tricks.sliding_window_view(a, 3, axis=2), A, True),
    "as_strided": (lambda x: x.contiguous().as_strided([4, 3], [2, 1], 1),
                   lambda a: np.lib.stride_tricks.as_strided(np.ascontiguousarray(a).reshape(-1)[1:], (4, 3), (16, 8)), A, True),
    "expand": (lambda x: x[:, :1].expand([3, 6, 5]), lambda a: np.broadcast_to(a[:, :1], (3, 6, 5)), A, True),
    "squeeze_unsqueeze": (lambda x: x[:, :1].squeeze(1).unsqueeze(0), lambda a: a[None, :, 0], A, True),
    "permute": (lambda x: x.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), A, True),
    "transpose_paddle": (lambda x: oar.transpose(x, [1, 0, 2]), lambda a: a.transpose(1, 0, 2), A, True),
    "moveaxis": (lambda x: oar.moveaxis(x, 0, -1), lambda a: np.moveaxis(a, 0, -1), A, True),
    "flatten": (lambda x: x.flatten(1, 2), lambda a: a.reshape(3, 20), A, True),
    "split_paddle": (lambda x: oar.split(x, 2, axis=1)[1], lambda a: a[:, 2:], A, True),
    "split_sections": (lambda x: oar.split(x, [1, -1], axis=0)[1], lambda a: a[1:], A, True),
    "chunk": (lambda x: oar.torch.chunk(x, 2, 2)[1], lambda a: a[:, :, 3:], A, True),  # uneven
    "unbind": (lambda x: x.unbind(axis=1)[3], lambda a: a[:, 3], A, True),
    "tensor_split": (lambda x: x.tensor_split([1, 3], axis=2)[1], lambda a: a[:, :, 1:3], A, True),
    "matmul_T": (lambda x: x @ x.mT, lambda a: a @ np.swapaxes(a, -1, -2), A, True),
    "index_add": (lambda x: x.index_add(0, oar.to_tensor([0, 0]), x[:2] * 3),
                  lambda a: a + np.stack([3 * a[0] + 3 * a[1], 0 * a[0], 0 * a[0]]), A, True),
    "scatter": (lambda x: x[0].scatter(1, oar.to_tensor([[1, 0, 2, 3, 4]] * 4), x[1]),
                lambda a: _np_scatter(a[0], 1, np.array([[1, 0, 2, 3, 4]] * 4), a[1]), A, True),
}


def _np_scatter(a, axis, idx, src):
    out = a.copy()
    np.put_along_axis(out, idx, src[tuple(slice(0, n) for n in idx.shape)], axis)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_against_numpy(name):
    fn, ref, a, _ = CASES[name]
    expect = ref(a)
    for make in (oar.to_tensor, noncontig):
        x = make(a)
        out = fn(x)
        np.testing.assert_allclose(out.numpy(), expect, rtol=1e-10, atol=1e-12)
        assert list(out.shape) == list(np.shape(expect))
        np.testing.assert_array_equal(x.numpy(), a)   # input untouched
        assert x.inplace_version == 0


@pytest.mark.parametrize("name", sorted(k for k, v in CASES.items() if v[3]))
def test_gradcheck(name):
    fn, _, a, _ = CASES[name]
    x = oar.to_tensor(a[..., :3] if a.ndim == 3 and name not in _FULL else a, stop_gradient=False)
    assert gradcheck(fn, [x])


_FULL = {"gather_torch", "take_along_axis", "unfold", "narrow", "diagonal", "chunk",
         "tensor_split", "index_select", "as_strided", "expand", "split_paddle", "unbind",
         "matmul_T", "scatter", "view_chain", "flatten", "reshape_copy", "index_add",
         "tile", "split_sections", "adv_index", "permute", "moveaxis", "transpose_paddle",
         "squeeze_unsqueeze", "select", "bool_index"}


def test_double_backward():
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = (x * x * x).sum()
    (g,) = oar.grad(y, x, create_graph=True)
    (g2,) = oar.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), 6 * np.array([1.0, 2, 3]))
    x2 = oar.to_tensor([0.5, 1.0], dtype="float64", stop_gradient=False)
    (ge,) = oar.grad(x2.exp().sum(), x2, create_graph=True)   # exp saves its output
    (ge2,) = oar.grad(ge.sum(), x2)
    np.testing.assert_allclose(ge2.numpy(), np.exp([0.5, 1.0]))


def test_grad_allow_unused_and_errors():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    z = oar.to_tensor([1.0], stop_gradient=False)
    y = (x * 2).sum()
    with pytest.raises(ValueError, match="does not appear in the backward graph"):
        oar.grad(y, [x, z], retain_graph=True)
    gx, gz = oar.grad(y, [x, z], allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), [2, 2])
    assert gz is None and x.grad is None


def test_setitem_values_and_broadcast():
    x = oar.zeros([3, 4])
    x[1] = 2.0
    x[:, 1:3] = oar.to_tensor([5.0, 6.0])
    x[oar.to_tensor([0, 2]), 0] = oar.to_tensor([7.0, 8.0])
    x[x > 7.5] = -1.0
    ref = np.zeros((3, 4), np.float32)
    ref[1] = 2
    ref[:, 1:3] = [5, 6]
    ref[[0, 2], 0] = [7, 8]
    ref[ref > 7.5] = -1
    np.testing.assert_array_equal(x.numpy(), ref)
    assert x.inplace_version == 4
    with pytest.raises(ValueError, match="cannot be broadcast"):
        x[0] = oar.ones([2, 4])
    assert x.inplace_version == 4
    np.testing.assert_array_equal(x.numpy(), ref)


def test_index_put_accumulate():
    x = oar.zeros([3])
    x.index_put_((oar.to_tensor([0, 0, 1]),), oar.to_tensor([1.0, 1.0, 1.0]), accumulate=True)
    np.testing.assert_array_equal(x.numpy(), [2, 1, 0])


def test_creation_functions_both_spellings():
    assert oar.zeros([2, 3]).shape == [2, 3] and oar.zeros(2, 3).shape == (2, 3)
    assert oar.randn(3, 4).shape == [3, 4] and oar.rand([2]).dtype == oar.float32
    assert oar.ones([2], dtype="int64").dtype == oar.int64
    # paddle 3.3.1: an integer fill without a dtype is float32 (torch.full infers int64)
    assert oar.full([2, 2], 7).dtype == oar.float32 and oar.full([2], 1.5).dtype == oar.float32
    assert oar.torch.full((2, 2), 7).dtype == oar.torch.int64
    np.testing.assert_array_equal(oar.arange(5).numpy(), np.arange(5))
    assert oar.arange(0, 1, 0.25).dtype == oar.float32
    np.testing.assert_allclose(oar.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5))
    np.testing.assert_array_equal(oar.eye(3).numpy(), np.eye(3))
    x = oar.randn([2, 3])
    for f in (oar.zeros_like, oar.ones_like, oar.empty_like):
        assert f(x).shape == x.shape and f(x).dtype == x.dtype
    assert oar.full_like(x, 2.0).numpy().sum() == 12
    assert oar.to_tensor(1.5).dtype == oar.float32 and oar.to_tensor(3).dtype == oar.int64
    assert oar.to_tensor(np.zeros(2)).dtype == oar.float64
    assert oar.tensor([True, False]).dtype == oar.bool
    assert oar.randint(0, 5, [10]).dtype == oar.int64
    assert oar.randint(0, 5, [100]).numpy().max() < 5
    oar.seed(3)
    a = oar.randn([4])
    oar.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), oar.randn([4]).numpy())
    assert oar.normal(0.0, 1.0, [3]).shape == [3] and oar.uniform([3], min=0, max=1).numpy().min() >= 0


def test_new_tensor_methods_keep_dtype():
    x = oar.ones([2], dtype="float64")
    assert x.new_zeros([3, 2]).dtype == oar.float64 and x.new_zeros(3, 2).shape == [3, 2]
    assert x.new_ones([1]).numpy().tolist() == [1.0] and x.new_full([2], 7).numpy().tolist() == [7, 7]
    assert x.new_tensor([1, 2]).dtype == oar.float64 and x.new_empty([4]).shape == [4]


def test_repr_of_large_multidim_tensors_summarises():
    r = repr(oar.arange(3000).astype("float32").reshape([30, 100]))
    assert r.startswith("Tensor(shape=[30, 100], dtype=float32") and "..." in r
    assert len(r.splitlines()) < 40


def test_random_inplace_fills():
    x = oar.zeros([1000])
    assert x.uniform_(2.0, 3.0) is x and 2 <= x.numpy().min() and x.numpy().max() <= 3
    assert x.normal_(5.0, 0.1) is x and abs(x.numpy().mean() - 5) < 0.05
    x.bernoulli_(0.25)
    assert set(np.unique(x.numpy())) <= {0.0, 1.0} and x.inplace_version == 3


def test_metadata_inplace_ops():
    x = oar.arange(6).astype("float32").reshape([2, 3])
    v = x.reshape([6])
    r = x.reshape_([3, 2])
    assert r is x and list(x.shape) == [3, 2] and x.inplace_version == 1
    assert list(v.shape) == [6] and v.inplace_version == 1   # existing views keep their metadata
    x.transpose_([1, 0])
    assert list(x.shape) == [2, 3] and not x.is_contiguous() and x.inplace_version == 2
    with pytest.raises(ValueError, match="cannot change in place"):
        x.flatten_()
    assert list(x.shape) == [2, 3] and x.inplace_version == 2
    x.unsqueeze_(0).squeeze_(0).t_()
    assert list(x.shape) == [3, 2]
    # gradients through a metadata in-place op
    a = oar.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    b = a * 1
    b.t_()
    (b * oar.to_tensor(np.arange(6.0).reshape(3, 2))).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.arange(6.0).reshape(3, 2).T)


def test_out_argument():
    x = oar.to_tensor([1.0, 2.0])
    out = oar.zeros([2])
    r = oar.add(x, x, out=out)
    assert r is out and out.inplace_version == 1
    np.testing.assert_array_equal(out.numpy(), [2, 4])
    with pytest.raises(RuntimeError, match="out="):
        oar.mul(oar.to_tensor([1.0], stop_gradient=False), 2.0, out=oar.zeros([1]))


REFUSALS = {
    "matmul_ shape": lambda x: x.matmul_(oar.ones([4, 2])),
    "index_add_ source shape": lambda x: x.index_add_(0, oar.to_tensor([0]), oar.ones([2, 4])),
    "index_add_ index range": lambda x: x.index_add_(0, oar.to_tensor([7]), oar.ones([1, 4])),
    "scatter_ index range": lambda x: x.scatter_(1, oar.to_tensor([[9, 0, 0, 0]] * 4), oar.ones([4, 4])),
    "scatter_ index dims": lambda x: x.scatter_(1, oar.to_tensor([1, 2]), oar.ones([4, 4])),
    "index_put_ bounds": lambda x: x.index_put_((oar.to_tensor([5]),), oar.ones([4])),
    "setitem bounds": lambda x: x.__setitem__(9, 1.0),
    "setitem value shape": lambda x: x.__setitem__(0, oar.ones([3])),
    "copy_ shape": lambda x: x.copy_(oar.ones([3, 4])),
    "masked_fill_ mask shape": lambda x: x.masked_fill_(oar.ones([3], dtype="bool"), 0.0),
    "where_ shape": lambda x: oar.where_(oar.ones([4, 4], dtype="bool"), x, oar.ones([2, 4])),
    "fill_ tensor": lambda x: x.fill_(oar.ones([2])),
    "reshape_ numel": lambda x: x.reshape_([3, 3]),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_structured_inplace_refusals_change_nothing(name):
    x = oar.to_tensor(np.arange(16.0).reshape(4, 4).astype(np.float32))
    v = x.inplace_version
    with pytest.raises((ValueError, IndexError, TypeError, RuntimeError)):
        REFUSALS[name](x)
    assert x.inplace_version == v and x.shape == [4, 4] and x.dtype == oar.float32
    np.testing.assert_array_equal(x.numpy(), np.arange(16.0).reshape(4, 4))
