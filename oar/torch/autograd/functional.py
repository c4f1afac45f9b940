"""torch.autograd.functional: the higher-level autograd functions the core defines
(jacobian, hessian, vjp, jvp, hvp, vhp), where it defines them."""
from ...autograd import functional as _core

__all__ = [n for n in ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp") if hasattr(_core, n)]
globals().update({n: getattr(_core, n) for n in __all__})
