"""
How likely given actions are under a policy's action distribution, from what the policy's ``proba_step``
returns (``action_probability(observation, actions=...)``).
"""
import warnings
from typing import Any, Optional

import numpy as np
from gymnasium import spaces


def _check_batch(n_actions: int, n_observations: int) -> None:
    if n_actions != n_observations:
        raise ValueError("Error: batch sizes differ for actions ({}) and observations ({})."
                         .format(n_actions, n_observations))


def _check_discrete(actions: np.ndarray, low: Any, high: Any, action_space: spaces.Space) -> None:
    """Raise a ValueError naming the action space when ``actions`` are not integers from ``low`` to ``high``."""
    if actions.dtype.kind not in "biu" or np.any(actions < low) or np.any(actions > high):
        raise ValueError("action_probability(actions=...) got actions {} outside the action space {}".format(
            np.array2string(actions.ravel(), threshold=8), action_space))


def gaussian_log_density(actions: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    """
    :param actions: (np.ndarray) one action per row
    :param mean: (np.ndarray) the Gaussian's mean, one row per action
    :param std: (np.ndarray) its standard deviation
    :return: (np.ndarray) the log-density of each row, summed over the action's dimensions (2.10.0 read the std
        as a log std here, and put half of it in the normaliser)
    """
    per_dim = -np.square(actions - mean) / (2 * np.square(std)) - np.log(std) - 0.5 * np.log(2 * np.pi)
    return np.sum(per_dim.reshape((len(per_dim), -1)), axis=1)


def probability_of_actions(action_space: spaces.Space, distribution: Any, actions: Any, n_rows: int,
                           logp: bool) -> Optional[np.ndarray]:
    """
    :param action_space: (gymnasium.spaces.Space) the model's action space
    :param distribution: (np.ndarray or [np.ndarray]) what ``proba_step`` returned for the ``n_rows`` observations
    :param actions: (Any) the actions to evaluate, one per observation
    :param n_rows: (int) the number of observations
    :param logp: (bool) return log-probabilities
    :return: (np.ndarray) one (log) probability per observation, shape (n_rows, 1); None (with a warning) for an
        action space without a formula
    """
    try:
        actions = np.array([actions])
    except ValueError as error:  # nested sequences of different lengths
        raise ValueError("action_probability(actions=...) expects one action of the action space {} per observation, "
                         "got a ragged nesting of sequences ({})".format(action_space, error)) from None
    prob: np.ndarray
    if isinstance(action_space, spaces.Discrete):
        actions = actions.reshape((-1,))
        _check_batch(actions.shape[0], n_rows)
        start = int(action_space.start)
        _check_discrete(actions, start, start + int(action_space.n) - 1, action_space)
        prob = distribution[np.arange(actions.shape[0]), actions - start]
    elif isinstance(action_space, spaces.MultiDiscrete):
        actions = actions.reshape((-1, len(action_space.nvec)))
        _check_batch(actions.shape[0], n_rows)
        _check_discrete(actions, 0, np.asarray(action_space.nvec) - 1, action_space)
        # one categorical per dimension: the product of the chosen entries' probabilities
        prob = np.prod([part[np.arange(len(column)), column] for part, column in zip(distribution, actions.T)],
                       axis=0)
    elif isinstance(action_space, spaces.MultiBinary):
        actions = actions.reshape((-1, action_space.n))
        _check_batch(actions.shape[0], n_rows)
        prob = np.prod(distribution * actions + (1 - distribution) * (1 - actions), axis=1)
    elif isinstance(action_space, spaces.Box):
        mean, std = distribution
        actions = actions.reshape((-1,) + action_space.shape)
        if len(actions) != 1:  # one action is evaluated under every observation's Gaussian, as in the original
            _check_batch(len(actions), n_rows)
        logprob = gaussian_log_density(actions, mean, std)
        return (logprob if logp else np.exp(logprob)).reshape((-1, 1))
    else:
        warnings.warn("Warning: action_probability not implemented for {} actions space. Returning None."
                      .format(type(action_space).__name__))
        return None
    return (np.log(prob) if logp else prob).reshape((-1, 1))
