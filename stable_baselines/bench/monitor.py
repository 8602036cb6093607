"""Monitor: a wrapper that records the reward, length and duration of each episode (optionally to a csv file)."""
import csv
import json
import os
import time
from glob import glob
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import gymnasium
import numpy as np

from stable_baselines.common import gym_compat

if TYPE_CHECKING:  # pragma: no cover
    import pandas


class LoadMonitorResultsError(Exception):
    """
    Raised when loading the monitor log fails.
    """
    pass


class Monitor(gymnasium.Wrapper):
    """
    A monitor wrapper for Gym environments, it is used to know the episode reward, length, time and other data.

    It is a ``gymnasium.Wrapper``: ``reset()`` returns ``(obs, info)`` and ``step()`` returns
    ``(obs, reward, terminated, truncated, info)``. Legacy gym-style environments are adapted first
    (``stable_baselines.common.gym_compat.as_gymnasium_env``). At the end of each episode,
    ``info['episode']`` is ``{'r': reward, 'l': length, 't': seconds since the monitor was created}``.

    A file is written only when ``filename`` is given: ``<filename>.monitor.csv`` (or ``<folder>/monitor.csv``
    when ``filename`` is an existing folder), with a ``#{"t_start": ..., "env_id": ...}`` header line
    then one csv row ``r,l,t`` (+ reset and info keywords) per episode.

    :param env: (gym.Env) The environment
    :param filename: (Optional[str]) the location to save a log file, can be None for no log
    :param allow_early_resets: (bool) allows the reset of the environment before it is done
    :param reset_keywords: (tuple) extra keywords for the reset call, if extra parameters are needed at reset
    :param info_keywords: (tuple) extra information to log, from the information return of environment.step
    """
    EXT = "monitor.csv"
    file_handler = None

    def __init__(self, env: Any, filename: Optional[str], allow_early_resets: bool = True,
                 reset_keywords: Tuple[str, ...] = (), info_keywords: Tuple[str, ...] = ()):
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.t_start = time.time()
        self.reset_keywords = tuple(reset_keywords)
        self.info_keywords = tuple(info_keywords)
        if filename is None:
            self.file_handler = None
            self.logger = None
            self.filename = None
        else:
            filename = os.fspath(filename)
            if not filename.endswith(Monitor.EXT):
                if os.path.isdir(filename):
                    filename = os.path.join(filename, Monitor.EXT)
                else:
                    filename = filename + "." + Monitor.EXT
            self.filename = filename
            self.file_handler = open(filename, "wt", newline="")
            spec = getattr(self.env, "spec", None)
            self.file_handler.write('#%s\n' % json.dumps({"t_start": self.t_start,
                                                          'env_id': spec.id if spec is not None else None}))
            self.logger = csv.DictWriter(self.file_handler,
                                         fieldnames=('r', 'l', 't') + self.reset_keywords + self.info_keywords)
            self.logger.writeheader()
            self.file_handler.flush()

        self.allow_early_resets = allow_early_resets
        self.rewards = None
        self.needs_reset = True
        self.episode_rewards = []
        self.episode_lengths = []
        self.episode_times = []
        self.total_steps = 0
        self.current_reset_info = {}  # extra info about the current episode, that was passed in during reset()

    def reset(self, **kwargs) -> Tuple[Any, Dict[str, Any]]:
        """
        Calls the Gym environment reset. Can only be called if the environment is over, or if allow_early_resets is True

        :param kwargs: Extra keywords saved for the next episode. only if defined by reset_keywords
            (``seed`` and ``options`` are passed to the environment as in gymnasium)
        :return: (np.ndarray, dict) the first observation of the environment and the reset info
        """
        if not self.allow_early_resets and not self.needs_reset:
            raise RuntimeError("Tried to reset an environment before done. If you want to allow early resets, "
                               "wrap your env with Monitor(env, path, allow_early_resets=True)")
        self.rewards = []
        self.needs_reset = False
        for key in self.reset_keywords:
            value = kwargs.get(key)
            if value is None:
                raise ValueError("Expected you to pass keyword argument '{}' into reset (it is in reset_keywords "
                                 "{})".format(key, self.reset_keywords))
            self.current_reset_info[key] = value
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[Any, Any]]:
        """
        Step the environment with the given action

        :param action: (np.ndarray) the action
        :return: (Tuple[np.ndarray, float, bool, bool, Dict[Any, Any]]) observation, reward, terminated,
            truncated, information
        """
        if self.needs_reset:
            raise RuntimeError("Tried to step environment that needs reset (call reset() first, and after each "
                               "episode end)")
        observation, reward, terminated, truncated, info = self.env.step(action)
        reward_type = type(reward)
        if reward_type is float or reward_type is int or reward_type is np.float64 or reward_type is np.float32:
            self.rewards.append(float(reward))
        else:
            self.rewards.append(float(np.asarray(reward).sum()) if np.ndim(reward) else float(reward))
        if terminated or truncated:
            self.needs_reset = True
            ep_rew = sum(self.rewards)
            eplen = len(self.rewards)
            ep_info = {"r": round(ep_rew, 6), "l": eplen, "t": round(time.time() - self.t_start, 6)}
            for key in self.info_keywords:
                if key not in info:
                    raise KeyError("Monitor(info_keywords={}) expected the key '{}' in the info dict returned by "
                                   "step() at the end of the episode; got keys {}"
                                   .format(self.info_keywords, key, list(info.keys())))
                ep_info[key] = info[key]
            self.episode_rewards.append(ep_rew)
            self.episode_lengths.append(eplen)
            self.episode_times.append(time.time() - self.t_start)
            ep_info.update(self.current_reset_info)
            if self.logger:
                self.logger.writerow(ep_info)
                self.file_handler.flush()
            info = dict(info)
            info['episode'] = ep_info
        self.total_steps += 1
        return observation, reward, terminated, truncated, info

    def close(self) -> None:
        """
        Closes the environment
        """
        super().close()
        if self.file_handler is not None:
            self.file_handler.close()
            self.file_handler = None

    def get_total_steps(self) -> int:
        """
        Returns the total number of timesteps

        :return: (int)
        """
        return self.total_steps

    def get_episode_rewards(self) -> List[float]:
        """
        Returns the rewards of all the episodes

        :return: ([float])
        """
        return self.episode_rewards

    def get_episode_lengths(self) -> List[int]:
        """
        Returns the number of timesteps of all the episodes

        :return: ([int])
        """
        return self.episode_lengths

    def get_episode_times(self) -> List[float]:
        """
        Returns the runtime in seconds of all the episodes

        :return: ([float])
        """
        return self.episode_times

    def __del__(self):
        try:
            if self.file_handler is not None:
                self.file_handler.close()
        except Exception:  # pylint: disable=broad-except
            pass


def get_monitor_files(path: str) -> List[str]:
    """
    get all the monitor files in the given path

    :param path: (str) the logging folder
    :return: ([str]) the log files
    """
    return sorted(glob(os.path.join(path, "*" + Monitor.EXT)))


def load_results(path: str) -> "pandas.DataFrame":
    """
    Load all Monitor logs from a given directory path matching ``*monitor.csv`` and ``*monitor.json``

    :param path: (str) the directory path containing the log file(s)
    :return: (pandas.DataFrame) the logged data (columns r, l, t, ...; ``t`` is relative to the earliest
        ``t_start`` of the files), sorted by time
    """
    import pandas  # pylint: disable=import-outside-toplevel  (only needed here: keeps `import Monitor` light)
    # get both csv and (old) json files
    monitor_files = sorted(glob(os.path.join(path, "*monitor.json"))) + get_monitor_files(path)
    if not monitor_files:
        raise LoadMonitorResultsError("no monitor files of the form *%s found in %s" % (Monitor.EXT, path))
    data_frames = []
    headers = []
    for file_name in monitor_files:
        with open(file_name, 'rt') as file_handler:
            try:
                if file_name.endswith('csv'):
                    first_line = file_handler.readline()
                    if not first_line.startswith('#'):
                        raise LoadMonitorResultsError("{} is not a monitor file: its first line should be the "
                                                      "'#{{\"t_start\": ...}}' header, got {!r}"
                                                      .format(file_name, first_line[:80]))
                    header = json.loads(first_line[1:])
                    data_frame = pandas.read_csv(file_handler, index_col=None)
                else:  # Deprecated json format
                    episodes = []
                    lines = file_handler.readlines()
                    header = json.loads(lines[0])
                    for line in lines[1:]:
                        episode = json.loads(line)
                        episodes.append(episode)
                    data_frame = pandas.DataFrame(episodes)
            except (ValueError, IndexError, pandas.errors.ParserError) as err:
                if isinstance(err, LoadMonitorResultsError):
                    raise
                raise LoadMonitorResultsError("could not read the monitor file {}: {}".format(file_name, err)) from err
            if 't_start' not in header:
                raise LoadMonitorResultsError("the header of {} has no 't_start': {}".format(file_name, header))
            headers.append(header)
            if 't' in data_frame:
                data_frame['t'] += header['t_start']
        data_frames.append(data_frame)
    data_frame = pandas.concat(data_frames)
    data_frame = data_frame.sort_values('t')
    data_frame = data_frame.reset_index()
    data_frame['t'] -= min(header['t_start'] for header in headers)
    return data_frame
