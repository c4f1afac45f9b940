"""The PyTorch door speaks torch 2.13's words where oar used Paddle's or its own internals:
the leaf refusal, a C++ node's name in a tensor's repr, the place a saved tensor was
modified. Each against torch itself."""
import pytest

import oar.torch as ot

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("view", [False, True])
def test_leaf_refusal_starts_with_torchs_sentence(view):
    msgs = []
    for lib in (torch, ot):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            (x[:2] if view else x).mul_(2)
        msgs.append(str(e.value))
    assert msgs[1].startswith(msgs[0].rstrip(".")), msgs
    assert "Leaf Var" not in msgs[1] and "torch.no_grad()" in msgs[1]


def test_copyslices_prints_as_torch():
    reps = []
    for lib in (torch, ot):
        x = lib.ones(3, requires_grad=True)
        h = x * 2
        h[:2].mul_(3)
        reps.append((repr(h), h.grad_fn.name()))
    assert reps[1] == reps[0]


def test_saved_tensor_error_names_the_users_line_not_a_wrapper():
    x = ot.tensor([1.0, 2.0], requires_grad=True)
    e = x.exp()
    e.add_(1)
    with pytest.raises(RuntimeError) as err:
        e.sum().backward()
    msg = str(err.value)
    assert "_binding" not in msg and "torch_method" not in msg
    assert f"test_torch_door_words.py:{test_saved_tensor_error_names_the_users_line_not_a_wrapper.__code__.co_firstlineno + 3}" in msg


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_random_on_a_complex_tensor_is_torchs_not_implemented(dt):
    msgs = []
    for lib in (torch, ot):
        x = lib.tensor([1j, 2j], dtype=getattr(lib, dt))
        with pytest.raises(NotImplementedError) as e:
            x.random_()
        assert x._version == 0
        msgs.append(str(e.value).split(".")[0])
    assert msgs[1] == msgs[0]
