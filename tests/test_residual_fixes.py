"""Regression tests for the residual bad-input fixes of issue 8 (reductions, creation, random,
Tensor conversions, places): every hand-written public function whose first argument must be
a tensor checks it in one place (args.input_tensor / args.tensor) and raises TypeError (an
ArgTypeError, also a RuntimeError) for junk, never an AttributeError; exception types are
compared with PyTorch's where PyTorch has the function."""
from __future__ import annotations

import numpy as np
import pytest

import oar
from oar.autograd.errors import ArgTypeError, ArgValueError

torch = pytest.importorskip("torch")

# name -> (oar call on x, torch call on x, or None where PyTorch has no such function)
FIRST_ARG = {
    "all": (lambda x: oar.all(x), lambda x: torch.all(x)),
    "any": (lambda x: oar.any(x), lambda x: torch.any(x)),
    "amax": (lambda x: oar.amax(x), lambda x: torch.amax(x)),
    "amin": (lambda x: oar.amin(x), lambda x: torch.amin(x)),
    "max": (lambda x: oar.max(x), lambda x: torch.max(x)),
    "min": (lambda x: oar.min(x), lambda x: torch.min(x)),
    "argmax": (lambda x: oar.argmax(x), lambda x: torch.argmax(x)),
    "argmin": (lambda x: oar.argmin(x), lambda x: torch.argmin(x)),
    "sum": (lambda x: oar.sum(x), lambda x: torch.sum(x)),
    "mean": (lambda x: oar.mean(x), lambda x: torch.mean(x)),
    "prod": (lambda x: oar.prod(x), lambda x: torch.prod(x)),
    "logsumexp": (lambda x: oar.logsumexp(x, 0), lambda x: torch.logsumexp(x, 0)),
    "std": (lambda x: oar.std(x), lambda x: torch.std(x)),
    "var": (lambda x: oar.var(x), lambda x: torch.var(x)),
    "count_nonzero": (lambda x: oar.count_nonzero(x), lambda x: torch.count_nonzero(x)),
    "bernoulli": (lambda x: oar.bernoulli(x), lambda x: torch.bernoulli(x)),
    "multinomial": (lambda x: oar.multinomial(x, 1), lambda x: torch.multinomial(x, 1)),
    "zeros_like": (lambda x: oar.zeros_like(x), lambda x: torch.zeros_like(x)),
    "ones_like": (lambda x: oar.ones_like(x), lambda x: torch.ones_like(x)),
    "empty_like": (lambda x: oar.empty_like(x), lambda x: torch.empty_like(x)),
    "full_like": (lambda x: oar.full_like(x, 1.0), lambda x: torch.full_like(x, 1.0)),
    "numel": (lambda x: oar.numel(x), lambda x: torch.numel(x)),
    "from_numpy": (lambda x: oar.from_numpy(x), lambda x: torch.from_numpy(x)),
    "shape": (lambda x: oar.shape(x), None),
}
JUNK = [None, "x", {"a": 1}, object()]


def _raised(fn, *a):
    try:
        fn(*a)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return e
    return None


@pytest.mark.parametrize("junk", JUNK, ids=["None", "str", "dict", "object"])
@pytest.mark.parametrize("name", sorted(FIRST_ARG))
def test_first_argument_junk_is_a_type_error_as_in_torch(name, junk):
    ours, theirs = FIRST_ARG[name]
    err = _raised(ours, junk)
    assert err is not None, f"oar.{name}({junk!r}) did not raise"
    assert not isinstance(err, AttributeError), f"oar.{name}: AttributeError leaked: {err}"
    assert isinstance(err, TypeError) and isinstance(err, RuntimeError), (name, type(err), err)
    assert name in str(err)
    if theirs is not None:
        terr = _raised(theirs, junk)
        assert terr is not None and isinstance(err, type(terr)), (name, type(terr), type(err))


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "full_like",
                                  "numel", "from_numpy"])
def test_functions_that_take_only_tensors_refuse_a_list_as_torch(name):
    ours, theirs = FIRST_ARG[name]
    err, terr = _raised(ours, [1.0, 2.0]), _raised(theirs, [1.0, 2.0])
    assert isinstance(terr, TypeError) and isinstance(err, TypeError), (type(terr), type(err))


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "max", "argmax", "std", "var",
                                  "logsumexp", "all", "any", "count_nonzero", "prod"])
def test_reductions_still_accept_array_likes(name):
    ours, _ = FIRST_ARG[name]
    data = [[1.0, 4.0, 2.0], [3.0, 0.5, 6.0]]
    got = ours(data)
    want = ours(oar.to_tensor(np.array(data, dtype=np.float32)))
    np.testing.assert_allclose(np.asarray(got.numpy(), dtype=np.float64),
                               np.asarray(want.numpy(), dtype=np.float64), rtol=1e-5)


# ------------------------------------------------------------------ empty max/min/argmax
EMPTY = [
    ("argmax", lambda m: m.argmax(m.zeros([0]) if m is oar else m.zeros(0))),
    ("argmax dim", lambda m: m.argmax(m.zeros([2, 0]) if m is oar else m.zeros(2, 0), 1)),
    ("amax", lambda m: m.amax(m.zeros([0]) if m is oar else m.zeros(0))),
    ("amin dim", lambda m: m.amin(m.zeros([2, 0]) if m is oar else m.zeros(2, 0), 1)),
    ("max", lambda m: m.max(m.zeros([0]) if m is oar else m.zeros(0))),
    ("max dim", lambda m: m.max(m.zeros([2, 0]) if m is oar else m.zeros(2, 0), 1)),
    ("min", lambda m: m.min(m.zeros([0]) if m is oar else m.zeros(0))),
]


@pytest.mark.parametrize("case", EMPTY, ids=[c[0] for c in EMPTY])
def test_extreme_of_nothing_raises_as_torch(case):
    _, call = case
    terr, err = _raised(call, torch), _raised(call, oar)
    assert terr is not None and isinstance(err, type(terr)), (type(terr), type(err), err)
    assert isinstance(err, IndexError) and isinstance(err, RuntimeError)  # both of torch's


def test_extreme_over_a_nonempty_axis_of_an_empty_tensor_is_fine():
    x = oar.zeros([0, 3])
    assert oar.amax(x, axis=1).shape == [0] and tuple(torch.amax(torch.zeros(0, 3), 1).shape) == (0,)
    assert oar.argmax(x, axis=1).shape == [0]
    r = oar.logsumexp(oar.zeros([0]), 0)
    assert float(r) == float(torch.logsumexp(torch.zeros(0), 0)) == -np.inf


# ------------------------------------------------------------------ dtypes and arguments
def _n():
    return oar.to_tensor(np.arange(6, dtype=np.int64).reshape(2, 3))


@pytest.mark.parametrize("name", ["mean", "std", "var"])
def test_integer_statistics_raise_runtime_error(name):
    err = _raised(getattr(oar, name), _n())
    terr = _raised(getattr(torch, name), torch.arange(6).reshape(2, 3))
    assert isinstance(err, type(terr)) and isinstance(err, RuntimeError), (type(terr), err)


def test_std_correction_must_be_a_number_and_may_be_fractional():
    x = oar.to_tensor(np.array([1.0, 2.0, 4.0], np.float32))
    tx = torch.tensor([1.0, 2.0, 4.0])
    err = _raised(lambda: oar.std(x, correction="a"))
    assert isinstance(err, type(_raised(lambda: torch.std(tx, correction="a")))), err
    np.testing.assert_allclose(float(oar.std(x, correction=0.5)),
                               float(torch.std(tx, correction=0.5)), rtol=1e-6)
    np.testing.assert_allclose(float(oar.var(x, correction=0)),
                               float(torch.var(tx, correction=0)), rtol=1e-6)


RANDOM = [
    ("bernoulli p > 1", lambda m, T: m.bernoulli(T([0.5, 1.5]))),
    ("bernoulli nan", lambda m, T: m.bernoulli(T([float("nan")]))),
    ("bernoulli int", lambda m, T: m.bernoulli(T([0, 1]))),
    ("multinomial negative", lambda m, T: m.multinomial(T([1.0, -1.0, 2.0]), 1)),
    ("multinomial inf", lambda m, T: m.multinomial(T([1.0, float("inf")]), 1)),
    ("multinomial zero sum", lambda m, T: m.multinomial(T([[1.0, 0.0], [0.0, 0.0]]), 1)),
    ("multinomial too many", lambda m, T: m.multinomial(T([1.0, 2.0, 3.0]), 5)),
    ("multinomial zero samples", lambda m, T: m.multinomial(T([1.0, 2.0]), 0)),
    ("multinomial negative samples", lambda m, T: m.multinomial(T([1.0, 2.0]), -1)),
    ("multinomial float samples", lambda m, T: m.multinomial(T([1.0, 2.0]), 1.5)),
    ("multinomial 3-D", lambda m, T: m.multinomial(T([[[1.0, 2.0]]]), 1)),
    ("multinomial int", lambda m, T: m.multinomial(T([1, 2]), 1)),
]


@pytest.mark.parametrize("case", RANDOM, ids=[c[0] for c in RANDOM])
def test_random_argument_errors_match_torch(case):
    _, call = case
    terr = _raised(call, torch, torch.tensor)
    err = _raised(call, oar, oar.to_tensor)
    assert terr is not None and err is not None, (terr, err)
    # torch's NotImplementedError (an unsupported dtype) is a RuntimeError: oar's is too
    want = RuntimeError if isinstance(terr, RuntimeError) else type(terr)
    assert isinstance(err, want), (type(terr), type(err), err)


def test_multinomial_samples_valid_categories():
    oar.seed(0)
    w = oar.to_tensor(np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 0.0]], np.float32))
    s = oar.multinomial(w, 1)
    assert s.shape == [2, 1] and s.dtype == oar.int64 and int(s[1, 0]) == 0 and int(s[0, 0]) != 0
    s = oar.multinomial(w[0], 2)
    assert sorted(s.tolist()) == [1, 2]
    s = oar.multinomial(w[1], 6, replacement=True)
    assert s.tolist() == [0] * 6
    assert oar.multinomial(oar.ones([0, 3]), 1).shape == [0, 1]


def test_bernoulli_keeps_dtype_and_values():
    oar.seed(0)
    p = oar.to_tensor(np.array([0.0, 1.0, 1.0, 0.0], np.float64))
    r = oar.bernoulli(p)
    assert r.dtype == oar.float64 and r.tolist() == [0.0, 1.0, 1.0, 0.0]


def test_inplace_float_into_int_refused_and_unchanged():
    n = _n()
    tn = torch.arange(6).reshape(2, 3)
    for ours, theirs in [(lambda: n.clamp_(0.5), lambda: tn.clamp_(0.5)),
                         (lambda: n.clamp_(max=2.5), lambda: tn.clamp_(max=2.5)),
                         (lambda: n.clip_(0.5, 3), lambda: tn.clip_(0.5, 3))]:
        err, terr = _raised(ours), _raised(theirs)
        assert isinstance(err, type(terr)) and isinstance(err, RuntimeError), (type(terr), err)
    assert isinstance(_raised(lambda: oar.scale_(n, scale=0.5)), RuntimeError)
    assert isinstance(_raised(lambda: oar.scale_(n, scale=2, bias=0.5)), RuntimeError)
    assert n.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert n.clamp_(1, 3).tolist() == [[1, 1, 2], [3, 3, 3]]
    assert oar.scale_(n, scale=2).tolist() == [[2, 2, 4], [6, 6, 6]]   # default bias 0.0


# ------------------------------------------------------------------ Tensor conversions, places
def test_item_and_bool_of_several_elements():
    x = oar.to_tensor(np.ones((2, 3), np.float32))
    tx = torch.ones(2, 3)
    for ours, theirs in [(x.item, tx.item), (lambda: bool(x), lambda: bool(tx))]:
        err, terr = _raised(ours), _raised(theirs)
        assert isinstance(err, type(terr)), (type(terr), type(err))
        assert isinstance(err, ValueError)   # Paddle's class still catches it
        assert isinstance(err, ArgValueError)
    assert oar.to_tensor([2.5]).item() == 2.5 and bool(oar.to_tensor([1])) is True


def test_place_checks_kind_and_index():
    assert isinstance(_raised(oar.Place, "bogus"), type(_raised(torch.device, "bogus")))
    assert isinstance(_raised(oar.Place, "cpu", -1), type(_raised(torch.device, "cpu", -1)))
    assert isinstance(_raised(oar.Place, 3), TypeError)
    assert isinstance(_raised(oar.Place, "cpu", "0"), ArgTypeError)
    assert oar.Place("cpu") == oar.CPUPlace() and repr(oar.Place()) == "Place(cpu)"
    assert oar.Place("gpu", 1).is_gpu_place()


def test_numel_and_shape_of_tensors():
    x = oar.zeros([2, 3])
    assert oar.numel(x) == 6 and oar.shape(x) == [2, 3]
