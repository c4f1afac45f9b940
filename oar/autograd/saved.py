"""Saved tensors: the version check at backward, and where a mutation came from.

A backward formula that reads a tensor saved at forward time must see the value it saw
then. `SavedTensor` records its storage's version when saved and checks it when unpacked;
the error names the op that changed the tensor and the user's line that called it, which
`user_frame()` found when the storage logged the mutation (storage.py `log_mutation`,
called by the one version bump, autograd/inplace.py `bump`).
"""
from __future__ import annotations

import sys

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


class SavedTensor:
    """A tensor a backward formula reads, checked against in-place changes when unpacked
    (Note [Saved tensors are versioned])."""
    __slots__ = ("tensor", "array", "storage", "version", "is_output", "had_fn")

    def __init__(self, tensor, is_output=False):
        storage = tensor._storage
        storage.watched = True   # from now on its mutations are logged (Note [Mutation provenance])
        self.storage = storage
        self.version = storage.version
        self.is_output = is_output
        if is_output:
            self.tensor = None
            self.array = tensor._data
            self.had_fn = False
        else:
            self.tensor = tensor
            self.array = None
            # a non-view with history: detach_() would lose it (Note [Saved tensors are
            # versioned]); views cannot be detached in place
            self.had_fn = tensor._grad_fn is not None and tensor._view is None

    def unpack(self, node):
        """The saved tensor for `node`'s backward; an error if it was modified in place or
        detached in place since it was saved."""
        if self.had_fn and self.tensor._grad_fn is None:
            raise SavedTensorModifiedError(
                "Trying to use a saved tensor that has been detached in-place, i.e. with "
                f".detach_() (a tensor saved by {node.name}). This is not supported, please "
                "use out-of-place `.detach()` instead.")
        storage = self.storage
        if storage.version != self.version:
            raise SavedTensorModifiedError(self._message(node))
        if not self.is_output:
            return self.tensor
        from ..tensor import Tensor
        t = Tensor._wrap(self.array, storage)
        t._grad_fn = node
        return t

    def _message(self, node):
        arr = self.tensor._data if self.tensor is not None else self.array
        which = "output 0" if self.is_output else "an input"
        shape = "[" + ", ".join(str(s) for s in arr.shape) + "]"
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{arr.dtype} tensor of shape {shape}], "
            f"which is {which} of {node.name}, is at version {self.storage.version}; "
            f"expected version {self.version} instead.{culprit(self.storage, self.version)} "
            "Fix: do not modify it in place until backward has run; use the out-of-place op "
            "(e.g. `y = y + 1` instead of `y.add_(1)`) or modify a `.clone()`.")


# --------------------------------------------------------------------------- provenance
# Note [Mutation provenance]
# A storage logs its mutations as (version after, op name, Where) only once a SavedTensor
# watches it (`Storage.watched`): the log exists for the error above, so unwatched mutations
# pay nothing, and it keeps only the latest entries (storage.py `log_mutation`). The Where
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
_CORE = tuple(_PKG + p for p in ("/ops/", "/autograd/", "/tensor.py", "/storage.py"))


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
