"""
Train PPO1 on an Atari game, one environment per MPI rank:

    mpirun -np 8 python -m stable_baselines.ppo1.run_atari --env PongNoFrameskip-v4

Each rank plays its own game with its own seed (``seed + 10000 * rank``); gradients are averaged over
the ranks; only rank 0 logs.
"""
from typing import Optional, Sequence

from stable_baselines import PPO1
from stable_baselines.common import cli
from stable_baselines.common.cmd_util import atari_arg_parser, mpi_worker_setup
from stable_baselines.common.policies import CnnPolicy


def train(env_id: str, num_timesteps: int, seed: int) -> PPO1:
    """
    Train PPO1 with the CNN policy on this rank's copy of an Atari game.

    :param env_id: (str) the game id
    :param num_timesteps: (int) the budget
    :param seed: (int) the seed of rank 0
    :return: (PPO1) the trained model
    """
    rank, worker_seed = mpi_worker_setup(seed)

    def make_model(env):
        return PPO1(CnnPolicy, env, timesteps_per_actorbatch=256, clip_param=0.2, entcoeff=0.01, optim_epochs=4,
                    optim_stepsize=1e-3, optim_batchsize=64, gamma=0.99, lam=0.95, schedule='linear',
                    verbose=2 if rank == 0 else 0, seed=worker_seed)

    return cli.learn_and_close(cli.monitored_atari_env(env_id, rank), make_model, num_timesteps)


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Parse the command line and train.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    """
    args = atari_arg_parser().parse_args(argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)


if __name__ == '__main__':
    main()
