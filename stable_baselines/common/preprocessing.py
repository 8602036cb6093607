"""
What kind of data an observation space holds, for code that treats images differently (wrappers, policies).
"""
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces

if TYPE_CHECKING:  # typing.TypeGuard needs Python 3.10; only type checkers read the annotation
    from typing import TypeGuard

# channel counts of the images a CNN policy is usually given (grey, RGB, RGBA / 4 stacked grey frames)
_USUAL_CHANNELS = (1, 3, 4)


def is_image_space_channels_first(observation_space: spaces.Box) -> bool:
    """
    Guess the layout of a 3-d image space: the channel axis is taken to be the smallest one.

    :param observation_space: (gymnasium.spaces.Box) a space of 3-d observations
    :return: (bool) True when the channel axis comes first (CHW), False when it comes last (HWC)
    """
    shape = observation_space.shape
    return int(np.argmin(shape)) == 0 and shape[0] < shape[-1]


def is_image_space(observation_space: Any, check_channels: bool = False) -> "TypeGuard[spaces.Box]":
    """
    Whether a space holds images as the CNN policies expect them: a 3-d ``Box`` of ``uint8`` bounded by
    0 and 255.

    :param observation_space: (gymnasium.spaces.Space) the space to look at
    :param check_channels: (bool) also require 1, 3 or 4 channels (on the first or the last axis)
    :return: (bool) whether it is such an image space
    """
    if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 3:
        return False
    if observation_space.dtype != np.uint8:
        return False
    if np.any(observation_space.low != 0) or np.any(observation_space.high != 255):
        return False
    if not check_channels:
        return True
    channel_axis = 0 if is_image_space_channels_first(observation_space) else -1
    return observation_space.shape[channel_axis] in _USUAL_CHANNELS


__all__ = ["is_image_space", "is_image_space_channels_first"]
