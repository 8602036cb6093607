"""DummyVecEnv: the environments take their steps one after the other, in this process."""
from collections import OrderedDict
from copy import deepcopy
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from stable_baselines.common import gym_compat
from stable_baselines.common.vec_env.base_vec_env import (VecEnv, VecEnvActions, VecEnvIndices, VecEnvObs,
                                                          VecEnvStepReturn, actions_per_env, render_env)
from stable_baselines.common.vec_env.single_env import (call_env_method, check_same_spaces, get_env_attr,
                                                        has_env_attr, make_vec_env_member, random_seed, seed_env, set_env_attr,
                                                        step_env_auto_reset)
from stable_baselines.common.vec_env.util import copy_obs_dict, dict_to_obs, obs_entry, obs_space_info


class DummyVecEnv(VecEnv):
    """
    A VecEnv without parallelism: each call visits the environments in turn, in the current process.
    For cheap environments (CartPole and the like) this beats running them in subprocesses, whose
    communication costs more than the step itself; it is also the way to give a single environment to
    an algorithm that needs a VecEnv.

    Environments may follow the gymnasium API or the legacy gym API (``reset()`` returning only the observation,
    ``step()`` returning 4 values); both are adapted by ``stable_baselines.common.gym_compat``.

    :param env_fns: ([callable]) functions without arguments, each returning a new environment
    """

    def __init__(self, env_fns: List[Callable[[], Any]]) -> None:
        if callable(env_fns) or not hasattr(env_fns, "__len__") or len(env_fns) == 0:
            raise TypeError("DummyVecEnv expected a non-empty list of functions that create environments "
                            "(e.g. [lambda: env]), got {!r}".format(env_fns))
        self.envs = [make_vec_env_member(env_fn, index) for index, env_fn in enumerate(env_fns)]
        check_same_spaces([(env.observation_space, env.action_space) for env in self.envs])
        first = self.envs[0]
        VecEnv.__init__(self, len(env_fns), first.observation_space, first.action_space)
        self.keys, shapes, dtypes = obs_space_info(self.observation_space)
        n_envs = self.num_envs
        # one buffer per part of the observation (a single part, key None, for plain spaces)
        self.buf_obs = OrderedDict((key, np.zeros((n_envs,) + tuple(shapes[key]), dtype=dtypes[key]))
                                   for key in self.keys)
        self.buf_dones = np.zeros((n_envs,), dtype=bool)
        self.buf_rews = np.zeros((n_envs,), dtype=np.float32)
        self.buf_infos: List[Dict[str, Any]] = [{} for _ in range(n_envs)]
        self.reset_infos: List[Dict[str, Any]] = [{} for _ in range(n_envs)]
        self.actions: Optional[VecEnvActions] = None
        self.metadata = first.metadata
        self._seeds: List[Optional[int]] = [None] * n_envs

    def step_async(self, actions: VecEnvActions) -> None:
        self.actions = actions_per_env(actions, self.num_envs, "DummyVecEnv")

    def step_wait(self) -> VecEnvStepReturn:
        actions = self.actions
        if actions is None:
            raise RuntimeError("DummyVecEnv.step_wait() called without a pending step_async(actions)")
        plain = self._single_obs_buf
        plain_shape = None if plain is None else plain.shape[1:]
        buf_rews, buf_infos = self.buf_rews, self.buf_infos
        dones = []  # bools (step_env_auto_reset makes them so), written to their buffer at once
        for index, env in enumerate(self.envs):
            obs, reward, done, info = step_env_auto_reset(env, actions[index])
            buf_rews[index] = reward
            dones.append(done)
            buf_infos[index] = info
            # the common case (an array of the expected shape) is copied straight into the buffer
            exact = type(obs) is np.ndarray  # noqa: E721
            if plain is not None and exact and obs.shape == plain_shape and obs.dtype.kind in "biuf":
                plain[index] = obs
            else:
                self._save_obs(index, obs)
        self.buf_dones[:] = dones
        self.actions = None
        infos = [deepcopy(info) if info else {} for info in buf_infos]
        return self._obs_from_buf(), buf_rews.copy(), self.buf_dones.copy(), infos

    def seed(self, seed: Optional[int] = None) -> List[Any]:
        if seed is None:
            seed = random_seed()
        reported = []
        for index, env in enumerate(self.envs):
            result, self._seeds[index] = seed_env(env, seed + index)
            reported.append(result)
        return reported

    def reset(self) -> VecEnvObs:
        for index, env in enumerate(self.envs):
            obs, self.reset_infos[index] = gym_compat.reset_env(env, seed=self._seeds[index])
            self._save_obs(index, obs)
        self._seeds = [None] * self.num_envs
        return self._obs_from_buf()

    def close(self) -> None:
        for env in self.envs:
            env.close()

    def get_images(self) -> Sequence[np.ndarray]:
        return [render_env(env, 'rgb_array') for env in self.envs]

    def render(self, mode: str = 'human') -> Any:
        """
        With one environment, its own render is called with ``mode`` (so any mode it knows works);
        with several, their images are tiled by :meth:`VecEnv.render`.

        :param mode: (str) the render mode
        """
        if self.num_envs > 1:
            return super().render(mode=mode)
        return render_env(self.envs[0], mode)

    def _save_obs(self, env_idx: int, obs: Any) -> None:
        for key in self.keys:
            buffer = self.buf_obs[key]
            value = np.asarray(obs_entry(obs, key))
            expected = buffer.shape[1:]
            part = "" if key is None else " [{!r}]".format(key)
            if value.dtype.kind not in "biuf" and buffer.dtype.kind in "biuf":
                raise ValueError("Environment {} returned an observation{} of dtype {}, but the observation space {} "
                                 "holds numbers ({})".format(env_idx, part, value.dtype, self.observation_space,
                                                             buffer.dtype))
            if value.shape != expected:
                if value.size != int(np.prod(expected)):
                    raise ValueError("Environment {} returned an observation{} of shape {}, but the observation space "
                                     "{} expects shape {}".format(env_idx, part, value.shape, self.observation_space,
                                                                  expected))
                value = value.reshape(expected)
            buffer[env_idx] = value

    @property
    def _single_obs_buf(self) -> Optional[np.ndarray]:
        """The observation buffer when the observation space is not a Dict/Tuple space (else None)."""
        return self.buf_obs[None] if self.keys == [None] else None

    def _obs_from_buf(self) -> VecEnvObs:
        plain = self._single_obs_buf
        if plain is not None:
            return np.copy(plain)
        return dict_to_obs(self.observation_space, copy_obs_dict(self.buf_obs))

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> List[Any]:
        return [get_env_attr(env, attr_name) for env in self._get_target_envs(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return has_env_attr(self.envs[0], attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        for env in self._get_target_envs(indices):
            set_env_attr(env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> List[Any]:
        return [call_env_method(env, method_name, *method_args, **method_kwargs)
                for env in self._get_target_envs(indices)]

    def _get_target_envs(self, indices: VecEnvIndices) -> List[Any]:
        return [self.envs[index] for index in self._get_indices(indices)]
