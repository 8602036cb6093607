"""
The cheaper pieces of the off-policy training steps (issue 23): DQN's gradient clipping gives the bits of
``tf.clip_by_norm`` with fewer ops, the replay buffer's gather of array-stored transitions gives what the general
path gives, the finiteness check of the losses, and the number of ops one fused DQN training call runs.
"""
import numpy as np
import pytest

from stable_baselines import DQN
from stable_baselines.common.buffers import ReplayBuffer
from stable_baselines.common.model.off_policy import check_finite_losses
from stable_baselines.common.tf_compat import tf
from stable_baselines.deepq.build_graph import _clip_gradients


def _clipped_both_ways(values, max_norm):
    graph = tf.Graph()
    with graph.as_default():
        grads = [tf.constant(value) for value in values]
        pairs = [(grad, None) for grad in grads]
        ours = [grad for grad, _ in _clip_gradients(pairs, max_norm)]
        reference = [tf.clip_by_norm(grad, max_norm) for grad in grads]
        with tf.Session(graph=graph) as sess:
            return sess.run(ours), sess.run(reference)


def test_clip_gradients_bitwise_as_clip_by_norm():
    rng = np.random.default_rng(3)
    values = [rng.normal(size=(4, 64)).astype(np.float32) * 3,  # norm ~ 48: clipped
              rng.normal(size=(64,)).astype(np.float32) * 0.1,  # norm < 10: scaled by 10 / 10
              np.zeros((64, 2), dtype=np.float32),  # norm 0
              np.array([np.nan, 1.0], dtype=np.float32),
              np.array([[1e20, -1e20]], dtype=np.float32)]
    ours, reference = _clipped_both_ways(values, 10)
    for mine, theirs in zip(ours, reference):
        assert mine.shape == theirs.shape
        np.testing.assert_array_equal(mine.view(np.int32), theirs.view(np.int32))
    assert np.linalg.norm(ours[0]) == pytest.approx(10, rel=1e-5)


def test_clip_gradients_keeps_missing_gradients_and_order():
    graph = tf.Graph()
    with graph.as_default():
        first, second = tf.constant([30.0, 40.0]), tf.constant([0.3, 0.4])
        clipped = _clip_gradients([(first, "a"), (None, "b"), (second, "c")], 5.0)
        assert [var for _, var in clipped] == ["a", "b", "c"] and clipped[1][0] is None
        with tf.Session(graph=graph) as sess:
            big, small = sess.run([clipped[0][0], clipped[2][0]])
    np.testing.assert_allclose(big, [3.0, 4.0], rtol=1e-6)
    np.testing.assert_allclose(small, [0.3, 0.4], rtol=1e-6)
    assert _clip_gradients([(first, "a")], None) == [(first, "a")]


class _Scaler:
    """A stand-in for VecNormalize's normalisation."""

    @staticmethod
    def normalize_obs(obs):
        return obs * 2.0

    @staticmethod
    def normalize_reward(reward):
        return reward - 1.0


@pytest.mark.parametrize("env", [None, _Scaler()])
def test_array_gather_matches_list_storage(env):
    arrays, listed = ReplayBuffer(50), ReplayBuffer(50)
    rng = np.random.default_rng(0)
    for step in range(70):
        transition = (rng.normal(size=3).astype(np.float32), np.array([step % 4]), float(step),
                      rng.normal(size=3).astype(np.float32), float(step % 7 == 0))
        arrays.add(*transition)
        listed.add(*transition)
    listed._to_list_storage()
    assert listed._storage is not None and arrays._storage is None
    slots = rng.integers(0, 50, size=16)
    for mine, theirs in zip(arrays._encode_sample(slots, env=env), listed._encode_sample(slots, env=env)):
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
        np.testing.assert_array_equal(mine, theirs)
    rewards = arrays._encode_sample(slots, env=env)[2]
    assert rewards.dtype == np.float32


def test_check_finite_losses_on_arrays_and_rows():
    check_finite_losses(np.array([0.5, -2.0], dtype=np.float32), 10)
    check_finite_losses([(1.0, 2.0), (3.0, 4.0)], 10)
    with pytest.raises(RuntimeError, match="timestep 7"):
        check_finite_losses(np.array([0.5, np.nan], dtype=np.float32), 7)
    with pytest.raises(RuntimeError, match="timestep 8"):
        check_finite_losses([(1.0, np.inf)], 8)


def _executed_ops(model, call, values):
    """The number of graph nodes one run of a fused training call executes."""
    run = call._run
    feeds = [run._check(index, values[position]) for index, position in enumerate(run._positions)]
    metadata = tf.RunMetadata()
    model.sess.run(run.fetches, dict(zip(run.feeds, feeds)),
                   options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=metadata)
    return sum(len(device.node_stats) for device in metadata.step_stats.dev_stats)


def test_dqn_fused_train_step_op_count():
    model = DQN("MlpPolicy", "CartPole-v1", learning_starts=50, batch_size=32, double_q=False,
                policy_kwargs=dict(dueling=False), seed=0, n_cpu_tf_sess=1)
    model.learn(100)
    obs, actions, rewards, next_obs, dones = model.replay_buffer.sample(32)
    values = [obs, actions, rewards, next_obs, next_obs, dones, np.ones(32, dtype=np.float32)]
    # 219 with one tf.clip_by_norm per variable, 192 with the norms of the six gradients taken together; 202 since the
    # dense layers run as separate MatMul, BiasAdd and Relu kernels (tf_run.unfused_dense_layers: 10 more nodes,
    # each cheaper than the fused kernel)
    assert _executed_ops(model, model._fused_train, values) <= 205
