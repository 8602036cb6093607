"""TRPO: parameter names, the zoo's legacy agent, all four action spaces, callbacks, determinism, learning, MPI."""
import os

import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("mpi4py", reason="mpi4py is not installed (the [mpi] extra)")

from stable_baselines import TRPO  # noqa: E402
from stable_baselines.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines.common.gym_compat import make_env  # noqa: E402
from stable_baselines.common.identity_env import (IdentityEnv, IdentityEnvBox, IdentityEnvMultiBinary,  # noqa: E402
                                                  IdentityEnvMultiDiscrete)
from stable_baselines.common.policies import MlpLstmPolicy, MlpPolicy  # noqa: E402
from mpi_helpers import NO_MPIRUN_REASON, find_mpirun, rank_results, run_worker_script  # noqa: E402  (tests/ helper)
from original_training import assert_trains_like_the_original  # noqa: E402  (tests/ helper)
from legacy_helpers import assert_golden_discrete_forward, deterministic_returns  # noqa: E402  (tests/ helper)
from rollout_helpers import seeded_evaluation  # noqa: E402  (tests/ helper)

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEGACY_DIR = os.path.join(REPO_ROOT, "tests", "data", "legacy_models")

# /work/shared/legacy-models/README.md, "trpo — trpo/CartPole-v1.pkl (28 variables)"
_AC_NAMES = ["pi_fc0/w", "pi_fc0/b", "vf_fc0/w", "vf_fc0/b", "pi_fc1/w", "pi_fc1/b", "vf_fc1/w", "vf_fc1/b",
             "vf/w", "vf/b", "pi/w", "pi/b", "q/w", "q/b"]
EXPECTED_CARTPOLE_NAMES = ["model/{}:0".format(name) for name in _AC_NAMES] + \
    ["oldpi/model/{}:0".format(name) for name in _AC_NAMES]
EXPECTED_CARTPOLE_SHAPES = [(4, 64), (64,), (4, 64), (64,), (64, 64), (64,), (64, 64), (64,), (64, 1), (1,),
                            (64, 2), (2,), (64, 2), (2,)] * 2

SMALL = dict(timesteps_per_batch=64, vf_iters=1, cg_iters=3, n_cpu_tf_sess=1)


def test_parameter_list_is_the_original():
    model = TRPO(MlpPolicy, make_env("CartPole-v1"), seed=0, **SMALL)
    params = model.get_parameter_list()
    assert [param.name for param in params] == EXPECTED_CARTPOLE_NAMES
    assert [tuple(param.shape.as_list()) for param in params] == EXPECTED_CARTPOLE_SHAPES
    # Box actions add model/pi/logstd right after model/pi/b, in both copies
    names = [param.name for param in TRPO(MlpPolicy, IdentityEnvBox(), **SMALL).get_parameter_list()]
    assert len(names) == 30
    assert names[11:13] == ["model/pi/b:0", "model/pi/logstd:0"]
    assert names[26:28] == ["oldpi/model/pi/b:0", "oldpi/model/pi/logstd:0"]


def test_legacy_zoo_agent_matches_golden_and_scores():
    """The rl-baselines-zoo TRPO agent (cloudpickle, 28 unnamed arrays) loads, computes and scores as the original."""
    model = TRPO.load(os.path.join(LEGACY_DIR, "trpo", "CartPole-v1.pkl"), verbose=0)
    assert [param.name for param in model.get_parameter_list()] == EXPECTED_CARTPOLE_NAMES
    assert model.timesteps_per_batch == 512 and model.max_kl == 0.001 and model.using_gail is False
    golden = np.load(os.path.join(LEGACY_DIR, "golden", "trpo", "CartPole-v1.npz"))
    assert_golden_discrete_forward(model, model.policy_pi, golden)
    # expected 500.0 +/- 0.0 over 100 episodes
    env = make_env("CartPole-v1")
    rewards = deterministic_returns(model, env, 3)
    assert np.mean(rewards) >= 475, rewards


@pytest.mark.parametrize("env_class", [IdentityEnv, IdentityEnvBox, IdentityEnvMultiDiscrete, IdentityEnvMultiBinary])
def test_action_spaces_learn_predict_save_load(env_class, tmp_path):
    env = env_class(dim=2) if env_class is not IdentityEnvBox else env_class()
    model = TRPO(MlpPolicy, env, seed=1, **SMALL)
    before = model.get_parameters()
    model.learn(128)
    assert model.num_timesteps == 128
    after = model.get_parameters()
    # the policy moved, and the old policy holds the policy of the last update's start
    assert any(not np.array_equal(before[name], after[name]) for name in before if name.startswith("model/pi"))
    obs = np.array([env.observation_space.sample() for _ in range(5)])
    actions, _ = model.predict(obs, deterministic=True)
    assert actions.shape == (5,) + env.action_space.shape
    assert all(env.action_space.contains(np.asarray(action, dtype=env.action_space.dtype)) for action in actions)
    path = str(tmp_path / "trpo.zip")
    model.save(path)
    loaded = TRPO.load(path, env=env)
    np.testing.assert_array_equal(loaded.predict(obs, deterministic=True)[0], actions)
    for name, value in model.get_parameters().items():
        np.testing.assert_array_equal(loaded.get_parameters()[name], value)
    assert loaded.timesteps_per_batch == 64 and loaded.cg_iters == 3
    loaded.learn(64)  # training goes on after loading


def test_bad_spaces_and_policies_get_clear_errors():
    class TupleActionEnv(IdentityEnv):
        def __init__(self):
            super().__init__(dim=2)
            self.action_space = spaces.Tuple((spaces.Discrete(2), spaces.Discrete(2)))

    with pytest.raises(ValueError, match="TRPO does not support the action space Tuple.*Discrete, Box, MultiDiscrete"):
        TRPO(MlpPolicy, TupleActionEnv(), **SMALL)
    with pytest.raises(ValueError, match="does not support recurrent policies"):
        TRPO(MlpLstmPolicy, make_env("CartPole-v1"), **SMALL)


def test_callback_sees_the_manual_variables_and_can_stop_training():
    class Recorder(BaseCallback):
        def __init__(self):
            super().__init__()
            self.start_keys = set()
            self.step_keys = set()
            self.rollouts = 0

        def _on_training_start(self):
            self.start_keys = set(self.locals)

        def _on_rollout_end(self):
            self.rollouts += 1

        def _on_step(self):
            self.step_keys = set(self.locals)
            return self.n_calls < 100

    callback = Recorder()
    model = TRPO(MlpPolicy, make_env("CartPole-v1"), seed=0, **SMALL)
    model.learn(10000, callback=callback)
    assert callback.n_calls == 100
    assert callback.rollouts == 100 // 64
    assert model.num_timesteps == 64  # only the completed iteration counts (updated after each MPI sync)
    assert {"total_timesteps", "callback", "log_interval", "tb_log_name", "reset_num_timesteps", "new_tb_log",
            "writer", "self"} <= callback.start_keys
    assert {"policy", "env", "horizon", "reward_giver", "gail", "step", "cur_ep_ret", "current_it_len",
            "current_ep_len", "cur_ep_true_ret", "ep_true_rets", "ep_rets", "ep_lens", "observations", "true_rewards",
            "rewards", "vpreds", "episode_starts", "dones", "actions", "states", "episode_start", "done", "vpred",
            "clipped_action", "reward", "true_reward", "info", "action", "observation"} <= callback.step_keys


def test_same_seed_gives_identical_parameters():
    results = []
    for _ in range(2):
        model = TRPO(MlpPolicy, make_env("CartPole-v1"), seed=3, **SMALL)
        model.learn(192)
        results.append(model.get_parameters())
    for name in results[0]:
        np.testing.assert_array_equal(results[0][name], results[1][name])


@pytest.mark.slow
@pytest.mark.seeds(0, 1, 2)
def test_trpo_learns_cartpole(learning_seed, learning_score):
    model = TRPO(MlpPolicy, make_env("CartPole-v1"), seed=learning_seed, timesteps_per_batch=1024, n_cpu_tf_sess=1)
    model.learn(8192)
    mean_reward, _ = seeded_evaluation(model, "CartPole-v1", 1000 + learning_seed, n_eval_episodes=5)
    learning_score(mean_reward)
    # a random policy scores ~22; the zoo budget (1e5 steps, benchmarks/trpo_cartpole.py) reaches 500
    assert mean_reward >= 150, mean_reward


MPI_SCRIPT = r"""
import json, sys
import numpy as np
from mpi4py import MPI
from stable_baselines import TRPO
from stable_baselines.common.gym_compat import make_env

rank = MPI.COMM_WORLD.Get_rank()
# different seeds: different initial weights and different episodes on each rank
model = TRPO("MlpPolicy", make_env("CartPole-v1"), seed=rank, timesteps_per_batch=128, vf_iters=2, cg_iters=5,
             n_cpu_tf_sess=1)
initial = {name: value.tolist() for name, value in model.get_parameters().items()}
model.learn(512)  # 2 iterations: each adds 2 ranks x 128 timesteps
final = {name: value.tolist() for name, value in model.get_parameters().items()}

# GAIL: the discriminator (and its observation statistics) are averaged over the ranks too
from stable_baselines import GAIL
from stable_baselines.gail import ExpertDataset
expert_rng = np.random.RandomState(0)  # the same (fake) expert data on both ranks
traj = dict(obs=expert_rng.uniform(-0.05, 0.05, (300, 4)).astype(np.float32),
            actions=expert_rng.randint(2, size=(300, 1)), rewards=np.ones(300),
            episode_starts=np.arange(300) % 100 == 0, episode_returns=np.full(3, 100.0))
gail = GAIL("MlpPolicy", make_env("CartPole-v1"), ExpertDataset(traj_data=traj, verbose=0), seed=rank,
            timesteps_per_batch=128, g_step=1, vf_iters=1, cg_iters=3, n_cpu_tf_sess=1)
gail.learn(256)  # 1 iteration: 2 ranks x 128 timesteps
gail_final = {name: value.tolist() for name, value in gail.get_parameters().items()}
with gail.graph.as_default():
    rms = gail.sess.run(gail.reward_giver.obs_rms.mean).tolist()
with open(sys.argv[1] + "." + str(rank), "w") as file_handler:
    json.dump(dict(size=MPI.COMM_WORLD.Get_size(), num_timesteps=model.num_timesteps, initial=initial,
                   final=final, gail_final=gail_final, gail_rms=rms), file_handler)
"""


@pytest.mark.mpi
@pytest.mark.skipif(find_mpirun() is None, reason=NO_MPIRUN_REASON)
def test_mpirun_two_ranks_train_to_identical_parameters(tmp_path):
    """TRPO then GAIL on 2 MPI ranks with different seeds: after training, every parameter is identical."""
    results = rank_results(run_worker_script(MPI_SCRIPT, tmp_path, "trpo_worker.py", "result", timeout=600))
    assert [res["size"] for res in results] == [2, 2]
    # timesteps are summed over the ranks
    assert [res["num_timesteps"] for res in results] == [512, 512]
    final_0, final_1 = results[0]["final"], results[1]["final"]
    assert list(final_0) == EXPECTED_CARTPOLE_NAMES
    for name in final_0:
        np.testing.assert_array_equal(np.array(final_0[name]), np.array(final_1[name]), err_msg=name)
        if name.startswith("model/") and "/q/" not in name:
            # training changed the policy / value parameters from rank 0's initial (broadcast) ones
            # (model/q is not trained by TRPO)
            assert not np.array_equal(np.array(final_0[name]), np.array(results[0]["initial"][name])), name
    gail_0, gail_1 = results[0]["gail_final"], results[1]["gail_final"]
    assert len(gail_0) == 34 and list(gail_0)[28:] == [
        "adversary/fully_connected/weights:0", "adversary/fully_connected/biases:0",
        "adversary/fully_connected_1/weights:0", "adversary/fully_connected_1/biases:0",
        "adversary/fully_connected_2/weights:0", "adversary/fully_connected_2/biases:0"]
    for name in gail_0:
        np.testing.assert_array_equal(np.array(gail_0[name]), np.array(gail_1[name]), err_msg=name)
    np.testing.assert_allclose(results[0]["gail_rms"], results[1]["gail_rms"])
    # before the broadcast the ranks had different (seeded) initial weights
    assert not np.array_equal(np.array(results[0]["initial"]["oldpi/model/pi/w:0"]),
                              np.array(results[1]["initial"]["oldpi/model/pi/w:0"]))


def test_training_matches_the_original_libraries_training():
    """
    The original 2.10 TRPO (its own code, run once under tf.compat.v1; see original_2_10/README.md) on
    CartPole-v1, seed 0, timesteps_per_batch=256: its parameters before and after learn(1024). Same seed here: the same
    initial parameters bit for bit, and the same trained ones (bit for bit on the machine that made the file; CPUs with
    other vector units round TensorFlow's sums differently, and TRPO's conjugate gradient amplifies it: 8e-5 seen,
    against parameter changes above 1e-2).
    """
    model = TRPO("MlpPolicy", make_env("CartPole-v1"), timesteps_per_batch=256, seed=0, n_cpu_tf_sess=1)
    assert_trains_like_the_original(model, 1024, "trpo_CartPole-v1_seed0_1024.npz", atol=5e-4)
