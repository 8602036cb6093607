"""
The fast paths of the off-policy algorithms (DQN, SAC, TD3): acting in NumPy from a copy of the weights that
every training step hands over (one session call per gradient step), the fallback to the graph, and the
array-backed replay buffer.
"""
import pickle

import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import DQN, SAC, TD3
from stable_baselines.common.engine import numpy_forward as nf
from stable_baselines.common.buffers import PrioritizedReplayBuffer, ReplayBuffer
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.identity_env import IdentityEnv
from stable_baselines.common.tf_compat import tf

CONTINUOUS = [(SAC, "MlpPolicy"), (SAC, "LnMlpPolicy"), (TD3, "MlpPolicy"), (TD3, "LnMlpPolicy")]
DISCRETE = [("MlpPolicy", {}), ("MlpPolicy", dict(dueling=False)), ("LnMlpPolicy", {}),
            ("MlpPolicy", dict(layers=[16, 8, 4], act_fun=tf.nn.tanh))]


def _observations(env_id, n=16, seed=0):
    space = make_env(env_id).observation_space
    space.seed(seed)
    return np.array([space.sample() for _ in range(n)])


def _graph_actor(model, obs):
    """The deterministic action of the graph (SAC: tanh of the mean; TD3: the actor)."""
    policy = model.policy_tf
    tensor = policy.deterministic_policy if isinstance(model, SAC) else policy.policy
    return model.sess.run(tensor, {policy.obs_ph: obs})


def _numpy_actor(model, obs):
    out = model.policy_tf._numpy_forward.step(obs) if isinstance(model, TD3) else \
        model.policy_tf._numpy_forward.step(obs, deterministic=True)
    assert out is not None
    return out


def _numpy_actor_rows(model, obs):
    """The actor through the single-row path of predict, one observation at a time (SAC's mean, TD3's action)."""
    forward = model.policy_tf._numpy_forward
    rows = [np.tanh(forward.row_forward(row)) for row in obs]
    assert isinstance(forward._row, nf.SingleRowStack)
    return np.concatenate(rows, axis=0)


def _randomize(model, scale=0.3, seed=1):
    """Give the model random weights (through load_parameters, which refreshes the NumPy copies)."""
    rng = np.random.RandomState(seed)
    params = model.get_parameters()
    model.load_parameters({name: (value + scale * rng.randn(*value.shape)).astype(value.dtype)
                           for name, value in params.items()})


# ----------------------------------------------------------------------------------------------
# NumPy acting == graph acting
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model_class,policy", CONTINUOUS)
def test_continuous_actor_numpy_equals_graph(model_class, policy):
    model = model_class(policy, "Pendulum-v1", seed=0, n_cpu_tf_sess=1)
    assert model.policy_tf._numpy_forward is not None
    _randomize(model)
    obs = _observations("Pendulum-v1")
    np.testing.assert_allclose(_numpy_actor(model, obs), _graph_actor(model, obs), rtol=1e-5, atol=1e-6)
    # predict goes through the NumPy path and rescales as before (one observation: the single-row path)
    action, _ = model.predict(obs[0])
    space = model.action_space
    expected = space.low + (_graph_actor(model, obs[:1])[0] + 1.0) * 0.5 * (space.high - space.low)
    np.testing.assert_allclose(action, expected, rtol=1e-5, atol=1e-5)
    assert action.shape == space.shape and action.dtype == np.float32
    row = model.policy_tf._numpy_forward._row
    if policy == "MlpPolicy":
        assert isinstance(row, nf.SingleRowStack)
    else:
        assert row is False  # layer normalisation: no single-row stack, the batch path answers
    batch_actions, _ = model.predict(obs[:3])
    np.testing.assert_allclose(np.stack([model.predict(o)[0] for o in obs[:3]]), batch_actions, rtol=1e-5, atol=1e-6)
    for bad in (obs[0].astype(np.float64), obs[0].tolist(), obs[0].reshape(1, -1)):
        np.testing.assert_allclose(np.asarray(model.predict(bad)[0]).reshape(-1), action, rtol=1e-5, atol=1e-6)
    if model_class is SAC:
        mean, std = model.policy_tf.proba_step(obs)
        graph_mean, graph_std = model.sess.run([model.policy_tf.act_mu, model.policy_tf.std],
                                               {model.policy_tf.obs_ph: obs})
        np.testing.assert_allclose(mean, graph_mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(std, graph_std, rtol=1e-5, atol=1e-6)


def test_sac_stochastic_numpy_actions_are_squashed_gaussian_samples():
    model = SAC("MlpPolicy", "Pendulum-v1", seed=0, n_cpu_tf_sess=1)
    # a Gaussian of mean 0.3 and std 0.5 before the tanh, whatever the observation
    params = model.get_parameters()
    for head, bias in (("dense", 0.3), ("dense_1", np.log(0.5))):
        params["model/pi/{}/kernel:0".format(head)][:] = 0.0
        params["model/pi/{}/bias:0".format(head)][:] = bias
    model.load_parameters(params)
    obs = np.repeat(_observations("Pendulum-v1", n=1), 4000, axis=0)
    samples = model.policy_tf.step(obs, deterministic=False)
    assert samples.shape == (4000, 1) and np.all(np.abs(samples) <= 1.0)
    pre_tanh = np.arctanh(samples.astype(np.float64))
    assert abs(pre_tanh.mean() - 0.3) < 5 * 0.5 / np.sqrt(4000)
    assert abs(pre_tanh.std() - 0.5) < 0.03
    # the noise comes from the model's seeded generator: same seed, same samples
    other = SAC("MlpPolicy", "Pendulum-v1", seed=0, n_cpu_tf_sess=1)
    other.load_parameters(model.get_parameters())
    np.testing.assert_array_equal(other.policy_tf.step(obs[:50], deterministic=False), samples[:50])


@pytest.mark.parametrize("policy,policy_kwargs", DISCRETE)
def test_dqn_q_values_numpy_equal_graph(policy, policy_kwargs):
    model = DQN(policy, "CartPole-v1", policy_kwargs=policy_kwargs, seed=0, n_cpu_tf_sess=1)
    step_model = model.step_model
    assert step_model._numpy_forward is not None
    _randomize(model)
    obs = _observations("CartPole-v1", n=32)
    graph_q, graph_proba = model.sess.run([step_model.q_values, step_model.policy_proba], {step_model.obs_ph: obs})
    actions, q_values, _ = step_model.step(obs, deterministic=True)
    np.testing.assert_allclose(q_values, graph_q, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(actions, np.argmax(graph_q, axis=1))
    np.testing.assert_allclose(model.action_probability(obs), graph_proba, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(model.predict(obs)[0], np.argmax(graph_q, axis=1))
    # one observation at a time: the single-row path (the greedy action from the action scores alone)
    singles = [model.predict(row) for row in obs]
    assert all(state is None and isinstance(action, np.int64) for action, state in singles)
    np.testing.assert_array_equal([action for action, _ in singles], np.argmax(graph_q, axis=1))
    row = step_model._numpy_forward._row
    assert (row is False) if policy == "LnMlpPolicy" else isinstance(row, nf.SingleRowStack)


def test_dqn_discrete_observations_numpy_equal_graph():
    model = DQN("MlpPolicy", IdentityEnv(5), seed=0, n_cpu_tf_sess=1)
    assert model.step_model._numpy_forward is not None
    _randomize(model)
    obs = np.arange(5)
    graph_q = model.sess.run(model.step_model.q_values, {model.step_model.obs_ph: obs})
    np.testing.assert_allclose(model.step_model.step(obs)[1], graph_q, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# weights in sync
# ----------------------------------------------------------------------------------------------
class _SyncCheck(BaseCallback):
    """At every step: the NumPy copy holds the graph's current weights (no re-read needed)."""

    def __init__(self, forward_of, obs, graph_fn, numpy_fn):
        super(_SyncCheck, self).__init__()
        self.forward_of, self.obs, self.graph_fn, self.numpy_fn = forward_of, obs, graph_fn, numpy_fn
        self.checked = 0

    def _on_step(self):
        forward = self.forward_of(self.model)
        if self.model.num_timesteps > 30:
            assert not forward.stale  # handed over by the training step, not re-read from the graph
            np.testing.assert_allclose(self.numpy_fn(self.model, self.obs), self.graph_fn(self.model, self.obs),
                                       rtol=1e-5, atol=1e-6)
            self.checked += 1
        return True


@pytest.mark.parametrize("model_class", [SAC, TD3])
def test_continuous_weights_in_sync_after_every_train_step(model_class):
    kwargs = dict(policy_delay=1, train_freq=1, gradient_steps=1) if model_class is TD3 else {}
    model = model_class("MlpPolicy", "Pendulum-v1", learning_rate=1e-2, learning_starts=20, batch_size=16,
                        seed=0, n_cpu_tf_sess=1, **kwargs)
    obs = _observations("Pendulum-v1")
    check = _SyncCheck(lambda m: m.policy_tf._numpy_forward, obs, _graph_actor, _numpy_actor)
    before = _graph_actor(model, obs)
    model.learn(60, callback=check)
    assert check.checked == 30
    row_check = _SyncCheck(lambda m: m.policy_tf._numpy_forward, obs[:4], _graph_actor, _numpy_actor_rows)
    model.learn(30, callback=row_check, reset_num_timesteps=False)
    assert row_check.checked == 30
    assert np.abs(_graph_actor(model, obs) - before).max() > 1e-3  # the actor did move


def test_dqn_weights_in_sync_after_every_train_step():
    model = DQN("MlpPolicy", "CartPole-v1", learning_rate=1e-2, learning_starts=20, batch_size=16, seed=0,
                n_cpu_tf_sess=1)
    obs = _observations("CartPole-v1")

    def graph_q(m, o):
        return m.sess.run(m.step_model.q_values, {m.step_model.obs_ph: o})

    check = _SyncCheck(lambda m: m.step_model._numpy_forward, obs, graph_q,
                       lambda m, o: m.step_model._numpy_forward.q_values(o))
    before = graph_q(model, obs)
    model.learn(60, callback=check)
    assert check.checked == 30 and np.abs(graph_q(model, obs) - before).max() > 1e-3
    # the single-row path of predict follows every training step too
    row_check = _SyncCheck(lambda m: m.step_model._numpy_forward, obs, lambda m, o: np.argmax(graph_q(m, o), axis=1),
                           lambda m, o: np.array([m.predict(row)[0] for row in o]))
    model.learn(30, callback=row_check, reset_num_timesteps=False)
    assert row_check.checked == 30


def test_dqn_stores_the_exploration_rate_like_the_act_graph():
    model = DQN("MlpPolicy", "CartPole-v1", learning_starts=10, exploration_fraction=0.5,
                exploration_final_eps=0.25, seed=0, n_cpu_tf_sess=1)
    model.learn(100)
    eps = model.get_parameters()["deepq/eps:0"]
    assert eps == pytest.approx(model.exploration.value(99), abs=1e-6)


@pytest.mark.parametrize("model_class", [SAC, TD3])
def test_numpy_copy_refreshed_after_load_parameters_and_load(model_class, tmp_path):
    model = model_class("MlpPolicy", "Pendulum-v1", seed=0, n_cpu_tf_sess=1)
    obs = _observations("Pendulum-v1")
    _numpy_actor(model, obs)  # the copy is now fresh
    _randomize(model, seed=3)  # load_parameters
    np.testing.assert_allclose(_numpy_actor(model, obs), _graph_actor(model, obs), rtol=1e-5, atol=1e-6)
    model.save(str(tmp_path / "model.zip"))
    loaded = model_class.load(str(tmp_path / "model.zip"))
    np.testing.assert_allclose(loaded.predict(obs)[0], model.predict(obs)[0], rtol=1e-5, atol=1e-6)
    # changing the variables behind the library's back: refresh_numpy_forward() makes the copy read them again
    with loaded.graph.as_default():
        kernel = [var for var in loaded.params if var.name == "model/pi/dense/bias:0"][0]
        loaded.sess.run(kernel.assign(kernel + 0.5))
    loaded.refresh_numpy_forward()
    np.testing.assert_allclose(_numpy_actor(loaded, obs), _graph_actor(loaded, obs), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_numpy_actor_rows(loaded, obs), _graph_actor(loaded, obs), rtol=1e-5, atol=1e-6)
    _randomize(loaded, seed=4)  # the single-row stack is rebuilt from the new weights too
    np.testing.assert_allclose(_numpy_actor_rows(loaded, obs), _graph_actor(loaded, obs), rtol=1e-5, atol=1e-6)


def test_tensorboard_path_keeps_numpy_copy_consistent(tmp_path):
    model = SAC("MlpPolicy", "Pendulum-v1", learning_rate=1e-2, learning_starts=10, batch_size=16, seed=0,
                n_cpu_tf_sess=1, tensorboard_log=str(tmp_path))
    model.learn(30)
    obs = _observations("Pendulum-v1")
    np.testing.assert_allclose(_numpy_actor(model, obs), _graph_actor(model, obs), rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# fallback to the graph
# ----------------------------------------------------------------------------------------------
def test_fallback_for_unsupported_policies(monkeypatch):
    # an activation with no NumPy twin
    model = SAC("MlpPolicy", "Pendulum-v1", policy_kwargs=dict(act_fun=lambda x: tf.nn.relu(x) * 0.5), seed=0)
    assert model.policy_tf._numpy_forward is None
    model.learn(120)
    assert model.predict(_observations("Pendulum-v1", n=1)[0])[0].shape == (1,)
    # disabled by the environment variable
    monkeypatch.setenv("STABLE_BASELINES_NUMPY_FORWARD", "0")
    model = TD3("MlpPolicy", "Pendulum-v1", seed=0)
    assert model.policy_tf._numpy_forward is None
    model.learn(120)
    dqn = DQN("MlpPolicy", "CartPole-v1", learning_starts=10, seed=0)
    assert dqn.step_model._numpy_forward is None
    dqn.learn(30)
    assert dqn.predict(_observations("CartPole-v1", n=1)[0])[0] in (0, 1)


def test_cnn_policies_use_the_graph():
    env = IdentityEnv(3)
    env.observation_space = spaces.Box(0, 255, (12, 12, 1), dtype=np.uint8)
    model = DQN("CnnPolicy", env, policy_kwargs=dict(cnn_extractor=_tiny_cnn), _init_setup_model=False)
    model.setup_model()
    assert model.step_model._numpy_forward is None
    actions, _ = model.predict(np.zeros((2, 12, 12, 1), dtype=np.uint8))
    assert actions.shape == (2,)


def _tiny_cnn(scaled_images, **_kwargs):
    from stable_baselines.common.tf_layers import conv, conv_to_fc, linear
    layer = tf.nn.relu(conv(scaled_images, "c1", n_filters=4, filter_size=3, stride=2))
    return tf.nn.relu(linear(conv_to_fc(layer), "fc1", n_hidden=8))


def test_bad_observation_falls_back_to_the_graph_error():
    model = TD3("MlpPolicy", "Pendulum-v1", seed=0)
    with pytest.raises(ValueError):
        model.predict(np.zeros(5))


# ----------------------------------------------------------------------------------------------
# replay buffer storage
# ----------------------------------------------------------------------------------------------
def test_buffer_arrays_and_list_view():
    buffer = ReplayBuffer(4)
    for i in range(6):
        buffer.add(np.full(3, i, np.float32), np.int64(i % 2), float(i), np.full(3, i + 1, np.float32), i == 5)
    assert buffer._arrays is not None and len(buffer.storage) == 4
    assert [float(t[2]) for t in buffer.storage] == [4.0, 5.0, 2.0, 3.0]
    assert [float(t[2]) for t in buffer.storage[1:3]] == [5.0, 2.0]
    assert float(buffer.storage[-1][2]) == 3.0 and bool(buffer.storage[1][4])
    with pytest.raises(IndexError):
        buffer.storage[4]  # pylint: disable=pointless-statement
    obs, act, rew, obs_tp1, done = buffer.sample(50)
    assert obs.dtype == np.float32 and act.dtype == np.int64 and rew.dtype == np.float32
    np.testing.assert_array_equal(obs_tp1, obs + 1)
    np.testing.assert_array_equal(done, (rew == 5.0).astype(np.float32))
    # pickling keeps everything
    clone = pickle.loads(pickle.dumps(buffer))
    assert len(clone) == 4
    for mine, theirs in zip(clone.storage, buffer.storage):
        for field_a, field_b in zip(mine, theirs):
            np.testing.assert_array_equal(field_a, field_b)


def test_buffer_falls_back_to_a_list_for_irregular_transitions():
    buffer = ReplayBuffer(5)
    buffer.add(np.zeros(2), 0, 1.0, np.zeros(2), False)
    buffer.add(np.zeros(3), 1, 2.0, np.zeros(3), True)  # another shape
    assert buffer._arrays is None and isinstance(buffer.storage, list) and len(buffer) == 2
    np.testing.assert_array_equal(buffer.storage[0][0], np.zeros(2))
    assert buffer.storage[1][2] == 2.0
    prioritized = PrioritizedReplayBuffer(4, alpha=0.6)
    prioritized.add({"a": 1}, 0, 0.0, {"a": 2}, False)  # objects
    assert isinstance(prioritized.storage, list) and len(prioritized) == 1


def test_buffer_unpickles_the_list_format():
    buffer = ReplayBuffer(3)
    state = {"_maxsize": 3, "_storage": [(np.zeros(2), np.ones(1), 1.0, np.ones(2), 0.0)], "_next_idx": 1}
    buffer.__setstate__(state)
    assert len(buffer) == 1 and buffer.storage[0][2] == 1.0
    buffer.add(np.zeros(2), np.ones(1), 2.0, np.ones(2), 1.0)
    assert len(buffer) == 2 and buffer.sample(4)[0].shape == (4, 2)


def test_feed_callable_skips_rechecks_but_still_casts_and_rejects():
    from stable_baselines.common.tf_util import feed_callable
    graph = tf.Graph()
    with graph.as_default():
        inp = tf.placeholder(tf.float32, [None, 2], name="x")
        out = tf.reduce_sum(inp, axis=1)
        sess = tf.Session(graph=graph)
    call = feed_callable(sess, [out], [inp])
    same_kind = np.array([[1.0, 2.0], [3.0, 4.5]], dtype=np.float32)
    np.testing.assert_array_equal(call(same_kind)[0], [3.0, 7.5])
    np.testing.assert_array_equal(call(same_kind * 2)[0], [6.0, 15.0])  # taken as it is: shape seen before
    np.testing.assert_array_equal(call([[1, 1], [2, 2]])[0], [2.0, 4.0])  # a list is converted
    np.testing.assert_array_equal(call(np.ones((3, 2), dtype=np.float64))[0], [2.0, 2.0, 2.0])  # cast
    np.testing.assert_array_equal(call(np.ones((3, 2), dtype=np.float32))[0], [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        call(np.ones((3, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        call(np.ones(2, dtype=np.float32))
    sess.close()


def test_session_call_runs_update_tensors_without_fetching_them():
    from stable_baselines.common.model.session_call import SessionCall
    graph = tf.Graph()
    with graph.as_default():
        inp = tf.placeholder(tf.float32, [], name="x")
        counter = tf.Variable(np.zeros(1000, dtype=np.float32))
        increment = tf.assign_add(counter, tf.fill([1000], inp))
        total = tf.reduce_sum(inp * 2.0)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    call = SessionCall(sess, [inp], {"total": total}, [increment])
    assert call(1.5) == {"total": 3.0}
    assert call._run.fetches[1] is increment.op  # run as a target: its 1000 values never leave the session
    np.testing.assert_array_equal(sess.run(counter), np.full(1000, 1.5, dtype=np.float32))
    assert SessionCall(sess, [inp], [total], [increment])(0.5) == [1.0]
    np.testing.assert_array_equal(sess.run(counter), np.full(1000, 2.0, dtype=np.float32))
    sess.close()


def test_polyak_fresh_reads_see_the_updates_they_follow():
    from stable_baselines.common.engine.target_updates import polyak_updates
    graph = tf.Graph()
    with graph.as_default():
        source = tf.Variable(np.array([1.0, 2.0], dtype=np.float32))
        target = tf.Variable(np.array([10.0, 20.0], dtype=np.float32))
        bump = tf.assign_add(source, [1.0, 1.0])
        with tf.control_dependencies([bump]):
            update, = polyak_updates([source], [target], 0.25, fresh_reads=True)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    sess.run(update.op)
    source_after = np.array([2.0, 3.0], dtype=np.float32)
    expected = np.float32(0.75) * np.array([10.0, 20.0], dtype=np.float32) + np.float32(0.25) * source_after
    np.testing.assert_array_equal(sess.run(target), expected)
    # no read op of their own: the arithmetic takes the variables' references
    assert not any(op.type == "Identity" for op in graph.get_operations() if op.name.startswith("read"))
    sess.close()


class _CopyOf:
    """A stand-in NumPy copy: the variables it reads and the flat weights it was given."""

    def __init__(self, variables):
        self.variables = variables
        self.given = None

    def set_flat_weights(self, flat):
        self.given = flat


def test_session_call_refresh_fetches_and_hands_over_the_weights():
    from types import SimpleNamespace

    from stable_baselines.common.model.session_call import SessionCall
    graph = tf.Graph()
    with graph.as_default():
        inp = tf.placeholder(tf.float32, [], name="x")
        weight = tf.Variable(np.zeros((2, 2), dtype=np.float32))
        bias = tf.Variable(np.zeros(3, dtype=np.float32))
        step = tf.group(tf.assign_add(weight, tf.fill([2, 2], inp)), tf.assign_add(bias, tf.fill([3], 2 * inp)))
        policy = SimpleNamespace(numpy_forward=_CopyOf([weight, bias]))
        sess = tf.Session(graph=graph)
        named = SessionCall(sess, [inp], {"x2": inp * 2.0}, [step], refresh=("weights", policy))
        listed = SessionCall(sess, [inp], [inp * 3.0], [step], refresh=("weights", policy))
        no_copy = SessionCall(sess, [inp], [inp], [step], refresh=("weights", SimpleNamespace(numpy_forward=None)))
        sess.run(tf.global_variables_initializer())
    out = named(1.0)
    assert set(out) == {"x2", "weights"} and out["x2"] == 2.0
    np.testing.assert_array_equal(policy.numpy_forward.given, [1, 1, 1, 1, 2, 2, 2])  # read after the updates
    assert out["weights"] is policy.numpy_forward.given
    value, weights = listed(0.5)
    assert value == 1.5
    np.testing.assert_array_equal(weights, [1.5] * 4 + [3] * 3)
    assert weights is policy.numpy_forward.given
    assert no_copy(1.0) == [1.0]  # a policy without a copy: nothing more fetched
    sess.close()


def test_dqn_fused_step_gives_the_numpy_copy_its_weights():
    """The fused training step of DQN leaves the NumPy Q-network with the graph's new weights, without a read."""
    model = DQN("MlpPolicy", "CartPole-v1", learning_starts=10, seed=0, n_cpu_tf_sess=1)
    copy = model.fast_path.copy_of(model.step_model)
    if copy is None:
        pytest.skip("the NumPy path is off")
    model.learn(20)
    obs, actions, rewards, next_obs, dones = model.replay_buffer.sample(32)
    out = model._fused_train(obs, actions, rewards, next_obs, next_obs, dones,  # pylint: disable=protected-access
                             np.ones(32, dtype=np.float32))
    assert set(out) == {"td_errors", "q_weights"}
    assert not copy.stale
    graph_weights = np.concatenate([value.reshape(-1) for value in model.sess.run(copy.variables)])
    np.testing.assert_array_equal(out["q_weights"], graph_weights)
