"""oar.torch._rng.TorchCPUGenerator draws what torch 2.13's CPU generator draws, bit for bit.

Note [Torch CPU random streams]. Every expected value is computed by torch itself in the test.
"""
import math

import numpy as np
import pytest

from oar.torch._rng import STATE_SIZE, TorchCPUGenerator, _mcg31, cpu_is_intel

torch = pytest.importorskip("torch")

SEEDS = [0, 1, 42, 2**32 + 5, 2**63 + 11]
SHAPES = [(0,), (1,), (7,), (15,), (16,), (17,), (100,), (1000,), (3, 50), (31, 33)]
FLOATS = [(np.float32, torch.float32), (np.float64, torch.float64), (np.float16, torch.float16)]


def same(ours, theirs, what):
    theirs = theirs.numpy() if hasattr(theirs, "numpy") else np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (what, ours.dtype,
                                                                        theirs.dtype)
    if ours.dtype.kind == "f":  # compare bits: -0.0 vs 0.0 and NaN payloads count
        ours, theirs = ours.view(f"u{ours.itemsize}"), theirs.view(f"u{theirs.itemsize}")
    bad = np.flatnonzero(ours.reshape(-1) != theirs.reshape(-1))
    assert bad.size == 0, f"{what}: {bad.size} of {ours.size} differ, first at {bad[:5]}"


def pair(seed):
    return TorchCPUGenerator(seed), torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_uniform_and_rand_bit_exact(seed):
    for shape in SHAPES:
        for dt, tdt in FLOATS:
            g, t = pair(seed)
            same(g.uniform(shape, dt), torch.rand(shape, dtype=tdt, generator=t), ("rand", shape))
            same(g.uniform(shape, dt, -0.37, 2.9),
                 torch.empty(shape, dtype=tdt).uniform_(-0.37, 2.9, generator=t),
                 ("uniform_", shape, dt))
            same(g.get_state(), t.get_state(), ("state after uniform", shape, dt))


@pytest.mark.parametrize("seed", SEEDS)
def test_normal_bit_exact_both_paths_and_state(seed):
    for shape in SHAPES:
        for dt, tdt in FLOATS:
            g, t = pair(seed)
            # two calls in a row: the scalar path's cached sample and the fill path's tail draws
            same(g.normal(shape, dt), torch.randn(shape, dtype=tdt, generator=t), ("randn", shape))
            same(g.normal(shape, dt), torch.randn(shape, dtype=tdt, generator=t),
                 ("randn again", shape, dt))
            same(g.normal(shape, dt, 0.3, 2.7),
                 torch.empty(shape, dtype=tdt).normal_(0.3, 2.7, generator=t),
                 ("normal_", shape, dt))
            same(g.get_state(), t.get_state(), ("state after normal", shape, dt))


def test_normal_on_a_non_contiguous_tensor_takes_the_scalar_path():
    g, t = pair(5)
    base = torch.zeros(40, 3)
    view = base.t()  # 3 x 40, not contiguous: torch visits it in memory order (= base's order)
    view.normal_(0.5, 2.0, generator=t)
    same(g.normal((40, 3), np.float32, 0.5, 2.0, contiguous=False), base, "non-contiguous")
    same(g.get_state(), t.get_state(), "state after the scalar path")


def test_normal_init_std_and_large_tail():
    g, t = pair(3)
    same(g.normal((768, 3072 + 5), np.float32, 0.0, 0.02),
         torch.empty(768, 3072 + 5).normal_(0.0, 0.02, generator=t), "gpt-style init")
    same(g.normal((4099,), np.float64, -1.5, 1e-3),
         torch.empty(4099, dtype=torch.float64).normal_(-1.5, 1e-3, generator=t), "float64 fill")


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_randint_random_and_randperm(seed):
    for shape in SHAPES:
        g, t = pair(seed)
        same(g.randint(-5, 17, shape), torch.randint(-5, 17, shape, generator=t), "randint small")
        same(g.randint(0, 2**28, shape), torch.randint(0, 2**28, shape, generator=t),
             "randint at the random64 threshold")
        same(g.randint(-2**20, 2**30, shape, np.int32),
             torch.randint(-2**20, 2**30, shape, generator=t, dtype=torch.int32), "randint int32")
        same(g.randint(3, 10, shape, np.float32),
             torch.randint(3, 10, shape, generator=t, dtype=torch.float32), "randint float")
        for dt, tdt in [(np.int64, torch.int64), (np.int32, torch.int32), (np.uint8, torch.uint8),
                        (np.bool_, torch.bool), (np.float32, torch.float32),
                        (np.float64, torch.float64), (np.int16, torch.int16)]:
            same(g.random_(shape, dt), torch.empty(shape, dtype=tdt).random_(generator=t),
                 ("random_", dt))
        same(g.get_state(), t.get_state(), "state after integer draws")
    for n in [0, 1, 2, 5, 16, 1000, 60000]:
        g, t = pair(seed)
        same(g.randperm(n), torch.randperm(n, generator=t), ("randperm", n))
        same(g.randperm(n, np.int32), torch.randperm(n, generator=t, dtype=torch.int32),
             ("randperm again", n))
        same(g.get_state(), t.get_state(), ("state after randperm", n))


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_bernoulli_scalar_and_tensor_p(seed):
    if cpu_is_intel():
        pytest.xfail("MKL VSL bernoulli path on Intel CPUs is reproduced from Intel's docs "
                     "(MCG31m1, u_i = x_i / m < p) and has not been checked against torch")
    for shape in SHAPES:
        for dt, tdt in FLOATS:
            g, t = pair(seed)
            same(g.bernoulli(shape, 0.7, dt),
                 torch.empty(shape, dtype=tdt).bernoulli_(0.7, generator=t), ("bernoulli_", dt))
            p = np.linspace(0, 1, max(shape[-1], 1), dtype=np.float32)[:shape[-1]]
            same(g.bernoulli(shape, p, dt),
                 torch.empty(shape, dtype=tdt).bernoulli_(torch.from_numpy(p), generator=t),
                 ("bernoulli_ float32 p", dt))
            same(g.bernoulli(shape, p.astype(np.float64), dt),
                 torch.empty(shape, dtype=tdt).bernoulli_(torch.from_numpy(p.astype(np.float64)),
                                                          generator=t), ("bernoulli_ f64 p", dt))
            same(g.get_state(), t.get_state(), "state after bernoulli")


def test_mcg31_matches_its_recurrence():
    for seed in [0, 1, 12345, 2**31 - 1, 2**32 - 1]:
        x, xs = (seed % (2**31 - 1)) or 1, []
        for _ in range(1000):
            xs.append(x)
            x = x * 1132489760 % (2**31 - 1)
        np.testing.assert_array_equal(_mcg31(seed, 1000), np.array(xs, dtype=np.uint64))


def test_state_is_byte_compatible_both_ways():
    t = torch.Generator().manual_seed(9)
    torch.randn(5, generator=t)  # odd count of scalar normals: the double cache is valid
    torch.rand(700, generator=t)  # and the mt19937 block has been regenerated once
    g = TorchCPUGenerator(0).set_state(t.get_state().numpy())
    same(g.get_state(), t.get_state(), "state loaded from torch")
    same(g.normal((3,), np.float32), torch.randn(3, generator=t), "cached normal after set_state")
    same(g.uniform((50,), np.float64), torch.rand(50, dtype=torch.float64, generator=t), "then")
    t2 = torch.Generator()
    t2.set_state(torch.from_numpy(g.get_state()))
    same(g.normal((33,), np.float32), torch.randn(33, generator=t2), "torch resumes our state")
    assert g.get_state().size == STATE_SIZE == t.get_state().numel()
    with pytest.raises(RuntimeError, match="size"):
        g.set_state(np.zeros(10, np.uint8))


def test_seeds_initial_seed_and_errors():
    for seed in [0, 7, 2**40, -1, -2**63, 2**64 - 1]:
        g, t = TorchCPUGenerator(seed), torch.Generator().manual_seed(seed)
        assert g.initial_seed() == t.initial_seed()
        same(g.get_state(), t.get_state(), ("fresh state", seed))
        same(g.uniform((20,)), torch.rand(20, generator=t), ("first draws", seed))
    assert TorchCPUGenerator().initial_seed() == torch.Generator().initial_seed()
    s = TorchCPUGenerator().seed()
    assert 0 <= s < 2**64
    g = TorchCPUGenerator(0)
    for call, tcall in [(lambda: g.normal((3,), np.float32, 0, -1),
                         lambda: torch.empty(3).normal_(0, -1)),
                        (lambda: g.uniform((3,), np.float32, 2, 1),
                         lambda: torch.empty(3).uniform_(2, 1)),
                        (lambda: g.randint(5, 5, (3,)), lambda: torch.randint(5, 5, (3,))),
                        (lambda: g.bernoulli((3,), 1.5), lambda: torch.empty(3).bernoulli_(1.5)),
                        (lambda: g.randint(0, 2**40, (3,), np.int32),
                         lambda: torch.randint(0, 2**40, (3,), dtype=torch.int32)),
                        (lambda: g.randint(-1, 3, (3,), np.uint8),
                         lambda: torch.randint(-1, 3, (3,), dtype=torch.uint8)),
                        (lambda: g.manual_seed(1.5), lambda: torch.Generator().manual_seed(1.5)),
                        (lambda: g.manual_seed(2**64),
                         lambda: torch.Generator().manual_seed(2**64))]:
        with pytest.raises((RuntimeError, ValueError)) as theirs:
            tcall()
        with pytest.raises(type(theirs.value), match=str(theirs.value).split("\n")[0][:20]):
            call()


def _kaiming_bound(fan_in):
    gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
    return math.sqrt(3.0) * gain / math.sqrt(fan_in)


def test_seeded_program_linear_init_randn_dropout_shuffle():
    """torch.manual_seed(s); nn.Linear; randn; dropout; DataLoader shuffle: the same stream."""
    nn = pytest.importorskip("torch.nn")
    for s in [0, 1234]:
        torch.manual_seed(s)
        lin = nn.Linear(20, 30)
        x = torch.randn(8, 20)
        y = torch.nn.functional.dropout(x, 0.25, training=True)
        order = [int(i) for i in torch.utils.data.DataLoader(range(50), shuffle=True,
                                                             batch_size=None)]
        g = TorchCPUGenerator(s)
        b = _kaiming_bound(20)
        same(g.uniform((30, 20), np.float32, -b, b), lin.weight.detach(), "Linear.weight")
        same(g.uniform((30,), np.float32, -1 / math.sqrt(20), 1 / math.sqrt(20)),
             lin.bias.detach(), "Linear.bias")
        xs = g.normal((8, 20), np.float32)
        same(xs, x, "randn")
        if not cpu_is_intel():
            keep = g.bernoulli((8, 20), 0.75, np.float32)
            same((y.numpy() != 0), (keep != 0) & (xs != 0), "dropout mask")
        else:
            g.random32(1)  # the MKL path takes one draw
        g.random_((), np.int64)  # DataLoader's base seed is drawn first
        sampler_seed = int(g.random_((), np.int64))
        assert order == TorchCPUGenerator(sampler_seed).randperm(50).tolist()
