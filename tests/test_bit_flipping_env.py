"""BitFlippingEnv: spaces, gymnasium API, dynamics, rewards and the vectorised compute_reward."""
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common.bit_flipping_env import BitFlippingEnv


def test_default_spaces():
    env = BitFlippingEnv()
    assert env.n_bits == 10 and env.max_steps == 10
    assert isinstance(env.observation_space, spaces.Dict)
    assert list(env.observation_space.spaces) == ["observation", "achieved_goal", "desired_goal"]
    for part in env.observation_space.spaces.values():
        assert isinstance(part, spaces.MultiBinary) and part.n == 10
    assert isinstance(env.action_space, spaces.Discrete) and env.action_space.n == 10


def test_continuous_and_discrete_obs_spaces():
    env = BitFlippingEnv(4, continuous=True, max_steps=7, discrete_obs_space=True)
    assert env.max_steps == 7
    assert isinstance(env.action_space, spaces.Box) and env.action_space.shape == (4,)
    assert env.action_space.low.min() == -1 and env.action_space.high.max() == 1
    for part in env.observation_space.spaces.values():
        # 2 ** n_bits values: the goal (all ones) is 2 ** n_bits - 1
        assert isinstance(part, spaces.Discrete) and part.n == 16
    obs, info = env.reset(seed=0)
    assert info == {}
    assert obs["desired_goal"] == 15
    assert env.observation_space.contains(obs)
    assert obs["observation"] == obs["achieved_goal"] == int(np.dot(env.state, 2 ** np.arange(4)))


def test_reset_gymnasium_api_and_seeding():
    env = BitFlippingEnv(8)
    obs, info = env.reset(seed=123)
    assert isinstance(info, dict)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["observation"], obs["achieved_goal"])
    np.testing.assert_array_equal(obs["desired_goal"], np.ones(8))
    obs_again, _ = BitFlippingEnv(8).reset(seed=123)
    np.testing.assert_array_equal(obs["observation"], obs_again["observation"])
    # the returned arrays are copies of the state
    obs["observation"][:] = 7
    assert set(np.unique(env.state)) <= {0, 1}


def test_discrete_step_flips_bit_and_rewards():
    env = BitFlippingEnv(4, max_steps=10)
    env.reset(seed=0)
    env.state[:] = [1, 1, 1, 0]
    obs, reward, terminated, truncated, info = env.step(0)
    np.testing.assert_array_equal(obs["observation"], [0, 1, 1, 0])
    assert reward == -1.0 and not terminated and not truncated and info["is_success"] is False
    env.step(0)
    obs, reward, terminated, truncated, info = env.step(np.int64(3))
    np.testing.assert_array_equal(obs["achieved_goal"], [1, 1, 1, 1])
    assert reward == 0.0 and terminated and not truncated and info["is_success"] is True


def test_truncation_after_max_steps():
    env = BitFlippingEnv(3, max_steps=2)
    env.reset(seed=0)
    env.state[:] = [0, 0, 0]
    _, _, terminated, truncated, _ = env.step(0)
    assert not terminated and not truncated
    _, reward, terminated, truncated, info = env.step(1)
    assert reward == -1.0 and not terminated and truncated and info["is_success"] is False


def test_continuous_step_flips_positive_components():
    env = BitFlippingEnv(4, continuous=True)
    env.reset(seed=0)
    env.state[:] = [0, 1, 0, 1]
    obs, reward, terminated, _, _ = env.step(np.array([0.5, -0.2, 0.01, 0.0], dtype=np.float32))
    np.testing.assert_array_equal(obs["observation"], [1, 1, 1, 1])
    assert reward == 0.0 and terminated


def test_bad_actions():
    env = BitFlippingEnv(4)
    with pytest.raises(ValueError, match=r"integer action in \[0, 4\), got 4"):
        env.step(4)
    with pytest.raises(ValueError, match="integer action"):
        env.step(0.5)
    env = BitFlippingEnv(4, continuous=True)
    with pytest.raises(ValueError, match=r"shape \(4,\), got shape \(3,\)"):
        env.step(np.zeros(3))
    with pytest.raises(ValueError, match="n_bits"):
        BitFlippingEnv(0)


def test_compute_reward_single_and_batch():
    env = BitFlippingEnv(3)
    assert env.compute_reward(np.ones(3), np.ones(3), None) == 0.0
    assert isinstance(env.compute_reward(np.zeros(3), np.ones(3), None), float)
    achieved = np.array([[1, 1, 1], [0, 1, 1], [0, 0, 0], [1, 0, 1]])
    desired = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1], [1, 0, 0]])
    rewards = env.compute_reward(achieved, desired, [{}] * 4)
    assert rewards.shape == (4,)
    np.testing.assert_array_equal(rewards, [0.0, 0.0, -1.0, -1.0])
    with pytest.raises(ValueError, match="goals of shape"):
        env.compute_reward(np.ones(4), np.ones(4), None)


def test_compute_reward_discrete_batch():
    env = BitFlippingEnv(3, discrete_obs_space=True)
    assert env.compute_reward(7, 7, None) == 0.0
    assert env.compute_reward(3, 7, None) == -1.0
    np.testing.assert_array_equal(env.compute_reward(np.array([7, 1, 5]), np.array([7, 2, 5]), None),
                                  [0.0, -1.0, 0.0])
    np.testing.assert_array_equal(env.compute_reward(np.array([[7], [1]]), np.array([[7], [2]]), None), [0.0, -1.0])


def test_render():
    env = BitFlippingEnv(3)
    env.reset(seed=1)
    np.testing.assert_array_equal(env.render("rgb_array"), env.state)
