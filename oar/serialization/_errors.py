"""The errors every checkpoint format raises (one family, so callers catch one class)."""
from __future__ import annotations

import pickle


class CheckpointError(RuntimeError):
    """A file that cannot be read as a checkpoint (empty, truncated, foreign, corrupt), or an
    object that cannot be written to the chosen format. The message names the file and what
    was expected."""


class UnreadableCheckpointError(CheckpointError, pickle.UnpicklingError):
    """A file that is not a checkpoint oar can read (empty, truncated, corrupt or foreign).
    Also a pickle.UnpicklingError: the class torch.load raises for such a file."""


class ForbiddenGlobalError(CheckpointError, pickle.UnpicklingError):
    """A pickled checkpoint names a global outside the allowlist (Note [Loading never runs
    code]); nothing from the file was called. Derives from pickle.UnpicklingError, the class
    torch.load(weights_only=True) raises for the same file."""
