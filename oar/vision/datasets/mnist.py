"""MNIST and FashionMNIST from their idx-ubyte .gz files (Paddle door)."""
from __future__ import annotations

import gzip
import struct

import numpy as np

from ...autograd.errors import ArgValueError
from ...io import Dataset
from ._common import _check_backend, _check_mode, _local_path


def _read_idx(path, cls, what, header):
    with gzip.GzipFile(path, "rb") as f:
        buf = f.read()
    size = struct.calcsize(header)
    if len(buf) < size:
        raise ArgValueError(f"{cls}: {path} is too short for an idx-ubyte {what} file "
                            f"({len(buf)} bytes after gunzip)")
    return buf, struct.unpack_from(header, buf, 0), size


class MNIST(Dataset):
    """MNIST digits from local idx files: item i is (image, label) with label an int64 array
    of shape [1]; the image is a 28x28 PIL image of mode 'L' (backend 'pil') or a float32
    (default dtype) 28x28 NumPy array (backend 'cv2'), passed through `transform` if given.
    With backend 'cv2' the transform's result is cast to the default dtype (`.astype`)."""

    NAME = "mnist"
    _FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
              "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None,
                 download=True, backend=None):
        cls = type(self).__name__
        self.mode = _check_mode(mode, cls)
        self.backend = _check_backend(backend, cls)
        files = self._FILES[self.mode]
        self.image_path = _local_path(image_path, "image_path", download, cls,
                                      f"{self.NAME}'s {files[0]}")
        self.label_path = _local_path(label_path, "label_path", download, cls,
                                      f"{self.NAME}'s {files[1]}")
        self.transform = transform
        self._parse_dataset()
        from ... import get_default_dtype
        self.dtype = get_default_dtype()

    def _parse_dataset(self):
        cls = type(self).__name__
        img_buf, (_, _, rows, cols), img_off = _read_idx(self.image_path, cls, "image",
                                                         ">IIII")
        lab_buf, (_, n), lab_off = _read_idx(self.label_path, cls, "label", ">II")
        # Paddle reads one image per label (the label file's count), 28x28 each
        if len(lab_buf) - lab_off < n or len(img_buf) - img_off < n * rows * cols:
            raise ArgValueError(
                f"{cls}: the label file {self.label_path} announces {n} labels, but it or the "
                f"image file {self.image_path} ({rows}x{cols} images) holds fewer")
        if rows * cols != 28 * 28:
            raise ArgValueError(f"{cls}: images must be 28x28 (MNIST's size); "
                                f"{self.image_path} holds {rows}x{cols} images")
        pixels = np.frombuffer(img_buf, np.uint8, n * rows * cols, img_off)
        images = pixels.reshape(n, rows * cols).astype("float32")
        labels = np.frombuffer(lab_buf, np.uint8, n, lab_off).astype("int64")
        self.images = list(images)
        self.labels = [labels[i:i + 1].copy() for i in range(n)]

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        image = np.reshape(image, [28, 28])
        if self.backend == "pil":
            from ..image import _pil
            image = _pil().fromarray(image.astype("uint8"))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return image.astype(self.dtype), label.astype("int64")

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST (same files and items as MNIST)."""
    NAME = "fashion-mnist"
