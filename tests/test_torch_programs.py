"""Real PyTorch programs run on `oar.torch` with only their import lines changed (issue 10).

Each program in tests/programs/torch/ is a tutorial or example that no one here wrote (source,
license and every `# oar-port:` change are in its header). The test runs it twice in subprocesses,
unchanged against real torch 2.13 (the oracle) and with `rewrite_imports(..., "torch")` against
oar, and compares the two outputs word for word and number by number (tests/programs/harness.py).
Programs fetched from public snapshots (EXTERNAL) are kept in tests/programs/external/torch/,
which is never committed; there they run the same way, elsewhere they skip.

Tolerances: programs with no training loop are compared to 1e-5. The training programs' numbers
go through hundreds of float32 updates whose sums oar and torch accumulate in different orders, so
they get the stated rtol/atol (all programs draw from torch's default or stated seed, which oar
reproduces draw for draw: Note [Torch CPU random streams]).

The whole file is `slow` (each program costs two interpreter starts and torch's import); the
programs in FAST run in the default selection as CI's sample. Programs that do not yet run on oar
are xfail(strict=True) with the first error's triage line, so a fix shows up as XPASS: remove the
mark then.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.programs.harness import compare_outputs, numbers, rewrite_imports, run_program

PROGRAM_DIR = Path(__file__).parent / "programs" / "torch"
# Programs copied out of `fetch` snapshots stay out of commits (.gitignore): they live in
# EXTERNAL_DIR on the machine that fetched them, and their tests skip where they are absent
EXTERNAL_DIR = Path(__file__).parent / "programs" / "external" / "torch"

DET = dict(rtol=1e-5, atol=1e-6)      # deterministic programs, no training loop
TRAIN = dict(rtol=1e-3, atol=1e-5)    # seeded training loops (hundreds of float32 updates)

# name -> comparison settings; "xfail" holds the triage line while the program fails on oar
PROGRAMS: dict[str, dict] = {
    "polynomial_numpy": dict(DET),
    "polynomial_tensor": dict(TRAIN),
    "polynomial_autograd": dict(TRAIN),
    "polynomial_custom_function": dict(TRAIN),
    "polynomial_nn": dict(TRAIN),
    # RMSprop (lr=1e-3) ends in a limit cycle of amplitude ~lr around the optimum; each step
    # matches torch to 1e-8, but the rounding decides the cycle's phase: losses to 1%,
    # coefficients to 1e-3 (the learning rate)
    "polynomial_optim": dict(rtol=1e-2, atol=1e-3),
    "polynomial_module": dict(TRAIN),
    "dynamic_net": dict(TRAIN),
    # the fit is ill-conditioned (features x..x^4, lr 0.1): per-batch losses agree to 1e-7 at
    # first and drift to 1e-4 by batch ~300; the loop stops at the first loss < 1e-3, so the batch
    # count and the unconverged learned coefficients (lines 1-2) get loose tolerances; the target
    # polynomial (line 3, pure RNG + format) must match exactly
    "regression_main": dict(DET, mask_lines=(1, 2), loose=(1, 2, 0.05, 0.3)),
    "tensorqs_tutorial": dict(DET),
    "autogradqs_tutorial": dict(DET),
    "buildmodel_tutorial": dict(DET),
    "blitz_tensor_tutorial": dict(DET, mask_lines=(1, 5)),  # torch.empty: uninitialised memory
    "blitz_autograd_tutorial": dict(DET),
    "blitz_neural_networks_tutorial": dict(DET),
    "modelsyt_tutorial": dict(DET),
    "quickstart_tutorial": dict(TRAIN),
    "optimization_tutorial": dict(TRAIN),
    "mnist_main": dict(TRAIN),
    # issue 10, second batch (EXTERNAL: not committed): pytorch/examples, karpathy's minGPT and
    # makemore, the tutorials' "What is torch.nn really?" and char-RNN classification, d2l;
    # printed timings are masked (`mask`: regexes replaced by one word in both outputs)
    "vae_main": dict(TRAIN),
    "dcgan_main": dict(TRAIN),
    "time_sequence_prediction": dict(TRAIN),
    "word_language_model": dict(TRAIN, mask=(r"ms/batch\s+[\d.]+", r"time:\s+[\d.]+s")),
    "mingpt_demo": dict(TRAIN),
    "makemore": dict(TRAIN, mask=(r"step time [\d.]+ms",)),
    "nn_tutorial": dict(TRAIN),
    "char_rnn_classification_tutorial": dict(TRAIN, mask=(r"\(\d+m \d+s\)",)),
    "mnist_rnn_main": dict(TRAIN),
    # d2l-ai/d2l-en v0.17.6: linear and softmax regression, MLP, from scratch
    "d2l_linear_regression_scratch": dict(TRAIN),
    "d2l_softmax_regression_scratch": dict(TRAIN),
    "d2l_mlp_scratch": dict(TRAIN),
    # our own programs (not copied): a language model per layer family, from NumPy-drawn weights
    "char_rnn": dict(TRAIN),
    "transformer_lm": dict(TRAIN),
}

EXTERNAL = {"vae_main", "dcgan_main", "time_sequence_prediction", "word_language_model",
            "mingpt_demo", "makemore", "nn_tutorial", "char_rnn_classification_tutorial",
            "mnist_rnn_main", "d2l_linear_regression_scratch", "d2l_softmax_regression_scratch",
            "d2l_mlp_scratch"}


def _path(name):
    """The program's file; an external one that is absent on this machine skips the test."""
    if name not in EXTERNAL:
        return PROGRAM_DIR / f"{name}.py"
    path = EXTERNAL_DIR / f"{name}.py"
    if not path.exists():
        pytest.skip(f"{name}: fetched program not present here ({path})")
    return path


# CI's sample of the slow file: quick programs covering tensors, autograd and a custom Function
FAST = {"polynomial_custom_function", "tensorqs_tutorial", "autogradqs_tutorial"}

# Programs that do not run on oar yet: name -> triage line (see /tmp/h4_triage.md while it lasts)
XFAIL: dict[str, str] = {
    "word_language_model": "nn.Transformer is missing (model.py subclasses it at import); "
                           "torch.save(model) of a whole module and torch.serialization."
                           "safe_globals / torch.nn.modules.<file> namespaces for loading it "
                           "back are missing (the LSTM training itself matches torch)",
}


def _params():
    for name in sorted(PROGRAMS):
        marks = [] if name in FAST else [pytest.mark.slow]
        if name in XFAIL:
            marks.append(pytest.mark.xfail(strict=True, reason=XFAIL[name]))
        yield pytest.param(name, marks=marks, id=name)


def test_every_program_file_is_listed():
    on_disk = {p.stem for p in PROGRAM_DIR.glob("*.py")}
    assert on_disk == set(PROGRAMS) - EXTERNAL, on_disk ^ (set(PROGRAMS) - EXTERNAL)
    external = {p.stem for p in EXTERNAL_DIR.glob("*.py")}
    assert external <= EXTERNAL <= set(PROGRAMS), external - EXTERNAL
    assert set(XFAIL) <= set(PROGRAMS) and FAST <= set(PROGRAMS)


def _import_lines(source: str) -> set[int]:
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_rewrite_changes_only_import_lines(name):
    source = _path(name).read_text(encoding="utf-8")
    new = rewrite_imports(source, "torch")
    old_lines, new_lines = source.splitlines(), new.splitlines()
    assert len(old_lines) == len(new_lines)
    changed = {i for i, (a, b) in enumerate(zip(old_lines, new_lines), 1) if a != b}
    assert changed <= _import_lines(source)
    # and no import statement still loads the real framework
    for node in ast.walk(ast.parse(new)):
        if isinstance(node, ast.Import):
            assert all(a.name.split(".")[0] != "torch" for a in node.names), ast.unparse(node)
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.module.split(".")[0] != "torch", ast.unparse(node)
    if "import torch" in source:
        assert changed, "a torch program must have rewritten imports"


def test_rewrite_import_forms():
    src = ("import torch\nimport torch.nn as nn, numpy as np\nimport torch.nn.functional as F\n"
           "from torch import nn, optim\nfrom torch.utils.data import (DataLoader,\n    Dataset)\n"
           "import torch.optim\ns = 'import torch'  # import torch\n"
           "def f():\n    import torch; x = 1\ny = 'é'; import torch as T\n"
           "from .local import torch\nimport torchvision\n")
    assert rewrite_imports(src, "torch") == (
        "import oar.torch as torch\nimport oar.torch.nn as nn, numpy as np\n"
        "import oar.torch.nn.functional as F\n"
        "from oar.torch import nn, optim\nfrom oar.torch.utils.data import (DataLoader,\n"
        "    Dataset)\nimport oar.torch as torch, oar.torch.optim\n"
        "s = 'import torch'  # import torch\n"
        "def f():\n    import oar.torch as torch; x = 1\ny = 'é'; import oar.torch as T\n"
        "from .local import torch\nimport torchvision\n")
    paddle_src = ("import paddle\nimport paddle.nn as nn\nimport paddle.nn.functional as F\n"
                  "from paddle.io import Dataset\nfrom paddle import nn\nimport paddle.vision\n")
    assert rewrite_imports(paddle_src, "paddle") == (
        "import oar as paddle\nimport oar.nn as nn\nimport oar.nn.functional as F\n"
        "from oar.io import Dataset\nfrom oar import nn\nimport oar as paddle, oar.vision\n")
    with pytest.raises(ValueError, match="door"):
        rewrite_imports(src, "jax")


def test_compare_outputs():
    got = numbers("tensor([1.0000, -2.0000e-03, nan, -inf]) conv1 2-3 1. .5")
    assert got[:2] == [1.0, -0.002] and got[2] != got[2] and got[3:] == [float("-inf"), 2, 3, 1, .5]
    assert compare_outputs("loss 1.0 tensor([1., 2.])", "loss 1.000001 tensor([1.0000, 2.0000])",
                           1e-5, 0) == []
    bad = compare_outputs("loss 1.0\nacc 2", "loss 1.0\nacc 2.5", 1e-5, 0)
    assert len(bad) == 1 and "line 2" in bad[0] and "2.5" in bad[0]
    assert compare_outputs("a b 1", "a c 1", 1e-5, 0)  # words must match
    assert compare_outputs("a b 1 2", "a b 1", 1e-5, 0)  # missing tokens
    assert compare_outputs("x nan", "x nan", 0, 0) == []
    assert compare_outputs("<F object at 0x7f27ab>", "<F object at 0x7f1f00>", 0, 0) == []
    assert compare_outputs("t 12:00 x 1", "t 13:05 x 1", 0, 0, ignore_lines=[r"^t "]) == []
    assert compare_outputs("t 1 2\nx 1", "t 5 6\nx 1", 0, 0, mask_lines=(1, 1)) == []


@pytest.mark.parametrize("name", list(_params()))
def test_program_matches_torch(name):
    pytest.importorskip("torch")
    path = _path(name)
    cfg = PROGRAMS[name]
    expected = run_program(path, "torch", use_oar=False, timeout=300)
    actual = run_program(path, "torch", use_oar=True, timeout=300)
    for pat in cfg.get("mask", ()):   # printed timings: the same word on both sides
        expected, actual = re.sub(pat, "MASKED", expected), re.sub(pat, "MASKED", actual)
    problems = compare_outputs(expected, actual, cfg["rtol"], cfg["atol"],
                               mask_lines=cfg.get("mask_lines"))
    if "loose" in cfg:  # lines whose numbers are compared with a stated looser tolerance
        lo, hi, rtol, atol = cfg["loose"]
        part = lambda text: "\n".join(text.splitlines()[lo - 1:hi])  # noqa: E731
        problems += compare_outputs(part(expected), part(actual), rtol, atol)
    assert not problems, f"{name} on oar differs from torch:\n" + "\n".join(problems)
