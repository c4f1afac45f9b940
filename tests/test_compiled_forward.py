"""torch.compile(model): a replayed forward whose backward runs outside it, as one node whose
backward is a replay (Note [Compiled forward]). References: the same model run eagerly by
oar (bit for bit: the replay runs the same kernels), and torch 2.13 for the API's shape."""
import gc
import warnings

import numpy as np
import pytest

import oar
import oar.torch as torch
from oar._capture import CaptureError
from oar.storage import memory_allocated

F = torch.nn.functional
RNG = np.random.default_rng(0)
XS = [RNG.standard_normal((8, 16)).astype(np.float32) for _ in range(3)]
YS = [RNG.integers(0, 4, 8) for _ in range(3)]


def _mlp(bn=False):
    torch.manual_seed(0)
    nn = torch.nn
    layers = [nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32)]
    if bn:
        layers.append(nn.BatchNorm1d(32))
    return nn.Sequential(*layers, nn.Tanh(), nn.Linear(32, 4))


def _grads(m):
    out = [None if p.grad is None else p.grad.numpy().tobytes() for p in m.parameters()]
    for p in m.parameters():
        p.grad = None
    return out


def _pair(bn=False):
    eager, m = _mlp(bn), _mlp(bn)
    return eager, m, torch.compile(m)


def test_replayed_steps_equal_eager_bit_for_bit():
    eager, m, c = _pair()
    for i in range(8):
        x, y = torch.tensor(XS[i % 3]), torch.tensor(YS[i % 3])
        l1 = F.cross_entropy(eager(x), y)
        out = c(x)
        l2 = F.cross_entropy(out, y)
        l1.backward()
        l2.backward()
        assert l1.item() == l2.item()
        assert _grads(eager) == _grads(m)
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    assert c._compiled.stats["replays"] == 5 and c._compiled.stats["busy"] == 0


def test_optimized_module_api_as_torch():
    T = pytest.importorskip("torch")
    mods = [lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU()) for lib in (T, torch)]
    for mod in mods:
        mod.tag = 5
    ref, ours = (lib.compile(mod) for lib, mod in zip((T, torch), mods))
    assert type(ours).__name__ == type(ref).__name__ == "OptimizedModule"
    assert list(ours.state_dict()) == list(ref.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert isinstance(ours, torch.nn.Module) and ours._orig_mod[0].in_features == 2
    assert ours.tag == ref.tag == 5   # other attributes are the module's


def test_input_with_history_gets_its_gradient():
    eager, m, c = _pair()
    for i in range(5):
        a1 = torch.tensor(XS[i % 3], requires_grad=True)
        a2 = torch.tensor(XS[i % 3], requires_grad=True)
        (eager(a1 * 2) ** 2).sum().backward()
        (c(a2 * 2) ** 2).sum().backward()
        assert a1.grad.numpy().tobytes() == a2.grad.numpy().tobytes()
        assert _grads(eager) == _grads(m)
    assert c._compiled.stats["replays"] == 2


def _warm(c, n=4):
    for i in range(n):
        c(torch.tensor(XS[i % 3])).sum().backward()


def test_saved_input_modified_in_place_raises_as_eager():
    eager, m, c = _pair()
    _warm(c)
    for model in (eager, c):
        x = torch.tensor(XS[0], requires_grad=True) * 1.0
        out = model(x)
        with torch.no_grad():
            x.add_(1.0)   # the first Linear saved x for its weight's gradient
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_parameter_modified_in_place_raises_as_eager():
    eager, m, c = _pair()
    _warm(c)
    for model in (eager, m):
        out = (c if model is m else eager)(torch.tensor(XS[0]))
        with torch.no_grad():
            model[2].weight.mul_(2.0)   # saved for the first layer's output's gradient
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_two_forwards_before_backward():
    eager, m, c = _pair()
    _warm(c)
    _grads(m)
    x1, x2 = torch.tensor(XS[0]), torch.tensor(XS[1])
    (eager(x1).sum() + eager(x2).pow(2).sum()).backward()
    (c(x1).sum() + c(x2).pow(2).sum()).backward()   # the second call runs eagerly
    assert c._compiled.stats["busy"] == 1
    assert _grads(eager) == _grads(m)
    c(x1).sum().backward()   # the pool is free again
    assert c._compiled.stats["busy"] == 1


def test_retain_graph_twice_and_a_third_backward_refused():
    eager, m, c = _pair()
    _warm(c)
    _grads(m)
    x = torch.tensor(XS[2])
    for model in (eager, c):
        loss = model(x).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()
    assert _grads(eager) == _grads(m)


def test_double_backward_refused():
    _, _, c = _pair()
    for i in range(4):
        c(torch.tensor(XS[i % 3], requires_grad=True)).sum().backward()
    x = torch.tensor(XS[0], requires_grad=True)
    out = c(x).sum()
    assert c._compiled.stats["replays"] == 2
    with pytest.raises(RuntimeError, match="double backward"):
        torch.autograd.grad(out, x, create_graph=True)


def test_no_grad_replays_the_forward_alone():
    eager, m, c = _pair()
    with torch.no_grad():
        for i in range(5):
            x = torch.tensor(XS[i % 3])
            a, b = eager(x), c(x)
            assert b.grad_fn is None and a.numpy().tobytes() == b.numpy().tobytes()
    assert c._compiled._infer.stats["replays"] == 2


def test_parameter_that_starts_to_require_grad_is_recorded_again():
    eager, m, c = _pair()
    for model in (eager, m):
        model[0].weight.requires_grad_(False)
    _warm(c)
    _grads(m)
    for model in (eager, m):
        model[0].weight.requires_grad_(True)
    x = torch.tensor(XS[0])
    eager(x).sum().backward()
    c(x).sum().backward()
    assert eager[0].weight.grad is not None and m[0].weight.grad is not None
    assert _grads(eager) == _grads(m)


def test_batch_norm_running_stats_and_eval_switch():
    eager, m, c = _pair(bn=True)
    for i in range(6):
        x = torch.tensor(XS[i % 3])
        eager(x).sum().backward()
        c(x).sum().backward()
        assert _grads(eager) == _grads(m)
    for a, b in zip(eager.buffers(), m.buffers()):
        assert a.numpy().tobytes() == b.numpy().tobytes()
    eager.eval()
    c.eval()   # the guard sees the layers' training flags: recorded again
    x = torch.tensor(XS[0])
    assert eager(x).detach().numpy().tobytes() == c(x).detach().numpy().tobytes()


def test_closure_tensor_with_history_is_a_graph_break():
    w = torch.ones(16, requires_grad=True) * 2.0

    def f(x):
        return (x * w).sum()

    g = torch.compile(f)
    x = torch.tensor(XS[0])
    with pytest.warns(RuntimeWarning, match="not one of its arguments"):
        for _ in range(4):
            g(x).backward(retain_graph=True)
    assert g.stats["replays"] == 0
    h = torch.compile(f, fullgraph=True)
    h(x)
    with pytest.raises(CaptureError):
        h(x)


def test_compiled_function_default_mode():
    torch.manual_seed(0)
    w = torch.randn(16, 4, requires_grad=True)

    def f(x, w):
        return torch.tanh(x @ w).sum()

    g = torch.compile(f)
    for i in range(6):
        x = torch.tensor(XS[i % 3])
        w1 = w.detach().clone().requires_grad_()
        f(x, w1).backward()
        w2 = w.detach().clone().requires_grad_()
        g(x, w2).backward()
        assert w1.grad.numpy().tobytes() == w2.grad.numpy().tobytes()
    assert g.stats["replays"] == 3


def test_memory_after_a_step_as_eager(no_gc):
    eager, m, c = _pair()
    _warm(c)
    _grads(m)
    x = torch.tensor(XS[0])
    gc.collect()
    levels = []
    for model in (eager, c):
        before = memory_allocated()
        out = model(x)
        during = memory_allocated() - before
        out.sum().backward()
        del out
        levels.append((during > 0, memory_allocated() - before))
    # after backward the same bytes are held (the .grad of every parameter), nothing more
    assert levels[0] == levels[1]


def test_grad_does_not_run_an_inputs_own_history():
    T = pytest.importorskip("torch")
    calls = {}
    for lib in (torch, T):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                calls[lib] = calls.get(lib, 0) + 1
                return g * 2
        a = lib.ones(3, requires_grad=True)
        x = Twice.apply(a)
        (gx,) = lib.autograd.grad((x * x).sum(), x)
        assert gx.tolist() == [4.0, 4.0, 4.0]
    assert calls.get(torch, 0) == calls.get(T, 0) == 0


def test_warm_up_and_capture_calls_return_eager_graphs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, _, c = _pair()
        for i in range(3):
            out = c(torch.tensor(XS[i]))
            assert type(out.grad_fn).__name__ == "AddmmBackward0"
            out.sum().backward()
        assert c._compiled.stats == {"eager": 1, "captures": 2, "replays": 0, "busy": 0}
    assert oar.jit is not None


def test_pool_is_free_once_an_output_dies_without_backward(no_gc):
    _, _, c = _pair()
    _warm(c)
    for i in range(3):
        c(torch.tensor(XS[i]))   # dropped at once: its node goes (no cycle keeps it)
    assert c._compiled.stats["busy"] == 0 and c._compiled.stats["replays"] == 4


class _Transposed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.w = torch.nn.Parameter(torch.randn(4, 16))

    def forward(self, x):
        return torch.tanh(x @ self.w.t())   # a view made inside the call reads the weight


def test_weight_read_through_a_view_that_starts_to_require_grad():
    eager, m = _Transposed(), _Transposed()
    c = torch.compile(m)
    for model in (eager, m):
        model.w.requires_grad_(False)
    for i in range(4):
        c(torch.tensor(XS[i % 3], requires_grad=True)).sum().backward()
    for model in (eager, m):
        model.w.requires_grad_(True)
    x = torch.tensor(XS[0], requires_grad=True)
    eager(x).sum().backward()
    c(x).sum().backward()
    assert m.w.grad is not None
    assert eager.w.grad.numpy().tobytes() == m.w.grad.numpy().tobytes()


def test_dropout_draws_the_torch_stream_as_eager():
    def make():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Dropout(0.5),
                                   torch.nn.Linear(32, 4))
    eager, m = make(), make()
    c = torch.compile(m)
    outs = {}
    for model in (eager, c):
        torch.manual_seed(1)   # the same torch-exact stream for both runs
        got = []
        for i in range(6):
            out = model(torch.tensor(XS[i % 3]))
            out.pow(2).sum().backward()
            got.append(out.detach().numpy().tobytes())
        outs[id(model)] = got
    assert outs[id(eager)] == outs[id(c)]
    assert _grads(eager) == _grads(m)
    assert c._compiled.stats["replays"] == 3


class _MnistNet(torch.nn.Module):
    """pytorch/examples' mnist Net (for 8x8 inputs): conv, max_pool2d, dropout,
    log_softmax; trained with nll_loss and Adadelta as that program does."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.conv1, self.conv2 = nn.Conv2d(1, 32, 3, 1), nn.Conv2d(32, 64, 3, 1)
        self.dropout1, self.dropout2 = nn.Dropout(0.25), nn.Dropout(0.5)
        self.fc1, self.fc2 = nn.Linear(256, 128), nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        x = F.relu(self.fc1(torch.flatten(self.dropout1(x), 1)))
        return F.log_softmax(self.fc2(self.dropout2(x)), dim=1)


def test_mnist_example_trains_as_eager():
    rng = np.random.default_rng(0)
    xs = [torch.tensor(rng.standard_normal((16, 1, 8, 8)).astype(np.float32)) for _ in range(3)]
    ys = [torch.tensor(rng.integers(0, 10, 16)) for _ in range(3)]
    losses = []
    for compiled in (False, True):
        torch.manual_seed(0)
        m = _MnistNet()
        opt = torch.optim.Adadelta(m.parameters(), lr=1.0)
        model = torch.compile(m) if compiled else m
        torch.manual_seed(1)
        got = []
        for i in range(8):
            opt.zero_grad()
            loss = F.nll_loss(model(xs[i % 3]), ys[i % 3])
            loss.backward()
            opt.step()
            got.append(loss.item())
        losses.append(got)
    assert losses[0] == losses[1]
    assert model._compiled.stats["replays"] == 5
