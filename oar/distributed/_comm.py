"""The process group both doors share: MPI (mpi4py) imported lazily, the collectives on
tensors in place, and the abort-on-failure handler.
"""
from __future__ import annotations

import os
import sys
import traceback

import numpy as np

from ..autograd import grad_mode
from ..autograd.inplace import bump, check_inplace_autograd, check_writable
from ..tensor import Tensor

# Note [MPI process group]
# One process group per program, MPI's COMM_WORLD duplicated at init (so oar's messages never
# mix with the user's own mpi4py traffic). mpi4py is imported only when a process group is
# initialised: `import oar` and everything that does not communicate work without it (the
# `mpi` extra: pip install 'oar[mpi]'). Started without mpiexec, MPI runs as a singleton: a
# world of one process, where every collective is the identity. Groups other than the world
# are not supported (`group=None` or the world group only).

# Note [Collectives are in-place ops]
# all_reduce, broadcast and the outputs of all_gather / reduce_scatter write into existing
# tensors, so they follow the Inplace rules of every in-place op (autograd/inplace.py), checked
# before any message is sent: a leaf that requires grad (or a view of one) is refused outside
# no_grad; a tensor with history that needs a gradient is refused too, since a collective has
# no derivative (its old history would be used as if nothing changed); an expanded (stride-0)
# destination is refused. Each written tensor's version is bumped once. The reduction runs
# in MPI on the tensor's own memory (`MPI.IN_PLACE`) when it is contiguous; otherwise on a
# contiguous copy written back.

# Note [Abort on failure]
# A rank that raises while the others wait in a collective would leave them blocked forever.
# init installs a sys.excepthook that prints the traceback with the rank, then calls
# MPI_Abort on the world: mpiexec then ends every rank, and the job exits non-zero with the
# failing rank's message on stderr (tests/test_distributed.py checks it under a timeout).
# A rank that ends with sys.exit(non-zero) raises SystemExit, which never reaches the hook:
# run the ranks as `mpiexec -n N python -m mpi4py script.py` (what `python -m oar train
# --nproc N` does), and mpi4py aborts the job for it.

MPI_HINT = "pip install 'oar[mpi]' (mpi4py and the mpich wheel, which brings mpiexec)"


class _State:
    comm = None          # the duplicated world communicator once initialised
    MPI = None
    rank = 0
    size = 1
    backend = None
    prev_excepthook = None


STATE = _State()


def mpi_available():
    """Whether mpi4py can be imported (without importing it)."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def _import_mpi(op_name):
    try:
        import mpi4py
        mpi4py.rc.threads = False   # one thread calls MPI; no MPI_THREAD_MULTIPLE cost
        from mpi4py import MPI
    except ImportError:
        raise RuntimeError(f"{op_name}: data parallelism needs MPI through mpi4py, which is "
                           f"not installed. Fix: {MPI_HINT}, then launch with "
                           "`mpiexec -n 2 python your_script.py`") from None
    return MPI


def is_initialized():
    """Whether the process group is initialised."""
    return STATE.comm is not None


def init(op_name, backend="mpi"):
    """Initialise the process group (Note [MPI process group]); a second call is refused by
    the doors, not here."""
    MPI = _import_mpi(op_name)
    if not MPI.Is_initialized():
        MPI.Init()
    STATE.MPI = MPI
    STATE.comm = MPI.COMM_WORLD.Dup()
    STATE.rank = STATE.comm.Get_rank()
    STATE.size = STATE.comm.Get_size()
    STATE.backend = backend
    if STATE.size > 1 and STATE.prev_excepthook is None:
        STATE.prev_excepthook = sys.excepthook
        sys.excepthook = _abort_on_exception
    return STATE.comm


def destroy():
    """Forget the process group (MPI itself stays initialised: it cannot be restarted)."""
    if STATE.comm is not None:
        try:
            STATE.comm.Free()
        except Exception:
            pass
    STATE.comm = None
    STATE.rank, STATE.size, STATE.backend = 0, 1, None
    if STATE.prev_excepthook is not None:
        sys.excepthook = STATE.prev_excepthook
        STATE.prev_excepthook = None


def _abort_on_exception(exc_type, exc, tb):
    """Note [Abort on failure]."""
    rank, size = STATE.rank, STATE.size
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    sys.stderr.write(text)
    sys.stderr.write(f"oar.distributed: rank {rank} of {size} raised {exc_type.__name__}: "
                     f"{exc}; aborting every rank (MPI_Abort) so that none waits forever\n")
    sys.stderr.flush()
    comm = STATE.comm
    if comm is not None:
        comm.Abort(1)
    os._exit(1)


def require(op_name, error=RuntimeError):
    """The communicator, or `error` naming the fix when the group is not initialised."""
    comm = STATE.comm
    if comm is None:
        raise error(f"{op_name}: the process group has not been initialized. Fix: call "
                    "init_process_group(backend='mpi') (torch) / init_parallel_env() (paddle) "
                    "first, and launch with `mpiexec -n N python script.py`")
    return comm


def check_group(group, op_name, world):
    if group is not None and group is not world:
        raise NotImplementedError(f"{op_name}: only the default (world) group is supported; "
                                  f"got group={group!r}. Fix: leave group=None")


# --------------------------------------------------------------------------- reductions
# Internal reduction names; each door maps its own ReduceOp values onto these.
_MPI_OPS = {"sum": "SUM", "prod": "PROD", "min": "MIN", "max": "MAX", "avg": "SUM",
            "band": "BAND", "bor": "BOR", "bxor": "BXOR"}


def mpi_op(name):
    return getattr(STATE.MPI, _MPI_OPS[name])


def check_tensor(t, op_name, what="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"{op_name}: {what} must be a Tensor, got {type(t).__name__}")
    return t


def check_write(t, op_name, what="tensor"):
    """Note [Collectives are in-place ops]: every check before anything is sent."""
    check_tensor(t, op_name, what)
    grad_mode.check_inference(t, op_name)
    if grad_mode.is_grad_enabled() and t.requires_grad:
        check_inplace_autograd(t, op_name)   # a leaf (or a view of one): InplaceLeafError
        raise RuntimeError(
            f"{op_name} has no derivative, so it cannot write into a tensor of shape "
            f"{list(t._data.shape)} that needs a gradient (its old history would be used as "
            "if nothing changed). Fix: run it on a detached copy, e.g. "
            f"`v = t.detach().clone(); {op_name}(v)`, or under no_grad()")
    check_writable(t, op_name)
    return t


def _contiguous(arr):
    return arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)


def allreduce_array(arr, name):
    """arr (an ndarray) reduced over every rank in place (Note [MPI process group])."""
    comm = STATE.comm
    if STATE.size > 1:
        buf = _contiguous(arr)
        if arr.dtype.kind == "b" or arr.dtype == np.float16:
            # no MPI datatype: reduce a widened copy
            wide = buf.astype(np.int64 if arr.dtype.kind == "b" else np.float32)
            comm.Allreduce(STATE.MPI.IN_PLACE, wide, op=mpi_op(name))
            buf[...] = wide
        else:
            comm.Allreduce(STATE.MPI.IN_PLACE, buf, op=mpi_op(name))
        if buf is not arr:
            arr[...] = buf
    if name == "avg":
        if arr.dtype.kind == "f" or arr.dtype.kind == "c":
            arr /= STATE.size
        else:
            arr //= STATE.size
    return arr


def all_reduce(t, name, op_name):
    """t reduced over every rank, in place; its version is bumped once."""
    check_write(t, op_name)
    if name in ("band", "bor", "bxor") and t._data.dtype.kind not in "iub":
        raise TypeError(f"{op_name}: bitwise reductions need an integer or bool tensor, got "
                        f"{t.dtype.name}")
    allreduce_array(t._data, name)
    bump(t, op_name)
    return t


def broadcast(t, src, op_name):
    """t's values on rank src written into t on every rank; version bumped once."""
    check_write(t, op_name)
    _check_rank(src, op_name, "src")
    if STATE.size > 1:
        buf = _contiguous(t._data)
        STATE.comm.Bcast(buf, root=src)
        if buf is not t._data:
            t._data[...] = buf
    bump(t, op_name)
    return t


def _check_rank(r, op_name, what):
    if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 0 <= r < STATE.size:
        raise ValueError(f"{op_name}: {what}={r!r} is not a rank of this group (ranks "
                         f"0..{STATE.size - 1})")


def gather_arrays(arr, op_name):
    """Every rank's copy of arr (same shape and dtype on every rank, checked), stacked on a
    new first axis."""
    comm = STATE.comm
    meta = comm.allgather((tuple(arr.shape), arr.dtype.str))
    if any(m != meta[0] for m in meta):
        raise RuntimeError(f"{op_name}: the tensors differ across ranks (shape, dtype per rank: "
                           f"{meta}); every rank must pass the same shape and dtype")
    out = np.empty((STATE.size,) + arr.shape, arr.dtype)
    if STATE.size == 1:
        out[0] = arr
    elif arr.dtype.kind == "b" or arr.dtype == np.float16:
        out[...] = np.asarray(comm.allgather(np.ascontiguousarray(arr)))
    else:
        comm.Allgather(np.ascontiguousarray(arr), out)
    return out


def reduce_scatter_array(out_arr, stacked, name, op_name):
    """out_arr <- reduction over ranks of stacked[rank] (stacked: this rank's inputs, one per
    rank, on the first axis)."""
    comm = STATE.comm
    if STATE.size == 1:
        out_arr[...] = stacked[0]
    else:
        recv = np.empty(out_arr.shape, stacked.dtype)
        comm.Reduce_scatter_block(np.ascontiguousarray(stacked), recv, op=mpi_op(name))
        out_arr[...] = recv
    if name == "avg":
        if out_arr.dtype.kind in "fc":
            out_arr /= STATE.size
        else:
            out_arr //= STATE.size
