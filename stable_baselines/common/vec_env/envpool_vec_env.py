"""
:class:`EnvPoolVecEnv`: the environments of `EnvPool <https://github.com/sail-sg/envpool>`_ (C++, stepped by a
thread pool) behind this library's VecEnv interface, for the ids EnvPool implements (Atari ``Pong-v5`` ...,
classic control ``CartPole-v1``, ``Pendulum-v1`` ...). EnvPool is optional (``pip install stable-baselines[envpool]``)
and is imported only when the class is instantiated.
"""
import importlib
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
from gymnasium import spaces

from stable_baselines.common.vec_env.base_vec_env import (VecEnv, VecEnvActions, VecEnvIndices, VecEnvObs,
                                                          VecEnvStepReturn)

#: the options that give EnvPool's Atari games the preprocessing of ``make_atari_env`` (``wrap_deepmind`` defaults);
#: EnvPool's own defaults already match the rest (noop_max 30, frame_skip 4, FIRE reset, 84x84 grey, INTER_AREA)
DEEPMIND_OPTIONS = {"episodic_life": True, "reward_clip": True}


def _import_envpool() -> Any:
    try:
        return importlib.import_module("envpool")
    except ImportError as err:
        raise ImportError("EnvPoolVecEnv needs the envpool package: pip install stable-baselines[envpool] "
                          "(importing it failed: {})".format(err)) from err


def _is_atari(envpool: Any, env_id: str) -> bool:
    spec = envpool.make_spec(env_id)
    return hasattr(spec.config, "stack_num") and hasattr(spec.config, "frame_skip")


def _channels_last(space: spaces.Box) -> spaces.Box:
    """The Box of ``(channels, height, width)`` images seen as ``(height, width, channels)``."""
    return spaces.Box(low=np.moveaxis(space.low, 0, -1), high=np.moveaxis(space.high, 0, -1), dtype=space.dtype)


class EnvPoolVecEnv(VecEnv):
    """
    ``n_envs`` copies of an EnvPool environment, stepped in C++ threads, with the VecEnv behaviour of
    :class:`DummyVecEnv`: an environment whose episode ends (terminated or truncated) is reset at once, its last
    observation goes to ``infos[i]["terminal_observation"]``, a truncation sets ``infos[i]["TimeLimit.truncated"]``.

    Atari ids (``Pong-v5``, ``Breakout-v5`` ...) come with EnvPool's DeepMind preprocessing: no-op starts
    (``noop_max=30``), ``frame_skip=4`` (max over the last two frames), FIRE at reset, 84x84 grey frames (OpenCV
    INTER_AREA), ``stack_num=4`` stacked frames; by default also ``episodic_life`` and ``reward_clip``
    (:data:`DEEPMIND_OPTIONS`), so one EnvPoolVecEnv stands for ``VecFrameStack(make_atari_env(...), 4)``.
    Images are given channel-last, ``(84, 84, 4)``, as ``CnnPolicy`` expects (``channels_last=False`` keeps
    EnvPool's ``(4, 84, 84)``). Differences from the Python wrappers: EnvPool's ``repeat_action_probability`` is 0
    and an episode is cut at ``max_episode_steps`` (27000 agent steps) by default; the emulator and the random
    streams are EnvPool's, so observations are not those of the Python stack for the same seed.

    :param env_id: (str) an EnvPool id (``envpool.list_all_envs()``)
    :param n_envs: (int) the number of environments
    :param seed: (int) the seed of the pool (EnvPool derives each environment's seed from it); None: 0
    :param channels_last: (bool) give image observations as ``(height, width, channels)``
    :param envpool_kwargs: options of ``envpool.make`` (e.g. ``episodic_life=False``, ``max_episode_steps=...``,
        ``num_threads=...``)
    """

    def __init__(self, env_id: str, n_envs: int = 1, seed: Optional[int] = None, channels_last: bool = True,
                 **envpool_kwargs: Any) -> None:
        if not isinstance(n_envs, (int, np.integer)) or n_envs < 1:
            raise ValueError("EnvPoolVecEnv expected n_envs >= 1, got {!r}".format(n_envs))
        self._envpool = _import_envpool()
        self.env_id = env_id
        self.is_atari = _is_atari(self._envpool, env_id)
        self.envpool_kwargs: Dict[str, Any] = dict(DEEPMIND_OPTIONS, **envpool_kwargs) if self.is_atari \
            else dict(envpool_kwargs)
        self._seed = 0 if seed is None else int(seed)
        self._pool = self._make_pool(int(n_envs))
        obs_space = self._pool.observation_space
        self._transpose = bool(channels_last and isinstance(obs_space, spaces.Box) and len(obs_space.shape) == 3)
        if self._transpose:
            obs_space = _channels_last(obs_space)
        self._actions: Optional[np.ndarray] = None
        super().__init__(int(n_envs), obs_space, self._pool.action_space)

    def _make_pool(self, n_envs: int) -> Any:
        return self._envpool.make(self.env_id, env_type="gymnasium", num_envs=n_envs, batch_size=n_envs,
                                  seed=self._seed, **self.envpool_kwargs)

    def _convert(self, obs: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.moveaxis(obs, 1, -1)) if self._transpose else obs

    def _in_env_order(self, obs: np.ndarray, info: Dict[str, Any]) -> np.ndarray:
        """EnvPool's rows sorted by environment index (``info["env_id"]``)."""
        order = np.argsort(info["env_id"])
        return obs if np.array_equal(order, np.arange(len(order))) else obs[order]

    def reset(self) -> VecEnvObs:
        obs, info = self._pool.reset()
        return self._convert(self._in_env_order(obs, info))

    def step_async(self, actions: VecEnvActions) -> None:
        actions = np.asarray(actions)
        if isinstance(self.action_space, spaces.Discrete):
            actions = actions.astype(np.int32).reshape(self.num_envs)
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("EnvPoolVecEnv.step_wait called without step_async")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, info = self._pool.step(actions, np.arange(self.num_envs,
                                                                                       dtype=np.int32))
        order = np.argsort(info["env_id"])
        obs, rewards, terminated, truncated = obs[order], rewards[order], terminated[order], truncated[order]
        dones = np.logical_or(terminated, truncated)
        infos: List[Dict[str, Any]] = [{} for _ in range(self.num_envs)]
        obs = self._convert(obs)
        finished = np.flatnonzero(dones)
        if len(finished) > 0:
            obs = obs.copy()
            for env_idx in finished:
                infos[env_idx]["terminal_observation"] = obs[env_idx].copy()
                if truncated[env_idx] and not terminated[env_idx]:
                    infos[env_idx]["TimeLimit.truncated"] = True
            first, first_info = self._pool.reset(finished.astype(np.int32))
            first = self._convert(first)
            obs[np.asarray(first_info["env_id"])] = first
        return obs, np.asarray(rewards, dtype=np.float32), dones, infos

    def seed(self, seed: Optional[int] = None) -> List[Optional[int]]:
        """
        Rebuild the pool with a new seed (EnvPool takes seeds only at construction); call ``reset`` next.

        :param seed: (int) the seed of the pool (None: 0)
        :return: ([int]) the seed, once per environment
        """
        self._pool.close()
        self._seed = 0 if seed is None else int(seed)
        self._pool = self._make_pool(self.num_envs)
        return [self._seed] * self.num_envs

    def close(self) -> None:
        self._pool.close()

    def _unsupported(self, what: str) -> AttributeError:
        return AttributeError("EnvPoolVecEnv runs its environments inside EnvPool (C++): {} is not available; "
                                   "the pool's settings are in env.envpool_kwargs".format(what))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> List[Any]:
        """
        Only ``"spec"`` (EnvPool's spec of the pool) can be read; other attributes live in C++.

        :param attr_name: (str) the attribute
        :param indices: (None, int, Iterable) the environments
        :return: ([Any]) the value for each environment asked for
        """
        if attr_name == "spec":
            return [self._pool.spec for _ in self._get_indices(indices)]
        raise self._unsupported("get_attr({!r})".format(attr_name))

    def has_attr(self, attr_name: str) -> bool:
        """:return: (bool) True for ``"spec"`` only: the pool's environments have no Python attributes"""
        return attr_name == "spec"

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise self._unsupported("set_attr({!r})".format(attr_name))

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> List[Any]:
        raise self._unsupported("env_method({!r})".format(method_name))

    def get_images(self) -> Sequence[np.ndarray]:
        raise NotImplementedError("EnvPoolVecEnv does not render (EnvPool gives no frames of its environments)")
