"""PyTorch's checkpoint format (what torch.save writes since 1.6), read and written without torch.

A zip archive, every record stored uncompressed under one folder `<archive>/`:
  data.pkl            the object, pickled (protocol 2); each storage is a persistent id
                      ('storage', <storage type>, key, location, numel) and each tensor a call
                      torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
                      requires_grad, OrderedDict()) (a Parameter wraps it in _rebuild_parameter)
  .format_version     "1"      .storage_alignment "64"      byteorder "little"
  data/<key>          the storage's raw bytes, starting at a multiple of 64 in the file
  version             "3\\n"    .data/serialization_id
Reading goes through the restricted unpickler (Note [Loading never runs code]) with the
allowlist below; storages and windows follow Note [Storage layout in checkpoints].
"""
from __future__ import annotations

import codecs
import io
import pickle
import struct
import uuid
import zipfile
from collections import OrderedDict

import numpy as np

from .. import dtypes as _dt
from ._errors import CheckpointError
from ._layout import storage_array, tensor_on
from . import unpickle as _up

_BF16 = _dt.BFLOAT16_NP
# torch storage class name -> NumPy dtype (None: a dtype oar does not have)
_STORAGE_DTYPES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
    "BFloat16Storage": _BF16, "ComplexFloatStorage": None, "ComplexDoubleStorage": None,
    "QInt8Storage": None, "QUInt8Storage": None, "QInt32Storage": None,
    "QUInt4x2Storage": None, "QUInt2x4Storage": None,
}
_STORAGE_TORCH_DTYPE = {
    "BFloat16Storage": "bfloat16", "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128", "QInt8Storage": "qint8", "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32", "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4",
}
_DTYPE_STORAGE = {np.dtype(v): k for k, v in _STORAGE_DTYPES.items() if v is not None}
# torch dtype name -> NumPy dtype (None: not in oar), for _rebuild_tensor_v3's dtype argument
_TORCH_DTYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16, "int64": np.int64,
    "int32": np.int32, "int16": np.int16, "int8": np.int8, "uint8": np.uint8, "bool": np.bool_,
}
_TORCH_DTYPES["bfloat16"] = _BF16   # Note [bfloat16]
for _n in ("complex32", "complex64", "complex128", "uint16", "uint32", "uint64",
           "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
           "float8_e8m0fnu", "float4_e2m1fn_x2", "qint8", "quint8", "qint32", "quint4x2",
           "quint2x4", "bits8", "bits16", "bits1x8", "bits2x4", "bits4x2",
           *(f"uint{i}" for i in range(1, 8)), *(f"int{i}" for i in range(1, 8))):
    _TORCH_DTYPES[_n] = None
del _n

_ALIGN = 64
_FIX = ("fix: convert it in PyTorch before saving, e.g. `sd = {k: v.float() if "
        "v.is_floating_point() else v for k, v in sd.items()}`, and save again")


class _StorageType:
    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name = name      # "FloatStorage", ... or "UntypedStorage"
        self.dtype = dtype    # np.dtype, None (not in oar)


class _TorchDType:
    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = None if dtype is None else np.dtype(dtype)


class _TorchClass:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class _Storage:
    """One stored storage: `flat` (a 1-d array) or `missing` (the dtype oar lacks)."""
    __slots__ = ("key", "flat", "missing", "views")

    def __init__(self, key, flat, missing=None):
        self.key = key
        self.flat = flat
        self.missing = missing
        self.views = {}


class _Unsupported:
    """Stands for a tensor of a dtype oar lacks until the whole pickle is read, so the error
    can name the tensor's place in the checkpoint."""
    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtype
        self.shape = shape


def _classes(door):
    if door == "torch":
        from ..torch._tensor import Parameter, Tensor
    elif door == "paddle":
        from ..nn.layers import Parameter
        from ..tensor import Tensor
    else:
        raise ValueError(f"door must be 'paddle' or 'torch', got {door!r}")
    return Tensor, Parameter


# ---------------------------------------------------------------------- reading
class _Reader:
    def __init__(self, zf, prefix, name, door, big_endian, size):
        self.zf = zf
        self.prefix = prefix
        self.name = name
        self.tensor_cls, self.param_cls = _classes(door)
        self.big_endian = big_endian
        self.storages = {}
        self.storage_of = {}
        self.unsupported = False
        self.size = size

    def allowed(self):
        A = _up.Allowed
        rc = dict(_up.BASIC_GLOBALS)
        for fn in (self.rebuild_tensor, self.rebuild_tensor_v2, self.rebuild_tensor_v3,
                   self.rebuild_parameter, self.rebuild_parameter_with_state):
            rc["torch._utils._" + fn.__name__] = A(fn, call=True)
        rc["torch._tensor._rebuild_from_type_v2"] = A(self.rebuild_from_type_v2, call=True)
        for sname, dt in _STORAGE_DTYPES.items():
            rc["torch." + sname] = A(_StorageType(sname, None if dt is None else np.dtype(dt)))
        rc["torch.storage.UntypedStorage"] = A(_StorageType("UntypedStorage", np.dtype(np.uint8)))
        for dname, dt in _TORCH_DTYPES.items():
            rc["torch." + dname] = A(_TorchDType(dname, dt))
        self.tensor_type = _TorchClass("Tensor")
        self.parameter_type = _TorchClass("Parameter")
        rc["torch.Tensor"] = rc["torch._tensor.Tensor"] = A(self.tensor_type)
        rc["torch.nn.parameter.Parameter"] = A(self.parameter_type)
        rc["torch.Size"] = A(_torch_size, call=True)
        rc["torch.device"] = A(_torch_device, call=True)
        # the bound methods in rc (alive as long as rc): the ones _rebuild_from_type_v2 may call
        self.rebuilders = {id(rc["torch._utils._" + n].obj) for n in (
            "rebuild_tensor", "rebuild_tensor_v2", "rebuild_tensor_v3", "rebuild_parameter",
            "rebuild_parameter_with_state")}
        self._keep = rc
        return rc

    # persistent ids ------------------------------------------------------------
    def persistent_load(self, pid):
        if type(pid) is not tuple or len(pid) != 5:
            raise CheckpointError(f"{self.name}: persistent id {pid!r} is not a storage "
                                  "reference ('storage', type, key, location, numel)"[:300])
        tag, stype, key, location, numel = pid
        if isinstance(tag, bytes):
            tag = tag.decode("ascii", "replace")
        if tag != "storage" or not isinstance(stype, _StorageType) or type(key) is not str \
                or type(location) is not str or type(numel) is not int or numel < 0:
            raise CheckpointError(f"{self.name}: persistent id {pid!r} is not a storage "
                                  "reference ('storage', type, key, location, numel)"[:300])
        st = self.storages.get(key)
        if st is None:
            st = self.storages[key] = self._read_storage(key, stype, numel)
        return st

    def _read_storage(self, key, stype, numel):
        if stype.dtype is None:
            return _Storage(key, None, _STORAGE_TORCH_DTYPE.get(stype.name, stype.name))
        record = f"{self.prefix}data/{key}"
        try:
            info = self.zf.getinfo(record)
        except KeyError:
            raise CheckpointError(f"{self.name}: the archive has no record {record!r} for "
                                  "a storage its data.pkl uses (truncated or corrupt file)") \
                from None
        nbytes = numel * stype.dtype.itemsize
        if info.compress_size > self.size or (info.compress_type == zipfile.ZIP_STORED
                                              and info.file_size != info.compress_size):
            raise CheckpointError(f"{self.name}: record {record!r} claims {info.file_size} "
                                  f"bytes in a file of {self.size} (corrupt file)")
        if info.file_size != nbytes:
            raise CheckpointError(f"{self.name}: storage {key!r} ({stype.name} of {numel} "
                                  f"elements) needs {nbytes} bytes, the record holds "
                                  f"{info.file_size}")
        dt = stype.dtype.newbyteorder(">") if self.big_endian else stype.dtype
        flat = np.empty(numel, dtype=dt)
        buf = memoryview(flat.view(np.uint8))
        try:
            with self.zf.open(info) as r:
                got = 0
                while got < nbytes:
                    n = r.readinto(buf[got:])
                    if not n:
                        break
                    got += n
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError,
                RuntimeError) as e:
            raise CheckpointError(f"{self.name}: storage {key!r} cannot be read ({e}; "
                                  "truncated or corrupt file)") from e
        if got != nbytes:
            raise CheckpointError(f"{self.name}: storage {key!r} is truncated ({got} of "
                                  f"{nbytes} bytes)")
        if self.big_endian:
            flat = flat.astype(stype.dtype)
        return _Storage(key, flat)

    # rebuilders (torch._utils names) ------------------------------------------
    def _window(self, storage, offset, size, stride, requires_grad, dtype=None):
        if not isinstance(storage, _Storage):
            raise CheckpointError("a tensor's storage is not a storage reference")
        if type(offset) is not int or not _ints(size) or not _ints(stride) \
                or len(size) != len(stride):
            raise CheckpointError(f"bad tensor layout: offset {offset!r}, size {size!r}, "
                                  f"stride {stride!r}"[:300])
        if type(requires_grad) is not bool:
            raise CheckpointError(f"requires_grad {requires_grad!r} is not a bool"[:200])
        if storage.missing is not None or (dtype is not None and dtype.dtype is None):
            self.unsupported = True
            return _Unsupported(storage.missing or dtype.name, tuple(size))
        flat = storage.flat
        if dtype is not None and dtype.dtype != flat.dtype:
            view = storage.views.get(dtype.dtype)
            if view is None:
                if flat.nbytes % dtype.dtype.itemsize:
                    raise CheckpointError(f"storage {storage.key!r} of {flat.nbytes} bytes "
                                          f"does not hold whole {dtype.name} elements")
                view = storage.views[dtype.dtype] = flat.view(dtype.dtype)
            flat = view
        try:
            return tensor_on(flat, self.storage_of, offset, size, stride, self.tensor_cls,
                             requires_grad)
        except ValueError as e:
            raise CheckpointError(f"storage {storage.key!r}: {e}") from None

    def rebuild_tensor(self, storage, storage_offset, size, stride):
        return self._window(storage, storage_offset, size, stride, False)

    def rebuild_tensor_v2(self, storage, storage_offset, size, stride, requires_grad,
                          backward_hooks, metadata=None):
        _no_hooks(backward_hooks)
        _no_metadata(metadata)
        return self._window(storage, storage_offset, size, stride, requires_grad)

    def rebuild_tensor_v3(self, storage, storage_offset, size, stride, requires_grad,
                          backward_hooks, dtype, metadata=None):
        _no_hooks(backward_hooks)
        _no_metadata(metadata)
        if not isinstance(dtype, _TorchDType):
            raise CheckpointError(f"_rebuild_tensor_v3: {dtype!r} is not a torch dtype"[:200])
        return self._window(storage, storage_offset, size, stride, requires_grad, dtype)

    def rebuild_parameter(self, data, requires_grad, backward_hooks):
        _no_hooks(backward_hooks)
        if isinstance(data, _Unsupported):
            return data
        if not isinstance(data, self.tensor_cls) or type(requires_grad) is not bool:
            raise CheckpointError("_rebuild_parameter: expected a tensor and a bool")
        from ..tensor import wrap_as
        p = wrap_as(self.param_cls, data._data, data._storage)
        p._requires_grad = requires_grad
        return p

    def rebuild_parameter_with_state(self, data, requires_grad, backward_hooks, state):
        p = self.rebuild_parameter(data, requires_grad, backward_hooks)
        return _apply_state(p, state, "Parameter")

    def rebuild_from_type_v2(self, func, new_type, args, state):
        if id(func) not in self.rebuilders or type(args) is not tuple:
            raise CheckpointError("_rebuild_from_type_v2 of something that is not a tensor "
                                  "rebuild function")
        if new_type is not self.tensor_type and new_type is not self.parameter_type:
            raise CheckpointError("_rebuild_from_type_v2: only torch.Tensor and Parameter")
        t = func(*args)
        if new_type is self.parameter_type and not isinstance(t, (self.param_cls,
                                                                  _Unsupported)):
            t = self.rebuild_parameter(t, t._requires_grad, OrderedDict())
        return _apply_state(t, state, "tensor")

    # after the pickle ----------------------------------------------------------
    def check(self, obj):
        if self.unsupported:
            bad = _find(obj, lambda x: isinstance(x, _Unsupported))
            if bad is not None:
                path, u = bad
                raise CheckpointError(
                    f"{self.name}: tensor {path} (shape {list(u.shape)}) has dtype "
                    f"torch.{u.dtype}, which oar does not have (oar's dtypes: float16/32/64, "
                    f"int8/16/32/64, uint8, bool); {_FIX}")
        return obj


def _ints(seq):
    return type(seq) in (tuple, list) and all(type(n) is int for n in seq)


def _no_hooks(hooks):
    if hooks is not None and (not isinstance(hooks, dict) or hooks):
        raise CheckpointError("a tensor with backward hooks cannot be loaded (hooks are code)")


def _no_metadata(metadata):
    if metadata is not None and (not isinstance(metadata, dict) or metadata):
        raise CheckpointError(f"tensor metadata {metadata!r} is not supported by oar"[:200])


def _apply_state(t, state, what):
    """Set the Python attributes torch saved with a tensor (its __dict__, as torch's
    _set_obj_state), refusing names that are attributes of oar's tensor class (a checkpoint
    must not replace a tensor's internals)."""
    if state is None:
        return t
    slots = None
    if type(state) is tuple and len(state) == 2:   # (dict state, slots state)
        state, slots = state
    if slots:
        raise CheckpointError(f"a {what} with slot attributes ({slots!r}) cannot be "
                              "loaded"[:300])
    if state is None:
        return t
    if not isinstance(state, dict) or not all(type(k) is str for k in state):
        raise CheckpointError(f"a {what}'s state {state!r} is not a dict of attributes"[:300])
    if state and isinstance(t, _Unsupported):
        return t
    for k, v in state.items():
        if hasattr(type(t), k) or k.startswith("__"):
            raise CheckpointError(f"a {what}'s saved attribute {k!r} would replace a tensor "
                                  "internal; refused")
    for k, v in state.items():
        t.__dict__[k] = v
    return t


def _torch_size(dims=()):
    if not _ints(dims):
        raise CheckpointError("torch.Size of non-ints refused")
    return tuple(dims)


def _torch_device(kind, index=None):
    """torch.device in a checkpoint becomes its string ('cpu', 'cuda:0')."""
    if type(kind) is not str or (index is not None and type(index) is not int):
        raise CheckpointError("torch.device(...) with bad arguments refused")
    return kind if index is None else f"{kind}:{index}"


def _find(obj, pred, path="checkpoint", seen=None):
    """(path, x) of the first x in obj's containers with pred(x), else None."""
    if pred(obj):
        return path, obj
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return None
    if isinstance(obj, dict):
        seen.add(id(obj))
        items = obj.items()
    elif isinstance(obj, (list, tuple)):
        seen.add(id(obj))
        items = enumerate(obj)
    else:
        return None
    for k, v in items:
        r = _find(v, pred, f"{path}[{k!r}]", seen)
        if r is not None:
            return r
    return None


def _archive(zf, name):
    names = zf.namelist()
    pkls = [n for n in names if n.endswith("data.pkl") and n.count("/") <= 1]
    prefix = None
    if pkls:
        first = names[0].split("/", 1)[0] + "/" if "/" in names[0] else ""
        pkl = first + "data.pkl" if first + "data.pkl" in pkls else pkls[0]
        prefix = pkl[:-len("data.pkl")]
    if prefix is None:
        raise CheckpointError(f"{name}: a zip archive without <archive>/data.pkl is not a "
                              "PyTorch checkpoint (expected what torch.save writes)")
    if prefix + "constants.pkl" in names or any(n.startswith(prefix + "code/") for n in names):
        raise CheckpointError(f"{name}: a TorchScript archive (torch.jit.save) is not a "
                              "checkpoint oar can load; fix: in PyTorch, torch.save("
                              "torch.jit.load(path).state_dict(), new_path)")
    return prefix


def read(fileobj, name, door, *, encoding="ASCII"):
    """The object in a PyTorch checkpoint (torch.save's zip format) with tensors of `door`
    ("paddle": oar.Tensor / oar.nn.Parameter, "torch": oar.torch.Tensor / Parameter); views
    of one storage share one oar Storage. Raises CheckpointError naming `name`."""
    head = fileobj.read(4)
    size = fileobj.seek(0, 2)
    fileobj.seek(0)
    if not head:
        raise CheckpointError(f"{name}: the file is empty (expected a PyTorch checkpoint: a "
                              "zip archive, as torch.save writes)")
    if head[:2] == b"\x80\x02" and head[2:3] == b"\x8a":
        raise CheckpointError(f"{name}: a checkpoint in PyTorch's legacy format (torch.save "
                              "before 1.6, or _use_new_zipfile_serialization=False) is not "
                              "supported; fix: load it in PyTorch and torch.save it again")
    try:
        zf = zipfile.ZipFile(fileobj)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
            NotImplementedError) as e:
        raise CheckpointError(f"{name}: not a PyTorch checkpoint (expected a zip archive "
                              f"holding <archive>/data.pkl, as torch.save writes; {e})") from e
    with zf:
        prefix = _archive(zf, name)
        big = False
        if prefix + "byteorder" in zf.namelist():
            order = _record(zf, prefix + "byteorder", name).decode("ascii", "replace").strip()
            if order not in ("little", "big"):
                raise CheckpointError(f"{name}: unknown byteorder record {order!r}")
            big = order == "big"
        reader = _Reader(zf, prefix, name, door, big, size)
        data = io.BytesIO(_record(zf, prefix + "data.pkl", name))
        obj = _up.load(data, name, reader.allowed(), reader.persistent_load,
                       what="PyTorch checkpoint", encoding=encoding)
        return reader.check(obj)


def _record(zf, rec, name):
    try:
        return zf.read(rec)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError,
            NotImplementedError, RuntimeError) as e:
        raise CheckpointError(f"{name}: record {rec!r} cannot be read ({e}; truncated or "
                              "corrupt file)") from e


# ---------------------------------------------------------------------- writing
class _Global:
    """A global written by name (GLOBAL module\\nname\\n) without importing it: torch's
    rebuild functions and storage classes, which oar must name but never import."""
    __slots__ = ("module", "qualname")

    def __init__(self, module, qualname):
        self.module = module
        self.qualname = qualname

    def __call__(self, *args):   # pickle's save_reduce wants a callable; never called
        raise TypeError(f"{self.module}.{self.qualname} is a name written into checkpoints")


_REBUILD_TENSOR_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_STORAGE_GLOBALS = {dt: _Global("torch", sname) for dt, sname in _DTYPE_STORAGE.items()}


class _StorageRef:
    __slots__ = ("key", "flat")

    def __init__(self, key, flat):
        self.key = key
        self.flat = flat


class _Data:
    """A Parameter's .data in the pickle (torch: _rebuild_parameter(<plain tensor>, ...))."""
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


class _Pickler(pickle._Pickler):
    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = {}   # storage identity -> _StorageRef, in order of first use
        from ..nn.layers import Parameter
        from ..tensor import Tensor
        self.classes = Tensor, Parameter

    def save_torch_global(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.qualname}\n".encode("utf-8"))
        self.memoize(obj)
    dispatch[_Global] = save_torch_global

    def persistent_id(self, obj):
        if type(obj) is _StorageRef:
            flat = obj.flat
            return ("storage", _STORAGE_GLOBALS[flat.dtype], obj.key, "cpu", int(flat.size))
        return None

    def reducer_override(self, obj):
        Tensor, Parameter = self.classes
        if type(obj) is _Data:
            return self._tensor(obj.t, False)
        if type(obj) is bytes:   # as protocol 2 writes non-empty bytes (torch allows it)
            return (codecs.encode, (obj.decode("latin-1"), "latin1"))
        if isinstance(obj, Tensor):
            if isinstance(obj, Parameter):
                return (_REBUILD_PARAMETER, (_Data(obj), bool(obj.requires_grad),
                                             OrderedDict()))
            return self._tensor(obj, bool(obj.requires_grad))
        return NotImplemented

    def _tensor(self, t, requires_grad):
        sa = storage_array(t)
        if sa is not None and sa[0].dtype.byteorder not in (">",):
            flat, offset, shape, strides = sa
            ident = id(t._storage)
        else:
            arr = np.ascontiguousarray(t._data)
            flat = arr.reshape(-1).astype(arr.dtype.newbyteorder("<"), copy=False)
            offset, shape = 0, tuple(arr.shape)
            strides = _contiguous(shape)
            ident = ("own", id(t))
        ref = self.storages.get(ident)
        if ref is None:
            ref = self.storages[ident] = _StorageRef(str(len(self.storages)), flat)
        return (_REBUILD_TENSOR_V2, (ref, int(offset), tuple(int(n) for n in shape),
                                     tuple(int(s) for s in strides), requires_grad,
                                     OrderedDict()))


def _contiguous(shape):
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(int(n), 1)
    return tuple(reversed(st))


_PLAIN = (str, bytes, bytearray, int, float, bool, complex, type(None))


def _plain(obj, path, memo):
    """obj with NumPy scalars as Python numbers, checked to hold only what
    torch.load(weights_only=True) reads: tensors, dict/OrderedDict/list/tuple/set, numbers,
    strings, bytes, None. Shared sub-objects stay shared."""
    from ..tensor import Tensor
    t = type(obj)
    if t in _PLAIN or isinstance(obj, Tensor):
        if isinstance(obj, Tensor) and obj._data.dtype not in _DTYPE_STORAGE:
            raise CheckpointError(f"cannot write {path} in the PyTorch format: dtype "
                                  f"{obj._data.dtype} has no torch storage type")
        return obj
    if isinstance(obj, np.generic) and obj.dtype.kind in "biuf":
        return obj.item()
    got = memo.get(id(obj))
    if got is not None:
        return got[0]
    if t is dict or t is OrderedDict:
        out = t()
        memo[id(obj)] = (out, obj)
        for k, v in obj.items():
            out[_plain(k, f"{path} key {k!r}", memo)] = _plain(v, f"{path}[{k!r}]", memo)
        if t is OrderedDict and getattr(obj, "__dict__", None):
            for k, v in vars(obj).items():
                setattr(out, k, _plain(v, f"{path}.{k}", memo))
        return out
    if t is list:
        out = []
        memo[id(obj)] = (out, obj)
        out.extend(_plain(v, f"{path}[{i}]", memo) for i, v in enumerate(obj))
        return out
    if t in (tuple, set, frozenset):
        out = t(_plain(v, f"{path}[{i}]", memo) for i, v in enumerate(obj))
        memo[id(obj)] = (out, obj)
        return out
    raise CheckpointError(
        f"cannot write {path} ({t.__module__}.{t.__qualname__}) in the PyTorch format: "
        "torch.load(weights_only=True) reads only tensors, dicts, lists, tuples, sets, "
        "numbers, strings and None; fix: convert it (a NumPy array with oar.to_tensor, an "
        "object to a dict of its fields)")


def write(obj, fileobj):
    """Write obj in PyTorch's zip checkpoint format (what torch.load(path,
    weights_only=True) reads) to the seekable binary `fileobj`. Every tensor's storage is
    written once (Note [Storage layout in checkpoints]); raises CheckpointError for values
    torch's safe loader would refuse, before anything is written."""
    plain = _plain(obj, "checkpoint", {})
    buf = io.BytesIO()
    pickler = _Pickler(buf)
    pickler.dump(plain)
    records = [("data.pkl", buf.getvalue()), (".format_version", b"1"),
               (".storage_alignment", str(_ALIGN).encode()), ("byteorder", b"little")]
    records += [(f"data/{ref.key}", ref.flat) for ref in pickler.storages.values()]
    records += [("version", b"3\n"),
                (".data/serialization_id", str(uuid.uuid4().int).zfill(40)[:40].encode())]
    with zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for rec, data in records:
            _write_record(zf, fileobj, "archive/" + rec, data)


def _write_record(zf, f, name, data):
    if isinstance(data, np.ndarray):
        # as bytes: the buffer protocol has no format for bfloat16 (Note [bfloat16])
        view = memoryview(np.ascontiguousarray(data).reshape(-1).view(np.uint8))
    else:
        view = memoryview(data)
    n = view.nbytes
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = n
    zip64 = n > 0x7FFFFFFF
    # pad the local header with an extra field so the record's bytes start at a multiple
    # of 64, as torch's writer does (torch.load(mmap=True) relies on it)
    start = f.tell() + 30 + len(name.encode("utf-8")) + (20 if zip64 else 0)
    pad = (-(start + 4)) % _ALIGN
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad   # "FB", as torch writes
    with zf.open(info, "w", force_zip64=zip64) as w:
        step = 1 << 26
        for i in range(0, n, step):
            w.write(view[i:i + step])
