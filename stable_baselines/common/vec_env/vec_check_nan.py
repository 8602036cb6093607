"""VecCheckNan: find where NaN or inf values come from (the agent's actions or the environment)."""
import warnings
from typing import Any, List, Tuple

import numpy as np

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvWrapper


class VecCheckNan(VecEnvWrapper):
    """
    NaN and inf checking wrapper for vectorized environment, will raise a warning by default,
    allowing you to know from what the NaN of inf originated from.

    :param venv: (VecEnv) the vectorized environment to wrap
    :param raise_exception: (bool) Whether or not to raise a ValueError, instead of a UserWarning
    :param warn_once: (bool) Whether or not to only warn once.
    :param check_inf: (bool) Whether or not to check for +inf or -inf as well
    """

    def __init__(self, venv: VecEnv, raise_exception: bool = False, warn_once: bool = True, check_inf: bool = True):
        VecEnvWrapper.__init__(self, venv)
        self.raise_exception = raise_exception
        self.warn_once = warn_once
        self.check_inf = check_inf
        self._actions = None
        self._observations = None
        self._user_warned = False

    def step_async(self, actions):
        self._check_val(async_step=True, actions=actions)

        self._actions = actions
        self.venv.step_async(actions)

    def step_wait(self):
        observations, rewards, news, infos = self.venv.step_wait()

        self._check_val(async_step=False, observations=observations, rewards=rewards, news=news)

        self._observations = observations
        return observations, rewards, news, infos

    def reset(self):
        observations = self.venv.reset()
        self._actions = None

        self._check_val(async_step=False, observations=observations)

        self._observations = observations
        return observations

    def _find_invalid(self, name: str, value: Any) -> List[Tuple[str, str, List[int]]]:
        """:return: list of (name, 'nan' or 'inf', env indices) for one (possibly dict/tuple) batch of values"""
        if isinstance(value, dict):
            found = []
            for key, sub_value in value.items():
                found += self._find_invalid("{}[{!r}]".format(name, key), sub_value)
            return found
        if isinstance(value, tuple):
            found = []
            for key, sub_value in enumerate(value):
                found += self._find_invalid("{}[{}]".format(name, key), sub_value)
            return found
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return []
        if array.ndim == 0:
            array = array.reshape(1)
        per_env = array.reshape(array.shape[0], -1)
        found = []
        nan_envs = np.nonzero(np.any(np.isnan(per_env), axis=1))[0].tolist()
        if nan_envs:
            found.append((name, "nan", nan_envs))
        if self.check_inf:
            inf_envs = np.nonzero(np.any(np.isinf(per_env), axis=1))[0].tolist()
            if inf_envs:
                found.append((name, "inf", inf_envs))
        return found

    def _check_val(self, *, async_step: bool, **kwargs) -> None:
        # if warn and warn once and have warned once: then stop checking
        if not self.raise_exception and self.warn_once and self._user_warned:
            return

        found = []
        for name, val in kwargs.items():
            found += self._find_invalid(name, val)

        if found:
            self._user_warned = True
            msg = ""
            for i, (name, type_val, env_indices) in enumerate(found):
                msg += "found {} in {} (env index {})".format(type_val, name,
                                                              env_indices[0] if len(env_indices) == 1 else env_indices)
                if i != len(found) - 1:
                    msg += ", "

            msg += ".\r\nOriginated from the "

            if not async_step:
                if self._actions is None:
                    msg += "environment observation (at reset)"
                else:
                    msg += "environment, Last given value was: \r\n\taction={}".format(self._actions)
            else:
                msg += "RL model, Last given value was: \r\n\tobservations={}".format(self._observations)

            if self.raise_exception:
                raise ValueError(msg)
            warnings.warn(msg, UserWarning)
