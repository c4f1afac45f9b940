"""oar.torch.optim's Rprop and ASGD (oar/torch/optim/_more.py) against torch 2.13 bit for bit:
they perform torch's CPU op sequence, so parameters, state entries (keys, order, dtypes,
values) and versions must be equal, not close. Also LBFGS's strong-Wolfe search with no
evaluations left refuses with torch's exception class and leaves the parameters alone.
Every expected value comes from torch inside the test."""
import numpy as np
import pytest

import oar.torch as otorch

torch = pytest.importorskip("torch")


def _run(mod, name, kw, dtype, steps=7):
    rng = np.random.default_rng(0)
    ps = [mod.nn.Parameter(mod.tensor(rng.standard_normal(s).astype(dtype)))
          for s in ((3, 4), (4,))]
    opt = getattr(mod.optim, name)([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.03}], **kw)
    rng = np.random.default_rng(1)
    for i in range(steps):
        for j, p in enumerate(ps):
            g = rng.standard_normal(tuple(p.shape)).astype(dtype)
            if i % 3 == 2:
                g[..., 0] = 0          # zero gradients: Rprop's "no sign" case
            # a parameter without a gradient is skipped for a step
            p.grad = None if (i, j) == (3, 1) else mod.tensor(g)
        opt.step()
    return ps, opt


def _bits(t):
    return str(t.dtype).rsplit(".", 1)[-1], tuple(t.shape), t.detach().numpy().tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kw", [
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, t0=2, lambd=0.01, weight_decay=0.1, maximize=True)),
    ("ASGD", dict(t0=0, alpha=0.5)),
])
def test_rprop_and_asgd_are_torchs_bit_for_bit(name, kw, dtype):
    (pt, ot), (po, oo) = _run(torch, name, kw, dtype), _run(otorch, name, kw, dtype)
    assert [_bits(p) for p in po] == [_bits(p) for p in pt]
    assert [p._version for p in po] == [p._version for p in pt]
    for a, b in zip(pt, po):
        st, so = ot.state[a], oo.state[b]
        assert list(so) == list(st)
        assert [_bits(v) for v in so.values()] == [_bits(v) for v in st.values()]


def test_lbfgs_line_search_without_budget_refuses_as_torch():
    seen = []
    for mod in (torch, otorch):
        p = mod.nn.Parameter(mod.tensor([1.0, -2.0, 3.0]))
        opt = mod.optim.LBFGS([p], line_search_fn="strong_wolfe", max_eval=0)

        def closure():
            opt.zero_grad()
            loss = (p ** 4).sum()
            loss.backward()
            return loss
        with pytest.raises(Exception) as e:
            opt.step(closure)
        seen.append((type(e.value), p.detach().numpy().tolist()))
    assert seen[1] == seen[0]
