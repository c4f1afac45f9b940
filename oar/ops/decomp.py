"""Matrix decompositions and solvers: inv, det, slogdet, solve, cholesky, qr, svd, eigh, pinv,
matrix_rank, lstsq — batched over the leading dims, NumPy's LAPACK (numpy.linalg) as kernel.

Each op is one declaration (kernel, backward, what it saves); the two doors' spellings
(`paddle.linalg.*`, `paddle.inverse` here; `torch.linalg.*`, `torch.inverse`, `torch.svd` ...
in oar/torch/_linalg.py) are thin functions over them (Note [Decomposition backwards]).
"""
from __future__ import annotations

import numpy as np

from .. import _xp
from ..autograd import grad_mode
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor, wrap_as
from . import args as _args
from . import registry
from .norms import SVDVALS
from .reduce import dispatch_multi
from .registry import OpDef

F = registry.FUNCTIONS

# Note [Decomposition backwards]
# The backwards of inv, det, slogdet, solve and pinv are formulas in oar ops (so they can be
# differentiated again). Those of cholesky, qr, svd and eigh recompute the factorisation of the
# saved input with NumPy and apply the textbook formula to arrays (Murray 2016 for Cholesky,
# Liao et al. 2019 for QR, Townsend 2016 for the SVD, the symmetric eigenproblem's first-order
# perturbation); they are first-order only and say so under create_graph. Like PyTorch's, the
# SVD and eigh gradients are defined for gauge-invariant losses and distinct singular values /
# eigenvalues; the QR gradient for mode='reduced' (or a square 'complete').


class LinAlgError(ArgValueError):
    """A matrix the factorisation cannot handle (singular, not positive-definite): PyTorch's
    torch.linalg.LinAlgError (a RuntimeError), Paddle's ValueError (InvalidArgument)."""


# ---------------------------------------------------------------- argument checks
_TORCH_DT = {"float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int",
             "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def matrix_input(x, op, square=True, name="A"):
    """x as a float32/float64 tensor of (batches of) matrices; torch's and Paddle's refusals
    of other dtypes, of fewer than 2 dims and (square=True) of non-square matrices."""
    x = _args.tensor(x, op, name)
    d = x._data
    if d.dtype.kind != "f" or d.dtype.itemsize < 4:
        raise ArgTypeError(
            f"{op}: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_DT.get(d.dtype.name, d.dtype.name)} ({d.dtype.name}). Fix: cast it to "
            "float32 or float64 first, e.g. x.astype('float32').")
    if d.ndim < 2:
        raise ArgValueError(f"{op}: The input tensor {name} must have at least 2 dimensions, "
                            f"got shape {list(d.shape)}.")
    if square and d.shape[-1] != d.shape[-2]:
        raise ArgValueError(f"{op}: {name} must be batches of square matrices, but they are "
                            f"{d.shape[-2]} by {d.shape[-1]} matrices (shape {list(d.shape)}).")
    return x


def _mT(t):
    return F["swapaxes"](t, -1, -2)


def _first_order(op):
    if grad_mode.STATE.enabled:
        raise NotImplementedError(f"{op}(): second derivatives are not supported (the backward "
                                  "recomputes the factorisation with NumPy: "
                                  "Note [Decomposition backwards])")


def _grads(g, n):
    """The incoming gradients of an n-output node as a list (None where none arrived)."""
    if isinstance(g, dict):
        return [g.get(k) for k in range(n)]
    return [g] + [None] * (n - 1)


def _arr(g, like):
    return _xp.array_module(like).zeros(like.shape, like.dtype) if g is None else g._data


def _wrap(cls, a, dtype):
    return wrap_as(cls, _xp.ascontiguousarray(a, dtype=dtype))


def _singular(op, batch_index=None):
    where = "" if batch_index is None else f" (batch element {batch_index})"
    return LinAlgError(f"{op}: The diagonal element of the LU factorisation is zero{where}: "
                       "the input is singular (not invertible). Fix: check the matrix, or use "
                       "pinv / lstsq for singular or rank-deficient systems.")


def _batch_index(mask):
    idx = np.argwhere(mask)
    return tuple(int(i) for i in idx[0]) if idx.size and mask.ndim else None


# ---------------------------------------------------------------- inv
def _k_inv(a):
    if a.size == 0:
        return a.copy()
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        bad = np.linalg.matrix_rank(a) < a.shape[-1]
        raise _singular("linalg.inv", _batch_index(np.asarray(bad))) from None


def _b_inv(ctx, g):
    ai = ctx.out
    t = _mT(ai)
    return (-(t @ g @ t),)


INV = OpDef("inv", _k_inv, _b_inv, needs={"x": ("out",)}, method=False, function=False,
            node_name="LinalgInvExBackward", doc="The inverse of each square matrix of x.")


def inv(x, name=None):
    """paddle.linalg.inv: the inverse of each square matrix in x's last two dims."""
    return registry.dispatch(INV, (matrix_input(x, "linalg.inv", name="x"),), ())


# ---------------------------------------------------------------- det, slogdet
def _k_det(a):
    return np.asarray(np.linalg.det(a), dtype=a.dtype)


def _adjugate_T(a):
    """The transposed adjugate (cofactor matrix) of each matrix of a, singular ones included,
    through the SVD: adj(A) = det(U) det(V) V adj(S) U^T."""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    prods = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], -1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    adj = (np.swapaxes(vh, -1, -2) * prods[..., None, :]) @ np.swapaxes(u, -1, -2)
    return np.swapaxes(adj * sign[..., None, None], -1, -2)


def _b_det(ctx, g):
    a = ctx.input(0)
    d = ctx.out
    if a._data.size and np.all(d._data != 0):
        return ((g * d).unsqueeze(-1).unsqueeze(-1) * _mT(F["inverse"](a)),)
    _first_order("det")
    adj = _adjugate_T(a._data) if a._data.size else np.zeros_like(a._data)
    return (_wrap(g._result_class, adj * g._data[..., None, None], a._data.dtype),)


DET = OpDef("det", _k_det, _b_det, needs={"x": ("x", "out")}, method=False, function=False,
            node_name="LinalgDetBackward", doc="The determinant of each square matrix of x.")


def det(x, name=None):
    """paddle.linalg.det: the determinant of each square matrix in x's last two dims."""
    return registry.dispatch(DET, (matrix_input(x, "linalg.det", name="x"),), ())


def _k_slogdet(a):
    sign, logabs = np.linalg.slogdet(a)
    return np.asarray(sign, a.dtype), np.asarray(logabs, a.dtype)


def _b_slogdet(ctx, g):
    _, gl = _grads(g, 2)   # the sign is piecewise constant: no gradient
    a = ctx.input(0)
    if gl is None:
        return (registry.zero_grad(a),)
    return (gl.unsqueeze(-1).unsqueeze(-1) * _mT(F["inverse"](a)),)


SLOGDET = OpDef("slogdet", _k_slogdet, _b_slogdet, needs={"x": ("x",)}, method=False,
                function=False, node_name="LinalgSlogdetBackward",
                doc="(sign, log|det|) of each square matrix of x.")


def slogdet_pair(x, op="linalg.slogdet"):
    return dispatch_multi(SLOGDET, (matrix_input(x, op),), ())


def slogdet(x, name=None):
    """paddle.linalg.slogdet: sign and log|det| of each square matrix, stacked into one tensor
    of shape [2, *batch] (Paddle 3.3's layout)."""
    sign, logabs = slogdet_pair(x)
    return F["stack"]([sign, logabs], 0)


# ---------------------------------------------------------------- solve
def _k_solve(a, b):
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return np.zeros(shape + b.shape[-2:], np.result_type(a, b))
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        bad = np.linalg.matrix_rank(a) < a.shape[-1]
        raise _singular("linalg.solve", _batch_index(np.asarray(bad))) from None


def _b_solve(ctx, g):
    a, x = ctx.input(0), ctx.out
    gb = _solve_core(_mT(a), g)
    ga = -(gb @ _mT(x))
    from ..autograd.node import sum_to_shape
    return (sum_to_shape(ga, ctx.input_meta[0][0]), sum_to_shape(gb, ctx.input_meta[1][0]))


SOLVE = OpDef("linalg_solve_core", _k_solve, _b_solve, inputs=("x", "y"),
              needs={"x": ("x", "out"), "y": ("x",)}, method=False, function=False,
              node_name="LinalgSolveExBackward",
              doc="X with A X = B for each square A (batch dims broadcast).")


def _solve_core(a, b):
    return registry.dispatch(SOLVE, (a, b), ())


def solve_matrices(a, b, left=True, op="linalg.solve"):
    """A X = B (left) or X A = B, torch's and Paddle's rules for B: a vector when it is 1-D or
    has A's batch shape with one dim less; batch dims broadcast."""
    a = matrix_input(a, op)
    b = matrix_input(b, op, square=False, name="B") if (
        isinstance(b, Tensor) and b.ndim >= 2) else _vector_rhs(b, op)
    if a._data.dtype != b._data.dtype:
        raise ArgTypeError(f"{op}: Expected A and B to have the same dtype, but found A of type "
                           f"{a._data.dtype} and B of type {b._data.dtype} instead. Fix: cast "
                           "one of them.")
    n = a.shape[-1]
    vector = b.ndim == 1 or (left and b.ndim == a.ndim - 1 and list(b.shape) == list(a.shape[:-1]))
    if not left:
        if b.ndim < 2 or b.shape[-1] != n:
            raise ArgValueError(f"{op}: Incompatible shapes of A and B for the equation XA = B "
                                f"({list(a.shape[-2:])} and {list(b.shape[-2:])})")
        return _mT(_solve_core(_mT(a), _mT(b)))
    if vector:
        if b.shape[-1] != n:
            raise ArgValueError(f"{op}: Incompatible shapes of A and B for the equation AX = B "
                                f"({list(a.shape[-2:])} and {list(b.shape)})")
        b2 = b.unsqueeze(-1)
    else:
        if b.shape[-2] != n:
            raise ArgValueError(f"{op}: Incompatible shapes of A and B for the equation AX = B "
                                f"({list(a.shape[-2:])} and {list(b.shape[-2:])})")
        b2 = b
    registry.broadcast_shapes(op, [tuple(a.shape[:-2]), tuple(b2.shape[:-2])])
    res = _solve_core(a, b2)
    return res.squeeze(-1) if vector else res


def _vector_rhs(b, op):
    b = _args.tensor(b, op, "B")
    if b._data.dtype.kind != "f":
        matrix_input(b.unsqueeze(-1) if b.ndim == 1 else b, op, square=False, name="B")
    if b.ndim < 1:
        raise ArgValueError(f"{op}: B must have at least 1 dimension, got a 0-d tensor")
    return b


def solve(x, y, left=True, name=None, *, out=None):
    """paddle.linalg.solve: X with x X = y (left=True) or X x = y."""
    return _out(solve_matrices(x, y, left), out)


def _out(res, out):
    if out is None:
        return res
    with grad_mode.no_grad():
        return out.copy_(res)


# ---------------------------------------------------------------- cholesky
def _k_cholesky(a, upper):
    if a.size == 0:
        return a.copy()
    try:
        low = np.linalg.cholesky(a)
        return _xp.ascontiguousarray(np.swapaxes(low, -1, -2)) if upper else low
    except np.linalg.LinAlgError:
        raise _not_pd("linalg.cholesky", a) from None


def _not_pd(op, a):
    flat = a.reshape((-1,) + a.shape[-2:])
    for b, m in enumerate(flat):
        for k in range(1, m.shape[-1] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                where = f"(Batch element {b}): " if a.ndim > 2 else ""
                return LinAlgError(
                    f"{op}: {where}The factorization could not be completed because the input "
                    f"is not positive-definite (the leading minor of order {k} is not "
                    "positive-definite). Fix: pass a symmetric positive-definite matrix (e.g. "
                    "A @ A.T + eps * I).")
    return LinAlgError(f"{op}: the input is not positive-definite")


def _b_cholesky(ctx, g):
    _first_order("cholesky")
    a = ctx.input(0)._data
    low = np.linalg.cholesky(a)
    gl = np.tril(np.swapaxes(g._data, -1, -2) if ctx.attrs[0] else g._data)
    p = np.tril(np.swapaxes(low, -1, -2) @ gl)
    p = p - 0.5 * np.eye(p.shape[-1], dtype=p.dtype) * p       # Φ: lower part, half diagonal
    li = np.linalg.inv(low)
    s = np.swapaxes(li, -1, -2) @ p @ li
    return (_wrap(g._result_class, 0.5 * (s + np.swapaxes(s, -1, -2)), a.dtype),)


CHOLESKY = OpDef("cholesky", _k_cholesky, _b_cholesky, needs={"x": ("x",)},
                 attrs=(("upper", False),), method=False,
                 function=False, node_name="LinalgCholeskyExBackward",
                 doc="The lower (upper=True: upper) Cholesky factor of each symmetric "
                     "positive-definite matrix.")


def cholesky_factor(x, upper=False, op="linalg.cholesky"):
    return registry.dispatch(CHOLESKY, (matrix_input(x, op),), (bool(upper),))


def cholesky(x, upper=False, name=None):
    """paddle.linalg.cholesky: L with x = L L^T (upper=True: U with x = U^T U)."""
    return cholesky_factor(x, upper, "cholesky")


# ---------------------------------------------------------------- qr
def _k_qr(a, mode):
    if mode == "r":
        r = np.linalg.qr(a, mode="r")
        return np.zeros((0,), a.dtype), r
    q, r = np.linalg.qr(a, mode=mode)
    return q, r


def _qr_back(q, r, gq, gr):
    """Gradient of A = QR (A m x n, m >= n, reduced) from gQ and gR (Liao et al.)."""
    m = r @ np.swapaxes(gr, -1, -2) - np.swapaxes(gq, -1, -2) @ q
    low = np.tril(m, -1)
    copyltu = low + np.swapaxes(low, -1, -2) + np.eye(m.shape[-1]) * m
    rhs = gq + q @ copyltu
    # rhs R^{-T}: solve R X^T = rhs^T
    return np.swapaxes(np.linalg.solve(r, np.swapaxes(rhs, -1, -2)), -1, -2)


def _b_qr(ctx, g):
    _first_order("qr")
    (mode,) = ctx.attrs
    a = ctx.input(0)._data
    m, n = a.shape[-2:]
    if mode == "r":
        raise RuntimeError("linalg.qr_backward: The derivative of linalg.qr depends on Q, which "
                           "is not computed when mode='r'. Please use linalg.qr(A, mode='reduced') "
                           "if you are going to differentiate through linalg.qr.")
    if mode == "complete" and m > n:
        raise RuntimeError("linalg.qr_backward: The QR decomposition is not differentiable when "
                           "mode='complete' and nrows > ncols.")
    q, r = np.linalg.qr(a, mode="reduced")
    gq, gr = _grads(g, 2)
    gq, gr = _arr(gq, q), _arr(gr, r)
    if m >= n:
        ga = _qr_back(q, r, gq, gr)
    else:   # A = [X | Y], X = Q R1 square, Y = Q R2
        y = a[..., m:]
        gr1, gr2 = gr[..., :m], gr[..., m:]
        gx = _qr_back(q, r[..., :m], gq + y @ np.swapaxes(gr2, -1, -2), gr1)
        ga = np.concatenate([gx, q @ gr2], -1)
    return (_wrap(g._result_class if not isinstance(g, dict) else _any(g)._result_class, ga,
                  a.dtype),)


def _any(g):
    return next(v for v in g.values() if v is not None)


QR = OpDef("qr", _k_qr, _b_qr, needs={"x": ("x",)}, attrs=(("mode", "reduced"),),
           method=False, function=False, node_name="LinalgQrBackward",
           doc="(Q, R) of the QR decomposition of each matrix of x.")


def qr_pair(x, mode="reduced", op="linalg.qr"):
    x = matrix_input(x, op, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise ArgValueError(f"{op}: qr received unrecognized mode '{mode}' but expected one of "
                            "'reduced' (default), 'r', or 'complete'")
    return dispatch_multi(QR, (x,), (mode,))


def qr(x, mode="reduced", name=None):
    """paddle.linalg.qr: (Q, R), or R alone for mode='r'."""
    q, r = qr_pair(x, mode)
    return r if mode == "r" else (q, r)


# ---------------------------------------------------------------- svd
def _k_svd(a, full_matrices):
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return u, np.asarray(s, a.dtype), vh


def _b_svd(ctx, g):
    _first_order("svd")
    a = ctx.input(0)._data
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    k = s.shape[-1]
    gu, gs, gvh = _grads(g, 3)
    cls = _any(g)._result_class if isinstance(g, dict) else g._result_class
    gu = None if gu is None else gu._data[..., :k]
    gvh = None if gvh is None else gvh._data[..., :k, :]
    gs = np.zeros_like(s) if gs is None else gs._data
    v = np.swapaxes(vh, -1, -2)
    ut = np.swapaxes(u, -1, -2)
    inner = gs[..., :, None] * np.eye(k, dtype=a.dtype)
    if gu is not None or gvh is not None:
        s2 = s * s
        with np.errstate(divide="ignore", invalid="ignore"):
            f = 1.0 / (s2[..., None, :] - s2[..., :, None])
        f[..., np.arange(k), np.arange(k)] = 0
        smat = s[..., None, :] * np.eye(k, dtype=a.dtype)
        with np.errstate(divide="ignore"):
            sinv = np.where(s > 0, 1.0 / s, 0)
        extra = 0
        if gu is not None:
            j = ut @ gu
            inner = inner + (f * (j - np.swapaxes(j, -1, -2))) @ smat
            if a.shape[-2] > k:
                proj = gu - u @ j
                extra = extra + (proj * sinv[..., None, :]) @ vh
        if gvh is not None:
            gv = np.swapaxes(gvh, -1, -2)
            kk = vh @ gv
            inner = inner + smat @ (f * (kk - np.swapaxes(kk, -1, -2)))
            if a.shape[-1] > k:
                proj = gv - v @ kk
                extra = extra + (u * sinv[..., None, :]) @ np.swapaxes(proj, -1, -2)
        return (_wrap(cls, u @ inner @ vh + extra, a.dtype),)
    return (_wrap(cls, u @ inner @ vh, a.dtype),)


SVD = OpDef("svd", _k_svd, _b_svd, needs={"x": ("x",)}, attrs=(("full_matrices", False),),
            method=False, function=False, node_name="LinalgSvdBackward",
            doc="(U, S, Vh) of the singular value decomposition of each matrix of x.")


def svd_triple(x, full_matrices=False, op="linalg.svd"):
    return dispatch_multi(SVD, (matrix_input(x, op, square=False),), (bool(full_matrices),))


def svd(x, full_matrices=False, name=None):
    """paddle.linalg.svd: (U, S, VH), VH being V's conjugate transpose."""
    return svd_triple(x, full_matrices)


def singular_values(x, op="linalg.svdvals"):
    return registry.dispatch(SVDVALS, (matrix_input(x, op, square=False),), ())


def svdvals(x, name=None):
    """paddle.linalg.svdvals: the singular values of each matrix, largest first."""
    return singular_values(x)


# ---------------------------------------------------------------- eigh
def _k_eigh(a, uplo):
    w, v = np.linalg.eigh(a, UPLO=uplo)
    return np.asarray(w, a.dtype), v


def _b_eigh(ctx, g):
    _first_order("eigh")
    (uplo,) = ctx.attrs
    a = ctx.input(0)._data
    w, v = np.linalg.eigh(a, UPLO=uplo)
    gw, gv = _grads(g, 2)
    cls = _any(g)._result_class if isinstance(g, dict) else g._result_class
    n = w.shape[-1]
    inner = (np.zeros_like(a) if gw is None else gw._data[..., :, None] * np.eye(n, dtype=a.dtype))
    if gv is not None:
        with np.errstate(divide="ignore"):
            e = 1.0 / (w[..., None, :] - w[..., :, None])
        e[..., np.arange(n), np.arange(n)] = 0
        inner = inner + e * (np.swapaxes(v, -1, -2) @ gv._data)
    ga = v @ inner @ np.swapaxes(v, -1, -2)
    # symmetric, as torch's: the op reads one triangle as the whole symmetric matrix
    return (_wrap(cls, 0.5 * (ga + np.swapaxes(ga, -1, -2)), a.dtype),)


EIGH = OpDef("eigh", _k_eigh, _b_eigh, needs={"x": ("x",)}, attrs=(("UPLO", "L"),),
             method=False, function=False, node_name="LinalgEighBackward",
             doc="(eigenvalues ascending, eigenvectors) of each symmetric matrix of x.")


def eigh_pair(x, UPLO="L", op="linalg.eigh"):
    x = matrix_input(x, op)
    if UPLO not in ("L", "U"):
        raise ArgValueError(f"{op}: Expected UPLO argument to be 'L' or 'U', but got {UPLO!r}")
    return dispatch_multi(EIGH, (x,), (UPLO,))


def eigh(x, UPLO="L", name=None):
    """paddle.linalg.eigh: (eigenvalues ascending, eigenvectors) of each symmetric matrix."""
    return eigh_pair(x, UPLO)


def eigvalsh(x, UPLO="L", name=None):
    """paddle.linalg.eigvalsh: the eigenvalues (ascending) of each symmetric matrix."""
    return eigh_pair(x, UPLO, "linalg.eigvalsh")[0]


# ---------------------------------------------------------------- pinv, matrix_rank
def _tolerances(s, m, n, atol, rtol):
    """The cutoff of each matrix's singular values: max(atol, rtol * s_max), torch's default
    rtol (eps * max(m, n)) when neither is given, rtol 0 when only atol is."""
    smax = s.max(-1) if s.shape[-1] else np.zeros(s.shape[:-1], s.dtype)
    if rtol is None:
        rtol = np.finfo(s.dtype).eps * max(m, n) if atol is None or np.all(
            np.asarray(atol) <= 0) else 0.0
    atol = 0.0 if atol is None else atol
    return np.maximum(np.asarray(atol, s.dtype), np.asarray(rtol, s.dtype) * smax)


def _tol_array(v):
    return v._data if isinstance(v, Tensor) else v


def _k_pinv(a, atol, rtol, hermitian):
    m, n = a.shape[-2:]
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (n, m), a.dtype)
    if hermitian:
        w, v = np.linalg.eigh(a)
        tol = _tolerances(np.abs(w), m, n, atol, rtol)
        with np.errstate(divide="ignore"):
            winv = np.where(np.abs(w) > tol[..., None], 1.0 / w, 0)
        return np.asarray((v * winv[..., None, :]) @ np.swapaxes(v, -1, -2), a.dtype)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    tol = _tolerances(s, m, n, atol, rtol)
    with np.errstate(divide="ignore"):
        sinv = np.where(s > tol[..., None], 1.0 / s, 0)
    return np.asarray(np.swapaxes(vh, -1, -2) @ (sinv[..., :, None] * np.swapaxes(u, -1, -2)),
                      a.dtype)


def _b_pinv(ctx, g):
    a, p = ctx.input(0), ctx.out
    pt, at = _mT(p), _mT(a)
    gt = _mT(g)
    m, n = a.shape[-2:]
    eye_m = F["eye"](m, dtype=a.dtype)
    eye_n = F["eye"](n, dtype=a.dtype)
    return (-(pt @ g @ pt) + (eye_m - a @ p) @ gt @ p @ pt + pt @ p @ gt @ (eye_n - p @ a),)


PINV = OpDef("pinv", _k_pinv, _b_pinv, needs={"x": ("x", "out")},
             attrs=(("atol", None), ("rtol", None), ("hermitian", False)),
             number_attrs=(), method=False, function=False, node_name="LinalgPinvBackward",
             doc="The Moore-Penrose pseudo-inverse of each matrix of x.")


def pseudo_inverse(x, atol=None, rtol=None, hermitian=False, op="linalg.pinv"):
    x = matrix_input(x, op, square=bool(hermitian))
    return registry.dispatch(PINV, (x,), (_tol_array(atol), _tol_array(rtol), bool(hermitian)))


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """paddle.linalg.pinv: the pseudo-inverse; singular values below rcond * s_max are
    treated as zero."""
    return pseudo_inverse(x, None, rcond, hermitian, "pinv")


def _k_rank(a, atol, rtol, hermitian):
    m, n = a.shape[-2:]
    if a.size == 0:
        return np.zeros(a.shape[:-2], np.int64)
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    tol = _tolerances(s, m, n, atol, rtol)
    return np.asarray((s > tol[..., None]).sum(-1), np.int64)


MATRIX_RANK = OpDef("matrix_rank", _k_rank, attrs=(("atol", None), ("rtol", None),
                                                     ("hermitian", False)),
                    number_attrs=(), method=False, function=False,
                    doc="The numerical rank of each matrix of x (int64).")


def rank_of(x, atol=None, rtol=None, hermitian=False, op="linalg.matrix_rank"):
    x = matrix_input(x, op, square=bool(hermitian))
    return registry.dispatch(MATRIX_RANK, (x,), (_tol_array(atol), _tol_array(rtol),
                                                 bool(hermitian)))


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """paddle.linalg.matrix_rank: the number of singular values above the tolerance (tol:
    an absolute one, as Paddle's)."""
    if tol is not None:
        atol, rtol = tol, 0.0
    return rank_of(x, atol, rtol, hermitian, "matrix_rank")


# ---------------------------------------------------------------- lstsq
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def least_squares(a, b, rcond=None, driver=None, op="linalg.lstsq", rank_dtype=np.int64):
    """(solution, residuals, rank, singular_values) of min ||A X - B|| as LAPACK's drivers
    report them on the CPU (default 'gelsy'): rank for gelsy/gelsd/gelss (rank_dtype: torch's
    int64, Paddle's int32), singular values for gelsd/gelss, residuals for gels/gelsd/gelss
    when m > n and every matrix has full rank (torch's and Paddle's 'gelsy' leave them empty). The solution is
    pinv(A) @ B (pinv's cutoff rcond), so its gradient is pinv's and matmul's."""
    a = matrix_input(a, op, square=False)
    b = matrix_input(b, op, square=False, name="B")
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise ArgValueError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                            f"gelss), got {driver!r}")
    if a._data.dtype != b._data.dtype:
        raise ArgTypeError(f"{op}: Expected input and other to have the same dtype, but got "
                           f"{a._data.dtype} and {b._data.dtype}")
    m, n = a.shape[-2:]
    if b.shape[-2] != m:
        raise ArgValueError(f"{op}: input.size(-2) should match other.size(-2), got shapes "
                            f"{list(a.shape)} and {list(b.shape)}")
    registry.broadcast_shapes(op, [tuple(a.shape[:-2]), tuple(b.shape[:-2])])
    dt = a._data.dtype
    rtol = np.finfo(dt).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    sol = pseudo_inverse(a, None, rtol, False, op) @ b
    rank = (rank_of(a, None, rtol, False, op) if driver != "gels"
            else wrap_as(a._result_class, np.zeros((0,), np.int64)))
    if driver != "gels" and rank_dtype != np.int64:
        rank = wrap_as(a._result_class, rank._data.astype(rank_dtype))
    if driver in ("gelsd", "gelss"):
        sv = wrap_as(a._result_class, np.linalg.svd(a._data, compute_uv=False).astype(dt))
    else:
        sv = wrap_as(a._result_class, np.zeros((0,), dt))
    if m > n and driver != "gelsy" and (driver == "gels" or bool(np.all(rank._data == n))):
        resid = ((a @ sol - b) ** 2).sum(axis=-2)
    else:
        resid = wrap_as(a._result_class, np.zeros((0,), dt))
    return sol, resid, rank, sv


def lstsq(x, y, rcond=None, driver=None, name=None):
    """paddle.linalg.lstsq: (solution, residuals, rank, singular_values)."""
    return least_squares(x, y, rcond, driver, "lstsq", np.int32)


# the Paddle door's top-level spellings (paddle.inverse, paddle.cholesky, paddle.eigvalsh;
# the rest live in paddle.linalg) and Paddle's Tensor methods of the same functions
registry.register_function("inverse", inv)
registry.register_function("cholesky", cholesky)
registry.register_function("eigvalsh", eigvalsh)
for _f in (slogdet, qr, pinv, lstsq, solve):
    registry.register_function(_f.__name__, _f, function=False)
del _f
