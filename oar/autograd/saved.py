"""Saved tensors: the version check at backward, and where a mutation came from.

A backward formula that reads a tensor saved at forward time must see the value it saw
then. `SavedTensor` records its storage's version when saved and checks it when unpacked;
the error names the op that changed the tensor and the user's line that called it, which
`user_frame()` found when the storage logged the mutation (storage.py `log_mutation`,
called by the one version bump, autograd/inplace.py `bump`).
"""
from __future__ import annotations

import functools

import sys
import threading
import weakref

from .errors import SavedTensorModifiedError

# Note [Saved tensors are versioned]
# A SavedTensor records its storage's version (Note [Version counter]) when saved; unpack()
# compares it and, on mismatch, raises an error naming the tensor, the op that saved it,
# both versions and the first in-place op (with the user's file:line, Note [Mutation
# provenance]) that changed it.
# Outputs are saved as (array, storage) without a reference to the output Tensor, so no
# reference cycle tensor -> grad_fn -> saved -> tensor exists; unpack() rebuilds a Tensor
# whose grad_fn is the node itself (needed for create_graph).
# An input that had a grad_fn when saved and has none at unpack was detached in place
# (`detach_()`, or Paddle's `stop_gradient = True` on an intermediate): its history is gone,
# so unpack() refuses it, as PyTorch does (checked before the version, as PyTorch does).


@functools.lru_cache(maxsize=None)
def _tensor_class():
    from ..tensor import Tensor   # (saved.py is imported by tensor.py)
    return Tensor


class SavedTensor:
    """A tensor a backward formula reads, checked against in-place changes when unpacked
    (Note [Saved tensors are versioned])."""
    __slots__ = ("tensor", "array", "storage", "version", "is_output", "had_fn", "cache",
                 "cls")

    def __init__(self, tensor, is_output=False):
        storage = tensor._storage
        if storage.inference:   # Note [Inference tensors]: never saved, hooks or not
            from .grad_mode import INFERENCE_SAVED_ERROR
            raise RuntimeError(INFERENCE_SAVED_ERROR)
        if _HOOKED and _HOOKS.stack:   # Note [Saved tensor hooks]: one global test when none
            self._pack(tensor, is_output, _HOOKS.stack[-1])
            return
        storage.watched += 1   # its mutations are logged while saved (Note [Mutation provenance])
        self.storage = storage
        self.version = storage.version
        self.is_output = is_output
        if is_output:
            self.tensor = None
            self.array = tensor._data
            self.had_fn = False
            self.cls = tensor.__class__   # the door's class, for grad_fn._saved_result
        else:
            self.tensor = tensor
            self.array = None
            # a non-view with history: detach_() would lose it (Note [Saved tensors are
            # versioned]); views cannot be detached in place
            self.had_fn = tensor._grad_fn is not None and tensor._view is None

    def __del__(self):
        # Note [Mutation provenance]: one watcher fewer (a packed record holds no storage)
        st = getattr(self, "storage", None)
        if st is not None:
            st.watched -= 1

    def unpack(self, node):
        """The saved tensor for `node`'s backward; an error if it was modified in place or
        detached in place since it was saved."""
        if self.had_fn and self.tensor._grad_fn is None:
            raise SavedTensorModifiedError(
                "Trying to use a saved tensor that has been detached in-place, i.e. with "
                f".detach_() (a tensor saved by {node.name}). This is not supported, please "
                "use out-of-place `.detach()` instead.")
        storage = self.storage
        if storage is None:   # packed by a hook (Note [Saved tensor hooks])
            return self._unpack_hooked(node)
        if storage.version != self.version:
            raise SavedTensorModifiedError(self._message(node))
        if not self.is_output:
            return self.tensor
        t = _tensor_class()._wrap(self.array, storage)
        t._grad_fn = node
        return t

    def _message(self, node, arr=None, storage=None):
        if arr is None:
            arr = self.tensor._data if self.tensor is not None else self.array
        storage = storage or self.storage
        which = "output 0" if self.is_output else "an input"
        shape = "[" + ", ".join(str(s) for s in arr.shape) + "]"
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{arr.dtype} tensor of shape {shape}], "
            f"which is {which} of {node.name}, is at version {storage.version}; "
            f"expected version {self.version} instead.{culprit(storage, self.version)} "
            "Fix: do not modify it in place until backward has run; use the out-of-place op "
            "(e.g. `y = y + 1` instead of `y.add_(1)`) or modify a `.clone()`."
            + self._paddle_words(storage))

    def _paddle_words(self, storage):
        """Paddle's own words for the check, added for a Paddle-door tensor: Paddle's tests and
        programs match `received tensor_version:N != wrapper_version_snapshot:M`."""
        cls = type(self.tensor) if self.tensor is not None else getattr(self, "cls", None)
        if cls is None or cls.__module__.startswith("oar.torch"):
            return ""
        return (f" [Hint: Expected tensor_version == wrapper_version_snapshot, but received "
                f"tensor_version:{storage.version} != wrapper_version_snapshot:{self.version}.]")


    def _pack(self, tensor, is_output, hooks):
        """Note [Saved tensor hooks]: keep pack_hook(tensor) instead of the tensor."""
        pack, unpack = hooks
        storage = tensor._storage
        storage.watched += 1   # for good: a packed record keeps no storage to give it back
        self.storage = None
        self.version = storage.version
        self.is_output = is_output
        self.had_fn = False
        self.array = None
        self.cache = None
        fn = None if is_output else tensor.grad_fn
        # (packed, unpack_hook, weakref to the storage, grad_fn and out_nr at saving, shape)
        self.tensor = None   # pack_hook may raise: a half-made SavedTensor holds nothing
        self.tensor = (pack(tensor), unpack, weakref.ref(storage), fn,
                       tensor._out_nr if fn is not None else 0, tensor._data.shape,
                       tensor._data.dtype)

    def _unpack_hooked(self, node):
        """unpack_hook(packed) for `node`'s backward (Note [Saved tensor hooks])."""
        from ..tensor import Tensor
        packed, unpack, ref, fn, out_nr, shape, dtype = self.tensor
        t = self.cache
        if t is None:   # once per node's backward, however often its formula reads it
            t = unpack(packed)
            if not isinstance(t, Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor "
                                f"but got result of type {type(t).__name__} (a tensor saved "
                                f"by {node.name}). Fix: return a tensor equal to the one "
                                "given to pack_hook.")
            self.cache = t
            UNPACKED.append(self)
        st = ref()
        if st is not None and t._storage is st and st.version != self.version:
            raise SavedTensorModifiedError(self._message(node, t._data, st))
        if self.is_output:   # a fresh tensor over its memory, whose grad_fn is the node
            r = Tensor._wrap(t._data, t._storage)
            r._grad_fn = node
            return r
        if fn is not None and t._grad_fn is None and not t.requires_grad:
            # a detached or new tensor stands for the saved one: it gets the saved tensor's
            # history back (PyTorch's SavedVariable::unpack does so), for create_graph
            r = Tensor._wrap(t._data, t._storage)
            r._grad_fn = fn
            if out_nr:
                r._out_nr = out_nr
            return r
        return t


UNPACKED = []   # hooked SavedTensors holding an unpacked tensor until their node's apply ends


def drop_unpacked():
    """Forget the tensors unpack_hook returned for the node that just ran (OpNode.apply)."""
    for s in UNPACKED:
        s.cache = None
    UNPACKED.clear()


def unhooked(tensor):
    """A SavedTensor of an input that no saved-tensor hook packs (checkpoint's own inputs,
    Note [Saved tensor hooks])."""
    global _HOOKED
    was, _HOOKED = _HOOKED, 0
    try:
        return SavedTensor(tensor)
    finally:
        _HOOKED = was


# --------------------------------------------------------------------------- hooks
# Note [Saved tensor hooks]
# PyTorch's autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook): while a pair is
# pushed, every tensor saved for backward (SavedTensor: an op's saved inputs and output,
# registry.py `_make_node`/`_attach`/`dispatch_inplace`, and a custom Function's
# save_for_backward) is handed to pack_hook once, and the node keeps only what it returns;
# each unpack at backward calls unpack_hook(packed) and uses the tensor it returns. Only
# the innermost pair applies; the stack is thread-local, like grad mode. With no pair
# pushed in any thread (`_HOOKED == 0`), SavedTensor pays one global test.
# What oar saves can differ from PyTorch's set (so the pack/unpack counts differ):
# batch_norm saves input, weight, mean and invstd (4; PyTorch's kernel also saves the
# running stats: 6), a composite op saves what its parts save, and index arrays
# (max_pool2d's argmax, gather's index) are attrs of the node, never packed. For
# mul, exp, relu, matmul, linear and conv2d the counts are PyTorch's (tests/
# test_saved_tensor_hooks.py).
# Versions: PyTorch checks no version for a packed tensor ("we can't track versions through
# the hooks"), so an identity hook followed by an in-place change gives a silently wrong
# gradient there. oar keeps Note [Saved tensors are versioned] where it can: when
# unpack_hook returns a tensor on the very storage that was saved and its version moved,
# unpack raises the usual error (deliberately stricter than PyTorch). A hook returning
# other memory (a copy, CPU memory, a recomputed tensor, allow_mutation_on_saved_tensors'
# clone) is used as PyTorch uses it: as is.
# unpack_hook runs once per saved tensor per backward of its node, as in PyTorch, even where
# oar's formula reads the value twice (tanh's `1 - out * out`): the result is kept until
# the node's apply ends (OpNode.apply, one test of a list when nothing was unpacked).
# Like PyTorch, an input unpacked as a tensor without history gets the saved tensor's
# grad_fn back (create_graph needs it); an output is a fresh tensor whose grad_fn is the
# node. PyTorch disallows nothing else: a hook may keep the tensor itself (a reference cycle
# through the node, collected by the garbage collector).
class _HookState(threading.local):
    def __init__(self):
        self.stack = []          # [(pack_hook, unpack_hook)], innermost last
        self.disabled = None     # the error message of disable_saved_tensors_hooks


_HOOKS = _HookState()
_HOOKED = 0                 # pairs pushed, all threads together


def push_hooks(pack_hook, unpack_hook):
    """Push a (pack, unpack) pair for this thread (Note [Saved tensor hooks])."""
    global _HOOKED
    msg = _HOOKS.disabled
    if msg is not None:
        raise RuntimeError(msg)
    _HOOKS.stack.append((pack_hook, unpack_hook))
    _HOOKED += 1


def pop_hooks():
    """Pop this thread's innermost pair."""
    global _HOOKED
    _HOOKS.stack.pop()
    _HOOKED -= 1


# Note [Mutation of saved tensors allowed]
# Inside autograd.graph.allow_mutation_on_saved_tensors() (autograd/graph.py), an in-place
# write into a storage that a saved tensor sits on first copies that saved tensor (once per
# saved tensor and version, however often it was saved), so the backward reads the copy and
# the write may proceed: the cost is exactly one copy of each mutated saved tensor. The
# write paths call `before_write(t)` before writing (registry.py dispatch_inplace and
# dispatch_out, which the spelling fast paths fall back to while the context is active:
# it empties tensor.FAST_CLASSES). Every tensor saved on the written storage is copied, so
# a write through a view at an offset is covered too (PyTorch matches by data_ptr and
# misses that case, giving a silently wrong gradient). A writer that does not call it (an optimizer's step)
# is still caught at backward by the version check of Note [Saved tensor hooks].
MUTATION_CTX = None   # the active context's state, or None


def before_write(t):
    """Note [Mutation of saved tensors allowed]: copy what is saved on t's storage."""
    ctx = MUTATION_CTX
    if ctx is not None:
        ctx.before_write(t)


# --------------------------------------------------------------------------- provenance
# Note [Mutation provenance]
# A storage logs its mutations as (version after, op name, Where) only while a SavedTensor
# watches it (`Storage.watched` counts the live records: each adds one when made and takes
# it back when freed, so a tensor saved once and since released does not pay a stack walk
# on every later in-place op): the log exists for the error above, so unwatched mutations
# pay nothing, and it keeps only the latest entries (storage.py `log_mutation`). A record
# packed by saved-tensor hooks keeps its storage watched for good. The Where
# is found by `user_frame()` when the mutation is logged and formatted only when an error
# message needs it: the first frame outside the whole oar package is the user's line that
# called into oar, and the oar function named is the innermost method of an oar layer above
# the core (e.g. ReLU.forward, Optimizer.step), else the innermost oar function above the
# core (e.g. nn.functional.dropout). The message names the mutation that made the version
# the saved one + 1 (the first change after saving), else the latest one logged.


def culprit(storage, version):
    """' It was modified by `mul_` (inside oar.nn.ReLU.forward) at user.py:12.' for the
    first logged mutation after `version`, else the latest one; '' when none was logged."""
    log = storage.mutations or ()
    for v, op, where in log:
        if v == version + 1:
            return f" It was modified by `{op}`{_where(where)}."
    if log:
        v, op, where = log[-1]
        return f" Its latest modification was `{op}`{_where(where)}."
    return ""


def _where(where):
    """' (inside oar.nn.ReLU.forward) at user.py:12' from a mutation log entry; a plain
    string (user_frame found no frame) is the location alone."""
    if isinstance(where, str):
        return f" at {where}"
    return where.describe()


_PKG = __file__.rsplit("/", 2)[0]   # the oar package
_PKG_DIR = _PKG + "/"
# the core, and the PyTorch door's generated wrappers (their frames name no user-facing function)
_CORE = tuple(_PKG + p for p in ("/ops/", "/autograd/", "/tensor.py", "/storage.py",
                                 "/torch/_binding.py"))


class Where:
    """Where a mutation was made (Note [Mutation provenance]): the user's file:line and, when
    the user's line called into oar (an optimizer's step, an nn layer, nn.init), the oar
    function that made the change. Formatted only when an error message needs it."""
    __slots__ = ("file", "line", "module", "qualname")

    def __init__(self, file, line, module=None, qualname=None):
        self.file = file
        self.line = line
        self.module = module
        self.qualname = qualname

    def __str__(self):
        return f"{self.file}:{self.line}"

    def inside(self):
        """'oar.nn.ReLU.forward': the public spelling of the oar function, or None."""
        if self.qualname is None:
            return None
        module, qual = self.module or "oar", self.qualname
        head = qual.split(".", 1)[0]
        obj = getattr(sys.modules.get(module), head, None)
        parts = module.split(".")
        for k in range(1, len(parts)):   # the shortest package that exports it
            parent = ".".join(parts[:k])
            if obj is not None and getattr(sys.modules.get(parent), head, None) is obj:
                module = parent
                break
        return f"{module}.{qual}"

    def describe(self):
        """' (inside oar.nn.ReLU.forward) at user.py:12' (the first part only when known)."""
        inside = self.inside()
        return (f" (inside {inside})" if inside else "") + f" at {self}"

    def __repr__(self):
        return f"Where({self.describe().strip()!r})"


def user_frame():
    """The Where of the current mutation (Note [Mutation provenance]); "<unknown>" when no
    frame outside oar's core exists. Called only for watched storages."""
    f = sys._getframe(1)
    inner = None
    method = None
    while f is not None:
        code = f.f_code
        fn = code.co_filename
        if fn.startswith(_CORE):
            pass
        elif fn.startswith(_PKG_DIR):
            if inner is None:
                inner = f
            if method is None:
                q = code.co_qualname
                if "." in q and "<" not in q:
                    method = f
        elif fn.startswith("<frozen"):   # python -m oar: no user frame above oar's own main
            break
        else:
            named = method or inner
            if named is None:
                return Where(fn, f.f_lineno)
            return Where(fn, f.f_lineno, named.f_globals.get("__name__"),
                         named.f_code.co_qualname)
        f = f.f_back
    if inner is not None:
        return Where(inner.f_code.co_filename, inner.f_lineno)
    return "<unknown>"
