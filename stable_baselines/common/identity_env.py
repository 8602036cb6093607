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
    A task for tests: every observation is a random element of the action space, and the agent earns 1
    for answering with that same element (0 otherwise). Episodes are truncated after ``ep_length`` steps.

    :param dim: (int) number of values of the ``Discrete`` space built when ``space`` is None (default 1)
    :param space: (gymnasium.spaces.Space) the space of both actions and observations (default ``Discrete(dim)``)
    :param ep_length: (int) the number of steps of an episode
    """

    metadata = {"render_modes": ["human"], "render.modes": ["human"]}

    def __init__(self, dim: Optional[int] = None, space: Optional[spaces.Space] = None, ep_length: int = 100) -> None:
        if space is None:
            if dim is None:
                dim = 1
            space = spaces.Discrete(dim)
        elif dim is not None:
            raise ValueError("IdentityEnv: arguments for both 'dim' ({}) and 'space' ({}) were given; "
                             "pass only one".format(dim, space))
        self.observation_space = space
        self.action_space = space
        self.ep_length = ep_length
        self.current_step = 0
        self.state: Any = None  # the target action, drawn at each reset and step
        # counts the resets after the one below, which prepares the first state
        self.num_resets = -1
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
        matched = self._get_reward(action)
        self._choose_next_state()
        self.current_step += 1
        truncated = self.current_step >= self.ep_length
        return self.state, matched, False, truncated, {}

    def _choose_next_state(self) -> None:
        """Draw the next observation from the action space."""
        self.state = self.action_space.sample()

    def _get_reward(self, action: Any) -> float:
        return 1.0 if np.all(self.state == action) else 0.0

    def render(self, mode: str = 'human') -> None:
        pass


class IdentityEnvBox(IdentityEnv):
    """
    :class:`IdentityEnv` with one continuous value: an action within ``eps`` of the observation earns 1.

    :param low: (float) smallest value of the Box
    :param high: (float) largest value of the Box
    :param eps: (float) how far from the observation an action may be and still count as a match
    :param ep_length: (int) the number of steps of an episode
    """

    def __init__(self, low: float = -1, high: float = 1, eps: float = 0.05, ep_length: int = 100) -> None:
        self.eps = eps
        super().__init__(space=spaces.Box(low=low, high=high, shape=(1,), dtype=np.float32), ep_length=ep_length)

    def _get_reward(self, action: Any) -> float:
        action = np.asarray(action, dtype=np.float64).reshape(self.state.shape)
        return 1.0 if np.all(np.abs(self.state - action) <= self.eps) else 0.0


class IdentityEnvMultiDiscrete(IdentityEnv):
    """
    :class:`IdentityEnv` on the space ``MultiDiscrete([dim, dim])``.

    :param dim: (int) number of values of each of the two components
    :param ep_length: (int) the number of steps of an episode
    """

    def __init__(self, dim: int = 1, ep_length: int = 100) -> None:
        super().__init__(space=spaces.MultiDiscrete([dim, dim]), ep_length=ep_length)


class IdentityEnvMultiBinary(IdentityEnv):
    """
    :class:`IdentityEnv` on the space ``MultiBinary(dim)``.

    :param dim: (int) how many bits an observation has
    :param ep_length: (int) the number of steps of an episode
    """

    def __init__(self, dim: int = 1, ep_length: int = 100) -> None:
        super().__init__(space=spaces.MultiBinary(dim), ep_length=ep_length)
