"""
What an environment hands to a model during training, checked where it enters the collectors (the on-policy
rollout, the segment generator of PPO1/TRPO/GAIL, the off-policy loop): observations that do not fit the declared
observation space, and rewards that are not finite, end in an error naming what was expected and what was given.
"""
import math
from typing import Any, Tuple

import numpy as np
from gymnasium import spaces

_VEC_CHECK_NAN = ("wrap the env in stable_baselines.common.vec_env.VecCheckNan(env, raise_exception=True) to find "
                  "where it comes from")


def check_observation(obs: Any, space: spaces.Space, source: str, batched: bool = False) -> None:
    """
    Raise a ValueError when ``obs`` does not fit ``space``: not numbers, another shape, or (Discrete,
    MultiDiscrete, MultiBinary) values outside the space. Dict and Tuple observations are checked where they are
    packed.

    :param obs: (Any) the observation (``batched``: one row per environment)
    :param space: (gym.spaces.Space) the observation space of the model
    :param source: (str) where it comes from, for the message (``"reset()"``, ``"step()"``)
    :param batched: (bool) whether ``obs`` holds one observation per environment
    """
    if isinstance(space, (spaces.Dict, spaces.Tuple)):
        return
    discrete = isinstance(space, (spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary))
    if isinstance(obs, (int, np.integer)) and not isinstance(obs, bool) and isinstance(space, spaces.Discrete):
        low, high = value_bounds(space)
        if not low <= obs <= high:
            raise ValueError("The environment returned an observation {} from {} outside the observation space {} "
                             "(values from {} to {})".format(obs, source, space, low, high))
        return
    array = np.asarray(obs)
    if array.dtype.kind not in "biuf":
        raise ValueError("The environment returned an observation of dtype {} from {} ({}), but the observation space "
                         "{} holds numbers".format(array.dtype, source, _short(array), space))
    shape = array.shape[1:] if batched else array.shape
    if space.shape is not None and shape != tuple(space.shape):
        raise ValueError("The environment returned an observation of shape {} from {}, but the observation space {} "
                         "expects shape {}".format(shape, source, space, tuple(space.shape)))
    if not discrete or not array.size:
        return
    low, high = value_bounds(space)
    if isinstance(low, np.ndarray):  # per component: one row per observation
        flat = array.reshape(-1, low.size)
        outside = bool(np.any(flat < low) or np.any(flat > high))
    else:
        outside = bool(array.min() < low or array.max() > high)
    if outside:
        raise ValueError("The environment returned an observation {} from {} outside the observation space {} "
                         "(values from {} to {})".format(_short(array), source, space, _listed(low),
                                                         _listed(high)))


def value_bounds(space: spaces.Space) -> Tuple[Any, Any]:
    """
    :param space: (gymnasium.spaces.Space) a Discrete, MultiDiscrete or MultiBinary space
    :return: (int or np.ndarray, int or np.ndarray) the smallest and largest allowed value (per component)
    """
    if isinstance(space, spaces.Discrete):
        return int(space.start), int(space.start) + int(space.n) - 1
    if isinstance(space, spaces.MultiDiscrete):
        low = np.asarray(space.start).ravel() if hasattr(space, "start") else np.zeros(len(space.nvec), dtype=int)
        return low, low + np.asarray(space.nvec).ravel() - 1
    return 0, 1


def allowed_values(space: spaces.Space) -> Tuple[Any, Any, str]:
    """
    :param space: (gymnasium.spaces.Space) a Discrete, MultiDiscrete or MultiBinary space
    :return: (int or np.ndarray, int or np.ndarray, str) :func:`value_bounds`, and the values in words
    """
    low, high = value_bounds(space)
    if isinstance(space, spaces.Discrete):
        return low, high, "an integer from {} to {}".format(low, high)
    if isinstance(space, spaces.MultiDiscrete):
        return low, high, "integers from {} to {} (nvec={})".format(low.tolist(), high.tolist(),
                                                                    np.asarray(space.nvec).ravel().tolist())
    return low, high, "0 or 1 in each component"


def _listed(bound: Any) -> Any:
    return bound.tolist() if isinstance(bound, np.ndarray) else bound


def check_rewards_finite(rewards: Any, num_timesteps: int) -> None:
    """
    Raise a RuntimeError when a reward is NaN or infinite: trained on, it would make every parameter NaN.

    :param rewards: (float or np.ndarray) the rewards of one step (one per environment)
    :param num_timesteps: (int) the timestep reached, for the message
    """
    if isinstance(rewards, float):
        finite = math.isfinite(rewards)
    else:
        finite = bool(np.isfinite(rewards).all())
    if not finite:
        raise RuntimeError("The environment returned a reward that is not finite ({}) at timestep {}: training on it "
                           "would make the model's parameters NaN; {}".format(_short(np.asarray(rewards)),
                                                                              num_timesteps, _VEC_CHECK_NAN))


def _short(array: np.ndarray, limit: int = 120) -> str:
    text = np.array2string(array.ravel(), threshold=8) if array.ndim else repr(array.item())
    return text if len(text) <= limit else text[:limit] + "..."
