"""Runs the bad-input table (tests/bad_inputs.py): every row raises the expected exception
(the one PyTorch 2.13 raises, checked against torch when it is installed), never an internal
one, and leaves every operand exactly as it was (Note [Check, then write]). Plus a coverage
test (every public API appears in a row) and a junk-argument fuzz (no leaks, no crash)."""
from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import oar
import oar.io as io
import oar.nn as nn
import oar.nn.functional as F
import oar.optimizer as opt

from .bad_inputs import ROWS, XFAIL, env, torch_env

try:
    import torch
except ImportError:  # the oracle is optional: the oar side of every row still runs
    torch = None

# ---------------------------------------------------------------------------- leaks

_BANNED = (ZeroDivisionError, AttributeError)


def leak_reason(exc_type):
    """Why an exception class must not reach a user, or None if it may."""
    if issubclass(exc_type, _BANNED):
        return f"{exc_type.__name__} leaked (an internal slip, not an argument check)"
    for klass in exc_type.__mro__:
        mod = getattr(klass, "__module__", "") or ""
        if mod == "numpy" or mod.startswith("numpy."):
            return f"NumPy-internal {mod}.{klass.__qualname__} leaked"
    return None


# ---------------------------------------------------------------------------- snapshots

_CONTAINERS = (nn.Layer, opt.Optimizer, io.DataLoader, io.Dataset)


def _collect(obj, out, seen, depth=0):
    """Every tensor and ndarray reachable from a row's operands: through dicts, lists,
    layers (parameters, buffers), optimizers (param groups, state), datasets, and .grad."""
    if depth > 8 or id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, oar.Tensor):
        out.append(obj)
        g = obj._grad
        if g is not None:
            _collect(g, out, seen, depth + 1)
        return
    if isinstance(obj, np.ndarray):
        out.append(obj)
        return
    if isinstance(obj, dict):
        for k, v in list(obj.items()):
            _collect(k, out, seen, depth + 1)
            _collect(v, out, seen, depth + 1)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for v in list(obj):
            _collect(v, out, seen, depth + 1)
    elif isinstance(obj, _CONTAINERS):
        _collect(vars(obj), out, seen, depth + 1)


_SCALARS = (int, float, str, bool, type(None))


def _scalars(obj, path, out, seen, depth=0):
    """The plain settings inside layers and optimizers (lr, betas, step counts, training
    flags, ...) by path, so a refused call that changed one of them is caught too."""
    if depth > 8 or id(obj) in seen or isinstance(obj, (oar.Tensor, np.ndarray)):
        return
    if isinstance(obj, _SCALARS):
        out[path] = obj
        return
    seen.add(id(obj))
    if isinstance(obj, dict):
        for k, v in list(obj.items()):
            _scalars(v, f"{path}[{k!r}]", out, seen, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _scalars(v, f"{path}[{i}]", out, seen, depth + 1)
    elif isinstance(obj, _CONTAINERS):
        _scalars(vars(obj), f"{path}.{type(obj).__name__}", out, seen, depth + 1)


def snapshot(e):
    items = []
    _collect(dict(e), items, set())
    snap = []
    for t in items:
        if isinstance(t, oar.Tensor):
            a = t._data
            snap.append((t, np.array(a, copy=True), a.shape, a.dtype, a.strides, t._version,
                         t._grad, t._requires_grad))
        else:
            snap.append((t, np.array(t, copy=True), t.shape, t.dtype, t.strides, None, None, None))
    settings = {}
    for k, v in e.items():
        if isinstance(v, _CONTAINERS):
            _scalars(v, k, settings, set())
    return snap, settings, e


def _same_scalar(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)


def _same_values(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def assert_unchanged(snapshot_, row_id):
    snap, settings, e = snapshot_
    after = {}
    for k, v in e.items():
        if isinstance(v, _CONTAINERS):
            _scalars(v, k, after, set())
    changed = sorted(k for k in set(settings) | set(after)
                     if k not in settings or k not in after
                     or not _same_scalar(settings[k], after[k]))
    assert not changed, f"{row_id}: settings changed by a refused call: {changed[:5]}"
    for t, data, shape, dtype, strides, version, grad, req in snap:
        a = t._data if isinstance(t, oar.Tensor) else t
        what = f"{row_id}: operand of shape {list(shape)} ({dtype})"
        assert a.shape == shape, f"{what}: shape changed to {list(a.shape)}"
        assert a.dtype == dtype, f"{what}: dtype changed to {a.dtype}"
        assert a.strides == strides, f"{what}: strides changed {strides} -> {a.strides}"
        assert _same_values(np.asarray(a), data), f"{what}: data changed by a refused call"
        if isinstance(t, oar.Tensor):
            assert t._version == version, f"{what}: version {version} -> {t._version}"
            assert t._grad is grad, f"{what}: .grad replaced by a refused call"
            assert t._requires_grad == req, f"{what}: requires_grad changed"


# ---------------------------------------------------------------------------- the rows


def _env_for(row):
    e = env()
    if row.build is not None:
        e.update(row.build())
    return e


def _exc_name(exc):
    return " or ".join(c.__name__ for c in exc) if isinstance(exc, tuple) else exc.__name__


def _torch_agrees(row):
    """The expected type is the oracle's: PyTorch raises it for the same mistake (checked
    first, so a wrong expectation in the table shows as such, not as an oar failure)."""
    e = torch_env(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            row.torch(torch, e)
        except row.exc:
            return
        except Exception as err:  # noqa: BLE001 - reported below
            pytest.fail(f"table error: PyTorch raises {type(err).__name__} for this mistake, "
                        f"the row expects {_exc_name(row.exc)}: {err}")
    pytest.fail(f"table error: PyTorch accepts this call; the row expects {_exc_name(row.exc)}")


def _param(row):
    if row.id in XFAIL:
        return pytest.param(row, id=row.id,
                            marks=pytest.mark.xfail(strict=True, reason=XFAIL[row.id]))
    return pytest.param(row, id=row.id)


@pytest.mark.parametrize("row", [_param(r) for r in ROWS])
def test_bad_input(row):
    if row.torch is not None and torch is not None:
        _torch_agrees(row)
    e = _env_for(row)
    snap = snapshot(e)
    grad_mode = oar.is_grad_enabled()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                row.call(e)
    finally:
        oar.set_grad_enabled(grad_mode)
    err = info.value
    why = leak_reason(type(err))
    assert why is None, f"{why}: {type(err).__module__}.{type(err).__name__}: {err}"
    assert isinstance(err, row.exc), (
        f"expected {_exc_name(row.exc)} (what PyTorch raises), got "
        f"{type(err).__module__}.{type(err).__name__}: {err}")
    assert str(err).strip(), f"{type(err).__name__} raised with an empty message"
    assert_unchanged(snap, row.id)
    if row.check is not None:
        assert row.check(e), "the row's extra check failed"


def test_table_shape():
    ids = [r.id for r in ROWS]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    assert not dup, f"duplicate row ids: {dup}"
    assert len(ROWS) >= 300, len(ROWS)
    stale = sorted(set(XFAIL) - set(ids))
    assert not stale, f"XFAIL entries that name no row: {stale}"
    for r in ROWS:
        excs = r.exc if isinstance(r.exc, tuple) else (r.exc,)
        assert all(isinstance(c, type) and issubclass(c, BaseException) for c in excs), r.id
        assert not any(leak_reason(c) for c in excs), r.id


# ---------------------------------------------------------------------------- coverage

# Public callables that take no argument a user could get wrong: a row for them would only
# test Python's own "takes 0 positional arguments" TypeError. Keep this list short and true.
NO_BAD_INPUT = {
    "oar.in_dynamic_mode",   # argument-free query (always True)
    "nn.Identity",   # accepts any argument, as torch and paddle
    "Tensor.gradient",   # no argument: a copy of .grad or None
    "Tensor.stop_gradient",   # any truth value is valid on any tensor, as Paddle's setter
    "Tensor.name",            # a property: reads a name, any value may be set (as Paddle)
    "Tensor.is_pinned",       # argument-free query (always False: no pinned memory)
    # global state queries and context managers without arguments
    "oar.get_default_dtype", "oar.is_grad_enabled", "oar.is_compiled_with_cuda",
    "oar.no_grad", "oar.enable_grad",   # decorators/context managers: any callable is valid
    "oar.inference_mode",               # likewise (PyTorch accepts any `mode` value too)
    "oar.get_device", "oar.memory_allocated", "oar.max_memory_allocated",
    "oar.reset_max_memory_allocated",
    "oar.is_tensor",        # any object is a valid argument (answers False)
    "oar.Size",             # a tuple subclass: any iterable is a valid argument, as tuple()
    "oar.Tensor",           # the class itself (construction goes through to_tensor, tested)
    "oar.dtype",            # the dtype class; unknown dtype names are rows (astype, zeros...)
    # argument-free Tensor methods (queries and conversions without a choice to get wrong)
    "Tensor.clear_grad", "Tensor.clear_gradient", "Tensor.zero_grad", "Tensor.cpu",
    "Tensor.data_ptr", "Tensor.dim", "Tensor.ndimension", "Tensor.element_size",
    "Tensor.get_storage_nbytes", "Tensor.is_contiguous", "Tensor.numpy", "Tensor.tolist",
    "Tensor.storage_offset", "Tensor.float", "Tensor.double", "Tensor.half", "Tensor.int",
    "Tensor.bfloat16",
    "Tensor.long", "Tensor.bool", "Tensor.short", "Tensor.char", "Tensor.byte",
    "Tensor.cfloat", "Tensor.cdouble",   # casts without arguments (Note [Complex dtypes])
    # Paddle's retain_grad(s) accept every tensor (nothing happens on one outside autograd;
    # the PyTorch door's refusal is tested in tests/test_paddle_door_retain_grads.py)
    "Tensor.retain_grad", "Tensor.retain_grads",
    # (x, name=None): the only argument is Paddle's `name`, which accepts any value
    "Tensor.detach", "Tensor.logical_not",
    # nn containers and the base class
    "nn.Layer", "nn.Module",    # abstract base: its methods are covered as Layer.*
    "nn.OrderedDict",           # collections.OrderedDict re-exported
}


def _public_api():
    names = set()
    for n in dir(oar):
        if n.startswith("_"):
            continue
        obj = getattr(oar, n)
        if callable(obj) and not inspect.ismodule(obj):
            names.add(f"oar.{n}")
    for n in dir(oar.Tensor):
        if n.startswith("_"):
            continue
        attr = inspect.getattr_static(oar.Tensor, n)
        if isinstance(attr, property):
            if attr.fset is not None:     # a setter takes input: .grad, .requires_grad ...
                names.add(f"Tensor.{n}")
        elif callable(getattr(oar.Tensor, n)):
            names.add(f"Tensor.{n}")
    for n in dir(nn):
        obj = getattr(nn, n)
        if (not n.startswith("_") and inspect.isclass(obj) and obj.__module__.startswith("oar")
                and not issubclass(obj, Exception)):
            names.add(f"nn.{n}")
        elif n == "OrderedDict":
            names.add("nn.OrderedDict")
    for n in dir(F):
        obj = getattr(F, n)
        if (not n.startswith("_") and inspect.isfunction(obj)
                and getattr(obj, "__module__", "").startswith("oar")):
            names.add(f"F.{n}")
    for n in dir(opt):
        obj = getattr(opt, n)
        if not n.startswith("_") and inspect.isclass(obj) and obj.__module__.startswith(
                "oar.optimizer") and not issubclass(obj, Exception):
            names.add(f"optimizer.{n}")
    names.add("io.DataLoader")
    return names


def test_every_public_api_has_a_row():
    covered = {n for r in ROWS for n in r.names}
    api = _public_api()
    missing = sorted(api - covered - NO_BAD_INPUT)
    assert not missing, f"{len(missing)} public APIs without a bad-input row: {missing}"
    stale = sorted(NO_BAD_INPUT - api)
    assert not stale, f"exclusions that are not public APIs (remove them): {stale}"
    both = sorted(NO_BAD_INPUT & covered)
    assert not both, f"excluded yet covered (remove from NO_BAD_INPUT): {both}"


# ---------------------------------------------------------------------------- junk fuzz

# Not fuzzed (documented): file I/O on junk paths, process-global device/seed state, and
# functions whose junk calls are legitimately long-running or block.
FUZZ_SKIP = {
    "save", "load",                  # would read or write files named "x", "-1", ...
    "set_device",                    # changes the process-wide default device
    "seed", "manual_seed",           # reseed the global generator (harmless, but not junk)
}

_FUZZ_SCRIPT = r"""
import json, sys, warnings
import numpy as np
import oar
sys.path.insert(0, sys.argv[1])
from tests.test_bad_inputs import leak_reason, FUZZ_SKIP

warnings.simplefilter("ignore")
def junk():
    return [None, "x", 2.5, -1, [], float("nan"), oar.to_tensor([1, 2], dtype="int64"),
            oar.to_tensor([True]), oar.to_tensor(1.5, dtype="float64")]

def show(j):
    return f"<{j.dtype.name} tensor {list(j.shape)}>" if isinstance(j, oar.Tensor) else repr(j)

def tensor():
    return oar.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

leaks = []
def attempt(label, fn, *args):
    grad = oar.is_grad_enabled()
    dt = oar.get_default_dtype()
    try:
        r = fn(*args)
        if hasattr(r, "__exit__") and hasattr(r, "__enter__") and not isinstance(r, oar.Tensor):
            pass
    except BaseException as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        why = leak_reason(type(e))
        if why:
            leaks.append(f"{label}: {type(e).__module__}.{type(e).__name__}: {str(e)[:120]}")
    finally:
        oar.set_grad_enabled(grad)
        if oar.get_default_dtype() != dt and hasattr(oar, "set_default_dtype"):
            oar.set_default_dtype(dt)

names = [n for n in dir(oar) if not n.startswith("_") and n not in FUZZ_SKIP]
count = 0
for n in names:
    f = getattr(oar, n)
    if not callable(f) or isinstance(f, type(oar)):
        continue
    for j in junk():
        attempt(f"oar.{n}({show(j)})", f, j); count += 1
        attempt(f"oar.{n}(x, {show(j)})", f, tensor(), j); count += 1
        attempt(f"oar.{n}(x, 0, {show(j)})", f, tensor(), 0, j); count += 1
for n in dir(oar.Tensor):
    if n.startswith("_") or n in FUZZ_SKIP:
        continue
    for j in junk():
        x = tensor()
        try:
            m = getattr(x, n)
        except BaseException as e:
            why = leak_reason(type(e))
            if why:
                leaks.append(f"Tensor.{n} (attribute): {type(e).__name__}: {e}")
            break
        if not callable(m):
            break
        attempt(f"Tensor.{n}({show(j)})", m, j); count += 1
        attempt(f"Tensor.{n}(0, {show(j)})", getattr(tensor(), n), 0, j); count += 1
        attempt(f"Tensor.{n}({show(j)}, {show(j)})", getattr(tensor(), n), j, j); count += 1
print(json.dumps({"count": count, "leaks": leaks}))
"""


def test_junk_arguments_leak_nothing_and_never_crash():
    """Every public callable of oar and every Tensor method, called with junk (None, "x",
    2.5, -1, [], nan, tensors of the wrong dtype or rank) in a child process: whatever is raised is not
    ZeroDivisionError / AttributeError / a NumPy-internal class, and the process survives
    (a SIGSEGV or abort shows as a negative return code)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-c", _FUZZ_SCRIPT, root], capture_output=True,
                          text=True, timeout=120, cwd=root)
    assert proc.returncode == 0, (
        f"the fuzz process died (return code {proc.returncode}):\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["count"] > 1000
    by_api = {}
    for leak in out["leaks"]:
        by_api.setdefault(leak.split("(", 1)[0], []).append(leak)
    assert not by_api, (f"{len(out['leaks'])} leaks in {len(by_api)} APIs (first of each):\n"
                        + "\n".join(f"{v[0]}   [{len(v)} junk calls]" for v in by_api.values()))
