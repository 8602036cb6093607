"""
Train PPO1 on a MuJoCo task (gymnasium's MuJoCo environments; old ``-v2`` ids map to ``-v5``),
one environment per MPI rank:

    mpirun -np 4 python -m stable_baselines.ppo1.run_mujoco --env Hopper-v2
"""
from typing import Optional, Sequence

from stable_baselines import PPO1
from stable_baselines.common import cli
from stable_baselines.common.cmd_util import make_mujoco_env, mpi_worker_setup, mujoco_arg_parser
from stable_baselines.common.policies import MlpPolicy


def train(env_id: str, num_timesteps: int, seed: int) -> PPO1:
    """
    Train PPO1 with the MLP policy on this rank's copy of a MuJoCo task.

    :param env_id: (str) the task id
    :param num_timesteps: (int) the budget
    :param seed: (int) the seed of rank 0
    :return: (PPO1) the trained model
    """
    rank, worker_seed = mpi_worker_setup(seed)

    def make_model(env):
        return PPO1(MlpPolicy, env, timesteps_per_actorbatch=2048, clip_param=0.2, entcoeff=0.0, optim_epochs=10,
                    optim_stepsize=3e-4, optim_batchsize=64, gamma=0.99, lam=0.95, schedule='linear',
                    verbose=1 if rank == 0 else 0, seed=worker_seed)

    return cli.learn_and_close(make_mujoco_env(env_id, seed), make_model, num_timesteps)


def main(argv: Optional[Sequence[str]] = None) -> None:
    """
    Parse the command line and train.

    :param argv: ([str]) the arguments (None: ``sys.argv``)
    """
    args = mujoco_arg_parser().parse_args(argv)
    train(args.env, num_timesteps=args.num_timesteps, seed=args.seed)


if __name__ == '__main__':
    main()
