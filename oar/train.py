"""`python -m oar train`: a small Conv-BatchNorm-LeakyReLU network on scikit-learn's digits,
trained in three variants from the same initial weights -- standard BatchNorm + LeakyReLU,
InPlaceABN (batch norm and activation fused and computed in place, saving only its output)
and activation checkpointing (each block recomputed at backward) -- and a report of test
accuracy, time per epoch and the peak tensor memory of a training step and of inference.
--model relu-cnn and --model mlp compare in-place with out-of-place ReLU instead: the
honest lesson that an in-place ReLU saves nothing in training."""
from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import textwrap
import time
import tracemalloc

import numpy as np

import oar
from oar import nn
from oar.nn import functional as F
from oar.ops import random as _random
from oar.utils.checkpoint import checkpoint


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


MODELS = {
    "cnn": "4 Conv-BatchNorm-LeakyReLU blocks (8, 8, 16, 16 channels; max-pool after the "
           "2nd and 4th) + linear: standard BatchNorm + LeakyReLU vs InPlaceABN vs "
           "checkpointing each block (default)",
    "relu-cnn": "2 conv + 2 linear with ReLU: in-place vs out-of-place ReLU",
    "mlp": "MLP 64-128-128-10 with ReLU: in-place vs out-of-place ReLU",
}
DEFAULT_LR = {"cnn": 3e-3, "relu-cnn": 3e-3, "mlp": 1e-3}
DEFAULT_EPOCHS = {"cnn": 8, "relu-cnn": 15, "mlp": 15}


def parse(argv):
    """Parse and check every option (the plot path included) before any work is done."""
    p = _Parser(prog="python -m oar train", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="models:\n" + "\n".join(
                    textwrap.fill(v, 88, initial_indent=f"  {k:10}", subsequent_indent=" " * 12)
                    for k, v in MODELS.items()))
    p.add_argument("--model", choices=list(MODELS), default="cnn",
                   help="the network and the variants compared (see models below)")
    p.add_argument("--epochs", type=_int_at_least(1), default=None,
                   help="default: 8 (cnn), 15 (relu-cnn, mlp)")
    p.add_argument("--batch-size", type=_int_at_least(1), default=64,
                   help="at most the training set size (1437)")
    p.add_argument("--lr", type=_positive_finite, default=None,
                   help="Adam's learning rate; default: 3e-3 (cnn, relu-cnn), 1e-3 (mlp)")
    p.add_argument("--seed", type=_int_at_least(0), default=0)
    p.add_argument("--no-inplace", action="store_true",
                   help="leave out the in-place variants (InPlaceABN; in-place ReLU)")
    p.add_argument("--plot", metavar="FILE.png", help="chart of the memory of one training "
                   "step and of inference, op by op, per variant (any format matplotlib "
                   "writes: png, svg, pdf ...)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--jit", action="store_true", help="capture the training step once and "
                   "replay it (oar.jit); reports the speed-up over eager")
    p.add_argument("--nproc", type=_int_at_least(1), default=1,
                   help="train data-parallel in N processes through MPI's mpiexec (pip "
                        "install 'oar[mpi]'); on a cluster: mpiexec -n N -hosts a,b python "
                        "-m oar train --nproc N")
    args = p.parse_args(argv)
    if args.epochs is None:
        args.epochs = DEFAULT_EPOCHS[args.model]
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


# --------------------------------------------------------------------------- models
# Note [Main job variants]
# The variants of one --model have the same layers, parameter names and state-dict keys, so
# one set of weights loads into each: they compute the same function and differ only in
# what the backward keeps. Per Conv-BN-LeakyReLU block of the cnn, with A the bytes of one
# activation of the block (N x C x H x W floats):
#   bn          BatchNorm (one op, Note [BatchNorm op]) saves its input, the conv's output,
#               plus per-channel mean and invstd; LeakyReLU saves its output, which the
#               next conv or pool saves too: 2 A
#   abn         InPlaceABN overwrites the conv's output and saves only that, the tensor the
#               next layer saves anyway, plus per-channel statistics: 1 A
#   checkpoint  the block keeps its input only; its activations are recomputed at backward,
#               one block at a time
# (PyTorch's own batch_norm saves its input and LeakyReLU its input: also 2 A per block.)
# BatchNorm2D and InPlaceABN2D both use Paddle's momentum 0.9 and LeakyReLU's slope 0.01,
# so the running statistics agree too. Checkpointing reruns each block at backward, and
# with it BatchNorm's running-statistics update (as in PyTorch): the only difference in
# what the variants compute.
VARIANTS = {
    "cnn": (("bn", "BatchNorm + LeakyReLU"), ("abn", "InPlaceABN"),
            ("checkpoint", "checkpointing")),
    "relu-cnn": (("out-of-place", "out-of-place ReLU"), ("in-place", "in-place ReLU")),
    "mlp": (("out-of-place", "out-of-place ReLU"), ("in-place", "in-place ReLU")),
}
IN_PLACE = {"abn", "in-place"}
NOT_CAPTURABLE = {"checkpoint"}   # --jit runs these eagerly


class Checkpointed(nn.Sequential):
    """A Sequential block whose activations are not kept for backward but recomputed
    (oar.utils.checkpoint); its parameters and state-dict keys are a Sequential's."""

    def forward(self, x):
        """The block's output; only x is kept for its backward."""
        return checkpoint(super().forward, x)


def _block(cin, cout, variant, pool=False):
    """Conv (no bias: the norm adds one), then BatchNorm + LeakyReLU or InPlaceABN, then a
    2x2 max-pool when `pool`; the parameters sit at the same keys in every variant."""
    layers = [nn.Conv2D(cin, cout, 3, padding=1, bias_attr=False)]
    if variant == "abn":
        layers.append(nn.InPlaceABN2D(cout, activation="leaky_relu", activation_param=0.01))
    else:
        layers += [nn.BatchNorm2D(cout), nn.LeakyReLU(0.01)]
    if pool:
        layers.append(nn.MaxPool2D(2))
    return Checkpointed(*layers) if variant == "checkpoint" else nn.Sequential(*layers)


def make_model(kind, variant):
    """The network of `kind` ('cnn', 'relu-cnn', 'mlp') in `variant` (Note [Main job
    variants]); for the ReLU models `variant` may also be True (in place) or False."""
    if variant is True or variant is False:
        variant = "in-place" if variant else "out-of-place"
    if variant not in {v for v, _ in VARIANTS[kind]}:
        raise ValueError(f"make_model: {kind!r} has no variant {variant!r}; choose from "
                         f"{[v for v, _ in VARIANTS[kind]]}")
    if kind == "cnn":
        return nn.Sequential(
            _block(1, 8, variant), _block(8, 8, variant, pool=True),
            _block(8, 16, variant), _block(16, 16, variant, pool=True),
            nn.Flatten(), nn.Linear(16 * 2 * 2, 10))
    inplace = variant == "in-place"
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


# --------------------------------------------------------------------------- training
class Run:
    """One variant being trained: its model, optimizer, loader and figures."""

    def __init__(self, args, data, variant, label, state):
        (xtr, ytr), _ = data
        self.variant, self.label = variant, label
        oar.seed(args.seed)
        self.model = make_model(args.model, variant)
        self.model.set_state_dict(state)            # Note [Main job variants]: same weights
        self.lr = args.lr if args.lr is not None else DEFAULT_LR[args.model]
        self.opt = oar.optimizer.Adam(learning_rate=self.lr, parameters=self.model.parameters())
        self.loader = oar.io.DataLoader(
            oar.io.TensorDataset([oar.to_tensor(xtr), oar.to_tensor(ytr)]),
            batch_size=args.batch_size, shuffle=True, seed=args.seed)
        self.times, self.losses = [], []
        self.acc = None
        self.rng = _random._GEN[0].bit_generator.state   # its own random stream (dropout)
        # --jit (Note [Capture and replay]): checkpointing's saved-tensor hooks cannot be
        # captured, so that variant stays eager; one that turns out not to be capturable
        # after a complete recording (InPlaceABN's NumPy statistics) warns once, runs eagerly
        jit = args.jit and variant not in NOT_CAPTURABLE
        self.step = oar.jit.capture(self._step, on_error="eager") if jit else self._step

    def _step(self, xb, yb, kind):
        loss = F.cross_entropy(self.model(_shape_input(xb, kind)), yb)
        loss.backward()
        self.opt.step()
        self.opt.clear_grad(set_to_zero=False)
        return loss

    def epoch(self, kind, number):
        _random._GEN[0].bit_generator.state = self.rng
        t0 = time.perf_counter()
        total = 0.0
        for i, (xb, yb) in enumerate(self.loader):
            value = self.step(xb, yb, kind).item()   # the loss of the batch before the update
            if not math.isfinite(value):
                raise Diverged(f"the loss became {value} at epoch {number}, batch {i + 1} "
                               f"({self.label}, lr {self.lr}); nothing was reported. Try a "
                               "smaller --lr")
            total += value
        self.times.append(time.perf_counter() - t0)
        self.losses.append(total / len(self.loader))
        self.rng = _random._GEN[0].bit_generator.state


def train(args, data, progress=True):
    """Train every variant of args.model from the same initial weights, one epoch of each in
    turn (so a slow moment of the machine hits them alike); returns the Runs."""
    variants = [(v, lab) for v, lab in VARIANTS[args.model]
                if not (args.no_inplace and v in IN_PLACE)]
    oar.seed(args.seed)
    state = make_model(args.model, variants[0][0]).state_dict()
    runs = [Run(args, data, v, lab, state) for v, lab in variants]
    (_, _), (xte, yte) = data
    for epoch in range(args.epochs):
        for r in runs:
            r.epoch(args.model, epoch + 1)
        if progress:
            cells = "  ".join(f"{r.label}: loss {r.losses[-1]:.4f}, {r.times[-1]:.2f}s"
                              for r in runs)
            print(f"epoch {epoch + 1}/{args.epochs}  {cells}", file=sys.stderr, flush=True)
    for r in runs:
        r.acc = accuracy(r.model, xte, yte, args.model)
    return runs


def jit_speedup(args, data, run):
    """--jit: one epoch of the first variant eager and replayed (same weights, after a warm-up
    epoch each), and the ratio."""
    state = run.model.state_dict()
    times = {}
    for flag in (False, True):
        a = argparse.Namespace(**{**vars(args), "jit": flag})
        r = Run(a, data, run.variant, run.label, state)
        for n in range(2):
            r.epoch(args.model, n + 1)
        times[flag] = r.times[-1]
    stats = getattr(r.step, "stats", {})
    print(f"oar.jit ({run.label}): one epoch {times[False]:.3f} s eager, {times[True]:.3f} s "
          f"replayed ({times[False] / times[True]:.2f}x; {stats.get('replays', 0)} replays, "
          f"{stats.get('captures', 0)} captures)")


# --------------------------------------------------------------------------- memory
def step_memory(model, kind, xb, yb, timeline=False, device=None):
    """Peak bytes above the resting state (parameters, optimizer state, batch) of one
    training step and of one inference pass, by the storage accounting; with timeline=True
    also the op-by-op MemoryTimeline of each (oar.device.memory_timeline). device: a GPU
    place the model is on (None: the CPU); the batch goes there, and the bytes are that
    place's (Note [Memory timeline])."""
    from . import storage
    opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    x = _shape_input(oar.to_tensor(xb), kind)
    y = oar.to_tensor(yb)
    if device is not None:
        x, y = x.cuda(), y.cuda()
    train_tl = infer_tl = None
    for k in range(2):     # the second step starts from a warm state (optimizer buffers exist)
        opt.clear_grad(set_to_zero=False)
        base = storage.memory_allocated(device)
        storage.reset_max_memory_allocated(device)
        if timeline and k == 1:
            with oar.device.memory_timeline(device) as train_tl:
                F.cross_entropy(model(x), y).backward()
                opt.step()
        else:
            F.cross_entropy(model(x), y).backward()
            opt.step()
        train_peak = storage.max_memory_allocated(device) - base
    opt.clear_grad(set_to_zero=False)
    model.eval()
    base = storage.memory_allocated(device)
    storage.reset_max_memory_allocated(device)
    with oar.no_grad():
        if timeline:
            with oar.device.memory_timeline(device) as infer_tl:
                model(x)
        else:
            model(x)
    infer_peak = storage.max_memory_allocated(device) - base
    model.train()
    return train_peak, infer_peak, train_tl, infer_tl


def numpy_step_peak(model, kind, xb, yb):
    """Peak bytes of everything NumPy allocates during one warm training step (tracemalloc):
    the tensors and also the scratch arrays inside kernels that the storage accounting does
    not count (conv's im2col columns, a fused backward's temporaries). The caching
    allocator's pool is emptied first, so a pooled buffer counts as the allocation it is."""
    opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    x = _shape_input(oar.to_tensor(xb), kind)
    y = oar.to_tensor(yb)
    for k in range(2):
        opt.clear_grad(set_to_zero=False)
        if k == 1:
            gc.collect()
            oar.device.empty_cache()
            tracemalloc.start()
        try:
            F.cross_entropy(model(x), y).backward()
            opt.step()
            if k == 1:
                peak = tracemalloc.get_traced_memory()[1]
        finally:
            if k == 1:
                tracemalloc.stop()
    opt.clear_grad(set_to_zero=False)
    return peak


def _held_by_layer(tl):
    """[(what, bytes)] of the activations held for backward when the forward ends, largest
    first, each storage counted once (at its first saver): what is the nn layer kind that
    saved it, 'checkpointed block inputs', or 'loss' -- step_memory records model(x), where
    every op runs inside a layer, and the loss, the one op outside any."""
    b = tl.boundary() if tl is not None else None
    if not b:
        return []
    sums = {}
    for s in tl[b - 1].saved_tensors:
        if s.counted and s.created:
            key = (s.layer.rsplit("#", 1)[0] if s.layer else
                   "checkpointed block inputs" if s.node == "checkpoint" else "loss")
            sums[key] = sums.get(key, 0) + s.nbytes
    return sorted(sums.items(), key=lambda kv: -kv[1])


def _held_text(tl):
    """What is held for backward when the forward ends, every part named: 'BatchNorm2D
    384 KiB + LeakyReLU 384 KiB + ...'. The terminal report and the plot both print this
    string (the plot breaks it into lines), so that they cannot disagree."""
    return " + ".join(f"{k} {_kib(v)}" for k, v in _held_by_layer(tl))


def _lines_of(text, per_line=2):
    """`text` ('a + b + c') with a line break after every `per_line`-th ' + '."""
    parts = text.split(" + ")
    return " +\n".join(" + ".join(parts[i:i + per_line])
                        for i in range(0, len(parts), per_line))


def _saved_at_boundary(tl):
    """Bytes of activations held for backward when the forward ends (the entry before the
    first backward entry), or None."""
    b = tl.boundary() if tl is not None else None
    if not b:
        return None
    return tl[b - 1].saved_created


# --------------------------------------------------------------------------- plot
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


def _kib(b):
    return f"{b / 1024:.0f} KiB" if b >= 10 * 1024 else f"{b / 1024:.1f} KiB"


def plot(path, results, title, why=""):
    """One row per variant: the training step op by op (left, forward ends at x = 0) and
    inference (right); in each, memory above the resting state split into what is held
    for backward and everything else, the peak marked and named."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    rows = [r for r in results if r["train_tl"] is not None]
    n = len(rows)
    fig, axes = plt.subplots(n, 2, figsize=(12, 1.2 + 2.3 * n), squeeze=False,
                             gridspec_kw={"width_ratios": [3.2, 1]}, sharey=True)
    c_saved, c_other, c_recompute = "#d95f02", "#7570b3", "#b8e0b0"
    c_saved_text = "#8a3c00"
    xmin = min(-(r["train_tl"].boundary() or len(r["train_tl"])) for r in rows)
    xmax = max(len(r["train_tl"]) - (r["train_tl"].boundary() or len(r["train_tl"])) for r in rows)
    ref = rows[0]["train_peak"]
    top = 1.8 * max(max(r["train_peak"], r["infer_peak"]) for r in rows) / 1024
    for row, r in zip(axes, rows):
        ax, axi = row
        tl = r["train_tl"]
        b = tl.boundary() or len(tl)
        x = np.arange(len(tl)) - b + 0.5       # op k of the backward is at k + 0.5
        live = np.array([e.allocated - tl.start for e in tl]) / 1024
        saved = np.array([min(e.saved_created, e.allocated - tl.start) for e in tl]) / 1024
        ax.fill_between(x, 0, saved, step="mid", color=c_saved, alpha=0.85, lw=0)
        ax.fill_between(x, saved, live, step="mid", color=c_other, alpha=0.55, lw=0)
        ax.step(x, np.array([e.peak - tl.start for e in tl]) / 1024, where="mid", color="k",
                lw=0.7, alpha=0.6)
        ax.axvline(0, color="k", ls="--", lw=1)
        opt = [e.index for e in tl if e.phase == "optimizer"]
        if opt:
            ax.axvspan(opt[0] - b, opt[-1] - b + 1, color="0.85", zorder=0)
        for e in tl:
            if e.phase == "recompute":
                ax.axvspan(e.index - b, e.index - b + 1, color=c_recompute, lw=0, zorder=0)
        # above the axes, at the boundary: inside, the held-for-backward box would cover them
        ax.text(-0.6, 1.01, "forward", transform=ax.get_xaxis_transform(), ha="right",
                va="bottom", fontsize=8.5)
        ax.text(0.6, 1.01, "backward", transform=ax.get_xaxis_transform(), ha="left",
                va="bottom", fontsize=8.5)
        pk = tl.peak_entry()
        px, py = pk.index - b + 0.5, (pk.peak - tl.start) / 1024
        ax.plot([px], [py], "v", color="k", ms=6)
        where = f"{pk.name}" + (f" ({pk.layer})" if pk.layer else "")
        ratio = "" if r is rows[0] else f" = {r['train_peak'] / ref:.2f}x"
        # the peak's label sits above the peak, in the headroom over every curve, opaque and
        # drawn over the recompute and optimizer bands (which span the whole height)
        left = px < xmax * 0.5
        ax.annotate(f"peak {_kib(pk.peak - tl.start)}{ratio}\n{pk.phase}: {where}",
                    (px, py), xytext=(-6 if left else 6, 7), textcoords="offset points",
                    va="bottom", ha="left" if left else "right", fontsize=8.5, zorder=10,
                    bbox=dict(fc="w", ec="0.6", lw=0.5, pad=2))
        sb = _saved_at_boundary(tl)
        ax.set_title(f"{r['label']}: training step", fontsize=10, loc="left")
        # top left: the forward's ramp is low there, and the peak's label is elsewhere
        ax.text(0.01, 0.97, f"held for backward when the forward ends: {_kib(sb or 0)}\n"
                f"{_lines_of(_held_text(tl))}", transform=ax.transAxes, ha="left",
                va="top", fontsize=8.5, color=c_saved_text, zorder=10,
                bbox=dict(fc="w", ec=c_saved, pad=3))
        ax.set_xlim(xmin, xmax)
        ax.set_ylim(0, top)
        ax.set_ylabel("KiB above resting state")
        itl = r["infer_tl"]
        xi = np.arange(len(itl)) + 0.5
        ilive = np.array([e.allocated - itl.start for e in itl]) / 1024
        axi.fill_between(xi, 0, ilive, step="mid", color=c_other, alpha=0.55, lw=0)
        axi.step(xi, np.array([e.peak - itl.start for e in itl]) / 1024, where="mid", color="k",
                 lw=0.7, alpha=0.6)
        ipk = itl.peak_entry()
        if ipk is not None:
            axi.plot([ipk.index + 0.5], [(ipk.peak - itl.start) / 1024], "v", color="k", ms=6)
            where = ipk.name + (f" ({ipk.layer})" if ipk.layer else "")
            right = ipk.index + 0.5 > len(itl) / 2
            axi.annotate(f"peak {_kib(ipk.peak - itl.start)}\n{where}",
                         (ipk.index + 0.5, (ipk.peak - itl.start) / 1024),
                         xytext=(-6 if right else 6, 6), ha="right" if right else "left",
                         textcoords="offset points", va="bottom", fontsize=8.5,
                         bbox=dict(fc="w", ec="none", alpha=0.8, pad=1))
        axi.set_title("inference (no_grad)", fontsize=10, loc="left")
        axi.set_xlim(0, max(len(itl), 1))
    axes[-1][0].set_xlabel("op of the training step, in order: forward ops (< 0) | backward "
                           "nodes and the optimizer step (> 0)")
    axes[-1][1].set_xlabel("op of the forward, in order")
    handles = [Patch(color=c_saved, alpha=0.85, label="held for backward (saved activations)"),
               Patch(color=c_other, alpha=0.55, label="other tensors (outputs not saved, "
                     "gradients, temporaries)"),
               Line2D([], [], color="k", lw=0.7, alpha=0.6, label="highest while the op ran")]
    if any(e.phase == "recompute" for r in rows for e in r["train_tl"]):
        handles.append(Patch(color=c_recompute, label="forward op recomputed"))
    if any(e.phase == "optimizer" for r in rows for e in r["train_tl"]):
        handles.append(Patch(color="0.85", label="optimizer step"))
    fig.legend(handles=handles, loc="upper center", ncol=len(handles), fontsize=8.5,
               bbox_to_anchor=(0.5, 0.995), handlelength=1.5, columnspacing=1.2)
    fig.suptitle(title + ("\n" + why if why else ""), fontsize=10.5,
                 y=1 - 0.42 / (1.2 + 2.3 * n), va="top")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.75 / (1.2 + 2.3 * n)))
    try:
        fig.savefig(path, dpi=110)
    except OSError as e:
        raise CliError(f"cannot write the plot to {path!r}: {e.strerror}") from None
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------- report
_WHY = {
    "cnn": ("why: per block, BatchNorm + LeakyReLU keep two tensors of the block's size for "
            "backward (BatchNorm's input and LeakyReLU's output); InPlaceABN keeps one, its "
            "output, and recomputes x_hat from it; checkpointing keeps each block's input "
            "and recomputes the block at backward."),
    "relu-cnn": ("why: in training an in-place ReLU saves nothing -- its input (the conv's "
                 "output) is saved by nobody, so it is freed either way; only inference, "
                 "which keeps nothing for backward, gains."),
    "mlp": ("why: in training an in-place ReLU saves nothing -- its input (the Linear's "
            "output) is saved by nobody, so it is freed either way; in inference the peak is "
            "a Linear's input and output alive together, which it does not change either."),
}


_WHY_PLOT = {
    "cnn": "Per block, BatchNorm + LeakyReLU keep 2 tensors of the block's size for backward "
           "(BatchNorm's input, LeakyReLU's output), InPlaceABN keeps 1 (its output);\n"
           "checkpointing keeps only each block's input and recomputes the block in backward "
           "(green).",
    "relu-cnn": "In training an in-place ReLU saves nothing: the conv output it overwrites is "
                "saved by nobody, so it is freed either way.\nOnly inference, which keeps "
                "nothing for backward, gains.",
    "mlp": "In training an in-place ReLU saves nothing: the Linear output it overwrites is "
           "saved by nobody, so it is freed either way.\nIn inference the peak is a Linear's "
           "input and output alive together, which it does not change either.",
}


def report(args, runs, results, elision_line=None):
    """The side-by-side table on stdout, the variants' ratios to the first (and the
    saving of temporary elision, `elision_line`), then what each variant holds for backward
    and where its peak is."""
    w = max(len(r.label) for r in runs) + 2
    print()
    print(f"{'':{w}}{'test accuracy':>14}{'time per epoch':>16}{'peak, training step':>21}"
          f"{'peak, inference':>17}")
    for r, m in zip(runs, results):
        print(f"{r.label:{w}}{r.acc:>14.4f}{np.mean(r.times):>14.3f} s"
              f"{m['train_peak'] / 1024:>17.1f} KiB{m['infer_peak'] / 1024:>13.1f} KiB")
    print(f"peak tensor memory (batch {args.batch_size}): above parameters + optimizer state, "
          f"by oar's storage accounting; time per epoch: mean of {args.epochs}, the variants' "
          "epochs interleaved")
    base, bm = runs[0], results[0]
    for r, m in zip(runs[1:], results[1:]):
        print(f"  {r.label} / {base.label}: training step "
              f"{m['train_peak'] / bm['train_peak']:.3f}, inference "
              f"{m['infer_peak'] / bm['infer_peak']:.3f}, time per epoch "
              f"{np.mean(r.times) / np.mean(base.times):.3f}")
    if elision_line:
        print(elision_line)
    if all(m.get("numpy_peak") for m in results):
        cells = ", ".join(f"{r.label} {m['numpy_peak'] / 1024:.0f} KiB"
                          + ("" if r is base else f" ({m['numpy_peak'] / bm['numpy_peak']:.2f}x)")
                          for r, m in zip(runs, results))
        print(f"all NumPy memory of a training step (tracemalloc; also the scratch inside "
              f"kernels, such as conv's im2col columns, which the accounting leaves out): "
              f"{cells}")
    if all(m["train_tl"] is not None for m in results):
        print("held for backward when the forward ends (activations, each tensor once):")
        for r, m in zip(runs, results):
            print(f"  {r.label:{w}}{_kib(m['saved'] or 0):>9} = "
                  f"{_held_text(m['train_tl']) or 'nothing'}")
        print("the training-step peak is reached in:")
        for r, m in zip(runs, results):
            pk = m["train_tl"].peak_entry()
            print(f"  {r.label:{w}}{pk.phase}, {pk.name}" + (f" ({pk.layer})" if pk.layer else ""))
    print(_WHY[args.model])


def _elision_line(args, run, result, state, xb, yb):
    """The saving of temporary elision (Note [Temporary elision]), measured: the first
    variant's peaks again with elision off, beside the peaks with it on."""
    from .ops import elision
    m = make_model(args.model, run.variant)
    m.set_state_dict(state)
    was = elision.ENABLED
    elision.ENABLED = False
    try:
        tp, ip, _, _ = step_memory(m, args.model, xb, yb)
    finally:
        elision.ENABLED = was
    state_word = "on" if was else "off (FLAGS_eager_elision / OAR_ELISION=0)"
    return (f"  temporary elision ({state_word}) / off, {run.label}: training step "
            f"{result['train_peak'] / tp:.3f} ({tp - result['train_peak']} B saved), inference "
            f"{result['infer_peak'] / ip:.3f} ({ip - result['infer_peak']} B saved); it reuses "
            f"temporaries of at least {elision.MIN_BYTES // 1024} KiB that nothing else holds, "
            "and nn.Sequential donates a layer's output only to ReLU, LeakyReLU, Sigmoid and "
            "Tanh (not to BatchNorm)")


def main(argv=None):
    """The main job: parse the options, train every variant, report (and plot)."""
    try:
        args = parse(argv if argv is not None else sys.argv[1:])
        if args.nproc > 1:                  # data-parallel: oar/distributed/launch.py
            from .distributed.launch import train_main
            return train_main(args, list(argv if argv is not None else sys.argv[1:]))
        data = load_digits()
        n_train = len(data[0][0])
        if args.batch_size > n_train:      # refused, not clamped: the report names the batch
            raise CliError(f"argument --batch-size: {args.batch_size} is larger than the "
                           f"training set ({n_train} samples); use at most {n_train}")
        labels = [lab for v, lab in VARIANTS[args.model]
                  if not (args.no_inplace and v in IN_PLACE)]
        print(f"oar {oar.__version__}: training a {args.model} on digits "
              f"({len(data[0][0])} train / {len(data[1][0])} test), same initial weights, "
              f"{len(labels)} variants: {', '.join(labels)}", file=sys.stderr)
        runs = train(args, data, progress=not args.quiet)
        xb, yb = data[0][0][:args.batch_size], data[0][1][:args.batch_size]
        state = runs[0].model.state_dict()
        results = []
        for r in runs:
            m = make_model(args.model, r.variant)
            m.set_state_dict(state)           # the same weights in every variant
            tp, ip, ttl, itl = step_memory(m, args.model, xb, yb, timeline=True)
            results.append({"label": r.label, "train_peak": tp, "infer_peak": ip,
                            "train_tl": ttl, "infer_tl": itl, "saved": _saved_at_boundary(ttl),
                            "numpy_peak": numpy_step_peak(m, args.model, xb, yb)})
        report(args, runs, results, _elision_line(args, runs[0], results[0], state, xb, yb))
        if args.jit:
            jit_speedup(args, data, runs[0])
        if args.plot:
            plot(args.plot, results, f"oar: tensor memory of one training step and of "
                 f"inference ({args.model}, batch {args.batch_size}), same weights in every "
                 "variant", _WHY_PLOT[args.model])
            print(f"memory chart written to {args.plot}")
        return 0
    except CliError as e:
        print(f"python -m oar train: error: {e}", file=sys.stderr)
        return 2
    except Diverged as e:
        print(f"\npython -m oar train: error: {e}", file=sys.stderr)
        return 1
