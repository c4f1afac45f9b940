"""`python -m oar tour`: the seed documents' examples, run and explained."""
from __future__ import annotations

import oar


def _say(title):
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


def _step(code, env):
    print(">>> " + code.replace("\n", "\n... "))
    try:
        exec(compile(code, "<tour>", "single" if "\n" not in code else "exec"), env)
    except BrokenPipeError:   # the reader went away (tour | head): __main__ stops quietly
        raise
    except Exception as e:  # the tour shows errors as a user would see them
        print(f"{type(e).__name__}: {e}")


def main():
    env = {"oar": oar, "paddle": oar, "torch": oar}
    oar.seed(2024)
    _say("Three kinds of op (view / in-place / normal)")
    for code in ["a = paddle.to_tensor([[1., 2.], [3., 4.]])",
                 "v = a.reshape([4])          # view: shares data, own shape",
                 "v._is_shared_buffer_with(a), v.shape, a.shape",
                 "y = a.scale_(2.0)           # in-place: same object",
                 "y is a, a.inplace_version, v.inplace_version",
                 "n = a.scale(2.0)            # normal: new memory",
                 "n._is_shared_buffer_with(a), n.inplace_version"]:
        _step(code, env)
    _say("Memory: in-place needs 1x, out-of-place 2x")
    for code in ["x = paddle.zeros([1_000_000]); paddle.device.reset_max_memory_allocated(); base = paddle.device.memory_allocated()",
                 "_ = x.exp_(); paddle.device.max_memory_allocated() - base   # bytes added by exp_",
                 "paddle.device.reset_max_memory_allocated(); z = x.exp(); paddle.device.max_memory_allocated() - base   # by exp"]:
        _step(code, env)
    _say("Autograd through an in-place op on a non-leaf (seed 001)")
    for code in ["a = paddle.randn([3, 4]); a.stop_gradient = False",
                 "x = a.scale(2.0)",
                 "y = x.scale_(2.0)",
                 "y is x, x.grad_fn",
                 "y.backward()",
                 "print(a.grad)"]:
        _step(code, env)
    _say("The leaf rule (seed 000/001): refused before any write")
    for code in ["w = paddle.randn([3]); w.stop_gradient = False; before = w.numpy()",
                 "w.scale_(2.0)",
                 "(w.numpy() == before).all(), w.inplace_version",
                 "with paddle.no_grad():\n    _ = w.scale_(2.0)   # allowed: parameter updates, init",
                 "w.inplace_version, w.is_leaf"]:
        _step(code, env)
    _say("A saved tensor modified in place: caught at backward, with its provenance")
    for code in ["x = torch.tensor([1., 2.], requires_grad=True)",
                 "e = x.exp()          # exp saves its result for backward",
                 "_ = e.add_(1)        # ...which this modifies",
                 "e.sum().backward()"]:
        _step(code, env)
    _say("In-place on a view rewrites the base's history (CopySlices)")
    for code in ["x = torch.tensor([1., 2., 3., 4.], requires_grad=True)",
                 "b = x * 1; v = b[1:3]",
                 "_ = v.mul_(10)",
                 "b.grad_fn, v.grad_fn",
                 "b.sum().backward(); print(x.grad)"]:
        _step(code, env)
    print("\nSee README.md for the rest of the API.")
    return 0
