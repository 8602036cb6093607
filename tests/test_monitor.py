"""Tests of the Monitor wrapper and of load_results."""
import json
import os

import gymnasium
import numpy as np
import pandas
import pytest

from stable_baselines.bench import Monitor, load_results, get_monitor_files, LoadMonitorResultsError
from stable_baselines.common.vec_env import DummyVecEnv

from vec_env_helpers import LegacyCounterEnv, StepCounterEnv


def _run_episodes(env, n_episodes, action=0):
    infos = []
    for _ in range(n_episodes):
        env.reset()
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        infos.append(info)
    return infos


def test_monitor_csv_and_load_results(tmp_path):
    env = Monitor(gymnasium.make("CartPole-v1", max_episode_steps=8), str(tmp_path / "run0"))
    assert env.filename == str(tmp_path / "run0.monitor.csv")
    env.reset(seed=0)
    infos = _run_episodes(env, 3, action=0)
    lengths = env.get_episode_lengths()
    assert len(lengths) == 3 and all(1 <= length <= 8 for length in lengths)
    assert env.get_episode_rewards() == [float(length) for length in lengths]  # CartPole: +1 per step
    assert env.get_total_steps() == sum(lengths)
    assert len(env.get_episode_times()) == 3
    for info, length in zip(infos, lengths):
        assert set(info["episode"].keys()) == {"r", "l", "t"}
        assert info["episode"]["l"] == length and info["episode"]["r"] == float(length)
    env.close()

    with open(str(tmp_path / "run0.monitor.csv")) as file_handler:
        lines = file_handler.read().splitlines()
    assert lines[0].startswith("#")
    header = json.loads(lines[0][1:])
    assert header["env_id"] == "CartPole-v1" and isinstance(header["t_start"], float)
    assert lines[1] == "r,l,t"
    assert [int(line.split(",")[1]) for line in lines[2:]] == lengths

    # a second monitor file in the same folder
    env2 = Monitor(StepCounterEnv(max_steps=2), str(tmp_path / "run1"))
    _run_episodes(env2, 2)
    env2.close()
    assert get_monitor_files(str(tmp_path)) == [str(tmp_path / "run0.monitor.csv"), str(tmp_path / "run1.monitor.csv")]
    results = load_results(str(tmp_path))
    assert isinstance(results, pandas.DataFrame)
    assert len(results) == 5
    assert sorted(results["l"].tolist()) == sorted(lengths + [2, 2])
    assert list(results["t"]) == sorted(results["t"])  # sorted by time
    assert results["t"].min() >= 0


def test_monitor_folder_filename(tmp_path):
    env = Monitor(StepCounterEnv(max_steps=1), str(tmp_path))
    assert env.filename == os.path.join(str(tmp_path), "monitor.csv")
    _run_episodes(env, 1)
    env.close()
    assert load_results(str(tmp_path))["r"].tolist() == [1.0]


def test_no_file_without_filename(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = Monitor(StepCounterEnv(max_steps=2), None)
    _run_episodes(env, 2)
    env.close()
    assert os.listdir(str(tmp_path)) == []
    assert env.get_episode_rewards() == [3.0, 3.0]  # rewards 1 + 2


def test_load_results_errors(tmp_path):
    with pytest.raises(LoadMonitorResultsError, match="no monitor files"):
        load_results(str(tmp_path))
    with open(str(tmp_path / "bad.monitor.csv"), "w") as file_handler:
        file_handler.write("r,l,t\n1,2,3\n")
    with pytest.raises(LoadMonitorResultsError, match="header"):
        load_results(str(tmp_path))


def test_early_reset_and_step_before_reset():
    env = Monitor(StepCounterEnv(max_steps=3), None, allow_early_resets=False)
    with pytest.raises(RuntimeError, match="needs reset"):
        env.step(0)
    env.reset()
    env.step(0)
    with pytest.raises(RuntimeError, match="allow_early_resets=True"):
        env.reset()
    env.step(0)
    env.step(0)
    env.reset()  # after the end of the episode: fine
    lenient = Monitor(StepCounterEnv(max_steps=3), None)
    lenient.reset()
    lenient.step(0)
    lenient.reset()


def test_info_and_reset_keywords(tmp_path):
    class KeywordEnv(StepCounterEnv):
        def reset(self, *, seed=None, options=None, level=None):
            return super().reset(seed=seed, options=options)

        def step(self, action):
            obs, reward, terminated, truncated, info = super().step(action)
            info["score"] = 10 * self.t
            return obs, reward, terminated, truncated, info

    env = Monitor(KeywordEnv(max_steps=2), str(tmp_path / "kw"), reset_keywords=("level",), info_keywords=("score",))
    with pytest.raises(ValueError, match="level"):
        env.reset()
    env.reset(level=4)
    env.step(0)
    _, _, _, _, info = env.step(0)
    assert info["episode"]["score"] == 20 and info["episode"]["level"] == 4
    env.close()
    with open(str(tmp_path / "kw.monitor.csv")) as file_handler:
        assert file_handler.read().splitlines()[1] == "r,l,t,level,score"
    results = load_results(str(tmp_path))
    assert results["level"].tolist() == [4] and results["score"].tolist() == [20]
    missing = Monitor(StepCounterEnv(max_steps=1), None, info_keywords=("score",))
    missing.reset()
    with pytest.raises(KeyError, match="score"):
        missing.step(0)


def test_monitor_legacy_env_and_vec_env():
    env = Monitor(LegacyCounterEnv(ep_length=3), None)
    assert isinstance(env, gymnasium.Env)
    obs, info = env.reset()
    np.testing.assert_array_equal(obs, [0, 0])
    assert info == {}
    env.step(0)
    env.step(0)
    obs, reward, terminated, truncated, info = env.step(0)
    assert truncated and not terminated
    assert info["episode"]["r"] == 3.0 and info["episode"]["l"] == 3
    # in a VecEnv
    venv = DummyVecEnv([lambda: Monitor(LegacyCounterEnv(ep_length=2), None)])
    venv.reset()
    venv.step([0])
    _, _, dones, infos = venv.step([0])
    assert dones[0] and infos[0]["episode"]["l"] == 2 and infos[0]["TimeLimit.truncated"]
    assert venv.get_attr("episode_rewards") == [[2.0]]
    assert venv.env_method("get_total_steps") == [2]


def test_seeding_reaches_legacy_env_through_monitor():
    venv = DummyVecEnv([lambda: Monitor(LegacyCounterEnv(), None), lambda: Monitor(LegacyCounterEnv(), None)])
    assert venv.seed(5) == [[5], [6]]
    np.testing.assert_array_equal(venv.reset(), [[0, 5], [0, 6]])
    # a gymnasium env under Monitor is seeded through reset(seed=...)
    first = DummyVecEnv([lambda: Monitor(gymnasium.make("CartPole-v1"), None)])
    first.seed(5)
    np.testing.assert_array_equal(first.reset()[0], gymnasium.make("CartPole-v1").reset(seed=5)[0])
