"""`python -m oar train`: a small CNN (or MLP) on scikit-learn's digits, trained with in-place
activations, and a report of accuracy, speed and peak tensor memory beside the same model
with out-of-place activations."""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import oar
from oar import nn
from oar.nn import functional as F
from oar.storage import start_trace, stop_trace


class CliError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


def parse(argv):
    p = _Parser(prog="python -m oar train", description=__doc__)
    p.add_argument("--model", choices=["cnn", "mlp"], default="cnn")
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=None, help="default: 3e-3 (cnn), 1e-3 (mlp)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-inplace", action="store_true", help="out-of-place activations")
    p.add_argument("--plot", metavar="FILE.png", help="memory-over-time chart of one training step")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.epochs < 1:
        raise CliError(f"--epochs must be at least 1, got {args.epochs}")
    if args.batch_size < 1:
        raise CliError(f"--batch-size must be at least 1, got {args.batch_size}")
    if args.lr is not None and not args.lr > 0:
        raise CliError(f"--lr must be positive, got {args.lr}")
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
            loss.backward()
            opt.step()
            opt.clear_grad(set_to_zero=False)
            total += loss.item()
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
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CliError("--plot needs matplotlib: pip install 'oar[demo]'") from None
    d = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(d) or not os.access(d, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise CliError(f"cannot write the plot to {path!r}")


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
        if args.plot:
            _check_plot_path(args.plot)
        data = load_digits()
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
        print(f"oar train: error: {e}", file=sys.stderr)
        return 2
