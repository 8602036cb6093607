"""
Helpers for vectorized environments with structured (Dict / Tuple) observation spaces.
Observations are buffered as a dict ``key -> array``; the key is ``None`` for a plain space,
the sub-space name for a Dict space and the index for a Tuple space.
"""
from collections import OrderedDict
from typing import Any, Dict, List, Tuple

import numpy as np
from gymnasium import spaces


def copy_obs_dict(obs: Dict[Any, np.ndarray]) -> Dict[Any, np.ndarray]:
    """
    Deep-copy a dict of numpy arrays.

    :param obs: (OrderedDict<ndarray>) a dict of numpy arrays
    :return: (OrderedDict<ndarray>) a dict of copied numpy arrays
    """
    if not isinstance(obs, dict):
        raise TypeError("copy_obs_dict expected a dict of arrays, got {}".format(type(obs).__name__))
    return OrderedDict([(key, np.copy(value)) for key, value in obs.items()])


def dict_to_obs(space: spaces.Space, obs_dict: Dict[Any, np.ndarray]) -> Any:
    """
    Convert an internal observation dict into the observation type of ``space``.

    :param space: (gymnasium.spaces.Space) the observation space
    :param obs_dict: (dict<ndarray>) the buffered observations
    :return: (ndarray, tuple<ndarray> or dict<ndarray>) an array for plain spaces, a tuple of arrays
        for Tuple spaces, an OrderedDict of arrays for Dict spaces
    """
    if isinstance(space, spaces.Dict):
        return obs_dict
    if isinstance(space, spaces.Tuple):
        if len(obs_dict) != len(space.spaces):
            raise ValueError("dict_to_obs: the Tuple space has {} sub-spaces but {} observations were buffered"
                             .format(len(space.spaces), len(obs_dict)))
        return tuple(obs_dict[i] for i in range(len(space.spaces)))
    if set(obs_dict.keys()) != {None}:
        raise ValueError("dict_to_obs: a plain observation space expects the single key None, got keys {}"
                         .format(list(obs_dict.keys())))
    return obs_dict[None]


def obs_space_info(obs_space: spaces.Space) -> Tuple[List[Any], Dict[Any, Tuple[int, ...]], Dict[Any, np.dtype]]:
    """
    Get the buffer layout of an observation space.

    :param obs_space: (gymnasium.spaces.Space) an observation space
    :return: (tuple) ``keys`` (list), ``shapes`` (dict key -> shape), ``dtypes`` (dict key -> numpy dtype)
    """
    subspaces: Dict[Any, spaces.Space]
    if isinstance(obs_space, spaces.Dict):
        if not isinstance(obs_space.spaces, OrderedDict):
            subspaces = OrderedDict(obs_space.spaces)
        else:
            subspaces = obs_space.spaces
    elif isinstance(obs_space, spaces.Tuple):
        subspaces = OrderedDict([(i, space) for i, space in enumerate(obs_space.spaces)])
    elif isinstance(obs_space, spaces.Space):
        subspaces = OrderedDict([(None, obs_space)])
    else:
        raise TypeError("obs_space_info expected a gymnasium space, got {!r}".format(obs_space))
    keys = []
    shapes = {}
    dtypes = {}
    for key, box in subspaces.items():
        if isinstance(box, (spaces.Dict, spaces.Tuple)):
            raise NotImplementedError("Nested Dict/Tuple observation spaces are not supported by vectorized "
                                      "environments (sub-space {!r} is a {})".format(key, type(box).__name__))
        keys.append(key)
        shapes[key] = tuple(box.shape) if box.shape is not None else ()
        dtypes[key] = np.dtype(box.dtype) if box.dtype is not None else np.dtype(object)
    return keys, shapes, dtypes
