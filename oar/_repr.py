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


def _widen_bfloat16(arr):
    """bfloat16 values print as the float32s they are exactly (Note [bfloat16]): NumPy
    sees ml_dtypes' bfloat16 as kind 'V', so the formatters would not know it floats."""
    from .dtypes import BFLOAT16_NP
    return arr.astype(np.float32) if arr.dtype == BFLOAT16_NP else arr


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
    if kind == "c":   # Paddle: (re+imj), both parts with 8 decimals
        v = complex(v)
        return f"({v.real:.{PRECISION}f}{v.imag:+.{PRECISION}f}j)"
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
    arr = _widen_bfloat16(arr)
    kind = arr.dtype.kind
    if arr.size == 0:
        return _empty_nested(arr.shape, indent)
    summarize = arr.size > THRESHOLD
    if arr.ndim == 0:
        return _item_str(arr[()], kind)
    nested = _summarize(arr) if summarize else _tolist(arr)
    items: list = []
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


def _empty_nested(shape, indent):
    """Paddle prints the brackets of an empty tensor down to its first size-0 dim:
    shape [2, 0] is `[[],\n        []]`."""
    if not shape or shape[0] == 0:
        return "[]"
    sep = ",\n" + "\n" * (len(shape) - 2) + " " * (indent + 1)
    return "[" + sep.join(_empty_nested(shape[1:], indent + 1) for _ in range(shape[0])) + "]"


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
    return head + " " * indent + format_data(_host(t._data), indent) + ")"


def _host(a):
    """The values to print: a device array is copied to the host first."""
    if a.__class__ is np.ndarray:
        return a
    from ._xp import CPU, to_place
    return to_place(a, CPU)


# --------------------------------------------------------------------------- PyTorch's repr
# Note [Torch repr]
# The PyTorch door prints tensors as torch 2.13 does (torch/_tensor_str.py, reimplemented on
# NumPy): `tensor([1., 2.])`, `tensor(3.5000)`, `tensor([1, 2])`; 4 digits after the point
# unless every finite value is an integer (then `3.`); scientific notation when the finite
# nonzero magnitudes span more than 1000x, exceed 1e8 or go below 1e-4; summarised ("...",
# three items at each edge) above 1000 elements; lines cut at 80 columns. Suffixes follow:
# `size=` for an empty tensor that is not 1-D, `dtype=` unless the dtype is the default
# float, int64 or bool (for an empty tensor: unless the default float), then
# `grad_fn=<Name>` or `requires_grad=True`. tests/test_doors_conflicts.py compares the
# strings with torch for every case it prints.
TORCH_PRECISION = 4
TORCH_THRESHOLD = 1000
TORCH_EDGEITEMS = 3
TORCH_LINEWIDTH = 80


class _TorchFormatter:
    """torch's _Formatter: one width and one style (int / fixed / scientific) per tensor."""

    def __init__(self, arr):
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = arr.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return
        absd = np.abs(vals).astype(np.float64)
        lo, hi = float(absd.min()), float(absd.max())
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        p = TORCH_PRECISION
        for v in vals.tolist():
            if self.sci_mode:
                w = len(f"{v:.{p}e}")
            elif self.int_mode:
                w = len(f"{v:.0f}") + 1
            else:
                w = len(f"{v:.{p}f}")
            self.max_width = max(self.max_width, w)

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{TORCH_PRECISION}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{TORCH_PRECISION}f}"
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


class _TorchComplexFormatter:
    """torch's pair of formatters for a complex tensor: one over the real parts, one over
    the imaginary parts, each with its own width and style; an item is `re+imj`."""

    def __init__(self, arr):
        self.re = _TorchFormatter(arr.real)
        self.im = _TorchFormatter(arr.imag)
        self.max_width = self.re.max_width + self.im.max_width + 1   # the `j`

    def format(self, value):
        value = complex(value)
        r = self.re.format(value.real)
        i = (self.im.format(value.imag) + "j").lstrip()
        return r + i if i[0] in "+-" else r + "+" + i


def _torch_summarized(a):
    """torch's get_summarized_data: the edge items that a summarised print shows."""
    e = TORCH_EDGEITEMS
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:e], a[-e:]]) if a.shape[0] > 2 * e else a
    rows = list(range(e)) + list(range(a.shape[0] - e, a.shape[0])) if a.shape[0] > 2 * e \
        else range(a.shape[0])
    return np.stack([_torch_summarized(a[i]) for i in rows])


def _torch_vector(a, indent, summarize, fmt):
    per_line = max(1, math.floor((TORCH_LINEWIDTH - indent) / (fmt.max_width + 2)))
    e = TORCH_EDGEITEMS
    if summarize and a.shape[0] > 2 * e:
        data = ([fmt.format(v) for v in a[:e].tolist()] + [" ..."]
                + [fmt.format(v) for v in a[-e:].tolist()])
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _torch_nested(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _torch_vector(a, indent, summarize, fmt)
    e = TORCH_EDGEITEMS
    if summarize and a.shape[0] > 2 * e:
        slices = ([_torch_nested(a[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
                  + [_torch_nested(a[i], indent + 1, summarize, fmt)
                     for i in range(a.shape[0] - e, a.shape[0])])
    else:
        slices = [_torch_nested(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def torch_data_str(arr, indent):
    """The bracketed values of `arr` as torch prints them (Note [Torch repr])."""
    if arr.size == 0:
        return "[]"
    arr = _widen_bfloat16(arr)
    summarize = arr.size > TORCH_THRESHOLD
    shown = _torch_summarized(arr) if summarize else arr
    fmt = (_TorchComplexFormatter if arr.dtype.kind == "c" else _TorchFormatter)(shown)
    return _torch_nested(arr, indent, summarize, fmt)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last + len(s) + 2 > TORCH_LINEWIDTH:
            parts.append(",\n" + " " * indent + s)
            last = indent + len(s)
        else:
            parts.append(", " + s)
            last += len(s) + 2
    parts.append(")")
    return "".join(parts)


def torch_repr(t, dtype_str) -> str:
    """`tensor(...)` as torch 2.13 prints t (Note [Torch repr]); dtype_str(t) is the dtype's
    name as the torch door prints it (`torch.float64`)."""
    from . import dtypes as _dt
    prefix = "tensor("
    indent = len(prefix)
    a = _host(t._data)
    default_float = _dt.DEFAULT_FLOAT.np
    suffixes = []
    if a is not t._data:   # PyTorch names a device other than the CPU first
        suffixes.append(f"device='{t.device}'")
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if a.dtype != default_float:
            suffixes.append("dtype=" + dtype_str(t))
        body = "[]"
    else:
        if a.dtype not in (default_float, np.dtype(np.int64), np.dtype(np.bool_),
                           _dt.default_complex()):
            suffixes.append("dtype=" + dtype_str(t))
        body = torch_data_str(a, indent)
    try:
        fn = t.grad_fn
    except RuntimeError:   # a view whose history cannot be rebuilt: PyTorch prints <Invalid>
        fn = None
        suffixes.append("grad_fn=<Invalid>")
    if fn is not None:
        name = getattr(fn, "name", None)    # a method in PyTorch, a property on some nodes
        name = (name() if callable(name) else name) or type(fn).__name__
        # torch prints a C++ node's last name part: name() 'torch::autograd::CopySlices'
        suffixes.append(f"grad_fn=<{name.rsplit('::', 1)[-1]}>")
    elif t.requires_grad and not suffixes[-1:] == ["grad_fn=<Invalid>"]:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
