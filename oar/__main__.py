"""python -m oar [train|tour] ...  (train is the default)."""
from __future__ import annotations

import sys


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = argv[0] if argv and not argv[0].startswith("-") else "train"
    rest = argv[1:] if argv and argv[0] == cmd else argv
    if cmd == "tour":
        from .tour import main as tour
        return tour()
    if cmd == "train":
        try:
            from .train import main as train
        except ImportError as e:
            print(f"oar: error: {e}", file=sys.stderr)
            return 2
        return train(rest)
    print(f"oar: error: unknown command {cmd!r}; use 'train' or 'tour'", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
