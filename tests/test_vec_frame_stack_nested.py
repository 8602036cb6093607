"""VecFrameStack on nested Dict observations: Box entries stacked at any depth, other entries unchanged."""
import numpy as np
from gymnasium import spaces

from stable_baselines.common.vec_env import DummyVecEnv, VecFrameStack
from tests.nested_env_helpers import make_nested


def _stacked(n_envs=2, n_stack=3):
    return VecFrameStack(DummyVecEnv([make_nested(index) for index in range(n_envs)]), n_stack)


def test_nested_space_is_stacked():
    space = _stacked().observation_space
    assert space["count"].shape == (3,)
    assert space["robot"]["joints"].shape == (6,)
    assert isinstance(space["robot"]["flags"], spaces.Tuple)
    assert space["robot"]["flags"][0] == spaces.Discrete(3)


def test_nested_entries_stack_and_restart_after_an_episode():
    venv = _stacked()
    obs = venv.reset()
    np.testing.assert_array_equal(obs["robot"]["joints"][1], [0, 0, 0, 0, 0, 10])
    zeros = np.zeros(2, dtype=np.int64)
    obs, _, _, _ = venv.step(zeros)
    obs, _, _, _ = venv.step(zeros)
    # t = 0, 1, 2 for env 1 (joints = [t, 10])
    np.testing.assert_array_equal(obs["robot"]["joints"][1], [0, 10, 1, 10, 2, 10])
    np.testing.assert_array_equal(obs["count"][0], [0, 1, 2])
    assert obs["robot"]["flags"][0].tolist() == [2, 2]
    obs, _, dones, infos = venv.step(zeros)  # the third step truncates every episode (max_steps 3)
    assert dones.all()
    terminal = infos[1]["terminal_observation"]
    np.testing.assert_array_equal(terminal["robot"]["joints"], [1, 10, 2, 10, 3, 10])
    np.testing.assert_array_equal(terminal["count"], [1, 2, 3])
    assert terminal["robot"]["flags"][0] == 0
    np.testing.assert_array_equal(obs["robot"]["joints"][1], [0, 0, 0, 0, 0, 10])
    np.testing.assert_array_equal(obs["count"][1], [0, 0, 0])


def test_stacked_observations_are_copies():
    venv = _stacked()
    first = venv.reset()
    kept = first["robot"]["joints"].copy()
    venv.step(np.zeros(2, dtype=np.int64))
    np.testing.assert_array_equal(first["robot"]["joints"], kept)
