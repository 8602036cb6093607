"""
Environment loops that collect experience for the on-policy algorithms.
"""
from abc import ABC, abstractmethod
from typing import Optional, Union

import numpy as np
from gymnasium import spaces

from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.vec_env import VecEnv


class AbstractEnvRunner(ABC):
    def __init__(self, *, env: Union[VecEnv], model, n_steps: int):
        """
        Collect experience by running `n_steps` in the environment.
        Note: if this is a `VecEnv`, the total number of steps will
        be `n_steps * n_envs`.

        :param env: (Union[gym.Env, VecEnv]) The environment to learn from
        :param model: (Model) The model to learn
        :param n_steps: (int) The number of steps to run for each environment
        """
        self.env = env
        self.model = model
        n_envs = env.num_envs
        self.batch_ob_shape = (n_envs * n_steps,) + env.observation_space.shape
        self.obs = np.zeros((n_envs,) + env.observation_space.shape, dtype=env.observation_space.dtype)
        self.obs[:] = env.reset()
        self.n_steps = n_steps
        self.states = model.initial_state
        self.dones = [False for _ in range(n_envs)]
        self.callback = None  # type: Optional[BaseCallback]
        self.continue_training = True
        self.n_envs = n_envs

    def run(self, callback: Optional[BaseCallback] = None):
        """
        Collect experience.

        :param callback: (Optional[BaseCallback]) The callback that will be called
            at each environment step.
        """
        self.callback = callback
        self.continue_training = True
        return self._run()

    @abstractmethod
    def _run(self):
        """
        This method must be overwritten by child class.
        """
        raise NotImplementedError

    def _clip_actions(self, actions: np.ndarray) -> np.ndarray:
        """
        Clip continuous actions to the bounds of the action space (to avoid out of bound errors).

        :param actions: (np.ndarray)
        :return: (np.ndarray)
        """
        action_space = self.env.action_space
        if isinstance(action_space, spaces.Box):
            return np.clip(actions, action_space.low, action_space.high)
        return actions

    def _on_env_step(self, local_variables: dict) -> bool:
        """
        Hand the loop's variables to the callback after an environment step. As the manual's legacy
        callbacks expect, ``locals_["self"]`` is the model; the runner itself is ``locals_["runner"]``.

        :param local_variables: (dict) ``locals()`` of the collecting loop
        :return: (bool) False when the callback asked to stop training
        """
        if self.callback is None:
            return True
        local_variables = dict(local_variables, self=self.model, runner=self)
        self.callback.update_locals(local_variables)
        if self.callback.on_step() is False:
            self.continue_training = False
            return False
        return True


def swap_and_flatten(arr: np.ndarray) -> np.ndarray:
    """
    swap and then flatten axes 0 and 1

    :param arr: (np.ndarray)
    :return: (np.ndarray)
    """
    shape = arr.shape
    return arr.swapaxes(0, 1).reshape(shape[0] * shape[1], *shape[2:])
