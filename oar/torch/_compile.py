"""torch.compile for the PyTorch door, mapped onto oar.jit's capture and replay."""

# Note [torch.compile modes]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# mode="reduce-overhead" (PyTorch: CUDA graphs, replaying captured work) and the
# "max-autotune" modes wrap a function in oar.jit.capture (Note [Capture and replay]) with
# on_error="eager": what cannot be captured is a graph break, as in PyTorch -- a warning,
# and that guard key runs eagerly -- unless fullgraph=True, which raises CaptureError as
# PyTorch raises on a graph break under fullgraph. A captured step must do its backward
# and optimizer step inside the function (the replay returns outputs without history).
# mode=None / "default" runs eagerly (with a one-time warning): a default-mode compiled
# function usually returns a loss whose backward runs outside, which a replay cannot give.
# An nn.Module is returned unchanged, also with the warning. disable=True: eager, silently.
from __future__ import annotations

import warnings

_REPLAY_MODES = ("reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
_MODES = (None, "default") + _REPLAY_MODES
_warned: set = set()


def _warn_once(what):
    if what not in _warned:
        _warned.add(what)
        warnings.warn(what, UserWarning, stacklevel=3)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """torch.compile: with mode="reduce-overhead" (or "max-autotune"), a function is
    captured once and replayed as flat NumPy calls (oar.jit.capture; what cannot be
    captured runs eagerly with a warning, or raises under fullgraph=True); other modes and
    nn.Modules run eagerly (a one-time warning). Works as @compile and @compile(mode=...).
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
    from ..nn import Layer
    if isinstance(model, Layer):
        _warn_once("oar.torch.compile: an nn.Module runs eagerly in oar (compile a whole "
                   "training-step function with mode='reduce-overhead' to replay it)")
        return model
    if mode not in _REPLAY_MODES:
        _warn_once(f"oar.torch.compile(mode={mode!r}) runs the function eagerly; "
                   "mode='reduce-overhead' captures and replays a training step")
        return model
    from .. import jit
    return jit.capture(model, on_error="raise" if fullgraph else "eager")
