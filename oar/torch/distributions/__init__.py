"""torch.distributions: parameterised probability distributions with sampling (drawn from
torch's CPU streams, Note [Torch CPU random streams]), log densities, entropies and
reparameterised gradients, and kl_divergence with a registry."""
from . import constraints  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution, ExponentialFamily
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .transformed_distribution import LogNormal, TransformedDistribution
from .transforms import (AffineTransform, ComposeTransform, ExpTransform,  # noqa: F401
                         SigmoidTransform, Transform)
from .uniform import Uniform
from . import kl, transforms, utils  # noqa: F401

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "ExponentialFamily",
           "Gamma", "Independent", "LogNormal", "MultivariateNormal", "Normal",
           "TransformedDistribution", "Uniform", "kl_divergence", "register_kl"]
