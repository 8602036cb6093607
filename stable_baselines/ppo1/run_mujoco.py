"""
Train PPO1 on a MuJoCo task (gymnasium's MuJoCo environments; old ``-v2`` ids map to ``-v5``),
one environment per MPI rank:

    mpirun -np 4 python -m stable_baselines.ppo1.run_mujoco --env Hopper-v2
"""
from typing import Optional, Sequence

from stable_baselines import PPO1
from stable_baselines.common.cmd_util import make_mujoco_env, mpi_worker_setup, mujoco_arg_parser
from stable_baselines.common.policies import MlpPolicy


def train(env_id: str, num_timesteps: int, seed: int) -> PPO1:
    """
    Train PPO1 model for the Mujoco environment, for testing purposes

    :param env_id: (str) Environment ID
    :param num_timesteps: (int) The total number of samples
    :param seed: (int) The initial seed for training
    :return: (PPO1) the trained model
    """
    rank, _ = mpi_worker_setup(seed)
    env = make_mujoco_env(env_id, seed)
    model = PPO1(MlpPolicy, env, timesteps_per_actorbatch=2048, clip_param=0.2, entcoeff=0.0, optim_epochs=10,
                 optim_stepsize=3e-4, optim_batchsize=64, gamma=0.99, lam=0.95, schedule='linear',
                 verbose=1 if rank == 0 else 0, seed=seed + 10000 * rank)
    try:
        model.learn(total_timesteps=num_timesteps)
    finally:
        env.close()
    return model


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Runs the test
    """
    args = mujoco_arg_parser().parse_args(argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)


if __name__ == '__main__':
    main()
