"""The PyTorch door: `import oar.torch as torch` runs PyTorch programs on oar's core.

Functions and methods keep PyTorch 2.13's names, keywords and meanings; tensors made here are
`oar.torch.Tensor` (Note [Result class]), so their methods mean what PyTorch means even when
they pass through shared code.
"""
from __future__ import annotations

from .. import dtypes as _dtypes
from ..ops.registry import FUNCTIONS as _SHARED

# Where the frameworks agree, the core's spellings are PyTorch's too (shared code); the
# modules imported below replace the ones whose meaning differs (Note [Result class]).
globals().update(_SHARED)
float16 = half = _dtypes.float16
float32 = float = _dtypes.float32  # noqa: A001
float64 = double = _dtypes.float64
int8, int16, int32, int64, uint8 = (_dtypes.int8, _dtypes.int16, _dtypes.int32,
                                    _dtypes.int64, _dtypes.uint8)
short, int, long = int16, int32, int64  # noqa: A001
bool = _dtypes.bool_  # noqa: A001
dtype = _dtypes.DType

from ._tensor import Parameter, Tensor  # noqa: F401,E402
from ._functions import *  # noqa: F401,F403,E402  (Note [Door conflicts])
from ._ops3 import *  # noqa: F401,F403,E402  (frexp, nanmedian, float_power, ...)
from ._runtime import *  # noqa: F401,F403
from ._legacy import *  # noqa: F401,F403,E402  (torch.FloatTensor & co.)
from . import autograd, nn, optim, utils  # noqa: F401,E402  (torch.nn, torch.optim, ...)
from .utils.dlpack import from_dlpack  # noqa: F401,E402
from .serialization import load, save  # noqa: F401,E402
from . import functional  # noqa: F401,E402  (import torch.functional as F)
from . import distributed  # noqa: F401,E402  (torch.distributed)
from . import linalg  # noqa: F401,E402  (torch.linalg)
from ._linalg import TOP as _LINALG_TOP  # noqa: E402
globals().update(_LINALG_TOP)   # torch.det, logdet, slogdet, cholesky, pinverse, svd, qr
from ._compile import compile  # noqa: A001,F401,E402  (torch.compile)
from . import amp  # noqa: F401,E402  (torch.amp; Note [Autocast])
from .amp import autocast, cpu, get_autocast_dtype, is_autocast_enabled  # noqa: F401,E402
from . import special  # noqa: E402  (torch.special)
from . import distributions  # noqa: F401,E402  (torch.distributions)
from .special import _polygamma as polygamma  # noqa: E402  (torch's order: n, input)


def softmax(input, dim, dtype=None):
    """torch.softmax: torch.nn.functional.softmax(input, dim, dtype=dtype)."""
    return nn.functional.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, dtype=None):
    """torch.log_softmax: torch.nn.functional.log_softmax(input, dim, dtype=dtype)."""
    return nn.functional.log_softmax(input, dim, dtype=dtype)


from .._typeinfo import torch_finfo as finfo, torch_iinfo as iinfo  # noqa: E402,F401


def index_fill(input, dim, index, value):
    """torch.index_fill: input with the positions `index` along dim set to value (the core's
    index_fill takes Paddle's order: x, index, axis, value)."""
    return _SHARED["index_fill"](input, index, dim, value)


def _index_fill_(self, dim, index, value):
    """Tensor.index_fill_: index_fill written into self in place (returns self)."""
    return _SHARED["index_fill_"](self, index, dim, value)


Tensor.index_fill = index_fill
Tensor.index_fill_ = _index_fill_
index_fill_ = _index_fill_   # not the core's (Paddle's order) under a torch-door name


def hypot_(input, other):
    """Tensor.hypot_: hypot written into input. PyTorch has no integer hypot kernel and
    refuses two integer operands with NotImplementedError before any result-type check (the
    core's check order would report the cast first; Paddle casts integers to float32)."""
    from ..ops.pointwise import _no_kernel
    from ._functions import _tensor
    _tensor(input, "hypot_", "self")
    _tensor(other, "hypot_", "other")
    if input._data.dtype.kind in "biu" and other._data.dtype.kind in "biu":
        _no_kernel("hypot_", "hypot_cpu", _dtypes.result_type(input, other),
                   "cast to a floating dtype first, e.g. x.float().")
    return _SHARED["hypot_"](input, other)


Tensor.hypot_ = hypot_


# Note [Paddle-only spellings]
# The door starts from every shared spelling (globals().update above). A spelling the core has
# only for Paddle, with no torch function or method of that name, is hidden here: not in the
# namespace, and `hasattr(torch.Tensor, name)` is False, so programs and PyTorch's OpInfo
# database see torch's namespace (torch's `slice` exists only as the aten op `x[a:b]` uses).
_PADDLE_ONLY = ("slice",)


class _Absent:
    """A class attribute that reads as missing (AttributeError) on the torch door's Tensor."""

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise AttributeError(f"'Tensor' object has no attribute '{self.name}' (a Paddle "
                             "spelling; use indexing, e.g. x[1:3] or x.narrow(dim, start, "
                             "length))")


for _name in _PADDLE_ONLY:
    globals().pop(_name, None)
    setattr(Tensor, _name, _Absent(_name))
del _name

# Note [Torch signatures]: torch's keyword names and out= on every function and method
from ._binding import install as _install_torch_signatures  # noqa: E402
_install_torch_signatures(globals(), Tensor, vars(nn.functional))
special.populate(globals())   # special.gammaln is the bound lgamma, ...
