"""paddle.callbacks: hooks that paddle.Model.fit / evaluate / predict call around epochs and
batches (Callback), and the ones it adds itself: ProgBarLogger (the progress lines),
ModelCheckpoint (save_dir), LRScheduler (steps a learning-rate scheduler), plus
EarlyStopping, ReduceLROnPlateau, and VisualDL / WandbCallback (which need the visualdl / wandb
packages and raise ImportError saying so when they are absent). Their behaviour and printed text follow Paddle 3.3's hapi/callbacks.py."""
from __future__ import annotations

import numbers
import os
import time
import warnings

import numpy as np

from ..autograd.errors import ArgValueError
from .progressbar import ProgressBar


def _monitored(value):
    """A monitored log entry as the number the callbacks compare: a list's first element;
    None (skip this check) for anything else that is not a number, as Paddle's callbacks."""
    if isinstance(value, (list, tuple)):
        return value[0]
    return value if isinstance(value, numbers.Number) else None

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"]

_MODES = ("train", "eval", "predict")


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq=2, verbose=2, save_freq=1, save_dir=None, metrics=None,
                     mode="train"):
    """The CallbackList Model runs: the user's callbacks plus a ProgBarLogger (when verbose),
    a ModelCheckpoint and an LRScheduler unless the user gave one of each."""
    cbks = callbacks or []
    cbks = list(cbks if isinstance(cbks, (list, tuple)) else [cbks])
    for c in cbks:
        if not isinstance(c, Callback):
            raise ArgValueError(f"callbacks must be paddle.callbacks.Callback instances, got "
                                f"{type(c).__name__}")
    if not any(isinstance(k, ProgBarLogger) for k in cbks) and verbose:
        cbks = [ProgBarLogger(log_freq, verbose=verbose), *cbks]
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks = [*cbks, ModelCheckpoint(save_freq, save_dir)]
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks = [*cbks, LRScheduler()]
    out = CallbackList(cbks)
    out.set_model(model)
    metrics = (metrics or []) if mode != "test" else []
    out.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                    "verbose": verbose, "metrics": metrics})
    return out


class CallbackList:
    """Calls the same hook on every callback, in order."""

    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])
        self.params = {}
        self.model = None

    def append(self, callback):
        """Adds a callback at the end."""
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        """Gives every callback the run's parameters."""
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        """Gives every callback the model."""
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode, logs=None):
        """on_train_begin / on_eval_begin / on_predict_begin."""
        assert mode in _MODES, "mode should be train, eval or predict"
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        """on_train_end / on_eval_end / on_predict_end."""
        assert mode in _MODES, "mode should be train, eval or predict"
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        """on_epoch_begin on every callback."""
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        """on_epoch_end on every callback."""
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        """on_<mode>_batch_begin on every callback."""
        assert mode in _MODES, "mode should be train, eval or predict"
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        """on_<mode>_batch_end on every callback."""
        assert mode in _MODES, "mode should be train, eval or predict"
        self._call(f"on_{mode}_batch_end", step, logs)


class Callback:
    """Base class of callbacks: override the hooks you need (each does nothing here).
    `self.model` is the paddle.Model, `self.params` the run's batch_size, epochs, steps,
    verbose and metric names."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        """Stores the run's parameters (a dict)."""
        self.params = params

    def set_model(self, model):
        """Stores the model."""
        self.model = model

    def on_train_begin(self, logs=None):
        """Called once before training."""

    def on_train_end(self, logs=None):
        """Called once after training."""

    def on_eval_begin(self, logs=None):
        """Called before an evaluation (logs: 'steps', 'metrics')."""

    def on_eval_end(self, logs=None):
        """Called after an evaluation (logs: the loss and metrics)."""

    def on_predict_begin(self, logs=None):
        """Called before prediction."""

    def on_predict_end(self, logs=None):
        """Called after prediction."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of each training epoch."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of each training epoch (logs: the last batch's loss and metrics)."""

    def on_train_batch_begin(self, step, logs=None):
        """Called before each training batch."""

    def on_train_batch_end(self, step, logs=None):
        """Called after each training batch (logs: 'loss', metrics, 'batch_size')."""

    def on_eval_batch_begin(self, step, logs=None):
        """Called before each evaluation batch."""

    def on_eval_batch_end(self, step, logs=None):
        """Called after each evaluation batch (logs: 'loss', metrics, 'batch_size')."""

    def on_predict_batch_begin(self, step, logs=None):
        """Called before each prediction batch."""

    def on_predict_batch_end(self, step, logs=None):
        """Called after each prediction batch."""


class ProgBarLogger(Callback):
    """Prints the loss and metrics: verbose 0 silent, 1 a progress bar, 2 one line per report
    (every log_freq steps and at the end), 3 as 2 plus reader/batch timings."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.epochs = None
        self.steps = None
        self.progbar = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self):
        return bool(self.verbose)

    def _timer(self):
        return {"data_time": 0.0, "batch_time": 0.0, "count": 0, "samples": 0,
                "batch_start_time": time.time()}

    def on_train_begin(self, logs=None):
        """Prints Paddle's note on what the logged values mean."""
        self.epochs = self.params["epochs"]
        self.train_metrics = self.params["metrics"]
        self._train_timer = self._timer()
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is "
                  "the average value of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        """Prints 'Epoch i/n' and starts a progress bar."""
        self.steps = self.params["steps"]
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._train_timer["batch_start_time"] = time.time()

    def _updates(self, logs, mode):
        logs = logs or {}
        values = [(k, logs[k]) for k in getattr(self, f"{mode}_metrics") if k in logs]
        timer = getattr(self, f"_{mode}_timer", None)
        if self.verbose == 3 and timer is not None:
            cnt = timer["count"] if timer["count"] > 0 else 1.0
            samples = timer["samples"] if timer["samples"] > 0 else 1.0
            values.append(("avg_reader_cost", "%.5f sec" % (timer["data_time"] / cnt)))
            values.append(("avg_batch_cost", "%.5f sec" % (timer["batch_time"] / cnt)))
            spent = timer["data_time"] + timer["batch_time"]
            values.append(("ips", "%.5f samples/sec" % (samples / spent if spent else 0.0)))
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def _batch_begin(self, mode):
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_data_end_time"] = time.time()
        timer["data_time"] += timer["batch_data_end_time"] - timer["batch_start_time"]

    def _batch_end(self, mode, logs, steps):
        logs = logs or {}
        setattr(self, f"{mode}_step", getattr(self, f"{mode}_step") + 1)
        step = getattr(self, f"{mode}_step")
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_time"] += time.time() - timer.get("batch_data_end_time", time.time())
        timer["count"] += 1
        timer["samples"] += logs.get("batch_size", 1)
        if self._is_print() and step % self.log_freq == 0 and (steps is None or step < steps):
            self._updates(logs, mode)
        timer["batch_start_time"] = time.time()

    def on_train_batch_begin(self, step, logs=None):
        """Times the data loading."""
        self._batch_begin("train")

    def on_train_batch_end(self, step, logs=None):
        """Reports every log_freq steps (the last step is reported by on_epoch_end)."""
        self._batch_end("train", logs, self.steps)

    def on_epoch_end(self, epoch, logs=None):
        """Reports the epoch's last step."""
        if self._is_print() and self.steps is not None:
            self._updates(logs, "train")

    def on_eval_begin(self, logs=None):
        """Prints 'Eval begin...' and starts a progress bar."""
        logs = logs or {}
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0
        self._eval_timer = self._timer()
        self.eval_progbar = ProgressBar(num=self.eval_steps, verbose=self.verbose)
        if self._is_print():
            print("Eval begin...")

    def on_eval_batch_begin(self, step, logs=None):
        """Times the data loading."""
        self._batch_begin("eval")

    def on_eval_batch_end(self, step, logs=None):
        """Counts the samples and reports every log_freq steps."""
        self.evaled_samples += (logs or {}).get("batch_size", 1)
        self._batch_end("eval", logs, self.eval_steps)

    def on_eval_end(self, logs=None):
        """Reports the last step and the number of samples."""
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs, "eval")
            print(f"Eval samples: {self.evaled_samples}")

    def on_predict_begin(self, logs=None):
        """Prints 'Predict begin...' and starts a progress bar."""
        logs = logs or {}
        self.test_steps = logs.get("steps", None)
        self.test_metrics = logs.get("metrics", [])
        self.test_step = 0
        self.tested_samples = 0
        self._test_timer = self._timer()
        self.test_progbar = ProgressBar(num=self.test_steps, verbose=self.verbose)
        if self._is_print():
            print("Predict begin...")

    def on_predict_batch_begin(self, step, logs=None):
        """Times the data loading."""
        self._batch_begin("test")

    def on_predict_batch_end(self, step, logs=None):
        """Counts the samples and reports every log_freq steps."""
        self.tested_samples += (logs or {}).get("batch_size", 1)
        self._batch_end("test", logs, self.test_steps)

    def on_predict_end(self, logs=None):
        """Reports the last step and the number of samples."""
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs, "test")
            print(f"Predict samples: {self.tested_samples}")


class ModelCheckpoint(Callback):
    """Saves the model (model.save) to save_dir/<epoch> every save_freq epochs and to
    save_dir/final after training; nothing when save_dir is None."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        """Remembers the epoch."""
        self.epoch = epoch

    def _is_save(self):
        return self.model is not None and self.save_dir

    def on_epoch_end(self, epoch, logs=None):
        """Saves save_dir/<epoch> every save_freq epochs."""
        if self._is_save() and self.epoch % self.save_freq == 0:
            path = f"{self.save_dir}/{epoch}"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        """Saves save_dir/final."""
        if self._is_save():
            path = f"{self.save_dir}/final"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (by_step) or every
    epoch (by_epoch)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ArgValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step(self):
        from ..optimizer.lr import LRScheduler as _Scheduler
        opt = getattr(self.model, "_optimizer", None)
        sched = getattr(opt, "_scheduler", None)
        if isinstance(sched, _Scheduler):
            sched.step()

    def on_epoch_end(self, epoch, logs=None):
        """Steps the scheduler when by_epoch."""
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        """Steps the scheduler when by_step."""
        if self.by_step:
            self._step()


class EarlyStopping(Callback):
    """Stops fit (model.stop_training = True) when the monitored evaluation value has not
    improved by min_delta for patience evaluations; saves the best model to
    save_dir/best_model when save_best_model and fit has a save_dir."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        if mode == "min" or (mode == "auto" and "acc" not in monitor):
            self.monitor_op = np.less
        else:
            self.monitor_op = np.greater
        if self.monitor_op == np.less:
            self.min_delta *= -1

    def on_train_begin(self, logs=None):
        """Resets the best value."""
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        """Compares the monitored value with the best so far."""
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.")
            return
        current = _monitored(logs[self.monitor])
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    print("Best checkpoint has been saved at "
                          f"{os.path.abspath(os.path.join(self.save_dir, 'best_model'))}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies the optimizer's learning rate by `factor` (not below min_lr) when the
    monitored evaluation value has not improved by min_delta for `patience` evaluations, then
    waits `cooldown` evaluations. A learning rate driven by a scheduler is left alone (with a
    warning), as in Paddle."""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ArgValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best = 0
        self.mode = mode
        self.monitor_op = None
        self.epoch = 0
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to "
                          f"auto mode.")
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def in_cooldown(self):
        """Whether the last reduction's cooldown is still running."""
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        """Resets the counters and the best value."""
        self._reset()

    def on_eval_end(self, logs=None):
        """Compares the monitored value with the best so far; reduces the rate on a plateau."""
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        opt = getattr(self.model, "_optimizer", None)
        groups = getattr(opt, "param_groups", None)
        if not groups:
            warnings.warn("There are something wrong when get learning_rate from optimizer: "
                          "the model has no optimizer.")
            return
        lr = groups[0]["lr"]
        if not isinstance(lr, float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(lr)}.")
            return
        current = _monitored(logs[self.monitor])
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = opt.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    opt.set_lr(new_lr)
                    if self.verbose > 0:
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


class VisualDL(Callback):
    """Writes the training and evaluation loss and metrics to a VisualDL log in log_dir
    (scalars "train/<name>" by step, "eval/<name>" by epoch). Needs the visualdl package: the
    first write raises ImportError saying how to install it when it is absent."""

    def __init__(self, log_dir):
        super().__init__()
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def on_train_begin(self, logs=None):
        """Remembers the run's epochs and metric names."""
        self.epochs = self.params["epochs"]
        assert self.epochs
        self.train_metrics = self.params["metrics"]
        assert self.train_metrics
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        """Remembers the epoch."""
        self.steps = self.params["steps"]
        self.epoch = epoch

    def _updates(self, logs, mode):
        if not hasattr(self, "writer"):
            from ..utils._imports import try_import
            self.writer = try_import("visualdl").LogWriter(self.log_dir)
        step = self.train_step if mode == "train" else self.epoch
        for k in getattr(self, f"{mode}_metrics"):
            if k not in logs:
                continue
            value = logs[k]
            if isinstance(value, (list, tuple)):
                value = value[0]
            elif not isinstance(value, numbers.Number):
                continue
            self.writer.add_scalar(tag=f"{mode}/{k}", step=step, value=value)

    def on_train_batch_end(self, step, logs=None):
        """Writes the batch's loss and metrics."""
        self.train_step += 1
        self._updates(logs or {}, "train")

    def on_eval_begin(self, logs=None):
        """Remembers the evaluation's metric names."""
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0

    def on_train_end(self, logs=None):
        """Closes the log."""
        if hasattr(self, "writer"):
            self.writer.close()
            del self.writer

    def on_eval_end(self, logs=None):
        """Writes the evaluation's loss and metrics (and closes the log outside fit)."""
        self._updates(logs or {}, "eval")
        if not hasattr(self, "_is_fit") and hasattr(self, "writer"):
            self.writer.close()
            del self.writer


class WandbCallback(Callback):
    """Logs to Weights & Biases; needs the wandb package (ImportError saying so at
    construction when it is absent)."""

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None,
                 job_type=None, **kwargs):
        super().__init__()
        from ..utils._imports import try_import
        self.wandb = try_import("wandb", "You want to use `wandb` which is not installed yet "
                                         "install it with `pip install wandb`")
        self.wandb_args = {"project": project, "name": name, "entity": entity, "dir": dir,
                           "mode": mode, "job_type": job_type, **kwargs}
        self._run = None
        raise NotImplementedError("WandbCallback: logging to wandb is not implemented in oar; "
                                  "log from a custom paddle.callbacks.Callback instead")
