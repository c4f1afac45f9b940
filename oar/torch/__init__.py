"""The PyTorch door: `import oar.torch as torch` runs PyTorch programs on oar's core.

Functions and methods keep PyTorch 2.13's names, keywords and meanings; tensors made here are
`oar.torch.Tensor` (Note [Result class]), so their methods mean what PyTorch means even when
they pass through shared code.
"""
from __future__ import annotations

from ._tensor import Parameter, Tensor  # noqa: F401
