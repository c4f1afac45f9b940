"""oar.jit and torch.compile on the test-only fake GPU (Note [Replay on a device], Note
[Fake device]): a whole-step capture and a compiled forward replay on the device bit for bit
as the same step run eagerly on the device, their buffers and results stay device arrays,
the device's memory counters read as eager's and the CPU's do not move. References: the
eager run on the fake device (which tests/test_gpu_fake.py checks bit for bit against the
CPU)."""
import numpy as np
import pytest

import oar
import oar.torch as torch
from oar import _xp, storage
from oar._capture import CaptureError
from oar.torch._compile import compile as torch_compile
from tests.test_jit_replay import _data, _model, _state, _step
# the device of tests/test_gpu_fake.py: the fake one, or CuPy's with OAR_GPU_REAL=1
from tests.test_gpu_fake import REAL, dev  # noqa: F401

pytestmark = pytest.mark.usefixtures("no_gc")
GPU = oar.place.Place("gpu", 0)


def _on_dev(kind):
    m, _ = _model(kind)
    m.to("gpu")
    return m, oar.optimizer.Adam(parameters=m.parameters(), learning_rate=1e-2)


def _batches(kind):
    xs, ys = _data((8, 1, 8, 8) if kind == "cnn" else (8, 64), classes=10)
    return [x.cuda() for x in xs], [y.cuda() for y in ys]


def _is_dev(t):
    return _xp.is_device_array(t._data)


@pytest.mark.parametrize("kind", ["mlp", "cnn", "bn"])
def test_whole_step_replays_on_the_device_as_eager(dev, kind):
    xs, ys = _batches(kind)
    (m1, o1), (m2, o2) = _on_dev(kind), _on_dev(kind)
    eager, jitted = _step(m1, o1), oar.jit(_step(m2, o2))
    cpu = storage.memory_allocated()
    for i in range(10):
        oar.seed(100 + i)
        a = eager(xs[i % 4], ys[i % 4])
        oar.seed(100 + i)
        b = jitted(xs[i % 4], ys[i % 4])
        assert _is_dev(b) and b.place == GPU
        assert a.numpy().tobytes() == b.numpy().tobytes(), i
        assert list(_state(m1, o1).values()) == list(_state(m2, o2).values()), i
    assert all(_is_dev(p) for p in m2.parameters())
    assert all(_is_dev(v) for st in o2.state.values() for v in st.values()
               if isinstance(v, oar.Tensor))
    assert jitted.stats["eager"] == 1 and jitted.stats["replays"] == 7
    del a, b
    assert storage.memory_allocated() == cpu     # nothing of the step counted on the CPU


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_replayed_step_counts_device_memory_as_eager(dev, kind):
    xs, ys = _batches(kind)
    got = []
    for jit in (False, True):
        m, opt = _on_dev(kind)
        step = oar.jit(_step(m, opt)) if jit else _step(m, opt)
        for i in range(4):
            step(xs[i], ys[i])
        base = storage.memory_allocated(GPU)
        cpu = storage.memory_allocated()
        storage.reset_max_memory_allocated(GPU)
        loss = step(xs[0], ys[0])
        got.append((storage.memory_allocated(GPU) - base,
                    storage.max_memory_allocated(GPU) - base, storage.memory_allocated() - cpu))
        del loss
    (held_e, peak_e, cpu_e), (held_r, peak_r, cpu_r) = got
    assert held_r == held_e == 4          # the returned float32 loss, nothing more
    assert 0 < peak_r <= peak_e, (peak_r, peak_e)
    assert cpu_e == cpu_r == 0


def test_torch_reduce_overhead_step_on_cuda(dev):
    rng = np.random.default_rng(2)
    xs = [torch.tensor(rng.standard_normal((8, 16)).astype(np.float32), device="cuda")
          for _ in range(4)]
    ys = [torch.tensor(rng.integers(0, 4, 8), device="cuda") for _ in range(4)]

    def make():
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 4)).cuda()
        opt = torch.optim.Adam(m.parameters(), lr=1e-2)

        def step(x, y):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            return loss
        return m, step
    (m1, s1), (m2, s2) = make(), make()
    s2 = torch_compile(s2, mode="reduce-overhead")
    for i in range(10):
        a, b = s1(xs[i % 4], ys[i % 4]), s2(xs[i % 4], ys[i % 4])
        assert b.is_cuda and _is_dev(b)
        assert a.detach().cpu().numpy().tobytes() == b.detach().cpu().numpy().tobytes()
    for p, q in zip(m1.parameters(), m2.parameters()):
        assert q.is_cuda
        assert p.detach().cpu().numpy().tobytes() == q.detach().cpu().numpy().tobytes()
    assert s2.stats["replays"] == 7


def _torch_mlp(bn=False):
    torch.manual_seed(0)
    nn = torch.nn
    layers = [nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32)]
    if bn:
        layers.append(nn.BatchNorm1d(32))
    return nn.Sequential(*layers, nn.Tanh(), nn.Linear(32, 4)).to("cuda")


def _grads(m):
    out = [None if p.grad is None else p.grad.cpu().numpy().tobytes() for p in m.parameters()]
    for p in m.parameters():
        assert p.grad is None or p.grad.is_cuda
        p.grad = None
    return out


@pytest.mark.parametrize("bn", [False, True])
def test_compiled_forward_on_cuda_as_eager(dev, bn):
    rng = np.random.default_rng(0)
    eager, m = _torch_mlp(bn), _torch_mlp(bn)
    c = torch.compile(m)
    for i in range(8):
        x = torch.tensor(rng.standard_normal((8, 16)).astype(np.float32), device="cuda")
        y = torch.tensor(rng.integers(0, 4, 8), device="cuda")
        l1 = torch.nn.functional.cross_entropy(eager(x), y)
        out = c(x)
        assert out.is_cuda and _is_dev(out)
        l2 = torch.nn.functional.cross_entropy(out, y)
        l1.backward()
        l2.backward()
        assert l1.item() == l2.item(), i
        assert _grads(eager) == _grads(m), i
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    assert c._compiled.stats["replays"] == 5
    for name, v in eager.state_dict().items():   # running statistics too
        assert v.cpu().numpy().tobytes() == m.state_dict()[name].cpu().numpy().tobytes()


def test_compiled_forward_memory_after_a_step_as_eager(dev):
    eager, m = _torch_mlp(), _torch_mlp()
    c = torch.compile(m)
    x = torch.tensor(np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32),
                     device="cuda")
    for _ in range(4):
        c(x).sum().backward()
    _grads(m)
    levels = []
    for model in (eager, c):
        before, cpu = storage.memory_allocated(GPU), storage.memory_allocated()
        out = model(x)
        during = storage.memory_allocated(GPU) - before
        out.sum().backward()
        del out
        levels.append((during, storage.memory_allocated(GPU) - before,
                       storage.memory_allocated() - cpu))
    # while the output lives at least its bytes; after backward every parameter's .grad
    assert levels[0][1:] == levels[1][1:] == (sum(p.nbytes for p in m.parameters()), 0)
    assert levels[1][0] >= 8 * 4 * 4


def test_a_step_on_two_places_is_refused_by_name(dev):

    def f(x, y):
        return (x * 2).cpu() + y
    g = oar.jit(f)
    x, y = oar.ones([3]).cuda(), oar.ones([3])
    with pytest.raises(CaptureError, match="two places"):
        for _ in range(3):
            g(x, y)


def test_a_device_dropout_step_is_not_captured_and_says_so(dev):
    # Note [Replay on a device]: its mask is drawn on the host from the device's stream and
    # moved, which the recorder cannot replay: a CaptureError naming dropout, never a replay
    # of a stale mask
    xs, ys = _batches("dropout")
    m, opt = _on_dev("dropout")
    step = oar.jit(_step(m, opt))
    with pytest.raises(CaptureError, match="dropout"):
        for i in range(3):
            step(xs[i], ys[i])


def _indexed_step(x):
    y = x * 2
    return (y[1:, ::2] + 1).sum()


def test_a_step_reading_a_device_view_replays_as_eager(dev):
    x = torch.tensor(np.arange(24, dtype=np.float32).reshape(4, 6), device="cuda")
    g = oar.jit(_indexed_step)
    for i in range(5):
        x.add_(1.0)
        assert g(x).item() == _indexed_step(x).item(), i
    assert g.stats["replays"] == 2


@pytest.mark.skipif(REAL, reason="replaces the fake device's view maker")
def test_a_device_view_without_its_owner_is_refused(dev, monkeypatch):
    # CuPy's views made from a raw pointer have no .base: the planner cannot find their
    # owner, and must refuse rather than replay a read of the capture call's memory
    monkeypatch.setattr(dev, "strided", _detached_view)
    x = torch.tensor(np.arange(24, dtype=np.float32).reshape(4, 6), device="cuda")
    g = oar.jit(_indexed_step)
    with pytest.raises(CaptureError):
        for _ in range(10):
            g(x)
    assert g.stats["replays"] == 0


def _detached_view(src, shape, bstrides, boff):
    """A view of src's memory whose .base chain stops at an opaque object (as a CuPy array
    made from a pointer has no .base)."""
    class Opaque:
        pass
    it = dict(src.view(np.ndarray).__array_interface__)
    it["data"] = (it["data"][0] + boff, False)
    it["shape"], it["strides"] = tuple(shape), tuple(bstrides)
    it.pop("descr", None)
    o = Opaque()
    o.__array_interface__ = it
    o.keep = src
    return np.asarray(o).view(_xp.FakeArray)


def test_torch_dropout_on_cuda_replays_the_devices_stream(dev):
    # the PyTorch door's dropout draws with bernoulli_ on the device: an in-place random op
    # the replay runs again, drawing from the device's stream as eager does
    def make():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Dropout(0.5),
                                   torch.nn.Linear(32, 4)).cuda()
    eager, m = make(), make()
    c = torch.compile(m)
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((8, 16)).astype(np.float32) for _ in range(3)]
    outs = []
    for model in (eager, c):
        torch.manual_seed(1)
        got = []
        for i in range(6):
            out = model(torch.tensor(xs[i % 3], device="cuda"))
            out.pow(2).sum().backward()
            got.append(out.detach().cpu().numpy().tobytes())
        outs.append(got)
    assert outs[0] == outs[1]
    assert _grads(eager) == _grads(m)
    assert c._compiled.stats["replays"] == 3


def test_closure_step_without_arguments_replays_on_cuda(dev):
    # bench/gpu's MLP step: no arguments, labels read as an array attribute of
    # cross_entropy (an external array that is no tensor argument)
    rng = np.random.default_rng(0)
    xa, ya = rng.standard_normal((16, 8)).astype(np.float32), rng.integers(0, 3, 16)

    def make():
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 3)).to("cuda")
        o = torch.optim.Adam(m.parameters(), lr=1e-3)
        x, y = torch.tensor(xa, device="cuda"), torch.tensor(ya, device="cuda")

        def step():
            o.zero_grad()
            loss = torch.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            o.step()
            return loss.detach()
        return m, step
    (m1, s1), (m2, s2) = make(), make()
    s2 = oar.jit.capture(s2)
    for i in range(6):
        assert s1().cpu().numpy().tobytes() == s2().cpu().numpy().tobytes(), i
    assert s2.stats["replays"] == 3
    for p, q in zip(m1.parameters(), m2.parameters()):
        assert p.detach().cpu().numpy().tobytes() == q.detach().cpu().numpy().tobytes()


class _Mem:
    def __init__(self, ptr, size):
        self.ptr, self.size = ptr, size


class _Ptr:
    def __init__(self, ptr, mem):
        self.ptr, self.mem = ptr, mem


class _CupyLike:
    def __init__(self, nbytes, ptr, mem):
        self.nbytes, self.data = nbytes, _Ptr(ptr, mem)


def test_pointer_views_are_told_from_owners():
    from oar._capture import _pointer_view
    mem = _Mem(4096, 1024)                  # an allocation of 1000 bytes, rounded up by 512
    assert not _pointer_view(_CupyLike(1000, 4096, mem))
    assert _pointer_view(_CupyLike(1000, 4104, mem))     # starts inside it
    assert _pointer_view(_CupyLike(400, 4096, mem))      # covers a part of it
    assert not _pointer_view(np.zeros(3)) and not _pointer_view(np.zeros(3).view(_xp.FakeArray))
