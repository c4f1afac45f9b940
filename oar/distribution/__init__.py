"""paddle.distribution in the Paddle door: Normal, Uniform, Categorical, Bernoulli, Beta,
Dirichlet and kl_divergence with Paddle 3.3's signatures and meanings."""
from .bernoulli import Bernoulli
from .categorical import Categorical
from .dirichlet import Beta, Dirichlet
from .distribution import Distribution, ExponentialFamily
from .kl import kl_divergence, register_kl
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "ExponentialFamily",
           "Normal", "Uniform", "kl_divergence", "register_kl"]
