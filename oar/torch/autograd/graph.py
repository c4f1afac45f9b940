"""torch.autograd.graph: the autograd graph's node class and the saved-tensor hooks
(saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks,
allow_mutation_on_saved_tensors): the core's, which follow PyTorch 2.13 (Note [Saved tensor
hooks])."""
from ...autograd.graph import (Node, allow_mutation_on_saved_tensors,  # noqa: F401
                               disable_saved_tensors_hooks, increment_version, save_on_cpu,
                               saved_tensors_hooks)

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "allow_mutation_on_saved_tensors", "increment_version"]
