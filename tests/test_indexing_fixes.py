"""Issue 8 fixes in indexing and general ops (oar/ops/indexing.py, oar/ops/general.py).

Every expected exception type and value comes from torch 2.13 run in the test (skipped
cleanly when torch is absent) or from NumPy: never from oar's own output. Every refusal
also asserts that data, shape, dtype, strides and version of every operand are unchanged
(Note [Check, then write])."""
from __future__ import annotations

import numpy as np
import pytest

import oar

try:
    import torch
except ImportError:   # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch 2.13 is the oracle")

F = np.arange(6, dtype=np.float32).reshape(2, 3)
I = np.arange(6, dtype=np.int64).reshape(2, 3)
Z = np.zeros((2, 3), np.int64)


def _snapshot(ts):
    return [(t.numpy().copy(), tuple(t.shape), t.dtype, tuple(t.stride()), t._version)
            for t in ts]


def _unchanged(ts, snap):
    for t, (data, shape, dtype, stride, version) in zip(ts, snap):
        np.testing.assert_array_equal(t.numpy(), data)
        assert tuple(t.shape) == shape and t.dtype == dtype
        assert tuple(t.stride()) == stride and t._version == version


def O(a):   # noqa: E743
    return oar.to_tensor(np.array(a))


def T(a):
    return torch.tensor(np.array(a))


def _torch_error(tfn):
    with _nowarn():
        try:
            tfn()
        except Exception as e:   # noqa: BLE001
            return type(e)
    return None


class _nowarn:
    def __enter__(self):
        import warnings
        self._c = warnings.catch_warnings()
        self._c.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *a):
        return self._c.__exit__(*a)


def check_refused(ofn, tfn, operands):
    """torch refuses -> oar refuses with an exception of (a subclass of) torch's type, and
    every oar operand is unchanged."""
    etype = _torch_error(tfn)
    assert etype is not None, "torch accepts this call; the row is wrong"
    snap = _snapshot(operands)
    with pytest.raises(etype):
        ofn()
    _unchanged(operands, snap)


# ---------------------------------------------------------------- refusal table
# (id, oar call factory, torch call factory): each factory returns (callable, operands)
def _rows():
    L = None if torch is None else torch.long
    R = []

    def row(name, of, tf):
        R.append(pytest.param(of, tf, id=name))

    # 1. axes out of range (never wrapped)
    row("concat-axis5", lambda: (lambda x: (lambda: oar.concat([x, x], axis=5), [x]))(O(F)),
        lambda: (lambda x: torch.cat([x, x], 5))(T(F)))
    row("stack-axis7", lambda: (lambda x: (lambda: oar.stack([x, x], axis=7), [x]))(O(F)),
        lambda: torch.stack([T(F), T(F)], 7))
    row("stack-axis-4", lambda: (lambda x: (lambda: oar.stack([x, x], axis=-4), [x]))(O(F)),
        lambda: torch.stack([T(F), T(F)], -4))
    row("flip-5", lambda: (lambda x: (lambda: x.flip(5), [x]))(O(F)), lambda: T(F).flip(5))
    row("flip-dup", lambda: (lambda x: (lambda: x.flip([0, 0]), [x]))(O(F)),
        lambda: T(F).flip(0, 0))
    row("index_add_-dim5",
        lambda: (lambda x, i, s: (lambda: x.index_add_(5, i, s), [x, i, s]))(O(F), O([0]), O(F[:1])),
        lambda: T(F).index_add_(5, T([0]), T(F[:1])))
    row("scatter_-dim3", lambda: (lambda x, i: (lambda: x.scatter_(3, i, 1.0), [x, i]))(O(F), O(Z)),
        lambda: T(F).scatter_(3, T(Z), 1.0))
    row("gather-dim3", lambda: (lambda x, i: (lambda: x.gather(3, i), [x, i]))(O(F), O(Z)),
        lambda: T(F).gather(3, T(Z)))
    row("index_select-dim3", lambda: (lambda x, i: (lambda: x.index_select(i, axis=3), [x, i]))(O(F), O([0])),
        lambda: T(F).index_select(3, T([0])))
    row("take_along_axis-dim3",
        lambda: (lambda x, i: (lambda: oar.take_along_axis(x, i, axis=3), [x, i]))(O(F), O(Z)),
        lambda: torch.take_along_dim(T(F), T(Z), 3))
    row("put_along_axis-dim3",
        lambda: (lambda x, i: (lambda: x.put_along_axis_(i, 1.0, 3), [x, i]))(O(F), O(Z)),
        lambda: T(F).scatter_(3, T(Z), 1.0))
    # 2. None never becomes NaN
    row("setitem-None", lambda: (lambda x: (lambda: x.__setitem__(0, None), [x]))(O(F)),
        lambda: T(F).__setitem__(0, None))
    row("scatter_-no-src", lambda: (lambda x, i: (lambda: x.scatter_(0, i), [x, i]))(O(F), O(Z)),
        lambda: T(F).scatter_(0, T(Z)))
    row("masked_fill_-None", lambda: (lambda x, m: (lambda: x.masked_fill_(m, None), [x, m]))(O(F), O(F > 2)),
        lambda: T(F).masked_fill_(T(F > 2), None))
    row("index_put_-None", lambda: (lambda x, i: (lambda: x.index_put_((i,), None), [x, i]))(O(F), O([0])),
        lambda: T(F).index_put_((T([0]),), None))
    row("copy_-None", lambda: (lambda x: (lambda: x.copy_(None), [x]))(O(F)),
        lambda: T(F).copy_(None))
    # 3. float index tensors refused, never truncated
    row("getitem-float", lambda: (lambda x, i: (lambda: x[i], [x, i]))(O(F), O([0.7])),
        lambda: T(F)[T([0.7])])
    row("getitem-float-0d", lambda: (lambda x, i: (lambda: x[i], [x, i]))(O(F), O(0.7)),
        lambda: T(F)[T(0.7)])
    row("setitem-float-index", lambda: (lambda x, i: (lambda: x.__setitem__(i, 1.0), [x, i]))(O(F), O([0.7])),
        lambda: T(F).__setitem__(T([0.7]), 1.0))
    row("index_put_-float-index",
        lambda: (lambda x, i, v: (lambda: x.index_put_((i,), v), [x, i, v]))(O(F), O([0.7]), O(np.float32(1))),
        lambda: T(F).index_put_((T([0.7]),), T(np.float32(1))))
    row("index_select-float", lambda: (lambda x, i: (lambda: x.index_select(i, axis=0), [x, i]))(O(F), O([0.0])),
        lambda: T(F).index_select(0, T([0.0])))
    row("index_add_-float-index",
        lambda: (lambda x, i, s: (lambda: x.index_add_(0, i, s), [x, i, s]))(O(F), O([0.0]), O(F[:1])),
        lambda: T(F).index_add_(0, T([0.0]), T(F[:1])))
    row("scatter_-float-index",
        lambda: (lambda x, i: (lambda: x.scatter_(0, i, 1.0), [x, i]))(O(F), O(Z.astype(np.float32))),
        lambda: T(F).scatter_(0, T(Z.astype(np.float32)), 1.0))
    row("gather-float-index", lambda: (lambda x, i: (lambda: x.gather(0, i), [x, i]))(O(F), O(Z.astype(np.float32))),
        lambda: T(F).gather(0, T(Z.astype(np.float32))))
    row("take_along_axis-float-index",
        lambda: (lambda x, i: (lambda: oar.take_along_axis(x, i, axis=0), [x, i]))(O(F), O(Z.astype(np.float32))),
        lambda: torch.take_along_dim(T(F), T(Z.astype(np.float32)), 0))
    # float values into integer tensors
    row("index_put_-float-value-into-int",
        lambda: (lambda x, i, v: (lambda: x.index_put_((i,), v), [x, i, v]))(O(I), O([0]), O(np.float32(1.5))),
        lambda: T(I).index_put_((T([0]),), T(np.float32(1.5))))
    row("setitem-adv-float-tensor-into-int",
        lambda: (lambda x, i, v: (lambda: x.__setitem__(i, v), [x, i, v]))(O(I), O([0]), O(np.float32([1.5, 2, 3]))),
        lambda: T(I).__setitem__(T([0]), T(np.float32([1.5, 2, 3]))))
    row("setitem-adv-int-tensor-into-float",
        lambda: (lambda x, i, v: (lambda: x.__setitem__(i, v), [x, i, v]))(O(F), O([0]), O(np.int64([1, 2, 3]))),
        lambda: T(F).__setitem__(T([0]), T(np.int64([1, 2, 3]))))
    row("setitem-mask-1d-float-into-int",
        lambda: (lambda x, v: (lambda: x.__setitem__(x > -1, v), [x, v]))(O(I), O(np.ones(6, np.float32))),
        lambda: (lambda x: x.__setitem__(x > -1, T(np.ones(6, np.float32))))(T(I)))
    row("scatter_-float-src-into-int",
        lambda: (lambda x, i, s: (lambda: x.scatter_(0, i, s), [x, i, s]))(O(I), O(Z), O(F)),
        lambda: T(I).scatter_(0, T(Z), T(F)))
    row("scatter_-f64-src-into-f32",
        lambda: (lambda x, i, s: (lambda: x.scatter_(0, i, s), [x, i, s]))(O(F), O(Z), O(F.astype(np.float64))),
        lambda: T(F).scatter_(0, T(Z), T(F.astype(np.float64))))
    row("index_add_-float-src-into-int",
        lambda: (lambda x, i, s: (lambda: x.index_add_(0, i, s), [x, i, s]))(O(I), O([0]), O(F[:1])),
        lambda: T(I).index_add_(0, T([0]), T(F[:1])))
    # float masks
    row("masked_fill_-float-mask",
        lambda: (lambda x, m: (lambda: x.masked_fill_(m, 1.0), [x, m]))(O(F), O(np.ones((2, 3), np.float32))),
        lambda: T(F).masked_fill_(T(np.ones((2, 3), np.float32)), 1.0))
    row("where-float-cond",
        lambda: (lambda c, x: (lambda: oar.where(c, x, x), [c, x]))(O(np.ones((2, 3), np.float32)), O(F)),
        lambda: torch.where(T(np.ones((2, 3), np.float32)), T(F), T(F)))
    row("masked_select-float-mask",
        lambda: (lambda x, m: (lambda: oar.masked_select(x, m), [x, m]))(O(F), O(np.ones((2, 3), np.float32))),
        lambda: torch.masked_select(T(F), T(np.ones((2, 3), np.float32))))
    # 4. negative and out-of-range indices, refused before any write
    for v in (-1, 5):
        row(f"gather-{v}", lambda v=v: (lambda x, i: (lambda: x.gather(0, i), [x, i]))(O(F), O(np.full((2, 3), v))),
            lambda v=v: T(F).gather(0, T(np.full((2, 3), v))))
        row(f"index_select-{v}", lambda v=v: (lambda x, i: (lambda: x.index_select(i, axis=0), [x, i]))(O(F), O([v])),
            lambda v=v: T(F).index_select(0, T([v])))
        row(f"scatter_-{v}", lambda v=v: (lambda x, i: (lambda: x.scatter_(0, i, 1.0), [x, i]))(O(F), O(np.full((2, 3), v))),
            lambda v=v: T(F).scatter_(0, T(np.full((2, 3), v)), 1.0))
        row(f"index_add_-{v}",
            lambda v=v: (lambda x, i, s: (lambda: x.index_add_(0, i, s), [x, i, s]))(O(F), O([0, v]), O(F)),
            lambda v=v: T(F).index_add_(0, T([0, v]), T(F)))
    row("getitem-oob", lambda: (lambda x, i: (lambda: x[i], [x, i]))(O(F), O([5])), lambda: T(F)[T([5])])
    row("setitem-oob", lambda: (lambda x, i: (lambda: x.__setitem__(i, 1.0), [x, i]))(O(F), O([0, 5])),
        lambda: T(F).__setitem__(T([0, 5]), 1.0))
    row("index_put_-oob",
        lambda: (lambda x, i, v: (lambda: x.index_put_((i,), v), [x, i, v]))(O(F), O([0, 5]), O(np.float32(1))),
        lambda: T(F).index_put_((T([0, 5]),), T(np.float32(1))))
    row("getitem-mask-shape", lambda: (lambda x, m: (lambda: x[m], [x, m]))(O(F), O([True, False, True])),
        lambda: T(F)[T([True, False, True])])
    row("getitem-too-many", lambda: (lambda x: (lambda: x[0, 0, 0], [x]))(O(F)), lambda: T(F)[0, 0, 0])
    # 5. reduce names
    row("scatter_-reduce-bogus",
        lambda: (lambda x, i, s: (lambda: x.scatter_(0, i, s, reduce="bogus"), [x, i, s]))(O(F), O(Z), O(F)),
        lambda: T(F).scatter_(0, T(Z), T(F), reduce="bogus"))
    row("scatter_reduce-bogus",
        lambda: (lambda x, i, s: (lambda: x.scatter_reduce_(0, i, s, "bogus"), [x, i, s]))(O(F), O(Z), O(F)),
        lambda: T(F).scatter_reduce_(0, T(Z), T(F), "bogus"))
    # 7. devices
    row("to-cuda", lambda: (lambda x: (lambda: x.to("cuda"), [x]))(O(F)), lambda: T(F).to("cuda"))
    row("to-device-cuda", lambda: (lambda x: (lambda: x.to(device="cuda"), [x]))(O(F)),
        lambda: T(F).to(device="cuda"))
    row("to-cuda:x", lambda: (lambda x: (lambda: x.to("cuda:x"), [x]))(O(F)), lambda: T(F).to("cuda:x"))
    row("to-bogus", lambda: (lambda x: (lambda: x.to("bogus"), [x]))(O(F)), lambda: T(F).to("bogus"))
    row("to-ordinal", lambda: (lambda x: (lambda: x.to(0), [x]))(O(F)), lambda: T(F).to(0))
    row("cuda()", lambda: (lambda x: (lambda: x.cuda(), [x]))(O(F)), lambda: T(F).cuda())
    # 8. matmul never widens
    row("matmul-f32-f64", lambda: (lambda a, b: (lambda: a @ b, [a, b]))(O(F), O(F.T.astype(np.float64))),
        lambda: T(F) @ T(F.T.astype(np.float64)))
    row("matmul-f32-i64", lambda: (lambda a, b: (lambda: oar.matmul(a, b), [a, b]))(O(F), O(I.T)),
        lambda: torch.matmul(T(F), T(I.T)))
    row("matmul-i64-f32", lambda: (lambda a, b: (lambda: a @ b, [a, b]))(O(I), O(F.T)),
        lambda: T(I) @ T(F.T))
    row("matmul-1d-mixed", lambda: (lambda a, b: (lambda: a @ b, [a, b]))(O(F[0]), O(F[0].astype(np.float64))),
        lambda: T(F[0]) @ T(F[0].astype(np.float64)))
    row("mm-mixed", lambda: (lambda a, b: (lambda: oar.mm(a, b), [a, b]))(O(F), O(F.T.astype(np.float64))),
        lambda: torch.mm(T(F), T(F.T.astype(np.float64))))
    row("bmm-mixed", lambda: (lambda a, b: (lambda: oar.bmm(a, b), [a, b]))(O(F[None]), O(F.T[None].astype(np.float64))),
        lambda: torch.bmm(T(F[None]), T(F.T[None].astype(np.float64))))
    row("bmm-2d", lambda: (lambda a, b: (lambda: oar.bmm(a, b), [a, b]))(O(F), O(F.T)),
        lambda: torch.bmm(T(F), T(F.T)))
    row("matmul_-mixed", lambda: (lambda a, b: (lambda: a.matmul_(b), [a, b]))(O(F[:, :2]), O(np.eye(2))),
        lambda: T(F[:, :2]) @ T(np.eye(2)))
    row("matmul-bool", lambda: (lambda a: (lambda: a @ a, [a]))(O(np.eye(2, dtype=bool))),
        lambda: T(np.eye(2, dtype=bool)) @ T(np.eye(2, dtype=bool)))
    # 10. sweep
    row("concat-0d", lambda: (lambda a: (lambda: oar.concat([a, a]), [a]))(O(np.float32(1))),
        lambda: torch.cat([T(np.float32(1)), T(np.float32(1))]))
    row("concat-empty", lambda: (lambda: oar.concat([]), []), lambda: torch.cat([]))
    row("concat-ndim", lambda: (lambda a, b: (lambda: oar.concat([a, b]), [a, b]))(O(F), O(F[0])),
        lambda: torch.cat([T(F), T(F[0])]))
    row("concat-shape", lambda: (lambda a, b: (lambda: oar.concat([a, b]), [a, b]))(O(F), O(np.zeros((2, 4), np.float32))),
        lambda: torch.cat([T(F), T(np.zeros((2, 4), np.float32))]))
    row("concat-float-axis", lambda: (lambda a: (lambda: oar.concat([a, a], axis=0.5), [a]))(O(F)),
        lambda: torch.cat([T(F), T(F)], 0.5))
    row("stack-empty", lambda: (lambda: oar.stack([]), []), lambda: torch.stack([]))
    row("stack-shape", lambda: (lambda a, b: (lambda: oar.stack([a, b]), [a, b]))(O(F), O(F.T.copy())),
        lambda: torch.stack([T(F), T(F.T.copy())]))
    row("where-bcast", lambda: (lambda c, x: (lambda: oar.where(c, x, x), [c, x]))(O([True, False]), O(F)),
        lambda: torch.where(T([True, False]), T(F), T(F)))
    row("where-y-None", lambda: (lambda c, x: (lambda: oar.where(c, x, None), [c, x]))(O(F > 1), O(F)),
        lambda: torch.where(T(F > 1), T(F), None))
    row("masked_select-bcast-bad", lambda: (lambda x, m: (lambda: oar.masked_select(x, m), [x, m]))(O(F), O([True, False])),
        lambda: torch.masked_select(T(F), T([True, False])))
    row("gather-ndim", lambda: (lambda x, i: (lambda: x.gather(0, i), [x, i]))(O(F), O([0, 0])),
        lambda: T(F).gather(0, T([0, 0])))
    row("gather-bigger", lambda: (lambda x, i: (lambda: x.gather(0, i), [x, i]))(O(F), O(np.zeros((2, 4), np.int64))),
        lambda: T(F).gather(0, T(np.zeros((2, 4), np.int64))))
    row("index_select-2d", lambda: (lambda x, i: (lambda: x.index_select(i, axis=0), [x, i]))(O(F), O([[0]])),
        lambda: T(F).index_select(0, T([[0]])))
    row("scatter_-index-ndim", lambda: (lambda x, i: (lambda: x.scatter_(0, i, 1.0), [x, i]))(O(F), O([0, 0])),
        lambda: T(F).scatter_(0, T([0, 0]), 1.0))
    row("scatter_-index-bigger-than-self",
        lambda: (lambda x, i: (lambda: x.scatter_(0, i, 1.0), [x, i]))(O(F), O(np.zeros((3, 4), np.int64))),
        lambda: T(F).scatter_(0, T(np.zeros((3, 4), np.int64)), 1.0))
    row("scatter_-index-bigger-than-src",
        lambda: (lambda x, i, s: (lambda: x.scatter_(0, i, s), [x, i, s]))(O(F), O(Z), O(F[:1])),
        lambda: T(F).scatter_(0, T(Z), T(F[:1])))
    row("index_add_-2d-index",
        lambda: (lambda x, i, s: (lambda: x.index_add_(0, i, s), [x, i, s]))(O(F), O([[0]]), O(F[:1])),
        lambda: T(F).index_add_(0, T([[0]]), T(F[:1])))
    row("index_add_-source-shape",
        lambda: (lambda x, i, s: (lambda: x.index_add_(0, i, s), [x, i, s]))(O(F), O([0]), O(F)),
        lambda: T(F).index_add_(0, T([0]), T(F)))
    row("index_put_-not-tuple",
        lambda: (lambda x, i, v: (lambda: x.index_put_(i, v), [x, i, v]))(O(F), O([0]), O(np.float32(1))),
        lambda: T(F).index_put_(T([0]), T(np.float32(1))))
    row("setitem-shape-mismatch",
        lambda: (lambda x, i, v: (lambda: x.__setitem__(i, v), [x, i, v]))(O(F), O([0]), O(np.ones(4, np.float32))),
        lambda: T(F).__setitem__(T([0]), T(np.ones(4, np.float32))))
    row("setitem-str", lambda: (lambda x: (lambda: x.__setitem__(0, "a"), [x]))(O(F)),
        lambda: T(F).__setitem__(0, "a"))
    row("setitem-nan-into-int", lambda: (lambda x: (lambda: x.__setitem__(0, float("nan")), [x]))(O(I)),
        lambda: T(I).__setitem__(0, float("nan")))
    row("tile-negative", lambda: (lambda x: (lambda: x.tile([-1, 1]), [x]))(O(F)), lambda: T(F).tile((-1, 1)))
    row("tile-float", lambda: (lambda x: (lambda: x.tile([1.5, 1]), [x]))(O(F)), lambda: T(F).tile((1.5, 1)))
    row("repeat-fewer", lambda: (lambda x: (lambda: x.repeat(2), [x]))(O(F)), lambda: T(F).repeat(2))
    row("scatter_add_-dtype",
        lambda: (lambda x, i, s: (lambda: x.scatter_add_(0, i, s), [x, i, s]))(O(F), O(Z), O(F.astype(np.float64))),
        lambda: T(F).scatter_add_(0, T(Z), T(F.astype(np.float64))))
    row("scatter_reduce-dtype",
        lambda: (lambda x, i, s: (lambda: x.scatter_reduce_(0, i, s, "sum"), [x, i, s]))(O(F), O(Z), O(I)),
        lambda: T(F).scatter_reduce_(0, T(Z), T(I), "sum"))
    for v in ([6], [-7], [0.0]):
        row(f"take-{v}", lambda v=v: (lambda x, i: (lambda: oar.take(x, i), [x, i]))(O(F), O(v)),
            lambda v=v: torch.take(T(F), T(v)))
    return R


@needs_torch
def test_take_like_torch():
    idx = np.array([[0, -1], [5, 2]])
    wo = oar.tensor(F.astype(np.float64), requires_grad=True)
    wt = torch.tensor(F.astype(np.float64), requires_grad=True)
    yo, yt = oar.take(wo, O(idx)), torch.take(wt, T(idx))
    np.testing.assert_array_equal(yo.numpy(), yt.detach().numpy())
    yo.sum().backward()
    yt.sum().backward()
    np.testing.assert_array_equal(wo.grad.numpy(), wt.grad.numpy())


@needs_torch
@pytest.mark.parametrize("of,tf", _rows() if torch is not None else [])
def test_refused_like_torch(of, tf):
    fn, operands = of()
    check_refused(fn, tf, operands)


# ---------------------------------------------------------------- accepted, same values
@needs_torch
@pytest.mark.parametrize("axis", [-3, -2, -1, 0, 1, 2])
def test_stack_axis_range(axis):
    got = oar.stack([O(F), O(F + 1)], axis=axis).numpy()
    want = torch.stack([T(F), T(F + 1)], axis).numpy()
    np.testing.assert_array_equal(got, want)


@needs_torch
def test_joins_promote_like_torch():
    for a, b in [(F, I), (F, F.astype(np.float64)), (F > 1, I), (I.astype(np.int32), I)]:
        for fn, tfn in [(oar.concat, torch.cat), (oar.stack, torch.stack)]:
            got = fn([O(a), O(b)])
            want = tfn([T(a), T(b)])
            assert got.numpy().dtype == want.numpy().dtype
            np.testing.assert_array_equal(got.numpy(), want.numpy())


@needs_torch
def test_concat_skips_legacy_empty():
    got = oar.concat([O(F), O(np.zeros(0, np.float32))])
    want = torch.cat([T(F), T(np.zeros(0, np.float32))])
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_concat_refuses_a_tensor():
    with pytest.raises(TypeError):
        oar.concat(O(F))


@needs_torch
def test_allowed_writes_match_torch():
    cases = [
        # a Python float into an int tensor truncates (torch's rule), advanced and basic
        (lambda x: x.__setitem__(O([0]), 1.5), lambda x: x.__setitem__(T([0]), 1.5), I),
        (lambda x: x.__setitem__(0, O(np.float32([1.5, 2, 3]))),
         lambda x: x.__setitem__(0, T(np.float32([1.5, 2, 3]))), I),
        # one-element value through a single bool mask: masked_fill, any dtype
        (lambda x: x.__setitem__(O([True, False]), O(np.float64(2))),
         lambda x: x.__setitem__(T([True, False]), T(np.float64(2))), F),
        (lambda x: x.index_put_((O(F > 2),), O(np.int64(7))),
         lambda x: x.index_put_((T(F > 2),), T(np.int64(7))), F),
        (lambda x: x.scatter_(0, O(Z), 1.5), lambda x: x.scatter_(0, T(Z), 1.5), I),
        (lambda x: x.__setitem__(O([-1]), 9.0), lambda x: x.__setitem__(T([-1]), 9.0), F),
        (lambda x: x.index_put_((O([-1, 0]),), O(np.float32(3)), accumulate=True),
         lambda x: x.index_put_((T([-1, 0]),), T(np.float32(3)), accumulate=True), F),
        (lambda x: x.__setitem__(O(np.array([1, 0], np.uint8)), 4.0),
         lambda x: x.__setitem__(T(np.array([True, False])), 4.0), F),
    ]
    for of, tf, a in cases:
        xo, xt = O(a), T(a)
        of(xo)
        tf(xt)
        np.testing.assert_array_equal(xo.numpy(), xt.numpy())


@needs_torch
def test_getitem_uint8_is_a_mask_like_torch():
    m = np.array([1, 0], np.uint8)
    with _nowarn():
        want = T(F)[T(m)].numpy()
    np.testing.assert_array_equal(O(F)[O(m)].numpy(), want)


@needs_torch
def test_getitem_negative_tensor_index_like_torch():
    np.testing.assert_array_equal(O(F)[O([-1])].numpy(), T(F)[T([-1])].numpy())


# ---------------------------------------------------------------- reduce
@needs_torch
@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("src_kind", ["tensor", "value"])
def test_scatter_reduce_arg(reduce, src_kind):
    idx = np.array([[0, 1, 0], [0, 0, 1]])
    for a in (F + 1, I + 2):
        s = (a * 3 - 1) if src_kind == "tensor" else 3
        xo, xt = O(a), T(a)
        so = O(s) if src_kind == "tensor" else s
        st = T(s) if src_kind == "tensor" else s
        xo.scatter_(0, O(idx), so, reduce=reduce)
        with _nowarn():
            xt.scatter_(0, T(idx), st, reduce=reduce)
        np.testing.assert_allclose(xo.numpy(), xt.numpy())


@needs_torch
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_scatter_reduce_like_torch(reduce, include_self, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(-5, 6, (4, 3)).astype(dtype)
    src = rng.integers(-5, 6, (3, 3)).astype(dtype)
    idx = rng.integers(0, 4, (3, 3))
    got = O(a).scatter_reduce(0, O(idx), O(src), reduce, include_self=include_self)
    want = T(a).scatter_reduce(0, T(idx), T(src), reduce, include_self=include_self)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@needs_torch
@pytest.mark.parametrize("reduce,treduce", [("assign", None), ("add", "sum"), ("mul", "prod"),
                                             ("multiply", "prod"), ("mean", "mean"),
                                             ("amin", "amin"), ("amax", "amax")])
@pytest.mark.parametrize("include_self", [True, False])
def test_put_along_axis_reduce(reduce, treduce, include_self):
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 6, (3, 4)).astype(np.float64)
    src = rng.integers(-5, 6, (3, 2)).astype(np.float64)
    idx = rng.integers(0, 4, (3, 2))
    got = oar.put_along_axis(O(a), O(idx), O(src), 1, reduce=reduce, include_self=include_self,
                             broadcast=False)
    if treduce is None:
        want = T(a).scatter(1, T(idx), T(src))
    else:
        want = T(a).scatter_reduce(1, T(idx), T(src), treduce, include_self=include_self)
    np.testing.assert_allclose(got.numpy(), want.numpy())


def test_put_along_axis_paddle_examples():
    x = np.array([[10, 30, 20], [60, 40, 50]])
    # Paddle 3.3 docs, example 1: index [[0]] broadcasts over the columns
    got = oar.put_along_axis(O(x), O([[0]]), 99, 0)
    np.testing.assert_array_equal(got.numpy(), [[99, 99, 99], [60, 40, 50]])
    # example 2 computed with NumPy: add at row 0 of columns 0 and 1, no broadcast
    want = x.copy()
    np.add.at(want, (np.zeros((2, 2), int), np.array([[0, 1], [0, 1]])), [[1, 2], [3, 4]])
    got = oar.put_along_axis(O(x), O(np.zeros((2, 2), np.int32)), O([[1, 2], [3, 4]]), 0,
                             "add", True, False)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("reduce", ["bogus", "sum", None])
def test_put_along_axis_refuses_unknown_reduce(reduce):
    x, i = O(F), O(Z)
    snap = _snapshot([x, i])
    with pytest.raises(ValueError, match="assign"):
        x.put_along_axis_(i, 1.0, 0, reduce=reduce)
    _unchanged([x, i], snap)


@needs_torch
def test_scatter_reduce_amax_gradient_as_torch():
    # scatter_reduce_ has a derivative in PyTorch 2.13 (ties share the gradient evenly,
    # Note [scatter_reduce backward]); scatter_(reduce=) has none (next test)
    w, wt = oar.tensor(np.ones((2, 3)), requires_grad=True), T(np.ones((2, 3)))
    wt.requires_grad_(True)
    (w * 1).scatter_reduce_(0, O(Z), O(np.ones((2, 3))), "amax").sum().backward()
    (wt * 1).scatter_reduce_(0, T(Z), T(np.ones((2, 3))), "amax").sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy())


def test_reduce_without_derivative_raises_at_backward():
    w = oar.tensor(np.ones((2, 3)), requires_grad=True)
    y = (w * 1).scatter_(0, O(Z), O(np.ones((2, 3))), reduce="multiply")
    with pytest.raises(RuntimeError, match="not implemented"):
        y.sum().backward()


# ---------------------------------------------------------------- alpha
@needs_torch
@pytest.mark.parametrize("alpha", [0.5, 1.7, -1.7, 2.5, 2, True])
def test_index_add_integer_alpha(alpha):
    # it used to add 2 for alpha=0.5; PyTorch 2.13 casts alpha to the integer dtype
    # (truncation toward zero), so 0.5 adds nothing
    xo, xt = O(I), T(I)
    xo.index_add_(0, O([1, 1]), O(I), alpha=alpha)
    xt.index_add_(0, T([1, 1]), T(I), alpha=alpha)
    np.testing.assert_array_equal(xo.numpy(), xt.numpy())
    xo, xt = O(F), T(F)
    xo.index_add_(0, O([1, 1]), O(F), alpha=alpha)
    xt.index_add_(0, T([1, 1]), T(F), alpha=alpha)
    np.testing.assert_allclose(xo.numpy(), xt.numpy(), rtol=1e-6)


def test_index_add_alpha_refusals():
    x, i, s = O(I), O([0]), O(I[:1])
    snap = _snapshot([x, i, s])
    for bad in (None, "x", float("nan")):
        with pytest.raises((TypeError, ValueError)):
            x.index_add_(0, i, s, alpha=bad)
    _unchanged([x, i, s], snap)


@needs_torch
@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_reduce_arg_has_no_derivative_like_torch(reduce):
    def run(lib):
        w = (oar.tensor if lib == "oar" else torch.tensor)(np.ones((2, 3)), requires_grad=True)
        y = w * 1
        with _nowarn():
            y.scatter_(0, _i(lib, Z), _i(lib, np.full((2, 3), 2.0)), reduce=reduce)
        y.sum().backward()
    with pytest.raises(RuntimeError):
        run("torch")
    with pytest.raises(RuntimeError):
        run("oar")


# ---------------------------------------------------------------- to()
def test_to_keeps_working():
    x = O(F)
    assert x.to("cpu") is x and x.to("cpu:0") is x and x.cpu() is x
    assert x.to("float64").dtype == oar.float64
    assert x.to(oar.float64).numpy().dtype == np.float64
    assert x.to(O(I)).dtype == oar.int64
    assert x.to("cpu", "float64").dtype == oar.float64
    assert x.to(device="cpu", dtype="int32").dtype == oar.int32


def test_to_cuda_is_an_assertion_and_runtime_error():
    # torch on a CPU build: AssertionError "Torch not compiled with CUDA enabled"; Paddle
    # code catches ValueError: one class is all of them
    with pytest.raises(AssertionError, match="CUDA"):
        O(F).to("gpu:0")
    with pytest.raises(RuntimeError):
        O(F).to("cuda")
    with pytest.raises(TypeError):
        O(F).to("cpu", bogus_keyword=1)


# ---------------------------------------------------------------- matmul
@needs_torch
def test_matmul_same_dtype_still_works():
    for a, b in [(F, F.T), (I, I.T), (F.astype(np.float64), F.T.astype(np.float64))]:
        np.testing.assert_allclose((O(a) @ O(b)).numpy(), (T(a) @ T(b)).numpy())
    np.testing.assert_allclose(oar.bmm(O(F[None]), O(F.T[None])).numpy(),
                               torch.bmm(T(F[None]), T(F.T[None])).numpy())


def test_matmul_error_names_the_fix():
    with pytest.raises(RuntimeError, match=r"float32.*float64.*astype"):
        O(F) @ O(F.T.astype(np.float64))


# ---------------------------------------------------------------- gathers: values and grads
@needs_torch
@pytest.mark.parametrize("ishape,dim", [((2, 1), 0), ((1, 2), 1), ((2, 3), 0), ((1, 3), 0),
                                        ((2, 2), 1)])
def test_gather_smaller_index_like_torch(ishape, dim):
    rng = np.random.default_rng(2)
    idx = rng.integers(0, F.shape[dim], ishape)
    a = F.astype(np.float64)
    wo = oar.tensor(a, requires_grad=True)
    wt = torch.tensor(a, requires_grad=True)
    go = wo.gather(dim, O(idx))
    gt = wt.gather(dim, T(idx))
    np.testing.assert_array_equal(go.numpy(), gt.detach().numpy())
    (go * O(np.arange(go.numpy().size, dtype=go.numpy().dtype).reshape(go.shape))).sum().backward()
    (gt * torch.arange(gt.numel()).reshape(gt.shape)).sum().backward()
    np.testing.assert_allclose(wo.grad.numpy(), wt.grad.numpy())


@needs_torch
def test_take_along_axis_broadcast_and_negative_grad():
    a = F.astype(np.float64)
    idx = np.array([[-1], [0]])
    wo = oar.tensor(a, requires_grad=True)
    wt = torch.tensor(a, requires_grad=True)
    yo = oar.take_along_axis(wo, O(idx), axis=1)
    yt = torch.take_along_dim(wt, T(idx), 1)
    np.testing.assert_array_equal(yo.numpy(), yt.detach().numpy())
    # an index broadcast over rows: (1, 3) along axis 1 of a (2, 3) input
    idx2 = np.array([[2, -3, 1]])
    yo2 = oar.take_along_axis(wo, O(idx2), axis=1)
    yt2 = torch.take_along_dim(wt, T(idx2), 1)
    np.testing.assert_array_equal(yo2.numpy(), yt2.detach().numpy())
    (yo.sum() + (yo2 * 2).sum()).backward()
    (yt.sum() + (yt2 * 2).sum()).backward()
    np.testing.assert_allclose(wo.grad.numpy(), wt.grad.numpy())


@needs_torch
def test_masked_select_broadcast_and_grad():
    a = np.arange(3.0)
    m = np.array([[True], [False]])
    wo = oar.tensor(a, requires_grad=True)
    wt = torch.tensor(a, requires_grad=True)
    yo = oar.masked_select(wo, O(m))
    yt = torch.masked_select(wt, T(m))
    np.testing.assert_array_equal(yo.numpy(), yt.detach().numpy())
    (yo * 3).sum().backward()
    (yt * 3).sum().backward()
    np.testing.assert_allclose(wo.grad.numpy(), wt.grad.numpy())


@needs_torch
@pytest.mark.parametrize("v", [0.0, 2.0])
def test_nonzero_0d_like_torch(v):
    got = oar.nonzero(O(np.float32(v)))
    want = torch.nonzero(T(np.float32(v)))
    assert tuple(got.shape) == tuple(want.shape)
    got_t = oar.nonzero(O(np.float32(v)), as_tuple=True)
    want_t = torch.nonzero(T(np.float32(v)), as_tuple=True)
    assert len(got_t) == len(want_t)
    np.testing.assert_array_equal(got_t[0].numpy(), want_t[0].numpy())


@needs_torch
def test_scatter_grads_like_torch():
    a = np.arange(6.0).reshape(2, 3)
    idx = np.array([[1, 0, 1]])
    for op in ("scatter", "scatter_add"):
        xo = oar.tensor(a, requires_grad=True)
        # src of the index's shape: torch 2.13's ScatterBackward returns a wrongly shaped
        # gradient for a larger src
        so = oar.tensor(a[:1] * 10, requires_grad=True)
        xt = torch.tensor(a, requires_grad=True)
        st = torch.tensor(a[:1] * 10, requires_grad=True)
        yo = getattr(xo * 1, op)(0, O(idx), so)
        yt = getattr(xt * 1, op)(0, T(idx), st)
        np.testing.assert_allclose(yo.numpy(), yt.detach().numpy())
        wgt = np.arange(6.0).reshape(2, 3)
        (yo * O(wgt)).sum().backward()
        (yt * T(wgt)).sum().backward()
        np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy())
        np.testing.assert_allclose(so.grad.numpy(), st.grad.numpy())


# ---------------------------------------------------------------- 9. second backward
def _twice(lib, make):
    w = (oar.tensor if lib == "oar" else torch.tensor)(np.ones((3, 3)), requires_grad=True)
    y = make(lib, w).sum()
    y.backward()
    try:
        y.backward()
    except RuntimeError:
        return "raises"
    return "ok"


def _i(lib, a):
    return O(a) if lib == "oar" else T(a)


_TWICE = {
    "getitem-adv": lambda lib, w: w[_i(lib, [0, 1])],
    "getitem-mask": lambda lib, w: w[_i(lib, np.eye(3, dtype=bool))],
    "getitem-basic": lambda lib, w: w[0:2],
    "index_put-self": lambda lib, w: (w * 1).index_put_((_i(lib, [0, 1]),), _i(lib, 1.0)),
    "setitem-adv": lambda lib, w: (lambda z: (z.__setitem__(_i(lib, [0]), 1.0), z)[1])(w * 1),
    "index_add-self-only": lambda lib, w: (w * 1).index_add_(0, _i(lib, [0, 1]), _i(lib, np.ones((2, 3)))),
    "index_add-src": lambda lib, w: _i(lib, np.zeros((3, 3))).index_add_(0, _i(lib, [0, 1]), w[:2] * 1),
    "scatter-self-only": lambda lib, w: (w * 1).scatter_(0, _i(lib, np.zeros((3, 3), np.int64)), 1.0),
    "scatter_add-self-only": lambda lib, w: (w * 1).scatter_add_(0, _i(lib, np.zeros((3, 3), np.int64)),
                                                                  _i(lib, np.ones((3, 3)))),
    "gather": lambda lib, w: w.gather(0, _i(lib, np.zeros((3, 3), np.int64))),
    "index_select": lambda lib, w: w.index_select(0, _i(lib, [0, 1])) if lib == "torch"
    else w.index_select(_i(lib, [0, 1]), axis=0),
    "flip": lambda lib, w: w.flip([0]),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(_TWICE))
def test_second_backward_like_torch(name):
    assert _twice("oar", _TWICE[name]) == _twice("torch", _TWICE[name])


def test_index_mutated_after_getitem_keeps_its_gradient():
    w = oar.tensor(np.arange(4.0), requires_grad=True)
    idx = O([0, 0, 3])
    y = w[idx]
    idx[0] = 2       # the backward uses the indices of the forward (NumPy: add.at)
    y.sum().backward()
    want = np.zeros(4)
    np.add.at(want, [0, 0, 3], 1.0)
    np.testing.assert_array_equal(w.grad.numpy(), want)


def test_getitem_fast_paths_still_views():
    x = O(F)
    for k in (0, slice(0, 1), (0, slice(None)), (Ellipsis, 1), (None, 0)):
        y = x[k]
        assert y._storage is x._storage
        np.testing.assert_array_equal(y.numpy(), F[k])


@needs_torch
def test_leaf_rule_comes_before_argument_checks_like_torch():
    def bad(lib):
        w = (oar.tensor if lib == "oar" else torch.tensor)(np.zeros(3), requires_grad=True)
        return [lambda: w.index_put_((_i(lib, [0.0, 1.0]),), _i(lib, 0.5)),
                lambda: w.scatter_(0, _i(lib, [0.5]), 1.0),
                lambda: w.__setitem__(_i(lib, [0.5]), 1.0)]
    for fo, ft in zip(bad("oar"), bad("torch")):
        etype = _torch_error(ft)
        assert etype is RuntimeError
        with pytest.raises(etype, match="leaf"):
            fo()


@needs_torch
def test_copy_shape_error_like_torch():
    x, s = O(F[:, :1].copy()), O(F)
    check_refused(lambda: x.copy_(s), lambda: T(F[:, :1].copy()).copy_(T(F)), [x, s])


@needs_torch
def test_sweep_more_refusals_like_torch():
    x, n = O(F), O(I)
    check_refused(lambda: oar.clone([1.0]), lambda: torch.clone([1.0]), [])
    check_refused(lambda: x.fill_(O(np.ones(4, np.float32))),
                  lambda: T(F).fill_(T(np.ones(4, np.float32))), [x])
    check_refused(lambda: n.index_add_(0, O([0, 1]), n),
                  lambda: (lambda t: t.index_add_(0, T([0, 1]), t))(T(I)), [n])
    check_refused(lambda: oar.matmul(x, 0), lambda: torch.matmul(T(F), 0), [x])
    for bad, err in ((lambda: oar.cast(x, None), TypeError),
                     (lambda: oar.where_(x > 1, 0, 2.5), ValueError),     # as paddle 3.3.1
                     (lambda: oar.reshape_(None, [6]), TypeError),
                     (lambda: oar.index_add_(None, 0, O([0]), x), TypeError)):
        snap = _snapshot([x])
        with pytest.raises(err):
            bad()
        _unchanged([x], snap)


def test_empty_basic_slices_sit_at_torch_storage_offset():
    torch = pytest.importorskip("torch")
    keys = [np.s_[1:1], np.s_[4:4], np.s_[3:1], np.s_[-1:-1], np.s_[:, 3:1], np.s_[1, 2:2],
            np.s_[None, 2:2], np.s_[..., 1:1]]
    for make in (lambda L: L.arange(16.).reshape([4, 4]), lambda L: L.arange(16.).reshape([4, 4]).t()):
        o, t = make(oar), make(torch)
        for k in keys:
            assert o[k].storage_offset() == t[k].storage_offset(), k
            assert tuple(o[k].shape) == tuple(t[k].shape), k


def test_copy_into_integer_tensor_records_no_gradient():
    torch = pytest.importorskip("torch")
    for L in (oar, torch):
        x = L.tensor(np.full((2, 2), 1.5), requires_grad=True)
        k = L.tensor(np.ones((2, 2), dtype=np.int64))
        k.copy_(x)
        assert not k.requires_grad and k.grad_fn is None
        assert k.tolist() == [[1, 1], [1, 1]]
