"""paddle.device: the current device (always the CPU) and memory accounting
(`oar.device.memory_allocated()` etc., counted by oar's own storages)."""
# Note [Only the CPU]
# oar runs on the CPU only. Where a program asks for another device (set_device("gpu"),
# CUDAPlace(0), t.cuda(), device="cuda") the call raises a ValueError that says so in one
# line -- never a tensor that silently stays on the CPU. Queries answer honestly:
# is_compiled_with_cuda() is False, cuda.device_count() is 0, get_device() is 'cpu'.
import re as _re

from . import _xp
from . import storage as _storage
from .place import CPU as _CPU
from .place import Place as _Place
from .place import _no_device
from .storage import max_memory_allocated, memory_allocated, reset_max_memory_allocated  # noqa: F401
from .storage import empty_cache, memory_reserved, reset_peak_memory_stats  # noqa: F401

_DEVICE_FORMS = "'cpu', 'gpu', 'gpu:x', 'dcu', 'dcu:x', 'xpu', 'xpu:x', 'npu', 'npu:x'"
_ACCELERATORS = {"gpu": "CUDA", "dcu": "CUDA", "xpu": "XPU", "npu": "NPU"}


def get_device():
    """The current device: 'cpu', or 'gpu:N' after set_device('gpu') where a GPU backend
    exists (Note [Array module per place])."""
    p = _xp.DEFAULT[0]
    return "cpu" if p.kind == "cpu" else f"gpu:{p.index}"


def set_device(device):
    """Selects the device and returns its place: only 'cpu' exists in this build, so
    set_device('cpu') returns CPUPlace() and 'gpu', 'gpu:0', 'xpu'... raise a ValueError
    (Paddle's CPU build raises the same; Note [Only the CPU])."""
    from .autograd.errors import ArgValueError
    if isinstance(device, _Place):
        if device.kind == "cpu":
            _xp.DEFAULT[0] = _CPU
            return _CPU
        if device.kind == "gpu" and _xp.backend() is not None:
            return _set_gpu(device.index)
        raise _no_device(f"set_device({device!r})")
    if not isinstance(device, str):
        raise ArgValueError(f"set_device(): The device must be a string which is like "
                            f"{_DEVICE_FORMS}, got {type(device).__name__} {device!r:.40}")
    name = device.strip().lower()
    if name == "cpu":
        _xp.DEFAULT[0] = _CPU
        return _CPU
    m = _re.fullmatch(r"(gpu|dcu|xpu|npu)(:\d+)?", name)
    if m is None:
        raise ArgValueError(f"set_device(): The device must be a string which is like "
                            f"{_DEVICE_FORMS}, got {device!r}")
    if m.group(1) == "gpu" and _xp.backend() is not None:
        return _set_gpu(int(m.group(2)[1:]) if m.group(2) else 0)
    raise _no_device(f"set_device({device!r}): The device should not be {device!r}, since oar "
                     f"is not compiled with {_ACCELERATORS[m.group(1)]}", "set_device('cpu')")


def _set_gpu(index):
    """set_device('gpu:N'): new tensors are made on that GPU from now on."""
    from .place import CUDAPlace
    place = CUDAPlace(index)
    _xp.DEFAULT[0] = place
    return place


def is_compiled_with_cuda():
    """Whether oar can run on a CUDA GPU here: True where CuPy finds a device (or under the
    test-only fake device), else False."""
    return _xp.backend() is not None


def is_compiled_with_xpu():
    """False: this build runs on the CPU only."""
    return False


def is_compiled_with_rocm():
    """False: this build runs on the CPU only."""
    return False


def get_all_device_type():
    """The custom device types available: none (Paddle's CPU build returns [] too)."""
    return []


def _gpu_place(device):
    """The GPU a paddle.device.cuda counter speaks of: None (the CPU's counters) without a
    backend; else the current GPU or the one named ('gpu:0', 0, a CUDAPlace)."""
    b = _xp.backend()
    if b is None:
        return None
    if device is None:
        return b.place
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"gpu:{device}"
    from .ops.args import device as parse
    return parse(device, "paddle.device.cuda")


class cuda:  # noqa: N801  (namespace like paddle.device.cuda)
    """paddle.device.cuda-style namespace: the GPU's memory counters (oar's accounting per
    place) where a GPU backend exists; without one the CPU's counters and no devices."""

    @staticmethod
    def memory_allocated(device=None):
        """Bytes held by live tensors on the GPU (without one: on the CPU)."""
        return _storage.memory_allocated(_gpu_place(device))

    @staticmethod
    def max_memory_allocated(device=None):
        """Peak bytes held by live tensors on the GPU since the last reset."""
        return _storage.max_memory_allocated(_gpu_place(device))

    @staticmethod
    def memory_reserved(device=None):
        """Bytes of live tensors plus what the allocator keeps cached, on the GPU."""
        return _storage.memory_reserved(_gpu_place(device))

    @staticmethod
    def max_memory_reserved(device=None):
        """memory_reserved() (oar keeps no separate peak of it)."""
        return _storage.memory_reserved(_gpu_place(device))

    @staticmethod
    def reset_max_memory_allocated(device=None):
        """Resets the GPU's peak to the bytes held now."""
        _storage.reset_max_memory_allocated(_gpu_place(device))

    @staticmethod
    def device_count():
        """The number of CUDA devices (0 without a GPU backend)."""
        b = _xp.backend()
        return 0 if b is None else b.count

    @staticmethod
    def synchronize(device=None):
        """Waits for the GPU's queued kernels (nothing to wait for without one)."""
        b = _xp.backend()
        if b is not None and b.name == "cupy":
            b.xp.cuda.Device().synchronize()

    @staticmethod
    def empty_cache():
        """Releases cached GPU memory (CuPy's pool's free blocks); nothing without a GPU."""
        b = _xp.backend()
        if b is not None and b.name == "cupy":
            b.xp.get_default_memory_pool().free_all_blocks()
        return None


# --------------------------------------------------------------------------- memory timeline
# Note [Memory timeline]
# memory_timeline() records, per op, memory_allocated() after it, the highest value while it
# ran, its name, phase and nn layer, and the bytes held by tensors saved for backward. While
# no timeline records, the hooks cost one `is not None` test each (about 10 ns, next to
# microseconds per op), at points that exist anyway --
#   storage.py   `_trace`: every allocation and free (new_storage, Storage.__del__) calls
#                _trace.alloc(storage) / _trace.free(storage); this was already the test of
#                start_trace(), so storages pay nothing more; a result that took over a dead
#                operand's memory calls _trace.elide(storage) instead (Note [Temporary
#                elision]): no byte changes, the entry's `elided` counts them;
#   registry.py  `_TIMELINE`: a forward op ends (dispatch, dispatch_inplace);
#   engine.py    `_TIMELINE`: a backward begins and ends, and a node has run.
# Attribution. In backward, everything between two nodes belongs to the later node (its
# formula, the saved tensors it releases, the gradient routing before it); an op recorded
# with grad mode on inside a backward (checkpointing's recomputation) is an entry of phase
# "recompute". In forward, an allocation made inside registry.dispatch belongs to that op
# (found by the code objects on the stack); other allocations (fast paths under no_grad,
# hand-written kernels) form a group named after the innermost oar method or function that
# made them (`LeakyReLU.forward`, `dropout`); a free outside any op joins the open entry,
# or the next one. Everything an oar optimizer does inside one call (step, clear_grad) is
# one entry of phase "optimizer", and every such call makes its entry even when it allocates
# nothing and runs no op (a warm Adam step updates its buffers in place): the optimizer
# base class wraps each step / clear_grad / zero_grad a class defines in `optimizer_call`,
# which opens the entry when the outermost call begins and closes it when that call ends
# (a call from inside another, super().step(), is part of it; frees left over from before
# it, such as the loss, join it). The layer is the innermost nn layer whose forward is on
# the stack ('BatchNorm2D#2': the second BatchNorm2D seen); a backward node gets its forward
# op's layer. Its `self` is read through frame.f_locals, a snapshot the frame keeps alive
# until it ends, which would keep a reassigned local's tensor alive: it is emptied after
# the read (_self_of).
# Saved bytes. Every node made while recording (and, when backward begins, every node of
# the graph) is kept by weak reference; after each entry the storages that their saved
# tensors hold are summed, each storage once (a view holds its whole storage). A tensor a
# saved-tensor hook packed counts when pack_hook returned a tensor; a checkpointed segment
# (Note [Checkpoint]) counts its inputs and, between recomputation and use, the recomputed
# tensors. They are sampled after each op: a tensor made and dropped inside one op (a
# backward's temporaries) shows in `peak`, not in `saved`.
# The recorder keeps no strong reference to any storage or tensor, so recording changes no
# byte it counts: `entry.allocated` after the last entry equals memory_allocated(), and the
# highest `entry.peak` equals max_memory_allocated() had it been reset when recording began
# (tests/test_memory_timeline.py). The accounting is global: allocations of every thread
# are recorded. Recording costs time (the stack is walked per allocation).
# Places. A timeline records one place (memory_timeline(device=...); the CPU by default):
# storage.py tells `_trace` of every storage, and the recorder keeps those of its place, reads
# that place's memory_allocated(device) and sums the saved storages on it; the timeline's
# `place` names it (Note [Array module per place]). A step on a GPU has two timelines to
# show: its device's, and the CPU's (which then holds only what stayed on the host).
import functools as _functools
import inspect as _inspect
import sys as _sys
import weakref as _weakref

import numpy as _np
from typing import NamedTuple as _NamedTuple

from . import storage as _storage


class SavedInfo(_NamedTuple):
    """One tensor held for backward. node: the node that saved it ('MulBackward0'), or
    'checkpoint' for the input of a checkpointed segment and 'recomputed' for a tensor its
    recomputation made that backward has not used yet; layer: the nn layer whose forward
    saved it ('BatchNorm2D#2'; None when unknown or outside a memory timeline); shape and
    dtype of the saved tensor; nbytes: the bytes of the storage it keeps alive; created:
    whether that storage was created while the timeline recorded (an activation) rather
    than before (a parameter, the input); counted: whether its bytes are counted here -- a
    storage that several nodes save (a layer's output that the next layer saves as its
    input) is counted once, at its first saver in forward order."""
    node: str
    layer: object
    shape: tuple
    dtype: str
    nbytes: int
    created: bool
    counted: bool


class TimelineEntry(_NamedTuple):
    """One op of a memory timeline (Note [Memory timeline]).

    index: position in the timeline; name: the op ('conv2d'), backward node
    ('ConvolutionBackward0') or optimizer step ('Adam.step'); phase: 'forward', 'backward' or
    'optimizer'; layer: the nn layer whose forward ran the op (backward nodes: the layer of
    their forward op), e.g. 'BatchNorm2D#2', or None; allocated: memory_allocated() after the
    op; peak: the highest memory_allocated() while it ran; saved: bytes of the storages that
    tensors saved for backward hold after the op (each storage once); saved_created: the part
    of `saved` created while recording (activations; parameters and inputs that existed
    before are the rest); saved_tensors: a SavedInfo per saved tensor; elided: bytes of the
    results in this entry written into a dead operand's memory instead of new memory
    (Note [Temporary elision]: allocations that did not happen)."""
    index: int
    name: str
    phase: str
    layer: object
    allocated: int
    peak: int
    saved: int
    saved_created: int
    saved_tensors: tuple
    elided: int = 0


class MemoryTimeline:
    """What memory_timeline() recorded: a sequence of TimelineEntry, one per op.

    start: memory_allocated() when recording began; peak: the highest memory_allocated()
    while it recorded; entries: the list of TimelineEntry. `peak_entry()` is the op during
    which the peak was reached, `boundary()` the index of the first backward entry,
    `table()` a printable table."""

    def __init__(self, place=_CPU):
        self.entries = []
        self.start = 0
        self.peak = 0
        self.recording = False
        self.place = place   # whose memory_allocated() it records

    def __len__(self):
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def __getitem__(self, i):
        return self.entries[i]

    def peak_entry(self):
        """The entry during which memory_allocated() was highest (the first such), or None
        when nothing was recorded."""
        best = None
        for e in self.entries:
            if best is None or e.peak > best.peak:
                best = e
        return best

    def boundary(self):
        """The index of the first backward entry (the forward/backward boundary), or None
        when no backward ran while recording."""
        for e in self.entries:
            if e.phase == "backward":
                return e.index
        return None

    def table(self, unit=1024):
        """The timeline as text: one line per op with memory above the start (KiB by
        default), the peak while it ran and the bytes held for backward."""
        u = {1: "B", 1024: "KiB", 1024 ** 2: "MiB"}.get(unit, f"x{unit} B")
        lines = [f"{'#':>4} {'phase':9} {'op':28} {'layer':16} {'live':>10} {'peak':>10} "
                 f"{'saved':>10}   ({u}, above {self.start / unit:.1f} {u} at start)"]
        for e in self.entries:
            lines.append(f"{e.index:>4} {e.phase:9} {e.name[:28]:28} {str(e.layer or '')[:16]:16} "
                         f"{(e.allocated - self.start) / unit:>10.1f} "
                         f"{(e.peak - self.start) / unit:>10.1f} {e.saved / unit:>10.1f}")
        return "\n".join(lines)

    def __repr__(self):
        state = "recording" if self.recording else "done"
        where = "" if self.place.kind == "cpu" else f"{self.place!r}, "
        return (f"MemoryTimeline({where}{len(self.entries)} entries, start={self.start}, "
                f"peak={self.peak}, {state})")


class MemorySnapshot(_NamedTuple):
    """memory_snapshot(): the accounting now. allocated, max_allocated, reserved as
    memory_allocated() etc.; saved: bytes of the storages held by tensors saved for backward
    in the graphs behind the tensors given (each storage once); saved_tensors: a SavedInfo
    per saved tensor."""
    allocated: int
    max_allocated: int
    reserved: int
    saved: int
    saved_tensors: tuple


def _held(node, out):
    """Append (storage, shape, dtype, what) for every tensor `node` holds for backward: an
    op's saved inputs and output, a custom Function's save_for_backward, the op inside a
    CopySlices (what: None, or 'checkpoint' / 'recomputed')."""
    for attr in ("saved", "out_saved", "ctx", "fn"):
        v = getattr(node, attr, None)
        if v is None:
            continue
        if attr == "ctx":
            v = getattr(v, "_saved", ())
        if attr == "fn":
            if hasattr(v, "next_edges"):
                _held(v, out)
            continue
        for s in (v if isinstance(v, (list, tuple)) else (v,)):
            _held_one(s, out)


def _held_one(s, out, what=None):
    from .autograd.saved import SavedTensor
    from .tensor import Tensor
    if isinstance(s, SavedTensor):
        if s.storage is None:
            # packed by a saved-tensor hook (Note [Saved tensor hooks]): what pack_hook
            # returned is held; a tensor (or tensors in a tuple) holds its storage
            packed, unpack = s.tensor[:2] if isinstance(s.tensor, tuple) else (None, None)
            for p in (packed if isinstance(packed, (tuple, list)) else (packed,)):
                if isinstance(p, Tensor):
                    out.append((p._storage, p._data.shape, p._data.dtype, what))
            # a checkpointed segment (Note [Checkpoint]) packs a holder: what it keeps for
            # backward is its inputs and, once recomputed, the holder's tensor
            frame = getattr(unpack, "__self__", None)
            for a in getattr(frame, "saved_args", ()):
                if isinstance(a, SavedTensor):
                    _held_one(a, out, "checkpoint")
            recomputed = getattr(frame, "recomputed", None)
            if recomputed is not None and packed is not None:
                try:
                    got = recomputed.get(packed)
                except TypeError:
                    got = None
                if got is not None and isinstance(got[0], Tensor):
                    t = got[0]
                    out.append((t._storage, t._data.shape, t._data.dtype, "recomputed"))
            return
        arr = s.array if s.tensor is None else s.tensor._data
        if arr is not None:
            out.append((s.storage, arr.shape, arr.dtype, what))
    elif isinstance(s, Tensor):
        out.append((s._storage, s._data.shape, s._data.dtype, what))


def _graph_nodes(roots, known=None):
    """Every node reachable from `roots` (nodes) that `known` does not hold yet."""
    found = []
    seen = set() if known is None else None
    stack = [n for n in roots if n is not None]
    while stack:
        n = stack.pop()
        if known is not None:
            if n in known:
                continue
            known.add(n)
        else:
            if id(n) in seen:
                continue
            seen.add(id(n))
        found.append(n)
        for e in getattr(n, "next_edges", ()):
            if e is not None:
                stack.append(e[0])
        inner = getattr(n, "fn", None)      # CopySlices: the op it wraps
        if inner is not None and hasattr(inner, "next_edges"):
            stack.append(inner)
    return found


def _saved_of(nodes, created=None, layer_of=None, place=None):
    """(bytes held for backward, bytes of those created while recording, SavedInfo tuple),
    the nodes taken in forward order; with a place, only the storages on it."""
    held = []
    for n in sorted(nodes, key=lambda n: getattr(n, "seq", 0)):
        before = len(held)
        _held(n, held)
        if len(held) > before:
            name = str(getattr(n, "name", type(n).__name__))
            layer = layer_of.get(n) if layer_of is not None else None
            held[before:] = [(st, shape, dt, what or name, layer if what is None else None)
                             for st, shape, dt, what in held[before:]]
    total = made = 0
    counted = set()
    out = []
    for st, shape, dt, name, layer in held:
        if place is not None and _xp.place_of(st.buffer) != place:
            continue
        is_new = created is not None and id(st) in created
        first = id(st) not in counted
        if first:
            counted.add(id(st))
            total += st.nbytes
            if is_new:
                made += st.nbytes
        out.append(SavedInfo(name, layer, tuple(int(d) for d in shape), str(dt), st.nbytes,
                             is_new, first))
    return total, made, tuple(out)


def memory_snapshot(*tensors):
    """The memory accounting now: memory_allocated(), max_memory_allocated(),
    memory_reserved() and, for the graphs behind `tensors` (e.g. the loss before
    backward), the bytes held by tensors saved for backward and which tensors those are
    (Note [Memory timeline]).

    >>> snap = oar.device.memory_snapshot(loss)
    >>> snap.saved, [(s.node, s.shape) for s in snap.saved_tensors]"""
    from .tensor import Tensor
    roots = []
    for t in tensors:
        if not isinstance(t, Tensor):
            from .autograd.errors import ArgTypeError
            raise ArgTypeError(f"memory_snapshot(): expected tensors (the outputs whose graph "
                               f"to inspect), got {type(t).__name__}")
        fn = t._grad_fn
        if fn is None and t._view is not None:   # a view's history is its base's
            fn = t._base._grad_fn
        roots.append(fn)
    saved, _, infos = _saved_of(_graph_nodes(roots))
    return MemorySnapshot(_storage._allocated, _storage._peak, _storage.memory_reserved(),
                          saved, infos)


_CO_OPTIMIZED = _inspect.CO_OPTIMIZED
_PKG_DIR = __file__.rsplit("/", 1)[0] + "/"
_CORE = tuple(_PKG_DIR + p for p in ("ops/", "autograd/", "tensor.py", "storage.py", "device.py"))
_DRIVERS = tuple(_PKG_DIR + p for p in ("train.py", "__main__.py", "tour.py"))
_OPTIM = tuple(_PKG_DIR + p for p in ("optimizer/", "torch/optim/"))


def _timeline_place(device):
    """The Place a memory_timeline(device=...) records: None is the CPU; 'gpu', 'cuda:0',
    a Place or a torch.device name a device (refused without a backend)."""
    if device is None:
        return _CPU
    if isinstance(device, _Place):
        p = device
    else:
        from .ops.args import device as parse
        p = parse(str(device) if not isinstance(device, str) else device, "memory_timeline")
    if p.kind != "cpu" and (_xp.backend() is None or p != _xp.backend().place):
        raise _no_device(f"memory_timeline(device={device!r})")
    return p


class _Recorder:
    """The object behind memory_timeline() while it records (Note [Memory timeline]).

    `open` is the entry being filled: [key, name, phase, layer, peak]. key ("op",): inside
    a forward op (named when it ends), ("bwd",): inside a backward (named by the next
    node), ("opt", frame id): one optimizer step, ("grp", label): allocations outside ops,
    None: only frees so far (the next entry adopts them)."""

    def __init__(self, timeline):
        from .autograd import engine, grad_mode
        from .ops import registry
        self.tl = timeline
        # Note [Memory timeline]: the place whose bytes it records, and its counters
        self.place = timeline.place
        self.ctr = None if timeline.place.kind == "cpu" else _storage._counters(timeline.place)
        self.created = set()            # ids of the storages allocated while recording
        self.nodes = _weakref.WeakSet()
        self.layer_of = _weakref.WeakKeyDictionary()     # node -> layer label
        self.layer_names = {}           # id(layer) -> 'Type#k'
        self.layer_refs = []            # keeps those layers' ids unique while recording
        self.backward = 0               # depth of run_backward calls
        self.opt_depth = 0              # depth of optimizer_call calls
        self.opt_key = None             # the key of the optimizer entry they fill
        self.opt_name = None            # its name ('Adam.step')
        self.create_graph = False
        self.open = None
        self.busy = False
        self.elided = 0                 # bytes elided since the last entry
        self.grad = grad_mode.STATE
        self.dispatch_codes = frozenset((registry.dispatch.__code__,
                                         registry.dispatch_inplace.__code__))
        self.modules = (_storage, registry, engine)

    # ---- hooks (storage.py, registry.py, engine.py)
    def _now(self):
        """memory_allocated() of the recorded place."""
        return _storage._allocated if self.ctr is None else self.ctr[0]

    def _other(self, s):
        """True for a storage of another place than the recorded one."""
        c = s.buffer.__class__
        if c is _np.ndarray or c not in _xp._PLACES:
            return self.ctr is not None
        return _xp.place_of(s.buffer) != self.place

    def alloc(self, s):
        if self._other(s):
            return
        n = self._now()
        self.created.add(id(s))
        if n > self.tl.peak:
            self.tl.peak = n
        self._event(n, n - s.nbytes, True)

    def elide(self, s):
        """A result took over a dead operand's memory (storage.reuse_storage): no byte
        changes; the bytes count in the entry's `elided`."""
        if self._other(s):
            return
        self.created.add(id(s))
        self.elided += s.nbytes

    def free(self, s):
        if self._other(s):
            return
        n = self._now()
        self.created.discard(id(s))
        self._event(n, n + s.nbytes, False)

    def op(self, name, out):
        """A forward op ended; `out` is its result (a tensor or a tuple of them)."""
        if self.busy:
            return
        if self.backward and (not self.grad.enabled or self.create_graph):
            return      # a backward formula's own op: part of its node's entry
        self.busy = True
        try:
            if self.opt_key is not None:        # inside optimizer_call: its entry
                self._extend(self.opt_key, self.opt_name, "optimizer", None)
                return
            opt, layer = self._where()
            if opt is not None:                 # inside an optimizer step: one entry per step
                self._extend(("opt", id(opt)), _qual(opt), "optimizer", None)
                return
            t = out[0] if isinstance(out, tuple) else out
            fn = getattr(t, "_grad_fn", None)
            if fn is None and getattr(t, "_view", None) is not None:
                fn = t._base._grad_fn
            if fn is not None:
                for node in _graph_nodes([fn], self.nodes):
                    if layer is not None:
                        self.layer_of[node] = layer
            now = self._now()
            o = self.open
            if o is not None and o[0] not in (None, ("op",), ("bwd",)):
                self._close(o, None)
                o = None
            self.open = None
            # in a backward with grad mode on: a forward op run again (checkpointing)
            phase = "recompute" if self.backward else "forward"
            self._add(name, phase, layer, now, now if o is None else max(o[4], now))
        finally:
            self.busy = False

    def optimizer_begins(self, opt, method):
        """An optimizer's step / clear_grad begins (Note [Memory timeline]): the outermost
        call opens its entry, so that it has one even when nothing is allocated."""
        self.opt_depth += 1
        if self.opt_depth > 1 or self.backward or self.busy:
            return      # inside a step, or a step inside a backward (its node owns it)
        self.busy = True
        try:
            o = self.open
            if o is not None and o[0] is not None:
                self._close(o, None)
            self.opt_key = ("opt", id(opt), len(self.tl.entries))
            self.opt_name = f"{type(opt).__name__}.{method}"
            self._extend(self.opt_key, self.opt_name, "optimizer", None)
        finally:
            self.busy = False

    def optimizer_ends(self):
        self.opt_depth -= 1
        if self.opt_depth or self.opt_key is None:
            return
        key, self.opt_key = self.opt_key, None
        o = self.open
        if o is not None and o[0] == key:
            self.busy = True
            try:
                self._close(o, None)
            finally:
                self.busy = False

    def backward_begins(self, roots):
        if self.busy:
            return
        self.busy = True
        try:
            if self.backward == 0:
                if self.open is not None:
                    self._close(self.open, None)
                self.create_graph = self.grad.enabled   # the engine has set it to create_graph
            self.backward += 1
            _graph_nodes(roots, self.nodes)
        finally:
            self.busy = False

    def node(self, node):
        """A backward node has run: what happened since the previous one is its entry."""
        if self.busy:
            return
        self.busy = True
        try:
            o = self.open
            now = self._now()
            self.open = None
            self._add(str(node.name), "backward", self.layer_of.get(node), now,
                      now if o is None else max(o[4], now))
        finally:
            self.busy = False

    def backward_ends(self):
        if self.busy:
            return
        self.backward -= 1
        if self.backward == 0 and self.open is not None:
            self.busy = True
            try:
                self._close(self.open, None, "(end of backward)")
            finally:
                self.busy = False

    # ---- bookkeeping
    def _event(self, n, before, is_alloc):
        o = self.open
        if self.busy:                       # a free during our own bookkeeping (gc)
            if o is not None and n > o[4]:
                o[4] = n
            return
        self.busy = True
        try:
            if self.backward:
                key, name, phase, layer = ("bwd",), None, "backward", None
            else:
                key, name, phase, layer = self._classify()
                if not is_alloc and key[0] == "grp":
                    # a free outside any op (a temporary dropped as a function returns):
                    # part of the open entry, or of the next one
                    if o is None:
                        last = self.tl.entries[-1].phase if self.tl.entries else "forward"
                        self.open = [None, None, last, None, before]
                    return
            if o is not None and o[0] != key:
                if o[0] is None:             # adopt the frees before it
                    o[0], o[1], o[2], o[3] = key, name, phase, layer
                else:
                    self._close(o, before)
                    o = None
            if o is None:
                self.open = o = [key, name, phase, layer, before]
            if n > o[4]:
                o[4] = n
        finally:
            self.busy = False

    def _extend(self, key, name, phase, layer):
        o = self.open
        if o is not None and o[0] != key:
            if o[0] is None:
                o[0], o[1], o[2], o[3] = key, name, phase, layer
            else:
                self._close(o, None)
                o = None
        if o is None:
            self.open = [key, name, phase, layer, self._now()]

    def _close(self, o, allocated, default=None):
        """The open entry becomes an entry (allocated: the bytes after it; None: now)."""
        self.open = None
        n = self._now() if allocated is None else allocated
        name = o[1] or default or ("(end of backward)" if o[2] == "backward" else "(release)")
        self._add(name, o[2], o[3], n, max(o[4], n))

    def _add(self, name, phase, layer, allocated, peak):
        saved, made, infos = _saved_of(list(self.nodes), self.created, self.layer_of, self.place)
        tl = self.tl
        elided, self.elided = self.elided, 0
        tl.entries.append(TimelineEntry(len(tl.entries), name, phase, layer, allocated, peak,
                                        saved, made, infos, elided))

    def _classify(self):
        """(key, name, phase, layer) of an allocation or free made outside a backward."""
        if self.opt_key is not None:            # inside optimizer_call: its entry
            return self.opt_key, self.opt_name, "optimizer", None
        f = _sys._getframe(3)
        in_op = False
        opt = None
        label = None
        outer = None
        while f is not None:
            code = f.f_code
            if code in self.dispatch_codes:
                in_op = True
            fn = code.co_filename
            if fn.startswith(_PKG_DIR):
                if fn.startswith(_OPTIM):
                    opt = f
                elif label is None and not fn.startswith(_CORE) and not fn.startswith(_DRIVERS):
                    label = f
                if not fn.startswith(_DRIVERS):
                    outer = f
            f = f.f_back
        if opt is not None:
            return ("opt", id(opt)), _qual(opt), "optimizer", None
        layer = self._layer_label()
        if in_op:
            return ("op",), None, "forward", layer
        f = label or outer
        name = _qual(f) if f is not None else "(other)"
        return ("grp", name, layer), name, "forward", layer

    def _where(self):
        """(the outermost optimizer frame or None, the current layer label or None)."""
        f = _sys._getframe(2)
        opt = None
        while f is not None:
            if f.f_code.co_filename.startswith(_OPTIM):
                opt = f
            f = f.f_back
        return opt, (None if opt is not None else self._layer_label())

    def _layer_label(self):
        """'Type#k' of the innermost nn layer whose forward is running, or None."""
        f = _sys._getframe(2)
        while f is not None:
            code = f.f_code
            if code.co_name == "forward" and code.co_argcount:
                layer = _self_of(f)
                if layer is not None and hasattr(layer, "_sub_layers"):
                    key = id(layer)
                    name = self.layer_names.get(key)
                    if name is None:
                        kind = type(layer).__name__
                        k = sum(1 for v in self.layer_names.values()
                                if v.rsplit("#", 1)[0] == kind) + 1
                        name = self.layer_names[key] = f"{kind}#{k}"
                        self.layer_refs.append(layer)
                    return name
            f = f.f_back
        return None

    # ---- install / remove
    def install(self):
        global _RECORDER
        st, registry, engine = self.modules
        if st._trace is not None or registry._TIMELINE is not None:
            raise RuntimeError("memory_timeline(): a memory timeline (or start_trace()) is "
                               "already recording; timelines do not nest. Fix: record one "
                               "timeline at a time")
        self.tl.start = self.tl.peak = self._now()
        st._trace = registry._TIMELINE = engine._TIMELINE = self
        _RECORDER = self
        self.tl.recording = True

    def remove(self):
        global _RECORDER
        if self.open is not None:
            self.busy = True
            self._close(self.open, None)
            self.busy = False
        st, registry, engine = self.modules
        st._trace = registry._TIMELINE = engine._TIMELINE = None
        _RECORDER = None
        self.tl.recording = False
        self.layer_refs = []


_RECORDER = None      # the _Recorder while a memory timeline records


def optimizer_call(func):
    """`func` (an optimizer's step, clear_grad or zero_grad) making one timeline entry per
    call while a memory timeline records (Note [Memory timeline]); otherwise one test."""
    @_functools.wraps(func)
    def call(self, *args, **kwargs):
        rec = _RECORDER
        if rec is None:
            return func(self, *args, **kwargs)
        rec.optimizer_begins(self, func.__name__)
        try:
            return func(self, *args, **kwargs)
        finally:
            rec.optimizer_ends()
    # no __wrapped__: oar.jit recognises Adam.step by identity through one wrapper (torch's
    # step hooks, Note [Torch optimizer hooks]); the signature is func's all the same
    del call.__wrapped__
    call.__signature__ = _inspect.signature(func)
    call.timeline_unit = True
    return call


def _self_of(frame):
    """The first argument of a running function's frame (`self` of a method), or None.
    frame.f_locals is a snapshot dict that the frame keeps until it ends: it would keep
    tensors alive that the function has already dropped (a Sequential's previous x), so it
    is emptied after the read. Only a function's snapshot is emptied (module and class
    frames' f_locals are their real namespaces); a tracer (pdb) refreshes it from the frame
    before every use, so emptying loses nothing."""
    code = frame.f_code
    if not code.co_flags & _CO_OPTIMIZED or not code.co_argcount:
        return None
    d = frame.f_locals
    try:
        return d.get(code.co_varnames[0])
    finally:
        d.clear()


def _qual(frame):
    """'Adam.step', 'LeakyReLU.forward' (the class of `self`), or the function's name."""
    code = frame.f_code
    me = _self_of(frame) if "." in code.co_qualname else None
    if me is not None:
        return f"{type(me).__name__}.{code.co_name}"
    return code.co_qualname


class memory_timeline:  # noqa: N801  (used as a function: `with memory_timeline() as tl`)
    """Record, per op, the memory accounting until the block ends (Note [Memory timeline]):

        with oar.device.memory_timeline() as tl:
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        print(tl.table())
        tl.peak_entry()      # TimelineEntry(name='ConvolutionBackward0', phase='backward', ...)

    Each entry holds the op's name and phase ('forward', 'backward', 'optimizer'), the
    nn layer that ran it, memory_allocated() after it, the highest value while it ran,
    and the bytes held by tensors saved for backward. Recording costs time (the stack is
    inspected per allocation), never bytes; one timeline records at a time.

    device: the place whose memory it records (None: the CPU; 'gpu', 'cuda', a Place),
    counted by that place's memory_allocated(device); the timeline's `place` says which."""

    def __init__(self, device=None):
        self.timeline = MemoryTimeline(_timeline_place(device))
        self._rec = None

    def __enter__(self):
        self._rec = _Recorder(self.timeline)
        self._rec.install()
        return self.timeline

    def __exit__(self, *exc):
        self._rec.remove()
        self._rec = None
        return False
