"""autograd.graph: the graph's node class and the escape hatches around saved tensors —
saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks and
allow_mutation_on_saved_tensors (PyTorch 2.13's API and meaning; Paddle 3.3 has
saved_tensors_hooks, as paddle.autograd.saved_tensors_hooks).

Note [Saved tensor hooks] (autograd/saved.py) says what a hook sees and how versions are
checked; Note [Mutation of saved tensors allowed] how a mutation is made legal.
"""
from __future__ import annotations

import contextlib
import weakref

import numpy as np

from . import saved as _saved
from .node import Node  # noqa: F401

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors", "increment_version"]


def increment_version(tensor):
    """Marks `tensor` (or each tensor of an iterable) as modified in place without an op:
    its storage's version goes up by one (Note [Version bump]), so a saved copy of it is
    refused at backward, as PyTorch's torch.autograd.graph.increment_version."""
    from ..tensor import Tensor
    from .inplace import bump
    for t in ((tensor,) if isinstance(tensor, Tensor) else tensor):
        bump(t, "increment_version")


class saved_tensors_hooks:   # noqa: N801  (PyTorch's and Paddle's name)
    """Context manager: tensors saved for backward inside it are stored as
    pack_hook(tensor), and each use at backward receives unpack_hook(packed), which must
    return a tensor equal to the one packed (Note [Saved tensor hooks]). Nestable: only the
    innermost pair applies. The pairs are per thread."""

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks(pack_hook, unpack_hook): both hooks must be "
                            f"callable, got {type(pack_hook).__name__} and "
                            f"{type(unpack_hook).__name__}")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _saved.push_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _saved.pop_hooks()


class save_on_cpu(saved_tensors_hooks):   # noqa: N801
    """Saved tensors are stored in CPU memory and moved back to their device at backward.
    oar's tensors live in CPU memory already, so, as PyTorch does for a CPU tensor, no copy
    is made: the tensor itself is kept (`tensor.cpu()` is the tensor). pin_memory and
    device_type are accepted for PyTorch's signature."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return ("cpu", tensor)   # PyTorch: (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            return packed[1]

        super().__init__(pack_to_cpu, unpack_from_cpu)
        self.pin_memory = pin_memory
        self.device_type = device_type


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside it, pushing saved-tensor hooks raises RuntimeError(error_message); entering it
    while hooks are active raises the same (PyTorch's behaviour)."""
    state = _saved._HOOKS
    prev = state.disabled
    try:
        if state.stack:
            raise RuntimeError(error_message)
        state.disabled = str(error_message)
        yield
    finally:
        state.disabled = prev


# --------------------------------------------------------------------------- mutation
_OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' context in "
            "which the graph was originally recorded. Fix: run the backward inside the same "
            "`with allow_mutation_on_saved_tensors():` block as the forward.")


class _Handle:
    """What the graph keeps for one saved tensor inside allow_mutation_on_saved_tensors."""
    __slots__ = ("__weakref__",)


def _tid(t):
    """One saved tensor at one version: its storage, window and the storage's version."""
    d = t._data
    return (id(t._storage), d.__array_interface__["data"][0], d.shape, d.strides, d.dtype,
            t._storage.version)


class _AllowMutationOnSavedContext:
    """The state of one allow_mutation_on_saved_tensors() block (PyTorch's class name):
    the saved tensors by handle, their copies, and the handles by storage."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()      # handle -> copy made before a write
        self.original = weakref.WeakKeyDictionary()    # handle -> the saved tensor
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = weakref.WeakKeyDictionary()  # storage -> {tid}
        self.enabled = True

    def clear(self):
        """Forget everything (on leaving the block): a graph recorded inside can no longer
        be backwarded."""
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()
        self.enabled = False

    def pack(self, tensor):
        tid = _tid(tensor)
        self.sid_to_tid.setdefault(tensor._storage, set()).add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:   # the same tensor at the same version saved twice: one handle
            handle = _Handle()
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = tensor
        return handle

    def unpack(self, handle):
        if not self.enabled:
            raise AssertionError(_OUTSIDE)
        t = self.cloned.get(handle)
        if t is None:
            t = self.original.get(handle)
            if t is None:
                raise AssertionError(_OUTSIDE)
        return t

    def before_write(self, t):
        """Note [Mutation of saved tensors allowed]: copy every tensor saved on t's storage
        at its current version, once."""
        st = t._storage
        tids = self.sid_to_tid.get(st)
        if not tids:
            return
        from ..tensor import Tensor
        version = st.version
        for tid in tuple(tids):
            if tid[-1] != version:
                continue
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:
                continue   # freed by a backward already, or copied already
            orig = self.original.pop(handle)
            self.cloned[handle] = Tensor._wrap(np.array(orig._data, copy=True))


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Inside it, an in-place change of a tensor saved for backward first copies the saved
    value, so the change is allowed and the backward stays exact (Note [Mutation of saved
    tensors allowed]); the forward and the backward must both run inside it. Not nestable.
    Yields the context's state object."""
    from ..tensor import FAST_CLASSES
    if _saved.MUTATION_CTX is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()
    fast = set(FAST_CLASSES)
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        _saved.MUTATION_CTX = ctx
        # the spellings' inline fast paths write without calling before_write: off for now
        FAST_CLASSES.clear()
        try:
            yield ctx
        finally:
            FAST_CLASSES.update(fast)
            _saved.MUTATION_CTX = None
            ctx.clear()
