"""
The exploration noise classes, moved to :mod:`stable_baselines.common.noise` in 2.8; this module keeps
``from stable_baselines.ddpg.noise import NormalActionNoise`` working (as the manual's examples write it).
"""
from stable_baselines.common.noise import (ActionNoise, AdaptiveParamNoiseSpec, NormalActionNoise,
                                           OrnsteinUhlenbeckActionNoise)

__all__ = ["ActionNoise", "AdaptiveParamNoiseSpec", "NormalActionNoise", "OrnsteinUhlenbeckActionNoise"]
