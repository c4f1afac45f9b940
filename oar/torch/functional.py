"""torch.functional: the tensor functions PyTorch defines in Python (einsum, meshgrid, split,
norm, ...); `import torch.functional as F` is valid PyTorch, so the module exists here too.
Each name is the door's own function (same object as oar.torch.<name>)."""
from __future__ import annotations

import oar.torch as _torch

_NAMES = ("atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
          "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
          "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot",
          "unique", "unique_consecutive", "unravel_index")
__all__ = [n for n in _NAMES if hasattr(_torch, n)]
globals().update({n: getattr(_torch, n) for n in __all__})
