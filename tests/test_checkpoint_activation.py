"""Activation checkpointing (Note [Checkpoint]): exact gradients, RNG restored, BatchNorm,
in-place ops inside, argument forms, PyTorch 2.13's use_reentrant rules, and the memory
it saves, to the byte."""
import gc
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.autograd.errors import SavedTensorModifiedError
from oar.torch.utils.checkpoint import checkpoint, checkpoint_sequential
from oar.utils import checkpoint as core_ck

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

nn = otorch.nn


def _mlp(dt, dropout=0.0, bn=False):
    otorch.manual_seed(0)
    layers = [nn.Linear(6, 16), nn.ReLU(), nn.Dropout(dropout), nn.Linear(16, 16)]
    if bn:
        layers.append(nn.BatchNorm1d(16))
    layers += [nn.Tanh(), nn.Linear(16, 16), nn.ReLU(inplace=True), nn.Linear(16, 3)]
    return nn.Sequential(*layers).to(dt)


def _grads(model, run, dt, seed=1):
    otorch.manual_seed(seed)
    x = otorch.randn(8, 6, dtype=dt, requires_grad=True)
    y = run(model, x)
    (y * y).sum().backward()
    return [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("dropout", [0.0, 0.4])
def test_gradients_bitwise_equal(dt, dropout):
    dt = getattr(otorch, dt)
    want = _grads(_mlp(dt, dropout), lambda m, x: m(x), dt)
    for run in (lambda m, x: checkpoint_sequential(m, 3, x, use_reentrant=False),
                lambda m, x: checkpoint(m, x, use_reentrant=False),
                lambda m, x: m[5:](checkpoint(lambda t: m[:5](t), x, use_reentrant=False))):
        got = _grads(_mlp(dt, dropout), run, dt)
        for g, w in zip(got, want):
            assert np.array_equal(g, w)


def test_cnn_gradients_bitwise_equal_and_match_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint as tck

    def build(mod):
        mod.manual_seed(0)
        m = mod.nn.Sequential(mod.nn.Conv2d(2, 4, 3, padding=1), mod.nn.ReLU(),
                              mod.nn.Conv2d(4, 4, 3), mod.nn.Tanh())
        return m.double()
    tm, om = build(torch), build(otorch)
    om.load_state_dict({k: otorch.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    a = np.random.default_rng(0).standard_normal((2, 2, 6, 6))
    res = []
    for mod, m, ck in ((torch, tm, tck), (otorch, om, None), (otorch, om, checkpoint)):
        for p in m.parameters():
            p.grad = None
        x = mod.tensor(a, requires_grad=True)
        y = m(x) if ck is None else ck(m, x, use_reentrant=False)
        y.pow(2).sum().backward()
        res.append([x.grad.numpy().copy()] + [p.grad.numpy().copy() for p in m.parameters()])
    for t, plain, ck in zip(*res):
        assert np.array_equal(plain, ck)
        np.testing.assert_allclose(ck, t, rtol=1e-10, atol=1e-12)


def test_batchnorm_inside_updates_running_stats_as_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint as tck
    a = np.random.default_rng(3).standard_normal((6, 4))
    stats = []
    for mod, ck in ((torch, tck), (otorch, checkpoint)):
        bn = mod.nn.BatchNorm1d(4).double()
        lin = mod.nn.Linear(4, 4).double()
        x = mod.tensor(a, requires_grad=True)
        y = ck(lambda t: bn(lin(t)) if mod is otorch else bn(lin(t)), x, use_reentrant=False)
        after_forward = int(bn.num_batches_tracked)
        y.sum().backward()
        stats.append((after_forward, int(bn.num_batches_tracked)))
    # PyTorch reruns the whole function at backward: the statistics update twice
    assert stats[1] == stats[0] == (1, 2)


def test_batchnorm_gradients_exact():
    dt = otorch.float64
    want = _grads(_mlp(dt, bn=True), lambda m, x: m(x), dt)
    got = _grads(_mlp(dt, bn=True), lambda m, x: checkpoint(m, x, use_reentrant=False), dt)
    for g, w in zip(got, want):
        assert np.array_equal(g, w)


def test_inplace_ops_inside_the_segment():
    def f(x, w):
        h = x @ w
        h.add_(1.0)          # in place on an intermediate
        h.relu_()
        g = h * 2
        g.mul_(h)            # mul_ by a saved tensor: old value kept by the mechanism
        return g.tanh()
    a = np.random.default_rng(5).standard_normal((4, 3))
    b = np.random.default_rng(6).standard_normal((3, 5))
    out = []
    for ck in (False, True):
        x = otorch.tensor(a, requires_grad=True)
        w = otorch.tensor(b, requires_grad=True)
        y = checkpoint(f, x, w, use_reentrant=False) if ck else f(x, w)
        y.sum().backward()
        out.append((x.grad.numpy(), w.grad.numpy()))
    assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])


def test_mutating_a_saved_tensor_inside_is_caught():
    def f(x):
        h = x * 2
        y = h.exp()          # saves its output
        y.add_(1.0)          # ... then changes it: an error without checkpointing too
        return y * y
    for ck in (False, True):
        x = otorch.randn(3, requires_grad=True)
        y = checkpoint(f, x, use_reentrant=False) if ck else f(x)
        with pytest.raises(SavedTensorModifiedError):
            y.sum().backward()


def test_early_stop_skips_a_mutation_after_the_last_save():
    # the rerun stops once the last saved tensor is saved (Note [Checkpoint]), so a change
    # after it is not rerun: the gradient is exp's, exactly (oar without checkpointing
    # refuses, since exp's saved output was changed)
    def f(x):
        y = (x * 2).exp()
        y.add_(1.0)
        return y
    a = np.random.default_rng(7).standard_normal(3)
    x = otorch.tensor(a, requires_grad=True)
    checkpoint(f, x, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * a), rtol=1e-15)


def test_input_mutated_after_forward_is_caught():
    x = otorch.randn(3, requires_grad=True)
    h = x * 1
    y = checkpoint(lambda t: t.sin(), h, use_reentrant=False)
    h.add_(1.0)
    with pytest.raises(SavedTensorModifiedError):
        y.sum().backward()


def test_argument_forms():
    w = otorch.randn(3, 3, dtype=otorch.float64, requires_grad=True)

    def f(x, scale=1.0, *, shift):
        h = (x @ w) * scale + shift
        return h.sin(), "tag", h.cos()
    x = otorch.randn(2, 3, dtype=otorch.float64)   # input not requiring grad
    a, tag, b = checkpoint(f, x, 2.0, shift=0.5, use_reentrant=False)
    assert tag == "tag"
    (a.sum() + b.sum()).backward()
    g_ck = w.grad.numpy().copy()
    w.grad = None
    a, _, b = f(x, 2.0, shift=0.5)
    (a.sum() + b.sum()).backward()
    assert np.array_equal(g_ck, w.grad.numpy())
    with otorch.no_grad():   # no graph: the function just runs
        assert checkpoint(f, x, shift=0.0, use_reentrant=False)[1] == "tag"


def test_core_spelling_paddle_door():
    # Paddle 3.3 has no paddle.utils.checkpoint (it has fleet.utils.recompute): the core's
    paddle = pytest.importorskip("paddle")
    assert not hasattr(paddle.utils, "checkpoint")
    assert core_ck.recompute is core_ck.checkpoint
    oar.seed(0)
    lin = oar.nn.Linear(4, 4)
    x = oar.randn([3, 4])
    x.stop_gradient = False
    y = core_ck.checkpoint(lambda t: oar.nn.functional.dropout(lin(t).tanh(), 0.5), x)
    y.sum().backward()
    g = x.grad.numpy().copy()
    x.clear_gradient()
    oar.seed(0)
    lin2 = oar.nn.Linear(4, 4)
    lin2.set_state_dict(lin.state_dict())
    # same random stream position as the checkpointed forward: re-draw x's RNG use
    oar.randn([3, 4])
    y2 = oar.nn.functional.dropout(lin2(x).tanh(), 0.5)
    y2.sum().backward()
    assert np.array_equal(g, x.grad.numpy())


def test_use_reentrant_rules_match_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint as tck
    msgs = []
    for ck, mod in ((tck, torch), (checkpoint, otorch)):
        x = mod.randn(3, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ck(lambda t: t * 2, x)
        ws = [m for m in w if "use_reentrant" in str(m.message)]
        assert ws and ws[0].category is UserWarning
        msgs.append(str(ws[0].message))
        with pytest.raises(ValueError, match="Unexpected keyword arguments: a"):
            ck(lambda t, a=1: t * a, x, a=2, use_reentrant=True)
        with pytest.raises(ValueError, match="determinism_check should be one of"):
            ck(lambda t: t, x, use_reentrant=False, determinism_check="bad")
        with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
            ck(lambda t: t, x, use_reentrant=True, debug=True)
        y = mod.randn(3)   # reentrant, no input requires grad: warning, no gradient
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = ck(lambda t: t * x, y, use_reentrant=True)
        assert any("None of the inputs have requires_grad=True" in str(m.message) for m in w)
        assert not out.requires_grad
    assert msgs[0] == msgs[1]


def test_four_blocks_peak_memory_to_the_byte():
    # 4 blocks of [Linear(D, H), ReLU, Linear(H, D), ReLU], frozen weights, an input that
    # requires grad, checkpoint_sequential(model, 4, x): blocks 1-3 checkpointed, block 4
    # run normally (PyTorch's split). B = N*D*8 bytes (a block boundary), A = N*H*8 (a wide
    # activation), R = the bytes of one saved RNG state (the PyTorch door's generator
    # state, a uint8 tensor, kept per checkpoint). Activations kept per block without
    # checkpointing: ReLU saves its output (A and B); the Linear layers save only their
    # frozen weight. x is counted in the baseline.
    #   after the forward: the inputs that checkpoints 2 and 3 keep (2 B), block 4's saved
    #     activations (A + B; its B is the output y) and 3 RNG states:   3B + A + 3R
    #     (without checkpointing: 4 (A + B))
    #   forward peak: in block 4's first ReLU, its input and output (2A) are alive with
    #     the boundaries h1, h2, h3 (h3 is still referenced by the caller): 3B + 2A + 3R
    #   backward peak: recomputing block 3 (the first recomputation), in its first ReLU:
    #     2A alive with h1, h2 (kept by checkpoints 2, 3), y, the incoming gradient (B), the
    #     3 saved RNG states plus the current state set aside during the rerun (4R), and
    #     the 0-d loss and its gradient (16 bytes): 4B + 2A + 4R + 16
    N, D, H = 64, 32, 128
    B, A = N * D * 8, N * H * 8
    R = otorch.get_rng_state().numel()

    def build():
        otorch.manual_seed(0)
        layers = []
        for _ in range(4):
            layers += [nn.Linear(D, H), nn.ReLU(), nn.Linear(H, D), nn.ReLU()]
        m = nn.Sequential(*layers).double()
        for p in m.parameters():
            p.requires_grad_(False)
        return m

    def measure(ck):
        m = build()
        x = otorch.randn(N, D, dtype=otorch.float64, requires_grad=True)
        gc.collect()
        base = oar.memory_allocated()
        oar.reset_max_memory_allocated()
        y = checkpoint_sequential(m, 4, x, use_reentrant=False) if ck else m(x)
        after = oar.memory_allocated() - base
        fwd_peak = oar.max_memory_allocated() - base
        oar.reset_max_memory_allocated()
        y.sum().backward()
        bwd_peak = oar.max_memory_allocated() - base
        g = x.grad.numpy().copy()
        del y, m, x
        gc.collect()
        return after, fwd_peak, bwd_peak, g

    plain = measure(False)
    ck = measure(True)
    assert np.array_equal(plain[3], ck[3])
    assert plain[0] == 4 * (A + B)
    assert ck[0] == 3 * B + A + 3 * R
    assert ck[1] == 3 * B + 2 * A + 3 * R
    assert ck[2] == 4 * B + 2 * A + 4 * R + 16
    assert ck[2] < plain[0]   # the whole backward stays below the plain forward's keep
