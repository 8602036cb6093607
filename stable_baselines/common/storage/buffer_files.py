"""
Replay buffers written to a file and read back, without pickle.

:func:`save_buffer` writes a :class:`~stable_baselines.common.buffers.ReplayBuffer` or
:class:`~stable_baselines.common.buffers.PrioritizedReplayBuffer` as a numpy ``.npz`` archive: a ``header.json``
member (class, capacity, number stored, next slot, the shape and dtype of each field, the frame store's layout,
alpha and the largest priority) and one ``.npy`` member per array (the stored rows of each field, the frames and
their ids, the nodes of the two segment trees). :func:`load_buffer` reads it back into an identical buffer: the
same transitions in the same slots, the same priorities, so that the same random state draws the same batches.

Reading trusts nothing in the file: the header is parsed as JSON within a size bound and checked field by field,
the memory the buffer it describes would take is bounded by
:data:`~stable_baselines.common.safe_loading.limits.MAX_REPLAY_BUFFER_BYTES` before anything is allocated, and
each array's ``.npy`` header (dtype, shape) must match what the header implies before its data is read.

    >>> save_buffer(model.replay_buffer, "buffer.npz")
    >>> model.replay_buffer = load_buffer("buffer.npz")
"""
import io
import json
import math
import numbers
import os
import tempfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple, Type

import numpy as np

from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer
from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.archive import MemoryFile, member_infos, parse_json, read_npy_member
from stable_baselines.common.safe_loading.errors import InvalidModelFileError

FORMAT = "stable-baselines replay buffer"
VERSION = 1
_HEADER = "header.json"
_MAX_HEADER_BYTES = 1 << 20
_FIELDS = ("obs_t", "action", "reward", "obs_tp1", "done")
_CLASSES: Dict[str, Type[ReplayBuffer]] = {"ReplayBuffer": ReplayBuffer,
                                           "PrioritizedReplayBuffer": PrioritizedReplayBuffer}
_ZIP_ERRORS = (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError)


def write_buffer(buffer: ReplayBuffer, file_obj: Any) -> None:
    """
    Write a replay buffer in the file format of :func:`save_buffer` to a binary file object (seekable).

    :param buffer: (ReplayBuffer) a ReplayBuffer or PrioritizedReplayBuffer whose transitions are numeric arrays
    :param file_obj: (file-like) where to write
    """
    if not isinstance(buffer, ReplayBuffer):
        raise TypeError("save_buffer expects a ReplayBuffer or PrioritizedReplayBuffer, got {}".format(
            type(buffer).__name__))
    header, arrays = buffer.to_arrays()
    header = dict(format=FORMAT, version=VERSION, **header)
    header["class"] = "PrioritizedReplayBuffer" if isinstance(buffer, PrioritizedReplayBuffer) else "ReplayBuffer"
    with zipfile.ZipFile(file_obj, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        archive.writestr(_HEADER, json.dumps(header))
        for name, array in arrays.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)


def save_buffer(buffer: ReplayBuffer, path: str) -> None:
    """
    Write a replay buffer to ``path`` (a numpy ``.npz`` archive with a JSON header; no pickle). The file is
    written beside ``path`` and renamed, so an interrupted save leaves any previous file intact.

    :param buffer: (ReplayBuffer) a ReplayBuffer or PrioritizedReplayBuffer whose transitions are numeric arrays
    :param path: (str or os.PathLike) the file to write (used as given: no extension is added)
    """
    if not isinstance(buffer, ReplayBuffer):
        raise TypeError("save_buffer expects a ReplayBuffer or PrioritizedReplayBuffer, got {}".format(
            type(buffer).__name__))
    path = os.fspath(path)
    handle, temporary = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                                         dir=os.path.dirname(os.path.abspath(path)))
    os.close(handle)
    try:
        with open(temporary, "wb") as file_obj:
            write_buffer(buffer, file_obj)
        os.replace(temporary, path)
    except BaseException:
        os.remove(temporary)
        raise


def load_buffer(path: str) -> ReplayBuffer:
    """
    Read a replay buffer written by :func:`save_buffer`.

    :param path: (str or os.PathLike) the file
    :return: (ReplayBuffer) the buffer (a PrioritizedReplayBuffer when one was saved)
    :raises InvalidModelFileError: (a ValueError) when the file is not a valid replay buffer file: truncated,
        corrupt, inconsistent, or describing a buffer larger than the limits of
        :mod:`stable_baselines.common.safe_loading.limits`
    """
    path = os.fspath(path)
    what = "the replay buffer file {!r}".format(path)
    limits.check_size(os.path.getsize(path), limits.MAX_REPLAY_BUFFER_BYTES, what)
    with open(path, "rb") as file_obj:
        return read_buffer(file_obj, what)


def read_buffer(file_obj: Any, what: str) -> ReplayBuffer:
    """
    Read a replay buffer in the file format of :func:`save_buffer` from a binary file object (seekable), checked
    as :func:`load_buffer` checks a file.

    :param file_obj: (file-like) the content
    :param what: (str) where it comes from, for messages
    :return: (ReplayBuffer) the buffer
    """
    try:
        archive = zipfile.ZipFile(file_obj, "r")
    except _ZIP_ERRORS as err:
        raise InvalidModelFileError("{} is not a numpy .npz archive ({}: {})".format(what, type(err).__name__, err)) \
            from err
    with archive:
        infos = member_infos(archive, what)
        header = _read_header(archive, infos, what)
        expected = _HeaderCheck(header, what).expected_arrays()
        budget = [limits.MAX_REPLAY_BUFFER_BYTES]
        arrays = {}
        for name, (shape, dtype) in expected.items():
            info = infos.get(name + ".npy")
            if info is None:
                raise InvalidModelFileError("{} lacks the array {!r} its header describes".format(what, name))
            array = read_npy_member(archive, info, "array {!r} of {}".format(name, what), budget, shape)
            if array.dtype != dtype:
                raise InvalidModelFileError("array {!r} of {} has dtype {}, its header declares {}".format(
                    name, what, array.dtype, dtype))
            arrays[name] = array
    _check_contents(header, arrays, what)
    return _CLASSES[header["class"]].from_arrays(header, arrays)


def buffer_to_bytes(buffer: ReplayBuffer) -> memoryview:
    """
    :param buffer: (ReplayBuffer) a ReplayBuffer or PrioritizedReplayBuffer whose transitions are numeric arrays
    :return: (memoryview) the content of the file :func:`save_buffer` would write (the written bytes themselves,
        not a copy)
    """
    content = io.BytesIO()
    write_buffer(buffer, content)
    return content.getbuffer()


def buffer_from_bytes(content: Any, what: str) -> ReplayBuffer:
    """
    :param content: (bytes-like) the content of a file written by :func:`save_buffer` (bytes, or a uint8 array
        read in place)
    :param what: (str) where it comes from, for messages
    :return: (ReplayBuffer) the buffer, read and checked as :func:`load_buffer` does
    """
    return read_buffer(MemoryFile(content), what)


def _read_header(archive: zipfile.ZipFile, infos: Dict[str, zipfile.ZipInfo], what: str) -> dict:
    info = infos.get(_HEADER)
    if info is None:
        raise InvalidModelFileError("{} has no {!r} member: it was not written by save_buffer".format(what, _HEADER))
    limits.check_size(info.file_size, _MAX_HEADER_BYTES, "the {!r} member of {}".format(_HEADER, what))
    try:
        with archive.open(info) as member:
            raw = member.read(_MAX_HEADER_BYTES + 1)
    except _ZIP_ERRORS as err:
        raise InvalidModelFileError("the {!r} member of {} is corrupt or truncated ({}: {})".format(
            _HEADER, what, type(err).__name__, err)) from err
    limits.check_size(len(raw), _MAX_HEADER_BYTES, "the {!r} member of {}".format(_HEADER, what))
    header = parse_json(raw, "the {!r} member of {}".format(_HEADER, what))
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InvalidModelFileError("{} is not a replay buffer file written by save_buffer (its header has no "
                                    "'format': {!r})".format(what, FORMAT))
    if header.get("version") != VERSION:
        raise InvalidModelFileError("{} has format version {!r}; this library reads version {}".format(
            what, header.get("version"), VERSION))
    return header


class _HeaderCheck(object):
    """
    Validation of a replay buffer file's header: every entry's type and range, and the bytes the buffer it
    describes would allocate.

    :param header: (dict) the parsed header
    :param what: (str) the file, for messages
    """

    def __init__(self, header: dict, what: str) -> None:
        self.header = header
        self.what = what

    def fail(self, reason: str) -> InvalidModelFileError:
        """:return: (InvalidModelFileError) naming the file and the reason"""
        return InvalidModelFileError("{} has an invalid header: {}".format(self.what, reason))

    def integer(self, mapping: dict, key: str, low: int, high: int) -> int:
        """:return: (int) ``mapping[key]``, checked to be an int in ``[low, high]``"""
        value = mapping.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail("{!r} must be an int in [{}, {}], got {!r}".format(key, low, high, value))
        return value

    def real(self, mapping: dict, key: str, positive: bool) -> float:
        """:return: (float) ``mapping[key]``, checked to be a finite number >= 0 (> 0 when ``positive``)"""
        value = mapping.get(key)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or \
                value < 0 or (positive and value == 0):
            raise self.fail("{!r} must be a finite number {} 0, got {!r}".format(key, ">" if positive else ">=",
                                                                                value))
        return float(value)

    def dtype(self, text: Any) -> np.dtype:
        """:return: (np.dtype) the numeric dtype named by ``text`` (numpy's ``dtype.str``)"""
        if not isinstance(text, str) or len(text) > 8:
            raise self.fail("a field dtype must be a short numpy dtype string, got {!r}".format(text))
        try:
            dtype = np.dtype(text)
        except (TypeError, ValueError, SyntaxError) as err:
            raise self.fail("unknown dtype {!r} ({})".format(text, err)) from err
        if dtype.kind not in "biufc" or dtype.fields is not None or dtype.subdtype is not None or dtype.str != text:
            raise self.fail("a field dtype must be numeric (bool, int, float, complex), got {!r}".format(text))
        return dtype

    def shape(self, value: Any, name: str) -> Tuple[int, ...]:
        """:return: (tuple) the shape ``value`` (a JSON list of ints >= 0) describes"""
        if not isinstance(value, list) or len(value) > 32 or \
                not all(isinstance(dim, int) and not isinstance(dim, bool) and dim >= 0 for dim in value):
            raise self.fail("the shape of {} must be a list of ints >= 0, got {!r}".format(name, value))
        return tuple(value)

    def fields(self) -> Optional[List[Tuple[Tuple[int, ...], np.dtype]]]:
        """:return: ([tuple]) the (shape, dtype) of each field, None for a buffer that never stored anything"""
        fields = self.header.get("fields")
        if fields is None:
            return None
        if not isinstance(fields, list) or len(fields) != len(_FIELDS) or \
                not all(isinstance(field, dict) for field in fields):
            raise self.fail("'fields' must be a list of {} objects".format(len(_FIELDS)))
        layout = []
        for name, field in zip(_FIELDS, fields):
            if field.get("python_type") not in (None, "bool", "int", "float"):
                raise self.fail("the python_type of {} must be null, 'bool', 'int' or 'float', got {!r}".format(
                    name, field.get("python_type")))
            layout.append((self.shape(field.get("shape"), name), self.dtype(field.get("dtype"))))
        return layout

    def expected_arrays(self) -> Dict[str, Tuple[Tuple[int, ...], np.dtype]]:
        """
        :return: (dict) array name -> (shape, dtype) of every array the file must hold
        :raises InvalidModelFileError: when an entry is invalid or the buffer would exceed the memory limit
        """
        header = self.header
        if header.get("class") not in _CLASSES:
            raise self.fail("'class' must be one of {}, got {!r}".format(sorted(_CLASSES), header.get("class")))
        size = self.integer(header, "size", 1, limits.MAX_REPLAY_BUFFER_SIZE)
        n_stored = self.integer(header, "n_stored", 0, size)
        self.integer(header, "next_idx", n_stored % size if n_stored < size else 0,
                     n_stored % size if n_stored < size else size - 1)
        layout = self.fields()
        expected, n_bytes = {}, 0
        if layout is None:
            if n_stored:
                raise self.fail("{} transitions are stored but 'fields' is null".format(n_stored))
        else:
            frames = self.frames(layout)
            for name, (shape, dtype) in zip(_FIELDS, layout):
                if frames is not None and name in ("obs_t", "obs_tp1"):
                    continue
                expected[name] = ((n_stored,) + shape, dtype)
                n_bytes += size * math.prod(shape) * dtype.itemsize
            if frames is not None:
                (height, width, n_stack), capacity = frames
                expected["frame_ids"] = ((n_stored, 2, n_stack), np.dtype(np.int64))
                expected["frames"] = ((capacity, height, width), np.dtype(np.uint8))
                # the store of a buffer of `size` slots holds a ring of at least size + 2 * n_stack + 2 frames
                # before the file's frames replace it
                ring = max(capacity, size + 2 * n_stack + 2)
                n_bytes += size * 2 * n_stack * 8 + (capacity + ring) * height * width
        if header["class"] == "PrioritizedReplayBuffer":
            tree_capacity = self.prioritized(size)
            expected["sum_tree"] = expected["min_tree"] = ((2 * tree_capacity,), np.dtype(np.float64))
            n_bytes += 2 * 2 * tree_capacity * 8
        if n_bytes > limits.MAX_REPLAY_BUFFER_BYTES:
            raise InvalidModelFileError("{} describes a buffer of {} bytes, more than the {} bytes accepted "
                                        "(stable_baselines.common.safe_loading.limits.MAX_REPLAY_BUFFER_BYTES)"
                                        .format(self.what, n_bytes, limits.MAX_REPLAY_BUFFER_BYTES))
        return expected

    def frames(self, layout: list) -> Optional[Tuple[Tuple[int, int, int], int]]:
        """:return: (tuple) the observation shape and ring capacity of the frame store, None without one"""
        frames = self.header.get("frames")
        if frames is None:
            return None
        if not isinstance(frames, dict):
            raise self.fail("'frames' must be an object or null")
        obs_shape = self.shape(frames.get("obs_shape"), "the frame stacks")
        if len(obs_shape) != 3 or min(obs_shape) < 1:
            raise self.fail("frame stacks have a shape (height, width, n_stack), got {}".format(list(obs_shape)))
        for name in ("obs_t", "obs_tp1"):
            if layout[_FIELDS.index(name)] != (obs_shape, np.dtype(np.uint8)):
                raise self.fail("{} stored as frames must be uint8 of shape {}".format(name, list(obs_shape)))
        capacity = self.integer(frames, "capacity", 1, limits.MAX_ARRAY_ELEMENTS)
        self.integer(frames, "next_frame", 0, 2 ** 62)
        return obs_shape, capacity

    def prioritized(self, size: int) -> int:
        """:return: (int) the segment trees' capacity (the smallest power of two >= size)"""
        prioritized = self.header.get("prioritized")
        if not isinstance(prioritized, dict):
            raise self.fail("a PrioritizedReplayBuffer needs a 'prioritized' object")
        self.real(prioritized, "alpha", positive=False)
        self.real(prioritized, "max_priority", positive=True)
        tree_capacity = 1 << (size - 1).bit_length()
        if prioritized.get("tree_capacity") != tree_capacity:
            raise self.fail("a buffer of size {} has segment trees of capacity {}, got {!r}".format(
                size, tree_capacity, prioritized.get("tree_capacity")))
        return tree_capacity


# the sum and minimum trees of the priorities (the minimum tree holds infinity in its unused leaves)
_PRIORITY_TREES = ("sum_tree", "min_tree")


def _check_contents(header: dict, arrays: Dict[str, np.ndarray], what: str) -> None:
    """
    Refuse array values a buffer cannot hold: NaN or infinite transitions (training on them turns every parameter into
    NaN), frame ids outside the ring's window, invalid priorities.
    """
    for name, array in arrays.items():
        if name not in _PRIORITY_TREES and array.dtype.kind in "fc" and not np.all(np.isfinite(array)):
            raise InvalidModelFileError("array {!r} of {} holds NaN or infinite values; a replay buffer holds "
                                        "finite transitions only".format(name, what))
    if "frame_ids" in arrays and header["n_stored"]:
        _check_frame_ids(header, arrays["frame_ids"], arrays["frames"].shape[0], what)
    if "sum_tree" in arrays:
        sums, minimums = arrays["sum_tree"], arrays["min_tree"]
        if not np.all(np.isfinite(sums) & (sums >= 0)) or np.any(np.isnan(minimums)) or np.any(minimums < 0):
            raise InvalidModelFileError("{}: the priorities must be finite and >= 0".format(what))


def _check_frame_ids(header: dict, frame_ids: np.ndarray, capacity: int, what: str) -> None:
    """
    The frame ids must be below ``next_frame``, within one ring's span of the oldest transition's smallest id, and
    the smallest id of each transition must not decrease from the oldest transition to the newest (the store
    reclaims frames older than the oldest transition's).
    """
    n_stored, size, next_idx = header["n_stored"], header["size"], header["next_idx"]
    next_frame = header["frames"]["next_frame"]
    order = np.arange(n_stored) if n_stored < size else (np.arange(size) + next_idx) % size
    smallest = frame_ids[order].reshape(n_stored, -1).min(axis=1)
    if frame_ids.min() < 0 or frame_ids.max() >= next_frame or next_frame - smallest[0] > capacity or \
            np.any(np.diff(smallest) < 0):
        raise InvalidModelFileError("{}: the frame ids are inconsistent (they must lie in the ring's window "
                                    "[{}, {}) and grow from the oldest transition to the newest)".format(
                                        what, next_frame - capacity, next_frame))
