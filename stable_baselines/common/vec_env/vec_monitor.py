"""VecMonitor: episode statistics (and optionally a monitor log) kept for all environments of a VecEnv at once."""
import time
import warnings
from typing import Any, Dict, Optional, Tuple

import numpy as np

from stable_baselines.bench.monitor import Monitor, ResultsWriter, summarize_episode
from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper
from stable_baselines.common.vec_env.single_env import get_env_attr
from stable_baselines.common.vec_env.subproc_vec_env import EnvWorkerError


def _envs_have_monitor(venv: VecEnv) -> bool:
    """Whether the (first) environment inside ``venv`` is wrapped in a :class:`Monitor`, in any process."""
    try:
        # a constant of the Monitor class: it travels back from a SubprocVecEnv worker, unlike the wrapper
        marker = venv.get_attr("EXT", indices=[0])[0]
    except (AttributeError, EnvWorkerError):
        return False
    return marker == Monitor.EXT


def is_monitor_wrapped(env: Any) -> bool:
    """
    Whether an environment reports episode statistics: a gym environment wrapped in a
    :class:`~stable_baselines.bench.monitor.Monitor`, or a VecEnv with a :class:`VecMonitor` in its wrapper
    stack or a Monitor around its environments.

    :param env: (gym.Env or VecEnv) the environment
    :return: (bool) whether ``info['episode']`` comes with the end of its episodes
    """
    if not isinstance(env, VecEnv):
        try:
            return get_env_attr(env, "EXT") == Monitor.EXT
        except AttributeError:
            return False
    layer = env
    while isinstance(layer, VecEnvWrapper):
        if isinstance(layer, VecMonitor):
            return True
        layer = layer.venv
    return _envs_have_monitor(layer)


class VecMonitor(VecEnvWrapper):
    """
    The :class:`~stable_baselines.bench.monitor.Monitor` of a whole VecEnv: it adds
    ``info['episode'] = {'r': return, 'l': length, 't': seconds since the wrapper was created}`` to the info
    of each environment whose episode ends, and writes the same rows as a Monitor's csv log when ``filename``
    is given (read back by :func:`~stable_baselines.bench.monitor.load_results`).

    :param venv: (VecEnv) the vectorized environment to watch
    :param filename: (Optional[str]) where to write the log, None for no file
    :param info_keywords: (tuple) keys of the last step's info to record with each episode
    """

    def __init__(self, venv: VecEnv, filename: Optional[str] = None, info_keywords: Tuple[str, ...] = ()) -> None:
        if _envs_have_monitor(venv):
            warnings.warn("The environments are already wrapped in a Monitor; the 'episode' info of the VecMonitor "
                          "wrapped around them replaces the Monitor's")
        super().__init__(venv)
        self.info_keywords = tuple(info_keywords)
        self.t_start = time.time()
        self.episode_count = 0
        self.episode_returns = np.zeros(self.num_envs, dtype=np.float64)
        self.episode_lengths = np.zeros(self.num_envs, dtype=np.int64)
        self.results_writer: Optional[ResultsWriter] = None
        if filename is not None:
            spec = getattr(venv, "spec", None)
            header = {"t_start": self.t_start, "env_id": None if spec is None else spec.id}
            self.results_writer = ResultsWriter(filename, header=header, extra_keys=self.info_keywords)

    def reset(self) -> VecEnvObs:
        observations = self.venv.reset()
        self.episode_returns[:] = 0.0
        self.episode_lengths[:] = 0
        return observations

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, dones, infos = self.venv.step_wait()
        self.episode_returns += np.asarray(rewards, dtype=np.float64).reshape(self.num_envs)
        self.episode_lengths += 1
        finished = [self._finish_episode(index, infos[index]) if done else infos[index]
                    for index, done in enumerate(dones)]
        return observations, rewards, dones, finished

    def _finish_episode(self, index: int, info: Dict[str, Any]) -> Dict[str, Any]:
        """
        Record the episode that environment ``index`` just ended and start counting its next one.

        :return: (dict) a copy of ``info`` with the episode's record under ``'episode'``
        """
        record = summarize_episode(self.episode_returns[index], self.episode_lengths[index],
                                   time.time() - self.t_start)
        for key in self.info_keywords:
            if key not in info:
                raise KeyError("VecMonitor(info_keywords={}) expected the key '{}' in the info of environment {} at "
                               "the end of its episode; got keys {}"
                               .format(self.info_keywords, key, index, list(info.keys())))
            record[key] = info[key]
        self.episode_returns[index] = 0.0
        self.episode_lengths[index] = 0
        self.episode_count += 1
        if self.results_writer is not None:
            self.results_writer.write_row(record)
        with_record = dict(info)
        with_record["episode"] = record
        return with_record

    def close(self) -> None:
        if self.results_writer is not None:
            self.results_writer.close()
            self.results_writer = None
        return self.venv.close()


__all__ = ["VecMonitor", "is_monitor_wrapped"]
