"""Creation functions in PyTorch's spelling against torch 2.13: shape, dtype, strides,
requires_grad and (except for empty/empty_like, whose memory is uninitialised) values."""
import numpy as np
import pytest

import oar
import oar.torch  # noqa: F401
from tests.reference.harness import tensor_diffs, torch

# name -> L -> tensor (the same code on both frameworks)
CASES = {
    "zeros": lambda L: L.zeros(2, 3),
    "zeros_int": lambda L: L.zeros(2, 3, dtype=L.int64),
    "ones": lambda L: L.ones((3,)),
    "ones_requires_grad": lambda L: L.ones(2, requires_grad=True),
    "full": lambda L: L.full((2, 2), 1.5),
    "full_int": lambda L: L.full((2,), 3),
    "arange": lambda L: L.arange(5),
    "arange_float": lambda L: L.arange(0.0, 1.0, 0.25),
    "arange_step": lambda L: L.arange(1, 10, 3),
    "linspace": lambda L: L.linspace(0, 1, 5),
    "eye": lambda L: L.eye(3),
    "eye_rect": lambda L: L.eye(2, 3),
    "tensor_int": lambda L: L.tensor([1, 2]),
    "tensor_float": lambda L: L.tensor([1.0, 2]),
    "tensor_bool": lambda L: L.tensor(True),
    "zeros_like": lambda L: L.zeros_like(L.ones(2, dtype=L.int64)),
    "ones_like": lambda L: L.ones_like(L.ones(2), dtype=L.float64),
    "full_like": lambda L: L.full_like(L.ones(2, 3), 7),
    "empty": lambda L: L.empty(2, 3),
    "empty_dtype": lambda L: L.empty((2, 3), dtype=L.float64),
    "empty_like": lambda L: L.empty_like(L.ones(2, 3, dtype=L.int64)),
    "from_numpy": lambda L: L.from_numpy(np.arange(6.0).reshape(2, 3)),   # (oar copies: docstring)
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_creation_matches_torch(name):
    a, b = CASES[name](oar.torch), CASES[name](torch)     # PyTorch's spellings: its door
    assert tuple(a.stride()) == tuple(b.stride())
    assert bool(a.requires_grad) == bool(b.requires_grad)
    if name.startswith("empty"):   # uninitialised memory: shape and dtype only
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        return
    assert tensor_diffs(name, a, b, 0.0, 0.0) == []

