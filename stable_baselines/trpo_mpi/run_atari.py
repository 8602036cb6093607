"""
Train TRPO on an Atari game, one environment per MPI rank:

    mpirun -np 16 python -m stable_baselines.trpo_mpi.run_atari --env PongNoFrameskip-v4

runs the algorithm for 40M frames = 10M timesteps. Each rank plays its own game with its own seed
(``seed + 10000 * rank``); gradients and Fisher-vector products are averaged over the ranks; only
rank 0 logs.
"""
import os
from typing import Optional, Sequence

from stable_baselines import bench, logger
from stable_baselines.common.atari_wrappers import make_atari, wrap_deepmind
from stable_baselines.common.cmd_util import atari_arg_parser, mpi_worker_setup
from stable_baselines.common.policies import CnnPolicy
from stable_baselines.trpo_mpi import TRPO


def train(env_id: str, num_timesteps: int, seed: int) -> TRPO:
    """
    Train TRPO model for the atari environment, for testing purposes

    :param env_id: (str) Environment ID
    :param num_timesteps: (int) The total number of samples
    :param seed: (int) The initial seed for training
    :return: (TRPO) the trained model
    """
    rank, worker_seed = mpi_worker_setup(seed)
    env = make_atari(env_id)
    log_dir = logger.get_dir()
    env = bench.Monitor(env, log_dir and os.path.join(log_dir, str(rank)))
    env = wrap_deepmind(env)
    model = TRPO(CnnPolicy, env, timesteps_per_batch=512, max_kl=0.001, cg_iters=10, cg_damping=1e-3,
                 entcoeff=0.0, gamma=0.98, lam=1, vf_iters=3, vf_stepsize=1e-4,
                 verbose=1 if rank == 0 else 0, seed=worker_seed)
    try:
        model.learn(total_timesteps=int(num_timesteps * 1.1))
    finally:
        env.close()
    return model


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Runs the test
    """
    args = atari_arg_parser().parse_args(argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)


if __name__ == "__main__":
    main()
