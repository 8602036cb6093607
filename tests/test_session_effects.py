"""
The one choke point of session calls (common/engine/tf_run.py): what a call draws and writes is found from the graph,
counted and reported by ``session_run``, ``FeedCallable`` and ``function``, never by the algorithms.
"""
import numpy as np
import pytest

from stable_baselines import TD3
from stable_baselines.common import tf_util
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.engine.tf_random_draws import session_draws
from stable_baselines.common.engine.tf_run import CallEffects, session_run, watch_writes


class _Watcher:
    def __init__(self):
        self.told = []

    def variables_written(self, names):
        self.told.append(names)


@pytest.fixture
def small_graph():
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        obs = tf.placeholder(tf.float32, [None, 3], name="obs")
        weight = tf.get_variable("weight", [3], initializer=tf.zeros_initializer())
        other = tf.get_variable("other", [], initializer=tf.zeros_initializer())
        noise = tf.random_normal(tf.shape(obs), name="noise")
        out = tf.reduce_sum(obs * weight + noise, axis=1)
        step = tf.assign_add(weight, tf.reduce_mean(obs, axis=0))
        bump = tf.assign_add(other, 1.0)
        random_op = next(op for op in graph.get_operations() if op.type == "RandomStandardNormal")
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    yield {"graph": graph, "sess": sess, "obs": obs, "out": out, "step": step, "bump": bump,
           "weight": weight, "noise": random_op}
    sess.close()


def test_effects_of_fetches(small_graph):
    """The random ops behind the fetches and the variables their ops write, found by walking the graph."""
    g = small_graph
    with g["graph"].as_default():
        reading = CallEffects([g["out"]])
        assert set(reading.drawn) == {g["noise"].name} and reading.drawn[g["noise"].name] == (3, True)
        assert reading.written == frozenset() and reading.active
        writing = CallEffects([g["step"].op])
        assert writing.drawn == {} and writing.written == frozenset({g["weight"].op.name})
        assert not CallEffects([g["weight"].op]).active


def test_session_run_counts_and_tells(small_graph):
    """session_run counts the rows drawn (first fed value) and tells the watchers only of calls that write."""
    g = small_graph
    watcher = _Watcher()
    watch_writes(g["sess"], watcher)
    values = session_run(g["sess"], g["out"], {g["obs"]: np.ones((5, 3), np.float32)})
    assert values.shape == (5,)
    assert session_draws(g["sess"]) == {g["noise"].name: 15}
    assert watcher.told == []
    session_run(g["sess"], [g["step"], g["out"]], {g["obs"]: np.ones((2, 3), np.float32)})
    assert session_draws(g["sess"]) == {g["noise"].name: 21}
    assert watcher.told == [frozenset({g["weight"].op.name})]
    session_run(g["sess"], {"bumped": g["bump"]})
    assert len(watcher.told) == 2 and g["weight"].op.name not in watcher.told[1]
    tf_util.variables_written(g["sess"])
    assert watcher.told[-1] is None


def test_callables_report_like_session_run(small_graph):
    """A FeedCallable and a function report their calls as session_run does."""
    g = small_graph
    watcher = _Watcher()
    watch_writes(g["sess"], watcher)
    call = tf_util.feed_callable(g["sess"], [g["out"], g["step"]], [g["obs"]])
    call(np.ones((4, 3), np.float32))
    assert session_draws(g["sess"]) == {g["noise"].name: 12}
    assert watcher.told == [frozenset({g["weight"].op.name})]
    with g["graph"].as_default():
        func = tf_util.function([g["obs"]], g["out"])
    func(np.ones((1, 3), np.float32), sess=g["sess"])
    assert session_draws(g["sess"]) == {g["noise"].name: 15}
    assert len(watcher.told) == 1


def test_td3_copy_stale_only_after_actor_writes():
    """A critic-only step of TD3 leaves the actor's NumPy copy fresh; the delayed actor step marks it stale."""
    model = TD3("MlpPolicy", "Pendulum-v1", learning_starts=10, policy_delay=2, seed=0, n_cpu_tf_sess=1)
    copy = model.fast_path.copy_of(model.policy_tf)
    if copy is None:
        pytest.skip("the NumPy path is off")
    model.learn(20)
    obs = model.observation_space.sample()[None]
    with model.graph.as_default():
        critic_step = model._critics_update  # pylint: disable=protected-access
        actor_step = model.policy_train_op
    model.policy_tf.step(obs)  # the copy reads its weights
    assert not copy.stale
    batch = model.replay_buffer.sample(model.batch_size)
    feed = dict(zip(model._minibatch_feeds(),  # pylint: disable=protected-access
                    model._minibatch_values(batch, 0.0)))  # pylint: disable=protected-access
    session_run(model.sess, critic_step, feed)
    assert not copy.stale
    session_run(model.sess, actor_step, feed)
    assert copy.stale
    graph_action = model.sess.run(model.policy_tf.policy, {model.policy_tf.obs_ph: obs})
    np.testing.assert_allclose(model.policy_tf.step(obs), graph_action, rtol=1e-5, atol=1e-6)


def test_the_assignment_of_a_resource_variable_is_a_write():
    """``assign`` of a resource variable (every variable in TF-2 behaviour) gives a variable, not a tensor."""
    graph = tf.Graph()
    with graph.as_default():
        value = tf.placeholder(tf.float32, [3])
        variable = tf.Variable(np.zeros(3, np.float32), use_resource=True, name="resource")
        assignment = variable.assign(value)
        assert not isinstance(assignment, (tf.Tensor, tf.Operation))
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
        assert CallEffects([assignment]).written == frozenset({variable.op.name})
    watcher = _Watcher()
    watch_writes(sess, watcher)
    session_run(sess, [assignment], {value: np.ones(3, np.float32)})
    assert watcher.told == [frozenset({variable.op.name})]
    np.testing.assert_array_equal(sess.run(variable), np.ones(3, np.float32))
    sess.close()
