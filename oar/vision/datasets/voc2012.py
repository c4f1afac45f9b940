"""VOC2012 segmentation pairs read from the VOCtrainval tar archive (Paddle door)."""
from __future__ import annotations

import io
import tarfile

import numpy as np

from ...io import Dataset
from ._common import _check, _check_backend, _local_path

_SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
_DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
_LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
# Paddle's split names: 'train' reads trainval.txt, 'test' train.txt, 'valid' val.txt
_FLAGS = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """Item i is (image, segmentation label) named by line i of the split's list: two PIL
    images (backend 'pil'), or two arrays cast to the default dtype (backend 'cv2'; the
    transform sees the image array, never the label). Members are read from the archive on
    demand; it stays open for the dataset's life."""

    def __init__(self, data_file=None, mode="train", transform=None, download=True,
                 backend=None):
        _check(isinstance(mode, str) and mode.lower() in ("train", "valid", "test"),
               f"VOC2012: mode should be 'train', 'valid' or 'test', but got {mode!r}")
        self.backend = _check_backend(backend, "VOC2012")
        self.flag = _FLAGS[mode.lower()]
        self.data_tar = None
        self.data_file = _local_path(data_file, "data_file", download, "VOC2012",
                                     "VOCtrainval_11-May-2012.tar")
        self.transform = transform
        self._load_anno()
        from ... import get_default_dtype
        self.dtype = get_default_dtype()

    def _load_anno(self):
        self.data_tar = tarfile.open(self.data_file)
        self.name2mem = {m.name: m for m in self.data_tar.getmembers()}
        names = self.data_tar.extractfile(self.name2mem[_SET_FILE.format(self.flag)])
        self.data, self.labels = [], []
        for line in names:
            name = line.strip().decode("utf-8")
            self.data.append(_DATA_FILE.format(name))
            self.labels.append(_LABEL_FILE.format(name))

    def __getitem__(self, idx):
        from ..image import _pil
        Image = _pil()
        data = self.data_tar.extractfile(self.name2mem[self.data[idx]]).read()
        label = self.data_tar.extractfile(self.name2mem[self.labels[idx]]).read()
        data, label = Image.open(io.BytesIO(data)), Image.open(io.BytesIO(label))
        if self.backend == "cv2":
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return data.astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self):
        return len(self.data)

    def __del__(self):
        if getattr(self, "data_tar", None) is not None:
            self.data_tar.close()
