"""VecNormalize on a VecEnv of nested Dict observations: Box entries at any depth, named by their path."""
import numpy as np
import pytest

from stable_baselines import PPO2
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize
from stable_baselines.common.vec_env.obs_entries import box_entry_shapes
from tests.nested_env_helpers import make_nested


def _venv(n_envs=2):
    return DummyVecEnv([make_nested(index) for index in range(n_envs)])


def test_nested_box_entries_are_named_by_path():
    space = _venv().observation_space
    assert dict(box_entry_shapes(space)) == {"count": (1,), "robot/joints": (2,)}


def test_nested_entries_are_normalized_and_others_pass_through():
    venv = VecNormalize(_venv(), norm_reward=False)
    assert venv.norm_obs_keys == ["count", "robot/joints"]
    raw = [venv.venv.reset()]
    venv.reset()
    for _ in range(5):
        obs, _, _, _ = venv.step(np.zeros(2, dtype=np.int64))
        raw.append(venv.get_original_obs())
    joints = np.concatenate([batch["robot"]["joints"] for batch in raw[1:]])
    np.testing.assert_allclose(venv.obs_rms["robot/joints"].mean, joints.mean(axis=0), rtol=1e-3)
    expected = (raw[-1]["robot"]["joints"] - venv.obs_rms["robot/joints"].mean) / np.sqrt(
        venv.obs_rms["robot/joints"].var + venv.epsilon)
    np.testing.assert_allclose(obs["robot"]["joints"], np.clip(expected, -10, 10), rtol=1e-5)
    # the Tuple inside the nested Dict is kept as the env gave it
    np.testing.assert_array_equal(obs["robot"]["flags"][0], raw[-1]["robot"]["flags"][0])
    np.testing.assert_array_equal(obs["robot"]["flags"][1], raw[-1]["robot"]["flags"][1])
    back = venv.unnormalize_obs(obs)
    np.testing.assert_allclose(back["robot"]["joints"], raw[-1]["robot"]["joints"], atol=1e-4)


def test_nested_key_subset_and_bad_key():
    venv = VecNormalize(_venv(), norm_obs_keys=["robot/joints"])
    assert list(venv.obs_rms) == ["robot/joints"]
    with pytest.raises(ValueError, match="robot/flags"):
        VecNormalize(_venv(), norm_obs_keys=["robot/flags"])


def test_model_file_keeps_nested_statistics(tmp_path):
    venv = VecNormalize(_venv())
    model = PPO2("MultiInputPolicy", venv, n_steps=8, nminibatches=1, seed=0, n_cpu_tf_sess=1)
    model.learn(32)
    model.save(str(tmp_path / "nested"))
    stored = PPO2.load(str(tmp_path / "nested")).get_normalization_statistics()
    assert stored.norm_obs_keys == ["count", "robot/joints"]
    np.testing.assert_array_equal(stored.obs_rms["robot/joints"].mean, venv.obs_rms["robot/joints"].mean)
    loaded = PPO2.load(str(tmp_path / "nested"), env=_venv())
    wrapper = loaded.get_env()
    assert isinstance(wrapper, VecNormalize) and not wrapper.training
    np.testing.assert_array_equal(wrapper.obs_rms["count"].var, venv.obs_rms["count"].var)
    obs = venv.normalize_obs(_venv().reset())
    np.testing.assert_array_equal(loaded.action_probability(obs), model.action_probability(obs))
