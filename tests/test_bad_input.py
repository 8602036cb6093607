"""Bad input to A2C / PPO2 gives errors that say what was expected and what was given."""
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, PPO2
from stable_baselines.common.vec_env import DummyVecEnv


class DictObsEnv(gymnasium.Env):
    observation_space = spaces.Dict({"a": spaces.Box(-1, 1, (2,), np.float32)})
    action_space = spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return {"a": np.zeros(2, np.float32)}, {}

    def step(self, action):
        return {"a": np.zeros(2, np.float32)}, 0.0, False, False, {}


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_unknown_policy_name(model_class):
    with pytest.raises(ValueError, match="MlpPolicyy"):
        model_class("MlpPolicyy", "CartPole-v1")


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_policy_of_the_wrong_family(model_class):
    class NotAPolicy:
        pass

    with pytest.raises(ValueError, match="ActorCriticPolicy"):
        model_class(NotAPolicy, "CartPole-v1")


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_unsupported_observation_space(model_class):
    with pytest.raises(Exception, match="Dict"):
        model_class("MlpPolicy", DummyVecEnv([DictObsEnv]))


def test_unknown_env_id():
    with pytest.raises(ValueError, match="NotAnEnv-v0"):
        PPO2("MlpPolicy", "NotAnEnv-v0")


def test_not_an_env():
    with pytest.raises(TypeError, match="reset"):
        PPO2("MlpPolicy", object())


def test_recurrent_nminibatches_must_divide_n_envs():
    with pytest.raises(ValueError, match="multiple of nminibatches"):
        PPO2("MlpLstmPolicy", DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * 2), nminibatches=4)


def test_load_missing_and_corrupt_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing_here"):
        PPO2.load(str(tmp_path / "nothing_here"))
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04 this is not a model")
    with pytest.raises(ValueError, match="not a valid Stable Baselines model file"):
        PPO2.load(str(corrupt))
