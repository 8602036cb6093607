"""Twin Delayed DDPG (TD3) and its policies."""
from stable_baselines.td3.policies import CnnPolicy, LnCnnPolicy, LnMlpPolicy, MlpPolicy
from stable_baselines.td3.td3 import TD3
from stable_baselines.common.safe_loading.classes import declare_loadable

declare_loadable(TD3)  # HER files name it

__all__ = ["TD3", "MlpPolicy", "CnnPolicy", "LnMlpPolicy", "LnCnnPolicy"]
