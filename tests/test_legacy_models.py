"""
Model files saved by the original library (rl-baselines-zoo agents) load, compute what the original
computed (golden forward passes from an independent float64 re-implementation) and score as stated.
"""
import os

import numpy as np
import pytest

from stable_baselines import A2C, PPO2
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize
from legacy_helpers import assert_golden_discrete_forward, deterministic_returns  # noqa: E402  (tests/ helper)

LEGACY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models")

ACTOR_CRITIC_CASES = [
    (A2C, "a2c", "CartPole-v1"),
    (PPO2, "ppo2", "CartPole-v1"),
    (PPO2, "ppo2", "MountainCar-v0"),
]

EXPECTED_CARTPOLE_NAMES = [
    "model/pi_fc0/w:0", "model/pi_fc0/b:0", "model/vf_fc0/w:0", "model/vf_fc0/b:0",
    "model/pi_fc1/w:0", "model/pi_fc1/b:0", "model/vf_fc1/w:0", "model/vf_fc1/b:0",
    "model/vf/w:0", "model/vf/b:0", "model/pi/w:0", "model/pi/b:0", "model/q/w:0", "model/q/b:0",
]


def _path(algo: str, env_id: str) -> str:
    return os.path.join(LEGACY_DIR, algo, env_id + ".pkl")


@pytest.mark.parametrize("model_class,algo,env_id", ACTOR_CRITIC_CASES)
def test_legacy_file_matches_golden_forward_pass(model_class, algo, env_id):
    model = model_class.load(_path(algo, env_id))
    golden = np.load(os.path.join(LEGACY_DIR, "golden", algo, env_id + ".npz"))
    assert_golden_discrete_forward(model, model.act_model if hasattr(model, "act_model") else model.step_model, golden)


@pytest.mark.parametrize("model_class,algo", [(A2C, "a2c"), (PPO2, "ppo2")])
def test_legacy_cartpole_scores_and_parameter_list(model_class, algo):
    model = model_class.load(_path(algo, "CartPole-v1"))
    assert [param.name for param in model.get_parameter_list()] == EXPECTED_CARTPOLE_NAMES
    env = make_env("CartPole-v1")
    rewards = deterministic_returns(model, env, 5)
    assert np.mean(rewards) >= 475, rewards


def test_legacy_ppo2_schedules_are_rebuilt():
    """ppo2/CartPole-v1.pkl holds pickled schedule closures: they are rebuilt, never executed from the file."""
    from stable_baselines.common.safe_loading.bytecode import ArithmeticFunction
    model = PPO2.load(_path("ppo2", "CartPole-v1"))
    # the zoo's constfn closures (Python 3.6 bytecode), interpreted by our evaluator
    for name, value in (("learning_rate", 3e-4), ("cliprange", 0.2)):
        schedule = getattr(model, name)
        assert isinstance(schedule, ArithmeticFunction), schedule
        assert schedule(1.0) == pytest.approx(value) and schedule(0.1) == pytest.approx(value)
    # training can go on with the rebuilt schedules
    model.set_env(DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(model.n_envs)]))
    model.learn(model.n_steps * model.n_envs)


def test_legacy_mountaincar_with_vecnormalize_scores():
    model = PPO2.load(_path("ppo2", "MountainCar-v0"))
    env = VecNormalize(DummyVecEnv([lambda: make_env("MountainCar-v0")]), training=False, norm_reward=False)
    env.load_running_average(os.path.join(LEGACY_DIR, "ppo2", "MountainCar-v0"))
    env.seed(0)
    mean_reward, _ = evaluate_policy(model, env, n_eval_episodes=10)
    # expected -138.4 +/- 27.3 over 100 episodes; a random policy scores -200
    assert mean_reward > -175, mean_reward
