"""oar.jit's capture and replay (Note [Capture and replay]) against eager oar and eager
PyTorch 2.13, in one process, single-threaded: the median over interleaved rounds of each
case's time per call, the ratio replay/torch, and the peak bytes of one step by oar's
accounting (storage.max_memory_allocated above the bytes held before the step), eager vs
replay. The machine is noisy: quote ratios, not absolute times.

    python bench/bench_jit.py            # full
    python bench/bench_jit.py --quick    # fewer rounds
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
from oar import storage  # noqa: E402

try:   # run as a script from bench/ or as the bench package
    from workloads import chain20  # noqa: E402
except ImportError:
    from bench.workloads import chain20  # noqa: E402
from oar.nn import functional as F  # noqa: E402

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


def _digits():
    try:
        from sklearn.datasets import load_digits
        d = load_digits()
        return (d.data[:64] / 16.0).astype(np.float32), d.target[:64].astype(np.int64)
    except ImportError:   # digits-like data of the same shapes
        rng = np.random.default_rng(0)
        return rng.random((64, 64), dtype=np.float32), rng.integers(0, 10, 64)


def _torch_mlp():
    nn = torch.nn
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(inplace=True), nn.Linear(128, 128),
                         nn.ReLU(inplace=True), nn.Linear(128, 10))


def _torch_cnn(kind):
    nn = torch.nn
    if kind == "relu-cnn":
        return nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(128, 64), nn.ReLU(inplace=True),
            nn.Dropout(0.1), nn.Linear(64, 10))

    def block(cin, cout, pool=False):
        layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                  nn.LeakyReLU(0.01)]
        return nn.Sequential(*(layers + [nn.MaxPool2d(2)] if pool else layers))
    return nn.Sequential(block(1, 8), block(8, 8, True), block(8, 16), block(16, 16, True),
                         nn.Flatten(), nn.Linear(16 * 2 * 2, 10))


def _training(name, make_oar, torch_model, shape, target):
    """A case: one training step (forward, cross-entropy, backward, Adam, zero grads)."""
    x, y = _digits()
    ox, oy = oar.to_tensor(x.reshape(shape)), oar.to_tensor(y)
    tx, ty = torch.from_numpy(x.reshape(shape)), torch.from_numpy(y)

    def oar_step_fn():
        oar.seed(0)
        m = make_oar()
        opt = oar.optimizer.Adam(learning_rate=1e-3, parameters=m.parameters())

        def step(xb, yb):
            loss = F.cross_entropy(m(xb), yb)
            loss.backward()
            opt.step()
            opt.clear_grad(set_to_zero=False)
            return loss
        return step
    eager = oar_step_fn()
    jitted = oar.jit(oar_step_fn())
    topt = torch.optim.Adam(torch_model.parameters(), lr=1e-3)

    def t_step():
        torch.nn.functional.cross_entropy(torch_model(tx), ty).backward()
        topt.step()
        topt.zero_grad()
    return {"name": name, "target": target, "fns": {
        "oar eager": lambda: eager(ox, oy), "oar.jit": lambda: jitted(ox, oy), "torch": t_step},
        "peak": (lambda: eager(ox, oy), lambda: jitted(ox, oy)), "jitted": jitted,
        "args": (ox, oy)}


def _chain_case():
    ow = oar.randn([16])
    ow.stop_gradient = False
    ox = oar.randn([16])
    tw = torch.randn(16, requires_grad=True)
    tx = torch.randn(16)

    chain = chain20
    jitted = oar.jit(chain)
    return {"name": "autograd 20-op chain, 16 elements (forward+backward)", "target": 0.3,
            "fns": {"oar eager": lambda: chain(ow, ox), "oar.jit": lambda: jitted(ow, ox),
                    "torch": lambda: chain(tw, tx)},
            "peak": (lambda: chain(ow, ox), lambda: jitted(ow, ox)), "jitted": jitted,
            "args": (ow, ox)}


def cases():
    """The benchmark cases (each builds its models once)."""
    from oar.train import make_model
    return [
        _training("MLP 64-128-128-10, Adam (digits, batch 64): one step",
                  lambda: make_model("mlp", True), _torch_mlp(), (64, 64), 0.5),
        _chain_case(),
        _training("CNN with ReLU (relu-cnn, dropout), Adam, batch 64: one step",
                  lambda: make_model("relu-cnn", True), _torch_cnn("relu-cnn"),
                  (64, 1, 8, 8), 0.7),
        _training("main job CNN (Conv-BN-LeakyReLU), Adam, batch 64: one step",
                  lambda: make_model("cnn", "bn"), _torch_cnn("cnn"), (64, 1, 8, 8), 0.7),
    ]


def peak_bytes(fn):
    """Peak bytes of one call above the bytes held before it (oar's accounting)."""
    gc.collect()
    base = storage.memory_allocated()
    storage.reset_max_memory_allocated()
    fn()
    return storage.max_memory_allocated() - base


def main(argv=None):
    """Run the cases and print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="3 rounds instead of 9")
    args = p.parse_args(argv)
    rounds = 3 if args.quick else 9
    cs = cases()
    for c in cs:   # warm-up, capture and a first replay before timing
        for _ in range(5):
            for fn in c["fns"].values():
                fn()
        assert c["jitted"].stats["replays"] > 0, c["name"]
    times = {(c["name"], k): [] for c in cs for k in c["fns"]}
    for r in range(rounds):
        for c in cs:
            for k, fn in c["fns"].items():
                gc.collect()
                gc.disable()
                try:
                    times[(c["name"], k)].append(timeit(fn))
                finally:
                    gc.enable()
        print(f"  round {r + 1}/{rounds} done", file=sys.stderr)
    print("| case | oar eager µs | oar.jit µs | torch µs | eager/torch | jit/torch | target "
          "| eager peak B | replay peak B | planned pool B / eager temporaries B |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in cs:
        med = {k: statistics.median(times[(c["name"], k)]) for k in c["fns"]}
        rj = statistics.median(j / t for j, t in zip(times[(c["name"], "oar.jit")],
                                                     times[(c["name"], "torch")]))
        re = statistics.median(e / t for e, t in zip(times[(c["name"], "oar eager")],
                                                     times[(c["name"], "torch")]))
        pe, pr = (peak_bytes(f) for f in c["peak"])
        prog = c["jitted"].program(*c["args"])
        met = "met" if rj <= c["target"] else "missed"
        print(f"| {c['name']} | {med['oar eager'] * 1e6:.1f} | {med['oar.jit'] * 1e6:.1f} | "
              f"{med['torch'] * 1e6:.1f} | {re:.2f} | {rj:.2f} | ≤ {c['target']} ({met}) | "
              f"{pe} | {pr} | {prog.pool_bytes} / {prog.eager_temp_bytes} |")


if __name__ == "__main__":
    main()
