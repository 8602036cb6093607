"""
Train TRPO on an Atari game, one environment per MPI rank:

    mpirun -np 16 python -m stable_baselines.trpo_mpi.run_atari --env PongNoFrameskip-v4

runs the algorithm for 40M frames = 10M timesteps. Each rank plays its own game with its own seed
(``seed + 10000 * rank``); gradients and Fisher-vector products are averaged over the ranks; only
rank 0 logs.
"""
from typing import Optional, Sequence

from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.cmd_util import atari_arg_parser, mpi_worker_setup
from stable_baselines.common.policies import CnnPolicy
from stable_baselines.trpo_mpi import TRPO


def train(env_id: str, num_timesteps: int, seed: int) -> TRPO:
    """
    Train TRPO with the CNN policy on this rank's copy of an Atari game. The arguments: those of
    :func:`~stable_baselines.common.command_line.scripts.parse_and_train`; 10 % more than the budget is trained,
    as in the original script.
    """
    rank, worker_seed = mpi_worker_setup(seed)
    return cli.learn_on_rank(TRPO, CnnPolicy, cli.monitored_atari_env(env_id, rank), cli.with_margin(num_timesteps),
                             rank, worker_seed,
                             timesteps_per_batch=512, max_kl=0.001, cg_iters=10, cg_damping=1e-3, entcoeff=0.0,
                             gamma=0.98, lam=1, vf_iters=3, vf_stepsize=1e-4)


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Parse the command line (``argv``; None: ``sys.argv``) and train."""
    cli.parse_and_train(atari_arg_parser(), train, argv)


if __name__ == "__main__":
    main()
