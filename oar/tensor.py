"""Tensor: a window (NumPy ndarray view) onto a Storage, plus autograd metadata.

Thin by design: op methods (add, add_, reshape, __iadd__, ...) are installed by
ops/registry.py from one declaration per op.
"""
from __future__ import annotations

import inspect as _inspect
import sys
import threading
import weakref

import numpy as np

from . import dtypes as _dt
from .autograd import functional as _functional
from .autograd import grad_mode
from .autograd.errors import ArgTypeError, ArgValueError
from .autograd.node import AccumulateGrad, add_retained, drop_retained, hook_result
from .autograd.node import HookHandle as _HookHandle
from ._xp import array as _xp_array, data_ptr as _data_ptr, place_of as _place_of, to_place as _to_place
from .place import CPU
from .storage import new_storage as _new_storage

_new = object.__new__
_refcount = sys.getrefcount
_RECORDER = None   # oar.jit's recorder while capturing, or None (Note [Capture and replay])

# Note [Gradient accumulation is atomic]
# Several threads may run backward into the same leaf at once (PyTorch allows it and loses
# nothing). Reading .grad, deciding to keep or to add, and the in-place add are one
# read-modify-write: it runs under this lock, so no thread's contribution is lost and a
# gradient kept as .grad (Note [Gradient ownership]) is never written by a thread that saw
# .grad still empty. One lock for all tensors: uncontended it costs well under a
# microsecond per leaf per backward; the kernels inside release the GIL anyway.
_GRAD_LOCK = threading.Lock()

# How a view was made (ViewMeta.creation), which decides whether it may be written in place
# under autograd: Note [View creation meta] in autograd/inplace.py.
DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT, INFERENCE_MODE, IN_CUSTOM_FUNCTION = 0, 1, 2, 3, 4


class Size(tuple):
    """Shape: a tuple that also compares equal to a list (Paddle code compares shapes to lists)."""

    def __eq__(self, other):
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = tuple.__hash__

    def __repr__(self):
        return f"paddle.Size({list(self)})"   # as Paddle 3.3 prints it (the Paddle door)

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


class TensorSize(int):
    """Paddle's `x.size`: the element count (an int) that, called, gives the shape
    (`x.size()`) or one dimension's size (`x.size(1)`), as paddle's TensorSize."""

    def __new__(cls, shape):
        n = 1
        for s in shape:
            n *= s
        self = int.__new__(cls, n)
        self._shape = shape
        return self

    def __call__(self, dim=None):
        if dim is None:
            return Size(self._shape)
        from .ops.args import axis
        return self._shape[axis(dim, len(self._shape), "size", "dim")]


class SetValueShapeError(AssertionError, ValueError):
    """set_value with a value of another shape: Paddle's AssertionError, also a ValueError."""


class ViewMeta:
    __slots__ = ("creation", "attr_version", "op_name", "out_index")

    def __init__(self, creation, attr_version, op_name, out_index=0):
        self.creation = creation
        self.attr_version = attr_version
        self.op_name = op_name
        self.out_index = out_index


# Note [Result class]
# One core, two front doors (oar: Paddle's meanings; oar.torch: PyTorch's). A door's tensor is
# a thin subclass of Tensor (`__slots__ = ()`, same layout) that overrides only the methods
# whose meaning differs between the frameworks. Every op returns `_result_class` of its first
# tensor operand, so `x.split(1)` keeps the meaning of the framework x was made in, with no
# global mode and no flag read per call: registry.dispatch and the view dispatch wrap their
# results in it, the spelling templates' fast paths run for every class in FAST_CLASSES and
# wrap in the operand's class, and a leaf's `.grad` takes the leaf's result class. A
# Parameter's result class is its door's plain tensor (as in PyTorch, `p * 2` is not a
# Parameter). Mixed operands: the first tensor operand decides.
FAST_CLASSES = set()   # classes whose instances may take Note [Fast path]; doors add theirs
# Note [Field classes]
# Classes whose autograd fields (_requires_grad, _grad_fn, _view, _base, _out_nr, _storage)
# mean exactly the core Tensor's, with no property overriding them, so
# registry's hot loops (dispatch's fast path, _needs_grad, _make_node) read the fields
# directly instead of calling properties. A door's plain tensor class adds itself; a
# Parameter class (which may override) does not. Unlike FAST_CLASSES this set is never
# emptied: it says what the fields mean, not whether a shortcut is allowed.
FIELD_CLASSES = set()

# Note [Door-neutral core]
# Shared code (kernels, derivative formulas, nn, optimizers) runs on tensors of either door,
# gradients included (a gradient takes the class of the tensor it flows from). So it never
# calls a method whose meaning the doors change (split, chunk, max/min with an axis, sort,
# gather, index_select, scatter, transpose, cumsum, numel, size, numpy, ...: the table in
# the door table in docs/doors.md) on a tensor it did not make itself: it calls the core function
# (`registry.FUNCTIONS[name]`) or reads the fields (`x._data.size`).


def wrap_as(cls, array, storage=None):
    """A `cls` tensor over `array`; a new Storage unless `storage` (which array views) is given."""
    t = _new(cls)
    t._data = array
    t._storage = _new_storage(array) if storage is None else storage
    t._base = None
    t._view = None
    t._requires_grad = False
    t._grad_fn = None
    return t


# Note [Result layout per door]
# An op's result that owns new memory takes its door's layout. PyTorch's TensorIterator
# gives a pointwise result its operands' memory order (a transposed operand gives a
# transposed result), which NumPy's order='K' kernels already do. Paddle 3.3.1's kernels
# write every such result C-contiguous (`x.transpose([1, 0]) + 2`, `.exp()`, `.clone()`,
# `.astype()`, reductions: all is_contiguous()), so a Paddle-door result that a kernel left
# in another order is copied to C order by wrap_result, which dispatch and the spellings'
# fast paths call for every op result. Views keep their strides in both doors, and so do
# tensors that are not op results (DLPack imports share memory). The torch door's class sets
# _contiguous_results False: it pays one class-attribute read per result, the Paddle door
# one flags read more, and a copy only where Paddle's kernels also make one.
def wrap_result(cls, array):
    """wrap_as for an op's new result (Note [Result layout per door])."""
    if cls._contiguous_results and not array.flags.c_contiguous:
        array = array.copy()   # ndarray.copy() is C order
    return wrap_as(cls, array)


def _empty_strides(shape):
    """NumPy reports all-zero strides for a new array with no elements; PyTorch reports the
    contiguous strides with every size counted as at least 1, and so does oar. Views of an
    empty tensor keep NumPy's strides and offset (no element is reachable through them, so
    data and gradients agree; docs/doors.md, disagreement table)."""
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


_NAME_COUNTS = {}


def _next_name(prefix):
    """prefix_N with a per-prefix counter (Note [Tensor names])."""
    n = _NAME_COUNTS.get(prefix, 0)
    _NAME_COUNTS[prefix] = n + 1
    return f"{prefix}_{n}"


class Tensor:
    """An n-dimensional array that is a window onto a shared Storage, with autograd.

    Views share the storage (and its version counter); in-place ops (`x.add_(y)`,
    `x += y`) write into it and return the same object. Create tensors with
    oar.to_tensor / oar.tensor or a creation function such as oar.zeros.
    """
    # Hot fields are slots; rarely set ones live in the instance __dict__ (created on first
    # write) with class-level defaults, so making a tensor sets six fields, not twelve.
    __slots__ = ("_data", "_storage", "_base", "_view", "_requires_grad", "_grad_fn",
                 "__dict__", "__weakref__")
    _out_nr = 0
    _grad = None
    _acc = None
    _hooks = None
    _post_acc_hooks = None   # Note [Post-accumulate hooks]
    _retains_grad = False
    __array_priority__ = 1000
    # Note [Result class]: the class of what ops on this tensor return (a door's subclass
    # keeps its own; a Parameter's results are plain tensors of its door).
    _result_class = None   # set below: Tensor
    _contiguous_results = True   # Note [Result layout per door]

    # ------------------------------------------------------------------ construction
    @classmethod
    def _wrap(cls, array, storage=None):
        """A tensor over `array`; a new Storage unless `storage` (which array views) is given."""
        return wrap_as(cls, array, storage)

    def __init__(self, *args, **kwargs):
        raise TypeError("create tensors with oar.to_tensor(data) / oar.tensor(data) or a "
                        "creation function such as oar.zeros(shape)")

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self):
        """The shape, as an oar.Size (a tuple of ints)."""
        return Size(self._data.shape)

    @property
    def size(self):
        """Paddle's `x.size`: the number of elements, an int. Calling it, `x.size()` /
        `x.size(dim)`, gives the shape / one dimension's size, as in Paddle 3.3 (its
        TensorSize); the PyTorch door's Tensor.size is a method (docs/doors.md)."""
        return TensorSize(self._data.shape)

    @property
    def ndim(self):
        """The number of dimensions."""
        return self._data.ndim

    def dim(self):
        """The number of dimensions."""
        return self._data.ndim

    ndimension = dim

    def numel(self):
        """The number of elements, as Paddle returns it: a 0-d int64 tensor (the PyTorch
        door's numel() is a Python int; the door table in docs/doors.md)."""
        return wrap_as(self._result_class, np.asarray(self._data.size, dtype=np.int64))

    @property
    def dtype(self):
        """The element type, an oar.dtype (oar.float32, oar.int64, ...)."""
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def place(self):
        """Where the data lives: CPUPlace, or Place(gpu:N) (Note [Array module per place])."""
        return _place_of(self._data)

    @property
    def device(self):
        """Where the data lives (Paddle's spelling: the place)."""
        return _place_of(self._data)

    @property
    def is_cuda(self):
        """Whether the data lives on a GPU."""
        return _place_of(self._data).kind == "gpu"

    @property
    def is_xpu(self):
        """False: no Intel GPU tensors in this build (programs test it beside is_cuda)."""
        return False

    def element_size(self):
        """The size of one element in bytes."""
        return self._data.itemsize

    def stride(self, dim=None):
        """Strides in elements (a tuple), or the stride of dimension dim."""
        a = self._data
        if a.size or self._view is not None:
            item = a.itemsize
            st = tuple(s // item for s in a.strides)
        else:
            st = _empty_strides(a.shape)
        if dim is None:
            return st
        from .ops.args import axis
        return st[axis(dim, a.ndim, "stride")]

    @property
    def strides(self):
        """Strides in elements, as a list (Paddle's spelling)."""
        return list(self.stride())

    def storage_offset(self):
        """The first element's offset from the start of the storage, in elements."""
        return (self.data_ptr() - self._storage.data_ptr()) // self._data.itemsize

    def data_ptr(self):
        """The address of the first element."""
        return _data_ptr(self._data)

    def is_contiguous(self):
        """Whether the elements are laid out in C (row-major) order without gaps."""
        return self._data.flags.c_contiguous

    @property
    def inplace_version(self):
        """The storage's version counter, bumped by every in-place write to it."""
        return self._storage.version

    @property
    def _version(self):
        st = self._storage
        if st.inference:   # Note [Inference tensors]
            from .autograd.grad_mode import INFERENCE_VERSION_ERROR
            raise RuntimeError(INFERENCE_VERSION_ERROR)
        return st.version

    def _bump_inplace_version(self):
        self._storage.version += 1

    def _is_view(self):
        return self._view is not None

    def _is_shared_buffer_with(self, other):
        return self._storage is other._storage

    def get_storage_nbytes(self):
        """The size in bytes of the whole storage this tensor is a window onto."""
        return self._storage.nbytes

    # ------------------------------------------------------------------ autograd flags
    @property
    def grad_fn(self):
        """The node that computed this tensor (None for a leaf or a tensor without history)."""
        if self._view is None or self._view.attr_version == self._storage.version:
            return self._grad_fn
        return self._regenerate_view_grad_fn()

    def _regenerate_view_grad_fn(self):
        """Note [View grad_fn regeneration] (autograd/inplace.py)."""
        from .autograd.inplace import regenerate_view_grad_fn
        return regenerate_view_grad_fn(self)

    @property
    def requires_grad(self):
        """Whether gradients are computed for this tensor (PyTorch's spelling)."""
        # raw fields, as PyTorch: reading the flag never regenerates (or refuses) a view's
        # grad_fn; using a stale multi-output or no_grad view in a recorded op still does
        if self._requires_grad or self._grad_fn is not None:
            return True
        return self._view is not None and self._base.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        value = bool(value)
        if self.grad_fn is not None:
            if not value:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach().")
            return
        if value and not (_dt.is_float(self._data.dtype) or self._data.dtype.kind == "c"):
            raise RuntimeError(f"only Tensors of floating point and complex dtype can require gradients "
                               f"(got {self.dtype.name})")
        if value and self._storage.inference:   # Note [Inference tensors]
            from .autograd import grad_mode
            if not grad_mode.INFERENCE.enabled:
                raise RuntimeError(grad_mode.INFERENCE_REQUIRES_GRAD_ERROR)
        self._requires_grad = value

    def requires_grad_(self, requires_grad=True):
        """Sets requires_grad in place and returns self."""
        self.requires_grad = requires_grad
        return self

    # Note [Tensor names]
    # Paddle names every eager tensor: generated_tensor_N for one made by to_tensor,
    # eager_tmp_N for an op's result, "<layer full name>.w_K" / ".b_K" for a layer's weight or
    # bias (Layer.__setattr__). oar gives a tensor its name on first read (so the numbers
    # count reads, not creations: only the prefixes and identity match Paddle's), keeping the
    # hot path free of a counter; an in-place op returns the same tensor, hence the same name.
    # Paddle 3.3.1 names lazily too: an error message quoting a tensor shows its name only
    # once something has read it (`Leaf Var () that doesn't stop gradient ...` otherwise), so
    # messages use `_name_if_read`, which never assigns one.
    @property
    def name(self):
        """Paddle's tensor name (Note [Tensor names]); settable."""
        d = self.__dict__
        n = d.get("name")
        if n is None:
            n = d["name"] = _next_name("generated_tensor" if d.get("_made_by_to_tensor")
                                       else "eager_tmp")
        return n

    @name.setter
    def name(self, value):
        self.__dict__["name"] = value

    @property
    def _name_if_read(self):
        """The name if one was read or set, else "" (Note [Tensor names])."""
        return self.__dict__.get("name") or ""

    @property
    def stop_gradient(self):
        """Whether gradients are NOT computed for this tensor (Paddle's spelling)."""
        return not self.requires_grad and not self.__dict__.get("_int_grad_flag", False)

    @stop_gradient.setter
    def stop_gradient(self, value):
        if not value and not (_dt.is_float(self._data.dtype) or self._data.dtype.kind == "c"):
            # Paddle accepts the flag on an integer tensor (labels, indices): it is recorded
            # and reads back, but integer tensors take no part in autograd here (Paddle would
            # differentiate integer ops; the door table lists the difference)
            self.__dict__["_int_grad_flag"] = True
            return
        self.__dict__.pop("_int_grad_flag", None)
        if value and self.grad_fn is not None:
            # Paddle: stop_gradient=True on an intermediate cuts the graph there.
            self._grad_fn = None
            self._requires_grad = False
            if self._view is not None:
                self._view.attr_version = self._storage.version
            return
        self.requires_grad = not value

    @property
    def is_leaf(self):
        """Whether this tensor has no grad_fn (created by the user, or without history)."""
        return self.grad_fn is None

    @property
    def grad(self):
        """The accumulated gradient (a Tensor of the same shape and dtype), or None."""
        return self._grad

    @grad.setter
    def grad(self, value):
        # checked as PyTorch checks it: a Tensor (or None) of this tensor's shape and dtype
        if value is not None:
            if not isinstance(value, Tensor):
                raise ArgTypeError("assigned grad expected to be a Tensor or None but got grad "
                                   f"of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise ArgValueError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the "
                    "gradient and the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise ArgTypeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.name}' to a "
                    f"tensor with dtype '{self.dtype.name}': assigned grad has data of a "
                    "different type. Fix: cast it first, e.g. `w.grad = g.astype(w.dtype)`")
        self._grad = value

    def _edge(self):
        """(node, out_nr) the gradient for this tensor flows into, or None."""
        fn = self.grad_fn
        if fn is not None:
            return (fn, self._out_nr)
        if self._requires_grad:
            acc = self._acc() if self._acc is not None else None
            if acc is None:
                acc = AccumulateGrad(self)
                self._acc = weakref.ref(acc)
            return (acc, 0)
        return None

    def _accumulate_grad(self, g, owned=False):
        if _RECORDER is not None:   # Note [Capture and replay]
            return _RECORDER.accumulate(self, g, owned)
        if self._hooks:
            owned = False   # a hook may keep the gradient
            for hook in self._hooks:
                r = hook(g)
                if r is not None:
                    g = hook_result(hook, g, r)
        if not self._requires_grad:
            return   # detached in place (detach_, requires_grad_(False)) since: PyTorch skips it
        arr = g._data
        if arr.dtype != self._data.dtype:
            arr = arr.astype(self._data.dtype)
        if arr.shape != self._data.shape:
            arr = np.broadcast_to(arr, self._data.shape)
        if grad_mode.is_grad_enabled():  # create_graph: keep the gradient's history
            g2 = g if g._data is arr else wrap_as(self._result_class, _xp_array(arr))
            with _GRAD_LOCK:
                self._grad = g2 if self._grad is None else self._grad + g2
            if self._post_acc_hooks:
                self._run_post_acc_hooks()
            return
        with _GRAD_LOCK:   # Note [Gradient accumulation is atomic]
            if self._grad is None:
                if (owned and arr is g._data and arr is g._storage.buffer
                        and arr.flags.c_contiguous and g._grad_fn is None
                        and _refcount(g._storage) == 2):
                    # The engine vouches (Note [Gradient ownership]) that its own formulas
                    # made g during this backward and nothing else holds it; the storage
                    # count (g's reference plus getrefcount's argument) says no view shares
                    # its memory. From now on it is .grad: no backward owns it any more.
                    g._storage.owner = None
                    if g.__class__ is not self._result_class:   # Note [Result class]
                        g.__class__ = self._result_class
                    self._grad = g
                else:
                    self._grad = wrap_as(self._result_class, _xp_array(arr, order="C", copy=True))
                if self._result_class is Tensor:   # Note [Leaf gradients per door]
                    self._grad._requires_grad = True
            else:
                self._grad._data += arr
                self._grad._storage.version += 1
        if self._post_acc_hooks:
            self._run_post_acc_hooks()

    # Note [Post-accumulate hooks]
    # register_post_accumulate_grad_hook(hook) (PyTorch's API, both doors) runs hook(leaf)
    # right after backward has accumulated the leaf's gradient into .grad, in registration
    # order; not for oar.grad (nothing is accumulated), as in PyTorch. Data parallelism
    # (oar/distributed/_reducer.py) uses it to start a bucket's all-reduce as soon as its
    # last gradient is in, while the rest of backward runs. One attribute test per leaf
    # when no hook is registered (a class-level None).
    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) -> None, run after backward has accumulated this leaf's gradient into
        .grad (Note [Post-accumulate hooks]); returns a handle whose remove() unregisters it."""
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient (stop_gradient=True)")
        if not callable(hook):
            raise TypeError(f"register_post_accumulate_grad_hook: hook must be callable, got "
                            f"{type(hook).__name__}")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = []
        self._post_acc_hooks.append(hook)
        return _HookHandle(self._post_acc_hooks, hook)

    def _run_post_acc_hooks(self):
        for hook in list(self._post_acc_hooks):
            r = hook(self)
            if r is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None "
                                   f"({getattr(hook, '__name__', hook)} returned a "
                                   f"{type(r).__name__}; it may change .grad in place)")

    # Note [Leaf gradients per door]
    # Paddle 3.3 makes a leaf's .grad a tensor with stop_gradient=False (it prints so, and an
    # in-place op on it outside no_grad is refused as on any leaf that needs a gradient);
    # PyTorch's .grad has requires_grad=False. Each door follows its framework: the Paddle
    # door's accumulated gradient (result class Tensor) needs a gradient, the PyTorch door's
    # does not. Optimizers, clipping and clear_grad touch gradients under no_grad, as
    # Paddle's do.
    def _retain(self, g):
        arr = g._data
        with _GRAD_LOCK:
            if self._grad is None:   # Note [Result class]
                self._grad = wrap_as(self._result_class, _xp_array(arr, copy=True))
            else:
                self._grad = wrap_as(self._result_class, self._grad._data + arr)
            if self._result_class is Tensor:   # Note [Leaf gradients per door], retained too
                self._grad._requires_grad = True

    def retain_grad(self):
        """Keep .grad for this non-leaf tensor on the next backward. On a tensor outside
        autograd (stop_gradient=True) it does nothing, as in Paddle (the PyTorch door's
        retain_grad refuses it, as PyTorch does)."""
        fn = self.grad_fn
        if fn is None:
            return   # a leaf keeps its .grad anyway; a tensor outside autograd has none
        self._retains_grad = True
        add_retained(fn, self._out_nr, self)   # Note [Retained gradients]

    def _move_retain(self, old, old_nr, new, new_nr=0):
        """Note [Retained gradients]: self's grad_fn changed from (old, old_nr) to
        (new, new_nr); its .grad now retains the gradient of the new value."""
        if old is not None:
            drop_retained(old, old_nr, self)
        if new is not None:
            add_retained(new, new_nr, self)

    retain_grads = retain_grad

    @property
    def retains_grad(self):
        """Whether this non-leaf tensor keeps its .grad on backward (retain_grad())."""
        return self._retains_grad

    def register_hook(self, hook):
        """hook(grad) -> new grad or None, called when the gradient for this tensor is computed."""
        fn = self.grad_fn
        if fn is None:
            if not self.requires_grad:
                raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                                   "gradient (stop_gradient=True)")
            if self._hooks is None:
                self._hooks = []
            self._hooks.append(hook)
            hooks = self._hooks
        else:
            if fn.pre_hooks is None:
                fn.pre_hooks = {}
            hooks = fn.pre_hooks.setdefault(self._out_nr, [])
            hooks.append(hook)
        return _HookHandle(hooks, hook)

    def backward(self, grad_tensor=None, retain_graph=False, create_graph=False,
                 gradient=None):
        """Computes the gradients of this tensor w.r.t. the leaves into their .grad."""
        # the module, bound at import: an import statement here costs ~1.5 µs per call
        _functional.backward([self], [grad_tensor if gradient is None else gradient],
                             retain_graph=retain_graph, create_graph=create_graph)

    def clear_grad(self, set_to_zero=True):
        """Zeroes .grad in place (or sets it to None when set_to_zero is False)."""
        if self._grad is not None and set_to_zero:
            self._grad._data[...] = 0
        else:
            self._grad = None

    def clear_gradient(self, set_to_zero=True):
        """Zeroes .grad in place (or sets it to None when set_to_zero is False)."""
        self.clear_grad(set_to_zero)

    def zero_grad(self):
        """Zeroes .grad in place."""
        self.clear_grad()

    # ------------------------------------------------------------------ interop
    def gradient(self):
        """Paddle's (deprecated) gradient(): a copy of .grad as a NumPy array, None without one."""
        g = self.grad
        return None if g is None else _xp_array(g._data, copy=True)

    def set_value(self, value):
        """Paddle's set_value: overwrite every element with `value` (an array, list or tensor of
        this shape), in place and outside autograd (parameters included); returns None. The
        version is bumped (Paddle skips that; the Inplace rules never do)."""
        from .autograd.grad_mode import no_grad
        src = value._data if isinstance(value, Tensor) else np.asarray(value)
        if tuple(src.shape) != self._data.shape:
            raise SetValueShapeError(
                f"set_value(): the tensor has shape {list(self._data.shape)} but the value has "
                f"shape {list(src.shape)}. Fix: pass a value of shape {list(self._data.shape)}.")
        if src.dtype.kind not in "biuf":
            raise TypeError(f"set_value(): can't assign values of dtype {src.dtype}")
        with no_grad():
            self.copy_(value if isinstance(value, Tensor) else
                       wrap_as(Tensor, np.array(src, dtype=self._data.dtype)))

    def numpy(self, force=False):
        """A copy, as in Paddle: writes to it cannot bypass the version counter. (The
        PyTorch door's numpy() shares memory: Note [Shared memory with NumPy].)"""
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.data_read("Tensor.numpy()")
        a = self._data
        if a.__class__ is not np.ndarray:   # a device tensor: Paddle copies it to the host
            a = _to_place(a, CPU)
        if a.dtype == _dt.BFLOAT16_NP:   # Paddle: bfloat16 bits as uint16 (Note [bfloat16])
            return np.array(a, copy=True).view(np.uint16)
        return np.array(a, copy=True)

    def __array__(self, dtype=None, copy=None):
        # Paddle's np.asarray(t) is a writable copy: a later in-place op on t must not show
        # through it. copy=False (NumPy's "never copy") gets a read-only view instead, so
        # writes through NumPy cannot bypass the version counter either. The PyTorch door
        # shares memory (Note [Shared memory with NumPy]).
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.data_read("numpy.asarray(tensor)")
        if self._data.__class__ is not np.ndarray:
            return self.numpy() if dtype is None else self.numpy().astype(dtype)
        if copy is not False:
            return np.array(self._data, dtype=dtype, copy=True)
        view = self._data.view()
        view.flags.writeable = False
        return view if dtype is None else view.astype(dtype, copy=False)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over this tensor's memory (`np.from_dlpack(t)`,
        `torch.from_dlpack(t)`): no copy, writes through the consumer bypass the version
        counter. Refuses a tensor that requires grad (use t.detach()); Note [Memory shared
        outside oar] (oar/utils/dlpack.py) has the rules."""
        from .utils.dlpack import export
        return export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        """(device type, device id) for DLPack: (kDLCPU, 0), or (kDLCUDA, N) on a GPU."""
        from .utils.dlpack import CPU_DEVICE, DLDeviceType
        p = _place_of(self._data)
        return CPU_DEVICE if p.kind == "cpu" else (DLDeviceType.kDLCUDA, p.index)

    # Note [NumPy ufuncs on tensors]
    # A NumPy ufunc called on a tensor (`np.add(t, 1)`, `np.exp(t)`, and `ndarray + t`, which
    # NumPy turns into `np.add(ndarray, t)`) lands in __array_ufunc__ below. The ufuncs that are
    # Python operators (+ - * / // % ** @, comparisons, & | ^, unary - + abs ~), called plainly
    # (no out=, where=, dtype=), answer with the tensor's own operator: a tensor of the
    # operand's door (Note [Result class]) with its autograd history, exactly what `t + 1` or
    # `1 + t` gives (Paddle and PyTorch return a tensor for `ndarray + t` as well; torch 2.13's
    # raises a TypeError for some of them). Every other ufunc call (np.exp(t), out=, ufunc
    # methods such as np.add.reduce) is the door's `_array_ufunc_other`: the Paddle door refuses
    # it with a TypeError naming the fix, as Paddle 3.3.1 refuses every ufunc (it would give an
    # ndarray and lose autograd); the PyTorch door follows PyTorch 2.13 (oar/torch/_tensor.py).
    # NumPy's reductions called on a tensor (np.sum, np.mean, np.prod, np.max/amax,
    # np.min/amin, np.any, np.all) reach __array_function__: with only axis / keepdims (and
    # dtype for sum, mean, prod) they are the core reductions, a tensor with autograd (Paddle
    # returns a tensor for np.sum / np.mean; torch 2.13 raises a confusing TypeError); other
    # arguments (out=, where=, initial=) and np.std / np.var (NumPy's ddof=0 against the
    # frameworks' unbiased default) are refused with a TypeError naming the fix. Every other
    # NumPy function keeps NumPy's own behaviour on `np.asarray(t)` (an ndarray, as in both
    # frameworks).
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """Note [NumPy ufuncs on tensors]: operator ufuncs give tensors; others per door."""
        if method == "__call__" and not kwargs:
            name = ufunc.__name__
            if len(inputs) == 2 and name in _BINARY_UFUNCS:
                x, y = inputs
                fwd, rev = _BINARY_UFUNCS[name]
                r = getattr(x, fwd)(y) if isinstance(x, Tensor) else getattr(y, rev)(x)
                if r is not NotImplemented:
                    return r
            elif len(inputs) == 1 and name in _UNARY_UFUNCS:
                return getattr(inputs[0], _UNARY_UFUNCS[name])()
        return self._array_ufunc_other(ufunc, method, inputs, kwargs)

    def _array_ufunc_other(self, ufunc, method, inputs, kwargs):
        """The Paddle door refuses NumPy ufuncs (Note [NumPy ufuncs on tensors])."""
        call = "numpy." + ufunc.__name__ + ("" if method == "__call__" else "." + method)
        if "out" in kwargs:
            fix = ("pass an ndarray instead, e.g. t.numpy(), or compute in oar and write "
                   "with the in-place op (x.add_(y), x.copy_(y))")
        else:
            fix = (f"use the oar op, e.g. oar.{ufunc.__name__}(t) (a tensor with autograd), or "
                   f"{call}(t.numpy()) for an ndarray")
        raise TypeError(f"{call}() does not run on oar Tensors (Paddle refuses NumPy ufuncs "
                        f"on tensors too; it would return an ndarray without autograd). Fix: "
                        f"{fix}")

    def __array_function__(self, func, types, args, kwargs):
        """Note [NumPy ufuncs on tensors]: NumPy's reductions give tensors; every other NumPy
        function works on np.asarray(t), as it does without this hook."""
        name = _NP_REDUCTIONS.get(func)
        if name is None:
            return func._implementation(*args, **kwargs)
        from .ops.registry import FUNCTIONS
        params = _inspect.signature(func).bind(*args, **kwargs).arguments
        x = params.pop("a")
        axis = params.pop("axis", None)
        keepdims = params.pop("keepdims", False)
        dtype = params.pop("dtype", None) if name in ("sum", "mean", "prod") else None
        extra = sorted(k for k, v in params.items() if v is not None and v is not np._NoValue)
        if name in ("std", "var") or extra or not isinstance(x, Tensor):
            what = f" with {', '.join(extra)}=" if extra else ""
            raise TypeError(
                f"numpy.{func.__name__}(){what} on an oar Tensor is not supported: its meaning "
                f"differs from the tensor's (NumPy's ddof=0, out=, where=, initial=). Fix: use "
                f"the tensor method, e.g. t.{name}(axis) (a tensor with autograd), or "
                f"numpy.{func.__name__}(t.numpy(), ...) for NumPy's result")
        keepdims = False if keepdims is np._NoValue else keepdims
        kw = {"axis": list(axis) if isinstance(axis, tuple) else axis,
              "keepdim": bool(keepdims)}
        if dtype is not None:
            kw["dtype"] = dtype
        return FUNCTIONS[name](x, **kw)

    def tolist(self):
        """The elements as (nested) Python lists of Python numbers."""
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.data_read("Tensor.tolist()")
        if self._data.dtype == _dt.BFLOAT16_NP and self._result_class is Tensor:
            return self._data.view(np.uint16).tolist()   # Paddle: bfloat16's bits (as numpy())
        return self._data.tolist()

    def item(self, *index):
        """The single element (or the element at index) as a Python number."""
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.data_read("Tensor.item()")
        if index:
            return self._data[index].item()
        if self._data.size != 1:
            raise ArgValueError(f"item(): a Tensor with {self._data.size} elements (shape "
                                f"{list(self._data.shape)}) cannot be converted to a Python "
                                "number; item() needs exactly one element")
        return self._data.item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.item())

    def __bool__(self):
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.data_read("bool(tensor)")
        if self._data.size != 1:
            raise ArgValueError(
                f"The truth value of a tensor with {self._data.size} elements (shape "
                f"{list(self._data.shape)}) is ambiguous; use .any() or .all()")
        return bool(self._data.item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __hash__(self):
        return id(self)

    def __repr__(self):
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.data_read("printing a tensor")
        from ._repr import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec):
        # both frameworks: a 0-d tensor formats as its Python number ("{}" and "{:.2f}");
        # any other tensor prints itself, and refuses a format spec with Python's TypeError
        if _RECORDER is not None:   # Note [Capture and replay]
            _RECORDER.data_read("formatting a tensor")
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __reduce_ex__(self, protocol):
        cls = self._result_class   # Note [Result class]: a door's tensor comes back as one
        if cls is Tensor:
            return (_rebuild, (np.array(self._data), self.stop_gradient))
        return (_rebuild, (np.array(self._data), self.stop_gradient, cls))

    def __deepcopy__(self, memo):
        t = wrap_as(self._result_class, _xp_array(self._data, copy=True))
        t._requires_grad = self._requires_grad and self.grad_fn is None
        memo[id(self)] = t
        return t


Tensor._result_class = Tensor
FAST_CLASSES.add(Tensor)
FIELD_CLASSES.add(Tensor)

# Note [NumPy ufuncs on tensors]: the ufuncs that are Python operators, as (method when the
# tensor is the first operand, reflected method when it is the second).
_BINARY_UFUNCS = {
    "add": ("__add__", "__radd__"), "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"), "divide": ("__truediv__", "__rtruediv__"),
    "floor_divide": ("__floordiv__", "__rfloordiv__"), "remainder": ("__mod__", "__rmod__"),
    "power": ("__pow__", "__rpow__"), "matmul": ("__matmul__", "__rmatmul__"),
    "equal": ("__eq__", "__eq__"), "not_equal": ("__ne__", "__ne__"),
    "less": ("__lt__", "__gt__"), "less_equal": ("__le__", "__ge__"),
    "greater": ("__gt__", "__lt__"), "greater_equal": ("__ge__", "__le__"),
    "bitwise_and": ("__and__", "__rand__"), "bitwise_or": ("__or__", "__ror__"),
    "bitwise_xor": ("__xor__", "__rxor__"),
}
_UNARY_UFUNCS = {"negative": "__neg__", "positive": "__pos__", "absolute": "__abs__",
                 "invert": "__invert__"}
_NP_REDUCTIONS = {np.sum: "sum", np.mean: "mean", np.prod: "prod", np.max: "amax",
                  np.amax: "amax", np.min: "amin", np.amin: "amin", np.any: "any",
                  np.all: "all", np.std: "std", np.var: "var"}


def _rebuild(array, stop_gradient, cls=None):
    t = wrap_as(cls or Tensor, array)
    t._requires_grad = not stop_gradient
    return t
