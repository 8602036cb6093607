"""Small environments for the vectorized-environment tests (importable by SubprocVecEnv workers)."""
import os

import gymnasium
import numpy as np
from gymnasium import spaces


class LegacyCounterEnv(object):
    """
    A legacy gym-style env (not a gymnasium.Env): reset() returns only the observation, step() returns 4 values.
    The observation is [t, offset] where t counts the steps of the episode; the episode ends after ``ep_length``
    steps with info['TimeLimit.truncated'] = True (as gym's TimeLimit did), or when the action is 1 (terminal).
    """

    def __init__(self, ep_length=3):
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(2,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.ep_length = ep_length
        self.t = 0
        self.offset = 0.0
        self.seeded_with = []
        self.custom_value = 7

    def seed(self, seed=None):
        self.seeded_with.append(seed)
        self.offset = float(seed) if seed is not None else 0.0
        return [seed]

    def reset(self):
        self.t = 0
        return np.array([self.t, self.offset], dtype=np.float32)

    def step(self, action):
        self.t += 1
        obs = np.array([self.t, self.offset], dtype=np.float32)
        if int(action) == 1:
            return obs, 2.0, True, {}
        if self.t >= self.ep_length:
            return obs, 1.0, True, {"TimeLimit.truncated": True}
        return obs, 1.0, False, {}

    def make_lock(self):
        import threading
        return threading.Lock()  # cannot be pickled

    def add(self, x, y=0):
        return self.t + x + y

    def render(self, mode="human"):
        if mode == "rgb_array":
            return np.full((4, 6, 3), self.t, dtype=np.uint8)
        return None

    def close(self):
        pass


class StepCounterEnv(gymnasium.Env):
    """
    gymnasium env: obs = [t]; terminated when t reaches ``terminate_at`` (if given), truncated at ``max_steps``.
    Renders an rgb_array image filled with t.
    """
    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

    def __init__(self, max_steps=4, terminate_at=None, render_mode="rgb_array"):
        self.observation_space = spaces.Box(low=0, high=100, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.max_steps = max_steps
        self.terminate_at = terminate_at
        self.render_mode = render_mode
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.array([self.t], dtype=np.float32), {"reset": True}

    def step(self, action):
        self.t += 1
        obs = np.array([self.t], dtype=np.float32)
        terminated = self.terminate_at is not None and self.t >= self.terminate_at
        truncated = self.t >= self.max_steps
        return obs, float(self.t), terminated, truncated, {"t": self.t}

    def render(self):
        return np.full((4, 6, 3), self.t, dtype=np.uint8)


class DictObsEnv(gymnasium.Env):
    """gymnasium env with Dict observations {'pos': Box(2,), 'flag': Discrete(3)}; seeded random positions."""

    def __init__(self):
        self.observation_space = spaces.Dict({"pos": spaces.Box(-1, 1, shape=(2,), dtype=np.float32),
                                              "flag": spaces.Discrete(3)})
        self.action_space = spaces.Discrete(2)
        self.t = 0

    def _obs(self):
        return {"pos": self.np_random.uniform(-1, 1, size=2).astype(np.float32), "flag": self.t % 3}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        return self._obs(), 0.5, False, self.t >= 2, {}


class TupleObsEnv(gymnasium.Env):
    """gymnasium env with Tuple observations (Box(3,), Discrete(4), Discrete(2))."""

    def __init__(self):
        self.observation_space = spaces.Tuple((spaces.Box(-1, 1, shape=(3,), dtype=np.float32), spaces.Discrete(4),
                                              spaces.Discrete(2)))
        self.action_space = spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return (np.zeros(3, dtype=np.float32), 1, 0), {}

    def step(self, action):
        return (np.ones(3, dtype=np.float32), 2, 1), 0.0, False, False, {}


class CrashingEnv(StepCounterEnv):
    """Raises in step() once ``crash_at`` steps were taken."""

    def __init__(self, crash_at=2, **kwargs):
        super().__init__(**kwargs)
        self.crash_at = crash_at

    def step(self, action):
        if self.t + 1 >= self.crash_at:
            raise RuntimeError("boom at step {}".format(self.t + 1))
        return super().step(action)


class DyingEnv(StepCounterEnv):
    """Kills its own process in step() (as a segfault would)."""

    def step(self, action):
        os._exit(3)


class NanEnv(StepCounterEnv):
    """Returns a NaN observation at step ``nan_at`` and an infinite reward at step ``inf_at``."""

    def __init__(self, nan_at=2, inf_at=None, **kwargs):
        super().__init__(max_steps=100, **kwargs)
        self.nan_at = nan_at
        self.inf_at = inf_at

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        if self.t == self.nan_at:
            obs = np.array([np.nan], dtype=np.float32)
        if self.t == self.inf_at:
            reward = float("inf")
        return obs, reward, terminated, truncated, info


class GaussianObsEnv(gymnasium.Env):
    """Observations drawn from N(loc, scale) (shape (3,)), rewards from N(2, 3); episodes of 7 steps."""

    def __init__(self, loc=(1.0, -2.0, 5.0), scale=(1.0, 0.5, 3.0)):
        self.loc = np.asarray(loc, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(3,), dtype=np.float64)
        self.action_space = spaces.Box(low=-1, high=1, shape=(1,), dtype=np.float32)
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self.np_random.normal(self.loc, self.scale), {}

    def step(self, action):
        self.t += 1
        reward = float(self.np_random.normal(2.0, 3.0))
        return self.np_random.normal(self.loc, self.scale), reward, False, self.t >= 7, {}


def make_legacy_env():
    """Factory usable with every start method."""
    return LegacyCounterEnv(ep_length=3)


class ModeRenderEnv(gymnasium.Env):
    """
    A gymnasium env written against the old render API: ``render(mode=...)`` chooses the mode per call.
    'rgb_array' gives a 2x3 image filled with 7 (plus the step count), 'human' returns the string "shown".
    """

    def __init__(self):
        self.observation_space = spaces.Box(low=0, high=100, shape=(1,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.array([0.0], dtype=np.float32), {}

    def step(self, action):
        self.t += 1
        return np.array([self.t], dtype=np.float32), 1.0, False, False, {}

    def render(self, mode="human"):
        if mode == "rgb_array":
            return np.full((2, 3, 3), 7 + self.t, dtype=np.uint8)
        return "shown"


def make_monitored_mode_render_env():
    from stable_baselines.bench import Monitor
    return Monitor(ModeRenderEnv(), None)


class ProbeEnv(StepCounterEnv):
    """Reports on the worker process it runs in (for the SubprocVecEnv start-up tests)."""

    def report(self):
        import sys
        import multiprocessing
        return {"tensorflow": "tensorflow" in sys.modules, "process": multiprocessing.current_process().name}

    def use_algorithm(self, name):
        """Import an algorithm class in the worker, as user code may, and tell whether TF-1 behaviour is on."""
        import importlib
        import sys
        algorithm = getattr(importlib.import_module("stable_baselines"), name)
        import tensorflow as tf
        stand_in = getattr(sys.modules.get("__mp_main__"), name, None)  # bound by the main script's import
        return {"class": algorithm.__name__, "eager": tf.executing_eagerly(),
                "stand_in": repr(stand_in), "stand_in_equals_class": stand_in == algorithm,
                "stand_in_subclass_check": issubclass(algorithm, stand_in)}
