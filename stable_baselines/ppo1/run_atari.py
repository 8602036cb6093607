"""
Train PPO1 on an Atari game, one environment per MPI rank:

    mpirun -np 8 python -m stable_baselines.ppo1.run_atari --env PongNoFrameskip-v4

Each rank plays its own game with its own seed (``seed + 10000 * rank``); gradients are averaged over
the ranks; only rank 0 logs.
"""
from typing import Optional, Sequence

from stable_baselines import PPO1
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.cmd_util import atari_arg_parser, mpi_worker_setup
from stable_baselines.common.policies import CnnPolicy


def train(env_id: str, num_timesteps: int, seed: int) -> PPO1:
    """
    Train PPO1 with the CNN policy on this rank's copy of an Atari game. The arguments: those of
    :func:`~stable_baselines.common.command_line.scripts.parse_and_train`.
    """
    rank, worker_seed = mpi_worker_setup(seed)
    return cli.learn_on_rank(PPO1, CnnPolicy, cli.monitored_atari_env(env_id, rank), num_timesteps, rank, worker_seed,
                             root_verbose=2, timesteps_per_actorbatch=256, clip_param=0.2, entcoeff=0.01,
                             optim_epochs=4, optim_stepsize=1e-3, optim_batchsize=64, gamma=0.99, lam=0.95,
                             schedule='linear')


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Parse the command line (``argv``; None: ``sys.argv``) and train."""
    cli.parse_and_train(atari_arg_parser(), train, argv)


if __name__ == '__main__':
    main()
