"""
Observations given to ``predict`` and ``action_probability``: one observation or a batch of them, checked
against the observation space.
"""
from typing import Any, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.model.env_values import allowed_values
from stable_baselines.common.structured_obs import (add_batch_axis, check_no_extra_entries, entry_name, entry_values, is_batch,
                                                    is_structured_space, pack_batch, space_entries)

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


def reject_reset_tuple(observation: Any) -> None:
    """
    :param observation: (Any) what ``predict``/``action_probability`` was given; a ValueError when it is the
        ``(obs, info)`` pair of gymnasium's ``reset()``
    """
    if isinstance(observation, tuple) and len(observation) == 2 and isinstance(observation[1], dict):
        raise ValueError("predict() got a (observation, info) tuple, which is what gymnasium's env.reset() "
                         "returns: pass only the observation, e.g. `obs, info = env.reset()`")


def batch_observation(observation: Any, observation_space: spaces.Space) -> Tuple[np.ndarray, bool]:
    """
    Check an observation given to ``predict``/``action_probability`` and give it a batch axis.

    :param observation: (Any) one observation or a batch of them
    :param observation_space: (gymnasium.spaces.Space) the model's observation space
    :return: (np.ndarray, bool) the batch, and whether the input already was one
    """
    reject_reset_tuple(observation)
    if is_structured_space(observation_space):
        return batch_structured_observation(observation, observation_space)
    try:
        observation = np.asarray(observation)
    except ValueError as error:  # nested sequences of different lengths
        raise ValueError("The observation must be one observation of the observation space {} (shape {}) or a batch "
                         "of them, got a ragged nesting of sequences ({})".format(
                             observation_space, observation_space.shape, error)) from None
    was_batch = is_vectorized_observation(observation, observation_space)
    single_shape = observation_space.shape
    assert single_shape is not None, "every space accepted by is_vectorized_observation has a shape"
    batch = observation.reshape((-1,) + tuple(single_shape))
    check_observation_values(batch, observation_space)
    return batch, was_batch


def batch_structured_observation(observation: Any, observation_space: spaces.Space) -> Tuple[np.ndarray, bool]:
    """
    Check a structured (Dict or Tuple) observation given to ``predict``/``action_probability`` entry by entry and
    pack it into rows (see :mod:`stable_baselines.common.structured_obs`).

    :param observation: (dict or tuple) one observation or a batch of them (batch axis inside every entry)
    :param observation_space: (gymnasium.spaces.Dict or gymnasium.spaces.Tuple) the model's observation space
    :return: (np.ndarray, bool) the packed batch, and whether the input already was one
    """
    check_no_extra_entries(observation, observation_space)
    was_batch = is_batch(observation, observation_space)
    batch = observation if was_batch else add_batch_axis(observation, observation_space)
    packed = pack_batch(batch, observation_space)
    for path, entry in space_entries(observation_space):
        if isinstance(entry, (spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
            values = np.asarray(entry_values(batch, observation_space, path))
            try:
                check_observation_values(values, entry)
            except ValueError as error:
                raise ValueError("Error: in the entry {} of the observation: {}".format(entry_name(path), error)) \
                    from error
    return packed, was_batch


def check_observation_values(batch: np.ndarray, observation_space: spaces.Space) -> None:
    """
    Refuse text given as observations (any space), and values a discrete observation space cannot hold (the
    one-hot encoding of the policy would turn them into a vector of zeros, or into another observation, and an
    action would come back without a word). Box values are not checked: values outside the bounds are
    legitimate inputs of a network.

    :param batch: (np.ndarray) a batch of observations, first axis the observations
    :param observation_space: (gymnasium.spaces.Space) the model's observation space
    """
    if batch.dtype.kind in "US":
        raise ValueError("Error: the observations of the space {} are numbers, got an array of dtype {} (text): {!r}"
                         .format(observation_space, batch.dtype, batch[:2].tolist()))
    if not isinstance(observation_space, (spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
        return
    if batch.dtype.kind not in "biuf":
        raise ValueError("Error: the observations of a {} space are integers, got an array of dtype {}"
                         .format(observation_space, batch.dtype))
    low, high, allowed = allowed_values(observation_space)
    flat = batch.reshape(len(batch), -1)
    bad = ~np.all((flat >= np.reshape(low, (1, -1))) & (flat <= np.reshape(high, (1, -1)))
                  & (np.floor(flat) == flat), axis=1)
    if not np.any(bad):
        return
    if len(batch) == 1:
        given = "observation {}".format(batch[0].tolist())
    else:
        rows = np.flatnonzero(bad)[:5]
        given = "observations {} (rows {} of the batch)".format([batch[row].tolist() for row in rows], rows.tolist())
    raise ValueError("Error: {} outside the observation space {}: expected {}".format(
        given + (" is" if len(batch) == 1 else " are"), observation_space, allowed))


def softmax(logits: np.ndarray) -> np.ndarray:
    """
    :param logits: (np.ndarray) scores, the last axis being the classes (1-d or 2-d)
    :return: (np.ndarray) the probabilities, along the last axis
    """
    shifted = np.exp(logits.T - np.max(logits.T, axis=0))
    return (shifted / shifted.sum(axis=0)).T
