"""torch.testing on oar: assert_close, with PyTorch 2.13's defaults and messages."""
from __future__ import annotations

import collections.abc
import math

import numpy as np

from .. import dtypes as _dt
from ..tensor import Tensor as _CoreTensor

__all__ = ["assert_close"]

# PyTorch's default (rtol, atol) per dtype (torch/testing/_comparison.py)
_TOLERANCES = {np.dtype(np.float16): (1e-3, 1e-5), np.dtype(np.float32): (1.3e-6, 1e-5),
               np.dtype(np.float64): (1e-7, 1e-7)}


class _Mismatch(AssertionError):
    """One failed comparison, with the path of the item inside nested inputs."""

    def __init__(self, message, path=(), exc=AssertionError):
        super().__init__(message)
        self.message = message
        self.path = path
        self.exc = exc


def _tolerances(*dtypes):
    pairs = [_TOLERANCES.get(np.dtype(d), (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _door_dtype_name(d):
    return f"torch.{_dt.from_numpy_dtype(np.dtype(d)).name}"


def _fmt_index(idx, shape):
    return str(tuple(int(i) for i in np.unravel_index(idx, shape))) if shape else "()"


def _first_max(a):
    """torch.max over a flat array: NaN wins (its first occurrence), else the first maximum."""
    nan = np.flatnonzero(np.isnan(a)) if a.dtype.kind == "f" else ()
    if len(nan):
        return a[nan[0]], int(nan[0])
    i = int(np.argmax(a))
    return a[i], i


def _isclose(a, b, rtol, atol, equal_nan):
    from ..ops.general import _isclose_array
    return _isclose_array(a, b, rtol, atol, equal_nan)


def _item(v):
    v = v.item() if hasattr(v, "item") else v
    return v


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, scalar_like):
    a, e = actual._data, expected._data
    if a.shape != e.shape:
        raise _Mismatch(f"The values for attribute 'shape' do not match: "
                        f"torch.Size({list(a.shape)}) != torch.Size({list(e.shape)}).")
    if a.dtype != e.dtype:
        if check_dtype:
            raise _Mismatch(f"The values for attribute 'dtype' do not match: "
                            f"{_door_dtype_name(a.dtype)} != {_door_dtype_name(e.dtype)}.")
        common = _dt.promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    if rtol is None:
        rtol, atol = _tolerances(actual._data.dtype, expected._data.dtype)
    matches = _isclose(a, e, rtol, atol, equal_nan)
    if matches.all():
        return
    floating = a.dtype.kind == "f"
    if scalar_like and a.ndim == 0:
        _scalar_message(_item(a), _item(e), rtol, atol, floating)
    af, ef, mf = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    if not floating:
        af, ef = af.astype(np.int64), ef.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(af - ef)
        abs_diff[mf] = 0
        rel_diff = (abs_diff / np.abs(ef)).astype(a.dtype if floating else
                                                  _dt.DEFAULT_FLOAT.np, copy=False)
        rel_diff[mf] = 0
    n = mf.size
    bad = n - int(mf.sum())
    max_abs, i_abs = _first_max(abs_diff)
    max_rel, i_rel = _first_max(rel_diff)
    what = "close" if floating else "equal"
    lines = [f"Tensor-likes are not {what}!", "",
             f"Mismatched elements: {bad} / {n} ({bad / n:.1%})",
             f"Greatest absolute difference: {_item(max_abs)} at index "
             f"{_fmt_index(i_abs, a.shape)}" + (f" (up to {atol} allowed)" if floating else ""),
             f"Greatest relative difference: {_item(max_rel)} at index "
             f"{_fmt_index(i_rel, a.shape)}" + (f" (up to {rtol} allowed)" if floating else "")]
    raise _Mismatch("\n".join(lines))


def _scalar_message(a, e, rtol, atol, floating):
    diff = abs(a - e)
    rel = diff / abs(e) if e != 0 else (math.inf if diff else 0.0)
    what = "close" if floating else "equal"
    lines = [f"Scalars are not {what}!", "", f"Expected {e} but got {a}.",
             f"Absolute difference: {diff}" + (f" (up to {atol} allowed)" if floating else ""),
             f"Relative difference: {rel}" + (f" (up to {rtol} allowed)" if floating else "")]
    raise _Mismatch("\n".join(lines))


def _compare_numbers(a, e, rtol, atol, equal_nan):
    floating = isinstance(a, float) or isinstance(e, float)
    if rtol is None:
        rtol, atol = _tolerances(np.float64 if floating else np.int64)
    if a == e or (equal_nan and floating and math.isnan(a) and math.isnan(e)):
        return
    if floating and math.isfinite(a) and math.isfinite(e) and abs(a - e) <= atol + rtol * abs(e):
        return
    _scalar_message(a, e, rtol, atol, floating)


_NUMBERS = (bool, int, float)


def _compare(actual, expected, rtol, atol, equal_nan, check_dtype, path):
    if isinstance(actual, _CoreTensor) and isinstance(expected, _CoreTensor):
        try:
            _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, True)
        except _Mismatch as m:
            m.path = path
            raise
        return
    if isinstance(actual, _NUMBERS) and isinstance(expected, _NUMBERS):
        if check_dtype and type(actual) is not type(expected) and not (
                {type(actual), type(expected)} <= {int, bool}):
            raise _Mismatch(f"The values for attribute 'type' do not match: "
                            f"{type(actual)} != {type(expected)}.", path)
        try:
            _compare_numbers(actual, expected, rtol, atol, equal_nan)
        except _Mismatch as m:
            m.path = path
            raise
        return
    seq = collections.abc.Sequence
    if (isinstance(actual, seq) and isinstance(expected, seq)
            and not isinstance(actual, str) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != "
                            f"{len(expected)}", path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_dtype, path + (i,))
        return
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        ka, ke = set(actual), set(expected)
        if ka != ke:
            raise _Mismatch(f"The keys of the mappings do not match:\nMissing keys in the actual "
                            f"mapping: {sorted(map(repr, ke - ka))}\nAdditional keys in the "
                            f"actual mapping: {sorted(map(repr, ka - ke))}", path)
        for k in expected:
            _compare(actual[k], expected[k], rtol, atol, equal_nan, check_dtype, path + (k,))
        return
    raise _Mismatch(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                    f"{type(expected)}.", path, TypeError)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Asserts that actual and expected are close, as torch.testing.assert_close: tensors
    (same shape, and dtype unless check_dtype=False), Python numbers, and sequences or
    mappings of them, elementwise |actual - expected| <= atol + rtol * |expected| with
    PyTorch's default tolerances per dtype (float32: rtol 1.3e-6, atol 1e-5; float64: 1e-7;
    integers and bool: exact). Raises AssertionError with PyTorch's message (or `msg`, a
    string or a callable of the generated message)."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'atol' if atol is None else 'rtol'}.")
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_dtype, ())
    except _Mismatch as m:
        text = m.message
        if m.path:
            text += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in m.path)
        if m.exc is TypeError:
            raise TypeError(text) from None
        if msg is not None:
            text = msg(text) if callable(msg) else msg
        raise AssertionError(text) from None
