"""
Structured observations (``Dict`` and ``Tuple`` spaces, nested too) as the models carry them: every entry
flattened and laid side by side in one float32 row, in the order of the space's entries.

A model built for such a space keeps its usual single observation placeholder, so rollout buffers, replay
buffers, minibatch slicing and every feed of the algorithms stay as they are; the policy cuts the row apart
again inside its graph (see :func:`stable_baselines.common.input.observation_input`). The conversion happens at
the two doors of a model: :class:`PackedObservations` around its training environment, and ``predict`` /
``action_probability`` (see :func:`pack_observation_batch`). Integer entries (images, indices) are exact in
float32 up to 2**24.
"""
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from stable_baselines.common.vec_env import obs_entries
from stable_baselines.common.vec_env.base_vec_env import VecEnv, VecEnvWrapper

# the path of an entry: the keys (Dict) and indices (Tuple) leading to it from the top space
EntryPath = Tuple[Any, ...]


def is_structured_space(space: Any) -> bool:
    """
    :param space: (gymnasium.spaces.Space) an observation space
    :return: (bool) whether it is a Dict or Tuple space (read by ``MultiInputPolicy``)
    """
    return isinstance(space, (spaces.Dict, spaces.Tuple))


def entry_name(path: EntryPath) -> str:
    """
    :param path: (tuple) keys and indices from the top space
    :return: (str) the entry as messages name it, e.g. ``'robot/position'`` or ``'[1]'``
    """
    return obs_entries.entry_name(path) or "<root>"


def space_entries(space: spaces.Space, prefix: EntryPath = ()) -> List[Tuple[EntryPath, spaces.Space]]:
    """
    The plain spaces inside a structured space, depth first, in the space's own order.

    :param space: (gymnasium.spaces.Space) Dict, Tuple or a plain space
    :param prefix: (tuple) the path of ``space`` itself
    :return: ([(tuple, gymnasium.spaces.Space)]) path and space of every plain entry
    """
    if isinstance(space, spaces.Dict):
        children: Sequence[Tuple[Any, spaces.Space]] = list(space.spaces.items())
    elif isinstance(space, spaces.Tuple):
        children = list(enumerate(space.spaces))
    else:
        if not isinstance(space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
            raise NotImplementedError("Error: the entry {} of the observation space is a {}; supported entries: "
                                      "Box, Discrete, MultiDiscrete, MultiBinary, Dict, Tuple"
                                      .format(entry_name(prefix), type(space).__name__))
        return [(prefix, space)]
    if not children:
        raise ValueError("Error: the entry {} of the observation space is empty".format(entry_name(prefix)))
    entries: List[Tuple[EntryPath, spaces.Space]] = []
    for key, child in children:
        entries.extend(space_entries(child, prefix + (key,)))
    return entries


def entry_shape(space: spaces.Space) -> Tuple[int, ...]:
    """
    :param space: (gymnasium.spaces.Space) a plain space
    :return: (tuple) the shape of one observation of it (``()`` for Discrete)
    """
    if isinstance(space, spaces.Discrete):
        return ()
    if isinstance(space, spaces.MultiDiscrete):
        return tuple(np.asarray(space.nvec).shape)
    return tuple(space.shape or ())


def entry_width(space: spaces.Space) -> int:
    """
    :param space: (gymnasium.spaces.Space) a plain space
    :return: (int) the number of columns its observations take in the packed row
    """
    return int(np.prod(entry_shape(space), dtype=np.int64))


def is_nested_space(space: spaces.Space) -> bool:
    """
    :param space: (gymnasium.spaces.Space) an observation space
    :return: (bool) whether it is a Dict or Tuple with a Dict or Tuple inside
    """
    children = space.spaces.values() if isinstance(space, spaces.Dict) else \
        space.spaces if isinstance(space, spaces.Tuple) else ()
    return any(is_structured_space(child) for child in children)


def packed_width(space: spaces.Space) -> int:
    """
    :param space: (gymnasium.spaces.Space) a structured space
    :return: (int) the width of its packed row
    """
    return sum(entry_width(entry) for _, entry in space_entries(space))


def packed_space(space: spaces.Space) -> spaces.Box:
    """
    :param space: (gymnasium.spaces.Space) a structured space
    :return: (gymnasium.spaces.Box) the space of its packed rows (float32, unbounded)
    """
    return spaces.Box(low=-np.inf, high=np.inf, shape=(packed_width(space),), dtype=np.float32)


def _child(value: Any, key: Any, path: EntryPath, space: Any) -> Any:
    """One entry of a structured observation, or a ValueError naming what was expected and given."""
    if isinstance(space, spaces.Dict):
        if not isinstance(value, dict):
            raise ValueError("Error: the observation {}must be a dict with keys {}, got {}".format(
                "entry {} ".format(entry_name(path)) if path else "", list(space.spaces), type(value).__name__))
        if key not in value:
            raise ValueError("Error: the observation {}has no key {!r}: expected keys {}, got {}".format(
                "entry {} ".format(entry_name(path)) if path else "", key, list(space.spaces), list(value)))
        return value[key]
    if not isinstance(value, (tuple, list)) or len(value) != len(space.spaces):
        raise ValueError("Error: the observation {}must be a tuple of {} entries, got {}".format(
            "entry {} ".format(entry_name(path)) if path else "", len(space.spaces),
            "{} entries".format(len(value)) if isinstance(value, (tuple, list)) else type(value).__name__))
    return value[key]


def entry_values(observation: Any, space: Any, path: EntryPath) -> Any:
    """
    :param observation: (dict or tuple) a structured observation (or a batch of them, batch axis inside)
    :param space: (gymnasium.spaces.Space) its space
    :param path: (tuple) the path of one entry
    :return: (Any) the values of that entry
    """
    value = observation
    for depth, key in enumerate(path):
        value = _child(value, key, path[:depth], space)
        space = space[key]
    return value


def _unexpected_keys(observation: Any, space: spaces.Space, path: EntryPath = ()) -> List[str]:
    """:return: ([str]) the names of the keys of ``observation`` its Dict space does not have"""
    if isinstance(space, spaces.Dict) and isinstance(observation, dict):
        extra = [entry_name(path + (key,)) for key in observation if key not in space.spaces]
        for key, child in space.spaces.items():
            if key in observation:
                extra.extend(_unexpected_keys(observation[key], child, path + (key,)))
        return extra
    if isinstance(space, spaces.Tuple) and isinstance(observation, (tuple, list)):
        return [name for index, child in enumerate(space.spaces) if index < len(observation)
                for name in _unexpected_keys(observation[index], child, path + (index,))]
    return []


def check_no_extra_entries(observation: Any, space: spaces.Space) -> None:
    """
    Raise a ValueError naming the keys of a structured observation that its Dict spaces do not have.

    :param observation: (dict or tuple) one structured observation or a batch of them
    :param space: (gymnasium.spaces.Space) its space
    """
    extra = _unexpected_keys(observation, space)
    if extra:
        raise ValueError("Error: the observation has entries the observation space {} does not have: {}"
                         .format(space, extra))


def pack_batch(observation: Any, space: spaces.Space, n_rows: Optional[int] = None) -> np.ndarray:
    """
    Pack a batch of structured observations (every entry with the batch axis first) into rows.

    :param observation: (dict or tuple) the batch, as a VecEnv returns it
    :param space: (gymnasium.spaces.Space) the structured space
    :param n_rows: (int) the batch size to expect (None: taken from the first entry)
    :return: (np.ndarray) float32 array of shape (n_rows, packed width)
    """
    check_no_extra_entries(observation, space)
    columns = []
    for path, entry in space_entries(space):
        values = np.asarray(entry_values(observation, space, path))
        shape = entry_shape(entry)
        if values.shape[1:] != shape or (n_rows is not None and len(values) != n_rows):
            raise ValueError("Error: unexpected shape {} for the entry {} of the observation: expected (n_env,) + {}"
                             "{}".format(values.shape, entry_name(path), shape,
                                         "" if n_rows is None else " with n_env = {}".format(n_rows)))
        if values.dtype.kind in "US" or values.dtype == object:
            raise ValueError("Error: the entry {} of the observation must hold numbers, got dtype {}"
                             .format(entry_name(path), values.dtype))
        n_rows = len(values)
        columns.append(values.reshape(n_rows, -1).astype(np.float32))
    return np.concatenate(columns, axis=1)


def is_batch(observation: Any, space: spaces.Space) -> bool:
    """
    Tell one structured observation from a batch of them by the shape of its first entry.

    :param observation: (dict or tuple) what the user gave
    :param space: (gymnasium.spaces.Space) the structured space
    :return: (bool) True for a batch
    """
    path, entry = space_entries(space)[0]
    shape = np.shape(entry_values(observation, space, path))
    expected = entry_shape(entry)
    if shape == expected:
        return False
    if shape[1:] == expected:
        return True
    raise ValueError("Error: unexpected shape {} for the entry {} of the observation: expected {} or (n_env,) + {}"
                     .format(shape, entry_name(path), expected, expected))


def add_batch_axis(observation: Any, space: spaces.Space) -> Any:
    """
    :param observation: (dict or tuple) one structured observation
    :param space: (gymnasium.spaces.Space) its space
    :return: (dict or tuple) the same with a batch axis of length 1 on every entry
    """
    if isinstance(space, spaces.Dict):
        return OrderedDict((key, add_batch_axis(_child(observation, key, (), space), child))
                           for key, child in space.spaces.items())
    if isinstance(space, spaces.Tuple):
        return tuple(add_batch_axis(_child(observation, index, (), space), child)
                     for index, child in enumerate(space.spaces))
    return np.asarray(observation)[None]


def rebuild_from_columns(space: spaces.Space, take: Callable[[spaces.Space, int, int], Any]) -> Any:
    """
    Rebuild the structure of a space from packed rows: each plain entry, in packing order, is what
    ``take(entry_space, start, end)`` makes of its columns ``start:end``.

    :param space: (gymnasium.spaces.Space) the structured space
    :param take: (callable) the entry from its space and its first and last-plus-one column
    :return: (OrderedDict or tuple) the structure of the space with the entries ``take`` made
    """
    offset = 0

    def build(sub_space: spaces.Space) -> Any:
        nonlocal offset
        if isinstance(sub_space, spaces.Dict):
            return OrderedDict((key, build(child)) for key, child in sub_space.spaces.items())
        if isinstance(sub_space, spaces.Tuple):
            return tuple(build(child) for child in sub_space.spaces)
        start = offset
        offset += entry_width(sub_space)
        return take(sub_space, start, offset)

    return build(space)


def unpack_rows(rows: np.ndarray, space: spaces.Space) -> Any:
    """
    The inverse of :func:`pack_batch`: each entry back with its shape and dtype.

    :param rows: (np.ndarray) packed rows, shape (n, packed width)
    :param space: (gymnasium.spaces.Space) the structured space
    :return: (OrderedDict or tuple) the batch of structured observations
    """
    rows = np.asarray(rows)

    def entry(sub_space: spaces.Space, start: int, end: int) -> np.ndarray:
        block = rows[:, start:end].reshape((len(rows),) + entry_shape(sub_space))
        dtype = np.int64 if isinstance(sub_space, (spaces.Discrete, spaces.MultiDiscrete)) else sub_space.dtype
        return block.astype(dtype)

    return rebuild_from_columns(space, entry)


class PackedObservations(VecEnvWrapper):
    """
    The training environment of a model with a structured observation space, seen with packed observations
    (see the module's docstring). The observations in ``infos[i]["terminal_observation"]`` are packed too.

    :param venv: (VecEnv) the user's VecEnv (Dict or Tuple observations)
    :param single_env: (gymnasium.Env) the single environment ``venv`` was made of, when the model made it
    :param prepacked: (bool) ``venv`` steps :class:`PackedSingleEnv` around ``single_env`` (nested spaces, which
        VecEnvs do not take): its observations are packed rows already
    """

    def __init__(self, venv: VecEnv, single_env: Any = None, prepacked: bool = False):
        self.prepacked = prepacked
        self.structured_space = single_env.observation_space if prepacked else venv.observation_space
        self.single_env = single_env
        super().__init__(venv, observation_space=packed_space(self.structured_space))

    def _packed(self, obs: Any) -> np.ndarray:
        return np.asarray(obs, dtype=np.float32) if self.prepacked else \
            pack_batch(obs, self.structured_space, self.num_envs)

    def reset(self) -> np.ndarray:
        return self._packed(self.venv.reset())

    def step_async(self, actions: Any) -> None:
        self.venv.step_async(actions)

    def step_wait(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray, List[Dict]]:
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            terminal = info.get("terminal_observation")
            if terminal is not None and not self.prepacked:
                info["terminal_observation"] = pack_batch(add_batch_axis(terminal, self.structured_space),
                                                          self.structured_space)[0]
        return self._packed(obs), rewards, dones, infos


class PackedSingleEnv(gym.ObservationWrapper):
    """
    One environment with a structured observation space, giving packed rows (what a model puts in the DummyVecEnv
    it makes around a single env; VecEnvs themselves do not take nested spaces).

    :param env: (gymnasium.Env) the environment
    """

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.structured_space = env.observation_space
        self.observation_space = packed_space(env.observation_space)

    def observation(self, observation: Any) -> np.ndarray:
        return pack_batch(add_batch_axis(observation, self.structured_space), self.structured_space)[0]


class PackedNormalizer:
    """
    A VecNormalize inside a :class:`PackedObservations`, seen with packed observations: what the off-policy
    models ask of it (original observations to store, normalisation of sampled ones).

    :param vec_normalize: (VecNormalize) the wrapper
    :param space: (gymnasium.spaces.Space) the structured observation space
    """

    def __init__(self, vec_normalize: Any, space: spaces.Space):
        self.vec_normalize = vec_normalize
        self.space = space

    def get_original_obs(self) -> np.ndarray:
        """:return: (np.ndarray) the last observations before normalisation, packed"""
        return pack_batch(self.vec_normalize.get_original_obs(), self.space)

    def get_original_reward(self) -> np.ndarray:
        """:return: (np.ndarray) the last rewards before normalisation"""
        return self.vec_normalize.get_original_reward()

    def normalize_obs(self, rows: np.ndarray) -> np.ndarray:
        """
        :param rows: (np.ndarray) packed observations
        :return: (np.ndarray) the same, normalised entry by entry
        """
        return pack_batch(self.vec_normalize.normalize_obs(unpack_rows(rows, self.space)), self.space)

    def normalize_reward(self, reward: np.ndarray) -> np.ndarray:
        """
        :param reward: (np.ndarray) rewards
        :return: (np.ndarray) the rewards normalised
        """
        return self.vec_normalize.normalize_reward(reward)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.vec_normalize, name)


def value_entries(value: Any, prefix: EntryPath = ()) -> List[Tuple[EntryPath, Any]]:
    """
    The plain values inside a structured value (dicts and tuples, nested), depth first, found without a space.

    :param value: (dict, tuple or Any) a structured observation, a batch of them, or a plain value
    :param prefix: (tuple) the path of ``value`` itself
    :return: ([(tuple, Any)]) path and value of every plain entry
    """
    if isinstance(value, dict):
        children: Sequence[Tuple[Any, Any]] = list(value.items())
    elif isinstance(value, tuple):
        children = list(enumerate(value))
    else:
        return [(prefix, value)]
    if not children:
        raise ValueError("Error: the entry {} of the observation is empty".format(entry_name(prefix)))
    found: List[Tuple[EntryPath, Any]] = []
    for key, child in children:
        found.extend(value_entries(child, prefix + (key,)))
    return found


def map_entries(function: Callable[[Any], Any], value: Any) -> Any:
    """
    :param function: (callable) what to make of one plain entry
    :param value: (dict, tuple or Any) a structured value
    :return: (dict, tuple or Any) the same structure (plain dicts and tuples) with ``function`` applied to every
        plain entry
    """
    if isinstance(value, dict):
        return {key: map_entries(function, child) for key, child in value.items()}
    if isinstance(value, tuple):
        return tuple(map_entries(function, child) for child in value)
    return function(value)


def check_batch_entries(batch: Any, space: spaces.Space, what: str) -> int:
    """
    Check that a batch of structured observations (batch axis first in every entry) has exactly the entries of a
    structured space, each with the shape of one observation of it after the batch axis, all of one length.

    :param batch: (dict or tuple) the batch
    :param space: (gymnasium.spaces.Space) the structured space
    :param what: (str) the batch, for messages (e.g. "the expert dataset's observations")
    :return: (int) the batch size
    """
    expected = [(entry_name(path), entry_shape(entry)) for path, entry in space_entries(space)]
    if not isinstance(batch, (dict, tuple)):
        raise ValueError("Error: {} are an array of shape {}, but the observation space {} is structured: expected "
                         "one array per entry, {}".format(what, np.shape(batch), space, _describe(expected)))
    given = [(entry_name(path), tuple(np.shape(values))) for path, values in value_entries(batch)]
    missing = [name for name, _ in expected if name not in dict(given)]
    extra = [name for name, _ in given if name not in dict(expected)]
    if missing or extra:
        raise ValueError("Error: {} do not have the entries of the observation space {}: expected {}, given {} "
                         "(missing: {}, unexpected: {})".format(what, space, _describe(expected),
                                                                _describe([(n, s[1:]) for n, s in given]),
                                                                missing, extra))
    given_shapes = dict(given)
    lengths = set()
    for name, shape in expected:
        shape_given = given_shapes[name]
        if len(shape_given) == 0 or shape_given[1:] != shape:
            raise ValueError("Error: the entry {} of {} has shape {}: expected (n,) + {} (one {} per step) for the "
                             "observation space {}".format(name, what, shape_given, shape, shape, space))
        lengths.add(shape_given[0])
    if len(lengths) != 1:
        raise ValueError("Error: the entries of {} have different lengths: {}".format(
            what, {name: shape[0] for name, shape in given}))
    return lengths.pop()


def _describe(entries: List[Tuple[str, Tuple[int, ...]]]) -> str:
    """:return: (str) entries and their shapes per step, as messages list them"""
    return "{" + ", ".join("{}: {}".format(name, shape) for name, shape in entries) + "}"
