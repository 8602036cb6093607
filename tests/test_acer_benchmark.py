"""The training-episode statistics of benchmarks/acer_cartpole.py (no training: fake episodes)."""
import importlib.util
import os

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.bench import Monitor
from stable_baselines.common.vec_env import DummyVecEnv

BENCHMARK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks",
                         "acer_cartpole.py")


def _load_benchmark():
    spec = importlib.util.spec_from_file_location("acer_cartpole_benchmark", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _FixedLengthEnv(gymnasium.Env):
    """Episodes of a fixed length; reward ``value`` per step."""

    observation_space = spaces.Box(-1.0, 1.0, (1,), np.float32)
    action_space = spaces.Discrete(2)

    def __init__(self, length, value):
        self.length, self.value, self.t = length, value, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(1, np.float32), {}

    def step(self, action):
        self.t += 1
        return np.zeros(1, np.float32), self.value, self.t >= self.length, False, {}


def test_training_episode_rewards_are_in_the_order_episodes_ended():
    bench = _load_benchmark()
    # env 0: episodes of 3 steps, return 3 each, ending at env steps 3, 6, 9
    # env 1: episodes of 2 steps, return 20 each, ending at env steps 2, 4, 6, 8
    env = DummyVecEnv([lambda: Monitor(_FixedLengthEnv(3, 1.0), None),
                       lambda: Monitor(_FixedLengthEnv(2, 10.0), None)])
    env.reset()
    for _ in range(9):
        env.step(np.zeros(2, dtype=np.int64))
    rewards = bench.training_episode_rewards(env)
    # ends: (2, env1), (3, env0), (4, env1), (6, env0), (6, env1), (8, env1), (9, env0)
    np.testing.assert_allclose(rewards, [20, 3, 20, 3, 20, 20, 3])


def test_training_episode_rewards_needs_monitors():
    bench = _load_benchmark()
    env = DummyVecEnv([lambda: _FixedLengthEnv(3, 1.0)])
    with pytest.raises(TypeError, match="Monitor"):
        bench.training_episode_rewards(env)


def test_best_window_mean():
    bench = _load_benchmark()
    rewards = np.array([1.0, 5.0, 5.0, 2.0, 9.0, 0.0])
    assert bench.best_window_mean(rewards, window=2) == pytest.approx(5.5)
    assert bench.best_window_mean(rewards, window=6) == pytest.approx(np.mean(rewards))
    assert np.isnan(bench.best_window_mean(rewards, window=7))
