"""Autograd fidelity of the torch door: the inference-mode tests and the custom-Function /
backward(inputs=...) tests of PyTorch's own test/test_autograd.py (pytorch/pytorch, read at
commit 5c322af10e52e4d236104ceefd542f34e6dcf20a), re-expressed test by test.

Each test in the two classes below checks what the PyTorch test of the same name checks
(which tensors are inference tensors or views, which flags they carry, which in-place ops and
saves raise and with what message, which gradients come out), written here in our own words:
the stored copy of PyTorch's source is reference material whose code stays out of this
repository, so bodies are not pasted. The module-level names `torch`, `Function`, `gradcheck`
and `gradgradcheck` are bound per run by the `door` fixture, so every test of those classes
runs twice: on torch 2.13 itself (the oracle: the test is faithful) and on oar.torch. The
fixture and the TestCase assertions come from tests/torch_testcase.py.

The tests after the two classes compare oar.torch with torch 2.13 directly on behaviours
those tests leave open (exact messages, the point where an error is raised, warnings); they
run once each."""
import warnings

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
import oar.torch as oar_torch  # noqa: E402
from tests.torch_testcase import TorchTestCase, door_fixture, float_values  # noqa: E402

torch = Function = gradcheck = gradgradcheck = None   # bound by the `door` fixture

SRC = "test/test_autograd.py@5c322af10e52e4d236104ceefd542f34e6dcf20a"


door = door_fixture(globals(), ("torch", "Function", "gradcheck", "gradgradcheck"),
                    autouse=False)


def _fn(forward, backward, name="Fn"):
    """A custom autograd Function of the bound door made from two plain functions
    (forward(ctx, *inputs), backward(ctx, *grads))."""
    return type(name, (Function,), {"forward": staticmethod(forward),
                                    "backward": staticmethod(backward)})


def _ones(requires_grad=False):
    return torch.ones(1, 2, 3, requires_grad=requires_grad)


# in-place ops the inference-mode tests apply: one that writes, one that only changes metadata
_WRITE_OR_RESTRIDE = {"add_": lambda t: t.add_(2), "transpose_": lambda t: t.transpose_(0, 1)}

_SAVED_MODIFIED = ("one of the variables needed for gradient computation has been modified "
                   "by an inplace operation")
_INF_SAVED = "Inference tensors cannot be saved for backward"
_INF_INPLACE_OUTSIDE = "Inplace update to inference tensor outside InferenceMode"
_INF_VIEW_INPLACE = "A view was created in inference mode and is being modified inplace"
_INF_VIEW_REBASED = "A view was created in inference mode and its base or another view "


# =========================================================================================
# TestAutogradInferenceMode
# =========================================================================================
@pytest.mark.usefixtures("door")
class TestAutogradInferenceMode(TorchTestCase):
    def test_inference_mode_context_manager(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_context_manager
        seen = [torch.is_inference_mode_enabled()]
        with torch.inference_mode():
            seen.append(torch.is_inference_mode_enabled())
            with torch.inference_mode(False):   # switched off inside, back on after
                seen.append(torch.is_inference_mode_enabled())
            seen.append(torch.is_inference_mode_enabled())
        seen.append(torch.is_inference_mode_enabled())
        assert seen == [False, True, False, True, False]

    def test_inference_mode_decorator(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_decorator
        def square(expect_on):
            def body(t):
                assert torch.is_inference_mode_enabled() == expect_on
                return t * t
            return body

        # (is the mode on inside?, how the decorator is spelled)
        spellings = [(True, lambda f: torch.inference_mode(f)),          # bare decorator
                     (True, lambda f: torch.inference_mode(mode=f))]
        for on in (True, False):
            spellings.append((on, lambda f, on=on: torch.inference_mode(on)(f)))
            spellings.append((on, lambda f, on=on: torch.inference_mode(mode=on)(f)))
        for on, decorate in spellings:
            wrapped = decorate(square(on))
            for rg in (True, False):
                out = wrapped(_ones(rg))
                assert torch.is_inference(out) or not on
                assert out.requires_grad == (rg and not on)

    def test_inference_mode_tensor_creation(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_tensor_creation
        with torch.inference_mode():
            plain = _ones()
            asked = _ones(True)                      # the flag is kept, still inference
            dropped = _ones().requires_grad_(False)
            assert [t.requires_grad for t in (plain, asked, dropped)] == [False, True, False]
            assert all(torch.is_inference(t) for t in (plain, asked, dropped))

    def test_inference_mode_existing_autograd_session(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_existing_autograd_session
        nonleaf = _ones(True).clone()
        product = nonleaf * nonleaf        # saves `nonleaf` outside inference mode
        with torch.inference_mode():
            nonleaf.add_(2)                # a normal tensor: its version still counts
        assert not torch.is_inference(nonleaf)
        with self.assertRaisesRegex(RuntimeError, _SAVED_MODIFIED):
            product.backward(torch.ones_like(product))

    def test_inference_mode_inf_tensor_in_inf_mode_functional_op(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_inf_mode_functional_op
        with torch.inference_mode():
            for rg in (True, False):
                t = _ones(rg)
                sq = t * t
                assert torch.is_inference(sq) and not sq.requires_grad

    def test_inference_mode_inf_tensor_in_inf_mode_inplace_op(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_inf_mode_inplace_op
        ops = list(_WRITE_OR_RESTRIDE.values()) + [
            lambda t: t.resize_(1, 2),   # the ops with a hand-written ADInplaceOrView kernel
            lambda t: t.resize_as_(torch.ones(1, 2)),
            lambda t: t.copy_(_ones()),
        ]
        with torch.inference_mode():
            for op in ops:
                for rg in (True, False):
                    t = _ones(rg)
                    op(t)
                    assert torch.is_inference(t)
                    assert t.requires_grad == rg

    def test_inference_mode_inf_tensor_in_inf_mode_view_op(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_inf_mode_view_op
        with torch.inference_mode():
            for rg in (True, False):
                flat = _ones(rg).view(-1)
                assert torch.is_inference(flat) and not flat.requires_grad

    def test_inference_mode_inf_tensor_in_normal_mode_functional_op(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_functional_op
        # (PyTorch's loop leaves the tensor made without requires_grad as the one used)
        with torch.inference_mode():
            t = _ones(False)
        sq = t * t
        assert not torch.is_inference(sq)
        assert not sq.requires_grad and sq.is_leaf

    def test_inference_mode_inf_tensor_in_normal_mode_inplace_op(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_inplace_op
        # (only the tensor without requires_grad is checked there; the other is a leaf)
        for op in _WRITE_OR_RESTRIDE.values():
            with torch.inference_mode():
                t = _ones(False)
            with self.assertRaisesRegex(RuntimeError, _INF_INPLACE_OUTSIDE):
                op(t)

    def test_inference_mode_inf_tensor_in_normal_mode_view_op(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_inf_tensor_in_normal_mode_view_op
        for rg in (True, False):
            with torch.inference_mode():
                t = _ones(rg)
            flat = t.view(-1)   # outside the mode: still an inference tensor, and no view
            assert torch.is_inference(flat) and not flat.requires_grad
            assert not flat._is_view() and flat.is_leaf

    def test_normal_tensor_inplace_output_in_inference_mode(self):
        # SRC TestAutogradInferenceMode.test_normal_tensor_inplace_output_in_inference_mode
        for op in _WRITE_OR_RESTRIDE.values():
            for rg in (True, False):
                t = _ones(rg).clone()
                with torch.inference_mode():
                    for _ in range(2):   # in place, then in place again
                        op(t)
                        assert not torch.is_inference(t) and t.requires_grad == rg
                    flat = t.view(-1)    # then a view
                    assert not torch.is_inference(flat) and flat.requires_grad == rg

    def test_normal_tensor_inplace_output_in_normal_mode(self):
        # SRC TestAutogradInferenceMode.test_normal_tensor_inplace_output_in_normal_mode
        # (PyTorch's body defines its checks but never calls them; they are run here)
        for op in _WRITE_OR_RESTRIDE.values():
            for rg in (True, False):
                t = _ones(rg).clone()
                with torch.inference_mode():
                    op(t)
                    assert not torch.is_inference(t) and t.requires_grad == rg
                for _ in range(2):
                    op(t)
                    assert not torch.is_inference(t) and t.requires_grad == rg
                flat = t.view(-1)
                assert not torch.is_inference(flat) and flat.requires_grad == rg

    def test_normal_tensor_view_output_in_inference_mode(self):
        # SRC TestAutogradInferenceMode.test_normal_tensor_view_output_in_inference_mode
        for rg in (True, False):
            t = _ones(rg).clone()
            with torch.inference_mode():
                v = t.view(-1)
                assert not torch.is_inference(v) and v.requires_grad == rg and v._is_view()
                vv = v.view(-1)
                assert not torch.is_inference(vv) and vv.requires_grad == rg
                assert vv._is_view() and vv.is_leaf
                assert torch.is_inference_mode_enabled()
                vv.add_(2)
                assert not torch.is_inference(vv) and vv.requires_grad == rg
                # (vv.is_leaf would now raise: the view was made in inference mode and
                # written since; PyTorch's test leaves it out too)
                assert t._version == vv._version

    def test_normal_tensor_view_output_in_normal_mode(self):
        # SRC TestAutogradInferenceMode.test_normal_tensor_view_output_in_normal_mode
        for rg in (True, False):
            t = _ones(rg).clone()
            with torch.inference_mode():
                v = t.view(-1)
                assert not torch.is_inference(v) and v.requires_grad == rg
                assert v._is_view() and v.is_leaf
            sq = v * v
            assert not torch.is_inference(sq) and sq.requires_grad == rg
            if rg:
                with self.assertRaisesRegex(RuntimeError, _INF_VIEW_INPLACE):
                    v.add_(2)
            else:
                v.add_(2)
            again = v.view(2, 3)
            assert not torch.is_inference(again) and again.requires_grad == rg

    def test_mix_inference_and_normal_tensor_functional_op(self):
        # SRC TestAutogradInferenceMode.test_mix_inference_and_normal_tensor_functional_op
        for rg in (True, False):
            normal = _ones(rg)
            with torch.inference_mode():
                inf = _ones(rg)
            total = inf.add(normal)   # add saves nothing, so mixing is fine
            assert not torch.is_inference(total) and total.requires_grad == rg
            if rg:
                # an inference leaf that requires grad still gets its gradient...
                total.backward(torch.ones_like(total))
                self.assertEqual(inf.grad, torch.ones_like(inf))
                # ...but mul would have to save it
                with self.assertRaisesRegex(RuntimeError, _INF_SAVED):
                    inf * normal

    def test_mix_inference_and_normal_tensor_inplace_op(self):
        # SRC TestAutogradInferenceMode.test_mix_inference_and_normal_tensor_inplace_op
        for rg in (True, False):
            normal = _ones(rg)
            target = normal.clone()
            with torch.inference_mode():
                inf = _ones()
            assert torch.is_inference(inf)
            if not rg:
                target.mul_(inf)
                with self.assertRaisesRegex(RuntimeError,
                                            _INF_INPLACE_OUTSIDE + " is not allowed"):
                    torch.mul(normal, normal, out=inf)
                continue
            with self.assertRaisesRegex(RuntimeError, _INF_SAVED):
                target.mul_(inf)
            with self.assertRaisesRegex(
                    RuntimeError, "out=... arguments don't support automatic differentiation, "
                                  "but one of the arguments requires grad"):
                torch.mul(normal, normal, out=inf)

    def test_mix_inference_and_normal_tensor_view_op(self):
        # SRC TestAutogradInferenceMode.test_mix_inference_and_normal_tensor_view_op
        # view_as reads only the other tensor's sizes: never a mixed-input view
        for rg in (True, False):
            normal = _ones(rg)
            with torch.inference_mode():
                inf = _ones()
            shaped_like_normal = inf.view_as(normal)
            assert torch.is_inference(shaped_like_normal)
            assert not shaped_like_normal.requires_grad
            shaped_like_inf = normal.view_as(inf)
            assert not torch.is_inference(shaped_like_inf)
            assert shaped_like_inf.requires_grad == rg

    def test_inference_mode_handle_direct_view_on_rebase(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_handle_direct_view_on_rebase
        for op in _WRITE_OR_RESTRIDE.values():
            for rg in (True, False):
                t = _ones(rg).clone()
                with torch.inference_mode():
                    v = t.view_as(t)
                if not rg:
                    op(v)
                    continue
                with self.assertRaisesRegex(RuntimeError, _INF_VIEW_INPLACE):
                    op(v)

    def test_inference_mode_handle_indirect_view_on_rebase(self):
        # SRC TestAutogradInferenceMode.test_inference_mode_handle_indirect_view_on_rebase
        for op in _WRITE_OR_RESTRIDE.values():
            for rg in (True, False):
                t = _ones(rg).clone()
                with torch.inference_mode():
                    v = t.view(-1)
                op(t)   # the base changes in normal mode: v's grad_fn would need a rebuild
                if not rg:
                    v.grad_fn
                    continue
                with self.assertRaisesRegex(RuntimeError, _INF_VIEW_REBASED):
                    v.grad_fn


# =========================================================================================
# TestAutograd / TestAutogradDeviceType: custom Functions (outputs, views, mark_dirty,
# mark_non_differentiable, save_for_backward) and backward(inputs=...)
# =========================================================================================
@pytest.mark.usefixtures("door")
class TestAutogradFunctions(TorchTestCase):
    def test_function_returns_input(self):
        # SRC TestAutograd.test_function_returns_input
        doubled_grad = _fn(lambda ctx, x: x, lambda ctx, g: 2 * g)
        for shape in ((1,), ()):
            leaf = torch.ones(shape, requires_grad=True)
            doubled_grad.apply(leaf).backward()             # the leaf itself comes back
            self.assertEqual(leaf.grad, torch.full(shape, 2.0))
            with torch.no_grad():
                leaf.grad.zero_()
            doubled_grad.apply(leaf.clone()).backward()     # a non-leaf comes back
            self.assertEqual(leaf.grad, torch.full(shape, 2.0))

    def test_mark_non_differentiable(self):
        # SRC TestAutograd.test_mark_non_differentiable
        def positive(ctx, x):
            mask = x > 0
            ctx.mark_non_differentiable(mask)
            return mask

        Positive = _fn(positive, lambda ctx, g: (g * 0).to(torch.double))
        x = torch.randn(5, 5, requires_grad=True)
        mask = Positive.apply(x)
        assert not mask.requires_grad
        x.masked_fill(mask, 0).sum().backward()   # the mask's backward is never asked for

    def test_mark_non_differentiable_mixed(self):
        # SRC TestAutograd.test_mark_non_differentiable_mixed
        def forward(ctx, x):
            plus_one, plus_two = x + 1, x + 2
            ctx.mark_non_differentiable(plus_one)
            return plus_one, plus_two

        def backward(ctx, g_one, g_two):
            # the non-differentiable output's gradient arrives as zeros
            assert bool((g_one == 0).all()) and bool((g_two == 1).all())
            return g_two

        x = torch.randn(5, 5, requires_grad=True)
        one, two = _fn(forward, backward).apply(x)
        assert not one.requires_grad and two.requires_grad
        two.sum().backward()
        self.assertEqual(x.grad, torch.ones(5, 5))

    def test_mark_non_differentiable_none(self):
        # SRC TestAutograd.test_mark_non_differentiable_none
        def forward(ctx, x):
            copy = x.clone()
            ctx.mark_non_differentiable(copy)
            return copy

        x = torch.randn(5, 5, requires_grad=True)
        out = _fn(forward, lambda ctx, g: None).apply(x * x)
        (out * x).sum().backward()   # a backward that returns None for its input is fine

    def test_return_duplicate(self):
        # SRC TestAutograd.test_return_duplicate
        def forward(ctx, x):
            twice = x * 2
            return twice, twice   # one tensor, returned for both outputs

        Dup = _fn(forward, lambda ctx, g1, g2: 2 * g1 + 2 * g2)

        def both(x):
            first, second = Dup.apply(x)
            assert first is second
            return first + second

        x = torch.randn(5, 5, dtype=torch.double, requires_grad=True)
        gradcheck(both, [x])
        gradgradcheck(both, [x])

    def test_return_leaf(self):
        # SRC TestAutograd.test_return_leaf
        Pass = _fn(lambda ctx, a, b: (a, a + b), lambda ctx, ga, gb: (ga + gb, gb))
        x = torch.randn(5, 5, requires_grad=True)
        y = torch.randn(5, 5, requires_grad=True)
        same_as_x, total = Pass.apply(x, y)
        seen = []
        # the hook sees only what flows through the returned leaf, not x's own uses
        same_as_x.register_hook(lambda g: seen.append(float_values(g)))
        (same_as_x + total + x).sum().backward()
        assert len(seen) == 1
        self.assertEqual(seen[0], np.ones((5, 5)))
        self.assertEqual(x.grad, torch.ones(5, 5) * 3)
        self.assertEqual(y.grad, torch.ones(5, 5))

    def test_no_grad_input(self):
        # SRC TestAutograd.test_no_grad_input
        x = torch.randn(5, requires_grad=True)
        with torch.no_grad():
            out = _fn(lambda ctx, t: t, lambda ctx, g: g).apply(x)
        assert x.requires_grad
        assert out.grad_fn is None

    def test_save_none_for_backward(self):
        # SRC TestAutograd.test_save_none_for_backward
        def forward(ctx, x):
            ctx.save_for_backward(None, x, None)
            return x * x

        def backward(ctx, g):
            before, x, after = ctx.saved_tensors
            assert before is None and after is None
            return 2 * x * g

        x = torch.randn(5, 5, requires_grad=True)
        _fn(forward, backward).apply(x).sum().backward()
        self.assertEqual(x.grad, 2 * x)

    def test_too_many_grads(self):
        # SRC TestAutograd.test_too_many_grads
        # trailing None gradients beyond the inputs are accepted and dropped
        Extra = _fn(lambda ctx, x: x, lambda ctx, g: (g, None, None))
        x = torch.randn(5, 5, requires_grad=True)
        Extra.apply(x).sum().backward()
        self.assertEqual(x.grad, torch.ones_like(x))

    def test_dep_nograd(self):
        # SRC TestAutograd.test_dep_nograd
        def with_noise(ctx, x):
            noise = torch.randn(x.size())
            ctx.mark_non_differentiable(noise)
            return x, noise

        WithNoise = _fn(with_noise, lambda ctx, g, unused: g, "WithNoise")
        TakeFirst = _fn(lambda ctx, x, unused: x, lambda ctx, g: (g, None), "TakeFirst")
        x = torch.randn(5, requires_grad=True)
        kept, noise = WithNoise.apply(x)
        noise = noise + 1   # another op between the two Functions
        assert kept.requires_grad and not noise.requires_grad
        out = TakeFirst.apply(kept, noise)
        out.backward(torch.ones(out.size()))
        self.assertEqual(x.grad, torch.ones(x.size()))

    def test_inplace_on_view_python(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_python (the cpu device)
        def add_into_first(ctx, x, y):
            ctx.mark_dirty(x)
            x.add_(y)
            return x

        AddInto = _fn(add_into_first, lambda ctx, g: (g, g))

        def two_patches(root, patch):
            x = root.clone()
            for col in (2, 0):   # rows 1-2: columns 2-3, then columns 0-1
                AddInto.apply(x.narrow(1, col, 2).narrow(0, 1, 2), patch)
            return x

        root = torch.randn(4, 4, dtype=torch.double, requires_grad=True)
        patch = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
        gradcheck(two_patches, [root, patch], raise_exception=True)
        grad_out = torch.randn(4, 4, dtype=torch.double, requires_grad=True)
        gradgradcheck(two_patches, (root, patch), (grad_out,))

    def test_inplace_on_view_undefined_grad_output(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_undefined_grad_output
        def double_in_place(ctx, x, other):
            ctx.mark_dirty(x)
            return x.mul_(2)

        leaf = torch.tensor([1.0], requires_grad=True)
        unused = torch.tensor(1.0, requires_grad=True)
        view = leaf.clone()[:]
        out = _fn(double_in_place, lambda ctx, g: (2 * g, None)).apply(view, unused)
        out.backward()
        assert unused.grad is None     # its gradient was None: nothing accumulated
        assert leaf.grad.item() == 2

    # ------------------------------------------------------------ views and in-place
    def test_inplace_on_view_backprop_base(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_backprop_base
        root = torch.randn(2, 2, requires_grad=True)
        base = root.clone()
        base.narrow(0, 0, 1).mul_(2)     # doubles the first row through a view
        base.sum().backward()
        assert root.grad.tolist() == [[2, 2], [1, 1]]

    def test_inplace_on_view_backprop_view_of_view(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_backprop_view_of_view
        root = torch.randn(2, 2, requires_grad=True)
        base = root.clone()
        written, other = base.narrow(0, 0, 1), base.narrow(0, 0, 1)
        written.mul_(2)
        other.sum().backward()           # the sibling view sees the write
        assert root.grad.tolist() == [[2, 2], [0, 0]]

    def test_inplace_on_view_of_view(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_of_view
        root = torch.randn(2, 2, requires_grad=True)
        base = root.clone()
        base.narrow(0, 0, 1).narrow(1, 1, 1).mul_(2)   # one element, two views deep
        base.sum().backward()
        assert root.grad.tolist() == [[1, 2], [1, 1]]

    def test_inplace_on_view_then_no_grad(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_then_no_grad
        doubled = torch.ones(3, 1, dtype=torch.double, requires_grad=True) * 2
        alias = doubled.view_as(doubled)
        alias[0][0] = 3
        with torch.no_grad():
            alias.grad_fn     # the view's graph is rebuilt while grad mode is off
        alias.sum().backward()

    def test_inplace_on_view_gradcheck(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_gradcheck
        def two_products(root, factor):
            x = root.clone()
            for col in (2, 0):   # the same two 2x2 blocks as above, multiplied in place
                x.narrow(1, col, 2).narrow(0, 1, 2).mul_(factor)
            return x

        root = torch.randn(4, 4, dtype=torch.double, requires_grad=True)
        factor = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
        gradcheck(two_products, [root, factor], raise_exception=True)
        grad_out = torch.randn(4, 4, dtype=torch.double, requires_grad=True)
        gradgradcheck(two_products, (root, factor), (grad_out,))

    def test_inplace_on_view_multiple_outputs(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_multiple_outputs
        rows = torch.arange(9.0, dtype=torch.double).reshape(3, 3).requires_grad_().clone()
        first = rows.unbind()[0]
        with self.assertRaisesRegex(RuntimeError):
            first.mul_(2)

    def test_inplace_on_view_of_multiple_output_view(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_of_multiple_output_view
        vec = torch.rand(10, dtype=torch.double, requires_grad=True).clone()
        piece = vec.unbind(0)[0]
        alias = piece.view_as(piece)   # a plain view of a multi-output view inherits the rule
        with self.assertRaisesRegex(RuntimeError):
            alias.mul_(2)

    def test_inplace_multiple_output_view_of_view(self):
        # SRC TestAutogradDeviceType.test_inplace_multiple_output_view_of_view
        vec = torch.rand(10, dtype=torch.double, requires_grad=True).clone()
        pieces = vec.view_as(vec).unbind(0)
        with self.assertRaisesRegex(RuntimeError):
            pieces[0].mul_(2)

    def test_inplace_on_view_makes_base_require_grad(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_makes_base_require_grad
        def scale_right_half(root, factor):
            x = root.clone()
            assert not x.requires_grad
            x.narrow(1, 2, 2).mul_(factor)
            assert x.requires_grad      # the write made the base depend on `factor`
            return x

        root = torch.randn(4, 4, dtype=torch.double, requires_grad=False)
        factor = torch.randn(4, 2, dtype=torch.double, requires_grad=True)
        gradcheck(scale_right_half, [root, factor], raise_exception=True)
        grad_out = torch.randn(4, 4, dtype=torch.double, requires_grad=True)
        gradgradcheck(scale_right_half, (root, factor), (grad_out,))

    def test_inplace_on_view_backprop_view(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_backprop_view
        data = torch.tensor([2.0, 5.0], requires_grad=False)
        factor = torch.tensor([3.0], requires_grad=True)
        data.narrow(0, 1, 1).mul_(factor).sum().backward()
        assert factor.grad.tolist() == [5]
        assert data.grad is None

    def test_inplace_on_view_modify_base(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_modify_base
        # a view taken before its base starts requiring grad follows the base's history
        def second_after_add(r):
            base = torch.ones(5, dtype=torch.double)
            second = base.select(0, 1)
            assert not second.requires_grad and second.grad_fn is None
            base.add_(r)
            assert second.requires_grad
            return second

        r = torch.ones(1, dtype=torch.double, requires_grad=True)
        gradcheck(second_after_add, [r])
        gradgradcheck(second_after_add, [r])

    def test_inplace_on_view_non_contig(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_non_contig
        root = torch.ones(2, 3, 2).select(2, 1).t().requires_grad_(True)   # 3x2, strided
        base = root.clone()
        base.narrow(0, 0, 1).narrow(1, 1, 1).mul_(2)
        base.sum().backward()
        assert root.grad.tolist() == [[1, 2], [1, 1], [1, 1]]

    def test_inplace_on_view_multi_output_safe(self):
        # SRC TestAutogradDeviceType.test_inplace_on_view_multi_output_safe
        splitters = (lambda t: t.split(1), lambda t: t.split_with_sizes((1, 1, 1)),
                     lambda t: t.chunk(3))
        for split in splitters:
            doubled = 2 * torch.randn(3, 3, requires_grad=True)
            first, second, _ = split(doubled)
            with self.assertRaisesRegex(RuntimeError, "This view is the output of a function "
                                                      "that returns multiple views."):
                first.mul_(second)

    # ------------------------------------------------------------ backward(inputs=...)
    def test_backward_with_inputs(self):
        # SRC TestAutograd.test_backward_with_inputs
        x = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
        y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
        want = {"x": 2 * x + y, "y": x + 2 * y}       # of x^2 + xy + y^2
        seed = torch.ones(2, 2)

        def run(inputs):
            torch.autograd.backward(x ** 2 + y * x + y ** 2, seed, inputs=inputs)

        run([x, y])
        self.assertEqual(x.grad, want["x"])
        self.assertEqual(y.grad, want["y"])
        # one input at a time (a list or the bare tensor): the other's .grad stays zero
        for inputs, got, other in (([x], x, y), ([y], y, x), (y, y, x)):
            with torch.no_grad():
                x.grad.zero_()
                y.grad.zero_()
            run(inputs)
            self.assertEqual(got.grad, want["x" if got is x else "y"])
            self.assertEqual(other.grad, torch.zeros(2, 2, dtype=torch.double))
        with self.assertRaisesRegex(RuntimeError, "cannot be empty"):
            run([])

    def test_backward_with_scalar_input(self):
        # SRC TestAutograd.test_backward_with_scalar_input
        x = torch.randn([], dtype=torch.double, requires_grad=True)
        (x ** 2).backward(inputs=x)
        self.assertEqual(x.grad, 2 * x)

    def test_backward_with_nonleaf_inputs(self):
        # SRC TestAutograd.test_backward_with_nonleaf_inputs
        def leaf():
            return torch.randn(2, 2, dtype=torch.double, requires_grad=True)

        x, y, unrelated = leaf(), leaf(), leaf()
        h = x * 1   # a non-leaf input
        out = h ** 2 + y * h + y ** 2
        ones = torch.ones(2, 2, dtype=torch.double)
        out.backward(ones, create_graph=True, inputs=[x, y, h])
        self.assertEqual(x.grad, 2 * x + y)
        self.assertEqual(y.grad, x + 2 * y)
        self.assertEqual(h.grad, 2 * h + y)
        # an input the output does not depend on: backward behaves as allow_unused
        out.backward(ones, create_graph=True, inputs=[unrelated])
        assert unrelated.grad is None
        x.grad = y.grad = h.grad = None   # break the create_graph reference cycles

    def test_grad_unreachable_discovery(self):
        # SRC TestAutograd.test_grad_unreachable_discovery
        def never(ctx, g):
            self.fail("a node no input depends on must not run")

        Never = _fn(lambda ctx, x: x, never)

        def guarded():
            return Never.apply(torch.randn(1, requires_grad=True) * 2)

        def leaf():
            return torch.randn(1, requires_grad=True)

        y = leaf()
        assert torch.autograd.grad(guarded(), (y,), allow_unused=True) == (None,)
        y, z = leaf(), leaf()
        g_y, g_z = torch.autograd.grad(guarded() + z, (y, z), allow_unused=True)
        assert g_y is None and g_z is not None
        y = leaf()
        torch.autograd.backward(guarded(), inputs=(y,))   # implicitly allow_unused
        assert y.grad is None

    def test_multi_backward(self):
        # SRC TestAutograd.test_multi_backward
        x, y, q, a, b = (torch.randn(5, 5, requires_grad=True) for _ in range(5))
        shared = q * 2
        first, second = x + y + shared, a * b + shared
        g_first, g_second = torch.randn(5, 5), torch.randn(5, 5)
        torch.autograd.backward([first, second], [g_first, g_second])
        self.assertEqual(x.grad, g_first)
        self.assertEqual(y.grad, g_first)
        self.assertEqual(a.grad, g_second * b)
        self.assertEqual(b.grad, g_second * a)
        self.assertEqual(q.grad, (g_first + g_second) * 2)

    def test_multi_backward_no_grad(self):
        # SRC TestAutograd.test_multi_backward_no_grad
        # a root that neither requires grad nor has a grad_fn is refused
        x = torch.randn(5, 5, requires_grad=True)
        y = torch.randn(5, 5, requires_grad=False)
        with self.assertRaisesRegex(RuntimeError):
            torch.autograd.backward([x + y, y * 2], [torch.ones(5, 5), torch.ones(5, 5)])

    def test_backward_no_grad(self):
        # SRC TestAutograd.test_backward_no_grad
        # no gradient given for a 5x5 root: refused (no implicit ones)
        shifted = torch.randn(5, 5, requires_grad=True) + 2
        with self.assertRaisesRegex(RuntimeError):
            torch.autograd.backward([shifted], [None])

    def test_duplicate_backward_root(self):
        # SRC TestAutograd.test_duplicate_backward_root
        a = torch.randn(5, 5, requires_grad=True)
        b = torch.randn(5, 5, requires_grad=True)
        prod = a * b
        g = torch.randn_like(prod)
        torch.autograd.backward([prod, prod], [g, g])   # the same root twice: gradients add
        self.assertEqual(a.grad, 2 * b * g)
        self.assertEqual(b.grad, 2 * a * g)

    def test_dependent_backward(self):
        # SRC TestAutograd.test_dependent_backward
        x = torch.randn(10, requires_grad=True)
        square = x ** 2
        sixth = square ** 3    # one root depends on the other
        g_square, g_sixth = torch.randn(10), torch.randn(10)
        torch.autograd.backward([square, sixth], [g_square, g_sixth])
        self.assertEqual(x.grad, 2 * x * g_square + 6 * x.pow(5) * g_sixth)


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
    return ("ok", float_values(r) if hasattr(r, "tolist") else r)


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
