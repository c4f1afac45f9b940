"""The harness's comparisons can fail: each kind of difference between an oar run and a
torch run is reported, and equal runs are not."""
import numpy as np
import pytest

import oar
from tests.reference.harness import (compare_logged, exception_finding, obs, tensor_diffs,
                                     torch, value_diffs)


def test_tensor_diffs_shape_dtype_values():
    a = oar.to_tensor(np.array([1.0, 2.0, np.nan]))
    assert tensor_diffs("t", a, torch.tensor([1.0, 2.0, float("nan")], dtype=torch.float64), 1e-7) == []
    d = tensor_diffs("t", a, torch.tensor([1.0, 2.0, float("nan")]), 1e-7)
    assert len(d) == 1 and "dtype float64 vs torch float32" in d[0]
    d = tensor_diffs("t", a, torch.tensor([1.0, 2.0 + 1e-5, float("nan")], dtype=torch.float64), 1e-7)
    assert len(d) == 1 and "values" in d[0]
    d = tensor_diffs("t", a, torch.tensor([1.0, 2.0], dtype=torch.float64), 1e-7)
    assert len(d) == 1 and "shape" in d[0]
    d = tensor_diffs("t", a, torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), 1e-7)
    assert len(d) == 1 and "values" in d[0]   # NaN is equal only to NaN
    # integers and booleans compare exactly
    assert tensor_diffs("i", oar.to_tensor([1, 2]), torch.tensor([1, 2]), 0.5) == []
    assert tensor_diffs("i", oar.to_tensor([1, 2]), torch.tensor([1, 3]), 0.5) != []
    assert tensor_diffs("b", oar.to_tensor([True]), torch.tensor([False]), 0.5) != []


def test_value_diffs_structure():
    assert value_diffs({"a": [1.0, (2, "x")], "b": None}, {"a": [1.0 + 1e-9, (2, "x")], "b": None},
                       1e-7, 1e-9) == []
    assert value_diffs({"a": 1.0}, {"a": 1.1}, 1e-7, 1e-9) != []
    assert value_diffs({"a": 1.0}, {"b": 1.0}, 1e-7, 1e-9) != []
    assert value_diffs([1.0, 2.0], [1.0], 1e-7, 1e-9) != []
    assert value_diffs([[1.0, 2.0]], [1.0, 2.0], 1e-7, 1e-9) != []
    assert value_diffs(float("nan"), float("nan"), 1e-7, 1e-9) == []
    assert value_diffs("step 1", "step 2", 1e-7, 1e-9) != []
    assert value_diffs(None, torch.tensor(1.0), 1e-7, 1e-9) != []
    assert value_diffs(oar.to_tensor([1.0]), torch.tensor([1.5]), 1e-7, 1e-9) != []
    assert value_diffs(obs(oar.to_tensor([[1.0, 2.0]])), obs(torch.tensor([1.0, 2.0])), 1e-7, 1e-9) != []


def test_exception_finding_kinds():
    assert exception_finding(None, None) is None
    assert exception_finding(RuntimeError("a"), RuntimeError("b")) is None
    assert exception_finding(ZeroDivisionError("x"), ZeroDivisionError("x"))[0] == "leak"
    assert exception_finding(AttributeError("x"), None)[0] == "leak"
    assert exception_finding(None, RuntimeError("x"))[0] == "silent"
    assert exception_finding(ValueError("x"), None)[0] == "extra"
    assert exception_finding(ValueError("x"), RuntimeError("y"))[0] == "class"
    assert exception_finding(RuntimeError("x"), IndexError("y"))[0] == "class"


def _diverging(L, log, where):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = (x * (3.0 if (L is oar and where == "value") else 2.0)).sum()
    log["stage"] = "backward"
    if L is oar and where == "error":
        raise ValueError("only oar raises")
    if where == "class":
        raise (ValueError if L is oar else RuntimeError)("both raise")
    y.backward()
    log["x.grad"] = x.grad
    log["version"] = x._version + (1 if (L is oar and where == "version") else 0)


@pytest.mark.parametrize("where", ["value", "error", "class", "version"])
def test_compare_logged_reports_each_divergence(where):
    got, want, problems = compare_logged(_diverging, where, rtol=1e-7, atol=1e-9)
    assert problems


def test_compare_logged_equal_runs():
    got, want, problems = compare_logged(_diverging, "none", rtol=1e-7, atol=1e-9)
    assert problems == [] and got["error"] is None and want["error"] is None
