"""A small task that needs memory, for the recurrent-policy tests."""
import gymnasium
import numpy as np
from gymnasium import spaces


class CueMemoryEnv(gymnasium.Env):
    """
    The first observation shows a cue (-1 or +1); the next ``delay`` observations are blank; the last
    one raises a query flag. The action at the query is rewarded 1 when it names the cue (1 for +1,
    0 for -1); every other step gives 0. Without memory the best expected reward is 0.5 per episode.

    :param delay: (int) blank steps between the cue and the query
    """

    def __init__(self, delay: int = 3):
        self.delay = delay
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        self.action_space = spaces.Discrete(2)
        self.cue = 1.0
        self.step_count = 0

    def _obs(self):
        if self.step_count == 0:
            return np.array([self.cue, 0.0], dtype=np.float32)
        if self.step_count == self.delay + 1:
            return np.array([0.0, 1.0], dtype=np.float32)
        return np.zeros(2, dtype=np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.cue = float(self.np_random.choice([-1.0, 1.0]))
        self.step_count = 0
        return self._obs(), {}

    def step(self, action):
        done = self.step_count == self.delay + 1
        reward = float(int(action) == int(self.cue > 0)) if done else 0.0
        self.step_count += 1
        return self._obs() if not done else np.zeros(2, dtype=np.float32), reward, done, False, {}
