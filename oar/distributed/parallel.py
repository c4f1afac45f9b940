"""Data parallelism shared by both doors: paddle.DataParallel here, PyTorch's
DistributedDataParallel in oar/torch/nn/parallel (one implementation: `DataParallelCore`).

Construction checks that every rank holds the same parameters (Note [Gradient buckets]),
broadcasts parameters and buffers from rank 0, and builds the reducer; each forward
prepares the reducer (and, in the torch door, broadcasts buffers from rank 0 as PyTorch's
broadcast_buffers=True does); backward all-reduces the gradients bucket by bucket while it
runs (Note [Overlapped all-reduce]).
"""
from __future__ import annotations

from contextlib import contextmanager

from ..autograd import grad_mode
from ..nn.layers import Layer
from . import _comm
from ._reducer import Reducer, broadcast_from_rank0, check_same_model

MB = 1024 * 1024


class DataParallelCore:
    """The mixin both wrappers share: `_dp_setup` at construction, `_dp_forward` per call,
    `no_sync()`."""

    def _dp_setup(self, inner, op_name, bucket_bytes, first_bucket_bytes,
                  find_unused_parameters, broadcast_buffers, error=RuntimeError):
        if not isinstance(inner, Layer):
            raise TypeError(f"{op_name}: expected a Layer / Module to wrap, got "
                            f"{type(inner).__name__}")
        for what, v in (("bucket size", bucket_bytes), ("first bucket size",
                                                        first_bucket_bytes)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
                raise ValueError(f"{op_name}: the {what} must be a number > 0 (MiB), got {v!r}")
        d = self.__dict__
        d["_dp_op"] = op_name
        d["_dp_sync"] = True
        d["_dp_broadcast_buffers"] = bool(broadcast_buffers)
        d["_dp_find_unused"] = bool(find_unused_parameters)
        d["_reducer"] = None
        if not _comm.is_initialized():
            _comm.require(op_name, error)
        named = list(inner.named_parameters())
        check_same_model(named, op_name)
        with grad_mode.no_grad():
            broadcast_from_rank0([p for _, p in named] + list(inner.buffers()), op_name)
        trainable = [(n, p) for n, p in named if p._requires_grad]
        d["_reducer"] = Reducer(trainable, op_name, int(bucket_bytes), int(first_bucket_bytes),
                                find_unused_parameters)

    def _dp_forward(self, inner, args, kwargs):
        r = self._reducer
        if r is None:
            return inner(*args, **kwargs)
        grad = grad_mode.is_grad_enabled()
        sync = self._dp_sync and grad
        if grad:   # a forward under no_grad (evaluation) leaves a pending backward alone
            r.prepare_forward(sync)
        if self._dp_broadcast_buffers and _comm.STATE.size > 1:
            with grad_mode.no_grad():
                broadcast_from_rank0(list(inner.buffers()), self._dp_op)
        out = inner(*args, **kwargs)
        if sync and self._dp_find_unused:
            r.scan_unused(_tensors_in(out))
        return out

    @contextmanager
    def no_sync(self):
        """Inside this context backward only accumulates the gradients (in their buckets);
        the first backward after it all-reduces the sum (gradient accumulation)."""
        old = self._dp_sync
        self.__dict__["_dp_sync"] = False
        try:
            yield
        finally:
            self.__dict__["_dp_sync"] = old

    def communication_seconds(self):
        """Seconds the reducer spent in MPI calls (Iallreduce, Testall, Waitall) since it was
        made: the communication share of the step time (bench/bench_distributed.py)."""
        return 0.0 if self._reducer is None else self._reducer.comm_seconds


def _tensors_in(obj):
    from ..tensor import Tensor
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors_in(o)]
    return []


class DataParallel(Layer, DataParallelCore):
    """paddle.DataParallel: runs `layers` in every process of the group with the same
    parameters (broadcast from rank 0); backward averages the gradients over the processes
    in flat buckets while it runs (Note [Overlapped all-reduce]). comm_buffer_size and
    last_comm_buffer_size are the bucket sizes in MiB (the last parameters' bucket, filled
    first by backward, is the small one). Without an initialised parallel environment it
    only wraps the layer, as Paddle's does in a single process. state_dict() is the wrapped
    layer's (same keys)."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        Layer.__init__(self)
        _comm.check_group(group, "DataParallel", None)
        self._layers = layers
        if not _comm.is_initialized():
            if not isinstance(layers, Layer):
                raise TypeError(f"DataParallel: expected a Layer to wrap, got "
                                f"{type(layers).__name__}")
            d = self.__dict__
            d["_reducer"], d["_dp_sync"], d["_dp_op"] = None, True, "DataParallel"
            d["_dp_broadcast_buffers"] = d["_dp_find_unused"] = False
            return
        self._dp_setup(layers, "DataParallel", comm_buffer_size * MB,
                       last_comm_buffer_size * MB, find_unused_parameters, False)

    def forward(self, *inputs, **kwargs):
        """The wrapped layer's forward, with the gradient reduction prepared."""
        return self._dp_forward(self._layers, inputs, kwargs)

    def scale_loss(self, loss):
        """Paddle's (dygraph) scale_loss: the loss unchanged (the average is taken on the
        gradients)."""
        return loss

    def apply_collective_grads(self):
        """Paddle's deprecated explicit reduction: done during backward already; no-op."""

    def state_dict(self, *args, **kwargs):
        """The wrapped layer's state dict (Paddle's keys: no wrapper prefix)."""
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, *args, **kwargs):
        """Loads into the wrapped layer (keys without a wrapper prefix)."""
        return self._layers.set_state_dict(*args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict
