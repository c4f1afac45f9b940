"""oar.device.memory_timeline / memory_snapshot (Note [Memory timeline]): the bytes agree
exactly with memory_allocated() and max_memory_allocated(), recording changes no byte, the
bytes held for backward match what PyTorch 2.13 packs through saved-tensor hooks (or an
analytic count), and backward entries are the graph's nodes in order."""
import gc

import numpy as np
import pytest

import oar
from oar import nn
from oar.nn import functional as F
from oar.ops import registry
from oar.autograd import engine
from oar import storage

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

N = 1000      # float64 elements: 8000 bytes per tensor


def _conv_bn_model(seed=0):
    oar.seed(seed)
    return nn.Sequential(nn.Conv2D(1, 4, 3, padding=1, bias_attr=False), nn.BatchNorm2D(4),
                         nn.LeakyReLU(0.01), nn.MaxPool2D(2), nn.Flatten(),
                         nn.Linear(4 * 4 * 4, 10))


def _step(model, opt, x, y):
    F.cross_entropy(model(x), y).backward()
    opt.step()
    opt.clear_grad(set_to_zero=False)


def test_each_forward_entry_is_memory_allocated_after_that_op():
    a = oar.rand([N], dtype="float64")
    a.stop_gradient = False
    after = []
    with oar.device.memory_timeline() as tl:
        b = a * 2.0
        after.append(oar.device.memory_allocated())
        c = b.exp()
        after.append(oar.device.memory_allocated())
        d = c.sin()
        after.append(oar.device.memory_allocated())
        e = d.sum()
        after.append(oar.device.memory_allocated())
    assert [x.name for x in tl] == ["mul", "exp", "sin", "sum"]
    assert [x.allocated for x in tl] == after
    assert [x.phase for x in tl] == ["forward"] * 4
    assert tl.start == after[0] - 8 * N
    del b, c, d, e


def test_peak_and_end_agree_with_the_accounting_for_a_training_step():
    model = _conv_bn_model()
    opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    x, y = oar.randn([16, 1, 8, 8]), oar.randint(0, 10, [16])
    for _ in range(2):
        oar.device.reset_max_memory_allocated()
        with oar.device.memory_timeline() as tl:
            _step(model, opt, x, y)
        assert tl.peak == oar.device.max_memory_allocated()
        assert max(e.peak for e in tl) == tl.peak
        assert tl[-1].allocated == oar.device.memory_allocated()
        assert all(e.peak >= e.allocated for e in tl)
    assert tl.peak_entry().peak == tl.peak


def test_recording_changes_no_byte():
    """The same step with and without a timeline: the same peak and the same end state."""
    x, y = oar.randn([16, 1, 8, 8]), oar.randint(0, 10, [16])
    figures = []
    for record in (False, True, False):
        model = _conv_bn_model()
        opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
        _step(model, opt, x, y)
        gc.collect()
        base = oar.device.memory_allocated()
        oar.device.reset_max_memory_allocated()
        if record:
            with oar.device.memory_timeline():
                _step(model, opt, x, y)
        else:
            _step(model, opt, x, y)
        figures.append((oar.device.max_memory_allocated() - base,
                        oar.device.memory_allocated() - base))
        del model, opt
    assert figures[0] == figures[1] == figures[2]


def test_phases_boundary_and_optimizer_entry():
    model = _conv_bn_model()
    opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    x, y = oar.randn([16, 1, 8, 8]), oar.randint(0, 10, [16])
    with oar.device.memory_timeline() as tl:      # the first step creates Adam's state
        _step(model, opt, x, y)
    phases = [e.phase for e in tl]
    b = tl.boundary()
    assert set(phases[:b]) == {"forward"} and phases[b] == "backward"
    assert "optimizer" in phases and phases.index("optimizer") > b
    step = [e for e in tl if e.phase == "optimizer"]
    assert [e.name for e in step] == ["Adam.step", "Adam.clear_grad"]   # frees the grads
    assert step[1].allocated < step[0].allocated
    state = sum(2 * p.numel() * 4 for p in model.parameters())   # exp_avg, exp_avg_sq
    i = step[0].index
    assert step[0].allocated - tl[i - 1].allocated >= state
    assert tl[b - 1].saved > 0 and tl[-1].saved == 0          # backward released them
    layers = {e.layer for e in tl if e.name == "conv2d"}
    assert layers == {"Conv2D#1"}
    assert {e.layer for e in tl if e.name == "ConvolutionBackward0"} == {"Conv2D#1"}


def test_backward_entries_are_the_nodes_in_order_with_torch_names():
    torch = pytest.importorskip("torch")
    a = oar.rand([N], dtype="float64")
    a.stop_gradient = False
    ta = torch.rand(N, dtype=torch.float64, requires_grad=True)
    with oar.device.memory_timeline() as tl:
        a.exp().sin().mul(3.0).sum().backward()
    loss = ta.exp().sin().mul(3.0).sum()
    names = []
    fn = loss.grad_fn
    while fn is not None:
        names.append(fn.name().split("::")[-1])
        fn = fn.next_functions[0][0] if fn.next_functions else None
    assert [e.name for e in tl if e.phase == "backward"
            and not e.name.startswith("(")] == names


def _torch_saved_bytes(build):
    """Bytes of the distinct storages PyTorch 2.13 saves for backward in build()."""
    torch = pytest.importorskip("torch")
    ptrs = {}

    def pack(t):
        s = t.untyped_storage()
        ptrs[s.data_ptr()] = s.nbytes()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = build(torch)
    return sum(ptrs.values()), out


@pytest.mark.parametrize("case", ["exp", "sin", "mul", "relu_linear", "tanh_chain"])
def test_saved_bytes_match_what_torch_saves(case):
    """memory_snapshot(out).saved equals the bytes PyTorch's saved-tensor hooks see for the
    same graph (every storage once)."""
    rng = np.random.default_rng(0)
    arrs = {k: rng.standard_normal(s) for k, s in
            (("x", (32, 16)), ("w", (8, 16)), ("b", (8,)), ("v", (32, 16)))}

    def build(lib):
        T = (lambda a: lib.tensor(a, requires_grad=True)) if lib is not oar else (
            lambda a: oar.tensor(a, requires_grad=True))
        x, w, b, v = (T(arrs[k]) for k in "xwbv")
        lin = F.linear if lib is oar else lib.nn.functional.linear
        if case == "exp":
            return x.exp()
        if case == "sin":
            return x.sin()
        if case == "mul":
            return x * v
        if case == "relu_linear":     # PyTorch's [out, in] weight in both (oar.torch spelling)
            h = lin(x, w.t() if lib is oar else w, b).relu()
            return lin(h, w[:, :8].t() if lib is oar else w[:, :8]).sum()
        return (x.tanh() * v).tanh().sum()

    expected, _ = _torch_saved_bytes(build)
    out = build(oar)
    assert oar.device.memory_snapshot(out).saved == expected


def test_snapshot_lists_the_saved_tensors_and_counts_a_storage_once():
    a = oar.rand([N], dtype="float64")
    a.stop_gradient = False
    h = a.exp()            # ExpBackward0 saves its output h
    y = h * h              # MulBackward0 saves h twice: the same storage
    snap = oar.device.memory_snapshot(y)
    assert snap.saved == 8 * N
    assert sorted(s.node for s in snap.saved_tensors) == ["ExpBackward0", "MulBackward0",
                                                          "MulBackward0"]
    assert sum(s.nbytes for s in snap.saved_tensors if s.counted) == snap.saved
    assert snap.allocated == oar.device.memory_allocated()
    assert oar.device.memory_snapshot().saved == 0
    with pytest.raises(TypeError, match="memory_snapshot"):
        oar.device.memory_snapshot(np.ones(3))


def test_saved_created_separates_activations_from_parameters():
    w = oar.rand([N], dtype="float64")
    w.stop_gradient = False
    with oar.device.memory_timeline() as tl:
        h = w.sin()        # saves w: a parameter, not created while recording
        g = h.exp()        # saves g: created while recording
    assert tl[0].saved == 8 * N and tl[0].saved_created == 0
    assert tl[1].saved == 16 * N and tl[1].saved_created == 8 * N
    del g, h


def _abn_bytes(model_kind):
    """Bytes held for backward by one block on a [8, 4, 6, 6] float32 input x."""
    oar.seed(0)
    conv = nn.Conv2D(4, 4, 3, padding=1, bias_attr=False)
    if model_kind == "abn":
        block = nn.Sequential(conv, nn.InPlaceABN2D(4))
    else:
        block = nn.Sequential(conv, nn.BatchNorm2D(4), nn.LeakyReLU(0.01))
    x = oar.randn([8, 4, 6, 6])
    with oar.device.memory_timeline() as tl:
        out = block(x)
    return tl[-1].saved_created, tl[-1].saved, out


def test_inplace_abn_holds_one_activation_where_batchnorm_holds_two():
    """Analytic counts (A = 8*4*6*6 floats): BatchNorm (one op, Note [BatchNorm op]) +
    LeakyReLU keep the conv's output (BatchNorm's input), the per-channel mean and invstd
    and LeakyReLU's output (2 A + 2 C floats); InPlaceABN keeps its output (A) plus its
    per-channel invstd (and mean/kept nothing else)."""
    A = 8 * 4 * 6 * 6 * 4
    bn_created, bn_all, _ = _abn_bytes("bn")
    abn_created, abn_all, _ = _abn_bytes("abn")
    assert bn_created == 2 * A + 2 * 4 * 4        # + BatchNorm's mean and invstd (C floats each)
    assert abn_created == A + 4 * 4               # + InPlaceABN's per-channel invstd
    # existing before: the block's input x (saved by the conv for its weight's gradient;
    # x needs none, so the conv weight is not saved) and the norm's parameters it saves:
    # BatchNorm saves weight, InPlaceABN saves weight and bias
    assert bn_all - bn_created == A + 4 * 4
    assert abn_all - abn_created == A + 2 * 4 * 4


def test_checkpointed_blocks_hold_their_inputs_only():
    from oar.utils.checkpoint import checkpoint
    oar.seed(0)
    blocks = [nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
              for _ in range(4)]
    x = oar.randn([32, 64])
    x.stop_gradient = False
    A = 32 * 64 * 4
    h = x
    with oar.device.memory_timeline() as tl:
        for blk in blocks:
            h = checkpoint(blk, h)
    # the inputs of the four segments: x and the outputs of blocks 1..3 (x existed before)
    assert tl[-1].saved == 4 * A
    assert tl[-1].saved_created == 3 * A
    assert {s.node for s in tl[-1].saved_tensors} == {"checkpoint"}
    with oar.device.memory_timeline() as tl2:
        h.sum().backward()
    assert any(e.phase == "recompute" for e in tl2)
    assert tl2[-1].saved == 0


def test_hooks_are_removed_and_timelines_do_not_nest():
    with oar.device.memory_timeline() as tl:
        assert storage._trace is not None and registry._TIMELINE is not None
        with pytest.raises(RuntimeError, match="do not nest"):
            with oar.device.memory_timeline():
                pass
        with pytest.raises(RuntimeError, match="already recording"):
            storage.start_trace()
    assert storage._trace is None and registry._TIMELINE is None and engine._TIMELINE is None
    assert not tl.recording
    with pytest.raises(ZeroDivisionError):
        with oar.device.memory_timeline():
            1 / 0
    assert storage._trace is None and registry._TIMELINE is None and engine._TIMELINE is None
    storage.start_trace()          # the plain byte trace still works
    _ = oar.ones([N])
    trace = storage.stop_trace()
    assert trace[-1] - trace[0] in (0, 4 * N) and len(trace) >= 2


def test_inference_timeline_and_table():
    model = _conv_bn_model()
    model.eval()
    x = oar.randn([16, 1, 8, 8])
    oar.device.reset_max_memory_allocated()
    with oar.no_grad(), oar.device.memory_timeline() as tl:
        model(x)
    assert tl.peak == oar.device.max_memory_allocated()
    assert tl.boundary() is None and all(e.saved == 0 for e in tl)
    text = tl.table()
    assert "conv2d" in text and "Conv2D#1" in text
    assert repr(tl).startswith("MemoryTimeline(")


def test_recording_does_not_keep_a_reassigned_local_alive():
    """The recorder reads a layer frame's `self` through frame.f_locals, a snapshot the
    frame keeps: it is emptied after the read, or `h`'s first value would stay alive."""
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.after = []

        def forward(self, x):
            h = x * 2.0
            h = h.tanh()        # tanh saves its output; the first h is saved by nobody
            self.after.append(oar.device.memory_allocated())
            return h

    x = oar.rand([N], dtype="float64")
    x.stop_gradient = False
    net = Net()
    base = oar.device.memory_allocated()
    out = net(x)
    del out
    with oar.device.memory_timeline():
        out = net(x)
    assert net.after[0] - base == net.after[1] - base == 8 * N
