"""Autograd fidelity of the torch door: tests ported from PyTorch's own test/test_autograd.py
(pytorch/pytorch, read at commit 5c322af10e52e4d236104ceefd542f34e6dcf20a), each body as
PyTorch wrote it, adapted only in the import: the module-level names `torch`, `Function`,
`gradcheck` and `gradgradcheck` are bound per run by the `door` fixture, so every ported
test runs twice, on torch 2.13 itself (the oracle: the port is faithful) and on oar.torch.
`self` is a small stand-in for unittest.TestCase's assertions (`_Case`). Each ported test
names the class and test it comes from.

The tests after the ported ones compare oar.torch with torch 2.13 directly on behaviours
those tests leave open (exact messages, the point where an error is raised, warnings)."""
import warnings
from itertools import product

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import oar.torch as oar_torch  # noqa: E402

torch = Function = gradcheck = gradgradcheck = None   # bound by the `door` fixture


@pytest.fixture(params=["torch", "oar"])
def door(request):
    """Binds the names the ported bodies use to torch 2.13 or to oar.torch."""
    mod = real_torch if request.param == "torch" else oar_torch
    g = globals()
    saved = {k: g[k] for k in ("torch", "Function", "gradcheck", "gradgradcheck")}
    g.update(torch=mod, Function=mod.autograd.Function, gradcheck=mod.autograd.gradcheck,
             gradgradcheck=mod.autograd.gradgradcheck)
    yield request.param
    g.update(saved)


def _values(x):
    if hasattr(x, "detach") and hasattr(x, "tolist"):
        return np.asarray(x.detach().tolist(), dtype=float)
    return x


class _Raises:
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
            import re
            assert re.search(self.regex, str(val)), f"{self.regex!r} not in {str(val)!r}"
        return True


class _Case:
    """The unittest.TestCase assertions the ported bodies use."""

    def assertTrue(self, x, msg=None):   # noqa: N802
        assert x, msg

    def assertFalse(self, x, msg=None):   # noqa: N802
        assert not x, msg

    def assertIs(self, a, b):   # noqa: N802
        assert a is b

    def assertIsNone(self, x):   # noqa: N802
        assert x is None

    def assertIsNotNone(self, x):   # noqa: N802
        assert x is not None

    def assertIsInstance(self, x, cls):   # noqa: N802
        assert isinstance(x, cls)

    def assertEqual(self, a, b, msg=None, exact_dtype=True, **kw):   # noqa: N802
        a, b = _values(a), _values(b)
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                       rtol=1.3e-6, atol=1e-5)
        else:
            assert a == b, msg

    def assertRaises(self, exc, fn=None):   # noqa: N802
        ctx = _Raises(exc)
        if fn is None:
            return ctx
        with ctx:
            fn()

    def assertRaisesRegex(self, exc, regex, fn=None):   # noqa: N802
        ctx = _Raises(exc, regex)
        if fn is None:
            return ctx
        with ctx:
            fn()


# =========================================================================================
# Ported from test/test_autograd.py, class TestAutogradInferenceMode
# =========================================================================================
@pytest.mark.usefixtures("door")
class TestAutogradInferenceMode(_Case):
    def _is_inference_tensor(self, tensor):
        # test_autograd.py, TestAutogradInferenceMode._is_inference_tensor
        try:
            err_msg = "Inference tensors do not track version counter"
            with self.assertRaisesRegex(RuntimeError, err_msg):
                tensor._version
            return True
        except AssertionError:
            return False

    def test_inference_mode_context_manager(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_context_manager
        self.assertFalse(torch.is_inference_mode_enabled())
        with torch.inference_mode():
            self.assertTrue(torch.is_inference_mode_enabled())
            with torch.inference_mode(False):
                self.assertFalse(torch.is_inference_mode_enabled())
            self.assertTrue(torch.is_inference_mode_enabled())
        self.assertFalse(torch.is_inference_mode_enabled())

    def test_inference_mode_decorator(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_decorator
        def func(x):
            self.assertEqual(torch.is_inference_mode_enabled(), mode)
            return x * x

        for mode, use_kwarg in product((True, False, None), (True, False)):
            if mode is None:
                if use_kwarg:
                    decorated = torch.inference_mode(mode=func)
                else:
                    decorated = torch.inference_mode(func)
                mode = True
            else:
                if use_kwarg:
                    decorated = torch.inference_mode(mode=mode)(func)
                else:
                    decorated = torch.inference_mode(mode)(func)

            for requires_grad in (True, False):
                c = torch.ones(1, 2, 3, requires_grad=requires_grad)
                d = decorated(c)
                self.assertTrue(not mode or torch.is_inference(d))
                self.assertEqual(d.requires_grad, requires_grad and not mode)

    def test_inference_mode_tensor_creation(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_tensor_creation
        with torch.inference_mode():
            # new tensors created through constructors are inference tensors
            c = torch.ones(1, 2, 3)
            self.assertFalse(c.requires_grad)
            self.assertTrue(torch.is_inference(c))

            # requires_grad doesn't change inference tensor behavior in InferenceMode
            tmp = torch.ones(1, 2, 3, requires_grad=True)
            self.assertTrue(tmp.requires_grad)
            self.assertTrue(torch.is_inference(tmp))

            tmp = torch.ones(1, 2, 3).requires_grad_(False)
            self.assertFalse(tmp.requires_grad)
            self.assertTrue(torch.is_inference(tmp))

    def test_inference_mode_existing_autograd_session(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_existing_autograd_session
        s = torch.ones(1, 2, 3, requires_grad=True)
        a = s.clone()

        # `a` gets saved outside of inference mode
        out = a * a
        with torch.inference_mode():
            a.add_(2)

        self.assertFalse(torch.is_inference(a))
        # tensors created outside of inference mode aren't
        # inference tensors, so they will still have their
        # version counters tracked
        err_msg = (
            "one of the variables needed for gradient computation has been "
            "modified by an inplace operation"
        )
        with self.assertRaisesRegex(RuntimeError, err_msg):
            out.backward(torch.ones_like(out))

    def test_inference_mode_inf_tensor_in_inf_mode_functional_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_inf_mode_functional_op
        def functional_op(x):
            return x * x

        with torch.inference_mode():
            for requires_grad in (True, False):
                c = torch.ones(1, 2, 3, requires_grad=requires_grad)

                # performing a non-view operation produces a inference tensor
                # that does not require grad
                func_out = functional_op(c)
                self.assertTrue(torch.is_inference(func_out))
                self.assertFalse(func_out.requires_grad)

    def test_inference_mode_inf_tensor_in_inf_mode_inplace_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_inf_mode_inplace_op
        @torch.inference_mode()
        def run_test(fn):
            for requires_grad in (True, False):
                c = torch.ones(1, 2, 3, requires_grad=requires_grad)

                # after performing inplace operation, tensor is still
                # an inference tensor
                fn(c)
                self.assertTrue(torch.is_inference(c))
                self.assertEqual(c.requires_grad, requires_grad)

        run_test(lambda x: x.add_(2))
        run_test(lambda x: x.transpose_(0, 1))

        # inplace ops with manual kernel for ADInplaceOrView key in VariableTypeManual.cpp
        run_test(lambda x: x.resize_(1, 2))
        run_test(lambda x: x.resize_as_(torch.ones(1, 2)))
        run_test(lambda x: x.copy_(torch.ones(1, 2, 3)))

    def test_inference_mode_inf_tensor_in_inf_mode_view_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_inf_mode_view_op
        with torch.inference_mode():
            for requires_grad in (True, False):
                c = torch.ones(1, 2, 3, requires_grad=requires_grad)

                # perform view operation produces inference tensor
                # that does not require grad
                view_out = c.view(-1)
                self.assertTrue(torch.is_inference(view_out))
                self.assertFalse(view_out.requires_grad)

    def test_inference_mode_inf_tensor_in_normal_mode_functional_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_functional_op
        def functional_op(x):
            return x * x

        for requires_grad in (True, False):
            with torch.inference_mode():
                c = torch.ones(1, 2, 3, requires_grad=requires_grad)

        func_out = functional_op(c)
        self.assertFalse(torch.is_inference(func_out))
        self.assertFalse(func_out.requires_grad)
        self.assertTrue(func_out.is_leaf)

    def test_inference_mode_inf_tensor_in_normal_mode_inplace_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_inplace_op
        def run_test(fn):
            for requires_grad in (False, True):
                with torch.inference_mode():
                    c = torch.ones(1, 2, 3, requires_grad=requires_grad)

                if requires_grad:
                    # leaf variable that requires grad is being used in an inplace
                    # operation when requires_grad=True
                    pass
                else:
                    err_msg = "Inplace update to inference tensor outside InferenceMode"
                    with self.assertRaisesRegex(RuntimeError, err_msg):
                        fn(c)

        run_test(lambda x: x.add_(2))
        run_test(lambda x: x.transpose_(0, 1))

    def test_inference_mode_inf_tensor_in_normal_mode_view_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_view_op
        for requires_grad in (True, False):
            with torch.inference_mode():
                c = torch.ones(1, 2, 3, requires_grad=requires_grad)

            out = c.view(-1)
            self.assertTrue(torch.is_inference(out))
            self.assertFalse(out.requires_grad)
            self.assertFalse(out._is_view())
            self.assertTrue(out.is_leaf)

    def test_normal_tensor_inplace_output_in_inference_mode(self):
        # test_autograd.py, TestAutogradInferenceMode.test_normal_tensor_inplace_output_in_inference_mode
        def run_test(fn):
            for requires_grad in (True, False):
                s = torch.ones(1, 2, 3, requires_grad=requires_grad)
                a = s.clone()

                with torch.inference_mode():
                    fn(a)
                    self.assertFalse(torch.is_inference(a))
                    self.assertEqual(a.requires_grad, requires_grad)

                    # inplace -> inplace
                    fn(a)
                    self.assertFalse(torch.is_inference(a))
                    self.assertEqual(a.requires_grad, requires_grad)

                    # inplace -> inplace -> view
                    view_out = a.view(-1)
                    self.assertFalse(torch.is_inference(view_out))
                    self.assertEqual(view_out.requires_grad, requires_grad)

        run_test(lambda x: x.add_(2))
        run_test(lambda x: x.transpose_(0, 1))

    def test_normal_tensor_inplace_output_in_normal_mode(self):
        # test_autograd.py, TestAutogradInferenceMode.test_normal_tensor_inplace_output_in_normal_mode
        def run_test(fn):
            for requires_grad in (True, False):
                s = torch.ones(1, 2, 3, requires_grad=requires_grad)
                a = s.clone()

                with torch.inference_mode():
                    fn(a)
                    self.assertFalse(torch.is_inference(a))
                    self.assertEqual(a.requires_grad, requires_grad)

                fn(a)
                self.assertFalse(torch.is_inference(a))
                self.assertEqual(a.requires_grad, requires_grad)

                # inplace -> inplace
                fn(a)
                self.assertFalse(torch.is_inference(a))
                self.assertEqual(a.requires_grad, requires_grad)

                # inplace -> inplace -> view
                view_out = a.view(-1)
                self.assertFalse(torch.is_inference(view_out))
                self.assertEqual(view_out.requires_grad, requires_grad)
            run_test(lambda x: x.add_(2))
            run_test(lambda x: x.transpose_(0, 1))

    def test_normal_tensor_view_output_in_inference_mode(self):
        # test_autograd.py, TestAutogradInferenceMode.test_normal_tensor_view_output_in_inference_mode
        for requires_grad in (True, False):
            s = torch.ones(1, 2, 3, requires_grad=requires_grad)
            a = s.clone()

            with torch.inference_mode():
                out = a.view(-1)
                self.assertFalse(torch.is_inference(out))
                self.assertEqual(out.requires_grad, requires_grad)
                self.assertTrue(out._is_view())

                # view -> view
                tmp = out.view(-1)
                self.assertFalse(torch.is_inference(tmp))
                self.assertEqual(tmp.requires_grad, requires_grad)
                self.assertTrue(tmp._is_view())
                self.assertTrue(tmp.is_leaf)

                # view -> view -> inplace
                self.assertTrue(torch.is_inference_mode_enabled())
                tmp.add_(2)
                self.assertFalse(torch.is_inference(tmp))
                self.assertEqual(tmp.requires_grad, requires_grad)
                # Accessing is_leaf in python tries to update grad_fn and raises:
                # A view was created in inference mode and its base or
                # another view of its base has been modified inplace in normal mode
                # tmp.is_leaf
                self.assertEqual(a._version, tmp._version)

    def test_normal_tensor_view_output_in_normal_mode(self):
        # test_autograd.py, TestAutogradInferenceMode.test_normal_tensor_view_output_in_normal_mode
        def functional_op(x):
            return x * x

        for requires_grad in (True, False):
            s = torch.ones(1, 2, 3, requires_grad=requires_grad)
            a = s.clone()

            with torch.inference_mode():
                out = a.view(-1)
                self.assertFalse(torch.is_inference(out))
                self.assertEqual(out.requires_grad, requires_grad)
                self.assertTrue(out._is_view())
                self.assertTrue(out.is_leaf)

            tmp = functional_op(out)
            self.assertFalse(torch.is_inference(tmp))
            self.assertEqual(tmp.requires_grad, requires_grad)

            if requires_grad:
                err_msg = (
                    "A view was created in inference mode and is being modified inplace"
                )
                with self.assertRaisesRegex(RuntimeError, err_msg):
                    out.add_(2)
            else:
                out.add_(2)

            tmp = out.view(2, 3)
            self.assertFalse(torch.is_inference(tmp))
            self.assertEqual(tmp.requires_grad, requires_grad)

    def test_mix_inference_and_normal_tensor_functional_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_mix_inference_and_normal_tensor_functional_op
        for requires_grad in (True, False):
            s = torch.ones(1, 2, 3, requires_grad=requires_grad)

            with torch.inference_mode():
                c = torch.ones(1, 2, 3, requires_grad=requires_grad)

            # add is safe since it doesn't save any variable for backward
            out = c.add(s)
            self.assertFalse(torch.is_inference(out))
            self.assertEqual(out.requires_grad, requires_grad)
            if requires_grad:
                # leaf inference tensor with requires_grad=True can still have gradient
                out.backward(torch.ones_like(out))
                self.assertEqual(c.grad, torch.ones_like(c))

            if requires_grad:
                err_msg = "Inference tensors cannot be saved for backward"
                with self.assertRaisesRegex(RuntimeError, err_msg):
                    c * s

    def test_mix_inference_and_normal_tensor_inplace_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_mix_inference_and_normal_tensor_inplace_op
        for requires_grad in (True, False):
            s = torch.ones(1, 2, 3, requires_grad=requires_grad)
            a = s.clone()

            with torch.inference_mode():
                c = torch.ones(1, 2, 3)

            self.assertTrue(torch.is_inference(c))
            if requires_grad:
                err_msg = "Inference tensors cannot be saved for backward"
                with self.assertRaisesRegex(RuntimeError, err_msg):
                    a.mul_(c)

                # inference tensor in TensorList input
                err_msg = (
                    "out=... arguments don't support automatic differentiation, "
                    "but one of the arguments requires grad"
                )
                with self.assertRaisesRegex(RuntimeError, err_msg):
                    torch.mul(s, s, out=c)
            else:
                a.mul_(c)
                err_msg = "Inplace update to inference tensor outside InferenceMode is not allowed"
                with self.assertRaisesRegex(RuntimeError, err_msg):
                    torch.mul(s, s, out=c)

    def test_mix_inference_and_normal_tensor_view_op(self):
        # test_autograd.py, TestAutogradInferenceMode.test_mix_inference_and_normal_tensor_view_op
        for requires_grad in (True, False):
            s = torch.ones(1, 2, 3, requires_grad=requires_grad)

            with torch.inference_mode():
                c = torch.ones(1, 2, 3)

            # view_as is a composite op which calls view with only one
            # tensor argument. So there isn't a mixed inference and normal
            # tensor inputs for view ops
            tmp1 = c.view_as(s)
            self.assertTrue(torch.is_inference(tmp1))
            self.assertFalse(tmp1.requires_grad)

            # this is fine since its equivalent as s.view(c.sizes()) which
            # isn't a mixed input scenario
            tmp2 = s.view_as(c)
            self.assertFalse(torch.is_inference(tmp2))
            self.assertEqual(tmp2.requires_grad, requires_grad)

    def test_inference_mode_handle_direct_view_on_rebase(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_handle_direct_view_on_rebase
        def run_test(fn):
            for requires_grad in (True, False):
                s = torch.ones(1, 2, 3, requires_grad=requires_grad)
                a = s.clone()

                with torch.inference_mode():
                    view_out = a.view_as(a)

                if requires_grad:
                    err_msg = "A view was created in inference mode and is being modified inplace"
                    with self.assertRaisesRegex(RuntimeError, err_msg):
                        fn(view_out)
                else:
                    fn(view_out)

        run_test(lambda x: x.add_(2))
        run_test(lambda x: x.transpose_(0, 1))

    def test_inference_mode_handle_indirect_view_on_rebase(self):
        # test_autograd.py, TestAutogradInferenceMode.test_inference_mode_handle_indirect_view_on_rebase
        def run_test(fn):
            for requires_grad in (True, False):
                s = torch.ones(1, 2, 3, requires_grad=requires_grad)
                a = s.clone()

                with torch.inference_mode():
                    view_out = a.view(-1)

                fn(a)
                if requires_grad:
                    err_msg = "A view was created in inference mode and its base or another view "
                    with self.assertRaisesRegex(RuntimeError, err_msg):
                        view_out.grad_fn
                else:
                    view_out.grad_fn

        run_test(lambda x: x.add_(2))
        run_test(lambda x: x.transpose_(0, 1))


# =========================================================================================
# Ported from test/test_autograd.py, class TestAutograd: custom Functions (outputs, views,
# mark_dirty, mark_non_differentiable, save_for_backward) and backward(inputs=...)
# =========================================================================================
@pytest.mark.usefixtures("door")
class TestAutogradFunctions(_Case):
    def test_function_returns_input(self):
        # test_autograd.py, TestAutograd.test_function_returns_input
        class MyFunction(Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        for shape in [(1,), ()]:
            v = torch.ones(shape, requires_grad=True)
            MyFunction.apply(v).backward()
            self.assertEqual(v.grad, torch.full(shape, 2.0))

            with torch.no_grad():
                v.grad.zero_()
            MyFunction.apply(v.clone()).backward()
            self.assertEqual(v.grad, torch.full(shape, 2.0))

    def test_mark_non_differentiable(self):
        # test_autograd.py, TestAutograd.test_mark_non_differentiable
        class MyFunction(Function):
            @staticmethod
            def forward(ctx, input):
                output = input > 0
                ctx.mark_non_differentiable(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                return (grad_output * 0).to(torch.double)

        x = torch.randn(5, 5, requires_grad=True)
        mask = MyFunction.apply(x)
        self.assertFalse(mask.requires_grad)
        y = x.masked_fill(mask, 0)
        y.sum().backward()

    def test_mark_non_differentiable_mixed(self):
        # test_autograd.py, TestAutograd.test_mark_non_differentiable_mixed
        class MyFunction(Function):
            @staticmethod
            def forward(ctx, input):
                a = input + 1
                b = input + 2
                ctx.mark_non_differentiable(a)
                return a, b

            @staticmethod
            def backward(ctx, grad_a, grad_b):
                self.assertTrue((grad_a == 0).all())
                self.assertTrue((grad_b == 1).all())
                return grad_b

        x = torch.randn(5, 5, requires_grad=True)
        a, b = MyFunction.apply(x)
        self.assertFalse(a.requires_grad)
        self.assertTrue(b.requires_grad)
        b.sum().backward()
        self.assertEqual(x.grad, torch.ones(5, 5))

    def test_mark_non_differentiable_none(self):
        # test_autograd.py, TestAutograd.test_mark_non_differentiable_none
        class MyFunction(Function):
            @staticmethod
            def forward(ctx, input):
                output = input.clone()
                ctx.mark_non_differentiable(output)
                return output

            @staticmethod
            def backward(ctx, grad_output):
                return None

        x = torch.randn(5, 5, requires_grad=True)
        r = MyFunction.apply(x * x)
        (r * x).sum().backward()

    def test_return_duplicate(self):
        # test_autograd.py, TestAutograd.test_return_duplicate
        class DoubleDuplicate(Function):
            @staticmethod
            def forward(ctx, x):
                output = x * 2
                return output, output

            @staticmethod
            def backward(ctx, grad1, grad2):
                return grad1 * 2 + grad2 * 2

        def fn(x):
            a, b = DoubleDuplicate.apply(x)
            self.assertIs(a, b)
            return a + b

        x = torch.randn(5, 5, dtype=torch.double, requires_grad=True)
        gradcheck(fn, [x])
        gradgradcheck(fn, [x])

    def test_return_leaf(self):
        # test_autograd.py, TestAutograd.test_return_leaf
        class Identity(Function):
            @staticmethod
            def forward(ctx, a, b):
                return a, a + b

            @staticmethod
            def backward(ctx, grad_a, grad_b):
                return grad_a + grad_b, grad_b

        hook_called = [False]
        x = torch.randn(5, 5, requires_grad=True)
        y = torch.randn(5, 5, requires_grad=True)

        q, p = Identity.apply(x, y)

        # Make sure hooks only receive grad from usage of q, not x.
        def hook(grad):
            hook_called[0] = True
            self.assertEqual(grad, torch.ones(5, 5))

        q.register_hook(hook)
        (q + p + x).sum().backward()
        self.assertEqual(x.grad, torch.ones(5, 5) * 3)
        self.assertEqual(y.grad, torch.ones(5, 5))
        self.assertTrue(hook_called[0])

    def test_no_grad_input(self):
        # test_autograd.py, TestAutograd.test_no_grad_input
        class MyFunction(Function):
            @staticmethod
            def forward(self, x):
                return x

            @staticmethod
            def backward(self, grad_output):
                return grad_output

        x = torch.randn(5, requires_grad=True)
        with torch.no_grad():
            y = MyFunction.apply(x)

        self.assertTrue(x.requires_grad)
        self.assertIsNone(y.grad_fn)

    def test_save_none_for_backward(self):
        # test_autograd.py, TestAutograd.test_save_none_for_backward
        test_case = self

        class MyFn(Function):
            @staticmethod
            def forward(ctx, input):
                ctx.save_for_backward(None, input, None)
                return input * input

            @staticmethod
            def backward(ctx, grad_output):
                n1, input, n2 = ctx.saved_tensors
                test_case.assertIsNone(n1)
                test_case.assertIsNone(n2)
                return 2 * input * grad_output

        x = torch.randn(5, 5, requires_grad=True)
        y = MyFn.apply(x)
        y.sum().backward()
        self.assertEqual(x.grad, 2 * x)

    def test_too_many_grads(self):
        # test_autograd.py, TestAutograd.test_too_many_grads
        class MyFn(Function):
            @staticmethod
            def forward(ctx, input):
                return input

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output, None, None

        x = torch.randn(5, 5, requires_grad=True)
        y = MyFn.apply(x)
        y.sum().backward()
        self.assertEqual(x.grad, torch.ones_like(x))

    def test_dep_nograd(self):
        # test_autograd.py, TestAutograd.test_dep_nograd
        class F1(Function):
            @staticmethod
            def forward(ctx, input):
                out = torch.randn(input.size())
                ctx.mark_non_differentiable(out)
                return input, out

            @staticmethod
            def backward(ctx, grad_output, ignored):
                return grad_output

        class F2(Function):
            @staticmethod
            def forward(ctx, input, ignored):
                return input

            @staticmethod
            def backward(ctx, grad_output):
                return grad_output, None

        x = torch.randn(5, requires_grad=True)
        a, b = F1.apply(x)
        b = b + 1  # separate F1 from F2 by another op
        self.assertTrue(a.requires_grad)
        self.assertFalse(b.requires_grad)
        c = F2.apply(a, b)
        c.backward(torch.ones(c.size()))
        self.assertEqual(x.grad, torch.ones(x.size()))

    def test_inplace_on_view_python(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_python (device "cpu")
        device = "cpu"
        a = torch.randn(4, 4, dtype=torch.double, device=device, requires_grad=True)
        b = torch.randn(2, 2, dtype=torch.double, device=device, requires_grad=True)

        class PyAdd(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.mark_dirty(x)
                x.add_(y)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad, grad

        def func(root, b):
            x = root.clone()
            PyAdd.apply(x.narrow(1, 2, 2).narrow(0, 1, 2), b)
            PyAdd.apply(x.narrow(1, 0, 2).narrow(0, 1, 2), b)
            return x

        gradcheck(func, [a, b], raise_exception=True)
        go = torch.randn(
            a.size(), dtype=torch.double, device=device, requires_grad=True
        )
        gradgradcheck(func, (a, b), (go,))

    def test_inplace_on_view_undefined_grad_output(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_undefined_grad_output
        a = torch.tensor([1.0], requires_grad=True)
        c = a.clone()
        v = c[:]
        b = torch.tensor(1.0, requires_grad=True)

        class InplaceFunc(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, other):
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def backward(ctx, grad):
                return grad * 2, None

        out = InplaceFunc.apply(v, b)
        out.backward()
        self.assertIsNone(b.grad)
        self.assertEqual(a.grad.item(), 2)

    # ------------------------------------------------------------ views and in-place
    def test_inplace_on_view_backprop_base(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_backprop_base
        device = "cpu"
        # modify view and back-prop through base
        root = torch.randn(2, 2, device=device, requires_grad=True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v1.mul_(2)
        x.sum().backward()
        self.assertEqual(root.grad.tolist(), [[2, 2], [1, 1]])

    def test_inplace_on_view_backprop_view_of_view(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_backprop_view_of_view
        device = "cpu"
        # modify view and backprop through view-of-view
        root = torch.randn(2, 2, device=device, requires_grad=True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v2 = x.narrow(0, 0, 1)
        v1.mul_(2)
        v2.sum().backward()
        self.assertEqual(root.grad.tolist(), [[2, 2], [0, 0]])

    def test_inplace_on_view_of_view(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_of_view
        device = "cpu"
        # modify view-of-view and backprop through base
        root = torch.randn(2, 2, device=device, requires_grad=True)
        x = root.clone()

        v1 = x.narrow(0, 0, 1)
        v2 = v1.narrow(1, 1, 1)
        v2.mul_(2)
        x.sum().backward()
        self.assertEqual(root.grad.tolist(), [[1, 2], [1, 1]])

    def test_inplace_on_view_then_no_grad(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_then_no_grad
        device = "cpu"
        # Perform an in-place operation on a view of a non-leaf variable.
        a = torch.ones(3, 1, dtype=torch.double, device=device, requires_grad=True)
        b = a * 2
        c = b.view_as(b)
        c[0][0] = 3

        # Force a graph update with grad disabled.
        with torch.no_grad():
            c.grad_fn

        c.sum().backward()

    def test_inplace_on_view_gradcheck(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_gradcheck
        device = "cpu"
        # gradcheck modifications to views
        a = torch.randn(4, 4, dtype=torch.double, device=device, requires_grad=True)
        b = torch.randn(2, 2, dtype=torch.double, device=device, requires_grad=True)

        def func(root, b):
            x = root.clone()
            x.narrow(1, 2, 2).narrow(0, 1, 2).mul_(b)
            x.narrow(1, 0, 2).narrow(0, 1, 2).mul_(b)
            return x

        gradcheck(func, [a, b], raise_exception=True)
        go = torch.randn(
            a.size(), dtype=torch.double, device=device, requires_grad=True
        )
        gradgradcheck(func, (a, b), (go,))

    def test_inplace_on_view_multiple_outputs(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_multiple_outputs
        root = torch.arange(9.0, dtype=torch.double).reshape(3, 3).requires_grad_()
        x = root.clone()
        v1 = x.unbind()
        with self.assertRaises(RuntimeError):
            v1[0].mul_(2)

    def test_inplace_on_view_of_multiple_output_view(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_of_multiple_output_view
        device = "cpu"
        a = torch.rand(
            10, dtype=torch.double, device=device, requires_grad=True
        ).clone()
        b = a.unbind(0)
        c = b[0].view_as(b[0])
        with self.assertRaises(RuntimeError):
            c.mul_(2)

    def test_inplace_multiple_output_view_of_view(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_multiple_output_view_of_view
        device = "cpu"
        a = torch.rand(
            10, dtype=torch.double, device=device, requires_grad=True
        ).clone()
        b = a.view_as(a)
        c = b.unbind(0)
        with self.assertRaises(RuntimeError):
            c[0].mul_(2)

    def test_inplace_on_view_makes_base_require_grad(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_makes_base_require_grad
        device = "cpu"
        # in-place modification to view makes base require grad
        a = torch.randn(4, 4, dtype=torch.double, device=device, requires_grad=False)
        b = torch.randn(4, 2, dtype=torch.double, device=device, requires_grad=True)

        def func(root, b):
            x = root.clone()
            self.assertFalse(x.requires_grad)
            x.narrow(1, 2, 2).mul_(b)
            self.assertTrue(x.requires_grad)
            return x

        gradcheck(func, [a, b], raise_exception=True)
        go = torch.randn(
            a.size(), dtype=torch.double, device=device, requires_grad=True
        )
        gradgradcheck(func, (a, b), (go,))

    def test_inplace_on_view_backprop_view(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_backprop_view
        device = "cpu"
        # modify view and backprop through view
        a = torch.tensor([2.0, 5.0], device=device, requires_grad=False)
        b = torch.tensor([3.0], device=device, requires_grad=True)
        res = a.narrow(0, 1, 1).mul_(b)
        res.sum().backward()
        self.assertEqual(b.grad.tolist(), [5])
        self.assertIsNone(a.grad)

    def test_inplace_on_view_modify_base(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_modify_base
        device = "cpu"
        # Test that an in-place operation on a base that forced it to require
        # grad also forces any previous views to require grad and backprop
        # correctly
        r = torch.ones(1, dtype=torch.double, device=device, requires_grad=True)

        def fn(r):
            x = torch.ones(5, dtype=torch.double, device=device)
            v = x.select(0, 1)
            self.assertFalse(v.requires_grad)
            self.assertIsNone(v.grad_fn)
            x.add_(r)  # v is now dependent on r due to the in-place op on x
            self.assertTrue(v.requires_grad)
            return v

        gradcheck(fn, [r])
        gradgradcheck(fn, [r])

    def test_inplace_on_view_non_contig(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_non_contig
        device = "cpu"
        root = torch.ones(2, 3, 2, device=device).select(2, 1).t().requires_grad_(True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        v2 = v1.narrow(1, 1, 1)
        v2.mul_(2)
        x.sum().backward()
        self.assertEqual(root.grad.tolist(), [[1, 2], [1, 1], [1, 1]])

    def test_inplace_on_view_multi_output_safe(self):
        # test_autograd.py, TestAutogradDeviceType.test_inplace_on_view_multi_output_safe
        device = "cpu"
        for f in [
            lambda t: t.split(1),
            lambda t: t.split_with_sizes((1, 1, 1)),
            lambda t: t.chunk(3),
        ]:
            a = torch.randn(3, 3, device=device, requires_grad=True)
            b = a + a
            s1, s2, s3 = f(b)
            error_msg = (
                "This view is the output of a function that returns multiple views."
            )
            with self.assertRaisesRegex(RuntimeError, error_msg):
                s1.mul_(s2)

    # ------------------------------------------------------------ backward(inputs=...)
    def test_backward_with_inputs(self):
        # test_autograd.py, TestAutograd.test_backward_with_inputs
        x = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
        y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)

        def fn():
            return x**2 + y * x + y**2

        gradient = torch.ones(2, 2)
        x_grad_expected = 2 * x + y
        y_grad_expected = x + 2 * y

        @torch.no_grad()
        def reset_grad():
            x.grad.zero_()
            y.grad.zero_()

        torch.autograd.backward(fn(), gradient, inputs=[x, y])
        self.assertEqual(x.grad, x_grad_expected)
        self.assertEqual(y.grad, y_grad_expected)

        reset_grad()
        torch.autograd.backward(fn(), gradient, inputs=[x])
        self.assertEqual(x.grad, x_grad_expected)
        self.assertEqual(y.grad, torch.zeros(2, 2), exact_dtype=False)

        reset_grad()
        torch.autograd.backward(fn(), gradient, inputs=[y])
        self.assertEqual(y.grad, y_grad_expected)
        self.assertEqual(x.grad, torch.zeros(2, 2), exact_dtype=False)

        reset_grad()
        torch.autograd.backward(fn(), gradient, inputs=y)
        self.assertEqual(y.grad, y_grad_expected)
        self.assertEqual(x.grad, torch.zeros(2, 2), exact_dtype=False)

        reset_grad()
        self.assertRaisesRegex(
            RuntimeError,
            "cannot be empty",
            lambda: torch.autograd.backward(fn(), gradient, inputs=[]),
        )

    def test_backward_with_scalar_input(self):
        # test_autograd.py, TestAutograd.test_backward_with_scalar_input
        x = torch.randn([], dtype=torch.double, requires_grad=True)
        out = x**2
        out.backward(inputs=x)
        self.assertEqual(x.grad, 2 * x)

    def test_backward_with_nonleaf_inputs(self):
        # test_autograd.py, TestAutograd.test_backward_with_nonleaf_inputs
        x = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
        x_nonleaf = x * 1
        y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
        z = torch.randn(2, 2, dtype=torch.double, requires_grad=True)

        out = x_nonleaf**2 + y * x_nonleaf + y**2

        out.backward(
            torch.ones(2, 2, dtype=torch.double),
            create_graph=True,
            inputs=[x, y, x_nonleaf],
        )
        x_grad_expected = 2 * x + y
        y_grad_expected = x + 2 * y
        x_non_leaf_expected = 2 * x_nonleaf + y

        self.assertEqual(y.grad, y_grad_expected)
        self.assertEqual(x.grad, x_grad_expected)
        self.assertEqual(x_nonleaf.grad, x_non_leaf_expected)

        # backward doesn't have an allow_unused flag, so the behavior of backward
        # when variable is not part of the graph is as if allow_used were true
        # x.grad will simply be None.
        out.backward(
            torch.ones(2, 2, dtype=torch.double), create_graph=True, inputs=[z]
        )
        self.assertIsNone(z.grad)

        # Avoid leaking memory
        x.grad = None
        y.grad = None
        x_nonleaf.grad = None

    def test_grad_unreachable_discovery(self):
        # test_autograd.py, TestAutograd.test_grad_unreachable_discovery
        class MyFunc(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, x):
                self.fail("This node should not be executed!")

        x = MyFunc.apply(torch.randn(1, requires_grad=True) * 2)
        y = torch.randn(1, requires_grad=True)
        (gY,) = torch.autograd.grad(x, (y,), allow_unused=True)
        self.assertIsNone(gY)

        x = MyFunc.apply(torch.randn(1, requires_grad=True) * 2)
        y = torch.randn(1, requires_grad=True)
        z = torch.randn(1, requires_grad=True)
        (gY, gZ) = torch.autograd.grad(x + z, (y, z), allow_unused=True)
        self.assertIsNone(gY)
        self.assertIsNotNone(gZ)

        x = MyFunc.apply(torch.randn(1, requires_grad=True) * 2)
        y = torch.randn(1, requires_grad=True)
        torch.autograd.backward(x, inputs=(y,))  # allow_unused is implicitly True!
        self.assertIsNone(y.grad)

    def test_multi_backward(self):
        # test_autograd.py, TestAutograd.test_multi_backward
        x = torch.randn(5, 5, requires_grad=True)
        y = torch.randn(5, 5, requires_grad=True)

        q = torch.randn(5, 5, requires_grad=True)

        a = torch.randn(5, 5, requires_grad=True)
        b = torch.randn(5, 5, requires_grad=True)

        q2 = q * 2
        z = x + y + q2
        c = a * b + q2
        grad_z = torch.randn(5, 5)
        grad_c = torch.randn(5, 5)
        torch.autograd.backward([z, c], [grad_z, grad_c])

        self.assertEqual(x.grad, grad_z)
        self.assertEqual(y.grad, grad_z)
        self.assertEqual(a.grad, grad_c * b)
        self.assertEqual(b.grad, grad_c * a)
        self.assertEqual(q.grad, (grad_c + grad_z) * 2)

    def test_multi_backward_no_grad(self):
        # test_autograd.py, TestAutograd.test_multi_backward_no_grad
        x = torch.randn(5, 5, requires_grad=True)
        y = torch.randn(5, 5, requires_grad=False)

        z = x + y
        q = y * 2

        # NB: we currently raise an exception if any arguments to backwards
        # have requires_grad=False and don't have a grad_fn. We may want to
        # relax that check to a warning.
        def call_backwards():
            torch.autograd.backward([z, q], [torch.ones(5, 5), torch.ones(5, 5)])

        self.assertRaises(RuntimeError, call_backwards)

    def test_backward_no_grad(self):
        # test_autograd.py, TestAutograd.test_backward_no_grad
        a = torch.randn(5, 5, requires_grad=True)
        b = a + 2
        with self.assertRaises(RuntimeError):
            torch.autograd.backward([b], [None])

    def test_duplicate_backward_root(self):
        # test_autograd.py, TestAutograd.test_duplicate_backward_root
        a = torch.randn(5, 5, requires_grad=True)
        b = torch.randn(5, 5, requires_grad=True)

        x = a * b
        grad_output = torch.randn_like(x)
        torch.autograd.backward([x, x], [grad_output, grad_output])

        self.assertEqual(a.grad, b * grad_output * 2)
        self.assertEqual(b.grad, a * grad_output * 2)

    def test_dependent_backward(self):
        # test_autograd.py, TestAutograd.test_dependent_backward
        x = torch.randn(10, requires_grad=True)
        y = x**2
        z = y**3

        go_y = torch.randn(10)
        go_z = torch.randn(10)
        torch.autograd.backward([y, z], [go_y, go_z])

        xd = x
        self.assertEqual(x.grad, 2 * xd * go_y + 6 * xd.pow(5) * go_z)


# =========================================================================================
# Written here: oar.torch against torch 2.13 on what the ported tests leave open. Each
# scenario runs in both frameworks; the outcome (value, or exception class family and the
# exact message, which oar may extend with the op's name and a fix) must agree.
# =========================================================================================
def _outcome(fn):
    try:
        r = fn()
    except Exception as e:   # noqa: BLE001  (the class is compared below)
        return ("raises", isinstance(e, RuntimeError), isinstance(e, TypeError), str(e))
    return ("ok", _values(r) if hasattr(r, "tolist") else r)


def _same(scenario):
    """scenario(mod) -> a list of (label, thunk); the outcomes agree in both frameworks."""
    want = [(k, _outcome(f)) for k, f in scenario(real_torch)]
    got = [(k, _outcome(f)) for k, f in scenario(oar_torch)]
    for (k, w), (_, g) in zip(want, got):
        if w[0] == "ok" and g[0] == "ok" and isinstance(w[1], np.ndarray):
            np.testing.assert_allclose(g[1], w[1], rtol=1e-6, atol=1e-6, err_msg=k)
        elif w[0] == "raises":
            # the same exception family and PyTorch's message, which oar may follow with
            # the op's name and a fix
            assert g[:3] == w[:3] and g[3].startswith(w[3]), (k, g, w)
        else:
            assert g == w, k


def _fns(t):
    F = t.autograd.Function

    class ViewFn(F):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return g

    class Ident(F):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class Split(F):
        @staticmethod
        def forward(ctx, x):
            return x[:2], x[2:]

        @staticmethod
        def backward(ctx, g1, g2):
            return t.cat([g1, g2])

    class SplitND(F):
        @staticmethod
        def forward(ctx, x):
            a, b = x[:2], x[2:]
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, g1, g2):
            return t.cat([g1, g2])

    return ViewFn, Ident, Split, SplitND


def test_custom_function_view_outputs_match_torch():
    # Note [Function outputs]: a view made in forward, an input returned as is (leaf or
    # not), under grad or no_grad, one or several differentiable outputs
    def scenario(t):
        t.manual_seed(0)   # oar.torch draws torch's CPU random streams: the same values
        ViewFn, Ident, Split, SplitND = _fns(t)
        base = t.rand(2, 3, requires_grad=True).clone()
        v = ViewFn.apply(base)
        v2 = ViewFn.apply(base)
        a = t.rand(3, requires_grad=True).clone()
        leaf = t.rand(3, requires_grad=True)
        o, ol = Ident.apply(a), Ident.apply(leaf)
        with t.no_grad():
            ng = ViewFn.apply(t.rand(2, requires_grad=True))
            sp_ng = Split.apply(t.rand(4, requires_grad=True).clone())
        sp = Split.apply(t.rand(4, requires_grad=True).clone())
        p, q = SplitND.apply(t.rand(4, requires_grad=True).clone())

        def base_then_use():
            with t.no_grad():
                base.mul_(2)
            return v2.grad_fn
        return [
            ("view flags", lambda: (v._is_view(), v._base is base, v.requires_grad)),
            ("inplace on view", lambda: v.add_(1)),
            ("base modified", base_then_use),
            ("input as is", lambda: (o._is_view(), o is a, o._base is a, o.is_leaf)),
            ("input as is, inplace", lambda: o.add_(1)),
            ("leaf as is, inplace", lambda: ol.add_(1)),
            ("no_grad view", lambda: (ng.requires_grad, ng._is_view(), ng.grad_fn is None)),
            ("no_grad view zero_", lambda: ng.zero_()),
            ("two views mul_", lambda: sp[0].mul_(2)),
            ("two views no_grad mul_", lambda: sp_ng[0].mul_(2)),
            ("non-diff sibling view", lambda: p.mul_(2)),
            ("non-diff flags", lambda: (q.requires_grad, q._is_view(), q.grad_fn is None)),
            ("non-diff inplace", lambda: q.mul_(2)),
        ]
    _same(scenario)


def test_custom_function_dirty_and_saved_match_torch():
    def scenario(t):
        F = t.autograd.Function

        class DirtyNotReturned(F):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class DirtyMulti(F):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x, x * 2

            @staticmethod
            def backward(ctx, g, g2):
                return g * 2

        class SaveThenModify(F):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * x

        class SaveInput(F):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * x

        class Save2(F):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return x * y

            @staticmethod
            def backward(ctx, g):
                x, y = ctx.saved_tensors
                return g * y, g * x

        a = t.tensor([1.0, 2.0, 3.0], requires_grad=True)

        def save_then_modify():
            r = SaveThenModify.apply(a.clone())
            r.sum().backward()
            return a.grad

        def save_then_modify_after():
            b = a.clone()
            r = SaveInput.apply(b)
            b.add_(1)
            r.sum().backward()
        with t.inference_mode():
            c = t.ones(3)

        def no_grad_dirty():
            with t.no_grad():
                DirtyNotReturned.apply(a.clone())
        return [
            ("dirty not returned", lambda: DirtyNotReturned.apply(a.clone())),
            ("dirty not returned, no grad", lambda: DirtyNotReturned.apply(t.ones(3))),
            ("dirty not returned, no_grad", no_grad_dirty),
            ("dirty view, two outputs", lambda: DirtyMulti.apply(a.clone()[:2])),
            ("save then modify in forward", save_then_modify),
            ("save then modify after", lambda: _outcome(save_then_modify_after)[0]),
            ("inference saved, not recorded", lambda: SaveInput.apply(c)),
            ("inference saved, recorded", lambda: Save2.apply(c, t.ones(3, requires_grad=True))),
        ]
    _same(scenario)


def test_multi_output_views_raise_where_torch_raises():
    # an in-place write into one of unbind's outputs is allowed under no_grad; the siblings
    # then raise when used, and repr shows grad_fn=<Invalid>, as in PyTorch
    def scenario(t):
        a = t.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True).clone()
        u = a.unbind(0)
        with t.no_grad():
            u2 = a.unbind(0)

        def write_under_no_grad():
            with t.no_grad():
                u[1].mul_(2)
            return repr(u[1])
        return [
            ("grad-mode write", lambda: u[0].mul_(2)),
            ("no_grad view written with grad", lambda: u2[0].mul_(2)),
            ("write under no_grad", write_under_no_grad),
            ("sibling grad_fn", lambda: u[1].grad_fn),
            ("other sibling used", lambda: u[2] * 2),
        ]
    _same(scenario)


def test_inference_mode_rules_match_torch():
    def scenario(t):
        s = t.ones(2, 3, requires_grad=True)
        a = s.clone()
        with t.inference_mode():
            c = t.ones(2, 3, requires_grad=True)
            d = t.ones(2, 3)
            vd = a.view_as(a)
            vi = a.view(-1)
            grad_inside = t.is_grad_enabled()
            with t.inference_mode(False):
                nested = (t.is_grad_enabled(), t.is_inference_mode_enabled(),
                          t.ones(1).is_inference())
        with t.no_grad():
            with t.inference_mode(False):
                in_no_grad = t.is_grad_enabled()

        def mul_refused():
            b = s.clone()
            before = (b.detach().clone(), b._version)
            try:
                b.mul_(d)
            except RuntimeError as e:
                return str(e), t.equal(b.detach(), before[0]), b._version == before[1]

        def indirect():
            a.add_(1)
            return vi.grad_fn
        return [
            ("modes", lambda: (grad_inside, nested, in_no_grad)),
            ("view of inference", lambda: (c.view(-1)._is_view(), c.view(-1)._base is None,
                                           c.view(-1).requires_grad, c.view(-1).is_inference())),
            ("inference-only op", lambda: ((c * c).requires_grad, (c * c).is_inference())),
            ("version", lambda: d._version),
            ("requires_grad_", lambda: d.detach().requires_grad_()),
            ("requires_grad_(False)", lambda: d.detach().requires_grad_(False).requires_grad),
            ("saved", lambda: d * s),
            ("mul_ refused, nothing changed", mul_refused),
            ("inplace outside", lambda: d.add_(1)),
            ("direct view rebase", lambda: vd.add_(1)),
            ("indirect view rebase", indirect),
            ("is_inference", lambda: (t.is_inference(c), t.is_inference(s), c.is_inference())),
        ]
    _same(scenario)


def test_backward_inputs_match_torch():
    # only the given inputs accumulate; other leaves' hooks never run; an input's own hooks
    # and post-accumulate hooks do; torch.autograd.backward's own argument checks
    def scenario(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = t.tensor([3.0, -1.0], requires_grad=True)
        log = []
        x.register_hook(lambda g: log.append("x"))
        y.register_hook(lambda g: log.append("y"))
        y.register_post_accumulate_grad_hook(lambda p: log.append("y post"))

        def only_y():
            (x * y).sum().backward(inputs=[y])
            return list(log), x.grad, y.grad.tolist()

        def nonleaf():
            log.clear()
            h = x * 2
            (h * y).sum().backward(inputs=[h])
            return list(log), h.grad.tolist(), x.grad, y.grad.tolist()

        def all_leaves():
            log.clear()
            t.autograd.backward(x * y, grad_variables=t.ones(2))
            return sorted(log), x.grad.tolist(), y.grad.tolist()
        return [
            ("only y", only_y),
            ("non-leaf input", nonleaf),
            ("empty", lambda: (x * y).sum().backward(inputs=[])),
            ("not requiring grad", lambda: (x * y).sum().backward(inputs=[t.ones(2)]) or 0),
            ("non-scalar", lambda: t.autograd.backward(x * y)),
            ("no grad_fn", lambda: t.autograd.backward(t.ones(2))),
            ("grad_variables", all_leaves),
        ]
    want = [_outcome(f) for _, f in scenario(real_torch)]
    got = [_outcome(f) for _, f in scenario(oar_torch)]
    assert got[:3] == want[:3]
    # an input that does not require grad: both refuse (oar names the input and the fix)
    assert got[3][:2] == want[3][:2] and want[3][3] in got[3][3]
    assert got[4:] == want[4:]


@pytest.mark.parametrize("cls, shape", [
    ("Dropout2d", (3, 4)), ("Dropout2d", (2, 3, 4)), ("Dropout2d", (2, 3, 4, 5)),
    ("Dropout2d", (5,)), ("Dropout3d", (3, 4, 5)), ("Dropout3d", (2, 3, 4, 5)),
    ("Dropout3d", (2, 3, 4, 5, 6)), ("Dropout3d", (2, 3)), ("Dropout1d", (3,)),
    ("Dropout1d", (3, 4)), ("Dropout1d", (2, 3, 4))])
def test_feature_dropout_warns_and_runs_as_torch(cls, shape):
    # Note [Feature dropout dims]: dropout2d/3d warn for other ranks and run (never refused
    # where torch runs); the same seed gives the same mask as torch's
    def run(t):
        t.manual_seed(0)
        m = getattr(t.nn, cls)(0.5)
        x = t.ones(*shape)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = _outcome(lambda: m(x))
        return out, [str(i.message) for i in w]
    (got, got_w), (want, want_w) = run(oar_torch), run(real_torch)
    assert got_w == want_w
    assert got[0] == want[0]
    if want[0] == "ok":
        np.testing.assert_array_equal(got[1], want[1])
    else:
        assert got == want
