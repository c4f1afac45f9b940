"""What the vision datasets share: argument checks and the refusal to download
(Note [Vision datasets read local files only])."""
from __future__ import annotations

from ...autograd.errors import ArgTypeError, ArgValueError


class _AssertValueError(ArgValueError, AssertionError):
    """Paddle asserts on these arguments (AssertionError); also a ValueError."""


class _AssertTypeError(ArgTypeError, AssertionError):
    """Paddle asserts on an argument's type (AssertionError); also a TypeError."""


class DownloadRefusedError(ArgValueError):
    """A dataset was asked to download its files; oar reads local files only."""


def _check(cond, msg):
    if not cond:
        raise _AssertValueError(msg)


def _check_mode(mode, cls):
    _check(isinstance(mode, str) and mode.lower() in ("train", "test"),
           f"{cls}: mode should be 'train' or 'test', but got {mode!r}")
    return mode.lower()


def _check_backend(backend, cls):
    from .. import image
    if backend is None:
        backend = image.get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ArgValueError(f"{cls}: expected backend to be one of ['pil', 'cv2'], "
                            f"but got {backend!r}")
    return backend


def _local_path(path, keyword, download, cls, files):
    """`path` itself, or the refusal when it is None (Paddle would download `files`)."""
    if path is not None:
        return path
    _check(download, f"{cls}: {keyword} is not set and downloading automatically is disabled")
    raise DownloadRefusedError(
        f"{cls}: {keyword} is None, so Paddle would download {files}; oar does not download "
        f"datasets. Fetch {files} yourself and pass its local path as {keyword}=...")
