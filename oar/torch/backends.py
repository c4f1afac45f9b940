"""torch.backends on oar: the flags programs set for reproducibility and speed.

cudnn and mps are unavailable (oar runs on the CPU only); their flags (deterministic,
benchmark, allow_tf32, ...) can be read and set as in PyTorch and change nothing, since no
cuDNN kernel ever runs.
"""
from __future__ import annotations

import contextlib
import sys
import types

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "mkl", "openmp", "cpu"]


class _Flags(types.ModuleType):
    """A submodule-like namespace of settable flags."""


cudnn = _Flags("oar.torch.backends.cudnn", "cuDNN is not available on oar; its flags are "
               "recorded and change nothing.")
cudnn.enabled = True
cudnn.deterministic = False
cudnn.benchmark = False
cudnn.benchmark_limit = 10
cudnn.allow_tf32 = True


def _cudnn_is_available():
    """False: oar has no cuDNN."""
    return False


def _cudnn_version():
    """None: oar has no cuDNN."""
    return None


@contextlib.contextmanager
def _cudnn_flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True, **kw):
    """Sets the cudnn flags for a with block (they change nothing on oar)."""
    old = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32)
    cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32 = (
        enabled, benchmark, deterministic, allow_tf32)
    try:
        yield
    finally:
        cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32 = old


cudnn.is_available = _cudnn_is_available
cudnn.version = _cudnn_version
cudnn.flags = _cudnn_flags

mps = _Flags("oar.torch.backends.mps", "Apple MPS is not available on oar.")


def _false():
    """False: not available on oar (CPU only)."""
    return False


mps.is_available = _false
mps.is_built = _false

cuda = _Flags("oar.torch.backends.cuda", "CUDA is not available on oar; flags are recorded.")
cuda.matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                    allow_bf16_reduced_precision_reduction=True)
cuda.is_built = _false
cuda.enable_flash_sdp = lambda enabled: None
cuda.enable_mem_efficient_sdp = lambda enabled: None
cuda.enable_math_sdp = lambda enabled: None


def _true():
    """True: available (oar's CPU kernels are NumPy's)."""
    return True


mkldnn = _Flags("oar.torch.backends.mkldnn", "oneDNN flags (recorded; oar uses NumPy).")
mkldnn.enabled = True
mkldnn.is_available = _false
mkl = _Flags("oar.torch.backends.mkl", "MKL flags (recorded; oar uses NumPy).")
mkl.is_available = _false
openmp = _Flags("oar.torch.backends.openmp", "OpenMP (oar's NumPy kernels).")
openmp.is_available = _false
cpu = _Flags("oar.torch.backends.cpu", "The CPU backend.")
cpu.get_cpu_capability = lambda: "DEFAULT"

# `import torch.backends.cudnn as cudnn` (DCGAN, most training scripts) imports a submodule: the
# flag namespaces are registered as the modules of their names, so the import system finds them
# in sys.modules the way it finds torch's real submodules.
for _sub in (cudnn, mps, cuda, mkldnn, mkl, openmp, cpu):
    sys.modules[_sub.__name__] = _sub
del _sub
