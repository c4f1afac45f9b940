"""torch.autograd.function: Function (the core's PyLayer), FunctionCtx, InplaceFunction and
once_differentiable under PyTorch's names."""
import functools

from ...autograd import grad_mode as _grad_mode
from ...autograd.function import Function, PyLayerContext as FunctionCtx  # noqa: F401

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]


class InplaceFunction(Function):
    """PyTorch's InplaceFunction: a Function that remembers whether it runs in place."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


def once_differentiable(fn):
    """Runs a Function's backward with grad disabled (its result is not differentiable
    again), as PyTorch's decorator does."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _grad_mode.no_grad():
            return fn(ctx, *args)
    return wrapper
