"""ACKTR: the legacy zoo agent loads and acts as the original, the K-FAC layers are found, it learns."""
import glob
import os
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from stable_baselines import ACKTR
from stable_baselines.bench import Monitor
from stable_baselines.common.evaluation import evaluate_policy
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.identity_env import IdentityEnv, IdentityEnvBox, IdentityEnvMultiDiscrete
from stable_baselines.common.vec_env import DummyVecEnv

from callback_helpers import StepRecorder  # pylint: disable=wrong-import-order
from memory_env import CueMemoryEnv  # pylint: disable=wrong-import-order
from rollout_helpers import seeded_evaluation, vec_mean_return  # pylint: disable=wrong-import-order
from legacy_helpers import deterministic_returns  # noqa: E402  (tests/ helper)

LEGACY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "legacy_models")
PENDULUM_FILE = os.path.join(LEGACY_DIR, "acktr", "Pendulum-v0.zip")

EXPECTED_PENDULUM_PARAMS = [
    ("model/pi_fc0/w:0", (3, 64)), ("model/pi_fc0/b:0", (64,)),
    ("model/vf_fc0/w:0", (3, 64)), ("model/vf_fc0/b:0", (64,)),
    ("model/pi_fc1/w:0", (64, 64)), ("model/pi_fc1/b:0", (64,)),
    ("model/vf_fc1/w:0", (64, 64)), ("model/vf_fc1/b:0", (64,)),
    ("model/vf/w:0", (64, 1)), ("model/vf/b:0", (1,)),
    ("model/pi/w:0", (64, 1)), ("model/pi/b:0", (1,)), ("model/pi/logstd:0", (1, 1)),
    ("model/q/w:0", (64, 1)), ("model/q/b:0", (1,)),
]


@pytest.fixture(scope="module")
def legacy_pendulum():
    return ACKTR.load(PENDULUM_FILE)


# ------------------------------------------------------------------------------------------------
# legacy file
# ------------------------------------------------------------------------------------------------
def test_legacy_parameter_list_and_kfac_layers(legacy_pendulum):
    model = legacy_pendulum
    assert [(p.name, tuple(p.shape.as_list())) for p in model.get_parameter_list()] == EXPECTED_PENDULUM_PARAMS
    # hyper-parameters of the file
    assert (model.n_steps, model.learning_rate, model.lr_schedule, model.ent_coef, model.n_envs) == \
        (16, 0.06, "constant", 0.0, 4)
    # the optimizer's own variables are not parameters of the model
    kfac_vars = model.optim.get_variables()
    assert kfac_vars and all(var.name.startswith("kfac/") for var in kfac_vars)
    assert not set(kfac_vars) & set(model.get_parameter_list())
    # every linear layer of the policy is Kronecker-factored (with its bias); the Gaussian logstd has a Fisher
    # block of its own; the q head is not part of the losses (no gradient)
    assert [(layer.kind, layer.weight.name, layer.bias.name) for layer in model.optim.layers] == [
        ("dense", "model/{}/w:0".format(name), "model/{}/b:0".format(name))
        for name in ("pi_fc0", "vf_fc0", "pi_fc1", "vf_fc1", "vf", "pi")]
    assert [var.name for var in model.optim.added_vars] == ["model/pi/logstd:0"]
    assert [var.name for var in model.optim.other_vars] == ["model/q/w:0", "model/q/b:0"]
    # the trust region bounds the policy: the variables only the value function uses are outside it
    assert [var.name for var in model.optim.unclipped_vars] == [
        "model/{}/{}:0".format(name, kind) for name in ("vf_fc0", "vf_fc1", "vf") for kind in ("w", "b")]


def test_legacy_matches_golden_forward_pass(legacy_pendulum):
    model = legacy_pendulum
    golden = np.load(os.path.join(LEGACY_DIR, "golden", "acktr", "Pendulum-v0.npz"))
    obs = golden["policy_obs"].astype(np.float32)
    policy = model.step_model
    mean, values = model.sess.run([policy.deterministic_action, policy.value_fn], {policy.obs_ph: obs})
    np.testing.assert_allclose(mean, golden["pi"], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(values, golden["vf"], rtol=1e-5, atol=1e-3)
    actions, _ = model.predict(obs, deterministic=True)
    np.testing.assert_allclose(actions, golden["action"], rtol=1e-5, atol=1e-4)


def test_legacy_scores_as_the_original(legacy_pendulum):
    """Expected -197.1 +/- 130.8 over 100 seeded episodes; 10 seeded episodes (ep = 0..9) give -188.5."""
    env = make_env("Pendulum-v1")
    returns = deterministic_returns(legacy_pendulum, env, 10)
    assert -230 < np.mean(returns) < -150, returns


def test_legacy_model_can_continue_training(legacy_pendulum, tmp_path):
    model = ACKTR.load(PENDULUM_FILE, env=DummyVecEnv([lambda: make_env("Pendulum-v1") for _ in range(4)]))
    before = model.get_parameters()
    model.learn(4 * 16 * 3)
    after = model.get_parameters()
    assert not np.allclose(before["model/pi_fc0/w:0"], after["model/pi_fc0/w:0"])
    assert np.all(np.isfinite(after["model/pi_fc0/w:0"]))
    path = str(tmp_path / "acktr_pendulum.zip")
    model.save(path)
    loaded = ACKTR.load(path)
    for name, value in model.get_parameters().items():
        np.testing.assert_array_equal(loaded.get_parameters()[name], value, err_msg=name)


# ------------------------------------------------------------------------------------------------
# construction, spaces, policies
# ------------------------------------------------------------------------------------------------
def test_defaults_and_nprocs_deprecation():
    model = ACKTR("MlpPolicy", "CartPole-v1", _init_setup_model=False)
    assert (model.gamma, model.n_steps, model.ent_coef, model.vf_coef, model.vf_fisher_coef, model.learning_rate,
            model.max_grad_norm, model.kfac_clip, model.lr_schedule, model.kfac_update, model.gae_lambda,
            model.async_eigen_decomp, model.n_cpu_tf_sess) == \
        (0.99, 20, 0.01, 0.25, 1.0, 0.25, 0.5, 0.001, "linear", 1, None, False, 1)
    with pytest.warns(DeprecationWarning, match="n_cpu_tf_sess"):
        model = ACKTR("MlpPolicy", "CartPole-v1", nprocs=2, _init_setup_model=False)
    assert model.n_cpu_tf_sess == 2



def test_value_outside_the_trust_region_only_with_a_value_fisher():
    env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(2)])
    model = ACKTR("MlpPolicy", env, seed=0)
    assert {var.name for var in model.optim.unclipped_vars} == {
        "model/{}/{}:0".format(name, kind) for name in ("vf_fc0", "vf_fc1", "vf") for kind in ("w", "b")}
    # no value Fisher: the value's curvature would be the damping alone, so it stays in the joint trust region
    assert ACKTR("MlpPolicy", env, seed=0, vf_fisher_coef=0.0).optim.unclipped_vars == []

def test_unsupported_action_space_is_a_clear_error():
    with pytest.raises(ValueError, match="Discrete and Box action spaces.*MultiDiscrete"):
        ACKTR("MlpPolicy", DummyVecEnv([lambda: IdentityEnvMultiDiscrete(2)]))


class _ImageEnv(gymnasium.Env):
    """A tiny image task (40x40 grey images, reward for the action naming the brighter half)."""

    observation_space = spaces.Box(0, 255, shape=(40, 40, 1), dtype=np.uint8)
    action_space = spaces.Discrete(2)

    def __init__(self):
        self.side = 0
        self.count = 0

    def _obs(self):
        image = np.zeros((40, 40, 1), dtype=np.uint8)
        image[:, self.side * 20:(self.side + 1) * 20] = 200
        return image

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.side = int(self.np_random.integers(2))
        self.count = 0
        return self._obs(), {}

    def step(self, action):
        reward = float(int(action) == self.side)
        self.side = int(self.np_random.integers(2))
        self.count += 1
        return self._obs(), reward, False, self.count >= 10, {}


def test_cnn_policy_uses_conv_factors():
    model = ACKTR("CnnPolicy", DummyVecEnv([_ImageEnv, _ImageEnv]), n_steps=4, seed=0)
    kinds = [(layer.kind, layer.weight.name) for layer in model.optim.layers]
    assert kinds[:3] == [("conv", "model/c1/w:0"), ("conv", "model/c2/w:0"), ("conv", "model/c3/w:0")]
    assert ("dense", "model/fc1/w:0") in kinds
    assert all(layer.bias is not None for layer in model.optim.layers)
    # shared trunk: only the value head is outside the trust region
    assert [var.name for var in model.optim.unclipped_vars] == ["model/vf/w:0", "model/vf/b:0"]
    before = model.get_parameters()["model/c1/w:0"]
    # skip the 10 cold-start updates (plain SGD): the next updates are K-FAC steps through the conv factors
    model.sess.run(model.optim.step_counter.assign(model.optim.cold_iter))
    model.learn(8 * 2)
    assert model.sess.run(model.optim.step_counter) == model.optim.cold_iter + 2
    factor_a = model.sess.run(model.optim._factors[0]["A"])  # c1: 8x8x1 patches + the homogeneous 1
    assert factor_a.shape == (65, 65) and np.all(np.isfinite(factor_a)) and factor_a[-1, -1] > 0
    after = model.get_parameters()["model/c1/w:0"]
    assert np.all(np.isfinite(after)) and not np.allclose(before, after)


def test_recurrent_policy_builds_and_trains():
    env = DummyVecEnv([CueMemoryEnv for _ in range(2)])
    model = ACKTR("MlpLstmPolicy", env, n_steps=5, seed=0, policy_kwargs=dict(n_lstm=8))
    names = [layer.weight.name for layer in model.optim.layers]
    # the LSTM input projection is a dense factor (no bias of its own); the recurrent weight is used once per
    # step (uses = n_steps)
    assert "model/lstm1/wx:0" in names and "model/lstm1/wh:0" in names
    wh_layer = model.optim.layers[names.index("model/lstm1/wh:0")]
    assert len(wh_layer.uses) == 5 and wh_layer.bias is None
    assert "model/lstm1/b:0" in [var.name for var in model.optim.other_vars]
    model.learn(10 * 13)
    params = model.get_parameters()
    assert all(np.all(np.isfinite(value)) for value in params.values())
    obs = env.reset()
    actions, states = model.predict(obs, state=model.initial_state, mask=[True, True])
    assert actions.shape == (2,) and states.shape == model.initial_state.shape


# ------------------------------------------------------------------------------------------------
# training API
# ------------------------------------------------------------------------------------------------
def test_seed_makes_runs_identical():
    def run():
        env = DummyVecEnv([lambda: make_env("CartPole-v1") for _ in range(2)])
        model = ACKTR("MlpPolicy", env, n_steps=8, seed=3, n_cpu_tf_sess=1, gae_lambda=0.95)
        model.learn(16 * 11)
        return model.get_parameters()

    first, second = run(), run()
    for name in first:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)


def test_callbacks_stop_training_and_rollout_events():
    events = []

    model = ACKTR("MlpPolicy", DummyVecEnv([lambda: make_env("CartPole-v1")]), n_steps=8, seed=0)
    model.learn(1000, callback=StepRecorder(lambda callback: callback.n_calls < 30, events))
    assert events[0] == "start" and events[-1] == "end"
    assert events.count("step") == 30
    assert events.count("rollout_start") == 4
    assert model.num_timesteps == 30


def test_progress_bar_verbose_and_tensorboard(capsys, tmp_path):
    model = ACKTR("MlpPolicy", "CartPole-v1", n_steps=10, verbose=1, seed=0, tensorboard_log=str(tmp_path))
    model.learn(200, progress_bar=True, log_interval=10)
    captured = capsys.readouterr()
    assert "200/200" in captured.err
    for key in ("total_timesteps", "policy_entropy", "value_loss", "explained_variance", "fps"):
        assert key in captured.out
    assert glob.glob(str(tmp_path / "ACKTR_1" / "events.out.tfevents.*"))


def test_save_load_round_trip_box_actions(tmp_path):
    env = DummyVecEnv([lambda: IdentityEnvBox(eps=0.5) for _ in range(2)])
    model = ACKTR("MlpPolicy", env, n_steps=8, seed=0, gae_lambda=0.9, kfac_update=2)
    model.learn(16 * 3)
    obs = env.reset()
    actions, _ = model.predict(obs, deterministic=True)
    path = str(tmp_path / "acktr_box")
    model.save(path)
    loaded = ACKTR.load(path, env=env)
    assert (loaded.gae_lambda, loaded.kfac_update, loaded.n_steps) == (0.9, 2, 8)
    np.testing.assert_allclose(loaded.predict(obs, deterministic=True)[0], actions, rtol=1e-6)
    loaded.learn(16)


# ------------------------------------------------------------------------------------------------
# learning
# ------------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
def test_cartpole_zoo_settings_learn(learning_seed, learning_score):
    """rl-zoo CartPole-v1 settings (8 envs, ent_coef 0, defaults otherwise) on half the zoo budget (5e4 steps):
    the agent clearly learns (a random policy scores about 22). The full-budget figures are in
    benchmarks/acktr_cartpole.py."""
    env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(8)])
    model = ACKTR("MlpPolicy", env, ent_coef=0.0, seed=learning_seed, n_cpu_tf_sess=1)
    model.learn(50000)
    mean_reward, _ = seeded_evaluation(model, "CartPole-v1", 1000 + learning_seed, n_eval_episodes=10)
    learning_score(mean_reward)
    assert mean_reward >= 150, mean_reward


@pytest.mark.slow
def test_legacy_pendulum_agent_keeps_its_score_under_further_training():
    """Box actions (Gaussian with its logstd, value Fisher, trust region): 2e4 more steps of K-FAC training with
    the zoo settings stored in the file (4 envs, n_steps 16, lr 0.06 constant, kfac_clip 0.001) keep the zoo
    agent good (about -190 before and after in our runs, about -230 after with the joint trust region of the
    original; random about -1200): the natural-gradient steps and their trust region are consistent with the ones
    the original took to train it."""
    env = DummyVecEnv([lambda: Monitor(make_env("Pendulum-v1"), None) for _ in range(4)])
    model = ACKTR.load(PENDULUM_FILE, env=env, seed=0, n_cpu_tf_sess=1, verbose=0)
    model.learn(20000)
    assert len(model.ep_info_buf) >= 90
    train_mean = np.mean([info["r"] for info in model.ep_info_buf])
    mean_reward, _ = seeded_evaluation(model, "Pendulum-v1", 1000, n_eval_episodes=10, deterministic=True)
    assert mean_reward > -400 and train_mean > -400, (mean_reward, train_mean)


@pytest.mark.slow
def test_discrete_identity_learns():
    env = DummyVecEnv([lambda: IdentityEnv(10) for _ in range(4)])
    model = ACKTR("MlpPolicy", env, gamma=0.7, ent_coef=0.0, n_steps=8, seed=0).learn(10000)
    mean_reward, _ = evaluate_policy(model, DummyVecEnv([lambda: IdentityEnv(10)]), n_eval_episodes=5)
    assert mean_reward >= 90, mean_reward


@pytest.mark.slow
def test_lstm_policy_remembers_the_cue():
    env = DummyVecEnv([CueMemoryEnv for _ in range(4)])
    model = ACKTR("MlpLstmPolicy", env, n_steps=8, gamma=0.9, seed=0, n_cpu_tf_sess=1,
                  policy_kwargs=dict(n_lstm=32))
    model.learn(30000)
    mean_return = vec_mean_return(model, env, 200)
    assert mean_return >= 0.95, mean_return


def test_pretrain_behaviour_cloning_imitates_the_expert():
    """The manual lists ACKTR.pretrain: behaviour cloning from the bundled CartPole expert data."""
    from stable_baselines.gail import ExpertDataset
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "stable_baselines", "gail", "dataset", "expert_cartpole.npz")
    np.random.seed(1)
    with np.load(path) as data:
        obs, actions = data["obs"], data["actions"][:, 0]
    dataset = ExpertDataset(expert_path=path, traj_limitation=4, batch_size=128, verbose=0,
                            sequential_preprocessing=True)
    model = ACKTR("MlpPolicy", "CartPole-v1", seed=0, n_cpu_tf_sess=1)
    before = float(np.mean(model.predict(obs, deterministic=True)[0] == actions))
    assert model.pretrain(dataset, n_epochs=8, learning_rate=3e-3) is model
    after = float(np.mean(model.predict(obs, deterministic=True)[0] == actions))
    assert after >= 0.85 and after > before + 0.1, (before, after)
