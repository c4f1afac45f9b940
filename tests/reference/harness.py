"""The torch-comparison harness of tests/reference, written once.

A program is written once against the PyTorch spelling, with `L` standing for the framework
(`oar` or `torch`), and run on both; torch 2.13 is the oracle. This module compares what the
two runs observed:

* tensors: shape, dtype and values (floats to a tolerance, NaN equal to NaN; ints and bools
  exactly) -- `tensor_diffs`, or `value_diffs` for nested logs holding tensors, floats,
  lists, tuples, dicts and plain values;
* exceptions: an oar exception must be public (PUBLIC_ERRORS; never NameError, AttributeError,
  ZeroDivisionError or NumPy's), raised exactly when torch raises, and an instance of
  torch's class (a RuntimeError where torch raises RuntimeError) -- `exception_finding`;
* staged programs `program(L, log, *args)` that record observations into `log` and name the
  current step in log["stage"]: `run_logged` runs one, `compare_logged` runs both and lists
  the differences (including the stage at which each raised);
* code strings executed in per-framework namespaces: `exec_code`;
* hypothesis settings for the random programs, with the example count from an environment
  variable (OAR_RANDOM_EXAMPLES) and CI's derandomized profile (tests/conftest.py).
"""
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import oar

torch = pytest.importorskip("torch")

# Exceptions an op may legitimately raise; anything else out of oar is an internal leak.
PUBLIC_ERRORS = (RuntimeError, ValueError, IndexError, TypeError)


# ---------------------------------------------------------------- settings
def env_int(var, default):
    """An integer setting from the environment variable `var`, else `default`."""
    return int(os.environ.get(var, str(default)))


def n_examples(default):
    """How many hypothesis examples a random test runs: `default` (what CI runs), or
    OAR_RANDOM_EXAMPLES (hunting locally, e.g. OAR_RANDOM_EXAMPLES=5000)."""
    return env_int("OAR_RANDOM_EXAMPLES", default)


def random_settings(default, *health_checks):
    """hypothesis settings of a random-program test: n_examples(default), no deadline, slow
    examples allowed. CI's profile (derandomize, no database) applies on top."""
    return settings(max_examples=n_examples(default), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, *health_checks])


# ---------------------------------------------------------------- observations
def dtype_name(dt):
    """'float32' for oar.float32, torch.float32, np.float32."""
    return str(dt).split(".")[-1]


def is_tensor(v):
    return isinstance(v, (oar.Tensor, torch.Tensor))


def to_numpy(t):
    """The values of an oar or torch tensor (detached), or of an array-like, as an ndarray."""
    if hasattr(t, "detach"):
        t = t.detach()
    if hasattr(t, "numpy"):
        return np.array(t.numpy(), copy=True)
    return np.asarray(t)


def obs(t):
    """A loggable observation of a tensor: its values as Python floats, then its shape (or
    None for None)."""
    if t is None:
        return None
    a = np.asarray(to_numpy(t), dtype=np.float64)
    return [float(v) for v in a.reshape(-1)] + [list(a.shape)]


def _fmt(a):
    return np.round(a.astype(float), 6).tolist() if a.dtype.kind in "fc" else a.tolist()


def array_diffs(name, av, bv, rtol, atol):
    """Two ndarrays: shape, then values (floats within rtol/atol, NaN == NaN; others exact)."""
    if av.shape != bv.shape:
        return [f"{name}: shape {av.shape} vs torch {bv.shape}"]
    if av.dtype.kind in "fc" or bv.dtype.kind in "fc":
        ok = np.allclose(av.astype(float), bv.astype(float), rtol=rtol, atol=atol, equal_nan=True)
    else:
        ok = np.array_equal(av, bv)
    return [] if ok else [f"{name}: values\n  oar   {_fmt(av)}\n  torch {_fmt(bv)}"]


def tensor_diffs(name, a, b, rtol, atol=None, what=""):
    """a: an oar tensor, b: the torch tensor -> the differences in shape, dtype and values."""
    atol = rtol if atol is None else atol
    if tuple(a.shape) != tuple(b.shape):
        return [f"{name}{what}: shape {tuple(a.shape)} vs torch {tuple(b.shape)}"]
    out = []
    if dtype_name(a.dtype) != dtype_name(b.dtype):
        out.append(f"{name}{what}: dtype {dtype_name(a.dtype)} vs torch {dtype_name(b.dtype)}")
    return out + array_diffs(f"{name}{what}", to_numpy(a), to_numpy(b), rtol, atol)


def value_diffs(a, b, rtol, atol, path="log"):
    """Structural comparison of two observations (oar's `a`, torch's `b`): tensors by
    tensor_diffs, arrays by array_diffs, floats within rtol/atol (NaN == NaN), lists and
    tuples elementwise with equal lengths, dicts with equal keys, anything else by ==."""
    if is_tensor(a) and is_tensor(b):
        return tensor_diffs(path, a, b, rtol, atol)
    if is_tensor(a) or is_tensor(b):
        return [f"{path}: oar {type(a).__name__} vs torch {type(b).__name__}"]
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return array_diffs(path, a, b, rtol, atol)
    if isinstance(a, float) and isinstance(b, float):
        ok = bool(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
        return [] if ok else [f"{path}: {a!r} vs torch {b!r}"]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} vs torch {len(b)}: {a!r} vs {b!r}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += value_diffs(x, y, rtol, atol, f"{path}[{i}]")
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(a)} vs torch {sorted(b)}"]
        out = []
        for k in a:
            out += value_diffs(a[k], b[k], rtol, atol, f"{path}[{k!r}]")
        return out
    return [] if a == b else [f"{path}: {a!r} vs torch {b!r}"]


# ---------------------------------------------------------------- exceptions
def exception_finding(eo, et):
    """eo: what oar raised, et: what torch raised (None: no exception) -> None when the
    outcomes are compatible, else (kind, description) with kind one of "leak" (oar raised
    a non-public exception), "silent" (torch raised, oar did not), "extra" (oar raised,
    torch did not), "class" (oar's exception is not an instance of torch's class)."""
    if eo is not None and not isinstance(eo, PUBLIC_ERRORS):
        return "leak", f"oar leaks an internal exception {type(eo).__name__}: {eo}"
    if et is None and eo is None:
        return None
    if eo is None:
        return "silent", f"silent success: torch raises {type(et).__name__}: {str(et)[:200]}"
    if et is None:
        return "extra", f"oar raises {type(eo).__name__}: {str(eo)[:300]}; torch succeeds"
    if not isinstance(eo, type(et)):
        return "class", (f"exception class: oar {type(eo).__name__} ({str(eo)[:150]}) is not a "
                         f"{type(et).__name__} (torch: {str(et)[:150]})")
    return None


# ---------------------------------------------------------------- running programs
def run_logged(program, L, *args):
    """Run `program(L, log, *args)`. log["error"] is the stage (log["stage"], "forward" at
    first) where it raised, or None; log["exception"] the exception."""
    log = {"stage": "forward"}
    try:
        program(L, log, *args)
        log["error"] = None
    except Exception as e:   # noqa: BLE001 -- compared with torch's by compare_logged
        log["error"] = log["stage"]
        log["exception"] = e
    log.pop("stage")
    return log


def compare_logged(program, *args, rtol, atol):
    """Run `program` on oar and on torch -> (oar log, torch log, differences). The logs must
    agree by value_diffs (the stage of an error included) and the exceptions by
    exception_finding."""
    got, want = run_logged(program, oar, *args), run_logged(program, torch, *args)
    eo, et = got.pop("exception", None), want.pop("exception", None)
    problems = value_diffs(got, want, rtol, atol)
    f = exception_finding(eo, et)
    if f:
        problems.append(f[1])
    got["exception"], want["exception"] = eo, et
    return got, want, problems


def report(got, want, problems, program_text=""):
    """An assertion message: the differences, both logs, the program."""
    return ("\n".join(problems) + f"\noar:   {got}\ntorch: {want}"
            + (f"\n--- program ---\n{program_text}" if program_text else ""))


def exec_code(ns, code):
    """exec `code` in the namespace `ns` (warnings silenced) -> the exception it raised, or
    None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, ns)
        except Exception as e:   # noqa: BLE001 — compared by the caller
            return e
    return None
