"""The Inplace mechanism in one file: what a write into an existing tensor must check, what
it records, and how autograd stays exact afterwards.

Notes defined in this file, in the order of one call such as `x.mul_(w)`:
  Note [Check, then write]          every check that can fail runs before the write
  Note [Leaf and view rules]        what autograd refuses to modify in place, and why
  Note [View creation meta]         views made under no_grad or by split/unbind: unwritable
  Note [Memory overlap]             overlapping destinations and operands are refused
  Note [Writes into expanded tensors]  the two writes torch allows there (PyTorch door)
  Note [In-place shape and dtype]   an in-place op never changes shape or dtype
  Note [Saving the old value]       a copy only when a needed gradient reads the old value
  Note [Version bump]               one bump per mutating call, logged for error messages
  Note [Rebase history]             the tensor's gradient then flows into the op's node
  Note [CopySlices]                 in place on a view rewrites its base's history
  Note [View grad_fn regeneration]  a stale view rebuilds its grad_fn from its base
  Note [Dirty inputs]               a custom Function's mark_dirty follows the same rules
  Note [Metadata in-place ops]      reshape_, t_, unsqueeze_ ...: same object, new window
  Note [Where dispatch_inplace lives]  the dispatcher stays in ops/registry.py, and why

Callers: ops/registry.py (dispatch_inplace and dispatch_out: every declared in-place op and
every out=), ops/indexing.py (setitem, the indexed in-place ops, the metadata in-place ops),
autograd/function.py (mark_dirty), tensor.py (grad_fn of a view), optimizer/ and nn/
(updates under no_grad: bump only). Saved tensors and the provenance of a mutation are in
autograd/saved.py.
"""
from __future__ import annotations

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from . import grad_mode
from .errors import (ArgTypeError, ArgValueError, GraphReleasedError, InplaceLeafError,
                     InplaceViewError)
from .node import Node, _released_message
from ..ops import registry as _R   # read at call time only: the registry imports this file
from ..tensor import (DEFAULT, IN_CUSTOM_FUNCTION, INFERENCE_MODE, MULTI_OUTPUT, NO_GRAD_MODE,
                      Tensor)

_STATE = grad_mode.STATE


def _views():
    # ops/views.py imports the registry, which imports this file: it is looked up at call time
    from ..ops import views
    return views


# --------------------------------------------------------------------------- checks
# Note [Check, then write]
# Every check that can fail (autograd rules, broadcast shape, dtype cast, memory overlap,
# the op's own argument checks) runs before the kernel touches self; `validate_inplace` is
# that step for the declared ops, and the hand-written writers (setitem, the metadata ops,
# optimizers) keep the same order. The kernel itself must not fail on checked inputs. So an
# op that raises leaves data, shape, dtype and version unchanged.


def records_grad(self, args):
    """Whether writing into `self` from `args` is recorded for autograd: grad mode is on, self
    is floating and some operand needs a gradient. An integer or bool result is not
    differentiable: writing a float tensor that needs a gradient into it (copy_) records
    nothing, as in PyTorch."""
    sd = self._data.dtype
    if not _STATE.enabled or not (_dt.is_float(sd) or sd.kind == "c"):   # Note [Complex dtypes]
        return False
    for a in args:
        if isinstance(a, Tensor) and a.requires_grad:
            return True
    return False


def validate_inplace(op, args, attrs, op_name, need_grad):
    """Every check of a declared in-place op (Note [Check, then write]); returns the dtype the
    kernel computes in (pointwise ops), or what op.check returned."""
    self = args[0]
    grad_mode.check_inference(self, op_name)
    if need_grad:
        check_inplace_autograd(self, op_name)
        if self._view is not None and self._data.dtype != self._base._data.dtype:
            _cross_dtype_view(self, op_name)
        if not op.differentiable:
            # keeping the old history would give a silently wrong gradient
            raise RuntimeError(
                f"`{op_name}` has no derivative, so it cannot modify a tensor that needs a "
                "gradient (its old history would be used as if nothing changed). Fix: run it "
                "under oar.no_grad() on a detached tensor, or use the out-of-place op.")
    if op.kind == "pointwise":
        rdt = check_pointwise_inplace(op, args, op_name, attrs)
        if op.check is not None:
            op.check(op_name, args, attrs, rdt)
    elif op.check is not None:
        rdt = op.check(self, args, attrs, op_name)
    else:
        rdt = None
    if not op.fill_like:
        check_writable(self, op_name, op.expanded_write)
    if not op.own_overlap_check:
        for a in args[1:]:
            if isinstance(a, Tensor):
                check_overlap(self, a, op_name)
    return rdt


# Note [Leaf and view rules]
# When a gradient is needed (`records_grad`), check_inplace_autograd refuses, before anything
# is written:
# - a leaf that requires grad: its .grad is the gradient of the value the user made, and
#   overwriting that value would lose it (PyTorch raises before the write, Paddle after it;
#   oar raises before, with InplaceLeafError, which derives from both frameworks' classes);
# - a view of such a leaf, for the same reason. A view with history whose base lost its own
#   (base.detach_()) counts as a view of a leaf;
# - a view that is not DEFAULT (Note [View creation meta]).
# Everything else may be written: a non-leaf takes the op's node as its new history (Note
# [Rebase history]); a DEFAULT view of a non-leaf rewrites its base's (Note [CopySlices]).
# Under no_grad every write is allowed: that is how parameters are updated and initialised.

# Note [View creation meta]
# A view records how it was made (tensor.py ViewMeta.creation), PyTorch's CreationMeta.
# DEFAULT views may be modified in place under autograd (the base's history is rewritten,
# Note [CopySlices]). The others cannot, because their graph cannot be rewritten
# unambiguously: NO_GRAD_MODE (made under no_grad), INFERENCE_MODE (a view of a normal
# tensor made under inference_mode, Note [Inference tensors]), MULTI_OUTPUT (one of several
# outputs: split/chunk/unbind, or a custom Function with several differentiable outputs)
# and IN_CUSTOM_FUNCTION (a custom Function's output that is a view of its input, or an input
# returned as is: autograd/function.py; rewriting it would bypass the Function's backward).
# An in-place op on them under autograd, or a use after their base changed (Note [View
# grad_fn regeneration]), raises InplaceViewError in PyTorch's words (`_view_error`). Under
# no_grad the write itself is allowed (PyTorch's check runs only when grad is recorded); the
# siblings then raise on next use, as in PyTorch.


def check_inplace_autograd(self, op_name):
    """Note [Leaf and view rules] for writing into `self` when a gradient is needed."""
    meta = self._view
    if meta is not None:
        if meta.creation != DEFAULT:
            raise InplaceViewError(_view_error(self, meta, direct=True))
        base = self._base
        # a view with history whose base lost its own (detach_) counts as a view of a leaf
        if base.grad_fn is None and (base.requires_grad or self._grad_fn is not None):
            fmt_shape = _R.fmt_shape
            raise InplaceLeafError(_leaf_words(
                self, base, "a view of a leaf Variable that requires grad is being used in an "
                "in-place operation",
                f"`{op_name}` writes into a view (shape {fmt_shape(self._data.shape)}) of a leaf "
                f"tensor of shape {fmt_shape(base._data.shape)} ({base.dtype.name}) that "
                "requires grad. Fix: do the update under `with oar.no_grad():` (parameter "
                "updates, initialisation), or clone the leaf first: `y = x.clone()`."))
    if self._requires_grad and self.grad_fn is None:
        raise InplaceLeafError(_leaf_words(
            self, self, "a leaf Variable that requires grad is being used in an in-place "
            "operation",
            f"`{op_name}` would overwrite a leaf tensor of shape "
            f"{_R.fmt_shape(self._data.shape)} ({self.dtype.name}) that requires grad, and its "
            "gradient would be lost. Fix: do the update under `with oar.no_grad():` "
            "(parameter updates, initialisation), or work on a copy: `y = x.clone()` then "
            f"`y.{op_name}(...)`."))


def _leaf_words(t, leaf, torch_words, explanation):
    """The leaf refusal in the words of t's door (Note [Leaf and view rules]): PyTorch's
    sentence first in the PyTorch door, Paddle's in the Paddle door, then oar's
    explanation and fix."""
    if t._result_class is not Tensor:
        return f"{torch_words}. {explanation.replace('oar.no_grad()', 'torch.no_grad()')}"
    return (f"(InvalidArgument) Leaf Var ({leaf._name_if_read}) that doesn't stop gradient "
            f"can't use inplace strategy: {explanation.replace('oar.no_grad()', 'paddle.no_grad()')}"
            f" ({torch_words}.)")


def _view_error(t, meta, direct):
    """PyTorch's message for a view that is not DEFAULT (Note [View creation meta]), written
    into directly (`direct`) or used after its base or another view of it was written: the
    same sentences as torch/csrc/autograd/variable.cpp handle_view_on_rebase, each ending in
    the fix."""
    c = meta.creation
    modified = "is being" if direct else "its base or another view of its base has been"
    if c in (NO_GRAD_MODE, INFERENCE_MODE) or t._grad_fn is None:
        prefix = (f"Output {meta.out_index} of {meta.op_name} is a view of a view which was "
                  "created in" if t._grad_fn is not None else "A view was created in")
        if c == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {meta.out_index} of {meta.op_name} is a view and {modified} modified inplace."
    if c == MULTI_OUTPUT:
        return (msg + " This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")
    if c == IN_CUSTOM_FUNCTION:
        return (msg + " This view was created inside a custom Function (or because an input "
                "was returned as-is) and the autograd logic to handle view+inplace would "
                "override the custom backward associated with the custom Function, leading to "
                "incorrect gradients. This behavior is forbidden. You can fix this by cloning "
                "the output of the custom Function.")
    block = "inference_mode" if c == INFERENCE_MODE else "no_grad"
    return (msg + " Given that this use case is ambiguous and error-prone, it is forbidden. You "
            "can clarify your code by moving both the view and the inplace either both inside "
            f"the {block} block (if you don't want the inplace to be tracked) or both outside "
            "(if you want the inplace to be tracked).")


# Note [Memory overlap]
# Two writes are refused whatever the grad mode, as PyTorch refuses them:
# - a destination in which several elements share one memory location (expand, a stride
#   0, as_strided or unfold with overlapping windows): the result would depend on the order
#   of the writes (`check_writable`). `has_internal_overlap` decides it from shape and
#   strides alone: sorted by stride, each dimension must step past everything the smaller
#   ones reach. Fill-like ops (fill_, zero_) write one value everywhere and skip this check;
# - an operand that partially overlaps the destination (same storage, shared memory, not the
#   identical window): NumPy would buffer it silently, with a result PyTorch does not give
#   (`check_overlap`). The identical window (`x.mul_(x)`) is fine. Ops with their own rule
#   (index_put_, setitem) set OpDef.own_overlap_check.

# Note [Writes into expanded tensors]
# PyTorch 2.13 lets two in-place ops write into a destination whose elements share memory
# (an expanded tensor), with a deprecation warning: index_put_ (so `x[idx] = v`) and
# masked_fill_ (so `x[mask] = s`); the write goes to the shared memory, so every alias shows
# it. Their OpDef.expanded_write holds torch's warning; the PyTorch door then warns and writes,
# the Paddle door refuses as before (Paddle's expand copies, so a write there changes one row
# where oar's shared memory would change all). Writes into one row of an expanded tensor
# (`x[0] = 1` selects a non-overlapping view) need no exception. When such a write needs a
# gradient (the expanded tensor is a view of a non-leaf), torch's backward refuses it: its
# CopySlices would copy into an overlapping window; the PyTorch door's CopySlices raises the
# same error at backward time (its result would depend on the order of the writes).


def check_writable(self, op_name, expanded_write=None):
    """Refuse writes where several elements share one memory location (Note [Memory overlap])."""
    if has_internal_overlap(self._data):
        if expanded_write is not None and self._result_class is not Tensor:
            # the PyTorch door warns and writes (Note [Writes into expanded tensors])
            import warnings
            warnings.warn(expanded_write, UserWarning, stacklevel=4)
            return
        raise RuntimeError(
            f"unsupported operation: `{op_name}` writes into a tensor of shape "
            f"{_R.fmt_shape(self._data.shape)} with strides {list(self.stride())} in which more "
            "than one element refers to a single memory location (an expanded or stride-0 "
            "tensor). Fix: clone() the tensor before performing the operation.")


def has_internal_overlap(a):
    """Whether two elements of the ndarray `a` share a memory location (Note [Memory overlap])."""
    if a.size == 0 or a.flags.forc:   # dense in C or Fortran order: no two elements meet
        return False
    strides = a.strides
    shape = a.shape
    dims = [(abs(st), n) for st, n in zip(strides, shape) if n > 1]
    if not dims:
        return False
    dims.sort()
    extent = a.itemsize
    for st, n in dims:
        if st < extent:
            return True
        extent = st * (n - 1) + extent
    return False


def check_overlap(self, other, op_name):
    """Partial overlap between an operand and the destination is refused, full is fine
    (Note [Memory overlap])."""
    if other._storage is not self._storage or other is self:
        return
    a, b = self._data, other._data
    if a.size == 0 or b.size == 0:
        return
    if (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.strides == b.strides and a.shape == b.shape):
        return
    if np.shares_memory(a, b):
        raise RuntimeError(
            f"unsupported operation: some elements of the input tensor (shape "
            f"{_R.fmt_shape(b.shape)}, strides {list(other.stride())}) and the written-to tensor "
            f"(shape {_R.fmt_shape(a.shape)}, strides {list(self.stride())}) of `{op_name}` refer "
            "to a single memory location. Fix: clone() the input before the operation.")


# Note [In-place shape and dtype]
# An in-place op never changes its tensor's shape or dtype: the operands (and tensor attrs,
# clip's min/max) must broadcast to exactly self's shape, and the result type (Note [Type
# promotion]) must cast safely into self's dtype: a float result into an int tensor is
# refused, an int result into a float tensor is fine. PyTorch behaves so; Paddle may change
# the dtype. `check_pointwise_inplace` returns the result dtype the kernel computes in.


def check_pointwise_inplace(op, args, op_name, attrs=()):
    """Note [In-place shape and dtype] for a pointwise op writing into args[0]; returns the
    result dtype."""
    self = args[0]
    x = self._data
    shapes = None
    for a in (*args[1:], *attrs):   # tensor attrs (clip's min/max) broadcast too
        if isinstance(a, Tensor) and a._data.shape != x.shape:
            shapes = [a2._data.shape for a2 in (*args, *attrs) if isinstance(a2, Tensor)]
            break
    fmt_shape = _R.fmt_shape
    if shapes is not None:
        b = _R.broadcast_shapes(op_name, shapes)   # Note [Broadcast errors]
        if b != x.shape:
            others = ", ".join(fmt_shape(s) for s in shapes[1:])
            raise ArgValueError(
                f"The shape of broadcast output {fmt_shape(b)} "
                f"is different from that of inplace tensor {fmt_shape(x.shape)} in the Inplace "
                f"operation `{op_name}` (operand shapes {others}): output with shape "
                f"{fmt_shape(x.shape)} doesn't match the broadcast shape {fmt_shape(b)}. An "
                "in-place op never changes its tensor's shape. Fix: use the out-of-place op "
                f"(`z = {op.name}(x, y)`) or make the operand broadcast to {fmt_shape(x.shape)}.")
    rdt = _R.pointwise_dtype(op, args)
    if rdt != x.dtype and not _dt.can_cast(rdt, x.dtype):
        name = _dt.from_numpy_dtype(rdt).name
        raise ArgTypeError(
            f"result type {name} can't be cast to the desired output "
            f"type {self.dtype.name} of `{op_name}` (operand dtypes "
            f"{[str(a._data.dtype) if isinstance(a, Tensor) else type(a).__name__ for a in args]})."
            " An in-place op never changes its tensor's dtype. Fix: cast first "
            f"(`x = x.astype('{name}')`) or use the out-of-place op.")
    return rdt


# --------------------------------------------------------------------------- the old value
# Note [Saving the old value]
# What the backward reads decides what an in-place op costs. A backward that reads only the
# result (relu_, sigmoid_, tanh_, exp_: OpDef.save_out) saves self after the write, at the
# bumped version: legal, and no extra memory. A backward that reads self's old value (sin_;
# mul_ when the other operand needs a gradient: 0 is in OpDef.save[i] for an input i that
# needs one) gets a copy made before the kernel runs, and only then (`old_value`). The copy
# is a recorded clone, so a create_graph backward differentiates through it.


def old_value(op, args):
    """A copy of args[0] before the write when a needed gradient reads it, else None
    (Note [Saving the old value])."""
    save = op.save
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a.requires_grad and 0 in save.get(i, ()):
            with grad_mode.set_grad_enabled(True):
                return _R.OPS["clone"].call(args[0])
    return None


# --------------------------------------------------------------------------- the bump
# Note [Version bump]
# Every call that writes into a storage bumps its version (Note [Version counter]) exactly
# once, after the write, so a call that raised bumped nothing (Note [Check, then write]).
# `bump` is that one step: declared in-place ops, out=, setitem, the metadata in-place ops,
# mark_dirty, optimizer steps and set_state_dict all call it. It also logs the mutation
# when a saved tensor watches the storage (Note [Mutation provenance]). The generated fast
# paths (Note [Fast path]) inline the same two statements.


def bump(t, op_name):
    """Note [Version bump]: t's storage changed by `op_name`."""
    st = t._storage
    st.version += 1
    if st.watched:
        st.log_mutation(op_name)


# --------------------------------------------------------------------------- history
# Note [Rebase history]
# After an in-place op, self's gradient flows into `node`, the op's node, whose edge 0 was
# taken from self before the write: self's previous producer. So the old history is not
# lost, it is one step further back. A tensor that retains its gradient keeps retaining the
# gradient of its new value (Note [Retained gradients]).
# For a view, the base's history is rewritten instead (Note [CopySlices]), and the view's
# own grad_fn is then rebuilt from the base (Note [View grad_fn regeneration]) at once, as
# PyTorch does, not on next access: a later base.detach_() must not take the view's history
# with it.


def rebase_history(self, node, base_edge=None):
    """Note [Rebase history]: self's gradient now flows into `node`; `base_edge` is self's
    base's edge taken before the write (views only)."""
    if self._view is None:
        old, old_nr = self._grad_fn, self._out_nr
        self._grad_fn = node
        self._out_nr = 0
        if self._retains_grad:   # .grad is the gradient of the new value
            self._move_retain(old, old_nr, node)   # Note [Retained gradients]
        return
    base = self._base
    cs = CopySlices(base, self, node, base_edge)
    if base._retains_grad:
        base._move_retain(base._grad_fn, base._out_nr, cs)
    base._grad_fn = cs
    base._out_nr = 0
    self._view.attr_version = -1   # stale: rebuilt now (the retained gradient moves with it)
    self._regenerate_view_grad_fn()


# Note [CopySlices]
# An in-place op on a view v of a base b (PyTorch's CopySlices). The op's node fn has edge 0
# = v's old producer, but b's gradient must also reach b's old producer for the elements
# outside v. CopySlices becomes b's grad_fn, with edges (b's old edge, fn's other edges):
# given b's gradient g, the region of g that v covers goes through fn and fn's gradient for
# its input 0 is written back into that region (zeros when it is None); the rest of g passes
# through unchanged; fn's gradients for its other inputs (the operands) pass out as they are.
# The geometry of b and v (shape, strides, offset in storage elements, Note [View geometry])
# is taken at write time, so overlapping and strided views route exactly. Under
# create_graph the same result is built from differentiable ops (gather, scatter, a 0/1
# mask). Released after a backward without retain_graph, it drops fn (Note [Second
# backward]) but not fn's saved tensors: another path (fn's output unpacked under
# create_graph) may still reach fn.


class CopySlices(Node):
    """Backward of an in-place op applied to a view, installed as the base's grad_fn
    (Note [CopySlices])."""
    __slots__ = ("base_geom", "view_geom", "fn", "dtype", "torch_door")
    name = "CopySlices"

    def __init__(self, base, view, fn, base_edge):
        Node.__init__(self, (base_edge,) + tuple(fn.next_edges[1:]),
                      ((base._data.shape, base._data.dtype),) + tuple(fn.input_meta[1:]))
        geometry = _views().geometry
        self.base_geom = geometry(base)
        self.view_geom = geometry(view)
        self.fn = fn
        self.dtype = base._data.dtype
        self.torch_door = view._result_class is not Tensor

    def apply(self, grad):
        """(gradient of the base's old value, gradients of fn's other inputs)."""
        if self.released:
            raise GraphReleasedError(_released_message(self.name))
        if self.torch_door and _views()._overlaps(*self.view_geom[:2]):
            # Note [Writes into expanded tensors]: torch's CopySlices copies the view's
            # gradient into an as_strided window of the base's, which refuses a window whose
            # elements share memory; so does the PyTorch door (the result would depend on
            # the order of the writes)
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation. (CopySlices: backward of an in-place op on an expanded view; clone "
                "the expanded tensor before writing into it.)")
        if grad_mode.is_grad_enabled():
            return self._apply_differentiable(grad)
        V = _views()
        bg, vg = self.base_geom, self.view_geom
        lo = min(V._span(bg)[0], V._span(vg)[0])
        hi = max(V._span(bg)[1], V._span(vg)[1])
        buf = _xp.array_module(grad._data).zeros(hi - lo + 1, self.dtype)   # grad's place
        V._window(buf, bg, lo)[...] = grad._data
        region = V._window(buf, vg, lo)
        res = self.fn.apply(Tensor._wrap(_xp.array(region)))
        region[...] = 0 if res[0] is None else res[0]._data
        out0 = Tensor._wrap(_xp.array(V._window(buf, bg, lo), order="C"))
        return (out0,) + tuple(res[1:])

    def _apply_differentiable(self, grad):
        """The same result built from differentiable ops (create_graph=True): the view's
        part of the gradient goes through fn's backward, the rest passes through."""
        V = _views()
        geoms = (self.base_geom, self.view_geom)
        region = _R.dispatch(V.GATHER_OP, (grad,), geoms)
        res = self.fn.apply(region)
        ones = _xp.array_module(grad._data).ones(self.view_geom[0], self.dtype)
        keep = (V.scatter_view_grad(ones, *geoms, self.dtype) == 0).astype(self.dtype)
        out0 = grad * Tensor._wrap(keep)
        if res[0] is not None:
            out0 = out0 + _R.dispatch(V.SCATTER_OP, (res[0],), geoms)
        return (out0,) + tuple(res[1:])

    def release(self):
        """Note [Second backward]: drop fn (PyTorch's CopySlices drops its op), so a second
        backward through this node raises whatever fn saved; fn keeps its saved tensors for
        any other path that reaches it (its output unpacked under create_graph=True)."""
        self.released = True
        self.fn = None


# Note [View grad_fn regeneration]
# A view's grad_fn was built when the view was made, or last rebuilt, at the storage version
# ViewMeta.attr_version. When the version has changed since (the base or another view of it
# was modified in place), the view's value depends on the base's new history, so reading
# Tensor.grad_fn rebuilds it: an as_strided-style node from the base's current edge
# (ops/views.py make_as_strided_node, Note [View geometry]). A view that is not DEFAULT
# cannot be rebuilt unambiguously and raises (Note [View creation meta]); a view that had no
# history, of a base that needs no gradient, gets none. A retained gradient moves to the new
# node (Note [Retained gradients]).


def _cross_dtype_view(view, what):
    """A view of another dtype than its base (Tensor.real, view_as_real: Note [Complex
    dtypes]) cannot be rewritten in its base's history: the view geometry of Note [View
    geometry] counts elements of one dtype. Refused, never a silently wrong gradient."""
    raise InplaceViewError(
        f"{what}: the {view._data.dtype} view of a {view._base._data.dtype} tensor that "
        "needs a gradient cannot take part in an in-place update in oar (its base's history "
        "cannot be rewritten across dtypes). Fix: use out-of-place ops (e.g. "
        "torch.complex(z.real * 2, z.imag)), or do the update under no_grad.")


def regenerate_view_grad_fn(view):
    """Note [View grad_fn regeneration]: the view's grad_fn rebuilt from its base's history
    (or None), stored and returned."""
    meta = view._view
    base = view._base
    if view._grad_fn is None and not base.requires_grad:
        return None
    if meta.creation != DEFAULT:
        raise InplaceViewError(_view_error(view, meta, direct=False))
    if view._data.dtype != base._data.dtype:
        _cross_dtype_view(view, "a modification of its base")
    old, old_nr = view._grad_fn, view._out_nr
    fn = _views().make_as_strided_node(base, view)
    view._grad_fn = fn
    view._out_nr = 0
    meta.attr_version = view._storage.version
    if view._retains_grad:   # Note [Retained gradients]
        view._move_retain(old, old_nr, fn)
    return fn


# --------------------------------------------------------------------------- mark_dirty
# Note [Dirty inputs]
# A custom Function's forward (autograd/function.py) may modify inputs in place and declare
# them with ctx.mark_dirty. They follow a built-in in-place op's rules, checked after the
# forward ran (it is user code): Note [Leaf and view rules] when a gradient is needed, then
# one bump each (the write happened either way, Note [Version bump]). With a gradient, a
# dirty tensor that is not a view takes the Function's node as its new history and a
# retained .grad follows its new value (Note [Retained gradients]); a dirty view rewrites its
# base's history around the node (Note [Rebase history]), which is supported when the view
# is the Function's first tensor argument and its only output: the shape CopySlices routes,
# whose wrapped node's input 0 is the view that was written.


def bump_dirty(fn_name, dirty, outs, tensors, need_grad):
    """Note [Dirty inputs], before the node exists: the rules and the bump for each dirty
    tensor; returns the dirty view whose base's history is to be rewritten, or None."""
    dirty_view = None
    for d in dirty:
        if need_grad:
            check_inplace_autograd(d, fn_name)
            if d._view is not None:
                dirty_view = _dirty_view(fn_name, d, outs, tensors)
        bump(d, fn_name)
    return dirty_view


def attach_outputs(node, outs, dirty_ids, dirty_view, non_diff=()):
    """Note [Dirty inputs], once the node exists: each floating output's gradient flows into
    output i of `node` (not those marked non-differentiable: Note [Function outputs]); a
    dirty view rewrites its base's history instead."""
    if dirty_view is not None:
        rebase_history(dirty_view, node, dirty_view._base._edge())
        return
    for i, o in enumerate(outs):
        if isinstance(o, Tensor) and _dt.is_float(o._data.dtype) and id(o) not in non_diff:
            old, old_nr = o._grad_fn, o._out_nr
            o._grad_fn = node
            o._out_nr = i
            if o._retains_grad and id(o) in dirty_ids:
                # .grad follows the new value (Note [Retained gradients])
                o._move_retain(old, old_nr, node, i)


def _dirty_view(fn_name, view, outs, tensors):
    """A view marked dirty: supported when it is the Function's only output and its first
    tensor argument (Note [Dirty inputs])."""
    if len(outs) != 1 or outs[0] is not view or tensors[0] is not view:
        raise NotImplementedError(
            f"{fn_name}: mark_dirty on a view is supported when the view is the first "
            "tensor argument and the only output. Fix: pass the base tensor, or clone the "
            "view first")
    return view


# --------------------------------------------------------------------------- metadata ops
# Note [Metadata in-place ops]
# reshape_, squeeze_, unsqueeze_, flatten_, transpose_, t_ and swapdims_ change a tensor's
# shape and strides, not its data: the object stays, and its ndarray window is replaced by
# the out-of-place view's, over the same storage (a new shape that would need a copy is
# refused before anything changes). They follow Note [Leaf and view rules] and bump the
# version once (Note [Version bump]). A tensor that is not a view takes the view op's node
# as its history; the node is recorded when a gradient is needed, and also under no_grad
# when the tensor already has history, so that history's shapes keep matching the tensor. A
# view keeps its grad_fn, which the bump makes stale: it is rebuilt from the base on next use
# (Note [View grad_fn regeneration]).


def metadata_inplace(x, name, out_of_place, args, kwargs, bump_version=True):
    """Note [Metadata in-place ops]: x takes the window of out_of_place(x, *args, **kwargs).
    bump_version=False: for a caller that writes x (not a view) at once with an op that bumps
    (Paddle's flattening cumsum_, Note [Paddle's flattening cumsum_ and cumprod_])."""
    grad_mode.check_inference(x, name)
    need_grad = grad_mode.is_grad_enabled() and x.requires_grad
    if need_grad:
        check_inplace_autograd(x, name)
    # a non-leaf keeps a history whose shapes match it, even under no_grad
    track = need_grad or (x._view is None and x._grad_fn is not None)
    with grad_mode.set_grad_enabled(track):
        y = out_of_place(x, *args, **kwargs)
    if y._storage is not x._storage:
        raise ValueError(
            f"{name}: the new shape {_R.fmt_shape(y._data.shape)} cannot be a view of this "
            f"tensor (shape {_R.fmt_shape(x._data.shape)}, strides {list(x.stride())}), so it "
            "cannot change in place without a copy. Fix: `x = x.reshape(...)` or "
            "`x = x.contiguous()` first.")
    x._data = y._data
    if bump_version or x._view is not None:   # a view's stale grad_fn is found by the bump
        bump(x, name)
    if x._view is None:
        x._grad_fn = y._grad_fn if track else x._grad_fn
        x._out_nr = 0
    return x


# --------------------------------------------------------------------------- dispatch
# Note [Where dispatch_inplace lives]
# ops/registry.py dispatch_inplace stays beside dispatch, dispatch_view and dispatch_out, as
# a short list of named steps: Note [Fast path], validate_inplace (Note [Check, then write]),
# old_value, the kernel, bump, rebase_history. The steps that make up the Inplace mechanism
# live here because they have several callers (dispatch_out, setitem and the indexed ops,
# the metadata in-place ops, mark_dirty, optimizers); the steps that read OpDef internals
# (the fast path, node building, the kernel call and its dtype) stay with the declarations
# they read. Moving the dispatcher here would make this file depend on the registry's
# internals while the registry imports this file to build every in-place spelling; as it
# is, this file reads the registry only inside functions, at call time.
