"""Every public callable says what it does (issue 9).

Op declarations carry a one-line `doc=` from which the registry builds every spelling's
docstring; hand-written functions, methods and classes carry their own. In-place spellings
(`name_`) say that they work in place.
"""
from __future__ import annotations

import importlib
import inspect

import oar
from oar.ops.registry import OPS

SUBMODULES = ("oar.nn", "oar.nn.functional", "oar.nn.init", "oar.optimizer",
              "oar.optimizer.lr", "oar.optim", "oar.io", "oar.autograd", "oar.device",
              "oar.metric", "oar.hapi", "oar.static", "oar.jit")


def _doc(obj):
    if isinstance(obj, property):
        obj = obj.fget
    elif isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    return (getattr(obj, "__doc__", None) or "").strip()


def _top_level():
    for name in sorted(dir(oar)):
        v = getattr(oar, name)
        if name.startswith("_") or inspect.ismodule(v) or not callable(v):
            continue
        yield name, v


def _tensor_members():
    for name in sorted(dir(oar.Tensor)):
        if name.startswith("_"):
            continue
        raw = inspect.getattr_static(oar.Tensor, name)
        if isinstance(raw, property) or callable(raw):
            yield name, raw


def _submodule_members():
    """Public functions and classes a submodule defines (not the names it merely imports),
    and the public methods and properties those classes define."""
    for modname in SUBMODULES:
        mod = importlib.import_module(modname)
        for name in sorted(dir(mod)):
            v = getattr(mod, name)
            if name.startswith("_") or inspect.ismodule(v) or not callable(v):
                continue
            if not (getattr(v, "__module__", "") or "").startswith(modname.rsplit(".", 1)[0]):
                continue      # imported from elsewhere (Tensor, numpy, ...)
            if v is oar.Tensor or getattr(v, "__module__", "") in ("oar.tensor", "oar.ops.registry"):
                continue
            yield f"{modname}.{name}", v
            if inspect.isclass(v):
                for a, w in vars(v).items():
                    if a.startswith("_"):
                        continue
                    if isinstance(w, property) or callable(w):
                        yield f"{modname}.{name}.{a}", w


def test_every_declaration_has_a_one_line_doc():
    bad = [n for n, op in OPS.items() if not op.doc or "\n" in op.doc.strip()]
    assert not bad, f"op declarations without a one-line doc=: {bad}"


def test_top_level_callables_have_docstrings():
    missing = [n for n, v in _top_level() if not _doc(v)]
    assert not missing, f"oar.{{{', '.join(missing)}}} have no docstring"


def test_tensor_methods_have_docstrings():
    missing = [n for n, v in _tensor_members() if not _doc(v)]
    assert not missing, f"Tensor.{{{', '.join(missing)}}} have no docstring"


def test_submodule_callables_have_docstrings():
    missing = [n for n, v in _submodule_members() if not _doc(v)]
    assert not missing, f"no docstring: {missing}"


def test_inplace_spellings_say_in_place():
    names = {f"oar.{n}": v for n, v in _top_level() if n.endswith("_")}
    names.update({f"Tensor.{n}": v for n, v in _tensor_members() if n.endswith("_")})
    names.update({n: v for n, v in _submodule_members() if n.endswith("_")})
    missing = sorted(n for n, v in names.items() if "in place" not in _doc(v).lower())
    assert not missing, f"in-place spellings whose docstring does not say 'in place': {missing}"


def test_spelling_docstrings_start_with_the_declaration():
    """oar.exp.__doc__ is built from OPS['exp'].doc (Note: hand-written spellings that
    replace a generated one, such as sum and clone, carry their own docstring)."""
    for name in ("exp", "add", "mul", "relu", "matmul", "clip", "where_self", "fill_"):
        op = OPS[name]
        fn = getattr(oar, name)
        assert _doc(fn).startswith(op.doc), (name, _doc(fn)[:80])
    assert _doc(oar.add_).startswith(OPS["add"].doc)
    assert _doc(oar.Tensor.mul_).startswith(OPS["mul"].doc)
