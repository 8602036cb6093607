"""Replay buffers written and read without pickle (common/storage/buffer_files.py), including hostile files."""
import io
import json
import os
import tracemalloc
import zipfile

import numpy as np
import pytest

from stable_baselines.common.storage.buffer_files import load_buffer, save_buffer
from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer
from stable_baselines.common.safe_loading import limits
from stable_baselines.common.safe_loading.errors import InvalidModelFileError
from tests.test_replay_frames import assert_same_batches, assert_same_storage, frame_stack_stream, filled


def vector_stream(n_transitions, seed=0):
    rng = np.random.RandomState(seed)
    for i in range(n_transitions):
        yield (rng.randn(3).astype(np.float32), rng.randn(2), float(i), rng.randn(3).astype(np.float32),
               bool(i % 7 == 6))


def make_buffer(kind, prioritized, n_transitions, size=40):
    buffer = PrioritizedReplayBuffer(size, alpha=0.7) if prioritized else ReplayBuffer(size)
    stream = frame_stack_stream(n_transitions) if kind == "frames" else vector_stream(n_transitions)
    filled(buffer, stream)
    if prioritized and n_transitions:
        np.random.seed(11)
        idxes = buffer.sample(10, beta=0.5)[-1]
        buffer.update_priorities(idxes, np.linspace(0.1, 3.0, 10))
    return buffer


@pytest.mark.parametrize("kind", ["frames", "vectors"])
@pytest.mark.parametrize("prioritized", [False, True])
@pytest.mark.parametrize("n_transitions", [0, 25, 97])  # empty, partly filled, wrapped around
def test_round_trip_gives_an_identical_buffer(tmp_path, kind, prioritized, n_transitions):
    buffer = make_buffer(kind, prioritized, n_transitions)
    path = str(tmp_path / "buffer.npz")
    save_buffer(buffer, path)
    loaded = load_buffer(path)
    assert type(loaded) is type(buffer)
    assert (len(loaded), loaded.buffer_size, loaded._next_idx) == (len(buffer), 40, buffer._next_idx)
    assert (loaded._frames is not None) == (buffer._frames is not None)
    if prioritized:
        assert loaded.alpha == 0.7 and loaded._max_priority == buffer._max_priority
        np.testing.assert_array_equal(loaded._it_sum.nodes, buffer._it_sum.nodes)
        np.testing.assert_array_equal(loaded._it_min.nodes, buffer._it_min.nodes)
    sample_kwargs = {"beta": 0.4} if prioritized else {}
    if n_transitions:
        assert_same_batches(loaded, buffer, **sample_kwargs)
        assert_same_storage(loaded, buffer)
    # both keep going the same way
    stream = frame_stack_stream(30, seed=8) if kind == "frames" else vector_stream(30, seed=8)
    for transition in stream:
        buffer.add(*transition)
        loaded.add(*transition)
    assert_same_batches(loaded, buffer, **sample_kwargs)
    assert_same_storage(loaded, buffer)


def test_file_holds_plain_arrays_and_a_json_header(tmp_path):
    path = str(tmp_path / "buffer.npz")
    save_buffer(make_buffer("frames", True, 50), path)
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == ["action.npy", "done.npy", "frame_ids.npy", "frames.npy",
                                              "header.json", "min_tree.npy", "reward.npy", "sum_tree.npy"]
        header = json.loads(archive.read("header.json"))
    assert header["class"] == "PrioritizedReplayBuffer" and header["size"] == 40 and header["n_stored"] == 40
    assert header["next_idx"] == 10 and header["prioritized"]["tree_capacity"] == 64
    assert header["frames"]["obs_shape"] == [16, 16, 4]
    with np.load(path, allow_pickle=False) as arrays:  # plain numpy reads it too
        assert arrays["frame_ids"].shape == (40, 2, 4) and arrays["reward"].dtype == np.float64


def test_saving_refuses_objects_and_keeps_the_previous_file(tmp_path):
    path = str(tmp_path / "buffer.npz")
    save_buffer(make_buffer("vectors", False, 5), path)
    before = open(path, "rb").read()
    buffer = ReplayBuffer(4)
    buffer.add({"a": 1}, 0, 0.0, {"a": 2}, False)
    with pytest.raises(ValueError, match="cannot be written without pickle"):
        save_buffer(buffer, path)
    with pytest.raises(TypeError, match="expects a ReplayBuffer"):
        save_buffer([1, 2], path)
    assert open(path, "rb").read() == before and os.listdir(str(tmp_path)) == ["buffer.npz"]


# ------------------------------------------------------------------------------------------------------------------
# hostile files
# ------------------------------------------------------------------------------------------------------------------
def members_of(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def write_members(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)


def npy_bytes(array):
    stream = io.BytesIO()
    np.lib.format.write_array(stream, array)
    return stream.getvalue()


@pytest.fixture
def saved(tmp_path):
    path = str(tmp_path / "buffer.npz")
    save_buffer(make_buffer("frames", True, 60), path)
    return path


def with_header(path, change):
    members = members_of(path)
    header = json.loads(members["header.json"])
    change(header)
    members["header.json"] = json.dumps(header)
    write_members(path, members)


def test_truncated_files_are_refused(saved):
    content = open(saved, "rb").read()
    for cut in (0, 10, 200, len(content) // 2, len(content) - 30):
        with open(saved, "wb") as handle:
            handle.write(content[:cut])
        with pytest.raises(InvalidModelFileError):
            load_buffer(saved)


@pytest.mark.parametrize("change, message", [
    (lambda h: h.update(format="pickle"), "not a replay buffer file"),
    (lambda h: h.update(version=7), "format version 7"),
    (lambda h: h.update({"class": "os.system"}), "'class' must be one of"),
    (lambda h: h.update(size=0), "'size' must be an int"),
    (lambda h: h.update(size="40"), "'size' must be an int"),
    (lambda h: h.update(n_stored=41), "'n_stored' must be an int in \\[0, 40\\]"),
    (lambda h: h.update(next_idx=40), "'next_idx' must be an int"),
    (lambda h: h["fields"][1].update(dtype="|O"), "numeric"),
    (lambda h: h["fields"][1].update(dtype="<f4,<i4"), "dtype"),
    (lambda h: h["fields"][2].update(python_type="os.system"), "python_type"),
    (lambda h: h["fields"][0].update(shape=[16, 16, 3]), "obs_t stored as frames"),
    (lambda h: h["fields"][1].update(shape=[-1]), "list of ints >= 0"),
    (lambda h: h["frames"].update(capacity=1), "has shape \\(50, 16, 16\\)"),
    (lambda h: h["frames"].update(next_frame=3), "frame ids are inconsistent"),
    (lambda h: h["prioritized"].update(alpha=-1), "'alpha' must be a finite number"),
    (lambda h: h["prioritized"].update(max_priority=float("nan")), "'max_priority'"),
    (lambda h: h["prioritized"].update(tree_capacity=4), "segment trees of capacity 64"),
])
def test_invalid_headers_are_refused(saved, change, message):
    with_header(saved, change)
    with pytest.raises(InvalidModelFileError, match=message):
        load_buffer(saved)


def test_arrays_of_other_shapes_or_dtypes_are_refused(saved):
    original = members_of(saved)
    cases = [("reward.npy", np.zeros(39), "has shape \\(39,\\)"),
             ("reward.npy", np.zeros(40, np.float32), "has dtype float32"),
             ("reward.npy", np.array([None] * 40), "object arrays are pickles"),
             ("sum_tree.npy", np.full(128, np.nan), "priorities must be finite"),
             ("frame_ids.npy", np.zeros((40, 2, 4), np.int64) - 1, "frame ids are inconsistent")]
    for name, array, message in cases:
        members = dict(original)
        members[name] = npy_bytes(array)
        write_members(saved, members)
        with pytest.raises(InvalidModelFileError, match=message):
            load_buffer(saved)
    members = dict(original)
    del members["frames.npy"]
    write_members(saved, members)
    with pytest.raises(InvalidModelFileError, match="lacks the array 'frames'"):
        load_buffer(saved)
    write_members(saved, {"header.json": b"[" * 100000})
    with pytest.raises(InvalidModelFileError):
        load_buffer(saved)


def test_huge_declared_sizes_are_refused_before_allocation(saved):
    def huge_buffer(header):
        header["size"] = header["n_stored"] = 1 << 31
        header["next_idx"] = 0
        header["prioritized"]["tree_capacity"] = 1 << 31

    def huge_frames(header):
        header["frames"]["capacity"] = 1 << 30

    original = open(saved, "rb").read()
    for change in (huge_buffer, huge_frames):
        with open(saved, "wb") as handle:
            handle.write(original)
        with_header(saved, change)
        tracemalloc.start()
        with pytest.raises(InvalidModelFileError, match="describes a buffer of \\d+ bytes"):
            load_buffer(saved)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 8 << 20, peak
    # an array whose .npy header declares a huge shape is refused before its data is read
    with open(saved, "wb") as handle:
        handle.write(original)
    members = members_of(saved)
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    header["shape"] = (1 << 40,)
    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, header)
    members["sum_tree.npy"] = stream.getvalue() + b"\0" * 64
    write_members(saved, members)
    tracemalloc.start()
    with pytest.raises(InvalidModelFileError, match="has shape"):
        load_buffer(saved)
    assert tracemalloc.get_traced_memory()[1] < 8 << 20
    tracemalloc.stop()


def test_limits_apply(saved, monkeypatch):
    monkeypatch.setattr(limits, "MAX_REPLAY_BUFFER_BYTES", 1000)
    with pytest.raises(InvalidModelFileError, match="MAX_REPLAY_BUFFER_BYTES|bytes"):
        load_buffer(saved)
    with open(saved, "wb") as handle:
        handle.write(b"not a zip file at all")
    monkeypatch.undo()
    with pytest.raises(InvalidModelFileError, match="not a numpy .npz archive"):
        load_buffer(saved)
