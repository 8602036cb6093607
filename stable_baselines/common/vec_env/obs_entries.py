"""
The entries of Dict / Tuple observations, at any depth, for the wrappers that work entry by entry
(:class:`VecNormalize`, :class:`VecFrameStack`).

An entry is reached by its path: the keys (Dict) and indices (Tuple) leading to it from the top. Its name joins
them with ``/``, Tuple positions written ``[i]``: ``'robot/joints'``, ``'pair/[0]'``; a top-level key is its own
name, so the names of a flat Dict are its keys.
"""
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Mapping, Tuple

import numpy as np
from gymnasium import spaces

EntryPath = Tuple[Any, ...]


def entry_name(path: EntryPath) -> str:
    """
    :param path: (tuple) keys and indices from the top observation
    :return: (str) the entry's name
    """
    return "/".join("[{}]".format(part) if isinstance(part, int) else str(part) for part in path)


def box_entries(space: spaces.Space, path: EntryPath = ()) -> List[Tuple[EntryPath, spaces.Box]]:
    """
    :param space: (gymnasium.spaces.Space) an observation space
    :param path: (tuple) the path of ``space`` itself
    :return: ([(tuple, gymnasium.spaces.Box)]) path and space of every Box inside a Dict or Tuple space, depth
        first in the space's order (a Box space itself is not an entry: [])
    """
    if isinstance(space, spaces.Dict):
        children: List[Tuple[Any, spaces.Space]] = list(space.spaces.items())
    elif isinstance(space, spaces.Tuple):
        children = list(enumerate(space.spaces))
    else:
        return [(path, space)] if isinstance(space, spaces.Box) and path else []
    found: List[Tuple[EntryPath, spaces.Box]] = []
    for key, child in children:
        found.extend(box_entries(child, path + (key,)))
    return found


def box_entry_shapes(space: spaces.Space) -> "OrderedDict[str, Tuple[int, ...]]":
    """
    :param space: (gymnasium.spaces.Space) an observation space
    :return: (OrderedDict) name -> shape of every Box entry of a Dict (or Tuple) space, at any depth
    """
    return OrderedDict((entry_name(path), tuple(box.shape) if box.shape is not None else ())
                       for path, box in box_entries(space))


def path_of(observation: Mapping[str, Any], name: str) -> EntryPath:
    """:return: (tuple) the path of the entry called ``name`` (a top-level key is taken as it is)"""
    if name in observation:
        return (name,)
    return tuple(int(part[1:-1]) if part.startswith("[") and part.endswith("]") and part[1:-1].isdigit() else part
                 for part in name.split("/"))


def entry_at(observation: Any, path: EntryPath) -> Any:
    """:return: the values of the entry at ``path`` of a (nested) observation"""
    for part in path:
        observation = observation[part]
    return observation


def with_entries(tree: Any, values: Dict[EntryPath, Any], path: EntryPath = ()) -> Any:
    """
    :param tree: (dict or tuple) an observation (or the part of it at ``path``)
    :param values: (dict) path -> the new values of that entry
    :param path: (tuple) the path of ``tree``
    :return: a copy of the Dicts and Tuples of ``tree`` with the entries of ``values`` replaced (arrays not copied)
    """
    if path in values:
        return values[path]
    if isinstance(tree, dict):
        return OrderedDict((key, with_entries(child, values, path + (key,))) for key, child in tree.items())
    if path and isinstance(tree, tuple):
        return tuple(with_entries(child, values, path + (index,)) for index, child in enumerate(tree))
    return tree


def changed_entries(observation: Mapping[str, Any], names: List[str],
                    change: Callable[[str, Any], Any]) -> Dict[str, Any]:
    """
    :return: (OrderedDict) a copy of the Dict observation's containers, the entries named in ``names`` replaced by
        ``change(name, values)``
    """
    paths = {name: path_of(observation, name) for name in names}
    return with_entries(observation, {path: change(name, entry_at(observation, path)) for name, path in paths.items()})


def copied(observation: Any) -> Any:
    """:return: a copy of a batch of observations (an array, or Dicts and Tuples of arrays at any depth)"""
    if isinstance(observation, dict):
        return OrderedDict((key, copied(values)) for key, values in observation.items())
    if isinstance(observation, tuple):
        return tuple(copied(values) for values in observation)
    return np.copy(observation)


def put_entry(tree: Any, path: EntryPath, value: Any) -> Any:
    """
    :return: ``tree`` with ``value`` at ``path``: Dicts on the way are changed in place, Tuples rebuilt (so the
        result is ``tree`` itself when its top is a Dict)
    """
    child = value if len(path) == 1 else put_entry(tree[path[0]], path[1:], value)
    if isinstance(tree, dict):
        tree[path[0]] = child
        return tree
    return tuple(child if index == path[0] else item for index, item in enumerate(tree))
