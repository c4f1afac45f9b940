"""paddle.Model: the high-level training API Paddle's guides teach first.

Model(network) wraps a Layer; prepare(optimizer, loss, metrics) configures it; fit /
evaluate / predict run it over a Dataset (batched by a DistributedBatchSampler, as Paddle
does) or a DataLoader; train_batch / eval_batch / predict_batch run one batch; save / load
write and read `path.pdparams` (and `path.pdopt`). Results, logs and printed progress follow
Paddle 3.3's hapi/model.py (dynamic-graph adapter): losses come back as NumPy arrays, metric
values as NumPy/Python numbers, evaluate returns {'loss': [float], <metric>: value}, predict a
list with one entry per network output, each a list of per-batch arrays (or one stacked array
with stack_outputs=True).
"""
from __future__ import annotations

import inspect
import os

import numpy as np

from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from . import callbacks as _cb
from .model_summary import summary as _summary

__all__ = ["Model"]


class _NotReadyError(ArgValueError, AssertionError):
    """A Model used before it is configured (Paddle asserts: AssertionError)."""


def _to_list(value):
    if value is None:
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _flatten(data):
    """Nested lists / tuples / dicts (by sorted key) of a batch, as one flat list."""
    if isinstance(data, (list, tuple)):
        return [y for x in data for y in _flatten(x)]
    if isinstance(data, dict):
        return [y for k in sorted(data) for y in _flatten(data[k])]
    return [data]


def _as_tensor(x):
    from .. import to_tensor
    return x if isinstance(x, Tensor) else to_tensor(x)


def _to_numpy(t):
    return np.array(t._data) if isinstance(t, Tensor) else np.array(t)


def _input_info(inputs):
    from ..static import InputSpec
    if isinstance(inputs, InputSpec):
        return [list(inputs.shape)], [inputs.dtype]
    if isinstance(inputs, (list, tuple)):
        return [list(i.shape) for i in inputs], [i.dtype for i in inputs]
    if isinstance(inputs, dict):
        return [list(v.shape) for v in inputs.values()], [v.dtype for v in inputs.values()]
    return None


class Model:
    """Wraps a network (a paddle.nn.Layer) for fit / evaluate / predict. inputs / labels:
    optional InputSpecs of the network's inputs and of the labels; by default the network
    takes as many inputs as its forward() has positional parameters, and the rest of each
    batch are labels."""

    def __init__(self, network, inputs=None, labels=None):
        from ..nn import Layer
        if not isinstance(network, Layer):
            raise ArgTypeError(f"Model: network must be a paddle.nn.Layer, got "
                               f"{type(network).__name__}")
        self.mode = "train"
        self.network = network
        self._loss = None
        self._loss_weights = None
        self._optimizer = None
        self._metrics = []
        self._input_info = None
        self._is_shape_inferred = False
        self._test_dataloader = None
        self._accumulate = 1
        self.stop_training = False
        if inputs:
            self._input_info = _input_info(inputs)
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)

    def _forward_arg_names(self):
        try:
            return inspect.getfullargspec(self.network.forward).args[1:]
        except TypeError:
            return []

    def _verify_spec(self, specs, shapes=None, dtypes=None, is_input=False):
        from ..static import InputSpec
        if specs is None:
            if not is_input:
                return None
            names = self._forward_arg_names()
            if shapes is not None and dtypes is not None:
                out = [InputSpec(shape=shapes[i], dtype=dtypes[i], name=n)
                       for i, n in enumerate(names) if i < len(shapes)]
            else:
                out = [InputSpec(shape=[None], name=n) for n in names]
        elif isinstance(specs, dict):
            if is_input:
                raise ArgTypeError("Model: inputs given as a dict are not supported; give a "
                                   "list of InputSpecs in forward()'s order")
            out = [specs[n] for n in self._forward_arg_names()]
        else:
            out = _to_list(specs)
        for i, spec in enumerate(out):
            if not isinstance(spec, InputSpec):
                raise ArgTypeError(f"Model: inputs/labels must be paddle.static.InputSpec, "
                                   f"item {i} is {type(spec).__name__}")
            if spec.name is None:
                raise ArgValueError(f"Requires Input[{i}].name != None, but receive `None` with "
                                    f"{spec}.")
        return out

    def _update_inputs(self, info):
        if self._input_info is None and info is not None:
            self._input_info = info
            self._inputs = self._verify_spec(None, info[0], info[1], True)
            self._is_shape_inferred = True

    # one batch ---------------------------------------------------------------------------
    def train_batch(self, inputs, labels=None, update=True):
        """Runs one training step on a batch (arrays or tensors): forward, loss, backward and,
        when update, the optimizer step. Returns the losses as NumPy arrays (and the metrics'
        batch values when there are metrics)."""
        if self._optimizer is None:
            raise _NotReadyError("model not ready, please call `model.prepare()` first")
        if self._loss is None:
            raise _NotReadyError("Model.train_batch: no loss; give one to model.prepare(loss=...)")
        self.network.train()
        self.mode = "train"
        inputs = [_as_tensor(x) for x in _to_list(inputs)]
        labels = [_as_tensor(y) for y in _to_list(labels or [])]
        outputs = self.network(*inputs)
        losses = _to_list(self._loss(*(_to_list(outputs) + labels)))
        from .. import add_n
        final = add_n(losses)
        final.backward()
        if update:
            self._optimizer.step()
            self.network.clear_gradients()
        metrics = self._update_metrics(outputs, labels)
        self._update_inputs(_input_info(inputs))
        losses = [_to_numpy(x) for x in losses]
        return (losses, metrics) if metrics else losses

    def _update_metrics(self, outputs, labels):
        out = []
        with grad_mode.no_grad():
            for metric in self._metrics:
                res = metric.compute(*(_to_list(outputs) + labels))
                out.append(metric.update(*[_to_numpy(m) for m in _to_list(res)]))
        return out

    def eval_batch(self, inputs, labels=None):
        """Runs one evaluation step (no gradients): returns the losses as NumPy arrays and / or
        the metrics' batch values."""
        with grad_mode.no_grad():
            self.network.eval()
            self.mode = "eval"
            inputs = [_as_tensor(x) for x in _to_list(inputs)]
            labels = [_as_tensor(y) for y in _to_list(labels or [])]
            outputs = self.network(*inputs)
            losses = _to_list(self._loss(*(_to_list(outputs) + labels))) if self._loss else None
            metrics = self._update_metrics(outputs, labels)
        self._update_inputs(_input_info(inputs))
        if self._loss and metrics:
            return [_to_numpy(x) for x in losses], metrics
        if self._loss:
            return [_to_numpy(x) for x in losses]
        return metrics

    def predict_batch(self, inputs):
        """The network's outputs on one batch (no gradients), as a list of NumPy arrays."""
        with grad_mode.no_grad():
            self.network.eval()
            self.mode = "test"
            inputs = [_as_tensor(x) for x in _to_list(inputs)]
            outputs = self.network(*inputs)
        self._update_inputs(_input_info(inputs))
        return [_to_numpy(o) for o in _to_list(outputs)]

    # configuration -------------------------------------------------------------------------
    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self.network.parameters(*args, **kwargs)

    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Sets the optimizer (needed to train), the loss (a Layer or a callable of
        (outputs..., labels...)) and the metrics (paddle.metric.Metric instances)."""
        from ..metric import Metric
        from ..nn import Layer
        if amp_configs not in (None, "O0") and not (isinstance(amp_configs, dict)
                                                    and amp_configs.get("level", "O0") == "O0"):
            raise NotImplementedError("Model.prepare: mixed precision (amp_configs) is not "
                                      "supported: oar trains in float32 on the CPU")
        if optimizer is not None and not hasattr(optimizer, "step"):
            raise ArgTypeError(f"Model.prepare: optimizer must be a paddle.optimizer "
                               f"Optimizer, got {type(optimizer).__name__}")
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise ArgTypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable "
                               "function.")
        metrics = _to_list(metrics) or []
        for m in metrics:
            if not isinstance(m, Metric):
                raise _NotReadyError(f"{type(m).__name__} is not sub class of Metric")
        self._optimizer = optimizer
        self._loss = loss
        self._metrics = metrics

    # loops ---------------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle=False, drop_last=False, num_workers=0):
        from ..io import DataLoader, Dataset, DistributedBatchSampler
        if isinstance(data, Dataset):
            sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle,
                                              drop_last=drop_last)
            return DataLoader(data, batch_sampler=sampler, num_workers=num_workers,
                              return_list=True)
        if data is not None and not hasattr(data, "__iter__"):
            raise ArgTypeError(f"Model: data must be a paddle.io.Dataset, a DataLoader or an "
                               f"iterable of batches, got {type(data).__name__}")
        return data

    @staticmethod
    def _len(loader):
        try:
            return len(loader)
        except Exception:
            return None

    def _metrics_name(self):
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    def _reset_metrics(self):
        for m in self._metrics:
            m.reset()

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True,
            num_workers=0, callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Trains for `epochs` over train_data (a Dataset, shuffled per epoch as Paddle does, or
        a DataLoader), evaluating on eval_data every eval_freq epochs; prints progress
        (verbose 0, 1 or 2) every log_freq steps; saves to save_dir every save_freq epochs."""
        if train_data is None:
            raise _NotReadyError("train_data must be given!")
        if isinstance(batch_size, (tuple, list)) and all(isinstance(x, int) for x in batch_size):
            if len(batch_size) != 2:
                raise _NotReadyError("batch_size length error, expected train_batch_size and "
                                     "eval_batch_size.")
            train_bs, eval_bs = batch_size
        elif isinstance(batch_size, int) and not isinstance(batch_size, bool):
            train_bs = eval_bs = batch_size
        else:
            raise ArgTypeError(f"Model.fit: batch_size must be an int or [train, eval] ints, "
                               f"got {batch_size!r}")
        train_loader = self._loader(train_data, train_bs, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, eval_bs, num_workers=num_workers) \
            if eval_data is not None else None
        do_eval = eval_loader is not None
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = self._len(train_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(steps, int):
            if num_iters <= 0:
                raise _NotReadyError("num_iters must be greater than 0!")
            epochs = num_iters // steps + 1
            steps = min(num_iters, steps)
        cbks = _cb.config_callbacks(callbacks, model=self, epochs=epochs, steps=steps,
                                    log_freq=log_freq, save_freq=save_freq, save_dir=save_dir,
                                    verbose=verbose, metrics=self._metrics_name())
        self.stop_training = False
        cbks.on_begin("train")
        logs = {}
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if do_eval and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len(eval_loader),
                                       "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_iters=None):
        """Evaluates over eval_data; returns {'loss': [float], <metric name>: value}."""
        loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = _cb.config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                    metrics=self._metrics_name())
        steps = self._len(loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(steps, int):
            if num_iters <= 0:
                raise _NotReadyError("num_iters must be greater than 0!")
            steps = min(num_iters, steps)
            self.num_iters = steps
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None):
        """The network's outputs over test_data: a list with one entry per output, each a
        tuple of per-batch NumPy arrays (one array stacked over batches with
        stack_outputs=True)."""
        loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = _cb.config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": self._len(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, data_loader, callbacks, mode):
        logs = {}
        outputs = []
        n_inputs = len(self._inputs) if self._inputs is not None else None
        total = self._len(data_loader)
        for step, data in enumerate(data_loader):
            data = _flatten(data)
            if not data or not hasattr(data[0], "shape"):
                raise ArgTypeError(f"Model.{mode}: each batch must hold tensors or arrays, got "
                                   f"{type(data[0]).__name__ if data else 'an empty batch'}")
            batch_size = data[0].shape[0] if len(data[0].shape) else 1
            callbacks.on_batch_begin(mode, step, logs)
            if mode != "predict":
                args = [data[:n_inputs], data[n_inputs:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == total)
                outs = getattr(self, mode + "_batch")(*args)
                if self._metrics and self._loss:
                    values = [[float(x) for x in outs[0]]]
                elif self._loss:
                    values = [[float(x) for x in outs]]
                else:
                    values = []
                for metric in self._metrics:
                    values.extend(_to_list(metric.accumulate()))
                for k, v in zip(self._metrics_name(), values):
                    logs[k] = v
            else:
                outputs.append(self.predict_batch(data[:n_inputs] if n_inputs is not None
                                                  else data))
            logs["step"] = step
            logs["batch_size"] = batch_size
            callbacks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        self._reset_metrics()
        if mode == "predict":
            return logs, outputs
        return logs

    # files ----------------------------------------------------------------------------------
    def save(self, path, training=True):
        """Writes the parameters to path + '.pdparams' and, when the optimizer has state
        (moments, a learning-rate schedule), that state to path + '.pdopt'; directories are
        created. training=False (an inference model) needs a static graph: refused."""
        from .. import save as _save
        from ..static import no_static_graph
        if not training:
            raise no_static_graph("Model.save(training=False)",
                                  "save for training (the default) and rebuild the network "
                                  "in Python for inference")
        if not isinstance(path, str) or not os.path.basename(path):
            raise ArgValueError(f"Model.save: path must be 'dirname/file_prefix' or "
                                f"'file_prefix', got {path!r}")
        dirname = os.path.dirname(path)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        _save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            state = self._optimizer.state_dict()
            # Paddle writes .pdopt only for an optimizer with state: moments or a schedule
            # (plain SGD has none; oar's per-parameter step counter alone does not count)
            buffers = any(isinstance(v, dict) and any(k != "step" for k in v)
                          for v in state.values())
            if buffers or getattr(self._optimizer, "_scheduler", None) is not None:
                _save(state, path + ".pdopt")

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Loads path + '.pdparams' into the network (every key and shape checked first;
        mismatches skipped with a warning when skip_mismatch) and, unless reset_optimizer,
        path + '.pdopt' into the optimizer when that file exists."""
        import warnings

        from .. import load as _load
        if not isinstance(path, str):
            raise ArgTypeError(f"Model.load: path must be a str, got {type(path).__name__}")
        stem, ext = os.path.splitext(path)
        if ext in ("", ".pdparams", ".pdopt", ".pdmodel"):
            path = stem
        else:
            raise _NotReadyError(f"Unknown postfix {ext} from weights")
        if not os.path.exists(path + ".pdparams"):
            raise _NotReadyError(f"Failed to load parameters, please check path: "
                                 f"{path + '.pdparams'} does not exist")
        state = _load(path + ".pdparams")
        matched = {}
        for key, param in self.network.state_dict().items():
            value = state.get(key) if hasattr(state, "get") else None
            if value is None:
                err = f"{key} is not found in the providing file."
            elif list(np.shape(value._data if isinstance(value, Tensor) else value)) \
                    != list(param.shape):
                got = list(np.shape(value._data if isinstance(value, Tensor) else value))
                err = (f"{key} receives a shape {got}, but the expected shape is "
                       f"{list(param.shape)}.")
            else:
                matched[key] = value
                continue
            if not skip_mismatch:
                raise ArgValueError(err)
            warnings.warn(f"Skip loading for {key}. " + err)
            reset_optimizer = True
        with warnings.catch_warnings():    # each skipped key was reported above
            warnings.simplefilter("ignore")
            self.network.set_state_dict(matched)
        if self._optimizer is not None and not reset_optimizer \
                and os.path.exists(path + ".pdopt"):
            self._optimizer.set_state_dict(_load(path + ".pdopt"))

    def summary(self, input_size=None, dtype=None):
        """paddle.summary of the network, on input_size or else the Model's input specs."""
        if input_size is None and self._inputs is None:
            raise _NotReadyError("'input_size' or 'self._input' must be set")
        return _summary(self.network, input_size if input_size is not None else self._inputs,
                        dtypes=dtype)
