"""DDPG: parameter names of every variant, the legacy model file (golden actions, score, observation clipping,
the pre-2.6 duplicate rule), save/load, predict, errors, the learning loop (param noise, popart, evaluation env,
replay wrapper, callbacks, determinism), a learning check on Pendulum-v1 and `mpirun -np 2` through
``python -m stable_baselines.ddpg.main``."""
import os
import re

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("mpi4py", reason="DDPG needs mpi4py")

from stable_baselines.common import save_util  # noqa: E402
from stable_baselines.common.buffers import ReplayBuffer  # noqa: E402
from stable_baselines.common.gym_compat import make_env  # noqa: E402
from stable_baselines.common.noise import (AdaptiveParamNoiseSpec, NormalActionNoise,  # noqa: E402
                                           OrnsteinUhlenbeckActionNoise)
from stable_baselines.ddpg import DDPG, LnMlpPolicy, MlpPolicy  # noqa: E402
from stable_baselines.ddpg.main import parse_args, parse_noise_types  # noqa: E402
from stable_baselines.ddpg.policies import FeedForwardPolicy  # noqa: E402
from callback_helpers import HookRecorder  # noqa: E402  (tests/ helper)
from mpi_helpers import NO_MPIRUN_REASON, find_mpirun, run_mpirun  # noqa: E402  (tests/ helper)
from original_training import assert_trains_like_the_original  # noqa: E402  (tests/ helper)
from rollout_helpers import seeded_evaluation  # noqa: E402  (tests/ helper)
from legacy_helpers import (assert_golden_actions, deterministic_returns, param_list,  # noqa: E402  (tests/ helper)
                            readme_parameter_list)

LEGACY_DIR = os.path.join(os.path.dirname(__file__), "data", "legacy_models")
LEGACY_FILE = os.path.join(LEGACY_DIR, "ddpg", "Pendulum-v0.pkl")


class BoxEnv(gymnasium.Env):
    """obs (n_obs,) in [-1, 1], action Box(-2, 2, (n_act,)); reward -|a - 1|, episodes of ``ep_len`` steps."""

    def __init__(self, n_obs=3, n_act=1, ep_len=20):
        self.observation_space = spaces.Box(-1.0, 1.0, shape=(n_obs,), dtype=np.float32)
        self.action_space = spaces.Box(-2.0, 2.0, shape=(n_act,), dtype=np.float32)
        self.ep_len = ep_len
        self.n_steps = 0
        self._t = 0

    def _obs(self):
        return self.np_random.uniform(-1, 1, size=self.observation_space.shape).astype(np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return self._obs(), {}

    def step(self, action):
        self._t += 1
        self.n_steps += 1
        reward = -float(np.abs(np.asarray(action) - 1.0).sum())
        return self._obs(), reward, False, self._t >= self.ep_len, {}


# ----------------------------------------------------------------------------------------------
# parameter lists (the contract of /work/shared/legacy-models/README.md)
# ----------------------------------------------------------------------------------------------
def test_parameter_list_of_the_pendulum_configuration():
    model = DDPG(MlpPolicy, make_env("Pendulum-v1"))
    assert param_list(model) == readme_parameter_list("ddpg/Pendulum-v0.pkl")


def test_parameter_list_with_layer_norm_param_noise_and_observation_normalization():
    """The BipedalWalker configuration: LayerNorm after each hidden layer, the perturbed actors ``noise/pi`` and
    ``noise_adapt/pi`` after ``model/qf``, then ``input/obs_rms/*`` last, in float64."""
    model = DDPG(LnMlpPolicy, BoxEnv(n_obs=24, n_act=4), param_noise=AdaptiveParamNoiseSpec(),
                 normalize_observations=True)
    assert param_list(model) == readme_parameter_list("ddpg/BipedalWalker-v2.pkl")
    dtypes = {param.name: param.dtype.base_dtype.name for param in model.get_parameter_list()}
    assert {name for name, dtype in dtypes.items() if dtype == "float64"} == {
        "input/obs_rms/runningsum:0", "input/obs_rms/runningsumsq:0", "input/obs_rms/count:0"}


def test_options_change_the_parameter_list_exactly():
    base = [name for name, _ in readme_parameter_list("ddpg/Pendulum-v0.pkl")]
    model = DDPG(MlpPolicy, BoxEnv(), normalize_observations=True, normalize_returns=True, _init_setup_model=False)
    model.setup_model()
    names = [name for name, _ in param_list(model)]
    assert names == base + ["input/obs_rms/runningsum:0", "input/obs_rms/runningsumsq:0", "input/obs_rms/count:0",
                            "input/ret_rms/runningsum:0", "input/ret_rms/runningsumsq:0", "input/ret_rms/count:0"]

    # layer norm: beta/gamma after each hidden layer of the four networks, nothing else
    model = DDPG(LnMlpPolicy, BoxEnv())
    names = [name for name, _ in param_list(model)]
    expected = []
    for scope in ("model/pi", "model/qf", "target/pi", "target/qf"):
        out = "pi" if scope.endswith("pi") else "qf_output"
        for i, suffix in enumerate(["", "_1"]):
            expected += ["{}/fc{}/kernel:0".format(scope, i), "{}/fc{}/bias:0".format(scope, i),
                         "{}/LayerNorm{}/beta:0".format(scope, suffix), "{}/LayerNorm{}/gamma:0".format(scope, suffix)]
        expected += ["{}/{}/kernel:0".format(scope, out), "{}/{}/bias:0".format(scope, out)]
    assert names == expected


def test_custom_feed_forward_policy_layers():
    class CustomDDPGPolicy(FeedForwardPolicy):
        def __init__(self, *args, **kwargs):
            super(CustomDDPGPolicy, self).__init__(*args, **kwargs, layers=[16, 8], layer_norm=False,
                                                   feature_extraction="mlp")

    model = DDPG(CustomDDPGPolicy, BoxEnv(n_obs=5, n_act=2))
    shapes = dict(param_list(model))
    assert shapes["model/pi/fc1/kernel:0"] == (16, 8)
    assert shapes["model/qf/fc1/kernel:0"] == (16 + 2, 8)
    assert shapes["model/pi/pi/kernel:0"] == (8, 2)
    assert len(shapes) == 24


# ----------------------------------------------------------------------------------------------
# legacy model file (saved by the original library)
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def legacy_model():
    return DDPG.load(LEGACY_FILE)


def test_legacy_file_loads_with_its_hyper_parameters(legacy_model):
    assert legacy_model.policy is MlpPolicy
    assert param_list(legacy_model) == readme_parameter_list("ddpg/Pendulum-v0.pkl")
    assert isinstance(legacy_model.action_noise, OrnsteinUhlenbeckActionNoise)
    assert legacy_model.buffer_size == 50000
    assert tuple(legacy_model.observation_range) == (-5.0, 5.0)


def test_legacy_file_golden_actions(legacy_model):
    golden = np.load(os.path.join(LEGACY_DIR, "golden", "ddpg", "Pendulum-v0.npz"))
    assert_golden_actions(legacy_model, golden, (256, 1), 1e-5)


def test_legacy_file_observation_clipping_matters():
    """The golden steps whose angular velocity leaves observation_range (|v| > 5) only match with the clip."""
    golden = np.load(os.path.join(LEGACY_DIR, "golden", "ddpg", "Pendulum-v0.npz"))
    outside = np.abs(golden["policy_obs"][:, 2]) > 5
    assert outside.sum() > 5
    unclipped = DDPG.load(LEGACY_FILE, observation_range=(-np.inf, np.inf))
    actions, _ = unclipped.predict(golden["policy_obs"])
    np.testing.assert_allclose(actions[~outside], golden["action"][~outside], rtol=1e-5, atol=1e-5)
    assert np.abs(actions[outside] - golden["action"][outside]).max() > 1e-2


def test_legacy_file_score(legacy_model):
    returns = deterministic_returns(legacy_model, make_env("Pendulum-v1"), 5, deterministic=None)
    # expected -161.4 +/- 85.1 over 100 episodes; a random policy scores about -1200
    assert np.mean(returns) > -260, returns


def test_pre_2_6_duplicated_parameter_file(tmp_path):
    """len == 2 * (n_params + n_target) + n_norm -> [:n_params + n_target] + [-n_norm:]."""
    model = DDPG(LnMlpPolicy, BoxEnv(n_obs=4, n_act=2), param_noise=AdaptiveParamNoiseSpec(),
                 normalize_observations=True, seed=0)
    n_params, n_target, n_norm = len(model.params), len(model.target_params), len(model.obs_rms_params)
    assert (n_params, n_target, n_norm) == (40, 20, 3)
    rng = np.random.RandomState(0)
    wanted = [np.asarray(rng.randn(*param.shape.as_list())).astype(param.dtype.base_dtype.as_numpy_dtype)
              for param in model.get_parameter_list()]
    garbage = [np.full_like(array, 99.0) for array in wanted[:n_params + n_target]]
    legacy_list = wanted[:n_params + n_target] + garbage + wanted[-n_norm:]
    assert len(legacy_list) == 123  # as ddpg/BipedalWalker-v2.pkl

    data, _ = save_util.load_model_file(_saved(model, tmp_path))
    path = str(tmp_path / "legacy.pkl")
    save_util.save_to_pkl(path, data, legacy_list)
    loaded = DDPG.load(path)
    for array, (name, value) in zip(wanted, loaded.get_parameters().items()):
        np.testing.assert_array_equal(value, array, err_msg=name)

    # any other length is refused with a message that says what was expected
    save_util.save_to_pkl(path, data, legacy_list[:-1])
    with pytest.raises(ValueError, match="123"):
        DDPG.load(path)


def _saved(model, tmp_path):
    path = str(tmp_path / "model.zip")
    model.save(path)
    return path


# ----------------------------------------------------------------------------------------------
# save / load, predict, errors
# ----------------------------------------------------------------------------------------------
def test_save_load_round_trip(tmp_path):
    env = BoxEnv()
    model = DDPG(MlpPolicy, env, nb_rollout_steps=20, nb_train_steps=5, batch_size=16, seed=3,
                 action_noise=NormalActionNoise(np.zeros(1), 0.2 * np.ones(1)), critic_l2_reg=0.01, clip_norm=5.0,
                 reward_scale=0.5)
    model.learn(60)
    obs = np.random.RandomState(0).uniform(-1, 1, size=(7, 3)).astype(np.float32)
    actions, _ = model.predict(obs)
    path = _saved(model, tmp_path)
    loaded = DDPG.load(path, env=BoxEnv())
    np.testing.assert_allclose(loaded.predict(obs)[0], actions, rtol=1e-6)
    for (name, value), (name_loaded, value_loaded) in zip(model.get_parameters().items(),
                                                          loaded.get_parameters().items()):
        assert name == name_loaded
        np.testing.assert_array_equal(value, value_loaded)
    assert loaded.return_range[0] == -np.inf and loaded.return_range[1] == np.inf
    assert (loaded.critic_l2_reg, loaded.clip_norm, loaded.reward_scale, loaded.nb_rollout_steps) == (0.01, 5.0, 0.5, 20)
    assert isinstance(loaded.action_noise, NormalActionNoise)
    # the loaded model trains on
    loaded.learn(40)
    assert loaded.num_timesteps == 40


def test_predict_shapes_and_bounds():
    model = DDPG(MlpPolicy, BoxEnv(n_obs=3, n_act=2), action_noise=NormalActionNoise(np.zeros(2), np.ones(2)),
                 seed=0)
    single, state = model.predict(np.zeros(3, dtype=np.float32))
    assert single.shape == (2,) and state is None
    batch, _ = model.predict(np.zeros((5, 3), dtype=np.float32))
    assert batch.shape == (5, 2)
    np.testing.assert_allclose(batch, np.repeat(single[None], 5, axis=0), rtol=1e-6)
    # deterministic=False adds the action noise, and the result stays in the action bounds
    noisy, _ = model.predict(np.zeros((50, 3), dtype=np.float32), deterministic=False)
    assert noisy.shape == (50, 2)
    assert np.all(noisy >= -2.0) and np.all(noisy <= 2.0)
    assert np.abs(noisy - single).max() > 0.1
    with pytest.raises(ValueError, match=r"\(3,\)"):
        model.predict(np.zeros(4, dtype=np.float32))
    with pytest.warns(UserWarning, match="meaningless"):
        assert model.action_probability(np.zeros(3)) is None
    with pytest.raises(ValueError, match="action probabilities"):
        model.action_probability(np.zeros(3), actions=np.zeros(2))


def test_errors_and_deprecations():
    with pytest.raises(ValueError, match="Box.*Discrete"):
        DDPG(MlpPolicy, make_env("CartPole-v1"))
    with pytest.raises(ValueError, match="normalize_returns"):
        DDPG(MlpPolicy, BoxEnv(), enable_popart=True)
    with pytest.raises(ValueError, match="DDPGPolicy"):
        DDPG(object, BoxEnv())
    with pytest.warns(UserWarning, match="memory_limit"):
        model = DDPG(MlpPolicy, BoxEnv(), memory_limit=1234, memory_policy=ReplayBuffer)
    assert model.buffer_size == 1234 and model.replay_buffer.buffer_size == 1234


def test_noise_classes_importable_from_ddpg():
    from stable_baselines.ddpg import AdaptiveParamNoiseSpec as Spec, NormalActionNoise as Normal
    from stable_baselines.ddpg.noise import OrnsteinUhlenbeckActionNoise as OU
    from stable_baselines import DDPG as TopLevel
    assert Spec is AdaptiveParamNoiseSpec and Normal is NormalActionNoise and OU is OrnsteinUhlenbeckActionNoise
    assert TopLevel is DDPG


# ----------------------------------------------------------------------------------------------
# the learning loop
# ----------------------------------------------------------------------------------------------
class _Recorder(HookRecorder):
    def __init__(self, stop_at=None):
        super(_Recorder, self).__init__()
        self.stop_at = stop_at

    def _on_step(self):
        return self.stop_at is None or self.num_timesteps < self.stop_at


def test_learn_with_param_noise_popart_normalization_eval_env_and_tensorboard(tmp_path):
    env, eval_env = BoxEnv(), BoxEnv()
    model = DDPG(LnMlpPolicy, env, eval_env=eval_env, nb_rollout_steps=25, nb_train_steps=10, nb_eval_steps=15,
                 batch_size=16, param_noise=AdaptiveParamNoiseSpec(initial_stddev=0.2, desired_action_stddev=0.2),
                 param_noise_adaption_interval=5, normalize_observations=True, normalize_returns=True,
                 enable_popart=True, seed=1, tensorboard_log=str(tmp_path), full_tensorboard_log=True)
    initial_stddev = model.param_noise.current_stddev
    recorder = _Recorder()
    model.learn(100, callback=recorder, log_interval=2)
    assert env.n_steps == 100
    assert eval_env.n_steps == 3 * 15  # one evaluation after each of the first three rollouts
    assert recorder.events[0] == "start" and recorder.events[-1] == "end"
    assert recorder.events.count("rollout_end") == 4
    assert os.listdir(str(tmp_path)) == ["DDPG_1"] and os.listdir(str(tmp_path / "DDPG_1"))
    # the parameter noise adapted, the observation statistics counted every stored observation
    assert model.param_noise.current_stddev != initial_stddev
    count = model.sess.run([var for var in model.obs_rms_params if "count" in var.name][0])
    np.testing.assert_allclose(count, 100 + 1e-2)
    ret_count = model.sess.run([var for var in model.ret_rms_params if "count" in var.name][0])
    assert ret_count > 1
    # the perturbed actor differs from the actor
    # a new perturbation (at each episode start) copies the actor with noise on everything but LayerNorm
    with model.sess.as_default():
        model._reset()
    params = model.get_parameters()
    assert np.abs(params["noise/pi/fc0/kernel:0"] - params["model/pi/fc0/kernel:0"]).max() > 0
    np.testing.assert_array_equal(params["noise/pi/LayerNorm/gamma:0"], params["model/pi/LayerNorm/gamma:0"])

    # a callback returning False stops training
    stopper = _Recorder(stop_at=30)
    model.learn(1000, callback=stopper)
    assert model.num_timesteps == 30 and stopper.events[-1] == "end"


def test_replay_wrapper_stores_transitions_through_replay_buffer_add():
    added = []

    class RecordingBuffer(ReplayBuffer):
        def add(self, obs_t, action, reward, obs_tp1, done):
            added.append((np.array(obs_t), np.array(action), reward, np.array(obs_tp1), done))
            super(RecordingBuffer, self).add(obs_t, action, reward, obs_tp1, done)

    def wrapper(buffer):
        assert isinstance(buffer, ReplayBuffer)
        return RecordingBuffer(buffer.buffer_size)

    env = BoxEnv(ep_len=10)
    model = DDPG(MlpPolicy, env, nb_rollout_steps=20, nb_train_steps=2, batch_size=8, reward_scale=2.0, seed=0)
    model.learn(40, replay_wrapper=wrapper)
    assert isinstance(model.replay_buffer, RecordingBuffer) and not model.is_using_her()
    assert len(added) == 40 and len(model.replay_buffer) == 40
    obs_t, action, reward, _, done = added[9]
    assert action.shape == (1,) and np.all(np.abs(action) <= 1)  # actions are stored in [-1, 1]
    np.testing.assert_allclose(reward, 2.0 * -abs(action[0] * 2.0 - 1.0), rtol=1e-5)  # scaled by reward_scale
    assert done == 1.0 and added[8][4] == 0.0


def test_vec_env_terminal_observation_is_stored():
    from stable_baselines.common.vec_env import DummyVecEnv
    model = DDPG(MlpPolicy, DummyVecEnv([lambda: BoxEnv(ep_len=5)]), nb_rollout_steps=10, nb_train_steps=1,
                 batch_size=4, seed=0)
    model.learn(10)
    obs_t, _, _, obs_tp1, dones = (np.array(column) for column in zip(*model.replay_buffer.storage))
    # within an episode, the next observation of a step is the observation of the next step
    np.testing.assert_array_equal(obs_tp1[:4], obs_t[1:5])
    assert list(dones[:5]) == [0, 0, 0, 0, 1]
    assert not np.array_equal(obs_tp1[4], obs_t[5])  # the true last observation, not the reset one


def test_determinism_with_seed():
    def train():
        model = DDPG(MlpPolicy, BoxEnv(), nb_rollout_steps=20, nb_train_steps=5, batch_size=16, seed=7,
                     action_noise=OrnsteinUhlenbeckActionNoise(np.zeros(1), 0.3 * np.ones(1)), n_cpu_tf_sess=1)
        model.learn(60)
        return model.get_parameters()

    first, second = train(), train()
    for name in first:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)


def test_main_argument_parsing():
    action_noise, param_noise = parse_noise_types("adaptive-param_0.3, ou_0.2", 2)
    assert isinstance(action_noise, OrnsteinUhlenbeckActionNoise) and param_noise.current_stddev == 0.3
    action_noise, param_noise = parse_noise_types("normal_0.1", 3)
    assert isinstance(action_noise, NormalActionNoise) and param_noise is None
    assert parse_noise_types("none", 1) == (None, None)
    with pytest.raises(ValueError, match="unknown noise type"):
        parse_noise_types("gaussian_0.1", 1)
    args = parse_args(["--env-id", "Pendulum-v1", "--no-layer-norm", "--popart", "--normalize-returns"])
    assert args["layer_norm"] is False and args["popart"] is True and args["normalize_observations"] is True
    assert args["batch_size"] == 64 and args["critic_l2_reg"] == 1e-2 and args["noise_type"] == "adaptive-param_0.2"


def test_training_matches_the_original_libraries_training():
    """
    The original 2.10 code (see original_2_10/README.md) with the rl-baselines-zoo's Pendulum settings (the
    defaults, Ornstein-Uhlenbeck noise 0.1, a 50 000-transition buffer), seed 0: its parameters before and
    after learn(1000), 400 gradient steps. The same here, up to float rounding (the buffer keeps rewards as
    float32). The original's buffer drew its minibatch slots with Python's ``random``, ours with NumPy's (the
    same uniform draw); the file was made with NumPy's draw, so that the two runs see the same minibatches.
    """
    model = DDPG(MlpPolicy, make_env("Pendulum-v1"), buffer_size=50000, seed=0, n_cpu_tf_sess=1,
                 action_noise=OrnsteinUhlenbeckActionNoise(np.zeros(1), 0.1 * np.ones(1)))
    assert_trains_like_the_original(model, 1000, "ddpg_Pendulum-v1_seed0_1000.npz", atol=1e-6)


@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
def test_ddpg_learns_pendulum(learning_seed, learning_score):
    """Pendulum-v1 in 15 000 steps (gamma 0.98, one gradient step per env step, tau 0.005, learning rates 1e-3,
    Ornstein-Uhlenbeck noise 0.5): a random policy scores about -1200; measured -83 / -322 / -320 on seeds
    0 / 1 / 2 (pytest --seeds 0,1,2). With smaller noise (0.1-0.2) one seed in three stays below
    -1000 at this budget; the zoo's settings take 100 000 steps, as the original's do (benchmarks/ddpg_pendulum.py)."""
    model = DDPG(MlpPolicy, "Pendulum-v1", gamma=0.98, nb_rollout_steps=100, nb_train_steps=100, batch_size=128,
                 tau=0.005, actor_lr=1e-3, critic_lr=1e-3, buffer_size=50000,
                 action_noise=OrnsteinUhlenbeckActionNoise(np.zeros(1), 0.5 * np.ones(1)), seed=learning_seed,
                 n_cpu_tf_sess=1)
    model.learn(15000)
    mean, _ = seeded_evaluation(model, "Pendulum-v1", 1000 + learning_seed, n_eval_episodes=5)
    learning_score(mean)
    assert mean > -500, mean


# ----------------------------------------------------------------------------------------------
# MPI: two workers end with identical parameters
# ----------------------------------------------------------------------------------------------
@pytest.mark.mpi
@pytest.mark.skipif(find_mpirun() is None, reason=NO_MPIRUN_REASON)
def test_mpirun_two_workers_end_with_identical_parameters(tmp_path):
    save_path = str(tmp_path / "rank0.zip")
    args = ["-m", "stable_baselines.ddpg.main",
            "--env-id", "Pendulum-v1", "--num-timesteps", "120", "--nb-rollout-steps", "40", "--nb-train-steps", "4",
            "--batch-size", "16", "--no-layer-norm", "--noise-type", "adaptive-param_0.2,normal_0.1", "--seed", "3",
            "--params-checksum", "--save-path", save_path]
    result = run_mpirun(2, args, timeout=600, cwd=str(tmp_path))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    checksums = dict(re.findall(r"rank (\d) params sha256 ([0-9a-f]{64})", output))
    assert set(checksums) == {"0", "1"}, output[-3000:]
    assert checksums["0"] == checksums["1"]
    # rank-offset seeds: the workers saw different data (they logged their seeds), rank 0 saved its model
    assert "rank 0: seed=3" in output and "rank 1: seed=1000003" not in output  # only rank 0 logs
    assert os.listdir(str(tmp_path)) == ["rank0.zip"]  # no other file written (no log dir was asked for)
    loaded = DDPG.load(save_path)
    # the observation statistics were summed over both workers (120 observations each)
    np.testing.assert_allclose(loaded.get_parameters()["input/obs_rms/count:0"], 2 * 120 + 1e-2)


def test_nb_train_steps_zero_collects_without_training():
    # the original accepted nb_train_steps=0: rollouts only, the networks stay as initialised
    model = DDPG(MlpPolicy, "Pendulum-v1", nb_rollout_steps=20, nb_train_steps=0, seed=0, n_cpu_tf_sess=1)
    before = model.get_parameters()
    model.learn(60)
    after = model.get_parameters()
    assert model.num_timesteps == 60
    assert all(np.array_equal(before[name], after[name]) for name in before)
    with pytest.raises(ValueError, match="nb_train_steps must be an int >= 0"):
        DDPG(MlpPolicy, "Pendulum-v1", nb_train_steps=-1)
