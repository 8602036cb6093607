"""Tests of VecNormalize and RunningMeanStd: numerics against numpy, save/load, legacy statistics files."""
import os
import pickle

import gymnasium
import numpy as np
import pytest

from stable_baselines.common.running_mean_std import RunningMeanStd
from stable_baselines.common.vec_env import (DummyVecEnv, VecFrameStack, VecNormalize, sync_envs_normalization,
                                             unwrap_vec_normalize)

from vec_env_helpers import GaussianObsEnv, DictObsEnv, TupleObsEnv

LEGACY_STATS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models", "ppo2",
                            "MountainCar-v0")


def _make_venv(n_envs=2, seed=0):
    venv = DummyVecEnv([GaussianObsEnv for _ in range(n_envs)])
    venv.seed(seed)
    return venv


def _rollout(vec_normalize, n_steps=40):
    """Step with zero actions; return the raw observations (including the reset one), rewards and dones."""
    raw_obs = [vec_normalize.reset()]
    raw_obs[0] = vec_normalize.get_original_obs()
    rewards, dones, normalized = [], [], []
    for _ in range(n_steps):
        obs, reward, done, _ = vec_normalize.step(np.zeros((vec_normalize.num_envs, 1), dtype=np.float32))
        raw_obs.append(vec_normalize.get_original_obs())
        rewards.append(vec_normalize.get_original_reward())
        dones.append(done)
        normalized.append((obs, reward))
    return raw_obs, np.array(rewards), np.array(dones), normalized


def test_running_mean_std_matches_numpy():
    rng = np.random.RandomState(0)
    batches = [rng.normal(3.0, 2.0, size=(n, 3)) for n in (5, 17, 1, 40)]
    rms = RunningMeanStd(epsilon=1e-4, shape=(3,))
    for batch in batches:
        rms.update(batch)
    data = np.concatenate(batches)
    np.testing.assert_allclose(rms.mean, data.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(rms.var, data.var(axis=0), rtol=1e-5)
    assert rms.count == pytest.approx(len(data) + 1e-4)
    # exact with epsilon -> 0
    exact = RunningMeanStd(epsilon=1e-12, shape=(3,))
    for batch in batches:
        exact.update(batch)
    np.testing.assert_allclose(exact.var, data.var(axis=0), rtol=1e-9)
    with pytest.raises(ValueError, match=r"\(batch_size,\) \+ \(3,\)"):
        rms.update(np.zeros((4, 2)))


def test_update_from_moments():
    rms = RunningMeanStd(shape=())
    rms.update_from_moments(np.array(2.0), np.array(4.0), 1e6)
    assert rms.mean == pytest.approx(2.0, rel=1e-6) and rms.var == pytest.approx(4.0, rel=1e-5)


def test_vec_normalize_numerics_against_numpy():
    gamma = 0.9
    venv = VecNormalize(_make_venv(), gamma=gamma, clip_obs=10.0, clip_reward=10.0)
    raw_obs, rewards, dones, normalized = _rollout(venv, n_steps=40)
    # observation statistics: all step observations (the reset observation is not used by the original)
    step_obs = np.concatenate(raw_obs[1:])
    np.testing.assert_allclose(venv.obs_rms.mean, step_obs.mean(axis=0), rtol=1e-4)
    np.testing.assert_allclose(venv.obs_rms.var, step_obs.var(axis=0), rtol=1e-4)
    # reward statistics: discounted returns, reset to 0 at episode ends, plus the zeros of reset()
    ret = np.zeros(2)
    returns = [ret.copy()]
    for reward, done in zip(rewards, dones):
        ret = ret * gamma + reward
        returns.append(ret.copy())
        ret[done] = 0
    returns = np.concatenate(returns)
    assert dones[6].all() and not dones[5].any()  # episodes of 7 steps
    np.testing.assert_allclose(venv.ret_rms.mean, returns.mean(), rtol=1e-4)
    np.testing.assert_allclose(venv.ret_rms.var, returns.var(), rtol=1e-4)
    # the last step's outputs are the normalized raw values with the statistics at that time
    last_obs, last_reward = normalized[-1]
    expected_obs = np.clip((raw_obs[-1] - venv.obs_rms.mean) / np.sqrt(venv.obs_rms.var + 1e-8), -10, 10)
    np.testing.assert_allclose(last_obs, expected_obs, rtol=1e-6)
    expected_reward = np.clip(rewards[-1] / np.sqrt(venv.ret_rms.var + 1e-8), -10, 10)
    np.testing.assert_allclose(last_reward, expected_reward, rtol=1e-6)
    # normalize / unnormalize round trip; helpers do not update the statistics
    mean_before = venv.obs_rms.mean.copy()
    np.testing.assert_allclose(venv.unnormalize_obs(venv.normalize_obs(raw_obs[-1])), raw_obs[-1], rtol=1e-6)
    np.testing.assert_allclose(venv.unnormalize_reward(venv.normalize_reward(rewards[-1])), rewards[-1], rtol=1e-6)
    np.testing.assert_array_equal(venv.obs_rms.mean, mean_before)


def test_clipping_and_flags():
    venv = VecNormalize(_make_venv(), clip_obs=0.5, clip_reward=0.1)
    _, _, _, normalized = _rollout(venv, n_steps=10)
    assert np.all(np.abs(normalized[-1][0]) <= 0.5) and np.all(np.abs(normalized[-1][1]) <= 0.1)
    raw = VecNormalize(_make_venv(), norm_obs=False, norm_reward=False)
    raw_obs, rewards, _, normalized = _rollout(raw, n_steps=5)
    np.testing.assert_array_equal(normalized[-1][0], raw_obs[-1])
    np.testing.assert_array_equal(normalized[-1][1], rewards[-1])


def test_training_false_freezes_statistics():
    venv = VecNormalize(_make_venv(), training=False)
    _rollout(venv, n_steps=10)
    np.testing.assert_array_equal(venv.obs_rms.mean, np.zeros(3))
    np.testing.assert_array_equal(venv.obs_rms.var, np.ones(3))
    assert venv.ret_rms.count == pytest.approx(1e-4)


def test_get_original_obs_and_reward():
    venv = VecNormalize(_make_venv())
    obs = venv.reset()
    original = venv.get_original_obs()
    assert original.shape == obs.shape == (2, 3)
    np.testing.assert_allclose(venv.normalize_obs(original), obs)
    obs, reward, _, _ = venv.step(np.zeros((2, 1)))
    np.testing.assert_allclose(venv.normalize_reward(venv.get_original_reward()), reward)
    with pytest.raises(RuntimeError, match="call reset"):
        VecNormalize(_make_venv()).get_original_obs()


def test_save_load_round_trip(tmp_path):
    venv = VecNormalize(_make_venv(), gamma=0.95, clip_obs=5.0)
    _rollout(venv, n_steps=20)
    path = str(tmp_path / "vec_normalize.pkl")
    venv.save(path)
    assert os.listdir(str(tmp_path)) == ["vec_normalize.pkl"]  # no temporary file left behind
    loaded = VecNormalize.load(path, _make_venv(seed=1))
    assert loaded.gamma == 0.95 and loaded.clip_obs == 5.0 and loaded.training is True
    np.testing.assert_array_equal(loaded.obs_rms.mean, venv.obs_rms.mean)
    np.testing.assert_array_equal(loaded.obs_rms.var, venv.obs_rms.var)
    assert loaded.ret_rms.count == venv.ret_rms.count
    assert loaded.num_envs == 2 and loaded.observation_space.shape == (3,)
    np.testing.assert_array_equal(loaded.ret, np.zeros(2))
    obs = loaded.reset()
    np.testing.assert_allclose(obs, venv.normalize_obs(loaded.get_original_obs()))
    # the pickle does not contain the wrapped env
    state = pickle.loads(open(path, "rb").read()).__dict__
    assert state["venv"] is None and "class_attributes" not in state
    with pytest.raises(ValueError, match="already initialized"):
        loaded.set_venv(_make_venv())
    # wrong observation shape
    with pytest.raises(ValueError, match=r"shape \(3,\).*shape \(4,\)"):
        VecNormalize.load(path, DummyVecEnv([lambda: gymnasium.make("CartPole-v1")]))


def test_legacy_running_average_files(tmp_path):
    # files written by the original library (rl-baselines-zoo, PPO2 MountainCar-v0)
    venv = VecNormalize(DummyVecEnv([lambda: gymnasium.make("MountainCar-v0")]), training=False, norm_reward=False)
    with pytest.warns(DeprecationWarning):
        venv.load_running_average(LEGACY_STATS)
    assert isinstance(venv.obs_rms, RunningMeanStd)
    assert venv.obs_rms.mean.shape == (2,) and np.all(venv.obs_rms.var > 0)
    obs = venv.reset()
    expected = np.clip((venv.get_original_obs() - venv.obs_rms.mean) / np.sqrt(venv.obs_rms.var + 1e-8), -10, 10)
    np.testing.assert_allclose(obs, expected)
    # save / load round trip of the legacy files
    with pytest.warns(DeprecationWarning):
        venv.save_running_average(str(tmp_path))
    assert sorted(os.listdir(str(tmp_path))) == ["obs_rms.pkl", "ret_rms.pkl"]
    other = VecNormalize(DummyVecEnv([lambda: gymnasium.make("MountainCar-v0")]))
    with pytest.warns(DeprecationWarning):
        other.load_running_average(str(tmp_path))
    np.testing.assert_array_equal(other.obs_rms.mean, venv.obs_rms.mean)
    np.testing.assert_array_equal(other.ret_rms.var, venv.ret_rms.var)
    # statistics of the wrong shape are refused
    cartpole = VecNormalize(DummyVecEnv([lambda: gymnasium.make("CartPole-v1")]))
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match=r"shape \(2,\).*shape \(4,\)"):
        cartpole.load_running_average(LEGACY_STATS)


def test_sync_and_unwrap():
    train_env = VecNormalize(_make_venv())
    eval_env = VecNormalize(_make_venv(), training=False)
    _rollout(train_env, n_steps=5)
    sync_envs_normalization(train_env, eval_env)
    np.testing.assert_array_equal(eval_env.obs_rms.mean, train_env.obs_rms.mean)
    np.testing.assert_array_equal(eval_env.ret_rms.var, train_env.ret_rms.var)
    assert eval_env.obs_rms is not train_env.obs_rms
    stacked = VecFrameStack(train_env, 2)
    assert unwrap_vec_normalize(stacked) is train_env
    assert unwrap_vec_normalize(_make_venv()) is None
    with pytest.warns(UserWarning, match="not copied"):
        sync_envs_normalization(train_env, _make_venv())


def test_bad_input():
    with pytest.raises(TypeError, match="expected a VecEnv"):
        VecNormalize(gymnasium.make("CartPole-v1"))
    with pytest.raises(TypeError, match="Box observation"):
        VecNormalize(DummyVecEnv([TupleObsEnv]))
    # Dict spaces are normalized per key since issue 22 (tests/test_multi_input.py)
    assert VecNormalize(DummyVecEnv([DictObsEnv])).norm_obs_keys == ["pos"]
    assert VecNormalize(DummyVecEnv([DictObsEnv]), norm_obs=False).norm_obs is False


def test_original_reward_keeps_the_subproc_env_dtype():
    """Under SubprocVecEnv the original reward is float64 (the envs' Python floats stacked), as the original gave."""
    from stable_baselines.common.vec_env import SubprocVecEnv
    venv = VecNormalize(SubprocVecEnv([lambda: gymnasium.make("Pendulum-v1")] * 2, start_method="fork"))
    try:
        venv.reset()
        _, normalized, _, _ = venv.step(np.zeros((2, 1), dtype=np.float32))
        original = venv.get_original_reward()
        assert original.dtype == np.float64 and original.shape == (2,)
        assert np.all(original <= 0.0)
        np.testing.assert_allclose(venv.normalize_reward(original), normalized)
    finally:
        venv.close()
