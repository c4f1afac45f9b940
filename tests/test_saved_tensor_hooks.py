"""Saved-tensor hooks (Note [Saved tensor hooks]), save_on_cpu, disable_saved_tensors_hooks
and allow_mutation_on_saved_tensors (Note [Mutation of saved tensors allowed]), compared with
torch 2.13 (and paddle 3.3.1 for the core's spelling)."""
import gc
import threading

import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.autograd.errors import SavedTensorModifiedError
from oar.torch.autograd import graph as ograph

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")


def _counts(mod, graph, f, *xs):
    n = [0, 0]

    def pack(t):
        n[0] += 1
        return t

    def unpack(t):
        n[1] += 1
        return t
    with graph.saved_tensors_hooks(pack, unpack):
        out = f(mod, *xs)
    out.sum().backward()
    return n


CASES = {
    "mul": (lambda m, x, w, b, xi, wc: x * x),
    "exp": (lambda m, x, w, b, xi, wc: x.exp()),
    "relu": (lambda m, x, w, b, xi, wc: x.relu()),
    "tanh": (lambda m, x, w, b, xi, wc: x.tanh()),
    "matmul": (lambda m, x, w, b, xi, wc: x @ w.T),
    "linear": (lambda m, x, w, b, xi, wc: m.nn.functional.linear(x, w, b)),
    "conv": (lambda m, x, w, b, xi, wc: m.nn.functional.conv2d(xi, wc)),
}


def _inputs(mod):
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s) for s in ((4, 5), (3, 5), (3,), (2, 3, 6, 6), (4, 3, 3, 3))]
    return [mod.tensor(a, requires_grad=True) for a in arrs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_pack_unpack_counts_match_torch(name):
    torch = pytest.importorskip("torch")
    f = CASES[name]
    want = _counts(torch, torch.autograd.graph, lambda m, *xs: f(m, *xs), *_inputs(torch))
    got = _counts(otorch, ograph, lambda m, *xs: f(m, *xs), *_inputs(otorch))
    assert got == want


def test_batchnorm_saves_its_parts():
    # Note [Saved tensor hooks]: oar's batch_norm is one op saving input, weight, mean and
    # invstd (Note [BatchNorm op]); PyTorch's kernel saves 6 (also the running stats);
    # every packed tensor is unpacked exactly once
    torch = pytest.importorskip("torch")
    xt = torch.randn(2, 3, 4, 4, requires_grad=True)
    want = _counts(torch, torch.autograd.graph, lambda m, x: torch.nn.BatchNorm2d(3)(x), xt)
    assert want == [6, 6]
    xo = otorch.tensor(xt.detach().numpy(), requires_grad=True)
    got = _counts(otorch, ograph, lambda m, x: otorch.nn.BatchNorm2d(3)(x), xo)
    assert got == [4, 4]


def test_custom_function_save_for_backward_is_packed():
    torch = pytest.importorskip("torch")

    def make(mod):
        class Sq(mod.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g
        return Sq
    want = _counts(torch, torch.autograd.graph, lambda m, x: make(torch).apply(x),
                   torch.randn(3, requires_grad=True))
    got = _counts(otorch, ograph, lambda m, x: make(otorch).apply(x),
                  otorch.randn(3, requires_grad=True))
    assert got == want == [1, 1]


def _grad_with(mod, graph, pack, unpack, f, a):
    x = mod.tensor(a, requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        y = f(x)
    y.sum().backward()
    return x.grad.detach().numpy() if hasattr(x.grad, "detach") else x.grad.numpy()


def test_unpack_result_is_used_as_torch_does():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).standard_normal(5)
    for pack, unpack in ((lambda t: t, lambda t: t * 2),
                         (lambda t: t.detach().numpy().copy(), None)):
        if unpack is None:
            want = _grad_with(torch, torch.autograd.graph, pack, lambda p: torch.from_numpy(p) * 3,
                              lambda x: x * x.sin(), a)
            got = _grad_with(otorch, ograph, pack, lambda p: otorch.tensor(p) * 3,
                             lambda x: x * x.sin(), a)
        else:
            want = _grad_with(torch, torch.autograd.graph, pack, unpack, lambda x: x * x.exp(), a)
            got = _grad_with(otorch, ograph, pack, unpack, lambda x: x * x.exp(), a)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_unpack_must_return_a_tensor():
    torch = pytest.importorskip("torch")
    for mod, graph in ((torch, torch.autograd.graph), (otorch, ograph)):
        x = mod.randn(3, requires_grad=True)
        with graph.saved_tensors_hooks(lambda t: t, lambda p: 3):
            y = x.exp()
        with pytest.raises(TypeError, match="expected to be a Tensor but got result of type int"):
            y.sum().backward()


def test_nesting_innermost_only_and_thread_local():
    seen = []
    x = otorch.randn(3, requires_grad=True)
    with ograph.saved_tensors_hooks(lambda t: ("outer", t), lambda p: (seen.append(p[0]), p[1])[1]):
        with ograph.saved_tensors_hooks(lambda t: ("inner", t),
                                        lambda p: (seen.append(p[0]), p[1])[1]):
            y = x.exp()
        z = x.sin()
        other = []
        th = threading.Thread(target=lambda: other.append(x.cos()))
        th.start()
        th.join()
    (y.sum() + z.sum() + other[0].sum()).backward()
    assert seen == ["outer", "inner"] or seen == ["inner", "outer"]
    assert sorted(seen) == ["inner", "outer"]   # the other thread's cos saved nothing hooked


def test_disable_saved_tensors_hooks_as_torch():
    torch = pytest.importorskip("torch")
    for graph in (torch.autograd.graph, ograph):
        with graph.disable_saved_tensors_hooks("hooks are off here"):
            with pytest.raises(RuntimeError, match="hooks are off here"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            with pytest.raises(RuntimeError, match="hooks are off here"):
                with graph.save_on_cpu():
                    pass
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):   # enabled again
            with pytest.raises(RuntimeError, match="inside hooks"):
                with graph.disable_saved_tensors_hooks("inside hooks"):
                    pass


def test_save_on_cpu_is_exact_and_keeps_no_copy():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(2).standard_normal((4, 5))
    w = np.random.default_rng(3).standard_normal((3, 5))
    grads = []
    for mod, graph in ((torch, torch.autograd.graph), (otorch, ograph)):
        x = mod.tensor(a, requires_grad=True)
        wt = mod.tensor(w, requires_grad=True)
        with graph.save_on_cpu(pin_memory=False):
            y = (mod.nn.functional.linear(x, wt).tanh() * x.sum()).exp()
        y.sum().backward()
        grads.append((x.grad.numpy(), wt.grad.numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12)
    # on CPU the saved tensor itself is kept: saving allocates nothing
    del grads, x, wt, y
    x = otorch.randn(100, 100, dtype=otorch.float64, requires_grad=True).exp()
    gc.collect()
    before = oar.memory_allocated()
    with ograph.save_on_cpu():
        y = x * x
    assert oar.memory_allocated() - before == y.numel() * 8


def test_identity_hook_still_catches_a_mutation():
    # Note [Saved tensor hooks]: PyTorch skips the version check for hooked tensors (and
    # returns the gradient of the mutated value); oar still raises on the same storage
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(4).standard_normal(3)
    t = torch.tensor(a, requires_grad=True)
    b = t.clone()
    with torch.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
        y = b * b
    b.add_(1)
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), 2 * (a + 1))   # torch: silently the new value
    for pack in (lambda x: x, lambda x: x.detach()):
        o = otorch.tensor(a, requires_grad=True)
        b = o.clone()
        with ograph.saved_tensors_hooks(pack, lambda x: x):
            y = b * b
        b.add_(1)
        with pytest.raises(SavedTensorModifiedError, match="modified by an inplace operation"):
            y.sum().backward()


def test_paddle_spelling():
    paddle = pytest.importorskip("paddle")
    assert oar.autograd.saved_tensors_hooks is oar.autograd.graph.saved_tensors_hooks
    counts = []
    for mod in (paddle, oar):
        n = [0, 0]

        def pack(t):
            n[0] += 1
            return t

        def unpack(t):
            n[1] += 1
            return t
        x = mod.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        with mod.autograd.saved_tensors_hooks(pack, unpack):
            y = (x * x).sum() + x.exp().sum()
        y.backward()
        counts.append(n)
    assert counts[0] == counts[1] == [3, 3]


# --------------------------------------------------------------------------- mutation
def _mutation_example(mod, graph, mutate):
    with graph.allow_mutation_on_saved_tensors():
        a = mod.tensor(np.arange(6.0).reshape(2, 3) / 7, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum() + (b * b.exp()).sum()
        mutate(b)
        v = b._version
        out.backward()
        return a.grad.numpy().copy(), v, b.detach().numpy().copy()


@pytest.mark.parametrize("mutate", ["sin_", "add_", "setitem", "mul_twice"])
def test_allow_mutation_matches_torch(mutate):
    torch = pytest.importorskip("torch")
    fns = {"sin_": lambda b: b.sin_(), "add_": lambda b: b.add_(1.0),
           "setitem": lambda b: b.__setitem__((0, 1), 5.0),
           "mul_twice": lambda b: b.mul_(2.0).mul_(3.0)}
    want = _mutation_example(torch, torch.autograd.graph, fns[mutate])
    got = _mutation_example(otorch, ograph, fns[mutate])
    exact = _mutation_example(torch, torch.autograd.graph, lambda b: None)[0]   # no mutation
    np.testing.assert_allclose(got[0], exact, rtol=1e-12)
    if mutate != "setitem":
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    else:
        # PyTorch copies only a saved tensor whose data_ptr is the mutated tensor's, so a
        # write through a view at an offset goes uncopied and its gradient is silently
        # wrong; oar copies what is saved on the mutated storage
        assert not np.allclose(want[0], exact)
    assert got[1] == want[1]          # versions: the mutation bumps as usual
    np.testing.assert_allclose(got[2], want[2], rtol=1e-12)


def test_allow_mutation_errors_as_torch():
    torch = pytest.importorskip("torch")
    for mod, graph in ((torch, torch.autograd.graph), (otorch, ograph)):
        # outside the context: the usual error
        a = mod.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()
        # backward after leaving the context in which the graph was recorded
        with graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            out = (b ** 2).sum()
        with pytest.raises(AssertionError, match="allow_mutation_on_saved_tensors"):
            out.backward()
        # not nestable
        with pytest.raises(RuntimeError, match="cannot be nested"):
            with graph.allow_mutation_on_saved_tensors():
                with graph.allow_mutation_on_saved_tensors():
                    pass


def test_allow_mutation_costs_one_copy_per_mutated_saved_tensor():
    n = 1000
    with ograph.allow_mutation_on_saved_tensors():
        a = otorch.randn(n, dtype=otorch.float64, requires_grad=True)
        b = a.clone()
        c = a.clone()
        out = (b * b).sum() + (c * c).sum()   # b saved twice (one copy), c saved twice
        gc.collect()
        before = oar.memory_allocated()
        with otorch.no_grad():
            b.add_(1.0)                      # copies b's saved value once: 8 n bytes
        assert oar.memory_allocated() - before == 8 * n
        with otorch.no_grad():
            b.add_(1.0)                      # b's new value is saved by nothing: no copy
            c.mul_(2.0)                      # c: one more copy
        assert oar.memory_allocated() - before == 2 * 8 * n
        out.backward()
    np.testing.assert_allclose(a.grad.numpy(), 4 * a.detach().numpy(), rtol=1e-12)


def test_optimizer_step_inside_allow_mutation_keeps_backward_exact():
    """An optimizer step is an in-place write: inside allow_mutation_on_saved_tensors it copies
    the saved parameter first, as torch does (x.grad uses w's value before the step)."""
    torch = pytest.importorskip("torch")
    import oar.torch as ot

    def run(T):
        w = T.nn.Parameter(T.tensor([[1.0, 2.0], [3.0, -1.0]]))
        x = T.tensor([[1.0, 0.5]], requires_grad=True)
        opt = T.optim.SGD([w], lr=0.5)
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            y = (x @ w).sin().sum()      # matmul saves w for x's gradient
            (w * 1.0).sum().backward()   # a gradient for w
            opt.step()                   # writes w, which y's graph saved
            y.backward()
        return x.grad.numpy().copy(), w.detach().numpy().copy()

    for want, got in zip(run(torch), run(ot)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
