"""
Deep Deterministic Policy Gradient (DDPG), its policies and the exploration noise classes
(re-exported from :mod:`stable_baselines.common.noise`). DDPG needs MPI (``mpi4py``).
"""
from stable_baselines.common.noise import AdaptiveParamNoiseSpec, NormalActionNoise, OrnsteinUhlenbeckActionNoise
from stable_baselines.ddpg.ddpg import DDPG
from stable_baselines.ddpg.policies import CnnPolicy, LnCnnPolicy, LnMlpPolicy, MlpPolicy
from stable_baselines.common.safe_loading.classes import declare_loadable

declare_loadable(DDPG)  # HER files name it

__all__ = ["DDPG", "MlpPolicy", "CnnPolicy", "LnMlpPolicy", "LnCnnPolicy",
           "AdaptiveParamNoiseSpec", "NormalActionNoise", "OrnsteinUhlenbeckActionNoise"]
