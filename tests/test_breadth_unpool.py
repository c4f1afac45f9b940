"""Max unpooling in both doors against torch 2.13 and paddle 3.3.1: values, gradients, output
sizes, layers' reprs, and errors that change nothing."""
import numpy as np
import pytest

import oar
import oar.torch as otorch

RNG = np.random.default_rng(0)
CASES = [(1, (2, 3, 9), 3, 2, 1, None), (2, (2, 3, 7, 8), 2, 2, 0, None),
         (2, (1, 2, 6, 6), 3, 2, 1, [6, 6]), (2, (3, 5, 4), 2, None, 0, None),
         (3, (1, 2, 5, 6, 4), 2, None, 0, None)]


@pytest.mark.parametrize("nd,shape,k,s,p,size", CASES)
def test_max_unpool_matches_torch(nd, shape, k, s, p, size):
    torch = pytest.importorskip("torch")
    F, oF = torch.nn.functional, otorch.nn.functional
    y, idx = getattr(F, f"max_pool{nd}d")(torch.tensor(RNG.standard_normal(shape)), k, s, p,
                                           return_indices=True)
    t_in = y.detach().requires_grad_(True)
    o_in = otorch.tensor(y.detach().numpy()).transpose(0, -1).contiguous().transpose(0, -1)
    o_in.requires_grad_(True)                     # a non-contiguous input, same values
    want = getattr(F, f"max_unpool{nd}d")(t_in, idx, k, s, p, size)
    got = getattr(oF, f"max_unpool{nd}d")(o_in, otorch.tensor(idx.numpy()), k, s, p, size)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    g = RNG.standard_normal(tuple(want.shape))
    want.backward(torch.tensor(g))
    got.backward(otorch.tensor(g))
    np.testing.assert_array_equal(o_in.grad.numpy(), t_in.grad.numpy())
    layer_t = getattr(torch.nn, f"MaxUnpool{nd}d")(k, s, p)
    layer_o = getattr(otorch.nn, f"MaxUnpool{nd}d")(k, s, p)
    assert repr(layer_o) == repr(layer_t)
    np.testing.assert_array_equal(layer_o(o_in, otorch.tensor(idx.numpy()), size).detach().numpy(),
                                  layer_t(t_in, idx, size).detach().numpy())


@pytest.mark.parametrize("nd,shape,k,s,p,size", [c for c in CASES if len(c[1]) == c[0] + 2])
def test_max_unpool_matches_paddle(nd, shape, k, s, p, size):
    paddle = pytest.importorskip("paddle")
    x = RNG.standard_normal(shape).astype(np.float32)
    y, mask = getattr(paddle.nn.functional, f"max_pool{nd}d")(
        paddle.to_tensor(x), k, s, p, return_mask=True)
    p_in = paddle.to_tensor(y.numpy(), stop_gradient=False)
    o_in = oar.to_tensor(y.numpy(), stop_gradient=False)
    want = getattr(paddle.nn.functional, f"max_unpool{nd}d")(p_in, mask, k, s, p,
                                                              output_size=size)
    got = getattr(oar.nn.functional, f"max_unpool{nd}d")(o_in, oar.to_tensor(mask.numpy()), k,
                                                         s, p, output_size=size)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    g = RNG.standard_normal(want.shape).astype(np.float32)
    (want * paddle.to_tensor(g)).sum().backward()
    (got * oar.to_tensor(g)).sum().backward()
    np.testing.assert_array_equal(o_in.grad.numpy(), p_in.grad.numpy())
    layer = getattr(paddle.nn, f"MaxUnPool{nd}D")(k, s, p)
    assert repr(getattr(oar.nn, f"MaxUnPool{nd}D")(k, s, p)) == repr(layer)


def test_max_unpool_errors_change_nothing():
    x = otorch.ones(1, 1, 2, 2)
    idx = otorch.tensor([[[[0, 3], [8, 15]]]])
    F = otorch.nn.functional
    with pytest.raises(ValueError, match="output_size"):
        F.max_unpool2d(x, idx, 2, 2, 0, [9, 9])           # not within one stride of 4
    with pytest.raises(RuntimeError, match="invalid max index"):
        F.max_unpool2d(x, idx * 2, 2, 2)
    with pytest.raises(TypeError, match="integer"):
        F.max_unpool2d(x, idx.float(), 2, 2)
    with pytest.raises(ValueError, match="shape"):
        F.max_unpool2d(x, idx[..., :1], 2, 2)
    assert x._version == 0 and x.sum().item() == 4
