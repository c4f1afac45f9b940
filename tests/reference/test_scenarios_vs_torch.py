"""Run each scenario on oar and on torch 2.13; values, gradients, identities, versions, the
step where an error is raised and the error's class must agree (tests/reference/harness.py)."""
import pytest

from tests.reference.harness import compare_logged, report
from tests.reference.scenarios import SCENARIOS


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_matches_torch(name):
    # floats agree to float32 rounding
    got, want, problems = compare_logged(SCENARIOS[name], rtol=1e-4, atol=1e-6)
    assert not problems, report(got, want, problems)
