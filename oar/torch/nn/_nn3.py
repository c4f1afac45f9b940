"""torch.nn.functional spellings of the third breadth pass over the cores in oar/nn/_nn3.py."""
from __future__ import annotations

from ...nn import _nn3


def bilinear(input1, input2, weight, bias=None):
    """torch.nn.functional.bilinear: y = x1^T A x2 + b, weight [out, in1, in2], inputs (*, in)."""
    return _nn3.bilinear_core(input1, input2, weight, bias, "bilinear")


bilinear.__module__ = "oar.torch.nn.functional"


def pdist(input, p=2):
    """torch.nn.functional.pdist: the p-norm distances between the rows of input [N, M]
    (Note [pdist at zero])."""
    return _nn3.pdist_core(input, p, "pdist")


pdist.__module__ = "oar.torch.nn.functional"
