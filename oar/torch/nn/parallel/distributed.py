"""torch.nn.parallel.distributed.DistributedDataParallel over MPI (Note [Gradient buckets],
Note [Overlapped all-reduce] in oar/distributed/_reducer.py)."""
from __future__ import annotations

from ....distributed import _comm
from ....distributed.parallel import MB, DataParallelCore
from ..modules import Module


class DistributedDataParallel(Module, DataParallelCore):
    """Runs `module` in every process of the default group with the same parameters and
    buffers (broadcast from rank 0 at construction; buffers again at each forward with
    broadcast_buffers=True); backward averages the gradients over the processes, in flat
    buckets of about bucket_cap_mb MiB (default 25; the first one 1 MiB), each all-reduced
    as soon as its gradients are in, while backward goes on. Each parameter's .grad is a
    view into its bucket (oar always works as PyTorch's gradient_as_bucket_view=True).
    no_sync() accumulates without communicating. CPU only: device_ids must be None."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False,
                 bucket_cap_mb_list=None, batched_grad_copy=False, forward_sync_buffers=None):
        Module.__init__(self)
        if device_ids is not None or output_device is not None:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters "
                "{device(type='cpu')}. Fix: leave them out (oar runs on the CPU)")
        from ...distributed import group
        _comm.check_group(process_group, "DistributedDataParallel", group.WORLD)
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: expected a torch.nn.Module, got "
                            f"{type(module).__name__}")
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        if not _comm.is_initialized():
            raise ValueError("Default process group has not been initialized, please make "
                             "sure to call init_process_group.")
        self.module = module
        self.__dict__["dim"] = dim
        self.__dict__["gradient_as_bucket_view"] = True
        self._dp_setup(module, "DistributedDataParallel",
                       (25 if bucket_cap_mb is None else bucket_cap_mb) * MB, 1 * MB,
                       find_unused_parameters, broadcast_buffers, ValueError)

    def forward(self, *inputs, **kwargs):
        """The wrapped module's forward, with the gradient reduction prepared."""
        return self._dp_forward(self.module, inputs, kwargs)
