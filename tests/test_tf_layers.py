"""Tests of common/tf_layers.py (layers, TF 1.15 variable names) and common/tf_util.py."""
import numpy as np
import pytest

from stable_baselines.common.tf_compat import tf
from stable_baselines.common import tf_util
from stable_baselines.common.tf_layers import (batch_to_seq, conv, conv_to_fc, dense, flatten, fully_connected,
                                               layer_norm, linear, lstm, mlp, ortho_init, seq_to_batch)


def _var(graph, name):
    """The variable called `name` (works in TF-1 and TF-2 behaviour, unlike get_tensor_by_name)."""
    matches = [var for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) if var.name == name]
    assert len(matches) == 1, name
    return matches[0]


def _names(graph, scope=None):
    return [var.name for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=scope)]


@pytest.fixture
def graph_sess():
    graph = tf.Graph()
    with graph.as_default():
        sess = tf_util.make_session(num_cpu=1, graph=graph)
        yield graph, sess
        sess.close()


# ------------------------------------------------------------------------------------------------
# dense: TF 1.15 names
# ------------------------------------------------------------------------------------------------
def _dense_scenario(layer_fn):
    """Build the same sequence of layers with `layer_fn` (ours or tf.layers.dense); return var names."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        with tf.variable_scope("m"):
            layer_fn(x, 2)
            layer_fn(x, 2)
            layer_fn(x, 4, name='x')
            with tf.variable_scope("inner"):
                layer_fn(x, 2)
            layer_fn(x, 2)
        with tf.variable_scope("m", reuse=True):
            layer_fn(x, 4, name='x')
            layer_fn(x, 2)  # re-entering "m" restarts the unique names: reuses m/dense
            layer_fn(x, 2, reuse=True)
        with tf.variable_scope("m"):
            layer_fn(x, 4, name='x', reuse=True)
        with tf.variable_scope("train_model", reuse=True, custom_getter=tf_util.outer_scope_getter("train_model")):
            with tf.variable_scope("m"):
                layer_fn(x, 2)
                layer_fn(x, 2)
        layer_fn(x, 2)
        layer_fn(x, 5, name="named")
        layer_fn(x, 2)
    return _names(graph)


EXPECTED_DENSE = ['m/dense/kernel:0', 'm/dense/bias:0', 'm/dense_1/kernel:0', 'm/dense_1/bias:0',
                  'm/x/kernel:0', 'm/x/bias:0', 'm/inner/dense/kernel:0', 'm/inner/dense/bias:0',
                  'm/dense_2/kernel:0', 'm/dense_2/bias:0', 'dense/kernel:0', 'dense/bias:0',
                  'named/kernel:0', 'named/bias:0', 'dense_1/kernel:0', 'dense_1/bias:0']


def test_dense_names_follow_tf115():
    assert _dense_scenario(dense) == EXPECTED_DENSE


def test_dense_names_match_tf_compat_layers():
    """The legacy tf.compat.v1.layers (through tf-keras) still names as TF 1.15 did: compare."""
    try:
        legacy_dense = tf.layers.dense
        _dense_scenario(legacy_dense)
    except Exception as err:  # pragma: no cover - tf-keras missing
        pytest.skip("tf.compat.v1.layers unavailable: {}".format(err))
    assert _dense_scenario(dense) == _dense_scenario(legacy_dense)


def test_dense_unnamed_in_reuse_scope_without_reentry_fails_like_tf1():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        with tf.variable_scope("m") as scope:
            dense(x, 2)
            scope.reuse_variables()
            with pytest.raises(ValueError, match="dense_1/kernel does not exist"):
                dense(x, 2)


def test_dense_named_duplicate_without_reuse_fails():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        dense(x, 2, name="a")
        with pytest.raises(ValueError, match="a/kernel already exists"):
            dense(x, 2, name="a")


def test_dense_reuse_shares_values(graph_sess):
    graph, sess = graph_sess
    x = tf.placeholder(tf.float32, (None, 3))
    out_1 = dense(x, 4, name="shared", activation=tf.nn.relu)
    with tf.variable_scope("", reuse=True):
        out_2 = dense(x, 4, name="shared", activation=tf.nn.relu)
    out_3 = dense(x, 4, name="shared", activation=tf.nn.relu, reuse=True)
    assert _names(graph) == ['shared/kernel:0', 'shared/bias:0']
    sess.run(tf.global_variables_initializer())
    feed = {x: np.random.RandomState(0).randn(5, 3)}
    val_1, val_2, val_3 = sess.run([out_1, out_2, out_3], feed)
    np.testing.assert_allclose(val_1, val_2)
    np.testing.assert_allclose(val_1, val_3)
    kernel, bias = sess.run(graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES))
    np.testing.assert_allclose(val_1, np.maximum(feed[x] @ kernel + bias, 0), rtol=1e-5, atol=1e-6)
    assert kernel.shape == (3, 4) and bias.shape == (4,)
    assert np.all(bias == 0)


def test_dense_rank3_input(graph_sess):
    _, sess = graph_sess
    x = tf.placeholder(tf.float32, (None, 2, 3))
    out = dense(x, 4)
    assert out.shape.as_list() == [None, 2, 4]
    sess.run(tf.global_variables_initializer())
    value = np.ones((1, 2, 3), np.float32)
    assert sess.run(out, {x: value}).shape == (1, 2, 4)


# ------------------------------------------------------------------------------------------------
# fully_connected / layer_norm / mlp: contrib names
# ------------------------------------------------------------------------------------------------
def test_fully_connected_and_layer_norm_names_like_dqn():
    """The DQN file layout: fully_connected, LayerNorm, fully_connected_1 per sub-scope."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (None, 4))
        for outer in ["deepq/model", "deepq/target_q_func/model"]:
            with tf.variable_scope(outer):
                for sub, n_out in [("action_value", 2), ("state_value", 1)]:
                    with tf.variable_scope(sub):
                        out = fully_connected(x, num_outputs=64, activation_fn=None)
                        out = layer_norm(out, center=True, scale=True)
                        out = tf.nn.relu(out)
                        fully_connected(out, num_outputs=n_out, activation_fn=None)
        # the step model of DQN: same names under "step_model", remapped by the getter onto deepq/model
        with tf.variable_scope("deepq"):
            with tf.variable_scope("step_model", reuse=True, custom_getter=tf_util.outer_scope_getter("step_model")):
                with tf.variable_scope("model"):
                    with tf.variable_scope("action_value"):
                        out = layer_norm(fully_connected(x, num_outputs=64, activation_fn=None))
                        fully_connected(out, num_outputs=2, activation_fn=None)
    expected = []
    for outer in ["deepq/model", "deepq/target_q_func/model"]:
        for sub in ["action_value", "state_value"]:
            prefix = outer + "/" + sub + "/"
            expected += [prefix + "fully_connected/weights:0", prefix + "fully_connected/biases:0",
                         prefix + "LayerNorm/beta:0", prefix + "LayerNorm/gamma:0",
                         prefix + "fully_connected_1/weights:0", prefix + "fully_connected_1/biases:0"]
    assert _names(graph) == expected


def test_fully_connected_values_scope_and_errors(graph_sess):
    graph, sess = graph_sess
    x = tf.placeholder(tf.float32, (None, 3))
    out = fully_connected(x, 2)  # relu by default
    out_named = fully_connected(x, 2, scope="fc", activation_fn=None)
    out_named_again = fully_connected(x, 2, scope="fc", activation_fn=None, reuse=True)
    no_bias = fully_connected(x, 2, biases_initializer=None, activation_fn=None)
    assert _names(graph) == ['fully_connected/weights:0', 'fully_connected/biases:0',
                             'fc/weights:0', 'fc/biases:0', 'fully_connected_1/weights:0']
    with pytest.raises(ValueError, match="reuse=True cannot be used without a scope"):
        fully_connected(x, 2, reuse=True)
    sess.run(tf.global_variables_initializer())
    feed = {x: np.random.RandomState(1).randn(4, 3)}
    weights, biases, fc_w, fc_b, w_nb = sess.run(graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES))
    values = sess.run([out, out_named, out_named_again, no_bias], feed)
    np.testing.assert_allclose(values[0], np.maximum(feed[x] @ weights + biases, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values[1], feed[x] @ fc_w + fc_b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values[1], values[2])
    np.testing.assert_allclose(values[3], feed[x] @ w_nb, rtol=1e-5, atol=1e-6)


def test_layer_norm_numerics_epsilon_1e12(graph_sess):
    graph, sess = graph_sess
    x = tf.placeholder(tf.float32, (None, 5))
    out = layer_norm(x)
    out_2 = layer_norm(x, scope="custom")
    assert _names(graph) == ['LayerNorm/beta:0', 'LayerNorm/gamma:0', 'custom/beta:0', 'custom/gamma:0']
    sess.run(tf.global_variables_initializer())
    sess.run([tf.assign(_var(graph, 'LayerNorm/beta:0'), np.arange(5, dtype=np.float32)),
              tf.assign(_var(graph, 'LayerNorm/gamma:0'), np.full(5, 2.0, np.float32))])
    rng = np.random.RandomState(2)
    # tiny variance: an epsilon of 1e-5 (instead of 1e-12) would squash these values towards 0
    data = (rng.randn(3, 5) * 1e-3).astype(np.float32)
    mean = data.mean(axis=1, keepdims=True)
    var = data.var(axis=1, keepdims=True)
    expected = (data - mean) / np.sqrt(var + 1e-12) * 2.0 + np.arange(5)
    value, value_2 = sess.run([out, out_2], {x: data})
    np.testing.assert_allclose(value, expected, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(value_2, (data - mean) / np.sqrt(var + 1e-12), rtol=1e-3, atol=1e-3)


def test_mlp_names_like_ddpg_and_sac():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        with tf.variable_scope("model/pi"):
            hidden = mlp(x, [64, 64], layer_norm=True)
            dense(hidden, 1)
            dense(hidden, 1)
    assert _names(graph) == [
        'model/pi/fc0/kernel:0', 'model/pi/fc0/bias:0', 'model/pi/LayerNorm/beta:0', 'model/pi/LayerNorm/gamma:0',
        'model/pi/fc1/kernel:0', 'model/pi/fc1/bias:0', 'model/pi/LayerNorm_1/beta:0',
        'model/pi/LayerNorm_1/gamma:0', 'model/pi/dense/kernel:0', 'model/pi/dense/bias:0',
        'model/pi/dense_1/kernel:0', 'model/pi/dense_1/bias:0']


# ------------------------------------------------------------------------------------------------
# the original library's layers
# ------------------------------------------------------------------------------------------------
def test_ortho_init_is_orthogonal():
    np.random.seed(0)
    weights = ortho_init(2.0)((6, 4))
    assert weights.dtype == np.float32 and weights.shape == (6, 4)
    np.testing.assert_allclose(weights.T @ weights, 4.0 * np.eye(4), atol=1e-5)
    weights = ortho_init(1.0)((3, 8))
    np.testing.assert_allclose(weights @ weights.T, np.eye(3), atol=1e-5)
    conv_weights = ortho_init(1.0)((2, 2, 3, 5))
    assert conv_weights.shape == (2, 2, 3, 5)
    flat = conv_weights.reshape(12, 5)
    np.testing.assert_allclose(flat.T @ flat, np.eye(5), atol=1e-5)
    with pytest.raises(NotImplementedError):
        ortho_init(1.0)((3,))


def test_linear_names_and_values(graph_sess):
    graph, sess = graph_sess
    x = tf.placeholder(tf.float32, (None, 3))
    out = linear(x, "lin", 4, init_scale=0.5, init_bias=0.25)
    assert _names(graph) == ['lin/w:0', 'lin/b:0']
    sess.run(tf.global_variables_initializer())
    weight, bias = sess.run(graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES))
    np.testing.assert_allclose(bias, 0.25)
    np.testing.assert_allclose(weight @ weight.T, 0.25 * np.eye(3), atol=1e-5)
    data = np.random.RandomState(3).randn(2, 3)
    np.testing.assert_allclose(sess.run(out, {x: data}), data @ weight + bias, rtol=1e-5, atol=1e-6)


def test_conv_names_shapes_and_conv_to_fc(graph_sess):
    graph, sess = graph_sess
    x = tf.placeholder(tf.float32, (None, 10, 10, 2))
    out = conv(x, "c1", n_filters=4, filter_size=3, stride=2)
    out_1d = conv(x, "c2", n_filters=4, filter_size=(3, 2), stride=1, one_dim_bias=True)
    shapes = [(var.name, var.shape.as_list()) for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)]
    assert shapes == [('c1/w:0', [3, 3, 2, 4]), ('c1/b:0', [1, 4, 1, 1]),
                      ('c2/w:0', [3, 2, 2, 4]), ('c2/b:0', [4])]
    assert out.shape.as_list() == [None, 4, 4, 4]
    assert out_1d.shape.as_list() == [None, 8, 9, 4]
    fc = conv_to_fc(out)
    assert fc.shape.as_list() == [None, 64]
    sess.run(tf.global_variables_initializer())
    data = np.random.RandomState(4).randn(2, 10, 10, 2)
    conv_value, fc_value = sess.run([out, fc], {x: data})
    np.testing.assert_allclose(fc_value, conv_value.reshape(2, -1))
    # one output value checked by hand (bias is zero)
    weight = sess.run(_var(graph, 'c1/w:0'))
    np.testing.assert_allclose(conv_value[1, 2, 3, :], np.einsum('hwc,hwcf->f', data[1, 4:7, 6:9, :], weight),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(NotImplementedError, match="data_format"):
        conv(x, "c3", n_filters=4, filter_size=3, stride=1, data_format="XYZ")


def test_flatten_shapes(graph_sess):
    _, sess = graph_sess
    x = tf.placeholder(tf.float32, (None, 2, 3))
    assert flatten(x).shape.as_list() == [None, 6]
    y = tf.placeholder(tf.float32, (None, None, 3))
    out = flatten(y)
    assert sess.run(out, {y: np.zeros((2, 4, 3))}).shape == (2, 12)
    z = tf.placeholder(tf.float32, (None,))
    assert flatten(z).shape.as_list() == [None, 1]


def test_batch_to_seq_round_trip(graph_sess):
    _, sess = graph_sess
    n_env, n_steps = 2, 3
    x = tf.placeholder(tf.float32, (n_env * n_steps, 4))
    seq = batch_to_seq(x, n_env, n_steps)
    assert len(seq) == n_steps and seq[0].shape.as_list() == [n_env, 4]
    back = seq_to_batch(seq)
    flat_in = tf.placeholder(tf.float32, (n_env * n_steps,))
    flat_seq = batch_to_seq(flat_in, n_env, n_steps, flat=True)
    flat_back = seq_to_batch(flat_seq, flat=True)
    data = np.arange(24, dtype=np.float32).reshape(6, 4)
    seq_values, back_value = sess.run([seq, back], {x: data})
    # batch order is env-major: row env * n_steps + step
    np.testing.assert_allclose(seq_values[1], data[[1, 4]])
    # seq_to_batch gives step-major order back (as the original)
    np.testing.assert_allclose(back_value, np.concatenate([data[[0, 3]], data[[1, 4]], data[[2, 5]]], axis=1)
                               .reshape(-1, 4))
    flat_data = np.arange(6, dtype=np.float32)
    np.testing.assert_allclose(sess.run(flat_back, {flat_in: flat_data}), flat_data.reshape(2, 3).reshape(-1))


def _numpy_lstm(xs, masks, state, wx, wh, b, ln_params=None):
    def sigmoid(v):
        return 1 / (1 + np.exp(-v))

    def _ln(v, gain, bias):
        mean = v.mean(axis=1, keepdims=True)
        var = v.var(axis=1, keepdims=True)
        return (v - mean) / np.sqrt(var + 1e-5) * gain + bias

    cell, hidden = np.split(state, 2, axis=1)
    outputs = []
    for x, mask in zip(xs, masks):
        cell = cell * (1 - mask)
        hidden = hidden * (1 - mask)
        if ln_params is None:
            gates = x @ wx + hidden @ wh + b
        else:
            gx, bx, gh, bh, _, _ = ln_params
            gates = _ln(x @ wx, gx, bx) + _ln(hidden @ wh, gh, bh) + b
        i, f, o, u = np.split(gates, 4, axis=1)
        cell = sigmoid(f) * cell + sigmoid(i) * np.tanh(u)
        if ln_params is None:
            hidden = sigmoid(o) * np.tanh(cell)
        else:
            hidden = sigmoid(o) * np.tanh(_ln(cell, ln_params[4], ln_params[5]))
        outputs.append(hidden)
    return outputs, np.concatenate([cell, hidden], axis=1)


@pytest.mark.parametrize("use_ln", [False, True])
def test_lstm_names_and_numerics(graph_sess, use_ln):
    graph, sess = graph_sess
    n_env, n_steps, n_in, n_hidden = 2, 3, 4, 5
    x = tf.placeholder(tf.float32, (n_env * n_steps, n_in))
    dones = tf.placeholder(tf.float32, (n_env * n_steps,))
    state = tf.placeholder(tf.float32, (n_env, 2 * n_hidden))
    outputs, new_state = lstm(batch_to_seq(x, n_env, n_steps), batch_to_seq(dones, n_env, n_steps), state,
                              "lstm1", n_hidden=n_hidden, layer_norm=use_ln)
    expected_names = ['lstm1/wx:0', 'lstm1/wh:0', 'lstm1/b:0']
    if use_ln:
        expected_names += ['lstm1/gx:0', 'lstm1/bx:0', 'lstm1/gh:0', 'lstm1/bh:0', 'lstm1/gc:0', 'lstm1/bc:0']
    assert _names(graph) == expected_names
    sess.run(tf.global_variables_initializer())
    variables = graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
    rng = np.random.RandomState(5)
    # non-trivial layer-norm parameters and bias
    sess.run([tf.assign(var, rng.randn(*var.shape.as_list()).astype(np.float32)) for var in variables[2:]])
    params = sess.run(variables)
    data = rng.randn(n_env * n_steps, n_in).astype(np.float32)
    done_data = np.array([0, 1, 0, 0, 0, 1], np.float32)
    state_data = rng.randn(n_env, 2 * n_hidden).astype(np.float32)
    outs, new_state_value = sess.run([outputs, new_state], {x: data, dones: done_data, state: state_data})
    xs = [data.reshape(n_env, n_steps, n_in)[:, t] for t in range(n_steps)]
    masks = [done_data.reshape(n_env, n_steps)[:, t:t + 1] for t in range(n_steps)]
    exp_outs, exp_state = _numpy_lstm(xs, masks, state_data, *params[:3],
                                      ln_params=params[3:] if use_ln else None)
    for out, exp in zip(outs, exp_outs):
        np.testing.assert_allclose(out, exp, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(new_state_value, exp_state, rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------------------------------------
# tf_util
# ------------------------------------------------------------------------------------------------
def test_make_session_config(monkeypatch):
    import os
    graph = tf.Graph()
    # the default thread count: RCALL_NUM_CPU when set (the suite sets it, tests/conftest.py), else every core
    for rcall, expected in ((None, os.cpu_count()), ("3", 3)):
        if rcall is None:
            monkeypatch.delenv("RCALL_NUM_CPU", raising=False)
        else:
            monkeypatch.setenv("RCALL_NUM_CPU", rcall)
        sess = tf_util.make_session(graph=graph)
        try:
            assert sess.graph is graph
            config = sess._config  # pylint: disable=protected-access
            assert config.inter_op_parallelism_threads == expected
            assert config.intra_op_parallelism_threads == expected
            assert config.allow_soft_placement
            assert config.gpu_options.allow_growth
        finally:
            sess.close()
    sess = tf_util.single_threaded_session(graph=graph)
    try:
        assert sess._config.intra_op_parallelism_threads == 1  # pylint: disable=protected-access
    finally:
        sess.close()
    with pytest.raises(ValueError, match="num_cpu"):
        tf_util.make_session(num_cpu=-1, graph=graph)


@pytest.mark.skipif(bool(tf.config.list_physical_devices("GPU")), reason="the remapper stays on where a GPU is visible")
def test_sessions_run_dense_layers_as_separate_kernels():
    """On a CPU, make_session turns the remapper off: a dense layer runs MatMul, BiasAdd and Relu, not a fused op."""
    graph = tf.Graph()
    with graph.as_default():
        inputs = tf.placeholder(tf.float32, [None, 4])
        kernel = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        bias = tf.constant(np.array([0.5, -0.5, 0.25], dtype=np.float32))
        output = tf.nn.relu(tf.nn.bias_add(tf.matmul(inputs, kernel), bias))
    sess = tf_util.single_threaded_session(graph=graph)
    try:
        rewrite_options = sess._config.graph_options.rewrite_options  # pylint: disable=protected-access
        assert rewrite_options.remapping == type(rewrite_options).OFF
        metadata = tf.RunMetadata()
        data = np.arange(8, dtype=np.float32).reshape(2, 4)
        value = sess.run(output, {inputs: data}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                         run_metadata=metadata)
    finally:
        sess.close()
    kernels = [node.timeline_label for device in metadata.step_stats.dev_stats for node in device.node_stats]
    assert not any("Fused" in label for label in kernels)
    assert any("BiasAdd" in label for label in kernels)
    expected = np.maximum(data @ np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3) + [0.5, -0.5, 0.25], 0)
    np.testing.assert_allclose(value, expected, rtol=1e-6)


def test_tf_remapper_can_be_kept(monkeypatch):
    """STABLE_BASELINES_TF_REMAPPER=1: make_session leaves TensorFlow's default graph optimisation."""
    graph = tf.Graph()
    for setting, expected_off in (("1", False), ("on", False), ("0", True), ("", True)):
        monkeypatch.setenv("STABLE_BASELINES_TF_REMAPPER", setting)
        sess = tf_util.single_threaded_session(graph=graph)
        try:
            rewrite_options = sess._config.graph_options.rewrite_options  # pylint: disable=protected-access
            is_off = rewrite_options.remapping == type(rewrite_options).OFF
        finally:
            sess.close()
        assert is_off == (expected_off and not tf.config.list_physical_devices("GPU")), setting


def test_function_inputs_outputs_givens(graph_sess):
    _, sess = graph_sess
    x = tf.placeholder(tf.int32, (), name="x")
    y = tf.placeholder(tf.int32, (), name="y")
    z = 3 * x + 2 * y
    lin = tf_util.function([x, y], z, givens={y: 0})
    with sess.as_default():
        assert lin(2) == 6
        assert lin(x=3) == 9
        assert lin(2, 2) == 10
        both = tf_util.function([x, y], [z, x * y])
        assert both(1, 2) == [7, 2]
        as_tuple = tf_util.function([x, y], (z, x * y))
        assert as_tuple(1, 2) == (7, 2)
        as_dict = tf_util.function([x, y], {"z": z, "p": x * y})
        assert as_dict(2, 3) == {"z": 12, "p": 6}
        with pytest.raises(TypeError, match="Too many arguments"):
            lin(1, 2, 3)
        with pytest.raises(TypeError, match="Unknown input 'w'"):
            lin(w=1)
    # explicit session, no default
    assert lin(4, sess=sess) == 12
    counter = tf.Variable(0, name="counter")
    sess.run(counter.initializer)
    inc = tf_util.function([x], x, updates=[tf.assign_add(counter, 1)])
    assert inc(5, sess=sess) == 5 and inc(5, sess=sess) == 5
    assert sess.run(counter) == 2


def test_initialize_only_new_variables(graph_sess):
    _, sess = graph_sess
    var_a = tf.Variable(1.0, name="a")
    with sess.as_default():
        tf_util.initialize()
        sess.run(tf.assign(var_a, 5.0))
        var_b = tf.Variable(2.0, name="b")
        tf_util.initialize()
        assert sess.run([var_a, var_b]) == [5.0, 2.0]


def test_flat_helpers(graph_sess):
    _, sess = graph_sess
    var_1 = tf.Variable(np.ones((2, 3), np.float32))
    var_2 = tf.Variable(np.zeros((4,), np.float32))
    loss = tf.reduce_sum(tf.square(var_1)) + tf.reduce_sum(var_2 * 3.0)
    grad = tf_util.flatgrad(loss, [var_1, var_2])
    clipped = tf_util.flatgrad(loss, [var_1, var_2], clip_norm=1.0)
    unused = tf.Variable(np.zeros((2,), np.float32))
    with_unused = tf_util.flatgrad(loss, [var_1, unused])
    sess.run(tf.global_variables_initializer())
    np.testing.assert_allclose(sess.run(grad), [2.0] * 6 + [3.0] * 4)
    clipped_value = sess.run(clipped)
    np.testing.assert_allclose(np.linalg.norm(clipped_value[:6]), 1.0, rtol=1e-5)
    np.testing.assert_allclose(sess.run(with_unused), [2.0] * 6 + [0.0] * 2)
    get_flat = tf_util.GetFlat([var_1, var_2], sess=sess)
    set_from_flat = tf_util.SetFromFlat([var_1, var_2], sess=sess)
    theta = np.arange(10, dtype=np.float32)
    set_from_flat(theta)
    np.testing.assert_allclose(get_flat(), theta)
    np.testing.assert_allclose(sess.run(var_1), theta[:6].reshape(2, 3))
    assert tf_util.numel(var_1) == 6 and tf_util.var_shape(var_2) == [4] and tf_util.intprod([2, 3, 4]) == 24


def test_small_ops(graph_sess):
    _, sess = graph_sess
    values = tf.constant([-3.0, -0.5, 0.2, 2.0])
    logits = tf.constant([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    outputs = sess.run({
        "huber": tf_util.huber_loss(values),
        "leaky": tf_util.leaky_relu(values),
        "mse": tf_util.mse(values, tf.zeros(4)),
        "avg_norm": tf_util.avg_norm(tf.constant([[3.0, 4.0], [6.0, 8.0]])),
        "entropy": tf_util.calc_entropy(logits),
        "switch": tf_util.switch(tf.constant(True), values, -values),
        "qev": tf_util.q_explained_variance(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[1.0, 2.0], [3.0, 5.0]])),
    })
    np.testing.assert_allclose(outputs["huber"], [2.5, 0.125, 0.02, 1.5], rtol=1e-6)
    np.testing.assert_allclose(outputs["leaky"], [-0.6, -0.1, 0.2, 2.0], rtol=1e-6)
    np.testing.assert_allclose(outputs["mse"], np.mean(np.square([-3.0, -0.5, 0.2, 2.0])), rtol=1e-6)
    np.testing.assert_allclose(outputs["avg_norm"], 7.5, rtol=1e-6)
    probs = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    np.testing.assert_allclose(outputs["entropy"], [-(probs * np.log(probs)).sum(), np.log(3)], rtol=1e-5)
    np.testing.assert_allclose(outputs["switch"], [-3.0, -0.5, 0.2, 2.0])
    true = np.array([[1.0, 2.0], [3.0, 5.0]])
    np.testing.assert_allclose(outputs["qev"], 1 - np.var(true - [[1, 2], [3, 4]]) / np.var(true), rtol=1e-5)
    samples = sess.run(tf_util.sample(tf.constant([[0.0, 50.0, 0.0]] * 5)))
    assert samples.tolist() == [1] * 5
    assert tf_util.gradient_add(None, None, None) is None
    assert tf_util.gradient_add(1, None, None) == 1 and tf_util.gradient_add(None, 2, None) == 2
    assert tf_util.gradient_add(1, 2, None) == 3
    with pytest.raises(AssertionError, match="expected shape"):
        tf_util.check_shape([values], [[3]])
    assert tf_util.is_image(np.zeros((8, 8, 3))) and not tf_util.is_image(np.zeros((8, 8)))
    assert tf_util.is_image(tf.placeholder(tf.float32, (8, 8, 1)))
    assert isinstance(tf_util.get_available_gpus(), list)


def test_scope_helpers():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, (None, 2))
        with tf.variable_scope("model"):
            linear(x, "a", 3)
            tf.get_variable("counter", (), trainable=False)
        with tf.variable_scope("train_model", reuse=True, custom_getter=tf_util.outer_scope_getter("train_model")):
            with tf.variable_scope("model"):
                linear(x, "a", 3)
        with tf.variable_scope("other", custom_getter=tf_util.outer_scope_getter("other", "renamed/")):
            tf.get_variable("v", ())
        assert [v.name for v in tf_util.get_trainable_vars("model")] == ['model/a/w:0', 'model/a/b:0']
        assert [v.name for v in tf_util.get_globals_vars("model")] == ['model/a/w:0', 'model/a/b:0',
                                                                       'model/counter:0']
        assert [v.name for v in tf_util.get_globals_vars("renamed")] == ['renamed/v:0']


class _FakeWriter:
    def __init__(self):
        self.entries = []

    def add_summary(self, summary, step):
        for value in summary.value:
            self.entries.append((value.tag, round(value.simple_value, 5), step))


def test_total_episode_reward_logger():
    writer = _FakeWriter()
    rew_acc = np.array([10.0, 0.0])
    rewards = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0]])
    masks = np.array([[False, True, False, True], [False, False, False, False]])
    out = tf_util.total_episode_reward_logger(rew_acc, rewards, masks, writer, steps=100)
    # env 0: first episode ends at index 1 with 10 + 1; the next one is rewards[1:3]; then rewards[3:] stays
    assert writer.entries == [("episode_reward", 11.0, 101), ("episode_reward", 5.0, 103)]
    np.testing.assert_allclose(out, [4.0, 4.0])
    with pytest.raises(ValueError, match="shape"):
        tf_util.total_episode_reward_logger(rew_acc, rewards, masks[:, :2], writer, steps=0)


def test_in_session_decorator():
    @tf_util.in_session
    def build():
        assert tf.get_default_session() is not None
        return tf.get_default_session().run(tf.constant(3) * 2)

    assert build() == 6
