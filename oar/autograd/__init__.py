from .errors import (GraphReleasedError, InplaceLeafError, InplaceViewError,  # noqa: F401
                     SavedTensorModifiedError)
from .function import Function, PyLayer, PyLayerContext  # noqa: F401
from .functional import backward, grad  # noqa: F401
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .gradcheck import gradcheck  # noqa: F401
from . import graph  # noqa: F401,E402
from .graph import saved_tensors_hooks  # noqa: F401,E402  (paddle.autograd.saved_tensors_hooks)
