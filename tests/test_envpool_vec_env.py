"""EnvPoolVecEnv against DummyVecEnv: spaces, dynamics, episode ends, truncation, seeding, learning."""
import importlib.util
import sys

import numpy as np
import pytest

from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv, EnvPoolVecEnv


def test_clear_error_without_envpool(monkeypatch):
    monkeypatch.setitem(sys.modules, "envpool", None)
    with pytest.raises(ImportError, match=r"stable-baselines\[envpool\]"):
        EnvPoolVecEnv("CartPole-v1", 2)


needs_envpool = pytest.mark.skipif(importlib.util.find_spec("envpool") is None,
                                   reason="EnvPoolVecEnv needs the optional envpool package "
                                          "(pip install stable-baselines[envpool])")


def _gym_twin(env_id, state, **kwargs):
    """A gymnasium env of the same task, put into the given physical state."""
    env = make_env(env_id, **kwargs)
    env.reset(seed=0)
    env.unwrapped.state = np.array(state, dtype=np.float64)
    return env


@needs_envpool
def test_classic_spaces_match_gymnasium():
    for env_id in ("CartPole-v1", "Pendulum-v1"):
        pool = EnvPoolVecEnv(env_id, 2, seed=0)
        dummy = DummyVecEnv([lambda env_id=env_id: make_env(env_id)])
        assert pool.num_envs == 2
        assert pool.observation_space.shape == dummy.observation_space.shape
        assert pool.observation_space.dtype == dummy.observation_space.dtype
        np.testing.assert_allclose(pool.observation_space.high, dummy.observation_space.high, rtol=1e-6)
        assert pool.action_space == dummy.action_space or (
            pool.action_space.shape == dummy.action_space.shape
            and np.allclose(pool.action_space.high, dummy.action_space.high))
        pool.close()


@needs_envpool
def test_cartpole_dynamics_and_terminal_observation():
    pool = EnvPoolVecEnv("CartPole-v1", 2, seed=3)
    first = pool.reset()
    assert first.shape == (2, 4) and first.dtype == np.float32
    twin = _gym_twin("CartPole-v1", first[0])
    actions = [1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    for step, action in enumerate(actions):
        obs, rewards, dones, infos = pool.step(np.array([action, 0]))
        twin_obs, twin_reward, terminated, truncated, _ = twin.step(action)
        assert rewards[0] == twin_reward == 1.0
        assert bool(dones[0]) == (terminated or truncated)
        if dones[0]:
            # SB2 semantics: the last observation in the info, a fresh episode in obs, no truncation flag
            np.testing.assert_allclose(infos[0]["terminal_observation"], twin_obs, atol=1e-5)
            assert "TimeLimit.truncated" not in infos[0]
            assert np.all(np.abs(obs[0]) <= 0.05)
            break
        np.testing.assert_allclose(obs[0], twin_obs, atol=1e-5)
        assert "terminal_observation" not in infos[0]
    else:
        pytest.fail("pushing right for {} steps must end the episode".format(len(actions)))
    assert step > 5
    pool.close()


@needs_envpool
def test_truncation_flag_like_dummy_vec_env():
    pool = EnvPoolVecEnv("CartPole-v1", 1, seed=0, max_episode_steps=6)
    dummy = DummyVecEnv([lambda: make_env("CartPole-v1", max_episode_steps=6)])
    pool.reset()
    dummy.reset()
    for step in range(6):
        action = np.array([step % 2])
        _, _, pool_dones, pool_infos = pool.step(action)
        _, _, dummy_dones, dummy_infos = dummy.step(action)
        assert pool_dones.tolist() == dummy_dones.tolist() == [step == 5]
    assert pool_infos[0]["TimeLimit.truncated"] is True and dummy_infos[0]["TimeLimit.truncated"] is True
    assert pool_infos[0]["terminal_observation"].shape == (4,)


@needs_envpool
def test_pendulum_reward_sum_of_fixed_actions():
    pool = EnvPoolVecEnv("Pendulum-v1", 1, seed=1)
    cos, sin, speed = pool.reset()[0]
    twin = _gym_twin("Pendulum-v1", [np.arctan2(sin, cos), speed])
    actions = np.linspace(-2, 2, 50, dtype=np.float32)
    pool_sum = twin_sum = 0.0
    for action in actions:
        obs, rewards, _, _ = pool.step(np.array([[action]]))
        twin_obs, twin_reward, _, _, _ = twin.step(np.array([action]))
        pool_sum += float(rewards[0])
        twin_sum += float(twin_reward)
    np.testing.assert_allclose(obs[0], twin_obs, atol=1e-3)
    assert pool_sum == pytest.approx(twin_sum, rel=1e-4)
    assert pool_sum < 0


@needs_envpool
def test_pendulum_truncated_at_200_steps():
    pool = EnvPoolVecEnv("Pendulum-v1", 2, seed=0)
    pool.reset()
    for step in range(200):
        _, _, dones, infos = pool.step(np.zeros((2, 1), dtype=np.float32))
        assert dones.tolist() == [step == 199] * 2
    assert all(info["TimeLimit.truncated"] for info in infos)


@needs_envpool
def test_seed_rebuilds_the_pool():
    pool = EnvPoolVecEnv("CartPole-v1", 3, seed=5)
    first = pool.reset()
    assert pool.seed(5) == [5, 5, 5]
    np.testing.assert_array_equal(pool.reset(), first)
    pool.seed(6)
    assert not np.array_equal(pool.reset(), first)
    assert pool.get_attr("spec", indices=[0, 2])[0].config.num_envs == 3
    with pytest.raises(AttributeError, match="EnvPool"):
        pool.env_method("action_masks")
    with pytest.raises(AttributeError, match="EnvPool"):
        pool.set_attr("x", 1)
    with pytest.raises(NotImplementedError, match="render"):
        pool.get_images()


@needs_envpool
def test_atari_stack_matches_make_atari_env_layout():
    pool = EnvPoolVecEnv("Breakout-v5", 2, seed=0)
    assert pool.observation_space.shape == (84, 84, 4) and pool.observation_space.dtype == np.uint8
    assert pool.action_space.n == 4
    assert pool.envpool_kwargs == {"episodic_life": True, "reward_clip": True}
    obs = pool.reset()
    assert obs.shape == (2, 84, 84, 4) and obs.flags.c_contiguous
    rng = np.random.default_rng(0)
    n_done, rewards_seen = 0, set()
    for _ in range(400):
        obs, rewards, dones, infos = pool.step(rng.integers(4, size=2))
        rewards_seen.update(rewards.tolist())
        for env_idx in np.flatnonzero(dones):
            n_done += 1
            terminal = infos[env_idx]["terminal_observation"]
            assert terminal.shape == (84, 84, 4) and terminal.dtype == np.uint8
    # a lost life ends the learner's episode (episodic_life), rewards are clipped
    assert n_done >= 2
    assert rewards_seen <= {0.0, 1.0, -1.0}
    pool.close()


@pytest.mark.slow
@needs_envpool
def test_ppo2_learns_cartpole_on_envpool():
    from stable_baselines import PPO2
    from stable_baselines.common.evaluation import evaluate_policy

    env = EnvPoolVecEnv("CartPole-v1", 8, seed=0)
    model = PPO2("MlpPolicy", env, n_steps=32, nminibatches=1, lam=0.8, gamma=0.98, noptepochs=20, ent_coef=0.0,
                 learning_rate=lambda f: f * 1e-3, cliprange=lambda f: f * 0.2, seed=0, n_cpu_tf_sess=1)
    model.learn(30000)
    # trained on EnvPool's CartPole, evaluated on gymnasium's (random play scores about 20)
    mean_reward, _ = evaluate_policy(model, make_env("CartPole-v1"), n_eval_episodes=10)
    assert mean_reward >= 150
