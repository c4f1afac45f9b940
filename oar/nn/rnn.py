"""Paddle 3.3.1's recurrent layers: the cells (SimpleRNNCell, LSTMCell, GRUCell), the
wrappers that run a cell over time (RNN, BiRNN) and the stacked layers (SimpleRNN, LSTM, GRU:
a LayerList of RNN / BiRNN wrappers whose cells' parameters are also the layer's
weight_ih_l{k}[_reverse] ...). Batch-major unless time_major; sequence_length cuts each
sequence at its length. The math is the core's (oar/nn/_recurrent.py, Note [Recurrent layers
per door])."""
from __future__ import annotations

from typing import Any

import math

import numpy as np

from ..autograd.errors import ArgTypeError, ArgValueError
from ..ops.registry import FUNCTIONS as _FN
from ..tensor import Tensor, wrap_as
from . import _recurrent as _R
from . import functional as F
from . import init
from .layers import Layer, LayerList, _check_param_attr, _param, apply_param_attr

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN", "SimpleRNN",
           "LSTM", "GRU"]


def _time_major(x, time_major):
    """x [N, T, ...] -> [T, N, ...] unless it already is time-major."""
    return x if time_major else _FN["transpose"](x, [1, 0] + list(range(2, x._data.ndim)))


def _nest_map(fn, states):
    if isinstance(states, (tuple, list)):
        return type(states)(_nest_map(fn, s) for s in states)
    return fn(states)


class RNNCellBase(Layer):
    """Base of Paddle's cells: get_initial_states builds zero states of the cell's
    state_shape for a batch."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States filled with init_value, of shape [batch] + shape for each entry of shape
        (the cell's state_shape by default); batch is batch_ref's dim batch_dim_idx."""
        ref = batch_ref
        while isinstance(ref, (tuple, list)):
            ref = ref[0]
        batch = ref._data.shape[batch_dim_idx]
        shape = self.state_shape if shape is None else shape
        dt = ref._data.dtype if dtype is None else np.dtype(str(getattr(dtype, "name", dtype)))

        def build(s):
            if isinstance(s, (tuple, list)) and s and isinstance(s[0], (tuple, list)):
                return type(s)(build(x) for x in s)
            return wrap_as(type(ref), np.full([batch] + list(s), init_value, dt))
        return build(shape)

    @property
    def state_shape(self):
        """The shape of the cell's state(s), without the batch dim."""
        raise NotImplementedError("Please add implementation for `state_shape` in the used "
                                  "cell.")

    @property
    def state_dtype(self):
        """The dtype of the cell's state(s)."""
        return "float32"


class _Cell(RNNCellBase):
    """A built-in cell: weight_ih [gates * H, in], weight_hh [gates * H, H], bias_ih, bias_hh
    [gates * H], all uniform on +-1/sqrt(hidden_size) unless a ParamAttr says otherwise; a
    bias attr of False gives a zero bias that is not trained (as Paddle)."""
    _mode: Any = None   # set by each subclass

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        cls = type(self).__name__
        for n, v in (("input_size", input_size), ("hidden_size", hidden_size)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ArgTypeError(f"{cls}: {n} must be an int, got {type(v).__name__}")
        if hidden_size <= 0:
            raise ValueError(f"hidden_size of {cls} must be greater than 0, but now equals to "
                             f"{hidden_size}")
        if input_size < 0:
            raise ValueError(f"input_size of {cls} must be greater than 0, but now equals to "
                             f"{input_size}")
        attrs = {"weight_ih": weight_ih_attr, "weight_hh": weight_hh_attr,
                 "bias_ih": bias_ih_attr, "bias_hh": bias_hh_attr}
        for which, attr in attrs.items():
            _check_param_attr(attr, cls, which + "_attr")
        self.input_size, self.hidden_size, self.proj_size = input_size, hidden_size, proj_size
        gh = _R.GATES[self._mode] * hidden_size
        std = 1.0 / math.sqrt(hidden_size)
        shapes = {"weight_ih": [gh, input_size], "weight_hh": [gh, proj_size or hidden_size],
                  "bias_ih": [gh], "bias_hh": [gh]}
        for pname, shape in shapes.items():
            p = _param(shape)
            if attrs[pname] is False:          # Paddle: a constant zero bias, not trained
                p.stop_gradient = True
            else:
                init.uniform_(p, -std, std)
                apply_param_attr(p, attrs[pname])
            setattr(self, pname, p)
        if proj_size:
            self.weight_ho = _param([hidden_size, proj_size])
            init.uniform_(self.weight_ho, -std, std)
            apply_param_attr(self.weight_ho, weight_hh_attr)

    def _weights(self):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) in the core's layout."""
        w_hr = _FN["t"](self.weight_ho) if self.proj_size else None
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, w_hr

    def _mode_name(self):
        return self._mode

    def forward(self, inputs, states=None):
        """(output, new states) of one step; zero states when states is None."""
        if not isinstance(inputs, Tensor):
            raise ArgTypeError(f"{type(self).__name__}: inputs must be a Tensor, got "
                               f"{type(inputs).__name__}")
        if inputs._data.ndim != 2 or inputs._data.shape[1] != self.input_size:
            raise ArgValueError(f"{type(self).__name__}: inputs must be [batch_size, "
                                f"{self.input_size}], got {list(inputs._data.shape)}")
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        new = _R.cell_step(self._mode_name(), inputs, states, *self._weights())
        return (new[0] if self._mode == "LSTM" else new), new

    @property
    def state_shape(self):
        """(hidden_size,) — LSTM: ((hidden_size or proj_size,), (hidden_size,))."""
        return (self.hidden_size,)

    def extra_repr(self):
        """input_size, hidden_size."""
        return f"{self.input_size}, {self.hidden_size}"


class SimpleRNNCell(_Cell):
    """One Elman step: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu."""
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, 0, name)
        self.activation = activation

    def _mode_name(self):
        return "RNN_RELU" if self.activation == "relu" else "RNN_TANH"

    def extra_repr(self):
        """input_size, hidden_size and a non-default activation."""
        s = super().extra_repr()
        return s + (f", activation={self.activation}" if self.activation != "tanh" else "")


class LSTMCell(_Cell):
    """One LSTM step (gates i, f, g, o); states (h, c); returns (h', (h', c')). With
    proj_size, h' = (o * tanh(c')) @ weight_ho, weight_ho [hidden_size, proj_size]."""
    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        if isinstance(proj_size, bool) or not isinstance(proj_size, (int, np.integer)) \
                or proj_size < 0 or (proj_size and proj_size >= hidden_size):
            raise ValueError(f"LSTMCell: proj_size must be an int in [0, hidden_size), got "
                             f"{proj_size!r} (hidden_size={hidden_size})")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, proj_size, name)

    @property
    def state_shape(self):
        """((hidden_size or proj_size,), (hidden_size,))."""
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))


class GRUCell(_Cell):
    """One GRU step: r, z, n gates; h' = (h - n) * z + n with n = tanh(x W_in + b_in +
    r * (h W_hn + b_hn)); returns (h', h')."""
    _mode = "GRU"

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, 0, name)


def _mask(sequence_length, steps, batch, op):
    if sequence_length is None:
        return None
    if not isinstance(sequence_length, Tensor):
        raise ArgTypeError(f"{op}: sequence_length must be an integer Tensor [batch_size], "
                           f"got {type(sequence_length).__name__}")
    return _R.length_mask(sequence_length, steps, batch, op)


class RNN(Layer):
    """Runs a cell over the time steps of inputs ([batch, time, ...] unless time_major),
    backwards when is_reverse; returns (outputs, final_states)."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        if not isinstance(cell, Layer):
            raise ArgTypeError(f"RNN: cell must be a Layer (an RNNCellBase), got "
                               f"{type(cell).__name__}")
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        """(outputs, final_states) of the cell run over inputs."""
        if not isinstance(inputs, Tensor) or inputs._data.ndim < 2:
            raise ArgValueError(f"RNN: inputs must be a Tensor [batch, time, ...] (or [time, "
                                f"batch, ...] when time_major), got "
                                f"{getattr(inputs, 'shape', type(inputs).__name__)}")
        if initial_states is None:
            initial_states = self.cell.get_initial_states(
                batch_ref=inputs, batch_dim_idx=1 if self.time_major else 0)
        x = _time_major(inputs, self.time_major)
        mask = _mask(sequence_length, x._data.shape[0], x._data.shape[1], "RNN")
        # Paddle's step-by-step path keeps the state past a sequence's end but not its
        # outputs at zero (Note [Recurrent layers per door])
        out, final = _R.scan(lambda xt, st: self.cell(xt, st, **kwargs), x, initial_states,
                             self.is_reverse, mask, zero_outputs=False)
        return _time_major(out, self.time_major), final


class BiRNN(Layer):
    """A forward cell and a backward cell over the same inputs; outputs concatenated on the
    last dim, final_states (states_fw, states_bw)."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        if getattr(cell_fw, "input_size", None) != getattr(cell_bw, "input_size", None):
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not "
                             f"equals that of backward cell({cell_bw.input_size})")
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        """(concatenated outputs, (final_states_fw, final_states_bw))."""
        if initial_states is None:
            initial_states = [None, None]
        elif not isinstance(initial_states, (tuple, list)) or len(initial_states) != 2:
            raise ValueError("BiRNN: initial_states should be a list or tuple of 2 elements "
                             "(the forward and backward cells' states)")
        fw = RNN.forward(_Runner(self.cell_fw, False, self.time_major), inputs,
                         initial_states[0], sequence_length, **kwargs)
        bw = RNN.forward(_Runner(self.cell_bw, True, self.time_major), inputs,
                         initial_states[1], sequence_length, **kwargs)
        return _FN["concat"]([fw[0], bw[0]], -1), (fw[1], bw[1])


class _Runner:
    """What RNN.forward reads (cell, is_reverse, time_major), for BiRNN's two directions."""

    def __init__(self, cell, is_reverse, time_major):
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major


class _RNNBase(LayerList):
    """SimpleRNN / LSTM / GRU (Paddle's RNNBase): a LayerList of RNN (or BiRNN) wrappers, one
    per layer, whose cells' parameters are also this layer's weight_ih_l{k}[_reverse],
    weight_hh_l{k}..., bias_ih_l{k}..., bias_hh_l{k}... (the same Parameter objects)."""
    _cell_class: Any = None   # set by each subclass

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, activation="tanh",
                 name=None):
        super().__init__()
        if direction not in ("forward", "bidirect", "bidirectional"):
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        if isinstance(num_layers, bool) or not isinstance(num_layers, (int, np.integer)) \
                or num_layers < 1:
            raise ValueError(f"{type(self).__name__}: num_layers must be a positive int, got "
                             f"{num_layers!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout <= 1:
            raise ValueError(f"{type(self).__name__}: dropout must be a number in [0, 1], got "
                             f"{dropout!r}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.direction, self.time_major, self.dropout = direction, time_major, dropout
        self.proj_size = proj_size
        self.num_directions = 2 if direction != "forward" else 1
        attrs = (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        out_size = proj_size or hidden_size
        for layer in range(num_layers):
            n_in = input_size if layer == 0 else out_size * self.num_directions
            cells = [self._make_cell(n_in, hidden_size, attrs, proj_size, activation)
                     for _ in range(self.num_directions)]
            self.append(RNN(cells[0], False, time_major) if len(cells) == 1
                        else BiRNN(cells[0], cells[1], time_major))
        # The flat names (four per layer and direction) are handed out in order over the
        # cells' parameters. With proj_size each cell has a fifth one (weight_ho), so, as in
        # Paddle 3.3.1, the names shift: weight_ih_l1 is layer 0's weight_ho, and the last
        # cells' parameters keep only their structured names. Mirrored so that state dicts
        # load both ways.
        names = [p + f"_l{layer}" + ("_reverse" if d else "")
                 for layer in range(num_layers) for d in range(self.num_directions)
                 for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        params = [cell._parameters[p] for cell in self._cells() for p in cell._parameters]
        for flat, p in zip(names, params):
            setattr(self, flat, p)

    def _make_cell(self, n_in, hidden_size, attrs, proj_size, activation):
        return self._cell_class(n_in, hidden_size, *attrs)

    def _cells(self):
        for wrapper in self:
            yield from ((wrapper.cell,) if isinstance(wrapper, RNN)
                        else (wrapper.cell_fw, wrapper.cell_bw))

    def forward(self, inputs, initial_states=None, sequence_length=None):
        """(outputs, final_states): outputs [batch, time, dirs * H] (time-major when
        time_major); final_states [layers * dirs, batch, H] — LSTM: (h, c)."""
        name = type(self).__name__
        if not isinstance(inputs, Tensor):
            raise ArgTypeError(f"{name}: inputs must be a Tensor, got {type(inputs).__name__}")
        if inputs._data.ndim != 3 or inputs._data.shape[-1] != self.input_size:
            raise ArgValueError(f"{name}: inputs must be [batch, time, {self.input_size}] "
                                f"([time, batch, {self.input_size}] when time_major), got "
                                f"{list(inputs._data.shape)}")
        lstm = self._cell_class is LSTMCell
        x = _time_major(inputs, self.time_major)
        steps, batch = x._data.shape[:2]
        k = self.num_layers * self.num_directions
        shapes = [[k, batch, self.proj_size or self.hidden_size]]
        if lstm:
            shapes.append([k, batch, self.hidden_size])
        if initial_states is None:
            states = [wrap_as(type(x), np.zeros(s, x._data.dtype)) for s in shapes]
        else:
            states = list(initial_states) if lstm else [initial_states]
            got = [list(getattr(s, "shape", [])) for s in states]
            if len(states) != len(shapes) or got != shapes:
                raise ValueError(f"{name}: initial_states must be "
                                 f"{'(h, c) of shapes ' if lstm else 'of shape '}"
                                 f"{shapes if lstm else shapes[0]}, got {got}")
        mask = _mask(sequence_length, steps, batch, name)
        weights = [c._weights() for c in self._cells()]
        drop = (lambda t: F.dropout(t, self.dropout, training=True)) \
            if self.dropout and self.training else None
        mode = next(self._cells())._mode_name()
        out, hn, cn = _R.run(mode, x, states[0], states[1] if lstm else None, weights,
                             self.num_layers, self.num_directions == 2, mask, drop,
                             zero_outputs=not self.proj_size)   # the fused kernel zeroes
        return _time_major(out, self.time_major), ((hn, cn) if lstm else hn)

    def extra_repr(self):
        """input_size, hidden_size and the options that differ from the defaults."""
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(_RNNBase):
    """Stacked Elman RNN (activation tanh or relu)."""
    _cell_class = SimpleRNNCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"Unknown activation '{activation}'")
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, 0,
                         activation, name)
        self.activation = activation

    def _make_cell(self, n_in, hidden_size, attrs, proj_size, activation):
        return SimpleRNNCell(n_in, hidden_size, activation, *attrs)


class LSTM(_RNNBase):
    """Stacked LSTM (gates i, f, g, o); final_states (h, c); optional projection
    (proj_size: each cell's weight_ho [hidden_size, proj_size])."""
    _cell_class = LSTMCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, proj_size,
                         "tanh", name)

    def _make_cell(self, n_in, hidden_size, attrs, proj_size, activation):
        return LSTMCell(n_in, hidden_size, *attrs, proj_size=proj_size)


class GRU(_RNNBase):
    """Stacked GRU (gates r, z, n)."""
    _cell_class = GRUCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, 0,
                         "tanh", name)
