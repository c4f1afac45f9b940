"""Paddle's own tensor ops (oar/ops/paddle_ops.py): gather_nd, scatter_nd, scatter_nd_add,
index_sample, strided_slice, unstack, reverse, multiplex, combinations, crop, shard_index,
logspace.

Values, dtypes and float64 gradients (of a random cotangent) against paddle 3.3.1, function
and method spellings, non-contiguous inputs, finite differences (gradcheck), and errors with
Paddle's exception classes."""
import numpy as np
import pytest

import oar
from oar.autograd import gradcheck

paddle = pytest.importorskip("paddle")

RNG = np.random.default_rng(11)


def arr(*shape, dtype=np.float64):
    return RNG.uniform(-2.0, 2.0, size=shape).astype(dtype)


def nc(a):
    """The values of `a` as an oar tensor whose memory is not contiguous."""
    a = np.asarray(a)
    t = oar.to_tensor(np.stack([a, np.zeros_like(a)], -1))[..., 0]
    assert a.size <= 1 or not t.is_contiguous()
    return t


def _np(t):
    return t.numpy()


def same_as_paddle(fn_o, fn_p, arrays, grad=True, contiguous=True):
    """fn over oar tensors and over paddle tensors: values and dtype; for every float64
    input, the gradient of a random cotangent. Non-float inputs are passed as is."""
    def mk(door, a, g):
        if door is oar and not contiguous and a.dtype.kind == "f":
            t = nc(a)
            t.stop_gradient = not g
            return t
        return door.to_tensor(a, stop_gradient=not g)
    gs = [grad and a.dtype == np.float64 for a in arrays]
    xo = [mk(oar, a, g) for a, g in zip(arrays, gs)]
    xp = [mk(paddle, a, g) for a, g in zip(arrays, gs)]
    ro, rp = fn_o(*xo), fn_p(*xp)
    multi = isinstance(rp, (list, tuple))
    ros, rps = (list(ro), list(rp)) if multi else ([ro], [rp])
    assert len(ros) == len(rps)
    for a, b in zip(ros, rps):
        assert list(a.shape) == list(b.shape), (a.shape, b.shape)
        assert a.dtype.name == str(b.dtype).replace("paddle.", ""), (a.dtype, b.dtype)
        np.testing.assert_allclose(_np(a), b.numpy(), rtol=1e-12, atol=1e-12)
    if any(gs):
        cot = [arr(*b.shape) for b in rps]
        lo = sum((a * oar.to_tensor(c)).sum() for a, c in zip(ros, cot))
        lp = sum((b * paddle.to_tensor(c)).sum() for b, c in zip(rps, cot))
        lo.backward()
        lp.backward()
        for a, b, g in zip(xo, xp, gs):
            if g:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12,
                                           atol=1e-12)
    return ro


def gc(fn, *arrays):
    """Finite differences (float64) on non-contiguous inputs."""
    xs = [nc(a) for a in arrays]
    for x in xs:
        x.stop_gradient = False
    assert gradcheck(fn, xs)


def raises_like_paddle(fn_o, fn_p, *arrays):
    """oar raises an instance of the class paddle raises, leaving the operands unchanged."""
    xo = [oar.to_tensor(a) for a in arrays]
    before = [x.numpy().copy() for x in xo]
    with pytest.raises(Exception) as ep:
        fn_p(*[paddle.to_tensor(a) for a in arrays])
    with pytest.raises(type(ep.value)):
        fn_o(*xo)
    for x, b in zip(xo, before):
        np.testing.assert_array_equal(x.numpy(), b)


# ------------------------------------------------------------------ gather_nd, scatter_nd(_add)
GATHER_ND = [((2, 3, 4), [[1, -1], [0, 2], [1, 0]]),
             ((2, 3, 4), [[[1], [0]], [[1], [1]]]),
             ((2, 3, 4), [[1, 2, 3], [0, -3, -4]]),
             ((5,), [[4], [0], [4]]),
             ((2, 3), np.zeros((2, 0), np.int64))]


@pytest.mark.parametrize("shape,index", GATHER_ND)
@pytest.mark.parametrize("contiguous", [True, False])
def test_gather_nd(shape, index, contiguous):
    idx = np.asarray(index, np.int64)
    same_as_paddle(lambda x, i: oar.gather_nd(x, i), lambda x, i: paddle.gather_nd(x, i),
                   [arr(*shape), idx], contiguous=contiguous)
    same_as_paddle(lambda x, i: x.gather_nd(i), lambda x, i: x.gather_nd(i),
                   [arr(*shape), idx.astype(np.int32)])
    same_as_paddle(lambda x, i: oar.gather_nd(x, i, name=None), lambda x, i: paddle.gather_nd(x, i),
                   [np.arange(np.prod(shape), dtype=np.int32).reshape(shape), idx])


def test_gather_nd_gradcheck():
    idx = oar.to_tensor([[1, 0], [1, 0], [0, 2]])
    gc(lambda x: oar.gather_nd(x, idx), arr(2, 3, 4))


def test_gather_nd_errors():
    x = arr(2, 3)
    raises_like_paddle(oar.gather_nd, paddle.gather_nd, x, np.array([[5, 0]]))
    raises_like_paddle(oar.gather_nd, paddle.gather_nd, x, np.array([[0.0, 1.0]], np.float32))


SCATTER_ND = [((3, 4), [[1], [1], [-1]]),
              ((2, 3, 4), [[1, 2], [0, 0], [1, 2]]),
              ((2, 3, 4), [[[1, 2, 3], [0, 0, 0]]]),
              ((5,), [[4], [0], [4], [2]])]


@pytest.mark.parametrize("shape,index", SCATTER_ND)
@pytest.mark.parametrize("contiguous", [True, False])
def test_scatter_nd_add(shape, index, contiguous):
    idx = np.asarray(index, np.int64)
    ushape = idx.shape[:-1] + shape[idx.shape[-1]:]
    same_as_paddle(lambda x, i, u: oar.scatter_nd_add(x, i, u),
                   lambda x, i, u: paddle.scatter_nd_add(x, i, u),
                   [arr(*shape), idx, arr(*ushape)], contiguous=contiguous)
    same_as_paddle(lambda x, i, u: x.scatter_nd_add(i, u, name=None),
                   lambda x, i, u: x.scatter_nd_add(i, u),
                   [arr(*shape), idx, arr(*ushape)])
    same_as_paddle(lambda i, u: oar.scatter_nd(i, u, list(shape)),
                   lambda i, u: paddle.scatter_nd(i, u, list(shape)),
                   [idx, arr(*ushape)], contiguous=contiguous)
    same_as_paddle(lambda i, u: i.scatter_nd(u, shape), lambda i, u: i.scatter_nd(u, shape),
                   [idx, arr(*ushape).astype(np.float32)])


def test_scatter_nd_gradcheck():
    idx = oar.to_tensor([[1, 2], [1, 2], [0, 0]])
    gc(lambda x, u: oar.scatter_nd_add(x, idx, u), arr(2, 3, 4), arr(3, 4))


def test_scatter_nd_errors():
    x, u = arr(3, 4), arr(2, 4)
    raises_like_paddle(oar.scatter_nd_add, paddle.scatter_nd_add, x, np.array([[1], [5]]), u)
    raises_like_paddle(oar.scatter_nd_add, paddle.scatter_nd_add, x, np.array([[1], [2]]),
                       arr(2, 3))


# ------------------------------------------------------------------ index_sample
@pytest.mark.parametrize("contiguous", [True, False])
def test_index_sample(contiguous):
    idx = np.array([[0, 3, 3], [1, 2, 0], [3, 3, 3]], np.int64)
    same_as_paddle(lambda x, i: oar.index_sample(x, i), lambda x, i: paddle.index_sample(x, i),
                   [arr(3, 4), idx], contiguous=contiguous)
    same_as_paddle(lambda x, i: x.index_sample(i), lambda x, i: x.index_sample(i),
                   [arr(3, 4).astype(np.float32), idx.astype(np.int32)])
    gc(lambda x: oar.index_sample(x, oar.to_tensor(idx)), arr(3, 4))


def test_index_sample_errors():
    x = arr(3, 4)
    raises_like_paddle(oar.index_sample, paddle.index_sample, x, np.array([[0, -1]] * 3))
    raises_like_paddle(oar.index_sample, paddle.index_sample, x, np.array([[0, 7]] * 3))
    raises_like_paddle(oar.index_sample, paddle.index_sample, x, np.array([[0, 1]]))
    raises_like_paddle(oar.index_sample, paddle.index_sample, arr(3), np.array([0]))


# ------------------------------------------------------------------ strided_slice, crop
STRIDED = [([0, 1, 2], [1, 0, -1], [2, 3, -5], [1, 1, -2]),
           ([2], [10], [-10], [-1]),
           ([2], [-10], [10], [1]),
           ([2], [3], [-1], [-1]),
           ([2, 0], [0, -1], [4, -3], [3, -1]),
           ([1], [1], [1], [1])]


@pytest.mark.parametrize("axes,starts,ends,strides", STRIDED)
@pytest.mark.parametrize("contiguous", [True, False])
def test_strided_slice(axes, starts, ends, strides, contiguous):
    same_as_paddle(lambda x: oar.strided_slice(x, axes, starts, ends, strides),
                   lambda x: paddle.strided_slice(x, axes, starts, ends, strides),
                   [arr(2, 3, 4)], contiguous=contiguous)
    same_as_paddle(lambda x: x.strided_slice(axes, starts, ends, strides, name=None),
                   lambda x: x.strided_slice(axes, starts, ends, strides),
                   [arr(2, 3, 4).astype(np.float32)])


def test_strided_slice_tensor_bounds_and_gradcheck():
    # tensors for the bounds (paddle 3.3.1's own tensor-bounds path fails in dygraph with this
    # NumPy, a SystemError, so its reference is the same bounds as ints)
    same_as_paddle(lambda x: oar.strided_slice(x, [0], oar.to_tensor([3]), [oar.to_tensor(0)],
                                               oar.to_tensor([-1], dtype="int32")),
                   lambda x: paddle.strided_slice(x, [0], [3], [0], [-1]), [arr(5, 2)])
    raises_like_paddle(lambda x: oar.strided_slice(x, [-1], [0], [2], [1]),
                       lambda x: paddle.strided_slice(x, [-1], [0], [2], [1]), arr(3, 4))
    gc(lambda x: oar.strided_slice(x, [0, 1], [3, 0], [0, 4], [-2, 3]), arr(5, 4))
    raises_like_paddle(lambda x: oar.strided_slice(x, [0], [0], [2], [0]),
                       lambda x: paddle.strided_slice(x, [0], [0], [2], [0]), arr(3, 4))


@pytest.mark.parametrize("shape,offsets", [([-1, 2, 2], [1, 1, 1]), ([1, 2, 2], None),
                                           (None, None), ([2, -1, 3], [0, 1, 1])])
@pytest.mark.parametrize("contiguous", [True, False])
def test_crop(shape, offsets, contiguous):
    same_as_paddle(lambda x: oar.crop(x, shape, offsets), lambda x: paddle.crop(x, shape, offsets),
                   [arr(2, 3, 4)], contiguous=contiguous)
    r = oar.crop(oar.to_tensor(arr(2, 3, 4)), shape, offsets)
    assert r.is_contiguous()


def test_crop_errors_and_gradcheck():
    gc(lambda x: oar.crop(x, [2, 2], [1, 1]), arr(3, 4))
    raises_like_paddle(lambda x: oar.crop(x, [2, 3, 4], [1, 0, 0]),
                       lambda x: paddle.crop(x, [2, 3, 4], [1, 0, 0]), arr(2, 3, 4))


# ------------------------------------------------------------------ unstack, reverse
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack(axis):
    same_as_paddle(lambda x: oar.unstack(x, axis), lambda x: paddle.unstack(x, axis),
                   [arr(2, 3, 4)], contiguous=False)
    same_as_paddle(lambda x: x.unstack(axis=axis, num=x.shape[axis]),
                   lambda x: x.unstack(axis=axis, num=x.shape[axis]), [arr(2, 3, 4)])
    raises_like_paddle(lambda x: oar.unstack(x, -1, 3), lambda x: paddle.unstack(x, -1, 3),
                       arr(2, 3, 4))


@pytest.mark.parametrize("axis", [0, [0, 2], (1,), -1])
def test_reverse(axis):
    same_as_paddle(lambda x: oar.reverse(x, axis), lambda x: paddle.reverse(x, axis),
                   [arr(2, 3, 4)], contiguous=False)
    same_as_paddle(lambda x: x.reverse(axis, name=None), lambda x: x.reverse(axis),
                   [np.arange(24, dtype=np.int64).reshape(2, 3, 4)])


# ------------------------------------------------------------------ multiplex, combinations
@pytest.mark.parametrize("index", [[[1], [0], [2], [1]], [[2], [2], [2], [2]]])
def test_multiplex(index):
    idx = np.asarray(index, np.int32)
    same_as_paddle(lambda a, b, c, i: oar.multiplex([a, b, c], i),
                   lambda a, b, c, i: paddle.multiplex([a, b, c], i),
                   [arr(4, 3), arr(4, 3), arr(4, 3), idx], contiguous=False)
    same_as_paddle(lambda a, b, i: oar.multiplex((a, b), i, name=None),
                   lambda a, b, i: paddle.multiplex((a, b), i),
                   [arr(4, 2, 2), arr(4, 2, 2), idx % 2])
    for bad in (idx.astype(np.int64), idx.reshape(-1)):
        raises_like_paddle(lambda a, b, i: oar.multiplex([a, b], i),
                           lambda a, b, i: paddle.multiplex([a, b], i), arr(4, 3), arr(4, 3), bad)
    gc(lambda a, b: oar.multiplex([a, b], oar.to_tensor(idx % 2)), arr(4, 3), arr(4, 3))
    raises_like_paddle(lambda a, b, i: oar.multiplex([a, b], i),
                       lambda a, b, i: paddle.multiplex([a, b], i),
                       arr(4, 3), arr(4, 3), idx + 5)


@pytest.mark.parametrize("r,rep", [(2, False), (2, True), (3, False), (4, False), (0, False),
                                   (1, True)])
def test_combinations(r, rep):
    # (r = 0: an empty result; paddle leaves x.grad None there, oar gives zeros)
    same_as_paddle(lambda x: oar.combinations(x, r, rep), lambda x: paddle.combinations(x, r, rep),
                   [arr(3)], contiguous=False, grad=r > 0)
    same_as_paddle(lambda x: x.combinations(r=r, with_replacement=rep),
                   lambda x: x.combinations(r=r, with_replacement=rep),
                   [np.arange(4, dtype=np.int64)])


def test_combinations_errors_and_gradcheck():
    gc(lambda x: oar.combinations(x, 2, True), arr(4))
    raises_like_paddle(lambda x: oar.combinations(x, 2), lambda x: paddle.combinations(x, 2),
                       arr(2, 2))


# ------------------------------------------------------------------ shard_index, logspace
@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("args", [(20, 2, 0), (20, 2, 1, -5), (20, 3, 2), (7, 7, 3)])
def test_shard_index(dtype, args):
    lab = np.array([[16], [1], [19], [0], [6]], dtype) % args[0]
    same_as_paddle(lambda x: oar.shard_index(x, *args), lambda x: paddle.shard_index(x, *args),
                   [lab])
    same_as_paddle(lambda x: x.shard_index(*args), lambda x: x.shard_index(*args), [lab])


def test_shard_index_errors():
    lab = np.array([[16], [1]], np.int64)
    raises_like_paddle(lambda x: oar.shard_index(x, 20, 2, 3),
                       lambda x: paddle.shard_index(x, 20, 2, 3), lab)


@pytest.mark.parametrize("args,kw", [((0, 3, 4), {}), ((1, -2, 5), dict(base=2.0)),
                                     ((0, 3, 4), dict(base=2, dtype="int64")),
                                     ((0.5, 2.5, 3), dict(dtype="float64")),
                                     ((1, 1, 1), {}), ((0.6, 3.6, 3), dict(dtype="int64")),
                                     ((0, 3, 3), dict(base=2.5, dtype="int32")),
                                     ((0, 3, 4), dict(base=-2.0))])
def test_logspace(args, kw):
    o, p = oar.logspace(*args, **kw), paddle.logspace(*args, **kw)
    assert o.dtype.name == str(p.dtype).replace("paddle.", "")
    np.testing.assert_allclose(o.numpy(), p.numpy(), rtol=1e-6)
    o = oar.logspace(oar.to_tensor(0.0), oar.to_tensor(2.0), oar.to_tensor(3), name=None)
    np.testing.assert_allclose(o.numpy(), [1.0, 10.0, 100.0], rtol=1e-6)
    with pytest.raises(ValueError):
        paddle.logspace(0, 3, 0)
    with pytest.raises(ValueError):
        oar.logspace(0, 3, 0)


# ------------------------------------------------------------------ put_along_axis reduce modes
@pytest.mark.parametrize("reduce", ["assign", "add", "mul", "multiply", "mean", "amin", "amax"])
@pytest.mark.parametrize("include_self", [True, False])
def test_put_along_axis_reduce_modes(reduce, include_self):
    """The existing core put_along_axis against paddle 3.3.1 in every reduce mode, repeated
    indices included (values); gradients of x and values for add, and for assign with
    indices that do not repeat (the repeated case: the next test)."""
    idx = np.array([[0, 1, 0, 2], [1, 1, 1, 1]], np.int64)
    same_as_paddle(lambda x, i, v: oar.put_along_axis(x, i, v, 0, reduce, include_self),
                   lambda x, i, v: paddle.put_along_axis(x, i, v, 0, reduce, include_self),
                   [arr(3, 4), idx, arr(2, 4)], grad=reduce == "add" and include_self,
                   contiguous=False)
    if reduce == "assign":
        same_as_paddle(lambda x, i, v: oar.put_along_axis(x, i, v, 0, reduce, include_self),
                       lambda x, i, v: paddle.put_along_axis(x, i, v, 0, reduce, include_self),
                       [arr(3, 4), np.array([[0, 1, 2, 2], [1, 2, 0, 1]]), arr(2, 4)],
                       grad=include_self)


def test_put_along_axis_assign_repeated_indices_gradient():
    # paddle 3.3.1 gives the values' gradient only to the value written last
    same_as_paddle(lambda x, i, v: oar.put_along_axis(x, i, v, 0),
                   lambda x, i, v: paddle.put_along_axis(x, i, v, 0),
                   [arr(3, 4), np.array([[0, 1, 0, 2], [1, 1, 1, 1]]), arr(2, 4)])
    same_as_paddle(lambda x, i, v: oar.put_along_axis(x, i, v, 1),
                   lambda x, i, v: paddle.put_along_axis(x, i, v, 1),
                   [arr(3, 4), np.array([[3, 3, 0], [2, 2, 1], [0, 0, 0]]), arr(3, 3)])


# ------------------------------------------------------------------ method spellings of existing ops
@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_atleast_methods(name, shape):
    same_as_paddle(lambda x: getattr(x, name)(), lambda x: getattr(x, name)(),
                   [np.asarray(arr(*shape))])


@pytest.mark.parametrize("name", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_methods(name):
    same_as_paddle(lambda y: getattr(y, name)(dx=0.5, axis=0),
                   lambda y: getattr(y, name)(dx=0.5, axis=0), [arr(3, 4)], contiguous=False)
    same_as_paddle(lambda y, x: getattr(y, name)(x), lambda y, x: getattr(y, name)(x),
                   [arr(3, 4), np.sort(arr(4))])


# ------------------------------------------------------------------ transposed conv, string padding
@pytest.mark.parametrize("stride,k,dilation,padding", [
    (2, 3, 1, "same"), (2, 4, 1, "same"), (3, 3, 1, "same"), (1, 3, 2, "same"),
    (2, 3, 2, "same"), (1, 4, 1, "SAME"), (2, 3, 2, "valid")])
def test_conv2d_transpose_string_padding(stride, k, dilation, padding):
    # Paddle's SAME rule on the input's sizes (dilation dropped); an odd total is cropped at
    # the end, as Paddle's asymmetric padding
    same_as_paddle(
        lambda x, w: oar.nn.functional.conv2d_transpose(x, w, stride=stride, padding=padding,
                                                        dilation=dilation),
        lambda x, w: paddle.nn.functional.conv2d_transpose(x, w, stride=stride,
                                                           padding=padding, dilation=dilation),
        [arr(2, 2, 5, 6), arr(2, 3, k, k)])


def test_conv2d_transpose_padding_string_refused():
    x, w = oar.ones([1, 2, 4, 4]), oar.ones([2, 3, 3, 3])
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        oar.nn.functional.conv2d_transpose(x, w, padding="full")


# ------------------------------------------------------------------ batch norm in float64
def test_batch_norm_float64_uses_paddles_float32_momentum_and_epsilon():
    # paddle's kernel holds momentum and epsilon as float32 attributes: with double ones a
    # float64 layer's running statistics differed from paddle's by about 3e-9
    x = arr(8, 3, 4, 4)
    for lib in (oar, paddle):
        lib.set_default_dtype("float64")
    try:
        bo, bp = oar.nn.BatchNorm2D(3), paddle.nn.BatchNorm2D(3)
        yo, yp = bo(oar.to_tensor(x)), bp(paddle.to_tensor(x))
        np.testing.assert_allclose(yo.numpy(), yp.numpy(), rtol=1e-13, atol=1e-14)
        for a, b in ((bo._mean, bp._mean), (bo._variance, bp._variance)):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14, atol=1e-16)
        bo.eval()
        bp.eval()
        np.testing.assert_allclose(bo(oar.to_tensor(x)).numpy(), bp(paddle.to_tensor(x)).numpy(),
                                   rtol=1e-13, atol=1e-14)
    finally:
        for lib in (oar, paddle):
            lib.set_default_dtype("float32")
