"""
Bad input that shows only while a model runs — an env whose observations do not fit its space, NaN rewards, action
noise of the wrong size, ragged observations or out-of-range actions given to ``predict``/``action_probability``:
each ends in an error naming what was expected and what was given, checked where the values enter the collectors
(stable_baselines/common/model/env_values.py), so every algorithm says the same.
"""
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, DQN, PPO2, SAC, TD3
from stable_baselines.common.noise import NormalActionNoise

try:
    from stable_baselines import DDPG, PPO1, TRPO
except ImportError:  # without mpi4py
    DDPG = PPO1 = TRPO = None

MPI = pytest.mark.skipif(PPO1 is None, reason="needs mpi4py (pip install stable-baselines[mpi])")


class ScriptedEnv(gymnasium.Env):
    """An env whose spaces and whose observations and rewards are given."""

    def __init__(self, observation_space: Any, action_space: Any, observation: Any, reward: float = 1.0) -> None:
        self.observation_space, self.action_space = observation_space, action_space
        self.observation, self.reward = observation, reward

    def reset(self, *, seed: Any = None, options: Any = None) -> Any:
        super().reset(seed=seed)
        return self.observation, {}

    def step(self, action: Any) -> Any:
        return self.observation, self.reward, False, False, {}


BOX = spaces.Box(-1.0, 1.0, (4,), np.float32)


def _build(name: str, env: Any) -> Any:
    if name == "A2C":
        return A2C("MlpPolicy", env, n_steps=4, seed=0)
    if name == "PPO2":
        return PPO2("MlpPolicy", env, n_steps=8, nminibatches=1, seed=0)
    if name == "DQN":
        return DQN("MlpPolicy", env, learning_starts=4, batch_size=4, seed=0, policy_kwargs=dict(layers=[8]))
    if name == "SAC":
        return SAC("MlpPolicy", env, learning_starts=4, batch_size=4, seed=0, policy_kwargs=dict(layers=[8]))
    if name == "PPO1":
        return PPO1("MlpPolicy", env, timesteps_per_actorbatch=8, optim_batchsize=8, seed=0)
    return TRPO("MlpPolicy", env, timesteps_per_batch=8, seed=0)


@pytest.mark.parametrize("name", ["A2C", "SAC", "DQN"])
def test_observation_of_another_shape_names_both_shapes(name: str) -> None:
    action_space = spaces.Discrete(2) if name != "SAC" else spaces.Box(-1.0, 1.0, (1,), np.float32)
    model = _build(name, ScriptedEnv(BOX, action_space, np.zeros(3, np.float32)))
    with pytest.raises(ValueError, match=r"observation of shape \(3,\).*Box\(.*expects shape \(4,\)"):
        model.learn(20)


@pytest.mark.parametrize("name", ["A2C", "PPO2", "DQN", pytest.param("TRPO", marks=MPI)])
def test_discrete_observation_outside_the_space_is_refused(name: str) -> None:
    model = _build(name, ScriptedEnv(spaces.Discrete(3), spaces.Discrete(2), 7))
    with pytest.raises(ValueError, match=r"observation \[?7\]? from (reset|step)\(\) outside the observation space "
                                         r"Discrete\(3\) \(values from 0 to 2\)"):
        model.learn(20)


@pytest.mark.parametrize("name", ["A2C", pytest.param("PPO1", marks=MPI)])
def test_text_observations_are_refused(name: str) -> None:
    model = _build(name, ScriptedEnv(spaces.Box(-1.0, 1.0, (2,), np.float32), spaces.Discrete(2),
                                     np.array(["a", "b"])))
    with pytest.raises(ValueError, match=r"observation of dtype <U1.*holds numbers"):
        model.learn(20)


@pytest.mark.parametrize("name", ["A2C", "PPO2", pytest.param("PPO1", marks=MPI), pytest.param("TRPO", marks=MPI)])
def test_nan_rewards_stop_on_policy_training_before_the_parameters_are_lost(name: str) -> None:
    model = _build(name, ScriptedEnv(BOX, spaces.Discrete(2), np.zeros(4, np.float32), reward=float("nan")))
    before = model.get_parameters()
    with pytest.raises(RuntimeError, match=r"reward that is not finite \(\[?nan\]?\) at timestep 1\b.*VecCheckNan"):
        model.learn(40)
    for name_, value in model.get_parameters().items():
        assert np.all(np.isfinite(value)), name_
        np.testing.assert_array_equal(value, before[name_], err_msg=name_)


@pytest.mark.parametrize("name", ["TD3", "SAC", pytest.param("DDPG", marks=MPI)])
def test_action_noise_of_another_size_names_the_noise_and_the_space(name: str) -> None:
    env = ScriptedEnv(spaces.Box(-1.0, 1.0, (2,), np.float32), spaces.Box(-1.0, 1.0, (1,), np.float32),
                      np.zeros(2, np.float32))
    noise = NormalActionNoise(np.zeros(3), 0.1 * np.ones(3))
    if name == "DDPG":
        model = DDPG("MlpPolicy", env, action_noise=noise, nb_rollout_steps=4, seed=0)
    else:
        model = {"TD3": TD3, "SAC": SAC}[name]("MlpPolicy", env, action_noise=noise, learning_starts=0, seed=0,
                                               policy_kwargs=dict(layers=[8]))
    with pytest.raises(ValueError, match=r"action noise NormalActionNoise gave a sample of shape \(3,\).*action space "
                                         r"Box\(.*needs one value per action dimension, shape \(1,\)"):
        model.learn(10)


def test_ragged_observations_and_out_of_range_actions_in_predict() -> None:
    model = PPO2("MlpPolicy", ScriptedEnv(BOX, spaces.Discrete(2), np.zeros(4, np.float32)), n_steps=8,
                 nminibatches=1, seed=0)
    with pytest.raises(ValueError, match=r"one observation of the observation space Box\(.*\(shape \(4,\)\) or a "
                                         r"batch of them, got a ragged nesting"):
        model.predict([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match=r"got actions \[5\] outside the action space Discrete\(2\)"):
        model.action_probability(np.zeros(4), actions=[5])
    with pytest.raises(ValueError, match=r"expects one action of the action space Discrete\(2\) per observation, "
                                         r"got a ragged nesting"):
        model.action_probability(np.zeros((2, 4)), actions=[[0], [1, 0]])
    # what is right still answers
    probability = model.action_probability(np.zeros((2, 4)), actions=[0, 1])
    assert probability.shape == (2, 1) and np.all((probability > 0) & (probability < 1))
