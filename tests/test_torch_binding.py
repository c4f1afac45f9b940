"""Note [Torch signatures]: torch's keyword names and out= on the torch door, against torch 2.13.

Each case is one program run on both frameworks (`L` is oar.torch or torch); the observations
(values, dtypes, shapes, strides, versions, warnings, exception classes) must agree.
"""
import json
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import oar.torch as otorch

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parent.parent


def observe(program):
    """Runs program(L) on both; returns (oar's observation, torch's)."""
    def run(L):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = program(L)
            except Exception as e:  # noqa: BLE001 -- compared below
                r = ("raised", _error_class(e))
        return _plain(r), [str(x.message)[:60] for x in w if x.category is UserWarning]
    return run(otorch), run(torch)


def _error_class(e):
    for cls in (NotImplementedError, IndexError, TypeError, ValueError, RuntimeError):
        if isinstance(e, cls):
            return cls.__name__
    return type(e).__name__


def _plain(v):
    if isinstance(v, (otorch.Tensor, torch.Tensor)):
        a = v.detach().numpy()
        return ("tensor", str(v.dtype).split(".")[-1], list(a.shape), a.tolist())
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "name") and "torch." in str(v):
        return str(v).split(".")[-1]
    return v


KEYWORD_CALLS = {
    "add input other alpha": lambda L: L.add(input=L.arange(3.), other=L.ones(3), alpha=2),
    "method add other": lambda L: L.arange(3.).add(other=L.ones(3)),
    "mean input dim keepdim": lambda L: L.mean(input=L.ones(2, 3), dim=0, keepdim=True),
    "split split_size": lambda L: L.arange(4.).split(split_size=3),
    "sum numpy aliases": lambda L: L.sum(L.ones(2, 3), axis=1, keepdims=True),
    "sub x x2": lambda L: L.sub(x=L.ones(2), x2=L.arange(2.)),
    "clamp min max by name": lambda L: L.clamp(L.arange(5.), min=1, max=3),
    "transpose dim names": lambda L: L.transpose(L.ones(2, 3), dim0=0, dim1=1),
    "method transpose dim names": lambda L: L.ones(2, 3).transpose(dim0=1, dim1=0),
    "gather by name": lambda L: L.gather(L.arange(6.).reshape(2, 3), dim=1,
                                         index=L.tensor([[0], [2]])),
    "cumsum input dim": lambda L: L.cumsum(input=L.arange(4.), dim=0),
    "unknown keyword": lambda L: L.add(L.ones(2), L.ones(2), name="a"),
    "method with out": lambda L: L.ones(2).add(L.ones(2), out=L.empty(2)),
    "zeros requires_grad": lambda L: L.zeros(2, 3, requires_grad=True).requires_grad,
    "argmax dim keepdim": lambda L: L.argmax(L.tensor([[1., 5.], [3., 2.]]), dim=1,
                                             keepdim=True),
    "F.softmax input dim": lambda L: L.nn.functional.softmax(input=L.ones(2, 2), dim=1),
    "permute dims (a *dims implementation)": lambda L: L.permute(input=L.ones(2, 3), dims=(1, 0)),
    "unflatten dim sizes": lambda L: L.unflatten(input=L.ones(4), dim=0, sizes=(2, 2)),
    "unflatten method": lambda L: L.ones(4, 1).unflatten(dim=0, sizes=(2, -1)),
}


@pytest.mark.parametrize("case", sorted(KEYWORD_CALLS))
def test_keyword_names_as_torch(case):
    o, t = observe(KEYWORD_CALLS[case])
    assert o == t


def _out_program(make_out, op=lambda L, o: L.add(L.ones(3), L.arange(3.), out=o)):
    def program(L):
        o = make_out(L)
        r = op(L, o)
        return [r is o, o, o._version, list(o.stride())]
    return program


OUT_CASES = {
    "empty out is resized": _out_program(lambda L: L.empty(0)),
    "same shape": _out_program(lambda L: L.zeros(3)),
    "wrong shape warns and resizes": _out_program(lambda L: L.zeros(5)),
    "wider dtype": _out_program(lambda L: L.zeros(3, dtype=L.float64)),
    "float into int refused": _out_program(lambda L: L.zeros(3, dtype=L.int64)),
    "non-contiguous out keeps strides": _out_program(
        lambda L: L.zeros(3, 2).t(), lambda L, o: L.add(L.ones(2, 3), 1, out=o)),
    "factory takes out's dtype": _out_program(
        lambda L: L.empty(0, dtype=L.int64), lambda L, o: L.arange(5, out=o)),
    "factory float": _out_program(lambda L: L.empty(0), lambda L, o: L.arange(5, out=o)),
    "reduction out": _out_program(lambda L: L.empty(0),
                                  lambda L, o: L.sum(L.ones(2, 3), 1, out=o)),
    "cat out": _out_program(lambda L: L.empty(0),
                            lambda L, o: L.cat([L.ones(2), L.zeros(1)], out=o)),
    "comparison into float": _out_program(lambda L: L.empty(0),
                                          lambda L, o: L.lt(L.ones(2), 2, out=o)),
    "functional out": _out_program(
        lambda L: L.empty(0),
        lambda L, o: L.nn.functional.linear(L.ones(2, 3), L.ones(4, 3), out=o)),
    "max of two tensors takes one out": _out_program(
        lambda L: L.empty(0), lambda L, o: L.max(L.ones(2), L.arange(2.), out=o)),
    "max with a dim takes a tuple": _out_program(
        lambda L: L.empty(0), lambda L, o: L.max(L.ones(2, 2), 1, out=o)),
    "tuple out for one tensor": _out_program(
        lambda L: (L.empty(0), L.empty(0)), lambda L, o: L.add(L.ones(2), 1, out=o)),
}


@pytest.mark.parametrize("case", sorted(OUT_CASES))
def test_out_as_torch(case):
    o, t = observe(OUT_CASES[case])
    assert o == t


def test_multi_output_out_returns_the_out_tensors_as_torch():
    def program(L):
        v, i = L.empty(0), L.empty(0, dtype=L.int64)
        r = L.sort(L.tensor([3., 1., 2.]), out=(v, i))
        return [r[0] is v, r[1] is i, v, i, v._version, i._version]
    o, t = observe(program)
    assert o == t


def test_out_refuses_autograd_as_torch():
    def program(L):
        x = L.ones(3, requires_grad=True)
        return L.mul(x, 2, out=L.empty(3))

    def under_no_grad(L):
        x = L.ones(3, requires_grad=True)
        o = L.empty(3)
        with L.no_grad():
            L.mul(x, 2, out=o)
        return [o, o._version, o.requires_grad]
    assert observe(program)[0] == observe(program)[1]
    assert observe(under_no_grad)[0] == observe(under_no_grad)[1]


def test_a_refused_out_is_unchanged():
    """Check, then write: a failing out= call leaves out's data, shape and version alone."""
    o = otorch.zeros(2, 2, dtype=otorch.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        otorch.add(otorch.ones(3), 1, out=o)
    assert o.shape == (2, 2) and o._version == 0 and not o.numpy().any()


def test_signatures_read_as_torch():
    import inspect
    assert str(inspect.signature(otorch.add)) == "(input, other, *, alpha=1, out=None)"
    assert str(inspect.signature(otorch.Tensor.add)) == "(self, other, *, alpha=1)"
    assert otorch.add.__name__ == "add" and otorch.add.__module__ == "oar.torch"


def test_paddle_door_is_unchanged():
    """The binding lives on the torch door only: the core keeps Paddle's names."""
    import oar
    x = oar.ones([2])
    assert oar.add(x=x, y=x).numpy().tolist() == [2.0, 2.0]
    with pytest.raises(TypeError):
        oar.add(input=x, other=x)


def test_schema_table_is_what_the_tool_writes(tmp_path):
    """oar/torch/_schemas.json holds torch 2.13's facts: regenerating it changes nothing."""
    if not torch.__version__.startswith("2.13."):
        pytest.skip("the table is torch 2.13's")
    table = ROOT / "oar" / "torch" / "_schemas.json"
    before = table.read_text()
    try:
        subprocess.run([sys.executable, str(ROOT / "tools" / "torch_schemas.py")], check=True,
                       capture_output=True, cwd=ROOT)
        assert table.read_text() == before, "regenerate with python tools/torch_schemas.py"
    finally:
        table.write_text(before)
    assert json.loads(before)["torch"] == "2.13.0"
