"""torch.utils.checkpoint: activation checkpointing with PyTorch 2.13's signature and its
use_reentrant rules, on the core's non-reentrant implementation (Note [Checkpoint])."""
from __future__ import annotations

import warnings

from ...autograd import grad_mode as _grad_mode
from ...tensor import Tensor as _Tensor
from ...utils import checkpoint as _core
from ...utils.checkpoint import CheckpointError, noop_context_fn  # noqa: F401

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn"]

# Note [use_reentrant]
# PyTorch 2.13 still warns (UserWarning) when use_reentrant is not passed and then means
# use_reentrant=True. Here both values run the core's non-reentrant checkpoint (the
# reentrant variant's own machinery, a nested backward, does not exist in oar), keeping
# what a user of use_reentrant=True sees at the call: keyword arguments for the function,
# context_fn and debug are refused with PyTorch's ValueError, and when no tensor input
# requires grad PyTorch's warning is given and the output carries no gradient (the
# reentrant Function has no input to send one to). The differences left: with
# use_reentrant=True, parameters inside the function still get gradients through the
# non-reentrant graph, and torch.autograd.grad through it works (PyTorch refuses both).

_WARN = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
         "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
         "exception. use_reentrant=False is recommended, but if you need to preserve the "
         "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
         "details on the differences between the two variants.")
_WARN_SEQ = ("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter "
             "should be passed explicitly. In version 2.9 we will raise an exception if "
             "use_reentrant is not passed. use_reentrant=False is recommended, but if you "
             "need to preserve the current default behavior, you can pass use_reentrant=True. "
             "Refer to docs for more details on the differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, **kwargs):
    """PyTorch's torch.utils.checkpoint.checkpoint (Note [use_reentrant])."""
    if use_reentrant is None:
        warnings.warn(_WARN, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if _grad_mode.is_grad_enabled() and not any(
                isinstance(a, _Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
            with _grad_mode.no_grad():
                return function(*args)
    return _core.checkpoint(function, *args, use_reentrant=use_reentrant,
                            context_fn=context_fn, determinism_check=determinism_check,
                            debug=debug, preserve_rng_state=preserve, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """PyTorch's torch.utils.checkpoint.checkpoint_sequential (Note [use_reentrant])."""
    if use_reentrant is None:
        warnings.warn(_WARN_SEQ, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(_core._segment(functions, start, end), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return _core._segment(functions, end + 1, len(functions) - 1)(input)
