"""Memory is asserted exactly, in bytes counted by oar's storage accounting."""
import gc

import numpy as np
import pytest

import oar

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

N = 1000            # elements
NB = N * 4          # bytes of one float32 tensor of N elements


@pytest.fixture(autouse=True)
def _clean():
    gc.collect()
    yield
    gc.collect()


def alloc():
    return oar.device.memory_allocated()


def test_views_count_zero_and_storages_are_freed():
    base = alloc()
    x = oar.zeros([N])
    assert alloc() == base + NB
    v = x[10:20].reshape([2, 5]).t()
    assert alloc() == base + NB
    del x
    assert alloc() == base + NB        # the view keeps the storage alive
    del v
    assert alloc() == base


def test_relu_inplace_under_autograd_saves_no_extra_buffer():
    x = oar.randn([N])
    x.stop_gradient = False
    h = x * 1
    before = alloc()
    r = h.relu_()
    assert r is h and alloc() == before              # relu_ saves its result: h itself
    h2 = x * 1
    before = alloc()
    h2.sigmoid_().tanh_().exp_()
    assert alloc() == before


def test_out_of_place_allocates_one_result():
    x = oar.randn([N])
    before = alloc()
    y = x.exp()
    assert alloc() == before + NB
    del y


@pytest.mark.parametrize("op", ["sin_", "cos_", "log_", "abs_", "square_"])
def test_input_saving_inplace_keeps_one_copy_only_when_grad_needed(op):
    x = oar.rand([N]) + 0.5
    before = alloc()
    getattr(x, op)()                         # no gradient needed: no copy
    assert alloc() == before
    leaf = oar.rand([N]) + 0.5
    leaf.stop_gradient = False
    h = leaf * 1
    before = alloc()
    getattr(h, op)()                         # gradient needed: exactly one copy of h
    assert alloc() == before + NB
    with oar.no_grad():
        h2 = leaf * 1
        before = alloc()
        getattr(h2, op)()                    # no_grad: no copy
        assert alloc() == before


def test_mul_inplace_copies_self_only_when_the_other_operand_needs_grad():
    w_const = oar.rand([N])
    w_grad = oar.rand([N])
    w_grad.stop_gradient = False
    leaf = oar.rand([N])
    leaf.stop_gradient = False
    h = leaf * 1
    before = alloc()
    h.mul_(w_const)                          # grad of h needs w only: no copy
    h.mul_(3.0)
    assert alloc() == before
    before = alloc()
    h.mul_(w_grad)                           # grad of w needs old h: one copy
    assert alloc() == before + NB


def test_backward_releases_saved_tensors():
    leaf = oar.rand([N])
    leaf.stop_gradient = False
    base = alloc()
    h = leaf * 1                             # +NB
    h.sin_()                                 # +NB saved copy
    loss = h.sum()                           # +4
    assert alloc() == base + 2 * NB + 4
    loss.backward()
    # the saved copy is gone; leaf.grad (+NB) is new
    assert alloc() == base + NB + 4 + NB
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()
    del h, loss
    assert alloc() == base + NB               # only leaf.grad remains


def test_retain_graph_keeps_saved_tensors():
    leaf = oar.rand([N])
    leaf.stop_gradient = False
    h = leaf * 1
    h.sin_()
    loss = h.sum()
    before = alloc()
    loss.backward(retain_graph=True)
    assert alloc() == before + NB             # leaf.grad; the copy is kept
    loss.backward()
    np.testing.assert_allclose(leaf.grad.numpy(), 2 * np.cos(leaf.numpy()), rtol=1e-5)
    assert alloc() == before               # copy released, grad accumulated in place


def test_peak_inplace_chain_is_one_buffer():
    x = oar.rand([N])
    oar.device.reset_max_memory_allocated()
    base = alloc()
    y = x * 1
    for _ in range(5):
        y.mul_(1.5).add_(1.0).relu_()
    assert oar.device.max_memory_allocated() == base + NB
    oar.device.reset_max_memory_allocated()
    base = alloc()
    z = x * 1
    for _ in range(5):
        z = (z * 1.5 + 1.0).relu()
    # z, (z * 1.5) and (z * 1.5 + 1.0) are alive together before z is rebound
    assert oar.device.max_memory_allocated() == base + 3 * NB


def test_caching_allocator_reuses_freed_buffers_safely():
    oar.device.empty_cache()
    x = oar.ones([512, 1024])                 # 2 MiB: above the pool threshold
    nb = 512 * 1024 * 4
    y = x + 1.0
    ptr = y.data_ptr()
    live = alloc()
    del y
    assert alloc() == live - nb                            # allocated counts live tensors
    assert oar.device.memory_reserved() == alloc() + nb    # reserved adds the pool
    z = x + 2.0
    assert z.data_ptr() == ptr and (z.numpy() == 3).all()  # the buffer was reused
    assert oar.device.memory_reserved() == alloc()
    kept = np.asarray(z, copy=False)                       # a NumPy view the user keeps
    del z
    w = x + 5.0
    assert w.data_ptr() != ptr and (kept == 3).all()       # never handed out while viewed
    del w
    oar.device.empty_cache()
    assert oar.device.memory_reserved() == alloc()


def test_gradients_held_elsewhere_are_copied():
    # fan-out: the same gradient tensor flows to two leaves
    a = oar.rand([N])
    b = oar.rand([N])
    a.stop_gradient = b.stop_gradient = False
    (a + b).sum().backward()
    assert a.grad._storage is not b.grad._storage
    with oar.no_grad():   # Paddle: a leaf's .grad needs a gradient (Note [Leaf gradients per door])
        a.grad.add_(1.0)
    assert b.grad.numpy().max() == 1.0
    # a gradient the user passed in, or one a hook also keeps, is not taken over
    g0 = oar.ones([N])
    c = oar.rand([N])
    c.stop_gradient = False
    (c * 1.0).backward(g0)
    assert c.grad._storage is not g0._storage
    kept = []
    d = oar.rand([N])
    d.stop_gradient = False
    d.register_hook(lambda g: kept.append(g))
    (d * 2.0).sum().backward()
    assert d.grad._storage is not kept[0]._storage
    with oar.no_grad():   # Paddle: a leaf's .grad needs a gradient (Note [Leaf gradients per door])
        d.grad.zero_()
    assert kept[0].numpy().max() == 2.0


def _big_allocations(fn):
    from oar.storage import start_trace, stop_trace
    start_trace()
    fn()
    tl = stop_trace()
    return sum(1 for a, b in zip(tl, tl[1:]) if b - a == NB)


def test_fresh_gradient_becomes_grad_without_a_copy():
    """Note [Gradient ownership]: sum's backward broadcasts (1 buffer), mul's backward makes
    the gradient (1 buffer), and .grad is that buffer: no third, copied buffer."""
    w = oar.rand([N])
    w.stop_gradient = False
    x = oar.rand([N])
    loss = (x * w).sum()
    assert _big_allocations(loss.backward) == 2
    np.testing.assert_allclose(w.grad.numpy(), x.numpy())
    w.grad = None
    w.register_hook(lambda g: None)           # a hook could keep it: copied
    loss = (x * w).sum()
    assert _big_allocations(loss.backward) == 3


def test_pylayer_gradient_kept_on_ctx_is_copied():
    contexts = []

    class Keep(oar.autograd.PyLayer):
        @staticmethod
        def forward(ctx, a):
            contexts.append(ctx)
            return a * 1

        @staticmethod
        def backward(ctx, g):
            ctx.kept = g * 2
            return ctx.kept
    a = oar.rand([N])
    a.stop_gradient = False
    Keep.apply(a).sum().backward()
    assert contexts[0].kept._storage is not a.grad._storage
    with oar.no_grad():   # Paddle: a leaf's .grad needs a gradient (Note [Leaf gradients per door])
        a.grad.zero_()
    assert contexts[0].kept.numpy().min() == 2.0


def test_fresh_gradient_with_a_pending_view_is_copied():
    """b's gradient is a view of a's fresh gradient. a's AccumulateGrad runs first; a hook on b
    then writes into a.grad. Were a.grad the fresh buffer itself, b's pending view would see
    the write: the storage count check prevents that."""
    from oar.ops.registry import OpDef, dispatch

    def backward(c, g):
        t = g * 2
        return t.reshape([N]), t
    op = OpDef("twin", lambda y, x: x + y.reshape(x.shape), backward, inputs=("y", "x"))
    b = oar.rand([N])
    a = oar.rand([N // 10, 10])
    a.stop_gradient = b.stop_gradient = False
    def touch_a(g):
        if a.grad is not None:
            with oar.no_grad():   # Paddle: a leaf's .grad needs a gradient (Note [Leaf gradients per door])
                a.grad.add_(1.0)
    b.register_hook(touch_a)
    dispatch(op, (b, a), ()).sum().backward()
    assert a.grad is not None and a.grad.numpy().min() == 3.0   # the hook ran after a's update
    assert b.grad.numpy().min() == 2.0 and b.grad.numpy().max() == 2.0


def test_relu_backward_reuses_an_owned_gradient():
    x = oar.randn([N])
    x.stop_gradient = False
    w = oar.randn([N])
    h = (x * 1.0).relu()
    loss = (h * w).sum()
    # sum's broadcast is the only new buffer: mul's and relu's backward write into it, the
    # `* 1.0` passes it on, and x.grad keeps it
    assert _big_allocations(loss.backward) == 1
    np.testing.assert_allclose(x.grad.numpy(), w.numpy() * (x.numpy() > 0), rtol=1e-6)


def test_backward_reuse_respects_hooks_retain_grad_and_shared_storage():
    x = oar.randn([N])
    x.stop_gradient = False
    w = oar.randn([N])
    h = (x * 1.0).relu()
    kept = []
    h.register_hook(lambda g: kept.append(g))
    h.retain_grad()
    (h * w).sum().backward()
    np.testing.assert_allclose(kept[0].numpy(), w.numpy(), rtol=1e-6)   # not masked afterwards
    np.testing.assert_allclose(h.grad.numpy(), w.numpy(), rtol=1e-6)

    from oar.ops.registry import OpDef, dispatch

    def backward(c, g):
        t = g * 2
        return t.reshape([N]), t       # b's gradient is a view of relu's incoming gradient
    twin = OpDef("twin", lambda y, r: r + y.reshape(r.shape), backward, inputs=("y", "r"))
    b = oar.rand([N])
    b.stop_gradient = False
    acc_b = b._edge()[0]              # made first, so b's accumulation runs after relu's backward
    x2 = oar.randn([N // 10, 10])
    x2.stop_gradient = False
    dispatch(twin, (b, x2.relu()), ()).sum().backward()
    assert acc_b is not None
    assert b.grad.numpy().min() == 2.0 and b.grad.numpy().max() == 2.0


def test_gradient_seen_by_a_non_leaf_hook_is_not_owned_downstream():
    x = oar.rand([N])
    x.stop_gradient = False
    h = x.clone()                      # clone's backward passes its gradient on unchanged
    kept = []
    h.register_hook(lambda g: kept.append(g))
    h.sum().backward()
    assert kept[0]._storage is not x.grad._storage
    with oar.no_grad():   # Paddle: a leaf's .grad needs a gradient (Note [Leaf gradients per door])
        x.grad.zero_()
    assert kept[0].numpy().min() == 1.0
    # and through oar.grad's capture of a non-leaf input
    y = oar.rand([N])
    y.stop_gradient = False
    z = y * 2.0                        # z's node runs after the capture: it must not reuse gz
    w = z.clone()
    (gz,) = oar.grad(w.sum(), [z], retain_graph=True)
    assert gz.numpy().min() == 1.0
