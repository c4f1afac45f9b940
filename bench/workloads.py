"""Workloads shared by the benchmark scripts (the same code for oar and torch)."""


def chain20(w, x):
    """The 20-op chain: 4 rounds of mul, add_, tanh, mul, add on w's history, then
    sum().backward()."""
    h = w * 1.0
    for _ in range(4):
        h = h * x
        h.add_(0.5)
        h = h.tanh()
        h = h * 1.5
        h = h + w
    h.sum().backward()
