"""torch.nn.parameter: Parameter and Buffer."""
from .._tensor import Parameter  # noqa: F401
from .modules import Buffer  # noqa: F401
