"""paddle.vision.transforms for the Paddle door (filled in by the transforms work)."""
