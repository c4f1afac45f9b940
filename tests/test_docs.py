"""The documentation site builds cleanly and its examples run as written.

- `mkdocs build --strict` (mkdocs.yml, pages in docs/, the API reference generated from the
  docstrings by mkdocstrings) must succeed with no warning at all.
- Every ```python block of a page runs; the blocks of one page run in order in one namespace,
  as a reader would type them, in an empty directory. Fragments use another fence
  (```text, ```py), as in the README (tests/test_readme.py).
- Every `Note [Title]` the pages cite is defined in oar/ (tests/test_notes.py), and every
  relative link of the README and the pages names a file that exists.
"""
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

from tests.test_notes import _oar_sources, citations, definitions
from tests.test_readme import README, ROOT, python_blocks

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def test_there_are_pages():
    assert (ROOT / "mkdocs.yml").is_file() and len(PAGES) >= 10


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None
                    or importlib.util.find_spec("mkdocstrings_handlers") is None,
                    reason="mkdocs / mkdocstrings[python] not installed (the docs extra)")
def test_site_builds_strict_without_warnings(tmp_path):
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                          "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    assert not re.search(r"^(WARNING|ERROR)", log, re.M), log
    # the ops are built at import from their declarations: the reference must list them
    # (mkdocstrings inspects the imported modules instead of parsing the sources)
    site = tmp_path / "site" / "api"
    assert 'id="oar.torch.add_"' in (site / "torch" / "index.html").read_text(encoding="utf-8")
    assert 'id="oar.add_"' in (site / "paddle" / "index.html").read_text(encoding="utf-8")


def _page_params():
    return [pytest.param(p, id=str(p.relative_to(DOCS))) for p in PAGES
            if python_blocks(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page", _page_params())
def test_page_blocks_run(page, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)             # blocks save checkpoints
    namespace = {}
    for title, code in python_blocks(page.read_text(encoding="utf-8")):
        exec(compile(code, f"{page.name}: {title}", "exec"), namespace)
    out = capsys.readouterr().out
    if page.name == "api-by-example.md":
        assert out.count("Error ") == 7     # the three refusals and the four bad arguments


def test_cited_notes_exist():
    defined = {t for text in _oar_sources().values() for t, _ in definitions(text)}
    defined.add("Title")                    # the pages show the form itself: `# Note [Title]`
    missing = [f"{p.name}:{line}: Note [{t}]" for p in PAGES
               for t, line in citations(p.read_text(encoding="utf-8")) if t not in defined]
    assert missing == []


_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_relative_links_resolve():
    broken = []
    for page in [README, *PAGES]:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []
