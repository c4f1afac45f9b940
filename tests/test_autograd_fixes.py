"""Issue 8 ("Never silently wrong, never unsafe"), autograd part: each reproduction of the
issue, checked against PyTorch 2.13 run here (skipped where torch is absent), NumPy or exact
arithmetic — never against oar's own output."""
import inspect
import threading

import numpy as np
import pytest

import oar
from oar.autograd.errors import GraphReleasedError, SavedTensorModifiedError


def leaf(data, dtype="float32"):
    t = oar.to_tensor(np.asarray(data, dtype=dtype))
    t.stop_gradient = False
    return t


def torch_or_skip():
    return pytest.importorskip("torch")


def grad_np(t):
    return None if t.grad is None else t.grad.numpy()


# ---------------------------------------------------------------- 1. threads
def test_threaded_accumulation_into_one_leaf_loses_nothing():
    # issue 8: 8 threads x 200 backward passes into one 100,000-element leaf; every element
    # must end at exactly 8 * 200 (PyTorch: 1600; oar lost updates before the lock)
    w = oar.zeros([100_000])
    w.stop_gradient = False
    n_threads, n_iter = 8, 200
    errors = []

    def work():
        try:
            for _ in range(n_iter):
                (w * 1.0).sum().backward()
        except Exception as e:   # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    g = w.grad.numpy()
    assert g.min() == n_threads * n_iter and g.max() == n_threads * n_iter


def test_threaded_first_accumulation_keeps_every_contribution():
    # the first accumulation (kept gradient, Note [Gradient ownership]) races too: many
    # fresh leaves, each receiving one backward from each of 8 threads at once
    for _ in range(20):
        w = oar.zeros([50_000])
        w.stop_gradient = False
        start = threading.Barrier(8)

        def work():
            start.wait()
            (w * 2.0).sum().backward()

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        g = w.grad.numpy()
        assert g.min() == 16.0 and g.max() == 16.0


def test_grad_mode_is_thread_local():
    torch = torch_or_skip()
    # PyTorch: grad mode is thread-local
    seen = {}
    for lib, mk in (("torch", lambda: torch.ones(2, requires_grad=True)),
                    ("oar", lambda: leaf([1.0, 1.0]))):
        mode = torch if lib == "torch" else oar
        entered, done = threading.Event(), threading.Event()

        def other():
            with mode.no_grad():
                entered.set()
                done.wait(10)

        th = threading.Thread(target=other)
        th.start()
        entered.wait(10)
        x = mk()
        seen[lib] = ((x * 2).requires_grad, mode.is_grad_enabled())
        done.set()
        th.join()
    assert seen["oar"] == seen["torch"] == (True, True)


def test_backward_in_one_thread_does_not_disable_grad_in_another():
    # the engine turns grad mode off while it runs (no create_graph): only in its own thread
    x = leaf([1.0, 2.0])
    in_hook, resume = threading.Event(), threading.Event()
    recorded = {}

    def hook(g):
        in_hook.set()
        resume.wait(10)
        return None

    y = x * 3
    y.register_hook(hook)
    th = threading.Thread(target=lambda: y.sum().backward())
    th.start()
    assert in_hook.wait(10)
    z = x * 2            # main thread, while the other thread is inside backward
    recorded["rg"] = z.requires_grad
    resume.set()
    th.join()
    assert recorded["rg"] is True
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


# ---------------------------------------------------------------- 2. retain_grad on views
def test_retain_grad_on_views_after_inplace_on_base():
    torch = torch_or_skip()

    def run(lib):
        if lib is torch:
            base = torch.tensor([1.0], requires_grad=True).clone()
        else:
            base = leaf([1.0]).clone()
        v, v2 = base[:], base[:]
        v.retain_grad()
        v2.retain_grad()
        v.mul_(2)
        (v + v2).sum().backward()
        return [None if t.grad is None else np.asarray(t.grad.detach().numpy() if lib is torch
                                                       else t.grad.numpy())
                for t in (v, v2)]

    want = run(torch)
    got = run(oar)
    assert want[0] is not None and want[1] is not None
    for w, g in zip(want, got):
        assert g is not None
        np.testing.assert_allclose(g, w)


def test_retain_grad_on_base_and_view_through_copy_slices():
    torch = torch_or_skip()

    def run(lib):
        if lib is torch:
            x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        else:
            x = leaf([1.0, 2.0, 3.0])
        base = x * 1
        base.retain_grad()
        v = base[1:]
        v.retain_grad()
        v.mul_(3)
        (base * base).sum().backward()
        out = []
        for t in (base, v, x):
            g = t.grad
            out.append(None if g is None else (g.detach().numpy() if lib is torch else g.numpy()))
        return out

    for w, g in zip(run(torch), run(oar)):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, w)


# ---------------------------------------------------------------- 3. custom Function, 2 outputs
def _two_outputs(lib):
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3
    return Two


@pytest.mark.parametrize("retain_first", [False, True])
def test_custom_function_two_outputs_retain_grad(retain_first):
    torch = torch_or_skip()

    def run(lib):
        x = torch.ones(3, requires_grad=True) if lib is torch else leaf([1.0, 1.0, 1.0])
        o1, o2 = _two_outputs(lib).apply(x)
        if retain_first:
            o1.retain_grad()
        o2.retain_grad()
        o1.mul_(2)
        (o1 + o2).sum().backward()
        ts = (o1, o2, x) if retain_first else (o2, x)
        return [t.grad.detach().numpy() if lib is torch else t.grad.numpy() for t in ts]

    for w, g in zip(run(torch), run(oar)):
        np.testing.assert_allclose(g, w)


# ---------------------------------------------------------------- 4. detach_ of a saved tensor
def test_detach_inplace_of_saved_input_raises_like_torch():
    torch = torch_or_skip()
    xt = torch.tensor(1.0, requires_grad=True).clone()
    bt = xt.sin()
    xt.detach_()
    with pytest.raises(RuntimeError, match="detached in-place") as et:
        bt.backward()
    x = leaf(1.0).clone()
    b = x.sin()
    x.detach_()
    assert x._version == xt._version   # detach_ does not bump the version
    with pytest.raises(SavedTensorModifiedError, match="detached in-place"):
        b.backward()
    assert et.type is RuntimeError


def test_detach_inplace_cases_match_torch():
    torch = torch_or_skip()

    def cases(lib):
        def mk(v):
            return (torch.tensor(v, requires_grad=True) if lib is torch else leaf(v))

        def leaf_detached():              # a leaf has no history to lose: no error
            w = mk([1.0, 2.0])
            b = w.sin()
            w.detach_()
            b.sum().backward()
            return w.grad is None, w.requires_grad

        def output_saved_by_own_node():   # exp saves its output: PyTorch allows it
            x = mk([1.0, 2.0])
            y = x.exp()
            y2 = y * 1
            y.detach_()
            y2.sum().backward()
            return "ok"

        def output_used_as_saved_input():  # y saved as an input of mul: refused
            x = mk([1.0, 2.0])
            w = x * 1
            y = w.exp()
            z = y * w
            y.detach_()
            z.sum().backward()
            return "ok"

        def detach_then_requires_grad():  # the history is gone even if requires_grad is back
            x = mk([1.0, 2.0]).clone()
            b = x.sin()
            x.detach_()
            x.requires_grad_()
            b.sum().backward()
            return "ok"

        out = []
        for f in (leaf_detached, output_saved_by_own_node, output_used_as_saved_input,
                  detach_then_requires_grad):
            try:
                out.append(f())
            except RuntimeError as e:
                out.append("detached in-place" in str(e))
        return out

    assert cases(oar) == cases(torch)


# ---------------------------------------------------------------- 5. second backward
SECOND_BACKWARD = {
    "x*2": lambda L, x: (x * 2).sum(),
    "x/2": lambda L, x: (x / 2).sum(),
    "x**2": lambda L, x: (x ** 2).sum(),
    "x*y": lambda L, x: (x * L.ones([3])).sum(),
    "exp": lambda L, x: x.exp().sum(),
    "sin": lambda L, x: x.sin().sum(),
    "relu": lambda L, x: x.relu().sum(),
    "max": lambda L, x: x.max(),
    "matmul": lambda L, x: x @ L.ones([3]),
    "x[[0,1]]": lambda L, x: x[[0, 1]].sum(),
    "x[int tensor]": lambda L, x: x[L.tensor([0, 2])].sum(),
    "x[bool mask]": lambda L, x: x[L.tensor([True, False, True])].sum(),
    "gather": lambda L, x: x.gather(0, L.tensor([0, 1])).sum(),
    "masked_fill": lambda L, x: x.masked_fill(L.tensor([True, False, True]), 0.0).sum(),
    "where": lambda L, x: L.where(L.tensor([True, False, True]), x, L.zeros([3])).sum(),
    "clone.mul_(2)": lambda L, x: x.clone().mul_(2).sum(),
    "index_put_": lambda L, x: x.clone().index_put_((L.tensor([0]),), L.tensor(5.0)).sum(),
    "scatter_": lambda L, x: x.clone().scatter_(0, L.tensor([0]), L.ones([1])).sum(),
    "scatter_add_": lambda L, x: x.clone().scatter_add_(0, L.tensor([0]), L.ones([1])).sum(),
    "index_add_": lambda L, x: x.clone().index_add_(0, L.tensor([0]), L.ones([1])).sum(),
    "setitem int": lambda L, x: _setitem(x, 0),
    "setitem slice": lambda L, x: _setitem(x, slice(0, 1)),
    "view.add_": lambda L, x: _view_add(x),
    "mean": lambda L, x: x.mean(),
    "sum": lambda L, x: x.sum(),
    "x+1": lambda L, x: (x + 1).sum(),
    "neg": lambda L, x: (-x).sum(),
    "expand": lambda L, x: x.expand(2, 3).sum(),
    "reshape": lambda L, x: x.reshape(1, 3).sum(),
    "x[1:]": lambda L, x: x[1:].sum(),
    "x[0]": lambda L, x: x[0],
    "clone.add_(1)": lambda L, x: x.clone().add_(1).sum(),
    "cast": lambda L, x: x.to(L.float64).sum(),
    "cumsum": lambda L, x: x.cumsum(0).sum(),
    "cat": lambda L, x: L.cat([x, x]).sum(),
}


def _setitem(x, k):
    y = x.clone()
    y[k] = 5.0
    return y.sum()


def _view_add(x):
    y = x.clone()
    y[1:].add_(1)
    return y.sum()


def _second_backward(L, name):
    x = L.ones([3])
    x.requires_grad_()
    y = SECOND_BACKWARD[name](L, x)
    y.backward()
    try:
        y.backward()
    except RuntimeError as e:
        assert "second time" in str(e), str(e)
        return "raises"
    return "ok", x.grad.numpy().tolist() if L is oar else x.grad.tolist()


@pytest.mark.parametrize("name", list(SECOND_BACKWARD))
def test_second_backward_raises_exactly_where_torch_does(name):
    torch = torch_or_skip()
    assert _second_backward(oar, name) == _second_backward(torch, name)


def test_second_backward_through_indexing_raises_graph_released():
    x = leaf([1.0, 2.0, 3.0])
    y = x[[0, 2]].sum()
    y.backward()
    with pytest.raises(GraphReleasedError, match="second time"):
        y.backward()
    z = x[[0, 2]].sum()
    z.backward(retain_graph=True)
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 3.0])


@pytest.mark.parametrize("saves", ["tensor", "nothing", "none"])
def test_second_backward_custom_function_like_torch(saves):
    torch = torch_or_skip()

    def run(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                if saves == "tensor":
                    ctx.save_for_backward(x)
                elif saves == "none":
                    ctx.save_for_backward(None)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = torch.ones(2, requires_grad=True) if lib is torch else leaf([1.0, 1.0])
        y = F.apply(x).sum()
        y.backward()
        try:
            y.backward()
        except RuntimeError as e:
            assert "second time" in str(e)
            return "raises"
        return x.grad.tolist()

    assert run(oar) == run(torch)


# ---------------------------------------------------------------- 6. hooks, gradients given
def _exc(f):
    try:
        f()
    except Exception as e:   # noqa: BLE001 - the type is what is compared
        return e
    return None


HOOK_RETURNS = {
    "wrong shape": lambda L, g: L.ones([4]),
    "broadcastable shape": lambda L, g: L.ones([1]),
    "0-d": lambda L, g: L.tensor(1.0),
    "str": lambda L, g: "a",
    "float": lambda L, g: 1.0,
    "other dtype": lambda L, g: g.to(L.float64),
    "same": lambda L, g: g * 2,
}


@pytest.mark.parametrize("on_leaf", [False, True])
@pytest.mark.parametrize("what", list(HOOK_RETURNS))
def test_hook_return_value_checked_like_torch(what, on_leaf):
    torch = torch_or_skip()

    def run(L):
        x = L.ones([3])
        x.requires_grad_()
        y = x if on_leaf else x * 2
        y.register_hook(lambda g: HOOK_RETURNS[what](L, g))
        e = _exc(lambda: (y * 1).sum().backward())
        return e, None if x.grad is None else x.grad.tolist()

    (et, gt), (eo, go) = run(torch), run(oar)
    if et is None:
        assert eo is None and go == gt
        return
    assert eo is not None, f"torch raised {et!r}"
    assert isinstance(eo, type(et)), (eo, et)
    assert not isinstance(eo, AttributeError)
    if "size" in str(et):
        assert "changed the size of value" in str(eo)
    if "type of value" in str(et):
        assert "changed the type of value" in str(eo)


def test_fewer_gradients_than_outputs_raise_like_torch():
    torch = torch_or_skip()
    for L in (torch, oar):
        a = L.ones([2])
        a.requires_grad_()
        b, c = a * 2, a * 3
        with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
            L.autograd.backward([b, c], [L.ones([2])])
        with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
            L.autograd.grad([b, c], [a], [L.ones([2])])
        assert a.grad is None   # refused before anything ran
    # more gradients than outputs: PyTorch uses the first ones
    ga = []
    for L in (torch, oar):
        a = L.ones([2])
        a.requires_grad_()
        L.autograd.backward([a * 2], [L.ones([2]), L.ones([2])])
        ga.append(a.grad.tolist())
    assert ga[0] == ga[1]


def test_grad_with_non_tensor_inputs_or_outputs_raises_cleanly():
    torch = torch_or_skip()
    for bad in ("input", "output"):
        errs = []
        for L in (torch, oar):
            a = L.ones([2])
            a.requires_grad_()
            b = a * 2
            if bad == "input":
                errs.append(_exc(lambda: L.autograd.grad([b], [a, 3.0], [L.ones([2])])))
            else:
                errs.append(_exc(lambda: L.autograd.grad([b, 3.0], [a])))
        et, eo = errs
        assert et is not None and eo is not None
        assert isinstance(eo, type(et)) and not isinstance(eo, AttributeError)


def test_backward_gradient_of_wrong_shape_raises_runtime_error():
    torch = torch_or_skip()
    for L in (torch, oar):
        a = L.ones([2])
        a.requires_grad_()
        with pytest.raises(RuntimeError, match="(?i)mismatch in shape"):
            (a * 2).backward(L.ones([3]))


GRAD_VALUES = {
    "float": lambda L: 0.0,
    "str": lambda L: "s",
    "None": lambda L: None,
    "same": lambda L: L.ones([2]),
    "wrong shape": lambda L: L.ones([3]),
    "broadcastable": lambda L: L.ones([1]),
    "extra dim": lambda L: L.ones([2, 1]),
    "float64": lambda L: L.ones([2], dtype=L.float64),
    "int64": lambda L: L.ones([2], dtype=L.int64),
}


@pytest.mark.parametrize("what", list(GRAD_VALUES))
def test_grad_setter_validates_like_torch(what):
    torch = torch_or_skip()
    res = []
    for L in (torch, oar):
        w = L.ones([2])
        w.requires_grad_()
        w.grad = L.ones([2])
        before = w.grad
        e = _exc(lambda: setattr(w, "grad", GRAD_VALUES[what](L)))
        if e is not None:
            assert w.grad is before   # refused: .grad unchanged
        res.append(e)
    et, eo = res
    if et is None:
        assert eo is None
    else:
        assert eo is not None and isinstance(eo, type(et)), (eo, et)
        if "different type" in str(et) or "dtype" in str(et):
            assert "dtype" in str(eo)


# ---------------------------------------------------------------- 7. mutation provenance
def _line_of(marker, fn):
    src, start = inspect.getsourcelines(fn)
    for i, line in enumerate(src):
        if marker in line:
            return start + i
    raise AssertionError(marker)


def _saved_error(f):
    with pytest.raises(SavedTensorModifiedError) as e:
        f()
    return str(e.value)


def test_provenance_points_at_users_line_for_relu_inplace_layer():
    def prog():
        x = leaf([1.0, -1.0, 2.0])
        y = x * 2
        z = y * x                       # saves y
        layer = oar.nn.ReLU()
        layer.inplace = True
        layer(y)                        # MARK-relu
        z.sum().backward()
    msg = _saved_error(prog)
    assert f"{__file__}:{_line_of('MARK-relu', prog)}" in msg, msg
    assert "`relu_`" in msg and "inside oar.nn.ReLU.forward" in msg, msg


def test_provenance_points_at_users_line_for_dropout_inplace():
    def prog():
        x = leaf([1.0, 1.0, 1.0])
        y = x * 2
        z = y * x
        oar.nn.functional.dropout(y, 0.5, inplace=True)   # MARK-dropout
        z.sum().backward()
    msg = _saved_error(prog)
    assert f"{__file__}:{_line_of('MARK-dropout', prog)}" in msg, msg
    assert "inside oar.nn.functional.dropout" in msg, msg


def test_provenance_points_at_users_line_for_optimizer_step():
    def prog():
        p = leaf([1.0, 2.0])
        opt = oar.optimizer.SGD(learning_rate=0.1, parameters=[p])
        (p * p).sum().backward()
        loss = (p * p).sum()            # saves p
        opt.step()                      # MARK-step
        loss.backward()
    msg = _saved_error(prog)
    assert f"{__file__}:{_line_of('MARK-step', prog)}" in msg, msg
    assert "SGD.step" in msg and "inside oar.optimizer" in msg, msg


def test_provenance_points_at_users_line_for_nn_init():
    import oar.nn.init as init

    def prog():
        lin = oar.nn.Linear(2, 2)
        x = leaf([[1.0, 2.0]])
        out = (x @ lin.weight).sum()    # saves the weight
        init.constant_(lin.weight, 0.5)  # MARK-init
        out.backward()
    msg = _saved_error(prog)
    assert f"{__file__}:{_line_of('MARK-init', prog)}" in msg, msg
    assert "inside oar.nn.init.constant_" in msg, msg


def test_provenance_of_a_direct_inplace_call_names_no_oar_function():
    def prog():
        x = leaf([1.0, 2.0])
        y = x * 2
        z = y * x
        y.add_(1)                       # MARK-add
        z.sum().backward()
    msg = _saved_error(prog)
    assert f"`add_` at {__file__}:{_line_of('MARK-add', prog)}" in msg, msg
    assert "inside" not in msg


# ---------------------------------------------------------------- 8. special values
# issue 8 reproductions: x ** 0.0 at 0 gave nan (PyTorch and Paddle 0); pow(0, 0) gave
# nan/-inf; maximum/minimum with ties gave 1/0 (PyTorch and Paddle 0.5/0.5). The formulas
# live in ops/pointwise.py.
SPECIAL = {
    "x**0.0": lambda L, a, b: a ** 0.0,
    "x**0": lambda L, a, b: a ** 0,
    "pow(a, b)": lambda L, a, b: L.pow(a, b),
    "0.0**b": lambda L, a, b: 0.0 ** b,
    "maximum": lambda L, a, b: L.maximum(a, b),
    "minimum": lambda L, a, b: L.minimum(a, b),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(SPECIAL))
def test_gradients_at_special_values_match_torch(name, dtype):
    torch = torch_or_skip()
    A = [0.0, 0.0, 1.0, 2.0, -1.0]
    B = [0.0, 1.0, 1.0, 3.0, -1.0]
    out = []
    for L in (torch, oar):
        dt = getattr(L, dtype)
        a = L.tensor(A, dtype=dt)
        b = L.tensor(B, dtype=dt)
        a.requires_grad_()
        b.requires_grad_()
        SPECIAL[name](L, a, b).sum().backward()
        out.append([None if t.grad is None else np.asarray(t.grad.tolist()) for t in (a, b)])
    for gt, go in zip(*out):
        if gt is None:
            assert go is None
        else:
            np.testing.assert_allclose(go, gt, equal_nan=True)


# ---------------------------------------------------------------- 6b. custom Function results
BACKWARD_RETURNS = {
    "one per argument": lambda L, g: (g, None, g),
    "extra trailing Nones": lambda L, g: (g, None, g, None, None),
    "too many": lambda L, g: (g, None, g, g),
    "too few": lambda L, g: (g,),
    "broadcast shape summed": lambda L, g: (L.ones([2, 2, 3]), None, g),
    "incompatible shape": lambda L, g: (L.ones([3, 2]), None, g),
    "shape [1]": lambda L, g: (L.ones([1]), None, g),
    "str": lambda L, g: ("a", None, g),
    "float": lambda L, g: (1.0, None, g),
    "all None": lambda L, g: (None, None, None),
    "float64": lambda L, g: (g.to(L.float64), None, g),
}


@pytest.mark.parametrize("what", list(BACKWARD_RETURNS))
def test_custom_function_backward_results_checked_like_torch(what):
    torch = torch_or_skip()

    def run(L):
        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, y):
                return x * k + y

            @staticmethod
            def backward(ctx, g):
                return BACKWARD_RETURNS[what](L, g)

        w, v = L.ones([2, 3]), L.ones([2, 3])
        w.requires_grad_()
        v.requires_grad_()
        e = _exc(lambda: F.apply(w, 2.0, v).sum().backward())
        return e, [None if t.grad is None else (t.grad.tolist(), t.grad.dtype == L.float32)
                   for t in (w, v)]

    (et, gt), (eo, go) = run(torch), run(oar)
    if et is None:
        assert eo is None and go == gt, (eo, go, gt)
    else:
        assert isinstance(eo, RuntimeError) and not isinstance(eo, AttributeError), eo


def test_set_grad_enabled_takes_a_bool_only():
    torch = torch_or_skip()
    for bad in ("x", 1, None):
        with pytest.raises(TypeError):
            torch.set_grad_enabled(bad)
        with pytest.raises(TypeError):
            oar.set_grad_enabled(bad)
        assert oar.is_grad_enabled()


def test_grad_of_an_unused_input_raises_runtime_error():
    torch = torch_or_skip()
    for L in (torch, oar):
        x, z = L.ones([2]), L.ones([2])
        x.requires_grad_()
        z.requires_grad_()
        with pytest.raises(RuntimeError, match="not have been used|not appear"):
            L.autograd.grad((x * 2).sum(), [x, z])


def test_leaf_hooks_apply_to_oar_grad_as_in_torch():
    torch = pytest.importorskip("torch")
    got = []
    for L in (oar, torch):
        x = L.tensor(np.array([1.0, 2.0]), requires_grad=True)
        x.register_hook(lambda g: g * 2)
        a = L.autograd.grad((x * x).sum(), [x])[0]
        y = x.unbind(0)[1]
        b = L.autograd.grad((y * y).sum(), [x])[0]
        got.append((a.tolist(), b.tolist(), x.grad))
    assert got[0] == got[1]
