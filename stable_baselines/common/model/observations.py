"""
Observations given to ``predict`` and ``action_probability``: one observation or a batch of them, checked
against the observation space.
"""
from typing import Any, Tuple

import numpy as np
from gymnasium import spaces

# the shape of one observation of each space type that predict() accepts, and the name used in messages
_SINGLE_SHAPES = (
    (spaces.Box, "Box", lambda space: tuple(space.shape)),
    (spaces.Discrete, "Discrete", lambda space: ()),
    (spaces.MultiDiscrete, "MultiDiscrete", lambda space: (len(space.nvec),)),
    (spaces.MultiBinary, "MultiBinary", lambda space: tuple(np.atleast_1d(space.n).tolist())),
)


def is_vectorized_observation(observation: Any, observation_space: spaces.Space) -> bool:
    """
    Tell one observation from a batch of them, raising a ValueError when the shape fits neither.

    :param observation: (np.ndarray) what the user gave
    :param observation_space: (gymnasium.spaces.Space) the model's observation space
    :return: (bool) True for a batch (first axis = observations), False for a single observation
    """
    shape = np.shape(observation)
    for space_type, name, single_shape in _SINGLE_SHAPES:
        if isinstance(observation_space, space_type):
            break
    else:
        raise ValueError("Error: Cannot determine if the observation is vectorized with the space type {}."
                         .format(observation_space))
    expected = single_shape(observation_space)
    if shape == expected:
        return False
    if shape[1:] == expected:
        return True
    if name == "Discrete":
        raise ValueError("Error: Unexpected observation shape {} for Discrete environment, please use () or "
                         "(n_env,) for the observation shape.".format(shape))
    raise ValueError("Error: Unexpected observation shape {} for {} environment, please use {} or "
                     "(n_env, {}) for the observation shape."
                     .format(shape, name, expected, ", ".join(str(dim) for dim in expected)))


def batch_observation(observation: Any, observation_space: spaces.Space) -> Tuple[np.ndarray, bool]:
    """
    Check an observation given to ``predict``/``action_probability`` and give it a batch axis.

    :param observation: (Any) one observation or a batch of them
    :param observation_space: (gymnasium.spaces.Space) the model's observation space
    :return: (np.ndarray, bool) the batch, and whether the input already was one
    """
    if isinstance(observation, tuple) and len(observation) == 2 and isinstance(observation[1], dict):
        raise ValueError("predict() got a (observation, info) tuple, which is what gymnasium's env.reset() "
                         "returns: pass only the observation, e.g. `obs, info = env.reset()`")
    observation = np.asarray(observation)
    was_batch = is_vectorized_observation(observation, observation_space)
    return observation.reshape((-1,) + tuple(observation_space.shape)), was_batch


def softmax(logits: np.ndarray) -> np.ndarray:
    """
    :param logits: (np.ndarray) scores, the last axis being the classes (1-d or 2-d)
    :return: (np.ndarray) the probabilities, along the last axis
    """
    shifted = np.exp(logits.T - np.max(logits.T, axis=0))
    return (shifted / shifted.sum(axis=0)).T
