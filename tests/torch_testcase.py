"""What the ported PyTorch tests (tests/test_torch_*_ported.py) share: the two-framework
`door` fixture and `TorchTestCase`, with the unittest / torch.testing assertions their bodies use.

A ported test body is written against module-level names (`torch`, `Function`, ...) the way
PyTorch's own test files are. `door_fixture` makes the fixture that binds those names for one
run: first to torch 2.13 (the oracle: a test that fails there is not faithful), then to
oar.torch. So each ported test runs twice and only the oar run can show a defect of ours.

`TorchTestCase.assertEqual` follows torch.testing's rules, not unittest's: tensors must agree in
shape and dtype, and values within the default tolerance of their dtype (exact for integers
and bool); a tensor against a NumPy array or a number compares by value."""
import contextlib
import re

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import oar  # noqa: E402
import oar.torch as oar_torch  # noqa: E402

DOORS = ("torch", "oar")

# torch.testing's default (rtol, atol) per floating dtype
_DEFAULT_TOLERANCE = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5),
                      "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def _binders():
    """For each name a ported test may use, how to find it in one framework."""
    return {
        "torch": lambda t: t,
        "Function": lambda t: t.autograd.Function,
        # not every framework has InplaceFunction; a test that needs it skips on None
        "InplaceFunction": lambda t: getattr(getattr(t.autograd, "function", None),
                                             "InplaceFunction", None),
        "gradcheck": lambda t: t.autograd.gradcheck,
        "gradgradcheck": lambda t: t.autograd.gradgradcheck,
    }


# PyTorch's tests (checked in our words) that oar.torch does not pass yet, with the reason;
# the door table in docs/doors.md lists the same. Each is a strict xfail on the oar door only.
OAR_DIFFERS = {
    "test_memory_format_resize_as": "memory formats (channels_last) are not provided",
    "test_memory_format_resize_": "memory formats (channels_last) are not provided",
    "test_contiguous": "Tensor.set_ with a Storage object: oar has no Storage objects",
    "test_version_counter": ("`x.data = y`: torch keeps x's version counter; oar keeps one "
                             "counter per storage, so x takes y's"),
    "test_grad_nonleaf_register_hook": ("a hook on an unbind/split output that gets no "
                                        "gradient is not called with None: each output of a "
                                        "multi-output view has its own node in oar"),
    "test_inplace_on_view_backward": ("double backward through an in-place op on a view: the "
                                      "values agree, the graph's nodes differ "
                                      "(ViewScatterBackward0 where torch has "
                                      "ThresholdBackwardBackward0)"),
}


def door_fixture(namespace, names=("torch",), *, autouse=True, setup=None):
    """A fixture, parametrized over DOORS, that binds `names` in `namespace` (a test module's
    globals()) to one framework for the test and puts the previous values back afterwards.

    `setup(torch)`, when given, is a generator function run around the test with `torch`
    already bound (seeding, a default dtype to set and restore): code before its `yield` runs
    before the test, code after it at teardown."""
    binders = _binders()
    unknown = set(names) - set(binders)
    if unknown:
        raise ValueError(f"door_fixture: no binding for {sorted(unknown)}; "
                         f"known names are {sorted(binders)}")
    around = contextlib.contextmanager(setup) if setup is not None else None

    @pytest.fixture(autouse=autouse, params=DOORS)
    def door(request):
        framework = real_torch if request.param == "torch" else oar_torch
        reason = OAR_DIFFERS.get(request.node.originalname) if request.param == "oar" else None
        if reason is not None:   # strict: the day it passes, the entry must go
            request.node.add_marker(pytest.mark.xfail(strict=True, reason=reason))
        saved = {name: namespace.get(name) for name in names}
        namespace.update({name: binders[name](framework) for name in names})
        try:
            if around is None:
                yield request.param
            else:
                with around(framework):
                    yield request.param
        finally:
            namespace.update(saved)

    return door


# ------------------------------------------------------------------ values of either framework
def is_tensor(x):
    # oar.Tensor, not only oar.torch.Tensor: a value that slipped out of the torch door as a
    # Paddle-door tensor still compares by value (and then fails on what differs)
    return isinstance(x, (real_torch.Tensor, oar.Tensor))


def dtype_name(x):
    """'float32' for torch.float32 and oar.torch.float32 alike."""
    return str(x.dtype).rsplit(".", 1)[-1]


def to_numpy(x):
    """A tensor of either framework as a fresh ndarray (bfloat16, which NumPy lacks, widened
    to float32 exactly); anything else through np.asarray."""
    if is_tensor(x):
        x = x.detach()
        if dtype_name(x) == "bfloat16":
            x = x.float()
        return np.array(x.numpy())
    return np.asarray(x)


def float_values(x):
    """A tensor as a float64 ndarray, for comparing values across frameworks regardless of
    dtype; anything else unchanged."""
    return to_numpy(x).astype(np.float64) if is_tensor(x) else x


class Raises:
    """Context manager: the block must raise `exc` (a subclass is fine) with a message that
    `regex` matches, when one is given. Any other exception propagates unchanged."""

    def __init__(self, exc, regex=None):
        self.exc, self.regex = exc, regex

    def __enter__(self):
        return self

    def __exit__(self, typ, val, tb):
        if typ is None:
            raise AssertionError(f"{self.exc.__name__} not raised")
        if not issubclass(typ, self.exc):
            return False
        if self.regex is not None:
            assert re.search(self.regex, str(val)), f"{self.regex!r} not in {str(val)!r}"
        return True


def _array_like(x):
    return is_tensor(x) or isinstance(x, np.ndarray)


def _tolerance(a, b, rtol, atol):
    """The caller's tolerance where given, else the default of the tensor operand's dtype
    (the first one's when both are tensors); exact where neither is a floating tensor."""
    t = a if is_tensor(a) else b
    default = _DEFAULT_TOLERANCE.get(dtype_name(t), (0, 0)) if is_tensor(t) else (0, 0)
    return (default[0] if rtol is None else rtol), (default[1] if atol is None else atol)


def assert_same(a, b, rtol=None, atol=None, exact_dtype=True, msg=None):
    """torch.testing's notion of equal (see the module docstring); sequences holding tensors
    or arrays compare item by item."""
    if (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
            and any(_array_like(v) for v in (*a, *b))):
        assert len(a) == len(b), f"lengths {len(a)} != {len(b)}"
        for u, v in zip(a, b):
            assert_same(u, v, rtol, atol, exact_dtype, msg)
        return
    if _array_like(a) or _array_like(b):
        if is_tensor(a) and is_tensor(b):
            assert tuple(a.shape) == tuple(b.shape), f"shapes {a.shape} != {b.shape}"
            if exact_dtype:
                assert dtype_name(a) == dtype_name(b), f"dtypes {a.dtype} != {b.dtype}"
        x, y = to_numpy(a), to_numpy(b)
        if x.shape != y.shape and (x.size == 1 or y.size == 1):
            # a one-element side stands for a number
            x, y = np.broadcast_arrays(x, y)
        assert x.shape == y.shape, f"shapes {x.shape} != {y.shape}"
        rtol, atol = _tolerance(a, b, rtol, atol)
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":
            np.testing.assert_allclose(x.astype(np.float64), y.astype(np.float64),
                                       rtol=rtol, atol=atol, equal_nan=True, err_msg=msg or "")
        else:
            assert np.array_equal(x, y), msg or f"{x} != {y}"
        return
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        assert tuple(a) == tuple(b), msg or f"{a} != {b}"
        return
    assert a == b, msg or f"{a} != {b}"


class TorchTestCase:
    """The unittest / torch.testing TestCase assertions the ported test bodies call."""

    def assertTrue(self, x, msg=None):   # noqa: N802
        assert x, msg

    def assertFalse(self, x, msg=None):   # noqa: N802
        assert not x, msg

    def assertIs(self, a, b):   # noqa: N802
        assert a is b

    def assertIsNot(self, a, b):   # noqa: N802
        assert a is not b

    def assertIsNone(self, x):   # noqa: N802
        assert x is None

    def assertIsNotNone(self, x):   # noqa: N802
        assert x is not None

    def assertEqual(self, a, b, msg=None, *, rtol=None, atol=None, exact_dtype=True):   # noqa: N802
        assert_same(a, b, rtol, atol, exact_dtype, msg)

    def assertNotEqual(self, a, b, msg=None):   # noqa: N802
        try:
            assert_same(a, b)
        except AssertionError:
            return
        raise AssertionError(msg or f"{a} == {b}")

    def assertRaises(self, exc, fn=None):   # noqa: N802
        return self.assertRaisesRegex(exc, None, fn)

    def assertRaisesRegex(self, exc, regex=None, fn=None):   # noqa: N802
        ctx = Raises(exc, regex)
        if fn is None:
            return ctx
        with ctx:
            fn()

    def fail(self, msg=None):
        raise AssertionError(msg)
