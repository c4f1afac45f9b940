"""Random numbers: oar's generator (oar.seed / oar.manual_seed), or one passed as `generator=`.

See Note [Random sources] below.
"""
from __future__ import annotations

import numpy as np

from .. import _xp
from .. import dtypes as _dt
from ..tensor import Tensor
from ..autograd.errors import ArgTypeError, ArgValueError
from . import args as _args
from . import registry
from .creation import (_as_class, _device, _dtype, _finish, _shape_and_dtype, like_layout,
                       relayout_like, shape_keyword)
from .registry import OpDef, declare

# Note [Random sources]
# ~~~~~~~~~~~~~~~~~~~~~~
# Every random function and in-place fill draws through a *source*: an object with the methods
# uniform, normal, randint, random_, randperm and bernoulli (shapes, NumPy dtypes, arrays out).
# `generator=None` is oar's own source over a NumPy Generator (`oar.seed` reseeds it): the
# Paddle door's stream. A `torch.Generator` of the PyTorch door (oar/torch/_runtime.py) carries
# `_oar_source`, a TorchCPUGenerator that draws what torch 2.13's CPU generator draws (Note
# [Torch CPU random streams]); the door passes its default generator when the user gives
# none, so a seeded PyTorch program draws PyTorch's numbers. Values are written in the order
# PyTorch's TensorIterator visits the elements (memory order for a dense tensor whose strides
# are permuted), so a fill of a transposed tensor draws the same numbers too.
_GEN = [np.random.default_rng()]


def seed(s):
    """Seeds oar's random generator (oar.seed and oar.manual_seed) and every device's
    default stream (Note [Random streams per place]); returns the CPU generator."""
    _GEN[0] = np.random.default_rng(int(s))
    seed_devices(int(s))
    return _GEN[0]


# Note [Random streams per place]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Each device place has a default stream of its own (`device_stream(place)`), and
# torch.Generator(device="cuda") makes another: a draw for a tensor on a device comes from
# that place's stream, never from the CPU's, so seeding one leaves the other's draws as they
# were (torch.cuda.manual_seed, or torch.default_generator.manual_seed). oar.seed /
# paddle.seed / torch.manual_seed seed the CPU and every device (as Paddle's and PyTorch's
# do). A stream starts from PyTorch's default seed until seeded. Where a draw goes: a
# creation function draws for the place it makes its tensor on (_xp.DEFAULT, which the
# doors set around a `device=` call), an in-place fill and dropout for their tensor's place;
# `source(generator, place)` picks the stream. The stream is a NumPy Generator (PCG64) drawn
# on the host and moved: deterministic on the fake device and on a real card alike (CuPy's
# own generator, drawing on the card, is left: docs/gpu.md). Its state is oar's own: 8 bytes
# of seed and the PCG64 state (not PyTorch's Philox seed and offset).
DEFAULT_SEED = 67280421310721   # PyTorch's default_rng_seed_val, CPU and CUDA alike
_DEVICE_SEED = [DEFAULT_SEED]
_STREAMS: dict = {}   # Place -> its default DeviceStream
_U64 = 0xFFFFFFFFFFFFFFFF


class DeviceStream:
    """The random stream of one device place (Note [Random streams per place])."""
    __slots__ = ("place", "rng", "initial")

    def __init__(self, place, seed=None):
        self.place = place
        self.manual_seed(_DEVICE_SEED[0] if seed is None else seed)

    def manual_seed(self, s):
        self.initial = int(s) & _U64
        self.rng = np.random.Generator(np.random.PCG64(self.initial))
        return self

    def seed(self):
        """Seeds the stream non-deterministically; returns the seed."""
        s = int(np.random.SeedSequence().entropy) & _U64
        self.manual_seed(s)
        return s

    def get_state(self):
        """The state as a uint8 array: the initial seed, then the PCG64 state."""
        st = self.rng.bit_generator.state
        vals = (self.initial, st["state"]["state"], st["state"]["inc"], st["has_uint32"],
                st["uinteger"])
        return np.frombuffer(b"".join(v.to_bytes(n, "little") for v, n in
                                      zip(vals, (8, 16, 16, 8, 8))), np.uint8).copy()

    def set_state(self, arr, op="set_rng_state"):
        a = np.asarray(arr)
        if a.dtype != np.uint8 or a.shape != (56,):
            raise ArgValueError(f"{op}(): expected a uint8 state of 56 bytes from "
                                f"get_rng_state() of this device, got {a.dtype} of shape "
                                f"{list(a.shape)}")
        b = a.tobytes()
        vals = [int.from_bytes(b[i:j], "little") for i, j in
                ((0, 8), (8, 24), (24, 40), (40, 48), (48, 56))]
        self.initial = vals[0]
        bg = np.random.PCG64()
        bg.state = {"bit_generator": "PCG64", "state": {"state": vals[1], "inc": vals[2]},
                    "has_uint32": vals[3], "uinteger": vals[4]}
        self.rng = np.random.Generator(bg)

    def source(self):
        return DeviceSource(self.rng, self.place)


def device_stream(place):
    """The default stream of a device place (made at the last seed of all devices)."""
    st = _STREAMS.get(place)
    if st is None:
        st = _STREAMS[place] = DeviceStream(place)
    return st


class GeneratorState:
    """The state of one device's random stream (paddle.get_cuda_rng_state's items)."""
    __slots__ = ("place", "state")

    def __init__(self, place, state):
        self.place, self.state = place, state

    def __repr__(self):
        return f"GeneratorState({self.place!r}, {self.state.size} bytes)"


def device_states():
    """[GeneratorState] of every device's default stream ([] without a device)."""
    b = _xp.backend()
    if b is None:
        return []
    return [GeneratorState(b.place, device_stream(b.place).get_state())]


def set_device_states(states):
    """Restores the streams from device_states() (Paddle: a list, one per device)."""
    if not isinstance(states, (list, tuple)):   # (Paddle's GPU build: len() of it fails)
        raise ArgTypeError(f"set_cuda_rng_state(): expected the list get_cuda_rng_state() "
                           f"returned, got {type(states).__name__}")
    b = _xp.backend()
    if b is None:
        return
    states = list(states)
    if len(states) != b.count:
        raise ArgValueError("set_cuda_rng_state(): Length of cuda state list should be equal to "
                            f"the cuda device count ({b.count}), got {len(states)}")
    for st in states:
        if not isinstance(st, GeneratorState):
            raise ArgTypeError(f"set_cuda_rng_state(): expected the states of "
                               f"get_cuda_rng_state(), got {type(st).__name__}")
        device_stream(st.place).set_state(st.state, "set_cuda_rng_state")


def seed_devices(s):
    """Seeds every device's default stream, those made later too (torch.cuda.manual_seed_all;
    oar.seed)."""
    _DEVICE_SEED[0] = int(s) & _U64
    for st in _STREAMS.values():
        st.manual_seed(s)


manual_seed = seed


_RECORDER = None   # oar.jit's recorder while capturing, or None (Note [Capture and replay])


def generator(place=None):
    """oar's random generator (a numpy.random.Generator); for a device place, that place's
    stream (Note [Random streams per place]: draws on the host, to be moved)."""
    if place is not None and place.kind != "cpu":
        return device_stream(place).rng
    if _RECORDER is not None:   # its draws are recorded (Note [Capture and replay])
        return _RECORDER.rng(_GEN[0])
    return _GEN[0]


class NumpySource:
    """Note [Random sources] over a numpy.random.Generator (oar's own stream)."""
    __slots__ = ("rng",)

    def __init__(self, rng):
        self.rng = rng

    def uniform(self, shape, dtype=np.float32, low=0.0, high=1.0):
        """Uniform samples on [low, high)."""
        if low == 0.0 and high == 1.0:
            return self.rng.random(shape).astype(dtype, copy=False)
        return self.rng.uniform(low, high, size=shape).astype(dtype, copy=False)

    def normal(self, shape, dtype=np.float32, mean=0.0, std=1.0, *, contiguous=True):
        """Normal samples N(mean, std**2)."""
        if mean == 0.0 and std == 1.0:
            return self.rng.standard_normal(shape).astype(dtype, copy=False)
        return self.rng.normal(mean, std, size=shape).astype(dtype, copy=False)

    def randint(self, low, high, shape, dtype=np.int64):
        """Integers uniform on [low, high)."""
        return self.rng.integers(low, high, size=shape, dtype=np.int64).astype(dtype, copy=False)

    def random_(self, shape, dtype=np.int64):
        """Integers uniform on [0, 2**mantissa] (floats) or [0, max] (integers)."""
        dt = np.dtype(dtype)
        hi = (2 ** (np.finfo(dt).nmant + 1) if dt.kind == "f" else
              1 if dt.kind == "b" else int(np.iinfo(dt).max))
        return self.rng.integers(0, hi, size=shape, endpoint=True).astype(dt)

    def randperm(self, n, dtype=np.int64):
        """A random permutation of 0 .. n-1."""
        return self.rng.permutation(n).astype(dtype)

    def bernoulli(self, shape, p=0.5, dtype=np.float32):
        """1 with probability p (a number or an array broadcasting to shape), else 0."""
        return (self.rng.random(shape) < p).astype(dtype)


class DeviceSource:
    """Note [Random sources] for a device place: NumpySource's draws from the place's stream,
    moved to the place (Note [Random streams per place])."""
    __slots__ = ("rng", "place")

    def __init__(self, rng, place):
        self.rng, self.place = rng, place

    def _put(self, a):
        return _xp.to_place(np.asarray(a), self.place)

    def uniform(self, shape, dtype=np.float32, low=0.0, high=1.0):
        return self._put(NumpySource.uniform(self, shape, dtype, low, high))

    def normal(self, shape, dtype=np.float32, mean=0.0, std=1.0, *, contiguous=True):
        return self._put(NumpySource.normal(self, shape, dtype, mean, std))

    def randint(self, low, high, shape, dtype=np.int64):
        return self._put(NumpySource.randint(self, low, high, shape, dtype))

    def random_(self, shape, dtype=np.int64):
        return self._put(NumpySource.random_(self, shape, dtype))

    def randperm(self, n, dtype=np.int64):
        return self._put(NumpySource.randperm(self, n, dtype))

    def bernoulli(self, shape, p=0.5, dtype=np.float32):
        u = self._put(self.rng.random(shape))    # compared on the place (p may live there)
        return (u < p).astype(dtype)

    def exponential(self, shape, dtype, lam):
        return self._put(np.asarray(self.rng.exponential(1.0 / lam, size=shape)).astype(dtype))


def source(generator=None, place=None):
    """Note [Random sources]: the source a `generator=` argument names, for a draw on
    `place` (None: where creation functions put new tensors); Note [Random streams per
    place]."""
    if place is None:
        place = _xp.DEFAULT[0]
    if place.kind != "cpu":
        return _device_source(generator, place)
    if generator is None:
        return NumpySource(_GEN[0])
    src = getattr(generator, "_oar_source", None)
    if src is not None:
        if isinstance(src, DeviceStream):
            raise _generator_place(src.place, place)
        return src
    if isinstance(generator, np.random.Generator):
        return NumpySource(generator)
    raise ArgTypeError(f"generator must be a torch.Generator (oar.torch.Generator) or a "
                       f"numpy.random.Generator, got {type(generator).__name__}")


def _device_source(generator, place):
    if generator is None or getattr(generator, "_oar_default", False):
        return device_stream(place).source()   # the door's default: the place's default
    src = getattr(generator, "_oar_source", None)
    if isinstance(src, DeviceStream):
        if src.place != place:
            raise _generator_place(src.place, place)
        return src.source()
    if src is not None or isinstance(generator, np.random.Generator):
        raise _generator_place(_xp.CPU, place)
    return source(generator, _xp.CPU)   # its type error


def _generator_place(got, place):
    return ArgValueError(f"Expected a '{_xp.torch_name(place).partition(':')[0]}' device type "
                         f"for generator but found '{_xp.torch_name(got).partition(':')[0]}'. "
                         f"Fix: pass a generator of the tensor's device (torch.Generator("
                         f"device={_xp.torch_name(place)!r})), or none.")


def iteration_order(out):
    """A view of `out` whose C order is the order PyTorch's TensorIterator fills it in: its
    dimensions sorted by stride, largest first (memory order for a dense permuted tensor)."""
    if out.flags.c_contiguous or out.ndim < 2:
        return out
    perm = sorted(range(out.ndim), key=lambda d: (-abs(out.strides[d]), d))
    return out.transpose(perm)


def _write(out, values):
    """values (C order) into out, in iteration order."""
    iteration_order(out)[...] = values.reshape(iteration_order(out).shape)
    return out


def _floating(dt, op):
    if not _dt.is_float(dt):   # Note [bfloat16]
        raise ArgTypeError(f"{op}(): random floats need a floating dtype, got {dt}. Fix: "
                           "pass dtype='float32' (or float64), or cast the result.")
    return dt


def _c_order(a):
    """a as a C-ordered array of its own shape: np.ascontiguousarray would make a 0-d draw
    1-D (`randn(())` has shape (), as in PyTorch and Paddle). A device draw is C-ordered."""
    if a.__class__ is not np.ndarray and _xp.is_device_array(a):
        return a
    return np.asarray(a, order="C")


def _random_tensor(op, shape, dtype, requires_grad, device, generator, draw, default=None,
                   floating=True):
    """The common frame of rand/randn/randint/randperm: checks first (Note [Check, then
    write]), then one draw from the source."""
    place = _device(device, op)
    dt = _dtype(dtype, default)
    if floating:
        _floating(dt, op)
    src = source(generator, place)
    return _finish(_c_order(draw(src, shape, dt)), requires_grad, place=place)


def rand(*shape, dtype=None, name=None, requires_grad=False, device=None, generator=None,
         out=None, **kwargs):
    """A new tensor of the given shape with samples uniform on [0, 1). The shape as arguments
    or one sequence; Paddle's dtype by position too (`rand([2, 3], "float64")`)."""
    shape = shape_keyword(shape, kwargs, "rand")
    _no_out("rand", out, kwargs)
    shp, dtype = _shape_and_dtype(shape, dtype, "rand")
    return _random_tensor("rand", shp, dtype, requires_grad, device, generator,
                          lambda s, shp, dt: s.uniform(shp, dt))


def randn(*shape, dtype=None, name=None, requires_grad=False, device=None, generator=None,
          out=None, **kwargs):
    """A new tensor of the given shape with samples from the standard normal N(0, 1). The
    shape as arguments or one sequence; Paddle's dtype by position too."""
    shape = shape_keyword(shape, kwargs, "randn")
    _no_out("randn", out, kwargs)
    shp, dtype = _shape_and_dtype(shape, dtype, "randn")
    return _random_tensor("randn", shp, dtype, requires_grad, device, generator,
                          lambda s, shp, dt: s.normal(shp, dt))


def standard_normal(shape, dtype=None, name=None, *, device=None, requires_grad=False):
    """Paddle's standard_normal: randn of the given shape."""
    return randn(shape, dtype=dtype, requires_grad=requires_grad, device=device)


def _no_out(op, out, kwargs):
    bad = sorted(k for k in kwargs if k not in ("pin_memory", "layout", "memory_format"))
    if bad:
        raise TypeError(f"{op}() got an unexpected keyword argument '{bad[0]}'")
    if out is not None:
        raise ArgValueError(f"{op}(): out= is not supported by oar's random functions. Fix: "
                            f"assign the result, or fill in place: `t.uniform_()`, "
                            "`t.normal_()`.")


def randint(low=0, high=None, shape=(1,), dtype=None, name=None, *, size=None, generator=None,
            device=None, requires_grad=False):
    """A new int64 tensor of the given shape with integers uniform on [low, high). Paddle's
    randint(low, high, shape) and PyTorch's randint(high, size) / randint(low, high, size)."""
    if isinstance(high, (list, tuple)) or (isinstance(high, Tensor) and high._data.ndim == 1):
        low, high, shape = 0, low, high     # PyTorch's randint(high, size)
    if high is None:
        low, high = 0, low
    if size is not None:
        shape = size
    low = _args.integer(low, "randint", "low")
    high = _args.integer(high, "randint", "high")
    if low >= high:
        raise ArgValueError(f"randint(): random_ expects 'from' to be less than 'to', but got "
                            f"from={low} >= to={high}. Fix: pass high > low.")
    shp = _args.shape(shape, "randint")
    return _random_tensor("randint", shp, dtype, requires_grad, device, generator,
                          lambda s, shp, dt: s.randint(low, high, shp, dt),
                          default=_dt.int64, floating=False)


def _std(std, op):
    if not std >= 0:
        raise ArgValueError(f"{op}(): normal expects std >= 0.0, but found std {std}")
    return std


def normal(mean=0.0, std=1.0, shape=None, name=None, *, size=None, generator=None,
           dtype=None, device=None, requires_grad=False, out=None):
    """Samples from N(mean, std**2): of the given shape, or elementwise for tensor mean/std
    (then the result has their broadcast shape and dtype)."""
    _no_out("normal", out, {})
    _device(device, "normal")
    if size is not None:
        shape = size
    src = source(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        m = mean._data if isinstance(mean, Tensor) else _args.number(mean, "normal", "mean")
        s = std._data if isinstance(std, Tensor) else _args.number(std, "normal", "std")
        if np.any(~(np.asarray(s) >= 0)):
            raise ArgValueError("normal(): normal expects all elements of std >= 0.0")
        dt = np.result_type(*(a.dtype for a in (m, s) if isinstance(a, np.ndarray)))
        _floating(dt, "normal")
        shp = np.broadcast_shapes(np.shape(m), np.shape(s))
        # PyTorch: out.normal_(0, 1), then out * std + mean in out's dtype
        z = src.normal(shp, dt)
        r = (z * np.asarray(s, dt) + np.asarray(m, dt)).astype(dt, copy=False)
        return _as_class(_finish(_c_order(r), requires_grad), like)
    mean = _args.number(mean, "normal", "mean")
    std = _std(_args.number(std, "normal", "std"), "normal")
    dt = _floating(_dtype(dtype), "normal")
    r = src.normal(_args.shape(shape, "normal"), dt, mean, std)
    return _finish(_c_order(r), requires_grad)


def uniform(shape, dtype=None, min=0.0, max=1.0, seed=0, name=None, *, device=None,
            requires_grad=False, generator=None):
    """A new tensor of the given shape with samples uniform on [min, max) (Paddle 3.3 and
    PyTorch: [0, 1) by default)."""
    lo, hi = _args.number(min, "uniform", "min"), _args.number(max, "uniform", "max")
    if not lo <= hi:
        raise ArgValueError(f"uniform(): expects a [min, max) range, but found min={lo} > max={hi}")
    shp = _args.shape(shape, "uniform")
    return _random_tensor("uniform", shp, dtype, requires_grad, device, generator,
                          lambda s, shp, dt: s.uniform(shp, dt, lo, hi))


def randperm(n, dtype=None, name=None, *, generator=None, device=None, requires_grad=False,
             out=None, **kwargs):
    """A random permutation of the integers 0 .. n-1 (int64 by default)."""
    _no_out("randperm", out, kwargs)
    n = _args.shape(n, "randperm", name="n")
    if len(n) != 1:
        raise ArgTypeError(f"randperm(): argument 'n' must be an integer, got {list(n)}")
    return _random_tensor("randperm", n[0], dtype, requires_grad, device, generator,
                          lambda s, n, dt: s.randperm(n, dt), default=_dt.int64,
                          floating=False)


def _like_args(x, op, dtype, device):
    x = _args.tensor(x, op)
    _device(device, op)
    return x, list(x._data.shape), (dtype if dtype is not None else x.dtype)


def rand_like(x, dtype=None, name=None, *, device=None, requires_grad=False, generator=None,
              memory_format=None, layout=None):
    """rand() with x's shape and dtype (unless dtype is given), of x's door."""
    x, shp, dt = _like_args(x, "rand_like", dtype, device)
    return _as_class(relayout_like(rand(shp, dtype=dt, requires_grad=requires_grad,
                                        generator=generator), x), x)   # Note [Layout of *_like]


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False, generator=None,
               memory_format=None, layout=None):
    """randn() with x's shape and dtype (unless dtype is given), of x's door."""
    x, shp, dt = _like_args(x, "randn_like", dtype, device)
    arr = like_layout(x, _dtype(dt))   # Note [Layout of *_like]
    if arr is None:
        return _as_class(randn(shp, dtype=dt, requires_grad=requires_grad, generator=generator), x)
    _floating(arr.dtype, "randn_like")
    # normal_ on a tensor that is not contiguous: PyTorch's element-by-element path, in
    # memory order (no 16-wide normal_fill)
    _write(arr, source(generator).normal(iteration_order(arr).shape, arr.dtype, contiguous=False))
    return _as_class(_finish(arr, requires_grad), x)


def randint_like(x, low=0, high=None, dtype=None, name=None, *, device=None,
                 requires_grad=False, generator=None, memory_format=None, layout=None):
    """randint() with x's shape and dtype (unless dtype is given): randint_like(x, high) or
    randint_like(x, low, high), of x's door."""
    x, shp, dt = _like_args(x, "randint_like", dtype, device)
    if high is None:
        low, high = 0, low
    return _as_class(relayout_like(randint(low, high, shp, dtype=dt, generator=generator,
                                           requires_grad=requires_grad), x), x)


for _n, _f in dict(seed=seed, manual_seed=manual_seed, rand=rand, randn=randn, randint=randint,
                   normal=normal, uniform=uniform, randperm=randperm, rand_like=rand_like,
                   randn_like=randn_like, randint_like=randint_like,
                   standard_normal=standard_normal).items():
    registry.register_function(_n, _f, method=False)


# in-place random fills: the old values are overwritten, so their gradient is zero
def _fill_grad(ctx, g):
    return (registry.zero_grad(g),)


def _check_float(self, args, attrs, op_name):
    if self._data.dtype.kind != "f":
        raise ArgTypeError(f"{op_name} needs a floating point tensor, got {self.dtype.name}")
    # Note [Check, then write]: the parameters are checked before anything is drawn
    source(attrs[-1], _xp.place_of(self._data))
    if op_name.startswith("normal"):
        _std(attrs[1], op_name)
    elif op_name.startswith("uniform"):
        if not attrs[0] <= attrs[1]:
            raise ArgValueError(f"{op_name}(): uniform_ expects to return a [from, to) range, "
                                f"but found from={attrs[0]} > to={attrs[1]}")
    elif op_name.startswith("exponential"):
        if not attrs[0] > 0:
            raise ArgValueError(f"{op_name}(): exponential_ expects lambda > 0.0, but found "
                                f"lambda={attrs[0]}. Fix: pass a positive rate.")


def _check_bernoulli(self, args, attrs, op_name):
    source(attrs[-1], _xp.place_of(self._data))
    p = attrs[0]
    pd = p._data if isinstance(p, Tensor) else p
    if not np.all((np.asarray(pd) >= 0) & (np.asarray(pd) <= 1)):
        raise ArgValueError(f"{op_name}(): bernoulli_ expects p to be in [0, 1], but got "
                            f"p={p if not isinstance(p, Tensor) else 'a tensor with values outside'}")
    if isinstance(p, Tensor) and p._data.shape != self._data.shape:
        try:
            ok = np.broadcast_shapes(p._data.shape, self._data.shape) == self._data.shape
        except ValueError:
            ok = False
        if not ok:
            raise ArgValueError(f"{op_name}(): p of shape {list(p._data.shape)} does not "
                                f"broadcast to self's shape {list(self._data.shape)}")


def _k_normal_(out, mean, std, generator):
    v = source(generator, _xp.place_of(out)).normal(out.shape, out.dtype, mean, std,
                                                    contiguous=out.flags.c_contiguous)
    return _write(out, v)


def _k_uniform_(out, low, high, generator):
    return _write(out, source(generator, _xp.place_of(out)).uniform(out.shape, out.dtype, low,
                                                                     high))


def _k_bernoulli_(out, p, generator):
    pr = p._data if isinstance(p, Tensor) else p
    if isinstance(pr, np.ndarray):
        pr = np.broadcast_to(pr, out.shape)
        if not out.flags.c_contiguous:
            pr = iteration_order(pr)     # the same element order as the values
    return _write(out, source(generator, _xp.place_of(out)).bernoulli(iteration_order(out).shape,
                                                                       pr, out.dtype))


for _op in (OpDef("normal_", _k_normal_, _fill_grad, kind="inplace", check=_check_float,
                  attrs=(("mean", 0.0), ("std", 1.0), ("generator", None)),
                  node_name="NormalBackward",
                  doc="Fills x with samples from the normal distribution N(mean, std**2)."),
            OpDef("uniform_", _k_uniform_, _fill_grad, kind="inplace", check=_check_float,
                  attrs=(("min", 0.0), ("max", 1.0), ("generator", None)),
                  node_name="UniformBackward",
                  doc="Fills x with samples from the uniform distribution on [min, max)."),
            OpDef("bernoulli_", _k_bernoulli_, _fill_grad, kind="inplace",
                  check=_check_bernoulli, attrs=(("p", 0.5), ("generator", None)),
                  node_name="BernoulliBackward",
                  doc="Fills x with 0/1 samples that are 1 with probability p.")):
    declare(_op)


def _k_exponential_(out, lam, generator):
    src = source(generator, _xp.place_of(out))
    if isinstance(src, NumpySource):
        return _write(out, np.asarray(src.rng.exponential(1.0 / lam, size=out.shape)).astype(out.dtype))
    return _write(out, src.exponential(iteration_order(out).shape, out.dtype, lam))


declare(OpDef("exponential_", _k_exponential_, _fill_grad, kind="inplace", check=_check_float,
              attrs=(("lam", 1.0), ("generator", None)), node_name="ExponentialBackward",
              doc="Fills x with samples from the exponential distribution of rate lam."))


def _check_random(self, args, attrs, op_name):
    source(attrs[-1], _xp.place_of(self._data))
    low, high = attrs[0], attrs[1]
    dt = self._data.dtype
    if dt.kind == "c":   # PyTorch has no complex random_ kernel (NumPy's error leaked before)
        from ..autograd.errors import DtypeNotImplementedError
        name = "ComplexFloat" if dt == np.complex64 else "ComplexDouble"
        raise DtypeNotImplementedError(f'"random_kernel_cpu" not implemented for \'{name}\'. '
                                       "Fix: fill the real and imaginary parts separately.")
    if low is None and high is None:
        return
    if high is None:
        low, high = 0, low
    for v, n in ((low, "from"), (high, "to")):
        if v.__class__ is not int:
            raise ArgTypeError(f"{op_name}(): argument '{n}' must be an int, got "
                               f"{type(v).__name__}")
    if not low < high:
        raise ArgValueError(f"{op_name}(): random_ expects 'from' to be less than 'to', but "
                            f"got from={low} >= to={high}")
    if dt.kind in "iub":
        info = (0, 1) if dt.kind == "b" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
        if not (info[0] <= low and high - 1 <= info[1]):
            raise ArgValueError(f"{op_name}(): [{low}, {high}) is out of bounds for "
                                f"{self.dtype.name}")


def _k_random_(out, low, high, generator):
    src = source(generator, _xp.place_of(out))
    shape = iteration_order(out).shape
    if low is None and high is None:
        return _write(out, src.random_(shape, out.dtype))
    if high is None:
        low, high = 0, low
    return _write(out, src.randint(low, high, shape, out.dtype))


declare(OpDef("random_", _k_random_, _fill_grad, kind="inplace", check=_check_random,
              attrs=(("low", None), ("high", None), ("generator", None)),
              number_attrs=(), node_name="RandomBackward",
              doc="Fills x with integers uniform on [low, high) (random_(high): [0, high); no "
                  "bounds: [0, 2**mantissa] for floats, [0, max] for integers)."))


def bernoulli(x, p=None, name=None, *, generator=None, out=None):
    """Draws 1 with probability x (elementwise), or with probability p (a number) in x's
    shape and dtype. x must be floating with every value in [0, 1] (PyTorch: RuntimeError
    otherwise; NaN is refused too)."""
    _no_out("bernoulli", out, {})
    x = _args.input_tensor(x, "bernoulli")
    src = source(generator)
    if p is not None:
        p = _args.number(p, "bernoulli", "p")
        if not 0 <= p <= 1:
            raise ArgValueError(f"bernoulli(): bernoulli_ expects p to be in [0, 1], but got "
                                f"p={p}")
        return _as_class(_finish(src.bernoulli(x._data.shape, p, x._data.dtype)), x)
    pa = x._data
    if pa.dtype.kind != "f":
        raise ArgTypeError(f"bernoulli(): expected a floating point tensor of probabilities, got "
                           f"{x.dtype.name}. Fix: cast it first, e.g. x.astype('float32').")
    if pa.size and not ((pa >= 0) & (pa <= 1)).all():
        raise ArgValueError("bernoulli(): Expected 0 <= p <= 1 for every element of x, got values "
                            f"in [{np.nanmin(pa) if not np.isnan(pa).all() else 'nan'}, "
                            f"{np.nanmax(pa) if not np.isnan(pa).all() else 'nan'}]"
                            f"{' and NaN' if np.isnan(pa).any() else ''}.")
    if isinstance(src, NumpySource):
        r = (src.rng.random(pa.shape) < pa).astype(pa.dtype)
    else:
        r = src.bernoulli(pa.shape, _c_order(pa), pa.dtype)
    return _as_class(_finish(_c_order(r)), x)


def multinomial(x, num_samples=1, replacement=False, name=None, *, generator=None):
    """Category indices drawn from each row of x (1-D or 2-D, non-negative finite weights with
    a positive sum), checked as PyTorch checks them (RuntimeError-compatible errors). With a
    torch.Generator the draws are PyTorch's: without replacement (or one sample) its
    exponential race, with replacement inverse-CDF picks from its uniforms."""
    x = _args.input_tensor(x, "multinomial")
    n = _args.integer(num_samples, "multinomial", "num_samples")
    if not isinstance(replacement, (bool, np.bool_)):
        raise ArgTypeError(f"multinomial(): argument 'replacement' must be a bool, got "
                           f"{type(replacement).__name__} {replacement!r:.40}")
    w = x._data
    if w.dtype.kind != "f":
        raise ArgTypeError(f"multinomial(): only floating point probabilities are supported, got "
                           f"{x.dtype.name}. Fix: cast it first, e.g. x.astype('float32').")
    if w.ndim not in (1, 2):
        raise ArgValueError(f"multinomial(): prob_dist must be 1 or 2 dim, got shape "
                            f"{list(w.shape)}.")
    if n <= 0:
        raise ArgValueError(f"multinomial(): cannot sample n_sample <= 0 samples "
                            f"(num_samples={n}).")
    k = w.shape[-1]
    if not replacement and n > k:
        raise ArgValueError(f"multinomial(): cannot sample n_sample > prob_dist.size(-1) samples "
                            f"without replacement (num_samples={n}, {k} categories).")
    rows = w.reshape(-1, k).astype(np.float64)
    if rows.size and not (np.isfinite(rows).all() and (rows >= 0).all()):
        raise ArgValueError("multinomial(): probability tensor contains either `inf`, `nan` or "
                            "element < 0.")
    sums = rows.sum(-1)
    if (sums <= 0).any():
        raise ArgValueError("multinomial(): invalid multinomial distribution (sum of "
                            "probabilities <= 0).")
    if not replacement and ((rows > 0).sum(-1) < n).any():
        raise ArgValueError("multinomial(): invalid multinomial distribution (with "
                            "replacement=False, not enough non-negative category to sample).")
    src = source(generator)
    if not isinstance(src, NumpySource) and (not replacement or n == 1):
        return _as_class(_finish(_exponential_race(src, w, n)), x)
    out = np.empty((rows.shape[0], n), np.int64)
    for i, r in enumerate(rows):
        if isinstance(src, NumpySource):
            out[i] = src.rng.choice(k, n, replace=bool(replacement), p=r / r.sum())
        else:
            out[i] = _choice(src, r, n, bool(replacement))
    return _as_class(_finish(out.reshape(w.shape[:-1] + (n,))), x)


def _exponential_race(src, w, n):
    """PyTorch's multinomial without replacement (or of one sample) on the CPU: q =
    empty_like(w).exponential_(1) drawn in w's memory order, then the n largest of w / q
    (argmax for one), in w's dtype: the same draws and the same picks as torch."""
    q = np.empty_like(w)
    _write(q, src.exponential(iteration_order(q).shape, w.dtype))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.divide(w, q, dtype=w.dtype)
    if n == 1:
        return np.argmax(r, axis=-1, keepdims=True).astype(np.int64)
    return np.argsort(-r, axis=-1, kind="stable")[..., :n].astype(np.int64)


def _choice(src, weights, n, replacement):
    """n categories drawn with the source's float64 uniforms (inverse CDF; without
    replacement a drawn category's weight becomes 0)."""
    w = weights.copy()
    picks = []
    for _ in range(n):
        cdf = np.cumsum(w)
        u = float(src.uniform((1,), np.float64)[0]) * cdf[-1]
        j = int(np.searchsorted(cdf, u, side="right"))
        j = min(j, len(w) - 1)
        while w[j] == 0 and j > 0:
            j -= 1
        picks.append(j)
        if not replacement:
            w[j] = 0.0
    return picks


registry.register_function("bernoulli", bernoulli)
registry.register_function("multinomial", multinomial)
