"""The generated type stub oar/__init__.pyi (tools/gen_stubs.py): fresh, shipped, and good
enough for mypy to check a user's calls; the PyTorch door's stubs (oar/torch/**.pyi) are
fresh too (tests/test_typing.py runs mypy on both doors)."""
from __future__ import annotations

import difflib
import importlib.util
import pathlib
import re
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _generator():
    spec = importlib.util.spec_from_file_location("oar_gen_stubs", ROOT / "tools" / "gen_stubs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_stubs_are_up_to_date():
    gen = _generator()
    stubs = gen.render_all()
    assert gen.STUB in stubs and len(stubs) > 1   # both doors
    for path, fresh in stubs.items():
        rel = path.relative_to(ROOT)
        committed = path.read_text() if path.exists() else ""
        if committed != fresh:
            diff = "".join(list(difflib.unified_diff(
                committed.splitlines(True), fresh.splitlines(True), f"{rel} (committed)",
                f"{rel} (fresh)", n=1))[:60])
            pytest.fail(f"{rel} is out of date: regenerate the stubs with `{gen.COMMAND}` "
                        f"(from the repository root) and commit them.\n{diff}")


def test_every_generated_stub_ships():
    # a stub that is written but not installed would leave mypy reading the module's source
    gen = _generator()
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = cfg["tool"]["setuptools"]["package-data"]
    assert "*.pyi" in data["*"]
    for path in gen.render_all():
        assert path.suffix == ".pyi" and path.parent.joinpath("__init__.py").exists(), path


def test_stub_and_marker_ship_as_package_data():
    assert (ROOT / "oar" / "py.typed").exists()
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = cfg["tool"]["setuptools"]["package-data"]["oar"]
    assert "py.typed" in data and "*.pyi" in data


def test_stub_names_the_api():
    text = (ROOT / "oar" / "__init__.pyi").read_text()
    for line in ("def add_(x: Tensor, y: _TensorLike", "def ones(*shape: Any",
                 "def to_tensor(data: Any", "from . import nn as nn",
                 "from . import optimizer as optimizer", "class Tensor:",
                 "    def mul_(self, y: _TensorLike"):
        assert line in text, line


USER_FILE = """\
import oar

x = oar.ones([2, 3])
y = oar.to_tensor([1.0, 2.0, 3.0])
z = oar.add_(x, y)
w = x.mul_(2.0)
reveal_type(x)
reveal_type(z)
reveal_type(w)
layer = oar.nn.Linear(3, 2)
opt = oar.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
with oar.no_grad():
    x.relu_()
oar.ad_(x)
"""


def test_mypy_checks_user_code(tmp_path):
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (pip install -e '.[test]')")
    user = tmp_path / "user.py"
    user.write_text(USER_FILE)
    cfg = tmp_path / "mypy.ini"
    # oar is found on mypy_path (an editable install hides it from mypy); errors inside
    # oar's own sources are not the user's; numpy's stubs are skipped to keep this fast
    cfg.write_text(f"[mypy]\nmypy_path = {ROOT}\ncache_dir = {tmp_path / 'cache'}\n"
                   "[mypy-oar.*]\nfollow_imports = silent\n"
                   "[mypy-numpy.*]\nfollow_imports = skip\nfollow_imports_for_stubs = True\n")
    out, err, _ = api.run(["--config-file", str(cfg), "--no-color-output", str(user)])
    lines = [ln for ln in out.splitlines() if ln.startswith(str(user))]
    errors = {int(re.match(r".*?:(\d+):", ln).group(1)): ln for ln in lines if ": error:" in ln}
    revealed = [ln.split("Revealed type is ")[1] for ln in lines if "Revealed type" in ln]
    assert not err, err
    assert revealed == ['"oar.Tensor"'] * 3, out
    # the misspelled oar.ad_ (line 14) is the only error: add_, mul_, ones, to_tensor, nn,
    # optimizer and no_grad are all known
    assert list(errors) == [14], out
    assert 'has no attribute "ad_"' in errors[14], out
