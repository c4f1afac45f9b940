"""Where a tensor lives. Only the CPU exists until the GPU backend lands."""


# Device kinds a Place may name (as torch.device / Paddle places spell them); only "cpu" is
# usable in this build (as_place refuses the rest), but naming one is not an error.
_KINDS = ("cpu", "gpu", "cuda", "xpu", "npu", "ipu", "mps", "hip", "xla", "meta")


class Place:
    """A device: Place('cpu') (the only kind available in this build)."""
    __slots__ = ("kind", "index")

    def __init__(self, kind: str = "cpu", index: int = 0):
        from .autograd.errors import ArgTypeError, ArgValueError   # lazy: no import cycle
        if not isinstance(kind, str):
            raise ArgTypeError(f"Place(): kind must be a device string such as 'cpu', got "
                               f"{type(kind).__name__} {kind!r:.40}")
        if kind.strip().lower() not in _KINDS:
            raise ArgValueError(f"Place(): unknown device kind {kind!r}; expected one of "
                                f"{list(_KINDS)} (this build runs on 'cpu' only).")
        if index.__class__ is not int and not (hasattr(index, "__index__")
                                               and not isinstance(index, bool)):
            raise ArgTypeError(f"Place(): index must be an integer, got "
                               f"{type(index).__name__} {index!r:.40}")
        if int(index) < 0:
            raise ArgValueError(f"Place(): Device index must not be negative, got {int(index)}")
        self.kind = kind.strip().lower()
        self.index = int(index)

    def __repr__(self):
        return "Place(cpu)" if self.kind == "cpu" else f"Place({self.kind}:{self.index})"

    def __eq__(self, other):
        return isinstance(other, Place) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self):
        return hash((self.kind, self.index))

    def is_cpu_place(self):
        return self.kind == "cpu"

    def is_gpu_place(self):
        return self.kind == "gpu"


class CPUPlace(Place):
    """The CPU place, paddle.CPUPlace(): one object, Place(cpu) (the place of every tensor)."""
    __slots__ = ()
    _the = None

    def __new__(cls):
        if cls._the is None:
            cls._the = super().__new__(cls)
            Place.__init__(cls._the, "cpu", 0)
        return cls._the

    def __init__(self):
        pass

    def __reduce__(self):
        return (CPUPlace, ())


CPU = CPUPlace()


def _no_device(what, fix="paddle.CPUPlace()"):
    from .ops.args import DeviceUnavailableError          # lazy: no import cycle
    return DeviceUnavailableError(f"{what}: oar is not compiled with CUDA (or any accelerator) and "
                                  f"runs on the CPU only. Fix: use {fix}")


class CUDAPlace(Place):
    """paddle.CUDAPlace(id): Place(gpu:id) where a GPU backend exists (Note [Array module per
    place]); refused otherwise, as by a CPU-only Paddle build (ValueError): no GPU place can
    be made (and no tensor put on one)."""
    __slots__ = ()

    def __new__(cls, id=0):
        from . import _xp                          # lazy: no import cycle
        b = _xp.backend()
        if b is None:
            raise _no_device(f"CUDAPlace({id!r})")
        if isinstance(id, bool) or not isinstance(id, int) or not 0 <= id < b.count:
            from .autograd.errors import ArgValueError
            raise ArgValueError(f"CUDAPlace({id!r}): the device id must be an int in "
                                f"[0, {b.count}) (the GPUs this machine has)")
        obj = Place.__new__(cls)
        Place.__init__(obj, "gpu", id)
        return obj

    def __init__(self, id=0):
        pass

    def __reduce__(self):
        return (CUDAPlace, (self.index,))


class XPUPlace(Place):
    """paddle.XPUPlace(id): refused (ValueError): oar runs on the CPU only."""
    __slots__ = ()

    def __new__(cls, id=0):
        raise _no_device(f"XPUPlace({id!r})")


class CUDAPinnedPlace(Place):
    """paddle.CUDAPinnedPlace(): refused (RuntimeError, as Paddle's CPU build): oar runs on the
    CPU only."""
    __slots__ = ()

    def __new__(cls):
        from .autograd.errors import ArgValueError        # ValueError and RuntimeError
        raise ArgValueError("CUDAPinnedPlace(): oar is not compiled with CUDA and runs on the "
                            "CPU only (pinned memory needs CUDA). Fix: use paddle.CPUPlace()")


def as_place(place):
    if place is None or isinstance(place, Place) and place.kind == "cpu":
        return CPU
    if isinstance(place, str) and place.lower() == "cpu":
        return CPU
    from . import _xp                          # lazy: no import cycle
    b = _xp.backend()
    if b is not None and isinstance(place, (Place, str)):   # Note [Array module per place]
        from .ops.args import device
        return device(place, "place")
    raise ValueError(f"place {place!r} is not available: this build of oar runs on the CPU only")
