"""torch.utils.data.sampler."""
from . import (BatchSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
               SubsetRandomSampler, WeightedRandomSampler)
