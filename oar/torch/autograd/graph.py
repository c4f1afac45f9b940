"""torch.autograd.graph: the autograd graph's node class (saved-tensor hooks are a later
issue)."""
from ...autograd.node import Node  # noqa: F401

__all__ = ["Node"]
