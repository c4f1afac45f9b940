"""backward() and oar.grad()."""
from __future__ import annotations

import numpy as np

from .. import _xp

from . import engine
from .errors import ArgTypeError, ArgValueError


def _tensors(seq, what, fn, Tensor):
    """Note [Argument layer]: every entry a Tensor, checked before anything runs."""
    for i, t in enumerate(seq):
        if not isinstance(t, Tensor):
            raise ArgTypeError(f"{fn}: all {what} have to be Tensors, but got "
                               f"{type(t).__name__} at position {i}")
    return seq


def _grads_for(grads, n, fn, Tensor):
    """The gradients given for n outputs: None (implicit), one Tensor, or a sequence with
    at least n entries (PyTorch: 'got 2 tensors and 1 gradients')."""
    if grads is None:
        return [None] * n
    if isinstance(grads, Tensor):
        grads = [grads]
    elif isinstance(grads, (list, tuple)):
        grads = list(grads)
    else:
        grads = [grads]   # a number: made a tensor by _root_grad (Paddle's habit)
    if len(grads) < n:
        raise ArgValueError(f"{fn}: got {n} tensors and {len(grads)} gradients; give one "
                            "gradient (or None) per output")
    return grads


def _root_grad(t, g):
    from ..tensor import Tensor
    if g is None:
        # Paddle: a non-scalar output gets an implicit gradient of ones (of t's result
        # class: Note [Result class])
        return t._result_class._wrap(_xp.array_module(t._data).ones(t._data.shape,
                                                                     t._data.dtype))
    if not isinstance(g, Tensor):
        from ..ops.creation import to_tensor
        g = to_tensor(g, dtype=t.dtype)
    if g._data.shape != t._data.shape:
        raise ArgValueError(f"Mismatch in shape: grad_tensor has shape {list(g._data.shape)} "
                            f"but the output has shape {list(t._data.shape)}")
    if g._data.dtype != t._data.dtype:
        # PyTorch's validate_outputs: a gradient of another dtype is cast to the output's
        # (a float64 gradient for a float16 output is rounded to float16 first)
        g = g._result_class._wrap(g._data.astype(t._data.dtype))
    return g


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradients of tensors w.r.t. the leaves, accumulating them into .grad;
    with `inputs` (a tensor or a sequence of tensors), only into those tensors' .grad."""
    from ..tensor import Tensor
    tensors = [tensors] if isinstance(tensors, Tensor) else _tensors(list(tensors), "tensors",
                                                                      "backward", Tensor)
    grad_tensors = _grads_for(grad_tensors, len(tensors), "backward", Tensor)
    if inputs is not None:
        inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        if not inputs:
            raise ArgValueError("`inputs` argument to `backward()` cannot be empty.")
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise ArgTypeError(f"all inputs have to be Tensors or GradientEdges, but got "
                                   f"{type(t).__name__} (at position {i})")
            if not t.requires_grad:
                raise RuntimeError(f"backward(): input {i} (shape {list(t.shape)}) does not "
                                   "require grad, so no gradient can be accumulated into it "
                                   "(can't retain_grad on Tensor that has requires_grad=False)."
                                   " Fix: pass tensors that require grad as inputs=")
    if retain_graph is None:
        retain_graph = create_graph
    roots, grads = [], []
    for t, g in zip(tensors, grad_tensors):
        edge = t._edge()
        if edge is None:
            continue   # Paddle: backward on a stop_gradient tensor does nothing
        roots.append(edge)
        grads.append(_root_grad(t, g))
    if roots:
        engine.run_backward(roots, grads, retain_graph=retain_graph, create_graph=create_graph,
                            accumulate_into=inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None, is_grads_batched=False,
         materialize_grads=False):
    """The gradients of outputs w.r.t. inputs, returned (not accumulated into .grad)."""
    from ..tensor import Tensor
    single = isinstance(inputs, Tensor)
    outputs = [outputs] if isinstance(outputs, Tensor) else _tensors(list(outputs), "outputs",
                                                                      "oar.grad", Tensor)
    inputs = [inputs] if single else _tensors(list(inputs), "inputs", "oar.grad", Tensor)
    grad_outputs = _grads_for(grad_outputs, len(outputs), "oar.grad", Tensor)
    if retain_graph is None:
        retain_graph = create_graph
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            raise RuntimeError(f"oar.grad: input {i} (shape {list(t.shape)}) does not require "
                               "grad (stop_gradient=True); set stop_gradient=False on it first")
    roots, grads = [], []
    for t, g in zip(outputs, grad_outputs):
        edge = t._edge()
        if edge is None:
            raise RuntimeError("oar.grad: an output does not require grad and has no grad_fn")
        roots.append(edge)
        grads.append(_root_grad(t, g))
    res = engine.run_backward(roots, grads, retain_graph=retain_graph,
                              create_graph=create_graph, inputs=inputs,
                              allow_unused=allow_unused or materialize_grads)
    out = []
    for t, r in zip(inputs, res):
        if r is not None:
            if r._data.dtype != t._data.dtype:
                r = r.astype(t.dtype)
            if not create_graph:
                r = Tensor._wrap(r._data.copy(order="K"))
        elif materialize_grads:
            r = Tensor._wrap(_xp.array_module(t._data).zeros(t._data.shape, t._data.dtype))
        out.append(r)
    return out
