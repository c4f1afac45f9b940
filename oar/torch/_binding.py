"""Torch's keyword names and `out=` on every function and method of the torch door.

How and why: Note [Torch signatures] below.
"""
from __future__ import annotations

import functools
import inspect
import json
import keyword
import pathlib
import warnings

from .. import dtypes as _dt
from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError
from ..tensor import Tensor as _CoreTensor

# Note [Torch signatures]
# The core's spellings carry Paddle's parameter names (`add(x, y, alpha=1, name=None)`), and
# the door's own functions were written for PyTorch's positional forms. PyTorch programs also
# call by keyword (`torch.add(input=x, other=y, alpha=2)`, `x.split(split_size=1)`,
# `torch.mean(input=x, dim=0, keepdim=True)`) and pass `out=` to almost every function. Those
# facts are data: oar/torch/_schemas.json holds torch 2.13's overloads (tools/torch_schemas.py
# writes it from torch's own schemas), and this module binds them, once, onto whatever
# implementation the door has for a name:
#
# * a call with no keywords goes straight to the implementation (one extra frame);
# * keywords are matched against torch's overloads as Python would bind them (plus the NumPy
#   aliases torch's parser accepts: axis/dim, keepdims/keepdim, x/input, x2/other); a name
#   that no overload has is torch's TypeError; a torch name the implementation lacks is passed
#   under the implementation's own name for the same position (torch's positional order is
#   the door's positional order, so the position is the meaning);
# * `out=` (a tensor, or a tuple for multi-output ops) is handled here for every function,
#   as torch does it: refused when grad mode is on and an argument (or out) requires grad;
#   the result type must be castable to out's (Note [Type promotion], dtypes.can_cast); an
#   out of the wrong size is resized (a non-empty one with torch's deprecation warning); the
#   values are written through the Inplace mechanism's copy (checks, then one version bump);
#   factories without dtype= take out's dtype. All checks run before anything is written.

_TABLE = json.loads((pathlib.Path(__file__).parent / "_schemas.json").read_text())["ops"]
REQUIRED = "<required>"
_STATE = grad_mode.STATE
# torch's python_arg_parser accepts these NumPy names for its own
_NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input",
                  "x1": "input", "x2": "other"}
# keywords torch's parser adds to factory functions beyond their schema
_FACTORY_EXTRAS = ("requires_grad", "memory_format", "generator", "names")


class _Overload:
    __slots__ = ("params", "positional", "names", "required", "factory")

    def __init__(self, row):
        self.params = [tuple(p) for p in row["params"]]
        self.positional = [n for n, kwonly, _ in self.params if not kwonly]
        self.names = {n for n, _, _ in self.params}
        self.required = [(n, kwonly) for n, kwonly, d in self.params if d == REQUIRED]
        self.factory = "pin_memory" in self.names
        if self.factory:
            self.names.update(_FACTORY_EXTRAS)

    def binds(self, nargs, keys):
        if nargs > len(self.positional):
            return False
        given = set(self.positional[:nargs])
        for k in keys:
            if k not in self.names or k in given:
                return False
        for n, kwonly in self.required:
            if n not in keys and (kwonly or n not in given):
                return False
        return True


def _overloads(name, form):
    rows = _TABLE.get(name, {}).get(form)
    return [_Overload(r) for r in rows] if rows else None


def _impl_params(fn, offset):
    """The implementation's positional parameter names (after `offset`, self for methods),
    and every name it accepts by keyword (None: it takes **kwargs)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return [], None
    pos, names, var = [], set(), False
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            pos.append(p.name)
        if p.kind == p.VAR_POSITIONAL:
            pos.append(None)   # from here on, positions are not names
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            names.add(p.name)
        if p.kind == p.VAR_KEYWORD:
            var = True
    pos = pos[offset:]
    if None in pos:
        pos = pos[:pos.index(None)] + [None] * 64
    return pos, (None if var else names)


class _Binder:
    """The keyword plan of one torch name onto one implementation (Note [Torch signatures])."""

    def __init__(self, name, fn, form):
        self.name = name
        self.fn = fn
        self.form = form
        self.overloads = _overloads(name, form) or []
        self.all_names = set().union(*(o.names for o in self.overloads)) if self.overloads \
            else set()
        self.impl_pos, self.impl_names = _impl_params(fn, form == "method")
        self.plans = {}
        rows = _TABLE.get(name, {}).get(form, ()) if form != "method" else ()
        outs = [r["out"] for r in rows if r["out"]]
        self.has_out = bool(outs)
        # what out= may be: one tensor (add), a tuple of tensors (max with a dim: values,
        # indices) or a Tensor[] (split_copy: a tuple of any length, and None returned)
        self.out_single = any(len(o) == 1 and not o[0].endswith("[]") for o in outs)
        self.out_tuple = any(len(o) > 1 for o in outs)
        self.out_is_list = any(n.endswith("[]") for o in outs for n in o)
        self.factory = any(o.factory for o in self.overloads)

    def needed(self):
        """False when the implementation already takes torch's names and no out= (it was
        written to torch's signature): then it is bound as it is."""
        if not self.overloads:
            return False
        if self.has_out or self.impl_names is None:
            return bool(self.overloads)
        return not self.all_names <= self.impl_names

    def plan(self, nargs, keys):
        """(renames {torch key: impl key or position}, fill defaults) for this call shape."""
        key = (nargs, keys)
        p = self.plans.get(key)
        if p is None:
            p = self.plans[key] = self._make_plan(nargs, keys)
        return p

    def _make_plan(self, nargs, keys):
        canon = {}
        for k in keys:
            t = k
            if k not in self.all_names and k in _NUMPY_ALIASES:
                t = _NUMPY_ALIASES[k]
            if t not in self.all_names:
                if self.impl_names is not None and k in self.impl_names and not self.overloads:
                    canon[k] = k
                    continue
                raise ArgTypeError(f"{self.name}() got an unexpected keyword argument '{k}'")
            canon[k] = t
        tkeys = set(canon.values())
        ov = next((o for o in self.overloads if o.binds(nargs, tkeys)), None)
        moves = {}
        positional = {}
        for k, t in canon.items():
            if self.impl_names is not None and t in self.impl_names:
                moves[k] = t
                continue
            if ov is None or t not in ov.positional:
                moves[k] = t   # the implementation's own TypeError names it
                continue
            i = ov.positional.index(t)
            target = self.impl_pos[i] if i < len(self.impl_pos) else None
            if self.impl_names is not None and target is not None and target in self.impl_names:
                moves[k] = target
            else:   # (*args, **kwargs) or *dims: only by position
                positional[k] = i
        fill = None
        if positional:   # positions nargs..last, each from its keyword or torch's default
            last = max(positional.values())
            at = {ov.positional.index(t): k for k, t in canon.items() if t in ov.positional}
            fill = []
            for i in range(nargs, last + 1):
                src = at.get(i)
                if src is None:
                    n = ov.positional[i]
                    d = next(d for pn, _, d in ov.params if pn == n)
                    if d == REQUIRED:
                        raise ArgTypeError(f"{self.name}() missing required argument '{n}'")
                    fill.append((None, d))
                else:
                    moves.pop(src, None)
                    fill.append((src, None))
        return moves, fill

    def call(self, args, kwargs):
        out = kwargs.pop("out", None) if self.has_out else None
        if kwargs:
            moves, fill = self.plan(len(args) - (self.form == "method"),
                                    frozenset(kwargs))
            if fill is not None:
                args = list(args)
                for src, d in fill:
                    args.append(kwargs.pop(src) if src is not None else d)
            kwargs = {moves.get(k, k): v for k, v in kwargs.items()}
        if out is None:
            return self.fn(*args, **kwargs)
        return self.call_out(args, kwargs, out)

    def call_out(self, args, kwargs, out):
        several = isinstance(out, (tuple, list))
        if not (self.out_tuple or self.out_is_list if several else self.out_single):
            raise ArgTypeError(f"{self.name}(): argument 'out' must be "
                               + ("Tensor" if several else "tuple of Tensors")
                               + f", not {type(out).__name__}")
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        for o in outs:
            if not isinstance(o, _CoreTensor):
                raise ArgTypeError(f"{self.name}(): argument 'out' must be Tensor, not "
                                   f"{type(o).__name__}")
        if _STATE.enabled and (any(o.requires_grad for o in outs)
                               or _any_requires_grad(args) or _any_requires_grad(
                                   kwargs.values())):
            raise RuntimeError(f"{self.name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        if self.factory and kwargs.get("dtype") is None and len(outs) == 1:
            kwargs["dtype"] = outs[0].dtype
        res = self.fn(*args, **kwargs)
        results = tuple(res) if isinstance(res, tuple) else (res,)
        if len(results) != len(outs):
            raise ArgTypeError(f"{self.name}(): out= takes {len(results)} tensor(s) here, got "
                               f"{len(outs)}")
        write_out(self.name, outs, results)
        if self.out_is_list and not self.out_tuple:
            return None   # torch's Tensor[] out= functions return None
        if isinstance(out, (tuple, list)):
            return type(res)(outs) if isinstance(res, tuple) and type(res) is not tuple \
                else tuple(outs)
        return out


def _any_requires_grad(values):
    for v in values:
        if isinstance(v, _CoreTensor):
            if v.requires_grad:
                return True
        elif isinstance(v, (list, tuple)) and _any_requires_grad(v):
            return True
    return False


def write_out(name, outs, results):
    """Writes each result into its out tensor as torch's out= does (Note [Torch
    signatures]); every check runs before the first write."""
    from ..ops.views import resize_without_bump
    pairs = []
    for o, r in zip(outs, results):
        if not isinstance(r, _CoreTensor):
            raise ArgTypeError(f"{name}(): out= is not supported: the result is a "
                               f"{type(r).__name__}")
        if not _dt.can_cast(r._data.dtype, o._data.dtype):
            raise RuntimeError(f"result type {_torch_name(r._data.dtype)} can't be cast to the "
                               f"desired output type {_torch_name(o._data.dtype)}")
        pairs.append((o, r))
    for o, r in pairs:
        if o._data.shape != r._data.shape:
            if o._data.size:
                warnings.warn(
                    f"An output with one or more elements was resized since it had shape "
                    f"{list(o._data.shape)}, which does not match the required output shape "
                    f"{list(r._data.shape)}. This behavior is deprecated, and in a future "
                    "PyTorch release outputs will not be resized unless they have zero "
                    "elements. You can explicitly reuse an out tensor t by resizing it, "
                    "inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=4)
            resize_without_bump(o, r._data.shape)
        with grad_mode.no_grad():
            o.copy_(r)   # the Inplace mechanism's checks, the write, one version bump


_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}


def _torch_name(dt):
    return _TORCH_NAMES.get(dt.name, dt.name)


# ---------------------------------------------------------------------------- installing
def _signature(name, form):
    """torch's Python signature of `name` (its first overload, with out= where torch has
    one) for inspect and IDEs."""
    rows = _TABLE.get(name, {}).get(form)
    if not rows or any(keyword.iskeyword(n) for n, _, _ in rows[0]["params"]):
        return None   # random_(from, to): not a Python signature
    params = []
    if form == "method":
        params.append(inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD))
    seen_kwonly = False
    for n, kwonly, d in rows[0]["params"]:
        kind = inspect.Parameter.KEYWORD_ONLY if kwonly else \
            inspect.Parameter.POSITIONAL_OR_KEYWORD
        if kwonly:
            seen_kwonly = True
        elif seen_kwonly:
            kind = inspect.Parameter.KEYWORD_ONLY
        default = inspect.Parameter.empty if d == REQUIRED else d
        if kind == inspect.Parameter.POSITIONAL_OR_KEYWORD and default is inspect.Parameter.empty \
                and params and params[-1].default is not inspect.Parameter.empty:
            default = None
        params.append(inspect.Parameter(n, kind, default=default))
    if any(r["out"] for r in rows):
        params.append(inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    return inspect.Signature(params)


def bind_function(name, fn, form="function"):
    """`fn` with torch's keyword names and out= (Note [Torch signatures])."""
    binder = _Binder(name, fn, form)
    if not binder.needed():
        return fn

    @functools.wraps(fn)
    def torch_function(*args, **kwargs):
        if not kwargs:
            return fn(*args)
        return binder.call(args, kwargs)
    _describe(torch_function, name, form, fn)
    return torch_function


def bind_method(name, fn):
    """The method `fn` with torch's keyword names (Note [Torch signatures])."""
    binder = _Binder(name, fn, "method")
    if not binder.needed():
        return fn

    @functools.wraps(fn)
    def torch_method(self, *args, **kwargs):
        if not kwargs:
            return fn(self, *args)
        return binder.call((self, *args), kwargs)
    _describe(torch_method, name, "method", fn)
    return torch_method


def _describe(wrapper, name, form, fn):
    wrapper.__name__ = name
    wrapper.__qualname__ = name if form != "method" else f"Tensor.{name}"
    wrapper.__module__ = "oar.torch.nn.functional" if form == "functional" else "oar.torch"
    sig = _signature(name, form)
    if sig is not None:
        wrapper.__signature__ = sig
    wrapper.__torch_binding__ = True


def _is_plain_callable(v):
    return callable(v) and not isinstance(v, type) and not getattr(
        v, "__torch_binding__", False)


def install(namespace, tensor_class, functional):
    """Binds every function of `namespace` (oar.torch's globals), of `functional` (the
    globals of oar.torch.nn.functional) and every method of `tensor_class` that torch also
    has (Note [Torch signatures])."""
    for ns, form in ((namespace, "function"), (functional, "functional")):
        for name, v in list(ns.items()):
            if name.startswith("_") or name not in _TABLE or not _is_plain_callable(v):
                continue
            if form in _TABLE[name]:
                ns[name] = bind_function(name, v, form)
    for name in _TABLE:
        if "method" not in _TABLE[name]:
            continue
        static = None
        for klass in tensor_class.__mro__:
            if name in klass.__dict__:
                static = klass.__dict__[name]
                break
        if static is None or not inspect.isfunction(static) or getattr(
                static, "__torch_binding__", False):
            continue
        setattr(tensor_class, name, bind_method(name, static))
