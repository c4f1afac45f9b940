"""View-op fidelity of the torch door: PyTorch's own test/test_view_ops.py (pytorch/pytorch,
read at commit 01c12b21da48d378acb804c80e1955c7ac3f55a4), classes TestViewOps and
TestOldViewOps, re-expressed test by test.

Each test below checks what the PyTorch test of the same name checks (which op must give a
view of which base, which writes must show through, which shapes/strides/errors come out),
written here in our own words: the stored copy of PyTorch's source is reference material
whose code stays out of this repository, so the bodies are not pasted. The module-level name
`torch` is bound per run by the `door` fixture, so every test runs twice: on torch 2.13
itself (the oracle: the test is faithful to torch) and on oar.torch. The fixture and the
TestCase assertions (assertEqual compares tensors by shape, dtype and values with torch's
default tolerances) come from tests/torch_testcase.py.

Skipped, with the reason on each: complex dtypes (view_as_real/complex, real/imag, conj
views), quantized and sparse tensors, the meta device, CUDA-only checks."""
import random
from functools import partial
from itertools import combinations, permutations

import numpy as np
import pytest

pytest.importorskip("torch")
from tests.torch_testcase import TorchTestCase, door_fixture, to_numpy  # noqa: E402

torch = None   # bound by the `door` fixture

SRC = "test/test_view_ops.py@01c12b21da48d378acb804c80e1955c7ac3f55a4"


def _seeded(torch):
    random.seed(0)
    np.random.seed(0)
    yield


door = door_fixture(globals(), setup=_seeded)


class _ViewCase(TorchTestCase):
    # TestViewOps' own helpers (same meaning as PyTorch's is_view_of)
    def is_view_of(self, base, other):
        if (not other._is_view() or other is base or other._base is not base
                or base.device != other.device):
            return False
        return base.untyped_storage().data_ptr() == other.untyped_storage().data_ptr()

    def is_view_of_same_base(self, v1, v2):
        if not v1._is_view() or v1 is v2:
            return False
        return self.is_view_of(v1._base, v2)


_NEG_BROADCAST = "Attempting to broadcast a dimension with negative length"

# Real dtypes both doors have; complex ones are out of scope (oar has no complex dtype).
_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
           "float64"]


def _dt(name):
    return getattr(torch, name)


def make_tensor(shape, dtype, low=-9, high=9, requires_grad=False):
    """Random values of `dtype` in [low, high) (torch.testing.make_tensor's contract, drawn
    with NumPy so both doors get the same numbers)."""
    rng = np.random.default_rng(1)
    name = dtype if isinstance(dtype, str) else str(dtype).rsplit(".", 1)[-1]
    if name == "bool":
        a = rng.random(shape) > 0.5
    elif name.startswith(("int", "uint")):
        lo = 0 if name.startswith("uint") else low
        a = rng.integers(lo, high, size=shape).astype(name)
    else:
        a = (rng.random(shape) * (high - low) + low).astype("float32" if name == "bfloat16"
                                                            else name)
    t = torch.tensor(a, dtype=_dt(name))
    return t.requires_grad_() if requires_grad else t


# =========================================================================================
# TestViewOps
# =========================================================================================
class TestViewOps(_ViewCase):
    def test_conj_self(self):
        # SRC TestViewOps.test_conj_self: conj of a real tensor is the tensor itself
        t = torch.ones(5, 5)
        self.assertTrue(t.conj() is t)

    @pytest.mark.parametrize("dtype", [d for d in _DTYPES if d != "bool"])
    def test_view_dtype_new(self, dtype):
        # SRC TestViewOps.test_view_dtype_new (real dtypes; complex views skipped): view(dtype)
        # reinterprets the bytes in place, sizes/strides scale by the element-size ratio
        dtypes = [d for d in _DTYPES if d != "bool"]
        dt = _dt(dtype)

        def inputs():
            yield make_tensor((4, 4, 64), dt)
            yield make_tensor((4, 4, 64), dt).permute(1, 0, 2)
            yield make_tensor((4, 64, 4), dt).permute(2, 0, 1)
            yield make_tensor((1, 5, 1), dt).expand(5, 5, 64)
            yield make_tensor((2, 5, 256), dt)[1::2, 1:, ::2]
            yield make_tensor((0, 5, 64), dt)
            yield make_tensor((), dt)

        for a in inputs():
            a_np = to_numpy(a)
            for vname in dtypes:
                vdt = _dt(vname)
                size, vsize = a.element_size(), torch.empty((), dtype=vdt).element_size()
                if size != vsize and a.dim() == 0:
                    with self.assertRaisesRegex(RuntimeError, r"self.dim\(\) cannot be 0"):
                        a.view(vdt)
                    continue
                if size != vsize and a.stride(-1) != 1:
                    with self.assertRaisesRegex(RuntimeError, r"self.stride\(-1\) must be 1"):
                        a.view(vdt)
                    continue
                v = a.view(vdt)
                self.assertEqual(v.dtype, vdt)
                self.assertEqual(a.data_ptr(), v.data_ptr())
                if size == vsize:
                    exp_size, exp_stride = tuple(a.size()), a.stride()
                elif size > vsize:
                    r = size // vsize
                    exp_size = tuple(a.size())[:-1] + (a.size(-1) * r,)
                    exp_stride = tuple(s * r for s in a.stride())[:-1] + (1,)
                else:
                    r = vsize // size
                    exp_size = tuple(a.size())[:-1] + (a.size(-1) // r,)
                    exp_stride = tuple(s // r for s in a.stride())[:-1] + (1,)
                self.assertEqual(tuple(v.size()), exp_size)
                self.assertEqual(v.stride(), exp_stride)
                self.assertEqual(v.view(dt), a, rtol=0, atol=0)
                expected = (a_np if size == vsize else np.ascontiguousarray(a_np)).view(vname)
                self.assertEqual(v, expected)
        if dtype.startswith("float"):
            for vname in ("float16", "float32", "float64"):
                t = make_tensor((5, 5, 64), dt, requires_grad=True)
                self.assertFalse(t.view(_dt(vname)).requires_grad)

    @pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "float16", "int32", "float32"])
    def test_view_dtype_upsize_errors(self, dtype):
        # SRC TestViewOps.test_view_dtype_upsize_errors: a larger view dtype needs the last
        # size, the storage offset and every other stride divisible by the size ratio
        dt = _dt(dtype)
        size = torch.empty((), dtype=dt).element_size()
        for vname in _DTYPES:
            vdt = _dt(vname)
            vsize = torch.empty((), dtype=vdt).element_size()
            if vsize <= size:
                continue
            r = vsize // size
            a = make_tensor((4, 4, r + 1), dt)
            with self.assertRaisesRegex(RuntimeError, rf"self.size\(-1\) must be divisible by {r}"):
                a.view(vdt)
            with self.assertRaisesRegex(RuntimeError,
                                        rf"self.storage_offset\(\) must be divisible by {r}"):
                a[:, :, 1:].view(vdt)
            a = make_tensor((4, 4, r), dt).as_strided((4, 4, r), (r, 1, 1))
            with self.assertRaisesRegex(RuntimeError, rf"self.stride\(1\) must be divisible by {r}"):
                a.view(vdt)

    @pytest.mark.skip(reason="complex dtypes: oar has no complex dtype (view_as_complex)")
    def test_view_as_complex(self):
        pass

    @pytest.mark.skip(reason="complex dtypes: oar has no complex dtype (view_as_real)")
    def test_view_as_real(self):
        pass

    @pytest.mark.parametrize("dtype", _DTYPES)
    def test_view_tensor_split(self, dtype):
        # SRC TestViewOps.test_view_tensor_split: every piece is a view of the input
        a = make_tensor((40, 30), _dt(dtype))
        for d in (0, 1):
            for piece in a.tensor_split(7, d):
                self.assertTrue(self.is_view_of(a, piece))

    @pytest.mark.parametrize("fn,idx", [("hsplit", (2, 0, 2)), ("vsplit", (0, 2, 2)),
                                        ("dsplit", (2, 2, 0))])
    @pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
    def test_view_tensor_hvdsplit(self, fn, idx, dtype):
        # SRC TestViewOps.test_view_tensor_hsplit / _vsplit / _dsplit: views, and a write
        # to the base shows in the piece
        t = make_tensor((4, 4, 4), _dt(dtype))
        pieces = getattr(torch, fn)(t, 2)
        for p in pieces:
            self.assertTrue(self.is_view_of(t, p))
        t[2, 2, 2] = 7
        self.assertEqual(pieces[1][idx], t[2, 2, 2])

    @pytest.mark.parametrize("dtype", ["int64", "float32"])
    def test_imag_noncomplex(self, dtype):
        # SRC TestViewOps.test_imag_noncomplex: imag of a real tensor raises
        with self.assertRaises(RuntimeError):
            torch.imag(torch.ones((5, 5), dtype=_dt(dtype)))

    @pytest.mark.skip(reason="complex dtypes: real/imag/conj views need a complex dtype")
    def test_real_imag_view(self):
        pass

    @pytest.mark.skip(reason="complex dtypes: conj/imag views need a complex dtype")
    def test_conj_imag_view(self):
        pass

    @pytest.mark.skip(reason="complex dtypes: conj views with shared memory need complex")
    def test_conj_view_with_shared_memory(self):
        pass

    @pytest.mark.skip(reason="complex dtypes: setting .real/.imag needs a complex tensor")
    def test_set_real_imag(self):
        pass

    def test_diagonal_view(self):
        # SRC TestViewOps.test_diagonal_view
        t = torch.ones((5, 5))
        v = torch.diagonal(t)
        self.assertTrue(self.is_view_of(t, v))
        v[0] = 0
        self.assertEqual(t[0, 0], v[0])
        t = torch.ones((3, 3, 3))
        v = torch.diagonal(t, offset=1, dim1=1, dim2=2)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 0] = 0
        self.assertEqual(t[0, 0, 1], v[0, 0])

    def test_select_view(self):
        # SRC TestViewOps.test_select_view
        t = torch.ones((5, 5))
        v = t.select(0, 2)
        self.assertTrue(self.is_view_of(t, v))
        v[0] = 0
        self.assertEqual(t[2, 0], v[0])

    def test_unbind_view(self):
        # SRC TestViewOps.test_unbind_view
        t = torch.zeros((5, 5))
        for i, v in enumerate(torch.unbind(t)):
            self.assertTrue(self.is_view_of(t, v))
            v[0] = i + 1
            self.assertEqual(t[i, 0], v[0])

    def test_unbind(self):
        # SRC TestViewOps.test_unbind: backward through all, then one, of the pieces
        stacked = torch.randn(3, 10, 10, requires_grad=True)
        x, y, z = stacked.unbind()
        grad = torch.randn(3, 10, 10)
        torch.autograd.backward([x, y, z], grad.unbind())
        self.assertEqual(stacked.grad, grad)
        for i in range(3):
            stacked = torch.randn(3, 10, 10, requires_grad=True)
            outs = stacked.unbind()
            gi = grad.unbind()[i]
            g, = torch.autograd.grad(outs[i], stacked, gi)
            expected = torch.stack([gi if j == i else torch.zeros_like(gi) for j in range(3)])
            self.assertEqual(g, expected)
        stacked = torch.randn(3, 10, 10, dtype=torch.double, requires_grad=True)
        torch.autograd.gradcheck(lambda x: x.unbind(), (stacked,))

    def test_expand_view(self):
        # SRC TestViewOps.test_expand_view
        t = torch.ones((5, 1))
        v = t.expand(5, 5)
        self.assertTrue(self.is_view_of(t, v))
        v[2, 2] = 0
        self.assertEqual(t[2, 0], v[2, 2])

    def test_expand_as_view(self):
        # SRC TestViewOps.test_expand_as_view
        t = torch.ones((5, 1))
        v = t.expand_as(torch.empty((5, 5)))
        self.assertTrue(self.is_view_of(t, v))
        v[2, 2] = 0
        self.assertEqual(t[2, 0], v[2, 2])

    def test_narrow_view(self):
        # SRC TestViewOps.test_narrow_view
        t = torch.ones((5, 5))
        v = torch.narrow(t, 1, 2, 2)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 0] = 0
        self.assertEqual(t[0, 2], v[0, 0])

    def test_permute_view(self):
        # SRC TestViewOps.test_permute_view
        t = torch.ones((5, 5))
        v = t.permute(1, 0)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 1] = 0
        self.assertEqual(t[1, 0], v[0, 1])

    @pytest.mark.parametrize("fn", ["swapdims", "swapaxes", "transpose"])
    def test_transpose_view(self, fn):
        # SRC TestViewOps.test_transpose_view
        t = torch.ones((5, 5))
        v = getattr(torch, fn)(t, 0, 1)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 1] = 0
        self.assertEqual(t[1, 0], v[0, 1])

    @pytest.mark.parametrize("fn", ["swapdims_", "swapaxes_", "transpose_"])
    def test_transpose_inplace_view(self, fn):
        # SRC TestViewOps.test_transpose_inplace_view: the in-place transposes of a view keep
        # it a view of the same base
        t = torch.ones(5, 5)
        v = getattr(t.view_as(t), fn)(0, 1)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 1] = 0
        self.assertEqual(t[1, 0], v[0, 1])

    def test_t_view(self):
        # SRC TestViewOps.test_t_view
        t = torch.ones((5, 5))
        v = t.t()
        self.assertTrue(self.is_view_of(t, v))
        v[0, 1] = 0
        self.assertEqual(t[1, 0], v[0, 1])

    def test_t_inplace_view(self):
        # SRC TestViewOps.test_t_inplace_view
        t = torch.ones(5, 5)
        v = t.view_as(t).t_()
        self.assertTrue(self.is_view_of(t, v))
        v[0, 1] = 0
        self.assertEqual(t[1, 0], v[0, 1])

    @pytest.mark.parametrize("op", ["T", "H", "mT", "mH"])
    def test_T_view(self, op):
        # SRC TestViewOps.test_T_view
        t = torch.ones((5, 5))
        v = getattr(t, op)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 1] = 0
        self.assertEqual(t[1, 0], v[0, 1])

    def test_unfold_view(self):
        # SRC TestViewOps.test_unfold_view
        t = torch.ones(10)
        v = t.unfold(0, 3, 2)
        self.assertTrue(self.is_view_of(t, v))
        v[1, 0] = 0
        self.assertEqual(t[2], v[1, 0])

    def test_squeeze_view(self):
        # SRC TestViewOps.test_squeeze_view
        t = torch.ones(5, 1, 5)
        v = torch.squeeze(t)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 1] = 0
        self.assertIs(t, v._base)
        self.assertEqual(t[0, 0, 1], 0)

    def test_squeeze_inplace_view(self):
        # SRC TestViewOps.test_squeeze_inplace_view
        t = torch.ones(5, 5)
        v = t.view_as(t).squeeze_()
        self.assertTrue(self.is_view_of(t, v))
        v[0, 1] = 0
        self.assertIs(t, v._base)
        self.assertEqual(t[0, 1], 0)

    def test_unsqueeze_view(self):
        # SRC TestViewOps.test_unsqueeze_view
        t = torch.ones(5, 5)
        v = torch.unsqueeze(t, 1)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 0, 1] = 0
        self.assertEqual(t[0, 1], v[0, 0, 1])

    def test_unsqueeze_inplace_view(self):
        # SRC TestViewOps.test_unsqueeze_inplace_view
        t = torch.ones(5, 5)
        v = t.view_as(t).unsqueeze_(1)
        self.assertTrue(self.is_view_of(t, v))
        v[0, 0, 1] = 0
        self.assertEqual(t[0, 1], v[0, 0, 1])

    def test_as_strided_view(self):
        # SRC TestViewOps.test_as_strided_view
        t = torch.ones(5, 5)
        v = torch.as_strided(t, (25,), (1,))
        self.assertTrue(self.is_view_of(t, v))
        v[6] = 0
        self.assertEqual(t[1, 1], v[6])

    def test_as_strided_inplace_view(self):
        # SRC TestViewOps.test_as_strided_inplace_view
        t = torch.ones(5, 5)
        v = t.view_as(t).as_strided_((25,), (1,))
        self.assertTrue(self.is_view_of(t, v))
        v[6] = 0
        self.assertEqual(t[1, 1], v[6])

    def test_as_strided_gradients(self):
        # SRC TestViewOps.test_as_strided_gradients: gradcheck and gradgradcheck of as_strided
        # over expanded, overlapping, transposed and out-of-input geometries
        def check(x, prepro, size, strides, offset=None):
            x = x.to(torch.double).detach().requires_grad_()
            with torch.no_grad():
                y = prepro(x) if prepro is not None else x
                top = sum((n - 1) * s for n, s in zip(size, strides))
                top += offset if offset is not None else y.storage_offset()
                assert top < y.untyped_storage().nbytes() // y.element_size()

            def closure(x):
                if prepro is not None:
                    x = prepro(x)
                return x.as_strided(size, strides, offset)

            torch.autograd.gradcheck(closure, [x])
            torch.autograd.gradgradcheck(closure, [x])

        check(torch.arange(0, 25), lambda x: x.view(5, 5), [3, 3], [6, 2], 2)
        check(torch.randn(12), None, [1, 2, 1, 5], [0, 5, 100, 1], 2)
        check(torch.randn(5), None, [3, 3, 3], [0, 1, 0], 2)
        check(torch.randn(5), None, [3, 3, 3], [0, 0, 0], 4)
        check(torch.randn(5), lambda x: x.expand(5, 5), [5, 5], [0, 1], 0)
        check(torch.randn(35), None, [6, 6], [5, 1], 2)
        check(torch.randn(15), None, [3, 2], [3, 6], 2)
        check(torch.randn(3, 4), None, [4, 3], [1, 4])
        x = torch.randn(6, 2)
        check(x[3:], None, [3, 2], [2, 1], 0)
        self.assertEqual(x[3:].as_strided([3, 2], [2, 1], 0), x[:3])
        check(torch.randn(2, 3), lambda x: x.expand(10, 2, 3), [2, 3], [3, 1], 0)

    def test_view_view(self):
        # SRC TestViewOps.test_view_view
        t = torch.ones(5, 5)
        v = t.view(25)
        self.assertTrue(self.is_view_of(t, v))
        v[6] = 0
        self.assertEqual(t[1, 1], v[6])

    def test_view_as_view(self):
        # SRC TestViewOps.test_view_as_view
        t = torch.ones(5, 5)
        v = t.view_as(torch.empty((25,)))
        self.assertTrue(self.is_view_of(t, v))
        v[6] = 0
        self.assertEqual(t[1, 1], v[6])

    def test_contiguous_self(self):
        # SRC TestViewOps.test_contiguous_self
        t = torch.ones(5, 5)
        self.assertTrue(t.contiguous() is t)

    def test_contiguous_nonview(self):
        # SRC TestViewOps.test_contiguous_nonview
        t = torch.ones(5, 5)
        nv = t.t().contiguous()
        self.assertTrue(not self.is_view_of(t, nv))
        nv[0, 0] = 0
        self.assertNotEqual(t[0, 0], nv[0, 0])

    def test_reshape_view(self):
        # SRC TestViewOps.test_reshape_view
        t = torch.ones(5, 5)
        v = torch.reshape(t, (25,))
        self.assertTrue(self.is_view_of(t, v))
        v[6] = 0
        self.assertEqual(t[1, 1], v[6])

    def test_reshape_as_view(self):
        # SRC TestViewOps.test_reshape_as_view
        t = torch.ones(5, 5)
        v = t.reshape_as(torch.empty((25,)))
        self.assertTrue(self.is_view_of(t, v))
        v[6] = 0
        self.assertEqual(t[1, 1], v[6])

    def test_reshape_nonview(self):
        # SRC TestViewOps.test_reshape_nonview
        t = torch.ones(5, 5)
        nv = torch.reshape(t.t(), (25,))
        self.assertTrue(not self.is_view_of(t, nv))
        nv[6] = 0
        self.assertNotEqual(t[1, 1], nv[6])

    def test_flatten_view(self):
        # SRC TestViewOps.test_flatten_view: flatten is a view whenever the merged dims are
        # contiguous with each other (also inside a strided, partly expanded tensor)
        def writes_propagate(t, v):
            v[(0,) * v.ndim] = 0
            self.assertEqual(t[(0,) * t.ndim], v[(0,) * v.ndim])

        t = torch.ones(1, 2, 3, 4)
        v = t.flatten()
        self.assertTrue(self.is_view_of(t, v))
        writes_propagate(t, v)
        t = torch.tensor(1)
        v = t.flatten()
        writes_propagate(t, v)
        self.assertTrue(self.is_view_of(t, v))
        t = torch.ones(1, 2, 3, 4).transpose(2, 3)
        v = t.flatten(0, 1)
        writes_propagate(t, v)
        self.assertTrue(self.is_view_of_same_base(t, v))
        t = torch.ones(720).as_strided((2, 3, 2, 3, 5, 4), (6, 2, 15, 5, 1, 0))
        v1 = t.flatten(0, 1)
        v2 = v1.flatten(1, 3)
        v3 = v2.flatten(2, 2)
        for v in (v1, v2, v3):
            writes_propagate(t, v)
            self.assertTrue(self.is_view_of_same_base(t, v))

    def test_flatten_nonview(self):
        # SRC TestViewOps.test_flatten_nonview
        def is_nonview(t, nv):
            self.assertTrue(not nv._is_view())
            nv[(0,) * nv.ndim] = 0
            self.assertNotEqual(t[(0,) * t.ndim], nv[(0,) * nv.ndim])

        t = torch.ones(2, 3, 2, 3).transpose(2, 3)
        is_nonview(t, t.flatten(1, 3))
        t = torch.ones(2, 2).T
        is_nonview(t, t.flatten())
        t = torch.ones(2, 2)
        self.assertTrue(t.flatten(1, 1) is t)

    def test_basic_indexing_slice_view(self):
        # SRC TestViewOps.test_basic_indexing_slice_view
        t = torch.ones(5, 5)
        v = t[:2, :3]
        self.assertTrue(self.is_view_of(t, v))
        v[0, 0] = 0
        self.assertEqual(t[0, 0], v[0, 0])

    def test_basic_indexing_ellipses_view(self):
        # SRC TestViewOps.test_basic_indexing_ellipses_view
        t = torch.ones(5, 5)
        v = t[..., :2]
        self.assertTrue(self.is_view_of(t, v))
        v[0, 0] = 0
        self.assertEqual(t[0, 0], v[0, 0])

    def test_basic_indexing_newaxis_view(self):
        # SRC TestViewOps.test_basic_indexing_newaxis_view
        t = torch.ones(5, 5)
        v = t[None, :2, 3]
        self.assertTrue(self.is_view_of(t, v))
        v[0, 0] = 0
        self.assertEqual(t[0, 3], v[0, 0])

    def test_advanced_indexing_nonview(self):
        # SRC TestViewOps.test_advanced_indexing_nonview
        t = torch.ones(3, 3)
        rows = torch.tensor([[0, 0], [2, 2]])
        cols = torch.tensor([[0, 1], [2, 2]])
        nv = t[rows, cols]
        self.assertTrue(not self.is_view_of(t, nv))
        nv[1, 1] = 0
        self.assertNotEqual(t[2, 2], nv[1, 1])

    def test_advanced_indexing_assignment(self):
        # SRC TestViewOps.test_advanced_indexing_assignment
        t = torch.ones(3, 3)
        t[torch.tensor([[0, 0], [2, 2]]), torch.tensor([[0, 1], [2, 2]])] = 0
        self.assertEqual(t[2, 2], 0)

    @pytest.mark.parametrize("fn", [lambda t: torch.chunk(t, 3),
                                    lambda t: torch.split(t, [1, 1, 1])],
                             ids=["chunk", "split"])
    def test_chunk_split_view(self, fn):
        # SRC TestViewOps.test_chunk_view / test_split_view (skipped upstream for a since-fixed
        # pull request; their checks hold in torch 2.13): each piece is a view
        t = torch.zeros(3, 3)
        for i, v in enumerate(fn(t)):
            self.assertTrue(self.is_view_of(t, v))
            v[0, 0] = i + 1
            self.assertEqual(t[i, 0], v[0, 0])

    @pytest.mark.parametrize("fn", ["movedim", "moveaxis"])
    def test_movedim_view(self, fn):
        # SRC TestViewOps.test_movedim_view
        for kw in (dict(source=(0, 1), destination=(1, 0)), dict(source=0, destination=1)):
            t = torch.zeros(3, 3)
            out = getattr(torch, fn)(t, **kw)
            self.assertTrue(self.is_view_of(t, out))
            for _ in range(3):
                i, j = random.randint(0, 2), random.randint(0, 2)
                out[i, j] = random.random()
                self.assertEqual(t[j, i], out[i, j])

    def test_view_copy(self):
        # SRC TestViewOps.test_view_copy: view_copy is not a view, but has view's values and
        # gradient
        a = torch.randn(4, requires_grad=True)
        a_ref = a.clone().detach().requires_grad_()
        a_view = a_ref.view(2, 2)
        a_view_copy = torch.view_copy(a, (2, 2))
        self.assertTrue(self.is_view_of(a_ref, a_view))
        self.assertFalse(self.is_view_of(a, a_view_copy))
        a_view_copy.sum().backward()
        a_view.sum().backward()
        self.assertEqual(a_view_copy, a_view)
        self.assertEqual(a.grad, a_ref.grad)

    def test_view_copy_out(self):
        # SRC TestViewOps.test_view_copy_out
        a = torch.randn(2, 2)
        out = torch.empty(2)
        torch.diagonal_copy(a, out=out)
        self.assertEqual(torch.diagonal_copy(a), out)
        a = torch.randn(4)
        out1, out2 = torch.empty(2), torch.empty(2)
        torch.split_copy(a, 2, out=(out1, out2))
        e1, e2 = torch.split_copy(a, 2)
        self.assertEqual(e1, out1)
        self.assertEqual(e2, out2)


# =========================================================================================
# TestOldViewOps
# =========================================================================================
class TestOldViewOps(_ViewCase):
    def test_ravel(self):
        # SRC TestOldViewOps.test_ravel (float tensors; the quantized half is skipped: oar has
        # no quantized tensors): contiguous -> view of the source, else a contiguous copy
        def check(tensors, size, nc=False):
            for src in tensors:
                flat = src.ravel()
                self.assertEqual(tuple(flat.shape), (size,))
                self.assertEqual(src.view(-1), flat)
                self.assertIs(flat._base, src)
                self.assertTrue(flat.is_contiguous())
                if nc:
                    nc_src = src.t()
                    nc_flat = nc_src.ravel()
                    self.assertEqual(tuple(nc_flat.shape), (size,))
                    self.assertEqual(nc_src.contiguous().view(-1), nc_flat)
                    self.assertIsNot(nc_flat._base, src)
                    self.assertTrue(nc_flat.is_contiguous())

        zero_dim = torch.tensor(123)
        flat0 = zero_dim.ravel()
        one_dim = torch.tensor([123])
        flat1 = zero_dim.ravel()
        nc_ones = torch.ones(10)[::2]
        flat2 = nc_ones.ravel()
        self.assertEqual(tuple(zero_dim.shape), ())
        self.assertEqual(tuple(flat0.shape), (1,))
        self.assertEqual(tuple(flat1.shape), (1,))
        self.assertEqual(tuple(flat2.shape), (5,))
        self.assertEqual(flat0, one_dim)
        self.assertEqual(flat0, flat1)
        for f in (flat0, flat1, flat2):
            self.assertTrue(f.is_contiguous())
        check([torch.randn(5, 5, 5, 5)], 625)
        check([torch.randn(0, 2, 3), torch.randn(3, 0, 2)], 0)
        check([torch.randn(5, 5)], 25, True)

    def test_empty_reshape(self):
        # SRC TestOldViewOps.test_empty_reshape
        x = torch.randn(0, 6)
        self.assertEqual((1, 0, 6, 1, 1), tuple(x.reshape(1, 0, 6, 1, 1).shape))
        self.assertEqual(x.data_ptr(), x.reshape(1, 0, 6, 1, 1).data_ptr())
        self.assertRaises(RuntimeError, lambda: x.reshape(0, -1))

    def test_expand(self):
        # SRC TestOldViewOps.test_expand
        tensor = torch.rand(1, 8, 1)
        tensor2 = torch.rand(5)
        template = torch.rand(4, 8, 5)
        target = template.size()
        for t in (tensor, tensor2):
            self.assertEqual(t.expand_as(template).size(), target)
            self.assertEqual(t.expand(4, 8, 5).size(), target)
            self.assertEqual(t.expand(target).size(), target)
        self.assertEqual(tensor2.expand(1, 5).expand(2, 2, 5), tensor2.repeat(2, 2, 1))
        noncontig = torch.randn(5, 2, 1, 3)[:, 0]
        self.assertFalse(noncontig.is_contiguous())
        self.assertEqual(noncontig.expand(2, 5, 4, 3), noncontig.contiguous().repeat(2, 1, 4, 1))
        expanded = tensor2.expand(1, 1, 5)
        unsqueezed = tensor2.unsqueeze(0).unsqueeze(1)
        self.assertEqual(expanded, unsqueezed)
        self.assertEqual(expanded.stride(), unsqueezed.stride())
        self.assertEqual(tensor.expand(4, -1, 5), tensor.expand(4, 8, 5))
        self.assertRaises(RuntimeError, lambda: tensor2.expand(-1, -1))
        self.assertEqual(torch.zeros(0).expand((0,)), torch.zeros(0))

    def test_view_empty(self):
        # SRC TestOldViewOps.test_view_empty
        x = torch.randn(0, 6)
        self.assertEqual((1, 0, 6, 1, 1), tuple(x.view(1, 0, 6, 1, 1).shape))

    def test_reshape(self):
        # SRC TestOldViewOps.test_reshape
        x = torch.randn(3, 3)
        self.assertEqual(x.data_ptr(), x.reshape(-1).data_ptr())
        self.assertEqual(x.data_ptr(), x.reshape(1, 9, 1).data_ptr())
        self.assertEqual(torch.reshape(x, (9,)), x.reshape(9))
        self.assertRaises(RuntimeError, lambda: x.reshape(-1, -1))
        y = torch.randn(4, 4, 4)[:, 0, :]
        self.assertNotEqual(y.data_ptr(), y.reshape(-1).data_ptr())
        self.assertEqual(y.contiguous().view(-1), y.reshape(-1))
        self.assertEqual(y.reshape(2, 2, 4).data_ptr(), y.data_ptr())
        s = torch.randn(())
        self.assertEqual(s.data_ptr(), s.reshape(()).data_ptr())
        self.assertEqual(tuple(s.reshape(-1).shape), (1,))
        self.assertRaises(RuntimeError, lambda: s.reshape(2))
        empty = torch.tensor([])
        self.assertEqual(empty, empty.reshape(-1))
        self.assertEqual(empty, empty.reshape([0]))
        self.assertEqual(tuple(empty.reshape([0, 1]).shape), (0, 1))
        self.assertEqual(tuple(empty.reshape([1, -1]).shape), (1, 0))
        self.assertRaises(RuntimeError, lambda: empty.reshape(1))
        x = torch.randn(3, 3)
        self.assertEqual(x.data_ptr(), x.reshape_as(torch.rand(9)).data_ptr())
        self.assertEqual(x.data_ptr(), x.reshape_as(torch.rand(1, 9, 1)).data_ptr())
        self.assertRaises(RuntimeError, lambda: x.reshape_as(torch.rand(10)))

    def test_flatten(self):
        # SRC TestOldViewOps.test_flatten (float tensors; quantized skipped)
        zero_dim = torch.tensor(123)
        flat0 = zero_dim.flatten()
        one_dim = torch.tensor([123])
        self.assertEqual(tuple(flat0.shape), (1,))
        self.assertEqual(flat0, one_dim)
        src = torch.randn(5, 5, 5, 5)
        for (a, b), shape in (((0, -1), (625,)), ((0, 2), (125, 5)), ((0, 1), (25, 5, 5)),
                              ((1, 2), (5, 25, 5)), ((2, 3), (5, 5, 25)),
                              ((-2, -1), (5, 5, 25))):
            flat = src.flatten(a, b)
            self.assertEqual(tuple(flat.shape), shape)
            self.assertEqual(src.view(-1), flat.view(-1))
        self.assertEqual(src.flatten(2, 2), src)
        with self.assertRaisesRegex(IndexError, "Dimension out of range"):
            src.flatten(5, 10)
        with self.assertRaisesRegex(RuntimeError, "start_dim cannot come after end_dim"):
            src.flatten(2, 0)

    def test_narrow(self):
        # SRC TestOldViewOps.test_narrow
        x = torch.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
        cases = [((0, 0, 1), [[0, 1, 2]]), ((0, 0, 2), [[0, 1, 2], [3, 4, 5]]),
                 ((0, 1, 1), [[3, 4, 5]]), ((0, -1, 1), [[6, 7, 8]]),
                 ((0, -2, 2), [[3, 4, 5], [6, 7, 8]]),
                 ((0, -3, 3), [[0, 1, 2], [3, 4, 5], [6, 7, 8]]),
                 ((-1, -1, 1), [[2], [5], [8]]), ((-2, -1, 1), [[6, 7, 8]])]
        for args, expected in cases:
            self.assertEqual(x.narrow(*args), torch.tensor(expected))

    def test_narrow_tensor(self):
        # SRC TestOldViewOps.test_narrow_tensor: a 0-d integer tensor start works; float,
        # 1-element 1-d and longer starts are refused
        x = torch.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
        self.assertEqual(x.narrow(0, torch.tensor(0), 1), torch.tensor([[0, 1, 2]]))
        for bad in (torch.tensor(0.), torch.tensor([0]), torch.tensor([0, 1])):
            with self.assertRaises(Exception):
                x.narrow(0, bad, 1)

    def test_t(self):
        # SRC TestOldViewOps.test_t (dense only; the sparse half is skipped: oar has no sparse)
        x = torch.randn(())
        self.assertEqual(x, x.t())
        x = torch.arange(4)
        self.assertEqual(x, x.t())
        x = torch.rand((2, 2))
        self.assertEqual(x.t(), x.transpose(0, 1))
        x = torch.rand((2, 2, 2))
        with self.assertRaisesRegex(RuntimeError,
                                    "expects a tensor with <= 2 dimensions, but self is 3D"):
            x.t()

    def test_split(self):
        # SRC TestOldViewOps.test_split: equal and variable sections equal narrow's pieces
        def check(tensor, split, dim, targets):
            start = 0
            for target, piece in zip(targets, tensor.split(split, dim)):
                self.assertEqual(tuple(piece.size()), tuple(target))
                self.assertEqual(tensor.narrow(dim, start, target[dim]), piece, atol=0, rtol=0)
                start += target[dim]

        check(torch.rand(7, 4), 3, 0, ([3, 4], [3, 4], [1, 4]))
        t = torch.randn(20, 10)
        check(t, [5, 5, 10], 0, ([5, 10], [5, 10], [10, 10]))
        check(t, [2, 2, 6], 1, ([20, 2], [20, 2], [20, 6]))

    def test_chunk(self):
        # SRC TestOldViewOps.test_chunk
        tensor = torch.rand(4, 7)
        start = 0
        for target, piece in zip(([4, 3], [4, 3], [4, 1]), tensor.chunk(3, 1)):
            self.assertEqual(tuple(piece.size()), tuple(target))
            self.assertEqual(tensor.narrow(1, start, target[1]), piece, atol=0, rtol=0)
            start += target[1]
        for n in (0, -2):
            with self.assertRaisesRegex(RuntimeError, "chunk expects.*greater than 0"):
                tensor.chunk(n)

    def test_unsqueeze(self):
        # SRC TestOldViewOps.test_unsqueeze
        x = torch.randn(2, 3, 4)
        self.assertEqual(x.unsqueeze(1), x.view(2, 1, 3, 4))
        self.assertEqual(x.clone().unsqueeze_(2), x.view(2, 3, 1, 4))
        x = x[:, 1]
        self.assertFalse(x.is_contiguous())
        self.assertEqual(x.unsqueeze(1), x.contiguous().view(2, 1, 4))
        self.assertEqual(x.clone().unsqueeze_(2), x.contiguous().view(2, 4, 1))

    def test_big_transpose(self):
        # SRC TestOldViewOps.test_big_transpose
        t = torch.rand(456, 789)
        self.assertEqual(t.t().contiguous(), torch.from_numpy(t.numpy().transpose().copy()))

    def test_T(self):
        # SRC TestOldViewOps.test_T
        a = torch.randn(2, 3, 4)
        self.assertEqual(a.permute(2, 1, 0), a.T)
        b = torch.randn(10)
        self.assertEqual(b, b.T)
        s = torch.tensor(5)
        self.assertEqual(s, s.T)

    @pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
    def test_transposes(self, dtype):
        # SRC TestOldViewOps.test_transposes (real dtypes: H/mH/adjoint equal T/mT)
        for op in ("T", "H", "mT", "mH", "adjoint"):
            shapes = ((), (2, 3), (2, 3, 4)) if op[0] == "m" or op == "adjoint" else ((), (2, 3))
            for shape in shapes:
                a = make_tensor(shape, _dt(dtype))
                t1 = getattr(a, op)
                if op == "adjoint":
                    t1 = t1()
                t2 = a.transpose(-2, -1) if a.ndim else a
                self.assertEqual(t2, t1)

    @pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
    def test_transposes_errors(self, dtype):
        # SRC TestOldViewOps.test_transposes_errors
        for op in ("H", "mT", "mH", "adjoint"):
            for shape in (((2,), (2, 3, 4)) if op == "H" else ((2,),)):
                a = make_tensor(shape, _dt(dtype))
                with self.assertRaisesRegex(RuntimeError, "only supported on matrices"):
                    t1 = getattr(a, op)
                    if op == "adjoint":
                        t1()

    def test_python_types(self):
        # SRC TestOldViewOps.test_python_types
        self.assertEqual(torch.randn((1, 2), dtype=torch.float64).dtype,
                         torch.randn((1, 2), dtype=float).dtype)
        self.assertEqual(torch.arange(10, 20, dtype=torch.int64).dtype,
                         torch.arange(10, 20, dtype=int).dtype)
        self.assertEqual(torch.tensor([True, False], dtype=torch.bool).dtype,
                         torch.tensor([True, False], dtype=bool).dtype)

    def test_resize_as_preserves_strides(self):
        # SRC TestOldViewOps.test_resize_as_preserves_strides
        x = torch.empty(2, 3).t()
        old = x.stride()
        x.resize_as_(x)
        self.assertEqual(x.stride(), old)

    def test_memory_format_resize_as(self):
        # SRC TestOldViewOps.test_memory_format_resize_as
        for shape, fmt in (((10, 3, 32, 32), torch.channels_last),
                           ((3, 10, 3, 32, 32), torch.channels_last_3d)):
            xc = torch.randn(shape).contiguous(memory_format=fmt)
            flat = torch.randn(xc.numel())
            flat.resize_as_(xc, memory_format=torch.preserve_format)
            self.assertTrue(flat.is_contiguous(memory_format=fmt))

    def test_memory_format_resize_(self):
        # SRC TestOldViewOps.test_memory_format_resize_
        for shape, fmt in (((10, 3, 32, 32), torch.channels_last),
                           ((3, 10, 3, 32, 32), torch.channels_last_3d)):
            flat = torch.randn(int(np.prod(shape)))
            flat.resize_(shape, memory_format=fmt)
            self.assertTrue(flat.is_contiguous(memory_format=fmt))

    @pytest.mark.parametrize("fn", ["swapdims", "swapaxes", "transpose"])
    def test_transpose_invalid(self, fn):
        # SRC TestOldViewOps.test_transpose_invalid (int64 and float; complex skipped)
        for dtype in (torch.int64, torch.float):
            x = torch.ones(5, 6, 7, 8, dtype=dtype)
            with self.assertRaisesRegex(IndexError, "Dimension out of range"):
                getattr(torch, fn)(x, 5, 0)
            with self.assertRaisesRegex(IndexError, "Dimension out of range"):
                getattr(torch, fn)(x, 0, 5)

    @pytest.mark.parametrize("fn,kw", [("swapdims", ("dim0", "dim1")),
                                       ("swapaxes", ("axis0", "axis1")),
                                       ("transpose", ("dim0", "dim1"))])
    def test_transpose_vs_numpy(self, fn, kw):
        # SRC TestOldViewOps.test_transpose_vs_numpy (int64 and float; complex skipped)
        for dtype in ("int64", "float32"):
            for nd in range(5):
                shape = tuple(random.randint(5, 10) for _ in range(nd))
                x = make_tensor(shape, _dt(dtype))
                xn = to_numpy(x)
                for src, dst in permutations(range(nd), r=2):
                    for s, d in ((src, dst), (src - nd, dst), (src, dst - nd),
                                 (src - nd, dst - nd)):
                        got = getattr(torch, fn)(x, **{kw[0]: s, kw[1]: d})
                        self.assertEqual(got, np.swapaxes(xn, s, d))
            x = torch.randn(2, 3, 5, 7, 11)
            self.assertEqual(getattr(torch, fn)(x, **{kw[0]: 0, kw[1]: 0}), to_numpy(x))

    @pytest.mark.parametrize("n", [1, 2, 3])
    def test_atleast(self, n):
        # SRC TestOldViewOps.test_atleast (real dtypes): atleast_{1,2,3}d as NumPy's, for one
        # tensor and for a sequence
        tfn = getattr(torch, f"atleast_{n}d")
        nfn = getattr(np, f"atleast_{n}d")
        for ndims in range(5):
            shape = tuple(random.randint(5, 10) for _ in range(ndims))
            for dtype in ("int64", "float32", "float16", "bool"):
                x = make_tensor(shape, _dt(dtype))
                for xx in (x, x.T):
                    self.assertEqual(tfn(xx), nfn(to_numpy(xx)))
                    seq = (xx,) * 3
                    res = tfn(*seq)
                    self.assertEqual(list(nfn(*[to_numpy(s) for s in seq])), list(res))

    @pytest.mark.parametrize("n", [1, 2, 3])
    def test_atleast_gradient(self, n):
        # SRC TestOldViewOps.test_atleast_gradient
        fn = getattr(torch, f"atleast_{n}d")
        s = torch.tensor(0.5, dtype=torch.double, requires_grad=True)
        a = torch.rand(4, dtype=torch.double, requires_grad=True)
        for inp in (s, a):
            torch.autograd.gradcheck(lambda x: fn(x), inp)
            torch.autograd.gradgradcheck(lambda x: fn(x), inp)
        ins = (s, a, torch.rand(4, 3, dtype=torch.double, requires_grad=True),
               torch.rand(4, 3, 2, dtype=torch.double, requires_grad=True),
               torch.rand(4, 3, 2, 1, dtype=torch.double, requires_grad=True))
        torch.autograd.gradcheck(lambda *xs: fn(*xs), ins)
        torch.autograd.gradgradcheck(lambda *xs: fn(*xs), ins)

    def test_broadcast_tensors(self):
        # SRC TestOldViewOps.test_broadcast_tensors
        ys = torch.broadcast_tensors(torch.randn(2, 1, 3), torch.randn(3), torch.randn(3, 1))
        for y in ys:
            self.assertTrue(tuple(y.size()) == (2, 3, 3))

    def test_broadcast_shapes(self):
        # SRC TestOldViewOps.test_broadcast_shapes. The source at the commit read expects
        # RuntimeError("Trying to create tensor with negative dimension") for negative sizes;
        # torch 2.13, the oracle here, raises ValueError (_NEG_BROADCAST), so that is checked.
        examples = [(), (1,), (2,), (1, 1), (3, 1), (3, 2), (4, 1, 1), (4, 3, 2)]
        for s0 in examples:
            x0 = torch.randn(s0)
            self.assertEqual(torch.broadcast_tensors(x0)[0].shape, torch.broadcast_shapes(s0))
            for s1 in examples:
                x1 = torch.randn(s1)
                self.assertEqual(torch.broadcast_tensors(x0, x1)[0].shape,
                                 torch.broadcast_shapes(s0, s1))
        for ints in ([1, 4], [4, 1], [1, 1, 3]):
            self.assertEqual(torch.broadcast_shapes(*ints),
                             torch.broadcast_tensors(*map(torch.empty, ints))[0].shape)
        for bad in ([1, 1, -12], [-1, 1], [-11]):
            with self.assertRaisesRegex(ValueError, _NEG_BROADCAST):
                torch.broadcast_shapes(*bad)
        for bad in [(3, 5), (2, 4, 1)]:
            # (torch 2.13's message; the source's older one was "Shape mismatch: ...")
            with self.assertRaisesRegex(RuntimeError, "Attempting to broadcast a dimension of "
                                        "length"):
                torch.broadcast_shapes(*bad)
        negative = [(-1,), (1, -12), (4, -11), (-4, 1), (1, 1, -2)]
        for s0 in negative:
            with self.assertRaisesRegex(ValueError, _NEG_BROADCAST):
                torch.broadcast_shapes(s0)
            for s1 in negative:
                with self.assertRaisesRegex(ValueError, _NEG_BROADCAST):
                    torch.broadcast_shapes(s0, s1)
        for case in [(1.1, 2.0), (1.1, 1.0)]:
            for f in case:
                with self.assertRaisesRegex(RuntimeError, "Input shapes should be of type ints, "
                                            "a tuple of ints, or a list of ints"):
                    torch.broadcast_shapes(f)
        for s0 in [(1, (5,)), (3, (1,)), (1, (3, 4))]:
            self.assertEqual(torch.broadcast_shapes(*s0),
                             torch.broadcast_tensors(*map(torch.empty, s0))[0].shape)

    @pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
    def test_broadcast_to(self, dtype):
        # SRC TestOldViewOps.test_broadcast_to
        def can(s0, s1):
            return all(a == 1 or a == b for a, b in zip(reversed(s0), reversed(s1)))

        sizes = ((), (1,), (2,), (1, 1), (3, 1), (3, 2), (4, 1, 1), (4, 3, 2))
        for s0, s1 in combinations(sizes, r=2):
            t = make_tensor(s0, _dt(dtype))
            if can(s0, s1):
                self.assertEqual(torch.broadcast_to(t, s1), np.broadcast_to(to_numpy(t), s1))
            else:
                with self.assertRaisesRegex(RuntimeError, r"The expanded size of the tensor "
                                            r"\(\d\) must match the existing size \(\d\)"):
                    torch.broadcast_to(t, s1)

    def test_view(self):
        # SRC TestOldViewOps.test_view: sizes, -1 inference, empty tensors, and views of
        # non-contiguous tensors that touch only contiguous dimension groups
        tensor = torch.rand(15)
        template = torch.rand(3, 5)
        empty = torch.empty(0)
        target = template.size()
        self.assertEqual(tensor.view_as(template).size(), target)
        self.assertEqual(tensor.view(3, 5).size(), target)
        self.assertEqual(tensor.view(torch.Size([3, 5])).size(), target)
        self.assertEqual(tensor.view(-1, 5).size(), target)
        self.assertEqual(tensor.view(3, -1).size(), target)
        tensor.view(5, 3).fill_(random.uniform(0, 1))
        self.assertEqual(empty.view_as(empty), empty)
        self.assertEqual(empty.view(0), empty)
        self.assertEqual(tuple(empty.view(0, 3, 0, 1).size()), (0, 3, 0, 1))
        self.assertEqual(empty.view(0, 3, 0, 1).view(0), empty)
        self.assertEqual(tuple(empty.view(-1).size()), (0,))
        self.assertEqual(tuple(empty.view(10, 3, -1).size()), (10, 3, 0))
        for shape in ((-1, 0), (3, 0, -1, 0)):
            with self.assertRaisesRegex(RuntimeError,
                                        r"because the unspecified dimension size -1 can be any value"):
                empty.view(*shape)
        for shape in ((15, 0), (7, -1), (15, -1, -1)):
            self.assertRaises(RuntimeError, lambda: tensor.view(*shape))
        tensor = torch.rand(4, 2, 5, 1, 6, 2, 9, 3).transpose(-1, 2).transpose(-2, 3)
        contig = tensor.clone()
        for size in ([8, 1, 3, 3, 3, 4, 1, 3, 5], [2, 4, 3, 1, 9, 2, 2, 3, 5, 1],
                     [1, 1, 2, 1, 4, 3, 1, 1, 9, 1, 2, 1, 2, 3, 1, 5, 1, 1]):
            self.assertEqual(tensor.view(*size), contig.view(*size))
        for size in ((-1,), (24, 9, 6, 2, 1, 5), (8, 3, 9, 6, 10), (8, 3, 54, 2, 1, 5)):
            self.assertRaises(RuntimeError, lambda: tensor.view(*size))
        tensor = torch.empty(1, 1).expand(3, 4)
        contig = tensor.clone()
        for size in ((-1,), (1, -1, 1), (-1, 1), (6, 2, 1), (1, 6, 2, 1)):
            self.assertEqual(tensor.view(*size), contig.view(*size))

    @pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
    def test_reshape_view_semantics(self, dtype):
        # SRC TestOldViewOps.test_reshape_view_semantics
        tensor = make_tensor((15, 4), _dt(dtype))
        v = tensor.reshape((20, 3))
        self.assertEqual(tuple(v.size()), (20, 3))
        self.assertEqual(tensor.untyped_storage().data_ptr(), v.untyped_storage().data_ptr())
        c = tensor.transpose(0, 1).reshape((20, 3))
        self.assertEqual(tuple(c.size()), (20, 3))
        self.assertNotEqual(tensor.untyped_storage().data_ptr(), c.untyped_storage().data_ptr())

    def test_contiguous(self):
        # SRC TestOldViewOps.test_contiguous: a size-1 dim's stride does not break contiguity
        x = torch.randn(1, 16, 5, 5)
        self.assertTrue(x.is_contiguous())
        stride = list(x.stride())
        stride[0] = 20
        x.set_(x.untyped_storage(), 0, x.size(), stride)
        self.assertTrue(x.is_contiguous())

    @pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
    def test_tensor_split_sections(self, dtype):
        # SRC TestOldViewOps.test_tensor_split_sections: as NumPy's array_split, sections given
        # as an int and as a 0-d int64 tensor
        for size in [(0,), (10,), (10, 0), (0, 10), (4, 10), (12, 3)]:
            a = make_tensor(size, _dt(dtype))
            an = to_numpy(a)
            for dim in range(-a.dim(), a.dim()):
                for sections in range(1, 2 * a.size(dim)):
                    r1 = torch.tensor_split(a, sections, dim)
                    r2 = torch.tensor_split(a, torch.tensor(sections, dtype=torch.int64), dim)
                    for r in (*r1, *r2):
                        self.assertEqual(r.dtype, a.dtype)
                    expected = np.array_split(an, sections, dim)
                    self.assertEqual(expected, list(r1))
                    self.assertEqual(expected, list(r2))

    @pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float32"])
    def test_tensor_split_indices(self, dtype):
        # SRC TestOldViewOps.test_tensor_split_indices
        indices_args = [(), (0,), (3,), (10,), (-1,), (-10,), (2, -1), (3, 4, 10),
                        (0, -1, 0, 10), (1, 5, 2, 8)]
        for size in [(0,), (10,), (10, 0), (0, 10), (4, 10), (12, 3)]:
            a = make_tensor(size, _dt(dtype))
            an = to_numpy(a)
            for dim in range(-a.dim(), a.dim()):
                for indices in indices_args:
                    r1 = torch.tensor_split(a, indices, dim)
                    r2 = torch.tensor_split(a, torch.tensor(indices, dtype=torch.int64), dim)
                    expected = np.array_split(an, indices, dim)
                    self.assertEqual(expected, list(r1))
                    self.assertEqual(expected, list(r2))

    def test_tensor_split_errors(self):
        # SRC TestOldViewOps.test_tensor_split_errors
        S = 10
        cases = [[(S,), 10, 1, IndexError, r"Dimension out of range"],
                 [(), 10, 0, RuntimeError, r"tensor_split expected at least a 1-dimensional "
                  r"tensor, but got a tensor with 0 dims"],
                 [(S,), (10,), 1, IndexError, r"Dimension out of range"],
                 [(), (10,), 0, RuntimeError, r"tensor_split expected at least a 1-dimensional "
                  r"tensor, but got a tensor with 0 dims"],
                 [(S,), 0, 0, RuntimeError, r"number of sections must be larger than 0, got 0"],
                 [(S,), -1, 0, RuntimeError, r"number of sections must be larger than 0, got -1"]]
        for size, arg, dim, err, msg in cases:
            a = torch.randn(size)
            with self.assertRaisesRegex(err, msg):
                torch.tensor_split(a, arg, dim)
            with self.assertRaisesRegex(err, msg):
                torch.tensor_split(a, torch.tensor(arg), dim)
        with self.assertRaisesRegex(RuntimeError, r"tensor_split expected "
                                    r"tensor_indices_or_sections to have dtype of long, but got Float"):
            torch.tensor_split(a, torch.tensor(1.1), dim)
        with self.assertRaisesRegex(RuntimeError, r"tensor_split expected "
                                    r"tensor_indices_or_sections to be a zero-dimensional or "
                                    r"one-dimensional tensor, but got a tensor with 2 dims"):
            torch.tensor_split(torch.rand(S), torch.tensor(((1,),)), 0)

    def test_resize_all_dtypes_and_devices(self):
        # SRC TestOldViewOps.test_resize_all_dtypes_and_devices (real dtypes)
        for name in _DTYPES:
            x = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=_dt(name))
            x.resize_((2, 2))
            self.assertEqual((2, 2), tuple(x.shape))

    def test_resize_as_all_dtypes_and_devices(self):
        # SRC TestOldViewOps.test_resize_as_all_dtypes_and_devices (real dtypes)
        for name in _DTYPES:
            x = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=_dt(name))
            y = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=_dt(name))
            x.resize_as_(y)
            self.assertEqual(tuple(y.shape), tuple(x.shape))

    def test_resize_overflow(self):
        # SRC TestOldViewOps.test_resize_overflow
        x = torch.empty((), dtype=torch.float64)
        with self.assertRaisesRegex(RuntimeError, "Storage size calculation overflowed"):
            x.resize_([2, 4, 2**29, 2**29])
        with self.assertRaisesRegex(RuntimeError, "overflow"):
            x.resize_([8, 8, 2**29, 2**29])

    def test_view_all_dtypes_and_devices(self):
        # SRC TestOldViewOps.test_view_all_dtypes_and_devices (real dtypes)
        for name in _DTYPES:
            x = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=_dt(name))
            self.assertEqual(tuple(x.view(6).shape), (6,))

    @pytest.mark.skip(reason="complex dtypes: conj/neg bits need a complex dtype")
    def test_conj_neg_view_numpy_error(self):
        pass

    @pytest.mark.skip(reason="sparse tensors: oar has no sparse CSR layout")
    def test_crow_col_indices(self):
        pass
