"""
Actor-critic policies (A2C, ACER, ACKTR, PPO1, PPO2, TRPO, GAIL): feed-forward and recurrent, MLP and CNN
feature extraction, and the registry of policy names.

The classes are written in :mod:`stable_baselines.common.policy_parts`; this is their public path (model
files name them here). Variables keep the original library's names (``model/pi_fc0/w``, ``model/vf/b``,
``model/pi/logstd``, ``model/lstm1/wx`` ...) and creation order, so its parameter files load; placeholders
live in the ``input`` scope.
"""
from stable_baselines.common.policy_parts.base import ActorCriticPolicy, BasePolicy
from stable_baselines.common.policy_parts.extractors import mlp_extractor, nature_cnn
from stable_baselines.common.policy_parts.feedforward import FeedForwardPolicy
from stable_baselines.common.policy_parts.multi_input import MultiInputLstmPolicy, MultiInputPolicy
from stable_baselines.common.policy_parts.numpy_actor_critic import NumpyActorCriticForward
from stable_baselines.common.policy_parts.presets import (CnnLnLstmPolicy, CnnLstmPolicy, CnnPolicy, MlpLnLstmPolicy,
                                                          MlpLstmPolicy, MlpPolicy)
from stable_baselines.common.policy_parts.recurrent import LstmPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.policy_parts.registry import get_policy_from_name, register_policy
from stable_baselines.common.policy_parts.registry import _policy_registry  # noqa: F401 (reached by older code)
from stable_baselines.common.safe_loading.classes import declare_loadable

declare_loadable(FeedForwardPolicy, LstmPolicy, MlpPolicy, CnnPolicy, MlpLstmPolicy, MlpLnLstmPolicy, CnnLstmPolicy,
                 CnnLnLstmPolicy)

__all__ = ["BasePolicy", "ActorCriticPolicy", "RecurrentActorCriticPolicy", "FeedForwardPolicy", "LstmPolicy",
           "MlpPolicy", "CnnPolicy", "MultiInputPolicy", "MultiInputLstmPolicy", "MlpLstmPolicy", "MlpLnLstmPolicy",
           "CnnLstmPolicy", "CnnLnLstmPolicy", "nature_cnn", "mlp_extractor", "register_policy", "get_policy_from_name",
           "NumpyActorCriticForward"]
