"""VecNormalize: running normalization of observations and rewards."""
import math
import os
import pickle
import tempfile
import warnings
from copy import deepcopy
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.running_mean_std import RunningMeanStd
from stable_baselines.common.safe_loading import limits, load_pickle
from stable_baselines.common.safe_loading.archive import read_whole
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from stable_baselines.common.safe_loading.saved_objects import SavedVecNormalize
from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper
from stable_baselines.common.vec_env.obs_entries import box_entry_shapes, changed_entries, copied, entry_at, path_of


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
        normalized, each with its own statistics (None: every Box entry); the other entries pass unchanged. A Box
        inside a nested Dict or Tuple entry is named by its path: ``'robot/position'``, ``'pair/[0]'``
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
            else {key: RunningMeanStd(shape=shape) for key, shape in box_entry_shapes(self.observation_space).items()
                  if key in self.norm_obs_keys}
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
            self.obs_rms[key].update(entry_at(obs, path_of(obs, key)))

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
        return _normalized(obs, self.obs_rms, self.norm_obs_keys, self.epsilon, self.clip_obs)

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
            return changed_entries(obs, self.norm_obs_keys, lambda key, values: values * np.sqrt(
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
        return copied(self.old_obs)

    def get_original_reward(self) -> np.ndarray:
        """
        :return: (np.ndarray) a copy of the last rewards (of ``step``) before normalization, of the dtype of the
            rewards ``step`` returned (normalized rewards are float64: the statistics are)
        """
        if self.old_rews is None:
            raise RuntimeError("get_original_reward(): no reward yet, call step() first")
        rewards = np.asarray(self.old_rews)
        if self.norm_reward:
            return rewards.astype(np.result_type(rewards, self.ret_rms.var))
        return np.copy(rewards)

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
            if not isinstance(self.obs_rms, dict) or set(self.obs_rms) != set(self.norm_obs_keys):
                raise ValueError("The VecNormalize statistics must be one per normalized key of the Dict observation "
                                 "space ({}), got {}".format(self.norm_obs_keys, _statistics_kind(self.obs_rms)))
            entry_shapes = box_entry_shapes(self.observation_space)
            for key in self.norm_obs_keys:
                expected, got = entry_shapes.get(key), tuple(np.shape(self.obs_rms[key].mean))
                if got != expected:
                    raise ValueError("The VecNormalize statistics of key {!r} are for observations of shape {} but "
                                     "the environment's entry has shape {}".format(key, got, expected))
            return
        if not isinstance(self.obs_rms, RunningMeanStd):
            raise ValueError("The VecNormalize statistics are {}, but the observation space {} needs one "
                             "RunningMeanStd".format(_statistics_kind(self.obs_rms), self.observation_space))
        obs_shape = _shape_of(self.observation_space)
        if self.norm_obs and tuple(np.shape(self.obs_rms.mean)) != obs_shape:
            raise ValueError("The VecNormalize statistics are for observations of shape {} but the environment's "
                             "observation space has shape {}".format(tuple(np.shape(self.obs_rms.mean)), obs_shape))

    def get_statistics(self) -> "NormalizationStatistics":
        """
        :return: (NormalizationStatistics) a copy of the running statistics and the settings, without the
            environment (what ``model.save`` stores in the model file, without pickle)
        """
        return NormalizationStatistics(self.obs_rms, self.ret_rms, clip_obs=self.clip_obs,
                                       clip_reward=self.clip_reward, gamma=self.gamma, epsilon=self.epsilon,
                                       norm_obs=self.norm_obs, norm_reward=self.norm_reward,
                                       norm_obs_keys=self.norm_obs_keys)


def _normalized_keys(space: Any, norm_obs: bool, norm_obs_keys: Optional[List[str]]) -> Optional[List[str]]:
    """
    :return: ([str] or None) the names of the Box entries of a Dict space that are normalized (None for other
        spaces); an entry nested in a Dict or Tuple entry is named by its path, e.g. ``'robot/position'``
    """
    if not isinstance(space, spaces.Dict):
        if norm_obs_keys is not None:
            raise ValueError("VecNormalize: norm_obs_keys is for Dict observation spaces, got {}".format(space))
        return None
    if not norm_obs:
        return []
    boxes = box_entry_shapes(space)
    if norm_obs_keys is None:
        return list(boxes)
    for key in norm_obs_keys:
        if key not in boxes:
            raise ValueError("VecNormalize: norm_obs_keys names {!r}, which is not a Box entry of the observation "
                             "space: expected some of {}".format(key, list(boxes)))
    return list(norm_obs_keys)


def _statistics_kind(obs_rms: Any) -> str:
    """:return: (str) what observation statistics are, for messages"""
    if isinstance(obs_rms, dict):
        return "statistics per key for {}".format(sorted(obs_rms))
    return "a {}".format(type(obs_rms).__name__)


def _shape_of(space: Any) -> tuple:
    return tuple(space.shape) if space.shape is not None else ()


def _scaled_obs(obs: np.ndarray, obs_rms: RunningMeanStd, epsilon: float, clip_obs: float) -> np.ndarray:
    """``clip((obs - mean) / sqrt(var + epsilon), -clip_obs, clip_obs)``"""
    scaled = (obs - obs_rms.mean) / np.sqrt(obs_rms.var + epsilon)
    return np.clip(scaled, -clip_obs, clip_obs)


class NormalizationStatistics(object):
    """
    What a :class:`VecNormalize` has learnt, apart from its environment: the running statistics of the
    observations and of the discounted returns, and its settings. Plain numbers and arrays: no pickle is needed
    to store it (:meth:`to_json` and :meth:`to_arrays`; ``model.save`` writes them into the model file), and
    :meth:`from_stored` checks what it reads back. The statistics given are copied.

    :param obs_rms: (RunningMeanStd or dict) statistics of the observations (with ``norm_obs_keys``: a dict key ->
        RunningMeanStd)
    :param ret_rms: (RunningMeanStd) statistics of the discounted returns
    :param clip_obs: (float) bound of the normalized observations' absolute values
    :param clip_reward: (float) bound of the normalized rewards' absolute values
    :param gamma: (float) discount factor of the returns
    :param epsilon: (float) added to the variances before the square root
    :param norm_obs: (bool) whether observations are normalized
    :param norm_reward: (bool) whether rewards were normalized during training
    :param norm_obs_keys: ([str]) with a Dict observation space: the keys whose entries have statistics of their
        own (None for other spaces)
    """

    #: version of the layout written by :meth:`to_json` / :meth:`to_arrays`
    FORMAT = 1

    def __init__(self, obs_rms: Any, ret_rms: RunningMeanStd, clip_obs: float = 10.,
                 clip_reward: float = 10., gamma: float = 0.99, epsilon: float = 1e-8, norm_obs: bool = True,
                 norm_reward: bool = True, norm_obs_keys: Optional[List[str]] = None) -> None:
        self.obs_rms = deepcopy(obs_rms)
        self.ret_rms = deepcopy(ret_rms)
        self.clip_obs = clip_obs
        self.clip_reward = clip_reward
        self.gamma = gamma
        self.epsilon = epsilon
        self.norm_obs = norm_obs
        self.norm_reward = norm_reward
        self.norm_obs_keys = None if norm_obs_keys is None else list(norm_obs_keys)

    def copy(self) -> "NormalizationStatistics":
        """:return: (NormalizationStatistics) an independent copy"""
        return NormalizationStatistics(self.obs_rms, self.ret_rms, norm_obs_keys=self.norm_obs_keys,
                                       **self._settings())

    def _settings(self) -> Dict[str, Any]:
        return {name: getattr(self, name) for name in _STATISTICS_SETTINGS}

    def normalize_obs(self, obs: VecEnvObs) -> VecEnvObs:
        """
        :param obs: (np.ndarray or dict) observations as the environment gives them
        :return: (np.ndarray or dict) the observations as the VecNormalize with these statistics returns them
        """
        if not self.norm_obs:
            return obs
        return _normalized(obs, self.obs_rms, self.norm_obs_keys, self.epsilon, self.clip_obs)

    def wrap(self, venv: VecEnv, training: bool = False, norm_reward: bool = False) -> "VecNormalize":
        """
        :param venv: (VecEnv) the environment to normalize
        :param training: (bool) whether the new wrapper keeps updating the statistics
        :param norm_reward: (bool) whether it normalizes the rewards (off by default: the true rewards)
        :return: (VecNormalize) a VecNormalize around ``venv`` starting from copies of these statistics
        """
        settings = self._settings()
        settings["norm_reward"] = norm_reward
        vec_normalize = VecNormalize(venv, training=training, norm_obs_keys=self.norm_obs_keys, **settings)
        vec_normalize.obs_rms = deepcopy(self.obs_rms)
        vec_normalize.ret_rms = deepcopy(self.ret_rms)
        vec_normalize.check_statistics_shape()
        return vec_normalize

    def _obs_statistics(self) -> Dict[Optional[str], RunningMeanStd]:
        """:return: (dict) the observation statistics by key (None: the one set of a Box space)"""
        if self.norm_obs_keys is None:
            return {None: self.obs_rms}
        return {key: self.obs_rms[key] for key in self.norm_obs_keys}

    def matches(self, other: "NormalizationStatistics") -> bool:
        """
        :param other: (NormalizationStatistics) other statistics
        :return: (bool) whether both normalize observations alike (same observation settings and keys, statistics
            equal to a relative 1e-6)
        """
        if (self.norm_obs, self.clip_obs, self.epsilon) != (other.norm_obs, other.clip_obs, other.epsilon):
            return False
        mine, theirs = self._obs_statistics(), other._obs_statistics()
        if set(mine) != set(theirs):
            return False
        pairs: List[Tuple[Any, Any]] = []
        for key, rms in mine.items():
            pairs += [(rms.mean, theirs[key].mean), (rms.var, theirs[key].var), (rms.count, theirs[key].count)]
        return all(np.shape(first) == np.shape(second) and np.allclose(first, second, rtol=1e-6, atol=0.)
                   for first, second in pairs)

    def to_json(self) -> Dict[str, Any]:
        """
        :return: (dict) the settings as JSON values (with the layout version under ``format``, and
            ``norm_obs_keys`` for statistics per key)
        """
        settings: Dict[str, Any] = {"format": self.FORMAT}
        for name, value in self._settings().items():
            settings[name] = bool(value) if name in _STATISTICS_FLAGS else float(value)
        if self.norm_obs_keys is not None:
            settings["norm_obs_keys"] = list(self.norm_obs_keys)
        return settings

    def to_arrays(self) -> Dict[str, np.ndarray]:
        """
        :return: (dict) the running statistics as float64 arrays (counts as 0-d arrays): ``obs_mean``,
            ``obs_var``, ``obs_count`` (per key: ``obs_mean/<i>``... for the i-th key of ``norm_obs_keys``),
            ``ret_mean``, ``ret_var``, ``ret_count``
        """
        arrays: Dict[str, np.ndarray] = {}
        for index, rms in enumerate(self._obs_statistics().values()):
            arrays.update(_rms_arrays("obs", rms, "" if self.norm_obs_keys is None else "/{}".format(index)))
        arrays.update(_rms_arrays("ret", self.ret_rms, ""))
        return arrays

    @classmethod
    def from_stored(cls, settings: Any, arrays: Mapping[str, np.ndarray], what: str,
                    obs_shape: Optional[tuple] = None,
                    entry_shapes: Optional[Dict[str, tuple]] = None) -> "NormalizationStatistics":
        """
        Rebuild statistics from what :meth:`to_json` and :meth:`to_arrays` gave, checking every field.

        :param settings: (dict) the settings (JSON values)
        :param arrays: (dict) the arrays
        :param what: (str) where they come from, for messages
        :param obs_shape: (tuple) the shape the observation statistics must have (None: any)
        :param entry_shapes: (dict) for a Dict observation space: key -> shape of its Box entries, which the
            statistics must be per key of (None: not a Dict space, or not known)
        :return: (NormalizationStatistics)
        :raises InvalidModelFileError: a field is missing, unexpected, of the wrong kind, not finite or out of
            range, or the keys or shapes do not fit
        """
        checked = _checked_settings(settings, what)
        keys = checked.get("norm_obs_keys")
        if keys is None and entry_shapes is not None:
            raise InvalidModelFileError("{} hold one set of observation statistics, but the observation space is a "
                                        "Dict: statistics per key (norm_obs_keys) are needed".format(what))
        if keys is None:
            obs_rms: Any = _checked_rms(arrays, "obs", what, obs_shape)
            expected = _rms_names("obs", "")
        else:
            if obs_shape is not None:
                raise InvalidModelFileError("{} hold statistics per key of a Dict observation (norm_obs_keys {}), but "
                                            "the observation space is not a Dict".format(what, keys))
            obs_rms, expected = {}, []
            for index, key in enumerate(keys):
                if entry_shapes is not None and key not in entry_shapes:
                    raise InvalidModelFileError("{}: norm_obs_keys names {!r}, which is not a Box entry of the "
                                                "observation space (those are {})".format(what, key,
                                                                                          list(entry_shapes)))
                suffix = "/{}".format(index)
                obs_rms[key] = _checked_rms(arrays, "obs", "{} (key {!r})".format(what, key),
                                            None if entry_shapes is None else entry_shapes[key], suffix)
                expected += _rms_names("obs", suffix)
        ret_rms = _checked_rms(arrays, "ret", what, ())
        unknown = sorted(set(arrays) - set(expected + _rms_names("ret", "")))
        if unknown:
            raise InvalidModelFileError("{} holds unexpected arrays: {}".format(what, ", ".join(unknown)))
        return cls(obs_rms, ret_rms, **checked)


_STATISTICS_SETTINGS = ("clip_obs", "clip_reward", "gamma", "epsilon", "norm_obs", "norm_reward")
_STATISTICS_FLAGS = ("norm_obs", "norm_reward")
# name -> (smallest value, whether the smallest value itself is allowed)
_STATISTICS_RANGES = {"clip_obs": (0., False), "clip_reward": (0., False), "gamma": (0., True),
                      "epsilon": (0., True)}
# bounds of the stored norm_obs_keys: how many keys, how long each
_MAX_KEYS, _MAX_KEY_LENGTH = 1024, 256


def _normalized(obs: VecEnvObs, obs_rms: Any, keys: Optional[List[str]], epsilon: float, clip_obs: float) -> VecEnvObs:
    """:return: (np.ndarray or dict) ``obs`` scaled by its statistics (per key of ``keys`` for Dict observations)"""
    if keys is None:
        return _scaled_obs(obs, obs_rms, epsilon, clip_obs)
    return changed_entries(obs, keys, lambda key, values: _scaled_obs(values, obs_rms[key], epsilon, clip_obs))


def _rms_names(prefix: str, suffix: str) -> List[str]:
    """:return: ([str]) the array names of one set of stored running statistics"""
    return [prefix + part + suffix for part in ("_mean", "_var", "_count")]


def _rms_arrays(prefix: str, rms: RunningMeanStd, suffix: str) -> Dict[str, np.ndarray]:
    """:return: (dict) the mean, variance and count of ``rms`` as float64 arrays under :func:`_rms_names`"""
    values = (rms.mean, rms.var, rms.count)
    return {name: np.asarray(value, dtype=np.float64) for name, value in zip(_rms_names(prefix, suffix), values)}


def _checked_keys(value: Any, what: str) -> List[str]:
    """The stored ``norm_obs_keys``: distinct strings, bounded in number and length."""
    if not isinstance(value, list) or len(value) > _MAX_KEYS or len(set(map(repr, value))) != len(value) or \
            not all(isinstance(key, str) and 0 < len(key) <= _MAX_KEY_LENGTH for key in value):
        raise InvalidModelFileError("{}: norm_obs_keys must be a list of at most {} distinct non-empty strings (of at "
                                    "most {} characters), got {!r}".format(what, _MAX_KEYS, _MAX_KEY_LENGTH,
                                                                           value)[:1000])
    return value


def _checked_settings(settings: Any, what: str) -> Dict[str, Any]:
    """The settings of stored statistics, each checked (InvalidModelFileError otherwise)."""
    if not isinstance(settings, dict):
        raise InvalidModelFileError("{}: the settings must be a JSON object, got a {}".format(
            what, type(settings).__name__))
    if settings.get("format") != NormalizationStatistics.FORMAT:
        raise InvalidModelFileError("{}: unknown layout format {!r} (this version reads format {})".format(
            what, settings.get("format"), NormalizationStatistics.FORMAT))
    expected = set(_STATISTICS_SETTINGS) | {"format"}
    if not expected <= set(settings) <= expected | {"norm_obs_keys"}:
        raise InvalidModelFileError("{}: the settings must be exactly {} (and norm_obs_keys for statistics per key); "
                                    "missing: {}, unexpected: {}".format(
                                        what, sorted(expected), sorted(expected - set(settings)),
                                        sorted(set(settings) - expected - {"norm_obs_keys"})))
    checked: Dict[str, Any] = {}
    for name in _STATISTICS_SETTINGS:
        value = settings[name]
        if name in _STATISTICS_FLAGS:
            if not isinstance(value, bool):
                raise InvalidModelFileError("{}: {} must be true or false, got {!r}".format(what, name, value))
        else:
            lowest, inclusive = _STATISTICS_RANGES[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or \
                    value < lowest or (value == lowest and not inclusive):
                raise InvalidModelFileError("{}: {} must be a finite number {} {}, got {!r}".format(
                    what, name, ">=" if inclusive else ">", lowest, value))
            value = float(value)
        checked[name] = value
    if "norm_obs_keys" in settings:
        checked["norm_obs_keys"] = _checked_keys(settings["norm_obs_keys"], what)
    return checked


def _checked_rms(arrays: Mapping[str, np.ndarray], prefix: str, what: str,
                 shape: Optional[tuple], suffix: str = "") -> RunningMeanStd:
    """The running statistics ``<prefix>_mean/_var/_count<suffix>`` of stored arrays, checked."""
    found = []
    names = _rms_names(prefix, suffix)
    for name in names:
        value = arrays.get(name)
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "iuf":
            raise InvalidModelFileError("{}: {} must be a numeric array, got {}".format(
                what, name, type(value).__name__ if not isinstance(value, np.ndarray) else value.dtype))
        value = value.astype(np.float64)
        if not np.all(np.isfinite(value)):
            raise InvalidModelFileError("{}: {} holds NaN or infinite values".format(what, name))
        found.append(value)
    mean, var, count = found
    if shape is not None and mean.shape != tuple(shape):
        raise InvalidModelFileError("{}: {} has shape {}, expected {}".format(what, names[0], mean.shape,
                                                                               tuple(shape)))
    if var.shape != mean.shape or count.shape != ():
        raise InvalidModelFileError("{}: {} must have the shape of {} {} and {} must be a scalar (got {} and {})"
                                    .format(what, names[1], names[0], mean.shape, names[2], var.shape, count.shape))
    if np.any(var < 0) or float(count) <= 0:
        raise InvalidModelFileError("{}: {} must be >= 0 and {} > 0".format(what, names[1], names[2]))
    rms = RunningMeanStd(shape=mean.shape)
    rms.mean, rms.var, rms.count = mean, var, float(count)
    return rms


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
