"""Channels-last data_format in the Paddle door's batch norm (BatchNorm1D/2D/3D and
F.batch_norm) and group norm, against Paddle 3.3.1 from the same weights: forward in training
and evaluation, running statistics, gradients, an SGD step; state-dict keys as channels-first.
The layers run in float32 (their parameters' dtype), the functionals in float64."""
import warnings

import numpy as np
import pytest

import oar


def _paddle():
    pytest.importorskip("paddle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle
    return paddle


CASES = [("BatchNorm1D", "NLC", (4, 5, 6)), ("BatchNorm1D", "NLC", (7, 6)),
         ("BatchNorm1D", "NC", (7, 6)), ("BatchNorm1D", "NCL", (4, 6, 5)),
         ("BatchNorm2D", "NHWC", (2, 4, 3, 6)), ("BatchNorm2D", "NCHW", (2, 6, 4, 3)),
         ("BatchNorm3D", "NDHWC", (2, 3, 2, 4, 6)), ("BatchNorm3D", "NHWC", (2, 3, 2, 4, 6)),
         ("BatchNorm3D", "NCDHW", (2, 6, 3, 2, 4))]


@pytest.mark.parametrize("cls,fmt,shape", CASES)
def test_batchnorm_layer_matches_paddle(cls, fmt, shape):
    paddle = _paddle()
    rng = np.random.default_rng(len(shape) * 10 + len(fmt))
    c = 6
    w = rng.standard_normal(c) + 1.0
    b = rng.standard_normal(c)
    xs = [rng.standard_normal(shape) * 2 + 0.5 for _ in range(2)]
    g = rng.standard_normal(shape)
    w, b, g = w.astype("float32"), b.astype("float32"), g.astype("float32")
    xs = [a.astype("float32") for a in xs]
    got = {}
    for fw in (paddle, oar):
        layer = getattr(fw.nn, cls)(c, momentum=0.75, data_format=fmt)
        layer.weight.set_value(w)
        layer.bias.set_value(b)
        opt = fw.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
        res = {"keys": sorted(layer.state_dict())}
        x = fw.to_tensor(xs[0], stop_gradient=False)
        y = layer(x)
        (y * fw.to_tensor(g)).sum().backward()
        res["y_train"] = y.numpy()
        res["gx"] = x.grad.numpy()
        res["gw"], res["gb"] = layer.weight.grad.numpy(), layer.bias.grad.numpy()
        opt.step()
        res["w"], res["b"] = layer.weight.numpy(), layer.bias.numpy()
        layer(fw.to_tensor(xs[1]))          # a second batch moves the running statistics
        res["mean"], res["var"] = layer._mean.numpy(), layer._variance.numpy()
        layer.eval()
        res["y_eval"] = layer(fw.to_tensor(xs[1])).numpy()
        got[fw is oar] = res
    want, have = got[False], got[True]
    assert have.pop("keys") == want.pop("keys")
    for k in want:
        np.testing.assert_allclose(have[k], want[k], rtol=2e-5, atol=2e-5, err_msg=k)


@pytest.mark.parametrize("fmt,shape", [("NHWC", (2, 3, 4, 5)), ("NLC", (3, 4, 5)),
                                       ("NDHWC", (2, 2, 3, 2, 5)), ("NC", (6, 5)),
                                       ("NHWC", (6, 5)), ("NCL", (3, 5, 4))])
@pytest.mark.parametrize("training,ugs", [(True, None), (False, None), (True, True),
                                          (False, True), (True, False)])
def test_functional_batch_norm_matches_paddle(fmt, shape, training, ugs):
    paddle = _paddle()
    rng = np.random.default_rng(3)
    c = 5
    x = rng.standard_normal(shape) * 3 - 1
    rm, rv = rng.standard_normal(c), rng.random(c) + 0.5
    w, b = rng.standard_normal(c), rng.standard_normal(c)
    out = []
    for fw in (paddle, oar):
        xt = fw.to_tensor(x, stop_gradient=False)
        wt = fw.to_tensor(w, stop_gradient=False)
        m, v = fw.to_tensor(rm), fw.to_tensor(rv)
        y = fw.nn.functional.batch_norm(xt, m, v, wt, fw.to_tensor(b), training, 0.75, 1e-5,
                                        fmt, ugs)
        (y * y).sum().backward()
        # (Paddle 3.3.1 leaves the weight's gradient None here, so only x's is compared)
        out.append([y.numpy(), m.numpy(), v.numpy(), xt.grad.numpy()])
    for name, have, want in zip(("y", "mean", "var", "gx"), out[1], out[0]):
        np.testing.assert_allclose(have, want, rtol=1e-9, atol=1e-9, err_msg=name)


def test_bad_data_format_refused_in_forward_as_paddle():
    paddle = _paddle()
    x = np.ones((2, 3, 4, 4))
    for fw in (paddle, oar):
        layer = fw.nn.BatchNorm2D(3, data_format="NCW")     # Paddle checks it in forward
        with pytest.raises(ValueError, match="expected NCHW or NHWC for data_format"):
            layer(fw.to_tensor(x))
        with pytest.raises(ValueError, match="data_format must be one of"):
            fw.nn.functional.batch_norm(fw.to_tensor(x), fw.zeros([3]), fw.ones([3]),
                                        data_format="NCW")


@pytest.mark.parametrize("fmt,shape", [("NHWC", (2, 3, 4, 6)), ("NLC", (2, 5, 6)),
                                       ("NDHWC", (2, 2, 3, 2, 6)), ("NCHW", (2, 6, 3, 4))])
def test_group_norm_data_format_matches_paddle(fmt, shape):
    paddle = _paddle()
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape) * 2 + 1
    w, b = rng.standard_normal(6), rng.standard_normal(6)
    out = []
    for fw in (paddle, oar):
        layer = fw.nn.GroupNorm(3, 6, data_format=fmt)          # float32
        layer.weight.set_value(w.astype("float32"))
        layer.bias.set_value(b.astype("float32"))
        x32 = fw.to_tensor(x.astype("float32"), stop_gradient=False)
        y = layer(x32)
        (y * y * y).sum().backward()
        xt = fw.to_tensor(x, stop_gradient=False)             # float64
        yf = fw.nn.functional.group_norm(xt, 3, 1e-5, fw.to_tensor(w), fw.to_tensor(b), fmt)
        (yf * yf * yf).sum().backward()
        out.append([(y.numpy(), 2e-5), (x32.grad.numpy(), 2e-4),
                    (layer.weight.grad.numpy(), 2e-4), (yf.numpy(), 1e-9),
                    (xt.grad.numpy(), 1e-8)])
    for name, (have, _), (want, tol) in zip(("y", "gx", "gw", "functional", "functional gx"),
                                            out[1], out[0]):
        np.testing.assert_allclose(have, want, rtol=tol, atol=tol, err_msg=name)
    with pytest.raises(ValueError, match="unsupported data layout"):
        oar.nn.GroupNorm(3, 6, data_format="NCW")


def test_batch_stats_out_of_training_refused():
    # Paddle's gradient there is evaluation's with the updated running variance, unlike its
    # forward: oar refuses it loudly instead of computing something else
    x = oar.to_tensor(np.random.default_rng(0).standard_normal((4, 3)))
    with pytest.raises(NotImplementedError, match="use_global_stats=False"):
        oar.nn.functional.batch_norm(x, oar.zeros([3]), oar.ones([3]), training=False,
                                     use_global_stats=False)
