"""Replay buffers (common/buffers.py): storage, circular overwrite, sampling, prioritized sampling, weights."""
import numpy as np
import pytest
from gymnasium import spaces
from scipy import stats

from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer
from stable_baselines.common.identity_env import IdentityEnvBox
from stable_baselines.common.vec_env import DummyVecEnv, VecNormalize


def _transition(i, obs_shape=(2, 3)):
    obs = np.full(obs_shape, i, dtype=np.float32)
    return obs, np.array([i, -i], dtype=np.float32), float(i), obs + 1, float(i % 3 == 0)


# --------------------------------------------------------------------------------------------------
# ReplayBuffer
# --------------------------------------------------------------------------------------------------
def test_constructor_errors():
    for bad in (0, -3, 2.5, "10", True):
        with pytest.raises(ValueError, match="size .* must be a positive int, got"):
            ReplayBuffer(bad)
    with pytest.raises(ValueError, match="alpha must be a float >= 0.*-0.5"):
        PrioritizedReplayBuffer(8, alpha=-0.5)


def test_add_len_can_sample_and_circular_overwrite():
    buffer = ReplayBuffer(5)
    assert len(buffer) == 0 and buffer.buffer_size == 5 and buffer.storage == []
    assert not buffer.can_sample(1) and buffer.can_sample(0) and not buffer.is_full()
    for i in range(3):
        buffer.add(*_transition(i))
    assert len(buffer) == 3 and buffer.can_sample(3) and not buffer.can_sample(4) and not buffer.is_full()
    for i in range(3, 8):
        buffer.add(*_transition(i))
    # 8 transitions in a buffer of 5: 5, 6, 7 overwrote 0, 1, 2
    assert len(buffer) == 5 and buffer.is_full() and buffer.can_sample(5) and not buffer.can_sample(6)
    assert [t[2] for t in buffer.storage] == [5.0, 6.0, 7.0, 3.0, 4.0]
    obs_t, action, reward, obs_tp1, done = buffer.storage[0]
    np.testing.assert_array_equal(obs_t, np.full((2, 3), 5))
    np.testing.assert_array_equal(obs_tp1, np.full((2, 3), 6))
    np.testing.assert_array_equal(action, [5, -5])
    assert done == 0.0


def test_add_copies_arrays():
    """Environments may modify their observation arrays in place: the buffer must keep its own copy."""
    buffer = ReplayBuffer(4)
    obs = np.zeros(3)
    buffer.add(obs, np.zeros(1), 0.0, obs, 0.0)
    obs[:] = 7
    np.testing.assert_array_equal(buffer.storage[0][0], np.zeros(3))


def test_extend_matches_add():
    rng = np.random.RandomState(0)
    n_values = 16
    states = [rng.rand(2, 2) for _ in range(n_values)]
    actions = [rng.rand(2) for _ in range(n_values)]
    rewards = [rng.rand() for _ in range(n_values)]
    new_states = [rng.rand(2, 2) for _ in range(n_values)]
    dones = [rng.randint(0, 2) for _ in range(n_values)]

    for size in (32, 5):  # without and with circular overwrite
        baseline, ext = ReplayBuffer(size), ReplayBuffer(size)
        for data in zip(states, actions, rewards, new_states, dones):
            baseline.add(*data)
        written = ext.extend(*map(np.array, [states, actions, rewards, new_states, dones]))
        np.testing.assert_array_equal(written, np.arange(n_values) % size)
        assert len(baseline) == len(ext) == min(size, n_values)
        assert baseline._next_idx == ext._next_idx
        for i in range(len(ext)):
            for j in range(5):
                np.testing.assert_array_equal(baseline.storage[i][j], ext.storage[i][j])


def test_extend_errors():
    buffer = ReplayBuffer(8)
    with pytest.raises(ValueError, match="same number of transitions.*'reward': 2"):
        buffer.extend(np.zeros((3, 2)), np.zeros(3), np.zeros(2), np.zeros((3, 2)), np.zeros(3))
    with pytest.raises(TypeError, match="sequences.*reward"):
        buffer.extend(np.zeros((3, 2)), np.zeros(3), 1.0, np.zeros((3, 2)), np.zeros(3))
    assert len(buffer) == 0


def test_sample_shapes_and_dtypes_box():
    buffer = ReplayBuffer(100)
    space = spaces.Box(low=-1, high=1, shape=(4, 3), dtype=np.float32)
    act_space = spaces.Box(low=-1, high=1, shape=(2,), dtype=np.float32)
    for i in range(10):
        buffer.add(space.sample(), act_space.sample(), float(i), space.sample(), i == 9)
    obs, act, rew, obs_tp1, done = buffer.sample(32)
    assert obs.shape == (32, 4, 3) and obs.dtype == np.float32
    assert obs_tp1.shape == (32, 4, 3) and obs_tp1.dtype == np.float32
    assert act.shape == (32, 2) and act.dtype == np.float32
    assert rew.shape == (32,) and rew.dtype == np.float32
    assert done.shape == (32,) and done.dtype == np.float32
    # the sampled rows are stored transitions, consistently across fields
    for k in range(32):
        i = int(rew[k])
        stored = buffer.storage[i]
        np.testing.assert_array_equal(obs[k], stored[0])
        np.testing.assert_array_equal(act[k], stored[1])
        np.testing.assert_array_equal(obs_tp1[k], stored[3])
        assert done[k] == float(i == 9)


def test_sample_discrete_and_uint8_images():
    buffer = ReplayBuffer(10)
    for i in range(10):
        buffer.add(np.int64(i), np.int64(i % 2), 1.0, np.int64(i + 1), False)
    obs, act, rew, obs_tp1, done = buffer.sample(7)
    assert obs.shape == (7,) and np.issubdtype(obs.dtype, np.integer)
    assert act.shape == (7,) and np.issubdtype(act.dtype, np.integer)
    np.testing.assert_array_equal(obs_tp1, obs + 1)
    np.testing.assert_array_equal(act, obs % 2)

    images = ReplayBuffer(4)
    images.add(np.zeros((8, 8, 3), np.uint8), 1, 0.0, np.ones((8, 8, 3), np.uint8), True)
    obs, _, _, obs_tp1, done = images.sample(2)
    assert obs.dtype == np.uint8 and obs.shape == (2, 8, 8, 3)  # images are not converted to float
    assert done.tolist() == [1.0, 1.0]


def test_sample_uniform_covers_buffer():
    np.random.seed(3)
    buffer = ReplayBuffer(8)
    for i in range(8):
        buffer.add(np.array([i]), 0, float(i), np.array([i]), False)
    counts = np.bincount(buffer.sample(8000)[2].astype(int), minlength=8)
    assert stats.chisquare(counts).pvalue > 1e-4


def test_sample_errors():
    buffer = ReplayBuffer(8)
    with pytest.raises(ValueError, match="empty replay buffer"):
        buffer.sample(4)
    buffer.add(*_transition(1))
    with pytest.raises(ValueError, match="batch_size must be a positive int, got 0"):
        buffer.sample(0)


def _vec_normalize():
    env = VecNormalize(DummyVecEnv([lambda: IdentityEnvBox(eps=0.5)]), clip_obs=100.0, clip_reward=100.0)
    env.obs_rms.mean = np.array([0.5])
    env.obs_rms.var = np.array([4.0])
    env.ret_rms.var = np.array(16.0)
    return env


@pytest.mark.parametrize("prioritized", [False, True])
def test_sample_normalizes_with_vec_normalize(prioritized):
    env = _vec_normalize()
    buffer = PrioritizedReplayBuffer(16, alpha=0.6) if prioritized else ReplayBuffer(16)
    for i in range(16):
        buffer.add(np.array([float(i)]), np.array([0.0]), float(i), np.array([float(i + 1)]), False)
    np.random.seed(0)
    sample_norm = buffer.sample(10, env=env)
    np.random.seed(0)
    sample_raw = buffer.sample(10)
    np.testing.assert_allclose(sample_norm[0], (sample_raw[0] - 0.5) / np.sqrt(4.0 + 1e-8), rtol=1e-6)
    np.testing.assert_allclose(sample_norm[3], (sample_raw[3] - 0.5) / np.sqrt(4.0 + 1e-8), rtol=1e-6)
    np.testing.assert_allclose(sample_norm[2], sample_raw[2] / np.sqrt(16.0 + 1e-8), rtol=1e-6)
    np.testing.assert_array_equal(sample_norm[1], sample_raw[1])
    np.testing.assert_array_equal(sample_norm[4], sample_raw[4])
    # the obs stats were not updated by sampling
    np.testing.assert_array_equal(env.obs_rms.mean, [0.5])
    env.close()


# --------------------------------------------------------------------------------------------------
# PrioritizedReplayBuffer
# --------------------------------------------------------------------------------------------------
def _filled_per(size, n_items, alpha, seed=0):
    buffer = PrioritizedReplayBuffer(size, alpha=alpha)
    for i in range(n_items):
        buffer.add(np.array([float(i)]), np.array([0.0]), float(i), np.array([float(i)]), False)
    rng = np.random.RandomState(seed)
    n_stored = len(buffer)
    priorities = rng.uniform(0.05, 3.0, size=n_stored)
    buffer.update_priorities(np.arange(n_stored), priorities)
    return buffer, priorities


def _brute_probabilities(priorities, alpha):
    scaled = np.asarray(priorities, dtype=np.float64) ** alpha
    return scaled / scaled.sum()


@pytest.mark.parametrize("size, n_items, alpha", [(16, 16, 0.6), (13, 30, 1.0), (20, 7, 0.5)])
def test_prioritized_sampling_frequencies(size, n_items, alpha):
    """Empirical frequencies match p_i ** alpha / sum_k p_k ** alpha (brute force), chi-square test."""
    np.random.seed(123)
    buffer, priorities = _filled_per(size, n_items, alpha)
    n_stored = len(buffer)
    counts = np.zeros(n_stored)
    n_batches, batch_size = 400, 32
    for _ in range(n_batches):
        *_, idxes = buffer.sample(batch_size, beta=0.4)
        assert idxes.min() >= 0 and idxes.max() < n_stored
        counts += np.bincount(idxes, minlength=n_stored)
    expected_p = _brute_probabilities(priorities, alpha)
    expected = expected_p * n_batches * batch_size
    assert stats.chisquare(counts, expected).pvalue > 1e-4
    np.testing.assert_allclose(counts / counts.sum(), expected_p, atol=0.01)


def test_prioritized_alpha_zero_is_uniform():
    np.random.seed(5)
    buffer, _ = _filled_per(8, 8, alpha=0.0)
    counts = np.zeros(8)
    for _ in range(200):
        counts += np.bincount(buffer.sample(16)[-1], minlength=8)
    assert stats.chisquare(counts).pvalue > 1e-4
    # all weights are 1 when every probability is equal
    np.testing.assert_allclose(buffer.sample(16, beta=1.0)[-2], 1.0)


@pytest.mark.parametrize("beta", [0.0, 0.4, 1.0])
def test_importance_weights_match_brute_force(beta):
    np.random.seed(7)
    alpha = 0.7
    buffer, priorities = _filled_per(32, 50, alpha)  # full, overwritten circular buffer
    n_stored = len(buffer)
    probs = _brute_probabilities(priorities, alpha)
    max_weight = (n_stored * probs.min()) ** (-beta)
    for _ in range(5):
        obs, act, rew, obs_tp1, done, weights, idxes = buffer.sample(64, beta=beta)
        assert weights.dtype == np.float32 and weights.shape == (64,)
        assert idxes.shape == (64,) and np.issubdtype(idxes.dtype, np.integer)
        expected = (n_stored * probs[idxes]) ** (-beta) / max_weight
        np.testing.assert_allclose(weights, expected.astype(np.float32), rtol=1e-6)
        assert np.all(weights <= 1.0 + 1e-6)
        # the other fields belong to the sampled indices
        np.testing.assert_array_equal(rew, [buffer.storage[i][2] for i in idxes])
    # and in float64 (the internal computation) exactly
    idxes = np.arange(n_stored)
    np.testing.assert_allclose(buffer._importance_weights(idxes, beta),
                               (n_stored * probs) ** (-beta) / max_weight, rtol=1e-12)


def test_new_transitions_get_max_priority():
    buffer = PrioritizedReplayBuffer(8, alpha=0.5)
    for i in range(4):
        buffer.add(*_transition(i))
    np.testing.assert_allclose(buffer._it_sum[np.arange(4)], 1.0)  # initial max priority 1
    buffer.update_priorities([0, 1, 2, 3], [0.5, 4.0, 0.1, 2.0])
    buffer.add(*_transition(4))
    assert np.isclose(buffer._it_sum[4], 4.0 ** 0.5)
    assert np.isclose(buffer._it_min.min(), 0.1 ** 0.5)
    written = buffer.extend(*[np.array(x) for x in zip(*[_transition(i) for i in range(5, 11)])])
    np.testing.assert_array_equal(written, [5, 6, 7, 0, 1, 2])
    np.testing.assert_allclose(buffer._it_sum[written], 4.0 ** 0.5)
    # overwritten slots lost their old priorities: the sum is over the stored transitions only
    expected = np.array([4.0, 4.0, 4.0, 2.0, 4.0, 4.0, 4.0, 4.0]) ** 0.5
    np.testing.assert_allclose(buffer._it_sum.sum(0, len(buffer)), expected.sum())
    assert np.isclose(buffer._it_min.min(), 2.0 ** 0.5)
    assert np.isclose(buffer._it_sum.sum(), expected.sum())


def test_extend_priorities_larger_than_buffer():
    buffer = PrioritizedReplayBuffer(4, alpha=1.0)
    buffer.update_priorities([], [])
    data = [np.array(x) for x in zip(*[_transition(i) for i in range(9)])]
    buffer.extend(*data)
    assert len(buffer) == 4
    assert [t[2] for t in buffer.storage] == [8.0, 5.0, 6.0, 7.0]
    np.testing.assert_allclose(buffer._it_sum[np.arange(4)], 1.0)
    assert np.isclose(buffer._it_sum.sum(), 4.0)


def test_update_priorities_errors():
    buffer = PrioritizedReplayBuffer(8, alpha=0.6)
    for i in range(4):
        buffer.add(*_transition(i))
    with pytest.raises(ValueError, match=r"priorities must be finite and > 0, got \[0.0\]"):
        buffer.update_priorities([0, 1], [1.0, 0.0])
    with pytest.raises(ValueError, match=r"priorities must be finite and > 0, got \[-1.0\]"):
        buffer.update_priorities([0], [-1.0])
    with pytest.raises(ValueError, match="finite"):
        buffer.update_priorities([0], [np.nan])
    with pytest.raises(IndexError, match=r"idxes must be in \[0, 4\).*got \[4\]"):
        buffer.update_priorities([1, 4], [1.0, 1.0])
    with pytest.raises(IndexError, match=r"got \[-1\]"):
        buffer.update_priorities([-1], [1.0])
    with pytest.raises(ValueError, match="as many priorities as idxes, got 2 idxes and 3 priorities"):
        buffer.update_priorities([0, 1], [1.0, 1.0, 1.0])
    with pytest.raises(TypeError, match="integer idxes"):
        buffer.update_priorities([0.5], [1.0])
    with pytest.raises(ValueError, match="beta must be a float >= 0"):
        buffer.sample(2, beta=-1)
    # nothing was changed by the failed calls
    np.testing.assert_allclose(buffer._it_sum[np.arange(4)], 1.0)
    assert buffer._max_priority == 1.0


def test_update_priorities_with_sampled_arrays():
    """The DQN loop: sample, compute |td error| + eps as float32, update (idxes as returned)."""
    np.random.seed(1)
    buffer = PrioritizedReplayBuffer(50, alpha=0.6)
    for i in range(50):
        buffer.add(*_transition(i))
    *_, weights, idxes = buffer.sample(32, beta=0.4)
    new_priorities = (np.abs(np.random.randn(32)) + 1e-6).astype(np.float32)
    buffer.update_priorities(idxes, new_priorities)
    # with duplicate indices the last value wins
    last = {}
    for i, p in zip(idxes, new_priorities):
        last[int(i)] = float(p)
    for i, p in last.items():
        assert np.isclose(buffer._it_sum[i], p ** 0.6, rtol=1e-6)
    assert np.isclose(buffer._max_priority, max(1.0, float(new_priorities.max())))


def test_plain_sample_accepts_beta_keyword():
    """ReplayBuffer.sample ignores extra keywords (as in SB2), so one call works for both buffer types."""
    buffer = ReplayBuffer(4)
    buffer.add(*_transition(0))
    assert len(buffer.sample(2, beta=0.4)) == 5


def test_fill_reproduces_a_full_buffer_and_its_next_slot():
    source = ReplayBuffer(4)
    for i in range(6):  # wraps: slots hold 4, 5, 2, 3 and slot 2 is written next
        source.add(*_transition(i))
    copy = ReplayBuffer(4)
    copy.fill(list(source.storage), 2)
    assert len(copy) == 4
    for mine, theirs in zip(copy.storage, source.storage):
        for field_a, field_b in zip(mine, theirs):
            np.testing.assert_array_equal(field_a, field_b)
    copy.add(*_transition(9))
    source.add(*_transition(9))
    np.testing.assert_array_equal(copy.storage[2][0], np.full((2, 3), 9, dtype=np.float32))
    np.testing.assert_array_equal(copy.storage[2][0], source.storage[2][0])

    with pytest.raises(ValueError, match="empty buffer"):
        copy.fill(list(source.storage), 0)
    with pytest.raises(ValueError, match="at most 4 transitions and a slot below that, got 2 transitions and slot 4"):
        ReplayBuffer(4).fill(list(source.storage)[:2], 4)


def test_with_float_scalars_keeps_slots_and_next_slot():
    buffer = ReplayBuffer(3)
    for i in range(4):  # HER stores False beside 0.0: the transitions go to a list
        obs, action, _, next_obs, _ = _transition(i)
        buffer.add(obs, action, 0.0 if i % 2 else False, next_obs, False if i % 2 else 1.0)
    floats = buffer.with_float_scalars()
    assert floats is not buffer and len(floats) == 3
    assert [type(row[2]) for row in floats.storage] == [float] * 3
    slots = np.array([0, 2, 1])
    for mine, theirs in zip(floats.transitions_at(slots), buffer.transitions_at(slots)):
        np.testing.assert_array_equal(mine, theirs)
    floats.add(*_transition(7))  # written where the source writes next: slot 1
    np.testing.assert_array_equal(floats.storage[1][0], np.full((2, 3), 7, dtype=np.float32))


def test_transitions_at_gives_the_batch_of_those_slots():
    buffer = ReplayBuffer(10)
    for i in range(6):
        buffer.add(*_transition(i))
    obs, actions, rewards, next_obs, dones = buffer.transitions_at(np.array([5, 0, 3]))
    np.testing.assert_array_equal(obs[:, 0, 0], [5, 0, 3])
    np.testing.assert_array_equal(actions, [[5, -5], [0, 0], [3, -3]])
    np.testing.assert_array_equal(rewards, np.array([5, 0, 3], dtype=np.float32))
    np.testing.assert_array_equal(next_obs, obs + 1)
    np.testing.assert_array_equal(dones, [0.0, 1.0, 1.0])
