"""paddle.utils.try_import on the Paddle door, against paddle 3.3.1's behaviour."""
import json

import pytest

import oar


def test_returns_the_module():
    assert oar.utils.try_import("json") is json
    import os.path
    assert oar.utils.try_import("os.path") is os.path


def test_missing_module_names_the_package():
    with pytest.raises(ImportError, match="pip install no_such_pkg_xyz"):
        oar.utils.try_import("no_such_pkg_xyz.sub")
    if _absent("cv2"):   # cv2's pip name differs from its import name
        with pytest.raises(ImportError, match="opencv-python"):
            oar.utils.try_import("cv2")
    with pytest.raises(ImportError, match="^custom$"):
        oar.utils.try_import("no_such_pkg_xyz", "custom")


def _absent(name):
    import importlib.util
    return importlib.util.find_spec(name) is None


def test_same_outcome_as_paddle():
    paddle = pytest.importorskip("paddle")
    for name in ("json", "no_such_pkg_xyz"):
        outcomes = []
        for f in (paddle.utils.try_import, oar.utils.try_import):
            try:
                outcomes.append(f(name).__name__)
            except ImportError as e:
                outcomes.append(type(e))
        assert outcomes[0] == outcomes[1]
