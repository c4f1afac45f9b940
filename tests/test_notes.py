"""Notes (issue 9): invariants that span files are written once and cited by title.

One form everywhere in oar/: a definition is a comment block whose first line is exactly
`# Note [Title]`; a citation is `Note [Title]` anywhere else (a comment, a docstring, a
message), and may wrap across lines. Every cited Note has exactly one definition, and
oar/autograd/inplace.py's module docstring indexes exactly the Notes that file defines.
"""
from __future__ import annotations

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
OAR = ROOT / "oar"
INPLACE = OAR / "autograd" / "inplace.py"

DEFINITION = re.compile(r"^[ \t]*# Note \[([^\]\n]+)\][ \t]*$", re.M)
# the other form (a docstring line `Note [Title]` followed by its text) is not used
BARE = re.compile(r"^[ \t]*Note \[([^\]\n]+)\][ \t]*$", re.M)
# a line break inside a citation, with the next line's indentation and comment marker
_WRAP = re.compile(r"[ \t]*\n[ \t]*(?:#[ \t]*)?")
CITATION = re.compile(r"\bNote(?:[ \t]+|[ \t]*\n[ \t]*(?:#[ \t]*)?)\[([^\]]+)\]")


def definitions(text):
    """[(title, line)] of the Notes a source text defines."""
    return [(m.group(1), text.count("\n", 0, m.start()) + 1) for m in DEFINITION.finditer(text)]


def citations(text):
    """[(title, line)] of every `Note [Title]` that is not a definition; a title wrapped over
    lines (and comment markers) counts with single spaces."""
    spans = {m.start(1) for m in DEFINITION.finditer(text)}
    out = []
    for m in CITATION.finditer(text):
        if m.start(1) in spans:
            continue
        title = " ".join(_WRAP.sub(" ", m.group(1)).split())
        out.append((title, text.count("\n", 0, m.start()) + 1))
    return out


def problems(sources):
    """Everything wrong with the Notes of `sources` ({path: text}), as readable lines."""
    defined = {}
    found = []
    for path, text in sources.items():
        for title, line in definitions(text):
            defined.setdefault(title, []).append(f"{path}:{line}")
        for m in BARE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{path}:{line}: Note [{m.group(1)}] is defined in a docstring; "
                         "write it as a `# Note [Title]` comment block")
    for title, where in sorted(defined.items()):
        if len(where) > 1:
            found.append(f"Note [{title}] is defined {len(where)} times: {', '.join(where)}")
    for path, text in sources.items():
        for title, line in citations(text):
            if title not in defined:
                found.append(f"{path}:{line}: Note [{title}] is cited but defined nowhere")
    return found


def _oar_sources():
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
            for p in sorted(OAR.rglob("*.py"))}


def test_every_cited_note_has_exactly_one_definition():
    assert problems(_oar_sources()) == []


def test_inplace_index_lists_exactly_its_notes():
    text = INPLACE.read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(text))
    indexed = [t for t, _ in citations(doc)]
    defined = [t for t, _ in definitions(text)]
    assert len(indexed) == len(set(indexed)), "a Note is indexed twice"
    assert sorted(indexed) == sorted(defined)
    assert indexed == defined, "the index lists the Notes in the order the file defines them"


# the checker itself: it must catch what it is there to catch
@pytest.mark.parametrize("sources, expected", [
    ({"a.py": "# Note [Here]\n# text\nx = 1   # Note [Here]\n"}, []),
    ({"a.py": "# see Note [Nowhere]\n"}, ["a.py:1: Note [Nowhere] is cited but defined nowhere"]),
    ({"a.py": "# Note [Twice]\n", "b.py": "    # Note [Twice]\n"},
     ["Note [Twice] is defined 2 times: a.py:1, b.py:1"]),
    ({"a.py": '"""Doc.\n\nNote [Old form]\ntext\n"""\n'},
     ["a.py:3: Note [Old form] is defined in a docstring; write it as a `# Note [Title]` "
      "comment block",
      "a.py:3: Note [Old form] is cited but defined nowhere"]),
    # a definition written inline is a citation of itself, so it dangles
    ({"a.py": "# Note [Inline]: text\n"}, ["a.py:1: Note [Inline] is cited but defined nowhere"]),
    # a citation wrapped over two comment lines is one title
    ({"a.py": "# Note [Two words]\n# x (Note [Two\n# words]) y\n"}, []),
    ({"a.py": "# Note [Two words]\n# x (Note\n# [Two words]) y\n"}, []),
    ({"a.py": "# Note [Two words]\n# x (Note\n# [Two wordz]) y\n"},
     ["a.py:2: Note [Two wordz] is cited but defined nowhere"]),
    ({"a.py": "# Note [Two words]\n    # x (Note [Two\n    # wordz]) y\n"},
     ["a.py:2: Note [Two wordz] is cited but defined nowhere"]),
])
def test_checker(sources, expected):
    assert problems(sources) == expected
