"""Dropout's mask follows the input's memory layout, as torch's `empty_like(input).bernoulli_`
does: a permuted dense input (a batch_first attention output, a transposed activation) draws its
mask in memory order, a sliced one in logical order. Compared with torch 2.13 from one seed."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import oar.torch as otorch  # noqa: E402


def _draw(lib, make, inplace):
    lib.manual_seed(0)
    x = make(lib)
    out = lib.nn.functional.dropout(x, 0.5, True, inplace)
    return out.detach().contiguous().numpy(), tuple(out.stride())


def _base(lib):
    data = np.random.default_rng(1).standard_normal((6, 3, 8)).astype(np.float32) + 3
    return lib.from_numpy(data.copy())


LAYOUTS = {
    "contiguous": lambda lib: _base(lib),
    "transposed": lambda lib: _base(lib).transpose(0, 1),
    "permuted": lambda lib: _base(lib).permute(2, 0, 1),
    "sliced": lambda lib: _base(lib)[:, :, ::2],
    "sliced-transposed": lambda lib: _base(lib)[::2].transpose(0, 2),
    "expanded": lambda lib: _base(lib)[:1].expand(4, 3, 8),
}


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_dropout_mask_matches_torch_for_each_layout(layout, inplace):
    if inplace and layout == "expanded":
        pytest.skip("in-place on an expanded tensor is refused by both")
    want, want_strides = _draw(torch, LAYOUTS[layout], inplace)
    got, got_strides = _draw(otorch, LAYOUTS[layout], inplace)
    np.testing.assert_array_equal(got, want)
    assert got_strides == want_strides
