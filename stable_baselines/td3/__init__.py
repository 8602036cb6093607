"""Twin Delayed DDPG (TD3) and its policies."""
from stable_baselines.td3.policies import CnnPolicy, LnCnnPolicy, LnMlpPolicy, MlpPolicy
from stable_baselines.td3.td3 import TD3

__all__ = ["TD3", "MlpPolicy", "CnnPolicy", "LnMlpPolicy", "LnCnnPolicy"]
