"""print(layer) through the Paddle door is what paddle 3.3.1 prints, for the common layers and
their arguments (each built the same way in both and the reprs compared as text)."""
import pytest

import oar

paddle = pytest.importorskip("paddle")

LAYERS = {
    # convolutions: the arguments that differ from their defaults, then the data format
    "Conv2D": lambda nn: nn.Conv2D(3, 8, 3),
    "Conv2D stride padding dilation mode": lambda nn: nn.Conv2D(
        3, 8, (3, 5), stride=2, padding=1, dilation=2, bias_attr=False, padding_mode="reflect"),
    "Conv2D list arguments": lambda nn: nn.Conv2D(3, 6, [3, 3], stride=[2, 1], padding=[1, 2]),
    "Conv2D groups NHWC": lambda nn: nn.Conv2D(4, 8, 3, groups=2, data_format="NHWC"),
    "Conv2D padding same": lambda nn: nn.Conv2D(3, 8, 3, padding="same"),
    "Conv1D": lambda nn: nn.Conv1D(3, 8, 3),
    "Conv1D stride padding": lambda nn: nn.Conv1D(3, 8, 5, stride=2, padding=2, dilation=1),
    "Conv1D NLC circular": lambda nn: nn.Conv1D(3, 8, 3, padding=1, padding_mode="circular",
                                                data_format="NLC"),
    "Conv3D": lambda nn: nn.Conv3D(3, 8, 3),
    "Conv3D stride": lambda nn: nn.Conv3D(2, 4, (1, 3, 3), stride=(1, 2, 2), padding=1),
    "Conv2DTranspose": lambda nn: nn.Conv2DTranspose(3, 8, 3),
    "Conv2DTranspose stride output_padding": lambda nn: nn.Conv2DTranspose(
        3, 8, 4, stride=2, padding=1, output_padding=1),
    "Conv1DTranspose": lambda nn: nn.Conv1DTranspose(3, 8, 3, groups=1, dilation=2),
    # pooling
    "MaxPool2D": lambda nn: nn.MaxPool2D(2),
    "MaxPool2D stride padding ceil": lambda nn: nn.MaxPool2D(3, stride=2, padding=1,
                                                             ceil_mode=True),
    "MaxPool1D": lambda nn: nn.MaxPool1D(2),
    "AvgPool2D": lambda nn: nn.AvgPool2D(2),
    "AvgPool2D exclusive": lambda nn: nn.AvgPool2D(3, stride=1, padding=1, exclusive=False),
    "AvgPool1D": lambda nn: nn.AvgPool1D(2),
    "AdaptiveAvgPool2D": lambda nn: nn.AdaptiveAvgPool2D(1),
    "AdaptiveAvgPool2D tuple": lambda nn: nn.AdaptiveAvgPool2D((2, 3)),
    "AdaptiveAvgPool2D list": lambda nn: nn.AdaptiveAvgPool2D([4, 4]),
    "AdaptiveAvgPool1D": lambda nn: nn.AdaptiveAvgPool1D(4),
    "AdaptiveMaxPool2D": lambda nn: nn.AdaptiveMaxPool2D(1),
    # dense, normalisation
    "Linear": lambda nn: nn.Linear(4, 5),
    "Linear no bias named": lambda nn: nn.Linear(4, 5, bias_attr=False, name="fc"),
    "BatchNorm2D": lambda nn: nn.BatchNorm2D(8),
    "BatchNorm2D momentum epsilon NHWC": lambda nn: nn.BatchNorm2D(
        8, momentum=0.8, epsilon=1e-3, data_format="NHWC"),
    "BatchNorm2D named": lambda nn: nn.BatchNorm2D(8, name="bn"),
    "BatchNorm1D": lambda nn: nn.BatchNorm1D(8),
    "BatchNorm3D": lambda nn: nn.BatchNorm3D(4),
    "BatchNorm": lambda nn: nn.BatchNorm(8),
    "LayerNorm": lambda nn: nn.LayerNorm(8),
    "LayerNorm shape epsilon": lambda nn: nn.LayerNorm([4, 8], epsilon=1e-6),
    "GroupNorm": lambda nn: nn.GroupNorm(2, 8),
    "InstanceNorm2D": lambda nn: nn.InstanceNorm2D(8),
    "Embedding": lambda nn: nn.Embedding(10, 4),
    "Embedding padding sparse named": lambda nn: nn.Embedding(10, 4, padding_idx=0, sparse=True,
                                                              name="emb"),
    "Embedding negative padding": lambda nn: nn.Embedding(10, 4, padding_idx=-1),
    # activations, dropout, shape
    "ReLU": lambda nn: nn.ReLU(),
    "ReLU named": lambda nn: nn.ReLU(name="act"),
    "ReLU6": lambda nn: nn.ReLU6(),
    "LeakyReLU": lambda nn: nn.LeakyReLU(),
    "LeakyReLU slope named": lambda nn: nn.LeakyReLU(0.2, name="lrelu"),
    "Sigmoid": lambda nn: nn.Sigmoid(),
    "Tanh": lambda nn: nn.Tanh(),
    "GELU": lambda nn: nn.GELU(),
    "GELU approximate": lambda nn: nn.GELU(approximate=True),
    "Softmax": lambda nn: nn.Softmax(),
    "Softmax axis": lambda nn: nn.Softmax(axis=1),
    "Dropout": lambda nn: nn.Dropout(),
    "Dropout p mode named": lambda nn: nn.Dropout(0.3, mode="downscale_in_infer", name="d"),
    "Dropout2D": lambda nn: nn.Dropout2D(0.2),
    "Flatten": lambda nn: nn.Flatten(),
    "Flatten axes": lambda nn: nn.Flatten(0, 2),
    "Identity": lambda nn: nn.Identity(),
    # containers: each sublayer's repr, indented
    "Sequential": lambda nn: nn.Sequential(
        nn.Conv2D(1, 8, 3, padding=1, bias_attr=False), nn.BatchNorm2D(8), nn.LeakyReLU(0.01),
        nn.MaxPool2D(2), nn.Flatten(), nn.Linear(8, 10)),
    "Sequential nested": lambda nn: nn.Sequential(
        nn.Sequential(nn.Conv1D(2, 4, 3), nn.ReLU()), nn.AdaptiveAvgPool2D(1),
        nn.Dropout(0.1), nn.Embedding(5, 2), nn.LayerNorm(2)),
    "LayerList": lambda nn: nn.LayerList([nn.Linear(2, 3), nn.Tanh(),
                                          nn.Conv2DTranspose(2, 2, 2, stride=2)]),
}


@pytest.mark.parametrize("case", sorted(LAYERS))
def test_repr_is_paddles(case):
    build = LAYERS[case]
    assert repr(build(oar.nn)) == repr(build(paddle.nn))


def test_print_of_a_model_is_paddles(capsys):
    build = LAYERS["Sequential"]
    print(build(paddle.nn))
    theirs = capsys.readouterr().out
    print(build(oar.nn))
    assert capsys.readouterr().out == theirs
