"""Losses of the breadth pass (oar/nn/_losses_more.py, Note [CTC loss op], Note [Composite
losses]): ctc_loss and the margin / embedding / likelihood losses in both doors, values and
gradients against torch 2.13 and paddle 3.3.1, float64 gradchecks, non-contiguous inputs, the
layers' defaults and the frameworks' errors."""
import numpy as np
import pytest

import oar
import oar.torch as otorch
from oar.autograd.gradcheck import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
paddle = pytest.importorskip("paddle")
TF, OF = torch.nn.functional, otorch.nn.functional
PF, QF = paddle.nn.functional, oar.nn.functional


def _close(a, b, tol):
    if a is None or b is None:            # an operand used only in comparisons: no gradient
        assert a is None and b is None, (a, b)
        return
    a = a.detach().numpy() if hasattr(a, "detach") else a.numpy()
    b = b.detach().numpy() if hasattr(b, "detach") else b.numpy()
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


# ---------------------------------------------------------------- CTC: torch door
def _ctc_case(dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    t, n, c, s = 9, 4, 5, 4
    x = rng.standard_normal((t, n, c)).astype(dtype)
    lab = rng.integers(1, c, (n, s))
    lab[0, :2] = 2                        # a repeated label (needs a blank between)
    lab[3] = [1, 1, 1, 0]
    il = np.array([9, 6, 8, 3])
    tl = np.array([4, 2, 0, 3])           # an empty target; sample 3 cannot be aligned
    return x, lab, il, tl


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_torch_values_and_gradients(reduction, zero_infinity):
    x, lab, il, tl = _ctc_case()
    tx, ox = torch.tensor(x, requires_grad=True), otorch.tensor(x, requires_grad=True)
    a = TF.ctc_loss(tx.log_softmax(-1), torch.tensor(lab), torch.tensor(il), torch.tensor(tl),
                    reduction=reduction, zero_infinity=zero_infinity)
    b = OF.ctc_loss(ox.log_softmax(-1), otorch.tensor(lab), otorch.tensor(il),
                    otorch.tensor(tl), reduction=reduction, zero_infinity=zero_infinity)
    _close(b, a, 1e-5)
    w = np.random.default_rng(1).standard_normal(a.shape).astype(np.float32)
    (a * torch.tensor(w)).sum().backward()
    (b * otorch.tensor(w)).sum().backward()
    _close(ox.grad, tx.grad, 1e-5)
    if reduction == "none" and not zero_infinity:
        assert np.isinf(b.detach().numpy()[3])           # impossible alignment
        assert type(b.grad_fn).__name__ == "CtcLossBackward0"


def test_ctc_torch_leaf_log_probs_get_torchs_formula():
    """A leaf log_probs receives torch's ctc_loss_backward (exp(lp) - posterior), not the
    gradient of the log-likelihood alone."""
    x, lab, il, tl = _ctc_case(np.float64)
    lp = torch.tensor(x).log_softmax(-1).detach().requires_grad_()
    olp = otorch.tensor(lp.detach().numpy(), requires_grad=True)
    TF.ctc_loss(lp, torch.tensor(lab), torch.tensor(il), torch.tensor(tl),
                zero_infinity=True).backward()
    OF.ctc_loss(olp, otorch.tensor(lab), otorch.tensor(il), otorch.tensor(tl),
                zero_infinity=True).backward()
    _close(olp.grad, lp.grad, 1e-10)


def test_ctc_torch_concatenated_targets_lists_and_noncontiguous():
    x, lab, il, tl = _ctc_case(np.float64)
    xt = np.ascontiguousarray(x.transpose(1, 0, 2))         # [N, T, C] storage
    tx = torch.tensor(xt, requires_grad=True)
    ox = otorch.tensor(xt, requires_grad=True)
    cat = np.concatenate([lab[i, :tl[i]] for i in range(4)])
    a = TF.ctc_loss(tx.transpose(0, 1).log_softmax(-1), torch.tensor(cat), list(il), tuple(tl),
                    reduction="sum", zero_infinity=True)
    b = OF.ctc_loss(ox.transpose(0, 1).log_softmax(-1), otorch.tensor(cat), list(il), tuple(tl),
                    reduction="sum", zero_infinity=True)
    _close(b, a, 1e-10)
    a.backward()
    b.backward()
    _close(ox.grad, tx.grad, 1e-10)


def test_ctc_torch_unbatched_and_module():
    x, lab, il, tl = _ctc_case(np.float64)
    args_t = (torch.tensor(x[:, 0]).log_softmax(-1), torch.tensor(lab[0]), torch.tensor(9),
              torch.tensor(4))
    args_o = (otorch.tensor(x[:, 0]).log_softmax(-1), otorch.tensor(lab[0]), otorch.tensor(9),
              otorch.tensor(4))
    for red in ("none", "mean", "sum"):
        _close(OF.ctc_loss(*args_o, reduction=red), TF.ctc_loss(*args_t, reduction=red), 1e-10)
    m_t, m_o = torch.nn.CTCLoss(blank=0, zero_infinity=True), otorch.nn.CTCLoss(zero_infinity=True)
    full_t = (torch.tensor(x).log_softmax(-1), torch.tensor(lab), torch.tensor(il),
              torch.tensor(tl))
    full_o = (otorch.tensor(x).log_softmax(-1), otorch.tensor(lab), otorch.tensor(il),
              otorch.tensor(tl))
    _close(m_o(*full_o), m_t(*full_t), 1e-10)


def test_ctc_other_blank():
    x, lab, il, tl = _ctc_case(np.float64)
    lab = lab - 1                        # labels 0..3, blank 4
    args = [(m.tensor(x).log_softmax(-1), m.tensor(lab), m.tensor(il), m.tensor(tl))
            for m in (torch, otorch)]
    _close(OF.ctc_loss(*args[1], blank=4, reduction="none"),
           TF.ctc_loss(*args[0], blank=4, reduction="none"), 1e-10)


def test_ctc_gradcheck_float64():
    rng = np.random.default_rng(3)
    x = otorch.tensor(rng.standard_normal((6, 2, 4)), requires_grad=True)
    lab, il, tl = otorch.tensor([[1, 2, 2], [3, 1, 0]]), otorch.tensor([6, 5]), otorch.tensor([3, 2])
    assert gradcheck(lambda v: OF.ctc_loss(v.log_softmax(-1), lab, il, tl, reduction="none"),
                     (x,))
    assert gradcheck(lambda v: QF.ctc_loss(v, oar.to_tensor(np.array([[1, 2, 2], [3, 1, 0]],
                                                                     np.int32)),
                                           oar.to_tensor(np.array([6, 5])),
                                           oar.to_tensor(np.array([3, 2])), reduction="sum"),
                     (oar.to_tensor(x.detach().numpy(), stop_gradient=False),))


@pytest.mark.parametrize("bad, exc", [
    (dict(input_lengths=[10, 6, 8, 3]), RuntimeError),           # longer than T
    (dict(blank=5), RuntimeError),                              # outside the classes
    (dict(target_lengths=[5, 2, 0, 3]), RuntimeError),          # longer than the padded targets
    (dict(input_lengths=[9.0, 6.0, 8.0, 3.0]), RuntimeError),   # not integral
    (dict(input_lengths=[9, 6, 8]), RuntimeError),              # not one per sample
    (dict(reduction="avg"), ValueError),
])
def test_ctc_torch_errors_and_nothing_changes(bad, exc):
    x, lab, il, tl = _ctc_case()

    def call(m, F):
        kw = dict(input_lengths=il, target_lengths=tl)
        kw.update(bad)
        kw = {k: (m.tensor(v) if isinstance(v, (list, np.ndarray)) and k != "targets" else v)
              for k, v in kw.items()}
        lp = m.tensor(x).log_softmax(-1)
        return F.ctc_loss(lp, m.tensor(lab), **kw)

    with pytest.raises(exc):
        call(torch, TF)
    with pytest.raises(exc):
        call(otorch, OF)


# ---------------------------------------------------------------- CTC: Paddle door
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("norm_by_times", [False, True])
def test_ctc_paddle_values_and_gradients(reduction, norm_by_times):
    """Paddle's ctc_loss takes unnormalised scores (softmax inside, as warpctc), int32
    labels, costs 0 for an impossible alignment, and norm_by_times scales the gradient only."""
    x, lab, il, tl = _ctc_case()
    tl[2] = 1                            # Paddle's 'mean' divides by the label lengths
    px = paddle.to_tensor(x, stop_gradient=False)
    ox = oar.to_tensor(x, stop_gradient=False)
    args = lambda m: (m.to_tensor(lab.astype(np.int32)), m.to_tensor(il), m.to_tensor(tl))
    a = PF.ctc_loss(px, *args(paddle), reduction=reduction, norm_by_times=norm_by_times)
    b = QF.ctc_loss(ox, *args(oar), reduction=reduction, norm_by_times=norm_by_times)
    _close(b, a, 1e-5)
    a.sum().backward()
    b.sum().backward()
    _close(ox.grad, px.grad, 1e-5)
    la = paddle.nn.CTCLoss(reduction=reduction)(px, *args(paddle), norm_by_times=norm_by_times)
    lb = oar.nn.CTCLoss(reduction=reduction)(ox, *args(oar), norm_by_times=norm_by_times)
    _close(lb, la, 1e-5)


def test_ctc_paddle_refuses_int64_labels_and_changes_nothing():
    x, lab, il, tl = _ctc_case()
    ox = oar.to_tensor(x)
    before = ox.numpy().copy()
    with pytest.raises(ValueError):
        PF.ctc_loss(paddle.to_tensor(x), paddle.to_tensor(lab), paddle.to_tensor(il),
                    paddle.to_tensor(tl))
    with pytest.raises(ValueError):
        QF.ctc_loss(ox, oar.to_tensor(lab), oar.to_tensor(il), oar.to_tensor(tl))
    np.testing.assert_array_equal(ox.numpy(), before)
    with pytest.raises(ValueError):
        QF.ctc_loss(ox, oar.to_tensor(lab.astype(np.int32)), oar.to_tensor(il),
                    oar.to_tensor(tl), blank=7)


# ---------------------------------------------------------------- composite losses
def _data(seed=1):
    rng = np.random.default_rng(seed)
    d = dict(x=rng.standard_normal((4, 5)), y=rng.standard_normal((4, 5)),
             z=rng.standard_normal((4, 5)), s=np.sign(rng.standard_normal(4)),
             s5=np.sign(rng.standard_normal((4, 5))),
             b=(rng.random((4, 5)) > 0.5).astype(np.float64),
             cls=rng.integers(0, 5, 4), v=rng.random((4, 5)) + 0.1,
             v1=rng.random(4) + 0.1, w=rng.random(5),
             pos=np.abs(rng.standard_normal((4, 5))) + 0.1, cnt=np.abs(rng.standard_normal((4, 5))) * 3,
             mt=np.array([[3, 0, -1, 1, 1], [1, 2, 4, -1, 0], [0, 1, 2, 3, 4], [-1, 2, 0, 0, 0]]))
    return d


# (torch name, paddle name, operands, torch kwargs, paddle kwargs); float operands all
# take gradients
CASES = [
    ("margin_ranking_loss", "margin_ranking_loss", ("x", "y", "s5"), dict(margin=0.3), None),
    ("hinge_embedding_loss", "hinge_embedding_loss", ("x", "s5"), dict(margin=0.7), None),
    ("soft_margin_loss", "soft_margin_loss", ("x", "s5"), {}, None),
    ("cosine_embedding_loss", "cosine_embedding_loss", ("x", "y", "s"), dict(margin=0.2), None),
    ("multilabel_soft_margin_loss", "multi_label_soft_margin_loss", ("x", "b"), {}, None),
    ("multilabel_soft_margin_loss", "multi_label_soft_margin_loss", ("x", "b"),
     dict(weight="w"), None),
    ("poisson_nll_loss", "poisson_nll_loss", ("x", "cnt"), dict(full=True), None),
    ("poisson_nll_loss", "poisson_nll_loss", ("pos", "cnt"), dict(log_input=False, eps=1e-3),
     dict(log_input=False, epsilon=1e-3)),
    ("gaussian_nll_loss", "gaussian_nll_loss", ("x", "y", "v"), dict(full=True), None),
    ("gaussian_nll_loss", "gaussian_nll_loss", ("x", "y", "v1"), dict(eps=0.3),
     dict(epsilon=0.3)),
    ("triplet_margin_loss", "triplet_margin_loss", ("x", "y", "z"),
     dict(margin=2.0, p=1.5, swap=True), None),
    ("triplet_margin_loss", "triplet_margin_loss", ("x", "y", "z"), dict(eps=1e-3),
     dict(epsilon=1e-3)),
    ("triplet_margin_with_distance_loss", "triplet_margin_with_distance_loss",
     ("x", "y", "z"), dict(margin=2.0, swap=True), None),
    ("multi_margin_loss", "multi_margin_loss", ("x", "cls"), dict(p=2, margin=2.0), None),
    ("multi_margin_loss", "multi_margin_loss", ("x", "cls"), dict(weight="w"), None),
    ("multilabel_margin_loss", "multi_label_margin_loss", ("x", "mt"), {}, None),
]


def _kw(kw, make, d):
    return {k: (make(d[v]) if isinstance(v, str) else v) for k, v in kw.items()}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{','.join(c[2])}-{c[3]}")
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_torch_door_against_torch(case, reduction):
    tname, _, ops, kw, _ = case
    d = _data()
    # torch's native soft_margin_loss refuses a target that requires grad (tested below)
    grad = [d[k].dtype == np.float64 and not (tname == "soft_margin_loss" and i == 1)
            for i, k in enumerate(ops)]
    ta = [torch.tensor(d[k], requires_grad=g) for k, g in zip(ops, grad)]
    # non-contiguous oar operands: the transpose of a transposed copy
    oa = [otorch.tensor(np.ascontiguousarray(d[k].T)).T if d[k].ndim == 2 else otorch.tensor(d[k])
          for k in ops]
    oa = [o.detach().requires_grad_() if g else o for o, g in zip(oa, grad)]
    a = getattr(TF, tname)(*ta, reduction=reduction, **_kw(kw, torch.tensor, d))
    b = getattr(OF, tname)(*oa, reduction=reduction, **_kw(kw, otorch.tensor, d))
    _close(b, a, 1e-12)
    w = np.random.default_rng(2).standard_normal(tuple(a.shape))
    (a * torch.tensor(w)).sum().backward()
    (b * otorch.tensor(w)).sum().backward()
    for t, o in zip(ta, oa):
        if t.requires_grad:
            _close(o.grad, t.grad, 1e-10)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[1]}-{','.join(c[2])}-{c[3]}")
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_paddle_door_against_paddle(case, reduction):
    _, pname, ops, tkw, pkw = case
    kw = tkw if pkw is None else pkw
    d = _data()
    pa = [paddle.to_tensor(d[k], stop_gradient=d[k].dtype != np.float64) for k in ops]
    oa = [oar.to_tensor(d[k], stop_gradient=d[k].dtype != np.float64) for k in ops]
    a = getattr(PF, pname)(*pa, reduction=reduction, **_kw(kw, paddle.to_tensor, d))
    b = getattr(QF, pname)(*oa, reduction=reduction, **_kw(kw, oar.to_tensor, d))
    # Paddle's p_norm (p = 1.5) and its float32 weight product move the last digits
    tol = 1e-6 if pname in ("triplet_margin_loss", "multi_margin_loss") else 1e-12
    _close(b, a, tol)
    a.sum().backward()
    b.sum().backward()
    for p, o in zip(pa, oa):
        if not p.stop_gradient:
            _close(o.grad, p.grad, tol)


def test_gradcheck_float64_composites():
    d = _data()
    t = lambda k: otorch.tensor(d[k], requires_grad=True)
    c = lambda k: otorch.tensor(d[k])
    checks = [
        (lambda a, b: OF.margin_ranking_loss(a, b, c("s5"), margin=0.3), (t("x"), t("y"))),
        (lambda a: OF.soft_margin_loss(a, c("s5")), (t("x"),)),
        (lambda a, b: OF.cosine_embedding_loss(a, b, c("s"), margin=0.2), (t("x"), t("y"))),
        (lambda a: OF.multilabel_soft_margin_loss(a, c("b"), weight=c("w")), (t("x"),)),
        (lambda a, y: OF.poisson_nll_loss(a, y, full=True), (t("x"), t("cnt"))),
        (lambda a, b, v: OF.gaussian_nll_loss(a, b, v, full=True), (t("x"), t("y"), t("v"))),
        (lambda a, b, e: OF.triplet_margin_loss(a, b, e, margin=3.0, p=3), (t("x"), t("y"), t("z"))),
        (lambda a: OF.multi_margin_loss(a, c("cls"), p=2, margin=5.0), (t("x"),)),
        (lambda a: OF.multilabel_margin_loss(a, c("mt")), (t("x"),)),
    ]
    for fn, args in checks:
        assert gradcheck(fn, args)


def test_torch_modules_defaults_and_state_dict():
    d = _data()
    w = torch.tensor(d["w"])
    pairs = [
        (torch.nn.MarginRankingLoss(margin=0.5), otorch.nn.MarginRankingLoss(margin=0.5),
         ("x", "y", "s5")),
        (torch.nn.HingeEmbeddingLoss(), otorch.nn.HingeEmbeddingLoss(), ("x", "s5")),
        (torch.nn.SoftMarginLoss(reduction="sum"), otorch.nn.SoftMarginLoss(reduction="sum"),
         ("x", "s5")),
        (torch.nn.CosineEmbeddingLoss(), otorch.nn.CosineEmbeddingLoss(), ("x", "y", "s")),
        (torch.nn.MultiLabelSoftMarginLoss(weight=w),
         otorch.nn.MultiLabelSoftMarginLoss(weight=otorch.tensor(d["w"])), ("x", "b")),
        (torch.nn.PoissonNLLLoss(), otorch.nn.PoissonNLLLoss(), ("x", "cnt")),
        (torch.nn.GaussianNLLLoss(full=True), otorch.nn.GaussianNLLLoss(full=True),
         ("x", "y", "v")),
        (torch.nn.TripletMarginLoss(), otorch.nn.TripletMarginLoss(), ("x", "y", "z")),
        (torch.nn.TripletMarginWithDistanceLoss(),
         otorch.nn.TripletMarginWithDistanceLoss(), ("x", "y", "z")),
        (torch.nn.MultiMarginLoss(weight=w),
         otorch.nn.MultiMarginLoss(weight=otorch.tensor(d["w"])), ("x", "cls")),
        (torch.nn.MultiLabelMarginLoss(), otorch.nn.MultiLabelMarginLoss(), ("x", "mt")),
    ]
    for mt, mo, ops in pairs:
        _close(mo(*(otorch.tensor(d[k]) for k in ops)), mt(*(torch.tensor(d[k]) for k in ops)),
               1e-12)
        assert list(mo.state_dict()) == list(mt.state_dict())
        mt.load_state_dict({k: torch.tensor(v.numpy()) for k, v in mo.state_dict().items()})


def test_paddle_layers_defaults():
    d = _data()
    pairs = [
        ("MarginRankingLoss", dict(margin=0.5), ("x", "y", "s5")),
        ("HingeEmbeddingLoss", {}, ("x", "s5")),
        ("SoftMarginLoss", dict(reduction="sum"), ("x", "s5")),
        ("CosineEmbeddingLoss", dict(margin=0.1), ("x", "y", "s")),
        ("MultiLabelSoftMarginLoss", {}, ("x", "b")),
        ("PoissonNLLLoss", dict(full=True), ("x", "cnt")),
        ("GaussianNLLLoss", {}, ("x", "y", "v")),
        ("TripletMarginLoss", dict(p=1.0), ("x", "y", "z")),
        ("TripletMarginWithDistanceLoss", dict(swap=True), ("x", "y", "z")),
        ("MultiMarginLoss", dict(p=2), ("x", "cls")),
        ("MultiLabelMarginLoss", {}, ("x", "mt")),
    ]
    for name, kw, ops in pairs:
        a = getattr(paddle.nn, name)(**kw)(*(paddle.to_tensor(d[k]) for k in ops))
        b = getattr(oar.nn, name)(**kw)(*(oar.to_tensor(d[k]) for k in ops))
        _close(b, a, 1e-6 if name in ("TripletMarginLoss", "MultiMarginLoss") else 1e-12)


def test_torch_door_errors():
    d = _data()
    x = otorch.tensor(d["x"])
    with pytest.raises(ValueError):                       # torch: only p 1 and 2
        OF.multi_margin_loss(x, otorch.tensor(d["cls"]), p=3)
    with pytest.raises(RuntimeError):                     # inconsistent target size
        OF.multi_margin_loss(x, otorch.tensor(d["cls"][:3]))
    with pytest.raises(ValueError):                       # var of incorrect size
        OF.gaussian_nll_loss(x, x, otorch.tensor(d["v"][:, :2]))
    with pytest.raises(ValueError):
        OF.gaussian_nll_loss(x, x, -otorch.tensor(d["v"]))
    with pytest.raises(ValueError):
        OF.triplet_margin_with_distance_loss(x, x, x, margin=0.0)
    with pytest.raises(RuntimeError):
        OF.margin_ranking_loss(x, x, otorch.tensor(d["s"]))
    with pytest.raises(ValueError):
        OF.soft_margin_loss(x, x, reduction="avg")
    with pytest.raises(RuntimeError):
        OF.soft_margin_loss(x, otorch.tensor(d["s5"], requires_grad=True))
    with pytest.raises(RuntimeError):
        TF.soft_margin_loss(torch.tensor(d["x"]), torch.tensor(d["s5"], requires_grad=True))
    with pytest.raises(ValueError):
        TF.triplet_margin_with_distance_loss(torch.tensor(d["x"]), torch.tensor(d["x"]),
                                             torch.tensor(d["x"]), margin=0.0)
    with pytest.raises(RuntimeError):
        TF.margin_ranking_loss(torch.tensor(d["x"]), torch.tensor(d["x"]), torch.tensor(d["s"]))


def test_paddle_door_errors_change_nothing():
    d = _data()
    x = oar.to_tensor(d["x"], stop_gradient=False)
    before = x.numpy().copy()
    with pytest.raises(ValueError):
        QF.soft_margin_loss(x, oar.to_tensor(d["s"]))
    with pytest.raises(ValueError):
        PF.soft_margin_loss(paddle.to_tensor(d["x"]), paddle.to_tensor(d["s"]))
    with pytest.raises(ValueError):
        QF.triplet_margin_loss(x, x, oar.to_tensor(d["s"]))
    with pytest.raises(ValueError):
        PF.triplet_margin_loss(paddle.to_tensor(d["x"]), paddle.to_tensor(d["x"]),
                               paddle.to_tensor(d["s"]))
    with pytest.raises(ValueError):
        QF.cosine_embedding_loss(x, oar.to_tensor(d["x"][:, :3]), oar.to_tensor(d["s"]))
    with pytest.raises(ValueError):
        PF.cosine_embedding_loss(paddle.to_tensor(d["x"]), paddle.to_tensor(d["x"][:, :3]),
                                 paddle.to_tensor(d["s"]))
    with pytest.raises(ValueError):
        QF.margin_ranking_loss(x, x, x, reduction="avg")
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.grad is None


def test_results_are_door_tensors():
    """Note [Result class]: every loss returns its door's tensor class (constants built inside
    take the operand's class)."""
    d = _data()
    for tname, pname, ops, tkw, pkw in CASES:
        for red in ("none", "sum"):
            b = getattr(OF, tname)(*(otorch.tensor(d[k]) for k in ops), reduction=red,
                                   **_kw(tkw, otorch.tensor, d))
            c = getattr(QF, pname)(*(oar.to_tensor(d[k]) for k in ops), reduction=red,
                                   **_kw(tkw if pkw is None else pkw, oar.to_tensor, d))
            assert type(b) is otorch.Tensor and type(c) is oar.Tensor, (tname, red)
    x, lab, il, tl = _ctc_case()
    for zi in (False, True):
        b = OF.ctc_loss(otorch.tensor(x).log_softmax(-1), otorch.tensor(lab), otorch.tensor(il),
                        otorch.tensor(tl), zero_infinity=zi, reduction="none")
        assert type(b) is otorch.Tensor


def test_soft_margin_is_one_op_with_torchs_node_and_second_derivatives():
    d = _data()
    x = otorch.tensor(d["x"], requires_grad=True)
    y = otorch.tensor(d["s5"])
    for red in ("none", "mean", "sum"):
        out = OF.soft_margin_loss(x, y, reduction=red)
        assert type(out.grad_fn).__name__ == "SoftMarginLossBackward0"
        assert type(TF.soft_margin_loss(torch.tensor(d["x"], requires_grad=True),
                                        torch.tensor(d["s5"]), reduction=red).grad_fn
                    ).__name__ == "SoftMarginLossBackward0"
        assert gradgradcheck(lambda a: OF.soft_margin_loss(a, y, reduction=red), (x,))
    # a float32 target with float64 input: the composition (values still torch's)
    y32 = otorch.tensor(d["s5"].astype(np.float32))
    _close(OF.soft_margin_loss(x, y32), TF.soft_margin_loss(torch.tensor(d["x"]),
                                                          torch.tensor(d["s5"].astype(np.float32))),
           1e-12)


@pytest.mark.parametrize("shape", [(4, 5), (5,), ()])
def test_margin_ops_have_torchs_nodes_any_rank(shape):
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape)
    c = shape[-1] if shape else 1
    cls = rng.integers(0, c, shape[:1]) if len(shape) == 2 else np.array(c - 1)
    mt = (np.array([[3, 0, -1, 1, 1], [1, 2, 4, -1, 0], [0, 1, 2, 3, 4], [-1, 2, 0, 0, 0]])
          if len(shape) == 2 else np.array([2, 0, -1, 1, 1]) if shape else np.array(0))
    w = rng.random(c)
    for red in ("none", "mean", "sum"):
        for fname, tgt, kw in (("multi_margin_loss", cls, dict(p=2, weight="w")),
                               ("multi_margin_loss", cls, dict(margin=0.5)),
                               ("multilabel_margin_loss", mt, {})):
            kwt = {k: (torch.tensor(w) if v == "w" else v) for k, v in kw.items()}
            kwo = {k: (otorch.tensor(w) if v == "w" else v) for k, v in kw.items()}
            tx = torch.tensor(x, requires_grad=True)
            ox = otorch.tensor(x, requires_grad=True)
            a = getattr(TF, fname)(tx, torch.tensor(tgt), reduction=red, **kwt)
            b = getattr(OF, fname)(ox, otorch.tensor(tgt), reduction=red, **kwo)
            _close(b, a, 1e-12)
            assert type(b.grad_fn).__name__ == type(a.grad_fn).__name__
            gw = np.random.default_rng(5).standard_normal(tuple(a.shape))
            (a * torch.tensor(gw)).sum().backward()
            (b * otorch.tensor(gw)).sum().backward()
            _close(ox.grad, tx.grad, 1e-12)
    if len(shape) == 2:       # second derivatives (p = 2: linear in x; p = 1: zero)
        xx = otorch.tensor(x * 3, requires_grad=True)
        for p in (1, 2):
            assert gradgradcheck(lambda a: OF.multi_margin_loss(
                a, otorch.tensor(cls), p=p, weight=otorch.tensor(w), reduction="none"), (xx,))
        assert gradgradcheck(lambda a: OF.multilabel_margin_loss(a, otorch.tensor(mt)), (xx,))


def test_ctc_refuses_create_graph_rather_than_a_zero_second_derivative():
    import oar.torch as ot
    rng = np.random.default_rng(0)
    lp = ot.tensor(rng.standard_normal((6, 2, 4)), dtype=ot.float64).log_softmax(2)
    lp.requires_grad_(True)
    loss = ot.nn.functional.ctc_loss(lp, ot.tensor([[1, 2], [3, 1]]), [6, 5], [2, 2])
    with pytest.raises(NotImplementedError, match="create_graph"):
        ot.autograd.grad(loss, lp, create_graph=True)
    (g,) = ot.autograd.grad(loss, lp)     # first order still works
    assert g.shape == lp.shape
