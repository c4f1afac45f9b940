"""torch.autograd: the core's autograd under PyTorch's names (grad, backward, Function,
gradcheck, gradgradcheck, grad modes, detect_anomaly); torch.autograd.graph and
torch.autograd.functional as submodules."""
from __future__ import annotations

import importlib as _importlib

from ...autograd import function as _function
from ...autograd import grad_mode as _grad_mode
from ...autograd.function import Function  # noqa: F401
from ...autograd.functional import backward  # noqa: F401
from ...autograd.functional import grad as _core_grad
from ...autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                                   no_grad, set_grad_enabled)
from . import function, functional, graph  # noqa: F401

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




def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """torch.autograd.grad: the gradients of outputs w.r.t. inputs as a tuple (Paddle's
    paddle.grad returns a list), each of its input's door (Note [Result class])."""
    res = _core_grad(outputs, inputs, grad_outputs=grad_outputs, retain_graph=retain_graph,
                     create_graph=create_graph, only_inputs=only_inputs,
                     allow_unused=bool(allow_unused), is_grads_batched=is_grads_batched,
                     materialize_grads=materialize_grads)
    ins = (inputs,) if not isinstance(inputs, (list, tuple)) else tuple(inputs)
    for r, t in zip(res, ins):
        if r is not None and r.__class__ is not t._result_class:
            r.__class__ = t._result_class
    return tuple(res)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,   # noqa: F811
             grad_variables=None, inputs=None):
    """torch.autograd.backward: the gradients of `tensors` accumulated into the leaves' .grad,
    or only into `inputs`' .grad (leaves or not) when given. As PyTorch: every tensor must
    require grad, and one without a gradient must hold one element (no implicit ones, unlike
    the Paddle door's oar.autograd.backward)."""
    from ...autograd import functional as core
    from ...tensor import Tensor as T
    if grad_variables is not None:   # PyTorch's deprecated spelling
        import warnings
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments "
                               "both passed to backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    tensors = [tensors] if isinstance(tensors, T) else list(tensors)
    if grad_tensors is None or isinstance(grad_tensors, T):
        grads = [grad_tensors] + [None] * (len(tensors) - 1) if tensors else []
    else:
        grads = list(grad_tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"grad_tensors should have the same length as tensors: got "
                           f"{len(tensors)} tensors and {len(grads)} gradients")
    if inputs is not None and not isinstance(inputs, T) and len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if not isinstance(t, T):
            raise TypeError(f"backward(): all tensors have to be Tensors, but got "
                            f"{type(t).__name__} at position {i}")
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if g is None and t._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        import warnings
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.", UserWarning, stacklevel=2)
    core.backward(tensors, grads, retain_graph=retain_graph, create_graph=create_graph,
                  inputs=inputs)
