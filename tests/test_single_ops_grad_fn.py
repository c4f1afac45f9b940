"""Activations and normalizations as single ops (Note [Activation and normalization ops]):
PyTorch's node names and next_functions, what each node saves, values and first / second
derivatives against torch 2.13, empty and 0-d inputs, dtype=, integer inputs."""
import numpy as np
import pytest

import oar
import oar.torch as ot
from oar.autograd.gradcheck import gradcheck, gradgradcheck

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

torch = pytest.importorskip("torch")
TF = torch.nn.functional
OF = ot.nn.functional


def _x(shape=(3, 4, 5), seed=0, scale=2.0):
    return np.random.default_rng(seed).standard_normal(shape) * scale


# name, call (F, x) -> y; x is (3, 4, 5)
CASES = [
    ("softmax", lambda F, x: F.softmax(x, dim=1)),
    ("softmax_last", lambda F, x: F.softmax(x, dim=-1)),
    ("tensor_softmax", lambda F, x: x.softmax(0)),
    ("log_softmax", lambda F, x: F.log_softmax(x, dim=2)),
    ("tensor_log_softmax", lambda F, x: x.log_softmax(1)),
    ("softmin", lambda F, x: F.softmin(x, dim=1)),
    ("layer_norm", lambda F, x: F.layer_norm(x, (5,))),
    ("layer_norm_2d", lambda F, x: F.layer_norm(x, (4, 5))),
    ("group_norm", lambda F, x: F.group_norm(x, 2)),
    ("silu", lambda F, x: F.silu(x)),
    ("silu_", lambda F, x: F.silu(x * 1, inplace=True)),
    ("elu", lambda F, x: F.elu(x, 0.7)),
    ("elu_", lambda F, x: F.elu(x * 1, 0.7, inplace=True)),
    ("elu_fn_", lambda F, x: F.elu_(x * 1)),
    ("hardswish", lambda F, x: F.hardswish(x)),
    ("hardswish_", lambda F, x: F.hardswish(x * 1, inplace=True)),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x)),
    ("hardsigmoid_", lambda F, x: F.hardsigmoid(x * 1, inplace=True)),
    ("gelu", lambda F, x: F.gelu(x)),
    ("gelu_tanh", lambda F, x: F.gelu(x, approximate="tanh")),
    ("softplus", lambda F, x: F.softplus(x)),
    ("softplus_beta", lambda F, x: F.softplus(x, beta=2.0, threshold=3.0)),
    ("logsigmoid", lambda F, x: F.logsigmoid(x)),
    ("leaky_relu", lambda F, x: F.leaky_relu(x, 0.2)),
    ("leaky_relu_", lambda F, x: F.leaky_relu(x * 1, 0.2, inplace=True)),
    ("leaky_relu_negative", lambda F, x: F.leaky_relu(x, -0.3)),
    ("hardtanh", lambda F, x: F.hardtanh(x, -1.5, 2.0)),
    ("hardtanh_", lambda F, x: F.hardtanh(x * 1, -1.5, 2.0, inplace=True)),
    ("relu6", lambda F, x: F.relu6(x * 3)),
    ("relu6_", lambda F, x: F.relu6(x * 3, inplace=True)),
    ("mish", lambda F, x: F.mish(x)),
    ("mish_", lambda F, x: F.mish(x * 1, inplace=True)),
    ("normalize", lambda F, x: F.normalize(x)),
]
IDS = [c[0] for c in CASES]


def _chain(fn, depth=3):
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), tuple(_chain(n, depth - 1) for n, _ in fn.next_functions))


# normalize: PyTorch's clamp_min node (ClampMinBackward0) has no core op yet; the top two
# levels (DivBackward0 <- AccumulateGrad, ExpandBackward0) match
_DEPTH = {"normalize": 1}


@pytest.mark.parametrize("name,f", CASES, ids=IDS)
def test_grad_fn_chain_matches_torch(name, f):
    xn = _x()
    tx = torch.tensor(xn, requires_grad=True)
    ox = ot.tensor(xn, requires_grad=True)
    d = _DEPTH.get(name, 3)
    ty, oy = f(TF, tx), f(OF, ox)
    assert _chain(oy.grad_fn, d) == _chain(ty.grad_fn, d)
    assert type(oy.grad_fn).__name__ == type(ty.grad_fn).__name__


def test_norms_with_affine_params_have_three_edges():
    xn = _x()
    for call in (lambda F, m, x: F.layer_norm(x, (5,), m(np.ones(5), requires_grad=True)),
                 lambda F, m, x: F.layer_norm(x, (5,), None, m(np.ones(5),
                                                                 requires_grad=True)),
                 lambda F, m, x: F.group_norm(x, 2, m(np.ones(4), requires_grad=True),
                                              m(np.ones(4), requires_grad=True))):
        ty = call(TF, torch.tensor, torch.tensor(xn, requires_grad=True))
        oy = call(OF, ot.tensor, ot.tensor(xn, requires_grad=True))
        assert _chain(oy.grad_fn, 1) == _chain(ty.grad_fn, 1)


# ------------------------------------------------------------------ values and gradients
def _both(f, xn, dt, params=()):
    """(oar result, oar grads, torch result, torch grads) of f with a random cotangent."""
    tins = [torch.tensor(a.astype(dt), requires_grad=True) for a in (xn, *params)]
    oins = [ot.tensor(a.astype(dt), requires_grad=True) for a in (xn, *params)]
    ty, oy = f(TF, *tins), f(OF, *oins)
    gn = np.random.default_rng(7).standard_normal(tuple(ty.shape)).astype(dt)
    tg = torch.autograd.grad(ty, tins, torch.tensor(gn), allow_unused=True)
    og = ot.autograd.grad(oy, oins, ot.tensor(gn), allow_unused=True)
    return oy, og, ty, tg


_TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name,f", CASES, ids=IDS)
def test_values_and_gradients_match_torch(name, f, dt):
    oy, og, ty, tg = _both(lambda F, x: f(F, x), _x(), dt)
    assert oy.dtype.name == str(ty.dtype).replace("torch.", "")
    np.testing.assert_allclose(oy.detach().numpy(), ty.detach().numpy(), **_TOL[dt])
    np.testing.assert_allclose(og[0].detach().numpy(), tg[0].detach().numpy(), **_TOL[dt])


NORMS = [
    ("layer_norm", lambda F, x, w, b: F.layer_norm(x, (4, 5), w, b, eps=1e-3),
     [(4, 5), (4, 5)]),
    ("layer_norm_w", lambda F, x, w: F.layer_norm(x, (5,), w), [(5,)]),
    ("group_norm", lambda F, x, w, b: F.group_norm(x, 2, w, b, eps=1e-3), [(4,), (4,)]),
    ("group_norm_1", lambda F, x, w, b: F.group_norm(x, 1, w, b), [(4,), (4,)]),
    ("group_norm_4", lambda F, x, w, b: F.group_norm(x, 4, w, b), [(4,), (4,)]),
]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name,f,pshapes", NORMS, ids=[n[0] for n in NORMS])
def test_norm_parameter_gradients_match_torch(name, f, pshapes, dt):
    rng = np.random.default_rng(3)
    params = [rng.standard_normal(s) for s in pshapes]
    oy, og, ty, tg = _both(f, _x() + 1.5, dt, params)
    np.testing.assert_allclose(oy.detach().numpy(), ty.detach().numpy(), **_TOL[dt])
    for o, t in zip(og, tg):
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), **_TOL[dt])


# second derivatives: PyTorch has none for hardsigmoid; for the piecewise-linear ops
# (leaky_relu, hardtanh, relu6) the first derivative under create_graph is compared (their
# second derivative is zero; oar's create_graph gradient there has no history, as relu's)
SECOND = [c for c in CASES if c[0] not in ("normalize", "hardsigmoid", "hardsigmoid_")]
_LINEAR_PIECES = ("leaky_relu", "leaky_relu_", "leaky_relu_negative", "hardtanh", "hardtanh_", "relu6", "relu6_")


@pytest.mark.parametrize("name,f", SECOND, ids=[c[0] for c in SECOND])
def test_second_derivatives_match_torch(name, f):
    xn = _x(seed=1)
    v = np.random.default_rng(2).standard_normal(xn.shape)
    res = []
    for F, mk, grad in ((TF, torch.tensor, torch.autograd.grad),
                        (OF, ot.tensor, ot.autograd.grad)):
        x = mk(xn, requires_grad=True)
        y = f(F, x)
        (gx,) = grad((y * mk(v)).sum(), [x], create_graph=True)
        if name in _LINEAR_PIECES:
            res.append((gx.detach().numpy(), np.zeros(1)))
            continue
        (ggx,) = grad((gx * mk(v[::-1].copy())).sum(), [x])
        res.append((gx.detach().numpy(), ggx.detach().numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name,f,pshapes", NORMS, ids=[n[0] for n in NORMS])
def test_norms_gradcheck_and_gradgradcheck(name, f, pshapes):
    rng = np.random.default_rng(5)
    ins = [ot.tensor(a, requires_grad=True)
           for a in (rng.standard_normal((2, 4, 5)), *[rng.standard_normal(s) for s in pshapes])]
    fn = lambda *a: f(OF, *a)   # noqa: E731
    assert gradcheck(fn, ins)
    assert gradgradcheck(fn, ins)


@pytest.mark.parametrize("name,f", [c for c in CASES if c[0] in (
    "softmax", "log_softmax", "silu", "elu", "hardswish", "softplus", "logsigmoid", "mish",
    "gelu", "gelu_tanh")], ids=lambda v: v if isinstance(v, str) else "")
def test_activations_gradcheck_and_gradgradcheck(name, f):
    x = ot.tensor(_x((2, 3, 4), seed=4), requires_grad=True)
    assert gradcheck(lambda a: f(OF, a), [x])
    assert gradgradcheck(lambda a: f(OF, a), [x])


# ------------------------------------------------------------------ what is saved
def _packed(T, call):
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t

    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = call()
    return packed, y


SAVES = [
    ("softmax", lambda F, m, x: F.softmax(x, 1)),
    ("log_softmax", lambda F, m, x: F.log_softmax(x, 1)),
    ("layer_norm", lambda F, m, x: F.layer_norm(x, (5,), m(np.ones(5), requires_grad=True),
                                                m(np.zeros(5), requires_grad=True))),
    ("group_norm", lambda F, m, x: F.group_norm(x, 2, m(np.ones(4), requires_grad=True),
                                                m(np.zeros(4), requires_grad=True))),
    ("silu", lambda F, m, x: F.silu(x)),
    ("elu", lambda F, m, x: F.elu(x)),
    ("hardswish", lambda F, m, x: F.hardswish(x)),
    ("softplus", lambda F, m, x: F.softplus(x)),
    ("leaky_relu_", lambda F, m, x: F.leaky_relu_(x * 1)),
]


@pytest.mark.parametrize("name,call", SAVES, ids=[s[0] for s in SAVES])
def test_saves_what_torch_saves(name, call):
    xn = _x()
    tp, _ = _packed(torch, lambda: call(TF, torch.tensor, torch.tensor(xn, requires_grad=True)))
    op, _ = _packed(ot, lambda: call(OF, ot.tensor, ot.tensor(xn, requires_grad=True)))
    if name == "leaky_relu_":    # PyTorch packs mul's operands too: compare the last save
        tp, op = tp[-1:], op[-1:]
    assert sorted(op) == sorted(tp)      # the same saves (the packing order may differ)


def test_softmax_forward_allocates_only_its_result():
    x = oar.to_tensor(_x().astype(np.float32), stop_gradient=False)
    before = oar.device.memory_allocated()
    y = oar.nn.functional.softmax(x, axis=1)
    assert oar.device.memory_allocated() - before == x.detach().numpy().nbytes   # y; it saves y itself
    assert y.grad_fn.name() == "SoftmaxBackward0"


def test_layer_norm_forward_allocates_its_result_and_statistics():
    xn = _x().astype(np.float32)
    x = ot.tensor(xn, requires_grad=True)
    before = oar.device.memory_allocated()
    y = OF.layer_norm(x, (5,))
    # y (3*4*5 floats) and mean, rstd (3*4 floats each): nothing else of x's size
    assert oar.device.memory_allocated() - before == 4 * (60 + 12 + 12)
    del y


def test_modifying_the_saved_softmax_result_is_detected_as_in_torch():
    for T, F in ((torch, TF), (ot, OF)):
        x = T.tensor(_x(), requires_grad=True)
        y = F.softmax(x, 1)
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("which", ["elu", "leaky_relu"])
def test_inplace_with_negative_slope_refuses_backward_as_torch(which):
    for T, F in ((torch, TF), (ot, OF)):
        x = T.tensor(_x(), requires_grad=True)
        y = F.elu_(x * 1, alpha=-1.0) if which == "elu" else F.leaky_relu_(x * 1, -0.1)
        with pytest.raises(RuntimeError, match="negative slope"):
            y.sum().backward()


# ------------------------------------------------------------------ edge inputs
EMPTY = [
    ("softmax", lambda F, x: F.softmax(x, -1), (5, 0, 0)),
    ("softmax_dim0", lambda F, x: F.softmax(x, 0), (0, 3)),
    ("log_softmax", lambda F, x: F.log_softmax(x, 1), (2, 0)),
    ("layer_norm", lambda F, x: F.layer_norm(x, (3,)), (0, 3)),
    ("layer_norm_empty_shape", lambda F, x: F.layer_norm(x, (0,)), (2, 0)),
    ("group_norm", lambda F, x: F.group_norm(x, 1), (0, 2)),
    ("silu", lambda F, x: F.silu(x), (0, 4)),
    ("softmax_0d", lambda F, x: F.softmax(x, 0), ()),
    ("log_softmax_0d", lambda F, x: F.log_softmax(x, -1), ()),
]


@pytest.mark.parametrize("name,f,shape", EMPTY, ids=[e[0] for e in EMPTY])
def test_empty_and_0d_inputs_match_torch(name, f, shape):
    xn = np.random.default_rng(0).standard_normal(shape)
    oy, og, ty, tg = _both(f, xn, np.float64)
    assert tuple(oy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(oy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(og[0].detach().numpy(), tg[0].detach().numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dt_name", ["float64", "float32"])
def test_softmax_dtype_casts_first_as_torch(log, dt_name):
    xn = _x().astype(np.float32)
    res = []
    for T, F in ((torch, TF), (ot, OF)):
        x = T.tensor(xn, requires_grad=True)
        fn = F.log_softmax if log else F.softmax
        y = fn(x, 1, dtype=getattr(T, dt_name))
        g = T.autograd.grad(y.sum() * 0 + (y * y).sum(), [x])[0]
        res.append((y, g, _chain(y.grad_fn, 2)))
    (ty, tg, tc), (oy, og, oc) = res
    assert oc == tc and str(oy.dtype) == str(ty.dtype)
    np.testing.assert_allclose(oy.detach().numpy(), ty.detach().numpy(), rtol=2e-6)
    np.testing.assert_allclose(og.detach().numpy(), tg.detach().numpy(), rtol=2e-5, atol=1e-6)
    # an integer input with a floating dtype= is cast first, as in torch
    yi = (F.softmax if not log else F.log_softmax)(ot.tensor([[1, 2], [3, 4]]), 1,
                                                      dtype=ot.float64)
    ti = (TF.softmax if not log else TF.log_softmax)(torch.tensor([[1, 2], [3, 4]]), 1,
                                                      dtype=torch.float64)
    np.testing.assert_allclose(yi.detach().numpy(), ti.detach().numpy(), rtol=1e-12)


INT_CALLS = [
    ("softmax", lambda F, x: F.softmax(x, 1)),
    ("log_softmax", lambda F, x: F.log_softmax(x, 1)),
    ("softmin", lambda F, x: F.softmin(x, 1)),
    ("layer_norm", lambda F, x: F.layer_norm(x, (3,))),
    ("group_norm", lambda F, x: F.group_norm(x, 1)),
    ("silu", lambda F, x: F.silu(x)),
    ("elu", lambda F, x: F.elu(x)),
    ("hardswish", lambda F, x: F.hardswish(x)),
    ("hardsigmoid", lambda F, x: F.hardsigmoid(x)),
    ("gelu", lambda F, x: F.gelu(x)),
    ("softplus", lambda F, x: F.softplus(x)),
    ("logsigmoid", lambda F, x: F.logsigmoid(x)),
    ("mish", lambda F, x: F.mish(x)),
    ("softmax_int_dtype", lambda F, x: F.softmax(x.double(), 1, dtype=x.dtype)),
]


@pytest.mark.parametrize("name,f", INT_CALLS, ids=[c[0] for c in INT_CALLS])
def test_integer_input_raises_as_torch(name, f):
    with pytest.raises(NotImplementedError) as te:
        f(TF, torch.arange(6).reshape(2, 3))
    x = ot.arange(6).reshape(2, 3)
    before = x.detach().numpy().copy()
    with pytest.raises(NotImplementedError) as oe:
        f(OF, x)
    assert "Long" in str(te.value) and "Long" in str(oe.value)
    np.testing.assert_array_equal(x.detach().numpy(), before)


def test_hardtanh_takes_integer_input_as_torch():
    for inplace in (False, True):
        t = TF.hardtanh(torch.arange(-3, 3), inplace=inplace)
        o = OF.hardtanh(ot.arange(-3, 3), inplace=inplace)
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy())


def test_hardtanh_gradient_is_zero_at_the_bounds_as_torch():
    xn = np.array([-1.0, -0.5, 0.0, 1.0, 2.0, 6.0])
    for f in (lambda F, x: F.hardtanh(x), lambda F, x: F.relu6(x),
              lambda F, x: F.hardtanh(x * 1, inplace=True)):
        oy, og, ty, tg = _both(f, xn, np.float64)
        np.testing.assert_array_equal(og[0].detach().numpy(), tg[0].detach().numpy())


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.0, -1.0, float("inf")])
def test_normalize_any_p_matches_torch(p):
    xn = _x((2, 3, 4), seed=9)
    oy, og, ty, tg = _both(lambda F, x: F.normalize(x, p=p, dim=1), xn, np.float64)
    np.testing.assert_allclose(oy.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(og[0].detach().numpy(), tg[0].detach().numpy(), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ the Paddle door
def test_paddle_door_uses_the_same_single_ops():
    F = oar.nn.functional
    xn = _x().astype(np.float32)
    x = oar.to_tensor(xn, stop_gradient=False)
    want = {"SoftmaxBackward0": F.softmax(x, axis=1), "LogSoftmaxBackward0": F.log_softmax(x),
            "NativeLayerNormBackward0": F.layer_norm(x, [5]),
            "NativeGroupNormBackward0": F.group_norm(x, 2),
            "SiluBackward0": F.silu(x), "EluBackward0": F.elu(x),
            "SoftplusBackward0": F.softplus(x), "LogSigmoidBackward0": F.log_sigmoid(x),
            "HardtanhBackward0": F.relu6(x)}
    for name, y in want.items():
        assert y.grad_fn.name() == name
    # Paddle's signature and meaning: axis, dtype; values as NumPy computes them
    y = F.softmax(x, axis=0, dtype="float64")
    e = np.exp(xn.astype(np.float64) - xn.astype(np.float64).max(0))
    np.testing.assert_allclose(y.detach().numpy(), e / e.sum(0), rtol=1e-12)
    assert y.dtype == oar.float64
    ln = F.log_softmax(x, axis=-1).detach().numpy()
    np.testing.assert_allclose(ln, np.log(np.exp(xn) / np.exp(xn).sum(-1, keepdims=True)),
                               rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError):       # Paddle's class for an integer input
        F.softmax(oar.to_tensor([1, 2, 3]))
