"""paddle.vision.models (Paddle door) against paddle 3.3.1: each model is built in both
frameworks, the real model's state dict (with randomised batch-norm statistics) is copied
into oar's through NumPy, and the keys, shapes and eval-mode outputs must agree; one
train-mode step (forward, backward, SGD) is compared for LeNet and ResNet-18."""
import numpy as np
import pytest

import oar
import oar.vision.models as om

paddle = pytest.importorskip("paddle")
pm = paddle.vision.models


def _randomise_norms(model, rng):
    """Non-trivial batch-norm weights and running statistics, so eval mode really uses them."""
    sd = model.state_dict()
    new = {}
    for k, v in sd.items():
        a = v.numpy()
        if k.endswith("_mean"):
            a = rng.normal(0, 0.1, a.shape)
        elif k.endswith("_variance"):
            a = rng.uniform(0.5, 1.5, a.shape)
        elif k.endswith("weight") and a.ndim == 1:
            a = rng.uniform(0.5, 1.5, a.shape)
        elif k.endswith("bias") and a.ndim == 1:
            a = rng.normal(0, 0.1, a.shape)
        new[k] = paddle.to_tensor(a.astype(v.numpy().dtype))
    model.set_state_dict(new)


def _copy(real, ours):
    """The real model's state dict into ours, after checking keys (in Paddle's order) and
    shapes."""
    rsd, osd = real.state_dict(), ours.state_dict()
    assert list(osd.keys()) == list(rsd.keys())
    for k in rsd:
        assert tuple(osd[k].shape) == tuple(rsd[k].shape), k
    ours.set_state_dict({k: oar.to_tensor(v.numpy()) for k, v in rsd.items()})


def _pair(name, kwargs, seed=0):
    paddle.seed(seed)
    real = getattr(pm, name)(**kwargs)
    ours = getattr(om, name)(**kwargs)
    _randomise_norms(real, np.random.default_rng(seed))
    _copy(real, ours)
    return real, ours


def _check_eval(name, kwargs, shape, seed=0):
    real, ours = _pair(name, kwargs, seed)
    real.eval()
    ours.eval()
    x = np.random.default_rng(seed + 1).standard_normal(shape).astype(np.float32)
    want = _outputs(real(paddle.to_tensor(x)))
    got = _outputs(ours(oar.to_tensor(x)))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        scale = max(float(np.abs(w).max()), 1e-3)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * scale)
    # and the other way round: oar's state dict loads into a fresh real model
    paddle.seed(seed + 7)
    again = getattr(pm, name)(**kwargs)
    again.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in ours.state_dict().items()})
    again.eval()
    for a, w in zip(_outputs(again(paddle.to_tensor(x))), want):
        np.testing.assert_allclose(a, w, rtol=1e-6, atol=1e-6)


def _outputs(out):
    """A model's output(s) as a list of arrays (GoogLeNet returns three)."""
    return [t.numpy() for t in (out if isinstance(out, (tuple, list)) else [out])]


FAST = [
    ("LeNet", dict(num_classes=7), (2, 1, 28, 28)),
    ("LeNet", dict(num_classes=0), (1, 1, 28, 28)),
    ("resnet18", dict(num_classes=5), (2, 3, 64, 64)),
    ("resnet18", dict(num_classes=0, with_pool=False), (1, 3, 64, 64)),
    ("vgg11", dict(num_classes=0, batch_norm=True, with_pool=False), (2, 3, 32, 32)),
    ("mobilenet_v1", dict(num_classes=5), (1, 3, 64, 64)),
    ("mobilenet_v1", dict(num_classes=5, scale=0.5), (1, 3, 64, 64)),
    ("mobilenet_v2", dict(num_classes=5), (1, 3, 64, 64)),
    ("mobilenet_v2", dict(num_classes=5, scale=0.75), (1, 3, 64, 64)),
    ("mobilenet_v3_small", dict(num_classes=5), (2, 3, 64, 64)),
    ("mobilenet_v3_large", dict(num_classes=5), (1, 3, 64, 64)),
    ("mobilenet_v3_small", dict(num_classes=5, scale=0.5), (1, 3, 64, 64)),
    ("squeezenet1_0", dict(num_classes=5), (1, 3, 64, 64)),
    ("squeezenet1_1", dict(num_classes=5), (2, 3, 64, 64)),
    ("squeezenet1_1", dict(num_classes=5, with_pool=False), (1, 3, 64, 64)),
    ("googlenet", dict(num_classes=0), (1, 3, 64, 64)),
    ("shufflenet_v2_x0_25", dict(num_classes=5), (2, 3, 64, 64)),
    ("shufflenet_v2_x0_5", dict(num_classes=5, with_pool=False, ), (1, 3, 32, 32)),
    ("shufflenet_v2_swish", dict(num_classes=5), (1, 3, 64, 64)),
]

SLOW = [
    ("vgg11", dict(num_classes=0), (1, 3, 32, 32)),
    ("resnext50_32x4d", dict(num_classes=5), (1, 3, 64, 64)),
    ("resnet50", dict(num_classes=5), (1, 3, 64, 64)),
    ("resnet34", dict(num_classes=5), (1, 3, 64, 64)),
    ("alexnet", dict(num_classes=5), (1, 3, 224, 224)),
    ("vgg11", dict(num_classes=5), (1, 3, 32, 32)),
    ("vgg13", dict(num_classes=0, batch_norm=True), (1, 3, 32, 32)),
    ("vgg16", dict(num_classes=0), (1, 3, 32, 32)),
    ("vgg19", dict(num_classes=0, batch_norm=True), (1, 3, 32, 32)),
    ("resnet101", dict(num_classes=5), (1, 3, 64, 64)),
    ("resnet152", dict(num_classes=5), (1, 3, 64, 64)),
    ("wide_resnet50_2", dict(num_classes=5), (1, 3, 64, 64)),
    ("densenet121", dict(num_classes=5), (1, 3, 64, 64)),
    ("densenet121", dict(num_classes=5, dropout=0.2), (1, 3, 64, 64)),
    ("densenet161", dict(num_classes=5), (1, 3, 64, 64)),
    ("densenet169", dict(num_classes=5), (1, 3, 64, 64)),
    ("googlenet", dict(num_classes=5), (1, 3, 224, 224)),
    ("shufflenet_v2_x2_0", dict(num_classes=5), (1, 3, 64, 64)),
    ("inception_v3", dict(num_classes=5), (1, 3, 80, 80)),
    ("inception_v3", dict(num_classes=0, with_pool=False), (1, 3, 96, 96)),
]


@pytest.mark.parametrize("name,kwargs,shape", FAST, ids=lambda v: str(v))
def test_eval_forward_matches_paddle(name, kwargs, shape):
    _check_eval(name, kwargs, shape)


@pytest.mark.slow
@pytest.mark.parametrize("name,kwargs,shape", SLOW, ids=lambda v: str(v))
def test_eval_forward_matches_paddle_big(name, kwargs, shape):
    _check_eval(name, kwargs, shape)


def _train_step(name, kwargs, shape, classes):
    real, ours = _pair(name, kwargs, seed=3)
    real.train()
    ours.train()
    rng = np.random.default_rng(4)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, classes, (shape[0],)).astype(np.int64)
    ropt = paddle.optimizer.SGD(learning_rate=0.1, parameters=real.parameters())
    oopt = oar.optimizer.SGD(learning_rate=0.1, parameters=ours.parameters())
    rloss = paddle.nn.functional.cross_entropy(real(paddle.to_tensor(x)), paddle.to_tensor(y))
    oloss = oar.nn.functional.cross_entropy(ours(oar.to_tensor(x)), oar.to_tensor(y))
    np.testing.assert_allclose(oloss.numpy(), rloss.numpy(), rtol=1e-4, atol=1e-5)
    rloss.backward()
    oloss.backward()
    # both list the batch-norm running statistics among the parameters (stop_gradient, no
    # grad: Note [Paddle batch-norm statistics are parameters]); the trainable ones are compared
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in real.named_parameters()]
    assert [p.stop_gradient for p in ours.parameters()] == \
        [p.stop_gradient for p in real.parameters()]
    rgrads = {n: p.grad.numpy() for n, p in real.named_parameters() if not p.stop_gradient}
    for n, p in ours.named_parameters():
        if p.stop_gradient:
            assert p.grad is None
            continue
        g = rgrads[n]
        # float32 through a deep net whose train-mode batch norms see few values per channel:
        # a tolerance relative to the gradient's own scale
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-3,
                                   atol=1e-3 * max(float(np.abs(g).max()), 1e-3), err_msg=n)
    ropt.step()
    oopt.step()
    rsd = real.state_dict()  # parameters after the step and running statistics after forward
    for k, v in ours.state_dict().items():
        want = rsd[k].numpy()
        np.testing.assert_allclose(v.numpy(), want, rtol=1e-4,
                                   atol=1e-5 * max(float(np.abs(want).max()), 1.0), err_msg=k)


def test_train_step_lenet():
    _train_step("LeNet", dict(num_classes=10), (4, 1, 28, 28), 10)


def test_train_step_resnet18():
    _train_step("resnet18", dict(num_classes=4), (4, 3, 64, 64), 4)


def test_door_and_names():
    import oar as p
    assert p.vision.models.resnet18 is om.resnet18
    assert set(pm.__all__) <= set(om.__all__)
    m = om.resnet50(num_classes=3, with_pool=False)
    assert m.num_classes == 3 and m.with_pool is False and not hasattr(m, "avgpool")


@pytest.mark.parametrize("fn", ["resnet18", "vgg16", "mobilenet_v2", "alexnet", "squeezenet1_1",
                                "densenet121", "mobilenet_v3_small", "mobilenet_v1",
                                "googlenet", "shufflenet_v2_swish", "inception_v3"])
def test_pretrained_is_refused(fn):
    with pytest.raises(NotImplementedError, match="set_state_dict"):
        getattr(om, fn)(pretrained=True)
    with pytest.raises(ValueError, match="does not download"):
        getattr(om, fn)(pretrained=True)


def test_bad_versions():
    with pytest.raises(ValueError, match="SqueezeNet"):
        om.SqueezeNet("2.0")
    with pytest.raises(ValueError, match="DenseNet"):
        om.DenseNet(layers=100)
    with pytest.raises(ValueError, match="ResNet"):
        om.ResNet(om.resnet.BasicBlock, depth=20)
    with pytest.raises(ValueError, match="ShuffleNetV2"):
        om.ShuffleNetV2(scale=0.7)
    with pytest.raises(NotImplementedError):  # Paddle's class for this error
        pm.ShuffleNetV2(scale=0.7)
    with pytest.raises(NotImplementedError):
        om.ShuffleNetV2(scale=0.7)
    with pytest.raises(ValueError, match="ShuffleNetV2"):
        om.ShuffleNetV2(act="gelu")


@pytest.mark.parametrize("mode", ["upscale_in_train", "downscale_in_infer"])
def test_dropout_modes_match_paddle(mode):
    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    ours = oar.nn.Dropout(0.3, mode=mode)
    real = paddle.nn.Dropout(0.3, mode=mode)
    ours.eval()
    real.eval()
    np.testing.assert_allclose(ours(oar.to_tensor(x)).numpy(), real(paddle.to_tensor(x)).numpy())
    np.testing.assert_allclose(
        oar.nn.functional.dropout(oar.to_tensor(x), 0.3, training=False, mode=mode).numpy(),
        paddle.nn.functional.dropout(paddle.to_tensor(x), 0.3, training=False, mode=mode).numpy())
    # training: survivors are scaled by 1 / (1 - p) only in upscale_in_train
    ours.train()
    out = ours(oar.ones([200, 50])).numpy()
    kept = out[out != 0]
    want = 1 / 0.7 if mode == "upscale_in_train" else 1.0
    np.testing.assert_allclose(kept, np.full_like(kept, want), rtol=1e-6)
    assert 0.6 < kept.size / out.size < 0.8


def test_dropout_bad_mode():
    with pytest.raises(ValueError, match="mode"):
        oar.nn.Dropout(0.3, mode="scale")
    x = oar.ones([2, 2])
    with pytest.raises(ValueError, match="mode"):
        oar.nn.functional.dropout(x, 0.3, mode="scale")
