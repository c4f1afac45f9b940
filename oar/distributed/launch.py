"""Launching data-parallel jobs through MPI's mpiexec, and the main job's data-parallel
training (`python -m oar train --nproc N`).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time

import numpy as np

from . import _comm

# Note [Relaunch through mpiexec]
# `python -m oar train --nproc N` runs as one process first; it finds the `mpiexec` that the
# mpich wheel installed next to the Python interpreter (the venv's bin/, else PATH) and
# re-runs the same command line under `mpiexec -n N python -m mpi4py -m oar ...`, with
# OAR_MPI_LAUNCHED=1 in the environment so the N processes train instead of relaunching
# again. (`python -m mpi4py` turns a rank's non-zero exit into MPI_Abort, Note [Abort on
# failure] covers uncaught exceptions.) The parent's exit status
# is mpiexec's. On a cluster the relaunch is not needed: run the processes yourself with
# `mpiexec -n N -hosts a,b python -m oar train --nproc N` (the processes see that MPI started
# them and train directly).

LAUNCHED_ENV = "OAR_MPI_LAUNCHED"
# what MPI launchers put in each process's environment (MPICH/Hydra, Open MPI, Slurm's PMI)
_MPI_ENV = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")


def find_mpiexec():
    """The mpiexec to launch with: the one installed next to this Python (the mpich wheel
    puts it in the venv's bin/), else the first on PATH; RuntimeError naming the extra to
    install when there is none."""
    names = ("mpiexec", "mpiexec.exe", "mpirun")
    dirs = [os.path.dirname(sys.executable), sysconfig.get_path("scripts")]
    for d in dirs:
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                return p
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    raise RuntimeError(f"no mpiexec found next to {sys.executable} or on PATH: data "
                       f"parallelism runs on MPI. Fix: {_comm.MPI_HINT}")


def in_mpi_job():
    """Whether this process was started by mpiexec (by the relaunch or by the user)."""
    if os.environ.get(LAUNCHED_ENV) == "1":
        return True
    return any(k in os.environ for k in _MPI_ENV)


def relaunch_with_mpiexec(argv, nproc):
    """Runs `python -m oar <argv>` in `nproc` processes under mpiexec (Note [Relaunch
    through mpiexec]) and returns its exit status. mpi4py must be importable (checked first,
    so the error is one line here, not N tracebacks)."""
    if isinstance(nproc, bool) or not isinstance(nproc, int) or nproc < 1:
        raise ValueError(f"relaunch_with_mpiexec: nproc must be an integer >= 1, got {nproc!r}")
    if not _comm.mpi_available():
        raise RuntimeError(f"--nproc {nproc} needs mpi4py, which is not installed. Fix: "
                           f"{_comm.MPI_HINT}")
    exe = find_mpiexec()
    # `python -m mpi4py` aborts the whole job when a rank exits with a non-zero status
    # (sys.exit(2) while the others wait in a collective would hang them otherwise)
    cmd = [exe, "-n", str(nproc), sys.executable, "-m", "mpi4py", "-m", "oar", *argv]
    env = dict(os.environ, **{LAUNCHED_ENV: "1"})
    env.setdefault("OMP_NUM_THREADS", "1")   # N processes share the cores: no oversubscription
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 130


# --------------------------------------------------------------------------- main job
def train_main(args, argv):
    """The main job with --nproc N > 1: relaunch under mpiexec (Note [Relaunch through
    mpiexec]), or, inside the MPI job, train data-parallel and report on rank 0. Returns the
    exit status."""
    from ..train import CliError
    if args.plot is not None:
        raise CliError("--plot is not available with --nproc > 1 (the memory chart is of one "
                       "process); leave one of them out")
    if args.batch_size % args.nproc:
        raise CliError(f"--batch-size {args.batch_size} is not a multiple of --nproc "
                       f"{args.nproc}: each process takes batch-size / nproc samples per step")
    if not in_mpi_job():
        try:
            return relaunch_with_mpiexec(["train", *argv], args.nproc)
        except RuntimeError as e:
            raise CliError(str(e)) from None
    return _train_in_mpi_job(args)


def _train_in_mpi_job(args):
    import oar
    from .. import train as T
    from . import DataParallel, all_reduce, get_rank, get_world_size, init_parallel_env
    init_parallel_env()
    rank, n = get_rank(), get_world_size()
    if n != args.nproc:
        raise T.CliError(f"--nproc {args.nproc} but mpiexec started {n} processes; give the "
                         "same number to both")
    out = sys.stderr if rank == 0 else open(os.devnull, "w")
    (xtr, ytr), (xte, yte) = T.load_digits()
    variant, label = T.VARIANTS[args.model][0]
    oar.seed(args.seed)
    model = T.make_model(args.model, variant)
    dp = DataParallel(model)                 # rank 0's initial weights everywhere
    oar.seed(args.seed + 1000 * rank)        # each rank its own dropout masks
    lr = args.lr if args.lr is not None else T.DEFAULT_LR[args.model]
    opt = oar.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
    ds = oar.io.TensorDataset([oar.to_tensor(xtr), oar.to_tensor(ytr)])
    sampler = oar.io.DistributedBatchSampler(ds, batch_size=args.batch_size // n, shuffle=True)
    loader = oar.io.DataLoader(ds, batch_sampler=sampler)
    print(f"oar {oar.__version__}: training a {args.model} ({label}) on digits, data-parallel "
          f"over {n} MPI processes: global batch {args.batch_size} = {n} x "
          f"{args.batch_size // n}", file=out)
    times, comm, samples = [], [], []
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        c0 = dp.communication_seconds()
        t0 = time.perf_counter()
        total, count, seen = 0.0, 0, 0
        for xb, yb in loader:
            loss = T.F.cross_entropy(dp(T._shape_input(xb, args.model)), yb)
            loss.backward()
            opt.step()
            opt.clear_grad(set_to_zero=False)
            total += loss.item()
            count += 1
            seen += xb.shape[0]
        times.append(time.perf_counter() - t0)
        comm.append(dp.communication_seconds() - c0)
        stats = oar.to_tensor(np.array([total / max(count, 1), seen, times[-1]], np.float64))
        all_reduce(stats)
        mean_loss, samples_all = stats[0].item() / n, stats[1].item()
        samples.append(samples_all)
        if not args.quiet:
            print(f"epoch {epoch + 1}/{args.epochs}  loss {mean_loss:.4f}, {times[-1]:.2f}s, "
                  f"{samples_all / times[-1]:.0f} samples/s", file=out, flush=True)
    acc = T.accuracy(model, xte, yte, args.model)
    check = oar.to_tensor(np.array([sum(float(np.abs(p.numpy()).sum())
                                        for p in model.parameters())], np.float64))
    mine = check.item()
    all_reduce(check)
    same = abs(check.item() / n - mine) <= 1e-9 * max(1.0, abs(mine))
    share = sum(comm) / sum(times)
    print(f"\n{'processes':>10}{'test accuracy':>15}{'time per epoch':>16}{'samples/s':>11}"
          f"{'communication':>15}\n{n:>10}{acc:>15.4f}{np.mean(times):>14.3f} s"
          f"{np.mean(samples) / np.mean(times):>11.0f}{100 * share:>14.1f}%", file=sys.stdout
          if rank == 0 else out)
    print(f"communication: share of the step time rank 0 spent in MPI (Iallreduce, polling, "
          f"Waitall) during backward; replicas identical after training: "
          f"{'yes' if same else 'NO'}", file=sys.stdout if rank == 0 else out)
    if out is not sys.stderr:
        out.close()
    return 0 if same else 1
