"""torch.optim: the PyTorch-spelling optimizers of oar.optim (PyTorch's arguments,
parameter-group keys and update rules) with PyTorch's state_dict() layout
(Note [Torch optimizer state dicts]); torch.optim.lr_scheduler as a submodule."""
# Note [Torch optimizer state dicts]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# oar keeps per-parameter state keyed by id(param) with an int "step" and private scratch
# buffers ("_..."). PyTorch's state_dict() is {"state": {index: {...}}, "param_groups":
# [{..., "params": [index, ...]}]}: parameters numbered across the groups in order, "step"
# a float32 0-d tensor, the moment tensors the live state (sharing memory, as PyTorch's
# do). load_state_dict() maps that layout back onto oar's (state.<group>.<position>) and
# loads it with the core's set_state_dict, which checks every group, key and shape before
# writing anything.
from __future__ import annotations

import numpy as np

from ... import optim as _optim
from ...tensor import Tensor as _CoreTensor
from ...tensor import wrap_as
from .._tensor import Tensor
from . import lr_scheduler  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "RMSprop", "Adamax",
           "NAdam", "RAdam", "lr_scheduler"]


class _TorchStateDict:
    """PyTorch's state_dict()/load_state_dict() and repr for an oar optimizer."""
    _no_step = False          # SGD keeps no step count in PyTorch

    def _door_state(self, st, p):
        out = {}
        for k, v in st.items():
            if k.startswith("_") or (k == "step" and self._no_step):
                continue
            if k == "step":
                out[k] = wrap_as(Tensor, np.asarray(float(v), np.float32))
            elif isinstance(v, _CoreTensor):
                out[k] = wrap_as(p._result_class, v._data, v._storage)
            else:
                out[k] = v
        return out

    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}, as
        PyTorch lays it out (Note [Torch optimizer state dicts])."""
        index, groups, i = {}, [], 0
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params" and not k.startswith("_")}
            ids = []
            for p in g["params"]:
                if id(p) not in index:
                    index[id(p)] = i
                    i += 1
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for key, st in self.state.items():
            if key in index:
                p = next(q for g in self.param_groups for q in g["params"] if id(q) == key)
                door = self._door_state(st, p)
                if door:
                    state[index[key]] = door
        return {"state": dict(sorted(state.items())), "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads what state_dict() (or PyTorch's) wrote; everything is checked before
        anything is written."""
        name = type(self).__name__
        if not isinstance(state_dict, dict) or "param_groups" not in state_dict:
            raise ValueError(f"{name}.load_state_dict: expected the dict that state_dict() "
                             "returns ({'state': ..., 'param_groups': [...]})")
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(sg["params"]) for g, sg in zip(self.param_groups, groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        core = {"param_groups": [{k: v for k, v in sg.items() if k != "params"}
                                 for sg in groups]}
        saved = state_dict.get("state", {})
        for gi, sg in enumerate(groups):
            for pi, idx in enumerate(sg["params"]):
                st = saved.get(idx)
                if st:
                    core[f"state.{gi}.{pi}"] = {
                        k: (int(round(float(v._data if isinstance(v, _CoreTensor) else v)))
                            if k == "step" else v) for k, v in st.items()}
        self.set_state_dict(core)
        # PyTorch's groups become the saved ones (their keys, in their order, 'params'
        # where the state dict has it, keys it lacks dropped); oar keeps each group object,
        # which the flat Adam buffers are found by (Note [Flat Adam])
        for g, sg in zip(self.param_groups, groups):
            new = {k: g[k] for k in sg}
            if "param_names" in g and "param_names" not in sg:
                new["param_names"] = g["param_names"]
            g.clear()
            g.update(new)

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, g in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for k in sorted(g):
                if k != "params" and not k.startswith("_"):
                    s += f"    {k}: {g[k]}\n"
        return s + ")"


class Optimizer(_TorchStateDict, _optim.Optimizer):
    """Base class of optimizers: Optimizer(params, defaults); subclasses define step()
    reading self.param_groups and self.state[p]."""


class SGD(_TorchStateDict, _optim.SGD):
    """torch.optim.SGD(params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
    nesterov=False, *, maximize=False)."""
    _no_step = True


class Adam(_TorchStateDict, _optim.Adam):
    """torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    amsgrad=False, *, maximize=False, decoupled_weight_decay=False)."""


class AdamW(_TorchStateDict, _optim.AdamW):
    """torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
    amsgrad=False, *, maximize=False)."""


class Adadelta(_TorchStateDict, _optim.Adadelta):
    """torch.optim.Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *,
    maximize=False)."""


class Adagrad(_TorchStateDict, _optim.Adagrad):
    """torch.optim.Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0,
    initial_accumulator_value=0, eps=1e-10, *, maximize=False)."""


class RMSprop(_TorchStateDict, _optim.RMSprop):
    """torch.optim.RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
    centered=False, maximize=False)."""


class Adamax(_TorchStateDict, _optim.Adamax):
    """torch.optim.Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    foreach=None, *, maximize=False, differentiable=False, capturable=False)."""


class NAdam(_TorchStateDict, _optim.NAdam):
    """torch.optim.NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False,
    capturable=False, differentiable=False)."""


class RAdam(_TorchStateDict, _optim.RAdam):
    """torch.optim.RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
    decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
    differentiable=False)."""
