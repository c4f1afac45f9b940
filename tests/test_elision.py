"""Note [Temporary elision] (oar/ops/elision.py): an out-of-place op writes its result into an
operand nobody else can see. One test per condition of the Note: each fails when its
condition is removed from the code (the report of the change lists which were tried). Peaks
are exact bytes by oar's own accounting, measured with the cyclic collector off (no_gc)."""
from __future__ import annotations

import operator
import os
import subprocess
import sys
import weakref

import numpy as np
import pytest

import oar
import oar.torch as torch
from oar import storage as S
from oar.ops import elision as E

N = 1 << 16                 # float32 elements: 256 KiB, elision's threshold
B = N * 4                   # bytes of one such tensor
RNG = np.random.default_rng(0)
X = (RNG.standard_normal(N)).astype(np.float32)


@pytest.fixture(autouse=True)
def _elision_on():
    old = E.ENABLED
    E.ENABLED = True
    yield
    E.ENABLED = old


def peak(fn):
    """(result, peak bytes above the start while fn ran)."""
    base = S.memory_allocated()
    S.reset_max_memory_allocated()
    out = fn()
    return out, S.max_memory_allocated() - base


def paddle_x(grad=False):
    t = oar.to_tensor(X.copy())
    t.stop_gradient = not grad
    return t


# --------------------------------------------------------------------------- it happens
@pytest.mark.parametrize("door", ["paddle", "torch"])
def test_chain_without_grad_peaks_at_one_buffer(no_gc, door):
    x = paddle_x() if door == "paddle" else torch.tensor(X)
    out, p = peak(lambda: (((x + 1) * 2).exp().tanh() - 3).relu())
    assert p == B                               # every temporary's memory was reused
    E.ENABLED = False
    ref, p_off = peak(lambda: (((x + 1) * 2).exp().tanh() - 3).relu())
    assert p_off == 2 * B
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    assert type(out) is type(x) and out.inplace_version == ref.inplace_version == 0


@pytest.mark.parametrize("door", ["paddle", "torch"])
def test_autograd_elides_a_temporary_the_backward_does_not_need(no_gc, door):
    # (x * 3) is read by add, whose backward needs nothing: add writes into it
    x = paddle_x(True) if door == "paddle" else torch.tensor(X, requires_grad=True)
    S.start_trace()
    y = (x * 3) + 1
    trace = S.stop_trace()
    assert max(trace) - trace[0] == B           # one buffer for two results
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 3, np.float32))
    np.testing.assert_array_equal(y.detach().numpy(), X * 3 + 1)


def test_function_and_method_spellings_elide(no_gc):
    x = paddle_x()
    for f in (lambda: oar.exp(oar.add(x, 1)), lambda: (x + 1).exp(), lambda: 2 * (x + 1),
              lambda: oar.add(x, 1).add(x)):
        _, p = peak(f)
        assert p == B, f


def test_inference_mode_and_no_grad(no_gc):
    x = paddle_x(True)
    with oar.no_grad():
        out, p = peak(lambda: (x * 2 + 1).exp())
    assert p == B and out.stop_gradient
    xt = torch.tensor(X)
    with torch.inference_mode():
        out, p = peak(lambda: (xt * 2 + 1).exp())
    assert p == B and out.is_inference()
    np.testing.assert_array_equal(out.numpy(), np.exp(X * 2 + 1))


def test_accounting_stays_exact(no_gc):
    x = paddle_x()
    base = S.memory_allocated()
    y = ((x + 1) * 2).exp()
    assert S.memory_allocated() - base == B
    del y
    assert S.memory_allocated() == base         # the bytes were subtracted once


def test_memory_timeline_marks_elided_bytes(no_gc):
    x = paddle_x()
    with oar.device.memory_timeline() as tl:
        y = (x + 1) * 2
    del y
    assert sum(e.elided for e in tl) == B       # `* 2` wrote into `x + 1`'s memory
    E.ENABLED = False
    with oar.device.memory_timeline() as tl:
        y = (x + 1) * 2
    assert sum(e.elided for e in tl) == 0


# --------------------------------------------------------------------------- condition 1
def test_the_flag_turns_it_off(no_gc):
    x = paddle_x()
    oar.set_flags({"FLAGS_eager_elision": False})
    try:
        assert oar.get_flags("FLAGS_eager_elision") == {"FLAGS_eager_elision": False}
        _, p = peak(lambda: (x + 1) * 2)
        assert p == 2 * B
    finally:
        oar.set_flags({"FLAGS_eager_elision": True})
    _, p = peak(lambda: (x + 1) * 2)
    assert p == B
    with pytest.raises(ValueError, match="nope"):
        oar.set_flags({"nope": 1})   # not a flag name (paddle 3.3.1: ValueError too)


def test_paddle_flags_are_kept_and_read_back():
    # a Paddle program's own flags (they tune Paddle's kernels) are accepted, as paddle
    # accepts them, and read back; a flag never set is unknown, as in paddle
    oar.set_flags({"FLAGS_check_nan_inf": True})
    assert oar.get_flags(["FLAGS_check_nan_inf"]) == {"FLAGS_check_nan_inf": True}
    with pytest.raises(ValueError, match="FLAGS_never_set_here"):
        oar.get_flags("FLAGS_never_set_here")
    with pytest.raises(TypeError, match="list, tuple or string"):
        oar.get_flags(3)
    with pytest.raises(TypeError, match="should be a dict"):
        oar.set_flags("FLAGS_eager_elision")


def test_the_env_var_turns_it_off():
    code = "import oar; print(oar.get_flags(['FLAGS_eager_elision']))"
    env = dict(os.environ, OAR_ELISION="0", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "{'FLAGS_eager_elision': False}", out.stderr


# --------------------------------------------------------------------------- condition 2
def test_a_reference_held_elsewhere_blocks_it(no_gc):
    x = paddle_x()
    held = []

    def make():
        t = x + 1
        held.append(t)
        return t
    y = make() * 2
    z = make().exp()
    np.testing.assert_array_equal(held[0].numpy(), X + 1)   # unchanged
    np.testing.assert_array_equal(held[1].numpy(), X + 1)
    np.testing.assert_array_equal(y.numpy(), (X + 1) * 2)
    del z


def test_a_local_variable_blocks_it_on_every_path(no_gc):
    x = paddle_x()
    t = x + 1
    outs = [t * 2, 2 * t, t.exp(), oar.exp(t), t.__mul__(2), t.__rmul__(2), operator.mul(t, 2),
            oar.add(t, 1)]
    np.testing.assert_array_equal(t.numpy(), X + 1)
    assert len(outs) == 8


def test_a_weak_reference_blocks_it(no_gc):
    # pack_hook runs after relu's kernel and reads the input through a weak reference
    x = paddle_x(True)
    refs, seen = [], []

    def make():
        t = x - 0.5
        refs.append(weakref.ref(t))
        return t

    def pack(s):
        seen.append(refs[0]().numpy())
        return s
    with oar.autograd.saved_tensors_hooks(pack, lambda s: s):
        y = make().relu()
    np.testing.assert_array_equal(seen[0], X - 0.5)
    np.testing.assert_array_equal(y.numpy(), np.maximum(X - 0.5, 0))


# --------------------------------------------------------------------------- condition 3
def test_a_leaf_that_requires_grad_keeps_its_memory(no_gc):
    y = torch.ones(N, requires_grad=True) * 2
    leaf = y.grad_fn.next_functions[0][0].variable
    np.testing.assert_array_equal(leaf.detach().numpy(), np.ones(N, np.float32))


# --------------------------------------------------------------------------- condition 4
def test_untyped_storage_held_blocks_it(no_gc):
    x = torch.tensor(X)
    stores = []

    def make():
        t = x + 1
        stores.append(t.untyped_storage())
        return t
    y = make() * 2
    got = np.frombuffer(bytes(stores[0].tolist()), np.float32)
    np.testing.assert_array_equal(got, X + 1)
    np.testing.assert_array_equal(y.numpy(), (X + 1) * 2)


def test_a_numpy_view_of_the_memory_blocks_it(no_gc):
    x = torch.tensor(X)
    arrays = []

    def make():
        t = x + 1
        arrays.append(t.numpy())   # the PyTorch door's numpy() shares memory
        return t
    y = make() * 2
    np.testing.assert_array_equal(arrays[0], X + 1)
    np.testing.assert_array_equal(y.numpy(), (X + 1) * 2)


def test_memory_owned_by_another_array_blocks_it(no_gc):
    big = np.concatenate([X, X])

    def make():
        return torch.from_numpy(big[:N])    # the tensor's array is a view of `big`
    y = make() * 2
    np.testing.assert_array_equal(big[:N], X)
    np.testing.assert_array_equal(y.numpy(), X * 2)


@pytest.mark.parametrize("share", ["view", "numpy"])
def test_inference_tensor_seen_elsewhere_blocks_it(no_gc, share):
    with torch.inference_mode():
        x = torch.tensor(X)
        seen = []

        def make():
            t = x + 1
            # an inference "view" (same storage, no autograd view), or the shared array
            seen.append(t[:] if share == "view" else t.numpy())
            return t
        y = make() * 2
        _, p = peak(lambda: (x + 1) * 2)
    assert p == B                                 # elided when nothing else sees it
    np.testing.assert_array_equal(np.asarray(seen[0]), X + 1)
    np.testing.assert_array_equal(y.numpy(), (X + 1) * 2)


# --------------------------------------------------------------------------- condition 6
@pytest.mark.parametrize("door", ["paddle", "torch"])
def test_an_input_this_backward_needs_is_kept(no_gc, door):
    # mul saves its first input for the gradient of w
    if door == "paddle":
        x, w = paddle_x(), oar.to_tensor(np.full(N, 3, np.float32), stop_gradient=False)
    else:
        x, w = torch.tensor(X), torch.full((N,), 3.0, requires_grad=True)
    y = (x + 1) * w
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), X + 1)


# --------------------------------------------------------------------------- condition 7
def test_a_result_of_another_shape_or_dtype_gets_new_memory(no_gc):
    x = torch.tensor(X)
    wide = torch.tensor(np.stack([X, X]))
    y = (x + 1) + wide                          # broadcasts x up: x's memory is too small
    np.testing.assert_array_equal(y.numpy(), (X + 1) + np.stack([X, X]))
    z = (x + 1) + torch.tensor(X.astype(np.float64))   # promotes to float64
    assert z.dtype == torch.float64
    np.testing.assert_array_equal(z.numpy(), (X + 1).astype(np.float64) + X.astype(np.float64))


def test_under_autograd_a_result_of_another_shape_gets_new_memory(no_gc):
    x = torch.tensor(X, requires_grad=True)
    wide = torch.tensor(np.stack([X, X]))
    y = (x * 3) + wide                          # dispatch's path: x * 3 has a grad_fn
    np.testing.assert_array_equal(y.detach().numpy(), X * 3 + np.stack([X, X]))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 6, np.float32))


def test_result_strides_are_those_of_a_fresh_result(no_gc):
    a = torch.tensor(X.reshape(256, 256))
    c = torch.tensor(X.reshape(256, 256))
    on = (a.t().clone() + c).stride()           # a dead F-ordered operand
    E.ENABLED = False
    off = (a.t().clone() + c).stride()
    assert on == off


# --------------------------------------------------------------------------- the count
def test_calibrated_counts_are_cpython_shaped():
    assert E._CALL_DEAD > 0 and E._OP_DEAD == E._CALL_DEAD + 1


# ------------------------------------------------------------- Note [Donated activations]
def _seq_input():
    oar.seed(0)
    return oar.randn([64, 64])


def _linear():
    oar.seed(1)
    return oar.nn.Linear(64, 1024)          # 64 x 1024 float32 activations: 256 KiB


def test_sequential_donates_an_activation_nobody_else_holds(no_gc):
    nn = oar.nn
    m = nn.Sequential(_linear(), nn.ReLU(), nn.Sigmoid(), nn.Tanh(), nn.LeakyReLU(0.1))
    x = _seq_input()
    with oar.no_grad():
        y, p = peak(lambda: m(x))
        E.ENABLED = False
        ref, p_off = peak(lambda: m(x))
    assert (p, p_off) == (B, 2 * B)
    np.testing.assert_array_equal(y.numpy(), ref.numpy())
    assert E._TOKEN is None


def test_the_first_layer_input_is_never_donated(no_gc):
    x = oar.to_tensor(X.copy())
    y = oar.nn.Sequential(oar.nn.ReLU())(x)
    np.testing.assert_array_equal(x.numpy(), X)
    np.testing.assert_array_equal(y.numpy(), np.maximum(X, 0))


def test_an_activation_kept_by_a_hook_is_not_donated(no_gc):
    nn = oar.nn
    kept = []
    lin, act = _linear(), nn.ReLU()
    lin.register_forward_post_hook(lambda layer, inp, out: kept.append(out))
    m = nn.Sequential(lin, act)
    y = m(_seq_input())
    pre = kept[0].numpy()
    assert (pre < 0).any()                      # relu would have changed it
    np.testing.assert_array_equal(y.numpy(), np.maximum(pre, 0))


def test_a_layer_with_a_pre_hook_is_not_donated_to(no_gc):
    nn = oar.nn
    seen = []
    act = nn.ReLU()
    act.register_forward_pre_hook(lambda layer, inp: seen.append(inp[0]))
    m = nn.Sequential(_linear(), act)
    y = m(_seq_input())
    assert (seen[0].numpy() < 0).any()          # the input as it was, not relu's result
    np.testing.assert_array_equal(y.numpy(), np.maximum(seen[0].numpy(), 0))


def test_only_the_exact_activation_classes_are_donated_to(no_gc):
    nn = oar.nn

    class ReLUPlusInput(nn.ReLU):               # reads x after relu: must not be donated
        def forward(self, x):
            return oar.nn.functional.relu(x) + x

    m = nn.Sequential(_linear(), ReLUPlusInput())
    with oar.no_grad():
        y = m(_seq_input())
        E.ENABLED = False
        ref = m(_seq_input())
    np.testing.assert_array_equal(y.numpy(), ref.numpy())


def test_an_activation_whose_forward_was_replaced_is_not_donated_to(no_gc):
    nn = oar.nn
    act = nn.ReLU()
    act.forward = lambda x: oar.nn.functional.relu(x) + x   # reads x after relu
    m = nn.Sequential(_linear(), act)
    with oar.no_grad():
        y = m(_seq_input())
        E.ENABLED = False
        ref = m(_seq_input())
    np.testing.assert_array_equal(y.numpy(), ref.numpy())


def test_donation_under_autograd_keeps_gradients(no_gc):
    nn = oar.nn
    m = nn.Sequential(_linear(), nn.LeakyReLU(0.1), nn.Tanh())
    grads = []
    for on in (True, False):
        E.ENABLED = on
        m.clear_gradients()
        m(_seq_input()).sum().backward()
        grads.append(m[0].weight.grad.numpy().copy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_an_unused_donation_is_withdrawn(no_gc):
    # ReLU(inplace=True) never asks for the token: the returned tensor is x itself, which
    # the caller now holds; a later op on it must not take its memory
    nn = oar.nn
    m = nn.Sequential(_linear(), nn.ReLU(inplace=True))
    with oar.no_grad():
        y = m(_seq_input())
        before = y.numpy()
        z = oar.exp(y)
    np.testing.assert_array_equal(y.numpy(), before)
    np.testing.assert_array_equal(z.numpy(), np.exp(before))


def test_a_weakly_referenced_activation_is_not_donated(no_gc):
    nn = oar.nn
    refs, seen = [], []
    lin = _linear()
    lin.register_forward_post_hook(lambda layer, inp, out: refs.append(weakref.ref(out)))

    def pack(s):   # after relu's kernel (relu saves its output); linear's saves come first
        if refs:
            seen.append(refs[0]().numpy())
        return s
    with oar.autograd.saved_tensors_hooks(pack, lambda s: s):
        y = nn.Sequential(lin, nn.ReLU())(_seq_input())
    assert (seen[0] < 0).any()
    np.testing.assert_array_equal(y.numpy(), np.maximum(seen[0], 0))


def test_the_pytorch_door_sequential_donates_too(no_gc):
    tnn = torch.nn
    torch.manual_seed(0)
    m = tnn.Sequential(tnn.Linear(64, 1024), tnn.ReLU(), tnn.Sigmoid(), tnn.Tanh(),
                       tnn.LeakyReLU(0.1))
    x = torch.randn(64, 64)
    with torch.no_grad():
        y, p = peak(lambda: m(x))
        E.ENABLED = False
        ref, p_off = peak(lambda: m(x))
    assert (p, p_off) == (B, 2 * B)
    np.testing.assert_array_equal(y.numpy(), ref.numpy())
