"""torch.utils: data loading (torch.utils.data)."""
from . import data  # noqa: F401
from . import checkpoint  # noqa: F401,E402
from . import dlpack  # noqa: F401,E402
