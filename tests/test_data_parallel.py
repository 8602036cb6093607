"""
PPO2 and A2C data-parallel under ``mpirun -np 2`` (the rank side is tests/data_parallel_worker.py), and what stays
as it was in one process.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from stable_baselines import A2C, PPO2
from stable_baselines.common.model.data_parallel import OPT_OUT_VARIABLE, launcher_world_size, learn_settings

from mpi_helpers import NO_MPIRUN_REASON, REPO_ROOT, find_mpirun, run_mpirun

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data_parallel_worker.py")
needs_mpirun = pytest.mark.skipif(find_mpirun() is None, reason=NO_MPIRUN_REASON)


def assert_same_parameters(first, second):
    assert list(first) == list(second)
    for name in first:
        np.testing.assert_array_equal(np.array(first[name]), np.array(second[name]), err_msg=name)


def differ(first, second):
    return any(not np.array_equal(np.array(first[name]), np.array(second[name])) for name in first)


def run_two_ranks(folder):
    """The results of both ranks of one ``mpirun -np 2`` run of the worker's checks."""
    result = run_mpirun(2, [WORKER, "checks", str(folder)], timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    ranks = [json.load(open(os.path.join(str(folder), "rank{}.json".format(rank)))) for rank in range(2)]
    return folder, ranks, result


def check_ppo2_ranks_identical_after_learn(two_ranks):
    _, (rank0, rank1), _ = two_ranks
    assert [rank0["size"], rank1["size"]] == [2, 2]
    # seeds offset per rank: different initial weights, made identical by the broadcast, trained identically
    assert differ(rank0["ppo2_initial"], rank1["ppo2_initial"])
    assert_same_parameters(rank0["ppo2_final"], rank1["ppo2_final"])
    assert differ(rank0["ppo2_final"], rank0["ppo2_initial"])
    # the fused update is off: one session call (and one allreduce) per minibatch
    assert rank0["ppo2_fused"] is False
    # 3 updates of 2 envs x 16 steps on each of 2 ranks: the count of both ranks
    assert rank0["ppo2_num_timesteps"] == rank1["ppo2_num_timesteps"] == 192
    # the schedule's progress of one process with 4 envs and the same budget: 3 updates
    np.testing.assert_allclose(rank0["ppo2_progress"], [1.0, 2 / 3, 1 / 3])
    assert rank1["ppo2_progress"] == rank0["ppo2_progress"]
    # the episode statistics cover the episodes of both ranks
    assert rank0["ppo2_episode_rewards"] == rank1["ppo2_episode_rewards"]
    assert len(rank0["ppo2_episode_rewards"]) == rank0["ppo2_own_episodes"] + rank1["ppo2_own_episodes"] > 0


def check_recurrent_ppo2_and_a2c_ranks_identical(two_ranks):
    _, (rank0, rank1), _ = two_ranks
    assert_same_parameters(rank0["lstm_final"], rank1["lstm_final"])
    assert rank0["lstm_num_timesteps"] == rank1["lstm_num_timesteps"] == 64
    assert differ(rank0["a2c_initial"], rank1["a2c_initial"])
    assert_same_parameters(rank0["a2c_final"], rank1["a2c_final"])
    assert rank0["a2c_num_timesteps"] == rank1["a2c_num_timesteps"] == 80
    # A2C's schedule ticked once per transition of both ranks
    assert rank0["a2c_schedule_step"] == rank1["a2c_schedule_step"] == 80
    # a recurrent A2C on envs whose masks exist after reset: masked on both ranks, identical after training
    assert rank0["masked_uses_masks"] and rank1["masked_uses_masks"]
    assert rank0["masked_forbidden"] == rank1["masked_forbidden"] == 0
    assert_same_parameters(rank0["masked_final"], rank1["masked_final"])


def check_stop_on_one_rank_stops_both(two_ranks):
    _, (rank0, rank1), _ = two_ranks
    assert rank0["stop_steps"] == rank1["stop_steps"] == 21
    assert rank0["stop_num_timesteps"] == rank1["stop_num_timesteps"] == 21 * 2 * 2
    assert_same_parameters(rank0["stop_final"], rank1["stop_final"])


def check_mismatched_settings_same_error_on_every_rank(two_ranks):
    _, (rank0, rank1), _ = two_ranks
    assert rank0["mismatch_error"] == rank1["mismatch_error"]
    assert "total_timesteps: [200, 300]" in rank0["mismatch_error"]
    assert "must all call learn with the same settings" in rank0["mismatch_error"]


def check_opt_out_trains_every_rank_alone(two_ranks):
    _, (rank0, rank1), _ = two_ranks
    assert rank0["optout_data_parallel"] is False
    assert rank0["optout_num_timesteps"] == rank1["optout_num_timesteps"] == 64
    assert differ(rank0["optout_final"], rank1["optout_final"])


def check_only_rank_zero_writes(two_ranks):
    folder, _, result = two_ranks
    files = sorted(os.listdir(str(folder)))
    assert "ppo2_rank0.zip" in files and "ppo2_rank1.zip" not in files
    runs = os.listdir(os.path.join(str(folder), "tb"))
    assert runs == ["PPO2_1"]
    assert len(os.listdir(os.path.join(str(folder), "tb", "PPO2_1"))) == 1
    # the logger table is printed by rank 0 only: one per update
    assert result.stdout.count("| n_updates ") == 3


@pytest.mark.mpi
@needs_mpirun
def test_two_ranks_train_one_model(tmp_path):
    """
    One ``mpirun -np 2`` run (each start costs a TensorFlow import per rank) of several trainings; each check
    compares what both ranks recorded.
    """
    two_ranks = run_two_ranks(tmp_path)
    check_ppo2_ranks_identical_after_learn(two_ranks)
    check_recurrent_ppo2_and_a2c_ranks_identical(two_ranks)
    check_stop_on_one_rank_stops_both(two_ranks)
    check_mismatched_settings_same_error_on_every_rank(two_ranks)
    check_opt_out_trains_every_rank_alone(two_ranks)
    check_only_rank_zero_writes(two_ranks)


@pytest.mark.mpi
@needs_mpirun
def test_failing_rank_ends_every_rank(tmp_path):
    result = run_mpirun(2, [WORKER, "fail", str(tmp_path)], timeout=180)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "PPO2 data-parallel: rank 1 of 2 failed" in output
    assert "RuntimeError: rank one breaks on purpose" in output
    assert not any(name.startswith("finished") for name in os.listdir(str(tmp_path)))


def test_opt_out_and_one_process_build_the_plain_graph(monkeypatch):
    assert launcher_world_size() == 1
    plain = PPO2("MlpPolicy", "CartPole-v1", n_steps=16, nminibatches=2)
    assert plain._data_parallel is None and plain._fused_update.enabled
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    monkeypatch.setenv(OPT_OUT_VARIABLE, "0")
    for model in (PPO2("MlpPolicy", "CartPole-v1", n_steps=16, nminibatches=2), A2C("MlpPolicy", "CartPole-v1")):
        assert model._data_parallel is None
        assert not [op for op in model.graph.get_operations() if "data_parallel" in op.name]
    model.learn(50)
    assert model.num_timesteps == 50


def test_the_settings_every_rank_must_share():
    ppo2 = PPO2("MlpPolicy", "CartPole-v1", n_steps=16, nminibatches=2, noptepochs=3)
    settings = learn_settings(ppo2, 640, ppo2._rank_agreed)
    assert settings["algorithm"] == "PPO2" and settings["n_steps"] == 16 and settings["total_timesteps"] == 640
    assert settings["nminibatches"] == 2 and settings["noptepochs"] == 3
    assert [name for name, _ in settings["parameters"]] == [variable.name for variable in ppo2.params]
    a2c = A2C("MlpPolicy", "CartPole-v1")
    assert "nminibatches" not in learn_settings(a2c, 640, a2c._rank_agreed)


def test_launcher_without_mpi4py_names_the_extra_and_the_opt_out():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "from stable_baselines import PPO2\n"
            "model = PPO2('MlpPolicy', 'CartPole-v1', n_steps=16, nminibatches=2)\n"
            "try:\n"
            "    model.learn(64)\n"
            "except ImportError as error:\n"
            "    print('ERROR', error)\n")
    env = dict(os.environ, OMPI_COMM_WORLD_SIZE="2", OMPI_COMM_WORLD_RANK="0", PYTHONPATH=REPO_ROOT,
               TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "ERROR PPO2 was started by an MPI launcher with 2 processes" in result.stdout
    assert "pip install stable-baselines[mpi]" in result.stdout
    assert "{}=0".format(OPT_OUT_VARIABLE) in result.stdout
