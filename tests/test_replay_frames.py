"""Image frame stacks in the replay buffers (common/storage/frame_store.py): each frame stored once, same batches."""
import pickle

import numpy as np
import pytest

from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer


class WholeBuffer(ReplayBuffer):
    """Stores observations whole: the reference the frame store must reproduce exactly."""

    def _frame_store_for(self, obs_t, obs_tp1):
        return None


class WholePrioritizedBuffer(PrioritizedReplayBuffer):
    def _frame_store_for(self, obs_t, obs_tp1):
        return None


def frame_stack_stream(n_transitions, n_stack=4, height=16, width=16, episode_length=23, seed=0):
    """
    Transitions as an Atari wrapper stack gives them: a reset stack repeats one frame, each step shifts in a new
    frame, the last transition of an episode has the terminal observation as next observation and the following
    transition starts from a new reset stack. Frames are random, so sharing can only come from the stream's
    structure; some frames repeat the previous one (a static screen).
    """
    rng = np.random.RandomState(seed)
    stack, step = None, 0
    for _ in range(n_transitions):
        if stack is None or step == episode_length:
            stack = np.repeat(rng.randint(0, 256, (height, width, 1), dtype=np.uint8), n_stack, axis=-1)
            step = 0
        frame = stack[..., -1:] if rng.rand() < 0.2 else rng.randint(0, 256, (height, width, 1), dtype=np.uint8)
        next_stack = np.concatenate([stack[..., 1:], frame], axis=-1)
        done = step == episode_length - 1
        yield stack, rng.randint(6), float(rng.randn()), next_stack, float(done)
        stack, step = next_stack, step + 1


def unrelated_stream(n_transitions, shape=(16, 16, 4), seed=1):
    """Observations that share nothing: every frame is new."""
    rng = np.random.RandomState(seed)
    for _ in range(n_transitions):
        yield (rng.randint(0, 256, shape, dtype=np.uint8), np.int64(rng.randint(3)), rng.randn(),
               rng.randint(0, 256, shape, dtype=np.uint8), bool(rng.rand() < 0.1))


def filled(buffer, stream):
    for transition in stream:
        buffer.add(*transition)
    return buffer


def assert_same_batches(buffer, reference, n_draws=6, batch_size=32, **sample_kwargs):
    for seed in range(n_draws):
        np.random.seed(seed)
        batch = buffer.sample(batch_size, **sample_kwargs)
        np.random.seed(seed)
        expected = reference.sample(batch_size, **sample_kwargs)
        assert len(batch) == len(expected)
        for got, want in zip(batch, expected):
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.flags.c_contiguous == want.flags.c_contiguous
            np.testing.assert_array_equal(got, want)


def assert_same_storage(buffer, reference):
    assert len(buffer.storage) == len(reference.storage)
    for row, expected_row in zip(buffer.storage, reference.storage):
        for got, want in zip(row, expected_row):
            assert type(got) is type(want)
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n_transitions", [7, 60, 60 * 3 + 17])  # not full, full, wrapped around several times
@pytest.mark.parametrize("n_stack", [1, 3, 4])
def test_frame_stacks_sample_exactly_like_whole_observations(n_transitions, n_stack):
    buffer = filled(ReplayBuffer(60), frame_stack_stream(n_transitions, n_stack=n_stack))
    reference = filled(WholeBuffer(60), frame_stack_stream(n_transitions, n_stack=n_stack))
    assert buffer._frames is not None and reference._frames is None
    assert_same_batches(buffer, reference)
    assert_same_storage(buffer, reference)


def test_prioritized_frame_stacks_sample_exactly_like_whole_observations():
    buffer, reference = PrioritizedReplayBuffer(50, alpha=0.6), WholePrioritizedBuffer(50, alpha=0.6)
    rng = np.random.RandomState(3)
    for chunk in range(4):
        for transition in frame_stack_stream(40, seed=chunk):
            buffer.add(*transition)
            reference.add(*transition)
        np.random.seed(chunk)
        idxes = buffer.sample(16, beta=0.4)[-1]
        priorities = rng.rand(16) + 0.05
        buffer.update_priorities(idxes, priorities)
        reference.update_priorities(idxes, priorities)
        assert_same_batches(buffer, reference, beta=0.4)
    assert buffer._frames is not None
    assert_same_storage(buffer, reference)


def test_unrelated_observations_grow_the_ring_and_stay_exact():
    buffer = filled(ReplayBuffer(30), unrelated_stream(95))
    reference = filled(WholeBuffer(30), unrelated_stream(95))
    # 8 new frames per transition: the ring grew beyond its initial 30 + 2 * 4 + 2 frames
    assert buffer._frames.capacity >= 30 * 8
    assert_same_batches(buffer, reference)
    assert_same_storage(buffer, reference)


def test_ring_grown_in_small_chunks_stays_exact(monkeypatch):
    # the ring copies its live frames chunk by chunk when it grows; chunks of 3 frames cut every window
    from stable_baselines.common.storage import frame_store
    monkeypatch.setattr(frame_store, "GROW_CHUNK", 3)
    buffer = filled(ReplayBuffer(30), unrelated_stream(95))
    reference = filled(WholeBuffer(30), unrelated_stream(95))
    assert buffer._frames.capacity >= 30 * 8
    assert_same_batches(buffer, reference)
    assert_same_storage(buffer, reference)


def test_mixed_streams_and_a_buffer_of_one():
    def mixed():
        for first, second in zip(frame_stack_stream(40, seed=4), unrelated_stream(40, seed=5)):
            yield first
            yield second

    for size in (1, 2, 13):
        buffer, reference = filled(ReplayBuffer(size), mixed()), filled(WholeBuffer(size), mixed())
        assert_same_batches(buffer, reference, batch_size=5)
        assert_same_storage(buffer, reference)


def test_atari_transition_costs_less_than_8_kb():
    size = 1000
    buffer = filled(ReplayBuffer(size), frame_stack_stream(2500, height=84, width=84, episode_length=150))
    whole = filled(WholeBuffer(size), frame_stack_stream(1, height=84, width=84))
    per_transition = buffer.nbytes / size
    assert per_transition <= 8 * 1024, per_transition
    assert whole.nbytes / size == 2 * 84 * 84 * 4 + 8 + 8 + 8  # obs, next obs, int64 action, float reward, done
    assert_same_batches(buffer, filled(WholeBuffer(size), frame_stack_stream(2500, height=84, width=84,
                                                                             episode_length=150)), n_draws=2)


def test_observations_are_copied_and_other_images_stay_whole():
    buffer = ReplayBuffer(4)
    obs, next_obs = np.zeros((16, 16, 4), np.uint8), np.ones((16, 16, 4), np.uint8)
    buffer.add(obs, 0, 0.0, next_obs, False)
    obs[:] = 9
    next_obs[:] = 9
    buffer.add(next_obs, 1, 0.0, obs, False)  # equal to nothing stored: the modified arrays are not shared
    np.testing.assert_array_equal(buffer.storage[0][0], 0)
    np.testing.assert_array_equal(buffer.storage[0][3], 1)
    np.testing.assert_array_equal(buffer.storage[1][0], 9)
    # small images, other dtypes and vectors keep whole arrays
    for obs in (np.zeros((8, 8, 4), np.uint8), np.zeros((16, 16, 4), np.float32), np.zeros(8, np.uint8),
                np.zeros((4, 84, 84), np.uint8)):  # the last one: channel first, not a stack on the last axis
        small = ReplayBuffer(4)
        small.add(obs, 0, 0.0, obs, False)
        assert small._frames is None and small._arrays[0] is not None


def test_frame_buffer_falls_back_to_a_list_and_pickles():
    buffer = filled(ReplayBuffer(10), frame_stack_stream(14))
    clone = pickle.loads(pickle.dumps(buffer))
    assert_same_batches(clone, buffer)
    expected = [tuple(np.array(value) for value in row) for row in buffer.storage]
    buffer.add(np.zeros((16, 16, 2), np.uint8), 0, 0.0, np.zeros((16, 16, 2), np.uint8), False)  # another shape
    assert buffer._frames is None and isinstance(buffer.storage, list) and len(buffer) == 10
    for slot, row in enumerate(buffer.storage):
        if slot != 4:  # slot 4 holds the new transition (14 added to a buffer of 10)
            for got, want in zip(row, expected[slot]):
                np.testing.assert_array_equal(got, want)
