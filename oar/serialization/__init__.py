"""oar.save / oar.load: state dicts and tensors to a file (pickle, NumPy arrays inside)."""
# Note [save/load arguments]
# `path` is a str / os.PathLike or an open binary file object; anything else (an int would
# be taken by open() as a file descriptor: `oar.load(1)` used to read and then close stdout)
# is refused with a TypeError before any file is touched. The checkpoint format itself is
# the subject of a later issue.

from __future__ import annotations

import os
import pickle

from ..autograd.errors import ArgTypeError


def _path(path, op, mode):
    if isinstance(path, (str, os.PathLike)) and not isinstance(path, bytes):
        p = os.fspath(path)
        if isinstance(p, str):
            if not p:
                raise FileNotFoundError(f"oar.{op}: the path is empty")
            return p, None
    if mode == "rb" and hasattr(path, "read") and hasattr(path, "readline"):
        return None, path
    if mode == "wb" and hasattr(path, "write"):
        return None, path
    raise ArgTypeError(f"oar.{op}: path must be a str, an os.PathLike or a binary file object "
                       f"opened for {'reading' if mode == 'rb' else 'writing'}, got "
                       f"{type(path).__name__} {path!r}"[:200])


def save(obj, path, protocol=4, **kwargs):
    """Save a tensor, a state_dict or any picklable structure of them."""
    if isinstance(protocol, bool) or not isinstance(protocol, int) \
            or not 2 <= protocol <= pickle.HIGHEST_PROTOCOL:
        raise ArgTypeError(f"oar.save: protocol must be an int in [2, {pickle.HIGHEST_PROTOCOL}]"
                           f", got {protocol!r}")
    name, f = _path(path, "save", "wb")
    if f is not None:
        pickle.dump(obj, f, protocol=protocol)
        return
    d = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(d):
        raise FileNotFoundError(f"oar.save: directory {d!r} does not exist")
    with open(name, "wb") as f:
        pickle.dump(obj, f, protocol=protocol)


def load(path, **kwargs):
    """Load what oar.save wrote. Like pickle, only load files you trust."""
    name, f = _path(path, "load", "rb")
    if f is not None:
        return pickle.load(f)
    with open(name, "rb") as f:
        return pickle.load(f)
