"""Where a tensor lives. Only the CPU exists until the GPU backend lands."""


class Place:
    __slots__ = ("kind", "index")

    def __init__(self, kind: str = "cpu", index: int = 0):
        self.kind = kind
        self.index = index

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


CPU = Place("cpu")


def CPUPlace():
    return CPU


def as_place(place):
    if place is None or isinstance(place, Place) and place.kind == "cpu":
        return CPU
    if isinstance(place, str) and place.lower() == "cpu":
        return CPU
    raise ValueError(f"place {place!r} is not available: this build of oar runs on the CPU only")
