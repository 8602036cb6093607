"""
Observation storage of a replay buffer for image frame stacks, each frame stored once.

An Atari observation is a stack of the last ``k`` frames (``uint8``, shape ``(height, width, k)``). Consecutive
transitions share most of them: the next observation of a transition is the observation of the following one, and
the next observation holds the frames of the observation shifted by one plus one new frame. Storing both
observations whole costs ``2 * k`` frames per transition; :class:`FrameStackStore` keeps every distinct frame once
in a ring of frames and, per transition, the ids of the ``k`` frames of each observation, so a transition costs
about one frame.

Sharing is decided by comparing contents (never assumed), so any stream is stored exactly: an observation that
equals the previous next observation reuses its frames, a next observation whose first ``k - 1`` frames are the
observation's last ``k - 1`` reuses those, and a frame equal to the one before it in its stack (the repeated frame
of a reset stack) reuses its id. Everything else gets new frames.

Frame ids only grow. The frames a transition refers to are those of the transition before it or newer ones, so the
oldest stored transition tells which frames are still needed: the ring holds the window from its smallest id to the
newest frame and grows (by 1/16, copying the window) when a stream needs more distinct frames than it holds.
"""
from typing import Dict, Optional, Tuple, cast

import numpy as np

#: smallest frame (height * width) stored by frame; smaller images are cheaper stored whole
MIN_FRAME_PIXELS = 256
#: frames copied at a time when the ring grows
GROW_CHUNK = 4096
#: largest stack (last axis) stored by frame; a longer last axis is not a stack of frames (e.g. channel-first images)
MAX_STACK = 16


def is_frame_stack(obs_t: np.ndarray, obs_tp1: np.ndarray) -> bool:
    """
    :param obs_t: (np.ndarray) an observation
    :param obs_tp1: (np.ndarray) the next observation
    :return: (bool) whether the pair is an image frame stack (``uint8``, ``(height, width, n_stack)``) worth
        storing frame by frame
    """
    return (obs_t.dtype == np.uint8 and obs_tp1.dtype == np.uint8 and obs_t.ndim == 3
            and obs_t.shape == obs_tp1.shape and obs_t.shape[0] * obs_t.shape[1] >= MIN_FRAME_PIXELS
            and obs_t.shape[2] <= MAX_STACK)


def _planes(obs: np.ndarray) -> np.ndarray:
    """A contiguous ``(n_stack, height, width)`` uint8 copy of a ``(height, width, n_stack)`` observation."""
    return np.array(np.moveaxis(np.asarray(obs), -1, 0), dtype=np.uint8, order="C", copy=True)


class FrameStackStore(object):
    """
    The observations and next observations of ``n_slots`` transitions, stored as shared frames.

    :param n_slots: (int) the number of transitions (the replay buffer's capacity)
    :param obs_shape: (tuple) the shape ``(height, width, n_stack)`` of an observation
    """

    def __init__(self, n_slots: int, obs_shape: Tuple[int, int, int]) -> None:
        height, width, n_stack = (int(dim) for dim in obs_shape)
        self.n_slots = int(n_slots)
        self.obs_shape = (height, width, n_stack)
        self.n_stack = n_stack
        # frame ids of the transitions: [slot, 0] the observation, [slot, 1] the next observation
        self.frame_ids = np.zeros((self.n_slots, 2, n_stack), dtype=np.int64)
        self.frames = np.zeros((self.n_slots + 2 * n_stack + 2, height, width), dtype=np.uint8)
        self.next_frame = 0
        # the next observation of the newest transition (planes and ids), candidate for the next observation
        self._last_planes = None  # type: Optional[np.ndarray]
        self._last_ids = None  # type: Optional[np.ndarray]

    @property
    def capacity(self) -> int:
        """(int) the number of frames the ring holds"""
        return self.frames.shape[0]

    @property
    def nbytes(self) -> int:
        """(int) bytes of the frame ring and the frame ids"""
        return self.frames.nbytes + self.frame_ids.nbytes

    def oldest_needed(self, oldest_slot: Optional[int]) -> int:
        """
        :param oldest_slot: (int) the oldest transition still stored (None: none)
        :return: (int) the smallest frame id still referred to
        """
        if oldest_slot is None:
            return self.next_frame
        return int(self.frame_ids[oldest_slot].min())

    def _grow(self, keep_from: int) -> None:
        capacity = self.capacity
        grown = np.zeros((capacity + max(capacity // 16, self.n_stack + 1),) + self.frames.shape[1:], np.uint8)
        # copied in chunks: a fancy-indexed copy of the whole window at once would hold a third ring in memory
        for start in range(keep_from, self.next_frame, GROW_CHUNK):
            live = np.arange(start, min(start + GROW_CHUNK, self.next_frame))
            grown[live % grown.shape[0]] = self.frames[live % capacity]
        self.frames = grown

    def _add_frame(self, plane: np.ndarray, keep_from: int) -> int:
        if self.next_frame - keep_from >= self.capacity:
            self._grow(keep_from)
        frame_id = self.next_frame
        self.frames[frame_id % self.capacity] = plane
        self.next_frame += 1
        return frame_id

    def _add_stack(self, planes: np.ndarray, ids: np.ndarray, first: int, keep_from: int) -> None:
        """Store planes ``first..`` into ``ids``; a plane equal to the one before it shares its frame."""
        for position in range(first, self.n_stack):
            if position > 0 and np.array_equal(planes[position], planes[position - 1]):
                ids[position] = ids[position - 1]
            else:
                ids[position] = self._add_frame(planes[position], keep_from)

    def put(self, slot: int, obs_t: np.ndarray, obs_tp1: np.ndarray, oldest_slot: Optional[int]) -> None:
        """
        Store the observations of transition ``slot``.

        :param slot: (int) the transition's slot
        :param obs_t: (np.ndarray) its observation, shape ``obs_shape``
        :param obs_tp1: (np.ndarray) its next observation, shape ``obs_shape``
        :param oldest_slot: (int) the oldest transition whose frames must be kept (including the one ``slot``
            held), None when the buffer is empty
        """
        keep_from = self.oldest_needed(oldest_slot)
        planes_t, planes_tp1 = _planes(obs_t), _planes(obs_tp1)
        ids_t = np.empty(self.n_stack, dtype=np.int64)
        if self._last_planes is not None and np.array_equal(planes_t, self._last_planes):
            ids_t[:] = cast(np.ndarray, self._last_ids)  # set together with _last_planes
        else:
            self._add_stack(planes_t, ids_t, 0, keep_from)
        ids_tp1 = np.empty(self.n_stack, dtype=np.int64)
        if np.array_equal(planes_tp1[:-1], planes_t[1:]):
            ids_tp1[:-1] = ids_t[1:]
            self._add_stack(planes_tp1, ids_tp1, self.n_stack - 1, keep_from)
        else:
            self._add_stack(planes_tp1, ids_tp1, 0, keep_from)
        self.frame_ids[slot, 0] = ids_t
        self.frame_ids[slot, 1] = ids_tp1
        self._last_planes, self._last_ids = planes_tp1, ids_tp1

    def forget_last(self) -> None:
        """Do not share frames with the newest next observation (after the stored transitions were replaced)."""
        self._last_planes = self._last_ids = None

    def remember_last(self, slot: int) -> None:
        """
        :param slot: (int) the newest transition, whose next observation the following one may share
        """
        self._last_ids = self.frame_ids[slot, 1].copy()
        self._last_planes = self.frames[self._last_ids % self.capacity]

    def to_arrays(self, n_stored: int) -> Tuple[dict, dict]:
        """
        :param n_stored: (int) the number of transitions stored (slots ``0 .. n_stored - 1``)
        :return: (dict, dict) the JSON description (``obs_shape``, ``capacity``, ``next_frame``) and the arrays
            (``frame_ids``, ``frames``: the whole ring) of the store
        """
        header = {"obs_shape": list(self.obs_shape), "capacity": self.capacity, "next_frame": self.next_frame}
        return header, {"frame_ids": self.frame_ids[:n_stored], "frames": self.frames}

    @classmethod
    def from_arrays(cls, n_slots: int, header: dict, arrays: Dict[str, np.ndarray],
                    newest_slot: Optional[int]) -> "FrameStackStore":
        """
        A store holding the content :meth:`to_arrays` gave (already checked: ids below ``next_frame`` and within
        the ring).

        :param n_slots: (int) the capacity of the replay buffer
        :param header: (dict) the description (``obs_shape``, ``next_frame``)
        :param arrays: (dict) ``frame_ids`` of the stored transitions and ``frames``, the ring of shape
            ``(capacity, height, width)``
        :param newest_slot: (int) the slot of the newest transition (None: empty)
        :return: (FrameStackStore) the store
        """
        store = cls(n_slots, tuple(header["obs_shape"]))
        frame_ids = arrays["frame_ids"]
        store.frames = arrays["frames"]
        store.frame_ids[:len(frame_ids)] = frame_ids
        store.next_frame = int(header["next_frame"])
        if newest_slot is None:
            store.forget_last()
        else:
            store.remember_last(newest_slot)
        return store

    def gather(self, slots: np.ndarray, which: int) -> np.ndarray:
        """
        :param slots: (np.ndarray) transition slots
        :param which: (int) 0 for the observations, 1 for the next observations
        :return: (np.ndarray) uint8 array of shape ``(len(slots), height, width, n_stack)`` (C-contiguous)
        """
        positions = self.frame_ids[slots, which] % self.capacity
        out = np.empty((len(positions),) + self.obs_shape, dtype=np.uint8)
        for position in range(self.n_stack):
            out[..., position] = self.frames[positions[:, position]]
        return out

    def observation(self, slot: int, which: int) -> np.ndarray:
        """
        :param slot: (int) a transition slot
        :param which: (int) 0 for its observation, 1 for its next observation
        :return: (np.ndarray) the observation, shape ``obs_shape``
        """
        return self.gather(np.array([slot]), which)[0]
