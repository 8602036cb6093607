"""VecCheckNan: find where NaN or inf values come from (the agent's actions or the environment)."""
import warnings
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvActions, VecEnvObs, VecEnvStepReturn, VecEnvWrapper

# (what was checked, 'nan' or 'inf', indices of the environments concerned)
Finding = Tuple[str, str, List[int]]


def _rows_with(test: Callable[[np.ndarray], np.ndarray], per_env: np.ndarray) -> List[int]:
    return np.nonzero(np.any(test(per_env), axis=1))[0].tolist()


class VecCheckNan(VecEnvWrapper):
    """
    Watches the actions going into the environments and what comes out of them, and reports the first
    NaN (and, by default, +/-inf) with its origin: the RL model (an action) or the environment (an
    observation or a reward, with the action that led to it). A warning by default, an exception on request.

    :param venv: (VecEnv) the vectorized environment to watch
    :param raise_exception: (bool) raise a ValueError instead of warning (UserWarning)
    :param warn_once: (bool) warn only the first time (and stop checking afterwards)
    :param check_inf: (bool) report +inf and -inf too, not only NaN
    """

    def __init__(self, venv: VecEnv, raise_exception: bool = False, warn_once: bool = True, check_inf: bool = True) -> None:
        VecEnvWrapper.__init__(self, venv)
        self.raise_exception = raise_exception
        self.warn_once = warn_once
        self.check_inf = check_inf
        self._actions: Optional[VecEnvActions] = None
        self._observations: VecEnvObs = None
        self._user_warned = False

    def step_async(self, actions: VecEnvActions) -> None:
        self._check_val(async_step=True, actions=actions)
        self._actions = actions
        self.venv.step_async(actions)

    def step_wait(self) -> VecEnvStepReturn:
        result = self.venv.step_wait()
        observations, rewards, news, _ = result
        self._check_val(async_step=False, observations=observations, rewards=rewards, news=news)
        self._observations = observations
        return result

    def reset(self) -> VecEnvObs:
        observations = self.venv.reset()
        self._actions = None
        self._check_val(async_step=False, observations=observations)
        self._observations = observations
        return observations

    def _find_invalid(self, name: str, value: Any) -> List[Finding]:
        """
        :return: ([(str, str, [int])]) for one batch of values (dicts and tuples are searched part by
            part): which part, 'nan' or 'inf', and in which environments
        """
        if isinstance(value, (dict, tuple)):
            parts = value.items() if isinstance(value, dict) else enumerate(value)
            label = "{}[{!r}]" if isinstance(value, dict) else "{}[{}]"
            return [finding for key, part in parts for finding in self._find_invalid(label.format(name, key), part)]
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):  # not numbers: nothing to check
            return []
        per_env = array.reshape(1, -1) if array.ndim == 0 else array.reshape(array.shape[0], -1)
        findings = []
        for kind, test, enabled in (("nan", np.isnan, True), ("inf", np.isinf, self.check_inf)):
            envs = _rows_with(test, per_env) if enabled else []
            if envs:
                findings.append((name, kind, envs))
        return findings

    def _origin(self, async_step: bool) -> str:
        """Where the bad values came from, with the last value the other side gave."""
        if async_step:
            return "RL model, Last given value was: \r\n\tobservations={}".format(self._observations)
        if self._actions is None:
            return "environment observation (at reset)"
        return "environment, Last given value was: \r\n\taction={}".format(self._actions)

    def _check_val(self, *, async_step: bool, **kwargs) -> None:
        if self._user_warned and self.warn_once and not self.raise_exception:
            return  # warned once already: stop looking
        findings = [finding for name, value in kwargs.items() for finding in self._find_invalid(name, value)]
        if not findings:
            return
        self._user_warned = True
        described = ", ".join("found {} in {} (env index {})".format(kind, name, envs[0] if len(envs) == 1 else envs)
                              for name, kind, envs in findings)
        message = "{}.\r\nOriginated from the {}".format(described, self._origin(async_step))
        if self.raise_exception:
            raise ValueError(message)
        warnings.warn(message, UserWarning)
