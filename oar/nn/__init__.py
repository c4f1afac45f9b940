"""oar.nn: layers (Paddle and PyTorch spellings), functional forms and initialisers."""
from . import clip, functional, init, initializer, utils  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from .layers import *  # noqa: F401,F403
from .layers import Layer, Module, Parameter  # noqa: F401
from .abn import InPlaceABN, InPlaceABN1D, InPlaceABN2D  # noqa: F401
from .transformer import (MultiHeadAttention, Transformer, TransformerDecoder,  # noqa: F401,E402
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
from .rnn import (GRU, LSTM, RNN, BiRNN, GRUCell, LSTMCell, RNNCellBase,  # noqa: F401,E402
                  SimpleRNN, SimpleRNNCell)
from ._losses_paddle import (CTCLoss, CosineEmbeddingLoss, GaussianNLLLoss,  # noqa: F401,E402
                             HingeEmbeddingLoss, MarginRankingLoss, MultiLabelMarginLoss,
                             MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss,
                             SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from ._more_layers import *  # noqa: F401,F403,E402  (activations, padding, 3-D norms)
from ._adaptive_max_layers import (AdaptiveMaxPool1D, AdaptiveMaxPool2D,  # noqa: F401,E402
                                   AdaptiveMaxPool3D)
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (  # Paddle's aliases
    AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D)
from ._unpool_layers import MaxUnPool1D, MaxUnPool2D, MaxUnPool3D  # noqa: F401,E402
from ._unpool_layers import AdaptiveAvgPool1D, AdaptiveAvgPool3D  # noqa: F401,E402
from ._nn3_layers import Bilinear  # noqa: F401,E402
from ._paddle_pool import (AvgPool1D, AvgPool2D, AvgPool3D, LPPool1D,  # noqa: F401,E402,F811
                           LPPool2D, MaxPool1D, MaxPool2D, MaxPool3D)
from ._nn3_layers import LayerDict, ParameterDict, ParameterList  # noqa: F401,E402
from ._nn3_layers import HSigmoidLoss  # noqa: F401,E402
