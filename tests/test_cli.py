"""`python -m oar`: every option checked before training (exit status 2, one line, no
traceback), a diverging loss stops with status 1, --help lists both commands, --version names
the installed version, the tour shows each door through its own import, and a closed pipe
(`tour | head`) ends quietly."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "oar", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)


def _needs(mod):
    pytest.importorskip(mod)


BAD = [
    (["--seed", "-1"], "--seed"),
    (["--seed", "x"], "--seed"),
    (["--lr", "inf"], "--lr"),
    (["--lr", "nan"], "--lr"),
    (["--lr", "-1"], "--lr"),
    (["--lr", "0"], "--lr"),
    (["--epochs", "0"], "--epochs"),
    (["--batch-size", "0"], "--batch-size"),
    (["--plot", ""], "--plot"),
    (["--plot", "mem.xyz"], "--plot"),
    (["--plot", "mem"], "--plot"),
    (["--plot", "/no/such/dir/mem.png"], "--plot"),
    (["--model", "rnn"], "--model"),
    (["--bogus"], "unrecognized"),
]


@pytest.mark.parametrize("args,word", BAD, ids=[" ".join(a) or "empty" for a, _ in BAD])
def test_bad_options_refused_before_training(args, word, tmp_path):
    if "--plot" in args:
        _needs("matplotlib")
    r = run("train", *args, "--epochs", "1", "--quiet") if "--epochs" not in args \
        else run("train", *args, "--quiet")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and word in r.stderr
    assert "training a" not in r.stderr            # refused before any training started
    assert r.stdout == ""
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("python -m oar train: error:"), r.stderr


def test_batch_size_larger_than_training_set_is_refused():
    _needs("sklearn")
    r = run("train", "--model", "mlp", "--epochs", "1", "--quiet", "--batch-size", "5000")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "larger than the training set (1437 samples)" in r.stderr and r.stdout == ""


def test_diverging_loss_stops_with_an_error():
    _needs("sklearn")
    r = run("train", "--model", "mlp", "--epochs", "2", "--quiet", "--lr", "1e30")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "loss became" in r.stderr and "--lr" in r.stderr
    assert "test accuracy" not in r.stdout


def test_train_runs_and_reports_the_batch_it_measured(tmp_path):
    _needs("sklearn")
    _needs("matplotlib")
    plot = tmp_path / "mem.svg"
    r = run("train", "--model", "mlp", "--epochs", "1", "--quiet", "--batch-size", "1437",
            "--plot", str(plot))
    assert r.returncode == 0, r.stderr
    assert "peak tensor memory (batch 1437)" in r.stdout and plot.exists()


def test_help_lists_both_commands():
    r = run("--help")
    assert r.returncode == 0 and "tour" in r.stdout and "train" in r.stdout
    r = run("train", "--help")
    assert r.returncode == 0 and "--batch-size" in r.stdout
    r = run("bogus")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "tour" in r.stderr
    r = run("tour", "extra")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_tour_into_a_closed_pipe_ends_quietly():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONUNBUFFERED="1")    # each print reaches the pipe: the tour is still writing
    p = subprocess.Popen([sys.executable, "-m", "oar", "tour"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT, env=env)
    p.stdout.readline()         # like `head -1`: read a little, then go away
    p.stdout.close()
    err = p.stderr.read().decode()
    p.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    r = run("tour")
    assert r.returncode == 0 and "Three kinds of op" in r.stdout


def test_version_prints_the_installed_version():
    from importlib import metadata
    try:
        expected = metadata.version("oar")      # the installed distribution's metadata
    except metadata.PackageNotFoundError:       # a source tree that was never installed
        import tomllib
        with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
            expected = tomllib.load(f)["project"]["version"]
    for flag in ("--version", "-V"):
        r = run(flag)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert r.stdout == f"oar {expected}\n"
    r = run("--version", "extra")
    assert r.returncode == 2 and "Traceback" not in r.stderr and "train" not in r.stderr


def test_tour_shows_each_door_through_its_own_import():
    r = run("tour")
    assert r.returncode == 0, r.stderr
    head, sep, paddle_part = r.stdout.partition("#### The Paddle door")
    _, sep2, torch_part = head.partition("#### The PyTorch door")
    assert sep and sep2, r.stdout
    assert "    import oar.torch as torch\n" in torch_part
    assert "    import oar as paddle\n" in paddle_part
    # the code shown (indented lines) spells each door with its own name only
    code = lambda part: [ln for ln in part.splitlines() if ln.startswith("    ")]  # noqa: E731
    assert not [ln for ln in code(torch_part) if "paddle" in ln]
    assert not [ln for ln in code(paddle_part) if "torch" in ln]
    assert "torch." in "".join(code(torch_part)) and "paddle." in "".join(code(paddle_part))
    # and what each prints is that framework's own output
    assert "tensor([ 1., 10., 10.,  1.])" in torch_part and "Tensor(shape=" not in torch_part
    assert "torch.Size([2, 2])" in torch_part and "paddle.Size([2, 2])" in paddle_part
    assert "Tensor(shape=[3, 4]" in paddle_part and "\ntensor(" not in paddle_part
    # a mutation's provenance names the tour's own line, never a file inside oar's machinery
    for part in (torch_part, paddle_part):
        where = [ln for ln in part.splitlines() if "It was modified by" in ln]
        assert len(where) == 1 and os.path.join("oar", "tour.py:") in where[0], where
