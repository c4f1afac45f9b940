"""Graph nodes and saved tensors.

Note [Saved tensors are versioned]
A SavedTensor records its storage's version (Note [Version counter]) when saved; unpack()
compares it and, on mismatch, raises an error naming the tensor, the op that saved it,
both versions and the first in-place op (with the user's file:line) that changed it.
Outputs are saved as (array, storage) without a reference to the output Tensor, so no
reference cycle tensor -> grad_fn -> saved -> tensor exists; unpack() rebuilds a Tensor
whose grad_fn is the node itself (needed for create_graph).
"""
from __future__ import annotations

import itertools
import sys

import numpy as np

from .errors import GraphReleasedError, SavedTensorModifiedError

_seq = itertools.count()
_refcount = sys.getrefcount


def _fmt_shape(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


class SavedTensor:
    __slots__ = ("tensor", "array", "storage", "version", "is_output", "requires_grad")

    def __init__(self, tensor, is_output=False):
        storage = tensor._storage
        storage.watched = True
        self.storage = storage
        self.version = storage.version
        self.is_output = is_output
        if is_output:
            self.tensor = None
            self.array = tensor._data
            self.requires_grad = True
        else:
            self.tensor = tensor
            self.array = None

    def unpack(self, node):
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
        culprit = ""
        for version, op, where in storage_log(self.storage):
            if version == self.version + 1:
                culprit = f" It was modified by `{op}` at {where}."
                break
        else:
            if self.storage.mutations:
                v, op, where = self.storage.mutations[-1]
                culprit = f" Its latest modification was `{op}` at {where}."
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{arr.dtype} tensor of shape {_fmt_shape(arr.shape)}], "
            f"which is {which} of {node.name}, is at version {self.storage.version}; "
            f"expected version {self.version} instead.{culprit} "
            "Fix: do not modify it in place until backward has run; use the out-of-place op "
            "(e.g. `y = y + 1` instead of `y.add_(1)`) or modify a `.clone()`.")


def storage_log(storage):
    return storage.mutations or ()


class Node:
    """A backward function. next_edges[i] is (node, input_nr) or None for input i."""
    __slots__ = ("next_edges", "input_meta", "seq", "pre_hooks", "retained", "released",
                 "__weakref__")
    name = "Node"

    def __init__(self, next_edges=(), input_meta=()):
        self.next_edges = next_edges
        self.input_meta = input_meta
        self.seq = next(_seq)
        self.pre_hooks = None
        self.retained = None   # weakref to a non-leaf tensor whose .grad is retained
        self.released = False

    def apply(self, grad):
        raise NotImplementedError

    def release(self):
        pass

    @property
    def next_functions(self):
        return tuple((e[0], e[1]) if e is not None else (None, 0) for e in self.next_edges)

    def __repr__(self):
        return f"<{self.name} object at {hex(id(self))}>"


class OpNode(Node):
    """Backward of a registered op (ops/registry.py OpDef)."""
    __slots__ = ("op", "attrs", "saved", "out_saved", "grad_owned")

    def __init__(self, op, attrs, next_edges, input_meta):
        self.next_edges = next_edges
        self.input_meta = input_meta
        self.seq = next(_seq)
        self.pre_hooks = None
        self.retained = None
        self.released = False
        self.op = op
        self.attrs = attrs
        self.saved = None
        self.out_saved = None
        self.grad_owned = False

    def may_overwrite(self, g):
        """True when the backward may write into its incoming gradient g: the engine owns it
        (Note [Gradient ownership]) and no other tensor shares its storage."""
        return (self.grad_owned and g._data is g._storage.buffer
                and _refcount(g._storage) == 2)

    @property
    def needs(self):
        """needs[i] is truthy when input i needs a gradient (its edge exists)."""
        return self.next_edges

    @property
    def name(self):
        return self.op.node_name

    def input(self, i):
        if self.saved is None:
            if self.released:
                raise GraphReleasedError(_released_message(self.name))
            raise AssertionError(f"{self.name}: input {i} was not saved")
        s = self.saved[i]
        return s.unpack(self) if isinstance(s, SavedTensor) else s

    @property
    def out(self):
        if self.out_saved is None:
            raise GraphReleasedError(_released_message(self.name))
        return self.out_saved.unpack(self)

    def apply(self, grad):
        if self.released:
            raise GraphReleasedError(_released_message(self.name))
        grads = self.op.backward(self, grad)
        out = []
        for g, meta, edge in zip(grads, self.input_meta, self.next_edges):
            if g is None or edge is None:
                out.append(None)
                continue
            shape, dt = meta
            if g._data.shape != shape or g._data.dtype != dt:
                g = _fit(g, shape, dt)
            out.append(g)
        return out

    def release(self):
        if self.saved is not None or self.out_saved is not None:
            self.saved = None
            self.out_saved = None
            self.released = True


def _fit(g, shape, dt):
    """Reduce a broadcast gradient to the input's shape and cast it to the input's dtype."""
    from . import grad_mode
    from .engine import np_sum_to_shape, sum_to_shape
    if not grad_mode.STATE.enabled:   # plain backward: NumPy directly
        from ..tensor import Tensor
        a = g._data
        if a.shape != shape:
            a = np_sum_to_shape(a, shape)
        if a.dtype != dt:
            a = a.astype(dt)
        return Tensor._wrap(np.asarray(a))
    if g._data.shape != shape:
        g = sum_to_shape(g, shape)
    if g._data.dtype != dt:
        g = g.astype(dt)
    return g


def _released_message(name):
    return (f"Trying to backward through the graph a second time (or directly access saved "
            f"tensors after they have already been freed): {name} has released its saved "
            "tensors. Specify retain_graph=True in the first backward() or oar.grad() call "
            "if you need to backward through the graph again.")


class AccumulateGrad(Node):
    """Sink for a leaf that requires grad: writes .grad."""
    __slots__ = ("variable",)
    name = "AccumulateGrad"

    def __init__(self, variable):
        Node.__init__(self)
        self.variable = variable

    def apply(self, grad):
        self.variable._accumulate_grad(grad)
        return ()
