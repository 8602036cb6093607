"""
Structural types for what the helpers around training need from a model.

Callbacks and :func:`~stable_baselines.common.evaluation.evaluate_policy` are written against these
protocols instead of the model classes, so they do not import ``base_class`` (which imports them).
Any object with the right methods fits; no model has to inherit from them.
"""
from typing import Any, Optional, Protocol, Tuple

import numpy as np

# What ``predict`` returns: the actions, and the next hidden state of a recurrent policy (None otherwise).
PredictResult = Tuple[np.ndarray, Optional[np.ndarray]]


class PolicyPredictor(Protocol):
    """
    Something that chooses actions: every RL model (and anything with the same ``predict`` method).
    """

    def predict(self, observation: np.ndarray, state: Optional[np.ndarray] = None,
                mask: Optional[np.ndarray] = None, deterministic: bool = False) -> PredictResult:
        """
        :param observation: (np.ndarray) the input observation(s)
        :param state: (np.ndarray) the last hidden state of a recurrent policy (None otherwise)
        :param mask: (np.ndarray) the last "done" mask of a recurrent policy
        :param deterministic: (bool) whether to return the most likely actions instead of samples
        :return: (np.ndarray, np.ndarray) the actions and the next hidden state
        """


class TrainedModel(PolicyPredictor, Protocol):
    """
    What a callback sees as ``self.model``: a predictor that counts its timesteps, knows its
    training environment and can save itself (the RL models of this library).
    """
    num_timesteps: int

    def get_env(self) -> Any:
        """
        :return: (VecEnv or None) the environment the model trains on
        """

    def save(self, save_path: str, cloudpickle: bool = False, include_training_state: bool = False) -> None:
        """
        :param save_path: (str) where to write the model (``.zip`` is added when missing)
        :param cloudpickle: (bool) write the older cloudpickle format instead of the zip archive
        :param include_training_state: (bool) also store what continuing training needs
        """


__all__ = ["PredictResult", "PolicyPredictor", "TrainedModel"]
