"""
Train PPO1 on a goal-conditioned robotics task (observation and desired goal flattened into one
vector), one environment per MPI rank:

    mpirun -np 4 python -m stable_baselines.ppo1.run_robotics --env FetchReach-v4

The Fetch tasks come with ``gymnasium-robotics`` (``pip install gymnasium-robotics``); any env whose
observation space is a Dict with ``observation`` and ``desired_goal`` works.
"""
from typing import Optional, Sequence

from stable_baselines import PPO1
from stable_baselines.common.command_line import scripts as cli
from stable_baselines.common.cmd_util import make_robotics_env, mpi_worker_setup, robotics_arg_parser
from stable_baselines.common.policies import MlpPolicy


def train(env_id: str, num_timesteps: int, seed: int) -> PPO1:
    """
    Train PPO1 with the MLP policy on this rank's copy of a goal-conditioned task. The arguments: those of
    :func:`~stable_baselines.common.command_line.scripts.parse_and_train`.
    """
    rank, worker_seed = mpi_worker_setup(seed)
    return cli.learn_on_rank(PPO1, MlpPolicy, make_robotics_env(env_id, worker_seed, rank=rank), num_timesteps, rank,
                             worker_seed, timesteps_per_actorbatch=2048, clip_param=0.2, entcoeff=0.0, optim_epochs=5,
                             optim_stepsize=3e-4, optim_batchsize=256, gamma=0.99, lam=0.95, schedule='linear')


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Parse the command line (``argv``; None: ``sys.argv``) and train."""
    cli.parse_and_train(robotics_arg_parser(), train, argv)


if __name__ == '__main__':
    main()
