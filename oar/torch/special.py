"""torch.special: the names of PyTorch 2.13's special-function module that oar serves.

Most are torch's top-level functions under a second name (special.gammaln is lgamma,
special.psi is digamma, special.expit is sigmoid); those are filled in by `populate` once the
door's functions carry torch's keywords and out= (Note [Torch signatures]), so they are the
very same function objects. The special-only ones (i0e, i1, i1e) take torch's `input` and
`out=` here. The kernels: Note [Special function kernels] (oar/ops/special.py).
"""
from __future__ import annotations

from ..autograd import grad_mode as _gm
from ..autograd.errors import ArgTypeError
from ..ops.registry import FUNCTIONS as _CORE
from ..ops.registry import OPS as _OPS
from ..tensor import Tensor as _CoreTensor
from ._binding import write_out as _write_out

# special.<name> -> the door's top-level function of that meaning
_SAME_AS = {"digamma": "digamma", "psi": "digamma", "gammaln": "lgamma", "polygamma": "polygamma",
            "multigammaln": "mvlgamma", "i0": "i0", "gammainc": "igamma", "gammaincc": "igammac",
            "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "expit": "sigmoid",
            "exp2": "exp2", "expm1": "expm1", "log1p": "log1p", "logit": "logit",
            "sinc": "sinc", "xlogy": "xlogy", "round": "round", "logsumexp": "logsumexp",
            "softmax": "softmax", "log_softmax": "log_softmax"}

__all__ = ["i0e", "i1", "i1e"]   # and those of _SAME_AS the door has (populate)


def _with_out(name, fn, args, out):
    """torch's out= for a special-only function (as _binding's call_out)."""
    if not isinstance(out, _CoreTensor):
        raise ArgTypeError(f"special_{name}(): argument 'out' must be Tensor, not "
                           f"{type(out).__name__}")
    if _gm.STATE.enabled and (out.requires_grad or any(
            isinstance(a, _CoreTensor) and a.requires_grad for a in args)):
        raise RuntimeError(f"special_{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    _write_out(f"special_{name}", (out,), (fn(*args),))
    return out


def _unary(name, doc):
    core = _CORE[name]

    def fn(input, *, out=None):
        if out is None:
            return core(input)
        return _with_out(name, core, (input,), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = doc
    return fn


i0e = _unary("i0e", "torch.special.i0e: exp(-|x|) * i0(x), elementwise.")
i1 = _unary("i1", "torch.special.i1: the modified Bessel function of the first kind, order 1.")
i1e = _unary("i1e", "torch.special.i1e: exp(-|x|) * i1(x), elementwise.")


# the torch.special-only ops (Note [torch.special only ops])
def _op_unary(name, doc):
    def fn(input, *, out=None):
        core = _OPS[name].call
        if out is None:
            return core(input)
        return _with_out(name, core, (input,), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = doc
    return fn


def _op_binary(name, first, second, doc):
    def fn(*args, out=None, **kwargs):
        a, b = _two(name, first, second, args, kwargs)
        core = _OPS[name].call
        if out is None:
            return core(a, b)
        return _with_out(name, core, (a, b), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = doc
    return fn


def _two(name, first, second, args, kwargs):
    """(first, second) from torch's positional or keyword forms."""
    if len(args) > 2:
        raise ArgTypeError(f"special_{name}() takes 2 positional arguments but {len(args)} "
                           "were given")
    vals = dict(zip((first, second), args))
    for k, v in kwargs.items():
        if k not in (first, second) or k in vals:
            raise ArgTypeError(f"special_{name}() got an unexpected keyword argument '{k}'")
        vals[k] = v
    missing = [n for n in (first, second) if n not in vals]
    if missing:
        raise ArgTypeError(f"special_{name}() missing required argument '{missing[0]}'")
    return vals[first], vals[second]


ndtr = _op_unary("ndtr", "torch.special.ndtr: the standard normal CDF, elementwise.")
log_ndtr = _op_unary("log_ndtr", "torch.special.log_ndtr: log of the standard normal CDF.")
erfcx = _op_unary("erfcx", "torch.special.erfcx: exp(x^2) * erfc(x), elementwise.")
entr = _op_unary("entr", "torch.special.entr: -x * log(x) (0 at 0, -inf below 0).")
ndtri = _op_unary("ndtri", "torch.special.ndtri: the standard normal quantile (inverse of ndtr).")
xlog1py = _op_binary("xlog1py", "input", "other",
                     "torch.special.xlog1py: input * log1p(other), 0 where input is 0.")
zeta = _op_binary("zeta", "input", "other",
                  "torch.special.zeta: the Hurwitz zeta function sum_k (other + k)^-input.")
__all__ += ["ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "xlog1py", "zeta"]


def populate(door):
    """Fills in the names that are the door's own top-level functions (`door`: oar.torch's
    globals, after Note [Torch signatures] bound them)."""
    g = globals()
    for name, target in _SAME_AS.items():
        if target in door:
            g[name] = door[target]
            __all__.append(name)
    __all__.sort()


def _polygamma(n, input):
    """torch.polygamma(n, input): the n-th derivative of digamma (the core's, like Paddle's,
    takes (x, n))."""
    return _CORE["polygamma"](input, n)


_polygamma.__name__ = _polygamma.__qualname__ = "polygamma"
_polygamma.__module__ = "oar.torch"
