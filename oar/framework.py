"""paddle.framework: the names of Paddle's `paddle.framework` module that oar has (ParamAttr,
the places, no_grad, seed, save/load, default dtype, ...), the same objects as `oar.<name>`.
Paddle programs write `paddle.framework.ParamAttr(...)`."""
from __future__ import annotations

_NAMES = ("CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "ParamAttr", "XPUPlace", "disable_static",
          "dtype", "enable_static", "get_default_dtype", "grad", "in_dynamic_mode", "load",
          "no_grad", "save", "seed", "set_default_dtype")

__all__ = list(_NAMES)


def __getattr__(name):
    # read from the oar package at use time: oar/__init__.py imports this module
    if name in _NAMES:
        import oar
        return getattr(oar, name)
    raise AttributeError(f"module 'oar.framework' has no attribute {name!r} (oar's "
                         f"paddle.framework has {', '.join(_NAMES)})")


def __dir__():
    return sorted(set(globals()) | set(_NAMES))
