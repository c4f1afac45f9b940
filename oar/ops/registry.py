"""One declaration per op -> every spelling.

An OpDef says: the kernel (writes into `out` when given one), the backward formula (a few
lines of oar ops), and what the backward needs: `save[i]` lists the inputs the gradient of
input i needs; `save_out` lists the inputs whose gradient needs the result. From that the
registry generates the function form `oar.op(...)`, the method `x.op(...)`, the in-place
forms `oar.op_(x, ...)` / `x.op_(...)`, the operators, and the reflected operators.
Generated wrappers have the op's exact Python signature (built with exec), so a call costs
one function call plus the dispatch below: no argument binding, no per-call dicts.

Note [Check, then write]
dispatch_inplace runs every check that can fail (autograd rules, broadcast shape, dtype
cast, memory overlap) before the kernel touches self. The kernel itself must not fail on
checked inputs. So an op that raises leaves data, shape, dtype and version unchanged.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as _dt
from .. import storage as _storage
from . import args as _args
from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError, InplaceLeafError, InplaceViewError
from ..autograd.node import OpNode, SavedTensor
from ..tensor import DEFAULT, MULTI_OUTPUT, NO_GRAD_MODE, Tensor, ViewMeta, _view_error

_STATE = grad_mode.STATE
_UNSET = object()
OPS: dict = {}          # name -> OpDef
FUNCTIONS: dict = {}    # public function name -> function (installed into oar/__init__)
_Number = (int, float, bool, np.generic)


class OpDef:
    __slots__ = ("name", "kernel", "backward", "save", "save_out", "kind", "inputs",
                 "attrs", "differentiable", "check", "node_name", "result_dtype",
                 "inplace_ok", "method", "function", "call", "fill_like", "own_overlap_check",
                 "fast", "fast_attrs", "fast_const", "view_name", "optional", "number_attrs", "promote",
                 "doc")

    def __init__(self, name, kernel, backward=None, save=None, save_out=(), kind="general",
                 inputs=("x",), attrs=(), check=None, result_dtype=None, inplace=False,
                 method=True, function=True, node_name=None, fill_like=False,
                 own_overlap_check=False, fast=None, optional=(), number_attrs=None, promote=None,
                 doc=None):
        self.name = name
        # one line saying what the op computes; every spelling's docstring is built from it
        # (the in-place spelling adds that it writes into its first input and returns it)
        self.doc = doc
        self.kernel = kernel
        self.backward = backward
        self.save = save or {}
        self.save_out = frozenset(save_out)
        self.kind = kind
        self.inputs = inputs
        self.attrs = attrs
        self.differentiable = backward is not None
        self.check = check
        self.result_dtype = result_dtype
        self.inplace_ok = inplace
        self.method = method
        self.function = function
        self.node_name = node_name or "".join(p.title() for p in name.split("_")) + "Backward"
        self.fill_like = fill_like
        self.own_overlap_check = own_overlap_check   # op.check handles operand overlap
        # Note [Fast path]: `fast(*arrays, *fast_const, out=...)` computes the op's forward
        # exactly when every tensor operand is floating with one dtype, numbers are Python
        # floats/ints and attrs are the defaults: the result dtype is then the input dtype and
        # promotion cannot fail. When, in addition, no gradient is needed, the autograd rules
        # and (for in-place into a root tensor of the same shape) the broadcast, dtype and
        # overlap checks cannot fail either, so the generated wrappers call it directly;
        # `dispatch` also uses it for ops it records.
        self.fast = fast
        self.fast_const = ()     # constant trailing operands of `fast` (relu: maximum(x, 0))
        self.fast_attrs = tuple(d for _, d in attrs)
        self.view_name = self.node_name.replace("Backward", "")
        self.call = None
        # Note [Argument layer]: inputs that may be None (an absent bias); every other
        # input must be a tensor or a number. number_attrs: attrs that must be real numbers
        # (or None where the default is None); by default every attr whose default is an
        # int or a float (not a bool). Attrs named `axis` are range-checked and normalised.
        self.optional = frozenset(optional)
        if number_attrs is None:
            number_attrs = tuple(a for a, d in attrs
                                 if isinstance(d, (int, float)) and not isinstance(d, bool))
        self.number_attrs = tuple(number_attrs)
        self.promote = promote      # indices of the operands that decide a pointwise result dtype


# --------------------------------------------------------------------------- helpers
def as_tensor(value, like=None):
    if isinstance(value, Tensor):
        return value
    from .creation import to_tensor
    if like is not None and isinstance(value, _Number):
        # the number as a 0-d tensor of the dtype it would give with `like` (Note [Type
        # promotion]): where(cond, 1.0, int_tensor) is float32, as in PyTorch
        dt = _dt.promote((like._data.dtype,), (), (_dt.scalar_kind(value),))
        return Tensor._wrap(np.asarray(value, dtype=dt))
    return to_tensor(value)


def operand(value, op=None, name="other", op_name=None):
    """Tensors and Python numbers pass; array-likes become tensors. Note [Argument layer]:
    None, strings and other non-numbers are refused here (never turned into NaN or an
    object array), with an error naming the op and the argument."""
    c = value.__class__
    if c is int or c is float or c is bool or isinstance(value, Tensor):
        return value
    opname = op_name or (op if isinstance(op, str) else (op.name if op is not None else "operand"))
    if value is None:
        if op is not None and not isinstance(op, str) and name in op.optional:
            return None
        raise ArgTypeError(f"{opname}(): argument '{name}' must be a Tensor or a number, got "
                           "None. Fix: pass a tensor or a Python number.")
    if isinstance(value, (np.generic, numbers.Number)):
        return _args.number(value, opname, name)
    if isinstance(value, (str, bytes, dict, set)) or not (
            isinstance(value, (list, tuple, np.ndarray)) or hasattr(value, "__array__")):
        raise ArgTypeError(f"{opname}(): argument '{name}' must be a Tensor or a number, got "
                           f"{type(value).__name__} {value!r:.60}")
    try:
        return as_tensor(value)
    except (TypeError, ValueError) as e:
        raise ArgTypeError(f"{opname}(): argument '{name}' must be a Tensor or a number; "
                           f"could not make a tensor from {type(value).__name__}: {e}") from e


def number_attr(value, op, name, allow_none=False):
    """Note [Argument layer] for a declared numeric attr (alpha, scale, p, ...): a real
    number, or a tensor (ops that take a tensor there handle it; others refuse it);
    never None or a string. Only reached when the value is not a plain int or float."""
    if value is None:
        if allow_none:
            return None
        raise ArgTypeError(f"{op}(): argument '{name}' must be a number, got None")
    if isinstance(value, Tensor):
        return value
    return _args.number(value, op, name)


def axis_attr(value, x, op, name="axis"):
    """Note [Argument layer] for a declared `axis` attr: normalised into [0, ndim) with a
    range check (a list of axes: also no repeats); None passes (all axes)."""
    if value is None:
        return None
    nd = x._data.ndim if isinstance(x, Tensor) else 0
    if isinstance(value, (list, tuple)):
        return _args.axes(value, nd, op, name)
    return _args.axis(value, nd, op, name)


def fmt_shape(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def broadcast_error(op_name, shapes):
    """Note [Broadcast errors]: operands that cannot broadcast raise ArgValueError (PyTorch
    RuntimeError, Paddle ValueError) in PyTorch's words, never NumPy's bare ValueError.
    Like PyTorch's infer_size, shapes are folded left to right: "tensor a" is the broadcast
    of the operands before "tensor b", and the dimension is counted in the result, from the
    right. Returns the error (the caller raises it)."""
    acc = tuple(shapes[0])
    for s in shapes[1:]:
        s = tuple(s)
        nd = max(len(acc), len(s))
        res = []
        for i in range(nd - 1, -1, -1):
            off = nd - 1 - i
            sa = acc[len(acc) - 1 - off] if off < len(acc) else 1
            sb = s[len(s) - 1 - off] if off < len(s) else 1
            if sa != sb and sa != 1 and sb != 1:
                return ArgValueError(
                    f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                    f"non-singleton dimension {i}: `{op_name}` got operands of shapes "
                    f"{', '.join(fmt_shape(x) for x in shapes)}, which cannot be broadcast "
                    "together. Fix: reshape or unsqueeze an operand so that each dimension "
                    "(aligned from the right) is equal or 1.")
            res.append(sa if sb == 1 else sb)
        acc = tuple(reversed(res))
    return None


def broadcast_shapes(op_name, shapes):
    """The broadcast shape of `shapes`, or Note [Broadcast errors]."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        err = broadcast_error(op_name, shapes)
        if err is None:
            raise
        raise err from None


def _fast_failed(op, arrays, exc):
    """A ValueError out of a fast kernel: a broadcast mismatch becomes Note [Broadcast
    errors]; anything else propagates unchanged."""
    shapes = [a.shape for a in arrays if isinstance(a, np.ndarray)]
    err = broadcast_error(op.name, shapes) if len(shapes) > 1 else None
    if err is None:
        raise exc
    raise err from None


def pointwise_dtype(op, args):
    """Result dtype: torch.result_type of the operands (Note [Type promotion] in dtypes.py),
    then the op's own rule (division and transcendental ops: floating; comparisons: bool)."""
    dims = []
    zeros = []
    skinds = []
    if op.promote is not None:
        args = [args[i] for i in op.promote]
    for a in args:
        if isinstance(a, Tensor):
            d = a._data
            (dims if d.ndim else zeros).append(d.dtype)
        elif a is not None:
            skinds.append(_dt.scalar_kind(a))
    rdt = _dt.promote(tuple(dims), tuple(zeros), tuple(skinds))
    if op.result_dtype is not None:
        rdt = op.result_dtype(rdt)
    return rdt


_INT_RANGE = {}


def int_scalars(arrays, rdt):
    """Python ints meeting an integer result dtype wrap around as in PyTorch
    (`int8 tensor * 1000`), instead of NumPy 2's OverflowError; a value beyond int64 still
    raises OverflowError, as in PyTorch."""
    if rdt.kind not in "iu":
        return arrays
    out = None
    for i, a in enumerate(arrays):
        if a.__class__ is not int:
            continue
        lo, hi = _INT_RANGE.get(rdt) or _INT_RANGE.setdefault(
            rdt, (int(np.iinfo(rdt).min), int(np.iinfo(rdt).max)))
        if not lo <= a <= hi:
            if out is None:
                out = list(arrays)
            if not -(1 << 63) <= a < (1 << 63):
                raise OverflowError(f"Python int {a} is too big to convert to int64")
            out[i] = np.array(a, dtype=np.int64).astype(rdt)
    return arrays if out is None else out


def zero_grad(g):
    """The gradient of an input that does not affect the result (an overwritten tensor, a
    piecewise-constant function): zeros like g and with no history, as PyTorch's
    zeros_like(grad). Not g * 0, which is nan where g is inf or nan."""
    return Tensor._wrap(np.zeros_like(g._data))


def float_result(rdt):
    return rdt if rdt.kind == "f" else _dt.DEFAULT_FLOAT.np


# --------------------------------------------------------------------------- autograd glue
def _needs_grad(args):
    for a in args:
        if isinstance(a, Tensor) and a.requires_grad:
            return True
    return False


def _make_node(op, args, attrs, self_old=None):
    """Build the node and save what the backward needs for the inputs that need a gradient."""
    edges = []
    meta = []
    needed = ()
    needs_out = False
    save = op.save
    for i, a in enumerate(args):
        if a.__class__ is _Tensor or isinstance(a, Tensor):
            d = a._data
            meta.append((d.shape, d.dtype))
            e = a._edge()
            edges.append(e)
            if e is not None:
                s = save.get(i)
                if s:
                    needed = needed + s
                if i in op.save_out:
                    needs_out = True
        else:
            meta.append(None)
            edges.append(None)
    node = OpNode(op, attrs, tuple(edges), tuple(meta))
    if needed:
        saved = [None] * len(args)
        for i in needed:
            src = self_old if (i == 0 and self_old is not None) else args[i]
            saved[i] = SavedTensor(src) if isinstance(src, Tensor) else src
        node.saved = saved
    return node, needs_out, needed


def _attach(node, out, needs_out):
    out._grad_fn = node
    out._out_nr = 0
    if needs_out:
        node.out_saved = SavedTensor(out, is_output=True)


# --------------------------------------------------------------------------- fast path
_Tensor = Tensor
_ndarray = np.ndarray
_FLOATS = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))


def _plain(t):
    """True when t certainly needs no gradient (cheap; views consult their root)."""
    if t._requires_grad or t._grad_fn is not None:
        return False
    if t._view is None:
        return True
    b = t._base
    return not b._requires_grad and b._grad_fn is None


def _fast_arrays(op, args, attrs, need_plain):
    """The operand arrays when Note [Fast path] applies, else None."""
    if attrs != op.fast_attrs:
        return None
    dt = None
    arrays = []
    for a in args:
        c = a.__class__
        if c is _Tensor:
            d = a._data
            if dt is None:
                if d.dtype not in _FLOATS:
                    return None
                dt = d.dtype
            elif d.dtype is not dt:
                return None
            if need_plain and not _plain(a):
                return None
            arrays.append(d)
        elif c is float or c is int:
            arrays.append(a)
        else:
            return None
    return arrays if dt is not None else None


# --------------------------------------------------------------------------- dispatch
def dispatch(op, args, attrs):
    """Normal op: new memory."""
    fast = op.fast
    if fast is not None:
        arrays = _fast_arrays(op, args, attrs, False)
        if arrays is not None:
            try:
                res = fast(*arrays, *op.fast_const)
            except ValueError as e:
                _fast_failed(op, arrays, e)
            if res.__class__ is not _ndarray:
                res = np.asarray(res)
            out = Tensor._wrap(res)
            if op.differentiable and _STATE.enabled and _needs_grad(args):
                node, needs_out, _ = _make_node(op, args, attrs)
                _attach(node, out, needs_out)
            return out
    if op.kind == "pointwise":
        shape = None
        for a in args:   # Note [Broadcast errors]
            if isinstance(a, Tensor):
                if shape is None:
                    shape = a._data.shape
                elif a._data.shape != shape:
                    broadcast_shapes(op.name, [t._data.shape for t in args if isinstance(t, Tensor)])
                    break
        rdt = pointwise_dtype(op, args)
        if op.check is not None:
            op.check(op.name, args, attrs, rdt)
        arrays = int_scalars([a._data if isinstance(a, Tensor) else a for a in args], rdt)
        try:
            res = op.kernel(None, rdt, *arrays, *attrs)
        except ValueError as e:   # a tensor attr (clip's min/max) that does not broadcast
            _fast_failed(op, list(arrays) + [a._data if isinstance(a, Tensor) else a
                                             for a in attrs], e)
    else:
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        res = op.kernel(*arrays, *attrs)
    if isinstance(res, tuple):
        outs = tuple(Tensor._wrap(_own(r)) for r in res)
        out = outs[0]
    else:
        outs = None
        out = Tensor._wrap(_own(res))
    if op.differentiable and _STATE.enabled and _needs_grad(args):
        node, needs_out, _ = _make_node(op, args, attrs)
        _attach(node, out, needs_out)
    return outs if outs is not None else out


def _own(arr):
    """Kernels may return a view of an input (e.g. a 0-d index); storages own their memory."""
    if not isinstance(arr, np.ndarray):
        return np.asarray(arr)
    if arr.base is not None and not arr.flags.owndata:
        return arr.copy()
    return arr


def check_inplace_autograd(self, op_name):
    """Autograd rules for writing into `self` when a gradient is needed."""
    meta = self._view
    if meta is not None:
        if meta.creation != DEFAULT:
            raise InplaceViewError(_view_error(self, meta, direct=True))
        base = self._base
        # a view with history whose base lost its own (detach_) counts as a view of a leaf
        if base.grad_fn is None and (base.requires_grad or self._grad_fn is not None):
            raise InplaceLeafError(
                f"(InvalidArgument) Leaf Var ({base.name}) that doesn't stop gradient can't use "
                f"inplace strategy: `{op_name}` writes into a view (shape {fmt_shape(self._data.shape)}) "
                f"of a leaf tensor of shape {fmt_shape(base._data.shape)} ({base.dtype.name}) that "
                "requires grad (a view of a leaf Variable that requires grad is being used in an "
                "in-place operation). Fix: do the update under `with oar.no_grad():` (parameter "
                "updates, initialisation), or clone the leaf first: `y = x.clone()`.")
    if self._requires_grad and self.grad_fn is None:
        raise InplaceLeafError(
            f"(InvalidArgument) Leaf Var ({self.name}) that doesn't stop gradient can't use "
            f"inplace strategy: `{op_name}` would overwrite a leaf tensor of shape "
            f"{fmt_shape(self._data.shape)} ({self.dtype.name}) that requires grad (a leaf "
            "Variable that requires grad is being used in an in-place operation), and its "
            "gradient would be lost. Fix: do the update under `with oar.no_grad():` "
            "(parameter updates, initialisation), or work on a copy: `y = x.clone()` then "
            f"`y.{op_name}(...)`.")


def check_writable(self, op_name):
    """Refuse writes where several elements share one memory location."""
    if has_internal_overlap(self._data):
        raise RuntimeError(
            f"unsupported operation: `{op_name}` writes into a tensor of shape "
            f"{fmt_shape(self._data.shape)} with strides {list(self.stride())} in which more "
            "than one element refers to a single memory location (an expanded or stride-0 "
            "tensor). Fix: clone() the tensor before performing the operation.")


def has_internal_overlap(a):
    if a.size == 0:
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
    """Partial overlap between an operand and the destination is refused (full is fine)."""
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
            f"{fmt_shape(b.shape)}, strides {list(other.stride())}) and the written-to tensor "
            f"(shape {fmt_shape(a.shape)}, strides {list(self.stride())}) of `{op_name}` refer "
            "to a single memory location. Fix: clone() the input before the operation.")


def check_pointwise_inplace(op, args, op_name, attrs=()):
    self = args[0]
    x = self._data
    shapes = None
    for a in (*args[1:], *attrs):   # tensor attrs (clip's min/max) broadcast too
        if isinstance(a, Tensor) and a._data.shape != x.shape:
            shapes = [a2._data.shape for a2 in (*args, *attrs) if isinstance(a2, Tensor)]
            break
    if shapes is not None:
        b = broadcast_shapes(op_name, shapes)   # Note [Broadcast errors]
        if b != x.shape:
            others = ", ".join(fmt_shape(s) for s in shapes[1:])
            raise ArgValueError(
                f"The shape of broadcast output {fmt_shape(b)} "
                f"is different from that of inplace tensor {fmt_shape(x.shape)} in the Inplace "
                f"operation `{op_name}` (operand shapes {others}): output with shape "
                f"{fmt_shape(x.shape)} doesn't match the broadcast shape {fmt_shape(b)}. An in-place op never "
                "changes its tensor's shape. Fix: use the out-of-place op "
                f"(`z = {op.name}(x, y)`) or make the operand broadcast to {fmt_shape(x.shape)}.")
    rdt = pointwise_dtype(op, args)
    if rdt != x.dtype and not _dt.can_cast(rdt, x.dtype):
        raise ArgTypeError(
            f"result type {_dt.from_numpy_dtype(rdt).name} can't be cast to the desired output "
            f"type {self.dtype.name} of `{op_name}` (operand dtypes "
            f"{[str(a._data.dtype) if isinstance(a, Tensor) else type(a).__name__ for a in args]})."
            " An in-place op never changes its tensor's dtype. Fix: cast first "
            f"(`x = x.astype('{_dt.from_numpy_dtype(rdt).name}')`) or use the out-of-place op.")
    return rdt


def dispatch_inplace(op, args, attrs, op_name=None):
    """In-place op: writes into args[0] and returns that very object."""
    self = args[0]
    fast = op.fast
    if fast is not None and self.__class__ is _Tensor:
        sd = self._data
        # a root tensor viewing its whole buffer cannot overlap itself (Note [Fast path])
        if sd is self._storage.buffer and (len(args) == 1 or args[1].__class__ is not _Tensor
                                           or (args[1]._storage is not self._storage
                                               and args[1]._data.shape == sd.shape)):
            arrays = _fast_arrays(op, args, attrs, True)
            if arrays is not None:
                fast(*arrays, *op.fast_const, out=sd)
                st = self._storage
                st.version += 1
                if st.watched:
                    st.log_mutation(op_name or op.name + "_")
                return self
    op_name = op_name or op.name + "_"
    # an integer or bool result is not differentiable: writing a float tensor that needs a
    # gradient into it (copy_) records nothing, as in PyTorch
    need_grad = _STATE.enabled and self._data.dtype.kind == "f" and _needs_grad(args)
    if need_grad:
        check_inplace_autograd(self, op_name)
        if not op.differentiable:
            # keeping the old history would give a silently wrong gradient
            raise RuntimeError(
                f"`{op_name}` has no derivative, so it cannot modify a tensor that needs a "
                "gradient (its old history would be used as if nothing changed). Fix: run it "
                "under oar.no_grad() on a detached tensor, or use the out-of-place op.")
    # Note [Check, then write]
    if op.kind == "pointwise":
        rdt = check_pointwise_inplace(op, args, op_name, attrs)
        if op.check is not None:
            op.check(op_name, args, attrs, rdt)
    elif op.check is not None:
        rdt = op.check(self, args, attrs, op_name)
    else:
        rdt = None
    if not op.fill_like:
        check_writable(self, op_name)
    if not op.own_overlap_check:
        for a in args[1:]:
            if isinstance(a, Tensor):
                check_overlap(self, a, op_name)
    node = None
    if need_grad:
        self_old = None
        if 0 in _needed_inputs(op, args):
            with grad_mode.set_grad_enabled(True):
                self_old = OPS["clone"].call(self)
        node, needs_out, _ = _make_node(op, args, attrs, self_old)
        if self._view is not None:
            base_edge = self._base._edge()
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if op.kind == "pointwise":
        op.kernel(self._data, rdt, *int_scalars(arrays, rdt), *attrs)
    else:
        op.kernel(self._data, *arrays[1:], *attrs)
    bump(self, op_name)
    if need_grad:
        if needs_out:
            node.out_saved = SavedTensor(self, is_output=True)
        rebase_history(self, node, base_edge if self._view is not None else None)
    return self


def _needed_inputs(op, args):
    needed = set()
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and a.requires_grad:
            needed.update(op.save.get(i, ()))
    return needed


def bump(t, op_name):
    st = t._storage
    st.version += 1
    if st.watched:
        st.log_mutation(op_name)


def rebase_history(self, node, base_edge=None):
    """Note [Rebase history]: after an in-place op, self's gradient flows into `node`,
    whose edge 0 is self's previous producer. For a view, the base's history is rewritten
    instead (CopySlices): the base's new node routes the view's region of the gradient
    through `node` and the rest to the base's previous producer; the view's own grad_fn is
    then regenerated from the base (Note [View grad_fn regeneration])."""
    if self._view is None:
        old, old_nr = self._grad_fn, self._out_nr
        self._grad_fn = node
        self._out_nr = 0
        if self._retains_grad:   # .grad is the gradient of the new value
            self._move_retain(old, old_nr, node)   # Note [Retained gradients]
        return
    from .views import CopySlices
    base = self._base
    cs = CopySlices(base, self, node, base_edge)
    if base._retains_grad:
        base._move_retain(base._grad_fn, base._out_nr, cs)
    base._grad_fn = cs
    base._out_nr = 0
    # the view's grad_fn is rebuilt from the base now, as PyTorch does, not on next access:
    # a later base.detach_() must not take the view's history with it (the retained
    # gradient moves with it, tensor.py _regenerate_view_grad_fn)
    self._view.attr_version = -1
    self._regenerate_view_grad_fn()


def dispatch_view(op, x, attrs, multi=False, arrays=None, out_attrs=None):
    """View op: the result shares x's storage and version counter.

    `arrays` (precomputed numpy views) and `out_attrs(k)` (backward attrs of output k,
    computed only when a node is built) serve the generic strided views (ops/views.py)."""
    res = op.kernel(x._data, *attrs) if arrays is None else arrays
    outs = res if (multi or arrays is not None) else (res,)
    base = x._base
    if base is None:
        base = x
    grad_on = _STATE.enabled
    pm = x._view
    if not grad_on:
        creation = NO_GRAD_MODE
    elif multi:
        creation = MULTI_OUTPUT
    else:
        creation = DEFAULT
    if pm is not None and pm.creation != DEFAULT and creation == DEFAULT:
        creation = pm.creation
    if pm is None:
        x_rg = x._requires_grad or x._grad_fn is not None
    else:
        x_rg = x.requires_grad
    need = grad_on and x_rg and op.differentiable
    version = x._storage.version
    storage = x._storage
    name = op.view_name
    result = []
    for k, arr in enumerate(outs):
        t = _new(Tensor)
        t._data = arr
        t._storage = storage
        t._base = base
        t._view = ViewMeta(creation, version, name, k)
        t._grad_fn = None
        t._requires_grad = False
        if need:
            node, _, _ = _make_node(op, (x,), attrs if out_attrs is None else out_attrs(k))
            t._grad_fn = node
        elif not grad_on and x_rg:
            t._requires_grad = True   # a no_grad view of a tensor that requires grad
        result.append(t)
    return tuple(result) if multi else result[0]


_new = object.__new__


def dispatch_out(op, args, attrs, out):
    """`out=` form: write the result into `out` (same rules as in-place, on `out`)."""
    if not isinstance(out, Tensor):
        raise ArgTypeError(f"{op.name}(): out= must be a Tensor, got {type(out).__name__}")
    if _STATE.enabled and (_needs_grad(args) or out.requires_grad):
        raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad. "
                           "Fix: call it under oar.no_grad() or drop out=.")
    res = dispatch(op, args, attrs) if op.kind != "pointwise" else None
    if res is None:
        rdt = pointwise_dtype(op, args)
        shape = broadcast_shapes(op.name, [a._data.shape for a in (*args, *attrs)
                                           if isinstance(a, Tensor)])
        if shape != out._data.shape:
            raise ArgValueError(f"out= has shape {fmt_shape(out._data.shape)} but `{op.name}` "
                             f"produces {fmt_shape(shape)}")
        if not _dt.can_cast(rdt, out._data.dtype):
            raise ArgTypeError(f"{op.name}(): result type {rdt} can't be cast to the desired "
                               f"output type {out._data.dtype} of out=. Fix: pass an out= "
                               f"tensor of dtype {rdt}.")
        if op.check is not None:
            op.check(op.name, args, attrs, rdt)
        check_writable(out, op.name)
        for a in args:
            if isinstance(a, Tensor):
                check_overlap(out, a, op.name)
        arrays = int_scalars([a._data if isinstance(a, Tensor) else a for a in args], rdt)
        op.kernel(out._data, rdt, *arrays, *attrs)
    else:
        if res._data.shape != out._data.shape:
            raise ArgValueError(f"out= has shape {fmt_shape(out._data.shape)} but `{op.name}` "
                             f"produces {fmt_shape(res._data.shape)}")
        if not _dt.can_cast(res._data.dtype, out._data.dtype):
            raise ArgTypeError(f"{op.name}(): result type {res._data.dtype} can't be cast to "
                               f"the desired output type {out._data.dtype} of out=.")
        check_writable(out, op.name)
        np.copyto(out._data, res._data, casting="unsafe")
    bump(out, op.name)
    return out


# --------------------------------------------------------------------------- declaration
def _gen(name, src, env):
    ns = {}
    exec(compile(src, f"<oar generated {name}>", "exec"), env, ns)
    return ns[name]


_PLAIN = "{v}._grad_fn is None and not {v}._requires_grad and {v}._view is None"


def fast_prefix(op, mode, x="x", y=None, iname=None, reflected=False):
    """Source lines of Note [Fast path], inlined at the top of a generated wrapper.

    mode "inplace": write into x; "new": allocate the result."""
    attr_ok = "".join(f" and {a} is _D_{a}" if isinstance(d, (bool, type(None))) else f" and {a} == _D_{a}"
                      for a, d in op.attrs)
    L = [f"    if {x}.__class__ is Tensor{attr_ok}:", f"        xd = {x}._data"]
    const = "".join(f"{c!r}, " for c in op.fast_const)
    if mode == "inplace":
        L.append(f"        if xd is {x}._storage.buffer and {x}._grad_fn is None and not "
                 f"{x}._requires_grad and xd.dtype in _FLOATS:")
        done = [f"                st = {x}._storage", "                st.version += 1",
                f"                if st.watched: st.log_mutation('{iname}')", f"                return {x}"]
        if y is None:
            L += [f"            _fast(xd, {const}out=xd)"] + [d[4:] for d in done]
            return L
        L += [f"            c = {y}.__class__", "            if c is Tensor:",
              f"                yd = {y}._data",
              f"                if yd.dtype is xd.dtype and {_PLAIN.format(v=y)} and "
              f"{y}._storage is not {x}._storage and yd.shape == xd.shape:",
              "                    _fast(xd, yd, out=xd)"] + ["    " + d for d in done] + \
             ["            elif c is float or c is int:", f"                _fast(xd, {y}, out=xd)"] + done
        return L
    L.append(f"        if xd.dtype in _FLOATS and ({_PLAIN.format(v=x)} or not _STATE.enabled):")
    wrap = ["if r.__class__ is not _ndarray: r = _asarray(r)", "return _wrap(r)"]
    # Note [Caching allocator]: a large result may go into a pooled buffer. Safe only when
    # the buffer has the result's shape and dtype: the result dtype is x's (not a
    # comparison's bool) and, with a tensor operand, that operand has x's shape exactly (a
    # broadcasting operand gives a bigger result). Parenthesised: `a if c1 else None if c2
    # else None` once took the pooled buffer whatever the other operand's shape.
    same_dtype = op.result_dtype is None or op.result_dtype is float_result
    pooled = "(_take(xd.shape, xd.dtype) if xd.nbytes >= _POOL_MIN else None)" if same_dtype else "None"
    pooled_y = (f"(_take(xd.shape, xd.dtype) if xd.nbytes >= _POOL_MIN and yd.shape == xd.shape "
                "else None)") if same_dtype else "None"
    if y is None:
        L += [f"            r = _fast(xd, {const}out={pooled})"] + ["            " + w for w in wrap]
        return L
    if reflected:   # only a Python number on the other side
        L += [f"            c = {y}.__class__", "            if c is float or c is int:",
              f"                r = _fast({y}, xd)"] + ["                " + w for w in wrap]
        return L
    L += [f"            c = {y}.__class__", "            if c is Tensor:",
          f"                yd = {y}._data",
          f"                if yd.dtype is xd.dtype and ({_PLAIN.format(v=y)} or not _STATE.enabled):",
          "                    try:",
          f"                        r = _fast(xd, yd, out={pooled_y})",
          "                    except ValueError as e:",
          "                        _fast_failed(_op, (xd, yd), e)"] + \
         ["                    " + w for w in wrap] + \
         ["            elif c is float or c is int:", f"                r = _fast(xd, {y}, out={pooled})"] + \
         ["                " + w for w in wrap]
    return L


def declare(op: OpDef, *, aliases=(), dim_alias=True):
    """Register `op` and generate its spellings."""
    OPS[op.name] = op
    env = {"_op": op, "_dispatch": dispatch, "_dispatch_inplace": dispatch_inplace,
           "_dispatch_view": dispatch_view, "_dispatch_out": dispatch_out, "Tensor": Tensor,
           "_as_tensor": as_tensor, "_operand": operand, "_UNSET": _UNSET, "_FLOATS": _FLOATS,
           "_STATE": _STATE, "_ndarray": _ndarray, "_asarray": np.asarray, "_wrap": Tensor._wrap,
           "_take": _storage.take, "_POOL_MIN": _storage.POOL_MIN_BYTES,
           "_number_attr": number_attr, "_axis_attr": axis_attr,
           "_fast_failed": _fast_failed}
    params = [p for p in op.inputs]
    attr_defaults = []
    for a, default in op.attrs:
        params.append(f"{a}=_D_{a}")
        env[f"_D_{a}"] = default
        attr_defaults.append(a)
    has_axis = "axis" in attr_defaults
    tail = ["name=None"]
    if has_axis and dim_alias:
        tail.append("dim=_UNSET")
    pre = []
    first = op.inputs[0]
    pre.append(f"    if {first}.__class__ is not Tensor and not isinstance({first}, Tensor): "
               f"{first} = _as_tensor({first})")
    for p in op.inputs[1:]:
        pre.append(f"    if {p}.__class__ is not Tensor: {p} = _operand({p}, _op, '{p}', '@OPNAME@')")
    if has_axis and dim_alias:
        pre.append("    if dim is not _UNSET: axis = dim")
    # Note [Argument layer]: on the generic path only (the fast path above needs defaults)
    defaults = dict(op.attrs)
    for a in op.number_attrs:
        none_ok = defaults[a] is None
        pre.append(f"    if {a}.__class__ is not float and {a}.__class__ is not int: "
                   f"{a} = _number_attr({a}, '@OPNAME@', '{a}', {none_ok})")
    if has_axis:
        pre.append(f"    axis = _axis_attr(axis, {first}, '@OPNAME@')")
    args_t = "(" + ", ".join(op.inputs) + ("," if len(op.inputs) == 1 else "") + ")"
    attrs_t = "(" + ", ".join(attr_defaults) + ("," if len(attr_defaults) == 1 else "") + ")"
    body = "\n".join(pre).replace("@OPNAME@", op.name)   # error messages name the spelling
    if op.kind == "inplace":
        src = (f"def {op.name}({', '.join(params + tail)}):\n{body}\n"
               f"    return _dispatch_inplace(_op, {args_t}, {attrs_t}, '{op.name}')\n")
        fn = _gen(op.name, src, env)
        op.call = fn
        _install(op.name, fn, op.function, op.method)
        for al in aliases:
            _install(al, fn, op.function, op.method)
        return fn
    if op.kind == "view":
        call = f"    return _dispatch_view(_op, {first}, {attrs_t})"
        src = f"def {op.name}({', '.join(params + tail)}):\n{body}\n{call}\n"
    else:
        fast = ""
        if op.fast is not None and op.kind == "pointwise" and len(op.inputs) <= 2:
            env["_fast"] = op.fast
            y = op.inputs[1] if len(op.inputs) == 2 else None
            fast = "\n".join(fast_prefix(op, "new", op.inputs[0], y)).replace(
                f"    if {first}.__class__ is Tensor", f"    if out is None and {first}.__class__ is Tensor", 1) + "\n"
        src = (f"def {op.name}({', '.join(params + tail + ['out=None'])}):\n{fast}{body}\n"
               f"    if out is not None: return _dispatch_out(_op, {args_t}, {attrs_t}, out)\n"
               f"    return _dispatch(_op, {args_t}, {attrs_t})\n")
    fn = _gen(op.name, src, env)
    fn.__doc__ = op.kernel.__doc__
    _install(op.name, fn, op.function, op.method)
    for al in aliases:
        _install(al, fn, op.function, op.method)
    if op.inplace_ok:
        iname = op.name + "_"
        fast = ""
        if op.fast is not None and op.kind == "pointwise" and len(op.inputs) <= 2:
            y = op.inputs[1] if len(op.inputs) == 2 else None
            fast = "\n".join(fast_prefix(op, "inplace", op.inputs[0], y, iname)) + "\n"
        body_i = "\n".join(pre).replace("@OPNAME@", iname)
        src_i = (f"def {iname}({', '.join(params + tail)}):\n{fast}{body_i}\n"
                 f"    return _dispatch_inplace(_op, {args_t}, {attrs_t}, '{iname}')\n")
        ifn = _gen(iname, src_i, env)
        _install(iname, ifn, True, op.method)
        for al in aliases:
            _install(al + "_", ifn, True, op.method)
    op.call = fn
    return fn


def _install(name, fn, function=True, method=True):
    if function:
        FUNCTIONS[name] = fn
    if method:
        setattr(Tensor, name, fn)


def register_function(name, fn, method=True, function=True):
    """Hand-written spellings (composites, wrappers with special signatures)."""
    _install(name, fn, function, method)
    return fn
