"""The PyTorch door's indexing against torch 2.13 (Note [Torch indexing], oar/ops/indexing.py).

Every key is run through `torch` and `oar.torch` on the same data: values, shape, dtype,
whether the result is a view (and its strides and storage offset), grad_fn name, the
gradient, the error class; for setitem also the written values, the version bump, the
base's grad_fn (CopySlices) and that a refused write changed nothing. Writes into expanded
tensors (Note [Writes into expanded tensors]) and the Paddle door's unchanged behaviour are
checked at the end.
"""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

import oar  # noqa: E402
import oar.torch as ot  # noqa: E402

SHAPE = (3, 4, 5)


class T:
    """A tensor index, made in each library (dtype by name)."""
    def __init__(self, v, dt=None):
        self.v, self.dt = v, dt

    def __repr__(self):
        return f"T({self.v!r}, {self.dt})"


class Rng:
    def __init__(self, *a):
        self.a = a

    def __repr__(self):
        return f"range{self.a}"


def conv(k, L):
    """The key for library L (tensors of L; everything else as is)."""
    if isinstance(k, tuple):
        return tuple(conv(i, L) for i in k)
    if isinstance(k, list):
        return [conv(i, L) for i in k]
    if isinstance(k, T):
        return L.tensor(k.v, dtype=getattr(L, k.dt)) if k.dt else L.tensor(k.v)
    if isinstance(k, Rng):
        return range(*k.a)
    if isinstance(k, str) and k in ("size01", "size2"):    # a torch.Size key
        return L.Size([0, 1] if k == "size01" else [2])
    return k


MASK34 = np.array([[True, False, True, False]] * 3)

KEYS = [
    # ints, negative ints, out of range
    0, -1, 2, 3, -4, (0, 1), (0, -1, 2), (-3, -4, -5), (0, 0, 0, 0), 5, (0, 7), (1, -5),
    np.int64(1), np.uint8(1), np.int32(-1), np.array(1), T(1), T(-1), T(1, "int32"),
    (T(0), T(1)), (slice(None), T(2)),
    # slices
    slice(1, 3), slice(None), slice(None, None, 2), slice(5, 10), slice(1, 1), slice(-10, 10),
    slice(None, None, -1), slice(None, None, 0), slice(0.5, 2), slice(T(1), 3),
    (slice(None), 1), (slice(None), slice(None)), (slice(0, 3, 1), slice(None)),
    (slice(1, None, 2), Ellipsis, slice(None, None, 2)), (slice(None, None, 2), slice(5, 1)),
    (slice(0, 0), 1), (slice(1, 1), 2), (slice(2, 2), slice(3, 4), None),
    (slice(-3, None),), (slice(0, 3),), (slice(0, 10),), (slice(None, -1), 0), (slice(-3, None), 0),
    # None / Ellipsis
    None, (None, 0), (0, None), (None, None, 0, None), (None,), Ellipsis, (Ellipsis, 0),
    (0, Ellipsis, 1), (None, Ellipsis, None), (Ellipsis, None), (Ellipsis, Ellipsis),
    (Ellipsis, 0, Ellipsis), (Ellipsis, Ellipsis, 0), (Ellipsis, Ellipsis, None), (),
    # bools
    True, False, (True, 0), (0, True), (False, slice(None)), ([0, 1], True), T(True),
    T(False), T(1, "uint8"), T(0, "uint8"), np.bool_(True), np.array(True),
    # lists and sequences
    [0, 2], [-1, 0], [], [[0, 1], [2, 0]], [[0, 1]], [(0, 1)], ((0, 1),), ([0, 1],),
    [0, [1, 2]], [0, [1]], [None], [True, False, True], [True, 0], [1.0, 2.0], [1.5], [-1.5],
    [1] * 40, [0, 0, 1], Rng(2), (Rng(3), T([0, 1, 2])), (Rng(2), [0, 1]), (Rng(2),),
    [slice(None), 0], "a", [[True] * 4] * 3,
    # ndarrays
    np.array([0, 2]), np.array([True, False, True]), np.array([1, 0, 1], np.uint8),
    np.array([1.0, 2.7]), np.array([[0, 1], [2, 0]]), MASK34, (MASK34, 0),
    (MASK34, Ellipsis, 0), np.array([], dtype=np.int64), np.array([1], np.uint8),
    # index tensors
    T([0, 2]), T([True, False, True]), T([1, 0, 1], "uint8"), T([0, 1], "int16"),
    T([0, 1], "int32"), T([0.0]), T([], "int64"), T([], "bool"), T([], "float32"), T([3]),
    T([5]), T([-4]), T(MASK34.tolist()), (T(MASK34.tolist()), 0), (T(MASK34.tolist()), Ellipsis, 0),
    (T([True] * 4), slice(None)), (slice(None), T([[True] * 5] * 4)), T([[True] * 5] * 4),
    ([0, 1], T([[True] * 5] * 4)), (0, T([True, False, True, False])),
    (T([0, 1]), T([1, 2])), (T([[0], [1]]), T([1, 2])), (T([0, 1]), T([1, 2, 3])),
    # advanced mixed with basic (torch's order, not NumPy's)
    (0, slice(None), [0, 1]), ([0, 1], slice(None), [1, 2]), ([0, 1], None, [1, 2]),
    (None, [0, 1], None, [1, 2]), ([0, 1], slice(2, 4), [1, 2]), (slice(None), None, [1, 2]),
    (slice(None), [0, 2], slice(None)), (0, [0, 2], slice(None)), ([0, 1], slice(None), 0),
    (Ellipsis, [0, 1]), (Ellipsis, None, [0, 2]), ([0, 1], [0, 5]), ([[0, 1]], [[1], [2]]),
    (T([[True, False, True, False]]), 0), (T([1, 0, 1], "uint8"), Ellipsis, 0),
    # tuple subclasses are tuples
    "size01", "size2",
    # not indices
    1.0, (0, 1.5), T(1.0), {0: 1}, object(), (0, "a"),
]


def _grad_name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _get(L, k, base="plain", grad=True):
    a = L.arange(60.0, dtype=L.float64).reshape(*SHAPE)
    if base == "transposed":
        a = L.arange(60.0, dtype=L.float64).reshape(5, 4, 3).permute(2, 1, 0)
    if base == "expanded":     # elements sharing memory: gradients per element, not memory
        leaf = L.arange(20.0, dtype=L.float64).reshape(1, 4, 5).requires_grad_(grad)
        x = (leaf * 1).expand(*SHAPE)
    else:
        leaf = a.clone().requires_grad_(grad)
        x = leaf * 1 if grad else leaf
    r = x[conv(k, L)]
    info = dict(shape=tuple(r.shape), dtype=str(r.dtype), vals=r.detach().numpy().tolist(),
                view=r._base is not None, grad_fn=_grad_name(r))
    if info["view"] and r.numel():
        info["stride"] = r.stride()
        info["offset"] = r.storage_offset() - x.storage_offset()
    if grad and r.numel():
        w = L.arange(float(r.numel()), dtype=L.float64).reshape(tuple(r.shape)) + 1
        (r * w).sum().backward()
        info["grad"] = leaf.grad.numpy().tolist()
    return info


def _outcome(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", f()
        except Exception as e:   # compared by class below
            return "err", e


def assert_same(t, o, what):
    if t[0] == "err":
        assert o[0] == "err", f"{what}: torch raised {type(t[1]).__name__}: {t[1]}, oar gave {o[1]}"
        assert isinstance(o[1], type(t[1])), (
            f"{what}: torch raised {type(t[1]).__name__} ({t[1]}), oar {type(o[1]).__name__} ({o[1]})")
        return
    assert o[0] == "ok", f"{what}: oar raised {type(o[1]).__name__}: {o[1]}; torch gave {t[1]}"
    for field in t[1]:
        assert repr(o[1].get(field)) == repr(t[1][field]), (   # repr: nan equals nan
            f"{what}: {field} differs: torch {t[1][field]!r}, oar {o[1].get(field)!r}")
    assert set(o[1]) == set(t[1]), what


@pytest.mark.parametrize("base", ["plain", "transposed", "expanded"])
@pytest.mark.parametrize("k", KEYS, ids=[repr(k)[:40] for k in KEYS])
def test_getitem_matches_torch(k, base):
    assert_same(_outcome(lambda: _get(torch, k, base)), _outcome(lambda: _get(ot, k, base)),
                f"x[{k!r}] ({base})")


ZERO_D_KEYS = [None, Ellipsis, True, False, (), 0, 1, -1, [0], T(0), T(True), slice(None),
               (None, None), (Ellipsis, None), [], [True]]


@pytest.mark.parametrize("k", ZERO_D_KEYS, ids=[repr(k) for k in ZERO_D_KEYS])
def test_getitem_of_0d_matches_torch(k):
    def get(L):
        leaf = L.tensor(3.0, dtype=L.float64, requires_grad=True)
        x = leaf * 1
        r = x[conv(k, L)]
        r.sum().backward()
        return dict(shape=tuple(r.shape), vals=r.detach().numpy().tolist(),
                    grad_fn=_grad_name(r), grad=leaf.grad.item())
    assert_same(_outcome(lambda: get(torch)), _outcome(lambda: get(ot)), f"0-d x[{k!r}]")


# ------------------------------------------------------------------ keys from hypothesis
def _item(n):
    """One item for a dim of size n (ints in and out of range, slices, lists, masks ...)."""
    return st.one_of(
        st.integers(-n - 1, n),
        st.builds(slice, st.none() | st.integers(-n - 2, n + 2), st.none() | st.integers(-n - 2, n + 2),
                  st.none() | st.integers(1, 3)),
        st.just(None), st.just(Ellipsis), st.booleans(),
        st.lists(st.integers(-n, n - 1), min_size=0, max_size=3),
        st.lists(st.booleans(), min_size=n, max_size=n).map(lambda b: T(b)),
        st.lists(st.integers(-n, n - 1), min_size=1, max_size=3).map(lambda v: T(v)),
        st.integers(-n, n - 1).map(lambda v: T(v)),
    )


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_item(4), min_size=1, max_size=4).map(tuple))
def test_getitem_generated_keys_match_torch(k):
    assert_same(_outcome(lambda: _get(torch, k)), _outcome(lambda: _get(ot, k)), f"x[{k!r}]")


# ------------------------------------------------------------------ setitem
def _set(L, k, value, dtype="float64", grad=True, keyconv=True):
    leaf = L.arange(60.0, dtype=getattr(L, dtype)).reshape(*SHAPE)
    if grad:
        leaf.requires_grad_(True)
    x = leaf * 1 if grad else leaf.clone()
    before = x.detach().clone()
    v0 = x._version
    val = value(L) if callable(value) else value
    try:
        x[conv(k, L) if keyconv else k] = val
    except Exception:
        if L is ot:   # oar's refused write changes nothing (Note [Check, then write]); torch
            # may have written part of an index_put_ before its bounds error
            assert x.detach().numpy().tolist() == before.numpy().tolist()
            assert x._version == v0
        raise
    info = dict(vals=x.detach().numpy().tolist(), dtype=str(x.dtype), version=x._version - v0,
                grad_fn=_grad_name(x))
    if grad:
        w = L.arange(60.0, dtype=L.float64).reshape(*SHAPE) + 1
        (x * w).sum().backward()
        info["grad"] = leaf.grad.numpy().tolist()
        if isinstance(val, (torch.Tensor, ot.Tensor)) and val.requires_grad:
            info["value_grad"] = val.grad.numpy().tolist() if val.grad is not None else None
    return info


def _vt(shape, dtype="float64", grad=False):
    """A value tensor 1, 2, 3 ... of `shape` (a leaf that may require grad)."""
    def make(L):
        n = int(np.prod(shape)) if shape else 1
        v = (L.arange(float(n)) + 1).reshape(shape).to(getattr(L, dtype))
        return v.requires_grad_(True) if grad else v
    return make


SET_CASES = [
    (0, 5.0), (0, _vt((5,))), (0, _vt((1, 5))), (0, _vt((1, 1, 4, 5))), (0, _vt(()),),
    (0, _vt((4, 5), grad=True)), (0, _vt((2, 5))), (0, _vt((4, 5), "float32")), (0, _vt((4, 5), "int64")),
    ((0, 1), 7.0), ((-1, -2, -3), 7), ((0, slice(1, 3)), 5.0), ((slice(None), 1), _vt((3, 5))),
    (slice(1, 3), 5.0), (slice(None), 5.0), (Ellipsis, 5.0), (Ellipsis, _vt(SHAPE)),
    ((slice(-3, None),), 5.0), ((slice(0, 9),), 5.0), ((slice(None), slice(0, 2)), 5.0),
    (Ellipsis, _vt((5,))), (Ellipsis, _vt((1, 3, 4, 5))), (Ellipsis, _vt((2, 4, 5))),
    (None, 5.0), (None, _vt((1, 3, 4, 5))), (True, 5.0), (False, 5.0), (False, "bad value"),
    ((slice(None), slice(None)), 5.0), ((slice(None), slice(None)), _vt(SHAPE)),
    (T([0, 2]), 5.0), (T([0, 2]), _vt((2, 4, 5))), (T([0, 2]), _vt((1, 1, 4, 5))),
    (T([0, 2]), _vt((4, 5), grad=True)), (T([0, 2]), _vt((4, 5), "float32")),
    (T([0, 2]), _vt((3, 4, 5))), ([0, 1], _vt((), "int64")), ([0, 1], _vt((5,), "int64")),
    (T([True, False, True]), 0.0), (T([True, False, True]), _vt((), "float32")),
    (T([True, False, True]), _vt((1, 1), "float32")), (T([[True, False] * 2] * 3), 1.0),
    ((0, T([0, 2])), 5.0), ((slice(None), [0, 2]), _vt((3, 2, 5))), ((Ellipsis, None, [0, 2]), 5.0),
    ((0, slice(None), [0, 1]), _vt((4, 2))), ((True, 0), 5.0), ([True, False, True], 5.0),
    ((Rng(2), [1, 2]), 5.0), (np.array([0, 2]), 5.0), ([], 5.0), (T(1), 7.0), ((T(1), 0), 7.0),
    (np.int64(1), 7.0), ([[0, 1], [2, 0]], 3.0), (5, 1.0), (1.0, 1.0), ((0, 7), 1.0),
    (0, [1, 2, 3, 4, 5]), (0, np.ones(5)), (0, np.array(2.0)), (0, "a"), (0, None), (0, 1 + 2j),
    (0, 1 + 0j), (0, np.float64(2.5)), (0, np.float32(2.5)), (0, np.int64(2)), (0, np.bool_(True)),
    (0, True), (0, 2 ** 63), (0, 1e300),
]


@pytest.mark.parametrize("grad", [True, False])
@pytest.mark.parametrize("k,value", SET_CASES, ids=[f"{c[0]!r}={getattr(c[1], '__name__', c[1])!r}"[:50]
                                                     for c in SET_CASES])
def test_setitem_matches_torch(k, value, grad):
    assert_same(_outcome(lambda: _set(torch, k, value, grad=grad)),
                _outcome(lambda: _set(ot, k, value, grad=grad)), f"x[{k!r}] = {value!r}")


SCALAR_VALUES = [1e20, float("nan"), float("inf"), -1.5, 300, -1, -255, -256, 2 ** 40, 1 + 0j,
                 1 + 1j, True, 1e300]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "float16",
                                   "float32", "float64", "bool"])
@pytest.mark.parametrize("v", SCALAR_VALUES, ids=[repr(v) for v in SCALAR_VALUES])
def test_setitem_scalar_conversion_matches_torch(v, dtype):
    def f(L):
        z = L.zeros(2, dtype=getattr(L, dtype))
        z[0] = v
        return dict(vals=z.numpy().tolist(), version=z._version)
    assert_same(_outcome(lambda: f(torch)), _outcome(lambda: f(ot)), f"{dtype}[0] = {v!r}")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(_item(4), min_size=1, max_size=3).map(tuple), st.sampled_from([2.5, "t0", "tfull"]))
def test_setitem_generated_keys_match_torch(k, kind):
    def value(L):
        if kind == "t0":
            return L.tensor(-1.0, dtype=L.float64)
        if kind == "tfull":   # a value of the indexed region's shape, found through getitem
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                shape = tuple(torch.zeros(SHAPE)[conv(k, torch)].shape)
            return -(L.arange(float(np.prod(shape)), dtype=L.float64).reshape(shape) + 1)
        return kind
    assert_same(_outcome(lambda: _set(torch, k, value)), _outcome(lambda: _set(ot, k, value)),
                f"x[{k!r}] = {kind}")


def test_setitem_version_and_copyslices_on_a_view_of_a_non_leaf():
    """In place through a view: the base's grad_fn is CopySlices, the view's a view node of
    the rewritten base, one version bump for base and view (shared counter)."""
    out = []
    for L in (torch, ot):
        a = L.arange(12.0, dtype=L.float64).reshape(3, 4).requires_grad_(True)
        x = a * 2
        v = x[1]
        n0 = x._version
        v[[0, 2]] = L.tensor([7.0, 8.0], dtype=L.float64)
        x.sum().backward()
        out.append((type(x.grad_fn).__name__, x._version - n0, v._version - n0,
                    x.tolist(), a.grad.tolist()))
    assert out[0] == out[1]


SELF_VALUE_WRITES = {
    "row_from_row": lambda x: x.__setitem__(0, x[1]),
    "rows_from_rows": lambda x: x.__setitem__(slice(1, None), x[:2]),
    "index_from_row": lambda x: x.__setitem__([2], x[0]),
    "index_from_slice": lambda x: x.__setitem__([1, 2], x[:2]),
    "mask_from_element": lambda x: x.__setitem__(x > 5, x[0, 0]),
    "index_from_clone": lambda x: x.__setitem__([1, 2], x[:2].clone()),
}


@pytest.mark.parametrize("name", list(SELF_VALUE_WRITES))
def test_setitem_from_its_own_memory_matches_torch(name):
    """index_put_ refuses a value whose memory range meets the destination's
    (at::assert_no_overlap); copy_ refuses only a partial overlap."""
    f = SELF_VALUE_WRITES[name]

    def run(L):
        x = L.arange(12.0, dtype=L.float64).reshape(3, 4)
        before = x.tolist()
        try:
            f(x)
        except Exception:
            if L is ot:
                assert x.tolist() == before and x._version == 0
            raise
        return dict(vals=x.tolist(), version=x._version)
    assert_same(_outcome(lambda: run(torch)), _outcome(lambda: run(ot)), name)


def test_setitem_on_a_leaf_refuses_as_torch():
    for k in (0, slice(None), Ellipsis, [0], (0, [1])):
        t = _outcome(lambda: torch.zeros(3, 4, requires_grad=True).__setitem__(k, 1.0))
        o = _outcome(lambda: ot.zeros(3, 4, requires_grad=True).__setitem__(k, 1.0))
        assert t[0] == o[0] == "err" and isinstance(o[1], type(t[1])), k


def test_delitem_is_a_type_error():
    with pytest.raises(TypeError):
        del torch.zeros(3)[0]
    with pytest.raises(TypeError, match="does not support deleting items"):
        del ot.zeros(3)[0]


def test_sequence_as_tuple_warns_as_torch():
    for k in ([0, [1]], [None], [slice(None), 0]):
        with pytest.warns(UserWarning, match="non-tuple sequence"):
            torch.zeros(3, 4)[k]
        with pytest.warns(UserWarning, match="non-tuple sequence"):
            ot.zeros(3, 4)[k]


# ------------------------------------------------------------------ expanded tensors
def _expanded(L):
    return L.zeros(1, 4).expand(3, 4)


EXPANDED_WRITES = {
    "row": lambda L, x: x.__setitem__(0, 1.0),
    "row_tensor": lambda L, x: x.__setitem__(0, L.arange(4.0)),
    "element": lambda L, x: x.__setitem__((0, 1), 5.0),
    "row_from_row": lambda L, x: x.__setitem__(0, x[1]),
    "all_slice": lambda L, x: x.__setitem__(slice(None), 1.0),
    "all_ellipsis": lambda L, x: x.__setitem__(Ellipsis, 1.0),
    "column": lambda L, x: x.__setitem__((slice(None), 0), 7.0),
    "index_list": lambda L, x: x.__setitem__([0, 1], 3.0),
    "index_pairs": lambda L, x: x.__setitem__((L.tensor([0, 1]), L.tensor([0, 0])), L.tensor([1.0, 2.0])),
    "mask": lambda L, x: x.__setitem__(L.tensor([[True, False, False, False]] * 3), 2.0),
    "masked_fill_": lambda L, x: x.masked_fill_(L.tensor([[True, False, False, False]] * 3), 2.0),
    "index_put_": lambda L, x: x.index_put_((L.tensor([0, 1]),), L.tensor(3.0)),
    "add_": lambda L, x: x.add_(1),
    "row_add_": lambda L, x: x[1].add_(1),
    "copy_": lambda L, x: x.copy_(L.ones(3, 4)),
    "fill_number": lambda L, x: x.fill_(1.0),
    "fill_tensor": lambda L, x: x.fill_(L.tensor(1.0)),
    "zero_": lambda L, x: x.zero_(),
}


@pytest.mark.parametrize("name", list(EXPANDED_WRITES))
def test_writes_into_expanded_tensors_match_torch(name):
    f = EXPANDED_WRITES[name]

    def run(L):
        x = _expanded(L)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f(L, x)
        warned = any("expanded tensors is deprecated" in str(i.message) for i in w)
        return dict(vals=x.tolist(), base=x._base.tolist(), version=x._version, warned=warned)
    assert_same(_outcome(lambda: run(torch)), _outcome(lambda: run(ot)), name)


@pytest.mark.parametrize("name", ["row", "element", "index_list", "index_pairs", "mask",
                                  "masked_fill_", "fill_number", "zero_", "row_add_"])
def test_gradients_through_writes_into_expanded_views_match_torch(name):
    """The expanded tensor is a view of a non-leaf: torch's CopySlices refuses at backward
    when the written view overlaps itself, and gives the gradient otherwise."""
    f = EXPANDED_WRITES[name]

    def run(L):
        a = L.arange(4.0, dtype=L.float64).reshape(1, 4).requires_grad_(True)
        b = a * 1
        x = b.expand(3, 4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f(L, x)
        out = dict(vals=b.tolist(), grad_fn=_grad_name(b))
        ((b * (L.arange(4.0, dtype=L.float64) + 1)).sum()).backward()
        out["grad"] = a.grad.tolist()
        return out
    assert_same(_outcome(lambda: run(torch)), _outcome(lambda: run(ot)), name)


def test_paddle_door_keeps_refusing_writes_into_expanded_tensors():
    """Paddle's expand copies, so a write there changes one row: oar's Paddle door, whose
    expand is a view, refuses these writes as before (Note [Writes into expanded tensors])."""
    for f in (lambda x: x.__setitem__([0, 1], 3.0),
              lambda x: x.masked_fill_(oar.to_tensor([[True, False, False, False]] * 3), 2.0),
              lambda x: x.index_put_((oar.to_tensor([0, 1]),), oar.to_tensor(3.0))):
        x = oar.zeros([1, 4]).expand([3, 4])
        with pytest.raises(RuntimeError, match="more than one element"):
            f(x)
        assert x.numpy().tolist() == [[0.0] * 4] * 3


def test_paddle_door_indexing_keeps_paddles_meaning():
    """The Paddle door keeps its NumPy-style rules where torch differs, checked against Paddle."""
    paddle = pytest.importorskip("paddle")
    a = np.arange(60.0, dtype=np.float32).reshape(SHAPE)
    for k in ([0, 2], (slice(None), [0, 2]), (slice(1, 3), 0), (None, 1)):
        want = paddle.to_tensor(a)[k].numpy()
        got = oar.to_tensor(a)[k].numpy()
        assert got.shape == want.shape and np.array_equal(got, want), k
    x = oar.zeros([3, 4])
    x[0] = np.arange(4.0)     # Paddle takes an ndarray value (torch: TypeError)
    p = paddle.zeros([3, 4])
    p[0] = np.arange(4.0)
    assert np.array_equal(x.numpy(), p.numpy())
