"""Run each scenario on oar and on torch 2.13; values, gradients, identities, versions and
the step where an error is raised must agree."""
import numpy as np
import pytest

import oar
from tests.reference.scenarios import SCENARIOS

torch = pytest.importorskip("torch")


def run(scenario, lib):
    log = {"stage": "forward"}
    try:
        scenario(lib, log)
        log["error"] = None
    except (RuntimeError, ValueError, TypeError) as e:
        log["error"] = log["stage"]
        log["message"] = str(e)
    log.pop("stage")
    return log


def same(a, b):
    """Structural equality; floats agree to float32 rounding (rtol 1e-4)."""
    if isinstance(a, float) and isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_matches_torch(name):
    got = run(SCENARIOS[name], oar)
    want = run(SCENARIOS[name], torch)
    got_msg, want_msg = got.pop("message", None), want.pop("message", None)
    assert same(got, want), f"{got}\n{want}\noar: {got_msg!r}\ntorch: {want_msg!r}"
