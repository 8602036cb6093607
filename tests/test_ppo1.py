"""PPO1 (MPI version of PPO) and the rollout helpers it shares with TRPO/GAIL (traj_segment_generator, GAE)."""
import json
import os
import textwrap

import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("mpi4py", reason="mpi4py is not installed (the [mpi] extra)")

from stable_baselines import PPO1  # noqa: E402
from stable_baselines.bench import Monitor  # noqa: E402
from stable_baselines.common.gym_compat import make_env  # noqa: E402
from stable_baselines.common.identity_env import (IdentityEnv, IdentityEnvBox, IdentityEnvMultiBinary,  # noqa: E402
                                                  IdentityEnvMultiDiscrete)
from stable_baselines.common.policies import MlpLstmPolicy  # noqa: E402
from stable_baselines.common.runners import add_vtarg_and_adv, traj_segment_generator  # noqa: E402
from stable_baselines.common.vec_env import DummyVecEnv  # noqa: E402
from callback_helpers import StepRecorder  # noqa: E402  (tests/ helper)
from mpi_helpers import NO_MPIRUN_REASON, find_mpirun, run_worker_script  # noqa: E402  (tests/ helper)
from original_training import assert_trains_like_the_original  # noqa: E402  (tests/ helper)
from rollout_helpers import seeded_evaluation  # noqa: E402  (tests/ helper)


SMALL = dict(timesteps_per_actorbatch=64, optim_batchsize=32, optim_epochs=2, seed=0)

IDENTITY_ENVS = {
    "Discrete": lambda: IdentityEnv(4, ep_length=20),
    "Box": lambda: IdentityEnvBox(eps=0.5, ep_length=20),
    "MultiDiscrete": lambda: IdentityEnvMultiDiscrete(3, ep_length=20),
    "MultiBinary": lambda: IdentityEnvMultiBinary(3, ep_length=20),
}

CARTPOLE_PARAMS = [
    ("model/pi_fc0/w:0", [4, 64]), ("model/pi_fc0/b:0", [64]),
    ("model/vf_fc0/w:0", [4, 64]), ("model/vf_fc0/b:0", [64]),
    ("model/pi_fc1/w:0", [64, 64]), ("model/pi_fc1/b:0", [64]),
    ("model/vf_fc1/w:0", [64, 64]), ("model/vf_fc1/b:0", [64]),
    ("model/vf/w:0", [64, 1]), ("model/vf/b:0", [1]),
    ("model/pi/w:0", [64, 2]), ("model/pi/b:0", [2]),
    ("model/q/w:0", [64, 2]), ("model/q/b:0", [2]),
]


# ------------------------------------------------------------------------------------------------
# traj_segment_generator / add_vtarg_and_adv
# ------------------------------------------------------------------------------------------------
class _ConstantPolicy:
    """A stand-in policy: always action 1, value 0.5."""
    initial_state = None

    def step(self, obs, state=None, mask=None, deterministic=False):
        return np.array([1]), np.array([0.5]), None, np.array([0.0])


def test_traj_segment_generator_segments_and_episode_bookkeeping():
    env = IdentityEnv(2, ep_length=3)  # every episode lasts 3 steps, reward 1 when action == obs
    gen = traj_segment_generator(_ConstantPolicy(), env, horizon=5)
    seg = next(gen)
    assert seg["observations"].shape == (5,) and seg["actions"].tolist() == [1] * 5
    assert seg["dones"].tolist() == [False, False, True, False, False]
    assert seg["episode_starts"].tolist() == [True, False, False, True, False]
    np.testing.assert_allclose(seg["vpred"], 0.5)
    assert seg["nextvpred"] == 0.5  # the 6th step is not an episode start
    assert seg["ep_lens"] == [3] and len(seg["ep_rets"]) == 1 and seg["total_timestep"] == 5
    np.testing.assert_array_equal(seg["rewards"], seg["true_rewards"])
    assert seg["continue_training"] is True
    seg = next(gen)
    # the 6th step ends the 2nd episode; the 7th starts a new one
    assert seg["dones"].tolist() == [True, False, False, True, False]
    assert seg["ep_lens"] == [3, 3] and seg["total_timestep"] == 5
    with pytest.raises(ValueError, match="reward giver"):
        next(traj_segment_generator(_ConstantPolicy(), env, horizon=5, gail=True))


def test_traj_segment_generator_with_a_vec_env_and_gail_reward():
    class RewardGiver:
        def get_reward(self, obs, actions):
            return 7.0

    env = DummyVecEnv([lambda: Monitor(IdentityEnv(2, ep_length=2), None)])
    model = PPO1("MlpPolicy", env, **SMALL)  # a 1-env VecEnv is unwrapped, it resets by itself
    seg = next(traj_segment_generator(model.policy_pi, model.env, horizon=4, reward_giver=RewardGiver(), gail=True))
    np.testing.assert_allclose(seg["rewards"], 7.0)
    assert seg["dones"].tolist() == [False, True, False, True]
    assert seg["ep_rets"] == [14.0, 14.0]  # GAIL: the predicted reward
    assert set(seg["ep_true_rets"]) <= {0.0, 1.0, 2.0}  # the Monitor's (true) episode reward


def test_add_vtarg_and_adv_matches_gae():
    gamma, lam = 0.9, 0.8
    seg = {"rewards": np.array([1.0, 0.0, 2.0, 1.0], dtype=np.float32),
           "vpred": np.array([0.5, 0.4, 0.3, 0.2], dtype=np.float32),
           "episode_starts": np.array([True, False, False, True]),  # an episode ends after step 2
           "nextvpred": 0.7}
    add_vtarg_and_adv(seg, gamma, lam)
    values = [0.5, 0.4, 0.3, 0.2, 0.7]
    nonterminal = [1, 1, 0, 1]  # whether step t + 1 continues the episode of step t
    expected = np.zeros(4)
    last = 0.0
    for step in reversed(range(4)):
        delta = seg["rewards"][step] + gamma * values[step + 1] * nonterminal[step] - values[step]
        last = delta + gamma * lam * nonterminal[step] * last
        expected[step] = last
    np.testing.assert_allclose(seg["adv"], expected, rtol=1e-6)
    np.testing.assert_allclose(seg["tdlamret"], expected + seg["vpred"], rtol=1e-6)
    assert seg["adv"].dtype == np.float32


# ------------------------------------------------------------------------------------------------
# PPO1
# ------------------------------------------------------------------------------------------------
def test_parameter_list_and_scopes():
    model = PPO1("MlpPolicy", "CartPole-v1", **SMALL)
    assert [(v.name, v.shape.as_list()) for v in model.get_parameter_list()] == CARTPOLE_PARAMS
    # the old policy is a copy under oldpi/ (synchronized before each update, not saved)
    with model.graph.as_default():
        from stable_baselines.common.tf_compat import tf
        oldpi = [v.name for v in tf.global_variables() if v.name.startswith("oldpi/")]
    assert oldpi == ["oldpi/" + name for name, _ in CARTPOLE_PARAMS]
    box = PPO1("MlpPolicy", IdentityEnvBox(), **SMALL)
    names = [v.name for v in box.get_parameter_list()]
    assert names[names.index("model/pi/b:0") + 1] == "model/pi/logstd:0"


@pytest.mark.parametrize("space", list(IDENTITY_ENVS))
def test_all_action_and_observation_spaces(space):
    env = IDENTITY_ENVS[space]()
    model = PPO1("MlpPolicy", env, **SMALL)
    before = model.get_parameters()
    model.learn(128)
    assert model.num_timesteps == 128
    after = model.get_parameters()
    assert any(not np.allclose(before[name], after[name]) for name in before)
    obs, _ = env.reset(seed=0)
    action, state = model.predict(obs)
    assert state is None
    assert env.action_space.contains(np.asarray(action, dtype=env.action_space.dtype)
                                     if space != "Discrete" else int(action))
    batch = np.stack([obs, obs])
    assert len(model.predict(batch)[0]) == 2
    proba = model.action_probability(obs)
    assert proba is not None


def test_save_load_round_trip(tmp_path):
    model = PPO1("MlpPolicy", "CartPole-v1", gamma=0.97, clip_param=0.1, optim_stepsize=5e-4, **SMALL)
    model.learn(128)
    path = str(tmp_path / "ppo1_cartpole.zip")
    model.save(path)
    loaded = PPO1.load(path)
    assert (loaded.gamma, loaded.clip_param, loaded.optim_stepsize, loaded.timesteps_per_actorbatch) == \
        (0.97, 0.1, 5e-4, 64)
    params, loaded_params = model.get_parameters(), loaded.get_parameters()
    assert list(params) == list(loaded_params)
    for name in params:
        np.testing.assert_array_equal(params[name], loaded_params[name])
    obs = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    np.testing.assert_array_equal(model.predict(obs, deterministic=True)[0],
                                  loaded.predict(obs, deterministic=True)[0])
    np.testing.assert_allclose(model.action_probability(obs), loaded.action_probability(obs), rtol=1e-6)
    # continue training with a new env
    loaded.set_env(make_env("CartPole-v1"))
    loaded.learn(64)
    assert loaded.num_timesteps == 64


def test_seed_makes_runs_identical():
    def run():
        model = PPO1("MlpPolicy", "CartPole-v1", **SMALL)
        model.learn(128)
        return model.get_parameters()

    first, second = run(), run()
    for name in first:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)


MANUAL_CALLBACK_VARIABLES = [
    "self", "total_timesteps", "callback", "log_interval", "tb_log_name", "reset_num_timesteps", "new_tb_log",
    "writer", "policy", "env", "horizon", "reward_giver", "gail", "step", "cur_ep_ret", "current_it_len",
    "current_ep_len", "cur_ep_true_ret", "ep_true_rets", "ep_rets", "ep_lens", "observations", "true_rewards",
    "rewards", "vpreds", "episode_starts", "dones", "actions", "states", "episode_start", "done", "vpred", "_",
    "i", "clipped_action", "reward", "true_reward", "info", "action", "observation"]


def test_callback_variables_events_and_early_stop():
    events = []

    def keep_going(callback):
        if callback.n_calls == 1:
            missing = [name for name in MANUAL_CALLBACK_VARIABLES if name not in callback.locals]
            assert missing == [], missing
            assert callback.locals["self"] is callback.model
        if "maybe_ep_info" in callback.locals:
            events.append("episode_info")
        return callback.n_calls < 100

    recorder = StepRecorder(keep_going, events, names=("training_start", "rollout_start", "rollout_end", "training_end"))
    model = PPO1("MlpPolicy", Monitor(make_env("CartPole-v1"), None), **SMALL)
    model.learn(10000, callback=recorder)
    assert events.count("step") == 100
    assert events[0] == "training_start" and events[-1] == "training_end"
    assert events.count("rollout_end") == 1  # 64 steps per rollout: stopped during the second one
    assert "episode_info" in events
    assert model.num_timesteps == 64  # PPO1 updates num_timesteps after each rollout


def test_legacy_function_callback_stops_training():
    calls = []

    def callback(locals_, globals_):
        calls.append(locals_["step"])
        return len(calls) < 10

    model = PPO1("MlpPolicy", "CartPole-v1", **SMALL)
    model.learn(1000, callback=callback)
    assert len(calls) == 10 and model.num_timesteps == 0


def test_bad_input_errors():
    with pytest.raises(ValueError, match=r"does not support the action space .*Tuple.*supported: Box, Discrete"):
        env = IdentityEnv(2)
        env.action_space = spaces.Tuple([spaces.Discrete(2), spaces.Discrete(2)])
        PPO1("MlpPolicy", env)
    with pytest.raises(ValueError, match="Unknown schedule 'cosine'.*linear"):
        PPO1("MlpPolicy", "CartPole-v1", schedule="cosine")
    with pytest.raises(ValueError, match="does not support recurrent policies"):
        PPO1(MlpLstmPolicy, "CartPole-v1")
    with pytest.raises(ValueError, match="timesteps_per_actorbatch must be a positive int"):
        PPO1("MlpPolicy", "CartPole-v1", timesteps_per_actorbatch=0)
    model = PPO1("MlpPolicy", "CartPole-v1", **SMALL)
    with pytest.raises(ValueError, match=r"Unexpected observation shape \(3,\)"):
        model.predict(np.zeros(3))
    model.env = None
    with pytest.raises(ValueError, match="without a valid environment"):
        model.learn(100)


def test_schedules():
    model = PPO1("MlpPolicy", "CartPole-v1", _init_setup_model=False, **SMALL)
    expected = {"constant": 1.0, "linear": 0.5, "double_linear_con": 0.125, "middle_drop": 0.075,
                "double_middle_drop": 0.075}
    for schedule, value in expected.items():
        model.schedule = schedule
        assert model._lr_multiplier(0, 100) == 1.0
        assert model._lr_multiplier(50, 100) == pytest.approx(value), schedule
        assert model._lr_multiplier(150, 100) >= 0.0


def test_verbose_table_tensorboard_and_progress_bar(tmp_path, capsys):
    model = PPO1("MlpPolicy", "CartPole-v1", verbose=1, tensorboard_log=str(tmp_path), **SMALL)
    model.learn(128, progress_bar=True)
    captured = capsys.readouterr()
    for key in ("EpLenMean", "EpRewMean", "TimestepsSoFar", "loss_pol_surr", "ev_tdlam_before", "pol_surr"):
        assert key in captured.out, key
    assert "128/128" in captured.err
    run_dir = tmp_path / "PPO1_1"
    assert run_dir.is_dir() and any(name.startswith("events.out") for name in os.listdir(run_dir))


def test_pretrain_behaviour_cloning():
    """pretrain() works through _get_pretrain_placeholders (a minimal stand-in for ExpertDataset)."""
    rng = np.random.RandomState(0)
    observations = rng.randn(256, 4).astype(np.float32)
    actions = (observations[:, 2] > 0).astype(np.int64)  # "push towards the pole"

    class Loader:
        def __len__(self):
            return 8

    class FakeDataset:
        train_loader = Loader()
        val_loader = Loader()

        def __init__(self):
            self.index = 0

        def get_next_batch(self, split=None):
            start = (self.index % 8) * 32
            self.index += 1
            return observations[start:start + 32], actions[start:start + 32]

    model = PPO1("MlpPolicy", "CartPole-v1", **SMALL)
    model.pretrain(FakeDataset(), n_epochs=30, learning_rate=1e-2)
    predicted, _ = model.predict(observations, deterministic=True)
    assert np.mean(predicted == actions) > 0.9


@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
def test_ppo1_learns_cartpole(learning_seed, learning_score):
    """A cheaper version of the zoo run (benchmarks/ppo1_cartpole.py, which scores 500 after 1e5 steps): with
    optim_stepsize 1e-3, 16 iterations of 1024 steps reach 400+ on CartPole-v1 (measured 500.0 +/- 0 with
    seeds 0 and 1)."""
    model = PPO1("MlpPolicy", make_env("CartPole-v1"), timesteps_per_actorbatch=1024, entcoeff=0.0, optim_epochs=10,
                 optim_stepsize=1e-3, optim_batchsize=64, seed=learning_seed, n_cpu_tf_sess=1)
    model.learn(16384)
    mean_reward, _ = seeded_evaluation(model, "CartPole-v1", 1000 + learning_seed, n_eval_episodes=10)
    learning_score(mean_reward)
    assert mean_reward >= 400, mean_reward


MPI_TRAIN_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    from mpi4py import MPI
    from stable_baselines import PPO1
    from stable_baselines.common.gym_compat import make_env

    rank = MPI.COMM_WORLD.Get_rank()
    # different seeds: different initial weights (rank 0's are broadcast) and different experience
    model = PPO1("MlpPolicy", make_env("CartPole-v1"), timesteps_per_actorbatch=64, optim_batchsize=32,
                 optim_epochs=2, seed=rank)
    initial = {name: value.tolist() for name, value in model.get_parameters().items()}
    model.learn(256)
    model.save(sys.argv[1] + "_rank" + str(rank) + ".zip")
    with open(sys.argv[1] + "_rank" + str(rank) + ".json", "w") as file_handler:
        json.dump(dict(num_timesteps=model.num_timesteps, initial=initial, size=MPI.COMM_WORLD.Get_size()),
                  file_handler)
""")


@pytest.mark.mpi
@pytest.mark.skipif(find_mpirun() is None, reason=NO_MPIRUN_REASON)
def test_mpirun_two_workers_end_with_identical_parameters(tmp_path):
    prefix = run_worker_script(MPI_TRAIN_SCRIPT, tmp_path, "train.py", "ppo1", timeout=400)
    infos = [json.load(open(prefix + "_rank{}.json".format(rank))) for rank in range(2)]
    assert [info["size"] for info in infos] == [2, 2]
    # 2 workers x 64 steps per iteration: 2 iterations reach 256 timesteps, counted on both workers
    assert [info["num_timesteps"] for info in infos] == [256, 256]
    models = [PPO1.load(prefix + "_rank{}.zip".format(rank)) for rank in range(2)]
    params = [model.get_parameters() for model in models]
    assert list(params[0]) == [name for name, _ in CARTPOLE_PARAMS]
    for name in params[0]:
        np.testing.assert_array_equal(params[0][name], params[1][name], err_msg=name)
    # the initial weights differed (different seeds), and training changed rank 0's
    assert any(not np.allclose(infos[0]["initial"][name], infos[1]["initial"][name]) for name in params[0])
    assert any(not np.allclose(infos[0]["initial"][name], params[0][name]) for name in params[0])


def test_training_matches_the_original_libraries_training():
    """
    The original 2.10 PPO1 (its own code, run once under tf.compat.v1; see original_2_10/README.md) on
    CartPole-v1, seed 0, timesteps_per_actorbatch=256: its parameters before and after learn(1024). Same seed here: the same
    initial parameters bit for bit, and the same trained ones (bit for bit on the machine that made the file; CPUs with
    other vector units round TensorFlow's sums differently: 3e-8 seen).
    """
    model = PPO1("MlpPolicy", make_env("CartPole-v1"), timesteps_per_actorbatch=256, seed=0, n_cpu_tf_sess=1)
    assert_trains_like_the_original(model, 1024, "ppo1_CartPole-v1_seed0_1024.npz", atol=1e-6)
