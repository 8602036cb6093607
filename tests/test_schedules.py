import pickle

import cloudpickle
import numpy as np
import pytest

from stable_baselines.common import schedules
from stable_baselines.common.schedules import (SCHEDULES, ConstantSchedule, LinearSchedule, PiecewiseSchedule,
                                               Scheduler, constant, constfn, double_linear_con,
                                               double_middle_drop, get_schedule_fn, linear_interpolation,
                                               linear_schedule, middle_drop)


def test_constant_schedule():
    schedule = ConstantSchedule(5)
    for step in [-10, 0, 1, 1e9]:
        assert schedule.value(step) == 5


def test_linear_interpolation():
    assert linear_interpolation(2.0, 4.0, 0.0) == 2.0
    assert linear_interpolation(2.0, 4.0, 0.25) == 2.5
    assert linear_interpolation(2.0, 4.0, 1.0) == 4.0


def test_piecewise_schedule():
    schedule = PiecewiseSchedule([(-5, 100), (5, 200), (10, 50), (100, 50), (200, -50)], outside_value=500)
    assert np.isclose(schedule.value(-10), 500)
    assert np.isclose(schedule.value(-5), 100)
    assert np.isclose(schedule.value(0), 150)
    assert np.isclose(schedule.value(5), 200)
    assert np.isclose(schedule.value(9), 80)
    assert np.isclose(schedule.value(50), 50)
    assert np.isclose(schedule.value(80), 50)
    assert np.isclose(schedule.value(150), 0)
    assert np.isclose(schedule.value(175), -25)
    assert np.isclose(schedule.value(201), 500)
    assert np.isclose(schedule.value(500), 500)
    assert np.isclose(schedule.value(200 - 1e-10), -50)


def test_piecewise_schedule_errors():
    schedule = PiecewiseSchedule([(0, 1.0), (10, 0.0)])
    with pytest.raises(AssertionError, match="outside"):
        schedule.value(10)
    with pytest.raises(ValueError, match="sorted"):
        PiecewiseSchedule([(10, 1.0), (0, 0.0)])
    custom = PiecewiseSchedule([(0, 1.0), (10, 0.0)], interpolation=lambda left, right, alpha: left)
    assert custom.value(5) == 1.0


def test_linear_schedule_class():
    schedule = LinearSchedule(schedule_timesteps=100, final_p=0.1, initial_p=1.0)
    assert np.isclose(schedule.value(0), 1.0)
    assert np.isclose(schedule.value(50), 0.55)
    assert np.isclose(schedule.value(100), 0.1)
    assert np.isclose(schedule.value(1000), 0.1)
    default = LinearSchedule(10, 0.0)
    assert default.initial_p == 1.0 and np.isclose(default.value(5), 0.5)
    with pytest.raises(ValueError, match="schedule_timesteps"):
        LinearSchedule(0, 0.1)


@pytest.mark.parametrize("progress,expected", [
    (0.0, (1.0, 1.0, 1.0, 1.0, 1.0)),
    (0.1, (1.0, 0.9, 0.9, 0.8, 0.9)),
    (0.25, (1.0, 0.75, 0.75, 0.5, 0.75)),
    (0.3, (1.0, 0.7, 0.075, 0.4, 0.075)),
    (0.5, (1.0, 0.5, 0.075, 0.125, 0.075)),
    (0.75, (1.0, 0.25, 0.075, 0.125, 0.075)),
    (0.8, (1.0, 0.2, 0.075, 0.125, 0.125)),
    (1.0, (1.0, 0.0, 0.075, 0.125, 0.125)),
])
def test_legacy_schedule_functions(progress, expected):
    values = (constant(progress), linear_schedule(progress), middle_drop(progress),
              double_linear_con(progress), double_middle_drop(progress))
    assert np.allclose(values, expected)


def test_schedules_dict():
    assert SCHEDULES == {'linear': linear_schedule, 'constant': constant, 'double_linear_con': double_linear_con,
                         'middle_drop': middle_drop, 'double_middle_drop': double_middle_drop}


def test_constfn_and_get_schedule_fn():
    func = constfn(0.3)
    assert func(0) == 0.3 and func(1.0) == 0.3
    for value in [0.5, 2, np.float32(0.25), np.float64(0.1), np.int64(3)]:
        schedule = get_schedule_fn(value)
        assert callable(schedule)
        assert schedule(0.7) == float(value)
        assert isinstance(schedule(0.7), float)

    def my_schedule(progress):
        return progress * 2

    assert get_schedule_fn(my_schedule) is my_schedule
    with pytest.raises(TypeError, match="schedule"):
        get_schedule_fn("linear")
    with pytest.raises(TypeError, match="schedule"):
        get_schedule_fn(None)


def test_scheduler():
    scheduler = Scheduler(initial_value=2.0, n_values=10, schedule='linear')
    values = [scheduler.value() for _ in range(4)]
    assert np.allclose(values, [2.0, 1.8, 1.6, 1.4])
    assert scheduler.step == 4
    assert np.isclose(scheduler.value_steps(5), 1.0)
    assert scheduler.step == 4  # value_steps does not advance

    middle = Scheduler(1.0, 100, 'middle_drop')
    assert np.isclose(middle.value_steps(10), 0.9)
    assert np.isclose(middle.value_steps(50), 0.075)
    const = Scheduler(7e-4, 100, 'constant')
    assert const.value_steps(99) == 7e-4
    with pytest.raises(ValueError, match="Unknown schedule"):
        Scheduler(1.0, 10, 'cosine')


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps])
def test_pickle_round_trip(dumps):
    objects = [ConstantSchedule(3), LinearSchedule(10, 0.1, 0.9), PiecewiseSchedule([(0, 1.0), (10, 0.0)], outside_value=0.0),
               constfn(0.25), get_schedule_fn(1e-3), Scheduler(1.0, 10, 'double_middle_drop')]
    for obj in objects:
        data = dumps(obj)
        # by reference: the payload names the class in this module, no code is embedded
        assert b"stable_baselines.common.schedules" in data
        restored = pickle.loads(data)
        assert type(restored) is type(obj)
        if isinstance(obj, Scheduler):
            assert restored.value_steps(5) == obj.value_steps(5)
        elif isinstance(obj, schedules.Schedule):
            assert restored.value(5) == obj.value(5)
        else:
            assert restored(0.5) == obj(0.5)
    assert pickle.loads(pickle.dumps(constfn(0.5))) == constfn(0.5)
