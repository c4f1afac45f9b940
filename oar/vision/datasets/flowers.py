"""Flowers (Oxford 102 flowers) from 102flowers.tgz, imagelabels.mat and setid.mat (Paddle door)."""
from __future__ import annotations

import os
import tarfile

import numpy as np

from ...io import Dataset
from ._common import _check, _check_backend, _local_path

# Paddle's split names: its 'train' reads the set the .mat file calls tstid (the larger one)
# and its 'test' reads trnid; kept so that a Paddle program sees the same images
_FLAGS = {"train": "tstid", "test": "trnid", "valid": "valid"}


def _loadmat(path):
    try:
        from scipy import io as scio
    except ImportError as e:  # pragma: no cover - scipy is installed in the dev env
        raise ImportError("Flowers: reading its .mat files needs SciPy; install it with "
                          "`pip install scipy`") from e
    return scio.loadmat(path)


class Flowers(Dataset):
    """Item i is (image, label): image jpg/image_<index>.jpg of the archive (a PIL image for
    backend 'pil', an HWC NumPy array for 'cv2', whose transform result is cast to the default
    dtype) and its label, an int64 array of shape [1]. The archive is extracted once next to
    data_file (data_file without '.tgz', as Paddle does) unless its jpg/ folder exists."""

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train",
                 transform=None, download=True, backend=None):
        _check(isinstance(mode, str) and mode.lower() in ("train", "valid", "test"),
               f"Flowers: mode should be 'train', 'valid' or 'test', but got {mode!r}")
        self.backend = _check_backend(backend, "Flowers")
        flag = _FLAGS[mode.lower()]
        # Paddle tests these paths for truth, so an empty string counts as missing
        data_file = _local_path(data_file or None, "data_file", download, "Flowers",
                                "102flowers.tgz")
        label_file = _local_path(label_file or None, "label_file", download, "Flowers",
                                 "imagelabels.mat")
        setid_file = _local_path(setid_file or None, "setid_file", download, "Flowers",
                                 "setid.mat")
        self.transform = transform
        self.data_path = data_file.replace(".tgz", "/")
        if not os.path.exists(os.path.join(self.data_path, "jpg")):
            os.makedirs(self.data_path, exist_ok=True)
            with tarfile.open(data_file) as tar:
                tar.extractall(self.data_path, filter="data")
        self.labels = _loadmat(label_file)["labels"][0]
        self.indexes = _loadmat(setid_file)[flag][0]

    def __getitem__(self, idx):
        from ..image import _pil
        from ... import get_default_dtype
        index = self.indexes[idx]
        label = np.array([self.labels[index - 1]])
        path = os.path.join(self.data_path, f"jpg/image_{index:05}.jpg")
        image = _pil().open(path)
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return image.astype(get_default_dtype()), label.astype("int64")

    def __len__(self):
        return len(self.indexes)
