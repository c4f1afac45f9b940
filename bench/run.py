"""oar's benchmark suite: per case, oar's time, PyTorch 2.13's time measured in the same
process, and the ratio oar/torch, as the median of interleaved rounds. Single-threaded BLAS.
The machine is noisy: quote ratios, not absolute times.

    python bench/run.py            # full suite
    python bench/run.py --quick    # fewer rounds
    python bench/run.py --only tiny
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import oar  # noqa: E402

try:
    import torch  # noqa: E402
    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    sys.exit("the benchmark compares against PyTorch: pip install torch==2.13.0")


def timeit(fn, min_time=0.02):
    """Seconds per call of fn, measured over at least min_time."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return dt / n
        n *= 2 if dt < min_time / 8 else max(2, int(min_time / max(dt, 1e-9)) + 1)


class Case:
    def __init__(self, group, name, oar_fn, torch_fn, target=None, unit="us", ref_fn=None,
                 nbytes=None, min_time=0.02):
        self.group, self.name = group, name
        self.fns = {"oar": oar_fn, "torch": torch_fn}
        if ref_fn is not None:
            self.fns["numpy"] = ref_fn
        self.target, self.unit, self.nbytes, self.min_time = target, unit, nbytes, min_time
        self.times = {k: [] for k in self.fns}


# --------------------------------------------------------------------------- cases
def tiny_cases():
    o = {k: oar.randn([16]) for k in "xyzw"}
    t = {k: torch.randn(16) for k in "xyzw"}
    o2 = oar.randn([4, 4])
    t2 = torch.randn(4, 4)
    cases = [
        ("add_ (tensor)", lambda: o["x"].add_(o["y"]), lambda: t["x"].add_(t["y"])),
        ("mul_ (number)", lambda: o["x"].mul_(1.0), lambda: t["x"].mul_(1.0)),
        ("x += y", lambda: o["x"].__iadd__(o["y"]), lambda: t["x"].__iadd__(t["y"])),
        ("relu_", lambda: o["z"].relu_(), lambda: t["z"].relu_()),
        ("x + y", lambda: o["x"] + o["y"], lambda: t["x"] + t["y"]),
        ("x * 2.0", lambda: o["x"] * 2.0, lambda: t["x"] * 2.0),
        ("exp", lambda: o["w"].exp(), lambda: t["w"].exp()),
        ("x[2:5]", lambda: o["x"][2:5], lambda: t["x"][2:5]),
        ("x[1]", lambda: o2[1], lambda: t2[1]),
        ("reshape", lambda: o["x"].reshape([4, 4]), lambda: t["x"].reshape(4, 4)),
        ("transpose", lambda: o2.transpose([1, 0]), lambda: t2.transpose(0, 1)),
        ("unsqueeze", lambda: o["x"].unsqueeze(0), lambda: t["x"].unsqueeze(0)),
    ]
    return [Case("tiny ops, no grad (16 elements)", n, a, b, target=0.6) for n, a, b in cases]


def autograd_cases():
    ow = oar.randn([16])
    ow.stop_gradient = False
    ox = oar.randn([16])
    tw = torch.randn(16, requires_grad=True)
    tx = torch.randn(16)

    def o_mul():
        (ox * ow).sum().backward()

    def t_mul():
        (tx * tw).sum().backward()

    def o_inplace():
        h = ow * 1.0
        h.mul_(ox).add_(1.0).relu_()
        h.sum().backward()

    def t_inplace():
        h = tw * 1.0
        h.mul_(tx).add_(1.0).relu_()
        h.sum().backward()

    def chain(lib, w, x):
        h = w * 1.0
        for i in range(4):
            h = h * x
            h.add_(0.5)
            h = h.tanh()
            h = h * 1.5
            h = h + w
        h.sum().backward()

    return [
        Case("autograd, forward+backward (16 elements)", "mul + sum", o_mul, t_mul, target=0.5),
        Case("autograd, forward+backward (16 elements)", "mul, mul_, add_, relu_, sum", o_inplace, t_inplace, target=0.5),
        Case("autograd, forward+backward (16 elements)", "20-op chain", lambda: chain(oar, ow, ox),
             lambda: chain(torch, tw, tx), target=0.5),
    ]


def large_cases():
    n = 16 * 1024 * 1024                       # 64 MiB of float32
    a = np.random.default_rng(0).random(n, dtype=np.float32)
    b = np.random.default_rng(1).random(n, dtype=np.float32)
    ox, oy = oar.to_tensor(a), oar.to_tensor(b)
    tx, ty = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    na, nb = a.copy(), b.copy()
    # exp reads arrays the in-place cases never touch (their values grow until exp overflows)
    ea = np.random.default_rng(2).random(n, dtype=np.float32)
    oe, te, ne = oar.to_tensor(ea), torch.from_numpy(ea.copy()), ea.copy()
    g = "large elementwise (64 MiB float32), GB/s"
    return [
        Case(g, "add_ (in place)", lambda: ox.add_(oy), lambda: tx.add_(ty), target=0.95,
             ref_fn=lambda: np.add(na, nb, out=na), nbytes=3 * 4 * n, unit="GB/s", min_time=0.2),
        Case(g, "mul_ (number, in place)", lambda: ox.mul_(1.0), lambda: tx.mul_(1.0), target=0.95,
             ref_fn=lambda: np.multiply(na, 1.0, out=na), nbytes=2 * 4 * n, unit="GB/s", min_time=0.2),
        Case(g, "x + y (new result)", lambda: ox + oy, lambda: tx + ty, target=1.0,
             ref_fn=lambda: na + nb, nbytes=3 * 4 * n, unit="GB/s", min_time=0.2),
        Case(g, "exp (new result)", lambda: oe.exp(), lambda: te.exp(), target=1.0,
             ref_fn=lambda: np.exp(ne), nbytes=2 * 4 * n, unit="GB/s", min_time=0.2),
    ]


def _digits():
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    return x, d.target.astype(np.int64)


def training_cases():
    try:
        x, y = _digits()
    except ImportError:
        return []
    from oar import nn
    from oar.nn import functional as F
    batches = [(x[i:i + 64], y[i:i + 64]) for i in range(0, len(x) - 63, 64)]

    om = nn.Sequential(nn.Linear(64, 128), nn.ReLU(inplace=True), nn.Linear(128, 128),
                       nn.ReLU(inplace=True), nn.Linear(128, 10))
    oopt = oar.optimizer.Adam(learning_rate=1e-3, parameters=om.parameters())
    tm = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(inplace=True),
                             torch.nn.Linear(128, 128), torch.nn.ReLU(inplace=True), torch.nn.Linear(128, 10))
    topt = torch.optim.Adam(tm.parameters(), lr=1e-3)
    obatches = [(oar.to_tensor(a), oar.to_tensor(b)) for a, b in batches]
    tbatches = [(torch.from_numpy(a), torch.from_numpy(b)) for a, b in batches]

    def o_step(xb, yb):
        loss = F.cross_entropy(om(xb), yb)
        loss.backward()
        oopt.step()
        oopt.clear_grad(set_to_zero=False)

    def t_step(xb, yb):
        loss = torch.nn.functional.cross_entropy(tm(xb), yb)
        loss.backward()
        topt.step()
        topt.zero_grad()

    from oar.train import make_model
    ocnn = make_model("cnn", True)
    copt = oar.optimizer.Adam(learning_rate=1e-3, parameters=ocnn.parameters())
    tcnn = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(128, 64), torch.nn.ReLU(inplace=True),
        torch.nn.Dropout(0.1), torch.nn.Linear(64, 10))
    tcopt = torch.optim.Adam(tcnn.parameters(), lr=1e-3)
    ocb = [(a.reshape([-1, 1, 8, 8]), b) for a, b in obatches]
    tcb = [(a.reshape(-1, 1, 8, 8), b) for a, b in tbatches]

    def oc_step(xb, yb):
        F.cross_entropy(ocnn(xb), yb).backward()
        copt.step()
        copt.clear_grad(set_to_zero=False)

    def tc_step(xb, yb):
        torch.nn.functional.cross_entropy(tcnn(xb), yb).backward()
        tcopt.step()
        tcopt.zero_grad()

    # the same MLP written with raw ops: x @ W + b, relu_, cross_entropy, a manual SGD update
    rng = np.random.default_rng(0)
    shapes = [(64, 128), (128,), (128, 128), (128,), (128, 10), (10,)]
    init = [(rng.standard_normal(s) * (0.1 if len(s) == 2 else 0.01)).astype(np.float32) for s in shapes]
    orp = [oar.to_tensor(a.copy()) for a in init]
    for p in orp:
        p.stop_gradient = False
    trp = [torch.from_numpy(a.copy()).requires_grad_() for a in init]

    def raw_step(lib, fn, params, xb, yb, lr=0.01):
        w1, b1, w2, b2, w3, b3 = params
        h = (xb @ w1 + b1).relu_()
        h = (h @ w2 + b2).relu_()
        fn.cross_entropy(h @ w3 + b3, yb).backward()
        with lib.no_grad():
            for p in params:
                p.sub_(lr * p.grad)
                p.grad = None

    g = "training (digits, batch 64)"
    return [
        Case(g, "MLP 64-128-128-10: one step", lambda: o_step(*obatches[0]), lambda: t_step(*tbatches[0]),
             target=0.7, unit="ms"),
        Case(g, "MLP, raw ops (x @ W + b, relu_, SGD by hand): one step",
             lambda: raw_step(oar, F, orp, *obatches[0]),
             lambda: raw_step(torch, torch.nn.functional, trp, *tbatches[0]), target=0.8, unit="ms"),
        Case(g, "MLP: one epoch", lambda: [o_step(*b) for b in obatches], lambda: [t_step(*b) for b in tbatches],
             target=0.7, unit="ms", min_time=0.2),
        Case(g, "CNN (main job): one step", lambda: oc_step(*ocb[0]), lambda: tc_step(*tcb[0]),
             target=1.0, unit="ms"),
        Case(g, "CNN: one epoch", lambda: [oc_step(*b) for b in ocb], lambda: [tc_step(*b) for b in tcb],
             unit="ms", min_time=0.5),
    ]


# --------------------------------------------------------------------------- memory
def memory_report():
    try:
        x, y = _digits()
    except ImportError:
        return []
    from oar.train import make_model, step_memory
    rows = []
    for kind in ("mlp", "cnn"):
        train_peak, infer_peak, _ = step_memory(make_model(kind, True), kind, x[:64], y[:64])
        rows.append((kind, train_peak, infer_peak, _torch_peak(kind, x[:64], y[:64])))
    return rows


def _torch_peak(kind, x, y):
    """PyTorch's CPU peak over one training step from its profiler's memory events."""
    try:
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        return None
    from oar.train import make_model  # noqa: F401
    if kind == "mlp":
        m = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(inplace=True), torch.nn.Linear(128, 128),
                                torch.nn.ReLU(inplace=True), torch.nn.Linear(128, 10))
        xb = torch.from_numpy(x)
    else:
        m = torch.nn.Sequential(
            torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(2),
            torch.nn.Flatten(), torch.nn.Linear(128, 64), torch.nn.ReLU(inplace=True),
            torch.nn.Dropout(0.1), torch.nn.Linear(64, 10))
        xb = torch.from_numpy(x).reshape(-1, 1, 8, 8)
    yb = torch.from_numpy(y)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    for _ in range(2):
        opt.zero_grad()
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            torch.nn.functional.cross_entropy(m(xb), yb).backward()
            opt.step()
    cur = peak = 0
    events = sorted((e for e in prof.events() if e.cpu_memory_usage), key=lambda e: e.time_range.start)
    for e in events:
        if not e.cpu_children:    # leaf events carry the allocation itself
            cur += e.cpu_memory_usage
            peak = max(peak, cur)
    return peak


# --------------------------------------------------------------------------- driver
def run(cases, rounds):
    for r in range(rounds):
        for c in cases:
            for lib, fn in c.fns.items():
                gc.collect()
                gc.disable()
                try:
                    c.times[lib].append(timeit(fn, c.min_time))
                finally:
                    gc.enable()
        print(f"  round {r + 1}/{rounds} done", file=sys.stderr)


def fmt(c, lib):
    s = statistics.median(c.times[lib])
    if c.unit == "GB/s":
        return f"{c.nbytes / s / 1e9:8.2f}"
    if c.unit == "ms":
        return f"{s * 1e3:8.2f}"
    return f"{s * 1e6:8.2f}"


def ratio(c):
    """Median over rounds of oar/torch (time), or oar/numpy throughput for bandwidth cases."""
    if c.unit == "GB/s":
        return statistics.median(n / o for o, n in zip(c.times["oar"], c.times["numpy"]))
    return statistics.median(o / t for o, t in zip(c.times["oar"], c.times["torch"]))


def report(cases, mem):
    lines = []
    group = None
    for c in cases:
        if c.group != group:
            group = c.group
            unit = {"us": "µs", "ms": "ms", "GB/s": "GB/s"}[c.unit]
            extra = " | NumPy" if c.unit == "GB/s" else ""
            rname = "oar/NumPy throughput" if c.unit == "GB/s" else "oar/torch time"
            lines += ["", f"**{group}**", "",
                      f"| case | oar ({unit}) | torch ({unit}){extra} | {rname} | target | met |",
                      "|---|---|---|---|---|---|"]
        r = ratio(c)
        if c.target is None:
            met = ""
        elif c.unit == "GB/s":
            met = "yes" if r >= c.target else "no"
        else:
            met = "yes" if r <= c.target else "no"
        tgt = "" if c.target is None else (f"≥ {c.target}" if c.unit == "GB/s" else f"≤ {c.target}")
        extra = f" | {fmt(c, 'numpy')}" if c.unit == "GB/s" else ""
        lines.append(f"| {c.name} | {fmt(c, 'oar')} | {fmt(c, 'torch')}{extra} | {r:.2f} | {tgt} | {met} |")
    if mem:
        lines += ["", "**peak tensor memory of one training step (batch 64)**", "",
                  "| model | oar, training step | oar, inference | torch, training step (profiler) |",
                  "|---|---|---|---|"]
        for kind, tp, ip, tpk in mem:
            tps = f"{tpk / 1024:.1f} KiB" if tpk else "n/a"
            lines.append(f"| {kind} | {tp / 1024:.1f} KiB | {ip / 1024:.1f} KiB | {tps} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", choices=["tiny", "autograd", "large", "training"])
    p.add_argument("--rounds", type=int)
    args = p.parse_args(argv)
    groups = {"tiny": tiny_cases, "autograd": autograd_cases, "large": large_cases,
              "training": training_cases}
    cases = []
    for name, make in groups.items():
        if args.only in (None, name):
            cases += make()
    rounds = args.rounds or (3 if args.quick else 7)
    print(f"oar {oar.__version__}, torch {torch.__version__}, numpy {np.__version__}, "
          f"{rounds} interleaved rounds, single-threaded", file=sys.stderr)
    run(cases, rounds)
    mem = memory_report() if args.only in (None, "training") else []
    print(report(cases, mem))


if __name__ == "__main__":
    main()
