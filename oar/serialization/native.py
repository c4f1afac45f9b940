"""oar's own checkpoint format: a safetensors file, written and read here to its spec, whose
`__metadata__["oar"]` describes the saved object tree. Loading it never runs code."""

# Note [oar checkpoint format]
# The file is a valid safetensors file (https://huggingface.co/docs/safetensors, "Format"):
#
#     8 bytes   N, the header length, unsigned little-endian
#     N bytes   a JSON object (ASCII), padded with spaces so that 8 + N is a multiple of 8:
#               {"__metadata__": {"oar": "<JSON text of the object tree>"},
#                "<entry>": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...}
#     data      every entry's bytes, little-endian, C order, back to back: the entries tile the
#               data section exactly (no gap, no overlap, nothing after the last one)
#
# Entries are storages (Note [Storage layout in checkpoints]): each oar Storage reached from
# the saved object is written once, as its whole flat buffer. A storage that holds exactly one
# tensor covering it fully and contiguously is named by that tensor's path in the object
# (dict keys and list indices joined with ".", so "fc.weight" for a state dict; "tensor" for a
# bare tensor; a clash gets a "~N" suffix) and written with the tensor's shape, so
# `safetensors.numpy.load_file` of a saved state dict gives the state dict's arrays; any other
# storage is a flat entry "__storage__.N". NumPy arrays and scalars get an entry of their own
# (a contiguous copy). Entries are ordered by item size, largest first (as safetensors does), so
# every entry starts at a multiple of its item size.
#
# The object tree is plain JSON: None, bool, int, str and finite float as themselves, lists as
# arrays, and tagged objects {"$": tag, ...} for everything else:
#     {"$": "float", "value": "nan" | "inf" | "-inf"}
#     {"$": "tuple", "items": [...]}
#     {"$": "dict", "items": [[key, value], ...], "ordered": bool}   (keys keep their types:
#          str, int, float, bool, None, or tuples of those -- optimizer state's int keys)
#     {"$": "tensor", "id": k, "entry": name, "offset": o, "shape": [...], "strides": [...],
#          "dtype": "float32", "class": "tensor" | "parameter", "door": "paddle" | "torch",
#          "stop_gradient": bool, "name": str (only when set)}
#     {"$": "ndarray", "entry": name, "shape": [...], "dtype": "float32", "scalar": bool}
# A tensor object reached twice is written once ("id") and loads as one object; windows are in
# elements on the entry's flat buffer. Anything else (objects, functions, complex numbers,
# bytes, sets) is refused at save time with the path to it: a checkpoint holds data, never code.
#
# Loading checks the whole header before reading any data: known dtypes, shapes against byte
# sizes, offsets tiling the data section whose size is the file's, the object tree's structure
# and every tensor window inside its entry. Each entry is read with readinto into a fresh
# buffer (no mmap: the file may be replaced or deleted after loading), which becomes one oar
# Storage shared by every tensor on it (so views keep sharing memory and a version counter).
# A safetensors file without "oar" metadata (written by the safetensors package) loads as a
# dict {entry name: tensor of the loading door}, in header order.

from __future__ import annotations

import json
import math
import pickle
import struct
import sys
from collections import OrderedDict
from typing import Any

import numpy as np

from ._errors import CheckpointError, UnreadableCheckpointError
from ..tensor import Tensor
from ._layout import storage_array, tensor_on

VERSION = 1
MAX_HEADER = 100_000_000     # safetensors' own limit on N
_CHUNK = 16 << 20            # bytes per write() call while streaming an entry
MAX_DEPTH = 200              # containers nested deeper are refused on save and on load

# safetensors dtype names <-> NumPy dtypes (bfloat16, float8 and complex have no oar dtype)
_ST: dict[str, Any] = {"BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "U16": np.uint16, "I16": np.int16,
       "U32": np.uint32, "I32": np.int32, "U64": np.uint64, "I64": np.int64,
       "F16": np.float16, "F32": np.float32, "F64": np.float64}
_ST = {k: np.dtype(v) for k, v in _ST.items()}
_ST_OF = {v: k for k, v in _ST.items()}
_NAME_OF = {v: ("bool" if v.kind == "b" else v.name) for v in _ST.values()}
_DTYPE_OF = {v: k for k, v in _NAME_OF.items()}
_TENSOR_DTYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                  "float64"}


def _refuse_save(where, what, fix):
    return CheckpointError(f"oar.save: cannot save {where}: {what}. An oar checkpoint holds "
                           f"tensors, NumPy arrays and numbers, None, bool, int, float, str "
                           f"and lists, tuples and dicts of them, never pickled objects; {fix}")


# ================================================================================== saving
class _Group:
    """One entry to write: a flat contiguous array and the tensors (or array) on it."""
    __slots__ = ("flat", "refs", "users", "path", "full", "shape", "name")

    def __init__(self, flat, path, full, shape):
        self.flat = flat        # 1-d C-contiguous array, native byte order
        self.refs = []          # the JSON refs to patch with the entry name
        self.users = 0          # distinct tensor objects (or arrays) on it
        self.path = path        # the key path of its first user, for naming
        self.full = full        # its first user covers it fully and contiguously
        self.shape = shape      # that user's shape (the entry's shape when named)
        self.name = None


class Plan:
    """A checked, ready-to-write checkpoint: the header bytes and the arrays, in file order.
    Building it (plan(obj)) raises for anything unsavable before any file is touched."""
    __slots__ = ("header", "arrays")

    def __init__(self, header, arrays):
        self.header = header
        self.arrays = arrays

    @property
    def nbytes(self):
        """The size of the file this plan writes."""
        return len(self.header) + sum(a.nbytes for a in self.arrays)


class _Encoder:
    def __init__(self):
        self.groups = {}        # storage key -> _Group
        self.tensors = {}       # id(tensor) -> (ref, tensor)  (the tensor kept alive)
        self.active = set()     # ids of the containers on the current path (cycles)
        self.torch_cls = None
        mod = sys.modules.get("oar.torch._tensor")
        if mod is not None:
            self.torch_cls = mod.Tensor

    def encode(self, obj, where, keys):
        t = type(obj)
        if obj is None or t is bool or t is int or t is str:
            return obj
        if t is float:
            if math.isfinite(obj):
                return obj
            return {"$": "float", "value": "nan" if obj != obj else ("inf" if obj > 0 else "-inf")}
        if isinstance(obj, Tensor):
            return self.tensor(obj, where, keys)
        if isinstance(obj, (np.ndarray, np.generic)):
            return self.ndarray(obj, where, keys)
        if t in (list, tuple, dict, OrderedDict):
            if len(keys) >= MAX_DEPTH:
                raise _refuse_save(where[:200] + "...", f"containers nested more than "
                                   f"{MAX_DEPTH} deep", "flatten the structure")
            if id(obj) in self.active:
                raise _refuse_save(where, f"the {t.__name__} contains itself",
                                   "break the cycle first")
            self.active.add(id(obj))
            try:
                if t is list:
                    return [self.encode(v, f"{where}[{i}]", keys + [str(i)])
                            for i, v in enumerate(obj)]
                if t is tuple:
                    return {"$": "tuple", "items": [self.encode(v, f"{where}[{i}]", keys + [str(i)])
                                                    for i, v in enumerate(obj)]}
                items = []
                for k, v in obj.items():
                    items.append([self.key(k, where), self.encode(v, f"{where}[{k!r}]",
                                                                  keys + [str(k)])])
                return {"$": "dict", "items": items, "ordered": t is OrderedDict}
            finally:
                self.active.discard(id(obj))
        if isinstance(obj, (list, tuple, dict)):
            base = next(b for b in (list, tuple, dict) if isinstance(obj, b))
            raise _refuse_save(where, f"a {t.__module__}.{t.__qualname__} (a {base.__name__} "
                                      f"subclass)", f"convert it with {base.__name__}(...) first")
        if isinstance(obj, (int, float, str)):
            base = next(b for b in (int, float, str) if isinstance(obj, b))
            raise _refuse_save(where, f"a {t.__module__}.{t.__qualname__} (a {base.__name__} "
                                      f"subclass)", f"convert it with {base.__name__}(...) first")
        fix = "save its state instead (for example obj.state_dict()) or convert it to one of these"
        if isinstance(obj, complex):
            fix = "store the real and imaginary parts as floats"
        raise _refuse_save(where, f"a {t.__module__}.{t.__qualname__} object", fix)

    def key(self, k, where):
        t = type(k)
        if k is None or t in (bool, int, str):
            return k
        if t is float:
            return self.encode(k, where, [])
        if t is tuple:
            return {"$": "tuple", "items": [self.key(v, where) for v in k]}
        raise _refuse_save(f"{where} key {k!r}"[:200], f"a dict key of type "
                           f"{t.__module__}.{t.__qualname__}",
                           "use str, int, float, bool, None or tuples of them as keys")

    def group(self, key, flat, keys, full, shape):
        g = self.groups.get(key)
        if g is None:
            g = self.groups[key] = _Group(flat, keys, full, shape)
        g.users += 1
        return g

    def tensor(self, t, where, keys):
        seen = self.tensors.get(id(t))
        if seen is not None:
            return seen[0]
        dtype = t._data.dtype
        if _NAME_OF.get(dtype) not in _TENSOR_DTYPES:   # pragma: no cover (oar's dtypes)
            raise _refuse_save(where, f"a tensor of dtype {dtype}", "cast it first")
        laid = storage_array(t)
        if laid is None:    # Note [Storage layout in checkpoints]: its own contiguous storage
            flat = np.ascontiguousarray(t._data).reshape(-1)
            offset, shape = 0, tuple(t._data.shape)
            strides = _c_strides(shape)
            key = ("copy", id(t))
        else:
            flat, offset, shape, strides = laid
            key = id(t._storage)
        full = offset == 0 and t._data.size == flat.size and t._data.flags.c_contiguous
        g = self.group(key, flat, keys, full, shape)
        from ..nn.layers import Parameter
        door = "torch" if self.torch_cls is not None and isinstance(t, self.torch_cls) \
            else "paddle"
        ref = {"$": "tensor", "id": len(self.tensors), "entry": None, "offset": int(offset),
               "shape": [int(n) for n in shape], "strides": [int(s) for s in strides],
               "dtype": _NAME_OF[dtype], "class": "parameter" if isinstance(t, Parameter)
               else "tensor", "door": door, "stop_gradient": not t.requires_grad}
        name = t.__dict__.get("name")
        if isinstance(name, str) and name:
            ref["name"] = name
        g.refs.append(ref)
        self.tensors[id(t)] = (ref, t)
        return ref

    def ndarray(self, a, where, keys):
        scalar = isinstance(a, np.generic)
        a = np.asarray(a)
        native = a.dtype.newbyteorder("=") if a.dtype.byteorder in "<>" else a.dtype
        if native not in _ST_OF:
            raise _refuse_save(where, f"a NumPy array of dtype {a.dtype}",
                               "cast it to a bool, integer or float16/32/64 dtype first")
        flat = np.ascontiguousarray(a, dtype=native).reshape(-1)
        g = self.group(("ndarray", len(self.groups)), flat, keys, True, tuple(a.shape))
        ref = {"$": "ndarray", "entry": None, "shape": [int(n) for n in a.shape],
               "dtype": _NAME_OF[native], "scalar": scalar}
        g.refs.append(ref)
        return ref


def _c_strides(shape):
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(st))


def plan(obj):
    """Check `obj` and lay out the file that saves it (Note [oar checkpoint format]); raises
    CheckpointError naming the key path of anything unsavable. Touches no file."""
    enc = _Encoder()
    try:
        tree = enc.encode(obj, "obj", [])
    except RecursionError:
        raise CheckpointError("oar.save: the object is nested too deeply to save") from None
    groups = list(enc.groups.values())
    used = set()
    for g in groups:     # named entries first, then the flat ones around them
        if g.users == 1 and g.full:
            base = ".".join(g.path) or "tensor"
            name, k = base, 0
            while name in used or name == "__metadata__" or name.startswith("__storage__."):
                k += 1
                name = f"{base}~{k}"
            g.name = name
            used.add(name)
    k = 0
    for g in groups:
        if g.name is None:
            while f"__storage__.{k}" in used:
                k += 1
            g.name = f"__storage__.{k}"
            used.add(g.name)
            g.shape = (g.flat.size,)
        for ref in g.refs:
            ref["entry"] = g.name
    groups.sort(key=lambda g: -g.flat.itemsize)      # stable: first-seen order per item size
    try:
        text = json.dumps({"version": VERSION, "object": tree}, separators=(",", ":"),
                          allow_nan=False)
    except RecursionError:
        raise CheckpointError("oar.save: the object is nested too deeply to save") from None
    header = {"__metadata__": {"oar": text}}
    arrays, pos = [], 0
    for g in groups:
        flat = g.flat
        if flat.dtype.byteorder == ">" or (flat.dtype.byteorder == "=" and sys.byteorder == "big"):
            flat = flat.astype(flat.dtype.newbyteorder("<"))      # pragma: no cover
        header[g.name] = {"dtype": _ST_OF[g.flat.dtype], "shape": [int(n) for n in g.shape],
                          "data_offsets": [pos, pos + flat.nbytes]}
        pos += flat.nbytes
        arrays.append(flat)
    text = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("ascii")
    text += b" " * (-len(text) % 8)
    if len(text) > MAX_HEADER:
        raise CheckpointError(f"oar.save: the checkpoint header would be {len(text)} bytes, more "
                              f"than the format's limit of {MAX_HEADER}: save fewer, larger "
                              f"tensors or split the object over several files")
    return Plan(struct.pack("<Q", len(text)) + text, arrays)


def _write_all(f, data):
    mv = memoryview(data)
    while len(mv):
        n = f.write(mv)
        if n is None or n >= len(mv):
            return
        mv = mv[n:]


def write(p, f):
    """Write a Plan to the binary file object f (streaming: one entry at a time, no copy of the
    whole file in memory)."""
    _write_all(f, p.header)
    for a in p.arrays:
        mv = memoryview(a.view(np.uint8)) if a.size else memoryview(b"")
        for i in range(0, len(mv), _CHUNK):
            _write_all(f, mv[i:i + _CHUNK])


# ================================================================================== loading
_EXPECTED = ("expected an oar checkpoint (the safetensors layout: an 8-byte header length, a "
             "JSON header, then the data), a PyTorch zip checkpoint (.pt/.pth) or a "
             "Paddle/pickle checkpoint (.pdparams/.pdopt)")


class _Bad(Exception):
    """A reason the file is not a valid oar checkpoint (turned into one error by read())."""


def _strict_pairs(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise _Bad(f"the JSON repeats the key {k!r}")
        d[k] = v
    return d


def _bad_constant(c):
    raise _Bad(f"the JSON holds {c}, which is not JSON")


def _json(text, what):
    try:
        return json.loads(text, object_pairs_hook=_strict_pairs, parse_constant=_bad_constant)
    except RecursionError:
        raise _Bad(f"the {what} is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise _Bad(f"the {what} is not valid JSON ({e})") from None


def _int(v, what, lo=0):
    if type(v) is not int or v < lo:
        raise _Bad(f"{what} must be an int >= {lo}, got {v!r}"[:200])
    return v


def _ints(v, what, lo=0):
    if type(v) is not list:
        raise _Bad(f"{what} must be a list of ints, got {v!r}"[:200])
    return tuple(_int(n, what, lo) for n in v)


def plausible(head, size):
    """Whether a file of `size` bytes starting with `head` (its first 9 bytes) looks like a
    safetensors file: a header length that fits in the file, then "{"."""
    if len(head) < 9:
        return False
    n = struct.unpack("<Q", head[:8])[0]
    return n <= MAX_HEADER and 8 + n <= size and head[8:9] == b"{"


def _header(f, size):
    """The validated header: (metadata dict, {name: (dtype, shape, begin, end)} in header
    order, data start)."""
    if size < 8:
        raise _Bad(f"it has {size} bytes, fewer than the 8-byte header length", True)
    n = struct.unpack("<Q", _read_exact(f, 8))[0]
    if n > MAX_HEADER or n + 8 > size:
        raise _Bad(f"its first 8 bytes give a header length of {n}, but the file has "
                   f"{size} bytes", True)
    raw = _read_exact(f, n)
    if not raw.startswith(b"{"):
        raise _Bad("the header is not a JSON object", True)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Bad("the header is not UTF-8", True) from None
    head = _json(text, "header")
    if type(head) is not dict:
        raise _Bad("the header is not a JSON object")
    meta = head.pop("__metadata__", {})
    if type(meta) is not dict or any(type(v) is not str for v in meta.values()):
        raise _Bad("__metadata__ must map str to str")
    entries = {}
    for name, e in head.items():
        if type(e) is not dict or set(e) != {"dtype", "shape", "data_offsets"}:
            raise _Bad(f"entry {name!r} must have exactly dtype, shape and data_offsets, got "
                       f"{e!r}"[:200])
        dt = e["dtype"]
        if type(dt) is not str or dt not in _ST:
            raise _Bad(f"entry {name!r} has dtype {dt!r}, which oar cannot load (known: "
                       f"{', '.join(_ST)})"[:300])
        shape = _ints(e["shape"], f"entry {name!r} shape")
        offs = _ints(e["data_offsets"], f"entry {name!r} data_offsets")
        if len(offs) != 2 or offs[0] > offs[1]:
            raise _Bad(f"entry {name!r} has data_offsets {list(offs)}, not [begin, end]")
        nbytes = math.prod(shape) * _ST[dt].itemsize
        if offs[1] - offs[0] != nbytes:
            raise _Bad(f"entry {name!r} ({dt}, shape {list(shape)}) needs {nbytes} bytes but "
                       f"its data_offsets {list(offs)} span {offs[1] - offs[0]}")
        entries[name] = (_ST[dt], shape, offs[0], offs[1])
    data = size - 8 - n
    pos = 0
    for name, (_, _, b, e) in sorted(entries.items(), key=lambda kv: (kv[1][2], kv[1][3])):
        if b != pos:
            raise _Bad(f"entry {name!r} starts at data byte {b}, expected {pos} (entries must "
                       f"tile the data section without gaps or overlaps)")
        pos = e
    if pos > data:
        raise _Bad(f"the header describes {pos} bytes of data but the file has {data} after "
                   f"the header (truncated)")
    if pos < data:
        raise _Bad(f"the file has {data - pos} bytes after the last entry's data")
    return meta, entries, 8 + n


class _Ref:
    """A checked tensor / array reference of the object tree, built once the data is read."""
    __slots__ = ("kind", "d")

    def __init__(self, kind, d):
        self.kind = kind
        self.d = d


_TENSOR_KEYS = {"$", "id", "entry", "offset", "shape", "strides", "dtype", "class", "door",
                "stop_gradient"}


def _check_window(e, offset, shape, strides, where):
    numel = math.prod(e[1])
    if 0 in shape:
        return
    lo = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    hi = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    if lo < 0 or hi >= numel:
        raise _Bad(f"{where}: the window offset {offset}, shape {list(shape)}, strides "
                   f"{list(strides)} reaches outside its entry of {numel} elements")


def _decode(v, entries, where, depth=0):
    """The object tree with tensors / arrays as checked _Refs (no data read yet)."""
    if depth > MAX_DEPTH:
        raise _Bad(f"{where[:100]}...: the object tree is nested too deeply")
    t = type(v)
    if v is None or t in (bool, int, str, float):
        return v
    if t is list:
        return [_decode(x, entries, f"{where}[{i}]", depth + 1) for i, x in enumerate(v)]
    if t is not dict or type(v.get("$")) is not str:
        raise _Bad(f"{where}: unexpected JSON value {v!r}"[:200])
    tag = v["$"]

    def need(keys):
        if set(v) != set(keys):
            raise _Bad(f"{where}: a {tag!r} node must have the keys {sorted(keys)}, got "
                       f"{sorted(v)}"[:300])
    if tag == "float":
        need({"$", "value"})
        if v["value"] not in ("nan", "inf", "-inf"):
            raise _Bad(f"{where}: bad float value {v['value']!r}"[:200])
        return float(v["value"])
    if tag == "tuple":
        need({"$", "items"})
        if type(v["items"]) is not list:
            raise _Bad(f"{where}: tuple items must be a list")
        return tuple(_decode(x, entries, f"{where}[{i}]", depth + 1)
                     for i, x in enumerate(v["items"]))
    if tag == "dict":
        need({"$", "items", "ordered"})
        if type(v["items"]) is not list or type(v["ordered"]) is not bool:
            raise _Bad(f"{where}: dict items must be a list and ordered a bool")
        out = OrderedDict() if v["ordered"] else {}
        for item in v["items"]:
            if type(item) is not list or len(item) != 2:
                raise _Bad(f"{where}: a dict item must be [key, value], got {item!r}"[:200])
            k = _key(item[0], where, depth + 1)
            out[k] = _decode(item[1], entries, f"{where}[{k!r}]", depth + 1)
        return out
    if tag in ("tensor", "ndarray"):
        ent = v.get("entry")
        if type(ent) is not str or ent not in entries:
            raise _Bad(f"{where}: refers to entry {ent!r}, which the header does not have"[:200])
        e = entries[ent]
        if v.get("dtype") != _NAME_OF[e[0]]:
            raise _Bad(f"{where}: dtype {v.get('dtype')!r} differs from its entry's "
                       f"{_ST_OF[e[0]]}"[:200])
        shape = _ints(v.get("shape"), f"{where} shape")
        if tag == "ndarray":
            need({"$", "entry", "shape", "dtype", "scalar"})
            if type(v["scalar"]) is not bool or math.prod(shape) != math.prod(e[1]) \
                    or (v["scalar"] and shape):
                raise _Bad(f"{where}: array shape {list(shape)} (scalar {v['scalar']!r}) does "
                           f"not match its entry's shape {list(e[1])}"[:200])
            return _Ref("ndarray", v)
        if not _TENSOR_KEYS <= set(v) <= _TENSOR_KEYS | {"name"}:
            need(_TENSOR_KEYS)
        if v["dtype"] not in _TENSOR_DTYPES:
            raise _Bad(f"{where}: a tensor cannot have dtype {v['dtype']!r}")
        _int(v["id"], f"{where} id")
        offset = _int(v["offset"], f"{where} offset")
        strides = _ints(v["strides"], f"{where} strides", lo=-(1 << 62))
        if len(strides) != len(shape):
            raise _Bad(f"{where}: shape {list(shape)} and strides {list(strides)} differ in "
                       f"length")
        _check_window(e, offset, shape, strides, where)
        if v["class"] not in ("tensor", "parameter") or v["door"] not in ("paddle", "torch") \
                or type(v["stop_gradient"]) is not bool \
                or type(v.get("name", "")) is not str:
            raise _Bad(f"{where}: bad tensor class {v['class']!r}, door {v['door']!r}, "
                       f"stop_gradient {v['stop_gradient']!r} or name"[:200])
        if not v["stop_gradient"] and v["dtype"] in ("bool", "uint8", "int8", "int16",
                                                     "int32", "int64"):
            raise _Bad(f"{where}: an integer tensor cannot require grad")
        return _Ref("tensor", v)
    raise _Bad(f"{where}: unknown node tag {tag!r}"[:200])


def _key(k, where, depth):
    if k is None or type(k) in (bool, int, str):
        return k
    if type(k) is dict and k.get("$") in ("float", "tuple"):
        if k["$"] == "tuple":
            if set(k) != {"$", "items"} or type(k["items"]) is not list or depth > MAX_DEPTH:
                raise _Bad(f"{where}: bad tuple key {k!r}"[:200])
            return tuple(_key(x, where, depth + 1) for x in k["items"])
        return _decode(k, {}, where)
    if type(k) is float:
        return k
    raise _Bad(f"{where}: bad dict key {k!r}"[:200])


def _read_exact(f, n):
    data = f.read(n)
    if type(data) is not bytes or len(data) != n:
        raise _Bad(f"it ended {n - len(data or b'')} bytes early (truncated)")
    return data


def _read_entry(f, dtype, nbytes, name):
    buf = np.empty(nbytes, np.uint8)
    mv = memoryview(buf)
    got = 0
    reader = getattr(f, "readinto", None)
    while got < nbytes:
        if reader is not None:
            n = reader(mv[got:])
        else:
            chunk = f.read(nbytes - got)
            n = len(chunk)
            mv[got:got + n] = chunk
        if not n:
            raise _Bad(f"entry {name!r} ended {nbytes - got} bytes early (the file shrank "
                       f"while being read)")
        got += n
    if dtype.kind == "b" and nbytes and buf.max() > 1:
        raise _Bad(f"bool entry {name!r} holds bytes other than 0 and 1")
    return buf.view(dtype)


def _classes(door):
    if door == "torch":
        from ..torch._tensor import Parameter, Tensor
    else:
        from ..nn.layers import Parameter
        from ..tensor import Tensor
    return Tensor, Parameter


def read(f, name, door="paddle"):
    """Load an oar checkpoint (or any safetensors file) from the seekable binary file f at
    position 0; `name` is used in error messages; `door` ("paddle" / "torch") is the tensor
    class of a plain safetensors file's entries (an oar file records each tensor's door)."""
    try:
        f.seek(0, 2)
        size = f.tell()
        f.seek(0)
        meta, entries, start = _header(f, size)
        tree = None
        if "oar" in meta:
            root = _json(meta["oar"], "object tree")
            if type(root) is not dict or set(root) != {"version", "object"}:
                raise _Bad("the object tree must be {\"version\": ..., \"object\": ...}")
            if root["version"] != VERSION:
                raise _Bad(f"it was written in oar checkpoint version {root['version']!r}; this "
                           f"oar reads version {VERSION}: upgrade oar"[:200])
            tree = _decode(root["object"], entries, "obj")
        f.seek(start)
        flats = {}
        for ename, (dt, shape, b, e) in sorted(entries.items(), key=lambda kv: kv[1][2]):
            flats[ename] = _read_entry(f, dt, e - b, ename)
        if tree is None:
            cls = _classes(door)[0]
            storage_of = {}
            return {ename: tensor_on(flats[ename], storage_of, 0, entries[ename][1],
                                     _c_strides(entries[ename][1]), cls)
                    for ename in entries}
        return _Builder(flats).build(tree)
    except RecursionError:
        raise UnreadableCheckpointError(f"{name} is not a checkpoint oar can read: its object "
                                        f"tree is nested too deeply") from None
    except _Bad as e:
        foreign = len(e.args) > 1
        raise UnreadableCheckpointError(
            f"{name} is not a checkpoint oar can read: {e.args[0]}; "
            + (_EXPECTED if foreign else "expected a valid oar checkpoint (safetensors "
               "layout): the file is corrupt or truncated")) from None


class _Builder:
    def __init__(self, flats):
        self.flats = flats
        self.storage_of = {}
        self.tensors = {}
        self.taken = set()

    def build(self, v):
        t = type(v)
        if t is list:
            return [self.build(x) for x in v]
        if t is tuple:
            return tuple(self.build(x) for x in v)
        if t is dict or t is OrderedDict:
            return t((k, self.build(x)) for k, x in v.items())
        if t is not _Ref:
            return v
        d = v.d
        flat = self.flats[d["entry"]]
        if v.kind == "ndarray":
            if d["entry"] in self.taken:
                flat = flat.copy()      # never alias another object's memory
            self.taken.add(d["entry"])
            a = flat.reshape(d["shape"])
            return a[()] if d["scalar"] else a
        got = self.tensors.get(d["id"])
        if got is not None:
            return got
        if d["entry"] in self.taken and id(flat) not in self.storage_of:
            flat = self.flats[d["entry"]] = flat.copy()   # an array took it: no aliasing
        self.taken.add(d["entry"])
        tensor, param = _classes(d["door"])
        tt = tensor_on(flat, self.storage_of, d["offset"], d["shape"], d["strides"],
                       param if d["class"] == "parameter" else tensor,
                       requires_grad=not d["stop_gradient"])
        if d.get("name"):
            tt.name = d["name"]
        self.tensors[d["id"]] = tt
        return tt
