"""PyTorch 2.13's CPU random streams, reproduced on NumPy (Note [Torch CPU random streams])."""
# Note [Torch CPU random streams]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A seeded PyTorch program must draw the same numbers on oar.torch as on real torch, so
# `TorchCPUGenerator` copies ATen's CPU generator (aten/src/ATen/CPUGeneratorImpl.cpp) and the
# CPU kernels that consume it (ATen/native/cpu/DistributionTemplates.h, DistributionKernels.cpp,
# TensorFactories.cpp), draw for draw and rounding for rounding:
#
# * engine: mt19937 seeded by init_genrand(seed & 0xffffffff); `random()` is one 32-bit draw,
#   `random64()` is two, the FIRST being the high word. NumPy's MT19937 bit generator runs the
#   same recurrence, so the 624-word key and position are simply handed to it.
# * GCC contracts `a * b + c` in these kernels into one fma (the kernels are built with -mfma),
#   so each such step here is an fma too (`_fma32`, `_fma_f64`).
# * uniform_(from, to): float32/float16 take the low 24 bits of one draw times 2**-24 in float32
#   (opmath), then fma(u, to - from, from); float64 the low 53 bits of a random64. A value that
#   rounds to `to` becomes `from`.
# * normal_: a contiguous tensor of >= 16 elements takes `normal_fill`: fill with uniforms, then
#   Box-Muller over blocks of 16 pairing element j (u1 = 1 - u) with j + 8 (theta = 2*pi*u); a
#   tail of n % 16 elements is redone by drawing 16 fresh uniforms into the LAST 16 slots.
#   float32 (and float16 through a float32 buffer, which draws only whole blocks) runs the AVX2
#   kernel even on AVX512 CPUs (normal_stub is REGISTER_NO_AVX512_DISPATCH): Pommier's
#   cephes-style log256_ps and sincos256_ps, replayed op by op in float32 by `_log256` and
#   `_sincos256`. float64 uses libm log/cos/sin and fma. Fewer than 16 elements use the scalar
#   Box-Muller over two random64 uniforms with log1p, caching the sine sample in the generator.
# * random_(from, to): `random() % range + from`, or random64 when range >= 2**28.
# * exponential_(lambd): per element -1 / lambd * log1p(-u) in double, u a random64 uniform
#   (multinomial without replacement, or one sample: q = exponential_(1) in self's dtype, then
#   the top num_samples of self / q).
# * randperm(n), n < 2**32 / 20: arange, then for i < n - 1 swap r[i] with r[i + random() % (n-i)].
# * bernoulli_(p) with a scalar p (dropout): with MKL on an Intel CPU, ONE 32-bit draw seeds an
#   MKL VSL MCG31m1 stream whose i-th output decides element i (u_i < p); on other CPUs (AMD) each
#   element compares a random64 double uniform with p. A tensor p uses the latter with float32
#   uniforms unless p is float64.
#
# get_state()/set_state() use the byte layout of CPUGeneratorImplState (5056 bytes), so states
# move between real torch and oar both ways.
from __future__ import annotations

import math
import secrets

import numpy as np

from .. import dtypes as _dt

__all__ = ["TorchCPUGenerator", "DEFAULT_SEED", "STATE_SIZE", "cpu_is_intel"]

DEFAULT_SEED = 67280421310721  # c10::default_rng_seed_val
_N = 624
_CNAMES = {"int8": "signed char", "uint8": "unsigned char", "int16": "short", "int32": "int",
           "int64": "long", "bool": "bool", "float16": "c10::Half"}
_U64 = (1 << 64) - 1

# CPUGeneratorImplState: legacy pod (seed, left, seeded, next, state[624] as uint64, normal_x,
# normal_y, normal_rho, normal_is_valid) followed by the float normal cache and its flag.
_STATE_DTYPE = np.dtype({
    "names": ["seed", "left", "seeded", "next", "state", "normal_x", "normal_y", "normal_rho",
              "normal_is_valid", "next_float", "next_float_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", _N), "<f8", "<f8", "<f8", "<i4", "<f4", "u1"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": 5056,
})
STATE_SIZE = _STATE_DTYPE.itemsize

_BF16 = _dt.BFLOAT16_NP
_F32 = np.float32
_TWO_PI_F = _F32(2.0 * math.pi)
_INV24 = _F32(1.0 / (1 << 24))
_INV53 = 1.0 / (1 << 53)
_MASK53 = np.uint64((1 << 53) - 1)


def cpu_is_intel() -> bool:
    """Whether this CPU's vendor is Intel: torch's MKL bernoulli path is taken only then."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    return "GenuineIntel" in line
    except OSError:
        pass
    return False


def _init_genrand(seed: int) -> np.ndarray:
    key = np.empty(_N, dtype=np.uint32)
    x = seed & 0xFFFFFFFF
    key[0] = x
    for j in range(1, _N):
        x = (1812433253 * (x ^ (x >> 30)) + j) & 0xFFFFFFFF
        key[j] = x
    return key


def _np_dtype(dtype) -> np.dtype:
    return np.dtype(getattr(dtype, "np", dtype))


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def _as_shape(shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
    return shape


# ---------------------------------------------------------------------------------------------
# Pommier's AVX math (ATen/native/cpu/avx_mathfun.h), replayed in float32 one rounding at a time.

def _c(v):
    return _F32(v)


_LOG_P = [_c(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                          3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = _c(-2.12194440e-4), _c(0.693359375)
_SQRTHF = _c(0.707106781186547524)
_DP1, _DP2, _DP3 = _c(-0.78515625), _c(-2.4187564849853515625e-4), _c(-3.77489497744594108e-8)
_SINCOF = [_c(v) for v in (-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1)]
_COSCOF = [_c(v) for v in (2.443315711809948E-005, -1.388731625493765E-003,
                           4.166664568298827E-002)]
_FOPI = _c(1.27323954473516)
_ONE, _HALF = _c(1.0), _c(0.5)
_CHUNK = 4096  # rows of 16


def _log256(x: np.ndarray) -> np.ndarray:
    """log256_ps on a float32 array (inputs here lie in (0, 1])."""
    invalid = x <= 0
    x = np.maximum(x, np.uint32(0x00800000).view(_F32))
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - np.int32(0x7F)).astype(_F32) + _ONE
    x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F32)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, _F32(0))
    x = x - _ONE
    e = e - np.where(mask, _ONE, _F32(0))
    x = x + tmp
    z = x * x
    y = _LOG_P[0]
    for p in _LOG_P[1:]:
        y = _fma32(y, x, p)
    y = y * x
    y = _fma32(y, z, e * _LOG_Q1)
    y = y - z * _HALF
    x = x + y
    x = _fma32(e, _LOG_Q2, x)
    if invalid.any():
        x[invalid] = np.nan
    return x


def _sincos256(x: np.ndarray):
    """sincos256_ps on a float32 array: returns (sin, cos)."""
    bits = x.view(np.uint32)
    sign_sin = bits & np.uint32(0x80000000)
    x = (bits & np.uint32(0x7FFFFFFF)).view(_F32)
    y = x * _FOPI
    j = y.astype(np.int32)  # cvttps: truncation
    j = (j + np.int32(1)) & np.int32(~1)
    y = j.astype(_F32)
    swap_sin = ((j & np.int32(4)).astype(np.uint32) << np.uint32(29))
    poly = (j & np.int32(2)) == 0
    x = _fma32(y, _DP1, x)
    x = _fma32(y, _DP2, x)
    x = _fma32(y, _DP3, x)
    sign_cos = ((~(j - np.int32(2))) & np.int32(4)).astype(np.uint32) << np.uint32(29)
    sign_sin = sign_sin ^ swap_sin
    z = x * x
    yc = _fma32(_COSCOF[0], z, _COSCOF[1])
    yc = _fma32(yc, z, _COSCOF[2])
    yc = yc * z
    yc = _fma32(yc, z, -(z * _HALF))
    yc = yc + _ONE
    ys = _fma32(_SINCOF[0], z, _SINCOF[1])
    ys = _fma32(ys, z, _SINCOF[2])
    ys = ys * z
    ys = _fma32(ys, x, x)
    zero = _F32(0)
    ysin2 = np.where(poly, ys, zero)
    ysin1 = np.where(poly, zero, yc)
    ys = ys - ysin2
    yc = yc - ysin1
    s = (ysin1 + ysin2).view(np.uint32) ^ sign_sin
    c = (yc + ys).view(np.uint32) ^ sign_cos
    return s.view(_F32), c.view(_F32)


def _fma32(a, b, c):
    """float32 fma(a, b, c), one of a, b an array: the float32 product is exact in float64, then
    one rounding to double and one to float (they disagree only if the double sum lands on a
    float tie, about 2**-29 of the time; none seen in 2.6e7 draws)."""
    t = np.multiply(a, b, dtype=np.float64)
    t += c
    return t.astype(_F32)


def _two_prod(a, b):
    split = 134217729.0  # 2**27 + 1 (Veltkamp)
    p = a * b
    ah = a * split
    ah = ah - (ah - a)
    al = a - ah
    bh = b * split
    bh = bh - (bh - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _fma_f64(a, b, c):
    """float64 fma(a, b, c) without hardware fma: exact product (Dekker), then TwoSum."""
    b = np.float64(b)
    c = np.float64(c)
    if b == 1.0:
        return a + c
    p, e = _two_prod(a, b)
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


class TorchCPUGenerator:
    """A CPU random-number generator that draws exactly what torch 2.13's CPU generator draws.

    Holds an mt19937 state plus the cached double/float normal samples; every method returns a
    fresh C-ordered NumPy array and advances the state as the matching torch CPU kernel would
    (Note [Torch CPU random streams]).
    """

    def __init__(self, seed: int = DEFAULT_SEED, *, mkl_bernoulli: bool | None = None):
        self._bg = np.random.MT19937()
        self.mkl_bernoulli = cpu_is_intel() if mkl_bernoulli is None else bool(mkl_bernoulli)
        self.manual_seed(seed)

    # -- seeding and state ----------------------------------------------------------------------
    def manual_seed(self, seed) -> "TorchCPUGenerator":
        """Seed like torch.Generator.manual_seed: negative seeds wrap to uint64; returns self."""
        if not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed <= _U64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed & _U64
        self._set_engine(_init_genrand(self._seed), 624)
        self._fresh = True  # torch reports left=1, next=0 until the first draw
        self._next_double: float | None = None
        self._next_float: float | None = None
        return self

    def seed(self) -> int:
        """Reseed from a nondeterministic 53-bit value (as c10 does) and return it."""
        s = secrets.randbits(53)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed last given to manual_seed/seed (or carried by set_state)."""
        return self._seed

    def _set_engine(self, key, pos):
        self._bg.state = {"bit_generator": "MT19937",
                          "state": {"key": np.asarray(key, dtype=np.uint32), "pos": int(pos)}}

    def get_state(self) -> np.ndarray:
        """The state as a uint8 array laid out like torch.Generator.get_state() (5056 bytes)."""
        st = self._bg.state["state"]
        pos = int(st["pos"])
        rec = np.zeros((), dtype=_STATE_DTYPE)
        rec["seed"] = self._seed
        rec["seeded"] = 1
        if self._fresh:
            rec["left"], rec["next"] = 1, 0
        else:
            rec["left"], rec["next"] = _N + 1 - pos, pos
        rec["state"] = st["key"].astype(np.uint64)
        if self._next_double is not None:
            rec["normal_is_valid"] = 1
            rec["normal_y"] = self._next_double
        if self._next_float is not None:
            rec["next_float_valid"] = 1
            rec["next_float"] = self._next_float
        return np.frombuffer(rec.tobytes(), dtype=np.uint8).copy()

    def set_state(self, state) -> "TorchCPUGenerator":
        """Load a state from get_state() here or torch.Generator.get_state() (a uint8 array)."""
        arr = np.asarray(state)
        if arr.dtype != np.uint8:
            raise RuntimeError(f"expected a torch.ByteTensor, but got {arr.dtype} "
                               "(pass the uint8 array that get_state returns)")
        if arr.size != STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found "
                               f"the input RNG state size to be {arr.size}")
        rec = np.frombuffer(np.ascontiguousarray(arr).reshape(-1).tobytes(), dtype=_STATE_DTYPE)[0]
        left, nxt, seeded = int(rec["left"]), int(rec["next"]) & 0xFFFFFFFF, int(rec["seeded"])
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        key = rec["state"].astype(np.uint32)  # torch copies uint64 -> uint32 (truncating)
        self._set_engine(key, _N if left == 1 else nxt)
        self._fresh = left == 1 and nxt == 0
        self._seed = int(rec["seed"])
        self._next_double = float(rec["normal_y"]) if rec["normal_is_valid"] else None
        self._next_float = float(rec["next_float"]) if rec["next_float_valid"] else None
        return self

    def clone(self) -> "TorchCPUGenerator":
        """An independent generator in the same state."""
        g = TorchCPUGenerator.__new__(TorchCPUGenerator)
        g._bg = np.random.MT19937()
        g.mkl_bernoulli = self.mkl_bernoulli
        g._seed = self._seed
        g._set_engine(self._bg.state["state"]["key"], self._bg.state["state"]["pos"])
        g._fresh = self._fresh
        g._next_double, g._next_float = self._next_double, self._next_float
        return g

    # -- raw draws ------------------------------------------------------------------------------
    def random32(self, n: int) -> np.ndarray:
        """n successive `random()` draws (uint32 values in a uint64 array)."""
        if n <= 0:
            return np.empty(0, dtype=np.uint64)
        self._fresh = False
        return self._bg.random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """n successive `random64()` draws: (first << 32) | second."""
        r = self.random32(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    def _uniform_f32(self, n):
        return (self.random32(n) & np.uint64(0xFFFFFF)).astype(_F32) * _INV24

    def _uniform_f64(self, n):
        return (self.random64(n) & _MASK53).astype(np.float64) * _INV53

    # -- distributions --------------------------------------------------------------------------
    def uniform(self, shape, dtype=np.float32, low=0.0, high=1.0) -> np.ndarray:
        """tensor.uniform_(low, high) / torch.rand on a fresh tensor of `shape` and `dtype`."""
        shape, dt = _as_shape(shape), _np_dtype(dtype)
        if dt == _BF16:   # drawn as float32, rounded once (Note [bfloat16])
            return self.uniform(shape, _F32, low, high).astype(_BF16)
        if dt.kind != "f":
            raise RuntimeError(f"\"check_uniform_bounds\" not implemented for '{dt.name}'")
        low, high = float(low), float(high)
        if not low <= high:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                               f"from={low:g} > to={high:g}")
        if high - low > np.finfo(dt).max:
            raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{dt.name}>::max()"
                               f", but found to={high:g} and from={low:g} which result in "
                               f"to-from to exceed the limit")
        n = _numel(shape)
        if dt == np.float64:
            v = _fma_f64(self._uniform_f64(n), high - low, low)
        else:
            f, t = _F32(low), _F32(high)
            v = _fma32(self._uniform_f32(n), t - f, f).astype(dt)
        to_s, from_s = dt.type(high), dt.type(low)
        v[v == to_s] = from_s
        return v.reshape(shape)

    def normal(self, shape, dtype=np.float32, mean=0.0, std=1.0, *, contiguous=True) -> np.ndarray:
        """tensor.normal_(mean, std) / torch.randn on a fresh contiguous tensor of `shape`;
        contiguous=False gives what normal_ draws for a non-contiguous tensor (the scalar path for
        every element, in the order torch's TensorIterator visits them: the caller's order)."""
        shape, dt = _as_shape(shape), _np_dtype(dtype)
        if dt == _BF16:   # drawn as float32, rounded once (Note [bfloat16])
            return self.normal(shape, _F32, mean, std, contiguous=contiguous).astype(_BF16)
        if dt.kind != "f":
            raise RuntimeError(f"\"normal_kernel_cpu\" not implemented for '{dt.name}'")
        mean, std = float(mean), float(std)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        n = _numel(shape)
        if n >= 16 and contiguous:
            out = self._normal_fill(n, dt, mean, std)
        else:
            out = np.array([self._normal_scalar(mean, std) for _ in range(n)],
                           dtype=np.float64).astype(dt)
        return out.reshape(shape)

    def _normal_scalar(self, mean, std):
        # at::normal_distribution<double>: cached sine sample first, else Box-Muller on random64s.
        if self._next_double is not None:
            ret, self._next_double = self._next_double, None
            return float(_fma_f64(np.float64(ret), std, mean))
        u1, u2 = self._uniform_f64(2)
        r = math.sqrt(-2.0 * math.log1p(-float(u2)))
        theta = 2.0 * math.pi * float(u1)
        self._next_double = r * math.sin(theta)
        return float(_fma_f64(np.float64(r * math.cos(theta)), std, mean))

    def _normal_fill(self, n, dt, mean, std):
        full = n - n % 16
        if dt == np.float64:
            data = self._uniform_f64(n)
            tail = self._uniform_f64(16) if n % 16 else None
            block = self._fill16_f64
        else:
            # float32 fills the whole tensor with uniforms; reduced types draw block by block.
            data = self._uniform_f32(n if dt == np.float32 else full)
            tail = self._uniform_f32(16) if n % 16 else None
            block = self._fill16_f32
        out = np.empty(n, dtype=data.dtype)
        out[:full] = block(data[:full].reshape(-1, 16), mean, std).reshape(-1)
        if tail is not None:
            out[n - 16:] = block(tail.reshape(1, 16), mean, std).reshape(-1)
        return out.astype(dt, copy=False)

    @staticmethod
    def _fill16_f32(blocks, mean, std):
        if len(blocks) > _CHUNK:  # cache-sized pieces: the op-by-op replay is memory bound
            return np.concatenate([TorchCPUGenerator._fill16_f32(blocks[i:i + _CHUNK], mean, std)
                                   for i in range(0, len(blocks), _CHUNK)])
        u1 = _ONE - blocks[:, :8]
        theta = _TWO_PI_F * blocks[:, 8:]
        radius = np.sqrt(_F32(-2.0) * _log256(u1))
        s, c = _sincos256(theta)
        n1, n2 = radius * c, radius * s
        if mean != 0.0 or std != 1.0:
            n1 = _fma32(n1, _F32(std), _F32(mean))
            n2 = _fma32(n2, _F32(std), _F32(mean))
        return np.concatenate([n1, n2], axis=1)

    @staticmethod
    def _fill16_f64(blocks, mean, std):
        u1 = 1.0 - blocks[:, :8]
        theta = 2.0 * math.pi * blocks[:, 8:]
        radius = np.sqrt(-2.0 * _libm(math.log, u1))
        n1 = radius * _libm(math.cos, theta)
        n2 = radius * _libm(math.sin, theta)
        return np.concatenate([_fma_f64(n1, std, mean), _fma_f64(n2, std, mean)], axis=1)

    def randint(self, low, high, shape, dtype=np.int64) -> np.ndarray:
        """torch.randint(low, high, shape) / tensor.random_(low, high)."""
        shape, dt = _as_shape(shape), _np_dtype(dtype)
        low, high = int(low), int(high)
        if not low < high:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        if dt.kind in "iub" or dt == np.float16:
            lo, hi = ((0, 1) if dt.kind == "b" else (-65504, 65504) if dt.kind == "f"
                      else (int(np.iinfo(dt).min), int(np.iinfo(dt).max)))
            name = _CNAMES.get(dt.name, dt.name)
            if not lo <= low <= hi:
                raise RuntimeError(f"from is out of bounds for {name}")
            if not lo <= high - 1 <= hi:
                raise RuntimeError(f"to - 1 is out of bounds for {name}")
        rng = (high - low) & _U64
        n = _numel(shape)
        raw = self.random64(n) if rng >= (1 << 28) else self.random32(n)
        v = (raw % np.uint64(rng) + np.uint64(low & _U64)).view(np.int64)
        return v.astype(dt).reshape(shape)

    def random_(self, shape, dtype=np.int64) -> np.ndarray:
        """tensor.random_() with no bounds: [0, 2**mantissa] for floats, [0, max] for integers."""
        shape, dt = _as_shape(shape), _np_dtype(dtype)
        n = _numel(shape)
        if dt == np.bool_:
            return (self.random32(n) & np.uint64(1)).astype(np.bool_).reshape(shape)
        if dt == np.int64 or dt == np.float64:
            mod = (1 << 63) if dt == np.int64 else (1 << 53) + 1
            raw = self.random64(n)
        else:
            mod = ((1 << (np.finfo(dt).nmant + 1)) + 1 if dt.kind == "f"
                   else int(np.iinfo(dt).max) + 1)
            raw = self.random32(n)
        return (raw % np.uint64(mod)).astype(dt).reshape(shape)

    def exponential(self, shape, dtype=np.float32, lambd=1.0) -> np.ndarray:
        """tensor.exponential_(lambd) on a fresh tensor: per element one random64 double
        uniform u, then -1 / lambd * log1p(-u) in double (libm), cast to dtype. ATen's default
        CPU kernel (its MKL path is compiled only into fbcode builds); torch.multinomial
        without replacement draws through it."""
        shape, dt = _as_shape(shape), _np_dtype(dtype)
        u = self._uniform_f64(_numel(shape))
        v = (-1.0 / float(lambd)) * _libm(math.log1p, -u)
        return v.astype(dt).reshape(shape)

    def randperm(self, n, dtype=np.int64) -> np.ndarray:
        """torch.randperm(n): in-place Fisher-Yates driven by `random() % (n - i)`."""
        n, dt = int(n), _np_dtype(dtype)
        if n < 0:
            raise RuntimeError(f"n must be non-negative, got{n}")
        r = list(range(n))
        if n < 0xFFFFFFFF // 20:
            zs = (self.random32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist() \
                if n > 1 else []
            for i, z in enumerate(zs):
                j = i + z
                r[i], r[j] = r[j], r[i]
        else:  # torch's large-n variant: random64 modulo, "inside-out" shuffle
            zs = self.random64(n) % np.arange(1, n + 1, dtype=np.uint64)
            for i, z in enumerate(zs.tolist()):
                r[i] = r[z]
                r[z] = i
        return np.array(r, dtype=np.int64).astype(dt)

    def bernoulli(self, shape, p=0.5, dtype=np.float32) -> np.ndarray:
        """tensor.bernoulli_(p) on a fresh tensor: p a float (dropout keeps with 1 - drop) or an
        array broadcastable to `shape` (then uniforms are float32 unless p is float64)."""
        shape, dt = _as_shape(shape), _np_dtype(dtype)
        n = _numel(shape)
        if isinstance(p, np.ndarray):   # a tensor p, 0-d included: the per-element path
            pa = p
            if pa.dtype.kind != "f":
                raise RuntimeError(f"bernoulli_ expected a floating-point probability tensor, "
                                   f"got {pa.dtype}")
            try:
                pb = np.broadcast_to(pa, shape)
            except ValueError:
                raise RuntimeError(f"bernoulli_: probability of shape {pa.shape} cannot be "
                                   f"expanded to the output shape {shape}") from None
            if pa.dtype == np.float64:
                u = self._uniform_f64(n)
            else:
                u = self._uniform_f32(n)
                pb = pb.astype(_F32)
            return (u < pb.reshape(-1)).astype(dt).reshape(shape)
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        if self.mkl_bernoulli:
            seed = int(self.random32(1)[0])
            if n == 0:
                return np.zeros(shape, dtype=dt)
            u = _mcg31(seed, n).astype(np.float64) / float(_MCG_M)
            return (u < p).astype(dt).reshape(shape)
        return (self._uniform_f64(n) < p).astype(dt).reshape(shape)


_libm_vec: dict = {}


def _libm(fn, x):
    """Apply a libm function element-wise (bit-identical to torch's std::log/cos/sin, which NumPy's
    SIMD float64 kernels are not guaranteed to be)."""
    f = _libm_vec.get(fn)
    if f is None:
        f = _libm_vec[fn] = np.frompyfunc(fn, 1, 1)
    return f(x).astype(np.float64)


_MCG_A = 1132489760
_MCG_M = (1 << 31) - 1


def _mcg31(seed: int, n: int) -> np.ndarray:
    """The first n outputs x_0, x_1, ... of MKL's MCG31m1 stream for `seed` (x_0 = seed mod m,
    0 -> 1; x_{i+1} = a x_i mod m), by doubling: x_{i+k} = (a**k mod m) x_i mod m."""
    x0 = seed % _MCG_M or 1
    out = np.empty(n, dtype=np.uint64)
    out[0] = x0
    k, ak, m = 1, _MCG_A, np.uint64(_MCG_M)
    while k < n:
        take = min(k, n - k)
        out[k:k + take] = out[:take] * np.uint64(ak) % m
        k += take
        ak = ak * ak % _MCG_M
    return out

