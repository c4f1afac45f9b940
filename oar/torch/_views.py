"""Torch-door view functions PyTorch 2.13 has and the core lacks (found by porting PyTorch's
test/test_view_ops.py, tests/test_torch_view_ops_ported.py): conj / real / imag / adjoint
of real tensors, ravel, atleast_{1,2,3}d, broadcast_tensors / broadcast_shapes, and the
*_copy forms of views. Torch door only: the Paddle door keeps Paddle's names and meanings.

For a real tensor conj, resolve_conj, resolve_neg and real return the tensor itself (as
PyTorch does), imag refuses it, and adjoint is mT. For a complex one (Note [Complex dtypes])
conj is materialised (oar keeps no lazy conjugate bit: is_conj() is always False, so
resolve_conj is the tensor itself), real and imag are views (ops/complex.py)."""
from __future__ import annotations

import operator
import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops import registry as _R
from ..ops import views as _V
from ..autograd.node import node_class as _node_class
from ..tensor import Tensor as _CoreTensor
from ..tensor import wrap_as
from ._tensor import Size, Tensor
from ..ops import complex as _C

__all__ = ["conj", "resolve_conj", "resolve_neg", "conj_physical", "conj_physical_", "real", "imag", "adjoint",
           "ravel", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors",
           "broadcast_shapes", "view_copy", "diagonal_copy", "split_copy", "is_conj", "is_neg"]


def _tensor(x, op):
    if not isinstance(x, _CoreTensor):   # any door's tensor
        raise ArgTypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                           f"{type(x).__name__}")
    return x


def conj(input):
    """PyTorch's conj: a real tensor is its own conjugate (the same object); a complex one's
    conjugate is a new tensor (oar has no lazy conjugate view: is_conj() stays False)."""
    x = _tensor(input, "conj")
    return _C.CONJ.call(x) if x._data.dtype.kind == "c" else x


def resolve_conj(input):
    """PyTorch's resolve_conj: a real tensor has no conjugate bit; itself."""
    return _tensor(input, "resolve_conj")


def resolve_neg(input):
    """PyTorch's resolve_neg: a real tensor has no negative bit; itself."""
    return _tensor(input, "resolve_neg")


def conj_physical(input):
    """PyTorch's conj_physical: a real tensor is its own conjugate, returned as is; a complex
    one's conjugate in new memory."""
    return conj(_tensor(input, "conj_physical"))


def _k_conj_physical_(x):
    if x.dtype.kind == "c":
        np.conjugate(x, out=x)
    return x   # a real tensor is its own conjugate: nothing to write


# PyTorch's conj_physical_ of a real tensor writes nothing, yet is an in-place op all the
# same: the leaf/view rules apply, the version goes up once, and a tensor with history gets
# ConjPhysicalBackward1 (gradient unchanged). So it runs the Inplace mechanism
# (registry.dispatch_inplace) over a kernel that writes nothing; fill_like: an expanded
# tensor is accepted, as torch does, since no element is written. Not declared (declare
# would give the Paddle door a conj_physical_ that Paddle lacks).
_CONJ_PHYSICAL_ = _R.OpDef("conj_physical_", _k_conj_physical_,
                           lambda ctx, g: (_C.conj_if_complex(g),),
                           kind="inplace", fill_like=True, node_name="ConjPhysicalBackward1",
                           doc="The conjugate of self written into self: for a real tensor, "
                               "self unchanged (its version goes up once).")


_CONJ_PHYSICAL_.complex_grad = True   # Note [Complex autograd]


def conj_physical_(input):
    """PyTorch's conj_physical_: self, conjugated in place (a real tensor keeps its values;
    its version goes up once and a tensor with history gets ConjPhysicalBackward1)."""
    return _R.dispatch_inplace(_CONJ_PHYSICAL_, (_tensor(input, "conj_physical_"),), ())


def is_conj(input):
    """False: oar materialises conj (no conjugate views, Note [Complex dtypes])."""
    _tensor(input, "is_conj")
    return False


def is_neg(input):
    """False: oar keeps no negative-bit views."""
    _tensor(input, "is_neg")
    return False


def real(input):
    """PyTorch's real: of a real tensor, the tensor itself; of a complex one, a view of its
    real parts."""
    return _C.real(_tensor(input, "real"))


def imag(input):
    """PyTorch's imag: a view of a complex tensor's imaginary parts (refused for a real one)."""
    return _C.imag(_tensor(input, "imag"))


def adjoint(input):
    """PyTorch's adjoint: the conjugate transpose of a batch of matrices, for a real tensor
    x.mT (RuntimeError for a 1-D tensor)."""
    return _V._matrices(_tensor(input, "adjoint"), "adjoint")


def ravel(input):
    """PyTorch's ravel: a 1-D view of a contiguous tensor (its _base is the input), else a
    contiguous copy."""
    x = _tensor(input, "ravel")
    return _V.reshape(x if x.is_contiguous() else _V.contiguous(x), [-1])


def _atleast(n, args):
    def one(t):
        _tensor(t, f"atleast_{n}d")
        nd = t.dim()
        if nd >= n:
            return t
        if nd == 0:
            return t.reshape((1,) * n)
        if n == 2 or nd == 2:   # (N,) -> (1, N); (M, N) -> (M, N, 1)
            return t.unsqueeze(0) if n == 2 else t.unsqueeze(-1)
        return t.unsqueeze(0).unsqueeze(-1)   # atleast_3d of (N,): (1, N, 1)

    if len(args) == 1:
        a = args[0]
        if isinstance(a, (list, tuple)):
            return tuple(one(t) for t in a)
        return one(a)
    return tuple(one(t) for t in args)


def atleast_1d(*tensors):
    """PyTorch's atleast_1d: each tensor viewed with at least 1 dim (a tuple for several)."""
    return _atleast(1, tensors)


def atleast_2d(*tensors):
    """PyTorch's atleast_2d: each tensor viewed with at least 2 dims (a tuple for several)."""
    return _atleast(2, tensors)


def atleast_3d(*tensors):
    """PyTorch's atleast_3d: each tensor viewed with at least 3 dims (a tuple for several)."""
    return _atleast(3, tensors)


def broadcast_shapes(*shapes):
    """PyTorch's broadcast_shapes: the shape the given shapes (ints or sequences of ints)
    broadcast to, with PyTorch 2.13's errors (torch._refs._broadcast_shapes)."""
    norm = []
    for s in shapes:
        if isinstance(s, (list, tuple, Size)):
            if not all(_is_int(d) for d in s):
                raise ArgTypeError("Input shapes should be of type ints, a tuple of ints, or a "
                                   f"list of ints, got {s}")
            norm.append(tuple(operator.index(d) for d in s))
        elif _is_int(s):
            norm.append((operator.index(s),))
        else:
            raise ArgTypeError("Input shapes should be of type ints, a tuple of ints, or a "
                               f"list of ints, got {s}")
    common = [1] * max((len(s) for s in norm), default=0)
    for k, s in enumerate(norm):
        for i in range(-1, -1 - len(s), -1):
            if common[i] == 1:
                if s[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = s[i]
            elif s[i] != 1 and common[i] != s[i]:
                raise ArgValueError(f"Attempting to broadcast a dimension of length {s[i]} at "
                                    f"{i}! Mismatching argument at index {k} had {s}; but "
                                    f"expected shape should be broadcastable to {common}")
    return Size(common)


def _is_int(v):
    return not isinstance(v, bool) and hasattr(v, "__index__") and not isinstance(v, float)


def broadcast_tensors(*tensors):
    """PyTorch's broadcast_tensors: each tensor expanded (a view) to the common shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        _tensor(t, "broadcast_tensors")
    shape = broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


# Note [The *_copy ops]
# PyTorch's view_copy, diagonal_copy, split_copy ... are one op each: the view's values in new
# memory, with the view's derivative formula under the node name "<ViewNode>_copy"
# (ViewBackward0_copy). `_as_copy` makes the view (its node, with its attrs, is built by
# registry.view_of as usual), then gives its values new memory and hands the view's node to
# that new tensor, renamed: one node, the view's gradient, no CloneBackward0 above it. The
# view itself is dropped, so the result shares nothing with the input.
def _as_copy(v):
    out = wrap_as(v._result_class, v._data.copy())
    node = v._grad_fn
    if node is not None:
        # the same slots (OpNode subclasses differ only in their name, Note [Node names])
        node.__class__ = _node_class(type(node).__name__ + "_copy")
        out._grad_fn = node
        if v._out_nr:
            out._out_nr = v._out_nr
    return out


def view_copy(input, size):
    """PyTorch's view_copy: input.view(size) as a new tensor (no view of input)."""
    return _as_copy(_tensor(input, "view_copy").view(size))


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    """PyTorch's diagonal_copy: torch.diagonal(...) as a new tensor."""
    return _as_copy(_V.diagonal(_tensor(input, "diagonal_copy"), offset, dim1, dim2))


def split_copy(input, split_size, dim=0):
    """PyTorch's split_copy: the pieces of torch.split(...), each a new tensor (a tuple)."""
    return tuple(_as_copy(p) for p in _tensor(input, "split_copy").split(split_size, dim))


for _n in ("conj", "resolve_conj", "resolve_neg", "conj_physical", "conj_physical_", "adjoint",
           "ravel",
           "is_conj", "is_neg"):
    setattr(Tensor, _n, globals()[_n])
Tensor.real = property(real, doc=real.__doc__)
Tensor.imag = property(imag, doc=imag.__doc__)
del _n
