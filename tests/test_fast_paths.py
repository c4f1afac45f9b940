"""Fast paths of issue 9: each test puts an input just outside one condition of a fast path
and checks that the result is still the general path's (values, strides, storage sharing,
errors, gradients), so dropping that condition makes the test fail. No timing is asserted.

Notes: [Fast reshape], [Fast unsqueeze], [Fast permutation check] (ops/views.py), [Fast basic
index] (ops/indexing.py), [Accumulate in place] (autograd/engine.py)."""
import numpy as np
import pytest
torch = pytest.importorskip("torch")

import oar
from oar.autograd.errors import ArgTypeError, ArgValueError
from oar.ops import views as V


def _strided_size1(stride1=5):
    """A [16, 1] tensor whose size-1 dim has stride 5: C-contiguous for NumPy (which ignores
    size-1 dims), not the contiguous strides for PyTorch."""
    base = oar.to_tensor(np.arange(16, dtype=np.float32))
    x = oar.as_strided(base, [16, 1], [1, stride1])
    assert x._data.flags.c_contiguous
    tx = torch.as_strided(torch.arange(16, dtype=torch.float32), (16, 1), (1, stride1))
    return x, tx


# --------------------------------------------------------------------------- Note [Fast reshape]
def test_fast_reshape_is_a_view_with_torch_strides():
    x = oar.randn([16])
    y = x.reshape([4, 4])
    assert y._is_shared_buffer_with(x) and y.data_ptr() == x.data_ptr()
    assert y.stride() == torch.randn(16).reshape(4, 4).stride()
    x.add_(1.0)
    assert y._version == x._version == 1


def test_fast_reshape_not_for_a_non_contiguous_input():
    # NumPy's reshape would silently copy here: the result would claim x's storage (and
    # version counter) over memory it does not share
    x = oar.randn([4, 4])
    xt = x.t()
    y = xt.reshape([16])
    assert not y._is_shared_buffer_with(x)
    np.testing.assert_array_equal(y.numpy(), x.numpy().T.reshape(16))
    x.add_(1.0)
    assert y._version == 0


def test_fast_reshape_not_for_a_size_1_dim():
    # with a size-1 dim NumPy's strides differ from PyTorch's computeStride
    x, tx = _strided_size1()
    for shape in ([16, 1, 1], [1, 16], [1, 16, 1]):
        assert x.reshape(shape).stride() == tx.reshape(*shape).stride()
    y = oar.randn([16]).reshape([16, 1])
    assert y.stride() == torch.randn(16).reshape(16, 1).stride()


def test_fast_reshape_not_for_inferred_or_zero_sizes():
    x = oar.randn([16])
    assert x.reshape([-1, 4]).shape == [4, 4]
    assert x.reshape([2, -1]).shape == [2, 8]
    e = oar.zeros([0, 4])
    assert e.reshape([4, 0]).shape == [4, 0]


def test_fast_reshape_not_for_non_int_sizes():
    x = oar.randn([16])
    with pytest.raises(ArgTypeError):
        x.reshape([4.0, 4.0])
    assert x.reshape([np.int64(4), np.int64(4)]).shape == [4, 4]


def test_fast_reshape_not_for_a_wrong_number_of_elements():
    x = oar.randn([16])
    with pytest.raises(ArgValueError, match="invalid for input of size 16"):
        x.reshape([4, 5])
    assert x._version == 0


def test_fast_reshape_not_with_more_sizes_after_a_list():
    x = oar.randn([16])
    with pytest.raises(ArgTypeError, match="shape"):
        x.reshape([16], 1)
    assert x.reshape(4, 4).shape == [4, 4]


def test_fast_reshape_not_for_a_non_tensor():
    y = oar.reshape([[1.0, 2.0], [3.0, 4.0]], [4])
    assert y.shape == [4] and y.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_fast_reshape_keeps_autograd_and_view_rules():
    w = oar.randn([16])
    w.stop_gradient = False
    y = w.reshape([4, 4])
    assert y.grad_fn is not None and y.grad_fn.name() == "ViewBackward0"
    (y * y).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.numpy(), rtol=1e-6)
    h = w * 1.0
    with oar.no_grad():
        v = h.reshape([4, 4])
    with pytest.raises(RuntimeError, match="no_grad mode"):
        v.add_(1.0)


# --------------------------------------------------------------------------- Note [Fast unsqueeze]
def _general_unsqueeze_strides(x, d):
    a = V._k_unsqueeze(x._data, (d,))
    return tuple(s // a.itemsize for s in a.strides)


def test_fast_unsqueeze_strides_are_torch_strides():
    x = oar.randn([3, 4])
    tx = torch.randn(3, 4)
    for d in (0, 1, 2, -1, -3):
        y = x.unsqueeze(d)
        assert y.stride() == tx.unsqueeze(d).stride()
        assert y._is_shared_buffer_with(x) and y.data_ptr() == x.data_ptr()
    assert oar.to_tensor(1.5).unsqueeze(0).stride() == torch.tensor(1.5).unsqueeze(0).stride()


def test_fast_unsqueeze_not_for_a_size_1_dim():
    x, tx = _strided_size1()
    for d in (0, 1, 2):
        assert x.unsqueeze(d).stride() == tx.unsqueeze(d).stride()


def test_fast_unsqueeze_not_for_a_size_0_dim():
    x = oar.zeros([0, 3])
    for d in (0, 1, 2):
        assert x.unsqueeze(d).stride() == _general_unsqueeze_strides(x, d)


def test_fast_unsqueeze_not_for_a_non_contiguous_input():
    x = oar.randn([3, 4])
    xt = x.t()
    tt = torch.randn(3, 4).t()
    for d in (1, 2):   # at the end NumPy's reshape repeats the last stride; PyTorch puts 1
        y = xt.unsqueeze(d)
        assert y._is_shared_buffer_with(x) and y.data_ptr() == x.data_ptr()
        assert y.stride() == tt.unsqueeze(d).stride()
    s = oar.randn([3, 4])[:, ::2]
    assert s.unsqueeze(2).stride() == torch.randn(3, 4)[:, ::2].unsqueeze(2).stride()


def test_unsqueeze_axis_errors_unchanged():
    x = oar.randn([3])
    with pytest.raises(Exception, match="unsqueeze"):
        x.unsqueeze(3)
    assert x.unsqueeze(-2).shape == [1, 3]


# --------------------------------------------------------------------------- Note [Fast permutation check]
@pytest.mark.parametrize("perm", [[True, 0], [1.0, 0], [0, 0], [0], [0, 1, 2], [0, 1, 1]])
def test_transpose_refuses_bad_permutations(perm):
    with pytest.raises((ArgTypeError, ArgValueError)):
        oar.randn([2, 3]).transpose(perm)


def test_transpose_negative_permutation():
    assert oar.randn([2, 3]).transpose([-1, 0]).shape == [3, 2]


# --------------------------------------------------------------------------- Note [Fast basic index]
@pytest.mark.parametrize("key", [1, slice(1, 3)])
def test_fast_index_needs_no_gradient_source(key):
    w = oar.randn([4, 3])
    w.stop_gradient = False                          # requires grad
    w[key].sum().backward()
    expect = np.zeros((4, 3), np.float32)
    expect[key] = 1
    np.testing.assert_array_equal(w.grad.numpy(), expect)
    h = w * 2.0                                      # has history
    w.grad = None
    h[key].sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), 2 * expect)


def test_fast_index_not_for_a_view():
    # a view with no history of its own whose base requires grad (set after the view was
    # taken) records a node: its attrs are the geometry the fast path does not build
    x = oar.randn([4, 4])
    v = x[1:3]
    x.stop_gradient = False
    y = v[0]
    assert y.requires_grad and y.grad_fn is not None
    y.sum().backward()          # runs the geometry backward (it would fail without attrs)


def test_fast_index_view_rules():
    x = oar.randn([4, 4])
    y = x[1]
    assert y._is_shared_buffer_with(x) and y.storage_offset() == 4
    x.add_(1.0)
    assert y._version == 1
    assert x[2:2].storage_offset() == torch.randn(4, 4)[2:2].storage_offset()
    with oar.no_grad():
        v = x[1]
    assert v._view.creation != x[1]._view.creation   # no_grad view vs default view


# --------------------------------------------------------------------------- engine
def test_backward_with_a_root_given_twice():
    w = oar.ones([3])
    w.stop_gradient = False
    y = (w * 2.0).sum()
    oar.autograd.backward([y, y])
    tw = torch.ones(3, requires_grad=True)
    ty = (tw * 2.0).sum()
    torch.autograd.backward([ty, ty])
    np.testing.assert_array_equal(w.grad.numpy(), tw.grad.numpy())


def _shared_gradient_program(lib, w):
    # d = a + b hands one gradient object to both a's and b's slots (add's backward returns
    # it for both inputs). c, made after b, runs before b and adds into a's slot: summing
    # in place into that shared object would change b's gradient too (Note [Accumulate in
    # place]: only owned gradients are written)
    a = w * 2.0
    b = w * 3.0
    c = a * 4.0
    d = a + b
    return (d + c).sum()


def test_accumulate_in_place_not_for_a_shared_gradient():
    w = oar.to_tensor([1.0, -2.0, 0.5])
    w.stop_gradient = False
    _shared_gradient_program(oar, w).backward()
    tw = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    _shared_gradient_program(torch, tw).backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-6)


def test_accumulate_in_place_many_contributions():
    w = oar.to_tensor([0.3, -0.7])
    w.stop_gradient = False
    tw = torch.tensor([0.3, -0.7], requires_grad=True)
    for lib, v in ((oar, w), (torch, tw)):
        h = v * 1.0
        for _ in range(4):
            h = (h * 1.5).tanh() + v
        h.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5)


def test_accumulate_in_place_not_with_create_graph():
    # create_graph: the sum must be an op with history (the second derivative flows through it)
    w = oar.to_tensor([0.5, 1.5])
    w.stop_gradient = False
    tw = torch.tensor([0.5, 1.5], requires_grad=True)
    res = []
    for v, grad in ((w, oar.grad), (tw, torch.autograd.grad)):
        h = v * v
        y = (h * v + h * 2.0).sum()
        g, = grad([y], [v], create_graph=True)
        g2, = grad([g.sum()], [v])
        res.append((np.asarray(g.detach().numpy()), np.asarray(g2.detach().numpy())))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6)


def test_accumulate_in_place_leaves_hooked_and_retained_gradients_alone():
    seen = []
    w = oar.to_tensor([1.0, 2.0])
    w.stop_gradient = False
    h = w * 1.0
    h.retain_grad()
    h.register_hook(lambda g: seen.append(g) or None)
    y = (h * 2.0 + h * 3.0 + h * 4.0).sum()
    y.backward()
    np.testing.assert_array_equal(h.grad.numpy(), [9.0, 9.0])
    np.testing.assert_array_equal(seen[0].numpy(), [9.0, 9.0])
    np.testing.assert_array_equal(w.grad.numpy(), [9.0, 9.0])


def _owned(values, token, dtype="float32"):
    t = oar.to_tensor(np.array(values, dtype=dtype))
    t._storage.owner = token
    return t


def test_accumulate_in_place_conditions_one_by_one():
    from oar.autograd.engine import _sum
    token = object()
    one = oar.to_tensor(np.ones(2, np.float32))
    old = _owned([1.0, 2.0], token)
    assert _sum(old, one, token) is old and old.tolist() == [2.0, 3.0]   # all conditions hold
    old = _owned([1.0, 2.0], object())                 # owned by another run
    assert _sum(old, one, token) is not old and old.tolist() == [1.0, 2.0]
    old = _owned([1.0, 2.0], token)
    alias = old.detach()                               # another tensor shares the storage
    assert _sum(old, one, token) is not old and alias.tolist() == [1.0, 2.0]
    base = _owned([1.0, 2.0, 3.0], token)
    view = base[0:2]                                   # not the whole storage
    assert _sum(view, one, token) is not view and base.tolist() == [1.0, 2.0, 3.0]
    old = _owned([5.0], token)                         # broadcasts: the sum has g's shape
    r = _sum(old, one, token)
    assert r.shape == [2] and old.tolist() == [5.0]
    old = _owned([1.0, 2.0], token)                    # promotes: the sum has g's dtype
    r = _sum(old, oar.to_tensor(np.ones(2, np.float64)), token)
    assert r.dtype == oar.float64 and old.tolist() == [1.0, 2.0]
    old = _owned([1.0, 2.0], token)
    old._data.flags.writeable = False                  # read-only memory
    assert _sum(old, one, token) is not old
    old = _owned([1.0, 2.0], token)                    # create_graph: no token, a new tensor
    assert _sum(old, one, None) is not old and old.tolist() == [1.0, 2.0]
