"""Soft Actor-Critic (SAC) and its policies."""
from stable_baselines.sac.sac import SAC
from stable_baselines.sac.policies import MlpPolicy, CnnPolicy, LnMlpPolicy, LnCnnPolicy
from stable_baselines.common.safe_loading.classes import declare_loadable

declare_loadable(SAC)  # HER files name it

__all__ = ["SAC", "MlpPolicy", "CnnPolicy", "LnMlpPolicy", "LnCnnPolicy"]
