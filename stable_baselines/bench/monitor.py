"""
Monitor: an environment wrapper that keeps the return, length and duration of every episode,
and optionally writes them to a csv file that :func:`load_results` reads back.
"""
import csv
import json
import os
import time
from glob import glob
from typing import TYPE_CHECKING, Any, Dict, List, Optional, TextIO, Tuple

import gymnasium
import numpy as np

from stable_baselines.common import gym_compat

if TYPE_CHECKING:  # pragma: no cover
    import pandas


class LoadMonitorResultsError(Exception):
    """
    The monitor files of a folder are missing or cannot be read.
    """
    pass


def _log_path(filename: str) -> str:
    """
    Where the log of ``filename`` goes: ``filename`` itself when it already ends with ``monitor.csv``,
    ``<filename>/monitor.csv`` for an existing folder, else ``<filename>.monitor.csv``.
    """
    if filename.endswith(Monitor.EXT):
        return filename
    if os.path.isdir(filename):
        return os.path.join(filename, Monitor.EXT)
    return "{}.{}".format(filename, Monitor.EXT)


def _scalar_reward(reward: Any) -> float:
    """A step's reward as one float (an array of rewards counts as its sum)."""
    if isinstance(reward, (int, float, np.floating)):
        return float(reward)
    return float(np.sum(reward))


def summarize_episode(episode_return: float, episode_length: int, elapsed: float) -> Dict[str, Any]:
    """
    The record of a finished episode, as ``info['episode']`` holds it and as a row of the csv log.

    :param episode_return: (float) the sum of the episode's rewards
    :param episode_length: (int) its number of steps
    :param elapsed: (float) seconds from the monitor's creation to the episode's end
    :return: (dict) ``{'r': return, 'l': length, 't': elapsed}``, floats rounded to 6 decimals
    """
    return {"r": round(float(episode_return), 6), "l": int(episode_length), "t": round(float(elapsed), 6)}


class ResultsWriter(object):
    """
    Writer of a monitor log (what :func:`load_results` reads): a first line ``#{"t_start": ..., ...}`` holding
    ``header`` as JSON, a csv header line, then one row per episode, flushed at once.

    :param filename: (str) the log file; a folder gets ``<filename>/monitor.csv`` and a path not ending with
        ``monitor.csv`` gets ``<filename>.monitor.csv``
    :param header: (dict) what the first line records (``t_start``, ``env_id``, ...)
    :param extra_keys: (tuple) the columns written after ``r``, ``l`` and ``t``
    """

    def __init__(self, filename: str, header: Dict[str, Any], extra_keys: Tuple[str, ...] = ()) -> None:
        self.filename = _log_path(os.fspath(filename))
        self.file_handler = open(self.filename, "wt", newline="")  # type: TextIO
        self.file_handler.write("#{}\n".format(json.dumps(header)))
        self.logger = csv.DictWriter(self.file_handler, fieldnames=("r", "l", "t") + tuple(extra_keys))
        self.logger.writeheader()
        self.file_handler.flush()

    def write_row(self, episode_info: Dict[str, Any]) -> None:
        """
        Append the record of one episode.

        :param episode_info: (dict) the values of the columns (``r``, ``l``, ``t`` and the extra keys)
        """
        self.logger.writerow(episode_info)
        self.file_handler.flush()

    def close(self) -> None:
        """
        Close the file.
        """
        self.file_handler.close()


class Monitor(gymnasium.Wrapper):
    """
    Environment wrapper that records the reward, length and wall time of each episode.

    The monitor answers in the API of the environment it wraps: a gymnasium environment gets
    ``reset() -> (obs, info)`` and ``step() -> (obs, reward, terminated, truncated, info)``, a legacy
    gym-style environment gets ``reset() -> obs`` and ``step() -> (obs, reward, done, info)``.
    When an episode ends, the step's info holds ``info['episode'] = {'r': return, 'l': length,
    't': seconds since the monitor was created}`` (plus the ``info_keywords`` and ``reset_keywords``).

    Nothing is written unless ``filename`` is given; then each episode is a row ``r,l,t,...`` of
    ``<filename>.monitor.csv`` (``<filename>/monitor.csv`` for a folder), after a header line
    ``#{"t_start": ..., "env_id": ...}``.

    :param env: (gym.Env) The environment (gymnasium or legacy gym-style)
    :param filename: (Optional[str]) where to write the log, None for no file
    :param allow_early_resets: (bool) whether ``reset()`` may be called before the episode has ended
    :param reset_keywords: (tuple) names of keyword arguments that every ``reset()`` must receive; they
        are recorded with the episode
    :param info_keywords: (tuple) keys of the last step's info to record with the episode
    """
    EXT = "monitor.csv"
    file_handler: Optional[TextIO] = None

    def __init__(self, env: Any, filename: Optional[str], allow_early_resets: bool = True,
                 reset_keywords: Tuple[str, ...] = (), info_keywords: Tuple[str, ...] = ()) -> None:
        super().__init__(gym_compat.as_gymnasium_env(env))
        self.t_start = time.time()
        self.reset_keywords = tuple(reset_keywords)
        self.info_keywords = tuple(info_keywords)
        self.allow_early_resets = allow_early_resets
        self.filename = None  # type: Optional[str]
        self.file_handler = None
        self.logger = None  # type: Optional[csv.DictWriter]
        if filename is not None:
            self._open_log(os.fspath(filename))
        self.rewards = None  # type: Optional[List[float]]
        self.needs_reset = True
        self.episode_rewards = []  # type: List[float]
        self.episode_lengths = []  # type: List[int]
        self.episode_times = []  # type: List[float]
        self.total_steps = 0
        # the reset_keywords values given to the reset() that started the current episode
        self.current_reset_info = {}  # type: Dict[str, Any]

    def _open_log(self, path: str) -> None:
        """Create the csv log (see :class:`ResultsWriter`)."""
        spec = self.env.spec
        writer = ResultsWriter(path, header={"t_start": self.t_start, "env_id": None if spec is None else spec.id},
                               extra_keys=self.reset_keywords + self.info_keywords)
        self.filename, self.file_handler, self.logger = writer.filename, writer.file_handler, writer.logger

    def reset(self, **kwargs: Any) -> Any:
        """
        Start a new episode. Unless ``allow_early_resets``, the previous episode must have ended.

        :param kwargs: the ``reset_keywords`` (all required) and any other keyword of the environment's
            ``reset`` (``seed`` and ``options`` work for both APIs)
        :return: the first observation, with the reset info for a gymnasium environment
        """
        if not (self.needs_reset or self.allow_early_resets):
            raise RuntimeError("Tried to reset an environment before done. If you want to allow early resets, "
                               "wrap your env with Monitor(env, path, allow_early_resets=True)")
        self.rewards = []
        self.needs_reset = False
        for key in self.reset_keywords:
            if kwargs.get(key) is None:
                raise ValueError("Expected you to pass keyword argument '{}' into reset (it is in reset_keywords "
                                 "{})".format(key, self.reset_keywords))
            self.current_reset_info[key] = kwargs[key]
        seed = kwargs.pop("seed", None)
        options = kwargs.pop("options", None)
        return gym_compat.reset_with_api(self.env, seed=seed, options=options, **kwargs).in_own_api()

    def step(self, action: Any) -> tuple:
        """
        Step the environment and count the reward towards the current episode.

        :param action: (np.ndarray) the action
        :return: (tuple) ``(obs, reward, terminated, truncated, info)`` for a gymnasium environment,
            ``(obs, reward, done, info)`` for a legacy one
        """
        if self.needs_reset:
            raise RuntimeError("Tried to step environment that needs reset (call reset() first, and after each "
                               "episode end)")
        env = self.env
        result = None  # a StepResult, unless the env gave the common gymnasium answer (read directly)
        if isinstance(env, gym_compat.LegacyEnvAdapter):
            result = gym_compat.step_with_api(env, action)
        else:
            answer = env.step(action)
            if type(answer) is tuple and len(answer) == 5:  # noqa: E721
                obs, reward, terminated, truncated, info = answer
            else:
                result = gym_compat.read_step_answer(answer)
        if result is not None:
            obs, reward, terminated, truncated, info = result.in_gymnasium_api()
        terminated, truncated = bool(terminated), bool(truncated)
        if info is None:
            info = {}
        rewards = self.rewards
        assert rewards is not None, "reset() starts the list, and needs_reset makes step() wait for it"
        rewards.append(reward if type(reward) is float else _scalar_reward(reward))  # noqa: E721
        if terminated or truncated:
            info = self._finish_episode(info)
        self.total_steps += 1
        if result is not None and result.legacy:
            return result._replace(info=info).in_legacy_api()
        return obs, reward, terminated, truncated, info

    def _finish_episode(self, info: Dict[Any, Any]) -> Dict[Any, Any]:
        """
        Record the episode that just ended (and write its csv row).

        :param info: (dict) the info of the last step
        :return: (dict) a copy of ``info`` with the episode summary under ``'episode'``
        """
        self.needs_reset = True
        rewards = self.rewards or []
        episode_return = sum(rewards)
        length = len(rewards)
        elapsed = time.time() - self.t_start
        summary = summarize_episode(episode_return, length, elapsed)
        for key in self.info_keywords:
            if key not in info:
                raise KeyError("Monitor(info_keywords={}) expected the key '{}' in the info dict returned by "
                               "step() at the end of the episode; got keys {}"
                               .format(self.info_keywords, key, list(info.keys())))
            summary[key] = info[key]
        self.episode_rewards.append(episode_return)
        self.episode_lengths.append(length)
        self.episode_times.append(elapsed)
        summary.update(self.current_reset_info)
        if self.logger is not None and self.file_handler is not None:
            self.logger.writerow(summary)
            self.file_handler.flush()
        with_summary = dict(info)
        with_summary["episode"] = summary
        return with_summary

    def close(self) -> None:
        """
        Close the environment and the log file.
        """
        super().close()
        self._close_log()

    def _close_log(self) -> None:
        if self.file_handler is not None:
            self.file_handler.close()
            self.file_handler = None

    def get_total_steps(self) -> int:
        """
        :return: (int) the number of steps taken since the monitor was created
        """
        return self.total_steps

    def get_episode_rewards(self) -> List[float]:
        """
        :return: ([float]) the return of every finished episode
        """
        return self.episode_rewards

    def get_episode_lengths(self) -> List[int]:
        """
        :return: ([int]) the length in steps of every finished episode
        """
        return self.episode_lengths

    def get_episode_times(self) -> List[float]:
        """
        :return: ([float]) for every finished episode, the seconds between the monitor's creation and its end
        """
        return self.episode_times

    def __del__(self):
        try:
            self._close_log()
        except Exception:  # pylint: disable=broad-except
            pass


def get_monitor_files(path: str) -> List[str]:
    """
    The monitor csv files of a folder.

    :param path: (str) the folder
    :return: ([str]) the paths of its ``*monitor.csv`` files, sorted
    """
    return sorted(glob(os.path.join(path, "*" + Monitor.EXT)))


def _read_csv_log(file_name: str, handle: Any, pandas: Any) -> Tuple[Dict[str, Any], "pandas.DataFrame"]:
    first_line = handle.readline()
    if not first_line.startswith("#"):
        raise LoadMonitorResultsError("{} is not a monitor file: its first line should be the "
                                      "'#{{\"t_start\": ...}}' header, got {!r}".format(file_name, first_line[:80]))
    return json.loads(first_line[1:]), pandas.read_csv(handle, index_col=None)


def _read_json_log(handle: Any, pandas: Any) -> Tuple[Dict[str, Any], "pandas.DataFrame"]:
    """The monitor format before csv: a JSON header line, then one JSON object per episode."""
    lines = handle.readlines()
    return json.loads(lines[0]), pandas.DataFrame([json.loads(line) for line in lines[1:]])


def _read_log(file_name: str, pandas: Any) -> Tuple[Dict[str, Any], "pandas.DataFrame"]:
    """
    :return: (dict, pandas.DataFrame) the header of one monitor file and its episodes, with absolute times
    """
    with open(file_name, "rt") as handle:
        try:
            if file_name.endswith("csv"):
                header, episodes = _read_csv_log(file_name, handle, pandas)
            else:
                header, episodes = _read_json_log(handle, pandas)
        except (ValueError, IndexError, pandas.errors.ParserError) as err:
            raise LoadMonitorResultsError("could not read the monitor file {}: {}".format(file_name, err)) from err
    if "t_start" not in header:
        raise LoadMonitorResultsError("the header of {} has no 't_start': {}".format(file_name, header))
    if "t" in episodes:
        episodes["t"] += header["t_start"]
    return header, episodes


def load_results(path: str) -> "pandas.DataFrame":
    """
    Read every monitor log of a folder (``*monitor.csv``, and the older ``*monitor.json``) into one table.

    :param path: (str) the folder holding the log file(s)
    :return: (pandas.DataFrame) one row per episode (columns r, l, t, ...), sorted by ``t``, which counts
        seconds from the earliest ``t_start`` of the files
    """
    import pandas  # pylint: disable=import-outside-toplevel  (only needed here: keeps `import Monitor` light)
    file_names = sorted(glob(os.path.join(path, "*monitor.json"))) + get_monitor_files(path)
    if not file_names:
        raise LoadMonitorResultsError("no monitor files of the form *%s found in %s" % (Monitor.EXT, path))
    logs = [_read_log(file_name, pandas) for file_name in file_names]
    table = pandas.concat([episodes for _, episodes in logs]).sort_values("t").reset_index()
    table["t"] -= min(header["t_start"] for header, _ in logs)
    return table
