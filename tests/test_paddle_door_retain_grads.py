"""retain_grad / retain_grads on a tensor outside autograd, in each door against its framework.

Paddle 3.3.1's Tensor.retain_grads() on a tensor with stop_gradient=True (a leaf or the result of
ops on such tensors) does nothing: no error, and .grad stays None through a backward. PyTorch
2.13's Tensor.retain_grad() on a tensor that does not require grad raises RuntimeError. Found by
Paddle's own test_as_strided.py / test_tensor_unfold.py (tests/test_paddle_own_inplace.py), whose
integer cases call retain_grads() on such a tensor.
"""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch


def _paddle():
    pytest.importorskip("paddle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle
    return paddle


def _outside_autograd(fw, kind):
    """A tensor with stop_gradient=True: a leaf, or a result of ops on leaves outside autograd,
    or (noncontig) a transposed view."""
    x = fw.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    if kind == "leaf":
        return x
    if kind == "result":
        return x * 2 + 1
    return x.transpose([1, 0])


@pytest.mark.parametrize("kind", ["leaf", "result", "noncontig"])
def test_paddle_door_does_nothing_outside_autograd(kind):
    paddle = _paddle()
    results = []
    for fw in (paddle, oar):
        t = _outside_autograd(fw, kind)
        before = t.numpy().copy()
        assert t.retain_grads() is None
        if fw is oar:   # oar's extra spelling retain_grad (paddle 3.3.1 has none) is the same
            assert t.retain_grad() is None
        # a later backward through a graph that needs gradients leaves t's .grad alone
        w = fw.to_tensor(np.ones(t.shape, "float32"), stop_gradient=False)
        (t * w).sum().backward()
        results.append((t.grad is None, t.stop_gradient, np.array_equal(t.numpy(), before),
                        w.grad.numpy()))
    (pg, ps, pv, pw), (og, os_, ov, ow) = results
    assert (og, os_, ov) == (pg, ps, pv) == (True, True, True)
    np.testing.assert_array_equal(ow, pw)


def test_paddle_door_integer_tensor_with_stop_gradient_false():
    # Paddle's own test_tensor_unfold.py: an int32 x with stop_gradient=False; oar keeps
    # integer tensors out of autograd, so b is outside it, and retain_grads() must not raise
    paddle = _paddle()
    for fw in (paddle, oar):
        x = fw.to_tensor(np.arange(12, dtype="int32"))
        x.stop_gradient = False
        b = fw.unfold(x, -1, 2, 5) * 2
        b.retain_grads()   # raised RuntimeError in oar before


def test_paddle_door_still_retains_a_non_leaf_gradient():
    paddle = _paddle()
    grads = []
    for fw in (paddle, oar):
        a = fw.to_tensor(np.array([1.0, 2.0, 3.0], "float32"), stop_gradient=False)
        b = a * 2
        b.retain_grads()
        (b * b).sum().backward()
        grads.append(b.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


def test_torch_door_refuses_as_torch():
    torch = pytest.importorskip("torch")
    for lib, msg in ((torch, "requires_grad=False"), (otorch, "requires_grad=False")):
        with pytest.raises(RuntimeError, match=msg):
            lib.ones(2).retain_grad()
        with pytest.raises(RuntimeError, match=msg):
            (lib.ones(2) * 2).retain_grad()
    a = otorch.ones(3, requires_grad=True)
    ta = torch.ones(3, requires_grad=True)
    for t in (a, ta):
        b = t * 2
        b.retain_grad()
        (b * b).sum().backward()
    np.testing.assert_array_equal(np.asarray(a.grad.tolist()), ta.grad.numpy())
