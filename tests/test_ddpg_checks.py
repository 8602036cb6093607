"""DDPG: run-time bad input gets a clear error (action noise of the wrong dimension, a NaN number of timesteps),
and the module layout keeps the original's public names."""
import math

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("mpi4py", reason="DDPG needs mpi4py")

from stable_baselines.common.noise import ActionNoise, NormalActionNoise  # noqa: E402
from stable_baselines.ddpg import DDPG, MlpPolicy  # noqa: E402


class TwoActionEnv(gymnasium.Env):
    """obs (3,), action Box(-1, 1, (2,)); episodes of 10 steps."""

    observation_space = spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
    action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)

    def __init__(self):
        self.n_steps = 0
        self._t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return np.zeros(3, dtype=np.float32), {}

    def step(self, action):
        self._t += 1
        self.n_steps += 1
        return np.full(3, 0.1 * self._t, dtype=np.float32), -float(np.sum(np.square(action))), False, self._t >= 10, {}


class ConstantNoise(ActionNoise):
    """Always the same value (to check exactly what is added)."""

    def __init__(self, value):
        super().__init__()
        self.value = np.asarray(value, dtype=np.float64)

    def __call__(self):
        return self.value.copy()


def test_action_noise_of_the_wrong_dimension_is_named_in_learn():
    env = TwoActionEnv()
    model = DDPG(MlpPolicy, env, action_noise=NormalActionNoise(np.zeros(3), 0.1 * np.ones(3)), seed=0,
                 nb_rollout_steps=5, nb_train_steps=1)
    with pytest.raises(ValueError) as error:
        model.learn(20)
    message = str(error.value)
    assert "NormalActionNoise" in message      # which object is wrong
    assert "(3,)" in message and "(2,)" in message  # what it gave, what the action space needs
    assert env.n_steps == 0                     # it failed before the first env step


def test_action_noise_of_the_wrong_dimension_is_named_in_predict():
    model = DDPG(MlpPolicy, TwoActionEnv(), action_noise=ConstantNoise(np.zeros((2, 2))), seed=0)
    with pytest.raises(ValueError, match=r"ConstantNoise.*shape \(2, 2\).*shape \(2,\)"):
        model.predict(np.zeros(3, dtype=np.float32), deterministic=False)
    # the deterministic action does not use the noise, and works
    action, _ = model.predict(np.zeros(3, dtype=np.float32))
    assert action.shape == (2,)


def test_action_noise_values_are_added_per_dimension_or_broadcast():
    obs = np.zeros((4, 3), dtype=np.float32)
    model = DDPG(MlpPolicy, TwoActionEnv(), action_noise=ConstantNoise([0.25, -0.5]), seed=0)
    clean, _ = model.predict(obs)
    noisy, _ = model.predict(obs, deterministic=False)
    np.testing.assert_allclose(noisy, np.clip(clean + [0.25, -0.5], -1, 1), atol=1e-6)
    # one value serves every action dimension (as the original's broadcast did)
    model.action_noise = ConstantNoise([0.125])
    noisy, _ = model.predict(obs, deterministic=False)
    np.testing.assert_allclose(noisy, np.clip(clean + 0.125, -1, 1), atol=1e-6)


@pytest.mark.parametrize("total_timesteps", [math.nan, float("inf"), -1, 2.5])
def test_learn_refuses_a_number_of_timesteps_that_is_not_a_count(total_timesteps):
    env = TwoActionEnv()
    model = DDPG(MlpPolicy, env, seed=0)
    with pytest.raises(ValueError, match=r"total_timesteps must be an int >= 0, got {}".format(
            repr(total_timesteps).replace("(", r"\(").replace(")", r"\)").replace(".", r"\."))):
        model.learn(total_timesteps)
    assert env.n_steps == 0 and model.num_timesteps == 0


def test_public_module_names_stay_importable():
    from stable_baselines.ddpg import ddpg
    from stable_baselines.ddpg.graph import get_target_updates
    for name in ("normalize", "denormalize", "reduce_std", "reduce_var", "get_target_updates",
                 "get_perturbable_vars", "get_perturbed_actor_updates", "DDPG"):
        assert callable(getattr(ddpg, name)), name
    assert ddpg.get_target_updates is get_target_updates


class NanRewardEnv(TwoActionEnv):
    """TwoActionEnv whose rewards are NaN."""

    def step(self, action):
        obs, _, terminated, truncated, info = super().step(action)
        return obs, float("nan"), terminated, truncated, info


def test_training_on_nan_rewards_stops_with_a_clear_error():
    env = NanRewardEnv()
    model = DDPG(MlpPolicy, env, nb_rollout_steps=10, nb_train_steps=2, batch_size=8, seed=0)
    with pytest.raises(RuntimeError, match=r"Training diverged at timestep 10: a loss is not finite.*VecCheckNan"):
        model.learn(50)
    # it stopped after the first training phase
    assert env.n_steps == 10 and model.num_timesteps == 10
