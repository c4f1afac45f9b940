"""A list or tuple where a binary op takes a tensor or a number: PyTorch 2.13 raises
TypeError, Paddle 3.3.1 ValueError (functions) or TypeError (operators), and `x == [..]` is
False in both; oar refused none of them and read the list as a tensor."""
import numpy as np
import pytest

import oar
import oar.torch as ot

torch = pytest.importorskip("torch")
paddle = pytest.importorskip("paddle")

CALLS = {
    "method add": lambda m, x: x.add([1.0, 2.0]),
    "function add": lambda m, x: m.add(x, [1.0, 2.0]),
    "method mul": lambda m, x: x.multiply([1.0, 2.0]) if m in (paddle, oar) else x.mul([1.0, 2.0]),
    "in-place add_": lambda m, x: x.add_([1.0, 2.0]),
    "pow_": lambda m, x: x.pow_([2]),
    "operator +": lambda m, x: x + [1.0, 2.0],
    "operator * tuple": lambda m, x: x * (2.0,),
    "maximum": lambda m, x: m.maximum(x, [1.0, 2.0]),
}


def _raised(fn):
    try:
        fn()
    except Exception as e:   # noqa: BLE001 - the class is what is compared
        return e
    return None


@pytest.mark.parametrize("name", sorted(CALLS))
def test_sequence_operands_are_refused_as_each_framework(name):
    for real, door, make in ((torch, ot, lambda m: m.tensor([1.0, 2.0])),
                             (paddle, oar, lambda m: m.to_tensor([1.0, 2.0]))):
        want = _raised(lambda: CALLS[name](real, make(real)))
        if want is None:
            continue   # the framework takes it (none does today); nothing to compare
        x = make(door)
        got = _raised(lambda: CALLS[name](door, x))
        assert got is not None, (name, door.__name__)
        assert isinstance(got, (type(want), TypeError, ValueError)), (got, want)
        if type(want) in (TypeError, ValueError):
            assert isinstance(got, type(want)), (got, want)
        np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])   # nothing written
        assert x._version == 0
        # the argument as the framework names it: torch's 'other' (paddle names none)
        if real is torch and "'other'" in str(want):
            assert "'other'" in str(got), (got, want)


def test_comparing_with_a_list_is_false_as_both_frameworks():
    for m, make in ((torch, torch.tensor), (ot, ot.tensor), (paddle, paddle.to_tensor),
                    (oar, oar.to_tensor)):
        x = make([1.0, 2.0])
        assert (x == [1.0, 2.0]) is False and (x != [1.0, 2.0]) is True, m.__name__
