"""oar.nn.Layer (alias Module), Parameter and the layers."""
from __future__ import annotations

from typing import Any

import functools
import inspect
import math
import re
import sys
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError
from ..autograd.inplace import bump
from ..ops import args as _args
from ..ops import elision as _elision
from ..storage import new_storage
from ..tensor import Tensor
from . import _checks as _c
from . import _kernels as _K
from . import functional as F
from . import init


class Parameter(Tensor):
    """A leaf tensor that requires grad (stop_gradient=False) and is registered by Layers."""
    __slots__ = ()
    # (oar/tensor.py's default is None, which mypy takes for the attribute's type)
    _result_class = Tensor  # type: ignore[assignment]  # Note [Result class]: p * 2 is a plain tensor
    # Paddle's: gradient clipping applies unless False (ParamAttr(need_clip=False), nn/clip.py)
    need_clip = True

    def __new__(cls, data, requires_grad=True):
        arr = data._data if isinstance(data, Tensor) else np.asarray(data)
        if arr.dtype.kind not in "biuf":
            raise ArgTypeError(f"Parameter: data must be a tensor or an array of numbers, got "
                               f"{type(data).__name__} {data!r}"[:160])
        if arr.dtype.kind != "f":
            arr = arr.astype(np.float32)
        p = cls._wrap(np.array(arr, copy=True))
        p._requires_grad = bool(requires_grad)
        return p

    def __init__(self, *a, **k):
        pass

    @property
    def trainable(self):
        """Whether the parameter requires grad (Paddle's spelling)."""
        return self._requires_grad

    @trainable.setter
    def trainable(self, v):
        self._requires_grad = bool(v)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    # Note [Parameter copies]
    # Tensor's deepcopy/pickle build a plain Tensor; a Parameter must come back as a
    # Parameter (same class, values, requires_grad, name), else a deep-copied or unpickled
    # model has no parameters. copy.deepcopy's memo keeps tied weights tied.
    def __deepcopy__(self, memo):
        p = type(self)(np.array(self._data, copy=True), self._requires_grad)
        if "name" in self.__dict__:
            p.name = self.name
        memo[id(self)] = p
        return p

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (type(self), np.array(self._data), self._requires_grad,
                                     self.__dict__.get("name")))


def _rebuild_parameter(cls, array, requires_grad, name=None):
    p = cls(array, requires_grad)
    if name is not None:
        p.name = name
    return p


class _HookRemoveHelper:
    """The handle a hook registration returns: remove() unregisters the hook (also usable as
    a context manager that removes it on exit)."""
    _next_id = 0

    def __init__(self, hooks):
        self._hooks = weakref.ref(hooks)
        self.id = _HookRemoveHelper._next_id
        _HookRemoveHelper._next_id += 1

    def remove(self):
        """Unregisters the hook (a second call does nothing)."""
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()



class _StateDictKeyError(KeyError, RuntimeError):
    """Missing or unexpected keys in a state dict (PyTorch RuntimeError, oar KeyError)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _dt_names():
    return ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")


# Note [Layer full names]
# Paddle names every layer at construction "<snake_case class name>_<n>", n counting per
# name in the process (conv2d_0, conv2d_1, ...); paddle.summary numbers its rows by that n
# ("Conv2D-2"), so oar keeps the same counter (Layer.full_name()).
_NAME_COUNTS: dict = {}


def _unique_name(layer, name_scope):
    if name_scope is None:
        name = type(layer).__name__
        name = re.sub(r"([a-z])([A-Z])", r"\1_\2", re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name))
        name_scope = name.lower()
    n = _NAME_COUNTS.get(name_scope, 0)
    _NAME_COUNTS[name_scope] = n + 1
    return f"{name_scope}_{n}"


# Note [Paddle default initialisers]
# The Paddle door's layers draw their parameters as Paddle 3.3.1 does (so a Paddle program
# trains the same curve, in distribution: the generators differ): Linear, Embedding and the
# transposed convolutions a Xavier-uniform weight (Paddle's create_parameter default), the
# convolutions N(0, 2 / (in_channels * kernel numel)) with the full in_channels even when
# grouped, every bias zero. The PyTorch door's subclasses override reset_parameters with
# torch's schemes (oar/torch/nn/layers.py). tests/test_paddle_defaults.py checks each
# against paddle's own layers.


# Note [Parameters take the default dtype]
# Both frameworks create a layer's parameters and floating buffers in the default dtype of
# the moment of creation (paddle.set_default_dtype / torch.set_default_dtype, one setting in
# oar: oar/dtypes.py); a layer built after set_default_dtype('float64') is float64
# throughout. Layers make their parameters through _param here (the PyTorch door's through
# oar/torch/nn/layers.py's _np_dtype), so a dtype left as None means "the default now". The
# exceptions are Paddle's own: the legacy nn.BatchNorm takes dtype='float32' as an argument,
# and BatchNorm1D/2D/3D stay float32 under a float16 default (_BatchNorm.__init__).
def _param(shape, dtype=None):
    return Parameter(np.zeros(shape, dtype=_default_np(dtype)))


def _recast(t, want):
    """t (the same object) over its data converted to the NumPy dtype want (Note [Paddle
    layer casts]): a fresh storage, no longer a view of anything."""
    if t._data.dtype != want:
        t._data = t._data.astype(want)
        t._storage = new_storage(t._data)
        t._base = None
        t._view = None


def _replace_place(t, place):
    """t (the same object) over a copy of its data on `place`: a fresh storage (Note [Moving
    between places])."""
    if _xp.place_of(t._data) != place:
        t._data = _xp.to_place(t._data, place)
        t._storage = new_storage(t._data)
        t._base = None
        t._view = None


def _layer_place(dev, op):
    """A layer's target device as a Place; refused (RuntimeError, as a CPU-only PyTorch) where
    no such device exists."""
    from ..ops.args import DeviceUnavailableError, device
    try:
        return device(dev, op)
    except DeviceUnavailableError:
        raise RuntimeError(f"{op}({dev!r}): oar runs on the CPU only (Torch not compiled with "
                           "CUDA enabled)") from None


def _legacy_bn():
    from ._more_layers import BatchNorm
    return [BatchNorm]


def _default_np(dtype=None):
    """dtype's NumPy dtype; None: the default dtype now (Note [Parameters take the default
    dtype])."""
    return (_dt.get_default_dtype() if dtype is None else _dt.as_dtype(dtype)).np


def _refuse_unhonoured_attrs(init):
    """Wraps a layer's __init__ so a weight_attr/bias_attr it would not honour is refused."""
    sig = inspect.signature(init)

    @functools.wraps(init)
    def checked_init(self, *args, **kwargs):
        bound = sig.bind_partial(self, *args, **kwargs).arguments
        attrs = {}
        for which in ("weight_attr", "bias_attr"):
            attrs[which] = bound.get(which)
            _check_param_attr(attrs[which], type(self).__name__, which)
        init(self, *args, **kwargs)
        if type(self).__init__ is checked_init:   # the outermost wrapped __init__ applies them
            for which, pname in (("weight_attr", "weight"), ("bias_attr", "bias")):
                p = self.__dict__.get("_parameters", {}).get(pname)
                if p is not None:
                    apply_param_attr(p, attrs[which])
    return checked_init


def _state_array(v, key, layer_name):
    """A state-dict value as an ndarray of numbers (set_state_dict), or a clear refusal."""
    if isinstance(v, Tensor):
        return v._data
    try:
        arr = np.asarray(v)
    except Exception:
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":
        what = type(v).__name__ if arr is None else f"{type(v).__name__} of dtype {arr.dtype}"
        raise ArgTypeError(f"{layer_name}.set_state_dict: state_dict[{key!r}] must be a tensor "
                           f"or an array of numbers, got {what}; nothing was loaded")
    return arr


def apply_param_attr(p, attr):
    """Note [Parameter attributes]: a ParamAttr's initializer, trainable flag and name."""
    if attr is None or attr is False or attr is True:
        return
    if isinstance(attr, str):
        p.name = attr
        return
    if attr.initializer is not None:
        attr.initializer(p)
    if not attr.trainable:
        p.stop_gradient = True
    if attr.name:
        p.name = attr.name
    if getattr(attr, "need_clip", True) is False:
        p.need_clip = False


# Note [Parameter attributes]
# Paddle's layers take weight_attr/bias_attr: None, False (no parameter), a name, or a
# ParamAttr whose initializer, learning rate, regularizer and trainable flag shape the
# parameter. Every layer's __init__ is wrapped (Layer.__init_subclass__): the initializer runs
# on the built parameter, trainable=False stops its gradient, the name is set. A per-parameter
# learning rate or regularizer is not applied by oar's optimizers, so asking for one is
# refused at construction (never silently ignored, which would train a different model than
# the program says).
def _check_param_attr(attr, layer, which):
    if attr is None or attr is False or attr is True or isinstance(attr, str):
        return
    asked = [k for k, default in (("learning_rate", 1.0), ("regularizer", None))
             if getattr(attr, k, default) != default]
    if asked or not hasattr(attr, "initializer"):
        what = ", ".join(asked) if asked else f"a {type(attr).__name__}"
        raise NotImplementedError(
            f"{layer}({which}=...): oar's layers do not honour {what} in {which} (Note "
            "[Parameter attributes]); it would be silently ignored. Fix: build the layer without "
            f"it and set the parameter afterwards, e.g. layer.weight.set_value(values); use "
            "optimizer parameter groups for per-parameter rates.")


class Layer:
    """Base class of layers (PyTorch's Module): holds parameters, buffers and sublayers.

    Subclasses set attributes in __init__ (after super().__init__()) and define forward();
    calling the layer calls forward().
    """
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and {"weight_attr", "bias_attr"} & set(
                inspect.signature(init).parameters):
            cls.__init__ = _refuse_unhonoured_attrs(init)
    def __init__(self, name_scope=None, dtype="float32"):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_sub_layers", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_full_name", _unique_name(self, name_scope))

    def full_name(self):
        """The layer's unique name, e.g. 'linear_0' (Note [Layer full names])."""
        return self.__dict__.get("_full_name", "")

    # registration -------------------------------------------------------------
    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise RuntimeError("call super().__init__() in your Layer's __init__ first")
        for d in (self._parameters, self._sub_layers, self._buffers):
            d.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
            if "name" not in value.__dict__:
                self._name_parameter(value, name)
        elif isinstance(value, Layer):
            self._sub_layers[name] = value
        elif value is None and name in self.__dict__.get("_none_params", ()):
            self._parameters[name] = None
        else:
            object.__setattr__(self, name, value)

    def _name_parameter(self, p, attr):
        """Paddle's parameter name, "<full name>.w_K" or ".b_K" (Note [Tensor names])."""
        kind = "b" if "bias" in attr else "w"
        counts = self.__dict__.setdefault("_param_name_counts", {})
        k = counts.get(kind, 0)
        counts[kind] = k + 1
        p.name = f"{self.full_name()}.{kind}_{k}"

    def __getattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_sub_layers", "_buffers"):
            if key in d and name in d[key]:
                return d[key][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name):
        for d in (self._parameters, self._sub_layers, self._buffers):
            if name in d:
                del d[name]
                return
        object.__delattr__(self, name)

    def _check_name(self, name, what):
        if not isinstance(name, str):
            raise ArgTypeError(f"{type(self).__name__}: {what} name should be a string, got "
                               f"{type(name).__name__}")
        if "." in name or name == "":
            raise _StateDictKeyError(f"{type(self).__name__}: {what} name can't contain \".\" "
                                     f"and can't be empty, got {name!r}")

    def register_buffer(self, name, tensor, persistable=True):
        """Registers a tensor that is state but not a parameter (saved in state_dict)."""
        self._check_name(name, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise ArgTypeError(f"{type(self).__name__}.register_buffer: cannot assign "
                               f"{type(tensor).__name__} object to buffer {name!r} (a Tensor "
                               "or None is required)")
        self._buffers[name] = tensor
        skip = self.__dict__.setdefault("_non_persistable_buffer_names", set())
        if persistable:
            skip.discard(name)
        else:
            skip.add(name)          # kept out of state_dict, as Paddle

    def add_parameter(self, name, parameter):
        """Registers parameter under name and returns it."""
        self._check_name(name, "parameter")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise ArgTypeError(f"{type(self).__name__}.add_parameter: cannot assign "
                               f"{type(parameter).__name__} object to parameter {name!r} (a "
                               "Parameter or None is required)")
        self._parameters[name] = parameter
        if parameter is not None and "name" not in parameter.__dict__:
            self._name_parameter(parameter, name)
        return parameter

    register_parameter = add_parameter

    def add_sublayer(self, name, sublayer):
        """Registers sublayer under name and returns it."""
        self._check_name(name, "sublayer")
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise ArgTypeError(f"{type(self).__name__}.add_sublayer: {type(sublayer).__name__} "
                               "is not a Layer subclass")
        self._sub_layers[name] = sublayer
        return sublayer

    add_module = add_sublayer

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None, device=None):
        """A new Parameter of the given shape (Xavier-uniform, or zeros for a bias), of dtype
        or else the default dtype (Paddle's argument order; Note [Parameters take the
        default dtype])."""
        if device is not None and str(device).split(":")[0].lower() not in ("cpu", "place(cpu)"):
            raise RuntimeError(f"{type(self).__name__}.create_parameter(device={device!r}): oar "
                               "runs on the CPU only")
        p = _param(shape, dtype)
        _check_param_attr(attr, "create_parameter", "attr")
        if default_initializer is not None:
            default_initializer(p)
        elif not is_bias and p._data.size:
            # Paddle's Xavier fans, which take a 1-D shape [n] as fan_in = fan_out = n
            from ..param_attr import _fans
            fan_in, fan_out = _fans(list(p._data.shape))
            limit = math.sqrt(6.0 / (fan_in + fan_out))
            init.uniform_(p, -limit, limit)
        apply_param_attr(p, attr)   # Note [Parameter attributes]
        return p

    def create_tensor(self, name=None, persistable=None, dtype=None):
        """A not-initialized tensor (printed `Tensor(Not initialized)`) named
        '<layer>.<name>', for paddle.assign(x, output=t) to fill (Note [Not-initialized
        tensors]); dtype defaults to float32."""
        from ..ops.creation import uninitialized
        if name is not None and not isinstance(name, str):
            raise ArgTypeError(f"{type(self).__name__}.create_tensor: name must be a str or "
                               f"None, got {type(name).__name__}")
        t = uninitialized("float32" if dtype is None else dtype)
        if name is None:
            name = _unique_name(None, "_generated_var")
        t.name = f"{self.full_name()}.{name}"
        t.persistable = bool(persistable)
        return t

    # traversal ----------------------------------------------------------------
    def named_parameters(self, prefix="", include_sublayers=True, recurse=True):
        """Yields (dotted name, parameter) for this layer and its sublayers, each once."""
        seen = set()
        for name, layer in self.named_sublayers(prefix=prefix, include_self=True) \
                if (include_sublayers and recurse) else [(prefix, self)]:
            for pname, p in layer._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{name}.{pname}" if name else pname), p

    def parameters(self, include_sublayers=True, recurse=True):
        """The list of parameters of this layer and its sublayers, each once."""
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers, recurse=recurse)]

    def named_buffers(self, prefix=""):
        """Yields (dotted name, buffer) for this layer and its sublayers."""
        for name, layer in self.named_sublayers(prefix=prefix, include_self=True):
            for bname, b in layer._buffers.items():
                if b is not None:
                    yield (f"{name}.{bname}" if name else bname), b

    def buffers(self):
        """The list of buffers of this layer and its sublayers."""
        return [b for _, b in self.named_buffers()]

    def named_children(self):
        """An iterator over (name, sublayer) of the direct sublayers."""
        return iter(self._sub_layers.items())

    def children(self):
        """An iterator over the direct sublayers."""
        return iter(self._sub_layers.values())

    def named_sublayers(self, prefix="", include_self=False):
        """Yields (dotted name, layer) for every sublayer, depth first."""
        if include_self:
            yield prefix, self
        for name, layer in self._sub_layers.items():
            if layer is None:
                continue
            full = f"{prefix}.{name}" if prefix else name
            yield from layer.named_sublayers(full, include_self=True)

    def sublayers(self, include_self=False):
        """The list of all sublayers, depth first."""
        return [l for _, l in self.named_sublayers(include_self=include_self)]

    def named_modules(self, prefix=""):
        """Yields (dotted name, layer) for this layer and every sublayer."""
        return self.named_sublayers(prefix, include_self=True)

    def modules(self):
        """The list of this layer and every sublayer."""
        return [l for _, l in self.named_modules()]

    def apply(self, fn):
        """Calls fn on every sublayer, then on this layer; returns self."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # modes ------------------------------------------------------------------------
    def train(self, mode=True):
        """Sets training mode (True) or evaluation mode (False) on every layer; returns self."""
        if not isinstance(mode, (bool, np.bool_)):
            raise ArgValueError(f"{type(self).__name__}.train: training mode is expected to be "
                                f"boolean, got {mode!r}")
        mode = bool(mode)
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", mode)
        return self

    def eval(self):
        """Sets evaluation mode on every layer (dropout off, batch norm uses running stats)."""
        return self.train(False)

    # state ------------------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True, keep_vars=True, *, prefix=None):
        """An ordered dict of dotted name -> parameter or persistable buffer (the tensors
        themselves), as Paddle's: each layer's parameters, then its buffers, then its
        sublayers' entries, depth first. A parameter shared by two layers appears under
        each name (an LSTM lists its weights as weight_ih_l0 and as 0.cell.weight_ih)."""
        out = OrderedDict() if destination is None else destination
        pre = structured_name_prefix if prefix is None else prefix
        self._collect_state(out, pre, include_sublayers, keep_vars)
        return out

    def _collect_state(self, out, prefix, include_sublayers, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        skip = self.__dict__.get("_non_persistable_buffer_names", ())
        for name, b in self._buffers.items():
            if b is not None and name not in skip:
                out[prefix + name] = b if keep_vars else b.detach()
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    layer._collect_state(out, f"{prefix}{name}.", True, keep_vars)

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copies values into the parameters and persistable buffers, as Paddle's: a key the
        dict lacks, or whose shape differs, is skipped with a warning; returns
        (missing_keys, unexpected_keys). A value that is not numeric, or floating for an
        integer buffer, is refused before anything is written."""
        name = type(self).__name__
        if not hasattr(state_dict, "items") or not hasattr(state_dict, "keys"):
            raise ArgTypeError(f"{name}.set_state_dict: expected a dict of name -> tensor, got "
                               f"{type(state_dict).__name__}")
        missing, matched, plan = [], set(), []
        for k, target in self.state_dict().items():
            key = k if use_structured_name else getattr(target, "name", k)
            if key not in state_dict:
                missing.append(key)
                warnings.warn(f"Skip loading for {k}. {key} is not found in the provided dict.",
                              stacklevel=2)
                continue
            arr = _state_array(state_dict[key], key, name)
            if tuple(arr.shape) != tuple(target._data.shape):
                missing.append(key)
                warnings.warn(f"Skip loading for {k}. {key} receives a shape "
                              f"{list(arr.shape)}, but the expected shape is "
                              f"{list(target._data.shape)}.", stacklevel=2)
                continue
            if target._data.dtype.kind in "iu" and arr.dtype.kind == "f":
                raise ArgTypeError(f"{name}.set_state_dict: state_dict[{key!r}] is floating "
                                   f"({arr.dtype}) but {k} is {target.dtype.name}; nothing "
                                   "was loaded")
            matched.add(key)
            plan.append((target, arr))
        unexpected = [k for k in state_dict.keys() if k not in matched]
        for target, arr in plan:            # everything checked: write
            np.copyto(target._data, arr, casting="unsafe")
            bump(target, "set_state_dict")
        return missing, unexpected

    load_state_dict = set_state_dict
    set_dict = set_state_dict

    def clear_gradients(self, set_to_zero=True):
        """Clears every parameter's .grad (zeroes it when set_to_zero)."""
        for p in self.parameters():
            p.clear_grad(set_to_zero)

    def zero_grad(self, set_to_none=True):
        """Clears every parameter's .grad (sets it to None unless set_to_none is False)."""
        for p in self.parameters():
            p.clear_grad(not set_to_none)

    # Note [Paddle layer casts]
    # Paddle 3.3.1 converts a layer's tensors in place: the same Parameter and buffer objects
    # (so an optimizer built before still holds them, its state untouched) over new data of
    # the new dtype, each gradient converted with its parameter. Which tensors it converts
    # depends on the method: to(dtype=...), type(), astype(), double() and half() convert
    # every parameter and buffer, integer ones too (an int64 buffer becomes float64);
    # float(), float16() and bfloat16() convert only floating ones, skip layers whose exact
    # type is in excluded_layers, and float16()/bfloat16() skip nn.BatchNorm by default. oar
    # does the same; the PyTorch door's Module overrides these with torch's rules (floating
    # only, oar/torch/nn/modules.py).
    def _cast_tensors(self, dtype, floating_only=False, excluded=()):
        want = _dt.as_dtype(dtype).np
        seen = set()
        for layer in self.sublayers(include_self=True):
            if type(layer) in excluded:
                continue
            for d in (layer._parameters, layer._buffers):
                for t in d.values():
                    if t is None or id(t) in seen:
                        continue
                    seen.add(id(t))
                    if floating_only and not _dt.is_float(t._data.dtype):
                        continue
                    _recast(t, want)
                    if t._grad is not None:
                        _recast(t._grad, want)
        return self

    def _move_tensors(self, place):
        """Every parameter and buffer (and gradient), the same objects, over a copy of its
        data on `place` (Note [Moving between places]); returns self."""
        seen = set()
        for layer in self.sublayers(include_self=True):
            for d in (layer._parameters, layer._buffers):
                for t in d.values():
                    if t is None or id(t) in seen:
                        continue
                    seen.add(id(t))
                    _replace_place(t, place)
                    if t._grad is not None:
                        _replace_place(t._grad, place)
        return self

    def to(self, *args, **kwargs):
        """Converts every parameter and buffer (integer ones too, as Paddle) to dtype, in
        place on the same objects (Note [Paddle layer casts]), and moves them to the device
        when one is given (a GPU only where a device backend exists). Returns self."""
        dev = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("blocking", None)
        if kwargs:
            raise ArgTypeError(f"{type(self).__name__}.to: unexpected keyword(s) {list(kwargs)}")
        for a in args:
            if a is None or isinstance(a, bool):       # Paddle's positional blocking
                continue
            if isinstance(a, _dt.DType) or (isinstance(a, str) and a in _dt_names()) or \
                    isinstance(a, np.dtype) or (isinstance(a, type) and issubclass(a, np.generic)):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            else:
                dev = a
        if dev is not None:
            self._move_tensors(_layer_place(dev, type(self).__name__ + ".to"))
        if dtype is not None:
            try:
                _dt.as_dtype(dtype)
            except Exception as e:
                raise ArgTypeError(f"{type(self).__name__}.to: unknown dtype {dtype!r}") from e
            self._cast_tensors(dtype)
        return self

    def _checked_cast_dtype(self, dtype, op):
        """dtype if Paddle's type()/astype() accept it (a dtype object or one of its names),
        else Paddle's ValueError."""
        names = ("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32",
                 "int64", "uint8", "complex64", "complex128", "bool")
        ok = isinstance(dtype, (_dt.DType, np.dtype)) or (type(dtype) is str and dtype in names)
        if ok:
            try:
                return _dt.as_dtype(dtype)
            except Exception:
                ok = False
        raise ArgValueError(f"{type(self).__name__}.{op}: dtype must be one of "
                            f"{', '.join(repr(n) for n in names)}, a paddle dtype or a NumPy "
                            f"dtype, got {dtype!r}")

    def type(self, dst_type):
        """Converts every parameter and buffer to dst_type (Note [Paddle layer casts])."""
        return self._cast_tensors(self._checked_cast_dtype(dst_type, "type"))

    def astype(self, dtype=None):
        """Converts every parameter and buffer to dtype (Note [Paddle layer casts])."""
        return self._cast_tensors(self._checked_cast_dtype(dtype, "astype"))

    def double(self):
        """Converts every parameter and buffer to float64, integer ones too (Note [Paddle
        layer casts])."""
        return self._cast_tensors(_dt.float64)

    def half(self):
        """Converts every parameter and buffer to float16, integer ones too (Note [Paddle
        layer casts])."""
        return self._cast_tensors(_dt.float16)

    def _float_cast(self, dtype, excluded_layers):
        if isinstance(excluded_layers, type):
            excluded_layers = [excluded_layers]
        elif isinstance(excluded_layers, (list, tuple)):
            excluded_layers = list(excluded_layers)
        else:
            raise ArgTypeError(f"excluded_layers should be type nn.Layer or list, but got "
                               f"{type(excluded_layers).__name__}.")
        return self._cast_tensors(dtype, floating_only=True, excluded=tuple(excluded_layers))

    def float(self, excluded_layers=None):
        """Converts floating parameters and buffers to float32, except in layers whose type
        is in excluded_layers (Note [Paddle layer casts])."""
        return self._float_cast(_dt.float32, [] if excluded_layers is None else excluded_layers)

    def float16(self, excluded_layers=None):
        """Converts floating parameters and buffers to float16, except in layers whose type
        is in excluded_layers (default: nn.BatchNorm, as Paddle)."""
        return self._float_cast(_dt.float16, _legacy_bn() if excluded_layers is None
                                else excluded_layers)

    def bfloat16(self, excluded_layers=None):
        """Converts floating parameters and buffers to bfloat16, except in layers whose type
        is in excluded_layers (default: nn.BatchNorm, as Paddle)."""
        return self._float_cast(_dt.bfloat16, _legacy_bn() if excluded_layers is None
                                else excluded_layers)

    # call ---------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        """The layer's computation; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    # Note [Layer hooks]
    # Both frameworks run hooks around forward with the same meaning: a pre-hook
    # hook(layer, args) may return new positional args (a non-tuple is wrapped), a post-hook
    # hook(layer, args, output) may return a new output. Paddle registers them with
    # register_forward_pre_hook / register_forward_post_hook, PyTorch with
    # register_forward_pre_hook / register_forward_hook (keywords prepend, with_kwargs,
    # always_call); both spellings work in both doors. A layer without hooks pays one
    # attribute test per call: the hook dicts are created on first registration.
    _forward_pre_hooks = None
    _forward_hooks = None

    def __call__(self, *args, **kwargs):
        if self._forward_pre_hooks is None and self._forward_hooks is None:
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        for hook, with_kwargs, _ in list((self._forward_pre_hooks or {}).values()):
            if with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        try:
            out = self.forward(*args, **kwargs)
        except BaseException:
            for hook, with_kwargs, always in list((self._forward_hooks or {}).values()):
                if always:
                    try:
                        hook(self, args, kwargs, None) if with_kwargs else hook(self, args, None)
                    except Exception:
                        pass
            raise
        for hook, with_kwargs, _ in list((self._forward_hooks or {}).values()):
            res = hook(self, args, kwargs, out) if with_kwargs else hook(self, args, out)
            if res is not None:
                out = res
        return out

    def _add_hook(self, attr, entry, prepend):
        hooks = self.__dict__.get(attr)
        if hooks is None:
            hooks = OrderedDict()
            object.__setattr__(self, attr, hooks)
        handle = _HookRemoveHelper(hooks)
        hooks[handle.id] = entry
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Registers hook(layer, args) (or hook(layer, args, kwargs) with with_kwargs) to run
        before forward; a non-None result replaces the arguments. Returns a handle whose
        remove() unregisters it (Note [Layer hooks])."""
        if not callable(hook):
            raise ArgTypeError(f"{type(self).__name__}.register_forward_pre_hook: hook must be "
                               f"callable, got {type(hook).__name__}")
        return self._add_hook("_forward_pre_hooks", (hook, bool(with_kwargs), False), prepend)

    def register_forward_post_hook(self, hook, *, prepend=False, with_kwargs=False,
                                   always_call=False):
        """Registers hook(layer, args, output) to run after forward; a non-None result
        replaces the output. Returns a handle whose remove() unregisters it."""
        if not callable(hook):
            raise ArgTypeError(f"{type(self).__name__}.register_forward_hook: hook must be "
                               f"callable, got {type(hook).__name__}")
        return self._add_hook("_forward_hooks", (hook, bool(with_kwargs), bool(always_call)),
                              prepend)

    register_forward_hook = register_forward_post_hook

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        return ""

    def __repr__(self):
        lines = [f"{type(self).__name__}({self.extra_repr()}"]
        if self._sub_layers:
            lines = [f"{type(self).__name__}({self.extra_repr()}"]
            for name, layer in self._sub_layers.items():
                sub = repr(layer).replace("\n", "\n  ")
                lines.append(f"  ({name}): {sub}")
            return "\n".join(lines) + "\n)"
        return lines[0] + ")"


Module = Layer


class Linear(Layer):
    """y = x @ weight + bias; weight has shape [in_features, out_features] (Paddle)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None,
                 *, bias=True):
        super().__init__()
        in_features = _c.count(in_features, "Linear", "in_features")
        out_features = _c.count(out_features, "Linear", "out_features")
        self.in_features, self.out_features = in_features, out_features
        self._repr_name = name
        self.weight = _param([in_features, out_features])
        if bias_attr is False or bias is False:
            self.bias = None
            self._parameters["bias"] = None
        else:
            self.bias = _param([out_features])
        self.reset_parameters()

    def reset_parameters(self):
        """Paddle's default: Xavier-uniform weight, zero bias (Note [Paddle default
        initialisers])."""
        if self.in_features and self.out_features:
            init.xavier_uniform_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, x):
        """x @ weight + bias."""
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        text = (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self.weight.dtype.name}")
        return text + (f", name={self._repr_name}" if self._repr_name else "")


def _paddle_conv_repr(cin, cout, kernel, nd, data_format, stride=1, padding=0,
                      padding_mode="zeros", output_padding=0, dilation=1, groups=1):
    """A Paddle convolution layer's repr text (Conv1D/2D/3D and the transposed ones): the
    channels and kernel, then each argument that differs from its default, as given (stride
    and dilation as per-dimension lists), then the data format, always."""
    as_list = lambda v: list(v) if isinstance(v, (list, tuple)) else [v] * nd  # noqa: E731
    s = f"{cin}, {cout}, kernel_size={list(kernel)}"
    if as_list(stride) != [1] * nd:
        s += f", stride={as_list(stride)}"
    if padding != 0:
        s += f", padding={padding}"
    if padding_mode != "zeros":
        s += f", padding_mode={padding_mode}"
    if output_padding != 0:
        s += f", output_padding={output_padding}"
    if as_list(dilation) != [1] * nd:
        s += f", dilation={as_list(dilation)}"
    if groups != 1:
        s += f", groups={groups}"
    return s + f", data_format={data_format}"


def _same_needs_zeros(parsed, op):
    """Paddle's strided padding='same' is worked out from each input's size, so it cannot be
    padded in a mode ahead of the conv (Paddle asks for an int padding then)."""
    if parsed[2] is None:
        raise ArgValueError(f"{op}: when padding_mode in ['reflect', 'replicate', 'circular'], "
                            "type of padding must be int")


class Conv2D(Layer):
    """2-D convolution layer over NCHW input; weight [out_channels, in_channels/groups, kh, kw]."""
    _same_rule = "paddle"       # Note [Two rules for padding='same']

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW", *, bias=True):
        super().__init__()
        op = type(self).__name__
        in_channels = _c.count(in_channels, op, "in_channels")
        out_channels = _c.count(out_channels, op, "out_channels")
        k = _c.pair(kernel_size, op, "kernel_size", 1)
        g = _c.count(groups, op, "groups", 1)
        if in_channels % g:
            raise ArgValueError(f"{op}: in_channels must be divisible by groups "
                                f"(in_channels={in_channels}, groups={g})")
        if out_channels % g:
            raise ArgValueError(f"{op}: out_channels must be divisible by groups "
                                f"(out_channels={out_channels}, groups={g})")
        _c_modes = ("zeros", "reflect", "replicate", "circular")
        if padding_mode not in _c_modes:
            raise ArgValueError(f"{op}: padding_mode must be one of {list(_c_modes)}, but got "
                                f"padding_mode={padding_mode!r}")
        F._conv_channels_first(None, data_format, op, 2)   # Note [Channels-last convolutions]
        self._data_format = data_format
        self._given = dict(stride=stride, padding=padding, padding_mode=padding_mode,
                           dilation=dilation, groups=g)      # for the repr, as given
        # checked and parsed once (Note [nn checks at construction])
        self._parsed = _K.conv_args((out_channels, in_channels, *k), stride, padding, dilation,
                                    g, op, self._same_rule)
        self._mode_pad = None
        if padding_mode != "zeros":
            _same_needs_zeros(self._parsed, op)
            # as PyTorch (and Paddle): the input padded in that mode, then an unpadded conv
            st, (ph, pw), (eh, ew), dil, g = self._parsed
            self._mode_pad = (padding_mode, [pw, pw + ew, ph, ph + eh])
            self._parsed = (st, (0, 0), (0, 0), dil, g)
        self._conf = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        self.weight = _param([out_channels, in_channels // g, *k])
        if bias_attr is False or bias is False:
            self.bias = None
            self._parameters["bias"] = None
        else:
            self.bias = _param([out_channels])
        self._desc = f"{in_channels}, {out_channels}, kernel_size={list(k)}"
        self.reset_parameters()

    def reset_parameters(self):
        """Paddle's default: weight from N(0, 2 / (in_channels * kernel numel)), zero bias
        (Note [Paddle default initialisers])."""
        shape = self.weight.shape
        fan = shape[1] * int(self._conf["groups"]) * int(np.prod(shape[2:]))
        if fan:
            init.normal_(self.weight, 0.0, math.sqrt(2.0 / fan))
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, x):
        """The convolution of x with weight, plus bias."""
        x, moved = F._conv_channels_first(x, self._data_format, type(self).__name__, 2)
        if self._mode_pad is not None:
            x = _K.pad(x, self._mode_pad[1], self._mode_pad[0])   # core order, any rank
        return F._channels_back(F.conv2d(x, self.weight, self.bias, _parsed=self._parsed), moved)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        return _paddle_conv_repr(self.weight.shape[1] * self._given["groups"],
                                 self.weight.shape[0], self.weight.shape[2:], 2,
                                 self._data_format, **self._given)


Conv2d = Conv2D


class Conv1D(Layer):
    """1-D convolution layer over NCL input; weight [out_channels, in_channels/groups, k]."""
    _same_rule = "paddle"       # Note [Two rules for padding='same']

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL", *, bias=True):
        super().__init__()
        op = type(self).__name__
        in_channels = _c.count(in_channels, op, "in_channels")
        out_channels = _c.count(out_channels, op, "out_channels")
        k = F._single(kernel_size, op, "kernel_size")
        s, d = F._single(stride, op, "stride"), F._single(dilation, op, "dilation")
        for what, v in (("kernel_size", k), ("stride", s), ("dilation", d)):
            if v < 1:
                raise ArgValueError(f"{op}: {what} must be positive, got {v}")
        p = padding if isinstance(padding, str) else F._single(padding, op, "padding")
        modes = ("zeros", "reflect", "replicate", "circular")
        if padding_mode not in modes:
            raise ArgValueError(f"{op}: padding_mode must be one of {list(modes)}, but got "
                                f"padding_mode={padding_mode!r}")
        F._conv_channels_first(None, data_format, op, 1)   # Note [Channels-last convolutions]
        self._data_format = data_format
        self._given = dict(stride=stride, padding=padding, padding_mode=padding_mode,
                           dilation=dilation, groups=groups)      # for the repr, as given
        # checked once (Note [nn checks at construction]): the height-1 conv2d it runs
        parsed = _K.conv_args((out_channels, in_channels, 1, k), (1, s),
                              p if isinstance(p, str) else (0, p), (1, d), groups, op,
                              self._same_rule)
        self._mode_pad = None
        if padding_mode != "zeros":     # the input padded in that mode, then no padding
            _same_needs_zeros(parsed, op)
            self._mode_pad = (padding_mode, [parsed[1][1], parsed[1][1] + parsed[2][1]])
            p = 0
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, k
        self._conf = dict(stride=s, padding=p, dilation=d, groups=groups)
        self.weight = _param([out_channels, in_channels // groups, k])
        if bias_attr is False or bias is False:
            self._parameters["bias"] = None
        else:
            self.bias = _param([out_channels])
        self.reset_parameters()

    reset_parameters = Conv2D.reset_parameters

    def forward(self, x):
        """The 1-D convolution of x with weight, plus bias."""
        x, moved = F._conv_channels_first(x, self._data_format, type(self).__name__, 1)
        if self._mode_pad is not None:
            x = _K.pad(x, self._mode_pad[1], self._mode_pad[0])   # core order, any rank
        return F._channels_back(F.conv1d(x, self.weight, self.bias, **self._conf), moved)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        return _paddle_conv_repr(self.in_channels, self.out_channels, [self.kernel_size], 1,
                                 self._data_format, **self._given)


class Conv3D(Layer):
    """3-D convolution layer over NCDHW (or NDHWC) input; weight [out_channels,
    in_channels/groups, kd, kh, kw] (Note [N-d convolution])."""
    _same_rule = "paddle"       # Note [Two rules for padding='same']

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCDHW", *, bias=True):
        super().__init__()
        op = type(self).__name__
        in_channels = _c.count(in_channels, op, "in_channels")
        out_channels = _c.count(out_channels, op, "out_channels")
        k = _K._ntuple(kernel_size, op, "kernel_size", 1, 3)
        g = _c.count(groups, op, "groups", 1)
        for what, n in (("in_channels", in_channels), ("out_channels", out_channels)):
            if n % g:
                raise ArgValueError(f"{op}: {what} must be divisible by groups ({what}={n}, "
                                    f"groups={g})")
        modes = ("zeros", "reflect", "replicate", "circular")
        if padding_mode not in modes:
            raise ArgValueError(f"{op}: padding_mode must be one of {list(modes)}, but got "
                                f"padding_mode={padding_mode!r}")
        if data_format not in ("NCDHW", "NDHWC"):
            raise ArgValueError(f"{op}: data_format must be 'NCDHW' or 'NDHWC', got "
                                f"{data_format!r}")
        self._data_format = data_format
        self._given = dict(stride=stride, padding=padding, padding_mode=padding_mode,
                           dilation=dilation, groups=g)      # for the repr, as given
        # checked and parsed once (Note [nn checks at construction])
        self._parsed = _K.conv_args_nd((out_channels, in_channels, *k), stride, padding,
                                       dilation, g, op, 3, self._same_rule)
        self._mode_pad = None
        if padding_mode != "zeros":
            _same_needs_zeros(self._parsed, op)
            # as PyTorch (and Paddle): the input padded in that mode, then an unpadded conv
            st, pd, ex, dil, g = self._parsed
            self._mode_pad = (padding_mode, [v for i in (2, 1, 0) for v in (pd[i], pd[i] + ex[i])])
            self._parsed = (st, (0, 0, 0), (0, 0, 0), dil, g)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, k
        self._conf = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        self.weight = _param([out_channels, in_channels // g, *k])
        if bias_attr is False or bias is False:
            self.bias = None
            self._parameters["bias"] = None
        else:
            self.bias = _param([out_channels])
        self.reset_parameters()

    reset_parameters = Conv2D.reset_parameters

    def forward(self, x):
        """The 3-D convolution of x with weight, plus bias."""
        x, moved = F._channels_first(x, self._data_format, type(self).__name__, 3, "NDHWC")
        if self._mode_pad is not None:
            x = _K.pad(x, self._mode_pad[1], self._mode_pad[0])   # core order, any rank
        return F._channels_back(_K.conv3d(x, self.weight, self.bias, _parsed=self._parsed),
                                moved)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        return _paddle_conv_repr(self.in_channels, self.out_channels, self.kernel_size, 3,
                                 self._data_format, **self._given)


class _ConvTransposeNd(Layer):
    """Paddle's transposed convolution layer; weight [in_channels, out_channels/groups, *k]
    (Note [Transposed conv is conv's adjoint])."""
    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW", *, bias=True):
        super().__init__()
        op, nd = type(self).__name__, self._nd
        in_channels = _c.count(in_channels, op, "in_channels")
        out_channels = _c.count(out_channels, op, "out_channels")
        g = _c.count(groups, op, "groups", 1)
        for what, n in (("in_channels", in_channels), ("out_channels", out_channels)):
            if n % g:
                raise ArgValueError(f"{op}: {what} must be divisible by groups ({what}={n}, "
                                    f"groups={g})")
        self._data_format = data_format
        F._conv_channels_first(None, data_format, op, nd)   # Note [Channels-last convolutions]
        k = (F._single(kernel_size, op, "kernel_size"),) if nd == 1 else \
            _c.pair(kernel_size, op, "kernel_size", 1) if nd == 2 else \
            _K._ntuple(kernel_size, op, "kernel_size", 1, 3)
        if min(k) < 1:
            raise ArgValueError(f"{op}: kernel_size must be positive, got {kernel_size!r}")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, k
        self._conf = dict(stride=stride, padding=padding, output_padding=output_padding,
                          groups=g, dilation=dilation)
        self.weight = _param([in_channels, out_channels // g, *k])
        if bias_attr is False or bias is False:
            self.bias = None
            self._parameters["bias"] = None
        else:
            self.bias = _param([out_channels])
        self.reset_parameters()

    def reset_parameters(self):
        """Paddle's default: Xavier-uniform weight, zero bias (Note [Paddle default
        initialisers])."""
        if self.weight.numel():
            init.xavier_uniform_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, x, output_size=None):
        """The transposed convolution of x with weight, plus bias."""
        fn = {1: F.conv1d_transpose, 2: F.conv2d_transpose, 3: F.conv3d_transpose}[self._nd]
        conf = dict(self._conf)
        if output_size is not None:
            conf["output_padding"] = 0
        return fn(x, self.weight, self.bias, output_size=output_size,
                  data_format=self._data_format, **conf)

    def extra_repr(self):
        """Paddle's: what differs from the defaults, then data_format."""
        return _paddle_conv_repr(self.in_channels, self.out_channels, self.kernel_size,
                                 self._nd, self._data_format, **self._conf)


class Conv2DTranspose(_ConvTransposeNd):
    """2-D transposed convolution layer over NCHW input."""
    _nd = 2


class Conv1DTranspose(_ConvTransposeNd):
    """1-D transposed convolution layer over NCL input."""
    _nd = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL", *, bias=True):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format, bias=bias)


class Conv3DTranspose(_ConvTransposeNd):
    """3-D transposed convolution layer over NCDHW (or NDHWC) input."""
    _nd = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", *, bias=True):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, weight_attr, bias_attr,
                         data_format, bias=bias)


class _Pool(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__()
        self.k, self.s, self.p = kernel_size, stride, padding
        # checked and parsed once (Note [nn checks at construction])
        self._parsed = _K.pool_args(kernel_size, stride, padding, type(self).__name__,
                                    dilation, ceil_mode, data_format)

    def extra_repr(self):
        """kernel_size, stride (the kernel size when None) and padding, as Paddle prints."""
        return f"kernel_size={self.k}, stride={self.s if self.s is not None else self.k}, padding={self.p}"


class MaxPool2D(_Pool):
    """2-D max pooling layer over NCHW input."""
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, *, return_mask=False, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, dilation, ceil_mode, data_format)
        self._returns = dict(return_indices=bool(return_indices), return_mask=bool(return_mask))

    def forward(self, x):
        """Max pooling of x (and the indices of the maxima with return_indices/return_mask)."""
        return _K.max_pool2d(x, self.k, _parsed=self._parsed, **self._returns)


class AvgPool2D(_Pool):
    """Paddle's AvgPool2D: exclusive=True (padding not counted in the divisor) by default."""
    _exclusive_default = True

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 exclusive=None, divisor_override=None, data_format="NCHW", name=None, *,
                 count_include_pad=None):
        super().__init__(kernel_size, stride, padding, 1, ceil_mode, data_format)
        if exclusive is None and count_include_pad is None:
            exclusive = self._exclusive_default
        self._parsed = self._parsed + (_K.avg_divisor_mode(count_include_pad, exclusive,
                                                           divisor_override, type(self).__name__),)

    def forward(self, x):
        """Average pooling of x."""
        return _K.avg_pool2d(x, self.k, _parsed=self._parsed)


class AvgPool2d(AvgPool2D):
    """PyTorch's AvgPool2d(kernel_size, stride, padding, ceil_mode, count_include_pad=True,
    divisor_override): padding counted in the divisor by default."""
    _exclusive_default = False

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__(kernel_size, stride, padding, ceil_mode,
                         divisor_override=divisor_override, count_include_pad=count_include_pad)


MaxPool2d = MaxPool2D


class MaxPool3D(Layer):
    """3-D max pooling layer over NCDHW (or NDHWC) input; return_mask also gives each
    maximum's int32 flat position in its D*H*W volume."""
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__()
        _K.pool_args(kernel_size, stride, padding, type(self).__name__, 1, ceil_mode, nd=3)
        self.k, self.s, self.p = kernel_size, stride, padding
        self._conf = dict(return_mask=return_mask, ceil_mode=ceil_mode, data_format=data_format)

    def forward(self, x):
        """Max pooling of x."""
        return F.max_pool3d(x, self.k, self.s, self.p, **self._conf)

    extra_repr = _Pool.extra_repr


class AvgPool3D(Layer):
    """3-D average pooling layer over NCDHW (or NDHWC) input; exclusive=True (padding left
    out of the divisor) by default, as Paddle."""
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__()
        _K.pool_args(kernel_size, stride, padding, type(self).__name__, 1, ceil_mode,
                     kind="avg", nd=3)
        self.k, self.s, self.p = kernel_size, stride, padding
        self._conf = dict(ceil_mode=ceil_mode, exclusive=exclusive,
                          divisor_override=divisor_override, data_format=data_format)

    def forward(self, x):
        """Average pooling of x."""
        return F.avg_pool3d(x, self.k, self.s, self.p, **self._conf)

    extra_repr = _Pool.extra_repr


class AdaptiveAvgPool2D(Layer):
    """2-D average pooling to a fixed output size over NCHW input."""
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        """Adaptive average pooling of x to output_size."""
        return F.adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        return f"output_size={self.output_size}"


AdaptiveAvgPool2d = AdaptiveAvgPool2D


class _BatchNorm(Layer):
    torch_momentum = False
    # the running statistics' buffer names: Paddle's state-dict keys (PyTorch's door uses
    # running_mean / running_var)
    _stat_names = ("_mean", "_variance")
    # Note [Paddle batch-norm statistics are parameters]
    # Paddle 3.3.1's BatchNorm1D/2D/3D hold _mean and _variance as parameters with
    # stop_gradient=True (named_parameters lists 4, each named "<layer>.w_K"), not buffers;
    # the Paddle-door classes set _stats_as_params so parameters(), named_parameters() and the
    # parameter names match. The state-dict order is unchanged (parameters first, in
    # registration order). An optimizer given model.parameters() skips them, as they never get
    # a gradient (_checked_grads in oar/optimizer). The PyTorch door's layers keep buffers
    # (torch's named_buffers); paddle.summary counts them either way (Note [Summary rows as
    # Paddle's] in oar/hapi/model_summary.py).
    _stats_as_params = False
    _param_dtype: str | None = None   # None: the default dtype (the legacy nn.BatchNorm: float32)
    _paddle_format = "NCHW"     # the data_format a Paddle class defaults to (its repr)

    def __init__(self, num_features, momentum=None, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format=None, name=None, *, eps=None, affine=True,
                 track_running_stats=True):
        super().__init__()
        op = type(self).__name__
        num_features = _c.count(num_features, op, "num_features")
        if momentum is None:
            momentum = 0.1 if self.torch_momentum else 0.9
        momentum = _args.number(momentum, op, "momentum", allow_bool=False)
        if not 0.0 <= momentum <= 1.0:
            raise ArgValueError(f"{op}: momentum must be in [0, 1], got {momentum}")
        # stored in Paddle's convention: running = m * running + (1 - m) * batch
        self.momentum = 1 - momentum if self.torch_momentum else momentum
        self.epsilon = _args.number(eps if eps is not None else epsilon, op, "epsilon",
                                    allow_bool=False)
        if not self.epsilon >= 0:
            raise ArgValueError(f"{op}: epsilon must be >= 0, got {self.epsilon}")
        self.num_features = num_features
        self._data_format, self._repr_name = data_format, name      # for the repr
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        stat_dt = _default_np(self._param_dtype)   # Note [Parameters take the default dtype]
        if self._stats_as_params and stat_dt == np.float16:
            stat_dt = np.dtype(np.float32)   # Paddle's BatchNorm*D: float32 under a float16 default
        if affine and weight_attr is not False:
            self.weight = _param([num_features], stat_dt)
        else:
            self._parameters["weight"] = None
        if affine and bias_attr is not False:
            self.bias = _param([num_features], stat_dt)
        else:
            self._parameters["bias"] = None
        for n in self._stat_names:
            if self._stats_as_params and track_running_stats:
                self.add_parameter(n, Parameter(np.zeros(num_features, stat_dt),
                                                requires_grad=False))
            else:
                self.register_buffer(n, Tensor._wrap(np.zeros(num_features, stat_dt))
                                     if track_running_stats else None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean 0 and running variance 1."""
        m, v = self._stats()
        if m is not None:
            init.zeros_(m)
            init.ones_(v)

    def reset_parameters(self):
        """Running statistics reset; weight 1 and bias 0."""
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def _stats(self):
        d = self._parameters if self._stats_as_params else self._buffers
        return d.get(self._stat_names[0]), d.get(self._stat_names[1])

    @property
    def running_mean(self):
        """The running mean (a buffer, or Paddle's non-trainable parameter)."""
        return self._stats()[0]

    @property
    def running_var(self):
        """The running variance (a buffer, or Paddle's non-trainable parameter)."""
        return self._stats()[1]

    _ndims: Any = None   # set by each subclass

    def _check_input(self, x):
        if not isinstance(x, Tensor):
            raise ArgTypeError(f"{type(self).__name__}: input must be a Tensor, got "
                               f"{type(x).__name__}")
        if self._ndims is not None and x.ndim not in self._ndims:
            want = " or ".join(f"{d}D" for d in self._ndims)
            raise ArgValueError(f"{type(self).__name__}: expected {want} input (got {x.ndim}D "
                                f"input of shape {list(x.shape)})")
        if x.ndim < 2 or x.shape[1] != self.num_features:
            raise ArgValueError(f"{type(self).__name__}: expected input with "
                                f"{self.num_features} channels in dim 1, got shape "
                                f"{list(x.shape)} (running_mean should contain {x.shape[1] if x.ndim > 1 else '?'} "
                                f"elements not {self.num_features})")

    # the data formats a Paddle class takes (None: the PyTorch door's, channels in dim 1);
    # Paddle checks them in forward, not at construction
    _formats: Any = None

    def forward(self, x):
        """Batch-normalised x (batch statistics in training, running ones in eval)."""
        fmt = self._data_format
        moved = False
        if fmt is not None and self._formats is not None:
            if fmt not in self._formats:
                raise ArgValueError(f"{type(self).__name__}: expected "
                                    f"{' or '.join(self._formats)} for data_format input, "
                                    f"got {fmt!r}")
            if fmt[1] != "C" and isinstance(x, Tensor) and x.ndim > 2:
                x, moved = x.transpose([0, x.ndim - 1] + list(range(1, x.ndim - 1))), True
        self._check_input(x)
        mean, var = self._stats()
        return F._channels_back(F.batch_norm(x, mean, var, self.weight, self.bias,
                                             training=self.training or mean is None,
                                             momentum=self.momentum, epsilon=self.epsilon,
                                             _unbiased=self.torch_momentum), moved)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's: the data format when
        it is not NCHW, the name when one was given)."""
        s = f"num_features={self.num_features}, momentum={self.momentum}, epsilon={self.epsilon}"
        fmt = self._data_format or self._paddle_format
        if fmt != "NCHW":
            s += f", data_format={fmt}"
        return s + (f", name={self._repr_name}" if self._repr_name is not None else "")


class BatchNorm1D(_BatchNorm):
    """Batch normalisation over [N, C] or [N, C, L] input (Paddle momentum, default 0.9)."""
    _stats_as_params = True   # Note [Paddle batch-norm statistics are parameters]
    _ndims = (2, 3)
    _paddle_format = "NCL"
    _formats = ("NC", "NCL", "NCHW", "NLC", "NHWC")


class BatchNorm2D(_BatchNorm):
    """Batch normalisation over [N, C, H, W] input (Paddle momentum, default 0.9)."""
    _stats_as_params = True   # Note [Paddle batch-norm statistics are parameters]
    _ndims = (4,)
    _formats = ("NCHW", "NHWC")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over [N, C] or [N, C, L] input (PyTorch momentum, default 0.1)."""
    torch_momentum = True
    _ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over [N, C, H, W] input (PyTorch momentum, default 0.1)."""
    torch_momentum = True
    _ndims = (4,)


class LayerNorm(Layer):
    """Layer normalisation over the trailing normalized_shape dims, with weight and bias."""
    def __init__(self, normalized_shape, epsilon=1e-5, weight_attr=None, bias_attr=None,
                 name=None, *, eps=None, elementwise_affine=True, bias=True):
        super().__init__()
        self.normalized_shape = list(_args.shape(normalized_shape, "LayerNorm",
                                                 name="normalized_shape"))
        self.epsilon = _args.number(eps if eps is not None else epsilon, "LayerNorm", "epsilon",
                                    allow_bool=False)
        if elementwise_affine and weight_attr is not False:
            self.weight = _param(self.normalized_shape)
        else:
            self._parameters["weight"] = None
        if elementwise_affine and bias and bias_attr is not False:
            self.bias = _param(self.normalized_shape)
        else:
            self._parameters["bias"] = None
        self.reset_parameters()

    def reset_parameters(self):
        """weight 1, bias 0."""
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, x):
        """Layer-normalised x."""
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.epsilon)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        return f"normalized_shape={self.normalized_shape}, epsilon={self.epsilon}"


class Dropout(Layer):
    """Zeroes elements with probability p in training and scales the rest by 1 / (1 - p)."""
    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None, *, inplace=False):
        super().__init__()
        self.p, self.inplace = _c.probability(p, type(self).__name__), inplace
        if axis is not None:
            raise NotImplementedError(f"{type(self).__name__}: axis is not supported yet")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise _c.ArgValueError(f"{type(self).__name__}: mode must be 'upscale_in_train' or "
                                   f"'downscale_in_infer', got {mode!r}")
        self.mode, self.axis, self._repr_name = mode, axis, name

    def forward(self, x):
        """x with dropout applied in training mode; in eval mode x unchanged (upscale_in_train)
        or x * (1 - p) (downscale_in_infer)."""
        return F.dropout(x, self.p, training=self.training, inplace=self.inplace, mode=self.mode)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        name = f", name={self._repr_name}" if self._repr_name else ""
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{name}, inplace={self.inplace}"


class ReLU(Layer):
    """Elementwise max(x, 0) (in place on x when inplace=True)."""
    def __init__(self, inplace=False, name=None):
        super().__init__()
        self.inplace, self._repr_name = inplace, name

    def forward(self, x):
        """relu(x)."""
        return F.relu(x, inplace=self.inplace)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses."""
        return ", ".join(s for s in ("inplace=True" if self.inplace else "",
                                     f"name={self._repr_name}" if self._repr_name else "") if s)


class LeakyReLU(Layer):
    """Elementwise x where x > 0, else negative_slope * x."""
    def __init__(self, negative_slope=0.01, inplace=False, name=None):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace
        self._repr_name = name

    def forward(self, x):
        """leaky_relu(x)."""
        return F.leaky_relu(x, self.negative_slope, inplace=self.inplace)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        name = f", name={self._repr_name}" if self._repr_name else ""
        return f"negative_slope={self.negative_slope}{name}"


class Sigmoid(Layer):
    """Elementwise logistic sigmoid."""
    def forward(self, x):
        """sigmoid(x)."""
        return F.sigmoid(x)


class Tanh(Layer):
    """Elementwise hyperbolic tangent."""
    def forward(self, x):
        """tanh(x)."""
        return F.tanh(x)


# Note [Donated activations]: the exact classes whose forward reads x in exactly one op
_DONATABLE = _elision.DONATABLE
_DONATABLE.update((ReLU, LeakyReLU, Sigmoid, Tanh))
_refcount = sys.getrefcount


def run_sequence(layers, x):
    """x through each layer in order: nn.Sequential's forward (both doors). An activation
    that only this frame holds is donated to a following activation layer (Note [Donated
    activations]); the input itself is the caller's and never is."""
    for layer in layers:
        if (layer.__class__ in _DONATABLE and _refcount(x) == _elision.LOCAL_ONLY
                and layer._forward_pre_hooks is None and layer._forward_hooks is None
                and "forward" not in layer.__dict__   # (a forward replaced on the instance)
                and _elision.ENABLED):
            x = _elision.call_donating(layer, x)
        else:
            x = layer(x)
    return x


class GELU(Layer):
    """Elementwise Gaussian error linear unit."""
    def __init__(self, approximate=False, name=None):
        super().__init__()
        self.approximate, self._repr_name = approximate, name

    def forward(self, x):
        """gelu(x)."""
        return F.gelu(x, self.approximate)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        name = f", name={self._repr_name}" if self._repr_name else ""
        return f"approximate={self.approximate}{name}"


class Softmax(Layer):
    """Softmax along axis."""
    def __init__(self, axis=-1, name=None, *, dim=None):
        super().__init__()
        self.axis = dim if dim is not None else axis
        self._repr_name = name

    def forward(self, x):
        """softmax(x) along axis."""
        return F.softmax(x, self.axis)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        name = f", name={self._repr_name}" if self._repr_name else ""
        return f"axis={self.axis}{name}"


class Flatten(Layer):
    """Merges axes start_axis .. stop_axis into one (default: all but the batch axis)."""
    def __init__(self, start_axis=1, stop_axis=-1, *, start_dim=None, end_dim=None):
        super().__init__()
        self.start = start_dim if start_dim is not None else start_axis
        self.stop = end_dim if end_dim is not None else stop_axis

    def forward(self, x):
        """x flattened from start_axis to stop_axis."""
        return x.flatten(self.start, self.stop)


class Embedding(Layer):
    """A lookup table of num_embeddings vectors of size embedding_dim."""
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, *, scale_grad_by_freq=False, sparse=False, weight_attr=None,
                 name=None):
        super().__init__()
        num_embeddings = _c.count(num_embeddings, "Embedding", "num_embeddings")
        embedding_dim = _c.count(embedding_dim, "Embedding", "embedding_dim")
        self.padding_idx = _c.padding_idx(padding_idx, num_embeddings, "Embedding")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        self._repr_name, self._padding_idx_given = name, padding_idx     # for the repr
        self.weight = _param([num_embeddings, embedding_dim])
        self.reset_parameters()

    def reset_parameters(self):
        """Paddle's default: a Xavier-uniform table (Note [Paddle default initialisers]);
        the padding_idx row is zero."""
        init.xavier_uniform_(self.weight)
        if self.padding_idx is not None:
            with grad_mode.no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, x):
        """The rows of weight at the integer indices x."""
        return F.embedding(x, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.sparse, self.scale_grad_by_freq)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self._padding_idx_given is not None:     # as given: Paddle prints -1 as -1
            s += f", padding_idx={self._padding_idx_given}"
        s += f", sparse={self.sparse}, scale_grad_by_freq={self.scale_grad_by_freq}"
        return s + (f", name={self._repr_name}" if self._repr_name is not None else "")


class Sequential(Layer):
    """Layers called one after another, each on the previous one's output."""
    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, OrderedDict)):
            layers = list(layers[0].items())
        for i, l in enumerate(layers):
            sub = l[1] if isinstance(l, tuple) and len(l) == 2 else l
            if not isinstance(sub, Layer):
                raise ArgTypeError(f"Sequential: {type(sub).__name__} is not a Layer subclass "
                                   f"(entry {i})")
        for i, l in enumerate(layers):
            if isinstance(l, tuple):
                self.add_sublayer(l[0], l[1])
            else:
                self.add_sublayer(str(i), l)

    def forward(self, x):
        """x passed through every layer in order."""
        return run_sequence(self._sub_layers.values(), x)

    def __getitem__(self, i):
        return list(self._sub_layers.values())[i]

    def __len__(self):
        return len(self._sub_layers)


class LayerList(Layer):
    """A list of sublayers, registered so that their parameters are found."""
    def __init__(self, sublayers=()):
        super().__init__()
        for i, l in enumerate(sublayers):
            self.add_sublayer(str(i), l)

    def append(self, layer):
        """Appends layer; returns self."""
        self.add_sublayer(str(len(self._sub_layers)), layer)
        return self

    def __getitem__(self, i):
        return list(self._sub_layers.values())[i]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())


ModuleList = LayerList


class _Loss(Layer):
    def __init__(self, reduction="mean", **kw):
        super().__init__()
        self.reduction = _c.reduction(reduction, type(self).__name__)
        self.kw = kw


class CrossEntropyLoss(_Loss):
    """Cross-entropy between logits and class labels (or soft labels)."""
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, label_smoothing=0.0, name=None):
        super().__init__(reduction)
        self.kw = dict(weight=weight, ignore_index=ignore_index, soft_label=soft_label,
                       axis=axis, label_smoothing=label_smoothing)

    def forward(self, input, label):
        """cross_entropy(input, label) with this layer's options."""
        return F.cross_entropy(input, label, reduction=self.reduction, **self.kw)


class MSELoss(_Loss):
    """Mean squared error (input - label) ** 2, reduced."""
    def forward(self, input, label):
        """mse_loss(input, label)."""
        return F.mse_loss(input, label, self.reduction)


class L1Loss(_Loss):
    """Mean absolute error |input - label|, reduced."""
    def forward(self, input, label):
        """l1_loss(input, label)."""
        return F.l1_loss(input, label, self.reduction)


class NLLLoss(_Loss):
    """Negative log-likelihood of log-probabilities at class labels."""
    def forward(self, input, label):
        """nll_loss(input, label)."""
        return F.nll_loss(input, label, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of sigmoid(logit) against label, computed stably."""
    def forward(self, logit, label):
        """binary_cross_entropy_with_logits(logit, label)."""
        return F.binary_cross_entropy_with_logits(logit, label, reduction=self.reduction)


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities input against label."""
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        """binary_cross_entropy(input, label)."""
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class SmoothL1Loss(_Loss):
    """Paddle's SmoothL1Loss: the Huber loss of slope delta (is_huber=True)."""
    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__(reduction)
        self.delta, self.is_huber = delta, is_huber

    def forward(self, input, label):
        """smooth_l1_loss(input, label)."""
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber)


class HuberLoss(SmoothL1Loss):
    """The Huber loss: 0.5 d**2 where |d| < delta, else delta * (|d| - 0.5 delta)."""


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of label from exp(input)."""
    def __init__(self, reduction="mean", log_target=False):
        if reduction not in ("mean", "sum", "none", "batchmean"):
            _c.reduction(reduction, "KLDivLoss")
        Layer.__init__(self)
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, label):
        """kl_div(input, label)."""
        return F.kl_div(input, label, self.reduction, self.log_target)


class Identity(Layer):
    """Returns its input unchanged (any constructor arguments are ignored)."""
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        """x itself."""
        return x


class Unflatten(Layer):
    """Splits axis into the given shape."""
    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis = _args.integer(axis, "Unflatten", "axis")
        self.shape = tuple(_args.shape(shape, "Unflatten", allow_infer=True))

    def forward(self, x):
        """x with axis split into shape."""
        nd = x.ndim
        ax = _args.axis(self.axis, nd, "Unflatten")
        return x.reshape(list(x.shape[:ax]) + list(self.shape) + list(x.shape[ax + 1:]))


class SiLU(Layer):
    """Elementwise x * sigmoid(x)."""
    def __init__(self, inplace=False, name=None):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        """silu(x)."""
        return F.silu(x, self.inplace)


class Softplus(Layer):
    """Elementwise log(1 + exp(beta * x)) / beta (x itself above threshold)."""
    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x):
        """softplus(x)."""
        return F.softplus(x, self.beta, self.threshold)


class ELU(Layer):
    """Elementwise x where x > 0, else alpha * (exp(x) - 1)."""
    def __init__(self, alpha=1.0, name=None, *, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, x):
        """elu(x)."""
        return F.elu(x, self.alpha, self.inplace)


class Hardtanh(Layer):
    """Elementwise clamp into [min, max]."""
    def __init__(self, min=-1.0, max=1.0, name=None, *, inplace=False):
        super().__init__()
        self.min, self.max, self.inplace = min, max, inplace

    def forward(self, x):
        """hardtanh(x)."""
        return F.hardtanh(x, self.min, self.max, self.inplace)


class ReLU6(Layer):
    """Elementwise min(max(x, 0), 6)."""
    def __init__(self, name=None, *, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        """relu6(x)."""
        return F.relu6(x, self.inplace)


class LogSigmoid(Layer):
    """Elementwise log(sigmoid(x))."""
    def forward(self, x):
        """log_sigmoid(x)."""
        return F.log_sigmoid(x)


class LogSoftmax(Layer):
    """log(softmax(x)) along axis."""
    def __init__(self, axis=-1, name=None, *, dim=None):
        super().__init__()
        self.axis = dim if dim is not None else axis

    def forward(self, x):
        """log_softmax(x) along axis."""
        return F.log_softmax(x, self.axis)


class Dropout2D(Layer):
    """Zeroes whole channels with probability p in training (the rest scaled by 1/(1-p))."""
    def __init__(self, p=0.5, data_format="NCHW", name=None, *, inplace=False):
        super().__init__()
        self.p, self.inplace = _c.probability(p, type(self).__name__), inplace
        if data_format != "NCHW":
            raise NotImplementedError(f"{type(self).__name__}: data_format {data_format!r} "
                                      "is not supported (NCHW only)")
        self._repr_name = name

    def forward(self, x):
        """x with channel dropout applied in training mode."""
        return F.dropout2d(x, self.p, self.training, inplace=self.inplace)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        name = f", name={self._repr_name}" if self._repr_name else ""
        return f"p={self.p}, data_format=NCHW{name}"


class GroupNorm(Layer):
    """Group normalisation: channels split into num_groups groups, each normalised."""
    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None, *, eps=None, affine=True):
        super().__init__()
        op = type(self).__name__
        self.num_groups = _c.count(num_groups, op, "num_groups", 1)
        self.num_channels = _c.count(num_channels, op, "num_channels")
        if self.num_channels % self.num_groups:
            raise ArgValueError(f"{op}: num_channels must be divisible by num_groups (got "
                                f"{self.num_channels} and {self.num_groups})")
        self.epsilon = _args.number(eps if eps is not None else epsilon, op, "epsilon",
                                    allow_bool=False)
        if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise ArgValueError(f"{op}: unsupported data layout:{data_format}")
        self._data_format = data_format
        self.affine = bool(affine)
        if affine and weight_attr is not False:
            self.weight = _param([self.num_channels])
        else:
            self._parameters["weight"] = None
        if affine and bias_attr is not False:
            self.bias = _param([self.num_channels])
        else:
            self._parameters["bias"] = None
        self.reset_parameters()

    reset_parameters = LayerNorm.reset_parameters

    def forward(self, x):
        """group_norm(x)."""
        return F.group_norm(x, self.num_groups, self.epsilon, self.weight, self.bias,
                            self._data_format)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        return (f"num_groups={self.num_groups}, num_channels={self.num_channels}, "
                f"epsilon={self.epsilon}")


class _InstanceNorm(Layer):
    """Paddle's InstanceNorm: per-(sample, channel) normalisation with scale and bias."""
    _ndims: Any = None   # set by each subclass

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        op = type(self).__name__
        self.num_features = _c.count(num_features, op, "num_features")
        self.epsilon = _args.number(epsilon, op, "epsilon", allow_bool=False)
        self.momentum = momentum
        if weight_attr is not False:
            self.scale = _param([self.num_features])
            init.ones_(self.scale)
        else:
            self._parameters["scale"] = None
        if bias_attr is not False:
            self.bias = _param([self.num_features])
        else:
            self._parameters["bias"] = None

    def _check_input(self, x):
        if not isinstance(x, Tensor):
            raise ArgTypeError(f"{type(self).__name__}: input must be a Tensor, got "
                               f"{type(x).__name__}")
        if x.ndim not in self._ndims:
            want = " or ".join(f"{d}D" for d in self._ndims)
            raise ArgValueError(f"{type(self).__name__}: expected {want} input (got {x.ndim}D "
                                f"input of shape {list(x.shape)})")

    def forward(self, x):
        """instance_norm(x) with this layer's scale and bias."""
        self._check_input(x)
        return F.instance_norm(x, weight=self.scale, bias=self.bias, eps=self.epsilon)

    def extra_repr(self):
        """The text shown inside the layer's repr parentheses (Paddle's)."""
        return f"num_features={self.num_features}, epsilon={self.epsilon}"


class InstanceNorm1D(_InstanceNorm):
    """Instance normalisation over [N, C, L] input."""
    _ndims = (3,)


class InstanceNorm2D(_InstanceNorm):
    """Instance normalisation over [N, C, H, W] input."""
    _ndims = (4,)


# ---------------------------------------------------------------- spatial (oar/nn/_spatial.py)
class Upsample(Layer):
    """F.interpolate as a layer, with Paddle's arguments."""
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format=None, recompute_scale_factor=None, name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode = align_corners, align_mode
        self.data_format, self.recompute_scale_factor = data_format, recompute_scale_factor

    def forward(self, x):
        """x resampled; a data_format of None becomes the channels-first one of x's rank and
        is kept (Paddle's)."""
        if self.data_format is None:
            self.data_format = {3: "NCW", 4: "NCHW", 5: "NCDHW"}.get(x.ndim)
            if self.data_format is None:
                raise ArgValueError(f"The dimension of the input tensor should only be 3-D, "
                                    f"4-D or 5-D, but the received dimension is {x.ndim}.")
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.align_mode, self.data_format, self.recompute_scale_factor)

    def extra_repr(self):
        """Paddle's: the size or scale factor, mode, align_corners, align_mode, data_format."""
        main = (f"scale_factor={self.scale_factor}" if self.scale_factor is not None
                else f"size={self.size}")
        return (f"{main}, mode={self.mode}, align_corners={self.align_corners}, "
                f"align_mode={self.align_mode}, data_format={self.data_format}")


class UpsamplingNearest2D(Upsample):
    """2-D nearest-neighbour upsampling."""
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", False, 0, data_format)

    def extra_repr(self):
        """Paddle's: the size or scale factor and data_format."""
        return (f"scale_factor={self.scale_factor}" if self.scale_factor is not None
                else f"size={self.size}") + f", data_format={self.data_format}"


class UpsamplingBilinear2D(UpsamplingNearest2D):
    """2-D bilinear upsampling with align_corners=True."""
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        Upsample.__init__(self, size, scale_factor, "bilinear", True, 0, data_format)


class PixelShuffle(Layer):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r] (Note [Pixel shuffle])."""
    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self.upscale_factor, self.data_format = upscale_factor, data_format

    def forward(self, x):
        """x's channels moved into pixel blocks."""
        return F.pixel_shuffle(x, self.upscale_factor, self.data_format)

    def extra_repr(self):
        """upscale_factor (and a non-default data_format)."""
        return f"upscale_factor={self.upscale_factor}" + (
            f", data_format={self.data_format}" if self.data_format != "NCHW" else "")


class PixelUnshuffle(Layer):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W] (Note [Pixel shuffle])."""
    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self.downscale_factor, self.data_format = downscale_factor, data_format

    def forward(self, x):
        """x's pixel blocks moved into channels."""
        return F.pixel_unshuffle(x, self.downscale_factor, self.data_format)

    def extra_repr(self):
        """downscale_factor (and a non-default data_format)."""
        return f"downscale_factor={self.downscale_factor}" + (
            f", data_format={self.data_format}" if self.data_format != "NCHW" else "")


class Unfold(Layer):
    """F.unfold as a layer (Note [Unfold and fold])."""
    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides = paddings, strides

    def forward(self, x):
        """x's sliding windows as columns."""
        return F.unfold(x, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        """Paddle's: kernel_size, dilation, padding, stride."""
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, "
                f"padding={self.paddings}, stride={self.strides}")


class Fold(Unfold):
    """F.fold as a layer (Note [Unfold and fold])."""
    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__(kernel_sizes, dilations, paddings, strides)
        self.output_sizes = output_sizes

    def forward(self, x):
        """x's columns summed back into their windows."""
        return F.fold(x, self.output_sizes, self.kernel_sizes, self.strides, self.paddings,
                      self.dilations)
