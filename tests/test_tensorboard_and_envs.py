"""Tensorboard logging of A2C / PPO2, and the environments a model accepts (ids, plain, legacy, VecEnv)."""
import glob
import os

import gymnasium
import numpy as np
import pytest

from stable_baselines import A2C, DQN, PPO2
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize


def _scalar_tags(run_dir: str) -> set:
    tags = set()
    for event_file in glob.glob(os.path.join(run_dir, "events.out.tfevents.*")):
        for event in tf.train.summary_iterator(event_file):
            for value in event.summary.value:
                tags.add(value.tag)
    return tags


@pytest.mark.parametrize("model_class,name", [(A2C, "A2C"), (PPO2, "PPO2")])
def test_tensorboard_runs_and_scalars(tmp_path, model_class, name):
    log_dir = str(tmp_path)
    model = model_class("MlpPolicy", "CartPole-v1", n_steps=16, tensorboard_log=log_dir, seed=0)
    model.learn(200)
    model.learn(200, reset_num_timesteps=False)  # continues the same run
    model.learn(200, tb_log_name="second")
    model.learn(200)  # a new run of the default name
    assert sorted(os.listdir(log_dir)) == sorted(["{}_1".format(name), "{}_2".format(name), "second_1"])
    tags = _scalar_tags(os.path.join(log_dir, "{}_1".format(name)))
    for tag in ("loss/entropy_loss", "loss/policy_gradient_loss", "loss/value_function_loss",
                "input_info/discounted_rewards", "input_info/learning_rate", "episode_reward"):
        assert tag in tags, (tag, sorted(tags))


def test_full_tensorboard_log_adds_histograms(tmp_path):
    model = PPO2("MlpPolicy", "CartPole-v1", n_steps=16, tensorboard_log=str(tmp_path), full_tensorboard_log=True)
    model.learn(200)
    run_dir = os.path.join(str(tmp_path), "PPO2_1")
    histograms = set()
    for event_file in glob.glob(os.path.join(run_dir, "events.out.tfevents.*")):
        for event in tf.train.summary_iterator(event_file):
            histograms.update(v.tag for v in event.summary.value if v.HasField("histo"))
    # (TF names a histogram "<tag>_1" when a scalar already took "<tag>", as TF 1.15 did)
    assert any(tag.startswith("input_info/advantage") for tag in histograms), sorted(histograms)
    assert "input_info/observation" in histograms


class LegacyCartPole:
    """A gym-style env of the old API: reset() -> obs, step() -> (obs, reward, done, info), seed()."""

    def __init__(self):
        self._env = gymnasium.make("CartPole-v1")
        self.observation_space = self._env.observation_space
        self.action_space = self._env.action_space
        self._seed = None

    def seed(self, seed=None):
        self._seed = seed
        return [seed]

    def reset(self):
        obs, _ = self._env.reset(seed=self._seed)
        self._seed = None
        return obs

    def step(self, action):
        obs, reward, terminated, truncated, info = self._env.step(action)
        if truncated and not terminated:
            info["TimeLimit.truncated"] = True
        return obs, reward, terminated or truncated, info


@pytest.mark.parametrize("make", [lambda: "CartPole-v1", lambda: gymnasium.make("CartPole-v1"), LegacyCartPole,
                                  lambda: DummyVecEnv([LegacyCartPole, lambda: gymnasium.make("CartPole-v1")])],
                         ids=["id", "gymnasium", "legacy", "vecenv"])
def test_models_accept_every_kind_of_env(make):
    env = make()
    model = A2C("MlpPolicy", env, n_steps=8, seed=0)
    assert model.get_env().num_envs == (2 if "VecEnv" in type(env).__name__ else 1)
    model.learn(160)
    assert model.num_timesteps == 160


def test_get_vec_normalize_env_and_wrong_action_space():
    env = VecNormalize(DummyVecEnv([lambda: gymnasium.make("Pendulum-v1")]))
    model = PPO2("MlpPolicy", env, n_steps=16)
    assert model.get_vec_normalize_env() is env
    assert isinstance(model.predict(np.zeros(3))[0], np.ndarray)
    # Box actions are clipped to the bounds in predict
    actions, _ = model.predict(np.random.randn(50, 3) * 10)
    assert actions.min() >= -2.0 and actions.max() <= 2.0

    class DiscretePendulum(gymnasium.Wrapper):
        """Pendulum's observations with a Discrete action space."""

        def __init__(self):
            super().__init__(gymnasium.make("Pendulum-v1"))
            self.action_space = gymnasium.spaces.Discrete(3)

    with pytest.raises(ValueError, match="action space"):
        model.set_env(DummyVecEnv([DiscretePendulum]))


class _ResetRecorder(gymnasium.Wrapper):
    """Records the seed and first observation of every reset."""

    def __init__(self, env):
        super().__init__(env)
        self.resets = []

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self.resets.append((kwargs.get("seed"), obs))
        return obs, info


def test_seed_acts_like_gyms_env_seed_on_a_gymnasium_env():
    """
    The original seeded a plain env with ``env.seed(seed)``, which resets nothing: the first episode of learn
    starts from the seeded state. A gymnasium env has no seed(); the seed waits for its next reset.
    """
    env = _ResetRecorder(gymnasium.make("CartPole-v1"))
    model = DQN("MlpPolicy", env, seed=3, learning_starts=5, policy_kwargs=dict(layers=[8]))
    assert env.resets == []  # building the model resets nothing
    model.learn(20)
    first_seed, first_obs = env.resets[0]
    assert first_seed == 3
    np.testing.assert_array_equal(first_obs, gymnasium.make("CartPole-v1").reset(seed=3)[0])
    assert all(seed is None for seed, _ in env.resets[1:])
    # set_random_seed resets nothing either: the seed goes to the next reset (the next learn's first)
    count = len(env.resets)
    model.set_random_seed(4)
    assert len(env.resets) == count
    model.learn(20, reset_num_timesteps=False)
    assert env.resets[count][0] == 4
