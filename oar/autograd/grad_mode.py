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


# Note [Inference tensors]
# PyTorch's inference_mode is no_grad plus a promise: tensors allocated inside it (not views
# of tensors from outside) are *inference tensors*, which may never be updated in place
# outside inference mode. oar marks the Storage (storage.py new_storage, while
# `_INFERENCE.active` says some thread is in inference mode), so views, detach() and every
# tensor over that memory are inference tensors too, as in PyTorch; a clone is not. The
# marked storage keeps its buffer as a separate ndarray object, so no inline fast path
# (which requires `x._data is x._storage.buffer`) writes into it: every write goes through
# the checked path, where `check_inference` refuses it before anything is written (Note
# [Check, then write]). The rest of PyTorch's rules, each where it is enforced:
# - an inference tensor has no autograd state of its own: a view of it is a plain tensor
#   (not `_is_view()`, no history; ops/registry.py view_of), and an op whose tensor operands
#   are all inference tensors records nothing even when one requires grad (registry.py
#   _needs_grad); with a normal operand the op is recorded and an inference leaf that
#   requires grad receives its .grad;
# - it may not be saved for backward (`INFERENCE_SAVED_ERROR`, autograd/saved.py
#   SavedTensor), so `c * s` with s requiring grad raises, and `a.mul_(c)` raises before
#   the write;
# - its `_version` raises (tensor.py), and requires_grad=True may be set on it only inside
#   inference mode (tensor.py);
# - a view of a *normal* tensor made inside inference mode is a view that carries the
#   INFERENCE_MODE creation meta (Note [View creation meta]): in place on it, or a use
#   after its base changed, outside inference mode raises PyTorch's inference_mode message;
# - inference_mode(True) turns grad mode off, inference_mode(False) turns it *on* and
#   inference mode off (PyTorch's InferenceMode guard sets grad_mode = !enabled), both
#   restored on exit.
class _InferenceState(threading.local):
    enabled = False


INFERENCE = _InferenceState()


class _Active:
    """How many threads are in inference mode now (read on every storage allocation, so a
    module attribute, not a thread-local)."""
    count = 0


_INFERENCE = _Active()
_ACTIVE_LOCK = threading.Lock()


def is_inference_mode_enabled() -> bool:
    """Whether this thread is in inference mode (Note [Inference tensors])."""
    return INFERENCE.enabled


def is_inference(t) -> bool:
    """Whether tensor t is an inference tensor (Note [Inference tensors])."""
    return t._storage.__dict__.get("inference", False)


INFERENCE_INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


INFERENCE_SAVED_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")
INFERENCE_VERSION_ERROR = "Inference tensors do not track version counter."
INFERENCE_REQUIRES_GRAD_ERROR = ("Setting requires_grad=True on inference tensor outside "
                                 "InferenceMode is not allowed.")


def _set_inference(flag):
    """Turn this thread's inference mode on or off, keeping `_INFERENCE.count` (threads in
    inference mode) exact."""
    if INFERENCE.enabled == flag:
        return
    with _ACTIVE_LOCK:
        _INFERENCE.count += 1 if flag else -1
    INFERENCE.enabled = flag


def check_inference(t, op_name):
    """Note [Inference tensors]: refuse an in-place write into an inference tensor outside
    inference mode (PyTorch's RuntimeError), before anything is written."""
    if not INFERENCE.enabled and t._storage.__dict__.get("inference", False):
        raise RuntimeError(f"{INFERENCE_INPLACE_ERROR} (`{op_name}` on a tensor made under "
                           "inference_mode; fix: `t = t.clone()` first)")


class inference_mode(_GradModeBase):
    """PyTorch's inference_mode(mode=True): no gradient recording, and tensors made inside
    are inference tensors (Note [Inference tensors]). A context manager and a decorator
    (`@inference_mode()` and bare `@inference_mode`); inference_mode(False) leaves inference
    mode and turns grad mode on inside its block, as PyTorch's."""

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode):   # used as a bare decorator: @inference_mode
            self.mode = True
            return self(mode)
        return self

    def __init__(self, mode=True):
        if callable(mode):
            return
        if mode.__class__ is not bool:
            from .errors import ArgTypeError
            raise ArgTypeError(f"inference_mode(): argument 'mode' must be bool, not "
                               f"{type(mode).__name__}")
        self.mode = mode

    def __enter__(self):
        # Note [Inference tensors]: grad mode is the opposite of the inference flag
        self._prev = STATE.enabled, INFERENCE.enabled
        _set_inference(self.mode)
        STATE.enabled = not self.mode
        return self

    def __exit__(self, *exc):
        was_grad, was_inference = self._prev
        _set_inference(was_inference)
        STATE.enabled = was_grad
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        """A new context manager with the same mode."""
        return inference_mode(self.mode)


# Note [Anomaly mode]
# PyTorch's detect_anomaly: while on, every node created records where its forward op was
# called (the user's file:line), and a backward formula that returns a NaN raises
# RuntimeError "Function 'MulBackward0' returned nan values in its 0th output." naming that
# forward call (autograd/node.py). Global, not per thread, as in PyTorch.
class _Anomaly:
    enabled = False
    check_nan = True


ANOMALY = _Anomaly()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (Note [Anomaly mode])."""
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN (Note [Anomaly mode])."""
    return ANOMALY.check_nan


class set_detect_anomaly:
    """Turn anomaly detection on or off (Note [Anomaly mode]): now, or for a with block."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self._prev = (ANOMALY.enabled, ANOMALY.check_nan)
        ANOMALY.enabled = bool(mode)
        ANOMALY.check_nan = bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self._prev
        return False


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on (Note [Anomaly
    mode]): a backward that produces NaN raises, naming the forward op and where it ran."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan
        import warnings
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self._prev = (ANOMALY.enabled, ANOMALY.check_nan)
        ANOMALY.enabled = True
        ANOMALY.check_nan = self.check_nan
        return self

    def __exit__(self, *exc):
        ANOMALY.enabled, ANOMALY.check_nan = self._prev
        return False

    def __call__(self, fn):
        check_nan = self.check_nan

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = (ANOMALY.enabled, ANOMALY.check_nan)
            ANOMALY.enabled, ANOMALY.check_nan = True, check_nan
            try:
                return fn(*args, **kwargs)
            finally:
                ANOMALY.enabled, ANOMALY.check_nan = prev
        return wrapper
