"""Error classes. Paddle raises ValueError for the leaf rule, PyTorch RuntimeError: ours is both."""


class InplaceLeafError(ValueError, RuntimeError):
    """An in-place op on a leaf (or a view of a leaf) that needs a gradient."""


class InplaceViewError(RuntimeError):
    """An in-place op on a view whose autograd history cannot be rewritten."""


class SavedTensorModifiedError(RuntimeError):
    """A tensor saved for backward was modified in place before backward ran."""


class GraphReleasedError(RuntimeError):
    """Backward through a graph whose saved tensors were already freed."""
