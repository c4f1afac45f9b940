"""The recurrence shared by both doors' recurrent layers: one step of each cell (Elman tanh /
relu, LSTM with an optional projection, GRU), a scan over time with per-sequence lengths, and
the stack of layers and directions. Everything is composed of oar ops, so autograd
differentiates it step by step and result classes follow the input (Note [Recurrent layers
per door]).

# Note [Recurrent layers per door]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Both frameworks agree on the math and on the weight layouts: w_ih [gates * H, in], w_hh
# [gates * H, H (or proj)], biases [gates * H], gates in the order LSTM i, f, g, o and GRU
# r, z, n with the reset gate applied to (W_hn h + b_hn) (checked numerically against torch
# 2.13 and Paddle 3.3.1 in tests/test_breadth_rnn.py). The doors differ in names and shells:
# * torch: weight_ih_l{k}[_reverse] on the layer itself, batch_first, hx, PackedSequence,
#   LSTM projection weight_hr_l{k} [proj, H] (h = W_hr h).
# * Paddle: a LayerList of RNN / BiRNN wrappers around cells whose parameters are also the
#   layer's weight_ih_l{k}[_reverse]; time_major, initial_states, sequence_length, LSTM
#   projection weight_ho [H, proj] (h = h W_ho).
# Lengths (torch's packed batches, Paddle's sequence_length) mean the same thing here: a
# sequence of length L is run as if it were cut at L — its state stops changing after step L
# (the reverse direction starts at step L - 1) and its final state is the one of its last
# valid step. Its outputs past L are zeros (zero_outputs=True: torch, Paddle's fused
# SimpleRNN/LSTM/GRU kernel), except in Paddle's step-by-step path (paddle.nn.RNN / BiRNN and
# an LSTM with proj_size), which leaves there what the cell computed from the held state.
"""
from __future__ import annotations

import numpy as np

from ..autograd.errors import ArgValueError
from ..ops.registry import FUNCTIONS as _FN
from ..tensor import wrap_as
from .functional import _linear

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def cell_step(mode, x, state, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
    """One step of a cell: the new h (LSTM: (h, c)). x [N, in]; weights in the shared layout
    (Note [Recurrent layers per door]); w_hr [proj, H] projects an LSTM's h."""
    h = state[0] if mode == "LSTM" else state
    a, b = _linear(x, w_ih, b_ih, True), _linear(h, w_hh, b_hh, True)
    if mode == "RNN_TANH":
        return (a + b).tanh()
    if mode == "RNN_RELU":
        return (a + b).relu()
    n = w_hh._data.shape[0] // GATES[mode]
    if mode == "LSTM":
        g = a + b
        i, f = g[..., :n].sigmoid(), g[..., n:2 * n].sigmoid()
        gg, o = g[..., 2 * n:3 * n].tanh(), g[..., 3 * n:].sigmoid()
        c = f * state[1] + i * gg
        h = o * c.tanh()
        return (h if w_hr is None else _linear(h, w_hr, None, True)), c
    r = (a[..., :n] + b[..., :n]).sigmoid()
    z = (a[..., n:2 * n] + b[..., n:2 * n]).sigmoid()
    cand = (a[..., 2 * n:] + r * b[..., 2 * n:]).tanh()
    return (h - cand) * z + cand


def _nest(fn, *states):
    """fn applied leaf by leaf over states of the same tuple structure."""
    if isinstance(states[0], (tuple, list)):
        return type(states[0])(_nest(fn, *parts) for parts in zip(*states))
    return fn(*states)


def length_mask(lengths, steps, batch, op):
    """[steps, batch] bool array: step t of sequence b is valid (t < lengths[b]); None when
    lengths is None. Lengths must be integers in [0, steps]."""
    if lengths is None:
        return None
    arr = np.asarray(lengths._data if hasattr(lengths, "_data") else lengths)
    if arr.dtype.kind not in "iu" or arr.shape != (batch,):
        raise ArgValueError(f"{op}: sequence lengths must be {batch} integers (one per "
                            f"sequence), got dtype {arr.dtype} shape {list(arr.shape)}")
    if arr.size and (arr.min() < 0 or arr.max() > steps):
        raise ArgValueError(f"{op}: sequence lengths must lie in [0, {steps}] (the padded "
                            f"length), got {arr.tolist()}")
    return np.arange(steps)[:, None] < arr[None, :]


def scan(step, inputs, state, reverse=False, mask=None, zero_outputs=True):
    """Runs step(x_t, state) -> (out_t, state') over inputs [T, N, ...] (time-major), from the
    last step backwards when reverse. mask [T, N] (bool array or None): where False the state
    is kept and the output is zero (unless not zero_outputs). Returns (outputs stacked
    [T, N, ...], final state)."""
    steps = inputs._data.shape[0]
    outs = []
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        out, new = step(inputs[t], state)
        if mask is not None and not mask[t].all():
            keep = wrap_as(type(out), mask[t][:, None])
            new = _nest(lambda n, o: _FN["where"](keep, n, o), new, state)
            if zero_outputs:
                out = out * wrap_as(type(out), mask[t][:, None].astype(out._data.dtype))
        state = new
        outs.append(out)
    if reverse:
        outs.reverse()
    return _FN["stack"](outs, 0), state


def run(mode, x, h0, c0, weights, num_layers, bidirectional, mask=None, dropout=None,
        zero_outputs=True):
    """The stacked recurrence over x [T, N, in] (time-major). h0 (and c0 for LSTM)
    [layers * dirs, N, H]; weights[layer * dirs + d] = (w_ih, w_hh, b_ih, b_hh, w_hr) with
    None for an absent bias / projection; dropout(t) is applied between layers (or None).
    Returns (output [T, N, dirs * H], h_n, c_n or None)."""
    lstm = mode == "LSTM"
    dirs = 2 if bidirectional else 1
    layer_in, h_out, c_out = x, [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = weights[k]

            def step(xt, st, w=w):
                new = cell_step(mode, xt, st, *w)
                return (new[0] if lstm else new), new
            out, st = scan(step, layer_in, (h0[k], c0[k]) if lstm else h0[k], d == 1, mask,
                           zero_outputs)
            outs.append(out)
            h_out.append(st[0] if lstm else st)
            if lstm:
                c_out.append(st[1])
        layer_in = outs[0] if dirs == 1 else _FN["concat"](outs, -1)
        if dropout is not None and layer < num_layers - 1:
            layer_in = dropout(layer_in)
    hn = _FN["stack"](h_out, 0)
    return layer_in, hn, (_FN["stack"](c_out, 0) if lstm else None)
