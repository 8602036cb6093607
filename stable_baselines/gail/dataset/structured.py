"""
Expert datasets of structured observations (Dict and Tuple spaces, nested too).

In memory, ``obs`` is then a dict (Dict space) or tuple (Tuple space) whose plain entries are arrays with one row
per transition. In an ``.npz`` archive, which only holds flat arrays, every plain entry is its own array under the
key ``obs/<path>``: the path joins the Dict keys and the Tuple positions (written ``[i]``) with ``/``, e.g.
``obs/robot/joints`` or ``obs/[1]``. No ``obs`` key is written then; nothing is pickled.
"""
import re
from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

from stable_baselines.common.structured_obs import EntryPath, map_entries, value_entries

OBS_KEY_PREFIX = "obs/"
_POSITION = re.compile(r"^\[(\d+)\]$")


def _path_part(part: Any, path: EntryPath) -> str:
    """One step of an entry path as the archive keys write it."""
    if isinstance(part, int):
        return "[{}]".format(part)
    if not isinstance(part, str) or not part or "/" in part or _POSITION.match(part):
        raise ValueError("Error: the Dict key {!r} (entry {}) cannot name an array of an expert archive: keys must be "
                         "non-empty strings without '/' that do not look like a Tuple position '[i]'"
                         .format(part, path))
    return part


def flatten_observations(observations: Any) -> Dict[str, np.ndarray]:
    """
    :param observations: (dict or tuple) structured observations, one row per transition in every entry
    :return: (dict) ``obs/<path>`` -> array, what the ``.npz`` archive holds
    """
    return {OBS_KEY_PREFIX + "/".join(_path_part(part, path) for part in path): np.asarray(values)
            for path, values in value_entries(observations)}


def _build(tree: Dict[str, Any], where: str) -> Any:
    """A level of the key tree as a dict, or as a tuple when its keys are the positions [0] .. [n-1]."""
    positions = [_POSITION.match(key) for key in tree]
    if any(positions):
        indices = sorted(int(match.group(1)) for match in positions if match)
        if not all(positions) or indices != list(range(len(tree))):
            raise ValueError("Error: the expert archive's observation keys under {!r} mix Tuple positions and Dict "
                             "keys, or skip a position: {}".format(where, sorted(tree)))
        return tuple(_build_child(tree["[{}]".format(index)], where + "[{}]/".format(index))
                     for index in range(len(tree)))
    return {key: _build_child(child, where + key + "/") for key, child in tree.items()}


def _build_child(node: Any, where: str) -> Any:
    return _build(node, where) if isinstance(node, dict) else node


def observations_from_keys(data: Mapping[str, Any]) -> Any:
    """
    The inverse of :func:`flatten_observations`.

    :param data: (dict) the arrays of an archive, some under ``obs/<path>`` keys
    :return: (dict or tuple) the structured observations
    """
    tree: Dict[str, Any] = {}
    for key in data:
        if not key.startswith(OBS_KEY_PREFIX):
            continue
        parts: List[str] = key[len(OBS_KEY_PREFIX):].split("/")
        node = tree
        for depth, part in enumerate(parts):
            if not part:
                raise ValueError("Error: the expert archive's key {!r} has an empty entry name".format(key))
            last = depth == len(parts) - 1
            existing = node.get(part)
            if (last and existing is not None) or (not last and existing is not None
                                                    and not isinstance(existing, dict)):
                raise ValueError("Error: the expert archive's key {!r} is both an entry and a group of entries"
                                 .format(key))
            if last:
                node[part] = np.asarray(data[key])
            else:
                node = node.setdefault(part, {})
    return _build(tree, OBS_KEY_PREFIX)


def has_structured_keys(data: Mapping[str, Any]) -> bool:
    """
    :param data: (dict) expert data
    :return: (bool) whether its observations are stored under ``obs/<path>`` keys
    """
    return any(isinstance(key, str) and key.startswith(OBS_KEY_PREFIX) for key in data)


def read_observations(data: Mapping[str, Any]) -> Any:
    """
    :param data: (dict) expert data (from ``traj_data`` or an archive)
    :return: (np.ndarray, dict or tuple) its observations: one array, or the structure of arrays
    """
    if "obs" in data and has_structured_keys(data):
        raise ValueError("Error: the expert data has both an 'obs' array and structured 'obs/<entry>' arrays ({}); "
                         "keep one of them".format(sorted(key for key in data if key.startswith(OBS_KEY_PREFIX))))
    if "obs" not in data:
        return observations_from_keys(data)
    observations = data["obs"]
    if isinstance(observations, (dict, tuple)):
        return map_entries(np.asarray, observations)
    return np.asarray(observations)


def check_structured_rows(observations: Any) -> int:
    """
    :param observations: (dict or tuple) structured expert observations
    :return: (int) their number of transitions (every entry must have that many rows of numbers)
    """
    lengths: Dict[str, int] = {}
    for path, values in value_entries(observations):
        name = "/".join(str(part) for part in path)
        if values.ndim == 0:
            raise ValueError("Error: the observation entry {} of the expert data is a scalar, expected one row per "
                             "transition".format(name))
        if values.dtype.kind not in "biuf":
            raise ValueError("Error: the observation entry {} of the expert data must hold numbers, got dtype {} "
                             "(image paths are only read for plain image observations)".format(name, values.dtype))
        lengths[name] = len(values)
    if len(set(lengths.values())) != 1:
        raise ValueError("Error: the observation entries of the expert data have different numbers of rows: {}"
                         .format(lengths))
    return next(iter(lengths.values()))


def take_rows(observations: Any, rows: Any) -> Any:
    """
    :param observations: (np.ndarray, dict or tuple) expert observations
    :param rows: (slice or np.ndarray) the transitions to keep
    :return: (np.ndarray, dict or tuple) those transitions, in the same structure
    """
    return map_entries(lambda values: values[rows], observations)


def count_rows(observations: Any) -> int:
    """
    :param observations: (np.ndarray, dict or tuple) expert observations
    :return: (int) their number of transitions
    """
    return len(value_entries(observations)[0][1])


def shapes_by_key(data: Mapping[str, Any]) -> List[Tuple[str, Tuple[int, ...]]]:
    """
    :param data: (dict) expert data (structured ``obs`` values are listed entry by entry)
    :return: ([(str, tuple)]) every array's key and shape, as the verbose summaries print them
    """
    listed: List[Tuple[str, Tuple[int, ...]]] = []
    for key, value in data.items():
        if key == "obs" and isinstance(value, (dict, tuple)):
            listed.extend((name, np.shape(array)) for name, array in flatten_observations(value).items())
        else:
            listed.append((key, np.shape(value)))
    return listed
