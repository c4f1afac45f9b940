"""python -m oar [train|tour] ...  (train is the default)."""
from __future__ import annotations

import os
import sys

USAGE = "usage: python -m oar [-h] [-V] {train,tour} ..."
HELP = f"""{USAGE}

oar: tensors that can be changed in place and viewed without copying, with exact autograd.

commands:
  train       train a small Conv-BatchNorm-LeakyReLU network on scikit-learn's digits in
              three variants from the same weights -- standard BatchNorm + LeakyReLU,
              InPlaceABN (in place, saves only its output) and activation checkpointing --
              and report accuracy, time per epoch and peak tensor memory of a training step
              and of inference (default); --model relu-cnn|mlp: in-place vs out-of-place
              ReLU, which saves nothing in training
  tour        the core ideas by example, run and explained, once through each door

options:
  -h, --help  show this help message and exit
  -V, --version
              show the installed version and exit

'python -m oar train --help' lists the training options.
"""


def _error(message):
    """argparse's convention (exit status 2), on one line."""
    print(f"python -m oar: error: {message}; see 'python -m oar --help'", file=sys.stderr)
    return 2


def version():
    """The installed distribution's version; a source tree run without installing falls back
    to the package's own __version__ (kept equal to pyproject.toml's)."""
    from importlib import metadata
    try:
        return metadata.version("oar")
    except metadata.PackageNotFoundError:
        from . import __version__
        return __version__


def _run(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(HELP, end="")
        return 0
    if argv and argv[0] in ("-V", "--version"):
        if argv[1:]:
            return _error(f"--version takes no arguments, got {' '.join(argv[1:])}")
        print(f"oar {version()}")
        return 0
    cmd = argv[0] if argv and not argv[0].startswith("-") else "train"
    rest = argv[1:] if argv and argv[0] == cmd else argv
    if cmd == "tour":
        if rest in (["-h"], ["--help"]):
            print("usage: python -m oar tour\n\nThe core ideas by example, run and explained: first "
                  "through the PyTorch door (import oar.torch as torch), then through the Paddle "
                  "door (import oar as paddle).")
            return 0
        if rest:
            return _error(f"tour takes no arguments, got {' '.join(rest)}")
        from .tour import main as tour
        return tour()
    if cmd == "train":
        try:
            from .train import main as train
        except ImportError as e:
            return _error(str(e))
        return train(rest)
    return _error(f"unknown command {cmd!r} (choose from 'train', 'tour')")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _run(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # the reader went away (`python -m oar tour | head`): stop quietly, as Python's docs
        # advise, instead of a traceback; point stdout at devnull so the final flush is quiet
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
