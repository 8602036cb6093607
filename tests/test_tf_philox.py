"""
TensorFlow's seeded uniform draws reproduced in NumPy (stable_baselines/common/engine/tf_philox.py), checked bit for bit
against the graph, and the rollouts of A2C and PPO2 that use them.
"""
import numpy as np
import pytest

from stable_baselines import A2C, PPO2
from stable_baselines.common import runners
from stable_baselines.common.engine.numpy_forward import numpy_activation
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.engine.tf_philox import OpUniformStream, philox_words, uniform_draws
from stable_baselines.common.engine.tf_random_draws import (OpDrawCount, add_draws, record_draws, session_draws,
                                                      set_session_draws, settle_draws, values_drawn)
from stable_baselines.common.vec_env import DummyVecEnv
from tests.test_a2c_ppo2 import ZOO_CARTPOLE_KWARGS, make_env

SHAPES = ([8, 2], [3], [5, 7], [1], [300, 7])


def _bits(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32)


@pytest.mark.parametrize("graph_seed", [0, 1, 123456789])
def test_uniform_draws_are_the_graphs_bit_for_bit(graph_seed):
    """Several ops, shapes and successive session calls: the same float32 bits as the kernel."""
    with tf.Graph().as_default():
        tf.set_random_seed(graph_seed)
        outputs = [tf.random_uniform(shape) for shape in SHAPES]
        with tf.Session() as sess:
            for output, shape in zip(outputs, SHAPES):
                seed, seed2 = output.op.get_attr("seed"), output.op.get_attr("seed2")
                drawn = 0
                for _ in range(3):
                    expected = sess.run(output)
                    np.testing.assert_array_equal(_bits(uniform_draws(seed, seed2, drawn, shape)), _bits(expected))
                    drawn += int(np.prod(shape))


def test_philox_block_of_a_known_position():
    """Counter 0, key 0, seed2 0: the first block (from the kernel, as uint32 words)."""
    words = philox_words(0, 0, np.zeros(1, dtype=np.uint64))
    assert words.shape == (1, 4) and words.dtype == np.uint32
    with tf.Graph().as_default():
        output = tf.random_uniform([4], seed=0)
        seed, seed2 = output.op.get_attr("seed"), output.op.get_attr("seed2")
        with tf.Session() as sess:
            first = sess.run(output)
    expected = (philox_words(seed, seed2, np.zeros(1, dtype=np.uint64))[0] & np.uint32(0x7FFFFF)) \
        | np.uint32(127 << 23)
    np.testing.assert_array_equal(_bits(first), _bits(expected.view(np.float32) - np.float32(1)))


def test_stream_alternates_with_graph_calls():
    """Graph calls and NumPy draws of one op share its count: every value is the one the graph gives next."""
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        rows = tf.placeholder(tf.int32, [])
        output = tf.random_uniform(tf.stack([rows, 3]))
        with tf.Session() as sess:
            stream = OpUniformStream(sess, output.op, lookahead=4)
            assert OpUniformStream.is_seeded(output.op)
            reference_sess = tf.Session()
            seen, expected = [], []
            for call, n_rows in enumerate([2, 2, 2, 5, 2, 2, 2, 2, 2, 2]):
                expected.append(reference_sess.run(output, {rows: n_rows}))
                if call % 3 == 1:
                    settle_draws(sess)
                    seen.append(sess.run(output, {rows: n_rows}))
                    record_draws(sess, output, n_rows)
                else:
                    seen.append(stream.draw((n_rows, 3)))
            assert values_drawn(sess, output.op.name) == 3 * 23
            for got, want in zip(seen, expected):
                np.testing.assert_array_equal(_bits(got), _bits(want))
            reference_sess.close()


def test_unseeded_ops_are_not_reproduced():
    with tf.Graph().as_default():
        output = tf.random_uniform([2])
        assert not OpUniformStream.is_seeded(output.op)


def test_numpy_tanh_is_the_kernels():
    """The NumPy copies' tanh gives TensorFlow's float32 Tanh bit for bit (the graph's hidden layers)."""
    values = (np.random.default_rng(1).normal(size=(500, 64)) * 4).astype(np.float32)
    values[0, :8] = [0.0, -0.0, 1e-30, 9.0, -20.0, 7.9, -7.95, 3e-4]
    with tf.Graph().as_default(), tf.Session() as sess:
        expected = sess.run(tf.tanh(tf.constant(values)))
    np.testing.assert_array_equal(_bits(numpy_activation(tf.tanh)(values.copy())), _bits(expected))


def _rollout_actions(model_class, sample_rollouts, total_timesteps, monkeypatch):
    """:return: (list, dict) the actions of every rollout step of a seeded CartPole learn, and the parameters"""
    actions = []
    step = runners.AbstractEnvRunner.sampled_model_step

    def recording_step(self):
        answer = step(self)
        actions.append(np.array(answer[0]))
        return answer

    with monkeypatch.context() as patch:
        patch.setattr(runners.AbstractEnvRunner, "sampled_model_step", recording_step)
        env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(8)])
        model = model_class("MlpPolicy", env, seed=3, n_cpu_tf_sess=1, **ZOO_CARTPOLE_KWARGS[model_class])
        model.fast_path.sample_rollouts = sample_rollouts
        if sample_rollouts:
            assert model.fast_path.graph_draws_of(model.acting_policy) is not None
        model.learn(total_timesteps)
    return actions, model.get_parameters()


@pytest.mark.parametrize("model_class", [A2C, PPO2])
def test_numpy_rollouts_draw_the_graphs_actions(model_class, monkeypatch):
    """A seeded learn: the NumPy rollouts pick every action the graph picks; parameters equal up to float rounding."""
    numpy_actions, numpy_params = _rollout_actions(model_class, True, 1536, monkeypatch)
    graph_actions, graph_params = _rollout_actions(model_class, False, 1536, monkeypatch)
    assert len(numpy_actions) == len(graph_actions) > 100
    for got, want in zip(numpy_actions, graph_actions):
        np.testing.assert_array_equal(got, want)
    for name, value in graph_params.items():
        np.testing.assert_allclose(numpy_params[name], value, rtol=0, atol=1e-6, err_msg=name)


def test_unseeded_model_keeps_the_generator():
    """No seed: nothing to reproduce, the rollouts draw with the fast path's generator and leave the op alone."""
    env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(2)])
    model = A2C("MlpPolicy", env, n_cpu_tf_sess=1)
    assert model.fast_path.graph_draws_of(model.acting_policy) is None
    model.learn(50)


@pytest.mark.parametrize("sample_rollouts", [True, False])
def test_graph_draws_after_numpy_rollouts_continue_the_stream(sample_rollouts):
    """After a learn whose rollouts drew in NumPy, a stochastic graph step draws what it would after graph rollouts."""
    env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(8)])
    model = PPO2("MlpPolicy", env, seed=5, n_cpu_tf_sess=1, **ZOO_CARTPOLE_KWARGS[PPO2])
    model.fast_path.sample_rollouts = sample_rollouts
    model.learn(512)
    observations = np.linspace(-0.2, 0.2, 4 * 64, dtype=np.float32).reshape(64, 4)
    policy = model.acting_policy
    draws = policy.step(observations)[0]
    stream = model.fast_path.graph_draws_of(policy)
    assert stream is not None and stream.drawn() == 2 * (512 + 64)
    # the same uniforms as a pure graph run: compare with the Gumbel-max formula on the graph's logits
    logits = model.sess.run(policy.policy, {policy.obs_ph: observations})
    uniforms = uniform_draws(stream.seed, stream.seed2, 2 * 512, (64, 2))
    np.testing.assert_array_equal(draws, (logits - np.log(-np.log(uniforms))).argmax(axis=-1))


def test_op_draw_count_shares_the_session_counts():
    """OpDrawCount reads and moves the counts add_draws, record_draws and set_session_draws see (no stale copy)."""
    with tf.Graph().as_default():
        tf.set_random_seed(4)
        output = tf.random_uniform([3])
        with tf.Session() as sess:
            count = OpDrawCount(sess, output.op)
            assert count.drawn() == 0
            count.add(6)
            add_draws(sess, output.op, 3)
            assert count.drawn() == values_drawn(sess, output.op.name) == 9
            set_session_draws(sess, {output.op.name: 30})  # e.g. an exact resume
            assert count.drawn() == 30
            record_draws(sess, output, 1)
            assert count.drawn() == session_draws(sess)[output.op.name] == 33
            # the kernel is moved past the 9 values drawn outside it: its next output is the stream's after them
            settle_draws(sess)
            expected = uniform_draws(output.op.get_attr("seed"), output.op.get_attr("seed2"), 9, [3])
            np.testing.assert_array_equal(_bits(sess.run(output)), _bits(expected))
