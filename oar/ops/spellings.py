"""Every public spelling of a declared op, built from its OpDef as a closure.

`declare(op)` (registry.py re-exports it; every op module calls it) gives one declaration
the spellings users call:

    oar.mul(x, y, name=None, out=None)    out of place; the method x.mul(y) is this same function
    oar.mul_(x, y, name=None), x.mul_(y)  in place: writes into x and returns x itself
    x * y, 2 * x, x *= y                  operators (ops/operators.py, from these templates)

No source is generated (Note [Spelling templates]): tracebacks, pdb and `inspect.getsource`
show this file. Error messages name the spelling that was called (`mul_` vs `mul`): each
closure holds its own spelling name for Note [Argument layer].
"""
from __future__ import annotations

import inspect
import textwrap

import numpy as np

from .. import _xp
from .. import storage as _storage
from ..tensor import FAST_CLASSES, Tensor, wrap_as, wrap_result
from . import elision as _E
from . import registry as R
from .registry import (FUNCTIONS, OPS, OpDef, as_tensor, axis_attr, float_result, number_attr,
                       operand)

# shared by every template (module globals: as fast to read as closure cells)
_FLOATS = R._FLOATS
_STATE = R._STATE
_ndarray = np.ndarray
_asarray = _xp.result_array   # a NumPy array, or a device array as it is
_take = _storage.take
_POOL_MIN = _storage.POOL_MIN_BYTES
_fast_failed = R._fast_failed
_dead = _E.dead   # Note [Temporary elision]: called from a spelling's own frame only
_ELIDE_MIN = _E.MIN_BYTES
# the classes whose operands a template offers dispatch for elision: FAST_CLASSES itself
# (emptied under capture and allow_mutation_on_saved_tensors, Note [Temporary elision])
_OFFER = FAST_CLASSES
_ufunc = np.ufunc
_EMPTY = inspect.Parameter.empty
_PK = inspect.Parameter.POSITIONAL_OR_KEYWORD

# Note [Spelling templates]
# Each spelling is one of the hand-written functions below, closed over its op. Python binds
# arguments fastest to a plain parameter list (no *args, no **kwargs), and the ops called in
# tight loops have one of three parameter lists: (x), (x, y) and (x, y, alpha). Those get a
# template with exactly those parameters and with Note [Fast path] and the general path
# (argument checks, dispatch) written inline: a helper call would cost about as much as the
# fast path saves, and would slow every call that needs a gradient. So the (x, y, alpha)
# templates repeat the (x, y) blocks, and the operators (ops/operators.py) reuse the (x, y)
# templates rather than repeat them a third time. Every other op gets the generic template,
# which binds (*args, **kwargs) against the declared signature in Python: a few hundred ns
# more per call, next to the microseconds of the generic dispatch. Every spelling carries the
# declared `__signature__`, a `__doc__` built from `op.doc`, and the `__name__`/`__qualname__`/
# `__module__` under which users find it (its code object is renamed too), so `help()`,
# `inspect.signature`, IDEs, tracebacks and pdb describe it as if it were written out by hand.


class _Unset:
    """Default of `dim=`, PyTorch's name for `axis`: not given (None means all axes)."""
    __slots__ = ()

    def __repr__(self):
        return "<same as axis>"


_DIM_UNSET = _Unset()
_NO_CONST = object()    # the fast kernel takes no constant operand
_NEVER = float("inf")   # no pooled buffer, whatever the size


# --------------------------------------------------------------------------- declare
def declare(op: OpDef, *, aliases=(), dim_alias=True):
    """Register `op` and install its spellings: the out-of-place function and method (with
    out=), the in-place function and method `name_` when `op.inplace_ok`, or only the in-place
    spelling for an op of kind "inplace". `aliases` name the same function objects
    (`multiply` is `mul`); `dim_alias` adds PyTorch's `dim=` to an op with an `axis` attr."""
    if op.kind == "view":
        raise ValueError(f"declare({op.name!r}): view ops are hand-written over "
                         "registry.dispatch_view (ops/views.py), not declared")
    OPS[op.name] = op
    if op.kind == "inplace":
        fn = inplace_spelling(op, op.name, dim_alias)
        op.call = fn
        _install_all(op.name, aliases, fn, op.function, op.method)
        return fn
    fn = new_spelling(op, dim_alias)
    op.call = fn
    _install_all(op.name, aliases, fn, op.function, op.method)
    if op.inplace_ok:
        ifn = inplace_spelling(op, op.name + "_", dim_alias)
        # every in-place spelling is a function too (oar.add_), whatever op.function says
        _install_all(op.name + "_", [a + "_" for a in aliases], ifn, True, op.method)
    return fn


def install(name, fn, function=True, method=True):
    """Make `fn` reachable as `oar.<name>` (collected into oar/__init__) and `Tensor.<name>`."""
    if function:
        FUNCTIONS[name] = fn
    if method:
        setattr(Tensor, name, fn)


def _install_all(name, aliases, fn, function, method):
    install(name, fn, function, method)
    for alias in aliases:
        install(alias, fn, function, method)


def register_function(name, fn, method=True, function=True):
    """Hand-written spellings (composites, wrappers with special signatures)."""
    install(name, fn, function, method)
    return fn


# ----------------------------------------------------------------------- the two kinds of spelling
def new_spelling(op, dim_alias=True):
    """`oar.op(...)` / `x.op(...)`: a result in new memory, or in out=. (View ops are
    hand-written functions over registry.dispatch_view, ops/views.py: none is declared.)"""
    name = op.name
    params = _param_names(op)
    if params == ("x",):
        fn = new_unary(op, name)
    elif params == ("x", "y"):
        fn = new_binary(op, name)
    elif params == ("x", "y", "alpha"):
        fn = new_binary_alpha(op, name)
    else:
        fn = generic(op, name, _signature(op, dim_alias, with_out=True), "new")
    return describe(fn, name, _signature(op, dim_alias, with_out=True), _new_doc(op))


def inplace_spelling(op, name, dim_alias=True):
    """`oar.op_(x, ...)` / `x.op_(...)`: writes into x and returns x (Note [Check, then
    write] is dispatch_inplace's job; the fast path below only runs where no check can fail)."""
    params = _param_names(op)
    if params == ("x",):
        fn = inplace_unary(op, name)
    elif params == ("x", "y"):
        fn = inplace_binary(op, name)
    elif params == ("x", "y", "alpha"):
        fn = inplace_binary_alpha(op, name)
    else:
        fn = generic(op, name, _signature(op, dim_alias, with_out=False), "inplace")
    return describe(fn, name, _signature(op, dim_alias, with_out=False), _inplace_doc(op, name))


def _param_names(op):
    """The op's inputs and attrs, which pick a template (Note [Spelling templates])."""
    return tuple(op.inputs) + tuple(a for a, _ in op.attrs)


# ----------------------------------------------------------------------- Note [Fast path], inline
def fast_parts(op):
    """What the inline fast paths need from a declaration: the kernel (None: no fast path),
    the class of the tensors it applies to (Tensor itself, not a subclass; None: none), its
    constant operand (relu: maximum(x, 0)), and the size from which a result may be a pooled
    buffer.

    Note [Caching allocator]: a large result may go into a pooled buffer. Safe only when the
    buffer has the result's shape and dtype: the result dtype is x's (not a comparison's
    bool) and, with a tensor operand, that operand has x's shape exactly (a broadcasting
    operand gives a bigger result). The binary templates test `yd.shape == xd.shape` inside
    the conditional expression: once, `a if c1 else None if c2 else None` took the pooled
    buffer whatever the other operand's shape."""
    fast = op.fast if op.kind == "pointwise" and len(op.inputs) <= 2 else None
    if len(op.fast_const) > 1 or (op.fast_const and len(op.inputs) > 1):
        raise ValueError(f"{op.name}: fast_const holds at most one constant, for a one-input op")
    const = op.fast_const[0] if op.fast_const else _NO_CONST
    pooled = op.result_dtype is None or op.result_dtype is float_result
    # the templates test `x.__class__ in fast_classes`: one test, not two, on every call;
    # the set is shared, so a door imported later adds its class (Note [Result class])
    fast_classes = FAST_CLASSES if fast is not None else frozenset()
    return fast, fast_classes, const, _POOL_MIN if pooled else _NEVER


def _second_operand(x, y, op, name, spelling_name):
    """operand() for a binary spelling's y, named as the door names it in errors: the core's
    'y' is PyTorch's 'other' (a PyTorch-door x: its class is a subclass of the core's)."""
    if name == "y" and x.__class__ is not Tensor and isinstance(x, Tensor):
        name = "other"
    return operand(y, op, name, spelling_name)


def elision_parts(op):
    """Note [Temporary elision] for a template: the size from which the fast path may write
    into an operand (never where its result dtype may differ from the operands': a
    comparison's bool, a door-aware rule), and whether the fast kernel may write into input
    0 (the in-place spelling's kernel, or a ufunc) and into input 1 (a ufunc). The general
    path offers operands from _ELIDE_MIN whatever the op: dispatch checks the dtype."""
    ufunc = op.fast.__class__ is _ufunc
    rd = op.result_dtype
    try:
        same = rd is None or (not getattr(rd, "door_aware", False)
                              and all(rd(d) == d for d in _FLOATS))
    except Exception:   # a rule that needs more than a dtype
        same = False
    return (_ELIDE_MIN if same else _NEVER), op.inplace_ok or ufunc, ufunc


def usable_operand(other):
    """Whether an operator can take `other` (else NotImplemented, and Python tries the other
    side): a tensor, a Python number or anything with __array__ (not a list: `x + [1]` is
    a TypeError and `x == [1]` is False in both frameworks)."""
    return isinstance(other, (Tensor, int, float, bool, complex)) or hasattr(other, "__array__")


def _operand_errors(op, spelling_name, operator):
    """How `operand` names a bad second operand: `mul(): argument 'y'`, or for an operator
    (where Python's own error for an unusable type comes first) `argument 'other'`."""
    return (None, "other", None) if operator else (op, "y", spelling_name)


def _placed(op, args, attrs, inplace_name=None):
    """A fast kernel raised TypeError: with a device in use, a device array met a CPU array
    (an operand, or a pooled buffer) -- the general path, which refuses mixed places with the
    door's message (Note [Array module per place]); else the error as it was."""
    if not _xp.ACTIVE:
        raise   # noqa: PLE0704  (re-raises the TypeError being handled by the caller)
    if inplace_name is not None:
        return R.dispatch_inplace(op, args, attrs, inplace_name)
    return R.dispatch(op, args, attrs)


# Each template below ends in its general path, written inline too (an extra call would cost
# every call that needs a gradient): Note [Argument layer] for the inputs and attrs the
# template has, then the dispatch. `spelling_name` is what error messages call the op.
def new_unary(op, spelling_name):
    """(x, name=None, out=None): Note [Fast path] for a plain floating x."""
    fast, fast_classes, const, pool_min = fast_parts(op)
    elide_min, x_ok, _ = elision_parts(op)
    operands = () if const is _NO_CONST else (const,)

    def spelling(x, name=None, out=None):
        if out is None and x.__class__ in fast_classes:
            xd = x._data
            if xd.dtype in _FLOATS and (x._grad_fn is None and not x._requires_grad
                                        and x._view is None or not _STATE.enabled):
                buf = None
                if xd.nbytes >= elide_min:
                    if (_E.ENABLED and x_ok and _dead(x)
                            and _E.root_buffer(x, 1) is not None):   # Note [Temporary elision]
                        return _E.result(x.__class__, _E.into(fast, x, xd, *operands), x)
                    if xd.nbytes >= pool_min:
                        buf = _take(xd.shape, xd.dtype)
                try:
                    r = fast(xd, out=buf) if const is _NO_CONST else fast(xd, const, out=buf)
                except TypeError:   # a device x, a pooled CPU buffer (Note [Array module per place])
                    return _placed(op, (x,), ())
                if r.__class__ is not _ndarray:
                    r = _asarray(r)
                return wrap_result(x.__class__, r)
        if out is None and x.__class__ in _OFFER and x._data.nbytes >= _ELIDE_MIN and \
                _E.ENABLED and _dead(x):   # Note [Temporary elision]
            xd = None   # dispatch counts the references to x's array
            return R.dispatch(op, (x,), (), (0,))
        if x.__class__ is not Tensor and not isinstance(x, Tensor):
            x = as_tensor(x)
        if out is not None:
            return R.dispatch_out(op, (x,), (), out)
        return R.dispatch(op, (x,), ())
    return spelling


def new_binary(op, spelling_name, operator=False):
    """(x, y, name=None, out=None): Note [Fast path] for plain floating tensors of one dtype or
    a Python number. With `operator`, the body of `x + y` (ops/operators.py): an unusable y
    gives NotImplemented, and the op's attrs are their defaults."""
    fast, fast_classes, _, pool_min = fast_parts(op)
    elide_min, x_ok, y_ok = elision_parts(op)
    attrs = op.fast_attrs
    errors = _operand_errors(op, spelling_name, operator)

    def spelling(x, y, name=None, out=None):
        if out is None and x.__class__ in fast_classes:
            xd = x._data
            if xd.dtype in _FLOATS and (x._grad_fn is None and not x._requires_grad
                                        and x._view is None or not _STATE.enabled):
                c = y.__class__
                if c in fast_classes:
                    yd = y._data
                    if yd.dtype is xd.dtype and (y._grad_fn is None and not y._requires_grad
                                                 and y._view is None or not _STATE.enabled):
                        buf = None
                        if _E.ENABLED and (xd.nbytes >= elide_min or yd.nbytes >= elide_min) \
                                and xd.__class__ is yd.__class__:   # (places mixed: refused below)
                            # `dead` before x and y are pushed as arguments (it counts them)
                            x_dead = x_ok and _dead(x)
                            y_dead = y_ok and _dead(y)
                            t = _E.binary_target(x, y, x_dead, y_dead)
                            if t is not None:   # Note [Temporary elision]
                                return _E.result(x.__class__, _E.into(fast, t, xd, yd), t)
                        if xd.nbytes >= pool_min and yd.shape == xd.shape:
                            buf = _take(xd.shape, xd.dtype)
                        try:
                            r = fast(xd, yd, out=buf)
                        except ValueError as e:   # shapes that do not broadcast
                            _fast_failed(op, (xd, yd), e)
                        except TypeError:   # places mixed (Note [Array module per place])
                            return _placed(op, (x, y), attrs)
                        if r.__class__ is not _ndarray:
                            r = _asarray(r)
                        return wrap_result(x.__class__, r)
                elif c is float or c is int:
                    buf = None
                    if xd.nbytes >= elide_min:
                        if (_E.ENABLED and x_ok and _dead(x)
                                and _E.root_buffer(x, 1) is not None):   # Note [Temporary elision]
                            return _E.result(x.__class__, _E.into(fast, x, xd, y), x)
                        if xd.nbytes >= pool_min:
                            buf = _take(xd.shape, xd.dtype)
                    try:
                        r = fast(xd, y, out=buf)
                    except TypeError:   # a device x, a pooled CPU buffer
                        return _placed(op, (x, y), op.fast_attrs)
                    if r.__class__ is not _ndarray:
                        r = _asarray(r)
                    return wrap_result(x.__class__, r)
        if x.__class__ is not Tensor and not isinstance(x, Tensor):
            x = as_tensor(x)
        if y.__class__ is not Tensor and not isinstance(y, Tensor):
            if operator and not usable_operand(y):
                return NotImplemented
            y = _second_operand(x, y, *errors)
        if out is not None:
            return R.dispatch_out(op, (x, y), attrs, out)
        # Note [Temporary elision]: which operands nobody else holds (large ones only)
        x_big = x.__class__ in _OFFER and x._data.nbytes >= _ELIDE_MIN
        y_big = y.__class__ in _OFFER and y._data.nbytes >= _ELIDE_MIN
        reuse = (((0,) if x_big and _dead(x) else ()) + ((1,) if y_big and _dead(y) else ())
                 if (x_big or y_big) and _E.ENABLED else ())
        if reuse:
            xd = yd = None   # dispatch counts the references to the operands' arrays
            return R.dispatch(op, (x, y), attrs, reuse)
        return R.dispatch(op, (x, y), attrs)
    return spelling


def new_binary_alpha(op, spelling_name):
    """(x, y, alpha=1, name=None, out=None): new_binary's fast path when alpha is the default."""
    fast, fast_classes, _, pool_min = fast_parts(op)
    elide_min, x_ok, y_ok = elision_parts(op)
    (_, default), = op.attrs
    checked = "alpha" in op.number_attrs

    def spelling(x, y, alpha=default, name=None, out=None):
        if out is None and x.__class__ in fast_classes and alpha == default:
            xd = x._data
            if xd.dtype in _FLOATS and (x._grad_fn is None and not x._requires_grad
                                        and x._view is None or not _STATE.enabled):
                c = y.__class__
                if c in fast_classes:
                    yd = y._data
                    if yd.dtype is xd.dtype and (y._grad_fn is None and not y._requires_grad
                                                 and y._view is None or not _STATE.enabled):
                        buf = None
                        if _E.ENABLED and (xd.nbytes >= elide_min or yd.nbytes >= elide_min) \
                                and xd.__class__ is yd.__class__:   # (places mixed: refused below)
                            # `dead` before x and y are pushed as arguments (it counts them)
                            x_dead = x_ok and _dead(x)
                            y_dead = y_ok and _dead(y)
                            t = _E.binary_target(x, y, x_dead, y_dead)
                            if t is not None:   # Note [Temporary elision]
                                return _E.result(x.__class__, _E.into(fast, t, xd, yd), t)
                        if xd.nbytes >= pool_min and yd.shape == xd.shape:
                            buf = _take(xd.shape, xd.dtype)
                        try:
                            r = fast(xd, yd, out=buf)
                        except ValueError as e:
                            _fast_failed(op, (xd, yd), e)
                        except TypeError:   # places mixed (Note [Array module per place])
                            return _placed(op, (x, y), (alpha,))
                        if r.__class__ is not _ndarray:
                            r = _asarray(r)
                        return wrap_result(x.__class__, r)
                elif c is float or c is int:
                    buf = None
                    if xd.nbytes >= elide_min:
                        if (_E.ENABLED and x_ok and _dead(x)
                                and _E.root_buffer(x, 1) is not None):   # Note [Temporary elision]
                            return _E.result(x.__class__, _E.into(fast, x, xd, y), x)
                        if xd.nbytes >= pool_min:
                            buf = _take(xd.shape, xd.dtype)
                    try:
                        r = fast(xd, y, out=buf)
                    except TypeError:   # a device x, a pooled CPU buffer
                        return _placed(op, (x, y), op.fast_attrs)
                    if r.__class__ is not _ndarray:
                        r = _asarray(r)
                    return wrap_result(x.__class__, r)
        if x.__class__ is not Tensor and not isinstance(x, Tensor):
            x = as_tensor(x)
        if y.__class__ is not Tensor and not isinstance(y, Tensor):
            y = _second_operand(x, y, op, "y", spelling_name)
        if checked and alpha.__class__ is not float and alpha.__class__ is not int:
            alpha = number_attr(alpha, spelling_name, "alpha", default is None)
        if out is not None:
            return R.dispatch_out(op, (x, y), (alpha,), out)
        # Note [Temporary elision]: which operands nobody else holds (large ones only)
        x_big = x.__class__ in _OFFER and x._data.nbytes >= _ELIDE_MIN
        y_big = y.__class__ in _OFFER and y._data.nbytes >= _ELIDE_MIN
        reuse = (((0,) if x_big and _dead(x) else ()) + ((1,) if y_big and _dead(y) else ())
                 if (x_big or y_big) and _E.ENABLED else ())
        if reuse:
            xd = yd = None   # dispatch counts the references to the operands' arrays
            return R.dispatch(op, (x, y), (alpha,), reuse)
        return R.dispatch(op, (x, y), (alpha,))
    return spelling


def new_reflected(op):
    """(x, y) for `2 - x` (x is the tensor, y the number on the left): the fast path only
    for a Python number, which stays weak for type promotion (ops/operators.py)."""
    fast, fast_classes, _, pool_min = fast_parts(op)
    elide_min, _, x_ok = elision_parts(op)   # x is the op's input 1 here
    attrs = op.fast_attrs

    def spelling(x, y):
        reuse = ()
        if x.__class__ in fast_classes:
            xd = x._data
            if xd.dtype in _FLOATS and (x._grad_fn is None and not x._requires_grad
                                        and x._view is None or not _STATE.enabled):
                c = y.__class__
                if c is float or c is int:
                    if (xd.nbytes >= elide_min and _E.ENABLED and x_ok and _dead(x)
                            and _E.root_buffer(x, 1) is not None):   # Note [Temporary elision]
                        return _E.result(x.__class__, _E.into(fast, x, y, xd), x)
                    r = fast(y, xd)
                    if r.__class__ is not _ndarray:
                        r = _asarray(r)
                    return wrap_result(x.__class__, r)
        if x.__class__ in _OFFER and x._data.nbytes >= _ELIDE_MIN and _E.ENABLED and \
                _dead(x):   # Note [Temporary elision]
            xd = None   # dispatch counts the references to x's array
            reuse = (1,)
        if not usable_operand(y):
            return NotImplemented
        r = R.dispatch(op, (operand(y), x), attrs, reuse)
        if r.__class__ is not x._result_class:   # Note [Result class]: x is the tensor operand
            r.__class__ = x._result_class
        return r
    return spelling


# In place: safe without any check when x is a floating root tensor viewing its whole buffer
# (so it cannot overlap itself) that needs no gradient, and the operand is a Python number or
# a plain tensor of x's dtype and shape in another storage. Then only the version bump (and the
# mutation log, for a watched storage) is left to do.
def inplace_unary(op, spelling_name):
    """(x, name=None) in place: Note [Fast path], else dispatch_inplace."""
    fast, fast_classes, const, _ = fast_parts(op)

    def spelling(x, name=None):
        if x.__class__ in fast_classes:
            xd = x._data
            if (xd is x._storage.buffer and x._grad_fn is None and not x._requires_grad
                    and xd.dtype in _FLOATS):
                if const is _NO_CONST:
                    fast(xd, out=xd)
                else:
                    fast(xd, const, out=xd)
                st = x._storage
                st.version += 1
                if st.watched:
                    st.log_mutation(spelling_name)
                return x
        if x.__class__ is not Tensor and not isinstance(x, Tensor):
            _not_a_target(x, spelling_name)
        return R.dispatch_inplace(op, (x,), (), spelling_name)
    return spelling


def inplace_binary(op, spelling_name, operator=False):
    """(x, y, name=None) in place: Note [Fast path], else dispatch_inplace. With `operator`,
    the body of `x += y` (the op's attrs are their defaults)."""
    fast, fast_classes, _, _ = fast_parts(op)
    attrs = op.fast_attrs
    errors = _operand_errors(op, spelling_name, operator)

    def spelling(x, y, name=None):
        if x.__class__ in fast_classes:
            xd = x._data
            if (xd is x._storage.buffer and x._grad_fn is None and not x._requires_grad
                    and xd.dtype in _FLOATS):
                c = y.__class__
                if c in fast_classes:
                    yd = y._data
                    if (yd.dtype is xd.dtype and y._grad_fn is None and not y._requires_grad
                            and y._view is None and y._storage is not x._storage
                            and yd.shape == xd.shape):
                        try:
                            fast(xd, yd, out=xd)
                        except TypeError:   # places mixed, nothing written
                            return _placed(op, (x, y), op.fast_attrs, spelling_name)
                        st = x._storage
                        st.version += 1
                        if st.watched:
                            st.log_mutation(spelling_name)
                        return x
                elif c is float or c is int:
                    fast(xd, y, out=xd)
                    st = x._storage
                    st.version += 1
                    if st.watched:
                        st.log_mutation(spelling_name)
                    return x
        if x.__class__ is not Tensor and not isinstance(x, Tensor):
            _not_a_target(x, spelling_name)
        if y.__class__ is not Tensor and not isinstance(y, Tensor):
            y = _second_operand(x, y, *errors)
        return R.dispatch_inplace(op, (x, y), attrs, spelling_name)
    return spelling


def inplace_binary_alpha(op, spelling_name):
    """(x, y, alpha=1, name=None) in place: inplace_binary's fast path when alpha is the default."""
    fast, fast_classes, _, _ = fast_parts(op)
    (_, default), = op.attrs
    checked = "alpha" in op.number_attrs

    def spelling(x, y, alpha=default, name=None):
        if x.__class__ in fast_classes and alpha == default:
            xd = x._data
            if (xd is x._storage.buffer and x._grad_fn is None and not x._requires_grad
                    and xd.dtype in _FLOATS):
                c = y.__class__
                if c in fast_classes:
                    yd = y._data
                    if (yd.dtype is xd.dtype and y._grad_fn is None and not y._requires_grad
                            and y._view is None and y._storage is not x._storage
                            and yd.shape == xd.shape):
                        try:
                            fast(xd, yd, out=xd)
                        except TypeError:   # places mixed, nothing written
                            return _placed(op, (x, y), op.fast_attrs, spelling_name)
                        st = x._storage
                        st.version += 1
                        if st.watched:
                            st.log_mutation(spelling_name)
                        return x
                elif c is float or c is int:
                    fast(xd, y, out=xd)
                    st = x._storage
                    st.version += 1
                    if st.watched:
                        st.log_mutation(spelling_name)
                    return x
        if x.__class__ is not Tensor and not isinstance(x, Tensor):
            _not_a_target(x, spelling_name)
        if y.__class__ is not Tensor and not isinstance(y, Tensor):
            y = _second_operand(x, y, op, "y", spelling_name)
        if checked and alpha.__class__ is not float and alpha.__class__ is not int:
            alpha = number_attr(alpha, spelling_name, "alpha", default is None)
        return R.dispatch_inplace(op, (x, y), (alpha,), spelling_name)
    return spelling


# --------------------------------------------------------------------------- generic template
def generic(op, spelling_name, signature, kind):
    """(*args, **kwargs) bound against `signature`, for every op without a template; `kind`
    says how it ends: "new" (dispatch, or out=) or "inplace". The argument layer is
    written inline, not called: it is most of what this spelling adds to the dispatch."""
    bind = _binder(op, spelling_name, signature)
    n_inputs = len(op.inputs)
    n_positional = n_inputs + len(op.attrs)
    attr_names = [a for a, _ in op.attrs]
    attr_defaults = tuple(d for _, d in op.attrs)
    axis_at = attr_names.index("axis") if "axis" in attr_names else None
    other_inputs = tuple(enumerate(op.inputs))[1:]
    numeric = tuple((i, a, attr_defaults[i] is None) for i, a in enumerate(attr_names)
                    if a in op.number_attrs)
    inplace = kind == "inplace"

    def spelling(*args, **kwargs):
        n = len(args)
        if n == n_inputs and not kwargs:    # the commonest call, the inputs alone, binds nothing
            attrs = out = None
        elif n_inputs < n <= n_positional and not kwargs:   # attrs by position
            attrs = [*args[n_inputs:], *attr_defaults[n - n_inputs:]]
            args = args[:n_inputs]
            out = None
        else:
            args, attrs, out = bind(args, kwargs)
        # checks as in Note [Argument layer], before any dispatch
        x = args[0]
        if x.__class__ is not Tensor and not isinstance(x, Tensor):
            if inplace:
                _not_a_target(x, spelling_name)
            x = as_tensor(x)
            args = (x, *args[1:])
        for i, p in other_inputs:
            v = args[i]
            if v.__class__ is not Tensor and not isinstance(v, Tensor):
                args = list(args)
                args[i] = operand(v, op, p, spelling_name)
                args = tuple(args)
        if attrs is None:   # the declared defaults need no check
            attrs = attr_defaults
        else:
            for i, a, none_ok in numeric:
                v = attrs[i]
                if v.__class__ is not float and v.__class__ is not int:
                    attrs[i] = number_attr(v, spelling_name, a, none_ok)
            attrs = tuple(attrs)
        if axis_at is not None:
            attrs = (*attrs[:axis_at], axis_attr(attrs[axis_at], x, spelling_name),
                     *attrs[axis_at + 1:])
        if inplace:
            return R.dispatch_inplace(op, args, attrs, spelling_name)
        if out is not None:
            return R.dispatch_out(op, args, attrs, out)
        return R.dispatch(op, args, attrs)
    return spelling


def _not_a_target(x, spelling_name):
    """An in-place spelling writes into its first argument, which must therefore be a tensor:
    a number or a list would become a fresh tensor whose result nobody sees (Paddle and PyTorch
    raise a TypeError)."""
    from ..autograd.errors import ArgTypeError
    raise ArgTypeError(f"{spelling_name}(): x must be tensor type, but got {type(x)} (an "
                       "in-place op writes into x). Fix: pass a Tensor, or use the op without "
                       "the trailing underscore.")

def _binder(op, spelling_name, signature):
    """(args, kwargs) -> (inputs, attrs as a list, out) by Python's binding rules for
    `signature`, with Python's TypeErrors; `dim=` given means `axis=`."""
    names = tuple(signature.parameters)
    defaults = tuple(p.default for p in signature.parameters.values())
    position = {n: i for i, n in enumerate(names)}
    n_inputs = len(op.inputs)
    n_positional = n_inputs + len(op.attrs)     # then name, dim, out
    dim_at = position.get("dim")
    axis_at = position.get("axis")
    out_at = position.get("out")
    attr_at = {a: i for i, (a, _) in enumerate(op.attrs)}
    attr_names = attr_at.keys()
    attr_defaults = tuple(d for _, d in op.attrs)

    def bind(args, kwargs):
        n = len(args)
        if n == n_inputs and kwargs.keys() <= attr_names:   # the usual keyword call
            attrs = list(attr_defaults)
            for key, value in kwargs.items():
                attrs[attr_at[key]] = value
            return args, attrs, None
        if n > len(names):
            raise TypeError(f"{spelling_name}() takes from {n_inputs} to {len(names)} positional "
                            f"arguments but {n} were given")
        values = [*args, *defaults[n:]]
        for key, value in kwargs.items():
            i = position.get(key)
            if i is None:
                raise TypeError(f"{spelling_name}() got an unexpected keyword argument '{key}'")
            if i < n:
                raise TypeError(f"{spelling_name}() got multiple values for argument '{key}'")
            values[i] = value
        if n < n_inputs:
            missing = [repr(names[i]) for i in range(n_inputs) if values[i] is _EMPTY]
            if missing:
                s = "s" if len(missing) > 1 else ""
                listed = " and ".join([", ".join(missing[:-1]), missing[-1]] if s else missing)
                raise TypeError(f"{spelling_name}() missing {len(missing)} required positional "
                                f"argument{s}: {listed}")
        if dim_at is not None and values[dim_at] is not _DIM_UNSET:
            values[axis_at] = values[dim_at]
        return (tuple(values[:n_inputs]), values[n_inputs:n_positional],
                values[out_at] if out_at is not None else None)
    return bind


# --------------------------------------------------------------------------- what users see
def _signature(op, dim_alias, with_out):
    """The declared parameters: inputs, attrs with their defaults, Paddle's `name`, PyTorch's
    `dim` (an alias of an `axis` attr) and `out` for an out-of-place spelling."""
    params = [inspect.Parameter(p, _PK) for p in op.inputs]
    params += [inspect.Parameter(a, _PK, default=d) for a, d in op.attrs]
    params.append(inspect.Parameter("name", _PK, default=None))
    if dim_alias and any(a == "axis" for a, _ in op.attrs):
        params.append(inspect.Parameter("dim", _PK, default=_DIM_UNSET))
    if with_out:
        params.append(inspect.Parameter("out", _PK, default=None))
    return inspect.Signature(params)


def describe(fn, name, signature, doc, qualname=None, module="oar"):
    """Give a built closure the identity of a hand-written function called `name`. Its code
    object gets the name too (a copy: the template's code is shared), so a traceback or pdb
    says `in mul_` at this file's line, not `in spelling`."""
    qualname = qualname or name
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=qualname)
    fn.__name__ = name
    fn.__qualname__ = qualname
    fn.__module__ = module
    fn.__signature__ = signature
    fn.__doc__ = doc
    return fn


def summary(op):
    """One line saying what `op` computes: op.doc, else the kernel's docstring, else a
    sentence from the name."""
    text = op.doc or (op.kernel.__doc__ or "").strip()
    return text or f"The {op.name.rstrip('_').replace('_', ' ')} op."


def paragraphs(*paragraphs):
    return "\n\n".join(textwrap.fill(p, 79) for p in paragraphs if p)


def _new_doc(op):
    first = op.inputs[0]
    returns = ("Returns a new tensor; the inputs are unchanged. With out=t, writes the "
               "result into t instead and returns t.")
    also = []
    if op.method:
        also.append(f"Also a method: {first}.{op.name}(...).")
    if op.inplace_ok:
        also.append(f"In-place spelling: {op.name}_ (writes into {first} and returns it).")
    return paragraphs(summary(op), returns, " ".join(also))


def _inplace_doc(op, name):
    first = op.inputs[0]
    inplace = (f"In place: writes the result into {first} (the first input) and returns that "
               f"same tensor object, so `{first}.{name}(...) is {first}`. {first} keeps its "
               "shape and dtype (an operand that would change them is refused before anything "
               "is written), and its version counter goes up by one.")
    out_of_place = (f"Out-of-place spelling: {op.name} (returns a new tensor)."
                    if op.kind != "inplace" else "")
    return paragraphs(summary(op), inplace, out_of_place)
