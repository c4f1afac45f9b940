"""paddle.base.core: the build queries (is_compiled_with_cuda ...), which programs and Paddle's
tests read to choose their places: the same functions as paddle.device's (Note [Only the CPU])."""
from __future__ import annotations

from ..device import (is_compiled_with_cuda, is_compiled_with_rocm,  # noqa: F401
                      is_compiled_with_xpu)

__all__ = ["is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"module 'oar.base.core' has no attribute {name!r}: oar's "
                         f"paddle.base.core has only {', '.join(__all__)} (oar has no C++ core "
                         "of Paddle's kind)")
