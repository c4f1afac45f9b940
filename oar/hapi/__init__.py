"""Paddle's high-level API: paddle.Model (fit / evaluate / predict), paddle.summary and the
callbacks they run (paddle.callbacks)."""
from . import callbacks  # noqa: F401
from .model import Model  # noqa: F401
from .model_summary import summary  # noqa: F401

__all__ = ["Model", "summary", "callbacks"]
