"""Error classes. Paddle raises ValueError for the leaf rule, PyTorch RuntimeError: ours is both."""


class InplaceLeafError(ValueError, RuntimeError):
    """An in-place op on a leaf (or a view of a leaf) that needs a gradient."""


class InplaceViewError(RuntimeError):
    """An in-place op on a view whose autograd history cannot be rewritten."""


class SavedTensorModifiedError(RuntimeError):
    """A tensor saved for backward was modified in place before backward ran."""


class GraphReleasedError(RuntimeError):
    """Backward through a graph whose saved tensors were already freed."""


# Note [Argument layer] (ops/args.py): each class derives from the exception PyTorch raises
# for the mistake and from the one Paddle raises, so code written for either catches it.
class AxisError(IndexError, ValueError):
    """An axis or an index out of range (PyTorch IndexError, Paddle ValueError)."""


class ArgTypeError(TypeError, RuntimeError):
    """An argument of the wrong type or dtype (Paddle TypeError, PyTorch TypeError or
    RuntimeError)."""


class ArgValueError(ValueError, RuntimeError):
    """An argument with a value the op cannot accept (Paddle ValueError, PyTorch
    RuntimeError)."""


class OperandDtypeError(ArgTypeError, ValueError):
    """Operands whose dtypes must match and do not (a float64 input to a float32 Linear or
    Conv, matmul of float64 and float32): PyTorch RuntimeError, Paddle ValueError (its
    kernels' InvalidArgument), and the TypeError older oar code raised."""


class OperandTypeError(ArgTypeError, ValueError):
    """A list or tuple where an op takes a tensor or a number: PyTorch raises TypeError,
    Paddle ValueError."""


class DtypeNotImplementedError(NotImplementedError, ArgTypeError):
    """An op that has no kernel for an operand's dtype (`bool_tensor // bool_tensor`, frac of
    an int tensor): PyTorch raises NotImplementedError ("... not implemented for 'Bool'"),
    Paddle a RuntimeError (a missing kernel) or a TypeError; NotImplementedError is a
    RuntimeError, and ArgTypeError keeps the TypeError older oar code raised."""
