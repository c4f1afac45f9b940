"""MNIST-format files written from scikit-learn's digits, for the Paddle guide programs.

The guides read MNIST with `paddle.vision.datasets.MNIST(image_path=..., label_path=...)`; no
download is possible here, so each program writes the real idx-ubyte .gz format from the
8x8 digits upscaled to MNIST's 28x28 (np.kron by 3, padded by 2, scaled to 0..255). This module
imports no framework, so a program's run on paddle and its run on oar use it unchanged.
Counts are multiples of 100: paddle 3.3.1's reader needs that.
"""
import gzip
import os
import struct
import tempfile

import numpy as np


def write_mnist(folder, prefix, images, labels):
    """(images path, labels path) of `prefix`-images-idx3-ubyte.gz / -labels-idx1-ubyte.gz."""
    paths = (os.path.join(folder, prefix + "-images-idx3-ubyte.gz"),
             os.path.join(folder, prefix + "-labels-idx1-ubyte.gz"))
    with gzip.open(paths[0], "wb") as f:
        f.write(struct.pack(">IIII", 2051, len(images), 28, 28) + images.tobytes())
    with gzip.open(paths[1], "wb") as f:
        f.write(struct.pack(">II", 2049, len(labels)) + labels.tobytes())
    return paths


def digits_pixels():
    """(pixels, targets): the 1797 digits as uint8 28x28 images and their uint8 labels."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    pixels = np.pad(np.kron(digits.images, np.ones((3, 3))), ((0, 0), (2, 2), (2, 2))) * (255.0 / 16.0)
    return np.round(pixels).astype("uint8"), digits.target.astype("uint8")


def digits_mnist_files(train=(0, 300), test=(1500, 1700)):
    """(train images, train labels, test images, test labels): paths in a new temporary folder."""
    pixels, targets = digits_pixels()
    folder = tempfile.mkdtemp()
    return (*write_mnist(folder, "train", pixels[slice(*train)], targets[slice(*train)]),
            *write_mnist(folder, "t10k", pixels[slice(*test)], targets[slice(*test)]))
