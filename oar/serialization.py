"""oar.save / oar.load: state dicts and tensors to a file (pickle, NumPy arrays inside)."""
from __future__ import annotations

import os
import pickle


def save(obj, path, protocol=4, **kwargs):
    """Save a tensor, a state_dict or any picklable structure of them."""
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise FileNotFoundError(f"oar.save: directory {d!r} does not exist")
    with open(path, "wb") as f:
        pickle.dump(obj, f, protocol=protocol)


def load(path, **kwargs):
    """Load what oar.save wrote. Like pickle, only load files you trust."""
    with open(path, "rb") as f:
        return pickle.load(f)
