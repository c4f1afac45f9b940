"""Central-difference gradient check in float64."""
from __future__ import annotations

import numpy as np


def numerical_jacobian(fn, inputs, eps=1e-6):
    from ..autograd import grad_mode
    jac = []
    with grad_mode.no_grad():
        out0 = fn(*inputs)
        n_out = out0._data.size
        for t in inputs:
            if not (hasattr(t, "_data") and t.requires_grad):
                jac.append(None)
                continue
            J = np.zeros((t._data.size, n_out))
            for i in range(t._data.size):
                idx = np.unravel_index(i, t._data.shape)
                orig = t._data[idx].copy()
                t._data[idx] = orig + eps
                plus = np.array(fn(*inputs)._data, dtype=np.float64).reshape(-1)
                t._data[idx] = orig - eps
                minus = np.array(fn(*inputs)._data, dtype=np.float64).reshape(-1)
                t._data[idx] = orig
                J[i] = (plus - minus) / (2 * eps)
            jac.append(J)
    return jac


def analytical_jacobian(fn, inputs):
    from ..tensor import Tensor
    from .functional import grad
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    out = fn(*inputs)
    n_out = out._data.size
    jac = {id(t): np.zeros((t._data.size, n_out)) for t in diff}
    for j in range(n_out):
        go = np.zeros(n_out, out._data.dtype)
        go[j] = 1
        gs = grad([out], diff, grad_outputs=[Tensor._wrap(go.reshape(out._data.shape))],
                  retain_graph=True, allow_unused=True)
        for t, g in zip(diff, gs):
            if g is not None:
                jac[id(t)][:, j] = g._data.reshape(-1)
    return [jac.get(id(t)) if isinstance(t, Tensor) and t.requires_grad else None for t in inputs]


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when analytical and numerical Jacobians agree. Inputs should be float64."""
    inputs = tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)
    num = numerical_jacobian(fn, inputs, eps)
    ana = analytical_jacobian(fn, inputs)
    for k, (n, a) in enumerate(zip(num, ana)):
        if n is None:
            continue
        if not np.allclose(n, a, atol=atol, rtol=rtol):
            if raise_exception:
                err = np.max(np.abs(n - a))
                raise AssertionError(f"gradcheck failed for input {k}: max abs difference "
                                     f"{err:.3g}\nnumerical:\n{n}\nanalytical:\n{a}")
            return False
    return True
