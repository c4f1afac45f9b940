"""DatasetFolder / ImageFolder over folders of images (Paddle door)."""
# Note [is_valid_file in Paddle's folder datasets]
# Paddle 3.3.1 replaces extensions=None by its IMG_EXTENSIONS list before choosing the file
# filter, and a non-None extensions list always wins over is_valid_file; so is_valid_file is
# accepted and never consulted. oar keeps that: a program written against Paddle sees the same
# samples. Filter with `extensions=` (or pass an already filtered folder).
from __future__ import annotations

import os

from ...io import Dataset
from ._common import _AssertTypeError

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename, extensions):
    """Whether `filename` ends with one of `extensions` (a list or tuple), ignoring case."""
    if not isinstance(extensions, (list, tuple)):
        raise _AssertTypeError(f"has_valid_extension: extensions must be a list or tuple, "
                           f"got {type(extensions).__name__}")
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def make_dataset(dir, class_to_idx, extensions, is_valid_file=None):
    """(path, class index) of every file under dir/<class>/ that passes the filter, classes in
    name order, each class's tree walked in name order (links followed)."""
    images = []
    dir = os.path.expanduser(dir)
    if extensions is not None:  # Note [is_valid_file in Paddle's folder datasets]
        def is_valid_file(x):
            return has_valid_extension(x, extensions)
    for target in sorted(class_to_idx):
        d = os.path.join(dir, target)
        if not os.path.isdir(d):
            continue
        for root, _, fnames in sorted(os.walk(d, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    images.append((path, class_to_idx[target]))
    return images


def pil_loader(path):
    """The image at `path` as an RGB PIL image."""
    from ..image import _pil
    with open(path, "rb") as f:
        return _pil().open(f).convert("RGB")


def cv2_loader(path):
    """The image at `path` as an RGB HWC uint8 NumPy array (needs OpenCV)."""
    from ..image import _cv2
    cv2 = _cv2()
    return cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)


def default_loader(path):
    """pil_loader, or cv2_loader when the image backend is 'cv2'."""
    from ..image import get_image_backend
    return cv2_loader(path) if get_image_backend() == "cv2" else pil_loader(path)


class DatasetFolder(Dataset):
    """Samples from root/<class>/.../<file>: item i is (loader(path) through `transform`,
    class index). classes are the sub-folder names in order, class_to_idx maps them to
    0, 1, ...; samples lists (path, index); targets the indices."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        self.transform = transform
        if extensions is None:
            extensions = IMG_EXTENSIONS
        classes, class_to_idx = self._find_classes(self.root)
        samples = make_dataset(self.root, class_to_idx, extensions, is_valid_file)
        if len(samples) == 0:
            raise RuntimeError(f"DatasetFolder: found 0 files in subfolders of: {self.root}\n"
                               f"Supported extensions are: {','.join(extensions)}")
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]
        from ... import get_default_dtype
        self.dtype = get_default_dtype()

    def _find_classes(self, dir):
        classes = sorted(d.name for d in os.scandir(dir) if d.is_dir())
        return classes, {c: i for i, c in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Every image under root (any depth, walked in name order), without labels: item i is the
    one-element list [loader(path) through `transform`]; samples lists the paths."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        if extensions is None:
            extensions = IMG_EXTENSIONS
        # is_valid_file is never consulted: see Note [is_valid_file in Paddle's folder datasets]
        def is_valid_file(x):
            return has_valid_extension(x, extensions)
        samples = []
        for dirpath, _, fnames in sorted(os.walk(os.path.expanduser(root), followlinks=True)):
            for fname in sorted(fnames):
                f = os.path.join(dirpath, fname)
                if is_valid_file(f):
                    samples.append(f)
        if len(samples) == 0:
            raise RuntimeError(f"ImageFolder: found 0 files in subfolders of: {self.root}\n"
                               f"Supported extensions are: {','.join(extensions)}")
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
