from . import data  # noqa: F401
from . import checkpoint  # noqa: F401,E402
from . import dlpack  # noqa: F401,E402
from ._imports import try_import  # noqa: F401,E402
