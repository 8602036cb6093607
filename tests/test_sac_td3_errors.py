"""SAC and TD3 refuse bad run-time input with clear errors (instead of a ZeroDivisionError or silent NaN)."""
import gymnasium as gym
import numpy as np
import pytest

from stable_baselines import SAC, TD3
from stable_baselines.common.gym_compat import make_env


def _model(model_class, **kwargs):
    kwargs.setdefault("learning_starts", 10)
    kwargs.setdefault("batch_size", 8)
    return model_class("MlpPolicy", make_env("Pendulum-v1"), seed=0, n_cpu_tf_sess=1,
                       policy_kwargs=dict(layers=[8]), **kwargs)


class _NanReward(gym.Wrapper):
    """Every reward is NaN (as from a broken env, without VecCheckNan)."""

    def step(self, action):
        obs, _, terminated, truncated, info = self.env.step(action)
        return obs, float("nan"), terminated, truncated, info


@pytest.mark.parametrize("model_class, argument", [(TD3, "policy_delay"), (SAC, "target_update_interval")])
@pytest.mark.parametrize("value", [0, -2, 1.5])
def test_delayed_update_interval_refused(model_class, argument, value):
    # refused by the constructor (tests/test_off_policy_arguments.py checks the other arguments)
    with pytest.raises(ValueError, match=r"^{} must be a positive int, got {}$".format(
            argument, str(value).replace(".", r"\."))):
        _model(model_class, **{argument: value})


@pytest.mark.parametrize("model_class", [SAC, TD3])
@pytest.mark.parametrize("value", [0, -1])
def test_log_interval_below_one_refused(model_class, value):
    model = _model(model_class, verbose=1)
    with pytest.raises(ValueError, match=r"^log_interval must be a positive int, got {}$".format(value)):
        model.learn(20, log_interval=value)
    assert model.num_timesteps == 0
    # None means no logger table at all
    model.learn(20, log_interval=None)
    assert model.num_timesteps == 20


@pytest.mark.parametrize("model_class", [SAC, TD3])
def test_non_finite_loss_stops_training(model_class):
    env = _NanReward(make_env("Pendulum-v1"))
    model = model_class("MlpPolicy", env, learning_starts=10, batch_size=8, train_freq=1, gradient_steps=1,
                        seed=0, n_cpu_tf_sess=1, policy_kwargs=dict(layers=[8]))
    with pytest.raises(RuntimeError, match=r"diverged at timestep 10\b.*not finite.*VecCheckNan"):
        model.learn(50)
    # training stopped at the first training step
    assert model.num_timesteps == 10


@pytest.mark.parametrize("model_class", [SAC, TD3])
@pytest.mark.parametrize("observation", ["abc", np.array(["0.1", "0.2", "0.3"]), [["a", "b", "c"]], b"xyz"])
def test_predict_refuses_text(model_class, observation):
    model = _model(model_class)
    with pytest.raises(ValueError, match=r"{}\.predict expects numeric observations of the observation space "
                                         r"Box.*\(3,\).*got ".format(model_class.__name__)):
        model.predict(observation)
    # numbers are still accepted, one observation and a batch
    action, _ = model.predict(np.array([0.1, 0.2, 0.3]))
    assert action.shape == (1,)
    actions, _ = model.predict([[0.1, 0.2, 0.3], [0.0, 1.0, 0.5]])
    assert actions.shape == (2, 1)
