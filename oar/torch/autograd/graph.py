"""torch.autograd.graph: the autograd graph's node class, gradient edges
(GradientEdge, get_gradient_edge) and the saved-tensor hooks (saved_tensors_hooks,
save_on_cpu, disable_saved_tensors_hooks, allow_mutation_on_saved_tensors): the core's,
which follow PyTorch 2.13 (Note [Saved tensor hooks])."""
from typing import NamedTuple, Optional

from ...autograd.graph import (Node, allow_mutation_on_saved_tensors,  # noqa: F401
                               disable_saved_tensors_hooks, increment_version, save_on_cpu,
                               saved_tensors_hooks)

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "allow_mutation_on_saved_tensors",
           "increment_version"]


class GradientEdge(NamedTuple):
    """Where a gradient enters the graph: output `output_nr` of `node` (a tensor's grad_fn,
    or its AccumulateGrad for a leaf). torch.autograd.grad takes one in place of a tensor:
    the edge keeps naming the node it was taken from, so an edge taken before an in-place
    op gives the gradient of the value before that op."""
    node: Node
    output_nr: int
    ownership_token: Optional[Node] = None   # torch's field; oar's edge owns its node

    def _edge(self):
        """(node, output_nr): the engine's form of an edge (as Tensor._edge)."""
        return (self.node, self.output_nr)


def get_gradient_edge(tensor):
    """The gradient edge of `tensor` now: autograd.grad(loss, get_gradient_edge(t)) equals
    autograd.grad(loss, t) while t is not modified in place."""
    edge = tensor._edge() if tensor.requires_grad else None
    if edge is None:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    return GradientEdge(edge[0], edge[1])
