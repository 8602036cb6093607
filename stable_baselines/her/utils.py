"""
Goal-conditioned environments for HER: the check that an env is one, and :class:`HERGoalEnvWrapper`,
which flattens its ``Dict`` observation into one vector (and back) so that the off-policy models can use it.
The ``observation`` entry may itself be a Dict or Tuple space (nested too): it is then packed as
:mod:`stable_baselines.common.structured_obs` packs observations (every entry flattened, side by side).

gymnasium has no ``GoalEnv`` class. An env is goal-conditioned when its observation space is a ``Dict``
with the keys ``observation``, ``achieved_goal`` and ``desired_goal`` and it has a method
``compute_reward(achieved_goal, desired_goal, info)``.
"""
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Callable, Dict, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from stable_baselines.common.gym_compat import as_gymnasium_env, convert_space, reset_env, seed_on_next_reset, step_env
from stable_baselines.common.structured_obs import (add_batch_axis, is_batch, is_structured_space, map_entries,
                                                    pack_batch, packed_width, unpack_rows)
from stable_baselines.common.vec_env import VecEnv, env_has_attr
from stable_baselines.common.vec_env.single_env import get_env_attr

# The order of the parts in the flattened observation
KEY_ORDER = ["observation", "achieved_goal", "desired_goal"]

_SUPPORTED = (spaces.Box, spaces.MultiBinary, spaces.Discrete)


def _find_compute_reward(env: Any) -> Optional[Callable]:
    """
    :param env: (Any) an environment, maybe inside gymnasium wrappers (which no longer forward attributes), or
        the one-env VecEnv of a model (whose ``compute_reward`` asks the env it holds)
    :return: (callable or None) the env's ``compute_reward`` method
    """
    if not env_has_attr(env, "compute_reward"):
        return None
    method = getattr(env, "compute_reward", None) if isinstance(env, VecEnv) else get_env_attr(env, "compute_reward")
    return method if callable(method) else None


def check_goal_observation_space(observation_space: Any) -> spaces.Dict:
    """
    Check that an observation space is the ``Dict`` of a goal-conditioned env.

    :param observation_space: (gymnasium.spaces.Space) the observation space
    :return: (gymnasium.spaces.Dict) the space (converted to gymnasium)
    """
    observation_space = convert_space(observation_space)
    if not isinstance(observation_space, spaces.Dict):
        raise ValueError("HER needs a goal-conditioned environment: its observation space must be a Dict with the "
                         "keys {}, got {}".format(", ".join(repr(key) for key in KEY_ORDER), observation_space))
    missing = [key for key in KEY_ORDER if key not in observation_space.spaces]
    if missing:
        raise ValueError("HER needs a goal-conditioned environment: the Dict observation space lacks the key(s) {} "
                         "(expected {}, got {})".format(", ".join(repr(key) for key in missing),
                                                       ", ".join(repr(key) for key in KEY_ORDER),
                                                       list(observation_space.spaces.keys())))
    return observation_space


def check_goal_env(env: Any) -> Callable:
    """
    Check that ``env`` is goal-conditioned (the ``gym.GoalEnv`` interface): a ``Dict`` observation space with
    the keys ``observation``, ``achieved_goal``, ``desired_goal`` and a method
    ``compute_reward(achieved_goal, desired_goal, info)``. Raise a ValueError naming what is missing.

    :param env: (Any) the environment
    :return: (callable) the env's ``compute_reward``
    """
    if not hasattr(env, "observation_space"):
        raise ValueError("HER needs a goal-conditioned environment with an observation_space, got {!r}".format(env))
    check_goal_observation_space(env.observation_space)
    method = _find_compute_reward(env)
    if method is None:
        raise ValueError("HER needs a goal-conditioned environment: {!r} has no method "
                         "compute_reward(achieved_goal, desired_goal, info)".format(env))
    return method


def _part_size(key: str, part: spaces.Space) -> int:
    """
    :param key: (str) which part of the goal observation (for the message)
    :param part: (spaces.Box or spaces.MultiBinary) its space
    :return: (int) the number of values it holds (NotImplementedError unless one-dimensional)
    """
    size: Any = part.n if isinstance(part, spaces.MultiBinary) else part.shape
    shape = tuple(np.atleast_1d(size).tolist())
    if len(shape) == 2 and shape[1] == 1:
        shape = shape[:1]
    if len(shape) != 1:
        raise NotImplementedError("HERGoalEnvWrapper supports 1D observation and goal spaces only, got "
                                  "shape {} for {}".format(shape, key))
    return int(shape[0])


def _concatenated_box(parts: list) -> spaces.Box:
    """
    :param parts: ([spaces.Box]) the spaces of observation, achieved_goal and desired_goal
    :return: (spaces.Box) the float32 space of their concatenation, bounds included
    """
    low = np.concatenate([np.asarray(part.low, dtype=np.float64).reshape(-1) for part in parts])
    high = np.concatenate([np.asarray(part.high, dtype=np.float64).reshape(-1) for part in parts])
    return spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)


class GoalObservationLayout(object):
    """
    How the three parts of a goal-conditioned ``Dict`` observation are laid out in one flat vector
    (``observation``, ``achieved_goal``, ``desired_goal``, in this order). The achieved goal is kept in the
    flat vector so that the transformation can be inverted.

    - ``MultiBinary`` parts give ``MultiBinary(obs_dim + 2 * goal_dim)``;
    - ``Box`` parts give a float32 ``Box`` with the concatenated bounds;
    - ``Discrete`` parts give ``MultiDiscrete([n_obs, n_achieved, n_desired])``;
    - a Dict or Tuple ``observation`` (with Box or MultiBinary goals) gives a float32 ``Box``: the packed
      observation row (unbounded) followed by the goals.

    :param observation_space: (gymnasium.spaces.Dict) the goal-conditioned observation space
    """

    def __init__(self, observation_space: spaces.Dict) -> None:
        observation_space = check_goal_observation_space(observation_space)
        self.dict_space = observation_space
        parts = [observation_space.spaces[key] for key in KEY_ORDER]
        # the Dict or Tuple space of the observation part when it is one (packed into the flat vector)
        self.structured_space: Optional[spaces.Space] = parts[0] if is_structured_space(parts[0]) else None
        if self.structured_space is not None:
            parts[0] = spaces.Box(-np.inf, np.inf, (packed_width(self.structured_space),), np.float32)
        kinds = {type(part) for part in (parts[1:] if self.structured_space is not None else parts)}
        if len(kinds) != 1:
            raise ValueError("HERGoalEnvWrapper needs the spaces of observation, achieved_goal and desired_goal to "
                             "be of the same type, got {}".format(
                                 ", ".join("{}: {}".format(key, part) for key, part in zip(KEY_ORDER, parts))))
        first = parts[-1]
        if self.structured_space is not None and not isinstance(first, (spaces.Box, spaces.MultiBinary)):
            raise NotImplementedError("HERGoalEnvWrapper supports a Dict or Tuple observation with Box or MultiBinary "
                                      "goal spaces only, got {}".format(first))
        if not isinstance(first, _SUPPORTED):
            raise NotImplementedError("HERGoalEnvWrapper supports Box, MultiBinary and Discrete goal spaces, got {}"
                                      .format(first))
        self.discrete = isinstance(first, spaces.Discrete)
        self.flat_space: spaces.Space
        self.dtype: np.dtype
        if self.discrete:
            self.obs_dim, self.goal_dim = 1, 1
            sizes = [int(part.n) for part in parts if isinstance(part, spaces.Discrete)]
            self.flat_space = spaces.MultiDiscrete(np.array(sizes, dtype=np.int64))
            self.dtype = np.dtype(np.int64)
            return
        sizes = [_part_size(key, part) for key, part in zip(KEY_ORDER, parts)]
        if sizes[1] != sizes[2]:
            raise ValueError("achieved_goal and desired_goal must have the same size, got {} and {}"
                             .format(sizes[1], sizes[2]))
        self.obs_dim, self.goal_dim = sizes[0], sizes[1]
        if self.structured_space is not None:
            goal_bounds = [(part.low, part.high) if isinstance(part, spaces.Box) else (np.zeros(size), np.ones(size))
                           for part, size in zip(parts[1:], sizes[1:])]
            self.flat_space = _concatenated_box([parts[0]] + [spaces.Box(np.asarray(low, np.float32).reshape(-1),
                                                                         np.asarray(high, np.float32).reshape(-1),
                                                                         dtype=np.float32)
                                                              for low, high in goal_bounds])
        elif isinstance(first, spaces.MultiBinary):
            self.flat_space = spaces.MultiBinary(self.total_dim)
        else:
            self.flat_space = _concatenated_box(parts)
        self.dtype = np.dtype(self.flat_space.dtype)

    @property
    def total_dim(self) -> int:
        """int: the length of the flat vector"""
        return self.obs_dim + 2 * self.goal_dim

    def convert_dict_to_obs(self, obs_dict: Mapping) -> np.ndarray:
        """
        :param obs_dict: (dict<np.ndarray>) one observation, or a batch (leading dimension) of them
        :return: (np.ndarray) the flat vector(s)
        """
        if not isinstance(obs_dict, Mapping):
            raise TypeError("Expected a dict observation with the keys {}, got {!r}".format(KEY_ORDER, obs_dict))
        missing = [key for key in KEY_ORDER if key not in obs_dict]
        if missing:
            raise ValueError("The dict observation lacks the key(s) {} (expected {}, got {})"
                             .format(missing, KEY_ORDER, list(obs_dict.keys())))
        if self.structured_space is not None:
            return self._flatten_structured(obs_dict)
        values = [np.asarray(obs_dict[key]) for key in KEY_ORDER]
        if self.discrete:
            return self._flatten_discrete(values)
        batched = values[0].ndim > 1 or (values[0].ndim == 1 and values[0].size != self.obs_dim) or \
            values[1].ndim > 2 or (values[1].ndim == 2 and values[1].shape[-1] != 1)
        n_batch = (values[0].shape[0] if values[0].ndim > 0 else 1) if batched else None
        for key, value in zip(KEY_ORDER, values):
            self._check_part(key, value, n_batch)
        if n_batch is not None:
            flat = np.concatenate([value.reshape(n_batch, -1) for value in values], axis=-1)
        else:
            flat = np.concatenate([value.reshape(-1) for value in values])
        return flat.astype(self.dtype, copy=False)

    def _flatten_structured(self, obs_dict: Mapping) -> np.ndarray:
        """:return: (np.ndarray) the packed observation part followed by the goals, for one observation or a batch"""
        space = self.structured_space
        assert space is not None, "only for a structured observation part"
        observation = obs_dict["observation"]
        batched = is_batch(observation, space)
        rows = pack_batch(observation if batched else add_batch_axis(observation, space), space)
        n_batch = len(rows) if batched else None
        goals = [np.asarray(obs_dict[key]) for key in KEY_ORDER[1:]]
        for key, value in zip(KEY_ORDER[1:], goals):
            self._check_part(key, value, n_batch)
        flat = np.concatenate([rows] + [value.reshape(len(rows), -1) for value in goals], axis=-1)
        return (flat if batched else flat[0]).astype(self.dtype, copy=False)

    def _width(self, key: str) -> int:
        """
        :param key: (str) one of KEY_ORDER
        :return: (int) how many values that part holds in one observation
        """
        return self.obs_dim if key == "observation" else self.goal_dim

    def _check_part(self, key: str, value: np.ndarray, n_batch: Optional[int]) -> None:
        """
        Raise a ValueError naming the expected and the given shape when one part of a dict observation has
        the wrong number of values.

        :param key: (str) the part
        :param value: (np.ndarray) its value
        :param n_batch: (int) the batch size (None for a single observation)
        """
        width = self._width(key)
        if n_batch is None:
            fits = value.size == width
        else:
            fits = value.ndim > 0 and value.shape[0] == n_batch and value.size == n_batch * width
        if not fits:
            batch = "" if n_batch is None or key == "observation" else \
                " (the batch of 'observation' has {} rows)".format(n_batch)
            raise ValueError("The dict observation's {!r} must hold {} values: shape ({},), or (n_batch, {}) for a "
                             "batch; got shape {}{}".format(key, width, width, width, value.shape, batch))

    def _flatten_discrete(self, values: list) -> np.ndarray:
        """
        :param values: ([np.ndarray]) the three integer parts: 0-d for one observation, 1-D for a batch
        :return: (np.ndarray) the vector [observation, achieved_goal, desired_goal], or one row per observation
        """
        if all(value.ndim == 0 for value in values):
            return np.array([int(value) for value in values], dtype=self.dtype)
        sizes = [value.size for value in values]
        if any(value.ndim > 1 for value in values) or len(set(sizes)) != 1:
            raise ValueError("The dict observation's parts must be integers, or 1-D arrays of the same length for a "
                             "batch; got shapes {}".format({key: value.shape for key, value in zip(KEY_ORDER, values)}))
        return np.stack(values, axis=-1).astype(self.dtype)

    def convert_obs_to_dict(self, observations: np.ndarray) -> "OrderedDict[str, Any]":
        """
        Split flat observations into their three parts (undoes :meth:`convert_dict_to_obs`).

        :param observations: (np.ndarray) one flat vector, or a batch of them
        :return: (OrderedDict<np.ndarray>) observation, achieved_goal and desired_goal
        """
        observations = np.asarray(observations)
        if observations.shape[-1:] != (self.total_dim,):
            raise ValueError("Expected a flat observation of length {} (or a batch of them), got shape {}"
                             .format(self.total_dim, observations.shape))
        start_goal = self.obs_dim
        start_desired = self.obs_dim + self.goal_dim
        parts = [observations[..., :start_goal], observations[..., start_goal:start_desired],
                 observations[..., start_desired:]]
        if self.structured_space is not None:
            rows = observations.reshape(-1, self.total_dim)
            observation = unpack_rows(rows[:, :start_goal], self.structured_space)
            if observations.ndim == 1:
                observation = map_entries(lambda values: values[0], observation)
            return OrderedDict([("observation", observation)] + [(key, part.copy())
                                                                 for key, part in zip(KEY_ORDER[1:], parts[1:])])
        if self.discrete:
            if observations.ndim == 1:
                return OrderedDict((key, int(part[0])) for key, part in zip(KEY_ORDER, parts))
            return OrderedDict((key, part[..., 0].copy()) for key, part in zip(KEY_ORDER, parts))
        return OrderedDict((key, part.copy()) for key, part in zip(KEY_ORDER, parts))


class HERGoalEnvWrapper(gymnasium.Env):
    """
    Presents a goal-conditioned env to the off-policy models with flat observations: the ``observation``,
    ``achieved_goal`` and ``desired_goal`` parts, which must all be spaces of one type, are concatenated in
    that order, and can be split again with :meth:`convert_obs_to_dict`.

    Whatever the API of the wrapped env, this wrapper speaks gymnasium's (``reset(seed=None, options=None)
    -> (obs, info)`` and ``step(action) -> (obs, reward, terminated, truncated, info)``).

    :param env: (gym.GoalEnv) an env with a Dict observation space holding the keys observation,
        achieved_goal and desired_goal, and a method compute_reward(achieved_goal, desired_goal, info)
    """

    def __init__(self, env: Any) -> None:
        super().__init__()
        if not hasattr(env, "venv"):
            env = as_gymnasium_env(env)
        self._compute_reward = check_goal_env(env)
        self.env = env
        self.metadata = getattr(env, "metadata", {}) or {}
        self.render_mode = getattr(env, "render_mode", None)
        self.action_space = convert_space(env.action_space)
        self.layout = GoalObservationLayout(env.observation_space)
        # the goal-conditioned Dict space of the wrapped env
        self.dict_observation_space = self.layout.dict_space
        self.spaces = [self.dict_observation_space.spaces[key] for key in KEY_ORDER]
        self.obs_dim = self.layout.obs_dim
        self.goal_dim = self.layout.goal_dim
        self.observation_space = self.layout.flat_space

    def convert_dict_to_obs(self, obs_dict: Mapping) -> np.ndarray:
        """
        Concatenate the parts of a dict observation (or of a dict of batches).

        :param obs_dict: (dict<np.ndarray>) observation, achieved_goal and desired_goal
        :return: (np.ndarray) the flat vector, or one row per observation of a batch
        """
        return self.layout.convert_dict_to_obs(obs_dict)

    def convert_obs_to_dict(self, observations: np.ndarray) -> "OrderedDict[str, Any]":
        """
        Split a flat observation (or a batch) into its parts; the inverse of :meth:`convert_dict_to_obs`.

        :param observations: (np.ndarray) one flat vector, or a batch of them
        :return: (OrderedDict<np.ndarray>) observation, achieved_goal and desired_goal
        """
        return self.layout.convert_obs_to_dict(observations)

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        """
        :param action: the action
        :return: (np.ndarray, float, bool, bool, dict) flat observation, reward, terminated, truncated, info
        """
        obs, reward, terminated, truncated, info = step_env(self.env, action)
        if (terminated or truncated) and hasattr(self.env, "venv") and \
                isinstance(info, dict) and info.get("terminal_observation") is not None:
            # a VecEnv resets itself at the end of an episode: give the true last observation
            obs = info["terminal_observation"]
        return self.convert_dict_to_obs(obs), reward, terminated, truncated, info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[np.ndarray, dict]:
        """
        :param seed: (int) seed of the wrapped env (None: do not reseed)
        :param options: (dict) gymnasium reset options
        :return: (np.ndarray, dict) the flat first observation and the reset info
        """
        obs, info = reset_env(self.env, seed=seed, options=options)
        return self.convert_dict_to_obs(obs), info

    def seed(self, seed: Optional[int] = None) -> Any:
        """
        Seed the wrapped env (legacy ``seed()``; a gymnasium env at its next reset, as gym's ``seed()`` did).

        :param seed: (int)
        """
        if callable(getattr(self.env, "seed", None)):
            return self.env.seed(seed)
        if seed is not None:
            seed_on_next_reset(self.env, seed)
        return [seed]

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, info: Any) -> Any:
        """
        The reward of the wrapped env for the given goals.

        :param achieved_goal: (np.ndarray)
        :param desired_goal: (np.ndarray)
        :param info: (dict)
        :return: (float or np.ndarray)
        """
        return self._compute_reward(achieved_goal, desired_goal, info)

    def render(self, *args: Any, **kwargs: Any) -> Any:
        return self.env.render(*args, **kwargs)

    def close(self) -> None:
        if callable(getattr(self.env, "close", None)):
            self.env.close()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or "env" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.__dict__["env"], name)

    def __repr__(self) -> str:
        return "<HERGoalEnvWrapper{!r}>".format(self.env)
