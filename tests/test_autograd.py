"""The Inplace mechanism: leaf rule, history rebase, versioned saved tensors with provenance,
views, PyLayer, hooks, Paddle-specific behaviour."""
import inspect
import re

import numpy as np
import pytest

import oar
from oar.autograd import (GraphReleasedError, InplaceLeafError, InplaceViewError,
                          SavedTensorModifiedError)


def line_of(marker):
    src, start = inspect.getsourcelines(inspect.currentframe().f_back.f_code)
    for i, line in enumerate(src):
        if marker in line:
            return start + i
    raise AssertionError(marker)


def test_leaf_error_is_value_and_runtime_error_with_paddle_words():
    x = oar.randn([3, 4])
    x.stop_gradient = False
    with pytest.raises(InplaceLeafError) as e:
        x.scale_(2.0)
    assert isinstance(e.value, ValueError) and isinstance(e.value, RuntimeError)
    msg = str(e.value)
    # Paddle's words; the name is empty as in paddle until something reads x.name
    # (Note [Tensor names]; tests/test_paddle_fidelity.py checks it against paddle)
    assert re.search(r"Leaf Var \(\) that doesn't stop gradient can't use inplace "
                     "strategy", msg)
    assert "no_grad" in msg and "clone" in msg and "[3, 4]" in msg and "scale_" in msg


def test_leaf_error_before_write_and_check_order():
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    for bad in (lambda: x.add_(oar.ones([2, 3])), lambda: x.mul_(2), lambda: x.zero_(),
                lambda: x.reshape_([3, 1]), lambda: x.uniform_(), lambda: x.__setitem__(0, 5.0),
                lambda: x.clip_(0, 1), lambda: x.copy_(oar.ones([3]))):
        with pytest.raises(InplaceLeafError):
            bad()
        assert x.numpy().tolist() == [1, 2, 3] and x.inplace_version == 0 and list(x.shape) == [3]
    v = x[:2]
    with pytest.raises(InplaceLeafError, match="view"):
        v.add_(1.0)
    assert x.numpy().tolist() == [1, 2, 3]


def test_saved_tensor_error_names_op_versions_and_user_line():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = oar.exp(x)
    y.add_(oar.ones([2]))  # MODIFY-HERE
    y.mul_(2.0)
    with pytest.raises(SavedTensorModifiedError) as e:
        y.sum().backward()
    msg = str(e.value)
    assert "ExpBackward" in msg and "is at version 2; expected version 0" in msg
    assert "[float32 tensor of shape [2]]" in msg
    assert f"`add_` at {__file__}:{line_of('MODIFY-HERE')}" in msg


def test_saved_tensor_error_under_no_grad_modification_and_setitem():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    h = x * 1
    y = h.sin()
    with oar.no_grad():
        h[0] = 0.0  # SETITEM-HERE
    with pytest.raises(RuntimeError, match="SinBackward") as e:
        y.sum().backward()
    assert f"`__setitem__` at {__file__}:{line_of('SETITEM-HERE')}" in str(e.value)


def test_nonleaf_rebase_and_paddle_names():
    a = oar.randn([3, 4])
    a.stop_gradient = False
    x = a.scale(2.0)
    old = x.grad_fn
    y = x.scale_(2.0)
    assert y is x and x.inplace_version == 1 and x.grad_fn is not old
    assert x.grad_fn.next_functions[0][0] is old
    y.backward()            # non-scalar: implicit ones, like Paddle
    np.testing.assert_array_equal(a.grad.numpy(), np.full((3, 4), 4.0))


def test_stop_gradient_tensor_modified_by_grad_operand_becomes_nonleaf():
    x4 = oar.to_tensor([1.0, 2.0, 3.0])
    w = oar.to_tensor([1.0, 1.0, 1.0], stop_gradient=False)
    r = x4.add_(w)
    assert r is x4 and not x4.stop_gradient and not x4.is_leaf
    x4.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1, 1, 1])


def test_no_grad_inplace_on_leaf_then_backward():
    x2 = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    with oar.no_grad():
        x2.scale_(2.0)
    assert x2.inplace_version == 1 and x2.is_leaf and not x2.stop_gradient
    (x2 * 3).sum().backward()
    np.testing.assert_array_equal(x2.grad.numpy(), [3, 3, 3])


def test_backward_twice_and_accumulation():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4, 8])
    with pytest.raises(GraphReleasedError, match="retain_graph=True"):
        y.backward()
    x.clear_grad()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0])
    (x * 2).sum().backward(grad_tensor=oar.to_tensor(3.0))
    np.testing.assert_array_equal(x.grad.numpy(), [6, 6])


def test_backward_on_stop_gradient_tensor_is_a_no_op():
    oar.to_tensor([1.0]).sum().backward()


def test_multi_output_view_inplace_messages():
    x = oar.to_tensor([1.0, 2.0, 3.0, 4.0], stop_gradient=False)
    a = x * 1
    p, q = a.chunk(2)
    with pytest.raises(InplaceViewError, match="multiple views"):
        p.mul_(2)
    assert a.numpy().tolist() == [1, 2, 3, 4]
    a.mul_(2)
    with pytest.raises(InplaceViewError, match="its base or another view"):
        q * 1
    pieces = a.tensor_split(2)      # composite of slices: may be modified
    pieces[0].add_(1)


def test_no_grad_view_messages():
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    a = x * 1
    with oar.no_grad():
        v = a[:2]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    with pytest.raises(InplaceViewError, match="no_grad mode"):
        v.mul_(2)


def test_view_regenerated_after_base_write():
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    a = x * 1
    v = a[:2]
    assert v.grad_fn.name() == "SliceBackward0"
    a.mul_(3)
    assert v.grad_fn.name() == "AsStridedBackward0"
    v.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3, 3, 0])


def test_detach_shares_version_and_detach_():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x.exp()
    d = y.detach()
    assert d._storage is y._storage and d.stop_gradient
    h = x * 1
    assert h.detach_() is h and h.is_leaf and h.stop_gradient
    v = (x * 1)[:1]
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        v.detach_()


def test_hooks_and_retain_grad():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().tolist()))
    h = x * 3
    h.retain_grad()
    handle = h.register_hook(lambda g: g * 10)
    h.sum().backward()
    assert seen == [[30.0, 30.0]] and h.grad.numpy().tolist() == [10.0, 10.0]
    handle.remove()


class Double(oar.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensor()
        return g * 2


class MulInplace(oar.autograd.Function):
    """A custom in-place op: marks its input dirty."""

    @staticmethod
    def forward(ctx, x, k):
        x._data *= k   # the kernel writes into x
        ctx.mark_dirty(x)
        ctx.k = k
        return x

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k


def test_pylayer_and_mark_dirty():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = Double.apply(x)
    assert y.grad_fn.name() == "DoubleBackward"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2])
    h = x * 1
    r = MulInplace.apply(h, 3.0)
    assert r is h and h.inplace_version == 1
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [5, 5])
    with pytest.raises(InplaceLeafError):
        MulInplace.apply(x, 2.0)
    s = x * 1
    y2 = Double.apply(s)
    s.add_(1)   # a saved input modified: caught
    with pytest.raises(SavedTensorModifiedError):
        y2.sum().backward()


class Identity(oar.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3     # a distinctive gradient to check it is used


def test_pylayer_returning_its_input_gives_a_new_alias():
    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    y = Identity.apply(x)
    assert y is not x and y._storage is x._storage and x.is_leaf and x.grad_fn is None
    (y * 1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3, 3])


def test_pylayer_mark_dirty_on_a_view_rewrites_the_base_history():
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    base = x * 1
    v = base[:2]
    assert MulInplace.apply(v, 2.0) is v
    assert base.grad_fn.name == "CopySlices"
    (base * oar.to_tensor([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 20.0, 100.0])   # d/dx of [2x0, 2x1, x2]


def test_inplace_ops_used_in_optimizer_style_update():
    w = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    for _ in range(3):
        loss = (w * w).sum()
        loss.backward()
        with oar.no_grad():
            w.sub_(w.grad * 0.1)
        w.clear_grad(set_to_zero=False)
    np.testing.assert_allclose(w.numpy(), np.array([1.0, 2.0]) * 0.8 ** 3, rtol=1e-6)
    assert w.is_leaf and w.inplace_version == 3
