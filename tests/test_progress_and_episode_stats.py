"""
``learn(..., progress_bar=True)`` with ``verbose=1``: the tables are written above the bar, the bar ends at the
requested total; a plain environment (or id) given to a vectorised algorithm reports episode statistics.
"""
import os

import gymnasium as gym
import numpy as np

from stable_baselines import A2C, PPO2
from stable_baselines.bench import Monitor
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.model.environment import has_monitor


class _StopAfter(BaseCallback):
    def __init__(self, calls):
        super().__init__()
        self.calls = calls

    def _on_step(self):
        return self.n_calls < self.calls


def _bar_states(err):
    """The successive texts of the tqdm bar (it redraws itself after carriage returns)."""
    return [part.strip() for part in err.replace("\n", "\r").split("\r") if "steps" in part]


def test_tables_above_bar_and_bar_ends_at_total(capsys):
    model = PPO2("MlpPolicy", gym.make("CartPole-v1"), verbose=1, seed=0, n_steps=128)
    capsys.readouterr()
    model.learn(total_timesteps=1000, progress_bar=True)
    captured = capsys.readouterr()
    # 1000 // 128 = 7 rollouts: 896 timesteps, and the bar still ends at the requested 1000
    assert model.num_timesteps == 896
    states = _bar_states(captured.err)
    assert states[-1].startswith("100%") and "1000/1000" in states[-1]
    # seven whole tables on stdout, none broken by the bar, with the episode statistics of the Monitor
    tables = captured.out.split("| approxkl")[1:]
    assert len(tables) == 7
    assert captured.out.count("| ep_reward_mean") == 7
    assert "steps/s" not in captured.out and "%|" not in captured.out
    # the bar takes itself off the line before each table (a line of spaces after a carriage return)
    assert captured.err.count("\r" + " " * 20) >= 7


def test_bar_left_where_a_callback_stopped_training(capsys):
    model = A2C("MlpPolicy", "CartPole-v1", seed=0, n_steps=5)
    model.learn(total_timesteps=1000, callback=_StopAfter(50), progress_bar=True)
    err = capsys.readouterr().err
    assert model.num_timesteps == 50  # A2C counts every step of its one environment
    assert "| 50/1000 " in _bar_states(err)[-1]
    assert "1000/1000" not in err


def test_tables_without_bar_go_to_stdout_directly(capsys):
    from stable_baselines.logging_parts.formats import _TERMINAL_GUARD
    model = PPO2("MlpPolicy", "CartPole-v1", verbose=1, seed=0, n_steps=64)
    model.learn(total_timesteps=128, progress_bar=True)
    assert _TERMINAL_GUARD[0] is None  # the bar's guard is removed when the bar closes
    model.learn(total_timesteps=128)
    captured = capsys.readouterr()
    assert captured.out.count("| ep_reward_mean") >= 1


def test_env_id_and_plain_env_get_a_monitor_without_file(tmp_path, monkeypatch):
    monkeypatch.chdir(str(tmp_path))
    by_id = A2C("MlpPolicy", "CartPole-v1", seed=0)
    plain = gym.make("CartPole-v1")
    by_env = PPO2("MlpPolicy", plain, seed=0, n_steps=64)
    for model in (by_id, by_env):
        inner = model.get_env().envs[0]
        assert isinstance(inner, Monitor) and inner.filename is None
    assert by_env.get_env().envs[0].env is plain
    by_env.learn(256)
    episodes = list(by_env.ep_info_buf)
    assert episodes and all(set(info) >= {"r", "l", "t"} for info in episodes)
    assert sum(info["l"] for info in episodes) <= 256
    by_env.set_env("CartPole-v1")
    assert isinstance(by_env.get_env().envs[0], Monitor)
    assert os.listdir(str(tmp_path)) == []  # nothing written to disk


def test_monitored_env_keeps_its_own_monitor(tmp_path):
    log = str(tmp_path / "run")
    monitored = Monitor(gym.make("CartPole-v1"), log)
    wrapped = gym.wrappers.TransformReward(monitored, lambda reward: reward)
    for env in (monitored, wrapped):
        model = PPO2("MlpPolicy", env, seed=0, n_steps=64)
        assert model.get_env().envs[0] is env  # not wrapped a second time
        assert has_monitor(env)
    model.learn(128)
    with open(log + ".monitor.csv") as handle:
        rows = handle.read().splitlines()
    assert rows[1] == "r,l,t" and len(rows) > 2
    assert not has_monitor(gym.make("CartPole-v1"))


def test_direct_algorithms_keep_the_given_env():
    from stable_baselines import DQN
    env = gym.make("CartPole-v1")
    model = DQN("MlpPolicy", env, seed=0)
    assert model.get_env() is env  # as the original: the env object itself, not a copy behind a wrapper
    model.set_env("CartPole-v1")
    assert isinstance(model.get_env(), Monitor)
    assert np.isfinite(model.get_env().reset(seed=0)[0]).all()
