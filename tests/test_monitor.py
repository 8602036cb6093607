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
    """A legacy env under Monitor is answered in the legacy API (issue 20), and a DummyVecEnv still reads it."""
    env = Monitor(LegacyCounterEnv(ep_length=3), None)
    assert isinstance(env, gymnasium.Env)
    obs = env.reset()
    np.testing.assert_array_equal(obs, [0, 0])
    env.step(0)
    env.step(0)
    obs, reward, done, info = env.step(0)
    np.testing.assert_array_equal(obs, [3, 0])
    assert reward == 1.0 and done is True and info["TimeLimit.truncated"] is True
    assert info["episode"]["r"] == 3.0 and info["episode"]["l"] == 3
    # in a VecEnv
    venv = DummyVecEnv([lambda: Monitor(LegacyCounterEnv(ep_length=2), None)])
    venv.reset()
    venv.step([0])
    _, _, dones, infos = venv.step([0])
    assert dones[0] and infos[0]["episode"]["l"] == 2 and infos[0]["TimeLimit.truncated"]
    assert venv.get_attr("episode_rewards") == [[2.0]]
    assert venv.env_method("get_total_steps") == [2]


class _OldApiEnv(object):
    """
    An env written for the old gym API, not a gymnasium.Env: reset() returns the observation, step() four
    values. The observation counts the steps; action 1 ends the episode with reward 5, otherwise each step
    gives 1 and the episode is cut after ``ep_length`` steps (info['TimeLimit.truncated'], as gym's TimeLimit).
    """
    observation_space = gymnasium.spaces.Box(low=0, high=100, shape=(1,), dtype=np.float32)
    action_space = gymnasium.spaces.Discrete(2)

    def __init__(self, ep_length=4):
        self.ep_length = ep_length
        self.t = 0

    def reset(self):
        self.t = 0
        return np.array([0.0], dtype=np.float32)

    def step(self, action):
        self.t += 1
        obs = np.array([self.t], dtype=np.float32)
        if int(action) == 1:
            return obs, 5.0, True, {"why": "terminal"}
        if self.t >= self.ep_length:
            return obs, 1.0, True, {"why": "cut", "TimeLimit.truncated": True}
        return obs, 1.0, False, {"why": "running"}


class _OldApiGymnasiumSubclass(gymnasium.Env):
    """The same old-API env, but declared as a gymnasium.Env subclass (as ported code often is)."""
    observation_space = _OldApiEnv.observation_space
    action_space = _OldApiEnv.action_space

    def __init__(self, ep_length=4):
        self.inner = _OldApiEnv(ep_length)

    def reset(self):
        return self.inner.reset()

    def step(self, action):
        return self.inner.step(action)


class _NewApiEnv(gymnasium.Env):
    """The same dynamics in the gymnasium API."""
    observation_space = _OldApiEnv.observation_space
    action_space = _OldApiEnv.action_space

    def __init__(self, ep_length=4):
        self.inner = _OldApiEnv(ep_length)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.inner.reset(), {"start": True}

    def step(self, action):
        obs, reward, done, info = self.inner.step(action)
        truncated = bool(info.pop("TimeLimit.truncated", False))
        return obs, reward, done and not truncated, truncated, info


def _plain_loop(env, actions_per_episode, legacy):
    """Run one episode per list of actions the way a user's loop does, in the env's own API."""
    last_infos = []
    for actions in actions_per_episode:
        if legacy:
            obs = env.reset()
        else:
            obs, reset_info = env.reset()
            assert reset_info == {"start": True}
        np.testing.assert_array_equal(obs, [0.0])
        for step, action in enumerate(actions, start=1):
            answer = env.step(action)
            assert len(answer) == (4 if legacy else 5)
            if legacy:
                obs, reward, done, info = answer
            else:
                obs, reward, terminated, truncated, info = answer
                done = terminated or truncated
            np.testing.assert_array_equal(obs, [step])
            assert done == (step == len(actions))
        last_infos.append(info)
    return last_infos


@pytest.mark.parametrize("env_class,legacy", [(_OldApiEnv, True), (_OldApiGymnasiumSubclass, True),
                                              (_NewApiEnv, False)])
def test_monitor_speaks_the_api_of_its_env(tmp_path, env_class, legacy):
    """Issue 20: Monitor(env, filename) in a plain reset/step loop works for both APIs and logs the episodes."""
    env = Monitor(env_class(ep_length=4), str(tmp_path / "run"))
    infos = _plain_loop(env, [[0, 0, 0, 0], [0, 1], [1]], legacy)
    env.close()
    assert env.get_episode_rewards() == [4.0, 6.0, 5.0]
    assert env.get_episode_lengths() == [4, 2, 1]
    assert env.get_total_steps() == 7
    assert [info["episode"]["r"] for info in infos] == [4.0, 6.0, 5.0]
    assert [info["episode"]["l"] for info in infos] == [4, 2, 1]
    assert [info["why"] for info in infos] == ["cut", "terminal", "terminal"]
    if legacy:
        assert infos[0]["TimeLimit.truncated"] is True and "TimeLimit.truncated" not in infos[1]
    results = load_results(str(tmp_path))
    assert results["r"].tolist() == [4.0, 6.0, 5.0] and results["l"].tolist() == [4, 2, 1]


@pytest.mark.parametrize("env_class", [_OldApiEnv, _OldApiGymnasiumSubclass, _NewApiEnv])
def test_monitor_of_either_api_in_dummy_vec_env(tmp_path, env_class):
    venv = DummyVecEnv([lambda: Monitor(env_class(ep_length=3), str(tmp_path / "vec"))])
    np.testing.assert_array_equal(venv.reset(), [[0.0]])
    episode_infos, dones_seen = [], []
    for action in [0, 0, 0, 1, 0, 1]:
        obs, rewards, dones, infos = venv.step([action])
        dones_seen.append(bool(dones[0]))
        if dones[0]:
            episode_infos.append(infos[0])
            np.testing.assert_array_equal(obs, [[0.0]])  # reset automatically
    assert dones_seen == [False, False, True, True, False, True]
    assert [info["episode"]["r"] for info in episode_infos] == [3.0, 5.0, 6.0]
    assert [info["episode"]["l"] for info in episode_infos] == [3, 1, 2]
    assert [info.get("TimeLimit.truncated", False) for info in episode_infos] == [True, False, False]
    np.testing.assert_array_equal(episode_infos[0]["terminal_observation"], [3.0])
    venv.close()
    assert load_results(str(tmp_path))["r"].tolist() == [3.0, 5.0, 6.0]


def test_monitor_passes_seed_to_either_api():
    class SeededOldEnv(_OldApiEnv):
        def seed(self, seed=None):
            self.seeded = seed
            return [seed]

    old = SeededOldEnv()
    obs = Monitor(old, None).reset(seed=3)
    assert old.seeded == 3 and obs.shape == (1,)
    new = Monitor(_NewApiEnv(), None)
    new.reset(seed=3)
    first = new.unwrapped.np_random.random()
    new.reset(seed=3)
    assert new.unwrapped.np_random.random() == first


def test_seeding_reaches_legacy_env_through_monitor():
    venv = DummyVecEnv([lambda: Monitor(LegacyCounterEnv(), None), lambda: Monitor(LegacyCounterEnv(), None)])
    assert venv.seed(5) == [[5], [6]]
    np.testing.assert_array_equal(venv.reset(), [[0, 5], [0, 6]])
    # a gymnasium env under Monitor is seeded through reset(seed=...)
    first = DummyVecEnv([lambda: Monitor(gymnasium.make("CartPole-v1"), None)])
    first.seed(5)
    np.testing.assert_array_equal(first.reset()[0], gymnasium.make("CartPole-v1").reset(seed=5)[0])


@pytest.mark.parametrize("env_class", [_OldApiEnv, _NewApiEnv])
def test_models_train_on_a_monitor_of_either_api(env_class):
    """An off-policy model steps its (non-vectorized) env itself: a Monitor of either API records every episode."""
    from stable_baselines import DQN
    env = Monitor(env_class(ep_length=5), None)
    model = DQN("MlpPolicy", env, learning_starts=10, policy_kwargs=dict(layers=[8]), seed=0, n_cpu_tf_sess=1)
    model.learn(total_timesteps=40)
    lengths = env.get_episode_lengths()
    assert len(lengths) >= 8 and all(1 <= length <= 5 for length in lengths)
    assert env.get_total_steps() == 40
    assert sum(lengths) + len(env.rewards) == 40  # the finished episodes and the one still running


def test_gym_compat_results_answer_in_either_api():
    from stable_baselines.common import gym_compat
    old = _OldApiGymnasiumSubclass(ep_length=2)
    reset = gym_compat.reset_with_api(old)
    assert reset.legacy and reset.info == {} and reset.in_own_api() is reset.obs
    step = gym_compat.step_with_api(old, 0)
    assert step.legacy and not step.terminated and not step.truncated
    step = gym_compat.step_with_api(old, 0)
    assert (step.terminated, step.truncated) == (False, True)
    obs, reward, done, info = step.in_own_api()
    assert obs[0] == 2.0 and reward == 1.0 and done is True and info is step.info

    new = _NewApiEnv(ep_length=1)
    reset = gym_compat.reset_with_api(new, seed=1)
    assert not reset.legacy and reset.in_own_api()[1] == {"start": True}
    step = gym_compat.step_with_api(new, 0)
    assert not step.legacy and step.in_own_api() == step.in_gymnasium_api()
    assert (step.terminated, step.truncated) == (False, True) and "TimeLimit.truncated" not in step.info
    # a gymnasium truncation told in the legacy API carries gym's TimeLimit marker, on a copy of the info
    _, _, done, info = step.in_legacy_api()
    assert done is True and info["TimeLimit.truncated"] is True and "TimeLimit.truncated" not in step.info
    terminal = step._replace(terminated=True, truncated=False)
    assert terminal.in_legacy_api()[2:] == (True, step.info)
