"""The device plumbing on the test-only fake GPU (Note [Fake device], Note [Array module per
place]): places through both doors, mixed places refused before any write, moves with
gradients across, per-place memory counters, the Inplace rules on the device, the main job's
training steps and the op table, each result checked bit for bit against the CPU and for its
class (a kernel that made CPU data from device operands shows as a plain ndarray).

On a machine with CuPy and a CUDA device, bench/gpu re-runs this file with OAR_GPU_REAL=1:
the fixture then uses the real device instead of the fake one (and the bitwise checks become
closeness checks, since cuBLAS and NumPy sum in different orders)."""
import os

import numpy as np
import pytest

import oar
import oar.torch as torch
from oar import _xp
from oar.train import make_model
from tests.op_table import ROWS
from tests.test_op_table import call, make_arrays

REAL = os.environ.get("OAR_GPU_REAL") == "1"


@pytest.fixture
def dev():
    """The GPU backend for one test: the fake device (or, with OAR_GPU_REAL=1, CuPy's)."""
    if REAL:
        b = _xp.backend()
        if b is None or b.name != "cupy":
            pytest.skip("OAR_GPU_REAL=1 but CuPy finds no CUDA device")
        yield b
        _xp.DEFAULT[0] = _xp.CPU
        return
    b = _xp.enable_fake_device()
    try:
        yield b
    finally:
        torch.set_default_device(None)
        _xp.disable_fake_device()


def same(a, b, rtol=2e-5, atol=2e-6):
    """a (a CPU result) equals b (the device's): bitwise on the fake device; on a real GPU
    close (cuBLAS and NumPy sum in other orders)."""
    a = a.numpy() if isinstance(a, oar.Tensor) else np.asarray(a)
    b = b.cpu().numpy() if isinstance(b, oar.Tensor) else np.asarray(b)
    if REAL and a.dtype.kind in "fc":
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(b, a)
        assert a.dtype == b.dtype


def on_device(t, b):
    assert type(t._data) is b.array_class, type(t._data)
    assert t.place == b.place


# ------------------------------------------------------------------------------ the module
@pytest.mark.skipif(REAL, reason="a GPU machine has a backend outside the fixture too")
def test_cpu_only_without_the_fixture():
    assert _xp.backend() is None and not _xp.ACTIVE
    assert not torch.cuda.is_available() and torch.cuda.device_count() == 0
    assert not oar.is_compiled_with_cuda()
    assert _xp.array_module(np.ones(2)) is np
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        torch.ones(2).cuda()


def test_array_module_and_place(dev):
    a = dev.to_device(np.arange(6.0).reshape(2, 3))
    assert _xp.array_module(a) is dev.xp and _xp.array_module(1.0, None, a) is dev.xp
    assert _xp.place_of(a) == oar.CUDAPlace(0) and _xp.place_of(np.ones(2)) == oar.CPUPlace()
    if dev.name == "fake":   # the fake keeps its class, and refuses NumPy arrays, as CuPy
        assert type(np.exp(a)) is _xp.FakeArray and type(a.sum()) is _xp.FakeArray
        assert type(np.concatenate([a, a])) is _xp.FakeArray
        assert type(dev.xp.zeros(3)) is _xp.FakeArray and type(np.zeros(3)) is np.ndarray
        with pytest.raises(TypeError, match="NumPy array"):
            a + np.ones((2, 3))
        with pytest.raises(TypeError, match="NumPy array"):
            np.concatenate([a, np.ones((2, 3))])


def test_storage_place_is_read_from_its_buffer(dev):
    t = torch.ones(3, 4, device="cuda")
    assert t._storage.place == dev.place and t.is_cuda and not t.is_cpu
    assert t.device == torch.device("cuda", 0) and str(t.device) == "cuda:0"
    assert t.get_device() == 0 and torch.ones(2).get_device() == -1
    v = t[1:, ::2]   # a view: the same storage, the same place
    assert v._storage is t._storage and v.is_cuda


# ------------------------------------------------------------------------------ the doors
def test_torch_door_places(dev):
    x = torch.arange(6.0).reshape(2, 3)
    y = x.cuda()
    on_device(y, dev)
    assert y.cuda() is y and y.to("cuda") is y and x.cpu() is x
    same(x, y)
    same(x, y.cpu())
    assert not y.cpu().is_cuda and y.to("cpu").device == torch.device("cpu")
    for t in (torch.zeros(2, 3, device="cuda"), torch.ones(2, device=torch.device("cuda:0")),
              torch.full((2,), 3.0, device="cuda"), torch.arange(5, device="cuda"),
              torch.tensor([1.0, 2.0], device="cuda"), torch.eye(3, device="cuda"),
              torch.randn(4, device="cuda"), torch.zeros_like(y), torch.ones_like(y),
              torch.rand_like(y), y.new_zeros(3), torch.empty(2, device="cuda")):
        on_device(t, dev)
    assert not torch.zeros_like(y, device="cpu").is_cuda
    with torch.device("cuda"):
        on_device(torch.ones(2), dev)
    assert not torch.ones(2).is_cuda
    z = x.to(y)   # to(other): other's device (and dtype)
    on_device(z, dev)


def test_torch_door_random_draws_the_devices_stream(dev):
    # Note [Random streams per place]: the device's own stream (PCG64 at the seed), not the
    # CPU's numbers moved (tests/test_gpu_fake_random.py checks the streams)
    torch.manual_seed(3)
    a = torch.randn(5)
    torch.manual_seed(3)
    b = torch.randn(5, device="cuda")
    on_device(b, dev)
    want = np.random.Generator(np.random.PCG64(3)).standard_normal(5).astype(np.float32)
    same(want, b)
    assert not np.array_equal(a.numpy(), b.cpu().numpy())


def test_reprs_name_the_device(dev):
    x = torch.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    assert repr(x) == "tensor([1., 2.], device='cuda:0', requires_grad=True)"
    assert repr(torch.tensor([1, 2], device="cuda", dtype=torch.int32)) == \
        "tensor([1, 2], device='cuda:0', dtype=torch.int32)"
    assert repr(oar.to_tensor([1.0, 2.0]).cuda()) == (
        "Tensor(shape=[2], dtype=float32, place=Place(gpu:0), stop_gradient=True,\n"
        "       [1., 2.])")


def test_dlpack_of_a_device_tensor_is_refused_for_now(dev):
    y = torch.ones(2, device="cuda")
    assert y.__dlpack_device__() == (2, 0)   # kDLCUDA
    with pytest.raises(BufferError, match="GPU tensor is not supported yet"):
        y.__dlpack__()


def test_torch_numpy_of_a_cuda_tensor_is_refused_as_torch(dev):
    y = torch.ones(2, device="cuda")
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        y.numpy()
    np.testing.assert_array_equal(y.cpu().numpy(), [1.0, 1.0])


def test_paddle_door_places(dev):
    try:
        assert oar.is_compiled_with_cuda() and oar.device.cuda.device_count() == 1
        assert oar.set_device("gpu") == oar.CUDAPlace(0) and oar.get_device() == "gpu:0"
        t = oar.ones([2, 3])
        on_device(t, dev)
        assert t.place == oar.CUDAPlace(0) and isinstance(oar.CUDAPlace(0), oar.CUDAPlace)
        c = oar.to_tensor([1.0, 2.0], place=oar.CPUPlace())
        assert c.place == oar.CPUPlace()
        on_device(c.cuda(), dev)
        np.testing.assert_array_equal(t.numpy(), np.ones((2, 3), np.float32))   # a host copy
    finally:
        oar.set_device("cpu")
    assert not oar.ones([2]).is_cuda


def test_layers_move(dev):
    tm = torch.nn.Linear(3, 2)
    w = tm.weight
    assert tm.cuda() is tm and tm.weight is w   # the same Parameter objects
    on_device(tm.weight, dev)
    on_device(tm(torch.ones(4, 3, device="cuda")), dev)
    tm.cpu()
    assert not tm.weight.is_cuda
    pm = oar.nn.Linear(3, 2)
    pm.to("gpu")
    on_device(pm.weight, dev)
    on_device(pm(oar.ones([4, 3]).cuda()), dev)


# ------------------------------------------------------------------------------ mixing places
TORCH_MIXED = "Expected all tensors to be on the same device, but found at least two devices"


@pytest.mark.parametrize("case", ["add", "add_", "mul_number_path", "matmul", "out=", "big_add"])
def test_mixed_places_refused_before_any_write(dev, case):
    n = 300_000 if case == "big_add" else 6   # big: the fast path takes a pooled CPU buffer
    x = torch.arange(float(n)).cuda()
    c = torch.ones(n)
    if case == "big_add":
        oar.storage._give_back(np.empty(n, np.float32))   # a pooled CPU buffer of that shape
    before, vx, vc = x.cpu().numpy(), x._version, c._version
    call = {"add": lambda: x + c, "add_": lambda: x.add_(c), "big_add": lambda: x + c,
            "mul_number_path": lambda: c.mul_(x), "matmul": lambda: x @ c,
            "out=": lambda: torch.add(c, c, out=x)}[case]
    with pytest.raises(RuntimeError, match=f"{TORCH_MIXED}, (cuda:0 and cpu|cpu and cuda:0)!"):
        call()
    same(before, x)
    np.testing.assert_array_equal(c.numpy(), np.ones(n, np.float32))
    assert (x._version, c._version) == (vx, vc)


def test_a_cpu_scalar_tensor_goes_with_any_place(dev):
    """As in PyTorch: a 0-d CPU tensor is a number (moved, differentiably)."""
    x = torch.arange(3.0, device="cuda")
    s = torch.tensor(2.0, requires_grad=True)
    for r in (x * s, s * x, torch.where(x > 0, x, s)):
        on_device(r, dev)
    (x * s).sum().backward()
    assert not s.grad.is_cuda and s.grad.item() == 3.0
    x.add_(torch.tensor(1.0))
    same(np.array([1.0, 2.0, 3.0], np.float32), x)


def test_fast_path_type_errors_unchanged_without_a_device():
    """The fast paths' TypeError fallback (Note [Array module per place]) re-raises the
    error as it was while no device is in use."""
    from oar.ops import spellings
    with pytest.raises(TypeError, match="as it was"):
        try:
            raise TypeError("as it was")
        except TypeError:
            spellings._placed(None, (), ())


def test_mixed_places_paddle_message(dev):
    x = oar.ones([3]).cuda()
    with pytest.raises(ValueError, match="different places.*Place\\(gpu:0\\).*Place\\(cpu\\)"):
        oar.add(x, oar.ones([3]))


def test_kernel_making_cpu_data_names_itself(dev, monkeypatch):
    """The result check of dispatch's general path: a kernel that makes its result with
    np.zeros from device operands is named (the bug the fake device exists to find)."""
    from oar.ops import registry
    op = registry.OPS["cumsum"]
    monkeypatch.setattr(op, "kernel", lambda x, *a: np.zeros(x.shape, x.dtype))
    with pytest.raises(_xp.KernelPlaceError, match="cumsum: its kernel returned an array on "
                                                   "Place\\(cpu\\)"):
        torch.ones(3, device="cuda").cumsum(0)


# ------------------------------------------------------------------------------ autograd
def test_gradients_cross_places(dev):
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    y = x.cuda()
    assert type(y.grad_fn).__name__ == "ToCopyBackward0" and not y.is_leaf
    w = torch.full((2, 3), 2.0, device="cuda", requires_grad=True)
    assert w.is_leaf
    (y * w).sum().backward()
    assert not x.grad.is_cuda and w.grad.is_cuda
    same(np.full((2, 3), 2.0, np.float32), x.grad)
    same(np.arange(6.0, dtype=np.float32).reshape(2, 3), w.grad)


def test_inplace_rules_unchanged_on_the_device(dev):
    a = torch.ones(3, device="cuda", requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        a.add_(1)
    assert a._version == 0
    b = a * 2
    e = b.exp()     # saves its result
    e.add_(1)       # then changed in place
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()
    c = (a * 2).relu_()   # relu_ saves its output: legal, and the gradient is right
    c.sum().backward()
    same(np.full(3, 2.0, np.float32), a.grad)


# ------------------------------------------------------------------------------ memory
def test_memory_counted_per_place(dev):
    cpu0, cpu_peak0 = oar.device.memory_allocated(), oar.device.max_memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    g0 = torch.cuda.memory_allocated()
    t = torch.empty(1000, device="cuda")
    assert torch.cuda.memory_allocated() - g0 == 4000
    assert oar.device.cuda.memory_allocated() - g0 == 4000
    u = torch.empty(500, device="cuda")
    del u
    assert torch.cuda.max_memory_allocated() - g0 == 6000
    assert torch.cuda.memory_allocated() - g0 == 4000
    del t
    assert torch.cuda.memory_allocated() == g0
    torch.cuda.reset_peak_memory_stats()
    assert torch.cuda.max_memory_allocated() == g0
    assert oar.device.memory_allocated() == cpu0   # the CPU's counters never saw them
    assert oar.device.max_memory_allocated() == cpu_peak0


def test_memory_counters_without_a_device_are_the_cpu_ones():
    t = oar.ones([100])
    assert torch.cuda.memory_allocated() == oar.device.memory_allocated()
    del t


# ------------------------------------------------------------------------------ training steps
def _train(kind, variant, device, steps=2):
    oar.seed(0)
    m = make_model(kind, variant)
    rng = np.random.default_rng(0)
    xb = oar.to_tensor(rng.standard_normal((16, 64)).astype(np.float32))
    yb = oar.to_tensor(rng.integers(0, 10, 16))
    if kind != "mlp":
        xb = xb.reshape([-1, 1, 8, 8])
    if device:
        m.to("gpu")
        xb, yb = xb.cuda(), yb.cuda()
    opt = oar.optimizer.Adam(learning_rate=0.01, parameters=m.parameters())
    # the CPU's and the device's streams from one seed draw alike (both PCG64 at it: Note
    # [Random streams per place]), so dropout masks the same elements on either place
    oar.seed(1)
    for _ in range(steps):
        loss = oar.nn.functional.cross_entropy(m(xb), yb)
        loss.backward()
        opt.step()
        opt.clear_grad(set_to_zero=False)
    return loss, list(m.parameters()) + list(m.buffers())


@pytest.mark.parametrize("kind,variant", [("mlp", "in-place"), ("mlp", "out-of-place"),
                                          ("cnn", "bn"), ("cnn", "abn"), ("cnn", "checkpoint"),
                                          ("relu-cnn", "in-place")])
def test_main_job_steps_on_the_device(dev, kind, variant):
    """Forward, backward and Adam of the main job's models: on the device end to end, the
    same values as on the CPU."""
    loss0, p0 = _train(kind, variant, False)
    loss1, p1 = _train(kind, variant, True)
    on_device(loss1, dev)
    same(loss0, loss1, 1e-4, 1e-5)
    for a, b in zip(p0, p1):
        on_device(b, dev)
        # on a real GPU, Adam's first steps (about lr * sign(g)) turn rounding-level
        # differences of tiny gradients into differences of up to 2 lr (0.02)
        same(a, b, 1e-4, 0.025 if REAL and b.dtype.is_floating_point else 1e-5)


def test_torch_mlp_step_with_sgd_and_adam(dev):
    def run(device):
        torch.manual_seed(0)
        m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
        m.to(device)
        x = torch.randn(5, 8).to(device)
        y = torch.tensor([0, 1, 2, 1, 0]).to(device)
        for opt_cls in (torch.optim.SGD,) if REAL else (torch.optim.SGD, torch.optim.Adam):
            opt = opt_cls(m.parameters(), lr=0.1)
            for _ in range(2):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(m(x), y).backward()
                opt.step()
        return [p for p in m.parameters()]
    for a, b in zip(run("cpu"), run("cuda")):
        on_device(b, dev)
        same(a.detach(), b.detach())


# ------------------------------------------------------------------------------ the op table
# Rows whose kernels still make CPU data or refuse device arrays (the count in the report is
# len(ROWS) - len(NOT_YET)); each is a strict xfail, so a row that starts passing must leave.
NOT_YET = set()


def _op_rows():
    return [pytest.param(r, id=r.id, marks=[pytest.mark.xfail(strict=True, reason="not on "
            "the device yet")] if r.id in NOT_YET else []) for r in ROWS if r.outplace]


def _leaves(arrs, row, device):
    """The row's inputs as tensors (on the device when asked); float ones require grad when
    the row checks gradients."""
    out = []
    for a in arrs:
        t = oar.to_tensor(a)
        if device:
            t = t.cuda()
        if row.grad and a.dtype.kind == "f":
            t.stop_gradient = False
        out.append(t)
    return out


@pytest.mark.parametrize("row", _op_rows())
def test_op_table_row_on_the_device(dev, row):
    """Forward through the function spelling, then (rows that check gradients) backward of
    the sum: results and gradients on the device, equal to the CPU's."""
    rng = np.random.default_rng(7)
    arrs = make_arrays(row, rng)
    runs = []
    for device in (False, True):
        ts = _leaves(arrs, row, device)
        out = call(row, ts, "function")
        outs = out if isinstance(out, tuple) else (out,)
        if row.grad and outs[0].dtype.is_floating_point and not outs[0].stop_gradient:
            outs[0].sum().backward()
        runs.append((outs, [t.grad for t in ts]))
    (e_outs, e_grads), (g_outs, g_grads) = runs
    for e, g in zip(e_outs, g_outs):
        on_device(g, dev)
        same(e.detach(), g.detach())
    for e, g in zip(e_grads, g_grads):
        assert (e is None) == (g is None)
        if g is not None:
            on_device(g, dev)
            same(e, g)


# ------------------------------------------------------------------------------ nn functions
_R = np.random.default_rng(5)
_IMG = _R.standard_normal((2, 3, 8, 8)).astype(np.float32)
_MAT = _R.standard_normal((6, 5)).astype(np.float32)
_LAB = _R.integers(0, 5, 6)
_TF = torch.nn.functional
NN_CASES = {   # name: (function of oar.torch tensors, input arrays)
    "softmax": (lambda x: _TF.softmax(x, -1), [_MAT]),
    "log_softmax": (lambda x: _TF.log_softmax(x, 1), [_MAT]),
    "leaky_relu": (lambda x: _TF.leaky_relu(x, 0.1), [_MAT]),
    "gelu": (lambda x: _TF.gelu(x), [_MAT]),
    "silu": (lambda x: _TF.silu(x), [_MAT]),
    "elu": (lambda x: _TF.elu(x), [_MAT]),
    "layer_norm": (lambda x: _TF.layer_norm(x, (5,)), [_MAT]),
    "group_norm": (lambda x: _TF.group_norm(x, 3), [_IMG]),
    "avg_pool2d": (lambda x: _TF.avg_pool2d(x, 2), [_IMG]),
    "max_pool2d_pad": (lambda x: _TF.max_pool2d(x, 3, 2, 1), [_IMG]),
    "adaptive_avg_pool2d": (lambda x: _TF.adaptive_avg_pool2d(x, 3), [_IMG]),
    "conv2d_stride_groups": (lambda x: _TF.conv2d(x, torch.ones(6, 1, 3, 3, device=x.device),
                                                  stride=2, groups=3), [_IMG]),
    "conv_transpose2d": (lambda x: _TF.conv_transpose2d(x, torch.ones(3, 2, 3, 3,
                                                                      device=x.device)), [_IMG]),
    "mse_loss": (lambda x, y: _TF.mse_loss(x, y), [_MAT, _MAT[::-1].copy()]),
    "nll_loss": (lambda x, y: _TF.nll_loss(_TF.log_softmax(x, 1), y), [_MAT, _LAB]),
    "cross_entropy_smooth": (lambda x, y: _TF.cross_entropy(x, y, label_smoothing=0.1),
                             [_MAT, _LAB]),
    "binary_cross_entropy_with_logits": (
        lambda x, y: _TF.binary_cross_entropy_with_logits(x, y.sigmoid()),
        [_MAT, _MAT[::-1].copy()]),
    "embedding": (lambda w, i: _TF.embedding(i, w), [_MAT, _LAB]),
    "pad_reflect": (lambda x: _TF.pad(x, (1, 1, 2, 0), mode="reflect"), [_IMG]),
    "interpolate": (lambda x: _TF.interpolate(x, scale_factor=2, mode="bilinear"), [_IMG]),
    "setitem_mask": (lambda x: _setitem(x), [_MAT]),
    "cat_stack_split": (lambda x: torch.cat(list(torch.split(torch.stack([x, x * 2]), 1)), 2),
                        [_MAT]),
}
NN_NOT_YET = set()


def _setitem(x):
    y = x * 1
    y[y > 0] = 0.5
    y[1:3, 1::2] = y[0:2, 1::2] * 2
    return y


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(
    strict=True, reason="not on the device yet")] if n in NN_NOT_YET else []) for n in NN_CASES])
def test_nn_function_on_the_device(dev, name):
    fn, arrays = NN_CASES[name]
    runs = []
    for device in ("cpu", "cuda"):
        ts = [torch.tensor(a, device=device, requires_grad=a.dtype.kind == "f") for a in arrays]
        out = fn(*ts)
        out.sum().backward()
        runs.append((out, [t.grad for t in ts]))
    (e, eg), (g, gg) = runs
    on_device(g, dev)
    same(e.detach(), g.detach())
    for a, b in zip(eg, gg):
        if a is not None:
            on_device(b, dev)
            same(a, b)


def _inplace_rows():
    return [pytest.param(r, id=r.id) for r in ROWS if r.inplace and r.outplace
            and r.in_dtypes[r.target] == "float" and r.pointwise]


@pytest.mark.parametrize("row", _inplace_rows())
def test_op_table_inplace_spelling_on_the_device(dev, row):
    """The in-place function spelling on the device: the same tensor, its version bumped
    once, the values of the CPU's in-place result (rows whose result broadcasts to another
    shape than the target's are refused alike on both)."""
    rng = np.random.default_rng(9)
    arrs = make_arrays(row, rng)
    outs = []
    for device in (False, True):
        ts = [oar.to_tensor(a).cuda() if device else oar.to_tensor(a) for a in arrs]
        target = ts[row.target]
        try:
            r = call(row, ts, "inplace_function")
        except (ValueError, RuntimeError, TypeError) as e:
            outs.append(type(e))
            continue
        assert r is target and target.inplace_version == 1
        outs.append(target)
    if isinstance(outs[0], type):
        assert outs[1] is outs[0]   # refused on both, with the same error
        return
    on_device(outs[1], dev)
    same(outs[0], outs[1])
