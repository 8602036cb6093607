"""
Train TRPO on a MuJoCo task (gymnasium's MuJoCo environments; old ``-v2`` ids map to ``-v5``), one
environment per MPI rank:

    python -m stable_baselines.trpo_mpi.run_mujoco --env Hopper-v2
    mpirun -np 4 python -m stable_baselines.trpo_mpi.run_mujoco --env Hopper-v2

runs the algorithm for 1M timesteps (``--num-timesteps``). Only rank 0 logs.
"""
from typing import Optional, Sequence

from stable_baselines import logger
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.cmd_util import make_mujoco_env, mpi_worker_setup, mujoco_arg_parser
from stable_baselines.common.policies import MlpPolicy
from stable_baselines.trpo_mpi import TRPO


def train(env_id: str, num_timesteps: int, seed: int) -> TRPO:
    """
    Train TRPO with the MLP policy on this rank's copy of a MuJoCo task. The arguments: those of
    :func:`~stable_baselines.common.command_line.scripts.parse_and_train`.
    """
    rank, worker_seed = mpi_worker_setup(seed)
    if rank != 0:
        logger.set_level(logger.DISABLED)

    return cli.learn_on_rank(TRPO, MlpPolicy, make_mujoco_env(env_id, seed), num_timesteps, rank, worker_seed,
                             timesteps_per_batch=1024, max_kl=0.01, cg_iters=10, cg_damping=0.1, entcoeff=0.0,
                             gamma=0.99, lam=0.98, vf_iters=5, vf_stepsize=1e-3)


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Parse the command line (``argv``; None: ``sys.argv``) and train."""
    cli.parse_and_train(mujoco_arg_parser(), train, argv)


if __name__ == "__main__":
    main()
