"""VecNormalize: running normalization of observations and rewards."""
import os
import pickle
import tempfile
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces

from stable_baselines.common.running_mean_std import RunningMeanStd
from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvWrapper


class VecNormalize(VecEnvWrapper):
    """
    A moving average, normalizing wrapper for vectorized environment.

    It is pickleable which will save moving averages and configuration parameters.
    The wrapped environment `venv` is not saved, and must be restored manually with
    `set_venv` after being unpickled.

    Observations are normalized as ``clip((obs - mean) / sqrt(var + epsilon), -clip_obs, clip_obs)``.
    Rewards are divided by the standard deviation of the discounted return
    (``ret = ret * gamma + reward``, reset to 0 at the end of each episode) and clipped to ``clip_reward``.
    The ``terminal_observation`` entries of the infos are left unnormalized.

    :param venv: (VecEnv) the vectorized environment to wrap
    :param training: (bool) Whether to update or not the moving average
    :param norm_obs: (bool) Whether to normalize observation or not (default: True)
    :param norm_reward: (bool) Whether to normalize rewards or not (default: True)
    :param clip_obs: (float) Max absolute value for observation
    :param clip_reward: (float) Max value absolute for discounted reward
    :param gamma: (float) discount factor
    :param epsilon: (float) To avoid division by zero
    """

    def __init__(self, venv: VecEnv, training: bool = True, norm_obs: bool = True, norm_reward: bool = True,
                 clip_obs: float = 10., clip_reward: float = 10., gamma: float = 0.99, epsilon: float = 1e-8):
        VecEnvWrapper.__init__(self, venv)
        if norm_obs and not isinstance(self.observation_space, spaces.Box):
            raise TypeError("VecNormalize(norm_obs=True) only supports Box observation spaces, got {} "
                            "(use norm_obs=False to normalize only the rewards)".format(self.observation_space))
        obs_shape = self.observation_space.shape if self.observation_space.shape is not None else ()
        self.obs_rms = RunningMeanStd(shape=obs_shape)
        self.ret_rms = RunningMeanStd(shape=())
        self.clip_obs = clip_obs
        self.clip_reward = clip_reward
        # Returns: discounted rewards
        self.ret = np.zeros(self.num_envs)
        self.gamma = gamma
        self.epsilon = epsilon
        self.training = training
        self.norm_obs = norm_obs
        self.norm_reward = norm_reward
        self.old_obs = None
        self.old_rews = None

    def __getstate__(self):
        """
        Gets state for pickling.

        Excludes self.venv, as in general VecEnv's may not be pickleable (and the spaces, which come back
        with set_venv)."""
        state = self.__dict__.copy()
        # these attributes are not pickleable or are restored by set_venv
        for key in ('venv', 'class_attributes', 'ret', 'observation_space', 'action_space'):
            state.pop(key, None)
        return state

    def __setstate__(self, state):
        """
        Restores pickled state.

        User must call set_venv() after unpickling before using.

        :param state: (dict)"""
        self.__dict__.update(state)
        if 'venv' in state:
            raise ValueError("A pickled VecNormalize must not contain its VecEnv")
        self.venv = None

    def set_venv(self, venv: VecEnv) -> None:
        """
        Sets the vector environment to wrap to venv.

        Also sets attributes derived from this such as `num_env`.

        :param venv: (VecEnv)
        """
        if self.__dict__.get('venv') is not None:
            raise ValueError("Trying to set venv of already initialized VecNormalize wrapper.")
        VecEnvWrapper.__init__(self, venv)
        obs_shape = tuple(self.observation_space.shape) if self.observation_space.shape is not None else ()
        if self.norm_obs and tuple(np.shape(self.obs_rms.mean)) != obs_shape:
            raise ValueError("The VecNormalize statistics are for observations of shape {} but the environment's "
                             "observation space has shape {}".format(tuple(np.shape(self.obs_rms.mean)), obs_shape))
        self.ret = np.zeros(self.num_envs)

    def step_wait(self):
        """
        Apply sequence of actions to sequence of environments
        actions -> (observations, rewards, news)

        where 'news' is a boolean vector indicating whether each element is new.
        """
        obs, rews, news, infos = self.venv.step_wait()
        self.old_obs = obs
        self.old_rews = rews

        if self.training and self.norm_obs:
            self.obs_rms.update(obs)
        obs = self.normalize_obs(obs)

        if self.training:
            self._update_reward(rews)
        rews = self.normalize_reward(rews)

        self.ret[np.asarray(news, dtype=bool)] = 0
        return obs, rews, news, infos

    def _update_reward(self, reward: np.ndarray) -> None:
        """Update reward normalization statistics."""
        self.ret = self.ret * self.gamma + reward
        self.ret_rms.update(self.ret)

    def normalize_obs(self, obs: np.ndarray) -> np.ndarray:
        """
        Normalize observations using this VecNormalize's observations statistics.
        Calling this method does not update statistics.
        """
        if self.norm_obs:
            obs = np.clip((obs - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + self.epsilon),
                          -self.clip_obs, self.clip_obs)
        return obs

    def normalize_reward(self, reward: np.ndarray) -> np.ndarray:
        """
        Normalize rewards using this VecNormalize's rewards statistics.
        Calling this method does not update statistics.
        """
        if self.norm_reward:
            reward = np.clip(reward / np.sqrt(self.ret_rms.var + self.epsilon),
                             -self.clip_reward, self.clip_reward)
        return reward

    def unnormalize_obs(self, obs: np.ndarray) -> np.ndarray:
        """
        Undo the observation normalization (clipped values stay clipped).

        :param obs: (np.ndarray) normalized observations
        :return: (np.ndarray)
        """
        if self.norm_obs:
            return (obs * np.sqrt(self.obs_rms.var + self.epsilon)) + self.obs_rms.mean
        return obs

    def unnormalize_reward(self, reward: np.ndarray) -> np.ndarray:
        """
        Undo the reward normalization (clipped values stay clipped).

        :param reward: (np.ndarray) normalized rewards
        :return: (np.ndarray)
        """
        if self.norm_reward:
            return reward * np.sqrt(self.ret_rms.var + self.epsilon)
        return reward

    def get_original_obs(self) -> np.ndarray:
        """
        Returns an unnormalized version of the observations from the most recent
        step or reset.
        """
        if self.old_obs is None:
            raise RuntimeError("get_original_obs(): no observation yet, call reset() first")
        return np.copy(self.old_obs)

    def get_original_reward(self) -> np.ndarray:
        """
        Returns an unnormalized version of the rewards from the most recent step.
        """
        if self.old_rews is None:
            raise RuntimeError("get_original_reward(): no reward yet, call step() first")
        return np.copy(self.old_rews)

    def reset(self):
        """
        Reset all environments
        """
        obs = self.venv.reset()
        self.old_obs = obs
        self.ret = np.zeros(self.num_envs)
        if self.training:
            self._update_reward(self.ret)
        return self.normalize_obs(obs)

    @staticmethod
    def load(load_path: str, venv: VecEnv) -> 'VecNormalize':
        """
        Loads a saved VecNormalize object.

        The file is read with the library's restricted unpickler: it never runs code from the file.

        :param load_path: the path to load from.
        :param venv: the VecEnv to wrap.
        :return: (VecNormalize)
        """
        from stable_baselines.common.safe_pickle import safe_load  # pylint: disable=import-outside-toplevel
        with open(load_path, "rb") as file_handler:
            vec_normalize = safe_load(file_handler)
        if not isinstance(vec_normalize, VecNormalize):
            raise TypeError("{} does not hold a VecNormalize object (found {})"
                            .format(load_path, type(vec_normalize).__name__))
        vec_normalize.set_venv(venv)
        return vec_normalize

    def save(self, save_path: str) -> None:
        """
        Save the VecNormalize object (statistics and configuration, not the wrapped VecEnv) with pickle.
        The file is written to a temporary file first, then renamed.

        :param save_path: (str) the path to save to
        """
        _atomic_pickle_dump(self, save_path)

    def save_running_average(self, path: str) -> None:
        """
        Save ``obs_rms.pkl`` and ``ret_rms.pkl`` in a folder.

        :param path: (str) path to log dir

        .. deprecated:: 2.9.0
            This function will be removed in a future version
        """
        warnings.warn("Usage of `save_running_average` is deprecated. Please "
                      "use `save` or pickle instead.", DeprecationWarning)
        for rms, name in zip([self.obs_rms, self.ret_rms], ['obs_rms', 'ret_rms']):
            _atomic_pickle_dump(rms, os.path.join(path, "{}.pkl".format(name)))

    def load_running_average(self, path: str) -> None:
        """
        Load ``obs_rms.pkl`` and ``ret_rms.pkl`` from a folder (as written by the original library or
        :meth:`save_running_average`). A missing ``ret_rms.pkl`` is tolerated (with a warning).

        :param path: (str) path to log dir

        .. deprecated:: 2.9.0
            This function will be removed in a future version
        """
        from stable_baselines.common.safe_pickle import safe_load  # pylint: disable=import-outside-toplevel
        warnings.warn("Usage of `load_running_average` is deprecated. Please "
                      "use `load` or pickle instead.", DeprecationWarning)
        for name in ['obs_rms', 'ret_rms']:
            file_path = os.path.join(path, "{}.pkl".format(name))
            if name == 'ret_rms' and not os.path.exists(file_path):
                warnings.warn("{} not found: keeping the current reward statistics".format(file_path))
                continue
            with open(file_path, 'rb') as file_handler:
                rms = safe_load(file_handler)
            if not all(hasattr(rms, attr) for attr in ('mean', 'var', 'count')):
                raise TypeError("{} does not hold running statistics (expected an object with mean, var and count, "
                                "got {})".format(file_path, type(rms).__name__))
            if name == 'obs_rms' and self.__dict__.get('venv') is not None and self.norm_obs:
                expected = tuple(self.observation_space.shape)
                if tuple(np.shape(rms.mean)) != expected:
                    raise ValueError("{} holds statistics of shape {} but the observation space has shape {}"
                                     .format(file_path, tuple(np.shape(rms.mean)), expected))
            setattr(self, name, rms)


def _atomic_pickle_dump(obj: Any, path: str) -> None:
    """Pickle ``obj`` to a temporary file in the destination folder, then rename it to ``path``."""
    folder = os.path.dirname(os.path.abspath(path))
    file_descriptor, tmp_path = tempfile.mkstemp(dir=folder, prefix=".tmp_", suffix=".pkl")
    try:
        with os.fdopen(file_descriptor, "wb") as file_handler:
            pickle.dump(obj, file_handler)
        os.chmod(tmp_path, 0o644)
        os.replace(tmp_path, path)
    except BaseException:
        if os.path.exists(tmp_path):
            os.remove(tmp_path)
        raise
