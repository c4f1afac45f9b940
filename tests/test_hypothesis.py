"""Property tests over random shapes, strides (views), 0-size and 0-d tensors."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oar

torch = pytest.importorskip("torch")

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def strided(draw, min_dims=0, max_dims=4):
    """(oar tensor, numpy twin, torch twin) of a random view of a random base."""
    shape = draw(st.lists(st.integers(0, 5), min_size=min_dims, max_size=max_dims))
    n = int(np.prod(shape)) if shape else 1
    base = np.arange(1, n + 1, dtype=np.float64).reshape(shape) / 7.0
    o, t, a = oar.to_tensor(base), torch.tensor(base), base
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["perm", "slice", "unsqueeze", "flip_view"]))
        nd = a.ndim
        if kind == "perm" and nd >= 2:
            perm = draw(st.permutations(range(nd)))
            o, t, a = o.permute(*perm), t.permute(*perm), a.transpose(perm)
        elif kind == "slice" and nd >= 1:
            d = draw(st.integers(0, nd - 1))
            lo = draw(st.integers(0, a.shape[d]))
            step = draw(st.integers(1, 3))
            key = (slice(None),) * d + (slice(lo, None, step),)
            o, t, a = o[key], t[key], a[key]
        elif kind == "unsqueeze":
            d = draw(st.integers(0, nd))
            o, t, a = o.unsqueeze(d), t.unsqueeze(d), np.expand_dims(a, d)
    return o, t, a


@SETTINGS
@given(strided())
def test_strides_offsets_contiguity_match_torch(x):
    o, t, a = x
    assert list(o.shape) == list(t.shape)
    np.testing.assert_array_equal(o.numpy(), a)
    if o.numel() > 0:
        assert o.stride() == t.stride() and o.storage_offset() == t.storage_offset()
    assert o.is_contiguous() == t.is_contiguous()


@SETTINGS
@given(strided(), st.data())
def test_reshape_views_exactly_when_torch_does(x, data):
    o, t, a = x
    n = a.size
    # a random factorisation of n (with size-1 dims sprinkled in)
    dims = []
    rest = n
    for _ in range(data.draw(st.integers(0, 3))):
        divs = [d for d in range(1, rest + 1) if rest % d == 0] if rest else [0, 1]
        d = data.draw(st.sampled_from(divs))
        dims.append(d)
        rest = rest // d if d else rest
    dims.append(rest if n else 0)
    if n == 0 and 0 not in dims:
        dims.append(0)
    tr = t.reshape(dims)
    orr = o.reshape(dims)
    np.testing.assert_array_equal(orr.numpy(), tr.numpy())
    if n:
        torch_shares = tr.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
        assert (orr._storage is o._storage) == torch_shares
        if torch_shares:
            assert orr.stride() == tr.stride() and orr.storage_offset() == tr.storage_offset()


@SETTINGS
@given(strided(min_dims=1), st.sampled_from(["add_", "mul_", "exp_", "neg_", "relu_", "clip_"]))
def test_inplace_on_random_views_matches_numpy_and_base(x, opname):
    o, t, a = x
    base = o._base if o._base is not None else o
    base_before = base.numpy()
    expect = {"add_": lambda v: v + 0.5, "mul_": lambda v: v * 1.5, "exp_": np.exp,
              "neg_": np.negative, "relu_": lambda v: np.maximum(v, 0),
              "clip_": lambda v: np.clip(v, 0.2, 0.8)}[opname](a)
    args = {"add_": (0.5,), "mul_": (1.5,), "clip_": (0.2, 0.8)}.get(opname, ())
    r = getattr(o, opname)(*args)
    assert r is o and o.inplace_version == 1 and base.inplace_version == 1
    np.testing.assert_allclose(o.numpy(), expect, rtol=1e-12)
    # exactly the viewed elements of the base changed
    with torch.no_grad():
        tb = torch.tensor(base_before)
        tv = torch.as_strided(tb, t.shape, t.stride(), t.storage_offset()) if t.numel() else tb[:0]
        if t.numel():
            tv.copy_(torch.tensor(expect))
    np.testing.assert_allclose(base.numpy(), tb.numpy(), rtol=1e-12)


@SETTINGS
@given(strided(min_dims=1, max_dims=3))
def test_gradient_through_inplace_on_random_view(x):
    o, t, a = x
    if o.numel() == 0:
        return
    root = o._base if o._base is not None else o
    leaf = oar.to_tensor(root.numpy(), stop_gradient=False)
    tleaf = torch.tensor(root.numpy(), requires_grad=True)
    ob = leaf * 1
    tb = tleaf * 1
    ov = ob.as_strided(list(o.shape), list(o.stride()), o.storage_offset())
    tv = tb.as_strided(t.shape, t.stride(), t.storage_offset())
    ov.mul_(ov.detach() + 2).sin_()
    tv.mul_(tv.detach() + 2).sin_()
    w = np.arange(ob.numel(), dtype=np.float64).reshape(list(ob.shape))
    (ob * oar.to_tensor(w)).sum().backward()
    (tb * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), tleaf.grad.numpy(), rtol=1e-10, atol=1e-12)


@SETTINGS
@given(st.lists(st.integers(0, 4), min_size=0, max_size=3))
def test_zero_size_and_zero_dim(shape):
    x = oar.ones(shape)
    assert x.shape == shape and x.numel() == int(np.prod(shape)) if shape else x.numel() == 1
    y = x.add_(1).exp_()
    assert y is x and x.inplace_version == 2
    np.testing.assert_allclose(x.sum().item(), np.exp(2.0) * np.prod(shape), rtol=1e-6)
    z = oar.to_tensor(np.ones(shape), stop_gradient=False)
    (z * 2).sum().backward()
    assert list(z.grad.shape) == list(shape)
