"""torch.nn: modules, containers, layers and losses with PyTorch 2.13's API
(Note [Torch modules over core layers]); torch.nn.functional, init and utils as
submodules."""
from . import functional, init, utils  # noqa: F401
from . import parameter  # noqa: F401
from .._tensor import Parameter  # noqa: F401
from .layers import *  # noqa: F401,F403
from .abn import InPlaceABN  # noqa: F401
from .modules import (Buffer, Module, ModuleDict, ModuleList, ParameterDict,  # noqa: F401
                      ParameterList, Sequential)
from . import parallel  # noqa: F401,E402  (torch.nn.parallel)
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder,  # noqa: F401,E402
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
from ._losses_more import (CTCLoss, CosineEmbeddingLoss, GaussianNLLLoss,  # noqa: F401,E402
                           HingeEmbeddingLoss, MarginRankingLoss, MultiLabelMarginLoss,
                           MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss,
                           SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from ._more_layers import *  # noqa: F401,F403,E402  (activations, padding, 3-d norms)
from ._adaptive_max import (AdaptiveMaxPool1d, AdaptiveMaxPool2d,  # noqa: F401,E402
                            AdaptiveMaxPool3d)
from ._lp_pool import LPPool1d, LPPool2d, LPPool3d  # noqa: F401,E402
from ._unpool import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: F401,E402
from ._unpool import AdaptiveAvgPool3d  # noqa: F401,E402
from ._nn3 import RMSNorm  # noqa: F401,E402
