"""Tests of the identity environments."""
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common.env_checker import check_env
from stable_baselines.common.identity_env import (IdentityEnv, IdentityEnvBox, IdentityEnvMultiDiscrete,
                                                  IdentityEnvMultiBinary)
from stable_baselines.common.vec_env import DummyVecEnv


@pytest.mark.parametrize("env", [IdentityEnv(10), IdentityEnvBox(), IdentityEnvMultiDiscrete(5),
                                 IdentityEnvMultiBinary(4)])
def test_identity_rewards(env):
    obs, info = env.reset(seed=0)
    assert info == {} and env.observation_space.contains(obs)
    total = 0.0
    for _ in range(20):
        obs, reward, terminated, truncated, _ = env.step(obs)  # copying the observation is always right
        total += reward
    assert total == 20.0 and not terminated and not truncated


def test_wrong_actions_get_no_reward():
    env = IdentityEnv(dim=4, ep_length=50)
    obs, _ = env.reset(seed=1)
    rewards = []
    for _ in range(50):
        obs, reward, _, _, _ = env.step((obs + 1) % 4)
        rewards.append(reward)
    assert sum(rewards) == 0.0

    box = IdentityEnvBox(eps=0.05)
    obs, _ = box.reset(seed=0)
    assert box.step(obs + 0.04)[1] == 1.0
    obs = box.state
    assert box.step(obs + 0.06)[1] == 0.0
    assert box.observation_space.shape == (1,) and box.observation_space.dtype == np.float32

    multi = IdentityEnvMultiDiscrete(3)
    assert isinstance(multi.action_space, spaces.MultiDiscrete) and multi.action_space.nvec.tolist() == [3, 3]
    obs, _ = multi.reset(seed=0)
    assert multi.step((obs + 1) % 3)[1] == 0.0
    binary = IdentityEnvMultiBinary(3)
    obs, _ = binary.reset(seed=0)
    assert binary.step(1 - obs)[1] == 0.0


def test_truncation_and_seeding():
    env = IdentityEnv(dim=3, ep_length=5)
    obs, _ = env.reset(seed=3)
    states = [obs]
    for step in range(5):
        obs, _, terminated, truncated, _ = env.step(0)
        states.append(obs)
        assert not terminated
        assert truncated == (step == 4)
    obs2, _ = env.reset(seed=3)
    states2 = [obs2] + [env.step(0)[0] for _ in range(5)]
    assert states == states2
    assert env.num_resets == 2
    venv = DummyVecEnv([lambda: IdentityEnv(2, ep_length=3)])
    venv.reset()
    for _ in range(3):
        _, rewards, dones, infos = venv.step([0])
    assert dones[0] and infos[0]["TimeLimit.truncated"]


def test_dim_and_space_are_exclusive():
    assert IdentityEnv().action_space == spaces.Discrete(1)
    with pytest.raises(ValueError, match="both 'dim'"):
        IdentityEnv(dim=2, space=spaces.Discrete(2))
    env = IdentityEnv(space=spaces.Discrete(7))
    assert env.observation_space is env.action_space


@pytest.mark.parametrize("env_class", [IdentityEnv, IdentityEnvBox, IdentityEnvMultiDiscrete, IdentityEnvMultiBinary])
def test_identity_envs_pass_check_env(env_class):
    check_env(env_class(), warn=False)
