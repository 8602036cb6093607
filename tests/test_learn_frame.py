"""
The frame every ``learn`` goes through (``stable_baselines.common.model``): the same refusal of a number of
timesteps that cannot work, in all twelve algorithms, before anything is trained.
"""
import numpy as np
import pytest

from stable_baselines import A2C, ACER, ACKTR, DQN, HER, PPO2, SAC, TD3
from stable_baselines.common.bit_flipping_env import BitFlippingEnv
from stable_baselines.common.model.arguments import InvalidArgumentError, check_total_timesteps

try:
    from stable_baselines import DDPG, PPO1, TRPO
except ImportError:  # without the mpi extra these three are not exported (and not tested here)
    DDPG = PPO1 = TRPO = None

CASES = [(A2C, "CartPole-v1"), (ACER, "CartPole-v1"), (ACKTR, "CartPole-v1"), (DQN, "CartPole-v1"),
         (PPO2, "CartPole-v1"), (SAC, "Pendulum-v1"), (TD3, "Pendulum-v1")]
if DDPG is not None:
    CASES += [(DDPG, "Pendulum-v1"), (PPO1, "CartPole-v1"), (TRPO, "CartPole-v1")]

BAD = [-100, -1, 2.5, 1e3, None, float("nan"), float("inf"), True, "100", [10]]


@pytest.mark.parametrize("value", BAD, ids=repr)
def test_check_total_timesteps_refuses(value):
    with pytest.raises(InvalidArgumentError, match=r"total_timesteps must be an int >= 0, got"):
        check_total_timesteps(value)


@pytest.mark.parametrize("value", [0, 1, 10 ** 9, np.int64(5), np.uint8(3)], ids=repr)
def test_check_total_timesteps_accepts(value):
    assert check_total_timesteps(value) == int(value)
    assert type(check_total_timesteps(value)) is int


def test_the_error_is_also_what_the_original_raised():
    # a float total made the original's range() raise a TypeError; scripts catching ValueError also work
    assert issubclass(InvalidArgumentError, TypeError) and issubclass(InvalidArgumentError, ValueError)


@pytest.mark.parametrize("algo,env_id", CASES, ids=lambda case: getattr(case, "__name__", case))
def test_every_algorithm_refuses_bad_totals_before_training(algo, env_id):
    model = algo("MlpPolicy", env_id, seed=0, n_cpu_tf_sess=1)
    before = model.get_parameters()
    model.num_timesteps = 7
    for value in (-100, 2.5, None, float("nan")):
        with pytest.raises(InvalidArgumentError, match=r"total_timesteps must be an int >= 0, got {}"
                           .format(repr(value).replace("(", r"\(").replace(")", r"\)"))):
            model.learn(value, reset_num_timesteps=False)
    after = model.get_parameters()
    assert all(np.array_equal(before[name], after[name]) for name in before)
    assert model.num_timesteps == 7


def test_her_refuses_bad_totals():
    model = HER("MlpPolicy", BitFlippingEnv(4, max_steps=4), DQN, seed=0, n_cpu_tf_sess=1)
    with pytest.raises(InvalidArgumentError):
        model.learn(-5)
