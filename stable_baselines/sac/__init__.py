"""Soft Actor-Critic (SAC) and its policies."""
from stable_baselines.sac.sac import SAC
from stable_baselines.sac.policies import MlpPolicy, CnnPolicy, LnMlpPolicy, LnCnnPolicy

__all__ = ["SAC", "MlpPolicy", "CnnPolicy", "LnMlpPolicy", "LnCnnPolicy"]
