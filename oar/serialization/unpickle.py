"""The restricted unpickler every pickled checkpoint format goes through (PyTorch's zip,
Paddle's .pdparams/.pdopt).

See Note [Loading never runs code] below.
"""
from __future__ import annotations

import _compat_pickle
import io
import os
import pickle
import pickletools
import struct
import sys
from collections import Counter, OrderedDict

import numpy as np

from ._errors import CheckpointError, ForbiddenGlobalError

# Note [Loading never runs code]
# A pickle is a program: GLOBAL/STACK_GLOBAL name any importable object, REDUCE/NEWOBJ call it,
# BUILD calls its __setstate__, APPEND/SETITEM/ADDITEMS call methods of whatever is on the
# stack, and EXT1/2/4 fetch globals through copyreg's extension registry. Loading a checkpoint
# must never run code named by the file, so oar interprets pickles with its own opcode table
# (the approach of torch 2.13's `weights_only` unpickler, torch/_weights_only_unpickler.py):
#
# * Every global is looked up in the format's allowlist, a dict "module.name" -> oar's own safe
#   stand-in (tensor rebuilders written here, never torch's or paddle's; numpy's array and dtype
#   reconstruction through validating wrappers; OrderedDict, set, complex, ...). Nothing is
#   imported: a name outside the allowlist raises ForbiddenGlobalError naming the file and the
#   "module.name" before anything is called.
# * REDUCE calls only allowlisted callables; NEWOBJ only allowlisted classes; BUILD only
#   objects a stand-in made for it (a numpy array or dtype under construction) or an
#   OrderedDict (its attribute dict, as torch's state_dict `_metadata`).
# * APPEND(S) only on lists, SETITEM(S) only on dicts, ADDITEMS only on sets: a pickle cannot
#   call a method of an arbitrary stack object.
# * Opcodes outside the table (INST, OBJ: protocol-0 instance creation; EXT1/2/4: copyreg
#   extensions; NEWOBJ_EX; out-of-band buffers) are refused with the opcode's name.
# * Reads are bounded by the file's size, so a truncated file or a forged length fails with a
#   CheckpointError naming the file instead of allocating memory the file does not have.
# The formats that use it: torch_zip.py and paddle_pickle.py. Writing is the other half: oar
# writes only what these allowlists (and torch.load(weights_only=True) / paddle.load) read.


class Allowed:
    """An allowlist entry: `obj` is what the global becomes on the stack; `call` says REDUCE
    may call it, `new` that NEWOBJ may construct it (`obj` is then a real class)."""
    __slots__ = ("obj", "call", "new")

    def __init__(self, obj, call=False, new=False):
        self.obj = obj
        self.call = call
        self.new = new


# ---------------------------------------------------------------------- safe stand-ins
def _safe_set(items=()):
    return set(_plain_iterable(items, "set"))


def _safe_frozenset(items=()):
    return frozenset(_plain_iterable(items, "frozenset"))


def _safe_tuple(items=()):
    return tuple(_plain_iterable(items, "tuple"))


def _safe_bytearray(data=b""):
    if type(data) not in (bytes, bytearray, list):
        raise CheckpointError(f"bytearray() of {type(data).__name__} refused")
    if type(data) is list and not all(type(b) is int for b in data):
        raise CheckpointError("bytearray() of a list of non-ints refused")
    return bytearray(data)


def _safe_bytes(data=b""):
    # protocol 2 pickles b"" as bytes()
    if type(data) is not bytes:
        raise CheckpointError(f"bytes() of {type(data).__name__} refused")
    return data


def _safe_complex(real=0.0, imag=0.0):
    if type(real) not in (int, float) or type(imag) not in (int, float):
        raise CheckpointError("complex() of non-numbers refused")
    return complex(real, imag)


def _safe_encode(text, encoding="utf-8"):
    # protocol 2 pickles bytes as _codecs.encode(str, 'latin1'); no other codec is looked up
    if type(text) is not str or encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise CheckpointError(f"_codecs.encode({type(text).__name__}, {encoding!r}) refused")
    return text.encode(encoding)


def _safe_ordered_dict(items=()):
    return OrderedDict(_pairs(items, "OrderedDict"))


def _safe_counter(items=()):
    if type(items) in (dict, OrderedDict):
        items = list(items.items())
    return Counter(dict(_pairs(items, "Counter")))


def _plain_iterable(items, what):
    if type(items) not in (list, tuple, set, frozenset):
        raise CheckpointError(f"{what}() of {type(items).__name__} refused")
    return items


def _pairs(items, what):
    if type(items) in (dict, OrderedDict):
        return list(items.items())
    items = _plain_iterable(items, what)
    if not all(type(p) in (tuple, list) and len(p) == 2 for p in items):
        raise CheckpointError(f"{what}() of items that are not (key, value) pairs refused")
    return list(items)


_NP_KINDS = "biufc"   # bool, ints, floats, complex: never object, void (records) or datetime


def np_dtype(obj, align=False, copy=False):
    """numpy.dtype(code, align, copy) as numpy's pickles call it, for plain numeric codes only
    ('f4', 'i8', 'b1', 'u2', 'c8', ...); always a fresh copy, so BUILD (which sets the byte
    order) never changes NumPy's shared dtype singletons."""
    if type(obj) is not str or len(obj) > 8 or not obj[:1] or obj[0] not in _NP_KINDS \
            or not obj[1:].isdigit():
        raise CheckpointError(f"numpy.dtype({obj!r}) refused: only bool, integer, floating "
                              "and complex dtypes are allowed")
    dt = np.dtype(obj)
    return np.dtype(dt, bool(align) if type(align) is bool else False, True)


def np_reconstruct(subtype, shape, typecode):
    """numpy's ndarray reconstruction (numpy.core.multiarray._reconstruct): an empty plain
    ndarray that BUILD then fills; a subclass is refused."""
    if subtype is not np.ndarray:
        raise CheckpointError(f"numpy _reconstruct of {subtype!r} refused: only numpy.ndarray")
    return np.ndarray.__new__(np.ndarray, (0,), np.uint8)


def np_scalar(dtype, data=None):
    """numpy.core.multiarray.scalar(dtype, bytes): one number of a plain numeric dtype."""
    if not isinstance(dtype, np.dtype) or dtype.hasobject or dtype.kind not in _NP_KINDS \
            or type(data) is not bytes or len(data) != dtype.itemsize:
        raise CheckpointError("numpy scalar(...) refused: expected a numeric dtype and its "
                              "bytes")
    return np.frombuffer(data, dtype=dtype, count=1)[0]


def np_frombuffer(buf, dtype, shape, order):
    """numpy.core.numeric._frombuffer, what protocol-5 pickles of arrays call (in-band)."""
    if type(buf) not in (bytes, bytearray) or not isinstance(dtype, np.dtype) \
            or dtype.hasobject or dtype.kind not in _NP_KINDS or type(shape) is not tuple \
            or not all(type(n) is int and n >= 0 for n in shape) or order not in ("C", "F"):
        raise CheckpointError("numpy _frombuffer(...) refused: expected bytes, a numeric "
                              "dtype, a shape and an order")
    size = 1
    for n in shape:
        size *= n
    if size * dtype.itemsize != len(buf):
        raise CheckpointError(f"numpy array of shape {list(shape)} and dtype {dtype} needs "
                              f"{size * dtype.itemsize} bytes, the file holds {len(buf)}")
    arr = np.frombuffer(buf, dtype=dtype)
    if not arr.flags.writeable:
        arr = arr.copy()
    return arr.reshape(shape, order=order)


NUMPY_GLOBALS = {}
for _mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
    NUMPY_GLOBALS[_mod + "._reconstruct"] = Allowed(np_reconstruct, call=True)
    NUMPY_GLOBALS[_mod + ".scalar"] = Allowed(np_scalar, call=True)
for _mod in ("numpy.core.numeric", "numpy._core.numeric"):
    NUMPY_GLOBALS[_mod + "._frombuffer"] = Allowed(np_frombuffer, call=True)
NUMPY_GLOBALS["numpy.ndarray"] = Allowed(np.ndarray)          # an argument of _reconstruct
NUMPY_GLOBALS["numpy.dtype"] = Allowed(np_dtype, call=True)

BASIC_GLOBALS = {
    "collections.OrderedDict": Allowed(_safe_ordered_dict, call=True),
    "collections.Counter": Allowed(_safe_counter, call=True),
    "builtins.set": Allowed(_safe_set, call=True),
    "builtins.frozenset": Allowed(_safe_frozenset, call=True),
    "builtins.complex": Allowed(_safe_complex, call=True),
    "builtins.bytearray": Allowed(_safe_bytearray, call=True),
    "builtins.bytes": Allowed(_safe_bytes, call=True),
    "_codecs.encode": Allowed(_safe_encode, call=True),
}


# ---------------------------------------------------------------------- the unpickler
class _BoundedReader:
    """A file's read/readline that refuse to read past its end (a forged length fails here,
    before a buffer of that size is allocated)."""

    def __init__(self, f, name):
        self.f = f
        self.name = name
        try:
            here = f.tell()
            self.left = f.seek(0, os.SEEK_END) - here
            f.seek(here)
        except (OSError, AttributeError, ValueError, TypeError):
            self.left = None

    def read(self, n=-1):
        if n is not None and n >= 0 and self.left is not None and n > self.left:
            raise CheckpointError(f"{self.name}: the pickle is truncated (an item needs {n} "
                                  f"bytes, {self.left} are left in the file)")
        data = self.f.read(n)
        if self.left is not None:
            self.left -= len(data)
        return data

    def readinto(self, buf):
        n = self.f.readinto(buf)
        if self.left is not None and n:
            self.left -= n
        return n

    def readline(self):
        data = self.f.readline()
        if self.left is not None:
            self.left -= len(data)
        return data


def _refuse_opcode(code, why):
    err = ForbiddenGlobalError if code in _REFUSED else CheckpointError

    def load(self):
        raise err(f"{self.name}: the pickle uses opcode {code} ({why}), which oar refuses "
                  "(Note [Loading never runs code]); nothing from the file was run")
    return load


_OPNAMES = {op.code.encode("latin-1")[0]: op.name for op in pickletools.opcodes}
_REFUSED = {
    "INST": "protocol-0 instance creation", "OBJ": "protocol-1 instance creation",
    "EXT1": "a copyreg extension code", "EXT2": "a copyreg extension code",
    "EXT4": "a copyreg extension code", "NEWOBJ_EX": "object creation with keywords",
    "NEXT_BUFFER": "an out-of-band buffer", "READONLY_BUFFER": "an out-of-band buffer",
}
# opcodes whose pickle._Unpickler implementation only moves data (no call, no lookup)
_DATA_OPS = {
    "PROTO", "FRAME", "STOP", "MARK", "POP", "POP_MARK", "DUP", "NONE", "NEWFALSE", "NEWTRUE",
    "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT",
    "STRING", "BINSTRING", "SHORT_BINSTRING", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8",
    "BYTEARRAY8", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8",
    "TUPLE", "EMPTY_TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "EMPTY_LIST", "LIST",
    "EMPTY_DICT", "DICT", "EMPTY_SET", "FROZENSET", "GET", "BINGET", "LONG_BINGET",
    "PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE",
    # these call self.find_class / self.persistent_load, both overridden below
    "GLOBAL", "STACK_GLOBAL", "PERSID", "BINPERSID",
}


class SafeUnpickler(pickle._Unpickler):
    """pickle's Unpickler restricted to `allowed` (Note [Loading never runs code]).

    `name` is the file's name for error messages; `allowed` maps "module.name" to an Allowed
    entry; `persistent_load(pid)` resolves persistent ids (None: refused); `what` describes
    the format in messages; `hint` is appended to a ForbiddenGlobalError's message."""

    dispatch = {}
    for _code in range(256):
        dispatch[_code] = _refuse_opcode(f"0x{_code:02x}", "not a pickle opcode")
    for _code, _fn in pickle._Unpickler.dispatch.items():
        _op = _OPNAMES.get(_code, f"0x{_code:02x}")
        if _op in _DATA_OPS:
            dispatch[_code] = _fn
        else:
            dispatch[_code] = _refuse_opcode(_op, _REFUSED.get(_op, "not allowed"))
    del _code, _fn, _op

    def __init__(self, file, name, allowed, persistent_load=None, what="checkpoint",
                 hint="", encoding="ASCII"):
        self._reader = _BoundedReader(file, name)
        super().__init__(self._reader, fix_imports=True, encoding=encoding)
        self.name = name
        self.allowed = allowed
        self.what = what
        self.hint = hint
        self._persistent = persistent_load
        self._callable = {id(a.obj) for a in allowed.values() if a.call}
        self._newable = {id(a.obj) for a in allowed.values() if a.new}
        self._pending = {}   # id -> array/dtype made by a stand-in and not yet built

    # -- globals
    def find_class(self, module, name):
        """Look "module.name" up in the allowlist; never imports anything."""
        if self.proto < 3:
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        entry = self.allowed.get(full)
        if entry is None:
            raise ForbiddenGlobalError(
                f"{self.name}: refused to load this {self.what}: its pickle names the global "
                f"{full!r}, which is not one of the tensor-rebuilding functions, containers "
                "and numbers a checkpoint may hold (Note [Loading never runs code]); nothing "
                "from the file was run. Only load files you trust, and save checkpoints as "
                f"state dicts of tensors.{self.hint}")
        return entry.obj

    def persistent_load(self, pid):
        """Resolve a persistent id through the format's handler (refused when it has none)."""
        if self._persistent is None:
            raise CheckpointError(f"{self.name}: the pickle holds a persistent id, which this "
                                  f"{self.what} format does not use")
        return self._persistent(pid)

    # -- the opcodes that call or mutate, each restricted
    def load_reduce(self):
        stack = self.stack
        args = stack.pop()
        func = stack[-1]
        if id(func) not in self._callable:
            raise CheckpointError(f"{self.name}: the pickle calls {_describe(func)}, which is "
                                  "not an allowed function (Note [Loading never runs code]); "
                                  "nothing was called")
        if type(args) is not tuple:
            raise CheckpointError(f"{self.name}: REDUCE with arguments of type "
                                  f"{type(args).__name__}")
        try:
            result = func(*args)
        except CheckpointError as e:
            raise CheckpointError(f"{self.name}: {e}") from None
        except TypeError as e:   # wrong number of arguments
            raise CheckpointError(f"{self.name}: {_describe(func)} called with bad arguments "
                                  f"({e})") from None
        if func is np_reconstruct or func is np_dtype:
            self._pending[id(result)] = result
        stack[-1] = result
    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if id(cls) not in self._newable or type(args) is not tuple:
            raise CheckpointError(f"{self.name}: the pickle constructs {_describe(cls)}, which "
                                  "is not an allowed class (Note [Loading never runs code])")
        self.append(cls.__new__(cls, *args))
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_build(self):
        stack = self.stack
        state = stack.pop()
        inst = stack[-1]
        pending = self._pending.pop(id(inst), None)
        if pending is not None and pending is inst:
            if isinstance(inst, np.dtype):
                _build_dtype(inst, state, self.name)
            else:
                _build_array(inst, state, self.name)
            return
        if type(inst) in (OrderedDict, Counter):
            if type(state) is tuple and len(state) == 2 and state[1] is None:
                state = state[0]
            if state is None:
                return
            if type(state) is not dict or not all(type(k) is str for k in state):
                raise CheckpointError(f"{self.name}: BUILD of an OrderedDict with a state of "
                                      f"type {type(state).__name__} refused")
            inst.__dict__.update(state)
            return
        raise CheckpointError(f"{self.name}: the pickle sets the state of {_describe(inst)}, "
                              "which oar refuses (Note [Loading never runs code])")
    dispatch[pickle.BUILD[0]] = load_build

    def load_bytearray8(self):
        # pickle's version allocates the announced length before reading: read first
        n, = struct.unpack("<Q", self.read(8))
        if n > sys.maxsize:
            raise CheckpointError(f"{self.name}: BYTEARRAY8 longer than the address space")
        self.append(bytearray(self.read(n)))
    dispatch[pickle.BYTEARRAY8[0]] = load_bytearray8

    def load_append(self):
        value = self.stack.pop()
        self._target(list, "APPEND").append(value)
    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self):
        items = self.pop_mark()
        self._target(list, "APPENDS").extend(items)
    dispatch[pickle.APPENDS[0]] = load_appends

    def load_setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        self._target(dict, "SETITEM")[key] = value
    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self):
        items = self.pop_mark()
        d = self._target(dict, "SETITEMS")
        if len(items) % 2:
            raise CheckpointError(f"{self.name}: SETITEMS with an odd number of items")
        for i in range(0, len(items), 2):
            d[items[i]] = items[i + 1]
    dispatch[pickle.SETITEMS[0]] = load_setitems

    def load_additems(self):
        items = self.pop_mark()
        self._target(set, "ADDITEMS").update(items)
    dispatch[pickle.ADDITEMS[0]] = load_additems

    def _target(self, kind, op):
        if not self.stack:
            raise CheckpointError(f"{self.name}: {op} on an empty stack")
        obj = self.stack[-1]
        ok = (list,) if kind is list else (dict, OrderedDict, Counter) if kind is dict else (set,)
        if type(obj) not in ok:
            raise CheckpointError(f"{self.name}: {op} on {_describe(obj)} refused (only "
                                  f"{kind.__name__}s; Note [Loading never runs code])")
        return obj

    def load(self):
        """Unpickle, turning every failure that is not already a CheckpointError into one
        naming the file."""
        if self._reader.left == 0:
            raise CheckpointError(f"{self.name}: the file is empty (expected a {self.what})")
        try:
            obj = super().load()
        except CheckpointError:
            raise
        except RecursionError as e:
            raise CheckpointError(f"{self.name}: the {self.what} is nested too deeply") from e
        except MemoryError:
            raise
        except EOFError as e:
            raise CheckpointError(f"{self.name}: the {self.what} is truncated (the pickle ends "
                                  "before its STOP opcode)") from e
        except Exception as e:
            raise CheckpointError(f"{self.name}: not a valid {self.what}: the pickle is "
                                  f"corrupt ({type(e).__name__}: {e})"[:400]) from e
        if self._pending:
            raise CheckpointError(f"{self.name}: the pickle leaves a numpy array or dtype "
                                  "without its state (corrupt file)")
        return obj


def _describe(obj):
    if isinstance(obj, type):
        return f"class {obj.__module__}.{obj.__qualname__}"
    name = getattr(obj, "__qualname__", None)
    if callable(obj) and name:
        return f"{getattr(obj, '__module__', '?')}.{name}"
    return f"an object of type {type(obj).__name__}"


def _build_dtype(dt, state, name):
    # numpy dtype state: (version, byteorder, subarray, names, fields, elsize, alignment, flags)
    if type(state) is not tuple or len(state) not in (8, 9) or state[0] not in (3, 4) \
            or state[1] not in ("<", ">", "|", "=") or any(s is not None for s in state[2:5]):
        raise CheckpointError(f"{name}: numpy dtype state {state!r} refused: only plain "
                              "numeric dtypes"[:300])
    dt.__setstate__(state)
    if dt.hasobject or dt.kind not in _NP_KINDS or dt.fields is not None:
        raise CheckpointError(f"{name}: numpy dtype {dt} refused")


def _build_array(arr, state, name):
    # ndarray state: (version, shape, dtype, is_fortran, rawdata)
    if type(state) is not tuple or len(state) != 5:
        raise CheckpointError(f"{name}: numpy array state of type {type(state).__name__} "
                              "refused")
    version, shape, dtype, fortran, raw = state
    if type(version) is not int or type(shape) is not tuple \
            or not all(type(n) is int and n >= 0 for n in shape) \
            or not isinstance(dtype, np.dtype) or dtype.hasobject \
            or dtype.kind not in _NP_KINDS or type(fortran) is not bool \
            or type(raw) not in (bytes, bytearray):
        raise CheckpointError(f"{name}: numpy array state refused: expected (version, shape, "
                              "numeric dtype, is_fortran, bytes)")
    size = 1
    for n in shape:
        size *= n
    if size * dtype.itemsize != len(raw):
        raise CheckpointError(f"{name}: a numpy array of shape {list(shape)} and dtype {dtype} "
                              f"needs {size * dtype.itemsize} bytes, the file holds {len(raw)}")
    arr.__setstate__(state)


def load(file, name, allowed, persistent_load=None, what="checkpoint", hint="",
         encoding="ASCII"):
    """Unpickle `file` (a binary file object) with SafeUnpickler; `name` is used in errors."""
    if isinstance(file, (bytes, bytearray)):
        file = io.BytesIO(file)
    return SafeUnpickler(file, name, allowed, persistent_load, what, hint, encoding).load()
