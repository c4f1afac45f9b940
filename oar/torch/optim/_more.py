"""Rprop, ASGD, Adafactor and LBFGS of the torch door.

Unlike the core optimizers, ASGD and Adafactor have no kernel of their own: each update is a
sequence of torch-door tensor ops chosen to be the sequence torch 2.13 performs on the CPU with
foreach=None (Rprop's update is the core's rprop_move, shared with the Paddle door: each of
its ops rounds once, as torch's do). The same ops in the same order round the same way, so parameters, state (its
keys, their order, the dtypes) and parameter versions come out as torch's. That is also why
they make their temporaries afresh each step instead of reusing buffers (Note [Optimizer steps
do not allocate] is for the core optimizers): fusing two ops would change the rounding.

Rprop, ASGD and Adafactor move each parameter on its own, so they share one step loop
(_PerParameterOptimizer.step) and each says only how its state starts and how one parameter
moves. LBFGS treats all parameters as one flat vector; its iteration and strong-Wolfe line
search are the core's (oar/optimizer/_lbfgs.py, Note [One L-BFGS]), shared with the Paddle door."""
from __future__ import annotations

import numpy as np

from ...autograd import saved as _saved
from ...autograd.errors import ArgValueError
from ...autograd.inplace import bump
from ...optimizer import _lbfgs
from ...optimizer._more import rprop_move
from ...tensor import wrap_as
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Rprop", "ASGD", "LBFGS", "Adafactor"]


def _torch():
    # oar.torch is still being built while it imports this module: find it at call time
    from ... import torch
    return torch


# ------------------------------------------------------------------------ shared pieces
def _float32_scalar(value):
    """A 0-d float32 tensor: the type torch gives the counters it keeps in the state
    ("step", ASGD's "eta" and "mu"), whatever the parameters' dtype."""
    return wrap_as(Tensor, np.asarray(value, np.float32))


def _number(x):
    """A hyper-parameter as a Python number (lr may be a one-element tensor)."""
    return x.item() if isinstance(x, Tensor) else x


def _advance_step(state):
    """Adds one to the state's step counter (in place: the tensor object stays the one a
    program may hold) and returns the new count as a float."""
    state["step"] += 1
    return state["step"].item()


def _lerp_(t, end, weight):
    """t moves toward end by weight, in place. torch's CPU kernel picks its formula by the
    size of the weight; oar.optim._lerp is that kernel, so the rounding is torch's. One
    version bump, as one in-place op."""
    from ...optim import _lerp
    _lerp(t._data, end._data, weight, np.empty_like(t._data))
    bump(t, "lerp_")


def _refuse_bad_lr(lr, message="Invalid learning rate: {}"):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ArgValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:            # written so that NaN is refused too
        raise ArgValueError(message.format(lr))


class _ChecksInConstructor(Optimizer):
    """An optimizer whose constructor checks its hyper-parameters with torch's messages.
    The core's per-group checks (oar.optimizer) would also rewrite values (lr to a float,
    ...), which these updates must see exactly as given, so they are switched off."""

    def _check_hyper(self, group):
        pass


class _PerParameterOptimizer(_ChecksInConstructor):
    """The step loop of an optimizer that moves every parameter from its own gradient and
    state: a subclass supplies _start_state (the state's entries, in torch's order) and
    _move (one parameter's update, given the gradient already negated for maximize)."""

    def step(self, closure=None):
        """One step for every parameter that has a gradient. closure, when given, is called
        first (with gradients enabled) to re-evaluate the model; its loss is returned."""
        torch = _torch()
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        self._start_state(state, p, group, torch)
                    grad = -p.grad if group["maximize"] else p.grad
                    self._move(p, grad, state, group, torch)
        return loss

    def _start_state(self, state, p, group, torch):
        raise NotImplementedError

    def _move(self, p, grad, state, group, torch):
        raise NotImplementedError


# ------------------------------------------------------------------------------- Rprop
class Rprop(_PerParameterOptimizer):
    """torch.optim.Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
    capturable=False, foreach=None, maximize=False, differentiable=False).

    Each element has its own step length (state "step_size", starting at lr): it grows by
    etas[1] while the gradient keeps its sign and shrinks by etas[0] when the sign flips,
    within step_sizes. Only the gradient's sign decides the direction."""
    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                          "capturable": False}

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _refuse_bad_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ArgValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable, "capturable": capturable})

    def _start_state(self, state, p, group, torch):
        state["step"] = _float32_scalar(0.0)
        state["prev"] = torch.zeros_like(p)
        state["step_size"] = torch.full_like(p.grad, _number(group["lr"]))

    def _move(self, p, grad, state, group, torch):
        _advance_step(state)
        prev, step_size = state["prev"], state["step_size"]
        # the core's update (shared with the Paddle door), then the version bumps of the ops
        # this class ran before: step_size.mul_(factor).clamp_(...), p.sub_(...), prev.copy_(grad)
        _saved.before_write(p)          # Note [Mutation of saved tensors allowed]
        rprop_move(p._data, grad._data, prev._data, step_size._data, group["etas"],
                   group["step_sizes"], (np.empty_like(p._data), np.empty_like(p._data)))
        bump(step_size, "mul_")
        bump(step_size, "clamp_")
        bump(p, "sub_")
        bump(prev, "copy_")


# -------------------------------------------------------------------------------- ASGD
class ASGD(_PerParameterOptimizer):
    """torch.optim.ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
    foreach=None, maximize=False, differentiable=False, capturable=False).

    SGD with a decaying rate (state "eta") whose iterates are averaged from step t0 on
    (state "ax", the average; "mu", the weight of the newest iterate in it)."""
    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                          "capturable": False}
    _scalar_tensors = ("eta", "mu")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _refuse_bad_lr(lr)
        if not 0.0 <= weight_decay:
            raise ArgValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _start_state(self, state, p, group, torch):
        state["step"] = _float32_scalar(0.0)
        state["eta"] = _float32_scalar(_number(group["lr"]))
        state["mu"] = _float32_scalar(1.0)
        state["ax"] = torch.zeros_like(p)

    def _move(self, p, grad, state, group, torch):
        lr, lambd, weight_decay = _number(group["lr"]), group["lambd"], group["weight_decay"]
        eta, mu, average = state["eta"], state["mu"], state["ax"]
        step = _advance_step(state)
        if weight_decay != 0:
            grad = grad.add(p, alpha=weight_decay)
        rate = eta.item()
        p.mul_(1 - lambd * rate)        # the lambd term pulls the parameter toward zero
        p.add_(grad, alpha=-rate)
        if mu.item() != 1:
            average.add_(p.sub(average).mul_(mu))
        else:
            average.copy_(p)            # before t0 the "average" is the latest iterate
        # the next step's rate and averaging weight; each rounds to float32 once, on the copy
        eta.copy_(torch.as_tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])))
        mu.copy_(torch.as_tensor(1 / max(1, step - group["t0"])))


# --------------------------------------------------------------------------- Adafactor
def _with_unit_axis(shape, axis):
    shape = list(shape)
    shape[axis] = 1
    return shape


def _mean_square(grad, dim):
    """The mean of grad**2 along dim (kept), computed as torch does it here: the norm,
    squared, divided by the length. (grad * grad).mean() would round differently."""
    torch = _torch()
    return torch.norm(grad, dim=dim, keepdim=True).square_().div_(grad.size(dim))


def _factored_second_moment(grad, row_var, col_var, weight, eps1):
    """Moves the running row means and column means of grad**2 toward this step's (in
    place) and returns the full second-moment estimate they stand for: the outer product
    row_var @ col_var over the mean of row_var (kept at least eps1)."""
    _lerp_(row_var, _mean_square(grad, -1), weight)
    _lerp_(col_var, _mean_square(grad, -2), weight)
    estimate = row_var @ col_var
    estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
    return estimate


class Adafactor(_PerParameterOptimizer):
    """torch.optim.Adafactor(params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
    weight_decay=0.0, *, foreach=None, maximize=False).

    An Adam-like step without a first moment whose second moment, for a parameter of two or
    more dimensions, is kept factored (row and column means over the last two axes) to save
    memory. The step is relative to the parameter's root mean square and the update's root
    mean square is clipped to d."""
    _setstate_defaults = {"foreach": None}

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        _refuse_bad_lr(lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 >= beta2_decay:
            raise ArgValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ArgValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ArgValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ArgValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ArgValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize})

    def _start_state(self, state, p, group, torch):
        state["step"] = _float32_scalar(0.0)
        g = p.grad
        if g.dim() > 1:
            state["row_var"] = g.new_zeros(_with_unit_axis(g.shape, -1))
            state["col_var"] = g.new_zeros(_with_unit_axis(g.shape, -2))
        else:
            state["variance"] = torch.zeros_like(g)

    def _move(self, p, grad, state, group, torch):
        eps1, eps2 = group["eps"]
        if eps1 is None:                # the default floor: the dtype's machine epsilon
            eps1 = float(np.finfo(p._data.dtype).eps)
        lr, weight_decay = _number(group["lr"]), group["weight_decay"]
        step = _advance_step(state)
        new_weight = step ** group["beta2_decay"]       # 1 - beta2 at this step
        relative_lr = min(lr, 1 / (step ** 0.5))
        # the step length scales with the parameter's RMS (at least eps2), taken before
        # the weight decay below
        step_length = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * relative_lr
        if weight_decay != 0:
            p.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            estimate = _factored_second_moment(grad, state["row_var"], state["col_var"],
                                               new_weight, eps1)
        else:
            variance = state["variance"]
            _lerp_(variance, grad * grad, new_weight)
            estimate = variance.clone()
        update = estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        over_d = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
        p.add_(update, alpha=-step_length / over_d)


# ------------------------------------------------------------------------------- LBFGS
# the iteration and its line search: oar/optimizer/_lbfgs.py (Note [One L-BFGS])


class LBFGS(_ChecksInConstructor):
    """torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None); step(closure) needs the
    closure. One parameter group only; its state lives under the first parameter."""
    _has_step = False

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _refuse_bad_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad,
                                  "tolerance_change": tolerance_change,
                                  "history_size": history_size,
                                  "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ArgValueError("LBFGS doesn't support per-parameter options (parameter "
                                "groups)")
        self._params = self.param_groups[0]["params"]

    def __setstate__(self, state):
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]

    # the parameters as one flat vector ------------------------------------------
    def _flat_grad(self):
        """Every parameter's gradient flattened and joined, zeros for one without."""
        return _torch().cat([p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1)
                             for p in self._params], 0)

    def _move_by(self, t, direction):
        """Adds t * direction to the parameters, each taking its slice of the flat vector."""
        start = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[start:start + n].view_as(p), alpha=t)
            start += n

    def _loss_and_grad_at(self, evaluate, origin, t, direction):
        """The loss and flat gradient at origin + t * direction; the parameters (which are
        at origin) are put back afterwards."""
        self._move_by(t, direction)
        loss = float(evaluate())
        grad = self._flat_grad()
        for p, saved in zip(self._params, origin):
            p.copy_(saved)
        return loss, grad

    def step(self, closure):
        """Up to max_iter L-BFGS iterations, calling closure() (which must zero the
        gradients, compute the loss, call backward and return the loss) for every
        evaluation; returns the loss of the first."""
        torch = _torch()

        def evaluate():
            # the step runs under no_grad; the closure needs gradients
            with torch.enable_grad():
                return closure()

        with torch.no_grad():
            return self._iterate(evaluate)

    def _iterate(self, evaluate):
        return _lbfgs.iterate(self, evaluate, self.param_groups[0], self.state[self._params[0]])
