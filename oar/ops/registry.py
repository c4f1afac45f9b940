"""One declaration per op -> every spelling.

An OpDef says: the kernel (writes into `out` when given one), the backward formula (a few
lines of oar ops), and what the backward needs, by input name, like a line of PyTorch's
derivatives.yaml: `needs={"x": ("y",), "y": ("x",)}` for mul; "out" names the result
(`needs={"x": ("out",)}` for exp). From that the
registry builds the function form `oar.op(...)`, the method `x.op(...)`, the in-place
forms `oar.op_(x, ...)` / `x.op_(...)`, the operators, and the reflected operators
(ops/spellings.py, Note [Spelling templates]): closures with the op's signature, real
source lines, and the fast path inline.

In-place ops and out= go through the steps of the Inplace mechanism (autograd/inplace.py):
checks first (Note [Check, then write]), then the kernel, one version bump, the new history.
"""
from __future__ import annotations

import numbers
import sys
import threading

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from . import args as _args
from ..autograd import grad_mode
from ..autograd.errors import (ArgTypeError, ArgValueError, DtypeNotImplementedError,
                               OperandTypeError)
from ..autograd.inplace import (bump, check_overlap, check_writable, old_value,
                                rebase_history, records_grad, validate_inplace)
from ..autograd.node import OpNode
from ..autograd import saved as _saved
from ..autograd.saved import SavedTensor
from ..tensor import (DEFAULT, FIELD_CLASSES, INFERENCE_MODE, MULTI_OUTPUT, NO_GRAD_MODE, Tensor,
                      ViewMeta, wrap_as, wrap_result)

_STATE = grad_mode.STATE
_INFERENCE = grad_mode.INFERENCE   # this thread in inference_mode (Note [Inference tensors])
_UNSET = object()
_TIMELINE = None   # the recording memory timeline, or None (device.py, Note [Memory timeline])
_RECORDER = None   # oar.jit's recorder while capturing, or None (Note [Capture and replay])
OPS: dict = {}          # name -> OpDef
FUNCTIONS: dict = {}    # public function name -> function (installed into oar/__init__)
_Number = (int, float, bool, np.generic)


class OpDef:
    __slots__ = ("name", "kernel", "backward", "save", "save_out", "kind", "inputs",
                 "attrs", "differentiable", "check", "node_name", "result_dtype",
                 "inplace_ok", "method", "function", "call", "fill_like", "own_overlap_check",
                 "fast", "fast_attrs", "fast_const", "view_name", "optional", "number_attrs", "promote",
                 "doc", "expanded_write", "complex_grad")

    def __init__(self, name, kernel, backward=None, needs=None, kind="general",
                 backward_inplace=None,
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
        if backward_inplace is not None:
            self.backward = _reusing_gradient_buffer(backward, backward_inplace)
        # needs={"x": ("y",)}: the gradient of input x needs input y's value (a line of
        # PyTorch's derivatives.yaml); kept internally as index maps, self.save[i] = (j, ...)
        # ("out" in the tuple: the result's value, kept as save_out)
        needs = needs or {}
        save = {inputs.index(k): tuple(inputs.index(v) for v in vs if v != "out")
                for k, vs in needs.items()}
        self.save = {i: js for i, js in save.items() if js}
        save_out = tuple(inputs.index(k) for k, vs in needs.items() if "out" in vs)
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
        self.expanded_write = None   # Note [Writes into expanded tensors]: torch's warning text
        # Note [Fast path]
        # `fast(*arrays, *fast_const, out=...)` computes the op's forward exactly when every
        # tensor operand is floating with one dtype, numbers are Python floats/ints and attrs
        # are the defaults: the result dtype is then the input dtype and promotion cannot
        # fail. When, in addition, no gradient is needed, the autograd rules and (for
        # in-place into a root tensor of the same shape) the broadcast, dtype and overlap
        # checks cannot fail either, so the generated wrappers call it directly (an in-place
        # one still bumps the version once, Note [Version bump]); `dispatch` also uses it for
        # ops it records.
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
        # Note [Complex autograd]: True once the backward is checked for complex operands;
        # a view's backward only moves elements (a linear map with real coefficients), so it
        # holds for complex tensors as written
        self.complex_grad = kind == "view"


# Note [Backward into the incoming gradient]
# A derivative formula stays a pure expression of oar ops (it must also work under
# create_graph). Where it can write its result into the incoming gradient's buffer instead
# of allocating (relu, mul by a constant), the declaration adds `backward_inplace(ctx, g)`:
# it runs only when no graph is being recorded and the engine owns g with nobody else
# seeing its storage (OpNode.may_overwrite, Note [Gradient ownership]); it returns the
# gradients, or None to fall back to the formula.
def _reusing_gradient_buffer(backward, backward_inplace):
    def run(ctx, g):
        if not _STATE.enabled and ctx.may_overwrite(g):
            res = backward_inplace(ctx, g)
            if res is not None:
                return res
        return backward(ctx, g)
    run.__doc__ = backward.__doc__
    return run


# --------------------------------------------------------------------------- helpers
# Note [Wrapped numbers]
# A Python value that an op turns into a tensor itself (`as_tensor`: the 2 of `pow(2, t)`, the
# 1.0 of `where(c, 1.0, 0)`) is what PyTorch calls a wrapped number: it never decides the class
# of the result (Note [Result class]), the first tensor the user passed does, so
# `oar.torch.pow(2, t)` is an `oar.torch.Tensor` whose methods mean PyTorch's. The mark is a
# class-level default (False) overridden on the made tensor only; `result_class` reads it.
Tensor._wrapped_number = False


def as_tensor(value, like=None):
    if isinstance(value, Tensor):
        return value
    from .creation import to_tensor
    if like is not None and isinstance(value, _Number):
        # the number as a 0-d tensor of the dtype it would give with `like` (Note [Type
        # promotion]): where(cond, 1.0, int_tensor) is float32, as in PyTorch
        dt = _dt.promote((like._data.dtype,), (), (_dt.scalar_kind(value),))
        t = Tensor._wrap(np.asarray(value, dtype=dt))
    else:
        t = to_tensor(value)
    t._wrapped_number = True   # Note [Wrapped numbers]
    return t


def operand(value, op=None, name="other", op_name=None):
    """Tensors and Python numbers pass; array-likes become tensors. Note [Argument layer]:
    None, strings and other non-numbers are refused here (never turned into NaN or an
    object array), with an error naming the op and the argument."""
    c = value.__class__
    if c is int or c is float or c is bool or isinstance(value, Tensor):
        return value
    if c is complex or isinstance(value, np.complexfloating):   # Note [Complex dtypes]
        return complex(value)
    opname = op_name or (op if isinstance(op, str) else (op.name if op is not None else "operand"))
    if value is None:
        if op is not None and not isinstance(op, str) and name in op.optional:
            return None
        raise ArgTypeError(f"{opname}(): argument '{name}' must be a Tensor or a number, got "
                           "None. Fix: pass a tensor or a Python number.")
    if isinstance(value, (np.generic, numbers.Number)):
        return _args.number(value, opname, name)
    if c is list or c is tuple:   # neither framework reads a sequence operand as a tensor
        raise OperandTypeError(
            f"{opname}(): argument '{name}' must be a Tensor or a number, got {c.__name__} "
            f"{value!r:.60}. Fix: make it a tensor first (paddle.to_tensor(...) / "
            "torch.tensor(...)).")
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


# Note [Broadcast errors]
# Operands that cannot broadcast raise ArgValueError (PyTorch RuntimeError, Paddle
# ValueError) in PyTorch's words, never NumPy's bare ValueError. Like PyTorch's infer_size,
# shapes are folded left to right: "tensor a" is the broadcast of the operands before
# "tensor b", and the dimension is counted in the result, from the right.


def broadcast_error(op_name, shapes):
    """The error for `shapes` that cannot broadcast (Note [Broadcast errors]), or None when
    they can. Returns the error (the caller raises it)."""
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
    operands = args
    if op.promote is not None:
        args = [args[i] for i in op.promote]
    for a in args:
        if isinstance(a, Tensor):
            d = a._data
            (dims if d.ndim else zeros).append(d.dtype)
        elif a is not None:
            skinds.append(_dt.scalar_kind(a))
    if len(dims) > 1 and dims[0] != dims[-1] or len(dims) > 2:
        _paddle_mixed_tensors(op, dims, operands)
    rdt = _dt.promote(tuple(dims), tuple(zeros), tuple(skinds))
    if op.result_dtype is not None:
        # a rule marked door_aware also reads the operands, whose result class names the door
        # (Note [Door conflicts]: atan2 of integers is float64 in Paddle, float32 in PyTorch)
        rdt = (op.result_dtype(rdt, operands) if getattr(op.result_dtype, "door_aware", False)
               else op.result_dtype(rdt))
    return rdt


_DISPATCH_MODULES = frozenset(("oar.ops.registry", "oar.ops.spellings", "oar.tensor",
                               "oar.ops.operators", "oar.autograd.inplace"))


def _called_from_user_code():
    """Whether the op was called by code outside oar (Note [Paddle type promotion]): the
    first frame that is neither dispatch machinery nor a public op function (`oar.where`)
    belongs to a module not under oar. Backward formulas and compositions inside oar mix
    dtypes freely (a float gradient times a bool mask)."""
    f = sys._getframe(2)
    while f is not None:
        mod = f.f_globals.get("__name__", "")
        if mod not in _DISPATCH_MODULES and not (
                mod.startswith("oar.ops.") and f.f_code.co_name in FUNCTIONS):
            return not (mod == "oar" or mod.startswith("oar."))
        f = f.f_back
    return True


# Note [Paddle type promotion]
# Paddle 3.3.1 computes an elementwise op on two tensors of different dtypes (neither 0-d:
# a 0-d tensor promotes like a number) only when both are floating or one is complex;
# anything else (int32 * int64, int64 + float32, a bool mask times a float tensor) is its
# TypeError "(InvalidType) Type promotion only support calculations between floating-point
# numbers and between complex and real numbers". The Paddle door (a core result class) says
# the same; the PyTorch door promotes (torch.result_type). The rule binds the user's calls
# only: oar's own backward formulas and compositions mix dtypes freely, so the check looks
# at the first frame outside the dispatch machinery and the public op functions, and applies
# when it is not oar's (_called_from_user_code; this runs only when dtypes differ). Ops whose
# operands differ by design (ldexp's integer exponent) are exempt, as in Paddle.
_MIXED_DTYPES_BY_DESIGN = frozenset(("ldexp",))


def _paddle_mixed_tensors(op, dims, operands):
    """Note [Paddle type promotion]."""
    distinct = list(dict.fromkeys(dims))
    if len(distinct) < 2 or op.name in _MIXED_DTYPES_BY_DESIGN or \
            result_class(operands) is not Tensor:
        return
    if all(_dt.is_float(d) for d in distinct) or any(d.kind == "c" for d in distinct):
        return
    if not _called_from_user_code():
        return
    names = [_dt.as_dtype(d).name for d in distinct]
    raise ArgTypeError(
        f"(InvalidType) Type promotion only support calculations between floating-point "
        f"numbers and between complex and real numbers. But got different data type x: "
        f"{names[0]}, y: {names[1]}. ({op.name}: cast one operand first, e.g. "
        f"y.astype('{names[0]}'); the PyTorch door promotes)")


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
    return wrap_as(g._result_class, np.zeros_like(g._data))


def float_result(rdt):
    return rdt if _dt.is_float(rdt) or rdt.kind == "c" else _dt.DEFAULT_FLOAT.np


# --------------------------------------------------------------------------- autograd glue
def _needs_grad(args):
    """True when some tensor operand requires grad (Tensor.requires_grad, read from the
    fields directly for a plain Tensor: this runs on every op) and, when that operand is an
    inference tensor, some operand is not (Note [Inference tensors])."""
    for a in args:
        if a.__class__ in _FIELDS:   # Note [Field classes]
            if (a._requires_grad or a._grad_fn is not None
                    or (a._view is not None and a._base.requires_grad)):
                return not a._storage.inference or _any_normal(args)
        elif isinstance(a, Tensor) and a.requires_grad:
            return not a._storage.inference or _any_normal(args)
    return False


def _any_normal(args):
    """Whether some tensor operand is not an inference tensor (Note [Inference tensors])."""
    return any(isinstance(a, Tensor) and not a._storage.inference for a in args)


def _make_node(op, args, attrs, self_old=None):
    """Build the node and save what the backward needs for the inputs that need a gradient.

    Returns (node, whether the backward needs the result, the saved input positions)."""
    edges = []
    meta = []
    needed = ()
    needs_out = False
    save = op.save
    save_out = op.save_out
    i = 0
    for a in args:
        if a.__class__ in _FIELDS:   # Note [Field classes]
            d = a._data
            meta.append((d.shape, d.dtype))
            if a._view is None:   # a._edge() without the calls: a root's grad_fn is its field
                fn = a._grad_fn
                if fn is not None:
                    e = (fn, a._out_nr)
                else:
                    e = a._edge() if a._requires_grad else None   # a leaf: its AccumulateGrad
            else:
                e = a._edge()
        elif isinstance(a, Tensor):
            d = a._data
            meta.append((d.shape, d.dtype))
            e = a._edge()
        else:
            e = None
            meta.append(None)
        edges.append(e)
        if e is not None:
            if d.dtype.kind == "c" and not op.complex_grad:
                _no_complex_grad(op)
            if save:
                s = save.get(i)
                if s:
                    needed = needed + s
            if save_out and i in save_out:
                needs_out = True
        i += 1
    node = OpNode(op, attrs, tuple(edges), tuple(meta))
    if needed:
        saved = [None] * len(args)
        for i in needed:
            src = self_old if (i == 0 and self_old is not None) else args[i]
            saved[i] = SavedTensor(src) if isinstance(src, Tensor) else src
        node.saved = saved
    return node, needs_out, needed


# Note [Complex autograd]
# PyTorch's convention: for a real loss L of complex z = x + iy, z.grad is dL/dx + i dL/dy
# (twice the conjugate Wirtinger derivative), so the backward of a holomorphic f multiplies
# the incoming gradient by conj(f'(z)) (mul: g * conj(y)), and a real input's gradient is
# the real part of what its formula gives (OpNode's _fit). A formula written for real
# tensors is silently wrong for complex ones whenever it omits that conj, so each OpDef
# says whether its backward has been checked for complex operands (complex_grad, set in
# ops/complex.py for the checked ops); building a node for any other op with a complex
# input that needs a gradient raises here, before anything is written.
def _no_complex_grad(op):
    raise DtypeNotImplementedError(
        f"{op.name}(): the derivative of '{op.name}' for complex tensors is not implemented "
        "in oar (only ops whose complex backward is checked against PyTorch record complex "
        "gradients). Fix: detach the complex input, or work on its real and imaginary parts "
        "(view_as_real) with real ops.")


def _attach(node, out, needs_out):
    """`node` becomes the grad_fn of `out`, a new tensor (output 0 of the node)."""
    out._grad_fn = node
    # out._out_nr is 0 already: the class default of a new tensor. Writing it would give
    # every result an instance __dict__ (Tensor keeps rare fields there)
    if needs_out:
        node.out_saved = SavedTensor(out, is_output=True)


# --------------------------------------------------------------------------- fast path
_Tensor = Tensor
_FIELDS = FIELD_CLASSES
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
        if c in _FIELDS:   # Note [Field classes]
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
def result_class(args):
    """Note [Result class]: the result class of the first tensor operand that is not a
    wrapped number (Note [Wrapped numbers]); with none, of the first tensor operand."""
    first = None
    for a in args:
        if isinstance(a, Tensor):
            if not a._wrapped_number:
                return a._result_class
            if first is None:
                first = a._result_class
    return first or Tensor


def dispatch(op, args, attrs, reuse=()):
    """Normal op: new memory, or the memory of an operand in `reuse` (indices of operands
    the calling spelling found nobody else holds, Note [Temporary elision])."""
    if AUTOCAST.dtype is not None and op.name in AUTOCAST.policy:   # Note [Autocast]
        args = autocast_args(op.name, args)
    fast = op.fast
    if fast is not None:
        arrays = _fast_arrays(op, args, attrs, False)
        if arrays is not None:
            hit = _elision_hit(op, args, arrays, reuse, None, fast) if reuse else None
            try:
                res = (fast(*arrays, *op.fast_const) if hit is None else
                       fast(*arrays, *op.fast_const, out=hit[1]))
            except ValueError as e:
                _fast_failed(op, arrays, e)
            except TypeError:   # Note [Array module per place]: places mixed
                if not _xp.ACTIVE:
                    raise
                res = None
            if res is not None:   # None: the kernel declined (Note [Fast matmul])
                if res.__class__ is not _ndarray:
                    res = _xp.result_array(res)
                # Note [Result layout per door]; Note [Temporary elision]
                out = (wrap_result(result_class(args), res) if hit is None
                       else _elision.result_into(result_class(args), res, hit, args))
                if _RECORDER is not None:   # Note [Capture and replay]
                    res = out._data   # what the result holds (wrap_result may have copied)
                    _RECORDER.tensors(args)
                    _RECORDER.step("w", fast, (*arrays, *op.fast_const), {"out": res}, (res,))
                if op.differentiable and _STATE.enabled and _needs_grad(args):
                    node, needs_out, _ = _make_node(op, args, attrs)
                    _attach(node, out, needs_out)
                if _TIMELINE is not None:   # Note [Memory timeline]
                    _TIMELINE.op(op.name, out)
                return out
    if _xp.ACTIVE:   # Note [Array module per place] (no elision across the place check)
        return _xp.dispatch_placed(_dispatch_general, op, args, attrs)
    return _dispatch_general(op, args, attrs, reuse)


def _dispatch_general(op, args, attrs, reuse=()):
    """dispatch's general path (no fast path applied); `reuse` as dispatch's."""
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
        hit = None
        if reuse and not _has_bf16(arrays, rdt):   # Note [Temporary elision]
            hit = _elision_hit(op, args, arrays, reuse, rdt, None)
        try:
            res = (op.kernel(None if hit is None else hit[1], rdt, *arrays, *attrs)
                   if not _has_bf16(arrays, rdt) else
                   _bf16_pointwise(op, None, rdt, arrays, attrs))
        except ValueError as e:   # a tensor attr (clip's min/max) that does not broadcast
            _fast_failed(op, list(arrays) + [a._data if isinstance(a, Tensor) else a
                                             for a in attrs], e)
    else:
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        res = (op.kernel(*arrays, *attrs) if op.name not in BF16_OPMATH
               or not _half_operand(op, arrays) else _bf16_general(op, arrays, attrs))
    cls = result_class(args)
    if isinstance(res, tuple):
        outs = tuple(wrap_result(cls, _own(r)) for r in res)
        out = outs[0]
    elif op.kind == "pointwise" and hit is not None:   # Note [Temporary elision]
        outs = None
        out = _elision.result_into(cls, res, hit, args)
    else:
        outs = None
        out = wrap_result(cls, _own(res))   # Note [Result layout per door]
    if _RECORDER is not None:   # Note [Capture and replay]
        _RECORDER.tensors(args)
        if op.kind == "pointwise":
            _RECORDER.step("ret", op.kernel, (None, rdt, *arrays, *attrs), {}, (out._data,))
        else:
            _RECORDER.step("ret", op.kernel, (*arrays, *attrs), {},
                           tuple(o._data for o in outs) if outs is not None else (out._data,))
    if op.differentiable and _STATE.enabled and _needs_grad(args):
        node, needs_out, _ = _make_node(op, args, attrs)
        _attach(node, out, needs_out)
    if _TIMELINE is not None:   # Note [Memory timeline]
        _TIMELINE.op(op.name, out)
    return outs if outs is not None else out


def _elision_hit(op, args, arrays, reuse, rdt, fast):
    """(k, buffer): the operand of `reuse` whose memory receives the result, or None (Note
    [Temporary elision]). rdt None: the fast kernel's result, of its operands' dtype."""
    if rdt is None:
        rdt = pointwise_dtype(op, args)
    grad = op.differentiable and _STATE.enabled
    return _elision.buffer_for(op, args, arrays, reuse, rdt, fast, grad, _needs_grad)


# Note [bfloat16 opmath]
# PyTorch computes a bfloat16 pointwise op in float32 and rounds the result once. A
# pointwise op that meets a bfloat16 operand (or result dtype) does the same here: its
# bfloat16 arrays are widened to float32 (exactly), the declared kernel runs in float32
# (so every kernel and check sees a dtype NumPy knows as floating, Note [bfloat16]), and
# the result is rounded to bfloat16 (round to nearest even) when that is the result dtype.
# As in PyTorch, each tensor operand is first cast to the common dtype (an int64 tensor is
# rounded to bfloat16), and so is a Python number (`bf16_t + 0.3` adds bfloat16(0.3) =
# 0.30078125, `bf16_t ** 257` raises to 256); mul and div keep a Python number in float32,
# as PyTorch's CPU kernels do (measured in tests/test_dtypes_half.py).
_BF16 = _dt.BFLOAT16_NP
_F32 = np.dtype(np.float32)


def _has_bf16(arrays, rdt):
    if rdt is _BF16 or rdt == _BF16:
        return True
    for a in arrays:
        if a.__class__ is np.ndarray and a.dtype == _BF16:
            return True
    return False


_KEEP_SCALAR = frozenset(("mul", "multiply", "div", "divide", "true_divide"))


def _round_operand(a, rdt):
    """An operand as PyTorch's TensorIterator gives it to a bfloat16 kernel: cast to the
    common dtype first (a Python float 0.3 becomes bfloat16's 0.30078125), then widened."""
    if a.__class__ is np.ndarray:
        if a.dtype.kind == "b" or (a.dtype != rdt and rdt != _BF16):
            return a
        return (a if a.dtype == rdt else a.astype(rdt)).astype(_F32)
    if a.__class__ is float or (a.__class__ is int and rdt == _BF16 and
                                float(np.asarray(a, _F32).astype(_BF16)) != a):
        return float(np.asarray(a, _F32).astype(rdt).astype(_F32))
    return a


def _bf16_pointwise(op, out, rdt, arrays, attrs):
    if rdt == _BF16:
        wide = [_round_operand(a, rdt) if (a.__class__ is np.ndarray
                                           or op.name not in _KEEP_SCALAR) else a for a in arrays]
    else:   # a comparison (bool result) or a wider result: only widen bfloat16 exactly
        wide = [a.astype(_F32) if a.__class__ is np.ndarray and a.dtype == _BF16 else a
                for a in arrays]
    krdt = _F32 if rdt == _BF16 else rdt
    res = op.kernel(None, krdt, *wide, *attrs)
    if out is None:
        return res.astype(rdt) if isinstance(res, np.ndarray) and res.dtype != rdt else res
    np.copyto(out, res, casting="unsafe")
    return out


# Reductions, scans and products: PyTorch accumulates bfloat16 in float32 and rounds the
# result once (Note [bfloat16 opmath]); NumPy would accumulate in bfloat16 and round at
# every step. Such an op's bfloat16 inputs are widened, its float32 results rounded back,
# unless an attr asks for an explicit result dtype (sum(x, dtype=float32)).
BF16_OPMATH = {"sum", "mean", "prod", "cumsum", "cumprod", "nansum", "nanmean", "logsumexp",
               "matmul", "mm", "bmm", "mv", "dot", "addmm", "baddbmm", "addbmm", "addmv",
               "linear", "einsum", "var", "std", "norm", "vector_norm", "softmax",
               "log_softmax", "logcumsumexp", "trace", "conv1d", "conv2d", "conv3d",
               "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "mse_loss",
               "binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss",
               "huber_loss", "nll_loss", "cross_entropy"}


def _is_dtype_attr(a):
    if isinstance(a, (np.dtype, _dt.DType, type)):
        return True
    if isinstance(a, str):
        try:
            _dt.as_dtype(a)
            return True
        except TypeError:
            return False
    return False


# float16 scans too: NumPy's float16 cumsum adds in float16, PyTorch's in float32 (NumPy's
# float16 sums and products already agree with PyTorch's)
F16_OPMATH = frozenset(("cumsum", "cumprod"))
_F16 = np.dtype(np.float16)


def _half_operand(op, arrays):
    """bfloat16 (or, for F16_OPMATH, float16): the operand dtype to widen, else None."""
    half = None
    for a in arrays:
        if a.__class__ is np.ndarray:
            if a.dtype == _BF16:
                return _BF16
            if a.dtype == _F16 and op.name in F16_OPMATH:
                half = _F16
    return half


def _bf16_general(op, arrays, attrs):
    half = _half_operand(op, arrays)
    wide = [a.astype(_F32) if a.__class__ is np.ndarray and a.dtype == half else a
            for a in arrays]
    res = op.kernel(*wide, *attrs)
    if any(_is_dtype_attr(a) for a in attrs):
        return res

    def back(r):
        if isinstance(r, (np.ndarray, np.generic)) and r.dtype == _F32:
            return np.asarray(r).astype(half)
        return r
    return tuple(back(r) for r in res) if isinstance(res, tuple) else back(res)


# Note [Autocast]
# torch.autocast("cpu", dtype=torch.bfloat16) (oar/torch/amp.py) sets AUTOCAST.dtype for the
# thread while it is active. An op that PyTorch's CPU autocast lists then gets its floating
# operands cast (a differentiable cast, so gradients flow back in each parameter's own
# dtype) before it runs: to the autocast dtype for the lower-precision ops (matmul, linear,
# conv ...), to float32 for the float32 ops (losses, prod, linear algebra). float64 operands
# are never cast, as in PyTorch; every other op runs on its operands as they are.
class _AutocastState(threading.local):
    dtype = None   # the lower-precision NumPy dtype while autocast is on, else None
    policy = {}    # op name -> "lower" or "fp32"


AUTOCAST = _AutocastState()
AUTOCAST_LOWER = ("addmm", "matmul", "mm", "bmm", "baddbmm", "addbmm", "linear", "conv1d",
                  "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d", "prelu", "scaled_dot_product_attention")
AUTOCAST_FP32 = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy",
                 "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                 "kl_div", "margin_ranking_loss", "soft_margin_loss", "hinge_embedding_loss",
                 "cosine_embedding_loss", "poisson_nll_loss", "triplet_margin_loss",
                 "multi_margin_loss", "multilabel_margin_loss", "prod", "trace", "cdist",
                 "inverse", "cholesky", "pinverse", "quantile", "nanquantile", "polar")
AUTOCAST_POLICY = {**{n: "lower" for n in AUTOCAST_LOWER}, **{n: "fp32" for n in AUTOCAST_FP32}}


def autocast_args(name, args):
    """args with the floating tensors cast as autocast's policy for op `name` says (Note
    [Autocast]); args itself when nothing is cast or autocast is off."""
    policy = AUTOCAST.policy.get(name)
    if AUTOCAST.dtype is None or policy is None:
        return args
    want = AUTOCAST.dtype if policy == "lower" else _F32
    from .general import astype
    out = None
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            d = a._data.dtype
            if d != want and d != np.float64 and _dt.is_float(d):
                if out is None:
                    out = list(args)
                out[i] = astype(a, _dt.from_numpy_dtype(want))
    return args if out is None else tuple(out)


def _own(arr):
    """Kernels may return a view of an input (e.g. a 0-d index); storages own their memory."""
    if arr.__class__ is not _ndarray and not isinstance(arr, np.ndarray):
        return _xp.result_array(arr)
    if arr.base is not None and not arr.flags.owndata:
        return arr.copy()
    return arr


def dispatch_inplace(op, args, attrs, op_name=None):
    """In-place op: writes into args[0] and returns that very object. Each step is a step of
    the Inplace mechanism (autograd/inplace.py, Note [Where dispatch_inplace lives])."""
    self = args[0]
    mutation = _saved.MUTATION_CTX   # Note [Mutation of saved tensors allowed]
    if (op.fast is not None and mutation is None and self.__class__ is _Tensor
            and _inplace_fast(op, args, attrs, op_name)):
        if _TIMELINE is not None:   # Note [Memory timeline]
            _TIMELINE.op(op_name or op.name + "_", self)
        return self   # Note [Fast path]
    op_name = op_name or op.name + "_"
    if _xp.ACTIVE:   # Note [Array module per place]
        if args[0]._data.ndim == 0 and args[0]._data.__class__ is _ndarray:
            _xp.same_place(op_name, (*args, *attrs))   # into a CPU scalar: nothing moves
        else:
            args = _xp.placed_args(op_name, args)[1]
            _xp.same_place(op_name, (*args, *attrs))
    need_grad = records_grad(self, args)
    rdt = validate_inplace(op, args, attrs, op_name, need_grad)   # Note [Check, then write]
    if mutation is not None:
        mutation.before_write(self)
    if need_grad:   # the node, and self's old value if a needed gradient reads it
        node, needs_out, _ = _make_node(op, args, attrs, old_value(op, args))
        base_edge = self._base._edge() if self._view is not None else None
    _inplace_kernel(op, self, args, attrs, rdt)
    bump(self, op_name)   # Note [Version bump]
    if _RECORDER is not None:   # Note [Capture and replay]
        _RECORDER.inplace(op, self, args, attrs, rdt)
    if need_grad:
        if needs_out:   # the backward reads the new value, saved at the bumped version
            node.out_saved = SavedTensor(self, is_output=True)
        rebase_history(self, node, base_edge)   # Note [Rebase history]
    if _TIMELINE is not None:   # Note [Memory timeline]
        _TIMELINE.op(op_name, self)
    return self


def _inplace_fast(op, args, attrs, op_name):
    """Note [Fast path] of an in-place op; True when it wrote (and bumped)."""
    self = args[0]
    sd = self._data
    # a root tensor viewing its whole buffer cannot overlap itself
    if sd is self._storage.buffer and (len(args) == 1 or args[1].__class__ not in _FIELDS
                                       or (args[1]._storage is not self._storage
                                           and args[1]._data.shape == sd.shape)):
        arrays = _fast_arrays(op, args, attrs, True)
        if arrays is not None:
            try:
                op.fast(*arrays, *op.fast_const, out=sd)
            except TypeError:   # Note [Array module per place]: places mixed, nothing written
                if not _xp.ACTIVE:
                    raise
                return False
            bump(self, op_name or op.name + "_")
            if _RECORDER is not None:   # Note [Capture and replay]
                _RECORDER.tensors(args, self)
                _RECORDER.step("w", op.fast, (*arrays, *op.fast_const), {"out": sd}, (sd,), False)
            return True
    return False


def _inplace_kernel(op, self, args, attrs, rdt):
    """The declared kernel, writing into self (its checks have all passed)."""
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if op.kind == "pointwise":
        if _has_bf16(arrays, rdt):
            _bf16_pointwise(op, self._data, rdt, int_scalars(arrays, rdt), attrs)
            return
        op.kernel(self._data, rdt, *int_scalars(arrays, rdt), *attrs)
    else:
        kernel_into(op, self._data, *arrays[1:], *attrs)


# Note [In-place spelling of a general op]
# A declaration of kind "inplace" (tril_, index_put_) has a kernel that writes into its first
# array. A general op declared with inplace=True (cumsum -> cumsum_) keeps its one kernel,
# which returns new memory: the in-place spelling computes that result from x's old value,
# then copies it into x's window (so the kernel may read x freely). Its `check` runs only for
# the in-place spelling, before the write, and refuses what would change x's shape or dtype.
def kernel_into(op, x, *rest):
    """Run op's kernel so that its result lands in x (the in-place spellings and their
    replay, Note [Capture and replay])."""
    if op.kind == "inplace":
        op.kernel(x, *rest)
    else:
        np.copyto(x, op.kernel(x, *rest), casting="unsafe")


def dispatch_view(op, x, attrs, multi=False, arrays=None, out_attrs=None):
    """View op: the result shares x's storage and version counter.

    `arrays` (precomputed numpy views) and `out_attrs(k)` (backward attrs of output k,
    computed only when a node is built) serve the generic strided views (ops/views.py)."""
    if not multi:
        arr = op.kernel(x._data, *attrs) if arrays is None else arrays[0]
        return view_of(op, x, arr, attrs, out_attrs)
    arrs = op.kernel(x._data, *attrs) if arrays is None else arrays
    creation = (MULTI_OUTPUT if _STATE.enabled else
                INFERENCE_MODE if _INFERENCE.enabled else NO_GRAD_MODE)
    return tuple(view_of(op, x, arr, attrs, out_attrs, k, creation)
                 for k, arr in enumerate(arrs))


def view_of(op, x, arr, attrs=(), out_attrs=None, k=0, creation=None):
    """Output k of view op `op` of x: a tensor over `arr` (a NumPy view of x's memory) that
    shares x's storage, so version counter, and records how it was made (Note [View creation
    meta]). Its node is built only when a gradient is recorded; `out_attrs(k)`, when given,
    computes the node's attrs then (geometry is not free)."""
    st = x._storage
    if st.inference:   # Note [Inference tensors]: no autograd state, so not a view
        return wrap_as(x._result_class, arr, st)
    t = _new(x._result_class)   # Note [Result class]
    t._data = arr
    t._storage = st
    t._requires_grad = False
    t._grad_fn = None
    grad_on = _STATE.enabled
    pm = x._view
    if pm is None:
        t._base = x
        x_rg = x._requires_grad or x._grad_fn is not None
    else:
        t._base = x._base
        x_rg = x._requires_grad or x._grad_fn is not None or x._base.requires_grad
    if creation is None:
        # a view of a no_grad or multi-output view inherits its restriction
        creation = ((DEFAULT if pm is None else pm.creation) if grad_on else
                    INFERENCE_MODE if _INFERENCE.enabled else NO_GRAD_MODE)
    t._view = m = _new(ViewMeta)   # its four fields set here: no __init__ call (hot path)
    m.creation = creation
    m.attr_version = st.version
    m.op_name = op.view_name
    m.out_index = k
    if x_rg:
        if not grad_on:
            t._requires_grad = True   # a no_grad view of a tensor that requires grad
        elif op.differentiable:
            t._grad_fn = _make_node(op, (x,), attrs if out_attrs is None else out_attrs(k))[0]
    return t


_new = object.__new__


def dispatch_out(op, args, attrs, out):
    """`out=` form: write the result into `out` (same rules as in-place, on `out`)."""
    if not isinstance(out, Tensor):
        raise ArgTypeError(f"{op.name}(): out= must be a Tensor, got {type(out).__name__}")
    if _STATE.enabled and (_needs_grad(args) or out.requires_grad):
        raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad. "
                           "Fix: call it under oar.no_grad() or drop out=.")
    if _xp.ACTIVE:   # Note [Array module per place]
        args = _xp.placed_args(op.name, (*args, out))[1][:-1]
        _xp.same_place(op.name, (*args, *attrs, out))
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
        _saved.before_write(out)   # Note [Mutation of saved tensors allowed]
        arrays = int_scalars([a._data if isinstance(a, Tensor) else a for a in args], rdt)
        op.kernel(out._data, rdt, *arrays, *attrs)
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.step("w", op.kernel, (out._data, rdt, *arrays, *attrs), {}, (out._data,),
                           False)
    else:
        if res._data.shape != out._data.shape:
            raise ArgValueError(f"out= has shape {fmt_shape(out._data.shape)} but `{op.name}` "
                             f"produces {fmt_shape(res._data.shape)}")
        if not _dt.can_cast(res._data.dtype, out._data.dtype):
            raise ArgTypeError(f"{op.name}(): result type {res._data.dtype} can't be cast to "
                               f"the desired output type {out._data.dtype} of out=.")
        check_writable(out, op.name)
        _saved.before_write(out)   # Note [Mutation of saved tensors allowed]
        np.copyto(out._data, res._data, casting="unsafe")
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.step("w", np.copyto, (out._data, res._data), {"casting": "unsafe"},
                           (out._data,), False)
    bump(out, op.name)
    if _RECORDER is not None:
        _RECORDER.tensors(args, out)
    return out


# --------------------------------------------------------------------------- declaration
# Every spelling of a declared op (function, method, in-place, out=) is a closure built by
# ops/spellings.py (Note [Spelling templates]); op modules import these names from here.
from .spellings import declare, install, register_function  # noqa: E402,F401  (needs the names above)
from . import elision as _elision  # noqa: E402  (Note [Temporary elision])
