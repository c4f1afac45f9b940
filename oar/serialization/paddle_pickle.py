"""Paddle's checkpoint format (what paddle.save writes to .pdparams / .pdopt), read and written
without paddle.

A pickle (protocol 4 by default) of plain containers, numbers, strings and NumPy arrays:
* a state dict (a dict whose values are tensors, or dicts holding no tensor, as paddle 3.3.1's
  `_is_state_dict` decides) is written as a plain dict with every tensor as an ndarray, plus
  the key "StructuredToParameterName@@": {structured key: tensor name}; paddle.load turns
  the arrays named there into Tensors and drops that key (keep_name_table=True keeps it);
* any other object is pickled as is, every tensor as the tuple (name, ndarray) (pickled as
  `builtins.tuple((name, array))`); paddle.load turns such tuples into Tensors, or, when the
  file has none, every ndarray.
* protocol 2/3 cannot hold arrays over 1 GiB: they are split into "<key>@@.<i>" slices and
  described under "UnpackBigParamInfor@@", joined again on load.
Reading goes through the restricted unpickler (Note [Loading never runs code]).
"""
from __future__ import annotations

import math
import pickle
from collections import OrderedDict

import numpy as np

from .. import dtypes as _dt
from ._errors import CheckpointError
from . import unpickle as _up

NAME_TABLE = "StructuredToParameterName@@"
UNPACK_INFO = "UnpackBigParamInfor@@"  # sic: Paddle's spelling

_TORCH_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c   # the first pickle of torch's legacy format
_ALLOWED = dict(_up.BASIC_GLOBALS)
_ALLOWED.update(_up.NUMPY_GLOBALS)
_ALLOWED["builtins.tuple"] = _up.Allowed(_up._safe_tuple, call=True)   # (name, array) tensors


def _tensor_class(door):
    if door == "torch":
        from ..torch._tensor import Tensor
    elif door == "paddle":
        from ..tensor import Tensor
    else:
        raise ValueError(f"door must be 'paddle' or 'torch', got {door!r}")
    return Tensor


# ---------------------------------------------------------------------- reading
class _Convert:
    def __init__(self, name, door, return_numpy):
        self.name = name
        self.cls = _tensor_class(door)
        self.door = door
        self.return_numpy = return_numpy

    def tensor(self, arr, path, tname=None):
        if self.return_numpy:
            return arr
        if arr.dtype.newbyteorder("=") == np.uint16:   # Paddle's bfloat16: its bits
            arr = arr.astype(np.dtype(np.uint16).newbyteorder("=")).view(_dt.BFLOAT16_NP)
        if np.dtype(arr.dtype.newbyteorder("=")) not in _dt._BY_NP:
            why = "; fix: cast it in Paddle to float32/float64/int64 before paddle.save"
            raise CheckpointError(f"{self.name}: tensor {path} (shape {list(arr.shape)}) has "
                                  f"dtype {arr.dtype}, which oar does not have (oar's dtypes: "
                                  f"float16/32/64, int8/16/32/64, uint8, bool){why}")
        if arr.dtype.byteorder == ">" or not arr.flags.writeable:
            arr = arr.astype(arr.dtype.newbyteorder("="))
        from ..tensor import wrap_as
        t = wrap_as(self.cls, arr)
        if isinstance(tname, str) and tname and self.door == "paddle":
            t.name = tname
        return t


def _is_varbase(obj):
    return type(obj) is tuple and len(obj) == 2 and isinstance(obj[0], str) \
        and isinstance(obj[1], np.ndarray)


def _contains(obj, pred, seen=None):
    if pred(obj):
        return True
    seen = set() if seen is None else seen
    if type(obj) in (dict, OrderedDict, list, tuple) and id(obj) not in seen:
        seen.add(id(obj))
        vals = obj.values() if isinstance(obj, dict) else obj
        return any(_contains(v, pred, seen) for v in vals)
    return False


def _convert(obj, pred, fn, path, memo):
    """paddle's _parse_every_object: obj with every x for which pred(x) replaced by
    fn(x, path); dicts and lists in place, tuples and sets rebuilt."""
    if pred(obj):
        return fn(obj, path)
    t = type(obj)
    if t in (dict, OrderedDict, list):
        if id(obj) in memo:
            return obj
        memo.add(id(obj))
        keys = list(obj.keys()) if t is not list else range(len(obj))
        for k in keys:
            obj[k] = _convert(obj[k], pred, fn, f"{path}[{k!r}]", memo)
        return obj
    if t in (tuple, set, frozenset):
        return t(_convert(v, pred, fn, f"{path}[{i}]", memo) for i, v in enumerate(obj))
    return obj


def _pack(obj, name):
    info = obj.get(UNPACK_INFO)
    if info is None:
        return obj
    if type(info) is not dict:
        raise CheckpointError(f"{name}: {UNPACK_INFO} is not a dict (corrupt file)")
    removes = []
    for key, value in info.items():
        try:
            slices = [obj[part] for part in value["slices"]]
            if not all(isinstance(s, np.ndarray) for s in slices):
                raise TypeError("a slice is not an array")
            obj[key] = np.concatenate(slices).reshape(value["OriginShape"])
        except (KeyError, TypeError, ValueError) as e:
            raise CheckpointError(f"{name}: the big array {key!r} cannot be joined from its "
                                  f"slices ({e}; corrupt file)") from None
        removes += value["slices"]
    for key in removes:
        obj.pop(key, None)
    obj.pop(UNPACK_INFO)
    return obj


def read(fileobj, name, door, *, return_numpy=False, keep_name_table=False):
    """What paddle.load returns for a file paddle.save wrote (.pdparams, .pdopt, ...), with
    tensors of `door` ("paddle": oar.Tensor, "torch": oar.torch.Tensor; stop_gradient=True,
    as Paddle) or, with return_numpy, NumPy arrays. The "StructuredToParameterName@@" key of
    a state dict is dropped unless keep_name_table. Raises CheckpointError naming `name`."""
    obj = _up.load(fileobj, name, _ALLOWED, what="Paddle checkpoint (a pickle, as paddle.save "
                   "writes)", encoding="latin1")
    if type(obj) is int and obj == _TORCH_LEGACY_MAGIC and fileobj.read(1):
        raise CheckpointError(f"{name}: a checkpoint in PyTorch's legacy format (torch.save "
                              "before 1.6, or _use_new_zipfile_serialization=False) is not "
                              "supported; fix: load it in PyTorch and torch.save it again")
    conv = _Convert(name, door, return_numpy)
    if isinstance(obj, dict):
        obj = _pack(obj, name)
        table = obj.get(NAME_TABLE)
        if table is not None:
            if not isinstance(table, dict):
                raise CheckpointError(f"{name}: {NAME_TABLE} is not a dict (corrupt file)")
            for key, pname in table.items():
                if isinstance(obj.get(key), np.ndarray):
                    obj[key] = conv.tensor(obj[key], f"{key!r}", pname)
            if not keep_name_table:
                del obj[NAME_TABLE]
            return obj
    if _contains(obj, _is_varbase):
        return _convert(obj, _is_varbase, lambda v, p: conv.tensor(v[1], p, v[0]),
                        "checkpoint", set())
    return _convert(obj, lambda v: isinstance(v, np.ndarray), conv.tensor, "checkpoint",
                    set())


# ---------------------------------------------------------------------- writing
class _Varbase:
    """A tensor outside a state dict: pickled as Paddle does, tuple((name, array))."""
    __slots__ = ("name", "array")

    def __init__(self, name, array):
        self.name = name
        self.array = array

    def __reduce__(self):
        return (tuple, ((self.name, self.array),))


def _array(t):
    a = np.ascontiguousarray(t._data)
    # Paddle pickles a bfloat16 tensor as its bits, a uint16 array (Note [bfloat16])
    return a.view(np.uint16) if a.dtype == _dt.BFLOAT16_NP else a


def _is_state_dict(obj):
    from ..tensor import Tensor
    if not isinstance(obj, dict):
        return False
    for value in obj.values():
        if isinstance(value, dict):
            if any(_contains(v, lambda x: isinstance(x, Tensor)) for v in value.values()):
                return False
        elif not isinstance(value, Tensor):
            return False
    return True


class _Plain:
    """Checks and converts an object into what paddle.save writes."""

    def __init__(self, varbase):
        self.varbase = varbase
        self.count = 0
        self.memo = {}

    def __call__(self, obj, path):
        from ..nn.layers import Layer
        from ..tensor import Tensor
        t = type(obj)
        if t in (str, int, float, bool, complex, type(None)):
            return obj
        if isinstance(obj, Tensor):
            name = obj.__dict__.get("name") or f"generated_tensor_{self.count}"
            self.count += 1
            return _Varbase(name, _array(obj)) if self.varbase else _array(obj)
        if isinstance(obj, np.ndarray) and obj.dtype.kind in "biufc" and not obj.dtype.hasobject:
            return obj
        if isinstance(obj, np.generic) and obj.dtype.kind in "biufc":
            return obj
        got = self.memo.get(id(obj))
        if got is not None:
            return got[0]
        if t in (dict, OrderedDict):
            out = t()
            self.memo[id(obj)] = (out, obj)
            for k, v in obj.items():
                out[self(k, f"{path} key {k!r}")] = self(v, f"{path}[{k!r}]")
            return out
        if t is list:
            out = []
            self.memo[id(obj)] = (out, obj)
            out.extend(self(v, f"{path}[{i}]") for i, v in enumerate(obj))
            return out
        if t in (tuple, set):
            out = t(self(v, f"{path}[{i}]") for i, v in enumerate(obj))
            self.memo[id(obj)] = (out, obj)
            return out
        what = "a Layer (save its state_dict())" if isinstance(obj, Layer) else \
            f"{t.__module__}.{t.__qualname__}"
        raise CheckpointError(
            f"cannot write {path} ({what}) in Paddle's format: paddle.save writes only "
            "tensors, NumPy arrays, numbers, strings and dict/list/tuple/set of them; fix: "
            "convert it (an object to a dict of its fields)")


def _unpack(saved, protocol):
    """paddle's _unpack_saved_dict: protocol 2/3 cannot pickle an object over 4 GiB, so
    arrays over 1 GiB are split into slices."""
    if protocol >= 4:
        return saved
    info = {}
    for key, value in list(saved.items()):
        if isinstance(value, np.ndarray):
            limit = int((2 ** 30 - 1) / value.dtype.itemsize)
            n = int(np.prod(value.shape))
            if n > limit:
                flat = value.reshape(-1)
                parts = []
                for i in range(int(math.ceil(n / limit))):
                    part = f"{key}@@.{i}"
                    parts.append(part)
                    saved[part] = flat[i * limit:(i + 1) * limit]
                info[key] = {"OriginShape": value.shape, "slices": parts}
                del saved[key]
    if info:
        saved[UNPACK_INFO] = info
    return saved


def write(obj, fileobj, protocol=4):
    """Write obj as paddle.save does (a pickle of plain arrays and containers that
    paddle.load reads, protocol 2-4): a state dict gets its "StructuredToParameterName@@"
    table. Raises CheckpointError for values paddle.save refuses, before writing."""
    if isinstance(protocol, bool) or not isinstance(protocol, int) or not 1 < protocol < 5:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol!r}")
    from ..tensor import Tensor
    if _is_state_dict(obj):
        plain = _Plain(varbase=False)
        saved, table = {}, {}
        for key, value in obj.items():
            if isinstance(value, Tensor):
                saved[key] = _array(value)
                table[key] = value.__dict__.get("name") or str(key)
            else:
                saved[key] = plain(value, f"checkpoint[{key!r}]")
        saved[NAME_TABLE] = table
        saved = _unpack(saved, protocol)
    else:
        saved = _Plain(varbase=True)(obj, "checkpoint")
    pickle.Pickler(fileobj, protocol).dump(saved)
