"""
The rl-baselines-zoo's DQN agent (dqn/CartPole-v1.pkl, saved by the original library with the zoo's own
``utils.CustomDQNPolicy``: one layer of 64, layer norm, dueling) loads, computes the golden q-values and scores 500.
"""
import os

import numpy as np
import pytest

from stable_baselines import DQN
from stable_baselines.common.gym_compat import make_env
from stable_baselines.deepq.policies import FeedForwardPolicy

from test_dqn import readme_parameter_list
from legacy_helpers import deterministic_returns  # noqa: E402  (tests/ helper)

LEGACY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models")
PATH = os.path.join(LEGACY_DIR, "dqn", "CartPole-v1.pkl")


@pytest.fixture(scope="module")
def legacy_model():
    return DQN.load(PATH)


def test_legacy_dqn_loads_with_the_zoo_policy(legacy_model):
    model = legacy_model
    assert issubclass(model.policy, FeedForwardPolicy) and model.policy.__name__ == "CustomDQNPolicy"
    assert model.step_model.layers == [64] and model.step_model.layer_norm and model.step_model.dueling
    assert model.prioritized_replay is True and model.learning_rate == pytest.approx(1e-3)
    names = [(param.name, tuple(param.shape.as_list())) for param in model.get_parameter_list()]
    assert names == readme_parameter_list("dqn/CartPole-v1.pkl")


def test_legacy_dqn_matches_golden_q_values(legacy_model):
    model = legacy_model
    golden = np.load(os.path.join(LEGACY_DIR, "golden", "dqn", "CartPole-v1.npz"))
    obs = golden["policy_obs"].astype(np.float32)
    q_values = model.sess.run(model.step_model.q_values, {model.step_model.obs_ph: obs})
    np.testing.assert_allclose(q_values, golden["q"], rtol=1e-4, atol=1e-4)
    actions, _ = model.predict(obs, deterministic=True)
    np.testing.assert_array_equal(actions, golden["action"].astype(np.int64))


def test_legacy_dqn_scores_500(legacy_model):
    env = make_env("CartPole-v1")
    rewards = deterministic_returns(legacy_model, env, 3)
    assert rewards == [500.0, 500.0, 500.0]


def test_legacy_dqn_resaves_and_keeps_learning(tmp_path):
    model = DQN.load(PATH, env=make_env("CartPole-v1"), verbose=0, learning_starts=10)
    path = str(tmp_path / "dqn_cartpole.zip")
    model.save(path)
    reloaded = DQN.load(path)
    assert reloaded.policy is model.policy  # the zoo class is saved by reference and found again
    obs = np.load(os.path.join(LEGACY_DIR, "golden", "dqn", "CartPole-v1.npz"))["policy_obs"].astype(np.float32)
    np.testing.assert_array_equal(model.predict(obs)[0], reloaded.predict(obs)[0])
    model.learn(50)
    assert model.num_timesteps == 50
