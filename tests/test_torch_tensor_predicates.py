"""Tensor predicates of the torch door (is_floating_point, is_signed, is_nonzero, is_same_size)
as methods, against torch 2.13 for every dtype the door has."""
import pytest

torch = pytest.importorskip("torch")
import oar.torch as otorch  # noqa: E402

DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8",
          "int16", "int32", "int64", "uint8", "bool"]


@pytest.mark.parametrize("name", DTYPES)
def test_dtype_predicates_as_methods(name):
    t = torch.zeros(2, dtype=getattr(torch, name))
    o = otorch.zeros(2, dtype=getattr(otorch, name))
    assert o.is_floating_point() == t.is_floating_point()
    assert o.is_signed() == t.is_signed()
    assert o.is_complex() == t.is_complex()


def test_is_nonzero_and_is_same_size():
    for lib in (torch, otorch):
        assert lib.ones(1).is_nonzero() and not lib.zeros(1, 1).is_nonzero()
        with pytest.raises(RuntimeError, match="ambiguous"):
            lib.ones(2).is_nonzero()
        assert lib.ones(2, 3).is_same_size(lib.zeros(2, 3))
        assert not lib.ones(2, 3).is_same_size(lib.zeros(3, 2))
