"""Tests of common/policies.py and common/input.py: variable names (the legacy-file contract),
placeholders, step()/proba_step()/value() outputs, reuse, registry, TF-2 behaviour."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines.common import tf_util
from stable_baselines.common.input import observation_input
from stable_baselines.common.policies import (ActorCriticPolicy, BasePolicy, CnnLnLstmPolicy, CnnLstmPolicy,
                                              CnnPolicy, FeedForwardPolicy, LstmPolicy, MlpLnLstmPolicy,
                                              MlpLstmPolicy, MlpPolicy, RecurrentActorCriticPolicy,
                                              get_policy_from_name, mlp_extractor, nature_cnn, register_policy)
from stable_baselines.common.tf_compat import tf

CARTPOLE_OBS = spaces.Box(low=-np.inf, high=np.inf, shape=(4,), dtype=np.float32)
PENDULUM_OBS = spaces.Box(low=np.array([-1.0, -1.0, -8.0], np.float32), high=np.array([1.0, 1.0, 8.0], np.float32))
PENDULUM_ACT = spaces.Box(low=-2.0, high=2.0, shape=(1,), dtype=np.float32)
IMAGE_OBS = spaces.Box(low=0, high=255, shape=(84, 84, 4), dtype=np.uint8)

# the a2c/CartPole-v1 and ppo2/Pendulum-v0 parameter lists of shared/legacy-models/README.md
A2C_CARTPOLE = [
    ("model/pi_fc0/w:0", [4, 64]), ("model/pi_fc0/b:0", [64]), ("model/vf_fc0/w:0", [4, 64]),
    ("model/vf_fc0/b:0", [64]), ("model/pi_fc1/w:0", [64, 64]), ("model/pi_fc1/b:0", [64]),
    ("model/vf_fc1/w:0", [64, 64]), ("model/vf_fc1/b:0", [64]), ("model/vf/w:0", [64, 1]), ("model/vf/b:0", [1]),
    ("model/pi/w:0", [64, 2]), ("model/pi/b:0", [2]), ("model/q/w:0", [64, 2]), ("model/q/b:0", [2]),
]
PPO2_PENDULUM = [
    ("model/pi_fc0/w:0", [3, 64]), ("model/pi_fc0/b:0", [64]), ("model/vf_fc0/w:0", [3, 64]),
    ("model/vf_fc0/b:0", [64]), ("model/pi_fc1/w:0", [64, 64]), ("model/pi_fc1/b:0", [64]),
    ("model/vf_fc1/w:0", [64, 64]), ("model/vf_fc1/b:0", [64]), ("model/vf/w:0", [64, 1]), ("model/vf/b:0", [1]),
    ("model/pi/w:0", [64, 1]), ("model/pi/b:0", [1]), ("model/pi/logstd:0", [1, 1]), ("model/q/w:0", [64, 1]),
    ("model/q/b:0", [1]),
]


def _variables(graph, scope="model"):
    return [(var.name, var.shape.as_list()) for var in graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope)]


def _build(policy_cls, ob_space, ac_space, n_env=2, n_steps=1, n_batch=None, **kwargs):
    """Build a policy in its own graph; return (graph, sess, policy) with variables initialized."""
    if n_batch is None:
        n_batch = n_env * n_steps
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        sess = tf_util.make_session(num_cpu=1, graph=graph)
        policy = policy_cls(sess, ob_space, ac_space, n_env, n_steps, n_batch, **kwargs)
        sess.run(tf.global_variables_initializer())
    return graph, sess, policy


def _sample_obs(space, n, seed=0):
    space.seed(seed)
    return np.stack([space.sample() for _ in range(n)])


# ------------------------------------------------------------------------------------------------
# variable names: the contract with legacy model files
# ------------------------------------------------------------------------------------------------
def test_mlp_policy_cartpole_names_match_legacy_a2c():
    graph, sess, _ = _build(MlpPolicy, CARTPOLE_OBS, spaces.Discrete(2))
    assert _variables(graph) == A2C_CARTPOLE
    assert _variables(graph, None) == A2C_CARTPOLE
    sess.close()


def test_mlp_policy_pendulum_names_match_legacy_ppo2():
    graph, sess, _ = _build(MlpPolicy, PENDULUM_OBS, PENDULUM_ACT)
    assert _variables(graph) == PPO2_PENDULUM
    sess.close()


def test_legacy_readme_lists_agree_when_available():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "data", "legacy_models", "README.md"),
                  os.path.join(here, "..", "..", "shared", "legacy-models", "README.md")]
    readmes = [path for path in candidates if os.path.exists(path)]
    if not readmes or "#### a2c" not in open(readmes[0]).read():
        pytest.skip("legacy-models README with the parameter lists not available")
    readme = readmes[0]
    with open(readme) as file_handler:
        text = file_handler.read()

    def block(title):
        part = text.split(title, 1)[1].split("```", 2)[1]
        rows = []
        for line in part.strip().splitlines():
            name, shape = line.split(" ", 1)
            rows.append((name, [int(v) for v in shape.strip("(),").replace(",", " ").split()]))
        return rows

    assert block("#### a2c") == A2C_CARTPOLE
    assert block("#### ppo2") == PPO2_PENDULUM


def test_multidiscrete_and_multibinary_names():
    graph, sess, _ = _build(MlpPolicy, CARTPOLE_OBS, spaces.MultiDiscrete([2, 3]))
    assert _variables(graph)[-4:] == [("model/pi/w:0", [64, 5]), ("model/pi/b:0", [5]),
                                      ("model/q/w:0", [64, 5]), ("model/q/b:0", [5])]
    assert [name for name, _ in _variables(graph)[:10]] == [name for name, _ in A2C_CARTPOLE[:10]]
    sess.close()
    graph, sess, _ = _build(MlpPolicy, CARTPOLE_OBS, spaces.MultiBinary(3))
    assert _variables(graph)[-4:] == [("model/pi/w:0", [64, 3]), ("model/pi/b:0", [3]),
                                      ("model/q/w:0", [64, 3]), ("model/q/b:0", [3])]
    sess.close()


def test_cnn_policy_names():
    graph, sess, policy = _build(CnnPolicy, IMAGE_OBS, spaces.Discrete(6))
    assert _variables(graph) == [
        ("model/c1/w:0", [8, 8, 4, 32]), ("model/c1/b:0", [1, 32, 1, 1]),
        ("model/c2/w:0", [4, 4, 32, 64]), ("model/c2/b:0", [1, 64, 1, 1]),
        ("model/c3/w:0", [3, 3, 64, 64]), ("model/c3/b:0", [1, 64, 1, 1]),
        ("model/fc1/w:0", [3136, 512]), ("model/fc1/b:0", [512]),
        ("model/vf/w:0", [512, 1]), ("model/vf/b:0", [1]),
        ("model/pi/w:0", [512, 6]), ("model/pi/b:0", [6]), ("model/q/w:0", [512, 6]), ("model/q/b:0", [6])]
    # images are scaled to [0, 1]
    assert policy.obs_ph.dtype == tf.uint8
    obs = np.full((2, 84, 84, 4), 255, np.uint8)
    np.testing.assert_allclose(sess.run(policy.processed_obs, {policy.obs_ph: obs}), 1.0)
    actions, values, states, neglogp = policy.step(obs)
    assert actions.shape == (2,) and values.shape == (2,) and states is None and neglogp.shape == (2,)
    sess.close()


LSTM_NAMES = ["model/pi_fc0/w:0", "model/pi_fc0/b:0", "model/pi_fc1/w:0", "model/pi_fc1/b:0",
              "model/lstm1/wx:0", "model/lstm1/wh:0", "model/lstm1/b:0"]
LN_NAMES = ["model/lstm1/gx:0", "model/lstm1/bx:0", "model/lstm1/gh:0", "model/lstm1/bh:0",
            "model/lstm1/gc:0", "model/lstm1/bc:0"]
HEAD_NAMES = ["model/vf/w:0", "model/vf/b:0", "model/pi/w:0", "model/pi/b:0", "model/q/w:0", "model/q/b:0"]


@pytest.mark.parametrize("policy_cls, extra", [(MlpLstmPolicy, []), (MlpLnLstmPolicy, LN_NAMES)])
def test_mlp_lstm_names_and_shapes(policy_cls, extra):
    graph, sess, policy = _build(policy_cls, CARTPOLE_OBS, spaces.Discrete(2), n_env=3, n_lstm=16)
    variables = _variables(graph)
    assert [name for name, _ in variables] == LSTM_NAMES + extra + HEAD_NAMES
    shapes = dict(variables)
    assert shapes["model/lstm1/wx:0"] == [64, 64] and shapes["model/lstm1/wh:0"] == [16, 64]
    assert shapes["model/lstm1/b:0"] == [64] and shapes["model/vf/w:0"] == [16, 1]
    # as in the original, the second `variable_scope("input")` opens the name scope "input_1"
    assert policy.states_ph.name == "input_1/states_ph:0" and policy.states_ph.shape.as_list() == [3, 32]
    assert policy.dones_ph.name == "input_1/dones_ph:0" and policy.dones_ph.shape.as_list() == [3]
    assert policy.initial_state.shape == (3, 32) and policy.initial_state.dtype == np.float32
    assert not policy.initial_state.any()
    assert policy.recurrent
    sess.close()


def test_cnn_lstm_names():
    graph, sess, policy = _build(CnnLnLstmPolicy, IMAGE_OBS, spaces.Discrete(3), n_env=1, n_lstm=8)
    names = [name for name, _ in _variables(graph)]
    assert names[:8] == ["model/c1/w:0", "model/c1/b:0", "model/c2/w:0", "model/c2/b:0", "model/c3/w:0",
                         "model/c3/b:0", "model/fc1/w:0", "model/fc1/b:0"]
    assert names[8:] == ["model/lstm1/wx:0", "model/lstm1/wh:0", "model/lstm1/b:0"] + LN_NAMES + HEAD_NAMES
    sess.close()
    graph, sess, policy = _build(CnnLstmPolicy, IMAGE_OBS, spaces.Discrete(3), n_env=1, n_lstm=8)
    assert len(_variables(graph)) == 8 + 3 + 6
    actions, values, states, _ = policy.step(_sample_obs(IMAGE_OBS, 1), policy.initial_state, np.zeros(1))
    assert actions.shape == (1,) and states.shape == (1, 16)
    sess.close()


def test_lstm_net_arch_names_and_errors():
    net_arch = [8, 'lstm', dict(vf=[5, 10], pi=[10])]
    graph, sess, policy = _build(LstmPolicy, CARTPOLE_OBS, spaces.Discrete(2), n_env=2, n_lstm=4,
                                 net_arch=net_arch, layer_norm=True, feature_extraction="mlp")
    assert _variables(graph) == [
        ("model/shared_fc0/w:0", [4, 8]), ("model/shared_fc0/b:0", [8]),
        ("model/lstm1/wx:0", [8, 16]), ("model/lstm1/wh:0", [4, 16]), ("model/lstm1/b:0", [16]),
        ("model/lstm1/gx:0", [16]), ("model/lstm1/bx:0", [16]), ("model/lstm1/gh:0", [16]),
        ("model/lstm1/bh:0", [16]), ("model/lstm1/gc:0", [4]), ("model/lstm1/bc:0", [4]),
        ("model/pi_fc0/w:0", [4, 10]), ("model/pi_fc0/b:0", [10]),
        ("model/vf_fc0/w:0", [4, 5]), ("model/vf_fc0/b:0", [5]), ("model/vf_fc1/w:0", [5, 10]),
        ("model/vf_fc1/b:0", [10]),
        ("model/vf/w:0", [10, 1]), ("model/vf/b:0", [1]), ("model/pi/w:0", [10, 2]), ("model/pi/b:0", [2]),
        ("model/q/w:0", [10, 2]), ("model/q/b:0", [2])]
    actions, values, states, neglogp = policy.step(_sample_obs(CARTPOLE_OBS, 2), policy.initial_state,
                                                   np.zeros(2))
    assert actions.shape == (2,) and states.shape == (2, 8)
    sess.close()
    for bad, message in [([8, dict(pi=[4])], "at least one occurrence of 'lstm'"),
                         (['lstm', 'lstm'], "only contain one occurrence"),
                         (['lstm', dict(pi=['lstm'])], "only supported in the shared part"),
                         (['lstm', "foo"], "can only contain ints")]:
        graph = tf.Graph()
        with graph.as_default(), pytest.raises((ValueError, NotImplementedError), match=message):
            LstmPolicy(None, CARTPOLE_OBS, spaces.Discrete(2), 2, 1, 2, n_lstm=4, net_arch=bad,
                       feature_extraction="mlp")
    graph = tf.Graph()
    with graph.as_default(), pytest.raises(NotImplementedError):
        LstmPolicy(None, IMAGE_OBS, spaces.Discrete(2), 1, 1, 1, n_lstm=4, net_arch=['lstm'])


def test_feedforward_net_arch_shared_layers():
    graph, sess, policy = _build(FeedForwardPolicy, CARTPOLE_OBS, spaces.Discrete(2),
                                 net_arch=[16, dict(vf=[8, 4], pi=[8])], act_fun=tf.nn.relu,
                                 feature_extraction="mlp")
    assert _variables(graph) == [
        ("model/shared_fc0/w:0", [4, 16]), ("model/shared_fc0/b:0", [16]),
        ("model/pi_fc0/w:0", [16, 8]), ("model/pi_fc0/b:0", [8]),
        ("model/vf_fc0/w:0", [16, 8]), ("model/vf_fc0/b:0", [8]),
        ("model/vf_fc1/w:0", [8, 4]), ("model/vf_fc1/b:0", [4]),
        ("model/vf/w:0", [4, 1]), ("model/vf/b:0", [1]), ("model/pi/w:0", [8, 2]), ("model/pi/b:0", [2]),
        ("model/q/w:0", [4, 2]), ("model/q/b:0", [2])]
    sess.close()
    graph = tf.Graph()
    with graph.as_default():
        with pytest.raises(ValueError, match="can only contain ints and dicts"):
            FeedForwardPolicy(None, CARTPOLE_OBS, spaces.Discrete(2), 1, 1, 1, net_arch=["x"],
                              feature_extraction="mlp")
    graph = tf.Graph()
    with graph.as_default():
        with pytest.raises(ValueError, match="must contain a list"):
            FeedForwardPolicy(None, CARTPOLE_OBS, spaces.Discrete(2), 1, 1, 1, net_arch=[dict(pi=4)],
                              feature_extraction="mlp")


def test_mlp_extractor_all_shared_and_split():
    graph = tf.Graph()
    with graph.as_default():
        obs = tf.placeholder(tf.float32, (None, 3))
        pi_latent, vf_latent = mlp_extractor(obs, [5, 6], tf.tanh)
        assert pi_latent is vf_latent
        assert pi_latent.shape.as_list() == [None, 6]
        names = [var.name for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)]
        assert names == ["shared_fc0/w:0", "shared_fc0/b:0", "shared_fc1/w:0", "shared_fc1/b:0"]


def test_layers_parameter_is_deprecated():
    graph = tf.Graph()
    with graph.as_default(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        policy = MlpPolicy(None, CARTPOLE_OBS, spaces.Discrete(2), 1, 1, 1, layers=[32])
        assert any(issubclass(w.category, DeprecationWarning) and "layers" in str(w.message) for w in caught)
        names = [var.name for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)]
        assert names[:4] == ["model/pi_fc0/w:0", "model/pi_fc0/b:0", "model/vf_fc0/w:0", "model/vf_fc0/b:0"]
        assert policy.value_fn.shape.as_list() == [1, 1]


def test_unknown_kwargs_rejected_for_mlp():
    graph = tf.Graph()
    with graph.as_default(), pytest.raises(ValueError, match="Unknown keywords for policy"):
        MlpPolicy(None, CARTPOLE_OBS, spaces.Discrete(2), 1, 1, 1, foo=3)


# ------------------------------------------------------------------------------------------------
# running the policies
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ac_space, action_shape, action_dtype", [
    (spaces.Discrete(3), (4,), np.int64),
    (spaces.Box(-1, 1, (2,), dtype=np.float32), (4, 2), np.float32),
    (spaces.MultiDiscrete([2, 5]), (4, 2), np.int64),
    (spaces.MultiBinary(3), (4, 3), np.float32),
])
def test_mlp_policy_step_shapes(ac_space, action_shape, action_dtype):
    graph, sess, policy = _build(MlpPolicy, CARTPOLE_OBS, ac_space, n_env=4)
    obs = _sample_obs(CARTPOLE_OBS, 4)
    actions, values, states, neglogp = policy.step(obs)
    assert actions.shape == action_shape and actions.dtype == action_dtype
    assert values.shape == (4,) and neglogp.shape == (4,) and states is None
    assert np.all(np.isfinite(neglogp))
    det_1 = policy.step(obs, deterministic=True)[0]
    det_2 = policy.step(obs, deterministic=True)[0]
    np.testing.assert_array_equal(det_1, det_2)
    np.testing.assert_allclose(policy.value(obs), values, rtol=1e-6)
    proba = policy.proba_step(obs)
    if isinstance(ac_space, spaces.Discrete):
        assert proba.shape == (4, 3)
        np.testing.assert_allclose(proba.sum(-1), 1.0, rtol=1e-5)
        np.testing.assert_array_equal(det_1, proba.argmax(-1))
    elif isinstance(ac_space, spaces.Box):
        mean, std = proba
        assert mean.shape == (4, 2) and std.shape == (4, 2)
        np.testing.assert_allclose(det_1, mean, rtol=1e-6)
        np.testing.assert_allclose(std, 1.0)  # logstd initialised at zero
    elif isinstance(ac_space, spaces.MultiDiscrete):
        assert [p.shape for p in proba] == [(4, 2), (4, 5)]
    else:
        assert proba.shape == (4, 3) and np.all((proba > 0) & (proba < 1))
    assert policy.is_discrete == isinstance(ac_space, spaces.Discrete)
    assert policy.value_fn.shape.as_list() == [4, 1] and policy.value_flat.shape.as_list() == [4]
    assert policy.q_value is not None
    sess.close()


def test_mlp_policy_forward_matches_numpy():
    graph, sess, policy = _build(MlpPolicy, PENDULUM_OBS, PENDULUM_ACT, n_env=3)
    params = dict(zip([v.name for v in graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)],
                      sess.run(graph.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES))))
    obs = _sample_obs(PENDULUM_OBS, 3)

    def tower(prefix):
        hidden = np.tanh(obs @ params["model/{}_fc0/w:0".format(prefix)] + params["model/{}_fc0/b:0".format(prefix)])
        return np.tanh(hidden @ params["model/{}_fc1/w:0".format(prefix)] + params["model/{}_fc1/b:0".format(prefix)])

    values = tower("vf") @ params["model/vf/w:0"] + params["model/vf/b:0"]
    mean = tower("pi") @ params["model/pi/w:0"] + params["model/pi/b:0"]
    np.testing.assert_allclose(policy.value(obs), values[:, 0], rtol=1e-4, atol=1e-5)
    actions, _, _, _ = policy.step(obs, deterministic=True)
    np.testing.assert_allclose(actions, mean, rtol=1e-4, atol=1e-5)
    sess.close()


def test_lstm_step_state_and_mask():
    graph, sess, policy = _build(MlpLstmPolicy, CARTPOLE_OBS, spaces.Discrete(2), n_env=2, n_lstm=8)
    obs = _sample_obs(CARTPOLE_OBS, 2)
    actions, values, states, neglogp = policy.step(obs, policy.initial_state, np.zeros(2))
    assert actions.shape == (2,) and values.shape == (2,) and states.shape == (2, 16) and neglogp.shape == (2,)
    assert np.any(states != 0)
    # default state / mask: the initial state, no episode start
    np.testing.assert_allclose(policy.value(obs), values, rtol=1e-6)
    # with the new state the value changes; a done mask resets to the initial state
    value_next = policy.value(obs, states, np.zeros(2))
    assert not np.allclose(value_next, values)
    np.testing.assert_allclose(policy.value(obs, states, np.ones(2)), values, rtol=1e-5)
    proba = policy.proba_step(obs, states, np.zeros(2))
    assert proba.shape == (2, 2)
    sess.close()


def test_lstm_train_model_with_several_steps():
    graph = tf.Graph()
    with graph.as_default():
        sess = tf_util.make_session(num_cpu=1, graph=graph)
        step_model = MlpLstmPolicy(sess, CARTPOLE_OBS, spaces.Discrete(2), 2, 1, 2, n_lstm=8, reuse=False)
        with tf.variable_scope("train_model", reuse=True, custom_getter=tf_util.outer_scope_getter("train_model")):
            train_model = MlpLstmPolicy(sess, CARTPOLE_OBS, spaces.Discrete(2), 2, 3, 6, n_lstm=8, reuse=True)
        assert len(graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)) == 13
        sess.run(tf.global_variables_initializer())
        obs = _sample_obs(CARTPOLE_OBS, 6)
        dones = np.zeros(6, np.float32)
        # rolling the step model 3 times equals one pass of the train model (batch is env-major)
        state = step_model.initial_state
        step_values = []
        for t in range(3):
            step_values.append(step_model.value(obs[[t, 3 + t]], state, dones[[t, 3 + t]]))
            state = step_model.step(obs[[t, 3 + t]], state, dones[[t, 3 + t]])[2]
        train_values = train_model.value(obs, train_model.initial_state, dones)
        np.testing.assert_allclose(train_values, np.stack(step_values, axis=1).reshape(-1), rtol=1e-5, atol=1e-6)
        sess.close()


def test_n_batch_must_match_for_lstm():
    graph = tf.Graph()
    with graph.as_default(), pytest.raises(ValueError, match="n_batch == n_env \\* n_steps"):
        MlpLstmPolicy(None, CARTPOLE_OBS, spaces.Discrete(2), 2, 3, 5)


@pytest.mark.parametrize("policy_cls, kwargs", [(MlpPolicy, {}), (MlpLnLstmPolicy, {"n_lstm": 8})])
def test_train_model_reuse_creates_no_variables(policy_cls, kwargs):
    graph = tf.Graph()
    with graph.as_default():
        sess = tf_util.make_session(num_cpu=1, graph=graph)
        step_model = policy_cls(sess, PENDULUM_OBS, PENDULUM_ACT, 2, 1, 2, reuse=False, **kwargs)
        before = [var.name for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)]
        with tf.variable_scope("train_model", reuse=True, custom_getter=tf_util.outer_scope_getter("train_model")):
            train_model = policy_cls(sess, PENDULUM_OBS, PENDULUM_ACT, 2, 4, 8, reuse=True, **kwargs)
        after = [var.name for var in graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)]
        assert after == before
        assert all(not name.startswith("train_model") for name in after)
        assert train_model.obs_ph.name == "train_model/input/Ob:0" and train_model.obs_ph.shape.as_list()[0] == 8
        sess.run(tf.global_variables_initializer())
        obs = _sample_obs(PENDULUM_OBS, 2)
        if policy_cls is MlpPolicy:
            np.testing.assert_allclose(step_model.value(obs), train_model.value(np.concatenate([obs] * 4))[:2],
                                       rtol=1e-5)
        sess.close()


def test_placeholders_and_action_ph():
    graph = tf.Graph()
    with graph.as_default():
        policy = MlpPolicy(None, CARTPOLE_OBS, spaces.Discrete(2), 2, 1, 2)
        assert policy.obs_ph.name == "input/Ob:0" and policy.obs_ph.shape.as_list() == [2, 4]
        assert policy.obs_ph.dtype == tf.float32 and policy.processed_obs.dtype == tf.float32
        assert policy.action_ph is None and policy.initial_state is None
        assert policy.n_env == 2 and policy.n_steps == 1 and policy.n_batch == 2
        base = _ConcreteBase(None, CARTPOLE_OBS, PENDULUM_ACT, 1, 1, None, add_action_ph=True)
        assert base.action_ph.name == "input_1/action_ph:0"
        assert base.action_ph.shape.as_list() == [None, 1] and base.action_ph.dtype == tf.float32
        obs_ph = tf.placeholder(tf.float32, (None, 4), name="my_obs")
        override = _ConcreteBase(None, CARTPOLE_OBS, spaces.Discrete(2), 1, 1, None, obs_ph=(obs_ph, obs_ph * 2))
        assert override.obs_ph is obs_ph
        discrete_action = _ConcreteBase(None, CARTPOLE_OBS, spaces.Discrete(3), 1, 1, 5, add_action_ph=True)
        assert discrete_action.action_ph.shape.as_list() == [5] and discrete_action.action_ph.dtype == tf.int64


class _ConcreteBase(BasePolicy):
    def step(self, obs, state=None, mask=None):
        return None

    def proba_step(self, obs, state=None, mask=None):
        return None


def test_setup_init_needs_outputs():
    class Broken(ActorCriticPolicy):
        def step(self, obs, state=None, mask=None, deterministic=False):
            return None

        def proba_step(self, obs, state=None, mask=None):
            return None

        def value(self, obs, state=None, mask=None):
            return None

    graph = tf.Graph()
    with graph.as_default():
        policy = Broken(None, CARTPOLE_OBS, spaces.Discrete(2), 1, 1, 1)
        with pytest.raises(ValueError, match="_setup_init"):
            policy._setup_init()  # pylint: disable=protected-access


def test_custom_policy_from_manual():
    """The manual's custom ActorCriticPolicy (tf.layers replaced by our dense) builds and runs."""
    from stable_baselines.common.tf_layers import dense

    class CustomPolicy(ActorCriticPolicy):
        def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **kwargs):
            super(CustomPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse,
                                               scale=True)
            with tf.variable_scope("model", reuse=reuse):
                activ = tf.nn.relu
                extracted_features = nature_cnn(self.processed_obs, **kwargs)
                pi_h = extracted_features
                for i, layer_size in enumerate([128, 128, 128]):
                    pi_h = activ(dense(pi_h, layer_size, name='pi_fc' + str(i)))
                vf_h = extracted_features
                for i, layer_size in enumerate([32, 32]):
                    vf_h = activ(dense(vf_h, layer_size, name='vf_fc' + str(i)))
                value_fn = dense(vf_h, 1, name='vf')
                self._proba_distribution, self._policy, self.q_value = \
                    self.pdtype.proba_distribution_from_latent(pi_h, vf_h, init_scale=0.01)
            self._value_fn = value_fn
            self._setup_init()

        def step(self, obs, state=None, mask=None, deterministic=False):
            action_op = self.deterministic_action if deterministic else self.action
            action, value, neglogp = self.sess.run([action_op, self.value_flat, self.neglogp], {self.obs_ph: obs})
            return action, value, self.initial_state, neglogp

        def proba_step(self, obs, state=None, mask=None):
            return self.sess.run(self.policy_proba, {self.obs_ph: obs})

        def value(self, obs, state=None, mask=None):
            return self.sess.run(self.value_flat, {self.obs_ph: obs})

    graph, sess, policy = _build(CustomPolicy, IMAGE_OBS, spaces.Discrete(4), n_env=1)
    names = [name for name, _ in _variables(graph)]
    assert "model/pi_fc0/kernel:0" in names and "model/vf/kernel:0" in names and names[-2:] == [
        "model/q/w:0", "model/q/b:0"]
    actions, values, _, _ = policy.step(_sample_obs(IMAGE_OBS, 1))
    assert actions.shape == (1,) and values.shape == (1,)
    sess.close()


# ------------------------------------------------------------------------------------------------
# registry
# ------------------------------------------------------------------------------------------------
def test_policy_registry():
    assert get_policy_from_name(ActorCriticPolicy, "MlpPolicy") is MlpPolicy
    assert get_policy_from_name(ActorCriticPolicy, "CnnLnLstmPolicy") is CnnLnLstmPolicy
    with pytest.raises(ValueError, match="unknown policy type NoSuchPolicy"):
        get_policy_from_name(ActorCriticPolicy, "NoSuchPolicy")
    with pytest.raises(ValueError, match="not registered"):
        get_policy_from_name(RecurrentActorCriticPolicy, "MlpPolicy")

    class TinyPolicy(FeedForwardPolicy):
        def __init__(self, *args, **kwargs):
            super(TinyPolicy, self).__init__(*args, **kwargs, net_arch=[dict(pi=[8], vf=[8])],
                                             feature_extraction="mlp")

    register_policy("TinyPolicyForTest", TinyPolicy)
    assert get_policy_from_name(ActorCriticPolicy, "TinyPolicyForTest") is TinyPolicy
    register_policy("TinyPolicyForTest", TinyPolicy)  # same class again: fine
    with pytest.raises(ValueError, match="alreay registered"):
        register_policy("TinyPolicyForTest", MlpPolicy)
    with pytest.raises(ValueError, match="not of any known subclasses"):
        register_policy("NotAPolicy", int)


def test_public_objects_are_named_by_the_public_module():
    """Model files (ours and the original library's) name policy classes by stable_baselines.common.policies."""
    import pickle

    import stable_baselines.common.policies as policies_module

    names = ["BasePolicy", "ActorCriticPolicy", "RecurrentActorCriticPolicy", "FeedForwardPolicy", "LstmPolicy",
             "MlpPolicy", "CnnPolicy", "MlpLstmPolicy", "MlpLnLstmPolicy", "CnnLstmPolicy", "CnnLnLstmPolicy",
             "nature_cnn", "mlp_extractor", "register_policy", "get_policy_from_name"]
    for name in names:
        obj = getattr(policies_module, name)
        assert obj.__module__ == "stable_baselines.common.policies", name
        assert obj.__qualname__ == name
        dumped = pickle.dumps(obj, protocol=2)
        assert b"stable_baselines.common.policies" in dumped and b"policy_parts" not in dumped
        assert pickle.loads(dumped) is obj
    assert issubclass(MlpPolicy, FeedForwardPolicy) and issubclass(CnnPolicy, FeedForwardPolicy)
    assert all(issubclass(cls, LstmPolicy) for cls in (MlpLstmPolicy, MlpLnLstmPolicy, CnnLstmPolicy, CnnLnLstmPolicy))
    # the presets fix the feature extraction, as the original's constructors did
    with tf.Graph().as_default(), pytest.raises(TypeError, match="feature_extraction"):
        MlpPolicy(None, CARTPOLE_OBS, spaces.Discrete(2), 1, 1, 1, feature_extraction="cnn")


# ------------------------------------------------------------------------------------------------
# observation_input
# ------------------------------------------------------------------------------------------------
def test_observation_input_spaces():
    graph = tf.Graph()
    with graph.as_default(), tf_util.make_session(num_cpu=1, graph=graph) as sess:
        obs_ph, processed = observation_input(spaces.Discrete(3), batch_size=None)
        assert obs_ph.dtype == tf.int32 and obs_ph.shape.as_list() == [None] and obs_ph.name == "Ob:0"
        np.testing.assert_allclose(sess.run(processed, {obs_ph: [2, 0]}), [[0, 0, 1], [1, 0, 0]])

        box = spaces.Box(low=np.array([0.0, -2.0]), high=np.array([10.0, 2.0]), dtype=np.float64)
        obs_ph, processed = observation_input(box, batch_size=4, name="box")
        assert obs_ph.dtype == tf.float64 and obs_ph.shape.as_list() == [4, 2] and processed.dtype == tf.float32
        data = np.array([[5.0, 0.0]] * 4)
        np.testing.assert_allclose(sess.run(processed, {obs_ph: data}), data)
        obs_ph, processed = observation_input(box, scale=True, name="scaled")
        np.testing.assert_allclose(sess.run(processed, {obs_ph: [[5.0, 0.0]]}), [[0.5, 0.5]])
        # infinite bounds: never scaled
        obs_ph, processed = observation_input(CARTPOLE_OBS, scale=True, name="inf")
        np.testing.assert_allclose(sess.run(processed, {obs_ph: [[5.0, 1, 2, 3]]}), [[5.0, 1, 2, 3]])

        obs_ph, processed = observation_input(spaces.MultiBinary(3), name="mb")
        assert obs_ph.dtype == tf.float32 and obs_ph.shape.as_list() == [None, 3]
        np.testing.assert_allclose(sess.run(processed, {obs_ph: np.array([[1, 0, 1]], np.int8)}), [[1, 0, 1]])

        obs_ph, processed = observation_input(spaces.MultiDiscrete([2, 3]), name="md")
        assert obs_ph.dtype == tf.int32 and obs_ph.shape.as_list() == [None, 2]
        assert processed.shape.as_list() == [None, 5]
        np.testing.assert_allclose(sess.run(processed, {obs_ph: [[1, 2], [0, 0]]}),
                                   [[0, 1, 0, 0, 1], [1, 0, 1, 0, 0]])

        # Dict and Tuple spaces (issue 22): packed float32 rows, read back entry by entry
        obs_ph, processed = observation_input(spaces.Dict({"a": spaces.Discrete(2)}), name="dict")
        assert obs_ph.dtype == tf.float32 and obs_ph.shape.as_list() == [None, 1]
        np.testing.assert_allclose(sess.run(processed["a"], {obs_ph: [[1.0]]}), [[0, 1]])
        obs_ph, processed = observation_input(spaces.Tuple([spaces.Discrete(2)]), name="tuple")
        np.testing.assert_allclose(sess.run(processed[0], {obs_ph: [[0.0]]}), [[1, 0]])
        with pytest.raises(NotImplementedError, match="Text"):
            observation_input(spaces.Dict({"a": spaces.Text(5)}))


def test_discrete_and_multidiscrete_observations_in_policy():
    graph, sess, policy = _build(MlpPolicy, spaces.Discrete(5), spaces.Discrete(2), n_env=2)
    assert _variables(graph)[0] == ("model/pi_fc0/w:0", [5, 64])
    actions, values, _, _ = policy.step(np.array([0, 4]))
    assert actions.shape == (2,) and values.shape == (2,)
    sess.close()
    graph, sess, policy = _build(MlpPolicy, spaces.MultiDiscrete([2, 3]), spaces.Discrete(2), n_env=1)
    assert _variables(graph)[0] == ("model/pi_fc0/w:0", [5, 64])
    assert policy.step(np.array([[1, 2]]))[0].shape == (1,)
    sess.close()


# ------------------------------------------------------------------------------------------------
# TF-2 behaviour
# ------------------------------------------------------------------------------------------------
def test_policies_work_with_tf2_behavior():
    script = textwrap.dedent("""
        import numpy as np
        from gymnasium import spaces
        import stable_baselines
        from stable_baselines.common.tf_compat import tf, tf1_behavior_enabled
        from stable_baselines.common import tf_util
        from stable_baselines.common.policies import MlpPolicy, MlpLnLstmPolicy
        assert not tf1_behavior_enabled()
        assert tf.executing_eagerly()
        obs_space = spaces.Box(-1, 1, (3,), dtype=np.float32)
        for policy_cls, act_space, kwargs in [(MlpPolicy, spaces.Box(-2, 2, (1,), dtype=np.float32), {}),
                                              (MlpLnLstmPolicy, spaces.Discrete(2), {"n_lstm": 8})]:
            graph = tf.Graph()
            with graph.as_default():
                sess = tf_util.make_session(num_cpu=1, graph=graph)
                policy = policy_cls(sess, obs_space, act_space, 2, 1, 2, **kwargs)
                with tf.variable_scope("train_model", reuse=True,
                                       custom_getter=tf_util.outer_scope_getter("train_model")):
                    policy_cls(sess, obs_space, act_space, 2, 2, 4, reuse=True, **kwargs)
                names = [v.name for v in tf_util.get_trainable_vars("model")]
                assert len(names) == len(tf.global_variables()), (names, tf.global_variables())
                sess.run(tf.global_variables_initializer())
            actions, values, states, neglogp = policy.step(np.zeros((2, 3), np.float32))
            assert values.shape == (2,) and neglogp.shape == (2,), (values, neglogp)
            if policy_cls is MlpPolicy:
                assert names[-3] == "model/pi/logstd:0" and len(names) == 15, names
                assert actions.shape == (2, 1) and states is None
            else:
                assert actions.shape == (2,) and states.shape == (2, 16)
        print("TF2-OK")
    """)
    env = dict(os.environ, STABLE_BASELINES_TF2_BEHAVIOR="1", TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "TF2-OK" in result.stdout


# ------------------------------------------------------------------------------------------------
# forward pass against files saved by the original library (skipped without shared/legacy-models)
# ------------------------------------------------------------------------------------------------
_HERE = os.path.dirname(os.path.abspath(__file__))
LEGACY_DIR = os.path.join(_HERE, "data", "legacy_models")
if not os.path.isdir(LEGACY_DIR):
    LEGACY_DIR = os.path.join(_HERE, "..", "..", "shared", "legacy-models")


def _run_legacy(ob_space, ac_space, names_and_params, golden):
    graph = tf.Graph()
    with graph.as_default():
        sess = tf_util.make_session(num_cpu=1, graph=graph)
        policy = MlpPolicy(sess, ob_space, ac_space, 256, 1, 256)
        variables = tf_util.get_trainable_vars("model")
        if names_and_params[0][0] is not None:
            assert [var.name for var in variables] == [name for name, _ in names_and_params]
        assert [tuple(var.shape.as_list()) for var in variables] == [value.shape for _, value in names_and_params]
        sess.run([tf.assign(var, value) for var, (_, value) in zip(variables, names_and_params)])
        obs = golden["policy_obs"]
        actions, values, _, _ = policy.step(obs, deterministic=True)
        pi_out = sess.run(policy.policy, {policy.obs_ph: obs})
    sess.close()
    np.testing.assert_allclose(values, golden["vf"].ravel(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(pi_out, golden["pi"], rtol=1e-4, atol=1e-4)
    return actions


def test_forward_matches_legacy_acktr_pendulum_zip():
    import io
    import json
    import zipfile
    path = os.path.join(LEGACY_DIR, "acktr", "Pendulum-v0.zip")
    golden_path = os.path.join(LEGACY_DIR, "golden", "acktr", "Pendulum-v0.npz")
    if not (os.path.exists(path) and os.path.exists(golden_path)):
        pytest.skip("legacy model files not available")
    with zipfile.ZipFile(path) as archive:
        names = json.loads(archive.read("parameter_list"))
        arrays = np.load(io.BytesIO(archive.read("parameters")))
        params = [(name, arrays[name]) for name in names]
    golden = np.load(golden_path)
    actions = _run_legacy(PENDULUM_OBS, PENDULUM_ACT, params, golden)
    # predict() clips Box actions to the bounds; the policy's deterministic action is the mean
    np.testing.assert_allclose(np.clip(actions, -2, 2), golden["action"], rtol=1e-4, atol=1e-4)


def test_forward_matches_legacy_a2c_cartpole_pkl():
    import pickle
    path = os.path.join(LEGACY_DIR, "a2c", "CartPole-v1.pkl")
    golden_path = os.path.join(LEGACY_DIR, "golden", "a2c", "CartPole-v1.npz")
    if not (os.path.exists(path) and os.path.exists(golden_path)):
        pytest.skip("legacy model files not available")

    class _Stub:
        def __init__(self, *args, **kwargs):
            pass

        def __call__(self, *args, **kwargs):
            return _Stub()

        def __setstate__(self, state):
            pass

    class _ArraysOnly(pickle.Unpickler):
        """Reads the parameter arrays only: everything that is not numpy/builtins becomes a stub."""

        def find_class(self, module, name):
            if module.split(".")[0] in ("numpy", "builtins", "collections", "copyreg", "_codecs"):
                return super().find_class(module, name)
            return _Stub

    with open(path, "rb") as file_handler:
        _, params = _ArraysOnly(file_handler).load()
    golden = np.load(golden_path)
    actions = _run_legacy(CARTPOLE_OBS, spaces.Discrete(2), list(zip([n for n, _ in A2C_CARTPOLE], params)), golden)
    np.testing.assert_array_equal(actions, golden["action"].ravel())
