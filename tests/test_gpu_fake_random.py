"""Random streams per place on the test-only fake GPU (Note [Random streams per place]): a
draw for a device tensor comes from that device's stream, reseeding one place leaves the
other's draws as they were (as torch 2.13's CPU and CUDA generators), states round-trip, and
torch.manual_seed / paddle.seed seed every place. References: torch 2.13's CPU stream (the
CPU draws must stay PyTorch's exactly while the device draws), NumPy's PCG64 (the device
stream's documented generator), and the same draws repeated after reseeding."""
import numpy as np
import pytest
import torch as real_torch

import oar
import oar.torch as torch
from oar import _xp
# the device of tests/test_gpu_fake.py: the fake one, or CuPy's with OAR_GPU_REAL=1
from tests.test_gpu_fake import dev  # noqa: F401


def host(t):
    assert _xp.is_device_array(t._data)    # drawn for the device, kept there
    return t.cpu().numpy()


def test_device_draws_are_the_device_streams_pcg64(dev):
    torch.cuda.manual_seed(5)
    got = host(torch.rand(4, device="cuda"))
    want = np.random.Generator(np.random.PCG64(5)).random(4).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert torch.cuda.initial_seed() == 5


def test_reseeding_the_device_repeats_its_draws(dev):
    outs = []
    for _ in range(2):
        torch.cuda.manual_seed(11)
        outs.append([host(torch.randn(3, 2, device="cuda")),
                     host(torch.randint(0, 9, (5,), device="cuda")),
                     host(torch.randperm(6, device="cuda")),
                     host(torch.empty(4, device="cuda").uniform_(-1, 1)),
                     host(torch.empty(4, device="cuda").normal_(2.0, 0.5)),
                     host(torch.empty(4, device="cuda").bernoulli_(0.3)),
                     host(torch.empty(4, device="cuda").exponential_(2.0)),
                     host(torch.empty(4, dtype=torch.int64, device="cuda").random_(0, 7)),
                     host(torch.nn.functional.dropout(torch.ones(8, device="cuda"), 0.5))])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(outs[0][0], host(torch.randn(3, 2, device="cuda")))


def test_cpu_stream_stays_pytorchs_while_the_device_draws(dev):
    real_torch.manual_seed(3)
    want = [real_torch.rand(4).numpy(), real_torch.randn(3).numpy()]
    torch.manual_seed(3)
    got = [torch.rand(4).numpy()]
    torch.cuda.manual_seed(99)                      # the device's seed ...
    torch.rand(100, device="cuda")                  # ... and its draws
    torch.empty(50, device="cuda").normal_()
    torch.nn.Dropout(0.5)(torch.ones(20, device="cuda"))
    got.append(torch.randn(3).numpy())
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_seeding_the_cpu_leaves_device_draws(dev):
    runs = []
    for cpu_seed in (None, 1234):
        torch.cuda.manual_seed(8)
        first = host(torch.rand(3, device="cuda"))
        if cpu_seed is not None:
            torch.default_generator.manual_seed(cpu_seed)   # the CPU's generator only
            torch.rand(10)
            oar.randn([4])                                  # the Paddle door's CPU stream
        runs.append((first, host(torch.rand(3, device="cuda"))))
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_manual_seed_seeds_every_place(dev):
    torch.manual_seed(4)
    a = host(torch.rand(3, device="cuda"))
    torch.cuda.manual_seed(4)
    np.testing.assert_array_equal(a, host(torch.rand(3, device="cuda")))
    torch.cuda.manual_seed_all(6)
    assert torch.cuda.initial_seed() == 6
    oar.seed(4)                                     # paddle.seed: every place too
    np.testing.assert_array_equal(a, host(torch.rand(3, device="cuda")))


def test_rng_state_round_trip(dev):
    torch.cuda.manual_seed(2)
    torch.rand(5, device="cuda")
    st = torch.cuda.get_rng_state()
    assert st.device.type == "cpu" and st.dtype == torch.uint8
    a = host(torch.randn(6, device="cuda"))
    torch.cuda.manual_seed(77)
    torch.cuda.set_rng_state(st)
    np.testing.assert_array_equal(a, host(torch.randn(6, device="cuda")))
    assert torch.cuda.initial_seed() == 2
    all_states = torch.cuda.get_rng_state_all()
    b = host(torch.rand(2, device="cuda"))
    torch.cuda.set_rng_state_all(all_states)
    np.testing.assert_array_equal(b, host(torch.rand(2, device="cuda")))


def test_bad_state_is_refused_and_changes_nothing(dev):
    torch.cuda.manual_seed(1)
    st = torch.cuda.get_rng_state()
    with pytest.raises(RuntimeError, match="56 bytes"):
        torch.cuda.set_rng_state(torch.zeros(16, dtype=torch.uint8))
    np.testing.assert_array_equal(torch.cuda.get_rng_state().numpy(), st.numpy())


def test_cuda_generator(dev):
    g = torch.Generator(device="cuda")
    assert g.device == torch.device("cuda:0") and g.initial_seed() == 67280421310721
    g.manual_seed(9)
    st = g.get_state()
    a = host(torch.rand(4, device="cuda", generator=g))
    np.testing.assert_array_equal(
        a, np.random.Generator(np.random.PCG64(9)).random(4).astype(np.float32))
    c = g.clone_state()
    g.set_state(st)
    np.testing.assert_array_equal(a, host(torch.rand(4, device="cuda", generator=g)))
    b = host(torch.rand(4, device="cuda", generator=c))
    np.testing.assert_array_equal(b, host(torch.rand(4, device="cuda", generator=g)))
    # its own stream: the device's default stream is not advanced by g
    torch.cuda.manual_seed(9)
    np.testing.assert_array_equal(a, host(torch.rand(4, device="cuda")))


def test_generator_of_another_place_is_refused(dev):
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but "
                                           "found 'cpu'"):
        torch.rand(2, device="cuda", generator=torch.Generator())
    x = torch.zeros(3)
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but "
                                           "found 'cuda'"):
        x.normal_(generator=torch.Generator(device="cuda"))
    assert x._version == 0 and x.tolist() == [0.0, 0.0, 0.0]


def test_paddle_cuda_rng_state(dev):
    oar.set_device("gpu")
    try:
        oar.seed(10)
        states = oar.get_cuda_rng_state()
        assert len(states) == 1
        a = host(oar.rand([5]))
        oar.set_cuda_rng_state(states)
        np.testing.assert_array_equal(a, host(oar.rand([5])))
        with pytest.raises(ValueError, match="Length of cuda state list"):
            oar.set_cuda_rng_state([])
    finally:
        oar.set_device("cpu")


def test_without_a_device_as_the_cpu_builds():
    if _xp.backend() is not None:
        pytest.skip("a device backend exists here")
    assert oar.get_cuda_rng_state() == [] and torch.cuda.get_rng_state_all() == []
    oar.set_cuda_rng_state([])
    torch.cuda.manual_seed(1)          # nothing to seed, as PyTorch's CPU build
    with pytest.raises(RuntimeError, match="CUDA"):
        torch.cuda.get_rng_state()
    with pytest.raises(RuntimeError, match="CUDA"):
        torch.Generator(device="cuda")


def test_checkpointed_dropout_on_the_device_recomputes_the_forwards_mask(dev):
    from oar.utils.checkpoint import checkpoint
    F = oar.nn.functional

    def block(x, w):
        return F.dropout(x * w, 0.5).tanh() * w

    grads = []
    for ckpt in (False, True):
        w = oar.to_tensor(np.linspace(0.5, 1.5, 32, dtype=np.float32)).cuda()
        w.stop_gradient = False
        x = oar.to_tensor(np.ones(32, np.float32)).cuda()
        oar.seed(5)
        y = checkpoint(block, x, w) if ckpt else block(x, w)
        torch.cuda.manual_seed(123)       # draws between forward and backward move the stream
        torch.rand(7, device="cuda")
        y.sum().backward()
        grads.append(host(w.grad))
    np.testing.assert_array_equal(grads[0], grads[1])
