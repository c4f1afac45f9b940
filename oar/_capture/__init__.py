"""Capture a step once, replay it as a flat list of NumPy calls (oar.jit.capture)."""

# Note [Capture and replay]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# A captured function runs eagerly on its first call with a given guard key (warm-up: lazy
# optimizer state is made), then eagerly twice more while a _Recorder listens (recordings A
# and B), and is replayed from then on when A and B agree. The recorder is one module
# variable, `_RECORDER`, in ops/registry.py, autograd/engine.py, tensor.py and ops/random.py;
# every hook is `if _RECORDER is not None:` so eager code pays one test. Recorded are the
# kernel calls themselves, with the NumPy arrays they read and write:
#   - registry.dispatch (a new result), dispatch_inplace, dispatch_out: the op's kernel;
#   - engine._sum (gradients summed in place) and Tensor._accumulate_grad (.grad made,
#     kept or accumulated): the NumPy call, and "set p.grad" steps;
#   - the random draws of oar's generator (ops/random.generator() hands out a recording
#     proxy, whose draws are replayed as fresh draws from the live generator, and whose
#     arrays trace the NumPy ufuncs applied to them: dropout's mask);
#   - an optimizer's step() and clear_grad()/zero_grad() as one unit each: the replay calls
#     the real method (it reads lr, the step count and the .grad arrays at replay time;
#     Adam's flat step is called past step()'s per-call Python: Note [Replay lowerings]).
# The spelling fast paths (ops/spellings.py) are switched off while recording by emptying
# tensor.FAST_CLASSES, so every op reaches dispatch; they compute the same values.
#
# Buffers are the root NumPy arrays the recorded arrays are views of. A root made before the
# recording (a parameter, optimizer state, running stats, a kept .grad) is external: the
# replay reads and writes it where it is, after checking each call that its tensors still
# hold the same arrays. A root made during the recording is produced by a step, or made by
# a creation function (oar.zeros, ones_like for backward's seed, to_tensor of a constant):
# its bytes are a constant, copied in where it was made. Any other root (NumPy computed
# outside the recorded kernels, e.g. conv2d's NumPy backward) makes the capture fail with a
# CaptureError naming where it was made: never a replay with a stale value. A root still
# alive after the call must be a returned tensor or a .grad; anything else fails too.
#
# Planning: the call's inputs are copied into private buffers; temporaries (dead when the
# call returns) get blocks of one pool, greedily by first use, a block going to a later
# temporary only after the last step that uses its previous one (no in-place aliasing
# inside a kernel). The pool and the input buffers are counted by oar's memory accounting
# (storage.memory_allocated) during each replay, as if they were allocated then.
#
# The replay bumps the version of every external storage by the number of in-place writes
# the recording made to it (checked at capture against the versions the eager call left),
# sets each .grad the recording set (a new tensor over the step's .grad buffer: the memory
# of .grad is reused by the next replay, like zero_grad(set_to_none=False)), and returns
# fresh copies of the returned tensors, detached (their graph was used inside the call).

# Note [Replay on a device]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# A step whose tensors live on a device (CuPy, or the test-only fake device: Note [Fake
# device]) is recorded and replayed as on the CPU, with the device's array module:
#   - storage.new_storage tells the recorder of device storages too (start_trace's list and
#     the memory timeline skip them: they count the CPU's bytes);
#   - a buffer's root is the array owning its memory, found by .base (through CuPy's arrays
#     too); its place is that of the arrays the steps touch over it (the fake device's
#     arrays are views of NumPy owners: NumPy collapses .base chains to the owner);
#   - Program._place_of takes the place of the buffers it plans (temporaries, outputs,
#     inputs), which must be one (else a CaptureError): the pool blocks and output buffers
#     are made with that place's module, and planned views and input slots are made with
#     _xp.buffer_view (np.ndarray over a device buffer would be a CPU array);
#   - constants are snapshotted with _xp.array and put on the place at planning, returned
#     tensors copied with _xp.array (on their place); an external CuPy array that does not
#     start and cover its allocation is refused (_pointer_view: a view CuPy made from a raw
#     pointer has no .base, and the replay could read memory its owner no longer holds);
#   - the replay's accounting moves the place's [allocated, peak] counters (_acct2_on,
#     Program._uncount), so memory_allocated(place) reads as eager's and the CPU's does not
#     move; the compiled forward's seeds of ones are made on the outputs' place.
# The CPU path runs the same code with NumPy's functions: `xp is np` at planning, and the
# replay's callables are the ones it always had. An in-place random op on a device tensor
# (the PyTorch door's dropout: bernoulli_) is replayed like any kernel and draws from the
# device's stream (Note [Random streams per place]); the Paddle door's dropout draws its
# mask on the host and moves it, which is not captured (a CaptureError naming dropout, or
# eager under torch.compile's default on_error).
from __future__ import annotations

import collections
import functools
import operator
import sys
import warnings

import numpy as np

import importlib

from .. import _xp
from ..autograd import engine as _E
from ..autograd import grad_mode
from ..ops import random as _random
from ..ops import registry as _R

_T = importlib.import_module("oar.tensor")    # `oar.tensor` the attribute is the function
_Tensor = _T.Tensor
_storage = importlib.import_module("oar.storage")
_HOOKED = (_R, _E, _T, _random)


class CaptureError(RuntimeError):
    """A function that oar.jit cannot capture (or whose capture would be wrong)."""


def _root(a):
    """The array owning a's memory, by .base (a device's arrays too: Note [Replay on a
    device])."""
    r = a
    places = _xp._PLACES
    while True:
        b = r.base
        if b is None or not (isinstance(b, np.ndarray) or b.__class__ in places):
            return r
        r = b


def _is_arr(a):
    """An array of any place (CuPy's is not an np.ndarray): Note [Replay on a device]."""
    return isinstance(a, np.ndarray) or a.__class__ in _xp._PLACES


def _ptr(a):
    if a.__class__ is np.ndarray:
        return a.__array_interface__["data"][0]
    return _xp.data_ptr(a)


def _pointer_view(r):
    """True for a CuPy array that does not start and cover its allocation: a view CuPy made
    from a raw pointer, whose .base does not lead to its owner (Note [Replay on a device]).
    CuPy's pool rounds an allocation up to 512 bytes."""
    d = getattr(r, "data", None)
    mem = getattr(d, "mem", None)
    if mem is None or not hasattr(d, "ptr"):
        return False   # NumPy's and the fake device's arrays (their .data is a buffer)
    return d.ptr != mem.ptr or r.nbytes + 512 <= mem.size


def _copy_c(a):
    """A C-ordered copy of a on its place (.grad made from a gradient it may not keep)."""
    return _xp.array(a, order="C", copy=True)


def _where():
    from ..autograd.saved import user_frame
    return user_frame()


_CREATION_FILES = ("creation.py",)
# data-independent values made outside ops/creation.py: backward's implicit ones
_CREATION_FUNCTIONS = {("_root_grad", "functional.py")}
# uninitialized memory (torch.empty_like for dropout's noise, filled by bernoulli_ next): no
# bytes to keep or compare; a replay leaves whatever its planned buffer holds there
_UNINITIALIZED = frozenset({"empty", "empty_like", "new_empty", "empty_strided"})
_EMPTY = "uninitialized"


def _creation_site():
    """(allowed, description) for an allocation: allowed when a creation function of
    ops/creation.py made it (oar.zeros, to_tensor of a constant, backward's ones_like)."""
    f = sys._getframe(2)
    desc = None
    depth = 0
    while f is not None and depth < 12:
        fn = f.f_code.co_filename
        name = f.f_code.co_name
        if fn.endswith(_CREATION_FILES) and "/oar/" in fn.replace("\\", "/"):
            return True, _EMPTY if _uninitialized(f) else None
        if (name, fn.rsplit("/", 1)[-1]) in _CREATION_FUNCTIONS:
            return True, None
        if desc is None and not fn.endswith(("storage.py", "tensor.py")):
            desc = f"{name} ({fn.rsplit('/', 1)[-1]}:{f.f_lineno})"
        f = f.f_back
        depth += 1
    return False, desc


def _uninitialized(f):
    """True when one of the few frames from f outward is oar's empty()/empty_like()."""
    for _ in range(4):
        if f is None:
            return False
        if f.f_code.co_name in _UNINITIALIZED and "/oar/" in f.f_code.co_filename.replace(
                "\\", "/"):
            return True
        f = f.f_back
    return False


class _Traced(np.ndarray):
    """An array drawn from the recording generator: NumPy ufuncs on traced arrays only are
    recorded (dropout's `(draw >= p).astype(dt) / (1 - p)`); mixed with other arrays they
    compute plainly (the op's own hook records them)."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kw):
        rec = _R._RECORDER
        plain = tuple(i.view(np.ndarray) if isinstance(i, _Traced) else i for i in inputs)
        outs = None
        if out is not None:
            outs = tuple(o.view(np.ndarray) if isinstance(o, _Traced) else o for o in out)
            kw["out"] = outs
        res = getattr(ufunc, method)(*plain, **kw)
        traced_only = all(isinstance(i, _Traced) or not isinstance(i, np.ndarray) for i in inputs)
        if rec is None or method != "__call__" or out is not None or not traced_only \
                or not isinstance(res, np.ndarray):
            if rec is not None and traced_only and method != "__call__":
                rec.fail(f"numpy.{ufunc.__name__}.{method} on a random draw")
            return res
        rec.raw(res)
        rec.step("w", ufunc, plain, {"out": res}, (res,))
        return res.view(_Traced)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        rec = _R._RECORDER
        src = self.view(np.ndarray)
        res = np.empty(src.shape, dtype)
        np.copyto(res, src, casting="unsafe")
        if rec is not None:
            rec.raw(res)
            rec.step("w", np.copyto, (res, src), {"casting": "unsafe"}, (res,))
        return res.view(_Traced)


class _RecordingRNG:
    """What ops/random.generator() returns while recording: random(shape) draws from the
    live generator and is replayed as a fresh draw (Note [Capture and replay])."""

    def __init__(self, rec, gen):
        self._rec = rec
        self._gen = gen

    def random(self, size=None, dtype=np.float64, out=None):
        if out is not None or np.dtype(dtype) != np.float64 or size is None:
            self._rec.fail("a random draw other than generator().random(shape)")
            return self._gen.random(size, dtype, out)
        res = np.empty(size, np.float64)
        self._gen.random(out=res)
        self._rec.raw(res)
        self._rec.step("rng", _draw, (res,), {}, (res,))
        return res.view(_Traced)

    def __getattr__(self, name):
        self._rec.fail(f"generator().{name} (only random() is recorded)")
        return getattr(self._gen, name)


def _plain_accumulate(p, g, owned):
    _T._RECORDER = None
    try:
        p._accumulate_grad(g, owned)
    finally:
        _T._RECORDER = _R._RECORDER


def _AccumulateGrad():
    from ..autograd.node import AccumulateGrad
    return AccumulateGrad


def _node_post_hooks(node):
    from ..autograd import node as _node
    return bool(_node._POST_HOOKS) and _node._POST_HOOKS.get(node)


def _plain_run_node(node, grads_in, token, retain_graph):
    _E._RECORDER = None
    try:
        return _E._run_node(node, grads_in, token, retain_graph)
    finally:
        _E._RECORDER = _R._RECORDER


class _FormulaSpec:
    """What replaying one backward formula needs: the op, its attrs and edges, and where
    its saved tensors and incoming gradient live (their arrays are the step's arguments)."""

    def __init__(self, node, g):
        from ..autograd.saved import SavedTensor
        self.op = node.op
        arrays = []
        attrs = []
        for a in node.attrs:   # an array attr (cross_entropy's labels) is a step argument
            if _is_arr(a):
                attrs.append(("A", None))
                arrays.append(a)
            elif isinstance(a, _T.Tensor):
                raise CaptureError(f"oar.jit cannot capture the backward of {node.name}: a "
                                   "tensor attribute")
            else:
                attrs.append(("v", a))
        self.attrs = tuple(attrs)
        # the replayed node needs only which inputs take a gradient, not the graph
        self.next_edges = tuple(None if e is None else (None, e[1]) for e in node.next_edges)
        self.input_meta = node.input_meta
        self.gcls = g.__class__
        layout = []
        for s in (node.saved or ()):
            if isinstance(s, SavedTensor):
                if s.storage is None:
                    raise CaptureError("oar.jit cannot capture saved-tensor hooks")
                t = s.tensor
                layout.append(("T", t.__class__))
                arrays.append(t._data)
            else:
                layout.append(("v", s))
        self.saved = None if node.saved is None else layout
        self.out = None
        if node.out_saved is not None:
            self.out = True
            arrays.append(node.out_saved.array)
        self.arrays = arrays
        self.result_idx = ()
        self.node = self.g = None   # built on the first replay (_formula)

    def key(self):
        """What two recordings of this formula must share."""
        return (id(self.op), _hashable(self.attrs), self.next_edges,
                tuple((m[0], m[1].str) if m is not None else None for m in self.input_meta),
                tuple((k, v if k == "T" else _hashable(v)) for k, v in (self.saved or ())),
                self.out, self.result_idx, self.gcls)

    def __repr__(self):
        return f"<backward of {self.op.name}>"


def _hashable(v):
    if isinstance(v, (list, tuple)):
        return (type(v), tuple(_hashable(x) for x in v))
    if isinstance(v, np.dtype) or isinstance(v, (int, float, bool, str, type(None), np.generic)):
        return (type(v), v if not (isinstance(v, float) and v != v) else "nan")
    return ("id", id(v))


def _free_storage(arr):
    """A Storage over arr that oar's accounting does not count (the replay's planned
    buffers are counted once, Note [Capture and replay])."""
    s = object.__new__(_storage.Storage)
    s.buffer = arr
    s.nbytes = 0
    s.version = 0
    s.owner = None
    return s


def _formula(spec, g_arr, *arrays):
    """Run one recorded backward formula on the replay's arrays (Note [Capture and
    replay]): the node and its saved tensors are built on the first replay (the arrays are
    the program's fixed buffers) and reused; the formula's results are returned."""
    node = spec.node
    if node is None:
        node, g = spec.node, spec.g = _formula_node(spec, g_arr, arrays)
    state = grad_mode.STATE
    prev = state.enabled
    state.enabled = False   # as run_backward runs formulas (no create_graph: checked)
    try:
        out = node.apply(spec.g)
    finally:
        state.enabled = prev
    return tuple(out[i]._data for i in spec.result_idx)


def _formula_node(spec, g_arr, arrays):
    from ..autograd.node import OpNode
    from ..autograd.saved import SavedTensor
    k = 0
    attrs = []
    for kind, v in spec.attrs:
        if kind == "A":
            attrs.append(arrays[k])
            k += 1
        else:
            attrs.append(v)
    node = OpNode(spec.op, tuple(attrs), spec.next_edges, spec.input_meta)
    if spec.saved is not None:
        saved = []
        for kind, v in spec.saved:
            if kind == "T":
                a = arrays[k]
                k += 1
                saved.append(SavedTensor(_T.wrap_as(v, a, _free_storage(a))))
            else:
                saved.append(v)
        node.saved = saved
    if spec.out is not None:
        a = arrays[k]
        node.out_saved = SavedTensor(_T.wrap_as(spec.gcls, a, _free_storage(a)), is_output=True)
    return node, _T.wrap_as(spec.gcls, g_arr, _free_storage(g_arr))


def _draw(out):
    _random._GEN[0].random(out=out)


# Note [Replay lowerings]
# ~~~~~~~~~~~~~~~~~~~~~~~
# A few recorded steps are replaced, when the program is planned, by a call that computes
# the same NumPy arithmetic straight into the planned buffers (Note [Capture and replay]):
#   - linear's kernel and its backward formula: the same np.matmul calls (same operands, same
#     transposes, so the same BLAS call) and the same bias add / column sum, with out= the
#     planned buffer instead of a fresh array copied into it afterwards;
#   - where(cond, g, +0.0) (relu's backward as recorded): a bitwise select, bit for bit what
#     np.where copies (g's bits where cond, +0.0 elsewhere), as _relu_back_into does eagerly;
#   - Adam.step: the optimizer's own flat update (Note [Flat Adam]), called directly after the
#     same checks step() makes, falling back to step() itself whenever step() could take
#     another path; versions are bumped as bump() does, and a watched storage logs the
#     mutation with the Where the recording logged (a replay never looks at frames).
# Each lowering is taken only under conditions checked at planning (dtypes equal and a
# float, shapes as recorded, C-contiguous outputs, no _fit of the gradient), so the values
# are those of eager; the memory accounting is unchanged (the outputs count from before the
# step, as the formula's own result tensors did while it ran). tests/test_jit_replay.py
# checks replay against eager bit for bit.
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _linear_into(x, w, b, out_in, out):
    """_k_linear into out (Note [Replay lowerings])."""
    np.matmul(x, w.T if out_in else w, out=out)
    if b is not None:
        np.add(out, b, out=out)


def _linear_back_into(gd, x, w, out_in, gx, gw, gb):
    """_b_linear's no-grad branch into the planned buffers (Note [Replay lowerings])."""
    if gx is not None:
        np.matmul(gd, w if out_in else w.T, out=gx)
    if gw is not None:
        x2, g2 = x.reshape(-1, x.shape[-1]), gd.reshape(-1, gd.shape[-1])
        if out_in:
            np.matmul(g2.T, x2, out=gw)
        else:
            np.matmul(x2.T, g2, out=gw)
    if gb is not None:
        # ndarray.sum is np.add.reduce (numpy's _methods._sum): the same reduction
        np.add.reduce(gd.reshape(-1, gd.shape[-1]), axis=0, out=gb)


def _select_into(out, x, cond, bits):
    """np.where(cond, x, +0.0) as bits into out (Note [Replay lowerings]): the mask is -1
    (all ones) where cond, 0 elsewhere, built in out itself (out never aliases x)."""
    o = out.view(bits)
    np.negative(cond.view(np.int8), out=o, dtype=bits, casting="unsafe")
    np.bitwise_and(x.view(bits), o, out=o)


def _plain_float(*arrays):
    """True when every array is a float32/float64 ndarray of one dtype."""
    dt = arrays[0].dtype if isinstance(arrays[0], np.ndarray) else None
    return dt in _FLOATS and all(isinstance(a, np.ndarray) and a.dtype == dt for a in arrays)


def _fresh_c(out, shape, dt):
    return (isinstance(out, np.ndarray) and out.shape == shape and out.dtype == dt
            and out.flags.c_contiguous)


def _lower(steps):
    """The recorded steps with the lowerings of Note [Replay lowerings] applied."""
    from ..nn import functional as F
    from ..ops import pointwise as P
    out = []
    for s in steps:
        low = None
        if isinstance(s, _Step) and s.mode == "ret" and not s.kwargs:
            if s.fn is F._k_linear:
                low = _lower_linear(s, s.args)
            elif s.fn is F._k_addmm:   # PyTorch's linear: (bias, x, weight, out_in)
                b, x, w, out_in = s.args
                low = _lower_linear(s, (x, w, b, out_in))
            elif s.fn is _formula and s.args[0].op is F.LINEAR:
                low = _lower_linear_back(s, _LINEAR_POS)
            elif s.fn is _formula and s.args[0].op is F.ADDMM:
                low = _lower_linear_back(s, _ADDMM_POS)
            elif s.fn is P._where_k:
                low = _lower_select(s)
        elif not isinstance(s, _Step) and s[0] == "call":
            low = _lower_call(s)
        out.append(s if low is None else low)
    return out


_LINEAR_POS = (0, 1, 2)   # the input positions of x, weight and bias in linear's node
_ADDMM_POS = (1, 2, 0)    # and in addmm's (Note [Addmm input order])


def _lower_linear(s, args):
    x, w, b, out_in = args
    if len(s.writes) != 1 or b is not None and not _plain_float(b, x):
        return None
    if not _plain_float(x, w) or x.ndim != 2 or w.ndim != 2 or type(out_in) is not bool:
        return None
    n = w.shape[0] if out_in else w.shape[1]
    if not _fresh_c(s.writes[0], (x.shape[0], n), x.dtype):
        return None
    return _Step("w", _linear_into, (x, w, b, out_in, s.writes[0]), {}, s.writes, True)


def _lower_linear_back(s, pos):
    spec, gd = s.args[0], s.args[1]
    px, pw, pb = pos
    arrays = s.args[2:]
    if (spec.saved is None or spec.out is not None or len(spec.attrs) != 1
            or spec.attrs[0][0] != "v"):
        return None
    saved, k = [], 0
    for kind, v in spec.saved:
        if kind == "T":
            saved.append(arrays[k])
            k += 1
        else:
            saved.append(v)
    out_in = spec.attrs[0][1]
    needs = spec.next_edges
    x = saved[px] if needs[pw] is not None else None
    w = saved[pw] if needs[px] is not None else None
    if (not isinstance(out_in, bool) or len(needs) != 3 or not _plain_float(gd)
            or (x is not None and not _plain_float(gd, x)) or (w is not None and not _plain_float(gd, w))
            or gd.ndim != 2 or (x is not None and x.ndim != 2) or (w is not None and w.ndim != 2)):
        return None
    dt = gd.dtype
    # the results as _b_linear computes them, each exactly its input's shape and dtype
    # (no _fit) and returned (result_idx): then they are written straight into place
    shapes = {}
    if w is not None:
        shapes[px] = (gd.shape[0], w.shape[1] if out_in else w.shape[0])
    if x is not None:
        shapes[pw] = (gd.shape[1], x.shape[1]) if out_in else (x.shape[1], gd.shape[1])
    if needs[pb] is not None:
        shapes[pb] = (gd.shape[1],)
    if tuple(sorted(shapes)) != tuple(spec.result_idx) or len(s.writes) != len(shapes):
        return None
    outs = [None, None, None]
    for i, wr in zip(spec.result_idx, s.writes):
        meta = spec.input_meta[i]
        if meta is None or meta[0] != shapes[i] or meta[1] != dt or not _fresh_c(wr, shapes[i], dt):
            return None
        outs[i] = wr
    return _Step("w", _linear_back_into, (gd, x, w, out_in, outs[px], outs[pw], outs[pb]), {},
                 s.writes, True)


def _lower_select(s):
    if len(s.args) != 5 or len(s.writes) != 1:
        return None
    o, rdt, x, cond, y = s.args
    out = s.writes[0]
    if (o is not None or not _plain_float(x) or np.dtype(rdt) != x.dtype
            or not isinstance(cond, np.ndarray) or cond.dtype != np.bool_
            or cond.shape != x.shape or type(y) not in (float, int) or y != 0
            or np.copysign(1.0, y) < 0 or not _fresh_c(out, x.shape, x.dtype)):
        return None
    bits = np.dtype(f"i{x.dtype.itemsize}")
    return _Step("w", _select_into, (out, x, cond, bits), {}, s.writes, True)


def _lower_call(s):
    from .. import optimizer as O
    fn, opt, args = s[1], s[2], s[3]
    if (getattr(fn, "__wrapped__", fn) is not O.Adam.step or type(opt).step is not fn
            or args != (None,)):   # fn: Adam.step, or it in torch's hooks (oar.torch.optim)
        return None
    if len(opt.param_groups) != 1:
        return None
    group = opt.param_groups[0]
    flat = opt._group_flat(group)
    if not flat:
        return None
    return ("call", _AdamReplay(opt, group, flat), opt, ())


@functools.lru_cache(maxsize=None)
def _saved_mod():
    from ..autograd import saved
    return saved


class _AdamReplay:
    """Adam.step on a flat group, replayed (Note [Replay lowerings]): the checks step()
    makes, then its own _flat_update; any other case calls step() itself."""

    def __init__(self, opt, group, flat):
        self.group, self.flat = group, flat
        self.params = tuple(group["params"])
        self.name = f"{type(opt).__name__}.step"
        # the Where each watched parameter's last "…step" mutation was logged with
        self.wheres = {}
        for p in self.params:
            for v, op, where in reversed(p._storage.mutations or ()):
                if op == self.name:
                    self.wheres[id(p)] = where
                    break

    def __call__(self, opt):
        group, flat, params = self.group, self.flat, self.params
        ps = group["params"]
        # step() takes the flat path with no closure, no clip, every parameter ready, no
        # mutation context: anything else is step() itself
        if (opt._grad_clip is not None or len(opt.param_groups) != 1 or opt._step_hooked()
                or opt.param_groups[0] is not group or opt._group_flat(group) is not flat
                or "grad_clip" in group or _saved_mod().MUTATION_CTX is not None
                or len(ps) != len(params) or not all(map(operator.is_, ps, params))
                or ("max_exp_avg_sq" in flat["bufs"]) != bool(group.get("amsgrad", False))
                or len(opt._checked_grads(group)) != len(params)):
            return type(opt).step(opt)
        opt._flat_update(params, flat, opt._lr(group), group, {})
        writes = opt._writes_per_step(group)     # Note [Optimizer version bumps]
        for p in params:   # bump(p, name), with the recorded Where
            st = p._storage
            for _ in range(writes):
                st.version += 1
                if st.watched:
                    log = st.mutations
                    if log is None:
                        log = st.mutations = []
                    elif len(log) >= 32:
                        del log[:16]
                    log.append((st.version, self.name,
                                self.wheres.get(id(p), "an oar.jit replay")))
        return None


class _Step:
    __slots__ = ("mode", "fn", "args", "kwargs", "writes", "fresh")

    def __init__(self, mode, fn, args, kwargs, writes, fresh):
        self.mode, self.fn, self.args, self.kwargs = mode, fn, args, kwargs
        self.writes, self.fresh = writes, fresh


class _Recorder:
    """Listens to the hooks during one eager call (Note [Capture and replay])."""

    def __init__(self):
        self.steps = []
        self.keep = []                 # strong references: ids stay unique
        self.created = {}              # id(root) -> (allowed, where made, snapshot or None)
        self.storage_root = {}         # id(storage) -> id(root), storages made while recording
        self.freed = set()             # ids of roots whose storage died while recording
        self.ext_tensors = {}          # id(tensor) -> (tensor, its array)
        self.ext_versions = {}         # id(storage) -> [storage, version at first touch, bumps]
        self.unit = 0
        self.error = None
        self.prev_trace = None
        self.soft = False
        self.saved_fast = ()
        self.ran = set()               # ids of the nodes backward ran while recording

    # ---- hooks -------------------------------------------------------------------
    def fail(self, what):
        """What cannot be captured: a CaptureError now; or, for a recorder that must not
        raise (oar.torch.compile: a graph break), the recording stops and the call goes on
        eagerly."""
        if self.error is None:
            w = _where()
            self.error = f"{what} at {w}"
        if self.soft:
            _detach(self)
            return
        raise CaptureError(f"oar.jit cannot capture {self.error}. Fix: restructure the "
                           "function, or mark it not replayable: oar.jit.capture(fn, "
                           "replay=False) runs it eagerly.")

    def alloc(self, st):
        if self.prev_trace is not None:
            self.prev_trace.alloc(st)
        if self.unit:
            return
        buf = st.buffer
        r = _root(buf)
        self.keep.append(r)
        self.storage_root[id(st)] = id(r)
        if id(r) not in self.created:
            allowed, desc = _creation_site()
            keep = allowed and desc is not _EMPTY
            self.created[id(r)] = (allowed, desc, _xp.array(r, copy=True) if keep else None)
            self.steps.append(("made", r))

    def free(self, st):
        if self.prev_trace is not None:
            self.prev_trace.free(st)
        rid = self.storage_root.get(id(st))
        if rid is not None:
            self.freed.add(rid)

    def raw(self, arr):
        """An array made by the recorder's own traced NumPy calls."""
        if self.unit:
            return
        r = _root(arr)
        self.keep.append(r)
        if id(r) not in self.created:
            self.created[id(r)] = (True, None, None)
            self.freed.add(id(r))
            self.steps.append(("made", r))

    def step(self, mode, fn, args, kwargs, writes, fresh=True):
        if self.unit:
            return
        for a in args:
            if isinstance(a, _T.Tensor):
                return self.fail(f"{getattr(fn, '__name__', fn)} with a tensor argument")
        self.steps.append(_Step(mode, fn, tuple(args), dict(kwargs), tuple(writes), fresh))

    def tensors(self, ts, written=None):
        """Tensors an op read (and the one it wrote, bumping its version once): external
        ones are guarded and their versions counted."""
        if self.unit:
            return
        for t in ts:
            if isinstance(t, _T.Tensor):
                self._ext(t, t is written)
        if written is not None and not any(t is written for t in ts):
            self._ext(written, True)

    def _ext(self, t, bump):
        d = t._data
        r = _root(d)
        if id(r) in self.created:
            return
        self.ext_tensors[id(t)] = (t, d)
        st = t._storage
        e = self.ext_versions.get(id(st))
        if e is None:
            e = self.ext_versions[id(st)] = [st, st.version - (1 if bump else 0), 0, 0]
        if bump:
            e[2] += 1

    def inplace(self, op, t, args, attrs, rdt):
        """dispatch_inplace's general path: the kernel call of registry._inplace_kernel."""
        if self.unit:
            return
        arrays = [a._data if isinstance(a, _T.Tensor) else a for a in args]
        if op.kind == "pointwise":
            self.step("w", op.kernel, (t._data, rdt, *_R.int_scalars(arrays, rdt), *attrs), {},
                      (t._data,), False)
        else:
            self.step("w", _R.kernel_into, (op, t._data, *arrays[1:], *attrs), {}, (t._data,),
                      False)
        self.tensors(args, t)

    def accumulate(self, p, g, owned):
        """Tensor._accumulate_grad, run as eager runs it, recorded by what it did."""
        if self.unit:
            return _plain_accumulate(p, g, owned)
        if p._hooks or getattr(p, "_post_acc_hooks", None) or grad_mode.is_grad_enabled():
            self.fail("backward(create_graph=True)" if grad_mode.is_grad_enabled() else
                      "a tensor hook (register_hook / register_post_accumulate_grad_hook) "
                      "on a parameter")
            return _plain_accumulate(p, g, owned)
        before = p._grad
        bv = None if before is None else before._storage.version
        _plain_accumulate(p, g, owned)
        after = p._grad
        if not p._requires_grad or after is None:
            return
        self.tensors((p,))
        gd = g._data
        if before is None:
            if after._data is not gd:
                if gd.shape != p._data.shape or gd.dtype != p._data.dtype:
                    return self.fail("a gradient whose shape or dtype differs from its "
                                     "parameter's")
                self.step("ret", _copy_c, (gd,), {}, (after._data,))
            self.grad_set(p, after._data)
        elif after is before and before._storage.version == bv + 1:
            if gd.shape != p._data.shape or gd.dtype != p._data.dtype:
                return self.fail("a gradient whose shape or dtype differs from its parameter's")
            bdata = before._data
            self.step("w", np.add, (bdata, gd), {"out": bdata}, (bdata,), False)
            self.tensors((), before)
        else:
            self.fail("a .grad that changed in an unexpected way")

    def run_node(self, node, grads_in, token, retain_graph):
        """engine._run_node, recorded: the kernels its formula dispatches, or, when the
        formula computes in NumPy (linear, conv2d, pooling...), the formula itself as one
        step (it runs again on the replay's arrays, its results copied into the planned
        buffers)."""
        from ..autograd.node import OpNode
        if self.unit or node.__class__ is _AccumulateGrad():
            return _plain_run_node(node, grads_in, token, retain_graph)
        if grad_mode.is_grad_enabled():
            self.fail("backward(create_graph=True)")
            return _plain_run_node(node, grads_in, token, retain_graph)
        if node.pre_hooks or node.retained is not None or _node_post_hooks(node):
            self.fail(f"a hook or retain_grad() on {node.name} (Python run inside backward)")
            return _plain_run_node(node, grads_in, token, retain_graph)
        self.ran.add(id(node))   # (not the node: keeping the graph alive would keep the
        # leaves' AccumulateGrad nodes, and the next call's backward order would differ)
        mark = len(self.steps)
        g = grads_in.get(0) if len(grads_in) == 1 else None
        is_op = isinstance(node, OpNode)
        spec = None
        if is_op and g is not None:
            spec = _FormulaSpec(node, g)
        # no Note [Gradient ownership] token: the formulas compute out of place, in oar ops
        # or NumPy, and never write into a gradient they were given (same values)
        out = _plain_run_node(node, grads_in, None, retain_graph)
        if self._explained(mark, out, g):
            return out
        if spec is None:
            self.fail(f"the backward of {node.name} (a custom or multi-output node computing "
                      "in NumPy)")
            return out
        del self.steps[mark:]
        # a gradient passed on unchanged (add's) is the incoming one's buffer already
        res_idx = tuple(i for i, r in enumerate(out) if r is not None and r._data is not g._data)
        writes = [out[i]._data for i in res_idx]
        spec.result_idx = res_idx
        self.step("ret", _formula, (spec, g._data, *spec.arrays), {}, tuple(writes))
        spec.arrays = None
        return out

    def _explained(self, mark, out, g):
        written = set()
        for s in self.steps[mark:]:
            if isinstance(s, _Step):
                for w in s.writes:
                    written.add(id(_root(w)))
        for s in self.steps[mark:]:
            if not isinstance(s, _Step) and s[0] == "made":
                rid = id(s[1])
                if rid not in written and not self.created[rid][0]:
                    return False
        return True

    def grad_set(self, p, arr):
        if self.unit:
            return
        self.steps.append(("grad", p, arr))

    def hooks_refused(self, what):
        if not self.unit:
            self.fail(what)

    def rng(self, gen):
        return gen if self.unit else _RecordingRNG(self, gen)

    def data_read(self, what):
        if not self.unit:
            self.fail(f"reading a tensor's values into Python ({what}) while capturing: "
                      "the replay would bake this call's value in")

    def call_unit(self, fn, obj, *args):
        """An optimizer's step()/clear_grad(): run now, replayed as the same call."""
        if self.unit:
            return fn(obj, *args)
        for a in args:
            if callable(a):
                self.fail(f"{type(obj).__name__}.{fn.__name__}(closure)")
                return fn(obj, *args)
        before = {k: e[0].version for k, e in self.ext_versions.items()}
        self.unit += 1
        try:
            res = fn(obj, *args)
        finally:
            self.unit -= 1
        for k, e in self.ext_versions.items():
            if k in before:
                e[3] += e[0].version - before[k]
        self.steps.append(("call", fn, obj, args))
        return res


# --------------------------------------------------------------------------- recording
def _record(fn, args, kwargs, soft=False):
    """Run fn eagerly with a recorder listening; (result, recorder). With `soft`, what
    cannot be captured stops the recording (rec.error says why) instead of raising."""
    if _R._RECORDER is not None:
        raise CaptureError("oar.jit: a captured function called another one while it was "
                           "being captured; capture the outer function only")
    rec = _Recorder()
    rec.soft = soft
    rec.prev_trace = _storage._trace
    rec.saved_fast = set(_T.FAST_CLASSES)
    _T.FAST_CLASSES.clear()
    _storage._trace = rec
    for m in _HOOKED:
        m._RECORDER = rec
    try:
        result = fn(*args, **kwargs)
    finally:
        _detach(rec)
    if rec.error is not None and not soft:
        raise CaptureError(f"oar.jit cannot capture {rec.error} (the function caught the "
                           "error). Fix: mark it replay=False.")
    return result, rec


def _detach(rec):
    """Stop recording: the hooks see None again, the fast paths come back."""
    if _R._RECORDER is rec:
        for m in _HOOKED:
            m._RECORDER = None
        _storage._trace = rec.prev_trace
        _T.FAST_CLASSES.update(rec.saved_fast)


def _flatten(obj, out):
    if isinstance(obj, _T.Tensor):
        out.append(obj)
        return ("T", len(out) - 1)
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return (type(obj), tuple(_flatten(o, out) for o in obj))
    if isinstance(obj, dict) and type(obj) is dict:
        return (dict, tuple((k, _flatten(v, out)) for k, v in obj.items()))
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return ("C", obj)
    raise CaptureError(f"oar.jit: the captured function returned a {type(obj).__name__}; "
                       "return tensors, numbers, or lists/tuples/dicts of them")


def _unflatten(spec, tensors):
    kind = spec[0]
    if kind == "T":
        return tensors[spec[1]]
    if kind == "C":
        return spec[1]
    if kind is dict:
        return {k: _unflatten(v, tensors) for k, v in spec[1]}
    return kind(_unflatten(s, tensors) for s in spec[1])


# --------------------------------------------------------------------------- the program
class _Block:
    __slots__ = ("size", "free_after", "arr")

    def __init__(self, size):
        self.size, self.free_after, self.arr = size, -1, None


class Program:
    """A recorded call, planned: a flat list of NumPy calls over preallocated buffers."""

    def __init__(self, rec, in_tensors, result, spec, outs, split=False):
        self.spec = spec
        steps = _lower(rec.steps)   # Note [Replay lowerings]
        # Note [Compiled forward]: a split program's outputs go back with a node of its own
        split_at = next((i for i, s in enumerate(steps) if s.__class__ is tuple
                         and s[0] == "split"), None) if split else None
        for t in outs:
            fn = t._grad_fn
            if split:
                break
            if (fn is not None and id(fn) not in rec.ran) or (fn is None and t.requires_grad):
                raise CaptureError(
                    "oar.jit cannot capture a function that returns a tensor with autograd "
                    f"history (shape {list(t._data.shape)}) whose backward has not run "
                    "inside it: the replay returns tensors without history. Fix: call "
                    "backward (and the optimizer step) inside the function, return "
                    "t.detach(), or mark it replay=False.")
        in_roots = {}
        for k, t in enumerate(in_tensors):
            r = _root(t._data)
            if id(r) in rec.created:
                continue
            in_roots.setdefault(id(r), (k, t, r))
        # -- classify every root the steps touch
        first, last = {}, {}
        written_fresh = {}
        grad_roots = {}
        grad_step = {}
        out_roots = {id(_root(t._data)) for t in outs}
        roots = {}

        def touch(a, i):
            r = _root(a)
            rid = id(r)
            roots[rid] = r
            if a.__class__ in _xp._PLACES:   # Note [Replay on a device]
                dev_roots[rid] = a
            first.setdefault(rid, i)
            last[rid] = i
            return rid

        made_at = {}
        dev_roots = {}   # root id -> an array of a device over it (its place)
        for i, s in enumerate(steps):
            if isinstance(s, _Step):
                for a in (*_arrays(s.args, s.kwargs), *s.writes):
                    rid = touch(a, i)
                    if s.fresh and any(a is w for w in s.writes) and rid not in written_fresh \
                            and _covers(a) and first[rid] == i:
                        written_fresh[rid] = i
            elif s[0] == "made":
                made_at[id(s[1])] = i
            elif s[0] == "grad":
                rid = touch(s[2], i)
                grad_roots[rid] = s[1]
                grad_step[rid] = i
        # a returned tensor lives to the end
        n = len(steps)
        for t in outs:
            rid = id(_root(t._data))
            roots.setdefault(rid, _root(t._data))
            if t._data.__class__ in _xp._PLACES:
                dev_roots[rid] = t._data
            first.setdefault(rid, n)
            last[rid] = n
        self.kind = {}
        inits = {}
        for rid, r in roots.items():
            if rid in in_roots:
                self.kind[rid] = "input"
            elif rid in rec.created:
                allowed, desc, snap = rec.created[rid]
                if rid not in written_fresh or written_fresh[rid] != first[rid]:
                    if not allowed:
                        raise CaptureError(
                            f"oar.jit cannot capture a value of shape {list(r.shape)} "
                            f"({r.dtype}) computed outside oar's recorded kernels, by "
                            f"{desc or 'unknown code'}: the replay would reuse this call's "
                            "value (NumPy code outside oar's ops, or a random draw that "
                            "is neither oar's generator nor an in-place random op such as "
                            "bernoulli_). Fix: oar.jit.capture(fn, replay=False).")
                    inits[rid] = snap
                    first[rid] = min(first[rid], made_at.get(rid, first[rid]))
                alive = rid not in rec.freed
                if split and rid not in grad_roots and rid not in out_roots:
                    alive = False   # held by the capture call's own graph, not the replay's
                if alive and rid not in grad_roots and rid not in out_roots:
                    raise CaptureError(
                        f"oar.jit cannot capture: a tensor of shape {list(r.shape)} made "
                        "inside the function is still alive after it and is neither returned "
                        "nor a .grad (kept in a Python attribute or a graph that was not "
                        "backpropagated?); the replay could not update it. Fix: return it, "
                        "or call backward inside the function, or mark it replay=False.")
                self.kind[rid] = "temp" if not alive else "fixed"
            else:
                if rid in dev_roots and _pointer_view(r):
                    raise CaptureError(
                        "oar.jit cannot capture a step that reads a device array whose owning "
                        f"buffer it cannot see (shape {list(r.shape)}, a view made from a raw "
                        "pointer): the replay could read stale memory "
                        "(Note [Replay on a device]). Fix: mark it replay=False.")
                self.kind[rid] = "external"
        # a .grad is read through p.grad by the optimizer's step (a call, not a recorded
        # use): its buffer stays reserved to the end
        for rid in grad_roots:
            last[rid] = len(steps)
        # -- in place of a copy: a .grad made by copying a temporary that dies at the copy
        # is that temporary's buffer (what eager's Note [Gradient ownership] does)
        alias = {}
        skip = set()
        for i, s in enumerate(steps):
            if (isinstance(s, _Step) and s.mode == "ret" and s.fn is _copy_c
                    and len(s.args) == 1 and len(s.writes) == 1):
                src, dst = s.args[0], s.writes[0]
                rs, rd = id(_root(src)), id(_root(dst))
                if (self.kind.get(rs) == "temp" and self.kind.get(rd) in ("temp", "fixed")
                        and last[rs] == i and first[rd] == i and rs not in inits
                        and rs in written_fresh and _covers(src) and _covers(dst)
                        and src.shape == dst.shape and src.dtype == dst.dtype
                        and src.strides == dst.strides and _ptr(src) == _ptr(_root(src))):
                    alias[rs] = rd
                    skip.add(i)
                    self.kind[rs] = "alias"
                    first[rd] = first[rs]
        if split_at is not None:   # Note [Compiled forward]: what backward reads lives on
            for rid in last:
                if first[rid] < split_at <= last[rid]:
                    last[rid] = n
        order = sorted((rid for rid, k in self.kind.items() if k == "temp"),
                       key=lambda rid: (first[rid], -roots[rid].nbytes))
        blocks = []
        assign = {}
        for rid in order:
            need = roots[rid].nbytes
            best = None
            for b in blocks:
                if b.free_after < first[rid] and b.size >= need and (best is None or b.size < best.size):
                    best = b
            if best is None:
                best = _Block(need)
                blocks.append(best)
            best.free_after = last[rid]
            assign[rid] = best
        xp = self._place_of(roots, dev_roots)   # Note [Replay on a device]
        for b in blocks:
            b.arr = xp.empty(max(b.size, 1), np.uint8)
        self.pool_bytes = sum(b.size for b in blocks)
        self.eager_temp_bytes = sum(roots[rid].nbytes for rid in order)
        # buffers that outlive the call (returned tensors, new .grad) are the program's own:
        # never the capture call's arrays, which the user may still hold
        own = {rid: xp.empty(max(roots[rid].nbytes, 1), np.uint8)
               for rid, k in self.kind.items() if k == "fixed"}
        # Note [Capture and replay]: memory_allocated() counts each buffer while it holds a
        # live value, as eager counts a tensor while it lives; the pool is reserved memory
        # (a backward formula's results are counted by their own storages while it runs,
        # so the buffers they are copied into count from just after it: no double count)
        allocs, frees = {}, {}
        after = {}
        for i, s in enumerate(steps):
            if isinstance(s, _Step) and s.fn is _formula:
                for w in s.writes:
                    after[id(_root(w))] = i

        for rs, rd in alias.items():
            if rs in after:
                after[rd] = after[rs]

        def alloc_at(rid):
            if after.get(rid) == first[rid]:
                frees.setdefault(first[rid], []).append(-roots[rid].nbytes)
            else:
                allocs.setdefault(first[rid], []).append(roots[rid].nbytes)
        for rid in order:
            alloc_at(rid)
            if rid in grad_roots:   # from its grad step on, p.grad's storage counts it
                allocs.setdefault(grad_step[rid], []).append(-roots[rid].nbytes)
            else:
                frees.setdefault(last[rid], []).append(roots[rid].nbytes)
        self.out_hold = 0
        for rid in own:
            alloc_at(rid)
            if rid in grad_roots:   # from the grad step on, p.grad's storage counts it
                allocs.setdefault(grad_step[rid], []).append(-roots[rid].nbytes)
            else:
                self.out_hold += roots[rid].nbytes
        # inputs are bound, not copied: a step reading the call's tensor k reads a view of
        # its array, rebuilt when a call passes another array (same guarded layout)
        in_data = {rid: (k, t._data) for rid, (k, t, r) in in_roots.items()}

        def remap(a):
            r = _root(a)
            rid = id(r)
            kind = self.kind.get(rid)
            if kind == "alias":
                rid = alias[rid]
                kind = self.kind[rid]
            if kind == "temp" or kind == "fixed":
                off = _ptr(a) - _ptr(r)
                base = assign[rid].arr if kind == "temp" else own[rid]
                if xp is not np:
                    return _xp.buffer_view(base, a.shape, a.dtype, off, a.strides)
                return np.ndarray(a.shape, a.dtype, base, off, a.strides)
            if kind == "input":
                k, d = in_data[rid]
                off = _ptr(a) - _ptr(d)
                lo, hi = _extent(a)
                if not d.flags.c_contiguous or off + lo < 0 or off + hi > d.nbytes:
                    raise CaptureError(
                        "oar.jit cannot capture: the function reads memory of an argument's "
                        "storage outside the argument itself (its base, or a non-contiguous "
                        "argument). Fix: pass a contiguous tensor (x.contiguous()), or mark "
                        "it replay=False.")
                return (_InSlot if xp is np else _DeviceSlot)(k, off, a.shape, a.dtype,
                                                              a.strides)
            return a

        def build(s, bound):
            res = (lambda a: a.resolve(bound) if isinstance(a, _InSlot) else a)
            if isinstance(s, _Step):
                args = tuple(_map(a, res) for a in s.args)
                kw = {key: _map(v, res) for key, v in s.kwargs.items()}
                if s.mode == "ret":
                    if s.fn is _formula:
                        args[0].node = None   # its saved arrays may change: built again
                    return functools.partial(_ret_step, s.fn, args, kw,
                                             tuple(res(w) for w in s.writes))
                return functools.partial(s.fn, *args, **kw)
            if s[0] == "init":
                return functools.partial(np.copyto, res(s[1]), s[2])
            if s[0] == "acct":
                if self._ctr is not None:
                    return functools.partial(_acct2_on, self._held, self._ctr, s[1], 0)
                return functools.partial(_acct, self._held, s[1])
            if s[0] == "acct2":
                if self._ctr is not None:
                    return functools.partial(_acct2_on, self._held, self._ctr, s[1], s[2])
                return functools.partial(_acct2, self._held, s[1], s[2])
            if s[0] == "grad":
                return functools.partial(_set_grad, s[1], res(s[2]))
            if s[0] == "split":
                return _no_op
            return functools.partial(s[1], s[2], *s[3])

        planned = []
        input_bumps = {}
        self._held = [0]
        for i, s in enumerate(steps):
            if i in allocs:
                planned.append(("acct", sum(allocs[i])))
            if i in skip:
                pass
            elif isinstance(s, _Step):
                for w in s.writes:
                    rid = id(_root(w))
                    if rid in in_data:
                        input_bumps[in_data[rid][0]] = input_bumps.get(in_data[rid][0], 0) + 1
                planned.append(_Step(s.mode, s.fn, tuple(_map(a, remap) for a in s.args),
                                     {key: _map(v, remap) for key, v in s.kwargs.items()},
                                     tuple(remap(w) for w in s.writes), s.fresh))
            elif s[0] == "made":
                rid = id(s[1])
                if inits.get(rid) is not None:   # (None: uninitialized memory)
                    planned.append(("init", remap(s[1]), xp.asarray(inits[rid])))
            elif s[0] == "grad":
                planned.append(("grad", s[1], remap(s[2])))
            elif s[0] in ("call", "split"):
                planned.append(s)
            if i in frees:
                planned.append(("acct", -sum(frees[i])))   # (negative: counted from here)
        for i in sorted(set(allocs) - set(range(len(steps)))):   # returned constants
            planned.append(("acct", sum(allocs[i])))
        self._planned = planned = _fold_accounting(planned)
        self._build = build
        self.bound = [t._data for t in in_tensors]
        self.ops = [build(s, self.bound) for s in planned]
        self.rebind = [i for i, s in enumerate(planned) if _has_slot(s)]
        self.input_bumps = sorted(input_bumps.items())
        self.input_bytes = 0
        # -- guards: external tensors still hold the same arrays
        self.ext_checks = [(t, d, t._requires_grad) for t, d in rec.ext_tensors.values()]
        self.layers = []
        self.layer_state = None
        self.bumps = []
        for st, v0, bumps, unit_delta in rec.ext_versions.values():
            delta = st.version - v0 - unit_delta
            if delta != bumps:
                raise CaptureError(
                    "oar.jit cannot capture: a tensor outside the function was written "
                    f"{delta} times but oar recorded {bumps} writes (a write that bypasses "
                    "oar's ops, e.g. through .numpy() or a hook). Fix: mark it replay=False.")
            if bumps:
                self.bumps.append((st, bumps))
        self.grad_versions = []
        for rid, p in grad_roots.items():
            g = p._grad
            if g is not None and id(_root(g._data)) == rid:
                self.grad_versions.append((p, g._storage.version))
        self.outs = [(t.__class__, remap(t._data)) for t in outs]
        self.extra_bytes = self.pool_bytes   # reserved by the program (with `own`)
        self.split = None
        if split_at is not None:
            self._plan_split(planned, rec, in_roots, own, roots, first, grad_roots, split_at)

    def _plan_split(self, planned, rec, in_roots, own, roots, first, grad_roots, split_at):
        """Note [Compiled forward]: where the backward part starts, which inputs and external
        tensors it reads (saved for backward, so an in-place change raises as eager's would),
        and the bytes of the forward's outputs (returned as copies)."""
        self.split = next(i for i, s in enumerate(planned)
                          if s.__class__ is tuple and s[0] == "split")
        reads_in, reads_ext = set(), set()
        for s in planned[self.split:]:
            if not isinstance(s, _Step):
                continue
            for a in (*s.args, *s.kwargs.values()):
                for b in (a if isinstance(a, (list, tuple)) else (a,)):
                    if isinstance(b, _InSlot):
                        reads_in.add(b.k)
                    elif _is_arr(b) and self.kind.get(id(_root(b))) == "external":
                        reads_ext.add(id(_root(b)))
        self.bwd_inputs = sorted(reads_in)
        self.bwd_ext = [t for t, d in rec.ext_tensors.values()
                        if id(_root(d)) in reads_ext and id(_root(d)) not in in_roots]
        self.fwd_hold = sum(roots[rid].nbytes for rid in own
                            if rid not in grad_roots and first[rid] < split_at)

    def _place_of(self, roots, dev_roots):
        """The array module of the program's place (Note [Replay on a device]): the place
        of the buffers it plans (temporaries, outputs, inputs), which must be one."""
        places = {_xp.place_of(dev_roots.get(rid, r)) for rid, r in roots.items()
                  if self.kind.get(rid) in ("temp", "fixed", "alias", "input")}
        self.place = _xp.CPU
        self._ctr = None
        if len(places) > 1:
            raise CaptureError(
                "oar.jit cannot capture a function whose tensors are on two places "
                f"({', '.join(sorted(map(repr, places)))}): the replay plans its buffers on "
                "one. Fix: move them to one device first, or mark it replay=False.")
        if places and places != {_xp.CPU}:
            self.place = places.pop()
            self._ctr = _storage._counters(self.place)
            return _xp.array_module(next(iter(dev_roots.values())))
        return np

    def _uncount(self, n):
        """n bytes out of the program's place's memory_allocated()."""
        if self._ctr is None:
            _storage._allocated -= n
        else:
            self._ctr[0] -= n

    def guards_ok(self):
        """False when an external tensor holds another array, changed requires_grad or got a
        hook, or a layer changed train()/eval() or its forward hooks since the capture."""
        for t, d, rg in self.ext_checks:   # (_post_acc_hooks: a class default of Tensor)
            if t._data is not d or t._requires_grad is not rg or t._hooks or t._post_acc_hooks:
                return False
        return not self.layers or _layer_state(self.layers) == self.layer_state

    def _bind(self, arrays):
        """The steps reading an input read these arrays (rebuilt when one is new)."""
        bound = self.bound
        for k, a in enumerate(arrays):
            if a is not bound[k]:
                self.bound = bound = list(arrays)
                ops, build, planned = self.ops, self._build, self._planned
                for i in self.rebind:
                    ops[i] = build(planned[i], bound)
                break
        return bound

    def _copies(self, lo, hi, bound):
        copy = np.array if self._ctr is None else _xp.array   # on the program's place
        return [_T.wrap_as(cls, copy(a.resolve(bound) if isinstance(a, _InSlot) else a,
                                     copy=True)) for cls, a in self.outs[lo:hi]]

    def run_forward(self, in_tensors, n_out):
        """A split program's forward part (Note [Compiled forward]): its first n_out outputs,
        as copies. What the backward part reads stays in the planned buffers, counted by
        oar's accounting, until run_backward or release."""
        bound = self._bind([t._data for t in in_tensors] + self.bound[len(in_tensors):])
        held = self._held
        held[0] = 0
        ops = self.ops
        try:
            for i in range(self.split):
                ops[i]()
        except BaseException:
            self.release()
            raise
        for s, n in self.bumps:
            s.version += n
        for k, n in self.input_bumps:
            in_tensors[k]._storage.version += n
        outs = self._copies(0, n_out, bound)
        self._uncount(self.fwd_hold)   # the copies replace the output buffers
        held[0] -= self.fwd_hold
        return outs

    def run_backward(self, grads, n_out):
        """A split program's backward part: the incoming gradients (arrays, one per
        differentiable output) are copied into the seed buffers; the gradients it computes,
        as copies."""
        bound = self.bound
        for k, g in zip(self.seed_slots, grads):
            np.copyto(bound[k], g, casting="unsafe")
        ops = self.ops
        try:
            for i in range(self.split + 1, len(ops)):
                ops[i]()
            return self._copies(n_out, len(self.outs), bound)
        finally:
            self.release()

    def release(self):
        """What a split program's forward left counted is given back."""
        held = self._held
        self._uncount(held[0])
        held[0] = 0

    def run(self, in_tensors):
        """Replay; None when a guard on external tensors fails (the caller re-records)."""
        if not self.guards_ok():
            return None, False
        bound = self._bind([t._data for t in in_tensors])
        held = self._held
        try:
            for f in self.ops:
                f()
        finally:
            if self._ctr is None:   # (the CPU's counter, as before: Note [Replay on a device])
                _storage._allocated -= held[0] - self.out_hold
            else:
                self._ctr[0] -= held[0] - self.out_hold
            held[0] = self.out_hold
        for s, n in self.bumps:
            s.version += n
        for p, v in self.grad_versions:
            if p._grad is not None:
                p._grad._storage.version = v
        for k, n in self.input_bumps:
            in_tensors[k]._storage.version += n
        outs = self._copies(0, len(self.outs), bound)
        self._uncount(held[0])   # the returned copies replace the output buffers
        held[0] = 0
        return _unflatten(self.spec, outs), True


class _InSlot:
    """A view of the call's input k (bytes from its first element, shape, strides)."""
    __slots__ = ("k", "off", "shape", "dtype", "strides")

    def __init__(self, k, off, shape, dtype, strides):
        self.k, self.off, self.shape, self.dtype, self.strides = k, off, shape, dtype, strides

    def resolve(self, bound):
        return np.ndarray(self.shape, self.dtype, bound[self.k], self.off, self.strides)


class _DeviceSlot(_InSlot):
    """An _InSlot of a program on a device (Note [Replay on a device])."""
    __slots__ = ()

    def resolve(self, bound):
        return _xp.buffer_view(bound[self.k], self.shape, self.dtype, self.off, self.strides)


def _extent(a):
    """(lowest, highest + 1) byte offsets a touches, from its first element."""
    lo = hi = 0
    for n, st in zip(a.shape, a.strides):
        if n == 0:
            return 0, 0
        if st < 0:
            lo += st * (n - 1)
        else:
            hi += st * (n - 1)
    return lo, hi + a.itemsize


def _has_slot(s):
    if isinstance(s, _Step):
        vals = list(s.args) + list(s.kwargs.values()) + list(s.writes)
    else:
        vals = list(s[1:])
    for v in vals:
        if isinstance(v, _InSlot):
            return True
        if isinstance(v, (list, tuple)) and any(isinstance(x, _InSlot) for x in v):
            return True
    return False


def _covers(a):
    """True when a write into a covers its whole root buffer."""
    r = _root(a)
    return a.nbytes == r.nbytes and (a.flags.c_contiguous or a.flags.f_contiguous)


def _arrays(args, kwargs):
    for a in args:
        if _is_arr(a):
            yield a
        elif isinstance(a, (list, tuple)):
            for b in a:
                if _is_arr(b):
                    yield b
    for v in kwargs.values():
        if _is_arr(v):
            yield v
        elif isinstance(v, tuple):
            for b in v:
                if _is_arr(b):
                    yield b


def _map(a, remap):
    # (an np.ndarray first: the CPU's replay rebinding pays what it paid before)
    if isinstance(a, (np.ndarray, _InSlot)) or a.__class__ in _xp._PLACES:
        return remap(a)
    if isinstance(a, (list, tuple)) and any(_is_arr(b) or isinstance(b, _InSlot) for b in a):
        return type(a)(remap(b) if _is_arr(b) or isinstance(b, _InSlot) else b for b in a)
    return a


def _no_op():
    pass


def _ret_step(fn, args, kw, outs):
    r = fn(*args, **kw)
    if len(outs) == 1 and not isinstance(r, tuple):
        np.copyto(outs[0], r, casting="unsafe")
    else:
        for o, x in zip(outs, r):
            np.copyto(o, x, casting="unsafe")


def _fold_accounting(planned):
    """Between steps that can see oar's accounting (a backward formula or an optimizer
    call allocates tensors; a grad step wraps one), only the highest level reached and the
    level at the end matter: one ("acct2", up, down) per stretch instead of one call per
    buffer (the same peak, the same memory_allocated() wherever it is observed)."""
    out = []
    level = top = 0
    pending = False

    def flush():
        nonlocal level, top, pending
        if pending:
            out.insert(mark, ("acct2", top, top - level))
        level = top = 0
        pending = False
    mark = 0
    for s in planned:
        if isinstance(s, tuple) and s[0] == "acct":
            if not pending:
                mark = len(out)
                pending = True
            level += s[1]
            top = max(top, level)
            continue
        sees = (not isinstance(s, _Step) and s[0] in ("grad", "call", "split")) or (
            isinstance(s, _Step) and s.fn is _formula)
        if sees:
            flush()
        out.append(s)
    flush()
    return out


def _acct2(held, up, down):
    """Count `up` bytes (a peak), then give back `down` of them."""
    st = _storage
    st._allocated += up
    if st._allocated > st._peak:
        st._peak = st._allocated
    st._allocated -= down
    held[0] += up - down


def _acct2_on(held, ctr, up, down):
    """_acct2 on a device's [allocated, peak] counters (Note [Replay on a device])."""
    ctr[0] += up
    if ctr[0] > ctr[1]:
        ctr[1] = ctr[0]
    ctr[0] -= down
    held[0] += up - down


def _acct(held, n):
    """Count n bytes in (or out of) oar's memory accounting during a replay."""
    st = _storage
    held[0] += n
    st._allocated += n
    if st._allocated > st._peak:
        st._peak = st._allocated


def _set_grad(p, arr):
    g = _T.wrap_as(p._result_class, arr)
    if p._result_class is _T.Tensor:   # Note [Leaf gradients per door]
        g._requires_grad = True
    p._grad = g


# --------------------------------------------------------------------------- the wrapper
def _describe(v):
    if isinstance(v, _T.Tensor):
        d = v._data
        return ("T", v.__class__, d.shape, d.dtype.str, d.strides, v.requires_grad,
                v._grad_fn is not None)
    if isinstance(v, (int, float, bool, str, type(None))):
        return (type(v), v)
    if isinstance(v, (list, tuple)):
        return (type(v), tuple(_describe(x) for x in v))
    return ("id", id(v))


def _guard_key(args, kwargs):
    """The guard key of a call; for positional tensor arguments only (a training step's
    usual call), the tensors are returned too."""
    if not kwargs:
        key = [grad_mode.STATE.enabled]
        for a in args:
            if not isinstance(a, _Tensor):
                break
            d = a._data
            key.append((a.__class__, d.shape, d.dtype, d.strides, a._requires_grad,
                        a._grad_fn is not None,
                        a._view is not None and (True, a.requires_grad)))
        else:
            return tuple(key), list(args)
    ins = []
    _flatten_inputs((args, kwargs), ins)
    return (grad_mode.STATE.enabled, _describe(args),
            _describe(tuple(sorted(kwargs.items())))), ins


def cache_entry(cache, size, key, slot):
    """The guard key's entry of an LRU cache of at most `size` (made fresh, with `slot` for
    its program, when new; the least recently used goes first)."""
    entry = cache.get(key)
    if entry is None:
        entry = cache[key] = {"calls": 0, slot: None, "prev": None, "eager": False}
        while len(cache) > size:
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    return entry


class Captured:
    """A function wrapped by oar.jit.capture: eager warm-up, capture, then replay
    (Note [Capture and replay]). `.stats` counts eager calls, captures and replays."""

    def __init__(self, fn, replay=True, cache_size=8, warmup=1, on_error="raise"):
        functools.update_wrapper(self, fn)
        if on_error not in ("raise", "eager"):
            raise ValueError(f"oar.jit.capture: on_error must be 'raise' or 'eager', got "
                             f"{on_error!r}")
        self._fn = fn
        self._replay = bool(replay)
        self._cache = collections.OrderedDict()
        self._cache_size = int(cache_size)
        self._warmup = int(warmup)
        self._soft = on_error == "eager"
        self.stats = {"eager": 0, "captures": 0, "replays": 0}

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    def _key(self, args, kwargs):
        return _guard_key(args, kwargs)

    def program(self, *args, **kwargs):
        """The planned Program for these arguments' guard key, or None before capture."""
        e = self._cache.get(self._key(args, kwargs)[0])
        return None if e is None else e.get("program")

    def _eager(self, args, kwargs):
        self.stats["eager"] += 1
        return self._fn(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        if not self._replay or _R._RECORDER is not None:
            return self._eager(args, kwargs)
        key, in_tensors = self._key(args, kwargs)
        entry = cache_entry(self._cache, self._cache_size, key, "program")
        if entry["eager"]:
            return self._eager(args, kwargs)
        prog = entry["program"]
        if prog is not None:
            res, ok = prog.run(in_tensors)
            if ok:
                self.stats["replays"] += 1
                return res
            entry["program"] = None
            entry["calls"] = self._warmup   # parameters changed: record again
            entry["prev"] = None
        entry["calls"] += 1
        if entry["calls"] <= self._warmup:
            return self._eager(args, kwargs)
        result, rec = _record(self._fn, args, kwargs, self._soft)
        self.stats["captures"] += 1
        try:
            if rec.error is not None:   # soft: the call ran eagerly after the error
                raise CaptureError(f"oar.jit cannot capture {rec.error}")
            outs = []
            spec = _flatten(result, outs)
            sig = _signature(rec, in_tensors)
            if entry["prev"] is None or entry["prev"][0] != sig:
                if entry["prev"] is not None and entry["calls"] > self._warmup + 3:
                    raise CaptureError(
                        f"oar.jit cannot capture {getattr(self._fn, '__qualname__', self._fn)}"
                        ": consecutive recordings differ (its kernels, their constant "
                        "arguments or the external tensors they use change from call to "
                        "call; Python state such as a counter or data-dependent control "
                        f"flow?): {_first_difference(entry['prev'][0], sig)}. Fix: mark it "
                        "replay=False.")
                entry["prev"] = (sig, rec)
                return result
            prog = Program(rec, in_tensors, result, spec, outs)
            prog.layers = _layers_of(self._fn, args, kwargs)
            prog.layer_state = _layer_state(prog.layers)
            entry["program"] = prog
        except CaptureError as e:
            if not self._soft:
                raise
            entry["eager"] = True   # like a graph break: this key runs eagerly from now on
            entry["prev"] = None
            warnings.warn(f"{e} -- running it eagerly", RuntimeWarning, stacklevel=2)
            return result
        entry["prev"] = None
        return result


def _layers_of(fn, args, kwargs):
    """The nn Layers a function can reach (its arguments, closure cells, bound self and the
    globals it names, through nested functions), with their sublayers: their training
    flags and forward hooks are guarded (a Python branch the recording cannot see)."""
    from ..nn import Layer
    found = {}
    seen = set()

    def visit(obj, depth):
        if id(obj) in seen or depth > 3:
            return
        seen.add(id(obj))
        if isinstance(obj, Layer):
            for layer in obj.sublayers(include_self=True):
                found[id(layer)] = layer
        elif isinstance(obj, (list, tuple)):
            for o in obj[:64]:
                visit(o, depth + 1)
        elif isinstance(obj, dict):
            for o in list(obj.values())[:64]:
                visit(o, depth + 1)
        elif isinstance(obj, functools.partial):
            visit(obj.func, depth + 1)
            visit(obj.args, depth + 1)
        elif callable(obj):
            visit(getattr(obj, "__self__", None), depth + 1)
            f = getattr(obj, "__func__", obj)
            code = getattr(f, "__code__", None)
            for cell in getattr(f, "__closure__", None) or ():
                try:
                    visit(cell.cell_contents, depth + 1)
                except ValueError:   # an empty cell
                    pass
            g = getattr(f, "__globals__", None)
            if code is not None and g is not None:
                for name in code.co_names:
                    if name in g and not isinstance(g[name], type(sys)):
                        visit(g[name], depth + 1)
    visit(fn, 0)
    visit(args, 0)
    visit(kwargs, 0)
    return list(found.values())


def _layer_state(layers):
    return [(layer.training, bool(layer._forward_pre_hooks), bool(layer._forward_hooks))
            for layer in layers]


def _flatten_inputs(obj, out):
    if isinstance(obj, _T.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _flatten_inputs(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _flatten_inputs(o, out)


def _signature(rec, in_tensors):
    """What two recordings must share to be the same program: the kernels, every constant
    argument, the geometry of every array and which buffer it is (numbered in first-use
    order for buffers made during the call or passed in; by identity for external ones),
    and the bytes of every constant made by a creation function."""
    num = {}
    in_ids = {id(_root(t._data)): k for k, t in enumerate(in_tensors)}

    def buf(a):
        r = _root(a)
        rid = id(r)
        if rid in rec.created:
            k = num.setdefault(rid, len(num))
            tag = ("made", k)
        elif rid in in_ids:
            tag = ("in", in_ids[rid])
        else:
            tag = ("ext", rid)
        return (tag, _ptr(a) - _ptr(r), a.shape, a.strides, a.dtype.str)

    def val(v):
        if isinstance(v, _FormulaSpec):
            return v.key()
        if _is_arr(v):
            return buf(v)
        if isinstance(v, (list, tuple)):
            return (type(v), tuple(val(x) for x in v))
        if isinstance(v, np.dtype) or isinstance(v, (int, float, bool, str, type(None), np.generic)):
            return (type(v), v if not (isinstance(v, float) and v != v) else "nan")
        return ("id", id(v))

    out = []
    for s in rec.steps:
        if isinstance(s, _Step):
            out.append((s.mode, id(s.fn), tuple(val(a) for a in s.args),
                        tuple((k, val(v)) for k, v in sorted(s.kwargs.items())),
                        tuple(val(w) for w in s.writes)))
        elif s[0] == "made":
            allowed, desc, snap = rec.created[id(s[1])]
            out.append(("made", buf(s[1]), allowed,
                        snap.tobytes() if allowed and snap is not None else None))
        elif s[0] == "grad":
            out.append(("grad", id(s[1]), buf(s[2])))
        elif s[0] == "split":
            out.append(s)
        else:
            out.append(("call", id(s[1]), id(s[2])))
    return out


def _first_difference(a, b):
    if len(a) != len(b):
        return f"{len(a)} recorded steps, then {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            what = x[0] if isinstance(x, tuple) else x
            return f"step {i} ({what}) differs: {str(x)[:300]} vs {str(y)[:300]}"
    return "no difference"


def capture(fn=None, *, replay=True, cache_size=8, warmup=1, on_error="raise"):
    """Capture a training (or any) step and replay it at NumPy speed (Note [Capture and
    replay]). Works as @capture and @capture(replay=False). The first `warmup` calls with a
    given guard key (argument shapes, dtypes, strides, requires_grad, grad mode, non-tensor
    arguments) run eagerly, the next two are recorded and compared, later calls replay the
    recorded kernels into planned buffers. replay=False runs every call eagerly.
    on_error="eager" turns what cannot be captured into a warning and eager calls for that
    guard key (oar.torch.compile's graph-break behaviour) instead of a CaptureError."""
    kw = dict(replay=replay, cache_size=cache_size, warmup=warmup, on_error=on_error)
    if fn is None:
        return lambda f: Captured(f, **kw)
    return Captured(fn, **kw)
