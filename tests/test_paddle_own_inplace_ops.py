"""What Paddle's own in-place unit tests needed from the Paddle door (tests/test_paddle_own_inplace.py
runs those tests): paddle.base.dygraph.guard / paddle.base.core / the places, importable
paddle.static.Program / program_guard, Paddle's words in the saved-tensor version error,
scatter_(overwrite=False) writing once, composite in-place ops (renorm_, addmm_) that chain under
autograd, and in-place spellings refusing a non-tensor target. Each is checked against the real
paddle 3.3.1 (values, gradients, versions, exception classes) and, where the torch door shares the
code, against torch 2.13."""

import re

import numpy as np
import pytest

import oar

paddle = pytest.importorskip("paddle")


def _both(fn):
    """fn(module) run on oar's Paddle door and on the real paddle."""
    return fn(oar), fn(paddle)


# ------------------------------------------------------------------------------ paddle.base
def test_dygraph_guard_runs_its_block_eagerly():
    def f(m):
        with m.base.dygraph.guard():
            x = m.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
            x.stop_gradient = False
            y = (x * x).sum()
            y.backward()
            return y.numpy(), x.grad.numpy(), m.in_dynamic_mode(), m.base.dygraph.enabled()
    (yo, go, do, eo), (yp, gp, dp, ep) = _both(f)
    np.testing.assert_array_equal(yo, yp)
    np.testing.assert_array_equal(go, gp)
    assert do is dp is True and eo is ep is True


def test_dygraph_guard_places():
    for place in ("cpu", oar.CPUPlace()):
        with oar.base.dygraph.guard(place):
            pass
    with pytest.raises(ValueError):
        with oar.base.dygraph.guard("gpu:0"):
            pass
    with pytest.raises(TypeError):
        with oar.base.dygraph.guard(3):
            pass
    assert oar.device.get_device() == "cpu"


def test_base_core_and_places_match_a_cpu_build():
    assert oar.base.core.is_compiled_with_cuda() is paddle.base.core.is_compiled_with_cuda()
    assert oar.base.core.is_compiled_with_xpu() is paddle.base.core.is_compiled_with_xpu()
    assert str(oar.base.CPUPlace()) == str(paddle.base.CPUPlace())
    from oar import base  # noqa: F401  (`from paddle import base`)
    with pytest.raises(AttributeError, match="oar.base"):
        oar.base.Program  # noqa: B018
    with pytest.raises(AttributeError, match="oar.base.core"):
        oar.base.core.Scope  # noqa: B018


def test_static_program_names_import_and_refuse_use():
    from oar.static import Program, program_guard  # a module mixing static and dygraph tests
    with pytest.raises(NotImplementedError, match="static graph"):
        Program()
    with pytest.raises(NotImplementedError, match="static graph"):
        program_guard(None)
    assert not hasattr(oar.static, "Executor")


# ------------------------------------------------------------------------------ version error
def _modified_saved(m, torch_door=False):
    if torch_door:
        a = m.ones([4, 2, 3], requires_grad=True)
    else:
        a = m.ones(shape=[4, 2, 3], dtype="float32")
        a.stop_gradient = False
    b = a ** 2
    c = b ** 2          # saves b
    b[1:2] = 3.3        # b modified in place after its use
    with pytest.raises(RuntimeError) as info:
        c.sum().backward()
    return str(info.value)


def test_version_error_has_paddles_words_in_the_paddle_door():
    words = "received tensor_version:1 != wrapper_version_snapshot:0"
    assert words in _modified_saved(paddle)
    assert words in _modified_saved(oar)


def test_version_error_of_a_saved_result_has_paddles_numbers():
    def f(m):
        a = m.to_tensor(np.linspace(-1, 1, 6, dtype="float32"))
        a.stop_gradient = False
        b = a * 2
        c = m.tanh(b)        # saves its result c
        c.scale_(2.0)
        c.scale_(2.0)
        with pytest.raises(RuntimeError) as info:
            c.sum().backward()
        return re.search(r"received tensor_version:\d+ != wrapper_version_snapshot:\d+",
                         str(info.value)).group(0)
    o, p = _both(f)
    assert o == p


def test_version_error_of_the_torch_door_keeps_torchs_words():
    import oar.torch as otorch
    msg = _modified_saved(otorch, torch_door=True)
    assert "wrapper_version_snapshot" not in msg
    assert "is at version 1; expected version 0 instead" in msg


# ------------------------------------------------------------------------------ scatter_
def _scatter(m, transposed):
    base = np.array([[1., 1, 1], [2, 2, 2], [3, 3, 3], [4, 4, 4]], "float64")
    a = m.to_tensor(base.T.copy() if transposed else base)
    a.stop_gradient = False
    b = a * 2
    if transposed:
        b = b.t()            # a non-contiguous target (a view of a non-leaf)
    i = m.to_tensor([2, 1, 0, 1])
    u = m.to_tensor(np.arange(12, dtype="float64").reshape(4, 3))
    u.stop_gradient = False
    v0 = b.inplace_version
    r = m.scatter_(b, i, u, overwrite=False)
    assert r is b
    (b * b).sum().backward()
    return b.numpy(), b.inplace_version - v0, a.grad.numpy(), u.grad.numpy()


@pytest.mark.parametrize("transposed", [False, True])
def test_scatter_inplace_accumulate_writes_once(transposed):
    o, p = _both(lambda m: _scatter(m, transposed))
    np.testing.assert_allclose(o[0], p[0])
    assert o[1] == p[1] == 1
    np.testing.assert_allclose(o[2], p[2])
    np.testing.assert_allclose(o[3], p[3])


def test_scatter_inplace_accumulate_gradcheck():
    x = oar.to_tensor(np.random.default_rng(0).normal(size=(4, 3)))
    u = oar.to_tensor(np.random.default_rng(1).normal(size=(3, 3)))
    x.stop_gradient = u.stop_gradient = False
    i = oar.to_tensor([3, 0, 3])

    def f(x, u):
        y = x * 1.0
        return oar.scatter_(y, i, u, overwrite=False)
    assert oar.autograd.gradcheck(f, (x, u))


# ------------------------------------------------------------------------------ composites
def _chain(m, op, *args):
    rng = np.random.default_rng(3)
    a = m.to_tensor(rng.uniform(-5, 5, [6, 4, 1]).astype("float32"))
    a.stop_gradient = False
    b = a ** 2
    c = getattr(m, op + "_")(b, *args)
    d = getattr(m, op + "_")(c, *args)
    assert c is b and d is b
    d.sum().backward()
    return b.numpy(), a.grad.numpy()


def test_renorm_inplace_chains_under_autograd():
    (vo, go), (vp, gp) = _both(lambda m: _chain(m, "renorm", 1.0, -1, 2.05))
    np.testing.assert_allclose(vo, vp, rtol=1e-5)
    np.testing.assert_allclose(go, gp, rtol=1e-4, atol=1e-5)


def test_renorm_inplace_gradient_matches_the_out_of_place_op():
    rng = np.random.default_rng(4)
    xs = rng.normal(size=(3, 5))

    def grad(inplace):
        a = oar.to_tensor(xs)
        a.stop_gradient = False
        b = a * 1.5
        c = oar.renorm_(b, 2.0, 0, 1.0) if inplace else oar.renorm(b, 2.0, 0, 1.0)
        (c * c).sum().backward()
        return c.numpy(), a.grad.numpy()
    (vi, gi), (vo, go) = grad(True), grad(False)
    np.testing.assert_array_equal(vi, vo)
    np.testing.assert_allclose(gi, go)


def test_addmm_inplace_with_gradient_matches_paddle():
    rng = np.random.default_rng(5)
    xs, ys, zs = (rng.normal(size=(4, 4)).astype("float32") for _ in range(3))

    def f(m):
        a = m.to_tensor(zs)
        a.stop_gradient = False
        b = a * 1.0
        x, y = m.to_tensor(xs), m.to_tensor(ys)
        m.addmm_(b, x=x, y=y)
        (b * b).sum().backward()
        return b.numpy(), a.grad.numpy(), b.inplace_version
    o, p = _both(f)
    np.testing.assert_allclose(o[0], p[0], rtol=1e-5)
    np.testing.assert_allclose(o[1], p[1], rtol=1e-5)


# ------------------------------------------------------------------------------ in-place targets
@pytest.mark.parametrize("call", [
    lambda m, y: m.hypot_(3.0, y),
    lambda m, y: m.hypot_([1.0, 2.0, 3.0], y),
])
def test_inplace_function_refuses_a_non_tensor_target_as_paddle(call):
    for m in (oar, paddle):
        y = m.to_tensor([1.0, 2.0, 3.0])
        with pytest.raises(TypeError, match="x must be tensor type"):
            call(m, y)
        np.testing.assert_array_equal(y.numpy(), [1.0, 2.0, 3.0])
        assert y.inplace_version == 0


def test_inplace_function_refuses_a_non_tensor_target_in_both_doors():
    import oar.torch as otorch
    torch = pytest.importorskip("torch")
    for m in (oar, otorch):
        for call in (lambda: m.sin_(3.0), lambda: m.relu_([1.0]),
                     lambda: m.clip_([1.0], 0.0, 1.0)):
            with pytest.raises(TypeError):
                call()
    with pytest.raises(TypeError):
        torch.sin_(3.0)
    with pytest.raises(TypeError):
        torch.clip_([1.0], 0.0, 1.0)


# ------------------------------------------------------------------------------ hypot / ldexp
@pytest.mark.parametrize("call", [
    lambda m, x: m.hypot(x, 3), lambda m, x: m.hypot_(x, 3.0), lambda m, x: x.hypot(2.0),
    lambda m, x: m.ldexp(x, 1), lambda m, x: m.ldexp_(x, 1), lambda m, x: x.ldexp(2)])
def test_hypot_and_ldexp_take_a_tensor_y_only_as_paddle(call):
    for m in (oar, paddle):
        x = m.to_tensor([1.0, 2.0, 3.0])
        with pytest.raises(TypeError, match="y must be tensor type, but got <class"):
            call(m, x)
        np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
        assert x.inplace_version == 0
