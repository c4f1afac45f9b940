"""Type checking: mypy is clean on oar/ itself, and mypy run on a user's program outside the
repository (against the installed package) finds both doors: it accepts correct calls and
flags misspelt names (tools/gen_stubs.py, Note [Torch door stubs])."""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
pytest.importorskip("mypy.api", reason="mypy is not installed (pip install -e '.[test]')")

# line -> the message mypy must give there; every other line must pass
USER_FILE = """\
import oar.torch as torch
import oar as paddle

x = torch.ones(2, 3)
y = torch.tensor([1.0, 2.0, 3.0])
z = torch.add(x, y)
w = x.mul_(2)
reveal_type(z)
reveal_type(w)
layer = torch.nn.Linear(2, 3)
h = torch.nn.functional.relu(x)
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
values = torch.max(x, 1).values
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x), batch_size=1)
with torch.no_grad():
    x.add_(1)
p = paddle.to_tensor([1.0, 2.0])
q = p.mul_(2.0)
reveal_type(q)
player = paddle.nn.Linear(2, 3)
torch.ad(x, y)
x.mull_(2)
paddle.ad(p, p)
p.mull_(2)
"""
EXPECTED = {
    8: 'Revealed type is "oar.torch._tensor.Tensor"',
    9: 'Revealed type is "oar.torch._tensor.Tensor"',
    19: 'Revealed type is "oar.Tensor"',
    21: 'Module has no attribute "ad"',
    22: '"Tensor" has no attribute "mull_"',
    23: 'Module has no attribute "ad"',
    24: '"Tensor" has no attribute "mull_"',
}


def _mypy(args, cwd):
    """mypy as a user runs it: a fresh process, in cwd, with the test's interpreter (so it
    finds oar where pip installed it, editable or not), no config file of the repository."""
    env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")}
    return subprocess.run([sys.executable, "-m", "mypy", "--no-color-output",
                           "--no-error-summary", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_mypy_is_clean_on_the_package(tmp_path):
    # pyproject.toml's [tool.mypy] says what is checked and which error codes are off where
    out = _mypy(["--cache-dir", str(tmp_path / "cache")], cwd=ROOT)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]


def _door_names():
    """`module.name` for every public name of oar.torch and its public submodules, read in a
    fresh interpreter (this one may have imported more)."""
    code = r'''
import types, oar.torch
seen = {}
def walk(m):
    if m.__name__ in seen:
        return
    seen[m.__name__] = m
    for n, v in vars(m).items():
        if (isinstance(v, types.ModuleType) and v.__name__ == m.__name__ + "." + n
                and not n.startswith("_") and getattr(v, "__file__", None)):
            walk(v)
walk(oar.torch)
for name, m in sorted(seen.items()):
    for n, v in sorted(vars(m).items()):
        if n.startswith("_") or n == "annotations":
            continue
        if isinstance(v, types.ModuleType) and not v.__name__.startswith("oar."):
            continue   # numpy, sys ... bound in a module are not part of its API
        print(name, n)
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return [ln.split() for ln in out.stdout.splitlines()]


def test_mypy_checks_user_code_outside_the_repository(tmp_path):
    outside = tmp_path / "user_project"
    outside.mkdir()
    (outside / "user.py").write_text(USER_FILE)
    # every public name of every PyTorch-door module, as an attribute: a stub that hid one
    # would flag correct programs
    names = _door_names()
    assert len(names) > 1000
    modules = sorted({m for m, _ in names})
    (outside / "every_name.py").write_text(
        "".join(f"import {m}\n" for m in modules) + "".join(f"{m}.{n}\n" for m, n in names))
    out = _mypy(["--cache-dir", str(tmp_path / "cache"), "user.py", "every_name.py"],
                cwd=outside)
    assert out.stderr == "", out.stderr
    got = {}
    for line in out.stdout.splitlines():
        m = re.match(r"(user|every_name)\.py:(\d+): (error|note): (.*)", line)
        assert m, line
        if m.group(1) == "every_name":
            pytest.fail(f"mypy does not see a real name: {line}")
        got.setdefault(int(m.group(2)), []).append(m.group(4))
    assert sorted(got) == sorted(EXPECTED), out.stdout
    for line, want in EXPECTED.items():
        assert any(want in msg for msg in got[line]), (line, got[line])
