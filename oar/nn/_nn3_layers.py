"""Paddle door layers of the third breadth pass over oar/nn/_nn3.py."""
from __future__ import annotations

from . import _checks as _c
from . import _nn3
from . import init
from .layers import Layer, _param


class Bilinear(Layer):
    """Paddle's Bilinear: weight [out_features, in1_features, in2_features] (Xavier uniform),
    bias [1, out_features] (zeros); y = x1^T W_k x2 + b_k."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        self._in1_features = _c.count(in1_features, "Bilinear", "in1_features")
        self._in2_features = _c.count(in2_features, "Bilinear", "in2_features")
        self._out_features = _c.count(out_features, "Bilinear", "out_features")
        self._name = name
        self.weight = _param([self._out_features, self._in1_features, self._in2_features])
        init.xavier_uniform_(self.weight)
        if bias_attr is False:
            self.bias = None
            self._parameters["bias"] = None
        else:
            self.bias = _param([1, self._out_features])

    def forward(self, x1, x2):
        """F.bilinear(x1, x2, weight, bias)."""
        return _nn3.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        """Paddle's: the feature counts and the dtype (and the name when given)."""
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self.weight.dtype.name}"
                + (f", name={self._name}" if self._name else ""))


def _pairs(items, what, cls_name):
    """(key, value) pairs of a mapping, a container of the same kind, or a sequence of pairs."""
    from collections.abc import Mapping
    if items is None:
        return []
    if isinstance(items, Mapping) or hasattr(items, "items"):
        return list(items.items())
    out = []
    for i, kv in enumerate(items):
        if not isinstance(kv, (list, tuple)) or len(kv) != 2:
            raise ValueError(f"{cls_name}.update: element #{i} of the {what} sequence must be a "
                             f"(key, value) pair, got {kv!r}")
        out.append(tuple(kv))
    return out


class LayerDict(Layer):
    """Paddle's LayerDict: sublayers held by name, in insertion order, registered so their
    parameters are found."""

    def __init__(self, sublayers=None):
        super().__init__()
        self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        """Removes every sublayer."""
        self._sub_layers.clear()

    def pop(self, key):
        """Removes the sublayer under key and returns it."""
        v = self[key]
        del self[key]
        return v

    def keys(self):
        """The names, in insertion order."""
        return self._sub_layers.keys()

    def items(self):
        """(name, sublayer) pairs."""
        return self._sub_layers.items()

    def values(self):
        """The sublayers."""
        return self._sub_layers.values()

    def update(self, sublayers):
        """Adds (or replaces) the sublayers of a mapping, LayerDict or sequence of pairs."""
        for k, v in _pairs(sublayers, "sublayers", "LayerDict"):
            self.add_sublayer(k, v)


class ParameterList(Layer):
    """Paddle's ParameterList: parameters registered under "0", "1", ..."""

    def __init__(self, parameters=None):
        super().__init__()
        for p in parameters or ():
            self.append(p)

    def __getitem__(self, idx):
        return list(self._parameters.values())[idx]

    def __setitem__(self, idx, param):
        n = len(self._parameters)
        if not isinstance(idx, int) or not -n <= idx < n:
            raise IndexError(f"ParameterList: index {idx!r} out of range for {n} parameters")
        self.add_parameter(str(idx % n), param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, parameter):
        """Registers parameter under the next index; returns self."""
        self.add_parameter(str(len(self._parameters)), parameter)
        return self


class ParameterDict(Layer):
    """Paddle's ParameterDict: parameters registered by name, in insertion order."""

    def __init__(self, parameters=None):
        super().__init__()
        self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        self.add_parameter(key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def update(self, parameters):
        """Adds (or replaces) the parameters of a mapping, ParameterDict or sequence of pairs."""
        for k, v in _pairs(parameters, "parameters", "ParameterDict"):
            self.add_parameter(k, v)


class HSigmoidLoss(Layer):
    """Paddle's HSigmoidLoss over the default tree (Note [Hierarchical sigmoid default tree]):
    weight [num_classes - 1, feature_size] (Xavier uniform), bias [num_classes - 1, 1] (zeros).
    is_custom (a user tree) is not supported; is_sparse changes nothing on the CPU."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None,
                 is_custom=False, is_sparse=False, name=None):
        super().__init__()
        if is_custom:
            raise NotImplementedError("HSigmoidLoss(is_custom=True): a custom tree is not "
                                      "supported by oar; only the default tree")
        self._feature_size = _c.count(feature_size, "HSigmoidLoss", "feature_size", 1)
        self._num_classes = _c.count(num_classes, "HSigmoidLoss", "num_classes", 2)
        self._is_sparse = is_sparse
        self.weight = _param([self._num_classes - 1, self._feature_size])
        init.xavier_uniform_(self.weight)
        if bias_attr is False:
            self.bias = None
            self._parameters["bias"] = None
        else:
            self.bias = _param([self._num_classes - 1, 1])

    def forward(self, input, label, path_table=None, path_code=None):
        """F.hsigmoid_loss with this layer's weight and bias: [N, 1]."""
        return _nn3.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                                  path_table, path_code, self._is_sparse)
