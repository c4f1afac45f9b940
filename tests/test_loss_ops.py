"""The losses that PyTorch computes as one op are one op here too (Note [Loss ops]): mse_loss,
binary_cross_entropy(_with_logits), smooth_l1_loss and huber_loss. Their node is named as
PyTorch names it, its next_functions are the (input, target) edges, values and gradients (of
input and target, every reduction, broadcasting, weight and pos_weight) agree with torch 2.13
computed here, gradients pass gradcheck / gradgradcheck in float64, the node keeps no
intermediate buffer, both doors share the op, and oar.jit replays a step that uses them.
Also the PyTorch door's 2-D linear with a bias walks as PyTorch's addmm (Note [Addmm input
order])."""
import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar import storage
from oar.autograd.gradcheck import gradcheck, gradgradcheck

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

OF = otorch.nn.functional
PF = oar.nn.functional
REDUCTIONS = ["mean", "sum", "none"]


def _torch():
    return pytest.importorskip("torch")


def _rng(seed=0):
    return np.random.default_rng(seed)


# name -> (input maker, target maker, call(F, input, target, reduction, extra), extra kwargs)
def _logits(rng, shape):
    return rng.standard_normal(shape) * 3


def _probs(rng, shape):
    return rng.uniform(0.05, 0.95, shape)


CASES = {
    "mse": (_logits, _logits, lambda F, x, t, r, kw: F.mse_loss(x, t, reduction=r, **kw), {}),
    "bce_logits": (_logits, _probs, lambda F, x, t, r, kw:
                   F.binary_cross_entropy_with_logits(x, t, reduction=r, **kw), {}),
    "bce_logits_w": (_logits, _probs, lambda F, x, t, r, kw:
                     F.binary_cross_entropy_with_logits(x, t, reduction=r, **kw),
                     {"weight": (4,), "pos_weight": (4,)}),
    "bce": (_probs, _probs, lambda F, x, t, r, kw:
            F.binary_cross_entropy(x, t, reduction=r, **kw), {}),
    "bce_w": (_probs, _probs, lambda F, x, t, r, kw:
              F.binary_cross_entropy(x, t, reduction=r, **kw), {"weight": (3, 4)}),
    "smooth_l1": (_logits, _logits, lambda F, x, t, r, kw:
                  F.smooth_l1_loss(x, t, reduction=r, beta=0.7), {}),
    "huber": (_logits, _logits, lambda F, x, t, r, kw:
              F.huber_loss(x, t, reduction=r, delta=1.3), {}),
}


def _make(case, dtype, seed=0):
    torch = _torch()
    mk_x, mk_t, call, kw_shapes = CASES[case]
    rng = _rng(seed)
    x, t = mk_x(rng, (3, 4)).astype(dtype), mk_t(rng, (3, 4)).astype(dtype)
    kws = {k: rng.uniform(0.5, 2.0, s).astype(dtype) for k, s in kw_shapes.items()}
    ox = otorch.tensor(x, requires_grad=True)
    ot = otorch.tensor(t, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    tt = torch.tensor(t, requires_grad=True)
    okw = {k: otorch.tensor(v) for k, v in kws.items()}
    tkw = {k: torch.tensor(v) for k, v in kws.items()}
    return call, (ox, ot, okw), (tx, tt, tkw)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_node_name_and_next_functions_match_torch(case, reduction):
    call, (ox, ot, okw), (tx, tt, tkw) = _make(case, np.float32)
    for target_grad in (False, True):
        o = call(OF, ox, ot if target_grad else ot.detach(), reduction, okw)
        t = call(__import__("torch").nn.functional, tx, tt if target_grad else tt.detach(),
                 reduction, tkw)
        assert o.grad_fn.name() == t.grad_fn.name()
        assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__
        names = [None if n is None else type(n).__name__ for n, _ in o.grad_fn.next_functions]
        tnames = [None if n is None else type(n).__name__ for n, _ in t.grad_fn.next_functions]
        assert names == tnames


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_gradients_match_torch(case, reduction, dtype):
    torch = _torch()
    call, (ox, ot, okw), (tx, tt, tkw) = _make(case, dtype, seed=3)
    o = call(OF, ox, ot, reduction, okw)
    t = call(torch.nn.functional, tx, tt, reduction, tkw)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    assert o.dtype.name == str(t.dtype).replace("torch.", "")
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), **tol)
    g = _rng(5).standard_normal(tuple(t.shape)).astype(dtype)
    o.backward(otorch.tensor(g))
    t.backward(torch.tensor(g))
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), **tol)
    np.testing.assert_allclose(ot.grad.numpy(), tt.grad.numpy(), **tol)


@pytest.mark.parametrize("fname,kw", [("mse_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
                                      ("huber_loss", {"delta": 0.5})])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_broadcast_target_matches_torch(fname, kw, reduction):
    torch = _torch()
    rng = _rng(7)
    x, t = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    ox, ot = otorch.tensor(x, requires_grad=True), otorch.tensor(t, requires_grad=True)
    tx, tt = torch.tensor(x, requires_grad=True), torch.tensor(t, requires_grad=True)
    with pytest.warns(UserWarning):
        o = getattr(OF, fname)(ox, ot, reduction=reduction, **kw)
    with pytest.warns(UserWarning):
        r = getattr(torch.nn.functional, fname)(tx, tt, reduction=reduction, **kw)
    assert o.grad_fn.name() == r.grad_fn.name()
    np.testing.assert_allclose(o.detach().numpy(), r.detach().numpy(), rtol=1e-12)
    o.sum().backward()
    r.sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ot.grad.numpy(), tt.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradcheck_and_gradgradcheck_float64(case, reduction):
    call, (ox, ot, okw), _ = _make(case, np.float64, seed=11)

    def fn(x, t):
        return call(OF, x, t, reduction, okw)
    assert gradcheck(fn, (ox, ot))
    if not case.startswith(("smooth", "huber")):   # piecewise: the 2nd derivative jumps
        assert gradgradcheck(fn, (ox, ot))
    else:   # away from the kinks the create_graph formula is differentiable too
        assert gradgradcheck(fn, (ox * 0.01, ot.detach() * 0.0))


@pytest.mark.parametrize("case", sorted(CASES))
def test_node_keeps_no_intermediate_buffer(case):
    call, (ox, ot, okw), _ = _make(case, np.float64)
    t = ot.detach()
    before = storage.memory_allocated()
    loss = call(OF, ox, t, "mean", okw)
    # the node saves references to its inputs; the only new memory is the 0-d result
    assert storage.memory_allocated() - before == loss.detach().numpy().nbytes
    loss.backward()
    assert ox.grad is not None


def test_paddle_door_uses_the_same_ops():
    x = oar.to_tensor(np.linspace(-2, 2, 12).reshape(3, 4), stop_gradient=False)
    y = oar.to_tensor(np.linspace(0.1, 0.9, 12).reshape(3, 4))
    names = [PF.mse_loss(x, y).grad_fn.name(),
             PF.binary_cross_entropy_with_logits(x, y).grad_fn.name(),
             PF.binary_cross_entropy(PF.sigmoid(x), y).grad_fn.name(),
             PF.smooth_l1_loss(x, y).grad_fn.name(),                       # Paddle's: Huber
             PF.smooth_l1_loss(x, y, is_huber=False).grad_fn.name()]
    assert names == ["MseLossBackward0", "BinaryCrossEntropyWithLogitsBackward0",
                     "BinaryCrossEntropyBackward0", "HuberLossBackward0",
                     "SmoothL1LossBackward0"]
    loss = oar.nn.MSELoss()(x, y)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (x.numpy() - y.numpy()) / 12, rtol=1e-12)


def test_outside_the_op_the_composition_still_runs():
    torch = _torch()
    # integer target: no single op, the composition's promotion and values as before
    x = otorch.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
    y = otorch.tensor([[1, 0], [0, 1]])
    o = OF.mse_loss(x, y)
    r = torch.nn.functional.mse_loss(torch.tensor(x.detach().numpy()), torch.tensor(y.numpy()))
    np.testing.assert_allclose(o.detach().numpy(), r.numpy(), rtol=1e-6)
    # a weight that requires grad: PyTorch refuses its gradient, oar's composition gives it
    w = otorch.tensor([1.0, 2.0], requires_grad=True)
    loss = OF.binary_cross_entropy_with_logits(x, y.float(), weight=w)
    loss.backward()
    assert w.grad is not None and x.grad is not None


def test_jit_replays_a_step_with_the_loss_ops():
    rng = _rng(2)
    xs = [oar.to_tensor(rng.standard_normal((8, 6)).astype(np.float32)) for _ in range(3)]
    ys = [oar.to_tensor(rng.uniform(0, 1, (8, 2)).astype(np.float32)) for _ in range(3)]
    pw = oar.to_tensor(np.array([1.5, 0.5], np.float32))

    def build():
        oar.seed(0)
        m = oar.nn.Linear(6, 2)
        opt = oar.optimizer.SGD(parameters=m.parameters(), learning_rate=0.1)

        def step(x, y):
            out = m(x)
            loss = (PF.mse_loss(out, y) + PF.binary_cross_entropy_with_logits(out, y, pos_weight=pw)
                    + PF.smooth_l1_loss(out, y) + PF.binary_cross_entropy(PF.sigmoid(out), y))
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        return m, step
    m1, eager = build()
    m2, step = build()
    jitted = oar.jit(step)
    for i in range(10):
        a, b = eager(xs[i % 3], ys[i % 3]), jitted(xs[i % 3], ys[i % 3])
        assert a.numpy().tobytes() == b.numpy().tobytes(), i
        for p, q in zip(m1.parameters(), m2.parameters()):
            assert p.numpy().tobytes() == q.numpy().tobytes(), i
    assert jitted.stats["replays"] >= 5


def test_torch_linear_walks_as_addmm():
    torch = _torch()
    rng = _rng(4)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    otorch.manual_seed(0)
    ol = otorch.nn.Linear(3, 2)
    tl = torch.nn.Linear(3, 2)
    with torch.no_grad():
        tl.weight.copy_(torch.tensor(ol.weight.detach().numpy()))
        tl.bias.copy_(torch.tensor(ol.bias.detach().numpy()))
    ox = otorch.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    o, t = ol(ox.relu()), tl(tx.relu())
    assert o.grad_fn.name() == t.grad_fn.name() == "AddmmBackward0"
    on = [type(n).__name__ for n, _ in o.grad_fn.next_functions]
    tn = [type(n).__name__ for n, _ in t.grad_fn.next_functions]
    assert on[:2] == tn[:2] == ["AccumulateGrad", "ReluBackward0"]   # bias, input
    assert o.grad_fn.next_functions[0][0].variable is ol.bias
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-6)
    g = rng.standard_normal((5, 2)).astype(np.float32)
    o.backward(otorch.tensor(g))
    t.backward(torch.tensor(g))
    for a, b in [(ox.grad, tx.grad), (ol.weight.grad, tl.weight.grad),
                 (ol.bias.grad, tl.bias.grad)]:
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_loss_is_one_op_matching_torch(weighted, reduction, dtype):
    torch = _torch()
    rng = _rng(9)
    x = rng.standard_normal((6, 4)).astype(dtype)
    y = np.array([0, 3, -100, 1, 3, 2])
    w = rng.uniform(0.5, 2.0, 4).astype(dtype) if weighted else None
    ox, tx = otorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    okw = {"weight": otorch.tensor(w)} if weighted else {}
    tkw = {"weight": torch.tensor(w)} if weighted else {}
    o = OF.nll_loss(OF.log_softmax(ox, 1), otorch.tensor(y), reduction=reduction, **okw)
    t = torch.nn.functional.nll_loss(tx.log_softmax(1), torch.tensor(y), reduction=reduction,
                                     **tkw)
    assert o.grad_fn.name() == t.grad_fn.name() == "NllLossBackward0"
    assert len(o.grad_fn.next_functions) == len(t.grad_fn.next_functions) == 1
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), **tol)
    g = _rng(1).standard_normal(tuple(t.shape)).astype(dtype)
    o.backward(otorch.tensor(g))
    t.backward(torch.tensor(g))
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), **tol)


def test_nll_loss_gradcheck_and_every_target_ignored():
    torch = _torch()
    x = otorch.tensor(_rng(3).standard_normal((5, 3)), requires_grad=True)
    y = otorch.tensor([2, 0, -100, 1, 1])
    w = otorch.tensor([0.5, 2.0, 1.5], dtype=otorch.float64)
    for r in REDUCTIONS:
        assert gradcheck(lambda a: OF.nll_loss(a, y, weight=w, reduction=r), (x,))
        assert gradgradcheck(lambda a: OF.nll_loss(a, y, weight=w, reduction=r), (x,))
    ign = np.full(5, -100)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    o = OF.nll_loss(x, otorch.tensor(ign))
    t = torch.nn.functional.nll_loss(tx, torch.tensor(ign))
    assert np.isnan(o.item()) and np.isnan(t.item())
    o.backward()
    t.backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
