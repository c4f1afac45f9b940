"""LeNet for 1x28x28 inputs (Paddle's layout: features, then fc)."""
from __future__ import annotations

from ... import nn
from ...ops.views import flatten

__all__ = ["LeNet"]


class LeNet(nn.Layer):
    """Two conv/relu/max-pool stages and three linear layers (no activation between them, as
    in Paddle). num_classes <= 0 drops the linear head and returns the feature maps."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                    nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x
