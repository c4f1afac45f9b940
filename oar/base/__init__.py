"""paddle.base: the few names of Paddle's `paddle.base` (formerly `paddle.fluid`) package that an
eager program uses -- `paddle.base.dygraph.guard()` above all, which Paddle's own unit tests wrap
around dynamic-mode code, `paddle.base.core.is_compiled_with_cuda()` and the places. oar runs
eagerly only (Note [No static graph]), so entering dynamic mode is nothing to do; any other name
raises an AttributeError that says what oar has."""
from __future__ import annotations

from ..place import CPUPlace, CUDAPinnedPlace, CUDAPlace, XPUPlace  # noqa: F401
from . import core, dygraph  # noqa: F401

__all__ = ["CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "XPUPlace", "core", "dygraph"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"module 'oar.base' has no attribute {name!r}: oar's paddle.base has "
                         f"{', '.join(__all__)}; the static-graph internals of Paddle's "
                         "paddle.base do not exist in oar (Note [No static graph])")
