"""SAC: parameter names, entropy-coefficient variants, action rescaling, the learning loop,
legacy model files, save/load round trips, errors, and a learning check on Pendulum-v1."""
import os
import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import SAC
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.noise import NormalActionNoise
from stable_baselines.common.vec_env import DummyVecEnv
from stable_baselines.sac import CnnPolicy, LnMlpPolicy, MlpPolicy
from stable_baselines.sac.policies import FeedForwardPolicy
from rollout_helpers import seeded_evaluation  # noqa: E402  (tests/ helper)
from legacy_helpers import (assert_golden_actions, deterministic_returns, param_list,  # noqa: E402  (tests/ helper)
                            readme_parameter_list)

LEGACY_DIR = os.path.join(os.path.dirname(__file__), "data", "legacy_models")


class BoxEnv(gymnasium.Env):
    """A small continuous task: obs (n_obs,), action Box(low, high); reward = -|a - target|, episodes of ``ep_len``."""

    def __init__(self, n_obs=3, low=(-2.0,), high=(2.0,), ep_len=50):
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(n_obs,), dtype=np.float32)
        self.action_space = spaces.Box(np.array(low, dtype=np.float32), np.array(high, dtype=np.float32))
        self.ep_len = ep_len
        self.sent_actions = []
        self._t = 0

    def _obs(self):
        return self.np_random.uniform(-1, 1, size=self.observation_space.shape).astype(np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return self._obs(), {}

    def step(self, action):
        self.sent_actions.append(np.array(action, copy=True))
        self._t += 1
        reward = -float(np.abs(np.asarray(action) - self.action_space.low).sum())
        return self._obs(), reward, False, self._t >= self.ep_len, {}


# ----------------------------------------------------------------------------------------------
# parameter lists (the README contract)
# ----------------------------------------------------------------------------------------------
def test_parameter_list_pendulum_float_ent_coef():
    model = SAC(MlpPolicy, make_env("Pendulum-v1"), ent_coef=0.2)
    expected = readme_parameter_list("sac/Pendulum-v0.pkl")
    assert len(expected) == 32
    assert param_list(model) == expected


def test_parameter_list_auto_ent_coef():
    env = BoxEnv(n_obs=8, low=(-1.0, -1.0), high=(1.0, 1.0))
    model = SAC("MlpPolicy", env, ent_coef="auto")
    expected = readme_parameter_list("sac/LunarLanderContinuous-v2.pkl")
    assert len(expected) == 33
    assert param_list(model) == expected


def test_parameter_list_layer_norm_and_layers():
    model = SAC(LnMlpPolicy, BoxEnv(), ent_coef=0.1, policy_kwargs=dict(layers=[16]))
    names = [name for name, _ in param_list(model)]
    assert names[:6] == ["model/pi/fc0/kernel:0", "model/pi/fc0/bias:0", "model/pi/LayerNorm/beta:0",
                         "model/pi/LayerNorm/gamma:0", "model/pi/dense/kernel:0", "model/pi/dense/bias:0"]
    assert "model/values_fn/qf2/LayerNorm/gamma:0" in names
    assert names[-1] == "target/values_fn/vf/vf/bias:0"
    assert dict(param_list(model))["model/values_fn/qf1/fc0/kernel:0"] == (4, 16)


class CustomSACPolicy(FeedForwardPolicy):
    """The manual's custom policy example: three layers of 128."""

    def __init__(self, *args, **kwargs):
        super(CustomSACPolicy, self).__init__(*args, **kwargs, layers=[128, 128, 128], layer_norm=False,
                                              feature_extraction="mlp")


def test_custom_policy_from_manual():
    model = SAC(CustomSACPolicy, DummyVecEnv([lambda: make_env("Pendulum-v1")]))
    shapes = dict(param_list(model))
    assert shapes["model/pi/fc2/kernel:0"] == (128, 128)
    assert shapes["model/values_fn/qf1/fc0/kernel:0"] == (4, 128)
    assert shapes["target/values_fn/vf/vf/kernel:0"] == (128, 1)
    assert len(shapes) == 10 + 3 * 8 + 1 + 8  # pi (3 fc, mean, log std), vf, qf1, qf2, log_ent_coef, target vf


def test_cnn_policy_builds():
    env = BoxEnv()
    env.observation_space = spaces.Box(0, 255, shape=(36, 36, 1), dtype=np.uint8)
    model = SAC(CnnPolicy, env, _init_setup_model=True)
    names = [name for name, _ in param_list(model)]
    assert names[0] == "model/pi/c1/w:0"
    assert "model/values_fn/c1/w:0" in names
    # as in SB2 2.10, only the value-function head of the target network is saved / polyak-updated
    assert [name for name in names if name.startswith("target/")][0] == "target/values_fn/vf/fc0/kernel:0"
    action, _ = model.predict(np.zeros((36, 36, 1), dtype=np.uint8))
    assert action.shape == (1,)


# ----------------------------------------------------------------------------------------------
# entropy coefficient variants
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ent_coef, learned, init", [("auto", True, 1.0), ("auto_0.1", True, 0.1),
                                                      (0.05, False, 0.05)])
def test_ent_coef_variants_build_and_train(ent_coef, learned, init):
    model = SAC("MlpPolicy", BoxEnv(), ent_coef=ent_coef, learning_starts=20, batch_size=16, seed=1,
                n_cpu_tf_sess=1)
    assert model.target_entropy == -1.0
    if learned:
        assert model.log_ent_coef is not None
        assert np.isclose(model.sess.run(model.ent_coef), init, rtol=1e-6)
        assert "model/log_ent_coef:0" in [name for name, _ in param_list(model)]
    else:
        assert model.log_ent_coef is None and model.ent_coef == init
        assert "model/log_ent_coef:0" not in [name for name, _ in param_list(model)]
    before = model.get_parameters()
    model.learn(120)
    after = model.get_parameters()
    assert model.num_timesteps == 120
    changed = [name for name in before if not np.allclose(before[name], after[name])]
    assert any(name.startswith("model/pi/") for name in changed)
    assert any(name.startswith("model/values_fn/qf1") for name in changed)
    assert any(name.startswith("target/values_fn/vf") for name in changed)
    if learned:
        # the entropy is above the target at the start: the coefficient decreases
        assert model.sess.run(model.ent_coef) < init
    for value in after.values():
        assert np.all(np.isfinite(value))


def test_target_entropy_float():
    model = SAC("MlpPolicy", BoxEnv(), target_entropy=-3.5)
    assert model.target_entropy == -3.5


@pytest.mark.parametrize("bad", ["autox", "auto_0", "auto_-1", "auto_abc", "foo", None, [0.1]])
def test_bad_ent_coef(bad):
    with pytest.raises(ValueError, match="ent_coef"):
        SAC("MlpPolicy", BoxEnv(), ent_coef=bad)


def test_bad_target_entropy():
    with pytest.raises(ValueError, match="target_entropy"):
        SAC("MlpPolicy", BoxEnv(), target_entropy="high")


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------
def test_discrete_action_space_error():
    with pytest.raises(ValueError, match="Discrete"):
        SAC("MlpPolicy", make_env("CartPole-v1"))


def test_wrong_policy_class_error():
    from stable_baselines.common.policies import MlpPolicy as ActorCriticMlpPolicy
    with pytest.raises(ValueError, match="SACPolicy"):
        SAC(ActorCriticMlpPolicy, BoxEnv())
    with pytest.raises(ValueError, match="unknown policy type"):
        SAC("MlpLstmPolicy", BoxEnv())


def test_policy_kwargs_error():
    with pytest.raises(ValueError, match="Unknown keywords"):
        SAC("MlpPolicy", BoxEnv(), policy_kwargs=dict(net_arch=[64]))


def test_predict_bad_shape():
    model = SAC("MlpPolicy", BoxEnv())
    with pytest.raises(ValueError, match="observation shape"):
        model.predict(np.zeros(5))


def test_action_probability():
    model = SAC("MlpPolicy", BoxEnv())
    with pytest.warns(UserWarning, match="squashed"):
        assert model.action_probability(np.zeros(3)) is None
    with pytest.raises(ValueError, match="action probabilities"):
        model.action_probability(np.zeros(3), actions=np.zeros(1))


# ----------------------------------------------------------------------------------------------
# action rescaling
# ----------------------------------------------------------------------------------------------
def test_predict_rescales_tanh_mean_to_bounds():
    env = BoxEnv(low=(0.0, -5.0), high=(10.0, 1.0))
    model = SAC("MlpPolicy", env, seed=3)
    obs = np.random.RandomState(0).uniform(-1, 1, size=(7, 3)).astype(np.float32)
    mu = model.sess.run(model.policy_tf.act_mu, {model.observations_ph: obs})
    expected = env.action_space.low + (np.tanh(mu) + 1) / 2 * (env.action_space.high - env.action_space.low)
    actions, state = model.predict(obs)
    assert state is None and actions.shape == (7, 2)
    np.testing.assert_allclose(actions, expected, rtol=1e-5, atol=1e-5)
    single, _ = model.predict(obs[0])
    assert single.shape == (2,)
    np.testing.assert_allclose(single, expected[0], rtol=1e-5, atol=1e-5)
    stochastic, _ = model.predict(obs, deterministic=False)
    assert np.all(stochastic >= env.action_space.low) and np.all(stochastic <= env.action_space.high)
    assert not np.allclose(stochastic, actions)


@pytest.mark.parametrize("learning_starts", [1000, 10])
def test_buffer_holds_scaled_actions(learning_starts):
    """Random (warm-up) and policy actions: the env receives bounds-scaled actions, the buffer [-1, 1] ones."""
    env = BoxEnv(low=(0.0, -5.0), high=(10.0, 1.0))
    model = SAC("MlpPolicy", env, learning_starts=learning_starts, batch_size=8, seed=0,
                action_noise=NormalActionNoise(np.zeros(2), 0.1 * np.ones(2)))
    model.learn(60)
    sent = np.array(env.sent_actions)
    stored = np.array([transition[1] for transition in model.replay_buffer.storage])
    assert sent.shape == stored.shape == (60, 2)
    assert np.all(np.abs(stored) <= 1.0 + 1e-6)
    assert np.all(sent >= env.action_space.low - 1e-5) and np.all(sent <= env.action_space.high + 1e-5)
    np.testing.assert_allclose(env.action_space.low + (stored + 1) / 2 * (env.action_space.high - env.action_space.low),
                               sent, rtol=1e-5, atol=1e-4)


# ----------------------------------------------------------------------------------------------
# the learning loop
# ----------------------------------------------------------------------------------------------
def test_episode_ends_and_terminal_observation_plain_env():
    env = BoxEnv(ep_len=10)
    model = SAC("MlpPolicy", env, learning_starts=5, batch_size=4)
    model.learn(30)
    storage = model.replay_buffer.storage
    dones = [bool(transition[4]) for transition in storage]
    assert dones == [(i + 1) % 10 == 0 for i in range(30)]
    for i in range(29):
        if not dones[i]:
            np.testing.assert_array_equal(storage[i][3], storage[i + 1][0])


def test_vec_env_terminal_observation():
    venv = DummyVecEnv([lambda: BoxEnv(ep_len=10)])
    model = SAC("MlpPolicy", venv, learning_starts=5, batch_size=4)
    model.learn(25)
    storage = model.replay_buffer.storage
    inner = venv.envs[0]
    assert len(storage) == 25 and bool(storage[9][4]) and not bool(storage[8][4])
    # the stored next observation of the last step is the terminal one, not the reset observation
    assert not np.array_equal(storage[9][3], storage[10][0])
    assert len(inner.sent_actions) == 25


def test_callback_stops_training_and_sees_locals():
    class StopAt(BaseCallback):
        def __init__(self):
            super().__init__()
            self.seen = set()
            self.rollouts = 0

        def _on_rollout_start(self):
            self.rollouts += 1

        def _on_step(self):
            self.seen.update(self.locals.keys())
            return self.n_calls < 25

    callback = StopAt()
    model = SAC("MlpPolicy", BoxEnv(), learning_starts=10, batch_size=4, train_freq=5)
    model.learn(100, callback=callback)
    assert model.num_timesteps == 25
    assert {"unscaled_action", "action", "new_obs", "reward", "done", "info", "episode_rewards",
            "current_lr", "n_updates"} <= callback.seen
    assert callback.rollouts == 1 + 24 // 5


def test_learning_rate_schedule_and_gradient_steps():
    fracs = []

    def schedule(frac):
        fracs.append(frac)
        return 1e-3 * frac

    model = SAC("MlpPolicy", BoxEnv(), learning_rate=schedule, learning_starts=10, batch_size=4,
                train_freq=2, gradient_steps=3)
    model.learn(40)
    # one call for the initial value, then one per gradient step: training happens when
    # num_timesteps (= step + 1) is even and >= learning_starts, i.e. 16 times, 3 gradient steps each
    assert fracs[0] == 1
    assert len(fracs) == 1 + 3 * 16
    assert fracs[1] == pytest.approx(1 - 9 / 40) and fracs[-1] == pytest.approx(1 - 39 / 40)


def test_random_exploration_and_verbose_table(capsys):
    model = SAC("MlpPolicy", BoxEnv(ep_len=20), learning_starts=10, batch_size=4, random_exploration=0.5,
                verbose=1)
    model.learn(40, log_interval=1)
    out = capsys.readouterr().out
    for key in ("episodes", "mean 100 episode reward", "n_updates", "current_lr", "fps", "ent_coef",
                "policy_loss", "qf1_loss", "value_loss", "total timesteps"):
        assert key in out


def test_progress_bar_and_tensorboard(tmp_path, capsys):
    model = SAC("MlpPolicy", BoxEnv(ep_len=10), learning_starts=10, batch_size=4,
                tensorboard_log=str(tmp_path))
    model.learn(30, progress_bar=True)
    assert os.listdir(str(tmp_path)) == ["SAC_1"]
    assert any(name.startswith("events") for name in os.listdir(str(tmp_path / "SAC_1")))
    captured = capsys.readouterr()
    assert "30/30" in captured.err + captured.out


def test_determinism_with_seed():
    def run():
        model = SAC("MlpPolicy", BoxEnv(), learning_starts=20, batch_size=8, seed=7, n_cpu_tf_sess=1)
        model.learn(80)
        return model.get_parameters()

    first, second = run(), run()
    for name in first:
        np.testing.assert_array_equal(first[name], second[name])


def test_learn_continues_and_set_env():
    model = SAC("MlpPolicy", BoxEnv(), learning_starts=5, batch_size=4)
    model.learn(20)
    model.learn(20, reset_num_timesteps=False)
    assert model.num_timesteps == 40
    model.set_env(BoxEnv())
    model.learn(10)
    assert model.num_timesteps == 10
    with pytest.raises(ValueError, match="action space"):
        model.set_env(BoxEnv(low=(-1.0, -1.0), high=(1.0, 1.0)))


# ----------------------------------------------------------------------------------------------
# save / load
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cloudpickle, ent_coef", [(False, "auto_0.5"), (True, 0.3)])
def test_save_load_round_trip(tmp_path, cloudpickle, ent_coef):
    env = BoxEnv(low=(0.0, -5.0), high=(10.0, 1.0))
    model = SAC("MlpPolicy", env, ent_coef=ent_coef, learning_starts=10, batch_size=8, gamma=0.95, tau=0.01,
                policy_kwargs=dict(layers=[32, 16]), seed=0)
    model.learn(40)
    obs = np.random.RandomState(1).uniform(-1, 1, size=(5, 3)).astype(np.float32)
    actions, _ = model.predict(obs)
    path = str(tmp_path / ("model.pkl" if cloudpickle else "model.zip"))
    model.save(path, cloudpickle=cloudpickle)

    loaded = SAC.load(path, env=BoxEnv(low=(0.0, -5.0), high=(10.0, 1.0)))
    assert param_list(loaded) == param_list(model)
    for (name, value), (name2, value2) in zip(model.get_parameters().items(), loaded.get_parameters().items()):
        assert name == name2
        np.testing.assert_array_equal(value, value2)
    np.testing.assert_allclose(loaded.predict(obs)[0], actions, rtol=1e-6)
    assert loaded.gamma == 0.95 and loaded.tau == 0.01 and loaded.policy_kwargs == dict(layers=[32, 16])
    assert loaded.target_entropy == -2.0
    if isinstance(ent_coef, str):
        assert loaded.log_ent_coef is not None
        np.testing.assert_allclose(loaded.sess.run(loaded.ent_coef), model.sess.run(model.ent_coef), rtol=1e-6)
    else:
        assert loaded.ent_coef == 0.3
    loaded.learn(20)
    assert loaded.num_timesteps == 20


# ----------------------------------------------------------------------------------------------
# legacy model file (saved by the original library)
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def legacy_model():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SAC.load(os.path.join(LEGACY_DIR, "sac", "Pendulum-v0.pkl"))


def test_legacy_pendulum_loads(legacy_model):
    assert legacy_model.policy is MlpPolicy
    assert param_list(legacy_model) == readme_parameter_list("sac/Pendulum-v0.pkl")
    assert legacy_model.ent_coef == 0.2


def test_legacy_pendulum_golden_actions(legacy_model):
    golden = np.load(os.path.join(LEGACY_DIR, "golden", "sac", "Pendulum-v0.npz"))
    assert_golden_actions(legacy_model, golden, (256, 1), 1e-4)


def test_legacy_pendulum_score(legacy_model):
    returns = deterministic_returns(legacy_model, make_env("Pendulum-v1"), 5, deterministic=None)
    # README: -151.6 +/- 78.9 over 100 episodes
    assert np.mean(returns) > -300


# ----------------------------------------------------------------------------------------------
# learning
# ----------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
def test_sac_learns_pendulum(learning_seed, learning_score):
    """
    The issue's check: >= -250 mean deterministic reward on Pendulum-v1 within 20 000 steps, with the
    issue's settings (train_freq 1, gradient_steps 1, batch_size 64, learning_starts 100) and the zoo's
    Pendulum hyper-parameters (learning_rate 3e-3, ent_coef 0.2). 10 000 steps are enough.
    """
    model = SAC("MlpPolicy", make_env("Pendulum-v1"), learning_rate=3e-3, ent_coef=0.2, buffer_size=50000,
                train_freq=1, gradient_steps=1, batch_size=64, learning_starts=100, seed=learning_seed, n_cpu_tf_sess=1)
    model.learn(10000)
    mean_reward, _ = seeded_evaluation(model, "Pendulum-v1", 1000 + learning_seed, n_eval_episodes=20, deterministic=True)
    learning_score(mean_reward)
    assert mean_reward >= -250
