"""Cifar10 / Cifar100 from the python-version tar.gz archives (Paddle door)."""
from __future__ import annotations

import pickle
import tarfile

import numpy as np

from ...autograd.errors import ArgValueError
from ...io import Dataset
from ._common import _check_backend, _check_mode, _local_path


class Cifar10(Dataset):
    """CIFAR-10 from cifar-10-python.tar.gz: the archive's members whose name holds
    'data_batch' (train) or 'test_batch' (test), in name order. Item i is (image, label):
    a 32x32 RGB PIL image (backend 'pil') or a 32x32x3 NumPy array (backend 'cv2', uint8 into
    the transform, the result cast to the default dtype), and a 0-d int64 label array."""

    _ARCHIVE = "cifar-10-python.tar.gz"
    _FLAGS = {"train": "data_batch", "test": "test_batch"}

    def __init__(self, data_file=None, mode="train", transform=None, download=True,
                 backend=None):
        cls = type(self).__name__
        self.mode = _check_mode(mode, cls)
        self.backend = _check_backend(backend, cls)
        self.flag = self._FLAGS[self.mode]
        self.data_file = _local_path(data_file, "data_file", download, cls, self._ARCHIVE)
        self.transform = transform
        self._load_data()
        from ... import get_default_dtype
        self.dtype = get_default_dtype()

    def _load_data(self):
        self.data = []
        with tarfile.open(self.data_file, mode="r") as f:
            names = sorted(m.name for m in f if self.flag in m.name)
            for name in names:
                # the archive's batches are pickles written by Python 2 (hence bytes keys)
                batch = pickle.load(f.extractfile(name), encoding="bytes")
                labels = batch.get(b"labels", batch.get(b"fine_labels", None))
                if labels is None:
                    raise ArgValueError(f"{type(self).__name__}: batch {name} of "
                                        f"{self.data_file} has no b'labels' or b'fine_labels'")
                for sample, label in zip(batch[b"data"], labels):
                    self.data.append((sample, label))

    def __getitem__(self, idx):
        image, label = self.data[idx]
        image = np.reshape(image, [3, 32, 32]).transpose([1, 2, 0])
        if self.backend == "pil":
            from ..image import _pil
            image = _pil().fromarray(image.astype("uint8"))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, np.array(label).astype("int64")
        return image.astype(self.dtype), np.array(label).astype("int64")

    def __len__(self):
        return len(self.data)


class Cifar100(Cifar10):
    """CIFAR-100 from cifar-100-python.tar.gz: members named with 'train' or 'test'; the labels
    are the fine labels."""

    _ARCHIVE = "cifar-100-python.tar.gz"
    _FLAGS = {"train": "train", "test": "test"}
