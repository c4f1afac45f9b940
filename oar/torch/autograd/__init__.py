"""torch.autograd: the core's autograd under PyTorch's names (grad, backward, Function,
gradcheck, gradgradcheck, grad modes, detect_anomaly); torch.autograd.graph and
torch.autograd.functional as submodules."""
from __future__ import annotations

import importlib as _importlib

from ...autograd import function as _function
from ...autograd import grad_mode as _grad_mode
from ...autograd.function import Function  # noqa: F401
from ...autograd.functional import backward, grad  # noqa: F401
from ...autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                                   no_grad, set_grad_enabled)
from . import functional, graph  # noqa: F401

_gradcheck = _importlib.import_module("...autograd.gradcheck", __package__)  # the module
gradcheck = _gradcheck.gradcheck
# re-exported where the core defines them (another part of the issue adds some of them)
for _name, _mod in (("gradgradcheck", _gradcheck), ("detect_anomaly", _grad_mode),
                    ("set_detect_anomaly", _grad_mode), ("is_anomaly_enabled", _grad_mode),
                    ("is_anomaly_check_nan_enabled", _grad_mode), ("FunctionCtx", _function),
                    ("is_inference_mode_enabled", _grad_mode)):
    if hasattr(_mod, _name):
        globals()[_name] = getattr(_mod, _name)
del _name, _mod


def Variable(data, requires_grad=False, volatile=False):   # noqa: N802  (PyTorch's name)
    """Deprecated torch.autograd.Variable: the tensor itself (requires_grad set if asked)."""
    if requires_grad:
        data.requires_grad_(True)
    return data


