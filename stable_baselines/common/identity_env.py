"""
Identity environments: the agent is rewarded for repeating the observation as its action.
Cheap tasks used to test that algorithms learn.
"""
from typing import Any, Dict, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces


class IdentityEnv(gymnasium.Env):
    """
    Identity environment for testing purposes: the observation is a sample of the action space and the
    reward is 1 when the action equals the observation (0 otherwise). The episode is truncated after
    ``ep_length`` steps.

    :param dim: (int) the size of the Discrete space (used only when ``space`` is None; default 1)
    :param space: (gymnasium.spaces.Space) the action (and observation) space; if None, ``Discrete(dim)``
    :param ep_length: (int) the length of each episode in timesteps
    """

    metadata = {"render_modes": ["human"], "render.modes": ["human"]}

    def __init__(self, dim: Optional[int] = None, space: Optional[spaces.Space] = None, ep_length: int = 100):
        if space is None:
            if dim is None:
                dim = 1
            space = spaces.Discrete(dim)
        elif dim is not None:
            raise ValueError("IdentityEnv: arguments for both 'dim' ({}) and 'space' ({}) were given; "
                             "pass only one".format(dim, space))
        self.action_space = self.observation_space = space
        self.ep_length = ep_length
        self.current_step = 0
        self.num_resets = -1  # Becomes 0 after __init__ exits.
        self.state = None
        self.reset()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> Tuple[Any, Dict[str, Any]]:
        """
        Start a new episode.

        :param seed: (int) seed of the environment's random generator (the states are sampled from the space)
        :param options: (dict) unused
        :return: (Any, dict) the first observation and an empty info dict
        """
        super().reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        self.current_step = 0
        self.num_resets += 1
        self._choose_next_state()
        return self.state, {}

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """
        :param action: the action (reward 1 when it matches the current observation)
        :return: (obs, reward, terminated, truncated, info); truncated after ``ep_length`` steps
        """
        reward = self._get_reward(action)
        self._choose_next_state()
        self.current_step += 1
        truncated = self.current_step >= self.ep_length
        return self.state, reward, False, truncated, {}

    def _choose_next_state(self) -> None:
        self.state = self.action_space.sample()

    def _get_reward(self, action: Any) -> float:
        return 1.0 if np.all(self.state == action) else 0.0

    def render(self, mode: str = 'human') -> None:
        pass


class IdentityEnvBox(IdentityEnv):
    """
    Identity environment for testing purposes, with a continuous action: reward 1 when the action is within
    ``eps`` of the observation.

    :param low: (float) the lower bound of the box dim
    :param high: (float) the upper bound of the box dim
    :param eps: (float) the epsilon bound for correct value
    :param ep_length: (int) the length of each episode in timesteps
    """

    def __init__(self, low: float = -1, high: float = 1, eps: float = 0.05, ep_length: int = 100):
        space = spaces.Box(low=low, high=high, shape=(1,), dtype=np.float32)
        self.eps = eps
        super().__init__(ep_length=ep_length, space=space)

    def _get_reward(self, action: Any) -> float:
        action = np.asarray(action, dtype=np.float64).reshape(self.state.shape)
        return 1.0 if np.all(np.abs(self.state - action) <= self.eps) else 0.0


class IdentityEnvMultiDiscrete(IdentityEnv):
    """
    Identity environment for testing purposes, with a MultiDiscrete([dim, dim]) space.

    :param dim: (int) the size of each dimension
    :param ep_length: (int) the length of each episode in timesteps
    """

    def __init__(self, dim: int = 1, ep_length: int = 100):
        space = spaces.MultiDiscrete([dim, dim])
        super().__init__(ep_length=ep_length, space=space)


class IdentityEnvMultiBinary(IdentityEnv):
    """
    Identity environment for testing purposes, with a MultiBinary(dim) space.

    :param dim: (int) the number of binary values
    :param ep_length: (int) the length of each episode in timesteps
    """

    def __init__(self, dim: int = 1, ep_length: int = 100):
        space = spaces.MultiBinary(dim)
        super().__init__(ep_length=ep_length, space=space)
