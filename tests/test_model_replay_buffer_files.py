"""
``save_replay_buffer`` / ``load_replay_buffer`` of the off-policy models: the transitions come back into a
fresh model, from a file without pickle, and the next ``learn`` continues with them.
"""
import zipfile

import numpy as np
import pytest

from stable_baselines import DQN, HER, SAC, TD3
from stable_baselines.common.bit_flipping_env import BitFlippingEnv

try:
    from stable_baselines import DDPG
except ImportError:  # without the mpi extra DDPG is not exported
    DDPG = None

CASES = [(DQN, "CartPole-v1", {}), (DQN, "CartPole-v1", {"prioritized_replay": True}),
         (SAC, "Pendulum-v1", {}), (TD3, "Pendulum-v1", {})]
if DDPG is not None:
    CASES.append((DDPG, "Pendulum-v1", {}))


def _transitions(buffer):
    return [tuple(np.asarray(part).tolist() for part in row) for row in buffer.storage]


@pytest.mark.parametrize("algo,env_id,kwargs", CASES, ids=lambda case: getattr(case, "__name__", str(case)))
def test_buffer_round_trip_into_a_fresh_model(tmp_path, algo, env_id, kwargs):
    model = algo("MlpPolicy", env_id, seed=0, n_cpu_tf_sess=1, **kwargs)
    model.learn(150)
    path = str(tmp_path / "buffer.npz")
    model.save_replay_buffer(path)
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    assert "header.json" in names and all(name.endswith((".npy", ".json")) for name in names)
    # plain arrays: numpy reads every member without pickle
    with np.load(path, allow_pickle=False) as arrays:
        assert all(arrays[name].dtype != object for name in arrays.files if name != "header.json")

    fresh = algo("MlpPolicy", env_id, seed=1, n_cpu_tf_sess=1, **kwargs)
    fresh.load_replay_buffer(path)
    assert type(fresh.replay_buffer) is type(model.replay_buffer)
    assert len(fresh.replay_buffer) == len(model.replay_buffer) == 150
    assert _transitions(fresh.replay_buffer) == _transitions(model.replay_buffer)

    # learn continues with the loaded transitions (DQN would otherwise start from an empty buffer)
    fresh.learn(20, reset_num_timesteps=False)
    assert len(fresh.replay_buffer) == 170
    assert _transitions(fresh.replay_buffer)[:150] == _transitions(model.replay_buffer)


def test_dqn_without_buffer_says_when_it_exists(tmp_path):
    model = DQN("MlpPolicy", "CartPole-v1")
    with pytest.raises(ValueError, match="no replay buffer yet"):
        model.save_replay_buffer(str(tmp_path / "buffer.npz"))


def test_buffer_of_another_observation_shape_is_refused(tmp_path):
    model = SAC("MlpPolicy", "Pendulum-v1", seed=0, n_cpu_tf_sess=1)
    model.learn(20)
    path = str(tmp_path / "buffer.npz")
    model.save_replay_buffer(path)
    other = SAC("MlpPolicy", "MountainCarContinuous-v0", seed=0, n_cpu_tf_sess=1)
    with pytest.raises(ValueError, match=r"observations of shape \(3,\).*shape \(2,\)"):
        other.load_replay_buffer(path)


def test_prioritized_setting_must_match_the_loaded_buffer(tmp_path):
    model = DQN("MlpPolicy", "CartPole-v1", seed=0, n_cpu_tf_sess=1)
    model.learn(30)
    path = str(tmp_path / "buffer.npz")
    model.save_replay_buffer(path)
    prioritized = DQN("MlpPolicy", "CartPole-v1", prioritized_replay=True, seed=0, n_cpu_tf_sess=1)
    prioritized.load_replay_buffer(path)
    with pytest.raises(ValueError, match="prioritized_replay=True"):
        prioritized.learn(10)


def test_her_buffer_is_refused_clearly(tmp_path):
    # HER's transitions are stored with their dict observations: not numeric arrays, so not written (no pickle)
    model = HER("MlpPolicy", BitFlippingEnv(4, max_steps=4), DQN, n_sampled_goal=2, seed=0, n_cpu_tf_sess=1)
    model.learn(40)
    with pytest.raises(ValueError, match="cannot be written without pickle"):
        model.model.save_replay_buffer(str(tmp_path / "buffer.npz"))
