"""Graph nodes: the backward of a registered op (OpNode), of a leaf (AccumulateGrad), and
what every node shares. Saved tensors are in autograd/saved.py, the in-place machinery
(CopySlices included) in autograd/inplace.py.
"""
from __future__ import annotations

import itertools
import sys
import weakref

import numpy as np

from .. import _xp

from . import grad_mode
from .errors import GraphReleasedError
from .saved import UNPACKED as _UNPACKED, SavedTensor, drop_unpacked, user_frame

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
_new = object.__new__

_seq = itertools.count()
_refcount = sys.getrefcount


def _fmt_shape(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


# Note [Node names]
# A node's `name` is PyTorch's: `y.grad_fn.name()` is "MulBackward0", and the class of an op's
# node is named so too (`type(y.grad_fn).__name__`), one OpNode subclass per name, made on
# first use (`node_class`); OpNode(op, ...) returns an instance of the op's class. The name
# follows the op (`torch_node_name`): "<Op>Backward0" by default, with PyTorch's overload
# numbers where its name depends on the operands (SumBackward0 over all elements,
# SumBackward1 over dims; PowBackward0/1/2; RsubBackward1 for `2 - x`; MmBackward0 for a 2-D
# matmul). `name` is a NodeName: a str, so messages format it ("output 0 of ExpBackward0"),
# that can be called, so `grad_fn.name()` (PyTorch's and Paddle's spelling) works too.
# Nodes not made by ops (AccumulateGrad, CopySlices, a custom Function's) get the same kind
# of name from Node.__init_subclass__; called, AccumulateGrad's and CopySlices' give
# PyTorch's qualified "torch::autograd::AccumulateGrad".
class NodeName(str):
    """A node's name (Note [Node names]): a str that, called, returns PyTorch's name()."""

    def __new__(cls, name, qualified=None):
        self = str.__new__(cls, name)
        self.qualified = str(qualified or name)
        return self

    def __call__(self):
        return self.qualified


_QUALIFIED = {"AccumulateGrad": "torch::autograd::AccumulateGrad",
              "CopySlices": "torch::autograd::CopySlices",
              "CopyBackwards": "torch::autograd::CopyBackwards"}


def _named(name):
    return NodeName(name, _QUALIFIED.get(name))


# Note [Node hooks]
# PyTorch's Node.register_prehook(fn(grad_outputs) -> new grad_outputs or None) and
# Node.register_hook(fn(grad_inputs, grad_outputs) -> new grad_inputs or None), kept in
# weak dictionaries keyed by node (no slot, so making a node costs nothing more): a
# pre-hook becomes a per-output tensor pre-hook (the engine runs those, Note [Retained
# gradients] aside), a hook runs in OpNode.apply after the formula (other node classes: in
# the apply wrapper Node.__init_subclass__ installs). Anomaly mode's NaN check (Note
# [Anomaly mode]) runs at the same place.
_POST_HOOKS = weakref.WeakKeyDictionary()
# whether any post hook was ever registered: a plain bool is the per-node test (the truth of
# a WeakKeyDictionary is a Python-level __len__ call)
_POST_HOOKS_USED = False
_FORWARD_AT = weakref.WeakKeyDictionary()   # node -> (op name, user file:line), anomaly mode
_ANOMALY = grad_mode.ANOMALY


class Node:
    """A backward function. next_edges[i] is (node, input_nr) or None for input i."""
    __slots__ = ("next_edges", "input_meta", "seq", "pre_hooks", "retained", "released",
                 "__weakref__")
    name = NodeName("Node")

    def __init__(self, next_edges=(), input_meta=()):
        self.next_edges = next_edges
        self.input_meta = input_meta
        self.seq = next(_seq)
        self.pre_hooks = None
        self.retained = None   # {out_nr: weakref}, Note [Retained gradients]
        self.released = False
        if _ANOMALY.enabled:
            _FORWARD_AT[self] = (self.name, user_frame())

    def __init_subclass__(cls, **kwargs):
        """Note [Node names] and Note [Node hooks] for node classes defined elsewhere."""
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if isinstance(name, str) and not isinstance(name, NodeName):
            cls.name = _named(name)
        elif isinstance(name, property):
            fget = name.fget
            cls.name = property(lambda self: _named(fget(self)), doc=name.__doc__)
        apply = cls.__dict__.get("apply")
        if apply is not None and not getattr(cls, "_hooks_inline", False):
            def hooked_apply(self, grad):
                out = apply(self, grad)
                if _POST_HOOKS_USED or _ANOMALY.enabled:
                    out = _after_apply(self, grad, out)
                return out
            hooked_apply.__doc__ = apply.__doc__
            hooked_apply.__wrapped__ = apply
            cls.apply = hooked_apply

    def apply(self, grad):
        raise NotImplementedError

    def release(self):
        pass

    @property
    def next_functions(self):
        """((node, input_nr), ...) for each input: the node its gradient flows into (an
        AccumulateGrad for a leaf), or (None, 0) where no gradient flows."""
        return tuple((e[0], e[1]) if e is not None else (None, 0) for e in self.next_edges)

    def register_prehook(self, fn):
        """fn(grad_outputs) -> new grad_outputs (a tuple) or None, called with the node's
        incoming gradients before it runs (Note [Node hooks]). Returns a handle with
        remove()."""
        n_out = getattr(self, "n_out", 1)
        if n_out != 1:
            raise NotImplementedError(f"{self.name}.register_prehook: oar supports node "
                                      f"pre-hooks on nodes with one output; this one has "
                                      f"{n_out}. Fix: register a hook on each output tensor.")

        def tensor_hook(g):
            r = fn((g,))
            if r is None:
                return None
            if not isinstance(r, (tuple, list)) or len(r) != 1:
                raise RuntimeError(f"hook returned {len(r) if isinstance(r, (tuple, list)) else type(r).__name__} "
                                   f"values for {self.name}'s 1 output; expected a tuple of 1")
            return r[0]
        tensor_hook.__name__ = getattr(fn, "__name__", "prehook")
        if self.pre_hooks is None:
            self.pre_hooks = {}
        hooks = self.pre_hooks.setdefault(0, [])
        hooks.append(tensor_hook)
        return HookHandle(hooks, tensor_hook)

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) -> new grad_inputs (a tuple) or None, called after
        the node computed the gradients for its inputs (Note [Node hooks]). Returns a handle
        with remove()."""
        global _POST_HOOKS_USED
        _POST_HOOKS_USED = True
        hooks = _POST_HOOKS.setdefault(self, [])
        hooks.append(fn)
        return HookHandle(hooks, fn)

    def _register_hook_dict(self, tensor):
        """PyTorch internal (used by some libraries); a no-op here."""

    @property
    def metadata(self):
        """A dict to attach data to this node (PyTorch's Node.metadata)."""
        return _METADATA.setdefault(self, {})

    def __repr__(self):
        return f"<{self.name} object at {hex(id(self))}>"


_METADATA = weakref.WeakKeyDictionary()


class HookHandle:
    """remove() takes a hook out of the list it was added to."""
    __slots__ = ("hooks", "hook")

    def __init__(self, hooks, hook):
        self.hooks = hooks
        self.hook = hook

    def remove(self):
        """Unregister the hook (a second call does nothing)."""
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


def _as_tuple(g):
    if isinstance(g, dict):
        n = max(g) + 1 if g else 0
        return tuple(g.get(i) for i in range(n))
    return (g,)


def _after_apply(node, grad, out):
    """Note [Node hooks] (post hooks) and Note [Anomaly mode] after node.apply(grad)."""
    hooks = _POST_HOOKS.get(node)
    if hooks:
        grad_outputs = _as_tuple(grad)
        for hook in list(hooks):
            r = hook(tuple(out), grad_outputs)
            if r is not None:
                r = tuple(r)
                if len(r) != len(out):
                    raise RuntimeError(f"hook '{getattr(hook, '__name__', 'hook')}' returned "
                                       f"{len(r)} gradients for {node.name}'s {len(out)} "
                                       "inputs; expected one per input (None where none)")
                out = tuple(hook_result(hook, g, n) if n is not None and g is not None else n
                            for g, n in zip(out, r))
    if _ANOMALY.enabled and _ANOMALY.check_nan:
        for i, g in enumerate(out):
            if g is not None and g._data.dtype.kind == "f" and np.isnan(g._data).any():
                where = _FORWARD_AT.get(node)
                fwd = (f" The forward op that made this node ran at {where[1]}." if where
                       and where[1] else " (The node was made before anomaly detection was "
                       "enabled, so where its forward ran is unknown.)")
                raise RuntimeError(f"Function '{node.name}' returned nan values in its "
                                   f"{i}th output.{fwd}")
    return out


# Note [Node names]: one OpNode subclass per PyTorch name; the names whose overload depends
# on the operands are computed from the node's attrs and input_meta (None: not a tensor).
_NODE_CLASSES = {}
_OP_CLASS = {}
_FIXED = {"square": "PowBackward0", "cast": "ToCopyBackward0", "where_self": "WhereBackward0",
          "take_along_axis": "GatherBackward0", "concat": "CatBackward0",
          "reshape": "ViewBackward0", "reshape_copy": "UnsafeViewBackward0",
          "tile": "RepeatBackward0", "copy_": "CopyBackwards",
          "conv2d": "ConvolutionBackward0", "max_pool2d": "MaxPool2DWithIndicesBackward0",
          "avg_pool2d": "AvgPool2DBackward0", "pad": "ConstantPadNdBackward0",
          "cross_entropy": "NllLossBackward0", "narrow": "SliceBackward0",
          "tensor_split": "SliceBackward0", "chunk": "SplitBackward0",
          "as_strided_regen": "AsStridedBackward0", "view_as": "ViewBackward0",
          "flatten": "ViewBackward0", "unflatten": "ViewBackward0"}


def _ndim(meta, i):
    m = meta[i] if i < len(meta) else None
    return None if m is None else len(m[0])


def _by_axis(base):
    return lambda attrs, meta: base + ("0" if not attrs or attrs[0] is None else "1")


def _matmul_name(attrs, meta):
    nd = (_ndim(meta, 0), _ndim(meta, 1))
    return {(2, 2): "MmBackward0", (1, 1): "DotBackward0", (2, 1): "MvBackward0",
            (1, 2): "SqueezeBackward4"}.get(nd, "UnsafeViewBackward0")


def _linear_name(attrs, meta):
    nd, bias = _ndim(meta, 0), len(meta) > 2 and meta[2] is not None
    if nd == 2:
        return "AddmmBackward0" if bias else "MmBackward0"
    if nd == 1:     # F.linear of a vector: mv (SqueezeBackward4), with a bias a view of addmm
        return "ViewBackward0" if bias else "SqueezeBackward4"
    return "ViewBackward0" if bias else "UnsafeViewBackward0"


def _second_is_number(if_number, if_tensor, i=1):
    return lambda attrs, meta: if_number if len(meta) <= i or meta[i] is None else if_tensor


_VARIANTS = {
    "sum": _by_axis("SumBackward"), "mean": _by_axis("MeanBackward"),
    "prod": _by_axis("ProdBackward"),
    "squeeze": lambda attrs, meta: f"SqueezeBackward{attrs[1] if len(attrs) > 1 else 1}",
    "pow": lambda attrs, meta: ("PowBackward2" if meta[0] is None else
                                "PowBackward0" if meta[1] is None else "PowBackward1"),
    "sub": lambda attrs, meta: "RsubBackward1" if meta[0] is None else "SubBackward0",
    "div": lambda attrs, meta: "MulBackward0" if meta[0] is None else "DivBackward0",
    "round": lambda attrs, meta: "RoundBackward0" if attrs[0] is None else "RoundBackward1",
    "fmod": lambda attrs, meta: "FmodBackward0" if meta[1] is None else "FmodBackward1",
    "clip": lambda attrs, meta: ("ClampBackward0" if any(hasattr(a, "_data") for a in attrs)
                                 else "ClampBackward1"),
    "remainder": _second_is_number("RemainderBackward0", "RemainderBackward1"),
    "fill_": _second_is_number("FillBackward2", "FillBackward3"),
    "scatter_": _second_is_number("ScatterBackward1", "ScatterBackward0"),
    "bernoulli_": lambda attrs, meta: ("BernoulliBackward1" if attrs and hasattr(attrs[0], "_data")
                                       else "BernoulliBackward2"),
    "matmul": _matmul_name, "linear": _linear_name,
    # the node of the op that picked the values (Note [Selected values op])
    "select_values": lambda attrs, meta: attrs[3],
    "masked_fill": _second_is_number("MaskedFillBackward0", "MaskedFillBackward1", 2),
    "masked_fill_": _second_is_number("MaskedFillBackward0", "MaskedFillBackward1", 2),
    # ops/pointwise_more.py: a Scalar overload and a Tensor overload
    "copysign": _second_is_number("CopysignBackward1", "CopysignBackward0"),
    "lerp": _second_is_number("LerpBackward0", "LerpBackward1", 2),
    "clamp_min": _second_is_number("ClampMinBackward0", "ClampMinBackward1"),
    "clamp_max": _second_is_number("ClampMaxBackward0", "ClampMaxBackward1"),
}


# Note [Node inputs]
# A node's next_functions lists what PyTorch's lists: the Tensor arguments of the overload
# that has the derivative, in its order. Not the index, mask or condition operands that
# derivatives.yaml marks non-differentiable (_HIDDEN_ALWAYS, by input position), nor a
# number passed where that overload takes a Scalar (_HIDDEN_IF_NUMBER: pow(x, 2), 2 ** x,
# remainder/fmod(x, 2.), 2 - x, fill_(1.), masked_fill(m, 1.), scatter(.., value=2.)); a
# number where it takes a Tensor (x + 2, x * 2, where(c, x, 0.)) is a wrapped number and
# stays, as (None, 0). The engine walks next_edges, one per declared input, unchanged.
_HIDDEN_ALWAYS = {"take_along_axis": (1,), "index_select": (1,), "index": (1,),
                  "index_put_": (2,), "index_add_": (2,), "scatter_": (2,),
                  "scatter_add_": (2,), "scatter_reduce_": (2,), "where_self": (1,),
                  "masked_fill": (1,), "masked_fill_": (1,)}
_HIDDEN_IF_NUMBER = {"pow": (0, 1), "remainder": (1,), "fmod": (1,), "sub": (0,),
                     "fill_": (1,), "masked_fill": (2,), "masked_fill_": (2,), "scatter_": (1,),
                     "copysign": (1,), "lerp": (2,), "clamp_min": (1,), "clamp_max": (1,)}


def torch_node_name(op, attrs=(), input_meta=()):
    """PyTorch's name for the node of `op` with these attrs and inputs (Note [Node names])."""
    v = _VARIANTS.get(op.name)
    if v is not None:
        try:
            return v(attrs, input_meta)
        except (TypeError, IndexError, AttributeError):
            pass
    fixed = _FIXED.get(op.name)
    if fixed is not None:
        return fixed
    # a node_name ending in its overload number is PyTorch's name as it is (EluBackward1: the
    # in-place elu_, which saves its result)
    return op.node_name if op.node_name[-1].isdigit() else op.node_name + "0"


def node_class(name):
    """The OpNode subclass named `name` (Note [Node names]), made on first use."""
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        cls = type(name, (OpNode,), {"__slots__": (), "name": _named(name),
                                     "__module__": "oar.autograd.graph",
                                     "__doc__": f"The backward node {name} (Note [Node names])."})
        _NODE_CLASSES[name] = cls
    return cls


def _op_class(op):
    """The class for op's nodes, or a function of (attrs, input_meta) giving it."""
    v = _VARIANTS.get(op.name)
    if v is not None:
        def pick(attrs, meta):
            return node_class(torch_node_name(op, attrs, meta))
        k = pick
    else:
        k = node_class(torch_node_name(op))
    _OP_CLASS[op] = k
    return k


class OpNode(Node):
    """Backward of a registered op (ops/registry.py OpDef). `OpNode(op, ...)` returns an
    instance of the op's subclass, named as PyTorch names it (Note [Node names])."""
    __slots__ = ("op", "attrs", "saved", "out_saved", "grad_owned", "releasing")
    _hooks_inline = True     # apply runs Note [Node hooks] itself
    __init__ = object.__init__   # __new__ sets every field (one Python call per node)

    def __new__(cls, op, attrs, next_edges, input_meta):
        k = _OP_CLASS.get(op)
        if k is None:
            k = _op_class(op)
        if k.__class__ is not type:   # the name depends on the operands
            k = k(attrs, input_meta)
        self = _new(k)
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
        self.releasing = False   # set by the engine per run (Note [Overwriting a dead saved output])
        if _ANOMALY.enabled:
            _FORWARD_AT[self] = (op.name, user_frame())
        return self

    @property
    def next_functions(self):
        """Node.next_functions without the inputs PyTorch's node does not list (Note [Node
        inputs])."""
        edges = self.next_edges
        name = self.op.name
        always = _HIDDEN_ALWAYS.get(name)
        numbers = _HIDDEN_IF_NUMBER.get(name)
        if always is not None or numbers is not None:
            meta = self.input_meta
            edges = [e for i, e in enumerate(edges)
                     if not ((always is not None and i in always)
                             or (numbers is not None and i in numbers
                                 and (i >= len(meta) or meta[i] is None)))]
        return tuple((e[0], e[1]) if e is not None else (None, 0) for e in edges)

    def may_overwrite(self, g):
        """True when the backward may write into its incoming gradient g: the engine owns it
        (Note [Gradient ownership]), no other tensor shares its storage, and no post hook
        of this node is to see g as its grad_outputs after the formula (Note [Node hooks])."""
        return (self.grad_owned and g._data is g._storage.buffer
                and _refcount(g._storage) == 2
                and (not _POST_HOOKS_USED or self not in _POST_HOOKS))

    # Note [Overwriting a dead saved output]
    # A backward may use the memory of its saved output as scratch (InPlaceABN recovers
    # x_hat in it, nn/abn.py) only when that output is provably dead: nothing can read it
    # after this backward. may_overwrite_out(t), t the output just unpacked (so the version
    # check of Note [Saved tensors are versioned] has passed), is True only when all hold:
    #   1. the engine releases this node's saved state right after this apply: no
    #      retain_graph, no create_graph, an eager run (`releasing`, set by engine._run_node
    #      beside grad_owned; False for nodes that oar.jit replays or records);
    #   2. no saved-tensor hooks packed it (`storage is None`, Note [Saved tensor hooks]):
    #      a pack hook may keep the output Tensor itself, whose storage is referenced once
    #      however many references the hook holds to that Tensor;
    #   3. nothing else references its storage: the refcount of the Storage is exactly the
    #      SavedTensor's and t's (+ this frame's). An output the user holds, a view of it,
    #      detach(), `grad_fn._saved_result`, another node that saved it and has not run
    #      or is retained (the next MaxPool saves its input, which is this output; a second
    #      consumer outside this backward) all hold a Tensor over the same Storage;
    #   4. nothing else references its array: t's array is the Storage's whole buffer, that
    #      buffer owns its memory (no NumPy base another object could write through or read
    #      from) and is writable, and its refcount is exactly the Storage's, the
    #      SavedTensor's and t's (+ this frame's): a NumPy view kept from `.numpy()` or
    #      `np.asarray(t)` holds the buffer as its base. (Every Tensor over the Storage
    #      also holds an array on its buffer, so 4 catches what 3 does; 3 stays as the
    #      direct statement, at the cost of one refcount. tests/test_inplace_abn.py
    #      removes them together, and 4 alone with a NumPy view.);
    #   5. no post hook is registered on this node (Note [Node hooks]): it runs after the
    #      formula, before the release, and may read grad_fn._saved_result.
    # OpNode.may_overwrite is the same rule for the incoming gradient (Note [Gradient
    # ownership]). The caller must unpack t and call this before binding t's array or
    # storage to a local of its own (the counts above assume it has not), and bumps the
    # storage's version after writing, so that a reader the check missed would fail the
    # version check loudly instead of reading the scratch values.
    def may_overwrite_out(self, t):
        """True when the backward may overwrite t, its saved output just unpacked, because
        nothing can read it afterwards (Note [Overwriting a dead saved output])."""
        s = self.out_saved
        if (not self.releasing or s is None or s.storage is not t._storage
                or (_POST_HOOKS_USED and self in _POST_HOOKS)):
            return False
        buf = s.array
        if t._data is not buf or t._storage.buffer is not buf:
            return False
        # Storage: s.storage, t._storage, the argument; buffer: the Storage's, s.array,
        # t._data, `buf`, the argument (a flags object would hold one more: not kept)
        return (_refcount(s.storage) == 3 and _refcount(buf) == 5 and buf.flags.owndata
                and buf.flags.writeable)

    @property
    def needs(self):
        """needs[i] is truthy when input i needs a gradient (its edge exists)."""
        return self.next_edges

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

    @property
    def _saved_result(self):
        """PyTorch's grad_fn._saved_result: the saved output, unpacked (version-checked),
        sharing the output's storage and so its version counter; of the output's door."""
        s = self.out_saved
        if s is None:
            if self.released:
                raise GraphReleasedError(_released_message(self.name))
            raise AttributeError(f"'{self.name}' object has no attribute '_saved_result'")
        t = self.out
        cls = getattr(s, "cls", None)
        if cls is not None and t.__class__ is not cls:
            t.__class__ = cls
        return t

    def apply(self, grad):
        if self.released:
            raise GraphReleasedError(_released_message(self.name))
        grads = self.op.backward(self, grad)
        if _UNPACKED:   # Note [Saved tensor hooks]: unpacked once per backward of the node
            drop_unpacked()
        if _POST_HOOKS_USED or _ANOMALY.enabled:   # Note [Node hooks], Note [Anomaly mode]
            return _after_apply(self, grad, self._fit_all(grads))
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
        return self._fit_all(grads)

    def _fit_all(self, grads):
        """Each gradient reduced to its input's shape and cast to its dtype (None where the
        input needs none)."""
        edges = self.next_edges
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
            # a real input's gradient is the real part (Note [Complex autograd])
            a = (a.real if a.dtype.kind == "c" and dt.kind != "c" else a).astype(dt)
        return Tensor._wrap(_xp.asarray(a))
    if g._data.shape != shape:
        g = sum_to_shape(g, shape)
    if g._data.dtype != dt:
        if g._data.dtype.kind == "c" and dt.kind != "c":   # Note [Complex autograd]
            from ..ops.complex import real
            g = real(g)
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
    _hooks_inline = True    # the engine writes .grad directly; it never calls apply

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
