"""The README's code blocks run as written (the README must stay true)."""
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def blocks():
    text = README.read_text()
    return {title: code for title, code in re.findall(r"## ([^\n]+)\n(?:(?!## ).)*?```python\n(.*?)```",
                                                      text, re.S)}


@pytest.mark.parametrize("title", ["The idea in one screen", "API by example"])
def test_readme_block_runs(title, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)             # the block saves a file
    code = blocks()[title]
    exec(compile(code, f"README: {title}", "exec"), {})
    out = capsys.readouterr().out
    if title == "API by example":
        assert out.count("Error ") == 7     # the three refusals and the four bad arguments, each reported
    else:
        assert "Leaf Var" in out
