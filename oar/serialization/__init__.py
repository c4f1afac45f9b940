"""oar.save / oar.load: checkpoints that never run code on load and never lose the old file."""
# Note [save/load arguments]
# `path` is a str / os.PathLike or an open binary file object; anything else (an int would
# be taken by open() as a file descriptor: `oar.load(1)` used to read and then close stdout)
# is refused with a TypeError before any file is touched.
#
# Note [Checkpoint formats]
# Three formats, one dispatcher:
#   "oar"    oar's own format, a safetensors file (Note [oar checkpoint format], native.py);
#   "paddle" Paddle's pickle of plain arrays and containers, which paddle.load reads
#            (paddle_pickle.py);
#   "torch"  PyTorch's zip of a pickle and raw storages, which torch.load(weights_only=True)
#            reads (torch_zip.py).
# Saving picks the format from the keyword `format=` when given; else from the suffix of a
# path: .pdparams / .pdopt / .pdtensor -> "paddle" (so the real paddle.load reads what oar
# writes there), .pt / .pth -> "torch", anything else (and a file object) -> "oar". Paddle's own
# `safetensors=True` config means "oar". `oar.torch.save` always writes "torch".
# Loading ignores the suffix and sniffs the content: b"PK\x03\x04" (a zip) -> the PyTorch
# reader; a pickle protocol byte b"\x80" -> the restricted Paddle/pickle reader (Note [Loading
# never runs code]), unless the file reads as a plausible safetensors start (0x80 is also the
# low byte of a header length of 128 + 256k: a header length that fits in the file followed
# by "{"); anything else -> oar's format (any safetensors file). A file none of them
# can read (empty, truncated, random, foreign) raises one CheckpointError naming the file and
# what was expected (an UnreadableCheckpointError, also a pickle.UnpicklingError as in torch).
# Tensors come back in the door that saved them (oar's format records it); a foreign file's
# tensors take the loading door (`oar.load` -> Paddle door, `oar.torch.load` -> PyTorch door).
#
# Note [Atomic checkpoint writes]
# A save to a path never leaves a half-written file there. The object is first checked and laid
# out completely (for oar's format: every value, the header, the byte offsets: an unsavable
# value raises before any file exists); then the bytes go to a temporary file in the target's
# directory (".<name>.<random>.tmp", so os.replace stays on one file system), which is flushed
# and fsynced, given the permissions a plain open() would give (the old file's, else 0o666 less
# the umask) and renamed over the target with os.replace (atomic on POSIX and Windows), then the
# directory is fsynced. Any exception on the way removes the temporary file and leaves the old
# file untouched; a process killed mid-write (SIGKILL, power loss) leaves the old file intact
# and at worst a stray ".<name>.*.tmp". A symlinked target is written through the link. A file
# object is written directly (there is no old file to protect), after the same checks.

from __future__ import annotations

import importlib
import io
import os
import pickle
import stat
import struct
import tempfile
import zipfile
from collections import OrderedDict

from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from . import native
from ._errors import CheckpointError, ForbiddenGlobalError  # noqa: F401
from ._errors import UnreadableCheckpointError

_PADDLE_SUFFIXES = (".pdparams", ".pdopt", ".pdtensor")
_TORCH_SUFFIXES = (".pt", ".pth")
FORMATS = ("oar", "paddle", "torch")
_MODULES = {"paddle": "paddle_pickle", "torch": "torch_zip"}
_WHAT = {"paddle": "Paddle/pickle checkpoint (.pdparams/.pdopt)",
         "torch": "PyTorch zip checkpoint (.pt/.pth)"}


def _path(path, op, mode):
    if isinstance(path, (str, os.PathLike)) and not isinstance(path, bytes):
        p = os.fspath(path)
        if isinstance(p, str):
            if not p:
                raise FileNotFoundError(f"oar.{op}: the path is empty")
            return p, None
    if mode == "rb" and hasattr(path, "read") and hasattr(path, "readline"):
        if isinstance(path, io.TextIOBase):
            raise ArgTypeError(f"oar.{op}: the file object is open in text mode; open it with "
                               f"'rb'")
        return None, path
    if mode == "wb" and hasattr(path, "write"):
        if isinstance(path, io.TextIOBase):
            raise ArgTypeError(f"oar.{op}: the file object is open in text mode; open it with "
                               f"'wb'")
        return None, path
    raise ArgTypeError(f"oar.{op}: path must be a str, an os.PathLike or a binary file object "
                       f"opened for {'reading' if mode == 'rb' else 'writing'}, got "
                       f"{type(path).__name__} {path!r}"[:200])


def _check_protocol(protocol, op):
    if isinstance(protocol, bool) or not isinstance(protocol, int) \
            or not 2 <= protocol <= pickle.HIGHEST_PROTOCOL:
        raise ArgTypeError(f"{op}: protocol must be an int in [2, {pickle.HIGHEST_PROTOCOL}]"
                           f", got {protocol!r}")


def _format_module(fmt, op):
    modname = f"{__name__}.{_MODULES[fmt]}"
    try:
        return importlib.import_module(modname)
    except ModuleNotFoundError as e:
        if e.name != modname:
            raise
        raise CheckpointError(f"{op}: the {fmt!r} checkpoint format is not available in this "
                              f"build ({modname} is missing); use oar's own format "
                              f"(format='oar', or a path not ending in "
                              f"{'/'.join(_PADDLE_SUFFIXES + _TORCH_SUFFIXES)})") from None


def format_for(path, fmt=None):
    """The format oar.save writes `path` in (Note [Checkpoint formats]): `fmt` when given,
    else by the path's suffix; "oar" for a file object."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise ArgValueError(f"oar.save: format must be one of {', '.join(map(repr, FORMATS))}"
                                f", got {fmt!r}"[:200])
        return fmt
    if isinstance(path, (str, os.PathLike)) and not isinstance(path, bytes):
        p = os.fspath(path)
        if isinstance(p, str):
            low = p.lower()
            if low.endswith(_PADDLE_SUFFIXES):
                return "paddle"
            if low.endswith(_TORCH_SUFFIXES):
                return "torch"
    return "oar"


def save(obj, path, protocol=4, **configs):
    """Save a tensor, a state_dict or a structure of tensors, NumPy arrays, numbers, str and
    lists / tuples / dicts of them to `path` (a str, os.PathLike or binary file object).

    The format (Note [Checkpoint formats]) is `format=` ("oar", "paddle", "torch") when given,
    else chosen by the suffix: .pdparams / .pdopt / .pdtensor -> Paddle's pickle (readable by
    paddle.load), .pt / .pth -> PyTorch's zip (readable by torch.load), anything else -> oar's
    safetensors-layout format. `protocol` is the pickle protocol of the Paddle format. Paddle's
    configs: safetensors=True (write oar's safetensors format), pickle_protocol (= protocol),
    use_binary_format=False. The write is atomic (Note [Atomic checkpoint writes]): a failed
    or interrupted save leaves the old file intact.
    """
    configs = dict(configs)
    fmt = configs.pop("format", None)
    for key in configs:
        if key not in ("use_binary_format", "pickle_protocol", "safetensors"):
            raise ArgValueError(f"The additional config ({key}) of `paddle.save` is not "
                                f"supported.")
    if configs.get("pickle_protocol") is not None:
        protocol = configs["pickle_protocol"]
    _check_protocol(protocol, "oar.save")
    if configs.get("use_binary_format"):
        raise ArgValueError("oar.save: use_binary_format=True (Paddle's LoDTensor binary format "
                            "for one tensor) is not supported; save without it")
    if configs.get("safetensors"):
        if fmt not in (None, "oar"):
            raise ArgValueError(f"oar.save: safetensors=True asks for oar's safetensors format "
                                f"but format={fmt!r}")
        fmt = "oar"
    _save(obj, path, format_for(path, fmt), protocol)


def _save(obj, path, fmt, protocol=4, **configs):
    """Save `obj` to `path` in format `fmt` ("oar", "paddle", "torch"), atomically for a path
    (Note [Atomic checkpoint writes]). The front doors' save functions call this."""
    op = "oar.torch.save" if fmt == "torch" else "oar.save"
    if configs:
        raise ArgValueError(f"{op}: unexpected arguments {sorted(configs)}")
    _check_protocol(protocol, op)
    fmt = format_for(path, fmt)
    name, f = _path(path, "save", "wb")
    if name is not None:
        target = os.path.realpath(name) if os.path.islink(name) else name
        d = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(d):
            raise FileNotFoundError(f"{op}: directory {d!r} does not exist")
        if os.path.isdir(target):
            raise IsADirectoryError(f"{op}: {name!r} is a directory; give a file path")
    if fmt == "oar":
        p = native.plan(obj)      # every check, before any file exists

        def write(fh):
            native.write(p, fh)
    else:
        mod = _format_module(fmt, op)
        if fmt == "torch":
            def write(fh):
                mod.write(obj, fh)
        else:
            def write(fh):
                mod.write(obj, fh, protocol)
    if f is not None:
        write(f)
        return
    _atomic_write(target, write)


def _umask():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _atomic_write(target, write):
    """Write through `write(fileobj)` to a temporary file beside `target`, fsync it and
    rename it over `target` (Note [Atomic checkpoint writes])."""
    d = os.path.dirname(os.path.abspath(target))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:     # make the rename itself durable
        dfd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def load(path, **configs):
    """Load a checkpoint written by oar.save, paddle.save, torch.save or the safetensors
    package, whatever its suffix (Note [Checkpoint formats]). Loading never runs code: pickled
    files go through a restricted unpickler (Note [Loading never runs code]) and oar's format
    holds no code at all. An unreadable file raises CheckpointError naming the file.

    Paddle's configs: return_numpy=True gives NumPy arrays instead of tensors;
    keep_name_table=True keeps a Paddle state dict's "StructuredToParameterName@@" table;
    safetensors is accepted (the content decides); model_filename / params_filename
    (static-graph inference models) are not supported.
    """
    for key in configs:
        if key not in ("model_filename", "params_filename", "keep_name_table", "return_numpy",
                       "safetensors"):
            raise ArgValueError(f"The additional config ({key}) of `paddle.load` is not "
                                f"supported.")
    for key in ("model_filename", "params_filename"):
        if configs.get(key) is not None:
            raise ArgValueError(f"oar.load: {key} loads a static-graph inference model, which "
                                f"oar does not have; load a state dict saved with oar.save / "
                                f"paddle.save instead")
    return _load(path, "paddle", return_numpy=bool(configs.get("return_numpy")),
                 keep_name_table=bool(configs.get("keep_name_table")))


def _to_numpy(v):
    t = type(v)
    if isinstance(v, Tensor):
        return v._data.copy()
    if t is list:
        return [_to_numpy(x) for x in v]
    if t is tuple:
        return tuple(_to_numpy(x) for x in v)
    if t in (dict, OrderedDict):
        return t((k, _to_numpy(x)) for k, x in v.items())
    return v


def _display(f):
    n = getattr(f, "name", None)
    return repr(n) if isinstance(n, str) else f"the {type(f).__name__} file object"


def _load(path, door, return_numpy=False, keep_name_table=False):
    """Load a checkpoint of any format from `path`; `door` ("paddle" / "torch") is the tensor
    class a foreign file's tensors take; return_numpy gives NumPy arrays instead of tensors;
    keep_name_table keeps a Paddle state dict's name table. The front doors' load functions
    call this."""
    if door not in ("paddle", "torch"):
        raise ArgValueError(f"oar.load: door must be 'paddle' or 'torch', got {door!r}")
    opts = {"return_numpy": bool(return_numpy), "keep_name_table": bool(keep_name_table)}
    name, f = _path(path, "load", "rb")
    if f is None:
        with open(name, "rb") as fh:
            return _read(fh, repr(name), door, opts)
    shown = _display(f)
    try:
        ok = f.seekable() and f.tell() == 0
    except (AttributeError, OSError, ValueError):
        ok = False
    if not ok:     # not at 0 or not seekable: the readers need a seekable file at 0
        rest = f.read()
        if not isinstance(rest, bytes):
            raise ArgTypeError("oar.load: the file object returned str; open it in binary "
                               "mode ('rb')")
        if not rest:
            raise UnreadableCheckpointError(
                f"{shown} is not a checkpoint oar can read: nothing is left to read in it (if "
                f"you just wrote it, call f.seek(0) first); {native._EXPECTED}")
        f = io.BytesIO(rest)
    return _read(f, shown, door, opts)


def _read(f, name, door, opts):
    head = f.read(9)
    if not isinstance(head, bytes):
        raise ArgTypeError("oar.load: the file object returned str; open it in binary mode "
                           "('rb')")
    if not head:
        raise UnreadableCheckpointError(f"{name} is not a checkpoint oar can read: it is "
                                        f"empty; {native._EXPECTED}")
    f.seek(0, 2)
    size = f.tell()
    f.seek(0)
    if head.startswith(b"PK\x03\x04"):
        fmt = "torch"
    elif head[:1] == b"\x80" and not native.plausible(head, size):
        # a pickle; but 0x80 is also the first byte of a safetensors header length of
        # 128 + 256k bytes, so a plausible safetensors start wins
        fmt = "paddle"
    else:
        obj = native.read(f, name, door)
        return _to_numpy(obj) if opts["return_numpy"] else obj
    mod = _format_module(fmt, "oar.load")
    try:
        if fmt == "paddle":
            return mod.read(f, name, door, **opts)
        obj = mod.read(f, name, door)
        return _to_numpy(obj) if opts["return_numpy"] else obj
    except CheckpointError:
        raise
    except (EOFError, pickle.UnpicklingError, zipfile.BadZipFile, zipfile.LargeZipFile,
            struct.error, UnicodeDecodeError, ValueError, IndexError, KeyError,
            OverflowError, RecursionError) as e:
        raise UnreadableCheckpointError(
            f"{name} is not a valid {_WHAT[fmt]}: {type(e).__name__}: {e}"[:500]) from e
