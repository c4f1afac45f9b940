"""Run other people's programs on oar with only their import lines changed.

The issue's acceptance test ("How to know it works", issue 10): take real PyTorch / Paddle
programs, rewrite ONLY their import statements so that they load oar's front doors
(`import oar.torch as torch`, `import oar as paddle`), run them, and compare what they print with
the real framework.

- `rewrite_imports(source, door)`: finds import statements with `ast` (so strings and comments are
  never touched) and rewrites the module names of the chosen door; every other byte of the program
  is kept, and the line count is unchanged.
- `run_program(path, door, use_oar)`: runs the program (rewritten when `use_oar`) in a subprocess
  from a fresh temporary directory and returns its stdout.
- `compare_outputs(expected, actual, rtol, atol)`: compares two outputs as streams of words and
  numbers; returns readable mismatch descriptions (empty when they agree).
"""

from __future__ import annotations

import ast
import importlib.util
import math
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["rewrite_imports", "run_program", "compare_outputs", "numbers", "tokens", "REPO_ROOT"]

REPO_ROOT = Path(__file__).resolve().parents[2]

# door -> (framework's top-level module, oar module it maps to)
_DOORS = {"torch": ("torch", "oar.torch"), "paddle": ("paddle", "oar")}


def _map_module(name: str, door: str) -> str | None:
    """The oar module for framework module `name` (`torch.nn` -> `oar.torch.nn`), or None."""
    top, target = _DOORS[door]
    if name == top:
        return target
    if name.startswith(top + "."):
        return target + name[len(top):]
    return None


def _rewrite_import(node: ast.Import, door: str) -> str | None:
    """New source text for an `import ...` statement, or None when it names no framework module."""
    top, target = _DOORS[door]
    if not any(_map_module(a.name, door) for a in node.names):
        return None
    parts = []
    for a in node.names:
        new = _map_module(a.name, door)
        if new is None:
            parts.append(a.name + (f" as {a.asname}" if a.asname else ""))
        elif a.asname:
            parts.append(f"{new} as {a.asname}")
        elif a.name == top:
            parts.append(f"{target} as {top}")
        else:
            # `import torch.nn` binds `torch` and loads the submodule: bind the door as `torch`
            # and load the oar submodule so that `torch.nn` resolves as an attribute
            parts.append(f"{target} as {top}")
            parts.append(new)
    return "import " + ", ".join(parts)


_FROM_RE = re.compile(rb"from(\s+)([A-Za-z_][\w.]*)")


def rewrite_imports(source: str, door: str) -> str:
    """Rewrite only the import statements of `source` so that they load oar's `door`.

    door "torch": `import torch` -> `import oar.torch as torch`, `import torch.nn as nn` ->
    `import oar.torch.nn as nn`, `from torch.utils.data import X` -> `from oar.torch.utils.data
    import X`, `import torch.optim` -> `import oar.torch as torch, oar.torch.optim`.
    door "paddle": `import paddle` -> `import oar as paddle`, `from paddle.io import X` ->
    `from oar.io import X`, `import paddle.nn.functional as F` -> `import oar.nn.functional as F`.
    Statements are found with `ast` (any nesting: inside functions, try blocks), so strings and
    comments are never touched; lines that hold no framework import are returned byte for byte and
    the number of lines never changes.
    """
    if door not in _DOORS:
        raise ValueError(f"rewrite_imports: door must be one of {sorted(_DOORS)}, got {door!r}")
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    blines = [ln.encode("utf-8") for ln in lines]  # ast column offsets are UTF-8 byte offsets
    edits = []  # (line index, start byte, end byte, new bytes) on a single line
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level or node.module is None:
                continue  # relative imports stay the program's own
            new = _map_module(node.module, door)
            if new is None:
                continue
            i = node.lineno - 1
            m = _FROM_RE.match(blines[i], node.col_offset)
            if m is None or m.group(2).decode() != node.module:
                raise NotImplementedError(
                    f"rewrite_imports: cannot find module {node.module!r} of the import on line "
                    f"{node.lineno}; split it so that `from {node.module}` is on one line")
            edits.append((i, m.start(2), m.end(2), new.encode()))
        elif isinstance(node, ast.Import):
            new = _rewrite_import(node, door)
            if new is None:
                continue
            if node.end_lineno != node.lineno:
                raise NotImplementedError(
                    f"rewrite_imports: the import on lines {node.lineno}-{node.end_lineno} spans "
                    "several lines; write it on one line")
            edits.append((node.lineno - 1, node.col_offset, node.end_col_offset, new.encode()))
    for i, start, end, new in sorted(edits, reverse=True):  # right to left keeps offsets valid
        blines[i] = blines[i][:start] + new + blines[i][end:]
    return b"".join(blines).decode("utf-8")


# Stand-ins for third-party libraries a program reads its data with, used by both runs only
# where the real library is missing (tests/programs/shims/, each module says what it covers)
_SHIMS = [str(Path(__file__).resolve().parent / "shims")] if importlib.util.find_spec(
    "cv2") is None else []


def run_program(path, door: str, use_oar: bool, timeout: float = 120) -> str:
    """Run the program at `path` and return its stdout.

    With `use_oar` its imports are first rewritten for `door` (see `rewrite_imports`); otherwise it
    runs unchanged against the real framework. The program runs in a subprocess of this Python,
    from a fresh temporary directory (files it writes land there), with the repository root on
    PYTHONPATH and one BLAS/OpenMP thread. A non-zero exit or a timeout raises RuntimeError with
    the tail of stderr.
    """
    path = Path(path)
    source = path.read_text(encoding="utf-8")
    if use_oar:
        source = rewrite_imports(source, door)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT)] + _SHIMS + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = "1"
    env["PYTHONHASHSEED"] = "0"
    env["MPLBACKEND"] = "Agg"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("CUDA_VISIBLE_DEVICES", None)
    who = f"{path.name} ({'oar door ' + door if use_oar else 'real ' + door})"
    with tempfile.TemporaryDirectory(prefix="oar_program_") as tmp:
        script = Path(tmp) / path.name
        script.write_text(source, encoding="utf-8")
        try:
            proc = subprocess.run([sys.executable, str(script)], cwd=tmp, env=env,
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            raise RuntimeError(f"{who} timed out after {timeout} s; stderr tail:\n"
                               f"{_tail(err)}") from None
    if proc.returncode != 0:
        raise RuntimeError(f"{who} exited with status {proc.returncode}; stderr tail:\n"
                           f"{_tail(proc.stderr)}")
    return proc.stdout


def _tail(text: str, n: int = 25) -> str:
    return "\n".join(text.rstrip().splitlines()[-n:])


# A number starts where no word character or dot precedes it (so `conv1` stays a word and the
# minus of `2-3` is not a sign); ints, decimals (`1.`, `.5`), scientific, nan and inf. Hex object
# addresses (`<AddBackward0 object at 0x7f...>`) become one word that matches any address.
_TOKEN_RE = re.compile(
    r"(?P<addr>\b0x[0-9a-fA-F]+\b)|(?P<num>(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|(?:nan|inf)\b))"
    r"|(?P<word>[A-Za-z_]\w*)")


def tokens(text: str) -> list[tuple[int, str, float | str]]:
    """Words and numbers of `text`: a list of (line number from 1, "num" | "word", value)."""
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in _TOKEN_RE.finditer(line):
            if m.group("addr") is not None:
                out.append((lineno, "word", "0x<address>"))  # object addresses differ per run
            elif m.group("num") is not None:
                out.append((lineno, "num", float(m.group("num"))))
            else:
                out.append((lineno, "word", m.group("word")))
    return out


def numbers(text: str) -> list[float]:
    """Every number in `text` in order (ints, floats, scientific, nan/inf, inside tensor reprs)."""
    return [v for _, kind, v in tokens(text) if kind == "num"]


def _close(e: float, a: float, rtol: float, atol: float) -> bool:
    if math.isnan(e) or math.isnan(a):
        return math.isnan(e) and math.isnan(a)
    if math.isinf(e) or math.isinf(a):
        return e == a
    return abs(a - e) <= atol + rtol * abs(e)


def compare_outputs(expected: str, actual: str, rtol: float, atol: float, *,
                    ignore_lines: list[str] | tuple[str, ...] = (),
                    mask_lines: tuple[int, int] | None = None,
                    max_reports: int = 20) -> list[str]:
    """Compare two program outputs as streams of words and numbers.

    Words must be equal; numbers must satisfy |actual - expected| <= atol + rtol * |expected|
    (nan equals nan; inf must match exactly). Punctuation and whitespace (line wrapping of tensor
    reprs) are not compared. Lines matching any regex in `ignore_lines` (timings, addresses) are
    dropped from both sides first; on the lines `mask_lines` = (first, last) (1-based, inclusive, in
    both outputs: uninitialised memory, say) only the words are compared. Returns human-readable descriptions of the mismatches (at most
    `max_reports`), empty when the outputs agree.
    """
    pats = [re.compile(p) for p in ignore_lines]

    def keep(text):
        return "\n".join("" if any(p.search(ln) for p in pats) else ln
                         for ln in text.splitlines())

    exp_lines, act_lines = expected.splitlines(), actual.splitlines()
    e_toks, a_toks = tokens(keep(expected)), tokens(keep(actual))
    problems = []

    def line(lines, n):
        return lines[n - 1].strip() if 0 < n <= len(lines) else "<end of output>"

    if mask_lines is not None:
        lo, hi = mask_lines
        e_toks = [t for t in e_toks if not (t[1] == "num" and lo <= t[0] <= hi)]
        a_toks = [t for t in a_toks if not (t[1] == "num" and lo <= t[0] <= hi)]
    for (el, ek, ev), (al, ak, av) in zip(e_toks, a_toks):
        if ek != ak or (ek == "word" and ev != av) or (ek == "num" and not _close(ev, av, rtol, atol)):
            if ek != ak or ek == "word":
                # a structural difference: later tokens are misaligned, report it and stop
                problems.append(f"expected line {el}: {line(exp_lines, el)!r}\n"
                                f"  actual line {al}: {line(act_lines, al)!r}\n"
                                f"  (expected {ek} {ev!r}, got {ak} {av!r})")
                return problems[:max_reports]
            problems.append(f"expected line {el}: {line(exp_lines, el)!r}\n"
                            f"  actual line {al}: {line(act_lines, al)!r}\n"
                            f"  (expected {ev!r}, got {av!r}, |diff| = {abs(av - ev):.3g})")
            if len(problems) >= max_reports:
                return problems
    if len(e_toks) != len(a_toks):
        n = min(len(e_toks), len(a_toks))
        if len(e_toks) > n:
            el = e_toks[n][0]
            problems.append(f"actual output ends early: expected line {el} "
                            f"{line(exp_lines, el)!r} and {len(e_toks) - n} more tokens are missing")
        else:
            al = a_toks[n][0]
            problems.append(f"actual output has {len(a_toks) - n} extra tokens from line {al}: "
                            f"{line(act_lines, al)!r}")
    return problems[:max_reports]
