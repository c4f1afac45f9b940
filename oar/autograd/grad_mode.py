"""Grad mode: thread-local, usable as context managers and decorators."""
from __future__ import annotations

import functools
import threading


class _State(threading.local):
    enabled = True


STATE = _State()


def is_grad_enabled() -> bool:
    """Whether operations are recorded for autograd in this thread now."""
    return STATE.enabled


class _GradModeBase:
    _target = True

    def __enter__(self):
        self._prev = STATE.enabled
        STATE.enabled = self._target
        return self

    def __exit__(self, *exc):
        STATE.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeBase):
    """Disable gradient recording. `with oar.no_grad():` or `@oar.no_grad()` (also `@oar.no_grad`)."""
    _target = False

    def __new__(cls, fn=None):
        self = super().__new__(cls)
        if callable(fn):  # used as a bare decorator: @no_grad
            return self(fn)
        return self

    def __init__(self, fn=None):
        pass


class enable_grad(no_grad):
    """Enable gradient recording: `with oar.enable_grad():` or as a decorator."""
    _target = True


class set_grad_enabled(_GradModeBase):
    """Turn gradient recording on (True) or off (False): now, in a with block, or as a decorator."""
    def __init__(self, mode: bool):
        if mode.__class__ is not bool:   # PyTorch: "must be bool, not str"
            from .errors import ArgTypeError
            raise ArgTypeError(f"set_grad_enabled(): argument 'mode' must be bool, not "
                               f"{type(mode).__name__}")
        self._target = mode
        self._prev = STATE.enabled
        STATE.enabled = self._target  # takes effect on call, like torch

    def __enter__(self):
        return self

    def __call__(self, fn):
        STATE.enabled = self._prev
        mode = self._target

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class inference_mode(no_grad):
    """Disable gradient recording, as no_grad (PyTorch's inference_mode)."""
    pass
