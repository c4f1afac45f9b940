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

try:   # run as a script (python bench/run.py) or as a module (python -m bench.run)
    from eager import eager_cases  # noqa: E402
    from workloads import chain20  # noqa: E402
    from bench_elision import report as elision_report  # noqa: E402
except ImportError:
    from bench.eager import eager_cases  # noqa: E402
    from bench.workloads import chain20  # noqa: E402
    from bench.bench_elision import report as elision_report  # noqa: E402

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


    return [
        Case("autograd, forward+backward (16 elements)", "mul + sum", o_mul, t_mul, target=0.5),
        Case("autograd, forward+backward (16 elements)", "mul, mul_, add_, relu_, sum", o_inplace, t_inplace, target=0.5),
        Case("autograd, forward+backward (16 elements)", "20-op chain", lambda: chain20(ow, ox),
             lambda: chain20(tw, tx), target=0.5),
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
    ocnn = make_model("relu-cnn", True)
    copt = oar.optimizer.Adam(learning_rate=1e-3, parameters=ocnn.parameters())
    tcnn = _torch_model("relu-cnn")
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
        Case(g, "CNN with ReLU (relu-cnn): one step", lambda: oc_step(*ocb[0]), lambda: tc_step(*tcb[0]),
             target=1.0, unit="ms"),
        Case(g, "CNN with ReLU: one epoch", lambda: [oc_step(*b) for b in ocb], lambda: [tc_step(*b) for b in tcb],
             unit="ms", min_time=0.5),
    ] + _conv_bn_cases(ocb, tcb)


def _conv_bn_cases(ocb, tcb):
    """The main job's Conv-BN-LeakyReLU network, one training step: standard BatchNorm +
    LeakyReLU, InPlaceABN and checkpointing in oar, each beside PyTorch's standard model
    (checkpointing: beside torch.utils.checkpoint of the same blocks). The issue-12 time
    target is oar's InPlaceABN step over oar's standard step (report: ABN_TIME)."""
    from oar.nn import functional as F
    from oar.train import make_model
    cases = []
    oar.seed(0)
    state = make_model("cnn", "bn").state_dict()
    for variant, label in (("bn", "BatchNorm + LeakyReLU"), ("abn", "InPlaceABN"),
                           ("checkpoint", "checkpointing")):
        m = make_model("cnn", variant)
        m.set_state_dict(state)
        opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=m.parameters())
        tm = _torch_model("cnn-checkpoint" if variant == "checkpoint" else "cnn")
        topt = torch.optim.Adam(tm.parameters(), lr=1e-3)

        def o_step(m=m, opt=opt):
            F.cross_entropy(m(ocb[0][0]), ocb[0][1]).backward()
            opt.step()
            opt.clear_grad(set_to_zero=False)

        def t_step(tm=tm, topt=topt):
            torch.nn.functional.cross_entropy(tm(tcb[0][0]), tcb[0][1]).backward()
            topt.step()
            topt.zero_grad()
        cases.append(Case("training, Conv-BN-LeakyReLU network (main job, batch 64)",
                          f"{label}: one step", o_step, t_step, unit="ms"))
    return cases


# --------------------------------------------------------------------------- memory
class _Checkpointed(torch.nn.Sequential):
    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(super().forward, x, use_reentrant=False)


def _torch_model(kind):
    """PyTorch's version of a main-job model: 'mlp', 'relu-cnn' (in-place ReLU), 'cnn' (the
    standard Conv-BatchNorm-LeakyReLU network) or 'cnn-checkpoint' (its blocks
    checkpointed)."""
    nn = torch.nn
    if kind == "mlp":
        return nn.Sequential(nn.Linear(64, 128), nn.ReLU(inplace=True), nn.Linear(128, 128),
                             nn.ReLU(inplace=True), nn.Linear(128, 10))
    if kind == "relu-cnn":
        return nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(128, 64), nn.ReLU(inplace=True),
            nn.Dropout(0.1), nn.Linear(64, 10))
    wrap = _Checkpointed if kind == "cnn-checkpoint" else nn.Sequential

    def block(cin, cout, pool=False):
        layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                  nn.LeakyReLU(0.01)]
        return wrap(*(layers + [nn.MaxPool2d(2)] if pool else layers))
    return nn.Sequential(block(1, 8), block(8, 8, True), block(8, 16), block(16, 16, True),
                         nn.Flatten(), nn.Linear(16 * 2 * 2, 10))


MEMORY_ROWS = (("mlp", "mlp", "in-place", "mlp"),
               ("relu-cnn", "relu-cnn", "in-place", "relu-cnn"),
               ("cnn: BatchNorm + LeakyReLU", "cnn", "bn", "cnn"),
               ("cnn: InPlaceABN", "cnn", "abn", "cnn"),
               ("cnn: checkpointing", "cnn", "checkpoint", "cnn-checkpoint"))


def memory_report():
    """Per main-job model: oar's peak of a training step and of inference (exact bytes of
    the storage accounting), and PyTorch's training-step peak from its profiler."""
    try:
        x, y = _digits()
    except ImportError:
        return []
    from oar.train import make_model, numpy_step_peak, step_memory
    rows = []
    for label, kind, variant, tkind in MEMORY_ROWS:
        oar.seed(0)
        m = make_model(kind, variant)
        train_peak, infer_peak, _, _ = step_memory(m, kind, x[:64], y[:64])
        rows.append((label, train_peak, infer_peak, _torch_peak(tkind, x[:64], y[:64]),
                     numpy_step_peak(m, kind, x[:64], y[:64])))
    return rows


def _torch_peak(kind, x, y):
    """PyTorch's CPU peak over one training step from its profiler's memory events."""
    try:
        from torch.profiler import ProfilerActivity, profile
    except ImportError:
        return None
    torch.manual_seed(0)
    m = _torch_model(kind)
    xb = torch.from_numpy(x) if kind == "mlp" else torch.from_numpy(x).reshape(-1, 1, 8, 8)
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


# Note [Checkpointing target]
# Four blocks Linear(D, D) -> Tanh -> Linear(D, D) on a batch of B, A = B * D * 4 bytes (one
# activation), loss = sum of the output (SumBackward saves nothing). What backward holds,
# measured after every op (oar.device.memory_timeline, `saved_created`):
#   without checkpointing: each block's input (saved by its first Linear; the first block's
#     input is the batch, which existed before) and its Tanh output (saved by Tanh and by
#     the second Linear, counted once): 3 A + 4 A = 7 A when the forward ends;
#   checkpointing every block: the inputs of blocks 2-4 (3 A, the boundaries) when the
#     forward ends; in backward, while block k is recomputed, the boundaries not yet
#     released plus that block's Tanh output (A): at most 3 A + A = 4 A, during block 4.
# So the analytic peak is "the boundaries plus one block": (4 - 1) A + A = 4 A.
def checkpoint_report(B=512, D=128):
    """(measured and analytic bytes held for backward, peaks of memory_allocated) for the
    4-block network of Note [Checkpointing target], with and without checkpointing."""
    from oar import nn
    from oar.utils.checkpoint import checkpoint
    A = B * D * 4
    oar.seed(0)
    blocks = [nn.Sequential(nn.Linear(D, D), nn.Tanh(), nn.Linear(D, D)) for _ in range(4)]
    params = [p for b in blocks for p in b.parameters()]
    x = oar.randn([B, D])
    out = {}
    for ck in (False, True):
        for p in params:
            p.grad = None
        h = x
        with oar.device.memory_timeline() as tl:
            for b in blocks:
                h = checkpoint(b, h) if ck else b(h)
            h.sum().backward()
            del h
        out[ck] = (max(e.saved_created for e in tl), tl.peak - tl.start)
    return {"A": A, "B": B, "D": D, "analytic": (7 * A, 4 * A),
            "held": (out[False][0], out[True][0]), "peak": (out[False][1], out[True][1])}


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
                  "| model | oar, training step | oar, inference | torch, training step "
                  "(profiler) | oar/torch |", "|---|---|---|---|---|"]
        for kind, tp, ip, tpk, _ in mem:
            tps = f"{tpk / 1024:.1f} KiB" if tpk else "n/a"
            rt = f"{tp / tpk:.2f}" if tpk else ""
            lines.append(f"| {kind} | {tp / 1024:.1f} KiB | {ip / 1024:.1f} KiB | {tps} | {rt} |")
    lines += issue12_targets(cases, mem)
    return "\n".join(lines)


def _met(ok):
    return "yes" if ok else "no"


def issue12_targets(cases, mem, ck=None):
    """Issue 12's targets: InPlaceABN's training-step peak against the standard model (oar's
    and PyTorch's profiler figure), its time per step, and the checkpointing figure of Note
    [Checkpointing target]."""
    lines = ["", "**issue 12 targets: in-place that saves memory in training**", "",
             "| target | measured | target | met |", "|---|---|---|---|"]
    by = {row[0]: row for row in mem}
    bn, abn, ckp = (by.get(k) for k in ("cnn: BatchNorm + LeakyReLU", "cnn: InPlaceABN",
                                         "cnn: checkpointing"))
    if bn and abn:
        r = abn[1] / bn[1]
        lines.append(f"| InPlaceABN / BatchNorm + LeakyReLU, training-step peak (oar, same "
                     f"network) | {abn[1]} / {bn[1]} B = {r:.3f} | ≤ 0.6 | {_met(r <= 0.6)} |")
        if bn[3]:
            r = abn[1] / bn[3]
            lines.append(f"| InPlaceABN (oar) / PyTorch's standard model (profiler), training "
                         f"step | {abn[1]} / {bn[3]} B = {r:.3f} | ≤ 0.6 | {_met(r <= 0.6)} |")
        r = abn[2] / bn[2]
        lines.append(f"| InPlaceABN / BatchNorm + LeakyReLU, inference peak (oar) | "
                     f"{abn[2]} / {bn[2]} B = {r:.3f} | | |")
    if bn and abn:
        r = abn[4] / bn[4]
        lines.append(f"| InPlaceABN / BatchNorm + LeakyReLU, all NumPy memory of a training "
                     f"step (tracemalloc: also kernel scratch the accounting leaves out, "
                     f"conv's im2col columns, InPlaceABN's backward temporaries) | "
                     f"{abn[4]} / {bn[4]} B = {r:.3f} | (not the target's measure) | |")
    if bn and ckp:
        lines.append(f"| checkpointing / BatchNorm + LeakyReLU, training-step peak (oar) | "
                     f"{ckp[1]} / {bn[1]} B = {ckp[1] / bn[1]:.3f} | | |")
    steps = {c.name.split(":")[0]: c for c in cases if c.group.startswith("training, Conv-BN")}
    if "InPlaceABN" in steps and "BatchNorm + LeakyReLU" in steps:
        a, b = steps["InPlaceABN"].times["oar"], steps["BatchNorm + LeakyReLU"].times["oar"]
        r = statistics.median(x / y for x, y in zip(a, b))
        lines.append(f"| InPlaceABN / BatchNorm + LeakyReLU, time per training step (oar, "
                     f"median of rounds) | {r:.3f} | ≤ 1.05 | {_met(r <= 1.05)} |")
    if ck is None and mem:
        ck = checkpoint_report()
    if ck:
        A = ck["A"]
        (h0, h1), (a0, a1), (p0, p1) = ck["held"], ck["analytic"], ck["peak"]
        lines.append(f"| checkpointing 4 blocks (Linear-Tanh-Linear, B={ck['B']}, D={ck['D']}, "
                     f"A = {A} B): peak held for backward, measured after every op | {h1} B "
                     f"= {h1 / A:g} A | analytic: 3 boundaries + 1 block = {a1} B = "
                     f"{a1 / A:g} A | {_met(h1 == a1)} |")
        lines.append(f"| the same without checkpointing | {h0} B = {h0 / A:g} A | analytic: "
                     f"{a0} B = {a0 / A:g} A | {_met(h0 == a0)} |")
        lines.append(f"| checkpointed / plain, peak of memory_allocated (gradients and "
                     f"backward temporaries included) | {p1} / {p0} B = {p1 / p0:.3f} | | |")
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", choices=["tiny", "autograd", "eager", "large", "training",
                                      "memory", "elision"],
                   help="memory: the memory figures and issue 12's targets only (no timing); "
                        "elision: temporary elision's peaks and chain timing "
                        "(bench/bench_elision.py)")
    p.add_argument("--rounds", type=int)
    args = p.parse_args(argv)
    groups = {"tiny": tiny_cases, "autograd": autograd_cases,
              "eager": lambda: eager_cases(Case, torch), "large": large_cases,
              "training": training_cases}
    if args.only == "memory":
        mem = memory_report()
        print(report([], mem))
        return
    if args.only == "elision":
        print(elision_report(quick=args.quick))
        return
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
    if args.only is None:
        print(elision_report(quick=args.quick))


if __name__ == "__main__":
    main()
