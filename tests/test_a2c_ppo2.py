"""A2C and PPO2: they learn, on every action space, with feed-forward and recurrent policies."""
import numpy as np
import pytest

from stable_baselines import A2C, PPO2
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.identity_env import (IdentityEnv, IdentityEnvBox, IdentityEnvMultiBinary,
                                                  IdentityEnvMultiDiscrete)
from stable_baselines.common.vec_env import DummyVecEnv

from original_training import assert_trains_like_the_original  # pylint: disable=wrong-import-order

# Multi* spaces: reward 1 only when every component matches, so 4 components (16 joint actions) keep
# the task learnable in a few thousand steps.
IDENTITY_ENVS = {
    "Discrete": lambda: IdentityEnv(10),
    "Box": lambda: IdentityEnvBox(eps=0.5),
    "MultiDiscrete": lambda: IdentityEnvMultiDiscrete(4),
    "MultiBinary": lambda: IdentityEnvMultiBinary(4),
}

# the rl-baselines-zoo settings for CartPole-v1 (8 envs)
ZOO_CARTPOLE_KWARGS = {
    A2C: dict(ent_coef=0.0),
    PPO2: dict(n_steps=32, nminibatches=1, lam=0.8, gamma=0.98, noptepochs=20, ent_coef=0.0,
               learning_rate=lambda frac: frac * 0.001, cliprange=lambda frac: frac * 0.2),
}


@pytest.mark.parametrize("model_class,atol", [(A2C, 1e-7), (PPO2, 5e-6)])
def test_training_matches_the_original_libraries_training(model_class, atol):
    """
    The original 2.10 code (run once under tf.compat.v1; see original_2_10/README.md), zoo settings for
    CartPole-v1, seed 0: its parameters before and after learn(4000). Same seed here: the same initial
    parameters, and after training the same ones up to float rounding (A2C: the value that bootstraps each
    rollout is computed in NumPy here; PPO2: also a last-bit difference in its update that grows a little over
    the epochs).
    """
    env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(8)])
    model = model_class("MlpPolicy", env, seed=0, n_cpu_tf_sess=1, **ZOO_CARTPOLE_KWARGS[model_class])
    file_name = "{}_CartPole-v1_seed0_4000.npz".format(model_class.__name__.lower())
    assert_trains_like_the_original(model, 4000, file_name, atol=atol)


def _seeded(env_id, seed):
    """A new env of ``env_id`` whose first episode starts from ``seed``."""
    env = make_env(env_id)
    env.reset(seed=seed)
    return env


@pytest.mark.slow
@pytest.mark.parametrize("space", list(IDENTITY_ENVS))
@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_identity_learns(model_class, space):
    """Each algorithm learns to copy its observation, on every action space (100 steps per episode)."""
    env = DummyVecEnv([IDENTITY_ENVS[space]])
    kwargs = dict(seed=0, n_cpu_tf_sess=1)
    if space == "Box":
        n_timesteps = 20000
        kwargs.update(learning_rate=3e-3, ent_coef=0.0)
        if model_class is PPO2:
            kwargs.update(n_steps=256, nminibatches=4, noptepochs=8)
    else:
        # the reward does not depend on the future: a short horizon makes the value easy to learn
        n_timesteps = 10000
        kwargs.update(gamma=0.7)
        if model_class is PPO2:
            kwargs.update(learning_rate=1.5e-3, lam=0.8)
        else:
            kwargs.update(learning_rate=2e-3, ent_coef=0.0)
    model = model_class("MlpPolicy", env, **kwargs).learn(n_timesteps)
    mean_reward, _ = evaluate_policy(model, DummyVecEnv([IDENTITY_ENVS[space]]), n_eval_episodes=10)
    assert mean_reward >= 90, "{} on {} identity: mean reward {}".format(model_class.__name__, space, mean_reward)


@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
def test_ppo2_cartpole_zoo_settings_solves(learning_seed, learning_score):
    """PPO2 with the rl-baselines-zoo CartPole-v1 settings reaches the solved score in 1e5 steps."""
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(8)])
    model = PPO2("MlpPolicy", env, n_steps=32, nminibatches=1, lam=0.8, gamma=0.98, noptepochs=20, ent_coef=0.0,
                 learning_rate=lambda f: f * 1e-3, cliprange=lambda f: f * 0.2, seed=learning_seed, n_cpu_tf_sess=1)
    model.learn(100000)
    mean_reward, _ = evaluate_policy(model, _seeded("CartPole-v1", 1000 + learning_seed), n_eval_episodes=10)
    learning_score(mean_reward)
    assert mean_reward >= 475


@pytest.mark.slow
@pytest.mark.seeds(1, 0, 2)
def test_a2c_cartpole_zoo_settings_solves(learning_seed, learning_score):
    """A2C with the rl-baselines-zoo CartPole-v1 settings (8 envs, ent_coef 0) solves it; the zoo trains 5e5
    steps, the solved score is reached by 2e5 (measured: 500 on each of seeds 0, 1 and 2)."""
    env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(8)])
    model = A2C("MlpPolicy", env, ent_coef=0.0, seed=learning_seed, n_cpu_tf_sess=1).learn(240000)
    mean_reward, _ = evaluate_policy(model, _seeded("CartPole-v1", 1000 + learning_seed), n_eval_episodes=10)
    learning_score(mean_reward)
    assert mean_reward >= 475


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_seed_makes_runs_identical(model_class):
    """seed + n_cpu_tf_sess=1: two runs of learn give identical parameters."""
    def run():
        env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(2)])
        model = model_class("MlpPolicy", env, n_steps=16, seed=3, n_cpu_tf_sess=1)
        model.learn(256)
        return model.get_parameters()

    first, second = run(), run()
    assert list(first) == list(second)
    for name in first:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_callback_variables_and_early_stop(model_class):
    """Old-style callbacks see the manual's variables; returning False stops training."""
    seen = []

    def callback(locals_, globals_):
        seen.append(locals_)
        return len(seen) < 5

    model = model_class("MlpPolicy", "CartPole-v1", n_steps=8, seed=0)
    model.learn(10000, callback=callback)
    assert len(seen) == 5
    assert model.num_timesteps == 5
    for name in ("self", "actions", "rewards", "infos"):
        assert name in seen[-1], name
    # as in the manual's legacy callback example, _locals["self"] is the model
    assert seen[-1]["self"] is model
    assert seen[-1]["runner"] is model.runner


def test_learn_requires_env():
    model = PPO2("MlpPolicy", "CartPole-v1")
    model.env = None
    with pytest.raises(ValueError, match="without a valid environment"):
        model.learn(100)


def test_progress_bar(capsys):
    """learn(progress_bar=True) draws a tqdm bar that reaches the number of timesteps."""
    model = A2C("MlpPolicy", "CartPole-v1", seed=0)
    model.learn(500, progress_bar=True)
    err = capsys.readouterr().err
    assert "500/500" in err


def test_verbose_prints_the_table(capsys):
    model = PPO2("MlpPolicy", "CartPole-v1", n_steps=64, verbose=1)
    model.learn(128)
    out = capsys.readouterr().out
    for key in ("total_timesteps", "policy_loss", "explained_variance", "fps"):
        assert key in out


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_verbose_table_reports_monitored_episodes(model_class, capsys):
    """With a Monitor under the VecEnv, the logger table has the mean return and length of the episodes."""
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(2)])
    model_class("MlpPolicy", env, n_steps=64, verbose=1, seed=0).learn(512, log_interval=1000)
    rows = {line.split("|")[1].strip(): float(line.split("|")[2]) for line in capsys.readouterr().out.splitlines()
            if line.startswith("| ep_")}
    assert set(rows) == {"ep_reward_mean", "ep_len_mean"}
    assert rows["ep_reward_mean"] == rows["ep_len_mean"] > 5  # CartPole: one reward per step
