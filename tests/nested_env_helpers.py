"""Light environments with Dict observations, one of them nested (no TensorFlow import: SubprocVecEnv workers load
them)."""
import sys
from typing import Optional

import gymnasium
import numpy as np
from gymnasium import spaces


class NestedCounterEnv(gymnasium.Env):
    """
    Observations ``{"count": Box(1,), "robot": {"joints": Box(2,), "flags": (Discrete(3), MultiBinary(2))}}`` whose
    values follow the step counter ``t`` and the env's ``index``; episodes end after ``max_steps`` steps (truncated).
    ``nan_at``: the joints are NaN at that step.
    """

    def __init__(self, index=0, max_steps=3, nan_at=None):
        self.index, self.max_steps, self.nan_at, self.t = index, max_steps, nan_at, 0
        self.observation_space = spaces.Dict({
            "count": spaces.Box(-10, 100, (1,), np.float32),
            "robot": spaces.Dict({"joints": spaces.Box(-100, 100, (2,), np.float32),
                                  "flags": spaces.Tuple((spaces.Discrete(3), spaces.MultiBinary(2)))})})
        self.action_space = spaces.Discrete(2)

    def _obs(self):
        joints = np.array([self.t, 10 * self.index], np.float32)
        if self.nan_at is not None and self.t == self.nan_at:
            joints[0] = np.nan
        return {"count": np.array([self.t], np.float32),
                "robot": {"joints": joints, "flags": (self.t % 3, np.array([self.index % 2, 1], np.int8))}}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        return self._obs(), float(action), False, self.t >= self.max_steps, {}

    def tensorflow_imported(self):
        return "tensorflow" in sys.modules


def make_nested(index):
    """:return: (callable) a maker of :class:`NestedCounterEnv` number ``index``"""
    return lambda: NestedCounterEnv(index)


class TwoScalesEnv(gymnasium.Env):
    """
    A Dict of two vectors on very different scales (``big`` about 100 +/- 10, ``small`` about 0 +/- 0.01) and a
    Discrete entry, drawn anew at each reset and step; episodes never end.

    :param seed: (int) the seed of the draws
    :param reward: (float) the reward of every step (None: the action, as a float)
    """

    def __init__(self, seed: int = 0, reward: Optional[float] = None) -> None:
        self.observation_space = spaces.Dict({"big": spaces.Box(-np.inf, np.inf, (2,), np.float32),
                                              "small": spaces.Box(-np.inf, np.inf, (1,), np.float32),
                                              "mode": spaces.Discrete(2)})
        self.action_space = spaces.Discrete(2)
        self.rng = np.random.default_rng(seed)
        self.reward = reward

    def _draw(self):
        return {"big": (100 + 10 * self.rng.standard_normal(2)).astype(np.float32),
                "small": (0.01 * self.rng.standard_normal(1)).astype(np.float32), "mode": int(self.rng.integers(2))}

    def reset(self, seed=None, options=None):
        return self._draw(), {}

    def step(self, action):
        reward = float(action) if self.reward is None else self.reward
        return self._draw(), reward, False, False, {}
