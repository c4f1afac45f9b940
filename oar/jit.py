"""paddle.jit: to_static runs the function eagerly (the same results; Note [No static
graph]); saving or loading a compiled inference model is refused.

oar's own capture and replay lives here too (Note [Capture and replay]):
`oar.jit.capture(fn)`, or the module itself as a decorator, `@oar.jit` /
`@oar.jit(replay=False)`: warm-up and capture calls run eagerly, later calls replay the
recorded NumPy kernels into planned buffers."""
from __future__ import annotations

import sys as _sys
import types as _types

from .static import no_static_graph

__all__ = ["to_static", "not_to_static", "ignore_module", "enable_to_static", "save", "load",
           "capture", "CaptureError"]


def capture(fn=None, *, replay=True, cache_size=8, warmup=1, on_error="raise"):
    """Capture a step and replay it at NumPy speed (Note [Capture and replay]): the first
    `warmup` calls per guard key run eagerly, the next two are recorded and compared, and
    later calls replay the recorded kernels into planned buffers (bit-identical to eager).
    Guards: argument shapes, dtypes, strides, requires_grad, grad mode, non-tensor
    arguments, and the arrays of the parameters and state the step touches; a mismatch
    records again (at most `cache_size` programs are kept). replay=False always runs
    eagerly. Reading tensor values into Python while capturing raises CaptureError
    (on_error="eager": a warning, and that guard key runs eagerly from then on)."""
    from ._capture import capture as _capture
    return _capture(fn, replay=replay, cache_size=cache_size, warmup=warmup,
                    on_error=on_error)


def __getattr__(name):
    if name == "CaptureError":
        from ._capture import CaptureError
        return CaptureError
    raise AttributeError(f"module 'oar.jit' has no attribute {name!r}")


class _JitModule(_types.ModuleType):
    """oar.jit is callable: `@oar.jit` is `@oar.jit.capture`."""

    def __call__(self, fn=None, **kwargs):
        return capture(fn, **kwargs)


_sys.modules[__name__].__class__ = _JitModule


def to_static(function=None, input_spec=None, build_strategy=None, backend=None, **kwargs):
    """Returns the function (or Layer) unchanged: oar has no static graph, and running the
    function eagerly computes the same results. Works as @to_static and @to_static(...)."""
    if function is None:
        return lambda fn: fn
    return function


def not_to_static(function=None):
    """Returns the function unchanged (everything runs eagerly in oar)."""
    return function if function is not None else (lambda fn: fn)


def ignore_module(modules):
    """Nothing to do: oar converts no module to a static graph."""
    return None


def enable_to_static(enable_to_static_bool):
    """Accepted and ignored: to_static never converts anything in oar (it runs eagerly)."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"enable_to_static: the argument must be a bool, got "
                        f"{type(enable_to_static_bool).__name__}")


def save(layer, path, input_spec=None, **configs):
    """Refused: paddle.jit.save writes a static-graph inference model, which oar cannot make."""
    raise no_static_graph("paddle.jit.save", "save the parameters with "
                          "paddle.save(layer.state_dict(), path + '.pdparams')")


def load(path, **configs):
    """Refused: paddle.jit.load reads a static-graph inference model, which oar cannot run."""
    raise no_static_graph("paddle.jit.load", "rebuild the Layer in Python and load its "
                          "parameters with layer.set_state_dict(paddle.load(path))")
