"""
Replay buffers of the off-policy algorithms (DQN, SAC, TD3, DDPG, HER).

:class:`ReplayBuffer` is a circular buffer of transitions ``(obs_t, action, reward, obs_tp1, done)`` sampled
uniformly; :class:`PrioritizedReplayBuffer` samples transition ``i`` with probability ``p_i ** alpha / sum_k p_k ** alpha``
and returns importance-sampling weights (Schaul et al., 2015, https://arxiv.org/abs/1511.05952).

The transitions are kept in preallocated numpy arrays, one per field, created at the first ``add`` from the
shapes and dtypes of that transition (``np.zeros``: memory pages are only touched when written), so ``add`` is
a few array writes and ``sample`` a few fancy-indexing gathers. ``buffer.storage`` still reads as the original
library's list of tuples (``buffer.storage[i][j]`` is field ``j`` of transition ``i``; slicing and iteration
work). Transitions that do not fit arrays (objects, or shapes that change from one transition to the next) make
the buffer fall back to a plain list of tuples, with the same behaviour.
"""
import numbers
from collections.abc import Sequence as _SequenceABC
from typing import Any, List, Sequence, Tuple, Union

import numpy as np

from stable_baselines.common.segment_tree import MinSegmentTree, SumSegmentTree

_FIELDS = ("obs_t", "action", "reward", "obs_tp1", "done")


def _check_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError("{} must be a positive int, got {!r}".format(name, value))
    return int(value)


class _StorageView(_SequenceABC):
    """Read-only list-of-tuples view of the arrays of a :class:`ReplayBuffer` (``view[i][j]``: field j of i)."""

    def __init__(self, buffer: "ReplayBuffer"):
        self._buffer = buffer

    def __len__(self) -> int:
        return self._buffer._n_stored

    def __getitem__(self, index):
        n_stored = self._buffer._n_stored
        if isinstance(index, slice):
            return [self._buffer._row(i) for i in range(*index.indices(n_stored))]
        index = int(index)
        if index < 0:
            index += n_stored
        if not 0 <= index < n_stored:
            raise IndexError("replay buffer index {} out of range (it holds {} transitions)".format(index, n_stored))
        return self._buffer._row(index)

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, (list, tuple, _StorageView)):
            return list(self) == list(other)
        return NotImplemented

    def __ne__(self, other: Any) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


class ReplayBuffer(object):
    """
    Implements a ring buffer (FIFO).

    :param size: (int)  Max number of transitions to store in the buffer. When the buffer overflows the old
        memories are dropped.
    """

    def __init__(self, size: int):
        self._maxsize = _check_positive_int(size, "size (the replay buffer capacity)")
        # list-of-tuples storage: only used when the transitions do not fit the preallocated arrays
        self._storage = None  # type: Optional[List[Tuple[Any, Any, Any, Any, Any]]]
        self._arrays = None  # type: Optional[List[np.ndarray]]
        self._n_stored = 0
        self._next_idx = 0

    def __len__(self) -> int:
        return self._n_stored

    def __repr__(self) -> str:
        return "{}(size={}) holding {} transitions".format(type(self).__name__, self._maxsize, len(self))

    def __setstate__(self, state: dict) -> None:
        # buffers pickled by the list-based implementation (``_storage`` list, no arrays)
        self.__dict__.update(state)
        if "_n_stored" not in state:
            self._arrays = None
            self._n_stored = len(self._storage or [])

    @property
    def storage(self) -> Sequence[Tuple[Any, Any, Any, Any, Any]]:
        """[(Union[np.ndarray, int], Union[np.ndarray, int], float, Union[np.ndarray, int], bool)]: content of the
        replay buffer"""
        if self._storage is not None:
            return self._storage
        if self._arrays is None:
            return []
        return _StorageView(self)

    @property
    def buffer_size(self) -> int:
        """float: Max capacity of the buffer"""
        return self._maxsize

    def can_sample(self, n_samples: int) -> bool:
        """
        Check if n_samples samples can be sampled
        from the buffer.

        :param n_samples: (int)
        :return: (bool)
        """
        return self._n_stored >= n_samples

    def is_full(self) -> bool:
        """
        Check whether the replay buffer is full or not.

        :return: (bool)
        """
        return self._n_stored == self._maxsize

    @staticmethod
    def _transition(obs_t, action, reward, obs_tp1, done) -> Tuple[Any, Any, Any, Any, Any]:
        # copies of the arrays: environments may reuse (and modify in place) the arrays they return
        return (np.array(obs_t), np.array(action), reward, np.array(obs_tp1), done)

    def _row(self, idx: int) -> Tuple[Any, Any, Any, Any, Any]:
        """Transition ``idx`` as a tuple (copies of the stored arrays; reward and done as they were given:
        Python scalars stay Python scalars, numpy scalars numpy scalars)."""
        obs_t, action, reward, obs_tp1, done = (array[idx] for array in self._arrays)
        scalar_types = self._scalar_types
        if scalar_types[2] is not None:
            reward = reward.item()
        if scalar_types[4] is not None:
            done = done.item()
        return (np.array(obs_t), np.array(action), reward, np.array(obs_tp1), done)

    def _allocate(self, data: Tuple[Any, Any, Any, Any, Any]) -> bool:
        """Create the field arrays from the first transition; False when it does not fit numeric arrays."""
        arrays = []
        for value in data:
            value = np.asarray(value)
            if value.dtype == object or value.dtype.kind not in "biufc":
                return False
            arrays.append(np.zeros((self._maxsize,) + value.shape, dtype=value.dtype))
        self._arrays = arrays
        # rewards and done flags given as Python scalars are read back as Python scalars (``storage``)
        # (a field that then gets another Python type falls back to the list storage, which keeps the objects)
        self._scalar_types = [type(value) if type(value) in (bool, int, float) else None for value in data]
        self._fit_cache = set()
        return True

    def _fits(self, data: Tuple[Any, Any, Any, Any, Any]) -> bool:
        """Whether the transition fits the arrays (same shapes, dtypes castable within their kind)."""
        checked = self.__dict__.setdefault("_fit_cache", set())
        for position, (array, value) in enumerate(zip(self._arrays, data)):
            if type(value) is np.ndarray:  # pylint: disable=unidiomatic-typecheck
                if value.shape != array.shape[1:]:
                    return False
                key = (position, value.dtype)
            elif isinstance(value, (bool, int, float, np.generic)):
                scalar_type = self._scalar_types[position]
                if scalar_type is not None and type(value) is not scalar_type:  # pylint: disable=unidiomatic-typecheck
                    return False
                key = (position, type(value))
            else:
                key = None
            if key is not None and key in checked:
                continue
            value = np.asarray(value)
            if value.shape != array.shape[1:] or not np.can_cast(value.dtype, array.dtype, "same_kind"):
                return False
            if key is not None:
                checked.add(key)
        return True

    def _to_list_storage(self) -> None:
        """Fall back to the list-of-tuples storage (keeps the stored transitions and their order)."""
        self._storage = [self._row(i) for i in range(self._n_stored)] if self._arrays is not None else []
        self._arrays = None

    def _store(self, data: Tuple[Any, Any, Any, Any, Any]) -> int:
        idx = self._next_idx
        if self._storage is None:
            if self._arrays is None and not self._allocate(data):
                self._to_list_storage()
            elif not self._fits(data):
                self._to_list_storage()
        if self._storage is not None:
            data = self._transition(*data)
            if idx >= len(self._storage):
                self._storage.append(data)
            else:
                self._storage[idx] = data
            self._n_stored = len(self._storage)
        else:
            arrays = self._arrays
            for array, value in zip(arrays, data):
                array[idx] = value
            if self._n_stored < self._maxsize:
                self._n_stored += 1
        self._next_idx = (idx + 1) % self._maxsize
        return idx

    def add(self, obs_t: Any, action: Any, reward: float, obs_tp1: Any, done: float) -> None:
        """
        add a new transition to the buffer

        :param obs_t: (Union[np.ndarray, int]) the last observation
        :param action: (Union[np.ndarray, int]) the action
        :param reward: (float) the reward of the transition
        :param obs_tp1: (Union[np.ndarray, int]) the current observation
        :param done: (bool) is the episode done
        """
        self._store((obs_t, action, reward, obs_tp1, done))

    @staticmethod
    def _batch_length(obs_t, action, reward, obs_tp1, done) -> int:
        lengths = []
        for name, value in zip(_FIELDS, (obs_t, action, reward, obs_tp1, done)):
            try:
                lengths.append(len(value))
            except TypeError:
                raise TypeError("extend() expects sequences (one entry per transition) for every field, "
                                "got {} of type {} for {}".format(value, type(value).__name__, name))
        if len(set(lengths)) != 1:
            raise ValueError("extend() expects the same number of transitions in every field, got lengths {}"
                             .format(dict(zip(_FIELDS, lengths))))
        return lengths[0]

    def extend(self, obs_t, action, reward, obs_tp1, done) -> np.ndarray:
        """
        add a new batch of transitions to the buffer

        :param obs_t: (Union[Tuple[Union[np.ndarray, int]], np.ndarray]) the last batch of observations
        :param action: (Union[Tuple[Union[np.ndarray, int]]], np.ndarray]) the batch of actions
        :param reward: (Union[Tuple[float], np.ndarray]) the batch of the rewards of the transition
        :param obs_tp1: (Union[Tuple[Union[np.ndarray, int]], np.ndarray]) the current batch of observations
        :param done: (Union[Tuple[bool], np.ndarray]) terminal status of the batch

        Note: uses the same names as .add to keep compatibility with named argument passing,
        but expects iterables and arrays with more than 1 dimensions.

        :return: (np.ndarray) the buffer indices where the transitions were written, in order
        """
        n_transitions = self._batch_length(obs_t, action, reward, obs_tp1, done)
        written = np.empty(n_transitions, dtype=np.int64)
        for i, data in enumerate(zip(obs_t, action, reward, obs_tp1, done)):
            written[i] = self._store(data)
        return written

    @staticmethod
    def _normalize_obs(obs: np.ndarray, env=None) -> np.ndarray:
        """
        Helper for normalizing the observation.
        """
        if env is not None:
            return env.normalize_obs(obs)
        return obs

    @staticmethod
    def _normalize_reward(reward: np.ndarray, env=None) -> np.ndarray:
        """
        Helper for normalizing the reward.
        """
        if env is not None:
            return env.normalize_reward(reward)
        return reward

    def _encode_sample(self, idxes: Union[List[int], np.ndarray], env=None):
        if self._storage is None:
            obs_arr, act_arr, rew_arr, next_arr, done_arr = self._arrays
            idxes = np.asarray(idxes)
            obses_t = obs_arr[idxes]
            actions = act_arr[idxes]
            rewards = rew_arr[idxes].astype(np.float32).reshape(-1)
            obses_tp1 = next_arr[idxes]
            dones = done_arr[idxes].astype(np.float32).reshape(-1)
        else:
            transitions = [self._storage[i] for i in idxes]
            obses_t = np.array([t[0] for t in transitions])
            actions = np.array([t[1] for t in transitions])
            rewards = np.array([t[2] for t in transitions], dtype=np.float32).reshape(-1)
            obses_tp1 = np.array([t[3] for t in transitions])
            dones = np.array([t[4] for t in transitions], dtype=np.float32).reshape(-1)
        return (self._normalize_obs(obses_t, env),
                actions,
                self._normalize_reward(rewards, env),
                self._normalize_obs(obses_tp1, env),
                dones)

    def _check_batch_size(self, batch_size: int) -> int:
        batch_size = _check_positive_int(batch_size, "batch_size")
        if self._n_stored == 0:
            raise ValueError("cannot sample {} transitions from an empty replay buffer (add transitions first, "
                             "see can_sample())".format(batch_size))
        return batch_size

    def sample(self, batch_size: int, env=None, **_kwargs):
        """
        Sample a batch of experiences (uniformly, with replacement).

        :param batch_size: (int) How many transitions to sample.
        :param env: (Optional[VecNormalize]) associated gym VecEnv
            to normalize the observations/rewards when sampling
        :return:
            - obs_batch: (np.ndarray) batch of observations
            - act_batch: (numpy float) batch of actions executed given obs_batch
            - rew_batch: (numpy float) rewards received as results of executing act_batch
            - next_obs_batch: (np.ndarray) next set of observations seen after executing act_batch
            - done_mask: (numpy bool) done_mask[i] = 1 if executing act_batch[i] resulted in the end of an episode
                and 0 otherwise.
        """
        batch_size = self._check_batch_size(batch_size)
        idxes = np.random.randint(0, self._n_stored, size=batch_size)
        return self._encode_sample(idxes, env=env)


class PrioritizedReplayBuffer(ReplayBuffer):
    """
    Create Prioritized Replay buffer.

    See Also ReplayBuffer.__init__

    :param size: (int) Max number of transitions to store in the buffer. When the buffer overflows the old memories
        are dropped.
    :param alpha: (float) how much prioritization is used (0 - no prioritization, 1 - full prioritization)
    """

    def __init__(self, size: int, alpha: float):
        super(PrioritizedReplayBuffer, self).__init__(size)
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha < 0:
            raise ValueError("alpha must be a float >= 0 (0: uniform sampling, 1: full prioritization), got {!r}"
                             .format(alpha))
        self._alpha = float(alpha)

        it_capacity = 1
        while it_capacity < self._maxsize:
            it_capacity *= 2

        self._it_sum = SumSegmentTree(it_capacity)
        self._it_min = MinSegmentTree(it_capacity)
        self._max_priority = 1.0

    def __repr__(self) -> str:
        return "{}(size={}, alpha={}) holding {} transitions".format(type(self).__name__, self._maxsize,
                                                                     self._alpha, self._n_stored)

    @property
    def alpha(self) -> float:
        """(float) the prioritization exponent"""
        return self._alpha

    def _set_priorities(self, idxes: np.ndarray, priorities: np.ndarray) -> None:
        scaled = np.asarray(priorities, dtype=np.float64) ** self._alpha
        self._it_sum[idxes] = scaled
        self._it_min[idxes] = scaled

    def add(self, obs_t: Any, action: Any, reward: float, obs_tp1: Any, done: float) -> None:
        """
        add a new transition to the buffer (with the maximum priority seen so far)

        :param obs_t: (Any) the last observation
        :param action: ([float]) the action
        :param reward: (float) the reward of the transition
        :param obs_tp1: (Any) the current observation
        :param done: (bool) is the episode done
        """
        idx = self._store((obs_t, action, reward, obs_tp1, done))
        scaled = self._max_priority ** self._alpha
        self._it_sum[idx] = scaled
        self._it_min[idx] = scaled

    def extend(self, obs_t, action, reward, obs_tp1, done) -> np.ndarray:
        """
        add a new batch of transitions to the buffer (with the maximum priority seen so far)

        :param obs_t: (Union[Tuple[Union[np.ndarray, int]], np.ndarray]) the last batch of observations
        :param action: (Union[Tuple[Union[np.ndarray, int]]], np.ndarray]) the batch of actions
        :param reward: (Union[Tuple[float], np.ndarray]) the batch of the rewards of the transition
        :param obs_tp1: (Union[Tuple[Union[np.ndarray, int]], np.ndarray]) the current batch of observations
        :param done: (Union[Tuple[bool], np.ndarray]) terminal status of the batch

        Note: uses the same names as .add to keep compatibility with named argument passing,
        but expects iterables and arrays with more than 1 dimensions.

        :return: (np.ndarray) the buffer indices where the transitions were written, in order
        """
        written = super(PrioritizedReplayBuffer, self).extend(obs_t, action, reward, obs_tp1, done)
        if written.size:
            self._set_priorities(written, np.full(written.shape, self._max_priority))
        return written

    def _sample_proportional(self, batch_size: int) -> np.ndarray:
        """
        Stratified proportional sampling: the total mass is split into ``batch_size`` equal segments and one
        prefix sum is drawn uniformly inside each segment. Transition ``i`` is drawn with probability
        ``p_i ** alpha / sum_k p_k ** alpha`` (averaged over the positions of the batch).
        """
        n_stored = self._n_stored
        total = self._it_sum.sum(0, n_stored)
        segment = total / batch_size
        mass = (np.arange(batch_size) + np.random.random(size=batch_size)) * segment
        mass = np.minimum(mass, np.nextafter(total, 0))
        idxes = self._it_sum.find_prefixsum_idx(mass)
        # floating point rounding could only push the search onto an (empty, zero-priority) leaf to the right
        return np.minimum(idxes, n_stored - 1)

    def _importance_weights(self, idxes: np.ndarray, beta: float) -> np.ndarray:
        n_stored = self._n_stored
        total = self._it_sum.sum()
        p_min = self._it_min.min() / total
        max_weight = (p_min * n_stored) ** (-beta)
        p_sample = self._it_sum[idxes] / total
        return (p_sample * n_stored) ** (-beta) / max_weight

    def sample(self, batch_size: int, beta: float = 0, env=None):
        """
        Sample a batch of experiences.

        compared to ReplayBuffer.sample
        it also returns importance weights and idxes
        of sampled experiences.

        :param batch_size: (int) How many transitions to sample.
        :param beta: (float) To what degree to use importance weights (0 - no corrections, 1 - full correction)
        :param env: (Optional[VecNormalize]) associated gym VecEnv
            to normalize the observations/rewards when sampling
        :return:
            - obs_batch: (np.ndarray) batch of observations
            - act_batch: (numpy float) batch of actions executed given obs_batch
            - rew_batch: (numpy float) rewards received as results of executing act_batch
            - next_obs_batch: (np.ndarray) next set of observations seen after executing act_batch
            - done_mask: (numpy bool) done_mask[i] = 1 if executing act_batch[i] resulted in the end of an episode
                and 0 otherwise.
            - weights: (numpy float) Array of shape (batch_size,) and dtype np.float32 denoting importance weight of
                each sampled transition
            - idxes: (numpy int) Array of shape (batch_size,) and dtype np.int32 idexes in buffer of sampled
                experiences
        """
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or beta < 0:
            raise ValueError("beta must be a float >= 0, got {!r}".format(beta))
        batch_size = self._check_batch_size(batch_size)
        idxes = self._sample_proportional(batch_size)
        weights = self._importance_weights(idxes, float(beta)).astype(np.float32)
        encoded_sample = self._encode_sample(idxes, env=env)
        return tuple(list(encoded_sample) + [weights, idxes])

    def update_priorities(self, idxes: Union[Sequence[int], np.ndarray], priorities: Union[Sequence[float], np.ndarray]
                          ) -> None:
        """
        Update priorities of sampled transitions.

        sets priority of transition at index idxes[i] in buffer
        to priorities[i].

        :param idxes: ([int]) List of idxes of sampled transitions
        :param priorities: ([float]) List of updated priorities corresponding to transitions at the sampled idxes
            denoted by variable `idxes`.
        """
        idx_arr = np.asarray(idxes)
        prio_arr = np.asarray(priorities, dtype=np.float64)
        if idx_arr.ndim > 1 or prio_arr.ndim > 1:
            raise ValueError("update_priorities expects 1-D idxes and priorities, got shapes {} and {}"
                             .format(idx_arr.shape, prio_arr.shape))
        idx_arr = idx_arr.reshape(-1)
        prio_arr = prio_arr.reshape(-1)
        if idx_arr.shape != prio_arr.shape:
            raise ValueError("update_priorities expects as many priorities as idxes, got {} idxes and {} priorities"
                             .format(idx_arr.size, prio_arr.size))
        if idx_arr.size == 0:
            return
        if idx_arr.dtype == bool or not np.issubdtype(idx_arr.dtype, np.integer):
            raise TypeError("update_priorities expects integer idxes, got dtype {}".format(idx_arr.dtype))
        if not np.all(np.isfinite(prio_arr)) or np.any(prio_arr <= 0):
            bad = prio_arr[~(np.isfinite(prio_arr) & (prio_arr > 0))]
            raise ValueError("priorities must be finite and > 0, got {}".format(bad[:10].tolist()))
        if idx_arr.min() < 0 or idx_arr.max() >= self._n_stored:
            bad = idx_arr[(idx_arr < 0) | (idx_arr >= self._n_stored)]
            raise IndexError("idxes must be in [0, {}) (the number of stored transitions), got {}"
                             .format(self._n_stored, bad[:10].tolist()))
        self._set_priorities(idx_arr, prio_arr)
        self._max_priority = max(self._max_priority, float(np.max(prio_arr)))
