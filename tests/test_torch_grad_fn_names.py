"""Autograd node names of the torch door as torch 2.13's (Note [Node names]).

The OpInfo part runs PyTorch's own float64 samples of each op fixed here through the
harness's gradient check (tests/reference/opinfo.py run_grad) and asserts that no
`grad_fn` finding (type(y.grad_fn).__name__ differs from torch's) and no `grad` finding
(a gradient differs) remains. The direct tests compare whole chains (next_functions,
recursively) with torch for compositions that torch builds from several nodes, and the
behaviour that comes with the single ops: one node shared by two outputs, saved indices
released after a backward, stable= choosing sort's overload, second derivatives.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")   # OpInfo's module imports it

import oar.torch as ot  # noqa: E402
from tests.reference import opinfo as H  # noqa: E402

FIXED = [
    # index-selecting reductions: one op whose node is torch's (Note [Selected values op])
    "sort", "msort", "topk", "kthvalue", "mode", "median", "cummax", "cummin",
    "max.reduction_with_dim", "min.reduction_with_dim",
    # of all elements (Note [Evenly distributed gradient])
    "max.reduction_no_dim", "min.reduction_no_dim",
    # one node, two outputs (Note [Multi-output ops])
    "aminmax", "var_mean", "var_mean.unbiased", "std_mean", "std_mean.unbiased",
    # overloads chosen by the spelling
    "squeeze", "squeeze.multiple", "t", "split", "split.list_args", "split_with_sizes",
    "unsafe_split", "unsafe_chunk", "sum", "mean", "prod",
    # single ops where oar composed several
    "norm", "norm.fro", "norm.inf", "norm.nuc", "dist", "tile", "repeat", "bmm", "nn.functional.prelu",
    # compositions built node for node as torch builds them
    "nn.functional.nll_loss", "nn.functional.cross_entropy", "nn.functional.cosine_similarity",
    "nn.functional.instance_norm", "nn.functional.dropout3d",
]


# random results: oar's noise is not torch's, so only the node names compare
RANDOM = {"nn.functional.dropout3d"}


@pytest.mark.parametrize("name", FIXED)
def test_opinfo_grad_fn_names_and_gradients(name):
    op = H.OPS[name]
    found = H.run_grad(op, H._samples(op, torch.float64, requires_grad=True))
    kinds = ("grad_fn",) if name in RANDOM else ("grad_fn", "grad")
    bad = [str(f) for f in found if f.variant in kinds]
    assert not bad, "\n".join(bad[:10])


# ----------------------------------------------------------------------------- chains
def _chain(fn, depth=0):
    """A node and everything behind it, by class name, as a nested string."""
    if fn is None:
        return "None"
    inner = [_chain(f, depth + 1) for f, _ in fn.next_functions] if depth < 8 else ["..."]
    return type(fn).__name__ + ("(" + ", ".join(inner) + ")" if inner else "")


def _both(build):
    out = []
    for T in (torch, ot):
        rng = np.random.RandomState(0)

        def mk(*shape, grad=True):
            return T.tensor(rng.randn(*shape), dtype=T.float64, requires_grad=grad)
        out.append(build(T, T.nn.functional, mk))
    return out


CHAINS = {
    "cosine_similarity": lambda T, F, mk: F.cosine_similarity(mk(5, 5), mk(5, 5)),
    "cosine_similarity_broadcast": lambda T, F, mk: F.cosine_similarity(mk(2, 3), mk(2, 1, 3),
                                                                       dim=-1),
    "instance_norm": lambda T, F, mk: F.instance_norm(
        mk(3, 2, 4), mk(2, grad=False), mk(2, grad=False).abs(), mk(2), mk(2)),
    "instance_norm_plain": lambda T, F, mk: F.instance_norm(mk(1, 2, 3)),
    "nll_loss_3d_none": lambda T, F, mk: F.nll_loss(mk(2, 3, 2), T.tensor([[0, 2], [1, 1]]),
                                                    reduction="none"),
    "nll_loss_4d": lambda T, F, mk: F.nll_loss(mk(2, 3, 2, 2),
                                               T.tensor(np.zeros((2, 2, 2), np.int64))),
    "nll_loss_unbatched": lambda T, F, mk: F.nll_loss(mk(3), T.tensor(1), reduction="none"),
    "cross_entropy_probs_mean": lambda T, F, mk: F.cross_entropy(
        mk(2, 3), T.tensor(np.full((2, 3), 1 / 3))),
    "cross_entropy_weighted": lambda T, F, mk: F.cross_entropy(
        mk(2, 3), T.tensor([0, 2]), weight=T.tensor([1., 2., 3.], dtype=T.float64)),
    "cross_entropy_probs_smoothed_none": lambda T, F, mk: F.cross_entropy(
        mk(2, 3, 2), T.tensor(np.full((2, 3, 2), 1 / 3)), reduction="none",
        label_smoothing=0.2),
    "dropout3d_unbatched": lambda T, F, mk: F.dropout3d(mk(2, 2, 2, 2), 0.0),
    "dropout1d_unbatched": lambda T, F, mk: F.dropout1d(mk(2, 3), 0.5, training=False),
    "prelu": lambda T, F, mk: F.prelu(mk(2, 3, 4), mk(3)),
    "norm_dims": lambda T, F, mk: T.norm(mk(2, 3, 4), 3, (0, 2), True),
    "norm_nuc_keepdim": lambda T, F, mk: T.norm(mk(3, 5, 4), "nuc", [0, 2], keepdim=True),
    "tile": lambda T, F, mk: mk(2, 3).tile((2, 1, 2)),
    "max_dim": lambda T, F, mk: mk(3, 4).max(1)[0] * 2,
    "split_list": lambda T, F, mk: mk(4, 2).split([1, 3])[1].t(),
}


@pytest.mark.parametrize("case", sorted(CHAINS))
def test_chain_as_torch(case):
    t, o = _both(CHAINS[case])
    assert _chain(o.grad_fn) == _chain(t.grad_fn)


# ----------------------------------------------------------------------------- behaviour
def test_two_outputs_share_one_node_and_gradients_add():
    res = []
    for T in (torch, ot):
        x = T.tensor(np.random.RandomState(1).randn(4, 5), dtype=T.float64, requires_grad=True)
        for f in (lambda: T.var_mean(x, 1), lambda: T.std_mean(x, 0, correction=0),
                  lambda: T.aminmax(x, dim=1)):
            a, b = f()
            assert a.grad_fn is b.grad_fn
            for ca, cb in ((1.0, 0.0), (0.0, 1.0), (2.0, -3.0)):
                g, = T.autograd.grad((a * ca).sum() + (b * cb).sum(), x, retain_graph=True)
                res.append(g.detach().numpy().copy())
    n = len(res) // 2
    for a, b in zip(res[:n], res[n:]):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("build", [lambda x: x.sort(0)[0], lambda x: x.topk(2)[0],
                                   lambda x: x.max(1)[0], lambda x: x.cummax(0)[0],
                                   lambda x: x.median(0)[0]])
def test_selected_values_release_their_indices(build):
    """SortBackward0 & co. save the indices: a second backward through them is refused, as
    torch's (Note [Second backward])."""
    outcomes = []
    for T in (torch, ot):
        x = T.tensor(np.random.RandomState(2).randn(3, 4), dtype=T.float64, requires_grad=True)
        y = build(x)
        y.sum().backward()
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        outcomes.append("backward through the graph a second time" in str(e.value))
    assert outcomes == [True, True]


def test_sort_stable_keyword_is_the_other_overload():
    for kw, name in (({}, "SortBackward0"), ({"stable": False}, "SortBackward1"),
                     ({"stable": True}, "SortBackward1")):
        for T in (torch, ot):
            x = T.tensor([3.0, 1.0, 2.0], requires_grad=True)
            assert type(T.sort(x, **kw)[0].grad_fn).__name__ == name


def test_reductions_of_all_elements_share_ties_and_nans_as_torch():
    vals = [[1.0, 3.0, 3.0], [float("nan"), 0.0, float("nan")], [2.0, 2.0, 2.0]]
    for v in vals:
        got = []
        for T in (torch, ot):
            x = T.tensor(v, dtype=T.float64, requires_grad=True)
            row = []
            for f in (lambda: x.max(), lambda: x.min(), lambda: x.median()):
                y = f()
                g, = T.autograd.grad(y * 3.0, x)
                row.append((type(y.grad_fn).__name__, g.detach().numpy().tolist()))
            got.append(row)
        np.testing.assert_equal(got[1], got[0])


def test_second_derivatives_through_the_new_ops():
    """create_graph through the single ops gives torch's second derivatives."""
    def run(T):
        x = T.tensor(np.random.RandomState(3).randn(3, 4), dtype=T.float64, requires_grad=True)
        w = T.tensor([0.3, -0.2, 0.5], dtype=T.float64, requires_grad=True)
        y = (x.sort(1)[0] ** 2).sum() + (x.norm(3, 1) ** 2).sum() + x.dist(x.detach() * 0.5, 3) \
            + (x.tile((2, 1)) ** 3).sum() + T.nn.functional.prelu(x.t(), w).pow(2).sum() \
            + (T.var_mean(x, 0)[0] * T.var_mean(x, 0)[1]).sum() + (x.max() ** 2)
        gx, gw = T.autograd.grad(y, (x, w), create_graph=True)
        return [a.detach().numpy() for a in T.autograd.grad((gx ** 2).sum() + (gw ** 2).sum(),
                                                            (x, w))]
    for a, b in zip(run(torch), run(ot)):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_custom_function_node_is_named_after_the_class():
    names = []
    for T in (torch, ot):
        class Twice(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        y = Twice.apply(T.ones(2, requires_grad=True))
        names.append(type(y.grad_fn).__name__)
    assert names[1] == names[0] == "TwiceBackward"


INPUT_LISTS = {
    "gather": lambda T, x, m, i: T.gather(x, 0, i),
    "index_select": lambda T, x, m, i: x.index_select(0, T.tensor([1])),
    "advanced_index": lambda T, x, m, i: x[T.tensor([0])],
    "where": lambda T, x, m, i: T.where(m, x, x.detach() * 2),
    "where_number": lambda T, x, m, i: T.where(m, x, 0.0),
    "masked_fill_number": lambda T, x, m, i: x.masked_fill(m, 1.0),
    "masked_fill_tensor": lambda T, x, m, i: x.masked_fill(m, T.tensor(2.0, dtype=T.float64)),
    # in place on a non-leaf (oar's out-of-place scatter and index_add are clone + the
    # in-place op: a chain of their own)
    "scatter_": lambda T, x, m, i: (x * 1).scatter_(0, i, x * 2),
    "scatter_value": lambda T, x, m, i: (x * 1).scatter_(0, i, 2.0),
    "scatter_add_": lambda T, x, m, i: (x * 1).scatter_add_(0, i, x.detach()),
    "index_add_": lambda T, x, m, i: (x * 1).index_add_(0, T.tensor([1]), x[:1] * 3),
    "pow_number": lambda T, x, m, i: x ** 2,
    "rpow": lambda T, x, m, i: 2 ** x,
    "remainder_number": lambda T, x, m, i: x.remainder(2.0),
    "fmod_number": lambda T, x, m, i: x.fmod(2.0),
    "rsub": lambda T, x, m, i: 1 - x,
    "sub_number": lambda T, x, m, i: x - 1,
    "mul_number": lambda T, x, m, i: x * 2,
    "fill_": lambda T, x, m, i: x.clone().fill_(1.0),
}


@pytest.mark.parametrize("case", sorted(INPUT_LISTS))
def test_next_functions_list_torch_inputs(case):
    """Note [Node inputs]: no entry for index/mask/condition operands, nor for a number that
    torch's overload takes as a Scalar; a wrapped number's (None, 0) stays."""
    got = []
    for T in (torch, ot):
        x = T.tensor(np.arange(6.0).reshape(2, 3), dtype=T.float64, requires_grad=True)
        y = INPUT_LISTS[case](T, x, x.detach() > 2, T.tensor([[0, 1, 0]]))
        got.append([type(f).__name__ for f, _ in y.grad_fn.next_functions])
    assert got[1] == got[0]
