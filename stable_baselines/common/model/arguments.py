"""
Checks of the arguments every algorithm takes, with the same wording everywhere.
"""
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
