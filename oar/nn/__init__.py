"""oar.nn: layers (Paddle and PyTorch spellings), functional forms and initialisers."""
from . import functional, init, initializer  # noqa: F401
from .layers import *  # noqa: F401,F403
from .layers import Layer, Module, Parameter  # noqa: F401
