"""
Checks of the arguments every algorithm takes, with the same wording everywhere.
"""
import numbers
from typing import Any

import numpy as np


class InvalidArgumentError(ValueError, TypeError):
    """
    An argument of a model's constructor or method that cannot work. It is a ValueError and a TypeError, so
    code written for the original library's exceptions (a TypeError from ``range`` for a float number of
    timesteps, for instance) still catches it.
    """


def _is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_total_timesteps(total_timesteps: Any) -> int:
    """
    :param total_timesteps: (Any) what ``learn`` was given
    :return: (int) the number of timesteps, when it is an integer >= 0
    """
    if not _is_integer(total_timesteps) or total_timesteps < 0:
        raise InvalidArgumentError("total_timesteps must be an int >= 0, got {!r}".format(total_timesteps))
    return int(total_timesteps)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_positive_int(name: str, value: Any) -> int:
    """
    A count or an interval that must be at least one (``n_steps``, ``log_interval``, ``train_freq``, ...).

    :param name: (str) the argument's name, as the user wrote it
    :param value: (Any) what the user gave
    :return: (int) the value, when it is an int >= 1
    """
    if not _is_integer(value) or value < 1:
        raise InvalidArgumentError("{} must be a positive int, got {!r}".format(name, value))
    return int(value)


def check_learning_rate(value: Any, name: str = "learning_rate", schedule_allowed: bool = True) -> Any:
    """
    A step size: a number >= 0, or (where the algorithm evaluates it on the remaining progress) a function.

    :param value: (Any) what the user gave
    :param name: (str) the argument's name
    :param schedule_allowed: (bool) whether the algorithm accepts a function of the remaining progress (1 at the
        start of ``learn``, 0 at the end); those that do not have their own ``lr_schedule``
    :return: (float or callable) the value
    """
    if schedule_allowed and callable(value):
        return value
    if not _is_number(value) or not value >= 0:
        expected = "a number >= 0 or a function of the remaining progress" if schedule_allowed else \
            "a number >= 0"
        raise InvalidArgumentError("{} must be {}, got {!r}".format(name, expected, value))
    return value


def check_gamma(value: Any, name: str = "gamma") -> float:
    """
    :param value: (Any) a discount factor (or another weight of the unit interval, named by ``name``)
    :param name: (str) the argument's name
    :return: (float) the value, when it is a number in [0, 1]
    """
    if not _is_number(value) or not 0 <= value <= 1:
        raise InvalidArgumentError("{} must be a number in [0, 1], got {!r}".format(name, value))
    return value


def check_minibatches(nminibatches: Any, n_envs: int, n_steps: int) -> int:
    """
    :param nminibatches: (Any) the number of minibatches a rollout is cut into
    :param n_envs: (int) the number of environments stepped together
    :param n_steps: (int) the steps of every environment in one rollout
    :return: (int) the number, when it divides the ``n_envs * n_steps`` transitions of a rollout
    """
    check_positive_int("nminibatches", nminibatches)
    n_batch = n_envs * n_steps
    if n_batch % nminibatches != 0:
        raise InvalidArgumentError("nminibatches must divide the number of transitions of a rollout, "
                                   "n_envs * n_steps = {} * {} = {}, got {!r} (otherwise some transitions would "
                                   "never be used)".format(n_envs, n_steps, n_batch, nminibatches))
    return int(nminibatches)


def check_rollout_arguments(steps_name: str, steps: Any, gamma: Any, learning_rate: Any,
                            rate_name: str = "learning_rate") -> None:
    """
    Raise a clear error for a bad rollout length, discount factor or (constant) step size.

    :param steps_name: (str) the name of the rollout length argument
    :param steps: (Any) the rollout length (at least one)
    :param gamma: (Any) the discount factor
    :param learning_rate: (Any) the step size (a number >= 0)
    :param rate_name: (str) the name of the step size argument
    """
    check_positive_int(steps_name, steps)
    check_gamma(gamma)
    check_learning_rate(learning_rate, name=rate_name, schedule_allowed=False)
