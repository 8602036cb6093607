"""
The off-policy constructors (DQN, SAC, TD3, DDPG) refuse arguments that cannot work with the shared checks of
common/model/arguments.py: an InvalidArgumentError (a ValueError and a TypeError) naming the argument and the value.
"""
import re

import pytest

from stable_baselines import DQN, SAC, TD3
from stable_baselines.common.model.arguments import InvalidArgumentError

try:
    from stable_baselines import DDPG
except ImportError:  # DDPG needs mpi4py
    DDPG = None

needs_mpi = pytest.mark.skipif(DDPG is None, reason="DDPG needs mpi4py (the [mpi] extra)")

POSITIVE_INTS = {
    DQN: ["buffer_size", "train_freq", "batch_size", "target_network_update_freq"],
    SAC: ["buffer_size", "train_freq", "batch_size", "gradient_steps", "target_update_interval"],
    TD3: ["buffer_size", "train_freq", "batch_size", "gradient_steps", "policy_delay"],
}
ENV_OF = {DQN: "CartPole-v1", SAC: "Pendulum-v1", TD3: "Pendulum-v1"}


def _refused(make, name, value, expected):
    with pytest.raises(InvalidArgumentError) as error:
        make()
    assert str(error.value) == "{} must be {}, got {!r}".format(name, expected, value)
    return error.value


def _make(model_class, **kwargs):
    return lambda: model_class("MlpPolicy", ENV_OF.get(model_class, "Pendulum-v1"), _init_setup_model=False,
                               **kwargs)


@pytest.mark.parametrize("model_class, name", [(cls, name) for cls, names in POSITIVE_INTS.items()
                                               for name in names])
@pytest.mark.parametrize("value", [0, -4, 2.0, True, "8"])
def test_counts_must_be_positive_ints(model_class, name, value):
    error = _refused(_make(model_class, **{name: value}), name, value, "a positive int")
    assert isinstance(error, ValueError) and isinstance(error, TypeError)


@pytest.mark.parametrize("model_class", [DQN, SAC, TD3])
@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), None])
def test_gamma_in_the_unit_interval(model_class, value):
    _refused(_make(model_class, gamma=value), "gamma", value, "a number in [0, 1]")


@pytest.mark.parametrize("model_class", [SAC, TD3])
@pytest.mark.parametrize("value", [-1e-3, float("nan"), "3e-4", None])
def test_learning_rate_number_or_schedule(model_class, value):
    _refused(_make(model_class, learning_rate=value), "learning_rate", value,
             "a number >= 0 or a function of the remaining progress")
    # a schedule of the remaining progress is what SAC and TD3 evaluate
    model = _make(model_class, learning_rate=lambda progress: 3e-4 * progress)()
    assert model.learning_rate(0.5) == pytest.approx(1.5e-4)


@pytest.mark.parametrize("value", [-1e-3, "5e-4", lambda progress: 5e-4 * progress])
def test_dqn_learning_rate_is_a_number(value):
    # DQN hands the rate to Adam as it is: a schedule would never be evaluated
    _refused(_make(DQN, learning_rate=value), "learning_rate", value, "a number >= 0")


@pytest.mark.parametrize("model_class", [DQN, SAC, TD3])
def test_valid_arguments_are_kept(model_class):
    names = POSITIVE_INTS[model_class]
    values = {name: index + 2 for index, name in enumerate(names)}
    model = _make(model_class, gamma=1.0, learning_rate=0.0, **values)()
    assert model.gamma == 1.0 and model.learning_rate == 0.0
    assert {name: getattr(model, name) for name in names} == values


@needs_mpi
@pytest.mark.parametrize("name", ["nb_rollout_steps", "batch_size", "param_noise_adaption_interval"])
@pytest.mark.parametrize("value", [0, -1, 1.5])
def test_ddpg_counts(name, value):
    _refused(_make(DDPG, **{name: value}), name, value, "a positive int")


@needs_mpi
@pytest.mark.parametrize("name", ["actor_lr", "critic_lr"])
@pytest.mark.parametrize("value", [-1e-4, None, lambda progress: 1e-4])
def test_ddpg_learning_rates_are_numbers(name, value):
    _refused(_make(DDPG, **{name: value}), name, value, "a number >= 0")


@needs_mpi
@pytest.mark.parametrize("value", [-0.5, 2])
def test_ddpg_gamma(value):
    _refused(_make(DDPG, gamma=value), "gamma", value, "a number in [0, 1]")


@needs_mpi
def test_ddpg_accepts_no_training_steps():
    # nb_train_steps=0 collects experience without training, as in the original
    model = _make(DDPG, nb_train_steps=0, actor_lr=0.0, nb_rollout_steps=1)()
    assert model.nb_train_steps == 0 and model.nb_rollout_steps == 1


def test_the_message_names_the_argument_and_value():
    with pytest.raises(ValueError, match=re.escape("batch_size must be a positive int, got 0")):
        SAC("MlpPolicy", "Pendulum-v1", batch_size=0)
