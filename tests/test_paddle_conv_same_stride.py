"""padding='same' in the Paddle door follows Paddle 3.3.1 (TensorFlow's SAME: ceil(in / stride)
outputs, the odd padding at the end, the dilation dropped), with a stride too; the PyTorch door
keeps torch's rule and refuses a stride (Note [Two rules for padding='same'])."""
import warnings

import numpy as np
import pytest

import oar
import oar.torch as otorch


def _paddle():
    pytest.importorskip("paddle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle
    return paddle


SIZES = (7, 8, 9)


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("stride", [1, 2, 3])
@pytest.mark.parametrize("dilation", [1, 2])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_functional_matches_paddle(nd, stride, dilation, k):
    paddle = _paddle()
    rng = np.random.default_rng(100 * nd + 10 * stride + k)
    x = rng.standard_normal((2, 3) + SIZES[:nd])
    w = rng.standard_normal((4, 3) + (k,) * nd)
    b = rng.standard_normal(4)
    outs, grads = [], []
    for fw in (paddle, oar):
        xt = fw.to_tensor(x, stop_gradient=False)
        wt = fw.to_tensor(w, stop_gradient=False)
        bt = fw.to_tensor(b, stop_gradient=False)
        f = getattr(fw.nn.functional, f"conv{nd}d")
        y = f(xt, wt, bt, stride=stride, padding="same", dilation=dilation)
        (y * y).sum().backward()
        outs.append(y.numpy())
        grads.append([t.grad.numpy() for t in (xt, wt, bt)])
    assert outs[1].shape == outs[0].shape
    assert outs[1].shape[2:] == tuple(-(-n // stride) for n in SIZES[:nd])
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-10, atol=1e-10)
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("nd,fmt", [(1, "NCL"), (1, "NLC"), (2, "NCHW"), (2, "NHWC"),
                                    (3, "NCDHW"), (3, "NDHWC")])
def test_layers_match_paddle(nd, fmt):
    paddle = _paddle()
    rng = np.random.default_rng(nd)
    cls = f"Conv{nd}D"
    spatial = (11, 10, 9)[:nd]
    shape = (2, 3) + spatial if fmt.startswith("NC") else (2,) + spatial + (3,)
    x = rng.standard_normal(shape).astype("float32")
    layers = [getattr(fw.nn, cls)(3, 5, 4, stride=2, padding="SAME", dilation=2,
                                  data_format=fmt) for fw in (paddle, oar)]
    w = rng.standard_normal(layers[0].weight.shape).astype("float32")
    bias = rng.standard_normal(5).astype("float32")
    outs = []
    for fw, layer in zip((paddle, oar), layers):
        layer.weight.set_value(w)
        layer.bias.set_value(bias)
        outs.append(layer(fw.to_tensor(x)).numpy())
    assert outs[1].shape == outs[0].shape
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-4, atol=1e-4)


def test_strided_same_with_a_padding_mode_refused_as_paddle():
    paddle = _paddle()
    with pytest.raises(Exception, match="type of padding must be int"):
        paddle.nn.Conv2D(3, 4, 3, stride=2, padding="same", padding_mode="reflect")
    with pytest.raises(ValueError, match="type of padding must be int"):
        oar.nn.Conv2D(3, 4, 3, stride=2, padding="same", padding_mode="reflect")


def test_torch_door_keeps_torch_rule():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((1, 3, 9, 9))
    w = np.random.default_rng(1).standard_normal((2, 3, 3, 3))
    for nd, cls in ((1, "Conv1d"), (2, "Conv2d"), (3, "Conv3d")):
        # torch's layers raise ValueError, its functionals RuntimeError: the same classes here
        with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
            getattr(torch.nn, cls)(3, 4, 3, stride=2, padding="same")
        with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
            getattr(otorch.nn, cls)(3, 4, 3, stride=2, padding="same")
        xs, ws = {1: (x[:, :, 0], w[..., 0]), 2: (x, w), 3: (x[..., None], w[..., None])}[nd]
        f = f"conv{nd}d"
        with pytest.raises(RuntimeError, match="padding='same' is not supported for strided"):
            getattr(torch.nn.functional, f)(torch.tensor(xs), torch.tensor(ws), stride=2,
                                            padding="same")
        with pytest.raises(RuntimeError, match="padding='same' is not supported for strided"):
            getattr(otorch.nn.functional, f)(otorch.tensor(xs), otorch.tensor(ws), stride=2,
                                             padding="same")
        # stride 1 with a dilation: torch pads by dilation * (k - 1), unlike Paddle
        want = getattr(torch.nn.functional, f)(torch.tensor(xs), torch.tensor(ws),
                                               padding="same", dilation=2).numpy()
        got = getattr(otorch.nn.functional, f)(otorch.tensor(xs), otorch.tensor(ws),
                                               padding="same", dilation=2).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
