"""PyTorch's OpInfo database as the torch door's oracle.

`torch.testing._internal.common_methods_invocations.op_db` lists, for every torch op, sample
inputs (shapes, dtypes, keyword arguments, non-contiguous and broadcast cases) and the
spellings the op has: function, method, in-place, `out=`. This module runs each sample
through oar.torch and torch 2.13 and classifies what it sees:

* "ok"        both agree (values, dtype, shape; or both raise);
* "refused"   torch runs it, oar raises (code torch users run breaks);
* "differs"   both run, the results differ (the worst defect: no error);
* "accepted"  torch raises, oar runs (bad input accepted);
* "error-class" both raise, but oar's exception is not an instance of torch's class;
* "grad"      float64 gradients (of a fixed random cotangent) differ or are missing.

Samples are made by torch and copied into oar with their strides (a non-contiguous sample
stays non-contiguous), each variant on fresh copies, so an in-place op of one variant cannot
leak into the next. `run_op(opinfo)` returns a list of Finding.
"""
from __future__ import annotations

import dataclasses
import functools
import types
import warnings

import numpy as np

import oar.torch as otorch

import torch
from torch.testing._internal.common_methods_invocations import op_db

OPS = {}
for _op in op_db:
    OPS.setdefault(_op.name + ("." + _op.variant_test_name if _op.variant_test_name else ""),
                   _op)

# dtypes the samples are drawn in (where the OpInfo supports them)
DTYPES = (torch.float32, torch.float64, torch.int64, torch.bool)
VARIANTS = ("function", "method", "inplace", "out", "keyword", "noncontiguous")


@dataclasses.dataclass
class Finding:
    op: str
    variant: str
    dtype: str
    kind: str
    detail: str

    def __str__(self):
        return f"{self.op} [{self.variant}, {self.dtype}] {self.kind}: {self.detail}"


class Unconvertible(Exception):
    """A sample argument oar has no counterpart for (a torch.memory_format, a generator)."""


# ---------------------------------------------------------------- torch -> oar
def to_oar(v):
    """A torch sample argument as the oar.torch argument: tensors copied with their strides."""
    if isinstance(v, torch.Tensor):
        if v.dtype not in _DTYPE_MAP or v.layout != torch.strided:
            raise Unconvertible(f"tensor of {v.dtype}")
        t = v.detach()
        a = t.numpy()
        if t.numel() and a.base is not None:
            # keep the layout: the same strides over a copy of the memory it spans
            a = _strided_copy(t)
        else:
            a = a.copy()
        r = otorch.from_numpy(a) if a.ndim and a.strides and min(a.strides) >= 0 else \
            otorch.tensor(a)
        if v.requires_grad:
            r.requires_grad_(True)
        return r
    if isinstance(v, torch.dtype):
        if v not in _DTYPE_MAP:
            raise Unconvertible(str(v))
        return _DTYPE_MAP[v]
    if isinstance(v, torch.Size):
        return tuple(v)
    if isinstance(v, (list, tuple)):
        return type(v)(to_oar(x) for x in v) if not hasattr(v, "_fields") else \
            type(v)(*[to_oar(x) for x in v])
    if isinstance(v, dict):
        return {k: to_oar(x) for k, x in v.items()}
    if isinstance(v, (torch.memory_format, torch.Generator, torch.device, torch.layout)):
        raise Unconvertible(type(v).__name__)
    return v


def _strided_copy(t):
    """An ndarray with t's shape and strides over a fresh copy of the storage span t reads."""
    a = t.numpy()
    lo = min(0, sum((n - 1) * s for n, s in zip(a.shape, a.strides) if s < 0))
    hi = sum((n - 1) * s for n, s in zip(a.shape, a.strides) if s > 0) + a.itemsize
    span = np.lib.stride_tricks.as_strided(a, shape=((hi - lo) // a.itemsize,),
                                           strides=(a.itemsize,))
    buf = np.array(span, copy=True)
    return np.lib.stride_tricks.as_strided(buf, shape=a.shape, strides=a.strides)


_DTYPE_MAP = {getattr(torch, n): getattr(otorch, n) for n in
              ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
               "bool", "complex64", "complex128")}


def clone_torch(v):
    if isinstance(v, torch.Tensor):
        # the same strides, also for a non-dense layout (clone's preserve_format makes
        # those contiguous, and a random op then draws in another order than oar's copy)
        if 0 in v.stride() or not v.numel():   # expanded (overlapping) or empty: as is
            r = v.detach().clone(memory_format=torch.preserve_format)
        else:
            r = torch.empty_strided(v.size(), v.stride(), dtype=v.dtype)
            with torch.no_grad():
                r.copy_(v.detach())
        return r.requires_grad_(v.requires_grad) if v.requires_grad else r
    if isinstance(v, (list, tuple)):
        return type(v)(clone_torch(x) for x in v) if not hasattr(v, "_fields") else \
            type(v)(*[clone_torch(x) for x in v])
    if isinstance(v, dict):
        return {k: clone_torch(x) for k, x in v.items()}
    return v


# ---------------------------------------------------------------- calling
def resolve(root, dotted):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _rebound(fn):
    """A function of PyTorch's test suite (`lambda self, c, o: torch.where(c, self, o)`)
    with its global `torch` (and `F`) meaning oar.torch: the same program on oar; None
    when fn is not one."""
    if isinstance(fn, functools.partial):
        inner = _rebound(fn.func) or _by_name(fn.func)
        return None if inner is None else functools.partial(inner, *fn.args, **fn.keywords)
    if not isinstance(fn, types.FunctionType) or not fn.__module__.startswith("torch.testing"):
        return None
    g = dict(fn.__globals__)
    g["torch"] = otorch
    g["F"] = otorch.nn.functional
    g["np"] = np
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def _by_name(fn):
    """oar.torch's counterpart of a torch function, by its module path and name."""
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__name__", "")
    if mod.startswith("torch.nn.functional"):
        return getattr(otorch.nn.functional, name, None)
    if mod.startswith("torch._C._nn"):
        return getattr(otorch.nn.functional, name, None)
    return getattr(otorch, name, None)


def oar_callable(op, variant):
    """oar.torch's spelling of `op` in `variant`, or None where oar lacks it."""
    name = op.name
    if variant in ("function", "out", "keyword", "noncontiguous"):
        if op.op is None:
            return None
        return _rebound(op.op) or resolve(otorch, name)
    if variant == "method":
        return _method(op.method_variant, name.split(".")[-1])
    if variant == "inplace":
        return _method(op.inplace_variant, getattr(op.inplace_variant, "__name__", ""))
    return None


def _method(torch_fn, name):
    """oar.torch's counterpart of a method variant: PyTorch's own lambda on oar.torch, or
    the oar.torch.Tensor method of that name; None where there is neither."""
    if torch_fn is None:
        return None
    r = _rebound(torch_fn)
    if r is not None:
        return r
    if getattr(otorch.Tensor, name, None) is None:
        return None
    return lambda self, *a, **k: getattr(self, name)(*a, **k)


def torch_callable(op, variant):
    if variant in ("function", "out", "keyword", "noncontiguous"):
        return op.op
    if variant == "method":
        return op.method_variant
    if variant == "inplace":
        return op.inplace_variant
    return None


def _call(fn, sample, out=None):
    args = (sample[0], *sample[1])
    kwargs = dict(sample[2])
    if out is not None:
        kwargs["out"] = out
    # random ops draw the same stream in both (oar.torch replicates torch's CPU generator);
    # 42 is the seed OpInfo's wrapper_set_seed gives torch inside random ops (dropout)
    torch.manual_seed(42)
    otorch.manual_seed(42)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _outcome(fn, sample, out=None):
    try:
        return True, _call(fn, sample, out)
    except Exception as e:  # noqa: BLE001 -- classified by the caller
        return False, e


# ---------------------------------------------------------------- comparing
def _leaves(v):
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            out.extend(_leaves(x))
        return out
    return [v]


def _np(v):
    if isinstance(v, torch.Tensor):
        if v._is_zerotensor():   # sgn's gradient of a zero input
            return np.zeros(tuple(v.shape), str(v.dtype).split(".")[-1])
        v = v.detach().resolve_conj().resolve_neg()
        if v.dtype is torch.bfloat16:   # NumPy has no bfloat16: compare as float32 (exact)
            v = v.float()
        return v.numpy()
    if hasattr(v, "_data"):
        data = np.asarray(v._data)
        return data.astype(np.float32) if data.dtype.name == "bfloat16" else data
    return v


def _tol(dt):
    return {np.dtype(np.float16): (1e-3, 1e-2), np.dtype(np.float32): (1.3e-6, 1e-5)}.get(
        np.dtype(dt), (1e-7, 1e-7))


# ops whose values are undefined (uninitialised memory): only dtype and shape are compared
UNINITIALISED = ("empty", "empty_like", "new_empty", "empty_strided", "empty_permuted",
                 "new_empty_strided")


def compare(t_res, o_res, values=True):
    """None when oar's result matches torch's, else a short description."""
    tl, ol = _leaves(t_res), _leaves(o_res)
    if len(tl) != len(ol):
        return f"{len(ol)} results, torch {len(tl)}"
    for i, (t, o) in enumerate(zip(tl, ol)):
        if isinstance(t, torch.Tensor):
            if not hasattr(o, "_data"):
                return f"result {i}: {type(o).__name__}, torch a tensor"
            o_dtype = np.asarray(o._data).dtype.name   # before _np widens bfloat16
            a, b = _np(t), _np(o)
            if str(t.dtype).split(".")[-1] != o_dtype:
                return f"result {i}: dtype {o_dtype}, torch {t.dtype}"
            if a.shape != b.shape:
                return f"result {i}: shape {list(b.shape)}, torch {list(a.shape)}"
            if not values:
                continue
            if a.dtype.kind in "fc":
                rtol, atol = _tol(a.dtype)
                wide = np.complex128 if a.dtype.kind == "c" else np.float64
                if not np.allclose(b.astype(wide), a.astype(wide), rtol=rtol,
                                   atol=atol, equal_nan=True):
                    return f"result {i}: values differ (max abs {_maxdiff(a, b)})"
            elif not np.array_equal(a, b):
                return f"result {i}: values differ"
        elif isinstance(t, (bool, int, float)):
            if isinstance(o, (torch.Tensor,)) or hasattr(o, "_data"):
                return f"result {i}: a tensor, torch {type(t).__name__}"
            if not (o == t or (isinstance(t, float) and np.isnan(t) and np.isnan(o))):
                if not (isinstance(t, float) and np.isclose(o, t)):
                    return f"result {i}: {o!r}, torch {t!r}"
    return None


def _maxdiff(a, b):
    with np.errstate(all="ignore"):
        return float(np.nanmax(np.abs(a.astype(np.complex128) - b.astype(np.complex128)))) \
            if a.size else 0.0


# ---------------------------------------------------------------- one op
def _samples(op, dtype, requires_grad=False):
    try:
        return list(op.sample_inputs("cpu", dtype, requires_grad=requires_grad))
    except Exception:  # noqa: BLE001 -- a sample generator that needs something we lack
        return []


def _as_triple(s):
    return (s.input, tuple(s.args), dict(s.kwargs))


def _out_like(t_res):
    """An empty tensor of each torch result's dtype: out= resizes it, as torch does."""
    leaves = _leaves(t_res)
    if not leaves or not all(isinstance(t, torch.Tensor) for t in leaves):
        return None
    outs = [torch.empty(0, dtype=t.dtype) for t in leaves]
    return outs[0] if isinstance(t_res, torch.Tensor) else tuple(outs)


# ---------------------------------------------------------------- sample transforms
_SCHEMAS = None


def _keyword_form(op, triple):
    """The sample with every argument passed by torch's keyword name (the first overload of
    torch 2.13's that binds it, from oar/torch/_schemas.json), or None."""
    global _SCHEMAS
    if _SCHEMAS is None:
        import json
        import pathlib
        _SCHEMAS = json.loads((pathlib.Path(otorch.__file__).parent / "_schemas.json")
                              .read_text())["ops"]
    if not isinstance(op.op, types.BuiltinFunctionType) and not (
            isinstance(op.op, types.FunctionType) and op.op.__module__.startswith(
                "torch.nn.functional")):
        return None   # a lambda of the test suite: its own parameter names
    short = op.name.split(".")[-1]
    form = "functional" if op.name.startswith("nn.functional.") else "function"
    x, args, kwargs = triple
    positional = (x, *args)
    for row in _SCHEMAS.get(short, {}).get(form, ()):
        names = [n for n, kwonly, _ in row["params"] if not kwonly]
        if len(positional) <= len(names) and not set(kwargs) & set(names[:len(positional)]):
            kw = dict(zip(names, positional))
            kw.update(kwargs)
            return kw
    return None


def _noncontiguous(triple):
    from torch.testing._internal.common_utils import noncontiguous_like

    def nc(v):
        if isinstance(v, torch.Tensor) and v.numel() > 1 and v.layout == torch.strided:
            r = noncontiguous_like(v.detach())
            return r.requires_grad_(v.requires_grad) if v.requires_grad else r
        return v
    x, args, kwargs = triple
    return (nc(x), tuple(nc(a) for a in args), {k: nc(v) for k, v in kwargs.items()})


def _call_keywords(fn, kwargs):
    torch.manual_seed(42)
    otorch.manual_seed(42)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return True, fn(**kwargs)
        except Exception as e:  # noqa: BLE001
            return False, e


def run_variant(op, variant, dtype, samples):
    findings = []
    t_fn = torch_callable(op, variant)
    if t_fn is None or (variant == "out" and not op.supports_out):
        return findings
    if variant == "keyword":
        return _run_keyword(op, dtype, samples)
    if variant == "noncontiguous":
        samples = [_noncontiguous(_as_triple(s)) for s in samples]
    o_fn = oar_callable(op, variant)
    dname = str(dtype).split(".")[-1]
    for k, s in enumerate(samples):
        triple = s if isinstance(s, tuple) else _as_triple(s)
        try:
            o_sample = to_oar(triple)
        except Unconvertible:
            continue
        t_sample = clone_torch(triple)
        t_out = o_out = None
        if variant == "out":
            ok, probe = _outcome(op.op, clone_torch(triple))
            if not ok:
                continue
            t_out = _out_like(probe)
            if t_out is None:
                continue
            o_out = to_oar(clone_torch(t_out))
        t_ok, t_res = _outcome(t_fn, t_sample, t_out)
        if o_fn is None:
            if t_ok:
                findings.append(Finding(op.name, variant, dname, "missing", ""))
                return findings
            continue
        o_ok, o_res = _outcome(o_fn, o_sample, o_out)
        where = f"sample {k} {_describe(triple)}"
        if t_ok and not o_ok:
            findings.append(Finding(op.name, variant, dname, "refused",
                                    f"{where}: {type(o_res).__name__}: {str(o_res)[:160]}"))
        elif o_ok and not t_ok:
            findings.append(Finding(op.name, variant, dname, "accepted",
                                    f"{where}: torch {type(t_res).__name__}: {str(t_res)[:120]}"))
        elif not t_ok:
            if not isinstance(o_res, type(t_res)) and not (
                    isinstance(t_res, RuntimeError) and isinstance(o_res, RuntimeError)):
                findings.append(Finding(op.name, variant, dname, "error-class",
                                        f"{where}: {type(o_res).__name__}, torch "
                                        f"{type(t_res).__name__}: {str(o_res)[:100]}"))
        else:
            if variant == "inplace" and t_res is t_sample[0] and o_res is not o_sample[0]:
                findings.append(Finding(op.name, variant, dname, "differs",
                                        f"{where}: in-place result is not self"))
                continue
            values = op.name not in UNINITIALISED
            d = compare(t_res if variant != "out" else t_out,
                        o_res if variant != "out" else o_out, values)
            if d is None and variant == "inplace":
                d = compare(t_sample[0], o_sample[0], values)
            if d is not None:
                findings.append(Finding(op.name, variant, dname, "differs", f"{where}: {d}"))
    return findings


def _run_keyword(op, dtype, samples):
    """Each sample called with torch's keyword names: what torch binds, oar must bind."""
    findings = []
    o_fn = oar_callable(op, "function")
    if o_fn is None:
        return findings
    dname = str(dtype).split(".")[-1]
    o_fn = resolve(otorch, op.name)
    for k, s in enumerate(samples):
        triple = _as_triple(s)
        kw = _keyword_form(op, triple)
        if kw is None:
            continue
        try:
            o_kw = to_oar(kw)
        except Unconvertible:
            continue
        t_ok, t_res = _call_keywords(op.op, clone_torch(kw))
        if not t_ok:
            continue
        o_ok, o_res = _call_keywords(o_fn, o_kw)
        where = f"sample {k} {sorted(kw)}"
        if not o_ok:
            findings.append(Finding(op.name, "keyword", dname, "refused",
                                    f"{where}: {type(o_res).__name__}: {str(o_res)[:120]}"))
            continue
        d = compare(t_res, o_res, op.name not in UNINITIALISED)
        if d is not None:
            findings.append(Finding(op.name, "keyword", dname, "differs", f"{where}: {d}"))
    return findings


def _describe(triple):
    def one(v):
        if isinstance(v, torch.Tensor):
            return f"T{list(v.shape)}" + ("" if v.is_contiguous() else "nc")
        if isinstance(v, (list, tuple)):
            return "[" + ",".join(one(x) for x in v) + "]"
        return repr(v)[:30]
    x, args, kwargs = triple
    parts = [one(x)] + [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def run_grad(op, samples):
    """float64 gradients of <result, cotangent> against torch's, for the function variant."""
    findings = []
    if not op.supports_autograd or op.op is None or op.name.endswith("_"):
        return findings
    o_fn = oar_callable(op, "function")
    if o_fn is None:
        return findings
    for k, s in enumerate(samples):
        triple = _as_triple(s)
        t_leaves = [v for v in _leaves([triple[0], list(triple[1]), list(triple[2].values())])
                    if isinstance(v, torch.Tensor) and v.requires_grad]
        if not t_leaves:
            continue
        try:
            o_sample = to_oar(triple)
        except Unconvertible:
            continue
        o_leaves = [v for v in _leaves([o_sample[0], list(o_sample[1]),
                                        list(o_sample[2].values())])
                    if hasattr(v, "_data") and v.requires_grad]
        t_ok, t_res = _outcome(op.op, triple)
        if not t_ok:
            continue
        t_outs = [r for r in _leaves(t_res) if isinstance(r, torch.Tensor)
                  and r.requires_grad and r.dtype.is_floating_point]
        if not t_outs:
            continue
        gen = np.random.default_rng(k)
        cots = [gen.standard_normal(tuple(r.shape)) for r in t_outs]
        try:
            t_grads = torch.autograd.grad(t_outs, t_leaves,
                                          [torch.from_numpy(c.copy()) for c in cots],
                                          allow_unused=True)
        except Exception:  # noqa: BLE001
            continue
        o_ok, o_res = _outcome(o_fn, o_sample)
        where = f"sample {k} {_describe(triple)}"
        if not o_ok:
            findings.append(Finding(op.name, "grad", "float64", "refused",
                                    f"{where}: {type(o_res).__name__}: {str(o_res)[:120]}"))
            continue
        o_outs = [r for r in _leaves(o_res) if hasattr(r, "_data") and r.requires_grad
                  and r.dtype.is_floating_point]
        t_names = [_node_name(r) for r in t_outs]
        o_names = [_node_name(r) for r in o_outs]
        if t_names != o_names:
            findings.append(Finding(op.name, "grad_fn", "float64", "differs",
                                    f"{where}: {o_names}, torch {t_names}"))
        if len(o_outs) != len(t_outs):
            findings.append(Finding(op.name, "grad", "float64", "grad",
                                    f"{where}: {len(o_outs)} differentiable results, torch "
                                    f"{len(t_outs)}"))
            continue
        try:
            o_grads = otorch.autograd.grad(o_outs, o_leaves,
                                           [otorch.tensor(c) for c in cots], allow_unused=True)
        except Exception as e:  # noqa: BLE001
            findings.append(Finding(op.name, "grad", "float64", "grad",
                                    f"{where}: backward raised {type(e).__name__}: "
                                    f"{str(e)[:100]}"))
            continue
        for i, (tg, og) in enumerate(zip(t_grads, o_grads)):
            if tg is None and og is None:
                continue
            if tg is None or og is None:
                tz = tg is None or not tg.any()
                oz = og is None or not np.asarray(og._data).any()
                if tz and oz:
                    continue
                findings.append(Finding(op.name, "grad", "float64", "grad",
                                        f"{where}: input {i}: oar {og is not None}, torch "
                                        f"{tg is not None}"))
                continue
            d = compare(tg, og)
            if d is not None:
                findings.append(Finding(op.name, "grad", "float64", "grad",
                                        f"{where}: input {i}: {d}"))
    return findings


def _node_name(t):
    """The autograd node's name as torch shows it (`AddBackward0`), or None."""
    fn = t.grad_fn
    return None if fn is None else type(fn).__name__


def _spread(samples, limit):
    """At most `limit` samples, spread over the whole list (OpInfo lists edge cases last)."""
    if limit is None or len(samples) <= limit:
        return samples
    step = len(samples) / limit
    return [samples[int(i * step)] for i in range(limit)]


def run_op(op, dtypes=DTYPES, variants=VARIANTS, grad=True, max_samples=None):
    """Every finding for `op`: each dtype's samples (at most max_samples of them, spread
    over the list) in each variant, then float64 gradients and grad_fn names."""
    findings = []
    supported = op.supported_dtypes("cpu")
    for dtype in dtypes:
        if dtype not in supported:
            continue
        samples = _spread(_samples(op, dtype), max_samples)
        for variant in variants:
            findings += run_variant(op, variant, dtype, samples)
    if grad and torch.float64 in supported:
        findings += run_grad(op, _spread(_samples(op, torch.float64, requires_grad=True),
                                         max_samples))
    return findings


def defined_ops():
    """The OpInfo entries whose function oar.torch defines."""
    return sorted(k for k, op in OPS.items() if op.op is not None and resolve(otorch, op.name)
                  is not None)


if __name__ == "__main__":   # python -m tests.reference.opinfo [op ...]: a report
    import collections
    import sys
    names = sys.argv[1:] or defined_ops()
    counts = collections.Counter()
    per_op = {}
    for n in names:
        try:
            fs = run_op(OPS[n])
        except Exception as e:  # noqa: BLE001
            fs = [Finding(n, "harness", "-", "crash", f"{type(e).__name__}: {e}")]
        per_op[n] = fs
        for f in fs:
            counts[f.kind] += 1
            print(f)
    bad = [n for n, fs in per_op.items() if fs]
    print(f"\n{len(names)} ops, {len(names) - len(bad)} clean; findings: {dict(counts)}")
