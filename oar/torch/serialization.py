"""torch.save / torch.load for the PyTorch door: PyTorch's own zip checkpoint format, read and
written without torch (Note [Checkpoint formats]); loading never runs code (Note [Loading
never runs code])."""
from __future__ import annotations

import pickle

from ..autograd.errors import ArgTypeError
from ..serialization._errors import ForbiddenGlobalError

__all__ = ["save", "load"]

_NO_CODE = (" oar.torch.load never runs code from a file, with weights_only=False too (there "
            "is no unsafe mode): load the checkpoint in PyTorch and save what you need as a "
            "state dict of tensors (model.state_dict(), optimizer.state_dict()), which "
            "oar.torch.load reads.")


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save obj (a tensor, a state dict, an optimizer state dict, or dicts / lists / tuples
    of tensors, numbers and strings) to `f` (a path or a binary file object) in PyTorch's
    zip checkpoint format, which `torch.load(f, weights_only=True)` reads. Views of one
    storage are written once and load back as views of one storage. A save to a path is
    atomic: a failed or interrupted save leaves the old file intact (Note [Atomic
    checkpoint writes]).

    The file is always the zip format torch.load reads (pickle_protocol and
    _use_new_zipfile_serialization only choose between encodings of the same content in
    PyTorch); objects torch.load(weights_only=True) would refuse (modules, arbitrary classes,
    NumPy arrays) are refused here with CheckpointError, before the file is touched.
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ArgTypeError("oar.torch.save: pickle_module must be None or the pickle module: "
                           "oar writes PyTorch's format with its own pickler")
    if isinstance(pickle_protocol, bool) or not isinstance(pickle_protocol, int) \
            or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ArgTypeError(f"oar.torch.save: pickle_protocol must be an int in [2, "
                           f"{pickle.HIGHEST_PROTOCOL}], got {pickle_protocol!r}")
    from ..serialization import _save
    _save(obj, f, "torch")


def _check_map_location(map_location):
    if map_location is None:
        return
    locs = map_location.values() if isinstance(map_location, dict) else [map_location]
    for loc in locs:
        if callable(loc):
            raise ArgTypeError("oar.torch.load: a callable map_location is not supported "
                               "(oar has no device storages to map); everything loads to "
                               "the CPU: pass map_location='cpu' or None")
        s = str(loc)
        if s != "cpu" and not s.startswith("cpu:"):
            raise RuntimeError(f"oar.torch.load: map_location={map_location!r} asks for a "
                               "device other than the CPU; oar runs on the CPU only (Torch "
                               "not compiled with CUDA enabled): use map_location='cpu'")


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """Load what torch.save (or oar.torch.save, oar.save, paddle.save) wrote to `f` (a path
    or a binary file object): tensors come back as oar.torch tensors, Parameters as
    oar.torch.nn.Parameter, views of one storage sharing one storage. Storages saved on
    any device load to the CPU (oar's only device; map_location may say 'cpu').

    Loading never runs code (Note [Loading never runs code]): the pickle inside goes through
    a restricted unpickler that allows only tensor-rebuilding functions, containers and
    numbers, as torch.load(weights_only=True). weights_only=False is accepted but loads the
    same way: a file naming another global raises ForbiddenGlobalError (a
    pickle.UnpicklingError, as torch raises) naming the file and the global. `mmap` is
    accepted; the data is read into memory.
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise RuntimeError("oar.torch.load: pickle_module must be None or the pickle module: "
                           "oar never unpickles with another module (Can not safely load "
                           "weights when explicit pickle_module is specified)")
    if weights_only is not None and not isinstance(weights_only, bool):
        raise ArgTypeError(f"oar.torch.load: weights_only must be a bool, got "
                           f"{weights_only!r}"[:200])
    if mmap is not None and not isinstance(mmap, bool):
        raise ArgTypeError(f"oar.torch.load: mmap must be a bool, got {mmap!r}"[:200])
    for key in pickle_load_args:
        if key not in ("encoding", "errors", "fix_imports"):
            raise TypeError(f"oar.torch.load: unexpected keyword argument {key!r}")
    _check_map_location(map_location)
    from ..serialization import _load
    try:
        return _load(f, "torch")
    except ForbiddenGlobalError as e:
        if weights_only is False:
            raise ForbiddenGlobalError(str(e) + _NO_CODE) from None
        raise
