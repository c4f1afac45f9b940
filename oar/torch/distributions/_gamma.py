"""Gamma and Dirichlet draws and their reparameterisation gradients, as torch's CPU kernels
compute them (torch._standard_gamma, _standard_gamma_grad, _sample_dirichlet, _dirichlet_grad).
Note [Gamma draws] below says how."""
# Note [Gamma draws]
# ~~~~~~~~~~~~~~~~~~
# torch draws a standard gamma per element, in the output's memory order, by Marsaglia and
# Tsang's rejection method on the default CPU generator: each step takes a scalar normal
# (at::normal_distribution<double>: Box-Muller over two random64 uniforms, the sine sample
# cached in the generator) and a random64 uniform. alpha < 1 is boosted to alpha + 1 and the
# result scaled by (1 - u)^(1/alpha) from one more uniform. The constants are float literals
# (1/3, 0.0331) widened to double, and for float32 alpha the boost and d = alpha - 1/3 are
# float32 arithmetic; everything else is double. We replay that loop element by element with
# libm's log/pow/sqrt (Python's math module), so a seeded draw equals torch's. The Dirichlet
# draw runs the same loop in double on alpha widened to double, then normalises the last dim,
# clamped to [tiny, 1 - ulp] of the dtype. Gradients are torch's implicit reparameterisation
# approximations (Taylor series for small x, Rice saddle point for large alpha, rational fits
# elsewhere); their fitted coefficients are data and are reproduced below.
from __future__ import annotations

import math

import numpy as np

from ... import torch as _t
from ...autograd.function import Function
from ...ops.special import digamma_f64

_THIRD_F = float(np.float32(1.0) / np.float32(3.0))
_C0331_F = float(np.float32(0.0331))


def _source():
    return _t.default_generator._oar_source


def _gamma_one(alpha, src, f32):
    """One standard gamma draw for alpha (a Python float), torch's loop (Note [Gamma draws])."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(np.float32(1.0) / np.float32(alpha)) if f32 else 1.0 / alpha
        scale *= math.pow(1.0 - float(src._uniform_f64(1)[0]), inv)
        alpha = float(np.float32(alpha) + np.float32(1.0)) if f32 else alpha + 1.0
    d = float(np.float32(alpha) - np.float32(_THIRD_F)) if f32 else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = src._normal_scalar(0.0, 1.0)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - float(src._uniform_f64(1)[0])
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _standard_gamma_np(alpha):
    src = _source()
    a = np.ascontiguousarray(alpha)
    f32 = a.dtype == np.float32
    flat = a.reshape(-1)
    out = np.empty(flat.shape, dtype=np.float64)
    for i in range(flat.size):
        out[i] = _gamma_one(float(flat[i]), src, f32)
    out = out.astype(a.dtype)
    return np.maximum(out, np.finfo(a.dtype).tiny).reshape(a.shape)


def _dirichlet_np(alpha):
    src = _source()
    a = np.ascontiguousarray(alpha)
    flat = a.reshape(-1).astype(np.float64)
    g = np.empty(flat.shape, dtype=np.float64)
    for i in range(flat.size):
        g[i] = _gamma_one(float(flat[i]), src, False)
    g = np.maximum(g, np.finfo(np.float64).tiny).reshape(a.shape)
    r = (g / g.sum(-1, keepdims=True)).astype(a.dtype)
    top = np.nextafter(a.dtype.type(1), a.dtype.type(0))
    return np.minimum(top, np.maximum(np.finfo(a.dtype).tiny, r))


# ----------------------------------------------------------------------- gradients
_GAMMA_UV = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07]])


def standard_gamma_grad_np(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha, 1) at fixed CDF (torch's _standard_gamma_grad)."""
    dt = np.result_type(alpha, x)
    a, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        # small x: Taylor series of the lower incomplete gamma function
        numer, denom = np.ones_like(x), a.copy()
        s1, s2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            s1 = s1 + numer / denom
            s2 = s2 + numer / (denom * denom)
        pxa = np.power(x, a)
        pdf = np.power(x, a - 1) * np.exp(-x)
        cdf = pxa * s1
        cdf_a = (np.log(x) - digamma_f64(a)) * cdf - pxa * s2
        small = -cdf_a / pdf
        small = np.where(np.isnan(small), 0.0, small)
        # large alpha: Rice saddle point expansion (near the mode, and away from it)
        n1 = 1 + 24 * a * (1 + 12 * a)
        n2 = 1440 * (a * a) + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x)
        near = n1 * n2 / (1244160 * (a * a) * (a * a))
        den = np.sqrt(8 * a)
        t2 = den / (a - x)
        t3 = np.power(x - a - a * np.log(x / a), -1.5)
        t23 = np.where(x < a, t2 - t3, t2 + t3)
        t1 = np.log(x / a) * t23 - np.sqrt(2 / a) * (a + x) / ((a - x) * (a - x))
        stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
        far = -stirling * (x * t1) / den
        large = np.where((0.9 * a <= x) & (x <= 1.1 * a), near, far)
        # elsewhere: a bivariate rational fit in log(x / alpha) and log(alpha)
        u, v = np.log(x / a), np.log(a)
        cv = [_GAMMA_UV[0, i] + u * (_GAMMA_UV[1, i] + u * _GAMMA_UV[2, i]) for i in range(8)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        mid = np.exp(p / q)
        out = np.where(x < 0.8, small, np.where(a > 8.0, large, mid))
    return out.astype(dt)


_DIR_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def _beta_grad_alpha_small(x, a, b):
    factor = digamma_f64(a) - digamma_f64(a + b) - np.log(x)
    numer = np.ones_like(x)
    series = numer / a * (factor + 1 / a)
    for i in range(1, 11):
        numer = numer * ((i - b) * x / i)
        den = a + i
        series = series + numer / den * (factor + 1 / den)
    r = x * np.power(1 - x, -b) * series
    return np.where(np.isnan(r), 0.0, r)


def _beta_grad_beta_small(x, a, b):
    factor = digamma_f64(a + b) - digamma_f64(b)
    numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
    series = factor / a
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (b - i) + betas
        betas = betas * (b - i)
        series = series + numer / (a + i) * (dbetas + factor * betas)
    r = -np.power(1 - x, 1 - b) * series
    return np.where(np.isnan(r), 0.0, r)


def _beta_grad_alpha_mid(x, a, b):
    t = a + b
    mean = a / t
    std = np.sqrt(a * b / (t + 1)) / t
    bb = b * b
    poly = 47 * x * bb * bb + a * (
        (43 + 20 * (16 + 27 * b) * x) * bb * b + a * (
            3 * (59 + 180 * b - 90 * x) * bb + a * (
                (453 + 1620 * b * (1 - x) - 455 * x) * b + a * (8 * (1 - x) * (135 * b - 11)))))
    pre_num = (1 + 12 * a) * (1 + 12 * b) / (t * t)
    pre_den = 12960 * a * a * a * b * b * (1 + 12 * t)
    at_mean = pre_num / (1 - x) * poly / pre_den
    prefactor = -x / np.sqrt(2 * a * b / t)
    stirling = ((1 + 1 / (12 * a) + 1 / (288 * a * a)) * (1 + 1 / (12 * b) + 1 / (288 * b * b))
                / (1 + 1 / (12 * t) + 1 / (288 * t * t)))
    t1n = 2 * (a * a) * (x - 1) + a * b * (x - 1) - x * (b * b)
    axbx = a * (x - 1) + b * x
    t1 = t1n / (np.sqrt(2 * a / b) * np.power(t, 1.5) * axbx * axbx)
    t2 = 0.5 * np.log(a / (t * x))
    t3 = np.sqrt(8 * a * b / t) / (b * x + a * (x - 1))
    t4 = np.power(b * np.log(b / (t * (1 - x))) + a * np.log(a / (t * x)), -1.5)
    away = stirling * prefactor * (t1 + t2 * (t3 + np.where(x < mean, t4, -t4)))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), at_mean, away)


def dirichlet_grad_np(x, alpha, total):
    """torch's _dirichlet_grad: the scaled reparameterised gradient of a Beta(alpha,
    total - alpha) draw x with respect to alpha."""
    dt = np.result_type(x, alpha, total)
    x, a, t = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, alpha, total)))
    with np.errstate(all="ignore"):
        b = t - a
        boundary = t * x * (1 - x)
        near0 = _beta_grad_alpha_small(x, a, b)
        near1 = -_beta_grad_beta_small(1 - x, b, a)
        mid = _beta_grad_alpha_mid(x, a, b)
        u = np.log(x)
        la = np.log(a) - u
        lb = np.log(t) - la
        pu, pa = (np.ones_like(u), u, u * u), (np.ones_like(u), la, la * la)
        p, q = np.zeros_like(u), np.zeros_like(u)
        for i in range(3):
            for j in range(3):
                ua = pu[i] * pa[j]
                c0, c1 = _DIR_C[0, i, j], _DIR_C[1, i, j]
                p = p + ua * (c0[0] + lb * (c0[1] + lb * (c0[2] + lb * c0[3])))
                q = q + ua * (c1[0] + lb * (c1[1] + lb * (c1[2] + lb * c1[3])))
        approx = x * (digamma_f64(t) - digamma_f64(a)) / b
        rational = p / q * approx
        out = np.where((x <= 0.5) & (boundary < 2.5), near0,
                       np.where((x >= 0.5) & (boundary < 0.75), near1,
                                np.where((a > 6) & (b > 6), mid, rational)))
    return out.astype(dt)


def _door(arr, like):
    return _t.from_numpy(np.ascontiguousarray(arr)).to(like.dtype)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, alpha):
        x = _door(_standard_gamma_np(alpha.detach().numpy()), alpha)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _door(standard_gamma_grad_np(alpha.detach().numpy(),
                                                   x.detach().numpy()), alpha)


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx, concentration):
        x = _door(_dirichlet_np(concentration.detach().numpy()), concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        g = _door(dirichlet_grad_np(x.detach().numpy(), concentration.detach().numpy(),
                                    total.detach().numpy()), concentration)
        return g * (grad_output - (x * grad_output).sum(-1, True))


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws from the default generator, differentiable in alpha."""
    return _StandardGamma.apply(alpha)


def sample_dirichlet(concentration):
    """Dirichlet(concentration) draws over the last dim, differentiable in concentration."""
    return _Dirichlet.apply(concentration)
