"""Findings of the random autograd programs (issue 8, last round), each against torch 2.13:
strides of empty tensors, the gradient of a slice of an expanded (self-overlapping) tensor,
as_strided to an empty window under create_graph, and detach_ of a tensor a custom Function
saved."""
from __future__ import annotations

import numpy as np
import pytest

import oar

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (2, 0, 4), (0,), (0, 0), (1, 0, 1)])
def test_empty_tensor_strides_match_torch(shape):
    assert oar.zeros(list(shape)).stride() == torch.zeros(shape).stride()
    if 1 not in shape:   # torch's TensorIterator gives size-1 dims of an empty result stride 0
        assert (oar.zeros(list(shape)) + 1).stride() == (torch.zeros(shape) + 1).stride()


def test_stride_dim_out_of_range_is_index_error():
    with pytest.raises(IndexError):
        oar.zeros([2, 3]).stride(2)
    assert oar.zeros([2, 3]).stride(-2) == torch.zeros(2, 3).stride(-2)


def _slices_of_expanded(L):
    x0 = L.tensor(np.arange(16.0).reshape(4, 4), dtype=L.float64, requires_grad=True)
    t1 = (x0 * 1.0).expand(2, 4, 4)
    t1.retain_grad()
    w = L.tensor(np.linspace(0.5, 1.5, 32).reshape(2, 4, 4), dtype=L.float64)
    w2 = L.tensor(np.arange(1.0, 9.0).reshape(2, 4), dtype=L.float64)
    loss = ((t1 * w).sum() + (t1[:] * w).sum() + (t1[1, 1:3] * w2).sum()
            + (t1[..., None, 2] * 3).sum())
    loss.backward()
    return t1.grad.numpy(), x0.grad.numpy()


def test_slice_of_expanded_tensor_gradient_matches_torch():
    # the slice's backward is logical (per element of the expanded tensor), not per memory
    # location: each of the two stacked copies gets its own gradient
    for mine, ref in zip(_slices_of_expanded(oar), _slices_of_expanded(torch)):
        np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-12)


def test_as_strided_to_empty_window_has_no_history_under_create_graph():
    def run(L):
        x0 = L.ones([3], requires_grad=True)
        t1 = (x0 * 1).as_strided([0, 0], [0, 0], 0)
        g, = L.autograd.grad((t1 * t1 * t1).sum(), [x0], create_graph=True)
        return g.requires_grad, g.detach().numpy().tolist()
    assert run(oar) == run(torch) == (False, [0.0, 0.0, 0.0])


def test_detach_of_tensor_saved_by_custom_function_matches_torch():
    def run(L):
        class Square(L.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * 2 * a

        x0 = L.tensor(np.array([1.0, -2.0]), dtype=L.float64, requires_grad=True)
        t0 = x0 * 3.0
        out = Square.apply(t0)
        t0.detach_()
        out.sum().backward()
        return x0.grad.numpy().tolist()
    assert run(oar) == run(torch)


def test_detach_of_tensor_saved_by_builtin_op_still_raises():
    x = oar.to_tensor([1.0], stop_gradient=False).clone()
    b = x.sin()
    x.detach_()
    with pytest.raises(RuntimeError, match="detached in-place"):
        b.backward()


def _second_order_through_copyslices(L):
    x0 = L.tensor(np.arange(1, 17.0).reshape(4, 4) / 7, dtype=L.float64, requires_grad=True)
    t0 = x0 * 1.0
    t0[1:3, ::2].mul_(t0[0:2, 1::2] * 1.0)   # in place on a view: the base gets CopySlices
    t0[3].sin_()
    g, = L.autograd.grad((t0 * t0 * t0).sum(), [x0], create_graph=True)
    gg, = L.autograd.grad((g * g).sum(), [x0])
    return g.detach().numpy(), gg.numpy()


def test_create_graph_through_inplace_on_view_matches_torch():
    for mine, ref in zip(_second_order_through_copyslices(oar),
                         _second_order_through_copyslices(torch)):
        np.testing.assert_allclose(mine, ref, rtol=1e-12, atol=1e-12)


def test_view_keeps_history_after_base_detached_in_place():
    # PyTorch rebuilds a view's grad_fn right after an in-place op on it, so detaching the
    # base afterwards leaves the view's history (and its gradient into x0) intact
    def run(L):
        x0 = L.ones([2, 3], dtype=L.float64, requires_grad=True)
        t0 = x0 * 1.0
        t1 = t0[:, 1:]
        t1.mul_(3.0)
        t0.detach_()
        flag = t1.requires_grad
        (t1 * 2).sum().backward()
        return flag, x0.grad.numpy().tolist()
    assert run(oar) == run(torch)


def test_backward_after_create_graph_through_inplace_on_view_matches_torch():
    # oar.grad(create_graph=True) unpacks sigmoid_'s saved output, whose grad_fn is the op
    # CopySlices wraps; releasing CopySlices must not free that op's saved output
    def run(L):
        x0 = L.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=L.float64,
                      requires_grad=True)
        t0 = x0 * 1.0
        t1 = t0[:, 1:]
        t1.sigmoid_()
        g, = L.autograd.grad((t0 * t0 * t0).sum(), [x0], create_graph=True)
        ((t0 * 2).sum() + (t1 * 3).sum() + (g * g).sum()).backward()
        return x0.grad.numpy()
    np.testing.assert_allclose(run(oar), run(torch), rtol=1e-12, atol=1e-12)


def test_second_backward_through_copyslices_raises():
    x = oar.ones([3], requires_grad=True)
    t = x * 1.0
    t[1:].add_(1.0)     # add_ saves nothing; CopySlices still refuses a second pass
    t.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        t.sum().backward()


@pytest.mark.parametrize("fn", [
    lambda L, x: ((x * 1).relu() ** 0.5).sum(),            # inf gradient at relu's kink
    lambda L, x: (x * 1).relu_().pow(0.5).sum(),           # the in-place form
    lambda L, x: (x.clamp(0.1, 1.0) - 0.1).sqrt().sum(),   # inf at clamp's lower bound
])
def test_masked_gradients_select_not_multiply(fn):
    # Note [Masked gradients select]: torch gives 0, not inf * 0 = nan, where the mask is off
    def run(L):
        x = L.tensor(np.array([-1.0, 0.0, 0.5, 2.0]), dtype=L.float64, requires_grad=True)
        with np.errstate(all="ignore"):
            fn(L, x).backward()
        return x.grad.numpy()
    np.testing.assert_allclose(run(oar), run(torch), rtol=1e-12)


@pytest.mark.parametrize("step", [
    lambda t, k: t.zero_(), lambda t, k: t.fill_(2.0), lambda t, k: t.copy_(k),
    lambda t, k: t.floor_(), lambda t, k: t.sign_(),
])
def test_zero_gradients_are_zeros_not_g_times_zero(step):
    # the gradient downstream is inf (division by 0); an overwritten or piecewise-constant
    # input gets exactly 0 from torch (zeros_like(grad)), not inf * 0 = nan
    def run(L):
        x = L.tensor(np.array([1.5, 2.5]), dtype=L.float64, requires_grad=True)
        k = L.tensor(np.array([0.0, 1.0]), dtype=L.float64)
        t = x * 1.0
        step(t, k)
        with np.errstate(all="ignore"):
            (t / k).sum().backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(run(oar), run(torch))


def _mark_dirty_program(L, on_view):
    class MulDirty(L.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.mul_(b)
            ctx.save_for_backward(b)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):
            (b,) = ctx.saved_tensors
            return g * b, None

    x0 = L.tensor(np.arange(6.0).reshape(2, 3), dtype=L.float64, requires_grad=True)
    t0 = x0 * 1.0
    t0.retain_grad()
    target = t0[:, 1:] if on_view else t0
    b = L.tensor(np.array([2.0, 3.0]) if on_view else np.array([2.0, 3.0, 4.0]),
                 dtype=L.float64)
    out = MulDirty.apply(target, b)
    assert out is target
    w = L.tensor(np.arange(1.0, 7.0).reshape(2, 3), dtype=L.float64)
    ((t0 * w).sum() + (out * w[:, 1:] if on_view else out * w).sum()).backward()
    return x0.grad.numpy(), t0.grad.numpy()


@pytest.mark.parametrize("on_view", [False, True])
def test_mark_dirty_matches_torch(on_view):
    # .grad of a retained tensor marked dirty is the gradient of its new value; a dirty view
    # rewrites its base's history (CopySlices)
    for mine, ref in zip(_mark_dirty_program(oar, on_view), _mark_dirty_program(torch, on_view)):
        np.testing.assert_allclose(mine, ref, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("e", [2, 3, 3.0, -0.5, -1, -2])
def test_pow_special_exponents_match_torch_bitwise(e, dtype):
    # Note [pow special exponents]: rsqrt(-0.0) = -inf, x*x*x, 1/(x*x): bit for bit,
    # signed zeros and infinities included, out of place and in place
    a = np.random.default_rng(0).standard_normal(2000).astype(dtype)
    a[:6] = [0.0, -0.0, np.inf, -np.inf, 1e-30, -1e-30]
    with np.errstate(all="ignore"):
        ref = (torch.tensor(a) ** e).numpy()
        mine = (oar.to_tensor(a) ** e).numpy()
        x = oar.to_tensor(a.copy())
        x.pow_(e)
    for got in (mine, x.numpy()):
        np.testing.assert_array_equal(got, ref)
        ok = ~np.isnan(ref)
        np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(ref[ok]))


def test_pow_half_gradient_at_negative_zero_matches_torch():
    def run(L):
        x = L.tensor(np.array([-0.0, 0.0, 4.0]), dtype=L.float64, requires_grad=True)
        with np.errstate(all="ignore"):
            ((x * 1.0) ** 0.5).sum().backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(run(oar), run(torch))   # [-inf, inf, 0.25]
