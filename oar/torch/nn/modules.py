"""torch.nn.Module and the containers, over the core Layer."""
# Note [Torch modules over core layers]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# `Module` subclasses the core `Layer` (so shared code that takes a Layer takes a Module) and
# overrides what PyTorch means differently: attribute registration, generators for
# parameters()/modules(), state_dict() keys and order (each module's parameters, then its
# persistent buffers, then its children: PyTorch's `_save_to_state_dict` order),
# load_state_dict() returning the (missing_keys, unexpected_keys) named tuple, train()
# recursing through children's train(), and repr. A layer of this door whose meaning matches
# the core's is `class X(core.X, Module)`: the core class first, so its forward() and
# reset_parameters() win over Module's, and Module's methods win over Layer's. Every tensor
# a Module holds is a tensor of this door: a core Parameter or Tensor assigned to a module is
# retagged (Note [Result class]), so ops on weights and buffers follow PyTorch.
# load_state_dict checks every key, shape and value before it copies anything (PyTorch copies
# as it goes and raises at the end; oar's rule is that a call that raises changes nothing).
from __future__ import annotations

import itertools
import operator
from collections import OrderedDict, namedtuple

import numpy as np

from ... import _xp
from ... import dtypes as _dt
from ...autograd import grad_mode
from ...autograd.inplace import bump
from ...nn import layers as _core
from ...nn._nn3_layers import LayerDict as _LayerDict
from ...storage import new_storage as _new_storage
from ...tensor import Tensor as _CoreTensor
from .._tensor import _TYPE_NAMES, Parameter, Tensor

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Buffer"]


def _typename(v):
    """torch.typename: 'torch.FloatTensor' for a tensor, the qualified type name otherwise."""
    if isinstance(v, _CoreTensor):
        return "torch." + _TYPE_NAMES.get(v._data.dtype.name, "Tensor")
    t = type(v)
    mod = t.__module__
    return t.__qualname__ if mod in ("builtins", None) else f"{mod}.{t.__qualname__}"


def _to_door(value):
    """A core Parameter or Tensor as this door's (Note [Torch modules over core layers])."""
    cls = value.__class__
    if cls is _core.Parameter:
        value.__class__ = Parameter
    elif cls is _CoreTensor:
        value.__class__ = Tensor
    return value


class Buffer(Tensor):
    """torch.nn.Buffer(data, persistent=True): assigning it to a module attribute registers
    a buffer (the module keeps a plain tensor over the same memory)."""
    __slots__ = ()

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = Tensor._wrap(np.empty(0, np.float32))
        if not isinstance(data, _CoreTensor):
            raise TypeError(f"Buffer: expected a Tensor, got {_typename(data)}")
        b = Tensor._wrap(data._data, data._storage)
        b.__class__ = cls
        b.__dict__["persistent"] = bool(persistent)
        return b

    def __init__(self, *args, **kwargs):
        pass


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


def _walk(module, memo, prefix, remove_duplicate):
    """(name, module) for module and every descendant, depth first, each once."""
    if module in memo:
        return
    if remove_duplicate:
        memo.add(module)
    yield prefix, module
    for name, child in module._sub_layers.items():
        if child is None:
            continue
        yield from _walk(child, memo, prefix + ("." if prefix else "") + name, remove_duplicate)


def _replace_data(t, arr):
    """t (same object) over a new array: what `param.data = new` does in PyTorch."""
    t._data = arr
    t._storage = _new_storage(arr)
    t._base = None
    t._view = None


class Module(_core.Layer):
    """Base class of all PyTorch-door modules: define __init__ (calling super().__init__()
    first) and forward(); calling the module runs its hooks and forward()
    (Note [Torch modules over core layers])."""
    _version = 1
    training: bool
    call_super_init = False
    dump_patches = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            if kwargs:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                                f"argument '{next(iter(kwargs))}'")
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        _core.Layer.__init__(self)
        d = self.__dict__
        d["_modules"] = d["_sub_layers"]
        d["_non_persistent_buffers_set"] = set()

    def forward(self, *args, **kwargs):
        """The module's computation: subclasses define it."""
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def register_full_backward_hook(self, hook, prepend=False):
        """Not supported by oar yet: refused rather than silently never called."""
        raise NotImplementedError(f"{type(self).__name__}.register_full_backward_hook: module "
                                  "backward hooks are not supported by oar yet. Fix: register "
                                  "a hook on the output tensor (output.register_hook(fn)) in "
                                  "a forward hook")

    register_backward_hook = register_full_backward_hook
    register_full_backward_pre_hook = register_full_backward_hook

    # ------------------------------------------------------------------ registration
    def _get_name(self):
        return type(self).__name__

    def _taken(self, name, own):
        """Whether name is an attribute other than an entry of the dict `own`."""
        if name in self.__dict__.get(own, {}):
            return False
        if name in self.__dict__:
            return True
        for key in ("_parameters", "_buffers", "_sub_layers"):
            if key != own and name in self.__dict__.get(key, {}):
                return True
        attr = getattr(type(self), name, None)
        return attr is not None and not isinstance(attr, property)

    def _check_name(self, name, what):
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f"{what} name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError(f"{what} name can't be empty string \"\"")

    def register_buffer(self, name, tensor, persistent=True):
        """Registers a tensor that is state but not a parameter; persistent buffers are part
        of state_dict()."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if self._taken(name, "_buffers"):
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, _CoreTensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.__dict__.get("persistent", persistent)
            tensor = Tensor._wrap(tensor._data, tensor._storage)
        self._buffers[name] = None if tensor is None else _to_door(tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Registers a Parameter (or None) under name."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if self._taken(name, "_parameters"):
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, _core.Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             "function of another Tensor, compute the value in the forward() "
                             "method.")
        self._parameters[name] = _to_door(param)

    def add_module(self, name, module):
        """Registers a child module (or None) under name."""
        if module is not None and not isinstance(module, _core.Layer):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        self._check_name(name, "module")
        if self._taken(name, "_sub_layers"):
            raise KeyError(f"attribute '{name}' already exists")
        self._sub_layers[name] = module

    register_module = add_module

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")

        def remove_from(*dicts):
            for x in dicts:
                if isinstance(x, dict):
                    x.pop(name, None)
                elif x is not None:
                    x.discard(name)

        if isinstance(value, _core.Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, d["_buffers"], d["_sub_layers"], d.get("_non_persistent_buffers_set"))
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_sub_layers")
            if isinstance(value, _core.Layer):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, d["_parameters"], d["_buffers"],
                            d.get("_non_persistent_buffers_set"))
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, _CoreTensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer "
                                        f"'{name}' (torch.nn.Buffer, torch.Tensor or None "
                                        "expected)")
                    if buffers is None:
                        raise AttributeError("cannot assign buffer before Module.__init__() "
                                             "call")
                    persistent = name not in d.get("_non_persistent_buffers_set", ())
                    if isinstance(value, Buffer):
                        persistent = value.__dict__.get("persistent", True)
                        value = Tensor._wrap(value._data, value._storage)
                    buffers.pop(name, None)
                    d.pop(name, None)
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self.__dict__.get("_non_persistent_buffers_set", ()):
            self._non_persistent_buffers_set.discard(name)
        _core.Layer.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self))
        for k in ("_parameters", "_buffers", "_sub_layers"):
            keys += list(self.__dict__.get(k, {}))
        return sorted(set(k for k in keys if not k[0].isdigit()))

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ------------------------------------------------------------------ traversal
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yields (dotted name, module) for this module and every descendant, each once."""
        return _walk(self, set() if memo is None else memo, prefix, remove_duplicate)

    def modules(self):
        """Yields this module and every descendant, each once."""
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """Yields (name, module) for the direct children, each once."""
        memo = set()
        for name, m in self._sub_layers.items():
            if m is not None and m not in memo:
                memo.add(m)
                yield name, m

    def children(self):
        """Yields the direct children, each once."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, key, prefix, recurse, remove_duplicate, skip=None):
        memo = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for k, v in m.__dict__.get(key, {}).items():
                if v is None or v in memo or (skip and k in skip(m)):
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield mprefix + ("." if mprefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yields (dotted name, parameter) for this module and (recurse) its descendants."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """Yields every parameter of this module and (recurse) its descendants, each once."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Yields (dotted name, buffer) for this module and (recurse) its descendants."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """Yields every buffer of this module and (recurse) its descendants."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target):
        """The descendant at the dotted path target ('' is self)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not isinstance(mod, _core.Layer) or item not in mod._sub_layers:
                if not hasattr(mod, item):
                    raise AttributeError(type(mod).__name__ + " has no attribute `" + item + "`")
                raise AttributeError("`" + item + "` is not an nn.Module")
            mod = mod._sub_layers[item]
        return mod

    def get_parameter(self, target):
        """The parameter at the dotted path target."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(type(mod).__name__ + " has no attribute `" + name + "`")
        if name not in mod._parameters:
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return mod._parameters[name]

    def get_buffer(self, target):
        """The buffer at the dotted path target."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(type(mod).__name__ + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return mod._buffers[name]

    # ------------------------------------------------------------------ modes
    def train(self, mode=True):
        """Sets training mode on this module and (through their train()) its children."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Evaluation mode: self.train(False)."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets requires_grad on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clears every parameter's .grad (to None, or zeroes it with set_to_none=False)."""
        for p in self.parameters():
            p.clear_grad(not set_to_none)

    def share_memory(self):
        """No-op (one process); returns self."""
        return self

    def extra_repr(self):
        """The text shown inside the module's repr parentheses."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({k}): " + _addindent(repr(m), 2) for k, m in self._sub_layers.items()]
        lines = extra_lines + child_lines
        s = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                s += extra_lines[0]
            else:
                s += "\n  " + "\n  ".join(lines) + "\n"
        return s + ")"

    # ------------------------------------------------------------------ dtype / device
    def _apply(self, fn, what="to"):
        """Replaces every parameter's and buffer's data (and gradients) by fn(array) (None:
        unchanged), keeping the objects, as PyTorch's module._apply."""
        for m in self.modules():
            for d in (m._parameters, m._buffers):
                for t in d.values():
                    if t is None:
                        continue
                    arr = fn(t._data)
                    if arr is not None:
                        with grad_mode.no_grad():
                            _replace_data(t, arr)
                        if t._grad is not None:
                            g = fn(t._grad._data)
                            if g is not None:
                                _replace_data(t._grad, g)
        return self

    def _cast(self, dtype):
        want = _dt.as_dtype(dtype).np
        if not _dt.is_float(want):   # bfloat16 too (Note [bfloat16])
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, "
                            f"but got desired dtype={_dt.as_dtype(dtype).name}")
        return self._apply(lambda a: a.astype(want) if _dt.is_float(a.dtype) and a.dtype != want
                           else None)

    def to(self, *args, **kwargs):
        """Casts floating parameters and buffers to a dtype (in place, the same objects);
        'cpu' is accepted, another device is refused (oar runs on the CPU)."""
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: unexpected "
                            f"keyword(s) {sorted(kwargs)}")
        for a in args:
            if isinstance(a, _CoreTensor):
                dtype = a.dtype
            elif isinstance(a, _dt.DType):
                dtype = a
            elif isinstance(a, bool):
                continue
            else:
                device = a
        if device is not None:
            self._move_tensors(_check_device(device, type(self).__name__ + ".to"))
        return self._cast(dtype) if dtype is not None else self

    def cpu(self):
        """Moves every parameter and buffer to the CPU (the same objects); returns self."""
        return self._move_tensors(_xp.CPU)

    def cuda(self, device=None):
        """Moves every parameter and buffer to the GPU (the same objects); refused where no
        GPU backend exists (oar's CPU-only build). Returns self."""
        if isinstance(device, int) and not isinstance(device, bool):
            device = f"cuda:{device}"
        return self._move_tensors(_check_device("cuda" if device is None else device,
                                                type(self).__name__ + ".cuda"))

    def float(self):
        """Casts floating parameters and buffers to float32; returns self."""
        return self._cast(_dt.float32)

    def double(self):
        """Casts floating parameters and buffers to float64; returns self."""
        return self._cast(_dt.float64)

    def half(self):
        """Casts floating parameters and buffers to float16; returns self."""
        return self._cast(_dt.float16)

    def bfloat16(self):
        """Casts floating parameters and buffers to bfloat16; returns self."""
        return self._cast(_dt.bfloat16)

    def type(self, dst_type):
        """Casts every parameter and buffer to dst_type; returns self."""
        want = _dt.as_dtype(dst_type).np
        return self._apply(lambda a: a.astype(want) if a.dtype != want else None)

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of dotted name -> tensor (sharing memory with the module): each
        module's parameters, then its persistent buffers, then its children's entries."""
        if args:                       # PyTorch's deprecated positional form
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._sub_layers.items():
            if m is None:
                continue
            if isinstance(m, Module):
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
            else:                      # a core (Paddle-door) layer inside: its own keys
                for k, v in m.state_dict().items():
                    destination[prefix + name + "." + k] = v if keep_vars else v.detach()
        return destination

    def _local_state(self):
        return {k: v for k, v in itertools.chain(
            self._parameters.items(),
            ((k, b) for k, b in self._buffers.items()
             if k not in self.__dict__.get("_non_persistent_buffers_set", ())))
            if v is not None}

    def _plan_load(self, state_dict, prefix, local_metadata, strict, missing_keys,
                   unexpected_keys, error_msgs, plan):
        """PyTorch's _load_from_state_dict, with the copies appended to plan instead of made."""
        _plan(self, self._local_state(), state_dict, prefix, strict, missing_keys,
              unexpected_keys, error_msgs, plan)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Copies this module's own entries of state_dict (PyTorch's hook for subclasses
        that migrate old checkpoints)."""
        plan = []
        self._plan_load(state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs, plan)
        _copy_plan(plan, local_metadata.get("assign_to_params_buffers", False))

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies parameters and persistent buffers from state_dict (every key, shape and
        value checked first: a refused state dict changes nothing). Returns the named tuple
        (missing_keys, unexpected_keys); with strict, any of them is a RuntimeError."""
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "items"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        missing, unexpected, errors, plan, deferred = [], [], [], [], []

        def visit(module, local, prefix=""):
            meta = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                meta["assign_to_params_buffers"] = True
            if isinstance(module, Module):
                if type(module)._load_from_state_dict is not Module._load_from_state_dict:
                    deferred.append((module, local, prefix, meta))
                else:
                    module._plan_load(local, prefix, meta, True, missing, unexpected, errors,
                                      plan)
            else:
                _plan_core(module, local, prefix, missing, unexpected, errors, plan)
            for name, child in module._sub_layers.items():
                if child is not None:
                    cp = prefix + name + "."
                    visit(child, {k: v for k, v in local.items() if k.startswith(cp)}, cp)

        visit(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        _copy_plan(plan, assign)
        for module, local, prefix, meta in deferred:
            module._load_from_state_dict(local, prefix, meta, True, missing, unexpected,
                                         errors)
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)


def _size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def _plan(module, own, state_dict, prefix, strict, missing_keys, unexpected_keys,
          error_msgs, plan):
    """Checks module's own entries `own` (name -> tensor) against state_dict: missing and
    unexpected keys, non-tensors and shape mismatches as PyTorch reports them; appends
    (module, name, target, value, array) for every copy to make."""
    for name, target in own.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, _CoreTensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected '
                              "torch.Tensor or Tensor-like object from checkpoint but "
                              f"received {type(value)}")
            continue
        arr = value._data
        if target._data.ndim == 0 and arr.shape == (1,):
            arr = arr.reshape(())
        if arr.shape != target._data.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{_size(arr.shape)} from checkpoint, the shape in current "
                              f"model is {_size(target._data.shape)}.")
            continue
        plan.append((module, name, target, value, arr))
    if strict:
        for key in state_dict:
            if key.startswith(prefix):
                head = key[len(prefix):].split(".", 1)
                if len(head) > 1:
                    if head[0] not in module._sub_layers:
                        unexpected_keys.append(key)
                elif head[0] not in own:
                    unexpected_keys.append(key)


def _plan_core(layer, local, prefix, missing, unexpected, errors, plan):
    """A core (Paddle-door) layer inside a Module: its own keys, PyTorch's rules."""
    own = {k: v for k, v in itertools.chain(layer._parameters.items(), layer._buffers.items())
           if v is not None}
    _plan(layer, own, local, prefix, True, missing, unexpected, errors, plan)


def _copy_plan(plan, assign):
    """Copies every planned (module, name, target, value, array) under no_grad."""
    with grad_mode.no_grad():
        for module, name, target, value, arr in plan:
            if assign:
                if isinstance(target, _core.Parameter):
                    p = value if isinstance(value, _core.Parameter) else \
                        Parameter._wrap(value._data, value._storage)     # sharing, as PyTorch
                    p._requires_grad = target.requires_grad
                    module._parameters[name] = _to_door(p)
                else:
                    module._buffers[name] = _to_door(value)
                continue
            np.copyto(target._data, arr, casting="unsafe")
            bump(target, "load_state_dict")


def _check_device(device, op):
    """The Place a module moves to: the CPU, or a GPU where a device backend exists."""
    s = str(getattr(device, "type", device)).split(":")[0].lower()
    if s in ("cpu", "place(cpu)", "cpuplace()", "cpuplace"):
        return _xp.CPU
    if s in ("cuda", "gpu", "place(gpu") and _xp.backend() is not None:
        from ...ops.args import device as parse
        return parse(device, op)
    raise RuntimeError(f"{op}({device!r}): oar runs on the CPU only (Torch not compiled "
                       "with CUDA enabled); use 'cpu'")


# ---------------------------------------------------------------------- containers
def _index(i, n, what):
    i = operator.index(i)
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range")
    return i + n if i < 0 else i


def _renumber(modules, values=None):
    """Re-keys an ordered module dict 0, 1, ... in place (the same dict object: _modules and
    _sub_layers are one dict)."""
    values = list(modules.values()) if values is None else values
    modules.clear()
    for i, m in enumerate(values):
        modules[str(i)] = m


class Sequential(Module):
    """Modules run one after another, each on the previous one's output; built from modules
    or an OrderedDict of name -> module."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, m in args[0].items():
                self.add_module(key, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def _items(self):
        return list(self._sub_layers.items())

    def __getitem__(self, idx):
        items = self._items()
        if isinstance(idx, slice):
            return type(self)(OrderedDict(items[idx]))
        return items[_index(idx, len(items), "Sequential")][1]

    def __setitem__(self, idx, module):
        key = self._items()[_index(idx, len(self), "Sequential")][0]
        setattr(self, key, module)

    def __delitem__(self, idx):
        items = self._items()
        if isinstance(idx, slice):
            for k, _ in items[idx]:
                del self._sub_layers[k]
        else:
            del self._sub_layers[items[_index(idx, len(items), "Sequential")][0]]
        _renumber(self._sub_layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        out = Sequential()
        for m in itertools.chain(self, other):
            out.append(m)
        return out

    def append(self, module):
        """Appends module at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Appends every module of an iterable; returns self."""
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        """Inserts module before position index; returns self."""
        if not isinstance(module, _core.Layer):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._sub_layers.values())
        mods.insert(index, module)
        _renumber(self._sub_layers, mods)
        return self

    def pop(self, key):
        """Removes and returns the module at position key."""
        v = self[key]
        del self[key]
        return v

    def forward(self, input):
        """input passed through every module in order (Note [Donated activations])."""
        return _core.run_sequence(self._sub_layers.values(), input)


class ModuleList(Module):
    """A list of modules, registered so that their parameters are found."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._sub_layers.values())[idx])
        return self._sub_layers[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx):
        mods = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del mods[idx]
        else:
            del mods[_index(idx, len(mods), "ModuleList")]
        _renumber(self._sub_layers, mods)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        out = ModuleList()
        for m in itertools.chain(self, other):
            out.append(m)
        return out

    def append(self, module):
        """Appends module; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Appends every module of an iterable; returns self."""
        if isinstance(modules, _core.Layer) and not isinstance(modules, (ModuleList, Sequential)):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        """Inserts module before position index."""
        mods = list(self._sub_layers.values())
        mods.insert(index, module)
        _renumber(self._sub_layers, mods)

    def pop(self, key):
        """Removes and returns the module at position key."""
        v = self[key]
        del self[key]
        return v

    def __repr__(self):
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = [[0, 0, reprs[0]]]
        for i, r in enumerate(reprs[1:], 1):
            if r == blocks[-1][2]:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for a, b, r in blocks:
            line = f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}"
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args, **kwargs):
        """A ModuleList is not callable: iterate over it in the parent's forward()."""
        raise NotImplementedError(f'Module [{self._get_name()}] is missing the required '
                                  '"forward" function')


class ModuleDict(_LayerDict, Module):
    """An ordered dict of name -> module, registered so that their parameters are found (the
    mapping methods are the Paddle door's LayerDict's; update and its error are torch's)."""

    def __init__(self, modules=None):
        Module.__init__(self)
        if modules is not None:
            self.update(modules)

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def update(self, modules):
        """Adds the (name, module) pairs of a mapping or an iterable of pairs."""
        if hasattr(modules, "items"):
            for k, m in modules.items():
                self[k] = m
        else:
            for j, pair in enumerate(modules):
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} should be an "
                                     "iterable of length 2")
                self[pair[0]] = pair[1]

    def forward(self, *args, **kwargs):
        """A ModuleDict is not callable: index it in the parent's forward()."""
        raise NotImplementedError(f'Module [{self._get_name()}] is missing the required '
                                  '"forward" function')


def _param_desc(p, style):
    name = Tensor.type(p) if style == "type" else repr(p.dtype)
    size = "x".join(str(s) for s in p._data.shape)
    kind = "Parameter containing" if isinstance(p, _core.Parameter) else "Tensor"
    return f"{kind}: [{name} of size {size}]"


def _as_param(v):
    if isinstance(v, _core.Parameter):
        return _to_door(v)
    if isinstance(v, _CoreTensor):
        return Parameter(v)
    return v


class ParameterList(Module):
    """A list of parameters (tensors are wrapped as Parameters)."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx, param):
        idx = _index(idx, len(self), "ParameterList")
        setattr(self, str(idx), _as_param(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        """Appends a parameter (a tensor is wrapped); returns self."""
        n = self._size
        self._size += 1
        setattr(self, str(n), _as_param(value))
        return self

    def extend(self, values):
        """Appends every value of an iterable; returns self."""
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        """One line per parameter: its kind, dtype and size."""
        return "\n".join(f"({i}): " + _param_desc(p, "dtype") for i, p in enumerate(self))

    def __repr__(self):
        body = self.extra_repr()
        if not body:
            return "ParameterList()"
        return "ParameterList(\n" + "\n".join("    " + ln for ln in body.split("\n")) + "\n)"


class ParameterDict(Module):
    """An ordered dict of name -> parameter (tensors are wrapped as Parameters)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_param(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        """The names."""
        return self._keys.keys()

    def values(self):
        """The parameters."""
        return [self[k] for k in self._keys]

    def items(self):
        """The (name, parameter) pairs."""
        return [(k, self[k]) for k in self._keys]

    def pop(self, key):
        """Removes and returns the parameter under key."""
        v = self[key]
        del self[key]
        return v

    def get(self, key, default=None):
        """The parameter under key, or default."""
        return self[key] if key in self else default

    def update(self, parameters):
        """Adds the (name, parameter) pairs of a mapping or an iterable of pairs."""
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for k, v in items:
            self[k] = v

    def extra_repr(self):
        """One line per parameter: its name, kind, type and size."""
        return "\n".join(f"({k}): " + _param_desc(p, "type") for k, p in self.items())

    def __repr__(self):
        return "ParameterDict(" + "  " + self.extra_repr() + ")"
