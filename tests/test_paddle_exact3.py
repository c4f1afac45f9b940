"""Paddle-door fidelity against paddle 3.3.1: batch-norm statistics as non-trainable
parameters, channels-last convolutions, hardtanh_ in a chain of in-place ops, summary's
dtype error."""
import numpy as np
import pytest

import oar
import oar.torch as otorch

paddle = pytest.importorskip("paddle")


# ------------------------------------------- Note [Paddle batch-norm statistics are parameters]
BN = [("BatchNorm1D", (4, 3, 5)), ("BatchNorm2D", (4, 3, 2, 3)), ("BatchNorm3D", (2, 3, 2, 2, 3))]


@pytest.mark.parametrize("cls,shape", BN)
def test_batchnorm_statistics_are_parameters(cls, shape):
    ours, theirs = getattr(oar.nn, cls)(3), getattr(paddle.nn, cls)(3)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert len(ours.parameters()) == len(theirs.parameters()) == 4
    assert [p.stop_gradient for p in ours.parameters()] == \
        [p.stop_gradient for p in theirs.parameters()]
    assert [p.trainable for p in ours.parameters()] == [p.trainable for p in theirs.parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()] == []
    # the suffixes of Paddle's parameter names (the layer counter differs by process)
    assert [p.name.split(".")[-1] for p in ours.parameters()] == \
        [p.name.split(".")[-1] for p in theirs.parameters()]


def test_batchnorm_without_affine_lists_only_statistics():
    ours = oar.nn.BatchNorm2D(3, weight_attr=False, bias_attr=False)
    theirs = paddle.nn.BatchNorm2D(3, weight_attr=False, bias_attr=False)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("opt_name", ["SGD", "Momentum", "AdamW"])
def test_batchnorm_training_with_optimizer_over_all_parameters(opt_name):
    rng = np.random.default_rng(0)
    ours, theirs = oar.nn.BatchNorm2D(3), paddle.nn.BatchNorm2D(3)
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    ours.set_state_dict({"weight": w, "bias": b})
    theirs.set_state_dict({"weight": paddle.to_tensor(w), "bias": paddle.to_tensor(b)})
    kw = {"weight_decay": 0.1} if opt_name == "AdamW" else {}
    o_opt = getattr(oar.optimizer, opt_name)(learning_rate=0.1, parameters=ours.parameters(), **kw)
    t_opt = getattr(paddle.optimizer, opt_name)(learning_rate=0.1, parameters=theirs.parameters(),
                                                **kw)
    for _ in range(3):
        x = rng.standard_normal((4, 3, 2, 5)).astype(np.float32)[..., ::2]   # non-contiguous
        target = rng.standard_normal((4, 3, 2, 3)).astype(np.float32)
        yo = ours(oar.to_tensor(x))
        yt = theirs(paddle.to_tensor(np.ascontiguousarray(x)))
        np.testing.assert_allclose(yo.numpy(), yt.numpy(), rtol=1e-5, atol=1e-5)
        ((yo - oar.to_tensor(target)) ** 2).mean().backward()
        ((yt - paddle.to_tensor(target)) ** 2).mean().backward()
        assert ours._mean.grad is None and theirs._mean.grad is None
        o_opt.step(); t_opt.step(); o_opt.clear_grad(); t_opt.clear_grad()
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-5)
    # the running statistics were updated by the forward passes only (no decay applied)
    ours.eval(); theirs.eval()
    x = rng.standard_normal((2, 3, 2, 3)).astype(np.float32)
    np.testing.assert_allclose(ours(oar.to_tensor(x)).numpy(), theirs(paddle.to_tensor(x)).numpy(),
                               rtol=1e-5, atol=1e-5)
    theirs.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in ours.state_dict().items()})


def test_batchnorm_running_update_bumps_version_in_place():
    bn = oar.nn.BatchNorm1D(3)
    m = bn._mean
    v0 = m.inplace_version
    bn(oar.randn([4, 3]))
    assert bn._mean is m and m.inplace_version > v0
    assert not np.allclose(m.numpy(), 0)


def test_torch_door_batchnorm_keeps_buffers():
    torch = pytest.importorskip("torch")
    for ours, theirs in ((otorch.nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)),
                         (otorch.nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)),
                         (otorch.nn.BatchNorm3d(3), torch.nn.BatchNorm3d(3))):
        assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
        assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
        assert list(ours.state_dict()) == list(theirs.state_dict())


def test_summary_counts_batchnorm_as_paddle():
    net_o = oar.nn.Sequential(oar.nn.Conv2D(3, 4, 3), oar.nn.BatchNorm2D(4), oar.nn.ReLU())
    net_t = paddle.nn.Sequential(paddle.nn.Conv2D(3, 4, 3), paddle.nn.BatchNorm2D(4),
                                 paddle.nn.ReLU())
    assert oar.summary(net_o, (1, 3, 8, 8)) == paddle.summary(net_t, (1, 3, 8, 8))


# ------------------------------------------------------- Note [Channels-last convolutions]
CONV = [
    ("Conv1D", "conv1d", "NLC", (2, 7, 4), dict(stride=2, padding=1, dilation=1)),
    ("Conv2D", "conv2d", "NHWC", (2, 6, 7, 4), dict(stride=(1, 2), padding=1, dilation=(2, 1))),
    ("Conv3D", "conv3d", "NDHWC", (2, 4, 5, 6, 4), dict(stride=1, padding=(1, 0, 1))),
    ("Conv1DTranspose", "conv1d_transpose", "NLC", (2, 7, 4),
     dict(stride=2, padding=1, output_padding=1)),
    ("Conv2DTranspose", "conv2d_transpose", "NHWC", (2, 5, 6, 4),
     dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    ("Conv3DTranspose", "conv3d_transpose", "NDHWC", (2, 3, 4, 5, 4), dict(stride=2, padding=1)),
]


def _weights(layer):
    return {k: v.numpy() for k, v in layer.state_dict().items()}


@pytest.mark.parametrize("cls,fn,fmt,shape,kw", CONV, ids=[c[0] for c in CONV])
def test_channels_last_conv_layer_matches_paddle(cls, fn, fmt, shape, kw):
    rng = np.random.default_rng(1)
    groups = 2
    theirs = getattr(paddle.nn, cls)(4, 6, 3, groups=groups, data_format=fmt, **kw)
    ours = getattr(oar.nn, cls)(4, 6, 3, groups=groups, data_format=fmt, **kw)
    ours.set_state_dict(_weights(theirs))
    assert repr(ours).endswith(f"data_format={fmt})")
    # non-contiguous input: every other element of the last-but-one dim
    big = list(shape)
    big[-2] *= 2
    x = rng.standard_normal(big).astype(np.float32)
    xo = oar.to_tensor(x)[..., ::2, :]
    xt = paddle.to_tensor(np.ascontiguousarray(x[..., ::2, :]))
    xo.stop_gradient = False
    xt.stop_gradient = False
    yo, yt = ours(xo), theirs(xt)
    assert list(yo.shape) == list(yt.shape)
    np.testing.assert_allclose(yo.numpy(), yt.numpy(), rtol=1e-4, atol=1e-4)
    g = rng.standard_normal(list(yt.shape)).astype(np.float32)
    (yo * oar.to_tensor(g)).sum().backward()
    (yt * paddle.to_tensor(g)).sum().backward()
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    for n, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), dict(theirs.named_parameters())[n].grad.numpy(),
                                   rtol=1e-4, atol=1e-4, err_msg=n)


@pytest.mark.parametrize("cls,fn,fmt,shape,kw", CONV, ids=[c[1] for c in CONV])
def test_channels_last_conv_functional_float64_gradients(cls, fn, fmt, shape, kw):
    rng = np.random.default_rng(2)
    nd = len(shape) - 2
    transpose = "transpose" in fn
    wshape = (4, 3) + (3,) * nd if transpose else (6, 2) + (3,) * nd
    x = rng.standard_normal(shape)
    w = rng.standard_normal(wshape)
    b = rng.standard_normal(6 if transpose else 6)
    args = {}
    outs = []
    for lib in (oar, paddle):
        ts = [lib.to_tensor(a) for a in (x, w, b)]
        for t in ts:
            t.stop_gradient = False
        y = getattr(lib.nn.functional, fn)(ts[0], ts[1], ts[2], groups=2, data_format=fmt, **kw)
        g = np.random.default_rng(3).standard_normal(list(y.shape))
        (y * lib.to_tensor(g)).sum().backward()
        outs.append([y.numpy()] + [t.grad.numpy() for t in ts])
    for a, b_ in zip(*outs):
        assert a.dtype == np.float64
        np.testing.assert_allclose(a, b_, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("fn,fmt,bad", [("conv2d", "NHWC", (5, 6, 4)), ("conv1d", "NLC", (7, 4))])
def test_channels_last_conv_needs_batched_input(fn, fmt, bad):
    w = np.ones((2, 4) + (3,) * (len(bad) - 1), np.float32)
    with pytest.raises(ValueError):
        getattr(paddle.nn.functional, fn)(paddle.ones(list(bad)), paddle.to_tensor(w),
                                          data_format=fmt)
    with pytest.raises(ValueError, match="Input x should be"):
        getattr(oar.nn.functional, fn)(oar.ones(list(bad)), oar.to_tensor(w), data_format=fmt)


@pytest.mark.parametrize("cls", ["Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose"])
def test_conv_unknown_data_format_is_value_error(cls):
    with pytest.raises(ValueError):
        getattr(paddle.nn, cls)(3, 4, 3, data_format="NXHW")
    with pytest.raises(ValueError):
        getattr(oar.nn, cls)(3, 4, 3, data_format="NXHW")


# ------------------------------------------------ Note [Paddle leaky_relu_ keeps a mask]
def _hardtanh_chain(lib, x, view):
    x0 = lib.to_tensor(x)
    x0.stop_gradient = False
    a = x0 * 1.0
    t = a[:, ::2] if view else a          # an in-place write through a view
    y = lib.nn.functional.hardtanh_(t, -1.0, 1.0)
    z = lib.nn.functional.hardtanh_(y, -0.5, 0.25)
    z.scale_(3.0)
    lib.nn.functional.leaky_relu_(z, 0.1)
    (a * a).sum().backward()
    return a.numpy(), x0.grad.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hardtanh_inplace_chain_gradient_matches_paddle(dtype):
    x = np.random.default_rng(5).uniform(-2, 2, (3, 8)).astype(dtype)
    x[0, :4] = [-1.0, 1.0, -0.5, 0.25]    # the bounds themselves: gradient 0, as Paddle
    ours, theirs = _hardtanh_chain(oar, x, False), _hardtanh_chain(paddle, x, False)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_hardtanh_inplace_chain_through_a_view_follows_the_chain_rule():
    # paddle 3.3.1 gives these elements the gradient of `a` as if the in-place ops on its
    # strided view had not happened (its leaky_relu_ too), so the chain rule in NumPy decides
    x = np.random.default_rng(7).uniform(-2, 2, (3, 8))
    x[0, :4] = [-1.0, 1.0, -0.5, 0.25]
    a, g = _hardtanh_chain(oar, x, True)
    t = x[:, ::2]
    y1 = np.clip(t, -1.0, 1.0)
    y3 = 3 * np.clip(y1, -0.5, 0.25)
    y4 = np.where(y3 > 0, y3, 0.1 * y3)
    want_a = x.copy()
    want_a[:, ::2] = y4
    want_g = 2 * x
    want_g[:, ::2] = 2 * y4 * np.where(y3 > 0, 1.0, 0.1) * 3 * ((y1 > -0.5) & (y1 < 0.25)) \
        * ((t > -1.0) & (t < 1.0))
    np.testing.assert_allclose(a, want_a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, want_g, rtol=1e-12, atol=1e-12)


def test_hardtanh_inplace_gradcheck_and_version():
    x = oar.to_tensor(np.random.default_rng(6).uniform(-2, 2, (4, 5)))
    x.stop_gradient = False
    assert oar.autograd.gradcheck(lambda t: oar.nn.functional.hardtanh_(t * 1.0, -0.7, 0.9),
                                  (x,))
    y = x * 1.0
    v = y.inplace_version
    assert oar.nn.functional.hardtanh_(y) is y and y.inplace_version == v + 1


def test_torch_door_hardtanh_inplace_still_saves_result():
    torch = pytest.importorskip("torch")
    out = []
    for lib in (otorch, torch):
        x = lib.tensor([-2.0, 0.3, 0.9, 1.0], dtype=lib.float64, requires_grad=True)
        y = x * 1.0
        lib.nn.functional.hardtanh_(y)
        assert type(y.grad_fn).__name__ == "HardtanhBackward0"
        y.sum().backward()
        out.append(x.grad.numpy())
    np.testing.assert_array_equal(*out)


# ------------------------------------------------------------- operand dtypes that differ
def _mismatches(lib):
    x64 = lib.ones([2, 3], dtype="float64")
    w32 = lib.ones([3, 4], dtype="float32")
    return {
        "summary": lambda: lib.summary(lib.nn.Linear(3, 4), (2, 3), dtypes="float64"),
        "Linear": lambda: lib.nn.Linear(3, 4)(x64),
        "F.linear": lambda: lib.nn.functional.linear(x64, w32),
        "matmul": lambda: lib.matmul(x64, w32),
        "mm": lambda: lib.mm(x64, w32),
        "Conv2D": lambda: lib.nn.Conv2D(3, 4, 1)(lib.ones([1, 3, 2, 2], dtype="float64")),
    }


@pytest.mark.parametrize("case", list(_mismatches(oar)))
def test_operand_dtype_mismatch_is_value_error_as_paddle(case):
    with pytest.raises(ValueError):
        _mismatches(paddle)[case]()
    with pytest.raises(ValueError, match="same dtype") as info:
        _mismatches(oar)[case]()
    # still the PyTorch door's RuntimeError and oar's earlier TypeError
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, TypeError)


def test_torch_door_operand_dtype_mismatch_is_runtime_error():
    torch = pytest.importorskip("torch")
    for lib in (torch, otorch):
        with pytest.raises(RuntimeError):
            lib.nn.Linear(3, 4)(lib.ones(2, 3, dtype=lib.float64))
        with pytest.raises(RuntimeError):
            lib.matmul(lib.ones(2, 3, dtype=lib.float64), lib.ones(3, 4))


# --------------------------------------------------------- paddle.nn.BatchNorm (legacy layer)
@pytest.mark.parametrize("kw,shape", [
    (dict(act="relu"), (4, 3, 2, 3)),
    (dict(act="tanh", momentum=0.8), (6, 3)),
    (dict(act="sigmoid", data_layout="NHWC"), (2, 4, 5, 3)),
    (dict(is_test=True), (4, 3, 5)),
    (dict(use_global_stats=True), (2, 3, 2, 2, 2)),
    (dict(moving_mean_name="mm", moving_variance_name="mv"), (4, 3, 2)),
])
def test_legacy_batchnorm_matches_paddle(kw, shape):
    rng = np.random.default_rng(8)
    ours, theirs = oar.nn.BatchNorm(3, **kw), paddle.nn.BatchNorm(3, **kw)
    assert repr(ours) == repr(theirs) == "BatchNorm()"
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [p.stop_gradient for p in ours.parameters()] == \
        [p.stop_gradient for p in theirs.parameters()]
    if "moving_mean_name" in kw:
        assert [p.name for p in ours.parameters()][2:] == ["mm", "mv"]
    w = {"weight": rng.standard_normal(3).astype(np.float32),
         "bias": rng.standard_normal(3).astype(np.float32)}
    ours.set_state_dict(w)
    theirs.set_state_dict({k: paddle.to_tensor(v) for k, v in w.items()})
    o_opt = oar.optimizer.SGD(learning_rate=0.1, parameters=ours.parameters())
    t_opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=theirs.parameters())
    for step in range(3):
        if step == 2:
            ours.eval(); theirs.eval()
        x = rng.standard_normal(shape).astype(np.float32)
        xo, xt = oar.to_tensor(x), paddle.to_tensor(x)
        xo.stop_gradient = xt.stop_gradient = False
        yo, yt = ours(xo), theirs(xt)
        np.testing.assert_allclose(yo.numpy(), yt.numpy(), rtol=1e-5, atol=1e-5)
        (yo * yo).sum().backward(); (yt * yt).sum().backward()
        np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-4)
        o_opt.step(); t_opt.step(); o_opt.clear_grad(); t_opt.clear_grad()
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[k].numpy(), v.numpy(), rtol=1e-5,
                                   atol=1e-5, err_msg=k)
