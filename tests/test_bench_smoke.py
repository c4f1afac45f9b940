"""The benchmark suite runs (its figures are read by people, never asserted)."""
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch")


def test_bench_suite_runs_one_round():
    script = pathlib.Path(__file__).resolve().parents[1] / "bench" / "run.py"
    r = subprocess.run([sys.executable, str(script), "--only", "tiny", "--rounds", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "| add_ (tensor) |" in r.stdout and "oar/torch time" in r.stdout


def test_elision_bench_runs_quick():
    script = pathlib.Path(__file__).resolve().parents[1] / "bench" / "run.py"
    r = subprocess.run([sys.executable, str(script), "--only", "elision", "--quick"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "| 20 pointwise ops, no grad |" in r.stdout and "| training step" in r.stdout
