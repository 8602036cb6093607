"""
Values that change while a model trains: learning rates, the exploration rate of DQN, the
importance-sampling exponent of prioritized replay, ...

Two families live here:

- :class:`Schedule` objects, asked with ``value(step)`` for the value at a timestep
  (constant, linear, piecewise);
- the legacy :class:`Scheduler` of A2C, ACER and ACKTR, which moves one step per call along a
  named curve of the progress (``'linear'``, ``'middle_drop'``, ...).

Everything is a module-level function or a plain class (no closures), because model files store
these objects by reference.
"""
import numbers
from typing import Any, Callable, Optional, Sequence, Tuple, Union, cast

import numpy as np

Number = Union[int, float]


class Schedule(object):
    """
    A value that depends on the timestep.
    """

    def value(self, step: Number) -> float:
        """
        The value at a timestep.

        :param step: (int) the timestep
        :return: (float) the value at ``step``
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        settings = sorted(vars(self).items())
        listed = ", ".join("{}={!r}".format(name.lstrip("_"), setting) for name, setting in settings)
        return "{}({})".format(type(self).__name__, listed)


class ConstantSchedule(Schedule):
    """
    The same value at every timestep.

    :param value: (float) the value
    """

    def __init__(self, value: float) -> None:
        self._value = value

    def value(self, step: Number) -> float:
        return self._value


def linear_interpolation(left: float, right: float, alpha: float) -> float:
    """
    The point a fraction ``alpha`` of the way from ``left`` to ``right``.

    :param left: (float) value at alpha = 0
    :param right: (float) value at alpha = 1
    :param alpha: (float) the fraction, in [0, 1]
    :return: (float) the interpolated value
    """
    return left + alpha * (right - left)


def _checked_endpoints(endpoints: Sequence[Tuple[float, float]]) -> list:
    """
    The endpoints as a list of ``(time, value)`` tuples, after checking that times increase.

    :param endpoints: ([(int, float)]) the endpoints
    :return: ([(int, float)]) the same endpoints, as tuples
    """
    pairs = [tuple(point) for point in endpoints]
    malformed = [pair for pair in pairs if len(pair) != 2]
    if malformed:
        raise ValueError("PiecewiseSchedule endpoints must be (time, value) pairs, got {!r}".format(malformed[0]))
    times = [pair[0] for pair in pairs]
    if sorted(times) != times:
        raise ValueError("PiecewiseSchedule endpoint times must be sorted in increasing order, got {}".format(times))
    return pairs


class PiecewiseSchedule(Schedule):
    """
    A schedule through given ``(time, value)`` points, interpolated between consecutive points.

    :param endpoints: ([(int, float)]) the points, times in increasing order. For
        ``time_a <= step < time_b`` the value is ``interpolation(value_a, value_b, alpha)`` with
        ``alpha = (step - time_a) / (time_b - time_a)``
    :param interpolation: (function (float, float, float) -> float) how to blend the two neighbouring
        values (default: :func:`linear_interpolation`)
    :param outside_value: (float) the value before the first and from the last time on; None makes such
        a request an error (AssertionError)
    """

    def __init__(self, endpoints: Sequence[Tuple[float, float]],
                 interpolation: Callable[[float, float, float], float] = linear_interpolation,
                 outside_value: Optional[float] = None) -> None:
        pairs = _checked_endpoints(endpoints)
        if not callable(interpolation):
            raise TypeError("interpolation must be a function (left, right, alpha) -> value, got {!r}"
                            .format(interpolation))
        self._interpolation = interpolation
        self._outside_value = outside_value
        self._endpoints = pairs

    def value(self, step: Number) -> float:
        for (start_time, start_value), (end_time, end_value) in zip(self._endpoints, self._endpoints[1:]):
            if start_time <= step < end_time:
                fraction = float(step - start_time) / (end_time - start_time)
                return self._interpolation(start_value, end_value, fraction)
        if self._outside_value is not None:
            return self._outside_value
        times = [pair[0] for pair in self._endpoints]
        raise AssertionError("PiecewiseSchedule: step {} is outside of the endpoints' times {} and no "
                             "outside_value was given".format(step, times))


class LinearSchedule(Schedule):
    """
    Goes in a straight line from ``initial_p`` (step 0) to ``final_p`` (step ``schedule_timesteps``),
    then stays at ``final_p``.

    :param schedule_timesteps: (int) number of steps the change takes
    :param final_p: (float) the value at the end
    :param initial_p: (float) the value at the start
    """

    def __init__(self, schedule_timesteps: int, final_p: float, initial_p: float = 1.0) -> None:
        if schedule_timesteps <= 0:
            raise ValueError("LinearSchedule needs schedule_timesteps > 0, got {!r}".format(schedule_timesteps))
        self.schedule_timesteps = schedule_timesteps
        self.final_p = final_p
        self.initial_p = initial_p

    def value(self, step: Number) -> float:
        progress = min(float(step) / self.schedule_timesteps, 1.0)
        return self.initial_p + progress * (self.final_p - self.initial_p)


class ConstantFunction(object):
    """
    A callable returning one value whatever its argument (what :func:`constfn` builds). Being a
    class rather than a closure, it can be stored in model files.

    :param val: (Any) the value
    """

    def __init__(self, val: Any) -> None:
        self.val = val

    def __call__(self, _: Any) -> Any:
        return self.val

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ConstantFunction) and self.val == other.val

    def __hash__(self) -> int:
        return hash((ConstantFunction, self.val))

    def __repr__(self) -> str:
        return "constfn({!r})".format(self.val)


def constfn(val: Any) -> Callable[[Any], Any]:
    """
    A function of the progress that always gives ``val`` (a constant learning rate, clip range, ...).

    :param val: (float) the value
    :return: (function) the constant function
    """
    return ConstantFunction(val)


def _is_plain_number(candidate: Any) -> bool:
    """
    Whether ``candidate`` is a real number (not a bool), including a 0-d numeric numpy array.

    :param candidate: (Any) the object
    :return: (bool) True for a number
    """
    if isinstance(candidate, bool):
        return False
    if isinstance(candidate, numbers.Real):
        return True
    return (isinstance(candidate, np.ndarray) and candidate.shape == ()
            and np.issubdtype(candidate.dtype, np.number))


def get_schedule_fn(value_schedule: Union[Callable, float]) -> Callable:
    """
    Make a schedule argument callable: a number becomes a constant function, a function is kept.

    :param value_schedule: (callable or float) a number, or a function of the remaining progress
    :return: (function) the schedule as a function
    """
    if _is_plain_number(value_schedule):
        return constfn(float(cast(float, value_schedule)))
    if callable(value_schedule):
        return value_schedule
    raise TypeError("Expected a number or a function of the remaining progress (callable) for the schedule, "
                    "got {!r} of type {}".format(value_schedule, type(value_schedule).__name__))


# --- curves of the legacy Scheduler (A2C, ACER, ACKTR): functions of the progress in [0, 1] ----------

def constant(_: Any) -> float:
    """
    Curve ``'constant'``: always 1.

    :param _: (float) the progress (ignored)
    :return: (float) 1
    """
    return 1.


def linear_schedule(progress: float) -> float:
    """
    Curve ``'linear'``: from 1 down to 0.

    :param progress: (float) the progress, in [0, 1]
    :return: (float) 1 - progress
    """
    return 1 - progress


def middle_drop(progress: float) -> float:
    """
    Curve ``'middle_drop'``: linear until it falls under 0.75, then 0.075.

    :param progress: (float) the progress, in [0, 1]
    :return: (float) 1 - progress while that is >= 0.75, else 0.075
    """
    remaining = 1 - progress
    threshold = 0.75
    return threshold * 0.1 if remaining < threshold else remaining


def double_linear_con(progress: float) -> float:
    """
    Curve ``'double_linear_con'``: twice as steep as ``'linear'``, floored at 0.125.

    :param progress: (float) the progress, in [0, 1]
    :return: (float) max(1 - 2 * progress, 0.125)
    """
    remaining = 1 - progress * 2
    floor = 0.125
    return floor if remaining < floor else remaining


def double_middle_drop(progress: float) -> float:
    """
    Curve ``'double_middle_drop'``: linear down to 0.75, then 0.075, then 0.125 once under 0.25
    (the values the original implementation returns).

    :param progress: (float) the progress, in [0, 1]
    :return: (float) 1 - progress, 0.075 or 0.125
    """
    remaining = 1 - progress
    first_drop, second_drop = 0.75, 0.25
    if remaining < second_drop:
        return second_drop * 0.5
    if remaining < first_drop:
        return first_drop * 0.1
    return remaining


SCHEDULES = {
    'linear': linear_schedule,
    'constant': constant,
    'double_linear_con': double_linear_con,
    'middle_drop': middle_drop,
    'double_middle_drop': double_middle_drop,
}


def _curve_from(schedule: Union[str, Callable[[float], float]]) -> Callable[[float], float]:
    """
    The curve named by ``schedule``, or ``schedule`` itself when it is a function.

    :param schedule: (str or function) a key of ``SCHEDULES`` or a function of the progress
    :return: (function) the curve
    """
    if isinstance(schedule, str):
        if schedule in SCHEDULES:
            return SCHEDULES[schedule]
        raise ValueError("Unknown schedule {!r}: expected one of {}".format(schedule, sorted(SCHEDULES)))
    if callable(schedule):
        return schedule
    raise TypeError("Expected the name of a schedule ({}) or a function of the progress, got {!r}"
                    .format(", ".join(sorted(SCHEDULES)), schedule))


class Scheduler(object):
    """
    Legacy schedule of A2C, ACER and ACKTR: ``initial_value`` times a curve of the progress, the
    progress being the number of calls to :meth:`value` divided by ``n_values``.

    :param initial_value: (float) the value at progress 0
    :param n_values: (int) the number of steps that make the progress reach 1
    :param schedule: (str or function) the curve: 'linear', 'constant', 'double_linear_con',
        'middle_drop', 'double_middle_drop', or a function of the progress
    """

    def __init__(self, initial_value: float, n_values: int, schedule: Union[str, Callable[[float], float]]) -> None:
        curve = _curve_from(schedule)
        if n_values <= 0:
            raise ValueError("Scheduler needs n_values > 0, got {!r}".format(n_values))
        self.step = 0.
        self.initial_value = initial_value
        self.nvalues = n_values
        self.schedule = curve

    def value(self) -> float:
        """
        The value at the current step; then move one step forward.

        :return: (float) the value
        """
        result = self.value_steps(self.step)
        self.step += 1.
        return result

    def value_steps(self, steps: Number) -> float:
        """
        The value at a given step, without moving.

        :param steps: (int) the step
        :return: (float) the value at ``steps``
        """
        return self.initial_value * self.schedule(steps / self.nvalues)


__all__ = ["Schedule", "ConstantSchedule", "PiecewiseSchedule", "LinearSchedule", "linear_interpolation",
           "ConstantFunction", "constfn", "get_schedule_fn", "constant", "linear_schedule", "middle_drop",
           "double_linear_con", "double_middle_drop", "SCHEDULES", "Scheduler"]
