"""`paddle.linalg` of the Paddle door: Paddle 3.3.1's linear-algebra names over the core's
declarations (oar/ops/decomp.py for the decompositions and solvers; norms in oar/ops/norms.py).

A face: imports and `__all__` only. Each group of names is one block, so helpers adding names
touch only their own block.
"""
from __future__ import annotations

__all__ = []

# ---- decompositions and solvers (oar/ops/decomp.py)
from .ops.decomp import (cholesky, det, eigh, eigvalsh, inv, lstsq, matrix_rank,  # noqa: E402
                         pinv, qr, slogdet, solve, svd, svdvals)
__all__ += ["cholesky", "det", "eigh", "eigvalsh", "inv", "lstsq", "matrix_rank", "pinv", "qr",
            "slogdet", "solve", "svd", "svdvals"]

# ---- norms, einsum, cdist
from .ops.norms import matrix_norm, norm, vector_norm  # noqa: E402,F401
__all__ += ["matrix_norm", "norm", "vector_norm"]

# ---- matrix_power, multi_dot (oar/ops/more_ops.py)
from .ops.more_ops import matrix_power, multi_dot  # noqa: E402,F401
__all__ += ["matrix_power", "multi_dot"]
from .ops.more_ops import corrcoef, cov  # noqa: E402,F401
__all__ += ["corrcoef", "cov"]
from .ops.more_ops3 import matrix_exp  # noqa: E402,F401
__all__ += ["matrix_exp"]
