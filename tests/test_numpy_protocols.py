"""NumPy's protocols on tensors of both doors: np.asarray / numpy(), ufuncs (__array_ufunc__)
and reductions (__array_function__). Note [NumPy ufuncs on tensors] (oar/tensor.py) has the
decision; each row is compared with paddle 3.3.1 (Paddle door) or torch 2.13 (PyTorch door)."""
import numpy as np
import pytest

import oar
import oar.torch as otorch


def _paddle_pair(values, grad=False):
    paddle = pytest.importorskip("paddle")
    v = np.asarray(values, np.float32)
    return (oar.to_tensor(v.copy(), stop_gradient=not grad),
            paddle.to_tensor(v.copy(), stop_gradient=not grad))


def _torch_pair(values, grad=False):
    torch = pytest.importorskip("torch")
    v = np.asarray(values, np.float32)
    return (otorch.tensor(v.copy(), requires_grad=grad),
            torch.tensor(v.copy(), requires_grad=grad))


def _outcome(f):
    try:
        return f()
    except Exception as e:   # noqa: BLE001  (the oracle's outcome is the expected value)
        return e


# ------------------------------------------------------------------ np.asarray / numpy()
def test_paddle_door_asarray_and_numpy_never_bypass_the_counter():
    x, p = _paddle_pair([1, 2, 3])
    n, pn = x.numpy(), p.numpy()          # Paddle: numpy() is a copy
    n[0] = pn[0] = 100
    assert x.tolist() == p.tolist() == [1, 2, 3]
    a, pa = np.asarray(x), np.asarray(p)  # Paddle: a writable copy, and so in oar
    a[0] = pa[0] = 100
    assert p.tolist()[0] == x.tolist()[0] == 1 and x.inplace_version == 0
    x.add_(oar.to_tensor(1.0))               # a later in-place op does not show through it
    p.add_(__import__("paddle").to_tensor(1.0))
    assert a.tolist() == pa.tolist()
    v = np.asarray(x, copy=False)         # "never copy": a read-only view (Paddle copies anyway)
    with pytest.raises(ValueError):
        v[0] = 100
    g, pg = _paddle_pair([1, 2], grad=True)
    assert np.asarray(g).tolist() == np.asarray(pg).tolist() == [1, 2]   # no refusal


def test_torch_door_asarray_shares_memory_like_torch():
    x, t = _torch_pair([1, 2, 3])
    a, ta = np.asarray(x), np.asarray(t)
    a[0] = ta[0] = 100                    # PyTorch: np.asarray(t) shares memory
    assert x.tolist() == t.tolist() == [100, 2, 3]
    n, tn = x.numpy(), t.numpy()
    n[1] = tn[1] = 50
    assert x.tolist() == t.tolist() == [100, 50, 3]
    c, tc = np.array(x, copy=True), np.array(t, copy=True)
    c[2] = tc[2] = -1
    assert x.tolist() == t.tolist() == [100, 50, 3]
    assert np.asarray(x, dtype=np.float64).dtype == np.asarray(t, dtype=np.float64).dtype
    g, tg = _torch_pair([1, 2], grad=True)
    for obj in (g, tg):
        with pytest.raises(RuntimeError, match="requires grad"):
            np.asarray(obj)
        with pytest.raises(RuntimeError, match="requires grad"):
            np.array(obj)
    assert np.asarray(g.detach()).tolist() == [1, 2]


# ------------------------------------------------------------------ operator ufuncs
@pytest.mark.parametrize("pair", [_paddle_pair, _torch_pair], ids=["paddle", "torch"])
@pytest.mark.parametrize("row", [
    "np.add(t, 1)", "np.multiply(2, t)", "np.subtract(t, a)", "a + t", "t + a", "a - t",
    "np.float64(1) + t", "t * np.float32(2)", "np.negative(t)", "abs(-t)", "np.less(a, t)",
    "a < t", "a == t", "np.power(t, 2)", "np.divide(a, t)"])
def test_operator_ufuncs_return_tensors_of_the_door(pair, row):
    x, ref = pair([1, 2, 3])
    a = np.array([3.0, 2.0, 1.0], np.float32)
    ours = eval(row, {"np": np, "t": x, "a": a})
    theirs = _outcome(lambda: eval(row, {"np": np, "t": ref, "a": a}))
    assert type(ours) is type(x)          # a tensor of the operand's door
    want = (np.asarray(eval(row, {"np": np, "t": x.numpy(), "a": a}))
            if isinstance(theirs, Exception) else theirs.numpy())
    np.testing.assert_allclose(ours.numpy(), want, rtol=1e-6)
    if not isinstance(theirs, Exception):
        want_dtype = theirs.numpy().dtype
        if want_dtype == np.uint8:        # torch's __array_wrap__ turns bool into uint8
            want_dtype = np.dtype(bool)
        assert ours.numpy().dtype == want_dtype


@pytest.mark.parametrize("make", [
    lambda: oar.to_tensor([1.0, 2.0], stop_gradient=False),
    lambda: otorch.tensor([1.0, 2.0], requires_grad=True)], ids=["paddle", "torch"])
def test_operator_ufuncs_keep_autograd(make):
    x = make()
    a = np.array([3.0, 4.0], np.float32)
    y = np.add(x, 1) * (a + x)            # np.add and ndarray + tensor both recorded
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), a + 2 * x.detach().numpy() + 1)


# ------------------------------------------------------------------ other ufuncs
@pytest.mark.parametrize("row", ["np.exp(t)", "np.isfinite(t)", "np.add(t, 1, out=a)",
                                 "np.add(a, 1, out=t)", "np.add.reduce(t)", "np.sqrt(t)"])
def test_paddle_door_refuses_other_ufuncs_like_paddle(row):
    x, p = _paddle_pair([1, 2, 3])
    a = np.zeros(3, np.float32)
    with pytest.raises(TypeError):
        eval(row, {"np": np, "t": p, "a": a})     # the oracle refuses every ufunc
    with pytest.raises(TypeError, match="Fix"):
        eval(row, {"np": np, "t": x, "a": a})
    assert x.tolist() == [1, 2, 3] and not a.any()


def test_paddle_door_in_place_ndarray_op_refused():
    x, p = _paddle_pair([1, 2, 3])
    a = np.ones(3)
    with pytest.raises(TypeError):
        a += p
    with pytest.raises(TypeError, match="t.numpy()"):
        a += x
    a += x.numpy()
    assert a.tolist() == [2, 3, 4]


@pytest.mark.parametrize("row", ["np.exp(t)", "np.sqrt(t)", "np.isfinite(t)",
                                 "np.add.reduce(t)", "np.maximum(t, 2)", "np.matmul(t, t)"])
def test_torch_door_other_ufuncs_like_torch(row):
    x, t = _torch_pair([1, 2, 3])
    ours = eval(row, {"np": np, "t": x})
    theirs = eval(row, {"np": np, "t": t})
    assert type(ours) is otorch.Tensor and type(theirs).__name__ == "Tensor"
    want = theirs.numpy()
    if want.dtype == np.uint8:            # torch's __array_wrap__ turns bool into uint8
        want = want.astype(bool)
    np.testing.assert_allclose(ours.numpy(), want, rtol=1e-6)
    assert ours.numpy().dtype == want.dtype


def test_torch_door_ufunc_with_grad_refused_like_torch():
    x, t = _torch_pair([1, 2], grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        np.exp(t)
    with pytest.raises(RuntimeError, match="requires grad"):
        np.exp(x)


def test_torch_door_out_like_torch():
    x, t = _torch_pair([1, 2, 3])
    a, b = np.zeros(3, np.float32), np.zeros(3, np.float32)
    r, tr = np.add(x, 1, out=a), np.add(t, 1, out=b)   # writes the ndarray, returns it
    assert r is a and tr is b and a.tolist() == b.tolist() == [2, 3, 4]
    with pytest.raises(TypeError):
        np.add(a, 1, out=t)
    with pytest.raises(TypeError, match="Fix"):
        np.add(a, 1, out=x)
    assert x.tolist() == [1, 2, 3]


# ------------------------------------------------------------------ reductions
@pytest.mark.parametrize("row", ["np.sum(t)", "np.sum(t, axis=0)", "np.mean(t)",
                                 "np.mean(t, axis=(0, 1))"])
def test_paddle_door_reductions_return_tensors_like_paddle(row):
    x, p = _paddle_pair([[1, 2, 3], [4, 5, 6]])
    ours = eval(row, {"np": np, "t": x})
    theirs = eval(row, {"np": np, "t": p})
    assert type(ours) is oar.Tensor and type(theirs).__name__ == "Tensor"
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    assert list(ours.shape) == list(theirs.shape)


@pytest.mark.parametrize("row", ["np.max(t)", "np.min(t, axis=1)", "np.prod(t, 0)",
                                 "np.any(t > 2)", "np.all(t > 0, axis=0)", "np.amax(t, 1)",
                                 "np.sum(t, 1, keepdims=True)"])
@pytest.mark.parametrize("make", [oar.to_tensor, otorch.tensor], ids=["paddle", "torch"])
def test_reductions_the_frameworks_fail_on_give_tensors(row, make):
    # the oracles raise a confusing TypeError here (Paddle: max() got 'out'; torch: sum()
    # got 'axis'); oar gives NumPy's meaning as a tensor of the door
    v = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    x = make(v.copy())
    ours = eval(row, {"np": np, "t": x})
    assert type(ours) is type(x)
    np.testing.assert_array_equal(ours.numpy(), eval(row, {"np": np, "t": v}))


@pytest.mark.parametrize("row", ["np.sum(t)", "np.mean(t)", "np.max(t)"])
def test_torch_door_reductions_torch_rejects(row):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        eval(row, {"np": np, "t": torch.ones(3)})   # the oracle: a TypeError
    assert type(eval(row, {"np": np, "t": otorch.ones(3)})) is otorch.Tensor


def test_reductions_keep_autograd():
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    np.mean(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [1 / 3] * 3)


@pytest.mark.parametrize("row", ["np.std(t)", "np.var(t, axis=0)", "np.sum(t, out=a)",
                                 "np.sum(t, where=t > 1)", "np.max(t, initial=5)"])
@pytest.mark.parametrize("make", [oar.to_tensor, otorch.tensor], ids=["paddle", "torch"])
def test_reductions_with_numpy_only_meanings_refused(row, make):
    x = make(np.array([1.0, 2.0, 3.0], np.float32))
    a = np.zeros((), np.float32)
    with pytest.raises(TypeError, match="Fix"):
        eval(row, {"np": np, "t": x, "a": a})
    assert a == 0 and x.tolist() == [1, 2, 3]


def test_other_numpy_functions_work_on_an_ndarray_like_both_frameworks():
    torch = pytest.importorskip("torch")
    paddle = pytest.importorskip("paddle")
    v = np.array([1.0, 2.0, 3.0], np.float32)
    for ours, theirs in [(oar.to_tensor(v), paddle.to_tensor(v)),
                         (otorch.tensor(v), torch.tensor(v))]:
        for f in (lambda t: np.concatenate([t, t]), lambda t: np.stack([t, t]),
                  lambda t: np.where(v > 1, t, 0)):
            r, want = f(ours), f(theirs)
            assert type(r) is np.ndarray and type(want) is np.ndarray
            np.testing.assert_array_equal(r, want)
        assert np.shape(ours) == (3,) and np.allclose(ours, v)
        np.testing.assert_allclose(ours, v)
