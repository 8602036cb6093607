"""ACER: the legacy zoo file, Retrace targets, the segment replay buffer, errors, save/load, determinism, learning."""
import os
import warnings

import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import ACER
from stable_baselines.acer.acer_simple import q_retrace
from stable_baselines.acer.buffer import Buffer
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.identity_env import IdentityEnv, IdentityEnvBox, IdentityEnvMultiDiscrete
from stable_baselines.common.schedules import Scheduler
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.vec_env import DummyVecEnv, VecFrameStack

from callback_helpers import HookRecorder  # pylint: disable=wrong-import-order
from memory_env import CueMemoryEnv  # pylint: disable=wrong-import-order
from legacy_helpers import assert_golden_discrete_forward  # pylint: disable=wrong-import-order
from original_training import assert_trains_like_the_original  # pylint: disable=wrong-import-order
from rollout_helpers import seeded_evaluation, vec_mean_return  # pylint: disable=wrong-import-order

LEGACY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models")
LEGACY_FILE = os.path.join(LEGACY_DIR, "acer", "CartPole-v1.pkl")

EXPECTED_NAMES = [
    "model/pi_fc0/w:0", "model/pi_fc0/b:0", "model/vf_fc0/w:0", "model/vf_fc0/b:0",
    "model/pi_fc1/w:0", "model/pi_fc1/b:0", "model/vf_fc1/w:0", "model/vf_fc1/b:0",
    "model/vf/w:0", "model/vf/b:0", "model/pi/w:0", "model/pi/b:0", "model/q/w:0", "model/q/b:0",
]


def _cartpole_vec(n_envs=2):
    return DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(n_envs)])


def _small_acer(env, **kwargs):
    params = dict(n_steps=5, buffer_size=100, replay_start=10, seed=0, n_cpu_tf_sess=1,
                  policy_kwargs=dict(net_arch=[dict(pi=[16], vf=[16])]))
    params.update(kwargs)
    return ACER("MlpPolicy", env, **params)


# ------------------------------------------------------------------------------------------------
# legacy file of the original library (rl-baselines-zoo agent)
# ------------------------------------------------------------------------------------------------
def test_legacy_file_matches_golden_and_parameter_list():
    model = ACER.load(LEGACY_FILE)
    assert [param.name for param in model.get_parameter_list()] == EXPECTED_NAMES
    assert model.n_envs == 8 and model.ent_coef == 0.0 and model.n_steps == 20
    golden = np.load(os.path.join(LEGACY_DIR, "golden", "acer", "CartPole-v1.npz"))
    assert_golden_discrete_forward(model, model.step_model, golden)
    # the average policy network of the trust region starts from the loaded parameters
    for param, average in zip(model.params, model.average_params):
        np.testing.assert_array_equal(*model.sess.run([param, average]))


def test_legacy_file_scores_500():
    model = ACER.load(LEGACY_FILE)
    env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(model.n_envs)])
    env.seed(0)
    assert vec_mean_return(model, env, model.n_envs) == 500.0


def test_training_matches_the_original_libraries_training():
    """
    The original 2.10 ACER (its own code, run once under tf.compat.v1; see original_2_10/README.md), zoo
    settings for CartPole-v1, seed 0: its parameters before and after learn(4000), which takes 25 rollouts
    and the replays that follow once the buffer holds replay_start steps. Same seed here: same parameters.
    """
    model = ACER("MlpPolicy", _cartpole_vec(8), ent_coef=0.0, seed=0, n_cpu_tf_sess=1)
    assert_trains_like_the_original(model, 4000, "acer_CartPole-v1_seed0_4000.npz", atol=1e-6)


# ------------------------------------------------------------------------------------------------
# Retrace targets
# ------------------------------------------------------------------------------------------------
def _numpy_retrace(rewards, dones, q_i, values, rho_i, gamma):
    """Reference: one environment at a time, rows [n_envs, n_steps] (values [n_envs, n_steps + 1])."""
    n_envs, n_steps = rewards.shape
    out = np.zeros_like(rewards)
    for env in range(n_envs):
        qret = values[env, -1]
        for t in reversed(range(n_steps)):
            qret = rewards[env, t] + gamma * qret * (1.0 - dones[env, t])
            out[env, t] = qret
            qret = min(1.0, rho_i[env, t]) * (qret - q_i[env, t]) + values[env, t]
    return out


def test_q_retrace_matches_reference():
    rng = np.random.RandomState(0)
    n_envs, n_steps, gamma = 3, 4, 0.9
    rewards = rng.randn(n_envs, n_steps).astype(np.float32)
    dones = (rng.rand(n_envs, n_steps) < 0.3).astype(np.float32)
    q_i = rng.randn(n_envs, n_steps).astype(np.float32)
    values = rng.randn(n_envs, n_steps + 1).astype(np.float32)
    rho_i = rng.uniform(0, 2, size=(n_envs, n_steps)).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        qret = q_retrace(tf.constant(rewards.reshape(-1)), tf.constant(dones.reshape(-1)),
                         tf.constant(q_i.reshape(-1)), tf.constant(values.reshape(-1)),
                         tf.constant(rho_i.reshape(-1)), n_envs, n_steps, gamma)
        with tf.Session(graph=graph) as sess:
            result = sess.run(qret).reshape(n_envs, n_steps)
    np.testing.assert_allclose(result, _numpy_retrace(rewards, dones, q_i, values, rho_i, gamma), rtol=1e-5)


# ------------------------------------------------------------------------------------------------
# replay buffer
# ------------------------------------------------------------------------------------------------
def _segment(rng, n_envs, n_steps, obs_shape, n_act=2):
    obs = rng.randn(n_envs, n_steps + 1, *obs_shape).astype(np.float32)
    actions = rng.randint(n_act, size=(n_envs, n_steps))
    rewards = rng.randn(n_envs, n_steps).astype(np.float32)
    mus = rng.dirichlet(np.ones(n_act), size=(n_envs, n_steps)).astype(np.float32)
    masks = rng.rand(n_envs, n_steps + 1) < 0.2
    return obs, actions, rewards, mus, masks[:, 1:], masks


def test_buffer_stores_segments_and_samples_one_per_env():
    env = _cartpole_vec(2)
    buffer = Buffer(env, n_steps=5, size=15)
    assert buffer.size == 3 and not buffer.can_sample() and not buffer.has_atleast(5)
    with pytest.raises(RuntimeError, match="empty"):
        buffer.get()
    rng = np.random.RandomState(0)
    segments = [_segment(rng, 2, 5, (4,)) for _ in range(4)]
    for segment in segments:
        buffer.put(*segment)
    assert len(buffer) == 3 and buffer.has_atleast(15) and not buffer.has_atleast(20)
    # the oldest segment was overwritten; every sampled row is env i's row of a kept segment
    for _ in range(10):
        obs, actions, rewards, mus, dones, masks = buffer.get()
        assert obs.shape == (2, 6, 4) and actions.shape == (2, 5) and mus.shape == (2, 5, 2)
        for env_idx in range(2):
            matches = [k for k, seg in enumerate(segments) if np.array_equal(seg[0][env_idx], obs[env_idx])]
            assert len(matches) == 1 and matches[0] >= 1
            seg = segments[matches[0]]
            np.testing.assert_array_equal(actions[env_idx], seg[1][env_idx])
            np.testing.assert_array_equal(rewards[env_idx], seg[2][env_idx])
            np.testing.assert_array_equal(mus[env_idx], seg[3][env_idx])
            np.testing.assert_array_equal(dones[env_idx], seg[4][env_idx])
            np.testing.assert_array_equal(masks[env_idx], seg[5][env_idx])
    with pytest.raises(ValueError, match="shape"):
        buffer.put(np.zeros((2, 5, 4)), *segments[0][1:])


def test_buffer_frame_stacking_stores_newest_frame_and_rebuilds_stacks():
    n_steps, n_stack = 12, 3
    env = VecFrameStack(_cartpole_vec(2), n_stack)
    env.seed(0)
    buffer = Buffer(env, n_steps=n_steps, size=2 * n_steps)
    assert buffer.n_stack == n_stack and buffer.frame_size == 4
    obs = env.reset()
    observations, dones_seen = [obs], [np.zeros(2, dtype=bool)]
    for _ in range(n_steps):
        obs, _, dones, _ = env.step(np.zeros(2, dtype=np.int64))  # always left: episodes end quickly
        observations.append(obs)
        dones_seen.append(dones)
    observations = np.asarray(observations).swapaxes(0, 1)
    masks = np.asarray(dones_seen).swapaxes(0, 1)
    assert masks[:, 1:].any(), "the segment must contain an episode end"
    buffer.put(observations, np.zeros((2, n_steps)), np.zeros((2, n_steps)), np.full((2, n_steps, 2), 0.5),
               masks[:, 1:], masks)
    # only the newest frame of the following observations is kept
    assert buffer.enc_obs.shape == (2, 2, 12) and buffer.frames.shape == (2, 2, n_steps, 4)
    sampled_obs = buffer.get()[0]
    np.testing.assert_array_equal(sampled_obs, observations)


# ------------------------------------------------------------------------------------------------
# errors, signature details
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_class,space_name", [(IdentityEnvBox, "Box"), (IdentityEnvMultiDiscrete,
                                                                           "MultiDiscrete")])
def test_non_discrete_actions_are_refused(env_class, space_name):
    env = DummyVecEnv([lambda: env_class(dim=2) if space_name == "MultiDiscrete" else env_class()])
    with pytest.raises(ValueError, match="ACER only supports a Discrete action space, got {}".format(space_name)):
        ACER("MlpPolicy", env)


def test_num_procs_is_deprecated_for_n_cpu_tf_sess():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ACER("MlpPolicy", _cartpole_vec(1), num_procs=1, _init_setup_model=False)
    assert model.n_cpu_tf_sess == 1
    assert any(issubclass(w.category, DeprecationWarning) and "n_cpu_tf_sess" in str(w.message) for w in caught)


def test_set_env_checks_spaces_and_rebuilds_for_another_number_of_envs():
    model = _small_acer(_cartpole_vec(2))
    # the graph has the number of envs in its shapes: it is built again for 3, the variables keep their values
    params = _params(model)
    model.set_env(_cartpole_vec(3))
    assert (model.n_envs, model.n_batch) == (3, 3 * model.n_steps)
    for name, value in _params(model).items():
        np.testing.assert_array_equal(value, params[name])
    with pytest.raises(ValueError):
        model.set_env(DummyVecEnv([IdentityEnvBox, IdentityEnvBox]))


# ------------------------------------------------------------------------------------------------
# training mechanics
# ------------------------------------------------------------------------------------------------
def _params(model):
    return model.get_parameters()


def test_seeded_runs_are_identical_and_replay_happens():
    results = []
    for _ in range(2):
        model = _small_acer(_cartpole_vec(2))
        initial = _params(model)
        replays = []
        original_train_step = model._train_step

        def counting_train_step(*args, **kwargs):
            replays.append(args[-1] if args else None)
            return original_train_step(*args, **kwargs)

        model._train_step = counting_train_step
        model.learn(200)
        results.append(_params(model))
        # 20 on-policy updates; replays (Poisson(4) each) start once 10 steps per env are stored
        assert len(replays) > 20
    for name in results[0]:
        np.testing.assert_array_equal(results[0][name], results[1][name], err_msg=name)
    # training moved the parameters (except the unused state-value head: ACER's critic is the Q head),
    # and the averaged network follows them but lags behind
    moved = [name for name, value in results[1].items() if not np.array_equal(initial[name], value)]
    assert moved == [name for name in results[1] if not name.startswith("model/vf/")]
    averages = dict(zip(results[1].keys(), model.sess.run(model.average_params)))
    for name in moved:
        assert not np.allclose(averages[name], results[1][name]) and not np.allclose(averages[name], initial[name])


def _one_update(configs):
    """Apply the same on-policy update to one freshly built model per configuration; return params and stats."""
    models = {name: _small_acer(_cartpole_vec(2), replay_ratio=0, lr_schedule="constant", **kwargs)
              for name, kwargs in configs.items()}
    first = next(iter(models.values()))
    segment = first.runner.run(None)
    obs, actions, rewards, mus, dones, masks = first._reshape_segment(*segment[1:7])
    params, stats = {}, {}
    for name, model in models.items():
        probs = model.sess.run(model.train_model.policy_proba, {model.train_model.obs_ph: obs})
        model.learning_rate_schedule = Scheduler(model.learning_rate, 1000, "constant")
        names, values = model._train_step(obs, actions, rewards, dones, mus, None, masks, 0)
        params[name], stats[name] = model.get_parameters(), dict(zip(names, values))
        stats[name]["entropy_of_batch"] = float(-np.sum(probs * np.log(probs)))
    return params, stats


def test_trust_region_gradient_and_entropy_bonus():
    """With a huge delta the KL projection never triggers: the gradient back-propagated through pi plus the Q
    gradient equals the gradient of the whole loss. As in the original, the entropy is computed from the policy
    distribution (logits) while the trust-region gradient is taken with respect to the probabilities: ent_coef
    changes the update only with trust_region=False."""
    params, stats = _one_update({"plain_0": dict(trust_region=False, ent_coef=0.0),
                                 "plain_1": dict(trust_region=False, ent_coef=0.5),
                                 "loose_0": dict(delta=1e9, ent_coef=0.0),
                                 "loose_1": dict(delta=1e9, ent_coef=0.5)})
    for name in params["plain_0"]:
        np.testing.assert_allclose(params["loose_0"][name], params["plain_0"][name], rtol=1e-5, atol=1e-7,
                                   err_msg=name)
        np.testing.assert_array_equal(params["loose_1"][name], params["loose_0"][name], err_msg=name)
    assert stats["loose_0"]["avg_norm_adj"] == 0.0
    assert "avg_norm_adj" not in stats["plain_0"]
    changed = [name for name in params["plain_0"]
               if not np.allclose(params["plain_1"][name], params["plain_0"][name], rtol=1e-6, atol=1e-9)]
    assert changed and all(name.startswith("model/pi") for name in changed)
    # as in the original, the entropy is summed over the 2 x (5 + 1) observations of the batch: each term is
    # at most log(2), and near log(2) for a freshly initialised policy (logits scaled by 0.01)
    assert 12 * 0.9 * np.log(2) < stats["loose_1"]["entropy"] <= 12 * np.log(2) + 1e-5
    for name in ("plain_1", "loose_1"):
        np.testing.assert_allclose(stats[name]["entropy"], stats[name]["entropy_of_batch"], rtol=1e-5)
        np.testing.assert_allclose(stats[name]["loss"] - stats[name.replace("_1", "_0")]["loss"],
                                   -0.5 * stats[name]["entropy"], rtol=1e-4)
    assert stats["loose_1"]["loss"] < stats["loose_0"]["loss"]


class _CountingCallback(HookRecorder):
    def __init__(self, stop_after=None):
        super().__init__()
        self.stop_after = stop_after
        self.seen_locals = set()

    def _on_step(self):
        self.seen_locals.update(self.locals.keys())
        return self.stop_after is None or self.n_calls < self.stop_after


def test_callbacks_progress_bar_logger_tensorboard_and_early_stop(tmp_path, capsys):
    model = _small_acer(_cartpole_vec(2), replay_ratio=0, verbose=1, tensorboard_log=str(tmp_path))
    callback = _CountingCallback()
    model.learn(40, callback=callback, progress_bar=True, log_interval=1)
    assert callback.n_calls == 20 and model.num_timesteps == 40
    assert callback.events == ["start"] + ["rollout_start", "rollout_end"] * 4 + ["end"]
    assert {"enc_obs", "mb_mus", "mus", "actions", "rewards", "dones", "clipped_actions"} <= callback.seen_locals
    out = capsys.readouterr().out
    for key in ("total_timesteps", "mean_episode_reward", "loss_q", "avg_norm_adj", "explained_variance"):
        assert key in out
    event_files = [f for _, _, files in os.walk(str(tmp_path)) for f in files if "tfevents" in f]
    assert event_files, "tensorboard events expected in {}".format(tmp_path)
    stopper = _CountingCallback(stop_after=7)
    model.learn(1000, callback=stopper)
    assert stopper.n_calls == 7 and model.num_timesteps == 14


def test_save_load_round_trip(tmp_path):
    env = _cartpole_vec(2)
    model = _small_acer(env, ent_coef=0.02, delta=0.5, trust_region=True)
    model.learn(100)
    obs = env.reset()
    actions, _ = model.predict(obs, deterministic=True)
    proba = model.action_probability(obs)
    for cloudpickle in (False, True):
        path = str(tmp_path / ("acer.pkl" if cloudpickle else "acer.zip"))
        model.save(path, cloudpickle=cloudpickle)
        loaded = ACER.load(path, env=env)
        assert (loaded.ent_coef, loaded.delta, loaded.n_steps, loaded.buffer_size) == (0.02, 0.5, 5, 100)
        for name, value in _params(model).items():
            np.testing.assert_array_equal(value, loaded.get_parameters()[name])
        np.testing.assert_array_equal(loaded.predict(obs, deterministic=True)[0], actions)
        np.testing.assert_allclose(loaded.action_probability(obs), proba, rtol=1e-6)
    loaded.learn(20)  # training goes on after loading


def test_recurrent_policy_trains_saves_and_predicts(tmp_path):
    env = DummyVecEnv([CueMemoryEnv for _ in range(2)])
    model = ACER("MlpLstmPolicy", env, n_steps=4, buffer_size=40, replay_start=8, seed=0,
                 policy_kwargs=dict(n_lstm=8))
    model.learn(64)
    obs = env.reset()
    actions, states = model.predict(obs, deterministic=True)
    assert actions.shape == (2,) and states.shape == (2, 16)
    path = str(tmp_path / "acer_lstm.zip")
    model.save(path)
    loaded = ACER.load(path, env=env)
    np.testing.assert_array_equal(loaded.predict(obs, deterministic=True)[0], actions)


# ------------------------------------------------------------------------------------------------
# learning
# ------------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_acer_learns_identity_with_discrete_observations():
    """Discrete(4) observations (one-hot input) and actions: reward 1 when the action names the observation."""
    env = DummyVecEnv([lambda: IdentityEnv(4) for _ in range(4)])
    env.seed(0)
    model = ACER("MlpPolicy", env, n_steps=5, gamma=0.9, learning_rate=3e-3, lr_schedule="constant",
                 replay_start=50, buffer_size=1000, seed=0, n_cpu_tf_sess=1)
    model.learn(2000)
    # 100-step episodes: a random policy scores 25
    assert vec_mean_return(model, env, 8) >= 95


@pytest.mark.slow
def test_acer_lstm_remembers_the_cue():
    """MlpLstmPolicy solves the cue-memory task (a feed-forward policy cannot beat 0.5, see test_recurrent_memory)."""
    env = DummyVecEnv([CueMemoryEnv for _ in range(4)])
    env.seed(0)
    model = ACER("MlpLstmPolicy", env, n_steps=5, gamma=0.9, learning_rate=5e-3, lr_schedule="constant",
                 replay_start=50, buffer_size=2000, seed=0, n_cpu_tf_sess=1, policy_kwargs=dict(n_lstm=16))
    model.learn(6000)
    assert vec_mean_return(model, env, 200) >= 0.95


@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
def test_acer_learns_cartpole_with_zoo_hyperparameters(learning_seed, learning_score):
    """The rl-baselines-zoo settings (8 envs, 1e5 steps, ent_coef 0, the rest default, as stored in the zoo's
    legacy file): seeds 0-4 score 160-430 (deterministic) at this budget, a random policy about 22."""
    env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(8)])
    model = ACER("MlpPolicy", env, ent_coef=0.0, seed=learning_seed, n_cpu_tf_sess=1)
    model.learn(100000)
    mean_return, _ = seeded_evaluation(model, "CartPole-v1", 1000 + learning_seed, n_eval_episodes=10, deterministic=True)
    learning_score(mean_return)
    assert mean_return >= 100
    # the critic learned values far above those of a random policy (about 20 at the start state)
    q_start = model.sess.run(model.step_model.q_value, {model.step_model.obs_ph: np.zeros((1, 4), np.float32)})
    assert q_start.min() > 30
