"""The eager fast paths, one test per safety condition: each case would take the shortcut if
that condition were dropped, and each compares with torch 2.13 (or oar's general path).
Note [Setitem fast path], Note [Fast reshape], Note [Field classes]."""
import numpy as np
import pytest

import oar
import oar.torch as ot

torch = pytest.importorskip("torch")


def _both(fn):
    """fn(lib) on torch and on oar.torch: ('ok', values) or ('err', the exception)."""
    out = []
    for lib in (torch, ot):
        try:
            r = fn(lib)
            out.append(("ok", None if r is None else np.asarray(r.detach().numpy())))
        except Exception as e:   # noqa: BLE001 - the class is what is compared
            out.append(("err", e))
    return out


def _same_error(oar_exc, torch_exc):
    """oar raised an error of torch's class (its own subclass of it), not a NumPy one."""
    assert isinstance(oar_exc, type(torch_exc)), (oar_exc, torch_exc)
    assert type(oar_exc).__module__.split(".")[0] in ("oar", "builtins"), oar_exc


def _same(fn):
    (tk, tv), (ok, ov) = _both(fn)
    assert ok == tk, (tv, ov)
    if tk == "err":
        _same_error(ov, tv)
    elif tv is not None:
        np.testing.assert_array_equal(ov, tv)


# ------------------------------------------------------------ Note [Setitem fast path]
def test_setitem_on_a_leaf_that_requires_grad_is_refused_as_torch():
    def f(lib):
        x = lib.zeros(4, 3, requires_grad=True)
        x[1] = lib.ones(3)
        return x
    (tk, te), (ok, oe) = _both(f)
    assert tk == ok == "err"
    _same_error(oe, te)


def test_setitem_on_a_non_leaf_records_copyslices_and_exact_gradients():
    grads = []
    for lib in (torch, ot):
        w = lib.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
        v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        h = w * 2
        h[1] = v                 # the value needs a gradient too
        h[:, 2] = 7.0
        assert type(h.grad_fn).__name__ == "CopySlices"
        (h * h).sum().backward()
        grads.append((w.grad.numpy(), v.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_setitem_value_that_needs_grad_into_a_plain_tensor_gets_its_gradient():
    grads = []
    for lib in (torch, ot):
        x = lib.zeros(4, 3)
        v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x[2] = v
        (x * x).sum().backward()
        grads.append(v.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


def test_setitem_inside_allow_mutation_on_saved_tensors_keeps_backward_exact():
    # dL/dw of sum(w * x) is x's value when y was computed: [4, 5, 6]. (torch 2.13 clones
    # a saved tensor written by x.mul_(2) but misses a write through x[1] = ... and gives
    # [4, 100, 6]; oar keeps the gradient exact both ways: docs/doors.md.)
    for plain in (False, True):
        with ot.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            w = ot.tensor([1.0, 2.0, 3.0], requires_grad=True)
            x = ot.tensor([4.0, 5.0, 6.0]) if plain else ot.tensor(
                [4.0, 5.0, 6.0], requires_grad=True) * 1
            y = w * x            # saves x
            x[1] = 100.0         # reaches before_write: the shortcut is off in the context
            assert len(ctx.cloned) == 1
            y.sum().backward()
        np.testing.assert_array_equal(w.grad.numpy(), [4.0, 5.0, 6.0])
    with torch.autograd.graph.allow_mutation_on_saved_tensors():   # torch agrees on mul_
        w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = torch.tensor([4.0, 5.0, 6.0], requires_grad=True) * 1
        y = w * x
        x.mul_(2)
        y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [4.0, 5.0, 6.0])


def test_setitem_modifying_a_saved_tensor_is_caught_at_backward():
    def f(lib):
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = lib.tensor([4.0, 5.0, 6.0])
        y = w * x
        x[1] = 100.0
        y.sum().backward()
        return w.grad
    (tk, _), (ok, _) = _both(f)
    assert tk == ok == "err"


def test_setitem_is_one_timeline_entry():
    x = ot.zeros(64, 64)
    with oar.device.memory_timeline() as tl:
        x[3] = 1.0
        x[:, 2] = ot.ones(64)
    # the writes are entries of their own (the shortcut is off while a timeline records)
    assert [e.name for e in tl if e.name in ("fill_", "copy_")] == ["fill_", "copy_"]


def test_setitem_bumps_the_version_once_and_shares_it_with_views():
    for lib in (torch, ot):
        x = lib.zeros(4, 3)
        view = x[1:]
        x[0] = 1.0
        x[1, 2] = lib.tensor(5.0)
        assert x._version == view._version == 2, lib
        assert view[0, 2].item() == 5.0


@pytest.mark.parametrize("case", ["expanded", "inference", "overlap", "same_rows", "bool_key",
                                  "neg_step", "ellipsis_none", "out_of_range", "bad_broadcast",
                                  "int_overflow", "float_overflow", "leading_ones",
                                  "float64_value", "int_tensor", "tuple_key"])
def test_setitem_edge_cases_match_torch(case):
    def f(lib):
        if case == "expanded":
            x = lib.zeros(1, 3).expand(4, 3)
            x[1] = 1.0
            return x
        if case == "inference":
            with lib.inference_mode():
                x = lib.zeros(4, 3)
            x[1] = 1.0
            return x
        x = lib.tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3))
        if case == "overlap":
            x[1:] = x[:-1]
        elif case == "same_rows":
            x[1] = x[1]
        elif case == "bool_key":
            x[True] = 2.0
        elif case == "neg_step":
            x[::-1] = 2.0
        elif case == "ellipsis_none":
            x[..., None, 1] = 3.0
        elif case == "out_of_range":
            x[4] = 1.0
        elif case == "bad_broadcast":
            x[1] = lib.ones(2)
        elif case == "int_overflow":
            x[1] = 2 ** 70
        elif case == "float_overflow":
            x[1] = 1e300
        elif case == "leading_ones":
            x[1] = lib.ones(1, 1, 3)
        elif case == "float64_value":
            x[1] = lib.tensor([0.1, 0.2, 0.3], dtype=lib.float64)
        elif case == "int_tensor":
            x = lib.zeros(4, 3, dtype=lib.int64)
            x[1, 1:] = 7
        elif case == "tuple_key":
            x[1:3, -1] = lib.tensor([8.0, 9.0])
        return x
    _same(f)


# ------------------------------------------------------------ Note [Fast reshape]
@pytest.mark.parametrize("make, sizes", [
    (lambda lib: lib.arange(24.0), (2, 3, 4)),             # the fast case
    (lambda lib: lib.arange(24.0), (1, 24)),               # a size-1 dim
    (lambda lib: lib.arange(24.0), (3, 1, 8)),
    (lambda lib: lib.zeros(0), (0, 3)),                    # no elements: torch's strides
    (lambda lib: lib.zeros(2, 0), (0, 5)),
    (lambda lib: lib.arange(24.0).reshape(4, 6).t(), (6, 4)),   # not C-contiguous
    (lambda lib: lib.arange(24.0).reshape(4, 6).t(), (2, 12)),
    (lambda lib: lib.arange(24.0), (5, 5)),                # numel differs
    (lambda lib: lib.arange(24.0), (-1, 4)),
    (lambda lib: lib.arange(24.0)[::2], (3, 4)),           # strided view
])
@pytest.mark.parametrize("fn", ["reshape", "view"])
def test_reshape_and_view_match_torch(make, sizes, fn):
    outs = []
    for lib in (torch, ot):
        x = make(lib)
        try:
            r = getattr(x, fn)(*sizes)
        except Exception as e:   # noqa: BLE001
            outs.append(("err", e))
            continue
        shares = r.data_ptr() == x.data_ptr() if lib is torch else r._storage is x._storage
        outs.append(("ok", r.numpy().tolist(), tuple(r.stride()), shares, r._version))
    assert outs[1][0] == outs[0][0], outs
    if outs[0][0] == "ok":
        assert outs[1][1:] == outs[0][1:]
    else:
        _same_error(outs[1][1], outs[0][1])


def test_fast_reshape_keeps_autograd_and_the_parameter_rule():
    lin = ot.nn.Linear(4, 6)
    r = lin.weight.reshape(2, 12)
    assert type(r) is ot.Tensor and r.grad_fn is not None and r._base is lin.weight
    r.sum().backward()
    np.testing.assert_array_equal(lin.weight.grad.numpy(), np.ones((6, 4), np.float32))


# ------------------------------------------------------------ Note [Field classes]
def test_torch_door_dispatch_fast_path_builds_the_graph():
    grads = []
    for lib in (torch, ot):
        w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        x = lib.tensor([0.5, 0.25, 2.0])
        y = w * x + x
        assert type(y.grad_fn).__name__ == "AddBackward0"
        y.pow(2).sum().backward()
        grads.append(w.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


def test_in_place_fast_path_checks_overlap_with_an_operand_of_the_other_door():
    tx = torch.zeros(3, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        tx.add_(tx.t())
    x = oar.to_tensor(np.arange(9.0).reshape(3, 3))   # a Paddle-door root
    t = x.t()
    t.__class__ = ot.Tensor          # the same view, of the PyTorch door (a field class)
    before = x.numpy().copy()
    with pytest.raises(RuntimeError, match="single memory location"):
        x.add_(t)
    np.testing.assert_array_equal(x.numpy(), before)


def test_writing_into_a_read_only_numpy_buffer_is_refused_and_changes_nothing():
    a = np.zeros((4, 3), np.float32)
    a.flags.writeable = False
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = ot.from_numpy(a)
    with pytest.raises(ValueError):
        x[1] = 1.0
    assert x._version == 0 and not a.any()


# ------------------------------------------------------------ Note [Fast concat]
@pytest.mark.parametrize("case", ["fast", "fast_dim1", "neg_dim", "promote", "rank", "zero_d",
                                  "legacy_empty", "mismatch", "dim_range", "tensor_dim",
                                  "grad", "tuple", "empty_list", "transposed"])
def test_cat_matches_torch(case):
    def f(lib):
        a = lib.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
        b = lib.tensor(np.arange(6.0, 12.0, dtype=np.float32).reshape(2, 3))
        if case == "fast":
            return lib.cat([a, b])
        if case == "fast_dim1":
            return lib.cat([a, b], 1)
        if case == "neg_dim":
            return lib.cat([a, b], -1)
        if case == "promote":
            return lib.cat([a, b.double()])
        if case == "rank":
            return lib.cat([a, b[0]])
        if case == "zero_d":
            return lib.cat([a[0, 0], b[0, 0]])
        if case == "legacy_empty":
            return lib.cat([a, lib.zeros(0)])
        if case == "mismatch":
            return lib.cat([a, b[:, :2]])
        if case == "dim_range":
            return lib.cat([a, b], 2)
        if case == "tensor_dim":
            return lib.cat([a, b], lib.tensor(1))
        if case == "grad":
            w = a.clone().requires_grad_()
            r = lib.cat([w, b], 1)
            (r * r).sum().backward()
            return w.grad
        if case == "tuple":
            return lib.cat((a, b, a), 0)
        if case == "empty_list":
            return lib.cat([])
        return lib.cat([a.t(), b.t()], 1)
    _same(f)


# ------------------------------------------------------------ Note [Mutation provenance]
def test_a_storage_is_watched_only_while_a_saved_record_lives():
    w = ot.tensor([1.0, 2.0], requires_grad=True)
    x = ot.tensor([3.0, 4.0])
    y = w * x                       # saves x: its mutations are logged for the error message
    assert x._storage.watched
    x.add_(1)
    with pytest.raises(RuntimeError, match=r"It was modified by `add_` .*test_fast_paths_eager"):
        y.sum().backward()
    del y                           # the record is gone: later writes log nothing
    assert not x._storage.watched
    n = len(x._storage.mutations or [])
    x.relu_()
    assert len(x._storage.mutations or []) == n
    y = w * x                       # saved again: logged again
    y.sum().backward()              # backward frees the record
    assert not x._storage.watched


# ------------------------------------------------------------ Note [Fast reduction]
@pytest.mark.parametrize("args", [(), (1,), (-1,), (0, True), (1, False), (2,), (-3,),
                                  (True,), (None, True), ((0, 1),)])
@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
def test_reductions_match_torch(name, args):
    def f(lib):
        x = lib.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
        r = getattr(x, name)(*args)
        r.sum().backward()
        return lib.cat([r.reshape(-1), x.grad.reshape(-1)]) if r.requires_grad else r
    _same(f)
    for lib in (torch, ot):   # the node's name too
        x = lib.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
        try:
            names = [type(getattr(x, name)(*args).grad_fn).__name__ if lib is torch else
                     getattr(x, name)(*args).grad_fn.name()]
        except Exception:   # noqa: BLE001 - the refusal is compared above
            return
        if lib is torch:
            want = names
        else:
            assert names == want


# ------------------------------------------------------------ Note [Fast transpose]
@pytest.mark.parametrize("make, dims", [
    (lambda lib: lib.arange(6.0).reshape(2, 3), (0, 1)),
    (lambda lib: lib.arange(6.0).reshape(2, 3), (-1, 0)),
    (lambda lib: lib.arange(24.0).reshape(2, 3, 4), (0, 2)),
    (lambda lib: lib.arange(6.0).reshape(2, 3), (1, 1)),
    (lambda lib: lib.tensor(5.0), (0, -1)),                 # 0-d
    (lambda lib: lib.arange(6.0).reshape(2, 3), (0, 2)),   # out of range
    (lambda lib: lib.arange(6.0).reshape(2, 3), (True, 0)),   # a bool is not a dim
    (lambda lib: lib.arange(6.0).reshape(2, 3), (np.int64(1), 0)),
    (lambda lib: lib.arange(6.0).reshape(2, 3), (1.0, 0)),
])
def test_transpose_matches_torch(make, dims):
    def f(lib):
        x = make(lib).requires_grad_()
        y = x.transpose(*dims)
        (y * lib.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        assert y._base is x if lib is ot else y._base is x
        return lib.cat([y.reshape(-1), x.grad.reshape(-1),
                        lib.tensor([float(s) for s in y.stride()])])
    _same(f)


# ------------------------------------------------------------ Note [Fast matmul]
@pytest.mark.parametrize("case", ["2d", "batched", "broadcast_batch", "f64", "f16", "vec_mat",
                                  "mat_vec", "inner_mismatch", "batch_mismatch", "dtype_mix",
                                  "grad", "transposed_operand", "empty"])
def test_matmul_matches_torch(case):
    draws = {}

    def t(lib, *shape, dt=np.float32):
        rng = draws.setdefault(lib, np.random.default_rng(0))   # the same draws for both
        return lib.tensor(rng.standard_normal(shape).astype(dt))

    def f(lib):
        if case == "2d":
            return t(lib, 3, 4) @ t(lib, 4, 5)
        if case == "batched":
            return t(lib, 2, 3, 4) @ t(lib, 2, 4, 5)
        if case == "broadcast_batch":
            return t(lib, 2, 1, 3, 4) @ t(lib, 3, 4, 2)
        if case == "f64":
            return t(lib, 3, 4, dt=np.float64) @ t(lib, 4, 2, dt=np.float64)
        if case == "f16":
            return (t(lib, 8, 16, dt=np.float16) @ t(lib, 16, 4, dt=np.float16)).float()
        if case == "vec_mat":
            return t(lib, 4) @ t(lib, 4, 3)
        if case == "mat_vec":
            return t(lib, 3, 4) @ t(lib, 4)
        if case == "inner_mismatch":
            return t(lib, 3, 4) @ t(lib, 5, 2)
        if case == "batch_mismatch":
            return t(lib, 2, 3, 4) @ t(lib, 3, 4, 5)
        if case == "dtype_mix":
            return t(lib, 3, 4) @ t(lib, 4, 2, dt=np.float64)
        if case == "grad":
            a = t(lib, 3, 4).requires_grad_()
            b = t(lib, 4, 5).requires_grad_()
            (a @ b).pow(2).sum().backward()
            return lib.cat([a.grad.reshape(-1), b.grad.reshape(-1)])
        if case == "transposed_operand":
            return t(lib, 4, 3).t() @ t(lib, 4, 5)
        return t(lib, 0, 4) @ t(lib, 4, 3)
    (tk, tv), (ok, ov) = _both(f)
    assert ok == tk, (tv, ov)
    assert (tk == "err") == (case in ("inner_mismatch", "batch_mismatch", "dtype_mix")), tv
    if tk == "err":
        _same_error(ov, tv)
    elif case == "f16":   # computed in float32 and rounded once, as torch: bit for bit
        np.testing.assert_array_equal(ov, tv)
    else:
        np.testing.assert_allclose(ov, tv, rtol=1e-5, atol=1e-6)


def test_matmul_under_capture_replays_with_new_values():
    f = oar.jit(lambda a, b: a @ b)
    rng = np.random.default_rng(1)
    for _ in range(3):
        a = rng.standard_normal((3, 4)).astype(np.float32)
        b = rng.standard_normal((4, 2)).astype(np.float32)
        np.testing.assert_allclose(f(oar.to_tensor(a), oar.to_tensor(b)).numpy(), a @ b,
                                   rtol=1e-6)


# ------------------------------------------------------------ Note [Leaky ReLU as a maximum]
@pytest.mark.parametrize("slope", [0.01, 0.2, 1.0, 0.0, -0.1, 1.5, 1e-30])
@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
def test_leaky_relu_matches_torch_bit_for_bit_on_special_values(slope, dt):
    vals = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-45,
                     -1e-45, 65504.0, -65504.0, 0.5, -0.5], dtype=np.float64).astype(dt)
    got, want = [], []
    for lib, acc in ((torch, want), (ot, got)):
        x = lib.tensor(vals)
        y = lib.nn.functional.leaky_relu(x, slope)
        acc.append(y.numpy())
        acc.append(np.signbit(y.numpy()))
        acc.append(lib.nn.LeakyReLU(slope)(x).numpy())
        z = x.clone()
        lib.nn.functional.leaky_relu(z, slope, inplace=True)   # the maximum written into z
        acc.append(z.numpy())
        acc.append(np.signbit(z.numpy()))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert np.asarray(got[0]).dtype == np.dtype(dt)


@pytest.mark.parametrize("slope", [0.01, 1.0, 0.0, -0.1, 1.5])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_leaky_relu_kernel_into_out_and_into_its_input(slope, dt):
    # the kernel's out= form (dispatch's out, elision's donated input: out is x) takes the
    # maximum for 0 < slope <= 1 like the plain form, and must not read x after writing it;
    # the other slopes keep the select (a maximum would give |x| for slope < 0)
    from oar.nn import _kernels as K
    vals = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3e38, -3e38, 1e-45,
                     -1e-45, 0.5, -0.5, 7.0, -7.0], dtype=np.float64).astype(dt)
    want = torch.nn.functional.leaky_relu(torch.tensor(vals), slope).numpy()
    out = np.full_like(vals, 123.0)
    assert K._k_leaky(out, np.dtype(dt), vals, slope) is out
    x = vals.copy()
    assert K._k_leaky(x, np.dtype(dt), x, slope) is x
    for got in (out, x):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    if slope >= 0:                       # through the door, in place
        ox = ot.tensor(vals)
        ot.nn.functional.leaky_relu_(ox, slope)
        np.testing.assert_array_equal(ox.numpy(), want)
