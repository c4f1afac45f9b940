"""Tensor metadata, interop, repr (Paddle's exact format), dialect details."""
import threading

import numpy as np
import pytest

import oar


def test_metadata_and_strides():
    x = oar.arange(24).reshape([2, 3, 4]).clone()
    assert x.stride() == (12, 4, 1) and x.storage_offset() == 0 and x.is_contiguous()
    v = x[:, 1]
    assert v.stride() == (12, 1) and v.storage_offset() == 4 and v._base is x
    assert v.data_ptr() == x.data_ptr() + 4 * 8
    assert x.transpose([2, 1, 0]).stride() == (1, 4, 12)
    assert x.ndim == 3 and x.dim() == 3 and x.numel() == 24 and x.size(1) == 3
    assert x.shape == [2, 3, 4] and x.shape == (2, 3, 4) and x.place == oar.CPUPlace()
    assert repr(x.place) == "Place(cpu)" and x.element_size() == 8


def test_numpy_interop_cannot_bypass_version_counter():
    x = oar.to_tensor([1.0, 2.0])
    n = x.numpy()
    n[0] = 100
    assert x.numpy()[0] == 1 and x.inplace_version == 0
    a = np.asarray(x)        # Paddle 3.3: a writable copy (tests/test_numpy_protocols.py)
    assert not np.shares_memory(a, x._data)
    a[0] = 5
    a = np.asarray(x, copy=False)    # no copy allowed: a read-only view
    assert np.shares_memory(a, x._data) and not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 5
    assert x.tolist() == [1.0, 2.0] and float(x[1]) == 2.0 and int(x[0]) == 1
    assert len(x) == 2 and [float(t) for t in x] == [1.0, 2.0]
    assert bool(oar.to_tensor([1])) and x[0].item() == 1.0
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
    with pytest.raises(ValueError, match="one element"):
        x.item()


def test_version_counter_shared_by_views_and_detach():
    a = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    b = a.scale_(2.0)
    assert b is a and a.inplace_version == 1
    oar.add_(a, oar.ones([2, 2]))
    v = a.reshape([4])
    assert v.inplace_version == 2
    v.add_(oar.ones([4]))
    assert a.inplace_version == 3 and a.numpy().tolist() == [[4, 6], [8, 10]]
    d = a.detach()
    d.zero_()
    assert a.inplace_version == 4 and a.numpy().sum() == 0
    assert a.clone().inplace_version == 0
    y = oar.zeros([2])
    y.copy_(oar.ones([2]))
    y.fill_(3.0)
    assert y.inplace_version == 2 and y._version == 2   # copy_ and fill_ always bump


REPRS = [
    (lambda: oar.arange(12).astype("float32").reshape([3, 4]),
     "Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
     "       [[0. , 1. , 2. , 3. ],\n"
     "        [4. , 5. , 6. , 7. ],\n"
     "        [8. , 9. , 10., 11.]])"),
    (lambda: oar.to_tensor([1.5, -2.25, 3.125], stop_gradient=False),
     "Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=False,\n"
     "       [ 1.50000000, -2.25000000,  3.12500000])"),
    (lambda: oar.to_tensor(3.14159),
     "Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
     "       3.14159012)"),
    (lambda: oar.to_tensor([1, 2, 3]),
     "Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,\n       [1, 2, 3])"),
    (lambda: oar.to_tensor([True, False]),
     "Tensor(shape=[2], dtype=bool, place=Place(cpu), stop_gradient=True,\n       [True , False])"),
    (lambda: oar.zeros([0, 3]),
     "Tensor(shape=[0, 3], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [])"),
    (lambda: oar.to_tensor([float("nan"), float("inf"), -1.0]),
     "Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
     "       [ nan, inf., -1. ])"),
    (lambda: oar.ones([2, 2, 2]),
     "Tensor(shape=[2, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
     "       [[[1., 1.],\n         [1., 1.]],\n\n        [[1., 1.],\n         [1., 1.]]])"),
    (lambda: oar.arange(2000).astype("float32"),
     "Tensor(shape=[2000], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
     "       [0.   , 1.   , 2.   , ..., 1997., 1998., 1999.])"),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_repr_matches_paddle(i):
    """Expected strings are Paddle 3.3.1's output, from shared/spec §3.9."""
    make, expect = REPRS[i]
    assert repr(make()) == expect and str(make()) == expect


def test_stop_gradient_requires_grad_consistent():
    x = oar.randn([2])
    assert x.stop_gradient and not x.requires_grad
    x.stop_gradient = False
    assert x.requires_grad and x.is_leaf
    x.requires_grad = False
    assert x.stop_gradient
    y = oar.to_tensor([1.0], stop_gradient=False) * 2
    assert not y.stop_gradient and not y.is_leaf and y.grad_fn.name() == "MulBackward0"
    with pytest.raises(RuntimeError, match="floating point"):
        oar.to_tensor([1]).requires_grad = True


def test_grad_mode_is_thread_local_and_decorates():
    seen = {}

    def worker():
        seen["enabled"] = oar.is_grad_enabled()
    with oar.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not oar.is_grad_enabled()
    assert seen["enabled"] and oar.is_grad_enabled()

    @oar.no_grad()
    def f(x):
        return x * 2

    @oar.no_grad
    def g(x):
        return x * 2
    x = oar.to_tensor([1.0], stop_gradient=False)
    assert f(x).stop_gradient and g(x).stop_gradient
    with oar.no_grad():
        with oar.enable_grad():
            assert not (x * 2).stop_gradient
    with oar.set_grad_enabled(False):
        assert (x * 2).stop_gradient
    assert oar.is_grad_enabled()


def test_promotion_rules():
    f32 = oar.ones([2])
    assert (f32 + 1).dtype == oar.float32 and (f32 + 1.5).dtype == oar.float32
    assert (f32 + oar.ones([2], dtype="float64")).dtype == oar.float64
    i64 = oar.to_tensor([1, 2])
    assert (i64 + 1).dtype == oar.int64 and (i64 + 1.5).dtype == oar.float32
    assert (i64 / 2).dtype == oar.float32 and (i64 // 2).dtype == oar.int64
    assert (oar.to_tensor([True]) + 1).dtype == oar.int64
    assert (f32 > 0).dtype == oar.bool


def test_transpose_both_dialects_and_axis_dim():
    x = oar.randn([2, 3, 4])
    assert oar.transpose(x, [2, 0, 1]).shape == [4, 2, 3]
    assert x.transpose(0, 2).shape == [4, 3, 2]
    assert x.sum(axis=1).shape == [2, 4] and x.sum(dim=1).shape == [2, 4]
    assert x.sum(1, keepdim=True).shape == [2, 1, 4]
