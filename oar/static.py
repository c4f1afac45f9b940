"""paddle.static: only InputSpec, the description of a network input that paddle.Model and
paddle.summary take. oar has no static graph (Program, Executor, data, program_guard ...):
every other name of this module raises StaticGraphError, saying so in one line."""
# Note [No static graph]
# oar is eager only. paddle.enable_static(), paddle.static.<anything but InputSpec> and
# paddle.jit.save / load raise StaticGraphError (a NotImplementedError); a missing name of
# this module raises its subclass that is also an AttributeError, so hasattr() and
# `from paddle.static import *` stay usable; Program and program_guard exist as names that refuse
# when used, so a module importing them for its static tests still runs its dynamic ones. Code that only
# marks functions for compilation runs unchanged: paddle.jit.to_static returns the function
# or layer itself, which computes the same results eagerly; paddle.disable_static() is a
# no-op and paddle.in_dynamic_mode() is True.
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .tensor import Tensor

__all__ = ["InputSpec", "Program", "StaticGraphError", "program_guard"]


class StaticGraphError(NotImplementedError):
    """An API of Paddle's static graph, which oar does not have (Note [No static graph])."""


class MissingStaticName(StaticGraphError, AttributeError):
    """A name of paddle.static that oar does not have (an AttributeError too, for hasattr)."""


def no_static_graph(what, fix="write the program in dynamic (eager) mode, oar's only mode",
                    cls=StaticGraphError):
    """The StaticGraphError for `what`."""
    return cls(f"{what}: oar has no static graph (it runs eagerly, like Paddle's "
                            f"dynamic mode). Fix: {fix}")


class InputSpec:
    """The shape (None or -1 for a free dimension), dtype and name of a network input."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = self._verify(shape)
        if dtype is not None and not isinstance(dtype, _dt.DType):
            dtype = _dt.as_dtype(np.dtype(dtype).name if isinstance(dtype, np.dtype) else dtype)
        self.dtype = dtype
        self.name = name
        self.stop_gradient = stop_gradient

    @staticmethod
    def _verify(shape):
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"Type of `shape` in InputSpec should be one of (tuple, list), but "
                            f"received {type(shape).__name__}.")
        out = []
        for i, e in enumerate(shape):
            if e is not None and (isinstance(e, bool) or not isinstance(e, (int, np.integer))):
                raise ValueError(f"shape[{i}] should be an `int`, but received "
                                 f"`{type(e).__name__}`:{e}.")
            out.append(-1 if e is None or e < -1 else int(e))
        return tuple(out)

    def __repr__(self):
        return (f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype}, "
                f"name={self.name}, stop_gradient={self.stop_gradient})")

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The InputSpec of a tensor's shape and dtype."""
        if not isinstance(tensor, Tensor):
            raise ValueError(f"Input `tensor` should be a Tensor, but received "
                             f"{type(tensor).__name__}.")
        return cls(list(tensor.shape), tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        """The InputSpec of a NumPy array's shape and dtype."""
        return cls(list(ndarray.shape), ndarray.dtype, name)

    def batch(self, batch_size):
        """Prepends a batch dimension (in place; returns self)."""
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"Length of batch_size: {batch_size} shall be 1, but received "
                                 f"{len(batch_size)}.")
            batch_size = batch_size[0]
        elif isinstance(batch_size, bool) or not isinstance(batch_size, int):
            raise TypeError(f"type(batch_size) shall be `int`, but received "
                            f"{type(batch_size).__name__}.")
        self.shape = (batch_size, *self.shape)
        return self

    def unbatch(self):
        """Drops the first dimension (in place; returns self)."""
        if len(self.shape) == 0:
            raise ValueError("Not support to unbatch a InputSpec when len(shape) == 0.")
        self.shape = self._verify(self.shape[1:])
        return self

    def __hash__(self):
        return hash((tuple(self.shape), self.dtype, self.stop_gradient))

    def __eq__(self, other):
        return type(self) is type(other) and all(
            getattr(self, a) == getattr(other, a)
            for a in ("shape", "dtype", "name", "stop_gradient"))

    def __ne__(self, other):
        return not self == other


class Program:
    """Refused when made (Note [No static graph]). The name exists so that a module which
    imports it for its static-graph tests (`from paddle.static import Program, program_guard`)
    still imports, and its dynamic-mode tests run."""

    def __init__(self, *args, **kwargs):
        raise no_static_graph("paddle.static.Program()")


def program_guard(main_program=None, startup_program=None):
    """Refused when called, as Program (Note [No static graph])."""
    raise no_static_graph("paddle.static.program_guard()")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise no_static_graph(f"paddle.static.{name}", cls=MissingStaticName)
