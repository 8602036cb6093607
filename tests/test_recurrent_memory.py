"""Recurrent policies really remember: they solve a task a feed-forward policy cannot do better than chance."""
import pytest

from stable_baselines import A2C, PPO2
from stable_baselines.common.vec_env import DummyVecEnv

from memory_env import CueMemoryEnv  # pylint: disable=wrong-import-order
from rollout_helpers import vec_mean_return  # pylint: disable=wrong-import-order

N_ENVS = 4


def _train(model_class, policy, n_timesteps):
    env = DummyVecEnv([CueMemoryEnv for _ in range(N_ENVS)])
    policy_kwargs = dict(n_lstm=32) if "Lstm" in policy else None
    if model_class is PPO2:
        model = PPO2(policy, env, n_steps=16, nminibatches=1, noptepochs=8, learning_rate=5e-3, gamma=0.9,
                     seed=0, n_cpu_tf_sess=1, policy_kwargs=policy_kwargs)
    else:
        model = A2C(policy, env, n_steps=8, learning_rate=3e-3, gamma=0.9, seed=0, n_cpu_tf_sess=1,
                    policy_kwargs=policy_kwargs)
    model.learn(n_timesteps)
    return model, env


@pytest.mark.slow
@pytest.mark.parametrize("model_class,n_timesteps", [(A2C, 40000), (PPO2, 30000)])
def test_lstm_policy_remembers_the_cue(model_class, n_timesteps):
    model, env = _train(model_class, "MlpLstmPolicy", n_timesteps)
    assert vec_mean_return(model, env, 200) >= 0.95


@pytest.mark.slow
def test_feed_forward_policy_cannot_remember():
    """The control: at the query step the observation is the same whatever the cue was."""
    model, env = _train(A2C, "MlpPolicy", 40000)
    assert vec_mean_return(model, env, 200) <= 0.7
