"""
Helpers for vectorized environments with structured (Dict / Tuple) observation spaces.
Observations are buffered as a dict ``key -> array``; the key is ``None`` for a plain space,
the sub-space name for a Dict space and the index for a Tuple space. A nested space (a Dict or Tuple inside a
Dict or Tuple) is buffered entry by entry: its keys are the paths (tuples of names and indices) of its plain
entries, and batches keep the nesting (OrderedDicts for Dicts, tuples for Tuples).
"""
from collections import OrderedDict
from typing import Any, Dict, List, Sequence, Tuple

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
    if is_nested(space):
        return _rebuild(space, obs_dict, ())
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
    if is_nested(obs_space):
        subspaces = OrderedDict(_plain_entries(obs_space, ()))
    keys = []
    shapes = {}
    dtypes = {}
    for key, box in subspaces.items():
        keys.append(key)
        shapes[key] = tuple(box.shape) if box.shape is not None else ()
        dtypes[key] = np.dtype(box.dtype) if box.dtype is not None else np.dtype(object)
    return keys, shapes, dtypes


def is_nested(space: spaces.Space) -> bool:
    """
    :param space: (gymnasium.spaces.Space) an observation space
    :return: (bool) whether it is a Dict or Tuple space with a Dict or Tuple inside
    """
    return isinstance(space, (spaces.Dict, spaces.Tuple)) and \
        any(isinstance(child, (spaces.Dict, spaces.Tuple)) for _, child in _children(space))


def _children(space: spaces.Space) -> List[Tuple[Any, spaces.Space]]:
    """:return: ([(key or index, space)]) the sub-spaces of a Dict or Tuple space, in order"""
    if isinstance(space, spaces.Dict):
        return list(space.spaces.items())
    if isinstance(space, spaces.Tuple):
        return list(enumerate(space.spaces))
    return []


def _plain_entries(space: spaces.Space, path: Tuple[Any, ...]) -> List[Tuple[Tuple[Any, ...], spaces.Space]]:
    """:return: ([(tuple, gymnasium.spaces.Space)]) the path and space of every plain entry, depth first"""
    if not isinstance(space, (spaces.Dict, spaces.Tuple)):
        return [(path, space)]
    return [entry for key, child in _children(space) for entry in _plain_entries(child, path + (key,))]


def _rebuild(space: spaces.Space, obs_dict: Dict[Any, np.ndarray], path: Tuple[Any, ...]) -> Any:
    """The batch of a nested space from its entries buffered under their paths."""
    if isinstance(space, spaces.Dict):
        return OrderedDict((key, _rebuild(child, obs_dict, path + (key,))) for key, child in space.spaces.items())
    if isinstance(space, spaces.Tuple):
        return tuple(_rebuild(child, obs_dict, path + (index,)) for index, child in enumerate(space.spaces))
    if path not in obs_dict:
        raise ValueError("dict_to_obs: no observations were buffered for the entry {}".format(path))
    return obs_dict[path]


def obs_entry(obs: Any, key: Any) -> Any:
    """
    :param obs: (Any) one observation of an environment
    :param key: (Any) a buffer key of :func:`obs_space_info`: None, a key or index, or the path of a nested entry
    :return: (Any) the part of ``obs`` buffered under ``key``
    """
    if key is None:
        return obs
    if not isinstance(key, tuple):
        return obs[key]
    for depth, part in enumerate(key):
        try:
            obs = obs[part]
        except (KeyError, IndexError, TypeError) as error:
            raise ValueError("The observation has no entry {!r} at {}: the observation space expects one there"
                             .format(part, "/".join(str(step) for step in key[:depth]) or "its top level")) \
                from error
    return obs


def stack_obs(observations: Sequence[Any], space: spaces.Space) -> Any:
    """
    Stack the observations of several environments of a (possibly nested) Dict or Tuple space into one batch.

    :param observations: ([Any]) one observation per environment
    :param space: (gymnasium.spaces.Space) their space
    :return: (OrderedDict, tuple or np.ndarray) the batch: every plain entry with the environment axis first,
        of its space's dtype, in the structure of the space
    """
    if isinstance(space, spaces.Dict):
        return OrderedDict((key, stack_obs([obs[key] for obs in observations], child))
                           for key, child in space.spaces.items())
    if isinstance(space, spaces.Tuple):
        return tuple(stack_obs([obs[index] for obs in observations], child)
                     for index, child in enumerate(space.spaces))
    return np.stack(observations).astype(space.dtype, copy=False)
