"""
The command-line entry points of the algorithms (run_atari, run_mujoco, run_robotics) run to completion
with a small budget, in-process; and `mpirun -np 2 ... trpo_mpi.run_atari` works with one env per rank.
"""
import importlib
import os

import gymnasium
import pytest

from stable_baselines import logger
from mpi_helpers import NO_MPIRUN_REASON, find_mpirun, run_mpirun  # noqa: E402  (tests/ helper)

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def restore_logger():
    yield
    logger.reset()


def _run(module: str, argv: list):
    return importlib.import_module(module).main(argv)


@pytest.mark.parametrize("module, argv", [
    ("stable_baselines.acer.run_atari", ["--num-env", "2", "--num-timesteps", "200"]),
    ("stable_baselines.acktr.run_atari", ["--num-env", "2", "--num-timesteps", "40"]),  # K-FAC: 3137x3137 factors
    ("stable_baselines.ppo1.run_atari", ["--num-timesteps", "256"]),
    # trpo_mpi.run_atari: run under mpirun by test_mpirun_two_ranks_trpo_run_atari
])
def test_run_atari(module, argv):
    pytest.importorskip("ale_py", reason="needs the atari extra (ale-py)")
    if "ppo1" in module or "trpo" in module:
        pytest.importorskip("mpi4py", reason="needs the mpi extra")
    _run(module, ["--env", "PongNoFrameskip-v4"] + argv)


@pytest.mark.parametrize("module", ["stable_baselines.ppo1.run_mujoco", "stable_baselines.trpo_mpi.run_mujoco"])
def test_run_mujoco(module):
    pytest.importorskip("mujoco", reason="needs the mujoco extra")
    pytest.importorskip("mpi4py", reason="needs the mpi extra")
    model = importlib.import_module(module).train("Reacher-v2", num_timesteps=2048, seed=0)
    assert model.num_timesteps >= 2048


def test_run_robotics_on_a_goal_conditioned_env():
    """The Fetch tasks need gymnasium-robotics; any Dict(observation, desired_goal) env works the same way."""
    pytest.importorskip("mpi4py", reason="needs the mpi extra")
    env_id = "BitFlippingForRunRobotics-v0"
    if env_id not in gymnasium.registry:
        gymnasium.register(env_id, entry_point="stable_baselines.common.bit_flipping_env:BitFlippingEnv",
                           kwargs=dict(n_bits=4, continuous=True))
    from stable_baselines.ppo1 import run_robotics
    model = run_robotics.train(env_id, num_timesteps=2048, seed=0)
    assert model.num_timesteps >= 2048
    assert model.observation_space.shape == (8,)  # observation (4 bits) + desired goal (4 bits)


@pytest.mark.mpi
def test_mpirun_two_ranks_trpo_run_atari(tmp_path):
    pytest.importorskip("ale_py", reason="needs the atari extra (ale-py)")
    pytest.importorskip("mpi4py", reason="needs the mpi extra")
    if find_mpirun() is None:
        pytest.skip(NO_MPIRUN_REASON)
    result = run_mpirun(2, ["-m", "stable_baselines.trpo_mpi.run_atari", "--env", "PongNoFrameskip-v4",
                            "--num-timesteps", "400"], timeout=900, cwd=str(tmp_path),
                        extra_env=dict(OPENAI_LOGDIR=str(tmp_path), OPENAI_LOG_FORMAT="stdout,csv"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # one Monitor file per rank, the logger's files from rank 0 only
    monitors = sorted(name for name in os.listdir(tmp_path) if name.endswith(".monitor.csv"))
    assert monitors == ["0.monitor.csv", "1.monitor.csv"]
    assert os.path.exists(os.path.join(tmp_path, "progress.csv"))


@pytest.mark.mpi
def test_mpirun_two_ranks_ppo2_run_atari_data_parallel(tmp_path):
    """PPO2's script under mpirun: one model trained by both ranks, the budget counting both, rank 0 logging."""
    pytest.importorskip("ale_py", reason="needs the atari extra (ale-py)")
    pytest.importorskip("mpi4py", reason="needs the mpi extra")
    if find_mpirun() is None:
        pytest.skip(NO_MPIRUN_REASON)
    result = run_mpirun(2, ["-m", "stable_baselines.ppo2.run_atari", "--env", "PongNoFrameskip-v4", "--num-env", "2",
                            "--num-timesteps", "1024"], timeout=900, cwd=str(tmp_path),
                        extra_env=dict(OPENAI_LOGDIR=str(tmp_path), OPENAI_LOG_FORMAT="stdout,csv"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # 2 updates of 2 envs x 128 steps x 2 ranks, one table each, printed by rank 0 only
    assert result.stdout.count("| n_updates ") == 2
    assert "| total_timesteps    | 1024 " in result.stdout
    # the Monitor files of both ranks' environments, the logger's files from rank 0 only
    monitors = sorted(name for name in os.listdir(tmp_path) if name.endswith(".monitor.csv"))
    assert monitors == ["0.monitor.csv", "1.monitor.csv", "2.monitor.csv", "3.monitor.csv"]
    with open(os.path.join(tmp_path, "progress.csv")) as progress:
        assert len(progress.read().splitlines()) == 3  # header + 2 updates
