"""paddle.jit: to_static runs the function eagerly (the same results; Note [No static
graph]); saving or loading a compiled inference model is refused."""
from __future__ import annotations

from .static import no_static_graph

__all__ = ["to_static", "not_to_static", "ignore_module", "enable_to_static", "save", "load"]


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
