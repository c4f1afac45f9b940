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
from .._tensor import Tensor as Tensor_  # noqa: E402

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
    paddle.grad returns a list), each of its input's door (Note [Result class]). An input
    or output may be a GradientEdge (torch.autograd.graph.get_gradient_edge)."""
    if _has_edge(inputs) or _has_edge(outputs):
        return _grad_edges(outputs, inputs, grad_outputs, retain_graph, create_graph,
                           bool(allow_unused), materialize_grads)
    res = _core_grad(outputs, inputs, grad_outputs=grad_outputs, retain_graph=retain_graph,
                     create_graph=create_graph, only_inputs=only_inputs,
                     allow_unused=bool(allow_unused), is_grads_batched=is_grads_batched,
                     materialize_grads=materialize_grads)
    ins = (inputs,) if not isinstance(inputs, (list, tuple)) else tuple(inputs)
    for r, t in zip(res, ins):
        if r is not None and r.__class__ is not t._result_class:
            r.__class__ = t._result_class
    return tuple(res)


def _has_edge(x):
    """x is a GradientEdge (itself a tuple) or a sequence holding one."""
    GE = graph.GradientEdge
    return isinstance(x, GE) or (isinstance(x, (list, tuple))
                                 and any(isinstance(e, GE) for e in x))


def _grad_edges(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                materialize_grads):
    """torch.autograd.grad where some inputs or outputs are GradientEdges: the engine takes
    (node, output_nr) pairs, which is what an edge is, so the run is the core grad's."""
    from ... import _xp
    from ...autograd import engine
    from ...autograd import functional as core
    from ...tensor import Tensor as T
    GE = graph.GradientEdge
    outs = [outputs] if isinstance(outputs, (T, GE)) else list(outputs)
    ins = [inputs] if isinstance(inputs, (T, GE)) else list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    for what, seq in (("outputs", outs), ("inputs", ins)):
        for i, t in enumerate(seq):
            if not isinstance(t, (T, GE)):
                raise TypeError(f"grad(): all {what} have to be Tensors or GradientEdges, but "
                                f"got {type(t).__name__} at position {i}")
    grads = core._grads_for(grad_outputs, len(outs), "grad()", T)
    roots, root_grads = [], []
    for i, (t, g) in enumerate(zip(outs, grads)):
        if isinstance(t, GE):
            if g is None:
                raise RuntimeError(f"grad(): output {i} is a GradientEdge: its gradient must "
                                   "be given in grad_outputs (no implicit one)")
            roots.append(t._edge())
            root_grads.append(g)
            continue
        if t._edge() is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if g is None and t._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        roots.append(t._edge())
        root_grads.append(core._root_grad(t, g))
    for i, t in enumerate(ins):
        if isinstance(t, T) and not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    res = engine.run_backward(roots, root_grads, retain_graph=retain_graph,
                              create_graph=create_graph, inputs=ins, allow_unused=True)
    out = []
    for i, (t, r) in enumerate(zip(ins, res)):
        if r is None:
            if materialize_grads and isinstance(t, GE):
                raise RuntimeError("materialize_grads cannot be used when the given input is "
                                   "a GradientEdge")
            if not (allow_unused or materialize_grads):
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not "
                                   "have been used in the graph. Set allow_unused=True if this "
                                   "is the desired behavior.")
            if materialize_grads:
                r = t._result_class._wrap(_xp.array_module(t._data).zeros(t._data.shape, t._data.dtype))
            out.append(r)
            continue
        if isinstance(t, T) and r._data.dtype != t._data.dtype:
            r = r.astype(t.dtype)
        if not create_graph:
            r = T._wrap(r._data.copy(order="K"))
        cls = t._result_class if isinstance(t, T) else Tensor_
        if r.__class__ is not cls:
            r.__class__ = cls
        out.append(r)
    return tuple(out)


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
