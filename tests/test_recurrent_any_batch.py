"""
Recurrent policies at any batch size (issue 22): predict and action_probability with more or fewer observations
than training envs, states of any batch, load and set_env with any number of envs, evaluation on several envs.
"""
import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import A2C, ACER, ACKTR, PPO2
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.vec_env import DummyVecEnv
from stable_baselines.common.tf_compat import tf

N_LSTM = 16
STATE_SIZE = 2 * N_LSTM


def _cartpole_envs(n_envs):
    return DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * n_envs)


def _observations(n_rows, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, size=(n_rows, 4)).astype(np.float32)


def _n_ops(model):
    return len(model.graph.get_operations())


def _global_variables(model):
    with model.graph.as_default():
        return [variable.name for variable in tf.global_variables()]


@pytest.fixture(scope="module")
def ppo2_model():
    model = PPO2("MlpLstmPolicy", _cartpole_envs(4), n_steps=16, nminibatches=2, seed=0, n_cpu_tf_sess=1,
                 policy_kwargs=dict(n_lstm=N_LSTM))
    model.learn(128)
    return model


def _assert_consistent_over_batches(model, n_envs):
    """Two steps with 2 * n_envs rows, then the same rows in batches of n_envs and of 1: same answers."""
    obs = _observations(2 * n_envs)
    actions, states = model.predict(obs, deterministic=True)
    assert actions.shape == (2 * n_envs,) and states.shape == (2 * n_envs, STATE_SIZE)
    assert np.abs(states).max() > 0  # the LSTM moved
    mask = np.arange(2 * n_envs) % 3 == 0
    next_actions, next_states = model.predict(obs[::-1], state=states, mask=mask, deterministic=True)
    for rows in (slice(0, n_envs), slice(n_envs, 2 * n_envs)):
        part_actions, part_states = model.predict(obs[rows], deterministic=True)
        np.testing.assert_array_equal(part_actions, actions[rows])
        np.testing.assert_allclose(part_states, states[rows], rtol=1e-5, atol=1e-6)
        part_actions, part_states = model.predict(obs[::-1][rows], state=states[rows], mask=mask[rows],
                                                  deterministic=True)
        np.testing.assert_array_equal(part_actions, next_actions[rows])
        np.testing.assert_allclose(part_states, next_states[rows], rtol=1e-5, atol=1e-6)
    for row in (0, n_envs + 1, 2 * n_envs - 1):
        one_action, one_state = model.predict(obs[::-1][row], state=states[row:row + 1], mask=mask[row:row + 1],
                                              deterministic=True)
        assert one_action == next_actions[row] and one_state.shape == (1, STATE_SIZE)
        np.testing.assert_allclose(one_state[0], next_states[row], rtol=1e-5, atol=1e-6)


def test_ppo2_predict_consistent_for_1_n_envs_and_twice_n_envs(ppo2_model):
    names = [param.name for param in ppo2_model.get_parameter_list()]
    variables = _global_variables(ppo2_model)
    _assert_consistent_over_batches(ppo2_model, 4)
    # the copies for other batch sizes read the same variables: no new one, the parameter list unchanged
    assert [param.name for param in ppo2_model.get_parameter_list()] == names
    assert _global_variables(ppo2_model) == variables
    # one copy per batch size, made once
    n_ops = _n_ops(ppo2_model)
    ppo2_model.predict(_observations(8, seed=3))
    ppo2_model.predict(_observations(1, seed=3))
    assert _n_ops(ppo2_model) == n_ops


def test_state_none_and_masks(ppo2_model):
    obs = _observations(8)
    zeros = np.zeros((8, STATE_SIZE), dtype=np.float32)
    actions, states = ppo2_model.predict(obs, deterministic=True)
    np.testing.assert_array_equal(ppo2_model.predict(obs, state=zeros, deterministic=True)[1], states)
    # an episode start resets the row's state: with every mask set, any state gives the first step's answer
    noise = np.random.RandomState(1).randn(8, STATE_SIZE).astype(np.float32)
    reset_actions, reset_states = ppo2_model.predict(obs, state=noise, mask=np.ones(8, bool), deterministic=True)
    np.testing.assert_array_equal(reset_actions, actions)
    np.testing.assert_allclose(reset_states, states, rtol=1e-6, atol=1e-7)
    # without the mask the state counts
    assert not np.allclose(ppo2_model.predict(obs, state=noise, deterministic=True)[1], states)
    # one observation without a batch axis: one action, a state of one row
    action, state = ppo2_model.predict(obs[2], deterministic=True)
    assert np.ndim(action) == 0 and action == actions[2] and state.shape == (1, STATE_SIZE)


def test_action_probability_any_batch(ppo2_model):
    obs = _observations(8)
    _, states = ppo2_model.predict(obs)
    proba = ppo2_model.action_probability(obs, state=states)
    assert proba.shape == (8, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(ppo2_model.action_probability(obs[:4], state=states[:4]), proba[:4], rtol=1e-5)
    np.testing.assert_allclose(ppo2_model.action_probability(obs[5], state=states[5:6]), proba[5], rtol=1e-5)
    chosen = np.array([0, 1, 1, 0, 0, 1, 0, 1])
    np.testing.assert_allclose(ppo2_model.action_probability(obs, state=states, actions=chosen)[:, 0],
                               proba[np.arange(8), chosen], rtol=1e-5)
    logp = ppo2_model.action_probability(obs[:1], state=states[:1], actions=[1], logp=True)
    np.testing.assert_allclose(logp, np.log(proba[:1, 1:]), rtol=1e-5)


def test_fewer_observations_with_a_state_per_env_are_padded(ppo2_model):
    """The earlier convention (a state of n_envs rows with fewer observations) still answers, row for row."""
    obs = _observations(4)
    _, states = ppo2_model.predict(obs, deterministic=True)
    actions, next_states = ppo2_model.predict(obs, state=states, deterministic=True)
    action, padded_states = ppo2_model.predict(obs[:1], state=states, mask=[False], deterministic=True)
    assert action.shape == (1,) and action[0] == actions[0] and padded_states.shape == (4, STATE_SIZE)
    np.testing.assert_allclose(padded_states[0], next_states[0], rtol=1e-5, atol=1e-6)


def test_bad_state_shape_names_expected_and_given(ppo2_model):
    with pytest.raises(ValueError, match=r"state of this recurrent policy is an array of shape \(n_envs, state "
                                         r"size\) = \(8, 32\), got \(4, 32\) of dtype float32: one row per "
                                         r"observation"):
        ppo2_model.predict(_observations(8), state=np.zeros((4, STATE_SIZE), np.float32))
    with pytest.raises(ValueError, match=r"= \(2, 32\) or \(4, 32\), got \(3, 32\)"):
        ppo2_model.action_probability(_observations(2), state=np.zeros((3, STATE_SIZE)))
    with pytest.raises(ValueError, match=r"= \(1, 32\) or \(4, 32\), got \(1, 31\)"):
        ppo2_model.predict(_observations(1)[0], state=np.zeros((1, 31)))
    with pytest.raises(ValueError, match=r"mask of a recurrent policy .*expected shape \(8,\), got \(4,\)"):
        ppo2_model.predict(_observations(8), mask=np.zeros(4, bool))
    with pytest.raises(ValueError, match="at least one observation, got an empty batch"):
        ppo2_model.predict(np.zeros((0, 4)))


@pytest.mark.parametrize("model_class, policy", [(A2C, "MlpLstmPolicy"), (ACER, "MlpLnLstmPolicy"),
                                                 (ACKTR, "MlpLstmPolicy"), (PPO2, "MlpLnLstmPolicy")])
def test_other_algorithms_and_layer_norm(model_class, policy):
    extra = dict(replay_start=8) if model_class is ACER else {}
    extra.update(nminibatches=3) if model_class is PPO2 else None
    model = model_class(policy, _cartpole_envs(3), n_steps=8, seed=0, n_cpu_tf_sess=1,
                        policy_kwargs=dict(n_lstm=N_LSTM), **extra)
    model.learn(48)
    _assert_consistent_over_batches(model, 3)


class _TinyImages(gymnasium.Env):
    """Random 36x36 grey images (the smallest the Nature CNN takes)."""

    observation_space = spaces.Box(0, 255, shape=(36, 36, 1), dtype=np.uint8)
    action_space = spaces.Discrete(3)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self.observation_space.sample(), {}

    def step(self, action):
        return self.observation_space.sample(), 0.0, False, False, {}


@pytest.mark.parametrize("policy", ["CnnLstmPolicy", "CnnLnLstmPolicy"])
def test_cnn_lstm_predicts_any_batch(policy):
    model = A2C(policy, DummyVecEnv([_TinyImages] * 2), n_steps=2, seed=0, n_cpu_tf_sess=1,
                policy_kwargs=dict(n_lstm=N_LSTM))
    images = np.random.RandomState(0).randint(0, 256, size=(4, 36, 36, 1)).astype(np.uint8)
    proba = model.action_probability(images)
    _, states = model.predict(images, deterministic=True)
    assert proba.shape == (4, 3) and states.shape == (4, STATE_SIZE)
    for rows in (slice(0, 2), slice(2, 4), slice(3, 4)):
        np.testing.assert_allclose(model.action_probability(images[rows]), proba[rows], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(model.predict(images[rows], deterministic=True)[1], states[rows], rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("n_envs", [1, 8])
def test_load_with_any_number_of_envs(ppo2_model, tmp_path, n_envs):
    path = str(tmp_path / "ppo2_lstm")
    ppo2_model.save(path)
    obs = _observations(n_envs)
    expected_actions, expected_states = ppo2_model.predict(obs, deterministic=True)
    loaded = PPO2.load(path, env=_cartpole_envs(n_envs))
    assert loaded.n_envs == n_envs and loaded.initial_state.shape == (n_envs, STATE_SIZE)
    assert [param.name for param in loaded.get_parameter_list()] == \
        [param.name for param in ppo2_model.get_parameter_list()]
    actions, states = loaded.predict(obs, deterministic=True)
    np.testing.assert_array_equal(actions, expected_actions)
    np.testing.assert_allclose(states, expected_states, rtol=1e-5, atol=1e-6)
    # the 4 rows of the training envs too, whatever the loaded number of envs
    np.testing.assert_array_equal(loaded.predict(_observations(4), deterministic=True)[0],
                                  ppo2_model.predict(_observations(4), deterministic=True)[0])
    if n_envs % loaded.nminibatches != 0:
        # training cuts the envs' sequences into nminibatches minibatches: 1 env cannot be cut into 2
        with pytest.raises(ValueError, match=r"number of environments run in parallel \(1\) must be a multiple "
                                             r"of nminibatches \(2\): change nminibatches \(e.g. "
                                             r"model.nminibatches = 1\)"):
            loaded.learn(32)
        assert loaded.num_timesteps == 0
        loaded.nminibatches = 1
    loaded.learn(32 * n_envs)
    assert loaded.num_timesteps == 32 * n_envs


def test_load_without_env_predicts_any_batch(ppo2_model, tmp_path):
    path = str(tmp_path / "ppo2_lstm")
    ppo2_model.save(path)
    loaded = PPO2.load(path)
    obs = _observations(8)
    np.testing.assert_array_equal(loaded.predict(obs, deterministic=True)[0],
                                  ppo2_model.predict(obs, deterministic=True)[0])


@pytest.mark.parametrize("model_class", [A2C, ACER])
def test_set_env_with_another_number_of_envs_keeps_every_variable(model_class):
    extra = dict(replay_start=8) if model_class is ACER else {}
    model = model_class("MlpLstmPolicy", _cartpole_envs(2), n_steps=8, seed=0, n_cpu_tf_sess=1,
                        policy_kwargs=dict(n_lstm=N_LSTM), **extra)
    model.learn(64)
    with model.graph.as_default():
        before = dict(zip(_global_variables(model), model.sess.run(tf.global_variables())))
    obs = _observations(3)
    actions, states = model.predict(obs, deterministic=True)
    model.set_env(_cartpole_envs(3))
    assert model.n_envs == 3 and model.initial_state.shape == (3, STATE_SIZE) and model.n_batch == 24
    with model.graph.as_default():
        after = dict(zip(_global_variables(model), model.sess.run(tf.global_variables())))
    # parameters and the optimizer's state (RMSProp moments, ACER's average network) go on from where they were
    assert sorted(after) == sorted(before)
    assert any("RMSProp" in name for name in before)
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    new_actions, new_states = model.predict(obs, deterministic=True)
    np.testing.assert_array_equal(new_actions, actions)
    np.testing.assert_allclose(new_states, states, rtol=1e-5, atol=1e-6)
    model.learn(48, reset_num_timesteps=False)
    assert model.num_timesteps == 64 + 48


def test_ppo2_construction_still_refuses_an_untrainable_layout():
    with pytest.raises(ValueError, match=r"environments run in parallel \(3\) must be a multiple of nminibatches "
                                         r"\(2\)"):
        PPO2("MlpLstmPolicy", _cartpole_envs(3), nminibatches=2)


def test_acer_feed_forward_set_env_rebuilds_too():
    model = ACER("MlpPolicy", _cartpole_envs(2), n_steps=4, replay_start=4, seed=0, n_cpu_tf_sess=1)
    model.learn(32)
    obs = _observations(5)
    proba = model.action_probability(obs)
    model.set_env(_cartpole_envs(3))
    assert model.n_envs == 3
    np.testing.assert_allclose(model.action_probability(obs), proba, rtol=1e-5, atol=1e-6)
    model.learn(24, reset_num_timesteps=False)
    assert model.num_timesteps == 32 + 24


def test_several_envs_step_by_step(ppo2_model):
    """What evaluation does with a VecEnv of 3 envs: observations, state and the dones as mask, 3 rows a step."""
    env = _cartpole_envs(3)
    env.seed(0)
    obs = env.reset()
    state, dones = None, np.zeros(3, bool)
    ended = 0
    for _ in range(60):
        actions, state = ppo2_model.predict(obs, state=state, mask=dones, deterministic=True)
        assert actions.shape == (3,) and state.shape == (3, STATE_SIZE)
        obs, _, dones, _ = env.step(actions)
        ended += int(dones.sum())
    assert ended > 0


def _evaluation_takes_several_envs():
    try:
        evaluate_policy(lambda *args, **kwargs: None, DummyVecEnv([lambda: gymnasium.make("CartPole-v1")] * 2),
                        n_eval_episodes=1)
    except ValueError as error:
        return "exactly one environment" not in str(error)
    except Exception:  # pylint: disable=broad-except
        return True
    return True


@pytest.mark.skipif(not _evaluation_takes_several_envs(),
                    reason="this checkout's evaluate_policy takes a VecEnv of one environment only")
def test_evaluate_policy_on_three_envs(ppo2_model):
    rewards, lengths = evaluate_policy(ppo2_model, _cartpole_envs(3), n_eval_episodes=5,
                                       return_episode_rewards=True)
    assert len(rewards) == len(lengths) == 5
    assert all(length >= 1 for length in lengths)
    mean, std = evaluate_policy(ppo2_model, _cartpole_envs(3), n_eval_episodes=4)
    assert mean > 0 and std >= 0


@pytest.mark.skipif(not _evaluation_takes_several_envs(),
                    reason="this checkout's evaluate_policy takes a VecEnv of one environment only")
def test_eval_callback_with_a_recurrent_model_on_three_envs():
    from stable_baselines.common.callbacks import EvalCallback
    model = A2C("MlpLstmPolicy", _cartpole_envs(2), n_steps=8, seed=0, n_cpu_tf_sess=1,
                policy_kwargs=dict(n_lstm=N_LSTM))
    callback = EvalCallback(_cartpole_envs(3), n_eval_episodes=3, eval_freq=16, verbose=0)
    model.learn(64, callback=callback)
    assert callback.n_calls == 32 and np.isfinite(callback.last_mean_reward)
    assert callback.last_mean_reward >= 8  # CartPole lasts at least 8 steps


def test_a_policy_that_cannot_be_copied_is_a_clear_error():
    from stable_baselines.common.policies import LstmPolicy

    class ExtraVariablePolicy(LstmPolicy):
        """Makes a variable with tf.Variable: a copy sharing the variables would have a new, uninitialised one."""

        def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **kwargs):
            super().__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, n_lstm=N_LSTM, reuse=reuse,
                             feature_extraction="mlp", **kwargs)
            self.extra = tf.Variable(1.0, name="extra")

    model = A2C(ExtraVariablePolicy, _cartpole_envs(2), n_steps=4, seed=0)
    assert model.predict(_observations(2))[0].shape == (2,)
    with pytest.raises(ValueError, match=r"Acting on 3 observations needs a copy of this recurrent policy .* "
                                         r"failed: it created new variables"):
        model.predict(_observations(3))
