"""Tests of check_env."""
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common.env_checker import check_env

from vec_env_helpers import LegacyCounterEnv


class GoodEnv(gymnasium.Env):
    """A well-formed gymnasium env with a symmetric normalized Box action."""
    metadata = {"render_modes": []}

    def __init__(self, obs_shape=(3,), obs_dtype=np.float32, low=-1.0, high=1.0):
        self.observation_space = spaces.Box(low=low, high=high, shape=obs_shape, dtype=obs_dtype)
        self.action_space = spaces.Box(low=-1, high=1, shape=(2,), dtype=np.float32)

    def _obs(self):
        return np.zeros(self.observation_space.shape, dtype=self.observation_space.dtype)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self._obs(), {}

    def step(self, action):
        return self._obs(), 0.0, False, False, {}


def _no_warnings(env):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


def test_good_env_passes_without_warning():
    _no_warnings(GoodEnv())
    _no_warnings(gymnasium.make("CartPole-v1"))
    check_env(gymnasium.make("Pendulum-v1"), warn=False)


def test_legacy_env_passes_as_quietly_as_with_the_original():
    """An env written against the legacy gym API passed the original's check without a word; it still does."""
    _no_warnings(LegacyCounterEnv())

    class LegacyGymnasiumEnv(GoodEnv):  # a gymnasium.Env subclass written the SB2 way
        def reset(self):
            return self._obs()

        def step(self, action):
            return self._obs(), 0.0, False, {}

    _no_warnings(LegacyGymnasiumEnv())
    # asked for, the check says what to change
    with pytest.warns(UserWarning, match="does not inherit from gymnasium.Env"):
        check_env(LegacyCounterEnv(), legacy_api_warnings=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(LegacyGymnasiumEnv(), legacy_api_warnings=True)
    messages = " | ".join(str(warning.message) for warning in caught)
    for expected in ("should accept the keyword arguments `seed`", "should return a tuple (obs, info)",
                     "should return 5 values"):
        assert expected in messages, messages


def test_wrong_observation_shape():
    class WrongShape(GoodEnv):
        def reset(self, *, seed=None, options=None):
            return np.zeros(4, dtype=np.float32), {}

    with pytest.raises(AssertionError, match=r"`reset\(\)` method has shape \(4,\) but the observation space "
                                             r"expects shape \(3,\)"):
        check_env(WrongShape())


def test_observation_out_of_bounds_and_not_array():
    class OutOfBounds(GoodEnv):
        def step(self, action):
            return np.full(3, 5.0, dtype=np.float32), 0.0, False, False, {}

    with pytest.raises(AssertionError, match="does not match the given observation space.*outside the bounds"):
        check_env(OutOfBounds())

    class ListObs(GoodEnv):
        def reset(self, *, seed=None, options=None):
            return [0.0, 0.0, 0.0], {}

    with pytest.raises(AssertionError, match="must be a numpy array"):
        check_env(ListObs())

    class DiscreteObs(GoodEnv):
        def __init__(self):
            super().__init__()
            self.observation_space = spaces.Discrete(3)

        def reset(self, *, seed=None, options=None):
            return 1.5, {}

    with pytest.raises(AssertionError, match="must be an int"):
        check_env(DiscreteObs())


def test_step_return_values():
    class ThreeValues(GoodEnv):
        def step(self, action):
            return self._obs(), 0.0, False

    with pytest.raises(AssertionError, match="must return .*got a tuple of 3 values"):
        check_env(ThreeValues())

    class BadReward(GoodEnv):
        def step(self, action):
            return self._obs(), np.array([1.0]), False, False, {}

    with pytest.raises(AssertionError, match="reward returned by `step\\(\\)` must be a float"):
        check_env(BadReward())

    class BadDone(GoodEnv):
        def step(self, action):
            return self._obs(), 1.0, 0, False, {}

    with pytest.raises(AssertionError, match="`terminated` signal .* must be a boolean"):
        check_env(BadDone())

    class BadInfo(GoodEnv):
        def step(self, action):
            return self._obs(), 1.0, False, False, None

    with pytest.raises(AssertionError, match="`info` returned by `step\\(\\)` must be a python dictionary"):
        check_env(BadInfo())


def test_missing_spaces():
    class NoSpaces(object):
        def reset(self):
            return 0

        def step(self, action):
            return 0, 0.0, False, {}

    with pytest.raises(AssertionError, match="observation space"):
        check_env(NoSpaces(), warn=False)
    env = NoSpaces()
    env.observation_space = "not a space"
    env.action_space = spaces.Discrete(2)
    with pytest.raises(AssertionError, match="must be a gymnasium space.*'not a space'"):
        check_env(env, warn=False)


def test_warnings():
    class Unsymmetric(GoodEnv):
        def __init__(self):
            super().__init__()
            self.action_space = spaces.Box(low=0, high=3, shape=(2,), dtype=np.float32)

    with pytest.warns(UserWarning, match="symmetric and normalized Box action space"):
        check_env(Unsymmetric())

    with pytest.warns(UserWarning) as record:
        check_env(GoodEnv(obs_shape=(10, 10, 3), obs_dtype=np.float32, low=0.0, high=1.0))
    messages = " ".join(str(w.message) for w in record)
    assert "not `np.uint8`" in messages and "[0, 255]" in messages and "36x36" in messages

    class DictObs(GoodEnv):
        def __init__(self):
            super().__init__()
            self.observation_space = spaces.Dict({"a": spaces.Box(-1, 1, (2,), dtype=np.float32)})

        def reset(self, *, seed=None, options=None):
            return {"a": np.zeros(2, dtype=np.float32)}, {}

        def step(self, action):
            return {"a": np.zeros(2, dtype=np.float32)}, 0.0, False, False, {}

    with pytest.warns(UserWarning, match="observation space is a Dict"):
        check_env(DictObs())

    class NanObs(GoodEnv):
        def __init__(self):
            super().__init__(low=-np.inf, high=np.inf)
            self.count = 0

        def step(self, action):
            self.count += 1
            obs = self._obs()
            if self.count == 3:
                obs[0] = np.nan
            return obs, 0.0, False, False, {}

    with pytest.warns(UserWarning, match="found nan in observations"):
        check_env(NanObs())

    class NoSeed(GoodEnv):
        def reset(self):
            return self._obs(), {}

    with pytest.warns(UserWarning, match="should accept the keyword arguments `seed`"):
        check_env(NoSeed(), legacy_api_warnings=True)


def test_render_check():
    class Renders(GoodEnv):
        metadata = {"render_modes": ["rgb_array"]}
        rendered = 0

        def render(self):
            Renders.rendered += 1
            return np.zeros((2, 2, 3), dtype=np.uint8)

    check_env(Renders(), skip_render_check=False)
    assert Renders.rendered == 1
    check_env(Renders())
    assert Renders.rendered == 1
