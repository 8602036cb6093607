"""
Train PPO1 on a goal-conditioned robotics task (observation and desired goal flattened into one
vector), one environment per MPI rank:

    mpirun -np 4 python -m stable_baselines.ppo1.run_robotics --env FetchReach-v4

The Fetch tasks come with ``gymnasium-robotics`` (``pip install gymnasium-robotics``); any env whose
observation space is a Dict with ``observation`` and ``desired_goal`` works.
"""
from typing import Optional, Sequence

from stable_baselines import PPO1
from stable_baselines.common import cli
from stable_baselines.common.cmd_util import make_robotics_env, mpi_worker_setup, robotics_arg_parser
from stable_baselines.common.policies import MlpPolicy


def train(env_id: str, num_timesteps: int, seed: int) -> PPO1:
    """
    Train PPO1 with the MLP policy on this rank's copy of a goal-conditioned task.

    :param env_id: (str) the task id
    :param num_timesteps: (int) the budget
    :param seed: (int) the seed of rank 0
    :return: (PPO1) the trained model
    """
    rank, worker_seed = mpi_worker_setup(seed)

    def make_model(env):
        return PPO1(MlpPolicy, env, timesteps_per_actorbatch=2048, clip_param=0.2, entcoeff=0.0, optim_epochs=5,
                    optim_stepsize=3e-4, optim_batchsize=256, gamma=0.99, lam=0.95, schedule='linear',
                    verbose=1 if rank == 0 else 0, seed=worker_seed)

    return cli.learn_and_close(make_robotics_env(env_id, worker_seed, rank=rank), make_model, num_timesteps)


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Parse the command line and train.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    """
    args = robotics_arg_parser().parse_args(argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)


if __name__ == '__main__':
    main()
