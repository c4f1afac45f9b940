"""paddle.vision.datasets for the Paddle door: MNIST, FashionMNIST, Cifar10, Cifar100, Flowers,
VOC2012 read from local files in their published formats, and DatasetFolder / ImageFolder over
image folders.

(Note [Vision datasets read local files only]).
"""
# Note [Vision datasets read local files only]
# Paddle downloads a dataset when its path keyword is None and download=True. oar never goes to
# the network: that case is an error that names the file(s) to fetch and the keyword to pass them
# with; download=False with no path is Paddle's assertion. Everything else -- the items each
# __getitem__ returns (image kind per backend, dtypes, label shapes), len, the order of samples,
# the errors for a bad mode or backend -- is Paddle 3.3.1's. Pillow (the optional "vision" extra)
# is imported only when a 'pil' image is made.

from .cifar import Cifar10, Cifar100  # noqa: F401
from .flowers import Flowers  # noqa: F401
from .folder import DatasetFolder, ImageFolder  # noqa: F401
from .mnist import MNIST, FashionMNIST  # noqa: F401
from .voc2012 import VOC2012  # noqa: F401

# in Paddle's order (programs print it)
__all__ = ["DatasetFolder", "ImageFolder", "MNIST", "FashionMNIST", "Flowers", "Cifar10",
           "Cifar100", "VOC2012"]
