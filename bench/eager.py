"""The PyTorch door against torch 2.13 on small eager ops off the elementwise fast path:
views, reductions, indexing, cat, softmax, matmul, autograd, a raw-ops MLP step, the main
job's CNN step and a convolution. Both sides get identical inputs; ratios are oar/torch."""
from __future__ import annotations

import numpy as np

try:   # run as a script from bench/ or as the bench package
    from workloads import chain20
except ImportError:
    from bench.workloads import chain20


def eager_cases(Case, torch):
    import oar.torch as ot
    rng = np.random.default_rng(0)
    a64 = rng.standard_normal((64, 64)).astype(np.float32)
    a8 = rng.standard_normal((8, 8)).astype(np.float32)
    v16 = rng.standard_normal(16).astype(np.float32)
    T = {}
    for lib in (ot, torch):
        T[lib] = dict(a64=lib.tensor(a64), a8=lib.tensor(a8), b8=lib.tensor(a8 * 2),
                      v=lib.tensor(v16), w=lib.tensor(v16, requires_grad=True),
                      row=lib.tensor(a64[0] * 0), col=lib.tensor(a64[:, 0] * 0),
                      p=lib.tensor(a64[:16, :16]), q=lib.tensor(a64[16:32, :16]))

    def views(lib):
        t = T[lib]["a8"]
        return t.reshape(4, 16).unsqueeze(0).transpose(1, 2)

    def sums(lib):
        t = T[lib]["a64"]
        return t.sum(), t.sum(1)

    def setitem(lib):
        t, d = T[lib]["a64"], T[lib]
        t[3] = d["row"]
        t[:, 5] = d["col"]

    def mul_add_grad(lib):
        d = T[lib]
        return d["w"] * d["v"] + d["v"]

    def softmax(lib):
        return lib.softmax(T[lib]["a64"], 1)

    def matmul(lib):
        return T[lib]["a8"] @ T[lib]["b8"]

    def cat(lib):
        d = T[lib]
        return lib.cat([d["p"], d["q"]])

    def relu_(lib):
        return T[lib]["v"].relu_()

    def chain(lib):
        chain20(T[lib]["w"], T[lib]["v"])

    g = "PyTorch door, small eager ops (same inputs; oar.torch vs torch)"
    rows = [
        ("reshape + unsqueeze + transpose [8,8]", views, 1.0),
        ("sum() + sum(1) [64,64]", sums, 1.0),
        ("setitem row + column [64,64]", setitem, 1.0),
        ("softmax(dim=1) [64,64]", softmax, 1.0),
        ("matmul [8,8] @ [8,8]", matmul, 1.0),
        ("cat of two [16,16]", cat, 1.0),
        ("relu_ [16]", relu_, 1.0),
        ("w * x + x, w requires grad [16]", mul_add_grad, 2.0),
        ("20-op chain, forward + backward [16]", chain, 1.2),
    ]
    return [Case(g, name, (lambda f=f: f(ot)), (lambda f=f: f(torch)), target=tg)
            for name, f, tg in rows] + _steps(Case, torch, ot)


def _steps(Case, torch, ot):
    """A raw-ops MLP step, the main job's CNN step and a conv layer, through the torch door."""
    rng = np.random.default_rng(1)
    xb = rng.standard_normal((64, 64)).astype(np.float32)
    yb = rng.integers(0, 10, 64)
    shapes = [(64, 128), (128,), (128, 128), (128,), (128, 10), (10,)]
    init = [(rng.standard_normal(s) * (0.1 if len(s) == 2 else 0.01)).astype(np.float32)
            for s in shapes]
    P = {lib: [lib.tensor(a, requires_grad=True) for a in init] for lib in (ot, torch)}
    X = {lib: (lib.tensor(xb), lib.tensor(yb)) for lib in (ot, torch)}

    def raw_step(lib, lr=0.01):
        w1, b1, w2, b2, w3, b3 = P[lib]
        x, y = X[lib]
        h = (x @ w1 + b1).relu_()
        h = (h @ w2 + b2).relu_()
        lib.nn.functional.cross_entropy(h @ w3 + b3, y).backward()
        with lib.no_grad():
            for p in P[lib]:
                p.sub_(lr * p.grad)
                p.grad = None

    conv_in = rng.standard_normal((16, 16, 32, 32)).astype(np.float32)
    convs = {}
    for lib in (ot, torch):
        lib.manual_seed(0)
        c = lib.nn.Conv2d(16, 32, 3, padding=1)
        convs[lib] = (c, lib.tensor(conv_in, requires_grad=True))

    def conv_step(lib):
        c, x = convs[lib]
        c(x).sum().backward()
        c.weight.grad = c.bias.grad = x.grad = None

    cnn = {}
    digits = rng.standard_normal((64, 1, 8, 8)).astype(np.float32)
    for lib in (ot, torch):
        nn = lib.nn
        lib.manual_seed(0)
        m = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.LeakyReLU(0.01),
                          nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32),
                          nn.LeakyReLU(0.01), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(128, 10))
        cnn[lib] = (m, lib.optim.Adam(m.parameters(), lr=1e-3), lib.tensor(digits),
                    lib.tensor(yb))

    def cnn_step(lib):
        m, opt, x, y = cnn[lib]
        lib.nn.functional.cross_entropy(m(x), y).backward()
        opt.step()
        opt.zero_grad()

    mlps = {}
    for lib in (ot, torch):
        nn = lib.nn
        lib.manual_seed(0)
        m = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                          nn.Linear(128, 10))
        # oar's side compiled (Note [Compiled forward]); torch's side eager, as the target says
        mlps[lib] = (ot.compile(m) if lib is ot else m, list(m.parameters()),
                     lib.tensor(xb), lib.tensor(yb))

    def compiled_step(lib):
        m, params, x, y = mlps[lib]
        lib.nn.functional.cross_entropy(m(x), y).backward()
        for p in params:
            p.grad = None

    g = "PyTorch door, training steps (same inputs; oar.torch vs torch)"
    return [
        Case(g, "MLP 64-128-128-10, torch.compile(model) vs torch eager, fwd + bwd",
             lambda: compiled_step(ot), lambda: compiled_step(torch), target=0.6, unit="ms"),
        Case(g, "MLP 64-128-128-10, raw ops + SGD by hand", lambda: raw_step(ot),
             lambda: raw_step(torch), target=1.0, unit="ms"),
        Case(g, "main job's CNN (Conv-BN-LeakyReLU ×2), Adam step", lambda: cnn_step(ot),
             lambda: cnn_step(torch), target=1.0, unit="ms"),
        Case(g, "conv 16→32 3×3 on 16×16×32×32, forward + backward", lambda: conv_step(ot),
             lambda: conv_step(torch), target=1.5, unit="ms", min_time=0.2),
    ]
