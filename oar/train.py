"""`python -m oar train`: a small CNN (or MLP) on scikit-learn's digits, trained with in-place
activations, and a report of accuracy, speed and peak tensor memory beside the same model
with out-of-place activations."""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

import oar
from oar import nn
from oar.nn import functional as F
from oar.storage import start_trace, stop_trace


class CliError(Exception):
    """A bad option: one line on stderr, exit status 2 (argparse's convention)."""


class Diverged(Exception):
    """The loss became NaN or infinite during training: exit status 1."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


def _int_at_least(lo):
    def conv(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be an integer >= {lo}, got {v}")
        return v
    return conv


def _positive_finite(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return v


def parse(argv):
    """Parse and check every option (the plot path included) before any work is done."""
    p = _Parser(prog="python -m oar train", description=__doc__)
    p.add_argument("--model", choices=["cnn", "mlp"], default="cnn")
    p.add_argument("--epochs", type=_int_at_least(1), default=15)
    p.add_argument("--batch-size", type=_int_at_least(1), default=64,
                   help="at most the training set size (1437)")
    p.add_argument("--lr", type=_positive_finite, default=None,
                   help="default: 3e-3 (cnn), 1e-3 (mlp)")
    p.add_argument("--seed", type=_int_at_least(0), default=0)
    p.add_argument("--no-inplace", action="store_true", help="out-of-place activations")
    p.add_argument("--plot", metavar="FILE.png", help="memory-over-time chart of one training "
                   "step (any format matplotlib writes: png, svg, pdf ...)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.plot is not None:
        _check_plot_path(args.plot)
    return args


def load_digits():
    try:
        from sklearn.datasets import load_digits as _load
    except ImportError:
        raise CliError("scikit-learn is needed for the digits data: pip install 'oar[demo]'") from None
    d = _load()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))    # the fixed 80/20 split
    cut = int(0.8 * len(x))
    return (x[order[:cut]], y[order[:cut]]), (x[order[cut:]], y[order[cut:]])


def make_model(kind, inplace):
    if kind == "mlp":
        return nn.Sequential(nn.Linear(64, 128), nn.ReLU(inplace=inplace),
                             nn.Linear(128, 128), nn.ReLU(inplace=inplace), nn.Linear(128, 10))
    return nn.Sequential(
        nn.Conv2D(1, 16, 3, padding=1), nn.ReLU(inplace=inplace), nn.MaxPool2D(2),
        nn.Conv2D(16, 32, 3, padding=1), nn.ReLU(inplace=inplace), nn.MaxPool2D(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(inplace=inplace),
        nn.Dropout(0.1), nn.Linear(64, 10))   # not in place: ReLU's backward saved its output


def _shape_input(x, kind):
    return x if kind == "mlp" else x.reshape([-1, 1, 8, 8])


def accuracy(model, x, y, kind):
    model.eval()
    with oar.no_grad():
        pred = model(_shape_input(oar.to_tensor(x), kind)).argmax(axis=1).numpy()
    model.train()
    return float((pred == y).mean())


def _bar(done, total, width=30):
    n = int(width * done / total)
    return "[" + "#" * n + "." * (width - n) + "]"


def train(args, data, inplace, progress=True):
    (xtr, ytr), (xte, yte) = data
    oar.seed(args.seed)
    model = make_model(args.model, inplace)
    lr = args.lr if args.lr is not None else (3e-3 if args.model == "cnn" else 1e-3)
    opt = oar.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
    loader = oar.io.DataLoader(oar.io.TensorDataset([oar.to_tensor(xtr), oar.to_tensor(ytr)]),
                               batch_size=args.batch_size, shuffle=True, seed=args.seed)
    epoch_times = []
    for epoch in range(args.epochs):
        t0 = time.perf_counter()
        total = 0.0
        for i, (xb, yb) in enumerate(loader):
            loss = F.cross_entropy(model(_shape_input(xb, args.model)), yb)
            value = loss.item()
            if not math.isfinite(value):
                raise Diverged(f"the loss became {value} at epoch {epoch + 1}, batch {i + 1} "
                               f"(lr {lr}); nothing was reported. Try a smaller --lr")
            loss.backward()
            opt.step()
            opt.clear_grad(set_to_zero=False)
            total += value
            if progress and sys.stderr.isatty():
                print(f"\repoch {epoch + 1}/{args.epochs} {_bar(i + 1, len(loader))} "
                      f"loss {total / (i + 1):.4f}", end="", file=sys.stderr, flush=True)
        epoch_times.append(time.perf_counter() - t0)
        if progress:
            acc = accuracy(model, xte, yte, args.model)
            print(f"\repoch {epoch + 1}/{args.epochs} {_bar(1, 1)} loss {total / len(loader):.4f}"
                  f"  test acc {acc:.4f}  {epoch_times[-1]:.2f}s", file=sys.stderr, flush=True)
    return model, epoch_times


def step_memory(model, kind, xb, yb, trace=False):
    """Peak bytes above the resting state (parameters, optimizer state, batch) of one training
    step and of one inference pass, by the storage accounting."""
    opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    x = _shape_input(oar.to_tensor(xb), kind)
    y = oar.to_tensor(yb)
    for _ in range(2):     # the second step starts from a warm state (optimizer buffers exist)
        opt.clear_grad(set_to_zero=False)
        base = oar.device.memory_allocated()
        oar.device.reset_max_memory_allocated()
        if trace:
            start_trace()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        timeline = stop_trace() if trace else None
        train_peak = oar.device.max_memory_allocated() - base
    opt.clear_grad(set_to_zero=False)
    model.eval()
    base = oar.device.memory_allocated()
    oar.device.reset_max_memory_allocated()
    with oar.no_grad():
        model(x)
    infer_peak = oar.device.max_memory_allocated() - base
    model.train()
    return train_peak, infer_peak, ([v - base for v in timeline] if trace else None)


def _check_plot_path(path):
    if not path.strip():
        raise CliError("argument --plot: expected a file name such as memory.png, got an "
                       "empty string")
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise CliError("--plot needs matplotlib: pip install 'oar[demo]'") from None
    formats = FigureCanvasAgg(Figure()).get_supported_filetypes()
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in formats:
        what = f"format {ext!r}" if ext else "a file name without an extension"
        raise CliError(f"argument --plot: cannot write {what} ({path!r}); use one of "
                       f"{', '.join('.' + f for f in sorted(formats))}")
    d = os.path.dirname(os.path.abspath(path)) or "."
    if os.path.isdir(path):
        raise CliError(f"argument --plot: {path!r} is a directory")
    if not os.path.isdir(d) or not os.access(d, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise CliError(f"argument --plot: cannot write the plot to {path!r} (no such directory "
                       "or not writable)")


def plot(path, timelines):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, tl in timelines.items():
        ax.plot(np.arange(len(tl)), np.array(tl) / 1024, label=label)
    ax.set_xlabel("allocation / free event in one training step")
    ax.set_ylabel("tensor memory above resting state (KiB)")
    ax.set_title("oar: memory of one training step")
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as e:
        raise CliError(f"cannot write the plot to {path!r}: {e.strerror}") from None


def main(argv=None):
    try:
        args = parse(argv if argv is not None else sys.argv[1:])
        data = load_digits()
        n_train = len(data[0][0])
        if args.batch_size > n_train:      # refused, not clamped: the report names the batch
            raise CliError(f"argument --batch-size: {args.batch_size} is larger than the "
                           f"training set ({n_train} samples); use at most {n_train}")
        inplace = not args.no_inplace
        print(f"oar {oar.__version__}: training a {args.model.upper()} on digits "
              f"({len(data[0][0])} train / {len(data[1][0])} test), "
              f"{'in-place' if inplace else 'out-of-place'} activations", file=sys.stderr)
        model, times = train(args, data, inplace, progress=not args.quiet)
        acc = accuracy(model, *data[1], args.model)
        xb, yb = data[0][0][:args.batch_size], data[0][1][:args.batch_size]
        rows = {}
        timelines = {}
        for label, flag in (("in-place", True), ("out-of-place", False)):
            m = make_model(args.model, flag)
            m.set_state_dict(model.state_dict())
            tp, ip, tl = step_memory(m, args.model, xb, yb, trace=bool(args.plot))
            rows[label] = (tp, ip)
            timelines[label] = tl
        print(f"\ntest accuracy        {acc:.4f}")
        print(f"time per epoch       {np.mean(times):.2f} s (mean of {len(times)})")
        print(f"peak tensor memory (batch {args.batch_size}), above parameters + optimizer state:")
        print(f"  {'':14}{'training step':>16}{'inference':>12}")
        for label, (tp, ip) in rows.items():
            print(f"  {label:14}{tp / 1024:>13.1f} KiB{ip / 1024:>8.1f} KiB")
        a, b = rows["in-place"][0], rows["out-of-place"][0]
        print(f"  in-place / out-of-place, training step: {a / b:.3f}")
        if args.plot:
            plot(args.plot, timelines)
            print(f"memory chart written to {args.plot}")
        return 0
    except CliError as e:
        print(f"python -m oar train: error: {e}", file=sys.stderr)
        return 2
    except Diverged as e:
        print(f"\npython -m oar train: error: {e}", file=sys.stderr)
        return 1
