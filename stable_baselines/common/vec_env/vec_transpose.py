"""VecTransposeImage: images from height x width x channels (HWC) to channels x height x width (CHW)."""
from typing import Any, Dict, List

import numpy as np
from gymnasium import spaces

from stable_baselines.common.preprocessing import is_image_space, is_image_space_channels_first
from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvObs, VecEnvStepReturn, VecEnvWrapper


class VecTransposeImage(VecEnvWrapper):
    """
    Give the image observations of a VecEnv channel-first: ``(H, W, C)`` images become ``(C, H, W)``, in the
    observations, the observation space and the ``terminal_observation`` of the infos. With a ``Dict``
    observation space, every image entry is transposed and the other entries pass unchanged.

    :param venv: (VecEnv) a vectorized environment whose observations are ``uint8`` images in [0, 255] (HWC),
        or a Dict holding such images
    :param skip: (bool) leave the observations as they are (e.g. when the images are already channel-first)
    """

    def __init__(self, venv: VecEnv, skip: bool = False) -> None:
        space = venv.observation_space
        if not (is_image_space(space) or isinstance(space, spaces.Dict)):
            raise ValueError("VecTransposeImage expected an image observation space (a 3-d uint8 Box with bounds "
                             "[0, 255]) or a Dict observation space, got {}".format(space))
        self.skip = skip
        self.image_space_keys: List[str] = []
        if skip:
            super().__init__(venv)
            return
        if isinstance(space, spaces.Dict):
            self.image_space_keys = [key for key, subspace in space.spaces.items() if is_image_space(subspace)]
            # a list of pairs keeps the order of the keys (a dict would be sorted)
            transposed = spaces.Dict([(key, self.transpose_space(subspace, key) if key in self.image_space_keys
                                       else subspace) for key, subspace in space.spaces.items()])
            super().__init__(venv, observation_space=transposed)
        else:
            super().__init__(venv, observation_space=self.transpose_space(space))

    @staticmethod
    def transpose_space(observation_space: spaces.Space, key: str = "") -> spaces.Box:
        """
        The channel-first version of a channel-last image space.

        :param observation_space: (gymnasium.spaces.Box) an image space of shape ``(H, W, C)``
        :param key: (str) the name of the space in a Dict (for error messages)
        :return: (gymnasium.spaces.Box) the same space with shape ``(C, H, W)``
        """
        where = "" if not key else " {!r}".format(key)
        if not is_image_space(observation_space):
            raise ValueError("VecTransposeImage: the observation space{} must be an image (a 3-d uint8 Box with "
                             "bounds [0, 255]), got {}".format(where, observation_space))
        if is_image_space_channels_first(observation_space):
            raise ValueError("VecTransposeImage: the observation space{} must have its channels last (H, W, C); "
                             "its shape {} looks channel-first already (use skip=True to leave it)"
                             .format(where, observation_space.shape))
        return spaces.Box(low=VecTransposeImage.transpose_image(observation_space.low),
                          high=VecTransposeImage.transpose_image(observation_space.high),
                          dtype=observation_space.dtype)

    @staticmethod
    def transpose_image(image: np.ndarray) -> np.ndarray:
        """
        Move the channel axis of one image (3-d) or a batch of images (4-d) before height and width.

        :param image: (np.ndarray) ``(H, W, C)`` or ``(N, H, W, C)``
        :return: (np.ndarray) ``(C, H, W)`` or ``(N, C, H, W)``
        """
        image = np.asarray(image)
        if image.ndim == 3:
            return np.transpose(image, (2, 0, 1))
        if image.ndim == 4:
            return np.transpose(image, (0, 3, 1, 2))
        raise ValueError("transpose_image expected an image (H, W, C) or a batch of images (N, H, W, C), got an "
                         "array of shape {}".format(image.shape))

    def transpose_observations(self, observations: Any) -> Any:
        """
        :param observations: (np.ndarray or dict) observations as the wrapped VecEnv gives them (a batch, or
            the observation of one environment)
        :return: (np.ndarray or dict) the same with every image channel-first
        """
        if self.skip:
            return observations
        if isinstance(observations, dict):
            transposed = type(observations)(observations)
            for key in self.image_space_keys:
                transposed[key] = self.transpose_image(observations[key])
            return transposed
        return self.transpose_image(observations)

    def reset(self) -> VecEnvObs:
        return self.transpose_observations(self.venv.reset())

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, dones, infos = self.venv.step_wait()
        return self.transpose_observations(observations), rewards, dones, [self._transpose_terminal(info)
                                                                           for info in infos]

    def _transpose_terminal(self, info: Dict[str, Any]) -> Dict[str, Any]:
        """:return: (dict) ``info``, or a copy with its ``terminal_observation`` transposed"""
        if self.skip or "terminal_observation" not in info:
            return info
        transposed = dict(info)
        transposed["terminal_observation"] = self.transpose_observations(info["terminal_observation"])
        return transposed


__all__ = ["VecTransposeImage"]
