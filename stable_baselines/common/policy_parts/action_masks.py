"""
Invalid-action masks: which actions an environment allows at its current state.

An environment that forbids actions defines ``action_masks()``, returning a bool array with one entry per action
(``Discrete(n)``: ``n`` entries; ``MultiDiscrete(nvec)``: ``sum(nvec)`` entries, the sub-spaces side by side),
True where the action may be taken. The rule of the models: a model masks actions when the environment it is
built with (its VecEnv, through any wrappers) has that method; its graph then has a bool input
``action_mask_ph`` per policy (defaulting to "all allowed") and every distribution it acts or learns with is
the masked one. Models built without such an environment keep exactly the graph they always had;
``predict(..., action_masks=...)`` still applies masks to them, in NumPy.
"""
import weakref
from typing import Any, List, Optional, Sequence

import numpy as np
from gymnasium import spaces

from stable_baselines.common.vec_env.base_vec_env import VecEnv, env_has_attr
from stable_baselines.common.vec_env.single_env import call_env_method

# the graphs whose policies are built with mask inputs
_MASKED_GRAPHS: "weakref.WeakSet[Any]" = weakref.WeakSet()

METHOD_NAME = "action_masks"


def mask_width(action_space: spaces.Space) -> int:
    """
    :param action_space: (gym.spaces.Space) a Discrete or MultiDiscrete action space
    :return: (int) the number of entries of one mask
    """
    if isinstance(action_space, spaces.Discrete):
        return int(action_space.n)
    if isinstance(action_space, spaces.MultiDiscrete):
        return int(np.sum(action_space.nvec))
    raise ValueError("Action masks need a Discrete or MultiDiscrete action space, got {}".format(action_space))


def env_has_action_masks(env: Any) -> bool:
    """
    Whether an environment defines an ``action_masks`` method (a VecEnv: its environments, through all wrappers
    and worker processes). The method is not called here: a mask that exists only once the env has been reset
    counts, and an error the method raises reaches the user when the model calls it.

    :param env: (VecEnv or gymnasium.Env or None) the environment
    :return: (bool)
    """
    return env_has_attr(env, METHOD_NAME)


def checked_masks(masks: Any, n_rows: int, width: int) -> np.ndarray:
    """
    :param masks: (array_like) masks of a batch of observations, or of one (then ``n_rows`` is 1)
    :param n_rows: (int) the number of observations
    :param width: (int) entries of one mask
    :return: (np.ndarray) the masks as bool, shape (n_rows, width)
    :raises ValueError: when the shape does not fit, or a row allows no action of some sub-space
    """
    array = np.asarray(masks)
    if array.size != n_rows * width:
        raise ValueError("Expected action masks of shape ({}, {}) (one bool per action for each observation), "
                         "got shape {}".format(n_rows, width, array.shape))
    return array.reshape(n_rows, width).astype(bool)


def env_action_masks(env: Any, width: int) -> np.ndarray:
    """
    The current masks of every environment.

    :param env: (VecEnv or gymnasium.Env) the environment (a plain env gives one row)
    :param width: (int) entries of one mask
    :return: (np.ndarray) bool, shape (n_envs, width)
    """
    if isinstance(env, VecEnv):
        rows: Sequence[Any] = env.env_method(METHOD_NAME)
    else:
        rows = [call_env_method(env, METHOD_NAME)]
    return np.concatenate([checked_masks(row, 1, width) for row in rows])


def enable_masks(graph: Any) -> None:
    """
    Build the policies created from now on in ``graph`` with mask inputs.

    :param graph: (tf.Graph) the model's graph
    """
    _MASKED_GRAPHS.add(graph)


def masks_enabled(graph: Any) -> bool:
    """
    :param graph: (tf.Graph) a graph
    :return: (bool) whether its policies are built with mask inputs
    """
    return graph in _MASKED_GRAPHS


def _sub_space_sizes(action_space: spaces.Space) -> List[int]:
    if isinstance(action_space, spaces.MultiDiscrete):
        return [int(count) for count in np.asarray(action_space.nvec).ravel()]
    return [mask_width(action_space)]


def masked_probabilities(action_space: spaces.Space, probabilities: Any, masks: np.ndarray) -> Any:
    """
    Restrict action probabilities to the allowed actions and renormalise them.

    :param action_space: (gym.spaces.Space) Discrete or MultiDiscrete
    :param probabilities: (np.ndarray or [np.ndarray]) the probabilities (one array per sub-space of a
        MultiDiscrete space), each of shape (n_rows, n)
    :param masks: (np.ndarray) bool masks, shape (n_rows, mask width)
    :return: (np.ndarray or [np.ndarray]) the masked probabilities, in the same layout
    """
    parts = probabilities if isinstance(probabilities, list) else [probabilities]
    result = []
    first = 0
    for size, part in zip(_sub_space_sizes(action_space), parts):
        allowed = masks[:, first:first + size]
        first += size
        if not allowed.any(axis=1).all():
            raise ValueError("Each observation's action mask must allow at least one action of every sub-space")
        kept = np.where(allowed, np.asarray(part, dtype=np.float64), 0.0)
        totals = kept.sum(axis=1, keepdims=True)
        # an allowed action the network gives probability 0 underflowed: spread the mass over the allowed ones
        kept = np.where(totals > 0, kept, allowed.astype(np.float64))
        result.append(kept / kept.sum(axis=1, keepdims=True))
    return result if isinstance(probabilities, list) else result[0]


def masked_actions(action_space: spaces.Space, probabilities: Any, masks: np.ndarray, deterministic: bool,
                   rng: Optional[np.random.Generator] = None) -> np.ndarray:
    """
    Actions chosen among the allowed ones: the most likely (``deterministic``) or drawn from the masked
    distribution.

    :param action_space: (gym.spaces.Space) Discrete or MultiDiscrete
    :param probabilities: (np.ndarray or [np.ndarray]) the unmasked probabilities (see
        :func:`masked_probabilities`)
    :param masks: (np.ndarray) bool masks, shape (n_rows, mask width)
    :param deterministic: (bool) take the most likely allowed action
    :param rng: (np.random.Generator) the generator of the draws (None: NumPy's global one)
    :return: (np.ndarray) the actions, shape (n_rows,) or (n_rows, n sub-spaces)
    """
    parts = masked_probabilities(action_space, probabilities, masks)
    columns = []
    for part in (parts if isinstance(parts, list) else [parts]):
        if deterministic:
            columns.append(np.argmax(part, axis=1))
            continue
        uniforms = rng.random(len(part)) if rng is not None else np.random.random_sample(len(part))
        cumulative = np.cumsum(part, axis=1)
        # the first action whose cumulative probability exceeds the draw: never one of probability 0
        columns.append((cumulative <= uniforms[:, None] * cumulative[:, -1:]).sum(axis=1))
    if isinstance(action_space, spaces.Discrete):
        return columns[0].astype(np.int64)
    return np.stack(columns, axis=1).astype(np.int64)
