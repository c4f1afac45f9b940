"""paddle.callbacks: hooks that paddle.Model runs around epochs and batches (see
oar/hapi/callbacks.py)."""
from .hapi.callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint,  # noqa: F401
                             ProgBarLogger, ReduceLROnPlateau, VisualDL, WandbCallback)

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"]
