"""torch.nn.InPlaceABN: the inplace_abn library's layer (mapillary/inplace_abn) as a module
of this door: BatchNorm's parameters and buffers (weight, bias, running_mean, running_var,
num_batches_tracked), PyTorch's momentum (None: a cumulative average), and the op of
oar/nn/abn.py (Note [In-place activated batch norm])."""
from __future__ import annotations

from ...autograd import grad_mode
from ...nn import abn as _abn
from .layers import _BatchNorm

__all__ = ["InPlaceABN"]


class InPlaceABN(_abn._ABN, _BatchNorm):
    """In-place activated batch norm over (N, C, *) input: the input is overwritten with
    act(batch_norm(input)) and returned, and only that result is saved for backward (Note
    [In-place activated batch norm]). activation: 'leaky_relu' (activation_param = negative
    slope), 'elu' (alpha) or 'identity'; 'relu' is refused (it cannot be inverted)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, activation="leaky_relu", activation_param=0.01,
                 device=None, dtype=None):
        op = type(self).__name__
        act, param = _abn.activation_config(activation, activation_param, op)
        if momentum is not None:
            _abn._momentum(momentum, op)
        _BatchNorm.__init__(self, num_features, _abn._eps(eps, op), momentum, affine,
                            track_running_stats, device, dtype)
        self.activation, self.activation_param = act, param

    def forward(self, input):
        """input overwritten with act(batch_norm(input)) and returned: batch statistics in
        training (updating the running ones), running statistics in evaluation."""
        self._check_input(input)
        factor = 0.0 if self.momentum is None else self.momentum
        nbt = self._buffers.get("num_batches_tracked")
        counts = self.training and self.track_running_stats and nbt is not None
        if counts and self.momentum is None:
            factor = 1.0 / (float(nbt._data) + 1)      # the count after this batch
        mean, var = self._stats()
        training = self.training or (mean is None and var is None)
        use = not self.training or self.track_running_stats
        out = _abn.run_inplace_abn(input, self.weight, self.bias, mean if use else None,
                                   var if use else None, training, 1 - factor, self.eps,
                                   self.activation, self.activation_param, type(self).__name__)
        if counts:           # after the op: a call that raised changed nothing
            with grad_mode.no_grad():
                nbt.add_(1)
        return out

    def extra_repr(self):
        """The inplace_abn library's: features, eps, momentum, affine, activation[param]."""
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, {self._act_repr()}")
