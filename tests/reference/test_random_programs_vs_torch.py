"""Random programs of views, in-place and out-of-place ops, run on oar and on torch 2.13:
the values, gradients (shape, dtype, values) and versions must agree, and an error must
happen at the same step, of a compatible class (tests/reference/harness.py)."""
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tests.reference.harness import compare_logged, random_settings, report, torch

# view makers: name -> function of a (4, 4) tensor; the same function is applied to w to
# get an operand of the view's shape
VIEWS = {
    "row": lambda t: t[1],
    "col": lambda t: t[:, 2],
    "block": lambda t: t[1:3, 0:3],
    "stride": lambda t: t[::2, 1:],
    "T": lambda t: t.t(),
    "flat": lambda t: t.reshape(16)[3:11],
    "diag": lambda t: t.diagonal(),
    "whole": lambda t: t.view(2, 8),
    "diag_off": lambda t: t.diagonal(1),
    "diag_neg": lambda t: t.diagonal(-1, -1, -2),
    "as_strided": lambda t: t.as_strided((2, 3), (4, 1), t.storage_offset() + 5),
    "as_strided_T": lambda t: t.as_strided((3, 2), (1, 4), t.storage_offset() + 4),
    "tsplit": lambda t: t.tensor_split([3, 1], dim=1)[2],         # unsorted: t[:, 1:]
    "tsplit_neg": lambda t: t.tensor_split([-3], dim=0)[1],       # negative: t[1:]
    "tsplit_int": lambda t: t.tensor_split(3, dim=-1)[0],         # sizes 2, 1, 1
}
INPLACE = ["add_c", "mul_c", "sin_", "exp_", "tanh_", "relu_", "mul_w", "add_w", "sigmoid_", "zero_",
           "setitem", "setitem_w", "index_add_w", "masked_fill_w", "index_put_w", "scatter_w"]
# ops that add a tensor to the program's list: out-of-place results, aliases, special views
MAKERS = ["oop_mul", "oop_sin", "detach", "nograd_view", "unbind"]


def step(L, tensors, w, op, i, view):
    t = tensors[i]
    if op == "view":
        tensors.append(VIEWS[view](t) if tuple(t.shape) == (4, 4) else t[..., :1])
        return
    if op == "oop_mul":
        tensors.append(t * 1.5)
        return
    if op == "oop_sin":
        tensors.append(t.sin())
        return
    if op == "detach":
        tensors.append(t.detach())
        return
    if op == "nograd_view":
        with L.no_grad():
            tensors.append(t[..., :1])
        return
    if op == "unbind":
        tensors.append(t.unbind(0)[0] if t.ndim >= 1 and t.shape[0] > 0 else t)
        return
    if op in ("index_add_w", "index_put_w", "scatter_w") and (
            t.ndim == 0 or t.shape[0] == 0 or int(np.prod(tuple(t.shape[1:]))) > 8):
        return   # nothing to write; return before torch's grad_fn read below, which raises
        #          for a stale multi-output view (an error of the harness, not of the step)
    if L is torch:
        # Normalise a torch inconsistency: torch's in-place leaf check reads a stale view's raw
        # grad_fn without regenerating it, so `t1=base.t(); t2=base.detach(); base.add_(.25);
        # t3=t2.t(); t2.mul_(w.t()); t3.add_(.25)` raises "a leaf Variable that requires grad
        # is being used in an in-place operation" -- but succeeds (with the right gradient) if
        # anything read t3.grad_fn or t3.is_leaf first. Reading grad_fn here puts torch on its
        # consistent path, which is the behaviour oar implements (Note [View grad_fn
        # regeneration] in oar/autograd/inplace.py).
        t.grad_fn
    wv = VIEWS[view](w) if tuple(t.shape) == tuple(VIEWS[view](w).shape) else None
    if op == "add_c":
        t.add_(0.25)
    elif op == "mul_c":
        t.mul_(1.5)
    elif op in ("sin_", "exp_", "tanh_", "relu_", "sigmoid_", "zero_"):
        getattr(t, op)()
    elif op == "mul_w":
        t.mul_(wv if wv is not None else 0.5)
    elif op == "add_w":
        t.add_(wv if wv is not None else 0.5)
    elif op == "setitem":
        t[..., :1] = 0.5
    elif op == "setitem_w":
        t[..., :1] = (w[0, 0] * 2.0)
    elif op == "masked_fill_w":
        t.masked_fill_(t.detach() > 0, w[1, 1] * 1.0)
    elif op in ("index_add_w", "index_put_w", "scatter_w"):
        if t.ndim == 0 or t.shape[0] == 0:
            return
        rest = tuple(t.shape[1:])
        n = int(np.prod(rest))
        if n > 8:
            return
        src = (w.reshape(16)[:2 * n] * 1.0).reshape((2,) + rest)
        idx = L.tensor([t.shape[0] - 1, 0])
        if op == "index_add_w":
            t.index_add_(0, idx, src, alpha=0.5)
        elif op == "index_put_w":
            t.index_put_((idx,), src, accumulate=True)
        elif t.ndim >= 1:
            sidx = idx.reshape((2,) + (1,) * len(rest)).expand((2,) + rest).clone()
            t.scatter_(0, sidx[:1], src[:1])


@st.composite
def programs(draw):
    prog = []
    n_tensors = 1
    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["view", "inplace", "inplace", "maker"]))
        i = draw(st.integers(0, n_tensors - 1))
        view = draw(st.sampled_from(sorted(VIEWS)))
        if kind == "view":
            prog.append(("view", i, view))
            n_tensors += 1
        elif kind == "maker":
            prog.append((draw(st.sampled_from(MAKERS)), i, view))
            n_tensors += 1
        else:
            prog.append((draw(st.sampled_from(INPLACE)), i, view))
    return prog


def program(L, log, prog, x0, w0):
    """A staged program (harness.run_logged): the steps of `prog`, then a backward."""
    x = L.tensor(x0, requires_grad=True)
    w = L.tensor(w0, requires_grad=True)
    base = x * 1.0
    tensors = [base]
    for k, (op, i, view) in enumerate(prog):
        log["stage"] = f"step {k}"
        step(L, tensors, w, op, i, view)
    log["stage"] = "backward"
    weights = L.tensor(np.arange(1.0, 17.0).reshape(4, 4))
    (base * weights).sum().backward()
    log["x.grad"] = x.grad
    log["w.grad"] = w.grad
    log["base"] = base.detach()
    log["version"] = base._version


# CI: 400 derandomized examples; OAR_RANDOM_EXAMPLES=5000 to hunt locally
@random_settings(400)
@given(programs(), st.integers(0, 2**31 - 1))
def test_random_program_matches_torch(prog, seed):
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-1, 1, size=(4, 4))
    w0 = rng.uniform(0.5, 1.5, size=(4, 4))
    got, want, problems = compare_logged(program, prog, x0, w0, rtol=1e-7, atol=1e-9)
    assert not problems, report(got, want, problems, repr(prog))
