"""Behaviour cloning (`model.pretrain`) from the bundled expert datasets, on the models that support it."""
import os

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, DQN, PPO2, SAC, TD3
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.gail import ExpertDataset

DATASET_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "stable_baselines", "gail", "dataset")
CARTPOLE = os.path.join(DATASET_DIR, "expert_cartpole.npz")
PENDULUM = os.path.join(DATASET_DIR, "expert_pendulum.npz")


def _expert(path):
    with np.load(path) as data:
        return data["obs"], data["actions"]


def _accuracy(model, obs, actions):
    predicted, _ = model.predict(obs, deterministic=True)
    return float(np.mean(predicted == actions[:, 0]))


def _box_error(model, obs, actions):
    predicted, _ = model.predict(obs, deterministic=True)
    return float(np.mean(np.abs(predicted - actions)))


@pytest.mark.slow
def test_pretrain_cartpole_from_bundled_data_alone():
    np.random.seed(0)
    dataset = ExpertDataset(expert_path=CARTPOLE, traj_limitation=10, batch_size=64, verbose=0)
    model = PPO2("MlpPolicy", "CartPole-v1", seed=0, n_cpu_tf_sess=1)
    model.pretrain(dataset, n_epochs=15, learning_rate=1e-3)
    env = make_env("CartPole-v1")
    env.reset(seed=123)
    mean_reward, _ = evaluate_policy(model, env, n_eval_episodes=5, deterministic=True)
    assert mean_reward >= 400, mean_reward


@pytest.mark.parametrize("model_class, kwargs", [(A2C, {}), (DQN, dict(learning_starts=0))])
def test_pretrain_discrete_models_imitate(model_class, kwargs):
    np.random.seed(1)
    obs, actions = _expert(CARTPOLE)
    dataset = ExpertDataset(expert_path=CARTPOLE, traj_limitation=4, batch_size=128, verbose=0,
                            sequential_preprocessing=True)
    model = model_class("MlpPolicy", "CartPole-v1", seed=0, n_cpu_tf_sess=1, **kwargs)
    before = _accuracy(model, obs, actions)
    assert model.pretrain(dataset, n_epochs=8, learning_rate=3e-3) is model
    after = _accuracy(model, obs, actions)
    assert after >= 0.85 and after > before + 0.1, (before, after)


@pytest.mark.parametrize("model_class", [PPO2, SAC, TD3])
def test_pretrain_box_actions_imitate(model_class):
    np.random.seed(2)
    obs, actions = _expert(PENDULUM)
    dataset = ExpertDataset(expert_path=PENDULUM, traj_limitation=10, batch_size=64, verbose=0)
    env = make_env("Pendulum-v1")
    model = model_class("MlpPolicy", env, seed=0, n_cpu_tf_sess=1)
    before = _box_error(model, obs, actions)
    model.pretrain(dataset, n_epochs=10, learning_rate=3e-3)
    after = _box_error(model, obs, actions)
    # Pendulum actions lie in [-2, 2]: the clone is far closer to the expert than the untrained policy
    assert after < 0.5 * before and after < 0.35, (before, after)


def test_pretrain_twice_keeps_parameters_and_saves(tmp_path, capsys):
    np.random.seed(3)
    dataset = ExpertDataset(expert_path=CARTPOLE, traj_limitation=2, batch_size=64, verbose=0)
    model = PPO2("MlpPolicy", "CartPole-v1", seed=0, n_cpu_tf_sess=1, verbose=1)
    names = list(model.get_parameters())
    start = model.get_parameters()
    capsys.readouterr()
    model.pretrain(dataset, n_epochs=2, val_interval=1)
    out = capsys.readouterr().out
    assert "Pretraining with Behavior Cloning..." in out and "Pretraining done." in out
    assert "==== Training progress 50.00% ====" in out and "Epoch 2" in out
    losses = [float(line.split()[2].rstrip(",")) for line in out.splitlines() if line.startswith("Training loss")]
    assert len(losses) == 2 and losses[1] < losses[0]
    first = model.get_parameters()
    assert any(not np.allclose(start[name], first[name]) for name in names)
    # a second call continues from the cloned weights (nothing is re-initialized) and is not slower to build
    model.pretrain(dataset, n_epochs=1, learning_rate=0.0)
    second = model.get_parameters()
    for name in names:
        np.testing.assert_array_equal(first[name], second[name])
    model.pretrain(dataset, n_epochs=1, learning_rate=1e-3, adam_epsilon=1e-5)
    assert list(model.get_parameters()) == names
    # the optimizer's variables do not leak into the saved parameters; learning still works afterwards
    model.learn(64)
    model.save(str(tmp_path / "cloned.zip"))
    loaded = PPO2.load(str(tmp_path / "cloned.zip"))
    assert list(loaded.get_parameters()) == names
    obs, _ = _expert(CARTPOLE)
    np.testing.assert_array_equal(loaded.predict(obs[:50], deterministic=True)[0],
                                  model.predict(obs[:50], deterministic=True)[0])


def test_pretrain_bad_input():
    dataset = ExpertDataset(expert_path=CARTPOLE, traj_limitation=1, verbose=0)
    model = PPO2("MlpPolicy", "CartPole-v1", seed=0, n_cpu_tf_sess=1)
    with pytest.raises(TypeError, match="ExpertDataset"):
        model.pretrain({"obs": 1})
    pendulum_data = ExpertDataset(expert_path=PENDULUM, traj_limitation=1, verbose=0)
    with pytest.raises(ValueError, match=r"observations of shape \(3,\) do not fit"):
        model.pretrain(pendulum_data, n_epochs=1)

    class MultiDiscreteEnv(gymnasium.Env):
        observation_space = spaces.Box(-1, 1, (2,), dtype=np.float32)
        action_space = spaces.MultiDiscrete([2, 3])

        def reset(self, *, seed=None, options=None):
            return np.zeros(2, dtype=np.float32), {}

        def step(self, action):
            return np.zeros(2, dtype=np.float32), 0.0, True, False, {}

    model = PPO2("MlpPolicy", MultiDiscreteEnv(), n_steps=8)
    with pytest.raises(ValueError, match="only Discrete and Box action spaces are supported, got MultiDiscrete"):
        model.pretrain(dataset)
    recurrent = PPO2("MlpLstmPolicy", "CartPole-v1", nminibatches=1, _init_setup_model=False)
    with pytest.raises(ValueError, match="recurrent policies"):
        recurrent.pretrain(dataset)
    not_built = PPO2("MlpPolicy", "CartPole-v1", _init_setup_model=False)
    with pytest.raises(ValueError, match="no graph yet"):
        not_built.pretrain(dataset)


def _algorithm(name):
    import stable_baselines
    try:
        return getattr(stable_baselines, name)
    except AttributeError as error:  # MPI algorithm without mpi4py, or a module not in this version
        pytest.skip(str(error))


@pytest.mark.parametrize("name, task", [("ACKTR", "cartpole"), ("ACER", "cartpole"), ("TRPO", "cartpole"),
                                        ("DDPG", "pendulum")])
def test_pretrain_other_models(name, task):
    """Every model family gets behaviour cloning through its _get_pretrain_placeholders."""
    model_class = _algorithm(name)
    path = CARTPOLE if task == "cartpole" else PENDULUM
    np.random.seed(4)
    obs, actions = _expert(path)
    dataset = ExpertDataset(expert_path=path, traj_limitation=4, batch_size=64, verbose=0)
    env_id = "CartPole-v1" if path == CARTPOLE else "Pendulum-v1"
    model = model_class("MlpPolicy", make_env(env_id), seed=0, n_cpu_tf_sess=1)
    if path == CARTPOLE:
        before = _accuracy(model, obs, actions)
        model.pretrain(dataset, n_epochs=5, learning_rate=3e-3)
        after = _accuracy(model, obs, actions)
        assert after >= 0.85 and after > before + 0.1, (before, after)
    else:
        before = _box_error(model, obs, actions)
        model.pretrain(dataset, n_epochs=5, learning_rate=3e-3)
        after = _box_error(model, obs, actions)
        assert after < 0.5 * before and after < 0.35, (before, after)
