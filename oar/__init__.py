"""oar: tensors that can be changed in place and viewed without copying, with exact autograd.

Paddle spellings are native; PyTorch spellings are aliases. `import oar as paddle` or
`import oar as torch` runs the seed documents' examples unchanged.
"""
from __future__ import annotations

from . import _fpwarn

_fpwarn.ensure()   # Note [Floating-point warnings]

from . import dtypes as _dtypes
from .tensor import Size, Tensor  # noqa: F401  (public)
from .place import CPUPlace, Place  # noqa: F401  (public)
from .ops import registry as _registry
from .ops import args as _args
from .ops import pointwise as _pointwise  # noqa: F401  (declarations register themselves)
from .ops import views as _views  # noqa: F401
from .ops import general as _general  # noqa: F401
from .ops import reduce as _reduce  # noqa: F401
from .ops import scans as _scans  # noqa: F401
from .ops import contract as _contract  # noqa: F401  (einsum)
from .ops import creation as _creation  # noqa: F401
from .ops import random as _random  # noqa: F401
from .ops import indexing as _indexing  # noqa: F401
from .ops import complex as _complex  # noqa: F401  (Note [Complex dtypes])
from .ops import linalg as _linalg  # noqa: F401
from .ops import decomp as _decomp  # noqa: F401
from .ops import pointwise_more as _pointwise_more  # noqa: F401
from .ops import more_ops as _more_ops  # noqa: F401  (atan2, diff, dot, nansum, rot90, ...)
from .ops import more_ops3 as _more_ops3  # noqa: F401  (frexp, nanmedian, quantile, ...)
from ._typeinfo import finfo, iinfo  # noqa: F401  (paddle.finfo, paddle.iinfo)
from .ops import operators as _operators  # noqa: F401
from .ops import special as _special  # noqa: F401
from .ops import paddle_ops as _paddle_ops  # noqa: F401  (gather_nd, scatter_nd, strided_slice, ...)
from . import autograd, device  # noqa: F401
from . import nn, optimizer, optim, io, utils  # noqa: F401,E402
from .autograd import (PyLayer, enable_grad, grad, is_grad_enabled, no_grad,  # noqa: F401
                       set_grad_enabled)
from .autograd.grad_mode import inference_mode  # noqa: F401
from .serialization import load, save  # noqa: F401
from .utils.dlpack import from_dlpack  # noqa: F401,E402  (Note [Memory shared outside oar])
from .storage import max_memory_allocated, memory_allocated, reset_max_memory_allocated  # noqa: F401
from .ops.elision import get_flags, set_flags  # noqa: F401,E402  (Note [Temporary elision])

globals().update(_registry.FUNCTIONS)

float16 = _dtypes.float16
float32 = _dtypes.float32
float64 = _dtypes.float64
int8 = _dtypes.int8
int16 = _dtypes.int16
int32 = _dtypes.int32
int64 = _dtypes.int64
uint8 = _dtypes.uint8
half, float, double, long, short = float16, float32, float64, int64, int16  # noqa: A001
int = int32  # noqa: A001  (torch.int is int32)
bool = _dtypes.bool_  # noqa: A001
dtype = _dtypes.DType
complex64, complex128 = _dtypes.complex64, _dtypes.complex128   # Note [Complex dtypes]
bfloat16 = _dtypes.bfloat16   # Note [bfloat16]


def is_tensor(x):
    """Whether x is an oar Tensor."""
    return isinstance(x, Tensor)


def numel(x):
    """The number of elements of x."""
    return _args.tensor(x, "numel").numel()


def shape(x):
    """The shape of x."""
    return _args.tensor(x, "shape").shape


def get_default_dtype():
    """The name of the default floating dtype ('float32')."""
    return _dtypes.DEFAULT_FLOAT.name


def set_device(device_name):
    """Selects the device and returns its place: 'cpu' gives CPUPlace(); 'gpu', 'gpu:0' give
    CUDAPlace(0) where a GPU backend exists (CuPy and a device), else raise a ValueError, as
    does 'xpu' (Note [Only the CPU])."""
    return device.set_device(device_name)


def get_device():
    """The current device: 'cpu', or 'gpu:N' after set_device('gpu') on a GPU machine."""
    return device.get_device()


def is_compiled_with_cuda():
    """Whether oar can run on a CUDA GPU here (CuPy and a device; Note [Array module per
    place]): False on a CPU-only machine."""
    return device.is_compiled_with_cuda()


def get_cuda_rng_state():
    """The state of every GPU's random stream, a list (Note [Random streams per place]): []
    on a machine without a GPU, as Paddle's CPU build."""
    return _random.device_states()


def set_cuda_rng_state(state_list):
    """Restores every GPU's random stream from get_cuda_rng_state() (nothing without a GPU)."""
    _random.set_device_states(state_list)


# ------------------------------------------------------------------ the Paddle door's extras
# (paddle.Model, paddle.summary, paddle.metric, paddle.static / paddle.jit, paddle.callbacks,
# the GPU places that refuse, add_n / equal_all / norm / dist, create_parameter)
from .place import CUDAPinnedPlace, CUDAPlace, XPUPlace  # noqa: E402,F401
from .ops.multiary import add_n, equal_all  # noqa: E402,F401
from .ops.norms import cdist, dist, norm  # noqa: E402,F401
from .param_attr import ParamAttr, create_parameter  # noqa: E402,F401
from . import metric, static, jit, hapi, callbacks, framework  # noqa: E402,F401
from . import base  # noqa: E402,F401  (paddle.base: dygraph.guard for eager code)
from .hapi import Model, summary  # noqa: E402,F401
from . import linalg  # noqa: E402,F401  (paddle.linalg)


def enable_static():
    """Refused: oar has no static graph (Note [No static graph]); it always runs eagerly,
    like Paddle's default dynamic mode."""
    raise static.no_static_graph("paddle.enable_static()", "remove the call; oar always runs "
                                 "in dynamic (eager) mode")


def disable_static(place=None):
    """Nothing to do: oar always runs in dynamic (eager) mode. place must be the CPU."""
    if place is not None:
        device.set_device(place)


def in_dynamic_mode():
    """True: oar always runs in dynamic (eager) mode."""
    return True


__version__ = "0.1.0"
from . import distributed  # noqa: E402,F401  (paddle.distributed)
from . import distribution  # noqa: E402,F401  (paddle.distribution)
from . import vision  # noqa: E402,F401  (paddle.vision)
from .distributed import DataParallel  # noqa: E402,F401
from .nn._more_functional import stanh  # noqa: E402,F401  (paddle.stanh)
from .nn._nn3 import pdist  # noqa: E402,F401  (paddle.pdist)
