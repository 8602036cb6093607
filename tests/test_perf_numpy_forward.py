"""
The NumPy inference path of feed-forward actor-critic policies (common/engine/numpy_forward.py,
FeedForwardPolicy.enable_numpy_forward) gives the graph's answers, falls back to the graph for
what it does not support, and is refreshed whenever the library changes the weights.
Also: tf_util.feed_callable, and the fast paths of DummyVecEnv.
"""
import os
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, PPO2
from stable_baselines.common.engine import numpy_forward as nf
from stable_baselines.common.identity_env import (IdentityEnv, IdentityEnvBox, IdentityEnvMultiBinary,
                                                  IdentityEnvMultiDiscrete)
from stable_baselines.common.policies import ActorCriticPolicy, FeedForwardPolicy, MlpLstmPolicy, MlpPolicy
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import feed_callable
from stable_baselines.common.vec_env import DummyVecEnv

ENVS = {
    "discrete": lambda: IdentityEnv(3),
    "box": lambda: IdentityEnvBox(eps=0.5),
    "multidiscrete": lambda: IdentityEnvMultiDiscrete(2),
    "multibinary": lambda: IdentityEnvMultiBinary(3),
}

NET_ARCHS = [
    None,
    dict(net_arch=[16, dict(pi=[8], vf=[8, 4])], act_fun=tf.nn.relu),
    dict(net_arch=[dict(pi=[8], vf=[])], act_fun=tf.nn.elu),
    dict(net_arch=[12], act_fun=tf.tanh),
]


def _graph_outputs(policy, obs):
    """What the graph computes for obs (deterministic actions, values, probabilities)."""
    return policy.sess.run([policy.deterministic_action, policy.value_flat, policy.policy_proba],
                           {policy.obs_ph: obs})


def _obs_batch(model, n_rows=7):
    space = model.observation_space
    space.seed(3)
    return np.stack([space.sample() for _ in range(n_rows)])


def _check_matches_graph(model, obs):
    policy = model.act_model if hasattr(model, "act_model") else model.step_model
    forward = policy._numpy_forward
    assert forward is not None
    det_action, values, probas = _graph_outputs(policy, obs)
    np_action, np_values, _, _ = policy.step(obs, deterministic=True)
    assert np_action.dtype == det_action.dtype
    np.testing.assert_allclose(np_action, det_action, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_values, values, rtol=1e-5, atol=1e-6)
    np_probas = policy.proba_step(obs)
    if isinstance(probas, list):
        for left, right in zip(np_probas, probas):
            np.testing.assert_allclose(left, right, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(np_probas, probas, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(policy.value(obs), values, rtol=1e-5, atol=1e-6)
    # stochastic actions: valid actions, and their neg-log-likelihood is the graph's for the same action
    actions, _, _, neglogp = policy.step(obs)
    graph_neglogp = policy.sess.run(policy.neglogp, {policy.obs_ph: obs, policy.action: actions})
    np.testing.assert_allclose(neglogp, graph_neglogp, rtol=1e-4, atol=1e-4)
    for action in actions:
        if isinstance(model.action_space, spaces.Box):
            assert action.shape == model.action_space.shape
        else:
            assert model.action_space.contains(np.asarray(action).astype(model.action_space.dtype))
    # predict (fast path) equals the graph's deterministic action, for one and for several observations
    predicted, state = model.predict(obs, deterministic=True)
    assert state is None
    expected = det_action
    if isinstance(model.action_space, spaces.Box):
        expected = np.clip(det_action, model.action_space.low, model.action_space.high)
    np.testing.assert_allclose(predicted, expected, rtol=1e-5, atol=1e-6)
    single, _ = model.predict(obs[0], deterministic=True)
    np.testing.assert_allclose(single, expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.action_probability(obs[0]) if not isinstance(probas, list) else
                               model.action_probability(obs[0])[0],
                               (probas if not isinstance(probas, list) else probas[0])[0], rtol=1e-5, atol=1e-6)


CASES = [(env_name, 0) for env_name in ENVS] + [("discrete", 1), ("box", 2), ("multibinary", 3),
                                                 ("multidiscrete", 1)]


@pytest.mark.parametrize("env_name,arch_idx", CASES)
def test_numpy_forward_matches_graph(env_name, arch_idx):
    kwargs = NET_ARCHS[arch_idx]
    model = PPO2(MlpPolicy, DummyVecEnv([ENVS[env_name]]), n_steps=16, nminibatches=1, noptepochs=1,
                 policy_kwargs=kwargs, seed=0, n_cpu_tf_sess=1)
    obs = _obs_batch(model)
    _check_matches_graph(model, obs)
    # after training the copy is refreshed
    model.learn(32)
    _check_matches_graph(model, obs)


def test_a2c_numpy_forward_and_learn_refresh():
    model = A2C(MlpPolicy, DummyVecEnv([ENVS["box"]]), n_steps=5, seed=0, n_cpu_tf_sess=1)
    obs = _obs_batch(model)
    _check_matches_graph(model, obs)
    model.learn(50)
    _check_matches_graph(model, obs)


class _NotRecognisedPolicy(ActorCriticPolicy):
    """A custom policy that builds its own network (the NumPy path cannot know it)."""

    def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **_kwargs):
        super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse, scale=False)
        with tf.variable_scope("model", reuse=reuse):
            hidden = tf.reshape(self.processed_obs, [-1, 1]) * 2.0
            self._value_fn = hidden[:, :1]
            self._proba_distribution, self._policy, self.q_value = \
                self.pdtype.proba_distribution_from_latent(hidden, hidden, init_scale=0.01)
        self._setup_init()

    def step(self, obs, state=None, mask=None, deterministic=False):
        action_op = self.deterministic_action if deterministic else self.action
        action, value, neglogp = self.sess.run([action_op, self.value_flat, self.neglogp], {self.obs_ph: obs})
        return action, value, self.initial_state, neglogp

    def proba_step(self, obs, state=None, mask=None):
        return self.sess.run(self.policy_proba, {self.obs_ph: obs})

    def value(self, obs, state=None, mask=None):
        return self.sess.run(self.value_flat, {self.obs_ph: obs})


class _OverridingPolicy(FeedForwardPolicy):
    """A FeedForwardPolicy subclass that changes step(): the NumPy path must not replace it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, feature_extraction="mlp", **kwargs)

    def step(self, obs, state=None, mask=None, deterministic=False):
        action, value, state, neglogp = super().step(obs, state, mask, deterministic)
        return action, value + 100.0, state, neglogp


def test_fallbacks():
    env = DummyVecEnv([lambda: IdentityEnvBox(eps=0.5)])
    # recurrent policy
    model = PPO2(MlpLstmPolicy, env, n_steps=8, nminibatches=1, seed=0, n_cpu_tf_sess=1)
    assert model.act_model._numpy_forward is None
    model.predict(np.zeros(1, dtype=np.float32))
    # unknown activation
    model = PPO2(MlpPolicy, env, n_steps=8, nminibatches=1, seed=0, n_cpu_tf_sess=1,
                 policy_kwargs=dict(act_fun=lambda x: tf.nn.tanh(x) * 2.0))
    assert model.act_model._numpy_forward is None
    obs = np.full((1, 1), 0.3, dtype=np.float32)
    det, values, _ = _graph_outputs(model.act_model, obs)
    np.testing.assert_allclose(model.predict(obs, deterministic=True)[0], np.clip(det, -1, 1))
    # policy not built by mlp_extractor
    model = PPO2(_NotRecognisedPolicy, env, n_steps=8, nminibatches=1, seed=0, n_cpu_tf_sess=1)
    assert model.act_model._numpy_forward is None
    # subclass overriding step
    model = PPO2(_OverridingPolicy, env, n_steps=8, nminibatches=1, seed=0, n_cpu_tf_sess=1)
    assert model.act_model._numpy_forward is None
    _, value, _, _ = model.act_model.step(obs)
    assert value[0] > 50


def test_refresh_after_load_and_assign(tmp_path):
    env = DummyVecEnv([lambda: IdentityEnv(3)])
    model = PPO2(MlpPolicy, env, n_steps=16, nminibatches=1, seed=0, n_cpu_tf_sess=1)
    policy = model.act_model
    obs = np.arange(3)
    before = model.action_probability(obs)
    # load_parameters with other values
    params = model.get_parameters()
    noise = np.random.RandomState(0)
    new_params = {name: value + noise.randn(*value.shape).astype(value.dtype) if name.endswith("pi/w:0") else value
                  for name, value in params.items()}
    model.load_parameters(new_params)
    after = model.action_probability(obs)
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, _graph_outputs(policy, obs)[2], rtol=1e-5, atol=1e-6)
    # save / load: the loaded model acts from the loaded weights
    path = str(tmp_path / "model.zip")
    model.save(path)
    loaded = PPO2.load(path)
    np.testing.assert_allclose(loaded.action_probability(obs), after, rtol=1e-5, atol=1e-6)
    # direct assignment + refresh_numpy_forward
    with model.graph.as_default():
        variable = [var for var in model.get_parameter_list() if var.name == "model/pi/b:0"][0]
        model.sess.run(variable.assign(np.array([5.0, 0.0, 0.0], dtype=np.float32)))
    model.refresh_numpy_forward()
    np.testing.assert_allclose(model.action_probability(obs), _graph_outputs(policy, obs)[2], rtol=1e-5,
                               atol=1e-6)
    assert np.all(model.predict(obs, deterministic=True)[0] == 0)


def test_seeded_runs_identical():
    def run():
        model = PPO2(MlpPolicy, DummyVecEnv([lambda: IdentityEnvBox(eps=0.5) for _ in range(2)]), n_steps=16,
                     nminibatches=2, noptepochs=2, seed=7, n_cpu_tf_sess=1)
        model.learn(64)
        obs = np.linspace(-1, 1, 5).reshape(5, 1).astype(np.float32)
        return model.get_parameters(), model.predict(obs)[0]

    params_a, actions_a = run()
    params_b, actions_b = run()
    for name in params_a:
        np.testing.assert_array_equal(params_a[name], params_b[name])
    np.testing.assert_array_equal(actions_a, actions_b)


def test_disable_with_environment_variable():
    code = ("import numpy as np\n"
            "from stable_baselines import PPO2\n"
            "model = PPO2('MlpPolicy', 'CartPole-v1', n_steps=16, nminibatches=1)\n"
            "assert model.act_model._numpy_forward is None\n"
            "print(model.predict(np.zeros(4))[0] in (0, 1))\n")
    env = dict(os.environ, STABLE_BASELINES_NUMPY_FORWARD="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("True")


def test_numpy_helpers():
    assert nf.numpy_activation(tf.nn.relu)(np.array([-1.0, 2.0], dtype=np.float32)).tolist() == [0.0, 2.0]
    assert nf.numpy_activation(lambda x: x) is None
    x = np.random.RandomState(0).randn(6, 5).astype(np.float32)
    layers = [(np.random.RandomState(1).randn(5, 4).astype(np.float32), np.zeros(4, np.float32)),
              (np.random.RandomState(2).randn(4, 2).astype(np.float32), np.ones(2, np.float32))]
    gamma, beta = np.full(4, 1.5, np.float32), np.full(4, 0.1, np.float32)
    graph = tf.Graph()
    with graph.as_default():
        inp = tf.constant(x)
        hidden = tf.matmul(inp, layers[0][0]) + layers[0][1]
        mean, var = tf.nn.moments(hidden, [1], keep_dims=True)
        hidden = tf.nn.relu(tf.nn.batch_normalization(hidden, mean, var, beta, gamma, 1e-12))
        out = tf.matmul(hidden, layers[1][0]) + layers[1][1]
        with tf.Session(graph=graph) as sess:
            expected = sess.run(out)
    got = nf.mlp_forward(x, layers, nf.numpy_activation(tf.nn.relu), activate_last=False,
                         layer_norms=[(gamma, beta), None])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    # sampling helpers: right frequencies, reproducible from the seed
    logits = np.log(np.array([[0.2, 0.5, 0.3]] * 20000, dtype=np.float32))
    draws = nf.categorical_sample(logits, nf.make_rng(0))
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / len(draws), [0.2, 0.5, 0.3], atol=0.02)
    np.testing.assert_array_equal(draws, nf.categorical_sample(logits, nf.make_rng(0)))
    np.testing.assert_allclose(nf.categorical_neglogp(logits[:2], np.array([1, 2])), -np.log([0.5, 0.3]),
                               rtol=1e-5)
    bern = nf.bernoulli_sample(np.zeros((20000, 1), np.float32), nf.make_rng(1))
    assert abs(bern.mean() - 0.5) < 0.02 and bern.dtype == np.float32
    obs = nf.preprocess_observation(np.array([[1, 0], [2, 1]]), spaces.MultiDiscrete([3, 2]))
    np.testing.assert_array_equal(obs, [[0, 1, 0, 1, 0], [0, 0, 1, 0, 1]])
    assert nf.preprocess_observation(np.zeros((1, 2)), spaces.Tuple([spaces.Discrete(2)])) is None


def test_feed_callable_matches_run():
    graph = tf.Graph()
    with graph.as_default():
        inp = tf.placeholder(tf.float32, [None, 3], name="x")
        scale = tf.placeholder(tf.float32, [], name="scale")
        counter = tf.Variable(0.0)
        increment = tf.assign_add(counter, 1.0)
        out = tf.reduce_sum(inp, axis=1) * scale
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    call = feed_callable(sess, [out, increment], [inp, scale])
    values = np.arange(6, dtype=np.float64).reshape(2, 3)
    result = call(values, 2)
    np.testing.assert_allclose(result[0], sess.run(out, {inp: values, scale: 2}))
    assert result[1] is None or np.isscalar(result[1]) or result[1] == 1.0
    assert sess.run(counter) == 1.0
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        call(np.zeros((2, 4)), 1.0)
    with pytest.raises(TypeError, match="expected 2 feed values"):
        call(values)
    sess.close()


def test_dummy_vec_env_copies():
    class InfoEnv(gymnasium.Env):
        observation_space = spaces.Box(-1, 1, (2,), np.float32)
        action_space = spaces.Discrete(2)

        def __init__(self):
            self.shared_info = {"k": [1]}
            self.count = 0

        def reset(self, *, seed=None, options=None):
            self.count = 0
            return np.zeros(2, np.float32), {}

        def step(self, action):
            self.count += 1
            info = self.shared_info if action == 1 else {}
            return np.full(2, self.count, np.float32) / 10, 1.0, self.count >= 3, False, info

    venv = DummyVecEnv([InfoEnv, InfoEnv])
    first = venv.reset()
    obs, rewards, dones, infos = venv.step(np.array([1, 0]))
    assert infos[0] == {"k": [1]} and infos[0] is not venv.envs[0].shared_info
    assert infos[1] == {}
    obs2, _, _, _ = venv.step(np.array([0, 0]))
    assert obs is not obs2 and not np.shares_memory(obs, obs2) and np.allclose(obs, 0.1)
    _, _, dones, infos = venv.step(np.array([0, 0]))
    assert dones.all() and np.allclose(infos[0]["terminal_observation"], 0.3)
    assert first.dtype == np.float32


def test_feed_callable_duplicates_and_same_training(monkeypatch):
    graph = tf.Graph()
    with graph.as_default():
        inp = tf.placeholder(tf.float32, [], name="x")
        out = inp * 2.0
        sess = tf.Session(graph=graph)
    # a tensor fed twice takes the last value, as in a feed dict
    assert feed_callable(sess, [out], [inp, inp])(1.0, 3.0)[0] == 6.0
    sess.close()

    def train(use_callables):
        if not use_callables:
            def refuse(*_args, **_kwargs):
                raise RuntimeError("no callables")
            monkeypatch.setattr(tf.Session, "_make_callable_from_options", refuse)
        model = PPO2(MlpPolicy, DummyVecEnv([ENVS["discrete"]]), n_steps=16, nminibatches=2, noptepochs=2,
                     seed=3, n_cpu_tf_sess=1)
        model.learn(48)
        monkeypatch.undo()
        return model.get_parameters()

    with_callables, with_run = train(True), train(False)
    for name in with_callables:
        np.testing.assert_array_equal(with_callables[name], with_run[name])


@pytest.mark.parametrize("act_fun", [tf.tanh, tf.nn.relu, tf.nn.elu])
@pytest.mark.parametrize("activate_last", [False, True])
def test_single_row_stack_equals_the_batch_forward(act_fun, activate_last):
    rng = np.random.RandomState(0)
    layers = [(rng.randn(5, 8).astype(np.float32), rng.randn(8).astype(np.float32)),
              (rng.randn(8, 6).astype(np.float32), rng.randn(6).astype(np.float32)),
              (rng.randn(6, 3).astype(np.float32), rng.randn(3).astype(np.float32))]
    activation = nf.numpy_activation(act_fun)
    stack = nf.SingleRowStack(layers, activation, activate_last=activate_last)
    assert (stack.n_in, stack.n_out) == (5, 3)
    rows = rng.randn(4, 5).astype(np.float32)
    outputs = [stack(row).copy() for row in rows]  # each call overwrites the buffer of the previous one
    expected = nf.mlp_forward(rows, layers, activation, activate_last=activate_last)
    np.testing.assert_allclose(np.concatenate(outputs), expected, rtol=1e-5, atol=1e-5)
    # other real dtypes and shapes with the same number of elements are converted like astype(float32)
    np.testing.assert_allclose(stack(rows[0].astype(np.float64).reshape(1, 5)), expected[:1], rtol=1e-5, atol=1e-5)
    ints = np.arange(5).reshape(1, 5)
    np.testing.assert_allclose(stack(ints), nf.mlp_forward(ints.astype(np.float32), layers, activation,
                                                           activate_last=activate_last), rtol=1e-5, atol=1e-5)
    # the buffers belong to the building thread: another thread gets None (and takes the batch path)
    import threading
    seen = []
    thread = threading.Thread(target=lambda: seen.append(stack(rows[0])))
    thread.start()
    thread.join()
    assert seen == [None]


def test_categorical_sample_row_distribution_and_stream():
    logits = np.log(np.array([[0.2, 0.5, 0.3]], dtype=np.float32))
    rng, twin = nf.make_rng(5), nf.make_rng(5)
    draws = np.array([nf.categorical_sample_row(logits, rng) for _ in range(20000)])
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / len(draws), [0.2, 0.5, 0.3], atol=0.015)
    # one uniform number per draw, taken from the stream exactly as Generator.random() takes it
    cumulative = np.cumsum([0.2, 0.5, 0.3])
    expected = np.minimum(np.searchsorted(cumulative, twin.random(20000), side="right"), 2)
    assert (draws == expected).mean() > 0.999  # equal but for float rounding at the category edges
    assert rng.random() == twin.random()
    # a category of probability 0 is never drawn, a very likely one almost always
    never = np.array([0.0, -np.inf, 3.0], dtype=np.float32)
    assert {nf.categorical_sample_row(never, rng) for _ in range(2000)} <= {0, 2}


def test_single_observation_predict_paths():
    """One observation: the single-row path; same answers as the batch path and the graph, in any thread."""
    import threading
    model = PPO2(MlpPolicy, DummyVecEnv([ENVS["box"]]), n_steps=16, nminibatches=1, noptepochs=1, seed=0,
                 n_cpu_tf_sess=1, policy_kwargs=dict(net_arch=[dict(pi=[8, 8], vf=[8])]))
    model.learn(32)
    forward = model.act_model._numpy_forward
    obs = _obs_batch(model, 6)
    batch = model.predict(obs, deterministic=True)[0]
    singles = np.stack([model.predict(row, deterministic=True)[0] for row in obs])
    assert isinstance(forward._row, nf.SingleRowStack)
    np.testing.assert_allclose(singles, batch, rtol=1e-5, atol=1e-6)
    graph = model.act_model.sess.run(model.act_model.deterministic_action, {model.act_model.obs_ph: obs})
    np.testing.assert_allclose(singles, np.clip(graph, model.action_space.low, model.action_space.high),
                               rtol=1e-5, atol=1e-6)
    first = model.predict(obs[0], deterministic=True)[0]
    model.predict(obs[1], deterministic=True)
    np.testing.assert_allclose(first, singles[0])  # an earlier result is not overwritten by later calls
    from_thread = []
    thread = threading.Thread(target=lambda: from_thread.append(model.predict(obs[2], deterministic=True)[0]))
    thread.start()
    thread.join()
    np.testing.assert_allclose(from_thread[0], singles[2], rtol=1e-5, atol=1e-6)
    # after an update the single-row stack is rebuilt from the new weights
    model.learn(32)
    graph = model.act_model.sess.run(model.act_model.deterministic_action, {model.act_model.obs_ph: obs[:1]})
    np.testing.assert_allclose(model.predict(obs[0], deterministic=True)[0],
                               np.clip(graph[0], model.action_space.low, model.action_space.high), rtol=1e-5, atol=1e-6)


def test_stochastic_single_predict_reproducible_and_distributed():
    def actions(seed):
        model = PPO2(MlpPolicy, DummyVecEnv([lambda: IdentityEnv(3)]), n_steps=16, nminibatches=1, seed=seed,
                     n_cpu_tf_sess=1)
        obs = np.array(1)
        return model, np.array([model.predict(obs)[0] for _ in range(3000)])

    model, first = actions(3)
    _, again = actions(3)
    np.testing.assert_array_equal(first, again)
    probs = model.action_probability(np.array(1))
    np.testing.assert_allclose(np.bincount(first, minlength=3) / len(first), probs, atol=0.03)


ALGO_KWARGS = {"TRPO": dict(timesteps_per_batch=64), "PPO1": dict(timesteps_per_actorbatch=64, optim_batchsize=32),
               "ACKTR": dict(n_steps=8), "ACER": dict(n_steps=8, replay_start=16, buffer_size=500)}


@pytest.mark.parametrize("algo", ["TRPO", "PPO1", "ACKTR", "ACER"])
def test_other_algorithms_predict_in_numpy_and_stay_in_sync(algo):
    """TRPO, PPO1, ACKTR and ACER predict from the NumPy copy too; every update makes it read the weights again."""
    if algo in ("TRPO", "PPO1"):
        pytest.importorskip("mpi4py", reason="mpi4py is not installed (the [mpi] extra)")
    import stable_baselines
    from stable_baselines.common.callbacks import BaseCallback

    model = getattr(stable_baselines, algo)(MlpPolicy, "CartPole-v1", seed=0, n_cpu_tf_sess=1, **ALGO_KWARGS[algo])
    policy = model.policy_pi if algo in ("TRPO", "PPO1") else model.step_model
    assert policy._numpy_forward is not None
    obs = np.random.RandomState(0).uniform(-1, 1, (6, 4)).astype(np.float32)

    def graph_proba():
        return policy.sess.run(policy.policy_proba, {policy.obs_ph: obs})

    class Check(BaseCallback):
        def __init__(self):
            super().__init__()
            self.checked = 0

        def _on_step(self):
            if self.num_timesteps % 16 == 0:  # the predictions of a callback see the current weights
                np.testing.assert_allclose(model.action_probability(obs), graph_proba(), rtol=1e-5, atol=1e-6)
                assert model.predict(obs[0], deterministic=True)[0] == graph_proba()[0].argmax()
                self.checked += 1
            return True

    before = graph_proba()
    check = Check()
    model.learn(256, callback=check)
    assert check.checked >= 12
    assert np.abs(graph_proba() - before).max() > 1e-4  # the policy did change
    np.testing.assert_allclose(model.action_probability(obs), graph_proba(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(policy.value(obs), policy.sess.run(policy.value_flat, {policy.obs_ph: obs}),
                               rtol=1e-5, atol=1e-5)


def test_predict_uses_the_acting_policy_and_a_replaced_step():
    """predict answers from the acting policy's NumPy copy; a step the user puts in place of it answers instead."""
    model = PPO2("MlpPolicy", DummyVecEnv([lambda: IdentityEnv(3)]), n_steps=8, seed=0, n_cpu_tf_sess=1)
    assert model.acting_policy is not None and model.step == model.acting_policy.step
    assert model.acting_policy.numpy_forward is not None
    obs = np.array(1)
    expected, _ = model.predict(obs, deterministic=True)
    calls = []

    def my_step(observation, state=None, mask=None, deterministic=False):
        calls.append(np.asarray(observation).shape)
        return np.full(np.asarray(observation).shape[0], 2), None, state, None

    model.step = my_step
    action, _ = model.predict(obs, deterministic=True)
    assert calls and int(action) == 2
    model.step = model.acting_policy.step
    again, _ = model.predict(obs, deterministic=True)
    assert int(again) == int(expected)
