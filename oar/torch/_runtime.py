"""The PyTorch door's runtime: devices, creation and random functions, generators, default
dtype and device, grad modes, and the Tensor methods that depend on them.

`oar.torch` star-imports this module. Every function here returns `oar.torch.Tensor`s when
it makes a tensor from no tensor operand (`as_door`), accepts PyTorch's argument forms
(`zeros(2, 3)`, `zeros((2, 3))`, `dtype=`, `device=`, `requires_grad=`, `generator=`) and
draws random numbers from PyTorch's own streams (Note [Torch CPU random streams]).

Devices: Note [Only the CPU, PyTorch door] below.
"""
from __future__ import annotations

import functools
import os
import warnings

import numbers

import numpy as np

from .. import _xp
from .._xp import place_of as _place_of
from .. import dtypes as _dt
from ..autograd import grad_mode as _gm
from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import args as _A
from ..ops import creation as _creation
from ..ops import random as _random
from ..ops import registry as _R
from ..ops.args import DeviceUnavailableError
from ..ops.registry import FUNCTIONS as _CORE
from ..ops.registry import OPS as _OPS
from ..tensor import Tensor as _CoreTensor
from ._rng import DEFAULT_SEED, TorchCPUGenerator
from ._tensor import DTYPES, Tensor, as_door

# Note [Only the CPU, PyTorch door]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# oar runs on the CPU. `torch.device("cuda")` may be *made* (PyTorch allows it on a CPU build,
# and `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")` is common), but
# *using* it to place a tensor (`device=`, `.to()`, `.cuda()`, `set_default_device`, a
# `with torch.device("cuda"):` block, `Generator("cuda")`) raises a DeviceUnavailableError (an
# AssertionError, as PyTorch's "Torch not compiled with CUDA enabled", and a RuntimeError) in one
# line naming oar. A tensor never silently stays on the CPU when an accelerator was asked for.
__all__ = [
    "device", "Generator", "default_generator", "manual_seed", "seed", "initial_seed",
    "get_rng_state", "set_rng_state", "set_default_device", "get_default_device",
    "set_default_dtype", "get_default_dtype", "zeros", "ones", "empty", "full", "arange",
    "linspace", "logspace", "eye", "tensor", "as_tensor", "asarray", "rand", "randn",
    "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like", "randn_like",
    "randint_like", "zeros_like", "ones_like", "empty_like", "full_like", "no_grad",
    "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
    "is_inference_mode_enabled", "is_inference", "is_tensor", "is_floating_point", "is_nonzero",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "hsplit", "vsplit",
    "dsplit", "cuda", "backends", "accelerator", "testing",
]


def _not_compiled(what):
    """Note [Only the CPU, PyTorch door]: the one-line error for an accelerator."""
    return DeviceUnavailableError(
        f"Torch not compiled with CUDA enabled: {what} needs an accelerator, and oar runs on "
        "the CPU only. Fix: use 'cpu' (e.g. device = torch.device('cuda' if "
        "torch.cuda.is_available() else 'cpu')).")


# --------------------------------------------------------------------------- torch.device
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class device:   # noqa: N801  (torch.device)
    """torch.device: a device type ('cpu', 'cuda', ...) and an optional index. Any PyTorch
    device may be named; only 'cpu' can hold tensors (Note [Only the CPU, PyTorch door]).
    Also a context manager setting the default device (`with torch.device('cpu'):`)."""
    __slots__ = ("_type", "_index", "_prev")

    def __init__(self, type=None, index=None):   # noqa: A002  (PyTorch's parameter name)
        if isinstance(type, device):
            if index is not None:
                raise ArgTypeError("device(): a device and an index cannot both be given")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, (int, np.integer)) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available. "
                               f"(torch.device({int(type)}) names an accelerator ordinal; oar "
                               "runs on the CPU only.)")
        if not isinstance(type, str):
            raise ArgTypeError(f"device() received an invalid combination of arguments: "
                               f"expected a device string such as 'cpu', got "
                               f"{_typename(type)}")
        s = type.strip()
        kind, sep, idx = s.partition(":")
        if sep:
            if index is not None:
                raise RuntimeError(f"device(): type (string) must not include an index because "
                                   f"index was passed explicitly: {s}")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: {type!r}")
            index = int(idx)
        if kind not in _DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start "
                               f"of device string: {type}")
        if index is not None:
            index = _A.integer(index, "device", "index")
            if index < 0:
                raise RuntimeError(f"Device index must not be negative, got {index}")
        self._type, self._index = kind, index

    @property
    def type(self):
        """The device type: 'cpu', 'cuda', ..."""
        return self._type

    @property
    def index(self):
        """The device index, or None."""
        return self._index

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self._type, self._index) == (other._type,
                                                                           other._index)

    def __hash__(self):
        return hash((self._type, self._index))

    def __reduce__(self):
        return (device, (self._type, self._index))

    def __enter__(self):
        self._prev = _DEFAULT_DEVICE[0]
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(self._prev)
        return False


def _typename(v):
    return v.__class__.__name__


CPU = device("cpu")
_DEFAULT_DEVICE = [CPU]


def _device(d, op):
    """Note [Only the CPU, PyTorch door] for a `device=` argument: its Place (None: None); a
    GPU only where a device backend exists (Note [Array module per place])."""
    if d is None:
        return None
    if isinstance(d, device):
        if d.type != "cpu" and not (d.type == "cuda" and _xp.backend() is not None):
            raise _not_compiled(f"{op}(device={str(d)!r})")
        return _A.device(d, op)
    if isinstance(d, str):
        device(d)   # a malformed string is PyTorch's RuntimeError
        kind = d.strip().partition(":")[0]
        if kind != "cpu" and not (kind == "cuda" and _xp.backend() is not None):
            raise _not_compiled(f"{op}(device={d!r})")
    return _A.device(d, op)


def _placing(fn, like=False):
    """fn (a creation function) making its tensor on its `device=` (else the default device;
    a *_like function: its input's device): Note [Array module per place]."""
    def placed(*args, **kwargs):
        d = kwargs.get("device")
        if d is None:
            if not like or not args or not isinstance(args[0], _CoreTensor):
                return fn(*args, **kwargs)
            place = args[0].place
        else:
            place = _device(d, fn.__name__)
        if place == _xp.DEFAULT[0]:
            return fn(*args, **kwargs)
        with _xp.default_place(place):
            return fn(*args, **kwargs)
    functools.update_wrapper(placed, fn)
    return placed


def set_default_device(d):
    """Sets the device new tensors are made on: only the CPU (None resets it); anything else
    raises (Note [Only the CPU, PyTorch door])."""
    if d is None:
        _DEFAULT_DEVICE[0] = CPU
        _xp.DEFAULT[0] = _xp.CPU
        return
    _xp.DEFAULT[0] = _device(d, "set_default_device")
    _DEFAULT_DEVICE[0] = d if isinstance(d, device) else device(d)


def get_default_device():
    """The device new tensors are made on: device(type='cpu')."""
    return _DEFAULT_DEVICE[0]


# --------------------------------------------------------------------------- dtypes
def set_default_dtype(d):
    """Sets the default floating dtype (torch.float16, torch.float32 or torch.float64): the
    dtype of Python floats and of floating creation functions (Note [Default dtype]). A
    string, or a non-floating dtype, is PyTorch's TypeError."""
    if not isinstance(d, _dt.DType):
        raise TypeError(f"invalid dtype object: only floating-point types are supported as the "
                        f"default type (got {d!r}; pass torch.float64, not a string)")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.set_default_dtype(d)


def get_default_dtype():
    """The default floating dtype, a torch.dtype (torch.float32 unless changed)."""
    return DTYPES[_dt.DEFAULT_FLOAT.np]


# --------------------------------------------------------------------------- generators
class Generator:
    """torch.Generator: a CPU random stream that draws exactly what PyTorch's draws (Note
    [Torch CPU random streams]), or, with device="cuda", a stream of that device (Note
    [Random streams per place]). Pass it as `generator=` to the random functions."""
    _oar_default = False   # True for default_generator only

    def __init__(self, device="cpu"):
        place = _device(device, "Generator")
        if place is not None and place.kind != "cpu":
            self._oar_source = _random.DeviceStream(place, DEFAULT_SEED)
        else:
            self._oar_source = TorchCPUGenerator(DEFAULT_SEED)

    @property
    def device(self):
        """The generator's device."""
        src = self._oar_source
        if isinstance(src, _random.DeviceStream):
            return globals()["device"](_xp.torch_name(src.place))
        return CPU

    def manual_seed(self, seed):
        """Seeds the generator (an int; negative seeds wrap around) and returns it."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ArgTypeError(f"manual_seed expected a long, but got {_typename(seed)}")
        self._oar_source.manual_seed(int(seed))
        return self

    def seed(self):
        """Seeds the generator from a non-deterministic source; returns the seed."""
        return self._oar_source.seed()

    def initial_seed(self):
        """The seed the generator was last seeded with."""
        src = self._oar_source
        return src.initial if isinstance(src, _random.DeviceStream) else src.initial_seed()

    def get_state(self):
        """The generator's state, a uint8 tensor (PyTorch's layout: states move between
        real PyTorch and oar)."""
        return as_door(_CoreTensor._wrap(self._oar_source.get_state()))

    def set_state(self, new_state):
        """Restores a state from get_state() (a uint8 tensor); returns the generator."""
        if not isinstance(new_state, _CoreTensor):
            raise ArgTypeError(f"set_state(): expected a torch.ByteTensor, got "
                               f"{_typename(new_state)}")
        if new_state._data.dtype != np.uint8:
            raise ArgTypeError(f"set_state(): expected a torch.ByteTensor (uint8), got "
                               f"{new_state.dtype.name}")
        try:
            self._oar_source.set_state(np.ascontiguousarray(new_state._data))
        except RuntimeError as e:
            raise ArgValueError(str(e)) from None
        return self

    def clone_state(self):
        """A new generator in the same state."""
        g = Generator.__new__(Generator)
        src = self._oar_source
        if isinstance(src, _random.DeviceStream):
            g._oar_source = _random.DeviceStream(src.place)
            g._oar_source.set_state(src.get_state())
        else:
            g._oar_source = src.clone()
        return g

    def __repr__(self):
        return f"<torch.Generator object at {hex(id(self))}>"


default_generator = Generator()
default_generator._oar_default = True   # a draw for a device tensor: that place's default stream


def _gen(generator):
    """The generator a random function draws from: the given one, else the default."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise ArgTypeError(f"generator must be a torch.Generator, got {_typename(generator)}")
    return generator


def manual_seed(seed):
    """Seeds the default generator (PyTorch's stream, Note [Torch CPU random streams]) and
    oar's own generator (shared code such as data shuffling draws from it); returns the
    default generator."""
    default_generator.manual_seed(seed)
    _random.seed(int(seed) & 0xFFFFFFFFFFFFFFFF)
    return default_generator


def seed():
    """Seeds the default generator non-deterministically; returns the seed."""
    s = default_generator.seed()
    _random.seed(s)
    return s


def initial_seed():
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (a uint8 tensor)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restores the default generator's state from get_rng_state()."""
    default_generator.set_state(new_state)


# --------------------------------------------------------------------------- creation
def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    """A tensor of zeros of the given size (`zeros(2, 3)` or `zeros((2, 3))`)."""
    return as_door(_creation.zeros(*size, dtype=dtype, requires_grad=requires_grad, out=out,
                                    device=_device(device, "zeros")))


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    """A tensor of ones of the given size."""
    return as_door(_creation.ones(*size, dtype=dtype, requires_grad=requires_grad, out=out,
                                    device=_device(device, "ones")))


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
    """An uninitialised tensor of the given size."""
    return as_door(_creation.empty(*size, dtype=dtype, requires_grad=requires_grad, out=out,
                                    device=_device(device, "empty")))


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor of the given size filled with fill_value (its dtype inferred from it)."""
    _no_out("full", out)
    if dtype is None and isinstance(fill_value, numbers.Integral) and \
            not isinstance(fill_value, bool):
        dtype = "int64"         # torch infers int64 for an integer fill (Paddle: float32)
    return as_door(_creation.full(size, fill_value, dtype=dtype, requires_grad=requires_grad,
                                  device=_device(device, "full")))


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Values from start to end (excluded) by step (int64 for integer arguments)."""
    _no_out("arange", out)
    return as_door(_creation.arange(start, end, step, dtype=dtype, requires_grad=requires_grad,
                                    device=_device(device, "arange")))


def _scalar_ends(fname, start, end):
    """PyTorch's linspace/logspace take tensor ends only as 0-d tensors (Paddle's take a
    1-element 1-d one too)."""
    bad = [(n, v._data.ndim) for n, v in (("start", start), ("end", end))
           if isinstance(v, _CoreTensor) and v._data.ndim]
    if bad:
        raise ArgValueError(f"{fname} only supports 0-dimensional start and end tensors, but "
                            "got " + " and ".join(f"{n} with {d} dimension(s)" for n, d in bad)
                            + ". Fix: pass start.item() / end.item(), or a 0-d tensor.")


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """steps values evenly spaced from start to end, both included."""
    _device(device, "linspace")
    _scalar_ends("linspace", start, end)
    _no_out("linspace", out)
    return as_door(_creation.linspace(start, end, steps=steps, dtype=dtype,
                                      requires_grad=requires_grad))


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """base ** linspace(start, end, steps)."""
    _device(device, "logspace")
    _scalar_ends("logspace", start, end)
    _no_out("logspace", out)
    d = np.dtype(_creation._dtype(dtype))
    arr = _aten_logspace(_A.number(start, "logspace", "start"),
                         _A.number(end, "logspace", "end"),
                         _A.integer(steps, "logspace", "steps"),
                         float(_A.number(base, "logspace", "base")), d)
    return as_door(_creation._finish(arr, requires_grad))


def _aten_logspace(start, end, steps, base, dt):
    """ATen's CPU logspace: the ends in the result dtype (an integer dtype truncates them),
    the step in double, the first half counted from start and the second from end, each
    value base ** exponent in double and then cast (so logspace(0, 1.2, 2, dtype=int64) is
    [1, 10], not [1, 15])."""
    if steps < 0:
        raise ArgValueError("logspace(): number of steps must be non-negative")
    if steps == 0:
        return np.empty(0, dt)
    with np.errstate(all="ignore"):
        if steps == 1:
            return np.full(1, np.power(base, float(start))).astype(dt)
        s = np.asarray(start).astype(dt)
        e = np.asarray(end).astype(dt)
        step = float(e - s) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        exps = np.where(i < half, float(s) + step * i, float(e) - step * (steps - i - 1))
        return np.power(base, exps).astype(dt)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """An n x m matrix with ones on the diagonal."""
    _no_out("eye", out)
    return as_door(_creation.eye(n, m, dtype=dtype, requires_grad=requires_grad,
                                 device=_device(device, "eye")))


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of data (floats: the default dtype, ints: int64)."""
    _device(device, "tensor")
    if isinstance(data, _CoreTensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    t = as_door(_creation.to_tensor(data, dtype=dtype, device=_device(device, "tensor")))
    if requires_grad:
        t.requires_grad = True      # torch's refusal for an integer tensor
    return t


def as_tensor(data, dtype=None, device=None):
    """data as a tensor without a copy when possible: a tensor of that dtype is returned as
    is, an ndarray of a supported dtype is shared (writes show on both sides, Note [Shared
    memory with NumPy]); anything else is copied."""
    _device(device, "as_tensor")
    want = None if dtype is None else _dt.as_dtype(dtype)
    if isinstance(data, _CoreTensor):
        if want is None or want.np == data._data.dtype:
            return data
        return data.to(want)
    if isinstance(data, np.ndarray) and (want is None or want.np == data.dtype):
        try:
            from ._functions import from_numpy
            return from_numpy(data)
        except (TypeError, ValueError, RuntimeError):
            pass
    return as_door(_creation.to_tensor(data, dtype=want))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """torch.asarray: as_tensor, or a copy when copy=True."""
    if copy:
        _device(device, "asarray")
        t = as_door(_creation.to_tensor(obj, dtype=dtype))
    else:
        t = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _like(core_fn, name):
    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
             memory_format=None):
        _device(device, name)
        return core_fn(input, dtype=dtype, requires_grad=requires_grad, device=device)
    like.__name__ = like.__qualname__ = name
    like.__doc__ = f"{core_fn.__doc__}"
    return like


zeros_like = _like(_creation.zeros_like, "zeros_like")
ones_like = _like(_creation.ones_like, "ones_like")
empty_like = _like(_creation.empty_like, "empty_like")


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """A tensor shaped like input filled with fill_value (input's dtype unless given)."""
    _device(device, "full_like")
    return _creation.full_like(input, fill_value, dtype=dtype, requires_grad=requires_grad,
                               device=device)


def _no_out(op, out):
    if out is not None:
        raise ArgValueError(f"{op}(): out= is not supported by oar's creation functions. Fix: "
                            "assign the result.")


# --------------------------------------------------------------------------- random
def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    """Samples uniform on [0, 1) of the given size, from PyTorch's stream."""
    _device(device, "rand")
    return as_door(_random.rand(*size, dtype=dtype, requires_grad=requires_grad,
                                generator=_gen(generator), out=out))


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    """Samples from N(0, 1) of the given size, from PyTorch's stream."""
    _device(device, "randn")
    return as_door(_random.randn(*size, dtype=dtype, requires_grad=requires_grad,
                                 generator=_gen(generator), out=out))


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None,
            device=None, requires_grad=False, pin_memory=False):
    """Integers uniform on [low, high): randint(high, size) or randint(low, high, size)."""
    _device(device, "randint")
    _no_out("randint", out)
    if size is None:
        if high is None or not isinstance(high, (list, tuple, _CoreTensor)):
            raise ArgTypeError("randint() missing the required argument 'size' (a tuple of "
                               "ints): randint(high, size) or randint(low, high, size)")
        low, high, size = 0, low, high
    return as_door(_random.randint(low, high, size, dtype=dtype, generator=_gen(generator),
                                   requires_grad=requires_grad))


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of 0 .. n-1 (int64), from PyTorch's stream."""
    _device(device, "randperm")
    return as_door(_random.randperm(n, dtype=dtype, generator=_gen(generator),
                                    requires_grad=requires_grad, out=out))


# Note [Random ops' nodes]
# torch.normal with tensor mean/std and torch.bernoulli of a tensor record a node whose
# gradient is zeros (derivatives.yaml: zeros_like(grad)) when an operand requires grad:
# NormalBackward1 (tensor mean, number std), NormalBackward2 (number mean, tensor std),
# NormalBackward3 (both tensors), BernoulliBackward0. The draw is made first (the core's,
# from the same stream); the op's kernel only hands that sample over (a holder emptied as
# it is read, so the node keeps no copy of it and no saved state).
class _Drawn:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


def _k_drawn(*args):
    holder = args[-1]
    a, holder.a = holder.a, None
    return a


def _b_zeros(c, g):
    return tuple(_R.zero_grad(g) for _ in c.next_edges)


def _random_op(name, inputs, node):
    return _R.OpDef(name, _k_drawn, _b_zeros, inputs=inputs, attrs=(("sample", None),),
                    method=False, function=False, node_name=node, number_attrs=(),
                    doc=f"A {name} draw (Note [Random ops' nodes]).")


_NORMAL_OPS = {(True, False): _random_op("normal", ("mean",), "NormalBackward1"),
               (False, True): _random_op("normal", ("std",), "NormalBackward2"),
               (True, True): _random_op("normal", ("mean", "std"), "NormalBackward3")}
_BERNOULLI = _random_op("bernoulli", ("input",), "BernoulliBackward0")


def _with_node(op, tensors, r):
    """r, the draw, as the result of op over `tensors` when one of them needs a gradient
    (Note [Random ops' nodes])."""
    if _gm.is_grad_enabled() and any(t.requires_grad for t in tensors):
        return _R.dispatch(op, tuple(tensors), (_Drawn(r._data),))
    return r


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    """Samples from N(mean, std**2): elementwise for tensor mean/std, else of the given size."""
    _device(device, "normal")
    r = _random.normal(mean, std, size, generator=_gen(generator), dtype=dtype,
                       requires_grad=requires_grad, out=out)
    kinds = (isinstance(mean, _CoreTensor), isinstance(std, _CoreTensor))
    if not any(kinds):
        return as_door(r)
    if out is not None:
        return r
    return _with_node(_NORMAL_OPS[kinds], [t for t in (mean, std) if isinstance(t, _CoreTensor)],
                      r)


def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability input (elementwise), or with probability p, from PyTorch's stream."""
    r = _random.bernoulli(input, p, generator=_gen(generator), out=out)
    if out is not None or p is not None:
        return r
    return _with_node(_BERNOULLI, [input], r)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Category indices drawn from each row of input's weights."""
    if out is not None:
        _no_out("multinomial", out)
    return _random.multinomial(input, num_samples, replacement, generator=_gen(generator))


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, generator=None):
    """rand() with input's shape and dtype (unless dtype is given)."""
    _device(device, "rand_like")
    return _random.rand_like(input, dtype=dtype, requires_grad=requires_grad,
                          generator=_gen(generator))


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, generator=None):
    """randn() with input's shape and dtype (unless dtype is given)."""
    _device(device, "randn_like")
    return _random.randn_like(input, dtype=dtype, requires_grad=requires_grad,
                          generator=_gen(generator))


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, generator=None):
    """randint() with input's shape and dtype: randint_like(input, high) or (input, low,
    high)."""
    _device(device, "randint_like")
    return _random.randint_like(input, low, high, dtype=dtype, requires_grad=requires_grad,
                                generator=_gen(generator))


for _n in ("linspace", "logspace", "as_tensor", "asarray", "rand", "randn", "randint", "randperm",
           "normal"):   # (zeros, ones, empty, full, arange, eye, tensor pass device= on)
    globals()[_n] = _placing(globals()[_n])
for _n in ("rand_like", "randn_like", "randint_like"):
    globals()[_n] = _placing(globals()[_n], like=True)


# --------------------------------------------------------------------------- grad modes
no_grad = _gm.no_grad
enable_grad = _gm.enable_grad
set_grad_enabled = _gm.set_grad_enabled
is_grad_enabled = _gm.is_grad_enabled
inference_mode = _gm.inference_mode
is_inference_mode_enabled = _gm.is_inference_mode_enabled


def is_inference(input):
    """torch.is_inference: whether input is an inference tensor (Note [Inference tensors])."""
    return _gm.is_inference(_A.tensor(input, "is_inference", "input"))


# --------------------------------------------------------------------------- small queries
def is_tensor(obj):
    """Whether obj is a tensor (of either door)."""
    return isinstance(obj, _CoreTensor)


def is_floating_point(input):
    """Whether input's dtype is a floating type."""
    return _dt.is_float(_A.tensor(input, "is_floating_point", "input")._data.dtype)


def is_nonzero(input):
    """Whether the single element of input is nonzero (RuntimeError for other sizes)."""
    t = _A.tensor(input, "is_nonzero", "input")
    if t._data.size != 1:
        raise ArgValueError("Boolean value of Tensor with more than one value is ambiguous"
                            if t._data.size else "Boolean value of Tensor with no values is "
                            "ambiguous")
    return bool(t._data.reshape(-1)[0])


_DETERMINISTIC = [False]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Recorded; every oar kernel is deterministic already (CPU, fixed summation order)."""
    if not isinstance(mode, bool):
        raise ArgTypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not "
                           f"{_typename(mode)}")
    _DETERMINISTIC[0] = mode


def are_deterministic_algorithms_enabled():
    """What use_deterministic_algorithms() last set (False by default)."""
    return _DETERMINISTIC[0]


_THREADS = [os.cpu_count() or 1, 1]


def set_num_threads(n):
    """Recorded for get_num_threads(); oar's kernels are NumPy's (its BLAS picks threads
    from the environment: OMP_NUM_THREADS / OPENBLAS_NUM_THREADS)."""
    n = _A.integer(n, "set_num_threads", "int")
    if n <= 0:
        raise ArgValueError("set_num_threads(): Number of threads must be positive")
    _THREADS[0] = n


def get_num_threads():
    """The number set by set_num_threads (the CPU count by default)."""
    return _THREADS[0]


def set_num_interop_threads(n):
    """Recorded for get_num_interop_threads(); oar runs ops one at a time."""
    n = _A.integer(n, "set_num_interop_threads", "int")
    if n <= 0:
        raise ArgValueError("set_num_interop_threads(): Number of threads must be positive")
    _THREADS[1] = n


def get_num_interop_threads():
    """The number set by set_num_interop_threads (1 by default)."""
    return _THREADS[1]


_PRECISION = ["highest"]


def set_float32_matmul_precision(precision):
    """'highest', 'high' or 'medium' (recorded: oar's float32 matmul is always full
    precision)."""
    if precision not in ("highest", "high", "medium"):
        raise ArgValueError(f"set_float32_matmul_precision(): Invalid precision {precision!r}; "
                            "expected 'highest', 'high' or 'medium'")
    _PRECISION[0] = precision


def get_float32_matmul_precision():
    """What set_float32_matmul_precision last set ('highest' by default)."""
    return _PRECISION[0]


# --------------------------------------------------------------------------- splits (tuples)
def _tuple_of(core_name, doc):
    core = _CORE[core_name]

    def fn(input, indices_or_sections):
        return tuple(core(input, indices_or_sections))
    fn.__name__ = fn.__qualname__ = core_name
    fn.__doc__ = doc + " (a tuple of views)."
    return fn


hsplit = _tuple_of("hsplit", "Splits input along dim 1 (dim 0 when 1-D) into equal pieces or "
                              "at indices")
vsplit = _tuple_of("vsplit", "Splits input along dim 0 into equal pieces or at indices")
dsplit = _tuple_of("dsplit", "Splits input along dim 2 into equal pieces or at indices")


# --------------------------------------------------------------------------- Tensor methods
def _device_of(self):
    """Where the tensor lives: device(type='cpu') or device(type='cuda', index=N)."""
    p = _place_of(self._data)
    return CPU if p.kind == "cpu" else device("cuda", p.index)


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    """The tensor on the GPU (Note [Moving between places]); refused where no GPU backend
    exists (Note [Only the CPU, PyTorch door])."""
    if _xp.backend() is None:
        raise _not_compiled("Tensor.cuda()")
    return _CoreTensor.cuda(self, device, non_blocking)


def _get_device(self):
    """-1 for a CPU tensor (PyTorch's answer), else the GPU's index."""
    p = _place_of(self._data)
    return -1 if p.kind == "cpu" else p.index


def _nbytes(self):
    """The bytes the tensor's elements take: numel() * element_size()."""
    return self._data.nbytes


def _itemsize(self):
    """The size of one element in bytes."""
    return self._data.itemsize


def _random_method(core_name, doc, build):
    op = _OPS[core_name].call

    def method(self, *args, generator=None, **kwargs):
        return op(self, *build(*args, **kwargs), _gen(generator))
    method.__name__ = method.__qualname__ = core_name
    method.__doc__ = doc + " Draws from PyTorch's stream (the default generator unless " \
                           "generator= is given)."
    return method


def _uniform_args(a=0.0, b=1.0, **kw):
    a = kw.pop("from", a)
    b = kw.pop("to", b)
    if kw:
        raise TypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kw))}'")
    return a, b


def _random_args(a=None, b=None, **kw):
    a = kw.pop("from", a)
    b = kw.pop("to", b)
    if kw:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kw))}'")
    return a, b


def _is_signed(self):
    """Whether the dtype holds negative values (every type but uint8 and bool)."""
    return self._data.dtype.kind in "fic" or self._data.dtype.name == "bfloat16"


def _is_same_size(self, other):
    """Whether other has exactly self's shape."""
    return tuple(self._data.shape) == tuple(_A.tensor(other, "is_same_size", "other")._data.shape)


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    """torch.multinomial(self, ...): draws from the door's torch-exact stream."""
    return multinomial(self, num_samples, replacement, generator=generator)


def _bernoulli_method(self, p=None, *, generator=None):
    """torch.bernoulli(self, p): draws from the door's torch-exact stream."""
    return bernoulli(self, p, generator=generator)


# random methods draw from the door's generator, as the functions do (the core's methods
# use oar's own source: `x.multinomial(3)` must equal `torch.multinomial(x, 3)`)
_METHODS = {
    "cuda": _cuda, "get_device": _get_device,
    "multinomial": _multinomial_method, "bernoulli": _bernoulli_method,
    "normal_": _random_method("normal_", "Fills self with samples from N(mean, std**2).",
                              lambda mean=0.0, std=1.0: (mean, std)),
    "uniform_": _random_method("uniform_", "Fills self with samples uniform on [from, to).",
                               _uniform_args),
    "bernoulli_": _random_method("bernoulli_", "Fills self with 1 with probability p, else 0.",
                                 lambda p=0.5: (p,)),
    "exponential_": _random_method("exponential_", "Fills self with samples from the "
                                   "exponential distribution of rate lambd.",
                                   lambda lambd=1.0: (lambd,)),
    "random_": _random_method("random_", "Fills self with integers uniform on [from, to) "
                              "(random_(to): [0, to); no bounds: the dtype's range).",
                              _random_args),
    "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "is_floating_point": is_floating_point, "is_nonzero": is_nonzero,
    "is_signed": _is_signed, "is_same_size": _is_same_size,
}
for _n, _f in _METHODS.items():
    setattr(Tensor, _n, _f)
Tensor.device = property(_device_of)
Tensor.is_cpu = property(lambda self: _place_of(self._data).kind == "cpu",
                         doc="Whether the tensor is on the CPU.")
Tensor.nbytes = property(_nbytes, doc=_nbytes.__doc__)
Tensor.itemsize = property(_itemsize, doc=_itemsize.__doc__)
del _n, _f


# --------------------------------------------------------------------------- submodules
from . import accelerator, backends, cuda, testing  # noqa: E402,F401
