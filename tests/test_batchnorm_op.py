"""batch_norm as one op (Note [BatchNorm op]): PyTorch's node name and edges, what it saves,
and its first and second derivatives against torch 2.13 and finite differences."""
import gc

import numpy as np
import pytest

import oar
import oar.torch as ot

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

torch = pytest.importorskip("torch")


def _data(dt, shape=(4, 3, 5, 2), seed=0):
    rng = np.random.default_rng(seed)
    c = shape[1]
    return (rng.standard_normal(shape).astype(dt) * 3 + 1, rng.standard_normal(shape).astype(dt),
            rng.standard_normal(c).astype(dt), rng.standard_normal(c).astype(dt),
            rng.standard_normal(c).astype(dt), (rng.random(c) + 0.5).astype(dt))


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_node_name_and_next_functions_match_torch(training, affine):
    xn, _, wn, bn, rm, rv = _data(np.float32)
    x = ot.tensor(xn, requires_grad=True)
    w = ot.tensor(wn, requires_grad=True) if affine else None
    b = ot.tensor(bn, requires_grad=True) if affine else None
    y = ot.nn.functional.batch_norm(x * 2, ot.tensor(rm), ot.tensor(rv), w, b, training=training)
    tx = torch.tensor(xn, requires_grad=True)
    tw = torch.tensor(wn, requires_grad=True) if affine else None
    tb = torch.tensor(bn, requires_grad=True) if affine else None
    ty = torch.nn.functional.batch_norm(tx * 2, torch.tensor(rm), torch.tensor(rv), tw, tb,
                                        training=training)
    assert y.grad_fn.name() == ty.grad_fn.name()
    nf, tnf = y.grad_fn.next_functions, ty.grad_fn.next_functions
    assert len(nf) == len(tnf) == 3
    for (n, _), (tn, _) in zip(nf, tnf):
        assert (n is None) == (tn is None)
        if tn is not None:
            assert n.name() == tn.name()
    assert nf[0][0].name() == "MulBackward0"          # the input's node
    if affine:                                          # the parameters' AccumulateGrad
        assert nf[1][0].name() == nf[2][0].name() == "torch::autograd::AccumulateGrad"


def test_paddle_door_is_the_same_op():
    xn, _, wn, bn, rm, rv = _data(np.float32)
    x = oar.to_tensor(xn, stop_gradient=False)
    m = oar.nn.BatchNorm2D(3)
    y = m(x * 1)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    assert len(y.grad_fn.next_functions) == 3


def _alloc():
    return oar.device.memory_allocated()


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("training", [True, False])
def test_saves_only_its_input_and_two_per_channel_vectors(dt, training):
    """Bytes alive after the forward beyond the input: the output, plus mean and invstd
    (C values each) that the node keeps; the input itself is kept by reference."""
    n, c, h, w = 8, 6, 5, 4
    rng = np.random.default_rng(1)
    x = ot.tensor(rng.standard_normal((n, c, h, w)).astype(dt), requires_grad=True)
    h0 = x * 1                          # a non-leaf input (as a conv's output)
    weight = ot.ones(c, dtype=x.dtype, requires_grad=True)
    bias = ot.zeros(c, dtype=x.dtype, requires_grad=True)
    rmean, rvar = ot.zeros(c, dtype=x.dtype), ot.ones(c, dtype=x.dtype)
    item = np.dtype(dt).itemsize
    gc.collect()
    before = _alloc()
    y = ot.nn.functional.batch_norm(h0, rmean, rvar, weight, bias, training=training)
    gc.collect()
    # y (n*c*h*w) + mean and invstd (2 * c): nothing else of the input's size
    assert _alloc() - before == (n * c * h * w + 2 * c) * item
    del y
    gc.collect()
    assert _alloc() == before          # the node's saved statistics die with the graph


def test_running_statistics_both_momentum_conventions():
    xn, _, wn, bn, rm, rv = _data(np.float64)
    t_rm, t_rv = torch.tensor(rm.copy()), torch.tensor(rv.copy())
    torch.nn.functional.batch_norm(torch.tensor(xn), t_rm, t_rv, training=True, momentum=0.3)
    o_rm, o_rv = ot.tensor(rm.copy()), ot.tensor(rv.copy())
    ot.nn.functional.batch_norm(ot.tensor(xn), o_rm, o_rv, training=True, momentum=0.3)
    np.testing.assert_allclose(o_rm.numpy(), t_rm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(o_rv.numpy(), t_rv.numpy(), rtol=1e-12)
    p_rm, p_rv = oar.to_tensor(rm.copy()), oar.to_tensor(rv.copy())   # Paddle: keep = 0.7
    oar.nn.functional.batch_norm(oar.to_tensor(xn), p_rm, p_rv, training=True, momentum=0.7)
    # Paddle 3.3.1: the biased batch variance, and momentum held as a float32 attribute
    # (measured: test_breadth_paddle_ops.py compares a float64 BatchNorm2D with paddle's)
    axes = (0,) + tuple(range(2, xn.ndim))
    keep = float(np.float32(0.7))
    np.testing.assert_allclose(p_rm.numpy(), keep * rm + (1 - keep) * xn.mean(axis=axes),
                               rtol=1e-12)
    np.testing.assert_allclose(p_rv.numpy(), keep * rv + (1 - keep) * xn.var(axis=axes),
                               rtol=1e-12)


@pytest.mark.parametrize("dt,tol", [(np.float32, 2e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("which", ["all", "weight", "bias", "input"])
def test_gradients_match_torch(dt, tol, training, which):
    xn, gn, wn, bn, rm, rv = _data(dt)
    need = {"input": which in ("all", "input"), "weight": which in ("all", "weight"),
            "bias": which in ("all", "bias")}
    x = ot.tensor(xn, requires_grad=need["input"])
    w = ot.tensor(wn, requires_grad=need["weight"])
    b = ot.tensor(bn, requires_grad=need["bias"])
    y = ot.nn.functional.batch_norm(x, ot.tensor(rm), ot.tensor(rv), w, b, training=training)
    (y * ot.tensor(gn)).sum().backward()
    tx = torch.tensor(xn, requires_grad=need["input"])
    tw = torch.tensor(wn, requires_grad=need["weight"])
    tb = torch.tensor(bn, requires_grad=need["bias"])
    ty = torch.nn.functional.batch_norm(tx, torch.tensor(rm), torch.tensor(rv), tw, tb,
                                        training=training)
    (ty * torch.tensor(gn)).sum().backward()
    assert y.dtype == x.dtype
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    for o, t, k in ((x, tx, "input"), (w, tw, "weight"), (b, tb, "bias")):
        if need[k]:
            np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol * 10)
        else:
            assert o.grad is None


@pytest.mark.parametrize("training", [True, False])
def test_gradcheck_and_gradgradcheck(training):
    rng = np.random.default_rng(3)
    x = ot.tensor(rng.standard_normal((3, 2, 4)), requires_grad=True)
    w = ot.tensor(rng.standard_normal(2), requires_grad=True)
    b = ot.tensor(rng.standard_normal(2), requires_grad=True)
    rm, rv = ot.tensor(rng.standard_normal(2)), ot.tensor(rng.random(2) + 0.5)

    def f(x, w, b):
        return ot.nn.functional.batch_norm(x, rm, rv, w, b, training=training)
    assert ot.autograd.gradcheck(f, (x, w, b))
    assert ot.autograd.gradgradcheck(f, (x, w, b))


def test_second_derivative_matches_torch():
    xn, gn, wn, bn, rm, rv = _data(np.float64, shape=(3, 2, 4))
    x = ot.tensor(xn, requires_grad=True)
    w = ot.tensor(wn, requires_grad=True)
    y = ot.nn.functional.batch_norm(x, None, None, w, None, training=True)
    (gx,) = ot.autograd.grad((y * ot.tensor(gn)).sum(), x, create_graph=True)
    (gx * gx).sum().backward()
    tx = torch.tensor(xn, requires_grad=True)
    tw = torch.tensor(wn, requires_grad=True)
    ty = torch.nn.functional.batch_norm(tx, None, None, tw, None, training=True)
    (tgx,) = torch.autograd.grad((ty * torch.tensor(gn)).sum(), tx, create_graph=True)
    (tgx * tgx).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_mixed_dtypes_keep_the_composition_result_dtype():
    """Outside the op (Note [BatchNorm op]): a float64 weight on a float32 input promotes,
    as oar's composition always did (torch refuses mixed dtypes; oar keeps its behaviour)."""
    xn, gn, wn, *_ = _data(np.float32)
    x = ot.tensor(xn, requires_grad=True)
    w = ot.tensor(wn.astype(np.float64), requires_grad=True)
    y = ot.nn.functional.batch_norm(x, None, None, w, None, training=True)
    assert y.dtype == ot.float64
    assert y.grad_fn.name() != "NativeBatchNormBackward0"
    x64 = xn.astype(np.float64)
    m, v = x64.mean(axis=(0, 2, 3), keepdims=True), x64.var(axis=(0, 2, 3), keepdims=True)
    want = (x64 - m) / np.sqrt(v + 1e-5) * wn.astype(np.float64).reshape(1, -1, 1, 1)
    np.testing.assert_allclose(y.detach().numpy(), want, rtol=1e-5, atol=1e-5)
