"""Data-parallel scaling on this machine: samples/s of the main job's MLP and CNN trained
with 1 process and with N processes (oar.DataParallel over MPI, global batch fixed), and
the share of the step time spent communicating (the reducer's time in Iallreduce, polling
and Waitall, which includes waiting for the slower rank). Figures are read, never asserted.

    python bench/bench_distributed.py                 # mlp and cnn, 1 and 2 processes
    python bench/bench_distributed.py --nproc 4 --steps 40 --batch 128

Each configuration runs in its own `mpiexec -n N` job with single-threaded BLAS in every
process; the 1-process row is also run with BLAS on every core ("1 process, all cores"),
the fair baseline when the cores would otherwise sit idle. Needs pip install 'oar[mpi]'.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def worker(model_kind, steps, batch, warmup, out, bucket_mb=25.0):
    """One configuration in this MPI job; rank 0 writes its figures as JSON to `out`."""
    sys.path.insert(0, ROOT)
    import numpy as np

    import oar
    import oar.distributed as dist
    from oar.nn import functional as F
    from oar.train import make_model
    dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    variant = "bn" if model_kind == "cnn" else "out-of-place"
    oar.seed(0)
    model = make_model(model_kind, variant)
    net = (dist.DataParallel(model, comm_buffer_size=bucket_mb,
                             last_comm_buffer_size=min(1.0, bucket_mb)) if n > 1 else model)
    opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    rng = np.random.default_rng(rank)
    per = batch // n
    shape = (per, 64) if model_kind == "mlp" else (per, 1, 8, 8)
    xs = [oar.to_tensor(rng.standard_normal(shape).astype(np.float32)) for _ in range(4)]
    ys = [oar.to_tensor(rng.integers(0, 10, per).astype(np.int64)) for _ in range(4)]
    times = []
    comm0 = 0.0
    for s in range(warmup + steps):
        if s == warmup:
            comm0 = net.communication_seconds() if n > 1 else 0.0
            dist.barrier() if n > 1 else None
        t0 = time.perf_counter()
        loss = F.cross_entropy(net(xs[s % 4]), ys[s % 4])
        loss.backward()
        opt.step()
        opt.clear_grad(set_to_zero=False)
        times.append(time.perf_counter() - t0)
    step = times[warmup:]
    comm = (net.communication_seconds() - comm0) if n > 1 else 0.0
    allreduce_us = 0.0
    if n > 1:   # the all-reduce of all the gradients alone, after a barrier: the wire time
        mpi, c = dist._comm.STATE.MPI, dist._comm.STATE.comm
        buf = np.ones(sum(p._data.size for p in model.parameters()), np.float32)
        for _ in range(10):
            c.Allreduce(mpi.IN_PLACE, buf)
        c.Barrier()
        t0 = time.perf_counter()
        for _ in range(100):
            c.Allreduce(mpi.IN_PLACE, buf)
        allreduce_us = (time.perf_counter() - t0) / 100 * 1e6
    mine = np.array([sum(step), comm], np.float64)
    every = np.empty((n, 2)) if n > 1 else mine[None]
    if n > 1:
        dist._comm.STATE.comm.Allgather(mine, every)
    if rank == 0:
        wall = every[:, 0].max()
        res = {"model": model_kind, "nproc": n, "batch": batch, "steps": steps,
               "samples_per_s": steps * batch / wall,
               "step_ms": 1000 * wall / steps,
               "comm_share": float((every[:, 1] / every[:, 0]).mean()),
               "buckets": len(net._reducer.buckets) if n > 1 else 0,
               "allreduce_us": allreduce_us,
               "grad_bytes": 4 * sum(p._data.size for p in model.parameters())}
        with open(out, "w") as f:
            json.dump(res, f)


def run(model_kind, n, steps, batch, warmup, threads, bucket_mb=25.0):
    from oar.distributed.launch import find_mpiexec
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"oar_bench_dist_{os.getpid()}.json")
    env = dict(os.environ, PYTHONPATH=ROOT)
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[v] = str(threads)
    cmd = [find_mpiexec(), "-n", str(n), sys.executable, os.path.abspath(__file__),
           "--worker", model_kind, "--steps", str(steps), "--batch", str(batch),
           "--warmup", str(warmup), "--out", out, "--bucket-mb", str(bucket_mb)]
    subprocess.run(cmd, check=True, env=env, timeout=600)
    with open(out) as f:
        res = json.load(f)
    os.remove(out)
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,cnn")
    p.add_argument("--nproc", type=int, default=2)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--batch", type=int, default=64, help="global batch (split over ranks)")
    p.add_argument("--repeat", type=int, default=2, help="runs per configuration (best kept)")
    p.add_argument("--bucket-mb", type=float, default=25.0,
                   help="DataParallel's bucket size in MiB (comm_buffer_size)")
    p.add_argument("--small-buckets", type=float, default=0.004, metavar="MIB",
                   help="also run N processes with buckets of this size (0: skip)")
    p.add_argument("--worker")
    p.add_argument("--out")
    a = p.parse_args()
    if a.worker:
        return worker(a.worker, a.steps, a.batch, a.warmup, a.out, a.bucket_mb)
    cores = os.cpu_count() or 1
    rows = []
    for kind in a.models.split(","):
        configs = [("1 process, 1 thread", 1, 1, a.bucket_mb),
                   (f"1 process, {cores} threads", 1, cores, a.bucket_mb),
                   (f"{a.nproc} processes, 1 thread each", a.nproc, 1, a.bucket_mb)]
        if a.small_buckets:
            configs.append((f"{a.nproc} processes, {a.small_buckets:g} MiB buckets", a.nproc, 1,
                            a.small_buckets))
        for label, n, threads, mb in configs:
            best = max((run(kind, n, a.steps, a.batch, a.warmup, threads, mb)
                        for _ in range(a.repeat)), key=lambda r: r["samples_per_s"])
            rows.append((kind, label, best))
    print(f"\n{'model':6} {'configuration':32} {'samples/s':>10} {'step':>9} "
          f"{'communication':>14} {'buckets':>8} {'allreduce alone':>16}")
    for kind, label, r in rows:
        alone = (f"{r['allreduce_us']:.0f} us / {r['grad_bytes'] // 1024} KiB"
                 if r["allreduce_us"] else "")
        print(f"{kind:6} {label:32} {r['samples_per_s']:>10.0f} {r['step_ms']:>7.2f}ms "
              f"{100 * r['comm_share']:>13.1f}% {r['buckets']:>8} {alone:>16}")
    print(f"global batch {a.batch}, {a.steps} timed steps after {a.warmup} warm-up, best of "
          f"{a.repeat}; communication: share of each rank's step time in MPI calls "
          "(Iallreduce, polling, Waitall), which includes waiting for the slower rank; "
          "allreduce alone: one blocking Allreduce of all the gradients after a barrier")


if __name__ == "__main__":
    main()
