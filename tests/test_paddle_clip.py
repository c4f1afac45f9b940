"""Gradient clipping in the Paddle door (Note [Gradient clipping]): ClipGradByValue,
ClipGradByNorm, ClipGradByGlobalNorm as `grad_clip=` of the optimizers, paddle.nn.utils'
clip_grad_norm_ / clip_grad_value_, Layer.create_tensor and paddle.assign(x, output) --
each checked against paddle 3.3.1 computed here."""
import numpy as np
import pytest

import oar

RNG = np.random.default_rng(0)
GRADS = [(RNG.standard_normal((3, 4)) * 3).astype("float32"),
         RNG.standard_normal(4).astype("float32"),
         np.array(2.5, dtype="float32")]
INIT = [RNG.standard_normal(g.shape).astype("float32") for g in GRADS]


def _clips(lib):
    return {"value": lambda: lib.nn.ClipGradByValue(max=1.0),
            "value_minmax": lambda: lib.nn.ClipGradByValue(min=-0.5, max=2.0),
            "norm": lambda: lib.nn.ClipGradByNorm(clip_norm=1.0),
            "norm_big": lambda: lib.nn.ClipGradByNorm(clip_norm=100.0),
            "global": lambda: lib.nn.ClipGradByGlobalNorm(clip_norm=1.0),
            "global_big": lambda: lib.nn.ClipGradByGlobalNorm(clip_norm=100.0),
            "global_skip": lambda: lib.nn.ClipGradByGlobalNorm(clip_norm=1.0,
                                                               auto_skip_clip=True)}


def _run(lib, clip_name, opt_name, no_clip, steps=3):
    """Parameters and grads after `steps` steps on loss = sum(k * p * G) (fixed gradients)."""
    ps = [lib.create_parameter(list(v.shape), "float32",
                               default_initializer=lib.nn.initializer.Assign(v)) for v in INIT]
    for i in no_clip:
        ps[i].need_clip = False
    clip = _clips(lib)[clip_name]()
    if opt_name == "sgd":
        opt = lib.optimizer.SGD(learning_rate=0.1, parameters=ps, grad_clip=clip)
    else:
        opt = lib.optimizer.Adam(learning_rate=0.1, parameters=ps, grad_clip=clip,
                                 weight_decay=0.01)
    grads = []
    for k in range(1, steps + 1):
        loss = sum((p * lib.to_tensor(g * k)).sum() for p, g in zip(ps, GRADS))
        loss.backward()
        opt.step()
        grads.append([p.grad.numpy() for p in ps])
        opt.clear_grad()
    return [p.numpy() for p in ps], grads


@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
@pytest.mark.parametrize("no_clip", [(), (1,)])
@pytest.mark.parametrize("clip_name", sorted(_clips(oar)))
def test_clip_matches_paddle(clip_name, opt_name, no_clip):
    paddle = pytest.importorskip("paddle")
    want_p, want_g = _run(paddle, clip_name, opt_name, no_clip)
    got_p, got_g = _run(oar, clip_name, opt_name, no_clip)
    for w, g in zip(want_p, got_p):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6)
    for ws, gs in zip(want_g, got_g):       # what p.grad holds after step()
        for w, g in zip(ws, gs):
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6)


def test_value_and_norm_leave_grad_global_scales_it():
    for make, changed in ((lambda: oar.nn.ClipGradByValue(1.0), False),
                          (lambda: oar.nn.ClipGradByNorm(1.0), False),
                          (lambda: oar.nn.ClipGradByGlobalNorm(1.0), True)):
        w = oar.create_parameter([2], "float32",
                                 default_initializer=oar.nn.initializer.Constant(0.0))
        opt = oar.optimizer.SGD(learning_rate=1.0, parameters=[w], grad_clip=make())
        (w * oar.to_tensor([3.0, -4.0])).sum().backward()
        v = w.grad.inplace_version
        opt.step()
        assert (w.grad.inplace_version != v) == changed
        assert np.array_equal(w.grad.numpy(), [3.0, -4.0]) != changed
        np.testing.assert_allclose(w.numpy(), [-0.6, 0.8] if make().__class__.__name__ != "ClipGradByValue"
                                   else [-1.0, 1.0], rtol=1e-6)


def test_param_groups_clip_per_group():
    paddle = pytest.importorskip("paddle")

    def run(lib):
        ps = [lib.create_parameter([2], "float32",
                                   default_initializer=lib.nn.initializer.Constant(0.0))
              for _ in range(2)]
        opt = lib.optimizer.SGD(learning_rate=1.0, grad_clip=lib.nn.ClipGradByGlobalNorm(1.0),
                                parameters=[{"params": [ps[0]]},
                                            {"params": [ps[1]], "grad_clip": None}])
        (ps[0] * lib.to_tensor([3.0, 4.0]) + ps[1] * lib.to_tensor([3.0, 4.0])).sum().backward()
        opt.step()
        return [p.numpy() for p in ps]
    for w, g in zip(run(paddle), run(oar)):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_need_clip_from_param_attr():
    layer = oar.nn.Linear(2, 2, bias_attr=oar.ParamAttr(need_clip=False))
    assert getattr(layer.bias, "need_clip", True) is False
    w = oar.create_parameter([2], "float32", attr=oar.ParamAttr(need_clip=False))
    assert getattr(w, "need_clip", True) is False


def test_str_matches_paddle():
    paddle = pytest.importorskip("paddle")
    for name, make in _clips(oar).items():
        assert str(make()) == str(_clips(paddle)[name]())


@pytest.mark.parametrize("call, exc", [
    (lambda lib: lib.nn.ClipGradByNorm("a"), ValueError),
    (lambda lib: lib.nn.ClipGradByNorm(None), TypeError),
    (lambda lib: lib.nn.ClipGradByGlobalNorm("a"), ValueError),
    (lambda lib: lib.nn.ClipGradByValue(-1.0), AssertionError),
    (lambda lib: lib.nn.ClipGradByValue(0), AssertionError),
    (lambda lib: lib.nn.ClipGradByGlobalNorm(1.0, auto_skip_clip=1), AssertionError),
    (lambda lib: lib.optimizer.SGD(learning_rate=0.1, grad_clip=1.0, parameters=[
        lib.create_parameter([2], "float32")]), TypeError),
    (lambda lib: lib.optimizer.Adam(learning_rate=0.1, grad_clip=lambda pg: pg, parameters=[
        lib.create_parameter([2], "float32")]), TypeError),
])
def test_bad_inputs_like_paddle(call, exc):
    paddle = pytest.importorskip("paddle")
    with pytest.raises(exc):
        call(paddle)
    with pytest.raises(exc) as info:
        call(oar)
    assert str(info.value)


@pytest.mark.parametrize("call", [
    lambda: oar.nn.ClipGradByNorm(0.0),          # Paddle accepts these and flips, zeroes or
    lambda: oar.nn.ClipGradByNorm(-1.0),         # poisons the gradients; oar refuses
    lambda: oar.nn.ClipGradByGlobalNorm(float("nan")),
    lambda: oar.nn.ClipGradByValue(max=1.0, min=2.0),
])
def test_bad_bounds_refused(call):
    with pytest.raises(ValueError, match="Clip"):
        call()


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf")])
def test_utils_clip_grad_norm_(norm_type):
    paddle = pytest.importorskip("paddle")

    def run(lib):
        ps = [lib.to_tensor(v, stop_gradient=False) for v in INIT[:2]]
        sum((p * lib.to_tensor(g)).sum() for p, g in zip(ps, GRADS)).backward()
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm=1.5, norm_type=norm_type)
        return float(total), [p.grad.numpy() for p in ps]
    (wt, wg), (gt, gg) = run(paddle), run(oar)
    assert abs(wt - gt) <= 1e-5 * abs(wt)
    for w, g in zip(wg, gg):
        np.testing.assert_allclose(g, w, rtol=2e-6)


def test_utils_clip_grad_value_():
    paddle = pytest.importorskip("paddle")

    def run(lib):
        p = lib.to_tensor(INIT[0], stop_gradient=False)
        (p * lib.to_tensor(GRADS[0])).sum().backward()
        lib.nn.utils.clip_grad_value_([p], 1.2)
        return p.grad.numpy()
    np.testing.assert_array_equal(run(oar), run(paddle))


# ------------------------------------------------------------ create_tensor and assign
def test_create_tensor_and_assign_like_paddle():
    paddle = pytest.importorskip("paddle")
    for lib in (paddle, oar):
        layer = lib.nn.Layer()
        t = layer.create_tensor(name="saved")
        assert repr(t) == str(t) == "Tensor(Not initialized)"
        assert t.name.endswith(".saved") and t.stop_gradient
        assert t.dtype == lib.float32
        assert layer.create_tensor(dtype="float64").dtype == lib.float64
        x = lib.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        assert lib.assign(x, t) is t
        assert t.shape == [2, 2] and t.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
        v = t.inplace_version
        lib.assign(lib.to_tensor([5.0, 6.0, 7.0]), t)     # another shape: output takes it
        assert t.shape == [3] and t.numpy().tolist() == [5.0, 6.0, 7.0]
        assert t.inplace_version == v + 1


def test_assign_values_and_grad_like_paddle():
    paddle = pytest.importorskip("paddle")
    for v in (np.array([1, 2], dtype=np.int32), 3.5, [[1.5, 2.0]], (1, 2)):
        want, got = paddle.assign(v), oar.assign(v)
        assert got.dtype.name == str(want.dtype).split(".")[-1]
        assert got.shape == list(want.shape)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    for lib in (paddle, oar):
        x = lib.to_tensor([1.0, 2.0], stop_gradient=False)
        o = lib.zeros([2])
        assert lib.assign(x * 2, o) is o and not o.stop_gradient
        o.sum().backward()
        assert x.grad.numpy().tolist() == [2.0, 2.0]


def test_assign_refusals():
    w = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="inplace"):      # as every in-place op on a leaf
        oar.assign(oar.to_tensor([5.0, 6.0]), w)
    assert w.numpy().tolist() == [1.0, 2.0]
    base = oar.zeros([4])
    with pytest.raises(ValueError, match="view"):
        oar.assign(oar.to_tensor([1.0, 2.0, 3.0]), base[0:2])
    with pytest.raises(TypeError, match="output"):
        oar.assign(oar.to_tensor([1.0]), output=[1])
    with pytest.raises(TypeError):
        oar.assign("a")
