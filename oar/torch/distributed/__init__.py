"""torch.distributed over MPI (mpi4py), PyTorch 2.13's spellings.

    import oar.torch as torch
    import oar.torch.distributed as dist
    dist.init_process_group("mpi")                   # under `mpiexec -n 2 python train.py`
    model = torch.nn.parallel.DistributedDataParallel(model)

The implementation is the core's, shared with the Paddle door (oar.distributed): Note [MPI
process group], Note [Collectives are in-place ops], Note [Gradient buckets], Note
[Overlapped all-reduce]. Backends: "mpi" (and None); "gloo" is accepted with a warning and
runs over MPI too; "nccl" is refused (this build is CPU-only).
"""
from __future__ import annotations

import enum
import warnings

from ...distributed import _comm
from ...distributed import _reduce_scatter

__all__ = ["init_process_group", "destroy_process_group", "is_initialized", "is_available",
           "is_mpi_available", "is_gloo_available", "is_nccl_available", "get_rank",
           "get_world_size", "get_backend", "barrier", "all_reduce", "broadcast",
           "all_gather", "all_gather_object", "reduce_scatter", "ReduceOp", "group",
           "GroupMember", "Backend"]


class RedOpType(enum.IntEnum):
    """PyTorch's reduction kinds (its values)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


class ReduceOp:
    """torch.distributed.ReduceOp: SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR."""
    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR


_NAMES = {0: "sum", 1: "avg", 2: "prod", 3: "min", 4: "max", 5: "band", 6: "bor", 7: "bxor"}


class Backend(str):
    """Backend names: Backend.MPI, Backend.GLOO, Backend.NCCL."""
    MPI = "mpi"
    GLOO = "gloo"
    NCCL = "nccl"
    UNDEFINED = "undefined"


class _WorldGroup:
    """The default (world) process group."""

    def size(self):
        """The number of processes."""
        return get_world_size()

    def rank(self):
        """This process's rank."""
        return get_rank()

    def __repr__(self):
        return "<oar.torch.distributed world group>"


class group:   # noqa: N801  (PyTorch's name)
    """torch.distributed.group: group.WORLD is the default group."""
    WORLD = _WorldGroup()


class GroupMember:
    """torch.distributed.GroupMember: WORLD and NON_GROUP_MEMBER."""
    WORLD = group.WORLD
    NON_GROUP_MEMBER = -100


class _Work:
    """What an async_op=True collective returns: already complete in this build."""

    def wait(self, timeout=None):
        """Waits for the collective (it has finished already); returns True."""
        return True

    def is_completed(self):
        """Whether the collective has finished: always True here."""
        return True

    def is_success(self):
        """Whether the collective succeeded: True."""
        return True


def _done(async_op):
    return _Work() if async_op else None


_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


def _require(fn, grp=None):
    _comm.check_group(grp, fn, group.WORLD)
    if not _comm.is_initialized():
        raise ValueError(_NOT_INIT)
    return _comm.STATE.comm


def _op_name(op, fn):
    if isinstance(op, bool) or not isinstance(op, int) or int(op) not in _NAMES:
        raise ValueError(f"{fn}: op must be a torch.distributed.ReduceOp, got {op!r}")
    return _NAMES[int(op)]


def is_available():
    """Whether the distributed package can run: mpi4py is installed
    (pip install 'oar[mpi]')."""
    return _comm.mpi_available()


def is_mpi_available():
    """Whether the MPI backend is available (mpi4py installed)."""
    return _comm.mpi_available()


def is_gloo_available():
    """False: gloo is not built; backend='gloo' runs over MPI (with a warning)."""
    return False


def is_nccl_available():
    """False: this build is CPU-only."""
    return False


def is_initialized():
    """Whether the default process group is initialised."""
    return _comm.is_initialized()


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Initialises the default process group over MPI's processes (launch with
    `mpiexec -n N python script.py`). backend: None or 'mpi'; 'gloo' runs over MPI with a
    warning; 'nccl' is refused (CPU only). world_size and rank, when given, must be MPI's.
    init_method and store are not needed: mpiexec tells each process its rank."""
    if _comm.is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    name = "mpi" if backend is None else str(backend).lower()
    if name in ("gloo", "cpu:gloo"):
        warnings.warn("init_process_group: the gloo backend is not built into oar; the group "
                      "runs over MPI (same collectives). Pass backend='mpi' to silence this",
                      UserWarning, stacklevel=2)
    elif "nccl" in name:
        raise RuntimeError(f"init_process_group: backend {backend!r} needs CUDA GPUs; oar runs "
                           "on the CPU only. Fix: backend='mpi' (launch with `mpiexec -n N "
                           "python script.py`)")
    elif name != "mpi":
        raise ValueError(f"init_process_group: invalid backend {backend!r}; oar supports 'mpi' "
                         "(and 'gloo', run over MPI)")
    _comm.init("init_process_group", "mpi")
    for what, want, have in (("world_size", world_size, _comm.STATE.size),
                             ("rank", rank, _comm.STATE.rank)):
        if want is not None and want != -1 and want != have:
            _comm.destroy()
            raise ValueError(f"init_process_group: {what}={want} but MPI started this process "
                             f"with {what} {have}. Fix: leave {what} out (mpiexec -n N decides "
                             "it)")


def destroy_process_group(group=None):
    """Destroys the default process group (MPI stays up until the process exits; a new
    init_process_group may follow)."""
    if not _comm.is_initialized():
        raise ValueError(_NOT_INIT)
    _comm.destroy()


def get_backend(group=None):
    """The backend of the default group: 'mpi'."""
    _require("get_backend", group)
    return Backend.MPI


def get_rank(group=None):
    """This process's rank in the default group."""
    _require("get_rank", group)
    return _comm.STATE.rank


def get_world_size(group=None):
    """The number of processes in the default group."""
    _require("get_world_size", group)
    return _comm.STATE.size


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Waits until every process has reached this call."""
    _require("barrier", group).Barrier()
    return _done(async_op)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """tensor <- its reduction over every process, in place (one version bump; the Inplace
    rules apply: Note [Collectives are in-place ops])."""
    name = _op_name(op, "all_reduce")
    _require("all_reduce", group)
    _comm.all_reduce(tensor, name, "all_reduce")
    return _done(async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """tensor <- rank src's tensor, in place on every process."""
    _require("broadcast", group)
    src = group_src if src is None else src
    if src is None:
        raise ValueError("broadcast: give src (the rank whose tensor is sent)")
    _comm.broadcast(tensor, src, "broadcast")
    return _done(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] <- process r's tensor, written in place into the given tensors (one
    per process, each of tensor's shape and dtype)."""
    from ...autograd.inplace import bump
    _require("all_gather", group)
    _comm.check_tensor(tensor, "all_gather")
    size = _comm.STATE.size
    if not isinstance(tensor_list, (list, tuple)) or len(tensor_list) != size:
        got = len(tensor_list) if isinstance(tensor_list, (list, tuple)) else repr(tensor_list)
        raise ValueError(f"all_gather: tensor_list must hold world_size ({size}) tensors, got "
                         f"{got}")
    for t in tensor_list:
        _comm.check_write(t, "all_gather", "every entry of tensor_list")
        if t._data.shape != tensor._data.shape or t._data.dtype != tensor._data.dtype:
            raise ValueError(f"all_gather: every output must have the input's shape "
                             f"{list(tensor._data.shape)} and dtype {tensor.dtype.name}, got "
                             f"{list(t._data.shape)} ({t.dtype.name})")
    stacked = _comm.gather_arrays(tensor._data, "all_gather")
    for r, t in enumerate(tensor_list):
        t._data[...] = stacked[r]
        bump(t, "all_gather")
    return _done(async_op)


def all_gather_object(object_list, obj, group=None):
    """object_list[r] <- process r's obj (any picklable object)."""
    comm = _require("all_gather_object", group)
    size = _comm.STATE.size
    if not isinstance(object_list, list) or len(object_list) != size:
        raise ValueError(f"all_gather_object: object_list must be a list of world_size ({size}) "
                         "entries")
    object_list[:] = comm.allgather(obj)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """output <- the reduction over processes of their input_list[rank], in place."""
    name = _op_name(op, "reduce_scatter")
    _require("reduce_scatter", group)
    _reduce_scatter(output, input_list, name, "reduce_scatter")
    return _done(async_op)
