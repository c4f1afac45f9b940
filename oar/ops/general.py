"""Normal ops beyond pointwise and reductions: matmul, joins, gathers, casts, clone."""
from __future__ import annotations

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from ..autograd.errors import ArgTypeError, ArgValueError, AxisError, OperandDtypeError
from ..autograd.grad_mode import is_grad_enabled as _grad_enabled
from ..tensor import FIELD_CLASSES as _FIELDS, Tensor, wrap_as
from . import args as A
from . import registry
from .registry import OpDef, declare


def _dtype_np(d):
    return _dt.as_dtype(d).np


# ---------------------------------------------------------------- clone / cast
CLONE = OpDef("clone", lambda x: _xp.array(x, copy=True), lambda ctx, g: (g,),
              doc="A copy of x in new memory, keeping x's layout; gradients flow back to x.")
_clone = declare(CLONE)


def clone(x, name=None, *, memory_format=None):
    """A copy of x in new memory, keeping x's layout; gradients flow back to x."""
    if x.__class__ is not Tensor and not isinstance(x, Tensor):
        A.tensor(x, "clone")       # a list is no tensor to clone (PyTorch: TypeError)
    return _clone(x)


registry.register_function("clone", clone)


def _k_cast(x, dtype):
    to = _dtype_np(dtype)
    if x.dtype.kind == "c" and to.kind != "c":   # as PyTorch's copy_ (Note [Complex dtypes])
        import warnings
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=4)
        x = x.real
    return x.astype(to, copy=True)


def _b_cast(ctx, g):
    return (g,)   # OpNode casts the gradient back to the input dtype


CAST = OpDef("cast", _k_cast, _b_cast, attrs=(("dtype", None),),
             doc="x converted to dtype (a copy; differentiable for floating dtypes).")
declare(CAST)


def _differentiable_cast(x, dtype):
    out = registry.dispatch(CAST, (x,), (dtype,))
    if not (_dt.is_float(out._data.dtype) or out._data.dtype.kind == "c"):   # integer results carry no gradient
        out._grad_fn = None
    return out


def _type(x, dtype=None):
    """Tensor.type(): the dtype name without an argument; a cast with one (an unknown name is
    a ValueError, as PyTorch's "invalid type", and a TypeError for Paddle code)."""
    if dtype is None:
        return x.dtype
    if isinstance(dtype, str):
        try:
            _dt.as_dtype(dtype)
        except TypeError:
            raise _InvalidType(f"type(): invalid type: {dtype!r}") from None
    return astype(x, dtype)


class _InvalidType(ArgValueError, TypeError):
    pass


def astype(x, dtype, name=None):
    """x converted to dtype: x itself when it already has that dtype, else a copy."""
    if dtype is None:     # NumPy would read None as float64
        raise ArgTypeError("astype(): argument 'dtype' must be a dtype, got None")
    if x._data.dtype == _dtype_np(dtype):
        return x
    return _differentiable_cast(x, dtype)


def to(x, *args, dtype=None, device=None, copy=False, non_blocking=False, memory_format=None,
       **kwargs):
    """to(dtype), to(device), to(device, dtype), to(other_tensor). Note [Argument layer]:
    a device this build cannot reach ('cuda', 'gpu:0', an ordinal) raises, never a silent CPU
    copy; malformed device strings and unknown keywords are refused."""
    if kwargs:
        raise ArgTypeError(f"to(): unexpected keyword argument(s) {sorted(kwargs)}")
    place = None
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
            place = a.place       # to(other): other's dtype and device
        elif isinstance(a, bool) or a is None:
            continue          # PyTorch's positional non_blocking / copy flags
        elif isinstance(a, str):
            try:
                dtype = _dt.as_dtype(a)
            except TypeError:
                place = A.device(a, "to")
        else:
            try:
                dtype = _dt.as_dtype(a)
            except (TypeError, ValueError):
                place = A.device(a, "to")
    if device is not None:
        place = A.device(device, "to")
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    if place is not None and place != x.place:
        x = move(x, place)     # a new tensor already: copy=True asks nothing more
        copy = False
    if dtype is None or x._data.dtype == _dtype_np(dtype):
        return x.clone() if copy else x
    return _differentiable_cast(x, dtype)


# Note [Moving between places]
# t.to(device), t.cuda(), t.cpu() copy the data to the other place (the same tensor when it
# is there already) through one op, to_place, whose backward moves the gradient back to
# the source place (PyTorch's ToCopyBackward0), so a graph may cross places. The copy is
# synchronous: non_blocking is accepted and changes nothing.
def _k_to_place(x, place, src):
    return _xp.to_place(x, place)


def _b_to_place(ctx, g):
    return (move(g, ctx.attrs[1]),)


TO_PLACE = OpDef("to_place", _k_to_place, _b_to_place, attrs=(("place", None), ("src", None)),
                 method=False, function=False, node_name="ToCopyBackward",
                 doc="x copied to another place (Note [Moving between places]).")


def move(x, place):
    """x on `place`: x itself when it is there, else a differentiable copy."""
    if place == x.place:
        return x
    return registry.dispatch(TO_PLACE, (x,), (place, x.place))


def _cuda(x, device=None, non_blocking=False, **kwargs):
    """Tensor.cuda(): x on the GPU (Note [Moving between places]); refused where no GPU
    backend exists (never a tensor silently left on the CPU)."""
    if device is None:
        device = kwargs.pop("device_id", None)
    if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        device = f"cuda:{int(device)}"
    return move(x, A.device("cuda" if device is None else device, "cuda"))


def _cast_fn(x, dtype, name=None):
    """x converted to dtype (Paddle's cast): x itself when it already has that dtype."""
    return astype(x, dtype)


def _as(dtype):
    def method(x):
        return astype(x, dtype)
    method.__doc__ = f"x converted to {dtype} (x itself when it already is)."
    return method


def _cpu(x):
    """x on the CPU: x itself when it is there, else a copy (Note [Moving between places])."""
    return move(x, _xp.CPU)


def _pin_memory(x, device=None):
    """A copy of x in memory the GPU can read directly: refused without an accelerator, as by
    PyTorch's CPU build; with one, a plain CPU copy (oar has no pinned allocator yet)."""
    if _xp.backend() is None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if x.place.kind != "cpu":
        raise RuntimeError(f"cannot pin '{x.dtype}' memory on {x.place!r}: only CPU memory can "
                           "be pinned")
    return x.clone()


def _is_pinned(x, device=None):
    """False: oar has no pinned memory (pin_memory() makes a plain CPU copy)."""
    return False


for _n, _f in (("astype", astype), ("cast", _cast_fn), ("type", _type), ("to", to),
               ("float", _as("float32")), ("double", _as("float64")), ("half", _as("float16")),
               ("long", _as("int64")), ("int", _as("int32")), ("short", _as("int16")),
               ("char", _as("int8")), ("byte", _as("uint8")), ("bool", _as("bool")),
               ("bfloat16", _as("bfloat16")),
               ("cfloat", _as("complex64")), ("cdouble", _as("complex128"))):
    registry.register_function(_n, _f, function=_n in ("astype", "cast"))
registry.register_function("cpu", _cpu, function=False)
registry.register_function("pin_memory", _pin_memory, function=False)
registry.register_function("is_pinned", _is_pinned, function=False)
registry.register_function("cuda", _cuda, function=False)


# ---------------------------------------------------------------- matmul
def _k_matmul(a, b, transpose_x=False, transpose_y=False):
    if not (_xp.is_array(a) and _xp.is_array(b)):
        raise ArgTypeError(f"matmul(): both arguments must be Tensors, got "
                           f"{type(a).__name__} and {type(b).__name__}")
    if transpose_x and a.ndim >= 2:
        a = np.swapaxes(a, -1, -2)
    if transpose_y and b.ndim >= 2:
        b = np.swapaxes(b, -1, -2)
    _matmul_dtypes(a, b, "matmul")
    if a.ndim == 0 or b.ndim == 0:
        raise ArgValueError(f"matmul(): both arguments to matmul need to be at least 1-D, got "
                            f"shapes {list(a.shape)} and {list(b.shape)}")
    try:
        return np.matmul(a, b)
    except ValueError:
        raise ArgValueError(f"matmul(): shapes {list(a.shape)} and {list(b.shape)} cannot be "
                            "multiplied (inner dimensions differ)") from None


class _DtypeNotImplemented(ArgTypeError, NotImplementedError):
    """PyTorch raises NotImplementedError for a dtype a kernel lacks (bool matmul)."""


def _matmul_dtypes(a, b, op):
    """PyTorch: "expected m1 and m2 to have the same dtype" (no silent widening: float32 @
    float64 and float @ int are refused); bool has no matmul."""
    if a.dtype != b.dtype:
        da, db = _dt.from_numpy_dtype(a.dtype).name, _dt.from_numpy_dtype(b.dtype).name
        target = _dt.promote_types(a.dtype, b.dtype)
        raise OperandDtypeError(f"{op}(): expected both operands to have the same dtype, "
                                f"but got {da} (shape {list(a.shape)}) and {db} (shape "
                                f"{list(b.shape)}). Fix: cast one of them, e.g. "
                                f"y.astype('{_dt.from_numpy_dtype(target).name}').")
    if a.dtype == np.bool_:
        raise _DtypeNotImplemented(f"{op}(): matmul is not implemented for bool tensors. Fix: cast them "
                           "to an integer or floating dtype.")


def _npH(a):
    """The conjugate transpose of the last two axes of an ndarray (a real one: transpose)."""
    a = np.swapaxes(a, -1, -2)
    return a.conj() if a.dtype.kind == "c" else a


def _cj(t):
    from .pointwise import _cj as cj
    return cj(t)


def _b_matmul(ctx, g):
    """Reads only the saved inputs the needed gradients use (Note [Check, then write] saves
    just those)."""
    tx, ty = ctx.attrs
    nda, ndb = len(ctx.input_meta[0][0]), len(ctx.input_meta[1][0])

    def a():   # conjugated: Note [Complex autograd] (a real x as is)
        x = _cj(ctx.input(0))
        return x.mT if tx and nda >= 2 else x

    def b():
        y = _cj(ctx.input(1))
        return y.mT if ty and ndb >= 2 else y
    ga = gb = None
    if nda >= 2 and ndb >= 2 and not (tx or ty) and not _grad_enabled():
        # plain backward: NumPy directly, no view objects
        gd = g._data
        if ctx.needs[0]:
            ga = wrap_as(g._result_class, _xp.asarray(gd @ _npH(ctx.input(1)._data)))
        if ctx.needs[1]:
            gb = wrap_as(g._result_class, _xp.asarray(_npH(ctx.input(0)._data) @ gd))
        return ga, gb
    if nda == 1 and ndb == 1:
        ga = g * b() if ctx.needs[0] else None
        gb = g * a() if ctx.needs[1] else None
    elif nda == 1:
        ga = (g.unsqueeze(-2) @ b().mT).squeeze(-2) if ctx.needs[0] else None
        gb = a().unsqueeze(-1) @ g.unsqueeze(-2) if ctx.needs[1] else None
    elif ndb == 1:
        ga = g.unsqueeze(-1) @ b().unsqueeze(-2) if ctx.needs[0] else None
        gb = (a().mT @ g.unsqueeze(-1)).squeeze(-1) if ctx.needs[1] else None
    else:
        ga = g @ b().mT if ctx.needs[0] else None
        gb = a().mT @ g if ctx.needs[1] else None
    if tx and ga is not None and ga.ndim >= 2:
        ga = ga.mT
    if ty and gb is not None and gb.ndim >= 2:
        gb = gb.mT
    return ga, gb


MATMUL = OpDef("matmul", _k_matmul, _b_matmul, needs={"x": ("y",), "y": ("x",)}, inputs=("x", "y"),
               attrs=(("transpose_x", False), ("transpose_y", False)),
               doc="Matrix product x @ y (batched, broadcasting batch dims; optional transposes).")


# Note [Fast matmul]
# dispatch's fast path (Note [Fast path]) for matmul: two float32 or float64 operands of one
# dtype, both at least 2-D, inner sizes that agree and no transpose attrs. Then every check
# of _k_matmul passes and np.matmul is its whole work. Anything else makes the kernel
# decline with None and dispatch runs the general path: a number operand (dispatch's fast
# arrays pass Python numbers, which pointwise kernels take) and 1-D operands (safety: the
# shape test below would index a missing dim), and, as scope, float16 (the general path's float32
# opmath is the one checked against torch, Note [bfloat16 opmath]), sizes that do not agree
# and batch dims that do not broadcast (np.matmul would raise too; declining lets the
# general path word the error). `out=` is how a capture replays it.
def _fast_matmul(a, b, out=None):
    if (b.__class__ is not a.__class__   # a number operand, or two places
            or a.__class__ is not np.ndarray and a.__class__ not in _xp._PLACES
            or a.itemsize < 4 or a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-2]):
        return None
    try:
        return np.matmul(a, b, out=out)
    except ValueError:   # batch dims that do not broadcast: the general path's error
        return None


MATMUL.fast = _fast_matmul
_matmul = declare(MATMUL, aliases=("mm",))


def bmm(x, y, name=None):
    """Batched matmul of two 3-D tensors (PyTorch and Paddle both require 3-D)."""
    for n, t in (("x", x), ("y", y)):
        if not isinstance(t, Tensor):
            raise ArgTypeError(f"bmm(): argument '{n}' must be a Tensor, got {type(t).__name__}")
        if t._data.ndim != 3:
            raise ArgValueError(f"bmm(): batch{1 if n == 'x' else 2} must be a 3D tensor, got "
                                f"shape {list(t._data.shape)}")
    return registry.dispatch(BMM, (x, y), (False, False))


# bmm: matmul's kernel and backward under PyTorch's node name BmmBackward0
BMM = OpDef("bmm", _k_matmul, _b_matmul, needs={"x": ("y",), "y": ("x",)}, inputs=("x", "y"),
            attrs=(("transpose_x", False), ("transpose_y", False)), method=False,
            function=False, node_name="BmmBackward",
            doc="Batched matrix product of two 3-D tensors.")


registry.register_function("bmm", bmm)


def _matmul_shape(a, b):
    """Result shape of a @ b, or None when they cannot be multiplied (no computation)."""
    def zeros(shape):
        return np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), shape, [0] * len(shape))
    try:
        return np.matmul(zeros(a), zeros(b)).shape
    except ValueError:
        return None


def _check_matmul_(self, args, attrs, op_name):
    other = args[1]
    if not isinstance(other, Tensor):
        raise TypeError(f"{op_name}: expected a Tensor operand, got {type(other).__name__}")
    tx, ty = attrs
    res_shape = _matmul_shape(_t_shape(self._data.shape, tx), _t_shape(other._data.shape, ty))
    if res_shape != self._data.shape:
        raise ArgValueError(
            f"{op_name}(): the product of shapes {list(self._data.shape)} and "
            f"{list(other._data.shape)} has shape {list(res_shape) if res_shape is not None else '(invalid)'}, "
            f"which differs from self's shape {list(self._data.shape)}; an in-place matmul "
            "must not change its tensor's shape. Fix: use `x = x @ y`.")
    _matmul_dtypes(self._data, other._data, op_name)
    return None


def _t_shape(shape, transpose):
    """The shape after transpose_x/transpose_y (the last two dims swapped; 1-D unchanged)."""
    if not transpose or len(shape) < 2:
        return tuple(shape)
    return tuple(shape[:-2]) + (shape[-1], shape[-2])


def _k_matmul_(out, other, tx, ty):
    a = out.swapaxes(-1, -2) if tx and out.ndim >= 2 else out
    b = other.swapaxes(-1, -2) if ty and other.ndim >= 2 else other
    res = np.matmul(a, b)   # a temporary: the output overlaps the input
    np.copyto(out, res, casting="same_kind")
    return out


MATMUL_ = OpDef("matmul_", _k_matmul_, _b_matmul, needs={"x": ("y",), "y": ("x",)}, kind="inplace",
                inputs=("x", "y"), attrs=(("transpose_x", False), ("transpose_y", False)),
                check=_check_matmul_, node_name="MatmulBackward",
                doc="Matrix product x @ y written into x (the product must have x's shape).")
declare(MATMUL_)


# ---------------------------------------------------------------- joins
def _k_concat(*arrays_and_axis):
    *arrays, axis = arrays_and_axis
    return np.concatenate(arrays, axis=axis)


def _b_concat(ctx, g):
    axis = ctx.attrs[0]
    sizes = [m[0][axis] for m in ctx.input_meta]
    out = []
    start = 0
    for s in sizes:
        out.append(g.narrow(axis, start, s))
        start += s
    return tuple(out)


def _b_stack(ctx, g):
    axis = ctx.attrs[0]
    return tuple(g.select(axis, i) for i in range(len(ctx.input_meta)))


CONCAT = OpDef("concat", _k_concat, _b_concat, attrs=(("axis", 0),),
               doc="The tensors joined along an existing axis.")
STACK = OpDef("stack", lambda *a: np.stack(a[:-1], axis=a[-1]), _b_stack, attrs=(("axis", 0),),
              doc="The tensors joined along a new axis.")


def _tensor_list(x, op):
    """The tensors of a join: a non-empty list/tuple of tensors (a Tensor is refused: iterating
    it would join its rows), promoted to one dtype by PyTorch's rule (float32 with int64 stays
    float32, never NumPy's float64)."""
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)):
        raise ArgTypeError(f"{op}(): argument 'x' (tensors) must be a list or tuple of Tensors, "
                           f"got {A._describe(x)}")
    if not x:
        raise ArgValueError(f"{op}(): expected a non-empty list of Tensors")
    tensors = []
    for i, t in enumerate(x):
        if not isinstance(t, Tensor):
            t = registry.as_tensor(registry.operand(t, op_name=op, name=f"x[{i}]"))
        tensors.append(t)
    dts = {t._data.dtype for t in tensors}
    if len(dts) > 1:
        rdt = _dt.from_numpy_dtype(_dt.promote(tuple(t._data.dtype for t in tensors)))
        tensors = [t if t._data.dtype == rdt.np else t.astype(rdt) for t in tensors]
    return tensors


# Note [Fast concat]
# torch.cat / paddle.concat of a list or tuple of tensors of field classes (Note [Field
# classes]) with one dtype and one rank >= 1, an int axis in range, and shapes that agree
# off the axis: every check of the general path below passes (no promotion, no 0-d, no
# legacy empty 1-D tensor to skip, which would have another rank), so it goes straight to
# dispatch with the axis normalised.
def _fast_concat_axis(x, axis):
    """The normalised axis when Note [Fast concat] applies, else None."""
    c = x.__class__
    if not (c is list or c is tuple) or not x or axis.__class__ is not int:
        return None
    d0 = x[0]._data if x[0].__class__ in _FIELDS else None
    if d0 is None or not -d0.ndim <= axis < d0.ndim:
        return None
    nd, dt, s0 = d0.ndim, d0.dtype, d0.shape
    ax = axis % nd
    for t in x:
        if t.__class__ not in _FIELDS:
            return None
        d = t._data
        if d.dtype is not dt or d.ndim != nd:
            return None
        s = d.shape
        if s is not s0 and s != s0 and (s[:ax] != s0[:ax] or s[ax + 1:] != s0[ax + 1:]):
            return None
    return ax


def concat(x, axis=0, name=None, *, dim=None):
    """The tensors of the list x joined along an existing axis (torch.cat)."""
    if dim is not None:
        axis = dim
    ax = _fast_concat_axis(x, axis)
    if ax is not None:   # Note [Fast concat]
        return registry.dispatch(CONCAT, tuple(x), (ax,))
    op = "concat"
    tensors = _tensor_list(x, op)
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise ArgValueError(f"{op}(): zero-dimensional tensor (at position {i}) cannot be "
                                "concatenated. Fix: stack() them, or reshape to [1].")
    ref = next((t for t in tensors if not (t._data.ndim == 1 and t._data.size == 0)), tensors[0])
    nd = ref._data.ndim
    if nd != 1:     # PyTorch skips legacy empty 1-D tensors of shape [0]
        tensors = [t for t in tensors if not (t._data.ndim == 1 and t._data.size == 0)]
    axis = A.axis(axis, nd, op)
    for i, t in enumerate(tensors):
        if t._data.ndim != nd:
            raise ArgValueError(f"{op}(): Tensors must have same number of dimensions: got {nd} "
                                f"and {t._data.ndim}")
        for d, (a, b) in enumerate(zip(t._data.shape, ref._data.shape)):
            if d != axis and a != b:
                raise ArgValueError(
                    f"{op}(): Sizes of tensors must match except in dimension {axis}. Expected "
                    f"size {b} but got size {a} for tensor number {i} in the list (shapes "
                    f"{[list(t._data.shape) for t in tensors]}).")
    return registry.dispatch(CONCAT, tuple(tensors), (axis,))


def stack(x, axis=0, name=None, *, dim=None):
    """The equally shaped tensors of the list x joined along a new axis."""
    if dim is not None:
        axis = dim
    op = "stack"
    tensors = _tensor_list(x, op)
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != first:
            raise ArgValueError(f"{op}(): stack expects each tensor to be equal size, but got "
                                f"{list(first)} at entry 0 and {list(t._data.shape)} at entry {i}")
    axis = A.axis(axis, len(first) + 1, op)     # [-(nd+1), nd]
    return registry.dispatch(STACK, tuple(tensors), (axis,))


registry.register_function("concat", concat, method=False)
registry.register_function("cat", concat, method=False)
registry.register_function("stack", stack, method=False)


# ---------------------------------------------------------------- gathers
def _k_index_select(x, index, axis):
    idx = A.index_dtype(index, "index_select")
    if idx.ndim > 1:
        raise AxisError(f"index_select(): Index is supposed to be a vector, got shape "
                        f"{list(idx.shape)}. Fix: flatten it with .reshape([-1]).")
    idx = idx.reshape(-1)
    if x.ndim == 0:
        A.in_range(idx, 1, "index_select", dim=0)
        return _xp.array(x).reshape(1)[idx].reshape(()) if idx.size == 1 else _xp.array(x).reshape(1)[idx]
    A.in_range(idx, x.shape[axis], "index_select", dim=axis)
    return np.take(x, idx, axis=axis)


def _b_index_select(ctx, g):
    index = ctx.input(1)
    axis = ctx.attrs[0]
    z = registry.FUNCTIONS["zeros"](list(ctx.input_meta[0][0]), dtype=g.dtype, device=g.place)
    return (registry.FUNCTIONS["index_add"](z, axis, index, g), None)


INDEX_SELECT = OpDef("index_select", _k_index_select, _b_index_select, needs={"x": ("index",)},
                     inputs=("x", "index"), attrs=(("axis", 0),),
                     doc="The entries of x at the 1-D integer index along axis.")
_index_select = declare(INDEX_SELECT, dim_alias=True)


def index_select(x, index, axis=0, name=None, *, dim=None, out=None):
    # as in Paddle 3.3, an int second argument reads PyTorch's order (input, dim, index)
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        index, axis = axis, index   # (x, dim, index): PyTorch's order, as Paddle 3.3 reads it
    if dim is not None:
        axis = dim
    return _index_select(x, index, axis, out=out)


index_select.__doc__ = (_index_select.__doc__ + "\n\nAs in Paddle 3.3, an int second "
                        "argument reads PyTorch's order index_select(input, dim, index).")
registry.register_function("index_select", index_select)


def _k_take_along(x, indices, axis):
    """Paddle take_along_axis / torch take_along_dim: indices broadcast against x outside
    `axis`; negative indices count from the end (both frameworks); floats refused."""
    idx = A.index_dtype(indices, "take_along_axis", "indices")
    if idx.ndim != x.ndim:
        raise ArgValueError(f"take_along_axis(): indices must have as many dimensions as the "
                            f"input ({x.ndim}), got shape {list(idx.shape)}")
    if x.ndim == 0:
        A.in_range(idx, 1, "take_along_axis", "indices", allow_negative=True, dim=0)
        return _xp.array(x)
    A.in_range(idx, x.shape[axis], "take_along_axis", "indices", allow_negative=True, dim=axis)
    try:
        return np.take_along_axis(x, idx, axis=axis)
    except ValueError as e:
        raise ArgValueError(f"take_along_axis(): indices of shape {list(idx.shape)} cannot be "
                            f"broadcast against the input of shape {list(x.shape)} outside axis "
                            f"{axis}: {e}") from None


def _b_take_along(ctx, g):
    idx = ctx.input(1)._data
    axis = ctx.attrs[0]
    shape = ctx.input_meta[0][0]
    if len(shape) == 0:
        return (g, None)
    n = shape[axis]
    idx = np.where(idx < 0, idx + n, idx)
    # the forward may broadcast x and the indices: scatter into the broadcast shape, and the
    # node sums the gradient back to x's shape
    bshape = list(g.shape)
    bshape[axis] = n
    idx = np.broadcast_to(idx, g.shape).copy()
    z = registry.FUNCTIONS["zeros"](bshape, dtype=g.dtype, device=g.place)
    return (registry.FUNCTIONS["scatter_add"](z, axis, Tensor._wrap(idx), g), None)


TAKE_ALONG = OpDef("take_along_axis", _k_take_along, _b_take_along, needs={"arr": ("indices",)},
                   inputs=("arr", "indices"), attrs=(("axis", 0),),
                   doc="Elements of arr at integer indices along axis (broadcast elsewhere).")
declare(TAKE_ALONG)


def gather(x, dim=None, index=None, name=None, *, axis=None, sparse_grad=False):
    """Paddle 3.3's gather: gather(x, index, axis=None) picks slices along axis (=
    index_select); when the second argument is an int (or only dim= is given) it is
    PyTorch's gather(input, dim, index) (= take_along_axis without broadcasting), exactly as
    Paddle 3.3 tells the two apart. oar.torch.gather takes only PyTorch's form."""
    A.tensor(x, "gather")
    torch_form = (isinstance(dim, (int, np.integer)) and not isinstance(dim, bool))
    if not torch_form:
        if dim is None and index is None:
            raise ArgTypeError("gather(): argument 'index' must be a Tensor, got None")
        idx = registry.as_tensor(dim if dim is not None else index)
        ax = axis if axis is not None else (index if dim is not None and index is not None
                                            else 0)
        if isinstance(ax, Tensor):
            ax = int(A.index_array(ax, "gather", "axis").reshape(-1)[0])
        ax = A.axis(ax, x._data.ndim, "gather")
        if idx._data.ndim == 0:
            return registry.FUNCTIONS["index_select"](x, idx.reshape([1]), axis=ax).squeeze(ax)
        return registry.FUNCTIONS["index_select"](x, idx, axis=ax)
    op = "gather"
    d = dim if dim is not None else axis
    if d is None:
        raise ArgTypeError("gather(): argument 'dim' is required")
    d = A.axis(d, x._data.ndim, op, "dim")
    if index is None:
        raise ArgTypeError("gather(): argument 'index' must be a Tensor, got None")
    if isinstance(index, Tensor) and index._data.size == 0 and index._data.dtype.kind in "biuf":
        # PyTorch checks neither the dtype nor the shape of an empty index: an empty result
        # (a gather of x seen with the index's number of dims)
        k = max(index._data.ndim, 1)
        xv = x.reshape([1] * (k - 1) + [-1])
        idx = wrap_as(x._result_class, np.zeros(index._data.shape, np.int64).reshape(
            [1] * (k - index._data.ndim) + list(index._data.shape)))
        return registry.FUNCTIONS["take_along_axis"](xv, idx, axis=k - 1)
    idx = A.index_dtype(index, op)
    nd = x._data.ndim
    if max(idx.ndim, 1) != max(nd, 1):      # PyTorch: a 0-d tensor counts as 1-d here
        raise ArgValueError(f"{op}(): Index tensor must have the same number of dimensions as "
                            f"input tensor (index {list(idx.shape)}, input {list(x._data.shape)})")
    if nd == 0:         # one element, read at each index
        A.in_range(idx, 1, op, dim=0)
        return registry.FUNCTIONS["take_along_axis"](x if idx.ndim == 0 else x.reshape([1]),
                                                     wrap_as(x._result_class, idx), axis=0)
    if idx.ndim == 0:
        r = gather(x, 0, wrap_as(x._result_class, idx.reshape(1)))
        return r.reshape([])
    if any(idx.shape[k] > x._data.shape[k] for k in range(nd) if k != d):
        raise ArgValueError(f"{op}(): Size does not match: expected index {list(idx.shape)} to be "
                            f"no larger than self {list(x._data.shape)} apart from dimension {d}")
    A.in_range(idx, x._data.shape[d], op, dim=d)
    # PyTorch gather = take_along_axis over the leading block of x of the index's extent
    # (take_along_axis alone would broadcast a smaller index: a different result)
    if any(idx.shape[k] != x._data.shape[k] for k in range(nd) if k != d):
        x = x[tuple(slice(0, idx.shape[k]) if k != d else slice(None) for k in range(nd))]
    return registry.FUNCTIONS["take_along_axis"](x, wrap_as(x._result_class, idx), axis=d)


registry.register_function("gather", gather)


def _k_flip(x, axis):
    return np.flip(x, axis=axis).copy()


FLIP = OpDef("flip", _k_flip, lambda ctx, g: (g.flip(list(ctx.attrs[0])),), attrs=(("axis", None),),
             doc="x with the order of elements reversed along the given axes (a copy).")


def flip(x, axis=None, name=None, *, dims=None, dim=None):
    """A copy of x with the order of elements reversed along the given axes."""
    A.tensor(x, "flip")
    axis = dims if dims is not None else (dim if dim is not None else axis)
    if axis is None:
        raise ArgTypeError("flip(): argument 'axis' (dims) is required: the axes to reverse")
    axs = A.axes(axis, x._data.ndim, "flip")
    if x._data.ndim == 0:
        axs = ()
    return registry.dispatch(FLIP, (x,), (axs,))


registry.register_function("flip", flip)


def where(condition, x=None, y=None, name=None):
    """where(cond, x, y) picks x where cond else y; where(cond) gives the indices."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ArgTypeError("where(): expected both x and y (or neither, for the indices of the "
                           f"true elements), got {'x' if y is None else 'y'} only")
    cond = registry.as_tensor(registry.operand(condition, op_name="where", name="condition"))
    x = registry.operand(x, op_name="where", name="x")
    y = registry.operand(y, op_name="where", name="y")
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = registry.as_tensor(x)
    if not isinstance(x, Tensor):
        x = registry.as_tensor(x, like=y)
    shapes = [t._data.shape for t in (cond, x, y) if isinstance(t, Tensor)]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise ArgValueError(f"where(): condition, x and y of shapes {[list(s) for s in shapes]} "
                            "cannot be broadcast together") from None
    return registry.dispatch(registry.OPS["where_self"], (x, cond, y), ())


def where_(condition, x=None, y=None, name=None):
    """where(condition, x, y) written into x, in place; returns x. As Paddle's: x and y
    must both be given and x is a tensor (a number: ValueError); condition is a bool
    tensor."""
    if x is None or y is None or np.isscalar(x):
        raise ArgValueError("where_: either both or neither of x and y should be given; "
                            "in place, x must be a tensor (it receives the result). Fix: "
                            "oar.where(condition, x, y) for numbers")
    if isinstance(condition, Tensor) and condition.dtype != _dt.bool_:
        raise ArgValueError(f"The `condition` is expected to be a boolean Tensor, but got a "
                            f"Tensor with dtype {condition.dtype.name} (where_)")
    A.tensor(x, "where_")
    return registry.dispatch_inplace(registry.OPS["where_self"], (x, registry.as_tensor(condition), registry.operand(y)), (),
                              "where_")


def _where_method(x, condition, y=None):
    """Tensor.where(condition, y): self where condition is True, else y."""
    return where(condition, x, y)


def _where_method_(x, condition, y=None):
    """Tensor.where_(condition, y): writes where(condition, self, y) into self, in place."""
    return where_(condition, x, y)


registry.register_function("where", where, method=False)
registry.register_function("where_", where_, method=False)
registry.register_function("where", _where_method, function=False)
registry.register_function("where_", _where_method_, function=False)


def nonzero(x, as_tuple=False, name=None):
    """Indices of x's nonzero elements: an [n, ndim] int64 tensor, or one 1-D tensor per axis."""
    x = registry.as_tensor(registry.operand(x, op_name="nonzero", name="x"))
    if x._data.ndim == 0:      # PyTorch: a 0-d tensor is treated as one element
        n = int(bool(x._data))
        if as_tuple:
            return (wrap_as(x._result_class, np.zeros(n, np.int64)),)
        return wrap_as(x._result_class, np.zeros((n, 0), np.int64))
    nz = np.nonzero(x._data)
    cls = x._result_class   # Note [Result class]
    if as_tuple:
        return tuple(wrap_as(cls, _xp.asarray(i, dtype=np.int64)) for i in nz)
    return wrap_as(cls, np.stack(nz, axis=1).astype(np.int64) if nz else np.zeros((0, 0), np.int64))


registry.register_function("nonzero", nonzero)


def masked_select(x, mask, name=None):
    """x's elements where mask is True, as a 1-D tensor; x and mask broadcast together."""
    A.tensor(x, "masked_select")
    mask = registry.as_tensor(registry.operand(mask, op_name="masked_select", name="mask"))
    if mask._data.dtype != np.bool_:
        raise ArgTypeError(f"masked_select(): expected BoolTensor for mask, got "
                           f"{mask.dtype.name}. Fix: compare to get a mask (e.g. `x > 0`).")
    try:
        shape = np.broadcast_shapes(x._data.shape, mask._data.shape)
    except ValueError:
        raise ArgValueError(f"masked_select(): the shapes of x {list(x._data.shape)} and mask "
                            f"{list(mask._data.shape)} cannot be broadcast together") from None
    return registry.dispatch(MASKED_SELECT, (x,), (_xp.array(np.broadcast_to(mask._data, shape)),))


# masked_select and take are single ops with PyTorch's nodes (MaskedSelectBackward0,
# TakeBackward0); their backwards are oar ops (index_put / index_add), so differentiable
# again; the engine sums masked_select's gradient over the dims x was broadcast along.
def _b_masked_select(c, g):
    mask = c.attrs[0]
    z = registry.FUNCTIONS["zeros"](list(mask.shape), dtype=g.dtype, device=g.place)
    return (registry.FUNCTIONS["index_put"](z, (Tensor._wrap(mask),), g),)


MASKED_SELECT = OpDef("masked_select", lambda x, mask: np.broadcast_to(x, mask.shape)[mask],
                      _b_masked_select, attrs=(("mask", None),), method=False, function=False,
                      doc="x's elements where mask is True (x broadcast to mask's shape).")


def _b_take(c, g):
    idx = c.attrs[0]
    shape = c.input_meta[0][0]
    z = registry.FUNCTIONS["zeros"]([int(np.prod(shape))], dtype=g.dtype, device=g.place)
    flat = registry.FUNCTIONS["index_add"](z, 0, Tensor._wrap(idx.reshape(-1)), g.reshape([-1]))
    return (flat.reshape(list(shape)),)


TAKE = OpDef("take", lambda x, idx: x.reshape(-1)[idx], _b_take, attrs=(("index", None),),
             method=False, function=False,
             doc="x as 1-D at integer indices (non-negative, checked), in the indices' shape.")


registry.register_function("masked_select", masked_select)


def take(x, index, mode="raise", name=None):
    """torch.take / paddle.take: x as 1-D, indexed by an integer tensor of any shape (result
    has the index's shape). Negative indices count from the end; out of range raises
    (Paddle's mode='wrap' / 'clip' are honoured)."""
    op = "take"
    A.tensor(x, op)
    mode = A.one_of(mode, ("raise", "wrap", "clip"), op, "mode")
    idx = A.index_dtype(index, op)
    n = x._data.size
    if mode == "raise":
        if idx.size and n == 0:
            raise A.IndexRangeError(f"{op}(): cannot take from an empty tensor")
        A.in_range(idx, n, op, allow_negative=True)
    elif mode == "wrap":
        idx = np.mod(idx, n) if n else idx
    else:
        idx = np.clip(idx, 0, max(n - 1, 0))
    idx = np.where(idx < 0, idx + n, idx)
    return registry.dispatch(TAKE, (x,), (idx,))


registry.register_function("take", take)


def tile(x, repeat_times, name=None):
    """x repeated repeat_times times along each axis (a copy)."""
    A.tensor(x, "tile")
    reps = A.shape(repeat_times, "tile", name="repeat_times")
    nd = max(len(reps), x._data.ndim)
    xs = (1,) * (nd - x._data.ndim) + x._data.shape
    reps = (1,) * (nd - len(reps)) + reps
    return registry.dispatch(TILE, (x,), (reps,))


# tile / repeat: one op (a copy, even when every count is 1), PyTorch's RepeatBackward0; its
# backward sums the gradient over the repeats (repeat_backward), saving nothing.
def _k_tile(x, reps):
    return np.tile(x.reshape((1,) * (len(reps) - x.ndim) + x.shape), reps)


def _b_tile(ctx, g):
    reps = ctx.attrs[0]
    in_shape = ctx.input_meta[0][0]
    if not reps:
        return (g,)
    xs = (1,) * (len(reps) - len(in_shape)) + tuple(in_shape)
    inter = [v for r, n in zip(reps, xs) for v in (r, n)]
    # the core function, not g's method (Note [Door-neutral core])
    s = registry.FUNCTIONS["sum"](g.reshape(inter), axis=list(range(0, len(inter), 2)))
    return (s.reshape(list(in_shape)),)


TILE = OpDef("tile", _k_tile, _b_tile, attrs=(("repeat_times", ()),), method=False,
             function=False, node_name="RepeatBackward",
             doc="x repeated repeat_times times along each axis (a copy).")
registry.register_function("tile", tile)
def _repeat(x, *sizes):
    """PyTorch Tensor.repeat: at least one size per dimension of x."""
    reps = A.shape_args(sizes, "repeat")
    if len(reps) < x._data.ndim:
        raise ArgValueError(f"repeat(): Number of dimensions of repeat dims ({len(reps)}) can not "
                            f"be smaller than number of dimensions of tensor ({x._data.ndim})")
    return tile(x, reps)


registry.register_function("repeat", _repeat, function=False)


# ---------------------------------------------------------------- issue 10: roll, isclose
def _k_roll(x, shifts, axes):
    if axes is None:
        return np.roll(x.reshape(-1), shifts).reshape(x.shape)
    return np.roll(x, shifts, axis=axes)


def _b_roll(ctx, g):
    shifts, axes = ctx.attrs
    back = tuple(-s for s in shifts) if isinstance(shifts, tuple) else -shifts
    return (g.roll(back, axes if axes is None else list(axes)),)


ROLL = OpDef("roll", _k_roll, _b_roll, attrs=(("shifts", 0), ("axes", None)), method=False,
             function=False, number_attrs=(),
             doc="x with its elements shifted by `shifts` along the axes (wrapping around).")
declare(ROLL)


def roll(x, shifts, axis=None, name=None, *, dims=None):
    """x with elements shifted by `shifts` along `axis` (an int or a list, matched with a
    list of shifts), wrapping around; without axis, along the flattened tensor. A copy
    (PyTorch's roll(shifts, dims) and Paddle's roll(x, shifts, axis))."""
    if x.__class__ is not Tensor and not isinstance(x, Tensor):
        x = A.tensor(x, "roll")
    if dims is not None:
        axis = dims
    nd = x._data.ndim
    many = isinstance(shifts, (list, tuple))
    sh = tuple(A.integer(s, "roll", f"shifts[{i}]") for i, s in enumerate(shifts)) if many \
        else (A.integer(shifts, "roll", "shifts"),)
    if axis is None:
        if len(sh) != 1:
            raise ArgValueError(f"roll(): shifts and dimensions must align. shifts: {len(sh)}, "
                                "dims:0. Fix: pass one dim per shift, or a single shift to "
                                "roll the flattened tensor")
        return registry.dispatch(ROLL, (x,), (sh[0], None))
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if len(axes) != len(sh):
        raise ArgValueError(f"roll(): shifts and dimensions must align. shifts: {len(sh)}, "
                            f"dims:{len(axes)}")
    axes = tuple(A.axis(a, nd, "roll", "dims") for a in axes)
    return registry.dispatch(ROLL, (x,), (sh, axes))


registry.register_function("roll", roll)


def _close_args(x, y, rtol, atol, op):
    x = A.input_tensor(x, op)
    if not isinstance(y, Tensor):
        raise ArgTypeError(f"{op}(): argument 'other' must be a Tensor, got "
                           f"{type(y).__name__}. Fix: wrap it: oar.to_tensor(...)")
    if x._data.dtype != y._data.dtype:
        raise ArgTypeError(f"{op}(): {x.dtype.name} did not match {y.dtype.name}: both tensors "
                           "must have the same dtype. Fix: cast one, e.g. "
                           f"y.astype('{x.dtype.name}').")
    rtol = A.number(rtol, op, "rtol")
    atol = A.number(atol, op, "atol")
    if rtol < 0:
        raise ArgValueError(f"{op}(): rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise ArgValueError(f"{op}(): atol must be greater than or equal to zero, but got {atol}")
    registry.broadcast_shapes(op, [x._data.shape, y._data.shape])   # Note [Broadcast errors]
    return x, y, rtol, atol


def _isclose_array(a, b, rtol, atol, equal_nan):
    """PyTorch's isclose: equal, or both NaN with equal_nan, or finite |a - b| <= atol +
    rtol * |b| computed in the tensors' dtype (integers and bool: the default float)."""
    with np.errstate(all="ignore"):
        close = a == b
        if a.dtype.kind == "b":
            return close
        if equal_nan and a.dtype.kind == "f":
            close = close | (np.isnan(a) & np.isnan(b))
        if rtol == 0 and atol == 0:
            return close
        dt = a.dtype if a.dtype.kind == "f" else _dt.DEFAULT_FLOAT.np
        af, bf = a.astype(dt, copy=False), b.astype(dt, copy=False)
        allowed = np.abs(np.multiply(bf, dt.type(rtol))) + dt.type(atol)
        actual = np.abs(af - bf)
        return close | (np.isfinite(actual) & (actual <= allowed))


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Elementwise whether x and y are close: |x - y| <= atol + rtol * |y| (or equal; NaNs
    equal only with equal_nan), as PyTorch and Paddle. A bool tensor of the broadcast shape;
    x and y must have the same dtype."""
    x, y, rtol, atol = _close_args(x, y, rtol, atol, "isclose")
    r = _isclose_array(x._data, y._data, rtol, atol, bool(equal_nan))
    return wrap_as(x._result_class, _xp.asarray(r))


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Whether every element of x is close to y's (isclose), as Paddle returns it: a 0-d bool
    tensor (`bool(...)` or `.item()` gives the Python bool; the PyTorch door's allclose
    returns the bool itself)."""
    x, y, rtol, atol = _close_args(x, y, rtol, atol, "allclose")
    r = bool(_isclose_array(x._data, y._data, rtol, atol, bool(equal_nan)).all())
    return wrap_as(x._result_class, _xp.array_module(x._data).asarray(r))


registry.register_function("isclose", isclose)
registry.register_function("allclose", allclose)


# ---------------------------------------------------------------- tril / triu
# The lower / upper triangle of the last two dims (the matrices of a batch), the rest zeroed;
# `diagonal` shifts the boundary (0: the main diagonal; k > 0 above it, k < 0 below). The
# gradient is the same triangle of the incoming gradient. minGPT's causal mask is
# torch.tril(torch.ones(T, T)). tril_/triu_ are declared apart (kind "inplace": their kernel
# zeroes the other triangle of x in place, after the same rank check has passed).
def _k_triangle(np_fn, name):
    def kernel(x, diagonal):
        if x.ndim < 2:
            raise ArgValueError(f"{name}: input tensor must have at least 2 dimensions")
        return np_fn(x, diagonal)
    return kernel


def _b_triangle(name):
    def backward(ctx, g):
        return (registry.FUNCTIONS[name](g, ctx.attrs[0]),)   # Note [Door-neutral core]
    return backward


for _name, _np_fn, _what in (("tril", np.tril, "lower"), ("triu", np.triu, "upper")):
    declare(OpDef(_name, _k_triangle(_np_fn, _name), _b_triangle(_name),
                  attrs=(("diagonal", 0),),
                  doc=f"The {_what} triangle of x's last two dims (on and {'below' if _what == 'lower' else 'above'} "
                      "the diagonal shifted by `diagonal`), the other elements zero."))


def _check_triangle_(self, args, attrs, op_name):
    if self._data.ndim < 2:
        raise ArgValueError(f"{op_name[:-1]}: input tensor must have at least 2 dimensions")


def _k_triangle_(np_fn):
    def kernel(x, diagonal):
        # the elements outside the triangle: np_fn of a ones mask, shaped as x's last two dims
        keep = np_fn(np.ones(x.shape[-2:], bool), diagonal)
        x[..., ~keep] = 0
        return x
    return kernel


for _name, _np_fn, _what in (("tril", np.tril, "lower"), ("triu", np.triu, "upper")):
    declare(OpDef(_name + "_", _k_triangle_(_np_fn), _b_triangle(_name), kind="inplace",
                  attrs=(("diagonal", 0),), check=_check_triangle_,
                  node_name=_name.title() + "Backward",
                  doc=f"x's {_what} triangle kept in place (the other elements set to zero)."))
del _name, _np_fn, _what
