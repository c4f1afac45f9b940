import gc
import os

import numpy as np
import pytest
from hypothesis import settings

import oar

# other projects' test files, fetched locally (git-ignored) and run by their own harness in a
# subprocess (tests/test_paddle_own_inplace.py): never collected as our tests
collect_ignore = ["programs/external"]

# the ported tests' shared assertions (a helper module, not a test module) get pytest's
# assert introspection too
pytest.register_assert_rewrite("tests.torch_testcase")

# CI runs a fixed, reproducible set of hypothesis examples; local runs draw new ones (hunting)
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def no_gc():
    """Exact byte counts (oar.device.memory_allocated deltas) need the cyclic collector
    quiet: a collection that happens to run inside the measured call frees earlier
    tests' tensors and the delta comes out short. Held off for the test (not collected
    first: with torch and paddle loaded a full collection costs about a second)."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture(autouse=True)
def _seed():
    oar.seed(0)
    np.random.seed(0)


def noncontig(arr):
    """The same values as `arr`, as an oar tensor whose memory is not contiguous."""
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return oar.to_tensor(arr)
    big = oar.to_tensor(np.stack([arr, arr * 0 + 7], axis=-1))
    t = big[..., 0]
    assert not t.is_contiguous() or arr.size <= 1
    np.testing.assert_array_equal(t.numpy(), arr)
    return t
