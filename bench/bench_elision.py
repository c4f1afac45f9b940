"""Temporary elision (Note [Temporary elision], oar/ops/elision.py): peaks by oar's own
accounting (exact bytes) with elision on and off and for the hand-written in-place version,
and the time of a 20-op pointwise chain on, off and in PyTorch 2.13 (the same process).

    python bench/run.py --only elision      # or: python bench/bench_elision.py [--quick]
"""
from __future__ import annotations

import gc
import statistics
import sys
import time

import numpy as np

import oar
from oar import storage as S
from oar.ops import elision as E


def _peak(fn):
    """Peak bytes above the start while fn() ran (the cyclic collector held off)."""
    gc.collect()
    gc.disable()
    try:
        base = S.memory_allocated()
        S.reset_max_memory_allocated()
        fn()
        return S.max_memory_allocated() - base
    finally:
        gc.enable()


def _with(on, fn):
    old = E.ENABLED
    E.ENABLED = on
    try:
        return fn()
    finally:
        E.ENABLED = old


# --------------------------------------------------------------------------- the chain
def chain20(x):
    """20 pointwise ops, one expression: every intermediate is a temporary."""
    return (((((((((x * 1.01 + 0.5).tanh() * 2.0 - 1.0).exp() + 1.0) * 0.5).sigmoid()
                 - 0.25) * 3.0 + 0.1).relu() * 0.9 - 0.05).tanh() + 1.0) * 0.5
             - 0.1).abs() + 0.2


def chain20_inplace(x):
    """The same chain written in place by hand (one clone, then `_` ops)."""
    return (x.clone().mul_(1.01).add_(0.5).tanh_().mul_(2.0).sub_(1.0).exp_().add_(1.0)
            .mul_(0.5).sigmoid_().sub_(0.25).mul_(3.0).add_(0.1).relu_().mul_(0.9)
            .sub_(0.05).tanh_().add_(1.0).mul_(0.5).sub_(0.1).abs_().add_(0.2))


def _time(fn, min_time):
    fn()
    n, t = 1, 0.0
    while t < min_time:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t = time.perf_counter() - t0
        if t < min_time:
            n *= 2
    return t / n


def chain_rows(sizes_kib=(1024, 16384), rounds=5, min_time=0.05):
    """Per size: peak / input bytes on, off and in place; median time on, off, in torch."""
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:   # pragma: no cover
        torch = None
    rows = []
    for kib in sizes_kib:
        a = np.random.default_rng(0).random(kib * 256, dtype=np.float32)
        x = oar.to_tensor(a)
        with oar.no_grad():
            p_on = _with(True, lambda: _peak(lambda: chain20(x)))
            p_off = _with(False, lambda: _peak(lambda: chain20(x)))
            p_hand = _with(False, lambda: _peak(lambda: chain20_inplace(x)))
            ratios_off, ratios_torch, t_on = [], [], []
            xt = torch.from_numpy(a.copy()) if torch is not None else None
            for _ in range(rounds):   # interleaved: on, off, torch
                on = _with(True, lambda: _time(lambda: chain20(x), min_time))
                off = _with(False, lambda: _time(lambda: chain20(x), min_time))
                t_on.append(on)
                ratios_off.append(on / off)
                if torch is not None:
                    with torch.no_grad():
                        ratios_torch.append(on / _time(lambda: chain20(xt), min_time))
        rows.append(dict(kib=kib, nbytes=a.nbytes, on=p_on, off=p_off, hand=p_hand,
                         t_on=statistics.median(t_on), on_off=statistics.median(ratios_off),
                         on_torch=statistics.median(ratios_torch) if ratios_torch else None))
    return rows


# --------------------------------------------------------------------------- networks
def _inference(model, x):
    model.eval()
    with oar.no_grad():
        return _peak(lambda: model(x))


def functional_mlp(x, params, inplace=False):
    """The MLP written as one expression per layer (no nn.Sequential holding activations)."""
    w1, b1, w2, b2, w3, b3 = params
    if inplace:
        return ((x @ w1).add_(b1).relu_() @ w2).add_(b2).relu_() @ w3 + b3
    return ((x @ w1 + b1).relu() @ w2 + b2).relu() @ w3 + b3


def network_rows(batches=(64, 4096)):
    """Inference peaks of the main job's MLP and cnn (nn layers) and of a functional MLP,
    elision on / off / hand-written in place; training-step peaks of the main job's models."""
    from oar.train import make_model
    rng = np.random.default_rng(0)
    rows = []
    for batch in batches:
        xm = oar.to_tensor(rng.random((batch, 64), dtype=np.float32))
        xc = xm.reshape([-1, 1, 8, 8])
        oar.seed(0)
        mlp, mlp_ip = make_model("mlp", "out-of-place"), make_model("mlp", "in-place")
        cnn, abn = make_model("cnn", "bn"), make_model("cnn", "abn")
        rcnn, rcnn_ip = make_model("relu-cnn", "out-of-place"), make_model("relu-cnn", "in-place")
        rows.append((f"mlp (nn.Sequential), batch {batch}",
                     _with(True, lambda: _inference(mlp, xm)),
                     _with(False, lambda: _inference(mlp, xm)),
                     _with(False, lambda: _inference(mlp_ip, xm)), "ReLU(inplace=True)"))
        rows.append((f"main job cnn (BatchNorm + LeakyReLU), batch {batch}",
                     _with(True, lambda: _inference(cnn, xc)),
                     _with(False, lambda: _inference(cnn, xc)),
                     _with(False, lambda: _inference(abn, xc)), "InPlaceABN"))
        rows.append((f"relu-cnn (Conv + ReLU), batch {batch}",
                     _with(True, lambda: _inference(rcnn, xc)),
                     _with(False, lambda: _inference(rcnn, xc)),
                     _with(False, lambda: _inference(rcnn_ip, xc)), "ReLU(inplace=True)"))
        params = [oar.to_tensor(rng.standard_normal(s, dtype=np.float32) * 0.1)
                  for s in ((64, 512), (512,), (512, 512), (512,), (512, 10), (10,))]
        with oar.no_grad():
            rows.append((f"functional mlp 64-512-512-10, batch {batch}",
                         _with(True, lambda: _peak(lambda: functional_mlp(xm, params))),
                         _with(False, lambda: _peak(lambda: functional_mlp(xm, params))),
                         _with(False, lambda: _peak(lambda: functional_mlp(xm, params, True))),
                         "add_ / relu_ by hand"))
    return rows


def training_rows(batch=64):
    """Training-step peaks of the main job's models (Adam, warm), elision on and off."""
    from oar.train import make_model, step_memory
    rng = np.random.default_rng(0)
    x = rng.random((batch, 64), dtype=np.float32)
    y = rng.integers(0, 10, batch)
    rows = []
    for kind, variant, label in (("cnn", "bn", "cnn: BatchNorm + LeakyReLU"),
                                 ("cnn", "abn", "cnn: InPlaceABN"), ("mlp", "out-of-place", "mlp")):
        peaks = []
        for on in (True, False):
            oar.seed(0)
            m = make_model(kind, variant)
            peaks.append(_with(on, lambda: step_memory(m, kind, x, y)[0]))
        rows.append((f"{label}, batch {batch}", *peaks))
    return rows


# --------------------------------------------------------------------------- report
def report(quick=False):
    """The three tables, as Markdown."""
    lines = ["", "**temporary elision (Note [Temporary elision]): peak tensor memory by oar's "
             "accounting, exact bytes**", "",
             "| 20 pointwise ops, no grad | input | peak, elision on | off | in place by hand "
             "| time on/off | time on/torch |", "|---|---|---|---|---|---|---|"]
    for r in chain_rows((1024,) if quick else (1024, 16384), rounds=3 if quick else 5):
        b = r["nbytes"]
        tt = f"{r['on_torch']:.2f}" if r["on_torch"] is not None else "n/a"
        lines.append(f"| {r['kib']} KiB float32 | {b} B | {r['on']} B = {r['on'] / b:.2f}x | "
                     f"{r['off']} B = {r['off'] / b:.2f}x | {r['hand']} B = {r['hand'] / b:.2f}x "
                     f"| {r['on_off']:.2f} | {tt} |")
    lines += ["", "| inference (no_grad) | peak, elision on | off | on/off | hand-written "
              "in place | on/hand |", "|---|---|---|---|---|---|"]
    for name, on, off, hand, how in network_rows((64,) if quick else (64, 4096)):
        lines.append(f"| {name} | {on} B | {off} B | {on / off:.3f} | {hand} B ({how}) | "
                     f"{on / hand:.3f} |")
    lines += ["", "| training step (main job, Adam) | peak, elision on | off | on/off |",
              "|---|---|---|---|"]
    for name, on, off in training_rows():
        lines.append(f"| {name} | {on} B | {off} B | {on / off:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(quick="--quick" in sys.argv[1:]))
