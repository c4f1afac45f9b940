"""A stand-in for the two calls of OpenCV that Paddle's data-loading guide makes
(`cv2.imread(path, cv2.IMREAD_GRAYSCALE)`), for machines without OpenCV. The harness
puts this directory on the path of both runs (Paddle's and oar's) only when no real cv2
is installed, so a guide keeps its `import cv2` and its reading code as written.
Reads with Pillow, returning what OpenCV returns: a uint8 array, HxW for grayscale,
HxWx3 in BGR order otherwise, None for a file it cannot read."""
import numpy as np
from PIL import Image

IMREAD_COLOR = 1
IMREAD_GRAYSCALE = 0
IMREAD_UNCHANGED = -1


def imread(filename, flags=IMREAD_COLOR):
    try:
        img = Image.open(filename)
        img.load()
    except OSError:
        return None
    if flags == IMREAD_GRAYSCALE:
        return np.asarray(img.convert("L"))
    if flags == IMREAD_UNCHANGED:
        return np.asarray(img)
    return np.asarray(img.convert("RGB"))[..., ::-1].copy()
