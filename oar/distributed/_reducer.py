"""The gradient reducer behind DistributedDataParallel (torch) and DataParallel (paddle).
"""
from __future__ import annotations

import time
import weakref

import numpy as np

from ..autograd.node import AccumulateGrad
from ..storage import new_storage
from ..tensor import Tensor, wrap_as
from . import _comm

# Note [Gradient buckets]
# At construction the trainable parameters are split into buckets, in the reverse of their
# registration order (the order backward roughly produces their gradients), one dtype per
# bucket, each about `bucket_bytes` (the first one `first_bucket_bytes`, small, so that
# communication starts early). A bucket is one flat ndarray with its own Storage; each
# parameter's `.grad` is a tensor over its slice of it, sharing the bucket's version counter
# (the way Note [Flat Adam] keeps the optimizer's state). Backward accumulates into .grad as
# usual (tensor.py _accumulate_grad adds into the existing .grad), so the gradient lands in
# the bucket with no copy. If .grad was replaced (set to None by clear_grad(set_to_zero=False)
# or zero_grad(set_to_none=True), or assigned), the next forward points it back at its zeroed
# slice (or copies the assigned value in); the post-accumulate hook re-checks it.

# Note [Overlapped all-reduce]
# Each parameter has a post-accumulate hook (Note [Post-accumulate hooks]). When the last
# gradient of a bucket is in, the bucket is all-reduced in place, non-blocking
# (`Iallreduce(MPI.IN_PLACE, bucket, SUM)`), while backward goes on with the other layers.
# Buckets are started in bucket order on every rank (a ready bucket waits for the earlier
# ones), so every rank issues the same collectives in the same order. MPI makes progress
# inside MPI calls: every hook polls the requests in flight (`Testall`). When the last bucket
# has been started (the last gradient of the backward is in), the hook waits for all of them
# and divides each bucket by the world size: the gradient is the SUM over ranks, then the
# average (sum, then one division per bucket: with per-rank loss means over B/N samples this
# equals the gradient of the mean over all B samples up to float rounding). The reduction is
# complete when backward returns, before any optimizer step.
#
# A parameter that received no gradient in a backward (unused in the forward) keeps its bucket
# from completing. With find_unused_parameters=True the forward walks the graph from its
# outputs and marks the unreachable parameters ready at the first hook (their slice is
# reduced as it is: zero, or what no_sync accumulated). Without it the next forward raises,
# naming those parameters (PyTorch's behaviour). Inside no_sync() the hooks only keep the
# gradients in the buckets: they accumulate, and the first synchronised backward reduces the
# sum.


class _Bucket:
    __slots__ = ("array", "storage", "members", "pending", "request")

    def __init__(self, dtype, members, sizes):
        self.array = np.zeros(sum(sizes), dtype)
        self.storage = new_storage(self.array)
        self.members = members
        self.pending = len(members)
        self.request = None


class Reducer:
    """Flat gradient buckets, all-reduced during backward (Note [Gradient buckets], Note
    [Overlapped all-reduce])."""

    def __init__(self, named_params, op_name, bucket_bytes, first_bucket_bytes,
                 find_unused_parameters=False):
        self.op_name = op_name
        self.names = [n for n, _ in named_params]
        self.params = [p for _, p in named_params]
        self.find_unused = bool(find_unused_parameters)
        self.comm = _comm.STATE.comm
        self.size = _comm.STATE.size
        self.grads = [None] * len(self.params)     # the .grad tensor over each slice
        self.bucket_of = [0] * len(self.params)
        self.buckets = []
        self._build(bucket_bytes, first_bucket_bytes)
        self.armed = False        # this backward reduces (a forward ran with sync on)
        self.marked = [False] * len(self.params)
        self.n_marked = 0
        self.next_launch = 0
        self.unused = ()
        self.comm_seconds = 0.0   # time spent in MPI calls of the reducer
        for p in self.params:     # a model wrapped again: the newest wrapper owns the hooks
            ref = p.__dict__.get("_dp_reducer")
            old = ref() if ref is not None else None
            if old is not None and old is not self:
                old.remove()
            p.__dict__["_dp_reducer"] = weakref.ref(self)
        self.handles = [p.register_post_accumulate_grad_hook(self._hook(i))
                        for i, p in enumerate(self.params)]

    def _build(self, bucket_bytes, first_bucket_bytes):
        open_ = {}   # dtype -> (members, sizes, bytes)
        order = []
        cap = min(first_bucket_bytes, bucket_bytes)

        def close(dt):
            members, sizes, _ = open_.pop(dt)
            order.append(_Bucket(dt, members, sizes))

        for i in reversed(range(len(self.params))):
            p = self.params[i]
            dt = p._data.dtype
            members, sizes, nbytes = open_.setdefault(dt, ([], [], 0))
            members.append(i)
            sizes.append(p._data.size)
            nbytes += p._data.nbytes
            open_[dt] = (members, sizes, nbytes)
            if nbytes >= cap:
                close(dt)
                cap = bucket_bytes
        for dt in list(open_):
            close(dt)
        self.buckets = order
        for k, b in enumerate(order):
            off = 0
            for i in b.members:
                p = self.params[i]
                n = p._data.size
                g = wrap_as(p._result_class, b.array[off:off + n].reshape(p._data.shape),
                            b.storage)
                if p._result_class is Tensor:   # Note [Leaf gradients per door]
                    g._requires_grad = True
                self.grads[i] = g
                self.bucket_of[i] = k
                off += n

    # ------------------------------------------------------------------ per iteration
    def _attach(self, i):
        """Point params[i].grad at its slice (Note [Gradient buckets])."""
        p, g = self.params[i], self.grads[i]
        cur = p._grad
        if cur is g:
            return
        if cur is None:
            g._data[...] = 0
        else:
            g._data[...] = cur._data
        p._grad = g

    def prepare_forward(self, sync):
        """Called by the wrapper's forward: check the last reduction finished, re-attach the
        gradients to their buckets, and arm the hooks when this iteration synchronises."""
        if self.armed and self.n_marked:
            missing = [self.names[i] for i, m in enumerate(self.marked) if not m]
            self.armed = False
            reqs = [b.request for b in self.buckets if b.request is not None]
            if reqs:   # complete what was started (every rank started the same ones)
                _comm.STATE.MPI.Request.Waitall(reqs)
            for b in self.buckets:
                b.request = None
            raise RuntimeError(
                f"{self.op_name}: expected to have finished reduction in the prior iteration "
                "before starting a new one: these parameters received no gradient in the last "
                f"backward: {missing}. Their buckets were never all-reduced, so the gradients "
                "of the last step were not averaged across ranks. Fix: pass "
                "find_unused_parameters=True, or make sure every parameter takes part in "
                "computing the loss")
        for i in range(len(self.params)):
            self._attach(i)
        self.armed = bool(sync)
        self.marked = [False] * len(self.params)
        self.n_marked = 0
        self.next_launch = 0
        self.unused = ()
        for b in self.buckets:
            b.pending = len(b.members)

    def scan_unused(self, outputs):
        """find_unused_parameters: the parameters no output depends on, marked ready at the
        first hook of the backward."""
        reach = set()
        stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
        seen = set(stack)
        while stack:
            node = stack.pop()
            if node.__class__ is AccumulateGrad:
                reach.add(id(node.variable))
                continue
            for e in node.next_edges:
                if e is not None and e[0] not in seen:
                    seen.add(e[0])
                    stack.append(e[0])
        for t in outputs:
            if t.grad_fn is None and t.requires_grad:
                reach.add(id(t))
        self.unused = [i for i, p in enumerate(self.params) if id(p) not in reach]

    def _hook(self, i):
        def hook(p):
            self._attach_after(i)
            if not self.armed:
                return   # no_sync, or a backward not preceded by the wrapper's forward
            if self.unused:
                unused, self.unused = self.unused, ()
                for j in unused:
                    if not self.marked[j]:
                        self._mark(j)
            self._mark(i)
        hook.__name__ = f"ddp_reduce_{self.names[i]}"
        return hook

    def _attach_after(self, i):
        p, g = self.params[i], self.grads[i]
        if p._grad is not g:   # replaced since the forward: copy into the slice
            g._data[...] = p._grad._data
            p._grad = g

    def _mark(self, i):
        if self.marked[i]:
            self.armed = False
            raise RuntimeError(
                f"{self.op_name}: parameter {self.names[i]!r} received a gradient twice in one "
                "iteration (a second backward through the same forward, or the same output "
                "used twice). Fix: run one backward per forward, or accumulate with no_sync()")
        self.marked[i] = True
        self.n_marked += 1
        b = self.buckets[self.bucket_of[i]]
        b.pending -= 1
        if b.pending == 0:
            self._launch_ready()
        elif self.next_launch and self.size > 1:
            self._poll()

    def _poll(self):
        t0 = time.perf_counter()
        reqs = [b.request for b in self.buckets[:self.next_launch] if b.request is not None]
        if reqs:
            _comm.STATE.MPI.Request.Testall(reqs)
        self.comm_seconds += time.perf_counter() - t0

    def _launch_ready(self):
        buckets = self.buckets
        MPI = _comm.STATE.MPI
        t0 = time.perf_counter()
        while self.next_launch < len(buckets) and buckets[self.next_launch].pending == 0:
            b = buckets[self.next_launch]
            if self.size > 1:
                b.request = self.comm.Iallreduce(MPI.IN_PLACE, b.array, op=MPI.SUM)
            self.next_launch += 1
        if self.next_launch == len(buckets):
            self._finish()
        elif self.size > 1:
            reqs = [b.request for b in buckets[:self.next_launch] if b.request is not None]
            MPI.Request.Testall(reqs)
        self.comm_seconds += time.perf_counter() - t0

    def _finish(self):
        """Wait for every bucket, then average (sum over ranks / world size) and bump each
        bucket's version once (Note [Overlapped all-reduce])."""
        if self.size > 1:
            _comm.STATE.MPI.Request.Waitall([b.request for b in self.buckets])
            for b in self.buckets:
                b.request = None
                b.array /= self.size
                b.storage.version += 1
        self.armed = False

    def remove(self):
        """Unregister the hooks (the gradients stay where they are)."""
        for h in self.handles:
            h.remove()
        self.handles = []


def broadcast_from_rank0(tensors, op_name):
    """Every tensor's values from rank 0, in place (parameters, buffers), outside autograd;
    each one's version bumped once."""
    comm, size = _comm.STATE.comm, _comm.STATE.size
    if size == 1:
        return
    for t in tensors:
        buf = t._data if t._data.flags.c_contiguous else np.ascontiguousarray(t._data)
        comm.Bcast(buf, root=0)
        if buf is not t._data:
            t._data[...] = buf
        t._storage.version += 1


def check_same_model(named_params, op_name):
    """Note [Gradient buckets]: every rank must hold the same parameters (names, shapes,
    dtypes, in one order); an allgather of the list compares them, and every rank raises
    the same error, so none is left waiting."""
    mine = [(n, tuple(p._data.shape), p._data.dtype.str) for n, p in named_params]
    every = _comm.STATE.comm.allgather(mine)
    ref = every[0]
    for r, theirs in enumerate(every[1:], 1):
        if theirs == ref:
            continue
        if len(theirs) != len(ref):
            detail = f"rank 0 has {len(ref)} parameters, rank {r} has {len(theirs)}"
        else:
            k = next(k for k in range(len(ref)) if ref[k] != theirs[k])
            detail = (f"parameter {k}: rank 0 has {ref[k][0]!r} of shape {list(ref[k][1])} "
                      f"({np.dtype(ref[k][2]).name}), rank {r} has {theirs[k][0]!r} of shape "
                      f"{list(theirs[k][1])} ({np.dtype(theirs[k][2]).name})")
        raise RuntimeError(f"{op_name}: the model differs across ranks ({detail}). Every rank "
                           "must build the same model (same layers, shapes and dtypes, in the "
                           "same order)")
