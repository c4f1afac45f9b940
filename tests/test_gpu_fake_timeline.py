"""memory_timeline per place on the test-only fake GPU (Note [Memory timeline], Note [Array
module per place]): memory_timeline(device="gpu") records the device's allocations with the
device's counters, a CPU timeline leaves them out and the other way round, and the main job's
step_memory reads each place. References: exact bytes worked out by hand (float32: 4 bytes an
element), and the same step's CPU timeline (the same kernels on either place allocate the
same storages, so every entry must carry the same bytes)."""
import numpy as np
import pytest

import oar
from oar import _xp, storage
from oar.place import Place
from oar.train import make_model, step_memory
# the device of tests/test_gpu_fake.py: the fake one, or CuPy's with OAR_GPU_REAL=1
from tests.test_gpu_fake import dev  # noqa: F401

pytestmark = pytest.mark.usefixtures("no_gc")
GPU = Place("gpu", 0)


def rows(tl):
    return [(e.name, e.phase, e.allocated - tl.start, e.peak - tl.start, e.saved, e.elided)
            for e in tl]


def test_device_timeline_exact_bytes(dev):
    x = oar.ones([256]).cuda()                        # 1024 B before recording
    w = oar.ones([256]).cuda()
    w.stop_gradient = False
    cpu_before = storage.memory_allocated()
    storage.reset_max_memory_allocated(GPU)
    before = storage.memory_allocated(GPU)
    with oar.device.memory_timeline(device="gpu") as tl:
        y = x * w                                     # +1024, saves x (w's grad needs it)
        z = y + 1                                     # +1024
        h = oar.ones([100])                           # a CPU tensor: not in this timeline
        del y                                         # -1024 (joins the next entry)
        s = z.sum()                                   # +4
    assert tl.place == GPU and "gpu:0" in repr(tl)
    assert tl.start == before
    got = [(e.name, e.allocated - tl.start, e.peak - tl.start, e.saved) for e in tl]
    assert got == [("mul", 1024, 1024, 1024),     # x saved (1024 B, made before)
                   ("add", 2048, 2048, 1024),
                   ("sum", 1028, 2048, 1024)]
    assert tl.entries[-1].allocated == storage.memory_allocated(GPU)
    assert max(e.peak for e in tl) == storage.max_memory_allocated(GPU) == tl.peak
    assert storage.memory_allocated() == cpu_before + 400
    del z, s, h


def test_cpu_timeline_leaves_the_device_out(dev):
    x = oar.ones([256]).cuda()
    with oar.device.memory_timeline() as tl:
        y = x * 2                          # on the device: no entry
        a = oar.ones([64])                 # +256
        c = a * 3                          # +256
    assert tl.place.kind == "cpu"
    assert [e.allocated - tl.start for e in tl] == [256, 512]
    del y, a, c


@pytest.mark.parametrize("kind,variant", [("mlp", "in-place"), ("cnn", "bn")])
def test_main_job_step_memory_on_the_device_as_on_the_cpu(dev, kind, variant):
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((16, 64)).astype(np.float32)
    yb = rng.integers(0, 10, 16)
    oar.seed(0)
    cpu = step_memory(make_model(kind, variant), kind, xb, yb, timeline=True)
    oar.seed(0)
    m = make_model(kind, variant)
    m.to("gpu")
    cpu_level = storage.memory_allocated()
    gpu = step_memory(m, kind, xb, yb, timeline=True, device=GPU)
    assert gpu[:2] == cpu[:2] and gpu[0] > 0 and gpu[1] > 0
    for a, b in zip(cpu[2:], gpu[2:]):
        assert b.place == GPU and a.place.kind == "cpu"
        assert rows(a) == rows(b) and len(rows(b)) > 3
    assert storage.memory_allocated() == cpu_level   # the step left nothing on the CPU


def test_device_timeline_refused_without_a_device():
    if _xp.backend() is not None:
        pytest.skip("a device backend exists here")
    with pytest.raises(RuntimeError, match="memory_timeline"):
        oar.device.memory_timeline(device="gpu")
