"""paddle.distributed: data parallelism on MPI (mpi4py), the Paddle door.

    import oar as paddle
    import oar.distributed as dist
    dist.init_parallel_env()                  # under `mpiexec -n 2 python train.py`
    model = paddle.DataParallel(model)        # parameters broadcast from rank 0
    ... loss.backward()                       # gradients averaged over the ranks, in place

One implementation for both doors (oar.torch.distributed is PyTorch's spelling):
Note [MPI process group] and Note [Collectives are in-place ops] (_comm.py), Note [Gradient
buckets] and Note [Overlapped all-reduce] (_reducer.py). mpi4py is imported only when the
parallel environment is initialised (pip install 'oar[mpi]').
"""
from __future__ import annotations

import os

from . import _comm
from .parallel import DataParallel  # noqa: F401  (paddle.distributed.DataParallel)

__all__ = ["init_parallel_env", "is_initialized", "is_available", "get_rank",
           "get_world_size", "all_reduce", "broadcast", "all_gather", "reduce_scatter",
           "barrier", "ReduceOp", "ParallelEnv", "DataParallel", "destroy_process_group",
           "get_backend"]


class ReduceOp:
    """Paddle's reduction kinds (plain ints, Paddle's values)."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_NAMES = {0: "sum", 1: "max", 2: "min", 3: "prod", 4: "avg"}


def _op_name(op, fn):
    if isinstance(op, bool) or not isinstance(op, int) or op not in _NAMES:
        raise ValueError(f"{fn}: op must be one of ReduceOp.SUM, MAX, MIN, PROD, AVG, got "
                         f"{op!r}")
    return _NAMES[op]


class _Task:
    """What a collective returns (Paddle's task): already complete in this build."""

    def wait(self):
        """Waits for the collective (it has finished already); returns True."""
        return True

    def is_completed(self):
        """Whether the collective has finished: always True here."""
        return True


_DONE = _Task()


def is_available():
    """Whether data parallelism can run: mpi4py is installed (pip install 'oar[mpi]')."""
    return _comm.mpi_available()


def is_initialized():
    """Whether init_parallel_env() has run."""
    return _comm.is_initialized()


def init_parallel_env():
    """Initialises the parallel environment over MPI's processes (launch with
    `mpiexec -n N python script.py`, or `python -m oar train --nproc N`); a second call does
    nothing. Without mpiexec the program is a group of one process."""
    if not _comm.is_initialized():
        _comm.init("init_parallel_env")
    return None


def destroy_process_group(group=None):
    """Forgets the parallel environment (MPI itself stays up until the process exits)."""
    _comm.destroy()


def get_backend(group=None):
    """The communication backend: 'MPI'."""
    _comm.require("get_backend", RuntimeError)
    return "MPI"


def get_rank(group=None):
    """This process's rank (0 when the parallel environment is not initialised, as Paddle
    reads it from PADDLE_TRAINER_ID then)."""
    if _comm.is_initialized():
        return _comm.STATE.rank
    return int(os.environ.get("PADDLE_TRAINER_ID", 0))


def get_world_size(group=None):
    """The number of processes (1 when the parallel environment is not initialised)."""
    if _comm.is_initialized():
        return _comm.STATE.size
    return int(os.environ.get("PADDLE_TRAINERS_NUM", 1))


def _ready(fn, group):
    _comm.check_group(group, fn, None)
    return _comm.require(fn)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """tensor <- its reduction over every process, in place (one version bump; Note
    [Collectives are in-place ops])."""
    name = _op_name(op, "all_reduce")
    _ready("all_reduce", group)
    _comm.all_reduce(tensor, name, "all_reduce")
    return _DONE


def broadcast(tensor, src, group=None, sync_op=True):
    """tensor <- rank src's tensor, in place on every process."""
    _ready("broadcast", group)
    _comm.broadcast(tensor, src, "broadcast")
    return _DONE


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Fills tensor_list (an empty list, or one whose entries are replaced) with every
    process's tensor, in rank order, as Paddle does."""
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list must be a list, got "
                        f"{type(tensor_list).__name__}")
    _comm.check_tensor(tensor, "all_gather")
    _ready("all_gather", group)
    stacked = _comm.gather_arrays(tensor._data, "all_gather")
    cls = tensor._result_class
    from ..tensor import wrap_as
    tensor_list[:] = [wrap_as(cls, stacked[r].copy()) for r in range(stacked.shape[0])]
    return _DONE


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """tensor <- the reduction over processes of their tensor_list[rank], in place."""
    name = _op_name(op, "reduce_scatter")
    _ready("reduce_scatter", group)
    _reduce_scatter(tensor, tensor_list, name, "reduce_scatter")
    return _DONE


def _reduce_scatter(out, inputs, name, fn):
    import numpy as np
    from ..autograd.inplace import bump
    _comm.check_write(out, fn, "output")
    size = _comm.STATE.size
    if not isinstance(inputs, (list, tuple)) or len(inputs) != size:
        raise ValueError(f"{fn}: the input list must hold one tensor per process ({size}), got "
                         f"{len(inputs) if isinstance(inputs, (list, tuple)) else inputs!r}")
    for t in inputs:
        _comm.check_tensor(t, fn, "every input")
        if t._data.shape != out._data.shape or t._data.dtype != out._data.dtype:
            raise ValueError(f"{fn}: every input must have the output's shape "
                             f"{list(out._data.shape)} and dtype {out.dtype.name}, got "
                             f"{list(t._data.shape)} ({t.dtype.name})")
    stacked = np.stack([t._data for t in inputs])
    _comm.reduce_scatter_array(out._data, stacked, name, fn)
    bump(out, fn)


def barrier(group=None):
    """Waits until every process has reached this call."""
    _ready("barrier", group).Barrier()


class ParallelEnv:
    """Paddle's view of the parallel environment: rank / local_rank, world_size / nranks,
    dev_id / device_id (0: CPU), the endpoints (empty under MPI)."""

    def __init__(self):
        self._rank = get_rank()
        self._world_size = get_world_size()
        self._device_type = ""
        self._pg_timeout = 1800000
        self._trainer_endpoints = [""]
        self._current_endpoint = ""
        self._nrings = 1

    @property
    def rank(self):
        """This process's rank."""
        return self._rank

    @property
    def world_size(self):
        """The number of processes."""
        return self._world_size

    @property
    def local_rank(self):
        """This process's rank (Paddle's alias)."""
        return self._rank

    @property
    def nranks(self):
        """The number of processes (Paddle's alias)."""
        return self._world_size

    @property
    def dev_id(self):
        """The device id: 0 (CPU)."""
        return 0

    device_id = dev_id

    @property
    def device_type(self):
        """The custom device type: '' (none)."""
        return self._device_type

    @property
    def trainer_endpoints(self):
        """The trainers' endpoints: none under MPI."""
        return self._trainer_endpoints

    @property
    def current_endpoint(self):
        """This trainer's endpoint: none under MPI."""
        return self._current_endpoint

    @property
    def nrings(self):
        """Communication rings: 1."""
        return self._nrings

    @property
    def pg_timeout(self):
        """The process group timeout in ms (Paddle's default)."""
        return self._pg_timeout
