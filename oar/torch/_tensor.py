"""oar.torch.Tensor: the core Tensor with PyTorch's meaning where the frameworks differ.

Note [Result class] (oar/tensor.py) says how a tensor made through this door stays one:
every op returns the result class of its first tensor operand. This module holds the
door's tensor, its Parameter, its dtype objects (`torch.float32`), `torch.Size` and the
named tuples of `torch.return_types`; the conflicting functions and the methods built from
them live in oar/torch/_functions.py (Note [Door conflicts] there).
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import FAST_CLASSES, FIELD_CLASSES, Size as _CoreSize
from ..tensor import Tensor as _CoreTensor
from ..nn.layers import Parameter as _CoreParameter
from .._repr import torch_repr
from ..ops import indexing as _indexing

import importlib
_core = importlib.import_module("oar.tensor")   # the module (oar.tensor is also a function)


# --------------------------------------------------------------------------- dtypes
class dtype(_dt.DType):   # noqa: N801  (torch.dtype)
    """torch.dtype: prints as `torch.float32` and is equal (and hashes equal) to the core
    dtype of the same name, so `t.dtype == oar.float32` and every core function accept it."""
    __slots__ = ()

    def __repr__(self):
        return f"torch.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, _dt.DType):
            return self.np == other.np
        try:
            return self.np == _dt.as_dtype(other).np
        except TypeError:
            return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (_torch_dtype_named, (self.name,))

    @property
    def is_signed(self):
        """Whether the type holds negative values (PyTorch's dtype.is_signed)."""
        return self.np.kind in "ifc"


DTYPES = {d.np: dtype(d.name, d.np) for d in _dt.ALL}
_BY_NAME = {d.name: d for d in DTYPES.values()}


def _torch_dtype_named(name):
    return _BY_NAME[name]


def torch_dtype(d):
    """The door's dtype object for a core dtype, a NumPy dtype or a name."""
    return DTYPES[_dt.as_dtype(d).np]


_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
               "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}
_BY_TYPE_NAME = {v: k for k, v in _TYPE_NAMES.items()}


# --------------------------------------------------------------------------- Size
class Size(_CoreSize):
    """torch.Size: a tuple of ints printed as `torch.Size([2, 3])`. Slicing and `+` give a
    Size. (Unlike torch.Size it also compares equal to a list: shared core code compares
    shapes with lists; the door table in docs/doors.md.)"""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


# --------------------------------------------------------------------------- return types
class _ReturnType(tuple):
    """A torch.return_types named tuple: (values, indices) with attribute access, indexable
    and unpackable, printed as PyTorch prints it."""
    __slots__ = ()
    _fields = ("values", "indices")

    def __new__(cls, items):
        items = tuple(items)
        if len(items) != len(cls._fields):
            raise ArgTypeError(f"torch.return_types.{cls.__name__} takes a sequence of "
                               f"{len(cls._fields)} elements, got {len(items)}")
        return tuple.__new__(cls, items)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _field(i, name):
    return property(lambda self: tuple.__getitem__(self, i),
                    doc=f"Element {i} ({name}) of the named tuple.")


def _return_type(name, fields=("values", "indices")):
    ns = {"__slots__": (), "_fields": fields, "__module__": "torch.return_types",
          "__doc__": f"torch.return_types.{name}: ({', '.join(fields)})."}
    for i, f in enumerate(fields):
        ns[f] = _field(i, f)
    return type(name, (_ReturnType,), ns)


class return_types:   # noqa: N801  (torch.return_types, a namespace)
    """The named tuples PyTorch's multi-output reductions return."""
    max = _return_type("max")
    min = _return_type("min")
    median = _return_type("median")
    nanmedian = _return_type("nanmedian")
    mode = _return_type("mode")
    kthvalue = _return_type("kthvalue")
    sort = _return_type("sort")
    topk = _return_type("topk")
    cummax = _return_type("cummax")
    cummin = _return_type("cummin")
    aminmax = _return_type("aminmax", ("min", "max"))


# --------------------------------------------------------------------------- the tensor
_FLOAT_WARNED = False   # Tensor.__float__'s once-per-process warning has been given


class Tensor(_CoreTensor):
    """A tensor of the PyTorch door: methods mean what they mean in PyTorch 2.13.

    Note [Door conflicts] (oar/torch/_functions.py) lists what differs from the core's
    (Paddle's) meaning; everything else is the core's shared code."""
    __slots__ = ()
    _contiguous_results = False   # Note [Result layout per door]: torch keeps operands' order

    # torch 2.13's indexing rules, not NumPy's (Note [Torch indexing], oar/ops/indexing.py)
    __getitem__ = _indexing.torch_getitem
    __setitem__ = _indexing.torch_setitem
    __delitem__ = _indexing.torch_delitem

    def __float__(self):
        # torch 2.13 warns (once per process, TORCH_WARN_ONCE) when float() drops a tensor's
        # autograd history: d2l's `float(l.sum())` on a loss shows it; int(), item() do not
        global _FLOAT_WARNED
        if not _FLOAT_WARNED and self.requires_grad:
            _FLOAT_WARNED = True
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                          "unexpected behavior.\nConsider using tensor.detach() first.",
                          UserWarning, stacklevel=2)
        return _CoreTensor.__float__(self)

    # ------------------------------------------------------------- metadata
    @property
    def shape(self):
        """The shape, as a torch.Size."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape as a torch.Size, or the size of dimension dim (an int)."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_dim(dim, self._data.ndim)]

    def numel(self):
        """The number of elements, a Python int."""
        return self._data.size

    nelement = numel

    @property
    def dtype(self):
        """The element type, a torch.dtype (`torch.float32`), equal to the core dtype."""
        return DTYPES[self._data.dtype]

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """Without an argument the type name ('torch.FloatTensor'); with a dtype or a type
        name a cast (self when it already has that type)."""
        if dtype is None:
            return "torch." + _TYPE_NAMES[self._data.dtype.name]
        if isinstance(dtype, str):
            key = dtype.split(".")[-1]
            if key not in _BY_TYPE_NAME:
                raise ArgValueError(f"type(): invalid type: {dtype!r}")
            dtype = _BY_TYPE_NAME[key]
        elif isinstance(getattr(dtype, "dtype", None), _dt.DType):   # torch.DoubleTensor
            dtype = dtype.dtype
        elif not isinstance(dtype, _dt.DType):
            # torch takes a torch.dtype, a type name or a tensor type, never a Python or
            # NumPy type (x.type(float) is refused; x.to(float) is float64)
            mod = getattr(dtype, "__module__", None)
            name = getattr(dtype, "__qualname__", type(dtype).__name__)
            full = name if mod in (None, "builtins") else f"{mod}.{name}"
            raise ArgValueError(f"invalid type: '{full}'")
        d = _dt.as_dtype(dtype)
        if d.np == self._data.dtype:
            return self
        return self.to(d)

    # ------------------------------------------------------------- softmax methods
    def softmax(self, dim, dtype=None):
        """torch.Tensor.softmax: F.softmax(self, dim, dtype=dtype) (dim required)."""
        from .nn.functional import softmax
        return softmax(self, dim, dtype=dtype)

    def log_softmax(self, dim, dtype=None):
        """torch.Tensor.log_softmax: F.log_softmax(self, dim, dtype=dtype) (dim required)."""
        from .nn.functional import log_softmax
        return log_softmax(self, dim, dtype=dtype)

    # ------------------------------------------------------------- interop
    def numpy(self, *, force=False):
        """An ndarray over this tensor's memory (no copy), as in PyTorch: writes through
        either side are visible to the other. Note [Shared memory with NumPy]: such writes
        bypass the version counter, as they do in PyTorch. Refused for a tensor that
        requires grad (use t.detach().numpy()), unless force=True."""
        if _core._RECORDER is not None:   # Note [Capture and replay]
            _core._RECORDER.data_read("Tensor.numpy()")
        if not force and self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._data.__class__ is not np.ndarray and self.is_cuda:
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use "
                            "Tensor.cpu() to copy the tensor to host memory first.")
        if self._data.dtype == _dt.BFLOAT16_NP:   # NumPy has no bfloat16 for PyTorch
            raise ArgTypeError("Got unsupported ScalarType BFloat16 (numpy() of a bfloat16 "
                               "tensor; fix: t.float().numpy())")
        return self._data.view()

    def __array__(self, dtype=None, copy=None):
        """np.asarray(t) as in PyTorch: an ndarray over this tensor's memory (Note [Shared
        memory with NumPy]); refused for a tensor that requires grad. copy=True copies."""
        a = self.numpy()
        if dtype is not None and np.dtype(dtype) != a.dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def _array_ufunc_other(self, ufunc, method, inputs, kwargs):
        """A NumPy ufunc that is not an operator, as PyTorch 2.13 runs it (Note [NumPy
        ufuncs on tensors]): NumPy computes over the tensors' memory and an ndarray result
        comes back as a tensor of this door (bool stays bool: PyTorch's uint8 is a quirk of
        its __array_wrap__); a tensor that requires grad is refused (no autograd through
        NumPy); with out= an ndarray, that ndarray is written and returned."""
        out = kwargs.get("out", ())
        out = out if isinstance(out, tuple) else (out,)
        for o in out:
            if isinstance(o, _CoreTensor):
                raise TypeError(f"numpy.{ufunc.__name__}(..., out=tensor): NumPy cannot write "
                                "into an oar tensor (it would bypass autograd and the version "
                                "counter). Fix: compute with the oar op and write with an "
                                "in-place op, e.g. t.copy_(result) or torch.add(a, b, out=t)")
        arrays = tuple(Tensor.numpy(x) if isinstance(x, _CoreTensor) else x for x in inputs)
        r = getattr(ufunc, method)(*arrays, **kwargs)
        if out:
            return r

        def wrap(v):
            return Tensor._wrap(np.asarray(v)) if isinstance(v, (np.ndarray, np.generic)) else v
        return tuple(wrap(v) for v in r) if isinstance(r, tuple) else wrap(r)

    def __repr__(self):
        if _core._RECORDER is not None:   # Note [Capture and replay]
            _core._RECORDER.data_read("repr(tensor)")
        return torch_repr(self, lambda t: repr(t.dtype))

    __str__ = __repr__

    # ------------------------------------------------------------- autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Computes the gradient of this tensor w.r.t. the graph leaves into their .grad
        (only into `inputs`' .grad when given). Without `gradient` the tensor must hold one
        element (PyTorch: no implicit ones)."""
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def retain_grad(self):
        """Keep .grad for this non-leaf tensor on the next backward; refused on a tensor that
        does not require grad, as in PyTorch (Paddle's does nothing there)."""
        if self.grad_fn is None and not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        _CoreTensor.retain_grad(self)

    def register_hook(self, hook):
        """hook(grad) -> new grad or None. On a non-leaf tensor the hook also runs, with None,
        when its grad_fn runs without a gradient for it (another output of unbind, split, a
        custom Function...), as in PyTorch (Note [Hooks on an output without a gradient],
        oar/autograd/engine.py)."""
        if self.grad_fn is not None:
            hook = _HookSeesNone(hook)
        return _CoreTensor.register_hook(self, hook)


class _HookSeesNone:
    """A torch-door tensor hook: called with None for an output left without a gradient
    (Note [Hooks on an output without a gradient], oar/autograd/engine.py)."""
    sees_none = True

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, grad):
        return self.fn(grad)


Tensor._result_class = Tensor
FAST_CLASSES.add(Tensor)
FIELD_CLASSES.add(Tensor)   # Note [Field classes]


def _dim(d, nd):
    """PyTorch's dimension wrap, with its IndexError."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise ArgTypeError(f"size(): argument 'dim' must be int, not {type(d).__name__}")
    lo, hi = (-nd, nd - 1) if nd else (-1, 0)
    if not lo <= d <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {d})")
    return int(d) % nd if nd else 0


class Parameter(Tensor, _CoreParameter):
    """torch.nn.Parameter: a leaf tensor that requires grad, registered by Modules."""
    __slots__ = ()
    _result_class = Tensor

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


def as_door(t):
    """t as a tensor of this door (the same object, its class changed): for fresh results of
    core functions that take no tensor operand (creation functions)."""
    if isinstance(t, _CoreTensor) and t.__class__ is _CoreTensor:
        t.__class__ = Tensor
    return t


from . import _functions  # noqa: E402,F401  (installs the door's conflicting methods)
