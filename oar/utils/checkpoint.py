"""Activation checkpointing: run a segment of the forward without keeping what its
backward needs, and recompute it at backward (PyTorch's torch.utils.checkpoint, the
non-reentrant variant, built on the saved-tensor hooks of autograd/graph.py).

Paddle 3.3 has no `paddle.utils.checkpoint`; its spelling is
`paddle.distributed.fleet.utils.recompute`, and oar.distributed does not exist yet, so the
core's checkpoint lives here (oar.utils.checkpoint) with `recompute` as an alias, and the
PyTorch door's torch.utils.checkpoint adds PyTorch's use_reentrant rules on top.
"""
from __future__ import annotations

import contextlib
import sys
import weakref

from ..autograd import grad_mode, saved as _saved
from ..autograd.errors import SavedTensorModifiedError
from ..autograd.graph import saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "recompute", "CheckpointError",
           "noop_context_fn"]

# Note [Checkpoint]
# checkpoint(fn, *args) runs fn under saved-tensor hooks (Note [Saved tensor hooks]) whose
# pack_hook keeps a _Holder, not the tensor: the segment's graph is recorded, but none of
# its activations stay alive, only fn's inputs (saved, version-checked, like any saved
# input) and its outputs. The first unpack of a holder at backward reruns fn once on the
# same inputs, with grad enabled and the random state of the forward restored (so dropout
# draws the same mask), under hooks that record, in order, each tensor the rerun saves:
# the k-th tensor saved by the rerun is the k-th saved by the forward. The rerun stops as
# soon as the last of them is saved (early stop: nothing after it is computed), each
# holder's tensor is handed out once and dropped (the node keeps it while it runs), and a
# holder with no tensor left (a second backward with retain_graph=True) starts a new rerun.
# As in PyTorch, the rerun runs fn again in full: a BatchNorm inside updates its running
# statistics in the forward and again in the rerun (twice per step), and a tensor the
# rerun saves and then changes in place is caught at unpack by its version, like any saved
# tensor. "default" determinism_check compares each rerun tensor's shape and dtype with the
# forward's. use_reentrant is accepted and means the same implementation (the PyTorch door
# adds PyTorch's rules for it).


class CheckpointError(RuntimeError):
    """The recomputation at backward did not save what the forward saved."""


class _Holder:
    __slots__ = ("__weakref__",)


class _Stop(Exception):
    """Raised inside the rerun once every tensor it must give back is saved."""


class _Node:
    name = "CheckpointBackward"


def noop_context_fn():
    """The default context_fn: no context around the forward nor the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def _metadata(x):
    return {"shape": tuple(x._data.shape), "dtype": x._data.dtype}


_DETERMINISM = {"default": _metadata, "none": None}


class _Frame:
    """One checkpointed call: its inputs, the forward's holders, and the rerun's tensors."""

    def __init__(self, recompute_fn, metadata_fn):
        self.recompute_fn = recompute_fn
        self.metadata_fn = metadata_fn
        self.saved_args = []
        self.weak_holders = []
        self.x_metadatas = []
        self.recomputed = weakref.WeakKeyDictionary()   # holder -> (tensor, version)
        self.counter = 0
        self.forward_completed = False

    def pack(self, x):
        holder = _Holder()
        self.weak_holders.append(weakref.ref(holder))
        if self.metadata_fn is not None:
            self.x_metadatas.append(self.metadata_fn(x))
        return holder

    def unpack(self, holder):
        entry = self.recomputed.pop(holder, None)
        if entry is None:
            self.recompute()
            entry = self.recomputed.pop(holder, None)
            if entry is None:
                raise CheckpointError("checkpoint: the recomputation did not produce a tensor "
                                      "the backward needs (was the checkpointed function "
                                      "changed between forward and backward?)")
        t, version = entry
        if t._storage.version != version:
            raise SavedTensorModifiedError(
                "one of the variables needed for gradient computation has been modified by "
                f"an inplace operation: a [{t._data.dtype} tensor of shape "
                f"{list(t._data.shape)}] saved inside a checkpointed function is at version "
                f"{t._storage.version}; expected version {version} instead."
                f"{_saved.culprit(t._storage, version)} Fix: do not modify it in place "
                "inside the checkpointed function after the op that saves it.")
        return t

    def recompute(self):
        args = [a.unpack(_Node) if isinstance(a, _saved.SavedTensor) else a
                for a in self.saved_args]
        self.recomputed.clear()
        self.counter = 0
        try:
            with saved_tensors_hooks(self.pack_rerun, _identity), grad_mode.enable_grad():
                self.recompute_fn(*args)
        except _Stop:
            pass
        self.check()

    def pack_rerun(self, x):
        if x.requires_grad:
            x = x.detach()
        k = self.counter
        self.counter = k + 1
        n = len(self.weak_holders)
        if k >= n:
            raise CheckpointError("checkpoint: trying to save more tensors during "
                                  "recomputation than during the original forward pass. "
                                  "Fix: make the checkpointed function run the same ops each "
                                  "time it is called.")
        holder = self.weak_holders[k]()
        if holder is not None:
            self.recomputed[holder] = (x, x._storage.version)
        if k + 1 == n:
            raise _Stop
        return x

    def check(self):
        if self.counter != len(self.weak_holders):
            raise CheckpointError(
                "checkpoint: A different number of tensors was saved during the original "
                "forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.counter}.")
        if self.metadata_fn is None:
            return
        bad = []
        for k, ref in enumerate(self.weak_holders):
            holder = ref()
            if holder is None or holder not in self.recomputed:
                continue
            meta = self.metadata_fn(self.recomputed[holder][0])
            if meta != self.x_metadatas[k]:
                bad.append(f"tensor at position {k}:\nsaved metadata: {self.x_metadatas[k]}\n"
                           f"recomputed metadata: {meta}\n")
        if bad:
            raise CheckpointError("checkpoint: Recomputed values for the following tensors "
                                  "have different metadata than during the forward pass.\n"
                                  + "".join(bad))


def _identity(x):
    return x


def _rng_states():
    """The random states a function may draw from: oar's generator (its object and state)
    and, when the PyTorch door is loaded, its default generator's."""
    from ..ops import random as _random
    gen = _random._GEN[0]
    states = [("core", gen, gen.bit_generator.state)]
    rt = sys.modules.get("oar.torch._runtime")
    if rt is not None:
        states.append(("torch", rt.default_generator, rt.default_generator.get_state()))
    # every device's stream too (Note [Random streams per place]): a dropout on a GPU
    # draws there, and its recomputation must draw the forward's mask
    states.append(("devices", {p: st.get_state() for p, st in _random._STREAMS.items()},
                   _random._DEVICE_SEED[0]))
    return states


def _set_rng_states(states):
    from ..ops import random as _random
    for kind, gen, state in states:
        if kind == "core":
            _random._GEN[0] = gen
            gen.bit_generator.state = state
        elif kind == "devices":
            _random._DEVICE_SEED[0] = state
            for p, st in _random._STREAMS.items():
                if p in gen:
                    st.set_state(gen[p])
                else:                  # made since: fresh at the seed, as it began
                    st.manual_seed(state)
        else:
            gen.set_state(state)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), keeping none of its activations for backward: they are
    recomputed at backward, once, with the forward's random state (Note [Checkpoint]).
    Gradients equal those of calling function directly. context_fn returns two context
    managers, for the forward and for the recomputation."""
    if determinism_check not in _DETERMINISM:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM)}, but got "
                         f"{determinism_check}")
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if not callable(function):
        raise TypeError(f"checkpoint: function must be callable, got {type(function).__name__}")
    forward_ctx, recompute_ctx = context_fn()
    if not grad_mode.is_grad_enabled():
        with forward_ctx:
            return function(*args, **kwargs)
    fwd_rng = _rng_states() if preserve_rng_state else None

    def recompute_fn(*inputs):
        if fwd_rng is None:
            with recompute_ctx:
                function(*inputs, **kwargs)
            return
        now = _rng_states()
        _set_rng_states(fwd_rng)
        try:
            with recompute_ctx:
                function(*inputs, **kwargs)
        finally:
            _set_rng_states(now)

    frame = _Frame(recompute_fn, _DETERMINISM[determinism_check])
    frame.saved_args = [_saved.unhooked(a) if isinstance(a, Tensor) else a for a in args]
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_ctx:
        out = function(*args, **kwargs)
    frame.forward_completed = True
    return out


recompute = checkpoint


def _segment(functions, start, end):
    def forward(x):
        for j in range(start, end + 1):
            x = functions[j](x)
        return x
    return forward


def checkpoint_sequential(functions, segments, input, use_reentrant=None,
                          preserve_rng_state=True):
    """Runs the layers `functions` (a Sequential or a list) in `segments` chunks, each
    checkpointed except the last (PyTorch's split: len // segments layers per chunk, the
    last chunk takes the rest)."""
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    else:
        functions = list(functions)
    segments = int(segments)
    if segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be at least 1, got {segments}")
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(_segment(functions, start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve_rng_state)
    return _segment(functions, end + 1, len(functions) - 1)(input)
