"""Paddle-door calls that Paddle 3.3.1 runs (or refuses) and oar did otherwise: integer
stop_gradient, setitem values with leading 1-dims, a leaky_relu_ chain's gradient,
where_/pow_ argument errors, Parameter.need_clip. Each against paddle itself."""
import warnings

import numpy as np
import pytest

import oar

# exact byte counts: Note on the no_gc fixture (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("no_gc")

paddle = pytest.importorskip("paddle")
F = oar.nn.functional


def test_stop_gradient_false_on_an_integer_tensor_is_recorded():
    for mod in (paddle, oar):
        t = mod.to_tensor([1, 2])
        t.stop_gradient = False
        assert t.stop_gradient is False, mod
        assert mod.to_tensor([1, 2], stop_gradient=False).stop_gradient is False, mod
        t.stop_gradient = True
        assert t.stop_gradient is True, mod
    # integer tensors take no part in autograd: a float path through them is exact
    lab = oar.to_tensor([0, 2], stop_gradient=False)
    w = oar.to_tensor([[1., 2., 3.], [4., 5., 6.]], stop_gradient=False)
    oar.nn.functional.cross_entropy(w, lab).backward()
    pw = paddle.to_tensor(w.numpy(), stop_gradient=False)
    paddle.nn.functional.cross_entropy(pw, paddle.to_tensor([0, 2])).backward()
    np.testing.assert_allclose(w.grad.numpy(), pw.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("key,value_shape", [((0, slice(None)), [1, 4]), (1, [1, 1, 4]),
                                             ((slice(None), slice(1, 3)), [1, 3, 2]),
                                             ((slice(0, 2), 0), [1, 2])])
def test_setitem_value_with_leading_ones(key, value_shape):
    v = np.arange(np.prod(value_shape), dtype=np.float32).reshape(value_shape) + 1
    got, want = oar.zeros([3, 4]), paddle.zeros([3, 4])
    got[key] = oar.to_tensor(v)
    want[key] = paddle.to_tensor(v)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    # the value's gradient has the value's shape
    c = oar.to_tensor(v, stop_gradient=False)
    d = oar.zeros([3, 4]) * 1
    d[key] = c * 2
    d.sum().backward()
    assert list(c.grad.shape) == value_shape and (c.grad.numpy() == 2).all()


def test_setitem_value_that_cannot_fit_is_refused_unchanged():
    d = oar.zeros([3, 4])
    with pytest.raises(ValueError, match=r"\[2, 4\]"):
        d[0] = oar.ones([2, 4])
    assert (d.numpy() == 0).all() and d.inplace_version == 0


def _leaky_chain(mod, second):
    x = mod.to_tensor([[-1., 2.], [3., -4.]], stop_gradient=False)
    z = mod.nn.functional.leaky_relu_(x * 2, 0.1)
    w = mod.nn.functional.leaky_relu_(z, 0.2) if second == "leaky" else z.scale_(-1.0)
    w.sum().backward()
    return x.grad.numpy()


@pytest.mark.parametrize("second", ["leaky", "scale"])
def test_leaky_relu_inplace_chain_gradient_as_paddle(second):
    np.testing.assert_allclose(_leaky_chain(oar, second), _leaky_chain(paddle, second), rtol=1e-6)


def test_leaky_relu_inplace_chain_through_a_view_is_exact():
    # paddle 3.3.1 drops the in-place ops on the view from the gradient here (its result,
    # [0.48, -48, 24, -32], is y's gradient times 2 as if row 0 were never changed); the
    # reference is the chain rule by hand
    x = oar.to_tensor([[-1., 2.], [3., -4.]], stop_gradient=False)
    y = x * 2
    z = F.leaky_relu_(F.leaky_relu_(y[0], 0.1), 0.2)
    z.scale_(-3.0)
    (y * y).sum().backward()
    yf = np.array([[0.12, -12.], [6., -8.]])             # y after the chain
    dchain = np.array([[-3 * 0.2 * 0.1, -3.], [1., 1.]])  # d y_final / d y
    np.testing.assert_allclose(x.grad.numpy(), 2 * yf * dchain * 2, rtol=1e-5)


def test_paddle_leaky_relu_inplace_saves_a_mask_only():
    x = oar.to_tensor(np.linspace(-1, 1, 64, dtype=np.float32), stop_gradient=False)
    h = x * 1
    before = oar.device.memory_allocated()
    F.leaky_relu_(h, 0.1)
    assert oar.device.memory_allocated() == before + 64      # a bool mask, no float copy


def test_torch_door_leaky_relu_inplace_chain_still_caught_as_torch():
    torch = pytest.importorskip("torch")
    import oar.torch as ot
    for mod in (torch, ot):
        x = mod.tensor([[-1., 2.], [3., -4.]], requires_grad=True)
        z = mod.nn.functional.leaky_relu_(x * 2, 0.1)
        assert z.grad_fn.name() == "LeakyReluBackward1"
        w = mod.nn.functional.leaky_relu(z, 0.2, inplace=True)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            w.sum().backward()


def _error(fn):
    try:
        fn()
    except Exception as e:      # noqa: BLE001 - the class is what is compared
        return type(e)
    return None


@pytest.mark.parametrize("args", [(1, 2), (None, None), (1, "x"), ("x", None)])
def test_where_inplace_refuses_numbers_as_paddle(args):
    def call(mod):
        x = mod.to_tensor([1., 2.])
        a = [x if v == "x" else v for v in args]
        return lambda: mod.where_(x > 1, *a)
    want = _error(call(paddle))
    assert want is ValueError
    x = oar.to_tensor([1., 2.])
    with pytest.raises(ValueError, match="both or neither"):
        oar.where_(x > 1, *[x if v == "x" else v for v in args])
    assert x.inplace_version == 0


def test_where_inplace_condition_must_be_bool_as_paddle():
    assert _error(lambda: paddle.where_(paddle.to_tensor([1., 0.]), paddle.ones([2]),
                                        paddle.zeros([2]))) is ValueError
    with pytest.raises(ValueError, match="boolean"):
        oar.where_(oar.to_tensor([1., 0.]), oar.ones([2]), oar.zeros([2]))


@pytest.mark.parametrize("y", [[2], (2,), "2", None])
def test_pow_inplace_takes_numbers_only_as_paddle(y):
    def call(mod):
        x = mod.to_tensor([1., 2.])
        return lambda: x.pow_(y)
    assert _error(call(paddle)) is TypeError
    x = oar.to_tensor([1., 2.])
    with pytest.raises(TypeError, match="y must be scalar type"):
        x.pow_(y)
    assert x.inplace_version == 0 and (x.numpy() == [1., 2.]).all()


def test_pow_inplace_numbers_and_torch_door_tensor_exponent():
    for y in (2, 2.5, True):
        got, want = oar.to_tensor([1., 2.]), paddle.to_tensor([1., 2.])
        np.testing.assert_allclose(got.pow_(y).numpy(), want.pow_(y).numpy(), rtol=1e-6)
    torch = pytest.importorskip("torch")
    import oar.torch as ot
    t, r = ot.tensor([1., 2.]), torch.tensor([1., 2.])
    np.testing.assert_array_equal(t.pow_(ot.tensor([2., 3.])).numpy(),
                                  r.pow_(torch.tensor([2., 3.])).numpy())


def test_parameter_need_clip_attribute_as_paddle():
    for mod in (paddle, oar):
        lin = mod.nn.Linear(2, 2)
        assert lin.weight.need_clip is True, mod
        off = mod.nn.Linear(2, 2, weight_attr=mod.ParamAttr(need_clip=False))
        assert off.weight.need_clip is False and off.bias.need_clip is True, mod
    # clipping honours it: the need_clip=False gradient is kept whole
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = []
        for mod in (paddle, oar):
            lin = mod.nn.Linear(2, 2, weight_attr=mod.ParamAttr(need_clip=False))
            lin.weight.set_value(np.full((2, 2), 3., np.float32))
            lin.bias.set_value(np.full((2,), 3., np.float32))
            lin(mod.ones([4, 2]) * 10).sum().backward()
            clip = mod.nn.ClipGradByGlobalNorm(0.1)
            out = clip([(p, p.grad) for p in lin.parameters()])
            res.append([g.numpy() for _, g in out])
        for a, b in zip(*res):
            np.testing.assert_allclose(a, b, rtol=1e-5)


def test_tensor_and_parameter_names_as_paddle():
    def names(mod):
        a = mod.to_tensor([1, 2, 3])
        n = mod.reshape(a, [1, 3])
        s = mod.reshape_(a, [1, 3])
        lin = mod.nn.Linear(2, 2)
        strip = lambda t: t.name.rstrip("0123456789")
        return ([strip(a), strip(n), strip(s), a.name == s.name, a.name == n.name,
                 lin.weight.name.split(".")[1], lin.bias.name.split(".")[1],
                 lin.weight.name.split(".")[0] == lin.full_name()])
    assert names(oar) == names(paddle)


def test_leaf_error_quotes_a_name_only_once_it_was_read_as_paddle():
    def messages(mod):
        out = []
        for read, rename in ((False, None), (True, None), (False, "foo")):
            a = mod.randn([3, 4])
            a.stop_gradient = False
            if read:
                name = a.name
            if rename:
                a.name = rename
            with pytest.raises(ValueError) as e:
                a.scale_(2.0)
            quoted = str(e.value).split("Leaf Var (")[1].split(")")[0]
            out.append(quoted if not read else quoted == name)
        return out
    assert messages(oar) == messages(paddle) == ["", True, "foo"]


@pytest.mark.parametrize("fill", [10, 2.5, True, -3])
def test_full_dtype_without_dtype_as_paddle(fill):
    assert oar.full([2], fill).dtype.name == str(paddle.full([2], fill).dtype).split(".")[-1]


def test_retained_gradient_needs_a_gradient_as_paddle():
    got = []
    for mod in (paddle, oar):
        p = mod.to_tensor([1., 2.], stop_gradient=False)
        q = p * 2
        q.retain_grads()
        (q * q).sum().backward()
        got.append((p.grad.stop_gradient, q.grad.stop_gradient, q.grad.numpy().tolist()))
    assert got[0] == got[1]
    torch = pytest.importorskip("torch")
    import oar.torch as ot
    for mod in (torch, ot):
        p = mod.tensor([1., 2.], requires_grad=True)
        q = p * 2
        q.retain_grad()
        (q * q).sum().backward()
        assert q.grad.requires_grad is False, mod


# Note [Result layout per door]: every op result that is not a view is C-contiguous in
# Paddle 3.3.1, whatever its operands' layout; views keep theirs
_LAYOUT_CASES = {
    "add_scalar": lambda m, t: t + 2, "exp": lambda m, t: m.exp(t), "mul_self": lambda m, t: t * t,
    "clone": lambda m, t: t.clone(), "cast": lambda m, t: t.astype("float64"),
    "relu": lambda m, t: m.nn.functional.relu(t), "neg": lambda m, t: -t,
    "where": lambda m, t: m.where(t > 2, t, t * 0), "scale": lambda m, t: t.scale(2.0),
    "pow": lambda m, t: t ** 2, "softmax": lambda m, t: m.nn.functional.softmax(t),
    "tanh": lambda m, t: m.tanh(t), "compare": lambda m, t: t > 2,
    "with_contig": lambda m, t: t + m.ones([4, 3]), "cumsum": lambda m, t: t.cumsum(0),
    "transpose_view": lambda m, t: t.transpose([1, 0]), "slice_view": lambda m, t: t[:, 1:],
}


@pytest.mark.parametrize("grad", [False, True], ids=["plain", "requires_grad"])
@pytest.mark.parametrize("case", sorted(_LAYOUT_CASES))
def test_result_layout_is_paddles(case, grad):
    got = []
    for mod in (paddle, oar):
        x = mod.to_tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), stop_gradient=not grad)
        r = _LAYOUT_CASES[case](mod, x.transpose([1, 0]))
        got.append((r.is_contiguous(), list(r.strides), r.numpy()))
    assert got[1][:2] == got[0][:2]
    np.testing.assert_allclose(got[1][2], got[0][2], rtol=1e-6)   # transcendentals: ulps


def test_result_layout_under_no_grad_and_in_place_is_paddles():
    got = []
    for mod in (paddle, oar):
        x = mod.to_tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4), stop_gradient=False)
        with mod.no_grad():   # oar's fast path takes a view operand only without grad
            a = x.transpose([1, 0]) * 3
        t = x.detach().transpose([1, 0])
        b = t.add_(mod.ones([4, 3]))   # in place: the view keeps its strides
        got.append((a.is_contiguous(), b.is_contiguous(), list(b.strides)))
    assert got[1] == got[0]


def test_torch_door_results_keep_the_operands_layout_as_torch():
    torch = pytest.importorskip("torch")
    import oar.torch as ot
    for f in (lambda t: t + 2, lambda t: t.exp(), lambda t: t.clone(), lambda t: t * t,
              lambda t: t.double()):
        got = [f(m.arange(12.0).reshape(3, 4).t()).stride() for m in (torch, ot)]
        assert tuple(got[1]) == tuple(got[0]) == (1, 4)
