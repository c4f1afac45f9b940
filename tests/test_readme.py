"""The README's code blocks run as written (the README must stay true).

Every ```python block runs on its own, in a fresh namespace and an empty directory. A block
that is only a fragment (it needs a cluster, or names defined elsewhere) takes another fence
(```text, ```py). tests/test_docs.py reuses `python_blocks` for the documentation pages.
"""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

_HEADING = re.compile(r"^#{1,6} +(.+?)\s*$", re.M)
_FENCE = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.M | re.S)     # any fenced block
_BLOCK = re.compile(r"^```python\n(.*?)^```[ \t]*$", re.M | re.S)


def python_blocks(text):
    """[(heading, code)] of every ```python block, each with the nearest heading above it
    (a '#' line inside an earlier code block is not a heading)."""
    out = []
    for m in _BLOCK.finditer(text):
        heads = _HEADING.findall(_FENCE.sub("", text[:m.start()]))
        out.append((heads[-1] if heads else "", m.group(1)))
    return out


def _readme_blocks():
    seen = {}
    out = []
    for title, code in python_blocks(README.read_text(encoding="utf-8")):
        seen[title] = seen.get(title, 0) + 1
        out.append(pytest.param(title, code, id=f"{title} #{seen[title]}"))
    return out


def test_readme_has_the_blocks_checked_below():
    titles = {t for t, _ in python_blocks(README.read_text(encoding="utf-8"))}
    assert {"Two front doors, one core", "The Inplace rules in one screen"} <= titles


@pytest.mark.parametrize("title,code", _readme_blocks())
def test_readme_block_runs(title, code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)             # a block may save a file
    exec(compile(code, f"README: {title}", "exec"), {})
    out = capsys.readouterr().out
    if title == "Two front doors, one core" and "import oar.torch as torch" in code:
        torch = pytest.importorskip("torch")   # torch's own output for the same program
        assert "torch.Size([8, 4])" in out
        theirs = code.replace("oar.torch", "torch")
        exec(compile(theirs, "README with torch", "exec"), {"torch": torch})
        assert out == capsys.readouterr().out
    elif title == "Two front doors, one core":
        assert "paddle.Size([4, 8])" in out
    elif title == "The Inplace rules in one screen":
        assert "Leaf Var" in out                               # the leaf refusal
        assert "modified by an inplace operation" in out       # the saved-tensor check
        assert "True" in out                                   # y is a
