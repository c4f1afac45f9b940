"""Paddle's own in-place and view unit tests, run on the real paddle 3.3.1 and on oar's Paddle door.

The test files are Paddle's (PaddlePaddle/Paddle, test/legacy_test/, Apache-2.0; each file's
header names the commit it was read at). They are public code, kept for running only: they live in
tests/programs/external/paddle_tests/, which git ignores, and every test here skips when they are
absent. Each file runs twice, each time under pytest in a subprocess from a fresh temporary
directory: unchanged against the real paddle (the oracle), and with only its import statements
rewritten for oar (`rewrite_imports(source, "paddle")`). Per test case the outcome is read from
pytest's JUnit XML report.

The claim checked: every case that passes on paddle passes on oar, except the cases listed in
EXPECTED_FAILURES (case -> the one-line reason it fails on oar). The list is a ratchet: a listed case
that passes on oar fails the test, so that its line is removed when the gap closes. Cases out of
scope (static graph, another device) are deselected by name in SKIP, with the reason.

Run as a script (`python -m tests.test_paddle_own_inplace`) it prints the counts and every case
that passes on paddle but not on oar, with the first line of its error.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.programs.harness import REPO_ROOT, rewrite_imports

HERE = Path(__file__).resolve().parent / "programs" / "external" / "paddle_tests"
# our stand-in for Paddle's op_test helpers (get_places, get_device, ...), written next to a test
# file that imports it, for both runs (see the shim's doc)
OP_TEST_SHIM = Path(__file__).resolve().parent / "programs" / "paddle_op_test_shim.py"

# the files this test expects in HERE (absent ones skip)
FILES = ["test_inplace.py", "test_view_op_reuse_allocation.py",
         "test_inplace_auto_generated_apis.py", "test_tensor_fill_.py", "test_tensor_zero_.py",
         "test_stride.py", "test_as_strided.py", "test_tensor_unfold.py", "test_set_value_op.py"]

# case pattern (fnmatch over "file::Class::test") -> why it is not run at all
SKIP = {
    "test_inplace_auto_generated_apis.py::TestStatic*":
        "static graph (Program, Executor): oar runs eagerly only (Note [No static graph])",
    "test_stride.py::TestToStaticCheck*":
        "paddle.jit.to_static's program checks (an in-place op on a view raises at conversion): "
        "oar's to_static runs the function eagerly (Note [No static graph])",
    **{f"test_set_value_op.py::{c}*": (
        "static graph: each test_api builds a Program and runs it with an Executor before "
        "comparing the dygraph result with it (Note [No static graph])")
       for c in ("TestSetValueApi", "TestSetValueItem", "TestSetValueValueShape", "TestError")},
}

# case -> why it fails on oar while it passes on paddle 3.3.1 (a ratchet, see the module doc)
_VERSIONS = ("Paddle's composite in-place op bumps inplace_version once per internal kernel "
             "(hypot_ 3, nan_to_num_ 3, index_fill_ 3, lcm_ 4, ldexp_ 2); oar once per call")
_T = "test_inplace.py::TestDygraphInplace"
_INT_GRAD = ("the int32/int64 dtypes of the loop: Paddle differentiates integer tensors "
             "(x.stop_gradient=False gives b an int gradient of ones); oar's integer tensors "
             "take no part in autograd, so b.grad stays None (the float dtypes pass)")
EXPECTED_FAILURES: dict[str, str] = {
    _T + "Cast::test_backward_error": (
        "oar's cast_ gives the tensor a new buffer, so the value saved for backward stays valid "
        "and nothing raises (Note [Dtype-changing in-place ops]); Paddle's raises"),
    _T + "Cumprod::test_backward_error": (
        "cumprod_(x float32, dtype='float64'): oar refuses an in-place op that changes the dtype"),
    _T + "Cumsum::test_backward_error": (
        "cumsum_(x float64, dtype='float32'): oar refuses an in-place op that changes the dtype"),
    _T + "Gcd::test_leaf_inplace_var_error": (
        "stop_gradient = False on an int32 tensor: oar records the flag, but integer tensors "
        "take no part in autograd, so an in-place gcd_ on that leaf is not refused as Paddle's "
        "leaf rule refuses it"),
    **{_T + c: _VERSIONS for c in (
        "Hypot::test_backward_error", "Hypot::test_forward_version",
        "IndexFill::test_backward_error", "IndexFill::test_forward_version",
        "Lcm::test_forward_version", "Ldexp::test_backward_error", "Ldexp::test_forward_version",
        "NanToNum::test_backward_error", "NanToNum::test_forward_version")},
    **{c: _INT_GRAD for c in (
        "test_as_strided.py::TestAsStrided::test_as_strided_backward",
        "test_tensor_unfold.py::TestTensorUnfold::test_tensor_unfold_backward",
        "test_tensor_unfold.py::TestTensorUnfold2::test_tensor_unfold_backward",
        "test_tensor_unfold.py::TestTensorUnfold_ZeroSize::test_tensor_unfold_backward")},
    **{"test_set_value_op.py::" + c: (
        "its last line switches Paddle to static mode (paddle.enable_static()), which oar "
        "refuses (Note [No static graph]); " + why) for c, why in (
        ("TestSetValueInplace::test_inplace", "every dygraph check before it passes on oar"),
        ("TestSetValueInplaceLeafVar::test_inplace_var_become_leaf_var",
         "every dygraph check before it passes on oar"),
        ("TestSetValueIsSamePlace::test_is_same_place",
         "before it, Place._type() (a private Paddle method) is missing on oar"))},
    "test_set_value_op.py::TestSetValueWithScalarInDygraph::test_value_input_is_scalar": (
        "calls paddle._C_ops.set_value (Paddle's internal operator bindings), which oar's "
        "Paddle door does not have"),
    "test_tensor_fill_.py::TensorFill_Test::test_tensor_fill_backward": (
        "y.retain_grads(); y.fill_(1): Paddle's y.grad is the gradient of y's value before "
        "fill_ (zeros); oar's, as torch's, of its value after (ones)"),
}

# the fast sample (runs by default): the view file is small; the rest runs with -m slow
FAST_FILES = {"test_view_op_reuse_allocation.py", "test_tensor_zero_.py"}


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = "1"
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("CUDA_VISIBLE_DEVICES", None)
    return env


def _deselect_expr(name):
    """A pytest -k expression that leaves out the SKIP patterns of file `name` (class level)."""
    parts = []
    for pat in SKIP:
        f, _, rest = pat.partition("::")
        if f == name:
            cls = rest.split("::")[0].rstrip("*")
            parts.append(f"not {cls}")
    return " and ".join(parts)


@functools.lru_cache(maxsize=None)
def run_file(name: str, use_oar: bool, timeout: float = 300) -> dict[str, str]:
    """Run Paddle's test file `name` under pytest; {case: "" when it passed, else the error line}.

    A file that cannot even be collected on oar gives every case (known from the paddle run) the
    collection error."""
    source = (HERE / name).read_text(encoding="utf-8")
    if use_oar:
        source = rewrite_imports(source, "paddle")
    with tempfile.TemporaryDirectory(prefix="oar_paddle_tests_") as tmp:
        script = Path(tmp) / name
        script.write_text(source, encoding="utf-8")
        if _imports_op_test(source):
            shim = OP_TEST_SHIM.read_text(encoding="utf-8")
            (Path(tmp) / "op_test.py").write_text(
                rewrite_imports(shim, "paddle") if use_oar else shim, encoding="utf-8")
        report = Path(tmp) / "report.xml"
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
               "-W", "ignore", f"--junitxml={report}", str(script)]
        expr = _deselect_expr(name)
        if expr:
            cmd[3:3] = ["-k", expr]
        proc = subprocess.run(cmd, cwd=tmp, env=_env(), capture_output=True, text=True,
                              timeout=timeout)
        if not report.exists():
            raise RuntimeError(f"{name} ({'oar' if use_oar else 'paddle'}): no report; "
                               f"pytest said:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        tree = ET.parse(report)
    results = {}
    collect_error = None
    for tc in tree.iter("testcase"):
        cls = tc.get("classname", "").rsplit(".", 1)[-1]
        case = f"{name}::{cls}::{tc.get('name')}"
        bad = tc.find("failure")
        if bad is None:
            bad = tc.find("error")
        if tc.find("skipped") is not None:
            continue
        if not tc.get("name") or (bad is not None and not cls):
            collect_error = (bad.get("message") or "collection error").splitlines()[0]
            continue
        results[case] = "" if bad is None else _first_line(bad)
    if collect_error is not None and use_oar:
        for case in run_file(name, False):
            results.setdefault(case, "collection: " + collect_error)
    return results


def _imports_op_test(source):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "op_test":
            return True
        if isinstance(node, ast.Import) and any(a.name == "op_test" for a in node.names):
            return True
    return False


def _first_line(node):
    msg = node.get("message") or (node.text or "").strip().splitlines()[-1:] or ["?"]
    if isinstance(msg, list):
        msg = msg[0]
    return msg.splitlines()[0][:200] if msg else "?"


def _skipped(case):
    return any(fnmatch.fnmatchcase(case, pat) for pat in SKIP)


def compare(name):
    """(cases passing on paddle, {case: oar error} for those that do not pass on oar)."""
    ref = {c: e for c, e in run_file(name, False).items() if not _skipped(c)}
    got = run_file(name, True)
    passing = sorted(c for c, e in ref.items() if not e)
    failing = {c: got.get(c, "not run on oar") for c in passing if got.get(c, "?")}
    return passing, failing


def _need(name):
    pytest.importorskip("paddle")
    if not (HERE / name).exists():
        pytest.skip(f"Paddle's {name} is not on this machine (tests/programs/external/ is "
                    "ignored by git; see the module doc)")


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=() if n in FAST_FILES else pytest.mark.slow) for n in FILES])
def test_paddle_own_tests_pass_on_oar(name):
    _need(name)
    passing, failing = compare(name)
    assert passing, f"no case of {name} passes on paddle: the file or the runner is broken"
    unexpected = {c: e for c, e in failing.items() if c not in EXPECTED_FAILURES}
    fixed = [c for c in EXPECTED_FAILURES
             if c.startswith(name + "::") and c in passing and c not in failing]
    lines = [f"{c}: {e}" for c, e in sorted(unexpected.items())]
    lines += [f"{c}: passes on oar now; remove it from EXPECTED_FAILURES" for c in fixed]
    assert not lines, f"{len(lines)} case(s) of {name}:\n" + "\n".join(lines)


def test_expected_failures_name_known_files():
    for case in EXPECTED_FAILURES:
        assert case.split("::")[0] in FILES, case


if __name__ == "__main__":
    total_ref = total_ok = 0
    for n in FILES:
        if not (HERE / n).exists():
            print(f"{n}: absent")
            continue
        passing, failing = compare(n)
        total_ref += len(passing)
        total_ok += len(passing) - len(failing)
        print(f"{n}: {len(passing)} pass on paddle, {len(passing) - len(failing)} on oar")
        for c, e in sorted(failing.items()):
            print(f"  FAIL {c}: {e}")
    print(f"total: {total_ref} pass on paddle, {total_ok} on oar")
