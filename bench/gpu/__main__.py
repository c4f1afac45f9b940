"""oar on a GPU: one prepared run for a machine with CuPy, a CUDA device and torch with CUDA.

    python -m bench.gpu                 # on the GPU machine: writes bench/gpu/RESULTS.md
    python -m bench.gpu --fake          # a dry run here, on the test-only fake device
                                        # (torch CPU stands in for torch CUDA)
    bench/gpu/run.sh                    # the same as the first, with a time limit

Four parts, each fail-soft (an error is reported and the run goes on), the whole under 8
minutes on a card:
  1. the GPU test subset: tests/test_gpu_fake*.py (the doors and the op table, oar.jit and
     torch.compile replay, random streams per place, memory_timeline per place) re-pointed
     at the real device (OAR_GPU_REAL=1), and oar's GPU ops against torch CUDA as the oracle;
  2. the main job on the GPU (python -m oar train's CNN, all three variants) against the
     CPU's accuracy;
  3. memory of one training step: InPlaceABN against BatchNorm + LeakyReLU, by CuPy's pool
     and by oar's per-device accounting;
  4. speed against torch CUDA on the same card: large elementwise bandwidth, a matmul, and
     the MLP step eager and with oar.jit (which must replay on the device, not run eagerly).
Targets (issue 25): tests all pass; the main job trains to the CPU accuracy; InPlaceABN's
step peak <= 0.6 of BatchNorm + LeakyReLU's; elementwise >= 80% of torch's bandwidth; the MLP
step with oar.jit <= 1.5x torch eager.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import oar  # noqa: E402
import oar.torch as otorch  # noqa: E402
from oar import _xp  # noqa: E402


class Report:
    """The lines of RESULTS.md, and the targets met or missed."""

    def __init__(self):
        self.lines = []
        self.targets = []

    def add(self, text=""):
        print(text, flush=True)
        self.lines.append(text)

    def target(self, name, ok, figure):
        self.targets.append((name, ok, figure))
        self.add(f"- target {'MET' if ok else 'MISSED'}: {name} ({figure})")

    def text(self, head):
        rows = ["| target | result | figure |", "|---|---|---|"]
        rows += [f"| {n} | {'met' if ok else '**missed**'} | {f} |" for n, ok, f in self.targets]
        return "\n".join(head + ["", "## Targets", ""] + rows + [""] + self.lines) + "\n"


def part(report, title):
    """A decorator running one part fail-soft: its exception is reported, the run goes on."""
    def run(fn):
        report.add(f"\n## {title}\n")
        t0 = time.perf_counter()
        try:
            fn()
        except Exception:   # noqa: BLE001  (fail soft: report and go on)
            report.add("FAILED:\n\n```text\n" + traceback.format_exc()[-3000:] + "```")
        report.add(f"\n({time.perf_counter() - t0:.1f} s)")
        return fn
    return run


# --------------------------------------------------------------------------- environment
def torch_oracle(fake):
    """torch, and the device it runs the oracle on: CUDA on the card, CPU for --fake."""
    import torch
    dev = "cuda" if (not fake and torch.cuda.is_available()) else "cpu"
    return torch, dev


def sync():
    otorch.cuda.synchronize()


def gpu_time(fn, torch=None, reps=20):
    """Seconds per call of fn, after a warm-up, between synchronisations of the device(s)."""
    for _ in range(3):
        fn()
    sync()
    if torch is not None and torch.cuda.is_available():
        torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        if torch is not None and torch.cuda.is_available():
            torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


# --------------------------------------------------------------------------- 1. tests
# the device's tests: the op table and the doors, oar.jit / torch.compile replay, the random
# streams per place, memory_timeline per place (each on the real card with OAR_GPU_REAL=1)
TEST_FILES = ("tests/test_gpu_fake.py", "tests/test_gpu_fake_jit.py",
              "tests/test_gpu_fake_random.py", "tests/test_gpu_fake_timeline.py")


def run_tests(report, fake, limit):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if not fake:
        env["OAR_GPU_REAL"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
           "-rfE", *TEST_FILES]
    try:
        r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=limit)
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else \
            (e.stdout or "")
        out += f"\n(timed out after {limit} s)"
    tail = [ln for ln in out.splitlines() if ln.strip()][-15:]
    report.add(f"`pytest {' '.join(TEST_FILES)}`" + (" (OAR_GPU_REAL=1)" if not fake else "")
               + ":\n\n```text\n" + "\n".join(tail) + "\n```")
    summary = tail[-1] if tail else ""
    report.target("GPU test subset passes", " failed" not in summary and "error" not in
                  summary and "passed" in summary, summary.strip("= "))


def oracle_ops(report, fake):
    """oar's device results against torch's (CUDA on the card): forward and gradients."""
    torch, tdev = torch_oracle(fake)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3, 16, 16)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    a = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((32, 16)).astype(np.float32)
    lab = rng.integers(0, 16, 64)

    def both(fn_o, fn_t, arrays):
        ot = [otorch.tensor(v, device="cuda", requires_grad=v.dtype.kind == "f") for v in arrays]
        tt = [torch.tensor(v, device=tdev, requires_grad=v.dtype.kind == "f") for v in arrays]
        ro, rt = fn_o(*ot), fn_t(*tt)
        ro.sum().backward()
        rt.sum().backward()
        err = float(np.max(np.abs(ro.detach().cpu().numpy() - rt.detach().cpu().numpy())))
        for o, t in zip(ot, tt):
            if t.grad is not None:
                err = max(err, float(np.max(np.abs(o.grad.cpu().numpy()
                                                   - t.grad.cpu().numpy()))))
        return err, ro.is_cuda

    F, tF = otorch.nn.functional, torch.nn.functional
    cases = {
        "matmul": (lambda p, q: p @ q, lambda p, q: p @ q, [a, b]),
        "conv2d": (lambda p, q: F.conv2d(p, q, padding=1), lambda p, q: tF.conv2d(p, q, padding=1),
                   [x, w]),
        "max_pool2d": (lambda p: F.max_pool2d(p, 2), lambda p: tF.max_pool2d(p, 2), [x]),
        "batch_norm": (lambda p: F.batch_norm(p, None, None, training=True),
                       lambda p: tF.batch_norm(p, None, None, training=True), [x]),
        "leaky_relu": (lambda p: F.leaky_relu(p, 0.01), lambda p: tF.leaky_relu(p, 0.01), [x]),
        "softmax": (lambda p: F.softmax(p, -1), lambda p: tF.softmax(p, -1), [a]),
        "cross_entropy": (lambda p, y: F.cross_entropy(p, y), lambda p, y: tF.cross_entropy(p, y),
                          [a[:, :16].copy(), lab]),
        "sum/mean/exp": (lambda p: (p.exp().sum(1) + p.mean(0).sum()),
                         lambda p: (p.exp().sum(1) + p.mean(0).sum()), [a]),
    }
    worst = 0.0
    report.add(f"oracle: torch {torch.__version__} on {tdev}\n")
    report.add("| op | max abs difference (values and gradients) | on the device |")
    report.add("|---|---|---|")
    for name, (fo, ft, arrays) in cases.items():
        try:
            err, on = both(fo, ft, arrays)
            worst = max(worst, err if on else float("inf"))
            report.add(f"| {name} | {err:.2e} | {on} |")
        except Exception as e:   # noqa: BLE001
            worst = float("inf")
            report.add(f"| {name} | FAILED: {type(e).__name__}: {str(e)[:120]} | |")
    report.target("ops agree with torch (max abs diff <= 1e-3)", worst <= 1e-3, f"{worst:.2e}")


# --------------------------------------------------------------------------- 2. main job
def main_job(report, fake, epochs):
    from oar.train import VARIANTS, load_digits, make_model
    (xtr, ytr), (xte, yte) = load_digits()
    F = oar.nn.functional

    def train(variant, device):
        oar.seed(0)
        model = make_model("cnn", "bn").state_dict()
        m = make_model("cnn", variant)
        m.set_state_dict(model)
        if device:
            m.to("gpu")
        opt = oar.optimizer.Adam(learning_rate=3e-3, parameters=m.parameters())
        rng = np.random.default_rng(0)
        t0 = time.perf_counter()
        for _ in range(epochs):
            order = rng.permutation(len(xtr))
            for i in range(0, len(xtr), 64):
                idx = order[i:i + 64]
                xb = oar.to_tensor(xtr[idx]).reshape([-1, 1, 8, 8])
                yb = oar.to_tensor(ytr[idx])
                if device:
                    xb, yb = xb.cuda(), yb.cuda()
                F.cross_entropy(m(xb), yb).backward()
                opt.step()
                opt.clear_grad(set_to_zero=False)
        sync()
        dt = (time.perf_counter() - t0) / epochs
        m.eval()
        with oar.no_grad():
            xt = oar.to_tensor(xte).reshape([-1, 1, 8, 8])
            pred = m(xt.cuda() if device else xt).argmax(axis=1).cpu().numpy()
        return float((pred == yte).mean()), dt

    cpu_acc, cpu_t = train("bn", False)
    report.add(f"CPU, BatchNorm + LeakyReLU: accuracy {cpu_acc:.4f}, {cpu_t:.2f} s/epoch "
               f"({epochs} epochs)\n")
    report.add("| variant (GPU) | accuracy | s/epoch |")
    report.add("|---|---|---|")
    accs = []
    for v, label in VARIANTS["cnn"]:
        acc, t = train(v, True)
        accs.append(acc)
        report.add(f"| {label} | {acc:.4f} | {t:.2f} |")
    report.target("main job trains to the CPU accuracy (within 1.5 points)",
                  min(accs) >= cpu_acc - 0.015, f"CPU {cpu_acc:.4f}, GPU min {min(accs):.4f}")


# --------------------------------------------------------------------------- 3. memory
def step_memory(report, fake, batch):
    from oar.train import make_model
    F = oar.nn.functional
    b = _xp.backend()
    pool = b.xp.get_default_memory_pool() if b.name == "cupy" else None
    rng = np.random.default_rng(0)
    x = oar.to_tensor(rng.standard_normal((batch, 1, 8, 8)).astype(np.float32)).cuda()
    y = oar.to_tensor(rng.integers(0, 10, batch)).cuda()
    figures = {}
    for variant in ("bn", "abn"):
        oar.seed(0)
        m = make_model("cnn", variant)
        m.to("gpu")
        opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=m.parameters())
        for k in range(2):   # the second step is warm (optimizer state exists)
            opt.clear_grad(set_to_zero=False)
            sync()
            if pool is not None:
                pool.free_all_blocks()
                pool_base = pool.total_bytes()
            base = otorch.cuda.memory_allocated()
            otorch.cuda.reset_peak_memory_stats()
            F.cross_entropy(m(x), y).backward()
            opt.step()
            sync()
        peak = otorch.cuda.max_memory_allocated() - base
        grown = pool.total_bytes() - pool_base if pool is not None else None
        figures[variant] = (peak, grown)
        del m, opt
    report.add(f"batch {batch} of 1x8x8 images, the main job's CNN, one warm step:\n")
    report.add("| variant | peak above rest, oar's accounting | CuPy pool growth |")
    report.add("|---|---|---|")
    for v, (p, g) in figures.items():
        report.add(f"| {v} | {p / 2**20:.2f} MiB | "
                   f"{'n/a (fake device)' if g is None else f'{g / 2**20:.2f} MiB'} |")
    ratio = figures["abn"][0] / figures["bn"][0]
    report.target("InPlaceABN step peak <= 0.6 of BatchNorm + LeakyReLU (oar's accounting)",
                  ratio <= 0.6, f"{ratio:.3f}")
    if pool is not None:
        r2 = figures["abn"][1] / max(figures["bn"][1], 1)
        report.target("InPlaceABN step peak <= 0.6 of BatchNorm + LeakyReLU (CuPy's pool)",
                      r2 <= 0.6, f"{r2:.3f}")


# --------------------------------------------------------------------------- 4. speed
def speed(report, fake):
    torch, tdev = torch_oracle(fake)
    n = (1 << 16) if fake else (1 << 26)
    rng = np.random.default_rng(0)
    xa = rng.standard_normal(n).astype(np.float32)
    ox, oy = otorch.tensor(xa, device="cuda"), otorch.tensor(xa, device="cuda")
    tx, ty = torch.tensor(xa, device=tdev), torch.tensor(xa, device=tdev)
    rows = []

    def row(name, fo, ft, nbytes=None):
        to, tt = gpu_time(fo, torch), gpu_time(ft, torch)
        bw = "" if nbytes is None else f"{nbytes / to / 1e9:.0f} / {nbytes / tt / 1e9:.0f}"
        rows.append((name, to, tt, bw))
        return to, tt

    to, tt = row("x + y (new result)", lambda: ox + oy, lambda: tx + ty, 12 * n)
    row("x.add_(y)", lambda: ox.add_(oy), lambda: tx.add_(ty), 12 * n)
    m = 512 if fake else 4096
    ma = rng.standard_normal((m, m)).astype(np.float32)
    om, tm = otorch.tensor(ma, device="cuda"), torch.tensor(ma, device=tdev)
    row(f"matmul {m}x{m}", lambda: om @ om, lambda: tm @ tm)
    jit_ratio, jit_stats = mlp_steps(rows, torch, tdev)
    report.add(f"oracle: torch {torch.__version__} on {tdev}\n")
    report.add("| case | oar | torch | oar / torch | GB/s oar / torch |")
    report.add("|---|---|---|---|---|")
    for name, a, b, bw in rows:
        report.add(f"| {name} | {a * 1e3:.3f} ms | {b * 1e3:.3f} ms | {a / b:.2f} | {bw} |")
    report.target("large elementwise >= 80% of torch's bandwidth", tt / to >= 0.8,
                  f"{tt / to:.2f} of torch's")
    if jit_ratio is not None:
        report.target("MLP step with oar.jit <= 1.5x torch eager", jit_ratio <= 1.5,
                      f"{jit_ratio:.2f}x")
    # Note [Replay on a device]: a step on the card is captured and replayed, not run eagerly
    report.target("oar.jit replays the MLP step on the device",
                  bool(jit_stats) and jit_stats.get("replays", 0) > 0, str(jit_stats))


def mlp_steps(rows, torch, tdev):
    """The main job's MLP (64-128-128-10, batch 64): a step eager and with oar.jit, against
    torch eager."""
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((64, 64)).astype(np.float32)
    ya = rng.integers(0, 10, 64)
    nn, tnn = otorch.nn, torch.nn

    def build(lib, dev):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(64, 128), lib.nn.ReLU(), lib.nn.Linear(128, 128),
                              lib.nn.ReLU(), lib.nn.Linear(128, 10)).to(dev)
        return m, lib.optim.Adam(m.parameters(), lr=1e-3)
    om, oo = build(otorch, "cuda")
    tm, to_ = build(torch, tdev)
    ox, oy = otorch.tensor(xa, device="cuda"), otorch.tensor(ya, device="cuda")
    tx, ty = torch.tensor(xa, device=tdev), torch.tensor(ya, device=tdev)

    def ostep():
        oo.zero_grad()
        nn.functional.cross_entropy(om(ox), oy).backward()
        oo.step()

    def tstep():
        to_.zero_grad()
        tnn.functional.cross_entropy(tm(tx), ty).backward()
        to_.step()
    _, t_torch = row_add(rows, "MLP step, eager", ostep, tstep, torch)
    try:
        jstep = oar.jit.capture(ostep, on_error="eager")
        t_jit = gpu_time(jstep, torch)
        rows.append((f"MLP step, oar.jit (vs torch eager; {jstep.stats['replays']} replays)",
                     t_jit, t_torch, ""))
        return t_jit / t_torch, dict(jstep.stats)
    except Exception as e:   # noqa: BLE001
        rows.append((f"MLP step, oar.jit: FAILED {type(e).__name__}: {str(e)[:80]}",
                     float("nan"), t_torch, ""))
        return None, None


def row_add(rows, name, fo, ft, torch):
    to, tt = gpu_time(fo, torch), gpu_time(ft, torch)
    rows.append((name, to, tt, ""))
    return to, tt


# --------------------------------------------------------------------------- main
def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.gpu", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fake", action="store_true", help="dry run on the test-only fake device")
    p.add_argument("--out", help="where to write the report (default: bench/gpu/RESULTS.md; "
                   "with --fake, gpu-RESULTS-fake.md in the temporary directory)")
    p.add_argument("--epochs", type=int, default=None, help="main job epochs (default 8; "
                   "--fake: 1)")
    args = p.parse_args(argv)
    if args.fake:
        _xp.enable_fake_device()
    b = _xp.backend()
    if b is None:
        print("no GPU backend: CuPy with a CUDA device is needed (or --fake)", file=sys.stderr)
        return 2
    epochs = args.epochs or (1 if args.fake else 8)
    import tempfile
    out = args.out or (os.path.join(tempfile.gettempdir(), "gpu-RESULTS-fake.md") if args.fake
                       else os.path.join(ROOT, "bench", "gpu", "RESULTS.md"))
    report = Report()
    t_start = time.perf_counter()
    part(report, "1. GPU test subset")(lambda: run_tests(report, args.fake, 240))
    part(report, "1b. ops against the torch oracle")(lambda: oracle_ops(report, args.fake))
    part(report, "2. the main job on the GPU")(lambda: main_job(report, args.fake, epochs))
    part(report, "3. memory of a training step")(
        lambda: step_memory(report, args.fake, 64 if args.fake else 4096))
    part(report, "4. speed against torch on the same card")(lambda: speed(report, args.fake))
    head = [f"# oar on a GPU: results{' (DRY RUN on the fake device)' if args.fake else ''}",
            "", f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"- device: {otorch.cuda.get_device_name()} ({b.name}, {b.count} device(s))",
            f"- host: {platform.node()}, Python {platform.python_version()}, NumPy "
            f"{np.__version__}" + (f", CuPy {b.xp.__version__}" if b.name == "cupy" else ""),
            f"- oar commit: {_git_head()}",
            f"- total time: {time.perf_counter() - t_start:.0f} s",
            "- produced by `python -m bench.gpu` (bench/gpu/__main__.py)"]
    with open(out, "w") as f:
        f.write(report.text(head))
    print(f"wrote {out}")
    return 0


def _git_head():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:   # noqa: BLE001
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
