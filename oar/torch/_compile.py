"""torch.compile for the PyTorch door, mapped onto oar.jit's capture and replay."""

# Note [torch.compile modes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# An nn.Module (any mode) becomes an OptimizedModule, and a function in the default mode a
# CompiledForward: the forward is captured and replayed, and its outputs carry one node
# whose backward is a replay too (Note [Compiled forward]) -- PyTorch's most common use,
# `loss_fn(model(x), y).backward()` outside the compiled code. A function in
# mode="reduce-overhead" or the "max-autotune" modes (PyTorch: CUDA graphs, replaying
# captured work) is captured whole by oar.jit.capture (Note [Capture and replay]): its
# backward and optimizer step run inside it. Either way, what cannot be captured is a graph
# break, as in PyTorch -- a warning, and that guard key runs eagerly -- unless
# fullgraph=True, which raises CaptureError as PyTorch raises on a graph break under
# fullgraph. disable=True: the callable itself, eager.
from __future__ import annotations

from .nn import Module

_REPLAY_MODES = ("reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
_MODES = (None, "default") + _REPLAY_MODES
def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """torch.compile: an nn.Module or a function (default mode) is captured and replayed
    with a replayed backward for the backward that runs outside it; with
    mode="reduce-overhead" (or "max-autotune") a function is a whole step, captured once
    and replayed as flat NumPy calls. What cannot be captured runs eagerly with a warning,
    or raises under fullgraph=True. Works as @compile and @compile(mode=...).
    Note [torch.compile modes]."""
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           f"{', '.join(m for m in _MODES if m)}")
    if model is None:
        return lambda fn: _compiled(fn, fullgraph, mode, disable)
    return _compiled(model, fullgraph, mode, disable)


def _compiled(model, fullgraph, mode, disable):
    if not callable(model):
        raise TypeError(f"torch.compile: expected a callable (a function or nn.Module), got "
                        f"{type(model).__name__}")
    if disable:
        return model
    on_error = "raise" if fullgraph else "eager"
    from ..nn import Layer
    if isinstance(model, Layer):
        return OptimizedModule(model, on_error)
    if mode in _REPLAY_MODES:
        from .. import jit
        return jit.capture(model, on_error=on_error)
    from .._capture.compiled import CompiledForward
    return CompiledForward(model, on_error=on_error)


class OptimizedModule(Module):
    """What torch.compile returns for an nn.Module: the module as `_orig_mod` (its state_dict
    keys carry that prefix, as PyTorch's do; other attributes are the module's), called
    through a CompiledForward (Note [Compiled forward])."""

    def __init__(self, mod, on_error="eager"):
        super().__init__()
        self._orig_mod = mod
        from .._capture.compiled import CompiledForward
        object.__setattr__(self, "_compiled", CompiledForward(mod, on_error=on_error))

    def forward(self, *args, **kwargs):
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            mod = self.__dict__.get("_sub_layers", {}).get("_orig_mod")
            if mod is None:
                raise
            return getattr(mod, name)
