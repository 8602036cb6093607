"""
DQN with bad input: observations that do not fit the declared space, step periods of zero, a loss
that is no longer finite. Each is refused with an error saying what was expected and what was given.
"""
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import DQN

FAST = dict(learning_starts=5, batch_size=4, buffer_size=100, n_cpu_tf_sess=1, seed=0)


class ShapeEnv(gymnasium.Env):
    """Declares Box observations of shape (4,); ``reset`` returns ``reset_shape``, ``step`` ``step_shape``."""

    def __init__(self, reset_shape=(4,), step_shape=(4,), reward=1.0):
        self.observation_space = spaces.Box(-1, 1, (4,), np.float32)
        self.action_space = spaces.Discrete(2)
        self.reset_shape = reset_shape
        self.step_shape = step_shape
        self.reward = reward
        self.steps = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(self.reset_shape, np.float32), {}

    def step(self, action):
        self.steps += 1
        return np.zeros(self.step_shape, np.float32), self.reward, self.steps % 7 == 0, False, {}


def test_observation_of_the_wrong_shape_from_reset_is_named():
    model = DQN("MlpPolicy", ShapeEnv(reset_shape=(5,)), **FAST)
    with pytest.raises(ValueError) as error:
        model.learn(20)
    message = str(error.value)
    assert "observation of shape (5,) from reset()" in message
    assert "expects shape (4,)" in message
    assert model.num_timesteps == 0


def test_observation_of_the_wrong_shape_from_step_is_named():
    env = ShapeEnv(step_shape=(2, 2))
    model = DQN("MlpPolicy", env, **FAST)
    with pytest.raises(ValueError, match=r"observation of shape \(2, 2\) from step\(\), but the observation space "
                                         r"Box\(.*\) expects shape \(4,\)"):
        model.learn(20)
    # stopped at the first step, before the observation reached the replay buffer
    assert env.steps == 1 and len(model.replay_buffer) == 0


@pytest.mark.parametrize("name", ["train_freq", "target_network_update_freq"])
@pytest.mark.parametrize("value", [0, -3])
def test_step_periods_must_be_positive(name, value):
    env = ShapeEnv()
    # refused by the constructor, in the wording of every algorithm
    with pytest.raises(ValueError) as error:
        DQN("MlpPolicy", env, **FAST, **{name: value})
    assert str(error.value) == "{} must be a positive int, got {}".format(name, value)
    assert env.steps == 0
    # a positive value trains as usual
    model = DQN("MlpPolicy", env, **FAST, **{name: 2})
    model.learn(20)
    assert model.num_timesteps == 20


@pytest.mark.parametrize("tensorboard,prioritized", [(False, False), (True, False), (False, True)])
def test_non_finite_td_errors_stop_training(tensorboard, prioritized, tmp_path):
    env = ShapeEnv(reward=float("nan"))
    model = DQN("MlpPolicy", env, tensorboard_log=str(tmp_path) if tensorboard else None,
                prioritized_replay=prioritized, **FAST)
    # the loop's check (before the TD errors would become priorities, with prioritized replay)
    with pytest.raises(RuntimeError, match=r"Training diverged at timestep 6: a loss is not finite "
                                           r"\(\[nan, nan, nan, nan\]\).*VecCheckNan"):
        model.learn(50)
    # the first gradient step (after learning_starts=5) found them
    assert model.num_timesteps == FAST["learning_starts"] + 1


def test_finite_rewards_pass_the_check():
    model = DQN("MlpPolicy", ShapeEnv(reward=-2.5), **FAST)
    model.learn(30)
    assert model.num_timesteps == 30
