"""Custom ops: oar.autograd.PyLayer (alias Function), with save_for_backward and mark_dirty."""
from __future__ import annotations

import warnings

import numpy as np

from . import grad_mode
from .errors import GraphReleasedError
from .errors import ArgTypeError
from .node import Node, _fit, _fmt_shape, _released_message
from .saved import UNPACKED as _UNPACKED, SavedTensor, drop_unpacked


class PyLayerContext:
    """The ctx passed to a PyLayer's forward and backward: saved tensors and flags."""
    def __init__(self):
        self._saved = ()
        self._to_save = ()
        self._dirty = ()
        self._non_diff = ()
        self.needs_input_grad = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        """Saves tensors for backward (checked against in-place changes on use). As in
        PyTorch, they are saved when forward returns (Note [Function outputs]), so their
        versions are those after forward."""
        self._to_save = tensors

    def _save(self):
        """Note [Function outputs]: the tensors given to save_for_backward become saved
        tensors now that forward has returned and a node is recorded."""
        saved = tuple(SavedTensor(t) if t is not None else None for t in self._to_save)
        for s in saved:
            # PyTorch unpacks a Function's saved tensors together with the Function's own
            # node, so a later detach_() of one is not an error there (built-in ops do raise)
            if s is not None:
                s.had_fn = False
        self._saved = saved
        self._to_save = ()

    @property
    def saved_tensors(self):
        """The tensors given to save_for_backward, as a tuple."""
        node = self._node
        if node is not None and node.released:
            raise GraphReleasedError(_released_message(node.name))
        return tuple(s.unpack(node) if s is not None else None for s in self._saved)

    def saved_tensor(self):
        """The tensors given to save_for_backward (Paddle's spelling)."""
        return self.saved_tensors

    def mark_dirty(self, *tensors):
        """Declares the inputs that forward modified in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declares outputs that carry no gradient."""
        self._non_diff = tensors

    def set_materialize_grads(self, value):
        """Whether backward receives zeros (True) or None for outputs without a gradient."""
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
        if _UNPACKED:   # Note [Saved tensor hooks]: unpacked once per backward of the node
            drop_unpacked()
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


# Note [Function outputs]
# What PyLayer.apply does with forward's outputs, after forward ran (under no_grad), as
# PyTorch's custom_function.cpp _wrap_outputs does:
# - an input returned as is (not marked dirty) comes back as a new view of that input, so
#   attaching the node to it does not overwrite the input's own history;
# - every output that is a view (an input returned as is, or a view of an input made in
#   forward), unless it is a dirty input, gets the IN_CUSTOM_FUNCTION creation meta: writing
#   into it in place under autograd, or using it after its base was written, raises PyTorch's
#   "This view was created inside a custom Function" error (Note [View creation meta]),
#   because CopySlices would bypass the Function's backward. When the node is recorded and
#   several outputs are differentiable, the views get MULTI_OUTPUT instead;
# - inputs marked dirty must all be returned (PyTorch's RuntimeError otherwise, grad or
#   not); they follow Note [Dirty inputs]. When the node is recorded, a dirty tensor that is
#   no input is refused if it is a view, else warned about (PyTorch's _DIRTY_NOT_INPUT);
# - outputs marked non-differentiable get no history (an input among them comes back as a
#   detached alias); backward receives zeros for them;
# - the tensors given to save_for_backward are saved only now, and only when the node is
#   recorded: their versions are those after forward (so forward may save an input and then
#   modify it in place with mark_dirty), and an inference tensor is refused only when the
#   Function is recorded (Note [Inference tensors]).
_DIRTY_NOT_RETURNED = ("Some elements marked as dirty during the forward method were not "
                       "returned as output. The inputs that are modified inplace must all be "
                       "outputs of the Function.")
_DIRTY_NOT_INPUT = ("ctx.mark_dirty() received a tensor that was not an input. Only input "
                    "Tensors that have been mutated should be passed to ctx.mark_dirty().")


def _custom_view(cls, o, k, inputs):
    """Output k of Function cls, o, as PyTorch returns it (Note [Function outputs]): an
    input returned as is becomes a new view of it; a view is marked IN_CUSTOM_FUNCTION."""
    from ..tensor import IN_CUSTOM_FUNCTION, ViewMeta, wrap_as
    if id(o) in inputs:
        t = wrap_as(o._result_class, o._data, o._storage)
        t._base = o if o._view is None else o._base   # requires_grad follows the base
        t._view = ViewMeta(IN_CUSTOM_FUNCTION, o._storage.version, cls.__name__, k)
        return t
    if o._view is not None:
        o._view.creation = IN_CUSTOM_FUNCTION
        o._view.op_name = cls.__name__
        o._view.out_index = k
    return o


class PyLayer:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads)."""

    _backward_cls = PyLayerNode

    def __init_subclass__(cls, **kwargs):
        # PyTorch: each Function has its own node class, `<Name>Backward`
        # (Function._backward_cls); grad_fn is an instance of it
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(cls.__name__ + "Backward", (PyLayerNode,), {"__slots__": ()})

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """Computes the outputs from the inputs; a subclass must define it."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Gradients of the inputs from those of the outputs; a subclass must define it."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward(ctx, *args) and records a node whose backward is backward(ctx, *grads)
        (Note [Function outputs])."""
        from .inplace import attach_outputs, bump_dirty
        from ..tensor import DEFAULT, MULTI_OUTPUT, Tensor
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
        if dirty - {id(o) for o in outs}:
            raise RuntimeError(_DIRTY_NOT_RETURNED)
        inputs = {id(t) for t in tensors}
        if need:   # PyTorch: a view that is no input is refused, another tensor only warned
            for d in ctx._dirty:
                if isinstance(d, Tensor) and id(d) not in inputs:
                    if d._view is not None:
                        raise RuntimeError(_DIRTY_NOT_INPUT)
                    warnings.warn(_DIRTY_NOT_INPUT, UserWarning, stacklevel=2)
        non_diff = {id(t) for t in ctx._non_diff}
        if need and len(outs) > 1 and any(isinstance(d, Tensor) and d._view is not None
                                          for d in ctx._dirty):
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, "
                "your Function cannot return more than one Tensor. This is not supported by "
                "the current autograd engine. You should either make sure the input is not a "
                "view (using .clone() for example) or make your Function only return one "
                "Tensor (potentially splitting it into two Functions: one doing the inplace "
                "that returns a single Tensor and a second one that does the other "
                "operations). You can ask on the forum https://discuss.pytorch.org/ if you "
                "need help to do this change.")
        # PyTorch's private ctx._is_pure_view: the output is a plain view of the one input,
        # so an in-place op on it replays the view (CopySlices) instead of being refused
        pure = need and getattr(ctx, "_is_pure_view", False)
        if pure and (len(tensors) != 1 or sum(isinstance(o, Tensor) for o in outs) != 1):
            raise RuntimeError("Pure view custom Function can only have one input Tensor and "
                               "one output Tensor. Open an issue if you need to support more.")
        new_outs = []
        for k, o in enumerate(outs):
            if isinstance(o, Tensor) and id(o) not in dirty:
                if id(o) in non_diff and id(o) in inputs:
                    o = o.detach()   # PyTorch: a detached alias of the input
                elif not (pure and id(o) not in inputs):
                    o = _custom_view(cls, o, k, inputs)
                elif o._view is not None:
                    o._view.creation = DEFAULT   # made under forward's no_grad: still plain
            new_outs.append(o)
        # ctx.mark_non_differentiable named the tensors forward returned: follow the aliases
        non_diff |= {id(n) for n, o in zip(new_outs, outs) if id(o) in non_diff}
        outs = tuple(new_outs)
        out = outs[0] if single else outs
        dirty_view = bump_dirty(cls.__name__, ctx._dirty, outs, tensors, need)   # Note [Dirty inputs]
        if need:
            diff = [o for o in outs if isinstance(o, Tensor) and id(o) not in non_diff
                    and o._data.dtype.kind == "f"]
            if len(diff) > 1:   # several differentiable outputs: their views are MULTI_OUTPUT
                for o in outs:
                    if isinstance(o, Tensor) and o._view is not None:
                        o._view.creation = MULTI_OUTPUT
            ctx._save()
            node = cls._backward_cls(edges, tuple((t._data.shape, t._data.dtype) for t in tensors))
            node.cls = cls
            node.ctx = ctx
            node.n_out = len(outs)
            node.out_meta = tuple((o._data.shape, o._data.dtype) for o in outs if isinstance(o, Tensor))
            # positions of the tensor arguments among forward's arguments (PyTorch's backward
            # returns one gradient per argument)
            node.arg_pos = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            node.n_args = len(args)
            ctx._node = node
            attach_outputs(node, outs, dirty, dirty_view, non_diff)   # Note [Dirty inputs]
        else:
            ctx._node = None
        return out


Function = PyLayer
