"""Graph nodes: the backward of a registered op (OpNode), of a leaf (AccumulateGrad), and
what every node shares. Saved tensors are in autograd/saved.py, the in-place machinery
(CopySlices included) in autograd/inplace.py.
"""
from __future__ import annotations

import itertools
import sys
import weakref

import numpy as np

from . import grad_mode
from .errors import GraphReleasedError
from .saved import SavedTensor

# Note [Second backward]
# A node that holds saved state frees it after a backward without retain_graph; using it
# again raises GraphReleasedError, as PyTorch raises exactly for nodes that hold
# SavedVariables. Saved state is: saved inputs (tensors, and numbers, which PyTorch saves as
# wrapped-number tensors), a saved output, an index array among the attrs (advanced
# indexing, index_put_, scatter_: PyTorch saves the index tensor, except index_add_ and
# scatter-add, whose self gradient does not need it), a custom Function's save_for_backward,
# and CopySlices, which drops the op it wraps when released (autograd/inplace.py), as
# PyTorch's. Nodes that keep only shapes and numbers (sum, expand, add, a basic slice, a
# cast) may be run again, as in PyTorch.

# Note [Retained gradients]
# `node.retained` is None or a dict out_nr -> weakref of the tensor whose .grad retains the
# gradient of that output (a multi-output node may have several). When a tensor's grad_fn
# changes (an in-place op rebases it, a view's grad_fn is regenerated), its entry moves from
# the old node to the new one (Tensor._move_retain), as PyTorch moves its retains_grad hook:
# .grad is then the gradient of the tensor's current value.

_ndarray = np.ndarray

_seq = itertools.count()
_refcount = sys.getrefcount


def _fmt_shape(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


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
        self.retained = None   # {out_nr: weakref}, Note [Retained gradients]
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
        edges = self.next_edges
        if len(edges) == 1 and grads:   # one input (unary ops, views, reductions): no zip
            g = grads[0]
            if g is None or edges[0] is None:
                return (None,)
            shape, dt = self.input_meta[0]
            d = g._data
            if d.shape != shape or d.dtype != dt:
                g = _fit(g, shape, dt)
            return (g,)
        out = []
        for g, meta, edge in zip(grads, self.input_meta, edges):
            if g is None or edge is None:
                out.append(None)
                continue
            shape, dt = meta
            if g._data.shape != shape or g._data.dtype != dt:
                g = _fit(g, shape, dt)
            out.append(g)
        return out

    def release(self):
        # what a second backward must not find (Note [Second backward])
        if (self.saved is not None or self.out_saved is not None
                or (self.attrs and _saves_index(self))):
            self.saved = None
            self.out_saved = None
            self.released = True


# ops whose index attr serves only the gradient of their second input (Note [Second backward])
_INDEX_FOR_SOURCE_ONLY = frozenset({"index_add_"})


def _saves_index(node):
    """True when an attr is an index array that PyTorch would hold as a saved tensor."""
    found = False
    for a in node.attrs:
        if a.__class__ is _ndarray:
            found = True
            break
        if a.__class__ is tuple:
            for k in a:
                if k.__class__ is _ndarray:
                    found = True
                    break
            if found:
                break
    if not found:
        return False
    op = node.op
    if op.name in _INDEX_FOR_SOURCE_ONLY or (op.name == "scatter_" and _is_add(node.attrs[-1])):
        edges = node.next_edges
        return len(edges) > 1 and edges[1] is not None
    return True


def _is_add(reduce):
    return reduce.__class__ is str and reduce == "add"


def _fit(g, shape, dt):
    """Reduce a broadcast gradient to the input's shape and cast it to the input's dtype."""
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


def sum_to_shape(g, shape):
    """Reduce a broadcast gradient (an oar Tensor) back to `shape`."""
    gshape = g.shape
    if tuple(gshape) == tuple(shape):
        return g
    lead = len(gshape) - len(shape)
    axes = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
    if axes:
        g = g.sum(axis=axes, keepdim=True)
    if tuple(g.shape) != tuple(shape):
        g = g.reshape(list(shape))   # drop the leading broadcast dims
    return g


def np_sum_to_shape(g: np.ndarray, shape):
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and g.shape[lead + i] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape)


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


def add_retained(node, nr, t):
    """Note [Retained gradients]: t.grad retains the gradient of output nr of node."""
    r = node.retained
    if r is None:
        node.retained = {nr: weakref.ref(t)}
    else:
        r[nr] = weakref.ref(t)


def drop_retained(node, nr, t):
    r = node.retained
    if r:
        ref = r.get(nr)
        if ref is not None and ref() is t:
            del r[nr]
            if not r:
                node.retained = None


def hook_result(hook, g, r):
    """A hook's return value, checked as PyTorch checks it: None keeps g; otherwise a tensor
    of g's shape and dtype (errors before anything is written)."""
    from ..tensor import Tensor
    if not isinstance(r, Tensor):
        from .errors import ArgTypeError
        raise ArgTypeError(f"expected Tensor (or None), but hook returned '{type(r).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    if r._data.shape != g._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value (was "
                           f"{_fmt_shape(g._data.shape)}, got {_fmt_shape(r._data.shape)})")
    if r._data.dtype != g._data.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                           f"{g._data.dtype} got {r._data.dtype})")
    return r
