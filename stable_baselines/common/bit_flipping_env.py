"""
The bit-flipping environment of the Hindsight Experience Replay paper (Andrychowicz et al., 2017,
https://arxiv.org/abs/1707.01495), a goal-conditioned environment with a sparse, deceptive reward.

The state is a vector of ``n_bits`` bits; the goal is the all-ones vector. An action flips bits: with
discrete actions (``Discrete(n_bits)``) the action is the index of the bit to flip, with continuous actions
(``Box(-1, 1, (n_bits,))``) every bit whose action component is positive is flipped. The reward is 0 when the
state equals the goal and -1 otherwise. Random exploration almost never reaches the goal for 10 bits or more,
which makes it a test bed for HER.

gymnasium has no ``GoalEnv`` class: this env follows its interface (a ``Dict`` observation with the keys
``observation``, ``achieved_goal`` and ``desired_goal``, and a vectorised
``compute_reward(achieved_goal, desired_goal, info)``) and the gymnasium API
(``reset(seed=None, options=None) -> (obs, info)``, ``step(action) -> (obs, reward, terminated, truncated, info)``).
"""
from collections import OrderedDict
from typing import Any, Dict, Optional, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces


class BitFlippingEnv(gymnasium.Env):
    """
    A goal-conditioned toy problem for HER: reach the all-ones bit vector by flipping bits.
    A discrete action flips the bit it names; a continuous action flips every bit whose component is positive.

    :param n_bits: (int) length of the bit vector
    :param continuous: (bool) Box actions (one component per bit) instead of Discrete(n_bits)
    :param max_steps: (int) steps after which an unsolved episode is truncated (None: n_bits)
    :param discrete_obs_space: (bool) observe the integer ``sum_i bit_i * 2**i`` in ``Discrete(2 ** n_bits)``
        instead of the MultiBinary bits
    """

    metadata = {"render_modes": ["human", "rgb_array"]}

    def __init__(self, n_bits: int = 10, continuous: bool = False, max_steps: Optional[int] = None,
                 discrete_obs_space: bool = False) -> None:
        super().__init__()
        if isinstance(n_bits, bool) or not isinstance(n_bits, (int, np.integer)) or n_bits < 1:
            raise ValueError("n_bits must be an int >= 1, got {!r}".format(n_bits))
        if max_steps is None:
            max_steps = n_bits
        if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
            raise ValueError("max_steps must be an int >= 1 (or None for n_bits), got {!r}".format(max_steps))
        n_bits = int(n_bits)
        if discrete_obs_space:
            if n_bits > 62:
                raise ValueError("discrete_obs_space=True needs n_bits <= 62 (the state is an int64), got {}"
                                 .format(n_bits))
            # The agent observes the integer whose binary representation is the state
            # (the original library used Discrete(2 ** n_bits - 1), which cannot hold the goal 2 ** n_bits - 1)
            self.observation_space = spaces.Dict(OrderedDict([
                ("observation", spaces.Discrete(2 ** n_bits)),
                ("achieved_goal", spaces.Discrete(2 ** n_bits)),
                ("desired_goal", spaces.Discrete(2 ** n_bits)),
            ]))
        else:
            self.observation_space = spaces.Dict(OrderedDict([
                ("observation", spaces.MultiBinary(n_bits)),
                ("achieved_goal", spaces.MultiBinary(n_bits)),
                ("desired_goal", spaces.MultiBinary(n_bits)),
            ]))
        # the space of the internal state (bits)
        self.obs_space = spaces.MultiBinary(n_bits)
        if continuous:
            self.action_space = spaces.Box(-1.0, 1.0, shape=(n_bits,), dtype=np.float32)
        else:
            self.action_space = spaces.Discrete(n_bits)
        self.n_bits = n_bits
        self.continuous = bool(continuous)
        self.discrete_obs_space = bool(discrete_obs_space)
        self.state: Optional[np.ndarray] = None
        self.desired_goal = np.ones((n_bits,), dtype=self.obs_space.dtype)
        self.max_steps = int(max_steps)
        self.current_step = 0
        self._powers = (2 ** np.arange(n_bits, dtype=np.int64))
        self.reset()

    # ------------------------------------------------------------------------------------------
    def convert_if_needed(self, state: np.ndarray) -> Union[int, np.ndarray]:
        """
        Convert the bit vector to the observed representation: the integer ``sum_i bit_i * 2**i`` in the
        discrete-observation version, the bit vector (a copy) otherwise.

        :param state: (np.ndarray) the bits
        :return: (int or np.ndarray)
        """
        if self.discrete_obs_space:
            return int(np.dot(np.asarray(state, dtype=np.int64), self._powers))
        return np.array(state, dtype=self.obs_space.dtype)

    def _bits(self) -> np.ndarray:
        """:return: (np.ndarray) the current bits (the array itself); a RuntimeError before the first reset"""
        if self.state is None:
            raise RuntimeError("BitFlippingEnv has no state yet: call reset() before step() or render()")
        return self.state

    def _get_obs(self) -> "OrderedDict[str, Any]":
        """
        :return: (OrderedDict) the goal-conditioned observation (the achieved goal is the state itself)
        """
        state = self._bits()
        return OrderedDict([
            ("observation", self.convert_if_needed(state)),
            ("achieved_goal", self.convert_if_needed(state)),
            ("desired_goal", self.convert_if_needed(self.desired_goal)),
        ])

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict] = None) -> Tuple["OrderedDict[str, Any]", Dict[str, Any]]:
        """
        Start a new episode from a random bit vector.

        :param seed: (int) seed of the environment's random generator (None: keep the current generator)
        :param options: (dict) unused
        :return: (OrderedDict, dict) the first observation and an empty info dict
        """
        super(BitFlippingEnv, self).reset(seed=seed)
        if seed is not None:
            self.action_space.seed(seed)
        self.current_step = 0
        self.state = self.np_random.integers(0, 2, size=(self.n_bits,)).astype(self.obs_space.dtype)
        return self._get_obs(), {}

    def step(self, action: Any) -> Tuple["OrderedDict[str, Any]", float, bool, bool, Dict[str, Any]]:
        """
        Flip the bits chosen by the action.

        :param action: (int or np.ndarray) a bit index (discrete actions) or a vector of n_bits values, every
            positive component flips its bit (continuous actions)
        :return: (OrderedDict, float, bool, bool, dict) observation, reward, terminated (the goal is reached),
            truncated (max_steps reached without reaching the goal), info with ``is_success``
        """
        state = self._bits()
        if self.continuous:
            action = np.asarray(action, dtype=np.float64).reshape(-1)
            if action.shape != (self.n_bits,):
                raise ValueError("BitFlippingEnv (continuous) expects an action of shape ({},), got shape {}"
                                 .format(self.n_bits, action.shape))
            flip = action > 0
            state[flip] = 1 - state[flip]
        else:
            chosen = np.asarray(action)
            if chosen.size != 1 or not np.issubdtype(chosen.dtype, np.integer):
                raise ValueError("BitFlippingEnv (discrete) expects an integer action in [0, {}), got {!r}"
                                 .format(self.n_bits, action))
            index = int(chosen.reshape(-1)[0])
            if not 0 <= index < self.n_bits:
                raise ValueError("BitFlippingEnv (discrete) expects an integer action in [0, {}), got {}"
                                 .format(self.n_bits, index))
            state[index] = 1 - state[index]
        obs = self._get_obs()
        reward = float(self.compute_reward(obs["achieved_goal"], obs["desired_goal"], None))
        terminated = reward == 0.0
        self.current_step += 1
        # The episode ends when the goal is reached or after max_steps (a time limit: truncation)
        truncated = (not terminated) and self.current_step >= self.max_steps
        info = {"is_success": terminated}
        return obs, reward, terminated, truncated, info

    def compute_reward(self, achieved_goal: Any, desired_goal: Any, _info: Any) -> Union[float, np.ndarray]:
        """
        The sparse reward: 0 when the achieved goal equals the desired goal, -1 otherwise. Vectorised: given
        batches of goals (leading batch dimension), returns an array of rewards.

        :param achieved_goal: (np.ndarray or int) one goal or a batch of goals
        :param desired_goal: (np.ndarray or int) one goal or a batch of goals
        :param _info: (Any) unused
        :return: (float or np.ndarray) the reward(s)
        """
        achieved_goal = np.asarray(achieved_goal)
        desired_goal = np.asarray(desired_goal)
        if self.discrete_obs_space:
            # integers: one goal is a scalar (or a 1-element vector), a batch is (batch,) or (batch, 1)
            if achieved_goal.ndim == 2 and achieved_goal.shape[-1] == 1:
                achieved_goal = achieved_goal[..., 0]
            if desired_goal.ndim == 2 and desired_goal.shape[-1] == 1:
                desired_goal = desired_goal[..., 0]
            equal = achieved_goal == desired_goal
        else:
            if achieved_goal.shape[-1:] != (self.n_bits,) or desired_goal.shape[-1:] != (self.n_bits,):
                raise ValueError("compute_reward expects goals of shape ({n},) or (batch, {n}), got {} and {}"
                                 .format(achieved_goal.shape, desired_goal.shape, n=self.n_bits))
            equal = np.all(achieved_goal == desired_goal, axis=-1)
        reward = np.where(equal, 0.0, -1.0)
        if reward.ndim == 0:
            return float(reward)
        return reward

    def render(self, mode: str = "human") -> Optional[np.ndarray]:
        """
        :param mode: (str) 'human' prints the bits, 'rgb_array' returns a copy of them
        :return: (np.ndarray) the bits for 'rgb_array', else None
        """
        if mode == "rgb_array":
            return self._bits().copy()
        print(self._bits())
        return None

    def close(self) -> None:
        pass
