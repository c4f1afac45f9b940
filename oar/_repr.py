"""Paddle's tensor repr (python/paddle/tensor/to_string.py), reimplemented.

Layout rules in shared/spec/paddle-inplace-semantics.md §3.9.
"""
from __future__ import annotations

import math

import numpy as np

PRECISION = 8
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


def _item_str(v, kind):
    if kind == "f":
        v = float(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v) or math.ceil(v) == v:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"
    if kind == "b":
        return str(bool(v))
    return str(int(v))


def _summarize(a):
    """Items to print, as strings, with '...' markers where summarised (numpy object array)."""
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * EDGEITEMS:
        head = [_summarize(a[i]) for i in range(EDGEITEMS)]
        tail = [_summarize(a[i]) for i in range(a.shape[0] - EDGEITEMS, a.shape[0])]
        return head + ["..."] + tail
    return [_summarize(a[i]) for i in range(a.shape[0])]


def _flat_items(nested, out):
    if isinstance(nested, list):
        for x in nested:
            _flat_items(x, out)
    else:
        out.append(nested)


def format_data(arr: np.ndarray, indent: int) -> str:
    kind = arr.dtype.kind
    if arr.size == 0:
        return "[]"
    summarize = arr.size > THRESHOLD
    if arr.ndim == 0:
        return _item_str(arr[()], kind)
    nested = _summarize(arr) if summarize else _tolist(arr)
    items = []
    _flat_items(nested, items)
    strs = {}
    values = [x for x in items if not (isinstance(x, str) and x == "...")]
    max_width = 0
    for v in values:
        s = _item_str(v, kind)
        strs[id(v)] = s
        max_width = max(max_width, len(s))
    has_neg = kind in "fi" and any(_is_neg(v) for v in values)

    def pad(v):
        s = _item_str(v, kind)
        if len(s) >= max_width:
            return s
        if has_neg:
            return s.ljust(max_width) if _is_neg(v) else " " + s.ljust(max_width - 1)
        return s.ljust(max_width)

    return _format_nested(nested, arr.ndim, indent, pad, max_width)


def _is_neg(v):
    try:
        return float(v) < 0
    except (TypeError, ValueError):
        return False


def _tolist(a):
    if a.ndim == 0:
        return a[()]
    return [_tolist(a[i]) for i in range(a.shape[0])]


def _format_nested(nested, ndim, indent, pad, max_width):
    if ndim == 1:
        parts = ["..." if isinstance(x, str) and x == "..." else pad(x) for x in nested]
        per_line = max(1, (LINEWIDTH - indent) // (max_width + 2))
        lines = []
        for i in range(0, len(parts), per_line):
            lines.append(", ".join(parts[i:i + per_line]))
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    sep = ",\n" + "\n" * (ndim - 2) + " " * (indent + 1)
    inner = []
    for x in nested:
        if isinstance(x, str) and x == "...":
            inner.append("...")
        else:
            inner.append(_format_nested(x, ndim - 1, indent + 1, pad, max_width))
    return "[" + sep.join(inner) + "]"


def tensor_repr(t) -> str:
    prefix = "Tensor"
    indent = len(prefix) + 1
    shape = "[" + ", ".join(str(s) for s in t._data.shape) + "]"
    head = (f"{prefix}(shape={shape}, dtype={t.dtype.name}, place={t.place}, "
            f"stop_gradient={t.stop_gradient},\n")
    return head + " " * indent + format_data(t._data, indent) + ")"
