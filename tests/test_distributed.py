"""Data parallelism over MPI (oar.distributed, oar.torch.distributed, DDP / DataParallel).

The multi-process tests launch this file as a worker under the venv's `mpiexec -n 2` (a
subprocess with a timeout) and compare what the ranks computed with a single process run
here: N processes with per-rank batch B/N end with the parameters one process with batch B
reaches, to float32 tolerance, on an MLP and a small CNN, with SGD (momentum) and Adam, in
both doors. They skip cleanly when mpi4py (the `mpi` extra) is not installed.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.abspath(__file__)
ROOT = os.path.dirname(os.path.dirname(HERE))
B, STEPS = 16, 3


# --------------------------------------------------------------------------- shared set-up
def _data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((STEPS, B, 64)).astype(np.float32)
    y = rng.integers(0, 10, (STEPS, B)).astype(np.int64)
    return x, y


def _torch_model(kind):
    import oar.torch as torch
    nn = torch.nn
    if kind == "mlp":
        return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    return nn.Sequential(nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(),
                         nn.Flatten(), nn.Linear(6 * 4 * 4, 10))


def _paddle_model(kind):
    import oar
    nn = oar.nn
    if kind == "mlp":
        return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    return nn.Sequential(nn.Unflatten(1, [1, 8, 8]), nn.Conv2D(1, 4, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2D(2), nn.Conv2D(4, 6, 3, padding=1), nn.ReLU(),
                         nn.Flatten(), nn.Linear(6 * 4 * 4, 10))


def _train(door, kind, optname, seed, wrap=None, rows=slice(None), accumulate=False):
    """STEPS steps on the rows `rows` of each batch of _data(); `wrap` turns the model into
    its data-parallel wrapper. With accumulate, each step is two half micro-batches, the
    first under no_sync(). Returns {name: final parameter}."""
    x, y = _data()
    if door == "torch":
        import oar.torch as torch
        torch.manual_seed(seed)
        model = _torch_model(kind)
        opt = (torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9) if optname == "sgd"
               else torch.optim.Adam(model.parameters(), lr=0.01))
        tensor, ce = torch.tensor, torch.nn.functional.cross_entropy
        zero = opt.zero_grad
    else:
        import oar
        oar.seed(seed)
        model = _paddle_model(kind)
        opt = (oar.optimizer.Momentum(0.1, 0.9, parameters=model.parameters())
               if optname == "sgd" else oar.optimizer.Adam(0.01, parameters=model.parameters()))
        tensor, ce = oar.to_tensor, oar.nn.functional.cross_entropy
        zero = opt.clear_grad
    net = model if wrap is None else wrap(model)
    if wrap is not None and kind == "cnn":
        assert len(net._reducer.buckets) >= 3, len(net._reducer.buckets)
    for s in range(STEPS):
        xb, yb = x[s][rows], y[s][rows]
        if accumulate:
            h = len(xb) // 2
            with net.no_sync():
                (ce(net(tensor(xb[:h])), tensor(yb[:h])) / 2).backward()
            (ce(net(tensor(xb[h:])), tensor(yb[h:])) / 2).backward()
        else:
            ce(net(tensor(xb)), tensor(yb)).backward()
        opt.step()
        zero()
    return {n: np.array(p._data, copy=True) for n, p in model.named_parameters()}


CASES = [(door, kind, opt) for door in ("torch", "paddle") for kind in ("mlp", "cnn")
         for opt in ("sgd", "adam")]


# --------------------------------------------------------------------------- the workers
def _worker_exact(out):
    """Every case with per-rank batch B/N (and the accumulation case); each rank saves its
    final parameters."""
    import oar.distributed as pdist
    import oar.torch.distributed as tdist
    from oar.torch.nn.parallel import DistributedDataParallel as DDP
    tdist.init_process_group("mpi")
    r, n = tdist.get_rank(), tdist.get_world_size()
    assert (pdist.get_rank(), pdist.get_world_size()) == (r, n)
    per = B // n
    rows = slice(r * per, (r + 1) * per)
    res = {}
    for door, kind, opt in CASES + [("torch", "mlp", "sgd-acc"), ("paddle", "cnn", "adam-acc")]:
        wrap = DDP if door == "torch" else pdist.DataParallel
        if kind == "cnn":   # small buckets: several all-reduces overlap the backward
            wrap = ((lambda m: DDP(m, bucket_cap_mb=0.0005)) if door == "torch" else
                    (lambda m: pdist.DataParallel(m, comm_buffer_size=0.0005,
                                                  last_comm_buffer_size=0.0002)))
        acc = opt.endswith("-acc")
        # rank-dependent seed: the wrapper must broadcast rank 0's initial parameters
        params = _train(door, kind, opt.replace("-acc", ""), seed=r, wrap=wrap, rows=rows,
                        accumulate=acc)
        for name, v in params.items():
            res[f"{door}/{kind}/{opt}/{name}"] = v
    np.savez(f"{out}.{r}.npz", **res)


def _worker_collectives(out):
    """The collectives in both doors; asserts here, exits non-zero on failure."""
    import oar
    import oar.distributed as pdist
    import oar.torch as torch
    import oar.torch.distributed as dist
    dist.init_process_group("mpi")
    r, n = dist.get_rank(), dist.get_world_size()
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    mine = base + 10 * r
    every = [base + 10 * k for k in range(n)]
    checks = {
        dist.ReduceOp.SUM: sum(every), dist.ReduceOp.MAX: np.maximum.reduce(every),
        dist.ReduceOp.MIN: np.minimum.reduce(every), dist.ReduceOp.PRODUCT: np.prod(every, 0),
        dist.ReduceOp.AVG: sum(every) / n}
    for op, want in checks.items():
        t = torch.tensor(mine)
        v, arr = t._version, t._data
        assert dist.all_reduce(t, op=op) is None
        np.testing.assert_allclose(t.numpy(), want, rtol=1e-6)
        assert t._version == v + 1 and t._data is arr, op   # in place: the same memory
    # a non-contiguous window: reduced in place through a copy, the rest untouched
    big = torch.tensor(np.ones((3, 4), np.float32) * (r + 1))
    col = big[:, 1]
    w = dist.all_reduce(col, async_op=True)
    assert w.wait() and w.is_completed()
    want = np.ones((3, 4), np.float32) * (r + 1)
    want[:, 1] = sum(k + 1 for k in range(n))
    np.testing.assert_array_equal(big.numpy(), want)
    # the Inplace rules: a leaf that requires grad is refused before anything is sent
    leaf = torch.ones(3, requires_grad=True)
    try:
        dist.all_reduce(leaf)
        raise AssertionError("all_reduce on a leaf requiring grad was accepted")
    except RuntimeError as e:
        assert "leaf" in str(e).lower()
    assert leaf._version == 0
    with torch.no_grad():
        dist.all_reduce(leaf)
    np.testing.assert_array_equal(leaf.detach().numpy(), np.full(3, n, np.float32))
    nonleaf = leaf * 2
    try:
        dist.all_reduce(nonleaf)
        raise AssertionError("all_reduce on a tensor with history was accepted")
    except RuntimeError as e:
        assert "no derivative" in str(e)
    # integer and bitwise reductions
    it = torch.tensor([r + 1, 6], dtype=torch.int64)
    dist.all_reduce(it, op=dist.ReduceOp.BOR)
    assert it.tolist() == [np.bitwise_or.reduce([k + 1 for k in range(n)]), 6]
    # broadcast
    b = torch.tensor(mine)
    dist.broadcast(b, src=1)
    np.testing.assert_array_equal(b.numpy(), every[1])
    # all_gather: into the given tensors (torch), into the list (paddle)
    outs = [torch.zeros(2, 3) for _ in range(n)]
    dist.all_gather(outs, torch.tensor(mine))
    for k in range(n):
        np.testing.assert_array_equal(outs[k].numpy(), every[k])
        assert outs[k]._version == 1
    lst = []
    pdist.all_gather(lst, oar.to_tensor(mine))
    assert len(lst) == n and all(isinstance(t, oar.Tensor) for t in lst)
    for k in range(n):
        np.testing.assert_array_equal(lst[k].numpy(), every[k])
    # reduce_scatter: output <- sum over ranks of their input_list[rank]
    ins = [torch.tensor(base * (k + 1) + r) for k in range(n)]
    o = torch.zeros(2, 3)
    dist.reduce_scatter(o, ins)
    np.testing.assert_allclose(o.numpy(), sum(base * (r + 1) + k for k in range(n)))
    # the Paddle door's spellings
    p = oar.to_tensor(mine)
    pdist.all_reduce(p, op=pdist.ReduceOp.MAX).wait()
    np.testing.assert_array_equal(p.numpy(), np.maximum.reduce(every))
    env = pdist.ParallelEnv()
    assert (env.rank, env.local_rank, env.world_size, env.nranks, env.dev_id) == (r, r, n, n, 0)
    # DistributedBatchSampler / DistributedSampler take the group's rank and size
    ds = oar.io.TensorDataset([oar.to_tensor(np.arange(10, dtype=np.float32))])
    s = oar.io.DistributedBatchSampler(ds, batch_size=2)
    assert (s.nranks, s.local_rank) == (n, r)
    from oar.torch.utils.data.distributed import DistributedSampler
    ds2 = DistributedSampler(list(range(10)))
    assert (ds2.num_replicas, ds2.rank) == (n, r)
    got = [None] * n
    dist.all_gather_object(got, list(ds2))
    flat = sorted(i for g in got for i in g)
    assert flat == list(range(10)), flat
    dist.barrier()
    with open(f"{out}.{r}.ok", "w") as f:
        f.write("ok")


def _worker_mismatch(out):
    """Rank 1 builds a different model: every rank gets the same clear error at start."""
    import oar.torch as torch
    import oar.torch.distributed as dist
    from oar.torch.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("mpi")
    r = dist.get_rank()
    m = torch.nn.Sequential(torch.nn.Linear(4, 8 if r == 0 else 9), torch.nn.Linear(
        8 if r == 0 else 9, 2))
    try:
        DDP(m)
    except RuntimeError as e:
        with open(f"{out}.{r}.err", "w") as f:
            f.write(str(e))


def _worker_unused(out):
    """A parameter without gradient: refused at the next forward by default; reduced with
    find_unused_parameters=True."""
    import oar.torch as torch
    import oar.torch.distributed as dist
    from oar.torch.nn.parallel import DistributedDataParallel as DDP

    class Two(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(3, 2)
            self.b = torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.a(x)

    dist.init_process_group("mpi")
    r, n = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    x = torch.full((2, 3), float(r + 1))
    m = DDP(Two())
    m(x).sum().backward()
    msg = ""
    try:
        m(x)
    except RuntimeError as e:
        msg = str(e)
    assert "b.weight" in msg and "find_unused_parameters=True" in msg, msg
    torch.manual_seed(0)
    inner = Two()
    m2 = DDP(inner, find_unused_parameters=True)
    m2(x).sum().backward()
    # d(sum(a(x)))/d(a.weight)[i, j] = sum over rows of x[:, j]: 2 * (r + 1), averaged
    want = np.full((2, 3), 2 * np.mean([k + 1 for k in range(n)]), np.float32)
    np.testing.assert_allclose(inner.a.weight.grad.numpy(), want)
    np.testing.assert_array_equal(inner.b.weight.grad.numpy(), np.zeros((2, 3), np.float32))
    # an evaluation forward under no_grad between forward and backward changes nothing
    lin = torch.nn.Linear(3, 2)
    m3 = DDP(lin)
    y3 = m3(x)
    with torch.no_grad():
        m3(x)
    y3.sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), want)
    assert lin.weight.grad._storage is m3._reducer.buckets[0].storage   # a view of its bucket
    # wrapped again: only the newest wrapper's hooks stay on the parameters
    m4 = DDP(lin)
    assert len(lin.weight._post_acc_hooks) == 1
    lin.weight.grad = None
    m4(x).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), want)
    assert lin.weight.grad._storage is m4._reducer.buckets[0].storage
    with open(f"{out}.{r}.ok", "w") as f:
        f.write("ok")


def _worker_abort(out):
    """Rank 1 raises before a collective that rank 0 waits in: the job must end."""
    import oar.torch as torch
    import oar.torch.distributed as dist
    dist.init_process_group("mpi")
    if dist.get_rank() == 1:
        raise ZeroDivisionError("rank 1 failed on purpose")
    dist.all_reduce(torch.ones(3))
    dist.barrier()


def _worker_exit(out):
    """Rank 1 ends with sys.exit(3) while rank 0 waits: under `python -m mpi4py` (as the
    main job runs its ranks) the job ends with an error instead of hanging."""
    import oar.torch as torch
    import oar.torch.distributed as dist
    dist.init_process_group("mpi")
    if dist.get_rank() == 1:
        sys.exit(3)
    dist.all_reduce(torch.ones(3))


WORKERS = {"exit": _worker_exit, "exact": _worker_exact, "collectives": _worker_collectives,
           "mismatch": _worker_mismatch, "unused": _worker_unused, "abort": _worker_abort}


# --------------------------------------------------------------------------- launching
def _mpiexec():
    pytest.importorskip("mpi4py")
    from oar.distributed.launch import find_mpiexec
    try:
        return find_mpiexec()
    except RuntimeError as e:
        pytest.skip(str(e))


def _launch(mode, tmp_path, n=2, timeout=120, runner=()):
    cmd = [_mpiexec(), "-n", str(n), sys.executable, *runner, HERE, mode, str(tmp_path / mode)]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=ROOT)


@pytest.fixture(scope="module")
def exact_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ddp")
    proc = _launch("exact", tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [dict(np.load(tmp / f"exact.{r}.npz")) for r in range(2)]


@pytest.mark.parametrize("door,kind,opt", CASES)
def test_two_processes_match_one_with_the_whole_batch(exact_run, door, kind, opt):
    ref = _train(door, kind, opt, seed=0)
    for r, res in enumerate(exact_run):
        for name, want in ref.items():
            got = res[f"{door}/{kind}/{opt}/{name}"]
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6,
                                       err_msg=f"rank {r}, {name}")
    # the replicas are identical, bit for bit (same averaged gradients, same updates)
    for key in exact_run[0]:
        if key.startswith(f"{door}/{kind}/{opt}/"):
            np.testing.assert_array_equal(exact_run[0][key], exact_run[1][key])


@pytest.mark.parametrize("door,kind,opt", [("torch", "mlp", "sgd"), ("paddle", "cnn", "adam")])
def test_no_sync_accumulation_matches_the_whole_batch(exact_run, door, kind, opt):
    ref = _train(door, kind, opt, seed=0)
    for res in exact_run:
        for name, want in ref.items():
            np.testing.assert_allclose(res[f"{door}/{kind}/{opt}-acc/{name}"], want,
                                       rtol=2e-5, atol=2e-6, err_msg=name)


def test_collectives_in_both_doors(tmp_path):
    proc = _launch("collectives", tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert all((tmp_path / f"collectives.{r}.ok").exists() for r in range(2))


def test_mismatched_models_are_refused_on_every_rank(tmp_path):
    proc = _launch("mismatch", tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for r in range(2):
        msg = (tmp_path / f"mismatch.{r}.err").read_text()
        assert "differs across ranks" in msg and "[8, 4]" in msg and "[9, 4]" in msg, msg


def test_unused_parameters(tmp_path):
    proc = _launch("unused", tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert all((tmp_path / f"unused.{r}.ok").exists() for r in range(2))


def test_a_failing_rank_ends_the_job_instead_of_hanging(tmp_path):
    proc = _launch("abort", tmp_path, timeout=60)   # a hang would raise TimeoutExpired
    assert proc.returncode != 0
    err = proc.stderr
    assert "rank 1 failed on purpose" in err and "rank 1 of 2 raised ZeroDivisionError" in err


def test_a_rank_exiting_non_zero_ends_the_job_under_mpi4py_runner(tmp_path):
    proc = _launch("exit", tmp_path, timeout=60, runner=("-m", "mpi4py"))
    assert proc.returncode != 0


def test_main_job_trains_data_parallel_with_two_processes():
    pytest.importorskip("sklearn")
    _mpiexec()
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("OAR_MPI_LAUNCHED", None)
    proc = subprocess.run([sys.executable, "-m", "oar", "train", "--nproc", "2", "--model",
                           "mlp", "--epochs", "2", "--batch-size", "32"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "data-parallel over 2 MPI processes: global batch 32 = 2 x 16" in proc.stderr
    assert "replicas identical after training: yes" in proc.stdout
    assert "samples/s" in proc.stdout


def test_main_job_checks_before_launching():
    pytest.importorskip("sklearn")
    proc = subprocess.run([sys.executable, "-m", "oar", "train", "--nproc", "2",
                           "--batch-size", "33"], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert proc.returncode == 2 and "not a multiple of --nproc" in proc.stderr, proc.stderr


def test_no_mpiexec_names_the_extra(monkeypatch, tmp_path):
    from oar.distributed import launch
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setattr(launch.sysconfig, "get_path", lambda name: str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"pip install 'oar\[mpi\]'"):
        launch.find_mpiexec()
    with pytest.raises(ValueError, match="nproc"):
        launch.relaunch_with_mpiexec(["train"], 0)


# --------------------------------------------------------------------------- one process
def test_distributed_sampler_order_is_torchs():
    torch = pytest.importorskip("torch")
    from torch.utils.data.distributed import DistributedSampler as Ref

    from oar.torch.utils.data.distributed import DistributedSampler
    for n, drop, shuffle in [(10, False, True), (11, False, True), (11, True, True),
                             (3, False, True), (7, False, False)]:
        data = list(range(n))
        for reps in (2, 3, 5):
            seen = []
            for rank in range(reps):
                mine, ref = (DistributedSampler(data, reps, rank, shuffle, 5, drop),
                             Ref(data, reps, rank, shuffle, 5, drop))
                for epoch in (0, 1, 4):
                    mine.set_epoch(epoch)
                    ref.set_epoch(epoch)
                    assert list(mine) == list(ref), (n, reps, rank, epoch)
                    assert len(mine) == len(ref)
                seen.append(list(mine))
            if not drop and n % reps == 0:   # disjoint shares covering the data
                assert sorted(i for s in seen for i in s) == data
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(list(range(4)), num_replicas=2, rank=2)
    del torch


def test_distributed_batch_sampler_defaults_to_a_single_process():
    import oar
    ds = oar.io.TensorDataset([oar.to_tensor(np.arange(10, dtype=np.float32))])
    s = oar.io.DistributedBatchSampler(ds, batch_size=3)
    assert (s.nranks, s.local_rank) == (1, 0)
    assert [i for b in s for i in b] == list(range(10))


def test_uninitialised_group_errors_match_the_frameworks():
    import oar.distributed as pdist
    import oar.torch as otorch
    import oar.torch.distributed as dist
    from oar.torch.nn.parallel import DistributedDataParallel as DDP
    torch = pytest.importorskip("torch")
    import torch.distributed as tdist
    assert dist.is_initialized() is False
    with pytest.raises(ValueError) as ref:
        tdist.get_rank()
    with pytest.raises(ValueError) as mine:
        dist.get_rank()
    assert str(mine.value) == str(ref.value)
    with pytest.raises(ValueError, match="not been initialized"):
        dist.all_reduce(otorch.ones(2))
    with pytest.raises(ValueError, match="not been initialized"):
        DDP(otorch.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="not needed"):
        DDP(otorch.nn.ReLU())
    with pytest.raises(ValueError, match="device_ids"):
        DDP(otorch.nn.Linear(2, 2), device_ids=[0])
    # the Paddle door: rank 0 of 1, and DataParallel a plain wrapper, as in Paddle
    assert (pdist.get_rank(), pdist.get_world_size()) == (0, 1)
    import oar
    lin = oar.nn.Linear(2, 3)
    dp = oar.DataParallel(lin) if hasattr(oar, "DataParallel") else pdist.DataParallel(lin)
    x = oar.ones([4, 2])
    np.testing.assert_array_equal(dp(x).numpy(), lin(x).numpy())
    assert list(dp.state_dict()) == list(lin.state_dict())
    with pytest.raises(RuntimeError, match="not been initialized"):
        pdist.all_reduce(oar.ones([2]))


def test_reduce_op_values_per_door():
    torch = pytest.importorskip("torch")
    import torch.distributed as tdist

    import oar.distributed as pdist
    import oar.torch.distributed as dist
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        assert int(getattr(dist.ReduceOp, name)) == int(getattr(tdist.ReduceOp, name).value)
    paddle = pytest.importorskip("paddle")
    for name in ("SUM", "MAX", "MIN", "PROD", "AVG"):
        assert getattr(pdist.ReduceOp, name) == getattr(paddle.distributed.ReduceOp, name)
    del torch


def test_backends():
    import oar.torch.distributed as dist
    with pytest.raises(RuntimeError, match="CPU only"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="invalid backend"):
        dist.init_process_group("tcp")
    assert dist.is_initialized() is False


def test_without_mpi4py_the_error_names_the_extra(monkeypatch):
    import oar.distributed as pdist
    import oar.torch.distributed as dist
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    assert dist.is_available() is False and pdist.is_available() is False
    with pytest.raises(RuntimeError, match=r"pip install 'oar\[mpi\]'"):
        dist.init_process_group("mpi")
    with pytest.raises(RuntimeError, match=r"pip install 'oar\[mpi\]'"):
        pdist.init_parallel_env()
    assert dist.is_initialized() is False


def test_post_accumulate_grad_hook_matches_torch():
    torch = pytest.importorskip("torch")
    import oar.torch as otorch
    for lib in (torch, otorch):
        a = lib.ones(2, requires_grad=True)
        seen = []
        h = a.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
        (a * 3).sum().backward()
        a.register_hook(lambda g: g * 10)
        (a * 3).sum().backward()
        h.remove()
        (a * 3).sum().backward()
        assert [s.tolist() for s in seen] == [[3.0, 3.0], [33.0, 33.0]]
        lib.autograd.grad((a * 2).sum(), a)   # not accumulated: the hook does not run
        assert len(seen) == 2
        b = lib.ones(2, requires_grad=True)
        b.register_post_accumulate_grad_hook(lambda p: p.grad * 2)
        with pytest.raises(RuntimeError, match="should return None"):
            (b * 2).sum().backward()
        with pytest.raises(RuntimeError, match="non-leaf"):
            (a * 2).register_post_accumulate_grad_hook(lambda p: None)
        with pytest.raises(RuntimeError, match="doesn't require"):
            lib.ones(2).register_post_accumulate_grad_hook(lambda p: None)


if __name__ == "__main__":   # a worker under mpiexec: python test_distributed.py MODE OUT
    sys.path.insert(0, ROOT)
    WORKERS[sys.argv[1]](sys.argv[2])
