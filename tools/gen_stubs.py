"""Generate the type stubs of both doors: oar/__init__.pyi (the Paddle door) and the PyTorch
door's oar/torch/**.pyi (TORCH_STUBS below).

    python tools/gen_stubs.py            # rewrite every stub
    python tools/gen_stubs.py --check    # exit 1 when a committed stub is out of date

The stub is built from what `import oar` installs, not from a hand-kept list:

* every spelling the registry generates from an op declaration (`OPS`: `oar.add`,
  `oar.add_`, `x.add_`, aliases): the declaration says which parameters are tensors
  (`OpDef.inputs`) and what its attributes default to, so those get real types
  (`Tensor` in, `Tensor` out; an in-place method returns `Self`);
* every hand-written spelling (`register_function`, methods defined on `Tensor`, the
  functions of `oar/__init__.py`): `inspect.signature` gives the parameters, typed `Any`;
  the result is `Tensor` for registered spellings and `Any` elsewhere, except for the
  names listed in FUNCTION_RETURNS and METHOD_RETURNS below;
* classes and submodules are re-exported from the modules that define them, so mypy
  reads `oar.nn`, `oar.optimizer`, `oar.no_grad` ... from their sources.

Output is sorted and carries no default values (`= ...`), so it changes only when the
API does. tests/test_stubs.py fails when a committed file differs from a fresh run.

The PyTorch door's stubs are looser (Note [Torch door stubs]): every name the module has at
runtime, functions and methods as `(*args: Any, **kwargs: Any)` with a result type.
"""
from __future__ import annotations

import builtins
import functools
import inspect
import pathlib
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent
STUB = ROOT / "oar" / "__init__.pyi"
COMMAND = "python tools/gen_stubs.py"

# Result types of hand-written spellings that are not a Tensor (registered spellings
# default to Tensor, an in-place method to Self; methods defined in tensor.py and
# unregistered functions to Any).
_SPLITS = {n: "list[Tensor]" for n in ("chunk", "split", "tensor_split", "unbind", "unstack")}
FUNCTION_RETURNS = {
    **_SPLITS, "max": "Any", "min": "Any", "nonzero": "Any", "where": "Any", "seed": "Any",
    "manual_seed": "Any",
    "is_tensor": "builtins.bool", "get_default_dtype": "builtins.str",
    "get_device": "builtins.str", "is_compiled_with_cuda": "builtins.bool",
    "is_grad_enabled": "builtins.bool", "memory_allocated": "builtins.int",
    "max_memory_allocated": "builtins.int", "reset_max_memory_allocated": "None",
    "numel": "builtins.int", "shape": "Size", "CPUPlace": "Place",
}
METHOD_RETURNS = {
    **_SPLITS, "max": "Any", "min": "Any", "nonzero": "Any", "type": "Any",
    # defined in tensor.py
    "backward": "None", "clear_grad": "None", "clear_gradient": "None", "zero_grad": "None",
    "retain_grad": "None", "retain_grads": "None", "data_ptr": "builtins.int",
    "dim": "builtins.int", "ndimension": "builtins.int", "element_size": "builtins.int",
    "numel": "builtins.int", "storage_offset": "builtins.int",
    "get_storage_nbytes": "builtins.int", "is_contiguous": "builtins.bool",
    "requires_grad_": "Self",
}

# Tensor properties and plain class attributes
PROPERTIES = {
    "shape": "Size", "ndim": "builtins.int", "dtype": "_DType", "place": "Place",
    "device": "Place", "is_cuda": "builtins.bool", "strides": "list[builtins.int]",
    "inplace_version": "builtins.int", "grad_fn": "Any", "requires_grad": "builtins.bool",
    "stop_gradient": "builtins.bool", "is_leaf": "builtins.bool", "grad": "Tensor | None",
    "retains_grad": "builtins.bool", "T": "Tensor", "mT": "Tensor", "trainable": "builtins.bool",
}
# the PyTorch door's Tensor has these too
TORCH_PROPERTIES = {
    **PROPERTIES, "data": "Tensor", "H": "Tensor", "mH": "Tensor", "real": "Tensor",
    "imag": "Tensor", "is_cpu": "builtins.bool", "is_xpu": "builtins.bool",
    "nbytes": "builtins.int", "itemsize": "builtins.int", "name": "Any",
}

_BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
           "xor")
# Tensor's special methods: name -> stub line (parameters after self, result)
DUNDERS = {
    **{f"__{n}__": ("other: _TensorLike", "Tensor") for n in _BINARY},
    **{f"__r{n}__": ("other: _TensorLike", "Tensor") for n in _BINARY},
    **{f"__i{n}__": ("other: _TensorLike", "Self") for n in _BINARY},
    **{f"__{n}__": ("other: _TensorLike", "Tensor") for n in ("lt", "le", "gt", "ge")},
    "__eq__": ("other: object", "Tensor"), "__ne__": ("other: object", "Tensor"),
    **{f"__{n}__": ("", "Tensor") for n in ("neg", "pos", "abs", "invert")},
    "__getitem__": ("key: Any", "Tensor"), "__setitem__": ("key: Any, value: Any", "None"),
    "__len__": ("", "builtins.int"), "__iter__": ("", "Iterator[Tensor]"),
    "__bool__": ("", "builtins.bool"), "__float__": ("", "builtins.float"),
    "__int__": ("", "builtins.int"), "__index__": ("", "builtins.int"),
    "__array__": ("dtype: Any = ..., copy: Any = ...", "Any"),
    "__format__": ("format_spec: builtins.str", "builtins.str"),
    "__hash__": ("", "builtins.int"), "__repr__": ("", "builtins.str"),
    "__str__": ("", "builtins.str"), "__deepcopy__": ("memo: Any", "Tensor"),
    "__init__": ("*args: Any, **kwargs: Any", "None"),
}
_IGNORE_OVERRIDE = {"__eq__", "__ne__"}   # they return a Tensor, not object's bool

HEADER = f'''\
# Generated by tools/gen_stubs.py from oar's op declarations; do not edit by hand.
# Regenerate with: {COMMAND}
from __future__ import annotations

import builtins
from typing import Any, Iterator, Protocol, Self, Sequence, TypeAlias

'''


# ------------------------------------------------------------------------------ helpers
def _op_of(fn):
    """The OpDef a registry-generated spelling comes from (its parameters start with the
    declaration's inputs and attrs), or None for a hand-written function."""
    from oar.ops.registry import OPS
    name = getattr(fn, "__name__", "")
    op = OPS.get(name) or OPS.get(name[:-1] if name.endswith("_") else name)
    if op is None:
        return None
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    want = list(op.inputs) + [a for a, _ in op.attrs]
    return op if params[:len(want)] == want else None


def _attr_type(name, default):
    if name in ("axis", "dim"):
        return "builtins.int | Sequence[builtins.int] | None"
    if isinstance(default, bool):
        return "builtins.bool"
    if isinstance(default, (int, float)):
        return "builtins.float"
    if isinstance(default, str):
        return "builtins.str"
    return "Any"


def _param_types(fn, op, method, inplace):
    """name -> annotation for each parameter of fn."""
    types_ = {}
    if op is not None:
        for i, p in enumerate(op.inputs):
            if i == 0:
                types_[p] = "Tensor" if (inplace or method) else "_TensorLike"
            elif p in op.optional:
                types_[p] = "_TensorLike | None"
            else:
                types_[p] = "_TensorLike"
        for a, d in op.attrs:
            types_[a] = _attr_type(a, d)
        types_.update(name="builtins.str | None", out="Tensor | None",
                      dim="builtins.int | Sequence[builtins.int] | None")
    return types_


def _signature(fn, types_, method, first_type=None):
    """The stub parameter list of fn (defaults as `...`), first parameter `self` for a
    method."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    out = []
    saw_kwonly_marker = False
    for i, p in enumerate(params):
        name = p.name
        if method and i == 0:
            if p.kind is p.VAR_POSITIONAL:
                out.append("self")
            else:
                out.append("self")
                continue
        ann = types_.get(name, first_type if (i == 0 and first_type) else "Any")
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{name}: {ann}")
            saw_kwonly_marker = True
            continue
        if p.kind is p.VAR_KEYWORD:
            out.append(f"**{name}: {ann}")
            continue
        if p.kind is p.KEYWORD_ONLY and not saw_kwonly_marker:
            out.append("*")
            saw_kwonly_marker = True
        text = f"{name}: {ann}"
        if p.default is not p.empty:
            text += " = ..."
        out.append(text)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params)
                                            or params[i + 1].kind is not p.POSITIONAL_ONLY):
            out.append("/")
    return ", ".join(out)


def _function(name, fn, registered, method_names=()):
    op = _op_of(fn)
    inplace = name.endswith("_") or (op is not None and op.kind == "inplace")
    types_ = _param_types(fn, op, method=False, inplace=inplace)
    if op is not None:
        ret = "Tensor"
    else:
        ret = FUNCTION_RETURNS.get(name, "Tensor" if registered else "Any")
    # a registered function that is also a method takes a tensor first
    first = "_TensorLike" if (op is None and registered and method_names
                              and name in method_names) else None
    return f"def {name}({_signature(fn, types_, method=False, first_type=first)}) -> {ret}: ..."


def _method(name, fn, registered):
    op = _op_of(fn)
    inplace = name.endswith("_") or (op is not None and op.kind == "inplace")
    types_ = _param_types(fn, op, method=True, inplace=inplace)
    if op is not None:
        ret = "Self" if inplace else "Tensor"
    elif name in METHOD_RETURNS:
        ret = METHOD_RETURNS[name]
    elif registered:
        ret = "Self" if inplace else "Tensor"
    else:
        ret = "Any"
    return f"    def {name}({_signature(fn, types_, method=True)}) -> {ret}: ..."


# ------------------------------------------------------------------------------ the stub

def _dunder_stub(name):
    """The stub line of a Tensor dunder listed in DUNDERS (both doors' Tensor stubs)."""
    params, ret = DUNDERS[name]
    ignore = "  # type: ignore[override]" if name in _IGNORE_OVERRIDE else ""
    sep = ", " if params else ""
    return [f"    def {name}(self{sep}{params}) -> {ret}: ...{ignore}"]


def _property_stub(name, raw, ann):
    """The stub lines of a property (and its setter, if it has one) typed `ann`."""
    prop = ["    @property", f"    def {name}(self) -> {ann}: ..."]
    if raw.fset is not None:
        prop += [f"    @{name}.setter", f"    def {name}(self, value: {ann}) -> None: ..."]
    return prop

def _tensor_class(Tensor, FUNCTIONS):
    registered = set(FUNCTIONS)
    lines = ["class Tensor:",
             '    """An n-dimensional array that is a window onto a shared Storage, with '
             'autograd."""']
    body = {}
    for name in dir(Tensor):
        raw = inspect.getattr_static(Tensor, name)
        if name.startswith("__"):
            if name in DUNDERS and getattr(Tensor, name, None) is not getattr(object, name, None):
                body[name] = _dunder_stub(name)
            continue
        if name.startswith("_"):
            continue
        if isinstance(raw, property):
            body[name] = _property_stub(name, raw, PROPERTIES.get(name, "Any"))
        elif isinstance(raw, (types.FunctionType, types.BuiltinFunctionType)) or callable(raw):
            if isinstance(raw, (staticmethod, classmethod)):
                continue
            # methods installed from the registry (or also registered as functions) are
            # spellings: they return tensors; methods written in tensor.py may not
            is_spelling = (getattr(raw, "__module__", "") != Tensor.__module__
                           or name in registered)
            body[name] = [_method(name, raw, is_spelling)]
        else:
            t = type(raw)
            tn = f"builtins.{t.__name__}" if getattr(builtins, t.__name__, None) is t else "Any"
            body[name] = [f"    {name}: {tn}"]
    body.setdefault("__array_priority__", ["    __array_priority__: builtins.int"])
    for name in sorted(body):
        lines += body[name]
    return lines


def _submodules_of_a_fresh_import():
    """The submodules `import oar, oar.torch` binds on oar, read in a fresh interpreter (in
    this one, earlier imports may have added others)."""
    import subprocess
    code = ("import types, oar, oar.torch; print(' '.join(n for n, v in vars(oar).items() "
            "if isinstance(v, types.ModuleType) and v.__name__ == 'oar.' + n))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return set(out.split())


def render():
    """The stub's text."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import oar
    import oar.torch  # noqa: F401  (the PyTorch door: a subpackage, listed whether or not imported)
    from oar import dtypes as _dtypes
    from oar.ops.registry import FUNCTIONS
    Tensor = oar.Tensor

    modules, classes, aliases, functions, values = [], [], [], [], []
    method_names = {n for n in dir(Tensor) if not n.startswith("_")}
    imported = _submodules_of_a_fresh_import()
    for name in sorted(n for n in vars(oar) if not n.startswith("_")):
        v = getattr(oar, name)
        if isinstance(v, types.ModuleType):
            # only what `import oar` itself provides: a submodule some other code imported
            # first (oar.train, in a test run) is not part of the package's face
            if v.__name__ == f"oar.{name}" and name in imported:
                modules.append(name)
        elif v is Tensor:
            continue
        elif isinstance(v, type):
            if v is _dtypes.DType:
                aliases.append(f"{name} = _DType")
            else:
                classes.append((v.__module__, v.__name__, name))
        elif isinstance(v, _dtypes.DType):
            values.append(f"{name}: _DType")
        elif callable(v):
            functions.append(_function(name, v, name in FUNCTIONS, method_names))
        elif name == "annotations":   # `from __future__ import annotations`
            continue
        else:
            values.append(f"{name}: Any")

    out = [HEADER.rstrip("\n"), ""]
    out += [f"from . import {m} as {m}" for m in modules]
    out.append("from .dtypes import DType as _DType")
    for mod, cname, name in sorted(classes):
        rel = "." + mod[len("oar."):] if mod.startswith("oar.") else mod
        out.append(f"from {rel} import {cname} as {name}")
    out += ["", "__version__: builtins.str", ""]
    out += ["class _SupportsArray(Protocol):",
            "    def __array__(self, *args: Any, **kwargs: Any) -> Any: ...", "",
            "# what a tensor operand accepts: a tensor, a Python number, a (nested) sequence "
            "or an array",
            "_TensorLike: TypeAlias = Tensor | builtins.float | Sequence[Any] | _SupportsArray",
            ""]
    out += _tensor_class(Tensor, FUNCTIONS)
    out += ["", "# dtypes"] + values + aliases
    out += ["", "# functions"] + functions
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------- the PyTorch door
# Note [Torch door stubs]
# mypy reads a module's source when it has no stub, and sees every name bound there by a
# statement. The PyTorch door builds several namespaces at import time instead
# (globals().update from the shared registry, Note [Torch signatures]'s binding, classes made
# in loops, methods set on Tensor), so mypy would call correct programs wrong
# (`torch.add` "not found"). These modules get a generated stub; the others (nn.functional,
# optim, utils.data, ...) are read from their sources, and tests/test_typing.py checks, for
# every public name of every door module, that mypy finds it.
# The stubs list every name the module has at runtime (private ones too: other modules of
# oar import them) and stay loose where exact types would be wrong: torch functions take
# several overloads (`torch.max(x)`, `torch.max(x, 1)`, `torch.max(x, y)`) that one Python
# signature cannot state, so every function and method is `(*args: Any, **kwargs: Any)`;
# what is typed is the result (Tensor for a tensor op, Self for an in-place method), so a
# misspelt method on a result is still caught.
TORCH_STUBS = ("oar.torch", "oar.torch._tensor", "oar.torch.nn", "oar.torch.functional",
               "oar.torch.special", "oar.torch.autograd")

# torch results that are not one Tensor (named tuples, numbers, flags, sequences); a torch
# function or method that is a registered spelling or a Tensor method returns Tensor, an
# in-place one Self, anything else Any
_TORCH_ANY = ("max", "min", "sort", "topk", "kthvalue", "mode", "median", "nanmedian",
              "cummax", "cummin", "aminmax", "frexp", "slogdet", "svd", "qr", "lu", "eig",
              "eigh", "lstsq", "std_mean", "var_mean", "histogram", "unique",
              "unique_consecutive", "where", "nonzero", "item", "tolist", "numpy", "size",
              "stride", "type", "manual_seed", "seed", "initial_seed", "get_rng_state",
              "set_rng_state", "register_hook", "storage", "untyped_storage", "get_device",
              "meshgrid", "broadcast_tensors", "broadcast_shapes", "geqrf",
              "triangular_solve", "equal", "allclose", "is_nonzero", "is_same_size",
              "result_type", "promote_types", "can_cast", "set_default_dtype",
              "set_default_tensor_type", "set_printoptions", "use_deterministic_algorithms",
              "compile", "load", "save", "from_dlpack", "to_dlpack", "__dlpack__",
              "__dlpack_device__", "set_grad_enabled", "set_num_threads", "get_num_threads",
              "unravel_index", "atleast_1d", "atleast_2d", "atleast_3d", "lu_unpack")
TORCH_RETURNS = {
    **{n: "Any" for n in _TORCH_ANY},
    **{n: "tuple[Tensor, ...]" for n in ("chunk", "split", "tensor_split", "unbind", "hsplit",
                                         "vsplit", "dsplit", "split_with_sizes")},
    **{n: METHOD_RETURNS[n] for n in METHOD_RETURNS if n not in _SPLITS and n not in _TORCH_ANY},
    "numel": "builtins.int", "is_grad_enabled": "builtins.bool",
    "get_default_dtype": "_DType", "is_tensor": "builtins.bool",
    "is_floating_point": "builtins.bool", "is_complex": "builtins.bool",
    "is_signed": "builtins.bool", "is_inference": "builtins.bool",
    "as_tensor": "Tensor", "asarray": "Tensor", "nelement": "builtins.int",
    # methods written in tensor.py / torch/_tensor.py (not registered spellings) whose
    # result is always a tensor
    **{n: "Tensor" for n in (
        "to", "cpu", "cuda", "float", "double", "half", "bfloat16", "long", "int", "short",
        "char", "byte", "bool", "cfloat", "cdouble", "type_as", "repeat", "ravel",
        "new_empty", "new_full", "new_ones", "new_tensor", "new_zeros", "softmax",
        "log_softmax", "det", "logdet", "pinverse", "pinv", "solve", "matrix_exp",
        "index_copy", "float_power", "msort", "resolve_conj", "resolve_neg", "conj_physical",
        "adjoint")},
}

_TORCH_HEADER = '''\
# Generated by tools/gen_stubs.py from what the module holds at runtime (Note [Torch door
# stubs]); do not edit by hand. Regenerate with: {command}
from __future__ import annotations

import builtins
from typing import Any, Iterator, Self

from oar.dtypes import DType as _DType
'''
_STATIC_BASES = {tuple: "builtins.tuple[Any, ...]", list: "builtins.list[Any]",
                 dict: "builtins.dict[Any, Any]", object: None}


def _stub_path(modname):
    mod = sys.modules[modname]
    src = pathlib.Path(mod.__file__)
    return src.with_suffix(".pyi")


def _source_defines(cls_or_fn):
    """Whether mypy sees this class or function where it was defined: its module is read
    from source (or from one of these stubs) and binds the name with a class/def statement."""
    modname = getattr(cls_or_fn, "__module__", None) or ""
    name = getattr(cls_or_fn, "__name__", "")
    mod = sys.modules.get(modname)
    if mod is None or getattr(mod, name, None) is not cls_or_fn:
        return False
    if modname in TORCH_STUBS:
        return True
    path = getattr(mod, "__file__", None)
    if not path or not path.endswith(".py"):
        return False
    kw = "class" if isinstance(cls_or_fn, type) else "def"
    text = pathlib.Path(path).read_text()
    return any(line.startswith((f"{kw} {name}(", f"{kw} {name}:"))
               for line in text.splitlines())


def _class_ref(cls, here):
    """How a stub of module `here` names cls: (import line or None, expression), or None
    when mypy cannot see cls anywhere."""
    if cls in _STATIC_BASES:
        return None, _STATIC_BASES[cls]
    if getattr(builtins, cls.__name__, None) is cls:
        return None, f"builtins.{cls.__name__}"
    if not _source_defines(cls):
        return None
    if cls.__module__ == here:
        return None, cls.__name__
    alias = "_" + cls.__module__.replace(".", "_") + "_" + cls.__name__
    return f"from {cls.__module__} import {cls.__name__} as {alias}", alias


def _torch_result(name, fn, registered, tensor_names, method):
    if name in TORCH_RETURNS:
        ret = TORCH_RETURNS[name]
        return "Tensor" if ret == "Self" and not method else ret
    if name.endswith("_") and not name.startswith("_"):
        return "Self" if method else "Tensor"
    if name.startswith("is_"):
        return "builtins.bool"
    if name in registered or name in tensor_names:
        return "Tensor"
    return "Any"


def _loose_def(name, ret, indent=""):
    self_ = "self, " if indent else ""
    return f"{indent}def {name}({self_}*args: Any, **kwargs: Any) -> {ret}: ..."


def _torch_tensor_class(Tensor, registered, imports):
    core = ("oar.tensor", "oar.torch._tensor")
    lines = ["class Tensor:",
             '    """The PyTorch door\'s tensor (oar.torch.Tensor)."""']
    body = {}
    for name in dir(Tensor):
        if not hasattr(Tensor, name):   # Note [Paddle-only spellings]
            continue
        raw = inspect.getattr_static(Tensor, name)
        if name.startswith("__") and name.endswith("__"):
            if name in DUNDERS and getattr(Tensor, name, None) is not getattr(object, name, None):
                body[name] = _dunder_stub(name)
            continue
        if isinstance(raw, property):
            body[name] = _property_stub(name, raw, TORCH_PROPERTIES.get(name, "Any"))
        elif isinstance(raw, (staticmethod, classmethod)):
            kind = "staticmethod" if isinstance(raw, staticmethod) else "classmethod"
            first = "cls, " if kind == "classmethod" else ""
            body[name] = [f"    @{kind}",
                          f"    def {name}({first}*args: Any, **kwargs: Any) -> Any: ..."]
        elif callable(raw):
            spelling = getattr(raw, "__module__", "") not in core or name in registered
            ret = _torch_result(name, raw, registered if spelling else (), set(), method=True)
            body[name] = [_loose_def(name, ret, "    ")]
        else:
            body[name] = [f"    {name}: Any"]
    body.setdefault("__array_priority__", ["    __array_priority__: builtins.int"])
    for name in sorted(body):
        lines += body[name]
    return lines


def _generic_class(name, cls, here, imports):
    """A class mypy cannot see in a source: its bases (where visible), its own methods and
    properties, any constructor arguments; attributes it sets on instances are not
    introspectable, so they read as Any (unless it is a tensor, whose slots are listed)."""
    bases = []
    tensorish = False
    for b in cls.__bases__:
        ref = _class_ref(b, here)
        if ref is None or ref[1] is None:
            continue
        if ref[0]:
            imports.add(ref[0])
        bases.append(ref[1])
        tensorish = tensorish or ref[1] == "Tensor"
    lines = [f"class {name}({', '.join(bases)}):" if bases else f"class {name}:"]
    members = ["    def __init__(self, *args: Any, **kwargs: Any) -> None: ..."]
    for attr, raw in sorted(vars(cls).items()):
        if attr.startswith("__"):
            continue
        if isinstance(raw, property):
            members += ["    @property", f"    def {attr}(self) -> Any: ..."]
        elif isinstance(raw, type):
            members.append(f"    {attr}: Any")
        elif isinstance(raw, (staticmethod, classmethod)):
            kind = "staticmethod" if isinstance(raw, staticmethod) else "classmethod"
            first = "cls, " if kind == "classmethod" else ""
            members += [f"    @{kind}", f"    def {attr}({first}*args: Any, **kwargs: Any) -> Any: ..."]
        elif callable(raw):
            members.append(_loose_def(attr, "Any", "    "))
        else:
            members.append(f"    {attr}: Any")
    if not tensorish:
        members.append("    def __getattr__(self, name: builtins.str) -> Any: ...")
    return lines + members


def _torch_module_stub(modname):
    from oar import dtypes as _dtypes
    from oar.ops.registry import FUNCTIONS
    mod = sys.modules[modname]
    Tensor = sys.modules["oar.torch"].Tensor
    registered = set(FUNCTIONS)
    tensor_names = {n for n in dir(Tensor) if not n.startswith("_") and hasattr(Tensor, n)}
    imports, classes, values, functions = set(), [], [], []
    if modname != "oar.torch._tensor":
        imports.add("from oar.torch._tensor import Tensor as _Tensor")
    for name, v in sorted(vars(mod).items()):
        if name.startswith("__") or name == "annotations":
            continue
        if isinstance(v, types.ModuleType):
            path = getattr(v, "__file__", None)
            if v.__name__ in sys.modules and (path or v.__name__ in TORCH_STUBS):
                parent, _, last = v.__name__.rpartition(".")
                # `from pkg import mod as name` re-exports; `import pkg.mod as name` would not
                # (a private name needs no re-export)
                imports.add(f"from {parent} import {last} as {name}"
                            if parent and (name == last or not name.startswith("_"))
                            else f"import {v.__name__} as {name}")
            else:
                values.append(f"{name}: Any")
        elif isinstance(v, type):
            if v is Tensor and modname == "oar.torch._tensor":
                classes.append(_torch_tensor_class(Tensor, registered, imports))
                continue
            ref = None if v.__module__ == modname else _class_ref(v, modname)
            if ref is not None and ref[1] is not None:
                if ref[0] and name == v.__name__:
                    imports.add(ref[0].rsplit(" as ", 1)[0] + f" as {name}")
                elif ref[0]:   # `import A as B` re-exports only when B is A
                    imports.add(ref[0])
                    values.append(f"{name} = {ref[1]}")
                else:
                    values.append(f"{name} = {ref[1]}")
            elif v.__module__ == modname and v.__name__ != name and _source_defines(v):
                values.append(f"{name} = {v.__name__}")
            else:
                classes.append(_generic_class(name, v, modname, imports))
        elif isinstance(v, _dtypes.DType):
            values.append(f"{name}: _DType")
        elif isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                            functools.partial)):
            functions.append(_loose_def(name, _torch_result(name, v, registered, tensor_names,
                                                            method=False)))
        else:
            values.append(f"{name}: Any")
    if modname != "oar.torch._tensor":   # results are the door's Tensor, named privately
        functions = [f.replace("-> Tensor", "-> _Tensor") for f in functions]
        functions = [f.replace("-> tuple[Tensor", "-> tuple[_Tensor") for f in functions]
    text = [_TORCH_HEADER.format(command=COMMAND).rstrip("\n")]
    text += sorted(imports)
    if modname == "oar.torch._tensor":
        text += ["from typing import Protocol, Sequence, TypeAlias", "",
                 "from oar.place import Place", "",
                 "class _SupportsArray(Protocol):",
                 "    def __array__(self, *args: Any, **kwargs: Any) -> Any: ...", "",
                 "_TensorLike: TypeAlias = Tensor | builtins.float | Sequence[Any] | "
                 "_SupportsArray"]
    for c in classes:
        text += ["", *c]
    text += [""] + values + [""] + functions
    return "\n".join(text) + "\n"


def render_torch():
    """path -> text of the PyTorch door's stubs."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import importlib
    for m in TORCH_STUBS:
        importlib.import_module(m)
    return {_stub_path(m): _torch_module_stub(m) for m in TORCH_STUBS}


def render_all():
    """path -> text of every stub this tool writes."""
    return {STUB: render(), **render_torch()}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    stubs = render_all()
    if "--check" in argv:
        stale = [p for p, text in stubs.items() if not p.exists() or p.read_text() != text]
        for p in stale:
            print(f"{p.relative_to(ROOT)} is out of date; regenerate with: {COMMAND}")
        return 1 if stale else 0
    for p, text in stubs.items():
        p.write_text(text)
        print(f"wrote {p.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
