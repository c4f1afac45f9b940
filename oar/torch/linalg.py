"""`torch.linalg` of the PyTorch door: PyTorch 2.13's linear-algebra names, keywords and
return types over the core's declarations (oar/ops/decomp.py for the decompositions and
solvers; norms in oar/ops/norms.py).

A face: imports and `__all__` only. Each group of names is one block, so helpers adding names
touch only their own block.
"""
from __future__ import annotations

__all__ = []

# ---- decompositions and solvers (oar/ops/decomp.py)
from ._linalg import (LinAlgError, cholesky, det, eigh, eigvalsh, inv, inv_ex,  # noqa: E402
                      lstsq, matrix_rank, pinv, qr, slogdet, solve, svd, svdvals)
__all__ += ["LinAlgError", "cholesky", "det", "eigh", "eigvalsh", "inv", "inv_ex", "lstsq",
            "matrix_rank", "pinv", "qr", "slogdet", "solve", "svd", "svdvals"]

# ---- norms, einsum, cdist
from ._linalg_norms import matrix_norm, norm, vector_norm  # noqa: E402,F401
__all__ += ["matrix_norm", "norm", "vector_norm"]

# ---- matrix_power, multi_dot (oar/ops/more_ops.py)
from ._linalg import matrix_power, multi_dot  # noqa: E402,F401
__all__ += ["matrix_power", "multi_dot"]

# ---- matrix_exp, vander (oar/ops/more_ops3.py)
from ._ops3 import linalg_vander as vander, matrix_exp  # noqa: E402,F401
__all__ += ["matrix_exp", "vander"]
