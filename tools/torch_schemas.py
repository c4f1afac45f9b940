"""Write oar/torch/_schemas.json: PyTorch 2.13's signatures, as data for the torch door.

    python tools/torch_schemas.py          (needs torch==2.13.0)

The table holds, for each public torch function and Tensor method, its overloads as torch's
Python argument parser sees them: parameter names (`self` becomes `input` in the function
form, and is dropped from the method form), which are keyword-only, their defaults, and the
names of the `out=` tensors. It is facts about torch, not code: oar/torch/_binding.py reads it
to bind torch's keyword names and `out=` onto oar's implementations (Note [Torch signatures]).
tests/test_torch_binding.py checks the file is what this script writes.
"""
from __future__ import annotations

import inspect
import json
import pathlib
import sys

import torch

OUT = pathlib.Path(__file__).resolve().parent.parent / "oar" / "torch" / "_schemas.json"
REQUIRED = "<required>"
# argument types of overloads that the Python API does not reach (named tensors, TorchScript lists)
_SKIP_TYPES = ("Dimname", "str[]", "t[]", "List[t]", "List[str]", "Dict", "Any", "Storage",
               "Stream", "Generator?", "t", "Device", "Layout")


def _default(arg):
    if not arg.has_default_value():
        return REQUIRED
    v = arg.default_value
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    if isinstance(v, (list, tuple)) and all(isinstance(x, (bool, int, float)) for x in v):
        return list(v)
    return repr(v)


def _usable(schema):
    if schema.overload_name.startswith("_") or "dimname" in schema.overload_name.lower():
        return False
    for a in schema.arguments:
        t = str(a.type)
        if "Dimname" in t or t in ("str", "List[t]", "t", "List[str]", "Any") or t.startswith(
                "Dict"):
            if not (a.kwarg_only and a.has_default_value()):   # rounding_mode: str? is fine
                if not (t == "str" and a.name not in ("self", "a")):
                    return False
    first = schema.arguments[0] if schema.arguments else None
    if first is not None and first.name == "self" and str(first.type) != "Tensor":
        return False   # TorchScript's list and string methods (sort of an int[])
    return first is None or str(first.type) not in ("str", "int", "float", "bool", "List[int]",
                                                    "List[float]", "List[bool]", "number",
                                                    "complex") or first.name != "a"


def _overload(schema, form):
    params, outs = [], []
    for a in schema.arguments:
        if a.is_out:
            if form == "function":   # methods take no out= in Python; "[]": a list of tensors
                outs.append(a.name + ("[]" if str(a.type).startswith("List[") else ""))
            continue
        name = a.name
        if name == "self":
            if form == "method":
                continue
            name = "input"
        params.append([name, bool(a.kwarg_only), _default(a)])
    return {"params": params, "out": outs}


def _python_overload(fn, form):
    """A torch function written in Python (torch/functional.py, torch/_tensor.py)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = []
    for i, p in enumerate(sig.parameters.values()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return None
        if form == "method" and i == 0:
            continue
        d = REQUIRED if p.default is p.empty else p.default
        if not (d is None or isinstance(d, (bool, int, float, str))):
            d = repr(d)
        params.append([p.name, p.kind == p.KEYWORD_ONLY, d])
    outs = [n for n, _, _ in params if n == "out" and form == "function"]
    return {"params": [p for p in params if p[0] != "out"], "out": outs}


def table():
    by_name = {}
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::") or s.name[6:].startswith("_"):
            continue
        if not _usable(s):
            continue
        by_name.setdefault(s.name[6:], []).append(s)
    out = {}
    names = set(by_name) | {n for n in dir(torch) if not n.startswith("_")} | {
        n for n in dir(torch.Tensor) if not n.startswith("_")}
    for name in sorted(names):
        entry = {}
        for form, owner in (("function", torch), ("method", torch.Tensor)):
            obj = getattr(owner, name, None)
            if obj is None or not callable(obj):
                continue
            if inspect.isfunction(obj):   # written in Python: its own signature
                ov = _python_overload(obj, form)
                if ov is not None:
                    entry[form] = [ov]
                continue
            if name in by_name:
                ovs = [_overload(s, form) for s in by_name[name]]
                uniq = []
                for ov in ovs:
                    if ov not in uniq:
                        uniq.append(ov)
                entry[form] = uniq
        if entry:
            out[name] = entry
    functional = torch.nn.functional
    for name in sorted(n for n in dir(functional) if not n.startswith("_")):
        obj = getattr(functional, name)
        if not callable(obj) or isinstance(obj, type) or name.startswith("has_torch"):
            continue
        if inspect.isfunction(obj):
            ov = _python_overload(obj, "function")
            ovs = [ov] if ov is not None else None
        else:   # a builtin of torch._C._nn: its ATen schemas (F.logsigmoid is log_sigmoid)
            ovs = [_overload(s, "function") for s in by_name.get(obj.__name__, ())]
        if ovs:
            uniq = []
            for ov in ovs:
                if ov not in uniq:
                    uniq.append(ov)
            out.setdefault(name, {})["functional"] = uniq
    # keywords torch's Python bindings add by hand, beyond the schemas
    for name, form, param in _PYTHON_EXTRAS:
        for ov in out.get(name, {}).get(form, ()):
            if param[0] not in {p[0] for p in ov["params"]}:
                ov["params"].append(list(param))
    return out


# (name, form, [parameter, keyword-only, default]) of torch's hand-written Python bindings
_PYTHON_EXTRAS = [("nonzero", "function", ["as_tuple", True, False]),
                  ("nonzero", "method", ["as_tuple", True, False])]


def tensor_binary():
    """Binary ops, (self, x) in every ATen overload, whose second operand is a Tensor in
    every overload: torch's parser refuses a Python number there (TypeError), where a
    NumPy-style core would broadcast it."""
    types = {}
    for s in torch._C._jit_get_all_schemas():
        name = s.name[6:] if s.name.startswith("aten::") else None
        if not name or name.startswith("_") or not _usable(s):
            continue
        args = [a for a in s.arguments if not a.is_out]
        if not args or args[0].name != "self":
            continue    # TorchScript's scalar math (ldexp(float x, int i)), polygamma(n, self)
        second = str(args[1].type) if len(args) == 2 else "not binary"
        types.setdefault(name, set()).add(second)
    return sorted(n for n, t in types.items() if t == {"Tensor"})


def main():
    if not torch.__version__.startswith("2.13."):
        sys.exit(f"tools/torch_schemas.py: needs torch 2.13, found {torch.__version__}")
    text = json.dumps({"torch": torch.__version__.split("+")[0], "ops": table(),
                       "tensor_binary": tensor_binary()},
                      indent=0, sort_keys=True, separators=(",", ":"))
    OUT.write_text(text + "\n")
    print(f"wrote {OUT} ({len(text) // 1024} KiB)")


if __name__ == "__main__":
    main()
