"""VecFrameStack: stack the last observations of each environment on the last axis."""
import warnings

import numpy as np
from gymnasium import spaces

from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvWrapper


class VecFrameStack(VecEnvWrapper):
    """
    Frame stacking wrapper for vectorized environment

    The ``n_stack`` last observations are concatenated on the last axis (channels for images); the stack of an
    environment is zeroed when its episode ends. The ``terminal_observation`` of the infos is stacked too.

    :param venv: (VecEnv) the vectorized environment to wrap
    :param n_stack: (int) Number of frames to stack
    """

    def __init__(self, venv: VecEnv, n_stack: int):
        if not isinstance(n_stack, (int, np.integer)) or n_stack < 1:
            raise ValueError("VecFrameStack expected n_stack to be a positive int, got {!r}".format(n_stack))
        self.venv = venv
        self.n_stack = int(n_stack)
        wrapped_obs_space = venv.observation_space
        if not isinstance(wrapped_obs_space, spaces.Box):
            raise TypeError("VecFrameStack only supports Box observation spaces, got {}".format(wrapped_obs_space))
        if len(wrapped_obs_space.shape) == 0:
            raise ValueError("VecFrameStack needs observations with at least one axis, got shape ()")
        # the stacked observation is [obs_{t-n+1}, ..., obs_t] along the last axis: bounds follow the same layout
        low = np.concatenate([wrapped_obs_space.low] * self.n_stack, axis=-1)
        high = np.concatenate([wrapped_obs_space.high] * self.n_stack, axis=-1)
        self.stackedobs = np.zeros((venv.num_envs,) + low.shape, low.dtype)
        observation_space = spaces.Box(low=low, high=high, dtype=wrapped_obs_space.dtype)
        VecEnvWrapper.__init__(self, venv, observation_space=observation_space)

    def step_wait(self):
        observations, rewards, dones, infos = self.venv.step_wait()
        last_ax_size = observations.shape[-1]
        self.stackedobs = np.roll(self.stackedobs, shift=-last_ax_size, axis=-1)
        for i, done in enumerate(dones):
            if done:
                if 'terminal_observation' in infos[i]:
                    old_terminal = infos[i]['terminal_observation']
                    old_terminal = np.asarray(old_terminal, dtype=self.stackedobs.dtype)
                    new_terminal = np.concatenate((self.stackedobs[i, ..., :-last_ax_size], old_terminal), axis=-1)
                    infos[i]['terminal_observation'] = new_terminal
                else:
                    warnings.warn("VecFrameStack wrapping a VecEnv without terminal_observation info")
                self.stackedobs[i] = 0
        self.stackedobs[..., -last_ax_size:] = observations
        return np.copy(self.stackedobs), rewards, dones, infos

    def reset(self):
        """
        Reset all environments
        """
        obs = self.venv.reset()
        self.stackedobs[...] = 0
        self.stackedobs[..., -obs.shape[-1]:] = obs
        return np.copy(self.stackedobs)

    def close(self):
        self.venv.close()
