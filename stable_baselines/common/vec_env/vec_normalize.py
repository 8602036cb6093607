"""VecNormalize: running normalization of observations and rewards."""
import os
import pickle
import tempfile
import warnings
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional

import numpy as np
from gymnasium import spaces

from stable_baselines.common.running_mean_std import RunningMeanStd
from stable_baselines.common.safe_loading import limits, load_pickle
from stable_baselines.common.safe_loading.archive import read_whole
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.safe_loading.saved_objects import SavedVecNormalize
from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper


class VecNormalize(VecEnvWrapper):
    """
    Normalizes the observations and rewards of a vectorized environment with running statistics.

    An observation becomes ``clip((obs - mean) / sqrt(var + epsilon), -clip_obs, clip_obs)`` with the running mean
    and variance of the observations seen so far. A reward is divided by the running standard deviation of the
    discounted return (``ret = ret * gamma + reward``, set back to 0 when an episode ends) and clipped to
    ``clip_reward``. The ``terminal_observation`` entries of the infos stay as the environment gave them.

    :meth:`save` / :meth:`load` store the statistics and settings (never the wrapped environment); a pickled object
    gets its environment back through :meth:`set_venv`.

    :param venv: (VecEnv) the vectorized environment to wrap
    :param training: (bool) whether the statistics are updated with what the environment returns
    :param norm_obs: (bool) whether observations are normalized (default: True)
    :param norm_reward: (bool) whether rewards are normalized (default: True)
    :param clip_obs: (float) bound of the normalized observations' absolute values
    :param clip_reward: (float) bound of the normalized rewards' absolute values
    :param gamma: (float) discount factor of the return whose spread scales the rewards
    :param epsilon: (float) added to the variances before the square root, so that nothing is divided by zero
    :param norm_obs_keys: ([str]) with a Dict observation space: the keys (of Box entries) whose observations are
        normalized, each with its own statistics (None: every Box entry); the other entries pass unchanged
    """

    def __init__(self, venv: VecEnv, training: bool = True, norm_obs: bool = True, norm_reward: bool = True,
                 clip_obs: float = 10., clip_reward: float = 10., gamma: float = 0.99, epsilon: float = 1e-8,
                 norm_obs_keys: Optional[List[str]] = None) -> None:
        VecEnvWrapper.__init__(self, venv)
        # Dict spaces: the normalized keys (None for other spaces), obs_rms then maps each to its statistics
        self.norm_obs_keys = _normalized_keys(self.observation_space, norm_obs, norm_obs_keys)
        if norm_obs and self.norm_obs_keys is None and not isinstance(self.observation_space, spaces.Box):
            raise TypeError("VecNormalize(norm_obs=True) only supports Box observation spaces and Dict ones (per key), "
                            "got {} (use norm_obs=False to normalize only the rewards)".format(self.observation_space))
        self.obs_rms: Any = RunningMeanStd(shape=_shape_of(self.observation_space)) if self.norm_obs_keys is None \
            else {key: RunningMeanStd(shape=_shape_of(self.observation_space[key])) for key in self.norm_obs_keys}
        self.ret_rms = RunningMeanStd(shape=())
        self.clip_obs = clip_obs
        self.clip_reward = clip_reward
        self.ret = np.zeros(self.num_envs)  # the discounted return of each environment's current episode
        self.gamma = gamma
        self.epsilon = epsilon
        self.training = training
        self.norm_obs = norm_obs
        self.norm_reward = norm_reward
        # the last unnormalized observations and rewards (None before the first reset)
        self.old_obs: VecEnvObs = None
        self.old_rews: Optional[np.ndarray] = None

    def __getstate__(self) -> Dict[str, Any]:
        """
        :return: (dict) the statistics and settings; the wrapped environment (and what comes from it: spaces,
            running returns) is left out
        """
        state = dict(self.__dict__)
        for name in ('venv', 'class_attributes', 'ret', 'observation_space', 'action_space'):
            state.pop(name, None)
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        """
        Restore the statistics and settings of a pickled object (unknown attributes are refused); call
        :meth:`set_venv` before using it.

        :param state: (dict)
        """
        unknown = sorted(name for name in state if name not in _PICKLED_ATTRIBUTES)
        if unknown:
            raise ValueError("A pickled VecNormalize holds unexpected attributes: {}".format(", ".join(unknown)))
        self.__dict__.update(state)
        # the pickled state holds no environment: until set_venv, venv is None (typed VecEnv by VecEnvWrapper)
        self.venv = None  # type: ignore[assignment]

    def set_venv(self, venv: VecEnv) -> None:
        """
        Give an unpickled VecNormalize its environment (and what comes from it: number of environments, spaces).

        :param venv: (VecEnv)
        """
        if self.__dict__.get('venv') is not None:
            raise ValueError("set_venv: this VecNormalize is already initialized with an environment (set_venv is for "
                             "unpickled ones)")
        VecEnvWrapper.__init__(self, venv)
        self.check_statistics_shape()
        self.ret = np.zeros(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        """
        Step the environments, update the statistics (when training) and normalize.

        :return: ([float], [float], [bool], dict) observations, rewards, dones, infos
        """
        obs, rews, news, infos = self.venv.step_wait()
        self.old_obs, self.old_rews = obs, rews
        if self.training and self.norm_obs:
            self._update_obs_statistics(obs)
        if self.training:
            self._update_reward(rews)
        normalized = self.normalize_obs(obs), self.normalize_reward(rews)
        self.ret[np.asarray(news, dtype=bool)] = 0
        return normalized[0], normalized[1], news, infos

    def _update_obs_statistics(self, obs: Any) -> None:
        """Add a batch of observations to their running statistics (per normalized key for Dict spaces)."""
        if self.norm_obs_keys is None:
            self.obs_rms.update(obs)
            return
        for key in self.norm_obs_keys:
            self.obs_rms[key].update(obs[key])

    def _update_reward(self, reward: np.ndarray) -> None:
        """Add ``reward`` to the running discounted returns and their statistics."""
        self.ret = self.gamma * self.ret + reward
        self.ret_rms.update(self.ret)

    def normalize_obs(self, obs: VecEnvObs) -> VecEnvObs:
        """
        :param obs: (np.ndarray or dict) observations as the environment gives them
        :return: (np.ndarray or dict) the normalized observations (the statistics are not updated)
        """
        if not self.norm_obs:
            return obs
        if self.norm_obs_keys is not None:
            return _per_key(obs, self.norm_obs_keys, lambda key, values: np.clip(
                (values - self.obs_rms[key].mean) / np.sqrt(self.obs_rms[key].var + self.epsilon),
                -self.clip_obs, self.clip_obs))
        scaled = (obs - self.obs_rms.mean) / np.sqrt(self.obs_rms.var + self.epsilon)
        return np.clip(scaled, -self.clip_obs, self.clip_obs)

    def normalize_reward(self, reward: np.ndarray) -> np.ndarray:
        """
        :param reward: (np.ndarray) rewards as the environment gives them
        :return: (np.ndarray) the normalized rewards (the statistics are not updated)
        """
        if not self.norm_reward:
            return reward
        return np.clip(reward / np.sqrt(self.ret_rms.var + self.epsilon), -self.clip_reward, self.clip_reward)

    def unnormalize_obs(self, obs: VecEnvObs) -> VecEnvObs:
        """
        Undo the observation normalization (clipped values stay clipped).

        :param obs: (np.ndarray or dict) normalized observations
        :return: (np.ndarray or dict)
        """
        if self.norm_obs and self.norm_obs_keys is not None:
            return _per_key(obs, self.norm_obs_keys, lambda key, values: values * np.sqrt(
                self.obs_rms[key].var + self.epsilon) + self.obs_rms[key].mean)
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

    def get_original_obs(self) -> VecEnvObs:
        """
        :return: (np.ndarray or dict) a copy of the last observations (of ``step`` or ``reset``) before normalization
        """
        if self.old_obs is None:
            raise RuntimeError("get_original_obs(): no observation yet, call reset() first")
        if isinstance(self.old_obs, dict):
            return _per_key(self.old_obs, list(self.old_obs), lambda key, values: np.copy(values))
        return np.copy(self.old_obs)

    def get_original_reward(self) -> np.ndarray:
        """
        :return: (np.ndarray) a copy of the last rewards (of ``step``) before normalization
        """
        if self.old_rews is None:
            raise RuntimeError("get_original_reward(): no reward yet, call step() first")
        return np.copy(self.old_rews)

    def reset(self) -> VecEnvObs:
        """
        Reset every environment (and the running returns).

        :return: (np.ndarray) the normalized first observations
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
        Read the statistics and settings saved by :meth:`save` (or by the original library) and wrap ``venv`` with
        them. The file is read by :mod:`stable_baselines.common.safe_loading`: nothing from it is executed, and
        its fields are checked before a new VecNormalize is built.

        :param load_path: (str) the file
        :param venv: (VecEnv) the environment to wrap
        :return: (VecNormalize)
        """
        saved = _read_statistics_file(load_path, SavedVecNormalize, "VecNormalize")
        vec_normalize = VecNormalize(venv, **saved.settings)
        vec_normalize.obs_rms = saved.obs_rms
        vec_normalize.ret_rms = saved.ret_rms
        vec_normalize.check_statistics_shape()
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
        Write the statistics as ``obs_rms.pkl`` and ``ret_rms.pkl`` into a folder.

        :param path: (str) the folder

        .. deprecated:: 2.9.0
            use :meth:`save`
        """
        warnings.warn("Usage of `save_running_average` is deprecated. Please "
                      "use `save` or pickle instead.", DeprecationWarning)
        _atomic_pickle_dump(self.obs_rms, os.path.join(path, "obs_rms.pkl"))
        _atomic_pickle_dump(self.ret_rms, os.path.join(path, "ret_rms.pkl"))

    def load_running_average(self, path: str) -> None:
        """
        Load ``obs_rms.pkl`` and ``ret_rms.pkl`` from a folder (as written by the original library or
        :meth:`save_running_average`). A missing ``ret_rms.pkl`` is tolerated (with a warning).

        :param path: (str) the folder

        .. deprecated:: 2.9.0
            use :meth:`load`
        """
        warnings.warn("Usage of `load_running_average` is deprecated. Please "
                      "use `load` or pickle instead.", DeprecationWarning)
        for name in ('obs_rms', 'ret_rms'):
            file_path = os.path.join(path, name + ".pkl")
            if name == 'ret_rms' and not os.path.exists(file_path):
                warnings.warn("{} not found: keeping the current reward statistics".format(file_path))
                continue
            rms = _read_statistics_file(file_path, RunningMeanStd, "running statistics (RunningMeanStd)")
            if name == 'obs_rms' and self.__dict__.get('venv') is not None and self.norm_obs:
                expected = tuple(self.observation_space.shape)
                if tuple(np.shape(rms.mean)) != expected:
                    raise ValueError("{} holds statistics of shape {} but the observation space has shape {}"
                                     .format(file_path, tuple(np.shape(rms.mean)), expected))
            setattr(self, name, rms)

    def check_statistics_shape(self) -> None:
        """Raise a clear error when the observation statistics do not fit the wrapped environment."""
        if self.norm_obs_keys is not None:
            for key in self.norm_obs_keys:
                expected, got = _shape_of(self.observation_space[key]), tuple(np.shape(self.obs_rms[key].mean))
                if got != expected:
                    raise ValueError("The VecNormalize statistics of key {!r} are for observations of shape {} but "
                                     "the environment's entry has shape {}".format(key, got, expected))
            return
        obs_shape = _shape_of(self.observation_space)
        if self.norm_obs and tuple(np.shape(self.obs_rms.mean)) != obs_shape:
            raise ValueError("The VecNormalize statistics are for observations of shape {} but the environment's "
                             "observation space has shape {}".format(tuple(np.shape(self.obs_rms.mean)), obs_shape))


def _normalized_keys(space: Any, norm_obs: bool, norm_obs_keys: Optional[List[str]]) -> Optional[List[str]]:
    """
    :return: ([str] or None) the keys of a Dict space whose entries are normalized (None for other spaces)
    """
    if not isinstance(space, spaces.Dict):
        if norm_obs_keys is not None:
            raise ValueError("VecNormalize: norm_obs_keys is for Dict observation spaces, got {}".format(space))
        return None
    if not norm_obs:
        return []
    if norm_obs_keys is None:
        return [key for key, entry in space.spaces.items() if isinstance(entry, spaces.Box)]
    for key in norm_obs_keys:
        if not isinstance(space.spaces.get(key), spaces.Box):
            raise ValueError("VecNormalize: norm_obs_keys names {!r}, which is not a Box entry of the observation "
                             "space: expected some of {}".format(key, [name for name, entry in space.spaces.items()
                                                                       if isinstance(entry, spaces.Box)]))
    return list(norm_obs_keys)


def _per_key(obs: Dict[str, Any], keys: List[str], change: Callable[[str, Any], Any]) -> Dict[str, Any]:
    """
    :return: (OrderedDict) the observations of a Dict space, the entries of ``keys`` replaced by ``change(key, values)``
    """
    return OrderedDict((key, change(key, values) if key in keys else values) for key, values in obs.items())


def _shape_of(space: Any) -> tuple:
    return tuple(space.shape) if space.shape is not None else ()


# what VecNormalize pickles (``__getstate__``) and the original library's extra attributes
_PICKLED_ATTRIBUTES = ("obs_rms", "ret_rms", "clip_obs", "clip_reward", "gamma", "epsilon", "training", "norm_obs",
                       "norm_reward", "old_obs", "old_rews", "old_reward", "num_envs", "observation_space",
                       "action_space", "render_mode", "norm_obs_keys")


# the first bytes of files that are often given by mistake, and what they are
_OTHER_FORMATS = ((b"PK\x03\x04", "a zip archive (a model file? those load with the algorithm's load())"),
                  (b"\x93NUMPY", "a numpy .npy array"))


def _read_statistics_file(path: str, expected: type, what: str) -> Any:
    """Read a pickled VecNormalize or RunningMeanStd file without running code from it."""
    limits.check_size(os.path.getsize(path), limits.MAX_PICKLE_BYTES, repr(path))
    with open(path, "rb") as file_handler:
        data = read_whole(file_handler, repr(path), limits.MAX_PICKLE_BYTES)
    for magic, kind in _OTHER_FORMATS:
        if data.startswith(magic):
            raise InvalidModelFileError("{!r} is {}, not a pickled {} (what VecNormalize.save writes)"
                                        .format(path, kind, what))
    value = load_pickle(data, "{!r} (expected {})".format(path, what))
    if not isinstance(value, expected):
        raise InvalidModelFileError("{!r} does not hold {} (found a {})".format(path, what, type(value).__name__))
    return value


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
