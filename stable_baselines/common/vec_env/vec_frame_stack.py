"""VecFrameStack: stack the last observations of each environment on the last axis."""
import warnings

import numpy as np
from gymnasium import spaces

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper


class VecFrameStack(VecEnvWrapper):
    """
    Gives the agent the ``n_stack`` most recent observations of each environment at once, joined on the
    last axis (the channels, for images), oldest first. When an episode ends, the stack of that environment
    starts again from zeros; the ``terminal_observation`` of its info is stacked as well.

    :param venv: (VecEnv) the vectorized environment whose observations are stacked
    :param n_stack: (int) how many observations to stack
    """

    def __init__(self, venv: VecEnv, n_stack: int) -> None:
        if not isinstance(n_stack, (int, np.integer)) or n_stack < 1:
            raise ValueError("VecFrameStack expected n_stack to be a positive int, got {!r}".format(n_stack))
        self.venv = venv
        self.n_stack = int(n_stack)
        single = venv.observation_space
        if not isinstance(single, spaces.Box):
            raise TypeError("VecFrameStack only supports Box observation spaces, got {}".format(single))
        if len(single.shape) == 0:
            raise ValueError("VecFrameStack needs observations with at least one axis, got shape ()")
        low = np.concatenate([single.low] * self.n_stack, axis=-1)
        high = np.concatenate([single.high] * self.n_stack, axis=-1)
        self.stackedobs = np.zeros((venv.num_envs,) + low.shape, low.dtype)
        VecEnvWrapper.__init__(self, venv, observation_space=spaces.Box(low=low, high=high, dtype=single.dtype))

    def _stack_terminal(self, env_idx: int, info: dict, width: int) -> None:
        """Replace the last observation of a finished episode by its stack (before the stack is cleared)."""
        if 'terminal_observation' not in info:
            warnings.warn("VecFrameStack wrapping a VecEnv without terminal_observation info")
            return
        last = np.asarray(info['terminal_observation'], dtype=self.stackedobs.dtype)
        info['terminal_observation'] = np.concatenate((self.stackedobs[env_idx, ..., :-width], last), axis=-1)

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, dones, infos = self.venv.step_wait()
        width = observations.shape[-1]
        # drop the oldest observation: the others move one slot towards the front
        self.stackedobs = np.roll(self.stackedobs, shift=-width, axis=-1)
        for env_idx in np.flatnonzero(dones):
            self._stack_terminal(int(env_idx), infos[env_idx], width)
            self.stackedobs[env_idx] = 0
        self.stackedobs[..., -width:] = observations
        return np.copy(self.stackedobs), rewards, dones, infos

    def reset(self) -> VecEnvObs:
        """
        Reset all environments: each stack holds zeros and the first observation.
        """
        first = self.venv.reset()
        self.stackedobs[...] = 0
        self.stackedobs[..., -first.shape[-1]:] = first
        return np.copy(self.stackedobs)

    def close(self) -> None:
        self.venv.close()
