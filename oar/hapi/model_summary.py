"""paddle.summary: a table of a network's layers, their input / output shapes and parameter
counts, found by running one forward pass on random input with a post-hook on every layer.

The table is Paddle's (hapi/model_summary.py of Paddle 3.3) character for character: a row
per layer that ran, keyed "<Class>-<n>" where n counts layers of that name in the process
(Note [Layer full names]); containers (Sequential, LayerList) and the network itself (unless
it has no sublayers) get no row. Sizes assume 4 bytes per element, as Paddle's do.
"""
from __future__ import annotations

import numbers
from collections import OrderedDict

import numpy as np

from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor

__all__ = ["summary"]


def _input_spec_class():
    from ..static import InputSpec
    return InputSpec


def _normalise_sizes(input_size, input):
    InputSpec = _input_spec_class()
    if input_size is None and input is None:
        raise ArgValueError("summary(): input_size and input cannot be None at the same time")
    if input_size is None:
        if isinstance(input, Tensor):
            input_size = tuple(input.shape)
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(x.shape) for x in input]
        elif isinstance(input, dict):
            input_size = [tuple(v.shape) for v in input.values()]
        else:
            raise ArgValueError("summary(): Input is not tensor, list, tuple and dict, unable to "
                                "determine input_size, please input input_size.")
    if isinstance(input_size, InputSpec):
        return tuple(input_size.shape)
    if isinstance(input_size, list):
        out = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            if not isinstance(item, (tuple, InputSpec)):
                raise ArgTypeError(f"summary(): When input_size is list, expect item in "
                                   f"input_size is a tuple or InputSpec, but got {type(item)}")
            out.append(tuple(item.shape) if isinstance(item, InputSpec) else item)
        return out
    if isinstance(input_size, int):
        return (input_size,)
    if not isinstance(input_size, tuple):
        raise ArgTypeError(f"summary(): input_size must be a shape tuple, an int, an InputSpec "
                           f"or a list of these, got {type(input_size).__name__}")
    return input_size


def _is_shape(shape):
    return all(not isinstance(item, (list, tuple)) for item in shape)


def _check_shape(shape):
    unknown = 0
    out = []
    for item in shape:
        if item is None or item == -1:
            unknown += 1
            if unknown > 1:
                raise ArgValueError("summary(): Option input_size only the dim of batch_size can "
                                    "be None or -1.")
            item = 1
        elif isinstance(item, numbers.Number):
            if item <= 0:
                raise ArgValueError(f"summary(): Expected element in input size greater than "
                                    f"zero, but got {item}")
        else:
            raise ArgTypeError(f"summary(): input sizes must be integers, got {item!r}")
        out.append(item)
    return tuple(out)


def _check_input(input_size):
    if isinstance(input_size, (list, tuple)) and _is_shape(input_size):
        return _check_shape(input_size)
    return [_check_input(i) for i in input_size]


def summary(net, input_size=None, dtypes=None, input=None):
    """Prints a table of net's layers (input and output shapes, parameter counts) from one
    forward pass on random input of input_size (a shape tuple, an InputSpec or a list of them;
    a None or -1 batch dimension becomes 1), or on `input`; returns {'total_params': ...,
    'trainable_params': ...}."""
    from ..nn import Layer
    if not isinstance(net, Layer):
        raise ArgTypeError(f"summary(): net must be a paddle.nn.Layer, got {type(net).__name__}")
    sizes = _check_input(_normalise_sizes(input_size, input))
    was_training = net.training
    if was_training:
        net.eval()
    try:
        result, params_info = summary_string(net, sizes, dtypes, input)
    finally:
        if was_training:
            net.train()
    print(result)
    return params_info


def _all_numbers(items):
    return all(isinstance(i, numbers.Number) for i in items)


def _shape_of(x):
    if isinstance(x, Tensor):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shape_of(v) for v in x]
    return None


def _output_shape(output):
    if isinstance(output, (list, tuple)):
        return [_output_shape(o) for o in output]
    if hasattr(output, "shape"):
        return list(output.shape)
    return []


# Note [Summary rows as Paddle's]
# paddle.summary's rows and counts follow how Paddle 3.3.1 holds things, where oar differs:
# - a Paddle BatchNorm keeps its running mean and variance as (non-trainable) parameters, and
#   its summary counts them; oar's BatchNorm1D/2D/3D do too (Note [Paddle batch-norm
#   statistics are parameters]), so they come with the layer's parameters; oar's other
#   batch norms with Paddle's _stat_names (oar.nn.BatchNorm1d/2d, InPlaceABN) keep them as
#   buffers, counted here after the layer's own parameters, as Paddle would list them.
# - Paddle's LSTM / GRU / SimpleRNN derive from LayerList, which gets no row, yet get one when
#   their flat weights make them eligible for the fused kernel (`could_use_cudnn`: four
#   parameters per layer and direction), and then no row for their RNN / cell sublayers, which
#   the fused kernel never calls. oar runs its cells, so their hooks are left out instead.


def _paddle_parameters(layer):
    """The tensors Paddle's summary counts for `layer`: its parameters, then the batch-norm
    statistics Paddle holds as parameters where oar keeps buffers (Note [Summary rows as
    Paddle's])."""
    out = [p for p in layer._parameters.values() if p is not None]
    if getattr(type(layer), "_stat_names", None) == ("_mean", "_variance"):
        out += [b for b in (layer._buffers.get(n) for n in layer._stat_names) if b is not None]
    return out


def _fused_rnn(layer):
    """A Paddle-door LSTM / GRU / SimpleRNN with its four flat parameters per layer and
    direction (Paddle's `could_use_cudnn`)."""
    from ..nn.rnn import _RNNBase
    return isinstance(layer, _RNNBase) and len(layer.parameters()) == \
        layer.num_layers * 4 * layer.num_directions


def _is_trainable(p):
    return bool(getattr(p, "trainable", True)) and not p.stop_gradient


def summary_string(model, input_size=None, dtypes=None, input=None):
    """The summary table (a string) and the parameter counts, without printing."""
    from ..nn import LayerList, Sequential
    from .. import cast, rand

    def build_dtypes(size, dtype):
        if isinstance(size, (list, tuple)) and _all_numbers(size):
            return [dtype or "float32"]
        return [build_dtypes(i, dtype) for i in size]

    if not isinstance(dtypes, (list, tuple)):
        dtypes = build_dtypes(input_size, dtypes)
    depth = len(model.sublayers())
    rows = OrderedDict()
    hooks = []

    def hook(layer, inputs, output):
        class_name = type(layer).__name__
        try:
            layer_idx = int(layer.full_name().split("_")[-1])
        except (ValueError, AttributeError):
            layer_idx = len(rows)
        key = f"{class_name}-{layer_idx + 1}"
        row = rows[key] = OrderedDict()
        row["input_shape"] = _shape_of(inputs)
        row["output_shape"] = _output_shape(output)
        params = 0
        row["trainable_params"] = 0
        trainable_seen = False
        for p in _paddle_parameters(layer):
            n = np.prod(p.shape)
            params += n
            if _is_trainable(p):
                row["trainable_params"] += n
                row["trainable"] = True
                trainable_seen = True
            elif not trainable_seen:
                row["trainable"] = False
        row["nb_params"] = params

    inside_fused = {id(sub) for layer in model.sublayers(include_self=True)
                    if _fused_rnn(layer) for sub in layer.sublayers()}
    for layer in model.sublayers(include_self=True):
        if id(layer) in inside_fused:
            continue
        if not isinstance(layer, (Sequential, LayerList)) and (layer is not model or depth < 1):
            hooks.append(layer.register_forward_post_hook(hook))
        elif _fused_rnn(layer):      # Note [Summary rows as Paddle's]
            hooks.append(layer.register_forward_post_hook(hook))

    if isinstance(input_size, tuple):
        input_size = [input_size]

    def build_input(size, dtype):
        if isinstance(size, (list, tuple)) and _all_numbers(size):
            d = dtype[0] if isinstance(dtype, (list, tuple)) else dtype
            return cast(rand(list(size)), d)
        return [build_input(i, d) for i, d in zip(size, dtype)]

    try:
        with grad_mode.no_grad():
            if input is not None:
                model(input)
            else:
                model(*build_input(input_size, dtypes))
    finally:
        for h in hooks:
            h.remove()

    width = {"layer_width": 15, "input_shape_width": 20, "output_shape_width": 20,
             "params_width": 15, "table_width": 75}
    for key, row in rows.items():
        width["output_shape_width"] = max(width["output_shape_width"],
                                          len(str(row["output_shape"])))
        width["input_shape_width"] = max(width["input_shape_width"], len(str(row["input_shape"])))
        width["layer_width"] = max(width["layer_width"], len(str(key)))
        width["params_width"] = max(width["params_width"], len(str(row["nb_params"])))
    cols = sum(v for k, v in width.items() if k != "table_width")
    width["table_width"] = max(width["table_width"], cols + 5)

    def line(a, b, c, d):
        return "{:^{}} {:^{}} {:^{}} {:^{}}".format(
            a, width["layer_width"], b, width["input_shape_width"], c,
            width["output_shape_width"], d, width["params_width"])

    text = "-" * width["table_width"] + "\n"
    text += line("Layer (type)", "Input Shape", "Output Shape", "Param #") + "\n"
    text += "=" * width["table_width"] + "\n"
    total_params = total_output = trainable_params = 0
    for key, row in rows.items():
        text += line(key, str(row["input_shape"]), str(row["output_shape"]),
                     "{:,}".format(row["nb_params"])) + "\n"
        total_params += row["nb_params"]
        try:
            total_output += np.sum(np.prod(row["output_shape"], axis=-1))
        except ValueError:
            for shape in row["output_shape"]:
                total_output += np.sum(np.prod(shape, axis=-1))
        if row.get("trainable"):
            trainable_params += row["trainable_params"]

    def input_bytes(size):
        if isinstance(size, (list, tuple)) and _all_numbers(size):
            return abs(np.prod(size) * 4.0 / (1024 ** 2.0))
        return sum(input_bytes(i) for i in size)

    total_input_size = input_bytes(input_size)
    total_output_size = abs(2.0 * total_output * 4.0 / (1024 ** 2.0))   # x2 for gradients
    total_params_size = abs(total_params * 4.0 / (1024 ** 2.0))
    total_size = total_params_size + total_output_size + total_input_size
    text += "=" * width["table_width"] + "\n"
    text += f"Total params: {total_params:,}\n"
    text += f"Trainable params: {trainable_params:,}\n"
    text += f"Non-trainable params: {total_params - trainable_params:,}\n"
    text += "-" * width["table_width"] + "\n"
    text += f"Input size (MB): {total_input_size:0.2f}\n"
    text += f"Forward/backward pass size (MB): {total_output_size:0.2f}\n"
    text += f"Params size (MB): {total_params_size:0.2f}\n"
    text += f"Estimated Total Size (MB): {total_size:0.2f}\n"
    text += "-" * width["table_width"] + "\n"
    return text, {"total_params": total_params, "trainable_params": trainable_params}
