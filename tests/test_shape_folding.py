"""The shape arithmetic of a repeated step, settled while the loop is built (common/engine/shape_folding.py)."""
import numpy as np
import pytest

from stable_baselines.common.engine.repeated_step import RepeatedStep
from stable_baselines.common.engine.shape_folding import ShapeFolder
from stable_baselines.common.tf_compat import tf


def _dense_step(graph: tf.Graph):
    """A broadcasting regression step (bias added to every row, mean loss, Adam, clipped gradients)."""
    with graph.as_default():
        inputs = tf.placeholder(tf.float32, [None, 3], name="x")
        targets = tf.placeholder(tf.float32, [None], name="y")
        rate = tf.placeholder(tf.float32, [], name="rate")
        kernel = tf.Variable(np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(3, 2), name="kernel")
        bias = tf.Variable(np.array([0.1, -0.2], dtype=np.float32), name="bias")
        hidden = tf.tanh(tf.matmul(inputs, kernel) + bias)
        prediction = tf.reduce_sum(hidden * 0.5, axis=1)
        loss = tf.reduce_mean(tf.square(prediction - targets))
        optimizer = tf.train.AdamOptimizer(rate)
        grads, params = zip(*optimizer.compute_gradients(loss, [kernel, bias]))
        grads, _ = tf.clip_by_global_norm(grads, 0.5)
        update = optimizer.apply_gradients(list(zip(grads, params)))
    return inputs, targets, rate, loss, update


def _loop_types(graph: tf.Graph, scope: str):
    return [op.type for op in graph.get_operations() if op.name.startswith(scope + "/while/")]


@pytest.mark.parametrize("rows_per_step", [None, 4])
def test_folded_loop_trains_like_the_step_bit_for_bit(rows_per_step):
    data = np.random.RandomState(0).normal(size=(8, 3)).astype(np.float32)
    labels = np.random.RandomState(1).normal(size=8).astype(np.float32)
    indices = np.array([[0, 1, 2, 3], [4, 5, 6, 7], [7, 2, 5, 0]], dtype=np.int32)
    results = {}
    for mode in ("step", "loop"):
        graph = tf.Graph()
        inputs, targets, rate, loss, update = _dense_step(graph)
        with graph.as_default():
            if mode == "loop":
                repeated = RepeatedStep([loss], update, gathered=[inputs, targets], constants=[rate], name="loop",
                                        rows_per_step=rows_per_step)
            sess = tf.Session(graph=graph)
            sess.run(tf.global_variables_initializer())
            if mode == "loop":
                losses = sess.run(repeated.stats, dict(zip(repeated.feeds + [rate], [indices, data, labels, 0.01])))
                losses = list(losses[:, 0])
            else:
                losses = [sess.run([loss, update], {inputs: data[rows], targets: labels[rows], rate: 0.01})[0]
                          for rows in indices]
            results[mode] = (np.array(losses, dtype=np.float32),
                             [sess.run(var) for var in tf.trainable_variables()])
    assert results["loop"][0].view(np.uint32).tolist() == results["step"][0].view(np.uint32).tolist()
    for looped, stepped in zip(results["loop"][1], results["step"][1]):
        np.testing.assert_array_equal(looped.view(np.uint32), stepped.view(np.uint32))


def test_static_rows_leave_no_shape_arithmetic_in_the_body():
    graph = tf.Graph()
    inputs, targets, rate, loss, update = _dense_step(graph)
    with graph.as_default():
        dynamic = RepeatedStep([loss], update, gathered=[inputs, targets], constants=[rate], name="dynamic")
        static = RepeatedStep([loss], update, gathered=[inputs, targets], constants=[rate], name="static",
                              rows_per_step=4)
    # integer and scalar constants are made outside the loop even without static shapes
    assert dynamic.folder.n_hoisted > 0 and dynamic.folder.n_forwarded == 0
    dynamic_types, static_types = _loop_types(graph, "dynamic"), _loop_types(graph, "static")
    # with unknown batch sizes, the gradient's shape program stays (it is only computed at run time)
    assert dynamic_types.count("Shape") > 0 and dynamic_types.count("BroadcastGradientArgs") > 0
    assert static.folder.n_folded > 0 and static.folder.n_forwarded > 0 and static.folder.n_hoisted > 0
    assert static_types.count("Shape") == 0 and static_types.count("BroadcastGradientArgs") == 0
    assert len(static_types) < len(dynamic_types)
    # the settled values are made outside the loop and reach it through a PlaceholderWithDefault
    folded = [op for op in graph.get_operations() if op.name.startswith("static/folded")]
    assert folded and all(op._get_control_flow_context() is None for op in folded)  # pylint: disable=protected-access
    entries = [op for op in graph.get_operations() if op.type == "Enter" and op.name.startswith("static/")
               and op.inputs[0].op.type == "PlaceholderWithDefault"]
    assert entries


def test_float_arrays_are_copied_and_integers_settled():
    graph = tf.Graph()
    with graph.as_default():
        data = tf.placeholder(tf.float32, [5, 2])
        table = tf.constant(np.ones((5, 2), dtype=np.float32))
        shape = tf.shape(data)
        folder = ShapeFolder(graph, None)
        assert folder.outputs_of(table.op, []) is None
        settled = folder.outputs_of(shape.op, [data])
        reshaped = tf.reshape(data, [-1, 2])
        forwarded = folder.outputs_of(reshaped.op, list(reshaped.op.inputs))
        summed = tf.reduce_sum(data, axis=[])
        forwarded_sum = folder.outputs_of(summed.op, list(summed.op.inputs))
        kept = tf.reshape(data, [2, 5])
        copied = folder.outputs_of(kept.op, list(kept.op.inputs))
        folder.close()
    assert settled is not None and folder.value(settled[0]).tolist() == [5, 2]
    assert forwarded == [data] and forwarded_sum == [data]
    assert copied is None


def test_evaluated_integer_program_uses_tensorflow_kernels():
    graph = tf.Graph()
    with graph.as_default():
        left = tf.placeholder(tf.float32, [4, 1, 3])
        right = tf.placeholder(tf.float32, [1, 2, 3])
        args = tf.raw_ops.BroadcastGradientArgs(s0=tf.shape(left), s1=tf.shape(right))
        folder = ShapeFolder(graph, None)
        shapes = [folder.outputs_of(tf.shape(left).op, [left])[0], folder.outputs_of(tf.shape(right).op, [right])[0]]
        reduced = folder.outputs_of(args[0].op, shapes)
        folder.close()
    assert reduced is not None
    assert folder.value(reduced[0]).tolist() == [1] and folder.value(reduced[1]).tolist() == [0]


@pytest.mark.parametrize("rows", [0, -4, 2.5, True, "4"])
def test_rows_per_step_must_be_a_positive_int(rows):
    graph = tf.Graph()
    inputs, targets, rate, loss, update = _dense_step(graph)
    with graph.as_default(), pytest.raises(ValueError, match="rows_per_step must be a positive int or None, got"):
        RepeatedStep([loss], update, gathered=[inputs, targets], constants=[rate], rows_per_step=rows)


def test_a_kernel_answer_is_asked_once_and_the_loop_is_the_same(monkeypatch):
    """Models of the same sizes ask the kernels the same questions: the second loop asks none, and is the same."""
    from stable_baselines.common.engine import shape_folding

    monkeypatch.setattr(shape_folding, "_KERNEL_ANSWERS", {})
    asked = []
    run_kernel = ShapeFolder._run_kernel
    monkeypatch.setattr(ShapeFolder, "_run_kernel", lambda self, op, *args: asked.append(op.type) or
                        run_kernel(self, op, *args))
    built = []
    for _ in range(2):
        graph = tf.Graph()
        inputs, targets, rate, loss, update = _dense_step(graph)
        with graph.as_default():
            RepeatedStep([loss], update, gathered=[inputs, targets], constants=[rate], name="loop", rows_per_step=4)
        built.append((len(asked), [(op.name, op.type, [tensor.name for tensor in op.inputs],
                                    sorted((key, value.SerializeToString()) for key, value in op.node_def.attr.items()))
                                   for op in graph.get_operations()]))
    (first_asked, first_ops), (both_asked, second_ops) = built
    assert first_asked > 0 and both_asked == first_asked  # the second loop took every answer from the first
    assert second_ops == first_ops
