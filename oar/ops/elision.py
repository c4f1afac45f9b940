"""Temporary elision: an out-of-place op writes its result into the memory of an operand that
nobody can see any more, so `(x @ w + b).relu() * 2` allocates one buffer, not three (Note
[Temporary elision] below). The switch: `oar.set_flags({"FLAGS_eager_elision": False})`, or
the environment variable OAR_ELISION=0."""
from __future__ import annotations

import os
import sys
import weakref

import numpy as np

from .. import storage as _storage
from ..tensor import wrap_as

# Note [Temporary elision]
# An eager temporary dies the moment the next op has read it. NumPy reuses such an operand
# (its reference count shows nobody else holds it); oar does the same, with autograd on, in
# the spellings' templates (ops/spellings.py: `oar.add(x, y)`, `x.relu()`, `x + y`, `2 * x`;
# the (x), (x, y) and (x, y, alpha) ops with a fast kernel) and, for a call that records a
# gradient, in registry.dispatch, to which the template hands the indices it vouched for.
# Operand t at index k receives the result only when all of these hold (tests/test_elision.py
# has a test per condition; where a condition is implied by another, it says which):
#   1. Elision is on: the flag, OAR_ELISION, and an interpreter whose reference counts look
#      as calibrated at import (`_calibrate`: CPython 3.11-3.13 shapes).
#   2. Nobody but the call holds t: its reference count inside `dead` equals the count of a
#      temporary for the entry path. A Python call (method, function) moves its arguments
#      into the callee's frame, so a temporary is held by the spelling alone; an operator
#      (`x * 2`: BINARY_OP, then the type slot) leaves one reference on the caller's value
#      stack, so one more is accepted, only when the caller's current instruction is
#      BINARY_OP. A list, dict, closure, caller's local, retain_grad (its list), `.grad`, a
#      view's `_base`, an argument already pushed for another call: each adds a reference.
#      Weak references are not counted: a tensor with any is refused. The one other way
#      in: an activation nn.Sequential donated to this op (Note [Donated activations]).
#      Known gap, as NumPy
#      has without its C backtrace check: C code that passes a *borrowed* reference to `*`
#      from inside a BINARY_OP (NumPy's object-dtype loops over an array of tensors) looks
#      like a temporary; tensors inside object arrays are not supported with elision on.
#   3. t is not a leaf that requires grad (its AccumulateGrad node keeps it as `variable`).
#   4. t views its whole storage and nothing else sees that storage or its memory: the
#      Storage is referenced by t alone (no UntypedStorage, alias, detach()), the root
#      ndarray by the Storage and t alone (no NumPy view, PyTorch-door numpy(), DLPack
#      capsule, memoryview) and owns its memory (not a window of an array another owner
#      may still write: from_numpy of a slice, DLPack imports). So a shared storage is
#      never reused, with no flag to keep: the references are the flag. (Views fail the
#      whole-buffer test too; `_view` is tested first because it is cheap.)
#   5. No SavedTensor watches the storage (Storage.watched). Implied by 2 and 4 today (a
#      saved input holds the tensor, a saved output its array and storage, a pack hook's
#      result whatever it keeps); tested first because it is one attribute read.
#   6. When the op records a gradient, its own backward does not read t (OpDef.save: an
#      input i that needs a gradient and whose formula reads input k; `(x + 1) * w`).
#   7. The result has t's shape and dtype, and every array operand is C-contiguous, so the
#      result is laid out exactly as a fresh one (Note [Result layout per door]).
#   8. The kernel may write into t: input 0 of an op with an in-place spelling (its kernel
#      is the in-place one's), or any operand of a NumPy ufunc (which handles the overlap).
#      No declared op violates it today; it keeps a future multi-pass kernel safe.
#   9. Nothing is captured (oar.jit): under capture FAST_CLASSES is empty, so no template
#      offers an operand; buffer_for also checks `registry._RECORDER` (the planner plans
#      buffers itself, Note [Capture and replay]).
#  10. t has at least MIN_BYTES: below, the checks cost more than the allocation saves.
# The result is a new tensor over a new Storage (version 0, its own counter) that takes over
# the buffer and its bytes (storage.reuse_storage): the op allocates nothing,
# memory_allocated() is unchanged, and the dead operand's Storage, left with no bytes,
# subtracts none when it goes. The memory timeline counts the bytes in the entry's `elided`
# (Note [Memory timeline]).
# 256 KiB, NumPy's threshold too; OAR_ELISION_MIN_BYTES overrides it at import (benchmarks)
MIN_BYTES = int(os.environ.get("OAR_ELISION_MIN_BYTES", 1 << 18))
_getrefcount = sys.getrefcount
_getframe = sys._getframe
_weakcount = weakref.getweakrefcount
_ufunc = np.ufunc


def _env_on():
    return os.environ.get("OAR_ELISION", "1").strip().lower() not in ("0", "false", "off", "no")


ENABLED = _env_on()
_CALL_DEAD = _OP_DEAD = -1   # set by _calibrate
_BINARY_OP = -1


def dead(t):
    """Condition 2 of Note [Temporary elision]: nobody but the calling spelling holds t, or
    t is an activation donated to this op (Note [Donated activations]). Call it from a
    spelling's own frame (the counts are calibrated for that depth)."""
    c = _getrefcount(t)
    if c != _CALL_DEAD:
        if c != _OP_DEAD:
            return donated(t)
        f = _getframe(2)
        if f.f_code.co_code[f.f_lasti] != _BINARY_OP:
            return donated(t)
    return not _weakcount(t)


# Note [Donated activations]
# nn.Sequential holds each layer's input in a frame's local until the layer returns, so
# inside the next layer an activation's reference count never shows it dead (Note
# [Temporary elision], condition 2). Its loop (nn/layers.py run_sequence, both doors)
# vouches instead: when its local x is the only reference (the count of a lone local,
# LOCAL_ONLY: x is the previous layer's output and nobody kept it), the next layer's class
# is in DONATABLE (exact classes, registered by each door, whose forward passes x to
# exactly one op and reads it nowhere else: ReLU, LeakyReLU, Sigmoid, Tanh) and the layer
# has no forward hooks, it calls the layer with x as the token (call_donating). The first
# op that asks `dead` (or `donated`) about the token takes it, once; call_donating clears
# it when the layer returns or raises (ReLU(inplace=True) never asks). Every other
# condition of Note [Temporary elision] still applies (size, weak references, saved,
# layout, ...). The Sequential's own input is its caller's and is never donated.
_TOKEN = None
DONATABLE: set = set()
LOCAL_ONLY = -1   # set by _calibrate


def call_donating(layer, x):
    """layer(x) with x donated to the layer's op (Note [Donated activations])."""
    global _TOKEN
    _TOKEN = x
    try:
        return layer(x)
    finally:
        _TOKEN = None


def donated(t):
    """Whether t is the donated activation (taken: once); Note [Donated activations]."""
    global _TOKEN
    if t is _TOKEN and t is not None and ENABLED and not _weakcount(t):
        _TOKEN = None
        return True
    return False


def root_buffer(t, held):
    """Conditions 3-5: t's whole root ndarray when nothing else sees it, else None.
    `held`: how many references the calling context holds to t._data itself (a spelling's
    local `xd`, dispatch's list of operand arrays)."""
    if t._requires_grad or t._view is not None:
        return None
    st = t._storage
    if st.watched:
        return None
    d = t._data
    buf = st.buffer
    if buf is d:
        # held by st.buffer, t._data, the locals d and buf, getrefcount's argument
        if _getrefcount(d) != 5 + held:
            return None
    elif not (st.inference and buf.base is d and _getrefcount(buf) == 3
              and _getrefcount(d) == 4 + held):   # inference: st.buffer is a view of t._data
        return None
    if _getrefcount(st) != 3 or st.nbytes != d.nbytes:   # t._storage, st, the argument
        return None
    fl = d.flags
    if not (fl.owndata and fl.c_contiguous):
        return None
    return d


def binary_target(x, y, x_dead, y_dead):
    """The operand of a spelling's fast path `fast(xd, yd)` that may receive the result
    (conditions 3-9; the spelling holds xd and yd), or None."""
    if x_dead and fits_shape(x._data, y._data) and y._data.flags.c_contiguous and \
            root_buffer(x, 1) is not None:
        return x
    if y_dead and fits_shape(y._data, x._data) and x._data.flags.c_contiguous and \
            root_buffer(y, 1) is not None:
        return y
    return None


def into(fast, target, *operands):
    """fast(*operands) written into target's memory; target's array."""
    buf = target._data
    r = fast(*operands, out=buf)
    if r is not buf:
        buf[...] = r
    return buf


def _contiguous(arrays):
    for a in arrays:
        if a.__class__ is np.ndarray and not a.flags.c_contiguous:
            return False
    return True


def _needed_by_backward(op, args, k, needs_grad):
    """Condition 6: whether op's backward reads input k for an input that needs a gradient."""
    for i, js in op.save.items():
        if k in js and needs_grad((args[i],)):
            return True
    return False


def buffer_for(op, args, arrays, reuse, rdt, fast, grad, needs_grad):
    """(k, buffer) for an operand in `reuse` (indices `dead` vouched for) that may receive
    op's result of dtype rdt (conditions 3-9), else None. `arrays`: the operand arrays (the
    one list dispatch holds); `fast`: the fast kernel about to run, or None (the declared
    kernel); `grad`: whether a gradient is recorded. No local here holds an operand array
    (root_buffer counts the references to it)."""
    if not ENABLED or op.kind != "pointwise" or _R._RECORDER is not None or \
            not _contiguous(arrays):
        return None
    shapes = [a.shape for a in arrays if a.__class__ is np.ndarray]
    try:
        shape = shapes[0] if all(s == shapes[0] for s in shapes) else \
            np.broadcast_shapes(*shapes)
    except ValueError:   # the kernel raises Note [Broadcast errors]
        return None
    for k in reuse:
        t = args[k]
        if not (k == 0 and op.inplace_ok or fast.__class__ is _ufunc):
            continue
        if t._data.dtype != rdt or t._data.shape != shape:
            continue
        if grad and _needed_by_backward(op, args, k, needs_grad):
            continue
        buf = root_buffer(t, 1)
        if buf is not None:
            return k, buf
    return None


def result(cls, array, old):
    """The op's result over `array`, the buffer of the dead tensor `old`: a new tensor with a
    new Storage that takes over old's bytes (Note [Temporary elision])."""
    return wrap_as(cls, array, _storage.reuse_storage(old._storage, array))


def result_into(cls, res, hit, args):
    """dispatch's result for `hit` = (k, buffer) from buffer_for: a new tensor over args[k]'s
    buffer, which the kernel wrote."""
    k, buf = hit
    if res is not buf:
        buf[...] = res
    return result(cls, buf, args[k])


def fits_shape(xd, yd):
    """Whether x op y has x's shape (y broadcasts into x)."""
    n = yd.ndim
    if n > xd.ndim:
        return False
    if n == 0:
        return True
    for a, b in zip(xd.shape[-n:], yd.shape):
        if b != a and b != 1:
            return False
    return True


# --------------------------------------------------------------------------- the switch
def set_flags(flags):
    """Paddle's `paddle.set_flags`: set runtime flags from a dict. The flag oar acts on:
    FLAGS_eager_elision (bool, default True; env OAR_ELISION=0 starts with it off): whether
    out-of-place ops may reuse the memory of operands nobody can see any more (Note
    [Temporary elision]). Paddle's other FLAGS_* names are kept and read back by get_flags
    but change nothing here (they tune Paddle's kernels and allocator); a name that is not a
    flag raises ValueError, as Paddle's does."""
    global ENABLED
    if not isinstance(flags, dict):
        raise TypeError(f"flags in set_flags should be a dict, got {type(flags).__name__}")
    for name in flags:
        if not isinstance(name, str) or not name.startswith("FLAGS_"):
            raise ValueError(f"Flag {name} cannot set its value through this function "
                             "(flag names start with 'FLAGS_').")
    for name, value in flags.items():
        if name == "FLAGS_eager_elision":
            ENABLED = bool(value) and _CALL_DEAD > 0
        else:
            _OTHER_FLAGS[name] = value


def get_flags(flags):
    """Paddle's `paddle.get_flags`: {name: value} for a flag name or a list/tuple of them;
    a name never set (other than oar's own flags) raises ValueError, as Paddle's unknown
    flags do."""
    if isinstance(flags, str):
        names = [flags]
    elif isinstance(flags, (list, tuple)):
        names = list(flags)
    else:
        raise TypeError(f"Flags in get_flags should be a list, tuple or string, got "
                        f"{type(flags).__name__}")
    out = {}
    for name in names:
        if name == "FLAGS_eager_elision":
            out[name] = ENABLED
        elif name in _OTHER_FLAGS:
            out[name] = _OTHER_FLAGS[name]
        else:
            raise ValueError(f"Flag {name} cannot get its value through this function "
                             f"(oar's flags: {', '.join(_FLAGS)}, and those set_flags set).")
    return out


_OTHER_FLAGS: dict = {}
_FLAGS = ("FLAGS_eager_elision",)


# --------------------------------------------------------------------------- calibration
def _measure(t):
    """What `dead` sees, for a probe shaped like a spelling (same frame depths)."""
    f = _getframe(2)
    return _getrefcount(t), f.f_code.co_code[f.f_lasti]


class _Probe:
    def __mul__(self, y, name=None, out=None):
        return _measure(self)

    def method(self, name=None, out=None):
        return _measure(self)


def _probe_local():
    t = _Probe()
    return _getrefcount(t)   # the form of nn.Sequential's test (Note [Donated activations])


def _probe_counts():
    op_temp, op_code = _Probe() * 2
    call_temp, call_code = _Probe().method()
    p = _Probe()
    op_named, _ = p * 2
    call_named, _ = p.method()
    return op_temp, op_code, call_temp, call_code, op_named, call_named


def _calibrate():
    """Condition 1: the counts of a temporary per entry path, measured on this interpreter;
    elision stays off unless they look as Note [Temporary elision] expects."""
    global _CALL_DEAD, _OP_DEAD, _BINARY_OP, ENABLED, LOCAL_ONLY
    import dis
    try:
        op_temp, op_code, call_temp, call_code, op_named, call_named = _probe_counts()
        binary_op = dis.opmap["BINARY_OP"]
        local_only = _probe_local()
    except Exception:   # an interpreter unlike CPython 3.11-3.13
        ENABLED = False
        return
    if (sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
            and op_code == binary_op and call_code != binary_op
            and call_temp < call_named and op_temp < op_named and op_temp == call_temp + 1):
        _CALL_DEAD, _OP_DEAD, _BINARY_OP = call_temp, op_temp, binary_op
        LOCAL_ONLY = local_only
    else:
        ENABLED = False


_calibrate()

from . import registry as _R  # noqa: E402  (registry imports spellings, which import this)
