"""Special functions: lgamma, digamma, polygamma, multigammaln, the modified Bessel functions
i0/i0e/i1/i1e, the regularized incomplete gamma functions (gammainc, gammaincc) and
torch.special's ndtr, log_ndtr, erfcx, entr, xlog1py and zeta.

The kernels: Note [Special function kernels] below.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .. import _xp
from ..autograd.errors import ArgTypeError, ArgValueError
from ..tensor import Tensor
from .pointwise import (_EI_C, _EI_D, _RA, _RB, _SA, _SB, _no_kernel, _poly, _torch_door,
                        _where, erfc_f64, erfinv_f64, pointwise_op)
from .registry import FUNCTIONS, OPS, float_result, install

# Note [Special function kernels]
# NumPy has none of these and oar depends on NumPy alone (SciPy is a test oracle only), so each
# kernel is written here, vectorised, in float64, and rounded once into the result dtype
# (`_f64_kernel`); float32 then agrees with torch to its rounding, float64 to ~1e-13.
# * lgamma: x < 0 by reflection, log(pi / |sin(pi x)|) - lgamma(1 - x) (sin(pi x) from the
#   exact remainder x - round(x)); (0, 0.5) as lgamma(x + 1) - log(x); [0.5, 2.5) by the
#   Taylor series of lgamma(1 + e) (coefficients (-1)^k zeta(k) / k), which keeps full relative
#   accuracy at the zeros 1 and 2; [2.5, 12) reduced into [1.5, 2.5) by the recurrence (a sum of
#   two positive logs); beyond, Stirling's series. Poles (0, -1, ...) give inf, as torch.
# * digamma follows torch's recipe (recurrence up to 10, the asymptotic series, reflection
#   below 0); polygamma(n >= 1) is (-1)^(n+1) n! zeta(n + 1, x), Hurwitz zeta by
#   Euler-Maclaurin (a direct sum until q + k >= 9, then the integral and 12 Bernoulli terms);
#   trigamma reflects below 0.5 as torch does. torch's own float64 trigamma truncates its
#   asymptotic series early (~1e-9 relative), and its igamma is ~1e-9 off in places: there oar
#   is the accurate one (SciPy agrees to ~1e-13) and float64 agrees with torch to ~1e-8.
# * i0, i1 (and the e-scaled i0e, i1e): the power series (positive terms, so no cancellation)
#   for |x| <= 30, Hankel's asymptotic series beyond.
# * gammainc P(a, x): the series for x < a + 1, Legendre's continued fraction (modified Lentz)
#   for Q beyond; each loop runs on the elements still converging. For very large a (1e4 and
#   more) the prefactor exp(a log x - x - lgamma(a + 1)) costs a few digits (torch switches to
#   Temme's uniform expansion there).
# * erfcx: exp(x^2) erfc(x) directly below 1.25, then fdlibm's erfc tail with exp(x^2)
#   cancelled exactly, then the asymptotic series; log_ndtr uses it left of -1 (no underflow)
#   and log1p(-ndtr(-x)) right of 0.
_UNSAFE = "unsafe"
_EULER = 0.57721566490153286061
# Bernoulli numbers B_2 .. B_26 (exact)
_B2K = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
        Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510), Fraction(43867, 798),
        Fraction(-174611, 330), Fraction(854513, 138), Fraction(-236364091, 2730),
        Fraction(8553103, 6)]


# ------------------------------------------------------------------------- Hurwitz zeta
_EM_COEF = [float(b / math.factorial(2 * j + 2)) for j, b in enumerate(_B2K[:12])]


def zeta_f64(s, q):
    """Hurwitz zeta(s, q) = sum_k (q + k)^-s, float64, as torch.special.zeta (s = 1: inf,
    s < 1: nan; q a non-positive integer: inf; q < 0 with a non-integer s: nan; q = inf:
    nan)."""
    s, q = np.broadcast_arrays(_xp.asarray(s, np.float64), _xp.asarray(q, np.float64))
    res = np.full(s.shape, np.nan)
    with np.errstate(all="ignore"):
        res[s == 1] = np.inf
        pole = (q <= 0) & (q == np.floor(q)) & (s > 1)
        res[pole] = np.inf
        ok = (s > 1) & ~pole & ~np.isnan(q) & (q < np.inf) & ((q > 0) | (s == np.floor(s)))
        if not ok.any():
            return res
        ss, qq = s[ok], q[ok]
        total = np.zeros_like(ss)
        a = qq.copy()
        # direct terms until q + k >= 9 (at least 9 of them)
        k = 0
        active = _xp.array_module(ss).ones(ss.shape, bool)
        while True:
            active &= (k < 9) | (a < 9)
            if not active.any():
                break
            total[active] += a[active] ** -ss[active]
            a[active] += 1
            k += 1
        # Euler-Maclaurin tail at a: integral, half term, Bernoulli corrections
        tail = a ** (1 - ss) / (ss - 1) + 0.5 * a ** -ss
        f = ss * a ** (-ss - 1)
        for j, c in enumerate(_EM_COEF):
            tail += c * f
            f = f * (ss + 2 * j + 1) * (ss + 2 * j + 2) / (a * a)
        res[ok] = total + tail
    return res


# ----------------------------------------------------------------------------- lgamma
_ZETA_K = zeta_f64(np.arange(2, 62, dtype=np.float64), 1.0)
# lgamma(1 + e) = -gamma e + sum_{k>=2} (-1)^k zeta(k) e^k / k, as polynomial coefficients
_L1_COEF = np.concatenate([[0.0, -_EULER],
                           [(-1) ** k * z / k for k, z in zip(range(2, 62), _ZETA_K)]])
_STIRLING = [float(b / (2 * (j + 1) * (2 * j + 1))) for j, b in enumerate(_B2K[:8])]
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _horner(coef, z):
    r = np.full_like(z, coef[-1])
    for c in coef[-2::-1]:
        r = r * z + c
    return r


def _lgamma_1p(e):
    """lgamma(1 + e) for |e| <= 0.5."""
    return _horner(_L1_COEF, e)


def _stirling(x):
    z = 1.0 / (x * x)
    corr = _horner(_STIRLING, z) / x
    return (x - 0.5) * np.log(x) - x + _HALF_LOG_2PI + np.where(x < 1e17, corr, 0.0)


def _lgamma_pos(x):
    """lgamma of x >= 0.5 (finite)."""
    out = np.empty_like(x)
    lo = x < 1.5
    out[lo] = _lgamma_1p(x[lo] - 1)
    big = x >= 12
    out[big] = _stirling(x[big])
    mid = ~lo & ~big
    if mid.any():
        xm = x[mid].copy()
        logs = np.zeros_like(xm)
        prod = np.ones_like(xm)
        while True:
            m = xm >= 2.5
            if not m.any():
                break
            xm[m] -= 1
            prod[m] *= xm[m]
        e = xm - 2
        logs = np.log(prod)
        out[mid] = _lgamma_1p(e) + np.log1p(e) + logs
    return out


def _sin_pi_abs(x):
    """|sin(pi x)| through the exact remainder x - round(x)."""
    return np.abs(np.sin(np.pi * (x - np.round(x))))


def lgamma_f64(x):
    """log|Gamma(x)| of a float64 array (Note [Special function kernels])."""
    with np.errstate(all="ignore"):
        return _lgamma(_xp.asarray(x, np.float64))


def _lgamma(x):
    out = np.full(x.shape, np.inf)   # poles and +-inf
    out[np.isnan(x)] = np.nan
    fin = np.isfinite(x)
    pole = fin & (x <= 0) & (x == np.floor(x))
    pos = fin & (x >= 0.5)
    out[pos] = _lgamma_pos(x[pos])
    small = fin & (x > 0) & (x < 0.5)
    xs = x[small]
    out[small] = _lgamma_pos(xs + 1) - np.log(xs)
    neg = fin & (x < 0) & ~pole
    xn = x[neg]
    out[neg] = np.log(np.pi / _sin_pi_abs(xn)) - _lgamma_pos(1 - xn)
    return out


# ---------------------------------------------------------------------------- digamma
_PSI_COEF = [float(b / (2 * (j + 1))) for j, b in enumerate(_B2K[:7])]
_PSI_10 = -_EULER + sum(1.0 / k for k in range(1, 10))


def digamma_f64(x):
    """digamma of a float64 array, torch's recipe (Note [Special function kernels]): 0 gives
    -inf (-0: +inf), a negative integer nan, -inf nan."""
    x = _xp.asarray(x, np.float64)
    out = np.full(x.shape, np.nan)
    with np.errstate(all="ignore"):
        zero = x == 0
        out[zero] = np.copysign(np.inf, -x[zero])
        out[x == np.inf] = np.inf
        fin = np.isfinite(x) & ~zero
        neg = fin & (x < 0) & (x != np.floor(x))
        pos = fin & (x > 0)
        out[pos] = _digamma_pos(x[pos])
        xn = x[neg]
        r = xn - np.trunc(xn)
        out[neg] = _digamma_pos(1 - xn) - np.pi / np.tan(np.pi * r)
    return out


def _digamma_pos(x):
    x = x.copy()
    res = np.zeros_like(x)
    one = x == 1
    while True:
        m = x < 10
        if not m.any():
            break
        res[m] -= 1.0 / x[m]
        x[m] += 1
    z = 1.0 / (x * x)
    y = np.where(x < 1e17, z * _horner(_PSI_COEF, z), 0.0)
    res = np.where(x == 10, res + _PSI_10, res + np.log(x) - 0.5 / x - y)
    return np.where(one, -_EULER, res)


def trigamma_f64(x, sin_dtype=np.float64):
    """polygamma(1, x): zeta(2, x), reflected below 0.5 as torch does, pi^2 / sin^2(pi x) -
    zeta(2, 1 - x), with sin(pi x) computed in the tensor's dtype (near the poles of a float32
    tensor torch's float32 sin is far from the float64 value: `sin_dtype` reproduces it)."""
    x = _xp.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        refl = x < 0.5
        pi = _xp.asarray(np.pi, sin_dtype)
        s = np.sin(pi * x.astype(sin_dtype)).astype(np.float64)
        z = zeta_f64(2.0, np.where(refl, 1 - x, x))
        r = np.where(refl, (np.pi * np.pi) / (s * s) - z, z)
        return np.where(x == np.inf, 0.0, r)   # torch: trigamma(inf) = 0, zeta(s, inf) nan


def polygamma_f64(x, n, dtype=np.float64):
    if n == 0:
        return digamma_f64(x)
    if n == 1:
        return trigamma_f64(x, dtype if dtype in (np.float32, np.float16) else np.float64)
    with np.errstate(all="ignore"):
        return (-1.0) ** (n + 1) * math.exp(math.lgamma(n + 1)) * zeta_f64(n + 1, x)


# ----------------------------------------------------------------------- Bessel i0 / i1
def _bessel_e(x, nu):
    """exp(-|x|) I_nu(|x|) for nu in (0, 1), float64, x >= 0 finite or inf."""
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        small = x <= 30
        xs = x[small]
        q = xs * xs / 4
        term = np.ones_like(xs) if nu == 0 else xs / 2
        total = term.copy()
        for k in range(1, 80):
            term = term * q / (k * (k + nu))
            total += term
        out[small] = total * np.exp(-xs)
        xb = x[~small]
        mu = 4.0 * nu * nu
        term = np.ones_like(xb)
        total = term.copy()
        for k in range(1, 40):
            term = term * -(mu - (2 * k - 1) ** 2) / (k * 8 * xb)
            total += term
        out[~small] = total / np.sqrt(2 * np.pi * xb)
    return out


def _bessel(nu, scaled):
    def f(x):
        x = _xp.asarray(x, np.float64)
        ax = np.abs(x)
        nan = np.isnan(x)
        r = _bessel_e(np.where(nan, 0.0, ax), nu)
        if not scaled:
            with np.errstate(over="ignore", invalid="ignore"):
                # torch's i0(+-inf) and i1(+-inf) are nan (its Chebyshev kernel's inf * 0)
                r = np.where(ax == np.inf, np.nan, r * np.exp(ax))
        if nu == 1:
            r = np.copysign(r, x)
        return np.where(nan, np.nan, r)
    return f


i0_f64, i0e_f64, i1_f64, i1e_f64 = (_bessel(0, False), _bessel(0, True), _bessel(1, False),
                                    _bessel(1, True))


# -------------------------------------------------------- regularized incomplete gamma
def _gammainc_pair(a, x):
    """(P, Q) of float64 arrays (broadcast), torch's special values."""
    a, x = np.broadcast_arrays(_xp.asarray(a, np.float64), _xp.asarray(x, np.float64))
    P = np.full(a.shape, np.nan)
    Q = np.full(a.shape, np.nan)
    with np.errstate(all="ignore"):
        valid = (a >= 0) & (x >= 0)
        one = valid & (((a == 0) & (x > 0)) | ((x == np.inf) & (a < np.inf)))
        P[one], Q[one] = 1.0, 0.0
        zero = valid & (a > 0) & ((x == 0) | ((a == np.inf) & (x < np.inf)))
        P[zero], Q[zero] = 0.0, 1.0
        work = valid & (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
        ser = work & (x < a + 1)
        if ser.any():
            p = _p_series(a[ser], x[ser])
            P[ser], Q[ser] = p, 1 - p
        cf = work & ~ser
        if cf.any():
            q = _q_fraction(a[cf], x[cf])
            P[cf], Q[cf] = 1 - q, q
    return P, Q


def _log_prefactor(a, x):
    return a * np.log(x) - x - lgamma_f64(a + 1)


def _p_series(a, x):
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n)), for x < a + 1."""
    total = np.ones_like(a)
    term = np.ones_like(a)
    idx = np.arange(a.size)
    ap = a.copy()
    for _ in range(100000):
        if idx.size == 0:
            break
        ap[idx] += 1
        term[idx] *= x[idx] / ap[idx]
        total[idx] += term[idx]
        idx = idx[term[idx] > total[idx] * 1e-17]
    return np.exp(_log_prefactor(a, x)) * total


def _q_fraction(a, x):
    """Q(a, x) by Legendre's continued fraction (modified Lentz), for x >= a + 1."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(a, 1 / tiny)
    d = 1 / b
    h = d.copy()
    idx = np.arange(a.size)
    for i in range(1, 100000):
        if idx.size == 0:
            break
        an = -i * (i - a[idx])
        b[idx] += 2
        dd = an * d[idx] + b[idx]
        dd = np.where(np.abs(dd) < tiny, tiny, dd)
        cc = b[idx] + an / c[idx]
        cc = np.where(np.abs(cc) < tiny, tiny, cc)
        dd = 1 / dd
        delta = dd * cc
        d[idx], c[idx] = dd, cc
        h[idx] *= delta
        idx = idx[np.abs(delta - 1) > 1e-16]
    return np.exp(a * np.log(x) - x - lgamma_f64(a)) * h


def gammainc_f64(a, x):
    return _gammainc_pair(a, x)[0]


def gammaincc_f64(a, x):
    return _gammainc_pair(a, x)[1]


# ------------------------------------------------------------------------ declarations
def _host64(v):
    """v as float64 on the CPU: the special functions' series and tables are NumPy's, so a
    device operand is computed on the host and its result moved back (_placed)."""
    if _xp.is_device_array(v):
        v = _xp.to_place(v, _xp.CPU)
    return _xp.asarray(v, np.float64)


def _placed(r, *operands):
    """r (a host result) on the place of the first device operand (else r itself)."""
    for v in operands:
        if _xp.is_device_array(v):
            return _xp.to_place(np.asarray(r), _xp.place_of(v))
    return r


def _f64_kernel(fn, name):
    """A kernel computing fn in float64 and rounding once into the result dtype (an
    overflow in that rounding is inf, as torch's, without NumPy's warning)."""
    def k(out, rdt, x):
        with np.errstate(all="ignore"):
            r = _placed(fn(_host64(x)), x)
            if out is None:
                return _xp.asarray(r).astype(rdt, copy=False)
            np.copyto(out, r, casting=_UNSAFE)
        return out
    k.__doc__ = f"Elementwise {name}, computed in float64."
    k.no_complex = name + "_cpu"   # Note [Ops without a complex kernel]
    return k


def _binary_f64(fn, name):
    def k(out, rdt, a, x):
        with np.errstate(all="ignore"):
            r = _placed(fn(_host64(a), _host64(x)), a, x)
            if out is None:
                return _xp.asarray(r).astype(rdt, copy=False)
            np.copyto(out, r, casting=_UNSAFE)
        return out
    k.__doc__ = f"Elementwise {name}, computed in float64."
    return k


def _op(name):
    return FUNCTIONS[name]


pointwise_op("lgamma", _f64_kernel(lgamma_f64, "lgamma"),
  lambda ctx, g: (g * _op("digamma")(ctx.input(0)),), needs={"x": ("x",)},
  result_dtype=float_result,
  doc="Elementwise log|Gamma(x)| (inf at 0 and the negative integers).")
# paddle.gammaln / torch.special.gammaln: lgamma's function and method (no in-place spelling)
install("gammaln", FUNCTIONS["lgamma"])

pointwise_op("digamma", _f64_kernel(digamma_f64, "digamma"),
  lambda ctx, g: (g * _op("polygamma")(ctx.input(0), 1),), needs={"x": ("x",)},
  result_dtype=float_result,
  doc="Elementwise digamma (psi), the derivative of lgamma (-inf at 0, nan at negative "
      "integers).")


def _int_order(op_name, v, what, low):
    if isinstance(v, Tensor) or isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise ArgTypeError(f"{op_name}(): argument '{what}' must be int, not "
                           f"{type(v).__name__}")
    if v < low:
        msg = ("polygamma(n, x) does not support negative n." if what == "n" else
               "p has to be greater than or equal to 1")
        raise ArgValueError(f"{op_name}(): {msg} (got {what}={v})")


def _check_polygamma(op_name, args, attrs, rdt):
    _int_order(op_name, attrs[0], "n", 0)


def _k_polygamma(out, rdt, x, n):
    with np.errstate(all="ignore"):
        r = _placed(polygamma_f64(_host64(x), int(n), rdt.type), x)
        if out is None:
            return _xp.asarray(r).astype(rdt, copy=False)
        np.copyto(out, r, casting=_UNSAFE)
    return out


pointwise_op("polygamma", _k_polygamma,
  lambda ctx, g: (g * _op("polygamma")(ctx.input(0), ctx.attrs[0] + 1),), needs={"x": ("x",)},
  attrs=(("n", None),), number_attrs=(), check=_check_polygamma, result_dtype=float_result,
  doc="Elementwise n-th derivative of digamma (polygamma(0, x) is digamma(x)).")


def _check_multigammaln(op_name, args, attrs, rdt):
    _int_order(op_name, attrs[0], "p", 1)


def _k_multigammaln(out, rdt, x, p):
    xf = _host64(x)
    p = int(p)
    with np.errstate(all="ignore"):
        r = _placed(sum(lgamma_f64(xf - j / 2) for j in range(p))
                    + p * (p - 1) / 4 * math.log(math.pi), x)
        if out is None:
            return _xp.asarray(r).astype(rdt, copy=False)
        np.copyto(out, r, casting=_UNSAFE)
    return out


def _multigammaln_back(ctx, g):
    x, p = ctx.input(0), ctx.attrs[0]
    d = _op("digamma")(x)
    for j in range(1, p):
        d = d + _op("digamma")(x - j / 2)
    return (g * d,)


pointwise_op("multigammaln", _k_multigammaln, _multigammaln_back, needs={"x": ("x",)},
  attrs=(("p", None),), number_attrs=(), check=_check_multigammaln, result_dtype=float_result,
  aliases=("mvlgamma",), node_name="MvlgammaBackward",
  doc="Elementwise multivariate log-gamma of dimension p: sum_j lgamma(x - j/2) + "
      "p(p-1)/4 log(pi).")


# Bessel functions: torch's derivatives (i0' = i1; i1' = i0 - i1/x, 1/2 at 0; the e-scaled
# ones subtract sign(x) times the result)
def _i1_back(ctx, g):
    x, out = ctx.input(0), ctx.out
    safe = _where(x == 0, 1.0, x)   # no 0/0 at 0, where the derivative is 1/2
    return (g * _where(x == 0, 0.5, _op("i0")(x) - out / safe),)


def _i1e_back(ctx, g):
    x, out = ctx.input(0), ctx.out
    safe = _where(x == 0, 1.0, x)
    return (g * _where(x == 0, 0.5, _op("i0e")(x) - out * (x.sign() + 1 / safe)),)


pointwise_op("i0", _f64_kernel(i0_f64, "i0"), lambda ctx, g: (g * _op("i1")(ctx.input(0)),),
  needs={"x": ("x",)}, result_dtype=float_result,
  doc="Elementwise modified Bessel function of the first kind, order 0.")
pointwise_op("i0e", _f64_kernel(i0e_f64, "i0e"),
  lambda ctx, g: (g * (_op("i1e")(ctx.input(0)) - ctx.input(0).sign() * ctx.out),),
  needs={"x": ("x", "out")}, result_dtype=float_result, inplace=False,
  node_name="SpecialI0EBackward",
  doc="Elementwise exponentially scaled modified Bessel function, order 0: exp(-|x|) i0(x).")
pointwise_op("i1", _f64_kernel(i1_f64, "i1"), _i1_back, needs={"x": ("x", "out")},
  result_dtype=float_result, inplace=False, node_name="SpecialI1Backward",
  doc="Elementwise modified Bessel function of the first kind, order 1.")
pointwise_op("i1e", _f64_kernel(i1e_f64, "i1e"), _i1e_back, needs={"x": ("x", "out")},
  result_dtype=float_result, inplace=False, node_name="SpecialI1EBackward",
  doc="Elementwise exponentially scaled modified Bessel function, order 1: exp(-|x|) i1(x).")


# Regularized incomplete gamma. Like torch, only the second argument has a gradient: the
# derivative in a has no closed form (torch raises NotImplementedError in backward).
def _check_gammainc(op_name, args, attrs, rdt):
    """Floating operands only (both frameworks); Paddle also refuses negative (or nan)
    values, where torch gives nan."""
    if rdt.kind != "f":
        _no_kernel(op_name, op_name.rstrip("_").replace("gammainc", "igamma") + "_cpu", rdt,
                   "cast the operands to a floating dtype first.")
    if not _torch_door(args):
        for v, n in zip(args, "xy"):
            d = v._data if isinstance(v, Tensor) else _xp.asarray(v)
            if not (d >= 0).all():
                raise ArgValueError(f"{op_name}(): The input argument {n} must be greater than "
                                    "or equal to 0. Fix: both arguments of the regularized "
                                    "incomplete gamma function are non-negative.")


def _gammainc_back(sign, torch_name):
    # Paddle gives no gradient for a (None); torch raises
    def back(ctx, g):
        if ctx.needs[0] and _torch_door((ctx.input(0),)):
            raise NotImplementedError(
                f"the derivative for '{torch_name}: input' is not implemented. Fix: detach the "
                "first argument (a); the gradient exists for the second (x) only.")
        if not ctx.needs[1]:
            return (None, None)
        a, x = ctx.input(0), ctx.input(1)
        d = ((a - 1) * x.log() - x - _op("lgamma")(a)).exp()
        return (None, g * d * sign if ctx.needs[1] else None)
    return back


pointwise_op("gammainc", _binary_f64(gammainc_f64, "gammainc"), _gammainc_back(1, "igamma"),
  needs={"x": ("x",), "y": ("x", "y")}, inputs=("x", "y"), check=_check_gammainc,
  aliases=("igamma",), node_name="IgammaBackward",
  doc="Elementwise regularized lower incomplete gamma function P(x, y) (x the shape a).")
pointwise_op("gammaincc", _binary_f64(gammaincc_f64, "gammaincc"),
  _gammainc_back(-1, "igammac"), needs={"x": ("x",), "y": ("x", "y")}, inputs=("x", "y"),
  check=_check_gammainc, aliases=("igammac",), node_name="IgammacBackward",
  doc="Elementwise regularized upper incomplete gamma function Q(x, y) = 1 - P(x, y).")


# ------------------------------------------------ torch.special only: ndtr, log_ndtr, erfcx ...
# Note [torch.special only ops]
# torch.special's ndtr, ndtri, log_ndtr, erfcx, entr, xlog1py and zeta have no Paddle spelling and
# no top-level torch one, so they are declared with function=False, method=False: no
# oar.ndtr, no Tensor.ndtr; oar/torch/special.py spells them from OPS[name].call.
_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_PI = 1 / math.sqrt(math.pi)


def erfcx_f64(x):
    """exp(x^2) erfc(x): directly below 1.25; fdlibm's tail exp(-z^2 - 0.5625 + R/S) / x
    times exp(x^2) is exp(R/S - 0.5625) / x exactly up to 28; the asymptotic series beyond."""
    x = _xp.asarray(x, np.float64)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        lo = x < 1.25
        xl = x[lo]
        out[lo] = np.exp(xl * xl) * erfc_f64(xl)
        mid = (x >= 1.25) & (x < 28)
        a = x[mid]
        s = 1.0 / (a * a)
        small = a < 1 / 0.35
        R = np.where(small, _poly(_RA, s), _poly(_RB, s))
        S = np.where(small, _poly(_SA, s), _poly(_SB, s))
        out[mid] = np.exp(R / S - 0.5625) / a
        big = x >= 28
        b = x[big]
        z = 1 / (2 * b * b)
        term = np.ones_like(b)
        total = term.copy()
        for k in range(1, 10):
            term = term * -(2 * k - 1) * z
            total += term
        out[big] = np.where(b == np.inf, 0.0, total * _INV_SQRT_PI / b)
    return np.where(np.isnan(x), np.nan, out)


def ndtr_f64(x):
    return 0.5 * erfc_f64(-_xp.asarray(x, np.float64) * _SQRT_HALF)


def log_ndtr_f64(x):
    x = _xp.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        t = -x * _SQRT_HALF
        left = np.log(erfcx_f64(t) / 2) - t * t              # x < -1: no underflow
        mid = np.log(0.5 * erfc_f64(t))                        # -1 <= x <= 0
        right = np.log1p(-0.5 * erfc_f64(-t))                  # x > 0: log(1 - tiny)
        r = np.where(x < -1, left, np.where(x <= 0, mid, right))
    return np.where(np.isnan(x), np.nan, r)


def entr_f64(x):
    x = _xp.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        r = np.where(x > 0, -x * np.log(x), np.where(x == 0, 0.0, -np.inf))
    return np.where(np.isnan(x), np.nan, r)


def xlog1py_f64(x, y):
    x, y = _xp.asarray(x, np.float64), _xp.asarray(y, np.float64)
    with np.errstate(all="ignore"):
        return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y))


_SQRT_2PI = math.sqrt(2 * math.pi)
pointwise_op("ndtr", _f64_kernel(ndtr_f64, "ndtr"),
  lambda ctx, g: (g * ((ctx.input(0).square() * -0.5).exp() * (1 / _SQRT_2PI)),),
  needs={"x": ("x",)}, result_dtype=float_result, inplace=False, function=False, method=False,
  node_name="SpecialNdtrBackward",
  doc="Elementwise standard normal cumulative distribution function.")
pointwise_op("log_ndtr", _f64_kernel(log_ndtr_f64, "log_ndtr"),
  lambda ctx, g: (g * ((ctx.input(0).square() * -0.5 - ctx.out).exp() * (1 / _SQRT_2PI)),),
  needs={"x": ("x", "out")}, result_dtype=float_result, inplace=False, function=False,
  method=False, node_name="SpecialLogNdtrBackward",
  doc="Elementwise log of the standard normal cumulative distribution function.")
pointwise_op("erfcx", _f64_kernel(erfcx_f64, "erfcx"),
  lambda ctx, g: (g * (ctx.input(0) * ctx.out * 2 - 2 * _INV_SQRT_PI),),
  needs={"x": ("x", "out")}, result_dtype=float_result, inplace=False, function=False,
  method=False, node_name="SpecialErfcxBackward",
  doc="Elementwise scaled complementary error function exp(x^2) erfc(x).")
pointwise_op("entr", _f64_kernel(entr_f64, "entr"),
  lambda ctx, g: (g * -(ctx.input(0).log() + 1),), needs={"x": ("x",)},
  result_dtype=float_result, inplace=False, function=False, method=False,
  node_name="SpecialEntrBackward",
  doc="Elementwise entropy term -x log(x) (0 at 0, -inf below).")


def _xlog1py_back(ctx, g):
    x, y = ctx.input(0), ctx.input(1)
    gx = gy = None
    if ctx.needs[0]:
        gx = _where((x == 0) & (y <= -1), 0.0, g * y.log1p())
    if ctx.needs[1]:
        gy = g * x / (y + 1)
    return gx, gy


pointwise_op("xlog1py", _binary_f64(xlog1py_f64, "xlog1py"), _xlog1py_back,
  needs={"x": ("x", "y"), "y": ("x", "y")}, inputs=("x", "y"), result_dtype=float_result,
  inplace=False, function=False, method=False, node_name="SpecialXlog1PyBackward",
  doc="Elementwise x * log1p(y), 0 where x is 0 (unless y is nan).")


def _zeta_back(ctx, g):
    if ctx.needs[0]:
        raise NotImplementedError("the derivative for 'special_zeta: self' is not implemented. "
                                  "Fix: detach the first argument (the exponent).")
    x, q = ctx.input(0), ctx.input(1)
    return None, g * -x * OPS["zeta"].call(x + 1, q)


pointwise_op("zeta", _binary_f64(zeta_f64, "zeta"), _zeta_back,
  needs={"x": ("x",), "q": ("x", "q")}, inputs=("x", "q"), result_dtype=float_result,
  inplace=False, function=False, method=False, node_name="SpecialZetaBackward",
  doc="Elementwise Hurwitz zeta function sum_k (q + k)^-x.")


def ndtri_f64(p):
    """The standard normal quantile: the lower tail q = min(p, 1 - p) (1 - p is exact for
    p >= 0.5); q >= 0.25 as sqrt(2) erfinv(2q - 1) (an exact argument); below, Newton on
    log_ndtr(x) = log(q) from erfinv's tail guess (no cancellation however small q is)."""
    p = _xp.asarray(p, np.float64)
    with np.errstate(all="ignore"):
        upper = p > 0.5
        q = np.where(upper, 1 - p, p)
        x = _xp.array(np.sqrt(2.0) * erfinv_f64(2 * q - 1), np.float64)   # 0-d: an array
        tail = (q > 0) & (q < 0.25)
        if tail.any():
            qt = q[tail]
            w = np.sqrt(-np.log(qt))
            num = ((_EI_C[3] * w + _EI_C[2]) * w + _EI_C[1]) * w + _EI_C[0]
            xt = -np.sqrt(2.0) * num / ((_EI_D[1] * w + _EI_D[0]) * w + 1.0)
            logq = np.log(qt)
            for _ in range(6):
                ln = log_ndtr_f64(xt)
                xt = xt - (ln - logq) * _SQRT_2PI * np.exp(0.5 * xt * xt + ln)
            x[tail] = xt
        x = np.where(upper, -x, x)
        x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
        return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


pointwise_op("ndtri", _f64_kernel(ndtri_f64, "ndtri"),
  lambda ctx, g: (g * ((ctx.out.square() * 0.5).exp() * _SQRT_2PI),), needs={"x": ("out",)},
  result_dtype=float_result, inplace=False, function=False, method=False,
  node_name="SpecialNdtriBackward",
  doc="Elementwise inverse of the standard normal cumulative distribution function.")
