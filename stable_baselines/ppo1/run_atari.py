"""
Train PPO1 on an Atari game, one environment per MPI rank:

    mpirun -np 16 python -m stable_baselines.ppo1.run_atari --env PongNoFrameskip-v4

Each rank plays its own game with its own seed (``seed + 10000 * rank``); gradients are averaged
over the ranks; only rank 0 logs.
"""
import os
from typing import Optional, Sequence

from stable_baselines import PPO1, bench, logger
from stable_baselines.common.atari_wrappers import make_atari, wrap_deepmind
from stable_baselines.common.cmd_util import atari_arg_parser, mpi_worker_setup
from stable_baselines.common.policies import CnnPolicy


def train(env_id: str, num_timesteps: int, seed: int) -> PPO1:
    """
    Train PPO1 model for Atari environments, for testing purposes

    :param env_id: (str) Environment ID
    :param num_timesteps: (int) The total number of samples
    :param seed: (int) The initial seed for training
    :return: (PPO1) the trained model
    """
    rank, worker_seed = mpi_worker_setup(seed)
    env = make_atari(env_id)
    log_dir = logger.get_dir()
    env = bench.Monitor(env, log_dir and os.path.join(log_dir, str(rank)))
    env = wrap_deepmind(env)
    model = PPO1(CnnPolicy, env, timesteps_per_actorbatch=256, clip_param=0.2, entcoeff=0.01, optim_epochs=4,
                 optim_stepsize=1e-3, optim_batchsize=64, gamma=0.99, lam=0.95, schedule='linear',
                 verbose=2 if rank == 0 else 0, seed=worker_seed)
    try:
        model.learn(total_timesteps=num_timesteps)
    finally:
        env.close()
    return model


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Runs the test
    """
    args = atari_arg_parser().parse_args(argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)


if __name__ == '__main__':
    main()
