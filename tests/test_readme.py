"""The README's code blocks run as written (the README must stay true)."""
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def blocks():
    text = README.read_text()
    return {title: code for title, code in re.findall(r"## ([^\n]+)\n(?:(?!## ).)*?```python\n(.*?)```",
                                                      text, re.S)}


@pytest.mark.parametrize("title", ["Two front doors, one core", "The idea in one screen", "API by example"])
def test_readme_block_runs(title, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)             # the block saves a file
    code = blocks()[title]
    exec(compile(code, f"README: {title}", "exec"), {})
    out = capsys.readouterr().out
    if title == "Two front doors, one core":   # torch's own output for the same program
        torch = pytest.importorskip("torch")
        assert "torch.Size([8, 4])" in out
        theirs = code.replace("oar.torch", "torch")
        capsys.readouterr()
        exec(compile(theirs, "README with torch", "exec"), {"torch": torch})
        assert out == capsys.readouterr().out
    elif title == "API by example":
        assert out.count("Error ") == 7     # the three refusals and the four bad arguments, each reported
    else:
        assert "Leaf Var" in out
