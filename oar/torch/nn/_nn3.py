"""torch.nn.functional spellings of the third breadth pass over the cores in oar/nn/_nn3.py."""
from __future__ import annotations

from ...autograd.errors import ArgTypeError
from ...nn import _nn3
from . import init
from .modules import Module
from .parameter import Parameter


def bilinear(input1, input2, weight, bias=None):
    """torch.nn.functional.bilinear: y = x1^T A x2 + b, weight [out, in1, in2], inputs (*, in)."""
    return _nn3.bilinear_core(input1, input2, weight, bias, "bilinear")


bilinear.__module__ = "oar.torch.nn.functional"


def pdist(input, p=2):
    """torch.nn.functional.pdist: the p-norm distances between the rows of input [N, M]
    (Note [pdist at zero])."""
    return _nn3.pdist_core(input, p, "pdist")


pdist.__module__ = "oar.torch.nn.functional"


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm: input / sqrt(mean(input ** 2 over the trailing
    normalized_shape dims) + eps) * weight; eps None: torch.finfo(input.dtype).eps."""
    if not isinstance(normalized_shape, (list, tuple)):    # torch's binding takes no int here
        raise ArgTypeError(f"rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                           f"of ints, not {type(normalized_shape).__name__}")
    return _nn3.rms_norm_core(input, normalized_shape, weight, eps, "rms_norm")


rms_norm.__module__ = "oar.torch.nn.functional"


class RMSNorm(Module):
    """torch.nn.RMSNorm: root-mean-square normalisation over the trailing normalized_shape
    dims, an elementwise weight (ones) when elementwise_affine."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = ns, eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            from ... import torch as _t
            self.weight = Parameter(_t.empty(ns, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        """The weight to ones."""
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        """F.rms_norm(x, normalized_shape, weight, eps)."""
        return rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        """PyTorch's: the shape, eps and elementwise_affine."""
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """torch.nn.functional.gumbel_softmax: a sample of softmax((logits + Gumbel noise) / tau)
    along dim from torch's stream; hard: the one-hot of its argmax with the soft sample's
    gradient passed straight through (Note [Gumbel softmax per door])."""
    if eps != 1e-10:
        import warnings
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    return _nn3.gumbel_softmax_core(logits, tau, hard, dim, "gumbel_softmax", True)


gumbel_softmax.__module__ = "oar.torch.nn.functional"
