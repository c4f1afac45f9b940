"""Central-difference gradient checks in float64: gradcheck (first derivatives) and
gradgradcheck (second derivatives, through create_graph=True), as PyTorch's."""
from __future__ import annotations

import numpy as np


class GradcheckError(RuntimeError, AssertionError):
    """Analytical and numerical derivatives disagree (PyTorch's GradcheckError, a
    RuntimeError; also an AssertionError, which oar's gradcheck raised before)."""


def _outputs(out):
    """fn's result as a tuple of tensors (a single tensor or a tuple/list of them)."""
    from ..tensor import Tensor
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise GradcheckError(f"gradcheck: the function must return a Tensor or a tuple of "
                                 f"Tensors, got {type(o).__name__}")
    return outs


def numerical_jacobian(fn, inputs, eps=1e-6):
    """For each input that requires grad, d(all outputs, flattened)/d(input) by central
    differences: an array of shape [input numel, total output numel] (None elsewhere)."""

    def flat(res):
        return np.concatenate([np.array(o._data, dtype=np.float64).reshape(-1)
                               for o in _outputs(res)] or [np.zeros(0)])
    # fn runs in the caller's grad mode, as in PyTorch's gradcheck: a function may depend
    # on it (an in-place op on a view makes its base require grad)
    jac = []
    n_out = flat(fn(*inputs)).size
    for t in inputs:
        if not (hasattr(t, "_data") and t.requires_grad):
            jac.append(None)
            continue
        J = np.zeros((t._data.size, n_out))
        for i in range(t._data.size):
            idx = np.unravel_index(i, t._data.shape)
            orig = t._data[idx].copy()
            t._data[idx] = orig + eps
            plus = flat(fn(*inputs))
            t._data[idx] = orig - eps
            minus = flat(fn(*inputs))
            t._data[idx] = orig
            J[i] = (plus - minus) / (2 * eps)
        jac.append(J)
    return jac


def analytical_jacobian(fn, inputs):
    """The same Jacobians from backward passes, one per output element."""
    from ..tensor import Tensor
    from .functional import grad
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    outs = _outputs(fn(*inputs))
    sizes = [o._data.size for o in outs]
    n_out = sum(sizes)
    jac = {id(t): np.zeros((t._data.size, n_out)) for t in diff}
    col = 0
    for o, n in zip(outs, sizes):
        for j in range(n):
            if o.grad_fn is None and not o.requires_grad:
                col += 1
                continue
            go = np.zeros(n, o._data.dtype)
            go[j] = 1
            gs = grad([o], diff, grad_outputs=[Tensor._wrap(go.reshape(o._data.shape))],
                      retain_graph=True, allow_unused=True)
            for t, g in zip(diff, gs):
                if g is not None:
                    jac[id(t)][:, col] = np.asarray(g._data, dtype=np.float64).reshape(-1)
            col += 1
    return [jac.get(id(t)) if isinstance(t, Tensor) and t.requires_grad else None for t in inputs]


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **kwargs):
    """True when the analytical and numerical Jacobians of fn at `inputs` agree (every output
    of fn, for every input that requires grad). Inputs should be float64. A mismatch raises
    GradcheckError (raise_exception=True) or returns False. PyTorch's other keywords
    (nondet_tol, check_undefined_grad, fast_mode, ...) are accepted and change nothing."""
    inputs = tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)
    num = numerical_jacobian(fn, inputs, eps)
    ana = analytical_jacobian(fn, inputs)
    for k, (n, a) in enumerate(zip(num, ana)):
        if n is None:
            continue
        if not np.allclose(n, a, atol=atol, rtol=rtol):
            if raise_exception:
                err = np.max(np.abs(n - a))
                raise GradcheckError(f"Jacobian mismatch for output 0 with respect to input "
                                     f"{k} (max abs difference {err:.3g}),\nnumerical:\n{n}\n"
                                     f"analytical:\n{a}")
            return False
    return True


def gradgradcheck(fn, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, **kwargs):
    """Checks second derivatives as PyTorch's gradgradcheck: the function
    (inputs, grad_outputs) -> d(fn(inputs) . grad_outputs)/d(inputs), computed with
    create_graph=True, is gradchecked against finite differences. grad_outputs defaults to
    random float64 tensors (one per output of fn) that require grad."""
    from ..tensor import Tensor
    from .functional import grad
    inputs = tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)
    outs = _outputs(fn(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(_leaf(rng.standard_normal(o._data.shape).astype(o._data.dtype))
                             for o in outs)
    else:
        grad_outputs = tuple(grad_outputs) if isinstance(grad_outputs, (list, tuple)) else (
            grad_outputs,)
    n_in = len(inputs)
    diff_at = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]

    def first_derivative(*args):
        from . import grad_mode
        xs, gos = args[:n_in], args[n_in:]
        with grad_mode.enable_grad():   # also while the numerical Jacobian runs (no_grad)
            res = _outputs(fn(*xs))
            diff = [xs[i] for i in diff_at]
            gs = grad(list(res), diff, grad_outputs=list(gos), create_graph=True,
                      allow_unused=True)
        return tuple(g if g is not None else _zeros_like(x) for g, x in zip(gs, diff))

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)


def _leaf(arr):
    from ..tensor import Tensor
    t = Tensor._wrap(arr)
    t.requires_grad = True
    return t


def _zeros_like(x):
    from ..tensor import Tensor
    return Tensor._wrap(np.zeros(x._data.shape, x._data.dtype))
