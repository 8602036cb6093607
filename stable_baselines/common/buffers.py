"""
Experience replay of the off-policy algorithms (DQN, SAC, TD3, DDPG, HER).

:class:`ReplayBuffer` keeps the last ``size`` transitions ``(obs_t, action, reward, obs_tp1, done)`` and draws
batches uniformly with replacement. :class:`PrioritizedReplayBuffer` draws transition ``i`` with probability
``p_i ** alpha / sum_k p_k ** alpha`` and weighs it by ``(N * P(i)) ** -beta`` normalised by the largest weight
(Schaul et al., 2015, https://arxiv.org/abs/1511.05952).

Storage. The first transition fixes one numpy array per field (``np.zeros`` of the full capacity: pages are
only used once written). Image frame stacks (``uint8`` observations of shape ``(height, width, n_stack)``) are
handed to a :class:`~stable_baselines.common.storage.frame_store.FrameStackStore` instead, which keeps each frame once
(about 7 KB per Atari transition instead of 56 KB). A transition that does not fit the arrays (objects, a shape
that changes) turns the storage into a plain list of tuples, with the same behaviour. Either way
``buffer.storage[i][j]`` reads field ``j`` of transition ``i`` as in the original list of tuples.
"""
import numbers
from collections.abc import Sequence as _SequenceABC
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, Union, cast

import numpy as np

from stable_baselines.common.storage.frame_store import FrameStackStore, is_frame_stack
from stable_baselines.common.segment_tree import MinSegmentTree, SumSegmentTree

_FIELDS = ("obs_t", "action", "reward", "obs_tp1", "done")
_OBS_FIELDS = (0, 3)
_PYTHON_SCALARS = (bool, int, float)
Transition = Tuple[Any, Any, Any, Any, Any]
# numpy arrays of the fields of several transitions (observations, actions, rewards, next observations, dones)
Batch = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _check_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError("{} must be a positive int, got {!r}".format(name, value))
    return int(value)


def _check_non_negative(value: Any, name: str, meaning: str = "") -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value) >= 0:
        raise ValueError("{} must be a float >= 0{}, got {!r}".format(name, meaning, value))
    return float(value)


class _StorageView(_SequenceABC):
    """
    The transitions of an array-backed :class:`ReplayBuffer` seen as a read-only list of tuples.

    :param count: (callable) () -> the number of transitions the buffer holds now
    :param row: (callable) slot -> the transition in that slot, as a tuple
    """

    def __init__(self, count: Callable[[], int], row: Callable[[int], Any]) -> None:
        self._count = count
        self._row = row

    def __len__(self) -> int:
        return self._count()

    def __getitem__(self, index: Any) -> Any:
        count = self._count()
        if isinstance(index, slice):
            return [self._row(i) for i in range(*index.indices(count))]
        position = int(index) + (count if int(index) < 0 else 0)
        if position < 0 or position >= count:
            raise IndexError("replay buffer index {} out of range (it holds {} transitions)".format(index, count))
        return self._row(position)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, (list, tuple, _StorageView)):
            return NotImplemented
        return list(self) == list(other)

    def __ne__(self, other: Any) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


class ReplayBufferWrapper(object):
    """
    The base of a replay buffer placed in front of another (HER's relabelling wrapper): the model stores every
    transition through its ``add(obs_t, action, reward, obs_tp1, done, info)``, the buffer behind it is
    ``replay_buffer`` and the steps of the episode in progress are ``episode_transitions``.
    """

    replay_buffer: Any
    episode_transitions: List[tuple]


class ReplayBuffer(object):
    """
    A first-in first-out store of transitions, sampled uniformly.

    :param size: (int) the capacity; once it is reached every new transition replaces the oldest one
    """

    def __init__(self, size: int) -> None:
        self._maxsize = _check_positive_int(size, "size (the replay buffer capacity)")
        self._n_stored = 0
        self._next_idx = 0
        # list of tuples: only when the transitions do not fit arrays
        self._storage = None  # type: Optional[List[Transition]]
        # one array per field (None for the observations kept by ``_frames``), created at the first ``add``
        self._arrays = None  # type: Optional[List[Optional[np.ndarray]]]
        self._frames = None  # type: Optional[FrameStackStore]
        # per field: (shape, dtype) of the stored values, and the Python type of scalar rewards / done flags
        self._layout = None  # type: Optional[List[Tuple[tuple, np.dtype]]]
        self._scalar_types = None  # type: Optional[List[Optional[type]]]
        self._fit_cache: Set[Tuple[int, Any]] = set()

    def __len__(self) -> int:
        return self._n_stored

    def __repr__(self) -> str:
        return "{}(size={}) holding {} transitions".format(type(self).__name__, self._maxsize, len(self))

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "_n_stored" not in state:  # pickled by the original library: a list of tuples
            self._arrays = None
            self._n_stored = len(self._storage or [])
        defaults: Dict[str, Any] = {"_frames": None, "_layout": None, "_scalar_types": None, "_fit_cache": set()}
        for name, value in defaults.items():
            self.__dict__.setdefault(name, value)
        if self._arrays is not None and self._layout is None:
            # written before frame stores existed: every field is an array
            self._layout = [(array.shape[1:], array.dtype) for array in cast(List[np.ndarray], self._arrays)]

    @property
    def storage(self) -> Sequence[Transition]:
        """([tuple]) the stored transitions ``(obs_t, action, reward, obs_tp1, done)``, oldest slot first"""
        if self._storage is not None:
            return self._storage
        return [] if self._arrays is None else _StorageView(self.__len__, self._row)

    @property
    def buffer_size(self) -> int:
        """(int) the capacity of the buffer"""
        return self._maxsize

    @property
    def nbytes(self) -> int:
        """(int) bytes taken by the stored arrays (the whole preallocated capacity)"""
        if self._storage is not None:
            return sum(np.asarray(value).nbytes for row in self._storage for value in row)
        total = sum(array.nbytes for array in self._arrays or [] if array is not None)
        return total + (self._frames.nbytes if self._frames is not None else 0)

    def can_sample(self, n_samples: int) -> bool:
        """
        :param n_samples: (int) a batch size
        :return: (bool) whether the buffer holds at least ``n_samples`` transitions
        """
        return self._n_stored >= n_samples

    def is_full(self) -> bool:
        """
        :return: (bool) whether the buffer holds ``buffer_size`` transitions
        """
        return self._n_stored == self._maxsize

    # ----------------------------------------------------------------------------------------------------------
    # writing
    # ----------------------------------------------------------------------------------------------------------
    def _frame_store_for(self, obs_t: np.ndarray, obs_tp1: np.ndarray) -> Optional[FrameStackStore]:
        """:return: (FrameStackStore) the store for observations like these, None to keep them in arrays"""
        if is_frame_stack(obs_t, obs_tp1):
            return FrameStackStore(self._maxsize, obs_t.shape)
        return None

    def _allocate(self, data: Transition) -> bool:
        """Create the storage for transitions like ``data``; False when they do not fit numeric arrays."""
        values = [np.asarray(value) for value in data]
        if any(value.dtype.kind not in "biufc" for value in values):
            return False
        self._frames = self._frame_store_for(values[0], values[3])
        self._layout = [(value.shape, value.dtype) for value in values]
        self._arrays = [None if self._frames is not None and position in _OBS_FIELDS else
                        np.zeros((self._maxsize,) + value.shape, dtype=value.dtype)
                        for position, value in enumerate(values)]
        # rewards and done flags given as Python scalars read back as Python scalars; another type for such a
        # field later moves the storage to the list, which keeps the objects as given
        self._scalar_types = [type(value) if type(value) in _PYTHON_SCALARS else None for value in data]
        self._fit_cache = set()
        return True

    def _fits(self, data: Transition) -> bool:
        """Whether ``data`` has the shapes of the stored transitions and dtypes castable within their kind."""
        assert self._layout is not None and self._scalar_types is not None, "called after _allocate only"
        key: Optional[Tuple[int, Any]]
        for position, ((shape, dtype), value) in enumerate(zip(self._layout, data)):
            value_type = type(value)
            if value_type is np.ndarray:
                if value.shape != shape:
                    return False
                key = (position, value.dtype)
            elif isinstance(value, _PYTHON_SCALARS + (np.generic,)):
                expected = self._scalar_types[position]
                if expected is not None and value_type is not expected:
                    return False
                key = (position, value_type)
            else:
                key = None
            if key in self._fit_cache:
                continue
            value = np.asarray(value)
            if value.shape != shape or not np.can_cast(value.dtype, dtype, "same_kind"):
                return False
            if key is not None:
                self._fit_cache.add(key)
        return True

    def _to_list_storage(self) -> None:
        """Move the stored transitions, in slot order, to a list of tuples."""
        self._storage = [] if self._arrays is None else [self._row(i) for i in range(self._n_stored)]
        self._arrays = self._frames = self._layout = None

    def _oldest_slot(self) -> Optional[int]:
        if self._n_stored == 0:
            return None
        return self._next_idx if self._n_stored == self._maxsize else 0

    def _store(self, data: Transition) -> int:
        """Write one transition at the next slot; :return: (int) the slot."""
        slot = self._next_idx
        if self._storage is None:
            if self._arrays is None:
                fits = self._allocate(data)
            else:
                fits = self._fits(data)
            if not fits:
                self._to_list_storage()
        if self._storage is None:
            if self._frames is not None:
                self._frames.put(slot, data[0], data[3], self._oldest_slot())
            assert self._arrays is not None, "allocated above"
            for array, value in zip(self._arrays, data):
                if array is not None:
                    array[slot] = value
            self._n_stored = min(self._n_stored + 1, self._maxsize)
        else:
            # copies: an environment may modify the arrays it returned in place
            obs_t, action, reward, obs_tp1, done = data
            row = (np.array(obs_t), np.array(action), reward, np.array(obs_tp1), done)
            if slot == len(self._storage):
                self._storage.append(row)
            else:
                self._storage[slot] = row
            self._n_stored = len(self._storage)
        self._next_idx = (slot + 1) % self._maxsize
        return slot

    def add(self, obs_t: Any, action: Any, reward: float, obs_tp1: Any, done: float) -> None:
        """
        Store one transition (replacing the oldest one when the buffer is full).

        :param obs_t: (Union[np.ndarray, int]) the observation the action was taken in
        :param action: (Union[np.ndarray, int]) the action
        :param reward: (float) the reward received
        :param obs_tp1: (Union[np.ndarray, int]) the observation that followed
        :param done: (bool) whether the episode ended with this transition
        """
        self._store((obs_t, action, reward, obs_tp1, done))

    @staticmethod
    def _batch_length(obs_t: Any, action: Any, reward: Any, obs_tp1: Any, done: Any) -> int:
        lengths = {}
        for name, value in zip(_FIELDS, (obs_t, action, reward, obs_tp1, done)):
            try:
                lengths[name] = len(value)
            except TypeError:
                raise TypeError("extend() expects sequences (one entry per transition) for every field, "
                                "got {} of type {} for {}".format(value, type(value).__name__, name))
        if len(set(lengths.values())) != 1:
            raise ValueError("extend() expects the same number of transitions in every field, got lengths {}"
                             .format(lengths))
        return lengths["obs_t"]

    def extend(self, obs_t: Any, action: Any, reward: Any, obs_tp1: Any, done: Any) -> np.ndarray:
        """
        Store several transitions, in order; each argument holds one entry per transition (the keyword names are
        those of ``add``).

        :param obs_t: (Union[Tuple[Union[np.ndarray, int]], np.ndarray]) the observations
        :param action: (Union[Tuple[Union[np.ndarray, int]]], np.ndarray]) the actions
        :param reward: (Union[Tuple[float], np.ndarray]) the rewards
        :param obs_tp1: (Union[Tuple[Union[np.ndarray, int]], np.ndarray]) the observations that followed
        :param done: (Union[Tuple[bool], np.ndarray]) the episode-end flags
        :return: (np.ndarray) the slots written, in order
        """
        count = self._batch_length(obs_t, action, reward, obs_tp1, done)
        slots = np.empty(count, dtype=np.int64)
        for position, data in enumerate(zip(obs_t, action, reward, obs_tp1, done)):
            slots[position] = self._store(data)
        return slots

    # ----------------------------------------------------------------------------------------------------------
    # reading
    # ----------------------------------------------------------------------------------------------------------
    def _field_array(self, field: int) -> Optional[np.ndarray]:
        """:return: (np.ndarray) the array of one field (None for observations kept by the frame store)"""
        assert self._arrays is not None, "only for the array storage"
        return self._arrays[field]

    def _observations(self, slots: np.ndarray, field: int) -> np.ndarray:
        array = self._field_array(field)
        if array is None:
            assert self._frames is not None, "observation fields without an array live in the frame store"
            return self._frames.gather(slots, 0 if field == 0 else 1)
        return array[slots]

    def _scalar_array(self, field: int) -> np.ndarray:
        """:return: (np.ndarray) the array of the action, reward or done field (always arrays)"""
        return cast(np.ndarray, self._field_array(field))

    def _row(self, slot: int) -> Transition:
        """Transition ``slot`` as a tuple of copies (Python scalar rewards / flags come back as Python scalars)."""
        slots = np.array([slot])
        obs_t, obs_tp1 = (self._observations(slots, field)[0] for field in _OBS_FIELDS)
        action = np.array(self._scalar_array(1)[slot])
        reward, done = self._scalar_array(2)[slot], self._scalar_array(4)[slot]
        scalar_types = cast(List[Optional[type]], self._scalar_types)
        if scalar_types[2] is not None:
            reward = reward.item()
        if scalar_types[4] is not None:
            done = done.item()
        return (obs_t, action, reward, obs_tp1, done)

    @staticmethod
    def _normalize_obs(obs: np.ndarray, env: Any = None) -> np.ndarray:
        """:return: (np.ndarray) ``obs`` normalised by a VecNormalize ``env`` (unchanged without one)"""
        return obs if env is None else env.normalize_obs(obs)

    @staticmethod
    def _normalize_reward(reward: np.ndarray, env: Any = None) -> np.ndarray:
        """:return: (np.ndarray) ``reward`` normalised by a VecNormalize ``env`` (unchanged without one)"""
        return reward if env is None else env.normalize_reward(reward)

    def transitions_at(self, idxes: Union[List[int], np.ndarray], env: Any = None) -> Batch:
        """
        The transitions in the given slots, as :meth:`sample` returns them (for a caller that draws the slots).

        :param idxes: (Union[List[int], np.ndarray]) the slots, each below ``len(self)``
        :param env: (Optional[VecNormalize]) when given, observations and rewards are normalised by it
        :return: (tuple) the batch of observations, actions, rewards, next observations and done flags
        """
        return self._encode_sample(idxes, env=env)

    def _encode_sample(self, idxes: Union[List[int], np.ndarray], env: Any = None) -> Batch:
        if self._frames is None and self._storage is None and self._arrays is not None:
            # every field in an array (the common case): one gather per field
            slots = np.asarray(idxes)
            obs_array, action_array, reward_array, next_obs_array, done_array = cast(List[np.ndarray], self._arrays)
            rewards = reward_array.take(slots, axis=0).astype(np.float32, copy=False).reshape(-1)
            dones = done_array.take(slots, axis=0).astype(np.float32, copy=False).reshape(-1)
            obses_t, obses_tp1 = obs_array.take(slots, axis=0), next_obs_array.take(slots, axis=0)
            if env is None:
                return obses_t, action_array.take(slots, axis=0), rewards, obses_tp1, dones
            return (env.normalize_obs(obses_t), action_array.take(slots, axis=0), env.normalize_reward(rewards),
                    env.normalize_obs(obses_tp1), dones)
        if self._storage is None:
            slots = np.asarray(idxes)
            obses_t, obses_tp1 = (self._observations(slots, field) for field in _OBS_FIELDS)
            actions = self._scalar_array(1)[slots]
            rewards, dones = (self._scalar_array(field)[slots].astype(np.float32).reshape(-1) for field in (2, 4))
        else:
            rows = [self._storage[i] for i in idxes]
            obses_t, actions, obses_tp1 = (np.array([row[field] for row in rows]) for field in (0, 1, 3))
            rewards, dones = (np.array([row[field] for row in rows], dtype=np.float32).reshape(-1)
                              for field in (2, 4))
        return (self._normalize_obs(obses_t, env), actions, self._normalize_reward(rewards, env),
                self._normalize_obs(obses_tp1, env), dones)

    # ----------------------------------------------------------------------------------------------------------
    # content as plain arrays (common/storage/buffer_files.py writes and reads them)
    # ----------------------------------------------------------------------------------------------------------
    def to_arrays(self) -> Tuple[dict, Dict[str, np.ndarray]]:
        """
        :return: (dict, dict) a JSON-able description of the buffer (capacity, number stored, next slot, the shape
            and dtype of each field, the frame store's layout) and its arrays by name (views, not copies)
        """
        if self._storage is not None:
            raise ValueError("this replay buffer holds transitions that do not fit numeric arrays (objects, or shapes "
                             "that change from one transition to the next): it cannot be written without pickle")
        header: Dict[str, Any] = {"size": self._maxsize, "n_stored": self._n_stored, "next_idx": self._next_idx,
                                  "fields": None, "frames": None}
        arrays: Dict[str, np.ndarray] = {}
        if self._arrays is not None:
            assert self._layout is not None and self._scalar_types is not None, "set with the arrays"
            header["fields"] = [{"shape": list(shape), "dtype": dtype.str,
                                 "python_type": None if scalar is None else scalar.__name__}
                                for (shape, dtype), scalar in zip(self._layout, self._scalar_types)]
            arrays.update((name, array[:self._n_stored]) for name, array in zip(_FIELDS, self._arrays)
                          if array is not None)
            if self._frames is not None:
                header["frames"], frame_arrays = self._frames.to_arrays(self._n_stored)
                arrays.update(frame_arrays)
        return header, arrays

    @classmethod
    def from_arrays(cls, header: dict, arrays: Dict[str, np.ndarray]) -> "ReplayBuffer":
        """
        :param header: (dict) a description given by :meth:`to_arrays` (checked by the reader of a file)
        :param arrays: (dict) its arrays
        :return: (ReplayBuffer) a buffer holding that content
        """
        buffer = cls(header["size"])
        buffer.take_arrays(header, arrays)
        return buffer

    def take_arrays(self, header: dict, arrays: Dict[str, np.ndarray]) -> None:
        """Put the content :meth:`to_arrays` gave into this empty buffer of the same capacity."""
        self._n_stored, self._next_idx = header["n_stored"], header["next_idx"]
        if header["fields"] is None:
            return
        self._layout = [(tuple(field["shape"]), np.dtype(field["dtype"])) for field in header["fields"]]
        scalar_names = {scalar.__name__: scalar for scalar in _PYTHON_SCALARS}
        self._scalar_types = [scalar_names.get(field["python_type"]) for field in header["fields"]]
        if header["frames"] is not None:
            newest = (self._next_idx - 1) % self._maxsize if self._n_stored else None
            self._frames = FrameStackStore.from_arrays(self._maxsize, header["frames"], arrays, newest)
        self._arrays = []
        for name, (shape, dtype) in zip(_FIELDS, self._layout):
            if name in arrays:
                array = np.zeros((self._maxsize,) + shape, dtype=dtype)
                array[:self._n_stored] = arrays[name]
            else:
                array = None
            self._arrays.append(array)

    def with_float_scalars(self) -> "ReplayBuffer":
        """
        :return: (ReplayBuffer) this buffer, or, when it keeps its transitions in a list only because their reward
            or done values came as different scalar types (HER stores ``False`` beside ``0.0``), a copy with every
            reward and done flag a Python float in the same slots, which samples the same batches
        """
        if self._storage is None or type(self) is not ReplayBuffer:  # pylint: disable=unidiomatic-typecheck
            return self  # a subclass may keep more than the transitions
        transitions = []
        for obs_t, action, reward, obs_tp1, done in self._storage:
            if np.ndim(reward) != 0 or np.ndim(done) != 0:
                return self
            transitions.append((obs_t, action, float(reward), obs_tp1, float(done)))
        copy = ReplayBuffer(self._maxsize)
        copy.fill(transitions, self._next_idx)
        return copy

    def fill(self, transitions: Sequence[Transition], next_idx: int) -> None:
        """
        Store ``transitions`` in this empty buffer, the first one in slot 0, then go on writing at slot ``next_idx``
        (what a buffer whose ``storage`` holds ``transitions`` and whose next slot is ``next_idx`` holds).

        :param transitions: ([tuple]) the transitions ``(obs_t, action, reward, obs_tp1, done)``, in slot order
        :param next_idx: (int) the slot the next ``add`` writes (``len(transitions)`` unless they fill the buffer)
        """
        if self._n_stored or len(transitions) > self._maxsize or not 0 <= next_idx < self._maxsize:
            raise ValueError("fill() takes an empty buffer, at most {} transitions and a slot below that, got {} "
                             "transitions and slot {} for a buffer holding {}".format(
                                 self._maxsize, len(transitions), next_idx, self._n_stored))
        for transition in transitions:
            self.add(*transition)
        self._next_idx = next_idx

    def _check_batch_size(self, batch_size: int) -> int:
        if type(batch_size) is int and batch_size > 0 and self._n_stored:  # pylint: disable=unidiomatic-typecheck
            return batch_size  # the usual case, checked without the abstract-class test
        batch_size = _check_positive_int(batch_size, "batch_size")
        if self._n_stored == 0:
            raise ValueError("cannot sample {} transitions from an empty replay buffer (add transitions first, "
                             "see can_sample())".format(batch_size))
        return batch_size

    def sample(self, batch_size: int, env: Any = None, **_kwargs: Any) -> Any:
        """
        Draw ``batch_size`` stored transitions uniformly, with replacement.

        :param batch_size: (int) the number of transitions
        :param env: (Optional[VecNormalize]) when given, observations and rewards are normalised by it
        :return: (tuple) five arrays with one entry per drawn transition:

            - obs_batch: (np.ndarray) the observations
            - act_batch: (numpy float) the actions taken in them
            - rew_batch: (numpy float) the rewards received (float32)
            - next_obs_batch: (np.ndarray) the observations that followed
            - done_mask: (numpy bool) 1.0 where the episode ended with the transition, else 0.0 (float32)
        """
        batch_size = self._check_batch_size(batch_size)
        idxes = np.random.randint(0, self._n_stored, size=batch_size)
        return self._encode_sample(idxes, env=env)


class PrioritizedReplayBuffer(ReplayBuffer):
    """
    A replay buffer that draws transitions in proportion to their priority (new ones get the largest priority
    given so far) and returns the importance-sampling weights that correct for it.

    :param size: (int) the capacity; once it is reached every new transition replaces the oldest one
    :param alpha: (float) the prioritization exponent (0: uniform sampling, 1: in proportion to the priorities)
    """

    def __init__(self, size: int, alpha: float) -> None:
        super(PrioritizedReplayBuffer, self).__init__(size)
        self._alpha = _check_non_negative(alpha, "alpha", " (0: uniform sampling, 1: full prioritization)")
        tree_capacity = 1 << (self._maxsize - 1).bit_length()  # the smallest power of two >= size
        self._it_sum = SumSegmentTree(tree_capacity)
        self._it_min = MinSegmentTree(tree_capacity)
        self._max_priority = 1.0

    def __repr__(self) -> str:
        return "{}(size={}, alpha={}) holding {} transitions".format(type(self).__name__, self._maxsize,
                                                                     self._alpha, self._n_stored)

    @property
    def alpha(self) -> float:
        """(float) the prioritization exponent"""
        return self._alpha

    def to_arrays(self) -> Tuple[dict, Dict[str, np.ndarray]]:
        """:return: (dict, dict) see :meth:`ReplayBuffer.to_arrays`; also alpha, the largest priority and the trees"""
        header, arrays = super(PrioritizedReplayBuffer, self).to_arrays()
        header["prioritized"] = {"alpha": self._alpha, "max_priority": self._max_priority,
                                 "tree_capacity": self._it_sum.capacity}
        arrays.update(sum_tree=self._it_sum.nodes, min_tree=self._it_min.nodes)
        return header, arrays

    @classmethod
    def from_arrays(cls, header: dict, arrays: Dict[str, np.ndarray]) -> "PrioritizedReplayBuffer":
        """:return: (PrioritizedReplayBuffer) a buffer holding the content of :meth:`to_arrays`"""
        buffer = cls(header["size"], alpha=header["prioritized"]["alpha"])
        buffer.take_arrays(header, arrays)
        return buffer

    def take_arrays(self, header: dict, arrays: Dict[str, np.ndarray]) -> None:
        """Put the content :meth:`to_arrays` gave into this empty buffer of the same capacity and alpha."""
        super(PrioritizedReplayBuffer, self).take_arrays(header, arrays)
        self._max_priority = header["prioritized"]["max_priority"]
        self._it_sum.load_nodes(arrays["sum_tree"])
        self._it_min.load_nodes(arrays["min_tree"])

    def _set_priorities(self, idxes: np.ndarray, priorities: np.ndarray) -> None:
        scaled = np.asarray(priorities, dtype=np.float64) ** self._alpha
        self._it_sum[idxes] = scaled
        self._it_min[idxes] = scaled

    def add(self, obs_t: Any, action: Any, reward: float, obs_tp1: Any, done: float) -> None:
        """
        Store one transition with the largest priority given so far.

        :param obs_t: (Any) the observation the action was taken in
        :param action: ([float]) the action
        :param reward: (float) the reward received
        :param obs_tp1: (Any) the observation that followed
        :param done: (bool) whether the episode ended with this transition
        """
        slot = self._store((obs_t, action, reward, obs_tp1, done))
        scaled = self._max_priority ** self._alpha
        self._it_sum[slot] = scaled
        self._it_min[slot] = scaled

    def extend(self, obs_t: Any, action: Any, reward: Any, obs_tp1: Any, done: Any) -> np.ndarray:
        """
        Store several transitions, in order, each with the largest priority given so far (the arguments are those
        of :meth:`ReplayBuffer.extend`).

        :return: (np.ndarray) the slots written, in order
        """
        slots = super(PrioritizedReplayBuffer, self).extend(obs_t, action, reward, obs_tp1, done)
        if slots.size:
            self._set_priorities(slots, np.full(slots.shape, self._max_priority))
        return slots

    def _sample_proportional(self, batch_size: int) -> np.ndarray:
        """
        Stratified draw: the total priority mass is cut into ``batch_size`` equal segments and one prefix sum is
        drawn uniformly in each; :return: (np.ndarray) the slots whose prefix-sum interval holds them.
        """
        count = self._n_stored
        total = self._it_sum.sum(0, count)
        segment = total / batch_size
        mass = (np.arange(batch_size) + np.random.random(size=batch_size)) * segment
        mass = np.minimum(mass, np.nextafter(total, 0))
        # rounding could only lead the search right, onto an empty leaf (priority 0)
        return np.minimum(self._it_sum.find_prefixsum_idx(mass), count - 1)

    def _importance_weights(self, idxes: np.ndarray, beta: float) -> np.ndarray:
        count = self._n_stored
        total = self._it_sum.sum()
        largest = (self._it_min.min() / total * count) ** (-beta)
        return (self._it_sum[idxes] / total * count) ** (-beta) / largest

    # the original API puts ``beta`` second, where ReplayBuffer.sample has ``env``: a deliberate incompatibility
    def sample(self, batch_size: int, beta: float = 0, env: Any = None) -> Any:  # type: ignore[override]
        """
        Draw ``batch_size`` transitions in proportion to their priorities.

        :param batch_size: (int) the number of transitions
        :param beta: (float) the importance-sampling exponent (0: no correction, 1: full correction)
        :param env: (Optional[VecNormalize]) when given, observations and rewards are normalised by it
        :return: (tuple) the five arrays of :meth:`ReplayBuffer.sample` (obs_batch, act_batch, rew_batch,
            next_obs_batch, done_mask), then two more with one entry per drawn transition:

            - weights: (numpy float) the importance weights, largest 1 (float32)
            - idxes: (numpy int) the slots drawn, to pass to :meth:`update_priorities`
        """
        beta = _check_non_negative(beta, "beta")
        batch_size = self._check_batch_size(batch_size)
        idxes = self._sample_proportional(batch_size)
        weights = self._importance_weights(idxes, beta).astype(np.float32)
        return tuple(self._encode_sample(idxes, env=env)) + (weights, idxes)

    def update_priorities(self, idxes: Union[Sequence[int], np.ndarray], priorities: Union[Sequence[float], np.ndarray]
                          ) -> None:
        """
        Give the transitions in slots ``idxes`` new priorities (typically their last TD errors plus a small
        constant).

        :param idxes: ([int]) slots, as returned by :meth:`sample`
        :param priorities: ([float]) one priority > 0 per slot
        """
        slots = np.asarray(idxes)
        values = np.asarray(priorities, dtype=np.float64)
        if slots.ndim > 1 or values.ndim > 1:
            raise ValueError("update_priorities expects 1-D idxes and priorities, got shapes {} and {}"
                             .format(slots.shape, values.shape))
        slots, values = slots.reshape(-1), values.reshape(-1)
        if slots.shape != values.shape:
            raise ValueError("update_priorities expects as many priorities as idxes, got {} idxes and {} priorities"
                             .format(slots.size, values.size))
        if slots.size == 0:
            return
        if slots.dtype == bool or not np.issubdtype(slots.dtype, np.integer):
            raise TypeError("update_priorities expects integer idxes, got dtype {}".format(slots.dtype))
        valid = np.isfinite(values) & (values > 0)
        if not valid.all():
            raise ValueError("priorities must be finite and > 0, got {}".format(values[~valid][:10].tolist()))
        outside = (slots < 0) | (slots >= self._n_stored)
        if outside.any():
            raise IndexError("idxes must be in [0, {}) (the number of stored transitions), got {}"
                             .format(self._n_stored, slots[outside][:10].tolist()))
        self._set_priorities(slots, values)
        self._max_priority = max(self._max_priority, float(values.max()))
