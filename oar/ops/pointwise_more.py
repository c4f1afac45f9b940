"""More pointwise ops: hypot, ldexp, copysign, gcd, lcm, xlogy, lerp, addcmul, addcdiv,
clamp_min, clamp_max; and the composites addmm, renorm, index_fill, masked_scatter.

Each pointwise op is one declaration (ops/pointwise.py pointwise_op): the registry builds its
function, method, in-place and out= spellings. The composites are written in oar ops (their
gradients follow), with an in-place spelling that computes the result first (every check
before any write) and then copies it into the input (ops/linalg.py `_inplace`).
"""
from __future__ import annotations

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from . import args as _args
from . import registry
from .linalg import _add_product, _inplace, _operands
from .pointwise import (_UNSAFE, _cj, _no_kernel, _torch_door, _where, float_result,
                        pointwise_op)

F = registry.FUNCTIONS
_LN2 = float(np.log(2.0))


def _all_integral(args):
    """Every tensor operand (and number) is an integer or bool: PyTorch's hypot has no
    integer kernel, Paddle's casts them to float32 first."""
    for a in args:
        if isinstance(a, Tensor):
            if a._data.dtype.kind == "f":
                return False
        elif isinstance(a, (float, np.floating)):
            return False
    return True


def _paddle_y_tensor(op_name, args):
    """Paddle's hypot and ldexp take a tensor y only (TypeError, in Paddle's words); the torch
    door refuses a number in its own words before the core is reached."""
    y = args[1]
    if not isinstance(y, Tensor) and not _torch_door(args):
        raise ArgTypeError(f"{op_name}(): y must be tensor type, but got {type(y)}. Fix: "
                           f"pass paddle.to_tensor(y) (Paddle's {op_name.rstrip('_')} takes "
                           "tensors only).")


def _check_hypot(op_name, args, attrs, rdt):
    _paddle_y_tensor(op_name, args)
    if _torch_door(args) and _all_integral(args):
        dt = next(a._data.dtype for a in args if isinstance(a, Tensor))
        _no_kernel(op_name, "hypot_cpu", dt, "cast to a floating dtype first, e.g. x.float().")


def _in_float(rdt, *arrays):
    return [_xp.asarray(a, dtype=rdt) for a in arrays]


def _hypot_k(out, rdt, x, y):
    return np.hypot(x, y, out=out, dtype=rdt, casting=_UNSAFE)


pointwise_op("hypot", _hypot_k,
  lambda ctx, g: (g * ctx.input(0) / ctx.out if ctx.needs[0] else None,
                  g * ctx.input(1) / ctx.out if ctx.needs[1] else None),
  needs={"x": ("x", "out"), "y": ("y", "out")}, inputs=("x", "y"), result_dtype=float_result,
  check=_check_hypot, doc="Elementwise sqrt(x**2 + y**2), without overflow, with broadcasting.")


# ldexp: PyTorch computes x * 2.0 ** y in the promoted floating dtype (an integer y too)
def _ldexp_k(out, rdt, x, y):
    x, y = _in_float(rdt, x, y)
    with np.errstate(over="ignore"):
        return np.multiply(x, np.exp2(y), out=out, dtype=rdt, casting=_UNSAFE)


def _check_ldexp(op_name, args, attrs, rdt):
    _paddle_y_tensor(op_name, args)
    x, y = args
    # PyTorch's 2 ** y in a floating x's dtype has no bool kernel (an integer x: fine)
    if (isinstance(y, Tensor) and y._data.dtype.kind == "b" and isinstance(x, Tensor)
            and x._data.dtype.kind == "f"):
        _no_kernel(op_name, "ldexp_cpu_exp", y._data.dtype, "pass an integer or floating "
                   "exponent tensor.")


pointwise_op("ldexp", _ldexp_k,
  lambda ctx, g: (g * F["exp2"](ctx.input(1).astype(g.dtype)) if ctx.needs[0] else None,
                  g * ctx.out * _LN2 if ctx.needs[1] else None),
  needs={"x": ("y",), "y": ("out",)}, inputs=("x", "y"), result_dtype=float_result,
  check=_check_ldexp, doc="Elementwise x * 2**y, with broadcasting (a floating result).")


def _copysign_k(out, rdt, x, y):
    x, y = _in_float(rdt, x, y)
    return np.copysign(x, y, out=out, dtype=rdt, casting=_UNSAFE)


def _copysign_back(ctx, g):
    # PyTorch: grad * result / x, 0 where x == 0; the sign operand gets a zero gradient
    gx = None
    if ctx.needs[0]:
        x = ctx.input(0)
        gx = _where(x == 0, 0.0, g * (ctx.out / _where(x == 0, 1.0, x)))
    return gx, (registry.zero_grad(g) if ctx.needs[1] else None)


pointwise_op("copysign", _copysign_k, _copysign_back, needs={"x": ("x", "out")},
  inputs=("x", "y"), result_dtype=float_result,
  doc="Elementwise |x| with the sign of y, with broadcasting (a floating result).")


def _integer_only(kernel):
    def check(op_name, args, attrs, rdt):
        if rdt.kind not in "iu":
            _no_kernel(op_name, kernel, rdt, "gcd and lcm take integer tensors; cast with "
                       "x.astype('int64') (Paddle) or x.long() (PyTorch).")
    return check


def _int_kernel(uf):
    def k(out, rdt, x, y):
        return uf(x, y, out=out, dtype=rdt, casting=_UNSAFE)
    k.__doc__ = f"Elementwise {uf.__name__} of integers."
    return k


pointwise_op("gcd", _int_kernel(np.gcd), inputs=("x", "y"), check=_integer_only("gcd_cpu"),
  doc="Elementwise greatest common divisor of integer x and y (non-negative), with broadcasting.")
pointwise_op("lcm", _int_kernel(np.lcm), inputs=("x", "y"), check=_integer_only("lcm_cpu"),
  doc="Elementwise least common multiple of integer x and y (non-negative), with broadcasting.")


def _xlogy_k(out, rdt, x, y):
    x, y = _in_float(rdt, x, y)
    with np.errstate(all="ignore"):
        r = np.where((x == 0) & ~np.isnan(y), 0, x * np.log(y)).astype(rdt, copy=False)
    if out is None:
        return r
    np.copyto(out, r, casting=_UNSAFE)
    return out


def _xlogy_back(ctx, g):
    x, y = ctx.input(0), ctx.input(1)
    gx = gy = None
    if ctx.needs[0]:   # PyTorch: xlogy(g, y), 0 where x == 0 and y <= 0
        gx = _where((x == 0) & (y <= 0), 0.0, F["xlogy"](g, y))
    if ctx.needs[1]:
        gy = g * x / y
    return gx, gy


pointwise_op("xlogy", _xlogy_k, _xlogy_back, needs={"x": ("x", "y"), "y": ("x", "y")},
  inputs=("x", "y"), result_dtype=float_result,
  doc="Elementwise x * log(y), 0 where x == 0 (unless y is NaN), with broadcasting.")


# ---------------------------------------------------------------- lerp
def _check_lerp(op_name, args, attrs, rdt):
    x, end, w = args
    if rdt.kind != "f":
        _no_kernel(op_name, "lerp_kernel_scalar", rdt, "cast to a floating dtype first.")
    for v, n in ((end, "end"), (w, "weight")):
        if isinstance(v, Tensor) and v._data.dtype != x._data.dtype:
            raise ArgTypeError(f"{op_name}(): expected dtype {x.dtype.name} for `{n}` but got "
                               f"dtype {v.dtype.name}. Fix: cast `{n}` to x's dtype.")


def _lerp_k(out, rdt, x, end, w):
    x, end, w = _in_float(rdt, x, end, w)
    # PyTorch's formula: from x for weight < 0.5, from end otherwise (exact at weight 1)
    r = np.where(np.abs(w) < 0.5, x + w * (end - x), end - (end - x) * (1 - w)).astype(rdt, copy=False)
    if out is None:
        return r
    np.copyto(out, r, casting=_UNSAFE)
    return out


def _lerp_back(ctx, g):
    w = ctx.input(2) if ctx.needs[0] or ctx.needs[1] else None
    return (g * (1 - w) if ctx.needs[0] else None, g * w if ctx.needs[1] else None,
            g * (ctx.input(1) - ctx.input(0)) if ctx.needs[2] else None)


pointwise_op("lerp", _lerp_k, _lerp_back,
  needs={"x": ("weight",), "y": ("weight",), "weight": ("x", "y")},
  inputs=("x", "y", "weight"), check=_check_lerp, promote=(0, 1),
  doc="x + weight * (y - x), elementwise with broadcasting (weight: a tensor or a number).")


# ---------------------------------------------------------------- addcmul, addcdiv
def _check_addc(op_name, args, attrs, rdt):
    value = attrs[0]
    if isinstance(value, Tensor):
        raise ArgTypeError(f"{op_name}(): argument 'value' must be a number, not Tensor")
    if op_name.startswith("addcdiv") and all(
            isinstance(a, Tensor) and a._data.dtype.kind in "biu" for a in args[1:]):
        raise ArgTypeError(
            f"{op_name}(): Integer division with addcdiv is no longer supported, and in a "
            "future release addcdiv will perform a true division of tensor1 and tensor2. "
            "Fix: cast tensor1 or tensor2 to a floating dtype first.")
    if rdt.kind in "biu" and isinstance(value, float) and op_name.endswith("_"):
        raise ArgTypeError(f"{op_name}(): result type Float can't be cast to the desired "
                           f"output type {rdt} (value={value!r}).")


def _addc_kernel(uf):
    def k(out, rdt, x, t1, t2, value):
        if rdt.kind in "iu":
            value = int(value)   # PyTorch casts value to the integer result dtype
        x, t1, t2 = _in_float(rdt, x, t1, t2)
        with np.errstate(all="ignore"):
            r = (x + rdt.type(value) * uf(t1, t2)).astype(rdt, copy=False)
        if out is None:
            return r
        np.copyto(out, r, casting=_UNSAFE)
        return out
    k.__doc__ = f"x + value * {uf.__name__}(tensor1, tensor2)."
    return k


# complex operands (and a complex value): every factor conjugated, Note [Complex autograd]
def _addcmul_back(ctx, g):
    v = _cj(ctx.attrs[0])
    return (g if ctx.needs[0] else None, g * _cj(ctx.input(2)) * v if ctx.needs[1] else None,
            g * _cj(ctx.input(1)) * v if ctx.needs[2] else None)


def _addcdiv_back(ctx, g):
    v = _cj(ctx.attrs[0])
    return (g if ctx.needs[0] else None, g * v / _cj(ctx.input(2)) if ctx.needs[1] else None,
            (g * -v) * _cj(ctx.input(1)) / _cj(ctx.input(2).square()) if ctx.needs[2] else None)


pointwise_op("addcmul", _addc_kernel(np.multiply), _addcmul_back,
  needs={"tensor1": ("tensor2",), "tensor2": ("tensor1",)},
  inputs=("input", "tensor1", "tensor2"), attrs=(("value", 1),), check=_check_addc,
  doc="input + value * tensor1 * tensor2, elementwise with broadcasting.")
pointwise_op("addcdiv", _addc_kernel(np.true_divide), _addcdiv_back,
  needs={"tensor1": ("tensor2",), "tensor2": ("tensor1", "tensor2")},
  inputs=("input", "tensor1", "tensor2"), attrs=(("value", 1),), check=_check_addc,
  doc="input + value * tensor1 / tensor2, elementwise with broadcasting.")
for _n in ("addcmul", "addcdiv"):   # Note [Complex autograd]; tests/test_complex_autograd2.py
    registry.OPS[_n].complex_grad = True
del _n


# ---------------------------------------------------------------- clamp_min, clamp_max
def _clamp_one(uf, keep):
    def k(out, rdt, x, bound):
        return uf(x, bound, out=out, dtype=rdt, casting=_UNSAFE)

    def back(ctx, g):
        x, b = ctx.input(0), ctx.input(1)
        m = keep(x, b)
        return (_where(m, g, 0.0) if ctx.needs[0] else None,
                _where(m, 0.0, g) if ctx.needs[1] else None)
    return k, back


def _clamp_bool_scalar(kernel):
    def check(op_name, args, attrs, rdt):
        # PyTorch's Scalar overload has no bool kernel (two bool tensors are fine)
        if rdt.kind == "b" and not isinstance(args[1], Tensor):
            _no_kernel(op_name, kernel, rdt, "cast to an integer or floating dtype first.")
    return check


_k, _b = _clamp_one(np.maximum, lambda x, b: x >= b)
pointwise_op("clamp_min", _k, _b, needs={"x": ("x", "min"), "min": ("x", "min")},
  inputs=("x", "min"), check=_clamp_bool_scalar("clamp_min_scalar_cpu"),
  doc="x clamped from below by min (a number or a tensor), elementwise with broadcasting.")
_k, _b = _clamp_one(np.minimum, lambda x, b: x <= b)
pointwise_op("clamp_max", _k, _b, needs={"x": ("x", "max"), "max": ("x", "max")},
  inputs=("x", "max"), check=_clamp_bool_scalar("clamp_max_scalar_cpu"),
  doc="x clamped from above by max (a number or a tensor), elementwise with broadcasting.")
del _k, _b


# ---------------------------------------------------------------- composites
def addmm(input, x, y, beta=1, alpha=1, name=None):
    """beta * input + alpha * (x @ y), x and y 2-D (input broadcasts to the product)."""
    _operands("addmm", ("input", "mat1", "mat2"), (input, x, y), (None, 2, 2))
    if x.shape[1] != y.shape[0]:
        raise ArgValueError(f"addmm(): mat1 and mat2 shapes cannot be multiplied "
                            f"({x.shape[0]}x{x.shape[1]} and {y.shape[0]}x{y.shape[1]})")
    return _add_product("addmm", input, x @ y, beta, alpha)


def renorm(x, p, axis, max_norm, name=None):
    """x with each slice along `axis` whose p-norm exceeds max_norm scaled to norm max_norm."""
    _args.tensor(x, "renorm", "x")
    if x.ndim < 2:
        raise ArgValueError(f"renorm(): input needs at least 2 dimensions, got {x.ndim} "
                            "dimensions")
    for v, n in ((p, "p"), (max_norm, "max_norm")):
        registry.number_attr(v, "renorm", n)
    if p <= 0:
        raise ArgValueError(f"renorm(): non-positive norm (p={p}) not supported")
    if max_norm < 0:
        raise ArgValueError(f"renorm(): expected max_norm to be >= 0 but got {max_norm}")
    if x.dtype.name not in ("float16", "float32", "float64"):
        raise ArgTypeError(f"renorm(): expected a floating input, got {x.dtype.name}")
    ax = _args.axis(axis, x.ndim, "renorm", "axis")
    others = [d for d in range(x.ndim) if d != ax]
    a = x.abs()
    if p == float("inf"):
        norm = a.amax(others, keepdim=True)
    else:
        norm = (a.pow(p).sum(others, keepdim=True)).pow(1.0 / p)
    # PyTorch's factor (its gradient flows through the norm too)
    factor = _where(norm > max_norm, max_norm / (norm + 1e-7), 1.0)
    return x * factor


def _index_mask(x, index, ax, op):
    """A bool tensor of x's shape along `ax` (1 elsewhere): True at the indexed positions."""
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu":
        raise ArgTypeError(f"{op}(): Expected dtype int64 for index, got "
                           f"{getattr(index, 'dtype', type(index).__name__)}")
    if index.ndim > 1:
        raise ArgValueError(f"{op}(): Index is supposed to be a vector, got shape "
                            f"{list(index.shape)}")
    n = x.shape[ax] if x.ndim else 1
    idx = index._data.reshape(-1)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise ArgValueError(f"{op}(): index out of range for dimension {ax} of size {n}: "
                            f"{idx.tolist()}")
    m = np.zeros(n, dtype=bool)
    m[idx] = True
    shape = [1] * x.ndim
    if x.ndim:
        shape[ax] = n
    return registry.as_tensor(m.reshape(shape))


def index_fill(x, index, axis, value, name=None):
    """x with the positions `index` along `axis` set to value (a number or a 0-d tensor)."""
    _args.tensor(x, "index_fill", "x")
    ax = _args.axis(axis, max(x.ndim, 1), "index_fill", "axis")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ArgValueError(f"index_fill(): index_fill_ only supports a 0-dimensional value "
                                f"tensor, but got tensor with {value.ndim} dimension(s).")
    else:
        value = registry.operand(value, "index_fill", "value")
    mask = _index_mask(x, index, ax, "index_fill")
    return F["masked_fill"](x, mask, value)


def masked_scatter(x, mask, value, name=None):
    """x with the positions where mask is True filled, in row-major order, by the leading
    elements of value."""
    for t, n in ((x, "x"), (mask, "mask"), (value, "value")):
        _args.tensor(t, "masked_scatter", n)
    if mask._data.dtype.kind != "b":
        raise ArgTypeError(f"masked_scatter(): masked_scatter_ only supports boolean masks, "
                           f"but got mask with dtype {mask.dtype.name}")
    if value._data.dtype != x._data.dtype:
        raise ArgTypeError(f"masked_scatter(): expected self and source to have same dtypes "
                           f"but got {x.dtype.name} and {value.dtype.name}")
    shape = registry.broadcast_shapes("masked_scatter", [tuple(x.shape), tuple(mask.shape)])
    m = np.broadcast_to(mask._data, shape)
    count = int(m.sum())
    if count > value.numel():
        raise ArgValueError(f"masked_scatter(): Number of elements of source < number of ones "
                            f"in mask ({value.numel()} < {count})")
    pos = np.cumsum(m.reshape(-1)) - 1
    pos = np.where(m.reshape(-1), pos, 0).reshape(shape)
    taken = value.reshape([-1])[registry.as_tensor(pos.astype(np.int64))] if value.numel() \
        else F["zeros"](list(shape), dtype=x.dtype)
    return F["where"](registry.as_tensor(_xp.ascontiguousarray(m)), taken, x)


for _f in (addmm, renorm, index_fill, masked_scatter):
    registry.register_function(_f.__name__, _f)
    registry.register_function(_f.__name__ + "_", _inplace(_f))
del _f


# ---------------------------------------------------------------- Paddle's dtype-changing in-place ops
# Note [Dtype-changing in-place ops]
# Paddle's cast_ and Tensor.apply_ change a tensor's dtype (apply_: also its shape) while
# keeping the Python object: every other in-place op keeps both (Note [Check, then write]).
# The new value cannot live in the old buffer, so the tensor takes a new storage whose
# version is the old one plus the bump: tensors saved for backward keep reading the old
# buffer, unchanged, and views made before the call keep viewing it. A view cannot be
# rebound (its base would not follow, and Paddle then writes garbage into the base), so a
# view is refused; a leaf that requires grad is refused like any in-place op.
def _rebind(x, y, op_name):
    """x takes y's memory, dtype, shape and history (Note [Dtype-changing in-place ops])."""
    from ..autograd.inplace import bump
    v = x._storage.version
    x._data = y._data
    x._storage = y._storage
    x._storage.version = v
    bump(x, op_name)
    return x


def cast_(x, dtype):
    """x converted to dtype in place: the same tensor object, now of dtype (Paddle's cast_;
    Note [Dtype-changing in-place ops])."""
    from ..autograd import grad_mode
    from ..autograd.inplace import bump, check_inplace_autograd
    from .. import dtypes as _dtypes
    _args.tensor(x, "cast_", "x")
    try:
        d = _dtypes.as_dtype(dtype)
    except TypeError as e:
        raise ArgTypeError(f"cast_(): {e}") from None
    grad_mode.check_inference(x, "cast_")
    if x._view is not None and x._data.dtype != d.np:
        raise ArgValueError(
            f"cast_(): x (shape {list(x.shape)}, {x.dtype.name}) is a view of another tensor; "
            f"its dtype cannot change to {d.name} in place (its base's memory would not "
            "follow). Fix: x = x.cast(dtype), or cast_ the base tensor.")
    need_grad = grad_mode.is_grad_enabled() and x.requires_grad
    if need_grad:
        check_inplace_autograd(x, "cast_")
    if x._data.dtype == d.np:
        bump(x, "cast_")   # nothing to convert; Paddle still counts the write
        return x
    track = need_grad or x._grad_fn is not None
    with grad_mode.set_grad_enabled(track):
        y = F["cast"](x, d)
    _rebind(x, y, "cast_")
    if track:
        x._grad_fn = y._grad_fn
    return x


def _apply_args(x, func, op_name):
    _args.tensor(x, op_name, "self")
    if not callable(func):
        raise ArgTypeError(f"{op_name}(): func must be callable, got {type(func).__name__}")
    if x.requires_grad:
        raise RuntimeError("Cannot apply function on a tensor that required gradient. "
                           f"Fix: call {op_name} on x.detach(), or set x.stop_gradient = True.")


def apply(x, func):
    """func(x), for a tensor that does not require grad (Paddle's Tensor.apply)."""
    _apply_args(x, func, "apply")
    y = func(x)
    if not isinstance(y, Tensor):
        raise ArgTypeError(f"apply(): func must return a Tensor, got {type(y).__name__}")
    return y


def apply_(x, func):
    """x replaced by func(x) in place (its values, and also dtype and shape where func changes
    them: Note [Dtype-changing in-place ops]); returns x (Paddle's Tensor.apply_)."""
    _apply_args(x, func, "apply_")
    y = func(x)
    if not isinstance(y, Tensor):
        raise ArgTypeError(f"apply_(): func must return a Tensor, got {type(y).__name__}")
    if y._data.shape == x._data.shape and y._data.dtype == x._data.dtype:
        with _no_grad():
            return x.copy_(y)   # the same memory: views of x see the new values
    if x._view is not None:
        raise ArgValueError(
            f"apply_(): func changed the shape or dtype ({list(x.shape)} {x.dtype.name} -> "
            f"{list(y.shape)} {y.dtype.name}) of a view; a view cannot be rebound. Fix: "
            "x = x.apply(func).")
    if y._storage is x._storage:
        y = y.clone()
    return _rebind(x, y.detach(), "apply_")


def _no_grad():
    from ..autograd import grad_mode
    return grad_mode.set_grad_enabled(False)


registry.register_function("cast_", cast_)
registry.register_function("apply", apply, function=False)
registry.register_function("apply_", apply_, function=False)

# Paddle's bitwise_invert / bitwise_invert_ (function and method): bitwise_not under a second
# name, the same function objects
for _s in ("", "_"):
    registry.install("bitwise_invert" + _s, F["bitwise_not" + _s])
del _s
