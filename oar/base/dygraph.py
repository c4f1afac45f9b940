"""paddle.base.dygraph: `guard()` (enter dynamic mode for a `with` block) and `enabled()`.

oar is always in dynamic mode (Note [No static graph]), so `guard` only checks its place the way
`paddle.set_device` does (a GPU place is refused, Note [Only the CPU]) and changes nothing."""
from __future__ import annotations

import contextlib

__all__ = ["guard", "enabled"]


@contextlib.contextmanager
def guard(place=None):
    """Runs the `with` block in dynamic mode: oar's only mode, so nothing changes. `place` must
    name the CPU (None, 'cpu' or CPUPlace()); another device raises before the block runs."""
    if place is not None:
        from ..device import set_device
        from ..place import Place
        if not (isinstance(place, Place) or isinstance(place, str)):
            from ..autograd.errors import ArgTypeError
            raise ArgTypeError(f"paddle.base.dygraph.guard(): place must be a Place or a "
                               f"string such as 'cpu', got {type(place).__name__}")
        # validates only: the current device is the CPU before and after
        set_device(place)
    yield


def enabled():
    """True: oar always runs in dynamic (eager) mode."""
    return True
