"""paddle.utils.try_import: import a module by name, or say how to install it."""
from __future__ import annotations

import importlib

# the pip names of modules whose import name differs (Paddle names cv2's)
_PIP_NAMES = {"cv2": "opencv-python", "PIL": "pillow", "sklearn": "scikit-learn",
              "yaml": "pyyaml"}


def try_import(module_name, err_msg=None):
    """The module `module_name`, imported; ImportError naming the package to install (or
    err_msg) when it is absent."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        top = module_name.split(".")[0]
        if err_msg is None:
            err_msg = (f"Failed importing {module_name}. It is an optional dependency: install "
                       f"it with `pip install {_PIP_NAMES.get(top, top)}`.")
        raise ImportError(err_msg) from None
