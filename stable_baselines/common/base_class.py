"""
The base classes of the models (public path; the code lives in :mod:`stable_baselines.common.model`):
:class:`BaseRLModel`, :class:`ActorCriticRLModel` (A2C, ACER, ACKTR, PPO1, PPO2, TRPO),
:class:`OnPolicyRLModel` (the runner-driven update loop of A2C, ACER, ACKTR and PPO2),
:class:`OffPolicyRLModel` (DQN, DDPG, SAC, TD3), and the context managers :class:`SetVerbosity` and
:class:`TensorboardWriter`.
"""
from stable_baselines.common.model.base import BaseRLModel
from stable_baselines.common.model.context import SetVerbosity, TensorboardWriter
from stable_baselines.common.model.environment import _UnvecWrapper, check_spaces_match  # noqa: F401
# the name the off-policy algorithms import
from stable_baselines.common.model.observations import batch_observation as _predict_input  # noqa: F401
from stable_baselines.common.model.off_policy import OffPolicyRLModel
from stable_baselines.common.model.on_policy import ActorCriticRLModel, OnPolicyRLModel

__all__ = ["BaseRLModel", "ActorCriticRLModel", "OnPolicyRLModel", "OffPolicyRLModel", "SetVerbosity",
           "TensorboardWriter", "check_spaces_match"]
