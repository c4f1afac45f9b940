"""The PyTorch door's linear algebra: torch.linalg.* (inv, inv_ex, det, slogdet, solve,
cholesky, qr, svd, svdvals, eigh, eigvalsh, pinv, matrix_rank, lstsq) and the top-level
spellings (torch.det, logdet, slogdet, cholesky, pinverse, svd, qr), with PyTorch 2.13's
keywords, defaults and named tuples, over the core declarations of oar/ops/decomp.py
(Note [Decomposition backwards]).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError
from ..ops import decomp as D
from ..tensor import Tensor as _CoreTensor
from ..tensor import wrap_as
from ._binding import write_out
from ._tensor import Tensor, _return_type, return_types

LinAlgError = D.LinAlgError
LinAlgError.__module__ = "torch.linalg"

for _name, _fields in (("linalg_inv_ex", ("inverse", "info")),
                       ("linalg_slogdet", ("sign", "logabsdet")),
                       ("slogdet", ("sign", "logabsdet")),
                       ("linalg_qr", ("Q", "R")), ("qr", ("Q", "R")),
                       ("linalg_svd", ("U", "S", "Vh")), ("svd", ("U", "S", "V")),
                       ("linalg_eigh", ("eigenvalues", "eigenvectors")),
                       ("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))):
    if not hasattr(return_types, _name):
        setattr(return_types, _name, _return_type(_name, _fields))
del _name, _fields


def _out(res, out, fname):
    """torch's out= (a tensor, or a tuple for a named-tuple result): refused when a gradient
    would be recorded, then Note [Torch signatures]' write_out (every check before a write)."""
    if out is None:
        return res
    results = tuple(res) if isinstance(res, tuple) else (res,)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(outs) != len(results) or not all(isinstance(o, _CoreTensor) for o in outs):
        raise ArgTypeError(f"{fname}(): argument 'out' must be "
                           + (f"a tuple of {len(results)} Tensors" if len(results) > 1
                              else "Tensor") + f", not {type(out).__name__}")
    if grad_mode.STATE.enabled and any(t.requires_grad for t in results + outs):
        raise RuntimeError(f"{fname}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    write_out(fname, outs, results)
    return type(res)(outs) if isinstance(res, tuple) else out


# --------------------------------------------------------------------------- torch.linalg
def inv(A, *, out=None):
    """torch.linalg.inv: the inverse of each square matrix of A (LinAlgError if singular)."""
    return _out(D.registry.dispatch(D.INV, (D.matrix_input(A, "linalg.inv"),), ()), out,
                "linalg.inv")


def inv_ex(A, *, check_errors=False, out=None):
    """torch.linalg.inv_ex: (inverse, info); info is 0 where the matrix is invertible and
    positive (the order of the first zero pivot) where it is not (then the inverse is not
    meaningful). check_errors=True raises LinAlgError instead."""
    a = D.matrix_input(A, "linalg.inv_ex")
    d = a._data
    batch = d.shape[:-2]
    if d.size:
        full = np.linalg.matrix_rank(d) if d.shape[-1] else np.full(batch, 0)
        info = np.where(full < d.shape[-1], np.asarray(full) + 1, 0).astype(np.int32)
    else:
        info = np.zeros(batch, np.int32)
    if np.any(info):
        if check_errors:
            raise D._singular("linalg.inv_ex", D._batch_index(info != 0))
        # the invertible matrices get their inverse, the others NaN (LAPACK leaves garbage
        # there; info says which); no gradient flows through such a batch
        ok = info == 0
        res = np.full(d.shape, np.nan, d.dtype)
        if ok.any():
            res[ok] = np.linalg.inv(d[ok])
        inverse = wrap_as(a._result_class, res)
    else:
        inverse = D.registry.dispatch(D.INV, (a,), ())
    res = return_types.linalg_inv_ex((inverse, wrap_as(a._result_class, np.asarray(info))))
    return _out(res, out, "linalg.inv_ex")


def det(A, *, out=None):
    """torch.linalg.det: the determinant of each square matrix of A."""
    return _out(D.registry.dispatch(D.DET, (D.matrix_input(A, "linalg.det"),), ()), out,
                "linalg.det")


def slogdet(A, *, out=None):
    """torch.linalg.slogdet: (sign, logabsdet) of each square matrix of A."""
    return _out(return_types.linalg_slogdet(D.slogdet_pair(A, "linalg.slogdet")), out,
                "linalg.slogdet")


def solve(A, B, *, left=True, out=None):
    """torch.linalg.solve: X with A X = B (left=True) or X A = B; B may be a (batch of)
    vector(s); batch dims broadcast."""
    return _out(D.solve_matrices(A, B, left, "linalg.solve"), out, "linalg.solve")


def cholesky(input, *, upper=False, out=None):
    """torch.linalg.cholesky: L with A = L L^H (upper=True: U with A = U^H U)."""
    return _out(D.cholesky_factor(input, upper, "linalg.cholesky"), out, "linalg.cholesky")


def qr(A, mode="reduced", *, out=None):
    """torch.linalg.qr: (Q, R); mode 'reduced', 'complete' or 'r' (Q empty)."""
    return _out(return_types.linalg_qr(D.qr_pair(A, mode, "linalg.qr")), out, "linalg.qr")


def svd(A, full_matrices=True, *, driver=None, out=None):
    """torch.linalg.svd: (U, S, Vh), full_matrices=True by default as in torch."""
    return _out(return_types.linalg_svd(D.svd_triple(A, full_matrices, "linalg.svd")), out,
                "linalg.svd")


def svdvals(A, *, driver=None, out=None):
    """torch.linalg.svdvals: the singular values of each matrix of A, descending."""
    return _out(D.singular_values(A, "linalg.svdvals"), out, "linalg.svdvals")


def eigh(input, UPLO="L", *, out=None):
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors) of each symmetric matrix,
    reading the triangle UPLO names."""
    return _out(return_types.linalg_eigh(D.eigh_pair(input, UPLO, "linalg.eigh")), out,
                "linalg.eigh")


def eigvalsh(input, UPLO="L", *, out=None):
    """torch.linalg.eigvalsh: the eigenvalues (ascending) of each symmetric matrix."""
    return _out(D.eigh_pair(input, UPLO, "linalg.eigvalsh")[0], out, "linalg.eigvalsh")


def pinv(input, *, atol=None, rtol=None, hermitian=False, out=None):
    """torch.linalg.pinv: the pseudo-inverse; singular values at most max(atol, rtol * s_max)
    count as zero (rtol defaults to eps * max(m, n) when atol is not given)."""
    return _out(D.pseudo_inverse(input, atol, rtol, hermitian, "linalg.pinv"), out, "linalg.pinv")


def matrix_rank(input, *, atol=None, rtol=None, hermitian=False, out=None):
    """torch.linalg.matrix_rank: the number of singular values above max(atol, rtol * s_max)."""
    return _out(D.rank_of(input, atol, rtol, hermitian, "linalg.matrix_rank"), out,
                "linalg.matrix_rank")


def lstsq(input, b, rcond=None, *, driver=None, out=None):
    """torch.linalg.lstsq: (solution, residuals, rank, singular_values) of min ||A X - B||;
    CPU drivers gels, gelsy (default), gelsd, gelss."""
    return _out(return_types.linalg_lstsq(D.least_squares(input, b, rcond, driver,
                                                          "linalg.lstsq")), out, "linalg.lstsq")


# --------------------------------------------------------------------------- torch.* spellings
def t_det(input):
    """torch.det: torch.linalg.det."""
    return det(input)


def logdet(input):
    """torch.logdet: log(det(input)); nan for a negative determinant, -inf for zero."""
    sign, logabs = D.slogdet_pair(input, "logdet")
    return D.F["where"](sign < 0, D.F["full_like"](logabs, float("nan")), logabs)


_WARNED: set = set()


def _deprecated(name, text):
    """torch's once-per-process UserWarning for the deprecated top-level spellings."""
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(text, UserWarning, stacklevel=3)


def t_slogdet(input):
    """torch.slogdet: (sign, logabsdet)."""
    return return_types.slogdet(D.slogdet_pair(input, "slogdet"))


def t_cholesky(input, upper=False):
    """torch.cholesky (deprecated in torch for torch.linalg.cholesky, still present)."""
    _deprecated("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and "
                "will be removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be "
                "replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
                "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH")
    return D.cholesky_factor(input, upper, "cholesky")


def pinverse(input, rcond=1e-15):
    """torch.pinverse: torch.linalg.pinv(input, rtol=rcond)."""
    return D.pseudo_inverse(input, None, rcond, False, "pinverse")


def t_svd(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with V (not Vh); some=True is the reduced decomposition;
    compute_uv=False gives zero-filled U and V."""
    if not compute_uv:   # zero-filled U (m x m) and V (n x n); `some` has no effect
        a = input._data
        m, n = a.shape[-2:]
        zu = wrap_as(input._result_class, np.zeros(a.shape[:-2] + (m, m), a.dtype))
        zv = wrap_as(input._result_class, np.zeros(a.shape[:-2] + (n, n), a.dtype))
        return return_types.svd((zu, D.singular_values(input, "svd"), zv))
    u, s, vh = D.svd_triple(input, not some, "svd")
    return return_types.svd((u, s, D._mT(vh)))


def t_qr(input, some=True):
    """torch.qr: (Q, R); some=True is mode 'reduced', False 'complete'."""
    _deprecated("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in "
                "a future PyTorch release.\nThe boolean parameter 'some' has been replaced with a "
                "string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
                "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')")
    return return_types.qr(D.qr_pair(input, "reduced" if some else "complete", "qr"))


# the torch namespace's and Tensor's names for the top-level spellings
TOP = {"det": t_det, "logdet": logdet, "slogdet": t_slogdet, "cholesky": t_cholesky,
       "pinverse": pinverse, "svd": t_svd, "qr": t_qr}
for _name, _fn in TOP.items():
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(Tensor, _name, _fn)
del _name, _fn


def inverse(self):
    """Tensor.inverse: torch.linalg.inv(self)."""
    return inv(self)


Tensor.inverse = inverse


# ---- matrix_power, multi_dot (the core's in oar/ops/more_ops.py, with torch's out=)
def matrix_power(input, n, *, out=None):
    """torch.linalg.matrix_power: input multiplied by itself n times (n < 0: its inverse)."""
    from ..ops.more_ops import matrix_power as _mp
    return _out(_mp(input, n), out, "linalg.matrix_power")


def multi_dot(tensors, *, out=None):
    """torch.linalg.multi_dot: the product of the matrices in tensors (first and last may be
    1-D)."""
    from ..ops.more_ops import multi_dot as _md
    return _out(_md(tensors), out, "linalg.multi_dot")
