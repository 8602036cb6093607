"""Action / parameter noise (common/noise.py): statistics, reset, adaptation, pickling through safe_pickle."""
import pickle

import cloudpickle
import numpy as np
import pytest

from stable_baselines.common.noise import (ActionNoise, AdaptiveParamNoiseSpec, NormalActionNoise,
                                           OrnsteinUhlenbeckActionNoise)
from stable_baselines.common.safe_pickle import safe_loads


def test_action_noise_is_abstract():
    with pytest.raises(TypeError):
        ActionNoise()

    class Constant(ActionNoise):
        def __call__(self):
            return np.ones(2)

    noise = Constant()
    noise.reset()  # default reset does nothing
    np.testing.assert_array_equal(noise(), [1, 1])


def test_normal_action_noise_statistics():
    np.random.seed(0)
    mean, sigma = np.array([0.5, -1.0, 0.0]), np.array([0.1, 2.0, 0.0])
    noise = NormalActionNoise(mean=mean, sigma=sigma)
    samples = np.array([noise() for _ in range(20000)])
    assert samples.shape == (20000, 3)
    assert np.all(np.abs(samples.mean(axis=0) - mean) <= 4 * sigma / np.sqrt(20000) + 1e-12)
    np.testing.assert_allclose(samples.std(axis=0), sigma, rtol=0.03)
    noise.reset()  # stateless
    assert repr(noise) == "NormalActionNoise(mu={}, sigma={})".format(mean, sigma)
    # same seed, same noise
    np.random.seed(1)
    first = noise()
    np.random.seed(1)
    np.testing.assert_array_equal(noise(), first)


def test_normal_action_noise_errors():
    with pytest.raises(ValueError, match="sigma .* must be >= 0, got -1"):
        NormalActionNoise(0.0, -1.0)
    with pytest.raises(ValueError, match=r"compatible shapes, got \(2,\) and \(3,\)"):
        NormalActionNoise(np.zeros(2), np.ones(3))


def test_ornstein_uhlenbeck_update_formula():
    np.random.seed(42)
    mean, sigma = np.array([1.0, -2.0]), np.array([0.3, 0.5])
    noise = OrnsteinUhlenbeckActionNoise(mean, sigma, theta=0.2, dt=0.05)
    np.testing.assert_array_equal(noise.noise_prev, [0.0, 0.0])
    prev = noise.noise_prev.copy()
    np.random.seed(3)
    out = noise()
    np.random.seed(3)
    gauss = np.random.normal(size=2)
    expected = prev + 0.2 * (mean - prev) * 0.05 + sigma * np.sqrt(0.05) * gauss
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    np.testing.assert_array_equal(noise.noise_prev, out)


def test_ornstein_uhlenbeck_mean_reversion_and_stationary_std():
    np.random.seed(0)
    mean, sigma, theta, dt = np.array([2.0, -1.0]), np.array([0.2, 0.2]), 0.5, 0.1
    noise = OrnsteinUhlenbeckActionNoise(mean, sigma, theta=theta, dt=dt, initial_noise=np.array([-3.0, 4.0]))
    samples = np.array([noise() for _ in range(20000)])
    # the process moves from the initial value towards the mean ...
    assert np.all(np.abs(samples[200] - mean) < np.abs(np.array([-3.0, 4.0]) - mean))
    # ... and then fluctuates around it with the stationary std sigma * sqrt(dt / (1 - (1 - theta dt)^2))
    tail = samples[2000:]
    np.testing.assert_allclose(tail.mean(axis=0), mean, atol=0.1)
    a = 1 - theta * dt
    stationary_std = sigma * np.sqrt(dt / (1 - a ** 2))
    np.testing.assert_allclose(tail.std(axis=0), stationary_std, rtol=0.15)
    # consecutive values are strongly correlated (unlike Gaussian noise)
    corr = np.corrcoef(tail[:-1, 0], tail[1:, 0])[0, 1]
    assert corr > 0.9


def test_ornstein_uhlenbeck_reset():
    noise = OrnsteinUhlenbeckActionNoise(np.zeros(3), np.ones(3))
    for _ in range(5):
        noise()
    assert np.any(noise.noise_prev != 0)
    noise.reset()
    np.testing.assert_array_equal(noise.noise_prev, np.zeros(3))

    initial = np.array([0.5, -0.5, 1.0])
    noise = OrnsteinUhlenbeckActionNoise(np.zeros(3), np.ones(3), initial_noise=initial)
    np.testing.assert_array_equal(noise.noise_prev, initial)
    for _ in range(5):
        noise()
    noise.reset()
    np.testing.assert_array_equal(noise.noise_prev, initial)
    np.testing.assert_array_equal(initial, [0.5, -0.5, 1.0])  # calls never modified the user's array
    assert repr(noise).startswith("OrnsteinUhlenbeckActionNoise(mu=")


def test_ornstein_uhlenbeck_errors():
    with pytest.raises(ValueError, match=r"initial_noise must have the shape of mean \(2,\), got shape \(3,\)"):
        OrnsteinUhlenbeckActionNoise(np.zeros(2), np.ones(2), initial_noise=np.zeros(3))
    with pytest.raises(ValueError, match="dt .* must be > 0, got 0"):
        OrnsteinUhlenbeckActionNoise(np.zeros(2), np.ones(2), dt=0)
    with pytest.raises(ValueError, match="sigma"):
        OrnsteinUhlenbeckActionNoise(np.zeros(2), -np.ones(2))


def test_adaptive_param_noise_adapt_both_directions():
    spec = AdaptiveParamNoiseSpec(initial_stddev=0.2, desired_action_stddev=0.1, adoption_coefficient=1.05)
    assert spec.current_stddev == 0.2
    assert spec.get_stats() == {'param_noise_stddev': 0.2}
    spec.adapt(0.5)  # too far: decrease
    assert np.isclose(spec.current_stddev, 0.2 / 1.05)
    spec.adapt(0.5)
    assert np.isclose(spec.current_stddev, 0.2 / 1.05 ** 2)
    spec.adapt(0.01)  # too close: increase
    assert np.isclose(spec.current_stddev, 0.2 / 1.05)
    spec.adapt(0.1)  # equal to the desired distance: increase (strict comparison as in the original)
    assert np.isclose(spec.current_stddev, 0.2)
    assert spec.get_stats() == {'param_noise_stddev': spec.current_stddev}
    assert spec.initial_stddev == 0.2  # unchanged
    assert repr(spec) == ("AdaptiveParamNoiseSpec(initial_stddev=0.2, desired_action_stddev=0.1, "
                          "adoption_coefficient=1.05)")
    default = AdaptiveParamNoiseSpec()
    assert (default.initial_stddev, default.desired_action_stddev, default.adoption_coefficient) == (0.1, 0.1, 1.01)


def test_adaptive_param_noise_converges_to_desired_distance():
    """With a distance proportional to the stddev, adaptation settles around the desired distance."""
    spec = AdaptiveParamNoiseSpec(initial_stddev=1.0, desired_action_stddev=0.2, adoption_coefficient=1.01)
    for _ in range(1000):
        spec.adapt(0.5 * spec.current_stddev)
    assert abs(0.5 * spec.current_stddev - 0.2) < 0.2 * 0.02


def test_adaptive_param_noise_errors():
    with pytest.raises(ValueError, match="adoption_coefficient must be a float > 0, got 0"):
        AdaptiveParamNoiseSpec(adoption_coefficient=0)
    with pytest.raises(ValueError, match="initial_stddev must be a float > 0, got 'a'"):
        AdaptiveParamNoiseSpec(initial_stddev="a")


def _noise_objects():
    ou = OrnsteinUhlenbeckActionNoise(np.array([0.1, 0.2]), np.array([0.3, 0.4]), theta=0.3, dt=0.02,
                                      initial_noise=np.array([1.0, -1.0]))
    ou()
    spec = AdaptiveParamNoiseSpec(0.2, 0.3, 1.05)
    spec.adapt(1.0)
    return [NormalActionNoise(np.zeros(2), 0.1 * np.ones(2)), ou, spec]


def _assert_same_state(original, loaded):
    assert type(loaded) is type(original)
    assert sorted(vars(loaded)) == sorted(vars(original))
    for key, value in vars(original).items():
        np.testing.assert_array_equal(vars(loaded)[key], value)


@pytest.mark.parametrize("dumps", [cloudpickle.dumps, pickle.dumps], ids=["cloudpickle", "pickle"])
def test_pickle_round_trip_through_safe_pickle(dumps):
    for original in _noise_objects():
        loaded = safe_loads(dumps(original))
        _assert_same_state(original, loaded)
    # the loaded OU noise continues the same process
    ou = _noise_objects()[1]
    loaded = safe_loads(dumps(ou))
    np.random.seed(9)
    a = ou()
    np.random.seed(9)
    np.testing.assert_array_equal(loaded(), a)


def test_legacy_ddpg_noise_module_maps_to_common_noise():
    """Objects pickled when the classes lived in stable_baselines.ddpg.noise load as common.noise objects."""
    for original in _noise_objects():
        data = pickle.dumps(original, protocol=2)  # protocol 2: GLOBAL opcode with "module\nname\n" text
        assert b"stable_baselines.common.noise\n" in data
        legacy = data.replace(b"stable_baselines.common.noise\n", b"stable_baselines.ddpg.noise\n")
        loaded = safe_loads(legacy)
        _assert_same_state(original, loaded)
