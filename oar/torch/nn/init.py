"""torch.nn.init: PyTorch's initialisers with PyTorch's fans (a 2-D weight is
[out_features, in_features]); Note [Init fans per door]. Each fills the tensor in place
without recording autograd history and returns it; draws go through the tensor's own
uniform_/normal_, so a PyTorch-door tensor draws from the door's generator."""
from __future__ import annotations

import warnings

from ...nn import init as _core

_TORCH = _core.Initializers(torch_layout=True)

calculate_gain = _core.calculate_gain
uniform_ = _core.uniform_
normal_ = _core.normal_
constant_ = _core.constant_
zeros_ = _core.zeros_
ones_ = _core.ones_
eye_ = _core.eye_
trunc_normal_ = _core.trunc_normal_
orthogonal_ = _core.orthogonal_
xavier_uniform_ = _TORCH.xavier_uniform_
xavier_normal_ = _TORCH.xavier_normal_
kaiming_uniform_ = _TORCH.kaiming_uniform_
kaiming_normal_ = _TORCH.kaiming_normal_


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight in PyTorch's layout."""
    return _TORCH.fans(tensor, "_calculate_fan_in_and_fan_out")


def _calculate_correct_fan(tensor, mode):
    """fan_in or fan_out of tensor, as mode says."""
    return _core._fan(*_calculate_fan_in_and_fan_out(tensor), mode)


def _deprecated(fn):
    def old(*args, **kwargs):
        warnings.warn(f"`nn.init.{fn.__name__[:-1]}` is now deprecated in favor of "
                      f"`nn.init.{fn.__name__}`.", FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)
    old.__name__ = old.__qualname__ = fn.__name__[:-1]
    old.__doc__ = f"Deprecated spelling of {fn.__name__} (same arguments)."
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_",
           "trunc_normal_", "orthogonal_", "xavier_uniform_", "xavier_normal_",
           "kaiming_uniform_", "kaiming_normal_"]
