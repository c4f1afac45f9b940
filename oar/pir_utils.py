"""`paddle.pir_utils`: the guards that switch Paddle 3.3.1 between its two static-graph
representations (PIR and the old ProgramDesc). oar has no static graph (Note [No static
graph], oar/static.py): a program runs eagerly under either, so each guard is a context
manager that changes nothing. Programs and Paddle's own tests import them."""


class IrGuard:
    """Paddle's guard for building a static program in PIR; eager (no change) on oar."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


class OldIrGuard(IrGuard):
    """Paddle's guard for the old static-graph representation; eager (no change) on oar."""


class DygraphPirGuard(IrGuard):
    """Paddle's guard that enables PIR for to_static in dynamic mode; no change on oar."""


class DygraphOldIrGuard(IrGuard):
    """Paddle's guard that disables PIR for to_static in dynamic mode; no change on oar."""
