"""Custom ops: oar.autograd.PyLayer (alias Function), with save_for_backward and mark_dirty."""
from __future__ import annotations

import numpy as np

from . import grad_mode
from .errors import GraphReleasedError
from .errors import ArgTypeError
from .node import Node, SavedTensor, _fit, _fmt_shape, _released_message


class PyLayerContext:
    def __init__(self):
        self._saved = ()
        self._dirty = ()
        self.needs_input_grad = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        saved = tuple(SavedTensor(t) if t is not None else None for t in tensors)
        for s in saved:
            # PyTorch unpacks a Function's saved tensors together with the Function's own
            # node, so a later detach_() of one is not an error there (built-in ops do raise)
            if s is not None:
                s.had_fn = False
        self._saved = saved

    @property
    def saved_tensors(self):
        node = self._node
        if node is not None and node.released:
            raise GraphReleasedError(_released_message(node.name))
        return tuple(s.unpack(node) if s is not None else None for s in self._saved)

    def saved_tensor(self):
        return self.saved_tensors

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class PyLayerNode(Node):
    __slots__ = ("cls", "ctx", "n_out", "out_meta", "arg_pos", "n_args")

    @property
    def name(self):
        return self.cls.__name__ + "Backward"

    def apply(self, grad):
        from ..tensor import Tensor
        if isinstance(grad, dict):
            grads = [grad.get(i) for i in range(self.n_out)]
        else:
            grads = [grad] + [None] * (self.n_out - 1)
        grads = [g if g is not None else Tensor._wrap(np.zeros(s, d))
                 for g, (s, d) in zip(grads, self.out_meta)]
        res = self.cls.backward(self.ctx, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        return self._validate(res)

    def _validate(self, res):
        """The gradients backward returned, checked as PyTorch checks them (one per forward
        argument, PyTorch's spelling, or one per tensor argument, Paddle's; extra trailing
        Nones dropped), each None or a tensor whose shape the input broadcasts to (summed
        back to the input's shape) and cast to the input's dtype."""
        from ..tensor import Tensor
        n_t, n_a, pos = len(self.input_meta), self.n_args, self.arg_pos
        if len(res) > n_a and all(r is None for r in res[n_a:]):
            res = res[:n_a]
        if len(res) != n_t:
            if len(res) != n_a:
                want = f"{n_a}" if n_a == n_t else (f"{n_a}, one per forward argument, or "
                                                    f"{n_t}, one per tensor argument")
                raise RuntimeError(f"function {self.name} returned an incorrect number of "
                                   f"gradients (expected {want}, got {len(res)})")
            res = tuple(res[p] for p in pos)
        out = []
        for i, (g, (shape, dt)) in enumerate(zip(res, self.input_meta)):
            if g is None:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                raise ArgTypeError(f"function {self.name} returned {type(g).__name__} as the "
                                   f"gradient at index {i}: expected a Tensor or None")
            a = g._data
            if a.shape != shape:
                try:
                    ok = np.broadcast_shapes(shape, a.shape) == a.shape
                except ValueError:
                    ok = False
                if not ok:
                    raise RuntimeError(
                        f"Function {self.name} returned an invalid gradient at index {i} - got "
                        f"{_fmt_shape(a.shape)} but expected shape compatible with "
                        f"{_fmt_shape(shape)}")
            if a.shape != shape or a.dtype != dt:
                g = _fit(g, shape, dt)
            out.append(g)
        return tuple(out)

    def release(self):
        # Note [Second backward]: only what save_for_backward saved is freed (attributes
        # set on ctx stay, as in PyTorch); a second backward raises when it reads
        # ctx.saved_tensors, as PyTorch's does
        ctx = self.ctx
        if any(s is not None for s in ctx._saved):
            ctx._saved = ()
            self.released = True


class PyLayer:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads)."""

    @classmethod
    def apply(cls, *args, **kwargs):
        from ..ops.registry import bump, check_inplace_autograd, rebase_history
        from ..tensor import Tensor
        ctx = PyLayerContext()
        tensors = [a for a in args if isinstance(a, Tensor)]
        need = grad_mode.is_grad_enabled() and any(t.requires_grad for t in tensors)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        edges = tuple(t._edge() if t.requires_grad else None for t in tensors) if need else ()
        with grad_mode.no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        dirty = {id(d) for d in ctx._dirty}
        inputs = {id(t) for t in tensors}
        # an input returned as is (not marked dirty) comes back as a new alias, as in PyTorch:
        # attaching this node to the input itself would overwrite the input's own history
        outs = tuple(Tensor._wrap(o._data, o._storage) if isinstance(o, Tensor) and id(o) in inputs
                     and id(o) not in dirty else o for o in outs)
        out = outs[0] if single else outs
        dirty_view = None
        for d in ctx._dirty:
            if need:
                check_inplace_autograd(d, cls.__name__)
                if d._view is not None:
                    dirty_view = _dirty_view(cls, d, outs, tensors)
            bump(d, cls.__name__)
        if need:
            node = PyLayerNode(edges, tuple((t._data.shape, t._data.dtype) for t in tensors))
            node.cls = cls
            node.ctx = ctx
            node.n_out = len(outs)
            node.out_meta = tuple((o._data.shape, o._data.dtype) for o in outs if isinstance(o, Tensor))
            # positions of the tensor arguments among forward's arguments (PyTorch's backward
            # returns one gradient per argument)
            node.arg_pos = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            node.n_args = len(args)
            ctx._node = node
            if dirty_view is not None:
                # the base's history is rewritten around this node (CopySlices), as for a
                # built-in in-place op on a view (Note [Rebase history], ops/registry.py)
                rebase_history(dirty_view, node, dirty_view._base._edge())
                return out
            for i, o in enumerate(outs):
                if isinstance(o, Tensor) and o._data.dtype.kind == "f":
                    old, old_nr = o._grad_fn, o._out_nr
                    o._grad_fn = node
                    o._out_nr = i
                    if o._retains_grad and id(o) in dirty:
                        # .grad follows the new value (Note [Retained gradients])
                        o._move_retain(old, old_nr, node, i)
        else:
            ctx._node = None
        return out


def _dirty_view(cls, view, outs, tensors):
    """A view marked dirty: supported when it is the Function's only output and its first
    tensor argument (the shape CopySlices routes: input 0 is the view that was written)."""
    if len(outs) != 1 or outs[0] is not view or tensors[0] is not view:
        raise NotImplementedError(
            f"{cls.__name__}: mark_dirty on a view is supported when the view is the first "
            "tensor argument and the only output. Fix: pass the base tensor, or clone the "
            "view first")
    return view


Function = PyLayer
